"""CCSDS Navigation Data Messages: the plumbing that the OEM, OMM and TDM modules share.

UTC time tags with exact integer nanoseconds (:func:`time_tags`, :func:`parse_time_tags`),
the file formats (KVN, XML) and atomic writing, and reading a message through
``ccsds-ndm`` with errors that name the file (CCSDS 502.0-B-3 and 503.0-B-2; the
``ccsds-ndm`` package by E. Imre). The public modules are
:mod:`ssa_privacy.orbits.oem`, :mod:`ssa_privacy.orbits.omm` and
:mod:`ssa_privacy.sensors.tdm`.
"""

import functools
import re
import sys
import types
import typing
import unicodedata
import warnings
import xml.etree.ElementTree as ElementTree
from contextlib import contextmanager
from datetime import UTC, date, datetime
from fractions import Fraction
from pathlib import Path

import numpy as np
from ccsds_ndm.mapping import NDMFileFormats
from ccsds_ndm.ndm_io import NdmIo

from ssa_privacy._internal.validation import as_finite_array, scalar
from ssa_privacy.engine.output import atomic_path

__all__ = [
    "KVN_LINE_LENGTH",
    "NDM_SCHEMA_LOCATION",
    "TIME_TAG_DIGITS",
    "parse_time_tags",
    "time_tags",
]

#: ``xsi:noNamespaceSchemaLocation`` of the XML files written (the SANA NDM/XML 4.0.0
#: master schema; an attribute only, nothing is fetched).
NDM_SCHEMA_LOCATION = "https://sanaregistry.org/r/ndmxml_unqualified/ndmxml-4.0.0-master-4.0.xsd"
#: Longest KVN line (characters, line end excluded): CCSDS 502.0-B-3 and 503.0-B-2.
KVN_LINE_LENGTH = 254
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
_UNPRINTABLE = ("Cc", "Cs", "Zl", "Zp")
_KVN_VERSION = re.compile(r"\s*CCSDS_([A-Z]+)_VERS\b")


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


def parse_time_tags(tags, name="time tags", *, day_epoch=False):
    """The epoch (UTC Julian date) and seconds since it of CCSDS time tags.

    Parameters
    ----------
    tags : sequence of str
        Time tags ``YYYY-MM-DDThh:mm:ss[.fff]`` or ``YYYY-DDDThh:mm:ss[.fff]`` (day of
        year), with or without a trailing ``Z``; at least one.
    name : str
        What the tags are (for error messages), e.g. ``"file.oem, segment 1, EPOCH"``.
    day_epoch : bool
        If True, the epoch is 0 h UTC of the first tag's day (a Julian date ending in .5,
        which a float holds exactly), so that ``epoch_jd + times`` are the tags to the
        nanosecond (how :func:`~ssa_privacy.sensors.tdm.read_tdm` and
        :func:`~ssa_privacy.orbits.oem.read_oem` read a message); else the first tag.

    Returns
    -------
    epoch_jd : float
        Julian date (UTC, days of 86,400 s) of the epoch. The first tag's is the float
        nearest to it (spacing about 40 microseconds in this century).
    times : ndarray, shape (K,)
        Seconds since the epoch (for the first tag: since the tag itself), computed from
        the tags exactly (integer nanoseconds) and rounded once to float.

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
    origin = counts[0] - counts[0] % _NS_PER_DAY if day_epoch else counts[0]
    epoch_jd = float(Fraction(origin, _NS_PER_DAY) + _ORIGIN_JD)
    return epoch_jd, np.array([(n - origin) / _NS_PER_SECOND for n in counts], dtype=float)


def _check_span(tags, where, start=None, stop=None):
    """Check that a segment's epochs increase and lie within ``START_TIME`` and
    ``STOP_TIME`` (the tags of its bounds, None when not given).

    ValueError names ``where`` (e.g. ``"file.tdm, segment 2"``), the keyword and the tags.
    """
    counts = [_parse_tag(tag, f"{where}, EPOCH") for tag in tags]
    for k in range(1, len(counts)):
        if counts[k] <= counts[k - 1]:
            raise ValueError(
                f"{where}, EPOCH: {tags[k]} does not follow {tags[k - 1]} (the epochs of a "
                "segment must increase)"
            )
    if start is not None and counts[0] < _parse_tag(start, f"{where}, START_TIME"):
        raise ValueError(
            f"{where}, START_TIME: {start} is after the first epoch {tags[0]} (it bounds the data)"
        )
    if stop is not None and counts[-1] > _parse_tag(stop, f"{where}, STOP_TIME"):
        raise ValueError(
            f"{where}, STOP_TIME: {stop} is before the last epoch {tags[-1]} (it bounds the data)"
        )


def _unprintable(text):
    """The first character of ``text`` that is not printable text on one line, or None.

    Control characters (Unicode category Cc: line feed, tab, NUL, ...), lone surrogates
    (Cs, which UTF-8 cannot encode) and line or paragraph separators (Zl, Zp): XML 1.0
    cannot hold most control characters, and a KVN reader splits lines at U+000B, U+0085
    or U+2028 as at a line feed.
    """
    return next((c for c in text if unicodedata.category(c) in _UNPRINTABLE), None)


def _text(value, name):
    """A non-empty one-line str (a message value or a comment), or TypeError/ValueError."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not value.strip() or _unprintable(value) is not None:
        raise ValueError(f"{name} must be one non-blank line of printable text, got {value!r}")
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
        if _unprintable(item) is not None:
            raise ValueError(f"{name}[{index}] must be one line of printable text, got {item!r}")
    return tuple(item.strip() for item in items)


def _kvn_value(value, name, keyword):
    """Check that ``keyword = value`` is a KVN line that reads back as ``value``.

    CCSDS 502.0-B-3 and 503.0-B-2 (section 4.2.1 of the TDM): printable ASCII, at most
    :data:`KVN_LINE_LENGTH` characters (``ccsds-ndm`` pads the keyword to 24); and a
    value ending in ``]`` after a ``[`` would be read as units and dropped. ``COMMENT`` lines:
    ``ccsds-ndm`` drops an ``=`` that starts the text.
    """
    line = f"COMMENT {value}" if keyword == "COMMENT" else f"{keyword:<24} = {value}"
    bad = next((c for c in value if not " " <= c <= "~"), None)
    if bad is not None:
        problem = f"holds {bad!r}, which a KVN message cannot (printable ASCII only)"
    elif len(line) > KVN_LINE_LENGTH:
        problem = f"makes a {keyword} line of {len(line)} characters (KVN: {KVN_LINE_LENGTH})"
    elif keyword != "COMMENT" and value.endswith("]") and "[" in value:
        problem = "ends in [...], which a KVN reader takes for units"
    elif keyword == "COMMENT" and value.startswith("="):
        problem = "starts with '=', which a KVN reader drops"
    else:
        return
    raise ValueError(f"{name} = {value!r} cannot be written in KVN: it {problem}")


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
    before parsing, naming the type, and XML that is not well-formed (which the library
    reads up to where it breaks off). xsdata's conversion warnings (a value outside the
    schema's enumeration, kept as text) are silenced: every value used is checked by the
    caller.
    """
    found = _KVN_VERSION.match(text)
    if found and found[1] != kind:
        raise ValueError(f"{path}: holds a CCSDS {found[1]}, not {_article(kind)} {kind}")
    if text.lstrip().startswith("<"):
        try:  # ccsds-ndm reads a truncated XML file up to where it ends
            ElementTree.fromstring(text.encode("utf-8"))
        except ElementTree.ParseError as error:
            raise ValueError(f"{path}: not a readable CCSDS {kind} (XML: {error})") from None
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
