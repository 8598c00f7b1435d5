"""Timing of the distributed aggregation design [LKC §5] against the number of agents N.

- fixed Q_i: the vectorised closed form (36), N = 10^2, 10^4, 10^5;
- designed Q_i: the per-agent SDP (35), one parametrised cvxpy problem re-solved per agent,
  agents spread over worker processes, N = 10^2, 10^4.

Agents have two states, two outputs and a scalar aggregate (n = 2, m = 2, q = 1). Each
time is compared with a baseline timed in the same run: one ``numpy.linalg.eigh`` of a
2x2 matrix for the closed form, one re-solve of the per-agent cvxpy problem for the SDP.

Run: ``python benchmarks/bench_aggregation.py [--processes P] [--repeats R]``.
"""

import argparse
import os
import time

import numpy as np
from _timing import best_time

from ssa_privacy.privacy.pml.aggregation import _agent_problem, design_fixed_Q, design_Q

FIXED_SIZES = (10**2, 10**4, 10**5)
SDP_SIZES = (10**2, 10**4)
N_STATE, N_OUT, N_AGG = 2, 2, 1


def agents(N, rng):
    """Random agents: Schur-stable A_i, C_i, L_i, Q_i, epsilon_i and a prior lower bound."""
    A = rng.standard_normal((N, N_STATE, N_STATE))
    A *= (rng.uniform(0.1, 0.9, N) / np.max(np.abs(np.linalg.eigvals(A)), axis=1))[:, None, None]
    M = rng.standard_normal((N, N_STATE, N_STATE))
    Q = M @ np.swapaxes(M, 1, 2) / N_STATE + 0.1 * np.eye(N_STATE)
    C = rng.standard_normal((N, N_OUT, N_STATE))
    L = rng.standard_normal((N, N_AGG, N_OUT))
    return dict(A=A, C=C, L=L, Q=Q, epsilon=rng.uniform(5.5, 8.0, N), lower=0.5 * Q)


def baseline_eigh(rng, calls=20_000):
    matrices = [m @ m.T for m in rng.standard_normal((calls, N_STATE, N_STATE))]
    start = time.perf_counter()
    for m in matrices:
        np.linalg.eigh(m)
    return (time.perf_counter() - start) / calls


def baseline_cvxpy(rng, calls=200):
    """Mean time of one re-solve of the per-agent SDP (35) (after its first compilation)."""
    problem, par, _, _ = _agent_problem(N_STATE, N_OUT)
    data = agents(calls, rng)
    par["c"].value = 0.05
    par["W"].value, par["M"].value = data["C"][0] * 0.5, data["L"][0].T @ data["L"][0]
    par["A"].value, par["Sigma_lower"].value = data["A"][0], data["lower"][0]
    problem.solve(solver="CLARABEL")
    start = time.perf_counter()
    for i in range(calls):
        par["A"].value, par["Sigma_lower"].value = data["A"][i], data["lower"][i]
        problem.solve(solver="CLARABEL")
    return (time.perf_counter() - start) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--processes", type=int, default=os.cpu_count(), help="worker processes for the SDP"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="repeats of the closed form (best kept)"
    )
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    eigh, solve = baseline_eigh(rng), baseline_cvxpy(rng)
    print(f"baseline: numpy.linalg.eigh of a 2x2 matrix, {eigh * 1e6:.2f} us")
    print(f"baseline: one cvxpy re-solve of the SDP (35), {solve * 1e3:.3f} ms")
    print(f"CPUs: {os.cpu_count()}, SDP worker processes: {args.processes}\n")
    print(
        f"{'design':<26}{'N':>8}{'time (s)':>11}{'per agent (us)':>16}{'per agent / baseline':>22}"
    )
    for N in FIXED_SIZES:
        d = agents(N, rng)
        seconds = best_time(
            lambda: design_fixed_Q(d["A"], d["C"], d["L"], d["Q"], d["epsilon"], 0.01), args.repeats
        )
        print(
            f"{'fixed Q (36), vectorised':<26}{N:>8}{seconds:>11.3f}{seconds / N * 1e6:>16.2f}"
            f"{seconds / N / eigh:>17.2f} eigh"
        )
    for N in SDP_SIZES:
        d = agents(N, rng)
        start = time.perf_counter()
        design_Q(
            d["A"],
            d["C"],
            d["L"],
            d["epsilon"],
            0.01,
            0.05,
            Sigma_lower=d["lower"],
            processes=args.processes,
        )
        seconds = time.perf_counter() - start
        print(
            f"{'designed Q (35), SDP':<26}{N:>8}{seconds:>11.3f}{seconds / N * 1e6:>16.1f}"
            f"{seconds / N / solve:>17.2f} solve"
        )


if __name__ == "__main__":
    main()
