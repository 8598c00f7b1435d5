"""Sigma_opt of (8) by block Lanczos, for many training inputs and few sensitive ones [TCB].

The matrix ``A = K_XS Delta^{-1} K_SX - K_XX - V`` of (8) has at most ``s = |S|``
positive eigenvalues. Their number is the inertia of an ``s x s`` matrix once
``K_XX + V`` is factored (Sylvester's law of inertia), so a block Lanczos iteration can be
asked for exactly that many eigenpairs and stopped once an a-posteriori bound on the
error of Sigma is met. A is applied as an operator (three matrix products per block), so
the cost is one Cholesky factorisation plus a few dozen products with K_XX, against the
``4 n^3 / 3`` flops of the dense tridiagonal reduction. The theory is in
:doc:`/theory/privacy-aware-gp` (section "The rank bound and the subset eigensolver");
:class:`~ssa_privacy.privacy.synthetic_noise.design.SyntheticNoiseDesign` calls
:func:`lanczos_psd_part` and falls back to the dense subset eigensolver when it declines.
"""

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

from ssa_privacy._internal.matrix_validation import PSD_RTOL
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.rounding import UNIT_ROUNDOFF

__all__ = [
    "INERTIA_MAX_ERROR",
    "KRYLOV_BLOCK",
    "KRYLOV_MAX_FRACTION",
    "KRYLOV_RTOL",
    "KRYLOV_SEED",
    "lanczos_psd_part",
]

#: Columns of the (random, seeded) start block of the Lanczos iteration.
KRYLOV_BLOCK = 32
#: Seed of the start block: designs are deterministic.
KRYLOV_SEED = 0
#: Target of the a-posteriori bound on ``||Sigma - Sigma_opt||_F / ||Sigma_opt||_F``.
KRYLOV_RTOL = 1e-11
#: Largest Krylov dimension, as a fraction of n, before the subset eigensolver takes over.
KRYLOV_MAX_FRACTION = 0.5
#: Largest relative error bound of the eigenvalues of the s x s inertia matrix (``2 n u``
#: times the condition number of ``K_XX + V``, inflated) for which the Lanczos solver is used.
INERTIA_MAX_ERROR = 1e-4


def lanczos_psd_part(K_XX, V, Y, scale):
    """Sigma_opt of (8) for ``A = scale Y^T Y - K_XX - V`` by block Lanczos, or None.

    Parameters
    ----------
    K_XX : ndarray, shape (n, n)
        Validated prior covariance at the training inputs.
    V : float or ndarray, shape (n, n)
        Observation-noise variance or covariance.
    Y : ndarray, shape (s, n)
        Whitened sensitive covariances, ``G = Y^T Y``.
    scale : float
        Factor of G (``1 / (1 - m)`` for a design margin m).

    Returns
    -------
    FactoredCovariance or None
        The positive eigenpairs of A (method ``"lanczos"``, rank <= s), or None when
        ``K_XX + V`` does not factorise or the iteration does not meet ``KRYLOV_RTOL``
        within ``KRYLOV_MAX_FRACTION * n`` basis vectors (the caller then solves densely).

    Notes
    -----
    With ``K_XX + V = L L^T`` and ``Z = L^{-1} Y^T``, A is congruent to ``Z Z^T - I``, so
    (Sylvester) its number of positive eigenvalues is the number of eigenvalues of the
    s x s matrix ``scale Z^T Z`` above 1 (:func:`_inertia`). Exactly that many largest
    eigenpairs of A are computed by block Lanczos (Golub and Van Loan, *Matrix
    Computations*, 4th ed., section 10.3.6) with full reorthogonalisation and a seeded
    random start block. Ritz vectors U (orthonormal) with values Theta and residual
    ``R = A U - U Theta`` span an exact invariant subspace of ``A - R U^T - U R^T``, within
    ``sqrt(2) ||R||_F`` of A, and the positive part is 1-Lipschitz in the Frobenius norm
    (Kittaneh 1985), so ``sqrt(2) ||R||_F`` bounds the error in Sigma once the positive
    Ritz values exceed it and match the count (up to eigenvalues within the count's
    rounding band of 0). The bound is met to ``KRYLOV_RTOL`` relative and checked from the
    stored products ``A Q`` before returning.
    """
    inertia = _inertia(K_XX, V, Y, scale)
    if inertia is None:
        return None
    n, (p_min, p_max) = Y.shape[1], inertia
    if p_max == 0:
        return FactoredCovariance(np.zeros(0), np.zeros((n, 0)), "lanczos")
    lanczos = _BlockLanczos(
        _design_operator(K_XX, V, Y, scale), n, np.random.default_rng(KRYLOV_SEED)
    )
    pairs = _top_eigenpairs(lanczos, p_min, p_max, KRYLOV_MAX_FRACTION * n)
    return None if pairs is None else FactoredCovariance(*pairs, "lanczos")


def _inertia(K_XX, V, Y, scale):
    """Bounds ``(p_min, p_max)`` on the number of positive eigenvalues of (8), or None.

    One Cholesky factorisation ``K_XX + V = L L^T`` and the eigenvalues f of the s x s
    matrix ``scale Z^T Z``, ``Z = L^{-1} Y^T``: p is the number of f above 1. The
    factorisation and the solve are backward stable with ``||E|| <= 2 n u ||K_XX + V||``
    (Higham 2002, Theorems 10.3 and 8.5), so each computed f is within a relative
    ``2 n u kappa`` of its exact value (kappa bounded by :func:`_condition_bound`, and
    inflated by 4); f within that of 1 count in p_max only. None if the factorisation
    breaks down or that relative error exceeds ``INERTIA_MAX_ERROR``.
    """
    n = len(K_XX)
    if np.ndim(V) == 0:
        M = K_XX.T.copy(order="F")
        M[np.diag_indices_from(M)] += V
    else:
        M = K_XX.T + V.T  # Fortran order, like the transposes
    condition = _condition_bound(K_XX, V)
    norm = lapack.dlange("1", M) if condition is None else None
    L, info = lapack.dpotrf(M, lower=1, clean=0, overwrite_a=1)
    if info != 0:
        return None
    if condition is None:
        condition = 1.0 / max(lapack.dpocon(L, norm, uplo="L")[0], np.finfo(float).tiny)
    error = 8.0 * n * UNIT_ROUNDOFF * condition
    if error > INERTIA_MAX_ERROR:
        return None
    Z = linalg.solve_triangular(L, Y.T, lower=True, check_finite=False)
    del L, M
    f = linalg.eigvalsh(scale * (Z.T @ Z), check_finite=False)
    rounding = 4.0 * len(f) * UNIT_ROUNDOFF * max(f[-1], 0.0)
    p_min = int(np.sum(f * (1.0 - error) - rounding > 1.0))
    return p_min, int(np.sum(f / (1.0 - error) + rounding > 1.0))


def _condition_bound(K_XX, V):
    """``tr(K_XX + V) / lambda_low`` for a scalar V, None for a matrix V or no such bound.

    K_XX passed :func:`~ssa_privacy._internal.matrix_validation.psd_matrix`: a Cholesky
    factorisation of ``K_XX + PSD_RTOL max|K_XX| I`` ran to completion, so (Rump 2006)
    ``lambda_min(K_XX) >= -PSD_RTOL max|K_XX| - 2 n u tr(K_XX)``; ``max|K_XX|`` is at
    most twice the largest diagonal entry, and ``lambda_low`` is V minus that bound.
    """
    if np.ndim(V):
        return None
    diagonal = np.diagonal(K_XX)
    trace = float(np.sum(diagonal))
    low = V - 2.0 * PSD_RTOL * float(np.max(diagonal)) - 2.0 * len(K_XX) * UNIT_ROUNDOFF * trace
    return (trace + len(K_XX) * V) / low if low > 0 else None


def _design_operator(K_XX, V, Y, scale):
    """The map ``X -> (scale Y^T Y - K_XX - V) X`` on blocks X of shape (n, b)."""

    def apply(X):
        W = scale * (Y.T @ (Y @ X))
        W -= K_XX @ X
        W -= V * X if np.ndim(V) == 0 else V @ X
        return W

    return apply


def _top_eigenpairs(lanczos, p_min, p_max, capacity):
    """The positive pairs among the ``p_max`` largest, once their error bound is met.

    Rayleigh-Ritz runs at growing basis sizes, the next one extrapolated from the decay of
    the bound; at least p_min Ritz values must be positive. Returns ``(values, vectors)``,
    or None if the basis reaches ``capacity`` (or half of it while the extrapolation says
    it would need more than twice that), or the explicit residual check fails.
    """
    check_at, history = max(3 * p_max, 8 * KRYLOV_BLOCK), []
    while True:
        growing = lanczos.step()
        if growing and lanczos.size < min(check_at, capacity):
            continue
        values, coefficients, residuals, norm = lanczos.ritz(p_max)
        positive = values > 0
        tolerance = KRYLOV_RTOL * linalg.norm(values[positive]) + 1e3 * UNIT_ROUNDOFF * norm
        bound = np.sqrt(2.0) * linalg.norm(residuals)
        if positive.sum() >= p_min and bound <= tolerance:
            return _checked(lanczos, values[positive], coefficients[:, positive], tolerance)
        history.append((lanczos.size, bound / tolerance))
        predicted = _extrapolated_size(history)
        hopeless = 2 * lanczos.size >= capacity and 2 * capacity < predicted < np.inf
        if not growing or lanczos.size >= capacity or hopeless:
            return None
        check_at = max(min(1.5 * lanczos.size, predicted), lanczos.size + 2 * KRYLOV_BLOCK)


def _extrapolated_size(history):
    """Basis size at which the bound meets its target, log-linear in the last two checks.

    ``history`` holds ``(size, bound / target)`` per check; inf unless the ratio decreased.
    """
    if len(history) < 2 or history[-2][1] <= history[-1][1]:
        return np.inf
    (previous, earlier), (size, ratio) = history[-2:]
    return size + (size - previous) * np.log(ratio) / np.log(earlier / ratio)


def _checked(lanczos, values, coefficients, tolerance):
    """``(values, U)`` if the explicit residual and orthonormality of U confirm the bound."""
    U, AU = lanczos.vectors(coefficients)
    residual = np.sqrt(2.0) * linalg.norm(AU - U * values)
    orthogonality = linalg.norm(U.T @ U - np.eye(len(values)))
    if residual > 4.0 * tolerance or orthogonality > KRYLOV_RTOL:
        return None
    return values, U


class _BlockLanczos:
    """Block Lanczos with full reorthogonalisation on a symmetric operator.

    After each :meth:`step` the processed basis Q (n, d) and the next block satisfy
    ``A Q = Q H + Q_next B E^T``: H (d, d) is the projection ``Q^T A Q`` and B the
    coupling of the last processed block to the next one. The images ``A Q`` are kept for
    the final residual check.
    """

    def __init__(self, apply, n, rng):
        self._apply = apply
        start = np.linalg.qr(rng.standard_normal((n, KRYLOV_BLOCK)))[0]
        self._Q = np.empty((n, 8 * KRYLOV_BLOCK), order="F")
        self._AQ = np.empty_like(self._Q)
        self._H = np.zeros((8 * KRYLOV_BLOCK, 8 * KRYLOV_BLOCK))
        self._Q[:, :KRYLOV_BLOCK] = start
        self._ends = [0, KRYLOV_BLOCK]
        self._coupling = np.zeros((0, KRYLOV_BLOCK))

    @property
    def size(self):
        """The number d of basis vectors whose image is known."""
        return self._ends[-2]

    def step(self):
        """Apply A to the newest block and orthogonalise; False once the space is invariant.

        The new block is orthogonalised by the three-term recurrence and one classical
        Gram-Schmidt pass against every block; when a direction of the result is below
        1e-2 of the block's norm before that pass, the normalised block is orthogonalised
        once more (the criterion of Daniel, Gragg, Kaufman and Stewart, 1976), which keeps
        Q orthonormal to working precision.
        """
        low, high = self._ends[-2], self._ends[-1]
        if low == high:
            return False
        W = self._apply(self._Q[:, low:high])
        self._AQ[:, low:high] = W
        drop = 64 * UNIT_ROUNDOFF * linalg.norm(W)
        self._project(W, self._ends[-3] if len(self._ends) > 2 else 0, low, high)
        before = np.sqrt(linalg.eigvalsh(W.T @ W, check_finite=False)[-1])  # ||W||_2
        self._project(W, 0, low, high)
        Q, R = np.linalg.qr(W)
        U, singular, Vt = np.linalg.svd(R)
        keep = singular > drop
        block, coupling = Q @ U[:, keep], singular[keep, None] * Vt[keep]
        if keep.any() and singular[keep].min() < 1e-2 * before:
            self._project(block, 0, low, high, coupling)
            block, R = np.linalg.qr(block)
            coupling = R @ coupling
        width = block.shape[1]
        self._reserve(high + width)
        self._Q[:, high : high + width] = block
        self._H[high : high + width, low:high] = coupling
        self._coupling = coupling
        self._ends.append(high + width)
        return width > 0

    def _project(self, W, first, low, high, coupling=None):
        """Remove from W (in place) its components on basis columns ``first:high``.

        The coefficients, times ``coupling`` when W is a normalised block ``W coupling``
        of the image of block ``low:high``, are added to that block's column of H.
        """
        C = self._Q[:, first:high].T @ W
        W -= self._Q[:, first:high] @ C
        self._H[first:high, low:high] += C if coupling is None else C @ coupling

    def _reserve(self, columns):
        """Grow the storage (doubling) to hold ``columns`` basis vectors."""
        if columns <= self._Q.shape[1]:
            return
        size = max(columns, 2 * self._Q.shape[1])
        for name in ("_Q", "_AQ"):
            old = getattr(self, name)
            new = np.empty((old.shape[0], size), order="F")
            new[:, : self._ends[-1]] = old[:, : self._ends[-1]]
            setattr(self, name, new)
        H = np.zeros((size, size))
        H[: len(self._H), : len(self._H)] = self._H
        self._H = H

    def ritz(self, count):
        """The ``count`` largest Ritz pairs of the processed basis.

        Returns the values (ascending), their coefficients (d, count) in the basis, the
        residual norms ``||A Q c - theta Q c|| = ||B c_last||`` and the 1-norm of H.
        """
        d, last = self.size, self._ends[-3]
        H = np.triu(self._H[:d, :d])
        H += np.triu(H, 1).T
        norm = linalg.norm(H, 1)
        k = min(count, d)
        values, coefficients = linalg.eigh(
            H, subset_by_index=[d - k, d - 1], driver="evr", overwrite_a=True, check_finite=False
        )
        residuals = np.linalg.norm(self._coupling @ coefficients[last:d], axis=0)
        return values, coefficients, residuals, norm

    def vectors(self, coefficients):
        """The Ritz vectors ``Q C`` (n, k) and their images ``A Q C``."""
        d = self.size
        return self._Q[:, :d] @ coefficients, self._AQ[:, :d] @ coefficients
