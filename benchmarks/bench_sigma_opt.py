"""Timing of Sigma_opt of (8) [TCB] against one Cholesky factorisation of K_XX + V.

The design is :meth:`SyntheticNoiseDesign.factor` for |S| = 200 sensitive inputs (the 200
training inputs nearest to the first one: a sensitive region) with ``Delta = alpha K_SS``,
from a prior whose symmetry and positive semi-definiteness were checked once beforehand
(the constructor, not timed). From ``KRYLOV_MIN_SIZE`` inputs on it runs the block Lanczos
solver: one Cholesky factorisation of ``K_XX + V`` fixes the number of positive eigenvalues
(the inertia of an |S| x |S| matrix), then block Lanczos computes exactly that many
eigenpairs, residual-checked. The baseline, timed in the same run, is LAPACK's Cholesky
factorisation (``dpotrf``) of a prepared Fortran-ordered copy of ``K_XX + V``.

Inputs are 5-D standard normal (seed 0). Two RBF priors: ``census``, the census study's
maximum-likelihood fit (its length scales make it a smooth, effectively 3-D kernel with a
noise variance twice the signal variance), and ``rough``, unit length scales, unit variance
and noise variance 0.1 (a rougher kernel with less noise, so more eigenpairs of the
matrix of (8) interact).

Printed per case: the time of the design and its ratio to the Cholesky; the a-posteriori
bound ``sqrt(2) ||A U - U Theta||_F / ||Theta||_F`` on the relative error of Sigma
(recomputed here from the matrices); the peak of the memory allocated during the design
(tracemalloc) in units of one n x n matrix, on top of the prior the design object holds
(one n x n matrix); and the process's peak resident memory in n x n units. With
``--dense`` the subset eigensolver is timed too (skip it at n = 20,000: about 10 minutes),
with the relative Frobenius distance between the two Sigma.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sigma_opt.py --sizes 5000 --dense``
and ``OPENBLAS_NUM_THREADS=2 python benchmarks/bench_sigma_opt.py --sizes 20000``. The
issue's targets: a ratio of at most 3 at n = 5,000 and under 2 minutes at n = 20,000 on two
cores, in at most 4 n x n matrices of memory. Time it on an idle machine.
"""

import argparse
import os
import resource
import time
import tracemalloc

import numpy as np
from _timing import best_time
from scipy.linalg import lapack

from ssa_privacy.gp.regression import RBF
from ssa_privacy.privacy import SyntheticNoiseDesign
from ssa_privacy.privacy.synthetic_noise import design as design_module

#: The two priors: (length scales, variance, noise variance).
PRIORS = {
    "census": ((99.96, 0.3033, 1.204, 27.10, 0.7825), 0.2196, 0.4530),
    "rough": ((1.0,) * 5, 1.0, 0.1),
}
SENSITIVE, DIMENSION, ALPHA = 200, 5, 0.5


def kernel_rows(kernel, X, rows=1000):
    """``kernel(X)`` filled a block of rows at a time (no n x n temporaries)."""
    K = np.empty((len(X), len(X)))
    for start in range(0, len(X), rows):
        K[start : start + rows] = kernel(X[start : start + rows], X)
    return K


def problem(n, prior):
    """``(design, K_XS, Delta, V)`` for the named prior; the design's check is not timed."""
    lengthscale, variance, noise = PRIORS[prior]
    X = np.random.default_rng(0).standard_normal((n, DIMENSION))
    S = np.argsort(np.sum((X - X[0]) ** 2, axis=1))[:SENSITIVE]
    kernel = RBF(np.array(lengthscale), variance)
    K = kernel_rows(kernel, X)
    design = SyntheticNoiseDesign(K, noise)
    del K
    return design, design.K_XX[:, S].copy(), ALPHA * kernel(X[S]), noise


def cholesky_time(design, repeats):
    """Best time of LAPACK's Cholesky factorisation of a prepared copy of K_XX + V."""
    times = []
    for _ in range(repeats):
        M = design.K_XX.T.copy(order="F")
        M[np.diag_indices_from(M)] += design.V
        start = time.perf_counter()
        _, info = lapack.dpotrf(M, lower=1, clean=0, overwrite_a=1)
        times.append(time.perf_counter() - start)
        assert info == 0
        del M
    return min(times)


def error_bound(design, K_XS, Delta, noise):
    """``sqrt(2) ||A U - U Theta||_F / ||Theta||_F`` for the matrix A of (8)."""
    U, theta = noise.eigenvectors, noise.eigenvalues
    Y = design._whitened(K_XS, Delta)
    residual = Y.T @ (Y @ U) - design.K_XX @ U - (design.V + theta) * U
    return np.sqrt(2.0) * np.linalg.norm(residual) / np.linalg.norm(theta)


def distance(first, second):
    """``||Sigma_1 - Sigma_2||_F / ||Sigma_2||_F`` from the factors (no n x n matrix).

    Both ranges lie in that of ``B = orth([U_1, U_2])``, where the difference is small.
    """
    B = np.linalg.qr(np.hstack([first.eigenvectors, second.eigenvectors]))[0]
    projected = [(B.T @ f.eigenvectors) * np.sqrt(f.eigenvalues) for f in (first, second)]
    difference = projected[0] @ projected[0].T - projected[1] @ projected[1].T
    return np.linalg.norm(difference) / np.linalg.norm(second.eigenvalues)


def timed_design(design, K_XS, Delta, repeats):
    """Best time of the design, its result and the peak allocation of the first run (bytes)."""
    tracemalloc.start()
    start = time.perf_counter()
    noise = design.factor(K_XS, Delta)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    if repeats > 1:
        seconds = min(seconds, best_time(lambda: design.factor(K_XS, Delta), repeats - 1))
    return seconds, noise, peak


def dense_design(design, K_XS, Delta, repeats):
    """Time and result of the subset eigensolver (the solver below ``KRYLOV_MIN_SIZE``)."""
    saved, design_module.KRYLOV_MIN_SIZE = design_module.KRYLOV_MIN_SIZE, np.inf
    try:
        noise = design.factor(K_XS, Delta)
        return best_time(lambda: design.factor(K_XS, Delta), repeats), noise
    finally:
        design_module.KRYLOV_MIN_SIZE = saved


def report(n, prior, args):
    """Print one line of timings, ratios, accuracy and memory for size n and a prior."""
    design, K_XS, Delta, noise_variance = problem(n, prior)
    matrix = 8.0 * n * n
    baseline = cholesky_time(design, args.repeats)
    seconds, noise, peak = timed_design(design, K_XS, Delta, args.repeats)
    line = (
        f"{n:6d}  {prior:6s}  {baseline:9.2f}  {seconds:8.2f}  {seconds / baseline:5.2f}  "
        f"{noise.method:8s}  {noise.rank:4d}  {error_bound(design, K_XS, Delta, noise):8.1e}  "
        f"{1 + peak / matrix:8.2f}  {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / matrix:7.2f}"
    )
    if args.dense:
        dense_seconds, dense = dense_design(design, K_XS, Delta, args.repeats)
        line += f"  {dense_seconds:8.2f}  {dense_seconds / baseline:5.2f}  {distance(noise, dense):8.1e}"
    print(line, flush=True)


def main(argv=None):
    """Print, per size and prior, the design's time and its ratio to one Cholesky."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000])
    parser.add_argument("--priors", nargs="+", default=list(PRIORS), choices=list(PRIORS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dense", action="store_true", help="also time the subset eigensolver")
    args = parser.parse_args(argv)
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(f"|S| = {SENSITIVE}, alpha = {ALPHA}, RBF in {DIMENSION}-D, OpenBLAS threads: {threads}")
    header = (
        "     n  prior   chol (s)  design (s)  ratio  method    rank  error bd  "
        "mem (nxn)  rss (nxn)"
    )
    print(header + ("  dense (s)  ratio  distance" if args.dense else ""))
    for n in args.sizes:
        for prior in args.priors:
            report(n, prior, args)


if __name__ == "__main__":
    main()
