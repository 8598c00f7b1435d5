"""Differentially private GP regression with public inputs and private outputs [SMI].

Threat model [SMI §2]: the training inputs ``X`` are public, the outputs ``y`` private;
neighbouring data sets differ in one output by at most the sensitivity ``d``
(``|y_j - y'_j| <= d``). The released objects are predictions at test inputs ``X*``.

The module provides

- output clipping and normalisation (:func:`clip_and_normalise`), which makes the
  sensitivity hold and expresses it in normalised units;
- the standard DP-GP of Hall et al. (2013) (:func:`standard_release`): the posterior
  mean plus a scaled prior sample, with the RKHS sensitivity bounded in one of four
  named ways (:func:`rkhs_sensitivity`);
- the cloaking method [SMI §3] (:func:`cloaking_release`,
  :func:`cloaking_noise_covariance`): Gaussian noise whose covariance ``M`` is the
  minimum-volume ellipsoid enclosing the columns of the cloaking matrix, found by a
  convergent solver (Frank-Wolfe, then a log-barrier Newton method) with a
  duality-gap stopping rule (:func:`optimal_cloaking_covariance`);
- binning with the Laplace mechanism, simple and integral [SMI §4]
  (:func:`laplace_bin_means`, :func:`simple_binning_predict`,
  :func:`integral_binning_predict`);
- DP hyperparameter selection with the exponential mechanism [SMI supplement]
  (:func:`select_hyperparameters`).

Every release carries a :class:`PrivacyCheck`: the (epsilon, delta) claimed and the
computation that establishes it. For the Gaussian mechanisms this is the exact
privacy-loss tail of Balle and Wang (2018, Theorem 8) at the worst-case neighbour,
recomputed from the final noise covariance.

Bugs of the authors' code that are deliberately not reproduced (``dpgp_spec.md`` A.2-A.4):
the cloaking noise is scaled by the square root of ``max_i c_i^T M^{-1} c_i`` (not the
square), so the covariance is invariant to the scale of ``M``; the ellipsoid is found
by a convergent solver (not 100 fixed-step gradient iterations); a release is a single
draw with the full noise; bins are half-open so that no point is counted twice.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import linalg, optimize, special
from tqdm.auto import tqdm

from ssa_privacy._validation import (
    as_finite_array,
    as_matrix,
    open_interval,
    positive,
    psd_matrix,
)
from ssa_privacy.gp import RBF, GaussianProcess, as_inputs, cholesky_with_jitter, noise_matrix
from ssa_privacy.privacy.accounting import (
    c_delta,
    gaussian_mechanism_delta,
    noise_multiplier,
    privacy_loss_tail,
)

#: Names of the RKHS-sensitivity bounds of the standard method (see :func:`rkhs_sensitivity`).
RKHS_METHODS = ("infinity_norm", "paper_refinement", "rigorous_refinement", "exact")
#: Share of the unit Mahalanobis budget given to the directions dropped by the rank
#: reduction of the cloaking matrix (see :func:`optimal_cloaking_covariance`).
NULL_SPACE_SHARE = 1e-3
#: Relative optimality gap at which the cloaking dual switches from Frank-Wolfe to the
#: barrier method (see :func:`cloaking_dual`).
COARSE_GAP = 1e-5
#: Round-off level of the columns of C, relative to its largest singular value; the
#: variance in the dropped directions is at least ``(ROUND_OFF s_max)^2 / NULL_SPACE_SHARE``.
ROUND_OFF = 64 * np.finfo(float).eps
#: Relative slack allowed when comparing a computed delta with the target.
CHECK_RTOL = 1e-9


def _generator(seed):
    """A numpy Generator from ``seed`` (None draws fresh OS entropy)."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


# --------------------------------------------------------------------------------------
# Privacy accounting shared by the mechanisms
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivacyCheck:
    """The guarantee of one release and the computation that establishes it.

    Attributes
    ----------
    mechanism : str
        What was released and how the guarantee was verified.
    epsilon, delta : float
        The (epsilon, delta)-DP guarantee claimed (delta = 0 for pure DP).
    passed : bool
        Whether the verification confirms the claim.
    evidence : dict
        The named numbers of the verification (e.g. the worst-case Mahalanobis
        sensitivity in noise units and the exact delta it implies).
    """

    mechanism: str
    epsilon: float
    delta: float
    passed: bool
    evidence: dict = field(default_factory=dict)

    def record(self):
        """Return a flat dict for a results row: mechanism, epsilon, delta, check."""
        row = {
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "check_passed": bool(self.passed),
        }
        row.update({f"check_{key}": value for key, value in self.evidence.items()})
        return row


def gaussian_check(mechanism, mahalanobis_sensitivity, epsilon, delta, calibration, **evidence):
    """Verify a Gaussian-mechanism release from its worst-case Mahalanobis shift.

    Parameters
    ----------
    mechanism : str
        Description stored in the check.
    mahalanobis_sensitivity : float
        Largest ``||Sigma^{-1/2} (v_D - v_D')||`` over neighbours, recomputed from the
        final noise covariance ``Sigma`` (noise standard units).
    epsilon, delta : float
        The guarantee claimed.
    calibration : str
        The calibration used (recorded; ``"hall"`` also records Hall's condition).
    **evidence
        Further numbers to record.

    Returns
    -------
    PrivacyCheck
        Passed when the exact delta (Balle and Wang 2018, Theorem 8) is at most delta.
    """
    m = float(mahalanobis_sensitivity)
    exact = gaussian_mechanism_delta(m, epsilon)
    details = {
        "calibration": calibration,
        "mahalanobis_sensitivity": m,
        "loss_tail": privacy_loss_tail(m, epsilon) if m > 0 else 0.0,
        "exact_delta": exact,
        "hall_condition": bool(epsilon <= 1 and m <= epsilon / c_delta(delta) * (1 + CHECK_RTOL)),
        **evidence,
    }
    return PrivacyCheck(
        mechanism, float(epsilon), float(delta), exact <= delta * (1 + CHECK_RTOL), details
    )


@dataclass(frozen=True)
class DPRelease:
    """A differentially private release of test predictions.

    Attributes
    ----------
    values : ndarray, shape (m,)
        The released predictions (units of the outputs y passed in).
    noise_covariance : ndarray, shape (m, m)
        Covariance of the DP noise that was added (squared output units).
    check : PrivacyCheck
        The (epsilon, delta) guarantee and its verification.
    details : dict
        Diagnostics of the computation (sensitivity, jitter, solver statistics).
    """

    values: np.ndarray
    noise_covariance: np.ndarray
    check: PrivacyCheck
    details: dict = field(default_factory=dict)

    @property
    def epsilon(self):
        """epsilon of the guarantee."""
        return self.check.epsilon

    @property
    def delta(self):
        """delta of the guarantee."""
        return self.check.delta

    @property
    def noise_sd(self):
        """Standard deviation of the DP noise per test point, shape (m,)."""
        return np.sqrt(np.maximum(np.diag(self.noise_covariance), 0.0))

    def record(self):
        """Return the guarantee and its check as a flat dict for a results row."""
        return self.check.record()


# --------------------------------------------------------------------------------------
# Output clipping and normalisation
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputNormalisation:
    """Clipping range and standardisation of the outputs [SMI §2; spec A.0].

    Attributes
    ----------
    centre : float
        Centre of the clipping window (output units).
    raw_sensitivity : float
        d_raw, the width of the clipping window (output units): two clipped outputs
        differ by at most d_raw.
    mean, std : float
        Mean and standard deviation (ddof = 0) of the clipped outputs (output units).
    n_clipped : int
        Number of outputs changed by clipping.

    Notes
    -----
    ``centre``, ``mean`` and ``std`` are computed from the private outputs and are not
    privatised; [SMI] ignores this leak (``dpgp_spec.md`` A.0 caveat).
    """

    centre: float
    raw_sensitivity: float
    mean: float
    std: float
    n_clipped: int

    @property
    def sensitivity(self):
        """d = d_raw / std, the sensitivity in normalised units."""
        return self.raw_sensitivity / self.std

    def normalise(self, y):
        """Clip ``y`` to the window and standardise it (normalised units)."""
        low = self.centre - self.raw_sensitivity / 2
        clipped = np.clip(as_finite_array(y, "y"), low, low + self.raw_sensitivity)
        return (clipped - self.mean) / self.std

    def unnormalise(self, f):
        """Map predictions from normalised units back to output units."""
        return np.asarray(f, dtype=float) * self.std + self.mean

    def unnormalise_covariance(self, covariance):
        """Map a (co)variance from normalised units to squared output units."""
        return np.asarray(covariance, dtype=float) * self.std**2


def clip_and_normalise(y, sensitivity, clip="midpoint"):
    """Clip outputs to a window of width ``sensitivity`` and standardise them.

    Parameters
    ----------
    y : array_like, shape (n,)
        Raw outputs (output units).
    sensitivity : float
        d_raw, the full width of the allowed output range (output units), e.g. 100 cm.
    clip : {"midpoint", "mean", "median"} or float
        Centre of the window: the midpoint of the data range (the paper's default),
        the mean, the median, or a given (public) value.

    Returns
    -------
    y_normalised : ndarray, shape (n,)
        Clipped, standardised outputs (normalised units).
    normalisation : OutputNormalisation
        Its ``sensitivity`` is d = d_raw / std, the value to pass to the mechanisms.

    Raises
    ------
    ValueError
        On non-finite or non-1-D y, a non-positive sensitivity, an unknown ``clip``,
        or clipped outputs with zero spread.

    Notes
    -----
    [SMI] footnote to Fig. 1 ("rectifying all values to lie 50cm of the mean");
    ``dpgp_spec.md`` A.0 (``dp_normalise`` of the authors' code).
    """
    y = as_finite_array(y, "y", ndim=1)
    width = positive(sensitivity, "sensitivity")
    centres = {"midpoint": lambda v: (v.max() + v.min()) / 2, "mean": np.mean, "median": np.median}
    if isinstance(clip, str):
        if clip not in centres:
            raise ValueError(f"clip must be one of {tuple(centres)} or a number, got {clip!r}")
        centre = float(centres[clip](y))
    else:
        centre = float(as_finite_array(clip, "clip", ndim=0))
    clipped = np.clip(y, centre - width / 2, centre + width / 2)
    std = float(np.std(clipped))
    if std <= 0:
        raise ValueError("the clipped outputs have zero standard deviation; cannot normalise")
    normalisation = OutputNormalisation(
        centre, width, float(np.mean(clipped)), std, int(np.sum(clipped != y))
    )
    return (clipped - normalisation.mean) / std, normalisation


# --------------------------------------------------------------------------------------
# Cloaking matrix and the standard (Hall et al.) method
# --------------------------------------------------------------------------------------


def _training_factor(K_XX, noise_variance):
    """Cholesky factor of ``K + V`` (with reported jitter), validating both."""
    K = psd_matrix(K_XX, "K_XX")
    return cholesky_with_jitter(K + noise_matrix(noise_variance, len(K)), "K_XX + noise")


def cloaking_matrix(K_star_X, K_XX, noise_variance):
    """The cloaking matrix ``C = K_{*X} (K_XX + V)^{-1}`` [SMI §3].

    Predictions at the test points are ``C y``; changing output ``y_i`` by ``d`` moves
    them by ``d c_i`` (column i of C).

    Parameters
    ----------
    K_star_X : array_like, shape (m, n)
        Kernel between the m test and n training inputs.
    K_XX : array_like, shape (n, n)
        Kernel between the training inputs (positive semi-definite).
    noise_variance : float or array_like, shape (n, n)
        Observation-noise variance s2, or a noise covariance V.

    Returns
    -------
    C : ndarray, shape (m, n)
        Cloaking matrix, computed by Cholesky solves.
    jitter : float
        Diagonal jitter added to ``K + V`` (0.0 when none was needed).

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite entries, or ``K + V`` not positive definite.
    """
    L, jitter = _training_factor(K_XX, noise_variance)
    K_star_X = as_matrix(K_star_X, "K_star_X", shape=(None, len(L)))
    return linalg.cho_solve((L, True), K_star_X.T).T, jitter


def rkhs_sensitivity(K_XX, noise_variance, sensitivity, method="exact"):
    """Bound on the RKHS distance between posterior means of neighbouring data sets.

    With ``alpha = (K + V)^{-1} y``, changing ``y_j`` by ``d`` changes the posterior mean
    by ``d sum_i Kinv_ij k(x_i, .)``, whose RKHS norm is ``d sqrt([Kinv K Kinv]_jj)``.

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Kernel between the training inputs.
    noise_variance : float or array_like, shape (n, n)
        Observation-noise variance or covariance.
    sensitivity : float
        d, the largest change of one output (units of y).
    method : {"infinity_norm", "paper_refinement", "rigorous_refinement", "exact"}
        ``"infinity_norm"``: ``d ||Kinv||_inf`` [SMI eq. (4)], valid when ``|k| <= 1``.
        ``"paper_refinement"``: ``d max(max_j P_j, max_j N_j)`` with P_j, N_j the sums
        of the positive and negative parts of column j of Kinv ([SMI] §2, the authors'
        ``msense``). NOT a valid bound in general; kept to reproduce the paper.
        ``"rigorous_refinement"``: ``d max_j sqrt(P_j^2 + N_j^2)``, valid when
        0 <= k <= 1 (``dpgp_spec.md`` A.2).
        ``"exact"``: ``d sqrt(max_j [Kinv K Kinv]_jj)``, the exact sensitivity for
        these inputs, valid for any kernel (``dpgp_spec.md`` A.2).

    Returns
    -------
    float
        Delta_H (units of y, RKHS norm of the kernel K_XX comes from).

    Raises
    ------
    ValueError
        For an unknown method, a non-positive sensitivity, or kernel values outside
        the range a bound needs ([-1, 1] or [0, 1]).
    """
    if method not in RKHS_METHODS:
        raise ValueError(f"method must be one of {RKHS_METHODS}, got {method!r}")
    d = positive(sensitivity, "sensitivity")
    K = psd_matrix(K_XX, "K_XX")
    L, _ = _training_factor(K, noise_variance)
    Kinv = linalg.cho_solve((L, True), np.eye(len(K)))
    if method == "exact":
        return d * float(np.sqrt(max(np.max(np.sum((K @ Kinv) * Kinv, axis=0)), 0.0)))
    low = -1.0 if method == "infinity_norm" else 0.0
    if K.min() < low - 1e-12 or K.max() > 1 + 1e-12:
        raise ValueError(
            f"method {method!r} needs kernel values in [{low:g}, 1]; K_XX spans "
            f"[{K.min():.3g}, {K.max():.3g}] (normalise the kernel variance to 1)"
        )
    if method == "infinity_norm":
        return d * float(np.max(np.sum(np.abs(Kinv), axis=0)))
    P = np.sum(np.maximum(Kinv, 0.0), axis=0)
    N = np.sum(np.maximum(-Kinv, 0.0), axis=0)
    if method == "paper_refinement":
        return d * float(max(P.max(), N.max()))
    return d * float(np.max(np.hypot(P, N)))


def _posterior_mean(C, y, mean):
    """Predictions ``mean + C (y - mean)`` after checking y matches C."""
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != C.shape[1]:
        raise ValueError(f"y has {len(y)} entries but the training set has {C.shape[1]} points")
    return mean + C @ (y - mean)


def standard_release(
    kernel,
    noise_variance,
    X,
    y,
    X_star,
    epsilon,
    delta,
    sensitivity,
    seed=None,
    *,
    method="exact",
    mean=0.0,
    calibration="hall",
):
    """The standard DP-GP of Hall et al. (2013): posterior mean plus a scaled prior sample.

    Releases ``f*(X*) + Delta_H s G(X*)`` with ``G ~ GP(0, k)`` and
    ``s = noise_multiplier(epsilon, delta, calibration)``.

    Parameters
    ----------
    kernel : callable
        Kernel ``kernel(A, B)`` (e.g. :class:`ssa_privacy.gp.RBF` with variance 1).
    noise_variance : float or array_like, shape (n, n)
        Observation-noise variance s2 (normalised units) or covariance.
    X : array_like, shape (n, D) or (n,)
        Training inputs (public).
    y : array_like, shape (n,)
        Training outputs (private; clipped so that one changes by at most
        ``sensitivity``).
    X_star : array_like, shape (m, D) or (m,)
        Test inputs.
    epsilon, delta : float
        Privacy target.
    sensitivity : float
        d (units of y).
    seed : int or numpy.random.Generator, optional
        Randomness of the DP noise; None draws fresh entropy.
    method : str
        RKHS bound, see :func:`rkhs_sensitivity`.
    mean : float
        Constant prior mean (public).
    calibration : {"hall", "analytic"}
        See :func:`noise_multiplier`.

    Returns
    -------
    DPRelease
        Released predictions, noise covariance ``(Delta_H s)^2 (K_** + jitter I)`` and
        the check: the exact Gaussian-mechanism delta with Mahalanobis sensitivity
        ``Delta_H / (Delta_H s)``, valid on every finite test set because the
        Mahalanobis norm of a function difference at any test set is at most its RKHS
        norm (Hall et al. 2013, §3).

    Raises
    ------
    ValueError
        As :func:`rkhs_sensitivity` and :func:`noise_multiplier`, or on bad data.

    Notes
    -----
    [SMI] §2, eqs. (1)-(4); ``dpgp_spec.md`` A.2.
    """
    X, X_star = as_inputs(X), as_inputs(X_star, "X_star")
    K = kernel(X)
    C, jitter = cloaking_matrix(kernel(X_star, X), K, noise_variance)
    prediction = _posterior_mean(C, y, float(mean))
    Delta = rkhs_sensitivity(K, noise_variance, sensitivity, method)
    scale = Delta * noise_multiplier(epsilon, delta, calibration)
    L_star, prior_jitter = cholesky_with_jitter(kernel(X_star), "K_**")
    rng = _generator(seed)
    values = prediction + scale * (L_star @ rng.standard_normal(len(X_star)))
    covariance = scale**2 * (L_star @ L_star.T)
    m = Delta / scale if scale > 0 else 0.0
    check = gaussian_check(
        f"standard DP-GP (Hall et al. 2013), RKHS sensitivity '{method}'",
        m,
        epsilon,
        delta,
        calibration,
        rkhs_sensitivity=Delta,
    )
    return DPRelease(
        values,
        0.5 * (covariance + covariance.T),
        check,
        {
            "rkhs_sensitivity": Delta,
            "noise_scale": scale,
            "jitter": jitter,
            "prior_jitter": prior_jitter,
        },
    )


# --------------------------------------------------------------------------------------
# Cloaking: the optimal noise covariance
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CloakingSolution:
    """The minimum-volume ellipsoid enclosing the columns of the cloaking matrix.

    ``M = U S A S U^T + tau (I - U U^T)`` where ``U`` (m x r) and ``S`` (r x r) are the
    kept left singular vectors and values of C, ``A = sum_i lambda_i p_i p_i^T`` with
    ``p_i`` the kept right singular coordinates of column i, and ``tau`` covers the
    dropped directions.

    Attributes
    ----------
    basis : ndarray, shape (m, r)
        U, orthonormal basis of the kept column space of C.
    singular_values : ndarray, shape (r,)
        The kept singular values of C.
    design : ndarray, shape (r, r)
        A, the weighted design matrix in whitened coordinates.
    null_variance : float
        tau, the variance of M in the dropped directions (0 when none is needed).
    lambdas : ndarray, shape (n,)
        Dual variables lambda_i >= 0 (sum = r at the optimum).
    leverages : ndarray, shape (n,)
        ``c_i^T M^{-1} c_i`` including the dropped directions.
    duality_gap : float
        ``r ln(max(1, max_i g_i)) + sum_i lambda_i - r`` in the kept subspace, an upper
        bound on how far ``log|M|`` (rescaled to feasibility) is from the optimum.
    iterations : int
        Frank-Wolfe steps of the first phase of :func:`cloaking_dual`.
    """

    basis: np.ndarray
    singular_values: np.ndarray
    design: np.ndarray
    null_variance: float
    lambdas: np.ndarray
    leverages: np.ndarray
    duality_gap: float
    iterations: int

    @property
    def rank(self):
        """r, the number of kept directions."""
        return len(self.singular_values)

    @property
    def max_leverage(self):
        """``max_i c_i^T M^{-1} c_i`` (1 at the exact optimum up to the null-space share)."""
        return float(np.max(self.leverages))

    def covariance(self):
        """Return M as a dense symmetric (m, m) array."""
        U = self.basis
        B = U * self.singular_values
        dense = B @ self.design @ B.T + self.null_variance * (np.eye(len(U)) - U @ U.T)
        return 0.5 * (dense + dense.T)

    def sample(self, rng, size):
        """Draw ``size`` samples from N(0, M), shape (size, m)."""
        U = self.basis
        L = np.linalg.cholesky(self.design)
        kept = (rng.standard_normal((size, self.rank)) @ L.T) * self.singular_values @ U.T
        isotropic = rng.standard_normal((size, len(U)))
        null = isotropic - (isotropic @ U) @ U.T
        return kept + np.sqrt(self.null_variance) * null

    def mahalanobis_squared(self, C):
        """``c_i^T M^{-1} c_i`` for the columns of C, recomputed from the factors, shape (n,)."""
        U = self.basis
        whitened = (U.T @ C) / self.singular_values[:, None]
        kept = np.sum(whitened * linalg.cho_solve(linalg.cho_factor(self.design), whitened), axis=0)
        residual = np.sum((C - U @ (U.T @ C)) ** 2, axis=0)
        if self.null_variance > 0:
            return kept + residual / self.null_variance
        return kept


def _leverages(points, weights):
    """``g_i = p_i^T A^{-1} p_i``, ``A^{-1} P`` and ``log det A`` for ``A = sum_i w_i p_i p_i^T``."""
    try:
        factor = linalg.cho_factor((points * weights) @ points.T)
    except linalg.LinAlgError:
        raise ValueError("the cloaking columns do not span the kept subspace") from None
    W = linalg.cho_solve(factor, points)
    return W, np.sum(points * W, axis=0), 2.0 * float(np.sum(np.log(np.diag(factor[0]))))


def _frank_wolfe(points, target, max_iter, refresh=100):
    """Wolfe-Atwood / Todd-Yildirim Frank-Wolfe on the simplex until the gaps are <= target.

    Maximises ``log det A(u)`` with away and drop steps and exact line search;
    ``A^{-1} P`` is updated by rank-one (Sherman-Morrison) steps and refreshed from a
    new Cholesky factor every ``refresh`` steps. Returns the weights u, fresh
    ``g_i = p_i^T A(u)^{-1} p_i`` and the number of steps.
    """
    r, n = points.shape
    u = np.full(n, 1.0 / n)
    W, g, _ = _leverages(points, u)
    for iteration in range(max_iter):
        support = np.flatnonzero(u > 0)
        j, k = int(np.argmax(g)), int(support[np.argmin(g[support])])
        ascent, descent = g[j] / r - 1.0, 1.0 - g[k] / r
        if max(ascent, descent) <= target:
            break
        if ascent >= descent:
            index, t, drop = j, ascent / (g[j] - 1.0), False
        else:
            index, floor = k, -u[k] / (1.0 - u[k])
            t = floor if g[k] <= 1.0 else max((g[k] - r) / (r * (g[k] - 1.0)), floor)
            drop = t == floor
        if t >= 1.0:  # only for r = 1: the optimum is the single point of largest g
            u = np.zeros(n)
            u[index] = 1.0
            W, g, _ = _leverages(points, u)
            continue
        w = W[:, index].copy()
        W = (W - (t / (1.0 - t + t * g[index])) * np.outer(w, points.T @ w)) / (1.0 - t)
        u *= 1.0 - t
        u[index] = 0.0 if drop else u[index] + t
        if iteration % refresh == refresh - 1:
            W, g, _ = _leverages(points, u)
        else:
            g = np.sum(points * W, axis=0)
    return u, _leverages(points, u)[1], iteration


def _barrier(points, lambdas, tol, start_gap, newton_steps=60):
    """Log-barrier Newton method for ``min -log det M(lambda) + sum lambda`` over lambda > 0.

    ``M(lambda) = sum_i lambda_i p_i p_i^T``. The barrier weight mu starts at
    ``10 start_gap r / n`` (matching the accuracy of the warm start) and is divided by 10
    after each centring until ``n mu <= r tol / 10``. Newton steps are scaled by lambda.
    ``f / mu`` is self-concordant, so when its Newton decrement is at most 1/4 the full
    step stays feasible and converges quadratically (Boyd and Vandenberghe 2004,
    §9.6); otherwise the step is damped by a fraction-to-boundary rule and Armijo
    backtracking. A centring stops when the squared decrement is below ``1e-12``.
    """
    r, n = points.shape
    mu = max(10 * start_gap * r / n, r * tol / 10)
    lam = lambdas.copy()

    def barrier(weights):
        _, _, logdet = _leverages(points, weights)
        return -logdet + weights.sum() - mu * np.sum(np.log(weights))

    while True:
        for _ in range(newton_steps):
            W, g, logdet = _leverages(points, lam)
            gradient = 1.0 - g - mu / lam
            system = (lam[:, None] * (points.T @ W) ** 2 * lam[None, :]) + mu * np.eye(n)
            z = -linalg.solve(system, lam * gradient, assume_a="pos")
            decrement = -float(gradient @ (lam * z)) / mu
            if decrement <= 1e-12:
                break
            t = 1.0
            if decrement > 1.0 / 16:
                t = min(1.0, 0.99 / max(float(-z.min()), 1e-300))
                current = -logdet + lam.sum() - mu * np.sum(np.log(lam))
                while (
                    barrier(lam * (1.0 + t * z)) > current - 0.25 * t * mu * decrement and t > 1e-12
                ):
                    t /= 2
            lam = lam * (1.0 + t * z)
        if n * mu <= r * tol / 10:
            return lam
        mu /= 10


def cloaking_dual(points, tol=1e-8, max_iter=100_000):
    """Solve the cloaking dual ``min_{lambda >= 0} -log det M(lambda) + sum_i lambda_i``.

    ``M(lambda) = sum_i lambda_i p_i p_i^T`` is the dual of the minimum-volume
    origin-centred ellipsoid (a D-optimal design problem); at the optimum ``M`` is the
    smallest-volume matrix with ``p_i^T M^{-1} p_i <= 1`` for all i.

    1. Frank-Wolfe with away steps (Todd and Yildirim 2007) on the design weights
       ``u = lambda / r`` until the relative optimality gaps are below
       :data:`COARSE_GAP`.
    2. Points that cannot support the optimum by the bound of Harman and Pronzato
       (2007) are set aside.
    3. A log-barrier Newton method (:func:`_barrier`) solves the problem on the
       remaining candidates to high accuracy.
    4. The leverages of all points are recomputed; any set-aside point that violates
       ``p_i^T M^{-1} p_i <= 1 + tol`` is added back and step 3 repeated.

    It stops when the duality gap ``r ln(max(1, max_i g_i)) + sum_i lambda_i - r``
    (an upper bound on ``log|M_feasible| - log|M_opt|``) is at most ``r tol``.

    Parameters
    ----------
    points : ndarray, shape (r, n)
        Columns p_i spanning R^r.
    tol : float
        Relative tolerance of the duality gap.
    max_iter : int
        Limit on Frank-Wolfe steps.

    Returns
    -------
    lambdas : ndarray, shape (n,)
        Optimal dual variables (sum r at the optimum).
    g : ndarray, shape (n,)
        ``p_i^T M(lambda)^{-1} p_i``, recomputed from a fresh factorisation.
    gap : float
        The duality gap at the returned lambdas.
    iterations : int
        Frank-Wolfe steps used.

    Raises
    ------
    ValueError
        If the points do not span R^r.
    RuntimeError
        If the gap is not met and no set-aside point violates the constraints (a
        numerical failure; it does not happen in the tests).

    Notes
    -----
    [SMI] supplement eq. (6) and ``dpgp_spec.md`` A.3 step 3; Todd and Yildirim
    (2007), Discrete Appl. Math. 155; Harman and Pronzato (2007), Statist. Probab.
    Lett. 77; Boyd and Vandenberghe (2004) §11.3 (barrier method).
    """
    r, n = points.shape
    coarse = max(tol, COARSE_GAP)
    u, g_u, iterations = _frank_wolfe(points, coarse, max_iter)
    excess = max(float(g_u.max()) - r, 0.0)
    threshold = r * (1 + excess / 2 - np.sqrt(excess * (4 + excess - 4 / r)) / 2)
    candidates = (g_u >= threshold) | (u > 0)
    lambdas = np.zeros(n)
    while True:
        start = np.where(u[candidates] > 0, r * u[candidates], 1e-3 * r / n)
        lambdas[:] = 0.0
        lambdas[candidates] = _barrier(points[:, candidates], start, tol, coarse)
        _, g, _ = _leverages(points, lambdas)
        gap = r * np.log(max(1.0, float(g.max()))) + float(lambdas.sum()) - r
        if gap <= r * tol:
            return lambdas, g, gap, iterations
        violators = (g > 1.0) & ~candidates
        if not violators.any():
            raise RuntimeError(
                f"cloaking dual did not reach duality gap {r * tol:.3g} (got {gap:.3g})"
            )
        u = lambdas / r
        candidates |= violators


def optimal_cloaking_covariance(C, *, rtol=1e-8, tol=1e-8, max_iter=100_000):
    """The cloaking covariance M: minimise log|M| subject to ``c_i^T M^{-1} c_i <= 1``.

    The columns of C are first reduced to their numerical column space (singular
    values above ``rtol`` times the largest) and whitened; the problem is affine
    invariant, so the optimum is unchanged and the solver stays well conditioned. The
    dual (a D-optimal design) is solved by :func:`cloaking_dual`, giving
    ``M = sum_i lambda_i c_i c_i^T``. The dropped directions get
    variance ``tau = max(max_i ||P_perp c_i||^2, (ROUND_OFF s_max)^2) / NULL_SPACE_SHARE``,
    so that the components of the predictions there (including round-off) are also
    covered (their share of the Mahalanobis budget is at most ``NULL_SPACE_SHARE``).

    Parameters
    ----------
    C : array_like, shape (m, n)
        Cloaking matrix (columns c_i = effect of output i on the m predictions).
    rtol : float
        Relative singular-value cut-off of the rank reduction.
    tol : float
        Relative tolerance of the duality gap (see :func:`cloaking_dual`).
    max_iter : int
        Iteration limit of the solver.

    Returns
    -------
    CloakingSolution

    Raises
    ------
    ValueError
        If C is not a finite matrix, is zero, or rtol is not in (0, 1).
    RuntimeError
        If the solver does not converge.

    Notes
    -----
    [SMI] §3 and supplement ("Deriving and optimising the cloaking variables",
    eq. (6)); ``dpgp_spec.md`` A.3 steps 2-4. Optimality (KKT) conditions:
    ``c_i^T M^{-1} c_i <= 1`` with equality where ``lambda_i > 0`` and
    ``sum_i lambda_i = r``.
    """
    C = as_matrix(C, "C")
    open_interval(rtol, "rtol")
    U, s, Vt = np.linalg.svd(C, full_matrices=False)
    if s.size == 0 or s[0] <= 0:
        raise ValueError("C is zero: the predictions do not depend on the outputs")
    r = int(np.sum(s > rtol * s[0]))
    lambdas, g, gap, iterations = cloaking_dual(Vt[:r], tol=tol, max_iter=max_iter)
    design = (Vt[:r] * lambdas) @ Vt[:r].T
    residual = np.sum((s[r:, None] * Vt[r:]) ** 2, axis=0)
    round_off = (ROUND_OFF * s[0]) ** 2
    tau = float(max(residual.max(), round_off) / NULL_SPACE_SHARE) if r < C.shape[0] else 0.0
    leverages = g + (residual / tau if tau > 0 else 0.0)
    return CloakingSolution(
        U[:, :r], s[:r], 0.5 * (design + design.T), tau, lambdas, leverages, gap, iterations
    )


def cloaking_lambdas_gradient(C, *, learning_rate=0.05, tol=1e-5, max_iter=1000, seed=None):
    """The authors' fixed-step projected gradient descent for the cloaking dual.

    Minimises ``-log|M(lambda)| + sum_i lambda_i`` with ``M(lambda) = sum lambda_i c_i c_i^T``
    by ``lambda <- max(0, lambda - learning_rate (1 - c_i^T M^{-1} c_i))`` from
    ``lambda ~ U(0, 0.08)``, stopping when no lambda moves by more than ``tol``. It has
    no optimality guarantee; it is provided only as the baseline of
    ``benchmarks/bench_dp.py`` (use :func:`optimal_cloaking_covariance`).

    Parameters
    ----------
    C : array_like, shape (m, n)
        Cloaking matrix of full row rank.
    learning_rate, tol : float
        Step size and stopping threshold of the authors' code.
    max_iter : int
        Iteration limit.
    seed : int or numpy.random.Generator, optional
        Initialisation.

    Returns
    -------
    lambdas : ndarray, shape (n,)
    iterations : int
    max_leverage : float
        ``max_i c_i^T M^{-1} c_i`` at the returned lambdas (1 at the optimum).

    Raises
    ------
    ValueError
        If M(lambda) becomes singular (C rank deficient).

    Notes
    -----
    [SMI] supplement eq. (6); ``dpgp_spec.md`` A.3 step 4 (``findLambdas_grad``), with
    a Cholesky solve in place of the pseudo-inverse.
    """
    C = as_matrix(C, "C")
    lambdas = _generator(seed).uniform(0.0, 0.08, C.shape[1])

    def leverages(weights):
        try:
            factor = linalg.cho_factor((C * weights) @ C.T)
        except linalg.LinAlgError:
            raise ValueError("M(lambda) is singular: C is rank deficient") from None
        return np.sum(C * linalg.cho_solve(factor, C), axis=0)

    iteration = 0
    while iteration < max_iter:
        iteration += 1
        updated = np.maximum(0.0, lambdas - learning_rate * (1.0 - leverages(lambdas)))
        step = np.max(np.abs(updated - lambdas))
        lambdas = updated
        if step < tol:
            break
    return lambdas, iteration, float(np.max(leverages(lambdas)))


class CloakingMechanism:
    """The cloaking matrix and its optimal noise shape M, solved once for many releases.

    M depends only on the cloaking matrix C (kernel, noise and test inputs), not on
    epsilon, delta, the sensitivity or the outputs: a study releasing at several privacy
    levels or seeds solves the ellipsoid problem once and scales M per release.

    Parameters
    ----------
    K_star_X : array_like, shape (m, n)
        Kernel between test and training inputs.
    K_XX : array_like, shape (n, n)
        Kernel between training inputs.
    noise_variance : float or array_like, shape (n, n)
        Observation-noise variance (units of y squared) or covariance.
    rtol, tol : float
        Rank cut-off and solver tolerance, see :func:`optimal_cloaking_covariance`.

    Attributes
    ----------
    C : ndarray, shape (m, n)
        Cloaking matrix ``K_{*X} (K_XX + V)^{-1}``.
    jitter : float
        Jitter added to ``K_XX + V`` by :func:`cloaking_matrix`.
    solution : CloakingSolution
        Minimum-volume ellipsoid enclosing the columns of C.
    M : ndarray, shape (m, m)
        Its covariance (the noise shape).
    leverage : float
        ``max_i c_i^T M^{-1} c_i``, the larger of the solver's value and the one
        recomputed from the factors (the noise is scaled by its square root).

    Raises
    ------
    ValueError
        On bad shapes or values (see :func:`cloaking_matrix`).

    Notes
    -----
    [SMI] §3 and Algorithm 1; ``dpgp_spec.md`` A.3.
    """

    def __init__(self, K_star_X, K_XX, noise_variance, *, rtol=1e-8, tol=1e-8):
        self.C, self.jitter = cloaking_matrix(K_star_X, K_XX, noise_variance)
        self.solution = optimal_cloaking_covariance(self.C, rtol=rtol, tol=tol)
        self._recomputed = float(np.max(self.solution.mahalanobis_squared(self.C)))
        self.leverage = max(self.solution.max_leverage, self._recomputed)
        self.M = self.solution.covariance()

    def noise_scale(self, epsilon, delta, sensitivity, calibration="hall"):
        """Standard-deviation multiplier of M: ``d c(delta)/epsilon sqrt(leverage)``.

        Parameters and errors as :func:`cloaking_noise_covariance`.
        """
        d = positive(sensitivity, "sensitivity")
        return d * noise_multiplier(epsilon, delta, calibration) * np.sqrt(self.leverage)

    def noise_covariance(self, epsilon, delta, sensitivity, calibration="hall"):
        """The noise covariance ``noise_scale^2 M`` (see :func:`cloaking_noise_covariance`)."""
        return self.noise_scale(epsilon, delta, sensitivity, calibration) ** 2 * self.M

    def release(self, y, epsilon, delta, sensitivity, seed=None, *, mean=0.0, calibration="hall"):
        """One release ``mean + C (y - mean) + Z``, ``Z ~ N(0, noise_covariance)``.

        Parameters
        ----------
        y : array_like, shape (n,)
            Training outputs (private), clipped so that one can change by at most
            ``sensitivity``.
        epsilon, delta : float
            Privacy target (epsilon <= 1 for the default calibration).
        sensitivity : float
            d (units of y).
        seed : int or numpy.random.Generator, optional
            Randomness of the noise; None draws fresh entropy.
        mean : float
            Constant prior mean (public).
        calibration : {"hall", "analytic"}
            See :func:`noise_multiplier`.

        Returns
        -------
        DPRelease
            As :func:`cloaking_release`.

        Raises
        ------
        ValueError
            On a y that does not match C or bad privacy parameters.
        """
        scale = self.noise_scale(epsilon, delta, sensitivity, calibration)
        d = float(sensitivity)
        check = gaussian_check(
            "cloaking (Smith et al. 2018)",
            d * np.sqrt(self._recomputed) / scale,
            epsilon,
            delta,
            calibration,
            kept_rank=self.solution.rank,
            duality_gap=self.solution.duality_gap,
        )
        values = (
            _posterior_mean(self.C, y, float(mean))
            + scale * self.solution.sample(_generator(seed), 1)[0]
        )
        details = {
            "jitter": self.jitter,
            "rank": self.solution.rank,
            "iterations": self.solution.iterations,
            "duality_gap": self.solution.duality_gap,
            "max_leverage": self.solution.max_leverage,
            "noise_scale": scale,
            "sensitivity": d,
        }
        return DPRelease(values, scale**2 * self.M, check, details)

    def record(self):
        """Size and optimality (KKT) numbers of the design, as a dict for results files."""
        s = self.solution
        return {
            "test_points": self.C.shape[0],
            "training_points": self.C.shape[1],
            "kept_rank": s.rank,
            "support_size": int(np.sum(s.lambdas > 0)),
            "sum_lambdas": float(s.lambdas.sum()),
            "max_leverage": self.leverage,
            "duality_gap": s.duality_gap,
            "frank_wolfe_steps": s.iterations,
            "null_variance": s.null_variance,
            "jitter": self.jitter,
        }


def cloaking_noise_covariance(
    K_star_X,
    K_XX,
    noise_variance,
    sensitivity,
    epsilon,
    delta,
    *,
    calibration="hall",
    rtol=1e-8,
    tol=1e-8,
):
    """Covariance of the cloaking noise added to the test predictions [SMI §3].

    ``Sigma = (d s)^2 max_i(c_i^T M^{-1} c_i) M`` with ``s = c(delta)/epsilon`` and M from
    :func:`optimal_cloaking_covariance`: the worst-case change ``d c_i`` then has
    Mahalanobis norm at most ``epsilon / c(delta)``, which is Hall et al.'s condition
    for (epsilon, delta)-DP. The factor ``max_i c_i^T M^{-1} c_i`` enters without a square
    (``dpgp_spec.md`` A.3 step 5, a bug of the authors' code fixed here), so Sigma does
    not depend on the scale of M.

    Parameters
    ----------
    K_star_X : array_like, shape (m, n)
        Kernel between test and training inputs.
    K_XX : array_like, shape (n, n)
        Kernel between training inputs.
    noise_variance : float or array_like, shape (n, n)
        Observation-noise variance (units of y squared) or covariance.
    sensitivity : float
        d, largest change of one output (units of y).
    epsilon : float
        Privacy parameter, in (0, 1] for the default calibration.
    delta : float
        Privacy parameter in (0, 1).
    calibration : {"hall", "analytic"}
        See :func:`noise_multiplier`.
    rtol, tol : float
        Rank cut-off and solver tolerance, see :func:`optimal_cloaking_covariance`.

    Returns
    -------
    ndarray, shape (m, m)
        Sigma (units of y squared), symmetric positive semi-definite.

    Raises
    ------
    ValueError
        On bad shapes or values (see :func:`cloaking_matrix`, :func:`noise_multiplier`).
    """
    noise_multiplier(epsilon, delta, calibration)  # bad privacy parameters fail before the solve
    positive(sensitivity, "sensitivity")
    mechanism = CloakingMechanism(K_star_X, K_XX, noise_variance, rtol=rtol, tol=tol)
    return mechanism.noise_covariance(epsilon, delta, sensitivity, calibration)


def cloaking_release(
    kernel,
    noise_variance,
    X,
    y,
    X_star,
    epsilon,
    delta,
    sensitivity,
    seed=None,
    *,
    mean=0.0,
    calibration="hall",
    rtol=1e-8,
    tol=1e-8,
):
    """Release GP predictions at ``X_star`` with the cloaking mechanism [SMI §3, Alg. 1].

        Parameters
        ----------
        kernel : callable
            Kernel ``kernel(A, B)`` of the fitted GP (any positive semi-definite kernel).
        noise_variance : float or array_like, shape (n, n)
            The GP's observation-noise variance (units of y squared) or covariance.
        X : array_like, shape (n, D) or (n,)
            Training inputs (public).
        y : array_like, shape (n,)
            Training outputs (private). They must be clipped so that one output can change
            by at most ``sensitivity``.
        X_star : array_like, shape (m, D) or (m,)
            Test inputs, fixed before the release.
        epsilon, delta : float
            Privacy target (epsilon <= 1 for the default calibration).
        sensitivity : float
            d (units of y).
        seed : int or numpy.random.Generator, optional
            Randomness of the DP noise; None draws fresh entropy.
        mean : float
            Constant prior mean (treated as public).
        calibration : {"hall", "analytic"}
            See :func:`noise_multiplier`.
        rtol, tol : float
            Rank cut-off and solver tolerance, see :func:`optimal_cloaking_covariance`.

        Returns
        -------
        DPRelease
            ``values`` = one draw of ``mean + C (y - mean) + Z``, ``Z ~ N(0, Sigma)``;
            ``noise_covariance`` = Sigma; ``check`` = the exact Gaussian-mechanism delta at
            the worst-case neighbour, recomputed from the final Sigma; ``details`` holds
            the jitter, kept rank, solver iterations and duality gap.

        Raises
        ------
        ValueError
            On bad shapes or values.

        Examples
        --------
        >>> from ssa_privacy.privacy.accounting import (  # noqa: F401
        CALIBRATIONS,
        c_delta,
        gaussian_mechanism_delta,
        noise_multiplier,
        privacy_loss_tail,
    )
    from ssa_privacy.gp import RBF
        >>> release = cloaking_release(RBF(1.0), 0.5, [0, 1, 2, 3, 4], [0.5, 1, -0.3, 0.2, 0.9],
        ...                            [0.5, 2.5], epsilon=1.0, delta=0.01, sensitivity=1.0, seed=0)
        >>> release.check.passed
        True
    """
    X, X_star = as_inputs(X), as_inputs(X_star, "X_star")
    noise_multiplier(epsilon, delta, calibration)  # bad privacy parameters fail before the solve
    positive(sensitivity, "sensitivity")
    mechanism = CloakingMechanism(kernel(X_star, X), kernel(X), noise_variance, rtol=rtol, tol=tol)
    return mechanism.release(
        y, epsilon, delta, sensitivity, seed, mean=mean, calibration=calibration
    )


# --------------------------------------------------------------------------------------
# Binning with the Laplace mechanism
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BinnedRelease:
    """DP bin means from the Laplace mechanism [SMI §4].

    Attributes
    ----------
    edges : list of ndarray
        Bin edges per input dimension; bins are the half-open boxes of the grid.
    counts : ndarray, shape (B,)
        Training points per bin (public, the inputs are public).
    values : ndarray, shape (B,)
        DP bin means (units of y); NaN for empty bins (nothing released).
    laplace_scales : ndarray, shape (B,)
        Laplace scale ``d / (n_b epsilon)`` per bin (NaN for empty bins).
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
    if dimension == 1 and np.ndim(edges[0]) == 0:
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


def laplace_bin_means(X, y, edges, epsilon, sensitivity, seed=None):
    """DP means of the outputs in axis-aligned bins with the Laplace mechanism.

    Each occupied bin b releases ``ybar_b + Laplace(d / (n_b epsilon))``; one output
    changes one bin mean by at most ``d / n_b`` (counts are public), and the bins are
    disjoint, so the release is epsilon-DP by parallel composition.

    Parameters
    ----------
    X : array_like, shape (n, D) or (n,)
        Training inputs (public); each must fall inside the grid.
    y : array_like, shape (n,)
        Training outputs (private, clipped to a window of width ``sensitivity``).
    edges : array_like or sequence of array_like
        Strictly increasing bin edges, one array per input dimension (a single array
        for 1-D inputs). Bins are half-open ``[e_k, e_{k+1})``; the authors' code used
        closed bins and could count a point twice (``dpgp_spec.md`` D.4).
    epsilon : float
        Privacy parameter (> 0).
    sensitivity : float
        d (units of y).
    seed : int or numpy.random.Generator, optional
        Randomness of the noise; None draws fresh entropy.

    Returns
    -------
    BinnedRelease

    Raises
    ------
    ValueError
        On bad edges, mismatched data, or training inputs outside the grid.

    Notes
    -----
    [SMI] §4; Dwork and Roth (2014) §3.3; ``dpgp_spec.md`` A.4.
    """
    X = as_inputs(X)
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)} rows")
    epsilon, d = positive(epsilon, "epsilon"), positive(sensitivity, "sensitivity")
    edges = _edges(edges, X.shape[1])
    index = _bin_index(X, edges)
    if np.any(index < 0):
        raise ValueError(f"{np.sum(index < 0)} training inputs fall outside the bin edges")
    n_bins = int(np.prod([len(e) - 1 for e in edges]))
    counts = np.bincount(index, minlength=n_bins)
    occupied = counts > 0
    means = np.full(n_bins, np.nan)
    means[occupied] = np.bincount(index, weights=y, minlength=n_bins)[occupied] / counts[occupied]
    scales = np.full(n_bins, np.nan)
    scales[occupied] = d / (counts[occupied] * epsilon)
    values = means + np.where(
        occupied, _generator(seed).laplace(0.0, np.nan_to_num(scales)), np.nan
    )
    loss = float(np.max((d / counts[occupied]) / scales[occupied]))
    check = PrivacyCheck(
        "Laplace bin means, parallel composition over disjoint bins",
        epsilon,
        0.0,
        loss <= epsilon * (1 + CHECK_RTOL),
        {"max_privacy_loss": loss, "occupied_bins": int(occupied.sum())},
    )
    return BinnedRelease(edges, counts, values, scales, check)


def simple_binning_predict(binned, X_star, fill=0.0):
    """Predict with the DP mean of the bin holding each test point [SMI §4].

    Parameters
    ----------
    binned : BinnedRelease
        Output of :func:`laplace_bin_means`.
    X_star : array_like, shape (m, D) or (m,)
        Test inputs.
    fill : float
        Prediction for empty bins and points outside the grid (the population mean;
        0 for normalised outputs).

    Returns
    -------
    ndarray, shape (m,)
        Post-processed DP predictions (same guarantee as ``binned``).
    """
    index = _bin_index(as_inputs(X_star, "X_star"), binned.edges)
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
    data" (the integral kernel used by [SMI] §4); ``dpgp_spec.md`` A.4.
    """

    lengthscale: float = 1.0
    variance: float = 1.0

    def __post_init__(self):
        positive(self.lengthscale, "lengthscale")
        positive(self.variance, "variance")

    @staticmethod
    def _split(A, name):
        A = as_matrix(A, name)
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
        """Return the kernel matrix between the rows of A and B, shape (nA, nB)."""
        lA, uA, boxA = self._split(A, "A")
        lB, uB, boxB = (lA, uA, boxA) if B is None else self._split(B, "B")
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
    """Predict from DP bin means with an integral-kernel GP [SMI §4, "integral binning"].

    Occupied bins become observations of the integral of the latent function over the
    bin, ``(value_b - offset) vol_b`` with ``offset`` the mean DP bin value, with the
    known Laplace noise variance ``2 (d / (n_b epsilon))^2 vol_b^2`` plus a fitted
    Gaussian noise variance. The kernel length scale, variance and that noise are fitted
    by maximum likelihood (L-BFGS-B, log parameters, several starts). Everything uses
    only the DP release, so the predictions are post-processing.

    Parameters
    ----------
    binned : BinnedRelease
        Output of :func:`laplace_bin_means`.
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
    ValueError
        If fewer than two bins are occupied or every start fails.

    Notes
    -----
    ``dpgp_spec.md`` A.4 (``DPGP_integral_histogram``).
    """
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
    rng = _generator(seed)
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
    X_star = as_inputs(X_star, "X_star")
    if X_star.shape[1] != lower.shape[1]:
        raise ValueError(f"X_star has {X_star.shape[1]} columns, the bins {lower.shape[1]}")
    mean, _ = model(best.x).fit(boxes, targets).predict(np.hstack([X_star, X_star]))
    return mean + offset


# --------------------------------------------------------------------------------------
# DP hyperparameter selection with the exponential mechanism
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HyperparameterSelection:
    """Result of :func:`select_hyperparameters`.

    Attributes
    ----------
    candidates : ndarray, shape (G, 2)
        Grid of (lengthscale, noise variance) pairs.
    utilities : ndarray, shape (G,)
        u(theta) = -(clamped cross-validation SSE + expected DP-noise energy).
    utility_sensitivity : float
        Delta_u, the largest change of any utility between neighbouring data sets.
    probabilities : ndarray, shape (G,)
        Selection probabilities ``prop. to exp(epsilon u / (2 Delta_u))``.
    index : int
        The selected candidate.
    check : PrivacyCheck
        Pure epsilon-DP of the selection (exponential mechanism).
    """

    candidates: np.ndarray
    utilities: np.ndarray
    utility_sensitivity: float
    probabilities: np.ndarray
    index: int
    check: PrivacyCheck

    @property
    def lengthscale(self):
        """Selected length scale (input units)."""
        return float(self.candidates[self.index, 0])

    @property
    def noise_variance(self):
        """Selected noise variance (normalised units)."""
        return float(self.candidates[self.index, 1])


def _fold_terms(X, y, train, test, lengthscale, noise_variance, d, bound, release):
    """Clamped SSE, expected noise energy and per-point SSE sensitivity of one fold."""
    kernel = RBF(lengthscale)
    K_star_X, K_XX = kernel(X[test], X[train]), kernel(X[train])
    C, _ = cloaking_matrix(K_star_X, K_XX, noise_variance)
    residual = np.clip(y[test] - C @ y[train], -bound, bound)
    energy = 0.0
    if release is not None:
        energy = float(
            np.trace(
                cloaking_noise_covariance(K_star_X, K_XX, noise_variance, d, *release, tol=1e-6)
            )
        )
    per_point = np.full(len(X), min(2 * bound * d, bound**2))
    per_point[train] = np.sum(np.minimum(2 * bound * d * np.abs(C), bound**2), axis=0)
    return float(residual @ residual) + energy, per_point


def select_hyperparameters(
    X,
    y,
    lengthscales,
    noise_variances,
    *,
    epsilon,
    sensitivity,
    residual_bound=None,
    folds=20,
    test_fraction=0.1,
    release=None,
    seed=None,
    progress=False,
):
    """DP choice of an RBF length scale and noise variance by the exponential mechanism.

    The utility of a candidate theta is ``u(theta) = -(SSE(theta) + E(theta))``. SSE is
    the sum over ``folds`` Monte-Carlo cross-validation splits (drawn from public
    indices) of squared test residuals of the posterior mean, each residual clamped to
    ``[-B, B]``. E is the expected energy ``tr(Sigma_k)`` of the cloaking noise the
    regression release will add at the fold's test points (it depends only on the
    public inputs; [SMI] Fig. 4 shows the selection reacting to the release epsilon).

    Sensitivity: changing ``y_j`` by at most d changes a clamped squared residual by at
    most ``min(2 B |delta r|, B^2)``. If j is a training point of fold k the residuals
    move by ``d |C^(k)_tj|``; if j is a test point its own residual moves by d. So::

        Delta_SSE(theta) = max_j sum_k [ j in test_k ? min(2Bd, B^2)
                                         : sum_t min(2 B d |C^(k)_tj|, B^2) ]

    and ``Delta_u = max_theta Delta_SSE(theta)``. This per-point sum is valid for
    Monte-Carlo splits where a point can be tested in several folds (the paper's
    formula assumes each point is tested once; ``dpgp_spec.md`` A.5).

    Parameters
    ----------
    X : array_like, shape (n, D) or (n,)
        Training inputs (public).
    y : array_like, shape (n,)
        Normalised, clipped outputs (private).
    lengthscales : array_like, shape (a,)
        Candidate RBF length scales (input units); kernel variance 1.
    noise_variances : array_like, shape (b,)
        Candidate noise variances (normalised units).
    epsilon : float
        Privacy budget of the selection (pure DP).
    sensitivity : float
        d (normalised units).
    residual_bound : float, optional
        Clamp B on residuals (normalised units); default d.
    folds : int
        Number of Monte-Carlo cross-validation splits.
    test_fraction : float
        Fraction of points in each test split.
    release : tuple of (epsilon, delta), optional
        Privacy target of the later cloaking release, to include E(theta).
    seed : int or numpy.random.Generator, optional
        Randomness of the splits and of the selection; None draws fresh entropy.
    progress : bool
        Show a tqdm progress bar over candidates.

    Returns
    -------
    HyperparameterSelection

    Raises
    ------
    ValueError
        On empty grids, non-positive values, or a bad split fraction.

    Notes
    -----
    [SMI] supplement, "Hyperparameter selection"; McSherry and Talwar (2007);
    ``dpgp_spec.md`` A.5. The clamp and the exact sensitivity expression are stripped
    from the paper text; this is a rigorous reconstruction.
    """
    X = as_inputs(X)
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)} rows")
    epsilon, d = positive(epsilon, "epsilon"), positive(sensitivity, "sensitivity")
    bound = d if residual_bound is None else positive(residual_bound, "residual_bound")
    open_interval(test_fraction, "test_fraction")
    grid = np.array(
        [
            (positive(l, "lengthscales"), positive(s, "noise_variances"))
            for l in np.atleast_1d(lengthscales)
            for s in np.atleast_1d(noise_variances)
        ]
    )
    if len(grid) == 0 or folds < 1:
        raise ValueError("need at least one candidate and one fold")
    rng = _generator(seed)
    n_test = max(1, int(round(test_fraction * len(X))))
    splits = [np.split(rng.permutation(len(X)), [n_test]) for _ in range(folds)]
    utilities, sensitivities = np.empty(len(grid)), np.empty(len(grid))
    for g, (l, s2) in enumerate(tqdm(grid, disable=not progress, desc="candidates", leave=False)):
        terms = [_fold_terms(X, y, train, test, l, s2, d, bound, release) for test, train in splits]
        utilities[g] = -sum(t[0] for t in terms)
        sensitivities[g] = float(np.max(np.sum([t[1] for t in terms], axis=0)))
    Delta_u = float(sensitivities.max())
    logits = epsilon * utilities / (2 * Delta_u)
    probabilities = np.exp(logits - special.logsumexp(logits))
    index = int(rng.choice(len(grid), p=probabilities))
    check = PrivacyCheck(
        "exponential mechanism (McSherry and Talwar 2007) on -SSE",
        epsilon,
        0.0,
        bool(np.isfinite(Delta_u) and Delta_u > 0),
        {"utility_sensitivity": Delta_u, "folds": folds, "residual_bound": bound},
    )
    return HyperparameterSelection(grid, utilities, Delta_u, probabilities, index, check)
