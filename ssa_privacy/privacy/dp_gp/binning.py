"""Binning with the Laplace mechanism [SMI] §4: DP bin means and predictions from them.

Each training input falls in one half-open box of a grid (inputs and counts are
public); the mean of the private outputs in an occupied bin moves by at most ``d / n_b``
when one output moves by d, so ``Laplace(d / (n_b epsilon))`` noise on each bin mean is
epsilon-DP, and the bins together too (parallel composition over disjoint bins).
:class:`LaplaceBinningMechanism` releases the bin means; predictions from them
(:func:`simple_binning_predict`, :func:`integral_binning_predict` with the
:class:`IntegralRBF` kernel) are post-processing. See :doc:`/theory/dp-gp`.
"""

import copy
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    nonempty,
    positive,
    positive_int,
    scalar,
)
from ssa_privacy.gp.kernels import as_inputs
from ssa_privacy.gp.regression import GaussianProcess
from ssa_privacy.privacy.dp_gp.laplace import (
    SCALE_INFLATION,
    check_variance_range,
    covariance_scales,
    laplace_certificate,
)
from ssa_privacy.privacy.dp_gp.release import PrivacyCheck
from ssa_privacy.privacy.mechanism import (
    FactoredCovariance,
    Release,
    as_factored,
    data_vector,
    generator,
)

__all__ = [
    "BinnedRelease",
    "IntegralRBF",
    "LaplaceBinningMechanism",
    "integral_binning_predict",
    "simple_binning_predict",
]


@dataclass(frozen=True)
class BinnedRelease:
    """DP bin means from the Laplace mechanism [SMI] §4.

    ``details["binned"]`` of a :meth:`LaplaceBinningMechanism.release`, the input of
    :func:`simple_binning_predict` and :func:`integral_binning_predict`.

    Parameters
    ----------
    edges : list of ndarray
        Bin edges per input dimension; bins are the half-open boxes of the grid.
    counts : ndarray, shape (B,)
        Training points per bin (public, the inputs are public).
    values : ndarray, shape (B,)
        DP bin means (units of y); NaN for empty bins (nothing released).
    laplace_scales : ndarray, shape (B,)
        Laplace scale drawn with per bin, ``sqrt(Sigma_bb / 2)`` of the noise covariance:
        ``d / (n_b epsilon) (1 + SCALE_INFLATION)`` when calibrated (NaN for empty bins).
    check : PrivacyCheck
        Pure epsilon-DP by parallel composition over disjoint bins.
    """

    edges: list
    counts: np.ndarray
    values: np.ndarray
    laplace_scales: np.ndarray
    check: PrivacyCheck

    def _corners(self, side):
        grids = np.meshgrid(*[e[:-1] if side == 0 else e[1:] for e in self.edges], indexing="ij")
        return np.stack([g.ravel() for g in grids], axis=1)

    @property
    def lower(self):
        """Lower corners of the bins, shape (B, D) (input units)."""
        return self._corners(0)

    @property
    def upper(self):
        """Upper corners of the bins, shape (B, D) (input units)."""
        return self._corners(1)

    @property
    def occupied(self):
        """Boolean mask of bins with at least one training point, shape (B,)."""
        return self.counts > 0


def _edges(edges, dimension):
    """Validate bin edges: one increasing 1-D array per input dimension."""
    if isinstance(edges, str | bytes) or not hasattr(edges, "__len__"):
        raise TypeError(
            f"edges must be an array of bin edges (or one per input dimension), got {edges!r}"
        )
    if dimension == 1 and len(edges) and np.ndim(edges[0]) == 0:
        edges = [edges]
    if len(edges) != dimension:
        raise ValueError(
            f"edges must give one array per input dimension ({dimension}), got {len(edges)}"
        )
    checked = [as_finite_array(e, f"edges[{k}]", ndim=1) for k, e in enumerate(edges)]
    for k, e in enumerate(checked):
        if len(e) < 2 or np.any(np.diff(e) <= 0):
            raise ValueError(f"edges[{k}] must be strictly increasing with at least 2 entries")
    return checked


def _bin_index(X, edges):
    """Flat index of the half-open bin of each row of X (-1 if outside every bin)."""
    per_dimension = [np.searchsorted(e, X[:, k], side="right") - 1 for k, e in enumerate(edges)]
    shape = tuple(len(e) - 1 for e in edges)
    inside = np.all([(i >= 0) & (i < n) for i, n in zip(per_dimension, shape)], axis=0)
    flat = np.full(len(X), -1)
    if inside.any():
        flat[inside] = np.ravel_multi_index([i[inside] for i in per_dimension], shape)
    return flat


def _laplace_scales(counts, epsilon, sensitivity):
    """The calibration: Laplace scale ``d / (n_b epsilon) (1 + SCALE_INFLATION)`` per occupied bin.

    Notes
    -----
    Computed, ``b = d / (n_b epsilon) (1 + 32 u) (1 + theta)^3`` (three roundings; ``1 +
    32 u`` is a float), and the covariance stores ``fl(2 fl(b^2))``, whose exact scale
    ``sqrt(Sigma_bb / 2)`` is ``b (1 + theta)^(1/2)``: the exact loss is at most
    ``epsilon (1 + 3.5 u) / (1 + 32 u)``. The certificate allows ``(rho + gamma_3) /
    (1 - rho - gamma_3)`` of the computed loss with ``rho = gamma_2 + gamma_5`` for this
    diagonal covariance, plus u of the margin: about 11 u in all, so a calibrated
    release passes with some 18 u to spare.
    """
    return sensitivity / (counts * epsilon) * (1.0 + SCALE_INFLATION)


class LaplaceBinningMechanism:
    """DP bin means: ``ybar_b + Laplace(d / (n_b epsilon))`` on each occupied bin.

    Pure epsilon-DP (delta = 0) by parallel composition over the disjoint bins. The
    noise covariance is diagonal, ``2 b_b^2`` on occupied bins (b_b the Laplace scale);
    the certificate recomputes epsilon from the scales ``sqrt(diag / 2)`` of the noise
    covariance actually used and the sensitivity ``d / n_b`` of each released mean:
    ``epsilon_achieved = max_b (d / n_b) / b_b``, passed when epsilon exceeds it by more
    than a rigorous bound on its rounding error. Releases draw Laplace noise of those
    scales; the calibrated scales are inflated by ``1 + SCALE_INFLATION`` so that they
    pass.

    Parameters
    ----------
    X : array_like, shape (n, D) or (n,)
        Training inputs (public); each must fall inside the grid.
    edges : array_like or sequence of array_like
        Strictly increasing bin edges, one array per input dimension (a single array
        for 1-D inputs). Bins are half-open ``[e_k, e_{k+1})``.
    epsilon : float
        Privacy parameter (> 0).
    sensitivity : float
        d, the largest change of one output between neighbours (units of y).

    Attributes
    ----------
    counts : ndarray, shape (B,)
        Training points per bin, B the number of bins of the grid (C order).
    laplace_scales : ndarray, shape (B,)
        The Laplace scales of the noise covariance, ``sqrt(diag / 2)`` (NaN for empty
        bins): as designed, ``d / (n_b epsilon) (1 + SCALE_INFLATION)``; those of the
        given noise after :meth:`with_noise`.
    noise_covariance : FactoredCovariance
        Covariance of the noise, dimension B.

    Raises
    ------
    ValueError
        On bad edges, training inputs outside the grid, or non-positive parameters.

    Notes
    -----
    [SMI] §4; Dwork and Roth (2014), Theorem 3.6 (Laplace mechanism) and parallel
    composition; :doc:`/theory/dp-gp`.

    Examples
    --------
    >>> from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism
    >>> mech = LaplaceBinningMechanism([0.2, 0.4, 1.5, 2.5], [0.0, 1.0, 2.0, 3.0], 1.0, 2.0)
    >>> release = mech.release([0.1, 0.3, -0.2, 0.5], seed=0)
    >>> release.values.shape, release.certificate.passed
    ((3,), True)
    >>> mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed
    False
    """

    def __init__(self, X, edges, epsilon, sensitivity):
        X = as_inputs(X)
        self.epsilon = positive(epsilon, "epsilon")
        self.sensitivity = positive(sensitivity, "sensitivity")
        self.edges = _edges(edges, X.shape[1])
        self._index = _bin_index(X, self.edges)
        if np.any(self._index < 0):
            raise ValueError(
                f"{np.sum(self._index < 0)} training inputs fall outside the bin edges"
            )
        n_bins = int(np.prod([len(e) - 1 for e in self.edges]))
        self.counts = np.bincount(self._index, minlength=n_bins)
        occupied = self.counts > 0
        scales = _laplace_scales(self.counts[occupied], self.epsilon, self.sensitivity)
        check_variance_range(scales)
        self.noise_covariance = FactoredCovariance(
            2 * scales**2, np.eye(n_bins)[:, occupied], "laplace"
        )

    @property
    def laplace_scales(self):
        """Laplace scales ``sqrt(diag / 2)`` of the noise covariance (NaN for empty bins)."""
        occupied = self.counts > 0
        scales = np.full(len(self.counts), np.nan)
        scales[occupied] = covariance_scales(self.noise_covariance, occupied)[0]
        return scales

    def _draw(self, y, rng):
        """Bin means of y plus Laplace noise of the scales used; NaN for empty bins."""
        y = data_vector(y, len(self._index), "y")
        occupied = self.counts > 0
        means = np.full(len(self.counts), np.nan)
        sums = np.bincount(self._index, weights=y, minlength=len(self.counts))
        means[occupied] = sums[occupied] / self.counts[occupied]
        scales = self.laplace_scales
        noise = rng.laplace(0.0, np.nan_to_num(scales))
        return means + np.where(occupied, noise, np.nan), scales

    def certificate(self):
        """The pure epsilon-DP guarantee, recomputed from the noise covariance.

        Returns
        -------
        Certificate
            Notion ``"dp"``, parameters epsilon and delta = 0; ``margin`` = epsilon minus
            the largest per-bin privacy loss ``(d / n_b) / b_b`` (nats), b_b from the
            diagonal of the noise covariance; ``tolerance`` a rigorous bound on its
            rounding error (see :func:`covariance_scales` and
            :func:`laplace_certificate`); passed iff ``margin - tolerance >= 0``.
        """
        occupied = self.counts > 0
        scales, error = covariance_scales(self.noise_covariance, occupied)
        return laplace_certificate(
            scales, self.counts[occupied], self.epsilon, self.sensitivity, error
        )

    def with_noise(self, noise_covariance):
        """The same mechanism with the Laplace scales of another covariance (for audits).

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like, shape (B, B)
            Only its diagonal is used: bin b gets Laplace noise of scale
            ``sqrt(Sigma_bb / 2)``.

        Returns
        -------
        LaplaceBinningMechanism
            Releases draw Laplace noise of those scales; certificates are recomputed
            from them.
        """
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, len(self.counts), "noise_covariance")
        return other

    def release(self, y, *, seed=None):
        """Release the DP bin means of y.

        Parameters
        ----------
        y : array_like, shape (n,)
            Training outputs (private), clipped so that one can change by at most d.
        seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness of the noise; None draws fresh entropy.

        Returns
        -------
        Release
            ``values`` of shape (B,) (NaN for empty bins); ``details["binned"]`` is the
            :class:`BinnedRelease` for :func:`simple_binning_predict` and
            :func:`integral_binning_predict`.

        Raises
        ------
        ValueError
            If y does not have one entry per training input.
        TypeError
            On a bad seed.
        """
        rng, seed_keys = generator(seed)
        values, scales = self._draw(y, rng)
        certificate = self.certificate()
        binned = BinnedRelease(
            self.edges, self.counts, values, scales, PrivacyCheck.from_certificate(certificate)
        )
        details = {"binned": binned, "laplace_scales": scales}
        return Release(values, self.noise_covariance, certificate, seed_keys, details)


def _test_inputs(binned, X_star):
    """Validated ``binned`` (a BinnedRelease) and X_star, (m, D) with D the bins' dimension."""
    if not isinstance(binned, BinnedRelease):
        raise TypeError(f"binned must be a BinnedRelease, got {type(binned).__name__}")
    X_star = as_inputs(X_star, "X_star")
    if X_star.shape[1] != len(binned.edges):
        raise ValueError(f"X_star has {X_star.shape[1]} columns, the bins {len(binned.edges)}")
    return binned, X_star


def simple_binning_predict(binned, X_star, fill=0.0):
    """Predict with the DP mean of the bin holding each test point [SMI] §4.

    Parameters
    ----------
    binned : BinnedRelease
        ``details["binned"]`` of a :meth:`LaplaceBinningMechanism.release`.
    X_star : array_like, shape (m, D) or (m,)
        Test inputs.
    fill : float
        Prediction for empty bins and points outside the grid (the population mean;
        0 for normalised outputs).

    Returns
    -------
    ndarray, shape (m,)
        Post-processed DP predictions (same guarantee as ``binned``).

    Raises
    ------
    TypeError, ValueError
        If ``binned`` is not a BinnedRelease, X_star is invalid or has another number of
        columns than the bins, or ``fill`` is not a finite number.
    """
    binned, X_star = _test_inputs(binned, X_star)
    fill = scalar(fill, "fill")
    index = _bin_index(X_star, binned.edges)
    values = np.where(np.isnan(binned.values), fill, binned.values)
    return np.where(index >= 0, values[np.maximum(index, 0)], fill)


@dataclass(frozen=True)
class IntegralRBF:
    """Squared-exponential kernel between points and integrals over boxes.

    A row of an input array is ``[lower_1..lower_D, upper_1..upper_D]``; a row with
    ``lower == upper`` in every dimension denotes the latent value at that point, a row
    with ``lower < upper`` in every dimension the integral of the latent function over
    the box. With ``a = sqrt(2) l`` and ``G(z) = (a^2/2)(z/a sqrt(pi) erf(z/a) + exp(-z^2/a^2))``,
    per dimension: point-point ``exp(-(p - q)^2 / a^2)``; box ``[s, t]`` vs point p
    ``(sqrt(pi) a / 2)(erf((t - p)/a) - erf((s - p)/a))``; box vs box ``[s', t']``
    ``G(t - s') + G(s - t') - G(t - t') - G(s - s')``. Multiplied over dimensions and by
    ``variance``.

    Parameters
    ----------
    lengthscale : float
        l, in input units (usual convention ``exp(-r^2 / (2 l^2))``; the authors'
        GPy kernel used ``exp(-r^2 / l^2)``).
    variance : float
        Variance of the latent function.

    Notes
    -----
    Smith, Alvarez and Lawrence (2018), "Gaussian process regression for binned
    data" (the integral kernel used by [SMI] §4); :doc:`/theory/dp-gp`.
    """

    lengthscale: float = 1.0
    variance: float = 1.0

    def __post_init__(self):
        positive(self.lengthscale, "lengthscale")
        positive(self.variance, "variance")

    @staticmethod
    def _split(A, name):
        A = nonempty(as_matrix(A, name), name)
        if A.shape[1] % 2:
            raise ValueError(f"{name} must have 2 D columns [lower..., upper...], got {A.shape[1]}")
        lower, upper = np.split(A, 2, axis=1)
        width = upper - lower
        is_box = np.all(width > 0, axis=1)
        if np.any(width < 0) or np.any(~is_box & np.any(width > 0, axis=1)):
            raise ValueError(
                f"each row of {name} must be a point (lower == upper) or a box (lower < upper)"
            )
        return lower, upper, is_box

    def __call__(self, A, B=None):
        """The kernel matrix between the rows of A and B.

        Parameters
        ----------
        A : array_like, shape (nA, 2 D)
            Rows ``[lower_1..lower_D, upper_1..upper_D]``: points or boxes.
        B : array_like, shape (nB, 2 D), optional
            As A; by default A.

        Returns
        -------
        ndarray, shape (nA, nB)
            Covariances between the latent values and box integrals.

        Raises
        ------
        ValueError
            If A or B is empty, not finite, has an odd number of columns, rows that are
            neither points nor boxes, or A and B have different widths.
        """
        lA, uA, boxA = self._split(A, "A")
        lB, uB, boxB = (lA, uA, boxA) if B is None else self._split(B, "B")
        if lB.shape[1] != lA.shape[1]:
            raise ValueError(f"B has {2 * lB.shape[1]} columns but A has {2 * lA.shape[1]}")
        a = np.sqrt(2.0) * self.lengthscale
        result = np.ones((len(lA), len(lB)))
        for k in range(lA.shape[1]):
            s, t = lA[:, k, None], uA[:, k, None]
            s2, t2 = lB[None, :, k], uB[None, :, k]
            point_point = np.exp(-(((s - s2) / a) ** 2))
            box_point = (
                0.5 * np.sqrt(np.pi) * a * (special.erf((t - s2) / a) - special.erf((s - s2) / a))
            )
            point_box = (
                0.5 * np.sqrt(np.pi) * a * (special.erf((t2 - s) / a) - special.erf((s2 - s) / a))
            )
            box_box = (
                _integrated_erf(t - s2, a)
                + _integrated_erf(s - t2, a)
                - _integrated_erf(t - t2, a)
                - _integrated_erf(s - s2, a)
            )
            result *= np.where(
                boxA[:, None],
                np.where(boxB[None, :], box_box, box_point),
                np.where(boxB[None, :], point_box, point_point),
            )
        return self.variance * result


def _integrated_erf(z, a):
    """Second antiderivative of ``exp(-z^2/a^2)``: ``(a^2/2)(z/a sqrt(pi) erf(z/a) + exp(-z^2/a^2))``."""
    x = z / a
    return 0.5 * a**2 * (x * np.sqrt(np.pi) * special.erf(x) + np.exp(-(x**2)))


def integral_binning_predict(binned, X_star, restarts=3, seed=None):
    """Predict from DP bin means with an integral-kernel GP ([SMI] §4, "integral binning").

    Occupied bins become observations of the integral of the latent function over the
    bin, ``(value_b - offset) vol_b`` with ``offset`` the mean DP bin value, with the
    known Laplace noise variance ``2 (d / (n_b epsilon))^2 vol_b^2`` plus a fitted
    Gaussian noise variance. The kernel length scale, variance and that noise are fitted
    by maximum likelihood (L-BFGS-B, log parameters, several starts). Everything uses
    only the DP release, so the predictions are post-processing.

    Parameters
    ----------
    binned : BinnedRelease
        ``details["binned"]`` of a :meth:`LaplaceBinningMechanism.release`.
    X_star : array_like, shape (m, D) or (m,)
        Test inputs.
    restarts : int
        Optimiser starts (the first from the median bin width and variance 1).
    seed : int or numpy.random.Generator, optional
        Seeds the random starts.

    Returns
    -------
    ndarray, shape (m,)
        Predictions (units of y).

    Raises
    ------
    TypeError
        If ``binned`` is not a BinnedRelease, or ``restarts`` or ``seed`` is of the wrong
        type.
    ValueError
        If X_star is invalid or has another number of columns than the bins, restarts
        is not a positive integer, fewer than two bins are occupied or every start fails.

    Notes
    -----
    [SMI] §4; as the authors' code, but with the usual RBF length-scale convention
    (:doc:`/theory/dp-gp`).
    """
    binned, X_star = _test_inputs(binned, X_star)
    restarts = positive_int(restarts, "restarts")
    rng = random_generator(seed)
    occupied = binned.occupied
    if occupied.sum() < 2:
        raise ValueError("integral binning needs at least two occupied bins")
    lower, upper = binned.lower[occupied], binned.upper[occupied]
    volume = np.prod(upper - lower, axis=1)
    offset = float(np.mean(binned.values[occupied]))
    targets = (binned.values[occupied] - offset) * volume
    fixed = 2.0 * (binned.laplace_scales[occupied] * volume) ** 2
    boxes = np.hstack([lower, upper])

    def model(theta):
        l, variance, extra = np.exp(theta)
        return GaussianProcess(IntegralRBF(l, variance), 0.0, np.diag(fixed + extra))

    def objective(theta):
        try:
            return -model(theta).fit(boxes, targets).log_marginal_likelihood()
        except ValueError:
            return np.inf

    width = float(np.median(upper - lower))
    span = float(np.max(upper - lower.min(axis=0)))
    starts = [np.log([width, 1.0, 0.1])] + [
        np.log([rng.uniform(width, span), rng.uniform(0.1, 10.0), rng.uniform(0.01, 1.0)])
        for _ in range(restarts - 1)
    ]
    bounds = [
        (np.log(width / 10), np.log(10 * span)),
        (np.log(1e-4), np.log(1e4)),
        (np.log(1e-8), np.log(1e4)),
    ]
    fits = [optimize.minimize(objective, s, method="L-BFGS-B", bounds=bounds) for s in starts]
    best = min(fits, key=lambda fit: fit.fun)
    if not np.isfinite(best.fun):
        raise ValueError("the integral-binning likelihood fit failed from every start")
    mean, _ = model(best.x).fit(boxes, targets).predict(np.hstack([X_star, X_star]))
    return mean + offset
