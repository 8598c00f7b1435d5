"""Scale of the ssa-catalog study: 1,000 LEO objects x 24 h x 8 radars x 3 levels.

1. Baseline: one J2 propagation of one LEO object of the sample over the window at the
   study's grid and truth tolerance (:meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate`).
2. Scale: ``ssa_catalog.run`` with ``--objects N`` (default 1,000 LEO, the defaults
   otherwise: 24 h, 30 s, pass budgets 10, 14, 20 nats plus "none") on a process pool of
   ``--workers`` (default 2): the whole run's wall time (catalogue, tasks, tables,
   figures; target <= 10 min on an idle 2-core machine), the tasks' wall time, objects
   per second per worker, and the single-worker cost per object as a multiple of the
   baseline.
3. Parallel efficiency on a Dask ``LocalCluster``: the study's tasks for
   ``--efficiency-objects`` objects on 1 and on 2 single-threaded workers;
   efficiency ``T1 / (2 T2)`` (target >= 0.8).

Both use the study's own code path (``results.json``'s ``throughput.wall_time_s`` is the
tasks' wall time). Run on an idle machine: ``python benchmarks/bench_catalog.py
[--objects N] [--workers W] [--efficiency-objects M] [--skip-scale]``.
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import best_time

from ssa_privacy.engine.runner import Runner
from ssa_privacy.orbits.catalog import select_objects, sgp4_states
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import load_catalogue
from ssa_privacy.studies import ssa_catalog


def baseline_seconds(repeats=5):
    """One 24 h J2 propagation of one sampled LEO object at the study's grid and tolerance."""
    catalogue = load_catalogue()
    element_set = select_objects(catalogue, "leo", 1, 0)[0]
    start = max(e.epoch_jd for e in catalogue)
    times = np.arange(0.0, 86400.0 + 1e-9, 30.0)
    state = sgp4_states([element_set], start, [0.0])[0, 0]
    propagator = J2Propagator()
    return best_time(lambda: propagator.propagate(times, state, 1e-10, 1e-10), repeats)


def study(objects, runner, folder):
    """Run the study; return its total wall time and the tasks' wall time (s)."""
    start = time.perf_counter()
    ssa_catalog.run(folder, seed=0, progress=False, objects=objects, runner=runner)
    total = time.perf_counter() - start
    throughput = json.loads((Path(folder) / "results.json").read_text())["throughput"]
    return total, throughput["wall_time_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--efficiency-objects", type=int, default=100)
    parser.add_argument("--skip-scale", action="store_true")
    args = parser.parse_args()
    baseline = baseline_seconds()
    print(f"baseline: one object's 24 h J2 propagation {baseline:.3f} s")
    with tempfile.TemporaryDirectory() as scratch:
        if not args.skip_scale:
            total, tasks = study(
                args.objects, Runner(workers=args.workers, progress=False), f"{scratch}/scale"
            )
            per_object = tasks * args.workers / args.objects
            print(
                f"scale: {args.objects} LEO objects on {args.workers} workers: {total:.1f} s in "
                f"all (target <= 600), tasks {tasks:.1f} s, "
                f"{args.objects / tasks / args.workers:.3f} objects/s/worker, "
                f"{per_object:.3f} worker-s per object = {per_object / baseline:.1f} baselines"
            )
        times = {}
        for workers in (1, 2):
            runner = Runner(dask_local=workers, progress=False)
            times[workers] = study(args.efficiency_objects, runner, f"{scratch}/dask{workers}")[1]
        efficiency = times[1] / (2 * times[2])
        print(
            f"LocalCluster, {args.efficiency_objects} objects: 1 worker {times[1]:.1f} s, "
            f"2 workers {times[2]:.1f} s, efficiency {efficiency:.2f} (target >= 0.8)"
        )


if __name__ == "__main__":
    main()
