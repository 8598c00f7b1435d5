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

from ssa_privacy._validation import positive, psd_matrix, scalar
from ssa_privacy.gp import as_inputs, cholesky_with_jitter  # noqa: F401
from ssa_privacy.privacy.accounting import noise_multiplier
from ssa_privacy.privacy.dp_release import (
    DPRelease,
    PrivacyCheck,
    _generator,
    _kernel_inputs,
    _posterior_mean,
    _training_factor,
    cloaking_matrix,
    gaussian_check,
)
from ssa_privacy.privacy.mechanism import FactoredCovariance, Release, as_factored, generator

#: Names of the RKHS-sensitivity bounds of the standard method (see :func:`rkhs_sensitivity`).
RKHS_METHODS = ("infinity_norm", "paper_refinement", "rigorous_refinement", "exact")


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

    Releases ``f(X*) + Delta_H s (1 + kappa) G(X*)``, ``G ~ GP(0, k)``, with ``Delta_H``
    the RKHS sensitivity and ``s = noise_multiplier(epsilon, delta, calibration)``; the
    noise covariance is ``(Delta_H s (1 + kappa))^2 (K_** + jitter I)``. ``kappa =
    8 sqrt(m) eps_mach cond(L)`` (L the Cholesky factor of the prior covariance) covers
    the round-off of the certificate's computation; it is about 1e-14 on a
    well-conditioned test set and 1e-7 on a dense grid.

    The certificate recomputes, from the noise covariance Sigma actually used, the
    largest ``c`` with ``c^2 (K_** + jitter I) <= Sigma`` (Loewner order): the noise is
    then Hall's prior-shaped noise of scale c plus independent noise, and the worst
    shift has Mahalanobis norm at most ``Delta_H / c`` at any test inputs.

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
        ``Delta_H s``, Hall's multiplier of the prior sample (without ``1 + kappa``).
    round_off : float
        kappa.
    prior_factor : ndarray, shape (m, m)
        Cholesky factor of ``K_** + prior_jitter I``.
    prior_jitter : float
        Jitter added to ``K_**`` (0.0 when none was needed).
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
    >>> from ssa_privacy.gp import RBF
    >>> from ssa_privacy.privacy.hall import StandardDPGPMechanism
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
        K_star_star = psd_matrix(K_star_star, "K_star_star", size=self.C.shape[0])
        self.prior_factor, self.prior_jitter = cholesky_with_jitter(K_star_star, "K_**")
        self.scale = self.rkhs_sensitivity * multiplier
        # Sigma from the SVD of L: L^{-1} Sigma^{1/2} is then accurate to eps cond(L).
        P, S, _ = linalg.svd(self.prior_factor)
        self.round_off = 8 * np.sqrt(len(S)) * np.finfo(float).eps * S.max() / S.min()
        self._noise_scale = self.scale * (1 + self.round_off)
        keep = self._noise_scale * S > 0
        self.noise_covariance = FactoredCovariance(
            (self._noise_scale * S[keep]) ** 2, P[:, keep], "prior"
        )
        self._designed = True

    @classmethod
    def from_kernel(cls, kernel, noise_variance, X, X_star, epsilon, delta, sensitivity, **options):
        """The mechanism of a GP with kernel ``kernel(A, B)`` at the test inputs X_star.

        Parameters
        ----------
        kernel : callable
            Kernel ``kernel(A, B)`` (e.g. :class:`ssa_privacy.gp.RBF` with variance 1).
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
            columns, and as the constructor.
        """
        X, X_star = _kernel_inputs(kernel, X, X_star)
        return cls(
            kernel(X_star, X),
            kernel(X),
            noise_variance,
            kernel(X_star),
            epsilon,
            delta,
            sensitivity,
            **options,
        )

    def certificate(self):
        """The (epsilon, delta)-DP guarantee, recomputed from the noise covariance.

        Returns
        -------
        Certificate
            From :func:`~ssa_privacy.privacy.dp_release.gaussian_check` with the
            Mahalanobis sensitivity ``Delta_H / c``, c the largest scale with
            ``c^2 (K_** + jitter I) <= Sigma`` (the smallest singular value of
            ``L^{-1} Sigma^{1/2}``; 0 when Sigma is singular).
        """
        noise = self.noise_covariance
        if noise.rank < self.C.shape[0]:
            c = 0.0
        else:
            root = noise.eigenvectors * np.sqrt(noise.eigenvalues)
            whitened = linalg.solve_triangular(self.prior_factor, root, lower=True)
            c = float(linalg.svd(whitened, compute_uv=False).min())
        Delta = self.rkhs_sensitivity
        m = 0.0 if Delta == 0 else (Delta / c if c > 0 else float("inf"))
        return gaussian_check(
            _description(self.method),
            m,
            self.epsilon,
            self.delta,
            self.calibration,
            rkhs_sensitivity=Delta,
            prior_noise_scale=c,
            round_off=self.round_off,
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
            Releases draw from ``noise_covariance``; certificates are recomputed from it.
        """
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, self.C.shape[0], "noise_covariance")
        other._designed = False
        return other

    def release(self, y, *, seed=None):
        """One release ``mean + C (y - mean) + Z``, Z the mechanism's noise.

        Parameters
        ----------
        y : array_like, shape (n,)
            Training outputs (private), clipped so that one changes by at most d.
        seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness of the noise; None draws fresh entropy.

        Returns
        -------
        Release
            ``values`` of shape (m,); the same seed gives the same values as
            :func:`standard_release` with this calibration, up to the factor
            ``1 + kappa`` on the noise.

        Raises
        ------
        ValueError
            If y does not match the training set.
        """
        rng, seed_keys = generator(seed)
        prediction = _posterior_mean(self.C, y, self.mean)
        if self._designed:
            noise = self._noise_scale * (self.prior_factor @ rng.standard_normal(len(self.C)))
        else:
            noise = self.noise_covariance.sample(rng)
        details = {
            "rkhs_sensitivity": self.rkhs_sensitivity,
            "noise_scale": self._noise_scale,
            "jitter": self.jitter,
            "prior_jitter": self.prior_jitter,
        }
        return Release(
            prediction + noise, self.noise_covariance, self.certificate(), seed_keys, details
        )


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

    Kept for existing scripts; the mechanism form is
    ``StandardDPGPMechanism.from_kernel(kernel, noise_variance, X, X_star, epsilon,
    delta, sensitivity).release(y, seed=seed)`` (analytic calibration by default).
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
        See :func:`~ssa_privacy.privacy.accounting.noise_multiplier`.

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
        As :func:`rkhs_sensitivity` and ``noise_multiplier``, or on bad data (X and
        X_star of different widths, a non-finite mean, y not matching X).
    TypeError
        If ``kernel`` is not callable, a number is of the wrong type or the seed is bad.

    Notes
    -----
    [SMI] §2, eqs. (1)-(4); :doc:`/theory/dp-gp`.
    """
    mean = scalar(mean, "mean")
    rng = _generator(seed)
    mechanism = StandardDPGPMechanism.from_kernel(
        kernel,
        noise_variance,
        X,
        X_star,
        epsilon,
        delta,
        sensitivity,
        method=method,
        calibration=calibration,
        mean=mean,
    )
    prediction = _posterior_mean(mechanism.C, y, mean)
    scale, L_star, Delta = mechanism.scale, mechanism.prior_factor, mechanism.rkhs_sensitivity
    values = prediction + scale * (L_star @ rng.standard_normal(len(L_star)))
    covariance = scale**2 * (L_star @ L_star.T)
    m = Delta / scale if scale > 0 else 0.0
    certificate = gaussian_check(
        _description(method), m, epsilon, delta, calibration, rkhs_sensitivity=Delta
    )
    return DPRelease(
        values,
        0.5 * (covariance + covariance.T),
        PrivacyCheck.from_certificate(certificate),
        {
            "rkhs_sensitivity": Delta,
            "noise_scale": scale,
            "jitter": mechanism.jitter,
            "prior_jitter": mechanism.prior_jitter,
        },
    )
