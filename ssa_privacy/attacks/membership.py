"""Membership inference against GP posterior-sample releases [MAC §4, App. C].

A LiRA-style attack (Carlini et al. 2022) decides whether a target record was in the
training set from released values ``f_1..f_L`` at the target input, through the
statistics

    f_hat = mean_l f_l,        v_hat = sum_l (f_l - f_hat)^2 / (L sigma^2)   (L >= 2),

whose densities under "in" and "out" are fitted on shadow releases and combined into
a log-likelihood ratio. ``f_hat`` is modelled by the latent mixture of [MAC] App. C,
``f_hat = tanh(phi / 2) + psi`` with ``phi`` a two-component Gaussian mixture and
``psi ~ N(0, s_obs^2)``; ``ln v_hat`` by a two-component Gaussian mixture.

Such density fits can fail (in a reference run of the authors' code the fit put its
mass on the wrong side and scored below random, see :doc:`/theory/posterior-sampling`),
so every LiRA is reported beside a simple baseline, a threshold on ``f_hat``
(:class:`MeanThresholdAttack`), and each fit carries a sanity check of its mean against
the sample mean. An attack weaker than the baseline measures nothing.

Evaluation (AUC, ROC curves, TPR at fixed FPR, and the largest TPR any test can reach
against an (epsilon, delta)-DP release) lives in :mod:`ssa_privacy.attacks.roc` and is
re-exported here.
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    nonempty,
    positive,
    positive_int,
)
from ssa_privacy.attacks.roc import _scores

__all__ = [
    "FIT_BINS",
    "LatentMixtureDensity",
    "LiRA",
    "LogMixtureDensity",
    "MIN_OBSERVATION_SD",
    "MeanThresholdAttack",
    "QUADRATURE_NODES",
    "release_statistics",
]

#: Gauss-Legendre nodes over the latent mean mu = tanh(phi / 2) in (-1, 1).
QUADRATURE_NODES = 100
#: Lower bound on the fitted observation sd s_obs. The node spacing is at most
#: pi / QUADRATURE_NODES, so the relative quadrature error of the convolution is about
#: exp(-2 pi^2 (s_obs / spacing)^2) < 1e-3.
MIN_OBSERVATION_SD = 0.02
#: Histogram bins used for the (binned) maximum-likelihood fit of the latent mixture.
FIT_BINS = 200
#: Gauss-Legendre nodes and weights on (-1, 1).
_NODES, _NODE_WEIGHTS = np.polynomial.legendre.leggauss(QUADRATURE_NODES)


def _normal_pdf(x, mean, sd):
    return np.exp(-0.5 * ((x - mean) / sd) ** 2) / (np.sqrt(2 * np.pi) * sd)


# --------------------------------------------------------------------------------------
# Density models of the LiRA statistics
# --------------------------------------------------------------------------------------


def release_statistics(values, sigma):
    """LiRA statistics of released path values at the target input.

    Parameters
    ----------
    values : array_like, shape (k, L)
        L released values for each of k releases.
    sigma : float
        Posterior scale of the mechanism.

    Returns
    -------
    f_hat : ndarray, shape (k,)
        Sample means.
    v_hat : ndarray, shape (k,) or None
        ``sum_l (f_l - f_hat)^2 / (L sigma^2)``; None when L = 1.

    Raises
    ------
    TypeError
        If the values or sigma are not real numbers.
    ValueError
        If ``values`` is empty, not 2-D or not finite, or sigma is not positive.

    Notes
    -----
    [MAC] App. C; :doc:`/theory/posterior-sampling`.
    """
    values = nonempty(as_finite_array(values, "values", ndim=2), "values")
    sigma = positive(sigma, "sigma")
    f_hat = values.mean(axis=1)
    if values.shape[1] == 1:
        return f_hat, None
    return f_hat, np.mean(((values - f_hat[:, None]) / sigma) ** 2, axis=1)


def _em_mixture(x, iterations=200, rtol=1e-6):
    """Two-component 1-D Gaussian mixture by EM: (weights, means, sds).

    Starts from the 25% / 75% quantiles, the overall variance and equal weights; the
    variances are floored at 1e-6.
    """
    weights = np.array([0.5, 0.5])
    means = np.quantile(x, [0.25, 0.75])
    variances = np.full(2, max(np.var(x), 1e-6))
    previous = -np.inf
    for _ in range(iterations):
        log_joint = np.log(weights) + stats.norm.logpdf(x[:, None], means, np.sqrt(variances))
        log_total = special.logsumexp(log_joint, axis=1)
        responsibility = np.exp(log_joint - log_total[:, None])
        mass = responsibility.sum(axis=0) + 1e-300
        weights = mass / len(x)
        means = responsibility.T @ x / mass
        variances = np.maximum(
            np.sum(responsibility * (x[:, None] - means) ** 2, axis=0) / mass, 1e-6
        )
        likelihood = float(log_total.sum())
        if abs(likelihood - previous) <= rtol * abs(likelihood):
            break
        previous = likelihood
    return weights, means, np.sqrt(variances)


@dataclass(frozen=True)
class LogMixtureDensity:
    """Density of a positive statistic whose logarithm is a two-component Gaussian mixture.

    Parameters
    ----------
    weights : ndarray, shape (2,)
        Mixture weights of ``ln v``.
    means : ndarray, shape (2,)
        Component means of ``ln v``.
    sds : ndarray, shape (2,)
        Component standard deviations of ``ln v``.
    """

    weights: np.ndarray
    means: np.ndarray
    sds: np.ndarray

    @classmethod
    def fit(cls, samples):
        """Fit by EM on ``ln max(v, 1e-8)`` ([MAC] App. C).

        Parameters
        ----------
        samples : array_like, shape (k,)
            Shadow values of v_hat.

        Returns
        -------
        LogMixtureDensity
            The fitted density.
        """
        return cls(*_em_mixture(np.log(np.maximum(_scores(samples, "samples"), 1e-8))))

    def logpdf(self, v):
        """Log density of v (including the Jacobian 1/v).

        Parameters
        ----------
        v : array_like
            Positive values.

        Returns
        -------
        ndarray
            The log density, shape of v.

        Raises
        ------
        TypeError, ValueError
            If v is not made of finite real numbers.
        """
        log_v = np.log(np.maximum(as_finite_array(v, "v"), 1e-8))
        mixture = special.logsumexp(
            np.log(self.weights) + stats.norm.logpdf(log_v[..., None], self.means, self.sds),
            axis=-1,
        )
        return mixture - log_v


def _softplus(x):
    return np.logaddexp(0.0, x)


@dataclass(frozen=True)
class LatentMixtureDensity:
    """Density of ``f = tanh(phi / 2) + psi``, ``phi ~ w N(m1, s1^2) + (1-w) N(m2, s2^2)``, ``psi ~ N(0, s_obs^2)``.

    The density ``int p_mu(mu) N(f - mu; 0, s_obs^2) dmu`` over ``mu = tanh(phi / 2)``
    in (-1, 1), with ``p_mu(mu) = p_phi(2 artanh mu) 2 / (1 - mu^2)``, is evaluated by
    Gauss-Legendre quadrature with :data:`QUADRATURE_NODES` nodes, the node
    probabilities normalised to sum to one.

    Parameters
    ----------
    weight : float
        w.
    means : ndarray, shape (2,)
        (m1, m2) of phi.
    sds : ndarray, shape (2,)
        (s1, s2) of phi.
    observation_sd : float
        s_obs.

    Notes
    -----
    [MAC] App. C (latent Gaussian mixture); :doc:`/theory/posterior-sampling`. Deviations: more
    quadrature nodes than the authors' 40, ``s_obs >= MIN_OBSERVATION_SD`` so that
    the quadrature resolves the convolution, and a binned likelihood for the fit.
    """

    weight: float
    means: np.ndarray
    sds: np.ndarray
    observation_sd: float

    @classmethod
    def _from_theta(cls, theta):
        weight = special.expit(theta[0])
        sds = 1e-3 + _softplus(theta[3:5])
        return cls(
            float(weight),
            np.asarray(theta[1:3], dtype=float),
            sds,
            float(MIN_OBSERVATION_SD + _softplus(theta[5])),
        )

    def _latent_density(self):
        """Quadrature nodes mu_q and their probabilities (weights times p_mu, normalised).

        Normalising makes the model a proper density for every parameter value, also
        when a latent component is narrower than the node spacing (otherwise the
        likelihood can exploit the quadrature error).
        """
        mu = _NODES
        phi = 2.0 * np.arctanh(mu)
        p_phi = self.weight * _normal_pdf(phi, self.means[0], self.sds[0]) + (
            1 - self.weight
        ) * _normal_pdf(phi, self.means[1], self.sds[1])
        mass = _NODE_WEIGHTS * p_phi * 2.0 / (1.0 - mu**2)
        return mu, mass / max(mass.sum(), 1e-300)

    def logpdf(self, f):
        """Log density at f.

        Parameters
        ----------
        f : array_like
            Values of f_hat.

        Returns
        -------
        ndarray
            The log density, shape of f.

        Raises
        ------
        TypeError, ValueError
            If f is not made of finite real numbers.
        """
        mu, mass = self._latent_density()
        f = as_finite_array(f, "f")
        density = _normal_pdf(f[..., None], mu, self.observation_sd) @ mass
        return np.log(np.maximum(density, 1e-300))

    def mean(self):
        """Model mean ``E[tanh(phi / 2)]`` (psi has mean zero).

        Returns
        -------
        float
            The mean of the fitted density.
        """
        mu, mass = self._latent_density()
        return float(mu @ mass)

    @classmethod
    def fit(cls, samples, starts=6, seed=None):
        """Maximum likelihood (L-BFGS-B, several starts) on a fine histogram of the samples.

        Starts: an EM mixture on ``phi = 2 artanh`` of the rescaled, clipped samples
        (the authors' start), the quartiles of phi, and Gaussian jitters of the first.

        Parameters
        ----------
        samples : array_like, shape (k,)
            Shadow values of f_hat.
        starts : int
            Number of optimiser starts.
        seed : int or numpy.random.Generator, optional
            Seeds the jittered starts.

        Returns
        -------
        LatentMixtureDensity
            The best fit over the starts.

        Raises
        ------
        TypeError, ValueError
            On empty or non-finite samples, fewer than 2 starts or a bad seed.
        """
        samples = _scores(samples, "samples")
        starts = positive_int(starts, "starts")
        if starts < 2:
            raise ValueError(f"starts must be at least 2 (two fixed starts), got {starts}")
        counts, edges = np.histogram(samples, bins=FIT_BINS)
        centres, used = 0.5 * (edges[1:] + edges[:-1]), counts > 0
        centres, counts = centres[used], counts[used]
        scale = max(1.0, float(np.quantile(np.abs(samples), 0.995)))
        phi = 2.0 * np.arctanh(np.clip(samples / scale, -0.999, 0.999))
        weights, means, sds = _em_mixture(phi)
        inverse_softplus = lambda s: np.log(np.expm1(np.maximum(s - 1e-3, 1e-6)))  # noqa: E731
        first = np.concatenate(
            [
                [special.logit(np.clip(weights[0], 1e-3, 1 - 1e-3))],
                means,
                inverse_softplus(sds),
                [np.log(np.expm1(0.05))],
            ]
        )
        quartiles = np.concatenate(
            [
                [0.0],
                np.quantile(phi, [0.25, 0.75]),
                inverse_softplus(np.full(2, np.std(phi) / 2 + 1e-3)),
                [np.log(np.expm1(0.05))],
            ]
        )
        rng = random_generator(seed)
        jitter = np.array([0.5, 0.5, 0.5, 0.25, 0.25, 0.5])
        initial = [first, quartiles] + [
            first + jitter * rng.standard_normal(6) for _ in range(starts - 2)
        ]

        def objective(theta):
            return -float(counts @ cls._from_theta(theta).logpdf(centres)) / counts.sum()

        fits = [
            optimize.minimize(objective, x0, method="L-BFGS-B", options={"maxiter": 200})
            for x0 in initial
        ]
        return cls._from_theta(min(fits, key=lambda fit: fit.fun).x)


# --------------------------------------------------------------------------------------
# The attacks
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeanThresholdAttack:
    """Baseline: a threshold on the released sample mean ``f_hat``.

    Parameters
    ----------
    sign : float
        +1 if members have the larger shadow mean of f_hat, else -1.
    """

    sign: float

    @classmethod
    def fit(cls, f_in, f_out):
        """Orient the score with the shadow means of f_hat under "in" and "out".

        Parameters
        ----------
        f_in : array_like, shape (k,)
            Shadow f_hat with the target.
        f_out : array_like, shape (k,)
            Shadow f_hat without it.

        Returns
        -------
        MeanThresholdAttack
            The oriented baseline.
        """
        return cls(
            1.0 if np.mean(_scores(f_in, "f_in")) >= np.mean(_scores(f_out, "f_out")) else -1.0
        )

    def score(self, f_hat, v_hat=None):
        """Score ``sign * f_hat`` (higher = member).

        Parameters
        ----------
        f_hat : array_like
            Sample means of released values.
        v_hat : array_like, optional
            Ignored (accepted for a common interface with :class:`LiRA`).

        Returns
        -------
        ndarray
            The scores, shape of f_hat.

        Raises
        ------
        TypeError, ValueError
            If f_hat is not made of finite real numbers.
        """
        return self.sign * as_finite_array(f_hat, "f_hat")


@dataclass(frozen=True)
class LiRA:
    """Likelihood-ratio attack with fitted "in" and "out" densities [MAC App. C].

    Parameters
    ----------
    f_in : LatentMixtureDensity
        Density of f_hat with the target.
    f_out : LatentMixtureDensity
        Density of f_hat without it.
    v_in : LogMixtureDensity or None
        Density of v_hat with the target (None when L = 1).
    v_out : LogMixtureDensity or None
        Density of v_hat without it.
    checks : dict
        Sanity check of each f_hat fit: model mean, sample mean and whether they agree
        within ``0.02 + 4`` standard errors.
    """

    f_in: LatentMixtureDensity
    f_out: LatentMixtureDensity
    v_in: object
    v_out: object
    checks: dict

    @property
    def fit_ok(self):
        """True when both f_hat fits pass the mean sanity check."""
        return all(check["agrees"] for check in self.checks.values())

    @classmethod
    def fit(cls, f_in, f_out, v_in=None, v_out=None, starts=6, seed=None):
        """Fit the four densities on shadow statistics.

        Parameters
        ----------
        f_in : array_like, shape (k,)
            Shadow f_hat with the target.
        f_out : array_like, shape (k,)
            Shadow f_hat without it.
        v_in : array_like, shape (k,), optional
            Shadow v_hat with the target (L >= 2).
        v_out : array_like, shape (k,), optional
            Shadow v_hat without it.
        starts : int
            Optimiser starts of each latent-mixture fit.
        seed : int or numpy.random.Generator, optional
            Seeds the jittered starts.

        Returns
        -------
        LiRA
            The fitted attack, with the sanity checks of the f_hat fits.

        Raises
        ------
        ValueError
            If only one of v_in and v_out is given, or a sample set is empty or not
            finite.
        TypeError
            On samples that are not real numbers, or a bad seed.
        """
        rng = random_generator(seed)
        f_samples = {"in": _scores(f_in, "f_in"), "out": _scores(f_out, "f_out")}
        if (v_in is None) != (v_out is None):
            raise ValueError("give both v_in and v_out or neither")
        v_samples = None if v_in is None else (_scores(v_in, "v_in"), _scores(v_out, "v_out"))
        models, checks = {}, {}
        for name, samples in f_samples.items():
            model = LatentMixtureDensity.fit(samples, starts, rng)
            error = 0.02 + 4 * samples.std() / np.sqrt(len(samples))
            checks[name] = {
                "model_mean": model.mean(),
                "sample_mean": float(samples.mean()),
                "agrees": bool(abs(model.mean() - samples.mean()) <= error),
            }
            models[name] = model
        v_models = (
            (None, None)
            if v_samples is None
            else tuple(LogMixtureDensity.fit(samples) for samples in v_samples)
        )
        return cls(models["in"], models["out"], *v_models, checks)

    def score(self, f_hat, v_hat=None):
        """Log-likelihood ratio ``ln p_in - ln p_out`` of f_hat (plus that of v_hat).

        Parameters
        ----------
        f_hat : array_like
            Sample means of released values.
        v_hat : array_like, optional
            Their spread statistic; required when the attack was fitted with it.

        Returns
        -------
        ndarray
            The scores (higher = member).

        Raises
        ------
        ValueError
            If the attack uses v_hat and none is given, or the values are not finite or
            of different shapes.
        """
        f_hat = as_finite_array(f_hat, "f_hat")
        score = self.f_in.logpdf(f_hat) - self.f_out.logpdf(f_hat)
        if self.v_in is not None:
            if v_hat is None:
                raise ValueError("this LiRA was fitted with v_hat; pass v_hat")
            v_hat = as_finite_array(v_hat, "v_hat")
            if v_hat.shape != f_hat.shape:
                raise ValueError(f"v_hat has shape {v_hat.shape} but f_hat has {f_hat.shape}")
            score = score + self.v_in.logpdf(v_hat) - self.v_out.logpdf(v_hat)
        return score
