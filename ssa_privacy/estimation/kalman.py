"""Kalman filtering of privatized outputs, and the PML lower bounds on its error [LKC §4].

The adversary (or the fusion centre) observes ``Y_k = C X_k + V_k``, ``V_k ~ N(0, Theta)``,
of a plant ``X_{k+1} = A X_k + W_k`` and runs the Kalman filter. Its steady-state filtered
error covariance ``P`` comes from the DARE; (epsilon, delta)-PML privacy of the static
mechanism ``Y = C X + V`` with the stationary prior ``Sigma_XX`` bounds ``P`` from below::

    log det P >= log det Q + log det Gamma - log det Sigma_XX     (chain, from [LKC] (55))
              >= log_det_ratio_bound(epsilon, delta, l) + log det Q     ([LKC] (28))
    trace P   >= n det(P)^(1/n) = n exp(log det P / n)            (AM-GM, never below (29))
              >= n + log det P                                    ([LKC] Corollary 4.2, (29))

The middle step holds only when the mechanism is private in the convention used for the
bound: in the paper convention ``log_det_ratio_bound = F^{-1}(1 - delta)/2 - epsilon``,
in the exact one ``F^{-1}(1 - delta) - 2 epsilon``. A Theta designed in the exact
convention is in general *not* private in the paper convention, so the paper's (28) does
not apply to it. The derivation and its reading notes: :doc:`/theory/kalman-bounds`.

Every function takes the plant as an :class:`~ssa_privacy.plants.LTIPlant` or a
discrete-time python-control ``StateSpace`` (with ``process_noise``, the covariance of its
input, default identity: :meth:`~ssa_privacy.plants.LTIPlant.from_statespace`), and Theta
as a matrix, a :class:`~ssa_privacy.privacy.mechanism.FactoredCovariance` or a
:class:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism` (its noise covariance).
A mechanism from :func:`~ssa_privacy.privacy.pml.plant.design_noise` carries the ``Q`` it
was designed with: a StateSpace given without ``process_noise`` takes that ``Q``, and a
plant with another ``Q`` is refused.

The bounds need ``Q > 0`` (``log det Q`` is finite only then); for a singular ``Q`` (noise
entering through fewer inputs than states) :func:`error_covariance_bounds` reports that
they do not apply, and why.

Units: covariances in state units squared; log-determinants of those values.
"""

from dataclasses import dataclass

import numpy as np
from filterpy.kalman import KalmanFilter
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    non_negative_int,
    nonempty,
    open_interval,
    positive_int,
    scalar,
    vector,
)
from ssa_privacy.plants import LTIPlant, as_plant
from ssa_privacy.privacy.accounting import log_det_ratio_bound
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.pml.cone_design import DESIGN_ATOL
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism
from ssa_privacy.privacy.pml.leakage import (
    gaussian_mechanism,
    is_pml_private,
    linear_mechanism_covariances,
    mutual_information,
)

__all__ = [
    "ErrorBounds",
    "SteadyState",
    "am_gm_trace_bound",
    "empirical_error_covariance",
    "error_covariance_bounds",
    "filter_outputs",
    "kalman_filter",
    "steady_state",
]


@dataclass(frozen=True)
class SteadyState:
    """Steady-state Kalman filter of a plant observed through ``Y = C X + V``.

    Parameters
    ----------
    P : ndarray, shape (n, n)
        Filtered error covariance ``lim E[(X_k - Xhat_{k|k})(...)^T]``, [LKC] (26).
    P_pred : ndarray, shape (n, n)
        Predicted error covariance, the DARE solution ``P^-`` of [LKC] (56).
    K : ndarray, shape (n, m)
        Filter gain ``P^- C^T (C P^- C^T + Theta)^{-1}`` (filterpy's ``K``; python-control's
        ``dlqe`` predictor gain is ``A K``).
    """

    P: np.ndarray
    P_pred: np.ndarray
    K: np.ndarray


def _designed_plant(plant, mechanism, process_noise):
    """The plant as an LTIPlant with the process noise ``mechanism`` was designed with.

    A StateSpace given without ``process_noise`` takes the mechanism's ``Q``; any other
    plant must have that ``Q`` (to round-off), else ValueError naming both.
    """
    given = isinstance(plant, LTIPlant) or process_noise is not None
    plant = as_plant(plant, process_noise)
    Q = mechanism.process_noise
    if Q is None:
        return plant
    if Q.shape == plant.Q.shape and not given:
        return LTIPlant(plant.A, plant.C, Q, plant.dt)
    if Q.shape != plant.Q.shape or not np.allclose(
        plant.Q, Q, rtol=1e-9, atol=1e-12 * np.max(np.abs(Q))
    ):
        raise ValueError(
            f"the plant's process-noise covariance Q (shape {plant.Q.shape}, trace "
            f"{np.trace(plant.Q):.6g}) differs from the Q the mechanism Theta was designed "
            f"with (shape {Q.shape}, trace {np.trace(Q):.6g}): give the plant or the "
            "process_noise of the design"
        )
    return plant


def _plant_and_theta(plant, Theta, process_noise):
    """The plant as an LTIPlant and Theta as a dense symmetric positive definite matrix."""
    if not isinstance(Theta, LinearGaussianMechanism):
        plant = as_plant(plant, process_noise)
    else:
        plant = _designed_plant(plant, Theta, process_noise)
        basis = Theta.state_basis
        C = plant.C if basis is None or basis.shape[0] != plant.n else plant.C @ basis
        if Theta.C is not None and (Theta.C.shape != C.shape or not np.allclose(Theta.C, C)):
            raise ValueError("the mechanism Theta was designed for another C than the plant's")
        Theta = Theta.noise_covariance
    if isinstance(Theta, FactoredCovariance):
        Theta = Theta.matrix()
    pd_cholesky(Theta, "Theta", plant.m)
    Theta = as_matrix(Theta, "Theta")
    return plant, 0.5 * (Theta + Theta.T)


def steady_state(plant, Theta, *, process_noise=None):
    """Steady-state Kalman filter covariances and gain, from the DARE.

    Parameters
    ----------
    plant : LTIPlant or control.StateSpace
        The plant (A, C, Q); a StateSpace must be discrete time.
    Theta : array_like, shape (m, m), FactoredCovariance or LinearGaussianMechanism
        Measurement (privacy) noise covariance, positive definite, output units squared
        (a mechanism's noise covariance).
    process_noise : array_like, shape (p, p), optional
        Covariance of the input of a StateSpace plant (default identity, or the ``Q`` a
        mechanism ``Theta`` was designed with).

    Returns
    -------
    SteadyState
        ``P`` (filtered), ``P_pred`` (predicted) and the gain ``K``.

    Raises
    ------
    ValueError
        If ``Theta`` has the wrong shape or is not symmetric positive definite, if the
        plant's ``Q`` differs from the one the mechanism ``Theta`` was designed with, or
        as :func:`~ssa_privacy.plants.as_plant`.
    TypeError
        If ``plant`` is not a plant.

    Notes
    -----
    [LKC] DARE (56) solved by :func:`scipy.linalg.solve_discrete_are` (dual form), then
    ``P = P^- - P^- C^T (C P^- C^T + Theta)^{-1} C P^-`` ([LKC] proof of Theorem 4.1).
    """
    plant, Theta = _plant_and_theta(plant, Theta, process_noise)
    A, C = plant.A, plant.C
    P_pred = linalg.solve_discrete_are(A.T, C.T, plant.Q, Theta)
    P_pred = 0.5 * (P_pred + P_pred.T)
    innovation = linalg.cho_factor(C @ P_pred @ C.T + Theta, lower=True)
    K = linalg.cho_solve(innovation, C @ P_pred).T
    P = P_pred - K @ C @ P_pred
    return SteadyState(P=0.5 * (P + P.T), P_pred=P_pred, K=K)


def kalman_filter(plant, Theta, x0=None, P0=None, *, process_noise=None):
    """A filterpy :class:`~filterpy.kalman.KalmanFilter` for the privatized plant.

    Parameters
    ----------
    plant : LTIPlant or control.StateSpace
        The plant (A, C, Q).
    Theta : array_like, shape (m, m), FactoredCovariance or LinearGaussianMechanism
        Measurement noise covariance, positive definite.
    x0 : array_like, shape (n,), optional
        Prior mean of ``X_0`` (default 0, the stationary mean).
    P0 : array_like, shape (n, n), optional
        Prior covariance of ``X_0``, positive semi-definite (default ``Sigma_XX`` of
        [LKC] (27), singular when the process noise does not reach every state).
    process_noise : array_like, shape (p, p), optional
        Covariance of the input of a StateSpace plant (default identity).

    Returns
    -------
    filterpy.kalman.KalmanFilter
        With ``F = A``, ``H = C``, ``Q``, ``R = Theta`` and the prior of ``X_0`` loaded, so
        that the first call must be ``update`` (then ``predict``).

    Raises
    ------
    ValueError
        On wrong shapes or invalid covariances.

    Notes
    -----
    [LKC] filter (24)-(25).
    """
    plant, Theta = _plant_and_theta(plant, Theta, process_noise)
    kf = KalmanFilter(dim_x=plant.n, dim_z=plant.m)
    kf.F, kf.H, kf.Q, kf.R = plant.A.copy(), plant.C.copy(), plant.Q.copy(), Theta
    if x0 is not None:
        kf.x = vector(x0, "x0", plant.n)[:, None].copy()
    P0 = plant.prior_covariance() if P0 is None else P0
    kf.P = psd_matrix(P0, "P0", plant.n).copy()
    return kf


def filter_outputs(plant, Theta, Y, x0=None, P0=None, *, process_noise=None):
    """Filtered state estimates ``Xhat_{k|k}`` of privatized outputs, run by run.

    Parameters
    ----------
    plant : LTIPlant or control.StateSpace
        The plant (A, C, Q).
    Theta : array_like, shape (m, m), FactoredCovariance or LinearGaussianMechanism
        Measurement noise covariance, positive definite.
    Y : array_like, shape (T, m) or (R, T, m)
        The outputs ``Y_0 ... Y_{T-1}`` of one run or R runs.
    x0, P0 : optional
        Prior of ``X_0``, as :func:`kalman_filter`.
    process_noise : array_like, shape (p, p), optional
        Covariance of the input of a StateSpace plant (default identity).

    Returns
    -------
    X_hat : ndarray, shape (T, n) or (R, T, n)
        Filtered estimates, state units.
    P : ndarray, shape (T, n, n)
        Filtered error covariances ``P_k`` (the same for every run).

    Raises
    ------
    ValueError
        On wrong shapes, non-finite outputs or invalid covariances.

    Notes
    -----
    [LKC] (24)-(25), through :meth:`filterpy.kalman.KalmanFilter.batch_filter` with the
    update first (the prior is that of ``X_0``).
    """
    plant, Theta = _plant_and_theta(plant, Theta, process_noise)
    Y = as_finite_array(Y, "Y")
    if Y.ndim not in (2, 3) or Y.shape[-1] != plant.m:
        raise ValueError(f"Y must have shape (T, {plant.m}) or (R, T, {plant.m}), got {Y.shape}")
    nonempty(Y, "Y")
    runs = Y.reshape(-1, *Y.shape[-2:])
    estimates = np.empty((*runs.shape[:2], plant.n))
    for r, outputs in enumerate(runs):
        kf = kalman_filter(plant, Theta, x0, P0)
        means, covariances, _, _ = kf.batch_filter(outputs[:, :, None], update_first=True)
        estimates[r] = means[:, :, 0]
    return estimates.reshape(*Y.shape[:-1], plant.n), covariances


@dataclass(frozen=True)
class ErrorBounds:
    """Lower bounds on the steady-state filtered error covariance P, [LKC] §4.

    Parameters
    ----------
    log_det_chain : float
        ``log det Q + log det Gamma - log det Sigma_XX`` for the actual Theta (always valid).
    log_det : float
        [LKC] (28) in the chosen convention: ``log_det_ratio_bound + log det Q``.
    trace_chain : float
        ``n + log_det_chain`` (always valid).
    trace : float
        [LKC] (29): ``n + log_det``.
    applies : bool
        Whether the mechanism ``Y = C X + V`` is (epsilon, delta)-PML private in the chosen
        convention (to ``DESIGN_ATOL`` nats); (28), (29) and ``trace_am_gm`` are
        guaranteed only when it is.
    convention : str
        The convention of ``log_det``, ``trace``, ``trace_am_gm`` and ``applies``.
    trace_chain_am_gm : float
        ``n exp(log_det_chain / n)``: the chain bound on ``log det P`` turned into a trace
        bound by the AM-GM inequality (always valid, at least ``trace_chain``, positive).
    trace_am_gm : float
        ``n exp(log_det / n)``: (28) turned into a trace bound by the AM-GM inequality; at
        least ``trace`` (29) and positive, where (29) is often negative (vacuous).
    trace_vacuous : bool
        Whether (29) is vacuous, ``n + log_det <= 0``: a trace is positive, so such a
        bound holds for every P and says nothing.
    trace_chain_vacuous : bool
        Whether ``trace_chain <= 0``, vacuous likewise.
    reason : str
        Why the bounds do not apply (empty when ``applies``): the mechanism is not private
        in the convention, or ``Q`` is singular, so that ``log det Q = -inf`` and every
        bound is ``-inf`` (log-det, trace) or 0 (AM-GM).

    Notes
    -----
    For the eigenvalues ``p_i > 0`` of P, ``tr P / n >= (prod p_i)^(1/n)`` (arithmetic
    and geometric means), so ``tr P >= n exp(log det P / n)``; and ``exp(x) >= 1 + x``
    gives ``n exp(b / n) >= n + b``: the AM-GM form is never looser than (29). See
    :doc:`/theory/kalman-bounds`.
    """

    log_det_chain: float
    log_det: float
    trace_chain: float
    trace: float
    applies: bool
    convention: str
    trace_chain_am_gm: float = None
    trace_am_gm: float = None
    trace_vacuous: bool = None
    trace_chain_vacuous: bool = None
    reason: str = ""


def error_covariance_bounds(
    plant, Theta, epsilon=None, delta=None, convention=None, *, process_noise=None
):
    """The lower bounds of [LKC] §4 on the steady-state Kalman error covariance.

    Parameters
    ----------
    plant : LTIPlant or control.StateSpace
        The plant (A, C, Q); the prior ``Sigma_XX`` is its stationary covariance (27).
    Theta : array_like, shape (m, m), FactoredCovariance or LinearGaussianMechanism
        Measurement noise covariance, positive definite. A mechanism also supplies the
        defaults of ``epsilon``, ``delta`` and ``convention``.
    epsilon : float
        Leakage bound, nats, above the necessary condition (9); required unless Theta is
        a mechanism.
    delta : float
        Failure probability in (0, 1); required unless Theta is a mechanism.
    convention : {"exact", "paper"}, optional
        Convention of (28)-(29) and of the privacy check ``applies`` (default: the
        mechanism's, else exact).
    process_noise : array_like, shape (p, p), optional
        Covariance of the input of a StateSpace plant (default identity).

    Returns
    -------
    ErrorBounds
        The chain bound (for this Theta), (28), their trace versions ((29) and the AM-GM
        form ``n exp(log det bound / n)``, never looser), whether the trace forms are
        vacuous (``<= 0``), and whether (28)-(29) apply (the mechanism is private in the
        convention and ``Q > 0``), with the reason when they do not.

    Raises
    ------
    ValueError
        On invalid covariances, ``delta`` outside (0, 1), ``epsilon`` below (9), or a
        missing ``epsilon`` or ``delta``.
    TypeError
        If epsilon or delta is not a real number (a bool, a string).

    Notes
    -----
    [LKC] Theorem 4.1, (28) and its proof (55); Corollary 4.2, (29); the AM-GM trace
    bound and both conventions in :doc:`/theory/kalman-bounds`. Since
    ``log det Gamma - log det Sigma_XX = -2 I(X; Y)``, the chain bound is
    ``log det Q - 2 I(X; Y)``.
    """
    if isinstance(Theta, LinearGaussianMechanism):
        epsilon = Theta.epsilon if epsilon is None else epsilon
        delta = Theta.delta if delta is None else delta
        convention = Theta.convention if convention is None else convention
    if epsilon is None or delta is None:
        raise ValueError("epsilon and delta are required unless Theta is a mechanism")
    epsilon, delta = scalar(epsilon, "epsilon"), open_interval(delta, "delta")
    convention = "exact" if convention is None else convention
    plant, Theta = _plant_and_theta(plant, Theta, process_noise)
    singular = _singular_noise_reason(plant.Q)
    if singular:
        return _vacuous_bounds(plant.n, convention, singular)
    Sigma_XX = plant.prior_covariance()
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(plant.C, Sigma_XX, Theta)
    log_det_Q = np.linalg.slogdet(plant.Q)[1]
    chain = log_det_Q - 2.0 * mutual_information(Sigma_XX, Sigma_XY, Sigma_YY)
    bound_28 = float(
        log_det_ratio_bound(epsilon, delta, np.linalg.matrix_rank(plant.C), convention) + log_det_Q
    )
    n = plant.n
    private = is_pml_private(
        Sigma_XX, Sigma_XY, Sigma_YY, epsilon, delta, convention, atol=DESIGN_ATOL
    )
    return ErrorBounds(
        log_det_chain=float(chain),
        log_det=bound_28,
        trace_chain=float(n + chain),
        trace=n + bound_28,
        applies=bool(private),
        convention=convention,
        trace_chain_am_gm=am_gm_trace_bound(chain, n),
        trace_am_gm=am_gm_trace_bound(bound_28, n),
        trace_vacuous=bool(n + bound_28 <= 0),
        trace_chain_vacuous=bool(n + chain <= 0),
        reason=""
        if private
        else f"the mechanism is not PML private in the {convention} "
        "convention: (28), (29) and trace_am_gm are not guaranteed",
    )


def _singular_noise_reason(Q):
    """Why the bounds of [LKC] §4 do not apply to a singular ``Q``, or ``""``.

    ``Q`` is singular when its smallest eigenvalue is at most ``n eps`` times its largest.
    """
    eigenvalues = np.linalg.eigvalsh(Q)
    n = len(eigenvalues)
    if eigenvalues[0] > n * np.finfo(float).eps * eigenvalues[-1]:
        return ""
    rank = int(np.sum(eigenvalues > n * np.finfo(float).eps * eigenvalues[-1]))
    return (
        f"the process-noise covariance Q is singular (rank {rank} < n = {n}): log det Q = "
        "-inf, so the bounds of [LKC] §4, which need Q > 0, say nothing"
    )


def _vacuous_bounds(n, convention, reason):
    """The ErrorBounds of a plant with singular Q: true, vacuous, ``applies=False``."""
    return ErrorBounds(
        log_det_chain=-np.inf,
        log_det=-np.inf,
        trace_chain=-np.inf,
        trace=-np.inf,
        applies=False,
        convention=convention,
        trace_chain_am_gm=0.0,
        trace_am_gm=0.0,
        trace_vacuous=True,
        trace_chain_vacuous=True,
        reason=reason,
    )


def am_gm_trace_bound(log_det_bound, n):
    """The trace bound implied by a log-det bound: ``tr P >= n exp(log_det_bound / n)``.

    Parameters
    ----------
    log_det_bound : float
        A lower bound ``b`` on ``log det P`` (log of state units squared), finite.
    n : int
        The dimension of P, >= 1.

    Returns
    -------
    float
        ``n exp(b / n)`` (state units squared): positive, and at least ``n + b``, the
        form of [LKC] (29).

    Raises
    ------
    TypeError
        If an argument is of the wrong type (a bool, a string).
    ValueError
        If ``log_det_bound`` is not finite or ``n`` is not a positive integer.

    Notes
    -----
    AM-GM on the eigenvalues of P: ``tr P / n >= det(P)^(1/n)``; with
    ``exp(x) >= 1 + x`` it is never looser than [LKC] (29). See
    :doc:`/theory/kalman-bounds`.
    """
    b = scalar(log_det_bound, "log_det_bound")
    n = positive_int(n, "n")
    return float(n * np.exp(b / n))


def empirical_error_covariance(plant, Theta, runs, steps, burn_in, rng, *, process_noise=None):
    """Monte Carlo steady-state error covariance of the Kalman filter, with standard errors.

    Simulates ``runs`` independent trajectories of the plant, privatizes their outputs
    with ``V ~ N(0, Theta)``, filters them (:func:`filter_outputs`) and pools the
    filtered errors after ``burn_in`` steps.

    Parameters
    ----------
    plant : LTIPlant or control.StateSpace
        The plant (n states, m outputs).
    Theta : array_like, shape (m, m), FactoredCovariance or LinearGaussianMechanism
        Covariance of the privacy noise (output units squared).
    runs, steps, burn_in : int
        Independent runs (>= 2), steps per run (>= 1), and initial steps discarded
        (``0 <= burn_in < steps``).
    rng : numpy.random.Generator or int
        Randomness of the plant and of the mechanism.
    process_noise : array_like, shape (p, p), optional
        Covariance of the input of a StateSpace plant (default identity).

    Returns
    -------
    S : ndarray, shape (n, n)
        Pooled empirical error covariance (state units squared).
    trace_se : float
        Standard error of ``trace S`` from the spread of the per-run covariances.
    log_det_se : float
        Standard error of ``log det S`` (delta method: ``d log det S = tr(S^{-1} dS)``).

    Raises
    ------
    ValueError
        As :func:`filter_outputs`, or if ``runs < 2``, ``steps < 1`` or ``burn_in`` is
        outside ``[0, steps)`` (a negative burn-in would silently keep the last steps).
    TypeError
        On counts of the wrong type (a bool, a float, a string) or a bad ``rng``.

    Notes
    -----
    The estimate compared with the DARE and the bounds of [LKC] §4
    (:doc:`/theory/kalman-bounds`).
    """
    plant, Theta = _plant_and_theta(plant, Theta, process_noise)
    runs, steps = positive_int(runs, "runs"), positive_int(steps, "steps")
    if runs < 2:
        raise ValueError(f"runs must be at least 2 (the standard errors need two runs), got {runs}")
    burn_in = non_negative_int(burn_in, "burn_in")
    if burn_in >= steps:
        raise ValueError(f"burn_in must lie in [0, steps), got {burn_in} with steps = {steps}")
    rng = random_generator(rng, "rng")
    X = plant.simulate(steps, runs, rng)
    Y = gaussian_mechanism(X @ plant.C.T, Theta, rng)
    X_hat, _ = filter_outputs(plant, Theta, Y)
    errors = (X - X_hat)[:, burn_in:]
    per_run = np.einsum("rti,rtj->rij", errors, errors) / errors.shape[1]
    S = per_run.mean(axis=0)
    sensitivity = np.trace(np.linalg.solve(S, per_run), axis1=-2, axis2=-1)
    return S, _standard_error(np.trace(per_run, axis1=-2, axis2=-1)), _standard_error(sensitivity)


def _standard_error(values):
    return float(np.std(values, ddof=1) / np.sqrt(len(values)))
