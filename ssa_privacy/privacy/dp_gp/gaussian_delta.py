"""The exact delta of the analytic Gaussian mechanism, enclosed by mpmath.

The (epsilon, delta) guarantee of a Gaussian release whose worst-case shift has
Mahalanobis norm m is ``delta(m) = Phi(m / 2 - epsilon / m) - e^epsilon Phi(-m / 2 -
epsilon / m)`` (Balle and Wang 2018, Theorem 8, [BW18]). :func:`delta_enclosure` evaluates
it by mpmath with enough digits for the conditioning of its erfc arguments, and bounds
rigorously the distance from the float margin ``delta - delta(m)`` to the exact margin at
any m in an enclosure ``[lower, upper]`` (:func:`widened`) of the exact Mahalanobis norm;
:func:`~ssa_privacy.privacy.dp_gp.release.gaussian_check` builds its certificate on it. The
derivation is in the section "Certificates in floating point" of :doc:`/theory/dp-gp`.
"""

import mpmath
import numpy as np

from ssa_privacy._internal.validation import open_interval, positive, scalar
from ssa_privacy.privacy.rounding import DIGITS

__all__ = [
    "NEGLIGIBLE_ARGUMENT",
    "delta_enclosure",
    "widened",
]

#: Relative accuracy of the mpmath evaluations of the exact delta (DIGITS digits, of
#: which a few may be lost to cancellation).
_MP_GUARD = 10.0 ** (5 - DIGITS)
#: erfc argument beyond which the exact delta is negligible: ``erfc(40) / 2 < 1e-697``, far
#: below the smallest subnormal float.
NEGLIGIBLE_ARGUMENT = 40
#: Most extra mpmath digits spent on the conditioning of the erfc arguments (mpmath's
#: erfc overflows for arguments near 1e154).
_MAX_EXTRA_DIGITS = 200
_SMALLEST_SUBNORMAL = float(np.nextafter(0.0, 1.0))


def widened(m, error):
    """``[m - error, m + error]`` rounded outwards (clipped at 0); ``[m, m]`` if m is exact.

    Parameters
    ----------
    m : float
        A computed Mahalanobis norm (noise standard units), >= 0 or inf.
    error : float
        A rigorous bound on its distance to the exact norm (>= 0).

    Returns
    -------
    lower, upper : float
        Floats with ``lower <= m - error`` (at least 0) and ``upper >= m + error``.

    Raises
    ------
    TypeError
        If ``m`` or ``error`` is not a real number.
    ValueError
        If either is negative or NaN.

    Notes
    -----
    A sum rounded to nearest is within half an ulp of the exact one, so the neighbouring
    float outwards lies beyond it (subnormal results included).
    """
    m = scalar(m, "m", low=0.0, allow_inf=True)
    error = scalar(error, "error", low=0.0, allow_inf=True)
    if not np.isfinite(m) or error == 0:
        return m, m
    return max(0.0, float(np.nextafter(m - error, -np.inf))), float(np.nextafter(m + error, np.inf))


def _extra_digits(m, epsilon):
    """Digits lost to the rounding of the erfc arguments of :func:`_mp_delta`.

    The arguments ``(epsilon / m -+ m / 2) / sqrt(2)`` are rounded to the working
    precision, an absolute error of ``y = epsilon / m + m / 2`` times its unit roundoff;
    the relative condition number of ``erfc(x)`` is below ``1 + 2 |x|`` times the
    absolute error, so each term keeps ``DIGITS - 5`` correct digits when the working
    precision has ``log10(2 (1 + y)^2)`` more (rounded up, plus one).
    """
    if m == 0 or not np.isfinite(m):
        return 0
    y = mpmath.mpf(epsilon) / mpmath.mpf(m) + mpmath.mpf(m) / 2
    return int(mpmath.ceil(mpmath.log10(2 * (1 + y) ** 2))) + 1


def _mp_delta(m, epsilon):
    """The exact delta of [BW18] Theorem 8 and the sum of its two terms, at mp precision.

    Must be called inside ``mpmath.workdps(DIGITS + _extra_digits(m, epsilon))``; ``m``
    may be 0 or inf.
    """
    if m == 0:
        return mpmath.mpf(0), mpmath.mpf(0)
    if not np.isfinite(m):
        return mpmath.mpf(1), mpmath.mpf(1)
    m, epsilon = mpmath.mpf(m), mpmath.mpf(epsilon)
    root2 = mpmath.sqrt(2)
    first = mpmath.erfc((epsilon / m - m / 2) / root2) / 2
    second = mpmath.exp(epsilon) * mpmath.erfc((m / 2 + epsilon / m) / root2) / 2
    return first - second, first + second


def delta_enclosure(m, lower, upper, epsilon, delta):
    """Margin ``delta - delta(m)``, its tolerance, ``delta(m)`` and ``delta(upper)`` (floats).

    Parameters
    ----------
    m : float
        The computed Mahalanobis norm of the worst shift (noise standard units), >= 0 or inf.
    lower, upper : float
        An enclosure of the exact norm, ``lower <= m <= upper`` (:func:`widened`).
    epsilon : float
        The epsilon of the guarantee (> 0, nats).
    delta : float
        The delta claimed, in (0, 1).

    Returns
    -------
    margin : float
        ``delta - delta(m)`` rounded to a float.
    tolerance : float
        A rigorous upper bound on ``|margin - (delta - delta(m'))|`` for every m' in
        ``[lower, upper]``.
    exact, exact_upper : float
        ``delta(m)`` and ``delta(upper)`` rounded to floats.

    Raises
    ------
    TypeError
        If an argument is not a real number.
    ValueError
        If m, lower or upper is negative or NaN, ``lower <= m <= upper`` fails, epsilon
        is not finite and positive, delta is outside (0, 1), or the erfc arguments
        ``(epsilon / m +- m / 2) / sqrt(2)`` are so large (about 1e100) that mpmath
        cannot evaluate the delta, while it is not negligible.

    Notes
    -----
    delta is increasing in m, so the exact margin lies between its values at the ends; the
    tolerance is the larger distance from ``delta(m)`` to those ends, plus the accuracy of
    the mpmath values (``10^(5 - DIGITS)`` of the two terms) and the rounding of the
    margin. The rounding of the margin to a float is measured as ``|(delta - margin) - delta(m)|``
    with the float difference taken exactly: the mp difference ``delta - delta(m)`` has an
    absolute error of ``delta`` times the mp unit roundoff, which exceeds ``delta(m)``
    itself for a tiny ``delta(m)``. The tolerance is rounded upwards to a float.
    """
    m, lower, upper = (
        scalar(value, name, low=0.0, allow_inf=True)
        for value, name in ((m, "m"), (lower, "lower"), (upper, "upper"))
    )
    if not lower <= m <= upper:
        raise ValueError(f"lower <= m <= upper must hold, got {lower!r}, {m!r}, {upper!r}")
    epsilon, delta = positive(epsilon, "epsilon"), open_interval(delta, "delta")
    if _negligible(upper, epsilon):
        return float(delta), _SMALLEST_SUBNORMAL, 0.0, 0.0
    extra = max(_extra_digits(x, epsilon) for x in (m, lower, upper))
    if extra > _MAX_EXTRA_DIGITS:
        raise ValueError(
            f"mahalanobis_sensitivity m = {m!r} and epsilon {epsilon!r} put the exact delta "
            f"beyond its evaluation (erfc argument above 1e{_MAX_EXTRA_DIGITS // 2})"
        )
    with mpmath.workdps(DIGITS + extra):
        value, size = _mp_delta(m, epsilon)
        low, low_size = _mp_delta(lower, epsilon)
        high, high_size = _mp_delta(upper, epsilon)
        margin = float(mpmath.mpf(delta) - value)
        deviation = max(high - value, value - low) + _MP_GUARD * (size + low_size + high_size)
        deviation += abs(mpmath.fsub(delta, margin, exact=True) - value)
        tolerance = _upward(deviation * (1 + mpmath.mpf(2) ** -50))
        return margin, tolerance, float(value), float(high)


def _negligible(upper, epsilon):
    """Whether ``delta(m) < erfc(NEGLIGIBLE_ARGUMENT) / 2`` for every ``0 < m <= upper``.

    ``0 <= delta(m) <= erfc(x) / 2`` with ``x = (epsilon / m - m / 2) / sqrt(2)``
    decreasing in m; beyond ``NEGLIGIBLE_ARGUMENT`` the delta is far below the smallest
    subnormal float, so the margin is delta and its error below that subnormal.
    """
    if upper == 0 or not np.isfinite(upper):
        return False
    with mpmath.workdps(DIGITS):
        m = mpmath.mpf(upper)
        return (mpmath.mpf(epsilon) / m - m / 2) / mpmath.sqrt(2) >= NEGLIGIBLE_ARGUMENT


def _upward(value):
    """The non-negative mpmath ``value`` as a float at least as large (one ulp above at most)."""
    rounded = float(value)
    return rounded if mpmath.mpf(rounded) >= value else float(np.nextafter(rounded, np.inf))
