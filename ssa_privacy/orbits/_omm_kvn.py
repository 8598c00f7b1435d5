"""The lines of KVN OMMs, checked before ``ccsds-ndm`` parses them.

``ccsds-ndm``'s KVN reader skips a line it does not understand (a keyword it does not
know, a line without ``=``), keeps the last of a repeated keyword, and fails on a bad
unit or number without naming the line. Each KVN OMM is therefore checked line by line
first: every line is blank, a ``COMMENT`` or ``KEYWORD = value [units]`` (CCSDS
502.0-B-3, section 7.4), each keyword is one of the OMM's (or ``USER_DEFINED_...``) and
stands once per message, ``CCSDS_OMM_VERS`` is 2.0 or 3.0, and the keywords of numbers
hold a number in the units the standard gives. Every fault is a one-line ValueError
naming the file, the line, the message and the keyword.
"""

import dataclasses
import functools
import re
import typing
from types import SimpleNamespace

from ccsds_ndm.models import ndmxml2, ndmxml4
from sgp4.alpha5 import from_alpha5

from ssa_privacy._internal.ccsds import _units

__all__ = ["INTEGER_KEYWORDS", "UNITS", "kvn_keywords", "kvn_messages", "not_an_integer"]

#: The units an OMM may state for each number of the element set (CCSDS 502.0-B-3,
#: OMM data); a keyword without units here (ECCENTRICITY) takes none.
UNITS = {
    "MEAN_MOTION": ("rev/day", "REV/DAY"),
    "ECCENTRICITY": (),
    "INCLINATION": ("deg", "DEG"),
    "RA_OF_ASC_NODE": ("deg", "DEG"),
    "ARG_OF_PERICENTER": ("deg", "DEG"),
    "MEAN_ANOMALY": ("deg", "DEG"),
    "BSTAR": ("1/ER", "1/er"),
    "MEAN_MOTION_DOT": ("rev/day**2", "REV/DAY**2"),
    "MEAN_MOTION_DDOT": ("rev/day**3", "REV/DAY**3"),
}
#: The keywords of whole numbers.
INTEGER_KEYWORDS = ("EPHEMERIS_TYPE", "NORAD_CAT_ID", "ELEMENT_SET_NO", "REV_AT_EPOCH")
#: The OMM versions ``ccsds-ndm`` reads.
_VERSIONS = ("2.0", "3.0")
_LINE = re.compile(
    r"\s*(?P<keyword>[A-Za-z0-9_]+)\s*=\s*(?P<value>.*?)\s*(?:\[(?P<units>[^\]]*)\])?\s*"
)
_OTHER_MESSAGE = re.compile(r"CCSDS_(?!OMM_)([A-Z]+)_VERS")
_COMMENT = re.compile(r"\s*COMMENT(\s.*)?")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")


@functools.cache
def _omm_keywords():
    """The KVN keywords of the OMM 2.0 and 3.0 models of ``ccsds-ndm`` (upper-case field
    names of the message tree) and ``CCSDS_OMM_VERS``."""
    found, pending, seen = {"CCSDS_OMM_VERS"}, [ndmxml2.OmmType, ndmxml4.OmmType], set()
    while pending:
        cls = pending.pop()
        if not dataclasses.is_dataclass(cls) or cls in seen:
            continue
        seen.add(cls)
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            name = field.metadata.get("name", "")
            if name.isupper() and name != "USER_DEFINED":
                found.add(name)
            hint = hints.get(field.name)
            for inner in (hint, *typing.get_args(hint)):
                pending.extend((inner, *typing.get_args(inner)))
    return frozenset(found)


def kvn_messages(lines):
    """Split the numbered lines of a KVN run into messages, each from its
    ``CCSDS_..._VERS`` line.

    Parameters
    ----------
    lines : sequence of (int, str)
        File line numbers and lines, the first non-blank one a ``CCSDS_..._VERS`` line.

    Returns
    -------
    list of list of (int, str)
        One list of lines per message.
    """
    messages = []
    for number, text in lines:
        if text.lstrip().startswith("CCSDS_") or not messages:
            messages.append([])
        messages[-1].append((number, text))
    return messages


def _value_error(keyword, value, units, where):
    """The fault of a keyword's value and units, or None (a version, a unit, a number)."""
    if keyword == "CCSDS_OMM_VERS" and value not in _VERSIONS:
        return f"{value!r} is not an OMM version read here ({' or '.join(_VERSIONS)})"
    if keyword in UNITS:
        _units(SimpleNamespace(units=units), UNITS[keyword], where)
        if not _NUMBER.fullmatch(value):
            return f"{value!r} is not a number"
    if keyword in INTEGER_KEYWORDS and not _INTEGER.fullmatch(value):
        return not_an_integer(keyword, value)
    return None


def not_an_integer(keyword, value):
    """The fault of a whole-number keyword holding ``value`` (text or a parsed value).

    Parameters
    ----------
    keyword : str
        The keyword, e.g. ``"NORAD_CAT_ID"``.
    value : object
        What it holds.

    Returns
    -------
    str
        E.g. ``"'C3456' is not a whole number (an OMM gives the number itself: 123456
        for Alpha-5 C3456)"``.
    """
    problem = f"{value!r} is not a whole number"
    if keyword == "NORAD_CAT_ID" and re.fullmatch(r"[A-HJ-NP-Z]\d{4}", str(value)):
        problem += f" (an OMM gives the number itself: {from_alpha5(value)} for Alpha-5 {value})"
    return problem


def kvn_keywords(lines, file, message):
    """Check the lines of one KVN OMM; return the file line of each keyword.

    Parameters
    ----------
    lines : sequence of (int, str)
        File line numbers and lines of the message (:func:`kvn_messages`).
    file : str
        The file, for error messages.
    message : int
        The message's number in the file (1-based), for error messages.

    Returns
    -------
    dict of str to int
        Each keyword of the message (``COMMENT`` aside) and its file line.

    Raises
    ------
    ValueError
        Naming the file, the line, the message and the keyword (module docstring): a line
        that is neither blank, a ``COMMENT`` nor ``KEYWORD = value [units]``, another
        message's version keyword (``CCSDS_TDM_VERS``: not an OMM), a keyword
        that is not an OMM's, a repeated keyword, an unsupported version, units other
        than the standard's, or a value that is not a number where one belongs.
    """
    seen = {}
    for number, text in lines:
        if not text.strip() or _COMMENT.fullmatch(text):
            continue
        at = f"{file}, line {number}, OMM {message}"
        found = _LINE.fullmatch(text)
        if found is None:
            raise ValueError(
                f"{at}: {text.strip()!r} is neither 'KEYWORD = value' nor a COMMENT line"
            )
        keyword = found["keyword"]
        other = _OTHER_MESSAGE.fullmatch(keyword)
        if other:
            raise ValueError(f"{file}, line {number}: holds a CCSDS {other[1]}, not an OMM")
        if keyword not in _omm_keywords() and not keyword.startswith("USER_DEFINED_"):
            raise ValueError(f"{at}: {keyword} is not a keyword of an OMM (CCSDS 502.0-B-3)")
        if keyword in seen:
            raise ValueError(
                f"{at}, {keyword}: given twice in one OMM (first at line {seen[keyword]})"
            )
        seen[keyword] = number
        problem = _value_error(keyword, found["value"], found["units"], f"{at}, {keyword}")
        if problem:
            raise ValueError(f"{at}, {keyword}: {problem}")
    return seen
