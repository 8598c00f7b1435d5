"""OMM files as users have them: each unusual one read as CCSDS 502.0-B-3 says, each bad
one refused in one line naming the file, the line (KVN), the message and the keyword.

The reference: CelesTrak's OMM of MARIO and the TLE it was made from, both shipped in
``sgp4/tests.py`` (the KVN here holds the same values); Julian dates from ``sgp4.api.jday``.
What a TLE cannot hold is refused, never shifted: its epoch has a two-digit year, 57-99
for 1957-1999 and 00-56 for 2000-2056 (Vallado et al. 2006), and 100000-339999 are
written in Alpha-5.
"""

import re

import pytest
from sgp4.api import jday

from ssa_privacy.orbits.omm import read_omm, write_omm
from ssa_privacy.orbits.tle import _package_text

SGP4_TESTS = _package_text("tests.py")
MARIO_XML = re.search(r'MARIO_XML = """\\\n(.*?)"""', SGP4_TESTS, re.S).group(1)
MARIO_LINES = tuple(
    re.search(r'MARIO_TLE = """\\\n(.*?)"""', SGP4_TESTS, re.S).group(1).splitlines()[1:]
)
#: MARIO's OMM in KVN, one keyword a line (line k + 1 holds the k-th keyword).
FIELDS = {
    "CCSDS_OMM_VERS": "2.0",
    "CREATION_DATE": "2023-04-25T15:06:09",
    "ORIGINATOR": "18 SPCS",
    "OBJECT_NAME": "MARIO",
    "OBJECT_ID": "1998-067UQ",
    "CENTER_NAME": "EARTH",
    "REF_FRAME": "TEME",
    "TIME_SYSTEM": "UTC",
    "MEAN_ELEMENT_THEORY": "SGP4",
    "EPOCH": "2023-04-25T10:45:30.642912",
    "MEAN_MOTION": "15.99081912",
    "ECCENTRICITY": ".0014649",
    "INCLINATION": "51.6242",
    "RA_OF_ASC_NODE": "216.2930",
    "ARG_OF_PERICENTER": "331.8976",
    "MEAN_ANOMALY": "28.1241",
    "EPHEMERIS_TYPE": "0",
    "CLASSIFICATION_TYPE": "U",
    "NORAD_CAT_ID": "55123",
    "ELEMENT_SET_NO": "999",
    "REV_AT_EPOCH": "1839",
    "BSTAR": ".1568E-2",
    "MEAN_MOTION_DOT": ".787702E-2",
    "MEAN_MOTION_DDOT": ".29408E-3",
}
LAST_LINE = len(FIELDS)


def kvn(changes=None, end="\n"):
    """MARIO's KVN with keywords changed (a value of None leaves the keyword out; a value
    may carry more lines after it)."""
    fields = {**FIELDS, **(changes or {})}
    return end.join(f"{k} = {v}" for k, v in fields.items() if v is not None) + end


def line_of(text, keyword):
    """The 1-based line of ``text`` where ``keyword`` stands first."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(keyword))


def _epoch_jd(year, month, day, hour=0, minute=0, second=0.0):
    return sum(jday(year, month, day, hour, minute, second))


def _read(tmp_path, text, name="sets.omm"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path, read_omm(path)


# (id, changes, (line 1, line 2) expected or a check of the element set)
KEPT = [
    ("space-track's KVN", {}, MARIO_LINES),
    ("the standard's units", {"MEAN_MOTION": "15.99081912 [rev/day]", "INCLINATION":
     "51.6242 [deg]", "BSTAR": ".1568E-2 [1/ER]", "MEAN_MOTION_DOT": ".787702E-2 [REV/DAY**2]"},
     MARIO_LINES),
    ("OMM 3.0", {"CCSDS_OMM_VERS": "3.0"}, MARIO_LINES),
    ("comments, user-defined and covariance keywords", {"OBJECT_NAME": "MARIO\nCOMMENT a",
     "MEAN_MOTION_DDOT": ".29408E-3\nUSER_DEFINED_SOURCE = x\nCOV_REF_FRAME = TEME\nCX_X = 1.0"},
     MARIO_LINES),
    ("the epoch as a day of year, with a Z", {"EPOCH": "2023-115T10:45:30.642912Z"}, MARIO_LINES),
    ("an angle below 0 deg", {"RA_OF_ASC_NODE": "-143.7070"}, MARIO_LINES),
    ("the mean element theory in lower case", {"MEAN_ELEMENT_THEORY": "sgp4"}, MARIO_LINES),
]  # fmt: skip


@pytest.mark.parametrize("changes, lines", [c[1:] for c in KEPT], ids=[c[0] for c in KEPT])
def test_an_unusual_omm_is_read_as_the_standard_says(tmp_path, changes, lines):
    _, [element_set] = _read(tmp_path, kvn(changes))
    assert (element_set.line1, element_set.line2) == lines and element_set.name == "MARIO"


@pytest.mark.parametrize(
    "text",
    [kvn(end="\r\n"), kvn().replace(" = ", "\t=\t"), "\ufeff" + kvn(), "\ufeff" + MARIO_XML],
    ids=["CRLF", "tabs", "byte-order mark, KVN", "byte-order mark, XML"],
)
def test_line_ends_tabs_and_a_byte_order_mark_are_read(tmp_path, text):
    _, [element_set] = _read(tmp_path, text)
    assert (element_set.name, element_set.line1, element_set.line2) == ("MARIO", *MARIO_LINES)


@pytest.mark.parametrize(
    "epoch, expected",
    [
        ("1957-01-01T00:00:00", _epoch_jd(1957, 1, 1)),
        ("1999-12-31T23:59:59.99", _epoch_jd(1999, 12, 31, 23, 59, 59.99)),
        ("2000-01-01T00:00:00", _epoch_jd(2000, 1, 1)),
        ("2056-12-31T12:00:00", _epoch_jd(2056, 12, 31, 12)),
        # rounded to the TLE's 1e-8 day (864 us): the next year's first instant
        ("2024-12-31T23:59:59.9999999", _epoch_jd(2025, 1, 1)),
    ],
)
def test_an_epoch_the_tle_can_hold_is_kept(tmp_path, epoch, expected):
    """Kept to the TLE's 1e-8 day (864 us): within 432 us, and never shifted by a century."""
    _, [element_set] = _read(tmp_path, kvn({"EPOCH": epoch}))
    assert abs(element_set.epoch_jd - expected) * 86400.0 <= 432e-6 + 1e-5


@pytest.mark.parametrize(
    "number, alpha5", [(123456, "C3456"), (100000, "A0000"), (339999, "Z9999"), (0, "00000")]
)
def test_catalogue_numbers_above_99999_are_alpha5_both_ways(tmp_path, number, alpha5):
    path, [element_set] = _read(tmp_path, kvn({"NORAD_CAT_ID": str(number)}))
    assert (element_set.catalogue_number, element_set.norad_id) == (alpha5, number)
    written = write_omm(tmp_path / "back.omm", element_set)
    assert re.search(rf"^NORAD_CAT_ID\s+= {number}$", written.read_text(), re.M)
    assert read_omm(written)[0].line1 == element_set.line1


@pytest.mark.parametrize(
    "changes, column, text",
    [
        ({"CLASSIFICATION_TYPE": "C"}, 8, "C"),
        ({"CLASSIFICATION_TYPE": "S"}, 8, "S"),
        ({"ELEMENT_SET_NO": "12345"}, 65, "2345"),  # a four-digit count wraps
        ({"EPHEMERIS_TYPE": "2"}, 63, "2"),
        ({"OBJECT_ID": "UNKNOWN"}, 10, " " * 8),  # not a designator: left blank
    ],
)
def test_the_tle_parameters_are_carried_into_line_1(tmp_path, changes, column, text):
    _, [element_set] = _read(tmp_path, kvn(changes))
    assert element_set.line1[column - 1 : column - 1 + len(text)] == text


def test_a_revolution_number_above_99999_wraps_as_the_tle_count_does(tmp_path):
    _, [element_set] = _read(tmp_path, kvn({"REV_AT_EPOCH": "123456"}))
    assert element_set.line2[63:68] == "23456"


TLE_YEARS = "outside the years 1957-2056 that the two-digit epoch year of a TLE covers"
# (id, changes, keyword whose line is named (None: the message's lines), fragment)
REFUSED = [
    ("epoch 2060", {"EPOCH": "2060-04-25T10:45:30"}, "EPOCH",
     f"EPOCH: 2060-04-25T10:45:30 is {TLE_YEARS}"),
    ("epoch 1950", {"EPOCH": "1950-01-01T00:00:00"}, "EPOCH",
     f"EPOCH: 1950-01-01T00:00:00 is {TLE_YEARS}"),
    ("epoch 1956", {"EPOCH": "1956-12-31T12:00:00"}, "EPOCH", TLE_YEARS),
    ("epoch 2057", {"EPOCH": "2057-01-01T00:00:00"}, "EPOCH", TLE_YEARS),
    ("epoch rounding into 2057", {"EPOCH": "2056-12-31T23:59:59.9999"}, "EPOCH",
     "rounded to the TLE's 1e-8 day (2057-01-01T00:00:00), is outside the years 1957-2056"),
    ("epoch a leap second", {"EPOCH": "2016-12-31T23:59:60"}, "EPOCH",
     "EPOCH is not a time of day"),
    ("epoch not a date", {"EPOCH": "2023-02-30T00:00:00"}, "EPOCH", "EPOCH is not a calendar date"),
    ("no epoch", {"EPOCH": None}, None, "EPOCH: missing"),
    ("a line without '='", {"BSTAR": ".1568E-2\nHELLO WORLD"}, "HELLO",
     "'HELLO WORLD' is neither 'KEYWORD = value' nor a COMMENT line"),
    ("a colon for '='", {"MEAN_MOTION_DDOT": None, "BSTAR": ".1568E-2\nMEAN_MOTION_DDOT: 1E-3"},
     "MEAN_MOTION_DDOT", "'MEAN_MOTION_DDOT: 1E-3' is neither"),
    ("an unknown keyword", {"BSTAR": ".1568E-2\nDRAG = 3"}, "DRAG",
     "DRAG is not a keyword of an OMM"),
    ("a keyword in lower case", {"BSTAR": None, "MEAN_MOTION_DDOT": ".29408E-3\nbstar = 1E-3"},
     "bstar", "bstar is not a keyword of an OMM"),
    ("a repeated keyword", {"MEAN_MOTION_DDOT": ".29408E-3\nBSTAR = 2E-3"}, "BSTAR = 2E-3",
     "BSTAR: given twice in one OMM (first at line 22)"),
    ("version 1.0", {"CCSDS_OMM_VERS": "1.0"}, "CCSDS_OMM_VERS",
     "CCSDS_OMM_VERS: '1.0' is not an OMM version read here (2.0 or 3.0)"),
    ("an inclination in rad", {"INCLINATION": "0.901 [rad]"}, "INCLINATION",
     "INCLINATION: units 'rad' are not supported (expected deg)"),
    ("units on the eccentricity", {"ECCENTRICITY": ".0014649 [deg]"}, "ECCENTRICITY",
     "ECCENTRICITY: units 'deg' are not supported (expected none)"),
    ("mixed-case units", {"MEAN_MOTION": "15.99081912 [Rev/Day]"}, "MEAN_MOTION",
     "MEAN_MOTION: units 'Rev/Day' are not supported"),
    ("a number that is text", {"ECCENTRICITY": "abc"}, "ECCENTRICITY",
     "ECCENTRICITY: 'abc' is not a number"),
    ("NaN", {"BSTAR": "NaN"}, "BSTAR", "BSTAR: 'NaN' is not a number"),
    ("an Alpha-5 NORAD_CAT_ID", {"NORAD_CAT_ID": "C3456"}, "NORAD_CAT_ID",
     "NORAD_CAT_ID: 'C3456' is not a whole number (an OMM gives the number itself: 123456 "
     "for Alpha-5 C3456)"),
    ("a NORAD_CAT_ID with a point", {"NORAD_CAT_ID": "55123.0"}, "NORAD_CAT_ID",
     "NORAD_CAT_ID: '55123.0' is not a whole number"),
    ("NORAD_CAT_ID 340000", {"NORAD_CAT_ID": "340000"}, "NORAD_CAT_ID",
     "NORAD_CAT_ID: 340000 cannot be written in a TLE (0 to 339999, Alpha-5 above 99999)"),
    ("a negative NORAD_CAT_ID", {"NORAD_CAT_ID": "-5"}, "NORAD_CAT_ID",
     "NORAD_CAT_ID: -5 cannot be written"),
    ("classification X", {"CLASSIFICATION_TYPE": "X"}, "CLASSIFICATION_TYPE",
     "CLASSIFICATION_TYPE: 'X' is not a TLE classification (U, C, S)"),
    ("classification as a word", {"CLASSIFICATION_TYPE": "SECRET"}, "CLASSIFICATION_TYPE",
     "'SECRET' is not a TLE classification"),
    ("ephemeris type 12", {"EPHEMERIS_TYPE": "12"}, "EPHEMERIS_TYPE",
     "EPHEMERIS_TYPE: 12 does not fit the TLE's field (a digit, 0 to 9)"),
    ("a negative element set number", {"ELEMENT_SET_NO": "-1"}, "ELEMENT_SET_NO",
     "ELEMENT_SET_NO: -1 does not fit the TLE's field (a count from 0)"),
    ("a negative revolution number", {"REV_AT_EPOCH": "-1"}, "REV_AT_EPOCH",
     "REV_AT_EPOCH: -1 does not fit"),
    ("B* too large", {"BSTAR": "1.5E20"}, "BSTAR", "BSTAR: 1.5e+20 does not fit the TLE's field"),
    ("B* too small", {"BSTAR": "1.5E-12"}, "BSTAR", "BSTAR: 1.5e-12 does not fit the TLE's field"),
    ("nddot too large", {"MEAN_MOTION_DDOT": "2E9"}, "MEAN_MOTION_DDOT",
     "MEAN_MOTION_DDOT: 2000000000.0 does not fit the TLE's field"),
    ("ndot of 1.5", {"MEAN_MOTION_DOT": "1.5"}, "MEAN_MOTION_DOT",
     "MEAN_MOTION_DOT: 1.5 does not fit the TLE's field (+.NNNNNNNN: a magnitude below 1)"),
    ("a negative mean motion", {"MEAN_MOTION": "-15.99081912"}, "MEAN_MOTION",
     "MEAN_MOTION: -15.99081912 is outside [0, 100)"),
    ("a mean motion rounding to 0", {"MEAN_MOTION": "1e-9"}, "MEAN_MOTION",
     "MEAN_MOTION: 1e-09, 0.00000000 in the TLE, is not positive"),
    ("a mean motion rounding to 100", {"MEAN_MOTION": "99.999999999"}, "MEAN_MOTION",
     "MEAN_MOTION: 99.999999999, 100.00000000 in the TLE, is outside [0, 100)"),
    ("eccentricity 1", {"ECCENTRICITY": "1.0"}, "ECCENTRICITY",
     "ECCENTRICITY: 1.0 is outside [0, 1)"),
    ("eccentricity rounding to 1", {"ECCENTRICITY": "0.99999999"}, "ECCENTRICITY",
     "ECCENTRICITY: 0.99999999, 1.0000000 in the TLE, is outside [0, 1)"),
    ("a negative eccentricity", {"ECCENTRICITY": "-0.001"}, "ECCENTRICITY",
     "ECCENTRICITY: -0.001 is outside [0, 1)"),
    ("a negative inclination", {"INCLINATION": "-51.6242"}, "INCLINATION",
     "INCLINATION: -51.6242 is outside [0, 180]"),
    ("theory SGP4-XP", {"MEAN_ELEMENT_THEORY": "SGP4-XP"}, "MEAN_ELEMENT_THEORY",
     "MEAN_ELEMENT_THEORY: 'SGP4-XP' is not supported (SGP4: an SGP4 element set"),
    ("theory DSST", {"MEAN_ELEMENT_THEORY": "DSST"}, "MEAN_ELEMENT_THEORY",
     "'DSST' is not supported"),
    ("frame GCRF", {"REF_FRAME": "GCRF"}, "REF_FRAME", "REF_FRAME: 'GCRF' is not supported"),
    ("a launch year 1956", {"OBJECT_ID": "1956-067A"}, "OBJECT_ID",
     "OBJECT_ID: launch year 1956 is outside the years 1957-2056"),
    ("a tab in the name", {"OBJECT_NAME": "MA\tRIO"}, "OBJECT_NAME",
     "OBJECT_NAME: 'MA\\tRIO' is not one line of printable text"),
    ("a semi-major axis for the mean motion", {"MEAN_MOTION": None, "EPOCH":
     "2023-04-25T10:45:30.642912\nSEMI_MAJOR_AXIS = 6640.0"}, None, "MEAN_MOTION: missing"),
    ("no TLE parameters", {k: None for k in list(FIELDS)[16:]}, None,
     "the TLE parameters block is missing (an SGP4 OMM has both)"),
    ("a GM that is text", {"MEAN_MOTION_DDOT": ".29408E-3\nGM = abc"}, None,
     "not a readable CCSDS OMM (ValueError: could not convert string to float: 'abc')"),
    ("a decayed orbit", {"ECCENTRICITY": "0.99"}, None,
     "the elements do not make a valid TLE: element set 'MARIO' (catalogue number 55123), TLE "
     "line 2, mean motion (columns 53-63): SGP4 rejects the element set at its epoch"),
]  # fmt: skip


@pytest.mark.parametrize(
    "changes, keyword, fragment", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_a_bad_kvn_omm_is_refused_naming_the_line_and_the_keyword(
    tmp_path, changes, keyword, fragment
):
    text = kvn(changes)
    path = tmp_path / "bad.omm"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        read_omm(path)
    message = str(error.value)
    last = len(text.splitlines())
    where = f"line {line_of(text, keyword)}" if keyword else f"lines 1-{last}"
    assert message.startswith(f"{path}, {where}, OMM 1") and "\n" not in message
    assert fragment in message


def test_the_second_message_is_named_by_its_number_and_line(tmp_path):
    path = tmp_path / "two.omm"
    path.write_text(kvn() + "\n" + kvn({"BSTAR": "x"}))
    with pytest.raises(ValueError) as error:
        read_omm(path)
    assert (
        str(error.value) == f"{path}, line {LAST_LINE + 1 + 22}, OMM 2, BSTAR: 'x' is not a number"
    )


# (id, text replaced in CelesTrak's XML, replacement, fragment)
REFUSED_XML = [
    ("epoch 2060", "<EPOCH>2023", "<EPOCH>2060",
     f"OMM 1 (MARIO), EPOCH: 2060-04-25T10:45:30.642912 is {TLE_YEARS}"),
    ("inclination in rad", "<INCLINATION>", '<INCLINATION units="rad">',
     "OMM 1 (MARIO), INCLINATION: units 'rad' are not supported"),
    ("an Alpha-5 NORAD_CAT_ID", ">55123<", ">C3456<",
     "OMM 1 (MARIO), NORAD_CAT_ID: 'C3456' is not a whole number (an OMM gives the number "
     "itself: 123456 for Alpha-5 C3456)"),
    ("classification X", "<CLASSIFICATION_TYPE>U<", "<CLASSIFICATION_TYPE>X<",
     "OMM 1 (MARIO), CLASSIFICATION_TYPE: 'X' is not a TLE classification"),
    ("theory SGP4-XP", ">SGP4<", ">SGP4-XP<", "OMM 1 (MARIO), MEAN_ELEMENT_THEORY: 'SGP4-XP'"),
]  # fmt: skip


@pytest.mark.parametrize(
    "old, new, fragment", [c[1:] for c in REFUSED_XML], ids=[c[0] for c in REFUSED_XML]
)
def test_a_bad_xml_omm_is_refused_naming_the_message_and_the_keyword(tmp_path, old, new, fragment):
    path = tmp_path / "bad.xml"
    path.write_text(MARIO_XML.replace(old, new))
    with pytest.raises(ValueError) as error:
        read_omm(path)
    assert str(error.value).startswith(f"{path}, {fragment}")


def test_a_message_of_its_version_line_alone_is_named(tmp_path):
    path = tmp_path / "empty.omm"
    path.write_text(kvn() + "CCSDS_OMM_VERS = 2.0\n")
    with pytest.raises(ValueError) as error:
        read_omm(path)
    assert str(error.value) == f"{path}, line {LAST_LINE + 1}, OMM 2, OBJECT_NAME: missing"
