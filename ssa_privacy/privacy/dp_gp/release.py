"""What the DP-GP releases share: the prediction operator and the Gaussian certificate.

:func:`cloaking_matrix` is the linear map from private outputs to predictions at the
test inputs (its columns are the shifts between neighbouring data sets).
:func:`gaussian_check` turns the worst-case Mahalanobis shift of a Gaussian release
(recomputed from the noise covariance actually used, with a rigorous bound on its
rounding error by :func:`mahalanobis_enclosure`) into a
:class:`~ssa_privacy.privacy.mechanism.Certificate` of notion ``"dp"`` whose tolerance
bounds the rounding of its margin; :func:`least_inflation` finds the least inflation of
a tight design that passes it. The derivations are in the section "Certificates in
floating point" of :doc:`/theory/dp-gp`.
:class:`PrivacyCheck` is a certificate's verdict and evidence in the flat form of a results
row, as the binned release and the hyperparameter selection carry it.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import psd_matrix
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    nonempty,
    open_interval,
    positive,
    scalar,
)
from ssa_privacy.gp.kernels import kernel_matrix
from ssa_privacy.gp.regression import cholesky_with_jitter, noise_matrix
from ssa_privacy.privacy.accounting import c_delta, privacy_loss_tail
from ssa_privacy.privacy.dp_gp.gaussian_delta import delta_enclosure, widened
from ssa_privacy.privacy.mechanism import Certificate, FactoredCovariance
from ssa_privacy.privacy.rounding import (
    EXTRA,
    INFLATE,
    RULE,
    UNIT_ROUNDOFF,
    gamma,
    orthogonality_defect,
)

__all__ = [
    "CHECK_RTOL",
    "INFLATION_LIMIT",
    "PrivacyCheck",
    "RANGE_RTOL",
    "cloaking_matrix",
    "gaussian_check",
    "least_inflation",
    "mahalanobis_enclosure",
    "mahalanobis_sensitivity",
]

#: Relative slack of Hall's condition ``m <= epsilon / c(delta)`` in the evidence (the
#: condition is reported, it does not decide ``passed``).
CHECK_RTOL = 1e-9
#: The resolution of the range test: a shift whose component outside the range of the
#: noise covariance is above this fraction of its norm has an infinite Mahalanobis norm;
#: a smaller component is treated as round-off of the inputs and dropped.
RANGE_RTOL = 1e-10
#: Largest relative inflation of a designed noise standard deviation tried to make its
#: certificate pass (:func:`least_inflation`).
INFLATION_LIMIT = 1e-2
#: Evidence keys of a certificate that a :class:`PrivacyCheck` keeps elsewhere.
_CERTIFICATE_ONLY = ("mechanism", "rule")


def _kernel_blocks(kernel, X, X_star, test_prior=False):
    """``kernel(X_star, X)``, ``kernel(X)`` (and ``kernel(X_star)`` if ``test_prior``) of a
    kernel-based release, each checked for its shape and finiteness
    (:func:`~ssa_privacy.gp.kernels.kernel_matrix`)."""
    blocks = [
        kernel_matrix(kernel, X_star, X, names=("X_star", "X")),
        kernel_matrix(kernel, X, names=("X", "X")),
    ]
    if test_prior:
        blocks.append(kernel_matrix(kernel, X_star, names=("X_star", "X_star")))
    return blocks


def _representable_scale(scale):
    """``scale`` (a designed noise standard deviation) after checking its variance, with
    the inflation the certificate may add (``1 + INFLATION_LIMIT``), is a finite double.

    Raises
    ------
    ValueError
        Naming ``sensitivity``, when the variance overflows.
    """
    with np.errstate(over="ignore"):
        variance = np.square(np.float64(scale) * (1.0 + INFLATION_LIMIT))
    if not np.isfinite(variance):
        raise ValueError(
            f"sensitivity gives a noise standard deviation {scale:.6g} whose variance "
            "overflows a double; rescale the outputs (sensitivity)"
        )
    return scale


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

    A :class:`~ssa_privacy.privacy.mechanism.Certificate` of notion ``"dp"`` in the form
    of a results row; build it with :meth:`from_certificate`.

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


def gaussian_check(
    mechanism,
    mahalanobis_sensitivity,
    epsilon,
    delta,
    calibration,
    *,
    sensitivity_error=0.0,
    **evidence,
):
    """Certify a Gaussian-mechanism release from its worst-case Mahalanobis shift.

    Parameters
    ----------
    mechanism : str
        Description, stored as ``evidence["mechanism"]``.
    mahalanobis_sensitivity : float
        The computed largest ``||Sigma^{-1/2} (v_D - v_D')||`` over neighbours,
        recomputed from the final noise covariance ``Sigma`` (noise standard units);
        ``inf`` when a shift leaves the range of Sigma.
    epsilon, delta : float
        The guarantee claimed.
    calibration : str
        The calibration used (recorded; for ``"hall"`` the evidence also says whether
        Hall's condition ``m <= epsilon / c(delta)`` with ``epsilon <= 1`` holds).
    sensitivity_error : float, optional
        A rigorous bound on ``|m - m_exact|``, m the computed Mahalanobis sensitivity and
        ``m_exact`` that of the floating-point inputs (``inf`` if none is known). The
        default 0 takes m as exact.
    **evidence
        Further numbers to record.

    Returns
    -------
    Certificate
        Notion ``"dp"``, parameters ``epsilon``, ``delta``, ``calibration``; ``margin`` =
        delta minus the exact delta of the Gaussian mechanism at the computed m;
        ``tolerance`` = a rigorous bound on the distance to the margin at ``m_exact``;
        passed iff ``margin - tolerance >= 0``. Evidence: the description, the
        calibration, the Mahalanobis sensitivity and its enclosure
        (``sensitivity_lower``, ``sensitivity_upper``), the privacy-loss tail, the exact
        delta at m and at the upper end, Hall's condition, the extra numbers, and the
        rule behind ``passed``.

    Raises
    ------
    TypeError
        If ``mechanism`` is not a string or a number is not a real number.
    ValueError
        If the Mahalanobis sensitivity or its error is negative or NaN, epsilon is not
        positive, delta is outside (0, 1), or m and epsilon put the erfc arguments of the
        exact delta beyond mpmath's range (about 1e100) where the delta is not negligible.

    Notes
    -----
    The exact delta is [BW18] Theorem 8 (see
    :func:`~ssa_privacy.privacy.accounting.gaussian_mechanism_delta`), evaluated here by
    mpmath at ``rounding.DIGITS`` significant digits plus those the conditioning of its
    erfc arguments costs (:func:`~ssa_privacy.privacy.dp_gp.gaussian_delta.delta_enclosure`).
    It is increasing in m, so
    ``m_exact`` in ``[m_lo, m_hi] = [m - error, m + error]`` (each end rounded outwards)
    puts the exact delta in ``[delta(m_lo), delta(m_hi)]``; the tolerance is the larger
    distance from ``delta(m)`` to those ends, plus the accuracy of the mpmath values
    (``10^(5 - DIGITS)`` of the two terms) and the rounding of the margin to a float. An
    infinite m is exact (delta = 1: the two releases have different supports). Hall's
    condition is Hall, Rinaldo and Wasserman (2013), Proposition 3 ([SMI] eq. (5)); it
    is evidence only, with the relative slack ``CHECK_RTOL``.
    """
    if not isinstance(mechanism, str):
        raise TypeError(f"mechanism must be a string, got {type(mechanism).__name__}")
    m = scalar(mahalanobis_sensitivity, "mahalanobis_sensitivity", low=0.0, allow_inf=True)
    error = scalar(sensitivity_error, "sensitivity_error", low=0.0, allow_inf=True)
    epsilon, delta = positive(epsilon, "epsilon"), open_interval(delta, "delta")
    finite = bool(np.isfinite(m))
    lower, upper = widened(m, error)
    margin, tolerance, exact, exact_upper = delta_enclosure(m, lower, upper, epsilon, delta)
    tail = (privacy_loss_tail(m, epsilon) if m > 0 else 0.0) if finite else 1.0
    hall = bool(finite and epsilon <= 1 and m <= epsilon / c_delta(delta) * (1 + CHECK_RTOL))
    details = {
        "mechanism": mechanism,
        "calibration": calibration,
        "mahalanobis_sensitivity": m,
        "sensitivity_lower": lower,
        "sensitivity_upper": upper,
        "loss_tail": tail,
        "exact_delta": exact,
        "exact_delta_upper": exact_upper,
        "hall_condition": hall,
        **evidence,
        "rule": RULE,
    }
    parameters = {"epsilon": float(epsilon), "delta": float(delta), "calibration": calibration}
    return Certificate(
        "dp", parameters, bool(margin - tolerance >= 0.0), margin, tolerance, details
    )


def least_inflation(certify, root):
    """The least tried factor ``1 + tau`` on a designed noise standard deviation that passes.

    Parameters
    ----------
    certify : callable
        ``certify(factor)`` returns the :class:`Certificate` of the design with its noise
        standard deviation multiplied by ``factor`` (>= 1); it must record
        ``sensitivity_upper`` in its evidence (as :func:`gaussian_check` does).
    root : float
        The Mahalanobis sensitivity at which the exact delta equals the target
        (:func:`~ssa_privacy.privacy.accounting.analytic_gaussian_ratio`).

    Returns
    -------
    factor : float
        1 when the design passes as it is; otherwise the least ``1 + tau`` tried that
        passes, or 1 when none up to ``1 + INFLATION_LIMIT`` does.
    certificate : Certificate
        The certificate at that factor.

    Raises
    ------
    TypeError
        If ``certify`` is not callable or ``root`` not a real number.
    ValueError
        If ``root`` is not finite and positive.

    Notes
    -----
    Multiplying the noise standard deviation by ``1 + tau`` divides every Mahalanobis
    norm, and the ends of its enclosure, by ``1 + tau``; the design passes when the
    upper end is below the root (with the margin of the tolerance). tau starts at twice
    the relative excess ``m_hi / root - 1`` (at least 16 machine epsilons, for a root
    found to round-off) and doubles until the certificate passes.
    """
    if not callable(certify):
        raise TypeError(f"certify must be callable, got {type(certify).__name__}")
    root = positive(root, "root")
    certificate = certify(1.0)
    if certificate.passed:
        return 1.0, certificate
    excess = certificate.evidence["sensitivity_upper"] / root - 1.0
    tau = max(2.0 * excess, 16 * np.finfo(float).eps)
    while tau <= INFLATION_LIMIT:
        candidate = certify(1.0 + tau)
        if candidate.passed:
            return 1.0 + tau, candidate
        tau *= 2.0
    return 1.0, certificate


def _mahalanobis_squared(noise_covariance, shifts):
    """``g_i = s_i^T Sigma^+ s_i`` per column, with a rigorous enclosure.

    Returns the computed g and lower and upper bounds on the exact values for the stored
    factors ``Sigma = V diag(lambda) V^T`` (eigenvalues <= 0 contribute nothing and are
    dropped) and the stored shifts; all three are ``inf`` for a shift with a component
    outside the range of Sigma above ``RANGE_RTOL`` of its norm.

    Notes
    -----
    V is not exactly orthonormal: ``V^T V = I + E`` with ``||E||_2 <= omega``
    (:func:`~ssa_privacy.privacy.rounding.orthogonality_defect`); for omega < 1/2, V has
    full column rank and the projection of s onto its range is ``V a``, ``a = (I +
    E)^{-1} c``, ``c = V^T s``. The release draws ``V diag(sqrt(lambda)) z``, so the
    shift ``V a`` has Mahalanobis norm ``||Lambda^{-1/2} a||``, and with ``a = c - E a``

        g = ||Lambda^{-1/2} c||^2 - 2 (Lambda^{-1} c)^T E a + ||Lambda^{-1/2} E a||^2,

    ``|2 (Lambda^{-1} c)^T E a| <= 2 k ||Lambda^{-1} c|| ||c||`` and ``||Lambda^{-1/2} E
    a||^2 <= (k ||c||)^2 / lambda_min`` with ``k = omega / (1 - omega)``. The computed
    ``c^`` is off by at most ``e = gamma_{n+2} |V|^T |s|`` entrywise (Higham (3.13)), so
    ``| sum c^_k^2 / lambda_k - sum c_k^2 / lambda_k | <= sum e_k (2 |c^_k| + e_k) /
    lambda_k``; the sum itself (a square, a division and r - 1 additions of non-negative
    terms) is off by at most ``gamma_{r+2}`` of its value; the norms of the exact c use
    ``||c^|| + ||e||``. The component outside the range (exactly zero when r = n) is
    the resolution ``RANGE_RTOL``: below it, the projection ``V a`` is certified. It is
    measured as ``||s - V c^||``, which differs from it by about ``omega ||s||``; with
    ``r = n`` and omega < 1/2, V spans everything and no shift is outside.
    """
    keep = noise_covariance.eigenvalues > 0
    V, lam = noise_covariance.eigenvectors[:, keep], noise_covariance.eigenvalues[keep]
    coordinates = V.T @ shifts
    outside = np.zeros(shifts.shape[1], dtype=bool)
    if V.shape[1] < V.shape[0]:
        norms = np.linalg.norm(shifts, axis=0)
        outside = np.linalg.norm(shifts - V @ coordinates, axis=0) > RANGE_RTOL * norms
    g = np.sum(coordinates**2 / lam[:, None], axis=0)
    error = _mahalanobis_error(V, lam, shifts, coordinates, g)
    u = UNIT_ROUNDOFF
    lower = np.maximum(g - error, 0.0) * (1 - 4 * u)
    upper = (g + error) * (1 + 4 * u)
    return tuple(np.where(outside, np.inf, x) for x in (g, lower, upper))


def _mahalanobis_error(V, lam, shifts, coordinates, g):
    """The bound on ``|g - g_exact|`` of :func:`_mahalanobis_squared` per column."""
    n, r = V.shape
    if r == 0:
        return np.zeros(shifts.shape[1])
    omega = orthogonality_defect(V)
    if omega >= 0.5:
        return np.full(shifts.shape[1], np.inf)
    e = INFLATE * gamma(n + EXTRA) * (np.abs(V).T @ np.abs(shifts))
    spread = np.sum(e * (2 * np.abs(coordinates) + e) / lam[:, None], axis=0)
    size = np.linalg.norm(coordinates, axis=0) + np.linalg.norm(e, axis=0)
    weighted = np.linalg.norm(coordinates / lam[:, None], axis=0) + np.linalg.norm(
        e / lam[:, None], axis=0
    )
    k = omega / (1.0 - omega)
    coupling = 2 * k * weighted * size + (k * size) ** 2 / float(np.min(lam))
    return INFLATE**2 * (gamma(r + EXTRA) * g + spread + coupling)


def _root_enclosure(g, lower, upper, factor=1.0, roundings=0):
    """``m = factor sqrt(g)`` and a bound on ``|m - factor_exact sqrt(g_exact)|``.

    ``g_exact`` lies in ``[lower, upper]``; ``factor`` is the computed value of
    ``factor_exact`` after ``roundings`` roundings. The square root (IEEE, correctly
    rounded; 2 ulps, 4 u relative, allowed) and the product add ``gamma_5``.
    """
    m = factor * float(np.sqrt(g))
    if not np.isfinite(m):
        return m, 0.0
    slack = gamma(5 + roundings)
    low = factor * float(np.sqrt(lower)) * (1 - slack)
    high = factor * float(np.sqrt(upper)) * (1 + slack)
    return m, max(high - m, m - low) * (1 + 2 * UNIT_ROUNDOFF)


def mahalanobis_enclosure(noise_covariance, shifts, factor=1.0):
    """Largest Mahalanobis norm of the shifts, with a rigorous bound on its rounding error.

    Parameters
    ----------
    noise_covariance : FactoredCovariance
        ``Sigma = V diag(lambda) V^T`` of dimension m, taken exactly from its factors.
    shifts : ndarray, shape (m, n)
        The possible changes of the released vector between neighbours, as columns,
        divided by ``factor`` (units of the data over those of ``factor``).
    factor : float
        A positive multiplier of every shift (for example the sensitivity d), taken
        exactly.

    Returns
    -------
    m : float
        ``factor * max_i sqrt(s_i^T Sigma^+ s_i)`` as computed, or ``inf`` when some shift
        has a component outside the range of Sigma above ``RANGE_RTOL`` of its norm.
    error : float
        A bound on ``|m - m_exact|`` (see :func:`_mahalanobis_squared`; inf when the
        eigenvectors are too far from orthonormal).

    Raises
    ------
    TypeError
        If ``noise_covariance`` is not a FactoredCovariance or ``factor`` not a real
        number.
    ValueError
        If ``shifts`` is not a finite, non-empty (m, n) matrix or ``factor`` not finite and
        positive.
    """
    shifts = _shifts(noise_covariance, shifts)
    factor = positive(factor, "factor")
    g, lower, upper = _mahalanobis_squared(noise_covariance, shifts)
    return _root_enclosure(float(np.max(g)), float(np.max(lower)), float(np.max(upper)), factor)


def _shifts(noise_covariance, shifts):
    """Validated shifts of a factored noise covariance."""
    if not isinstance(noise_covariance, FactoredCovariance):
        raise TypeError(
            f"noise_covariance must be a FactoredCovariance, got {type(noise_covariance).__name__}"
        )
    shifts = as_matrix(shifts, "shifts", (noise_covariance.dim, None))
    return nonempty(shifts, "shifts")


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
        releases have different supports and no delta < 1 holds). Its rounding error
        is bounded by :func:`mahalanobis_enclosure`.

    Raises
    ------
    TypeError
        If ``noise_covariance`` is not a FactoredCovariance.
    ValueError
        If ``shifts`` is not a finite, non-empty (m, n) matrix.
    """
    return mahalanobis_enclosure(noise_covariance, shifts)[0]
