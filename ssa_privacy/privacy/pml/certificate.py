"""The (epsilon, delta)-PML certificate of a Gaussian mechanism, proven in floating point.

The release ``Y = Z + V``, ``V ~ N(0, Theta)``, is (epsilon, delta)-PML private about X
when [LKC] Theorem 3.3, condition (8), holds:

    margin = epsilon - w I(X; Y) - F^{-1}_{chi^2_l}(1 - delta) / 2 >= 0,

with ``I(X; Y) = -sum_i log(1 - rho_i^2) / 2`` over the l non-zero canonical correlations
``rho_i`` of (X, Y), the singular values of ``K = L_X^{-1} Sigma_XY L_Y^{-T}``
(``L_X L_X^T = Sigma_XX``, ``L_Y L_Y^T = Sigma_ZZ + Theta``), and ``w`` the convention's
weight. :func:`pml_certificate` computes the margin and a rigorous bound on its rounding
error:

1. the covariances the computation forms (``Sigma_XZ = Sigma_XX C^T``, ``Sigma_ZZ = C
   Sigma_XX C^T`` in the linear case, ``Sigma_YY = Sigma_ZZ + U diag(theta) U^T``) carry
   entrywise errors of at most ``gamma_k`` times the products of absolute values (Higham
   2002, (3.13));
2. the Cholesky factors satisfy ``L L^T = Sigma + E`` with ``||E||_2 <= gamma_{k+2} ||
   |L| ||_2^2`` (Theorem 10.3), so ``L = R (I + F)^{1/2}`` for an exact factor R with
   ``||F||_2 <= eta = ||E||_2 / (lambda_min(Sigma) - ||E||_2)`` and the exact correlations
   are those of ``(I + F_X)^{-1/2} Ktilde (I + F_Y)^{-1/2}`` (canonical correlations do
   not depend on the square root chosen): each lies in ``sigma_i(Ktilde) [(1 + eta_X)(1 +
   eta_Y)]^{-1/2} .. [(1 - eta_X)(1 - eta_Y)]^{-1/2}``;
3. ``Ktilde`` (the exact two triangular solves with the computed factors) differs from the
   computed K by at most the solves' backward errors ``gamma_{k+2} |L|`` per column
   (Theorem 8.5) and the propagated error of ``Sigma_XY``;
4. the singular values of the computed K are enclosed a posteriori
   (:func:`~ssa_privacy.privacy.rounding.singular_value_enclosure`), the chi-square
   quantile by mpmath (:func:`~ssa_privacy.privacy.rounding.chi2_quantile_enclosure`).

The error of step 2-4 is absolute in ``rho_i`` and ``-log(1 - rho^2)`` multiplies it by
``1 + lambda_i``: for correlations near 1 (large epsilon, a radar pass) the information
form of :mod:`~ssa_privacy.privacy.pml.information_form` is the tight one.

The number l of correlations counted is a resolution: correlations at or below
``CORRELATION_TOL`` are treated as zero (a direction of X that the release reveals with
correlation below it is not counted), and the certificate states it.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.validation import (
    as_matrix,
    non_negative_int,
    open_interval,
    scalar,
)
from ssa_privacy.privacy.accounting import log_det_ratio_bound, minimum_epsilon
from ssa_privacy.privacy.mechanism import Certificate, as_factored
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml.leakage import CORRELATION_TOL
from ssa_privacy.privacy.rounding import (
    EXTRA,
    INFLATE,
    RULE,
    UNIT_ROUNDOFF,
    abs_norm2_squared,
    chi2_quantile_enclosure,
    gamma,
    proven_lambda_min,
    singular_value_enclosure,
)

__all__ = [
    "margin_certificate",
    "pml_certificate",
    "pml_claim",
]


@dataclass(frozen=True)
class _Factor:
    """A computed Cholesky factor with the bounds the enclosure needs."""

    L: np.ndarray
    eta: float  # ||F||_2 with L L^T = R (I + F) R^T, R an exact factor
    inverse_norm: float  # bound on ||L^{-1}||_2
    abs_norm: float  # bound on || |L| ||_2


def _factor(Sigma, formed_error):
    """Cholesky factor of a stored Sigma whose exact value is within ``formed_error``."""
    k = len(Sigma)
    L = np.linalg.cholesky(Sigma)
    abs_norm2 = abs_norm2_squared(L)
    e = INFLATE * (gamma(k + EXTRA) * abs_norm2 + formed_error)
    low = proven_lambda_min(Sigma) - formed_error
    if not low > e:
        return _Factor(L, np.inf, np.inf, np.sqrt(abs_norm2))
    return _Factor(L, INFLATE * e / (low - e), np.sqrt(INFLATE / (low - e)), np.sqrt(abs_norm2))


def _frobenius(bound):
    return INFLATE * float(np.linalg.norm(bound))


def _formed(Sigma_XX, C, Sigma_XZ, Sigma_ZZ, noise):
    """``Sigma_XY``, ``Sigma_YY`` as computed and bounds on their errors (Frobenius)."""
    n = len(Sigma_XX)
    U, theta = noise.eigenvectors, noise.eigenvalues
    scaled = np.abs(U) * theta
    noise_error = gamma(U.shape[1] + EXTRA) * _frobenius(scaled @ np.abs(U).T)
    if C is None:
        XZ_error, ZZ_error = 0.0, 0.0
    else:
        absC, absS = np.abs(C), np.abs(Sigma_XX)
        XZ_error = gamma(n + EXTRA) * _frobenius(absS @ absC.T)
        ZZ_error = gamma(2 * n + EXTRA) * _frobenius(absC @ absS @ absC.T)
    Sigma_YY = Sigma_ZZ + noise.matrix()
    YY_error = ZZ_error + noise_error + UNIT_ROUNDOFF * _frobenius(Sigma_YY)
    return Sigma_XZ, XZ_error, Sigma_YY, YY_error


def _whitened(Sigma_XY, XY_error, factor_X, factor_Y):
    """Computed ``K = L_X^{-1} Sigma_XY L_Y^{-T}`` and a bound on ``||Ktilde - K||_2``."""
    W = linalg.solve_triangular(factor_Y.L, Sigma_XY.T, lower=True)  # L_Y^{-1} Sigma_YX
    K = linalg.solve_triangular(factor_X.L, W.T, lower=True)
    m, n = len(factor_Y.L), len(factor_X.L)
    W_error = factor_Y.inverse_norm * (
        gamma(m + EXTRA) * factor_Y.abs_norm * _frobenius(W) + XY_error
    )
    return K, INFLATE * factor_X.inverse_norm * (
        gamma(n + EXTRA) * factor_X.abs_norm * _frobenius(K) + W_error
    )


def _information(rho):
    """``-sum log(1 - rho^2) / 2`` with a bound on its own rounding."""
    terms = -0.5 * np.log1p(-(rho**2))
    value = float(np.sum(terms))
    return value, gamma(len(rho) + 4) * float(np.sum(np.abs(terms)))


def _information_enclosure(Sigma_XX, Sigma_XZ, Sigma_ZZ, noise, C):
    """The information, its enclosure, the count l and the error terms."""
    Sigma_XY, XY_error, Sigma_YY, YY_error = _formed(Sigma_XX, C, Sigma_XZ, Sigma_ZZ, noise)
    factor_X, factor_Y = _factor(Sigma_XX, 0.0), _factor(Sigma_YY, YY_error)
    K, K_error = _whitened(Sigma_XY, XY_error, factor_X, factor_Y)
    rho, low, high = singular_value_enclosure(K)
    keep = rho > CORRELATION_TOL
    rho, low, high = rho[keep], low[keep] - K_error, high[keep] + K_error
    if rho.size and 1.0 - rho[0] ** 2 <= 1e-12:
        raise ValueError(f"largest canonical correlation {rho[0]:.12g} >= 1")
    eta_X, eta_Y = factor_X.eta, factor_Y.eta
    low = np.maximum(low, 0.0) / np.sqrt((1 + eta_X) * (1 + eta_Y))
    high = high / np.sqrt(max((1 - eta_X) * (1 - eta_Y), 0.0))
    value, value_error = _information(rho)
    errors = {"cholesky_eta_X": eta_X, "cholesky_eta_Y": eta_Y, "whitening_error": K_error}
    if not np.all(high < 1.0):
        return value, np.inf, rho.size, errors
    upper, upper_error = _information(high)
    lower, lower_error = _information(low)
    spread = max(upper + upper_error - value, value - lower + lower_error) + value_error
    return value, spread, rho.size, errors


def pml_certificate(
    Sigma_XX, Sigma_XZ, Sigma_ZZ, noise, epsilon, delta, convention, C=None, **extra
):
    """The (epsilon, delta)-PML certificate with a rigorous bound on its rounding error.

    Parameters
    ----------
    Sigma_XX : ndarray, shape (n, n)
        Prior covariance of X, positive definite (validated), taken as stored.
    Sigma_XZ : ndarray, shape (n, m)
        Cross covariance of X and Z (``Sigma_XX C^T`` as computed, in the linear case).
    Sigma_ZZ : ndarray, shape (m, m)
        Covariance of Z (``C Sigma_XX C^T`` as computed, in the linear case).
    noise : FactoredCovariance
        Theta as drawn by the release: ``U diag(theta) U^T`` from its stored factors.
    epsilon : float
        Leakage bound, nats.
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}
        PML convention (weight of I(X; Y)).
    C : ndarray, shape (m, n), optional
        The output matrix of the linear case: the errors of forming ``Sigma_XZ`` and
        ``Sigma_ZZ`` from ``C`` and ``Sigma_XX`` are then bounded too.
    **extra
        Further numbers recorded in the evidence.

    Returns
    -------
    Certificate
        ``notion="pml"``; ``margin`` (nats) = ``epsilon - w I - q_l(delta) / 2``;
        ``tolerance`` (nats) bounds the distance to the exact margin of the inputs (inf
        when none is proven, for example when ``Sigma_ZZ + Theta`` is numerically
        singular); ``passed`` iff ``margin - tolerance >= 0``; ``margin = -inf`` when a
        direction of Z is noiseless (Y determines a combination of X exactly).

    Raises
    ------
    TypeError
        If a number or matrix is not made of real numbers, or ``noise`` is neither a
        FactoredCovariance nor a matrix.
    ValueError
        If ``Sigma_XX`` is not symmetric positive definite, ``Sigma_ZZ`` or the joint
        covariance of (X, Z) not positive semi-definite, the shapes disagree, a value is
        not finite, ``delta`` is outside (0, 1) or the convention is unknown.

    Notes
    -----
    [LKC] Theorem 3.3, condition (8); the error analysis is in the module docstring and
    :doc:`/theory/pml` (section "Certificates in floating point").
    """
    parameters = pml_claim(epsilon, delta, convention)
    n = len(pd_cholesky(Sigma_XX, "Sigma_XX"))
    Sigma_XX = np.asarray(Sigma_XX, dtype=float)  # as stored: the analysis bounds its use
    Sigma_XZ = as_matrix(Sigma_XZ, "Sigma_XZ", shape=(n, None))
    m = Sigma_XZ.shape[1]
    psd_matrix(
        np.block([[Sigma_XX, Sigma_XZ], [Sigma_XZ.T, psd_matrix(Sigma_ZZ, "Sigma_ZZ", m)]]),
        "joint covariance of (X, Z) (Sigma_XX, Sigma_XZ, Sigma_ZZ)",
    )
    Sigma_ZZ = np.asarray(Sigma_ZZ, dtype=float)
    noise = as_factored(noise, m, "noise")
    C = None if C is None else as_matrix(C, "C", shape=(m, n))
    evidence = {"rule": RULE, "correlation_resolution": CORRELATION_TOL, **extra}
    try:
        information, spread, l, errors = _information_enclosure(
            Sigma_XX, Sigma_XZ, Sigma_ZZ, noise, C
        )
    except (np.linalg.LinAlgError, ValueError) as error:
        evidence.update(reason=str(error), mutual_information=np.inf)
        return Certificate("pml", parameters, False, -np.inf, np.inf, evidence)
    evidence.update(errors)
    return margin_certificate(information, spread, l, parameters, evidence)


def pml_claim(epsilon, delta, convention):
    """The parameters of an (epsilon, delta)-PML claim, checked: epsilon finite (nats),
    delta in (0, 1), a known convention.

    Parameters
    ----------
    epsilon : float
        The leakage bound, nats (any finite number: a claim below condition (9) is false,
        not invalid).
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    dict
        ``epsilon``, ``delta`` and ``convention``, the certificate's parameters.

    Raises
    ------
    TypeError
        If epsilon or delta is not a real number.
    ValueError
        If epsilon is not finite, delta is outside (0, 1) or the convention unknown.
    """
    convention_weight(convention)
    return dict(
        epsilon=scalar(epsilon, "epsilon"),
        delta=open_interval(delta, "delta"),
        convention=convention,
    )


def margin_certificate(information, spread, l, parameters, evidence):
    """The certificate of condition (8) from an enclosed mutual information.

    Parameters
    ----------
    information : float
        The computed ``I(X; Y)``, nats.
    spread : float
        A rigorous bound on its distance to the exact value, nats (inf when none).
    l : int
        The number of canonical correlations counted.
    parameters : dict
        ``epsilon`` (nats), ``delta`` and ``convention``.
    evidence : dict
        Evidence so far; updated in place with the margin's terms.

    Returns
    -------
    Certificate
        ``notion="pml"``; ``margin = epsilon - w I - q_l(delta) / 2`` (nats), ``tolerance``
        the rigorous bound on its rounding (the enclosed information, the chi-square
        quantile enclosed by mpmath and the final sums), ``passed`` iff ``margin -
        tolerance >= 0``.

    Raises
    ------
    TypeError
        If a number is not a real number, or ``parameters`` or ``evidence`` is not a dict.
    ValueError
        If ``information`` or ``spread`` is negative or NaN, ``l`` not a non-negative
        integer, or ``parameters`` lacks a valid ``epsilon``, ``delta`` or ``convention``.

    Notes
    -----
    [LKC] Theorem 3.3, condition (8).
    """
    information = scalar(information, "information", low=0.0, allow_inf=True)
    spread = scalar(spread, "spread", low=0.0, allow_inf=True)
    l = non_negative_int(l, "l")
    for name, value in (("parameters", parameters), ("evidence", evidence)):
        if not isinstance(value, dict):
            raise TypeError(f"{name} must be a dict, got {type(value).__name__}")
    missing = {"epsilon", "delta", "convention"} - set(parameters)
    if missing:
        raise ValueError(f"parameters lacks {sorted(missing)}: give epsilon, delta and convention")
    parameters = {
        **parameters,
        **pml_claim(*(parameters[k] for k in ("epsilon", "delta", "convention"))),
    }
    epsilon, delta, convention = (parameters[k] for k in ("epsilon", "delta", "convention"))
    weight = convention_weight(convention)
    q, q_error = chi2_quantile_enclosure(delta, l) if l else (0.0, 0.0)
    margin = float(epsilon - weight * information - 0.5 * q)
    tolerance = INFLATE * (
        weight * spread
        + 0.5 * q_error
        + 4 * UNIT_ROUNDOFF * (abs(epsilon) + weight * information + 0.5 * q)
    )
    evidence.update(
        degrees_of_freedom=l,
        mutual_information=information,
        information_error=spread,
        quantile_error=q_error,
        leakage_quantile=float(weight * information + minimum_epsilon(delta, l)) if l else 0.0,
        log_det_ratio=-2.0 * information,
        required_log_det_ratio=float(log_det_ratio_bound(epsilon, delta, max(l, 1), convention)),
    )
    passed = bool(margin - tolerance >= 0.0)
    return Certificate("pml", parameters, passed, margin, float(tolerance), evidence)
