"""Timing of the census obfuscation [TCB] against one dense eigendecomposition.

The obfuscation is what the data owner runs per release: Sigma_opt of (8) for the 24
sensitive records of the census study (positive eigenpairs only, SPEC §3) plus one
sample W = Y + Z. The baseline, timed in the same run, is one ``numpy.linalg.eigh`` of a
matrix of the same size (1,325 x 1,325), which is what a dense (8) would cost. The kernel
matrices and the hyperparameters are computed once beforehand (they belong to the GP
fit, not to the mechanism); the hyperparameters are the maximum-likelihood fit of the
census study.

Run: ``python benchmarks/bench_obfuscation.py [--repeats R] [--data PATH]``.
The issue's target is a ratio of at most 0.5.
"""

import argparse

import numpy as np
from _timing import best_time

from ssa_privacy.data import load_census
from ssa_privacy.gp import RBF
from ssa_privacy.privacy import optimal_noise_factor, release
from ssa_privacy.studies.census import sensitive_mask

#: Census study ML fit (standardised inputs), rounded; the timing does not depend on it.
LENGTHSCALE = (99.96, 0.3033, 1.204, 27.10, 0.7825)
VARIANCE, NOISE = 0.2196, 0.4530


def main(argv=None):
    """Print the obfuscation time, the eigh time and their ratio for each alpha."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--data", default=None)
    args = parser.parse_args(argv)
    data = load_census(args.data)
    X = (data.X_train - data.X_train.mean(axis=0)) / data.X_train.std(axis=0, ddof=1)
    S0 = X[sensitive_mask(data.X_train)]
    kernel = RBF(np.array(LENGTHSCALE), VARIANCE)
    K_XX, K_XS = kernel(X), kernel(X, S0)
    rng = np.random.default_rng(0)
    dense = K_XX + NOISE * np.eye(len(X))
    eigh_time = best_time(lambda: np.linalg.eigh(dense), args.repeats)
    print(f"n = {len(X)}, |S| = {len(S0)}; one numpy.linalg.eigh: {eigh_time:.4f} s")
    print("alpha  obfuscation (s)  ratio to eigh")
    for alpha in (0.1, 0.5, 0.9):
        Delta = alpha * kernel(S0)

        def obfuscation():
            factor = optimal_noise_factor(K_XX, K_XS, Delta, NOISE)
            release(data.y_train, factor, seed=rng)

        seconds = best_time(obfuscation, args.repeats)
        print(f"{alpha:5.1f}  {seconds:15.4f}  {seconds / eigh_time:13.3f}")


if __name__ == "__main__":
    main()
