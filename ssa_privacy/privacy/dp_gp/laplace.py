"""The pure-DP certificate of Laplace bin means, proven in floating point.

A release of bin means with Laplace noise of scale ``b_b`` per occupied bin is
epsilon-DP for ``epsilon = max_b (d / n_b) / b_b`` (Dwork and Roth 2014, §3.3; parallel
composition over disjoint bins, [SMI] §4). :func:`laplace_certificate` recomputes that
loss from the scales actually used, read from the diagonal of the noise covariance by
:func:`covariance_scales`, and bounds rigorously the rounding of its margin;
:func:`check_variance_range` refuses calibrations whose variance leaves the normal double
range. The derivation is in the section "Certificates in floating point" of
:doc:`/theory/dp-gp`.
"""

import numpy as np

from ssa_privacy._internal.validation import (
    as_finite_array,
    boolean_mask,
    positive,
    real_array,
    whole_numbers,
)
from ssa_privacy.privacy.mechanism import Certificate, FactoredCovariance
from ssa_privacy.privacy.rounding import INFLATE, RULE, UNIT_ROUNDOFF, gamma

__all__ = [
    "SCALE_INFLATION",
    "bin_mean_sensitivity",
    "check_variance_range",
    "covariance_scales",
    "laplace_certificate",
]

#: Relative inflation of the calibrated Laplace scales, ``d / (n_b epsilon) (1 + 32 u)``:
#: it exceeds the rounding of the calibration and of the covariance (about 4 u) plus the
#: certificate's bound on its own rounding (about 11 u); see the calibration of
#: :class:`~ssa_privacy.privacy.dp_gp.binning.LaplaceBinningMechanism`.
SCALE_INFLATION = 32 * UNIT_ROUNDOFF
_DESCRIPTION = "Laplace bin means, parallel composition over disjoint bins"
#: Smallest positive normal and subnormal doubles (below the first, roundings are absolute).
_TINY = float(np.finfo(float).tiny)
_SUBNORMAL = float(np.nextafter(0.0, 1.0))


def check_variance_range(scales):
    """Raise unless every variance ``2 b^2`` of the calibrated scales is a normal double.

    Parameters
    ----------
    scales : ndarray, shape (B,)
        Calibrated Laplace scales ``d / (n_b epsilon) (1 + SCALE_INFLATION)`` of the
        occupied bins (units of the outputs).

    Raises
    ------
    TypeError
        If ``scales`` is not an array of real numbers.
    ValueError
        If ``scales`` is not 1-dimensional or holds a negative scale; naming
        ``sensitivity`` and ``epsilon``, if a variance is below twice the smallest normal
        double or not finite.

    Notes
    -----
    Below the normal range the roundings of the covariance and of its certificate are
    absolute, not relative, and beyond it the variance overflows: in both cases the
    stored noise is not the calibrated one.
    """
    scales = real_array(scales, "scales", ndim=1)
    if np.any(scales < 0):
        raise ValueError(f"scales must be >= 0 (Laplace scales), got {float(np.min(scales))!r}")
    with np.errstate(over="ignore"):
        variances = 2 * scales**2
    bad = ~((variances >= 2 * _TINY) & np.isfinite(variances))
    if np.any(bad):
        raise ValueError(
            f"scales holds a Laplace scale (sensitivity / epsilon) {float(scales[bad][0])!r} "
            "whose variance is outside the normal double range; rescale the outputs "
            "(sensitivity) or choose another epsilon"
        )


def bin_mean_sensitivity(counts, sensitivity):
    """Largest change ``d / n_b`` of a bin mean when one of its n_b outputs moves by d.

    Parameters
    ----------
    counts : ndarray, shape (B,)
        Training points per occupied bin (>= 1).
    sensitivity : float
        d, the largest change of one output (units of the outputs).

    Returns
    -------
    ndarray, shape (B,)
        ``d / n_b`` (units of the outputs).

    Raises
    ------
    TypeError
        If ``counts`` or ``sensitivity`` is not made of real numbers.
    ValueError
        If ``counts`` is not a vector of whole numbers >= 1, or ``sensitivity`` not a
        finite positive number.
    """
    return positive(sensitivity, "sensitivity") / _counts(counts)


def _counts(counts):
    """``counts`` as a vector of whole numbers >= 1 (training points per occupied bin)."""
    if np.ndim(counts) != 1:
        raise ValueError(
            f"counts must be a vector (one count per bin), got shape {np.shape(counts)}"
        )
    return whole_numbers(counts, "counts", low=1)


def covariance_scales(noise, occupied):
    """Laplace scales ``sqrt(Sigma_bb / 2)`` of the occupied bins and their relative error.

    Parameters
    ----------
    noise : FactoredCovariance
        ``Sigma = V diag(lambda) V^T`` over all B bins, taken exactly from its factors
        (squared units of the outputs).
    occupied : ndarray of bool, shape (B,)
        The bins that release a mean.

    Returns
    -------
    scales : ndarray, shape (B_occupied,)
        Computed ``sqrt(Sigma_bb / 2)`` (units of the outputs).
    relative : ndarray, shape (B_occupied,)
        Rigorous bounds on ``|b_exact - b_b| / b_b`` (0 for an exactly zero variance, inf
        where nothing is proven).

    Notes
    -----
    ``Sigma_bb = sum_k V_bk^2 lambda_k`` is a sum of ``nu_b`` non-zero terms (adding an
    exact zero does not round), each with two roundings, so it is off by at most
    ``gamma_{nu_b + 1} sum_k V_bk^2 |lambda_k|`` plus ``nu_b`` times the smallest
    subnormal for products that underflow (each of their two roundings then has an
    absolute error of at most half of it; additions of subnormals are exact). Halving is
    exact for a variance of at least twice the smallest normal double and the square root
    is within 2 ulps (4 u relative). The relative error of the scale is at most ``e_b /
    Sigma_bb + gamma_5`` (``|sqrt(1 + x) - 1| <= |x|`` for ``|x| <= 1``); inf when that is
    not below 1, when the variance is below twice the smallest normal double or when it
    is not finite.

    Raises
    ------
    TypeError
        If ``noise`` is not a FactoredCovariance or ``occupied`` not a boolean mask.
    ValueError
        If ``occupied`` does not have one entry per bin.
    """
    if not isinstance(noise, FactoredCovariance):
        raise TypeError(f"noise must be a FactoredCovariance, got {type(noise).__name__}")
    occupied = boolean_mask(occupied, "occupied", noise.dim)
    V, lam = noise.eigenvectors[occupied], noise.eigenvalues
    with np.errstate(over="ignore", invalid="ignore"):
        variance = np.sum(V**2 * lam, axis=1)
        bound = np.sum(V**2 * np.abs(lam), axis=1)
    nonzero = np.count_nonzero((V != 0) & (lam != 0), axis=1)
    rounding = np.array([gamma(k + 1) for k in nonzero]) * bound + nonzero * _SUBNORMAL
    error = INFLATE * rounding
    usable = (error < variance) & (variance >= 2 * _TINY) & np.isfinite(variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where(usable, INFLATE * error / variance + gamma(5), np.inf)
    relative[nonzero == 0] = 0.0  # an exactly zero variance: scale 0, infinite loss, exact
    return np.sqrt(np.maximum(variance, 0.0) / 2), relative


def laplace_certificate(scales, counts, epsilon, sensitivity, scale_error):
    """Pure-DP certificate of Laplace bin means from the scales actually used.

    Parameters
    ----------
    scales : ndarray, shape (B,)
        Laplace scales of the occupied bins (units of the outputs).
    counts : ndarray, shape (B,)
        Training points per occupied bin.
    epsilon : float
        The epsilon claimed (nats).
    sensitivity : float
        d, the largest change of one output (units of the outputs).
    scale_error : float or ndarray, shape (B,)
        Rigorous bounds on ``|b_exact - b_b| / b_b`` (0 takes the scales as exact).

    Returns
    -------
    Certificate
        Notion ``"dp"``, parameters epsilon and delta = 0; ``margin`` = epsilon minus the
        largest loss, ``tolerance`` a rigorous bound on its distance to the exact margin;
        passed iff ``margin - tolerance >= 0``.

    Raises
    ------
    TypeError
        If an argument is not made of real numbers.
    ValueError
        If ``scales`` is not a finite non-negative vector of the length of ``counts``,
        ``counts`` not whole numbers >= 1, epsilon or sensitivity not finite and
        positive, or ``scale_error`` negative, NaN or of another length.

    Notes
    -----
    Recomputes the privacy loss ``(d / n_b) / b_b`` of every occupied bin from the
    scale b_b used and the sensitivity of that bin's mean (not from the calibration);
    the release's epsilon is the largest (parallel composition). ``scale_error`` (per
    bin, or one number) bounds ``|b_exact - b_b| / b_b``.

    The computed loss is ``(d / n_b) / b (1 + theta_1)(1 + theta_2)`` and the exact one
    ``(d / n_b) / (b (1 + phi))`` with ``|phi| <= rho_b``: they differ by at most ``t / (1
    - t)`` of the computed loss, ``t = rho_b + gamma_3``. The maximum over bins moves by
    at most the largest such bound, and the margin ``fl(epsilon - loss)`` by u of itself;
    a quotient that underflows adds at most the smallest subnormal (twice, for the loss
    and the margin), and a sensitivity ``d / n_b`` below the normal range has no relative
    bound (tolerance inf). An infinite loss is exact only where the scale error is 0 (an
    exactly zero variance); otherwise nothing is proven (tolerance inf).
    """
    quotient = bin_mean_sensitivity(counts, sensitivity)
    epsilon = positive(epsilon, "epsilon")
    scales = as_finite_array(scales, "scales", ndim=1)
    if scales.shape != quotient.shape or np.any(scales < 0):
        raise ValueError(
            f"scales must hold {len(quotient)} non-negative Laplace scales (one per count), "
            f"got shape {scales.shape}"
        )
    error = real_array(scale_error, "scale_error")
    if np.any(np.isnan(error) | (error < 0)) or error.shape not in ((), quotient.shape):
        raise ValueError(
            f"scale_error must be one number or {len(quotient)}, each >= 0 (inf allowed), "
            f"got {scale_error!r:.60}"
        )
    error = np.broadcast_to(error, np.shape(quotient))
    with np.errstate(divide="ignore", over="ignore"):
        losses = np.where(scales > 0, quotient / scales, np.inf)
    loss = float(np.max(losses)) if len(losses) else 0.0
    margin = epsilon - loss
    tolerance = _tolerance(quotient, losses, error, margin) if len(losses) else 0.0
    evidence = {
        "mechanism": _DESCRIPTION,
        "max_privacy_loss": loss,
        "occupied_bins": len(counts),
        "scale_inflation": SCALE_INFLATION,
        "rule": RULE,
    }
    parameters = {"epsilon": float(epsilon), "delta": 0.0}
    passed = bool(margin - tolerance >= 0.0)
    return Certificate("dp", parameters, passed, margin, tolerance, evidence)


def _tolerance(quotient, losses, error, margin):
    """The bound of :func:`laplace_certificate` on the rounding of its margin."""
    if not np.all(np.isfinite(losses)):
        return 0.0 if np.all(error[np.isinf(losses)] == 0) else np.inf
    t = np.where(quotient >= _TINY, error + gamma(3), np.inf)
    with np.errstate(invalid="ignore"):
        relative = np.where(t < 1, t / (1 - t), np.inf)
    spread = np.where(np.isinf(relative), np.inf, relative * losses)
    return INFLATE * (float(np.max(spread)) + UNIT_ROUNDOFF * abs(margin)) + 2 * _SUBNORMAL
