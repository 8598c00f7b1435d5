"""Many states each seen by one radar of a network at once: the radars' own measurement
and Jacobian, one state at a time, to rounding; bad input names the argument."""

import numpy as np
import pytest

from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.optical import OpticalStation
from ssa_privacy.sensors.stations import radar_measurements

STATES = np.array(
    [[7000.0, 100.0, 50.0, 0.1, 7.5, 0.2], [-3000.0, 6200.0, 1500.0, -6.0, -3.0, 2.5]] * 3
)
TIMES = np.array([0.0, 30.0, 600.0, 900.0, 3600.0, 7200.0])
EARTH = EarthRotation(0.7, ut1_utc=-0.2, polar_motion=(0.1, -0.25))


def test_each_state_is_its_radars_measurement_and_jacobian():
    stations = radar_network()
    which = np.array([0, 3, 7, 3, 1, 0])
    values, jacobians = radar_measurements(stations, which, STATES, TIMES, EARTH)
    for k, s in enumerate(which):
        value = stations[s].measure(STATES[k], TIMES[k], EARTH)
        jacobian = stations[s].jacobian(STATES[k], TIMES[k], EARTH)
        np.testing.assert_allclose(values[k], value, rtol=1e-13, atol=0)
        np.testing.assert_allclose(
            jacobians[k], jacobian, rtol=0, atol=1e-13 * np.abs(jacobian).max()
        )


@pytest.mark.parametrize(
    ("which", "error", "name"),
    [
        (np.array([0, 1]), ValueError, "which"),
        (np.array([0, 1, 2, 3, 4, 8]), ValueError, "which"),
        (np.array([0, 1, 2, 3, 4, -1]), ValueError, "which"),
        (np.full(6, 0.5), ValueError, "which"),
        (np.array([0, 1, 2, 3, 4, 5]), TypeError, "stations\\[5\\]"),
    ],
)
def test_bad_input_names_the_argument(which, error, name):
    stations = [*radar_network()[:5], OpticalStation("Tenerife", 28.3, -16.5, 2.39)]
    with pytest.raises(error, match=name):
        radar_measurements(stations, which, STATES, TIMES, EARTH)
