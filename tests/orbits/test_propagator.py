"""The two backends of the J2 propagator (heyoka's Taylor integrator, scipy's DOP853)
against an independent tight reference: positions, transition matrices (complex step),
the independence of an object's numbers from its batch, the integrator cache and the
deprecated finite-difference steps."""

import sys

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from ssa_privacy.constants import J2_EARTH, MU_EARTH, R_EARTH
from ssa_privacy.orbits import _taylor
from ssa_privacy.orbits.elements import elements_to_state
from ssa_privacy.orbits.propagator import J2Propagator

DAY = 86400.0
ORBITS = {
    "LEO": elements_to_state(R_EARTH + 500.0, 0.01, 0.9, 0.3, 0.5, 0.2),
    "MEO": elements_to_state(R_EARTH + 20200.0, 0.02, 0.96, 1.3, 0.5, 2.2),
    "GEO": elements_to_state(42164.0, 0.001, 0.001, 1.3, 0.5, 2.2),
}
#: Largest position error (km) over a day at the default tolerance 1e-10: 1 cm for heyoka
#: (measured 0.2 mm); scipy's DOP853 at 1e-10 is itself about 1 cm off (measured 0.7-1 cm).
POSITION_BOUND = {"heyoka": 1e-5, "scipy": 5e-5}


def reference_rates(t, y):
    """The J2 equations in the textbook form (Curtis §10.8, Vallado Ch. 8), written apart
    from the propagator's, and complex-analytic (for the complex step): stacked 6-vectors."""
    s = y.reshape(-1, 6)
    x, yy, z = s[:, 0], s[:, 1], s[:, 2]
    r2 = x * x + yy * yy + z * z
    r = np.sqrt(r2)
    j2 = 1.5 * J2_EARTH * R_EARTH**2 / r2
    zeta = 5.0 * z * z / r2
    kepler = -MU_EARTH / (r2 * r)
    out = np.empty_like(s)
    out[:, :3] = s[:, 3:]
    out[:, 3] = kepler * x * (1.0 - j2 * (zeta - 1.0))
    out[:, 4] = kepler * yy * (1.0 - j2 * (zeta - 1.0))
    out[:, 5] = kepler * z * (1.0 - j2 * (zeta - 3.0))
    return out.ravel()


def reference_path(times, state):
    solution = solve_ivp(
        reference_rates, (times[0], times[-1]), state, "DOP853", times, rtol=1e-13, atol=1e-13
    )
    return solution.y.T


@pytest.mark.parametrize("orbit", ORBITS)
def test_positions_are_within_a_centimetre_of_a_tight_reference_over_a_day(
    orbit, propagator_backend
):
    times = np.arange(0.0, DAY + 1.0, 30.0)
    path = J2Propagator().propagate(times, ORBITS[orbit])
    error = np.linalg.norm(path[:, :3] - reference_path(times, ORBITS[orbit])[:, :3], axis=1)
    assert error.max() < POSITION_BOUND[propagator_backend]


def complex_step_transition(times, state, h=1e-20):
    """Phi(t, t0) by the complex step: column j is Im x(t; x0 + i h e_j) / h (six copies of
    the reference system integrated together; exact to rounding in h)."""
    starts = state[None, :] + 1j * h * np.eye(6)
    solution = solve_ivp(
        reference_rates,
        (times[0], times[-1]),
        starts.ravel(),
        "DOP853",
        times,
        rtol=1e-13,
        atol=1e-13,
    )
    columns = solution.y.imag.reshape(6, 6, len(times)) / h  # (column j, component i, time)
    return np.transpose(columns, (2, 1, 0))


def normalised(Phi, state):
    """Phi in units of |r0| and the orbit's time unit sqrt(|r0|^3 / mu)."""
    length = np.linalg.norm(state[:3])
    scale = np.diag([1 / length] * 3 + [np.sqrt(length / MU_EARTH)] * 3)
    return scale @ Phi @ np.diag(1 / np.diag(scale))


@pytest.mark.usefixtures("propagator_backend")
def test_transition_matrices_match_the_complex_step_of_an_independent_reference():
    """Within 1e-9 of the largest entry (normalised units) at every time over 12 h."""
    times = np.linspace(0.0, DAY / 2, 13)
    states = np.array(list(ORBITS.values()))
    Phi = J2Propagator().transition_matrices(times, states)
    for state, matrices in zip(states, Phi, strict=True):
        reference = normalised(complex_step_transition(times, state), state)
        ours = normalised(matrices, state)
        assert np.abs(reference).max() > 5  # the flow shears: a real comparison
        assert np.abs(ours - reference).max() < 1e-9 * np.abs(reference).max()


def test_an_objects_numbers_do_not_depend_on_its_batch_neighbours():
    """heyoka: the same numbers, bit for bit, alone, among others or in another order."""
    model = J2Propagator()
    rng = np.random.default_rng(3)
    states = ORBITS["LEO"] + np.hstack([rng.normal(0, 50, (7, 3)), rng.normal(0, 0.05, (7, 3))])
    times = np.linspace(0.0, 7200.0, 9)
    together = model.propagate_many(times, states)
    paths, Phi = model.propagate_with_transition(times, states)
    order = rng.permutation(7)
    np.testing.assert_array_equal(model.propagate_many(times, states[order]), together[order])
    for n in (0, 5):
        np.testing.assert_array_equal(
            model.propagate_many(times, states[n : n + 1])[0], together[n]
        )
        alone = model.propagate_with_transition(times, states[n : n + 1])
        np.testing.assert_array_equal(alone[0][0], paths[n])
        np.testing.assert_array_equal(alone[1][0], Phi[n])


def test_compiled_integrators_are_kept_in_memory_and_in_the_cache_folder(tmp_path, monkeypatch):
    """A second process (an empty memory cache, building forbidden) reads the pickled
    integrator and gives the same numbers."""
    monkeypatch.setenv(_taylor.CACHE_VARIABLE, str(tmp_path))
    monkeypatch.setattr(_taylor, "_INTEGRATORS", {})
    model, times = J2Propagator(J2=2e-3), np.linspace(0.0, 3600.0, 5)
    first = model.propagate(times, ORBITS["LEO"])
    assert len(_taylor._INTEGRATORS) == 1 and len(list(tmp_path.glob("*.pickle"))) == 1
    monkeypatch.setattr(_taylor, "_INTEGRATORS", {})

    def refuse(*args):
        raise AssertionError("the integrator should come from the cache folder")

    monkeypatch.setattr(_taylor, "_build", refuse)
    np.testing.assert_array_equal(model.propagate(times, ORBITS["LEO"]), first)


def test_the_environment_chooses_the_scipy_backend(monkeypatch):
    """``SSA_PRIVACY_PROPAGATOR=scipy`` gives the numbers of the fallback without heyoka;
    any other value than heyoka or scipy is refused."""
    model, times = J2Propagator(), np.linspace(0.0, 3600.0, 5)
    heyoka = model.propagate(times, ORBITS["MEO"])
    monkeypatch.setenv("SSA_PRIVACY_PROPAGATOR", "scipy")
    chosen = model.propagate(times, ORBITS["MEO"])
    monkeypatch.setitem(sys.modules, "heyoka", None)
    monkeypatch.delenv("SSA_PRIVACY_PROPAGATOR")
    np.testing.assert_array_equal(model.propagate(times, ORBITS["MEO"]), chosen)
    assert np.abs(chosen - heyoka).max() > 0  # a different integrator
    monkeypatch.setenv("SSA_PRIVACY_PROPAGATOR", "taylor")
    with pytest.raises(ValueError, match="SSA_PRIVACY_PROPAGATOR must be 'heyoka' or 'scipy'"):
        model.propagate(times, ORBITS["MEO"])


def test_the_finite_difference_steps_are_deprecated_and_ignored():
    model, times = J2Propagator(), np.linspace(0.0, 600.0, 3)
    states = ORBITS["LEO"][None]
    expected = model.transition_matrices(times, states)
    with pytest.warns(DeprecationWarning, match="'steps' of J2Propagator.transition_matrices"):
        Phi = model.transition_matrices(times, states, steps=(1e-3, 1e-6))
    np.testing.assert_array_equal(Phi, expected)
    with pytest.warns(DeprecationWarning, match="'steps' of J2Propagator.propagate_with"):
        model.propagate_with_transition(times, states, (1e-3, 1e-6))
