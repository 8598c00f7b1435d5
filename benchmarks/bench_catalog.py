"""Cost of the ssa-catalog study per orbital regime, projected to the whole catalogue.

1. Baseline: one J2 propagation of one LEO object of the sample over 24 h at the
   study's grid and truth tolerance (:meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate`).
2. Per regime (LEO, MEO, GEO): ``ssa_catalog.run`` with ``regime=R``, ``objects=N_R``
   (``--leo-objects``, ``--meo-objects``, ``--geo-objects``; default 4, 3, 3) and the
   defaults otherwise (24 h at 30 s, 8 radars, pass budgets 10, 14, 20 nats plus "none",
   batches of 5), serially (``Runner(workers=1)``), each regime in a child process of its
   own: the tasks' worker-seconds per object as a multiple of the baseline (targets: LEO
   <= 3.5, MEO and GEO <= 20), the child's peak resident memory (``ru_maxrss``, the
   whole run: catalogue, tasks, tables, figures; target <= 2 GB per worker), and where
   the tasks' time goes: timers around the task's stages (:data:`STAGES`), as shares of
   the tasks' wall time without the brute-force check of the run's first object; and the
   J2 integrations of all stages together in baselines per object, the propagation
   floor under the other costs.
3. Projection: the objects of each regime that ``--objects all`` tracks (one element set
   per catalogue number, stale ones left out: 14,700 of the 14,710 of the 2026-03-19
   catalogue) times the regime's worker-seconds per object, on 2 workers at efficiency 1:
   the whole catalogue's tasks (target < 1 h).
4. Scale, with ``--scale-objects N`` (default 0: skipped; 1,000 LEO objects took about
   80 min): the study for N LEO objects on a process pool of ``--workers`` (default 2): the whole
   run's wall time, the tasks' wall time, objects per second per worker, and the cost per
   object as a multiple of the baseline.
5. Parallel efficiency: the study's tasks for ``--efficiency-objects`` (default 20) LEO
   objects on 1 and on 2 single-threaded workers, ``T1 / (2 T2)`` (target >= 0.8), on a
   Dask ``LocalCluster`` and on a scheduler and workers started as separate processes
   (``python -m dask scheduler`` / ``worker``, as ``tests/test_dask_cluster.py``,
   :mod:`_dask_processes`).

All use the study's own code path (``results.json``'s ``throughput.wall_time_s`` is the
tasks' wall time); ``--hours`` and ``--batch`` are passed to every run (the targets are
for the default 24 h). Run on an idle machine: ``python benchmarks/bench_catalog.py
[--leo-objects N] [--meo-objects N] [--geo-objects N] [--hours H] [--batch B]
[--scale-objects N] [--workers W] [--efficiency-objects M]``.
"""

import argparse
import collections
import json
import math
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
from _dask_processes import DaskProcesses
from _timing import best_time

from ssa_privacy.engine.runner import Runner
from ssa_privacy.estimation import ekf
from ssa_privacy.orbits.catalog import read_element_sets, select_objects, sgp4_states
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import load_catalogue
from ssa_privacy.studies import _ssa_catalog_task, ssa_catalog
from ssa_privacy.studies._ssa_catalog_options import CatalogOptions

#: Worker-seconds per object as a multiple of the baseline, at most, per regime.
TARGETS = {"leo": 3.5, "meo": 20.0, "geo": 20.0}
#: Peak resident memory per worker, at most (GB).
MEMORY_TARGET_GB = 2.0
#: Workers of the whole-catalogue projection, and its target (h).
PROJECTION_WORKERS, PROJECTION_TARGET_H = 2, 1.0
#: The timed stages of an object's task: (module or class, function, label). The batch
#: orbit determination runs inside the filters; the J2 integrations (every
#: ``solve_ivp`` of the propagator: truth, nominal, transition matrices, predictions, the
#: batch solves' trials, the detectability's) run inside every stage; the check runs for
#: the run's first object only.
STAGES = (
    (_ssa_catalog_task, "_tracking", "filters"),
    (ekf, "contact_orbit_determination", "of which batch OD"),
    (_ssa_catalog_task, "_level_mechanisms", "pass designs"),
    (_ssa_catalog_task, "object_detectability", "detectability"),
    (_ssa_catalog_task, "_checks", "check"),
    (J2Propagator, "_integrate", "J2 integration, every stage"),
)
#: The label of the J2 integrations.
INTEGRATION = STAGES[-1][2]
#: The stages that run inside others (left out of "the rest").
NESTED = ("of which batch OD", INTEGRATION)


def baseline_seconds(repeats=5):
    """One 24 h J2 propagation of one sampled LEO object at the study's grid and tolerance."""
    catalogue = load_catalogue()
    element_set = select_objects(catalogue, "leo", 1, 0)[0]
    start = max(e.epoch_jd for e in catalogue)
    times = np.arange(0.0, 86400.0 + 1e-9, 30.0)
    state = sgp4_states([element_set], start, [0.0])[0, 0]
    propagator = J2Propagator()
    return best_time(lambda: propagator.propagate(times, state, 1e-10, 1e-10), repeats)


def study(folder, runner, **options):
    """Run the study (seed 0) with ``options``.

    Returns
    -------
    total : float
        The whole run's wall time (s).
    throughput : dict
        ``results.json``'s ``throughput``: ``objects`` tracked, the tasks' ``wall_time_s``
        and ``workers``.
    """
    start = time.perf_counter()
    ssa_catalog.run(folder, seed=0, progress=False, runner=runner, **options)
    total = time.perf_counter() - start
    return total, json.loads((Path(folder) / "results.json").read_text())["throughput"]


def per_object(throughput):
    """Worker-seconds per object of the tasks: wall time x workers / objects."""
    return throughput["wall_time_s"] * throughput["workers"] / throughput["objects"]


def timed_stages():
    """Put timers around the :data:`STAGES` of this process; return their running sums.

    Returns
    -------
    collections.Counter
        Seconds spent in each stage, by label, from now on.
    """
    spent, running = collections.Counter(), []
    for module, name, label in STAGES:
        setattr(module, name, _timer(getattr(module, name), label, spent, running))
    return spent


def _timer(function, label, spent, running):
    """``function``, adding its wall time to ``spent[label]`` unless it runs in the check.

    ``running`` is the stack of the timed stages in progress, shared by all timers."""

    def timed(*args, **kwargs):
        running.append(label)
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            running.pop()
            if "check" not in running:
                spent[label] += time.perf_counter() - start

    return timed


def regime_run(regime, objects, options):
    """One regime's study, serially in this process (run in a child of its own).

    Returns
    -------
    throughput : dict
        As :func:`study`.
    peak_kib : int
        This process's peak resident memory (KiB on Linux).
    stages : dict
        Seconds per stage (:func:`timed_stages`).
    """
    spent = timed_stages()
    with tempfile.TemporaryDirectory() as folder:
        runner = Runner(workers=1, progress=False)
        throughput = study(folder, runner, regime=regime, objects=objects, **options)[1]
    return throughput, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, dict(spent)


def shares(throughput, stages):
    """The stages' shares of the tasks' wall time without the check, as text."""
    total = throughput["wall_time_s"] - stages.get("check", 0.0)
    parts = {label: stages.get(label, 0.0) for _, _, label in STAGES if label != "check"}
    parts["the rest"] = total - sum(v for k, v in parts.items() if k not in NESTED)
    return ", ".join(f"{label} {100 * seconds / total:.0f}%" for label, seconds in parts.items())


def regime_costs(counts, baseline, options):
    """Run each regime in a fresh spawned process; print and return its cost per object.

    Parameters
    ----------
    counts : dict
        Objects to sample per regime.
    baseline : float
        The baseline (s).
    options : dict
        Further study options.

    Returns
    -------
    dict
        Worker-seconds per object, per regime.
    """
    costs = {}
    for regime, objects in counts.items():
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as child:
            throughput, peak, stages = child.submit(regime_run, regime, objects, options).result()
        costs[regime] = per_object(throughput)
        print(
            f"{regime.upper()}: {throughput['objects']} objects, tasks "
            f"{throughput['wall_time_s']:.1f} s on 1 worker: {costs[regime]:.3f} worker-s "
            f"per object = {costs[regime] / baseline:.1f} baselines (target <= "
            f"{TARGETS[regime]:g}); peak resident memory {peak / 2**20:.2f} GiB "
            f"(target <= {MEMORY_TARGET_GB:g} GB per worker)\n  stages: "
            f"{shares(throughput, stages)}\n  J2 integration alone: "
            f"{stages.get(INTEGRATION, 0.0) / throughput['objects'] / baseline:.1f} "
            "baselines per object"
        )
    return costs


def catalogue_counts():
    """The objects of each regime that the study tracks with ``objects="all"``.

    Returns
    -------
    counts : dict
        Objects per regime of the study's catalogue: one element set per catalogue
        number, stale ones left out (:func:`ssa_privacy.studies.ssa_catalog.choose_objects`).
    size : int
        Element sets in the catalogue file.
    """
    spec = CatalogOptions().study()
    catalogue = read_element_sets(spec.catalogue_file())
    start, staleness = spec.window.start, spec.window.staleness_days
    counts = {
        regime: len(ssa_catalog.choose_objects(catalogue, regime, None, 0, start, staleness)[1])
        for regime in TARGETS
    }
    return counts, len(catalogue)


def projection(costs):
    """Print the whole catalogue's tasks' wall time on :data:`PROJECTION_WORKERS` workers."""
    counts, size = catalogue_counts()
    worker_seconds = sum(counts[r] * costs[r] for r in costs)
    hours = worker_seconds / PROJECTION_WORKERS / 3600.0
    parts = ", ".join(f"{r.upper()} {counts[r]:,} x {costs[r]:.3f} s" for r in costs)
    print(
        f"whole catalogue: {sum(counts.values()):,} objects tracked of {size:,} ({parts}) = "
        f"{worker_seconds / 3600.0:.2f} worker-h; on {PROJECTION_WORKERS} workers "
        f"{hours:.2f} h (target < {PROJECTION_TARGET_H:g} h; tasks only, efficiency 1)"
    )


def scale(objects, workers, baseline, options, folder):
    """Print the scale run: ``objects`` LEO objects on a process pool of ``workers``."""
    runner = Runner(workers=workers, progress=False)
    total, throughput = study(folder, runner, objects=objects, **options)
    tasks, cost = throughput["wall_time_s"], per_object(throughput)
    print(
        f"scale: {objects} LEO objects on {workers} workers: {total:.1f} s in all, tasks "
        f"{tasks:.1f} s, {throughput['objects'] / tasks / workers:.3f} objects/s/worker, "
        f"{cost:.3f} worker-s per object = {cost / baseline:.1f} baselines"
    )


def local_cluster_time(workers, objects, options, folder):
    """The tasks' wall time (s) on a Dask ``LocalCluster`` of ``workers``."""
    with Runner(dask_local=workers, progress=False) as runner:
        return study(folder, runner, objects=objects, **options)[1]["wall_time_s"]


def process_cluster_time(workers, objects, options, folder):
    """The tasks' wall time (s) on a fresh scheduler and ``workers`` worker processes."""
    with DaskProcesses() as cluster:
        cluster.add_workers(workers)
        with Runner(scheduler=cluster.address, progress=False) as runner:
            return study(folder, runner, objects=objects, **options)[1]["wall_time_s"]


def efficiency(name, timer, objects, options, scratch):
    """Print ``T1 / (2 T2)`` of ``timer(workers, objects, options, folder)``."""
    times = {w: timer(w, objects, options, f"{scratch}/{name}{w}") for w in (1, 2)}
    tasks = math.ceil(objects / options["batch"])
    print(
        f"{name}, {objects} objects ({tasks} tasks): 1 worker {times[1]:.1f} s, 2 workers "
        f"{times[2]:.1f} s, efficiency {times[1] / (2 * times[2]):.2f} (target >= 0.8)"
    )


def parse_arguments():
    """The command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for regime, default in (("leo", 4), ("meo", 3), ("geo", 3)):
        parser.add_argument(f"--{regime}-objects", type=int, default=default)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--scale-objects", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--efficiency-objects", type=int, default=20)
    return parser.parse_args()


def main():
    """Print the baseline, the regimes' costs, the projection, the scale run and the efficiencies."""
    args = parse_arguments()
    options = {"hours": args.hours, "batch": args.batch}
    baseline = baseline_seconds()
    print(f"baseline: one object's 24 h J2 propagation {baseline:.3f} s; window {args.hours:g} h")
    counts = {r: getattr(args, f"{r}_objects") for r in TARGETS}
    projection(regime_costs(counts, baseline, options))
    with tempfile.TemporaryDirectory() as scratch:
        if args.scale_objects > 0:
            scale(args.scale_objects, args.workers, baseline, options, f"{scratch}/scale")
        clusters = {"LocalCluster": local_cluster_time, "processes": process_cluster_time}
        for name, timer in clusters.items():
            efficiency(name, timer, args.efficiency_objects, options, scratch)


if __name__ == "__main__":
    main()
