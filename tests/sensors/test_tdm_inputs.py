"""A corpus of bad and unusual Tracking Data Messages (KVN and XML): each is read as it
says, or refused in one line naming the file, the segment (observation) and the keyword.

The files are written by hand in the layout of CCSDS 503.0-B-2 (not by the package's
writer) and edited one way each. What a correct reading gives is worked out from the
standard: angles in degrees unless units say otherwise, RANGE in the RANGE_UNITS (km),
DOPPLER_INSTANTANEOUS in km/s, and, in a segment of measurements, an elevation or a
declination in [-90, 90] deg and a range >= 0.
"""

import numpy as np
import pytest

from ssa_privacy.sensors.tdm import RELEASE_COMMENT, TrackingData, read_tdm, write_tdm

KVN = """\
CCSDS_TDM_VERS = 2.0
CREATION_DATE = 2024-03-01T00:00:00
ORIGINATOR = TEST
META_START
TIME_SYSTEM = UTC
START_TIME = 2024-03-01T10:00:00
STOP_TIME = 2024-03-01T10:00:30
PARTICIPANT_1 = RADAR A
PARTICIPANT_2 = 25544
MODE = SEQUENTIAL
PATH = 1,2,1
ANGLE_TYPE = AZEL
RANGE_UNITS = km
META_STOP
DATA_START
ANGLE_1 = 2024-03-01T10:00:00 120.5
ANGLE_2 = 2024-03-01T10:00:00 30.25
RANGE = 2024-03-01T10:00:00 1200.0
DOPPLER_INSTANTANEOUS = 2024-03-01T10:00:00 -3.5
ANGLE_1 = 2024-03-01T10:00:30 121.5
ANGLE_2 = 2024-03-01T10:00:30 31.25
RANGE = 2024-03-01T10:00:30 1100.0
DOPPLER_INSTANTANEOUS = 2024-03-01T10:00:30 -3.25
DATA_STOP
"""

XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<tdm id="CCSDS_TDM_VERS" version="2.0">
  <header>
    <CREATION_DATE>2024-03-01T00:00:00</CREATION_DATE>
    <ORIGINATOR>TEST</ORIGINATOR>
  </header>
  <body>
    <segment>
      <metadata>
        <TIME_SYSTEM>UTC</TIME_SYSTEM>
        <START_TIME>2024-03-01T10:00:00</START_TIME>
        <STOP_TIME>2024-03-01T10:00:30</STOP_TIME>
        <PARTICIPANT_1>TELESCOPE B</PARTICIPANT_1>
        <PARTICIPANT_2>25544</PARTICIPANT_2>
        <MODE>SEQUENTIAL</MODE>
        <PATH>2,1</PATH>
        <ANGLE_TYPE>RADEC</ANGLE_TYPE>
        <REFERENCE_FRAME>TEME</REFERENCE_FRAME>
      </metadata>
      <data>
        <observation>
          <EPOCH>2024-03-01T10:00:00</EPOCH>
          <ANGLE_1 units="deg">200.5</ANGLE_1>
        </observation>
        <observation>
          <EPOCH>2024-03-01T10:00:00</EPOCH>
          <ANGLE_2 units="deg">-10.75</ANGLE_2>
        </observation>
        <observation>
          <EPOCH>2024-03-01T10:00:30</EPOCH>
          <ANGLE_1>201.5</ANGLE_1>
        </observation>
        <observation>
          <EPOCH>2024-03-01T10:00:30</EPOCH>
          <ANGLE_2>-9.75</ANGLE_2>
        </observation>
      </data>
    </segment>
  </body>
</tdm>
"""

#: The rows of the two files read as they say (rad, km, km/s).
KVN_ROWS = np.array(
    [
        [np.radians(120.5), np.radians(30.25), 1200.0, -3.5],
        [np.radians(121.5), np.radians(31.25), 1100.0, -3.25],
    ]
)
XML_ROWS = np.radians([[200.5, -10.75], [201.5, -9.75]])
#: The two time tags of the files.
T0, T1 = "2024-03-01T10:00:00", "2024-03-01T10:00:30"
#: 2024-03-01T00:00:00 UTC, the epoch read (0 h UTC of the first time tag's day).
DAY = 2460370.5


def _edit(text, *replacements):
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def _kvn(*replacements):
    return _edit(KVN, *replacements)


def _xml(*replacements):
    return _edit(XML, *replacements)


def _rows(base, changes):
    rows = (KVN_ROWS if base == "kvn" else XML_ROWS).copy()
    for (i, j), value in changes.items():
        rows[i, j] = value
    return rows


# (id, text, expected rows changed {(row, column): value} and release flag)
READ_AS_THEY_SAY = [
    ("kvn as written", KVN, "kvn", {}, False),
    ("xml as written", XML, "xml", {}, False),
    ("kvn angle in rad", _kvn(("10:00:00 30.25", "10:00:00 0.5 [rad]")), "kvn",
     {(0, 1): 0.5}, False),
    ("kvn azimuth in rad", _kvn(("10:00:30 121.5", "10:00:30 2.0 [rad]")), "kvn",
     {(1, 0): 2.0}, False),
    ("kvn angle in deg said", _kvn(("10:00:00 30.25", "10:00:00 30.25 [deg]")), "kvn", {},
     False),
    ("kvn units in capitals", _kvn(("10:00:00 30.25", "10:00:00 0.5 [RAD]")), "kvn",
     {(0, 1): 0.5}, False),
    ("kvn range in km said", _kvn(("10:00:00 1200.0", "10:00:00 1200.0 [km]")), "kvn", {},
     False),
    ("kvn doppler in km/s said", _kvn(("10:00:00 -3.5", "10:00:00 -3.5 [km/s]")), "kvn", {},
     False),
    ("xml angle in rad", _xml(('units="deg">-10.75', 'units="rad">-0.25')), "xml",
     {(0, 1): -0.25}, False),
    ("byte-order mark", "\ufeff" + KVN, "kvn", {}, False),
    ("crlf line ends", KVN.replace("\n", "\r\n"), "kvn", {}, False),
    ("xml with a byte-order mark", "\ufeff" + XML, "xml", {}, False),
    ("comments everywhere", _kvn(("ORIGINATOR = TEST\n", "ORIGINATOR = TEST\nCOMMENT a\n"),
     ("META_START\n", "META_START\nCOMMENT b\n"), ("DATA_START\n", "DATA_START\nCOMMENT c\n")),
     "kvn", {}, False),
    ("day-of-year time tags", KVN.replace("2024-03-01T", "2024-061T"), "kvn", {}, False),
    ("time tags ending in Z", KVN.replace(":00:00\n", ":00:00Z\n").replace(
        "10:00:00 ", "10:00:00Z "), "kvn", {}, False),
    ("no START_TIME or STOP_TIME", _kvn(("START_TIME = 2024-03-01T10:00:00\n", ""),
     ("STOP_TIME = 2024-03-01T10:00:30\n", "")), "kvn", {}, False),
    ("START_TIME before the data",
     _kvn(("START_TIME = 2024-03-01T10", "START_TIME = 2024-03-01T09")),
     "kvn", {}, False),
    ("no MODE", _kvn(("MODE = SEQUENTIAL\n", "")), "kvn", {}, False),
    ("no RANGE_UNITS (km by default)", _kvn(("RANGE_UNITS = km\n", "")), "kvn", {}, False),
    ("participants the other way", _kvn(("PARTICIPANT_1 = RADAR A", "PARTICIPANT_1 = 25544"),
     ("PARTICIPANT_2 = 25544", "PARTICIPANT_2 = RADAR A"), ("PATH = 1,2,1", "PATH = 2,1,2")),
     "kvn", {}, False),
    ("exponents and signs", _kvn(("10:00:00 1200.0", "10:00:00 +1.2E+03")), "kvn", {}, False),
    ("an elevation of exactly 90 deg", _kvn(("10:00:00 30.25", "10:00:00 90")), "kvn",
     {(0, 1): np.pi / 2}, False),
    ("an azimuth outside [-180, 360)", _kvn(("10:00:00 120.5", "10:00:00 480.5")), "kvn",
     {(0, 0): np.radians(480.5)}, False),
    ("a release holds unphysical values", _kvn(
        ("META_START\n", f"META_START\nCOMMENT {RELEASE_COMMENT}\n"),
        ("10:00:00 30.25", "10:00:00 100.0"), ("10:00:30 1100.0", "10:00:30 -2.5")), "kvn",
     {(0, 1): np.radians(100.0), (1, 2): -2.5}, True),
    ("a release's turns, in rad", _kvn(
        ("META_START\n", f"META_START\nCOMMENT {RELEASE_COMMENT}\n"),
        ("DATA_START\n", "DATA_START\nCOMMENT ANGLE_2 at 2024-03-01T10:00:00: add -1 x 360 deg\n"),
        ("10:00:00 30.25", "10:00:00 3.0 [rad]")), "kvn", {(0, 1): 3.0 - 2 * np.pi}, True),
    ("a measured azimuth's turns", _kvn(
        ("DATA_START\n", "DATA_START\nCOMMENT ANGLE_1 at 2024-03-01T10:00:30: add 2 x 360 deg\n")),
     "kvn", {(1, 0): np.radians(121.5 + 720.0)}, False),
    ("tdm version 1.0", _kvn(("CCSDS_TDM_VERS = 2.0", "CCSDS_TDM_VERS = 1.0")), "kvn", {}, False),
    ("corrections applied", _kvn(("RANGE_UNITS = km", "RANGE_UNITS = km\n"
     "CORRECTION_RANGE = 0.5\nCORRECTIONS_APPLIED = YES")), "kvn", {}, False),
    ("zero delays and corrections", _kvn(("RANGE_UNITS = km", "RANGE_UNITS = km\n"
     "CORRECTION_RANGE = 0.0\nRECEIVE_DELAY_1 = 0\nRANGE_MODULUS = 0")), "kvn", {}, False),
    ("a comment among the data lines", _kvn((f"ANGLE_1 = {T1}", f"COMMENT x\nANGLE_1 = {T1}")),
     "kvn", {}, False),
    ("an unknown metadata keyword", _kvn(("MODE = SEQUENTIAL", "MODE = SEQUENTIAL\nFOO = 1")),
     "kvn", {}, False),
]  # fmt: skip


@pytest.mark.parametrize(
    "text, base, changes, release",
    [c[1:] for c in READ_AS_THEY_SAY],
    ids=[c[0] for c in READ_AS_THEY_SAY],
)
def test_unusual_files_are_read_as_they_say(tmp_path, text, base, changes, release):
    path = tmp_path / "case.tdm"
    path.write_bytes(text.encode("utf-8"))
    [segment] = read_tdm(path)
    np.testing.assert_allclose(segment.values, _rows(base, changes), rtol=2e-16, atol=0)
    assert segment.release is release and RELEASE_COMMENT not in segment.comments
    assert segment.epoch_jd == DAY
    np.testing.assert_allclose(segment.times, [36000.0, 36030.0], rtol=0, atol=1e-9)
    assert segment.sensor == ("RADAR A" if base == "kvn" else "TELESCOPE B")
    assert segment.object_id == "25544"


# (id, text, what the one-line message holds after "<file>, segment 1, ")
REFUSED = [
    ("kvn angle in grad", _kvn(("10:00:00 30.25", "10:00:00 30.25 [grad]")),
     "observation 2, ANGLE_2: units 'grad' are not supported"),
    ("kvn range in m", _kvn(("10:00:00 1200.0", "10:00:00 1200000.0 [m]")),
     "observation 3, RANGE: units 'm' are not supported (for RANGE: km)"),
    ("kvn doppler in m/s", _kvn(("10:00:00 -3.5", "10:00:00 -3500 [m/s]")),
     "observation 4, DOPPLER_INSTANTANEOUS: units 'm/s' are not supported"),
    ("kvn empty units", _kvn(("10:00:00 30.25", "10:00:00 30.25 []")),
     "observation 2, ANGLE_2: units '' are not supported"),
    ("xml angle in grad", _xml(('units="deg">-10.75', 'units="grad">-10.75')),
     "observation 2, ANGLE_2: units 'grad' are not supported"),
    ("an elevation of 100 deg", _kvn(("10:00:00 30.25", "10:00:00 100.0")),
     "observation 2, ANGLE_2: elevation 100 deg is outside [-90, 90] deg (a segment of "
     "measurements"),
    ("an elevation of 0.5 rad more than 90 deg", _kvn(("10:00:30 31.25", "10:00:30 2.0 [rad]")),
     "observation 6, ANGLE_2: elevation 114.591559026165 deg is outside [-90, 90] deg"),
    ("a negative range", _kvn(("10:00:30 1100.0", "10:00:30 -2.5")),
     "observation 7, RANGE: range -2.5 km is negative"),
    ("a declination of -95 deg", _xml(('units="deg">-10.75', 'units="deg">-95')),
     "observation 2, ANGLE_2: declination -95 deg is outside [-90, 90] deg"),
    ("a release's mark in the data", _kvn(
        ("DATA_START\n", f"DATA_START\nCOMMENT {RELEASE_COMMENT}\n"),
        ("10:00:00 30.25", "10:00:00 100.0")), "observation 2, ANGLE_2: elevation 100 deg"),
    ("not a number", _kvn(("10:00:00 30.25", "10:00:00 NaN")),
     "observation 2, ANGLE_2: not a finite number"),
    ("time tags out of order",
     _kvn(("START_TIME = 2024-03-01T10", "START_TIME = 2024-03-01T08"))
     .replace(f"= {T1}", "= 2024-03-01T09:00:30"),
     "EPOCH: 2024-03-01T09:00:30 does not follow 2024-03-01T10:00:00"),
    ("a keyword twice at a time tag",
     _kvn((f"DOPPLER_INSTANTANEOUS = {T0}", f"RANGE = {T0}")),
     "observation 4, RANGE: given twice at 2024-03-01T10:00:00"),
    ("a keyword missing at a time tag", _kvn((f"DOPPLER_INSTANTANEOUS = {T1} -3.25\n", "")),
     "DOPPLER_INSTANTANEOUS: missing at 2024-03-01T10:00:30"),
    ("START_TIME after the first tag",
     _kvn((f"START_TIME = {T0}", "START_TIME = 2024-03-01T10:00:10")),
     "START_TIME: 2024-03-01T10:00:10 is after the first epoch 2024-03-01T10:00:00"),
    ("STOP_TIME before the last tag",
     _kvn((f"STOP_TIME = {T1}", "STOP_TIME = 2024-03-01T10:00:10")),
     "STOP_TIME: 2024-03-01T10:00:10 is before the last epoch 2024-03-01T10:00:30"),
    ("TIME_SYSTEM TAI", _kvn(("TIME_SYSTEM = UTC", "TIME_SYSTEM = TAI")),
     "TIME_SYSTEM: 'TAI' is not supported (UTC)"),
    ("no TIME_SYSTEM", _kvn(("TIME_SYSTEM = UTC\n", "")), "TIME_SYSTEM: missing"),
    ("no PATH", _kvn(("PATH = 1,2,1\n", "")), "PATH: missing"),
    ("a three-way PATH", _kvn(("PATH = 1,2,1", "PATH = 1,2,3")), "PATH: '1,2,3' is not supported"),
    ("a third participant", _kvn(("MODE = SEQUENTIAL", "PARTICIPANT_3 = RELAY\nMODE = SEQUENTIAL")),
     "PARTICIPANT_3: only two participants are supported"),
    ("no PARTICIPANT_1", _kvn(("PARTICIPANT_1 = RADAR A\n", "")), "PARTICIPANT_1: missing"),
    ("no ANGLE_TYPE", _kvn(("ANGLE_TYPE = AZEL\n", "")), "ANGLE_TYPE: missing"),
    ("ANGLE_TYPE XSYE", _kvn(("ANGLE_TYPE = AZEL", "ANGLE_TYPE = XSYE")),
     "ANGLE_TYPE: 'XSYE' is not supported"),
    ("RANGE_UNITS in seconds", _kvn(("RANGE_UNITS = km", "RANGE_UNITS = s")),
     "RANGE_UNITS: 's' is not supported (km)"),
    ("MODE SINGLE_DIFF", _kvn(("MODE = SEQUENTIAL", "MODE = SINGLE_DIFF")),
     "MODE: 'SINGLE_DIFF' is not supported"),
    ("RADEC in EME2000", _xml(("<REFERENCE_FRAME>TEME", "<REFERENCE_FRAME>EME2000")),
     "REFERENCE_FRAME: 'EME2000' is not supported"),
    ("a keyword of another kind", _kvn((f"DOPPLER_INSTANTANEOUS = {T0}", f"MAG = {T0}")),
     "observation 4, MAG: not supported in a radar segment"),
    ("an empty data section", KVN.split("ANGLE_1")[0] + "DATA_STOP\n", "no observation"),
    ("turns of an angle never observed", _kvn(
        ("DATA_START\n", "DATA_START\nCOMMENT ANGLE_2 at 2024-03-01T10:00:15: add 1 x 360 deg\n")),
     "COMMENT 'ANGLE_2 at 2024-03-01T10:00:15: add 1 x 360 deg': no ANGLE_2 observation"),
    ("turns given twice", _kvn(
        ("DATA_START\n", "DATA_START\n" + f"COMMENT ANGLE_1 at {T1}: add 1 x 360 deg\n" * 2)),
     "the turns of ANGLE_1 at 2024-03-01T10:00:30 given twice"),
    ("a letter in a number", _kvn((f"ANGLE_1 = {T0} 120.5", f"ANGLE_1 = {T0} 12O.5")),
     "line 16, ANGLE_1: '12O.5' is not a number"),
    ("a decimal comma", _kvn((f"ANGLE_1 = {T0} 120.5", f"ANGLE_1 = {T0} 120,5")),
     "line 16, ANGLE_1: '120,5' is not a number"),
    ("a keyword in lower case", _kvn((f"ANGLE_1 = {T0}", f"angle_1 = {T0}")),
     "line 16, angle_1: not a TDM data keyword"),
    ("an unknown data keyword", _kvn((f"ANGLE_1 = {T1}", f"FOO = {T1} 1.0\nANGLE_1 = {T1}")),
     "line 20, FOO: not a TDM data keyword"),
    ("a blank in a time tag", _kvn((f"ANGLE_1 = {T0}", "ANGLE_1 = 2024-03-01 10:00:00")),
     "line 16, ANGLE_1: '2024-03-01 10:00:00 120.5' is not <time tag> <value> [units]"),
    ("no value", _kvn((f"ANGLE_1 = {T0} 120.5", f"ANGLE_1 = {T0}")),
     f"line 16, ANGLE_1: '{T0}' is not <time tag> <value> [units]"),
    ("two units", _kvn((f"ANGLE_1 = {T0} 120.5", f"ANGLE_1 = {T0} 120.5 [deg] [rad]")),
     "line 16, ANGLE_1: '2024-03-01T10:00:00 120.5 [deg] [rad]' is not <time tag> <value>"),
    ("a data line without '='", _kvn((f"ANGLE_1 = {T0} 120.5", f"ANGLE_1 {T0} 120.5")),
     f"line 16: 'ANGLE_1 {T0} 120.5' is not KEYWORD = <time tag> <value>"),
    ("a correction not applied", _kvn(("RANGE_UNITS = km", "RANGE_UNITS = km\n"
     "CORRECTION_RANGE = 0.5\nCORRECTIONS_APPLIED = NO")),
     "CORRECTION_RANGE: 0.5, given with CORRECTIONS_APPLIED = NO; read_tdm applies no"),
    ("a correction without CORRECTIONS_APPLIED", _kvn(("RANGE_UNITS = km",
     "RANGE_UNITS = km\nCORRECTION_ANGLE_2 = -0.01")),
     "CORRECTION_ANGLE_2: -0.01, given with CORRECTIONS_APPLIED = missing"),
    ("a range modulus", _kvn(("RANGE_UNITS = km", "RANGE_UNITS = km\nRANGE_MODE = CONSTANT\n"
     "RANGE_MODULUS = 1000")), "RANGE_MODULUS: 1000.0, the ranges are known only modulo it"),
    ("a receive delay", _kvn(("RANGE_UNITS = km", "RANGE_UNITS = km\nRECEIVE_DELAY_1 = 0.001")),
     "RECEIVE_DELAY_1: 0.001, a signal delay to take off the measurements"),
    ("a tab in a name", _kvn(("PARTICIPANT_1 = RADAR A", "PARTICIPANT_1 = RADAR\tA")),
     "sensor must be one non-blank line of printable text, got 'RADAR\\tA'"),
    ("a leap second", _kvn(("STOP_TIME = 2024-03-01T10:00:30", "STOP_TIME = 2016-12-31T23:59:60")),
     "STOP_TIME is not a time of day (a leap second"),
]  # fmt: skip


@pytest.mark.parametrize("text, fragment", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_bad_files_are_refused_in_one_line_naming_segment_and_keyword(tmp_path, text, fragment):
    path = tmp_path / "case.tdm"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        read_tdm(path)
    message = str(error.value)
    assert message.startswith(f"{path}, segment 1"), message
    assert fragment in message, message
    assert "\n" not in message


def test_a_second_segment_is_named(tmp_path):
    second = KVN.split("META_START")[1].replace("10:00:00 30.25", "10:00:00 100.0")
    path = tmp_path / "two.tdm"
    path.write_text(KVN + "META_START" + second)
    with pytest.raises(ValueError, match=r"two.tdm, segment 2, observation 2, ANGLE_2: elev"):
        read_tdm(path)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("CCSDS_TDM_VERS = 2.0\n", "the TDM has no segment"),
        (_xml(("</tdm>", "")), "not a readable CCSDS TDM (XML: no element found: line 41"),
        (_xml(("      </data>", "")), "not a readable CCSDS TDM (XML: mismatched tag"),
        (_kvn(("CCSDS_TDM_VERS", "CCSDS_OEM_VERS")), "holds a CCSDS OEM, not a TDM"),
        (_kvn(("CCSDS_TDM_VERS = 2.0", "CCSDS_TDM_VERS = 3.0")),
         "line 1, CCSDS_TDM_VERS: '3.0' is not supported (1.0 or 2.0)"),
        (KVN.replace("DATA_STOP\n", ""), "the file ends before DATA_STOP"),
        (_kvn(("META_STOP\n", "")), "line 14: DATA_START where META_STOP was expected"),
        (KVN + KVN.split("DATA_STOP")[0].split("META_STOP")[1] + "DATA_STOP\n",
         "line 26: DATA_START where META_START was expected"),
    ],
    ids=["no segment", "xml cut short", "xml badly nested", "another type", "version 3.0",
         "no DATA_STOP", "no META_STOP", "data without metadata"],
)  # fmt: skip
def test_unreadable_files_are_named(tmp_path, text, fragment):
    path = tmp_path / "case.tdm"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        read_tdm(path)
    assert str(error.value).startswith(str(path)) and fragment in str(error.value)
    assert "\n" not in str(error.value)


# TrackingData and the writers: what a message cannot hold is refused, naming the argument.
RADAR_ROW = [[0.1, 0.2, 1000.0, 1.0]]


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"values": [[0.1, np.radians(100.0), 1000.0, 1.0]]},
         r"values\[0, 1\]: elevation 100 deg is outside \[-90, 90\] deg \(measurements"),
        ({"values": [[0.1, 0.2, -1.0, 1.0]]}, r"values\[0, 2\]: range -1 km is negative"),
        ({"kind": "optical", "values": [[0.1, -1.6]]},
         r"values\[0, 1\]: declination -91.67\d+ deg is outside"),
        ({"comments": (RELEASE_COMMENT,)}, r"comments\[0\] is the release mark"),
        ({"sensor": "A\u2028B"}, "sensor must be one non-blank line of printable text"),
        ({"sensor": "A\tB"}, "sensor must be one non-blank line of printable text"),
        ({"object_id": "1\x00"}, "object_id must be one non-blank line of printable text"),
        ({"comments": ("a\x0bb",)}, r"comments\[0\] must be one line of printable text"),
    ],
)  # fmt: skip
def test_tracking_data_refuses_what_no_sensor_measures(change, fragment):
    arguments = {"sensor": "S", "object_id": "1", "kind": "radar", "epoch_jd": DAY,
                 "times": [0.0], "values": RADAR_ROW} | change  # fmt: skip
    with pytest.raises(ValueError, match=fragment):
        TrackingData(**arguments)


def test_release_must_be_a_bool():
    with pytest.raises(TypeError, match="release must be a bool, got str"):
        TrackingData("S", "1", "radar", DAY, [0.0], RADAR_ROW, release="yes")


def test_a_release_holds_what_no_sensor_measures(tmp_path):
    values = [[0.1, np.radians(-196.71), -1.0, 1.0]]
    release = TrackingData("S", "1", "radar", DAY, [0.0], values, release=True)
    [back] = read_tdm(write_tdm(tmp_path / "r.tdm", release))
    assert back.release
    np.testing.assert_allclose(back.values, values, rtol=4e-16)


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"sensor": "Z\u00fcrich"}, r"segments\[0\].sensor = 'Z\u00fcrich' cannot be written "
         r"in KVN: it holds '\u00fc'"),
        ({"sensor": "Radar [north]"}, r"segments\[0\].sensor = 'Radar \[north\]' cannot be "
         r"written in KVN: it ends in \[...\]"),
        ({"object_id": "x" * 240}, r"segments\[0\].object_id = 'x+' cannot be written in KVN: "
         r"it makes a PARTICIPANT_2 line of 267 characters \(KVN: 254\)"),
        ({"comments": ("= starts with an equals sign",)},
         r"segments\[0\].comments\[0\] = '= starts.*' cannot be written in KVN: it starts with"),
        ({"comments": ("c" * 250,)}, r"makes a COMMENT line of 258 characters"),
    ],
)  # fmt: skip
def test_kvn_refuses_what_would_not_read_back_and_xml_holds_it(tmp_path, change, fragment):
    arguments = {"sensor": "S", "object_id": "1", "kind": "radar", "epoch_jd": DAY,
                 "times": [0.0], "values": RADAR_ROW} | change  # fmt: skip
    data = TrackingData(**arguments)
    with pytest.raises(ValueError, match=fragment):
        write_tdm(tmp_path / "a.tdm", data)
    assert not (tmp_path / "a.tdm").exists()
    [back] = read_tdm(write_tdm(tmp_path / "a.xml", data))
    assert (back.sensor, back.object_id, back.comments) == (
        data.sensor, data.object_id, data.comments,
    )  # fmt: skip


@pytest.mark.parametrize(
    "argument, value, fragment",
    [
        ("originator", "\u00e9quipe", "originator = '\u00e9quipe' cannot be written in KVN"),
        ("comments", ["a\nb"], r"comments\[0\] must be one line of printable text"),
        ("comments", ["=x"], r"comments\[0\] = '=x' cannot be written in KVN"),
    ],
)
def test_header_values_are_checked(tmp_path, argument, value, fragment):
    data = TrackingData("S", "1", "radar", DAY, [0.0], RADAR_ROW)
    with pytest.raises(ValueError, match=fragment):
        write_tdm(tmp_path / "a.tdm", data, **{argument: value})
