"""Distributed privacy-aware aggregation: per-agent noise design [LKC §5].

N subsystems ``X_{i,k+1} = A_i X_{i,k} + W_{i,k}``, ``W_{i,k} ~ N(0, Q_i)``, each release
``Y_{i,k} = C_i X_{i,k} + V_{i,k}``, ``V_{i,k} ~ N(0, Theta_i)``; a fusion centre forms
``Ybar_k = sum_i L_i Y_{i,k}`` [LKC] (31). The design minimises the aggregation error::

    J = sum_i tr(L_i Theta_i L_i^T)

subject to each agent's (epsilon_i, delta_i)-PML privacy, [LKC] (33). The problem
separates by agent:

- with ``Q_i`` fixed (e.g. human occupancy, [LKC] Remark 5.1) the optimum is the closed
  form (36), ``Theta_i = kappa_i / (1 - kappa_i) C_i Sigma_i C_i^T``, computed here for all
  agents at once (:func:`design_fixed_Q`);
- with ``Q_i`` designable the SDP (35) is solved agent by agent (:func:`design_Q`): one
  parametrised cvxpy problem re-solved with Clarabel, chunks of agents spread over the
  workers of a :class:`~ssa_privacy.engine.runner.Runner` (the package's one engine).

The agents may also be given as plants (:func:`design_aggregation`, LTIPlant or
discrete-time python-control ``StateSpace``), and each agent's design is a
:class:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism`
(:meth:`AggregationDesign.mechanism`) that releases its outputs with a certificate. The
theory and the building study's reproduction notes: :doc:`/theory/aggregation`.

Units: states in their physical unit, covariances in that unit squared, J in the unit of
``Ybar`` squared.
"""

import math
from dataclasses import dataclass

import control
import cvxpy as cp
import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import covariance_stack, full_rank, schur_stable
from ssa_privacy._internal.solvers import solve_clarabel
from ssa_privacy._internal.validation import (
    flag,
    positive,
    positive_int,
)
from ssa_privacy.engine.runner import Runner, Task, TaskError, WorkerLost, usable_cores
from ssa_privacy.plants import LTIPlant, as_plant, prior_covariance
from ssa_privacy.privacy.accounting import design_epsilon
from ssa_privacy.privacy.pml._aggregation_agents import _agents, _certified, _privacy
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism, linear_mechanism_noise
from ssa_privacy.privacy.pml.leakage import kappa

__all__ = [
    "AggregationDesign",
    "CHUNKS_PER_PROCESS",
    "PARALLEL_MIN_AGENTS",
    "SDP_RTOL",
    "TIE_BREAK",
    "design_Q",
    "design_aggregation",
    "design_fixed_Q",
]

#: Below this many agents :func:`design_Q` solves in the calling process by default.
PARALLEL_MIN_AGENTS = 500
#: Tasks (chunks of agents) per worker of the runner (for load balance and progress).
CHUNKS_PER_PROCESS = 4
#: Largest constraint violation accepted from the solver, relative to the agent's scale.
SDP_RTOL = 1e-6
#: Weight of the tie-break ``TIE_BREAK * tr(L^T L) / m * tr(Theta)`` added to the SDP
#: objective: it picks the least noise among optimal designs (see :func:`design_Q`).
TIE_BREAK = 1e-6


@dataclass(frozen=True)
class AggregationDesign:
    """Per-agent noise design of a privacy-aware aggregation.

    Parameters
    ----------
    Theta : ndarray, shape (N, m, m)
        Privacy-noise covariances Theta_i.
    Q : ndarray, shape (N, n, n)
        Process-noise covariances Q_i (given, or designed: ``Sigma_i - A_i Sigma_i A_i^T``).
    Sigma_XX : ndarray, shape (N, n, n)
        Stationary priors Sigma_i, [LKC] (32).
    kappa : ndarray, shape (N,)
        kappa_{l_i}(epsilon_i, delta_i) of [LKC] (11) in the design's convention.
    cost : ndarray, shape (N,)
        Per-agent aggregation error ``tr(L_i Theta_i L_i^T)``.
    J : float
        Total aggregation error, the sum of ``cost``.
    convention : str
        ``"exact"`` or ``"paper"``.
    max_violation : float
        Largest violation of a constraint of (35) by the solver's answer, relative to the
        agent's scale (0 for the closed form).
    C : ndarray, shape (N, m, n) or None
        Output matrices C_i (None for a design built without them).
    epsilon, delta : ndarray, shape (N,) or None
        The agents' privacy parameters.
    """

    Theta: np.ndarray
    Q: np.ndarray
    Sigma_XX: np.ndarray
    kappa: np.ndarray
    cost: np.ndarray
    J: float
    convention: str
    max_violation: float = 0.0
    C: np.ndarray = None
    epsilon: np.ndarray = None
    delta: np.ndarray = None

    def mechanism(self, i):
        """Agent i's release ``Y_i = C_i X_i + V_i``, ``V_i ~ N(0, Theta_i)``, as a mechanism.

        Parameters
        ----------
        i : int
            Index of the agent, ``0 <= i < N``.

        Returns
        -------
        LinearGaussianMechanism
            With prior ``Sigma_XX[i]``, noise ``Theta[i]`` and the agent's (epsilon_i,
            delta_i) in the design's convention; its certificate recomputes [LKC] (8).

        Raises
        ------
        ValueError
            If the design does not hold ``C``, ``epsilon`` and ``delta``.
        TypeError
            If ``i`` is not an integer.
        IndexError
            If ``i`` is out of range.
        """
        if self.C is None or self.epsilon is None or self.delta is None:
            raise ValueError("this design does not hold C, epsilon and delta")
        if isinstance(i, bool | np.bool_) or not isinstance(i, int | np.integer):
            raise TypeError(f"i must be an integer index, got {type(i).__name__}")
        if not 0 <= i < len(self.Theta):
            raise IndexError(f"i must lie in [0, {len(self.Theta)}), got {i}")
        return LinearGaussianMechanism(
            self.C[i],
            self.Sigma_XX[i],
            self.Theta[i],
            self.epsilon[i],
            self.delta[i],
            convention=self.convention,
            method="aggregation",
        )

    def network_mechanism(self):
        """Every agent's release at once, ``Y = (C_1 X_1, ..., C_N X_N) + V``, as one mechanism.

        ``V ~ N(0, blockdiag(Theta_i))``. The agents are independent, so the leakage about
        the stacked state is the sum of theirs and the stack is (sum_i epsilon_i, sum_i
        delta_i)-PML private (a union bound); its certificate recomputes [LKC] (8) for the
        stack at that level. Each agent's own, stronger guarantee: :meth:`mechanism`.

        Returns
        -------
        LinearGaussianMechanism
            With ``C = blockdiag(C_i)`` (N m x N n), prior ``blockdiag(Sigma_XX_i)``, noise
            ``blockdiag(Theta_i)``, ``epsilon = sum_i epsilon_i`` (nats) and ``delta =
            sum_i delta_i``, in the design's convention.

        Raises
        ------
        ValueError
            If the design does not hold ``C``, ``epsilon`` and ``delta``, or the summed
            delta is not below 1.

        Notes
        -----
        [LKC] (31): the releases ``Y_i`` the fusion centre receives.
        """
        if self.C is None or self.epsilon is None or self.delta is None:
            raise ValueError("this design does not hold C, epsilon and delta")
        delta = float(np.sum(self.delta))
        if not delta < 1.0:
            raise ValueError(f"the agents' deltas sum to {delta:g}: the stack has no guarantee")
        return LinearGaussianMechanism(
            linalg.block_diag(*self.C),
            linalg.block_diag(*self.Sigma_XX),
            linalg.block_diag(*self.Theta),
            float(np.sum(self.epsilon)),
            delta,
            convention=self.convention,
            method="aggregation",
        )


def _costs(L, Theta):
    return np.einsum("nqi,nij,nqj->n", L, Theta, L)


def design_fixed_Q(A, C, L, Q, epsilon, delta, convention="exact"):
    """Optimal privacy noise of every agent when the process noise ``Q_i`` is given.

    Parameters
    ----------
    A : array_like, shape (n, n) or (N, n, n)
        Schur-stable state matrices (shared or per agent).
    C : array_like, shape (m, n) or (N, m, n)
        Output matrices, rank >= 1.
    L : array_like, shape (q, m) or (N, q, m)
        Aggregation weights L_i of [LKC] (31).
    Q : array_like, shape (n, n) or (N, n, n)
        Process-noise covariances, positive semi-definite, state units squared, driving
        every state (the prior ``Sigma_i`` positive definite).
    epsilon : float or array_like, shape (N,)
        Leakage bounds epsilon_i, nats, above the necessary condition (9).
    delta : float or array_like, shape (N,)
        Failure probabilities delta_i in (0, 1).
    convention : {"exact", "paper"}
        PML convention of the guarantee (see :doc:`/theory/pml`).

    Returns
    -------
    AggregationDesign
        ``Theta_i = kappa_i / (1 - kappa_i) C_i Sigma_i C_i^T``, the given ``Q_i``, the
        priors ``Sigma_i``, kappa_i, costs and J.

    Raises
    ------
    ValueError
        On shape mismatches, an unstable ``A_i``, a ``Q_i`` not positive semi-definite or
        leaving a direction of the state without prior variance,
        ``delta_i`` outside (0, 1) or ``epsilon_i`` below (9) (naming the smallest feasible
        value).

    Notes
    -----
    [LKC] Remark 5.1, closed form (36) with (32) and (33); both conventions in
    :doc:`/theory/aggregation`. Vectorised over agents: the priors come from one batched
    Lyapunov solve.
    """
    agents = _agents(A, C, L, epsilon, delta, Q=Q)
    # A singular Q is accepted when it drives every state, i.e. the prior is definite.
    Sigma = full_rank(
        prior_covariance(agents["A"], agents["Q"]),
        "Sigma_XX (the prior of A and Q, which must drive every state)",
    )
    Theta = linear_mechanism_noise(
        agents["C"], Sigma, agents["epsilon"], agents["delta"], convention
    )
    Theta = _certified(Theta, Sigma, agents, convention)
    k = kappa(
        agents["epsilon"],
        agents["delta"],
        Sigma.shape[-1],
        np.linalg.matrix_rank(agents["C"]),
        convention,
    )
    cost = _costs(agents["L"], Theta)
    return AggregationDesign(
        Theta=Theta,
        Q=np.array(agents["Q"]),
        Sigma_XX=Sigma,
        kappa=np.atleast_1d(k),
        cost=cost,
        J=float(np.sum(cost)),
        convention=convention,
        **_privacy(agents),
    )


def design_aggregation(plants, L, epsilon, delta, *, convention="exact", process_noise=None):
    """Optimal privacy noise of N plants whose process noise is given, [LKC] (36).

    Parameters
    ----------
    plants : sequence of LTIPlant or control.StateSpace
        The N agents, with common state and output dimensions n and m; a StateSpace must
        be discrete time.
    L : array_like, shape (q, m) or (N, q, m)
        Aggregation weights L_i of [LKC] (31).
    epsilon : float or array_like, shape (N,)
        Leakage bounds epsilon_i, nats, above the necessary condition (9).
    delta : float or array_like, shape (N,)
        Failure probabilities delta_i in (0, 1).
    convention : {"exact", "paper"}, optional
        PML convention of the guarantee.
    process_noise : array_like, shape (p, p), optional
        Covariance of the input of every StateSpace agent (default identity).

    Returns
    -------
    AggregationDesign
        As :func:`design_fixed_Q` with the plants' ``A_i``, ``C_i`` and ``Q_i``.

    Raises
    ------
    TypeError
        If an agent is not a plant.
    ValueError
        If ``plants`` is empty, the agents' dimensions differ, and as
        :func:`design_fixed_Q`.

    Notes
    -----
    [LKC] Remark 5.1, closed form (36) with (32)-(33); :doc:`/theory/aggregation`.
    """
    if isinstance(plants, LTIPlant | control.LTI) or not hasattr(plants, "__iter__"):
        raise TypeError(f"plants must be a sequence of plants, got {type(plants).__name__}")
    plants = [
        as_plant(p, None if isinstance(p, LTIPlant) else process_noise, f"plants[{i}]")
        for i, p in enumerate(plants)
    ]
    shapes = sorted({(p.n, p.m) for p in plants})
    if len(shapes) != 1:
        raise ValueError(
            f"plants must share the state and output dimensions (n, m), got {shapes or 'none'}"
        )
    A, C, Q = (np.stack([getattr(p, name) for p in plants]) for name in "ACQ")
    return design_fixed_Q(A, C, L, Q, epsilon, delta, convention)


def _agent_problem(n, m):
    """The SDP (35) of one agent as a DPP-compliant parametrised cvxpy problem.

    Parameters: ``A`` (n, n); ``W = sqrt(kappa/(1 - kappa)) C`` (m, n); ``M = L^T L``
    (m, m); ``Sigma_lower`` (n, n); ``c``. The products with parameters are kept affine by
    Schur complements: ``Sigma - Qhat >= A Sigma A^T`` and ``Theta >= W Sigma W^T``
    (``Sigma > 0`` since ``Sigma >= Qhat >= c I``).
    """
    par = {
        "A": cp.Parameter((n, n)),
        "W": cp.Parameter((m, n)),
        "M": cp.Parameter((m, m)),
        "Sigma_lower": cp.Parameter((n, n), symmetric=True),
        "c": cp.Parameter(nonneg=True),
    }
    Sigma = cp.Variable((n, n), symmetric=True)
    Qhat = cp.Variable((n, n), symmetric=True)
    Theta = cp.Variable((m, m), symmetric=True)
    AS, WS = par["A"] @ Sigma, par["W"] @ Sigma
    constraints = [
        Qhat >> par["c"] * np.eye(n),
        Theta >> par["c"] * np.eye(m),
        cp.bmat([[Sigma - Qhat, AS], [AS.T, Sigma]]) >> 0,
        cp.bmat([[Theta, WS], [WS.T, Sigma]]) >> 0,
        Sigma >> par["Sigma_lower"],
    ]
    problem = cp.Problem(cp.Minimize(cp.trace(par["M"] @ Theta)), constraints)
    return problem, par, Sigma, Theta


def _violation(A, W, Sigma_lower, c, Sigma, Theta):
    """Largest violation of the constraints of (35), relative to the agent's scale."""
    n, m = Sigma.shape[0], Theta.shape[0]
    Q = Sigma - A @ Sigma @ A.T
    gaps = [
        np.linalg.eigvalsh(Q - c * np.eye(n))[0],
        np.linalg.eigvalsh(Theta - c * np.eye(m))[0],
        np.linalg.eigvalsh(Theta - W @ Sigma @ W.T)[0],
        np.linalg.eigvalsh(Sigma - Sigma_lower)[0],
    ]
    scale = max(1.0, np.max(np.abs(Sigma)), np.max(np.abs(Theta)))
    return max(0.0, -min(gaps)) / scale


def _solve_chunk(arrays, c, start, stop):
    """Solve the SDP (35) for the agents ``start`` to ``stop - 1``; a runner's task."""
    A, W, M, Sigma_lower = (a[start:stop] for a in arrays)
    n, m = A.shape[-1], W.shape[-2]
    problem, par, Sigma, Theta = _agent_problem(n, m)
    par["c"].value = c
    out_Sigma, out_Theta = np.empty((len(A), n, n)), np.empty((len(A), m, m))
    worst = 0.0
    for i in range(len(A)):
        par["A"].value, par["W"].value, par["M"].value = A[i], W[i], M[i]
        par["Sigma_lower"].value = Sigma_lower[i]
        solve_clarabel(problem, f"the SDP (35) of agent {start + i}")
        out_Sigma[i] = 0.5 * (Sigma.value + Sigma.value.T)
        out_Theta[i] = 0.5 * (Theta.value + Theta.value.T)
        violation = _violation(A[i], W[i], Sigma_lower[i], c, out_Sigma[i], out_Theta[i])
        if violation > SDP_RTOL:
            raise RuntimeError(
                f"the SDP (35) answer of agent {start + i} violates a constraint by "
                f"{violation:.3g} (relative); the problem may be badly scaled"
            )
        worst = max(worst, violation)
    return out_Sigma, out_Theta, worst


def _chunks(N, processes):
    size = max(1, math.ceil(N / (processes * CHUNKS_PER_PROCESS)))
    return [slice(start, min(start + size, N)) for start in range(0, N, size)]


def _runner(N, runner, processes, progress):
    """The caller's runner, or one of ``processes`` workers (default: serial below
    ``PARALLEL_MIN_AGENTS`` agents, else the usable cores)."""
    if runner is None:
        workers = processes or (1 if N < PARALLEL_MIN_AGENTS else usable_cores())
        return Runner(workers, progress=progress, preload=(__name__,))
    if processes is not None:
        raise ValueError("give runner or processes, not both")
    if not isinstance(runner, Runner):
        raise TypeError(f"runner must be a Runner, got {type(runner).__name__}")
    return runner


def _run_chunks(arrays, c, runner):
    """Solve every agent's SDP on ``runner``, one task per chunk of agents; a task's error
    is re-raised as itself (a dead worker as :class:`~ssa_privacy.engine.runner.WorkerLost`)."""
    parts = _chunks(len(arrays[0]), runner.concurrency or usable_cores())
    tasks = [Task(("agents", p.start, p.stop), {"start": p.start, "stop": p.stop}) for p in parts]
    shared = {"arrays": arrays, "c": c}
    try:
        results = runner.map(_solve_chunk, tasks, shared=shared, name="design_Q")
    except TaskError as error:  # the solver's own error, which names the agent
        if isinstance(error, WorkerLost):
            raise
        raise error.error from error.error.__cause__
    Sigma, Theta, worst = zip(*results, strict=True)
    return np.concatenate(Sigma), np.concatenate(Theta), max(worst)


def design_Q(
    A,
    C,
    L,
    epsilon,
    delta,
    c,
    Sigma_lower=None,
    convention="exact",
    processes=None,
    progress=False,
    *,
    runner=None,
):
    """Jointly optimal process noise ``Q_i`` and privacy noise ``Theta_i`` of every agent.

    Parameters
    ----------
    A : array_like, shape (n, n) or (N, n, n)
        Schur-stable state matrices.
    C : array_like, shape (m, n) or (N, m, n)
        Output matrices, rank >= 1.
    L : array_like, shape (q, m) or (N, q, m)
        Aggregation weights.
    epsilon : float or array_like, shape (N,)
        Leakage bounds, nats, above the necessary condition (9).
    delta : float or array_like, shape (N,)
        Failure probabilities in (0, 1).
    c : float
        Lower bound ``Qhat_i >= c I``, ``Theta_i >= c I`` of [LKC] (35), units squared, > 0.
    Sigma_lower : array_like, shape (n, n) or (N, n, n), optional
        Lower bound ``Sigma_i >= Sigma_lower`` on the prior the adversary may hold (the
        range constraint suggested after [LKC] (35)); default 0. Without it the optimum is
        the smallest process noise, ``Q_i = c I``.
    convention : {"exact", "paper"}
        PML convention of the guarantee.
    processes : int, optional
        Worker processes of the runner built when none is given; default 1 below
        ``PARALLEL_MIN_AGENTS`` agents, else the usable cores.
    progress : bool, optional
        Show the built runner's progress bar over the chunks of agents.
    runner : ssa_privacy.engine.runner.Runner, optional
        Runs the agents' SDPs, ``CHUNKS_PER_PROCESS`` chunks of agents per worker (a
        study passes its own, serial, process-pool or Dask; BLAS runs one thread per task).
        The result does not depend on it.

    Returns
    -------
    AggregationDesign
        Theta_i, ``Q_i = Sigma_i - A_i Sigma_i A_i^T`` (which recovers the equality (32)),
        Sigma_i, kappa_i, costs, J and the largest relative constraint violation.

    Raises
    ------
    ValueError
        On shape mismatches, an unstable ``A_i``, a non-positive ``c``, an invalid
        ``Sigma_lower``, ``delta_i`` outside (0, 1), ``epsilon_i`` below (9), a zero
        ``C_i``, a non-positive number of processes, or both ``runner`` and
        ``processes``.
    TypeError
        On an argument of the wrong type (a bool or a string where a number is expected,
        a non-bool ``progress``, a ``runner`` that is not a Runner).
    RuntimeError
        If an agent's SDP does not solve to optimality or its answer violates a constraint
        by more than ``SDP_RTOL`` (relative).

    Notes
    -----
    [LKC] SDP (35) with (33); both conventions in :doc:`/theory/aggregation`. One
    DPP-parametrised cvxpy problem per task, re-solved for each agent with Clarabel.

    When ``q < m`` the optimum of (35) is not unique: Theta_i is free, upward, in the
    null space of L_i, and the optimal set is unbounded, which stalls the interior-point
    solver. The objective therefore carries the tie-break
    ``TIE_BREAK * tr(L_i^T L_i) / m * tr(Theta_i)``, which selects the least noise. It can
    raise each ``cost`` above the optimum of (35) by at most that term evaluated at the
    least-trace optimal Theta_i. ``cost`` and ``J`` are reported without it.
    """
    c = positive(c, "c")
    progress = flag(progress, "progress")
    processes = None if processes is None else positive_int(processes, "processes")
    agents = _agents(
        A, C, L, epsilon, delta, **({} if Sigma_lower is None else {"Sigma_lower": Sigma_lower})
    )
    N, n = agents["A"].shape[:2]
    schur_stable(agents["A"])
    lower = np.zeros((N, n, n)) if Sigma_lower is None else agents["Sigma_lower"]
    lower = covariance_stack(lower, "Sigma_lower", n, definite=False)
    ranks = np.linalg.matrix_rank(agents["C"])
    if np.any(ranks == 0):
        raise ValueError(
            f"C is zero (agent {np.flatnonzero(ranks == 0)[0]}): l (the rank of Sigma_XY) must be "
            "a positive integer; a release independent of X needs no noise"
        )
    target = design_epsilon(agents["epsilon"], agents["delta"], ranks, convention)
    k = np.atleast_1d(kappa(target, agents["delta"], n, ranks, convention))
    W = np.sqrt(k / (1.0 - k))[:, None, None] * agents["C"]
    M = np.einsum("nqi,nqj->nij", agents["L"], agents["L"])
    m = M.shape[-1]
    M = M + TIE_BREAK * (np.trace(M, axis1=1, axis2=2) / m)[:, None, None] * np.eye(m)
    arrays = [np.ascontiguousarray(a) for a in (agents["A"], W, M, lower)]
    Sigma, Theta, worst = _run_chunks(arrays, c, _runner(N, runner, processes, progress))
    Theta = _certified(Theta, Sigma, agents, convention)
    Q = Sigma - agents["A"] @ Sigma @ np.swapaxes(agents["A"], -1, -2)
    cost = _costs(agents["L"], Theta)
    return AggregationDesign(
        Theta=Theta,
        Q=0.5 * (Q + np.swapaxes(Q, -1, -2)),
        Sigma_XX=Sigma,
        kappa=k,
        cost=cost,
        J=float(np.sum(cost)),
        convention=convention,
        max_violation=worst,
        **_privacy(agents),
    )
