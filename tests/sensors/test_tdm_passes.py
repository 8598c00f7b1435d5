"""Passes and CCSDS TDMs (sensors.tdm_passes): what reading recorded measurements
refuses (a releases TDM, objects that are not catalogue numbers, values no sensor
measures), their place on a time grid, and an object's passes written as segments."""

from types import SimpleNamespace

import numpy as np
import pytest

from ssa_privacy.sensors.tdm import TrackingData, write_tdm
from ssa_privacy.sensors.tdm_passes import (
    check_tdm_writable,
    pass_segments,
    read_measurements,
)

#: 2024-03-01T00:00:00 UTC.
START = 2460370.5
SENSORS = [SimpleNamespace(name="S", kind="radar")]


def _release_tdm(tmp_path, object_id="25544", release=True):
    values = [[0.1, np.radians(-196.71), -1.0, 1.0]] if release else [[0.1, 0.2, 900.0, 1.0]]
    data = TrackingData("S", object_id, "radar", START, [0.0], values, release=release)
    return write_tdm(tmp_path / "releases_10_logdet.tdm", data)


def test_a_releases_tdm_is_refused_as_measurements(tmp_path):
    path = _release_tdm(tmp_path)
    with pytest.raises(ValueError) as error:
        read_measurements(path, SENSORS)
    assert str(error.value).startswith(f"{path}: segment 1: a privatized release, not measurements")


@pytest.mark.parametrize(
    "object_id, norad", [("25544", 25544), ("C3456", 123456), ("A0001", 100001)]
)
def test_recorded_objects_are_catalogue_numbers_or_alpha_5(tmp_path, object_id, norad):
    recorded = read_measurements(_release_tdm(tmp_path, object_id, False), SENSORS)
    assert recorded.norad_ids == [norad]


@pytest.mark.parametrize("object_id", ["I3456", "ISS", "C345", "-1"])
def test_recorded_objects_that_are_not_catalogue_numbers_are_refused(tmp_path, object_id):
    path = _release_tdm(tmp_path, object_id, False)
    with pytest.raises(ValueError, match=f"segment 1: object '{object_id}' is not a catalogue"):
        read_measurements(path, SENSORS)


@pytest.mark.parametrize(
    "column, value, fragment",
    [
        ("ANGLE_2", "100.0", "observation 2, ANGLE_2: elevation 100 deg is outside [-90, 90] deg"),
        ("RANGE", "-5.0", "observation 3, RANGE: range -5 km is negative"),
    ],
)
def test_recorded_values_no_sensor_measures_are_refused(tmp_path, column, value, fragment):
    """Refused when the file is read, before the run (not deep in a task)."""
    text = _release_tdm(tmp_path, release=False).read_text()
    line = next(line for line in text.splitlines() if line.startswith(f"{column} "))
    path = tmp_path / "measured.tdm"
    path.write_text(text.replace(line, f"{line.rsplit(maxsplit=1)[0]}  {value}"))
    with pytest.raises(ValueError) as error:
        read_measurements(path, SENSORS)
    assert str(error.value).startswith(f"{path}, segment 1, {fragment}")


def test_recorded_measurements_land_on_the_grid(tmp_path):
    """A measurement at the window start is grid index 0; off the grid it is refused."""
    recorded = read_measurements(_release_tdm(tmp_path, release=False), SENSORS)
    times = np.arange(0.0, 120.0, 30.0)
    ((indices, values),) = recorded.on_grid(START, times)[25544].values()
    assert indices.tolist() == [0]
    np.testing.assert_allclose(values, [[0.1, 0.2, 900.0, 1.0]], rtol=1e-15)
    with pytest.raises(ValueError, match="time tags must lie on the scenario's 30 s grid"):
        recorded.on_grid(START + 7.0 / 86400.0, times)
    with pytest.raises(ValueError, match="outside the scenario's window"):
        recorded.on_grid(START + 1.0, times)


def test_pass_segments_leave_out_what_no_tdm_may_hold():
    """A measured elevation past 90 deg cannot be a segment: that pass is left out with
    its reason, the others kept in order."""
    times = np.arange(0.0, 300.0, 30.0)
    good = np.array([[0.1, 0.2, 900.0, 1.0], [0.1, 0.3, 890.0, 1.0]])
    zenith = np.array([[0.1, np.radians(90.004), 500.0, 0.0]])
    tracks = [(0, np.array([1, 2]), good), (0, np.array([5]), zenith)]
    segments, left_out = pass_segments(SENSORS, "25544", START, times, tracks)
    assert len(segments) == 1 and segments[0].times.tolist() == [30.0, 60.0]
    ((station, indices, reason),) = left_out
    assert station == 0 and indices.tolist() == [5] and "elevation" in reason


def test_a_sensor_name_no_tdm_may_hold_is_refused_before_the_run():
    check_tdm_writable(SENSORS, ("a comment",))
    with pytest.raises(ValueError, match="sensor 'Z\u00fcrich' cannot be written in a CCSDS TDM"):
        check_tdm_writable([SimpleNamespace(name="Z\u00fcrich", kind="radar")])
