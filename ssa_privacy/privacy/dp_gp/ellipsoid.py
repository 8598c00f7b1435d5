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
:func:`d_optimal_design`: a few multiplicative steps rank the points, then a primal-dual
interior-point method works on a set of candidate points (its Newton system has their
number as size and is built from the rank-r factor), puts back any point left outside
that violates its constraint, and stops on a duality-gap certificate. The result is then
scaled so that every point is inside as computed, whatever the accuracy: privacy rests
on feasibility, only utility on optimality. The differentially private cloaking
mechanism of :mod:`ssa_privacy.privacy.dp_gp.cloaking` uses it for its noise shape; the
theory is on :doc:`/theory/dp-gp`.

References
----------
Silvey, Titterington and Torsney (1978), "An algorithm for optimal designs on a finite
design space", Comm. Statist. Theory Methods 7. Mehrotra (1992), "On the implementation
of a primal-dual interior point method", SIAM J. Optim. 2. Sun and Freund (2004),
"Computation of minimum-volume covering ellipsoids", Oper. Res. 52. Nocedal and Wright
(2006), Numerical Optimization, 2nd ed., §14.2 and §19.3. Todd and Yildirim (2007), "On
Khachiyan's algorithm for the computation of minimum-volume enclosing ellipsoids",
Discrete Appl. Math. 155 (the former Frank-Wolfe phase).
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy import linalg

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_matrix,
    nonempty,
    open_interval,
    positive,
    positive_int,
)
from ssa_privacy.privacy.dp_gp._interior_point import (
    MULTIPLICATIVE_STEPS,
    START_SLACK,
    multiplicative,
    rounds,
)

__all__ = [
    "MinimumVolumeEllipsoid",
    "NULL_SPACE_SHARE",
    "ROUND_OFF",
    "d_optimal_design",
    "minimum_volume_ellipsoid",
    "projected_gradient_design",
]

#: Share of the unit Mahalanobis budget given to the directions dropped by the rank
#: reduction (see :func:`minimum_volume_ellipsoid`).
NULL_SPACE_SHARE = 1e-3
#: Round-off level of the points, relative to the largest singular value of C; the
#: variance in the dropped directions is at least ``(ROUND_OFF s_max)^2 / NULL_SPACE_SHARE``.
ROUND_OFF = 64 * np.finfo(float).eps


@dataclass(frozen=True)
class MinimumVolumeEllipsoid:
    """The minimum-volume origin-centred ellipsoid ``{x : x^T M^{-1} x <= 1}`` around C.

    ``M = U S A S U^T + tau (I - U U^T)`` where ``U`` (m x r) and ``S`` (r x r) are the
    kept left singular vectors and values of C, ``A = scale * sum_i lambda_i p_i p_i^T``
    with ``p_i`` the kept right singular coordinates of point i (the information matrix
    of the design, in whitened coordinates), and ``tau`` covers the dropped directions.

    Parameters
    ----------
    basis : ndarray, shape (m, r)
        U, orthonormal basis of the kept span of the points.
    singular_values : ndarray, shape (r,)
        The kept singular values of C (units of the points).
    design : ndarray, shape (r, r)
        A, ``scale`` times the information matrix ``sum_i lambda_i p_i p_i^T``
        (whitened coordinates).
    null_variance : float
        tau, the variance of M in the dropped directions (0 when none is needed).
    lambdas : ndarray, shape (n,)
        The solver's dual variables lambda_i >= 0 (``r`` times the D-optimal design
        weights; sum = r at the optimum).
    leverages : ndarray, shape (n,)
        ``c_i^T M^{-1} c_i`` including the dropped directions, as recomputed by
        :meth:`mahalanobis_squared` from the returned factors (at most 1: every column
        is inside).
    duality_gap : float
        The solver's optimality certificate in the kept subspace,
        ``r ln(max_i g_i) + sum_i lambda_i - r`` with ``g_i = p_i^T (sum_j lambda_j p_j
        p_j^T)^{-1} p_i``: an upper bound on how far ``log det`` of the information
        matrix, scaled by ``max_i g_i`` to feasibility, is from the optimum (at most
        ``r tol``). The returned kept part is scaled by ``scale`` instead, which also
        makes room for the dropped directions; its excess over the optimum is at most
        ``duality_gap + r ln(scale / max_i g_i)``, the last term at most about
        ``r NULL_SPACE_SHARE``.
    iterations : int
        Interior-point (Newton) steps of :func:`d_optimal_design`.
    scale : float
        The factor applied to the solver's M so that every column is inside as computed
        (``max_i c_i^T M^{-1} c_i`` of the unscaled M, up to round-off).
    """

    basis: np.ndarray
    singular_values: np.ndarray
    design: np.ndarray
    null_variance: float
    lambdas: np.ndarray
    leverages: np.ndarray
    duality_gap: float
    iterations: int
    scale: float = 1.0

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
        """``max_i c_i^T M^{-1} c_i``, at most 1 (every column inside), 1 up to round-off."""
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
        coordinates = U.T @ C
        factor = linalg.cholesky(self.design, lower=True)
        kept = linalg.solve_triangular(
            factor, coordinates / self.singular_values[:, None], lower=True
        )
        kept = np.einsum("ij,ij->j", kept, kept)
        residual = np.sum((C - U @ coordinates) ** 2, axis=0)
        if self.null_variance > 0:
            return kept + residual / self.null_variance
        return kept


def d_optimal_design(points, tol=1e-8, max_iter=200):
    """Solve the D-optimal design dual ``min_{lambda >= 0} -log det M(lambda) + sum_i lambda_i``.

    ``M(lambda) = sum_i lambda_i p_i p_i^T``; at the optimum M is the smallest-volume
    matrix with ``p_i^T M^{-1} p_i <= 1`` for all i (the minimum-volume ellipsoid).

    1. Warm start: ``MULTIPLICATIVE_STEPS`` (10) steps of the multiplicative algorithm
       from uniform weights, on all the points.
    2. A primal-dual interior-point method (Mehrotra's predictor-corrector) on a
       working set, first all the points. Its Newton system has the size of the
       working set and is built from the rank-r factor ``L^{-1} P`` (``M = L L^T``);
       the points leaving the support are removed from it as it converges, a bounded
       share of M at a time, so that the system shrinks to about the support.
    3. The g of all points are recomputed; should a removed point violate
       ``g_i <= 1`` enough to miss the gap, the violators are put back (warm start)
       and step 2 resumes, as in the active-set strategy of Sun and Freund (2004).

    It stops when the duality gap ``r ln(max_i g_i) + sum_i lambda_i - r`` over all
    points (an upper bound on ``log det M_feasible - log det M_opt``, where
    ``M_feasible`` is M scaled by ``max_i g_i`` so that every point is just inside)
    is at most ``r tol``.

    Parameters
    ----------
    points : ndarray, shape (r, n)
        Points p_i as columns, spanning R^r.
    tol : float
        Relative tolerance of the duality gap (the gap is at most ``r tol``).
    max_iter : int
        Limit on interior-point (Newton) steps, all rounds together.

    Returns
    -------
    lambdas : ndarray, shape (n,)
        Dual variables (sum r at the optimum; exactly 0 off the final support, up to
        lambdas that move M by at most ``tol / 4`` together).
    g : ndarray, shape (n,)
        ``p_i^T M(lambda)^{-1} p_i``, recomputed from a fresh factorisation.
    gap : float
        The duality gap at the returned lambdas (at most ``r tol``).
    iterations : int
        Interior-point steps taken.

    Raises
    ------
    ValueError
        If the points are not a finite non-empty matrix spanning R^r, ``tol`` is not
        positive or ``max_iter`` is not a positive integer.
    RuntimeError
        If the gap is not met in ``max_iter`` steps, or is missed by round-off alone
        (a tolerance near machine precision).

    Notes
    -----
    [SMI] supplement, eq. (6) is the gradient ``1 - p_i^T M^{-1} p_i`` of this
    objective; the theory page :doc:`/theory/dp-gp` derives the duality gap.
    Multiplicative algorithm: Silvey, Titterington and Torsney (1978). Interior point:
    Mehrotra (1992); Nocedal and Wright (2006), §14.2 and §19.3; the active-set
    strategy for minimum-volume ellipsoids: Sun and Freund (2004).
    """
    points = nonempty(as_matrix(points, "points"), "points")
    tol, max_iter = positive(tol, "tol"), positive_int(max_iter, "max_iter")
    try:
        lambdas, g = multiplicative(points, MULTIPLICATIVE_STEPS)
    except linalg.LinAlgError:
        raise ValueError("the points do not span R^r") from None
    slacks = np.maximum(1.0 - g, 0.0) + START_SLACK
    return rounds(points, lambdas, slacks, tol, max_iter)


def minimum_volume_ellipsoid(C, *, rtol=1e-8, tol=1e-8, max_iter=200):
    """The minimum-volume ellipsoid around the columns of C: min log det M s.t. ``c_i^T M^{-1} c_i <= 1``.

    The columns of C are first reduced to their numerical span (singular values above
    ``rtol`` times the largest) and whitened; the problem is affine invariant, so the
    optimum is unchanged and the solver stays well conditioned. The dual is solved by
    :func:`d_optimal_design`, giving ``M = sum_i lambda_i c_i c_i^T``. The dropped
    directions get variance
    ``tau = max(max_i ||P_perp c_i||^2, (ROUND_OFF s_max)^2) / NULL_SPACE_SHARE``, so
    that the components of the points there (including round-off) are also enclosed
    (their share of each ``c_i^T M^{-1} c_i`` is at most ``NULL_SPACE_SHARE``).
    Finally M is scaled so that every column is inside as computed:
    ``max_i c_i^T M^{-1} c_i <= 1`` holds in floating point for
    :meth:`MinimumVolumeEllipsoid.mahalanobis_squared` of the returned ellipsoid,
    whatever the accuracy of the solver (the privacy of the cloaking rests on it).

    Parameters
    ----------
    C : array_like, shape (m, n)
        The n points, as columns, in R^m.
    rtol : float
        Relative singular-value cut-off of the rank reduction, in (0, 1).
    tol : float
        Relative tolerance of the duality gap (see :func:`d_optimal_design`): the kept
        part of M is within ``r tol`` of the optimum in log-determinant.
    max_iter : int
        Limit on the solver's interior-point steps.

    Returns
    -------
    MinimumVolumeEllipsoid
        Optimality (KKT) conditions: ``c_i^T M^{-1} c_i <= 1`` with equality where
        ``lambda_i > 0``, and ``sum_i lambda_i = r``; ``duality_gap`` certifies them.

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
    >>> from ssa_privacy.privacy.dp_gp.ellipsoid import minimum_volume_ellipsoid
    >>> E = minimum_volume_ellipsoid(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))
    >>> round(float(E.lambdas.sum()), 6), round(E.max_leverage, 6)
    (2.0, 1.0)
    >>> bool(E.mahalanobis_squared(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])).max() <= 1)
    True
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
    root = Vt[:r] * np.sqrt(lambdas)
    design = root @ root.T
    residual = np.sum((s[r:, None] * Vt[r:]) ** 2, axis=0)
    round_off = (ROUND_OFF * s[0]) ** 2
    tau = float(max(residual.max(), round_off) / NULL_SPACE_SHARE) if r < C.shape[0] else 0.0
    leverages = g + (residual / tau if tau > 0 else 0.0)
    solved = MinimumVolumeEllipsoid(
        U[:, :r], s[:r], 0.5 * (design + design.T), tau, lambdas, leverages, gap, iterations
    )
    return _inside(solved, C, float(np.max(leverages)))


def _inside(ellipsoid, C, scale):
    """The ellipsoid scaled so that every column of C is inside as computed.

    Starts from ``scale`` (the solver's largest leverage) and multiplies it by the
    recomputed largest leverage (and one more ulp) until
    :meth:`MinimumVolumeEllipsoid.mahalanobis_squared` is at most 1 for every column;
    one or two recomputations in practice.
    """
    while True:
        scaled = replace(
            ellipsoid,
            design=scale * ellipsoid.design,
            null_variance=scale * ellipsoid.null_variance,
            scale=scale,
        )
        leverages = scaled.mahalanobis_squared(C)
        worst = float(np.max(leverages))
        if worst <= 1.0:
            return replace(scaled, leverages=leverages)
        scale = float(np.nextafter(scale * worst, np.inf))


def projected_gradient_design(C, *, learning_rate=0.05, tol=1e-5, max_iter=1000, seed=None):
    """Fixed-step projected gradient descent on the dual: the baseline of [SMI]'s code.

    Minimises ``-log|M(lambda)| + sum_i lambda_i`` with ``M(lambda) = sum lambda_i c_i c_i^T``
    by ``lambda <- max(0, lambda - learning_rate (1 - c_i^T M^{-1} c_i))`` from
    ``lambda ~ U(0, 0.08)``, stopping when no lambda moves by more than ``tol``: the
    optimiser of the authors' code of [SMI]. It has no optimality guarantee; it is
    provided only as the baseline of ``benchmarks/bench_dp.py`` (use
    :func:`minimum_volume_ellipsoid`).

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
