"""The cone designs of PML-private Gaussian mechanisms [LKC §3.2], solved by cvxpy.

The release is ``Y = Z + V``, ``V ~ N(0, Theta)``, of a signal ``Z`` jointly Gaussian
with the private ``X``. Two designs of Theta solve a conic program with Clarabel:

``"lmi"``
    [LKC] Theorem 3.6, LMI (12) (:func:`lmi_mechanism_noise`, any ``Sigma_XZ``).
``"logdet"``
    The exact condition of [LKC] Theorem 3.3 as a log-det cone
    (:func:`logdet_mechanism_noise`), beyond the paper: never more noise than the LMI.

Both are verified to ``DESIGN_ATOL`` nats: a solver's Theta that misses condition (8) by
more is scaled by the least tried ``1 + tau``, tau at most ``INFLATION_LIMIT`` (the same
repair as :meth:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism.certified`, which
then certifies them rigorously). The joint model ``(X, Z)`` they validate is shared with the closed form.
"""

import control
import cvxpy as cp
import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.solvers import solve_clarabel
from ssa_privacy._internal.validation import as_matrix, nonempty
from ssa_privacy.plants import LTIPlant
from ssa_privacy.privacy.accounting import design_epsilon, log_det_ratio_bound
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml.leakage import mutual_information, pml_margin

__all__ = [
    "DESIGN_ATOL",
    "INFLATION_LIMIT",
    "SOLVER_SETTINGS",
    "lmi_mechanism_noise",
    "logdet_mechanism_noise",
]

#: A cvxpy design must meet its privacy condition to this many nats (the solver's check;
#: :meth:`LinearGaussianMechanism.certified` then makes the rigorous certificate pass).
DESIGN_ATOL = 1e-6
#: Largest relative inflation ``tau`` of a designed Theta tried to make its privacy
#: condition hold (here) or its certificate pass (``LinearGaussianMechanism.certified``).
INFLATION_LIMIT = 1e-3
#: Clarabel tolerances of the noise designers (default 1e-8): tighter, so that a small
#: Theta next to a large Sigma_ZZ is still accurate to DESIGN_ATOL nats (one or two more
#: iterations).
SOLVER_SETTINGS = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


def _not_a_system(value, name):
    """Refuse a plant where a matrix is expected, pointing to the plant-level call."""
    if isinstance(value, LTIPlant | control.LTI):
        raise TypeError(
            f"{name} must be a matrix, got a {type(value).__name__}; to design the noise of a "
            "plant use design_noise(plant, epsilon, delta)"
        )


def _joint_model(C, Sigma_XX, Sigma_XZ, Sigma_ZZ):
    """Validated ``(C, Sigma_XX, Sigma_XZ, Sigma_ZZ, l)`` of ``Z = C X`` or of a general Z.

    ``(X, Z)`` may be degenerate (``Z = C X``); only its joint covariance must be positive
    semi-definite, ``Sigma_XX`` positive definite and ``l = rank(Sigma_XZ) >= 1``.
    """
    L_X = nonempty(pd_cholesky(Sigma_XX, "Sigma_XX"), "Sigma_XX")
    Sigma_XX = psd_matrix(Sigma_XX, "Sigma_XX")
    n = L_X.shape[0]
    if C is not None:
        _not_a_system(C, "C")
        if Sigma_XZ is not None or Sigma_ZZ is not None:
            raise ValueError("give either C (Z = C X) or Sigma_XZ and Sigma_ZZ, not both")
        C = nonempty(as_matrix(C, "C", (None, n)), "C")
        Sigma_XZ, Sigma_ZZ = Sigma_XX @ C.T, C @ Sigma_XX @ C.T
    elif Sigma_XZ is None or Sigma_ZZ is None:
        raise ValueError("give C (Z = C X), or both Sigma_XZ and Sigma_ZZ")
    Sigma_XZ = nonempty(as_matrix(Sigma_XZ, "Sigma_XZ", (n, None)), "Sigma_XZ")
    m = Sigma_XZ.shape[1]
    Sigma_ZZ = psd_matrix(Sigma_ZZ, "Sigma_ZZ", m)
    psd_matrix(
        np.block([[Sigma_XX, Sigma_XZ], [Sigma_XZ.T, Sigma_ZZ]]), "joint covariance of (X, Z)"
    )
    l = np.linalg.matrix_rank(linalg.solve_triangular(L_X, Sigma_XZ, lower=True))
    if l == 0:
        raise ValueError(
            "Sigma_XZ is zero: the release carries no information about X, no noise is needed"
        )
    return C, Sigma_XX, Sigma_XZ, Sigma_ZZ, int(l)


def _design_problem(Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L, objective, convention):
    """Validated data, Theta variable and objective shared by the two cvxpy designers."""
    _, Sigma_XX, Sigma_XZ, Sigma_ZZ, l = _joint_model(None, Sigma_XX, Sigma_XZ, Sigma_ZZ)
    n, m = Sigma_XZ.shape
    L = np.eye(m) if L is None else nonempty(as_matrix(L, "L", (None, m)), "L")
    if objective is not None and not callable(objective):
        raise TypeError(f"objective must be callable, got {type(objective).__name__}")
    Theta = cp.Variable((m, m), PSD=True)
    goal = cp.trace(L @ Theta @ L.T) if objective is None else objective(Theta)
    data = dict(Sigma_XX=Sigma_XX, Sigma_XZ=Sigma_XZ, Sigma_ZZ=Sigma_ZZ)
    target = design_epsilon(epsilon, delta, l, convention)
    bound = log_det_ratio_bound(target, delta, l, convention)
    return data, bound, n, Theta, cp.Minimize(goal)


def _least_inflation(passes, deficit, information, convention):
    """The least tried factor ``1 + tau`` on Theta at which ``passes(1 + tau)``, or None.

    Parameters
    ----------
    passes : callable
        ``passes(factor)`` is true when Theta scaled by ``factor`` (> 1) is private enough.
    deficit : float
        Nats by which Theta itself misses, > 0.
    information : float
        Mutual information ``I(X; Y)`` of Theta, nats.
    convention : {"exact", "paper"}
        The PML convention (its weight ``w`` of I).

    Returns
    -------
    float or None
        The first factor of ``1 + tau_0 2^k``, capped at ``1 + INFLATION_LIMIT`` (tried
        last), that passes; None when none does.

    Notes
    -----
    Scaling Theta by ``1 + tau`` lowers ``w I`` by at least ``w tau (1 - exp(-2 I)) / 2``
    to first order (``sum mu_i / (1 + mu_i) >= 1 - prod 1 / (1 + mu_i)`` over the
    eigenvalues ``mu_i`` of the signal-to-noise matrix), so ``tau_0`` is four times the
    deficit over that rate (at least 16 machine epsilons).
    """
    rate = convention_weight(convention) * -np.expm1(-2.0 * information) / 2
    tau = max(4.0 * deficit / max(rate, np.finfo(float).tiny), 16 * np.finfo(float).eps)
    while True:
        tau = min(tau, INFLATION_LIMIT)
        if passes(1.0 + tau):
            return 1.0 + tau
        if tau == INFLATION_LIMIT:
            return None
        tau *= 2.0


def _solve_and_verify(problem, Theta, data, epsilon, delta, convention):
    """Solve, clip Theta to PSD and repair a deficit of condition (8) above DESIGN_ATOL."""
    what = f"the noise design at epsilon = {epsilon!r} nats, delta = {delta!r}"
    solve_clarabel(problem, what, **SOLVER_SETTINGS)
    eigenvalues, vectors = np.linalg.eigh(0.5 * (Theta.value + Theta.value.T))
    # PSD at solver precision; clipping the negative eigenvalues only adds noise.
    Theta = (vectors * np.maximum(eigenvalues, 0.0)) @ vectors.T
    Sigma_XX, Sigma_XZ, Sigma_ZZ = data["Sigma_XX"], data["Sigma_XZ"], data["Sigma_ZZ"]

    def margin(factor):
        return pml_margin(Sigma_XX, Sigma_XZ, Sigma_ZZ + factor * Theta, epsilon, delta, convention)

    try:
        deficit = -margin(1.0) - DESIGN_ATOL
    except ValueError:  # a correlation at 1 in double precision: the certificate decides
        return Theta
    if deficit <= 0.0:
        return Theta
    information = mutual_information(Sigma_XX, Sigma_XZ, Sigma_ZZ + Theta)
    factor = _least_inflation(lambda f: margin(f) >= -DESIGN_ATOL, deficit, information, convention)
    if factor is None:
        raise RuntimeError(
            f"{what}: the solver's Theta misses the PML condition (8) by "
            f"{deficit + DESIGN_ATOL:.3g} nats, more than scaling it by 1 + INFLATION_LIMIT = "
            f"{1.0 + INFLATION_LIMIT:g} repairs"
        )
    return factor * Theta


def lmi_mechanism_noise(
    Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L=None, objective=None, convention="exact"
):
    """Noise covariance Theta of a Gaussian mechanism ``Y = Z + V`` from the LMI of Theorem 3.6.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of the private X, positive definite.
    Sigma_XZ : array_like, shape (n, m)
        Cross covariance of X and the signal Z.
    Sigma_ZZ : array_like, shape (m, m)
        Covariance of Z. ``(X, Z)`` may be degenerate (``Z = C X``: ``Sigma_XZ =
        Sigma_XX C^T``, ``Sigma_ZZ = C Sigma_XX C^T``); its joint covariance must be PSD.
    epsilon : float
        Leakage bound, nats, above the necessary condition (9).
    delta : float
        Failure probability in (0, 1).
    L : array_like, shape (q, m), optional
        Weight of the default objective ``min tr(L Theta L^T)`` (default identity).
    objective : callable, optional
        ``objective(Theta)`` returning a convex scalar cvxpy expression to minimise;
        replaces the default.
    convention : {"exact", "paper"}
        kappa of the exact PML (default) or of [LKC] (11).

    Returns
    -------
    Theta : ndarray, shape (m, m)
        PSD noise covariance; the mechanism is (epsilon, delta)-PML private in the chosen
        convention (verified to ``DESIGN_ATOL`` nats). Eigenvalues below zero at solver
        precision are set to zero, which only adds noise; a solver's Theta that misses
        condition (8) by more than ``DESIGN_ATOL`` is scaled by the least tried ``1 +
        tau``, ``tau <= INFLATION_LIMIT``, that meets it.

    Raises
    ------
    ValueError
        On invalid covariances, ``delta`` outside (0, 1) or ``epsilon`` below (9).
    RuntimeError
        If Clarabel does not report an optimal solution (the message names the status,
        epsilon and delta), or if no scaling by ``1 + tau <= 1 + INFLATION_LIMIT`` makes the
        result meet condition (8) to ``DESIGN_ATOL`` (the message names epsilon, delta and
        the deficit).

    Notes
    -----
    [LKC] Theorem 3.6, LMI (12):
    ``[[(1 - kappa) Sigma_XX, Sigma_XZ], [Sigma_XZ^T, Theta + Sigma_ZZ]] >= 0``, solved by
    cvxpy with Clarabel. A sufficient condition: :func:`logdet_mechanism_noise` is exact.
    """
    data, bound, n, Theta, goal = _design_problem(
        Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L, objective, convention
    )
    k = np.exp(bound / n)
    lmi = cp.bmat(
        [
            [(1.0 - k) * data["Sigma_XX"], data["Sigma_XZ"]],
            [data["Sigma_XZ"].T, Theta + data["Sigma_ZZ"]],
        ]
    )
    problem = cp.Problem(goal, [0.5 * (lmi + lmi.T) >> 0])
    return _solve_and_verify(problem, Theta, data, epsilon, delta, convention)


def logdet_mechanism_noise(
    Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L=None, objective=None, convention="exact"
):
    """Noise covariance Theta meeting the PML condition exactly, through a log-det cone.

    Parameters
    ----------
    Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L, objective, convention
        As :func:`lmi_mechanism_noise`.

    Returns
    -------
    Theta : ndarray, shape (m, m)
        Symmetric PSD noise covariance, optimal among all Theta with
        ``log det Gamma(Theta) - log det Sigma_XX >= log_det_ratio_bound`` to the solver's
        accuracy, verified and repaired as in :func:`lmi_mechanism_noise`.

    Raises
    ------
    ValueError
        As :func:`lmi_mechanism_noise`.
    RuntimeError
        As :func:`lmi_mechanism_noise`.

    Notes
    -----
    Beyond [LKC] (see :doc:`/theory/pml`): ``log det Gamma(Theta)`` is concave, so with a
    variable G, ``[[Sigma_XX - G, Sigma_XZ], [Sigma_XZ^T, Sigma_ZZ + Theta]] >= 0`` (i.e.
    ``G <= Gamma(Theta)``) and ``log det G >= log det Sigma_XX + bound`` describe exactly the
    private mechanisms of [LKC] Theorem 3.3. Never needs more noise than LMI (12).
    """
    data, bound, n, Theta, goal = _design_problem(
        Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L, objective, convention
    )
    G = cp.Variable((n, n), symmetric=True)
    block = cp.bmat(
        [[data["Sigma_XX"] - G, data["Sigma_XZ"]], [data["Sigma_XZ"].T, Theta + data["Sigma_ZZ"]]]
    )
    log_det_prior = np.linalg.slogdet(data["Sigma_XX"])[1]
    constraints = [0.5 * (block + block.T) >> 0, cp.log_det(G) >= log_det_prior + bound]
    return _solve_and_verify(cp.Problem(goal, constraints), Theta, data, epsilon, delta, convention)
