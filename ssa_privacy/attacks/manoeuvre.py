"""Can an observer of the released measurements tell that a satellite manoeuvred?

The adversary knows the public nominal orbit and the noise covariance ``S`` of the
releases (sensor plus privacy noise, independent across passes: one dense block ``S_p``
per pass). H0 (no manoeuvre): ``y ~ N(mu0, S)``; H1 (a Delta-v a u at the window start):
``y ~ N(mu1, S)``. The caller computes the shift ``d = mu1 - mu0`` (nonlinear: propagate
and measure the manoeuvred and the nominal state; linearised: ``C [0; a u]``).

:func:`known_direction` gives the exact power of the Neyman-Pearson test of a known
direction (Van Trees I, §2.6), :func:`unknown_direction` a Monte Carlo estimate for a
direction uniform on the sphere (averaged likelihood ratio, Kay II, §6),
:func:`pml_detection_cap` the largest power any (epsilon, delta)-PML linear Gaussian
release allows, :func:`brute_force_auc` the empirical power of any statistic on draws.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, stats

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    flag,
    open_interval,
    positive_int,
)
from ssa_privacy.attacks.roc import auc_score, tpr_at_fpr
from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.privacy.notions import convention_weight

__all__ = [
    "DETECTION_CONFIDENCE",
    "DEFAULT_DIRECTIONS",
    "DetectionEstimate",
    "DetectionPower",
    "brute_force_auc",
    "fibonacci_directions",
    "known_direction",
    "log_likelihood_ratio",
    "pml_detection_cap",
    "unknown_direction",
    "unknown_direction_draws",
]

#: Default confidence level of the Monte Carlo intervals.
DETECTION_CONFIDENCE = 0.95
#: Default number of directions of the Fibonacci sphere for an unknown direction.
DEFAULT_DIRECTIONS = 64


@dataclass(frozen=True)
class DetectionPower:
    """Exact power of the Neyman-Pearson test of a known mean shift in Gaussian noise.

    Parameters
    ----------
    deflection : float
        ``d2 = d^T S^{-1} d`` (dimensionless), possibly ``inf``.
    auc : float
        ``Phi(sqrt(d2 / 2))``, in [0.5, 1].
    tpr : float
        ``Phi(sqrt(d2) - z_{1-alpha})``, the true-positive rate at false-positive rate alpha.
    alpha : float
        The false-positive rate, in (0, 1).
    """

    deflection: float
    auc: float
    tpr: float
    alpha: float


@dataclass(frozen=True)
class DetectionEstimate:
    """Monte Carlo estimate of a detector's AUC and TPR, with confidence intervals.

    Parameters
    ----------
    auc : float
        Empirical AUC (Mann-Whitney, ties counted half).
    auc_interval : tuple of float
        DeLong normal interval at ``confidence``, clipped to [0, 1] (asymptotic).
    tpr : float
        Empirical TPR at the empirical ``(1 - alpha)`` quantile of the H0 statistic.
    tpr_interval : tuple of float
        Distribution-free interval for the TPR of the test whose true FPR is alpha,
        threshold error included (coverage at least ``confidence``, continuous statistic).
    alpha : float
        The false-positive rate.
    samples : int
        Draws under each hypothesis.
    confidence : float
        Level of both intervals.

    Notes
    -----
    AUC interval: DeLong, DeLong and Clarke-Pearson, Biometrics 44 (1988) 837-845. TPR
    interval (``gamma = 1 - confidence``): the number N of H0 scores above the true
    alpha-threshold is Binomial(n, alpha), so the k-th largest H0 score has FPR at most
    alpha with probability ``P(N >= k)`` and at least alpha with ``P(N < k)`` (order
    statistics; David and Nagaraja, *Order Statistics*, §7.1). Choosing both k at ``1 -
    gamma / 4`` brackets the threshold; one-sided Clopper-Pearson bounds (Biometrika 26
    (1934) 404) at ``gamma / 4`` on the TPRs at the bracket ends bound the TPR at alpha
    (the ROC is monotone); the union bound gives ``confidence``. It is conservative.
    """

    auc: float
    auc_interval: tuple
    tpr: float
    tpr_interval: tuple
    alpha: float
    samples: int
    confidence: float


def _power(deflection, alpha):
    """DetectionPower of a deflection d2 >= 0 (inf allowed) at FPR alpha."""
    root = np.sqrt(deflection)
    auc = float(stats.norm.cdf(root / np.sqrt(2.0)))
    tpr = float(stats.norm.sf(stats.norm.isf(alpha) - root))
    return DetectionPower(float(deflection), auc, tpr, alpha)


def _as_passes(values, name):
    """A list of arrays, one per pass (a single array becomes a list of one)."""
    if isinstance(values, np.ndarray):
        return [values]
    if not isinstance(values, list | tuple) or not values:
        raise TypeError(f"{name} must be a non-empty list of arrays (one per pass)")
    return list(values)


def _factor(block, name, size, factored):
    """Lower Cholesky factor of a noise block (validated), of the given size."""
    if not flag(factored, "factored"):
        return pd_cholesky(block, name, size)
    L = as_matrix(block, name, (size, size))
    if np.any(np.triu(L, 1) != 0.0):
        raise ValueError(f"{name} must be a lower-triangular Cholesky factor (factored=True)")
    if np.any(np.diag(L) <= 0.0):
        raise ValueError(f"{name} must have a positive diagonal (a Cholesky factor)")
    return L


def _whitened(shifts, noise_blocks, factored, ndim):
    """Whitened shifts ``L_p^{-1} d_p`` stacked over passes, (M,) or (M, J), and the L_p."""
    shifts = _as_passes(shifts, "shifts")
    blocks = _as_passes(noise_blocks, "noise_blocks")
    if len(shifts) != len(blocks):
        raise ValueError(
            f"shifts and noise_blocks must hold one entry per pass, got {len(shifts)} and "
            f"{len(blocks)}"
        )
    whitened, factors = [], []
    for p, (shift, block) in enumerate(zip(shifts, blocks)):
        shift = as_finite_array(shift, f"shifts[{p}]", ndim=ndim)
        if ndim == 2 and whitened and shift.shape[0] != whitened[0].shape[1]:
            raise ValueError(
                f"shifts[{p}] has {shift.shape[0]} directions, shifts[0] has {whitened[0].shape[1]}"
            )
        if 0 in shift.shape:
            raise ValueError(f"shifts[{p}] is empty (shape {shift.shape})")
        L = _factor(block, f"noise_blocks[{p}]", shift.shape[-1], factored)
        whitened.append(linalg.solve_triangular(L, shift.T, lower=True))
        factors.append(L)
    return np.concatenate(whitened, axis=0), factors


def _confidence(confidence):
    return DETECTION_CONFIDENCE if confidence is None else open_interval(confidence, "confidence")


def _samples(samples):
    if (samples := positive_int(samples, "samples")) < 2:
        raise ValueError(f"samples must be at least 2 (for the interval), got {samples}")
    return samples


def known_direction(shifts, noise_blocks, alpha=0.01, factored=False):
    """Exact power of the Neyman-Pearson detector of a manoeuvre in a known direction.

    The log-likelihood ratio of ``N(mu0 + d, S)`` against ``N(mu0, S)`` is ``T(y) - d2 / 2``
    with ``T(y) = d^T S^{-1} (y - mu0)``, ``T ~ N(0, d2)`` under H0 and ``N(d2, d2)`` under
    H1, ``d2 = d^T S^{-1} d = sum_p |L_p^{-1} d_p|^2`` (``S_p = L_p L_p^T``).

    Parameters
    ----------
    shifts : list of array_like, each shape (M_p,)
        ``d_p = mu1 - mu0`` of each pass (release units; a single array is one pass).
    noise_blocks : list of array_like, each shape (M_p, M_p)
        Release noise covariance ``S_p`` of each pass (release units squared), symmetric
        positive definite; with ``factored`` its lower Cholesky factor ``L_p``.
    alpha : float, optional
        False-positive rate in (0, 1) for the reported TPR (default 0.01).
    factored : bool, optional
        Whether ``noise_blocks`` holds Cholesky factors (default False).

    Returns
    -------
    DetectionPower
        ``deflection`` d2, ``auc = Phi(sqrt(d2 / 2))``, ``tpr = Phi(sqrt(d2) - z_{1-alpha})``.

    Raises
    ------
    TypeError
        If ``shifts`` or ``noise_blocks`` is not a list of arrays of real numbers.
    ValueError
        On mismatched counts or shapes, non-finite values, a block not positive definite
        (not a lower-triangular factor), or ``alpha`` outside (0, 1).

    Notes
    -----
    Van Trees, *Detection, Estimation and Modulation Theory I*, §2.6; Kay, *Fundamentals
    of Statistical Signal Processing II*, §4.3 (deflection coefficient).
    """
    alpha = open_interval(alpha, "alpha")
    g, _ = _whitened(shifts, noise_blocks, factored, ndim=1)
    return _power(float(g @ g), alpha)


def log_likelihood_ratio(shifts, noise_blocks, factored=False):
    """The detector's log-likelihood ratio as a function of the residual ``y - mu0``.

    Parameters
    ----------
    shifts : list of array_like, each shape (M_p,) or (J, M_p)
        As :func:`known_direction` (one direction) or :func:`unknown_direction` (J).
    noise_blocks, factored
        As :func:`known_direction`.

    Returns
    -------
    callable
        ``f(r)`` for a residual ``r = y - mu0`` of shape (M,) or a batch (n, M) (passes
        concatenated in order): ``log mean_j exp(g_j . w - |g_j|^2 / 2)``, ``w = L^{-1} r``
        (a float or shape (n,)); for one direction ``d^T S^{-1} r - d2 / 2``.

    Raises
    ------
    TypeError, ValueError
        As :func:`known_direction`; ``f`` raises ValueError on a residual of the wrong
        length or with non-finite values.

    Notes
    -----
    Van Trees I, §2.6 (known direction); Kay II, §6.4 (averaged over directions).
    """
    ndim = np.ndim(_as_passes(shifts, "shifts")[0])
    G, factors = _whitened(shifts, noise_blocks, factored, ndim=2 if ndim == 2 else 1)
    G = G.reshape(len(G), -1)
    size = len(G)

    def statistic(residual):
        residual = as_finite_array(residual, "residual")
        if residual.ndim not in (1, 2) or residual.shape[-1] != size:
            raise ValueError(f"residual must have shape ({size},) or (n, {size})")
        W = _whiten_residual(np.atleast_2d(residual), factors)
        value = _log_mean_ratio(W, G)
        return float(value[0]) if residual.ndim == 1 else value

    return statistic


def _whiten_residual(residual, factors):
    """``L^{-1} r`` block by block for rows r of residual (n, M)."""
    parts, start = [], 0
    for L in factors:
        stop = start + len(L)
        parts.append(linalg.solve_triangular(L, residual[:, start:stop].T, lower=True).T)
        start = stop
    return np.concatenate(parts, axis=1)


def fibonacci_directions(count=DEFAULT_DIRECTIONS):
    """A nearly uniform, deterministic set of unit vectors: the Fibonacci sphere.

    Parameters
    ----------
    count : int, optional
        J, the number of directions, >= 1 (default :data:`DEFAULT_DIRECTIONS`).

    Returns
    -------
    ndarray, shape (J, 3)
        Unit vectors: point i at ``z = 1 - (2 i + 1) / J``, longitude i golden angles.

    Raises
    ------
    TypeError, ValueError
        If ``count`` is not a positive integer.

    Notes
    -----
    Gonzalez, Math. Geosci. 42 (2010) 49-64 (the Fibonacci lattice on the sphere).
    """
    count = positive_int(count, "count")
    i = np.arange(count)
    z = 1.0 - (2.0 * i + 1.0) / count
    radius = np.sqrt(np.clip(1.0 - z**2, 0.0, None))
    longitude = i * np.pi * (3.0 - np.sqrt(5.0))
    return np.column_stack([radius * np.cos(longitude), radius * np.sin(longitude), z])


def _log_mean_ratio(W, coords):
    """``log mean_j exp(g_j . w - |g_j|^2 / 2)`` for the rows w of W; coords (r, J), each
    row's largest exponent taken out before the exponential (log-sum-exp)."""
    exponents = W @ coords - 0.5 * np.sum(coords**2, axis=0)
    top = exponents.max(axis=1)
    exponents -= top[:, None]
    return top + np.log(np.exp(exponents, out=exponents).sum(axis=1)) - np.log(coords.shape[1])


def unknown_direction(
    shifts,
    noise_blocks,
    alpha=0.01,
    samples=20000,
    seed=None,
    factored=False,
    confidence=None,
    *,
    draws=None,
):
    """Monte Carlo power of the averaged-likelihood-ratio detector of an unknown direction.

    H1 draws direction j uniformly from J (e.g. :func:`fibonacci_directions`); the most
    powerful test thresholds ``Lambda(y) = mean_j exp(g_j . w - |g_j|^2 / 2)``, ``w =
    L^{-1} (y - mu0)``, ``g_j = L^{-1} d_j`` (``S = L L^T``). Only w's projection on the
    span of the g_j enters: with ``G = Q R`` (QR of the whitened shifts, M x J), ``Q^T w``
    is N(0, I_r) under H0 and ``N(R e_j, I_r)`` under H1: r-dimensional draws, r <= J.

    Parameters
    ----------
    shifts : list of array_like, each shape (J, M_p)
        ``d_j = mu1(u_j) - mu0`` of each pass for the J directions (release units); a
        single array is one pass.
    noise_blocks, factored
        As :func:`known_direction`.
    alpha : float, optional
        False-positive rate in (0, 1) (default 0.01).
    samples : int, optional
        n, draws under each hypothesis, >= 2 (default 20000).
    seed : None, int, sequence of int or numpy.random.Generator, optional
        Randomness (``ssa_privacy._internal.random.random_generator``).
    confidence : float, optional
        Level of the intervals in (0, 1) (default :data:`DETECTION_CONFIDENCE`).
    draws : tuple, optional
        Draws of :func:`unknown_direction_draws` for ``samples`` draws, rank at least r
        and the J directions, used (their first r columns) instead of drawing from
        ``seed``: common random numbers for several tests, drawn once. Default None:
        ``unknown_direction_draws(samples, r, J, seed)``.

    Returns
    -------
    DetectionEstimate
        AUC with its DeLong interval, TPR at alpha with its interval (threshold included).

    Raises
    ------
    TypeError, ValueError
        As :func:`known_direction`; also on passes with different J, a non-integer or
        non-positive ``samples``, ``confidence`` outside (0, 1), a bad seed, or ``draws``
        that do not match ``samples``, r and J.

    Notes
    -----
    Kay, *Fundamentals of Statistical Signal Processing II*, §6.4 (Bayesian approach to
    composite hypotheses: the likelihood averaged over the prior of the unknown
    parameter). The AUC of this test is at most the mean over j of the known-direction
    AUCs: any test's TPR at FPR alpha is the mean over j of its TPRs, each at most the
    Neyman-Pearson TPR of direction j. It need not exceed the worst direction's: for
    shifts ``+g`` and ``-g`` it is a test of ``|g . w|``, weaker than either known test.
    """
    alpha = open_interval(alpha, "alpha")
    samples = _samples(samples)
    confidence = _confidence(confidence)
    G, _ = _whitened(shifts, noise_blocks, factored, ndim=2)
    coords = np.linalg.qr(G, mode="r")
    rank, directions = coords.shape
    if draws is None:
        draws = unknown_direction_draws(samples, rank, directions, seed)
    null, chosen, noise = draws
    if null.shape[0] != samples or null.shape[1] < rank or chosen.max() >= directions:
        raise ValueError(
            f"draws must hold {samples} draws of rank >= {rank} among {directions} "
            f"directions, got shape {null.shape} and directions up to {chosen.max()}"
        )
    alternative = coords.T[chosen] + noise[:, :rank]
    null = null[:, :rank]
    return _estimate(
        _log_mean_ratio(alternative, coords), _log_mean_ratio(null, coords), alpha, confidence
    )


def unknown_direction_draws(samples, rank, directions, seed=None):
    """The random numbers of :func:`unknown_direction`, drawn once for several tests.

    Parameters
    ----------
    samples : int
        n, draws under each hypothesis, >= 2.
    rank : int
        r, the dimension of the draws (positive): at least that of every test they serve.
    directions : int
        J, the number of directions H1 chooses among (positive).
    seed : None, int, sequence of int or numpy.random.Generator, optional
        Randomness (``ssa_privacy._internal.random.random_generator``).

    Returns
    -------
    null : ndarray, shape (n, r)
        Standard normals: the whitened releases under H0.
    chosen : ndarray of int, shape (n,)
        The direction of each draw under H1, uniform on ``0 .. J - 1``.
    noise : ndarray, shape (n, r)
        Standard normals: the noise of the releases under H1.

    Raises
    ------
    ValueError
        If ``samples`` is below 2, ``rank`` or ``directions`` is not a positive integer,
        or the seed is bad.

    Notes
    -----
    Drawn in this order from one generator; a test of rank r uses the first r columns
    (Robert and Casella, *Monte Carlo Statistical Methods*, §4.2: common random numbers).
    """
    samples = _samples(samples)
    rank, directions = positive_int(rank, "rank"), positive_int(directions, "directions")
    rng = random_generator(seed)
    null = rng.standard_normal((samples, rank))
    chosen = rng.integers(directions, size=samples)
    return null, chosen, rng.standard_normal((samples, rank))


def _delong_interval(scores_h1, scores_h0, auc, confidence):
    """DeLong's normal interval for the Mann-Whitney AUC, from midrank placements."""
    n1, n0 = len(scores_h1), len(scores_h0)
    ranks = stats.rankdata(np.concatenate([scores_h1, scores_h0]))
    placement_h1 = (ranks[:n1] - stats.rankdata(scores_h1)) / n0
    placement_h0 = 1.0 - (ranks[n1:] - stats.rankdata(scores_h0)) / n1
    variance = np.var(placement_h1, ddof=1) / n1 + np.var(placement_h0, ddof=1) / n0
    half = stats.norm.isf((1.0 - confidence) / 2.0) * np.sqrt(variance)
    return (float(max(auc - half, 0.0)), float(min(auc + half, 1.0)))


def _tpr_bracket(scores_h1, scores_h0, alpha, confidence):
    """Distribution-free interval for the TPR at true FPR alpha (see brute_force_auc)."""
    n1, n0 = len(scores_h1), len(scores_h0)
    quarter = (1.0 - confidence) / 4.0
    descending, ascending_h1 = np.sort(scores_h0)[::-1], np.sort(scores_h1)
    # N = #{H0 scores above the true alpha-threshold} ~ Binomial(n0, alpha).
    k_high = int(stats.binom.ppf(quarter, n0, alpha))  # P(N >= k_high) >= 1 - quarter
    k_low = int(stats.binom.isf(quarter, n0, alpha)) + 1  # P(N <= k_low - 1) >= 1 - quarter
    lower, upper = 0.0, 1.0
    if k_high >= 1:
        hits = n1 - np.searchsorted(ascending_h1, descending[k_high - 1], side="right")
        lower = float(stats.beta.ppf(quarter, hits, n1 - hits + 1)) if hits else 0.0
    if k_low <= n0:
        hits = n1 - np.searchsorted(ascending_h1, descending[k_low - 1], side="left")
        upper = float(stats.beta.isf(quarter, hits + 1, n1 - hits)) if hits < n1 else 1.0
    return (lower, upper)


def _estimate(scores_h1, scores_h0, alpha, confidence):
    """DetectionEstimate of the scores of a detector under H1 and H0."""
    auc = auc_score(scores_h1, scores_h0)
    return DetectionEstimate(
        auc,
        _delong_interval(scores_h1, scores_h0, auc, confidence),
        tpr_at_fpr(scores_h1, scores_h0, alpha),
        _tpr_bracket(scores_h1, scores_h0, alpha, confidence),
        alpha,
        len(scores_h0),
        confidence,
    )


def _draws(sampler, statistic, rng, samples, name, vectorized):
    """The statistic of ``samples`` releases drawn by ``sampler(rng)``, shape (samples,)."""
    if not callable(sampler):
        raise TypeError(f"{name} must be callable (a Generator -> a release)")
    if vectorized:
        values = np.asarray(statistic(np.array([sampler(rng) for _ in range(samples)])), float)
    else:
        values = np.array([float(statistic(sampler(rng))) for _ in range(samples)])
    if not np.all(np.isfinite(values)):
        raise ValueError(f"the statistic is not finite on releases drawn by {name}")
    return values


def brute_force_auc(
    sample_h0,
    sample_h1,
    statistic,
    samples=2000,
    seed=None,
    alpha=0.01,
    confidence=None,
    vectorized=False,
):
    """Empirical AUC and TPR of a detector on releases drawn under each hypothesis.

    Parameters
    ----------
    sample_h0, sample_h1 : callable
        ``sample(rng)`` returns one release (any array the statistic accepts) under H0,
        resp. H1, drawing from the numpy Generator ``rng``.
    statistic : callable
        ``statistic(y)`` returns a real number, larger meaning "manoeuvred" (e.g.
        :func:`log_likelihood_ratio` of ``y - mu0``).
    samples : int, optional
        n, draws under each hypothesis, >= 2 (default 2000).
    seed, alpha, confidence
        As :func:`unknown_direction`.
    vectorized : bool, optional
        The statistic takes the draws of a hypothesis at once, stacked (n, ...), and
        returns shape (n,) (default False: one release at a time). The draws are the
        same either way.

    Returns
    -------
    DetectionEstimate
        AUC (:func:`~ssa_privacy.attacks.roc.auc_score`) and TPR at the empirical
        ``1 - alpha`` H0 quantile (:func:`~ssa_privacy.attacks.roc.tpr_at_fpr`), with
        the intervals of :class:`DetectionEstimate`.

    Raises
    ------
    TypeError
        If a sampler or the statistic is not callable.
    ValueError
        On a non-finite statistic, ``samples`` not a positive integer, or ``alpha`` or
        ``confidence`` outside (0, 1).

    Notes
    -----
    Plain Monte Carlo (Robert and Casella, *Monte Carlo Statistical Methods*, §3.2), the
    intervals as :class:`DetectionEstimate`.
    """
    if not callable(statistic):
        raise TypeError("statistic must be callable (a release -> a real number)")
    samples = _samples(samples)
    alpha = open_interval(alpha, "alpha")
    confidence = _confidence(confidence)
    rng = random_generator(seed)
    scores_h0 = _draws(sample_h0, statistic, rng, samples, "sample_h0", vectorized)
    scores_h1 = _draws(sample_h1, statistic, rng, samples, "sample_h1", vectorized)
    return _estimate(scores_h1, scores_h0, alpha, confidence)


def pml_detection_cap(Sigma_XX, direction, epsilon, delta, alpha=0.01, convention="exact"):
    """The most detectable manoeuvre any (epsilon, delta)-PML linear Gaussian release allows.

    A linear Gaussian mechanism about ``x0 ~ N(0, Sigma_XX)`` with Fisher information J
    shifts its mean by a deflection ``d2 = x^T J x`` for a deviation x: its largest value
    over all mechanisms meeting the budget.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0 (km and km/s squared), positive definite.
    direction : array_like, shape (n,)
        The manoeuvre x as a deviation of x0, e.g. ``[0, 0, 0, a u]`` (km, km/s).
    epsilon : float
        The PML budget, nats, finite.
    delta : float
        Failure probability in (0, 1).
    alpha : float, optional
        False-positive rate in (0, 1) for the TPR (default 0.01).
    convention : {"exact", "paper"}
        The leakage formula (w = 1 or 2).

    Returns
    -------
    DetectionPower
        ``deflection = lambda_max x^T Sigma_XX^{-1} x`` with ``lambda_max = exp(2 (epsilon -
        F^{-1}_{chi^2_1}(1 - delta) / 2) / w) - 1`` (0 when epsilon is at or below that
        rank-1 floor: nothing can be released, AUC 0.5, TPR alpha), and the AUC and TPR
        bounds ``Phi(sqrt(d2 / 2))`` and ``Phi(sqrt(d2) - z_{1-alpha})``.

    Raises
    ------
    TypeError, ValueError
        On a non-finite or wrongly shaped argument, ``Sigma_XX`` not positive definite,
        ``delta`` or ``alpha`` outside (0, 1), or an unknown convention.

    Notes
    -----
    The cap is for the linear shift ``C x``; a nonlinear shift obeys it as far as it is
    close to its linearisation. [LKC] Theorem 3.3: canonical eigenvalues ``lambda_1 >= ...
    >= lambda_l > 0`` (of ``L^T J L``, ``Sigma_XX = L L^T``) achieve ``epsilon = w sum_i
    log(1 + lambda_i) / 2 + F^{-1}_{chi^2_l}(1 - delta) / 2``. Proof: with ``v = L^{-1}
    x``, ``d2 = v^T (L^T J L) v <= lambda_1 |v|^2`` (Rayleigh quotient), and the budget
    gives ``w log(1 + lambda_1) / 2 <= epsilon - F^{-1}_{chi^2_l}(1 - delta) / 2 <= epsilon
    - F^{-1}_{chi^2_1}(1 - delta) / 2`` (the other eigenvalues only spend budget, and the
    quantile grows with l as chi^2_l is stochastically increasing), so ``lambda_1 <=
    lambda_max``. The rank-1 ``y = v^T L^{-1} x0 + e``, ``e ~ N(0, |v|^2 / lambda_max)``,
    attains it. AUC and TPR increase with d2.
    """
    weight = convention_weight(convention)
    alpha = open_interval(alpha, "alpha")
    L = pd_cholesky(Sigma_XX, "Sigma_XX")
    direction = as_finite_array(direction, "direction", ndim=1)
    if len(direction) != len(L):
        raise ValueError(f"direction must have shape ({len(L)},), got {direction.shape}")
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    floor = float(minimum_epsilon(delta, 1))
    whitened = linalg.solve_triangular(L, direction, lower=True)
    quadratic = float(whitened @ whitened)
    exponent = 2.0 * (epsilon - floor) / weight
    if exponent <= 0.0 or quadratic == 0.0:
        return _power(0.0, alpha)
    lam = np.inf if exponent > 700.0 else float(np.expm1(exponent))
    return _power(lam * quadratic, alpha)
