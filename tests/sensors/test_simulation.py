"""A network measuring a truth (``sensors.simulation``): angle wrapping, sensor noise,
measurements on the nominal's branch and their refusals."""

import numpy as np
import pytest

from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.simulation import measured_passes, sensor_noise, wrap_angles
from ssa_privacy.sensors.streams import Pass

R = np.diag([4e-6, 1e-6, 1e-2, 1e-6])


def test_wrapped_angles_fall_in_minus_pi_to_pi_and_the_rest_is_kept():
    values = np.array([3 * np.pi / 2, 7.0, -3 * np.pi / 2, 7.0])
    wrapped = wrap_angles(values, np.array([True, False, True, False]))
    np.testing.assert_allclose(wrapped, [-np.pi / 2, 7.0, np.pi / 2, 7.0], rtol=1e-15)
    np.testing.assert_allclose(wrap_angles(values), [-np.pi / 2, 7.0, -3 * np.pi / 2, 7.0])
    assert values[0] == 3 * np.pi / 2  # a copy


def test_sensor_noise_has_each_pass_shape_and_the_sensor_standard_deviations():
    found = [Pass(0, np.arange(4000), np.zeros((4000, 4, 6)), R), Pass(1, np.arange(3), None, R)]
    noise = sensor_noise(found, 5)
    assert [n.shape for n in noise] == [(4000, 4), (3, 4)]
    # sample standard deviation of 4000 normals: within 4 standard errors (1/sqrt(2 n))
    ratio = noise[0].std(axis=0) / np.sqrt(np.diag(R))
    assert np.all(np.abs(ratio - 1.0) < 4.0 / np.sqrt(2 * 4000))


def test_a_noiseless_truth_on_the_nominal_measures_the_references():
    state = np.array([7000.0, 0.0, 0.0, 0.0, 1.0, 7.4])
    times = np.arange(0.0, 600.0 + 1e-9, 60.0)
    nominal = J2Propagator().propagate(times, state, 1e-10, 1e-10)
    stations, earth = radar_network(), EarthRotation()
    found = [Pass(0, np.arange(3, 6), None, R)]
    zero = [np.zeros((3, 4))]
    measured, references = measured_passes(stations, earth, times, nominal, nominal, found, zero)
    np.testing.assert_array_equal(measured[0], references[0])
    assert measured[0].shape == (12,)
    with pytest.raises(ValueError, match="truth must have shape"):
        measured_passes(stations, earth, times, nominal, nominal[:3], found, zero)
    with pytest.raises(ValueError, match="noise must hold one array per pass"):
        measured_passes(stations, earth, times, nominal, nominal, found, [])
