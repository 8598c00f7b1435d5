"""Tests of the minimum-volume ellipsoid / D-optimal design solver (ssa_privacy.privacy.dp_gp.ellipsoid).

What is asserted is theory, checked independently of the solver:

- feasibility, exactly: every column is inside the returned ellipsoid as computed
  (``mahalanobis_squared <= 1`` to the last bit), at any tolerance, because the privacy
  of the cloaking mechanism rests on it;
- optimality within the reported certificate: the log-determinant of the returned M is
  at least the optimum of an independent convex solver (cvxpy with CLARABEL, on the
  primal problem in ``W = M^{-1}``) and exceeds it by at most the reported duality gap;
- the Kiefer-Wolfowitz equivalence theorem: at the D-optimal design weights u,
  ``max_i c_i^T A(u)^{-1} c_i = r`` (the dimension) and the variance function equals r
  on the support; with the duality gap at most ``r tol`` and ``sum lambda = r``, weak
  duality gives ``1 <= max_i g_i <= exp(tol)`` and ``sum_i u_i |g_i - 1| <= 2 (exp(tol) - 1)``
  for ``g_i = c_i^T M(lambda)^{-1} c_i`` (``sum_i lambda_i g_i = r`` always).
"""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg

from ssa_privacy.gp.regression import RBF
from ssa_privacy.privacy.dp_gp import _interior_point, ellipsoid
from ssa_privacy.privacy.dp_gp.release import cloaking_matrix

# Accuracy of the reference solver (CLARABEL's default tolerances are 1e-8) and of the
# dense recomputation of the leverages on these small, well-conditioned instances.
REFERENCE_ATOL = 1e-6
ROUNDING = 1e-9


def random_points(seed, m, extra):
    """m x (m + extra) points of full row rank with unequal column scales."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, m + extra)) * rng.uniform(0.1, 2.0, m + extra)


def polygon(k):
    """The vertices of a regular k-gon: all on the optimal ellipsoid (a circle)."""
    angles = 2 * np.pi * np.arange(k) / k
    return np.vstack([np.cos(angles), np.sin(angles)])


def gp_cloaking(seed, n=120, m=40):
    """A rank-deficient cloaking matrix of a 1-D GP (many close test points)."""
    rng = np.random.default_rng(seed)
    X, X_star = rng.uniform(0, 10, n), rng.uniform(0, 10, m)
    kernel = RBF(1.5)
    return cloaking_matrix(kernel(X_star, X), kernel(X), 0.1)[0]


def reference_log_det(C):
    """min log det M s.t. c_i^T M^{-1} c_i <= 1, by cvxpy (CLARABEL) in W = M^{-1}."""
    m, n = C.shape
    W = cp.Variable((m, m), PSD=True)
    problem = cp.Problem(
        cp.Maximize(cp.log_det(W)), [cp.quad_form(C[:, i], W) <= 1 for i in range(n)]
    )
    problem.solve(solver="CLARABEL")
    assert problem.status == cp.OPTIMAL
    return -problem.value


def dense_leverages(C, lambdas):
    """``c_i^T M(lambda)^{-1} c_i`` by a dense solve, independent of the solver's factors."""
    M = (C * lambdas) @ C.T
    return np.sum(C * linalg.solve(0.5 * (M + M.T), C, assume_a="pos"), axis=0)


def assert_kiefer_wolfowitz(C, lambdas, tol):
    """The equivalence theorem within the tolerance (see the module docstring)."""
    r = C.shape[0]
    g = dense_leverages(C, lambdas)
    u = lambdas / lambdas.sum()
    assert lambdas.sum() == pytest.approx(r, rel=ROUNDING)
    assert 1 - ROUNDING <= g.max() <= np.exp(tol) + ROUNDING
    assert np.sum(u * np.abs(g - 1)) <= 2 * np.expm1(tol) + ROUNDING


# --------------------------------------------------------------------------------------
# Feasibility: every column inside, as computed, whatever the tolerance
# --------------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(0, 30),
    st.sampled_from([1e-2, 1e-5, 1e-9]),
    st.integers(0, 2**32 - 1),
)
def test_every_column_is_inside_to_the_last_bit(m, extra, tol, seed):
    C = random_points(seed, m, extra)
    solution = ellipsoid.minimum_volume_ellipsoid(C, tol=tol)
    assert np.max(solution.mahalanobis_squared(C)) <= 1.0
    assert np.max(solution.leverages) <= 1.0
    assert solution.max_leverage <= 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_deficient_cloaking_matrix_is_inside_in_every_direction(seed):
    """Kept and dropped directions together: the scale covers the null-space share too."""
    C = gp_cloaking(seed)
    solution = ellipsoid.minimum_volume_ellipsoid(C)
    assert solution.rank < C.shape[0] and solution.null_variance > 0
    assert np.max(solution.mahalanobis_squared(C)) <= 1.0
    # The scale is the solver's largest leverage, at most 1 + NULL_SPACE_SHARE (+ round-off).
    assert 1.0 <= solution.scale <= (1 + ellipsoid.NULL_SPACE_SHARE) * (1 + 1e-6)
    assert solution.duality_gap <= solution.rank * 1e-8
    # M = scale * (sum_i lambda_i c_i c_i^T + tau (I - U U^T)), up to the dropped part of C.
    U, M = solution.basis, solution.covariance()
    expected = solution.scale * (C * solution.lambdas) @ C.T
    expected += solution.null_variance * (np.eye(len(U)) - U @ U.T)
    np.testing.assert_allclose(M, expected, atol=1e-9 * np.abs(M).max())


# --------------------------------------------------------------------------------------
# Optimality: within the reported gap of an independent convex solver
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("tol", [1e-2, 1e-4, 1e-8])
@pytest.mark.parametrize("seed", [3, 4])
def test_log_det_is_within_the_reported_gap_of_cvxpy(seed, tol):
    C = random_points(seed, 4, 21)
    solution = ellipsoid.minimum_volume_ellipsoid(C, tol=tol)
    assert solution.rank == 4 and solution.null_variance == 0
    ours = np.linalg.slogdet(solution.covariance())[1]
    optimum = reference_log_det(C)
    # The returned M is scaled by `scale` rather than by the solver's max g (= scale *
    # max_leverage): the bound of the duality gap grows by r ln(scale / max g).
    bound = solution.duality_gap - solution.rank * np.log(solution.max_leverage)
    assert 0 <= solution.duality_gap <= solution.rank * tol
    assert optimum - REFERENCE_ATOL <= ours <= optimum + bound + REFERENCE_ATOL


@pytest.mark.parametrize("k", [3, 5, 12])
def test_regular_polygon_gives_the_circle(k):
    """Every vertex on the optimal ellipsoid: the unit circle, M = I, log det 0."""
    solution = ellipsoid.minimum_volume_ellipsoid(polygon(k))
    np.testing.assert_allclose(solution.covariance(), np.eye(2), atol=1e-7)
    assert np.max(solution.mahalanobis_squared(polygon(k))) <= 1.0


def test_dual_bound_and_gap_agree_with_cvxpy():
    """Weak duality, independently: log det M(lambda) + r - sum lambda <= optimum <= it + gap."""
    C = random_points(5, 3, 40)
    lambdas, g, gap, _ = ellipsoid.d_optimal_design(C, tol=1e-6)
    lower = np.linalg.slogdet((C * lambdas) @ C.T)[1] + 3 - lambdas.sum()
    optimum = reference_log_det(C)
    assert lower <= optimum + REFERENCE_ATOL
    assert optimum <= lower + gap + REFERENCE_ATOL
    assert gap == pytest.approx(3 * np.log(dense_leverages(C, lambdas).max()), abs=1e-12)


# --------------------------------------------------------------------------------------
# The Kiefer-Wolfowitz equivalence theorem
# --------------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(
    st.integers(1, 8),
    st.integers(0, 60),
    st.sampled_from([1e-3, 1e-6, 1e-9]),
    st.integers(0, 2**32 - 1),
)
def test_kiefer_wolfowitz_within_the_tolerance(m, extra, tol, seed):
    C = random_points(seed, m, extra)
    lambdas, g, gap, _ = ellipsoid.d_optimal_design(C, tol=tol)
    assert gap <= m * tol
    assert_kiefer_wolfowitz(C, lambdas, tol)
    np.testing.assert_allclose(g, dense_leverages(C, lambdas), rtol=1e-9)


@pytest.mark.parametrize(
    "points",
    [
        np.hstack([polygon(6), polygon(6)]),  # duplicated points
        np.array([[1.0, -2.0, 0.5, 3.0, 0.0]]),  # r = 1: the two extreme points
        random_points(6, 7, 0),  # as many points as dimensions: all of them, lambda = 1
        random_points(7, 20, 1980),  # many points
    ],
    ids=["duplicates", "r=1", "square", "n=2000"],
)
def test_kiefer_wolfowitz_on_special_point_sets(points):
    lambdas, _, gap, _ = ellipsoid.d_optimal_design(points, tol=1e-9)
    assert gap <= points.shape[0] * 1e-9
    assert_kiefer_wolfowitz(points, lambdas, 1e-9)


def test_square_design_puts_unit_weight_on_every_point():
    lambdas, _, _, _ = ellipsoid.d_optimal_design(random_points(6, 7, 0), tol=1e-10)
    np.testing.assert_allclose(lambdas, 1.0, atol=1e-8)


def test_points_put_back_when_the_working_set_misses_the_support():
    """Active-set rounds: started without part of the support, the solver puts it back."""
    C = random_points(8, 6, 200)
    full, _, _, _ = ellipsoid.d_optimal_design(C, tol=1e-9)
    support = np.flatnonzero(full > 1e-6)
    start = np.ones(C.shape[1])
    start[support[::2]] = 0.0  # half of the support left out of the working set
    slacks = np.ones(C.shape[1])
    lambdas, g, gap, _ = _interior_point.rounds(C, start, slacks, 1e-9, 200)
    assert np.all(lambdas[support[::2]] > 0)
    assert gap <= 6 * 1e-9
    assert_kiefer_wolfowitz(C, lambdas, 1e-9)


def test_iteration_limit_is_reported():
    with pytest.raises(RuntimeError, match="steps"):
        ellipsoid.d_optimal_design(random_points(9, 30, 300), tol=1e-12, max_iter=1)
