"""Tracking Data Messages (TDM, CCSDS 503.0-B-2): the measurements of a sensor network.

A TDM carries what a tracking sensor measured of an object, one segment per sensor and
object: a metadata block naming the participants and the measurement geometry, then time
tagged observations. :func:`write_tdm` writes :class:`TrackingData` segments (raw or
privatized releases of :class:`~ssa_privacy.sensors.stations.GroundStation` radars, or
of optical sensors) and :func:`read_tdm` reads them back; both formats of the standard,
KVN and XML (NDM/XML), are written and parsed by the ``ccsds-ndm`` package.

What a segment holds:

- ``TIME_SYSTEM = UTC``; time tags ``YYYY-MM-DDThh:mm:ss.fffffffff`` (nanoseconds,
  computed exactly from ``epoch_jd`` and the times, ``ssa_privacy._internal.ccsds.time_tags``).
  ``START_TIME`` is the segment's ``epoch_jd`` (t = 0, e.g. the window start) unless an
  observation precedes it, so that it round-trips; ``STOP_TIME`` is the last time tag.
- ``PARTICIPANT_1`` the sensor, ``PARTICIPANT_2`` the object, ``MODE = SEQUENTIAL``.
  ``PATH`` lists the participants in the order the signal travels (503.0-B-2, metadata):
  a radar transmits, the object reflects and the radar receives, ``PATH = 1,2,1``
  (two-way); an optical sensor receives the light the object sends it, ``PATH = 2,1``
  (one-way). :func:`read_tdm` accepts either numbering (the sensor is the participant
  that receives, the last of ``PATH``).
- radar: ``ANGLE_TYPE = AZEL``, ``RANGE_UNITS = km``; at each time ``ANGLE_1`` (azimuth,
  deg, clockwise from north), ``ANGLE_2`` (elevation, deg), ``RANGE`` (km) and
  ``DOPPLER_INSTANTANEOUS`` (km/s), the keyword the standard defines as the
  instantaneous range rate, written as the package's range rate: the time derivative of
  the range, positive when the object recedes. The range is the one-way (geometric)
  station-object distance of :class:`~ssa_privacy.sensors.stations.GroundStation`, not a
  round-trip light time, and no light-time, refraction or aberration correction is
  applied (none is claimed: ``CORRECTIONS_APPLIED`` is not written).
- optical: ``ANGLE_TYPE = RADEC``, ``REFERENCE_FRAME = TEME``; ``ANGLE_1`` right
  ascension and ``ANGLE_2`` declination (deg) in the TEME frame of SGP4.
- ``DATA_TYPES`` lists the keywords of the segment; the segment's comments are
  ``COMMENT`` lines of its metadata (e.g. the privacy level of a release).

Angles are kept in radians in the package and written in degrees (``np.degrees``; read
back with ``np.radians``, equal to within one unit in the last place); an azimuth or a
right ascension outside the standard's [-180, 360) deg is written modulo 360 deg. Numbers
are written by ``ccsds-ndm`` as Python's shortest round-trip representation (``repr``,
at most 17 significant digits).

``ccsds-ndm`` 3.1.1 and TEME: the NDM/XML 4.0.0 schema the package's models are built on
(``ndmxml-4.0.0-tdm-2.0.xsd``) lists only ``EME2000, ICRF, ITRF2000, ITRF-93, ITRF-97,
TOD`` for ``REFERENCE_FRAME``. The library writes ``TEME`` without complaint and its XML
reader keeps it (with a warning, silenced here), but its KVN reader rejects it. The
workaround, in :func:`read_tdm` only: the value of each ``REFERENCE_FRAME`` line of a
KVN file is swapped for a listed one before the library parses the text, and put back on
the parsed segment afterwards. The frame is then checked like every other keyword.

KVN is read with the speed-up of ``ccsds-ndm``'s KVN reader described in
:mod:`ssa_privacy.orbits.oem` (about 1 s for 15,000 observations instead of 19 s).

References
----------
CCSDS 503.0-B-2, "Tracking Data Message", Blue Book, June 2020 (the header, metadata and
data keywords: PATH, ANGLE_TYPE, REFERENCE_FRAME, RANGE_UNITS, DOPPLER_INSTANTANEOUS);
CCSDS 505.0-B, "XML Specification for Navigation Data Messages" (the NDM/XML 4.0.0
schemas); the ``ccsds-ndm`` package by E. Imre; D. A. Vallado, "Fundamentals of
Astrodynamics and Applications", 4th ed., Algorithm 27 (RAZEL: azimuth, elevation, range,
range rate).
"""

import re
from dataclasses import dataclass, field

import numpy as np
from ccsds_ndm.models import ndmxml1, ndmxml4
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_common_4_0 import AngleType, AngleUnits
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_tdm_2_0 import (
    AngleTypeType,
    ModeType,
    RangeUnitsType,
    RefFrameType,
    TdmBody,
    TdmData,
    TdmHeader,
    TdmMetadata,
    TdmSegment,
    TrackingDataObservationType,
)

from ssa_privacy._internal.ccsds import (
    _comments,
    _creation_date,
    _file_format,
    _frozen,
    _increasing,
    _kind_of,
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
from ssa_privacy._internal.validation import as_finite_array, scalar

__all__ = [
    "KINDS",
    "OPTICAL_FRAME",
    "TrackingData",
    "read_tdm",
    "write_tdm",
]

#: The data keywords of each kind of segment, in the order of the rows' columns (in the
#: file: ANGLE_1 and ANGLE_2 in deg, RANGE in km, DOPPLER_INSTANTANEOUS in km/s).
KINDS = {
    "radar": ("ANGLE_1", "ANGLE_2", "RANGE", "DOPPLER_INSTANTANEOUS"),
    "optical": ("ANGLE_1", "ANGLE_2"),
}
#: Reference frame of the optical right ascension and declination.
OPTICAL_FRAME = "TEME"
_ANGLE_TYPE = {"radar": "AZEL", "optical": "RADEC"}
_PATH = {"radar": "1,2,1", "optical": "2,1"}
_FIELD = {
    "ANGLE_1": "angle_1",
    "ANGLE_2": "angle_2",
    "RANGE": "range",
    "DOPPLER_INSTANTANEOUS": "doppler_instantaneous",
}
#: The TDM's limits of ANGLE_1 and ANGLE_2 (deg): -180 <= angle < 360.
_ANGLE_LIMITS = (-180.0, 360.0)
_KVN_FRAME = re.compile(r"^(\s*REFERENCE_FRAME\s*=\s*)(\S.*?)\s*$")
_KVN_SEGMENT = re.compile(r"^\s*META_START\s*$")
_LISTED_FRAMES = {member.value for member in RefFrameType}


@dataclass(frozen=True, eq=False)
class TrackingData:
    """One TDM segment: what one sensor measured of one object.

    Parameters
    ----------
    sensor : str
        The sensor that measured (``PARTICIPANT_1``), e.g. a station's name.
    object_id : str
        The object (``PARTICIPANT_2``), e.g. its NORAD catalogue number as text.
    kind : {"radar", "optical"}
        What the rows are (:data:`KINDS`).
    epoch_jd : float
        Julian date (UTC) of ``t = 0``.
    times : array_like, shape (K,)
        Seconds since ``epoch_jd``, strictly increasing, at least one.
    values : array_like, shape (K, 4) or (K, 2)
        Radar rows (azimuth rad, elevation rad, range km, range rate km/s); optical rows
        (right ascension rad, declination rad) in the TEME frame. All finite. A privatized
        release may hold a negative range (the noise added to a short range), which the
        message carries as it is.
    comments : sequence of str
        One-line comments, e.g. ``"privatized release: level 14 nats, designer logdet"``,
        stripped of surrounding blanks (as KVN stores them).

    Raises
    ------
    TypeError
        If a name or comment is not a str, or a number is not real.
    ValueError
        On an empty or multi-line name, an unknown kind, non-finite values, times that do
        not increase or rows of the wrong width.

    Notes
    -----
    Frozen; the arrays are read-only copies. Instances compare by identity. CCSDS
    503.0-B-2 (module docstring for the keywords).
    """

    sensor: str
    object_id: str
    kind: str
    epoch_jd: float
    times: np.ndarray
    values: np.ndarray
    comments: tuple = field(default=())

    def __post_init__(self):
        object.__setattr__(self, "sensor", _text(self.sensor, "sensor"))
        object.__setattr__(self, "object_id", _text(self.object_id, "object_id"))
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        object.__setattr__(self, "epoch_jd", scalar(self.epoch_jd, "epoch_jd"))
        times = as_finite_array(self.times, "times", ndim=1)
        if times.size == 0:
            raise ValueError("times must hold at least one time")
        _increasing(times, "times")
        values = as_finite_array(self.values, "values", ndim=2)
        width = len(KINDS[self.kind])
        if values.shape != (times.size, width):
            raise ValueError(
                f"values of a {self.kind} segment must have shape ({times.size}, {width}), "
                f"got {values.shape}"
            )
        object.__setattr__(self, "times", _frozen(times))
        object.__setattr__(self, "values", _frozen(values))
        object.__setattr__(self, "comments", _comments(self.comments, "comments"))


def _degrees(angles, name, wrap):
    """Angles (rad) in degrees within the TDM's [-180, 360); ``wrap`` takes them modulo 360."""
    degrees = np.degrees(angles)
    low, high = _ANGLE_LIMITS
    outside = (degrees < low) | (degrees >= high)
    if wrap:
        degrees = np.where(outside, np.mod(degrees, 360.0), degrees)
        degrees = np.where(degrees >= high, 0.0, degrees)  # mod can round up to 360
    elif np.any(outside):
        bad = float(degrees[outside][0])
        raise ValueError(f"{name}: {bad!r} deg is outside the TDM's range [-180, 360) deg")
    return degrees


def _segment(data, index):
    """The ``ccsds-ndm`` segment of one TrackingData."""
    where = f"segments[{index}]"
    tags = time_tags(data.epoch_jd, np.concatenate([[min(0.0, data.times[0])], data.times]))
    columns = [
        _degrees(data.values[:, 0], f"{where}, ANGLE_1", wrap=True),
        _degrees(data.values[:, 1], f"{where}, ANGLE_2", wrap=False),
        *data.values[:, 2:].T,
    ]
    keywords = KINDS[data.kind]
    observations = []
    for k, tag in enumerate(tags[1:]):
        for keyword, column in zip(keywords, columns):
            value = float(column[k])
            if keyword.startswith("ANGLE"):
                value = AngleType(value=value, units=AngleUnits.DEG)
            observations.append(TrackingDataObservationType(epoch=tag, **{_FIELD[keyword]: value}))
    radar = data.kind == "radar"
    metadata = TdmMetadata(
        comment=list(data.comments),
        data_types=",".join(keywords),
        time_system="UTC",
        start_time=tags[0],
        stop_time=tags[-1],
        participant_1=data.sensor,
        participant_2=data.object_id,
        mode=ModeType.SEQUENTIAL,
        path=_PATH[data.kind],
        range_units=RangeUnitsType.KM if radar else None,
        angle_type=AngleTypeType(_ANGLE_TYPE[data.kind]),
        # TEME is not in ccsds-ndm's enumeration (module docstring): written as text.
        reference_frame=None if radar else OPTICAL_FRAME,
    )
    return TdmSegment(metadata=metadata, data=TdmData(observation=observations))


def write_tdm(
    path,
    segments,
    originator="ssa_privacy",
    comments=(),
    *,
    file_format=None,
    creation_jd=None,
):
    """Write tracking data as one CCSDS TDM, one segment per :class:`TrackingData`, atomically.

    Parameters
    ----------
    path : str or path-like
        The file; its folder is created if missing. Written through a temporary file
        renamed into place (:func:`ssa_privacy.engine.output.atomic_path`).
    segments : TrackingData or sequence of TrackingData
        At least one segment.
    originator : str
        ``ORIGINATOR`` of the header.
    comments : sequence of str
        One-line ``COMMENT`` lines of the header (the whole message).
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
    TypeError
        If a segment is not a TrackingData, or a comment or the originator not a str.
    ValueError
        If there is no segment, an elevation or declination is outside [-180, 360) deg,
        or ``originator``, ``file_format`` or ``creation_jd`` is bad (naming it).

    Notes
    -----
    CCSDS 503.0-B-2 (TDM 2.0); the keywords are listed in the module docstring. Written by
    ``ccsds-ndm``.
    """
    if isinstance(segments, TrackingData):
        segments = [segments]
    segments = list(segments)
    if not segments:
        raise ValueError("segments must hold at least one TrackingData")
    for index, segment in enumerate(segments):
        if not isinstance(segment, TrackingData):
            raise TypeError(
                f"segments[{index}] must be a TrackingData, got {type(segment).__name__}"
            )
    header = TdmHeader(
        comment=list(_comments(comments, "comments")),
        creation_date=_creation_date(creation_jd),
        originator=_text(originator, "originator"),
    )
    body = TdmBody(segment=[_segment(s, i) for i, s in enumerate(segments)])
    message = ndmxml4.Tdm(header=header, body=body)
    return _write(path, _render(message, _file_format(path, file_format)))


def _kvn_frames(text):
    """KVN text with unlisted REFERENCE_FRAME values swapped, and the originals by segment."""
    lines, frames, segment = text.splitlines(), {}, 0
    listed = sorted(_LISTED_FRAMES)[0]
    for number, line in enumerate(lines):
        if _KVN_SEGMENT.match(line):
            segment += 1
            continue
        match = _KVN_FRAME.match(line)
        if match and match[2] not in _LISTED_FRAMES:
            frames[segment] = match[2]
            lines[number] = match[1] + listed
    return "\n".join(lines) + "\n", frames


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
    if time_system != "UTC":
        raise ValueError(f"{where}, TIME_SYSTEM: {time_system!r} is not supported (UTC)")
    mode = _value(meta.mode, f"{where}, MODE")
    if mode is not None and str(mode).upper() != "SEQUENTIAL":
        raise ValueError(f"{where}, MODE: {mode!r} is not supported (SEQUENTIAL)")
    angle_type = _value(meta.angle_type, f"{where}, ANGLE_TYPE")
    angle_type = angle_type.upper() if isinstance(angle_type, str) else angle_type
    kinds = {v: k for k, v in _ANGLE_TYPE.items()}
    if angle_type not in kinds:
        raise ValueError(
            f"{where}, ANGLE_TYPE: {angle_type!r} is not supported (AZEL for a radar, "
            "RADEC for an optical sensor)"
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
    return kind


def _segment_data(segment, where, kind):
    """(time tags, rows) of a segment's observations, one row per time tag."""
    keywords = KINDS[kind]
    rows, order = {}, []
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
        value = getattr(observation, present[0])
        label = f"{where}, observation {k}, {keyword}"
        if keyword.startswith("ANGLE"):
            _units(value, ("deg",), label)
        number = _number(value, label)
        row = rows.get(observation.epoch)
        if row is None:
            row = rows[observation.epoch] = {}
            order.append(observation.epoch)
        if keyword in row:
            raise ValueError(f"{label}: given twice at {observation.epoch}")
        row[keyword] = number
    if not order:
        raise ValueError(f"{where}: no observation")
    for tag in order:
        missing = [k for k in keywords if k not in rows[tag]]
        if missing:
            raise ValueError(
                f"{where}, {', '.join(missing)}: missing at {tag} (a {kind} segment has "
                f"{', '.join(keywords)} at every time tag)"
            )
    values = np.array([[rows[tag][k] for k in keywords] for tag in order])
    values[:, :2] = np.radians(values[:, :2])
    return order, values


def read_tdm(path):
    """Read a CCSDS TDM (KVN or XML) into :class:`TrackingData` segments.

    Parameters
    ----------
    path : str or path-like
        The file: TDM version 1.0 or 2.0, KVN or NDM/XML.

    Returns
    -------
    list of TrackingData
        One per segment, in file order: the sensor (the participant that receives, the
        last of ``PATH``) and the object (the other), the kind from ``ANGLE_TYPE``
        (``AZEL``: radar, ``RADEC``: optical), the epoch ``START_TIME`` unless an
        observation precedes it (then the first time tag), the rows in radians, km and
        km/s, and the comments of the segment's metadata and data.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        Naming the file, the segment and the keyword, on what is not understood: not
        UTF-8, not a readable TDM or another message type; ``TIME_SYSTEM`` other than
        UTC, ``MODE`` other than SEQUENTIAL, a ``PATH`` that is not one sensor and one
        object, ``ANGLE_TYPE`` other than AZEL or RADEC, RADEC angles in a frame other
        than TEME, ``RANGE_UNITS`` other than km, angle units other than deg; a data
        keyword the kind does not have (e.g. ``MAG``, ``RECEIVE_FREQ``), a keyword
        missing or repeated at a time tag, time tags that do not increase, non-finite
        numbers.

    Notes
    -----
    CCSDS 503.0-B-2; parsed by ``ccsds-ndm`` (with the KVN ``REFERENCE_FRAME``
    workaround of the module docstring).
    """
    path, text = _read_message(path, "TDM")
    frames = {}
    if not text.lstrip().startswith("<"):
        text, frames = _kvn_frames(text)
    tree = _parse(path, text, "TDM")
    if not isinstance(tree, ndmxml1.TdmType | ndmxml4.TdmType):
        raise ValueError(f"{path}: holds a CCSDS {_kind_of(tree)}, not a TDM")
    segments = tree.body.segment
    if not segments:
        raise ValueError(f"{path}: the TDM has no segment")
    out = []
    for number, segment in enumerate(segments, 1):
        where = f"{path}, segment {number}"
        meta = segment.metadata
        kind = _check_metadata(meta, where, frames, number)
        sensor, object_id = _participants(meta, where)
        tags, values = _segment_data(segment, where, kind)
        epoch_jd, times = parse_time_tags(tags, f"{where}, EPOCH", start=meta.start_time)
        _increasing(times, f"{where}: the time tags")
        comments = tuple(meta.comment) + tuple(segment.data.comment)
        out.append(TrackingData(sensor, object_id, kind, epoch_jd, times, values, comments))
    return out
