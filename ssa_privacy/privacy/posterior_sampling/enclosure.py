"""The epsilon of GP posterior sampling [MAC] enclosed rigorously, by mpmath.

At a fixed Renyi order, :func:`epsilon_enclosure_exp_1d` bounds the epsilon of Theorem
3.1 (1-D exponential kernel, Lemma B.7) from below and above for a whole range of noise
scales, evaluated at :data:`~ssa_privacy.privacy.rounding.DIGITS` significant digits and
rounded outward: the certificate of
:class:`~ssa_privacy.privacy.posterior_sampling.mechanism.PosteriorSamplingMechanism` rests on it.
The floating-point bound and its notation are in
:mod:`ssa_privacy.privacy.posterior_sampling.bound`; the theory in
:doc:`/theory/posterior-sampling`.
"""

import functools

import mpmath
import numpy as np

from ssa_privacy._internal.validation import (
    non_negative,
    open_interval,
    positive,
    positive_int,
    scalar,
)
from ssa_privacy.privacy.rounding import DIGITS

__all__ = [
    "epsilon_enclosure_exp_1d",
]

#: Most mpmath digits spent on the cancellations of the epsilon (:func:`_working_digits`).
_MAX_DIGITS = 2000


def _ratio_terms(order, n, lengthscale, ridge, sigma, eta):
    """``V``, ``r^2``, ``s^2``, ``A``, ``tau~`` and ``beta`` of Theorem 3.1 at mp precision."""
    mpf = mpmath.mpf
    kappa = mpmath.exp(-1 / mpf(lengthscale))
    r2 = mpf(ridge) ** 2
    V = 1 - kappa**2 * (n - 1) / (n - 1 + r2)
    s2 = mpf(sigma) ** 2
    a = r2 + mpf(eta) ** 2 * (V + r2) / s2
    tau = V / a
    return V, r2, s2, a, tau, (mpf(order) - 1) * tau


def _working_digits(order, n, lengthscale, ridge, sigma, eta):
    """Digits at which :func:`_mp_terms` keeps ``DIGITS - 5`` correct ones.

    Three differences cancel: ``V = 1 - kappa^2 (n - 1) / (n - 1 + r^2)`` loses
    ``log10(1 / V)`` digits, ``psi`` (a difference of terms of size ``tau~ / 2`` that is
    of order ``tau~ (tau~ + beta) / 4``) loses ``log10(2 / (tau~ + beta))``, and ``1 -
    beta`` loses ``log10(1 / (1 - beta))``. The losses are estimated at a precision that
    already covers them (doubling it until it does), plus five digits of margin.
    """
    digits = DIGITS
    while digits <= _MAX_DIGITS:
        with mpmath.workdps(digits):
            V, _, _, _, tau, beta = _ratio_terms(order, n, lengthscale, ridge, sigma, eta)
            if V <= 0 or not 0 < beta < 1:
                needed = 2 * digits if V <= 0 else digits
            else:
                small = min(V, (tau + beta) / 2, 1 - beta)
                needed = DIGITS + 5 + int(mpmath.ceil(-mpmath.log10(small)))
        if needed <= digits:
            return digits
        digits = max(needed, 2 * digits)
    raise ValueError(
        f"lengthscale {lengthscale!r}, ridge {ridge!r} and order {order!r} make the epsilon "
        f"cancel beyond {_MAX_DIGITS} digits"
    )


@functools.lru_cache(maxsize=1024)
def _mp_terms(order, n, lengthscale, ridge, sigma, eta, response_bound, delta, paths):
    """``(digits, (P, Q))`` with ``epsilon(c) = P + Q / c`` at one order, in mpmath.

    ``P = L 2 psi - ln(delta) / (alpha - 1)`` (the covariance term, unchanged by c) and
    ``Q = L alpha (V + r^2) Delta^2 / (2 s^2 A (1 - beta))`` (the mean term at c = 1), at
    the :func:`_working_digits`; ``(P, Q)`` is None when the order is inadmissible.
    Cached: the mechanisms of one setting (many data sets, one scale and order) share it.
    """
    digits = _working_digits(order, n, lengthscale, ridge, sigma, eta)
    with mpmath.workdps(digits):
        V, r2, s2, a, tau, beta = _ratio_terms(order, n, lengthscale, ridge, sigma, eta)
        if not 0 < beta < 1:
            return digits, None
        Phi = 1 / (4 * r2) if V >= r2 else V / (V + r2) ** 2
        Delta2 = 8 * mpmath.mpf(response_bound) ** 2 * Phi
        alpha = mpmath.mpf(order)
        half, ratio = mpmath.log1p(tau) / 2, tau / (2 * beta)
        psi = max(
            half - ratio * mpmath.log1p(beta / (1 + tau)), -half - ratio * mpmath.log1p(-beta)
        )
        covariance = paths * 2 * psi - mpmath.log(mpmath.mpf(delta)) / (alpha - 1)
        mean = paths * alpha * (V + r2) * Delta2 / (2 * s2 * a * (1 - beta))
        return digits, (covariance, mean)


def epsilon_enclosure_exp_1d(
    order, scales, *, n, lengthscale, ridge, sigma, delta, eta=0.0, response_bound=1.0, paths=1
):
    """Rigorous bounds on the epsilon of L paths at one Renyi order, for a range of noise scales.

    The noise of each path is ``c (sigma^2 k_D + eta^2 k)`` with ``c`` anywhere in
    ``[c_lo, c_hi]`` (the posterior and prior scales ``sqrt(c) sigma`` and ``sqrt(c)
    eta``); the epsilon is ``L RDP(alpha) + ln(1/delta) / (alpha - 1)`` with the exact
    ``V_n(r)`` and Lemma B.7 sensitivity of the floating-point inputs.

    Parameters
    ----------
    order : float
        The Renyi order alpha > 1, taken exactly as given.
    scales : tuple of float
        ``(c_lo, c_hi)``, ``0 <= c_lo <= c_hi`` (dimensionless).
    n : int
        Data-set size.
    lengthscale : float
        l of ``exp(-|x - x'| / l)`` on [0, 1].
    ridge : float
        Effective ridge r > 0.
    sigma : float
        Posterior scale (finite, > 0) at ``c = 1``.
    delta : float
        Target delta in (0, 1).
    eta : float
        Prior-path scale at ``c = 1``.
    response_bound : float
        M_Y.
    paths : int
        L.

    Returns
    -------
    lower, upper : float
        ``lower <= epsilon(alpha; c) <= upper`` for every c in ``[c_lo, c_hi]`` (nats);
        ``upper`` is inf when ``c_lo = 0`` or alpha is not admissible
        (``(alpha - 1) tau~ >= 1``), and then so is ``lower`` for the latter.

    Raises
    ------
    TypeError
        If an argument is not a real number (a bool, a string).
    ValueError
        If order <= 1, the scales are not ``0 <= c_lo <= c_hi`` (``c_hi`` may be inf),
        another argument is out of its range, or the cancellations need more than 2000
        digits.

    Notes
    -----
    At a fixed order, scaling sigma and eta together by ``sqrt(c)`` leaves ``tau~ =
    sigma^2 V / A`` and hence the covariance term unchanged and divides the mean term by
    c ([MAC] Theorem 3.1, Proposition 2): epsilon is decreasing in c, so its range over
    ``[c_lo, c_hi]`` is ``[epsilon(c_hi), epsilon(c_lo)]``. Both ends are evaluated by
    mpmath with ``rounding.DIGITS`` = 40 significant digits kept through the cancellations
    of ``V``, ``psi`` and ``1 - beta`` (:func:`_working_digits`; error below 1e-35
    relative, far below half an ulp of a double) and rounded outward by one ulp; a lower
    end beyond the largest double becomes the largest double.
    """
    order = scalar(order, "order", low=1.0, low_open=True)
    c_lo, c_hi = _scales(scales)
    setting = (
        positive_int(n, "n"),
        positive(lengthscale, "lengthscale"),
        positive(ridge, "ridge"),
        positive(sigma, "sigma"),
        non_negative(eta, "eta"),
        positive(response_bound, "response_bound"),
        open_interval(delta, "delta"),
        positive_int(paths, "paths"),
    )
    return _epsilon_range(order, c_lo, c_hi, setting)


def _epsilon_range(order, c_lo, c_hi, setting):
    """:func:`epsilon_enclosure_exp_1d` of trusted arguments; ``setting`` is ``(n,
    lengthscale, ridge, sigma, eta, response_bound, delta, paths)``."""
    digits, terms = _mp_terms(order, *setting)
    if terms is None:
        return np.inf, np.inf
    covariance, mean = terms
    with mpmath.workdps(digits):
        high = covariance + mean / c_lo if c_lo > 0 else mpmath.inf
        low = covariance + mean / mpmath.mpf(c_hi)
        return _outward(low, -np.inf), _outward(high, np.inf)


def _epsilon_at_scale(order, c, setting):
    """The epsilon at one order and noise scale c > 0, the double nearest to it (trusted)."""
    digits, terms = _mp_terms(order, *setting)
    if terms is None:
        return np.inf
    covariance, mean = terms
    with mpmath.workdps(digits):
        return float(covariance + mean / c)


def _scales(scales):
    """``(c_lo, c_hi)`` as floats with ``0 <= c_lo <= c_hi`` (``c_hi`` may be inf)."""
    try:
        c_lo, c_hi = scales
    except (TypeError, ValueError):
        raise ValueError(f"scales must be a pair (c_lo, c_hi), got {scales!r}") from None
    c_lo = non_negative(c_lo, "scales[0] (c_lo)")
    c_hi = scalar(c_hi, "scales[1] (c_hi)", low=0.0, allow_inf=True)
    if c_hi < c_lo:
        raise ValueError(f"scales must satisfy c_lo <= c_hi, got ({c_lo!r}, {c_hi!r})")
    return c_lo, c_hi


def _outward(value, direction):
    """An mpmath value as a double one ulp beyond it towards ``direction`` (inf stays inf)."""
    if mpmath.isinf(value):
        return float(value)
    rounded = float(value)
    if np.isinf(rounded):  # beyond the largest double: the largest one is below it
        return rounded if direction > 0 else float(np.finfo(float).max)
    return float(np.nextafter(rounded, direction))
