"""The J2 flow integrated by heyoka's Taylor method (the default backend of the propagator).

heyoka (F. Biscani and D. Izzo, "Revisiting high-order Taylor methods for astrodynamics
and celestial mechanics", MNRAS 504(2), 2021) compiles the equations of motion, and with
them the first-order variational equations (``heyoka.var_ode_sys``), into an adaptive
Taylor integrator. Objects are integrated in batch mode (``heyoka.taylor_adaptive_batch``)
of a fixed width :data:`WIDTH`, each lane with its own step sequence, the last batch padded
with a copy of a real state: an object's numbers never depend on its neighbours, on how a
run splits the objects among workers or on their count. The states are written on the
requested grid by ``propagate_grid``; a terminal event stops a batch when an object reaches
the surface.

One integrator is compiled per process and configuration (mu, J2, R_e, tolerance, width,
with or without the variational equations) and kept in memory; if the environment
variable ``SSA_PRIVACY_HEYOKA_CACHE`` names a folder, the compiled integrators are also
pickled there and read back by later processes (point it only at a folder of your own:
unpickling runs code). The cached integrators hold their state between calls, so they are
not thread-safe: a process must not integrate from two threads at once.
"""

import hashlib
import os
import pickle
import tempfile

import numpy as np

__all__ = []

#: Objects per batch of the Taylor integrator (the last batch is padded).
WIDTH = 4
#: heyoka's single tolerance is this times ``min(rtol, atol)`` (see :func:`tolerance`).
TOLERANCE_FACTOR = 1e-4
#: Environment variable naming a folder of pickled compiled integrators (optional).
CACHE_VARIABLE = "SSA_PRIVACY_HEYOKA_CACHE"
#: Environment variable choosing the backend: ``heyoka`` (default) or ``scipy``.
BACKEND_VARIABLE = "SSA_PRIVACY_PROPAGATOR"

_INTEGRATORS = {}


def tolerance(rtol, atol):
    """heyoka's tolerance for the propagator's ``rtol`` and ``atol``.

    heyoka controls each step's local error relative to the largest state component (the
    position, thousands of km), where DOP853 controls each component against ``rtol |y| +
    atol``; ``TOLERANCE_FACTOR min(rtol, atol)`` keeps positions at the default 1e-10
    within 1 cm of a tight independent reference over a day from LEO to GEO
    (``tests/orbits/test_propagator.py``).
    """
    return TOLERANCE_FACTOR * min(rtol, atol)


def _equations(mu, J2, R_e):
    """The J2 equations of motion as heyoka expressions: list of (variable, rate)."""
    import heyoka as hy

    x, y, z, vx, vy, vz = hy.make_vars("x", "y", "z", "vx", "vy", "vz")
    r2 = x**2 + y**2 + z**2
    kepler = -mu / (r2 * hy.sqrt(r2))
    j2 = 1.5 * J2 * R_e**2 / r2
    radial = kepler * (1.0 + j2 * (1.0 - 5.0 * z**2 / r2))
    rates = [vx, vy, vz, radial * x, radial * y, (radial + 2.0 * j2 * kepler) * z]
    return list(zip([x, y, z, vx, vy, vz], rates, strict=True)), r2


def _build(mu, J2, R_e, tol, variational):
    """Compile the batch integrator of one configuration (with its surface event)."""
    import heyoka as hy

    equations, r2 = _equations(mu, J2, R_e)
    if variational:
        equations = hy.var_ode_sys(equations, hy.var_args.vars, order=1)
    surface = hy.t_event_batch(r2 - R_e**2, direction=hy.event_direction.negative)
    start = np.tile([[R_e + 1000.0], [0.0], [0.0], [0.0], [7.0], [0.0]], (1, WIDTH))
    return hy.taylor_adaptive_batch(
        equations, start, tol=tol, t_events=[surface], compact_mode=True
    )


def _cache_file(key):
    """The file of a configuration in the folder of ``SSA_PRIVACY_HEYOKA_CACHE``, or None."""
    folder = os.environ.get(CACHE_VARIABLE)
    if not folder:
        return None
    import heyoka as hy

    digest = hashlib.sha256(repr((hy.__version__, *key)).encode()).hexdigest()[:20]
    return os.path.join(folder, f"j2-{digest}.pickle")


def _integrator(key):
    """The compiled integrator of ``key = (mu, J2, R_e, tol, WIDTH, variational)``.

    Kept in memory for the process and, if ``SSA_PRIVACY_HEYOKA_CACHE`` is set, on disk.
    """
    if key in _INTEGRATORS:
        return _INTEGRATORS[key]
    path = _cache_file(key)
    integrator = None
    if path is not None and os.path.exists(path):
        try:
            with open(path, "rb") as handle:
                integrator = pickle.load(handle)
        except Exception:  # a damaged or foreign file: compile again and replace it
            integrator = None
    if integrator is None:
        mu, J2, R_e, tol, _, variational = key
        integrator = _build(mu, J2, R_e, tol, variational)
        if path is not None:
            _store(integrator, path)
    _INTEGRATORS[key] = integrator
    return integrator


def _store(integrator, path):
    """Pickle ``integrator`` to ``path`` atomically (a concurrent writer is harmless)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
    with os.fdopen(handle, "wb") as stream:
        pickle.dump(integrator, stream)
    os.replace(temporary, path)


def integrate(model, times, states, tol, variational, label):
    """Trajectories (and transition matrices) of checked states on a time grid.

    Parameters
    ----------
    model : J2Propagator
        The dynamics (mu, J2, R_e).
    times : ndarray, shape (m,)
        Checked non-decreasing output times (s), ``times[-1] > times[0]``.
    states : ndarray, shape (N, 6)
        Checked initial states at ``times[0]`` (km, km/s).
    tol : float
        heyoka's tolerance (:func:`tolerance`).
    variational : bool
        Whether to integrate the first-order variational equations too.
    label : callable
        ``label(n)`` names object n in error messages.

    Returns
    -------
    paths : ndarray, shape (N, m, 6)
        The states at ``times``.
    Phi : ndarray, shape (N, m, 6, 6) or None
        ``d state(times[k]) / d state(times[0])`` if ``variational``.

    Raises
    ------
    ValueError
        If an object reaches the surface (naming it and the time) or the integration
        leaves the finite numbers.
    """
    key = (model.mu, model.J2, model.R_e, tol, WIDTH, variational)
    integrator = _integrator(key)
    grid, position = np.unique(times - times[0], return_inverse=True)
    size = 42 if variational else 6
    out = np.empty((len(states), len(grid), size))
    for start in range(0, len(states), WIDTH):
        rows = np.arange(start, min(start + WIDTH, len(states)))
        lanes = np.concatenate([rows, np.full(WIDTH - len(rows), rows[-1])])
        result = _batch(integrator, states[lanes], grid, variational)
        _check(integrator, times[0], lambda lane, rows=rows: label(rows[min(lane, len(rows) - 1)]))
        out[rows] = result[: len(rows)]
    out = out[:, position]
    if not variational:
        return out, None
    return out[..., :6], out[..., 6:].reshape(len(states), len(times), 6, 6)


def _batch(integrator, states, grid, variational):
    """One batch of :data:`WIDTH` states on the grid: shape (WIDTH, len(grid), size)."""
    start = states.T
    if variational:
        identity = np.repeat(np.eye(6).reshape(36, 1), WIDTH, axis=1)
        start = np.concatenate([start, identity])
    integrator.state[:] = start
    integrator.set_time(np.zeros(WIDTH))
    integrator.reset_cooldowns()
    _, values = integrator.propagate_grid(np.repeat(grid[:, None], WIDTH, axis=1))
    return values.transpose(2, 0, 1)


def _check(integrator, t0, label):
    """Raise if a lane of the last ``propagate_grid`` stopped before the end of the grid."""
    import heyoka as hy

    outcomes = [outcome for outcome, *_ in integrator.propagate_res]
    stopped = [lane for lane, outcome in enumerate(outcomes) if int(outcome) == -1]
    if stopped:
        lane = stopped[0]
        t = t0 + float(integrator.time[lane])
        raise ValueError(
            f"{label(lane)}: the orbit reaches the Earth's surface at t = {t:.1f} s; "
            "the J2 model does not hold there"
        )
    failed = [
        lane for lane, outcome in enumerate(outcomes) if outcome != hy.taylor_outcome.time_limit
    ]
    if failed:
        raise ValueError(
            f"{label(failed[0])}: the orbit integration left the finite numbers "
            f"({outcomes[failed[0]].name} at t = {t0 + float(integrator.time[failed[0]]):.1f} s)"
        )


def available():
    """Whether heyoka integrates the orbits: importable, and not refused by the environment.

    ``SSA_PRIVACY_PROPAGATOR=scipy`` selects scipy's DOP853; ``heyoka`` (or unset) selects
    heyoka where it can be imported.

    Raises
    ------
    ValueError
        If ``SSA_PRIVACY_PROPAGATOR`` is set to another value.
    """
    choice = os.environ.get(BACKEND_VARIABLE, "heyoka").strip().lower() or "heyoka"
    if choice not in ("heyoka", "scipy"):
        raise ValueError(
            f"{BACKEND_VARIABLE} must be 'heyoka' or 'scipy', got {os.environ[BACKEND_VARIABLE]!r}"
        )
    if choice == "scipy":
        return False
    try:
        import heyoka  # noqa: F401
    except ImportError:
        return False
    return True
