"""Pointwise maximal leakage (PML) of Gaussian mechanisms, and noise design [LKC §2-3].

For jointly Gaussian ``X`` (n-dim, the private state) and ``Y`` (m-dim, the release)
the PML at an observation ``y`` is ``l(X -> y) = log ess sup_x f_{X|Y}(x|y) / f_X(x)``.
With ``Gamma = Sigma_XX - Sigma_XY Sigma_YY^{-1} Sigma_XY^T`` the posterior covariance
and ``l = rank(Sigma_XY)``::

    l(X -> y) = w * I(X; Y) + xi / 2,   I(X; Y) = (log det Sigma_XX - log det Gamma) / 2,

where ``xi ~ chi^2_l`` when ``Y`` is drawn from its distribution. The weight ``w``
depends on the convention:

``"exact"`` (default), ``w = 1``
    The PML as defined; confirmed by a numerical maximisation of the density ratio
    (SPEC §4).
``"paper"``, ``w = 2``
    [LKC] Theorem 3.2 as printed (its proof drops the 1/2 of the Gaussian density's
    normalisation). Its privacy condition (8), kappa (11), LMI (12) and Corollary 3.7
    are stricter than needed, hence still sufficient for the exact PML; use it to
    reproduce the paper's numbers.

Every (epsilon, delta) statement reduces to one inequality (Theorem 3.3, condition (8)):
the mechanism is (epsilon, delta)-PML private iff::

    log det Gamma - log det Sigma_XX >= (F^{-1}_{chi^2_l}(1 - delta) - 2 epsilon) / w,

the right side being :func:`log_det_ratio_bound` (``n log kappa`` in the paper's
notation). Leakages are in nats.

References
----------
[LKC] L. Liu, Y. Kawano, M. Cao, "Privacy protection under the exposure of systems'
prior information".
[BW18] B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising", ICML 2018.
"""

import cvxpy as cp
import numpy as np
from scipy import linalg

from ssa_privacy._solvers import solve_clarabel
from ssa_privacy._validation import (
    as_finite_array,
    as_matrix,
    covariance_stack,
    pd_cholesky,
    psd_matrix,
)
from ssa_privacy.privacy.accounting import (  # noqa: F401
    analytic_gaussian_delta,
    analytic_gaussian_ratio,
    dp_to_pml_epsilon,
    gaussian_mechanism_dp_delta,
    mi_to_pml_epsilon,
    pml_to_dp_delta,
    pml_to_mi_epsilon,
)
from ssa_privacy.privacy.pml_leakage import (  # noqa: F401
    CONVENTIONS,
    CORRELATION_TOL,
    MonteCarloProbability,
    _degrees,
    _unit_interval,
    _weight,
    check_epsilon,
    gaussian_mechanism,
    is_pml_private,
    kappa,
    leakage_probability,
    linear_mechanism_covariances,
    log_det_ratio_bound,
    minimum_epsilon,
    monte_carlo_leakage_probability,
    mutual_information,
    pml_margin,
    pointwise_maximal_leakage,
)

#: A designed mechanism must meet its privacy condition to this many nats.
DESIGN_ATOL = 1e-6
#: Clarabel tolerances of the noise designers (default 1e-8): tighter, so that a small
#: Theta next to a large Sigma_ZZ is still accurate to DESIGN_ATOL nats (one or two more
#: iterations).
SOLVER_SETTINGS = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}


def linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention="exact"):
    """Closed-form noise covariance of Corollary 3.7 for ``Y = C X + V``.

    Parameters
    ----------
    C : array_like, shape (m, n) or (..., m, n)
        Output matrix (or a stack, one per agent), of rank l >= 1.
    Sigma_XX : array_like, shape (n, n) or (..., n, n)
        Prior covariance of X, positive definite, broadcast against ``C``.
    epsilon : float or array_like
        Leakage bound(s), nats, above the necessary condition (9).
    delta : float or array_like
        Failure probability(ies) in (0, 1).
    convention : {"exact", "paper"}
        ``"paper"`` reproduces [LKC] (15); ``"exact"`` uses ``kappa_exact = kappa_paper^2``.

    Returns
    -------
    Theta : ndarray, shape (m, m) or (..., m, m)
        ``kappa / (1 - kappa) C Sigma_XX C^T``, the smallest Theta satisfying LMI (12)
        (units of ``C X`` squared).

    Raises
    ------
    ValueError
        On shape mismatches, non-finite values, a ``Sigma_XX`` not positive definite, a
        zero ``C``, ``delta`` outside (0, 1) or ``epsilon`` below condition (9) (the message
        names the smallest feasible epsilon).

    Notes
    -----
    [LKC] Corollary 3.7, (15) (and (33), (36) per agent); kappa from (11) with
    ``l = rank(C)``. Exact convention: SPEC §4.
    """
    Sigma = covariance_stack(Sigma_XX, "Sigma_XX")
    C = as_finite_array(C, "C")
    if C.ndim < 2 or C.shape[-1] != Sigma.shape[-1]:
        raise ValueError(f"C must have shape (..., m, {Sigma.shape[-1]}), got {C.shape}")
    k = np.asarray(kappa(epsilon, delta, Sigma.shape[-1], np.linalg.matrix_rank(C), convention))
    CSC = C @ Sigma @ np.swapaxes(C, -1, -2)
    Theta = (k / (1.0 - k))[..., None, None] * (0.5 * (CSC + np.swapaxes(CSC, -1, -2)))
    return Theta


def _design_problem(Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L, objective, convention):
    """Validated data, Theta variable and objective shared by the two designers.

    ``(X, Z)`` may be degenerate (``Z = C X`` in Corollary 3.7); only its joint covariance
    must be positive semi-definite and ``Sigma_XX`` positive definite.
    """
    L_X = pd_cholesky(Sigma_XX, "Sigma_XX")
    Sigma_XX = psd_matrix(Sigma_XX, "Sigma_XX")
    n = L_X.shape[0]
    Sigma_XZ = as_matrix(Sigma_XZ, "Sigma_XZ", (n, None))
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
    bound = log_det_ratio_bound(epsilon, delta, l, convention)
    L = np.eye(m) if L is None else as_matrix(L, "L", (None, m))
    Theta = cp.Variable((m, m), PSD=True)
    goal = cp.trace(L @ Theta @ L.T) if objective is None else objective(Theta)
    data = dict(Sigma_XX=Sigma_XX, Sigma_XZ=Sigma_XZ, Sigma_ZZ=Sigma_ZZ)
    return data, bound, n, Theta, cp.Minimize(goal)


def _solve_and_verify(problem, Theta, data, epsilon, delta, convention):
    solve_clarabel(problem, "the noise design", **SOLVER_SETTINGS)
    eigenvalues, vectors = np.linalg.eigh(0.5 * (Theta.value + Theta.value.T))
    Theta = (
        vectors * np.maximum(eigenvalues, 0.0)
    ) @ vectors.T  # PSD at solver precision; only adds noise
    margin = pml_margin(
        data["Sigma_XX"], data["Sigma_XZ"], data["Sigma_ZZ"] + Theta, epsilon, delta, convention
    )
    if margin < -DESIGN_ATOL:
        raise RuntimeError(
            f"the designed Theta misses the ({epsilon}, {delta})-PML condition "
            f"by {-margin:.3g} nats"
        )
    return Theta


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
        Covariance of Z, positive semi-definite. ``(X, Z)`` may be degenerate (e.g.
        ``Z = C X``, ``Sigma_XZ = Sigma_XX C^T``, ``Sigma_ZZ = C Sigma_XX C^T``); its joint
        covariance must be positive semi-definite.
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
        Symmetric PSD noise covariance; the mechanism is (epsilon, delta)-PML private in the
        chosen convention (verified after solving, to ``DESIGN_ATOL`` nats). Eigenvalues
        below zero at solver precision are set to zero, which only adds noise.

    Raises
    ------
    ValueError
        On invalid covariances, ``delta`` outside (0, 1), or ``epsilon`` below (9).
    RuntimeError
        If Clarabel does not report an optimal solution or the result fails verification.

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
        ``log det Gamma(Theta) - log det Sigma_XX >= log_det_ratio_bound`` (verified).

    Raises
    ------
    ValueError
        As :func:`lmi_mechanism_noise`.
    RuntimeError
        If Clarabel does not report an optimal solution or the result fails verification.

    Notes
    -----
    SPEC §4 (beyond [LKC]): ``log det Gamma(Theta)`` is concave, so with a variable G,
    ``[[Sigma_XX - G, Sigma_XZ], [Sigma_XZ^T, Sigma_ZZ + Theta]] >= 0`` (i.e.
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
