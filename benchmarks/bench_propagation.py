"""Timing of the J2 propagator's two backends (heyoka's Taylor integrator, scipy's DOP853),
and how far their numbers are apart, in one run.

1. One LEO object (600 km, near circular) over 24 h on the 30 s grid at the default
   tolerance (1e-10): :meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate` on
   scipy, the baseline, and on heyoka (its integrator compiled beforehand; the one-off
   compilation is printed apart): the ratio scipy / heyoka (the speed-up).
2. Its transition matrices over the same day and grid
   (:meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate_with_transition`, the
   variational equations, default tolerance 1e-12): the ratio scipy / heyoka.
3. ``propagate_many`` of N random LEO objects (perigee and apogee altitudes uniform in
   400-1,500 km, seed 0) on both backends, per object, and the position errors of both
   against an independent DOP853 reference at 1e-13 over the day, and their difference.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_propagation.py [--objects N]
[--repeats R]``.
"""

import argparse
import contextlib
import os
import time

import numpy as np
from _timing import best_time
from scipy.integrate import solve_ivp

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


@contextlib.contextmanager
def backend(name):
    """Run the propagator on ``name`` (``heyoka`` or ``scipy``)."""
    previous = os.environ.get("SSA_PRIVACY_PROPAGATOR")
    os.environ["SSA_PRIVACY_PROPAGATOR"] = name
    try:
        yield
    finally:
        if previous is None:
            del os.environ["SSA_PRIVACY_PROPAGATOR"]
        else:
            os.environ["SSA_PRIVACY_PROPAGATOR"] = previous


def both(function, repeats):
    """Best times of ``function`` on scipy and on heyoka (compiled first) and their results."""
    out = {}
    for name in ("scipy", "heyoka"):
        with backend(name):
            results = []
            out[name] = best_time(lambda: results.append(function()), repeats), results[-1]
    return out


def position_error(paths, reference):
    """Largest position difference (km) over objects and times."""
    return float(np.max(np.linalg.norm(paths[..., :3] - reference[..., :3], axis=-1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    model = J2Propagator()
    times = np.arange(0.0, DAY + 15.0, 30.0)
    leo = elements_to_state(R_EARTH + 600.0, 0.001, 0.9, 0.3, 0.5, 0.2)
    with backend("heyoka"):
        start = time.perf_counter()
        model.propagate(times[:2], leo)
        model.propagate_with_transition(times[:2], leo[None])
        print(f"heyoka: compiling both integrators {time.perf_counter() - start:.2f} s (once)")
    timings = both(lambda: model.propagate(times, leo), args.repeats)
    (scipy, _), (heyoka, _) = timings["scipy"], timings["heyoka"]
    print(
        f"one LEO object, 24 h on the 30 s grid: scipy {1e3 * scipy:.1f} ms, heyoka "
        f"{1e3 * heyoka:.2f} ms, ratio scipy / heyoka {scipy / heyoka:.0f}"
    )
    timings = both(lambda: model.propagate_with_transition(times, leo[None]), args.repeats)
    (scipy, _), (heyoka, _) = timings["scipy"], timings["heyoka"]
    print(
        f"its transition matrices: scipy {1e3 * scipy:.0f} ms, heyoka {1e3 * heyoka:.1f} ms, "
        f"ratio scipy / heyoka {scipy / heyoka:.0f}"
    )
    starts = leo_states(args.objects)
    timings = both(lambda: model.propagate_many(times, starts), 1)
    (scipy, on_scipy), (heyoka, on_heyoka) = timings["scipy"], timings["heyoka"]
    print(
        f"propagate_many ({args.objects} LEO objects): scipy {1e3 * scipy / args.objects:.1f} "
        f"ms, heyoka {1e3 * heyoka / args.objects:.2f} ms an object, ratio {scipy / heyoka:.0f}"
    )
    reference = np.stack(
        [
            solve_ivp(model._derivative, (0.0, DAY), s, "DOP853", times, rtol=1e-13, atol=1e-13).y.T
            for s in starts
        ]
    )
    print(
        f"largest position error over the day against DOP853 at 1e-13: heyoka "
        f"{1e5 * position_error(on_heyoka, reference):.3f} cm, scipy "
        f"{1e5 * position_error(on_scipy, reference):.2f} cm; heyoka - scipy "
        f"{1e5 * position_error(on_heyoka, on_scipy):.2f} cm"
    )


if __name__ == "__main__":
    main()
