"""The 3D two-body + J2 propagator, orbital elements, secular rates and the SGP4 interface."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssa_privacy.constants import MU_EARTH, R_EARTH
from ssa_privacy.orbits.elements import (
    angular_momentum,
    elements_to_state,
    orbit_averaged_rates,
    state_to_elements,
)
from ssa_privacy.orbits.frames import hill_to_inertial, rsw_frame
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import iss_element_set, load_element_set, verification_element_sets

DAY = 86400.0
ECCENTRIC = dict(a=8000.0, e=0.15, i=np.radians(40.0), raan=0.7, argp=1.3, nu=0.4)


def eccentric_state():
    return elements_to_state(**ECCENTRIC)


#: Relative drift of an invariant over a day at rtol = atol = 1e-10 (measured: 2.5e-9).
INVARIANT_RTOL = 1e-8


@pytest.mark.usefixtures("propagator_backend")
def test_two_body_motion_conserves_energy_and_angular_momentum():
    model = J2Propagator(J2=0.0)
    states = model.propagate(np.linspace(0.0, DAY, 400), eccentric_state())
    energy, h = model.energy(states), angular_momentum(states)
    assert np.ptp(energy) < INVARIANT_RTOL * abs(energy[0])
    assert np.max(np.linalg.norm(h - h[0], axis=1)) < INVARIANT_RTOL * np.linalg.norm(h[0])


@pytest.mark.usefixtures("propagator_backend")
def test_j2_motion_conserves_energy_and_polar_angular_momentum_but_not_the_plane():
    model = J2Propagator()
    states = model.propagate(np.linspace(0.0, DAY, 400), eccentric_state())
    energy, h = model.energy(states), angular_momentum(states)
    assert np.ptp(energy) < INVARIANT_RTOL * abs(energy[0])
    assert np.ptp(h[:, 2]) < INVARIANT_RTOL * abs(h[0, 2])
    # The node regresses: h turns about z by about a degree per day here.
    assert np.linalg.norm(h[-1] - h[0]) > 1e-3 * np.linalg.norm(h[0])


@pytest.mark.usefixtures("propagator_backend")
def test_two_body_orbit_closes_after_one_keplerian_period():
    model = J2Propagator(J2=0.0)
    period = 2 * np.pi / model.mean_motion(ECCENTRIC["a"])
    start = eccentric_state()
    end = model.propagate([0.0, period], start)[-1]
    np.testing.assert_allclose(end, start, atol=1e-6)


@pytest.mark.usefixtures("propagator_backend")
def test_several_states_are_propagated_as_one_system_with_the_same_result():
    model = J2Propagator()
    starts = np.stack([eccentric_state(), elements_to_state(7000.0, 0.01, 1.0, 0.0, 0.0, 0.0)])
    times = np.linspace(0.0, 3000.0, 7)
    together = model.propagate(times, starts)
    assert together.shape == (2, 7, 6)
    for start, path in zip(starts, together):
        np.testing.assert_allclose(path, model.propagate(times, start), atol=1e-7)


def leo_states(count, seed):
    """ECI states of random LEO orbits: perigee and apogee altitudes in 400-1,500 km."""
    rng = np.random.default_rng(seed)
    perigee, apogee = R_EARTH + np.sort(rng.uniform(400.0, 1500.0, (2, count)), axis=0)
    a, e = (perigee + apogee) / 2, (apogee - perigee) / (apogee + perigee)
    angles = rng.uniform(0.0, 2 * np.pi, (3, count))
    return elements_to_state(a, e, np.arccos(rng.uniform(-1.0, 1.0, count)), *angles)


@pytest.mark.usefixtures("propagator_backend")
@pytest.mark.parametrize(("tolerance", "first_step"), [(1e-10, None), (1e-8, 30.0)])
def test_many_objects_are_as_accurate_as_each_object_alone(tolerance, first_step):
    """Against a 1e-13 reference, no object of the batch is worse than alone (x 1.5).

    The batch's tolerance is divided by sqrt(N), so each object's own error estimate
    meets the requested one; the global error follows the local one, up to the safety
    factor of the comparison.
    """
    model = J2Propagator()
    starts = np.vstack([leo_states(5, seed=11), eccentric_state()])
    times = np.linspace(0.0, DAY, 97)
    many = model.propagate_many(times, starts, tolerance, tolerance, first_step)
    assert many.shape == (6, 97, 6)
    for start, path in zip(starts, many, strict=True):
        reference = model.propagate(times, start, 1e-13, 1e-13)
        alone = model.propagate(times, start, tolerance, tolerance, first_step)
        scale = np.linalg.norm(reference, axis=1)
        error_many = np.max(np.linalg.norm(path - reference, axis=1) / scale)
        error_alone = np.max(np.linalg.norm(alone - reference, axis=1) / scale)
        assert error_many <= 1.5 * error_alone + 1e-12


@pytest.mark.usefixtures("propagator_backend")
def test_many_objects_on_a_zero_span_or_with_no_object():
    model = J2Propagator()
    starts = leo_states(3, seed=1)
    np.testing.assert_array_equal(model.propagate_many([5.0, 5.0], starts)[:, 1], starts)
    assert model.propagate_many([0.0, 60.0], np.zeros((0, 6))).shape == (0, 2, 6)


@pytest.mark.usefixtures("propagator_backend")
def test_an_orbit_that_reaches_the_surface_names_the_object_and_the_time():
    """With J2 fifty times the Earth's, a 100 km perigee is pulled into the surface
    within the first revolution: the error names the object and the time, in both
    propagations (the event of the integrator, not a failed step size)."""
    model = J2Propagator(J2=0.05)
    perigee, apogee = R_EARTH + 100.0, R_EARTH + 3000.0
    falling = elements_to_state(
        (perigee + apogee) / 2, (apogee - perigee) / (apogee + perigee), 1.0, 0.0, 0.0, np.pi
    )
    message = r"the orbit reaches the Earth's surface at t = (\d+\.\d) s"
    with pytest.raises(ValueError, match=r"^state0: " + message) as raised:
        model.propagate([0.0, 20000.0], falling)
    with pytest.raises(ValueError, match=r"^states0\[1\]: " + message):
        model.propagate_many([0.0, 20000.0], np.vstack([eccentric_state(), falling]))
    impact = float(re.search(message, str(raised.value)).group(1))
    before = model.propagate([0.0, impact - 1.0], falling)[-1]
    # one second before the reported time the object is just above the surface (it falls
    # at a few km/s)
    assert R_EARTH < np.linalg.norm(before[:3]) < R_EARTH + 10.0


@settings(max_examples=60, deadline=None)
@given(
    a=st.floats(6600.0, 45000.0),
    e=st.floats(1e-3, 0.9),
    i=st.floats(0.01, np.pi - 0.01),
    raan=st.floats(0.0, 2 * np.pi - 1e-6),
    argp=st.floats(0.0, 2 * np.pi - 1e-6),
    nu=st.floats(0.0, 2 * np.pi - 1e-6),
)
def test_elements_round_trip(a, e, i, raan, argp, nu):
    elements = state_to_elements(elements_to_state(a, e, i, raan, argp, nu))
    assert elements.a == pytest.approx(a, rel=1e-9)
    assert elements.e == pytest.approx(e, rel=1e-7, abs=1e-12)
    assert elements.i == pytest.approx(i, abs=1e-9)
    for got, want in ((elements.raan, raan), (elements.argp, argp), (elements.nu, nu)):
        assert abs(np.angle(np.exp(1j * (got - want)))) < 1e-7


@pytest.mark.parametrize("inclination", [28.5, 97.8])
def test_j2_secular_rates_match_the_analytic_ones_within_one_percent(inclination):
    model = J2Propagator()
    a, e = 7000.0, 0.05
    period = 2 * np.pi / model.mean_motion(a)
    times = np.arange(0.0, 3 * DAY, period / 48)
    start = elements_to_state(a, e, np.radians(inclination), 0.5, 1.0, 0.0)
    states = model.propagate(times, start)
    fitted = orbit_averaged_rates(times, states, period)
    mean = state_to_elements(states)
    analytic = model.secular_rates(np.mean(mean.a), np.mean(mean.e), np.mean(mean.i))
    for got, want in zip(fitted, analytic):
        assert got == pytest.approx(float(want), rel=0.01)


def test_rsw_frame_is_a_right_handed_rotation_with_radial_and_normal_axes():
    state = eccentric_state()
    frame = rsw_frame(state)
    np.testing.assert_allclose(frame @ frame.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(frame) == pytest.approx(1.0)
    np.testing.assert_allclose(frame[0], state[:3] / np.linalg.norm(state[:3]))
    assert frame[1] @ state[3:] > 0  # along-track points forward


def test_hill_to_inertial_maps_relative_velocity_through_the_rotating_frame():
    """d/dt of the Hill-frame relative position of two nearby orbits equals the Hill velocity."""
    model = J2Propagator(J2=0.0)
    reference = elements_to_state(7000.0, 0.0, 0.9, 0.3, 0.0, 0.2)
    hill = np.array([0.5, -1.0, 0.3, 2e-4, -1e-4, 3e-4])
    times = [0.0, 0.5, 1.0]
    chief = model.propagate(times, reference)
    deputy = model.propagate(times, reference + hill_to_inertial(reference) @ hill)
    relative = np.einsum("mij,mj->mi", rsw_frame(chief), deputy[:, :3] - chief[:, :3])
    np.testing.assert_allclose(relative[0], hill[:3], atol=1e-10)
    # Second-order one-sided difference at t = 0 (step 0.5 s).
    rate = (-3 * relative[0] + 4 * relative[1] - relative[2]) / 1.0
    np.testing.assert_allclose(rate, hill[3:], rtol=1e-4, atol=1e-9)


def test_iss_element_set_is_read_from_the_installed_package():
    iss = iss_element_set()
    assert iss.line1.startswith("1 25544U") and iss.line2.startswith("2 25544")
    assert iss.period / 60 == pytest.approx(92.9, abs=0.1)
    assert load_element_set("ISS").line1 == iss.line1
    assert "06251" in verification_element_sets()


@pytest.mark.parametrize("name", ["iss", "06251", "28057"])
def test_j2_propagation_stays_within_1_km_of_sgp4_over_the_first_orbit(name):
    """Near-circular, low-drag LEO sets; measured maxima 0.05, 0.29 and 0.23 km."""
    element_set = load_element_set(name)
    times = np.arange(0.0, element_set.period, 30.0)
    sgp4 = element_set.propagate(times)
    j2 = J2Propagator().propagate(times, sgp4[0])
    assert np.max(np.linalg.norm(j2[:, :3] - sgp4[:, :3], axis=1)) < 1.0


def test_j2_propagation_of_the_iss_stays_within_10_km_of_sgp4_over_a_day():
    """Measured 3.3 km (mostly along-track: drag and SGP4's mean-element theory)."""
    element_set = iss_element_set()
    times = np.arange(0.0, DAY + 1.0, 300.0)
    sgp4 = element_set.propagate(times)
    j2 = J2Propagator().propagate(times, sgp4[0])
    assert np.max(np.linalg.norm(j2[:, :3] - sgp4[:, :3], axis=1)) < 10.0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: J2Propagator().propagate([0.0, 1.0], eccentric_state(), rtol=1e-3), "rtol"),
        (lambda: J2Propagator().propagate([1.0, 0.0], eccentric_state()), "non-decreasing"),
        (lambda: J2Propagator().propagate([0.0, 1.0], np.ones(5)), "state0"),
        (lambda: J2Propagator(mu=-1.0), "mu"),
        (lambda: elements_to_state(7000.0, 1.2, 0.1, 0.0, 0.0, 0.0), "e .eccentricity."),
        (
            lambda: state_to_elements(elements_to_state(7000.0, 0.1, 0.0, 0.0, 0.0, 0.0)),
            "equatorial or circular",
        ),
        (lambda: load_element_set("99999"), "name must be"),
        (lambda: J2Propagator().propagate_many([0.0, 1.0], eccentric_state()), "states0"),
        (lambda: J2Propagator().propagate_many([0.0, 1.0], np.full((2, 6), np.nan)), "states0"),
        (lambda: J2Propagator().propagate_many([0.0, 1.0], np.zeros((1, 6))), "states0"),
        (lambda: J2Propagator().propagate_many([1.0, 0.0], leo_states(2, 0)), "non-decreasing"),
        (lambda: J2Propagator().propagate_many([0.0, 1.0], leo_states(2, 0), atol=1.0), "atol"),
        (
            lambda: J2Propagator().propagate_many([0.0, 1.0], leo_states(2, 0), first_step=2.0),
            "first_step",
        ),
    ],
)
def test_bad_input_raises_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _normalised(Phi, state):
    """Phi in units of |r0| and the orbit's time unit sqrt(|r0|^3 / mu)."""
    length = np.linalg.norm(state[:3])
    scale = np.diag([1 / length] * 3 + [np.sqrt(length / MU_EARTH)] * 3)
    return scale @ Phi @ np.linalg.inv(scale)


@pytest.mark.usefixtures("propagator_backend")
def test_transition_matrices_are_symplectic_compose_and_start_at_the_identity():
    """The J2 flow is Hamiltonian: Phi^T Omega Phi = Omega (in normalised units, to the
    accuracy of the central differences, about 1e-6 here); Phi(t2, t0) = Phi(t2, t1)
    Phi(t1, t0) with the second factor linearised about the state at t1; Phi(t0) = I."""
    states0 = np.array(
        [
            elements_to_state(R_EARTH + 600.0, 0.01, 1.0, 0.3, 0.5, 0.2),
            elements_to_state(R_EARTH + 20000.0, 0.001, 0.96, 1.3, 0.5, 2.2),
        ]
    )
    times = np.linspace(0.0, 86400.0, 25)
    model = J2Propagator()
    Phi = model.transition_matrices(times, states0)
    assert Phi.shape == (2, 25, 6, 6)
    omega = np.block([[np.zeros((3, 3)), np.eye(3)], [-np.eye(3), np.zeros((3, 3))]])
    middle = model.propagate_many(times, states0)[:, 12]
    later = model.transition_matrices(times[12:], middle)
    for n, state in enumerate(states0):
        np.testing.assert_allclose(Phi[n, 0], np.eye(6), atol=1e-8)
        for k in (12, 24):
            P = _normalised(Phi[n, k], state)
            assert np.abs(P).max() > 10  # the flow shears: a real test of the products
            assert np.abs(P.T @ omega @ P - omega).max() < 1e-4
        composed = _normalised(later[n, -1] @ Phi[n, 12], state)
        full = _normalised(Phi[n, 24], state)
        assert np.abs(composed - full).max() < 1e-5 * np.abs(full).max()
