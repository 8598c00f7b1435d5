"""The PML of nonlinear releases by Monte Carlo (``attacks.nonlinear_leakage``) and its
restoration (``attacks.nonlinear_restoration``), with the evidence checked by importance
sampling (``attacks.nonlinear_evidence``).

References checked independently of the module:

- a linear g (``g(x) = g0 + C x``): the per-outcome leakage against the definition
  ``log sup_x N(y; g0 + C x, S) - log N(y; g0, C Sigma C^T + S)`` (scipy densities, the
  supremum by least squares), and the Monte Carlo exceedance against the closed form
  ``1 - stream_leakage_probability`` ([LKC] Theorem 3.3) within its 95 % Clopper-Pearson
  interval; the importance-sampled evidence against the exact Gaussian one;
- a real radar pass of the ISS: the model's Jacobian at 0 against the pass's map
  ``H Phi`` (``passes_of``) and against central differences of g; an early pass (the
  linearisation holds) leaks as the linear mechanism, and the Laplace evidence agrees
  with importance sampling;
- a pass 4.5 h into the window, where the linear design fails on the real release, and
  the restored design meets the budget.
"""

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.attacks.nonlinear_evidence import importance_log_evidence
from ssa_privacy.attacks.nonlinear_leakage import nonlinear_pml, pass_measurement_model
from ssa_privacy.attacks.nonlinear_restoration import remainder_samples, restored_mechanism
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.privacy.pml.stream import (
    ReleaseStream,
    stream_leakage,
    stream_leakage_probability,
)
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import object_stream

DELTA = 0.01


def _spd(rng, n, scale=1.0):
    A = rng.standard_normal((n, n))
    return scale * (A @ A.T / n + 0.1 * np.eye(n))


def _linear_problem(rank, seed=0, M=12):
    """A linear g of the given rank, its noise and prior."""
    rng = np.random.default_rng(seed)
    C = rng.standard_normal((M, rank)) @ rng.standard_normal((rank, 6))
    g0 = rng.standard_normal(M)
    S = _spd(rng, M, 4.0)
    Sigma = _spd(rng, 6)

    def g_batch(X):
        return g0 + X @ C.T

    def jacobian_batch(X):
        return g_batch(X), np.broadcast_to(C, (len(X), M, 6)).copy()

    return g_batch, jacobian_batch, C, g0, S, Sigma


def _reference_leakage(y, C, g0, S, Sigma):
    """The definition, with scipy densities and the supremum by least squares."""
    L = np.linalg.cholesky(S)
    x, *_ = np.linalg.lstsq(
        linalg.solve_triangular(L, C, lower=True),
        linalg.solve_triangular(L, y - g0, lower=True),
        rcond=None,
    )
    sup = stats.multivariate_normal(g0 + C @ x, S).logpdf(y)
    return sup - stats.multivariate_normal(g0, C @ Sigma @ C.T + S).logpdf(y)


@pytest.mark.parametrize("rank", [6, 3])
def test_linear_release_matches_the_closed_form(rank):
    g_batch, jacobian_batch, C, g0, S, Sigma = _linear_problem(rank)
    stream = ReleaseStream.of(C[None], S)
    # the level the closed form exceeds with probability 0.2
    leak = stream_leakage(Sigma, stream, 0.2)
    estimate = nonlinear_pml(g_batch, jacobian_batch, Sigma, S, leak.epsilon, 1500, 1)
    assert leak.rank == rank
    reference = [_reference_leakage(y, C, g0, S, Sigma) for y in estimate.outcomes[:20]]
    np.testing.assert_allclose(estimate.leakage[:20], reference, rtol=0, atol=1e-7)
    np.testing.assert_allclose(estimate.leakage, estimate.linear_leakage, rtol=0, atol=1e-7)
    exact = 1.0 - stream_leakage_probability(Sigma, stream, leak.epsilon)
    assert exact == pytest.approx(0.2, abs=1e-9)
    low, high = estimate.interval
    assert low <= exact <= high
    assert estimate.max_ml_step < 1e-6 and estimate.max_map_step < 1e-6


def test_importance_sampling_recovers_the_gaussian_evidence():
    g_batch, jacobian_batch, C, g0, S, Sigma = _linear_problem(6, seed=2)
    estimate = nonlinear_pml(g_batch, jacobian_batch, Sigma, S, 10.0, 5, 3)
    for i, y in enumerate(estimate.outcomes):
        exact = stats.multivariate_normal(g0, C @ Sigma @ C.T + S).logpdf(y)
        assert estimate.log_evidence[i] == pytest.approx(exact, abs=1e-8)  # Laplace exact
        value, ess = importance_log_evidence(
            g_batch,
            y,
            S,
            Sigma,
            estimate.x_map[i],
            estimate.laplace_covariance[i],
            4000,
            i,
            df=4.0,
            prior_share=0.2,
        )
        # log of a mean of bounded weights: 5 standard errors sqrt((N/ESS - 1) / N)
        assert ess > 1000
        assert value == pytest.approx(exact, abs=5 * np.sqrt((4000 / ess - 1) / 4000))


@pytest.fixture(scope="module")
def iss():
    """The ISS over 5 h and the eight radars: passes, model inputs, prior."""
    element_set = iss_element_set()
    times = np.arange(0.0, 5 * 3600.0 + 1e-9, 30.0)
    state0 = element_set.state_at_epoch()
    earth = EarthRotation(element_set.gmst_epoch)
    stations, propagator = radar_network(), J2Propagator()
    nominal, _, found = object_stream(state0, times, stations, earth, propagator)
    found = sorted(found, key=lambda p: p.indices[0])
    Sigma = manoeuvre_prior(state0, 2.0 * np.pi / element_set.period)

    def model(p):
        station = stations[p.station]
        return pass_measurement_model(propagator, earth, station, times, state0, p.indices)

    return {"found": found, "Sigma": Sigma, "model": model, "nominal": nominal, "times": times}


def _sensor_plus(p, mechanism):
    return linalg.block_diag(*[p.R] * len(p.indices)) + mechanism.Theta


def test_pass_model_linearises_to_the_pass_map(iss):
    p = iss["found"][0]
    g_batch, jacobian_batch = iss["model"](p)
    g0, C = jacobian_batch(np.zeros((1, 6)))
    np.testing.assert_allclose(C[0], p.C.reshape(-1, 6), rtol=0, atol=1e-6 * np.abs(p.C).max())
    x = 0.5 * np.sqrt(np.diag(iss["Sigma"]))  # a deviation of half a prior std per axis
    _, G = jacobian_batch(x[None])
    h = np.repeat([1e-2, 1e-5], 3)  # 10 m, 1 cm/s: above the integration's noise
    columns = [
        (g_batch((x + hj * e)[None]) - g_batch((x - hj * e)[None]))[0] / (2 * hj)
        for hj, e in zip(h, np.eye(6))
    ]
    scale = np.abs(G[0]).max(axis=0)  # per column: km and km/s columns differ by 1e3
    np.testing.assert_allclose(G[0] / scale, np.array(columns).T / scale, rtol=0, atol=1e-4)


def test_early_pass_leaks_as_the_linear_mechanism(iss):
    p = iss["found"][0]  # 0.4 h into the window
    g_batch, jacobian_batch = iss["model"](p)
    mechanism = PassMechanism.design(p, iss["Sigma"], 10.0, DELTA)
    S = _sensor_plus(p, mechanism)
    estimate = nonlinear_pml(g_batch, jacobian_batch, iss["Sigma"], S, 10.0, 100, 4)
    # the linear mechanism with the same noise, in closed form
    stream = ReleaseStream.of(p.C.reshape(1, -1, 6), S)
    exact = 1.0 - stream_leakage_probability(iss["Sigma"], stream, 10.0)
    low, high = estimate.interval
    assert low <= exact <= high and low <= DELTA
    leak = stream_leakage(iss["Sigma"], stream, DELTA)
    mean = leak.information + leak.rank / 2  # E l = I + E chi^2_l / 2
    spread = np.std(estimate.leakage) / np.sqrt(100)
    assert abs(np.mean(estimate.leakage) - mean) < 4 * spread
    for i in range(2):
        value, ess = importance_log_evidence(
            g_batch,
            estimate.outcomes[i],
            S,
            iss["Sigma"],
            estimate.x_map[i],
            estimate.laplace_covariance[i],
            800,
            i,
            df=4.0,
        )
        assert ess > 200
        assert value == pytest.approx(estimate.log_evidence[i], abs=0.1)


def test_restored_mechanism_meets_the_budget_where_the_linear_design_fails(iss):
    p = iss["found"][3]  # 4.5 h into the window, 17 samples
    assert 4.0 < iss["times"][p.indices[0]] / 3600 < 5.0
    g_batch, jacobian_batch = iss["model"](p)
    epsilon, eta = 10.0, 0.6
    plain = PassMechanism.design(p, iss["Sigma"], epsilon, DELTA)
    S = _sensor_plus(p, plain)
    failed = nonlinear_pml(
        g_batch, jacobian_batch, iss["Sigma"], S, epsilon, 100, 5, iterations=2, ml_iterations=2
    )
    assert failed.interval[0] > DELTA  # the real release leaks beyond the guarantee
    assert failed.linear_interval[0] <= DELTA  # its linearisation does not
    base = PassMechanism.design(p, iss["Sigma"], epsilon - eta, DELTA / 2)
    r = remainder_samples(g_batch, p.C, iss["Sigma"], DELTA / 2, 200, 6)
    restored = restored_mechanism(base, r, eta, p.R)
    assert restored.designer == "restored" and restored.delta == DELTA
    assert restored.leakage.epsilon <= epsilon - eta + 1e-9  # extra noise only helps
    estimate = nonlinear_pml(
        g_batch,
        jacobian_batch,
        iss["Sigma"],
        _sensor_plus(p, restored),
        epsilon,
        100,
        5,
        iterations=2,
        ml_iterations=2,
    )
    assert estimate.interval[0] <= DELTA
    assert estimate.exceedance <= 0.02


def test_bad_input_is_named():
    g_batch, jacobian_batch, C, g0, S, Sigma = _linear_problem(6)
    with pytest.raises(ValueError, match="Sigma_XX"):
        nonlinear_pml(g_batch, jacobian_batch, -Sigma, S, 10.0, 10, 0)
    with pytest.raises(ValueError, match="noise_covariance"):
        nonlinear_pml(g_batch, jacobian_batch, Sigma, S[:5, :5] * 0, 10.0, 10, 0)
    with pytest.raises(ValueError, match="epsilon"):
        nonlinear_pml(g_batch, jacobian_batch, Sigma, S, np.nan, 10, 0)
    with pytest.raises((TypeError, ValueError), match="samples"):
        nonlinear_pml(g_batch, jacobian_batch, Sigma, S, 10.0, 0, 0)
    with pytest.raises(ValueError, match="g_batch"):
        nonlinear_pml(lambda X: X, jacobian_batch, Sigma, S, 10.0, 10, 0)
    with pytest.raises(ValueError, match="jacobian_batch"):
        nonlinear_pml(
            g_batch, lambda X: (g_batch(X), np.full((len(X), 12, 6), np.nan)), Sigma, S, 10.0, 10, 0
        )
    with pytest.raises(TypeError, match="mechanism"):
        restored_mechanism(object(), np.zeros((3, 12)), 1.0, np.eye(4))
    mechanism = PassMechanism(C.reshape(3, 4, 6), Sigma, np.linalg.cholesky(S), 10.0, DELTA)
    with pytest.raises(ValueError, match="eta"):
        restored_mechanism(mechanism, np.zeros((3, 12)), 0.0, np.eye(4))
    with pytest.raises(ValueError, match="remainders"):
        restored_mechanism(mechanism, np.zeros((3, 11)), 1.0, np.eye(4))
