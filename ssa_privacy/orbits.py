"""Orbit propagation: the planar J2 model of [TCB] §5.1.

State ``(r, r_dot, theta, theta_dot)`` in polar coordinates with the equations of
motion [TCB (12)] (SPEC §1)::

    r''     = -mu / r^2 + theta'^2 r + (3 J2 / (2 r^4)) (3 sin(theta)^2 - 1)
    theta'' = -2 theta' r' / r - (3 J2 / r^4) cos(theta) sin(theta)

Here ``J2`` is the dimensional product mu * J2 * R_e^2 (km^5/s^2), as in [TCB] Table 1.
Propagation works in normalized units: length R_e, time T_orb (the period of the
circular orbit at altitude h), so velocities are in R_e / T_orb and angles in radians.
"""

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ssa_privacy._validation import as_finite_array

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
        r_ddot = (-self.mu_n / r**2 + theta_dot**2 * r
                  + 1.5 * self.J2_n / r**4 * (3 * sin**2 - 1))
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
        solution = solve_ivp(self.acceleration, (times[0], times[-1]), state0, method="DOP853",
                             t_eval=times, rtol=rtol, atol=atol)
        if not solution.success:
            raise ValueError(f"orbit integration failed: {solution.message}")
        return solution.y.T
