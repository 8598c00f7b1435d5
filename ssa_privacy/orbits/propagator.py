"""Two-body + J2 motion of a satellite in an Earth-centred inertial frame (Cowell's method).

State ``(x, y, z, vx, vy, vz)`` in km and km/s, the z axis being Earth's rotation axis,
with the dimensionless J2 of EGM-96 by default. The propagator also gives the conserved
energy and the analytic J2 secular rates of the node and of the argument of perigee;
conversions to and from orbital elements are in :mod:`ssa_privacy.orbits.elements`,
element sets (TLEs) enter through :mod:`ssa_privacy.orbits.tle`. Many objects are propagated at
once by :meth:`J2Propagator.propagate_many`: batches of them stacked into one system for
scipy's DOP853, with the tolerance tightened so that each object's own error estimate
meets it. See :doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., 2013: Ch. 8
(special perturbations, the J2 acceleration) and Ch. 9 (secular J2 rates). H. D. Curtis,
"Orbital Mechanics for Engineering Students", 3rd ed., §4.7 (J2 secular rates), Ch. 10.
E. Hairer, S. P. Norsett and G. Wanner, "Solving Ordinary Differential Equations I",
2nd ed., 1993, §II.4 (step-size control with a root-mean-square error norm).
"""

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ssa_privacy._internal.validation import (
    as_finite_array,
    non_negative,
    positive,
    positive_int,
    real_array,
)
from ssa_privacy.constants import J2_EARTH, MU_EARTH, R_EARTH
from ssa_privacy.orbits._checks import earth_orbits, vectors

__all__ = [
    "BATCH",
    "DIFFERENCE_STEPS",
    "J2Propagator",
    "LOOSEST_TOLERANCE",
    "TIGHT_TOLERANCE",
]

#: Default tolerances of :meth:`J2Propagator.propagate` (the truth of every study).
TIGHT_TOLERANCE = 1e-10
#: Loosest tolerance :meth:`J2Propagator.propagate` accepts (for a filter's process model).
LOOSEST_TOLERANCE = 1e-6
#: Objects per stacked system of :meth:`J2Propagator.propagate_many`.
BATCH = 256
#: Half-widths (km, km/s) of the central differences of :meth:`J2Propagator.transition_matrices`.
DIFFERENCE_STEPS = (1.0e-3, 1.0e-6)


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


class _SurfaceCrossing:
    """Terminal event of ``solve_ivp``: the lowest object of a stacked system reaches the surface.

    It also remembers the last time and states the integrator showed it, so that a failed
    integration can say when and for which object it stopped.
    """

    terminal = True
    direction = -1

    def __init__(self, radius, t0, y0):
        self.radius2 = radius**2
        self.t, self.y = t0, y0

    def __call__(self, t, y):
        self.t, self.y = t, y
        positions = y.reshape(-1, 6)[:, :3]
        return np.min(np.einsum("ij,ij->i", positions, positions)) - self.radius2


def _lowest(y):
    """Index of the object of stacked states ``y`` (6 k,) nearest the Earth's centre."""
    positions = y.reshape(-1, 6)[:, :3]
    return int(np.argmin(np.einsum("ij,ij->i", positions, positions)))


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
    rates); Curtis §4.7 and Ch. 10.
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
        """Integrate one or several initial states with ``scipy.integrate.solve_ivp`` (DOP853).

        Parameters
        ----------
        times : array_like, shape (m,)
            Non-decreasing output times (s); the initial state is at ``times[0]``.
        state0 : array_like, shape (6,) or (k, 6)
            Initial ECI state(s), km and km/s: bound Earth orbits (see the class). Several
            states are integrated together as one system (the step size then follows the
            most demanding one); :meth:`propagate_many` integrates each with its own step
            size.
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
            If a tolerance or ``first_step`` is out of range; if the times are empty, or
            a time is not finite or before the previous one (naming the entry
            ``times[k]``); if ``state0`` is not of shape (6,) or (k, 6); if a state
            (``state0`` or ``state0[n]``) is not finite, is below the Earth's surface, is
            on a parabolic or hyperbolic orbit or has a perigee altitude below 80 km; if
            an object reaches the surface during the integration (naming it and the
            time); or if the integration fails or leaves the finite numbers (naming the
            time and the object nearest the Earth's centre).
        TypeError
            If an argument is not made of real numbers.

        Notes
        -----
        Cowell's method (direct integration of the perturbed motion), Vallado Ch. 8.
        """
        rtol, atol, first_step = _controls(rtol, atol, first_step)
        times = _output_times(times)
        state0 = self._orbits(state0, "state0", batch=False)
        label = (lambda n: "state0") if state0.ndim == 1 else "state0[{}]".format
        path = self._integrate(times, np.atleast_2d(state0), rtol, atol, first_step, label)
        return path[0] if state0.ndim == 1 else path

    def _orbits(self, states, name, batch):
        """Initial states checked by :func:`~ssa_privacy.orbits._checks.earth_orbits`."""
        return earth_orbits(states, name, self.mu, self.R_e, batch)

    def _integrate(self, times, states, rtol, atol, first_step, label):
        """Integrate checked states ``(k, 6)`` as one stacked system: ``(k, m, 6)``.

        ``label(n)`` names object n of the stack in error messages. The integration stops
        with an error naming the object and the time if an object reaches the surface.
        """
        if times[-1] == times[0]:
            return np.repeat(states[:, None, :], len(times), axis=1)
        surface = _SurfaceCrossing(self.R_e, times[0], states.ravel())
        solution = solve_ivp(
            self._derivative,
            (times[0], times[-1]),
            states.ravel(),
            method="DOP853",
            t_eval=times,
            events=surface,
            rtol=rtol,
            atol=atol,
            first_step=first_step,
        )
        if solution.status == 1:
            t, y = solution.t_events[0][0], solution.y_events[0][0]
            raise ValueError(
                f"{label(_lowest(y))}: the orbit reaches the Earth's surface at t = {t:.1f} s; "
                "the J2 model does not hold there"
            )
        if not solution.success:
            raise ValueError(
                f"orbit integration failed at t = {surface.t:.1f} s (lowest object "
                f"{label(_lowest(surface.y))}): {solution.message}"
            )
        finite = np.isfinite(solution.y).all(axis=1)
        if not finite.all():
            n = int(np.flatnonzero(~finite)[0]) // 6
            raise ValueError(f"{label(n)}: the orbit integration left the finite numbers")
        return solution.y.reshape(len(states), 6, len(times)).transpose(0, 2, 1)

    def propagate_many(
        self,
        times,
        states0,
        rtol=TIGHT_TOLERANCE,
        atol=TIGHT_TOLERANCE,
        first_step=None,
        batch=BATCH,
    ):
        """Integrate many objects at once: batches stacked into one system each.

        Parameters
        ----------
        times : array_like, shape (m,)
            Non-decreasing output times (s), shared by all objects; the initial states are
            at ``times[0]``.
        states0 : array_like, shape (N, 6)
            Initial ECI states of the N objects, km and km/s: bound Earth orbits (see the
            class).
        rtol, atol : float, optional
            Tolerances of DOP853 for each object, default 1e-10, at most
            :data:`LOOSEST_TOLERANCE`.
        first_step : float, optional
            Initial step size (s), at most ``times[-1] - times[0]``; by default
            ``solve_ivp`` chooses it.
        batch : int, optional
            Objects per stacked system (default :data:`BATCH`).

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
        ``solve_ivp`` controls the step with the root-mean-square of the scaled error
        estimate over all components (Hairer, Norsett and Wanner §II.4). Over a batch of
        B objects that norm is ``sqrt(mean_n e_n^2)`` of the objects' own norms
        ``e_n``, so with the tolerances divided by ``sqrt(B)`` every accepted step has
        ``e_n <= 1`` for each object: each object's local error is controlled at least
        as tightly as when it is integrated alone (the step follows the hardest object
        of the batch). The results therefore differ from :meth:`propagate` of one
        object by at most about that call's own integration error (about 1e-8 relative
        over a day in LEO at 1e-10, ``benchmarks/bench_propagation.py``), and are closer
        to the exact solution. Batches of :data:`BATCH` objects keep the tightening and
        the effect of one demanding orbit on the others bounded.
        """
        rtol, atol, first_step = _controls(rtol, atol, first_step)
        times = _output_times(times)
        states0 = self._orbits(states0, "states0", batch=True)
        span = times[-1] - times[0]
        if first_step is not None and first_step > span:
            raise ValueError(f"first_step must be at most the time span {span} s, got {first_step}")
        batch = positive_int(batch, "batch")
        return self._batches(times, states0, rtol, atol, first_step, batch, "states0[{}]".format)

    def _batches(self, times, states, rtol, atol, first_step, batch, label):
        """:meth:`_integrate` over batches of ``batch`` objects, tolerances shrunk by sqrt(B)."""
        out = np.empty((len(states), len(times), 6))
        for start in range(0, len(states), batch):
            rows = slice(start, min(start + batch, len(states)))
            shrink = np.sqrt(rows.stop - rows.start)
            out[rows] = self._integrate(
                times,
                states[rows],
                rtol / shrink,
                atol / shrink,
                first_step,
                lambda n, start=start: label(start + n),
            )
        return out

    def transition_matrices(self, times, states0, steps=DIFFERENCE_STEPS, rtol=1e-12, atol=1e-12):
        """State-transition matrices ``Phi(t, t0) = d state(t) / d state(t0)`` of many objects.

        Parameters
        ----------
        times : array_like, shape (m,)
            Non-decreasing output times (s); the initial states are at ``times[0]``.
        states0 : array_like, shape (N, 6)
            Initial ECI states (km, km/s) about which the flow is linearised: bound Earth
            orbits, checked as in :meth:`propagate_many` (an error names ``states0[n]``,
            never one of the perturbed states).
        steps : tuple of 2 floats, optional
            Half-widths of the central differences in position (km) and velocity (km/s),
            default :data:`DIFFERENCE_STEPS` (1 m, 1 mm/s).
        rtol, atol : float, optional
            Tolerances of each object's integration (default 1e-12).

        Returns
        -------
        ndarray, shape (N, m, 6, 6)
            ``Phi[n, k]`` maps a deviation of object n's state at ``times[0]`` to its
            deviation at ``times[k]``; ``Phi[n, 0]`` is the identity.

        Raises
        ------
        ValueError
            As :meth:`propagate_many`, or if a step is not positive.

        Notes
        -----
        Central differences of :meth:`propagate_many` over the 12 states
        ``x0 +- h e_j``, all integrated in one batch: column j is ``(x(t; x0 + h e_j) -
        x(t; x0 - h e_j)) / (2 h)``. The truncation error is of order ``h^2`` times the
        flow's third derivatives (negligible at 1 m in LEO); the integration error, about
        ``rtol |x| / h``, is about 1e-5 in the position columns at the defaults. The flow
        is Hamiltonian, so Phi is symplectic (``Phi^T Omega Phi = Omega``), which the
        tests check (Vallado Ch. 10, the state-transition matrix).
        """
        return self.propagate_with_transition(times, states0, steps, rtol, atol)[1]

    def propagate_with_transition(
        self, times, states0, steps=DIFFERENCE_STEPS, rtol=1e-12, atol=1e-12
    ):
        """The trajectories of many objects and their state-transition matrices, in one batch.

        Parameters
        ----------
        times, states0, steps, rtol, atol
            As :meth:`transition_matrices`.

        Returns
        -------
        paths : ndarray, shape (N, m, 6)
            The states at ``times`` (km, km/s), as :meth:`propagate_many`.
        Phi : ndarray, shape (N, m, 6, 6)
            ``Phi(times[k], times[0])`` of each object, as :meth:`transition_matrices`.

        Raises
        ------
        ValueError
            As :meth:`transition_matrices`.

        Notes
        -----
        The 13 states ``x0, x0 +- h e_j`` of each object are integrated together, in one
        stacked system (batches of whole objects), so the trajectory costs one more state
        per object than the matrices alone (an extended Kalman filter's prediction).
        """
        rtol, atol, _ = _controls(rtol, atol, None)
        times = _output_times(times)
        states0 = self._orbits(states0, "states0", batch=True)
        position, velocity = (positive(step, "steps") for step in steps)
        h = np.repeat([position, velocity], 3)
        offsets = np.concatenate([np.zeros((1, 6)), np.diag(h), -np.diag(h)])
        starts = (states0[:, None, :] + offsets[None]).reshape(-1, 6)
        # an object's 13 trajectories share one stacked system (one step sequence), or the
        # differences would mix two integrations' errors
        batch = 13 * (BATCH // 13)
        paths = self._batches(
            times, starts, rtol, atol, None, batch, lambda n: f"states0[{n // 13}]"
        )
        paths = paths.reshape(len(states0), 13, len(times), 6)
        columns = (paths[:, 1:7] - paths[:, 7:]) / (2.0 * h)[None, :, None, None]
        return paths[:, 0], np.moveaxis(columns, 1, 3)

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
