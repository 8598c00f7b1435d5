"""Kalman filtering of privatized outputs and the PML bounds of [LKC] §4.

The DARE solution is checked against its fixed point and python-control's dlqe; the
filterpy filter against the DARE (converged covariance and Monte Carlo error covariance,
chi-square test at a stated level); every bound against the DARE value and simulation.
"""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ssa_privacy.estimation.kalman import (
    am_gm_trace_bound,
    error_covariance_bounds,
    filter_outputs,
    kalman_filter,
    steady_state,
)
from ssa_privacy.plants import LTIPlant
from ssa_privacy.privacy import accounting
from ssa_privacy.privacy.pml import design as pml_design
from ssa_privacy.privacy.pml.plant import design_noise


def random_plant(rng, n, m):
    A = rng.standard_normal((n, n))
    A *= rng.uniform(0.05, 0.95) / np.max(np.abs(np.linalg.eigvals(A)))
    M = rng.standard_normal((n, n))
    return LTIPlant(A, rng.standard_normal((m, n)), M @ M.T / n + 0.1 * np.eye(n))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3), data=st.data())
def test_steady_state_solves_the_dare_and_matches_dlqe(seed, n, data):
    rng = np.random.default_rng(seed)
    plant = random_plant(rng, n, data.draw(st.integers(1, n)))
    M = rng.standard_normal((plant.m, plant.m))
    Theta = M @ M.T + 0.1 * np.eye(plant.m)
    ss = steady_state(plant, Theta)
    A, C, Q, Pm = plant.A, plant.C, plant.Q, ss.P_pred
    # [LKC] (56) fixed point, and the filtered covariance P = (I - K C) P^-.
    riccati = A @ Pm @ A.T + Q - A @ Pm @ C.T @ np.linalg.solve(C @ Pm @ C.T + Theta, C @ Pm @ A.T)
    np.testing.assert_allclose(Pm, riccati, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ss.P, (np.eye(n) - ss.K @ C) @ Pm, rtol=1e-8, atol=1e-10)
    # python-control's dlqe returns the predicted covariance and the predictor gain A K.
    L, P_dlqe, _ = control.dlqe(A, np.eye(n), C, Q, Theta)
    np.testing.assert_allclose(P_dlqe, Pm, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(L, A @ ss.K, rtol=1e-7, atol=1e-10)


def test_filterpy_filter_converges_to_the_steady_state():
    plant = LTIPlant([[0.9, 0.2], [0.0, 0.5]], [[1.0, 0.0]], [[0.3, 0.05], [0.05, 0.2]])
    Theta = np.array([[0.4]])
    kf = kalman_filter(plant, Theta)
    for z in np.random.default_rng(0).standard_normal(300):
        kf.update(np.array([z]))
        kf.predict()
    ss = steady_state(plant, Theta)
    np.testing.assert_allclose(kf.K, ss.K, rtol=1e-8)
    np.testing.assert_allclose(
        kf.P, ss.P_pred, rtol=1e-8
    )  # after predict: the predicted covariance


PLANT = LTIPlant([[0.75, 0.1], [0.1, 0.65]], np.eye(2), [[0.4, 0.05], [0.05, 0.3]])
RUNS, STEPS = 1500, 40


@pytest.fixture(scope="module")
def simulated_errors():
    """Filtering errors at the last step of independent stationary runs, per design."""
    rng = np.random.default_rng(2024)
    Sigma = PLANT.prior_covariance()
    out = {}
    for convention in ("exact", "paper"):
        Theta = pml_design.linear_mechanism_noise(PLANT.C, Sigma, 6.0, 0.01, convention)
        X = PLANT.simulate(STEPS, RUNS, rng)
        Y = X @ PLANT.C.T + rng.multivariate_normal(np.zeros(2), Theta, size=X.shape[:2])
        X_hat, P_k = filter_outputs(PLANT, Theta, Y)
        out[convention] = (Theta, (X - X_hat)[:, -1], P_k[-1])
    return out


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_empirical_error_covariance_matches_the_dare(simulated_errors, convention):
    # The filter starts from the true prior, so e = X_k - Xhat_k ~ N(0, P_k) exactly and
    # independently across runs: sum_r e_r^T P^{-1} e_r ~ chi^2_{n R}. P_k has converged to P.
    Theta, errors, P_last = simulated_errors[convention]
    P = steady_state(PLANT, Theta).P
    np.testing.assert_allclose(P_last, P, rtol=1e-9)
    statistic = np.sum(errors * np.linalg.solve(P, errors.T).T)
    dof = PLANT.n * RUNS
    assert stats.chi2.ppf(0.0005, dof) < statistic < stats.chi2.ppf(0.9995, dof)  # level 1e-3


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_every_bound_holds_in_simulation(simulated_errors, convention):
    Theta, errors, _ = simulated_errors[convention]
    S = errors.T @ errors / RUNS
    bounds = error_covariance_bounds(PLANT, Theta, 6.0, 0.01, convention)
    assert bounds.applies
    # The margins are far beyond Monte Carlo error (log det S has s.e. ~ sqrt(2 n / R) = 0.05).
    assert np.linalg.slogdet(S)[1] >= bounds.log_det_chain + 0.5
    assert np.linalg.slogdet(S)[1] >= bounds.log_det + 0.5
    assert np.trace(S) >= bounds.trace_chain + 0.5 and np.trace(S) >= bounds.trace + 0.5


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 3),
    convention=st.sampled_from(["exact", "paper"]),
    data=st.data(),
)
def test_bounds_hold_for_the_dare_covariance(seed, n, convention, data):
    rng = np.random.default_rng(seed)
    plant = random_plant(rng, n, data.draw(st.integers(1, n)))
    delta = rng.uniform(0.001, 0.2)
    epsilon = accounting.minimum_epsilon(delta, plant.m) + rng.uniform(0.1, 4.0)
    Theta = pml_design.linear_mechanism_noise(
        plant.C, plant.prior_covariance(), epsilon, delta, convention
    )
    P = steady_state(plant, Theta).P
    bounds = error_covariance_bounds(plant, Theta, epsilon, delta, convention)
    log_det_P, slack = np.linalg.slogdet(P)[1], 1e-7
    assert bounds.applies
    assert log_det_P >= bounds.log_det_chain - slack  # [LKC] (55)
    assert bounds.log_det_chain >= bounds.log_det - slack  # privacy in the matching convention
    assert (
        np.trace(P) >= bounds.trace_chain - slack and bounds.trace_chain >= bounds.trace - slack
    )  # (29)


def test_paper_bound_28_does_not_apply_to_exact_designs():
    # With A ~ 0 the chain is nearly tight (Sigma_XX ~ P^- ~ Q), so an exact-convention design
    # falls below the paper's (28): the paper's bound needs the paper's (stricter) privacy.
    plant = LTIPlant(0.02 * np.eye(2), np.eye(2), np.diag([0.5, 0.3]))
    Theta = pml_design.linear_mechanism_noise(plant.C, plant.prior_covariance(), 6.0, 0.01, "exact")
    log_det_P = np.linalg.slogdet(steady_state(plant, Theta).P)[1]
    exact = error_covariance_bounds(plant, Theta, 6.0, 0.01, "exact")
    paper = error_covariance_bounds(plant, Theta, 6.0, 0.01, "paper")
    assert exact.applies and log_det_P >= exact.log_det
    assert not paper.applies and log_det_P < paper.log_det - 0.5


def test_invalid_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="Theta is not positive definite"):
        steady_state(PLANT, np.diag([1.0, 0.0]))
    with pytest.raises(ValueError, match="Theta must be 2x2"):
        steady_state(PLANT, np.eye(3))
    with pytest.raises(ValueError, match=r"Y must have shape \(T, 2\)"):
        filter_outputs(PLANT, np.eye(2), np.zeros((10, 3)))
    with pytest.raises(ValueError, match="Y contains non-finite"):
        filter_outputs(PLANT, np.eye(2), np.full((10, 2), np.nan))
    with pytest.raises(ValueError, match="smallest feasible"):
        error_covariance_bounds(PLANT, np.eye(2), 4.0, 0.01)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 4),
    convention=st.sampled_from(["exact", "paper"]),
    data=st.data(),
)
def test_am_gm_trace_bound_holds_and_is_never_looser_than_29(seed, n, convention, data):
    rng = np.random.default_rng(seed)
    plant = random_plant(rng, n, data.draw(st.integers(1, n)))
    delta = rng.uniform(0.001, 0.2)
    epsilon = accounting.minimum_epsilon(delta, plant.m) + rng.uniform(0.1, 8.0)
    Theta = pml_design.linear_mechanism_noise(
        plant.C, plant.prior_covariance(), epsilon, delta, convention
    )
    P = steady_state(plant, Theta).P
    bounds = error_covariance_bounds(plant, Theta, epsilon, delta, convention)
    # AM-GM of the eigenvalues of P, computed directly: tr P / n >= det(P)^(1/n).
    eigenvalues = np.linalg.eigvalsh(P)
    assert np.mean(eigenvalues) >= np.exp(np.mean(np.log(eigenvalues))) * (1 - 1e-12)
    assert bounds.trace_am_gm == pytest.approx(n * np.exp(bounds.log_det / n), rel=1e-12)
    assert bounds.trace_chain_am_gm == pytest.approx(
        n * np.exp(bounds.log_det_chain / n), rel=1e-12
    )
    slack = 1e-7
    assert np.trace(P) >= bounds.trace_chain_am_gm * (1 - slack)  # always valid
    assert bounds.trace_chain_am_gm >= bounds.trace_am_gm * (1 - slack)  # private: chain >= (28)
    # Never looser than (29) (exp(x) >= 1 + x), never negative.
    assert bounds.trace_am_gm >= bounds.trace and bounds.trace_am_gm > 0
    assert bounds.trace_chain_am_gm >= bounds.trace_chain and bounds.trace_chain_am_gm > 0


def test_am_gm_bound_is_informative_where_29_is_vacuous():
    # Strong privacy: (28) is far below -n, so (29) is negative while the AM-GM form is not,
    # and it is tight for a P with equal eigenvalues.
    assert am_gm_trace_bound(-10.0, 2) == pytest.approx(2 * np.exp(-5.0), rel=1e-15)
    assert am_gm_trace_bound(0.0, 3) == 3.0  # equality with (29) at b = 0
    assert am_gm_trace_bound(np.log(0.25**2), 2) == pytest.approx(np.trace(0.25 * np.eye(2)))


def test_singular_process_noise_is_recognised_even_when_cholesky_passes():
    # B Q_w B^T of rank 1 (3 states, 1 input): Cholesky succeeds on it by round-off.
    b = np.array([[0.95], [1.73], [-0.39]])
    Q = b @ b.T
    np.linalg.cholesky(Q)  # passes: the pivots are round-off
    plant = LTIPlant.from_statespace(control.ss(0.5 * np.eye(3), b, np.eye(3), 0, True))
    np.testing.assert_allclose(plant.Q, Q, rtol=1e-15)
    # A = I / 2 keeps the noise on span(b): Sigma_XX = Q / (1 - 1/4), of rank 1.
    np.testing.assert_allclose(plant.prior_covariance(), Q / 0.75, rtol=1e-12, atol=1e-15)
    bounds = error_covariance_bounds(plant, 0.1 * np.eye(3), 7.0, 0.01)
    assert not bounds.applies and "rank 1 < n = 3" in bounds.reason
    one_output = LTIPlant(plant.A, [[1.0, 0.0, 0.0]], plant.Q)
    mech = design_noise(one_output, 7.0, 0.01)
    # Designed on the range of the prior: one state, the component along b.
    assert mech.state_basis.shape == (3, 1) and mech.certificate().passed
    np.testing.assert_allclose(abs(mech.state_basis[:, 0] @ b[:, 0]), np.linalg.norm(b))
