"""The fusion centre's filter for a catalogue object: an extended Kalman filter per contact.

A catalogue study tracks each object from its passes over a network (a *contact* is a
group of passes that overlap in time, :func:`~ssa_privacy.sensors.streams.contacts`).
:func:`track_contacts` runs several filters of one object at once (one per privacy
level, the same contacts and times, different measurements and noises):

- *prediction*: each estimate is propagated by the J2 model from the end of the previous
  contact through the next one, with its state-transition matrix, all filters in one
  batched integration
  (:meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate_with_transition`); the
  covariance is ``Phi P Phi^T + Q``. The truth and the filters share the J2 model, so
  Q is the prediction's own error, measured on every prediction: its integration error
  (the outer product of the difference between the filter's propagation and one at a
  tenth of its tolerance) and, for a filter whose position is uncertain beyond
  :data:`RELINEARISE_KM`, its linearisation error (what cubature points of its
  covariance, propagated by the J2 flow, spread to beyond ``Phi P Phi^T``: a cloud of
  kilometres bends with the orbit), plus optional white-acceleration noise (``psd``)
  for users whose truth has forces the model lacks;
- *update*: all measurements of the contact at once, linearised about the predicted
  track (``H_k Phi(t_k, t_end)`` maps a change of the state at the contact's end to
  measurement k), with the full noise covariance of the contact's releases (a pass-level
  design correlates the noise across the pass), in information form, whitened by the
  noise's blocks per pass without any matrix of the contact's size
  (:func:`~ssa_privacy.estimation.contact_update.information_update`);
- *orbit determination*: at the first contact, and at any contact whose predicted
  position is uncertain beyond :data:`RELINEARISE_KM`, the update is replaced by the
  maximum a posteriori state of batch least squares on the contact's releases
  (:mod:`ssa_privacy.estimation.orbit_determination`): a single update linearised about
  a prediction tens of kilometres off (the nominal orbit, before the first contact) is
  overconfident, because the measurements' second-order terms exceed a radar's noise.
  On 10 LEO objects over 6 h this took the median position RMSE without privacy from 57
  to 25 m and the time-averaged NEES of the filters into the chi-square band. The prior
  is split into three Gaussians along its principal axis and the three solutions are
  merged (``split=True``): releases privatized to about 10 nats constrain the state to a
  curved valley, and one Laplace covariance about a point of it lost 5 of 50 LEO
  objects over 24 h (errors of tens of kilometres with a stated standard deviation of
  one), where the merged one kept 3 of them.

An update that would put the orbit's perigee below 80 km (or on an escape orbit) is
rejected and the prediction kept (the study counts them): a lost filter's estimate could
not be integrated further. A chi-square gate on the innovations was tried and dropped:
it rejected first contacts, whose linearisation is worst there, and a filter that
rejects its first contacts never recovers.

Why an EKF and not the UKF of :class:`~ssa_privacy.estimation.ukf.OrbitTracker`: a
pass-level release is one correlated vector, so the update must take a whole contact at
once; the state-transition matrix maps every measurement of the contact to one epoch at
the cost of 13 trajectories per contact, where a UKF would propagate its sigma points to
every measurement epoch. Between contacts the estimate is a pure prediction, so the
estimate at a time uses only the contacts that ended by then.
"""

import numpy as np

from ssa_privacy._internal.validation import (
    as_matrix,
    non_negative,
    positive_int,
    real_array,
    whole_numbers,
)
from ssa_privacy.constants import MU_EARTH, R_EARTH
from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.estimation.contact_update import information_update
from ssa_privacy.estimation.orbit_determination import (
    contact_orbit_determination,
    linearised_contact,
)
from ssa_privacy.estimation.ukf import measurement_residual
from ssa_privacy.orbits._checks import earth_orbits

__all__ = [
    "FILTER_PSD",
    "FILTER_TOLERANCE",
    "PERIGEE_FLOOR_KM",
    "RELINEARISE_KM",
    "plausible",
    "process_noise",
    "track_contacts",
]

#: Default white-acceleration PSD of the filters' process noise (km^2/s^3): none, as the
#: truth and the filters share the J2 model; their integration and linearisation errors
#: are measured and added at each prediction instead (:func:`track_contacts`).
FILTER_PSD = 0.0
#: Integration tolerance (rtol = atol) of the filters' predictions.
FILTER_TOLERANCE = 1.0e-9
#: An update may not leave the orbit's perigee below this altitude (km).
PERIGEE_FLOOR_KM = 80.0
#: A contact after the first is solved by batch least squares (not a single update
#: linearised about the prediction) for a filter whose predicted position standard
#: deviation exceeds this (km): the measurements' second-order terms are then above
#: the noise of a radar. Above it, the prediction's linearisation error is also
#: measured and added to its covariance.
RELINEARISE_KM = 1.0


def process_noise(dt, psd=FILTER_PSD):
    """Covariance of white-acceleration process noise over dt, shape (6, 6).

    Parameters
    ----------
    dt : float
        Time step (s), finite and >= 0.
    psd : float, optional
        Acceleration power spectral density (km^2/s^3), finite and >= 0.

    Returns
    -------
    ndarray, shape (6, 6)
        ``q [[dt^3/3 I, dt^2/2 I], [dt^2/2 I, dt I]]`` (km^2, km^2/s, km^2/s^2).

    Raises
    ------
    ValueError
        If ``dt`` or ``psd`` is negative, NaN or infinite (a covariance must be positive
        semi-definite), or so large that the covariance overflows; the message names the
        argument.
    TypeError
        If either is not a real number.

    Notes
    -----
    Bar-Shalom, Li and Kirubarajan, *Estimation with Applications to Tracking and
    Navigation*, §6.2.2 (the continuous white-noise acceleration model).
    """
    dt, psd = non_negative(dt, "dt"), non_negative(psd, "psd")
    if psd == 0.0:
        return np.zeros((6, 6))
    with np.errstate(over="ignore", invalid="ignore"):  # inf * 0 in kron: refused below
        dt = np.float64(dt)
        block = np.array([[dt**3 / 3.0, dt**2 / 2.0], [dt**2 / 2.0, dt]])
        Q = psd * np.kron(block, np.eye(3))
    if not np.all(np.isfinite(Q)):
        raise ValueError(
            f"dt: a step of {dt:g} s with psd = {psd:g} km^2/s^3 gives a process noise "
            "covariance beyond double precision (dt^3 psd / 3 overflows)"
        )
    return Q


def _update(x_pred, P_pred, contact, f, h, maps):
    """One update from the prediction, linearised about it
    (:func:`~ssa_privacy.estimation.contact_update.information_update`, whitened by the
    noise's blocks per pass); the updated state and covariance, or None if the update is
    rejected, and the update's NIS and rows.

    The prediction's azimuths are put on the release's branch (that of the reference).
    The update is rejected when the updated orbit is not plausible (:func:`plausible`).
    """
    noise = contact.noise
    blocks = noise.blocks(f) if isinstance(noise, ContactNoise) else [noise[f]]
    on_branch = contact.reference + measurement_residual(h, contact.reference, contact.wrapped)
    update = information_update(x_pred, P_pred, maps, contact.z[f] - on_branch, blocks)
    nis = (update.nis, update.dof)
    return ((update.x, update.P) if plausible(update.x) else None), nis


def plausible(state):
    """Whether an ECI state is on a bound orbit with its perigee above PERIGEE_FLOOR_KM.

    Parameters
    ----------
    state : ndarray, shape (6,)
        Position (km) and velocity (km/s).

    Returns
    -------
    bool
        False for an escape orbit, one that dips below the floor, or a state with a
        non-finite entry (a diverged update): an update that gives one is rejected, since
        its prediction cannot be integrated (Vallado Ch. 2, the conic from energy and
        angular momentum).

    Raises
    ------
    TypeError
        If ``state`` is not an array of real numbers.
    ValueError
        If ``state`` does not have shape (6,).
    """
    state = real_array(state, "state")
    if state.shape != (6,):
        raise ValueError(
            f"state must have shape (6,) (position km, velocity km/s), got {state.shape}"
        )
    r, v = state[:3], state[3:]
    radius = np.linalg.norm(r)
    energy = 0.5 * (v @ v) - MU_EARTH / radius
    if not np.isfinite(energy) or energy >= 0.0:
        return False
    a = -MU_EARTH / (2.0 * energy)
    h = np.cross(r, v)
    e = np.sqrt(max(0.0, 1.0 + 2.0 * energy * (h @ h) / MU_EARTH**2))
    return bool(a * (1.0 - e) > R_EARTH + PERIGEE_FLOOR_KM)


def track_contacts(
    model, x0, P0, contacts, evaluate, filters=None, diagnostics=False, orbit_determination=True
):
    """Run F extended Kalman filters of one object through its contacts.

    Parameters
    ----------
    model : TrackingModel
        The filters' dynamics, network, Earth orientation, time grid of m epochs (s; the
        filters start at ``times[0]``) and process noise
        (:class:`~ssa_privacy.estimation.tracking.TrackingModel`; its
        :meth:`~ssa_privacy.estimation.tracking.TrackingModel.track` calls this function).
    x0 : ndarray, shape (6,)
        The initial estimate (the nominal state, km and km/s).
    P0 : ndarray, shape (6, 6)
        Its covariance (the manoeuvre prior).
    contacts : list of ContactMeasurements
        In time order, each with F filters' releases.
    evaluate : ndarray of int, shape (E,)
        Increasing grid indices at which to report the estimates, each in [0, m).
    filters : int, optional
        The number F of filters; required without contacts (an object that no station
        sees is tracked by prediction alone, every filter alike), else it must match the
        contacts' releases. Default: that of the contacts.
    diagnostics : bool, optional
        Also return each filter's covariance at the evaluation times and the normalized
        innovation squared (NIS) of its updates (default False).
    orbit_determination : bool, optional
        Start each filter at its first contact from the batch least-squares state
        (:func:`~ssa_privacy.estimation.orbit_determination.contact_orbit_determination`)
        instead of an update linearised about the prior mean (default True).

    Returns
    -------
    estimates : ndarray, shape (F, E, 6)
        Each filter's estimate at the evaluation times, from the contacts that ended by
        then (km, km/s); without contacts, the prediction from ``x0``.
    rejected : ndarray of int, shape (F,)
        Each filter's contacts whose update was rejected (the prediction is kept): an
        implausible updated orbit (:func:`plausible`).
    diagnostics : dict, only with ``diagnostics=True``
        ``covariances`` (F, E, 6, 6), the filters' covariances at the evaluation times
        (km^2, km^2/s, km^2/s^2); ``nis`` (F,), the sum over the contacts of
        ``nu^T S^-1 nu`` (nu the innovation, S its predicted covariance, every update
        counted, rejected or not); ``nis_dof`` (F,), the sum of the updates' row counts;
        ``contact_nis`` (F, C) and ``contact_dof`` (C,), the same per contact.
        For a consistent filter ``nis`` is chi-square with ``nis_dof`` degrees of
        freedom (Bar-Shalom, Li and Kirubarajan, "Estimation with Applications to
        Tracking and Navigation", 2001, §5.4).

    Raises
    ------
    ValueError
        Naming the argument: ``x0`` is not one finite state of a bound orbit above the
        surface with its perigee above 80 km
        (:func:`~ssa_privacy.orbits._checks.earth_orbits`), ``P0`` is not a finite 6 x 6
        matrix, an ``evaluate`` index is off the grid or they do not increase,
        ``filters`` is missing without contacts or differs from the contacts' filters, a
        contact's index is off the grid or the contacts are not in time order. As the
        propagator (a state that falls into the Earth) or the stations.
    """
    propagator, stations, earth, times = model.propagator, model.stations, model.earth, model.times
    psd = model.psd
    F = _filter_count(contacts, filters)
    x0 = earth_orbits(x0, "x0", propagator.mu, propagator.R_e, batch=False)
    if x0.ndim != 1:
        raise ValueError(f"x0 must be one state of shape (6,), got shape {x0.shape}")
    P0 = as_matrix(P0, "P0", (6, 6))
    evaluate = _grid_indices(evaluate, "evaluate", len(times))
    for n, contact in enumerate(contacts):
        _grid_indices(np.unique(contact.indices), f"contacts[{n}].indices", len(times))
        if n and contact.indices.min() <= contacts[n - 1].end:
            raise ValueError(
                f"contacts must be in time order without overlap: contacts[{n}] starts at "
                f"grid index {contact.indices.min()}, not after the end of contacts[{n - 1}] "
                f"({contacts[n - 1].end})"
            )
    x, P = np.tile(x0, (F, 1)), np.tile(P0, (F, 1, 1))
    estimates, previous = np.empty((F, len(evaluate), 6)), 0
    record = _Diagnostics(F, len(evaluate), evaluate) if diagnostics else None
    rejected = np.zeros(F, dtype=int)
    for n, contact in enumerate(contacts):
        grid = np.unique(
            np.concatenate([[previous], _between(evaluate, previous, contact.end), contact.indices])
        )
        paths, Phi = propagator.propagate_with_transition(
            times[grid], x, rtol=FILTER_TOLERANCE, atol=FILTER_TOLERANCE
        )
        position = _positions(grid)
        _store(estimates, evaluate, previous, contact.end, paths, position)
        model_error = _model_error(propagator, times[grid], x, P, paths, Phi)
        if record:
            record.covariances(times, previous, contact.end, P, Phi, position, psd, model_error)
        end = position[contact.end]
        Q = process_noise(times[contact.end] - times[previous], psd) + model_error[:, end]
        predicted = paths[:, end], Phi[:, end] @ P @ np.swapaxes(Phi[:, end], 1, 2) + Q
        batch = _needs_batch(predicted[1], n == 0) if orbit_determination else []
        if len(batch):
            solution = contact_orbit_determination(
                model,
                x[batch],
                P[batch],
                contact.subset(batch),
                FILTER_TOLERANCE,
                split=True,
                start=previous,
            )
        for f in range(F):
            if f in batch:
                k = int(np.flatnonzero(batch == f)[0])
                nis = (solution.nis[k], solution.rows)
                updated = (solution.states[k], solution.covariances[k])
                updated = updated if plausible(updated[0]) else None
            else:
                h, maps = linearised_contact(
                    stations, earth, contact, times, paths[f], Phi[f], position
                )
                updated, nis = _update(predicted[0][f], predicted[1][f], contact, f, h, maps)
            if record:
                record.add_innovation(f, *nis)
            rejected[f] += updated is None
            x[f], P[f] = (predicted[0][f], predicted[1][f]) if updated is None else updated
        previous = contact.end
    rest = np.unique(np.concatenate([[previous], _between(evaluate, previous, len(times))]))
    paths = propagator.propagate_many(times[rest], x, FILTER_TOLERANCE, FILTER_TOLERANCE)
    _store(estimates, evaluate, previous, len(times), paths, _positions(rest))
    if not record:
        return estimates, rejected
    _, Phi = propagator.propagate_with_transition(
        times[rest], x, rtol=FILTER_TOLERANCE, atol=FILTER_TOLERANCE
    )
    model_error = _model_error(propagator, times[rest], x, P, paths, Phi)
    record.covariances(times, previous, len(times), P, Phi, _positions(rest), psd, model_error)
    return estimates, rejected, record.result()


class _Diagnostics:
    """The covariances at the evaluation times and the NIS of the updates (track_contacts)."""

    def __init__(self, filters, count, evaluate):
        self.evaluate = evaluate
        self.P = np.empty((filters, count, 6, 6))
        self.nis, self.dof = np.zeros(filters), np.zeros(filters, dtype=int)
        self.contact_nis, self.contact_dof = [], []

    def covariances(self, times, first, last, P, Phi, position, psd, model_error):
        """Predicted covariances ``Phi P Phi^T + Q`` at the evaluation indices in [first, last)."""
        for e in np.flatnonzero((self.evaluate >= first) & (self.evaluate < last)):
            k = position[int(self.evaluate[e])]
            Q = process_noise(times[self.evaluate[e]] - times[first], psd) + model_error[:, k]
            predicted = np.einsum("fij,fjk,flk->fil", Phi[:, k], P, Phi[:, k]) + Q
            self.P[:, e] = 0.5 * (predicted + np.swapaxes(predicted, 1, 2))

    def add_innovation(self, f, nis, rows):
        """Add an update's ``nu^T S^-1 nu`` and its row count; the
        filters of a contact are added in order, from filter 0."""
        if f == 0:
            self.contact_nis.append(np.zeros(len(self.nis)))
            self.contact_dof.append(rows)
        self.contact_nis[-1][f] = nis
        self.nis[f] += nis
        self.dof[f] += rows

    def result(self):
        count = len(self.nis)
        return {
            "covariances": self.P,
            "nis": self.nis.copy(),
            "nis_dof": self.dof.copy(),
            "contact_nis": np.array(self.contact_nis).reshape(-1, count).T,
            "contact_dof": np.array(self.contact_dof, dtype=int),
        }


def _needs_batch(P_predicted, first):
    """The filters whose contact is solved by batch least squares: all at the first
    contact, then those whose predicted position is uncertain beyond RELINEARISE_KM."""
    spread = np.sqrt(np.einsum("fii->f", P_predicted[:, :3, :3]))
    return np.arange(len(P_predicted)) if first else np.flatnonzero(spread > RELINEARISE_KM)


def _model_error(propagator, grid_times, x, P, predicted, Phi):
    """Per filter and grid time, the covariance its linear prediction misses (km^2,
    km^2/s, km^2/s^2; shape (F, g, 6, 6)): its integration error plus, for a filter
    whose predicted position is uncertain beyond RELINEARISE_KM, its linearisation error
    (not for a filter whose cubature points include an orbit that is not
    :func:`plausible`: its cloud reaches the atmosphere, and it keeps ``Phi P Phi^T``).

    The integration error is the prediction's difference from a propagation at a tenth
    of the filters' tolerance (Richardson's idea: the tighter integration's own error is
    about ten times smaller), the filter's dynamics being the truth's J2 model. The
    linearisation error is :func:`_linearisation_error`."""
    tight = FILTER_TOLERANCE / 10.0
    error = predicted - propagator.propagate_many(grid_times, x, tight, tight)
    Q = np.einsum("fgi,fgj->fgij", error, error)
    linear = np.einsum("fgij,fjk,fglk->fgil", Phi, P, Phi)
    spread = np.sqrt(np.einsum("fgii->fg", linear[:, :, :3, :3])).max(axis=1)
    points = {f: _cubature(x[f], P[f]) for f in np.flatnonzero(spread > RELINEARISE_KM)}
    uncertain = [f for f, cloud in points.items() if all(map(plausible, cloud))]
    if uncertain:
        Q[uncertain] += _linearisation_error(
            propagator,
            grid_times,
            np.array([points[f] for f in uncertain]),
            predicted[uncertain],
            linear[uncertain],
        )
    return Q


def _linearisation_error(propagator, grid_times, points, predicted, linear):
    """The positive part of the cubature second moment about the prediction minus the
    linearly propagated covariance, per filter and grid time (shape (U, g, 6, 6)).

    The 12 cubature points ``x +- sqrt(6) (columns of a root of P)`` of each filter
    (``points``, shape (U, 12, 6), :func:`_cubature`) are propagated by the J2 flow;
    their second moment about the filter's own prediction (its mean propagated) is the
    covariance that a Gaussian of covariance P spreads to with the flow's curvature and
    the bias of its mean (the third-degree spherical-radial rule of Arasaratnam and
    Haykin, IEEE Trans. Automatic Control 54(6), 2009). Along an orbit a kilometre-sized
    cloud bends with the orbit, which ``Phi P Phi^T`` misses."""
    flat = points.reshape(-1, 6)
    moved = propagator.propagate_many(grid_times, flat, FILTER_TOLERANCE, FILTER_TOLERANCE)
    deviation = moved.reshape(len(points), 12, len(grid_times), 6) - predicted[:, None]
    missed = np.einsum("ukgi,ukgj->ugij", deviation, deviation) / 12.0 - linear
    values, vectors = np.linalg.eigh(0.5 * (missed + np.swapaxes(missed, 2, 3)))
    return np.einsum("ugij,ugj,ugkj->ugik", vectors, np.clip(values, 0.0, None), vectors)


def _cubature(x, P):
    """The 12 cubature points ``x +- sqrt(6) (columns of a symmetric root of P)``, (12, 6)."""
    values, vectors = np.linalg.eigh(0.5 * (P + P.T))
    root = vectors * np.sqrt(6.0 * np.clip(values, 0.0, None))
    return x + np.concatenate([root, -root], axis=1).T


def _filter_count(contacts, filters):
    """The number of filters, from ``filters`` and the contacts' releases (checked)."""
    if filters is not None:
        filters = positive_int(filters, "filters")
    counts = {contact.z.shape[0] for contact in contacts}
    if filters is None and not counts:
        raise ValueError("filters must be given when there are no contacts (prediction alone)")
    if len(counts) > 1 or (filters is not None and counts - {filters}):
        raise ValueError(
            f"contacts must hold the releases of filters = {filters} filters each, got "
            f"{sorted(counts)}"
        )
    return filters if filters is not None else counts.pop()


def _grid_indices(indices, name, size):
    """``indices`` as increasing whole numbers in [0, size), or a ValueError naming them."""
    indices = whole_numbers(np.atleast_1d(indices), name, low=0)
    if indices.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {indices.shape}")
    if indices.size and indices.max() >= size:
        raise ValueError(
            f"{name} must index the time grid of {size} epochs (0 to {size - 1}), got "
            f"{int(indices.max())}"
        )
    if np.any(np.diff(indices) <= 0):
        raise ValueError(f"{name} must be strictly increasing")
    return indices


def _positions(grid):
    """Grid index -> position in ``grid``."""
    return dict(zip(grid.tolist(), range(len(grid)), strict=True))


def _between(evaluate, first, last):
    """The evaluation indices in [first, last)."""
    return evaluate[(evaluate >= first) & (evaluate < last)]


def _store(estimates, evaluate, first, last, paths, position):
    """Copy the propagated states at the evaluation indices in [first, last): the
    estimate at ``first`` (a contact's end) is the updated one."""
    for e in np.flatnonzero((evaluate >= first) & (evaluate < last)):
        estimates[:, e] = paths[:, position[int(evaluate[e])]]
