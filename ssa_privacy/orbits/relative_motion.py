"""Clohessy-Wiltshire relative motion of a station-kept satellite, as a plant.

The relative state of a satellite about its nominal circular orbit (Hill frame: x radial,
y along-track, z cross-track; km and km/s) follows the Clohessy-Wiltshire equations. Under
a published station-keeping feedback ``u = -K x`` and random accelerations (the
unannounced manoeuvres) it is a stable discrete-time :class:`~ssa_privacy.plants.LTIPlant`
whose outputs a privacy mechanism can protect. Open-loop CW motion drifts (its
discretisation is not Schur stable, so it has no stationary prior); the station-keeping
loop makes it stable.

The functions were first in :mod:`ssa_privacy.plants`, from which they stay importable.
"""

import control
import numpy as np

from ssa_privacy._internal.matrix_validation import schur_stable
from ssa_privacy._internal.validation import as_matrix, positive, vector
from ssa_privacy.orbits.frames import hill_to_inertial
from ssa_privacy.plants import LTIPlant, white_noise_covariance

__all__ = [
    "KEEPING_SCALES",
    "MANOEUVRE_PSD",
    "clohessy_wiltshire",
    "cw_plant",
    "manoeuvre_prior",
    "station_keeping_gain",
]


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
        ``expm((A - B K) dt)``), ``Q`` from :func:`~ssa_privacy.plants.white_noise_covariance`, and ``dt``.

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
    try:
        schur_stable(discrete.A, "the discretised closed loop A - B gain")
    except ValueError as error:
        raise ValueError(f"gain does not stabilise the relative motion: {error}") from None
    Q = white_noise_covariance(closed.A, system.B, psd * np.eye(3), dt)
    return LTIPlant(discrete.A, C, Q, float(dt))


#: Station keeping of the manoeuvre model (LQR by Bryson's rule): position, velocity and
#: acceleration scales (km, km/s, km/s^2).
KEEPING_SCALES = (1.0, 1.0e-3, 1.0e-6)
#: Power spectral density of the manoeuvres' random accelerations (km^2/s^3). With
#: :data:`KEEPING_SCALES` it gives a stationary excursion of about 1 km and 1 m/s per axis.
MANOEUVRE_PSD = 4.0e-9


def manoeuvre_prior(state, mean_motion, dt=60.0):
    """The manoeuvre prior of a station-kept satellite about an ECI state, shape (6, 6).

    Parameters
    ----------
    state : array_like, shape (6,)
        The nominal ECI state (km, km/s) that fixes the Hill frame.
    mean_motion : float
        Mean motion of the nominal orbit (rad/s).
    dt : float, optional
        Step of the discretised CW plant whose stationary covariance is taken (s).

    Returns
    -------
    ndarray, shape (6, 6)
        ``T Sigma_CW T^T`` (km^2, km^2/s, km^2/s^2): ``Sigma_CW`` is the stationary
        covariance ([LKC] (27)) of :func:`cw_plant` under :func:`station_keeping_gain`
        with :data:`KEEPING_SCALES` and :data:`MANOEUVRE_PSD`, ``T`` the Hill-to-inertial
        map (:func:`~ssa_privacy.orbits.frames.hill_to_inertial`); symmetric.

    Raises
    ------
    ValueError
        If ``state`` is not a finite 6-vector, or ``mean_motion`` or ``dt`` is not a
        positive number.

    Notes
    -----
    The prior of the ``ssa-network`` and ``ssa-catalog`` studies ([LKC] §4 for the
    station-kept CW plant).
    """
    state = vector(state, "state", 6)
    gain = station_keeping_gain(mean_motion, *KEEPING_SCALES)
    plant = cw_plant(mean_motion, dt, MANOEUVRE_PSD, np.eye(6), gain)
    T = hill_to_inertial(state)
    Sigma = T @ plant.prior_covariance() @ T.T
    return 0.5 * (Sigma + Sigma.T)
