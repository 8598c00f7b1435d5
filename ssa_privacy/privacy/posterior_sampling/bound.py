"""The Renyi-DP bound of releasing GP posterior sample paths [MAC].

Threat model [MAC §2]: the whole training set ``D = {(x_i, y_i)}`` is private
(replace-one neighbours, ``n = |D|``). The mechanism releases ``L`` independent sample
paths of the posterior ``GP(m_D, sigma^2 k_D)`` of a prior ``GP(0, sigma^2 k)`` with
observation-noise variance ``sigma^2 r^2``:

    m_D(x) = k_x^T (K + r^2 I)^{-1} y,    k_D(x, x') = k(x, x') - k_x^T (K + r^2 I)^{-1} k_x'.

``sigma`` is the kernel (posterior) scale and ``r`` the effective ridge (noise-to-signal
standard-deviation ratio); the kernel is normalised so that ``k(x, x) <= 1``, and the
responses are bounded, ``|y| <= M_Y``. Optionally an independent prior path scaled by
``eta`` is added (Proposition 2).

The guarantee (Theorem 3.1) is uniform over finite test sets: for
``1 < alpha < 1 + r^2 / V``

    D_alpha <= 2 psi_alpha(V / r^2) + (alpha / 2) (V + r^2) / (r^2 - (alpha - 1) V) (Delta / sigma)^2,

with ``V`` the posterior variance scale (bounded by Proposition 3) and ``Delta`` the
common-core mean sensitivity (Lemma B.7 for the 1-D exponential kernel, Lemma B.1 in
general). ``L`` paths compose additively and are converted to (epsilon, delta) by
Mironov (2017), Proposition 3, optimised over the order. At a fixed order,
:func:`~ssa_privacy.privacy.posterior_sampling.enclosure.epsilon_enclosure_exp_1d`
encloses the epsilon rigorously by mpmath (the mechanism's certificate uses it).

Notation follows [MAC]: ``alpha`` Renyi order, ``sigma`` scale, ``r`` = ``ridge``,
``L`` = ``paths``, ``Delta`` mean sensitivity, ``V`` variance scale, ``eta`` prior-noise
scale. All quantities are dimensionless (responses in units of ``M_Y`` = 1 unless a
``response_bound`` is given). The derivation, the points where the package departs from
the authors' code and reference values are in :doc:`/theory/posterior-sampling`. The
mechanism that samples and certifies is
:class:`ssa_privacy.privacy.posterior_sampling.mechanism.PosteriorSamplingMechanism`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ssa_privacy._internal.validation import (
    as_finite_array,
    non_negative,
    open_interval,
    positive,
    positive_int,
    scalar,
)

__all__ = [
    "BETA_GRID",
    "PosteriorSamplingBound",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "kappa_exp_1d",
    "mean_sensitivity_exp_1d",
    "mean_sensitivity_generic",
    "phi_bound",
    "psi",
    "variance_scale_bound",
]

#: Evenly spaced grid on beta = (alpha - 1) tau in (0, 1) used to bracket the optimum
#: over the Renyi order before a bounded scalar minimisation.
BETA_GRID = np.concatenate(
    [np.logspace(-9, -2, 15), np.linspace(0.01, 0.99, 99), 1.0 - np.logspace(-2, -9, 15)]
)


def _scale(sigma):
    """Validate sigma > 0 (``inf`` allowed: the covariance-only limit); return 1/sigma^2."""
    sigma = scalar(sigma, "sigma", allow_inf=True)
    if not sigma > 0:
        raise ValueError(f"sigma must be positive (or inf), got {sigma!r}")
    return 0.0 if np.isinf(sigma) else 1.0 / sigma**2


def variance_scale_bound(n, ridge, kappa):
    """Proposition 3: ``V <= V_n(r) = 1 - kappa^2 (n - 1) / (n - 1 + r^2)``.

    Parameters
    ----------
    n : int
        Size of the data set (the common core has n - 1 points).
    ridge : float
        Effective ridge r > 0.
    kappa : float
        Lower bound ``0 <= kappa <= k(x, x')`` on the domain (with ``k(x, x) <= 1``).

    Returns
    -------
    float
        V_n(r), an upper bound on the unit-scale posterior variance of the common core.

    Raises
    ------
    ValueError
        If n is not a positive integer, r <= 0 or kappa not in [0, 1].

    Notes
    -----
    [MAC] Proposition 3; exact when ``k(x, x) = 1`` everywhere.
    """
    n, r = positive_int(n, "n"), positive(ridge, "ridge")
    kappa = non_negative(kappa, "kappa")
    if kappa > 1:
        raise ValueError(f"kappa must lie in [0, 1], got {kappa}")
    return 1.0 - kappa**2 * (n - 1) / (n - 1 + r**2)


def phi_bound(V, ridge):
    """``Phi(V, r) = sup_{0 <= v <= V} v / (v + r^2)^2``.

    Parameters
    ----------
    V : float
        Variance scale bound (>= 0).
    ridge : float
        Effective ridge r > 0.

    Returns
    -------
    float
        ``1 / (4 r^2)`` if ``V >= r^2``, else ``V / (V + r^2)^2``.

    Notes
    -----
    [MAC] Appendix B (``phi_n`` of the authors' code).
    """
    V, r = non_negative(V, "V"), positive(ridge, "ridge")
    return 1.0 / (4 * r**2) if V >= r**2 else V / (V + r**2) ** 2


def kappa_exp_1d(lengthscale):
    """Kernel lower bound ``kappa = exp(-1 / l)`` of ``exp(-|x - x'| / l)`` on [0, 1].

    Parameters
    ----------
    lengthscale : float
        l > 0 (units of the domain [0, 1]).

    Returns
    -------
    float
        ``exp(-1 / l)``, the smallest correlation of two points of [0, 1].
    """
    return float(np.exp(-1.0 / positive(lengthscale, "lengthscale")))


def mean_sensitivity_exp_1d(n, ridge, lengthscale, response_bound=1.0):
    """Lemma B.7: ``Delta <= 2 sqrt(2) M_Y sqrt(Phi_n(r))`` for ``exp(-|x - x'|/l)`` on [0, 1].

    Parameters
    ----------
    n : int
        Data-set size.
    ridge : float
        Effective ridge r > 0.
    lengthscale : float
        Kernel length scale l > 0 (domain [0, 1]).
    response_bound : float
        M_Y, with ``|y| <= M_Y``.

    Returns
    -------
    float
        Upper bound on the common-core mean sensitivity (units of y).

    Notes
    -----
    [MAC] Lemma B.7 (relying on Lemma B.6, ``|m_D| <= M_Y`` for this kernel); the
    authors' code hard-codes M_Y = 1 (:doc:`/theory/posterior-sampling`).
    """
    V = variance_scale_bound(n, ridge, kappa_exp_1d(lengthscale))
    return (
        2.0
        * np.sqrt(2.0)
        * positive(response_bound, "response_bound")
        * np.sqrt(phi_bound(V, ridge))
    )


def mean_sensitivity_generic(n, ridge, kappa, response_bound=1.0, factor=2.0):
    """Lemma B.1: ``Delta <= factor M_Y (1 + sqrt(n - 1) / r) sqrt(Phi_n(r))``.

    Each of the two one-point updates of the common-core mean has RKHS norm at most
    ``(M_Y + |m_0(x)|) sqrt(Phi)`` with ``|m_0| <= M_Y sqrt(n - 1) / r``; the triangle
    inequality gives factor 2.

    Parameters
    ----------
    n : int
        Data-set size.
    ridge : float
        Effective ridge r > 0.
    kappa : float
        Kernel lower bound on the domain (see :func:`variance_scale_bound`).
    response_bound : float
        M_Y.
    factor : float
        2 (valid, the default). The authors' code uses sqrt(2), which is NOT a valid
        bound (a counterexample is in :doc:`/theory/posterior-sampling`); pass
        ``np.sqrt(2)`` only to reproduce their numbers.

    Returns
    -------
    float
        Upper bound on the common-core mean sensitivity (units of y).

    Notes
    -----
    [MAC] Lemma B.1; the choice of the factor is discussed in
    :doc:`/theory/posterior-sampling`.
    """
    n, r = positive_int(n, "n"), positive(ridge, "ridge")
    V = variance_scale_bound(n, r, kappa)
    return (
        positive(factor, "factor")
        * positive(response_bound, "response_bound")
        * (1 + np.sqrt(n - 1) / r)
        * np.sqrt(phi_bound(V, r))
    )


def psi(beta, tau):
    """Covariance-leakage term of Lemma A.3 in the beta form.

    ``psi = max{ ln(1+tau)/2 - tau/(2 beta) ln((1+tau+beta)/(1+tau)),
    -ln(1+tau)/2 - tau/(2 beta) ln(1-beta) }`` with ``beta = (alpha - 1) tau`` in (0, 1).

    Parameters
    ----------
    beta : float or ndarray
        (alpha - 1) tau, in (0, 1).
    tau : float
        V / r^2 (or tau~ of Proposition 2), > 0.

    Returns
    -------
    float or ndarray
        psi_alpha(tau).

    Raises
    ------
    TypeError
        If beta or tau is not made of real numbers.
    ValueError
        If a beta is outside (0, 1) or tau is not positive.

    Notes
    -----
    [MAC] Theorem 3.1 and Lemma A.3.
    """
    return _psi(_betas(beta), positive(tau, "tau"))


def _betas(beta):
    """beta as a float array with every entry in (0, 1)."""
    beta = as_finite_array(beta, "beta")
    if np.any((beta <= 0) | (beta >= 1)):
        raise ValueError("beta must lie in the open interval (0, 1)")
    return beta


def _psi(beta, tau):
    """:func:`psi` without validation (the optimiser's inner loop)."""
    beta = np.asarray(beta, dtype=float)
    half = 0.5 * np.log1p(tau)
    ratio = tau / (2 * beta)
    return np.maximum(half - ratio * np.log1p(beta / (1 + tau)), -half - ratio * np.log1p(-beta))


@dataclass(frozen=True)
class PosteriorSamplingBound:
    """The RDP bound of Theorem 3.1 / Proposition 2 for given V, Delta, r, sigma, eta.

    Parameters
    ----------
    V : float
        Posterior variance scale bound.
    Delta : float
        Common-core mean sensitivity bound (units of y).
    ridge : float
        Effective ridge r.
    sigma : float
        Posterior scale (inf: the covariance-only limit).
    eta : float
        Scale of the added prior path (Proposition 2; 0 for Theorem 3.1).
    """

    V: float
    Delta: float
    ridge: float
    sigma: float
    eta: float = 0.0

    def __post_init__(self):
        non_negative(self.V, "V")
        non_negative(self.Delta, "Delta")
        positive(self.ridge, "ridge")
        _scale(self.sigma)
        non_negative(self.eta, "eta")

    @classmethod
    def exp_1d(cls, n, lengthscale, ridge, sigma, eta=0.0, response_bound=1.0):
        """Bound for the 1-D exponential kernel on [0, 1] (Proposition 3 and Lemma B.7).

        Parameters
        ----------
        n : int
            Data-set size.
        lengthscale : float
            l of ``k = exp(-|x - x'| / l)``, inputs in [0, 1] (kappa = exp(-1/l)).
        ridge : float
            Effective ridge r > 0.
        sigma : float
            Posterior scale (inf: the covariance-only limit).
        eta : float
            Scale of an added independent prior path (Proposition 2).
        response_bound : float
            M_Y, with ``|y| <= M_Y``.

        Returns
        -------
        PosteriorSamplingBound
            With ``V = V_n(r)`` and the Lemma B.7 sensitivity.
        """
        V = variance_scale_bound(n, ridge, kappa_exp_1d(lengthscale))
        return cls(
            V, mean_sensitivity_exp_1d(n, ridge, lengthscale, response_bound), ridge, sigma, eta
        )

    @classmethod
    def generic(cls, n, kappa, ridge, sigma, eta=0.0, response_bound=1.0, factor=2.0):
        """Bound for any kernel with ``kappa <= k <= 1`` (Proposition 3 and Lemma B.1).

        Parameters
        ----------
        n : int
            Data-set size.
        kappa : float
            Lower bound ``0 <= kappa <= k(x, x')`` on the domain.
        ridge : float
            Effective ridge r > 0.
        sigma : float
            Posterior scale (inf: the covariance-only limit).
        eta : float
            Scale of an added independent prior path (Proposition 2).
        response_bound : float
            M_Y, with ``|y| <= M_Y``.
        factor : float
            The constant of Lemma B.1 (see :func:`mean_sensitivity_generic`).

        Returns
        -------
        PosteriorSamplingBound
            With ``V = V_n(r)`` and the Lemma B.1 sensitivity.
        """
        V = variance_scale_bound(n, ridge, kappa)
        Delta = mean_sensitivity_generic(n, ridge, kappa, response_bound, factor)
        return cls(V, Delta, ridge, sigma, eta)

    @property
    def _a(self):
        """``A / sigma^2 = r^2 + eta^2 (V + r^2) / sigma^2``."""
        return self.ridge**2 + self.eta**2 * (self.V + self.ridge**2) * _scale(self.sigma)

    @property
    def tau(self):
        """tau~ = sigma^2 V / A (= V / r^2 when eta = 0)."""
        return self.V / self._a

    @property
    def alpha_max(self):
        """Upper end ``1 + 1/tau~`` of the admissible orders."""
        return np.inf if self.tau == 0 else 1.0 + 1.0 / self.tau

    def rdp_beta(self, beta):
        """RDP bound at ``alpha = 1 + beta / tau~`` for ``beta`` in (0, 1) (vectorised).

        Parameters
        ----------
        beta : float or ndarray
            ``(alpha - 1) tau~``, in (0, 1).

        Returns
        -------
        float or ndarray
            The bound of one path (nats).

        Raises
        ------
        ValueError
            If a beta is outside (0, 1), or V = 0 (no order is of this form).
        """
        if self.tau == 0:
            raise ValueError(
                "V = 0: the bound is degenerate (no posterior variance); use rdp(alpha)"
            )
        return self._rdp_beta(_betas(beta))

    def _rdp_beta(self, beta):
        """:meth:`rdp_beta` without validation (the optimiser's inner loop)."""
        beta = np.asarray(beta, dtype=float)
        alpha = 1.0 + beta / self.tau
        mean = (
            0.5
            * alpha
            * (self.V + self.ridge**2)
            * self.Delta**2
            * _scale(self.sigma)
            / (self._a * (1 - beta))
        )
        return 2.0 * _psi(beta, self.tau) + mean

    def rdp(self, alpha):
        """RDP bound ``D_alpha <= ...`` of one path at order alpha; inf outside (1, alpha_max).

        Parameters
        ----------
        alpha : float
            Renyi order > 1.

        Returns
        -------
        float
            The bound (nats); ``inf`` when alpha >= alpha_max.

        Raises
        ------
        ValueError
            If alpha <= 1.
        """
        alpha = scalar(alpha, "alpha", low=1.0, low_open=True)
        if self.tau == 0:  # V = 0: no covariance term, the mean term alone
            return float(
                0.5 * alpha * self.Delta**2 * _scale(self.sigma) * (self.ridge**2) / self._a
            )
        beta = (alpha - 1.0) * self.tau
        return float(self._rdp_beta(beta)) if beta < 1 else np.inf

    def _optimise(self, objective):
        """Minimise ``objective(beta)`` over (0, 1): grid bracket, then bounded Brent."""
        values = objective(BETA_GRID)
        best = int(np.argmin(values))
        low = BETA_GRID[best - 1] if best > 0 else 0.5 * BETA_GRID[0]
        high = BETA_GRID[best + 1] if best + 1 < len(BETA_GRID) else 0.5 * (1 + BETA_GRID[-1])
        result = optimize.minimize_scalar(
            objective,
            bounds=(low, high),
            method="bounded",
            options={"xatol": 1e-14 * max(high, 1e-300)},
        )
        beta = result.x if result.fun <= values[best] else BETA_GRID[best]
        return float(min(result.fun, values[best])), 1.0 + beta / self.tau

    def epsilon(self, delta, paths=1):
        """Smallest epsilon of (epsilon, delta)-DP for ``paths`` independent paths.

        ``epsilon = min_alpha [ L RDP(alpha) + ln(1/delta) / (alpha - 1) ]`` (Mironov
        2017, Propositions 1 and 3; [MAC] eq. (3)).

        Parameters
        ----------
        delta : float
            In (0, 1).
        paths : int
            L >= 1.

        Returns
        -------
        epsilon : float
            The privacy loss (nats), valid at the returned order.
        alpha : float
            The optimal order.

        Raises
        ------
        ValueError
            If delta is outside (0, 1), paths is not a positive integer, or V = 0.
        """
        log_inverse = np.log(1.0 / open_interval(delta, "delta"))
        L = positive_int(paths, "paths")
        if self.tau == 0:
            raise ValueError("V = 0: the bound is degenerate (no posterior variance)")
        return self._optimise(
            lambda b: L * self._rdp_beta(b) + log_inverse * self.tau / np.asarray(b)
        )

    def delta(self, epsilon, paths=1):
        """Smallest delta of (epsilon, delta)-DP for ``paths`` paths (1 if none is useful).

        ``ln delta = min_alpha (alpha - 1) (L RDP(alpha) - epsilon)``.

        Parameters
        ----------
        epsilon : float
            >= 0.
        paths : int
            L >= 1.

        Returns
        -------
        delta : float
            In (0, 1].
        alpha : float
            The optimal order.

        Raises
        ------
        ValueError
            If epsilon is negative or not finite, paths is not a positive integer, or
            V = 0.
        TypeError
            If an argument is of the wrong type (bool, string).
        """
        epsilon = non_negative(epsilon, "epsilon")
        L = positive_int(paths, "paths")
        if self.tau == 0:
            raise ValueError("V = 0: the bound is degenerate (no posterior variance)")
        log_delta, alpha = self._optimise(
            lambda b: np.asarray(b) / self.tau * (L * self._rdp_beta(b) - epsilon)
        )
        return float(np.exp(min(log_delta, 0.0))), alpha


def epsilon_for_delta(delta, *, n, lengthscale, ridge, sigma, paths=1, eta=0.0):
    """epsilon of releasing L posterior paths, 1-D exponential kernel on [0, 1], ``|y| <= 1``.

    Parameters
    ----------
    delta : float
        Target delta in (0, 1).
    n : int
        Data-set size.
    lengthscale : float
        l of ``k = exp(-|x - x'| / l)``, inputs in [0, 1] (kappa = exp(-1/l)).
    ridge : float
        Effective ridge r (noise sd / sigma).
    sigma : float
        Posterior scale (inf allowed: covariance-only limit).
    paths : int
        Number L of independent released paths.
    eta : float
        Scale of an added independent prior path (Proposition 2).

    Returns
    -------
    float
        epsilon, optimised over the Renyi order.

    Raises
    ------
    ValueError
        On invalid arguments.

    Notes
    -----
    [MAC] Theorem 3.1, Proposition 2, Proposition 3, Lemma B.7, eq. (3); see
    :doc:`/theory/posterior-sampling`.
    """
    bound = PosteriorSamplingBound.exp_1d(n, lengthscale, ridge, sigma, eta)
    return bound.epsilon(delta, paths)[0]


def delta_for_epsilon(epsilon, *, n, lengthscale, ridge, sigma, paths=1, eta=0.0):
    """delta of releasing L posterior paths at a target epsilon (inverse of :func:`epsilon_for_delta`).

    Parameters
    ----------
    epsilon : float
        Target epsilon >= 0.
    n, lengthscale, ridge, sigma, paths, eta
        As :func:`epsilon_for_delta`.

    Returns
    -------
    float
        delta in (0, 1]; 1 means no useful guarantee.

    Notes
    -----
    ``ln delta = min_alpha (alpha - 1) (L RDP(alpha) - epsilon)`` (Mironov 2017,
    Proposition 3); see :doc:`/theory/posterior-sampling`.
    """
    bound = PosteriorSamplingBound.exp_1d(n, lengthscale, ridge, sigma, eta)
    return bound.delta(epsilon, paths)[0]
