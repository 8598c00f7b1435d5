"""Orbit Ephemeris Messages and CCSDS time tags: round trips to the last bit, the covariance's
lower triangle as the standard lays it out (read by ccsds-ndm itself), time tags against
astropy's UTC calendar, a hand-written OEM in the standard's layout, and named errors.
"""

import re
import socket
import warnings

import numpy as np
import pytest
from astropy.time import Time
from astropy.utils import iers
from ccsds_ndm.ndm_io import NdmIo

from ssa_privacy._internal.ccsds import parse_time_tags, time_tags
from ssa_privacy.orbits.oem import COVARIANCE_KEYWORDS, Ephemeris, read_oem, write_oem
from ssa_privacy.orbits.tle import iss_element_set

iers.conf.auto_download = False


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Everything here is offline (astropy included): a connection attempt fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)


ISS = iss_element_set()
TIMES = np.arange(0.0, 5400.0, 60.0)  # a revolution, every minute
STATES = ISS.propagate(TIMES)


def _covariances(count, seed=3):
    """Seeded symmetric positive definite covariances (km^2, km^2/s, km^2/s^2 blocks)."""
    rng = np.random.default_rng(seed)
    scale = np.array([0.1, 0.1, 0.1, 1e-4, 1e-4, 1e-4])  # 100 m, 10 cm/s
    factors = rng.normal(size=(count, 6, 6)) * scale[:, None]
    return factors @ factors.transpose(0, 2, 1) + np.diag(scale**2) * 1e-3


COVARIANCES = _covariances(TIMES.size)


@pytest.mark.parametrize("name", ["track.oem", "track.xml"])
def test_states_and_covariances_round_trip_exactly(tmp_path, name):
    path = write_oem(
        tmp_path / name, "ISS (ZARYA)", "1998-067A", ISS.epoch_jd, TIMES, STATES,
        COVARIANCES, comments=["EKF estimate, privatized radar network"],
    )  # fmt: skip
    ephemeris = read_oem(path)
    assert (ephemeris.object_name, ephemeris.object_id) == ("ISS (ZARYA)", "1998-067A")
    assert (ephemeris.frame, ephemeris.center) == ("TEME", "EARTH")
    assert ephemeris.comments == ("EKF estimate, privatized radar network",)
    # the same instants; the epoch read is 0 h UTC of the first state's day
    assert ephemeris.epoch_jd == np.floor(ISS.epoch_jd - 0.5) + 0.5
    assert time_tags(ephemeris.epoch_jd, ephemeris.times) == time_tags(ISS.epoch_jd, TIMES)
    np.testing.assert_array_equal(ephemeris.states, STATES)
    np.testing.assert_array_equal(ephemeris.covariances, COVARIANCES)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_an_ephemeris_without_covariance_reads_back_none(tmp_path):
    path = write_oem(tmp_path / "a.oem", "ISS", "25544", ISS.epoch_jd, TIMES, STATES)
    ephemeris = read_oem(path)
    assert ephemeris.covariances is None
    np.testing.assert_array_equal(ephemeris.states, STATES)


def test_start_and_stop_time_bound_the_states(tmp_path):
    """START_TIME and STOP_TIME are the first and last states' epochs (CCSDS 502.0-B-3:
    the span of the data), not the epoch t = 0; the instants read back are those written."""
    window = ISS.epoch_jd - 0.125
    path = write_oem(tmp_path / "a.oem", "ISS", "25544", window, TIMES + 10800.0, STATES)
    [segment] = NdmIo().from_path(path).body.segment
    tags = time_tags(window, TIMES + 10800.0)
    assert (segment.metadata.start_time, segment.metadata.stop_time) == (tags[0], tags[-1])
    ephemeris = read_oem(path)
    assert time_tags(ephemeris.epoch_jd, ephemeris.times) == tags


def test_the_covariance_is_the_standards_lower_triangle(tmp_path):
    """Distinct entries C[i, j] = 10 (i + 1) + (j + 1) (i >= j) land on their keywords."""
    i, j = np.indices((6, 6))
    matrix = np.where(i >= j, 10 * (i + 1) + (j + 1), 10 * (j + 1) + (i + 1)).astype(float)
    matrix += 1000.0 * np.eye(6)  # diagonally dominant: positive definite
    path = write_oem(
        tmp_path / "a.oem", "X", "1", ISS.epoch_jd, [0.0], STATES[:1], matrix[None], frame="GCRF"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        [segment] = NdmIo().from_path(path).body.segment
    [block] = segment.data.covariance_matrix
    names = ("X", "Y", "Z", "X_DOT", "Y_DOT", "Z_DOT")
    keywords = [f"C{names[i]}_{names[j]}" for i in range(6) for j in range(i + 1)]
    assert list(COVARIANCE_KEYWORDS) == keywords  # row by row, the lower triangle
    for row in range(6):
        for column in range(row + 1):
            value = getattr(block, f"c{names[row]}_{names[column]}".lower()).value
            assert value == 10 * (row + 1) + (column + 1) + 1000 * (row == column)
    assert block.cov_ref_frame == segment.metadata.ref_frame == "GCRF"
    # in KVN, rows of 1, 2, ..., 6 numbers between COVARIANCE_START and COVARIANCE_STOP
    lines = path.read_text().split("COVARIANCE_START")[1].split("COVARIANCE_STOP")[0]
    rows = [line.split() for line in lines.strip().splitlines()[2:]]
    assert [len(row) for row in rows] == [1, 2, 3, 4, 5, 6]
    assert [float(v) for v in rows[5]] == [61.0, 62.0, 63.0, 64.0, 65.0, 1066.0]


def test_time_tags_agree_with_astropy():
    """From 2017-01-13 on no leap second intervenes (the last one ended 2016): astropy's UTC
    seconds between the epoch and its tag are then the offset."""
    rng = np.random.default_rng(5)
    epochs = rng.uniform(2457766.5, 2461041.5, 200)  # 2017-01-13 to 2025-12-31
    offsets = rng.uniform(-1e6, 1e6, 200)
    tags = [time_tags(epoch, [offset])[0] for epoch, offset in zip(epochs, offsets)]
    seconds = (Time(tags, format="isot", scale="utc") - Time(epochs, format="jd")).sec
    np.testing.assert_allclose(seconds, offsets, rtol=0, atol=2e-9)


def test_a_float_julian_date_survives_its_time_tag():
    rng = np.random.default_rng(6)
    epochs = rng.uniform(2440000.5, 2470000.5, 2000)
    for epoch in epochs:
        back, times = parse_time_tags(time_tags(epoch, [0.0]))
        assert back == epoch and times[0] == 0.0


@pytest.mark.parametrize(
    "tag, seconds",
    [
        ("2020-001T00:00:00", 0.0),
        ("2020-01-01T00:00:00Z", 0.0),
        ("2020-366T23:59:59.5", 365 * 86400 + 86399.5),  # 2020 is a leap year
        ("2020-03-01T00:00:00.0000000004", 60 * 86400.0),  # below a nanosecond: rounded
        ("2020-01-01T12:00:00.123456789", 43200.123456789),
    ],
)
def test_time_tags_are_parsed(tag, seconds):
    epoch_jd, times = parse_time_tags(["2020-01-01T00:00:00", tag])
    assert epoch_jd == 2458849.5
    assert times[1] == seconds


@pytest.mark.parametrize(
    "tag, fragment",
    [
        ("2020-02-30T00:00:00", "not a calendar date"),
        ("2019-366T00:00:00", "not a calendar date"),
        ("2016-12-31T23:59:60", "leap second"),
        ("2020-01-01T24:00:00", "not a time of day"),
        ("2020-01-01 00:00:00", "must be a CCSDS time tag"),
        ("58849.0", "must be a CCSDS time tag"),
    ],
)
def test_bad_time_tags_are_named(tag, fragment):
    with pytest.raises(ValueError, match=f"EPOCH.*{fragment}"):
        parse_time_tags([tag], "EPOCH")


#: An OEM 2.0 in KVN, laid out as the examples of CCSDS 502.0-B-3 (written by hand here,
#: not by ccsds-ndm): two segments of one object, a covariance at two of the states.
HAND_WRITTEN = """\
CCSDS_OEM_VERS = 2.0
CREATION_DATE = 1996-11-04T17:22:31
ORIGINATOR = NASA/JPL

META_START
OBJECT_NAME = MARS GLOBAL SURVEYOR
OBJECT_ID = 1996-062A
CENTER_NAME = MARS BARYCENTER
REF_FRAME = EME2000
TIME_SYSTEM = UTC
START_TIME = 1996-12-18T12:00:00.331
STOP_TIME = 1996-12-18T12:02:00.331
META_STOP

COMMENT This file was produced by M.R. Somebody
1996-12-18T12:00:00.331 2789.619 -280.045 -1746.755 4.73372 -2.49586 -1.04195
1996-12-18T12:01:00.331 2783.419 -308.143 -1877.071 5.18604 -2.42124 -1.99608
1996-12-18T12:02:00.331 2776.033 -336.859 -2008.682 5.63678 -2.33951 -1.94687

COVARIANCE_START
EPOCH = 1996-12-18T12:00:00.331
COV_REF_FRAME = EME2000
 3.3313494e-04
 4.6189273e-04 6.7824216e-04
-3.0700078e-04 -4.2212341e-04 3.2319319e-04
-3.3493650e-07 -4.6860842e-07 2.4849495e-07 4.2960228e-10
-2.2118325e-07 -2.8641868e-07 1.7980986e-07 2.6088992e-10 1.7675147e-10
-3.0413460e-07 -4.9894969e-07 3.5403109e-07 1.8692631e-10 1.0088625e-10 6.2244443e-10
COVARIANCE_STOP

META_START
OBJECT_NAME = MARS GLOBAL SURVEYOR
OBJECT_ID = 1996-062A
CENTER_NAME = MARS BARYCENTER
REF_FRAME = EME2000
TIME_SYSTEM = UTC
START_TIME = 1996-12-28T21:29:07.267
STOP_TIME = 1996-12-28T21:30:07.267
META_STOP

1996-12-28T21:29:07.267 -2432.166 -063.042 1742.754 7.33702 -3.495867 -1.041945
1996-12-28T21:30:07.267 -2445.234 -878.141 1873.073 1.86043 -3.421256 -0.996366
"""


def test_a_hand_written_oem_is_read(tmp_path):
    path = tmp_path / "mgs.oem"
    path.write_text(HAND_WRITTEN)
    with pytest.raises(ValueError, match=r"mgs.oem: 1 covariance blocks for 5 states"):
        read_oem(path)
    lines = HAND_WRITTEN.split("COVARIANCE_START")
    path.write_text(lines[0] + HAND_WRITTEN.split("COVARIANCE_STOP")[1])
    ephemeris = read_oem(path)
    assert (ephemeris.object_name, ephemeris.frame, ephemeris.center) == (
        "MARS GLOBAL SURVEYOR",
        "EME2000",
        "MARS BARYCENTER",
    )
    assert ephemeris.comments == ("This file was produced by M.R. Somebody",)
    assert ephemeris.epoch_jd == 2450435.5  # 1996-12-18T00:00:00
    ten_days = (Time("1996-12-28T21:29:07.267") - Time("1996-12-18T12:00:00.331")).sec
    first = 43200.331
    np.testing.assert_allclose(
        ephemeris.times - first, [0, 60, 120, ten_days, ten_days + 60], rtol=0, atol=1e-9
    )
    assert ephemeris.states[3, 1] == -63.042 and ephemeris.states[4, 5] == -0.996366


def _edited(tmp_path, old, new, text=None):
    if text is None:
        text = write_oem(
            tmp_path / "good.oem", "ISS", "25544", ISS.epoch_jd, TIMES[:3], STATES[:3],
            COVARIANCES[:3],
        ).read_text()  # fmt: skip
    assert old in text
    path = tmp_path / "bad.oem"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    "old, new, fragment",
    [
        ("TIME_SYSTEM              = UTC", "TIME_SYSTEM = TAI", "segment 1, TIME_SYSTEM: 'TAI'"),
        ("COV_REF_FRAME            = TEME", "COV_REF_FRAME = RTN",
         r"segment 1, covariance 1 at \S+, COV_REF_FRAME: 'RTN' differs from REF_FRAME 'TEME'"),
    ],
)  # fmt: skip
def test_what_is_not_supported_is_named(tmp_path, old, new, fragment):
    path = _edited(tmp_path, old, new)
    with pytest.raises(ValueError, match=fragment) as error:
        read_oem(path)
    assert str(error.value).startswith(str(path))


@pytest.mark.parametrize(
    "pattern, replacement, fragment",
    [
        (r"^(\S+)\s+\S+", r"\1  abc", "line 16: 'abc' is not a number"),  # a word for a number
        (
            r"^(\S+(\s+\S+){5})\s+\S+$",
            r"\1",
            "line 16: a state line: <epoch> and 6 or 9 numbers, got 5",
        ),  # a number short
    ],
)
def test_a_bad_state_line_is_named(tmp_path, pattern, replacement, fragment):
    text = write_oem(tmp_path / "good.oem", "ISS", "25544", ISS.epoch_jd, [0.0], STATES[:1])
    text = text.read_text()
    first = time_tags(ISS.epoch_jd, [0.0])[0]
    line = next(line for line in text.splitlines() if line.startswith(first))
    path = _edited(tmp_path, line, re.sub(pattern, replacement, line), text)
    with pytest.raises(ValueError, match=fragment):
        read_oem(path)


def test_segments_of_different_objects_are_refused(tmp_path):
    text = HAND_WRITTEN.replace("OBJECT_ID = 1996-062A", "OBJECT_ID = 1996-062B", 2)
    path = _edited(tmp_path, "1996-062B\nCENTER", "1996-062A\nCENTER", text)
    with pytest.raises(ValueError, match="segment 2: .*differs from segment 1"):
        read_oem(path)


def test_another_message_type_is_refused(tmp_path):
    from ssa_privacy.sensors.tdm import TrackingData, write_tdm

    data = TrackingData("S", "1", "optical", ISS.epoch_jd, [0.0], [[0.1, 0.2]])
    path = write_tdm(tmp_path / "a.tdm", data)
    with pytest.raises(ValueError, match=r"a.tdm: holds a CCSDS TDM, not an OEM"):
        read_oem(path)
    with pytest.raises(FileNotFoundError, match="missing.oem"):
        read_oem(tmp_path / "missing.oem")


@pytest.mark.parametrize(
    "change, exception, fragment",
    [
        ({"times": TIMES[::-1]}, ValueError, "times must be strictly increasing"),
        ({"states": STATES[:, :3]}, ValueError, r"states must have shape \(90, 6\)"),
        ({"states": np.where(np.eye(90, 6) > 0, np.nan, STATES)}, ValueError, "states contains"),
        ({"covariances": COVARIANCES[:3]}, ValueError, r"covariances must have shape \(90, 6, 6"),
        ({"covariances": COVARIANCES + np.triu(np.ones((6, 6)), 1)}, ValueError,
         r"covariances\[0\] is not symmetric"),
        ({"frame": ""}, ValueError, "frame must be one non-blank line"),
        ({"object_id": 25544}, TypeError, "object_id must be a str"),
        ({"epoch_jd": np.nan}, ValueError, "epoch_jd must be a number"),
        ({"times": []}, ValueError, r"at least one epoch"),
    ],
)  # fmt: skip
def test_bad_ephemerides_are_refused(tmp_path, change, exception, fragment):
    arguments = {
        "object_name": "ISS", "object_id": "25544", "epoch_jd": ISS.epoch_jd, "times": TIMES,
        "states": STATES, "covariances": COVARIANCES, "frame": "TEME",
    } | change  # fmt: skip
    with pytest.raises(exception, match=fragment):
        write_oem(tmp_path / "a.oem", **arguments)
    with pytest.raises(exception, match=fragment):
        Ephemeris(**arguments)
    assert not list(tmp_path.iterdir())


def test_the_arrays_of_an_ephemeris_are_read_only_copies():
    states = STATES.copy()
    ephemeris = Ephemeris("ISS", "25544", "TEME", ISS.epoch_jd, TIMES, states)
    states[0, 0] = 0.0
    assert ephemeris.states[0, 0] == STATES[0, 0]
    with pytest.raises(ValueError, match="read-only"):
        ephemeris.states[0, 0] = 1.0
