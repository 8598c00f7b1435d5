"""Tracking Data Messages: round trips, the ccsds-ndm library's own reading, physics of the
keywords, and errors that name the file, segment and keyword.

The measurements are those of a :class:`~ssa_privacy.sensors.stations.GroundStation` radar
and of a telescope (topocentric TEME right ascension and declination) watching the ISS
element set shipped with ``sgp4``, plus seeded noise as a privatized release adds it.
The time tags are checked against astropy's UTC calendar arithmetic, independent of the
package's own.
"""

import re
import socket
import typing
import warnings

import numpy as np
import pytest
from astropy.time import Time
from astropy.utils import iers
from ccsds_ndm import kvn_builder
from ccsds_ndm.ndm_io import NdmIo

from ssa_privacy._internal.ccsds import time_tags
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.sensors.geodesy import EarthRotation, geodetic_to_ecef
from ssa_privacy.sensors.stations import GroundStation
from ssa_privacy.sensors.tdm import RELEASE_COMMENT, TrackingData, read_tdm, write_tdm

iers.conf.auto_download = False


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Everything here is offline (astropy included): a connection attempt fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)


ISS = iss_element_set()
EARTH = EarthRotation(ISS.gmst_epoch)
STATION = GroundStation("RADAR A", 40.0, -105.0, altitude=1.6)
#: Every 30 s over a day; the samples above the horizon form the passes. (ccsds-ndm's KVN
#: reader takes about 2.6 ms per observation line: the files of the tests stay small.)
DAY = np.arange(0.0, 86400.0, 30.0)


def _passes(times):
    states = ISS.propagate(times)
    values = STATION.measure(states, times, EARTH)
    up = values[:, 1] > 0
    return times[up], states[up], values[up]


TIMES, STATES, RADAR = _passes(DAY)


def _optical(times, states):
    """Topocentric right ascension and declination (rad) in TEME of the ISS seen from the site."""
    site = geodetic_to_ecef(STATION.latitude, STATION.longitude, STATION.altitude)
    sites = EARTH.ecef_to_eci_position(np.broadcast_to(site, (times.size, 3)), times)
    rho = states[:, :3] - sites
    ra = np.mod(np.arctan2(rho[:, 1], rho[:, 0]), 2 * np.pi)
    return np.column_stack([ra, np.arcsin(rho[:, 2] / np.linalg.norm(rho, axis=1))])


def _segments():
    rng = np.random.default_rng(20)
    noisy = RADAR + rng.normal(size=RADAR.shape) * [1e-4, 1e-4, 0.02, 1e-4]
    noisy[:, 0] = np.mod(noisy[:, 0], 2 * np.pi)
    optical = _optical(TIMES[::7], STATES[::7]) + rng.normal(size=(TIMES[::7].size, 2)) * 1e-5
    optical[:, 0] = np.mod(optical[:, 0], 2 * np.pi)
    window = ISS.epoch_jd - 0.25  # t = 0 a quarter day before the element set's epoch
    shift = (ISS.epoch_jd - window) * 86400.0
    return [
        TrackingData(
            "RADAR A",
            ISS.catalogue_number,
            "radar",
            window,
            TIMES + shift,
            noisy,
            ("privatized release: level 14 nats, designer logdet",),
            release=True,
        ),
        TrackingData("RADAR A", ISS.catalogue_number, "radar", ISS.epoch_jd, TIMES, RADAR),
        TrackingData("TELESCOPE B", ISS.catalogue_number, "optical", window, TIMES[::7] + shift,
                     optical, ("optical", "two comments")),
    ]  # fmt: skip


SEGMENTS = _segments()
#: The first four radar samples, for the files that are edited into bad ones.
SMALL = TrackingData("RADAR A", "25544", "radar", ISS.epoch_jd, TIMES[:4], RADAR[:4])


def _assert_same(read, written):
    assert len(read) == len(written)
    for a, b in zip(read, written):
        assert (a.sensor, a.object_id, a.kind, a.comments, a.release) == (
            b.sensor,
            b.object_id,
            b.kind,
            b.comments,
            b.release,
        )
        # the same instants: the epoch read is 0 h UTC of the first tag's day
        assert a.epoch_jd % 1 == 0.5 and a.epoch_jd <= b.epoch_jd + b.times[0] / 86400
        assert time_tags(a.epoch_jd, a.times) == time_tags(b.epoch_jd, b.times)
        # angles through degrees: within 2 units in the last place; the rest exact
        np.testing.assert_array_max_ulp(a.values[:, :2], b.values[:, :2], maxulp=2)
        np.testing.assert_array_equal(a.values[:, 2:], b.values[:, 2:])


@pytest.mark.parametrize("name", ["passes.tdm", "passes.xml"])
def test_radar_and_optical_segments_round_trip(tmp_path, name):
    path = write_tdm(tmp_path / name, SEGMENTS, comments=["scenario: one radar, one telescope"])
    _assert_same(read_tdm(path), SEGMENTS)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary file left
    assert kvn_builder.typing is typing  # the reader's speed-up is undone after the parse


def test_kvn_and_xml_are_told_apart_by_content_not_suffix(tmp_path):
    kvn = write_tdm(tmp_path / "a.xml", SEGMENTS[:1], file_format="kvn")
    xml = write_tdm(tmp_path / "b.tdm", SEGMENTS[:1], file_format="xml")
    assert kvn.read_text().startswith("CCSDS_TDM_VERS") and xml.read_text().startswith("<?xml")
    _assert_same(read_tdm(kvn), SEGMENTS[:1])
    _assert_same(read_tdm(xml), SEGMENTS[:1])


def _library_segments(path):
    with warnings.catch_warnings():
        # TEME is outside the NDM/XML 4.0.0 enumeration: xsdata warns and keeps the text
        warnings.simplefilter("ignore")
        return NdmIo().from_path(path).body.segment


def _library_rows(segment, keywords):
    """{epoch: {keyword: value}} from the library's observations."""
    rows = {}
    for observation in segment.data.observation:
        for keyword in keywords:
            value = getattr(observation, keyword.lower())
            if value is not None:
                rows.setdefault(observation.epoch, {})[keyword] = getattr(value, "value", value)
    return rows


def _astropy_seconds(tags, epoch_jd):
    """Seconds from ``epoch_jd`` to each tag, by astropy (UTC; no leap second in between)."""
    return (Time(list(tags), format="isot", scale="utc") - Time(epoch_jd, format="jd")).sec


@pytest.mark.parametrize("name", ["radar.tdm", "radar.xml", "both.xml"])
def test_the_ccsds_ndm_reader_reads_the_same_values(tmp_path, name):
    """ccsds-ndm's own reader, units converted by hand, gives back what was written.

    Its KVN reader rejects REFERENCE_FRAME = TEME (module docstring of
    ssa_privacy.sensors.tdm), so the optical segment is read through XML only.
    """
    written = SEGMENTS if name == "both.xml" else SEGMENTS[:2]
    path = write_tdm(tmp_path / name, written)
    for segment, data in zip(_library_segments(path), written):
        meta = segment.metadata
        radar = data.kind == "radar"
        assert (meta.participant_1, meta.participant_2) == (data.sensor, data.object_id)
        assert (meta.time_system, meta.mode.value) == ("UTC", "SEQUENTIAL")
        assert meta.path == ("1,2,1" if radar else "2,1")
        assert meta.angle_type.value == ("AZEL" if radar else "RADEC")
        if radar:
            assert meta.range_units.value == "km" and meta.reference_frame is None
        else:
            assert meta.reference_frame == "TEME" and meta.range_units is None
        keywords = ["ANGLE_1", "ANGLE_2"] + ["RANGE", "DOPPLER_INSTANTANEOUS"] * radar
        rows = _library_rows(segment, keywords)
        tags = list(rows)
        values = np.array([[rows[t][k] for k in keywords] for t in tags])
        np.testing.assert_array_max_ulp(np.radians(values[:, :2]), data.values[:, :2], maxulp=2)
        np.testing.assert_array_equal(values[:, 2:], data.values[:, 2:])
        np.testing.assert_allclose(
            _astropy_seconds(tags, data.epoch_jd), data.times, rtol=0, atol=2e-9
        )
        # START_TIME and STOP_TIME bound the segment's data: its first and last time tags
        assert (meta.start_time, meta.stop_time) == (tags[0], tags[-1])
        assert (RELEASE_COMMENT in meta.comment) == data.release


def test_doppler_instantaneous_is_the_rate_of_the_range(tmp_path):
    """The written range rate is d(RANGE)/dt: positive receding, negative approaching."""
    start = TIMES[np.argmax(RADAR[:, 1])]  # the highest point of a pass, +-5 minutes
    times, _, values = _passes(np.arange(start - 300.0, start + 300.0, 1.0))
    data = TrackingData("RADAR A", "25544", "radar", ISS.epoch_jd, times, values)
    [segment] = _library_segments(write_tdm(tmp_path / "pass.xml", data))
    rows = _library_rows(segment, ["RANGE", "DOPPLER_INSTANTANEOUS"])
    seconds = _astropy_seconds(list(rows), ISS.epoch_jd)
    np.testing.assert_allclose(seconds, times, rtol=0, atol=2e-9)
    ranges = np.array([r["RANGE"] for r in rows.values()])
    rates = np.array([r["DOPPLER_INSTANTANEOUS"] for r in rows.values()])
    central = (ranges[2:] - ranges[:-2]) / 2.0  # km/s over 1 s steps
    assert np.max(np.abs(central - rates[1:-1])) < 1e-3 * np.max(np.abs(rates))
    assert rates[0] < -1.0 and rates[-1] > 1.0  # the pass approaches, then recedes


def test_the_participants_are_read_from_the_path(tmp_path):
    """Another numbering (object 1, sensor 2, PATH 2,1,2) gives the same sensor and object."""
    text = write_tdm(tmp_path / "radar.tdm", SMALL).read_text()
    swapped = (
        text.replace("PARTICIPANT_1            = RADAR A", "PARTICIPANT_1 = 25544")
        .replace("PARTICIPANT_2            = 25544", "PARTICIPANT_2 = RADAR A")
        .replace("PATH                     = 1,2,1", "PATH = 2,1,2")
    )
    assert swapped != text
    (tmp_path / "swapped.tdm").write_text(swapped)
    [data] = read_tdm(tmp_path / "swapped.tdm")
    assert (data.sensor, data.object_id) == ("RADAR A", "25544")


#: A release's angles (deg) inside and outside the TDM's [-180, 360): the written value is
#: the angle modulo 360 into [0, 360) and the turns removed, or the angle itself.
RELEASED_DEGREES = [
    (-28.6, -28.6, 0),
    (-196.71, 163.29, -1),
    (401.0, 41.0, 1),
    (-180.0, -180.0, 0),  # the lower limit is inside
    (360.0, 0.0, 1),  # the upper one is not
    (-1e6, 80.0, -2778),
]


@pytest.mark.parametrize("name", ["wrap.tdm", "wrap.xml"])
def test_release_angles_outside_the_tdm_range_round_trip_through_their_turns(tmp_path, name):
    angles = np.radians([d for d, _, _ in RELEASED_DEGREES])
    values = np.column_stack([angles, angles[::-1], -np.arange(6.0), np.ones(6)])
    data = TrackingData("S", "1", "radar", 2460000.5, np.arange(6.0), values, release=True)
    path = write_tdm(tmp_path / name, data)
    [back] = read_tdm(path)
    # within the last place of the decimal written (about 1e-16 of the angle in degrees)
    np.testing.assert_allclose(back.values[:, :2], values[:, :2], rtol=4e-16, atol=1e-300)
    np.testing.assert_array_equal(back.values[:, 2:], values[:, 2:])
    assert back.release and back.comments == ()
    # what any TDM reader sees: every angle within [-180, 360) deg, the turns in comments
    [segment] = _library_segments(path)
    rows = _library_rows(segment, ["ANGLE_1", "ANGLE_2"])
    tags = list(rows)
    for keyword, order in (("ANGLE_1", 1), ("ANGLE_2", -1)):
        written = [rows[t][keyword] for t in tags]
        expected = [w for _, w, _ in RELEASED_DEGREES[::order]]
        np.testing.assert_allclose(written, expected, rtol=1e-12, atol=1e-9)
        turns = [(t, n) for (_, _, n), t in zip(RELEASED_DEGREES[::order], tags) if n]
        for tag, n in turns:
            assert f"{keyword} at {tag}: add {n} x 360 deg" in segment.data.comment
    assert len(segment.data.comment) == 8
    assert all(-180.0 <= v < 360.0 for row in rows.values() for v in row.values())


def test_measured_azimuths_round_trip_too(tmp_path):
    """An azimuth of 7 rad (401 deg) is written as 41 deg plus one turn, read back as 7 rad."""
    values = np.array([[-0.5, 0.3, 1000.0, 1.0], [7.0, 0.3, 1000.0, 1.0]])
    data = TrackingData("S", "1", "radar", 2460000.5, [0.0, 1.0], values)
    [back] = read_tdm(write_tdm(tmp_path / "wrap.tdm", data))
    np.testing.assert_allclose(back.values[:, 0], [-0.5, 7.0], rtol=4e-16)
    assert not back.release


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = write_tdm(tmp_path / "keep.tdm", SMALL)
    before = path.read_bytes()
    with pytest.raises(TypeError, match=r"segments\[1\] must be a TrackingData"):
        write_tdm(path, [SEGMENTS[0], "not a segment"])
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.tdm"]


def test_the_creation_date_can_be_fixed(tmp_path):
    first = write_tdm(tmp_path / "a.tdm", SMALL, creation_jd=2460000.5).read_text()
    second = write_tdm(tmp_path / "b.tdm", SMALL, creation_jd=2460000.5).read_text()
    expected = Time(2460000.5, format="jd", scale="utc").isot[:19]  # 2023-02-25T00:00:00
    assert first == second and f"CREATION_DATE            = {expected}\n" in first


@pytest.mark.parametrize(
    "arguments, exception, fragment",
    [
        (("S", "1", "lidar", 0.0, [0.0], [[0.0, 0.0]]), ValueError, "kind must be one of"),
        (("S", "1", "optical", 0.0, [0.0], [[0.0, 0.0, 1.0, 0.0]]), ValueError, r"shape \(1, 2\)"),
        (("S", "1", "radar", 0.0, [0.0], [[0.0, 0.0]]), ValueError, r"shape \(1, 4\)"),
        (("S", "1", "optical", 0.0, [1.0, 0.0], [[0, 0], [0, 0]]), ValueError, "increasing"),
        (("S", "1", "optical", 0.0, [0.0], [[np.nan, 0.0]]), ValueError, "values contains non-fin"),
        (("S", "1", "optical", 0.0, [], np.zeros((0, 2))), ValueError, "at least one time"),
        (("", "1", "optical", 0.0, [0.0], [[0.0, 0.0]]), ValueError, "sensor must be one"),
        (("S", 25544, "optical", 0.0, [0.0], [[0.0, 0.0]]), TypeError, "object_id must be a str"),
        (("S", "1", "optical", np.inf, [0.0], [[0.0, 0.0]]), ValueError, "epoch_jd must be finite"),
        (("S", "1", "optical", 0.0, [0.0], [[0.0, 0.0]], ["a\nb"]), ValueError, r"comments\[0\]"),
    ],
)  # fmt: skip
def test_bad_tracking_data_is_refused(arguments, exception, fragment):
    with pytest.raises(exception, match=fragment):
        TrackingData(*arguments)


def test_bad_write_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="segments must hold at least one"):
        write_tdm(tmp_path / "a.tdm", [])
    with pytest.raises(ValueError, match="file_format must be"):
        write_tdm(tmp_path / "a.tdm", SEGMENTS[1], file_format="json")
    with pytest.raises(ValueError, match="originator must be one"):
        write_tdm(tmp_path / "a.tdm", SEGMENTS[1], originator=" ")
    assert not list(tmp_path.iterdir())


def _kvn(tmp_path, old, new, segment=SMALL):
    text = write_tdm(tmp_path / "good.tdm", segment).read_text()
    assert old in text
    path = tmp_path / "bad.tdm"
    path.write_text(text.replace(old, new, 1))
    return path


# (description, text replaced, replacement, segment, keyword and fragment of the message)
BAD_FILES = [
    ("angle type", "= AZEL", "= XSYE", 1, "ANGLE_TYPE: 'XSYE' is not supported"),
    ("range units", "RANGE_UNITS              = km", "RANGE_UNITS = RU", 1,
     "RANGE_UNITS: 'RU' is not supported"),
    ("time system", "TIME_SYSTEM              = UTC", "TIME_SYSTEM = TAI", 1,
     "TIME_SYSTEM: 'TAI' is not supported"),
    ("mode", "= SEQUENTIAL", "= SINGLE_DIFF", 1, "MODE: 'SINGLE_DIFF' is not supported"),
    ("path", "= 1,2,1", "= 1,2,3", 1, "PATH: '1,2,3' is not supported"),
    ("a keyword of another kind", "DOPPLER_INSTANTANEOUS    =", "MAG =", 1,
     "observation 4, MAG: not supported in a radar segment"),
    ("a keyword repeated", "DOPPLER_INSTANTANEOUS    =", "RANGE =", 1,
     "RANGE: given twice at"),
]  # fmt: skip


@pytest.mark.parametrize(
    "old, new, segment, fragment", [c[1:] for c in BAD_FILES], ids=[c[0] for c in BAD_FILES]
)
def test_what_is_not_understood_is_an_error_naming_file_segment_keyword(
    tmp_path, old, new, segment, fragment
):
    path = _kvn(tmp_path, old, new)
    with pytest.raises(ValueError) as error:
        read_tdm(path)
    assert str(error.value).startswith(f"{path}, segment {segment}, ")
    assert fragment in str(error.value)


def _small_optical():
    optical = SEGMENTS[2]
    return TrackingData(
        "T", "1", "optical", optical.epoch_jd, optical.times[:3], optical.values[:3]
    )


def test_optical_angles_in_another_frame_are_refused(tmp_path):
    path = _kvn(tmp_path, "= TEME", "= EME2000", _small_optical())
    with pytest.raises(ValueError, match=r"segment 1, REFERENCE_FRAME: 'EME2000' is not supp"):
        read_tdm(path)


@pytest.mark.parametrize("name", ["a.tdm", "a.xml"])
def test_angles_given_in_radians_are_converted(tmp_path, name):
    """ANGLE_2 = <tag> 0.5 [rad] (KVN) or units="rad" (XML) is 0.5 rad, not 0.5 deg."""
    data = TrackingData("S", "1", "radar", 2460000.5, [0.0], [[0.25, 0.5, 1000.0, 1.0]])
    text = write_tdm(tmp_path / name, data).read_text()
    if name.endswith(".tdm"):
        text = re.sub(r"(ANGLE_1 +=\s+\S+\s+)\S+", r"\g<1>0.25 [rad]", text)
        text = re.sub(r"(ANGLE_2 +=\s+\S+\s+)\S+", r"\g<1>0.5 [rad]", text)
    else:
        text = re.sub(r'<ANGLE_1 units="deg">[^<]*', '<ANGLE_1 units="rad">0.25', text)
        text = re.sub(r'<ANGLE_2 units="deg">[^<]*', '<ANGLE_2 units="rad">0.5', text)
    (tmp_path / name).write_text(text)
    [back] = read_tdm(tmp_path / name)
    np.testing.assert_array_equal(back.values, [[0.25, 0.5, 1000.0, 1.0]])


def test_a_time_tag_without_all_keywords_is_refused(tmp_path):
    text = write_tdm(tmp_path / "a.tdm", SMALL).read_text()
    lines = text.splitlines()
    drop = next(i for i, line in enumerate(lines) if line.startswith("DOPPLER_INSTANTANEOUS"))
    (tmp_path / "short.tdm").write_text("\n".join(lines[:drop] + lines[drop + 1 :]))
    with pytest.raises(ValueError, match=r"segment 1, DOPPLER_INSTANTANEOUS: missing at"):
        read_tdm(tmp_path / "short.tdm")


@pytest.mark.parametrize(
    "content, exception, fragment",
    [
        (None, FileNotFoundError, "not found"),
        (b"", ValueError, "the file is empty"),
        (b"CCSDS_TDM_VERS = 2.0\n\xff\n", ValueError, "line 2: the file is not UTF-8"),
        (b"this is not a message\n", ValueError, "not a readable CCSDS TDM"),
        (b"CCSDS_TDM_VERS = 2.0\nCREATION_DATE = x\n", ValueError, "the TDM has no segment"),
    ],
)
def test_an_unreadable_file_is_named(tmp_path, content, exception, fragment):
    path = tmp_path / "file.tdm"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(exception, match=fragment) as error:
        read_tdm(path)
    assert str(path) in str(error.value)


def test_another_message_type_is_refused(tmp_path):
    from ssa_privacy.orbits.oem import write_oem

    path = write_oem(tmp_path / "state.oem", "ISS", "1998-067A", ISS.epoch_jd, [0.0], STATES[:1])
    with pytest.raises(ValueError, match=r"state.oem: holds a CCSDS OEM, not a TDM"):
        read_tdm(path)
