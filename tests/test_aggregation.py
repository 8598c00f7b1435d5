"""Distributed privacy-aware aggregation [LKC §5]: the closed form (36) and the SDP (35).

Each design is checked against the theory: every agent is (epsilon_i, delta_i)-PML private
(Theorem 3.3), the closed form equals an independent cvxpy solve of the per-agent problem,
and the SDP answer satisfies its constraints and is no worse than explicit feasible points.
"""

import cvxpy as cp
import numpy as np
import pytest

from ssa_privacy.engine.runner import Runner
from ssa_privacy.plants import prior_covariance
from ssa_privacy.privacy.pml import leakage as pml_leakage
from ssa_privacy.privacy.pml.aggregation import TIE_BREAK, design_fixed_Q, design_Q


def random_agents(rng, N, n, m, q):
    A = rng.standard_normal((N, n, n))
    A *= (rng.uniform(0.1, 0.9, N) / np.max(np.abs(np.linalg.eigvals(A)), axis=1))[:, None, None]
    M = rng.standard_normal((N, n, n))
    Q = M @ np.swapaxes(M, 1, 2) / n + 0.1 * np.eye(n)
    return (
        A,
        rng.standard_normal((N, m, n)),
        rng.standard_normal((N, q, m)),
        Q,
        rng.uniform(5.5, 8.0, N),
    )


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_fixed_Q_design_makes_every_agent_private_and_matches_cvxpy(convention):
    rng = np.random.default_rng(1)
    A, C, L, Q, epsilon = random_agents(rng, 6, 2, 2, 2)
    delta = 0.01
    design = design_fixed_Q(A, C, L, Q, epsilon, delta, convention)
    assert design.J == pytest.approx(
        sum(np.trace(L[i] @ design.Theta[i] @ L[i].T) for i in range(6))
    )
    for i in range(6):
        Sigma = design.Sigma_XX[i]
        np.testing.assert_allclose(Sigma, A[i] @ Sigma @ A[i].T + Q[i], atol=1e-10)  # (32)
        Sxy, Syy = pml_leakage.linear_mechanism_covariances(C[i], Sigma, design.Theta[i])
        assert pml_leakage.is_pml_private(
            Sigma, Sxy, Syy, epsilon[i], delta, convention
        )  # Theorem 3.3
        # Independent solve of min tr(L Theta L^T) s.t. (33): Remark 5.1 says (36) is optimal.
        k = design.kappa[i]
        Theta = cp.Variable((2, 2), symmetric=True)
        problem = cp.Problem(
            cp.Minimize(cp.trace(L[i] @ Theta @ L[i].T)),
            [Theta - k / (1 - k) * C[i] @ Sigma @ C[i].T >> 0],
        )
        problem.solve(solver="CLARABEL")
        assert problem.status == cp.OPTIMAL
        np.testing.assert_allclose(Theta.value, design.Theta[i], rtol=1e-5, atol=1e-8)


def test_fixed_Q_exact_design_is_tight_for_scalar_agents():
    design = design_fixed_Q(
        np.full((3, 1, 1), 0.75), [[1.0]], [[1 / 3]], [[0.4]], [6.0, 7.0, 8.0], 0.001
    )
    for i, eps in enumerate([6.0, 7.0, 8.0]):
        Sxy, Syy = pml_leakage.linear_mechanism_covariances(
            [[1.0]], design.Sigma_XX[i], design.Theta[i]
        )
        assert pml_leakage.leakage_probability(design.Sigma_XX[i], Sxy, Syy, eps) == pytest.approx(
            0.999, abs=1e-12
        )


def test_designed_Q_sdp_scalar_agents_match_the_analytic_optimum():
    # Scalar agents: Sigma >= max(sigma_lower, c / (1 - a^2)), so the optimal noise is
    # Theta = max(c, s C^2 Sigma_min) with s = kappa / (1 - kappa).
    a, C, c, lower = np.array([0.75, 0.3, 0.9, 0.5]), np.array([1.0, 2.0, 0.5, 1.0]), 0.01, 0.5
    epsilon = np.array([6.0, 7.0, 8.0, 12.0])
    design = design_Q(
        a[:, None, None], C[:, None, None], [[1 / 3]], epsilon, 0.001, c, Sigma_lower=[[lower]]
    )
    s = design.kappa / (1 - design.kappa)
    expected = np.maximum(c, s * C**2 * np.maximum(lower, c / (1 - a**2)))
    np.testing.assert_allclose(design.Theta[:, 0, 0], expected, rtol=1e-6)
    assert design.max_violation < 1e-6


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_designed_Q_sdp_is_feasible_private_and_no_worse_than_feasible_points(convention):
    rng = np.random.default_rng(4)
    N, n, c, delta = 8, 2, 0.05, 0.01
    A, C, L, _, epsilon = random_agents(rng, N, n, 2, 1)
    M = rng.standard_normal((N, n, n))
    lower = M @ np.swapaxes(M, 1, 2) / n
    design = design_Q(A, C, L, epsilon, delta, c, Sigma_lower=lower, convention=convention)
    np.testing.assert_allclose(
        prior_covariance(A, design.Q), design.Sigma_XX, rtol=1e-6, atol=1e-9
    )  # (32)
    # A feasible point of (35): Q = t I, t >= max(c, lambda_max(lower)), so Sigma >= t I >= lower.
    t = np.maximum(c, np.linalg.eigvalsh(lower)[:, -1])[:, None, None] * np.eye(n)
    feasible = design_fixed_Q(A, C, L, t, epsilon, delta, convention)
    feasible_Theta = feasible.Theta + c * np.eye(2)  # so that Theta >= c I holds too
    feasible_cost = np.einsum("nqi,nij,nqj->n", L, feasible_Theta, L)
    # The SDP's objective carries the tie-break TIE_BREAK tr(L^T L)/m tr(Theta): allow for it.
    tie_break = (
        TIE_BREAK * np.einsum("nqi,nqi->n", L, L) / 2 * np.trace(feasible_Theta, axis1=1, axis2=2)
    )
    assert np.all(design.cost <= (feasible_cost + tie_break) * (1 + 1e-7))
    for i in range(N):
        assert np.linalg.eigvalsh(design.Q[i])[0] >= c * (1 - 1e-6)
        assert np.linalg.eigvalsh(design.Theta[i])[0] >= c * (1 - 1e-6)
        assert np.linalg.eigvalsh(design.Sigma_XX[i] - lower[i])[0] >= -1e-7
        Sxy, Syy = pml_leakage.linear_mechanism_covariances(
            C[i], design.Sigma_XX[i], design.Theta[i]
        )
        assert pml_leakage.is_pml_private(
            design.Sigma_XX[i], Sxy, Syy, epsilon[i], delta, convention, atol=1e-6
        )


def test_designed_Q_in_parallel_equals_serial():
    rng = np.random.default_rng(9)
    A, C, L, _, epsilon = random_agents(rng, 12, 2, 1, 1)
    serial = design_Q(A, C, L, epsilon, 0.01, 0.05, Sigma_lower=0.3 * np.eye(2), processes=1)
    parallel = design_Q(A, C, L, epsilon, 0.01, 0.05, Sigma_lower=0.3 * np.eye(2), processes=2)
    np.testing.assert_allclose(parallel.cost, serial.cost, rtol=1e-5, atol=1e-8)  # solver tolerance
    assert parallel.J == pytest.approx(serial.J, rel=1e-6)


def test_designed_Q_runs_on_the_callers_runner():
    """The SDPs are the tasks of the caller's runner (the package's one engine): the same
    design as the serial one, and the runner records the chunks of agents."""
    rng = np.random.default_rng(9)
    A, C, L, _, epsilon = random_agents(rng, 6, 2, 1, 1)
    lower = 0.3 * np.eye(2)
    serial = design_Q(A, C, L, epsilon, 0.01, 0.05, Sigma_lower=lower, processes=1)
    runner = Runner(workers=2, progress=False)
    pooled = design_Q(A, C, L, epsilon, 0.01, 0.05, Sigma_lower=lower, runner=runner)
    np.testing.assert_allclose(pooled.cost, serial.cost, rtol=1e-5, atol=1e-8)
    chunks = [task["key"] for task in runner.describe()["tasks"]["design_Q"]]
    assert chunks[0][0] == "agents" and sorted(k[1] for k in chunks)[0] == 0
    assert sum(stop - start for _, start, stop in chunks) == 6
    with pytest.raises(ValueError, match="runner or processes, not both"):
        design_Q(A, C, L, epsilon, 0.01, 0.05, runner=runner, processes=2)
    with pytest.raises(TypeError, match="runner must be a Runner"):
        design_Q(A, C, L, epsilon, 0.01, 0.05, runner=2)


def test_invalid_inputs_raise_clear_errors():
    A, C, L, Q = np.full((3, 1, 1), 0.5), [[1.0]], [[1.0]], [[1.0]]
    with pytest.raises(ValueError, match="disagree on the number of agents"):
        design_fixed_Q(A, C, L, Q, [6.0, 7.0], 0.01)
    with pytest.raises(ValueError, match=r"not Schur stable \(agent 1\)"):
        design_fixed_Q(np.array([[[0.5]], [[1.2]]]), C, L, Q, 6.0, 0.01)
    with pytest.raises(ValueError, match=r"entry 2\) is infeasible.*smallest feasible"):
        design_fixed_Q(A, C, L, Q, [6.0, 7.0, 3.0], 0.01)
    with pytest.raises(ValueError, match="delta must lie in the open interval"):
        design_Q(A, C, L, 6.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="c must be a finite positive number"):
        design_Q(A, C, L, 6.0, 0.01, 0.0)
    with pytest.raises(ValueError, match="Q is not positive semi-definite"):
        design_fixed_Q(A, C, L, [[-1.0]], 6.0, 0.01)
    with pytest.raises(ValueError, match="shapes do not chain"):
        design_fixed_Q(A, [[1.0, 1.0]], L, Q, 6.0, 0.01)


def test_the_network_mechanism_releases_every_agent_at_once():
    """One release of the stacked outputs draws blockdiag(Theta_i) noise; the stack is
    (sum epsilon_i, sum delta_i)-PML private and its certificate passes."""
    A, C, L, Q = np.full((3, 2, 2), 0.5 * np.eye(2)), np.eye(2), np.eye(2), np.eye(2)
    design = design_fixed_Q(A, C, L, Q, [8.0, 9.0, 10.0], 0.001)
    mechanism = design.network_mechanism()
    assert mechanism.Theta.shape == (6, 6)
    np.testing.assert_array_equal(mechanism.Theta[2:4, 2:4], design.Theta[1])
    assert mechanism.Theta[0, 2] == 0.0
    certificate = mechanism.certificate()
    assert certificate.passed and certificate.parameters["epsilon"] == pytest.approx(27.0)
    assert certificate.parameters["delta"] == pytest.approx(0.003)
    release = mechanism.release(np.zeros((5, 6)), seed=4)
    assert release.values.shape == (5, 6) and release.seed_keys == {"seed": 4}
    with pytest.raises(ValueError, match="deltas sum to"):
        design_fixed_Q(A, C, L, Q, 20.0, 0.4).network_mechanism()
