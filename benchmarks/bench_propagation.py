"""Timing of many-object J2 propagation against one-object propagation, in one run.

Objects: N random LEO orbits (perigee and apogee altitudes uniform in 400-1,500 km,
inclination uniform on the sphere, node, perigee and anomaly uniform; seed 0), over one
day with an output every ``--step`` seconds, at rtol = atol = ``--tolerance`` (default
1e-12: at the propagator's default 1e-10 the one-object call is itself only accurate to
about 1e-8 relative over a day, so no other integration can agree with it to 1e-9; at
1e-12 both are within 1e-10 of the reference and the 1e-9 agreement is a real test).

1. Baseline: :meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate` of one object
   per call (one ``solve_ivp`` with a numpy right-hand side each), for the first B of the
   objects (about 0.4 s an object): time per object.
2. :meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate_many` of all N objects
   (batches stacked into one system, tolerance over sqrt(batch)): time per object and
   the ratio of the baseline to it (target >= 10).
3. Accuracy of both over the B objects against a one-object reference at 1e-13: the
   largest relative error ``|s - s_ref| / |s_ref|`` of the 6-state over objects and
   times, and the largest difference between the two (of the order of the baseline's
   own integration error; target <= 1e-9).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_propagation.py [--objects N]
[--baseline-objects B] [--step S] [--tolerance T] [--repeats R]``.
"""

import argparse

import numpy as np
from _timing import best_time

from ssa_privacy.constants import R_EARTH
from ssa_privacy.orbits.elements import elements_to_state
from ssa_privacy.orbits.propagator import J2Propagator

DAY = 86400.0


def leo_states(count, seed=0):
    """ECI states of random LEO orbits, perigee and apogee altitudes in 400-1,500 km."""
    rng = np.random.default_rng(seed)
    perigee, apogee = R_EARTH + np.sort(rng.uniform(400.0, 1500.0, (2, count)), axis=0)
    a, e = (perigee + apogee) / 2, (apogee - perigee) / (apogee + perigee)
    angles = rng.uniform(0.0, 2 * np.pi, (3, count))
    return elements_to_state(a, e, np.arccos(rng.uniform(-1.0, 1.0, count)), *angles)


def timed(function, repeats):
    """Best time of ``repeats`` calls (:func:`_timing.best_time`) and the last call's result."""
    results = []
    seconds = best_time(lambda: results.append(function()), repeats)
    return seconds, results[-1]


def relative_difference(states, reference):
    """Largest ``|s - s_ref| / |s_ref|`` of the 6-states over objects and times."""
    return np.max(np.linalg.norm(states - reference, axis=-1) / np.linalg.norm(reference, axis=-1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--baseline-objects", type=int, default=50)
    parser.add_argument("--step", type=float, default=60.0, help="output spacing (s)")
    parser.add_argument("--tolerance", type=float, default=1e-12)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    model, tol = J2Propagator(), args.tolerance
    starts = leo_states(args.objects)
    few = starts[: args.baseline_objects]
    times = np.arange(0.0, DAY + args.step / 2, args.step)
    print(f"{args.objects} LEO objects, 1 day, {len(times)} output times, rtol = atol = {tol:g}")

    one_time, one = timed(lambda: np.stack([model.propagate(times, s, tol, tol) for s in few]), 1)
    one_each = one_time / len(few)
    print(f"one object per call ({len(few)} objects): {1e3 * one_each:.1f} ms per object")

    many_time, many = timed(lambda: model.propagate_many(times, starts, tol, tol), args.repeats)
    many_each = many_time / len(starts)
    print(
        f"propagate_many ({len(starts)} objects): {1e3 * many_each:.2f} ms per object, "
        f"ratio {one_each / many_each:.0f} (target >= 10)"
    )
    reference = np.stack([model.propagate(times, s, 1e-13, 1e-13) for s in few])
    print(
        f"max relative error against the 1e-13 reference: one object per call "
        f"{relative_difference(one, reference):.1e}, propagate_many "
        f"{relative_difference(many[: len(few)], reference):.1e}; difference between them "
        f"{relative_difference(many[: len(few)], one):.1e}"
    )


if __name__ == "__main__":
    main()
