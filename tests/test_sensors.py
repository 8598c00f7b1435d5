"""Ground stations, Earth rotation, measurement Jacobians, linearised models, privatized
measurements, the UKF."""

import ast
import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ssa_privacy.constants import OMEGA_EARTH, WGS84_A, WGS84_F
from ssa_privacy.estimation.ukf import OrbitTracker, measurement_mean, measurement_residual
from ssa_privacy.orbits.elements import elements_to_state
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.leakage import (
    leakage_probability,
    linear_mechanism_covariances,
    monte_carlo_leakage_probability,
)
from ssa_privacy.sensors import stations
from ssa_privacy.sensors.geodesy import EarthRotation, ecef_to_geodetic, geodetic_to_ecef
from ssa_privacy.sensors.stations import GroundStation, LinearisedMeasurement

MADRID = GroundStation("Madrid", 40.4313, -4.2480, 0.865)
CANBERRA = GroundStation("Canberra", -35.4024, 148.9813, 0.689)
WINDOW = (6.0 * 3600, 8.2 * 3600)  # two Madrid passes and one Canberra pass of the ISS


@pytest.fixture(scope="module")
def iss_pass():
    """The ISS over the window (30 s grid), its Earth rotation and the Madrid-visible epochs."""
    element_set = iss_element_set()
    earth = EarthRotation(element_set.gmst_epoch)
    model = J2Propagator()
    start = model.propagate([0.0, WINDOW[0]], element_set.state_at_epoch())[-1]
    times = np.arange(WINDOW[0], WINDOW[1], 30.0)
    states = model.propagate(times, start)
    return times, states, earth, np.flatnonzero(MADRID.visible(states, times, earth))


def test_geodetic_reference_points():
    b = WGS84_A * (1 - WGS84_F)
    np.testing.assert_allclose(geodetic_to_ecef(0.0, 0.0, 0.0), [WGS84_A, 0, 0], atol=1e-9)
    np.testing.assert_allclose(geodetic_to_ecef(90.0, 0.0, 1.0), [0, 0, b + 1.0], atol=1e-9)
    np.testing.assert_allclose(geodetic_to_ecef(0.0, 90.0, 2.0), [0, WGS84_A + 2, 0], atol=1e-9)


@settings(max_examples=80, deadline=None)
@given(lat=st.floats(-89.9, 89.9), lon=st.floats(-179.9, 179.9), alt=st.floats(-0.5, 2000.0))
def test_geodetic_round_trip(lat, lon, alt):
    got = ecef_to_geodetic(geodetic_to_ecef(lat, lon, alt))
    np.testing.assert_allclose(got, (lat, lon, alt), atol=1e-8)


def test_earth_fixed_points_have_zero_velocity_in_the_rotating_frame():
    earth = EarthRotation(0.3)
    site = MADRID.ecef
    times = np.array([0.0, 1000.0, 40000.0])
    eci = earth.ecef_to_eci_position(np.tile(site, (3, 1)), times)
    velocity = np.cross([0.0, 0.0, OMEGA_EARTH], eci)
    ecef = earth.eci_to_ecef(np.hstack([eci, velocity]), times)
    np.testing.assert_allclose(ecef[:, :3], np.tile(site, (3, 1)), atol=1e-9)
    np.testing.assert_allclose(ecef[:, 3:], 0.0, atol=1e-15)


def test_satellite_at_the_zenith_and_due_north():
    earth = EarthRotation(0.0)
    up = MADRID.enu_rotation[2]
    north = MADRID.enu_rotation[1]
    overhead = np.concatenate([MADRID.ecef + 500.0 * up, np.zeros(3)])
    overhead[3:] = np.cross([0.0, 0.0, OMEGA_EARTH], overhead[:3])  # at rest on the Earth
    z = MADRID.measure(overhead, 0.0, earth)
    assert z[1] == pytest.approx(np.pi / 2)
    assert z[2] == pytest.approx(500.0)
    assert z[3] == pytest.approx(0.0, abs=1e-12)
    northward = np.concatenate([MADRID.ecef + 800.0 * north + 100.0 * up, np.zeros(3)])
    z = MADRID.measure(northward, 0.0, earth)
    assert abs(np.angle(np.exp(1j * z[0]))) < 1e-12
    assert z[1] == pytest.approx(np.arctan2(100.0, 800.0))


def test_range_rate_is_the_derivative_of_range(iss_pass):
    times, states, earth, seen = iss_pass
    k = seen[len(seen) // 2]
    model = J2Propagator()
    h = 0.05  # truncation error ~ h^2 |d3 range / dt3| / 3, about 1e-8 km/s
    around = model.propagate([0.0, h, 2 * h], states[k])
    ranges = MADRID.measure(around, times[k] + np.array([0.0, h, 2 * h]), earth)[:, 2]
    derivative = (-3 * ranges[0] + 4 * ranges[1] - ranges[2]) / (2 * h)
    assert MADRID.measure(states[k], times[k], earth)[3] == pytest.approx(derivative, abs=1e-7)


def test_jacobian_matches_central_finite_differences(iss_pass):
    times, states, earth, seen = iss_pass
    steps = np.array([1e-3] * 3 + [1e-6] * 3)
    for k in seen[::4]:
        J = MADRID.jacobian(states[k], times[k], earth)
        numeric = np.empty_like(J)
        for j in range(6):
            d = np.zeros(6)
            d[j] = steps[j]
            plus, minus = (MADRID.measure(states[k] + s * d, times[k], earth) for s in (1, -1))
            numeric[:, j] = measurement_residual(plus, minus) / (2 * steps[j])
        np.testing.assert_allclose(J, numeric, rtol=1e-6, atol=1e-10)
    stacked = MADRID.jacobian(states[seen], times[seen], earth)
    np.testing.assert_allclose(stacked[0], MADRID.jacobian(states[seen[0]], times[seen[0]], earth))


def test_linearised_measurement_is_the_first_order_model_with_the_sensor_noise(iss_pass):
    times, states, earth, seen = iss_pass
    k = seen[len(seen) // 2]
    model = MADRID.linearised_measurement(states[k], times[k], earth)
    assert isinstance(model, LinearisedMeasurement)
    assert model.H.shape == (4, 6) and model.R.shape == (4, 4) and model.value.shape == (4,)
    assert model.time == times[k] and model.names == ("azimuth", "elevation", "range", "range_rate")
    np.testing.assert_array_equal(model.state, states[k])
    # R is the station's sensor noise, diag(noise_std^2), in (rad, rad, km, km/s)^2.
    np.testing.assert_array_equal(model.R, np.diag(np.square(MADRID.noise_std)))
    np.testing.assert_allclose(model.value, MADRID.measure(states[k], times[k], earth), rtol=0)
    # First order: the remainder of h(x + s d) - h(x) - s H d shrinks as s^2 (a 100 m, 10 cm/s
    # direction, halved twice); the ratio of successive remainders tends to 4.
    direction = np.array([0.06, -0.05, 0.08, 6e-5, 8e-5, -5e-5])
    remainders = []
    for scale in (1.0, 0.5, 0.25):
        moved = MADRID.measure(states[k] + scale * direction, times[k], earth)
        linear = model.value + scale * model.H @ direction
        remainders.append(np.abs(measurement_residual(moved, linear)))
    ratios = remainders[0] / remainders[1], remainders[1] / remainders[2]
    np.testing.assert_allclose(ratios, 4.0, rtol=0.05)
    # Finite differences per column (as for the Jacobian test) agree with H.
    steps = np.array([1e-3] * 3 + [1e-6] * 3)
    for j in range(6):
        d = np.zeros(6)
        d[j] = steps[j]
        plus, minus = (MADRID.measure(states[k] + s * d, times[k], earth) for s in (1, -1))
        np.testing.assert_allclose(
            model.H[:, j], measurement_residual(plus, minus) / (2 * steps[j]), rtol=1e-6, atol=1e-10
        )


def test_a_station_knows_no_privacy():
    """Sensors come before the privacy stage: stations.py imports nothing of it, and the
    wrapper ``privacy_noise`` of 0.1 is gone (design on ``linearised_measurement``)."""
    source = inspect.getsource(stations)
    imported = [
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
    ]
    assert imported and not any(name.startswith("ssa_privacy.privacy") for name in imported)
    assert "ssa_privacy.privacy" not in source
    assert not hasattr(GroundStation, "privacy_noise")


def test_visibility_follows_the_elevation_mask(iss_pass):
    times, states, earth, seen = iss_pass
    elevation = np.degrees(MADRID.measure(states, times, earth)[:, 1])
    np.testing.assert_array_equal(MADRID.visible(states, times, earth), elevation >= 10.0)
    assert 0 < len(seen) < len(times)


def test_azimuth_residual_and_mean_are_circular():
    z = np.array([0.05, 0.1, 900.0, -1.0])
    ref = np.array([2 * np.pi - 0.05, 0.1, 899.0, -1.5])
    np.testing.assert_allclose(measurement_residual(z, ref), [0.1, 0.0, 1.0, 0.5])
    sigmas = np.array([[0.02, 0.0, 1.0, 0.0], [2 * np.pi - 0.02, 0.0, 3.0, 0.0]])
    mean = measurement_mean(sigmas, np.array([0.5, 0.5]))
    assert abs(np.angle(np.exp(1j * mean[0]))) < 1e-12 and mean[2] == pytest.approx(2.0)


@pytest.mark.parametrize("convention, epsilon", [("exact", 8.0), ("exact", 12.0), ("paper", 10.0)])
def test_privatized_linearised_measurement_meets_its_pml_level(iss_pass, convention, epsilon):
    """Monte Carlo: P[l(X -> Y) > epsilon] <= delta, one-sided binomial test at level 1e-4."""
    times, states, earth, seen = iss_pass
    k = seen[len(seen) // 3]
    Sigma = np.diag([1.0, 1.0, 1.0, 1e-6, 1e-6, 1e-6])  # 1 km, 1 m/s manoeuvre prior
    delta, samples = 0.01, 200_000
    H = MADRID.linearised_measurement(states[k], times[k], earth).H
    Theta = linear_mechanism_noise(H, Sigma, epsilon, delta, convention=convention)
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(H, Sigma, Theta)
    assert leakage_probability(Sigma, Sigma_XY, Sigma_YY, epsilon) >= 1 - delta - 1e-9
    mc = monte_carlo_leakage_probability(H, Sigma, Theta, epsilon, samples, rng=11)
    assert mc.failures <= stats.binom.ppf(1 - 1e-4, samples, delta)


def test_ukf_on_noise_free_measurements_converges(iss_pass):
    times, truth, earth, _ = iss_pass
    model = J2Propagator()
    stations = (MADRID, CANBERRA)
    offset = np.array([0.8, -0.6, 0.5, 6e-4, -8e-4, 5e-4])  # km, km/s
    tracker = OrbitTracker(
        model, earth, truth[0] + offset, np.diag([1.0, 1.0, 1.0, 1e-6, 1e-6, 1e-6]), 0.0, times[0]
    )
    errors = []
    for t, state in zip(times, truth):
        tracker.predict(t)
        seen = [s for s in stations if s.visible(state, t, earth)]
        if seen:
            z = np.array([s.measure(state, t, earth) for s in seen])
            tracker.update(seen, z, [1e-4 * s.noise_covariance for s in seen])
        errors.append(np.linalg.norm(tracker.x[:3] - state[:3]))
    assert errors[0] > 1.0
    assert errors[-1] < 1e-2  # below 10 m after three noise-free passes
    assert np.linalg.eigvalsh(tracker.P[:3, :3]).max() < 1e-4


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: GroundStation("x", 95.0, 0.0), "latitude"),
        (lambda: GroundStation("x", 0.0, 0.0, elevation_mask=90.0), "elevation_mask"),
        (lambda: GroundStation("x", 0.0, 0.0, noise_std=(1.0, 1.0, 1.0)), "noise_std"),
        (lambda: EarthRotation(rate=-1.0), "rate"),
        (lambda: MADRID.measure(np.ones(5), 0.0, EarthRotation()), "states"),
        (lambda: ecef_to_geodetic([0.0, 0.0, 7000.0]), "polar axis"),
        (lambda: MADRID.linearised_measurement(np.ones((2, 6)), 0.0, EarthRotation()), "state"),
        (lambda: MADRID.linearised_measurement(np.ones(6), np.nan, EarthRotation()), "time"),
    ],
)
def test_bad_input_raises_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_tracker_rejects_bad_priors_and_backward_time():
    earth = EarthRotation()
    state = elements_to_state(7000.0, 0.01, 1.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="P0"):
        OrbitTracker(J2Propagator(), earth, state, -np.eye(6), 0.0)
    tracker = OrbitTracker(J2Propagator(), earth, state, np.eye(6), 0.0, t0=100.0)
    with pytest.raises(ValueError, match="precede"):
        tracker.predict(50.0)


# --- field of regard: azimuth sector and range limit ---------------------------------


def _at_azimuth(station, azimuth_deg, elevation_deg, distance, earth, t=0.0):
    """ECI state seen from ``station`` at the given azimuth, elevation (deg) and range (km)."""
    az, el = np.radians(azimuth_deg), np.radians(elevation_deg)
    enu = np.asarray(distance)[..., None] * np.stack(
        [np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el) * np.ones_like(az)], -1
    )
    ecef = station.ecef + enu @ station.enu_rotation
    eci = earth.ecef_to_eci_position(ecef, np.full(ecef.shape[:-1], t))
    return np.concatenate([eci, np.tile([0.0, 7.0, 1.0], eci.shape[:-1] + (1,))], axis=-1)


SECTOR_AZIMUTHS = np.array([299.9, 300.1, 310.0, 359.9, 0.0, 0.1, 20.0, 29.9, 30.1, 100.0, 200.0])


@pytest.mark.parametrize(
    "sector, inside",
    [
        # wraps through north: 300 -> 360 -> 30, 90 deg wide
        ((300.0, 30.0), [0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]),
        # the complement, not wrapping
        ((30.0, 300.0), [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]),
        # ends at north, and starts at north
        ((270.0, 360.0), [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]),
        ((0.0, 25.0), [0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0]),
        ((0.0, 360.0), [1] * 11),
    ],
)
def test_azimuth_sector_wraps_through_north(sector, inside):
    earth = EarthRotation(0.4)
    states = _at_azimuth(MADRID, SECTOR_AZIMUTHS, 45.0, 1500.0, earth)
    np.testing.assert_allclose(
        np.degrees(MADRID.measure(states, 0.0, earth)[:, 0]) % 360, SECTOR_AZIMUTHS, atol=1e-9
    )
    station = GroundStation("Madrid", 40.4313, -4.2480, 0.865, azimuth_sector=sector)
    np.testing.assert_array_equal(station.visible(states, 0.0, earth), np.array(inside, bool))
    # below the mask nothing is visible, whatever the sector
    low = _at_azimuth(MADRID, SECTOR_AZIMUTHS, 5.0, 1500.0, earth)
    assert not station.visible(low, 0.0, earth).any()


def test_range_limit_is_inclusive_and_combines_with_the_mask():
    earth = EarthRotation(0.4)
    distances = np.array([500.0, 1999.0, 2000.0, 2001.0, 4000.0])
    states = _at_azimuth(MADRID, np.full(5, 120.0), 30.0, distances, earth)
    np.testing.assert_allclose(MADRID.measure(states, 0.0, earth)[:, 2], distances, rtol=1e-12)
    station = GroundStation("Madrid", 40.4313, -4.2480, 0.865, range_max=2000.0 + 1e-6)
    np.testing.assert_array_equal(station.visible(states, 0.0, earth), [1, 1, 1, 0, 0])
    both = GroundStation(
        "Madrid", 40.4313, -4.2480, 0.865, azimuth_sector=(200.0, 100.0), range_max=3000.0
    )
    np.testing.assert_array_equal(both.visible(states, 0.0, earth), [0, 0, 0, 0, 0])


def test_default_field_of_regard_leaves_visibility_unchanged(iss_pass):
    """No sector and no range limit (the defaults) give the elevation test bit for bit; a
    full-circle sector and an unreachable range give the same answer."""
    times, states, earth, seen = iss_pass
    assert MADRID.azimuth_sector is None and MADRID.range_max is None
    elevation = MADRID.measure(states, times, earth)[:, 1]
    np.testing.assert_array_equal(MADRID.visible(states, times, earth), elevation >= np.radians(10))
    wide = GroundStation("Madrid", 40.4313, -4.2480, 0.865, azimuth_sector=(0, 360), range_max=1e6)
    np.testing.assert_array_equal(
        wide.visible(states, times, earth), MADRID.visible(states, times, earth)
    )
    assert wide.azimuth_sector == (0.0, 360.0) and wide.range_max == 1e6
    np.testing.assert_array_equal(
        wide.measure(states, times, earth), MADRID.measure(states, times, earth)
    )


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"azimuth_sector": (10.0, 10.0)}, ValueError, "azimuth_sector must have a non-zero width"),
        ({"azimuth_sector": (360.0, 0.0)}, ValueError, "azimuth_sector must have a non-zero width"),
        ({"azimuth_sector": (0.0, 400.0)}, ValueError, r"azimuth_sector must hold two azimuths"),
        ({"azimuth_sector": (-10.0, 30.0)}, ValueError, r"azimuth_sector must hold two azimuths"),
        ({"azimuth_sector": (0.0, np.nan)}, ValueError, r"azimuth_sector must hold two azimuths"),
        ({"azimuth_sector": (10.0, 20.0, 30.0)}, ValueError, "azimuth_sector must be a pair"),
        ({"azimuth_sector": 30.0}, ValueError, "azimuth_sector must be a pair"),
        ({"azimuth_sector": ("a", "b")}, TypeError, "azimuth_sector"),
        ({"range_max": 0.0}, ValueError, "range_max"),
        ({"range_max": -5.0}, ValueError, "range_max"),
        ({"range_max": np.inf}, ValueError, "range_max"),
        ({"range_max": "far"}, TypeError, "range_max"),
    ],
)
def test_bad_field_of_regard_raises_a_clear_error(kwargs, error, message):
    with pytest.raises(error, match=message):
        GroundStation("x", 0.0, 0.0, **kwargs)
