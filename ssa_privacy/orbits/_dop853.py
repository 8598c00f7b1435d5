"""The J2 flow integrated by scipy's DOP853 (the propagator's fallback where heyoka is not).

Batches of objects are stacked into one system, the tolerances divided by the square root
of the batch size so that each object's own error estimate meets them (Hairer, Norsett
and Wanner §II.4: ``solve_ivp`` controls the root-mean-square of the scaled error). The
transition matrices come from the first-order variational equations
``dPhi/dt = [[0, I], [G, 0]] Phi``, with ``G`` the analytic gradient of the J2
acceleration (:func:`gravity_gradient`), integrated with the trajectory (42 components
per object).
"""

import numpy as np
from scipy.integrate import solve_ivp

__all__ = []


class _SurfaceCrossing:
    """Terminal event of ``solve_ivp``: the lowest object of a stacked system reaches the surface.

    It also remembers the last time and states the integrator showed it, so that a failed
    integration can say when and for which object it stopped.
    """

    terminal = True
    direction = -1

    def __init__(self, radius, t0, y0, size):
        self.radius2 = radius**2
        self.t, self.y, self.size = t0, y0, size

    def __call__(self, t, y):
        self.t, self.y = t, y
        positions = y.reshape(-1, self.size)[:, :3]
        return np.min(np.einsum("ij,ij->i", positions, positions)) - self.radius2


def _lowest(y, size):
    """Index of the object of stacked states ``y`` (size k,) nearest the Earth's centre."""
    positions = y.reshape(-1, size)[:, :3]
    return int(np.argmin(np.einsum("ij,ij->i", positions, positions)))


def gravity_gradient(model, positions):
    """Gradient ``G = d a / d r`` of the two-body + J2 acceleration, shape (k, 3, 3) (1/s^2).

    With ``s = |r|^2``, ``A = 3/2 J2 R_e^2`` the acceleration is ``c r + d e_z``,
    ``c = -mu (s^-3/2 + A s^-5/2 - 5 A z^2 s^-7/2)``, ``d = -2 mu A z s^-5/2``, so
    ``G = c I + 2 c_s r r^T + 10 mu A z s^-7/2 (r e_z^T + e_z r^T) - 2 mu A s^-5/2 e_z e_z^T``
    with ``c_s = dc/ds`` (standard; Vallado Ch. 8 for the acceleration).
    """
    s = np.einsum("ij,ij->i", positions, positions)
    z = positions[:, 2]
    A = 1.5 * model.J2 * model.R_e**2
    c = -model.mu * (s**-1.5 + A * s**-2.5 - 5.0 * A * z**2 * s**-3.5)
    c_s = -model.mu * (-1.5 * s**-2.5 - 2.5 * A * s**-3.5 + 17.5 * A * z**2 * s**-4.5)
    G = (
        c[:, None, None] * np.eye(3)
        + 2.0 * c_s[:, None, None] * positions[:, :, None] * positions[:, None, :]
    )
    cross = 10.0 * model.mu * A * z * s**-3.5
    G[:, :, 2] += cross[:, None] * positions
    G[:, 2, :] += cross[:, None] * positions
    G[:, 2, 2] -= 2.0 * model.mu * A * s**-2.5
    return G


def _variational_derivative(model, y):
    """Right-hand side of stacked (state, Phi) systems, 42 components per object."""
    stacked = y.reshape(-1, 42)
    out = np.empty_like(stacked)
    out[:, :6] = model._derivative(0.0, stacked[:, :6].ravel()).reshape(-1, 6)
    Phi = stacked[:, 6:].reshape(-1, 6, 6)
    rates = np.empty_like(Phi)
    rates[:, :3] = Phi[:, 3:]
    rates[:, 3:] = gravity_gradient(model, stacked[:, :3]) @ Phi[:, :3]
    out[:, 6:] = rates.reshape(-1, 36)
    return out.ravel()


def _integrate(model, times, states, controls, label):
    """Integrate checked rows ``(k, size)`` (size 6, or 42 with Phi) as one stacked system.

    ``controls = (rtol, atol, first_step)``; returns ``(k, m, size)``. The integration stops
    with an error naming the object and the time if an object reaches the surface.
    """
    size = states.shape[1]
    derivative = model._derivative if size == 6 else lambda t, y: _variational_derivative(model, y)
    surface = _SurfaceCrossing(model.R_e, times[0], states.ravel(), size)
    rtol, atol, first_step = controls
    solution = solve_ivp(
        derivative,
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
            f"{label(_lowest(y, size))}: the orbit reaches the Earth's surface at t = {t:.1f} s; "
            "the J2 model does not hold there"
        )
    if not solution.success:
        raise ValueError(
            f"orbit integration failed at t = {surface.t:.1f} s (lowest object "
            f"{label(_lowest(surface.y, size))}): {solution.message}"
        )
    finite = np.isfinite(solution.y).all(axis=1)
    if not finite.all():
        n = int(np.flatnonzero(~finite)[0]) // size
        raise ValueError(f"{label(n)}: the orbit integration left the finite numbers")
    return solution.y.reshape(len(states), size, len(times)).transpose(0, 2, 1)


def integrate(model, times, states, controls, batch, label, variational=False):
    """Trajectories (and transition matrices) of checked states, in stacked batches.

    Parameters
    ----------
    model : J2Propagator
        The dynamics.
    times : ndarray, shape (m,)
        Checked non-decreasing output times (s), ``times[-1] > times[0]``.
    states : ndarray, shape (N, 6)
        Checked initial states (km, km/s).
    controls : tuple
        ``(rtol, atol, first_step)`` of each object.
    batch : int
        Objects per stacked system; the tolerances are divided by the square root of
        its actual size.
    label : callable
        ``label(n)`` names object n in error messages.
    variational : bool, optional
        Whether to integrate the variational equations too.

    Returns
    -------
    paths : ndarray, shape (N, m, 6)
        The states at ``times``.
    Phi : ndarray, shape (N, m, 6, 6) or None
        The transition matrices if ``variational``.
    """
    if variational:
        identity = np.tile(np.eye(6).ravel(), (len(states), 1))
        states = np.concatenate([states, identity], axis=1)
    rtol, atol, first_step = controls
    out = np.empty((len(states), len(times), states.shape[1]))
    for start in range(0, len(states), batch):
        rows = slice(start, min(start + batch, len(states)))
        shrink = np.sqrt(rows.stop - rows.start)
        out[rows] = _integrate(
            model,
            times,
            states[rows],
            (rtol / shrink, atol / shrink, first_step),
            lambda n, start=start: label(start + n),
        )
    if not variational:
        return out, None
    return out[..., :6], out[..., 6:].reshape(len(states), len(times), 6, 6)
