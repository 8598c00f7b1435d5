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

import functools
import re
import sys
import types
import typing
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from fractions import Fraction
from pathlib import Path

import numpy as np
from ccsds_ndm.mapping import NDMFileFormats
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
from ccsds_ndm.ndm_io import NdmIo

from ssa_privacy._internal.matrix_validation import symmetric_matrix
from ssa_privacy._internal.validation import as_finite_array, scalar
from ssa_privacy.engine.output import atomic_path

__all__ = [
    "COVARIANCE_KEYWORDS",
    "Ephemeris",
    "NDM_SCHEMA_LOCATION",
    "TIME_TAG_DIGITS",
    "parse_time_tags",
    "read_oem",
    "time_tags",
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
#: ``xsi:noNamespaceSchemaLocation`` of the XML files written (the SANA NDM/XML 4.0.0
#: master schema; an attribute only, nothing is fetched).
NDM_SCHEMA_LOCATION = "https://sanaregistry.org/r/ndmxml_unqualified/ndmxml-4.0.0-master-4.0.xsd"
#: Decimal digits of the seconds in the time tags written (nanoseconds).
TIME_TAG_DIGITS = 9

_NS_PER_SECOND = 10**9
_NS_PER_DAY = 86_400 * _NS_PER_SECOND
#: Julian date of 2000-01-01T00:00:00 UTC, the origin of the integer nanosecond counts.
_ORIGIN_JD = Fraction(4903089, 2)
_ORIGIN_ORDINAL = date(2000, 1, 1).toordinal()
_TIME_TAG = re.compile(
    r"(?P<year>\d{4})-(?:(?P<month>\d{2})-(?P<day>\d{2})|(?P<doy>\d{3}))"
    r"T(?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})(?:\.(?P<fraction>\d*))?Z?"
)
_STATE_FIELDS = ("x", "y", "z", "x_dot", "y_dot", "z_dot")
_KVN_VERSION = re.compile(r"\s*CCSDS_([A-Z]+)_VERS\b")
_STATE_UNITS = ("km",) * 3 + ("km/s",) * 3


def _nanoseconds(jd, seconds):
    """Integer nanoseconds since 2000-01-01T00:00:00 UTC of ``jd`` (days) + ``seconds``."""
    return round((Fraction(jd) - _ORIGIN_JD) * _NS_PER_DAY + Fraction(seconds) * _NS_PER_SECOND)


def _tag_text(ns, digits):
    """The time tag of ``ns`` nanoseconds since the origin, rounded to ``digits`` decimals."""
    step = 10 ** (9 - digits)
    units = round(Fraction(ns, step))
    per_day = _NS_PER_DAY // step
    days, rest = divmod(units, per_day)
    seconds, fraction = divmod(rest, per_day // 86_400)
    day = date.fromordinal(_ORIGIN_ORDINAL + days)
    text = f"{day.isoformat()}T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{fraction:0{digits}d}" if digits else text


def time_tags(epoch_jd, times, digits=TIME_TAG_DIGITS):
    """CCSDS time tags (UTC) of the instants ``epoch_jd + times``, computed exactly.

    Parameters
    ----------
    epoch_jd : float
        Julian date (UTC, days of 86,400 s) of ``t = 0``.
    times : array_like, shape (K,)
        Seconds since ``epoch_jd``.
    digits : int
        Decimal digits of the seconds, 0 to 9 (default 9: nanoseconds).

    Returns
    -------
    list of str
        ``YYYY-MM-DDThh:mm:ss.fff...`` for each time: the exact binary values of
        ``epoch_jd`` and ``times`` are added in integer nanoseconds, then rounded to
        ``digits`` decimals (no 40-microsecond rounding of a float Julian date).

    Raises
    ------
    ValueError
        If ``epoch_jd`` or a time is not finite, ``times`` is not one-dimensional, an
        instant falls outside the years 1 to 9999, or ``digits`` is not a whole number in
        [0, 9].
    TypeError
        If an argument is not a real number.

    Notes
    -----
    CCSDS 301.0-B-4, ASCII time code A (``YYYY-MM-DDThh:mm:ss.d->dZ``, the ``Z`` left out:
    the messages name the time system).
    """
    epoch_jd = scalar(epoch_jd, "epoch_jd")
    times = as_finite_array(times, "times", ndim=1)
    digits = scalar(digits, "digits", low=0, high=9, integer=True)
    origin = _nanoseconds(epoch_jd, 0.0)
    try:
        return [_tag_text(origin + round(Fraction(t) * _NS_PER_SECOND), digits) for t in times]
    except (ValueError, OverflowError):
        raise ValueError(
            f"epoch_jd + times must fall in the years 1 to 9999, got epoch_jd = {epoch_jd!r} "
            f"and times from {times.min()!r} to {times.max()!r} s"
        ) from None


def _parse_tag(text, name):
    """Integer nanoseconds since the origin of one CCSDS time tag; ValueError naming it."""
    match = _TIME_TAG.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(
            f"{name} must be a CCSDS time tag YYYY-MM-DDThh:mm:ss[.fff] or "
            f"YYYY-DDDThh:mm:ss[.fff], got {text!r}"
        )
    part = {k: int(v) for k, v in match.groupdict().items() if v and k != "fraction"}
    try:
        if "doy" in part:
            if not 1 <= part["doy"] <= 366:
                raise ValueError("day of year out of range")
            day = date(part["year"], 1, 1).toordinal() + part["doy"] - 1
            if date.fromordinal(day).year != part["year"]:
                raise ValueError("day of year out of range")
        else:
            day = date(part["year"], part["month"], part["day"]).toordinal()
    except ValueError:
        raise ValueError(f"{name} is not a calendar date: {text!r}") from None
    if part["hour"] > 23 or part["minute"] > 59 or part["second"] > 59:
        leap = " (a leap second, which a UTC Julian date cannot hold)" * (part["second"] == 60)
        raise ValueError(f"{name} is not a time of day{leap}: {text!r}")
    digits = match["fraction"] or ""
    fraction = Fraction(int(digits), 10 ** len(digits)) if digits else Fraction(0)
    seconds = part["hour"] * 3600 + part["minute"] * 60 + part["second"]
    return (day - _ORIGIN_ORDINAL) * _NS_PER_DAY + round((seconds + fraction) * _NS_PER_SECOND)


def parse_time_tags(tags, name="time tags", start=None):
    """The epoch (UTC Julian date) and seconds since it of CCSDS time tags.

    Parameters
    ----------
    tags : sequence of str
        Time tags ``YYYY-MM-DDThh:mm:ss[.fff]`` or ``YYYY-DDDThh:mm:ss[.fff]`` (day of
        year), with or without a trailing ``Z``; at least one.
    name : str
        What the tags are (for error messages), e.g. ``"file.oem, segment 1, EPOCH"``.
    start : str, optional
        A ``START_TIME``: the epoch if it is not after the first tag (the convention of
        :func:`write_oem` and :func:`ssa_privacy.sensors.tdm.write_tdm`).

    Returns
    -------
    epoch_jd : float
        Julian date (UTC, days of 86,400 s) of ``start`` or else of the first tag, the
        float nearest to it (spacing about 40 microseconds in this century).
    times : ndarray, shape (K,)
        Seconds since the epoch, computed from the tags exactly (integer nanoseconds) and
        rounded once to float.

    Raises
    ------
    ValueError
        If ``tags`` is empty, or a tag is not a CCSDS time tag or not a valid date and
        time of day (a leap second ``hh:mm:60`` included), naming ``name`` and the tag.

    Notes
    -----
    CCSDS 301.0-B-4, section 3.5 (ASCII time codes A and B); digits beyond nanoseconds
    are rounded.
    """
    tags = list(tags)
    if not tags:
        raise ValueError(f"{name}: no time tag")
    counts = [_parse_tag(tag, name) for tag in tags]
    origin = counts[0]
    if start is not None:
        origin = min(origin, _parse_tag(start, f"{name} (START_TIME)"))
    epoch_jd = float(Fraction(origin, _NS_PER_DAY) + _ORIGIN_JD)
    return epoch_jd, np.array([(n - origin) / _NS_PER_SECOND for n in counts], dtype=float)


def _text(value, name):
    """A non-empty one-line str (a message value or a comment), or TypeError/ValueError."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not value.strip() or "\n" in value or "\r" in value:
        raise ValueError(f"{name} must be one non-blank line of text, got {value!r}")
    return value.strip()


def _comments(value, name):
    """A tuple of one-line comments (a str is one comment), stripped as KVN stores them."""
    if isinstance(value, str):
        value = (value,)
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of str, got {type(value).__name__}") from None
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{index}] must be a str, got {type(item).__name__}")
        if "\n" in item or "\r" in item:
            raise ValueError(f"{name}[{index}] must be one line of text, got {item!r}")
    return tuple(item.strip() for item in items)


def _frozen(array):
    array = np.array(array, dtype=float)
    array.flags.writeable = False
    return array


def _increasing(times, name):
    if np.any(np.diff(times) <= 0):
        first = int(np.flatnonzero(np.diff(times) <= 0)[0])
        raise ValueError(
            f"{name} must be strictly increasing, got {times[first]!r} then {times[first + 1]!r}"
        )


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


def _file_format(path, file_format):
    """``NDMFileFormats`` from an explicit ``"kvn"``/``"xml"`` or the path's suffix."""
    if file_format is None:
        return NDMFileFormats.XML if Path(path).suffix.lower() == ".xml" else NDMFileFormats.KVN
    if not isinstance(file_format, str) or file_format.lower() not in ("kvn", "xml"):
        raise ValueError(f"file_format must be 'kvn', 'xml' or None, got {file_format!r}")
    return NDMFileFormats[file_format.upper()]


def _creation_date(creation_jd):
    """``CREATION_DATE`` text: ``creation_jd`` (UTC JD) or now, to the second."""
    if creation_jd is None:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return time_tags(scalar(creation_jd, "creation_jd"), [0.0], digits=0)[0]


def _render(message, file_format):
    """The text of a ``ccsds-ndm`` message tree in KVN or XML, ending with a newline."""
    io = NdmIo()
    if file_format is NDMFileFormats.XML:
        text = io.to_string(message, file_format, no_namespace_schema_location=NDM_SCHEMA_LOCATION)
    else:
        text = io.to_string(message, file_format)
    return text.rstrip("\n") + "\n"


def _write(path, text):
    """Write ``text`` (UTF-8) to ``path`` atomically; return the path."""
    path = Path(path)
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return path


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


def _read_message(path, kind):
    """The text of a message file; errors name the file.

    Returns the path and the text (UTF-8, a byte-order mark dropped).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: CCSDS {kind} file not found (not a file)")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ValueError(f"{path}, line {line}: the file is not UTF-8 text") from None
    if not text.strip():
        raise ValueError(f"{path}: the file is empty, not a CCSDS {kind}")
    return path, text


def _parse(path, text, kind):
    """``ccsds-ndm``'s object tree of ``text``; its failures as ValueError naming the file.

    A KVN message of another type (its first keyword ``CCSDS_<type>_VERS``) is refused
    before parsing, naming the type. xsdata's conversion warnings (a value outside the
    schema's enumeration, kept as text) are silenced: every value used is checked by the
    caller.
    """
    found = _KVN_VERSION.match(text)
    if found and found[1] != kind:
        raise ValueError(f"{path}: holds a CCSDS {found[1]}, not {_article(kind)} {kind}")
    try:
        with warnings.catch_warnings(), _cached_type_hints():
            warnings.simplefilter("ignore")
            return NdmIo().from_string(text)
    except Exception as error:  # the library's parse errors have no common base class
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(
            f"{path}: not a readable CCSDS {kind} ({type(error).__name__}: {reason})"
        ) from error


class _CachedTyping(types.ModuleType):
    """``typing`` with ``get_type_hints`` memoized (the hints of ccsds-ndm's generated,
    never modified dataclasses; the callers only read them)."""

    get_type_hints = staticmethod(functools.lru_cache(maxsize=None)(typing.get_type_hints))

    def __getattr__(self, name):
        return getattr(typing, name)


_CACHED_TYPING = _CachedTyping("typing")


@contextmanager
def _cached_type_hints():
    """Speed up ccsds-ndm 3.1.1's KVN reader about 17-fold while a message is parsed.

    Its ``kvn_builder.build_ndm_object`` calls ``typing.get_type_hints`` on the same few
    classes for every data line (about 2.6 ms per TDM observation line: 19 s for a TDM of
    15,000 observations, 1 s with the cache). The module's ``typing`` name is pointed at
    :class:`_CachedTyping` for the parse and restored after; the results are the same
    objects the uncached calls would build. Nothing is changed when the library's
    internals differ (another version) or another parse holds the patch.
    """
    module = sys.modules.get("ccsds_ndm.kvn_builder")
    if getattr(module, "typing", None) is not typing:
        yield
        return
    module.typing = _CACHED_TYPING
    try:
        yield
    finally:
        module.typing = typing


def _article(kind):
    return "an" if kind[0] in "AEFHILMNORSX" else "a"


def _messages(tree, types):
    """The messages of ``types`` in ``tree`` (one message, or an NDM combined instantiation)."""
    if isinstance(tree, types):
        return [tree]
    found = []
    for name in ("omm", "oem", "tdm", "opm", "aem", "apm", "cdm", "ocm", "acm", "rdm"):
        found.extend(m for m in getattr(tree, name, None) or [] if isinstance(m, types))
    return found


def _kind_of(tree):
    """The message type of a parsed tree, e.g. ``"OMM"``, for error messages."""
    return type(tree).__name__.upper().removesuffix("TYPE")


def _number(value, where):
    """The float of a parsed value (``value`` attribute of a unit-carrying type), or ValueError."""
    number = getattr(value, "value", value)
    if isinstance(number, bool) or not isinstance(number, int | float):
        raise ValueError(f"{where}: not a number: {number!r}")
    if not np.isfinite(number):
        raise ValueError(f"{where}: not a finite number: {number!r}")
    return float(number)


def _units(value, allowed, where):
    """Check the ``units`` attribute of a parsed value (None: the standard's default)."""
    units = getattr(value, "units", None)
    units = getattr(units, "value", units)
    if units is not None and units not in allowed:
        expected = allowed[0] if allowed else "none"
        raise ValueError(f"{where}: units {units!r} are not supported (expected {expected})")


def _value(value, where):
    """The text of a parsed keyword value (an enumeration member or a str)."""
    value = getattr(value, "value", value)
    return value.strip() if isinstance(value, str) else value


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
