"""Releasing GP posterior sample paths with a Renyi-DP guarantee [MAC].

The owner of a private data set ``D = {(x_i, y_i)}`` (inputs in [0, 1], responses
``|y_i| <= M_Y``) releases L independent sample paths of the posterior
``GP(m_D, sigma^2 k_D)`` on a grid, for the exponential kernel ``exp(-|x - x'| / l)``
and an effective ridge r. :class:`PosteriorSamplingMechanism` chooses the scale sigma for
a target (epsilon, delta), releases (one release, or a batch of independent ones for
Monte-Carlo studies), and certifies each release by recomputing the bound of Theorem
3.1 at the scale its noise implies, with a rigorous bound on the rounding errors of that
computation (Loewner scale of the noise enclosed by Cholesky tests, the bound enclosed by
mpmath).

The bound itself lives in :mod:`~ssa_privacy.privacy.posterior_sampling.bound`, its
mpmath enclosure in :mod:`~ssa_privacy.privacy.posterior_sampling.enclosure`, the
enclosure of the noise scale in :mod:`~ssa_privacy.privacy.posterior_sampling.certificate`,
the path samplers in :mod:`~ssa_privacy.privacy.posterior_sampling.paths` and the exact
divergence of two Gaussians (to test the bound) in
:mod:`~ssa_privacy.privacy.posterior_sampling.divergence`. The theory is in
:doc:`/theory/posterior-sampling`.
"""

import copy
import functools

import numpy as np
from scipy import optimize

from ssa_privacy._internal.validation import (
    as_finite_array,
    non_negative,
    nonempty,
    open_interval,
    positive,
    positive_int,
    unit_interval,
)
from ssa_privacy.privacy.mechanism import (
    Certificate,
    FactoredCovariance,
    Release,
    as_factored,
    data_vector,
    generator,
)
from ssa_privacy.privacy.notions import Notion
from ssa_privacy.privacy.posterior_sampling.bound import PosteriorSamplingBound
from ssa_privacy.privacy.posterior_sampling.certificate import (
    _design_enclosure,
    _noise_scale,
    _posterior_enclosure,
)
from ssa_privacy.privacy.posterior_sampling.enclosure import _epsilon_at_scale, _epsilon_range
from ssa_privacy.privacy.posterior_sampling.paths import (
    _cholesky,
    _cholesky_paths,
    _grid_posterior,
    _matheron_paths,
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
    "SAMPLERS",
    "SIGMA_GRID",
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
#: How a release draws its paths: ``"eigen"`` from the factors of the noise covariance,
#: ``"cholesky"`` from Cholesky factors of the posterior (and prior) covariance,
#: ``"matheron"`` by Matheron's rule from exact prior paths on grid and inputs.
SAMPLERS = ("eigen", "cholesky", "matheron")


def _inputs(values, name):
    """A non-empty finite vector with every entry in [0, 1] (the domain of the bound)."""
    values = nonempty(as_finite_array(values, name, ndim=1), name)
    return unit_interval(values, name, closed=True)


@functools.lru_cache(maxsize=1024)
def _design_terms(n, lengthscale, ridge, sigma, eta, response_bound, delta, paths):
    """The optimal Renyi order at the design scale (c = 1), and the bound's V and Delta.

    Cached: the mechanisms of one setting (many data sets, one scale) share them.
    """
    bound = PosteriorSamplingBound.exp_1d(n, lengthscale, ridge, sigma, eta, response_bound)
    return bound.epsilon(delta, paths)[1], float(bound.V), float(bound.Delta)


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
    sampler : {"eigen", "cholesky", "matheron"}
        How :meth:`release` draws the paths: ``"eigen"`` (default) from the factors of
        ``noise_covariance``, ``m_D + U sqrt(lambda) z``; ``"cholesky"`` from the
        Cholesky factors of the unit posterior and prior covariances, ``m_D + sigma L_P z
        (+ eta L_K z')``; ``"matheron"`` by Matheron's rule, ``C y + sigma (f0_grid - C
        (f0_X + e0)) (+ eta G)`` with exact prior paths f0 on grid and inputs
        (Ornstein-Uhlenbeck recursion) and ``e0 ~ N(0, r^2 I)``, the sampler of the
        authors' code ([MAC] §2). All three have the law the certificate covers.

    Attributes
    ----------
    noise_covariance : FactoredCovariance
        Covariance of each released path around the posterior mean ``m_D(grid)``:
        ``sigma^2 k_D(grid, grid) + eta^2 k(grid, grid)`` (units of y squared).
    sigma : float
        The scale the mechanism was designed with.
    design_rtol : float or None
        The relative margin the design left below the target epsilon (None for a given
        sigma or noise): ``DESIGN_RTOL``, raised when the certificate could not prove it.
    sampler : str
        The sampler of the releases.

    Raises
    ------
    ValueError
        On invalid arguments, inputs outside [0, 1], an unknown sampler, an unreachable
        target (epsilon
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
    sqrt(c) eta)`` for the floating-point estimate c, at the optimal order of the design
    scale (c = 1; cached, so that many mechanisms of one setting share it), and enclosed
    by mpmath at that order over the enclosure of c* (the bound is decreasing in c at a
    fixed order). margin = target epsilon minus the computed epsilon (nats); tolerance
    bounds its distance to the exact margin at that order; passed iff ``margin -
    tolerance >= 0``. See :doc:`/theory/posterior-sampling`, "Certificates in floating
    point".

    The posterior mean and covariance on the grid are computed as
    :class:`~ssa_privacy.gp.regression.GaussianProcess` computes them (the mean and the
    variances equal its ``predict`` bit for bit). The Matheron sampler draws, in exact
    arithmetic, from ``N(m_D, sigma^2 (k_D + (C - C*) (K + r^2 I) (C - C*)^T) + eta^2
    k)`` with C the computed weights and C* the exact ones: the certified law plus noise
    independent of y, which cannot raise the privacy loss (post-processing); so does the
    jitter a Cholesky factor may need. No sampler's own rounding is part of the
    certificate.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(0.05, 0.95, 10)
    >>> grid = np.linspace(0, 1, 5)
    >>> mech = PosteriorSamplingMechanism(X, grid, 5.0, 1e-5, lengthscale=1.0, ridge=3.0)
    >>> out = mech.release(np.sign(X - 0.5), seed=0)
    >>> out.values.shape, out.certificate.passed
    ((1, 5), True)
    >>> mech.release(np.sign(X - 0.5), seed=0, size=100).values.shape
    (100, 1, 5)
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
        sampler="eigen",
    ):
        self.X = _inputs(X, "X")
        self.grid = _inputs(grid, "grid")
        self.epsilon = positive(epsilon, "epsilon")
        self.delta = open_interval(delta, "delta")
        self.lengthscale = positive(lengthscale, "lengthscale")
        self.ridge = positive(ridge, "ridge")
        self.paths = positive_int(paths, "paths")
        self.eta = non_negative(eta, "eta")
        self.response_bound = positive(response_bound, "response_bound")
        if sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
        self.sampler = sampler
        sigma = None if sigma is None else positive(sigma, "sigma")
        self._posterior = _grid_posterior(self.X, self.grid, self.lengthscale, self.ridge)
        self._enclosures = _posterior_enclosure(self.X, self.grid, self.lengthscale, self.ridge)
        self._weights = self._posterior.weights() if sampler == "matheron" else None
        self._factors = self._cholesky_factors() if sampler == "cholesky" else None
        self.design_rtol = None
        if sigma is None:
            self._design()
        else:
            self._use_scale(sigma)

    def _use_scale(self, sigma):
        """Set sigma and the noise ``sigma^2 k_D + eta^2 k`` (factored); clear the certificate."""
        self.sigma = float(sigma)
        if not self.sigma < np.sqrt(np.finfo(float).max):
            raise ValueError(f"sigma = {sigma:g}: its square, the noise scale, overflows a double")
        covariance = (
            self.sigma**2 * self._posterior.covariance + self.eta**2 * self._posterior.prior
        )
        self.noise_covariance = FactoredCovariance.from_matrix(
            covariance, "the posterior covariance"
        )
        self._scale = self._certificate = None

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

    def _recompute(self):
        if self._scale is None:
            design = _design_enclosure(*self._enclosures, self.sigma, self.eta)
            self._scale = _noise_scale(self.noise_covariance, design)
        scale = self._scale
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
            return Certificate(Notion.RENYI_DP, parameters, False, -np.inf, np.inf, evidence)
        return self._certify(scale, parameters, evidence)

    def _certify(self, scale, parameters, evidence):
        """The certificate of a noise in the family: the bound at the estimate, enclosed."""
        c = scale.estimate
        setting = (
            len(self.X),
            self.lengthscale,
            self.ridge,
            self.sigma,
            self.eta,
            self.response_bound,
            self.delta,
            self.paths,
        )
        order, V, Delta = _design_terms(*setting)
        epsilon = _epsilon_at_scale(order, c, setting)
        lower, upper = _epsilon_range(order, scale.lower, scale.upper, setting)
        margin = float(self.epsilon - epsilon)
        distance = max(upper - epsilon, epsilon - lower, 0.0)
        tolerance = INFLATE * distance + 2 * UNIT_ROUNDOFF * abs(margin)
        parameters["order"] = float(order)
        evidence.update(
            sigma=float(np.sqrt(c) * self.sigma),
            eta=float(np.sqrt(c) * self.eta),
            epsilon_bound=epsilon,
            epsilon_lower=lower,
            epsilon_upper=upper,
            V=V,
            Delta=Delta,
            rule=RULE,
        )
        passed = bool(margin - tolerance >= 0.0)
        return Certificate(Notion.RENYI_DP, parameters, passed, margin, float(tolerance), evidence)

    def release(self, y, *, seed=None, size=None):
        """Release L posterior paths on the grid for responses y, with the certificate.

        Parameters
        ----------
        y : array_like, shape (n,)
            The private responses at X, ``|y| <= response_bound``.
        seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness; None draws fresh operating-system entropy (as a release should).
        size : int, optional
            Draw ``size`` independent releases of y at once (a Monte-Carlo study of the
            mechanism, e.g. the utility of one release); None for one release.

        Returns
        -------
        Release
            ``values`` of shape (paths, m), or (size, paths, m) with ``size``: ``m_D(grid)
            + Z_l``; ``noise_covariance`` the covariance of each ``Z_l``; the certificate,
            which holds for each of the ``size`` releases (publishing all of them is a
            release of ``size * paths`` paths); ``details`` with the posterior mean on the
            grid, the scales, the sampler and the size.

        Raises
        ------
        ValueError
            If y is not a finite vector of length n or exceeds the response bound, or
            size is not a positive integer.
        TypeError
            If seed has an unsupported type.

        Notes
        -----
        The draws of the eigen sampler are those of ``size`` successive releases; the
        Matheron sampler draws the prior paths of all of them first, then the noise
        (:mod:`~ssa_privacy.privacy.posterior_sampling.paths`).
        """
        y = data_vector(y, len(self.X), "y")
        if np.max(np.abs(y)) > self.response_bound:
            raise ValueError(
                f"y exceeds the response bound {self.response_bound:g}: clip the responses "
                "to [-M_Y, M_Y] before the release"
            )
        count = 1 if size is None else positive_int(size, "size")
        rng, seed_keys = generator(seed)
        mean, values = self._draw(y, count * self.paths, rng)
        shape = (self.paths, len(self.grid))
        if size is not None:
            shape = (count, *shape)
        details = {
            "posterior_mean": mean,
            "sigma": self.sigma,
            "eta": self.eta,
            "design_rtol": self.design_rtol,
            "sampler": self.sampler,
            "size": size,
        }
        return Release(
            values.reshape(shape), self.noise_covariance, self.certificate(), seed_keys, details
        )

    def _draw(self, y, count, rng):
        """The posterior mean (m,) and ``count`` paths around it (count, m) by the sampler."""
        if self.sampler == "matheron":
            mean = self._weights @ y
            return mean, _matheron_paths(
                mean,
                self._weights,
                self.grid,
                self.X,
                lengthscale=self.lengthscale,
                ridge=self.ridge,
                sigma=self.sigma,
                eta=self.eta,
                size=count,
                rng=rng,
            )
        mean = self._posterior.mean(y)
        if self.sampler == "eigen":
            return mean, mean + self.noise_covariance.sample(rng, count)
        return mean, _cholesky_paths(
            mean, self._factors, sigma=self.sigma, eta=self.eta, size=count, rng=rng
        )

    def _cholesky_factors(self):
        """Lower Cholesky factors of the unit posterior and (eta > 0) prior covariances."""
        prior = _cholesky(self._posterior.prior, "the prior covariance") if self.eta > 0 else None
        return _cholesky(self._posterior.covariance, "the posterior covariance"), prior

    def with_scale(self, sigma, *, epsilon=None, paths=None):
        """The same inputs, grid and kernel at another scale, target or number of paths.

        For sweeps over sigma or L: the posterior on the grid and its enclosure are
        shared with this mechanism, not recomputed; the noise is rebuilt when sigma
        changes and the certificate is recomputed.

        Parameters
        ----------
        sigma : float
            The posterior scale (> 0, finite).
        epsilon : float, optional
            The target epsilon (nats); None keeps this mechanism's.
        paths : int, optional
            The number L of released paths; None keeps this mechanism's.

        Returns
        -------
        PosteriorSamplingMechanism
            A copy with ``design_rtol`` None (sigma is given).

        Raises
        ------
        ValueError
            If sigma or epsilon is not finite and positive, or paths not a positive
            integer.
        TypeError
            If an argument is not a real number.
        """
        sigma = positive(sigma, "sigma")
        other = copy.copy(self)
        if epsilon is not None:
            other.epsilon = positive(epsilon, "epsilon")
        if paths is not None:
            other.paths = positive_int(paths, "paths")
        other.design_rtol, other._certificate = None, None
        if sigma != self.sigma:
            other._use_scale(sigma)
        return other

    def with_noise(self, noise_covariance):
        """The same mechanism with another noise covariance (for audits).

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like, shape (m, m)
            Covariance of each released path around the posterior mean.

        Returns
        -------
        PosteriorSamplingMechanism
            A copy whose certificate is recomputed from ``noise_covariance`` and whose
            releases draw from it (the ``"eigen"`` sampler); ``design_rtol`` is None.

        Raises
        ------
        ValueError
            If the covariance is not (m, m) symmetric positive semi-definite.
        """
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, len(self.grid), "noise_covariance")
        other.sampler = "eigen"
        other._scale = other._certificate = other.design_rtol = None
        return other
