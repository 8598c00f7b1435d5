"""Orbit determination from a contact: the batch least-squares start of the catalogue filters.

The filters start, at their first contact, from the maximum a posteriori state given the
prior and the contact's releases. The tests check that it is that state (a minimum of
the objective, checked by its values alone), that the filters solved together are the
filters solved alone, and that with the full manoeuvre prior (about 1 km and 1 m/s) the
filters' covariances hold their errors (the NEES of 20 truths in the chi-square band),
which the update linearised about the nominal orbit does not.
"""

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.estimation.ekf import track_contacts
from ssa_privacy.estimation.orbit_determination import contact_orbit_determination, split_prior
from ssa_privacy.estimation.tracking import TrackingModel
from ssa_privacy.estimation.ukf import measurement_residual
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import contacts, object_stream
from tests.test_catalog_filter import _measurements

RUNS = 20
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def iss_window():
    """The ISS over 6 h every 30 s, the eight radars, 20 truths from the full prior."""
    iss = iss_element_set()
    times = np.arange(0.0, 6 * 3600.0 + 1e-9, 30.0)
    earth, stations, model = EarthRotation(iss.gmst_epoch), radar_network(), J2Propagator()
    state0 = iss.state_at_epoch()
    nominal, _, found = object_stream(state0, times, stations, earth, model)
    Sigma_XX = manoeuvre_prior(state0, 2 * np.pi / iss.period)
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal((RUNS, 6)) @ np.linalg.cholesky(Sigma_XX).T
    truths = model.propagate_many(times, nominal[0] + x0, 1e-10, 1e-10)
    measured = _measurements(stations, earth, times, nominal, truths, found, contacts(found), rng)
    return times, earth, stations, model, nominal, Sigma_XX, truths, measured


def _objective(model, nominal, Sigma_XX, contact, f, state0):
    """The MAP objective of filter f at a start state, from measurements and prior alone."""
    times, earth, stations, propagator = model
    grid = np.unique(np.concatenate([[0], contact.indices]))
    path = propagator.propagate_many(times[grid], state0[None], TOLERANCE, TOLERANCE)[0]
    where = {k: j for j, k in enumerate(grid)}
    h = []
    for s, k in zip(contact.stations, contact.indices):
        h.append(stations[s].measure(path[where[k]][None], times[k : k + 1], earth).ravel())
    h = np.concatenate(h)
    misfit = measurement_residual(contact.z[f], h)
    noise = linalg.cho_factor(contact.noise[f])
    deviation = state0 - nominal[0]
    prior = linalg.cho_factor(Sigma_XX)
    return misfit @ linalg.cho_solve(noise, misfit) + deviation @ linalg.cho_solve(prior, deviation)


def test_the_solution_minimises_the_map_objective_and_filters_do_not_interact(iss_window):
    """Filters 0-2 solved together: each state, carried back to the window start, is a
    minimum of its own objective (no step of 1 m or 1 mm/s along any axis lowers it), and
    filter 1 solved alone gives the same state to 1e-6 km."""
    times, earth, stations, model, nominal, Sigma_XX, _, measured = iss_window
    contact = measured[0]
    F = 3
    problem = TrackingModel(model, stations, earth, times)
    prior = np.tile(nominal[0], (F, 1)), np.tile(Sigma_XX, (F, 1, 1))
    together = contact_orbit_determination(problem, *prior, contact.subset(np.arange(F)), TOLERANCE)
    alone = contact_orbit_determination(
        problem, prior[0][:1], prior[1][:1], contact.subset(np.array([1])), TOLERANCE
    )
    np.testing.assert_allclose(alone.states[0], together.states[1], rtol=0, atol=1e-6)
    end = contact.end
    for f in range(F):
        # the state at the window start whose propagation gives the solution at the end
        back = _back_propagate(model, times[end], together.states[f])
        best = _objective((times, earth, stations, model), nominal, Sigma_XX, contact, f, back)
        for axis in range(6):
            step = np.zeros(6)
            step[axis] = 1e-3 if axis < 3 else 1e-6
            for sign in (1.0, -1.0):
                trial = _objective(
                    (times, earth, stations, model),
                    nominal,
                    Sigma_XX,
                    contact,
                    f,
                    back + sign * step,
                )
                assert trial >= best - 1e-6 * abs(best), (f, axis, sign, trial, best)


def _back_propagate(model, t_end, state_end):
    """The state at t = 0 that the J2 flow takes to ``state_end`` at ``t_end``: the flow
    reversed (velocity negated), which the propagator integrates forward."""
    reversed_end = np.concatenate([state_end[:3], -state_end[3:]])
    back = model.propagate_many(np.array([0.0, t_end]), reversed_end[None], 1e-12, 1e-12)[0, -1]
    return np.concatenate([back[:3], -back[3:]])


@pytest.mark.parametrize("orbit_determination", [True, False])
def test_with_the_full_prior_the_covariance_holds_the_errors(iss_window, orbit_determination):
    """20 truths from the full manoeuvre prior: with orbit determination at the first
    contact the filters' NEES (6 dof) at three later times averages within the 99.9%
    chi-square band of 6 x 20 degrees of freedom; a single update linearised about the
    nominal orbit leaves it above the band at one of them at least."""
    times, earth, stations, model, nominal, Sigma_XX, truths, measured = iss_window
    evaluate = np.array([len(times) // 2, 3 * len(times) // 4, len(times) - 1])
    estimates, _, diagnostics = track_contacts(
        TrackingModel(model, stations, earth, times),
        nominal[0],
        Sigma_XX,
        measured,
        evaluate,
        diagnostics=True,
        orbit_determination=orbit_determination,
    )
    low, high = stats.chi2.ppf([0.0005, 0.9995], 6 * RUNS) / RUNS
    means = []
    for j, k in enumerate(evaluate):
        errors = estimates[:, j] - truths[:, k]
        P = diagnostics["covariances"][:, j]
        scale = np.sqrt(np.einsum("fii->fi", P))
        correlation = P / (scale[:, :, None] * scale[:, None, :])
        whitened = np.linalg.solve(np.linalg.cholesky(correlation), (errors / scale)[..., None])
        means.append(float(np.mean(np.sum(whitened[..., 0] ** 2, axis=-1))))
    if orbit_determination:
        assert all(low <= m <= high for m in means), (means, low, high)
    else:
        assert max(means) > high, (means, high)


def test_the_split_prior_keeps_the_first_four_moments():
    """The three components' mixture has the prior's mean and covariance, and along the
    split axis its fourth central moment is the Gaussian's, 3 lambda^2."""
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 6))
    P, x = A @ A.T + 0.1 * np.eye(6), rng.standard_normal(6)
    means, covariances, weights = split_prior(x, P)
    mean = weights @ means
    spread = means - mean
    mixed = np.einsum("c,cij->ij", weights, covariances + np.einsum("ci,cj->cij", spread, spread))
    np.testing.assert_allclose(mean, x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mixed, P, rtol=1e-12, atol=1e-12)
    values, vectors = np.linalg.eigh(P)
    lam, v = values[-1], vectors[:, -1]
    along = spread @ v
    variance = float(v @ covariances[0] @ v)
    fourth = weights @ (along**4 + 6 * along**2 * variance + 3 * variance**2)
    assert fourth == pytest.approx(3 * lam**2, rel=1e-12)
    assert np.all(np.linalg.eigvalsh(covariances[0]) > 0)


def test_a_split_prior_on_a_well_measured_contact_gives_the_single_solution(iss_window):
    """Without privacy the contact's measurements dominate a prior split along its axis:
    the three components' posteriors coincide, and the merged state and covariance are
    those of the single solve (to a tenth of its standard deviation and 1 % of its
    position variance)."""
    times, earth, stations, model, nominal, Sigma_XX, _, measured = iss_window
    contact = measured[0].subset(np.array([0]))
    problem = TrackingModel(model, stations, earth, times)
    prior = nominal[None, 0], Sigma_XX[None]
    single = contact_orbit_determination(problem, *prior, contact, TOLERANCE)
    merged = contact_orbit_determination(problem, *prior, contact, TOLERANCE, split=True)
    difference = merged.states[0] - single.states[0]
    assert difference @ np.linalg.solve(single.covariances[0], difference) < 0.01
    position = np.trace(single.covariances[0, :3, :3])
    assert np.trace(merged.covariances[0, :3, :3]) == pytest.approx(position, rel=0.01)
