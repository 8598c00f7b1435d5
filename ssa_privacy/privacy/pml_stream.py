"""PML of a whole stream of linear Gaussian releases, and noise designed for the stream.

A station that privatizes each linearised measurement of a satellite on its own
(:func:`~ssa_privacy.privacy.pml_design.linear_mechanism_noise`) guarantees (epsilon,
delta) per measurement. An adversary who collects a pass, or a day of passes from
several stations, holds the stacked release

    y_k = C_k x0 + v_k,  v_k ~ N(0, Theta_k) independent,  k = 1..N,

of the private x0 ~ N(0, Sigma_XX) (for a satellite, the manoeuvre deviation at the start
of the window, seen through ``C_k = H_k Phi(t_k, t0)``). Stacked, it is one linear
Gaussian mechanism, and its PML has the closed form of [LKC] Theorem 3.3 in the
canonical correlations rho_i of (X, Y). Those depend on the stack only through the Fisher
information ``J = sum_k C_k^T Theta_k^{-1} C_k`` (n x n): with ``Sigma_XX = L L^T`` and
``lambda_i`` the eigenvalues of ``L^T J L``,

    rho_i^2 = lambda_i / (1 + lambda_i),   I(X; Y) = sum_i log(1 + lambda_i) / 2,

so a day of thousands of measurements costs N small solves, never a stacked covariance.
The theory, the designs and their limits: :doc:`/theory/pml-stream`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize, stats

from ssa_privacy._validation import as_finite_array, pd_cholesky
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.pml_leakage import (
    CORRELATION_TOL,
    _unit_interval,
    _weight,
    minimum_epsilon,
)


def _blocks(C, Theta):
    """Validated stacks ``C`` (N, m, n) and ``Theta`` (N, m, m), and their Cholesky factors."""
    C = as_finite_array(C, "C")
    Theta = as_finite_array(Theta, "Theta")
    if C.ndim != 3 or Theta.ndim != 3 or Theta.shape != C.shape[:2] + (C.shape[1],):
        raise ValueError(
            f"C must have shape (N, m, n) and Theta (N, m, m) with the same N and m, got "
            f"{C.shape} and {Theta.shape}"
        )
    if len(C) == 0:
        raise ValueError("the stream must hold at least one release (N >= 1)")
    asymmetry = np.abs(Theta - np.swapaxes(Theta, 1, 2)).max(axis=(1, 2))
    scale = np.abs(Theta).max(axis=(1, 2))
    bad = np.flatnonzero(asymmetry > 1e-10 * np.maximum(scale, np.finfo(float).tiny))
    if bad.size:
        raise ValueError(f"Theta[{bad[0]}] is not symmetric")
    try:
        factors = np.linalg.cholesky(0.5 * (Theta + np.swapaxes(Theta, 1, 2)))
    except np.linalg.LinAlgError:
        first = next(k for k, block in enumerate(Theta) if not _is_pd(block))
        raise ValueError(f"Theta[{first}] is not positive definite") from None
    return C, factors


def _is_pd(block):
    try:
        np.linalg.cholesky(0.5 * (block + block.T))
    except np.linalg.LinAlgError:
        return False
    return True


def stream_information(C, Theta):
    """Fisher information ``J = sum_k C_k^T Theta_k^{-1} C_k`` of a stream of releases.

    Parameters
    ----------
    C : array_like, shape (N, m, n)
        Measurement maps of the private x0 (release units per unit of x0).
    Theta : array_like, shape (N, m, m)
        Noise covariances of the releases (release units squared), symmetric positive
        definite.

    Returns
    -------
    ndarray, shape (n, n)
        J, symmetric positive semi-definite (inverse units of x0 squared).

    Raises
    ------
    ValueError
        On wrong shapes, non-finite values, an empty stream, or a Theta_k that is not
        symmetric positive definite (the message gives k).

    Notes
    -----
    Each term is ``W_k^T W_k`` with ``W_k = L_k^{-1} C_k`` and ``Theta_k = L_k L_k^T``
    (batched Cholesky factorisations and solves, no inverse); [LKC] §3 for the linear
    Gaussian mechanism.
    """
    C, factors = _blocks(C, Theta)
    W = np.linalg.solve(factors, C)  # L_k^{-1} C_k, batched
    J = np.einsum("kmi,kmj->ij", W, W)
    return 0.5 * (J + J.T)


def canonical_eigenvalues(Sigma_XX, J):
    """Eigenvalues ``lambda_i`` of ``L^T J L`` (``Sigma_XX = L L^T``), descending.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    J : array_like, shape (n, n)
        Fisher information of the stream (:func:`stream_information`).

    Returns
    -------
    ndarray, shape (n,)
        ``lambda_i >= 0``; the canonical correlations are ``sqrt(lambda / (1 + lambda))``.

    Raises
    ------
    ValueError
        On wrong shapes, non-finite values or a Sigma_XX that is not positive definite.
    """
    L = pd_cholesky(Sigma_XX, "Sigma_XX")
    J = as_finite_array(J, "J", ndim=2)
    if J.shape != L.shape:
        raise ValueError(f"J must have shape {L.shape}, got {J.shape}")
    M = L.T @ J @ L
    return np.clip(linalg.eigvalsh(0.5 * (M + M.T))[::-1], 0.0, None)


def _rank(lam):
    """l: the canonical eigenvalues above the round-off of J (descending ``lam``).

    A canonical correlation counts when it exceeds ``CORRELATION_TOL`` (as in
    :mod:`~ssa_privacy.privacy.pml_leakage`) and its eigenvalue exceeds ``64 n u
    lambda_max``, below which the accumulated J cannot tell it from zero.
    """
    floor = max(CORRELATION_TOL**2, 64 * len(lam) * np.finfo(float).eps * float(lam[0]))
    return int(np.sum(lam > floor))


@dataclass(frozen=True)
class StreamLeakage:
    """The PML of a stream of releases about x0.

    Parameters
    ----------
    information : float
        ``I(X; Y)`` of the whole stream, nats.
    rank : int
        l, the number of canonical correlations above ``CORRELATION_TOL``.
    epsilon : float
        The smallest epsilon for which the stream is (epsilon, delta)-PML private at the
        ``delta`` given: ``w I + F^{-1}_{chi^2_l}(1 - delta) / 2`` (0 when l = 0).
    delta : float
        The failure probability.
    convention : str
        ``"exact"`` (w = 1) or ``"paper"`` (w = 2).
    """

    information: float
    rank: int
    epsilon: float
    delta: float
    convention: str


def stream_leakage(Sigma_XX, J, delta, convention="exact"):
    """The achieved epsilon of a stream with Fisher information J, at a given delta.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    J : array_like, shape (n, n)
        Fisher information of the stream (:func:`stream_information`; add the J of
        several streams to merge them: passes into a day, stations into a network).
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}
        Which leakage formula (:mod:`~ssa_privacy.privacy.pml_leakage`).

    Returns
    -------
    StreamLeakage
        Mutual information, l and the achieved epsilon (nats).

    Raises
    ------
    ValueError
        As :func:`canonical_eigenvalues`, or ``delta`` outside (0, 1), or an unknown
        convention.

    Notes
    -----
    [LKC] Theorem 3.3, condition (8), with ``I = sum log(1 + lambda_i) / 2`` (module
    docstring); equal to ``-pml_margin(..., epsilon=0, ...)`` of the stacked mechanism.
    """
    weight = _weight(convention)
    delta = float(_unit_interval(delta, "delta"))
    lam = canonical_eigenvalues(Sigma_XX, J)
    rank = _rank(lam)
    information = 0.5 * float(np.sum(np.log1p(lam[:rank])))
    epsilon = weight * information + (float(minimum_epsilon(delta, rank)) if rank else 0.0)
    return StreamLeakage(information, rank, epsilon, delta, convention)


def stream_leakage_probability(Sigma_XX, J, epsilon, convention="exact"):
    """``P_Y[l(X -> Y) <= epsilon]`` for the whole stream, in closed form.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    J : array_like, shape (n, n)
        Fisher information of the stream (:func:`stream_information`).
    epsilon : float
        Leakage level, nats.
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    float
        ``F_{chi^2_l}(2 (epsilon - w I))``; 1 for ``epsilon >= 0`` when nothing leaks.

    Raises
    ------
    ValueError
        As :func:`stream_leakage`, or a non-finite ``epsilon``.

    Notes
    -----
    [LKC] proof of Theorem 3.3 (the observation term is chi-square with l degrees of
    freedom), with I and l from the canonical eigenvalues.
    """
    weight = _weight(convention)
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    lam = canonical_eigenvalues(Sigma_XX, J)
    rank = _rank(lam)
    if rank == 0:
        return float(epsilon >= 0)
    information = 0.5 * float(np.sum(np.log1p(lam[:rank])))
    return float(stats.chi2.cdf(2.0 * (epsilon - weight * information), rank))


def stream_noise_scale(Sigma_XX, C, Theta, epsilon, delta, R=None, convention="exact"):
    """The factor c such that the stream with noises ``R_k + c Theta_k`` meets (epsilon, delta).

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    C : array_like, shape (N, m, n)
        Measurement maps of x0.
    Theta : array_like, shape (N, m, m)
        Privacy noise of each release to be scaled, e.g. today's per-measurement designs.
    epsilon : float
        The budget of the whole stream, nats; above the necessary condition (9) for the
        stream's rank.
    delta : float
        Failure probability in (0, 1).
    R : array_like, shape (N, m, m), optional
        Noise the adversary sees anyway (the sensor's), not scaled; default none.
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    float
        c > 0 with ``stream_leakage(...).epsilon`` equal to ``epsilon`` (to 1e-10 nats);
        c < 1 when the unscaled stream already meets the budget.

    Raises
    ------
    ValueError
        On invalid blocks (as :func:`stream_information`), ``delta`` outside (0, 1), or an
        infeasible budget: at or below ``F^{-1}_{chi^2_l}(1 - delta) / 2``, which no noise
        can reach (the message gives it).

    Notes
    -----
    The achieved epsilon decreases strictly in c (J decreases in the Loewner order), so
    the equation has one root, found by Brent's method on a bracket grown by factors of
    16. Without R, ``J(c) = J(1) / c`` and only the eigenvalues are rescaled.
    """
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    C, _ = _blocks(C, Theta)
    Theta = np.asarray(Theta, dtype=float)
    if R is not None:
        _blocks(C, R)  # validates R like Theta
        R = np.asarray(R, dtype=float)
    if R is None:
        lam = canonical_eigenvalues(Sigma_XX, stream_information(C, Theta))
        achieved = _epsilon_of_eigenvalues(lam, delta, convention)
    else:
        L = pd_cholesky(Sigma_XX, "Sigma_XX")
        achieved = _epsilon_with_sensor(L, C, Theta, R, delta, convention)
    floor = achieved(np.inf)
    if epsilon <= floor:
        raise ValueError(
            f"epsilon must exceed {floor:.6g} nats, the leakage of the stream however much "
            f"privacy noise is added (necessary condition (9) of [LKC]), got {epsilon:g}"
        )
    low, high = 1.0, 1.0
    while achieved(low) < epsilon:
        low /= 16.0
    while achieved(high) > epsilon:
        high *= 16.0
    return float(
        optimize.brentq(lambda c: achieved(c) - epsilon, low, high, xtol=1e-14, rtol=1e-13)
    )


def _epsilon_of_eigenvalues(lam, delta, convention):
    """epsilon(c) of a stream whose information scales as J / c."""
    weight, rank = _weight(convention), _rank(lam)
    floor = float(minimum_epsilon(_unit_interval(delta, "delta"), rank)) if rank else 0.0

    def achieved(c):
        return (
            floor if np.isinf(c) else weight * 0.5 * float(np.sum(np.log1p(lam[:rank] / c))) + floor
        )

    return achieved


def _epsilon_with_sensor(L, C, Theta, R, delta, convention):
    """epsilon(c) of the stream with noises ``R_k + c Theta_k`` (rank from c = 1)."""
    weight = _weight(convention)
    delta = float(_unit_interval(delta, "delta"))

    def lam(c):
        J = stream_information(C, R + c * Theta)
        M = L.T @ J @ L
        return np.clip(linalg.eigvalsh(0.5 * (M + M.T))[::-1], 0.0, None)

    reference = lam(1.0)
    rank = _rank(reference)
    floor = float(minimum_epsilon(delta, rank)) if rank else 0.0

    def achieved(c):
        if np.isinf(c):
            return floor
        return weight * 0.5 * float(np.sum(np.log1p(lam(c)[:rank]))) + floor

    return achieved


def stream_logdet_noise(Sigma_XX, C, epsilon, delta, convention="exact"):
    """The minimum-trace noise of the whole stacked stream, exact for a stream budget.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    C : array_like, shape (N, m, n)
        Measurement maps of x0; the stack ``[C_1; ...; C_N]`` (M = N m rows) must have
        rank n (the stream sees every direction of x0).
    epsilon, delta : float
        The budget of the whole stream (nats) and its failure probability.
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    FactoredCovariance
        ``Theta = Q Theta_r Q^T`` (M x M, release units squared) in factored form
        (eigenvectors of shape (M, r), r <= n), correlated across the stream's
        measurements; ``C = Q R`` is the thin QR factorisation of the stack. Its memory
        is O(M n), so a day of measurements fits.

    Raises
    ------
    ValueError
        On wrong shapes or non-finite values, a stack of rank below n (the message gives
        the rank), or as :func:`~ssa_privacy.privacy.pml_design.logdet_mechanism_noise`
        (infeasible budget).
    RuntimeError
        If Clarabel does not solve the design.

    Notes
    -----
    The stacked signal ``C x0`` lies in the n-dimensional range of Q, and ``z = Q^T y =
    R x0 + Q^T v`` is sufficient for x0. The log-det design of :doc:`/theory/pml` on the
    square, non-degenerate mechanism ``z = R x0 + w`` gives ``Theta_r``; noise outside the
    range of Q carries no information about x0 and would only add trace, so ``Q Theta_r
    Q^T`` is optimal among all noises of the stack. The release is ``y = C x0 + Q w``.
    """
    from ssa_privacy.privacy.pml_design import logdet_mechanism_noise

    C = as_finite_array(C, "C")
    if C.ndim != 3:
        raise ValueError(f"C must have shape (N, m, n), got {C.shape}")
    L = pd_cholesky(Sigma_XX, "Sigma_XX")
    stack = C.reshape(-1, C.shape[2])
    if stack.shape[1] != len(L):
        raise ValueError(
            f"C must have {len(L)} columns (the size of Sigma_XX), got {stack.shape[1]}"
        )
    Q, R = np.linalg.qr(stack)
    singular = linalg.svdvals(R)
    rank = int(np.sum(singular > singular[0] * len(stack) * np.finfo(float).eps))
    if rank < len(L):
        raise ValueError(
            f"the stacked C has rank {rank} < {len(L)}: the stream does not see every "
            "direction of x0; use stream_noise_scale"
        )
    Sigma_XX = L @ L.T
    Sigma_XZ = Sigma_XX @ R.T
    Theta_r = logdet_mechanism_noise(
        Sigma_XX, Sigma_XZ, R @ Sigma_XZ, epsilon, delta, convention=convention
    )
    reduced = FactoredCovariance.from_matrix(Theta_r, "Theta_r")
    return FactoredCovariance(reduced.eigenvalues, Q @ reduced.eigenvectors, "stream-logdet")
