"""Timing of the DP-GP computations of [SMI] and [MAC] against baselines timed in the same run.

1. Cloaking covariance: the convergent solver of
   :func:`ssa_privacy.privacy.dp_gp.optimal_cloaking_covariance` (Frank-Wolfe, then a
   log-barrier Newton method) against the authors' fixed-step projected gradient
   (:func:`ssa_privacy.privacy.dp_gp.cloaking_lambdas_gradient`, learning rate 0.05,
   at most 1000 steps). Reported: both times, their ratio, and how far each is from
   the optimum (``max_i c_i^T M^{-1} c_i - 1``; the gradient method usually stops
   early). The baseline operation is one Cholesky factorisation of ``K + s2 I`` (the GP
   fit). Problems: the toy example of ``dpgp_spec.md`` C.1, the empirical-check setup
   of A.3 step 6, and a 2-D problem with 300 training and 30 test points.
2. Renyi bound: one :func:`ssa_privacy.privacy.posterior_sampling.epsilon_for_delta`
   (optimised over the order) per (n, r, sigma) point, against one exact GP posterior
   (fit and predict, n = 100 points, 800 test points) as the baseline.

Run: ``python benchmarks/bench_dp.py [--repeats R]``.
"""

import argparse

import numpy as np
from _timing import best_time

from ssa_privacy.gp import RBF, Exponential, GaussianProcess, cholesky_with_jitter
from ssa_privacy.privacy.dp_gp import (
    cloaking_lambdas_gradient,
    cloaking_matrix,
    optimal_cloaking_covariance,
)
from ssa_privacy.privacy.posterior_sampling import epsilon_for_delta


def cloaking_problems():
    """(name, X, X_star, kernel, noise variance) of the benchmark problems."""
    rng = np.random.default_rng(0)
    yield "toy (spec C.1)", np.arange(5.0), np.array([0.5, 2.5, 3.5]), RBF(1.0), 0.5
    yield "empirical check (spec A.3.6)", 10 * rng.standard_normal(50), np.arange(0.0, 10, 2), RBF(1.0), 0.25
    yield "2-D, 300 x 30", rng.uniform(0, 10, (300, 2)), rng.uniform(0, 10, (30, 2)), RBF(1.0), 0.1


def bench_cloaking(repeats):
    print("Cloaking covariance: convergent solver vs fixed-step gradient (authors' code)")
    print(f"{'problem':30s} {'chol (s)':>9s} {'ours (s)':>9s} {'grad (s)':>9s} {'ours/grad':>9s} "
          f"{'ours/chol':>9s} {'ours gap':>9s} {'grad gap':>9s} {'grad steps':>10s}")
    for name, X, X_star, kernel, s2 in cloaking_problems():
        K, K_star = kernel(X), kernel(X_star, X)
        chol, _ = best_time(lambda: cholesky_with_jitter(K + s2 * np.eye(len(K))), repeats)
        C, _ = cloaking_matrix(K_star, K, s2)
        ours, solution = best_time(lambda: optimal_cloaking_covariance(C), repeats)
        grad, (_, steps, leverage) = best_time(lambda: cloaking_lambdas_gradient(C, seed=0), repeats)
        print(f"{name:30s} {chol:9.5f} {ours:9.4f} {grad:9.4f} {ours / grad:9.3f} {ours / chol:9.1f} "
              f"{solution.max_leverage - 1:9.1e} {leverage - 1:9.1e} {steps:10d}")


def bench_renyi(repeats):
    rng = np.random.default_rng(1)
    X, grid = rng.uniform(0, 1, 100), np.linspace(0, 1, 800)
    y = np.sign(X - 0.5)
    baseline, _ = best_time(lambda: GaussianProcess(Exponential(0.5), 0.0, 1.0).fit(X, y).predict(grid), repeats)
    print(f"\nRenyi bound per (n, r, sigma) point; baseline: one GP posterior (n = 100, 800 points) "
          f"{baseline:.5f} s")
    print(f"{'n':>5s} {'r':>6s} {'sigma':>6s} {'epsilon':>12s} {'time (s)':>9s} {'ratio':>7s}")
    for n in (10, 100, 1000):
        for ridge in (0.1, 1.0, 5.0):
            for sigma in (0.5, 2.0):
                seconds, epsilon = best_time(lambda: epsilon_for_delta(
                    1e-5, n=n, lengthscale=0.5, ridge=ridge, sigma=sigma), repeats)
                print(f"{n:5d} {ridge:6.1f} {sigma:6.1f} {epsilon:12.5g} {seconds:9.5f} {seconds / baseline:7.3f}")


def main(argv=None):
    """Print the cloaking and Renyi-bound timings with their ratios to the baselines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    bench_cloaking(args.repeats)
    bench_renyi(args.repeats)


if __name__ == "__main__":
    main()
