"""One place to call the Clarabel conic solver through cvxpy.

cvxpy 1.9 picks SCS for SDPs by default, whose answers are often not PSD; every SDP and
LMI of the package is solved here with Clarabel, and the status is checked.
"""

import warnings

import cvxpy as cp

__all__ = [
    "RETRY_SETTINGS",
    "solve_clarabel",
]

#: Changed settings of a second attempt when the first stops "almost solved" (a stall of
#: the interior-point steps that a slightly shorter step removes).
RETRY_SETTINGS = {"max_step_fraction": 0.95}


def solve_clarabel(problem, what, **settings):
    """Solve a cvxpy problem with Clarabel and ``settings``; retry once, adding
    ``RETRY_SETTINGS``, if the answer is only "optimal_inaccurate".

    Raises
    ------
    RuntimeError
        Naming ``what``, unless Clarabel reports an optimal solution.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Solution may be inaccurate")
        problem.solve(solver="CLARABEL", **settings)
        if problem.status == cp.OPTIMAL_INACCURATE:
            problem.solve(solver="CLARABEL", **settings, **RETRY_SETTINGS)
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"{what} did not solve: Clarabel status {problem.status!r}")
