"""Sample paths of the GP with the exponential kernel in one dimension [MAC §2].

:func:`ou_prior_paths` draws exact paths of the prior ``GP(0, exp(-|x - x'| / l))`` by the
Ornstein-Uhlenbeck recursion (the excursion study draws its targets this way). The
private helpers compute the posterior on a grid and draw posterior paths, by a Cholesky
factor or by Matheron's rule: the samplers of
:class:`~ssa_privacy.privacy.posterior_sampling.mechanism.PosteriorSamplingMechanism`,
which releases them with a certificate. The theory is in :doc:`/theory/posterior-sampling`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import as_finite_array, nonempty, positive, positive_int
from ssa_privacy.gp.kernels import Exponential, as_inputs
from ssa_privacy.gp.regression import cholesky_with_jitter, noise_matrix

__all__ = [
    "ou_prior_paths",
]


@dataclass(frozen=True)
class _GridPosterior:
    """The unit-scale posterior of ``GP(0, exp(-|x - x'| / l))`` with noise ``r^2`` on a grid.

    Computed as :class:`~ssa_privacy.gp.regression.GaussianProcess` computes it, so that
    the mean and the variances equal its ``predict`` bit for bit: ``L`` the Cholesky
    factor of ``K_XX + r^2 I`` (jitter only if needed), ``B = L^{-1} K_Xg``, covariance
    ``K_gg - B^T B`` with the variances ``diag(K_gg) - sum_i B_i^2`` (clipped at 0).
    """

    factor: np.ndarray
    cross: np.ndarray
    prior: np.ndarray
    covariance: np.ndarray

    def mean(self, y):
        """The posterior mean ``K_gX (K_XX + r^2 I)^{-1} y`` on the grid, shape (m,)."""
        return self.cross @ linalg.cho_solve((self.factor, True), y, check_finite=False)

    def weights(self):
        """``C = K_gX (K_XX + r^2 I)^{-1}``, shape (m, n): Matheron's update."""
        return linalg.cho_solve((self.factor, True), self.cross.T, check_finite=False).T


def _cholesky(matrix, name):
    """The lower Cholesky factor of a symmetric matrix built here: the factor of
    :func:`~ssa_privacy.gp.regression.cholesky_with_jitter` (its jitter only when the
    plain factorisation fails, so the same factor), without its checks."""
    try:
        return np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        return cholesky_with_jitter(matrix, name)[0]


def _grid_posterior(X, grid, lengthscale, ridge):
    """The :class:`_GridPosterior` of inputs X on a grid (arguments trusted)."""
    kernel = Exponential(lengthscale)
    X_in, grid_in = as_inputs(X), as_inputs(grid)
    L = _cholesky(kernel(X_in) + noise_matrix(ridge**2, len(X_in)), "K_XX + noise")
    cross, prior = kernel(grid_in, X_in), kernel(grid_in)
    B = linalg.solve_triangular(L, cross.T, lower=True, check_finite=False)
    covariance = prior - B.T @ B
    covariance = 0.5 * (covariance + covariance.T)
    np.fill_diagonal(covariance, np.maximum(np.diag(prior) - np.sum(B * B, axis=0), 0.0))
    return _GridPosterior(L, cross, prior, covariance)


def ou_prior_paths(points, lengthscale, size, rng):
    """Exact draws of ``GP(0, exp(-|x - x'| / l))`` at 1-D points (Ornstein-Uhlenbeck).

    Along the sorted points ``f_i = rho_i f_{i-1} + sqrt(1 - rho_i^2) z_i`` with
    ``rho_i = exp(-(x_i - x_{i-1}) / l)``: exact, in O(n) per path.

    Parameters
    ----------
    points : array_like, shape (n,)
        Input locations (any order; repeated points get equal values).
    lengthscale : float
        l > 0.
    size : int
        Number of paths.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray, shape (size, n)
        Paths, in the order of ``points``.

    Raises
    ------
    TypeError
        On arguments of the wrong type (a bool, a string, an rng that is not a
        Generator or a seed).
    ValueError
        If points is empty or not finite, lengthscale is not positive or size is not a
        positive integer.

    Notes
    -----
    The Markov property of the exponential kernel in one dimension; the excursion
    study draws its targets and prior paths this way (:doc:`/theory/posterior-sampling`).
    """
    points = nonempty(as_finite_array(points, "points", ndim=1), "points")
    l = positive(lengthscale, "lengthscale")
    size = positive_int(size, "size")
    rng = random_generator(rng, "rng")
    order = np.argsort(points, kind="stable")
    rho = np.exp(-np.diff(points[order]) / l)
    innovation = np.sqrt(1.0 - rho**2)
    z = rng.standard_normal((size, len(points)))
    paths = np.empty_like(z)
    paths[:, 0] = z[:, 0]
    for i in range(1, len(points)):
        paths[:, i] = rho[i - 1] * paths[:, i - 1] + innovation[i - 1] * z[:, i]
    result = np.empty_like(paths)
    result[:, order] = paths
    return result


def _matheron_paths(mean, weights, grid, X, *, lengthscale, ridge, sigma, eta, size, rng):
    """``size`` posterior paths on the grid by Matheron's rule [MAC §2], shape (size, m).

    With a joint prior draw ``f0`` on grid and inputs (exact OU recursion) and ``e0 ~
    N(0, r^2 I)``, ``mean + sigma (f0_grid - C (f0_X + e0))`` has the law ``N(mean,
    sigma^2 k_D)`` on the grid (``C`` = ``weights``); for ``eta > 0`` an independent prior
    path ``eta G`` is added (Proposition 2). The draws: the prior paths ``(size, m + n)``,
    then the noise ``(size, n)``, then (``eta > 0``) the added prior paths ``(size, m)``.
    The arguments are trusted (validated by the caller).
    """
    prior = ou_prior_paths(np.concatenate([grid, X]), lengthscale, size, rng)
    noise = ridge * rng.standard_normal((size, len(X)))
    centred = prior[:, : len(grid)] - (prior[:, len(grid) :] + noise) @ weights.T
    released = mean + sigma * centred
    if eta > 0:
        released += eta * ou_prior_paths(grid, lengthscale, size, rng)
    return released


def _cholesky_paths(mean, factors, *, sigma, eta, size, rng):
    """``size`` paths ``mean + sigma L_P z (+ eta L_K z')`` on the grid, shape (size, m).

    ``factors`` are the lower Cholesky factors ``(L_P, L_K)`` of the unit posterior and
    prior covariances (``L_K`` None when ``eta = 0``). The draws: ``z`` (size, m), then
    (``eta > 0``) ``z'`` (size, m). The arguments are trusted (validated by the caller).
    """
    posterior, prior = factors
    released = mean + rng.standard_normal((size, len(mean))) @ (sigma * posterior).T
    if eta > 0:
        released += rng.standard_normal((size, len(mean))) @ (eta * prior).T
    return released
