"""One object's measurement stream over a window: the linearised maps of its passes.

The private quantity of a catalogue object is its manoeuvre deviation x0 ~ N(0,
Sigma_XX) at the start of the window. Measurement k of a pass (station s, time t_k)
sees it through the linearised map

    C_k = H_s(x(t_k), t_k) Phi(t_k, t0),

with ``H_s`` the station's measurement Jacobian at the nominal state
(:meth:`~ssa_privacy.sensors.stations.GroundStation.jacobian`) and ``Phi`` the state
transition of the J2 flow (:meth:`~ssa_privacy.orbits.propagator.J2Propagator.transition_matrices`).
:func:`object_stream` builds these maps for every pass of every station, on which the
privacy stage designs (:mod:`ssa_privacy.privacy.pml.passes`; a sensor imports none of
it).

The maps are first order, and a day is long: for the ISS, a deviation of 100 m and 10
cm/s per Hill axis leaves the linear prediction 0.5 km from the propagated deviated
orbit after 24 h, and 1 km with 1 m/s (the scale of the ssa-network manoeuvre prior)
53 km, through the along-track drift of the changed period (measured 2026-11-24). Over
6 h and 100 m the range and range-rate predictions are within 1% of the change (a
test). The leakage of releases designed on these maps is that of the linearised
mechanism the stations design for; a tracking filter over a day must relinearise about
its own estimate.
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy.sensors.visibility import passes, split_passes

__all__ = [
    "Pass",
    "contacts",
    "object_stream",
    "passes_of",
]


@dataclass(frozen=True)
class Pass:
    """One pass: the station's index and the measurement maps of its samples.

    Parameters
    ----------
    station : int
        Index of the station in the list given to :func:`object_stream`.
    indices : ndarray of int, shape (K,)
        Indices of the pass's sample times in the window's time grid.
    C : ndarray, shape (K, m, 6)
        Linearised maps from x0 to the station's m measurement rows: (azimuth, elevation,
        range, range rate) for a radar (m = 4; rad, rad, km, km/s), (right ascension,
        declination) for an optical sensor (m = 2; rad), per km and km/s.
    R : ndarray, shape (m, m)
        The station's sensor noise covariance.
    """

    station: int
    indices: np.ndarray
    C: np.ndarray
    R: np.ndarray


def object_stream(state0, times, stations, earth, propagator):
    """The nominal track, transition matrices and passes of one object over a window.

    Parameters
    ----------
    state0 : array_like, shape (6,)
        Nominal ECI state at ``times[0]`` (km, km/s).
    times : array_like, shape (m,)
        Sample times of the window (s since the Earth model's epoch), increasing.
    stations : sequence of GroundStation or OpticalStation
        The network.
    earth : EarthRotation
        The Earth's orientation.
    propagator : J2Propagator
        Dynamics of the nominal and of the deviation.

    Returns
    -------
    nominal : ndarray, shape (m, 6)
        The nominal track.
    Phi : ndarray, shape (m, 6, 6)
        ``Phi(t_k, t0)``.
    passes_found : list of Pass
        Every pass of every station, station by station, in time order.

    Raises
    ------
    ValueError
        As :meth:`~ssa_privacy.orbits.propagator.J2Propagator.transition_matrices` or the
        stations' methods (bad states or times).
    """
    state0 = np.asarray(state0, dtype=float)
    nominal, Phi = propagator.propagate_with_transition(times, state0[None])
    return nominal[0], Phi[0], passes_of(nominal[0], Phi[0], times, stations, earth)


def passes_of(nominal, Phi, times, stations, earth, longest=None, visible=None):
    """Every pass of every station over one object's nominal track, with its maps of x0.

    Parameters
    ----------
    nominal : ndarray, shape (m, 6)
        The nominal ECI track (km, km/s) at ``times``.
    Phi : ndarray, shape (m, 6, 6)
        ``Phi(t_k, t_0)`` along it.
    times, stations, earth
        As :func:`object_stream`.
    longest : int, optional
        The most samples of one pass: a longer stretch in view (an object at MEO or GEO
        altitude is in view for hours) is cut into passes at the multiples of
        ``longest`` (:func:`~ssa_privacy.sensors.visibility.split_passes`). Default: no cut.
    visible : sequence of ndarray of bool, shape (m,) each, optional
        Per station, the grid epochs at which it measures (for example those of recorded
        measurements). Default: where the station sees the nominal track
        (``station.visible``).

    Returns
    -------
    list of Pass
        Station by station, each station's passes in time order.

    Raises
    ------
    ValueError
        As the stations' methods (bad states or times).
    """
    times = np.asarray(times, dtype=float)
    found = []
    for index, station in enumerate(stations):
        seen = station.visible(nominal, times, earth) if visible is None else visible[index]
        runs = passes(np.asarray(seen, dtype=bool))
        for start, stop in runs if longest is None else split_passes(runs, longest):
            rows = np.arange(start, stop)
            H = station.jacobian(nominal[rows], times[rows], earth)
            found.append(Pass(index, rows, H @ Phi[rows], station.noise_covariance))
    return found


def contacts(found):
    """Group passes that overlap in time (several stations at once) into contacts.

    Parameters
    ----------
    found : list of Pass
        Passes of one object (:func:`passes_of`).

    Returns
    -------
    list of list of int
        Indices into ``found``, one list per contact, contacts in time order; two passes
        share a contact when their sample ranges overlap, directly or through a third.
    """
    order = sorted(range(len(found)), key=lambda i: found[i].indices[0])
    groups, end = [], -1
    for i in order:
        if found[i].indices[0] > end:
            groups.append([])
        groups[-1].append(i)
        end = max(end, found[i].indices[-1])
    return groups
