"""The noise scale of a posterior-sampling release, enclosed in floating point.

The Renyi-DP certificate of :class:`~ssa_privacy.privacy.posterior_sampling.mechanism.
PosteriorSamplingMechanism` needs the largest ``c`` with ``Sigma >= c S`` (Loewner
order) for the stored noise ``Sigma = U diag(lambda) U^T`` and the mechanism's
covariance ``S = sigma^2 k_D + eta^2 k`` computed from the floating-point inputs, and a
proof that ``Sigma <= (1 + FAMILY_RTOL) c S`` (the noise belongs to the family the bound
covers). This module encloses ``c`` rigorously: the kernel entries, the Cholesky factor
of ``K_XX + r^2 I`` (Higham 2002, Theorem 10.3), the triangular solve (Theorem 8.5) and
the products ((3.13)) carry bounded errors; the lower end comes from shifted Cholesky
tests (Rump 2006), the upper end from a Rayleigh quotient. The derivation is in
:doc:`/theory/posterior-sampling`, section "Certificates in floating point".
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy import linalg

from ssa_privacy.privacy.rounding import (
    EXTRA,
    INFLATE,
    UNIT_ROUNDOFF,
    cholesky_lower_bound,
    gamma,
    rowsum,
)

__all__ = [
    "FAMILY_RTOL",
]

#: Resolution of the family check: a noise certifies only if it is proven to lie between
#: ``c`` and ``(1 + FAMILY_RTOL) c`` times the mechanism's covariance (Loewner order);
#: the bound covers the mechanism's family, nothing else.
FAMILY_RTOL = 1e-6
#: Relative error assumed of np.exp: 4 ulps (glibc's exp is within 1, numpy's SIMD/SVML
#: kernels within 4).
_EXP_ERROR = 8 * UNIT_ROUNDOFF
#: Largest number of Cholesky tests of the lower end of the noise scale.
_MAX_TESTS = 24
#: Factor between the gaps of successive tests.
_STEP = 4.0


def _lower_symmetric(A):
    """The symmetric matrix whose lower triangle is that of A (exact: no arithmetic)."""
    lower = np.tril(A)
    return lower + np.tril(lower, -1).T


@dataclass(frozen=True)
class _Enclosed:
    """A computed symmetric matrix and a bound on ``||computed - exact||_2``."""

    matrix: np.ndarray
    error: float


def _kernel_enclosure(A, B, lengthscale):
    """``exp(-|a - b| / l)`` and ``rel`` with ``|K_computed - K_exact| <= rel K_computed`` entrywise.

    ``t = fl(fl(|a - b|) / l) = t_exact (1 + theta)``, ``|theta| <= gamma_2``, and np.exp
    is within 4 ulps (``_EXP_ERROR`` = 8u relative), so the computed entry is ``exp(-t)
    exp(-t theta) (1 + d)``: off by at most ``rho = expm1(gamma_2 t) (1 + 8u) + 8u``
    relative to the exact one, hence ``rho / (1 - rho)`` relative to itself.
    """
    t = np.abs(np.subtract.outer(A, B)) / lengthscale
    x = gamma(2) / (1.0 - gamma(2)) * float(np.max(t))
    rho = float(np.expm1(x)) * (1.0 + _EXP_ERROR) + _EXP_ERROR
    return np.exp(-t), INFLATE * rho / (1.0 - rho)


def _ridge_factor(K_XX, relative, ridge):
    """L with ``L L^T = C + E`` for ``C = K_XX + r^2 I`` (exact), ``|| |L| ||_2^2`` and ``||E||_2``.

    ``fl(K + r^2 I)`` differs from C by the kernel errors (``rel rowsum(K)``) and the two
    roundings of the diagonal (``gamma_2 max C_ii``); Cholesky adds ``|E_1| <= gamma_{n+2}
    |L| |L^T|``, ``||E_1||_2 <= gamma_{n+2} || |L| ||_2^2`` (Higham Theorem 10.3), with
    ``|| |L| ||_2^2 <= min(||L||_F^2, ||L||_1 ||L||_inf)``.
    """
    C = K_XX.copy()
    C[np.diag_indices_from(C)] += ridge * ridge
    L = np.linalg.cholesky(C)
    absL = np.abs(L)
    norm2 = INFLATE * min(
        float(np.sum(L**2)), float(np.max(np.sum(absL, axis=0)) * np.max(np.sum(absL, axis=1)))
    )
    error = INFLATE * (
        relative * rowsum(K_XX)
        + gamma(2) * float(np.max(np.diag(C)))
        + gamma(len(C) + EXTRA) * norm2
    )
    return L, norm2, error


def _posterior_enclosure(X, grid, lengthscale, ridge):
    """The unit posterior ``k_D(grid, grid)`` and prior ``k(grid, grid)`` with error bounds.

    Returns two :class:`_Enclosed`; exact means the kernel of the floating-point inputs.
    ``P = K_gg - W^T W`` with ``W = L^{-1} K_Xg`` (see :func:`_posterior_error`).
    """
    K_XX, rel_X = _kernel_enclosure(X, X, lengthscale)
    K_gX, rel_gX = _kernel_enclosure(grid, X, lengthscale)
    K_gg, rel_g = _kernel_enclosure(grid, grid, lengthscale)
    prior = _Enclosed(K_gg, INFLATE * rel_g * rowsum(K_gg))
    try:
        L, norm2_L, e_C = _ridge_factor(K_XX, rel_X, ridge)
    except np.linalg.LinAlgError:
        return _Enclosed(K_gg, np.inf), prior
    W = linalg.solve_triangular(L, K_gX.T, lower=True, check_finite=False)
    P = _lower_symmetric(K_gg - W.T @ W)
    cross = INFLATE * rel_gX * float(np.linalg.norm(K_gX))
    prior_norm = INFLATE * (1.0 + rel_g) * rowsum(K_gg)
    error = _posterior_error(W, (norm2_L, e_C), cross, prior_norm, ridge)
    return _Enclosed(P, INFLATE * (prior.error + error + gamma(1) * rowsum(P))), prior


def _posterior_error(W, factor, cross, prior_norm, ridge):
    """Bound on ``||fl(W^T W) - K_gX C^{-1} K_Xg||_2`` (exact kernels, exact C).

    ``factor`` is ``(|| |L| ||_2^2, e_C)`` from :func:`_ridge_factor`. With ``rho = e_C /
    r^2 >= ||C^{-1/2} E C^{-1/2}||`` (``C >= r^2 I`` exactly, the kernel being positive
    semi-definite), ``W_* = L^{-1} K_Xg`` gives ``W_*^T W_*`` within ``[H / (1 + rho), H /
    (1 - rho)]`` of ``H = K_gX C^{-1} K_Xg`` (computed kernels); the triangular solve gives
    ``||W - W_*||_F <= theta ||W||_F``, ``theta = gamma_{n+2} || |L| ||_2 / sqrt(r^2 -
    e_C)`` (Higham Theorem 8.5); the product ``gamma_{n+2} ||W||_F^2`` ((3.13)); the
    kernel error ``b = ||dK_gX||_2 / r`` moves H by ``b (2 sqrt||H|| + b)``. ``||H||_2``
    is at most ``(1 + rho) ||W_*||_F^2`` and ``(sqrt||K_gg|| + b)^2`` (the exact
    posterior is positive semi-definite, so ``K_gX C^{-1} K_Xg <= K_gg``).
    """
    n = W.shape[0]
    norm2_L, e_C = factor
    r2 = ridge * ridge * (1.0 - 4 * UNIT_ROUNDOFF)  # below the exact r^2
    if not e_C < 0.5 * r2:
        return np.inf
    rho = INFLATE * e_C / r2
    theta = INFLATE * gamma(n + EXTRA) * np.sqrt(norm2_L / (r2 - e_C))
    F2 = INFLATE * float(np.sum(W**2))
    b = cross / np.sqrt(r2)
    H = INFLATE * min((1.0 + rho) * (1.0 + theta) ** 2 * F2, (np.sqrt(prior_norm) + b) ** 2)
    return INFLATE * (
        gamma(n + EXTRA) * F2
        + theta * (2.0 + theta) * F2
        + rho / (1.0 - rho) * H
        + b * (2.0 * np.sqrt(H) + b)
    )


def _design_enclosure(posterior, prior, sigma, eta):
    """``sigma^2 k_D + eta^2 k`` with its error: the inputs' errors plus ``gamma_3`` per entry."""
    s2, e2 = sigma * sigma, eta * eta
    rows = s2 * rowsum(posterior.matrix) + e2 * rowsum(prior.matrix)
    error = (s2 * posterior.error + e2 * prior.error) * (1.0 + gamma(1)) + gamma(3) * rows
    return _Enclosed(s2 * posterior.matrix + e2 * prior.matrix, INFLATE * error)


def _noise_enclosure(noise):
    """``U diag(lambda) U^T`` from the stored factors, off by ``gamma_{r+3} || |U| |Lambda| |U|^T ||``.

    The 2-norm of ``|U| |Lambda| |U|^T`` is bounded by the smaller of ``sum_k |lambda_k|
    ||u_k||^2`` and its largest row sum (Higham (3.13), one more rounding for the scaling).
    """
    U, lam = noise.eigenvectors, np.abs(noise.eigenvalues)
    dense = _lower_symmetric((U * noise.eigenvalues) @ U.T)
    if not lam.size:
        return _Enclosed(dense, 0.0)
    absU = np.abs(U)
    spread = min(
        float(np.sum(lam * np.sum(U**2, axis=0))),
        float(np.max((absU * lam) @ np.sum(absU, axis=0))),
    )
    return _Enclosed(dense, INFLATE * gamma(len(lam) + 1 + EXTRA) * spread)


def _form_error(A, B, a, b):
    """Bound on ``||(a A - b B)_exact - fl(a A_hat - b B_hat)||_2`` (products, subtraction)."""
    T = a * A.matrix - b * B.matrix
    return T, INFLATE * (
        a * A.error
        + b * B.error
        + UNIT_ROUNDOFF * (a * rowsum(A.matrix) + b * rowsum(B.matrix))
        + gamma(1) * rowsum(T)
    )


def _proves_psd(A, B, a, b):
    """True when ``a A - b B >= 0`` (Loewner, exact matrices) is proven by a Cholesky test.

    ``a A - b B >= T - e I`` with ``T = fl(a A_hat - b B_hat)`` and e from
    :func:`_form_error`. T is shifted by ``s`` (more than e plus the Cholesky error) and
    factorised: success proves ``lambda_min(T - s I) >= bound`` (Rump 2006,
    :func:`~ssa_privacy.privacy.rounding.cholesky_lower_bound`), the shift's own rounding
    is at most ``u max |T_ii - s|``, so ``lambda_min(a A - b B) >= s + bound - rounding -
    e``.
    """
    T, errors = _form_error(A, B, a, b)
    g = gamma(len(T) + EXTRA)
    diagonal = np.abs(np.diag(T))
    shift = INFLATE**2 * (
        errors + g / (1.0 - g) * float(np.sum(diagonal)) + UNIT_ROUNDOFF * float(np.max(diagonal))
    )
    T[np.diag_indices_from(T)] -= shift + np.finfo(float).tiny
    bound = cholesky_lower_bound(T)
    if bound is None:
        return False
    rounding = INFLATE * UNIT_ROUNDOFF * float(np.max(np.abs(np.diag(T))))
    return shift + bound - rounding - errors >= 0.0


def _rayleigh_upper(noise, design, v):
    """Rigorous upper bound on ``min_x x^T Sigma x / x^T S x`` from the quotient at v.

    Each quadratic form is computed with an error of at most ``gamma_{2m} |v|^T |A| |v| <=
    gamma_{2m} rowsum(A) ||v||^2`` (Higham (3.13)), plus ``||A_hat - A||_2 ||v||^2``.
    """
    m = len(v)
    norm2 = float(v @ v) * (1.0 + gamma(m + 1))

    def form(A, sign):
        slack = norm2 * (gamma(2 * m + EXTRA) * rowsum(A.matrix) + A.error)
        return float(v @ (A.matrix @ v)) + sign * INFLATE * slack

    numerator, denominator = form(noise, 1.0), form(design, -1.0)
    if not denominator > 0:
        return np.inf
    ratio = numerator / denominator
    return ratio + 4 * UNIT_ROUNDOFF * abs(ratio)


@dataclass(frozen=True)
class _NoiseScale:
    """How the stored noise compares, in the Loewner order, with the mechanism's covariance.

    With ``Sigma = U diag(lambda) U^T`` (the stored factors, exactly) and ``S = sigma^2
    k_D + eta^2 k`` (the design's covariance, exactly, for the floating-point inputs),
    the scale is ``c* = max{c : Sigma >= c S}``, the smallest generalised eigenvalue.

    Parameters
    ----------
    estimate : float
        The floating-point smallest generalised eigenvalue (nan if S is numerically
        singular).
    lower, upper : float
        ``lower <= c* <= upper``, proven (lower 0 and upper inf when nothing was proven).
    spread : float
        Estimated ``c_max / c* - 1`` with c_max the largest generalised eigenvalue: 0 for
        a noise in the family ``{c S}``.
    in_family : bool
        True when ``Sigma <= (1 + FAMILY_RTOL) lower S`` is proven too.
    design_error, noise_error : float
        The bounds on ``||S_computed - S||_2`` and ``||Sigma_computed - Sigma||_2``
        (squared data units).
    tests : int
        Number of Cholesky tests run for ``lower``.
    """

    estimate: float
    lower: float
    upper: float
    spread: float
    in_family: bool
    design_error: float
    noise_error: float
    tests: int


def _lower_scale(noise, design, estimate, v):
    """The largest tested ``c = estimate (1 - gap)`` with ``Sigma >= c S`` proven (0 if none)."""
    _, errors = _form_error(noise, design, 1.0, estimate)
    gap = max(2.0 * errors * float(v @ v) / estimate, 64 * UNIT_ROUNDOFF)
    for tests in range(1, _MAX_TESTS + 1):
        c = estimate * (1.0 - gap)
        if c > 0 and _proves_psd(noise, design, 1.0, c):
            return c, tests
        gap *= _STEP
    return 0.0, _MAX_TESTS


def _scalar_noise_scale(noise, design):
    """:func:`_noise_scale` of a one-point grid, in closed form.

    The stored noise is ``s = sum_k lambda_k u_k^2`` (u_k = +-1), within ``e_s`` of its
    computed value as in :func:`_noise_enclosure`; with ``|d - d*| <= e_d`` for the
    design, ``c* = s / d*`` lies in ``[(s - e_s) / (d + e_d), (s + e_s) / (d - e_d)]``;
    each end is computed in three roundings (relative error below 4u) and moved outward
    by 8u. The noise is in the family when the upper end is proven below ``(1 +
    FAMILY_RTOL)`` times the lower one.
    """
    (d,), e_d = design.matrix.ravel(), float(design.error)
    s = float(noise.eigenvalues @ noise.eigenvectors[0] ** 2) if noise.rank else 0.0
    e_s = INFLATE * gamma(noise.rank + 1 + EXTRA) * abs(s)
    fail = _NoiseScale(np.nan, 0.0, np.inf, np.nan, False, e_d, e_s, 0)
    if not (d - e_d > 0 and s - e_s > 0 and np.isfinite(e_d)):
        return replace(fail, estimate=float(s / d) if d > 0 else np.nan)
    lower = (s - e_s) / (d + e_d) * (1.0 - 8 * UNIT_ROUNDOFF)
    upper = (s + e_s) / (d - e_d) * (1.0 + 8 * UNIT_ROUNDOFF)
    in_family = upper <= (1.0 + FAMILY_RTOL) * lower * (1.0 - 4 * UNIT_ROUNDOFF)
    return _NoiseScale(float(s / d), float(lower), float(upper), 0.0, bool(in_family), e_d, e_s, 0)


def _noise_scale(noise, design):
    """Enclose the Loewner scale of a stored noise relative to an enclosed design covariance.

    Parameters
    ----------
    noise : FactoredCovariance
        Sigma, taken exactly from its factors (squared data units).
    design : _Enclosed
        The computed ``sigma^2 k_D + eta^2 k`` (m, m) and its error bound.

    Returns
    -------
    _NoiseScale
        The estimate, the proven enclosure and the family check.

    Notes
    -----
    The estimate and its vector come from the generalised symmetric eigenproblem
    (LAPACK). The lower end is the largest ``c`` for which :func:`_proves_psd` proves
    ``Sigma - c S >= 0``, tried at gaps growing by 4 from about twice the error bound;
    the upper end is the Rayleigh quotient at the eigenvector (:func:`_rayleigh_upper`).
    A one-point grid is enclosed in closed form instead (:func:`_scalar_noise_scale`).
    """
    if design.matrix.shape == (1, 1):
        return _scalar_noise_scale(noise, design)
    sigma = _noise_enclosure(noise)
    fail = _NoiseScale(np.nan, 0.0, np.inf, np.nan, False, design.error, sigma.error, 0)
    if not (np.isfinite(design.error) and np.isfinite(sigma.error)):
        return fail
    try:
        values, vectors = linalg.eigh(sigma.matrix, design.matrix)
    except np.linalg.LinAlgError:
        return fail
    estimate, v = float(values[0]), vectors[:, 0]
    if not estimate > 0:
        return replace(fail, estimate=estimate)
    lower, tests = _lower_scale(sigma, design, estimate, v)
    in_family = lower > 0 and _proves_psd(design, sigma, (1.0 + FAMILY_RTOL) * lower, 1.0)
    upper = _rayleigh_upper(sigma, design, v)
    spread = float(values[-1] / estimate - 1.0)
    return _NoiseScale(
        estimate,
        float(lower),
        float(upper),
        spread,
        bool(in_family),
        float(design.error),
        float(sigma.error),
        tests,
    )
