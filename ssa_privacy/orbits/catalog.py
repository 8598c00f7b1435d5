"""Orbital regimes of a satellite catalogue and seeded samples of it.

A catalogue study tracks a sample of real objects: the element sets of
:func:`ssa_privacy.orbits.tle.load_catalogue`, sorted into regimes by their SGP4 mean motion n
(revolutions per day):

- ``"leo"``: n > 11.25 rev/day (period under 128 min), low Earth orbit;
- ``"geo"``: 0.9 < n < 1.1 rev/day, near-geosynchronous;
- ``"meo"``: every other object (navigation constellations in medium Earth orbit,
  Molniya and other highly eccentric orbits);
- ``"all"``: the whole catalogue.

On the active-satellite snapshot of 2026-03-19 (14,710 objects) that gives 13,909 LEO,
595 near-geosynchronous and 206 other objects, as the data folder's README counts them.

A study's window is chosen from the catalogue's content, so that no single element set
can move it: :func:`window_start` takes the newest epoch among the element sets within
:data:`START_SPREAD_DAYS` of the median epoch, :func:`newest_element_sets` keeps one
element set per catalogue number and :func:`stale_element_sets` lists those whose epoch
is too far from the window start for SGP4 to be trusted there. Every element set left
out is recorded by :func:`exclusion` with the reason.
"""

import hashlib
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from sgp4.api import SatrecArray, jday

from ssa_privacy._internal.validation import as_finite_array, positive, positive_int, scalar
from ssa_privacy.orbits._element_text import decode, numbered_lines, parts
from ssa_privacy.orbits.tle import ElementSet, _sets_of_lines
from ssa_privacy.orbits.tle_format import TLEError, describe_sgp4_error

__all__ = [
    "GEO_MEAN_MOTION",
    "LEO_MIN_MEAN_MOTION",
    "REGIMES",
    "SAMPLE_TAG",
    "STALENESS_DAYS",
    "START_SPREAD_DAYS",
    "exclusion",
    "mean_motion",
    "newest_element_sets",
    "parse_utc",
    "read_element_sets",
    "regime",
    "select_objects",
    "sgp4_states",
    "sgp4_valid",
    "stale_element_sets",
    "utc_text",
    "window_start",
]

#: Mean motion (rev/day) above which an orbit is LEO.
LEO_MIN_MEAN_MOTION = 11.25
#: Open interval of mean motion (rev/day) of near-geosynchronous orbits.
GEO_MEAN_MOTION = (0.9, 1.1)
#: The regimes :func:`select_objects` accepts.
REGIMES = ("leo", "meo", "geo", "all")
#: Last entry of the seed key of a catalogue sample: ``default_rng([seed, SAMPLE_TAG])``.
SAMPLE_TAG = 7
#: Element sets whose epoch is within this many days of the catalogue's median epoch
#: choose the default window start (:func:`window_start`).
START_SPREAD_DAYS = 3.0
#: Default staleness limit (days): an element set whose epoch is further than this from
#: the window start, either side, is left out (:func:`stale_element_sets`).
STALENESS_DAYS = 14.0
#: Julian date of 2000-01-01 12:00 UTC (J2000.0), to turn Julian dates into calendar dates.
_J2000_JD = 2451545.0
_J2000 = datetime(2000, 1, 1, 12, tzinfo=UTC)


def _element_set(value, name):
    """``value`` if it is an ElementSet, else TypeError naming ``name``."""
    if not isinstance(value, ElementSet):
        raise TypeError(f"{name} must be an ElementSet, got {type(value).__name__}")
    return value


def mean_motion(element_set):
    """SGP4 mean motion of an element set (rev/day).

    Parameters
    ----------
    element_set : ssa_privacy.orbits.tle.ElementSet
        A validated element set.

    Returns
    -------
    float
        ``no_kozai`` (rad/min) in revolutions per day.

    Raises
    ------
    TypeError
        If ``element_set`` is not an ElementSet.
    """
    return float(_element_set(element_set, "element_set").satrec.no_kozai) * 1440.0 / (2.0 * np.pi)


def regime(element_set):
    """The orbital regime of an element set: ``"leo"``, ``"geo"`` or ``"meo"``.

    Parameters
    ----------
    element_set : ssa_privacy.orbits.tle.ElementSet
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
    catalogue : sequence of ssa_privacy.orbits.tle.ElementSet
        The catalogue, e.g. :func:`ssa_privacy.orbits.tle.load_catalogue`.
    regime_name : {"leo", "meo", "geo", "all"}
        The regime to sample from (module docstring).
    objects : int, optional
        Sample size, at most the number of objects in the regime; None takes them all.
    seed : int
        Seed of the sample: ``numpy.random.default_rng([seed, SAMPLE_TAG])`` draws
        ``objects`` distinct members of the regime, uniformly without replacement.

    Returns
    -------
    list of ssa_privacy.orbits.tle.ElementSet
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
        which = "" if regime_name == "all" else f" {regime_name}"
        raise ValueError(
            f"objects must be at most the {len(members)}{which} objects of the catalogue, "
            f"got {objects}"
        )
    chosen = np.random.default_rng([seed, SAMPLE_TAG]).choice(len(members), objects, replace=False)
    return [members[i] for i in np.sort(chosen)]


def _sgp4(element_sets, start_jd, times):
    """The validated sets and times, and SatrecArray's (errors, r, v) at the times."""
    sets = list(element_sets)
    if not sets:
        raise ValueError("element_sets must hold at least one element set")
    for index, element_set in enumerate(sets):
        _element_set(element_set, f"element_sets[{index}]")
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
    element_sets : sequence of ssa_privacy.orbits.tle.ElementSet
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
    TypeError
        If an element of ``element_sets`` is not an ElementSet (naming its index).
    ValueError
        If ``element_sets`` is empty, ``start_jd`` or a time is not finite, or SGP4
        reports an error for an object (e.g. decay within the window): a
        :class:`~ssa_privacy.orbits.tle_format.TLEError` naming the object, its catalogue
        number (an Alpha-5 one with its value), the first failing time and what the
        error code means.

    Notes
    -----
    The same SGP4 (Vallado et al. 2006) as :meth:`ssa_privacy.orbits.tle.ElementSet.propagate`,
    vectorised over objects and times by the ``sgp4`` package's C++ core.
    """
    sets, times, (errors, r, v) = _sgp4(element_sets, start_jd, times)
    failed = np.flatnonzero(errors.any(axis=1))
    if failed.size:
        bad = sets[failed[0]]
        first = np.flatnonzero(errors[failed[0]])[0]
        raise TLEError(
            f"SGP4 failed at t = {times[first]:g} s after start_jd: "
            f"{describe_sgp4_error(int(errors[failed[0], first]))}",
            name=bad.name,
            catalogue_number=bad.catalogue_number,
        )
    return np.concatenate([r, v], axis=-1)


def sgp4_valid(element_sets, start_jd, times):
    """Which objects SGP4 propagates without error over the given times.

    Parameters
    ----------
    element_sets : sequence of ssa_privacy.orbits.tle.ElementSet
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
    TypeError
        If an element of ``element_sets`` is not an ElementSet (naming its index).
    ValueError
        If ``element_sets`` is empty, or ``start_jd`` or a time is not finite.
    """
    errors = _sgp4(element_sets, start_jd, times)[2][0]
    return ~errors.any(axis=1)


def utc_text(jd):
    """A Julian date (UTC) as ISO 8601 text to the second, e.g. ``2026-03-20T14:12:03Z``.

    Parameters
    ----------
    jd : float
        Julian date (UTC, days).

    Returns
    -------
    str
        The date and time, rounded to the second.

    Raises
    ------
    TypeError
        If ``jd`` is not a real number.
    ValueError
        If ``jd`` is not finite or falls outside the years 1 to 9999.
    """
    jd = scalar(jd, "jd")
    try:
        when = _J2000 + timedelta(days=jd - _J2000_JD, microseconds=500_000)
    except OverflowError:
        raise ValueError(f"jd must be a Julian date in the years 1 to 9999, got {jd!r}") from None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text, name="start"):
    """Julian date (UTC) of an ISO 8601 date and time such as ``2026-03-20T14:12:03``.

    Parameters
    ----------
    text : str
        ISO 8601 date, or date and time; without a UTC offset it is taken as UTC, with
        one (``Z``, ``+02:00``) it is converted to UTC.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    float
        The Julian date (days), as ``sgp4.api.jday`` counts it.

    Raises
    ------
    TypeError
        If ``text`` is not a str.
    ValueError
        If ``text`` is not an ISO 8601 date and time (the message names ``name``).
    """
    if not isinstance(text, str):
        raise TypeError(
            f"{name} must be an ISO 8601 date and time (str), got {type(text).__name__}"
        )
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"{name} must be a UTC date and time in ISO 8601, such as 2026-03-20T14:12:03, "
            f"got {text!r}"
        ) from None
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    seconds = when.second + when.microsecond * 1e-6
    whole, fraction = jday(when.year, when.month, when.day, when.hour, when.minute, seconds)
    return whole + fraction


def exclusion(element_set, reason):
    """The record of an element set left out of a study, for its ``results.json``.

    Parameters
    ----------
    element_set : ssa_privacy.orbits.tle.ElementSet
        The element set.
    reason : str
        Why it is left out (one line).

    Returns
    -------
    dict
        ``norad_id`` (int), ``name``, ``epoch_utc`` (ISO 8601) and ``reason``.

    Raises
    ------
    TypeError
        If ``element_set`` is not an ElementSet or ``reason`` not a str.
    """
    _element_set(element_set, "element_set")
    if not isinstance(reason, str):
        raise TypeError(f"reason must be a str, got {type(reason).__name__}")
    return {
        "norad_id": element_set.norad_id,
        "name": element_set.name.strip(),
        "epoch_utc": utc_text(element_set.epoch_jd),
        "reason": reason,
    }


def window_start(catalogue, spread_days=START_SPREAD_DAYS):
    """The default window start: the newest epoch near the catalogue's median epoch.

    Parameters
    ----------
    catalogue : sequence of ssa_privacy.orbits.tle.ElementSet
        The element sets (at least one).
    spread_days : float
        Only epochs within this many days of the median epoch count, so that an element
        set dated decades away (a typing error, a stale object) cannot move the window.

    Returns
    -------
    float
        Julian date (UTC) of the newest such epoch.

    Raises
    ------
    ValueError
        If ``catalogue`` is empty, ``spread_days`` is not a finite positive number, or no
        epoch is within ``spread_days`` of the median (a catalogue of two far-apart
        epochs): the window start must then be given.
    """
    spread_days = positive(spread_days, "spread_days")
    epochs = np.array([e.epoch_jd for e in catalogue])
    if not epochs.size:
        raise ValueError("catalogue must hold at least one element set")
    median = float(np.median(epochs))
    near = epochs[np.abs(epochs - median) <= spread_days]
    if not near.size:
        raise ValueError(
            f"catalogue: no element set has its epoch within {spread_days:g} days of the "
            f"median epoch {utc_text(median)}; give the window start (start)"
        )
    return float(near.max())


def newest_element_sets(catalogue, start_jd=None, staleness_days=STALENESS_DAYS):
    """One element set per catalogue number, the newest; the others, with the reason.

    Parameters
    ----------
    catalogue : sequence of ssa_privacy.orbits.tle.ElementSet
        The element sets.
    start_jd : float, optional
        Julian date (UTC) of the window start. With it, an element set within
        ``staleness_days`` of the start is preferred to any that is not (a copy of an
        element set whose epoch was mistyped as decades away does not hide a usable
        one); the newest is kept among those preferred.
    staleness_days : float
        The staleness limit (days, either side), used with ``start_jd``.

    Returns
    -------
    kept : list of ssa_privacy.orbits.tle.ElementSet
        In catalogue order, each catalogue number once (the first of equal epochs).
    repeated : list of dict
        The others (:func:`exclusion`), in catalogue order.

    Raises
    ------
    ValueError
        If ``start_jd`` is not finite or ``staleness_days`` is not a finite positive
        number.
    """
    sets = list(catalogue)
    if start_jd is None:
        usable = [True] * len(sets)
    else:
        start_jd = scalar(start_jd, "start_jd")
        staleness_days = positive(staleness_days, "staleness_days")
        usable = [abs(e.epoch_jd - start_jd) <= staleness_days for e in sets]
    newest = {}
    for index, element_set in enumerate(sets):
        best = newest.get(element_set.norad_id)
        rank = (usable[index], element_set.epoch_jd)
        if best is None or rank > (usable[best], sets[best].epoch_jd):
            newest[element_set.norad_id] = index
    chosen = set(newest.values())
    repeated = [
        exclusion(
            e,
            f"repeated catalogue number: the element set of epoch "
            f"{utc_text(sets[newest[e.norad_id]].epoch_jd)} is kept",
        )
        for i, e in enumerate(sets)
        if i not in chosen
    ]
    return [e for i, e in enumerate(sets) if i in chosen], repeated


def stale_element_sets(element_sets, start_jd, staleness_days=STALENESS_DAYS):
    """The element sets whose epoch is too far from the window start, with the reason.

    Parameters
    ----------
    element_sets : sequence of ssa_privacy.orbits.tle.ElementSet
        The element sets.
    start_jd : float
        Julian date (UTC) of the window start.
    staleness_days : float
        The limit (days), either side: SGP4's prediction error grows with the time
        from the epoch, so an element set weeks away from the window says little about
        the orbit there.

    Returns
    -------
    list of dict
        One :func:`exclusion` per element set whose epoch is more than ``staleness_days``
        before or after ``start_jd``, in the order given.

    Raises
    ------
    ValueError
        If ``start_jd`` is not finite or ``staleness_days`` is not a finite positive
        number (the message names the argument).
    """
    start_jd = scalar(start_jd, "start_jd")
    staleness_days = positive(staleness_days, "staleness_days")
    out = []
    for e in element_sets:
        days = e.epoch_jd - start_jd
        if abs(days) > staleness_days:
            side = "before" if days < 0 else "after"
            out.append(
                exclusion(
                    e,
                    f"epoch {abs(days):.1f} days {side} the window start "
                    f"{utc_text(start_jd)}, beyond the staleness limit of "
                    f"{staleness_days:g} days",
                )
            )
    return out


#: How many files' element sets :func:`read_element_sets` keeps, by content.
_CACHE_SIZE = 4
#: SHA-256 of a file's bytes -> its element sets, the last :data:`_CACHE_SIZE` read.
_CACHE = {}


def read_element_sets(path):
    """Element sets from a TLE file (two-line or three-line), an OMM file, or both, by content.

    Parameters
    ----------
    path : str or path-like
        The file, UTF-8 (a byte-order mark starting a line is dropped). Its content
        decides the reader, run by run (:doc:`/theory/orbits-and-sensors`): OMMs in KVN (from a
        ``CCSDS_OMM_VERS`` line) or XML (from a line starting with ``<``) are read by
        :func:`ssa_privacy.orbits.omm.read_omm`'s rules, TLE element sets (each an
        optional name line, then lines 1 and 2) by
        :func:`ssa_privacy.orbits.tle.read_catalogue`'s. A file may hold both, one after
        another (e.g. an OMM, then a three-line catalogue): all of it is read. The suffix
        is not looked at.

    Returns
    -------
    list of ssa_privacy.orbits.tle.ElementSet
        In file order. A file whose bytes were read before in this process gives the same
        element sets without being parsed again (validating the 14,710 sets of a whole
        catalogue takes seconds): the bytes are hashed (SHA-256), so that changed content
        is never served stale whatever the file's name, size or times.

    Raises
    ------
    TypeError
        If ``path`` is not a str or path-like.
    FileNotFoundError
        If ``path`` is not a file (the message names it).
    ValueError
        Naming the file: not UTF-8 text, empty, a CCSDS message other than an OMM, or an
        error of a reader naming the line and the field or keyword
        (:class:`~ssa_privacy.orbits.tle_format.TLEError` for a TLE, which is a
        ValueError).

    Notes
    -----
    TLE: Vallado et al., "Revisiting Spacetrack Report #3" (2006); OMM: CCSDS 502.0-B-3,
    section 4.
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str or path-like, got {type(path).__name__}")
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"{file}: element set file not found (not a file)")
    raw = file.read_bytes()
    key = hashlib.sha256(raw).digest()
    if key not in _CACHE:
        sets = _element_sets(raw, file)
        while len(_CACHE) >= _CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
        _CACHE[key] = sets
    return list(_CACHE[key])


def _element_sets(raw, file):
    """The element sets of a file's bytes, as a tuple (``file`` names it in errors)."""

    runs = parts(numbered_lines(decode(raw, str(file))), str(file))
    if not runs:
        raise ValueError(f"{file}: the file is empty (no element set)")
    sets, omms = [], 0  # the OMMs are numbered through the file
    for run in runs:
        if run.kind == "tle":
            sets += _sets_of_lines(run.lines, str(file))
        else:
            from ssa_privacy.orbits.omm import _sets_of_run  # ccsds-ndm: for OMMs only

            read = _sets_of_run(run, file, omms)
            sets, omms = sets + read, omms + len(read)
    return tuple(sets)
