"""Cloaking noise shape at census size against one Cholesky factorisation, in the same run.

The census study's problem (its real data and maximum-likelihood hyperparameters,
fitted first, untimed, as ``ssa-privacy run census`` does; see
:func:`bench_dp.census_problem`): the cloaking matrix C is 331 x 1,325 of numerical rank
279. Timed: :func:`ssa_privacy.privacy.dp_gp.ellipsoid.minimum_volume_ellipsoid` on C (SVD, the
D-optimal design solver, the scaling to feasibility), at the tolerance the cloaking
mechanism uses (``tol = 1e-8``) and at a looser one. Baseline: one Cholesky
factorisation of ``K + s2 I`` (1,325 x 1,325, the GP fit), by
:func:`ssa_privacy.gp.regression.cholesky_with_jitter`, timed before and after the solver.

Reported per BLAS thread count: both times, their ratio (target <= 25), the duality gap
(the certificate: ``log det`` of the kept part of M is within it of the optimum), the
interior-point steps, the support size, the scale applied for feasibility and the
largest recomputed ``c_i^T M^{-1} c_i`` (at most 1: every column inside).

Run: ``python benchmarks/bench_cloaking.py [--repeats R] [--threads 1 2]``.
"""

import argparse

import numpy as np
from _timing import best_time
from bench_dp import census_problem
from threadpoolctl import threadpool_limits

from ssa_privacy.gp.regression import cholesky_with_jitter
from ssa_privacy.privacy.dp_gp.ellipsoid import minimum_volume_ellipsoid
from ssa_privacy.privacy.dp_gp.release import cloaking_matrix


def census_matrices():
    """``K + s2 I`` and the cloaking matrix C of the census study's problem."""
    _, X, X_star, kernel, s2, _, _ = census_problem()
    K, K_star = kernel(X), kernel(X_star, X)
    C, _ = cloaking_matrix(K_star, K, s2)
    return K + s2 * np.eye(len(K)), C


def bench(K, C, repeats, threads, tolerances):
    """Print one row per tolerance at ``threads`` BLAS threads.

    The largest ``c_i^T M^{-1} c_i`` is recomputed at the same thread count: its
    rounding depends on the summation order of the BLAS, which depends on the threads.
    """
    with threadpool_limits(limits=threads, user_api="blas"):
        before = best_time(lambda: cholesky_with_jitter(K), repeats)
        rows = []
        for tol in tolerances:
            solutions = []
            seconds = best_time(
                lambda: solutions.append(minimum_volume_ellipsoid(C, tol=tol)), repeats
            )
            inside = float(np.max(solutions[-1].mahalanobis_squared(C)))
            rows.append((tol, seconds, solutions[-1], inside))
        after = best_time(lambda: cholesky_with_jitter(K), repeats)
    chol = min(before, after)
    for tol, seconds, s, inside in rows:
        print(
            f"{threads:7d} {tol:7.0e} {chol:8.4f} {seconds:8.3f} {seconds / chol:7.1f} "
            f"{s.duality_gap:9.1e} {s.iterations:5d} {int(np.sum(s.lambdas > 0)):7d} "
            f"{s.scale - 1:9.2e} {inside:.16f}"
        )


def main(argv=None):
    """Print the census cloaking timings and their ratio to one Cholesky factorisation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args(argv)
    K, C = census_matrices()
    print(f"Census cloaking: C is {C.shape[0]} x {C.shape[1]}; baseline: Cholesky of K + s2 I")
    print(
        f"{'threads':>7s} {'tol':>7s} {'chol (s)':>8s} {'mve (s)':>8s} {'ratio':>7s} "
        f"{'gap':>9s} {'steps':>5s} {'support':>7s} {'scale-1':>9s} max c'M^-1 c"
    )
    for threads in args.threads:
        bench(K, C, args.repeats, threads, (1e-8, 1e-5))


if __name__ == "__main__":
    main()
