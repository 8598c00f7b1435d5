"""The standard DP-GP of Hall et al. (2013) [SMI] §2: posterior mean plus a scaled prior sample.

The posterior mean of a GP is a function in the kernel's RKHS; changing one private
output by at most d moves it by at most the RKHS sensitivity ``Delta_H``
(:func:`rkhs_sensitivity`, four bounds). Adding ``Delta_H s G`` with ``G ~ GP(0, k)``
makes the whole function (epsilon, delta)-DP when ``s`` is the Gaussian-mechanism
multiplier at unit sensitivity, because at any finite set of test inputs the
Mahalanobis norm of a function difference under the prior covariance is at most its
RKHS norm. :class:`StandardDPGPMechanism` releases it at fixed test inputs; the theory
is on :doc:`/theory/dp-gp`.
"""

import copy

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import psd_matrix
from ssa_privacy._internal.validation import positive, scalar
from ssa_privacy.gp.regression import cholesky_with_jitter
from ssa_privacy.privacy.accounting import analytic_gaussian_ratio, noise_multiplier
from ssa_privacy.privacy.dp_gp.release import (
    _kernel_blocks,
    _posterior_mean,
    _representable_scale,
    _training_factor,
    cloaking_matrix,
    gaussian_check,
    least_inflation,
)
from ssa_privacy.privacy.mechanism import FactoredCovariance, Release, as_factored, generator
from ssa_privacy.privacy.rounding import (
    EXTRA,
    INFLATE,
    UNIT_ROUNDOFF,
    cholesky_lower_bound,
    gamma,
)

__all__ = [
    "JITTER_FLOOR",
    "RKHS_METHODS",
    "StandardDPGPMechanism",
    "prior_noise_scale",
    "rkhs_sensitivity",
]

#: Names of the RKHS-sensitivity bounds of the standard method (see :func:`rkhs_sensitivity`).
RKHS_METHODS = ("infinity_norm", "paper_refinement", "rigorous_refinement", "exact")
#: The jitter of the noise shape ``K_** + jitter I`` is at least this multiple of
#: ``gamma_{m+2} ||K_**||_inf``, the order of the rounding error of forming the noise
#: covariance: then ``c^2 K_** <= Sigma`` can be proven where K_** is numerically singular.
JITTER_FLOOR = 64.0
#: Largest number of Cholesky tests of the lower end of the prior noise scale.
_MAX_TESTS = 32


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
        ``"infinity_norm"``: ``d ||Kinv||_inf`` ([SMI] eq. (4)), valid when ``|k| <= 1``.
        ``"paper_refinement"``: ``d max(max_j P_j, max_j N_j)`` with P_j, N_j the sums
        of the positive and negative parts of column j of Kinv ([SMI] §2, the authors'
        ``msense``). NOT a valid bound in general; kept to reproduce the paper.
        ``"rigorous_refinement"``: ``d max_j sqrt(P_j^2 + N_j^2)``, valid when
        0 <= k <= 1.
        ``"exact"``: ``d sqrt(max_j [Kinv K Kinv]_jj)``, the exact sensitivity for
        these inputs, valid for any kernel; at most ``d / (2 sqrt(s2))``.

    Returns
    -------
    float
        Delta_H (units of y, RKHS norm of the kernel K_XX comes from).

    Raises
    ------
    ValueError
        For an unknown method, a non-positive sensitivity, or kernel values outside
        the range a bound needs ([-1, 1] or [0, 1]).

    Notes
    -----
    [SMI] §2, eqs. (1)-(4); the derivations of the four bounds are on
    :doc:`/theory/dp-gp`.
    """
    if not isinstance(method, str) or method not in RKHS_METHODS:
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


def _description(method):
    return f"standard DP-GP (Hall et al. 2013), RKHS sensitivity '{method}'"


class StandardDPGPMechanism:
    """Hall et al.'s DP-GP at fixed test inputs: posterior mean plus a scaled prior sample.

    Releases ``f(X*) + Z``, ``Z ~ N(0, Sigma)``, ``Sigma = (Delta_H s (1 + tau))^2 P S^2
    P^T`` with ``P S Q^T`` the SVD of the Cholesky factor of ``K_** + jitter I`` (the
    prior sample ``G(X*)`` of Hall et al., scaled), ``Delta_H`` the RKHS sensitivity,
    ``s = noise_multiplier(epsilon, delta, calibration)`` and ``1 + tau`` the least
    inflation tried that makes the certificate pass
    (:func:`~ssa_privacy.privacy.dp_gp.release.least_inflation`; usually 1, as the jitter
    leaves a margin of its own even at the tight analytic calibration). The jitter is at
    least ``JITTER_FLOOR gamma_{m+2} ||K_**||_inf`` (2.5e-11 on the !Kung grid of 100
    ages).

    The certificate recomputes, from the noise covariance Sigma actually used, the
    largest ``c`` with ``c^2 K_** <= Sigma`` (Loewner order), enclosed rigorously
    (:func:`prior_noise_scale`): the noise is then Hall's prior-shaped noise of scale c
    plus independent noise, and the worst shift has Mahalanobis norm at most ``Delta_H
    / c`` at any test inputs.

    Parameters
    ----------
    K_star_X : array_like, shape (m, n)
        Kernel between test and training inputs.
    K_XX : array_like, shape (n, n)
        Kernel between training inputs.
    noise_variance : float or array_like, shape (n, n)
        Observation-noise variance (units of y squared) or covariance.
    K_star_star : array_like, shape (m, m)
        Prior covariance (kernel) of the test inputs.
    epsilon : float
        Privacy parameter (> 0; at most 1 for ``calibration="hall"``).
    delta : float
        Privacy parameter in (0, 1).
    sensitivity : float
        d, the largest change of one output between neighbours (units of y).
    method : {"exact", "infinity_norm", "paper_refinement", "rigorous_refinement"}
        The RKHS sensitivity bound, see :func:`rkhs_sensitivity` (``"paper_refinement"``
        is not a valid bound; it reproduces the paper).
    calibration : {"analytic", "hall"}
        See :func:`~ssa_privacy.privacy.accounting.noise_multiplier`.
    mean : float
        Constant prior mean (public).

    Attributes
    ----------
    C : ndarray, shape (m, n)
        ``K_{*X} (K_XX + V)^{-1}``: the posterior mean at X* is ``mean + C (y - mean)``.
    rkhs_sensitivity : float
        Delta_H (units of y).
    scale : float
        ``Delta_H s``, Hall's multiplier of the prior sample (without ``1 + tau``).
    inflation : float
        ``1 + tau`` (1 after :meth:`with_noise`).
    noise_scale : float or None
        ``Delta_H s (1 + tau)``, the multiplier of the prior sample the noise was designed
        with (units of y); None after :meth:`with_noise`, whose noise has no such scale.
    prior_factor : ndarray, shape (m, m)
        Cholesky factor of ``K_** + prior_jitter I``.
    prior_jitter : float
        Jitter added to ``K_**``: the least of the ladder of
        :func:`~ssa_privacy.gp.regression.cholesky_with_jitter` that factorises, raised to the
        floor above.
    noise_covariance : FactoredCovariance
        The noise covariance used by :meth:`release`.

    Raises
    ------
    ValueError
        On bad shapes or values, bad privacy parameters, or kernel values outside the
        range the chosen bound needs.

    Notes
    -----
    [SMI] §2, eqs. (1)-(5); Hall, Rinaldo and Wasserman (2013), Proposition 3 and §4.1;
    :doc:`/theory/dp-gp`.

    Examples
    --------
    >>> from ssa_privacy.gp.kernels import RBF
    >>> from ssa_privacy.privacy.dp_gp.hall import StandardDPGPMechanism
    >>> mech = StandardDPGPMechanism.from_kernel(
    ...     RBF(1.0), 0.5, [0.0, 1, 2, 3, 4], [0.5, 2.5, 3.5], 1.0, 0.01, sensitivity=1.0)
    >>> release = mech.release([0.5, 1.0, -0.3, 0.2, 0.9], seed=0)
    >>> release.values.shape, release.certificate.passed
    ((3,), True)
    >>> mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed
    False
    """

    def __init__(
        self,
        K_star_X,
        K_XX,
        noise_variance,
        K_star_star,
        epsilon,
        delta,
        sensitivity,
        *,
        method="exact",
        calibration="analytic",
        mean=0.0,
    ):
        multiplier = noise_multiplier(epsilon, delta, calibration)
        self.epsilon, self.delta, self.calibration = float(epsilon), float(delta), calibration
        self.sensitivity = positive(sensitivity, "sensitivity")
        if not isinstance(method, str) or method not in RKHS_METHODS:
            raise ValueError(f"method must be one of {RKHS_METHODS}, got {method!r}")
        self.method, self.mean = method, scalar(mean, "mean")
        self.C, self.jitter = cloaking_matrix(K_star_X, K_XX, noise_variance)
        self.rkhs_sensitivity = rkhs_sensitivity(K_XX, noise_variance, sensitivity, method)
        self._prior = psd_matrix(K_star_star, "K_star_star", size=self.C.shape[0])
        self.prior_factor, self.prior_jitter = _prior_factor(self._prior)
        self.scale = _representable_scale(self.rkhs_sensitivity * multiplier)
        self._design()

    def _design(self):
        """The noise ``(scale (1 + tau))^2 P S^2 P^T``, inflated until certified."""
        P, S, _ = linalg.svd(self.prior_factor)

        def noise(factor):
            keep = self.scale * factor * S > 0
            return FactoredCovariance((self.scale * factor * S[keep]) ** 2, P[:, keep], "prior")

        def certify(factor):
            return self._certificate(noise(factor), factor)

        root = analytic_gaussian_ratio(self.epsilon, self.delta)
        self.inflation = least_inflation(certify, root)[0]
        self.noise_scale = self.scale * self.inflation
        self.noise_covariance = noise(self.inflation)

    @classmethod
    def from_kernel(cls, kernel, noise_variance, X, X_star, epsilon, delta, sensitivity, **options):
        """The mechanism of a GP with kernel ``kernel(A, B)`` at the test inputs X_star.

        Parameters
        ----------
        kernel : callable
            Kernel ``kernel(A, B)`` (e.g. :class:`ssa_privacy.gp.kernels.RBF` with variance 1).
        noise_variance : float or array_like, shape (n, n)
            Observation-noise variance (units of y squared) or covariance.
        X : array_like, shape (n, D) or (n,)
            Training inputs (public).
        X_star : array_like, shape (m, D) or (m,)
            Test inputs.
        epsilon, delta, sensitivity : float
            The privacy level, as in the constructor.
        **options
            Keyword options of the constructor (``method``, ``calibration``, ``mean``).

        Returns
        -------
        StandardDPGPMechanism
            Built from ``kernel(X_star, X)``, ``kernel(X)`` and ``kernel(X_star)``.

        Raises
        ------
        TypeError
            If ``kernel`` is not callable, and as the constructor.
        ValueError
            If X or X_star is empty or not finite, they have different numbers of
            columns, the kernel returns an array of the wrong shape or non-finite values,
            and as the constructor.
        """
        K_star_X, K_XX, K_star = _kernel_blocks(kernel, X, X_star, test_prior=True)
        return cls(K_star_X, K_XX, noise_variance, K_star, epsilon, delta, sensitivity, **options)

    def certificate(self):
        """The (epsilon, delta)-DP guarantee, recomputed from the noise covariance.

        Returns
        -------
        Certificate
            From :func:`~ssa_privacy.privacy.dp_gp.release.gaussian_check` with the
            Mahalanobis sensitivity ``Delta_H / c`` and its rounding error, c the largest
            scale with ``c^2 K_** <= Sigma`` enclosed by :func:`prior_noise_scale`.
            Evidence adds ``rkhs_sensitivity``, ``prior_noise_scale`` (c) with its
            ``_lower`` and ``_upper`` ends, and ``design_inflation`` (1 for an audited
            noise).
        """
        return self._certificate(self.noise_covariance, self.inflation)

    def _certificate(self, noise, inflation):
        """The certificate of ``noise``; ``inflation`` is recorded."""
        c, lower, upper = prior_noise_scale(self._prior, noise)
        Delta = self.rkhs_sensitivity
        m, error = _scale_to_sensitivity(Delta, c, lower, upper)
        return gaussian_check(
            _description(self.method),
            m,
            self.epsilon,
            self.delta,
            self.calibration,
            sensitivity_error=error,
            rkhs_sensitivity=Delta,
            prior_noise_scale=c,
            prior_noise_scale_lower=lower,
            prior_noise_scale_upper=upper,
            design_inflation=inflation,
        )

    def with_noise(self, noise_covariance):
        """The same mechanism adding another noise (for audits).

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like, shape (m, m)
            The noise covariance to use (squared units of y).

        Returns
        -------
        StandardDPGPMechanism
            Releases draw from ``noise_covariance``; certificates are recomputed from it;
            ``noise_scale`` is None and ``inflation`` 1 (they describe a designed noise).
        """
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, self.C.shape[0], "noise_covariance")
        other.noise_scale, other.inflation = None, 1.0
        return other

    def release(self, y, *, seed=None):
        """One release ``mean + C (y - mean) + Z``, Z the mechanism's noise.

        Parameters
        ----------
        y : array_like, shape (n,)
            Training outputs (private), clipped so that one changes by at most d.
        seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness of the noise; None draws fresh entropy.

        Returns
        -------
        Release
            ``values`` of shape (m,), the noise drawn as ``P (sqrt(lambda) * z)`` from the
            factors of ``noise_covariance`` (the covariance the certificate certifies);
            ``details`` holds the RKHS sensitivity, ``noise_scale`` (``Delta_H s (1 +
            tau)``; None after :meth:`with_noise`), ``noise_inflation`` and the two
            jitters.

        Raises
        ------
        ValueError
            If y does not match the training set.
        TypeError
            On a bad seed.
        """
        rng, seed_keys = generator(seed)
        prediction = _posterior_mean(self.C, y, self.mean)
        noise = self.noise_covariance.sample(rng)
        details = {
            "rkhs_sensitivity": self.rkhs_sensitivity,
            "noise_scale": self.noise_scale,
            "noise_inflation": self.inflation,
            "jitter": self.jitter,
            "prior_jitter": self.prior_jitter,
        }
        return Release(
            prediction + noise, self.noise_covariance, self.certificate(), seed_keys, details
        )


def _rowsum(A):
    """``max_i sum_j |A_ij|``, an upper bound on ``||A||_2`` for a symmetric A."""
    return float(np.max(np.sum(np.abs(A), axis=1))) if A.size else 0.0


def _prior_factor(K):
    """Cholesky factor of ``K + jitter I``, the jitter at least the floor (see JITTER_FLOOR)."""
    L, jitter = cholesky_with_jitter(K, "K_**")
    floor = JITTER_FLOOR * gamma(len(K) + EXTRA) * _rowsum(K)
    if jitter >= floor:
        return L, jitter
    try:
        return cholesky_with_jitter(K, "K_**", jitter=floor)
    except ValueError:
        return L, jitter


def prior_noise_scale(K_star_star, noise_covariance):
    """The largest c with ``c^2 K_** <= Sigma`` (Loewner order), with a rigorous enclosure.

    Parameters
    ----------
    K_star_star : ndarray, shape (m, m)
        Prior covariance of the test inputs, symmetric, taken exactly as stored
        (squared units of y per unit of RKHS norm).
    noise_covariance : FactoredCovariance
        ``Sigma = V diag(lambda) V^T`` of dimension m, taken exactly from its factors
        (eigenvalues <= 0 contribute nothing).

    Returns
    -------
    c : float
        The estimate ``min_x sqrt(x^T Sigma x / x^T K_** x)`` over two trial x, the top
        eigenvector of K_** and the top generalised eigenvector of the pencil (computed
        in floating point); 0 if no quotient is positive.
    lower, upper : float
        ``lower <= c_exact <= upper`` for the exact largest c of the stored inputs
        (``upper`` may be inf, ``lower`` 0).

    Raises
    ------
    TypeError
        If ``noise_covariance`` is not a FactoredCovariance.
    ValueError
        If ``K_star_star`` is not a finite symmetric matrix of the noise's dimension.

    Notes
    -----
    *Upper end.* ``c_exact^2 <= x^T Sigma x / x^T K x`` for any x with ``x^T K x > 0``.
    ``x^T Sigma x = sum_k lambda_k (v_k^T x)^2`` is bounded above with ``|y^ - V^T x| <=
    gamma_{m+2} |V|^T |x|`` and ``x^T K x`` below with an error of at most ``gamma_{2m+2}
    |x|^T |K| |x|`` (Higham (3.13)).

    *Lower end.* For a trial ``c^2 = c_est^2 (1 - mu)``, mu = 4 gamma_{m+2}, 16
    gamma_{m+2}, ... (up to c = 0), ``T = fl(fl(Sigma) - c^2 K)`` is formed with
    ``fl(Sigma) = fl((V lambda) V^T)`` off by at most ``gamma_{r+2} |V| Lambda |V|^T``
    entrywise, whose 2-norm is at most ``min(sum_k lambda_k ||v_k||^2, max row sum)``,
    and the product and the difference off by ``u (c^2 |K| + |T|)``; a successful
    Cholesky factorisation of T shifted down by these errors and by its own backward
    error (Higham Theorem 10.3, :func:`~ssa_privacy.privacy.rounding.cholesky_lower_bound`)
    proves ``Sigma - c^2 K >= 0`` (Rump 2006). The jitter floor of the design keeps the
    directions where K_** is numerically singular above these errors.
    """
    if not isinstance(noise_covariance, FactoredCovariance):
        raise TypeError(
            f"noise_covariance must be a FactoredCovariance, got {type(noise_covariance).__name__}"
        )
    K_star_star = psd_matrix(K_star_star, "K_star_star", size=noise_covariance.dim)
    keep = noise_covariance.eigenvalues > 0
    V, lam = noise_covariance.eigenvectors[:, keep], noise_covariance.eigenvalues[keep]
    ends = [_rayleigh_upper(K_star_star, V, lam, x) for x in _directions(K_star_star, V, lam)]
    estimate, upper = min(end[0] for end in ends), min(end[1] for end in ends)
    lower = 0.0
    if len(lam) >= len(K_star_star) and estimate > 0:
        lower = _tested_lower(K_star_star, V, lam, estimate)
    return estimate, lower, upper


def _directions(K, V, lam):
    """Trial x: the top eigenvector of K and the top generalised eigenvector of (K, Sigma).

    The first is the minimiser for a noise of the shape of K (a design); it is computed
    accurately, while the second can mix the nearly equal generalised eigenvalues of such
    a noise. The second is the minimiser for any other noise.
    """
    top = np.linalg.eigh(K)[1][:, -1]
    if len(lam) == 0:
        return [top]
    B = V * (1.0 / np.sqrt(lam))
    z = np.linalg.eigh(B.T @ K @ B)[1][:, -1]
    return [top, B @ z]


def _rayleigh_upper(K, V, lam, x):
    """The estimate ``sqrt(x^T Sigma x / x^T K x)`` and a rigorous upper bound on c_exact."""
    m, r = V.shape
    y = V.T @ x
    e_y = INFLATE * gamma(m + EXTRA) * (np.abs(V).T @ np.abs(x))
    numerator = float(np.sum(lam * y**2))
    high = float(np.sum(lam * (np.abs(y) + e_y) ** 2)) * (1 + INFLATE * gamma(r + 3))
    quadratic = float(x @ (K @ x))
    low = quadratic - INFLATE * gamma(2 * m + EXTRA) * float(np.abs(x) @ (np.abs(K) @ np.abs(x)))
    estimate = float(np.sqrt(numerator / quadratic)) if quadratic > 0 else 0.0
    if low <= 0:
        return estimate, np.inf
    return estimate, float(np.sqrt(high / low)) * (1 + 6 * UNIT_ROUNDOFF)


def _tested_lower(K, V, lam, estimate):
    """The largest trial c proven by a Cholesky test of ``Sigma - c^2 K`` (0 if none)."""
    m, r = V.shape
    u = UNIT_ROUNDOFF
    Sigma = np.tril((V * lam) @ V.T)
    Sigma = Sigma + np.tril(Sigma, -1).T
    absV = np.abs(V)
    spread = min(
        float(np.sum(lam * np.sum(V**2, axis=0))),
        float(np.max((absV * lam) @ np.sum(absV, axis=0))),
    )
    e_Sigma = INFLATE * gamma(r + EXTRA) * spread
    rows_K = _rowsum(K)
    mu = 4 * gamma(m + EXTRA)
    for _ in range(_MAX_TESTS):
        c2 = estimate**2 * (1.0 - min(mu, 1.0))
        T = Sigma - c2 * K
        errors = INFLATE * (e_Sigma + u * c2 * rows_K + u * _rowsum(T))
        if _proven_psd(T, errors):
            return float(np.sqrt(c2)) * (1 - 5 * u)
        if mu >= 1.0:
            break
        mu *= 4.0
    return 0.0


def _proven_psd(T, errors):
    """True when every symmetric matrix within ``errors`` (2-norm) of T is proven PSD."""
    u = UNIT_ROUNDOFF
    diagonal = np.abs(np.diag(T))
    g = gamma(len(T) + EXTRA)
    shift = INFLATE**2 * (errors + g / (1 - g) * float(diagonal.sum()) + u * float(diagonal.max()))
    shifted = T.copy()
    shifted[np.diag_indices_from(shifted)] -= shift + np.finfo(float).tiny
    bound = cholesky_lower_bound(shifted)
    if bound is None:
        return False
    rounding = INFLATE * u * float(np.max(np.abs(np.diag(shifted))))
    return shift + bound - rounding - errors >= 0.0


def _scale_to_sensitivity(Delta, c, lower, upper):
    """``m = Delta / c`` and a bound on ``|m - Delta / c_exact|``, c_exact in [lower, upper]."""
    if Delta == 0:
        return 0.0, 0.0
    u = UNIT_ROUNDOFF
    low = Delta / upper * (1 - 2 * u) if upper > 0 else np.inf
    high = Delta / lower * (1 + 2 * u) if lower > 0 else np.inf
    m = Delta / c if c > 0 else low
    if not np.isfinite(m):
        return m, 0.0
    return m, max(high - m, m - low) * (1 + 2 * u)
