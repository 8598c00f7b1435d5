"""Privacy accounting: the Gaussian mechanism's exact delta, its calibration, and the
relations between PML, differential privacy and mutual information.

Every mechanism of :mod:`ssa_privacy.privacy` that adds Gaussian noise ends its
guarantee in one of these formulas; they live here once.

- Gaussian mechanism [BW18]: a release ``v + Z``, ``Z ~ N(0, Sigma)``, whose worst-case
  shift between neighbouring data sets has Mahalanobis norm ``m`` has privacy loss
  ``N(m^2/2, m^2)``; :func:`gaussian_mechanism_delta` is the exact delta at a given
  epsilon, :func:`analytic_gaussian_ratio` its inverse in m, and
  :func:`noise_multiplier` the noise per unit of sensitivity (Hall et al.'s
  ``c(delta)/epsilon`` or the analytic calibration).
- PML budget [LKC Theorem 3.3, Corollary 3.4]: the smallest feasible epsilon (9), the
  largest a noise design can meaningfully aim at in floating point
  (:func:`maximum_epsilon`; :func:`design_epsilon` is the budget a design aims at), and the
  log-det ratio (8) a linear Gaussian mechanism must keep, in both conventions
  (:func:`log_det_ratio_bound`, :data:`~ssa_privacy.privacy.notions.CONVENTIONS`; the
  leakage itself: :mod:`ssa_privacy.privacy.pml.leakage`).
- PML relations [LKC Theorems 3.9 and 3.11]: the DP and mutual-information guarantees
  implied by (epsilon, delta)-PML privacy of a linear Gaussian mechanism, and back.

The derivations, a comparison of the two calibrations and the reading notes on the
papers: :doc:`/theory/accounting`.

References
----------
[BW18] B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising", ICML 2018, Theorem 8.
[HRW13] R. Hall, A. Rinaldo, L. Wasserman, "Differential privacy for functions and
functional data", JMLR 2013, Proposition 3.
[LKC] L. Liu, Y. Kawano, M. Cao, "Privacy protection under the exposure of systems'
prior information".
"""

import functools

import numpy as np
from scipy import linalg, optimize, special, stats

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    nonempty,
    open_interval,
    positive,
    positive_int,
    real_array,
    scalar,
    scalar_or_array,
    unit_interval,
)
from ssa_privacy.privacy.notions import convention_weight

__all__ = [
    "CALIBRATIONS",
    "SMALLEST_NOISE_RATIO",
    "analytic_gaussian_ratio",
    "c_delta",
    "check_epsilon",
    "design_epsilon",
    "dp_to_pml_epsilon",
    "gaussian_mechanism_delta",
    "gaussian_mechanism_dp_delta",
    "log_det_ratio_bound",
    "maximum_epsilon",
    "maximum_information",
    "mi_to_pml_epsilon",
    "minimum_epsilon",
    "noise_multiplier",
    "pml_to_dp_delta",
    "pml_to_mi_epsilon",
    "privacy_loss_tail",
]

#: Noise calibrations: Hall et al.'s ``c(delta)/epsilon`` (proved for epsilon <= 1) or the
#: analytic Gaussian mechanism of Balle and Wang (2018), exact for every epsilon.
CALIBRATIONS = ("hall", "analytic")


def _degrees(l):
    array = real_array(l, "l")
    bad = ~np.isfinite(array) | (array < 1) | (array != np.round(array)) | (array > 2**53)
    if np.any(bad):
        raise ValueError(
            f"l (the rank of Sigma_XY) must be a positive integer (at most 2^53), got "
            f"{l!r:.60}; with l = 0 the release is independent of X and leaks nothing"
        )
    return array.astype(int)


def minimum_epsilon(delta, l):
    """Infimum of the feasible PML epsilon, ``F^{-1}_{chi^2_l}(1 - delta) / 2``.

    Parameters
    ----------
    delta : float or array_like
        Failure probability, in (0, 1).
    l : int or array_like
        Rank of ``Sigma_XY`` (degrees of freedom), >= 1.

    Returns
    -------
    float or ndarray
        The bound in nats; (epsilon, delta)-PML privacy needs ``epsilon`` strictly above it.

    Raises
    ------
    ValueError
        If ``delta`` is outside (0, 1) or ``l`` is not a positive integer.

    Notes
    -----
    [LKC] Corollary 3.4, necessary condition (9); the same in both conventions.
    """
    delta, l = unit_interval(delta, "delta"), _degrees(l)
    if delta.ndim == 0 and l.ndim == 0:  # the designers ask for one quantile many times
        return _cached_chi2_isf(float(delta), int(l)) / 2.0
    if delta.ndim == 0:  # and for a stack of measurements of a few distinct ranks
        ranks, where = np.unique(l, return_inverse=True)
        if ranks.size <= 16:
            quantiles = np.array([_cached_chi2_isf(float(delta), k) for k in ranks.tolist()])
            return quantiles[where].reshape(l.shape) / 2.0
    return stats.chi2.isf(delta, l) / 2.0


_cached_chi2_isf = functools.lru_cache(maxsize=256)(lambda q, l: float(stats.chi2.isf(q, l)))


def check_epsilon(epsilon, delta, l, name="epsilon"):
    """Return ``epsilon`` after checking the necessary condition (9) of PML holds.

    Parameters
    ----------
    epsilon : float or array_like
        Leakage bound in nats.
    delta : float or array_like
        Failure probability in (0, 1), broadcast against ``epsilon``.
    l : int or array_like
        Rank of ``Sigma_XY``.
    name : str, optional
        The argument's name in error messages.

    Returns
    -------
    float or ndarray
        ``epsilon`` as float(s).

    Raises
    ------
    ValueError
        If ``epsilon <= F^{-1}_{chi^2_l}(1 - delta) / 2``; the message names that smallest
        feasible epsilon (an infimum, not attained).

    Notes
    -----
    [LKC] Corollary 3.4, condition (9).
    """
    epsilon = as_finite_array(epsilon, name)
    floor = np.asarray(minimum_epsilon(delta, l))
    epsilon, floor = np.broadcast_arrays(epsilon, floor)
    bad = np.flatnonzero(epsilon <= floor)
    if bad.size:
        i = bad[0]
        where = "" if epsilon.ndim == 0 else f" (entry {i})"
        raise ValueError(
            f"{name} = {np.ravel(epsilon)[i]:.6g}{where} is infeasible: (epsilon, delta)-PML "
            f"privacy needs epsilon > F^-1_chi2_l(1 - delta) / 2 = {np.ravel(floor)[i]:.6g} "
            "([LKC] necessary condition (9)); choose epsilon above this smallest feasible value "
            "or a larger delta"
        )
    return scalar_or_array(epsilon.astype(float))


#: The smallest noise variance a design may ask for, relative to the signal's in the same
#: direction: the square of the unit roundoff. A smaller noise would not survive the
#: rounding of the released value (its standard deviation is below one ulp of the signal).
SMALLEST_NOISE_RATIO = np.finfo(float).eps ** 2 / 4


def maximum_epsilon(delta, l, convention="exact"):
    """Largest PML budget a noise design can meaningfully meet, nats.

    The leakage of a release whose noise has, in each of its l canonical directions, the
    variance ``u^2`` times the signal's (u the unit roundoff, 2^-53,
    :data:`SMALLEST_NOISE_RATIO`). The leakage grows with each direction's signal-to-noise
    ratio, so a design for a larger budget asks, in some direction, for noise whose
    standard deviation lies below the rounding of the released signal: the released
    floating-point values would be the exact measurements there, which no finite budget
    covers.

    Parameters
    ----------
    delta : float or array_like
        Failure probability in (0, 1).
    l : int or array_like
        The number of canonical directions released (rank of ``Sigma_XY``), >= 1.
    convention : {"exact", "paper"}
        Which PML formula (:func:`~ssa_privacy.privacy.notions.convention_weight`).

    Returns
    -------
    float or ndarray
        ``w l log(1 + 1 / u^2) / 2 + F^{-1}_{chi^2_l}(1 - delta) / 2``: 229 nats for
        l = 6 at delta = 0.01 in the exact convention.

    Raises
    ------
    ValueError
        On a bad ``delta``, ``l`` or ``convention``.

    Notes
    -----
    [LKC] Theorem 3.3, (8), with ``rho_i^2 = lambda / (1 + lambda)`` at the
    signal-to-noise ratio ``lambda = 1 / u^2`` in every direction.
    """
    weight = convention_weight(convention)
    return scalar_or_array(
        weight * np.asarray(maximum_information(l)) + np.asarray(minimum_epsilon(delta, l))
    )


def maximum_information(l):
    """Largest mutual information a noise design can meaningfully release, nats.

    Parameters
    ----------
    l : int or array_like
        The number of canonical directions released, >= 1.

    Returns
    -------
    float or ndarray
        ``l log(1 + 1 / u^2) / 2`` (36.7 nats per direction): the information of a noise
        with ``u^2`` times the signal's variance in each direction
        (:data:`SMALLEST_NOISE_RATIO`); more would ask for noise below the rounding of
        the released signal in some direction.

    Raises
    ------
    ValueError
        If ``l`` is not a positive integer.
    """
    return scalar_or_array(_degrees(l) * (0.5 * np.log1p(1.0 / SMALLEST_NOISE_RATIO)))


def design_epsilon(epsilon, delta, l, convention="exact", name="epsilon"):
    """The budget a noise design aims at: ``epsilon``, at most the largest meaningful one.

    Below :func:`maximum_epsilon` the design meets ``epsilon`` itself. Above it, the
    design aims at that largest meaningful budget: its noise meets ``epsilon`` too (its
    leakage is smaller), and any less noise would lie below the rounding of the released
    signal in some direction, so as epsilon grows the noise falls to that floor and the
    certificate of ``epsilon`` passes.

    Parameters
    ----------
    epsilon : float or array_like
        The budget, nats, above condition (9).
    delta : float or array_like
        Failure probability in (0, 1), broadcast against ``epsilon``.
    l : int or array_like
        The number of canonical directions the design releases, >= 1.
    convention : {"exact", "paper"}
        Which PML formula.
    name : str, optional
        The argument's name in error messages.

    Returns
    -------
    float or ndarray
        ``min(epsilon, maximum_epsilon(delta, l, convention))``, nats.

    Raises
    ------
    TypeError
        If ``epsilon`` is not made of real numbers.
    ValueError
        If an ``epsilon`` is not finite or lies at or below :func:`minimum_epsilon`
        (condition (9): no noise meets it), naming that bound.
    """
    epsilon = check_epsilon(epsilon, delta, l, name)
    return scalar_or_array(np.minimum(epsilon, maximum_epsilon(delta, l, convention)))


def log_det_ratio_bound(epsilon, delta, l, convention="exact"):
    """Smallest admissible ``log det Gamma - log det Sigma_XX`` for (epsilon, delta)-PML.

    The budget a linear Gaussian mechanism's noise must meet: its posterior covariance
    ``Gamma`` of the private state must keep this much of the prior ``Sigma_XX``.

    Parameters
    ----------
    epsilon : float or array_like
        Leakage bound in nats, above :func:`minimum_epsilon`.
    delta : float or array_like
        Failure probability in (0, 1).
    l : int or array_like
        Rank of ``Sigma_XY``.
    convention : {"exact", "paper"}
        Which PML formula the guarantee refers to (:func:`~ssa_privacy.privacy.notions.convention_weight`).

    Returns
    -------
    float or ndarray
        ``(F^{-1}_{chi^2_l}(1 - delta) - 2 epsilon) / w`` (negative), nats. It equals
        ``n log kappa_l`` of [LKC] (11) in the paper convention.

    Raises
    ------
    ValueError
        On a bad ``delta``, ``l`` or ``convention``, or an ``epsilon`` violating (9).

    Notes
    -----
    [LKC] Theorem 3.3, condition (8); both conventions: :doc:`/theory/pml`.
    """
    weight = convention_weight(convention)
    epsilon = check_epsilon(epsilon, delta, l)
    return scalar_or_array(
        (2.0 * np.asarray(minimum_epsilon(delta, l)) - 2.0 * np.asarray(epsilon)) / weight
    )


def _epsilon_for_bound(bound, delta, l, convention):
    """Inverse of :func:`log_det_ratio_bound` in epsilon."""
    return scalar_or_array(
        (
            2.0 * np.asarray(minimum_epsilon(delta, l))
            - convention_weight(convention) * np.asarray(bound)
        )
        / 2.0
    )


def c_delta(delta):
    """Hall et al.'s noise constant ``c(delta) = sqrt(2 ln(2 / delta))``.

    Parameters
    ----------
    delta : float
        Target delta, in (0, 1).

    Returns
    -------
    float
        c(delta) (dimensionless).

    Raises
    ------
    ValueError
        If delta is not in (0, 1).

    Notes
    -----
    Hall, Rinaldo and Wasserman (2013), Proposition 3 (with its proof for
    epsilon <= 1); [SMI] §2-3; :doc:`/theory/accounting`.
    """
    return float(np.sqrt(2.0 * np.log(2.0 / open_interval(delta, "delta"))))


def gaussian_mechanism_delta(mahalanobis_sensitivity, epsilon):
    """Exact delta of a Gaussian mechanism at ``epsilon``.

    For a release ``v_D + Z`` with ``Z ~ N(0, Sigma)`` whose worst-case shift has
    Mahalanobis norm ``m = max ||Sigma^{-1/2} (v_D - v_D')||``, the privacy loss is
    ``N(m^2/2, m^2)`` and the smallest delta with (epsilon, delta)-DP is

        Phi(m/2 - epsilon/m) - exp(epsilon) Phi(-m/2 - epsilon/m).

    Parameters
    ----------
    mahalanobis_sensitivity : float or array_like
        m >= 0 (dimensionless, noise standard units); for a scalar-noise mechanism the
        sensitivity over the noise standard deviation.
    epsilon : float
        epsilon >= 0.

    Returns
    -------
    float or ndarray
        The exact delta (0 where m = 0), of the shape of ``mahalanobis_sensitivity``.

    Raises
    ------
    ValueError
        If m or epsilon is negative or non-finite.

    Notes
    -----
    [BW18] Theorem 8; [LKC] Theorem 3.9 calls it phi. The second term is evaluated as
    ``exp(epsilon + log Phi(.))`` so that it neither overflows nor underflows.

    Examples
    --------
    >>> from ssa_privacy.privacy.accounting import gaussian_mechanism_delta
    >>> round(gaussian_mechanism_delta(1.0, 1.0), 6)
    0.126937
    """
    return _gaussian_delta(mahalanobis_sensitivity, epsilon, ("mahalanobis_sensitivity", "epsilon"))


def _gaussian_delta(mahalanobis_sensitivity, epsilon, names):
    """:func:`gaussian_mechanism_delta` with the caller's argument names in its errors."""
    m = as_finite_array(mahalanobis_sensitivity, names[0])
    epsilon = scalar(epsilon, names[1], low=0.0)
    if np.any(m < 0):
        raise ValueError(f"{names[0]} must be >= 0, got {mahalanobis_sensitivity!r}")
    safe = np.where(m > 0, m, 1.0)
    first = special.ndtr(safe / 2 - epsilon / safe)
    second = np.exp(epsilon + special.log_ndtr(-safe / 2 - epsilon / safe))
    return scalar_or_array(np.where(m > 0, np.maximum(first - second, 0.0), 0.0))


def privacy_loss_tail(mahalanobis_sensitivity, epsilon):
    """Probability that the Gaussian privacy loss exceeds ``epsilon``: ``Phi(m/2 - epsilon/m)``.

    This is the quantity an empirical DP check estimates (the fraction of draws with
    ``p_D / p_D' > e^epsilon``, as in the reference implementation of [SMI]); it bounds
    the exact delta of :func:`gaussian_mechanism_delta` from above
    (:doc:`/theory/accounting`).

    Parameters
    ----------
    mahalanobis_sensitivity : float
        m > 0 (noise standard units).
    epsilon : float
        epsilon >= 0.

    Returns
    -------
    float
        P[L > epsilon] with L ~ N(m^2/2, m^2).

    Raises
    ------
    ValueError
        If m is not positive or epsilon is negative or not finite.
    TypeError
        If an argument is not a real number (a bool, a string, None).
    """
    m = positive(mahalanobis_sensitivity, "mahalanobis_sensitivity")
    epsilon = scalar(epsilon, "epsilon", low=0.0)
    return float(special.ndtr(m / 2 - epsilon / m))


def noise_multiplier(epsilon, delta, calibration="hall"):
    """Noise standard deviation per unit of Mahalanobis sensitivity.

    A release ``v + Delta * s * N(0, M)``, with ``Delta`` the worst-case Mahalanobis
    shift measured in ``M``, is (epsilon, delta)-DP for ``s`` returned here.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, > 0 (for ``"hall"`` at most 1).
    delta : float
        Privacy parameter in (0, 1).
    calibration : {"hall", "analytic"}
        ``"hall"``: ``s = c(delta) / epsilon`` (Hall et al. 2013, Prop. 3; its proof
        needs epsilon <= 1). ``"analytic"``: the smallest ``s`` whose exact delta
        (Balle and Wang 2018, Theorem 8) equals the target, valid for every epsilon.

    Returns
    -------
    float
        The multiplier s (dimensionless).

    Raises
    ------
    ValueError
        For an unknown calibration, epsilon <= 0, delta outside (0, 1), or
        ``calibration="hall"`` with epsilon > 1.
    """
    epsilon = positive(epsilon, "epsilon")
    open_interval(delta, "delta")
    if not isinstance(calibration, str) or calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    if calibration == "hall":
        if epsilon > 1:
            raise ValueError(
                f"epsilon = {epsilon} > 1: Hall et al.'s c(delta)/epsilon calibration is "
                "proved only for epsilon <= 1; use calibration='analytic'"
            )
        return c_delta(delta) / epsilon
    if calibration == "analytic":
        return 1.0 / analytic_gaussian_ratio(epsilon, delta)
    raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")


def analytic_gaussian_ratio(epsilon_DP, delta_DP):
    """Largest sensitivity-to-noise ratio of an (epsilon_DP, delta_DP)-DP Gaussian mechanism.

    Parameters
    ----------
    epsilon_DP : float
        Differential-privacy epsilon, >= 0.
    delta_DP : float
        Differential-privacy delta in (0, 1).

    Returns
    -------
    float
        ``phi^{-1}_{epsilon_DP}(delta_DP)`` of [LKC] Theorem 3.9: the m with
        ``gaussian_mechanism_delta(m, epsilon_DP) = delta_DP``. delta is increasing in m,
        so the root is unique; it is found by Brent's method on ``log m`` against
        ``log delta``, which keeps relative accuracy for very small delta.

    Raises
    ------
    ValueError
        If ``delta_DP`` is outside (0, 1) or ``epsilon_DP`` negative.

    Notes
    -----
    [BW18] Theorem 8 (the analytic Gaussian mechanism); [LKC] Lemma 10.1.
    """
    delta_DP = open_interval(delta_DP, "delta_DP")
    epsilon_DP = scalar(epsilon_DP, "epsilon_DP", low=0.0)

    def excess(log_m):
        return np.log(gaussian_mechanism_delta(np.exp(log_m), epsilon_DP) + 1e-300) - np.log(
            delta_DP
        )

    high = 1.0
    while excess(high) < 0:
        high += 1.0
    return float(np.exp(optimize.brentq(excess, -30.0, high, xtol=1e-14)))


def gaussian_mechanism_dp_delta(C, Theta, epsilon_DP, zeta):
    """delta_DP of ``M(x) = C x + V``, ``V ~ N(0, Theta)``, for neighbours ``|x - x'| <= zeta``.

    Parameters
    ----------
    C : array_like, shape (m, n)
        Output matrix.
    Theta : array_like, shape (m, m)
        Noise covariance, positive definite.
    epsilon_DP : float
        Differential-privacy epsilon, >= 0.
    zeta : float
        Adjacency radius in state units, > 0.

    Returns
    -------
    float
        The smallest delta_DP with (epsilon_DP, delta_DP)-DP.

    Raises
    ------
    ValueError
        On invalid shapes, a Theta not positive definite, or a non-positive ``zeta``.

    Notes
    -----
    [LKC] Lemma 10.1: the sensitivity ratio is ``zeta sqrt(lambda_max(C^T Theta^{-1} C))``;
    [BW18] Theorem 8.
    """
    zeta = positive(zeta, "zeta")
    scalar(epsilon_DP, "epsilon_DP", low=0.0)
    L_Theta = nonempty(pd_cholesky(Theta, "Theta"), "Theta")
    C = nonempty(as_matrix(C, "C", (L_Theta.shape[0], None)), "C")
    whitened = linalg.solve_triangular(L_Theta, C, lower=True)
    ratio = zeta * linalg.norm(whitened, 2)
    return gaussian_mechanism_delta(ratio, epsilon_DP)


def pml_to_dp_delta(Sigma_XX, epsilon, delta, l, epsilon_DP, zeta, convention="exact"):
    """DP guarantee implied by (epsilon, delta)-PML privacy of a linear Gaussian mechanism.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of X, positive definite.
    epsilon, delta : float
        The PML guarantee (epsilon in nats).
    l : int
        ``rank(C)``.
    epsilon_DP : float
        The DP epsilon asked for, >= 0.
    zeta : float
        Adjacency radius, state units, > 0.
    convention : {"exact", "paper"}
        The convention of the PML guarantee.

    Returns
    -------
    float
        The smallest delta_DP satisfying (18): the mechanism is (epsilon_DP, delta_DP)-DP;
        1 when epsilon is so large that the guarantee allows noise too small for the
        ratio of (18) to be a double (the release is then not DP at any finite level).

    Raises
    ------
    TypeError
        If a number is not a real number or ``l`` not an integer.
    ValueError
        On invalid inputs or an epsilon below (9).

    Notes
    -----
    [LKC] Theorem 3.9 (i), condition (18), with phi from [BW18]; kappa^n = exp of
    :func:`log_det_ratio_bound`.
    """
    zeta = positive(zeta, "zeta")
    scalar(epsilon_DP, "epsilon_DP", low=0.0)
    l = positive_int(l, "l")
    bound = float(log_det_ratio_bound(scalar(epsilon, "epsilon"), delta, l, convention))
    nonempty(pd_cholesky(Sigma_XX, "Sigma_XX"), "Sigma_XX")
    smallest = np.linalg.eigvalsh(psd_matrix(Sigma_XX, "Sigma_XX"))[0]
    with np.errstate(over="ignore"):
        ratio = zeta * np.exp(-0.5 * bound) / np.sqrt(smallest)
    return 1.0 if np.isinf(ratio) else gaussian_mechanism_delta(ratio, epsilon_DP)


def dp_to_pml_epsilon(Sigma_XX, epsilon_DP, delta_DP, zeta, delta, l, convention="exact"):
    """PML guarantee implied by (epsilon_DP, delta_DP)-DP of a linear Gaussian mechanism.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of X, positive definite.
    epsilon_DP, delta_DP : float
        The DP guarantee for neighbours at distance <= ``zeta``.
    zeta : float
        Adjacency radius, state units, > 0.
    delta : float
        The PML failure probability asked for, in (0, 1).
    l : int
        ``rank(C)``.
    convention : {"exact", "paper"}
        The convention of the PML guarantee returned.

    Returns
    -------
    float
        The smallest epsilon (nats) satisfying (19): the mechanism is (epsilon, delta)-PML
        private for every epsilon at or above it.

    Raises
    ------
    ValueError
        On invalid inputs.

    Notes
    -----
    [LKC] Theorem 3.9 (ii), condition (19), with phi^{-1} from [BW18].
    """
    pd_cholesky(Sigma_XX, "Sigma_XX")
    Sigma_XX = nonempty(psd_matrix(Sigma_XX, "Sigma_XX"), "Sigma_XX")
    zeta = positive(zeta, "zeta")
    delta = open_interval(delta, "delta")
    _degrees(l)
    convention_weight(convention)
    ratio = analytic_gaussian_ratio(epsilon_DP, delta_DP) / zeta
    bound = -np.linalg.slogdet(np.eye(Sigma_XX.shape[0]) + ratio**2 * Sigma_XX)[1]
    return _epsilon_for_bound(bound, delta, l, convention)


def pml_to_mi_epsilon(epsilon, delta, l, convention="exact"):
    """Mutual-information guarantee implied by (epsilon, delta)-PML privacy.

    Parameters
    ----------
    epsilon, delta : float
        The PML guarantee (nats).
    l : int
        ``rank(C)``.
    convention : {"exact", "paper"}
        The convention of the PML guarantee.

    Returns
    -------
    float
        ``-(n/2) log kappa``, nats: ``I(X; Y)`` is at most this (condition (21)).

    Raises
    ------
    ValueError
        On invalid inputs or an epsilon below (9).

    Notes
    -----
    [LKC] Theorem 3.11 (i), (21); both conventions: :doc:`/theory/pml`.
    """
    return -0.5 * log_det_ratio_bound(scalar(epsilon, "epsilon"), delta, l, convention)


def mi_to_pml_epsilon(epsilon_MI, delta, l, convention="exact"):
    """PML guarantee implied by ``I(X; Y) <= epsilon_MI``.

    Parameters
    ----------
    epsilon_MI : float
        Mutual-information bound, nats, > 0.
    delta : float
        The PML failure probability asked for, in (0, 1).
    l : int
        ``rank(C)``.
    convention : {"exact", "paper"}
        The convention of the PML guarantee returned.

    Returns
    -------
    float
        The smallest epsilon (nats) meeting (22) and (9): ``F^{-1}(1 - delta)/2 + w epsilon_MI``.

    Raises
    ------
    ValueError
        On invalid inputs.

    Notes
    -----
    [LKC] Theorem 3.11 (ii), (22); both conventions: :doc:`/theory/pml`.
    """
    epsilon_MI = positive(epsilon_MI, "epsilon_MI")
    open_interval(delta, "delta")
    _degrees(l)
    return _epsilon_for_bound(-2.0 * epsilon_MI, delta, l, convention)
