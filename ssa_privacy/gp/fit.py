"""Maximum-likelihood fits of a Gaussian process's hyperparameters.

The profile likelihood of a constant-mean GP ([TCB] §5.1): the constant mean beta and
the output variance sigma^2 in closed form for a fixed correlation
(:func:`constant_mean_variance_mle`, :func:`fit_mean_and_variance`), and the full type-II
maximum-likelihood fit of an ARD RBF kernel with a noise variance
(:func:`fit_hyperparameters`). The model and its posterior are in :mod:`ssa_privacy.gp.regression`,
from which these names stay importable.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize
from scipy.linalg import lapack

from ssa_privacy._internal.matrix_validation import symmetric_matrix
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    flag,
    positive,
    scalar,
)
from ssa_privacy.gp.kernels import (
    RBF,
    ScaledKernel,
    _squared_differences,
    as_inputs,
    kernel_diagonal,
    kernel_matrix,
)
from ssa_privacy.gp.regression import JITTER_LADDER, GaussianProcess, cholesky_with_jitter

__all__ = [
    "MLFit",
    "constant_mean_variance_mle",
    "fit_hyperparameters",
    "fit_mean_and_variance",
]


def constant_mean_variance_mle(correlation, y):
    """Closed-form ML of the constant mean and output variance for a fixed correlation.

    With ``cov(y) = sigma^2 R``: ``beta = 1^T R^{-1} y / 1^T R^{-1} 1`` and
    ``sigma^2 = (y - beta)^T R^{-1} (y - beta) / n``.

    Parameters
    ----------
    correlation : ndarray, shape (n, n)
        Correlation matrix R (kernel / variance, plus any noise-to-signal ratio).
    y : array_like, shape (n,)
        Outputs.

    Returns
    -------
    beta : float
        ML constant mean (output units).
    sigma2 : float
        ML output variance (squared output units).
    jitter : float
        Jitter added to R to factorise it.

    Raises
    ------
    ValueError
        If R is not positive definite even with jitter, or y does not match R.

    Notes
    -----
    Standard profile likelihood of universal kriging (Santner et al. 2003, §3.3), used
    by [TCB] §5.1 for beta and sigma^2.
    """
    y = as_finite_array(y, "y", ndim=1)
    correlation = symmetric_matrix(correlation, "correlation")
    if correlation.shape != (len(y), len(y)):
        raise ValueError(f"correlation has shape {correlation.shape}, y has length {len(y)}")
    L, jitter = cholesky_with_jitter(correlation, "correlation matrix")
    ones = np.ones_like(y)
    R_inv_1 = linalg.cho_solve((L, True), ones)
    beta = float(R_inv_1 @ y / (R_inv_1 @ ones))
    residual = y - beta
    sigma2 = float(residual @ linalg.cho_solve((L, True), residual) / len(y))
    return beta, sigma2, jitter


def fit_mean_and_variance(X, y, kernel, zero_mean=False):
    """Noiseless GP with the kernel's correlation fixed and beta, sigma^2 by ML.

    Parameters
    ----------
    X : array_like, shape (n, d) or (n,)
        Training inputs.
    y : array_like, shape (n,)
        Training outputs.
    kernel : callable
        Kernel whose correlation (length scales) is kept and whose output variance is
        fitted. :class:`~ssa_privacy.gp.kernels.RBF` and
        :class:`~ssa_privacy.gp.kernels.Exponential` have their variance replaced; any other
        kernel (a scikit-learn kernel, a function ``k(A, B)``) is read as
        ``v R`` with ``v`` the mean of its diagonal at X, and the fitted kernel is
        ``ScaledKernel(kernel, sigma^2 / v)``.
    zero_mean : bool
        Fix beta = 0 and fit only sigma^2 = y^T R^{-1} y / n ([TCB] Figure 7).

    Returns
    -------
    GaussianProcess
        Fitted to (X, y) with V = 0; if R needed a jitter, the same jitter (times
        sigma^2) is added to K and reported in ``jitter_``.

    Raises
    ------
    TypeError
        If ``kernel`` is not callable or ``zero_mean`` is not a bool.
    ValueError
        If X and y do not match, and as :func:`constant_mean_variance_mle`.

    Notes
    -----
    Profile likelihood of the constant mean and the variance ([TCB] §5.1).
    """
    X = as_inputs(X)
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)} rows")
    if not callable(kernel):
        raise TypeError(f"kernel must be callable, got {type(kernel).__name__}")
    zero_mean = flag(zero_mean, "zero_mean")
    if hasattr(kernel, "correlation") and hasattr(kernel, "with_variance"):
        R, prior_variance = kernel.correlation(X), None
    else:
        prior_variance = float(np.mean(kernel_diagonal(kernel, X)))
        R = kernel_matrix(kernel, X) / positive(prior_variance, "mean prior variance")
    if zero_mean:
        L, jitter = cholesky_with_jitter(R, "correlation matrix")
        beta, sigma2 = 0.0, float(y @ linalg.cho_solve((L, True), y) / len(y))
    else:
        beta, sigma2, jitter = constant_mean_variance_mle(R, y)
    sigma2 = positive(sigma2, "fitted variance")
    if prior_variance is None:
        kernel = kernel.with_variance(sigma2)
    else:
        kernel = ScaledKernel(kernel, sigma2 / prior_variance)
    # The same (relative) jitter as the fit of R, so that model and fit agree.
    return GaussianProcess(kernel, beta, jitter=sigma2 * jitter if jitter else None).fit(X, y)


@dataclass(frozen=True)
class MLFit:
    """Result of :func:`fit_hyperparameters`: the fitted GP and its likelihood.

    Parameters
    ----------
    gp : GaussianProcess
        Fitted to the training data.
    log_likelihood : float
        Maximised log marginal likelihood (nats).
    restarts : int
        Number of optimiser starts.
    """

    gp: GaussianProcess
    log_likelihood: float
    restarts: int


def _lower_inverse_and_logdet(C, tau):
    """Lower triangle of ``R^{-1}`` (strict upper triangle zero) and ``log det R``.

    ``R = C + tau I`` for a correlation matrix C and ``tau > 0``: positive definite in exact
    arithmetic, so it is factorised without re-validation; when round-off makes
    LAPACK's Cholesky factorisation fail, the jitter of
    :data:`~ssa_privacy.gp.regression.JITTER_LADDER` (relative to the diagonal ``1 + tau``) is added,
    as :func:`~ssa_privacy.gp.regression.cholesky_with_jitter` would. The likelihood gradient needs
    the whole inverse (a trace term), which LAPACK's ``potri`` forms from the Cholesky
    factor at a third of the cost of solving against the identity.
    """
    for step in JITTER_LADDER:
        R = C.T.copy(order="F")  # C is symmetric: its transpose is Fortran-ordered
        R[np.diag_indices_from(R)] += tau + step * (1.0 + tau)
        L, info = lapack.dpotrf(R, lower=1, clean=1, overwrite_a=1)
        if info == 0:
            break
    else:
        raise ValueError(
            f"correlation matrix is not positive definite even with jitter "
            f"{JITTER_LADDER[-1] * (1.0 + tau):.3g} (noise ratio tau = {tau:.3g})"
        )
    logdet = 2.0 * np.sum(np.log(np.diagonal(L)))
    inverse, info = lapack.dpotri(L, lower=1, overwrite_c=1)
    if info != 0:
        raise ValueError(f"correlation matrix inverse failed (LAPACK potri info {info})")
    return inverse, logdet


def _symmetric_product(lower, v):
    """``A v`` for the symmetric A whose lower triangle is ``lower`` (upper part zero)."""
    return lower @ v + lower.T @ v - np.diagonal(lower) * v


def _profile_nll(theta, D, y):
    """Profiled negative log likelihood and its gradient.

    ``theta`` holds the log length scales and the log noise-to-signal ratio
    ``tau = sigma_n^2 / sigma^2``; ``D`` (d, n, n) holds the squared input differences
    per dimension. beta and sigma^2 are profiled out in closed form, so by the envelope
    theorem only R = C + tau I varies:
    d nll = 1/2 tr((R^{-1} - a a^T / sigma^2) dR) with a = R^{-1} (y - beta 1).
    Only the lower triangle of ``R^{-1}`` is formed: D vanishes on the diagonal, so the
    length-scale terms count each strictly lower entry twice.
    """
    inverse_l2, tau = np.exp(-2 * theta[:-1]), np.exp(theta[-1])
    n = len(y)
    C = np.exp(-0.5 * np.tensordot(inverse_l2, D, axes=1))
    lower, logdet = _lower_inverse_and_logdet(C, tau)
    R_inv_y, R_inv_1 = _symmetric_product(lower, y), _symmetric_product(lower, np.ones(n))
    beta = R_inv_y.sum() / R_inv_1.sum()
    a = R_inv_y - beta * R_inv_1
    sigma2 = (y - beta) @ a / n
    nll = 0.5 * n * np.log(sigma2) + 0.5 * logdet
    grad_tau = 0.5 * (np.sum(np.diagonal(lower)) - a @ a / sigma2) * tau  # tr(W) dtau
    lower *= 2.0
    W = linalg.blas.dger(-1.0 / sigma2, a, a, a=lower, overwrite_a=1)  # Fortran order
    W *= C.T
    grad_l = 0.5 * inverse_l2 * (D.reshape(len(D), -1) @ W.T.ravel())  # D is symmetric
    return nll, np.append(grad_l, grad_tau)


def _training_data(X, y, names):
    """Validated (X, y) of matching lengths, named as the caller's arguments."""
    X = as_inputs(X, names[0])
    y = as_finite_array(y, names[1], ndim=1)
    if len(y) != len(X):
        raise ValueError(f"{names[1]} has {len(y)} entries but {names[0]} has {len(X)} rows")
    return X, y


def _bounds(value, name):
    """A pair (low, high) of positive numbers with low < high."""
    pair = as_finite_array(value, name, ndim=1)
    if pair.shape != (2,) or not 0 < pair[0] < pair[1]:
        raise ValueError(f"{name} must be a pair (low, high) with 0 < low < high, got {value!r}")
    return tuple(float(v) for v in pair)


def fit_hyperparameters(
    X, y, restarts=5, seed=None, noise_ratio_bounds=(1e-8, 1e2), initial=None, *, names=("X", "y")
):
    """Full maximum-likelihood fit of a constant-mean GP with an ARD RBF kernel.

    Fits beta, sigma^2, one length scale per input dimension and the noise variance
    sigma_n^2 by maximising the log marginal likelihood. beta and sigma^2 are profiled
    out in closed form; the length scales and the noise-to-signal ratio are optimised by
    L-BFGS-B with analytic gradients from several starts, keeping the best.

    Parameters
    ----------
    X : array_like, shape (n, d) or (n,)
        Training inputs (any units; columns are rescaled internally by their standard
        deviation, the result is in the original units).
    y : array_like, shape (n,)
        Training outputs.
    restarts : int
        Number of optimiser starts (the first from length scale = column std and
        noise ratio 0.1, the others random, log-uniform).
    seed : int or numpy.random.Generator, optional
        Seeds the random starts.
    noise_ratio_bounds : tuple of float
        Bounds on sigma_n^2 / sigma^2.
    initial : GaussianProcess, optional
        A model with an :class:`~ssa_privacy.gp.kernels.RBF` kernel and scalar noise whose length scales and
        noise-to-signal ratio replace the first start.
    names : tuple of str, optional
        The names of X and y in error messages (a caller's own argument names).

    Returns
    -------
    MLFit
        The fitted GP (``gp.kernel`` an :class:`~ssa_privacy.gp.kernels.RBF`, ``gp.mean`` = beta,
        ``gp.noise`` = sigma_n^2) and its log likelihood.

    Raises
    ------
    TypeError
        On a number of the wrong type, a bad seed, or an ``initial`` that is not a
        GaussianProcess with an RBF kernel and scalar noise.
    ValueError
        On empty, non-finite or mismatched data, fewer than one restart, bad noise-ratio
        bounds, or when every start fails.

    Notes
    -----
    Type-II maximum likelihood (Rasmussen and Williams 2006, §5.4); [TCB] §5 fits the
    same four hyperparameters for the census study and the Stationary baseline.
    """
    X, y = _training_data(X, y, names)
    restarts = scalar(restarts, "restarts", integer=True)
    if restarts < 1:
        raise ValueError(f"restarts must be at least 1, got {restarts}")
    noise_ratio_bounds = _bounds(noise_ratio_bounds, "noise_ratio_bounds")
    if initial is not None and not (
        isinstance(initial, GaussianProcess)
        and isinstance(initial.kernel, RBF)
        and np.ndim(initial.noise) == 0
        and initial.noise is not None
    ):
        raise TypeError(
            "initial must be a GaussianProcess with an RBF kernel and a scalar noise, got "
            f"{type(initial).__name__}"
        )
    if initial is not None and np.size(initial.kernel.lengthscale) not in (1, X.shape[1]):
        raise ValueError(
            f"initial has {np.size(initial.kernel.lengthscale)} length scales but X has "
            f"{X.shape[1]} columns"
        )
    scale = np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    D = np.ascontiguousarray(np.moveaxis(_squared_differences(X / scale, X / scale), 2, 0))
    d = X.shape[1]
    bounds = [(np.log(1e-2), np.log(1e2))] * d + [tuple(np.log(noise_ratio_bounds))]
    rng = random_generator(seed)
    first = (
        np.append(np.zeros(d), np.log(0.1))
        if initial is None
        else np.append(
            np.log(np.broadcast_to(initial.kernel.lengthscale, (d,)) / scale),
            np.log(max(initial.noise / initial.kernel.variance, noise_ratio_bounds[0])),
        )
    )
    starts = [np.clip(first, *np.array(bounds).T)] + [
        np.append(rng.uniform(np.log(0.1), np.log(10.0), d), rng.uniform(np.log(1e-4), 0.0))
        for _ in range(restarts - 1)
    ]
    best = None
    for start in starts:
        try:
            result = optimize.minimize(
                _profile_nll, start, args=(D, y), jac=True, method="L-BFGS-B", bounds=bounds
            )
        except ValueError:
            continue
        if np.isfinite(result.fun) and (best is None or result.fun < best.fun):
            best = result
    if best is None:
        raise ValueError("maximum-likelihood fit failed from every start")
    lengthscale = np.exp(best.x[:-1]) * scale
    tau = float(np.exp(best.x[-1]))
    beta, sigma2, _ = constant_mean_variance_mle(
        RBF(lengthscale).correlation(X) + tau * np.eye(len(y)), y
    )
    gp = GaussianProcess(RBF(lengthscale, sigma2), beta, noise=tau * sigma2).fit(X, y)
    return MLFit(gp=gp, log_likelihood=gp.log_marginal_likelihood(), restarts=restarts)
