"""A corpus of bad and unusual Orbit Ephemeris Messages (KVN and XML), and covariances that
are not positive semi-definite: each is read as it says, or refused in one line naming the
file, the segment, the state or covariance block (with its epoch) and the keyword.

The files are written by hand in the layout of CCSDS 502.0-B-3, section 5, and edited one
way each. A covariance is positive semi-definite when every variance is >= 0 and its
correlation matrix has no negative eigenvalue (to the tolerance of the module
docstring, 1e-8).
"""

import numpy as np
import pytest

from ssa_privacy.orbits.oem import Ephemeris, read_oem, write_oem

KVN = """\
CCSDS_OEM_VERS = 3.0
CREATION_DATE = 2024-03-01T00:00:00
ORIGINATOR = TEST
META_START
OBJECT_NAME = ISS (ZARYA)
OBJECT_ID = 1998-067A
CENTER_NAME = EARTH
REF_FRAME = TEME
TIME_SYSTEM = UTC
START_TIME = 2024-03-01T10:00:00
STOP_TIME = 2024-03-01T10:01:00
META_STOP
2024-03-01T10:00:00 6000.0 1000.0 -2000.0 1.5 7.0 -0.5
2024-03-01T10:01:00 6080.0 1410.0 -2020.0 1.2 6.9 -0.2
COVARIANCE_START
EPOCH = 2024-03-01T10:00:00
COV_REF_FRAME = TEME
4.0
1.0 9.0
0.0 0.0 1.0
1e-3 0.0 0.0 1e-6
0.0 1e-3 0.0 0.0 1e-6
0.0 0.0 1e-4 0.0 0.0 1e-6
EPOCH = 2024-03-01T10:01:00
COV_REF_FRAME = TEME
4.0
1.0 9.0
0.0 0.0 1.0
1e-3 0.0 0.0 1e-6
0.0 1e-3 0.0 0.0 1e-6
0.0 0.0 1e-4 0.0 0.0 1e-6
COVARIANCE_STOP
"""

XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<oem id="CCSDS_OEM_VERS" version="3.0">
  <header>
    <CREATION_DATE>2024-03-01T00:00:00</CREATION_DATE>
    <ORIGINATOR>TEST</ORIGINATOR>
  </header>
  <body>
    <segment>
      <metadata>
        <OBJECT_NAME>ISS (ZARYA)</OBJECT_NAME>
        <OBJECT_ID>1998-067A</OBJECT_ID>
        <CENTER_NAME>EARTH</CENTER_NAME>
        <REF_FRAME>TEME</REF_FRAME>
        <TIME_SYSTEM>UTC</TIME_SYSTEM>
        <START_TIME>2024-03-01T10:00:00</START_TIME>
        <STOP_TIME>2024-03-01T10:00:00</STOP_TIME>
      </metadata>
      <data>
        <stateVector>
          <EPOCH>2024-03-01T10:00:00</EPOCH>
          <X units="km">6000.0</X><Y>1000.0</Y><Z>-2000.0</Z>
          <X_DOT units="km/s">1.5</X_DOT><Y_DOT>7.0</Y_DOT><Z_DOT>-0.5</Z_DOT>
        </stateVector>
        <covarianceMatrix>
          <EPOCH>2024-03-01T10:00:00</EPOCH>
          <COV_REF_FRAME>TEME</COV_REF_FRAME>
          <CX_X units="km**2">4.0</CX_X>
          <CY_X>1.0</CY_X><CY_Y>9.0</CY_Y>
          <CZ_X>0.0</CZ_X><CZ_Y>0.0</CZ_Y><CZ_Z>1.0</CZ_Z>
          <CX_DOT_X units="km**2/s">1e-3</CX_DOT_X><CX_DOT_Y>0.0</CX_DOT_Y><CX_DOT_Z>0.0</CX_DOT_Z>
          <CX_DOT_X_DOT units="km**2/s**2">1e-6</CX_DOT_X_DOT>
          <CY_DOT_X>0.0</CY_DOT_X><CY_DOT_Y>1e-3</CY_DOT_Y><CY_DOT_Z>0.0</CY_DOT_Z>
          <CY_DOT_X_DOT>0.0</CY_DOT_X_DOT><CY_DOT_Y_DOT>1e-6</CY_DOT_Y_DOT>
          <CZ_DOT_X>0.0</CZ_DOT_X><CZ_DOT_Y>0.0</CZ_DOT_Y><CZ_DOT_Z>1e-4</CZ_DOT_Z>
          <CZ_DOT_X_DOT>0.0</CZ_DOT_X_DOT><CZ_DOT_Y_DOT>0.0</CZ_DOT_Y_DOT>
          <CZ_DOT_Z_DOT>1e-6</CZ_DOT_Z_DOT>
        </covarianceMatrix>
      </data>
    </segment>
  </body>
</oem>
"""

STATES = np.array(
    [[6000.0, 1000.0, -2000.0, 1.5, 7.0, -0.5], [6080.0, 1410.0, -2020.0, 1.2, 6.9, -0.2]]
)
#: The covariance of the files (positive definite: its correlation matrix's smallest
#: eigenvalue is about 0.1).
COVARIANCE = np.array(
    [
        [4.0, 1.0, 0.0, 1e-3, 0.0, 0.0],
        [1.0, 9.0, 0.0, 0.0, 1e-3, 0.0],
        [0.0, 0.0, 1.0, 0.0, 0.0, 1e-4],
        [1e-3, 0.0, 0.0, 1e-6, 0.0, 0.0],
        [0.0, 1e-3, 0.0, 0.0, 1e-6, 0.0],
        [0.0, 0.0, 1e-4, 0.0, 0.0, 1e-6],
    ]
)
#: 2024-03-01T00:00:00 UTC: the epoch read (0 h UTC of the first state's day).
DAY = 2460370.5
T0, T1 = "2024-03-01T10:00:00", "2024-03-01T10:01:00"


def _edit(text, *replacements):
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def _kvn(*replacements):
    return _edit(KVN, *replacements)


def _xml(*replacements):
    return _edit(XML, *replacements)


def test_the_covariance_of_the_files_is_positive_definite():
    assert np.all(np.linalg.eigvalsh(COVARIANCE) > 0)


# (id, text, number of states read)
READ_AS_THEY_SAY = [
    ("kvn as written", KVN, 2),
    ("xml as written", XML, 1),
    ("byte-order mark", "\ufeff" + KVN, 2),
    ("crlf line ends", KVN.replace("\n", "\r\n"), 2),
    ("comments", _kvn(("META_START\n", "META_START\nCOMMENT a\n"),
     ("META_STOP\n", "META_STOP\nCOMMENT b\n")), 2),
    ("day-of-year epochs", KVN.replace("2024-03-01T", "2024-061T"), 2),
    ("accelerations after the velocity", _kvn((f"{T0} 6000.0 1000.0 -2000.0 1.5 7.0 -0.5",
     f"{T0} 6000.0 1000.0 -2000.0 1.5 7.0 -0.5 1e-3 2e-3 3e-3"),
     (f"{T1} 6080.0 1410.0 -2020.0 1.2 6.9 -0.2",
     f"{T1} 6080.0 1410.0 -2020.0 1.2 6.9 -0.2 1e-3 2e-3 3e-3")), 2),
    ("usable times and interpolation", _kvn(("STOP_TIME = ", f"USEABLE_START_TIME = {T0}\n"
     f"USEABLE_STOP_TIME = {T1}\nSTOP_TIME = "),
     ("META_STOP", "INTERPOLATION = LAGRANGE\nINTERPOLATION_DEGREE = 1\nMETA_STOP")), 2),
    ("START_TIME before the data",
     _kvn(("START_TIME = 2024-03-01T10", "START_TIME = 2024-03-01T09")), 2),
    ("oem version 2.0", _kvn(("CCSDS_OEM_VERS = 3.0", "CCSDS_OEM_VERS = 2.0")), 2),
    ("a zero covariance", KVN.split(f"EPOCH = {T0}")[0] + f"EPOCH = {T0}\n"
     + "".join(" ".join(["0.0"] * n) + "\n" for n in range(1, 7))
     + f"EPOCH = {T1}" + KVN.split(f"EPOCH = {T1}")[1], 2),
]  # fmt: skip


@pytest.mark.parametrize(
    "text, count", [c[1:] for c in READ_AS_THEY_SAY], ids=[c[0] for c in READ_AS_THEY_SAY]
)
def test_unusual_files_are_read_as_they_say(tmp_path, text, count):
    path = tmp_path / "case.oem"
    path.write_bytes(text.encode("utf-8"))
    ephemeris = read_oem(path)
    np.testing.assert_array_equal(ephemeris.states, STATES[:count])
    assert ephemeris.epoch_jd == DAY
    np.testing.assert_allclose(ephemeris.times, [36000.0, 36060.0][:count], rtol=0, atol=1e-9)
    assert (ephemeris.object_name, ephemeris.object_id) == ("ISS (ZARYA)", "1998-067A")
    np.testing.assert_array_equal(ephemeris.covariances[-1], COVARIANCE)


# (id, text, what the one-line message holds after "<file>, segment 1, ")
REFUSED = [
    ("a negative variance", _kvn(("4.0\n1.0 9.0", "4.0\n1.0 -9.0")),
     f"covariance 1 at {T0}, CY_Y: the variance -9.0 is negative"),
    ("a correlation above 1", _kvn(("4.0\n1.0 9.0", "4.0\n7.0 9.0")),
     f"covariance 1 at {T0} is not positive semi-definite: its correlation matrix has the "
     "eigenvalue -0."),
    ("indefinite in velocity only", _kvn(("0.0 1e-3 0.0 0.0 1e-6", "0.0 1e-3 0.0 0.0 1e-6"),
     ("0.0 0.0 1e-4 0.0 0.0 1e-6\nEPOCH", "0.0 0.0 1e-4 0.0 2e-6 1e-6\nEPOCH")),
     f"covariance 1 at {T0} is not positive semi-definite"),
    ("a position in m", _xml(('<X units="km">6000.0', '<X units="m">6000000.0')),
     "state 1, X: units 'm' are not supported (expected km)"),
    ("a velocity in m/s", _xml(('<X_DOT units="km/s">1.5', '<X_DOT units="m/s">1500')),
     "state 1, X_DOT: units 'm/s' are not supported (expected km/s)"),
    ("a covariance in m**2", _xml(('<CX_X units="km**2">4.0', '<CX_X units="m**2">4e6')),
     f"covariance 1 at {T0}, CX_X: units 'm**2' are not supported (expected km**2)"),
    ("a covariance in km**2/s**2 for km**2/s", _xml(('<CX_DOT_X units="km**2/s">',
     '<CX_DOT_X units="km**2/s**2">')), "CX_DOT_X: units 'km**2/s**2' are not supported"),
    ("TIME_SYSTEM TAI", _kvn(("TIME_SYSTEM = UTC", "TIME_SYSTEM = TAI")),
     "TIME_SYSTEM: 'TAI' is not supported (UTC)"),
    ("states out of order", _kvn((f"{T1} 6080.0", "2024-03-01T09:59:00 6080.0"),
     ("START_TIME = 2024-03-01T10", "START_TIME = 2024-03-01T09")),
     f"EPOCH: 2024-03-01T09:59:00 does not follow {T0}"),
    ("a state twice", _kvn((f"{T1} 6080.0", f"{T0} 6080.0")),
     f"EPOCH: {T0} does not follow {T0}"),
    ("START_TIME after the first state", _kvn((f"START_TIME = {T0}", f"START_TIME = {T1}")),
     f"START_TIME: {T1} is after the first epoch {T0}"),
    ("STOP_TIME before the last state", _kvn((f"STOP_TIME = {T1}", f"STOP_TIME = {T0}")),
     f"STOP_TIME: {T0} is before the last epoch {T1}"),
    ("no OBJECT_NAME", _kvn(("OBJECT_NAME = ISS (ZARYA)\n", "")),
     "OBJECT_NAME, OBJECT_ID, REF_FRAME and CENTER_NAME are required"),
    ("a covariance in another frame", _kvn(("COV_REF_FRAME = TEME", "COV_REF_FRAME = RTN")),
     f"covariance 1 at {T0}, COV_REF_FRAME: 'RTN' differs from REF_FRAME 'TEME'"),
    ("not a number", _kvn((f"{T0} 6000.0", f"{T0} NaN")), "state 1, X: not a finite number"),
    ("no TIME_SYSTEM", _kvn(("TIME_SYSTEM = UTC\n", "")), "TIME_SYSTEM: missing (UTC)"),

]  # fmt: skip


@pytest.mark.parametrize("text, fragment", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_bad_files_are_refused_in_one_line(tmp_path, text, fragment):
    path = tmp_path / "case.oem"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        read_oem(path)
    message = str(error.value)
    assert message.startswith(f"{path}, segment 1"), message
    assert fragment in message, message
    assert "\n" not in message


@pytest.mark.parametrize(
    "text, fragment",
    [
        (_kvn((f"EPOCH = {T1}", "EPOCH = 2024-03-01T10:00:30")),
         "one at 2024-03-01T10:00:30 without a state"),
        (_kvn((f"EPOCH = {T1}", f"EPOCH = {T0}")), "2 covariance blocks for 2 states"),
        (_kvn((f"{T0} 6000.0", f"{T0} 6000.0 [km]")),
         "line 13: a state line: <epoch> and 6 or 9 numbers, got 7"),
        (_kvn(("0.0 0.0 1e-4 0.0 0.0 1e-6\nCOVARIANCE_STOP", "0.0 0.0 1e-4 0.0 0.0\n"
               "COVARIANCE_STOP")), "line 31: covariance row 6: 6 numbers, got 5"),
        (_kvn(("4.0\n1.0 9.0", "4.0 5.0\n1.0 9.0")), "line 18: covariance row 1: 1 numbers, got 2"),
        (_kvn((f"{T0} 6000.0 1000.0 -2000.0 1.5 7.0 -0.5",
               f"{T0} 6000.0 1000.0 -2000.0 1.5 7.0 -0.5 9.9")),
         "line 13: a state line: <epoch> and 6 or 9 numbers, got 7"),
        (KVN.replace("COVARIANCE_STOP\n", ""), "the file ends before COVARIANCE_STOP"),
        (KVN.replace("META_STOP\n", ""), "the file ends before META_STOP"),
        (_kvn((f"{T1} 6080.0", f"FOO = 1\n{T1} 6080.0")),
         "line 14: a state line: <epoch> and 6 or 9 numbers, got 2"),
        (_kvn((f"EPOCH = {T0}\n", "")),
         "line 16: COV_REF_FRAME must follow the EPOCH of its block"),
        (KVN + f"{T1} 6080.0 1410.0 -2020.0 1.2 6.9 -0.2\n",
         f"line 33: '{T1} 6080.0 1410.0 -2020.0 1.2 6.9 -0.2' after COVARIANCE_STOP"),
        (_kvn((f"EPOCH = {T0}\nCOV_REF_FRAME = TEME\n", "")),
         "line 16: '4.0' is not a covariance row after EPOCH"),
        (_kvn(("4.0\n1.0 9.0\n0.0 0.0 1.0\n", "4.0\n1.0 9.0\n")),
         "line 20: covariance row 3: 3 numbers, got 4"),
        (_kvn(("CCSDS_OEM_VERS = 3.0", "CCSDS_OEM_VERS = 1.0")),
         "line 1, CCSDS_OEM_VERS: '1.0' is not supported (2.0 or 3.0)"),
        (_kvn((f"{T0} 6000.0", f"{T0} 6000,0")), "line 13: '6000,0' is not a number"),
        (_xml(("</oem>", "")), "not a readable CCSDS OEM (XML: no element found"),
        (KVN.split("META_START")[0], "the OEM has no segment"),
        (_kvn(("OBJECT_NAME = ISS (ZARYA)", "OBJECT_NAME = ISS\t(ZARYA)")),
         "object_name must be one non-blank line of printable text, got 'ISS\\t(ZARYA)'"),
    ],
    ids=["a covariance without a state", "a covariance twice", "units in a data line",
         "a covariance row short", "a covariance row long", "seven numbers",
         "no COVARIANCE_STOP", "no META_STOP", "an unknown line in the data",
         "a covariance without EPOCH", "a state after the covariances",
         "a covariance without EPOCH and frame",
         "a covariance row missing", "version 1.0",
         "a decimal comma", "xml cut short", "no segment", "a tab in a name"],
)  # fmt: skip
def test_unreadable_files_are_named(tmp_path, text, fragment):
    path = tmp_path / "case.oem"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        read_oem(path)
    assert str(error.value).startswith(str(path)) and fragment in str(error.value), error.value
    assert "\n" not in str(error.value)


def _rotated(eigenvalues, seed=1):
    """A symmetric matrix of the given eigenvalues in a seeded random orthonormal basis."""
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(6, 6)))
    return (q * eigenvalues) @ q.T


@pytest.mark.parametrize(
    "matrix, fragment",
    [
        (np.diag([1.0, 1.0, 1.0, 1e-8, -1e-12, 1e-8]),
         r"covariances\[0\], CY_DOT_Y_DOT: the variance -1e-12 is negative"),
        (_rotated([1.0, 1.0, 1.0, 1.0, 1.0, -0.5]),
         r"covariances\[0\] is not positive semi-definite: its correlation matrix has the "
         r"eigenvalue -0\.\d+ \(below -1e-08\)"),
        (np.diag([1.0, 0.0, 1.0, 1.0, 1.0, 1.0]) + 0.5 * (np.eye(6, k=1) + np.eye(6, k=-1)),
         r"covariances\[0\] is not positive semi-definite"),
    ],
    ids=["a small negative velocity variance beside km^2", "indefinite", "zero variance"],
)  # fmt: skip
def test_covariances_that_are_not_positive_semi_definite_are_refused(tmp_path, matrix, fragment):
    """A tolerance relative to the largest entry would let the velocity variance of
    -1e-12 km^2/s^2 pass beside 1 km^2; each coordinate's own scale does not."""
    arguments = ("X", "1", "TEME", DAY, [0.0], STATES[:1], matrix[None])
    with pytest.raises(ValueError, match=fragment):
        Ephemeris(*arguments)
    with pytest.raises(ValueError, match=fragment):
        write_oem(tmp_path / "a.oem", "X", "1", DAY, [0.0], STATES[:1], matrix[None])
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "eigenvalues",
    [[1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [4.0, 2.0, 1.0, 1e-6, 1e-9, 1e-12]],
    ids=["singular", "ill-conditioned"],
)
def test_positive_semi_definite_covariances_are_kept(tmp_path, eigenvalues):
    matrix = _rotated(eigenvalues)
    path = write_oem(tmp_path / "a.oem", "X", "1", DAY, [0.0], STATES[:1], matrix[None])
    np.testing.assert_array_equal(read_oem(path).covariances[0], (matrix + matrix.T) / 2)


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"object_name": "Z\u00fcrich"}, "object_name = 'Z\u00fcrich' cannot be written in KVN"),
        ({"frame": "TEME [x]"}, r"frame = 'TEME \[x\]' cannot be written in KVN: it ends in"),
        ({"center": "E" * 240}, "makes a CENTER_NAME line of 267 characters"),
        ({"comments": ["=x"]}, r"comments\[0\] = '=x' cannot be written in KVN"),
        ({"originator": "\u00e9quipe"}, "originator = '\u00e9quipe' cannot be written"),
    ],
)  # fmt: skip
def test_kvn_refuses_names_that_would_not_read_back_and_xml_holds_them(tmp_path, change, fragment):
    arguments = {"object_name": "X", "object_id": "1", "epoch_jd": DAY, "times": [0.0],
                 "states": STATES[:1]} | change  # fmt: skip
    with pytest.raises(ValueError, match=fragment):
        write_oem(tmp_path / "a.oem", **arguments)
    assert not list(tmp_path.iterdir())
    back = read_oem(write_oem(tmp_path / "a.xml", **arguments))
    for name, value in change.items():
        if name != "originator":
            assert getattr(back, name) == (tuple(value) if name == "comments" else value)


@pytest.mark.parametrize(
    "name, written",
    [
        ("STARLINK-11186 [DTC]", "STARLINK-11186 (DTC)"),
        ("A [B] [C]", "A [B] (C)"),
        ("[X]", "(X)"),
    ],
)
def test_an_object_name_ending_in_brackets_reads_back_from_kvn(tmp_path, name, written):
    """KVN would read the brackets as units: the name is written with parentheses and
    given whole in a metadata comment, and reads back as given (the other comments too)."""
    path = write_oem(tmp_path / "a.oem", name, "1", DAY, [0.0], STATES[:1], comments=["kept"])
    lines = path.read_text().splitlines()
    assert f"COMMENT OBJECT_NAME as given: {name}" in lines
    [line] = [line for line in lines if line.startswith("OBJECT_NAME")]
    assert line.split("=", 1)[1].strip() == written
    back = read_oem(path)
    assert (back.object_name, back.comments) == (name, ("kept",))


@pytest.mark.parametrize(
    "comment",
    ["OBJECT_NAME as given: OTHER [DTC]", "OBJECT_NAME as given: ISS (ZARYA)"],
    ids=["another name", "a name without brackets"],
)
def test_a_name_comment_that_does_not_give_the_object_name_is_refused(tmp_path, comment):
    path = tmp_path / "a.oem"
    path.write_text(KVN.replace("META_START\n", f"META_START\nCOMMENT {comment}\n"))
    with pytest.raises(ValueError, match=r"a\.oem, COMMENT .* does not give OBJECT_NAME"):
        read_oem(path)
