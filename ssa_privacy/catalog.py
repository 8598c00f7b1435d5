"""Orbital regimes of a satellite catalogue and seeded samples of it.

A catalogue study tracks a sample of real objects: the element sets of
:func:`ssa_privacy.tle.load_catalogue`, sorted into regimes by their SGP4 mean motion n
(revolutions per day):

- ``"leo"``: n > 11.25 rev/day (period under 128 min), low Earth orbit;
- ``"geo"``: 0.9 < n < 1.1 rev/day, near-geosynchronous;
- ``"meo"``: every other object (navigation constellations in medium Earth orbit,
  Molniya and other highly eccentric orbits);
- ``"all"``: the whole catalogue.

On the active-satellite snapshot of 2026-03-19 (14,710 objects) that gives 13,909 LEO,
595 near-geosynchronous and 206 other objects, as the data folder's README counts them.
"""

import numpy as np
from sgp4.api import SatrecArray

from ssa_privacy._validation import as_finite_array, positive_int, scalar

#: Mean motion (rev/day) above which an orbit is LEO.
LEO_MIN_MEAN_MOTION = 11.25
#: Open interval of mean motion (rev/day) of near-geosynchronous orbits.
GEO_MEAN_MOTION = (0.9, 1.1)
#: The regimes :func:`select_objects` accepts.
REGIMES = ("leo", "meo", "geo", "all")
#: Last entry of the seed key of a catalogue sample: ``default_rng([seed, SAMPLE_TAG])``.
SAMPLE_TAG = 7


def mean_motion(element_set):
    """SGP4 mean motion of an element set (rev/day).

    Parameters
    ----------
    element_set : ssa_privacy.tle.ElementSet
        A validated element set.

    Returns
    -------
    float
        ``no_kozai`` (rad/min) in revolutions per day.
    """
    return float(element_set.satrec.no_kozai) * 1440.0 / (2.0 * np.pi)


def regime(element_set):
    """The orbital regime of an element set: ``"leo"``, ``"geo"`` or ``"meo"``.

    Parameters
    ----------
    element_set : ssa_privacy.tle.ElementSet
        A validated element set.

    Returns
    -------
    str
        By mean motion n (rev/day): ``"leo"`` if n > 11.25, ``"geo"`` if 0.9 < n < 1.1,
        else ``"meo"`` (module docstring).
    """
    n = mean_motion(element_set)
    if n > LEO_MIN_MEAN_MOTION:
        return "leo"
    if GEO_MEAN_MOTION[0] < n < GEO_MEAN_MOTION[1]:
        return "geo"
    return "meo"


def select_objects(catalogue, regime_name="leo", objects=None, seed=0):
    """A seeded sample of the catalogue's objects in one regime, in catalogue order.

    Parameters
    ----------
    catalogue : sequence of ssa_privacy.tle.ElementSet
        The catalogue, e.g. :func:`ssa_privacy.tle.load_catalogue`.
    regime_name : {"leo", "meo", "geo", "all"}
        The regime to sample from (module docstring).
    objects : int, optional
        Sample size, at most the number of objects in the regime; None takes them all.
    seed : int
        Seed of the sample: ``numpy.random.default_rng([seed, SAMPLE_TAG])`` draws
        ``objects`` distinct members of the regime, uniformly without replacement.

    Returns
    -------
    list of ssa_privacy.tle.ElementSet
        The sampled element sets, in the order of ``catalogue``.

    Raises
    ------
    ValueError
        If ``regime_name`` is not a regime, ``objects`` is not a positive whole number or
        exceeds the regime's size (the message gives the size), or ``seed`` is negative.
    TypeError
        If ``objects`` or ``seed`` is not a number.
    """
    if regime_name not in REGIMES:
        raise ValueError(f"regime must be one of {', '.join(REGIMES)}, got {regime_name!r}")
    seed = scalar(seed, "seed", integer=True)
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    members = [e for e in catalogue if regime_name == "all" or regime(e) == regime_name]
    if objects is None:
        return members
    objects = positive_int(objects, "objects")
    if objects > len(members):
        raise ValueError(
            f"objects must be at most the {len(members)} {regime_name} objects of the "
            f"catalogue, got {objects}"
        )
    chosen = np.random.default_rng([seed, SAMPLE_TAG]).choice(len(members), objects, replace=False)
    return [members[i] for i in np.sort(chosen)]


def _sgp4(element_sets, start_jd, times):
    """The validated sets and times, and SatrecArray's (errors, r, v) at the times."""
    sets = list(element_sets)
    if not sets:
        raise ValueError("element_sets must hold at least one element set")
    start_jd = scalar(start_jd, "start_jd")
    times = as_finite_array(times, "times", ndim=1)
    whole = np.floor(start_jd)
    fraction = (start_jd - whole) + times / 86400.0
    satrecs = SatrecArray([e.satrec for e in sets])
    return sets, times, satrecs.sgp4(np.full_like(fraction, whole), fraction)


def sgp4_states(element_sets, start_jd, times):
    """SGP4 states of many objects at common times, in one call (``sgp4.api.SatrecArray``).

    Parameters
    ----------
    element_sets : sequence of ssa_privacy.tle.ElementSet
        The objects (N of them).
    start_jd : float
        Julian date (UTC) of ``times = 0``, e.g. the latest epoch of the sample.
    times : array_like, shape (m,)
        Seconds after ``start_jd``.

    Returns
    -------
    ndarray, shape (N, m, 6)
        TEME position (km) and velocity (km/s) of each object at each time.

    Raises
    ------
    ValueError
        If ``element_sets`` is empty, ``start_jd`` or a time is not finite, or SGP4
        reports an error for an object (e.g. decay within the window): the message names
        the object, its catalogue number and the first failing time.

    Notes
    -----
    The same SGP4 (Vallado et al. 2006) as :meth:`ssa_privacy.tle.ElementSet.propagate`,
    vectorised over objects and times by the ``sgp4`` package's C++ core.
    """
    sets, times, (errors, r, v) = _sgp4(element_sets, start_jd, times)
    failed = np.flatnonzero(errors.any(axis=1))
    if failed.size:
        bad = sets[failed[0]]
        first = times[np.flatnonzero(errors[failed[0]])[0]]
        raise ValueError(
            f"SGP4 failed for {bad.name} (catalogue number {bad.catalogue_number}) at "
            f"t = {first:g} s after start_jd (error code {int(errors[failed[0]].max())})"
        )
    return np.concatenate([r, v], axis=-1)


def sgp4_valid(element_sets, start_jd, times):
    """Which objects SGP4 propagates without error over the given times.

    Parameters
    ----------
    element_sets : sequence of ssa_privacy.tle.ElementSet
        The objects (N of them).
    start_jd : float
        Julian date (UTC) of ``times = 0``.
    times : array_like, shape (m,)
        Seconds after ``start_jd``.

    Returns
    -------
    ndarray of bool, shape (N,)
        False for an object whose SGP4 reports an error at some time (e.g. decay: one
        of the 13,909 LEO objects of the 2026-03-19 catalogue within a day of its newest
        epoch).

    Raises
    ------
    ValueError
        If ``element_sets`` is empty, or ``start_jd`` or a time is not finite.
    """
    errors = _sgp4(element_sets, start_jd, times)[2][0]
    return ~errors.any(axis=1)
