"""Timing of the DP-GP computations of [SMI] and [MAC] against baselines timed in the same run.

1. Cloaking covariance: the convergent solver of
   :func:`ssa_privacy.privacy.dp_gp.ellipsoid.minimum_volume_ellipsoid` (multiplicative warm start,
   then a primal-dual interior-point method) against the authors' fixed-step projected gradient
   (:func:`ssa_privacy.privacy.dp_gp.ellipsoid.projected_gradient_design`, learning rate 0.05,
   at most 1000 steps, 300 on the census problem as the authors' census run). Both
   solve the problem in the numerical column space of C (singular values above 1e-8
   of the largest; the SVD is timed in both): a rank-deficient C makes the gradient
   method's ``M(lambda)`` singular, which the authors' code hid with a pseudo-inverse.
   Reported: both times, their ratio, and each one's distance from the optimum: the
   duality gap ``r ln(max(1, max_i g_i)) + sum_i lambda_i - r`` (an upper bound on the
   excess of ``log|M|``, rescaled to feasibility, over the optimum; r the kept rank,
   ``g_i = c_i^T M^{-1} c_i``) and ``max_i g_i - 1`` of the gradient method, which
   usually stops early. The baseline operation is one Cholesky factorisation of
   ``K + s2 I`` (the GP fit). Problems: the toy example of ``docs/theory/dp-gp.rst``
   (5 training and 3 test points), the setup of the authors' empirical privacy-loss
   test (50 and 5), a 2-D problem with 300 training and 30 test points, and the
   census study's problem: its real data and maximum-likelihood hyperparameters
   (fitted first, untimed, as ``ssa-privacy run census`` does), C of size 331 x 1325,
   timed ``--census-repeats`` times (it takes tens of seconds).
2. Renyi bound: one :func:`ssa_privacy.privacy.posterior_sampling.bound.epsilon_for_delta`
   (optimised over the order) per (n, r, sigma) point, against one exact GP posterior
   (fit and predict, n = 100 points, 800 test points) as the baseline.

Run: ``python benchmarks/bench_dp.py [--repeats R] [--census-repeats R] [--no-census]``.
"""

import argparse

import numpy as np
from _timing import best_time

from ssa_privacy.gp.regression import RBF, Exponential, GaussianProcess, cholesky_with_jitter
from ssa_privacy.privacy.dp_gp.ellipsoid import minimum_volume_ellipsoid, projected_gradient_design
from ssa_privacy.privacy.dp_gp.release import cloaking_matrix
from ssa_privacy.privacy.posterior_sampling.bound import epsilon_for_delta


def timed(function, repeats):
    """Best time of ``repeats`` calls (:func:`_timing.best_time`) and the last call's result."""
    results = []
    seconds = best_time(lambda: results.append(function()), repeats)
    return seconds, results[-1]


def cloaking_problems(census=True):
    """(name, X, X_star, kernel, noise variance, gradient steps, is census) of the problems."""
    rng = np.random.default_rng(0)
    yield "toy (5 x 3)", np.arange(5.0), np.array([0.5, 2.5, 3.5]), RBF(1.0), 0.5, 1000, False
    yield (
        "empirical check (50 x 5)",
        10 * rng.standard_normal(50),
        np.arange(0.0, 10, 2),
        RBF(1.0),
        0.25,
        1000,
        False,
    )
    yield (
        "2-D, 300 x 30",
        rng.uniform(0, 10, (300, 2)),
        rng.uniform(0, 10, (30, 2)),
        RBF(1.0),
        0.1,
        1000,
        False,
    )
    if census:
        yield census_problem()


def census_problem():
    """The census study's problem: its data and ML fit (``ssa-privacy run census`` defaults)."""
    from ssa_privacy.engine.data import load_census
    from ssa_privacy.studies import census

    design = census.Design(load_census(), restarts=3, seed=0)
    gp = design.gp
    return (
        "census (331 x 1325)",
        design.X,
        design.X_test,
        gp.kernel,
        gp.noise + gp.jitter,
        300,
        True,
    )


def gradient_baseline(C, steps, rtol=1e-8):
    """The authors' fixed-step gradient on the numerical column space of C.

    Returns lambdas, steps taken, ``max_i g_i`` and the duality gap.
    """
    U, s, _ = np.linalg.svd(C, full_matrices=False)
    r = int(np.sum(s > rtol * s[0]))
    lambdas, taken, leverage = projected_gradient_design(U[:, :r].T @ C, max_iter=steps, seed=0)
    gap = r * np.log(max(1.0, leverage)) + lambdas.sum() - r
    return lambdas, taken, leverage, gap


def bench_cloaking(repeats, census_repeats, census=True):
    print("Cloaking covariance: convergent solver vs fixed-step gradient (authors' code)")
    print(
        f"{'problem':30s} {'rank':>5s} {'chol (s)':>9s} {'ours (s)':>9s} {'grad (s)':>9s} {'ours/grad':>9s} "
        f"{'ours/chol':>9s} {'ours gap':>9s} {'grad gap':>9s} {'grad g-1':>9s} {'grad steps':>10s}"
    )
    for name, X, X_star, kernel, s2, steps, is_census in cloaking_problems(census):
        times = census_repeats if is_census else repeats
        K, K_star = kernel(X), kernel(X_star, X)
        chol, _ = timed(lambda: cholesky_with_jitter(K + s2 * np.eye(len(K))), times)
        C, _ = cloaking_matrix(K_star, K, s2)
        ours, solution = timed(lambda: minimum_volume_ellipsoid(C), times)
        grad, (_, taken, leverage, gap) = timed(lambda: gradient_baseline(C, steps), times)
        print(
            f"{name:30s} {solution.rank:5d} {chol:9.5f} {ours:9.4f} {grad:9.4f} {ours / grad:9.3f} "
            f"{ours / chol:9.1f} {solution.duality_gap:9.1e} {gap:9.1e} {leverage - 1:9.1e} {taken:10d}"
        )


def bench_renyi(repeats):
    rng = np.random.default_rng(1)
    X, grid = rng.uniform(0, 1, 100), np.linspace(0, 1, 800)
    y = np.sign(X - 0.5)
    baseline = best_time(
        lambda: GaussianProcess(Exponential(0.5), 0.0, 1.0).fit(X, y).predict(grid), repeats
    )
    print(
        f"\nRenyi bound per (n, r, sigma) point; baseline: one GP posterior (n = 100, 800 points) "
        f"{baseline:.5f} s"
    )
    print(f"{'n':>5s} {'r':>6s} {'sigma':>6s} {'epsilon':>12s} {'time (s)':>9s} {'ratio':>7s}")
    for n in (10, 100, 1000):
        for ridge in (0.1, 1.0, 5.0):
            for sigma in (0.5, 2.0):
                seconds, epsilon = timed(
                    lambda: epsilon_for_delta(1e-5, n=n, lengthscale=0.5, ridge=ridge, sigma=sigma),
                    repeats,
                )
                print(
                    f"{n:5d} {ridge:6.1f} {sigma:6.1f} {epsilon:12.5g} {seconds:9.5f} {seconds / baseline:7.3f}"
                )


def main(argv=None):
    """Print the cloaking and Renyi-bound timings with their ratios to the baselines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--census-repeats", type=int, default=1, help="timings of the census problem"
    )
    parser.add_argument(
        "--no-census", action="store_true", help="skip the census problem (needs its data)"
    )
    args = parser.parse_args(argv)
    bench_cloaking(args.repeats, args.census_repeats, census=not args.no_census)
    bench_renyi(args.repeats)


if __name__ == "__main__":
    main()
