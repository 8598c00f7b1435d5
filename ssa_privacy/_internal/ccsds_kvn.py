"""KVN text of CCSDS messages checked before ``ccsds-ndm`` parses it: OEM and TDM.

``ccsds-ndm`` 3.1.1's KVN reader drops what it does not understand without a word (a
section that is not closed, a line with an unknown keyword, the units of a TDM data
line) and reads some lines wrongly (an OEM state line of 7 or 8 numbers, a covariance
row with an extra number). The readers of :mod:`ssa_privacy.sensors.tdm` and
:mod:`ssa_privacy.orbits.oem` therefore scan a KVN message first, line by line as the
library's tokenizer reads it (the lines of ``str.splitlines``), and refuse it where the
library would drop or misread something, naming the file and the line. Here: the
message's version (:func:`_kvn_version`, :func:`_check_version`), the layout of a TDM
and the units its data lines give (:func:`_scan_tdm`), the TDM's ``REFERENCE_FRAME``
workaround (:func:`_tdm_frames`, described in :mod:`ssa_privacy.sensors.tdm`), and the
layout of an OEM: its sections, state lines and covariance rows (:func:`_scan_oem`).

References
----------
CCSDS 502.0-B-3, "Orbit Data Messages", section 5 (the OEM in KVN); CCSDS 503.0-B-2,
"Tracking Data Message" (its KVN sections and data lines); the ``ccsds-ndm`` package by
E. Imre.
"""

import re
from dataclasses import fields

from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_tdm_2_0 import (
    RefFrameType,
    TrackingDataObservationType,
)

__all__ = []

#: The versions of each message type read from KVN (those ``ccsds-ndm`` 3.1.1 reads).
_VERSIONS = {"OEM": ("2.0", "3.0"), "TDM": ("1.0", "2.0")}
#: The first line of a KVN message of each type, and its version.
_VERSION_LINE = {kind: re.compile(rf"\s*CCSDS_{kind}_VERS\s*=\s*(\S*)") for kind in _VERSIONS}
#: The KVN section markers of a TDM segment, in order.
_TDM_MARKERS = ("META_START", "META_STOP", "DATA_START", "DATA_STOP")
#: The data keywords of CCSDS 503.0-B-2 (those ``ccsds-ndm`` reads).
_TDM_DATA_KEYWORDS = {f.name.upper() for f in fields(TrackingDataObservationType)} - {"EPOCH"}
_TDM_FRAME = re.compile(r"^(\s*REFERENCE_FRAME\s*=\s*)(\S.*?)\s*$")
_TDM_LISTED_FRAMES = {member.value for member in RefFrameType}
_SEGMENT_START = re.compile(r"^\s*META_START\s*$")


def _kvn_version(text, kind):
    """The version of a KVN message of type ``kind`` (``"OEM"``, ``"TDM"``): the value of
    its first keyword ``CCSDS_<kind>_VERS``; None when the text does not begin with that
    keyword (XML, or a message the parser refuses)."""
    match = _VERSION_LINE[kind].match(text)
    return None if match is None else match[1]


def _check_version(path, text, kind):
    """ValueError naming the file unless a KVN message of type ``kind`` has a version
    read here (:data:`_VERSIONS`)."""
    version, supported = _kvn_version(text, kind), _VERSIONS[kind]
    if version not in supported:
        raise ValueError(
            f"{path}, line 1, CCSDS_{kind}_VERS: {version!r} is not supported "
            f"({' or '.join(supported)})"
        )


def _scan_tdm(path, text):
    """Check the layout of a KVN TDM and its data lines; return the units they give.

    ``ccsds-ndm`` drops what it does not understand: a segment whose ``DATA_STOP`` is
    missing, a data line with an unknown (or lower-case) keyword or without exactly a
    time tag and a value, and the units of every line. The text is read as its
    tokenizer reads it (lines of ``str.splitlines``, units between the last ``[`` and a
    final ``]``) and refused where the library would drop something, naming the line.

    Returns
    -------
    dict
        ``{(segment, keyword, time tag): units}`` of the data lines that give units.
    """
    _check_version(path, text, "TDM")
    units, segment, expected = {}, 0, 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line in _TDM_MARKERS:
            if line != _TDM_MARKERS[expected]:
                raise ValueError(
                    f"{path}, line {number}: {line} where {_TDM_MARKERS[expected]} was expected"
                )
            segment += line == "META_START"
            expected = (expected + 1) % len(_TDM_MARKERS)
        elif _TDM_MARKERS[expected] == "DATA_STOP" and line and not line.startswith("COMMENT"):
            key, rest = _data_line(line, f"{path}, segment {segment}, line {number}")
            if rest.endswith("]") and "[" in rest:
                bracket = rest.rfind("[")
                units[segment, key, rest[:bracket].split()[0]] = rest[bracket + 1 : -1].strip()
    if expected:
        raise ValueError(f"{path}: the file ends before {_TDM_MARKERS[expected]}")
    return units


def _data_line(line, where):
    """The keyword and the rest of a KVN data line ``KEYWORD = <time tag> <value> [units]``,
    or ValueError naming ``where`` and what is wrong."""
    key, equals, rest = (part.strip() for part in line.partition("="))
    if not equals:
        raise ValueError(f"{where}: {line!r} is not KEYWORD = <time tag> <value>")
    if key not in _TDM_DATA_KEYWORDS:
        raise ValueError(f"{where}, {key}: not a TDM data keyword (upper case, CCSDS 503.0-B-2)")
    tokens = (rest[: rest.rfind("[")] if rest.endswith("]") and "[" in rest else rest).split()
    if len(tokens) != 2:
        raise ValueError(f"{where}, {key}: {rest!r} is not <time tag> <value> [units]")
    try:
        float(tokens[1])
    except ValueError:
        raise ValueError(f"{where}, {key}: {tokens[1]!r} is not a number") from None
    return key, rest


def _tdm_frames(text):
    """KVN text with unlisted REFERENCE_FRAME values swapped, and the originals by segment."""
    lines, frames, segment = text.splitlines(), {}, 0
    listed = sorted(_TDM_LISTED_FRAMES)[0]
    for number, line in enumerate(lines):
        if _SEGMENT_START.match(line):
            segment += 1
            continue
        match = _TDM_FRAME.match(line)
        if match and match[2] not in _TDM_LISTED_FRAMES:
            frames[segment] = match[2]
            lines[number] = match[1] + listed
    return "\n".join(lines) + "\n", frames


def _scan_oem(path, text):
    """Check the layout of a KVN OEM where ``ccsds-ndm`` would misread it silently.

    The library keeps a state line of 7 or 8 numbers (the standard has 6, or 9 with
    accelerations), drops a covariance section that is not closed and a line it does not
    know, and reads the covariance numbers in a row as a flat list (an extra number in a
    row shifts every entry after it). Each is refused, naming the line; so is a version
    other than 2.0 or 3.0 and a segment whose ``META_STOP`` is missing.
    """
    _check_version(path, text, "OEM")
    section, rows = "header", None
    for number, line in enumerate(text.splitlines(), 1):
        line, where = line.strip(), f"{path}, line {number}"
        if not line or line.startswith("COMMENT") or section in ("header", "metadata"):
            if line in ("META_START", "META_STOP"):
                section = _next_section(section, line, where)
            continue
        if line in ("META_START", "COVARIANCE_START", "COVARIANCE_STOP"):
            _covariance_rows(rows, where, line)
            section, rows = _next_section(section, line, where), None
        elif section == "data":
            _numbers(line.split()[1:], (6, 9), where, "a state line: <epoch> and")
        elif section == "after covariance":
            raise ValueError(f"{where}: {line!r} after COVARIANCE_STOP (META_START expected)")
        elif line.startswith(("EPOCH", "COV_REF_FRAME")) and "=" in line:
            if line.startswith("EPOCH"):
                _covariance_rows(rows, where, "EPOCH")
                rows = 0
            elif rows != 0:
                raise ValueError(f"{where}: COV_REF_FRAME must follow the EPOCH of its block")
        else:
            if rows is None or rows == 6:
                raise ValueError(f"{where}: {line!r} is not a covariance row after EPOCH")
            rows += 1
            _numbers(line.split(), (rows,), where, f"covariance row {rows}:")
    if section in ("metadata", "covariance"):
        end = "META_STOP" if section == "metadata" else "COVARIANCE_STOP"
        raise ValueError(f"{path}: the file ends before {end}")


#: The KVN sections of an OEM and the marker that may follow each.
_OEM_SECTIONS = {
    ("header", "META_START"): "metadata",
    ("metadata", "META_STOP"): "data",
    ("data", "META_START"): "metadata",
    ("data", "COVARIANCE_START"): "covariance",
    ("covariance", "COVARIANCE_STOP"): "after covariance",
    ("after covariance", "META_START"): "metadata",
}


def _next_section(section, marker, where):
    """The section a marker opens, or ValueError naming the line."""
    if (section, marker) not in _OEM_SECTIONS:
        raise ValueError(f"{where}: {marker} is out of place (in the {section} section)")
    return _OEM_SECTIONS[section, marker]


def _covariance_rows(rows, where, what):
    """ValueError unless the covariance block before ``what`` has its 6 rows."""
    if rows is not None and rows != 6:
        raise ValueError(f"{where}: {what} after {rows} of the covariance's 6 rows")


def _numbers(tokens, counts, where, what):
    """ValueError unless ``tokens`` are numbers, as many as one of ``counts``."""
    if len(tokens) not in counts:
        expected = " or ".join(map(str, counts))
        raise ValueError(f"{where}: {what} {expected} numbers, got {len(tokens)}")
    for token in tokens:
        try:
            float(token)
        except ValueError:
            raise ValueError(f"{where}: {token!r} is not a number") from None
