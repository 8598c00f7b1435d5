"""What the DP-GP releases share: the prediction operator and the Gaussian certificate.

:func:`cloaking_matrix` is the linear map from private outputs to predictions at the
test inputs (its columns are the shifts between neighbouring data sets).
:func:`gaussian_check` turns the worst-case Mahalanobis shift of a Gaussian release
(recomputed from the noise covariance actually used) into a
:class:`~ssa_privacy.privacy.mechanism.Certificate` of notion ``"dp"``.
:class:`PrivacyCheck` and :class:`DPRelease` are the result types of the functions of
:mod:`ssa_privacy.privacy.dp_gp` written before the mechanism vocabulary; they are kept
for existing scripts. The theory is on :doc:`/theory/dp-gp`.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import linalg

from ssa_privacy._validation import (
    as_finite_array,
    as_matrix,
    nonempty,
    open_interval,
    positive,
    psd_matrix,
    random_generator,
    scalar,
)
from ssa_privacy.gp import as_inputs, cholesky_with_jitter, noise_matrix
from ssa_privacy.privacy.accounting import c_delta, gaussian_mechanism_delta, privacy_loss_tail
from ssa_privacy.privacy.mechanism import Certificate, FactoredCovariance

#: Relative slack allowed when comparing a computed delta with the target.
CHECK_RTOL = 1e-9
#: A shift whose component outside the range of the noise covariance is above this
#: fraction of its norm has an infinite Mahalanobis norm (below it is round-off).
RANGE_RTOL = 1e-10
#: Evidence keys of a certificate that a :class:`PrivacyCheck` keeps elsewhere.
_CERTIFICATE_ONLY = ("mechanism", "rule")


def _generator(seed):
    """A numpy Generator from ``seed`` (None draws fresh OS entropy); the legacy functions' seeding."""
    return random_generator(seed, "seed")


def _kernel_inputs(kernel, X, X_star):
    """Validated training and test inputs of a kernel-based release (equal widths)."""
    if not callable(kernel):
        raise TypeError(f"kernel must be callable, got {type(kernel).__name__}")
    X, X_star = as_inputs(X), as_inputs(X_star, "X_star")
    if X_star.shape[1] != X.shape[1]:
        raise ValueError(f"X_star has {X_star.shape[1]} columns but X has {X.shape[1]}")
    return X, X_star


def _training_factor(K_XX, noise_variance):
    """Cholesky factor of ``K + V`` (with reported jitter), validating both."""
    K = nonempty(psd_matrix(K_XX, "K_XX"), "K_XX")
    V = noise_matrix(noise_variance, len(K), "noise_variance")
    return cholesky_with_jitter(K + V, "K_XX + noise")


def _posterior_mean(C, y, mean):
    """Predictions ``mean + C (y - mean)`` after checking y matches C."""
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != C.shape[1]:
        raise ValueError(f"y has {len(y)} entries but the training set has {C.shape[1]} points")
    return mean + C @ (y - mean)


def cloaking_matrix(K_star_X, K_XX, noise_variance):
    """The cloaking matrix ``C = K_{*X} (K_XX + V)^{-1}`` [SMI] §3.

    Predictions at the test points are ``C y``; changing ``y_i`` by d moves them by
    ``d c_i``.

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
    K_star_X = nonempty(as_matrix(K_star_X, "K_star_X", shape=(None, len(L))), "K_star_X")
    return linalg.cho_solve((L, True), K_star_X.T).T, jitter


@dataclass(frozen=True)
class PrivacyCheck:
    """The guarantee of one release and the computation that establishes it.

    The result type of the functions written before
    :class:`~ssa_privacy.privacy.mechanism.Certificate`; build it from a certificate
    with :meth:`from_certificate`.

    Parameters
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
    certificate : Certificate or None
        The certificate this check was built from (not part of :meth:`record`).
    """

    mechanism: str
    epsilon: float
    delta: float
    passed: bool
    evidence: dict = field(default_factory=dict)
    certificate: Certificate | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_certificate(cls, certificate, mechanism=None):
        """The check of a ``"dp"`` certificate.

        Parameters
        ----------
        certificate : Certificate
            Notion ``"dp"``, with ``epsilon`` and ``delta`` among its parameters.
        mechanism : str, optional
            Description; by default ``certificate.evidence["mechanism"]``.

        Returns
        -------
        PrivacyCheck
            Same verdict; the evidence without the certificate's ``mechanism`` and
            ``rule`` entries.

        Raises
        ------
        TypeError
            If ``certificate`` is not a Certificate.
        ValueError
            If its parameters lack ``epsilon`` or ``delta``.
        """
        if not isinstance(certificate, Certificate):
            raise TypeError(f"certificate must be a Certificate, got {type(certificate).__name__}")
        if not {"epsilon", "delta"} <= set(certificate.parameters):
            raise ValueError("certificate must have epsilon and delta among its parameters")
        evidence = {k: v for k, v in certificate.evidence.items() if k not in _CERTIFICATE_ONLY}
        return cls(
            mechanism if mechanism is not None else certificate.evidence.get("mechanism", ""),
            float(certificate.parameters["epsilon"]),
            float(certificate.parameters["delta"]),
            bool(certificate.passed),
            evidence,
            certificate,
        )

    def record(self):
        """The check as a flat dict for a results row.

        Returns
        -------
        dict
            ``mechanism``, ``epsilon``, ``delta``, ``check_passed`` and the evidence
            (keys prefixed ``check_``).
        """
        row = {
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "check_passed": bool(self.passed),
        }
        row.update({f"check_{key}": value for key, value in self.evidence.items()})
        return row


def gaussian_check(mechanism, mahalanobis_sensitivity, epsilon, delta, calibration, **evidence):
    """Certify a Gaussian-mechanism release from its worst-case Mahalanobis shift.

    Parameters
    ----------
    mechanism : str
        Description, stored as ``evidence["mechanism"]``.
    mahalanobis_sensitivity : float
        Largest ``||Sigma^{-1/2} (v_D - v_D')||`` over neighbours, recomputed from the
        final noise covariance ``Sigma`` (noise standard units); ``inf`` when a shift
        leaves the range of Sigma.
    epsilon, delta : float
        The guarantee claimed.
    calibration : str
        The calibration used (recorded; for ``"hall"`` the evidence also says whether
        Hall's condition ``m <= epsilon / c(delta)`` with ``epsilon <= 1`` holds).
    **evidence
        Further numbers to record.

    Returns
    -------
    Certificate
        Notion ``"dp"``, parameters ``epsilon``, ``delta``, ``calibration``; ``margin`` =
        delta minus the exact delta of the Gaussian mechanism at this shift;
        ``tolerance`` = ``CHECK_RTOL * delta``; passed when ``margin >= -tolerance``.
        Evidence: the description, the calibration, the Mahalanobis sensitivity, the
        privacy-loss tail, the exact delta, Hall's condition, the extra numbers, and
        the rule behind ``passed``.

    Raises
    ------
    TypeError
        If ``mechanism`` is not a string or a number is not a real number.
    ValueError
        If the Mahalanobis sensitivity is negative or NaN, epsilon is not positive or
        delta is outside (0, 1).

    Notes
    -----
    The exact delta is [BW18] Theorem 8 (see
    :func:`~ssa_privacy.privacy.accounting.gaussian_mechanism_delta`); Hall's
    condition is Hall, Rinaldo and Wasserman (2013), Proposition 3 ([SMI] eq. (5)).
    """
    if not isinstance(mechanism, str):
        raise TypeError(f"mechanism must be a string, got {type(mechanism).__name__}")
    m = scalar(mahalanobis_sensitivity, "mahalanobis_sensitivity", low=0.0, allow_inf=True)
    epsilon, delta = positive(epsilon, "epsilon"), open_interval(delta, "delta")
    finite = bool(np.isfinite(m))
    exact = gaussian_mechanism_delta(m, epsilon) if finite else 1.0
    tail = (privacy_loss_tail(m, epsilon) if m > 0 else 0.0) if finite else 1.0
    hall = bool(finite and epsilon <= 1 and m <= epsilon / c_delta(delta) * (1 + CHECK_RTOL))
    details = {
        "mechanism": mechanism,
        "calibration": calibration,
        "mahalanobis_sensitivity": m,
        "loss_tail": tail,
        "exact_delta": exact,
        "hall_condition": hall,
        **evidence,
        "rule": "margin >= -tolerance (relative slack CHECK_RTOL on delta)",
    }
    margin = float(delta) - float(exact)
    tolerance = CHECK_RTOL * float(delta)
    parameters = {"epsilon": float(epsilon), "delta": float(delta), "calibration": calibration}
    return Certificate("dp", parameters, bool(margin >= -tolerance), margin, tolerance, details)


def _mahalanobis_squared(noise_covariance, shifts):
    """``g_i = s_i^T Sigma^+ s_i`` per column and a bound on its rounding error.

    ``g_i`` is ``inf`` for a shift with a component outside the range of Sigma above
    ``RANGE_RTOL`` of its norm. Each coordinate ``v_k^T s_i`` is computed with an error
    of at most ``e_i = 4 sqrt(m) eps ||s_i||`` (a dot product of length m), so ``g_i``
    is off by at most ``sum_k (2 |z_k| e_i + e_i^2) / lambda_k``.
    """
    V, lam = noise_covariance.eigenvectors, noise_covariance.eigenvalues
    coordinates = V.T @ shifts
    norms = np.linalg.norm(shifts, axis=0)
    outside = np.linalg.norm(shifts - V @ coordinates, axis=0) > RANGE_RTOL * norms
    g = np.sum(coordinates**2 / lam[:, None], axis=0)
    e = 4 * np.sqrt(len(V)) * np.finfo(float).eps * norms
    error = np.sum((2 * np.abs(coordinates) * e + e**2) / lam[:, None], axis=0)
    return np.where(outside, np.inf, g), error


def mahalanobis_sensitivity(noise_covariance, shifts):
    """Largest Mahalanobis norm of the shifts with respect to a factored noise covariance.

    Parameters
    ----------
    noise_covariance : FactoredCovariance
        ``Sigma = V diag(lambda) V^T`` of dimension m.
    shifts : ndarray, shape (m, n)
        The possible changes of the released vector between neighbours, as columns.

    Returns
    -------
    float
        ``max_i sqrt(s_i^T Sigma^+ s_i)``, or ``inf`` when some shift has a component
        outside the range of Sigma above ``RANGE_RTOL`` of its norm (then the two
        releases have different supports and no delta < 1 holds).

    Raises
    ------
    TypeError
        If ``noise_covariance`` is not a FactoredCovariance.
    ValueError
        If ``shifts`` is not a finite, non-empty (m, n) matrix.
    """
    if not isinstance(noise_covariance, FactoredCovariance):
        raise TypeError(
            f"noise_covariance must be a FactoredCovariance, got {type(noise_covariance).__name__}"
        )
    shifts = as_matrix(shifts, "shifts", (noise_covariance.dim, None))
    nonempty(shifts, "shifts")
    return float(np.sqrt(np.max(_mahalanobis_squared(noise_covariance, shifts)[0])))


@dataclass(frozen=True)
class DPRelease:
    """A differentially private release of test predictions (the legacy result type).

    The mechanisms return a :class:`~ssa_privacy.privacy.mechanism.Release`; this type
    is what :func:`~ssa_privacy.privacy.cloaking.cloaking_release`,
    :func:`~ssa_privacy.privacy.hall.standard_release` and the old-form
    ``CloakingMechanism.release(y, epsilon, delta, sensitivity, seed)`` return.

    Parameters
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
        """The guarantee and its check as a flat dict for a results row.

        Returns
        -------
        dict
            :meth:`PrivacyCheck.record` of the check.
        """
        return self.check.record()
