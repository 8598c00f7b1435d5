"""The epsilon of GP posterior sampling [MAC] enclosed rigorously, by mpmath.

At a fixed Renyi order, :func:`epsilon_enclosure_exp_1d` bounds the epsilon of Theorem
3.1 (1-D exponential kernel, Lemma B.7) from below and above for a whole range of noise
scales, evaluated at :data:`~ssa_privacy.privacy.rounding.DIGITS` significant digits and
rounded outward: the certificate of
:class:`~ssa_privacy.privacy.posterior_sampling.PosteriorSamplingMechanism` rests on it.
The floating-point bound and its notation are in
:mod:`ssa_privacy.privacy.posterior_sampling_bound`; the theory in
:doc:`/theory/posterior-sampling`.
"""

import mpmath
import numpy as np

from ssa_privacy._validation import non_negative, open_interval, positive, positive_int, scalar
from ssa_privacy.privacy.rounding import DIGITS


def _mp_epsilon_exp_1d(
    order, scale, n, lengthscale, ridge, sigma, eta, response_bound, delta, paths
):
    """The epsilon of Theorem 3.1 at one order in mpmath (DIGITS digits); inf if inadmissible."""
    mpf = mpmath.mpf
    kappa = mpmath.exp(-1 / mpf(lengthscale))
    r2 = mpf(ridge) ** 2
    V = 1 - kappa**2 * (n - 1) / (n - 1 + r2)
    Phi = 1 / (4 * r2) if V >= r2 else V / (V + r2) ** 2
    Delta2 = 8 * mpf(response_bound) ** 2 * Phi
    s2 = mpf(sigma) ** 2
    a = r2 + mpf(eta) ** 2 * (V + r2) / s2
    tau, alpha = V / a, mpf(order)
    beta = (alpha - 1) * tau
    if not 0 < beta < 1:
        return mpmath.inf
    half, ratio = mpmath.log1p(tau) / 2, tau / (2 * beta)
    psi = max(half - ratio * mpmath.log1p(beta / (1 + tau)), -half - ratio * mpmath.log1p(-beta))
    mean = alpha * (V + r2) * Delta2 / (2 * mpf(scale) * s2 * a * (1 - beta))
    return paths * (2 * psi + mean) + mpmath.log(1 / mpf(delta)) / (alpha - 1)


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
        or another argument is out of its range.

    Notes
    -----
    At a fixed order, scaling sigma and eta together by ``sqrt(c)`` leaves ``tau~ =
    sigma^2 V / A`` and hence the covariance term unchanged and divides the mean term by
    c ([MAC] Theorem 3.1, Proposition 2): epsilon is decreasing in c, so its range over
    ``[c_lo, c_hi]`` is ``[epsilon(c_hi), epsilon(c_lo)]``. Both ends are evaluated by
    mpmath at ``rounding.DIGITS`` = 40 significant digits (error below 1e-35 relative,
    far below half an ulp of a double) and rounded outward by one ulp.
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
    with mpmath.workdps(DIGITS):
        high = _mp_epsilon_exp_1d(order, c_lo, *setting) if c_lo > 0 else mpmath.inf
        low = _mp_epsilon_exp_1d(order, c_hi, *setting)
        return _outward(low, -np.inf), _outward(high, np.inf)


def _scales(scales):
    """``(c_lo, c_hi)`` as floats with ``0 <= c_lo <= c_hi`` (``c_hi`` may be inf)."""
    try:
        c_lo, c_hi = scales
    except (TypeError, ValueError):
        raise ValueError(f"scales must be a pair (c_lo, c_hi), got {scales!r}") from None
    c_lo = non_negative(c_lo, "c_lo")
    c_hi = scalar(c_hi, "c_hi", low=0.0, allow_inf=True)
    if c_hi < c_lo:
        raise ValueError(f"scales must satisfy c_lo <= c_hi, got ({c_lo!r}, {c_hi!r})")
    return c_lo, c_hi


def _outward(value, direction):
    """An mpmath value as a double one ulp beyond it towards ``direction`` (inf stays inf)."""
    value = float(value)
    return value if np.isinf(value) else float(np.nextafter(value, direction))
