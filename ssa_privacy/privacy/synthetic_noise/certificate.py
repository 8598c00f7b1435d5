"""The certificate of privacy-aware GP regression [TCB], proven in floating point.

The guarantee of a release ``W = Y + Z``, ``Z ~ N(0, Sigma)``, is the constraint

    Delta - K_{S,X} (K_{X,X} + V + Sigma)^{-1} K_{X,S} >= 0              [TCB (5)]

:func:`posterior_covariance_certificate` reports its *relative margin*

    mu* = sup{ mu < 1 : K_XX + V + Sigma - K_XS Delta_rho^{-1} K_SX / (1 - mu) >= 0 },

with ``Delta_rho = Delta + rho I`` for a resolution ``rho >= 0``: (5) holds for
``Delta_rho`` exactly when ``mu* >= 0``, and then it even holds for ``(1 - mu*)
Delta_rho``. When ``K_XX + V + Sigma`` is positive definite, ``mu*`` is the smallest
eigenvalue of ``Delta_rho^{-1/2} (Delta_rho - K_SX (K_XX + V + Sigma)^{-1} K_XS)
Delta_rho^{-1/2}``. The data-space form needs no inverse of ``K_XX + V + Sigma``, so it
also holds for noiseless data.

The margin is enclosed rigorously: a lower end from a floating-point Cholesky
factorisation of a deliberately pessimistic data-space matrix (whose success proves
positive semi-definiteness, after Rump 2006), an upper end from a Rayleigh quotient; both
account for every rounding error of the computation actually performed (Higham 2002,
Theorem 8.5 for triangular solves, Theorem 10.3 for Cholesky, (3.13) for products, with
``gamma_k = k u / (1 - k u)``). The derivation is in :doc:`/theory/privacy-aware-gp`,
section "Certificates in floating point".
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy.linalg import blas

from ssa_privacy._internal.matrix_validation import symmetric_matrix
from ssa_privacy._internal.validation import as_matrix, non_negative, open_interval
from ssa_privacy.privacy.mechanism import Certificate, FactoredCovariance, as_factored
from ssa_privacy.privacy.rounding import EXTRA as _EXTRA
from ssa_privacy.privacy.rounding import INFLATE as _INFLATE
from ssa_privacy.privacy.rounding import (
    UNIT_ROUNDOFF,
    cholesky_lower_bound,
    gamma,
    proven_lambda_min,
    rowsum,
)
from ssa_privacy.privacy.rounding import colsum as _colsum

__all__ = [
    "RULE",
    "Whitening",
    "posterior_covariance_certificate",
    "whiten",
]

#: Factor covering the rounding of a few operations on a main (not error) quantity.
_ROUND = 1.0 + 16 * UNIT_ROUNDOFF
#: Largest number of Cholesky tests of the lower end of the margin.
_MAX_TESTS = 24
#: Step between the tested margins (the gap below the estimate grows by this factor).
_STEP = 4.0

RULE = (
    "passed iff margin - tolerance >= 0: the exact relative margin of the floating-point "
    "inputs lies in [margin - tolerance, margin + tolerance] (rigorous bound)"
)


def _symmetrized(lower):
    """The symmetric matrix whose lower triangle is the lower triangle of ``lower``."""
    full = np.tril(lower)
    return full + np.tril(full, -1).T


@dataclass(frozen=True)
class Whitening:
    """``Y = L^{-1} K_SX`` for ``L L^T`` the computed Cholesky factor of ``Delta + rho I``.

    Parameters
    ----------
    Y : ndarray, shape (s, n)
        The computed ``L^{-1} K_SX``; ``G = K_XS (Delta + rho I)^{-1} K_SX`` is about
        ``Y^T Y``.
    eta : float
        Bound on ``||L^{-1} E L^{-T}||_2`` where ``L L^T = Delta + rho I + E``; then
        ``Y_exact^T Y_exact / (1 + eta) <= G <= Y_exact^T Y_exact / (1 - eta)`` (inf if
        no bound was proven).
    theta : float
        Bound on ``||Y - Y_exact||_2 / ||Y||_F`` from the triangular solve (inf if none).
    resolution : float
        rho (output units^2).
    lambda_low : float
        Proven lower bound on ``lambda_min(Delta + rho I)``.
    """

    Y: np.ndarray
    eta: float
    theta: float
    resolution: float
    lambda_low: float

    @property
    def frob2(self):
        """``||Y||_F^2`` (the trace of the computed G)."""
        return float(np.sum(self.Y**2))


def whiten(K_XS, Delta, resolution=0.0):
    """Whiten the sensitive covariances by ``Delta + rho I``, with rigorous error bounds.

    Parameters
    ----------
    K_XS : ndarray, shape (n, s)
        Prior covariance between training and sensitive inputs.
    Delta : ndarray, shape (s, s)
        Symmetric tolerance (output units^2).
    resolution : float
        rho >= 0 added to the diagonal of Delta (output units^2).

    Returns
    -------
    Whitening
        ``Y`` and the bounds ``eta`` (relative error of ``Y^T Y`` as G, in the Loewner
        order) and ``theta`` (triangular-solve error).

    Raises
    ------
    TypeError
        If an argument is not made of real numbers.
    ValueError
        If K_XS or Delta is not finite, Delta not square and symmetric with one row per
        column of K_XS, rho negative or not finite, or ``Delta + rho I`` not numerically
        positive definite.

    Notes
    -----
    With ``Delta_t = fl(Delta + rho I) = Delta + rho I + E_0`` (``|E_0| <= u |Delta_t|``,
    diagonal) and Higham (2002) Theorem 10.3, ``L L^T = Delta + rho I + E`` with ``||E||_2
    <= gamma_{s+2} || |L| ||_2^2 + u max_i (Delta_t)_ii``; ``|| |L| ||_2^2 <= min(||L||_F^2,
    ||L||_1 ||L||_inf)``. A shifted Cholesky test proves ``lambda_min(Delta + rho I) >=
    lambda_low``, so ``||L^{-1}||_2^2 <= 1 / (lambda_low - ||E||_2)`` and ``eta = ||E||_2
    / (lambda_low - ||E||_2)``. Each column of the computed ``Y`` solves ``(L + F_j) y_j =
    k_j`` with ``|F_j| <= gamma_{s+2} |L|`` (Theorem 8.5), so ``||y_j - y_j,exact|| <=
    theta ||y_j||`` with ``theta = gamma_{s+2} || |L| ||_2 ||L^{-1}||_2``.
    """
    K_XS = as_matrix(K_XS, "K_XS")
    symmetric_matrix(Delta, "Delta", K_XS.shape[1])
    resolution = non_negative(resolution, "resolution")
    s = len(Delta)
    shifted = np.array(Delta, dtype=float)
    shifted[np.diag_indices(s)] += resolution
    try:
        L = np.linalg.cholesky(shifted)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"Delta + {resolution:.3g} I is not numerically positive definite: smallest "
            f"eigenvalue {np.linalg.eigvalsh(shifted)[0]:.3g}; a resolution is needed"
        ) from None
    u = UNIT_ROUNDOFF
    diagonal = float(np.max(np.abs(np.diag(shifted))))
    norm_L2 = min(float(np.sum(L**2)), float(_colsum(L) * rowsum(L)))
    e_E = _INFLATE * (gamma(s + _EXTRA) * norm_L2 + u * diagonal)
    lambda_low = proven_lambda_min(shifted) - _INFLATE * u * diagonal
    Y = linalg.solve_triangular(L, K_XS.T, lower=True, check_finite=False)
    if lambda_low <= e_E:
        return Whitening(Y, np.inf, np.inf, float(resolution), lambda_low)
    inverse_norm2 = _INFLATE / (lambda_low - e_E)
    eta = _INFLATE * e_E * inverse_norm2
    theta = _INFLATE * gamma(s + _EXTRA) * np.sqrt(norm_L2 * inverse_norm2)
    return Whitening(Y, eta if eta < 1 else np.inf, theta, float(resolution), lambda_low)


class _Data:
    """The dense matrices of the data-space test and the bounds of their rounding."""

    def __init__(self, K_XX, V, whitening, noise):
        n = len(K_XX)
        Y = whitening.Y
        s = len(Y)
        self.whitening = whitening
        self.G = _symmetrized(blas.dsyrk(1.0, Y, trans=1, lower=1))
        if isinstance(noise, np.ndarray):
            U, lam = None, np.zeros(0)
        else:
            U, lam = noise.eigenvectors, np.asarray(noise.eigenvalues, dtype=float)
        r = len(lam)
        if U is None:
            Sigma, self.e_Sigma = noise, 0.0
        elif r:
            Sigma = _symmetrized(blas.dsyrk(1.0, U * np.sqrt(lam), trans=0, lower=1))
            absU = np.abs(U)
            spread = min(
                float(np.sum(lam * np.sum(U**2, axis=0))),
                float(np.max((absU * lam) @ (absU.T @ np.ones(n)))),
            )
            self.e_Sigma = _INFLATE * gamma(r + 3 + _EXTRA) * spread
        else:
            Sigma, self.e_Sigma = np.zeros((n, n)), 0.0
        self.C = K_XX + Sigma
        if np.ndim(V) == 0:
            self.C[np.diag_indices(n)] += V
            rows_V = abs(float(V))
        else:
            self.C += V
            rows_V = rowsum(V)
        self.rows_KVS = rowsum(K_XX) + rows_V + rowsum(Sigma)
        self.rows_G = rowsum(self.G)
        self.rows_C = rowsum(self.C)
        self.frob2 = whitening.frob2
        self.g_product = gamma(s + _EXTRA)
        self.g_chol = gamma(n + _EXTRA)
        self.n = n

    def absolute_errors(self, a, mu, t):
        """The absolute errors ``e_Sigma + e_G + e_form`` of :meth:`test` (output units^2)."""
        w = self.whitening
        e_G = (
            ((1 + t) * self.g_product + (1 + 1 / t) * w.theta**2)
            * self.frob2
            / ((1 - w.eta) * (1 - mu))
        )
        e_form = gamma(4) * (self.rows_KVS + a * self.rows_G)
        return _INFLATE * (self.e_Sigma + e_G + e_form)

    def test(self, mu, t):
        """True when the data-space matrix ``D_mu`` is proven positive semi-definite.

        ``D_mu = K_XX + V + Sigma - G_exact / (1 - mu)`` with ``G_exact = K_XS (Delta +
        rho I)^{-1} K_SX``; ``G_exact / (1 - mu) <= a Ghat + e_G I`` (Loewner) with ``a =
        (1 + t) / ((1 - eta)(1 - mu))``, so ``D_mu >= fl(C - a Ghat) - (e_Sigma + e_G +
        e_form) I`` and a successful Cholesky factorisation of that matrix shifted by the
        errors proves ``D_mu >= 0``.
        """
        w = self.whitening
        a = _ROUND * (1 + t) / ((1 - w.eta) * (1 - mu))
        errors = self.absolute_errors(a, mu, t)
        T = self.C - a * self.G
        diagonal = np.diag(T)
        trace = float(np.sum(np.abs(diagonal)))
        u = UNIT_ROUNDOFF
        shift = (
            _INFLATE**2
            * (
                errors
                + self.g_chol / (1 - self.g_chol) * trace
                + u * float(np.max(np.abs(diagonal)))
            )
            + np.finfo(float).tiny
        )
        T[np.diag_indices(self.n)] -= shift
        bound = cholesky_lower_bound(T)
        if bound is None:
            return False
        rounding = _INFLATE * u * float(np.max(np.abs(np.diag(T))))
        proven = shift + bound - rounding - errors
        return proven >= 0.0


def _estimate(data):
    """Floating-point estimate of the margin and the maximising direction v (n,)."""
    try:
        L_C = np.linalg.cholesky(data.C)
    except np.linalg.LinAlgError:
        return -np.inf, None
    Q = linalg.solve_triangular(L_C, data.whitening.Y.T, lower=True, check_finite=False)
    values, vectors = np.linalg.eigh(Q.T @ Q)
    v = linalg.solve_triangular(L_C, Q @ vectors[:, -1], lower=True, trans="T", check_finite=False)
    return float(1.0 - values[-1]), v


def _upper_end(data, v):
    """A rigorous upper bound on the margin from the Rayleigh quotient at v."""
    w = data.whitening
    if v is None or not np.all(np.isfinite(v)) or not np.isfinite(w.eta):
        return 1.0
    n, s = data.n, len(w.Y)
    norm_v = float(np.linalg.norm(v)) * (1 + gamma(n + _EXTRA))
    Yv_norm = float(np.linalg.norm(w.Y @ v)) * (1 - gamma(s + _EXTRA))
    frob = np.sqrt(w.frob2) * _INFLATE
    root = Yv_norm - (w.theta + gamma(n + _EXTRA)) * frob * norm_v
    if root <= 0:
        return 1.0
    g_low = root**2 / ((1 + w.eta) * _ROUND)
    Cv = float(v @ (data.C @ v)) * _ROUND
    c_high = Cv + _INFLATE * norm_v**2 * (
        gamma(2 * n + 2 * _EXTRA) * data.rows_C + gamma(2) * data.rows_KVS + data.e_Sigma
    )
    if c_high <= 0:
        return 1.0
    return min(1.0, 1.0 - g_low / c_high * (1 - 4 * UNIT_ROUNDOFF))


def _lower_end(data, estimate, start):
    """The largest tested margin proven by :meth:`_Data.test` (-inf if none)."""
    if not np.isfinite(estimate):
        return -np.inf, 0
    candidates, gap = [], start
    for _ in range(_MAX_TESTS):
        mu = estimate - gap
        if candidates and candidates[-1] > 0 > mu:
            candidates.append(0.0)
        candidates.append(mu)
        gap *= _STEP
    tests = 0
    for mu in candidates:
        tests += 1
        t = max((estimate - mu) / 4.0, data.whitening.theta, 1e-300)
        if mu < 1 and data.whitening.eta < 1 and data.test(mu, t):
            return mu, tests
    return -np.inf, tests


def posterior_covariance_certificate(K_XX, K_XS, Delta, noise, V, resolution=0.0, alpha=None):
    """Certificate of (5) with a rigorous bound on its rounding error (validated inputs).

    Parameters
    ----------
    K_XX : ndarray, shape (n, n)
        Symmetric prior covariance at the training inputs (output units^2).
    K_XS : ndarray, shape (n, s)
        Prior covariance between training and sensitive inputs.
    Delta : ndarray, shape (s, s)
        Symmetric tolerance (output units^2).
    noise : FactoredCovariance or ndarray, shape (n, n)
        Sigma: ``U diag(lambda) U^T`` taken exactly from its factors, or a symmetric
        matrix taken exactly as stored.
    V : float or ndarray, shape (n, n)
        Observation-noise variance (scalar times the identity) or covariance.
    resolution : float
        rho >= 0: (5) is certified for ``Delta + rho I`` (output units^2).
    alpha : float, optional
        The privacy level when ``Delta = alpha K_SS`` (recorded, and used to state the
        prior variance below which a direction of f(S) is not protected).

    Returns
    -------
    Certificate
        Notion ``"posterior-covariance"``; ``margin`` and ``tolerance`` (dimensionless)
        enclose the exact relative margin ``mu*``; ``passed`` iff ``margin - tolerance >=
        0``; evidence: the enclosure (``lower``, ``upper``), the floating-point estimate,
        the resolution, the error terms and the noise's trace and rank.

    Raises
    ------
    TypeError
        If an argument is not made of real numbers, or ``noise`` is neither a
        FactoredCovariance nor an array.
    ValueError
        If the arrays are not finite, of matching shapes and symmetric where documented,
        V or rho is negative, alpha is outside (0, 1), or ``Delta + rho I`` is not
        numerically positive definite. Definiteness of K_XX, V and Sigma is not checked
        here (:func:`~ssa_privacy.privacy.synthetic_noise.mechanism.privacy_certificate`
        checks it): an indefinite one can only make the certificate fail.

    Notes
    -----
    See the module docstring and :doc:`/theory/privacy-aware-gp`.
    """
    n = len(symmetric_matrix(K_XX, "K_XX"))
    as_matrix(K_XS, "K_XS", shape=(n, None))
    if isinstance(noise, FactoredCovariance):
        as_factored(noise, n, "noise")
    elif isinstance(noise, np.ndarray):
        symmetric_matrix(noise, "noise", n)
    else:
        raise TypeError(
            f"noise must be a FactoredCovariance or an array, got {type(noise).__name__}"
        )
    if np.ndim(V) == 0:
        non_negative(V, "V")
    else:
        symmetric_matrix(V, "V", n)
    if alpha is not None:
        open_interval(alpha, "alpha")
    dense = isinstance(noise, np.ndarray)
    whitening = whiten(K_XS, Delta, resolution)
    data = _Data(K_XX, V, whitening, noise)
    estimate, v = _estimate(data)
    upper = _upper_end(data, v) if np.isfinite(estimate) else 1.0
    start = max(2 * (whitening.eta + whitening.theta), 64 * UNIT_ROUNDOFF)
    if v is not None and np.isfinite(whitening.eta):
        curvature = float(v @ (data.C @ v)) / max(float(v @ v), np.finfo(float).tiny)
        if curvature > 0:
            start = max(start, 4 * data.absolute_errors(1.0, 0.0, 0.5) / curvature)
    lower, tests = _lower_end(data, min(estimate, upper), start)
    if np.isfinite(lower):
        margin = 0.5 * (lower + upper)
        tolerance = (0.5 * (upper - lower)) * (1 + 4 * UNIT_ROUNDOFF) + 4 * np.spacing(margin)
    else:
        margin, tolerance = (estimate if np.isfinite(estimate) else -np.inf), np.inf
    parameters = {"sensitive_inputs": K_XS.shape[1], **({} if alpha is None else {"alpha": alpha})}
    evidence = {
        "lower": lower,
        "upper": upper,
        "margin_estimate": estimate,
        "resolution": whitening.resolution,
        "whitening_error": whitening.eta,
        "solve_error": whitening.theta,
        "noise_rounding": data.e_Sigma,
        "cholesky_tests": tests,
        "noise_trace": float(np.trace(noise)) if dense else noise.trace,
        "noise_rank": None if dense else noise.rank,
        "rule": RULE,
    }
    if alpha is not None and alpha < 1:
        evidence["unprotected_prior_variance"] = whitening.resolution / (1.0 - alpha)
    return Certificate(
        notion="posterior-covariance",
        parameters=parameters,
        passed=bool(margin - tolerance >= 0.0),
        margin=float(margin),
        tolerance=float(tolerance),
        evidence=evidence,
    )
