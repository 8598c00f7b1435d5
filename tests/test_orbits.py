"""The planar J2 orbit model of [TCB] §5.1."""

import numpy as np
import pytest

from ssa_privacy.orbits import PlanarJ2Model


def test_normalized_constants_match_spec():
    model = PlanarJ2Model()
    assert model.mu_n == pytest.approx(46.13, abs=0.01)
    assert model.J2_n == pytest.approx(0.0499, abs=1e-4)
    assert model.initial_state() == pytest.approx([1.0533, 0.0, 0.0, 6.2832], abs=1e-4)
    assert model.T_orb == pytest.approx(5.48e3, rel=1e-4)
    assert model.V_theta == pytest.approx(7.7027, rel=1e-4)


def test_circular_orbit_without_j2_keeps_its_radius_and_has_the_keplerian_period():
    model = PlanarJ2Model(J2=0.0)
    times = np.linspace(0.0, 2.0, 81)
    states = model.propagate(times)
    r0 = model.initial_state()[0]
    assert np.max(np.abs(states[:, 0] - r0)) < 1e-9
    # One period is one time unit: theta advances by 2 pi per T_orb.
    np.testing.assert_allclose(states[:, 2], 2 * np.pi * times, atol=1e-8)
    kepler_period = 2 * np.pi * np.sqrt((r0 * model.R_e) ** 3 / model.mu)
    assert kepler_period == pytest.approx(model.T_orb, rel=1e-12)


def test_two_body_energy_and_angular_momentum_are_conserved_on_an_eccentric_orbit():
    model = PlanarJ2Model(J2=0.0)
    start = model.initial_state() * np.array([1.0, 1.0, 1.0, 1.1])
    r, r_dot, _, theta_dot = model.propagate(np.linspace(0, 3, 200), start).T
    energy = 0.5 * (r_dot**2 + (r * theta_dot) ** 2) - model.mu_n / r
    momentum = r**2 * theta_dot
    assert np.ptp(energy) < 1e-9 * abs(energy[0])
    assert np.ptp(momentum) < 1e-9 * momentum[0]


def test_unit_conversions_round_trip():
    model = PlanarJ2Model()
    state = np.array([1.05, 0.01, 3.0, 6.3])
    physical = model.to_physical(state)
    assert physical[0] == pytest.approx(1.05 * model.R_e)
    assert physical[3] == pytest.approx(6.3 / model.T_orb)
    np.testing.assert_allclose(model.to_normalized(physical), state)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(times=[0.0, 1.0], rtol=1e-8), "at most 1e-10"),
        (dict(times=[1.0, 0.0]), "non-decreasing"),
        (dict(times=[0.0, np.nan]), "times contains non-finite"),
        (dict(times=[0.0, 1.0], state0=[1.0, 0.0, 0.0]), "state0 must have 4 entries"),
    ],
)
def test_bad_input_raises_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PlanarJ2Model().propagate(**kwargs)
