"""Two-body + J2 motion of a satellite in an Earth-centred inertial frame (Cowell's method).

State ``(x, y, z, vx, vy, vz)`` in km and km/s, the z axis being Earth's rotation axis,
with the dimensionless J2 of EGM-96 by default. The propagator also gives the conserved
energy and the analytic J2 secular rates of the node and of the argument of perigee;
conversions to and from orbital elements are in :mod:`ssa_privacy.orbits.elements`,
element sets (TLEs) enter through :mod:`ssa_privacy.orbits.tle`.

Two backends integrate the motion. By default heyoka's Taylor integrator (batches of a
fixed width, one step sequence per object, each object's result independent of the others;
``ssa_privacy/orbits/_taylor.py``); where heyoka cannot be imported (it has wheels for Linux
only) or the environment variable ``SSA_PRIVACY_PROPAGATOR`` is ``scipy``, scipy's DOP853
(batches stacked into one system, the tolerance tightened so that each object's own error
estimate meets it; ``ssa_privacy/orbits/_dop853.py``). Both give the transition matrices
from the first-order variational equations. See :doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., 2013: Ch. 8
(special perturbations, the J2 acceleration) and Ch. 9 (secular J2 rates). H. D. Curtis,
"Orbital Mechanics for Engineering Students", 3rd ed., §4.7 (J2 secular rates), Ch. 10.
E. Hairer, S. P. Norsett and G. Wanner, "Solving Ordinary Differential Equations I",
2nd ed., 1993, §II.4 (step-size control with a root-mean-square error norm).
F. Biscani and D. Izzo, "Revisiting high-order Taylor methods for astrodynamics and
celestial mechanics", MNRAS 504(2), 2021 (heyoka).
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.validation import (
    as_finite_array,
    non_negative,
    positive,
    positive_int,
    real_array,
)
from ssa_privacy.constants import J2_EARTH, MU_EARTH, R_EARTH
from ssa_privacy.orbits import _dop853, _taylor
from ssa_privacy.orbits._checks import earth_orbits, vectors

__all__ = [
    "BATCH",
    "J2Propagator",
    "LOOSEST_TOLERANCE",
    "TIGHT_TOLERANCE",
]

#: Default tolerances of :meth:`J2Propagator.propagate` (the truth of every study).
TIGHT_TOLERANCE = 1e-10
#: Loosest tolerance :meth:`J2Propagator.propagate` accepts (for a filter's process model).
LOOSEST_TOLERANCE = 1e-6
#: Objects per stacked system of :meth:`J2Propagator.propagate_many` on the scipy backend.
BATCH = 256


def _tolerance(value, name):
    value = positive(value, name)
    if value > LOOSEST_TOLERANCE:
        raise ValueError(f"{name} must be at most {LOOSEST_TOLERANCE}, got {value}")
    return value


def _output_times(times):
    """``times`` as a finite, non-empty, non-decreasing grid (s), or an error naming the entry."""
    times = real_array(times, "times", ndim=1)
    if len(times) == 0:
        raise ValueError("times must be a non-empty grid of output times (s)")
    if not np.all(np.isfinite(times)):
        k = int(np.flatnonzero(~np.isfinite(times))[0])
        raise ValueError(f"times[{k}] = {times[k]} is not finite")
    if np.any(np.diff(times) < 0):
        k = int(np.flatnonzero(np.diff(times) < 0)[0])
        raise ValueError(
            f"times must be non-decreasing: times[{k + 1}] = {times[k + 1]} s is before "
            f"times[{k}] = {times[k]} s"
        )
    return times


def _controls(rtol, atol, first_step):
    """Checked tolerances (at most :data:`LOOSEST_TOLERANCE`) and optional first step."""
    rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
    return rtol, atol, None if first_step is None else positive(first_step, "first_step")


@dataclass(frozen=True)
class J2Propagator:
    """Two-body + J2 motion of a satellite in an Earth-centred inertial (ECI) frame.

    The state is ``(x, y, z, vx, vy, vz)`` in km and km/s, the z axis being Earth's
    rotation axis. The acceleration is ``-mu r / |r|^3`` plus the J2 term::

        a_J2 = -(3/2) J2 mu R_e^2 / |r|^5 * (x (1 - 5 z^2/r^2), y (1 - 5 z^2/r^2),
                                              z (3 - 5 z^2/r^2))

    The propagator models bound Earth orbits without drag: every initial state must be
    finite, above the surface (``|r| >= R_e``), on an elliptic osculating orbit (specific
    Keplerian energy ``|v|^2 / 2 - mu / |r| < 0``) with a perigee altitude of at least
    80 km, below which the atmosphere brings an object down within a revolution. An
    object that reaches the surface during the integration stops it with an error naming
    the object and the time.

    Parameters
    ----------
    mu : float
        Gravitational parameter (km^3/s^2), default :data:`~ssa_privacy.constants.MU_EARTH`.
    R_e : float
        Equatorial radius (km), default :data:`~ssa_privacy.constants.R_EARTH`.
    J2 : float
        Dimensionless second zonal harmonic, default :data:`~ssa_privacy.constants.J2_EARTH`; 0 gives two-body
        motion.

    Raises
    ------
    ValueError
        If ``mu`` or ``R_e`` is not positive or ``J2`` is negative or not finite.

    Notes
    -----
    Vallado Ch. 8 (J2 acceleration of the zonal geopotential) and Ch. 9 (secular
    rates); Curtis §4.7 and Ch. 10. On the heyoka backend the compiled integrators are
    cached per process and hold their state between calls: they are not thread-safe, so
    a process must not propagate from two threads at once (processes are fine).
    """

    mu: float = MU_EARTH
    R_e: float = R_EARTH
    J2: float = J2_EARTH

    def __post_init__(self):
        positive(self.mu, "mu")
        positive(self.R_e, "R_e")
        non_negative(self.J2, "J2")

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

        Raises
        ------
        ValueError
            If y is not a finite vector of 6 k entries with non-zero positions.
        """
        y = as_finite_array(y, "y", ndim=1)
        if y.size == 0 or y.size % 6:
            raise ValueError(f"y must hold k stacked 6-vectors, got {y.size} entries")
        if np.any(np.linalg.norm(y.reshape(-1, 6)[:, :3], axis=1) == 0):
            raise ValueError("y has a zero position vector: the acceleration is undefined")
        return self._derivative(t, y)

    def _derivative(self, t, y):
        """:meth:`derivative` without validation (the integrator's inner loop)."""
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
        """Integrate one or several initial states.

        Parameters
        ----------
        times : array_like, shape (m,)
            Non-decreasing output times (s); the initial state is at ``times[0]``.
        state0 : array_like, shape (6,) or (k, 6)
            Initial ECI state(s), km and km/s: bound Earth orbits (see the class). On the
            heyoka backend each state has its own step sequence, as in
            :meth:`propagate_many`; on the scipy backend several states are integrated
            together as one system.
        rtol, atol : float, optional
            Tolerances, default 1e-10, at most :data:`LOOSEST_TOLERANCE`. Studies use
            1e-10 for the truth; a filter's process model may use a looser one. heyoka's
            single tolerance is ``1e-4 min(rtol, atol)`` (positions within 1 cm over a day
            of a tight reference at the default, LEO to GEO).
        first_step : float, optional
            Initial step size of DOP853 (s) on the scipy backend; by default ``solve_ivp``
            chooses one. The Taylor integrator chooses its steps itself and ignores it.

        Returns
        -------
        ndarray, shape (m, 6) or (k, m, 6)
            The states at ``times`` (km, km/s).

        Raises
        ------
        ValueError
            If a tolerance or ``first_step`` is out of range; if the times are empty, or
            a time is not finite or before the previous one (naming the entry
            ``times[k]``); if ``state0`` is not of shape (6,) or (k, 6); if a state
            (``state0`` or ``state0[n]``) is not finite, is below the Earth's surface, is
            on a parabolic or hyperbolic orbit or has a perigee altitude below 80 km; if
            an object reaches the surface during the integration (naming it and the
            time); or if the integration fails or leaves the finite numbers (naming the
            time and the object); or if ``SSA_PRIVACY_PROPAGATOR`` is neither ``heyoka``
            nor ``scipy``.
        TypeError
            If an argument is not made of real numbers.

        Notes
        -----
        Cowell's method (direct integration of the perturbed motion), Vallado Ch. 8.
        """
        controls = _controls(rtol, atol, first_step)
        times = _output_times(times)
        state0 = self._orbits(state0, "state0", batch=False)
        label = (lambda n: "state0") if state0.ndim == 1 else "state0[{}]".format
        states = np.atleast_2d(state0)
        path, _ = self._flow(times, states, controls, max(len(states), 1), label, False)
        return path[0] if state0.ndim == 1 else path

    def _orbits(self, states, name, batch):
        """Initial states checked by :func:`~ssa_privacy.orbits._checks.earth_orbits`."""
        return earth_orbits(states, name, self.mu, self.R_e, batch)

    def _flow(self, times, states, controls, batch, label, variational):
        """Checked states ``(N, 6)`` integrated by the chosen backend: paths (N, m, 6)
        and, if ``variational``, the transition matrices (N, m, 6, 6), else None.

        ``label(n)`` names object n in error messages; ``batch`` is the scipy backend's
        stacked-system size."""
        if times[-1] == times[0] or not len(states):
            paths = np.repeat(states[:, None, :], len(times), axis=1)
            Phi = np.broadcast_to(np.eye(6), (len(states), len(times), 6, 6)).copy()
            return paths, Phi if variational else None
        if _taylor.available():
            tol = _taylor.tolerance(*controls[:2])
            return _taylor.integrate(self, times, states, tol, variational, label)
        return _dop853.integrate(self, times, states, controls, batch, label, variational)

    def propagate_many(
        self,
        times,
        states0,
        rtol=TIGHT_TOLERANCE,
        atol=TIGHT_TOLERANCE,
        first_step=None,
        batch=BATCH,
    ):
        """Integrate many objects at once, in batches.

        Parameters
        ----------
        times : array_like, shape (m,)
            Non-decreasing output times (s), shared by all objects; the initial states are
            at ``times[0]``.
        states0 : array_like, shape (N, 6)
            Initial ECI states of the N objects, km and km/s: bound Earth orbits (see the
            class).
        rtol, atol : float, optional
            Tolerances for each object, default 1e-10, at most
            :data:`LOOSEST_TOLERANCE` (as :meth:`propagate`).
        first_step : float, optional
            Initial step size (s) of the scipy backend, at most ``times[-1] - times[0]``;
            by default ``solve_ivp`` chooses it.
        batch : int, optional
            Objects per stacked system of the scipy backend (default :data:`BATCH`);
            heyoka's batches have a fixed width.

        Returns
        -------
        ndarray, shape (N, m, 6)
            The states at ``times`` (km, km/s).

        Raises
        ------
        ValueError
            As :meth:`propagate`, an object being named ``states0[n]`` (the first refused
            one, with the number refused), or if ``states0`` is not of shape (N, 6) (a
            ragged row is named), ``first_step`` exceeds the time span or ``batch`` is
            not a positive integer.
        TypeError
            If an argument is not made of real numbers.

        Notes
        -----
        heyoka integrates batches of a fixed width, each object with its own step
        sequence: an object's result does not depend on the other objects. ``solve_ivp``
        controls the step with the root-mean-square of the scaled error estimate over all
        components (Hairer, Norsett and Wanner §II.4). Over a batch of B objects that
        norm is ``sqrt(mean_n e_n^2)`` of the objects' own norms ``e_n``, so with the
        tolerances divided by ``sqrt(B)`` every accepted step has ``e_n <= 1`` for each
        object: each object's local error is controlled at least as tightly as when it is
        integrated alone (the step follows the hardest object of the batch), and the
        result is at least as close to the exact solution.
        """
        controls = _controls(rtol, atol, first_step)
        times = _output_times(times)
        states0 = self._orbits(states0, "states0", batch=True)
        span = times[-1] - times[0]
        if first_step is not None and first_step > span:
            raise ValueError(f"first_step must be at most the time span {span} s, got {first_step}")
        batch = positive_int(batch, "batch")
        return self._flow(times, states0, controls, batch, "states0[{}]".format, False)[0]

    def transition_matrices(self, times, states0, *, rtol=1e-12, atol=1e-12):
        """State-transition matrices ``Phi(t, t0) = d state(t) / d state(t0)`` of many objects.

        Parameters
        ----------
        times : array_like, shape (m,)
            Non-decreasing output times (s); the initial states are at ``times[0]``.
        states0 : array_like, shape (N, 6)
            Initial ECI states (km, km/s) about which the flow is linearised: bound Earth
            orbits, checked as in :meth:`propagate_many`.
        rtol, atol : float, optional
            Tolerances of each object's integration (default 1e-12), as :meth:`propagate`.

        Returns
        -------
        ndarray, shape (N, m, 6, 6)
            ``Phi[n, k]`` maps a deviation of object n's state at ``times[0]`` to its
            deviation at ``times[k]``; ``Phi[n, 0]`` is the identity.

        Raises
        ------
        ValueError
            As :meth:`propagate_many`.

        Notes
        -----
        The first-order variational equations ``dPhi/dt = [[0, I], [G, 0]] Phi``,
        ``Phi(t0) = I``, ``G`` the gradient of the acceleration, integrated with the
        trajectory (heyoka's ``var_ode_sys``, or the analytic G on the scipy backend). The
        flow is Hamiltonian, so Phi is symplectic (``Phi^T Omega Phi = Omega``), which the
        tests check (Vallado Ch. 10, the state-transition matrix).
        """
        return self.propagate_with_transition(times, states0, rtol=rtol, atol=atol)[1]

    def propagate_with_transition(self, times, states0, *, rtol=1e-12, atol=1e-12):
        """The trajectories of many objects and their state-transition matrices, in one pass.

        Parameters
        ----------
        times, states0, rtol, atol
            As :meth:`transition_matrices`.

        Returns
        -------
        paths : ndarray, shape (N, m, 6)
            The states at ``times`` (km, km/s), as :meth:`propagate_many` (the step
            sequence also controls the variational equations, so they differ from it by
            the integration error).
        Phi : ndarray, shape (N, m, 6, 6)
            ``Phi(times[k], times[0])`` of each object, as :meth:`transition_matrices`.

        Raises
        ------
        ValueError
            As :meth:`transition_matrices`.

        Notes
        -----
        Each object's state and its 36 variational components are one system of 42
        equations (an extended Kalman filter's prediction).
        """
        controls = _controls(rtol, atol, None)
        times = _output_times(times)
        states0 = self._orbits(states0, "states0", batch=True)
        return self._flow(times, states0, controls, BATCH, "states0[{}]".format, True)

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
            If the states are not finite, not 6-dimensional or at the origin.

        Notes
        -----
        The J2 term of the zonal geopotential, Vallado Ch. 8.
        """
        states = vectors(states, "states")
        r = np.linalg.norm(states[..., :3], axis=-1)
        if np.any(r == 0):
            raise ValueError("states has a zero position vector: the potential is infinite")
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
        a, i = as_finite_array(a, "a"), as_finite_array(i, "i")
        try:
            np.broadcast_shapes(a.shape, e.shape, i.shape)
        except ValueError:
            raise ValueError(
                f"a, e and i must broadcast together, got shapes {a.shape}, {e.shape}, {i.shape}"
            ) from None
        factor = self.mean_motion(a) * self.J2 * (self.R_e / (a * (1 - e**2))) ** 2
        cos_i = np.cos(i)
        return -1.5 * factor * cos_i, 0.75 * factor * (5 * cos_i**2 - 1)
