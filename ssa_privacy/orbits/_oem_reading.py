"""Reading a CCSDS OEM: the checks behind :func:`ssa_privacy.orbits.oem.read_oem`.

A message is parsed by ``ccsds-ndm`` (its KVN text scanned first,
:mod:`ssa_privacy._internal.ccsds_kvn`); then each segment's metadata (one object in one
frame about one centre, in UTC), its states and their units, and its covariance blocks
(frame, units, positive semi-definite) are checked, and the segments are joined into one
:class:`~ssa_privacy.orbits.oem.Ephemeris`, an object name given by a
:data:`~ssa_privacy.orbits.oem.NAME_COMMENT` put back. What is read and refused: the
docstrings of :mod:`ssa_privacy.orbits.oem` and :func:`~ssa_privacy.orbits.oem.read_oem`.

References
----------
CCSDS 502.0-B-3, "Orbit Data Messages", Blue Book, April 2023, section 5; the
``ccsds-ndm`` package by E. Imre.
"""

import re

import numpy as np
from ccsds_ndm.models import ndmxml2, ndmxml4

from ssa_privacy._internal.ccsds import (
    _check_span,
    _increasing,
    _kind_of,
    _messages,
    _number,
    _parse,
    _read_message,
    _units,
    _value,
    parse_time_tags,
)
from ssa_privacy._internal.ccsds_kvn import _kvn_version, _scan_oem
from ssa_privacy.orbits.oem import (
    _COVARIANCE_FIELDS,
    _COVARIANCE_INDEX,
    _STATE_FIELDS,
    COVARIANCE_KEYWORDS,
    NAME_COMMENT,
    Ephemeris,
    _covariance,
    kvn_object_name,
)

__all__ = []

_NAME_COMMENT = re.compile(r"^OBJECT_NAME as given: (.+)$")
_STATE_UNITS = ("km",) * 3 + ("km/s",) * 3
#: The units of each covariance keyword: km^2, km^2/s or km^2/s^2 (in XML's spelling).
_COVARIANCE_UNITS = tuple(
    "km**2" if i < 3 else ("km**2/s" if j < 3 else "km**2/s**2") for i, j in _COVARIANCE_INDEX
)


def _read_oem(path):
    """The :class:`~ssa_privacy.orbits.oem.Ephemeris` of an OEM file
    (:func:`~ssa_privacy.orbits.oem.read_oem`, which documents what is refused)."""
    path, text = _read_message(path, "OEM")
    if _kvn_version(text, "OEM") is not None:  # else XML, or what the parser refuses
        _scan_oem(path, text)
    tree = _parse(path, text, "OEM")
    messages = _messages(tree, (ndmxml2.OemType, ndmxml4.OemType))
    if not messages:
        raise ValueError(f"{path}: holds a CCSDS {_kind_of(tree)}, not an OEM")
    if len(messages) > 1:
        raise ValueError(f"{path}: holds {len(messages)} OEMs; read_oem reads one")
    segments = messages[0].body.segment
    if not segments:
        raise ValueError(f"{path}: the OEM has no segment")
    identity, tags, states, covariance_tags, covariances, comments = None, [], [], [], [], []
    for number, segment in enumerate(segments, 1):
        where = f"{path}, segment {number}"
        this = _identity(segment.metadata, where)
        if identity is None:
            identity = this
        elif this != identity:
            raise ValueError(
                f"{where}: (OBJECT_NAME, OBJECT_ID, REF_FRAME, CENTER_NAME) = {this} differs "
                f"from segment 1's {identity}; read_oem reads one object in one frame"
            )
        comments += list(segment.metadata.comment) + list(segment.data.comment)
        these = _states(segment, where)
        tags += these[0]
        states += these[1]
        these = _covariances(segment, where, identity[2])
        covariance_tags += these[0]
        covariances += these[1]
    if not tags:
        raise ValueError(f"{path}: the OEM holds no state")
    epoch_jd, every = parse_time_tags(tags + covariance_tags, f"{path}, EPOCH", day_epoch=True)
    times, at = every[: len(tags)], every[len(tags) :]
    _increasing(times, f"{path}: the state epochs")
    covariance_array = None
    if covariances:
        index = {t: k for k, t in enumerate(times)}
        missing = [tag for tag, t in zip(covariance_tags, at) if t not in index]
        if missing or len(set(at)) != len(times):
            raise ValueError(
                f"{path}: {len(covariances)} covariance blocks for {len(times)} states"
                + (f", one at {missing[0]} without a state" if missing else "")
                + "; an Ephemeris has a covariance at every state epoch or none"
            )
        covariance_array = np.zeros((len(times), 6, 6))
        for t, matrix in zip(at, covariances):
            covariance_array[index[t]] = matrix
    name, object_id, frame, center = identity
    name, comments = _given_name(path, name, comments)
    try:
        return Ephemeris(
            name, object_id, frame, epoch_jd, times, np.array(states), covariance_array,
            center, tuple(comments),
        )  # fmt: skip
    except ValueError as error:  # a name or comment with a control character (e.g. a tab)
        raise ValueError(f"{path}: {error}") from None


def _given_name(path, name, comments):
    """The object name and the other comments: the name given by a :data:`NAME_COMMENT`
    when there is one (it must match ``OBJECT_NAME``, ValueError naming the file)."""
    given = [m[1] for m in map(_NAME_COMMENT.match, comments) if m]
    if not given:
        return name, comments
    written, note = kvn_object_name(given[0])
    if len(given) > 1 or note is None or written != name:
        raise ValueError(
            f"{path}, COMMENT {NAME_COMMENT.format(name=given[0])!r}: does not give "
            f"OBJECT_NAME = {name!r} (one such comment, whose name ends in [...])"
        )
    return given[0], [c for c in comments if not _NAME_COMMENT.match(c)]


def _identity(meta, where):
    """(OBJECT_NAME, OBJECT_ID, REF_FRAME, CENTER_NAME) of a segment in UTC, or ValueError."""
    time_system = _value(meta.time_system, f"{where}, TIME_SYSTEM")
    if time_system != "UTC":
        found = "missing" if time_system is None else f"{time_system!r} is not supported"
        raise ValueError(f"{where}, TIME_SYSTEM: {found} (UTC)")
    this = tuple(
        _value(getattr(meta, name), f"{where}, {name.upper()}")
        for name in ("object_name", "object_id", "ref_frame", "center_name")
    )
    if any(not isinstance(v, str) or not v for v in this):
        raise ValueError(f"{where}: OBJECT_NAME, OBJECT_ID, REF_FRAME and CENTER_NAME are required")
    return this


def _states(segment, where):
    """The epochs (time tags) and states (km, km/s) of a segment's data lines."""
    tags, states = [], []
    for k, vector in enumerate(segment.data.state_vector, 1):
        row = []
        for name, units in zip(_STATE_FIELDS, _STATE_UNITS):
            value = getattr(vector, name)
            label = f"{where}, state {k}, {name.upper()}"
            if value is None:
                raise ValueError(f"{label}: missing")
            _units(value, (units,), label)
            row.append(_number(value, label))
        tags.append(vector.epoch)
        states.append(row)
    if tags:
        meta = segment.metadata
        _check_span(tags, where, meta.start_time, meta.stop_time)
    return tags, states


def _covariances(segment, where, frame):
    """The epochs and covariances (6 x 6, checked) of a segment's covariance blocks."""
    tags, matrices = [], []
    for k, block in enumerate(segment.data.covariance_matrix, 1):
        label = f"{where}, covariance {k} at {block.epoch}"
        found = _value(block.cov_ref_frame, f"{label}, COV_REF_FRAME")
        if found is not None and found != frame:
            raise ValueError(
                f"{label}, COV_REF_FRAME: {found!r} differs from REF_FRAME {frame!r} "
                "(covariances are not rotated)"
            )
        matrix = np.zeros((6, 6))
        for (name, _), (i, j), keyword, units in zip(
            _COVARIANCE_FIELDS, _COVARIANCE_INDEX, COVARIANCE_KEYWORDS, _COVARIANCE_UNITS
        ):
            value = getattr(block, name)
            if value is None:
                raise ValueError(f"{label}, {keyword}: missing")
            _units(value, (units,), f"{label}, {keyword}")
            matrix[i, j] = matrix[j, i] = _number(value, f"{label}, {keyword}")
        tags.append(block.epoch)
        matrices.append(_covariance(matrix, label))
    return tags, matrices
