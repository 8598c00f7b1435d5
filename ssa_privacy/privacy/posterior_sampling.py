"""Renyi-DP of releasing GP posterior sample paths [MAC].

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
Mironov (2017), Proposition 3, optimised over the order.

Notation follows [MAC]: ``alpha`` Renyi order, ``sigma`` scale, ``r`` = ``ridge``,
``L`` = ``paths``, ``Delta`` mean sensitivity, ``V`` variance scale, ``eta`` prior-noise
scale. All quantities are dimensionless (responses in units of ``M_Y`` = 1 unless a
``response_bound`` is given). Reconstructions and test vectors: ``dpgp_spec.md`` B, C.3.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize

from ssa_privacy._validation import as_finite_array, open_interval, positive
from ssa_privacy.gp import Exponential, as_inputs
from ssa_privacy.privacy.dp_gp import cloaking_matrix

#: Evenly spaced grid on beta = (alpha - 1) tau in (0, 1) used to bracket the optimum
#: over the Renyi order before a bounded scalar minimisation.
BETA_GRID = np.concatenate(
    [np.logspace(-9, -2, 15), np.linspace(0.01, 0.99, 99), 1.0 - np.logspace(-2, -9, 15)]
)


def _count(value, name):
    """Validate a positive integer."""
    if int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _non_negative(value, name):
    number = float(value)
    if not np.isfinite(number) or number < 0:
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    return number


def _scale(sigma):
    """Validate sigma > 0 (``inf`` allowed: the covariance-only limit); return 1/sigma^2."""
    sigma = float(sigma)
    if not sigma > 0 or np.isnan(sigma):
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
    [MAC] Proposition 3; exact when ``k(x, x) = 1`` everywhere (``dpgp_spec.md`` B.1).
    """
    n, r = _count(n, "n"), positive(ridge, "ridge")
    kappa = _non_negative(kappa, "kappa")
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
    [MAC] Appendix B (``phi_n`` of the authors' code; ``dpgp_spec.md`` B.1).
    """
    V, r = _non_negative(V, "V"), positive(ridge, "ridge")
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
    [MAC] Lemma B.7 (relying on Lemma B.6, ``|m_D| <= M_Y`` for this kernel);
    ``dpgp_spec.md`` B.1 (the authors' code hard-codes M_Y = 1).
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
        bound (counterexample in ``dpgp_spec.md`` B.1); pass ``np.sqrt(2)`` only to
        reproduce their numbers.

    Returns
    -------
    float
        Upper bound on the common-core mean sensitivity (units of y).

    Notes
    -----
    [MAC] Lemma B.1; ``dpgp_spec.md`` B.1.
    """
    n, r = _count(n, "n"), positive(ridge, "ridge")
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

    Notes
    -----
    [MAC] Theorem 3.1 and Lemma A.3; ``dpgp_spec.md`` B.2.
    """
    beta = np.asarray(beta, dtype=float)
    half = 0.5 * np.log1p(tau)
    ratio = tau / (2 * beta)
    return np.maximum(half - ratio * np.log1p(beta / (1 + tau)), -half - ratio * np.log1p(-beta))


@dataclass(frozen=True)
class PosteriorSamplingBound:
    """The RDP bound of Theorem 3.1 / Proposition 2 for given V, Delta, r, sigma, eta.

    Attributes
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
        _non_negative(self.V, "V")
        _non_negative(self.Delta, "Delta")
        positive(self.ridge, "ridge")
        _scale(self.sigma)
        _non_negative(self.eta, "eta")

    @classmethod
    def exp_1d(cls, n, lengthscale, ridge, sigma, eta=0.0, response_bound=1.0):
        """Bound for the 1-D exponential kernel on [0, 1] (Proposition 3 and Lemma B.7)."""
        V = variance_scale_bound(n, ridge, kappa_exp_1d(lengthscale))
        return cls(
            V, mean_sensitivity_exp_1d(n, ridge, lengthscale, response_bound), ridge, sigma, eta
        )

    @classmethod
    def generic(cls, n, kappa, ridge, sigma, eta=0.0, response_bound=1.0, factor=2.0):
        """Bound for any kernel with ``kappa <= k <= 1`` (Proposition 3 and Lemma B.1)."""
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
        """RDP bound at ``alpha = 1 + beta / tau~`` for ``beta`` in (0, 1) (vectorised)."""
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
        return 2.0 * psi(beta, self.tau) + mean

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
        alpha = float(alpha)
        if not alpha > 1:
            raise ValueError(f"alpha must be > 1, got {alpha!r}")
        beta = (alpha - 1.0) * self.tau
        return float(self.rdp_beta(beta)) if beta < 1 else np.inf

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
        alpha : float
            The optimal order.
        """
        log_inverse = np.log(1.0 / open_interval(delta, "delta"))
        L = _count(paths, "paths")
        if self.tau == 0:
            raise ValueError("V = 0: the bound is degenerate (no posterior variance)")
        return self._optimise(
            lambda b: L * self.rdp_beta(b) + log_inverse * self.tau / np.asarray(b)
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
        """
        epsilon = _non_negative(epsilon, "epsilon")
        L = _count(paths, "paths")
        log_delta, alpha = self._optimise(
            lambda b: np.asarray(b) / self.tau * (L * self.rdp_beta(b) - epsilon)
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
    [MAC] Theorem 3.1, Proposition 2, Proposition 3, Lemma B.7, eq. (3);
    ``dpgp_spec.md`` B.2-B.4 and test vectors C.3.
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
    Proposition 3); ``dpgp_spec.md`` B.4.
    """
    bound = PosteriorSamplingBound.exp_1d(n, lengthscale, ridge, sigma, eta)
    return bound.delta(epsilon, paths)[0]


def gaussian_renyi_divergence(alpha, mean1, cov1, mean2, cov2):
    """Renyi divergence ``D_alpha(N(m1, S1) || N(m2, S2))`` of two Gaussians (nats).

    ``(alpha/2) dm^T S_a^{-1} dm - ln(det S_a / (det S1^(1-alpha) det S2^alpha)) / (2 (alpha - 1))``
    with ``S_a = alpha S2 + (1 - alpha) S1``; infinite when ``S_a`` is not positive
    definite.

    Parameters
    ----------
    alpha : float
        Order > 1.
    mean1, mean2 : array_like, shape (k,)
    cov1, cov2 : array_like, shape (k, k)
        Positive definite covariances.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On alpha <= 1, mismatched shapes or covariances that are not positive definite.

    Notes
    -----
    Gil, Alajaji and Linder (2013), Information Sciences 249, Table 2; [MAC] App. A.
    """
    alpha = float(alpha)
    if not alpha > 1:
        raise ValueError(f"alpha must be > 1, got {alpha!r}")
    dm = as_finite_array(mean1, "mean1", ndim=1) - as_finite_array(mean2, "mean2", ndim=1)
    S1, S2 = (
        0.5 * (S + S.T)
        for S in (as_finite_array(cov1, "cov1", ndim=2), as_finite_array(cov2, "cov2", ndim=2))
    )

    def logdet(S, name):
        try:
            return 2.0 * np.sum(np.log(np.diag(np.linalg.cholesky(S))))
        except np.linalg.LinAlgError:
            raise ValueError(f"{name} is not positive definite") from None

    S_a = alpha * S2 + (1 - alpha) * S1
    try:
        L = np.linalg.cholesky(S_a)
    except np.linalg.LinAlgError:
        return np.inf
    quadratic = np.sum(linalg.solve_triangular(L, dm, lower=True) ** 2)
    log_ratio = (
        2.0 * np.sum(np.log(np.diag(L)))
        - (1 - alpha) * logdet(S1, "cov1")
        - alpha * logdet(S2, "cov2")
    )
    return float(0.5 * alpha * quadratic - log_ratio / (2 * (alpha - 1)))


def ou_prior_paths(points, lengthscale, size, rng):
    """Exact draws of ``GP(0, exp(-|x - x'| / l))`` at 1-D points (Ornstein-Uhlenbeck).

    Along the sorted points ``f_i = rho_i f_{i-1} + sqrt(1 - rho_i^2) z_i`` with
    ``rho_i = exp(-(x_i - x_{i-1}) / l)``: exact, in O(n) per path.

    Parameters
    ----------
    points : array_like, shape (n,)
        Input locations (any order; repeated points get equal values).
    lengthscale : float
        l > 0.
    size : int
        Number of paths.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (size, n)
        Paths, in the order of ``points``.

    Notes
    -----
    ``dpgp_spec.md`` B.6 (the target and prior draws of the excursion study).
    """
    points = as_finite_array(points, "points", ndim=1)
    l = positive(lengthscale, "lengthscale")
    order = np.argsort(points, kind="stable")
    rho = np.exp(-np.diff(points[order]) / l)
    innovation = np.sqrt(1.0 - rho**2)
    z = rng.standard_normal((_count(size, "size"), len(points)))
    paths = np.empty_like(z)
    paths[:, 0] = z[:, 0]
    for i in range(1, len(points)):
        paths[:, i] = rho[i - 1] * paths[:, i - 1] + innovation[i - 1] * z[:, i]
    result = np.empty_like(paths)
    result[:, order] = paths
    return result


def sample_posterior_paths_exp_1d(
    X, y, grid, *, lengthscale, ridge, sigma, paths=1, eta=0.0, seed=None
):
    """Release ``paths`` posterior sample paths on a grid, 1-D exponential kernel [MAC §2].

    Matheron's rule: with a joint prior draw ``f0`` on grid and data (exact OU
    recursion) and ``e0 ~ N(0, r^2 I)``, ``m_D + sigma (f0_grid - C (f0_X + e0))`` with
    ``C = K_gX (K + r^2 I)^{-1}`` has law ``GP(m_D, sigma^2 k_D)`` on the grid.
    With ``eta > 0`` an independent prior path ``eta G`` is added (Proposition 2).

    Parameters
    ----------
    X : array_like, shape (n,)
        Training inputs in [0, 1] (private).
    y : array_like, shape (n,)
        Training responses (private).
    grid : array_like, shape (m,)
        Where the paths are released.
    lengthscale, ridge, sigma : float
        l, r and the posterior scale (> 0, finite).
    paths : int
        Number L of independent paths.
    eta : float
        Scale of the added prior path.
    seed : int or numpy.random.Generator, optional
        None draws fresh entropy (as a release should).

    Returns
    -------
    ndarray, shape (paths, m)

    Raises
    ------
    ValueError
        On mismatched or invalid inputs.
    """
    X = as_finite_array(X, "X", ndim=1)
    y = as_finite_array(y, "y", ndim=1)
    grid = as_finite_array(grid, "grid", ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)}")
    if _scale(sigma) == 0:
        raise ValueError("sigma must be finite to sample paths")
    r, L = positive(ridge, "ridge"), _count(paths, "paths")
    kernel = Exponential(lengthscale)
    C, _ = cloaking_matrix(kernel(as_inputs(grid), as_inputs(X)), kernel(as_inputs(X)), r**2)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    prior = ou_prior_paths(np.concatenate([grid, X]), lengthscale, L, rng)
    noise = r * rng.standard_normal((L, len(X)))
    centred = prior[:, : len(grid)] - (prior[:, len(grid) :] + noise) @ C.T
    released = C @ y + float(sigma) * centred
    if _non_negative(eta, "eta") > 0:
        released += eta * ou_prior_paths(grid, lengthscale, L, rng)
    return released
