"""The planar J2 satellite model of [TCB] §5.1, in normalised units.

State ``(r, r_dot, theta, theta_dot)`` in polar coordinates in the plane of a polar orbit
(``theta`` is the latitude, measured from the equator), with the equations of motion
[TCB] (12)::

    r''     = -mu / r^2 + theta'^2 r + (3 J2 / (2 r^4)) (3 sin(theta)^2 - 1)
    theta'' = -2 theta' r' / r - (3 J2 / r^p) cos(theta) sin(theta)

where ``J2`` is the dimensional product ``mu * J2 * R_e^2`` (km^5/s^2) of [TCB] Table 1
and ``p = 4`` as printed in the paper (``j2_form="paper"``, the default) or ``p = 5`` as
the J2 potential gives (``j2_form="physical"``). Propagation works in normalised units:
length R_e, time T_orb (the period of the circular orbit at altitude h), so velocities
are in R_e / T_orb and angles in radians. The derivation, the constants and the size of
the difference between the two forms are in :doc:`/theory/planar-j2`.
"""

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ssa_privacy._internal.validation import as_finite_array, non_negative, positive
from ssa_privacy.constants import TCB_ALTITUDE, TCB_J2, TCB_MU, TCB_R_E

__all__ = [
    "J2_FORMS",
    "MAX_TOLERANCE",
    "PlanarJ2Model",
]

#: Largest relative/absolute tolerance accepted by :meth:`PlanarJ2Model.propagate`.
MAX_TOLERANCE = 1e-10
#: The two forms of the J2 term of theta'' (see :class:`PlanarJ2Model`).
J2_FORMS = ("paper", "physical")


def _planar(state, name):
    """Finite planar states of shape (4,) or (..., 4)."""
    state = as_finite_array(state, name)
    if state.ndim < 1 or state.shape[-1] != 4:
        raise ValueError(f"{name} must have shape (4,) or (..., 4), got {state.shape}")
    return state


@dataclass(frozen=True)
class PlanarJ2Model:
    """The planar J2 satellite model of [TCB] §5.1 with its constants (Table 1).

    Parameters
    ----------
    R_e : float
        Earth radius (km); the length unit. Default [TCB] Table 1, 6378.1363 km.
    mu : float
        Earth's gravitational parameter (km^3/s^2). Default 398600.4415.
    J2 : float
        Dimensional J2 coefficient ``mu * J2 * R_e^2`` (km^5/s^2), >= 0; 0 gives
        two-body motion. Default 1.7555e10.
    h : float
        Altitude of the initial circular orbit (km), >= 0. Default 340.
    j2_form : {"paper", "physical"}
        The J2 term of ``theta''``: ``"paper"`` (default) divides it by ``r^4`` as printed
        in [TCB] (12) and as the studies use it; ``"physical"`` divides it by ``r^5``, the
        tangential J2 acceleration of the potential divided by ``r``, which agrees with a
        3D J2 propagation of the same polar orbit.

    Raises
    ------
    ValueError
        If ``R_e`` or ``mu`` is not positive, ``J2`` or ``h`` is negative or not finite,
        or ``j2_form`` is not one of :data:`J2_FORMS`.
    TypeError
        If a constant is not a real number (a bool, a string, None).

    Notes
    -----
    [TCB] §5.1, (12)-(13) and Table 1; the derivation of both terms from the J2 potential
    and the measured difference between the two forms (about 5 km along-track per orbit)
    are in :doc:`/theory/planar-j2`. The time unit ``T_orb`` and the speed ``V_theta``
    are those of the circular orbit of radius ``R_e + h``: 5480.05 s and 7.70273 km/s,
    which [TCB] Table 1 rounds to 5.48e3 s and 7.7027 km/s. In these units the initial
    angular rate is exactly 2 pi.

    Examples
    --------
    >>> model = PlanarJ2Model()
    >>> round(float(model.mu_n), 2), round(float(model.J2_n), 4)
    (46.13, 0.0499)
    >>> path = model.propagate([0.0, 1.0])
    >>> physical = PlanarJ2Model(j2_form="physical").propagate([0.0, 1.0])
    >>> bool(abs(path[-1, 2] - physical[-1, 2]) * model.r_orbit > 1.0)  # km after one orbit
    True
    """

    R_e: float = TCB_R_E
    mu: float = TCB_MU
    J2: float = TCB_J2
    h: float = TCB_ALTITUDE
    j2_form: str = "paper"

    def __post_init__(self):
        positive(self.R_e, "R_e")
        positive(self.mu, "mu")
        non_negative(self.J2, "J2")
        non_negative(self.h, "h")
        if not isinstance(self.j2_form, str) or self.j2_form not in J2_FORMS:
            raise ValueError(f"j2_form must be one of {J2_FORMS}, got {self.j2_form!r}")

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
        """Gravitational parameter in normalised units, mu T_orb^2 / R_e^3 (about 46.13)."""
        return self.mu * self.T_orb**2 / self.R_e**3

    @property
    def J2_n(self):
        """J2 coefficient in normalised units, J2 T_orb^2 / R_e^5 (about 0.0499)."""
        return self.J2 * self.T_orb**2 / self.R_e**5

    def initial_state(self):
        """Normalised initial state of [TCB] (13).

        Returns
        -------
        ndarray, shape (4,)
            ``r0 = (R_e + h) / R_e``, ``r_dot = 0``, ``theta = 0`` and
            ``theta_dot = V_theta T_orb / (R_e r0)`` (exactly 2 pi).
        """
        r0 = self.r_orbit / self.R_e
        return np.array([r0, 0.0, 0.0, self.V_theta * self.T_orb / (self.R_e * r0)])

    def _scale(self):
        return np.array([self.R_e, self.R_e / self.T_orb, 1.0, 1.0 / self.T_orb])

    def to_physical(self, state):
        """Convert normalised states to physical units.

        Parameters
        ----------
        state : array_like, shape (..., 4)
            Normalised states ``(r / R_e, r_dot T_orb / R_e, theta, theta_dot T_orb)``.

        Returns
        -------
        ndarray, shape (..., 4)
            ``(r, r_dot, theta, theta_dot)`` in km, km/s, rad, rad/s.

        Raises
        ------
        ValueError
            If the states are not finite or their last axis is not 4.
        """
        return _planar(state, "state") * self._scale()

    def to_normalized(self, state):
        """Convert physical states to normalised units.

        Parameters
        ----------
        state : array_like, shape (..., 4)
            ``(r, r_dot, theta, theta_dot)`` in km, km/s, rad, rad/s.

        Returns
        -------
        ndarray, shape (..., 4)
            Normalised states (inverse of :meth:`to_physical`).

        Raises
        ------
        ValueError
            If the states are not finite or their last axis is not 4.
        """
        return _planar(state, "state") / self._scale()

    def acceleration(self, t, state):
        """Right-hand side of [TCB] (12) in normalised units.

        Parameters
        ----------
        t : float
            Time (T_orb), unused (the model is autonomous).
        state : array_like, shape (4,)
            Normalised state ``(r, r_dot, theta, theta_dot)``.

        Returns
        -------
        ndarray, shape (4,)
            ``(r_dot, r'', theta_dot, theta'')``; the J2 term of ``theta''`` is divided by
            ``r^4`` or ``r^5`` according to :attr:`j2_form`.

        Raises
        ------
        ValueError
            If the state is not a finite 4-vector with ``r > 0``.

        Notes
        -----
        [TCB] (12); the physical form is derived in :doc:`/theory/planar-j2`.
        """
        state = _planar(state, "state")
        if state.shape != (4,) or state[0] <= 0:
            raise ValueError(
                f"state must be one state (r, r_dot, theta, theta_dot) with r > 0, got {state}"
            )
        return self._rhs(t, state)

    def _rhs(self, t, state):
        """:meth:`acceleration` without validation (the integrator's inner loop)."""
        r, r_dot, theta, theta_dot = state
        sin, cos = np.sin(theta), np.cos(theta)
        power = 4 if self.j2_form == "paper" else 5
        r_ddot = -self.mu_n / r**2 + theta_dot**2 * r + 1.5 * self.J2_n / r**4 * (3 * sin**2 - 1)
        theta_ddot = -2 * theta_dot * r_dot / r - 3 * self.J2_n / r**power * cos * sin
        return np.array([r_dot, r_ddot, theta_dot, theta_ddot])

    def energy(self, state):
        """Specific mechanical energy of normalised states, J2 potential included.

        Parameters
        ----------
        state : array_like, shape (..., 4)
            Normalised states.

        Returns
        -------
        ndarray, shape (...)
            ``(r_dot^2 + r^2 theta_dot^2) / 2 - mu_n / r + J2_n (3 sin^2 theta - 1) / (2 r^3)``
            in (R_e / T_orb)^2. Conserved by the ``"physical"`` form only: the
            ``"paper"`` form is not the gradient of a potential.

        Raises
        ------
        ValueError
            If the states are not finite, their last axis is not 4 or a radius is not
            positive.

        Notes
        -----
        The J2 term of the zonal geopotential on a polar orbit, :doc:`/theory/planar-j2`.
        """
        r, r_dot, theta, theta_dot = np.moveaxis(_planar(state, "state"), -1, 0)
        if np.any(r <= 0):
            raise ValueError("state must have a positive radius r")
        potential = -self.mu_n / r + self.J2_n * (3 * np.sin(theta) ** 2 - 1) / (2 * r**3)
        return 0.5 * (r_dot**2 + (r * theta_dot) ** 2) + potential

    def propagate(self, times, state0=None, rtol=1e-12, atol=1e-12):
        """Integrate the model and return the state on a time grid.

        Parameters
        ----------
        times : array_like, shape (m,)
            Increasing output times in units of T_orb, starting at the initial epoch.
        state0 : array_like, shape (4,), optional
            Normalised initial state; default :meth:`initial_state`.
        rtol, atol : float
            Tolerances of ``scipy.integrate.solve_ivp`` (DOP853); at most 1e-10.

        Returns
        -------
        ndarray, shape (m, 4)
            Normalised states ``(r / R_e, r_dot / (R_e / T_orb), theta [rad, unwrapped],
            theta_dot [rad / T_orb])``.

        Raises
        ------
        ValueError
            If the times are not finite and non-decreasing, the initial state is not a
            finite 4-vector with a positive radius, a tolerance is not in (0, 1e-10], or
            the integration fails or leaves the finite numbers.
        TypeError
            If a tolerance is not a real number.

        Notes
        -----
        [TCB] §5.1, equations (12)-(13); :doc:`/theory/planar-j2`.
        """
        times = as_finite_array(times, "times", ndim=1)
        if len(times) == 0 or np.any(np.diff(times) < 0):
            raise ValueError("times must be a non-empty, non-decreasing grid")
        for name, value in (("rtol", rtol), ("atol", atol)):
            if positive(value, name) > MAX_TOLERANCE:
                raise ValueError(f"{name} must be at most {MAX_TOLERANCE}, got {value}")
        state0 = self.initial_state() if state0 is None else as_finite_array(state0, "state0", 1)
        if state0.shape != (4,):
            raise ValueError(f"state0 must have 4 entries, got shape {state0.shape}")
        if state0[0] <= 0:
            raise ValueError(f"state0 must have a positive radius r, got {state0[0]}")
        if times[-1] == times[0]:  # no time elapses: the initial state at every time
            return np.tile(state0, (len(times), 1))
        solution = solve_ivp(
            self._rhs,
            (times[0], times[-1]),
            state0,
            method="DOP853",
            t_eval=times,
            rtol=rtol,
            atol=atol,
        )
        if not solution.success:
            raise ValueError(f"orbit integration failed: {solution.message}")
        if not np.all(np.isfinite(solution.y)):
            raise ValueError("orbit integration produced non-finite states (a collision, r -> 0?)")
        return solution.y.T
