"""Legacy names of differentially private GP regression [SMI], kept until 0.3.

Each imports what it needs when called, so that ``import ssa_privacy`` stays light.
"""

import types

from ssa_privacy._compat import _legacy

#: Served through :data:`ssa_privacy._compat.REPLACED_NAMES` only.
__all__ = []


def _dp_gp(old, new):
    """Where a DP-GP name was importable: its 0.1 module, its 0.2 module, the package."""
    return (old, f"ssa_privacy.privacy.dp_gp.{new}", "ssa_privacy.privacy.dp_gp")


_CLOAKING = _dp_gp("ssa_privacy.privacy.cloaking", "cloaking")
_CLOAKING_RELEASE = "CloakingMechanism.from_kernel(...).release(y, seed=seed)"

#: No longer used since 0.1 (the ellipsoid solver lost its Frank-Wolfe phase).
_legacy(_dp_gp("ssa_privacy.ellipsoid", "ellipsoid"), "COARSE_GAP", "nothing")(1e-5)


@_legacy(_dp_gp("ssa_privacy.privacy.dp_release", "release"), "DPRelease", "Release")
class DPRelease(types.SimpleNamespace):
    """One release of the deprecated DP-GP functions (a :class:`Release` replaces it).

    Parameters
    ----------
    values : ndarray, shape (m,)
        The released predictions (units of y).
    noise_covariance : ndarray, shape (m, m)
        Covariance of the noise added (squared units of y).
    check : PrivacyCheck
        The (epsilon, delta) guarantee and its verification.
    details : dict
        Diagnostics of the computation.
    """

    def __init__(self, values, noise_covariance, check, details):
        super().__init__(
            values=values, noise_covariance=noise_covariance, check=check, details=details
        )

    epsilon = property(lambda self: self.check.epsilon, doc="epsilon of the guarantee.")
    delta = property(lambda self: self.check.delta, doc="delta of the guarantee.")

    @property
    def noise_sd(self):
        """Standard deviation of the noise per test point, shape (m,)."""
        import numpy as np

        return np.sqrt(np.maximum(np.diag(self.noise_covariance), 0.0))

    def record(self):
        """The check as a flat dict for a results row (``PrivacyCheck.record``)."""
        return self.check.record()


def _dp_release(release, noise_covariance, details):
    """A mechanism's Release as the legacy :class:`DPRelease`."""
    from ssa_privacy.privacy.dp_gp.release import PrivacyCheck

    check = PrivacyCheck.from_certificate(release.certificate)
    return DPRelease(release.values, noise_covariance, check, details)


@_legacy(_CLOAKING, "cloaking_release", _CLOAKING_RELEASE)
def _cloaking_release(
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity, seed=None, **options
):
    """Cloaking release of GP predictions at ``X_star`` [SMI] §3 (deprecated).

    .. deprecated:: 0.2
        Use ``CloakingMechanism.from_kernel(kernel, noise_variance, X, X_star, epsilon,
        delta, sensitivity, calibration="hall").release(y, seed=seed)``; removed in 0.3.

    Parameters
    ----------
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity
        As ``CloakingMechanism.from_kernel`` and its ``release`` (y, shape (n,), units of
        y; X_star, shape (m, D) or (m,)).
    seed : None, int or numpy.random.Generator
        Randomness of the noise.
    **options
        ``mean``, ``calibration`` (here ``"hall"`` by default), ``rtol``, ``tol``.

    Returns
    -------
    DPRelease
        The mechanism's release, its dense noise covariance ``noise_scale^2 M`` (m, m)
        and the check of its certificate.

    Raises
    ------
    TypeError, ValueError
        As the mechanism.
    """
    from ssa_privacy._internal.random import random_generator
    from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism

    rng = random_generator(seed)
    options.setdefault("calibration", "hall")
    mechanism = CloakingMechanism.from_kernel(
        kernel, noise_variance, X, X_star, epsilon, delta, sensitivity, **options
    )
    release = mechanism.release(y, seed=rng)
    return _dp_release(release, mechanism.noise_scale**2 * mechanism.M, release.details)


@_legacy(_CLOAKING, "cloaking_noise_covariance", "CloakingMechanism(...).noise_covariance")
def _cloaking_noise_covariance(
    K_star_X, K_XX, noise_variance, epsilon, delta, *old_order, sensitivity=None, **options
):
    """Covariance ``noise_scale^2 M`` of the cloaking noise [SMI] §3 (deprecated).

    .. deprecated:: 0.2
        Use ``CloakingMechanism(K_star_X, K_XX, noise_variance, epsilon, delta,
        sensitivity, calibration="hall").noise_covariance``; removed in 0.3.

    Parameters
    ----------
    K_star_X, K_XX, noise_variance, epsilon, delta
        As the mechanism; shapes (m, n), (n, n), scalar or (n, n).
    *old_order : float
        The order of 0.1, ``(..., sensitivity, epsilon, delta)``: its sixth argument.
    sensitivity : float
        d (units of y), by keyword in the new order.
    **options
        ``calibration`` (here ``"hall"`` by default), ``rtol``, ``tol``.

    Returns
    -------
    ndarray, shape (m, m)
        The dense noise covariance (squared units of y).

    Raises
    ------
    TypeError
        If the sensitivity is missing or given twice.
    ValueError
        As the mechanism.
    """
    from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism

    if old_order:
        if len(old_order) != 1 or sensitivity is not None:
            raise TypeError("cloaking_noise_covariance: sensitivity given twice")
        sensitivity, epsilon, delta = epsilon, delta, old_order[0]
    if sensitivity is None:
        raise TypeError("cloaking_noise_covariance() needs the keyword argument 'sensitivity'")
    options.setdefault("calibration", "hall")
    mechanism = CloakingMechanism(
        K_star_X, K_XX, noise_variance, epsilon, delta, sensitivity, **options
    )
    return mechanism.noise_scale**2 * mechanism.M


@_legacy(
    _dp_gp("ssa_privacy.privacy.hall", "hall"),
    "standard_release",
    "StandardDPGPMechanism.from_kernel(...).release(y, seed=seed)",
)
def _standard_release(
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity, seed=None, **options
):
    """Hall et al.'s standard DP-GP release [SMI] §2 (deprecated).

    .. deprecated:: 0.2
        Use ``StandardDPGPMechanism.from_kernel(kernel, noise_variance, X, X_star, epsilon,
        delta, sensitivity, calibration="hall").release(y, seed=seed)``; removed in 0.3.

    Parameters
    ----------
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity
        As ``StandardDPGPMechanism.from_kernel`` and its ``release``.
    seed : None, int or numpy.random.Generator
        Randomness of the noise.
    **options
        ``method``, ``mean``, ``calibration`` (here ``"hall"`` by default).

    Returns
    -------
    DPRelease
        The mechanism's release, its dense noise covariance (m, m) and the check of its
        certificate.

    Raises
    ------
    TypeError, ValueError
        As the mechanism.
    """
    from ssa_privacy._internal.random import random_generator
    from ssa_privacy.privacy.dp_gp.hall import StandardDPGPMechanism

    rng = random_generator(seed)
    options.setdefault("calibration", "hall")
    mechanism = StandardDPGPMechanism.from_kernel(
        kernel, noise_variance, X, X_star, epsilon, delta, sensitivity, **options
    )
    release = mechanism.release(y, seed=rng)
    kept = ("rkhs_sensitivity", "noise_scale", "jitter", "prior_jitter")
    details = {key: release.details[key] for key in kept}
    return _dp_release(release, mechanism.noise_covariance.matrix(), details)


@_legacy(
    _dp_gp("ssa_privacy.privacy.binning", "binning"),
    "laplace_bin_means",
    "LaplaceBinningMechanism(X, edges, epsilon, sensitivity).release(y, seed=seed)",
)
def _laplace_bin_means(X, y, edges, epsilon, sensitivity, seed=None):
    """DP bin means with the Laplace mechanism [SMI] §4 (deprecated).

    .. deprecated:: 0.2
        Use ``LaplaceBinningMechanism(X, edges, epsilon, sensitivity).release(y,
        seed=seed)``, whose ``details["binned"]`` this returns; removed in 0.3.

    Parameters
    ----------
    X, y, edges, epsilon, sensitivity
        As the mechanism and its ``release`` (X, shape (n, D) or (n,); y, shape (n,)).
    seed : None, int or numpy.random.Generator
        Randomness of the noise.

    Returns
    -------
    BinnedRelease
        The bin means and their check.

    Raises
    ------
    TypeError, ValueError
        As the mechanism.
    """
    from ssa_privacy._internal.random import random_generator
    from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism

    rng = random_generator(seed)
    mechanism = LaplaceBinningMechanism(X, edges, epsilon, sensitivity)
    return mechanism.release(y, seed=rng).details["binned"]


@_legacy(("ssa_privacy.privacy.dp_gp",), "cloaking_dual", "ellipsoid.d_optimal_design")
def _cloaking_dual(points, tol=1e-8, max_iter=100_000):
    """The D-optimal design dual of the cloaking noise (deprecated).

    .. deprecated:: 0.2
        Use ``ssa_privacy.privacy.dp_gp.ellipsoid.d_optimal_design`` (same arguments and
        results); removed in 0.3.

    Parameters
    ----------
    points : ndarray, shape (r, n)
        Columns spanning R^r.
    tol, max_iter
        Tolerance of the duality gap and limit on interior-point steps.

    Returns
    -------
    tuple
        ``(lambdas, g, gap, iterations)`` of ``d_optimal_design``.
    """
    from ssa_privacy.privacy.dp_gp.ellipsoid import d_optimal_design

    return d_optimal_design(points, tol=tol, max_iter=max_iter)


@_legacy(
    ("ssa_privacy.privacy.accounting", "ssa_privacy.privacy.pml"),
    "analytic_gaussian_delta",
    "ssa_privacy.privacy.accounting.gaussian_mechanism_delta(ratio, epsilon_DP)",
)
def _analytic_gaussian_delta(epsilon_DP, ratio):
    """delta of the Gaussian mechanism in [LKC]'s argument order (deprecated).

    .. deprecated:: 0.2
        Use ``gaussian_mechanism_delta(ratio, epsilon_DP)``; removed in 0.3.

    Parameters
    ----------
    epsilon_DP : float
        Differential-privacy epsilon, >= 0.
    ratio : float or array_like
        Sensitivity over noise standard deviation, >= 0.

    Returns
    -------
    float or ndarray
        The exact delta [BW18] Theorem 8.

    Raises
    ------
    ValueError
        If an argument is negative or not finite.
    """
    from ssa_privacy.privacy.accounting import gaussian_mechanism_delta

    return gaussian_mechanism_delta(ratio, epsilon_DP)
