"""The (epsilon, delta)-PML certificate in the information form, proven in floating point.

A linear Gaussian release about ``X ~ N(0, Sigma_XX)`` is summarised by a square-root
Fisher information A (``J = A^T A``): ``A = R``, the triangular factor of a
:class:`~ssa_privacy.privacy.pml.stream.ReleaseStream`, or ``A = Theta^{-1/2} C`` for the
mechanism ``Y = C X + V``, ``V ~ N(0, Theta)``. With any square root ``S S^T = Sigma_XX``,
the eigenvalues of ``S^T J S`` are ``lambda_i = sigma_i(A S)^2``, the squared canonical
correlations are ``lambda_i / (1 + lambda_i)`` and ``I(X; Y) = sum_i log(1 + lambda_i) /
2`` ([LKC] Theorem 3.3). :func:`information_certificate` encloses the exact
``sigma_i(A S)`` of the stored inputs:

1. the computed Cholesky factor of a stored (or formed) covariance is ``L = Sigma^{1/2} (I
   + G)^{1/2} Q``, Q orthogonal, with ``||G||_2 <= g = ||D^{-1} E D^{-1}||_2 /
   lambda_min(D^{-1} Sigma D^{-1})``, where ``|E| <= gamma_{k+2} |L| |L^T|`` plus the
   error of forming Sigma (Higham 2002, Theorem 10.3) and D is the diagonal scaling by
   powers of two (exact) that makes Sigma's diagonal near 1: a prior mixing km and km/s
   costs nothing;
2. a factor ``(I + G)^{1/2}`` moves every singular value by a relative
   ``sqrt(1 -+ g)`` (``sigma_i(A B) / sigma_i(A)`` lies between ``sigma_min(B)`` and
   ``||B||_2``): the error of the two factors is relative in ``sigma_i``;
3. the triangular solve ``L_Theta^{-1} C`` and the product with ``L`` add an absolute
   error bounded by their backward errors (Higham (3.13), Theorem 8.5), and the singular
   values of the computed product are enclosed a posteriori
   (:func:`~ssa_privacy.privacy.rounding.singular_value_enclosure`);
4. ``log(1 + sigma^2)`` increases in sigma, so the enclosure of each ``sigma_i`` gives
   one of the information. Its derivative ``2 sigma / (1 + sigma^2)`` is at most 1 and
   falls as ``2 / sigma``: an absolute error of the singular values costs little, a
   relative one at most its size per direction, however close the canonical correlations
   are to 1. The canonical-correlation form (:mod:`~ssa_privacy.privacy.pml.certificate`)
   divides by ``1 - rho^2 = 1 / (1 + lambda)`` instead.

As there, singular values at or below ``sqrt(EIGENVALUE_TOL)`` (canonical correlations at
or below ``CORRELATION_TOL``) are not counted, and the certificate states it.
"""

import functools

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.validation import as_matrix
from ssa_privacy.privacy.mechanism import Certificate, as_factored
from ssa_privacy.privacy.pml.certificate import margin_certificate, pml_claim
from ssa_privacy.privacy.pml.leakage import CORRELATION_TOL, EIGENVALUE_TOL
from ssa_privacy.privacy.rounding import (
    EXTRA,
    INFLATE,
    RULE,
    UNIT_ROUNDOFF,
    abs_norm2_squared,
    gamma,
    proven_lambda_min,
    singular_value_enclosure,
)

__all__ = [
    "information_certificate",
    "more_conclusive",
]


def _frobenius(matrix):
    return INFLATE * float(np.linalg.norm(matrix))


def _root(Sigma, formed=None):
    """Computed Cholesky factor of the exact Sigma, g (item 1) and a bound on ``||L^{-1}||``.

    ``formed`` bounds ``|Sigma_stored - Sigma_exact|`` entrywise (None: exact). Raises
    LinAlgError when the stored Sigma is not numerically positive definite.
    """
    L = np.linalg.cholesky(Sigma)
    d = np.ldexp(1.0, np.round(np.log2(np.sqrt(np.diag(Sigma)))).astype(int))
    scale = np.outer(d, d)
    formed_error = 0.0 if formed is None else _frobenius(formed / scale)
    cholesky_error = INFLATE * gamma(len(L) + EXTRA) * abs_norm2_squared(L / d[:, None])
    low = proven_lambda_min(Sigma / scale) - formed_error
    g = INFLATE * (cholesky_error + formed_error) / low if low > 0 else np.inf
    lam_min = proven_lambda_min(Sigma) - (0.0 if formed is None else _frobenius(formed))
    inverse_norm = np.sqrt(INFLATE / ((1.0 - g) * lam_min)) if g < 1 and lam_min > 0 else np.inf
    return L, g, inverse_norm


def _prior_root(Sigma_XX):
    """:func:`_root` of a stored prior (exact), remembered by its bytes: a catalogue
    certifies thousands of pass streams under the same few priors."""
    stored = np.ascontiguousarray(Sigma_XX, dtype=float)
    return _stored_root(stored.tobytes(), stored.shape)


@functools.lru_cache(maxsize=64)
def _stored_root(stored, shape):
    """:func:`_root` of the matrix of bytes ``stored`` and ``shape``, its factor read-only."""
    L, g, inverse_norm = _root(np.frombuffer(stored).reshape(shape))
    L.flags.writeable = False
    return L, g, inverse_norm


def _noise_root(C, noise):
    """``X = L_Theta^{-1} C`` as computed, g of ``L_Theta`` and a matrix P >= 0.

    P bounds the solve's error: ``X = L_Theta^{-1} (C + D)``, ``|D| <= gamma_{m+2}
    |L_Theta| |X|`` (Higham Theorem 8.5), so ``||L_Theta^{-1} D B||_2 <= ||P |B| ||_F``.
    """
    U, theta = noise.eigenvectors, noise.eigenvalues
    Theta = (U * theta) @ U.T
    formed = gamma(U.shape[1] + EXTRA + 1) * ((np.abs(U) * theta) @ np.abs(U).T)
    formed = formed + UNIT_ROUNDOFF * np.abs(Theta)  # the symmetrisation below
    L_Theta, g, inverse_norm = _root(0.5 * (Theta + Theta.T), formed)
    X = linalg.solve_triangular(L_Theta, C, lower=True)
    backward = gamma(len(L_Theta) + EXTRA) * (np.abs(L_Theta) @ np.abs(X))
    return X, g, inverse_norm * backward


def _enclosure(M, absolute_error, shrink, stretch):
    """Singular values of M over the resolution, and enclosures of the exact ones."""
    s, low, high = singular_value_enclosure(M)
    keep = s > np.sqrt(EIGENVALUE_TOL)
    low = np.maximum(low[keep] - absolute_error, 0.0) * shrink * (1.0 - 4 * UNIT_ROUNDOFF)
    high = (high[keep] + absolute_error) * stretch * (1.0 + 4 * UNIT_ROUNDOFF)
    return s[keep], low, high


def _half_log1p_squares(sigma):
    """``sum log(1 + sigma_i^2) / 2`` and a bound on its own rounding."""
    terms = 0.5 * np.log1p(sigma**2)
    return float(np.sum(terms)), gamma(len(sigma) + 6) * float(np.sum(terms))


def _information(Sigma_XX, factor, C, noise):
    """The information, a rigorous bound on its error, l and the error terms."""
    L, g_prior, _ = _prior_root(Sigma_XX)
    if factor is not None:
        A, g_noise, solve_error = factor, 0.0, 0.0
    else:
        A, g_noise, backward = _noise_root(C, noise)
        solve_error = _frobenius(backward @ np.abs(L))
    M = A @ L
    product_error = INFLATE * (
        gamma(L.shape[0] + EXTRA) * _frobenius(np.abs(A) @ np.abs(L)) + solve_error
    )
    errors = dict(cholesky_g_prior=g_prior, cholesky_g_noise=g_noise, product_error=product_error)
    if not (g_prior < 1.0 and g_noise < 1.0 and np.isfinite(product_error)):
        s = linalg.svdvals(M)
        s = s[s > np.sqrt(EIGENVALUE_TOL)]
        return _half_log1p_squares(s)[0], np.inf, s.size, errors
    shrink = np.sqrt((1.0 - g_noise) / (1.0 + g_prior))
    stretch = np.sqrt((1.0 + g_noise) / (1.0 - g_prior))
    s, low, high = _enclosure(M, product_error, shrink, stretch)
    value, value_error = _half_log1p_squares(s)
    upper, upper_error = _half_log1p_squares(high)
    lower, lower_error = _half_log1p_squares(low)
    spread = max(upper + upper_error - value, value - lower + lower_error) + value_error
    return value, spread, s.size, errors


def information_certificate(
    Sigma_XX, epsilon, delta, convention, *, factor=None, C=None, noise=None, **extra
):
    """The (epsilon, delta)-PML certificate from a square-root information, rigorously.

    Parameters
    ----------
    Sigma_XX : ndarray, shape (n, n)
        Prior covariance of X (units of X squared), positive definite, taken as stored.
    epsilon : float
        Leakage bound, nats.
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}
        PML convention (weight of I(X; Y)).
    factor : ndarray, shape (k, n), optional
        A square-root Fisher information R (``J = R^T R``, inverse units of X), taken
        exactly as stored: the triangular factor of a ReleaseStream.
    C : ndarray, shape (m, n), optional
        With ``noise``, instead of ``factor``: the mechanism ``Y = C X + V``.
    noise : FactoredCovariance, optional
        Theta as drawn, ``U diag(theta) U^T`` from its stored factors (m, m).
    **extra
        Further numbers recorded in the evidence.

    Returns
    -------
    Certificate
        ``notion="pml"``, ``margin`` (nats) ``= epsilon - w I - q_l(delta) / 2``,
        ``tolerance`` (nats) a rigorous bound on its distance to the exact margin of the
        stored inputs, ``passed`` iff ``margin - tolerance >= 0``; ``margin = -inf`` when
        Theta is singular (a noiseless direction). The evidence has ``form =
        "information"`` and the relative errors of the two Cholesky factors.

    Raises
    ------
    TypeError
        If a number or matrix is not made of real numbers, or ``noise`` is neither a
        FactoredCovariance nor a matrix.
    ValueError
        Unless exactly one of ``factor`` and (``C``, ``noise``) is given; if
        ``Sigma_XX`` is not symmetric positive definite, a shape disagrees with it, a value
        is not finite, ``delta`` is outside (0, 1) or the convention unknown.

    Notes
    -----
    [LKC] Theorem 3.3, condition (8), in the canonical eigenvalues of ``S^T J S``; the
    error analysis is in the module docstring and :doc:`/theory/pml-stream`.
    """
    if (factor is None) == (C is None or noise is None):
        raise ValueError("give either factor, or C and noise, to information_certificate")
    parameters = pml_claim(epsilon, delta, convention)
    n = len(pd_cholesky(Sigma_XX, "Sigma_XX"))
    Sigma_XX = np.asarray(Sigma_XX, dtype=float)  # as stored: the analysis bounds its use
    if factor is not None:
        factor = as_matrix(factor, "factor", shape=(None, n))
    else:
        C = as_matrix(C, "C", shape=(None, n))
        noise = as_factored(noise, len(C), "noise")
    evidence = {"rule": RULE, "form": "information", "correlation_resolution": CORRELATION_TOL}
    evidence.update(extra)
    try:
        information, spread, l, errors = _information(Sigma_XX, factor, C, noise)
    except np.linalg.LinAlgError as error:
        reason = f"Cholesky factorisation of the noise covariance Theta failed: {error}"
        evidence.update(reason=reason, mutual_information=np.inf)
        return Certificate("pml", parameters, False, -np.inf, np.inf, evidence)
    evidence.update(errors)
    return margin_certificate(information, spread, l, parameters, evidence)


def more_conclusive(first, second):
    """Of two rigorous certificates of the same claim, the one with more to spare.

    Parameters
    ----------
    first, second : Certificate
        Certificates of the same (epsilon, delta)-PML claim, each with a rigorous bound.

    Returns
    -------
    Certificate
        The one with the larger ``margin - tolerance`` (``second`` when ``first``'s is not
        a number): each proves the claim when it passes, so the larger is kept.

    Raises
    ------
    TypeError
        If either is not a Certificate.
    ValueError
        If they are not certificates of the same PML claim (notion and parameters
        ``epsilon``, ``delta``, ``convention``).
    """
    for name, certificate in (("first", first), ("second", second)):
        if not isinstance(certificate, Certificate):
            raise TypeError(f"{name} must be a Certificate, got {type(certificate).__name__}")
    keys = ("epsilon", "delta", "convention")
    claims = [(c.notion, *(c.parameters.get(k) for k in keys)) for c in (first, second)]
    if claims[0] != claims[1]:
        raise ValueError(f"first and second certify different claims: {claims[0]} and {claims[1]}")
    spare = first.margin - first.tolerance
    return second if np.isnan(spare) or second.margin - second.tolerance > spare else first
