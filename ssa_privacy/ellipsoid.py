"""The minimum-volume origin-centred ellipsoid enclosing a point set (D-optimal design).

Given points ``c_1, ..., c_n`` in R^m (the columns of a matrix C), find the ellipsoid
``{x : x^T M^{-1} x <= 1}`` of least volume that contains them all:

    minimise  log det M   subject to   c_i^T M^{-1} c_i <= 1,  i = 1..n.

Its Lagrange dual is the D-optimal design problem of the points: with weights
``lambda_i >= 0``,

    minimise  -log det M(lambda) + sum_i lambda_i,   M(lambda) = sum_i lambda_i c_i c_i^T,

whose optimum has ``sum_i lambda_i = m`` and ``c_i^T M^{-1} c_i <= 1`` with equality
wherever ``lambda_i > 0`` (the Kiefer-Wolfowitz equivalence theorem, for the design
weights ``u = lambda / m``). The optimal M of the dual is the optimal ellipsoid.

:func:`minimum_volume_ellipsoid` reduces the points to their numerical span, whitens
them (the problem is affine invariant), and solves the dual by
:func:`d_optimal_design`: Frank-Wolfe with away steps to a coarse accuracy, then a
log-barrier Newton method, stopped by a duality-gap certificate. The differentially
private cloaking mechanism of :mod:`ssa_privacy.privacy.cloaking` uses it for its noise
shape (there the solver is also importable as ``optimal_cloaking_covariance``; the
result type is ``CloakingSolution`` in :mod:`ssa_privacy.privacy.dp_gp`); the theory is
on :doc:`/theory/dp-gp`.

References
----------
Todd and Yildirim (2007), "On Khachiyan's algorithm for the computation of
minimum-volume enclosing ellipsoids", Discrete Appl. Math. 155. Harman and Pronzato
(2007), "Improvements on removing nonoptimal support points in D-optimum design
algorithms", Statist. Probab. Lett. 77. Boyd and Vandenberghe (2004), Convex
Optimization, §9.6 (self-concordance) and §11.3 (barrier method).
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ssa_privacy._validation import (
    as_matrix,
    nonempty,
    open_interval,
    positive,
    positive_int,
    random_generator,
)

#: Share of the unit Mahalanobis budget given to the directions dropped by the rank
#: reduction (see :func:`minimum_volume_ellipsoid`).
NULL_SPACE_SHARE = 1e-3
#: Relative optimality gap at which :func:`d_optimal_design` switches from Frank-Wolfe to
#: the barrier method.
COARSE_GAP = 1e-5
#: Round-off level of the points, relative to the largest singular value of C; the
#: variance in the dropped directions is at least ``(ROUND_OFF s_max)^2 / NULL_SPACE_SHARE``.
ROUND_OFF = 64 * np.finfo(float).eps


@dataclass(frozen=True)
class MinimumVolumeEllipsoid:
    """The minimum-volume origin-centred ellipsoid ``{x : x^T M^{-1} x <= 1}`` around C.

    ``M = U S A S U^T + tau (I - U U^T)`` where ``U`` (m x r) and ``S`` (r x r) are the
    kept left singular vectors and values of C, ``A = sum_i lambda_i p_i p_i^T`` with
    ``p_i`` the kept right singular coordinates of point i (the information matrix of
    the design, in whitened coordinates), and ``tau`` covers the dropped directions.

    Parameters
    ----------
    basis : ndarray, shape (m, r)
        U, orthonormal basis of the kept span of the points.
    singular_values : ndarray, shape (r,)
        The kept singular values of C (units of the points).
    design : ndarray, shape (r, r)
        A, the information matrix ``sum_i lambda_i p_i p_i^T`` (whitened coordinates).
    null_variance : float
        tau, the variance of M in the dropped directions (0 when none is needed).
    lambdas : ndarray, shape (n,)
        The dual variables lambda_i >= 0 (``r`` times the D-optimal design weights;
        sum = r at the optimum).
    leverages : ndarray, shape (n,)
        ``c_i^T M^{-1} c_i`` including the dropped directions (the design's variance
        function divided by r).
    duality_gap : float
        ``r ln(max(1, max_i g_i)) + sum_i lambda_i - r`` in the kept subspace: an upper
        bound on how far ``log det M`` (rescaled to feasibility) is from the optimum.
    iterations : int
        Frank-Wolfe steps of the first phase of :func:`d_optimal_design`.
    """

    basis: np.ndarray
    singular_values: np.ndarray
    design: np.ndarray
    null_variance: float
    lambdas: np.ndarray
    leverages: np.ndarray
    duality_gap: float
    iterations: int

    @property
    def rank(self):
        """r, the number of kept directions."""
        return len(self.singular_values)

    @property
    def dim(self):
        """m, the dimension of the points."""
        return self.basis.shape[0]

    @property
    def design_weights(self):
        """The D-optimal design weights ``u = lambda / r`` (they sum to 1), shape (n,)."""
        return self.lambdas / self.rank

    @property
    def max_leverage(self):
        """``max_i c_i^T M^{-1} c_i`` (1 at the exact optimum up to the null-space share)."""
        return float(np.max(self.leverages))

    def covariance(self):
        """M as a dense symmetric matrix.

        Returns
        -------
        ndarray, shape (m, m)
            The shape matrix of the ellipsoid (squared units of the points).
        """
        U = self.basis
        B = U * self.singular_values
        dense = B @ self.design @ B.T + self.null_variance * (np.eye(len(U)) - U @ U.T)
        return 0.5 * (dense + dense.T)

    matrix = covariance

    def eigh(self):
        """The eigendecomposition of M, from its factors (no dense M is formed).

        Returns
        -------
        eigenvalues : ndarray, shape (k,)
            The positive eigenvalues: r from the kept span and, when ``null_variance``
            is positive, ``m - r`` equal to it (so k = m then, k = r otherwise).
        eigenvectors : ndarray, shape (m, k)
            Orthonormal eigenvectors.
        """
        # SVD of S L_A (L_A the Cholesky factor of A): the kept eigenvalues keep their
        # relative accuracy over the range of S, which an eigh of S A S would not.
        root = self.singular_values[:, None] * np.linalg.cholesky(self.design)
        Q, sigma, _ = linalg.svd(root, lapack_driver="gesvd")
        values, vectors = sigma**2, self.basis @ Q
        if self.null_variance > 0 and self.rank < self.dim:
            complement = np.linalg.qr(self.basis, mode="complete")[0][:, self.rank :]
            values = np.concatenate([values, np.full(self.dim - self.rank, self.null_variance)])
            vectors = np.hstack([vectors, complement])
        return values, vectors

    def sample(self, rng, size):
        """Draw from the Gaussian N(0, M).

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of randomness.
        size : int
            Number of draws.

        Returns
        -------
        ndarray, shape (size, m)
            Independent draws.

        Raises
        ------
        TypeError
            If ``rng`` is not a Generator or ``size`` not an integer.
        ValueError
            If ``size`` is not a positive integer.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        size = positive_int(size, "size")
        U = self.basis
        L = np.linalg.cholesky(self.design)
        kept = (rng.standard_normal((size, self.rank)) @ L.T) * self.singular_values @ U.T
        isotropic = rng.standard_normal((size, len(U)))
        null = isotropic - (isotropic @ U) @ U.T
        return kept + np.sqrt(self.null_variance) * null

    def mahalanobis_squared(self, C):
        """``c_i^T M^{-1} c_i`` for the columns of C, recomputed from the factors.

        Parameters
        ----------
        C : ndarray, shape (m, n)
            Points as columns.

        Returns
        -------
        ndarray, shape (n,)
            The squared Mahalanobis norms (dimensionless; at most 1 inside the ellipsoid).

        Raises
        ------
        ValueError
            If C is not a finite matrix with m rows.
        """
        C = as_matrix(C, "C", (self.dim, None))
        U = self.basis
        whitened = (U.T @ C) / self.singular_values[:, None]
        kept = np.sum(whitened * linalg.cho_solve(linalg.cho_factor(self.design), whitened), axis=0)
        residual = np.sum((C - U @ (U.T @ C)) ** 2, axis=0)
        if self.null_variance > 0:
            return kept + residual / self.null_variance
        return kept


def _leverages(points, weights):
    """``g_i = p_i^T A^{-1} p_i``, ``A^{-1} P`` and ``log det A`` for ``A = sum_i w_i p_i p_i^T``."""
    try:
        factor = linalg.cho_factor((points * weights) @ points.T)
    except linalg.LinAlgError:
        raise ValueError("the points do not span the kept subspace") from None
    W = linalg.cho_solve(factor, points)
    return W, np.sum(points * W, axis=0), 2.0 * float(np.sum(np.log(np.diag(factor[0]))))


def _frank_wolfe(points, target, max_iter, refresh=100):
    """Wolfe-Atwood / Todd-Yildirim Frank-Wolfe on the simplex until the gaps are <= target.

    Maximises ``log det A(u)`` with away and drop steps and exact line search;
    ``A^{-1} P`` is updated by rank-one (Sherman-Morrison) steps and refreshed from a
    new Cholesky factor every ``refresh`` steps. Returns the weights u, fresh
    ``g_i = p_i^T A(u)^{-1} p_i`` and the number of steps.
    """
    r, n = points.shape
    u = np.full(n, 1.0 / n)
    W, g, _ = _leverages(points, u)
    for iteration in range(max_iter):
        support = np.flatnonzero(u > 0)
        j, k = int(np.argmax(g)), int(support[np.argmin(g[support])])
        ascent, descent = g[j] / r - 1.0, 1.0 - g[k] / r
        if max(ascent, descent) <= target:
            break
        if ascent >= descent:
            index, t, drop = j, ascent / (g[j] - 1.0), False
        else:
            index, floor = k, -u[k] / (1.0 - u[k])
            t = floor if g[k] <= 1.0 else max((g[k] - r) / (r * (g[k] - 1.0)), floor)
            drop = t == floor
        if t >= 1.0:  # only for r = 1: the optimum is the single point of largest g
            u = np.zeros(n)
            u[index] = 1.0
            W, g, _ = _leverages(points, u)
            continue
        w = W[:, index].copy()
        W = (W - (t / (1.0 - t + t * g[index])) * np.outer(w, points.T @ w)) / (1.0 - t)
        u *= 1.0 - t
        u[index] = 0.0 if drop else u[index] + t
        if iteration % refresh == refresh - 1:
            W, g, _ = _leverages(points, u)
        else:
            g = np.sum(points * W, axis=0)
    return u, _leverages(points, u)[1], iteration


def _barrier(points, lambdas, tol, start_gap, newton_steps=60):
    """Log-barrier Newton method for ``min -log det M(lambda) + sum lambda`` over lambda > 0.

    ``M(lambda) = sum_i lambda_i p_i p_i^T``. The barrier weight mu starts at
    ``10 start_gap r / n`` (matching the accuracy of the warm start) and is divided by 10
    after each centring until ``n mu <= r tol / 10``. Newton steps are scaled by lambda.
    ``f / mu`` is self-concordant, so when its Newton decrement is at most 1/4 the full
    step stays feasible and converges quadratically (Boyd and Vandenberghe 2004,
    §9.6); otherwise the step is damped by a fraction-to-boundary rule and Armijo
    backtracking. A centring stops when the squared decrement is below ``1e-12``.
    """
    r, n = points.shape
    mu = max(10 * start_gap * r / n, r * tol / 10)
    lam = lambdas.copy()

    def barrier(weights):
        _, _, logdet = _leverages(points, weights)
        return -logdet + weights.sum() - mu * np.sum(np.log(weights))

    while True:
        for _ in range(newton_steps):
            W, g, logdet = _leverages(points, lam)
            gradient = 1.0 - g - mu / lam
            system = (lam[:, None] * (points.T @ W) ** 2 * lam[None, :]) + mu * np.eye(n)
            z = -linalg.solve(system, lam * gradient, assume_a="pos")
            decrement = -float(gradient @ (lam * z)) / mu
            if decrement <= 1e-12:
                break
            t = 1.0
            if decrement > 1.0 / 16:
                t = min(1.0, 0.99 / max(float(-z.min()), 1e-300))
                current = -logdet + lam.sum() - mu * np.sum(np.log(lam))
                while (
                    barrier(lam * (1.0 + t * z)) > current - 0.25 * t * mu * decrement and t > 1e-12
                ):
                    t /= 2
            lam = lam * (1.0 + t * z)
        if n * mu <= r * tol / 10:
            return lam
        mu /= 10


def d_optimal_design(points, tol=1e-8, max_iter=100_000):
    """Solve the D-optimal design dual ``min_{lambda >= 0} -log det M(lambda) + sum_i lambda_i``.

    ``M(lambda) = sum_i lambda_i p_i p_i^T``; at the optimum M is the smallest-volume
    matrix with ``p_i^T M^{-1} p_i <= 1`` for all i (the minimum-volume ellipsoid).

    1. Frank-Wolfe with away steps (Todd and Yildirim 2007) on the design weights
       ``u = lambda / r`` until the relative optimality gaps are below
       :data:`COARSE_GAP`.
    2. Points that cannot support the optimum by the bound of Harman and Pronzato
       (2007) are set aside.
    3. A log-barrier Newton method solves the problem on the remaining candidates to
       high accuracy.
    4. The leverages of all points are recomputed; any set-aside point that violates
       ``p_i^T M^{-1} p_i <= 1 + tol`` is added back and step 3 repeated.

    It stops when the duality gap ``r ln(max(1, max_i g_i)) + sum_i lambda_i - r``
    (an upper bound on ``log det M_feasible - log det M_opt``, where ``M_feasible`` is M
    scaled by ``max_i g_i`` so that every point is inside) is at most ``r tol``.

    Parameters
    ----------
    points : ndarray, shape (r, n)
        Points p_i as columns, spanning R^r.
    tol : float
        Relative tolerance of the duality gap.
    max_iter : int
        Limit on Frank-Wolfe steps.

    Returns
    -------
    lambdas : ndarray, shape (n,)
        Optimal dual variables (sum r at the optimum).
    g : ndarray, shape (n,)
        ``p_i^T M(lambda)^{-1} p_i``, recomputed from a fresh factorisation.
    gap : float
        The duality gap at the returned lambdas.
    iterations : int
        Frank-Wolfe steps used.

    Raises
    ------
    ValueError
        If the points are not a finite non-empty matrix spanning R^r, ``tol`` is not
        positive or ``max_iter`` is not a positive integer.
    RuntimeError
        If the gap is not met and no set-aside point violates the constraints (a
        numerical failure; it does not happen in the tests).

    Notes
    -----
    [SMI] supplement, eq. (6) is the gradient ``1 - p_i^T M^{-1} p_i`` of this
    objective; the theory page :doc:`/theory/dp-gp` derives the duality gap.
    """
    points = nonempty(as_matrix(points, "points"), "points")
    tol, max_iter = positive(tol, "tol"), positive_int(max_iter, "max_iter")
    r, n = points.shape
    coarse = max(tol, COARSE_GAP)
    u, g_u, iterations = _frank_wolfe(points, coarse, max_iter)
    excess = max(float(g_u.max()) - r, 0.0)
    threshold = r * (1 + excess / 2 - np.sqrt(excess * (4 + excess - 4 / r)) / 2)
    candidates = (g_u >= threshold) | (u > 0)
    lambdas = np.zeros(n)
    while True:
        start = np.where(u[candidates] > 0, r * u[candidates], 1e-3 * r / n)
        lambdas[:] = 0.0
        lambdas[candidates] = _barrier(points[:, candidates], start, tol, coarse)
        _, g, _ = _leverages(points, lambdas)
        gap = r * np.log(max(1.0, float(g.max()))) + float(lambdas.sum()) - r
        if gap <= r * tol:
            return lambdas, g, gap, iterations
        violators = (g > 1.0) & ~candidates
        if not violators.any():
            raise RuntimeError(
                f"D-optimal design did not reach duality gap {r * tol:.3g} (got {gap:.3g})"
            )
        u = lambdas / r
        candidates |= violators


def minimum_volume_ellipsoid(C, *, rtol=1e-8, tol=1e-8, max_iter=100_000):
    """The minimum-volume ellipsoid around the columns of C: min log det M s.t. ``c_i^T M^{-1} c_i <= 1``.

    The columns of C are first reduced to their numerical span (singular values above
    ``rtol`` times the largest) and whitened; the problem is affine invariant, so the
    optimum is unchanged and the solver stays well conditioned. The dual is solved by
    :func:`d_optimal_design`, giving ``M = sum_i lambda_i c_i c_i^T``. The dropped
    directions get variance
    ``tau = max(max_i ||P_perp c_i||^2, (ROUND_OFF s_max)^2) / NULL_SPACE_SHARE``, so
    that the components of the points there (including round-off) are also enclosed
    (their share of each ``c_i^T M^{-1} c_i`` is at most ``NULL_SPACE_SHARE``).

    Parameters
    ----------
    C : array_like, shape (m, n)
        The n points, as columns, in R^m.
    rtol : float
        Relative singular-value cut-off of the rank reduction, in (0, 1).
    tol : float
        Relative tolerance of the duality gap (see :func:`d_optimal_design`).
    max_iter : int
        Iteration limit of the solver.

    Returns
    -------
    MinimumVolumeEllipsoid
        Optimality (KKT) conditions: ``c_i^T M^{-1} c_i <= 1`` with equality where
        ``lambda_i > 0``, and ``sum_i lambda_i = r``.

    Raises
    ------
    ValueError
        If C is not a finite non-empty matrix, is zero, rtol is not in (0, 1), tol is not
        positive or max_iter is not a positive integer.
    RuntimeError
        If the solver does not converge.

    Notes
    -----
    [SMI] §3 and supplement ("Deriving and optimising the cloaking variables",
    eq. (6)); :doc:`/theory/dp-gp`.

    Examples
    --------
    >>> import numpy as np
    >>> from ssa_privacy.ellipsoid import minimum_volume_ellipsoid
    >>> E = minimum_volume_ellipsoid(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))
    >>> round(float(E.lambdas.sum()), 6), round(E.max_leverage, 6)
    (2.0, 1.0)
    """
    C = nonempty(as_matrix(C, "C"), "C")
    open_interval(rtol, "rtol")
    positive(tol, "tol")
    positive_int(max_iter, "max_iter")
    U, s, Vt = np.linalg.svd(C, full_matrices=False)
    if s.size == 0 or s[0] <= 0:
        raise ValueError("C is zero: the points are all at the origin")
    r = int(np.sum(s > rtol * s[0]))
    lambdas, g, gap, iterations = d_optimal_design(Vt[:r], tol=tol, max_iter=max_iter)
    design = (Vt[:r] * lambdas) @ Vt[:r].T
    residual = np.sum((s[r:, None] * Vt[r:]) ** 2, axis=0)
    round_off = (ROUND_OFF * s[0]) ** 2
    tau = float(max(residual.max(), round_off) / NULL_SPACE_SHARE) if r < C.shape[0] else 0.0
    leverages = g + (residual / tau if tau > 0 else 0.0)
    return MinimumVolumeEllipsoid(
        U[:, :r], s[:r], 0.5 * (design + design.T), tau, lambdas, leverages, gap, iterations
    )


def projected_gradient_design(C, *, learning_rate=0.05, tol=1e-5, max_iter=1000, seed=None):
    """Fixed-step projected gradient descent on the dual: the baseline of [SMI]'s code.

    Minimises ``-log|M(lambda)| + sum_i lambda_i`` with ``M(lambda) = sum lambda_i c_i c_i^T``
    by ``lambda <- max(0, lambda - learning_rate (1 - c_i^T M^{-1} c_i))`` from
    ``lambda ~ U(0, 0.08)``, stopping when no lambda moves by more than ``tol``: the
    optimiser of the authors' code of [SMI]. It has no optimality guarantee; it is
    provided only as the baseline of ``benchmarks/bench_dp.py`` (use
    :func:`minimum_volume_ellipsoid`). Also importable as ``cloaking_lambdas_gradient``
    from :mod:`ssa_privacy.privacy.cloaking`.

    Parameters
    ----------
    C : array_like, shape (m, n)
        Points as columns, of full row rank.
    learning_rate, tol : float
        Step size and stopping threshold of the authors' code.
    max_iter : int
        Iteration limit.
    seed : int or numpy.random.Generator, optional
        Initialisation.

    Returns
    -------
    lambdas : ndarray, shape (n,)
        The last iterate.
    iterations : int
        Steps taken.
    max_leverage : float
        ``max_i c_i^T M^{-1} c_i`` at the returned lambdas (1 at the optimum).

    Raises
    ------
    ValueError
        If C is not a finite non-empty matrix, a setting is not positive, or M(lambda)
        becomes singular (C rank deficient).
    TypeError
        On a setting of the wrong type or a bad seed.

    Notes
    -----
    [SMI] supplement eq. (6), as the authors' code runs it (see :doc:`/theory/dp-gp`),
    with a Cholesky solve in place of the pseudo-inverse.
    """
    C = nonempty(as_matrix(C, "C"), "C")
    learning_rate, tol = positive(learning_rate, "learning_rate"), positive(tol, "tol")
    max_iter = positive_int(max_iter, "max_iter")
    rng = random_generator(seed)
    lambdas = rng.uniform(0.0, 0.08, C.shape[1])

    def leverages(weights):
        try:
            factor = linalg.cho_factor((C * weights) @ C.T)
        except linalg.LinAlgError:
            raise ValueError("M(lambda) is singular: C is rank deficient") from None
        return np.sum(C * linalg.cho_solve(factor, C), axis=0)

    iteration = 0
    while iteration < max_iter:
        iteration += 1
        updated = np.maximum(0.0, lambdas - learning_rate * (1.0 - leverages(lambdas)))
        step = np.max(np.abs(updated - lambdas))
        lambdas = updated
        if step < tol:
            break
    return lambdas, iteration, float(np.max(leverages(lambdas)))
