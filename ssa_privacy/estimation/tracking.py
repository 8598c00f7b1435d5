"""The tracking pipeline of a catalogue object, as one call: a network measures a truth,
the passes are released, grouped into contacts, and the filters track them.

:class:`TrackingModel` holds what the fusion centre's filters share (the dynamics, the
network, the Earth's orientation, the time grid and the process noise);
:meth:`TrackingModel.track` runs the extended Kalman filters of
:func:`~ssa_privacy.estimation.ekf.track_contacts` through an object's contacts and
gives a :class:`TrackResult`. :func:`simulate_and_track` is the whole pipeline for one
object: the stations measure the truth with their sensor noise
(:mod:`ssa_privacy.sensors.simulation`), each filter's passes are released through its
mechanisms, grouped into contacts (:func:`~ssa_privacy.estimation.contacts.contact_releases`)
and tracked. Several truths (simulated days) are tracked in one run, their filters side
by side. :func:`rmse` and :func:`~ssa_privacy.estimation.consistency.nees` (with the jitter
:data:`CORRELATION_FLOOR`) judge the estimates against a truth.
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import as_finite_array, non_negative
from ssa_privacy.estimation.contacts import contact_releases
from ssa_privacy.estimation.ekf import FILTER_PSD, track_contacts
from ssa_privacy.estimation.orbit_determination import linearised_contact
from ssa_privacy.sensors.simulation import measured_passes, release_passes, sensor_noise

__all__ = [
    "CORRELATION_FLOOR",
    "Simulation",
    "TrackResult",
    "TrackingModel",
    "rmse",
    "simulate_and_track",
]

#: Jitter added to a covariance's correlation matrix before the NEES's Cholesky
#: factorisation (:func:`~ssa_privacy.estimation.consistency.nees`): 64 n u, the
#: round-off of a 6 x 6 matrix of unit scale. Over a day the J2 flow stretches a
#: covariance until one combination of along-track position and semi-major axis is
#: known that well.
CORRELATION_FLOOR = 64 * 6 * np.finfo(float).eps


@dataclass(frozen=True, eq=False)
class TrackingModel:
    """What the fusion centre's filters of a catalogue share.

    Parameters
    ----------
    propagator : J2Propagator
        The filters' dynamics.
    stations : sequence of GroundStation or OpticalStation
        The network (indexed by the contacts' and passes' ``station``).
    earth : EarthRotation
        The Earth's orientation.
    times : ndarray, shape (m,)
        The time grid (s), finite and strictly increasing; the filters start at
        ``times[0]``.
    psd : float, optional
        White-acceleration power spectral density of the filters' process noise
        (km^2/s^3, :func:`~ssa_privacy.estimation.ekf.process_noise`), default 0: the
        truth and the filters share the J2 model
        (:data:`~ssa_privacy.estimation.ekf.FILTER_PSD`).

    Raises
    ------
    ValueError
        If ``times`` is not one-dimensional, finite and strictly increasing with at least
        one epoch, ``stations`` is empty, or ``psd`` is negative or not finite.

    Notes
    -----
    Source: standard (the process and measurement models of an extended Kalman filter;
    Bar-Shalom, Li and Kirubarajan, *Estimation with Applications to Tracking and
    Navigation*, 2001, §10.3).
    """

    propagator: object
    stations: tuple
    earth: object
    times: np.ndarray
    psd: float = FILTER_PSD

    def __post_init__(self):
        times = as_finite_array(self.times, "times", ndim=1)
        if not len(times) or np.any(np.diff(times) <= 0):
            raise ValueError("times must be a non-empty, strictly increasing grid (s)")
        if not len(self.stations):
            raise ValueError("stations must hold at least one station")
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "stations", tuple(self.stations))
        object.__setattr__(self, "psd", non_negative(self.psd, "psd"))

    def linearise(self, contact, path, Phi, position, at_end=True):
        """A contact's predicted measurements and their maps of one state.

        Parameters
        ----------
        contact : ContactMeasurements
            The contact.
        path : ndarray, shape (g, 6)
            The state (km, km/s) at the propagated grid points.
        Phi : ndarray, shape (g, 6, 6)
            ``Phi(t, t_first)`` at those points, from the first one.
        position : dict
            Grid index -> row of ``path``.
        at_end : bool, optional
            Map a change of the state at the contact's end (default) or at the first
            grid point.

        Returns
        -------
        h : ndarray, shape (M,)
            The predicted measurements.
        maps : ndarray, shape (M, 6)
            ``H_k Phi(t_k, t_first)`` (times ``Phi(t_end, t_first)^{-1}`` with ``at_end``).

        Notes
        -----
        :func:`~ssa_privacy.estimation.orbit_determination.linearised_contact` with the
        model's network, Earth and grid.
        """
        return linearised_contact(
            self.stations, self.earth, contact, self.times, path, Phi, position, at_end
        )

    def track(self, x0, P0, contacts, evaluate, filters=None, diagnostics=True):
        """Run F extended Kalman filters of one object through its contacts.

        Parameters
        ----------
        x0 : ndarray, shape (6,)
            The initial estimate at ``times[0]`` (km, km/s).
        P0 : ndarray, shape (6, 6)
            Its covariance.
        contacts : list of ContactMeasurements
            In time order, each with F filters' releases.
        evaluate : ndarray of int, shape (E,)
            Increasing grid indices at which to report the estimates.
        filters : int, optional
            F; required without contacts. Default: that of the contacts.
        diagnostics : bool, optional
            Also give the covariances and the NIS (default True); without them the
            run skips the covariances' propagation to the evaluation times.

        Returns
        -------
        TrackResult
            The estimates, rejections and (with ``diagnostics``) covariances and NIS.

        Raises
        ------
        ValueError
            As :func:`~ssa_privacy.estimation.ekf.track_contacts`.

        Notes
        -----
        :func:`~ssa_privacy.estimation.ekf.track_contacts` (module docstring there:
        the EKF with batch orbit determination at the first contact).
        """
        out = track_contacts(
            self, x0, P0, contacts, evaluate, filters=filters, diagnostics=diagnostics
        )
        estimates, rejected = out[:2]
        evaluate = np.atleast_1d(np.asarray(evaluate, dtype=int))
        if not diagnostics:
            return TrackResult(estimates, rejected, evaluate)
        record = out[2]
        return TrackResult(
            estimates,
            rejected,
            evaluate,
            record["covariances"],
            record["contact_nis"],
            record["contact_dof"],
        )


@dataclass(frozen=True, eq=False)
class TrackResult:
    """F filters of one object, tracked (:meth:`TrackingModel.track`).

    Parameters
    ----------
    estimates : ndarray, shape (F, E, 6)
        Each filter's estimate at the evaluation times (km, km/s).
    rejected : ndarray of int, shape (F,)
        Each filter's rejected updates (an implausible updated orbit).
    evaluate : ndarray of int, shape (E,)
        The evaluation times' grid indices.
    covariances : ndarray, shape (F, E, 6, 6), or None
        Their covariances (km^2, km^2/s, km^2/s^2); None when not asked for.
    nis : ndarray, shape (F, C), or None
        Each filter's normalized innovation squared ``nu^T S^-1 nu`` at each of the C
        contacts (every update counted, rejected or not).
    nis_dof : ndarray of int, shape (C,), or None
        Each contact's degrees of freedom (its measurement rows).

    Notes
    -----
    For a consistent filter each contact's NIS is chi-square with its degrees of freedom
    (Bar-Shalom, Li and Kirubarajan 2001, §5.4).
    """

    estimates: np.ndarray
    rejected: np.ndarray
    evaluate: np.ndarray
    covariances: np.ndarray = None
    nis: np.ndarray = None
    nis_dof: np.ndarray = None

    @property
    def total_nis(self):
        """The NIS summed over the contacts, shape (F,) (in time order; a ValueError for a
        run without diagnostics)."""
        if self.nis is None:
            raise ValueError("the run kept no NIS: track it with diagnostics=True")
        if not self.nis.shape[1]:
            return np.zeros(len(self.nis))
        return np.cumsum(self.nis, axis=1)[:, -1]

    @property
    def total_dof(self):
        """The degrees of freedom of :attr:`total_nis` (int)."""
        if self.nis_dof is None:
            raise ValueError("the run kept no NIS: track it with diagnostics=True")
        return int(np.sum(self.nis_dof))

    def filters(self, order):
        """The results of some filters, in the given order.

        Parameters
        ----------
        order : ndarray of int
            Filter indices (repeats allowed).

        Returns
        -------
        TrackResult
            Those filters' estimates, rejections, covariances and NIS.
        """
        pick = [self.estimates[order], self.rejected[order], self.evaluate]
        if self.covariances is not None:
            pick += [self.covariances[order], self.nis[order], self.nis_dof]
        return TrackResult(*pick)

    def errors(self, truth, indices):
        """Estimate minus truth at some of the evaluation times, shape (F, n, 6).

        Parameters
        ----------
        truth : ndarray, shape (m, 6) or (D, m, 6)
            The true track over the grid (km, km/s); D truths are each the truth of F/D
            consecutive filters (:func:`simulate_and_track`).
        indices : ndarray of int, shape (n,)
            Grid indices, each one of :attr:`evaluate`.

        Returns
        -------
        ndarray, shape (F, n, 6)
            The errors (km, km/s).

        Raises
        ------
        ValueError
            If an index is not an evaluation time, or F is not a multiple of D.
        """
        indices = np.asarray(indices, dtype=int)
        kept = np.searchsorted(self.evaluate, indices)
        if np.any(kept >= len(self.evaluate)) or np.any(self.evaluate[kept] != indices):
            raise ValueError("indices must be evaluation times of the run (evaluate)")
        truth = np.asarray(truth, dtype=float)
        stacked = truth[None] if truth.ndim == 2 else truth
        if len(self.estimates) % len(stacked):
            raise ValueError(f"truth: {len(stacked)} truths for {len(self.estimates)} filters")
        reference = np.repeat(stacked[:, indices], len(self.estimates) // len(stacked), axis=0)
        return np.ascontiguousarray(self.estimates[:, kept]) - reference


def rmse(errors):
    """Position (km) and velocity (m/s) RMSE of errors over their times.

    Parameters
    ----------
    errors : ndarray, shape (F, n, 6)
        Estimate minus truth (km, km/s).

    Returns
    -------
    position : ndarray, shape (F,)
        ``sqrt(mean_t |e_r|^2)`` (km).
    velocity : ndarray, shape (F,)
        ``sqrt(mean_t |e_v|^2)`` (m/s).

    Notes
    -----
    Source: standard (Bar-Shalom, Li and Kirubarajan 2001, §3.7.1).
    """
    position = np.sqrt(np.mean(np.sum(errors[..., :3] ** 2, axis=-1), axis=-1))
    velocity = 1e3 * np.sqrt(np.mean(np.sum(errors[..., 3:] ** 2, axis=-1), axis=-1))
    return position, velocity


@dataclass(frozen=True, eq=False)
class Simulation:
    """What :func:`simulate_and_track` measured, released and tracked.

    Parameters
    ----------
    track : TrackResult
        The D F filters (D truths, F filters each, truth by truth).
    measured : list of list of ndarray
        Per truth, each pass's sensor measurements (m K,).
    references : list of ndarray
        Each pass's nominal measurements (m K,).
    releases : list of list of list
        Per truth, per filter, each pass's release (None where it is released as
        measured).
    contacts : list of ContactMeasurements
        The contacts the filters updated from.
    """

    track: TrackResult
    measured: list
    references: list
    releases: list
    contacts: list


def simulate_and_track(
    model,
    truth,
    passes,
    mechanisms,
    seed,
    *,
    nominal,
    prior,
    evaluate,
    recorded=None,
    diagnostics=True,
):
    """A network measures an object's truth, releases its passes and the filters track it.

    Parameters
    ----------
    model : TrackingModel
        The filters' dynamics, network, Earth and grid.
    truth : ndarray, shape (m, 6) or (D, m, 6), or None
        The true track over the grid (km, km/s), or D of them (simulated days): each is
        measured and released, and its F filters tracked beside the others' in one run.
        None with ``recorded``.
    passes : list of Pass
        The object's passes (:func:`~ssa_privacy.sensors.streams.passes_of`).
    mechanisms : list of list
        Per filter (F), each pass's mechanism, or None (released as measured).
    seed : tuple
        ``(noise, releases)``: the seed or Generator of the sensor noise (each truth's
        drawn in turn, :func:`~ssa_privacy.sensors.simulation.sensor_noise`), and the
        seed keys of the privacy noise
        (:func:`~ssa_privacy.sensors.simulation.release_passes`): ``releases`` for one
        truth of shape (m, 6), ``(*releases, d)`` for truth d of a stack.
    nominal : ndarray, shape (m, 6)
        The public nominal track (km, km/s): the filters' initial estimate
        ``nominal[0]`` and the angles' branch.
    prior : ndarray, shape (6, 6)
        The initial estimate's covariance.
    evaluate : ndarray of int, shape (E,)
        Increasing grid indices at which to report the estimates.
    recorded : dict, optional
        Station index -> (grid indices, values): measurements instead of a truth's.
    diagnostics : bool, optional
        Also the covariances and NIS (default True).

    Returns
    -------
    Simulation
        The track of the D F filters and what they were given.

    Raises
    ------
    ValueError
        If ``truth`` is neither given nor replaced by ``recorded``, ``seed`` is not a
        pair, or as :func:`~ssa_privacy.sensors.simulation.measured_passes` and
        :meth:`TrackingModel.track`.

    Notes
    -----
    Source: standard (a simulation of the measurement model and the filter, Bar-Shalom,
    Li and Kirubarajan 2001, §5.4: the truth's errors judge the filter).
    """
    truths, keys = _truths(truth, recorded, seed)
    noise = None if recorded is not None else random_generator(seed[0], "seed")
    measured, releases, per_truth = [], [], []
    for d, true in enumerate(truths):
        drawn = None if noise is None else sensor_noise(passes, noise)
        arguments = (model.stations, model.earth, model.times, nominal, true, passes, drawn)
        values, references = measured_passes(*arguments, recorded)
        released = release_passes(mechanisms, values, keys[d])
        measured.append(values)
        releases.append(released)
        per_truth.append(
            contact_releases(model.stations, passes, values, references, mechanisms, released)
        )
    contacts = per_truth[0]
    if len(per_truth) > 1:
        contacts = [c.stacked([d[j] for d in per_truth[1:]]) for j, c in enumerate(contacts)]
    filters = len(truths) * len(mechanisms)
    track = model.track(nominal[0], prior, contacts, evaluate, filters, diagnostics)
    return Simulation(track, measured, references, releases, contacts)


def _truths(truth, recorded, seed):
    """The truths to measure (None for recorded measurements) and each one's release keys."""
    if not isinstance(seed, tuple) or len(seed) != 2:
        raise ValueError("seed must be a pair (noise seed, release keys)")
    if truth is None:
        if recorded is None:
            raise ValueError("truth must be given without recorded measurements")
        return [None], [seed[1]]
    truth = as_finite_array(truth, "truth")
    if truth.ndim == 2:
        return [truth], [seed[1]]
    if truth.ndim != 3 or not len(truth):
        raise ValueError(f"truth must have shape (m, 6) or (D, m, 6), got {truth.shape}")
    return list(truth), [(*seed[1], d) for d in range(len(truth))]
