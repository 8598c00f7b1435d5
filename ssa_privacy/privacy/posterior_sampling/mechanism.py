"""Releasing GP posterior sample paths with a Renyi-DP guarantee [MAC].

The owner of a private data set ``D = {(x_i, y_i)}`` (inputs in [0, 1], responses
``|y_i| <= M_Y``) releases L independent sample paths of the posterior
``GP(m_D, sigma^2 k_D)`` on a grid, for the exponential kernel ``exp(-|x - x'| / l)``
and an effective ridge r. :class:`PosteriorSamplingMechanism` chooses the scale sigma for
a target (epsilon, delta), releases, and certifies each release by recomputing the bound
of Theorem 3.1 at the scale its noise implies, with a rigorous bound on the rounding
errors of that computation (Loewner scale of the noise enclosed by Cholesky tests, the
bound enclosed by mpmath). :func:`sample_posterior_paths_exp_1d`
draws paths by Matheron's rule (the excursion study's sampler),
:func:`ou_prior_paths` draws exact prior paths, and :func:`gaussian_renyi_divergence`
gives the exact divergence between two Gaussian releases (to test the bound).

The bound itself (variance scale, mean sensitivity, the Renyi divergence bound and its
(epsilon, delta) conversion) lives in :mod:`ssa_privacy.privacy.posterior_sampling.bound`
and is re-exported here. The theory is in :doc:`/theory/posterior-sampling`.
"""

import copy

import numpy as np
from scipy import linalg, optimize

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.validation import (
    as_finite_array,
    nonempty,
    open_interval,
    positive,
    random_generator,
    scalar,
)
from ssa_privacy.gp.regression import Exponential, as_inputs, cholesky_with_jitter, noise_matrix
from ssa_privacy.privacy.mechanism import (
    Certificate,
    FactoredCovariance,
    Release,
    as_factored,
    data_vector,
    generator,
)
from ssa_privacy.privacy.posterior_sampling.bound import (  # noqa: F401
    BETA_GRID,
    PosteriorSamplingBound,
    _count,
    _non_negative,
    _scale,
    delta_for_epsilon,
    epsilon_enclosure_exp_1d,
    epsilon_for_delta,
    kappa_exp_1d,
    mean_sensitivity_exp_1d,
    mean_sensitivity_generic,
    phi_bound,
    psi,
    variance_scale_bound,
)
from ssa_privacy.privacy.posterior_sampling.certificate import (
    _design_enclosure,
    _noise_scale,
    _posterior_enclosure,
)
from ssa_privacy.privacy.rounding import (
    INFLATE,
    RULE,
    UNIT_ROUNDOFF,
)

__all__ = [
    "DESIGN_RTOL",
    "MAX_DESIGN_RTOL",
    "PosteriorSamplingMechanism",
    "SIGMA_GRID",
    "gaussian_renyi_divergence",
    "ou_prior_paths",
    "sample_posterior_paths_exp_1d",
]

#: Scales sigma searched by the design (log-spaced); the smallest that meets the target
#: is then refined by a root find.
SIGMA_GRID = np.logspace(-6, 6, 61)
#: The design first aims at ``(1 - DESIGN_RTOL) epsilon``; when the certificate cannot
#: prove that much margin, the relative margin is raised from its error analysis.
DESIGN_RTOL = 1e-10
#: Largest relative design margin tried before the design gives up (a posterior
#: covariance on the grid too ill-conditioned to certify).
MAX_DESIGN_RTOL = 1e-4


def _posterior_weights(K_gX, K_XX, ridge_squared):
    """``C = K_gX (K_XX + r^2 I)^{-1}`` by Cholesky (the jitter only if r^2 I is not enough)."""
    K = psd_matrix(K_XX, "K_XX")
    L, _ = cholesky_with_jitter(K + noise_matrix(ridge_squared, len(K)), "K_XX + noise")
    return linalg.cho_solve((L, True), K_gX.T).T


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
        Source of randomness.

    Returns
    -------
    ndarray, shape (size, n)
        Paths, in the order of ``points``.

    Raises
    ------
    TypeError
        On arguments of the wrong type (a bool, a string, an rng that is not a
        Generator or a seed).
    ValueError
        If points is empty or not finite, lengthscale is not positive or size is not a
        positive integer.

    Notes
    -----
    The Markov property of the exponential kernel in one dimension; the excursion
    study draws its targets and prior paths this way (:doc:`/theory/posterior-sampling`).
    """
    points = nonempty(as_finite_array(points, "points", ndim=1), "points")
    l = positive(lengthscale, "lengthscale")
    size = _count(size, "size")
    rng = random_generator(rng, "rng")
    order = np.argsort(points, kind="stable")
    rho = np.exp(-np.diff(points[order]) / l)
    innovation = np.sqrt(1.0 - rho**2)
    z = rng.standard_normal((size, len(points)))
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
    lengthscale : float
        l of the kernel ``exp(-|x - x'| / l)``.
    ridge : float
        Effective ridge r > 0.
    sigma : float
        Posterior scale (> 0, finite).
    paths : int
        Number L of independent paths.
    eta : float
        Scale of the added prior path.
    seed : int or numpy.random.Generator, optional
        None draws fresh entropy (as a release should).

    Returns
    -------
    ndarray, shape (paths, m)
        The released paths (units of y).

    Raises
    ------
    ValueError
        On mismatched, empty or invalid inputs.
    TypeError
        On numbers of the wrong type or a bad seed.

    Notes
    -----
    No certificate: :class:`PosteriorSamplingMechanism` releases the same law with one.
    """
    X = nonempty(as_finite_array(X, "X", ndim=1), "X")
    y = as_finite_array(y, "y", ndim=1)
    grid = nonempty(as_finite_array(grid, "grid", ndim=1), "grid")
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)}")
    if _scale(sigma) == 0:
        raise ValueError("sigma must be finite to sample paths")
    r, L = positive(ridge, "ridge"), _count(paths, "paths")
    lengthscale, eta = positive(lengthscale, "lengthscale"), _non_negative(eta, "eta")
    rng = random_generator(seed)
    kernel = Exponential(lengthscale)
    C = _posterior_weights(kernel(as_inputs(grid), as_inputs(X)), kernel(as_inputs(X)), r**2)
    prior = ou_prior_paths(np.concatenate([grid, X]), lengthscale, L, rng)
    noise = r * rng.standard_normal((L, len(X)))
    centred = prior[:, : len(grid)] - (prior[:, len(grid) :] + noise) @ C.T
    released = C @ y + float(sigma) * centred
    if eta > 0:
        released += eta * ou_prior_paths(grid, lengthscale, L, rng)
    return released


def gaussian_renyi_divergence(alpha, mean1, cov1, mean2, cov2):
    """Renyi divergence ``D_alpha(N(m1, S1) || N(m2, S2))`` of two Gaussians (nats).

    ``(alpha/2) dm^T S_a^{-1} dm - ln(det S_a / (det S1^(1-alpha) det S2^alpha)) / (2 (alpha - 1))``
    with ``S_a = alpha S2 + (1 - alpha) S1``; infinite when ``S_a`` is not positive
    definite.

    Parameters
    ----------
    alpha : float
        Order > 1.
    mean1 : array_like, shape (k,)
        Mean of the first Gaussian.
    cov1 : array_like, shape (k, k)
        Its positive definite covariance.
    mean2 : array_like, shape (k,)
        Mean of the second Gaussian.
    cov2 : array_like, shape (k, k)
        Its positive definite covariance.

    Returns
    -------
    float
        The divergence (nats); ``inf`` when ``S_a`` is not positive definite.

    Raises
    ------
    ValueError
        On alpha <= 1, empty or mismatched shapes, or covariances that are not symmetric
        positive definite.
    TypeError
        On arguments that are not real numbers.

    Notes
    -----
    Gil, Alajaji and Linder (2013), Information Sciences 249, Table 2; [MAC] App. A.
    """
    alpha = scalar(alpha, "alpha", low=1.0, low_open=True)
    mean1 = nonempty(as_finite_array(mean1, "mean1", ndim=1), "mean1")
    mean2 = as_finite_array(mean2, "mean2", ndim=1)
    if mean2.shape != mean1.shape:
        raise ValueError(f"mean2 has {len(mean2)} entries but mean1 has {len(mean1)}")
    dm = mean1 - mean2
    factors = {name: pd_cholesky(S, name, len(dm)) for name, S in (("cov1", cov1), ("cov2", cov2))}
    S1, S2 = (
        0.5 * (S + S.T) for S in (as_finite_array(cov1, "cov1"), as_finite_array(cov2, "cov2"))
    )

    def logdet(S, name):
        return 2.0 * np.sum(np.log(np.diag(factors[name])))

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


def _unit_interval(values, name):
    """A finite 1-D array with every entry in [0, 1] (the domain of the bound)."""
    values = as_finite_array(values, name, ndim=1)
    if values.size == 0 or values.min() < 0 or values.max() > 1:
        raise ValueError(f"{name} must be a non-empty vector with entries in [0, 1]")
    return values


class PosteriorSamplingMechanism:
    """L posterior sample paths of a GP on a grid, (epsilon, delta)-DP by Renyi DP [MAC].

    The mechanism is built for the owner's n training inputs X and the release grid;
    :meth:`release` takes the responses y. It releases
    ``m_D(grid) + Z_l``, l = 1..L, with independent ``Z_l ~ N(0, sigma^2 k_D(grid, grid)
    + eta^2 k(grid, grid))``: the law of L posterior paths of scale sigma plus
    independent prior paths of scale eta (Proposition 2). Without ``sigma`` the design
    picks the smallest scale whose bound meets (epsilon, delta).

    Parameters
    ----------
    X : array_like, shape (n,)
        Training inputs, in [0, 1].
    grid : array_like, shape (m,)
        Release points, in [0, 1].
    epsilon : float
        Target epsilon > 0 (nats).
    delta : float
        Target delta in (0, 1).
    lengthscale : float
        l of the kernel ``k = exp(-|x - x'| / l)`` (units of the inputs).
    ridge : float
        Effective ridge r > 0 (noise-to-signal standard-deviation ratio).
    paths : int
        Number L of independent released paths.
    eta : float
        Scale of the added prior paths (0: Theorem 3.1 alone).
    response_bound : float
        M_Y: responses must satisfy ``|y| <= M_Y`` (clip them beforehand).
    sigma : float, optional
        The posterior scale; None designs it (searched in [1e-6, 1e6]).

    Attributes
    ----------
    noise_covariance : FactoredCovariance
        Covariance of each released path around the posterior mean ``m_D(grid)``:
        ``sigma^2 k_D(grid, grid) + eta^2 k(grid, grid)`` (units of y squared).
    sigma : float
        The scale the mechanism was designed with.
    design_rtol : float or None
        The relative margin the design left below the target epsilon (None for a given
        sigma): ``DESIGN_RTOL``, raised when the certificate could not prove it.

    Raises
    ------
    ValueError
        On invalid arguments, inputs outside [0, 1], an unreachable target (epsilon
        at or below the covariance-only limit of the bound), or a design whose
        certificate cannot pass (a posterior covariance on the grid too ill-conditioned,
        e.g. repeated grid points).

    Notes
    -----
    [MAC] Theorem 3.1 with Proposition 2 (eta), Proposition 3 (V) and Lemma B.7
    (Delta, 1-D exponential kernel on [0, 1]); L-fold composition and conversion to
    (epsilon, delta) by eq. (3). Certificate: notion ``"renyi-dp"``, proven in floating
    point: the Loewner scale ``c* = max{c : Sigma >= c S}`` of the stored noise Sigma
    relative to the exact ``S = sigma^2 k_D + eta^2 k`` is enclosed (Cholesky tests and a
    Rayleigh quotient, every rounding bounded); the noise must also be proven below
    ``(1 + FAMILY_RTOL)`` times the lower end (else it is outside the family the
    theorem covers and fails, margin -inf); the bound is computed at ``(sqrt(c) sigma,
    sqrt(c) eta)`` for the floating-point estimate c, and enclosed by mpmath at the
    order found over the enclosure of c* (the bound is decreasing in c at a fixed
    order). margin = target epsilon minus the computed epsilon (nats); tolerance bounds
    its distance to the exact margin at that order; passed iff ``margin - tolerance >=
    0``. See :doc:`/theory/posterior-sampling`, "Certificates in floating point".

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(0.05, 0.95, 10)
    >>> grid = np.linspace(0, 1, 5)
    >>> mech = PosteriorSamplingMechanism(X, grid, 5.0, 1e-5, lengthscale=1.0, ridge=3.0)
    >>> out = mech.release(np.sign(X - 0.5), seed=0)
    >>> out.values.shape, out.certificate.passed
    ((1, 5), True)
    >>> mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed
    False
    """

    def __init__(
        self,
        X,
        grid,
        epsilon,
        delta,
        *,
        lengthscale,
        ridge,
        paths=1,
        eta=0.0,
        response_bound=1.0,
        sigma=None,
    ):
        self.X = _unit_interval(X, "X")
        self.grid = _unit_interval(grid, "grid")
        self.epsilon = positive(epsilon, "epsilon")
        self.delta = open_interval(delta, "delta")
        self.lengthscale = positive(lengthscale, "lengthscale")
        self.ridge = positive(ridge, "ridge")
        self.paths = _count(paths, "paths")
        self.eta = _non_negative(eta, "eta")
        self.response_bound = positive(response_bound, "response_bound")
        sigma = None if sigma is None else positive(sigma, "sigma")
        kernel = Exponential(self.lengthscale)
        X_in, grid_in = as_inputs(self.X), as_inputs(self.grid)
        K_XX, K_gX, K_gg = kernel(X_in), kernel(grid_in, X_in), kernel(grid_in)
        self._weights = _posterior_weights(K_gX, K_XX, self.ridge**2)
        posterior = K_gg - self._weights @ K_gX.T
        self._unit_posterior = 0.5 * (posterior + posterior.T)
        self._unit_prior = K_gg
        self._enclosures = None
        self.design_rtol = None
        if sigma is None:
            self._design()
        else:
            self._use_scale(sigma)

    def _use_scale(self, sigma):
        """Set sigma and the noise ``sigma^2 k_D + eta^2 k`` (factored); clear the certificate."""
        self.sigma = float(sigma)
        self._design_covariance = self._covariance(self.sigma, self.eta)
        self.noise_covariance = FactoredCovariance.from_matrix(
            self._design_covariance, "the posterior covariance"
        )
        self._certificate = None

    def _covariance(self, sigma, eta):
        """``sigma^2 k_D + eta^2 k`` on the grid, dense."""
        return sigma**2 * self._unit_posterior + eta**2 * self._unit_prior

    def _bound(self, sigma, eta):
        return PosteriorSamplingBound.exp_1d(
            len(self.X), self.lengthscale, self.ridge, sigma, eta, self.response_bound
        )

    def _epsilon_at(self, sigma):
        return self._bound(sigma, self.eta).epsilon(self.delta, self.paths)[0]

    def _design(self):
        """Design sigma for ``(1 - rtol) epsilon``, raising rtol until the certificate passes.

        After a failure the shortfall ``(tolerance - margin) / epsilon`` is added twice
        (rtol at least quadruples): a lower target raises sigma, and the margin grows
        by about the added rtol times epsilon.
        """
        rtol = DESIGN_RTOL
        while rtol <= MAX_DESIGN_RTOL:
            self._use_scale(self._design_sigma(rtol))
            certificate = self.certificate()
            if certificate.passed:
                self.design_rtol = rtol
                return
            shortfall = (certificate.tolerance - certificate.margin) / self.epsilon
            rtol = max(4.0 * rtol, rtol + 2.0 * shortfall)
        raise ValueError(
            f"no scale can be certified: the certificate's rounding bound "
            f"({certificate.tolerance:.3g} nats, noise scale proven in "
            f"[{certificate.evidence['noise_scale_lower']:.6g}, "
            f"{certificate.evidence['noise_scale_upper']:.6g}]) exceeds any design margin up "
            f"to {MAX_DESIGN_RTOL:g} epsilon; the posterior covariance on the grid is too "
            "ill-conditioned (repeated or nearly repeated grid points?)"
        )

    def _design_sigma(self, rtol):
        """The smallest scale in [1e-6, 1e6] whose epsilon is at most ``(1 - rtol)`` epsilon."""
        target = (1.0 - rtol) * self.epsilon
        values = np.array([self._epsilon_at(s) for s in SIGMA_GRID])
        feasible = np.flatnonzero(values <= target)
        if feasible.size == 0:
            floor = self._epsilon_at(np.inf)
            raise ValueError(
                f"epsilon = {self.epsilon:g} is out of reach: sigma = {SIGMA_GRID[-1]:g} gives "
                f"{values[-1]:.4g} and the covariance-only limit (sigma -> inf) is {floor:.4g}; "
                "increase the ridge or delta, or release fewer paths"
            )
        first = int(feasible[0])
        if first == 0:
            return float(SIGMA_GRID[0])
        root = optimize.brentq(
            lambda t: self._epsilon_at(np.exp(t)) - target,
            np.log(SIGMA_GRID[first - 1]),
            np.log(SIGMA_GRID[first]),
            xtol=1e-13,
        )
        sigma, step = float(np.exp(root)), 1e-12
        while self._epsilon_at(sigma) > target and sigma < SIGMA_GRID[first]:
            sigma, step = min(sigma * (1.0 + step), SIGMA_GRID[first]), 2 * step
        return sigma

    def certificate(self):
        """The (epsilon, delta) guarantee, recomputed from the noise, with a rigorous rounding bound.

        Returns
        -------
        Certificate
            Notion ``"renyi-dp"``; parameters ``epsilon`` (the target), ``delta``,
            ``order`` (the Renyi order of the conversion), ``paths``; margin = target
            epsilon minus the computed epsilon (nats), tolerance a rigorous bound on its
            distance to the exact margin at that order, passed iff ``margin - tolerance
            >= 0``; evidence: ``epsilon_bound`` and its enclosure ``epsilon_lower``,
            ``epsilon_upper``; ``sigma`` and ``eta`` implied by the noise; the noise
            scale c (``noise_scale``) and its enclosure (``noise_scale_lower``,
            ``noise_scale_upper``); ``family_residual`` (estimated relative spread of
            the generalised eigenvalues), ``in_family``; ``design_error`` and
            ``noise_rounding`` (squared data units); ``cholesky_tests``; the bound's
            ``V`` and ``Delta``; ``rule``.

        Notes
        -----
        See the class Notes and :doc:`/theory/posterior-sampling`, "Certificates in
        floating point".
        """
        if self._certificate is None:
            self._certificate = self._recompute()
        return self._certificate

    def _exact_covariances(self):
        """The enclosed unit posterior and prior covariances on the grid (cached)."""
        if self._enclosures is None:
            self._enclosures = _posterior_enclosure(self.X, self.grid, self.lengthscale, self.ridge)
        return self._enclosures

    def _recompute(self):
        design = _design_enclosure(*self._exact_covariances(), self.sigma, self.eta)
        scale = _noise_scale(self.noise_covariance, design)
        parameters = {"epsilon": self.epsilon, "delta": self.delta, "paths": self.paths}
        evidence = {
            "noise_scale": scale.estimate,
            "noise_scale_lower": scale.lower,
            "noise_scale_upper": scale.upper,
            "family_residual": scale.spread,
            "in_family": scale.in_family,
            "design_error": scale.design_error,
            "noise_rounding": scale.noise_error,
            "cholesky_tests": scale.tests,
        }
        if not scale.in_family:
            evidence["rule"] = (
                "noise not proven to lie between c and (1 + FAMILY_RTOL) c times "
                "sigma^2 k_D + eta^2 k: fails"
            )
            parameters["order"] = float("nan")
            return Certificate("renyi-dp", parameters, False, -np.inf, np.inf, evidence)
        return self._certify(scale, parameters, evidence)

    def _certify(self, scale, parameters, evidence):
        """The certificate of a noise in the family: the bound at the estimate, enclosed."""
        c = scale.estimate
        sigma, eta = float(np.sqrt(c) * self.sigma), float(np.sqrt(c) * self.eta)
        bound = self._bound(sigma, eta)
        epsilon, order = bound.epsilon(self.delta, self.paths)
        lower, upper = epsilon_enclosure_exp_1d(
            order,
            (scale.lower, scale.upper),
            n=len(self.X),
            lengthscale=self.lengthscale,
            ridge=self.ridge,
            sigma=self.sigma,
            eta=self.eta,
            response_bound=self.response_bound,
            delta=self.delta,
            paths=self.paths,
        )
        margin = float(self.epsilon - epsilon)
        distance = max(upper - epsilon, epsilon - lower, 0.0)
        tolerance = INFLATE * distance + 2 * UNIT_ROUNDOFF * abs(margin)
        parameters["order"] = float(order)
        evidence.update(
            sigma=sigma,
            eta=eta,
            epsilon_bound=float(epsilon),
            epsilon_lower=lower,
            epsilon_upper=upper,
            V=float(bound.V),
            Delta=float(bound.Delta),
            rule=RULE,
        )
        passed = bool(margin - tolerance >= 0.0)
        return Certificate("renyi-dp", parameters, passed, margin, float(tolerance), evidence)

    def release(self, y, *, seed=None):
        """Release L posterior paths on the grid for responses y, with the certificate.

        Parameters
        ----------
        y : array_like, shape (n,)
            The private responses at X, ``|y| <= response_bound``.
        seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness; None draws fresh operating-system entropy (as a release should).

        Returns
        -------
        Release
            ``values`` of shape (paths, m): ``m_D(grid) + Z_l``; ``noise_covariance`` the
            covariance of each ``Z_l``; the certificate; ``details`` with the posterior
            mean on the grid and the scale.

        Raises
        ------
        ValueError
            If y is not a finite vector of length n or exceeds the response bound.
        TypeError
            If seed has an unsupported type.
        """
        y = data_vector(y, len(self.X), "y")
        if np.max(np.abs(y)) > self.response_bound:
            raise ValueError(
                f"y exceeds the response bound {self.response_bound:g}: clip the responses "
                "to [-M_Y, M_Y] before the release"
            )
        rng, seed_keys = generator(seed)
        mean = self._weights @ y
        values = mean + self.noise_covariance.sample(rng, self.paths)
        details = {
            "posterior_mean": mean,
            "sigma": self.sigma,
            "eta": self.eta,
            "design_rtol": self.design_rtol,
        }
        return Release(values, self.noise_covariance, self.certificate(), seed_keys, details)

    def with_noise(self, noise_covariance):
        """The same mechanism with another noise covariance (for audits).

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like, shape (m, m)
            Covariance of each released path around the posterior mean.

        Returns
        -------
        PosteriorSamplingMechanism
            A copy whose certificate is recomputed from ``noise_covariance``.

        Raises
        ------
        ValueError
            If the covariance is not (m, m) symmetric positive semi-definite.
        """
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, len(self.grid), "noise_covariance")
        other._certificate = None
        return other
