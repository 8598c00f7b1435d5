"""Cost of the ssa-catalog study per orbital regime, and where an object's time goes.

One run (about 5 minutes on 2 busy cores with the defaults) measures:

1. Baseline: one J2 propagation of one LEO object of the sample over 24 h on the study's
   30 s grid at its truth tolerance (:meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate`,
   CPU time, best of 5; with ``SSA_PRIVACY_PROPAGATOR=scipy`` set for it, so that the
   baseline stays scipy's integration should the propagator read that variable).
2. Per regime (LEO, MEO, GEO): ``ssa_catalog.run`` with ``regime=R``, ``objects=N_R``
   (``--leo-objects``, ``--meo-objects``, ``--geo-objects``; default 3, 1, 2) and the
   defaults otherwise (24 h at 30 s, 8 radars, pass budgets 10, 14, 20 nats plus "none",
   batches of 5), serially (``Runner(workers=1)``, one BLAS thread), each regime in a
   child process of its own. A sampling profiler (:class:`Sampler`: a CPU-time timer
   signal every :data:`INTERVAL` s, each sample weighted by the CPU time since the
   previous one, of negligible overhead unlike ``cProfile``'s tracing) attributes the
   tasks' CPU time to the stages of :data:`STAGES` by the functions on the stack. It
   prints the tasks' CPU seconds per object, without the brute-force check of the run's
   first object, as a multiple of the baseline (targets :data:`TARGETS`), each stage's
   share, and the child's peak resident memory (``ru_maxrss``, the whole run).
3. Projection: the objects of each regime that ``--objects all`` tracks times the
   regime's CPU seconds per object, on 2 workers at efficiency 1.
4. Optionally (``--scale-objects N``, default 0: skipped) the study for N LEO objects on
   a process pool of ``--workers`` (default 2), and (``--efficiency-objects M``, default
   0: skipped) the efficiency ``T1 / (2 T2)`` from 1 to 2 workers on a Dask
   ``LocalCluster`` and on a scheduler and workers started as separate processes
   (:mod:`_dask_processes`).

Compare ratios of one run only: the baseline moves between machines and runs. Run as
``python benchmarks/bench_catalog.py [--leo-objects N] [--meo-objects N] [--geo-objects
N] [--hours H] [--batch B] [--scale-objects N] [--workers W] [--efficiency-objects M]``.
"""

import argparse
import collections
import json
import math
import os
import resource
import signal
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
from _dask_processes import DaskProcesses

from ssa_privacy.engine.runner import Runner
from ssa_privacy.orbits.catalog import read_element_sets, select_objects, sgp4_states
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import load_catalogue
from ssa_privacy.studies import ssa_catalog
from ssa_privacy.studies.ssa_catalog.options import CatalogOptions

#: CPU seconds per object as a multiple of the baseline, at most, per regime.
TARGETS = {"leo": 6.0, "meo": 35.0, "geo": 15.0}
#: Workers of the whole-catalogue projection.
PROJECTION_WORKERS = 2
#: Seconds of CPU time between the profiler's samples.
INTERVAL = 0.005
#: The function that runs a task: samples without it on the stack are not the tasks'.
TASK = "ssa_privacy.studies.ssa_catalog.task.catalog_task"
#: The stages of an object's task, in order of precedence: a sample belongs to the first
#: stage whose every pattern is a prefix of some function on its stack (functions named
#: ``module.qualname``); stages of one label add up. Update the patterns when functions
#: move.
STAGES = (
    ("check (first object only)", ("ssa_privacy.studies.ssa_catalog.task._checks",)),
    ("detectability Monte Carlo", ("ssa_privacy.attacks.detectability",)),
    ("certificates", ("ssa_privacy.privacy.pml.certificate",)),
    ("certificates", ("ssa_privacy.privacy.pml.stream.stream_certificate",)),
    ("day designs and judge", ("ssa_privacy.studies.ssa_catalog.day",)),
    ("pass designs", ("ssa_privacy.privacy.pml",)),
    ("contact geometry", ("ssa_privacy.estimation.orbit_determination.linearised_contact",)),
    (
        "OD trial propagations",
        ("ssa_privacy.estimation.orbit_determination", "ssa_privacy.orbits.propagator"),
    ),
    ("OD least squares and linear algebra", ("ssa_privacy.estimation.orbit_determination",)),
    ("EKF updates", ("ssa_privacy.estimation.ekf._update",)),
    ("model error (integration and cubature)", ("ssa_privacy.estimation.ekf._model_error",)),
    ("filter propagations", ("ssa_privacy.estimation.ekf", "ssa_privacy.orbits.propagator")),
    ("filters, the rest", ("ssa_privacy.estimation.ekf",)),
    ("truth, nominal and their transitions", ("ssa_privacy.orbits.propagator",)),
    ("the rest", ()),
)
#: The stage left out of the cost per object.
CHECK = STAGES[0][0]


class Sampler:
    """A sampling profiler of this process's main thread: CPU seconds per stage.

    Every :data:`INTERVAL` s of CPU time (``ITIMER_PROF``) the stack is read and the CPU
    time since the previous sample is added to its stage (:func:`stage_of`); samples
    whose stack does not hold :data:`TASK` go to ``None``. A long call into C delivers
    one signal when it returns, to its caller's frame, with all its CPU time.
    """

    def __init__(self):
        self.spent = collections.Counter()
        self._last = None

    def __enter__(self):
        self._last = time.process_time()
        signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, INTERVAL, INTERVAL)
        return self

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_PROF, 0.0, 0.0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)

    def _sample(self, signum, frame):
        now = time.process_time()
        names = []
        while frame is not None:
            code = frame.f_code
            names.append(f"{frame.f_globals.get('__name__', '')}.{code.co_qualname}")
            frame = frame.f_back
        self.spent[stage_of(names)] += now - self._last
        self._last = now


def stage_of(names):
    """The stage (:data:`STAGES`) of a stack of ``module.qualname`` names, None outside
    the tasks."""
    if TASK not in names:
        return None
    for label, patterns in STAGES:
        if all(any(name.startswith(p) for name in names) for p in patterns):
            return label
    raise AssertionError("the last stage matches every stack")


def baseline_seconds(repeats=5):
    """CPU time of one 24 h scipy J2 propagation of one sampled LEO object (best of 5)."""
    catalogue = load_catalogue()
    element_set = select_objects(catalogue, "leo", 1, 0)[0]
    start = max(e.epoch_jd for e in catalogue)
    times = np.arange(0.0, 86400.0 + 1e-9, 30.0)
    state = sgp4_states([element_set], start, [0.0])[0, 0]
    before = os.environ.get("SSA_PRIVACY_PROPAGATOR")
    os.environ["SSA_PRIVACY_PROPAGATOR"] = "scipy"
    try:
        propagator, spent = J2Propagator(), []
        for _ in range(repeats):
            begin = time.process_time()
            propagator.propagate(times, state, 1e-10, 1e-10)
            spent.append(time.process_time() - begin)
    finally:
        if before is None:
            del os.environ["SSA_PRIVACY_PROPAGATOR"]
        else:
            os.environ["SSA_PRIVACY_PROPAGATOR"] = before
    return min(spent)


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


def regime_run(regime, objects, options):
    """One regime's study, serially and sampled in this process (run in a child of its own).

    Returns
    -------
    objects : int
        The objects tracked.
    peak_kib : int
        This process's peak resident memory (KiB on Linux).
    stages : dict
        CPU seconds per stage of the tasks (:class:`Sampler`).
    """
    with tempfile.TemporaryDirectory() as folder, Sampler() as sampler:
        runner = Runner(workers=1, progress=False)
        throughput = study(folder, runner, regime=regime, objects=objects, **options)[1]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return throughput["objects"], peak, {k: v for k, v in sampler.spent.items() if k}


def regime_costs(counts, baseline, options):
    """Run each regime in a fresh spawned process; print and return its cost per object.

    Parameters
    ----------
    counts : dict
        Objects to sample per regime.
    baseline : float
        The baseline (CPU s).
    options : dict
        Further study options.

    Returns
    -------
    dict
        CPU seconds per object of the tasks, without the check, per regime.
    """
    costs = {}
    for regime, objects in counts.items():
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as child:
            tracked, peak, stages = child.submit(regime_run, regime, objects, options).result()
        total = sum(v for k, v in stages.items() if k != CHECK)
        costs[regime] = total / tracked
        print(
            f"{regime.upper()}: {tracked} objects, tasks {total:.1f} CPU s without the check "
            f"({stages.get(CHECK, 0.0):.1f} s): {costs[regime]:.2f} s per object = "
            f"{costs[regime] / baseline:.1f} baselines (target <= {TARGETS[regime]:g}); "
            f"peak resident memory {peak / 2**20:.2f} GiB"
        )
        for label in dict.fromkeys(label for label, _ in STAGES[1:]):
            if stages.get(label):
                print(f"  {label:<40} {100 * stages[label] / total:5.1f}%")
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
    """Print the whole catalogue's tasks' time on :data:`PROJECTION_WORKERS` workers."""
    counts, size = catalogue_counts()
    cpu_seconds = sum(counts[r] * costs[r] for r in costs)
    hours = cpu_seconds / PROJECTION_WORKERS / 3600.0
    parts = ", ".join(f"{r.upper()} {counts[r]:,} x {costs[r]:.2f} s" for r in costs)
    print(
        f"whole catalogue: {sum(counts.values()):,} objects tracked of {size:,} ({parts}) = "
        f"{cpu_seconds / 3600.0:.2f} CPU h; on {PROJECTION_WORKERS} workers {hours:.2f} h "
        "(tasks only, efficiency 1)"
    )


def scale(objects, workers, baseline, options, folder):
    """Print the scale run: ``objects`` LEO objects on a process pool of ``workers``."""
    runner = Runner(workers=workers, progress=False)
    total, throughput = study(folder, runner, objects=objects, **options)
    tasks = throughput["wall_time_s"]
    cost = tasks * throughput["workers"] / throughput["objects"]
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
    for regime, default in (("leo", 3), ("meo", 1), ("geo", 2)):
        parser.add_argument(f"--{regime}-objects", type=int, default=default)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--scale-objects", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--efficiency-objects", type=int, default=0)
    return parser.parse_args()


def main():
    """Print the baseline, the regimes' costs and stages, the projection and, if asked,
    the scale run and the efficiencies."""
    args = parse_arguments()
    for threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(threads, "1")  # the spawned children's BLAS
    options = {"hours": args.hours, "batch": args.batch}
    baseline = baseline_seconds()
    print(
        f"baseline: one LEO object's 24 h J2 propagation {baseline:.3f} CPU s; "
        f"window {args.hours:g} h"
    )
    counts = {r: getattr(args, f"{r}_objects") for r in TARGETS}
    projection(regime_costs({r: n for r, n in counts.items() if n > 0}, baseline, options))
    with tempfile.TemporaryDirectory() as scratch:
        if args.scale_objects > 0:
            scale(args.scale_objects, args.workers, baseline, options, f"{scratch}/scale")
        if args.efficiency_objects > 0:
            clusters = {"LocalCluster": local_cluster_time, "processes": process_cluster_time}
            for name, timer in clusters.items():
                efficiency(name, timer, args.efficiency_objects, options, scratch)


if __name__ == "__main__":
    main()
