"""Importance-sampling check of the Laplace evidence of a nonlinear release.

:func:`~ssa_privacy.attacks.nonlinear_leakage.nonlinear_pml` approximates ``log p(y)``
of ``Y = g(X) + V`` by the Laplace approximation at the MAP. :func:`importance_log_evidence`
estimates it by importance sampling from the Laplace Gaussian with an inflated covariance,
or a multivariate t, optionally mixed with the prior (defensive importance sampling),
and reports the effective sample size.

References
----------
- [O] A. B. Owen, Monte Carlo theory, methods and examples, 2013, §9.1, §9.3, §9.11.
- [H] T. Hesterberg, "Weighted average importance sampling and defensive mixture
  distributions", Technometrics 37(2), 1995.
"""

import numpy as np
from scipy import special

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import as_finite_array, positive, positive_int
from ssa_privacy.attacks.nonlinear_leakage import _checked_values, _log_normalizer, _whiten

__all__ = ["importance_log_evidence"]


def importance_log_evidence(
    g_batch,
    y,
    noise_covariance,
    Sigma_XX,
    mean,
    covariance,
    draws,
    seed,
    *,
    inflation=1.5,
    df=None,
    prior_share=0.0,
):
    """``log p(y)`` of ``Y = g(X) + V`` by importance sampling, to check the Laplace value.

    Parameters
    ----------
    g_batch : callable
        ``g_batch(X)``, X (N, n) -> (N, M), as
        :func:`~ssa_privacy.attacks.nonlinear_leakage.nonlinear_pml`.
    y : array_like, shape (M,)
        One outcome.
    noise_covariance : array_like, shape (M, M)
        S, positive definite.
    Sigma_XX : array_like, shape (n, n)
        The prior covariance of X, positive definite.
    mean : array_like, shape (n,)
        Centre of the proposal (the MAP, :attr:`LeakageEstimate.x_map`).
    covariance : array_like, shape (n, n)
        The Laplace covariance (:attr:`LeakageEstimate.laplace_covariance`); the
        proposal's scale matrix is ``inflation^2`` times it.
    draws : int
        Number of proposal draws (each one evaluation of g).
    seed : int, SeedSequence or Generator
        Randomness.
    inflation : float, optional
        Scale of the proposal relative to the Laplace fit (default 1.5).
    df : float, optional
        Degrees of freedom of a multivariate t proposal; default a Gaussian.
    prior_share : float, optional
        Share in [0, 1) of the draws taken from the prior (a defensive mixture, Hesterberg
        1995, which keeps the weights bounded and reaches modes away from the MAP);
        default 0.

    Returns
    -------
    log_evidence : float
        ``log (1/N) sum_j p(y | x_j) N(x_j; 0, Sigma_XX) / q(x_j)``.
    effective_samples : float
        Kish's effective sample size ``(sum w)^2 / sum w^2`` of the weights.

    Raises
    ------
    ValueError
        On covariances that are not positive definite, wrong shapes, a non-positive
        inflation or df, or g returning wrong shapes or non-finite values.
    TypeError, ValueError
        If ``draws`` is not a positive integer.
    TypeError
        If ``g_batch`` is not callable.

    Notes
    -----
    [O] §9.1 (importance sampling) and §9.3 (effective sample size); the t proposal has
    heavier tails than the target, the prior share bounds the weights [H].
    """
    L_X = pd_cholesky(Sigma_XX, "Sigma_XX")
    n = len(L_X)
    L_S = pd_cholesky(noise_covariance, "noise_covariance")
    y = as_finite_array(y, "y", ndim=1)
    mean = as_finite_array(mean, "mean", ndim=1)
    if y.shape != (len(L_S),) or mean.shape != (n,):
        raise ValueError(f"y must have shape ({len(L_S)},) and mean ({n},)")
    K = positive(inflation, "inflation") * pd_cholesky(covariance, "covariance", n)
    df = None if df is None else positive(df, "df")
    rng = random_generator(seed)
    draws = positive_int(draws, "draws")
    share = float(as_finite_array(prior_share, "prior_share", ndim=0))
    if not 0.0 <= share < 1.0:
        raise ValueError(f"prior_share must lie in [0, 1), got {prior_share}")
    z = rng.standard_normal((draws, n))
    if df is not None:
        z = z / np.sqrt(rng.chisquare(df, draws) / df)[:, None]
    from_prior = rng.random(draws) < share
    x = np.where(from_prior[:, None], z @ L_X.T, mean + z @ K.T)
    log_q = _log_proposal(_whiten(K, x - mean), df) - np.sum(np.log(np.diag(K)))
    log_prior = -0.5 * np.sum(_whiten(L_X, x) ** 2, 1) - _log_normalizer(L_X)
    if share > 0:
        log_q = np.logaddexp(np.log1p(-share) + log_q, np.log(share) + log_prior)
    e = _whiten(L_S, y - _checked_values(g_batch, x, len(L_S)))
    log_w = -0.5 * np.sum(e**2, 1) - _log_normalizer(L_S) + log_prior - log_q
    weights = np.exp(log_w - log_w.max())
    ess = float(weights.sum() ** 2 / np.sum(weights**2))
    return float(special.logsumexp(log_w) - np.log(len(log_w))), ess


def _log_proposal(z, df):
    """Log density of the standardised Gaussian (df None) or multivariate t at rows z."""
    n = z.shape[1]
    if df is None:
        return -0.5 * np.sum(z**2, 1) - 0.5 * n * np.log(2 * np.pi)
    return (
        special.gammaln((df + n) / 2)
        - special.gammaln(df / 2)
        - 0.5 * n * np.log(df * np.pi)
        - 0.5 * (df + n) * np.log1p(np.sum(z**2, 1) / df)
    )
