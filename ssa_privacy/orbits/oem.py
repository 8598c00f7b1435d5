"""Orbit Ephemeris Messages (OEM, CCSDS 502.0-B-3) with covariance, and CCSDS time tags.

An OEM is a table of states of one object (position, velocity) at epochs, in a named
reference frame about a named centre, optionally with a 6 x 6 covariance at some epochs.
:func:`write_oem` writes an estimate of the package (e.g. an EKF track: states in km and
km/s, covariances in km^2, km^2/s and km^2/s^2) as one OEM segment; :func:`read_oem` reads
one back as an :class:`Ephemeris`. Both formats of the standard are supported, KVN (the
``key = value`` text) and XML (NDM/XML), chosen by the file's suffix when writing and by
its content when reading; the syntax is written and parsed by the ``ccsds-ndm`` package.

Conventions:

- ``TIME_SYSTEM = UTC``; epochs are ``YYYY-MM-DDThh:mm:ss.fffffffff`` (nanoseconds), and
  the ``epoch_jd`` of the package (a UTC Julian date counted in days of 86,400 s, as
  ``sgp4.api.jday`` counts it, so that a leap second has no time tag) is kept exactly:
  :func:`time_tags` and :func:`parse_time_tags` convert through integer nanoseconds.
  ``START_TIME`` is the epoch ``t = 0`` unless a state precedes it, so that
  ``epoch_jd`` round-trips; ``STOP_TIME`` is the last state's epoch.
- The covariance is stored, as the standard prescribes, as its lower triangle row by row
  (``CX_X``; ``CY_X CY_Y``; ...; ``CZ_DOT_X ... CZ_DOT_Z_DOT``), one block per state,
  with the state's epoch and ``COV_REF_FRAME`` equal to ``REF_FRAME``.
- Numbers are written by ``ccsds-ndm`` as Python's shortest round-trip representation
  (``repr``, at most 17 significant digits), so states and covariances read back equal
  to the last bit.

Reading KVN: ``ccsds-ndm`` 3.1.1 evaluates ``typing.get_type_hints`` again for every data
line it reads (about 2.6 ms per line); while a message is parsed here, the library's
``kvn_builder`` module is given a memoized ``get_type_hints`` (same results, about 17
times faster), and its own ``typing`` is put back afterwards. XML needs no help.

References
----------
CCSDS 502.0-B-3, "Orbit Data Messages", Blue Book, April 2023 (section 5: the OEM, its
covariance, KVN and XML); CCSDS 505.0-B, "XML Specification for Navigation Data Messages"
(the NDM/XML 4.0.0 schemas); CCSDS 301.0-B-4, "Time Code Formats" (the ASCII calendar
segmented time code, section 3.5); the ``ccsds-ndm`` package by E. Imre.
"""

from dataclasses import dataclass, field

import numpy as np
from ccsds_ndm.models import ndmxml2, ndmxml4
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_common_4_0 import (
    OdmHeader,
    OemCovarianceMatrixType,
    PositionCovarianceType,
    PositionTypeUo,
    PositionVelocityCovarianceType,
    StateVectorAccType,
    VelocityCovarianceType,
    VelocityTypeUo,
)

from ssa_privacy._internal.ccsds import (
    _comments,
    _creation_date,
    _file_format,
    _frozen,
    _increasing,
    _kind_of,
    _messages,
    _number,
    _parse,
    _read_message,
    _render,
    _text,
    _units,
    _value,
    _write,
    parse_time_tags,
    time_tags,
)
from ssa_privacy._internal.matrix_validation import symmetric_matrix
from ssa_privacy._internal.validation import as_finite_array, scalar

__all__ = [
    "COVARIANCE_KEYWORDS",
    "Ephemeris",
    "read_oem",
    "write_oem",
]

#: Keywords of the covariance's lower triangle, row by row (CCSDS 502.0-B-3, OEM covariance).
COVARIANCE_KEYWORDS = (
    "CX_X",
    "CY_X",
    "CY_Y",
    "CZ_X",
    "CZ_Y",
    "CZ_Z",
    "CX_DOT_X",
    "CX_DOT_Y",
    "CX_DOT_Z",
    "CX_DOT_X_DOT",
    "CY_DOT_X",
    "CY_DOT_Y",
    "CY_DOT_Z",
    "CY_DOT_X_DOT",
    "CY_DOT_Y_DOT",
    "CZ_DOT_X",
    "CZ_DOT_Y",
    "CZ_DOT_Z",
    "CZ_DOT_X_DOT",
    "CZ_DOT_Y_DOT",
    "CZ_DOT_Z_DOT",
)
#: Row and column of each covariance keyword (0-based, state order x, y, z, vx, vy, vz).
_COVARIANCE_INDEX = tuple((i, j) for i in range(6) for j in range(i + 1))
#: The ``ccsds-ndm`` field of each covariance keyword, and its value class.
_COVARIANCE_FIELDS = tuple(
    (
        keyword.lower(),
        PositionCovarianceType
        if i < 3
        else (PositionVelocityCovarianceType if j < 3 else VelocityCovarianceType),
    )
    for keyword, (i, j) in zip(COVARIANCE_KEYWORDS, _COVARIANCE_INDEX)
)
_STATE_FIELDS = ("x", "y", "z", "x_dot", "y_dot", "z_dot")
_STATE_UNITS = ("km",) * 3 + ("km/s",) * 3


@dataclass(frozen=True, eq=False)
class Ephemeris:
    """An object's states at epochs, optionally with covariances: the content of an OEM.

    Parameters
    ----------
    object_name : str
        The object's name (``OBJECT_NAME``), e.g. ``"ISS (ZARYA)"``.
    object_id : str
        Its identifier (``OBJECT_ID``): the international designator ``YYYY-NNNP`` by the
        standard's recommendation, or a catalogue number.
    frame : str
        Reference frame of the states (``REF_FRAME``), e.g. ``"TEME"``, ``"GCRF"``.
    epoch_jd : float
        Julian date (UTC) of ``t = 0``.
    times : array_like, shape (E,)
        Seconds since ``epoch_jd``, strictly increasing, at least one.
    states : array_like, shape (E, 6)
        Position (km) and velocity (km/s) in ``frame``.
    covariances : array_like, shape (E, 6, 6), optional
        Covariance of each state (km^2, km^2/s, km^2/s^2 blocks), symmetric to a relative
        1e-8 (:data:`~ssa_privacy._internal.matrix_validation.SYMMETRY_RTOL`; stored
        symmetrized), or None.
    center : str
        Origin of the frame (``CENTER_NAME``), default ``"EARTH"``.
    comments : sequence of str
        One-line comments of the segment (``COMMENT``), stripped of surrounding blanks.

    Raises
    ------
    TypeError
        If a name is not a str, or a number is not real.
    ValueError
        On an empty or multi-line name, non-finite numbers, times that do not increase,
        shapes that do not match, or an asymmetric covariance (naming it).

    Notes
    -----
    Frozen; the arrays are read-only copies. Instances compare by identity (arrays have
    no single truth value). CCSDS 502.0-B-3, section 5.
    """

    object_name: str
    object_id: str
    frame: str
    epoch_jd: float
    times: np.ndarray
    states: np.ndarray
    covariances: np.ndarray | None = None
    center: str = "EARTH"
    comments: tuple = field(default=())

    def __post_init__(self):
        for name in ("object_name", "object_id", "frame", "center"):
            object.__setattr__(self, name, _text(getattr(self, name), name))
        object.__setattr__(self, "epoch_jd", scalar(self.epoch_jd, "epoch_jd"))
        times = as_finite_array(self.times, "times", ndim=1)
        if times.size == 0:
            raise ValueError("times must hold at least one epoch")
        _increasing(times, "times")
        states = as_finite_array(self.states, "states", ndim=2)
        if states.shape != (times.size, 6):
            raise ValueError(f"states must have shape ({times.size}, 6), got {states.shape}")
        covariances = self.covariances
        if covariances is not None:
            covariances = as_finite_array(covariances, "covariances", ndim=3)
            if covariances.shape != (times.size, 6, 6):
                raise ValueError(
                    f"covariances must have shape ({times.size}, 6, 6), got {covariances.shape}"
                )
            covariances = np.stack(
                [symmetric_matrix(c, f"covariances[{k}]") for k, c in enumerate(covariances)]
            )
            covariances = _frozen(covariances)
        object.__setattr__(self, "times", _frozen(times))
        object.__setattr__(self, "states", _frozen(states))
        object.__setattr__(self, "covariances", covariances)
        object.__setattr__(self, "comments", _comments(self.comments, "comments"))


def write_oem(
    path,
    object_name,
    object_id,
    epoch_jd,
    times,
    states,
    covariances=None,
    frame="TEME",
    center="EARTH",
    originator="ssa_privacy",
    comments=(),
    *,
    file_format=None,
    creation_jd=None,
):
    """Write an ephemeris (with covariances) as a CCSDS OEM, atomically.

    Parameters
    ----------
    path : str or path-like
        The file; its folder is created if missing. Written through a temporary file
        renamed into place (:func:`ssa_privacy.engine.output.atomic_path`).
    object_name, object_id : str
        ``OBJECT_NAME`` and ``OBJECT_ID`` (see :class:`Ephemeris`).
    epoch_jd : float
        Julian date (UTC) of ``t = 0``.
    times : array_like, shape (E,)
        Seconds since ``epoch_jd``, strictly increasing.
    states : array_like, shape (E, 6)
        Position (km) and velocity (km/s) in ``frame``.
    covariances : array_like, shape (E, 6, 6), optional
        Covariances (km^2, km^2/s, km^2/s^2), symmetric; one block per state is written
        (lower triangle, the state's epoch, ``COV_REF_FRAME = frame``).
    frame : str
        ``REF_FRAME`` (default ``"TEME"``, the frame of SGP4 and of the package's states).
    center : str
        ``CENTER_NAME`` (default ``"EARTH"``).
    originator : str
        ``ORIGINATOR`` of the header.
    comments : sequence of str
        One-line ``COMMENT`` lines of the segment's metadata.
    file_format : {"kvn", "xml"}, optional
        Default: ``"xml"`` for a ``.xml`` suffix, else ``"kvn"``.
    creation_jd : float, optional
        ``CREATION_DATE`` as a UTC Julian date (for reproducible files); default now.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError, ValueError
        As :class:`Ephemeris`, or for a bad ``originator``, ``file_format`` or
        ``creation_jd``, naming the argument.

    Notes
    -----
    CCSDS 502.0-B-3, section 5 (OEM 3.0: header, one metadata block, data lines, covariance
    blocks); written by ``ccsds-ndm``. ``START_TIME`` is ``epoch_jd`` unless a state
    precedes it, ``STOP_TIME`` the last state's epoch.
    """
    ephemeris = Ephemeris(
        object_name, object_id, frame, epoch_jd, times, states, covariances, center, comments
    )
    originator = _text(originator, "originator")
    file_format = _file_format(path, file_format)
    header = OdmHeader(creation_date=_creation_date(creation_jd), originator=originator)
    start = min(0.0, float(ephemeris.times[0]))
    tags = time_tags(ephemeris.epoch_jd, np.concatenate([[start], ephemeris.times]))
    metadata = ndmxml4.OemMetadata(
        comment=list(ephemeris.comments),
        object_name=ephemeris.object_name,
        object_id=ephemeris.object_id,
        center_name=ephemeris.center,
        ref_frame=ephemeris.frame,
        time_system="UTC",
        start_time=tags[0],
        stop_time=tags[-1],
    )
    vectors = [
        StateVectorAccType(
            epoch=tag,
            **{
                name: (PositionTypeUo if i < 3 else VelocityTypeUo)(value=float(value))
                for i, (name, value) in enumerate(zip(_STATE_FIELDS, state))
            },
        )
        for tag, state in zip(tags[1:], ephemeris.states)
    ]
    blocks = []
    if ephemeris.covariances is not None:
        for tag, matrix in zip(tags[1:], ephemeris.covariances):
            values = {
                name: kind(value=float(matrix[i, j]))
                for (name, kind), (i, j) in zip(_COVARIANCE_FIELDS, _COVARIANCE_INDEX)
            }
            blocks.append(
                OemCovarianceMatrixType(epoch=tag, cov_ref_frame=ephemeris.frame, **values)
            )
    data = ndmxml4.OemData(state_vector=vectors, covariance_matrix=blocks)
    message = ndmxml4.Oem(
        header=header,
        body=ndmxml4.OemBody(segment=[ndmxml4.OemSegment(metadata=metadata, data=data)]),
    )
    return _write(path, _render(message, file_format))


def read_oem(path):
    """Read a CCSDS OEM (KVN or XML) into an :class:`Ephemeris`.

    Parameters
    ----------
    path : str or path-like
        The file: OEM version 2.0 or 3.0, KVN or NDM/XML.

    Returns
    -------
    Ephemeris
        The states of every segment in order (the segments must describe one object in
        one frame about one centre, ``TIME_SYSTEM = UTC``), the epoch ``START_TIME`` of
        the first segment unless a state precedes it (then the first state's epoch), and
        the covariances when every state has one at its epoch (else None when there are
        none). Comments are those of the segments' metadata and data.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        Naming the file and, where it applies, the segment and keyword: not UTF-8, not a
        readable OEM, another message type, a time system other than UTC, segments of
        different objects or frames, units other than km and km/s, a covariance in
        another frame or at an epoch without a state, states of which only some have a
        covariance, epochs that do not increase, or non-finite numbers.

    Notes
    -----
    CCSDS 502.0-B-3, section 5; parsed by ``ccsds-ndm``. Accelerations in the data lines
    are not read.
    """
    path, text = _read_message(path, "OEM")
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
        meta = segment.metadata
        time_system = _value(meta.time_system, f"{where}, TIME_SYSTEM")
        if time_system != "UTC":
            raise ValueError(f"{where}, TIME_SYSTEM: {time_system!r} is not supported (UTC)")
        this = tuple(
            _value(getattr(meta, name), f"{where}, {name.upper()}")
            for name in ("object_name", "object_id", "ref_frame", "center_name")
        )
        if any(not isinstance(v, str) or not v for v in this):
            raise ValueError(
                f"{where}: OBJECT_NAME, OBJECT_ID, REF_FRAME and CENTER_NAME are required"
            )
        if identity is None:
            identity, start = this, meta.start_time
        elif this != identity:
            raise ValueError(
                f"{where}: (OBJECT_NAME, OBJECT_ID, REF_FRAME, CENTER_NAME) = {this} differs "
                f"from segment 1's {identity}; read_oem reads one object in one frame"
            )
        comments += list(meta.comment) + list(segment.data.comment)
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
        for k, block in enumerate(segment.data.covariance_matrix, 1):
            label = f"{where}, covariance {k}"
            frame = _value(block.cov_ref_frame, f"{label}, COV_REF_FRAME")
            if frame is not None and frame != identity[2]:
                raise ValueError(
                    f"{label}, COV_REF_FRAME: {frame!r} differs from REF_FRAME "
                    f"{identity[2]!r} (covariances are not rotated)"
                )
            matrix = np.zeros((6, 6))
            for (name, _), (i, j), keyword in zip(
                _COVARIANCE_FIELDS, _COVARIANCE_INDEX, COVARIANCE_KEYWORDS
            ):
                value = getattr(block, name)
                if value is None:
                    raise ValueError(f"{label}, {keyword}: missing")
                matrix[i, j] = matrix[j, i] = _number(value, f"{label}, {keyword}")
            covariance_tags.append(block.epoch)
            covariances.append(matrix)
    if not tags:
        raise ValueError(f"{path}: the OEM holds no state")
    epoch_jd, every = parse_time_tags(tags + covariance_tags, f"{path}, EPOCH", start=start)
    times, at = every[: len(tags)], every[len(tags) :]
    _increasing(times, f"{path}: the state epochs")
    covariance_array = None
    if covariances:
        index = {t: k for k, t in enumerate(times)}
        missing = [t for t in at if t not in index]
        if missing or len(set(at)) != len(times):
            raise ValueError(
                f"{path}: {len(covariances)} covariance blocks for {len(times)} states"
                + (f", one at t = {missing[0]:g} s without a state" if missing else "")
                + "; an Ephemeris has a covariance at every state epoch or none"
            )
        covariance_array = np.zeros((len(times), 6, 6))
        for t, matrix in zip(at, covariances):
            covariance_array[index[t]] = matrix
    name, object_id, frame, center = identity
    return Ephemeris(
        name, object_id, frame, epoch_jd, times, np.array(states), covariance_array, center,
        tuple(comments),
    )  # fmt: skip
