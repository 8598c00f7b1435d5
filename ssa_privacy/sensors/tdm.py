"""Tracking Data Messages (TDM, CCSDS 503.0-B-2): the measurements of a sensor network.

A TDM carries what a tracking sensor measured of an object, one segment per sensor and
object: a metadata block naming the participants and the measurement geometry, then time
tagged observations. :func:`write_tdm` writes :class:`TrackingData` segments (the
measurements of :class:`~ssa_privacy.sensors.stations.GroundStation` radars or of optical
sensors, or privatized releases of them) and :func:`read_tdm` reads them back; both
formats of the standard, KVN and XML (NDM/XML), are written and parsed by the
``ccsds-ndm`` package.

What a segment holds:

- ``TIME_SYSTEM = UTC``; time tags ``YYYY-MM-DDThh:mm:ss.fffffffff`` (nanoseconds,
  computed exactly from ``epoch_jd`` and the times, ``ssa_privacy._internal.ccsds.time_tags``).
  ``START_TIME`` and ``STOP_TIME`` are the segment's first and last time tags: they
  bound its data, as the standard defines them.
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

Measurements and releases. A segment of measurements holds what a sensor can measure:
an elevation or declination in [-90, 90] deg and a range of at least 0 km (all values
finite); :class:`TrackingData` and :func:`read_tdm` refuse anything else. A privatized
release (``TrackingData(..., release=True)``) is the output of a privacy mechanism: noise
is added to the measurements, so it may hold an elevation of -196.71 deg or a negative
range, and no physical range is checked. The metadata of a release carries the
``COMMENT`` line :data:`RELEASE_COMMENT`, written by :func:`write_tdm` and recognised by
:func:`read_tdm` (which then sets ``release`` and leaves the line out of ``comments``).

Angles are kept in radians in the package and written in degrees (``np.degrees``; read
back with ``np.radians``, equal to within one unit in the last place). The standard
limits ``ANGLE_1`` and ``ANGLE_2`` to [-180, 360) deg. An angle outside is written
modulo 360 deg, into [0, 360), and the whole turns removed are recorded, so that every
angle, of a measurement or a release, reads back as the number given (within the last
place of the decimal written): one ``COMMENT`` line at the start of the segment's data
section per angle moved, of the fixed form (:data:`TURNS_FORMAT`)::

    COMMENT ANGLE_2 at 2024-03-01T10:00:30.000000000: add -1 x 360 deg

which says that the ``ANGLE_2`` observation with that time tag is the value written plus
-1 x 360 deg (here a privatized elevation of -196.71 deg, written as 163.29). A line has
64 characters and the turns' sign and digits: within the KVN limit of 254 characters for
every angle below 1e180 deg. A reader that ignores the comments still parses a valid TDM,
and for a measured azimuth or right ascension it sees the same direction; :func:`read_tdm`
adds the turns back (also to angles given in radians: 360 deg is 2 pi rad). Numbers are
written by ``ccsds-ndm`` as Python's shortest round-trip representation (``repr``, at
most 17 significant digits).

Units. The data lines carry no units by default (angles in deg, ``RANGE`` in the
``RANGE_UNITS``, ``DOPPLER_INSTANTANEOUS`` in km/s). Given ones (KVN ``[rad]`` after the
number, XML ``units="rad"``) are honoured: angles in ``deg`` or ``rad`` (converted),
``RANGE`` in ``km`` and ``DOPPLER_INSTANTANEOUS`` in ``km/s``; any other is refused,
naming the file, segment, observation and keyword. ``ccsds-ndm`` 3.1.1 drops the
bracketed units of a KVN data line (it would read ``0.5 [rad]`` as 0.5 deg) and the
``units`` attribute of an XML ``RANGE``: :func:`read_tdm` reads the units from the text
itself.

Names and comments. The values written must read back as given: one line of printable
text (no control character), and in KVN printable ASCII, lines of at most 254
characters, no value ending in ``[...]`` (read as units) and no comment starting with
``=``; :func:`write_tdm` refuses what a message cannot hold, naming the argument.

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
data keywords: PATH, ANGLE_TYPE, REFERENCE_FRAME, RANGE_UNITS, DOPPLER_INSTANTANEOUS; the
angle range [-180, 360) deg; section 4.2.1, KVN lines of printable ASCII of at most 254
characters); CCSDS 505.0-B, "XML Specification for Navigation Data Messages" (the
NDM/XML 4.0.0 schemas); the ``ccsds-ndm`` package by E. Imre; D. A. Vallado,
"Fundamentals of Astrodynamics and Applications", 4th ed., Algorithm 27 (RAZEL: azimuth,
elevation, range, range rate).
"""

from dataclasses import dataclass, field

import numpy as np
from ccsds_ndm.models import ndmxml4
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_common_4_0 import AngleType, AngleUnits
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_tdm_2_0 import (
    AngleTypeType,
    ModeType,
    RangeUnitsType,
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
    _kvn_value,
    _render,
    _text,
    _write,
    time_tags,
)
from ssa_privacy._internal.validation import as_finite_array, scalar

__all__ = [
    "KINDS",
    "OPTICAL_FRAME",
    "RELEASE_COMMENT",
    "TURNS_FORMAT",
    "TrackingData",
    "read_tdm",
    "tdm_text",
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
#: The metadata ``COMMENT`` line that marks a segment as a privatized release.
RELEASE_COMMENT = "PRIVATIZED RELEASE: values of a privacy mechanism, not measurements"
#: The data ``COMMENT`` line of an angle written modulo 360 deg (keyword, time tag, turns).
TURNS_FORMAT = "{keyword} at {tag}: add {turns} x 360 deg"
_ANGLE_TYPE = {"radar": "AZEL", "optical": "RADEC"}
_PATH = {"radar": "1,2,1", "optical": "2,1"}
_FIELD = {
    "ANGLE_1": "angle_1",
    "ANGLE_2": "angle_2",
    "RANGE": "range",
    "DOPPLER_INSTANTANEOUS": "doppler_instantaneous",
}
#: What ANGLE_2 is in each kind of segment (for messages).
_ANGLE_2 = {"radar": "elevation", "optical": "declination"}
#: The TDM's limits of ANGLE_1 and ANGLE_2 (deg): -180 <= angle < 360.
_ANGLE_LIMITS = (-180.0, 360.0)


@dataclass(frozen=True, eq=False)
class TrackingData:
    """One TDM segment: what one sensor measured of one object, or released of it.

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
        (right ascension rad, declination rad) in the TEME frame. All finite. Measurements
        (``release=False``): elevation or declination in [-pi/2, pi/2] rad, range >= 0.
    comments : sequence of str
        One-line comments, e.g. ``"privatized release: level 14 nats, designer logdet"``,
        stripped of surrounding blanks (as KVN stores them); not :data:`RELEASE_COMMENT`
        (say ``release=True``).
    release : bool
        True for a privatized release (module docstring): its values are a privacy
        mechanism's output, not measurements, and no physical range is checked.

    Raises
    ------
    TypeError
        If a name or comment is not a str, a number is not real, or ``release`` is not a
        bool.
    ValueError
        On an empty or multi-line name, an unknown kind, non-finite values, times that do
        not increase, rows of the wrong width, or, for measurements, an elevation or
        declination outside [-90, 90] deg or a negative range (naming the row).

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
    release: bool = False

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
        if not isinstance(self.release, bool | np.bool_):
            raise TypeError(f"release must be a bool, got {type(self.release).__name__}")
        object.__setattr__(self, "release", bool(self.release))
        comments = _comments(self.comments, "comments")
        if RELEASE_COMMENT in comments:
            raise ValueError(
                f"comments[{comments.index(RELEASE_COMMENT)}] is the release mark "
                f"{RELEASE_COMMENT!r}: give release=True instead"
            )
        if not self.release:
            found = _unphysical(self.kind, values)
            if found is not None:
                row, column, problem = found
                raise ValueError(
                    f"values[{row}, {column}]: {problem} (measurements; a privatized release "
                    "is TrackingData(..., release=True))"
                )
        object.__setattr__(self, "times", _frozen(times))
        object.__setattr__(self, "values", _frozen(values))
        object.__setattr__(self, "comments", comments)


def _unphysical(kind, values):
    """The first value no sensor measures, as (row, column, what is wrong), or None: an
    elevation or declination outside [-pi/2, pi/2] rad, else a negative range."""
    outside = np.flatnonzero(np.abs(values[:, 1]) > np.pi / 2)
    if outside.size:
        row = int(outside[0])
        angle = np.degrees(values[row, 1])
        return row, 1, f"{_ANGLE_2[kind]} {angle:.15g} deg is outside [-90, 90] deg"
    negative = np.flatnonzero(values[:, 2] < 0) if kind == "radar" else []
    if len(negative):
        row = int(negative[0])
        return row, 2, f"range {values[row, 2]:.15g} km is negative (a range is >= 0 km)"
    return None


def _wrapped(angles):
    """Angles (rad) in degrees within the TDM's [-180, 360), and the whole turns removed.

    An angle outside the range is written modulo 360, ``angle - 360 n`` with ``n =
    floor(angle / 360)``: in [0, 360) (or a rounding below 0 when ``angle / 360`` rounds
    up to a whole number), the subtraction exact below 2^53 deg. ``turns`` holds the n
    (whole floats; 0 for an angle kept as it is)."""
    degrees = np.degrees(angles)
    low, high = _ANGLE_LIMITS
    outside = (degrees < low) | (degrees >= high)
    turns = np.where(outside, np.floor(degrees / 360.0), 0.0)
    return degrees - 360.0 * turns, turns


def _segment(data, index, kvn):
    """The ``ccsds-ndm`` segment of one TrackingData (KVN: its text checked for KVN)."""
    where = f"segments[{index}]"
    if kvn:
        _kvn_value(data.sensor, f"{where}.sensor", "PARTICIPANT_1")
        _kvn_value(data.object_id, f"{where}.object_id", "PARTICIPANT_2")
        for k, comment in enumerate(data.comments):
            _kvn_value(comment, f"{where}.comments[{k}]", "COMMENT")
    tags = time_tags(data.epoch_jd, data.times)
    keywords = KINDS[data.kind]
    angles = [_wrapped(data.values[:, column]) for column in (0, 1)]
    columns = [written for written, _ in angles] + list(data.values[:, 2:].T)
    turns = [
        TURNS_FORMAT.format(keyword=keyword, tag=tags[k], turns=n)
        for k in range(len(tags))
        for keyword, (_, counts) in zip(keywords, angles)
        if (n := int(counts[k])) != 0  # a Python int: exact for every float
    ]
    observations = []
    for k, tag in enumerate(tags):
        for keyword, column in zip(keywords, columns):
            value = float(column[k])
            if keyword.startswith("ANGLE"):
                value = AngleType(value=value, units=AngleUnits.DEG)
            observations.append(TrackingDataObservationType(epoch=tag, **{_FIELD[keyword]: value}))
    radar = data.kind == "radar"
    metadata = TdmMetadata(
        comment=list(data.comments) + [RELEASE_COMMENT] * data.release,
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
    return TdmSegment(metadata=metadata, data=TdmData(comment=turns, observation=observations))


def tdm_text(
    segments, originator="ssa_privacy", comments=(), *, file_format="kvn", creation_jd=None
):
    """The text of a CCSDS TDM of :class:`TrackingData` segments, without writing it.

    Parameters
    ----------
    segments : TrackingData or sequence of TrackingData
        At least one segment.
    originator : str
        ``ORIGINATOR`` of the header.
    comments : sequence of str
        One-line ``COMMENT`` lines of the header (the whole message).
    file_format : {"kvn", "xml"}
        The format (default KVN).
    creation_jd : float, optional
        ``CREATION_DATE`` as a UTC Julian date (for reproducible text); default now.

    Returns
    -------
    str
        The message, ending with a newline (module docstring for what it holds).

    Raises
    ------
    TypeError
        If a segment is not a TrackingData, or a comment or the originator not a str.
    ValueError
        If there is no segment, ``originator``, ``file_format`` or ``creation_jd`` is
        bad, or (KVN) a name or comment is not printable ASCII, makes a line longer than
        254 characters, ends in ``[...]`` or (a comment) starts with ``=``, naming it
        (e.g. ``segments[3].sensor``).

    Notes
    -----
    CCSDS 503.0-B-2 (TDM 2.0); rendered by ``ccsds-ndm``.
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
    file_format = _file_format("", file_format)
    kvn = file_format.name == "KVN"
    originator = _text(originator, "originator")
    comments = _comments(comments, "comments")
    if kvn:
        _kvn_value(originator, "originator", "ORIGINATOR")
        for k, comment in enumerate(comments):
            _kvn_value(comment, f"comments[{k}]", "COMMENT")
    header = TdmHeader(
        comment=list(comments), creation_date=_creation_date(creation_jd), originator=originator
    )
    body = TdmBody(segment=[_segment(s, i, kvn) for i, s in enumerate(segments)])
    return _render(ndmxml4.Tdm(header=header, body=body), file_format)


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
    TypeError, ValueError
        As :func:`tdm_text`; nothing is written then.

    Notes
    -----
    CCSDS 503.0-B-2 (TDM 2.0); the keywords, the angles written modulo 360 deg and the
    mark of a release are described in the module docstring. Written by ``ccsds-ndm``.
    """
    file_format = _file_format(path, file_format).name.lower()
    text = tdm_text(
        segments, originator, comments, file_format=file_format, creation_jd=creation_jd
    )
    return _write(path, text)


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
        (``AZEL``: radar, ``RADEC``: optical), ``epoch_jd`` 0 h UTC of the day of the
        first time tag (exact in a float, so that ``epoch_jd + times`` are the time
        tags to the nanosecond), the rows in radians, km and km/s (units converted, the
        turns of angles written modulo 360 deg added back), ``release`` from the
        :data:`RELEASE_COMMENT` line, and the comments of the segment's metadata and data
        (those two kinds of line left out).

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        Naming the file, the segment, the observation (or the KVN line) and the keyword,
        on what is not understood: not UTF-8, not a readable TDM or another message type,
        a version other than 1.0 or 2.0, KVN sections out of order or not closed, a KVN
        data line that is not ``KEYWORD = <time tag> <value> [units]`` with a TDM data
        keyword and a number; ``TIME_SYSTEM`` other than UTC, ``MODE`` other than
        SEQUENTIAL, a ``PATH`` that is not one sensor and one object, ``ANGLE_TYPE`` other
        than AZEL or RADEC, RADEC angles in a frame other than TEME, ``RANGE_UNITS``
        other than km, units other than deg or rad (angles), km (``RANGE``) or km/s
        (``DOPPLER_INSTANTANEOUS``); a data keyword the kind does not have (e.g. ``MAG``,
        ``RECEIVE_FREQ``), values to adjust (a nonzero ``CORRECTION_*`` unless ``CORRECTIONS_APPLIED = YES``, a
        ``RANGE_MODULUS``, a ``TRANSMIT_DELAY_n`` or ``RECEIVE_DELAY_n``), a keyword
        missing or repeated at a time tag, time tags that do not increase or lie outside
        ``START_TIME`` and ``STOP_TIME``, non-finite numbers, turns of an angle that has
        no observation; in a segment of measurements (not marked as a release) an
        elevation or declination outside [-90, 90] deg or a negative range, with the
        value and the valid range.

    Notes
    -----
    CCSDS 503.0-B-2; parsed by ``ccsds-ndm`` (with the KVN ``REFERENCE_FRAME``
    workaround of the module docstring), the units read from the text.
    """
    # the reader builds this module's TrackingData: it imports this module, so not at the top
    from ssa_privacy.sensors._tdm_reading import _read_tdm

    return _read_tdm(path)
