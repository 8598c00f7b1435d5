"""Orbit Mean-elements Messages (OMM, CCSDS 502.0-B-3) of SGP4 element sets.

An OMM with ``MEAN_ELEMENT_THEORY = SGP4`` holds the same numbers as a two-line element
set, as named keywords (``MEAN_MOTION``, ``ECCENTRICITY``, ``BSTAR``, ...), in the TEME
frame and UTC. CelesTrak and space-track serve their catalogues this way (one NDM/XML
file of many OMMs, or KVN messages one after another), and catalogue numbers above 99999
exist only so. :func:`read_omm` turns each OMM into an
:class:`~ssa_privacy.orbits.tle.ElementSet`: the mean elements initialise an SGP4 record
(``sgp4.api.Satrec.sgp4init``, WGS-72, the field mapping of ``sgp4.omm.initialize``) and
``sgp4.exporter.export_tle`` writes its two lines, so that the element set is its lines
(compared, validated and rebuilt from them like every other). :func:`write_omm` writes
element sets as OMMs (the field mapping of ``sgp4.exporter.export_omm``) for the round
trip and for users. KVN and XML are written and parsed by the ``ccsds-ndm`` package.

Precision: an element set is defined by its TLE lines, so an OMM read here is rounded to
the TLE's fields (angles to 1e-4 deg, eccentricity to 1e-7, mean motion to 1e-8 rev/day,
epoch to 1e-8 day, B* and the second derivative to 5 significant digits). An OMM made
from a TLE, as every CelesTrak OMM of an object numbered below 100000 is, holds exactly
those values and loses nothing; one with more digits is rounded (in low Earth orbit up to
about 6 m along track from the mean anomaly's 1e-4 deg and 3 m from the epoch's 1e-8
day). :func:`write_omm` writes each field rounded to the TLE's precision, i.e. the TLE's
own decimal numbers.

What a TLE cannot hold is refused, naming the file, the line (in KVN), the message and
the keyword, never shifted or cut: an ``EPOCH`` outside the years 1957-2056 (the TLE's
two-digit year: 57-99 are 1957-1999, 00-56 are 2000-2056), a ``NORAD_CAT_ID`` above
339999 (100000 to 339999 are written in Alpha-5, 123456 as ``C3456``, and read back as
123456), a ``CLASSIFICATION_TYPE`` other than U, C or S, an ``EPHEMERIS_TYPE`` above 9, a
``MEAN_MOTION_DOT`` of magnitude 1 or more, a ``BSTAR`` or ``MEAN_MOTION_DDOT`` that the
TLE's exponent (-9 to 9) cannot write, an element that leaves its range once rounded to
the TLE's decimals. The element set and revolution numbers wrap, as the TLE's own four-
and five-digit counts do. An ``OBJECT_ID`` that is not an international designator
(``YYYY-NNNA``) leaves the TLE's designator blank. A KVN OMM is checked line by line
before ``ccsds-ndm`` parses it (which would skip a line it does not understand and keep
the last of a repeated keyword): every line is blank, a ``COMMENT`` or
``KEYWORD = value [units]`` with a keyword of the OMM's, once per message.

References
----------
CCSDS 502.0-B-3, "Orbit Data Messages", Blue Book, April 2023 (section 4, OMM: metadata,
mean elements, TLE-related parameters); CCSDS 505.0-B, "XML Specification for
Navigation Data Messages" (the combined NDM/XML instantiation); D. A. Vallado et al.,
"Revisiting Spacetrack Report #3", AIAA 2006-6753 (SGP4, TEME, the TLE fields); the
``sgp4`` package by B. Rhodes (``sgp4.omm``, ``sgp4.exporter``); the ``ccsds-ndm``
package by E. Imre.
"""

import math
import re
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from ccsds_ndm.mapping import NDMFileFormats
from ccsds_ndm.models import ndmxml2, ndmxml4
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_common_4_0 import (
    AngleType,
    InclinationType,
    OdmHeader,
)
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_omm_3_0 import (
    BStarType,
    DdRevType,
    DRevType,
    MeanElementsType,
    OmmData,
    OmmMetadata,
    OmmSegment,
    RevType,
    TleParametersType,
)
from sgp4.api import WGS72, Satrec
from sgp4.exporter import export_omm, export_tle
from sgp4.io import fix_checksum

from ssa_privacy._internal.ccsds import (
    _comments,
    _creation_date,
    _file_format,
    _kind_of,
    _messages,
    _number,
    _parse,
    _parse_tag,
    _read_message,
    _render,
    _text,
    _units,
    _value,
    _write,
    time_tags,
)
from ssa_privacy.orbits._element_text import numbered_lines, parts
from ssa_privacy.orbits._omm_kvn import UNITS, kvn_keywords, kvn_messages, not_an_integer
from ssa_privacy.orbits.tle import ElementSet, TLEError

__all__ = [
    "MAX_TLE_CATALOGUE_NUMBER",
    "TLE_YEARS",
    "read_omm",
    "write_omm",
]

#: Largest catalogue number a TLE can hold (Alpha-5: a letter for the leading digits).
MAX_TLE_CATALOGUE_NUMBER = 339999
#: The years a TLE's two-digit epoch year covers (57-99: 1957-1999, 00-56: 2000-2056).
TLE_YEARS = (1957, 2056)
#: Julian date of 1949-12-31T00:00:00 UTC, the origin of ``sgp4init``'s epoch (days).
_SGP4_EPOCH_ORIGIN_JD = 2433281.5
#: Julian date of 2000-01-01T00:00:00 UTC, the origin of the CCSDS time tag counts.
_JD_2000 = 2451544.5
#: Nanoseconds of the TLE epoch's last digit, 1e-8 day.
_NS_PER_EPOCH_DIGIT = 864_000
_TO_RADIANS = math.pi / 180.0
#: rev/day per rad/min (``sgp4.exporter``'s ``_xpdotp``).
_XPDOTP = 1440.0 / (2.0 * math.pi)
_INTERNATIONAL_DESIGNATOR = re.compile(r"(\d{2})(\d{2})-(\d{3})([A-Z]{1,3})")
#: Decimal places of the TLE fields (``write_omm`` rounds to them).
_TLE_DECIMALS = {
    "INCLINATION": 4,
    "RA_OF_ASC_NODE": 4,
    "ARG_OF_PERICENTER": 4,
    "MEAN_ANOMALY": 4,
    "ECCENTRICITY": 7,
    "MEAN_MOTION": 8,
    "MEAN_MOTION_DOT": 8,
}
#: Ranges of the mean elements an SGP4 element set can hold: (low, high, high included).
_ELEMENT_RANGES = {
    "MEAN_MOTION": (0.0, 100.0, False),  # rev/day, and positive (checked too)
    "ECCENTRICITY": (0.0, 1.0, False),
    "INCLINATION": (0.0, 180.0, True),
}
#: Significant digits of the TLE's exponential fields.
_TLE_SIGNIFICANT = {"BSTAR": 5, "MEAN_MOTION_DDOT": 5}
#: Magnitudes the TLE's exponential fields (+NNNNN-N, mantissa 0.1 to 0.99999, exponent
#: -9 to 9) hold besides 0: from 1e-10 to below 1e9.
_EXPONENTIAL_RANGE = (1e-10, 1e9)
#: Whole-number TLE fields: (keyword, low, modulus of the field's digits or None).
_WHOLE_FIELDS = (
    ("EPHEMERIS_TYPE", 0, None),  # one digit, 0 to 9
    ("ELEMENT_SET_NO", 0, 10_000),  # four digits: wraps, as the TLE's own count does
    ("REV_AT_EPOCH", 0, 100_000),  # five digits: wraps, as the TLE's own count does
)
_CLASSIFICATIONS = ("U", "C", "S")


@dataclass
class _Where:
    """Where an OMM's keywords stand, for error messages: the file, the message's number
    in it, its OBJECT_NAME (once read) and, in KVN, the file line of each keyword and the
    message's first and last lines."""

    file: str
    number: int
    lines: dict = field(default_factory=dict)
    span: tuple = None
    name: str = None

    def __call__(self, keyword=None):
        """``"file, line N, OMM k (NAME), KEYWORD"``; without the keyword's line, the
        message's lines (KVN) or the file alone (XML)."""
        line = self.lines.get(keyword)
        if line:
            at = f"{self.file}, line {line}"
        elif self.span:
            first, last = self.span
            at = (
                f"{self.file}, line {first}"
                if first == last
                else f"{self.file}, lines {first}-{last}"
            )
        else:
            at = str(self.file)
        omm = f"OMM {self.number}" + (f" ({self.name})" if self.name else "")
        return ", ".join([at, omm, *([keyword] if keyword else [])])


def _field(container, keyword, where, required=True):
    """A keyword of a parsed block (its lower-case attribute), or ValueError if missing."""
    value = getattr(container, keyword.lower(), None) if container is not None else None
    if value is None and required:
        raise ValueError(f"{where(keyword)}: missing")
    return value


def _integer(value, keyword, where, default):
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where(keyword)}: {not_an_integer(keyword, value)}")
    return value


def _metadata(meta, where):
    """Check the metadata of an SGP4 element set; set ``where.name`` to OBJECT_NAME."""
    name = _value(meta.object_name, where("OBJECT_NAME"))
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where('OBJECT_NAME')}: missing")
    if not name.isprintable():
        raise ValueError(f"{where('OBJECT_NAME')}: {name!r} is not one line of printable text")
    where.name = name
    for keyword, expected in (
        ("CENTER_NAME", ("EARTH",)),
        ("REF_FRAME", ("TEME",)),
        ("TIME_SYSTEM", ("UTC",)),
        ("MEAN_ELEMENT_THEORY", ("SGP4", "SGP/SGP4")),
    ):
        value = _value(_field(meta, keyword, where), where(keyword))
        if not isinstance(value, str) or value.upper() not in expected:
            raise ValueError(
                f"{where(keyword)}: {value!r} is not supported ({expected[0]}: an SGP4 "
                "element set in the TEME frame)"
            )


def _in_range(value, keyword, where):
    """Check a mean element against the range a TLE holds, before and after rounding to
    the TLE's decimals."""
    low, high, closed = _ELEMENT_RANGES[keyword]
    interval = f"[{low:g}, {high:g}{']' if closed else ')'}"
    decimals = _TLE_DECIMALS[keyword]
    rounded = round(value, decimals)
    for number, what in (
        (value, f"{value!r}"),
        (rounded, f"{value!r}, {rounded:.{decimals}f} in the TLE,"),
    ):
        inside = low <= number <= high if closed else low <= number < high
        if not inside:
            raise ValueError(f"{where(keyword)}: {what} is outside {interval}")
        if keyword == "MEAN_MOTION" and number <= 0.0:
            raise ValueError(f"{where(keyword)}: {what} is not positive")


def _mean_elements(elements, where):
    """The six mean elements (deg, rev/day) of the mean elements block, checked."""
    number = {}
    for keyword in ("MEAN_MOTION", "ECCENTRICITY", "INCLINATION", "RA_OF_ASC_NODE",
                    "ARG_OF_PERICENTER", "MEAN_ANOMALY"):  # fmt: skip
        value = _field(elements, keyword, where)
        _units(value, UNITS[keyword], where(keyword))
        number[keyword] = _number(value, where(keyword))
    for keyword in _ELEMENT_RANGES:
        _in_range(number[keyword], keyword, where)
    for keyword in ("RA_OF_ASC_NODE", "ARG_OF_PERICENTER", "MEAN_ANOMALY"):
        number[keyword] %= 360.0  # an angle: any value is the angle modulo 360 deg
    return number


def _drag_terms(tle, where):
    """BSTAR, MEAN_MOTION_DOT and MEAN_MOTION_DDOT, checked against the TLE's fields."""
    number = {}
    for keyword, required in (("BSTAR", True), ("MEAN_MOTION_DOT", True),
                              ("MEAN_MOTION_DDOT", False)):  # fmt: skip
        value = _field(tle, keyword, where, required)
        _units(value, UNITS[keyword], where(keyword))
        number[keyword] = 0.0 if value is None else _number(value, where(keyword))
    if abs(round(number["MEAN_MOTION_DOT"], 8)) >= 1.0:
        raise ValueError(
            f"{where('MEAN_MOTION_DOT')}: {number['MEAN_MOTION_DOT']!r} does not fit the "
            "TLE's field (+.NNNNNNNN: a magnitude below 1)"
        )
    low, high = _EXPONENTIAL_RANGE
    for keyword, digits in _TLE_SIGNIFICANT.items():
        rounded = abs(float(f"{number[keyword]:.{digits - 1}e}"))
        if rounded and not low <= rounded < high:
            raise ValueError(
                f"{where(keyword)}: {number[keyword]!r} does not fit the TLE's field "
                f"(+NNNNN-N: 0, or a magnitude from {low:g} to below {high:g})"
            )
    return number


def _tle_epoch(elements, where):
    """The TLE's epoch field ``YYDDD.DDDDDDDD`` of EPOCH, rounded to 1e-8 day exactly (from
    the time tag's integer nanoseconds), and its Julian date (UTC)."""
    tag = _field(elements, "EPOCH", where)
    ticks = round(Fraction(_parse_tag(tag, where("EPOCH")), _NS_PER_EPOCH_DIGIT))
    days, fraction = divmod(ticks, 10**8)
    ordinal = date(2000, 1, 1).toordinal() + days
    first, last = (date(year, 1, 1).toordinal() for year in (TLE_YEARS[0], TLE_YEARS[1] + 1))
    if not first <= ordinal < last:
        what = tag.strip()
        if int(what[:4]) == TLE_YEARS[1]:  # the last instants of 2056 round into 2057
            what += f", rounded to the TLE's 1e-8 day ({date.fromordinal(ordinal)}T00:00:00),"
        raise ValueError(
            f"{where('EPOCH')}: {what} is outside the years {TLE_YEARS[0]}-{TLE_YEARS[1]} "
            "that the two-digit epoch year of a TLE covers (an element set is its TLE lines)"
        )
    day = date.fromordinal(ordinal)
    text = f"{day.year % 100:02d}{day.timetuple().tm_yday:03d}.{fraction:08d}"
    return text, _JD_2000 + days + fraction / 1e8


def _designator(meta, where):
    """The TLE's international designator (``YYNNNAAA``) of OBJECT_ID, blank when it is not
    one (``YYYY-NNNA``)."""
    object_id = _value(meta.object_id, where("OBJECT_ID")) or ""
    found = _INTERNATIONAL_DESIGNATOR.fullmatch(object_id)
    if not found:
        return ""
    if not TLE_YEARS[0] <= int(found[1] + found[2]) <= TLE_YEARS[1]:
        raise ValueError(
            f"{where('OBJECT_ID')}: launch year {found[1]}{found[2]} is outside the years "
            f"{TLE_YEARS[0]}-{TLE_YEARS[1]} that the two-digit year of a TLE covers"
        )
    return "".join(found.group(2, 3, 4))


def _tle_numbers(tle, where):
    """NORAD_CAT_ID, CLASSIFICATION_TYPE and the whole-number fields, checked."""
    catalogue = _integer(_field(tle, "NORAD_CAT_ID", where), "NORAD_CAT_ID", where, None)
    if not 0 <= catalogue <= MAX_TLE_CATALOGUE_NUMBER:
        raise ValueError(
            f"{where('NORAD_CAT_ID')}: {catalogue} cannot be written in a TLE (0 to "
            f"{MAX_TLE_CATALOGUE_NUMBER}, Alpha-5 above 99999)"
        )
    classification = _value(tle.classification_type, where("CLASSIFICATION_TYPE")) or "U"
    if classification not in _CLASSIFICATIONS:
        raise ValueError(
            f"{where('CLASSIFICATION_TYPE')}: {classification!r} is not a TLE "
            f"classification ({', '.join(_CLASSIFICATIONS)})"
        )
    whole = {}
    for keyword, low, modulus in _WHOLE_FIELDS:
        default = 999 if keyword == "ELEMENT_SET_NO" else 0
        value = _integer(getattr(tle, keyword.lower()), keyword, where, default)
        if value < low or (modulus is None and value > 9):
            raise ValueError(
                f"{where(keyword)}: {value} does not fit the TLE's field "
                f"({'a digit, 0 to 9' if modulus is None else 'a count from 0'})"
            )
        whole[keyword] = value if modulus is None else value % modulus
    return catalogue, classification, whole


def _element_set(omm, where):
    """The ElementSet of one parsed OMM (``where``: a :class:`_Where`)."""
    meta, data = omm.body.segment.metadata, omm.body.segment.data
    _metadata(meta, where)
    elements, tle = data.mean_elements, data.tle_parameters
    if elements is None or tle is None:
        block = "mean elements" if elements is None else "TLE parameters"
        raise ValueError(f"{where()}: the {block} block is missing (an SGP4 OMM has both)")
    number = {**_mean_elements(elements, where), **_drag_terms(tle, where)}
    epoch, epoch_jd = _tle_epoch(elements, where)
    catalogue, classification, whole = _tle_numbers(tle, where)
    satrec = Satrec()
    # The unit conversions of sgp4.omm.initialize (see SGP4.cpp): rev/day -> rad/min.
    satrec.sgp4init(
        WGS72,
        "i",
        catalogue,
        epoch_jd - _SGP4_EPOCH_ORIGIN_JD,
        number["BSTAR"],
        number["MEAN_MOTION_DOT"] / (_XPDOTP * 1440.0),
        number["MEAN_MOTION_DDOT"] / (_XPDOTP * 1440.0 * 1440.0),
        number["ECCENTRICITY"],
        number["ARG_OF_PERICENTER"] * _TO_RADIANS,
        number["INCLINATION"] * _TO_RADIANS,
        number["MEAN_ANOMALY"] * _TO_RADIANS,
        number["MEAN_MOTION"] / _XPDOTP,
        number["RA_OF_ASC_NODE"] * _TO_RADIANS,
    )
    # Set after sgp4init, which resets the classification to U.
    satrec.classification, satrec.intldesg = classification, _designator(meta, where)
    satrec.ephtype, satrec.elnum = whole["EPHEMERIS_TYPE"], whole["ELEMENT_SET_NO"]
    satrec.revnum = whole["REV_AT_EPOCH"]
    line1, line2 = export_tle(satrec)
    # The epoch field from the exact time tag (export_tle formats a float day of year).
    line1 = fix_checksum(line1[:18] + epoch + line1[32:])
    try:
        return ElementSet(where.name, line1, line2)
    except TLEError as error:
        raise ValueError(f"{where()}: the elements do not make a valid TLE: {error}") from None


def read_omm(path):
    """Read every OMM of a file (KVN or XML) as SGP4 element sets.

    Parameters
    ----------
    path : str or path-like
        An OMM (version 2.0 or 3.0) in KVN, several KVN OMMs one after another, an OMM in
        XML, or an NDM/XML combined instantiation holding many OMMs (CelesTrak's
        ``FORMAT=XML``). UTF-8 (a byte-order mark starting a line is dropped).

    Returns
    -------
    list of ssa_privacy.orbits.tle.ElementSet
        In file order, named by ``OBJECT_NAME``; each is the TLE of its mean elements
        (module docstring: rounded to the TLE's fields).

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        Naming the file, the line (of a KVN keyword), the message (its number and
        ``OBJECT_NAME``) and the keyword: not UTF-8, not a readable OMM or no OMM in it,
        a TLE element set in it (:func:`ssa_privacy.orbits.catalog.read_element_sets`
        reads such files), a KVN line that is not ``KEYWORD = value [units]`` or a
        ``COMMENT``, a keyword that is not an OMM's or is repeated, ``CENTER_NAME``
        other than EARTH, ``REF_FRAME`` other than TEME, ``TIME_SYSTEM`` other than UTC,
        ``MEAN_ELEMENT_THEORY`` other than SGP4 (SGP4-XP is another theory), a missing
        element, units other than the standard's, an ``EPOCH`` outside the years
        1957-2056 (the TLE's two-digit year), a value a TLE field cannot hold
        (``NORAD_CAT_ID`` above 339999, ``CLASSIFICATION_TYPE`` other than U, C or S,
        ``EPHEMERIS_TYPE`` above 9, a negative count, ``BSTAR`` or ``MEAN_MOTION_DDOT``
        of magnitude 1e9 or more, ``MEAN_MOTION_DOT`` of magnitude 1 or more), or
        elements SGP4 or the TLE format rejects.

    Notes
    -----
    CCSDS 502.0-B-3, section 4; ``sgp4.api.Satrec.sgp4init`` and
    ``sgp4.exporter.export_tle`` (Vallado et al. 2006).
    """
    path, text = _read_message(path, "OMM")
    runs = parts(numbered_lines(text), str(path))
    tle = next((run for run in runs if run.kind == "tle"), None)
    if tle is not None:
        raise ValueError(
            f"{path}, line {tle.first_line}: a TLE element set starts here, in an OMM file "
            "(read_element_sets reads a file of OMMs and TLEs)"
        )
    sets = []
    for run in runs:
        sets += _sets_of_run(run, path, len(sets))
    return sets


def _refuse_text_after_xml(run, file):
    """Refuse a line after the XML document's last tag (the parser's message would not
    name it); a TLE element set there is a run of its own."""
    last = max(k for k, (_, text) in enumerate(run.lines) if ">" in text)
    after = next(((n, t) for n, t in run.lines[last + 1 :] if t.strip()), None)
    if after is not None:
        raise ValueError(
            f"{file}, line {after[0]}: {after[1].strip()!r} follows the XML document's last "
            "tag and is neither XML nor a TLE element set"
        )


def _sets_of_run(run, file, before):
    """The element sets of a run of OMMs (an :class:`~ssa_privacy.orbits._element_text.Part`)
    of ``file``, after ``before`` OMMs of the file."""
    if run.text.lstrip().startswith("<"):
        _refuse_text_after_xml(run, file)
        tree = _parse(file, run.text, "OMM")
        found = _messages(tree, (ndmxml2.OmmType, ndmxml4.OmmType))
        if not found:
            raise ValueError(f"{file}: holds a CCSDS {_kind_of(tree)}, not an OMM")
        return [_element_set(omm, _Where(file, before + k)) for k, omm in enumerate(found, 1)]
    sets = []
    for k, lines in enumerate(kvn_messages(run.lines), before + 1):
        content = [number for number, text in lines if text.strip()]
        where = _Where(file, k, kvn_keywords(lines, file, k), (content[0], content[-1]))
        try:
            tree = _parse(file, "\n".join(text for _, text in lines), "OMM")
        except ValueError as error:  # a value the checks of the lines leave to the parser
            raise ValueError(f"{where()}: {str(error).removeprefix(f'{file}: ')}") from None
        [omm] = _messages(tree, (ndmxml2.OmmType, ndmxml4.OmmType))
        sets.append(_element_set(omm, where))
    return sets


def _rounded(fields):
    """export_omm's fields rounded to the TLE's decimals (the TLE's own numbers)."""
    out = dict(fields)
    for key, decimals in _TLE_DECIMALS.items():
        out[key] = round(float(out[key]), decimals) + 0.0
    for key, digits in _TLE_SIGNIFICANT.items():
        out[key] = float(f"{float(out[key]):.{digits - 1}e}") + 0.0
    return out


def _omm(element_set, header):
    """The ``ccsds-ndm`` OMM 3.0 of one element set (its ``satrec`` may be modified)."""
    satrec = element_set.satrec
    designator = satrec.intldesg.strip()
    if not designator:
        satrec.intldesg = "00000A"  # export_omm parses the designator: a placeholder
    fields = _rounded(export_omm(satrec, element_set.name))
    if not designator:
        fields["OBJECT_ID"] = "UNKNOWN"
    # The epoch to the microsecond, rounded (export_omm truncates) from the two-part JD.
    epoch = time_tags(satrec.jdsatepoch, [satrec.jdsatepochF * 86400.0], digits=6)[0]
    metadata = OmmMetadata(
        object_name=_text(element_set.name, "element set name"),
        object_id=fields["OBJECT_ID"],
        center_name="EARTH",
        ref_frame="TEME",
        time_system="UTC",
        mean_element_theory="SGP4",
    )
    elements = MeanElementsType(
        epoch=epoch,
        mean_motion=RevType(value=fields["MEAN_MOTION"]),
        eccentricity=fields["ECCENTRICITY"],
        inclination=InclinationType(value=fields["INCLINATION"]),
        ra_of_asc_node=AngleType(value=fields["RA_OF_ASC_NODE"]),
        arg_of_pericenter=AngleType(value=fields["ARG_OF_PERICENTER"]),
        mean_anomaly=AngleType(value=fields["MEAN_ANOMALY"]),
    )
    tle = TleParametersType(
        ephemeris_type=int(fields["EPHEMERIS_TYPE"]),
        classification_type=fields["CLASSIFICATION_TYPE"] or "U",
        norad_cat_id=int(fields["NORAD_CAT_ID"]),
        element_set_no=int(fields["ELEMENT_SET_NO"]),
        rev_at_epoch=int(fields["REV_AT_EPOCH"]),
        bstar=BStarType(value=fields["BSTAR"]),
        mean_motion_dot=DRevType(value=fields["MEAN_MOTION_DOT"]),
        mean_motion_ddot=DdRevType(value=fields["MEAN_MOTION_DDOT"]),
    )
    segment = OmmSegment(
        metadata=metadata, data=OmmData(mean_elements=elements, tle_parameters=tle)
    )
    return ndmxml4.Omm(header=header, body=ndmxml4.OmmBody(segment=segment))


def write_omm(
    path,
    element_sets,
    originator="ssa_privacy",
    comments=(),
    *,
    file_format=None,
    creation_jd=None,
):
    """Write SGP4 element sets as CCSDS OMMs, atomically.

    Parameters
    ----------
    path : str or path-like
        The file; its folder is created if missing. Written through a temporary file
        renamed into place (:func:`ssa_privacy.engine.output.atomic_path`).
    element_sets : ElementSet or sequence of ElementSet
        At least one. In XML, one OMM, or an NDM/XML combined instantiation of all of
        them; in KVN, one OMM message after another (the standard's KVN holds one
        message; CelesTrak serves many this way, and :func:`read_omm` reads them).
    originator : str
        ``ORIGINATOR`` of each header.
    comments : sequence of str
        One-line ``COMMENT`` lines of each header.
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
        If an element of ``element_sets`` is not an ElementSet, or a comment or the
        originator is not a str.
    ValueError
        If there is no element set, or ``originator``, ``file_format`` or
        ``creation_jd`` is bad (naming it).

    Notes
    -----
    CCSDS 502.0-B-3, section 4 (OMM 3.0); the fields of ``sgp4.exporter.export_omm``,
    rounded to the TLE's decimals (module docstring), the epoch to the microsecond; an
    element set without an international designator gets ``OBJECT_ID = UNKNOWN``.
    Written by ``ccsds-ndm``.
    """
    if isinstance(element_sets, ElementSet):
        element_sets = [element_sets]
    element_sets = list(element_sets)
    if not element_sets:
        raise ValueError("element_sets must hold at least one ElementSet")
    for index, element_set in enumerate(element_sets):
        if not isinstance(element_set, ElementSet):
            raise TypeError(
                f"element_sets[{index}] must be an ElementSet, got {type(element_set).__name__}"
            )
    header = OdmHeader(
        comment=list(_comments(comments, "comments")),
        creation_date=_creation_date(creation_jd),
        originator=_text(originator, "originator"),
    )
    file_format = _file_format(path, file_format)
    # A copy of each record: export_omm reads (and _omm sets) the designator on it.
    messages = [_omm(ElementSet(e.name, e.line1, e.line2), header) for e in element_sets]
    if file_format is NDMFileFormats.XML:
        message = messages[0] if len(messages) == 1 else ndmxml4.Ndm(omm=messages)
        return _write(path, _render(message, file_format))
    return _write(path, "\n".join(_render(m, file_format) for m in messages))
