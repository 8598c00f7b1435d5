"""Discrete-time linear time-invariant plants driven by Gaussian process noise.

A plant is::

    X_{k+1} = A X_k + W_k,    Z_k = C X_k,    W_k ~ N(0, Q) i.i.d.,

held as a python-control :class:`control.StateSpace` (input matrix the identity, so the
input is the process noise ``W_k`` itself) together with the noise covariance ``Q``.
The privacy mechanism adds ``V_k ~ N(0, Theta)`` to ``Z_k`` (see
:mod:`ssa_privacy.privacy.pml`). The adversary's prior on the state is the stationary
distribution ``N(0, Sigma_XX)`` with ``Sigma_XX`` from the discrete Lyapunov equation
[LKC] (27).

Units: the state is in the plant's physical unit (for the zone-temperature model, the
temperature deviation from its set point in kelvin); ``Q`` and ``Sigma_XX`` are in that
unit squared; the time step is one sampling period.

The Clohessy-Wiltshire plant (:func:`cw_plant`) is the relative motion of a satellite
about its nominal circular orbit (Hill frame, km and km/s), under a published
station-keeping feedback and driven by random accelerations, the unannounced manoeuvres.
Open-loop CW motion drifts (its discretisation is not Schur stable, so it has no
stationary prior); the station-keeping loop makes it stable.

References
----------
[LKC] L. Liu, Y. Kawano, M. Cao, "Privacy protection under the exposure of systems'
prior information" (pointwise maximal leakage for LTI systems).
"""

from dataclasses import dataclass, field

import control
import numpy as np
from scipy import linalg

from ssa_privacy._validation import (
    as_matrix,
    covariance_stack,
    positive,
    positive_int,
    psd_matrix,
    schur_stable,
)


def prior_covariance(A, Q):
    """Stationary state covariance ``Sigma_XX`` solving ``Sigma_XX = A Sigma_XX A^T + Q``.

    Parameters
    ----------
    A : array_like, shape (n, n) or (N, n, n)
        Schur-stable state matrix, or a stack of N of them (one per agent).
    Q : array_like, shape (n, n) or (N, n, n)
        Positive definite process-noise covariance(s), in state units squared;
        broadcast against ``A``.

    Returns
    -------
    Sigma_XX : ndarray, shape (n, n) or (N, n, n)
        The prior (stationary) covariance, symmetric positive definite, state units squared.

    Raises
    ------
    ValueError
        If ``A`` is not Schur stable or ``Q`` is not symmetric positive definite.

    Notes
    -----
    [LKC] equation (27) (and (32) per agent). A single matrix is solved with
    :func:`control.dlyap`; a stack is solved at once through the vectorised Kronecker
    form ``(I - A (x) A) vec(Sigma_XX) = vec(Q)`` (batched :func:`numpy.linalg.solve`),
    which is exact and fast for the small state dimensions of an agent.
    """
    A = schur_stable(A)
    Q = covariance_stack(Q, "Q", A.shape[-1])
    if A.ndim == 2 and Q.ndim == 2:
        Sigma = control.dlyap(A, Q)
        return 0.5 * (Sigma + Sigma.T)
    A, Q = np.broadcast_arrays(A, Q)
    n = A.shape[-1]
    kron = np.einsum("...ij,...kl->...ikjl", A, A).reshape(*A.shape[:-2], n * n, n * n)
    vec = np.linalg.solve(np.eye(n * n) - kron, Q.reshape(*Q.shape[:-2], n * n, 1))
    Sigma = vec.reshape(Q.shape)
    return 0.5 * (Sigma + np.swapaxes(Sigma, -1, -2))


@dataclass(frozen=True)
class LTIPlant:
    """A discrete-time LTI plant ``X_{k+1} = A X_k + W_k``, ``Z_k = C X_k``, ``W_k ~ N(0, Q)``.

    Parameters
    ----------
    A : array_like, shape (n, n)
        Schur-stable state matrix (dimensionless, per sampling period).
    C : array_like, shape (m, n)
        Output matrix.
    Q : array_like, shape (n, n)
        Positive definite process-noise covariance, state units squared.
    dt : float or True, optional
        Sampling period in seconds, or ``True`` for an unspecified period (default).

    Attributes
    ----------
    system : control.StateSpace
        The discrete-time state-space model with input ``W_k`` (``B = I``), output
        ``Z_k`` and ``D = 0``.

    Raises
    ------
    ValueError
        If ``A`` is not Schur stable, ``C`` has the wrong shape or ``Q`` is not
        symmetric positive definite.

    Notes
    -----
    [LKC] system (23) without the measurement noise, which the privacy mechanism adds.
    """

    A: np.ndarray
    C: np.ndarray
    Q: np.ndarray
    dt: object = True
    system: control.StateSpace = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        A = schur_stable(as_matrix(self.A, "A"))
        n = A.shape[0]
        C = as_matrix(self.C, "C", (None, n))
        Q = covariance_stack(self.Q, "Q", n)
        system = control.ss(A, np.eye(n), C, np.zeros((C.shape[0], n)), self.dt)
        for name, value in (("A", A), ("C", C), ("Q", Q), ("system", system)):
            object.__setattr__(self, name, value)

    @property
    def n(self):
        """State dimension."""
        return self.A.shape[0]

    @property
    def m(self):
        """Output dimension."""
        return self.C.shape[0]

    def prior_covariance(self):
        """Stationary state covariance ``Sigma_XX``, [LKC] (27); see :func:`prior_covariance`."""
        return prior_covariance(self.A, self.Q)

    def simulate(self, steps, runs=1, rng=None, x0=None):
        """Simulate state trajectories, started from the stationary prior by default.

        Parameters
        ----------
        steps : int
            Number of time steps T (states ``X_0 ... X_{T-1}``).
        runs : int, optional
            Number of independent runs R.
        rng : numpy.random.Generator or int or None, optional
            Source of randomness; ``None`` draws fresh entropy.
        x0 : array_like, shape (n,), optional
            Initial state of every run; by default ``X_0 ~ N(0, Sigma_XX)`` independently
            per run, so that every ``X_k`` has the stationary distribution.

        Returns
        -------
        X : ndarray, shape (R, T, n)
            The states, in state units.

        Raises
        ------
        ValueError
            If ``steps`` or ``runs`` is not a positive integer, or ``x0`` has the wrong shape.
        """
        steps, runs = positive_int(steps, "steps"), positive_int(runs, "runs")
        rng = np.random.default_rng(rng)
        if x0 is None:
            L0 = np.linalg.cholesky(self.prior_covariance())
            state = rng.standard_normal((runs, self.n)) @ L0.T
        else:
            state = np.tile(as_matrix(np.reshape(x0, (1, -1)), "x0", (1, self.n)), (runs, 1))
        noise = rng.standard_normal((steps, runs, self.n)) @ np.linalg.cholesky(self.Q).T
        X = np.empty((runs, steps, self.n))
        for k in range(steps):
            X[:, k] = state
            state = state @ self.A.T + noise[k]
        return X


def zone_temperature_plant(a, q, b=1.0, dt=True):
    """Zone-temperature model of a building zone, [LKC] §2.1.

    ``X_{k+1} = a X_k + b W_k`` with ``W_k ~ N(0, q)`` the occupancy disturbance; the
    zone reports its temperature deviation ``Z_k = X_k``.

    Parameters
    ----------
    a : float
        Decay factor of the temperature deviation per sampling period, ``|a| < 1``.
    q : float
        Variance of the occupancy disturbance ``W_k``, K^2 (before scaling by ``b``).
    b : float, optional
        Gain of the disturbance on the temperature (default 1).
    dt : float or True, optional
        Sampling period in seconds, or ``True`` when unspecified (default).

    Returns
    -------
    LTIPlant
        Scalar plant with ``A = a``, ``C = 1`` and ``Q = b^2 q`` (K^2).

    Raises
    ------
    ValueError
        If ``|a| >= 1`` or ``b^2 q <= 0``.

    Notes
    -----
    [LKC] §2.1; the stationary variance is ``b^2 q / (1 - a^2)``.
    """
    return LTIPlant([[a]], [[1.0]], [[b * b * q]], dt)


def zone_temperature_plants(a, q, b=1.0, dt=True):
    """The N zones of a building, [LKC] §2.1 and §5.2, one :class:`LTIPlant` each.

    Parameters
    ----------
    a, q, b : float or array_like, shape (N,)
        Per-zone parameters of :func:`zone_temperature_plant`, broadcast together.
    dt : float or True, optional
        Common sampling period.

    Returns
    -------
    list of LTIPlant
        One scalar plant per zone.

    Raises
    ------
    ValueError
        As :func:`zone_temperature_plant`, for any zone.
    """
    a, q, b = np.broadcast_arrays(np.atleast_1d(a), np.atleast_1d(q), np.atleast_1d(b))
    return [zone_temperature_plant(ai, qi, bi, dt) for ai, qi, bi in zip(a, q, b)]


def network(plants):
    """Block-diagonal plant of N independent subsystems, [LKC] (30).

    Parameters
    ----------
    plants : sequence of LTIPlant
        The subsystems, with a common sampling period.

    Returns
    -------
    LTIPlant
        The network, state ``(X_1, ..., X_N)`` and output ``(Z_1, ..., Z_N)`` stacked in
        order; ``A``, ``C`` and ``Q`` are block diagonal.

    Raises
    ------
    ValueError
        If ``plants`` is empty or the sampling periods differ.
    """
    plants = list(plants)
    if not plants:
        raise ValueError("plants must hold at least one LTIPlant")
    if len({str(p.dt) for p in plants}) > 1:
        raise ValueError(f"plants have different sampling periods: {[p.dt for p in plants]}")
    blocks = {name: linalg.block_diag(*(getattr(p, name) for p in plants)) for name in "ACQ"}
    return LTIPlant(blocks["A"], blocks["C"], blocks["Q"], plants[0].dt)


# --------------------------------------------------------------------------------------
# Clohessy-Wiltshire relative motion of a station-kept satellite.
# --------------------------------------------------------------------------------------


def clohessy_wiltshire(mean_motion):
    """Continuous-time Clohessy-Wiltshire (Hill) model of motion relative to a circular orbit.

    State ``(x, y, z, vx, vy, vz)`` in the Hill frame of the reference orbit (x radial,
    y along-track, z cross-track), km and km/s; input the acceleration (km/s^2)::

        x'' = 3 n^2 x + 2 n y' + u_x,    y'' = -2 n x' + u_y,    z'' = -n^2 z + u_z

    Parameters
    ----------
    mean_motion : float
        Mean motion ``n`` of the reference orbit (rad/s).

    Returns
    -------
    control.StateSpace
        Continuous-time system with ``A`` (6, 6), ``B = [0; I_3]`` (6, 3), ``C = I_6``
        and ``D = 0``.

    Raises
    ------
    ValueError
        If ``mean_motion`` is not a finite positive number.

    Notes
    -----
    Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., Ch. 6 (Hill's /
    Clohessy-Wiltshire equations); Curtis, "Orbital Mechanics for Engineering Students",
    §7.4-7.5. The open-loop A has eigenvalues 0 (double, with a Jordan block: secular
    along-track drift) and ``+-i n`` (twice), so its discretisation is not Schur stable.
    """
    n = positive(mean_motion, "mean_motion")
    A = np.zeros((6, 6))
    A[:3, 3:] = np.eye(3)
    A[3, 0], A[3, 4], A[4, 3], A[5, 2] = 3 * n * n, 2 * n, -2 * n, -n * n
    B = np.vstack([np.zeros((3, 3)), np.eye(3)])
    return control.ss(A, B, np.eye(6), np.zeros((6, 3)))


def white_noise_covariance(A, B, psd, dt):
    """Covariance of continuous white noise integrated over one sampling period.

    ``Q_d = int_0^dt expm(A s) B W B^T expm(A^T s) ds`` for ``x' = A x + B w`` with ``w``
    white of power spectral density ``W``.

    Parameters
    ----------
    A : array_like, shape (n, n)
        Continuous-time state matrix (1/s).
    B : array_like, shape (n, p)
        Noise input matrix.
    psd : array_like, shape (p, p)
        Power spectral density ``W`` of the noise, positive semi-definite (for
        accelerations, km^2/s^3).
    dt : float
        Sampling period (s).

    Returns
    -------
    ndarray, shape (n, n)
        ``Q_d``, symmetric positive semi-definite, state units squared.

    Raises
    ------
    ValueError
        On shape mismatches, non-finite values, an invalid ``psd`` or ``dt <= 0``.

    Notes
    -----
    C. F. Van Loan, "Computing integrals involving the matrix exponential", IEEE TAC
    23(3), 1978: with ``M = [[-A, B W B^T], [0, A^T]] dt`` and ``F = expm(M)``,
    ``Q_d = F_22^T F_12`` (:func:`scipy.linalg.expm`).
    """
    A = as_matrix(A, "A")
    n = A.shape[0]
    B = as_matrix(B, "B", (n, None))
    W = psd_matrix(psd, "psd", B.shape[1])
    dt = positive(dt, "dt")
    F = linalg.expm(np.block([[-A, B @ W @ B.T], [np.zeros((n, n)), A.T]]) * dt)
    Q = F[n:, n:].T @ F[:n, n:]
    return 0.5 * (Q + Q.T)


def station_keeping_gain(mean_motion, position_scale, velocity_scale, acceleration_scale):
    """LQR station-keeping gain ``K`` of the feedback ``u = -K x`` on the CW model.

    Parameters
    ----------
    mean_motion : float
        Mean motion of the reference orbit (rad/s).
    position_scale, velocity_scale, acceleration_scale : float
        Acceptable excursions (km, km/s, km/s^2) weighting the LQR cost by Bryson's rule:
        ``Q = diag(I_3 / position_scale^2, I_3 / velocity_scale^2)``,
        ``R = I_3 / acceleration_scale^2``.

    Returns
    -------
    ndarray, shape (3, 6)
        The gain; ``A - B K`` is Hurwitz.

    Raises
    ------
    ValueError
        If an argument is not a finite positive number.

    Notes
    -----
    :func:`control.lqr` (continuous-time algebraic Riccati equation); Bryson and Ho,
    "Applied Optimal Control", 1975, §5.4 for the weighting rule.
    """
    system = clohessy_wiltshire(mean_motion)
    scales = [
        positive(v, name)
        for v, name in (
            (position_scale, "position_scale"),
            (velocity_scale, "velocity_scale"),
            (acceleration_scale, "acceleration_scale"),
        )
    ]
    state_weight = np.diag(np.repeat(1.0 / np.square(scales[:2]), 3))
    K, _, _ = control.lqr(system.A, system.B, state_weight, np.eye(3) / scales[2] ** 2)
    return np.asarray(K)


def cw_plant(mean_motion, dt, acceleration_psd, C, gain):
    """Discrete-time plant of a station-kept satellite whose manoeuvres are unannounced.

    The relative state follows the Clohessy-Wiltshire model with the published
    station-keeping law ``u = -K x`` plus random accelerations ``w`` (the unannounced
    manoeuvres), white with power spectral density ``acceleration_psd * I_3``::

        x' = (A - B K) x + B w,   discretised: X_{k+1} = A_d X_k + W_k,  W_k ~ N(0, Q)

    Parameters
    ----------
    mean_motion : float
        Mean motion of the reference orbit (rad/s).
    dt : float
        Sampling period (s).
    acceleration_psd : float
        Power spectral density of each acceleration component (km^2/s^3).
    C : array_like, shape (m, 6)
        Output matrix (e.g. ``[I_3, 0]`` for relative positions in km).
    gain : array_like, shape (3, 6)
        Station-keeping gain (:func:`station_keeping_gain`). Without station keeping
        (``gain = 0``) the CW model drifts and has no stationary prior: the plant is
        rejected as not Schur stable.

    Returns
    -------
    LTIPlant
        ``A_d`` from the zero-order-hold discretisation (:func:`control.c2d`, equal to
        ``expm((A - B K) dt)``), ``Q`` from :func:`white_noise_covariance`, and ``dt``.

    Raises
    ------
    ValueError
        If an argument is invalid or the closed loop is not stable.

    Notes
    -----
    Vallado Ch. 6 (CW), Van Loan (1978) for ``Q``; [LKC] system (23) for the plant form.
    """
    system = clohessy_wiltshire(mean_motion)
    K = as_matrix(gain, "gain", (3, 6))
    psd = positive(acceleration_psd, "acceleration_psd")
    closed = control.ss(system.A - system.B @ K, system.B, system.C, system.D)
    discrete = control.c2d(closed, positive(dt, "dt"), method="zoh")
    Q = white_noise_covariance(closed.A, system.B, psd * np.eye(3), dt)
    return LTIPlant(discrete.A, C, Q, float(dt))
