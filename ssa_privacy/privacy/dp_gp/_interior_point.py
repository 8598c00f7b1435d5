"""The primal-dual interior-point method behind :func:`~ssa_privacy.privacy.dp_gp.ellipsoid.d_optimal_design`.

The D-optimal design dual ``min_{lambda >= 0} -log det M(lambda) + sum_i lambda_i``,
``M(lambda) = sum_i lambda_i p_i p_i^T``, is solved from a warm start of the
multiplicative algorithm (:func:`multiplicative`) by Mehrotra predictor-corrector steps
on a working set of points that shrinks to about the support, in rounds that put back
any point left outside that violates its constraint (:func:`rounds`). The stopping rule
is the duality gap (:func:`duality_gap`). References: Silvey, Titterington and Torsney
(1978); Mehrotra (1992); Nocedal and Wright (2006), §14.2 and §19.3; Sun and Freund
(2004). The theory is on :doc:`/theory/dp-gp`.
"""

import numpy as np
from scipy import linalg
from scipy.linalg import blas

__all__ = [
    "MULTIPLICATIVE_STEPS",
    "PRUNE_RATIO",
    "PRUNE_SHARE",
    "START_SLACK",
    "STEP_TO_BOUNDARY",
    "duality_gap",
    "multiplicative",
    "rounds",
    "whiten",
]

#: Multiplicative steps of the warm start.
MULTIPLICATIVE_STEPS = 10
#: Slack added to ``max(1 - g, 0)`` at the start.
START_SLACK = 1e-2
#: A point leaves the working set when ``lambda_i < PRUNE_RATIO s_i``, at most
#: ``PRUNE_SHARE`` of M at a time.
PRUNE_RATIO = 0.1
PRUNE_SHARE = 0.5
#: Fraction of the way to the boundary taken by a step.
STEP_TO_BOUNDARY = 0.995


def whiten(points, lambdas):
    """``L^{-1} P`` and ``g_i = p_i^T M^{-1} p_i`` for ``M = P diag(lambdas) P^T = L L^T``.

    Only the columns with positive lambdas enter M; ``L^{-1} P`` and g cover all
    columns. Raises ``scipy.linalg.LinAlgError`` when M is not positive definite.
    """
    support = lambdas > 0
    root = points[:, support] * np.sqrt(lambdas[support])
    gram = blas.dsyrk(1.0, root.T, trans=1, lower=1)  # root root^T, lower triangle
    factor = linalg.cholesky(gram, lower=True, overwrite_a=True, check_finite=False)
    whitened = linalg.solve_triangular(factor, points, lower=True, check_finite=False)
    return whitened, np.einsum("ij,ij->j", whitened, whitened)


def duality_gap(lambdas, g, r):
    """``r ln(max_i g_i) + sum_i lambda_i - r``: a bound on ``log det(max g M) - log det M_opt``."""
    return r * np.log(float(np.max(g))) + float(np.sum(lambdas)) - r


def multiplicative(points, steps):
    """The multiplicative algorithm ``lambda_i <- lambda_i g_i`` from uniform weights.

    Titterington (1976), Silvey, Titterington and Torsney (1978): every step keeps
    ``sum_i lambda_i = r`` (because ``sum_i lambda_i g_i = tr(M^{-1} M) = r``) and does
    not decrease ``log det M``. Returns the lambdas (all positive) and their g.
    """
    r, n = points.shape
    lambdas = np.full(n, r / n)
    for _ in range(steps):
        lambdas = lambdas * whiten(points, lambdas)[1]
    return lambdas, whiten(points, lambdas)[1]


def _step_length(x, dx, fraction):
    """Largest step ``a <= 1`` with ``x + (a / fraction) dx >= 0``, for positive x."""
    shrinking = dx < 0
    if not shrinking.any():
        return 1.0
    return min(1.0, fraction * float(np.min(-x[shrinking] / dx[shrinking])))


def _newton_direction(whitened, g, lambdas, slacks):
    """Mehrotra predictor-corrector direction of the primal-dual interior-point method.

    The optimality conditions of ``min -log det M(lambda) + sum lambda`` over
    ``lambda >= 0`` are ``1 - g_i = s_i``, ``lambda_i s_i = 0``, ``lambda, s >= 0``.
    Their Newton system, with the step ``d lambda = lambda z`` scaled by lambda, is
    ``(G o G + diag(lambda s)) z = lambda (g - 1 + s) + t`` where
    ``G = Lambda^{1/2} P^T M^{-1} P Lambda^{1/2}`` (a projection, so the system is well
    scaled), o the elementwise product and t the complementarity target
    (``-lambda s`` for the predictor; ``sigma mu - lambda s - d lambda d s`` for the
    corrector, ``sigma = (mu_affine / mu)^3``). One Cholesky factor serves both solves.
    """
    root = whitened * np.sqrt(lambdas)
    system = blas.dsyrk(1.0, root.T, lower=1)  # G, lower triangle
    system *= system
    system[np.diag_indices_from(system)] += lambdas * slacks
    factor = linalg.cho_factor(system, lower=True, overwrite_a=True, check_finite=False)
    z = linalg.cho_solve(factor, lambdas * (g - 1.0), check_finite=False)
    d_lambda, d_slack = lambdas * z, -slacks * (1.0 + z)
    mu = float(lambdas @ slacks) / len(lambdas)
    affine = (lambdas + _step_length(lambdas, d_lambda, 1.0) * d_lambda) @ (
        slacks + _step_length(slacks, d_slack, 1.0) * d_slack
    )
    target = (affine / (mu * len(lambdas))) ** 3 * mu - lambdas * slacks - d_lambda * d_slack
    z = linalg.cho_solve(factor, lambdas * (g - 1.0 + slacks) + target, check_finite=False)
    d_lambda = lambdas * z
    return d_lambda, (target - slacks * d_lambda) / lambdas


def _negligible(lambdas, g, share, candidates):
    """Candidates whose removal changes M by at most ``share`` in the metric of M.

    Taken by increasing ``lambda_i g_i`` while ``sum lambda_i g_i <= share``: then
    ``M' = M - sum lambda_i p_i p_i^T`` has ``M' >= (1 - share) M`` (the removed part
    has trace ``sum lambda_i g_i`` in the metric of M), so every ``g_i`` grows by at
    most the factor ``1 / (1 - share)``.
    """
    weight = lambdas[candidates] * g[candidates]
    order = np.argsort(weight)
    return candidates[order[np.cumsum(weight[order]) <= share]]


def _barrier(points, lambdas, slacks, tol, max_iter):
    """Primal-dual interior-point method on the working set ``lambdas > 0``.

    Mehrotra predictor-corrector steps (:func:`_newton_direction`) with separate primal
    and dual step lengths, each ``STEP_TO_BOUNDARY`` of the way to the boundary.
    Before each step the points that are leaving the support (``lambda_i <
    PRUNE_RATIO s_i``) are removed from the working set, at most
    ``PRUNE_SHARE`` of M at a time (:func:`_negligible`), so the rest still
    spans R^r. Stops when the duality gap on the working set is at most ``r tol``,
    then zeroes the lambdas that move M by at most ``tol / 2`` together (so the gap
    grows by about ``r tol / 2`` at most) and scales the lambdas to sum r, the scale
    ``c`` that minimises the gap ``r ln(max g / c) + c sum lambda - r``.

    Returns the lambdas (0 off the working set), the slacks and the steps taken.
    Raises RuntimeError after ``max_iter`` steps.
    """
    r = points.shape[0]
    lambdas, slacks = lambdas.copy(), slacks.copy()
    active = np.flatnonzero(lambdas > 0)
    for step in range(max_iter + 1):
        whitened, g = whiten(points[:, active], lambdas[active])
        lam, s = lambdas[active], slacks[active]
        if duality_gap(lam, g, r) <= r * tol:
            lambdas[active[_negligible(lam, g, tol / 2, np.arange(len(active)))]] = 0.0
            return lambdas * (r / lambdas.sum()), slacks, step
        if step == max_iter:
            break
        leaving = _negligible(lam, g, PRUNE_SHARE, np.flatnonzero(lam < PRUNE_RATIO * s))
        keep = np.ones(len(active), bool)
        keep[leaving] = False
        lambdas[active[leaving]] = 0.0
        active, lam, s = active[keep], lam[keep], s[keep]
        d_lambda, d_slack = _newton_direction(whitened[:, keep], g[keep], lam, s)
        lambdas[active] = lam + _step_length(lam, d_lambda, STEP_TO_BOUNDARY) * d_lambda
        slacks[active] = s + _step_length(s, d_slack, STEP_TO_BOUNDARY) * d_slack
    raise RuntimeError(f"D-optimal design: no duality gap {r * tol:.3g} in {max_iter} steps")


def _readmit(lambdas, slacks, g):
    """Put the violated points (``lambda_i = 0``, ``g_i > 1``) back in the working set.

    Every working point is shifted by ``delta = min(1, max g - 1)`` (lambda up by
    delta, slack to ``max(1 - g_i, 0) + delta``), a warm start a step or a few from the
    new central path. Raises RuntimeError when there is no violated point.
    """
    violated = (lambdas == 0) & (g > 1.0)
    if not violated.any():
        raise RuntimeError("D-optimal design: the duality gap is not met by round-off alone")
    working = (lambdas > 0) | violated
    delta = min(1.0, float(g.max()) - 1.0)
    lambdas = np.where(working, lambdas + delta, 0.0)
    slacks = np.where(working, np.maximum(1.0 - g, 0.0) + delta, slacks)
    return lambdas, slacks


def rounds(points, lambdas, slacks, tol, max_iter):
    """Interior-point rounds on the working set until the gap over all points is met."""
    r = points.shape[0]
    steps = 0
    while True:
        lambdas, slacks, used = _barrier(points, lambdas, slacks, tol / 2, max_iter - steps)
        steps += used
        g = whiten(points, lambdas)[1]
        gap = duality_gap(lambdas, g, r)
        if gap <= r * tol:
            return lambdas, g, gap, steps
        lambdas, slacks = _readmit(lambdas, slacks, g)
