"""Reading a CCSDS TDM: the checks and conversions behind :func:`ssa_privacy.sensors.tdm.read_tdm`.

A message is parsed by ``ccsds-ndm`` (its KVN text scanned first,
:mod:`ssa_privacy._internal.ccsds_kvn`), then each segment is checked and turned into a
:class:`~ssa_privacy.sensors.tdm.TrackingData`: the metadata (time system, mode, the
participants and ``PATH``, the angle type and frame, no correction, modulus or delay to
apply), the units of the observations (read from the text, since ``ccsds-ndm`` drops
them), the whole turns of angles written modulo 360 deg, and the values of a segment of
measurements. What is read and refused: the docstrings of
:mod:`ssa_privacy.sensors.tdm` and :func:`~ssa_privacy.sensors.tdm.read_tdm`.

References
----------
CCSDS 503.0-B-2, "Tracking Data Message", Blue Book, June 2020; the ``ccsds-ndm``
package by E. Imre.
"""

import re
import xml.etree.ElementTree as ElementTree

import numpy as np
from ccsds_ndm.models import ndmxml1, ndmxml4

from ssa_privacy._internal.ccsds import (
    _check_span,
    _kind_of,
    _number,
    _parse,
    _read_message,
    _value,
    parse_time_tags,
)
from ssa_privacy._internal.ccsds_kvn import _kvn_version, _scan_tdm, _tdm_frames
from ssa_privacy.sensors.tdm import (
    _ANGLE_TYPE,
    KINDS,
    OPTICAL_FRAME,
    RELEASE_COMMENT,
    TrackingData,
    _unphysical,
)

__all__ = []

_TURNS = re.compile(r"(ANGLE_[12]) at (\S+): add ([+-]?\d+) x 360 deg")
#: Per keyword, the units accepted on a data line, the standard's (the default) first:
#: (factor to rad, km or km/s; a whole turn in those units, for the turns of an angle).
_ANGLE_UNITS = {"deg": (np.pi / 180.0, 360.0), "rad": (1.0, 2.0 * np.pi)}
_UNITS = {
    "ANGLE_1": _ANGLE_UNITS,
    "ANGLE_2": _ANGLE_UNITS,
    "RANGE": {"km": (1.0, None)},
    "DOPPLER_INSTANTANEOUS": {"km/s": (1.0, None)},
}
#: Corrections and signal delays a reader would have to apply (:func:`_check_adjustments`).
_CORRECTIONS = tuple(
    f"correction_{name}"
    for name in ("angle_1", "angle_2", "doppler", "range", "receive", "transmit",
                 "aberration_yearly", "aberration_diurnal")
)  # fmt: skip
_DELAYS = tuple(f"{way}_delay_{n}" for way in ("transmit", "receive") for n in range(1, 6))


def _read_tdm(path):
    """The :class:`~ssa_privacy.sensors.tdm.TrackingData` segments of a TDM file
    (:func:`~ssa_privacy.sensors.tdm.read_tdm`, which documents what is refused)."""
    path, text = _read_message(path, "TDM")
    units, frames = {}, {}
    if _kvn_version(text, "TDM") is not None:  # else XML, or what the parser refuses
        units = _scan_tdm(path, text)
        text, frames = _tdm_frames(text)
    tree = _parse(path, text, "TDM")
    if not isinstance(tree, ndmxml1.TdmType | ndmxml4.TdmType):
        raise ValueError(f"{path}: holds a CCSDS {_kind_of(tree)}, not a TDM")
    segments = tree.body.segment
    if not segments:
        raise ValueError(f"{path}: the TDM has no segment")
    if text.lstrip().startswith("<"):
        units = _xml_units(text)
    return [
        _read_segment(segment, f"{path}, segment {n}", frames, units, n)
        for n, segment in enumerate(segments, 1)
    ]


def _xml_units(text):
    """``{(segment, keyword, time tag): units}`` of the XML observations with a ``units``
    attribute (``ccsds-ndm`` keeps those of the angles only)."""
    root = ElementTree.fromstring(text.encode("utf-8"))  # well-formed: parsed before
    units = {}

    def local(element):
        return element.tag.rsplit("}", 1)[-1]

    segments = [e for e in root.iter() if local(e) == "segment"]
    for number, segment in enumerate(segments, 1):
        for observation in (e for e in segment.iter() if local(e) == "observation"):
            children = {local(child): child for child in observation}
            epoch = (getattr(children.get("EPOCH"), "text", None) or "").strip()
            for keyword, child in children.items():
                if "units" in child.attrib:
                    units[number, keyword, epoch] = child.attrib["units"].strip()
    return units


def _participants(meta, where):
    """(sensor, object) from PARTICIPANT_1/2 and PATH: the sensor receives (last of PATH)."""
    path = _value(meta.path, f"{where}, PATH")
    if path is None:
        raise ValueError(f"{where}, PATH: missing (it tells which participant is the sensor)")
    order = path.replace(" ", "").split(",")
    if set(order) != {"1", "2"} or order[0] == order[1] or order[-1] == order[-2]:
        raise ValueError(
            f"{where}, PATH: {path!r} is not supported (a sensor and an object: "
            "1,2 / 2,1 one-way, 1,2,1 / 2,1,2 two-way)"
        )
    names = {}
    for number in ("1", "2"):
        name = _value(getattr(meta, f"participant_{number}"), f"{where}, PARTICIPANT_{number}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}, PARTICIPANT_{number}: missing")
        names[number] = name
    for extra in (3, 4, 5):
        if getattr(meta, f"participant_{extra}", None) is not None:
            raise ValueError(f"{where}, PARTICIPANT_{extra}: only two participants are supported")
    sensor = order[-1]
    return names[sensor], names["2" if sensor == "1" else "1"]


def _check_metadata(meta, where, frames, number):
    """The kind of a segment from its metadata; ValueError on what is not supported."""
    time_system = _value(meta.time_system, f"{where}, TIME_SYSTEM")
    if time_system is None:
        raise ValueError(f"{where}, TIME_SYSTEM: missing (UTC)")
    if time_system != "UTC":
        raise ValueError(f"{where}, TIME_SYSTEM: {time_system!r} is not supported (UTC)")
    mode = _value(meta.mode, f"{where}, MODE")
    if mode is not None and str(mode).upper() != "SEQUENTIAL":
        raise ValueError(f"{where}, MODE: {mode!r} is not supported (SEQUENTIAL)")
    angle_type = _value(meta.angle_type, f"{where}, ANGLE_TYPE")
    angle_type = angle_type.upper() if isinstance(angle_type, str) else angle_type
    kinds = {v: k for k, v in _ANGLE_TYPE.items()}
    if angle_type not in kinds:
        found = "missing" if angle_type is None else f"{angle_type!r} is not supported"
        raise ValueError(
            f"{where}, ANGLE_TYPE: {found} (AZEL for a radar, RADEC for an optical sensor)"
        )
    kind = kinds[angle_type]
    frame = frames.get(number, _value(meta.reference_frame, f"{where}, REFERENCE_FRAME"))
    if kind == "optical" and frame != OPTICAL_FRAME:
        raise ValueError(
            f"{where}, REFERENCE_FRAME: {frame!r} is not supported (RADEC angles in "
            f"{OPTICAL_FRAME}; they are not rotated)"
        )
    units = _value(meta.range_units, f"{where}, RANGE_UNITS")
    if kind == "radar" and units is not None and str(units).lower() != "km":
        raise ValueError(f"{where}, RANGE_UNITS: {units!r} is not supported (km)")
    _check_adjustments(meta, where)
    return kind


def _check_adjustments(meta, where):
    """Refuse metadata that asks the reader to adjust the values: corrections not yet
    applied, a range modulus (ambiguous ranges), signal delays; read_tdm adjusts nothing."""
    applied = _value(meta.corrections_applied, f"{where}, CORRECTIONS_APPLIED")
    reasons = {"range_modulus": "the ranges are known only modulo it"}
    reasons |= {name: "a signal delay to take off the measurements" for name in _DELAYS}
    if applied != "YES":
        reasons |= {
            n: f"given with CORRECTIONS_APPLIED = {applied or 'missing'}" for n in _CORRECTIONS
        }
    for name, reason in reasons.items():
        value = getattr(meta, name, None)
        keyword = f"{where}, {name.upper()}"
        if value is not None and _number(value, keyword) != 0:
            raise ValueError(
                f"{keyword}: {_value(value, keyword)!r}, {reason}; read_tdm applies no "
                "correction, modulus or delay (give the values as measured, corrected)"
            )


def _turns(comments, where):
    """The data comments that record whole turns of an angle (module docstring), as
    ``{(keyword, time tag): (turns, the comment)}``, and the other comments."""
    turns, others = {}, []
    for comment in comments:
        match = _TURNS.fullmatch(comment.strip())
        if match is None:
            others.append(comment)
            continue
        key = (match[1], match[2])
        if key in turns:
            raise ValueError(
                f"{where}, COMMENT {comment!r}: the turns of {key[0]} at {key[1]} given twice"
            )
        turns[key] = (int(match[3]), comment.strip())
    return turns, tuple(others)


def _observation_value(value, label, keyword, units, turns):
    """The value of one observation in the package's units (rad, km, km/s)."""
    number = _number(value, label)
    accepted = _UNITS[keyword]
    units = next(iter(accepted)) if units is None else units
    if units.lower() not in accepted:
        raise ValueError(
            f"{label}: units {units!r} are not supported (for {keyword}: {' or '.join(accepted)})"
        )
    factor, turn = accepted[units.lower()]
    return (number + turns * turn) * factor if turns else number * factor


def _segment_data(segment, where, kind, units, number):
    """A segment's time tags, rows (one per tag), ``{(tag, keyword): observation
    number}`` and data comments other than the turns of angles."""
    keywords = KINDS[kind]
    turns, comments = _turns(segment.data.comment, where)
    rows, cells, order = {}, {}, []
    for k, observation in enumerate(segment.data.observation, 1):
        present = [
            name
            for name, value in vars(observation).items()
            if name != "epoch" and value is not None
        ]
        if len(present) != 1:
            raise ValueError(f"{where}, observation {k}: {len(present)} values, expected one")
        keyword = present[0].upper()
        if keyword not in keywords:
            raise ValueError(
                f"{where}, observation {k}, {keyword}: not supported in a {kind} segment "
                f"(expected {', '.join(keywords)})"
            )
        label = f"{where}, observation {k}, {keyword}"
        if observation.epoch is None:
            raise ValueError(f"{label}: EPOCH missing")
        epoch = str(observation.epoch).strip()
        value = _observation_value(
            getattr(observation, present[0]),
            label,
            keyword,
            units.get((number, keyword, epoch)),
            turns.pop((keyword, epoch), (0,))[0],
        )
        row = rows.get(epoch)
        if row is None:
            row = rows[epoch] = {}
            order.append(epoch)
        if keyword in row:
            raise ValueError(f"{label}: given twice at {epoch}")
        row[keyword] = value
        cells[epoch, keyword] = k
    if not order:
        raise ValueError(f"{where}: no observation")
    if turns:
        (keyword, _), (_, comment) = next(iter(turns.items()))
        raise ValueError(f"{where}, COMMENT {comment!r}: no {keyword} observation at that time tag")
    for tag in order:
        missing = [k for k in keywords if k not in rows[tag]]
        if missing:
            raise ValueError(
                f"{where}, {', '.join(missing)}: missing at {tag} (a {kind} segment has "
                f"{', '.join(keywords)} at every time tag)"
            )
    values = np.array([[rows[tag][k] for k in keywords] for tag in order])
    return order, values, cells, comments


def _read_segment(segment, where, frames, units, number):
    """One TrackingData of a parsed segment (:func:`read_tdm`)."""
    meta = segment.metadata
    kind = _check_metadata(meta, where, frames, number)
    sensor, object_id = _participants(meta, where)
    tags, values, cells, data_comments = _segment_data(segment, where, kind, units, number)
    _check_span(tags, where, meta.start_time, meta.stop_time)
    comments = [c.strip() for c in meta.comment]
    release = RELEASE_COMMENT in comments
    comments = [c for c in comments if c != RELEASE_COMMENT] + list(data_comments)
    if not release:
        found = _unphysical(kind, values)
        if found is not None:
            row, column, problem = found
            keyword = KINDS[kind][column]
            raise ValueError(
                f"{where}, observation {cells[tags[row], keyword]}, {keyword}: {problem} "
                f"(a segment of measurements; a release carries COMMENT {RELEASE_COMMENT})"
            )
    epoch_jd, times = parse_time_tags(tags, f"{where}, EPOCH", day_epoch=True)
    try:
        return TrackingData(sensor, object_id, kind, epoch_jd, times, values, comments, release)
    except ValueError as error:  # a name or comment with a control character (e.g. a tab)
        raise ValueError(f"{where}: {error}") from None
