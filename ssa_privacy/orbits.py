"""Orbit propagation: the planar J2 model of [TCB] §5.1 and a 3D two-body + J2 model.

Planar model (:class:`PlanarJ2Model`): state ``(r, r_dot, theta, theta_dot)`` in polar
coordinates with the equations of motion [TCB (12)] (SPEC §1)::

    r''     = -mu / r^2 + theta'^2 r + (3 J2 / (2 r^4)) (3 sin(theta)^2 - 1)
    theta'' = -2 theta' r' / r - (3 J2 / r^4) cos(theta) sin(theta)

Here ``J2`` is the dimensional product mu * J2 * R_e^2 (km^5/s^2), as in [TCB] Table 1.
Propagation works in normalized units: length R_e, time T_orb (the period of the
circular orbit at altitude h), so velocities are in R_e / T_orb and angles in radians.

3D model (:class:`J2Propagator`): state ``(x, y, z, vx, vy, vz)`` in km and km/s in an
Earth-centred inertial frame, with the dimensionless J2 = 1.08262668e-3, conversions
from and to classical orbital elements, the analytic J2 secular rates and their fit to a
propagation. Element sets (TLEs) enter through :mod:`ssa_privacy.tle`.

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., 2013:
Algorithms 9-10 (RV2COE, COE2RV), §3.3 (RSW frame), Ch. 8 (special perturbations, the
J2 acceleration) and Ch. 9 (secular J2 rates). H. D. Curtis, "Orbital Mechanics for
Engineering Students", 3rd ed., Algorithms 4.2 and 4.5, §4.7 (J2 secular rates), Ch. 10.
"""

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ssa_privacy._validation import as_finite_array, positive

#: Largest relative/absolute tolerance accepted by :meth:`PlanarJ2Model.propagate`.
MAX_TOLERANCE = 1e-10


@dataclass(frozen=True)
class PlanarJ2Model:
    """The planar J2 satellite model of [TCB] §5.1 with its constants (Table 1).

    Parameters
    ----------
    R_e : float
        Earth radius (km); the length unit.
    mu : float
        Earth's gravitational parameter (km^3/s^2).
    J2 : float
        Dimensional J2 coefficient mu * J2 * R_e^2 (km^5/s^2); 0 gives two-body motion.
    h : float
        Altitude of the initial circular orbit (km).

    Notes
    -----
    The time unit ``T_orb`` and the speed ``V_theta`` are those of the circular orbit
    of radius ``R_e + h``: 5480.05 s and 7.70273 km/s, which [TCB] Table 1 rounds to
    5.48e3 s and 7.7027 km/s. In these units the initial angular rate is exactly 2 pi.
    """

    R_e: float = 6378.1363
    mu: float = 398600.4415
    J2: float = 1.7555e10
    h: float = 340.0

    @property
    def r_orbit(self):
        """Radius of the initial circular orbit (km)."""
        return self.R_e + self.h

    @property
    def V_theta(self):
        """Circular orbital speed at the initial radius (km/s)."""
        return np.sqrt(self.mu / self.r_orbit)

    @property
    def T_orb(self):
        """Period of the initial circular orbit (s); the time unit."""
        return 2 * np.pi * np.sqrt(self.r_orbit**3 / self.mu)

    @property
    def mu_n(self):
        """Gravitational parameter in normalized units, mu T_orb^2 / R_e^3 (about 46.13)."""
        return self.mu * self.T_orb**2 / self.R_e**3

    @property
    def J2_n(self):
        """J2 coefficient in normalized units, J2 T_orb^2 / R_e^5 (about 0.0499)."""
        return self.J2 * self.T_orb**2 / self.R_e**5

    def initial_state(self):
        """Normalized initial state [TCB (13)]: r0 = (R_e + h)/R_e, 0, 0, V_theta T_orb / (R_e r0)."""
        r0 = self.r_orbit / self.R_e
        return np.array([r0, 0.0, 0.0, self.V_theta * self.T_orb / (self.R_e * r0)])

    def to_physical(self, state):
        """Convert normalized states (..., 4) to km, km/s, rad, rad/s."""
        state = np.asarray(state, dtype=float)
        scale = np.array([self.R_e, self.R_e / self.T_orb, 1.0, 1.0 / self.T_orb])
        return state * scale

    def to_normalized(self, state):
        """Convert physical states (..., 4) in km, km/s, rad, rad/s to normalized units."""
        state = np.asarray(state, dtype=float)
        scale = np.array([self.R_e, self.R_e / self.T_orb, 1.0, 1.0 / self.T_orb])
        return state / scale

    def acceleration(self, t, state):
        """Right-hand side of [TCB (12)] in normalized units; ``t`` is unused (autonomous)."""
        r, r_dot, theta, theta_dot = state
        sin, cos = np.sin(theta), np.cos(theta)
        r_ddot = -self.mu_n / r**2 + theta_dot**2 * r + 1.5 * self.J2_n / r**4 * (3 * sin**2 - 1)
        theta_ddot = -2 * theta_dot * r_dot / r - 3 * self.J2_n / r**4 * cos * sin
        return np.array([r_dot, r_ddot, theta_dot, theta_ddot])

    def propagate(self, times, state0=None, rtol=1e-12, atol=1e-12):
        """Integrate the model and return the state on a time grid.

        Parameters
        ----------
        times : array_like, shape (m,)
            Increasing output times in units of T_orb, starting at the initial epoch.
        state0 : array_like, shape (4,), optional
            Normalized initial state; default :meth:`initial_state`.
        rtol, atol : float
            Tolerances of ``scipy.integrate.solve_ivp`` (DOP853); at most 1e-10.

        Returns
        -------
        ndarray, shape (m, 4)
            Normalized states ``(r / R_e, r_dot / (R_e / T_orb), theta [rad, unwrapped],
            theta_dot [rad / T_orb])``.

        Raises
        ------
        ValueError
            If the times are not finite and non-decreasing, the initial state is not a
            finite 4-vector, a tolerance exceeds 1e-10, or the integration fails.

        Notes
        -----
        [TCB] §5.1, equations (12)-(13); SPEC §1.
        """
        times = as_finite_array(times, "times", ndim=1)
        if len(times) == 0 or np.any(np.diff(times) < 0):
            raise ValueError("times must be a non-empty, non-decreasing grid")
        if rtol > MAX_TOLERANCE or atol > MAX_TOLERANCE:
            raise ValueError(f"rtol and atol must be at most {MAX_TOLERANCE}, got {rtol}, {atol}")
        state0 = self.initial_state() if state0 is None else as_finite_array(state0, "state0", 1)
        if state0.shape != (4,):
            raise ValueError(f"state0 must have 4 entries, got shape {state0.shape}")
        solution = solve_ivp(
            self.acceleration,
            (times[0], times[-1]),
            state0,
            method="DOP853",
            t_eval=times,
            rtol=rtol,
            atol=atol,
        )
        if not solution.success:
            raise ValueError(f"orbit integration failed: {solution.message}")
        return solution.y.T


# --------------------------------------------------------------------------------------
# Three-dimensional two-body + J2 motion in an Earth-centred inertial frame.
# --------------------------------------------------------------------------------------

#: Earth's gravitational parameter (km^3/s^2), EGM-96 / WGS-84.
MU_EARTH = 398600.4418
#: Earth's equatorial radius (km), WGS-84.
R_EARTH = 6378.137
#: Earth's second zonal harmonic J2 (dimensionless), EGM-96. The
#: planar model above uses instead the dimensional product mu * J2 * R_e^2 (km^5/s^2).
J2_EARTH = 1.08262668e-3
#: Default tolerances of :meth:`J2Propagator.propagate` (the truth of every study).
TIGHT_TOLERANCE = 1e-10
#: Loosest tolerance :meth:`J2Propagator.propagate` accepts (for a filter's process model).
LOOSEST_TOLERANCE = 1e-6

#: Classical orbital elements: semi-major axis a (km), eccentricity e, inclination i,
#: right ascension of the ascending node raan, argument of perigee argp and true anomaly
#: nu (rad).
OrbitalElements = namedtuple("OrbitalElements", "a e i raan argp nu")


def _states(value, name):
    """Return ``value`` as a finite float array of shape (..., 6)."""
    states = as_finite_array(value, name)
    if states.ndim < 1 or states.shape[-1] != 6:
        raise ValueError(f"{name} must have shape (6,) or (..., 6), got {states.shape}")
    return states


def _tolerance(value, name):
    value = positive(value, name)
    if value > LOOSEST_TOLERANCE:
        raise ValueError(f"{name} must be at most {LOOSEST_TOLERANCE}, got {value}")
    return value


@dataclass(frozen=True)
class J2Propagator:
    """Two-body + J2 motion of a satellite in an Earth-centred inertial (ECI) frame.

    The state is ``(x, y, z, vx, vy, vz)`` in km and km/s, the z axis being Earth's
    rotation axis. The acceleration is ``-mu r / |r|^3`` plus the J2 term::

        a_J2 = -(3/2) J2 mu R_e^2 / |r|^5 * (x (1 - 5 z^2/r^2), y (1 - 5 z^2/r^2),
                                              z (3 - 5 z^2/r^2))

    Parameters
    ----------
    mu : float
        Gravitational parameter (km^3/s^2), default :data:`MU_EARTH`.
    R_e : float
        Equatorial radius (km), default :data:`R_EARTH`.
    J2 : float
        Dimensionless second zonal harmonic, default :data:`J2_EARTH`; 0 gives two-body
        motion.

    Raises
    ------
    ValueError
        If ``mu`` or ``R_e`` is not positive or ``J2`` is negative or not finite.

    Notes
    -----
    Vallado Ch. 8 (J2 acceleration of the zonal geopotential) and Ch. 9 (secular
    rates); Curtis §4.7 and Ch. 10.
    """

    mu: float = MU_EARTH
    R_e: float = R_EARTH
    J2: float = J2_EARTH

    def __post_init__(self):
        positive(self.mu, "mu")
        positive(self.R_e, "R_e")
        if not np.isfinite(self.J2) or self.J2 < 0:
            raise ValueError(f"J2 must be a finite non-negative number, got {self.J2!r}")

    def derivative(self, t, y):
        """Right-hand side ``d(state)/dt`` for ``solve_ivp``; ``t`` is unused (autonomous).

        Parameters
        ----------
        t : float
            Time (s), unused.
        y : ndarray, shape (6 k,)
            k states stacked one after the other (km, km/s).

        Returns
        -------
        ndarray, shape (6 k,)
            Velocities and accelerations (km/s, km/s^2) in the same layout.
        """
        states = y.reshape(-1, 6)
        r = states[:, :3]
        r2 = np.einsum("ij,ij->i", r, r)
        j2 = 1.5 * self.J2 * self.R_e**2 / r2
        kepler = -self.mu / (r2 * np.sqrt(r2))
        out = np.empty_like(states)
        out[:, :3] = states[:, 3:]
        out[:, 3:] = (kepler * (1.0 + j2 * (1.0 - 5.0 * r[:, 2] ** 2 / r2)))[:, None] * r
        out[:, 5] += 2.0 * j2 * kepler * r[:, 2]
        return out.ravel()

    def propagate(self, times, state0, rtol=TIGHT_TOLERANCE, atol=TIGHT_TOLERANCE, first_step=None):
        """Integrate one or several initial states with ``scipy.integrate.solve_ivp`` (DOP853).

        Parameters
        ----------
        times : array_like, shape (m,)
            Non-decreasing output times (s); the initial state is at ``times[0]``.
        state0 : array_like, shape (6,) or (k, 6)
            Initial ECI state(s), km and km/s. Several states are integrated together as
            one system (the step size then follows the most demanding one).
        rtol, atol : float, optional
            Tolerances of DOP853, default 1e-10, at most :data:`LOOSEST_TOLERANCE`.
            Studies use 1e-10 for the truth; a filter's process model may use a looser one.
        first_step : float, optional
            Initial step size of DOP853 (s); by default ``solve_ivp`` chooses one (a
            cautious choice that costs several short steps on a short interval).

        Returns
        -------
        ndarray, shape (m, 6) or (k, m, 6)
            The states at ``times`` (km, km/s).

        Raises
        ------
        ValueError
            If the times are empty, not finite or decreasing, a state is not finite or not
            6-dimensional, a tolerance is out of range, or the integration fails.

        Notes
        -----
        Cowell's method (direct integration of the perturbed motion), Vallado Ch. 8.
        """
        times = as_finite_array(times, "times", ndim=1)
        if len(times) == 0 or np.any(np.diff(times) < 0):
            raise ValueError("times must be a non-empty, non-decreasing grid")
        state0 = _states(state0, "state0")
        if state0.ndim > 2:
            raise ValueError(f"state0 must have shape (6,) or (k, 6), got {state0.shape}")
        rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
        flat = np.atleast_2d(state0)
        if times[-1] == times[0]:
            path = np.repeat(flat[:, None, :], len(times), axis=1)
        else:
            solution = solve_ivp(
                self.derivative,
                (times[0], times[-1]),
                flat.ravel(),
                method="DOP853",
                t_eval=times,
                rtol=rtol,
                atol=atol,
                first_step=first_step,
            )
            if not solution.success:
                raise ValueError(f"orbit integration failed: {solution.message}")
            path = solution.y.reshape(len(flat), 6, len(times)).transpose(0, 2, 1)
        return path[0] if state0.ndim == 1 else path

    def energy(self, states):
        """Specific mechanical energy including the J2 potential (km^2/s^2).

        Parameters
        ----------
        states : array_like, shape (..., 6)
            ECI states, km and km/s.

        Returns
        -------
        ndarray, shape (...)
            ``|v|^2 / 2 - mu / r (1 - J2 (R_e / r)^2 (3 sin^2(phi) - 1) / 2)``, with
            ``sin(phi) = z / r``; conserved by the motion.

        Raises
        ------
        ValueError
            If the states are not finite or not 6-dimensional.

        Notes
        -----
        The J2 term of the zonal geopotential, Vallado Ch. 8.
        """
        states = _states(states, "states")
        r = np.linalg.norm(states[..., :3], axis=-1)
        sin2 = (states[..., 2] / r) ** 2
        potential = -self.mu / r * (1 - self.J2 * (self.R_e / r) ** 2 * (3 * sin2 - 1) / 2)
        return 0.5 * np.sum(states[..., 3:] ** 2, axis=-1) + potential

    def mean_motion(self, a):
        """Keplerian mean motion ``sqrt(mu / a^3)``.

        Parameters
        ----------
        a : float or array_like
            Semi-major axis (km).

        Returns
        -------
        float or ndarray
            Mean motion (rad/s).

        Raises
        ------
        ValueError
            If ``a`` is not finite and positive.
        """
        a = as_finite_array(a, "a")
        if np.any(a <= 0):
            raise ValueError("a (semi-major axis) must be positive")
        return np.sqrt(self.mu / a**3)

    def secular_rates(self, a, e, i):
        """First-order J2 secular drift of the node and of the argument of perigee.

        Parameters
        ----------
        a : float or array_like
            Mean semi-major axis (km).
        e : float or array_like
            Mean eccentricity, in [0, 1).
        i : float or array_like
            Mean inclination (rad).

        Returns
        -------
        raan_dot, argp_dot : float or ndarray
            ``-3/2 n J2 (R_e/p)^2 cos i`` and ``3/4 n J2 (R_e/p)^2 (5 cos^2 i - 1)`` (rad/s),
            with ``p = a (1 - e^2)`` and ``n`` the Keplerian mean motion.

        Raises
        ------
        ValueError
            If ``a`` is not positive or ``e`` is outside [0, 1).

        Notes
        -----
        Curtis §4.7; Vallado Ch. 9 (secular J2 effects).
        """
        e = as_finite_array(e, "e")
        if np.any((e < 0) | (e >= 1)):
            raise ValueError("e (eccentricity) must lie in [0, 1)")
        a = as_finite_array(a, "a")
        factor = self.mean_motion(a) * self.J2 * (self.R_e / (a * (1 - e**2))) ** 2
        cos_i = np.cos(as_finite_array(i, "i"))
        return -1.5 * factor * cos_i, 0.75 * factor * (5 * cos_i**2 - 1)


def angular_momentum(states):
    """Specific angular momentum ``r x v`` (km^2/s) of ECI states.

    Parameters
    ----------
    states : array_like, shape (..., 6)
        ECI states, km and km/s.

    Returns
    -------
    ndarray, shape (..., 3)
        Conserved by two-body motion; its z component is conserved under J2 too.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional.
    """
    states = _states(states, "states")
    return np.cross(states[..., :3], states[..., 3:])


def _rotation_313(raan, i, argp):
    """Perifocal (PQW) to inertial rotation ``R3(-raan) R1(-i) R3(-argp)``, shape (..., 3, 3)."""
    cO, sO, ci, si, cw, sw = (f(x) for x in (raan, i, argp) for f in (np.cos, np.sin))
    return np.stack(
        [
            np.stack([cO * cw - sO * sw * ci, -cO * sw - sO * cw * ci, sO * si], axis=-1),
            np.stack([sO * cw + cO * sw * ci, -sO * sw + cO * cw * ci, -cO * si], axis=-1),
            np.stack([sw * si, cw * si, ci], axis=-1),
        ],
        axis=-2,
    )


def elements_to_state(a, e, i, raan, argp, nu, mu=MU_EARTH):
    """ECI state from classical orbital elements (elliptic orbits).

    Parameters
    ----------
    a : float or array_like
        Semi-major axis (km), positive.
    e : float or array_like
        Eccentricity in [0, 1).
    i, raan, argp, nu : float or array_like
        Inclination, right ascension of the ascending node, argument of perigee and true
        anomaly (rad). All arguments broadcast together.
    mu : float, optional
        Gravitational parameter (km^3/s^2).

    Returns
    -------
    ndarray, shape (..., 6)
        Position (km) and velocity (km/s).

    Raises
    ------
    ValueError
        If an element is not finite, ``a`` is not positive or ``e`` is outside [0, 1).

    Notes
    -----
    Vallado Algorithm 10 (COE2RV); Curtis Algorithm 4.5.
    """
    a, e, i, raan, argp, nu = np.broadcast_arrays(
        *(
            as_finite_array(v, name)
            for v, name in (
                (a, "a"),
                (e, "e"),
                (i, "i"),
                (raan, "raan"),
                (argp, "argp"),
                (nu, "nu"),
            )
        )
    )
    if np.any(a <= 0):
        raise ValueError("a (semi-major axis) must be positive")
    if np.any((e < 0) | (e >= 1)):
        raise ValueError("e (eccentricity) must lie in [0, 1) (elliptic orbits only)")
    mu = positive(mu, "mu")
    p = a * (1 - e**2)
    radius = p / (1 + e * np.cos(nu))
    r_pqw = np.stack([radius * np.cos(nu), radius * np.sin(nu), np.zeros_like(nu)], axis=-1)
    speed = np.sqrt(mu / p)
    v_pqw = np.stack([-speed * np.sin(nu), speed * (e + np.cos(nu)), np.zeros_like(nu)], axis=-1)
    rotation = _rotation_313(raan, i, argp)
    return np.concatenate(
        [
            np.einsum("...ij,...j->...i", rotation, r_pqw),
            np.einsum("...ij,...j->...i", rotation, v_pqw),
        ],
        axis=-1,
    )


def _angle_about(u, w, axis):
    """Angle in [0, 2 pi) from vectors ``u`` to ``w`` (..., 3) counter-clockwise about ``axis``."""
    sine = np.sum(np.cross(u, w) * axis, axis=-1)
    return np.mod(np.arctan2(sine, np.sum(u * w, axis=-1)), 2 * np.pi)


#: Smallest eccentricity and inclination (rad) for which the argument of perigee and the
#: node are defined well enough to be returned by :func:`state_to_elements`.
SINGULAR_TOL = 1e-9


def state_to_elements(states, mu=MU_EARTH):
    """Osculating classical orbital elements of ECI states (elliptic, inclined orbits).

    Parameters
    ----------
    states : array_like, shape (6,) or (..., 6)
        Position (km) and velocity (km/s).
    mu : float, optional
        Gravitational parameter (km^3/s^2).

    Returns
    -------
    OrbitalElements
        ``a`` (km), ``e``, ``i``, ``raan``, ``argp``, ``nu`` (rad; the last three in
        [0, 2 pi)), each of shape ``states.shape[:-1]``.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional, or an orbit is not elliptic,
        equatorial (node undefined) or circular (perigee undefined) to
        :data:`SINGULAR_TOL`.

    Notes
    -----
    Vallado Algorithm 9 (RV2COE); Curtis Algorithm 4.2. The angles use ``arctan2``.
    """
    states = _states(states, "states")
    mu = positive(mu, "mu")
    r, v = states[..., :3], states[..., 3:]
    radius = np.linalg.norm(r, axis=-1)
    h = np.cross(r, v)
    h_norm = np.linalg.norm(h, axis=-1)
    node = np.stack([-h[..., 1], h[..., 0], np.zeros_like(radius)], axis=-1)
    node_norm = np.linalg.norm(node, axis=-1)
    e_vec = (np.sum(v * v, axis=-1) - mu / radius)[..., None] * r
    e_vec = (e_vec - np.sum(r * v, axis=-1)[..., None] * v) / mu
    e = np.linalg.norm(e_vec, axis=-1)
    energy = 0.5 * np.sum(v * v, axis=-1) - mu / radius
    if np.any(energy >= 0):
        raise ValueError("states must describe elliptic orbits (negative energy)")
    if np.any(node_norm <= SINGULAR_TOL * h_norm) or np.any(e <= SINGULAR_TOL):
        raise ValueError(
            "states include an equatorial or circular orbit: the node or the "
            "argument of perigee is undefined"
        )
    h_hat = h / h_norm[..., None]
    return OrbitalElements(
        a=-mu / (2 * energy),
        e=e,
        i=np.arccos(np.clip(h[..., 2] / h_norm, -1.0, 1.0)),
        raan=np.mod(np.arctan2(node[..., 1], node[..., 0]), 2 * np.pi),
        argp=_angle_about(node, e_vec, h_hat),
        nu=_angle_about(e_vec, r, h_hat),
    )


def orbit_averages(times, states, period, mu=MU_EARTH):
    """Node and argument of perigee averaged over consecutive whole orbits.

    The osculating elements carry short-periodic J2 terms of the orbital period; their
    averages over whole periods remove these terms to first order.

    Parameters
    ----------
    times : array_like, shape (m,)
        Uniform sample times (s) covering at least two whole periods.
    states : array_like, shape (m, 6)
        ECI states at ``times`` (km, km/s).
    period : float
        Averaging window (s), the (anomalistic) orbital period.
    mu : float, optional
        Gravitational parameter (km^3/s^2).

    Returns
    -------
    mean_times, raan, argp : ndarray, shape (w,)
        Mid-times (s) of the w whole windows and the averages of the unwrapped node and
        argument of perigee over each (rad).

    Raises
    ------
    ValueError
        On shape mismatches, fewer than two whole periods, or singular orbits (see
        :func:`state_to_elements`).

    Notes
    -----
    Orbit averaging of osculating elements (mean elements, Vallado Ch. 9).
    """
    times = as_finite_array(times, "times", ndim=1)
    states = _states(states, "states")
    if states.shape != (len(times), 6):
        raise ValueError(f"states must have shape ({len(times)}, 6), got {states.shape}")
    period = positive(period, "period")
    # Rounded so that samples on a window boundary are not split by round-off.
    windows = np.floor(np.round((times - times[0]) / period, 9)).astype(int)
    whole = windows < windows[-1]  # the last window is (usually) incomplete
    if windows[-1] < 2:
        raise ValueError("times must cover at least two whole periods")
    elements = state_to_elements(states[whole], mu)
    counts = np.bincount(windows[whole])
    average = lambda values: np.bincount(windows[whole], values) / counts  # noqa: E731
    return (
        average(times[whole]),
        average(np.unwrap(elements.raan)),
        average(np.unwrap(elements.argp)),
    )


def orbit_averaged_rates(times, states, period, mu=MU_EARTH):
    """Secular drift of the node and of the argument of perigee fitted to a propagation.

    Parameters
    ----------
    times, states, period, mu
        As :func:`orbit_averages`.

    Returns
    -------
    raan_dot, argp_dot : float
        Slopes (rad/s) of least-squares lines through the orbit averages.

    Raises
    ------
    ValueError
        As :func:`orbit_averages`.

    Notes
    -----
    Orbit averages (:func:`orbit_averages`) fitted with ``numpy.polyfit``.
    """
    mean_times, *angles = orbit_averages(times, states, period, mu)
    return tuple(float(np.polyfit(mean_times, angle, 1)[0]) for angle in angles)


def rsw_frame(states):
    """Radial, along-track and cross-track unit vectors of ECI states.

    Parameters
    ----------
    states : array_like, shape (..., 6)
        ECI states, km and km/s.

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Rows ``R = r / |r|``, ``W = h / |h|`` and ``S = W x R``, ordered (R, S, W): a
        rotation taking ECI vectors to RSW components.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional.

    Notes
    -----
    Vallado §3.3, the RSW (satellite coordinate) system.
    """
    states = _states(states, "states")
    radial = states[..., :3] / np.linalg.norm(states[..., :3], axis=-1, keepdims=True)
    h = angular_momentum(states)
    cross = h / np.linalg.norm(h, axis=-1, keepdims=True)
    return np.stack([radial, np.cross(cross, radial), cross], axis=-2)


def hill_to_inertial(states):
    """Linear map from a relative state in the Hill frame to the relative ECI state.

    Parameters
    ----------
    states : array_like, shape (..., 6)
        ECI states of the reference (km, km/s).

    Returns
    -------
    ndarray, shape (..., 6, 6)
        ``T = [[R^T, 0], [R^T [w x], R^T]]`` with ``R`` from :func:`rsw_frame` (the Hill
        axes x radial, y along-track, z cross-track) and ``w = |r x v| / |r|^2`` the
        frame's angular rate about its z axis: ``(dr, dv)_ECI = T (dr, dv)_Hill``. A Hill
        covariance ``S`` maps to ``T S T^T``.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional.

    Notes
    -----
    Transport theorem for the rotating Hill frame; Vallado Ch. 6 (relative motion).
    """
    states = _states(states, "states")
    to_eci = np.swapaxes(rsw_frame(states), -1, -2)
    rate = np.linalg.norm(angular_momentum(states), axis=-1) / np.sum(states[..., :3] ** 2, axis=-1)
    spin = np.zeros(states.shape[:-1] + (3, 3))
    spin[..., 0, 1], spin[..., 1, 0] = -rate, rate
    T = np.zeros(states.shape[:-1] + (6, 6))
    T[..., :3, :3] = T[..., 3:, 3:] = to_eci
    T[..., 3:, :3] = to_eci @ spin
    return T
