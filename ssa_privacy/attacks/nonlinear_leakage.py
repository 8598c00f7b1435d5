"""The pointwise maximal leakage of a real, nonlinear release of a pass, by Monte Carlo.

A pass's privacy noise is designed for the linearised mechanism ``y = C x0 + F e``
(:class:`~ssa_privacy.privacy.pml.passes.PassMechanism`). The real release is

    Y = g(X) + V,    X ~ N(0, Sigma_XX),    V ~ N(0, S),

with ``g(x) = h(nominal + x)`` the J2 propagation of the deviated state to the pass's
times followed by the radar measurement, stacked over the pass (M = 4 K rows), and ``S =
blockdiag(R, ..., R) + F F^T`` (the sensor noise, which the adversary also sees, and the
privacy noise). Its PML at the outcome y is ([SGW] Definition 1 and Theorem 1, the
supremum over x of the likelihood ratio for a continuous X)

    l(y) = log sup_x p(y | x) - log p(y),    p(y) = E_X p(y | X).

:func:`nonlinear_pml` estimates ``P[l(Y) > epsilon]`` by Monte Carlo over Y with a
Clopper-Pearson interval: the supremum by batched Levenberg-Marquardt (maximum
likelihood, min-norm steps where the pass sees fewer than 6 directions), ``log p(y)`` by the Laplace
approximation at the maximum a posteriori (exact for a linear g), which
:func:`~ssa_privacy.attacks.nonlinear_evidence.importance_log_evidence` checks by
importance sampling. The same draws released
through the linearised map give the linear mechanism's leakage in closed form.
:func:`pass_measurement_model` builds g and its Jacobian for a radar pass;
:mod:`~ssa_privacy.attacks.nonlinear_restoration` adds the noise that covers the
remainder of g. Where the Levenberg-Marquardt search for the ML stops short of the
supremum (far along directions the pass barely sees), the estimated ``l(y)`` is a lower
bound of the leakage (up to the Laplace error), and ``ml_gain`` says by how much.

References
----------
- [SGW] S. Saeidian, G. Cervia, T. J. Oechtering, M. Skoglund, "Pointwise maximal
  leakage", IEEE Trans. Inf. Theory 69(12), 2023.
- [LKC] The linear Gaussian PML closed form (:mod:`~ssa_privacy.privacy.pml.stream`).
- [NW] J. Nocedal, S. J. Wright, Numerical Optimization, 2nd ed., Springer 2006, §10.3
  (Gauss-Newton).
- [T] L. Tierney, J. B. Kadane, "Accurate approximations for posterior moments and
  marginal densities", JASA 81(393), 1986 (Laplace approximation).
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, stats

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    nonempty,
    positive_int,
    unit_interval,
)
from ssa_privacy.estimation.ekf import FILTER_TOLERANCE

__all__ = [
    "LeakageEstimate",
    "linear_leakage",
    "nonlinear_pml",
    "pass_measurement_model",
]

#: Singular values of a whitened Jacobian below this fraction of the largest count as
#: unseen directions (min-norm Gauss-Newton steps).
RANK_RTOL = 1e-10

#: The default longest Levenberg-Marquardt step, in prior standard deviations (keeps the
#: trial orbits bound; the ML of a weakly seen direction lies tens of them away).
MAX_STEP = 50.0


@dataclass(frozen=True)
class LeakageEstimate:
    """Monte Carlo estimate of the PML exceedance of a nonlinear release.

    Parameters
    ----------
    exceedance : float
        The fraction of the sampled outcomes with ``l(y) > epsilon``.
    interval : tuple of float
        Its Clopper-Pearson interval at ``confidence``.
    confidence : float
        The interval's confidence level.
    samples : int
        The number of outcomes.
    epsilon : float
        The level, nats.
    linear_exceedance : float
        The same fraction for the linearised release ``g(0) + C x + v`` of the same draws.
    linear_interval : tuple of float
        Its Clopper-Pearson interval.
    leakage, linear_leakage : ndarray, shape (samples,)
        ``l(y)`` of each outcome (nats), nonlinear (Laplace) and linear (closed form).
    log_evidence : ndarray, shape (samples,)
        The Laplace approximation of ``log p(y)`` of each outcome (log density in
        release units).
    outcomes : ndarray, shape (samples, M)
        The sampled outcomes y.
    x_true, x_ml, x_map : ndarray, shape (samples, 6)
        The generating x0, the maximum likelihood and the maximum a posteriori estimates.
    laplace_covariance : ndarray, shape (samples, 6, 6)
        ``(G^T S^-1 G + Sigma_XX^-1)^-1`` at the MAP.
    max_map_step, max_ml_step : float
        The largest norm of the Gauss-Newton step the final MAP and ML estimates would
        still take, in prior standard deviations (``||L^-1 dx||``, ``Sigma_XX = L L^T``).
    max_gradient : float
        The largest norm of the final gradient ``L^T A^T e`` of the ML problem in the
        prior's whitened coordinates (``A = L_S^-1 G``, ``e`` the whitened residual).
    ml_gain : ndarray, shape (samples,)
        The increase of ``log p(y | x)`` that step predicts (nats, first order): the
        leakage of an outcome whose ML is not reached is underestimated by about this.
    """

    exceedance: float
    interval: tuple
    confidence: float
    samples: int
    epsilon: float
    linear_exceedance: float
    linear_interval: tuple
    leakage: np.ndarray
    linear_leakage: np.ndarray
    log_evidence: np.ndarray
    outcomes: np.ndarray
    x_true: np.ndarray
    x_ml: np.ndarray
    x_map: np.ndarray
    laplace_covariance: np.ndarray
    max_map_step: float
    max_ml_step: float
    max_gradient: float
    ml_gain: np.ndarray


def pass_measurement_model(
    propagator, earth, station, times, nominal_state0, indices, tolerance=FILTER_TOLERANCE
):
    """The nonlinear measurement map of x0 over one pass, and its Jacobian, batched.

    Parameters
    ----------
    propagator : J2Propagator
        The dynamics (:class:`~ssa_privacy.orbits.propagator.J2Propagator`).
    earth : EarthRotation
        The Earth's orientation.
    station : GroundStation
        The radar of the pass.
    times : array_like, shape (m,)
        The window's time grid (s); x0 is the deviation at ``times[0]``.
    nominal_state0 : array_like, shape (6,)
        The nominal ECI state at ``times[0]`` (km, km/s).
    indices : array_like of int, shape (K,)
        The pass's grid indices (:attr:`~ssa_privacy.sensors.streams.Pass.indices`).
    tolerance : float, optional
        rtol and atol of the integration (default the filter's, 1e-9).

    Returns
    -------
    g_batch : callable
        ``g_batch(X)``, X (N, 6) deviations (km, km/s) -> (N, 4 K): the measurements
        (azimuth, elevation, range, range rate; rad, rad, km, km/s) of ``nominal + x``,
        measurement after measurement, the azimuth unwrapped about the nominal's.
    jacobian_batch : callable
        ``jacobian_batch(X)`` -> ``(g (N, 4 K), G (N, 4 K, 6))``, ``G = H Phi`` at the
        deviated orbit (``Phi`` by central differences,
        :meth:`~ssa_privacy.orbits.propagator.J2Propagator.propagate_with_transition`).

    Raises
    ------
    ValueError
        If ``indices`` is empty or outside the grid, or ``nominal_state0`` not a finite
        6-vector; the callables raise as the propagator and the station.

    Notes
    -----
    At ``x = 0`` the Jacobian is the pass's map ``C_k = H_k Phi(t_k, t0)``
    (:func:`~ssa_privacy.sensors.streams.passes_of`). Vallado Algorithm 27 for h.
    """
    times = as_finite_array(times, "times", ndim=1)
    state0 = as_finite_array(nominal_state0, "nominal_state0", ndim=1)
    if state0.shape != (6,):
        raise ValueError(f"nominal_state0 must have shape (6,), got {state0.shape}")
    indices = np.asarray(indices)
    if indices.ndim != 1 or len(indices) == 0 or not np.issubdtype(indices.dtype, np.integer):
        raise ValueError(f"indices must be a non-empty 1-d integer array, got {indices!r}")
    if indices.min() < 0 or indices.max() >= len(times) or np.any(np.diff(indices) <= 0):
        raise ValueError(f"indices must increase within [0, {len(times)}), got {indices}")
    first = 0 if indices[0] == 0 else 1  # the pass's samples in the propagation grid
    grid = times[np.r_[0, indices]][1 - first :]
    pass_times = grid[first:]

    def measure(paths):
        z = station.measure(paths[:, first:], pass_times, earth)
        z[..., 0] = reference + np.angle(np.exp(1j * (z[..., 0] - reference)))
        return z.reshape(len(paths), -1)

    def states(X):
        X = as_finite_array(X, "X", ndim=2)
        if X.shape[1] != 6:
            raise ValueError(f"X must have shape (N, 6), got {X.shape}")
        return state0 + X

    def g_batch(X):
        paths = propagator.propagate_many(grid, states(X), rtol=tolerance, atol=tolerance)
        return measure(paths)

    def jacobian_batch(X):
        paths, Phi = propagator.propagate_with_transition(
            grid, states(X), rtol=tolerance, atol=tolerance
        )
        H = station.jacobian(
            paths[:, first:], np.broadcast_to(pass_times, (len(paths), len(pass_times))), earth
        )
        G = (H @ Phi[:, first:]).reshape(len(paths), -1, 6)
        return measure(paths), G

    nominal = propagator.propagate(grid, state0, rtol=tolerance, atol=tolerance)
    reference = station.measure(nominal[first:], pass_times, earth)[:, 0]
    return g_batch, jacobian_batch


def _whiten(factor, values):
    """``factor^-1 values`` over the last-but-one (G) or last (residual) axis, batched."""
    if values.ndim == 2:
        return linalg.solve_triangular(factor, values.T, lower=True).T
    N, M, n = values.shape
    flat = np.moveaxis(values, 1, 0).reshape(M, N * n)
    return np.moveaxis(linalg.solve_triangular(factor, flat, lower=True).reshape(M, N, n), 0, 1)


def _min_norm_steps(A, e):
    """Min-norm least-squares solutions of ``A_i d = e_i``, batched by SVD ([NW] §10.2)."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    keep = s > RANK_RTOL * s[:, :1]
    inverse = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    coefficients = np.einsum("nmk,nm->nk", U, e) * inverse
    return np.einsum("nkj,nk->nj", Vt, coefficients)


def _model_function(function, name):
    """``function`` after checking it is callable (a model of the release)."""
    if not callable(function):
        raise TypeError(f"{name} must be callable, got {type(function).__name__}")
    return function


def _checked_model(jacobian_batch, X, M):
    """``jacobian_batch(X)`` with its shapes and finiteness checked."""
    g, G = _model_function(jacobian_batch, "jacobian_batch")(X)
    g, G = np.asarray(g, dtype=float), np.asarray(G, dtype=float)
    if g.shape != (len(X), M) or G.shape != (len(X), M, X.shape[1]):
        raise ValueError(
            f"jacobian_batch must return shapes ({len(X)}, {M}) and ({len(X)}, {M}, "
            f"{X.shape[1]}), got {g.shape} and {G.shape}"
        )
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(G))):
        raise ValueError("jacobian_batch returned non-finite values")
    return g, G


def _checked_values(g_batch, X, M):
    """``g_batch(X)`` with its shape and finiteness checked."""
    g = np.asarray(_model_function(g_batch, "g_batch")(X), dtype=float)
    if g.shape != (len(X), M):
        raise ValueError(f"g_batch must return shape ({len(X)}, {M}), got {g.shape}")
    if not np.all(np.isfinite(g)):
        raise ValueError("g_batch returned non-finite values")
    return g


def _whitened_problem(jacobian_batch, Y, x, L_S, L_X):
    """Whitened residuals e (N, M), Jacobians A (N, M, n) and ``B = A L`` at x."""
    g, G = _checked_model(jacobian_batch, x, Y.shape[1])
    A = _whiten(L_S, G)
    return _whiten(L_S, Y - g), A, A @ L_X


def _cost(e, u, prior):
    """Half the squared whitened residual (plus the prior term for the MAP), per sample."""
    return 0.5 * np.sum(e**2, 1) + (0.5 * np.sum(u**2, 1) if prior else 0.0)


def _levenberg_marquardt(models, Y, x, factors, iterations, prior, max_step=MAX_STEP):
    """Batched Levenberg-Marquardt for ML (``prior=False``) or MAP ([NW] §10.3).

    In the prior's whitened coordinates ``u = L^-1 x`` each step solves ``[B; I; sqrt(mu)
    I] du = [e; -u; 0]`` (MAP) or ``[B; sqrt(mu) I] du = [e; 0]`` (ML), min-norm, capped
    at ``max_step``; a sample takes its step if its cost falls (mu / 10), else keeps
    x (mu * 10). Returns x, e and A at the final x, the norm of the Gauss-Newton step
    (mu = 0) it would take next and the decrease of the cost that step predicts.
    """
    (g_batch, jacobian_batch), (L_S, L_X) = models, factors
    N, n = x.shape
    mu = np.full(N, 1e-3 if prior else 1.0)
    identity = np.broadcast_to(np.eye(n), (N, n, n))
    for k in range(iterations + 1):
        e, A, B = _whitened_problem(jacobian_batch, Y, x, L_S, L_X)
        u = _whiten(L_X, x)
        rows, rhs = [B], [e]
        if prior:
            rows, rhs = [B, identity], [e, -u]
        du = _min_norm_steps(np.concatenate(rows, 1), np.concatenate(rhs, 1))
        if k == iterations:
            gain = _cost(e, u, prior) - _cost(e - np.einsum("nmk,nk->nm", B, du), u + du, prior)
            return x, e, A, np.linalg.norm(du, axis=1), gain
        damped = rows + [np.sqrt(mu)[:, None, None] * identity]
        du = _min_norm_steps(np.concatenate(damped, 1), np.concatenate([*rhs, 0 * u], 1))
        size = np.linalg.norm(du, axis=1)
        du = du * np.minimum(1.0, max_step / np.maximum(size, 1e-300))[:, None]
        trial = x + du @ L_X.T
        e_trial = _whiten(L_S, Y - _checked_values(g_batch, trial, Y.shape[1]))
        better = _cost(e_trial, u + du, prior) < _cost(e, u, prior)
        x = np.where(better[:, None], trial, x)
        mu = np.where(better, mu / 10.0, mu * 10.0)


def linear_leakage(B, z):
    """``l(y)`` of the linear Gaussian release, in closed form, for whitened outcomes.

    Parameters
    ----------
    B : array_like, shape (M, n)
        ``L_S^-1 C L``: the map whitened by the noise (``S = L_S L_S^T``) and the prior
        (``Sigma_XX = L L^T``).
    z : array_like, shape (N, M)
        Whitened outcomes ``L_S^-1 (y - g(0))``.

    Returns
    -------
    ndarray, shape (N,)
        ``sum_i [log(1 + lambda_i) + w_i^2 / (1 + lambda_i)] / 2`` over the directions
        seen (lambda_i > 0, the squared singular values of B; ``w = U^T z``), nats.

    Raises
    ------
    TypeError
        If B or z is not made of real numbers.
    ValueError
        If B is not a finite non-empty matrix, or z not a finite (N, M) array for its M.

    Notes
    -----
    ``log sup_x N(y; Cx, S) - log N(y; 0, C Sigma_XX C^T + S)``; under the prior ``2 (l -
    I)`` is chi-square with ``rank B`` degrees of freedom ([LKC] proof of Theorem 3.3).
    """
    B = nonempty(as_matrix(B, "B"), "B")
    z = as_matrix(z, "z", shape=(None, len(B)))
    U, s, _ = np.linalg.svd(B, full_matrices=False)
    lam = s**2
    seen = lam > RANK_RTOL * max(lam[0], 1.0)
    w = z @ U[:, seen]
    return 0.5 * (np.sum(np.log1p(lam[seen])) + np.sum(w**2 / (1.0 + lam[seen]), axis=1))


def _log_normalizer(factor):
    """``log det(2 pi S) / 2`` from the Cholesky factor of S."""
    return 0.5 * len(factor) * np.log(2 * np.pi) + np.sum(np.log(np.diag(factor)))


def _clopper_pearson(count, total, confidence):
    """The exact binomial interval (Clopper and Pearson 1934)."""
    ci = stats.binomtest(int(count), int(total)).proportion_ci(confidence, method="exact")
    return (float(ci.low), float(ci.high))


def nonlinear_pml(
    g_batch,
    jacobian_batch,
    Sigma_XX,
    noise_covariance,
    epsilon,
    samples,
    seed,
    *,
    confidence=0.95,
    iterations=3,
    ml_iterations=8,
    max_step=MAX_STEP,
):
    """Monte Carlo estimate of ``P[l(Y) > epsilon]`` for ``Y = g(X) + V`` (module docstring).

    Parameters
    ----------
    g_batch : callable
        ``g_batch(X)``, X (N, n) -> (N, M), the noise-free release (release units).
        It draws the outcomes ``Y = g(X) + V``.
    jacobian_batch : callable
        ``jacobian_batch(X)`` -> ``(g (N, M), G (N, M, n))``, g and its Jacobian.
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite (km^2, km^2/s, km^2/s^2).
    noise_covariance : array_like, shape (M, M)
        S, the covariance of V (sensor plus privacy noise), positive definite.
    epsilon : float
        The level, nats.
    samples : int
        Number of outcomes N.
    seed : int, SeedSequence or Generator
        Randomness (:func:`~ssa_privacy._internal.random.random_generator`).
    confidence : float, optional
        Confidence of the Clopper-Pearson intervals (default 0.95).
    iterations, ml_iterations : int, optional
        Levenberg-Marquardt steps of the MAP problem, started at the generating x
        (default 3), and of the ML problem, started at the MAP (default 8).
    max_step : float, optional
        The longest step, in prior standard deviations (default :data:`MAX_STEP`).

    Returns
    -------
    LeakageEstimate
        Exceedances, intervals, per-outcome leakages and the convergence diagnostics.

    Raises
    ------
    ValueError
        On a prior or noise covariance that is not positive definite, a non-finite
        epsilon, confidence outside (0, 1), or callables returning wrong shapes or
        non-finite values.
    TypeError, ValueError
        If ``samples`` or ``iterations`` is not a positive integer.
    TypeError
        If ``g_batch`` or ``jacobian_batch`` is not callable.

    Notes
    -----
    ``l(y) = -||e_ml||^2 / 2 + ||e_map||^2 / 2 + ||L^-1 x_map||^2 / 2 + log det(I + B^T
    B) / 2``, B the whitened Jacobian at the MAP times L: the Laplace approximation [T]
    of ``log p(y)`` with the ``log det(2 pi S)`` terms cancelled; exact for a linear g.
    """
    L_X = pd_cholesky(Sigma_XX, "Sigma_XX")
    n = len(L_X)
    L_S = pd_cholesky(noise_covariance, "noise_covariance")
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    samples, iterations = positive_int(samples, "samples"), positive_int(iterations, "iterations")
    ml_iterations = positive_int(ml_iterations, "ml_iterations")
    max_step = float(as_finite_array(max_step, "max_step", ndim=0))
    if max_step <= 0:
        raise ValueError(f"max_step must be positive, got {max_step}")
    confidence = float(unit_interval(confidence, "confidence"))
    rng = random_generator(seed)
    X = rng.standard_normal((samples, n)) @ L_X.T
    V = rng.standard_normal((samples, len(L_S))) @ L_S.T
    g0, C = _checked_model(jacobian_batch, np.zeros((1, n)), len(L_S))
    Y = _checked_values(g_batch, X, len(L_S)) + V
    models, factors = (g_batch, jacobian_batch), (L_S, L_X)
    x_map, e_map, A_map, step_map, _ = _levenberg_marquardt(
        models, Y, X, factors, iterations, True, max_step
    )
    x_ml, e_ml, A_ml, step_ml, gain = _levenberg_marquardt(
        models, Y, x_map, factors, ml_iterations, False, max_step
    )
    gradient = np.linalg.norm(np.einsum("nmk,nm->nk", A_ml @ L_X, e_ml), axis=1)
    B = A_map @ L_X
    information = np.eye(n) + np.swapaxes(B, 1, 2) @ B
    logdet = 2.0 * np.sum(np.log(np.diagonal(np.linalg.cholesky(information), 0, 1, 2)), 1)
    u = _whiten(L_X, x_map)
    log_likelihood = -0.5 * np.sum(e_ml**2, 1) - _log_normalizer(L_S)
    log_evidence = -0.5 * (np.sum(e_map**2, 1) + np.sum(u**2, 1) + logdet) - _log_normalizer(L_S)
    leakage = log_likelihood - log_evidence
    covariance = L_X @ np.linalg.solve(information, np.broadcast_to(L_X.T, information.shape))
    linear = linear_leakage(_whiten(L_S, C)[0] @ L_X, _whiten(L_S, X @ C[0].T + V))
    count, linear_count = int(np.sum(leakage > epsilon)), int(np.sum(linear > epsilon))
    return LeakageEstimate(
        count / samples,
        _clopper_pearson(count, samples, confidence),
        confidence,
        samples,
        epsilon,
        linear_count / samples,
        _clopper_pearson(linear_count, samples, confidence),
        leakage,
        linear,
        log_evidence,
        Y,
        X,
        x_ml,
        x_map,
        0.5 * (covariance + np.swapaxes(covariance, 1, 2)),
        float(step_map.max()),
        float(step_ml.max()),
        float(gradient.max()),
        gain,
    )
