"""The cloaking mechanism [SMI] §3: DP GP predictions at test inputs fixed in advance.

Predictions at the test inputs are ``C y`` with the cloaking matrix
``C = K_{*X} (K_XX + V)^{-1}``; changing one private output by at most d moves them by
``d c_i`` (a column of C). The noise ``Z ~ N(0, s^2 M)`` whose shape M is the
minimum-volume ellipsoid around the columns of C
(:func:`~ssa_privacy.privacy.dp_gp.ellipsoid.minimum_volume_ellipsoid`) covers every such move at
the least generalised variance; ``s`` is calibrated so that the worst move has the
Mahalanobis norm the Gaussian mechanism allows at (epsilon, delta).

:class:`CloakingMechanism` solves the ellipsoid once; releases at other privacy levels
reuse it (:meth:`CloakingMechanism.at`): the privacy level is part of a mechanism, and
``release(y, *, seed)`` releases at that level. The theory, and the bugs of the authors'
code that are deliberately not reproduced, are on :doc:`/theory/dp-gp`.
"""

import copy

import numpy as np

from ssa_privacy._internal.validation import positive, scalar
from ssa_privacy.privacy.accounting import CALIBRATIONS, analytic_gaussian_ratio, noise_multiplier
from ssa_privacy.privacy.dp_gp.ellipsoid import minimum_volume_ellipsoid
from ssa_privacy.privacy.dp_gp.release import (
    _kernel_blocks,
    _mahalanobis_squared,
    _posterior_mean,
    _representable_scale,
    cloaking_matrix,
    gaussian_check,
    least_inflation,
    mahalanobis_enclosure,
)
from ssa_privacy.privacy.mechanism import FactoredCovariance, Release, as_factored, generator

__all__ = [
    "CloakingMechanism",
    "EIGENVALUE_FLOOR",
]

_DESCRIPTION = "cloaking (Smith et al. 2018)"


def _level(epsilon, delta, sensitivity, calibration, mean):
    """Validated (epsilon, delta, sensitivity, calibration, mean); None entries when unset."""
    if not isinstance(calibration, str) or calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    mean = scalar(mean, "mean")
    given = {"epsilon": epsilon, "delta": delta, "sensitivity": sensitivity}
    if all(v is None for v in given.values()):
        return None, None, None, calibration, mean
    missing = [name for name, v in given.items() if v is None]
    if missing:
        raise ValueError(f"epsilon, delta and sensitivity go together; missing {missing}")
    noise_multiplier(epsilon, delta, calibration)  # validates epsilon, delta, calibration
    return float(epsilon), float(delta), positive(sensitivity, "sensitivity"), calibration, mean


#: Smallest eigenvalue of the released noise shape, relative to its largest (see
#: :func:`_floored`): the relative rounding bound of the Mahalanobis sensitivity is then
#: at most about 2e7 times the orthogonality defect of the eigenvectors (1e-4 at census
#: size). Larger floors change the designs measurably (the !Kung median noise moves at
#: 1e-12): the smallest eigen-directions of an ellipsoid can carry real leverage.
EIGENVALUE_FLOOR = 1e-14


def _floored(values, vectors):
    """The shape's factors with every eigenvalue raised to ``EIGENVALUE_FLOOR`` of the largest.

    Directions in which M is numerically zero (a test point that is a noiseless training
    point: its posterior mean is exact) make the rounding bound of the Mahalanobis
    sensitivity scale with ``sqrt(lambda_max / lambda_min)`` (up to 1e12 on the
    satellite study), which the certified design would pay for with noise. Raising those
    eigenvalues only adds noise, so the guarantee can only improve, and the certificate
    checks the floored factors that the release draws from.
    """
    floor = EIGENVALUE_FLOOR * float(np.max(values)) if values.size else 0.0
    return FactoredCovariance(np.maximum(values, floor), vectors, "minimum-volume ellipsoid")


class CloakingMechanism:
    """The cloaking mechanism: the ellipsoid noise shape M, solved once for many releases.

    M depends only on the cloaking matrix C (kernel, noise and test inputs), not on the
    privacy level or the outputs: :meth:`at` gives the mechanism at another level
    without solving again. The noise is ``s^2 M`` (M in the factored form ``shape``)
    with ``s = d * noise_multiplier(epsilon, delta) * sqrt(g_hi) * (1 + tau)``: ``g_hi``
    is a rigorous upper bound on ``max_i c_i^T M^+ c_i`` for the stored factors, and
    ``1 + tau`` the least inflation tried that makes the certificate pass
    (:func:`~ssa_privacy.privacy.dp_gp.release.least_inflation`; 1 unless the calibration
    is tight). The certificate recomputes the worst shift ``d c_i`` in the metric of the
    noise covariance actually used, with a rigorous bound on its rounding error.

    Parameters
    ----------
    K_star_X : array_like, shape (m, n)
        Kernel between test and training inputs.
    K_XX : array_like, shape (n, n)
        Kernel between training inputs.
    noise_variance : float or array_like, shape (n, n)
        Observation-noise variance (units of y squared) or covariance.
    epsilon, delta : float, optional
        Privacy level: epsilon > 0 (at most 1 for ``calibration="hall"``), delta in (0, 1).
    sensitivity : float, optional
        d, the largest change of one output between neighbours (units of y). epsilon,
        delta and sensitivity come together or not at all: without them the mechanism
        has its ellipsoid but no noise, and :meth:`at` gives it a privacy level.
    calibration : {"analytic", "hall"}
        See :func:`~ssa_privacy.privacy.accounting.noise_multiplier`: tight for every
        epsilon, or Hall et al.'s ``c(delta)/epsilon``.
    mean : float
        Constant prior mean (public).
    rtol, tol : float
        Rank cut-off and duality-gap tolerance of the ellipsoid solver
        (:func:`~ssa_privacy.privacy.dp_gp.ellipsoid.minimum_volume_ellipsoid`).

    Attributes
    ----------
    C : ndarray, shape (m, n)
        Cloaking matrix ``K_{*X} (K_XX + V)^{-1}``, with the ``jitter`` added to K + V.
    solution : MinimumVolumeEllipsoid
        The ellipsoid around the columns of C; ``M`` is its dense shape matrix (m, m),
        ``shape`` the same as a FactoredCovariance.
    leverage : float
        ``max_i c_i^T M^{-1} c_i``, the larger of the solver's value and the one
        recomputed from its factors (:meth:`record`).
    leverage_bound : float
        ``g_hi``, the rigorous upper bound on ``max_i c_i^T M^+ c_i`` with M taken from
        the factors of ``shape``; the noise scales by its square root.
    inflation : float
        ``1 + tau``, the inflation of the noise standard deviation the certificate needed
        (1 when it passes as calibrated, and without a privacy level).
    noise_scale : float or None
        s, the standard-deviation multiplier of M (units of y): the noise covariance is
        ``s^2 M``. None without a privacy level and after :meth:`with_noise`.
    noise_covariance : FactoredCovariance or None
        The noise covariance ``s^2 M`` that :meth:`release` draws from and
        :meth:`certificate` certifies (squared units of y): the factors of M with its
        eigenvalues floored (``EIGENVALUE_FLOOR``), scaled. None without a privacy level.
    epsilon, delta, sensitivity, calibration, mean
        The privacy level (None when not set) and the options.

    Raises
    ------
    ValueError
        On bad shapes or values (see
        :func:`~ssa_privacy.privacy.dp_gp.release.cloaking_matrix`), bad privacy
        parameters, or only some of epsilon, delta and sensitivity.

    Notes
    -----
    [SMI] §3, eq. (5) and Algorithm 1; :doc:`/theory/dp-gp`.

    Examples
    --------
    >>> from ssa_privacy.gp.kernels import RBF
    >>> from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
    >>> mech = CloakingMechanism.from_kernel(
    ...     RBF(1.0), 0.5, [0.0, 1, 2, 3, 4], [0.5, 2.5], epsilon=1.0, delta=0.01, sensitivity=1.0)
    >>> release = mech.release([0.5, 1.0, -0.3, 0.2, 0.9], seed=0)
    >>> release.values.shape, release.certificate.passed
    ((2,), True)
    >>> mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed
    False
    >>> mech.at(2.0, 1e-5).certificate().passed  # another level, same ellipsoid
    True
    """

    def __init__(
        self,
        K_star_X,
        K_XX,
        noise_variance,
        epsilon=None,
        delta=None,
        sensitivity=None,
        *,
        calibration="analytic",
        mean=0.0,
        rtol=1e-8,
        tol=1e-8,
    ):
        level = _level(epsilon, delta, sensitivity, calibration, mean)
        self.C, self.jitter = cloaking_matrix(K_star_X, K_XX, noise_variance)
        self.solution = minimum_volume_ellipsoid(self.C, rtol=rtol, tol=tol)
        recomputed = float(np.max(self.solution.mahalanobis_squared(self.C)))
        self.leverage = max(self.solution.max_leverage, recomputed)
        self.M = self.solution.covariance()
        self.shape = _floored(*self.solution.eigh())
        self.leverage_bound = float(np.max(_mahalanobis_squared(self.shape, self.C)[2]))
        self._apply(level)

    @classmethod
    def from_kernel(
        cls,
        kernel,
        noise_variance,
        X,
        X_star,
        epsilon=None,
        delta=None,
        sensitivity=None,
        **options,
    ):
        """The mechanism of a GP with kernel ``kernel(A, B)`` at the test inputs X_star.

        Parameters
        ----------
        kernel : callable
            Kernel ``kernel(A, B)`` of the fitted GP.
        noise_variance : float or array_like, shape (n, n)
            Observation-noise variance (units of y squared) or covariance.
        X, X_star : array_like, shapes (n, D) or (n,), and (m, D) or (m,)
            Training inputs (public) and test inputs (fixed before the release).
        epsilon, delta, sensitivity : float, optional
            The privacy level, as in the constructor.
        **options
            Keyword options of the constructor.

        Returns
        -------
        CloakingMechanism
            Built from ``kernel(X_star, X)`` and ``kernel(X)``.

        Raises
        ------
        TypeError
            If ``kernel`` is not callable, and as the constructor.
        ValueError
            If X or X_star is empty or not finite, they have different numbers of
            columns, the kernel returns an array of the wrong shape or non-finite values,
            and as the constructor.
        """
        K_star_X, K_XX = _kernel_blocks(kernel, X, X_star)
        return cls(K_star_X, K_XX, noise_variance, epsilon, delta, sensitivity, **options)

    def _apply(self, level):
        """Set the privacy level and the designed noise ``s^2 M``, inflated until certified."""
        self.epsilon, self.delta, self.sensitivity, self.calibration, self.mean = level
        self.noise_scale, self.noise_covariance, self.inflation = None, None, 1.0
        if self.epsilon is None:
            return
        s = noise_multiplier(self.epsilon, self.delta, self.calibration)
        base = _representable_scale(self.sensitivity * s * np.sqrt(self.leverage_bound))

        def certify(factor):
            return self._certificate(self.shape.scaled((base * factor) ** 2), factor)

        root = analytic_gaussian_ratio(self.epsilon, self.delta)
        self.inflation = least_inflation(certify, root)[0]
        self.noise_scale = base * self.inflation
        self.noise_covariance = self.shape.scaled(self.noise_scale**2)

    def _require_level(self, what):
        if self.epsilon is None:
            raise ValueError(
                f"{what} needs a privacy level: build the mechanism with epsilon, delta and "
                "sensitivity, or use .at(epsilon, delta, sensitivity)"
            )

    def at(self, epsilon, delta, sensitivity=None, *, calibration=None, mean=None):
        """The same mechanism (same solved ellipsoid) at another privacy level.

        Parameters
        ----------
        epsilon, delta : float
            The new privacy level.
        sensitivity, calibration, mean : optional
            By default this mechanism's.

        Returns
        -------
        CloakingMechanism
            Shares C and the ellipsoid with this one; its noise is designed for the new
            level.

        Raises
        ------
        ValueError
            On bad privacy parameters, or no sensitivity (none given, none set).
        """
        other = copy.copy(self)
        d = self.sensitivity if sensitivity is None else sensitivity
        calibration = self.calibration if calibration is None else calibration
        other._apply(_level(epsilon, delta, d, calibration, self.mean if mean is None else mean))
        return other

    def certificate(self):
        """The (epsilon, delta)-DP guarantee, recomputed from the noise covariance.

        Returns
        -------
        Certificate
            :func:`~ssa_privacy.privacy.dp_gp.release.gaussian_check` of the worst shift
            ``max_i ||Sigma^{-1/2} d c_i||`` under the noise covariance Sigma used.
        """
        self._require_level("certificate()")
        return self._certificate(self.noise_covariance, self.inflation)

    def _certificate(self, noise, inflation):
        """The certificate of ``noise`` at this level; ``inflation`` is recorded."""
        m, error = mahalanobis_enclosure(noise, self.C, self.sensitivity)
        s = self.solution
        return gaussian_check(
            _DESCRIPTION,
            m,
            self.epsilon,
            self.delta,
            self.calibration,
            sensitivity_error=error,
            kept_rank=s.rank,
            duality_gap=s.duality_gap,
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
        CloakingMechanism
            Releases draw from ``noise_covariance``; certificates are recomputed from it.
        """
        self._require_level("with_noise()")
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, self.C.shape[0], "noise_covariance")
        other.noise_scale, other.inflation = None, 1.0
        return other

    def release(self, y, *, seed=None):
        """One release ``mean + C (y - mean) + Z``, ``Z ~ N(0, noise_covariance)``.

        Z is drawn from the factors of the noise covariance, ``V (sqrt(lambda) z)``: the
        covariance that the certificate certifies.

        Parameters
        ----------
        y : array_like, shape (n,)
            Training outputs (private), clipped so that one can change by at most d.
        seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness of the noise; None draws fresh entropy.

        Returns
        -------
        Release
            ``values`` of shape (m,), the noise covariance and :meth:`certificate`;
            ``details`` holds the jitter, the solver's numbers, ``noise_scale``,
            ``noise_inflation`` and the sensitivity.

        Raises
        ------
        ValueError
            On a y that does not match C, or a mechanism without a privacy level.
        TypeError
            On a bad seed.
        """
        self._require_level("release(y, *, seed)")
        rng, seed_keys = generator(seed)
        prediction = _posterior_mean(self.C, y, self.mean)
        noise = self.noise_covariance.sample(rng)
        s = self.solution
        details = {
            "jitter": self.jitter,
            "rank": s.rank,
            "iterations": s.iterations,
            "duality_gap": s.duality_gap,
            "max_leverage": s.max_leverage,
            "noise_scale": self.noise_scale,
            "noise_inflation": self.inflation,
            "sensitivity": self.sensitivity,
        }
        return Release(
            prediction + noise, self.noise_covariance, self.certificate(), seed_keys, details
        )

    def record(self):
        """Size and optimality (KKT) numbers of the design, for results files.

        Returns
        -------
        dict
            Test and training points, kept rank, support size, sum of lambdas, max
            leverage, duality gap, interior-point steps, null variance, jitter.
        """
        s = self.solution
        return {
            "test_points": self.C.shape[0],
            "training_points": self.C.shape[1],
            "kept_rank": s.rank,
            "support_size": int(np.sum(s.lambdas > 0)),
            "sum_lambdas": float(s.lambdas.sum()),
            "max_leverage": self.leverage,
            "duality_gap": s.duality_gap,
            "interior_point_steps": s.iterations,
            "null_variance": s.null_variance,
            "jitter": self.jitter,
        }
