"""One task of the ssa-catalog study: a batch of objects tracked at every privacy level.

For each object of the batch (module :mod:`ssa_privacy.studies.ssa_catalog` for the
scenario):

1. nominal state at the window start from SGP4, nominal track and ``Phi(t, t0)`` by the
   J2 model (each object integrated alone, so that its numbers do not depend on the
   other objects of its batch);
2. the private manoeuvre deviation ``x0 ~ N(0, Sigma_XX)`` (the station-kept CW prior
   about the nominal state, :func:`~ssa_privacy.orbits.relative_motion.manoeuvre_prior`) and the
   truth, the J2 propagation of ``nominal + x0``;
3. the passes of every station over the nominal track (the stations schedule them from
   the public element set; a stretch in view longer than the scenario's longest pass is
   cut into passes of that length) and their sensor noise;
4. per level and pass-level designer, every pass's mechanism
   (:meth:`PassMechanism.design <ssa_privacy.privacy.pml.passes.PassMechanism.design>`),
   its achieved epsilon and the day's, from the accountant that composes the passes'
   streams (privacy noise alone; for "none", the sensor noise, which is all there is);
   every pass is released through its mechanism's ``release``, with the same standard
   normals at every level (common random numbers);
5. the fusion centre's extended Kalman filters of all levels at once
   (:func:`~ssa_privacy.estimation.tracking.simulate_and_track`: the stations measure
   the truth, the passes are released and tracked) and their RMSE and NEES against
   the truth at the object's evaluation times
   (:func:`~ssa_privacy.studies.ssa_catalog.rows.evaluation_indices`: from the end of its
   first contact on);
6. the epsilon that today's per-measurement designs reach over a pass and the day.

Random streams: ``default_rng([seed, norad_id, 0])`` draws x0, ``[seed, norad_id, 1]``
the sensor noise and ``[seed, norad_id, 2]`` the privacy normals (each privatized level
releases its passes, in order, from a fresh generator of these keys); ``[seed, norad_id,
3]`` drives the detectability Monte Carlo and ``[seed, norad_id, 4]`` the day designer's
simulated days (:mod:`~ssa_privacy.studies.ssa_catalog.day_judge`), so an object's
random numbers do not depend on the batch it is in, nor on the runner; nor do its tracks,
integrated alone: an object's rows are the same whatever ``batch``.

With ``--ccsds`` the task also returns what the messages hold of the pass-level filters
(none and each pass budget and designer): measurements, releases, estimates and
covariances. The day budgets' designs are not written as messages; their tracking is in
``day_budgets.csv``.
"""

from dataclasses import replace

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy.attacks.detectability import brute_force_check, first_pass, object_detectability
from ssa_privacy.engine.runner import Task
from ssa_privacy.estimation import consistency
from ssa_privacy.estimation.tracking import CORRELATION_FLOOR, rmse, simulate_and_track
from ssa_privacy.orbits.catalog import regime, sgp4_states
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import ElementSet
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.privacy.pml.stream import ReleaseStream
from ssa_privacy.sensors.streams import passes_of
from ssa_privacy.studies.ssa_catalog.day import day_aliases, day_levels, day_rows
from ssa_privacy.studies.ssa_catalog.day_judge import filter_judge
from ssa_privacy.studies.ssa_catalog.rows import (
    consistency_rows,
    contact_columns,
    evaluation_indices,
    level_rows,
    pass_levels,
    per_measurement_rows,
)

__all__ = [
    "TRUTH_TOLERANCE",
    "batches",
    "catalog_task",
    "certificate_counts",
]

#: Integration tolerance (rtol = atol) of the nominal tracks and of the truth.
TRUTH_TOLERANCE = 1.0e-10


def _object_setup(scenario, element_set, nominal, Phi, seed, recorded):
    """Prior, truth start and passes of one object.

    With recorded measurements (``recorded``: station index -> (grid indices, values)),
    the passes are the recorded samples and there is no truth: no deviation."""
    norad = element_set.norad_id
    Sigma_XX = manoeuvre_prior(nominal[0], 2.0 * np.pi / element_set.period)
    x0 = np.linalg.cholesky(Sigma_XX) @ random_generator((seed, norad, 0)).standard_normal(6)
    visible = None
    if recorded is not None:
        visible = np.zeros((len(scenario.stations), len(scenario.times)), dtype=bool)
        for station, (indices, _) in recorded.items():
            visible[station, indices] = True
    found = passes_of(
        nominal,
        Phi,
        scenario.times,
        scenario.stations,
        scenario.earth,
        scenario.longest_pass,
        visible,
    )
    return norad, Sigma_XX, None if recorded is not None else x0, found


def _pass_levels(scenario, Sigma_XX, found):
    """The pass levels (none, then each epsilon x designer) with their pass mechanisms and
    accounts.

    With no pass, every level has no mechanism and leaks nothing: it predicts alone."""
    levels = []
    for level in pass_levels(scenario):
        if level.epsilon is None:
            streams = [ReleaseStream.of(p.C, p.R) for p in found]
            designs = [None] * len(found)
        else:
            designs = [
                PassMechanism.design(
                    p,
                    Sigma_XX,
                    level.epsilon + scenario.epsilon_offsets[p.station],
                    scenario.delta,
                    designer=level.designer,
                    convention=scenario.convention,
                )
                for p in found
            ]
            streams = [d.stream for d in designs]
        account = _account(scenario, Sigma_XX, streams)
        levels.append(replace(level, mechanisms=designs, account=account))
    return levels


def _account(scenario, Sigma_XX, streams):
    """Largest achieved epsilon of a pass, and that of the day (the passes composed), nats."""
    if not streams:
        return 0.0, 0.0
    level = (Sigma_XX, scenario.delta, scenario.convention)
    day = streams[0].compose(*streams[1:])
    return max(s.epsilon(*level) for s in streams), day.epsilon(*level)


def certificate_counts(levels):
    """Per privatized level and designer: the pass releases and those whose certificate passed.

    Parameters
    ----------
    levels : list of Level
        The pass levels, with their ``releases``
        (:func:`~ssa_privacy.sensors.simulation.release_passes`).

    Returns
    -------
    dict
        ``{label: {designer: {"designs": int, "passed": int}}}``: a pass has one design
        per level and designer, and one release of it.
    """
    counts = {}
    for level in levels:
        if level.designer is None:
            continue
        counts.setdefault(level.label, {})[level.designer] = {
            "designs": len(level.releases),
            "passed": sum(bool(r.certificate.passed) for r in level.releases),
        }
    return counts


def _ccsds(norad, levels, found, measured, estimates, diagnostics):
    """What the CCSDS messages of one object hold: its measurements, and the releases,
    estimates and covariances of the pass ``levels`` (the first of each list)."""

    def tracks(values):
        return [
            (p.station, p.indices, v.reshape(len(p.indices), -1)) for p, v in zip(found, values)
        ]

    count = len(levels)
    return {
        "norad_id": norad,
        "measured": tracks(measured),
        "releases": [
            (level.label, level.designer, tracks([r.values for r in level.releases]))
            for level in levels
            if level.designer is not None
        ],
        "filters": [tuple(level.ident.values()) for level in levels],
        "estimates": estimates[:count],
        "covariances": diagnostics["covariances"][:count],
    }


def _tracking(scenario, truth, track, evaluated):
    """Per filter RMSE, rejections, NEES and NIS columns of a TrackResult, the errors
    taken at the grid indices ``evaluated`` (a subset of the run's evaluation times), and
    the rows' diagnostics; ``diagnostics["nees"]`` (with a truth) has NaN at the others."""
    count = len(track.estimates)
    diagnostics = {
        "covariances": track.covariances,
        "nis": track.total_nis,
        "nis_dof": np.full(count, track.total_dof),
    }
    errors, nees = None, [None] * count
    if truth is not None:
        series = np.full((count, len(scenario.evaluate)), np.nan)
        if len(evaluated):
            errors = track.errors(truth, evaluated)
            kept = np.searchsorted(scenario.ephemeris, evaluated)
            measured = consistency.nees(
                errors, track.covariances[:, kept], jitter=CORRELATION_FLOOR
            )
            series[:, np.searchsorted(scenario.evaluate, evaluated)] = measured
            nees = measured.mean(axis=1)
        diagnostics["nees"] = series
    nis = [n / d if d else None for n, d in zip(diagnostics["nis"], diagnostics["nis_dof"])]
    position, velocity = ([None] * count,) * 2 if errors is None else rmse(errors)
    return (position, velocity, track.rejected, nees, nis), track.estimates, diagnostics


def _expanded(tracking, estimates, diagnostics, order):
    """The tracked filters' results given to every filter (``order``: filter -> tracked
    filter; a "day" design that kept the pass design is that pass filter)."""
    tracking = tuple([column[k] for k in order] for column in tracking)
    return tracking, estimates[order], {key: value[order] for key, value in diagnostics.items()}


def _track_object(scenario, element_set, nominal, truth, setup, seed, recorded):
    """Design, release and track one object; its rows and what its messages hold."""
    norad, Sigma_XX, _, found = setup
    levels = _pass_levels(scenario, Sigma_XX, found)
    judge = filter_judge(scenario, nominal, Sigma_XX, found, (seed, norad, 4), TRUTH_TOLERANCE)
    day, infeasible = day_levels(scenario, Sigma_XX, found, judge)
    tracked, order = _distinct_levels(levels, day)
    simulation = simulate_and_track(
        scenario.tracking,
        truth,
        found,
        [(levels + day)[k].mechanisms for k in tracked],
        ((seed, norad, 1), (seed, norad, 2)),
        nominal=nominal,
        prior=Sigma_XX,
        evaluate=scenario.ephemeris,
        recorded=recorded,
    )
    # the pass levels come first among the tracked
    levels = [replace(v, releases=r) for v, r in zip(levels, simulation.releases[0])]
    results = _tracking(scenario, truth, simulation.track, evaluation_indices(scenario, found))
    tracking, estimates, diagnostics = _expanded(*results, order)
    seen = contact_columns(scenario, found)
    ident = {"norad_id": norad, "regime": regime(element_set), "passes": len(found)}
    ident["status"] = seen["status"]
    everyone = levels + day
    out = {
        "rows": level_rows(element_set, found, levels, [c[: len(levels)] for c in tracking], seen),
        "day_rows": day_rows(ident, day, infeasible, [c[len(levels) :] for c in tracking]),
        "per_measurement": per_measurement_rows(scenario, norad, Sigma_XX, found),
        "certificates": certificate_counts(levels),
        "consistency": consistency_rows(norad, everyone, diagnostics, seen["status"]),
        "nees": _nees_series(norad, everyone, diagnostics),
        "detectability": _detectability(scenario, nominal, Sigma_XX, found, everyone, norad, seed),
        "detectability_checks": _checks(scenario, nominal, found, everyone, (seed, norad)),
        "mechanisms": _mechanism_classes(levels),
    }
    if scenario.ccsds:
        measured = simulation.measured[0]
        out["ccsds"] = _ccsds(norad, levels, found, measured, estimates, diagnostics)
    return out


def _detectability(scenario, nominal, Sigma_XX, found, levels, norad, seed):
    """The detectability rows of one object at every level
    (:func:`~ssa_privacy.attacks.detectability.object_detectability`; its Monte Carlo
    from ``default_rng([seed, norad, 3, level index])``)."""
    return object_detectability(
        scenario.tracking,
        nominal,
        Sigma_XX,
        found,
        [level.mechanisms for level in levels],
        [level.account[1] for level in levels],
        (seed, norad, 3),
        delta=scenario.delta,
        convention=scenario.convention,
        columns=[{"norad_id": norad, **level.ident} for level in levels],
    )


def _mechanism_classes(levels):
    """The class name of the mechanism that released each designer's passes."""
    return {
        f"pass ({level.designer})": type(d).__name__
        for level in levels
        for d in level.mechanisms
        if d is not None
    }


def _distinct_levels(levels, day):
    """The levels to track (the pass ``levels``, then the ``day`` levels whose mechanisms
    are not another's, :func:`day_aliases`) and each level's index among them."""
    count = len(levels)
    order = np.arange(count + len(day))
    for f, common in day_aliases(day).items():
        order[count + f] = count + common
    return np.unique(order, return_inverse=True)


def _checks(scenario, nominal, found, levels, keys):
    """For the run's check object: per level, the exact power of detecting a radial 1 m/s
    Delta-v from its first pass (:func:`first_pass`) against a brute-force Monte Carlo of
    releases drawn through the pass's mechanism (:func:`brute_force_check`, 2000 draws per
    hypothesis)."""
    if not found or keys[1] != scenario.check_object:
        return []
    first = first_pass(found)
    return [
        {
            "norad_id": keys[1],
            **level.ident,
            **brute_force_check(
                scenario.tracking,
                nominal,
                found[first],
                level.mechanisms[first],
                "radial",
                1.0,
                2000,
                (*keys, 4, f),
            ),
        }
        for f, level in enumerate(levels)
    ]


def _nees_series(norad, levels, diagnostics):
    """Per filter label and designer, the NEES at the run's evaluation times, None where
    it is not measured (none without a truth)."""
    if "nees" not in diagnostics:
        return []
    return [
        {
            "norad_id": norad,
            **level.ident,
            "nees": [None if np.isnan(v) else float(v) for v in row],
        }
        for level, row in zip(levels, diagnostics["nees"])
    ]


def _integrated_alone(scenario, starts):
    """Nominal tracks (N, m, 6) and their transitions (N, m, 6, 6), each object integrated
    on its own (its step sequence, hence its numbers, do not depend on the others)."""
    parts = [
        scenario.propagator.propagate_with_transition(
            scenario.times, start[None], rtol=TRUTH_TOLERANCE, atol=TRUTH_TOLERANCE
        )
        for start in starts
    ]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def catalog_task(scenario, elements, seed, recorded=None):
    """Track a batch of objects at every level (module docstring).

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        The run's fixed quantities (grid, network, levels, delta).
    elements : list of tuple of str
        The batch's element sets as (name, line 1, line 2).
    seed : int
        The run's seed.
    recorded : dict, optional
        Recorded measurements instead of simulated ones: ``{norad_id: {station index:
        (grid indices (K,), values (K, m))}}``; an object of the batch that is not in it
        has no measurement. Without it, the stations measure the truth.

    Returns
    -------
    dict
        ``rows`` (one per object and level,
        :func:`~ssa_privacy.studies.ssa_catalog.rows.level_rows`; an object without a
        pass has ``status = "no contact"``, ``passes = measurements = 0``, leakage 0 and
        no RMSE or NEES; with recorded measurements the RMSE columns are None),
        ``day_rows`` (one per object, day budget and day designer), ``per_measurement`` (one per
        object and per-measurement level), ``consistency`` (one per object and filter:
        the NIS of its updates), ``certificates`` (per object,
        :func:`certificate_counts`), ``mechanisms`` (the class of the mechanism that
        released each designer's passes), ``sgp4_difference_km`` (J2 nominal against
        SGP4 at the end of the window, per object) and, when the scenario writes CCSDS
        messages, ``ccsds`` (per object, the measurements, releases, estimates and
        covariances).
    """
    sets = [ElementSet(*lines) for lines in elements]
    sgp4 = sgp4_states(sets, scenario.start_jd, scenario.times[[0, -1]])
    nominal, Phi = _integrated_alone(scenario, sgp4[:, 0])
    mine = [None if recorded is None else recorded.get(e.norad_id, {}) for e in sets]
    setups = [
        _object_setup(scenario, e, nominal[i], Phi[i], seed, mine[i]) for i, e in enumerate(sets)
    ]
    truths = _truths(scenario, nominal, setups) if recorded is None else [None] * len(sets)
    parts = [
        _track_object(scenario, sets[i], nominal[i], truths[i], setups[i], seed, mine[i])
        for i in range(len(sets))
    ]
    out = _gathered(parts)
    difference = np.linalg.norm(nominal[:, -1, :3] - sgp4[:, 1, :3], axis=-1)
    out["sgp4_difference_km"] = difference.tolist()
    return out


def _truths(scenario, nominal, setups):
    """Each object's true track: its nominal start plus its manoeuvre deviation x0."""
    return [
        scenario.propagator.propagate(
            scenario.times, nominal[i, 0] + setup[2], TRUTH_TOLERANCE, TRUTH_TOLERANCE
        )
        for i, setup in enumerate(setups)
    ]


#: What a task returns as one list of rows over its objects.
_ROW_KEYS = (
    "rows",
    "day_rows",
    "per_measurement",
    "consistency",
    "nees",
    "detectability",
    "detectability_checks",
)


def _gathered(parts):
    """The objects' parts of a task as the task's result (rows concatenated)."""
    out = {key: [row for part in parts for row in part[key]] for key in _ROW_KEYS}
    out["certificates"] = [part["certificates"] for part in parts]
    out["mechanisms"] = {k: v for part in parts for k, v in part["mechanisms"].items()}
    out["ccsds"] = [part["ccsds"] for part in parts if "ccsds" in part]
    return out


def batches(element_sets, size, recorded=None):
    """The objects as runner tasks of ``size`` each, keyed by the batch's index.

    Parameters
    ----------
    element_sets : list of ElementSet
        The objects tracked.
    size : int
        Objects per task.
    recorded : dict, optional
        Recorded measurements by catalogue number; each task carries those of its objects.

    Returns
    -------
    list of Task
        Payloads ``elements`` (name, line 1, line 2 per object) and ``recorded``.
    """
    tasks = []
    for b in range(0, len(element_sets), size):
        batch = element_sets[b : b + size]
        payload = {"elements": [(e.name, e.line1, e.line2) for e in batch]}
        if recorded is not None:
            numbers = [e.norad_id for e in batch]
            payload["recorded"] = {n: recorded[n] for n in numbers if n in recorded}
        tasks.append(Task(("batch", b // size), payload))
    return tasks
