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

from ssa_privacy._internal.ccsds import (
    _comments,
    _creation_date,
    _file_format,
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
from ssa_privacy.orbits.tle import ElementSet, TLEError

__all__ = [
    "MAX_TLE_CATALOGUE_NUMBER",
    "read_omm",
    "write_omm",
]

#: Largest catalogue number a TLE can hold (Alpha-5: a letter for the leading digits).
MAX_TLE_CATALOGUE_NUMBER = 339999
#: Julian date of 1949-12-31T00:00:00 UTC, the origin of ``sgp4init``'s epoch (days).
_SGP4_EPOCH_ORIGIN_JD = 2433281.5
_TO_RADIANS = math.pi / 180.0
#: rev/day per rad/min (``sgp4.exporter``'s ``_xpdotp``).
_XPDOTP = 1440.0 / (2.0 * math.pi)
_INTERNATIONAL_DESIGNATOR = re.compile(r"(\d{2})(\d{2})-(\d{3})([A-Z]{1,3})")
_KVN_MESSAGE = re.compile(r"^\s*CCSDS_OMM_VERS\s*=", re.MULTILINE)
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
    "mean_motion": (0.0, 100.0, False),  # rev/day, and positive (checked too)
    "eccentricity": (0.0, 1.0, False),
    "inclination": (0.0, 180.0, True),
}
#: The units an OMM may state for each element (CCSDS 502.0-B-3, OMM data).
_UNITS = {
    "mean_motion": ("rev/day", "REV/DAY"),
    "eccentricity": (),
    "inclination": ("deg", "DEG"),
    "ra_of_asc_node": ("deg", "DEG"),
    "arg_of_pericenter": ("deg", "DEG"),
    "mean_anomaly": ("deg", "DEG"),
    "bstar": ("1/ER", "1/er"),
    "mean_motion_dot": ("rev/day**2", "REV/DAY**2"),
    "mean_motion_ddot": ("rev/day**3", "REV/DAY**3"),
}
#: Significant digits of the TLE's exponential fields.
_TLE_SIGNIFICANT = {"BSTAR": 5, "MEAN_MOTION_DDOT": 5}


def _kvn_messages(text):
    """The KVN messages of a text, split before each ``CCSDS_OMM_VERS`` line."""
    starts = [m.start() for m in _KVN_MESSAGE.finditer(text)]
    if not starts:
        return [text]
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


def _field(container, name, where, required=True):
    """A keyword of a parsed block (``name`` lower-case attribute), or ValueError if missing."""
    value = getattr(container, name, None) if container is not None else None
    if value is None and required:
        raise ValueError(f"{where}, {name.upper()}: missing")
    return value


def _integer(value, where, default):
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where}: not an integer: {value!r}")
    return value


def _element_set(omm, where):
    """The ElementSet of one parsed OMM (``where`` names the file and the message)."""
    meta, data = omm.body.segment.metadata, omm.body.segment.data
    name = _value(meta.object_name, f"{where}, OBJECT_NAME")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}, OBJECT_NAME: missing")
    where = f"{where} ({name})"
    for keyword, expected in (
        ("center_name", ("EARTH",)),
        ("ref_frame", ("TEME",)),
        ("time_system", ("UTC",)),
        ("mean_element_theory", ("SGP4", "SGP/SGP4")),
    ):
        value = _value(_field(meta, keyword, where), f"{where}, {keyword.upper()}")
        if not isinstance(value, str) or value.upper() not in expected:
            raise ValueError(
                f"{where}, {keyword.upper()}: {value!r} is not supported ({expected[0]}: an "
                "SGP4 element set in the TEME frame)"
            )
    elements, tle = data.mean_elements, data.tle_parameters
    if elements is None or tle is None:
        block = "mean elements" if elements is None else "TLE parameters"
        raise ValueError(f"{where}: the {block} block is missing (an SGP4 OMM has both)")
    number = {}
    for keyword in (
        "mean_motion",
        "eccentricity",
        "inclination",
        "ra_of_asc_node",
        "arg_of_pericenter",
        "mean_anomaly",
    ):
        value = _field(elements, keyword, where)
        _units(value, _UNITS[keyword], f"{where}, {keyword.upper()}")
        number[keyword] = _number(value, f"{where}, {keyword.upper()}")
    for keyword, (low, high, closed) in _ELEMENT_RANGES.items():
        if not (low <= number[keyword] <= high if closed else low <= number[keyword] < high):
            interval = f"[{low:g}, {high:g}{']' if closed else ')'}"
            raise ValueError(
                f"{where}, {keyword.upper()}: {number[keyword]!r} is outside {interval}"
            )
    if number["mean_motion"] <= 0.0:
        raise ValueError(f"{where}, MEAN_MOTION: {number['mean_motion']!r} is not positive")
    for keyword in ("ra_of_asc_node", "arg_of_pericenter", "mean_anomaly"):
        number[keyword] %= 360.0  # an angle: any value is the angle modulo 360 deg
    for keyword, required in (
        ("bstar", True),
        ("mean_motion_dot", True),
        ("mean_motion_ddot", False),
    ):
        value = _field(tle, keyword, where, required)
        _units(value, _UNITS[keyword], f"{where}, {keyword.upper()}")
        number[keyword] = 0.0 if value is None else _number(value, f"{where}, {keyword.upper()}")
    catalogue = _integer(_field(tle, "norad_cat_id", where), f"{where}, NORAD_CAT_ID", None)
    if not 0 < catalogue <= MAX_TLE_CATALOGUE_NUMBER:
        raise ValueError(
            f"{where}, NORAD_CAT_ID: {catalogue} cannot be written in a TLE (1 to "
            f"{MAX_TLE_CATALOGUE_NUMBER}, Alpha-5 above 99999)"
        )
    epoch_jd, _ = parse_time_tags([elements.epoch], f"{where}, EPOCH")
    satrec = Satrec()
    classification = _value(tle.classification_type, f"{where}, CLASSIFICATION_TYPE") or "U"
    satrec.classification = classification
    object_id = _value(meta.object_id, f"{where}, OBJECT_ID") or ""
    designator = _INTERNATIONAL_DESIGNATOR.fullmatch(object_id)
    satrec.intldesg = "".join(designator.group(2, 3, 4)) if designator else ""
    satrec.ephtype = _integer(tle.ephemeris_type, f"{where}, EPHEMERIS_TYPE", 0)
    # The TLE's element set number (4 digits) and revolution number (5 digits) wrap.
    satrec.elnum = _integer(tle.element_set_no, f"{where}, ELEMENT_SET_NO", 999) % 10_000
    satrec.revnum = _integer(tle.rev_at_epoch, f"{where}, REV_AT_EPOCH", 0) % 100_000
    # The unit conversions of sgp4.omm.initialize (see SGP4.cpp): rev/day -> rad/min.
    satrec.sgp4init(
        WGS72,
        "i",
        catalogue,
        epoch_jd - _SGP4_EPOCH_ORIGIN_JD,
        number["bstar"],
        number["mean_motion_dot"] / (_XPDOTP * 1440.0),
        number["mean_motion_ddot"] / (_XPDOTP * 1440.0 * 1440.0),
        number["eccentricity"],
        number["arg_of_pericenter"] * _TO_RADIANS,
        number["inclination"] * _TO_RADIANS,
        number["mean_anomaly"] * _TO_RADIANS,
        number["mean_motion"] / _XPDOTP,
        number["ra_of_asc_node"] * _TO_RADIANS,
    )
    try:
        line1, line2 = export_tle(satrec)
        return ElementSet(name, line1, line2)
    except (TLEError, ValueError) as error:
        raise ValueError(f"{where}: the elements do not make a valid TLE: {error}") from None


def read_omm(path):
    """Read every OMM of a file (KVN or XML) as SGP4 element sets.

    Parameters
    ----------
    path : str or path-like
        An OMM (version 2.0 or 3.0) in KVN, several KVN OMMs one after another, an OMM in
        XML, or an NDM/XML combined instantiation holding many OMMs (CelesTrak's
        ``FORMAT=XML``).

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
        Naming the file, the message (its number and ``OBJECT_NAME``) and the keyword:
        not UTF-8, not a readable OMM or no OMM in it, ``CENTER_NAME`` other than EARTH,
        ``REF_FRAME`` other than TEME, ``TIME_SYSTEM`` other than UTC,
        ``MEAN_ELEMENT_THEORY`` other than SGP4 (SGP4-XP is another theory), a missing
        element, a ``NORAD_CAT_ID`` a TLE cannot hold (above 339999), or elements SGP4
        or the TLE format rejects.

    Notes
    -----
    CCSDS 502.0-B-3, section 4; ``sgp4.api.Satrec.sgp4init`` and
    ``sgp4.exporter.export_tle`` (Vallado et al. 2006).
    """
    path, text = _read_message(path, "OMM")
    texts = [text] if text.lstrip().startswith("<") else _kvn_messages(text)
    omms = []
    for text in texts:
        tree = _parse(path, text, "OMM")
        found = _messages(tree, (ndmxml2.OmmType, ndmxml4.OmmType))
        if not found:
            raise ValueError(f"{path}: holds a CCSDS {_kind_of(tree)}, not an OMM")
        omms.extend(found)
    return [_element_set(omm, f"{path}, OMM {k}") for k, omm in enumerate(omms, 1)]


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
