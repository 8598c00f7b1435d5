"""Gaussian-process regression: exact posterior, likelihood and hyperparameter fits.

Model [TCB §2]: ``y_i = f(x_i) + e_i`` with ``e ~ N(0, V)`` and prior
``f ~ GP(beta, K)`` with a constant mean ``beta``. The posterior at ``X*`` is

    mean = beta + K_{X*,X} (K_{X,X} + V)^{-1} (Y - beta 1)          [TCB (1)]
    cov  = K_{X*,X*} - K_{X*,X} (K_{X,X} + V)^{-1} K_{X,X*}          [TCB (2)]

computed by Cholesky. ``V`` may be a scalar noise variance or a full covariance (the
privacy mechanism adds a correlated synthetic noise Sigma to it). When ``K + V`` is not
numerically positive definite, a diagonal jitter is added explicitly and reported in
``GaussianProcess.jitter_``.

The kernel K may be any callable ``k(A, B)``: the package's :class:`RBF` and
:class:`Exponential`, a scikit-learn kernel, a plain function. The kernels and that
interface live in :mod:`ssa_privacy.kernels` and are re-exported here.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize
from scipy.linalg import lapack

from ssa_privacy._validation import as_finite_array, positive, psd_matrix
from ssa_privacy.kernels import (  # noqa: F401
    RBF,
    Exponential,
    ScaledKernel,
    _squared_differences,
    as_inputs,
    kernel_diagonal,
    kernel_matrix,
)

#: Jitter ladder, relative to the mean diagonal of the matrix being factorised.
JITTER_LADDER = (0.0, 1e-12, 1e-10, 1e-8, 1e-6)


def cholesky_with_jitter(matrix, name="matrix", jitter=None):
    """Cholesky factor of a symmetric matrix, adding diagonal jitter only if needed.

    Parameters
    ----------
    matrix : ndarray, shape (n, n)
        Symmetric matrix expected to be positive definite.
    name : str
        Name used in the error message.
    jitter : float, optional
        Absolute jitter to add. By default the smallest entry of
        :data:`JITTER_LADDER` (times the mean diagonal) that makes the factorisation
        succeed is used.

    Returns
    -------
    L : ndarray, shape (n, n)
        Lower-triangular factor of ``matrix + jitter * I``.
    jitter : float
        The absolute jitter added (0.0 when none was needed).

    Raises
    ------
    ValueError
        If the matrix is not positive definite even with the largest jitter.
    """
    symmetric = 0.5 * (matrix + matrix.T)
    scale = max(float(np.mean(np.diag(symmetric))), np.finfo(float).tiny)
    ladder = [jitter] if jitter is not None else [step * scale for step in JITTER_LADDER]
    identity = np.eye(len(symmetric))
    for amount in ladder:
        try:
            return np.linalg.cholesky(symmetric + amount * identity), float(amount)
        except np.linalg.LinAlgError:
            continue
    raise ValueError(
        f"{name} is not positive definite even with jitter {ladder[-1]:.3g}: "
        f"smallest eigenvalue {np.linalg.eigvalsh(symmetric)[0]:.3g}"
    )


def noise_matrix(noise, n, name="noise"):
    """Return the (n, n) noise covariance V from ``None``, a scalar variance or a matrix.

    Parameters
    ----------
    noise : None, float or array_like, shape (n, n)
        ``None`` (noiseless), a variance (times the identity) or a covariance.
    n : int
        Number of observations.
    name : str
        Argument name used in error messages.

    Returns
    -------
    ndarray, shape (n, n)
        V (zeros for None).

    Raises
    ------
    ValueError
        If a scalar is negative, or a matrix has the wrong shape, is non-finite, not
        symmetric or not positive semi-definite.
    """
    if noise is None:
        return np.zeros((n, n))
    V = as_finite_array(noise, name)
    if V.ndim == 0:
        if V < 0:
            raise ValueError(f"{name} (a variance) must be non-negative, got {float(V)}")
        return float(V) * np.eye(n)
    return psd_matrix(V, name, size=n)


class GaussianProcess:
    """Exact GP regression with a constant prior mean [TCB §2, eqs. (1)-(2)].

    Parameters
    ----------
    kernel : callable
        Prior covariance function K: :class:`RBF`, :class:`Exponential`, a scikit-learn
        kernel, or any ``k(A, B)`` returning an (nA, nB) matrix for inputs of shape
        (nA, d) and (nB, d).
    mean : float
        Constant prior mean beta (output units).
    noise : float or ndarray, shape (n, n)
        Observation-noise variance, or the full covariance V of the noise on the
        training outputs (for a privatized release: ``V + Sigma``).
    jitter : float, optional
        Absolute diagonal jitter; by default the smallest that makes ``K + V``
        factorise (see :func:`cholesky_with_jitter`).

    Attributes
    ----------
    X_train_ : ndarray, shape (n, d)
        Training inputs (set by :meth:`fit`).
    y_train_ : ndarray, shape (n,)
        Training outputs.
    L_ : ndarray, shape (n, n)
        Lower Cholesky factor of ``K + V`` (plus the jitter).
    alpha_ : ndarray, shape (n,)
        ``(K + V)^{-1} (y - beta 1)``, the weights of the posterior mean.
    jitter_ : float
        The jitter actually added to ``K + V`` (0.0 when none was needed).

    Notes
    -----
    Fitted attributes follow scikit-learn's trailing-underscore convention. The names
    of earlier versions (``X``, ``y``, ``jitter``, ``_L``, ``_alpha``) remain as
    read-only aliases.

    Examples
    --------
    >>> import numpy as np
    >>> gp = GaussianProcess(RBF(0.3), noise=1e-2).fit(np.linspace(0, 1, 8), np.ones(8))
    >>> mean, variance = gp.predict([0.5])
    >>> round(float(mean[0]), 2), bool(variance[0] < 0.01)
    (1.0, True)
    """

    def __init__(self, kernel, mean=0.0, noise=0.0, jitter=None):
        if not callable(kernel):
            raise TypeError(f"kernel must be callable, got {type(kernel).__name__}")
        self.kernel = kernel
        self.mean = float(mean)
        self.noise = noise
        self.requested_jitter = jitter

    def fit(self, X, y):
        """Condition on training data; return ``self``.

        Parameters
        ----------
        X : array_like, shape (n, d) or (n,)
            Training inputs.
        y : array_like, shape (n,)
            Training outputs (output units).

        Returns
        -------
        GaussianProcess
            ``self``, with the fitted attributes set.

        Raises
        ------
        ValueError
            On shape mismatches, non-finite data, or a ``K + V`` that is not positive
            definite even with jitter.
        """
        self.X_train_ = as_inputs(X)
        self.y_train_ = as_finite_array(y, "y", ndim=1)
        n = len(self.X_train_)
        if len(self.y_train_) != n:
            raise ValueError(f"y has {len(self.y_train_)} entries but X has {n} rows")
        covariance = kernel_matrix(self.kernel, self.X_train_) + noise_matrix(self.noise, n)
        self.L_, self.jitter_ = cholesky_with_jitter(covariance, "K + V", self.requested_jitter)
        self.alpha_ = linalg.cho_solve((self.L_, True), self.y_train_ - self.mean)
        return self

    def _fitted(self):
        if not hasattr(self, "L_"):
            raise AttributeError("this GaussianProcess is not fitted yet: call fit(X, y) first")

    def predict(self, X_star, return_cov=False):
        """Posterior mean and variance (or covariance) of f at ``X_star``.

        Parameters
        ----------
        X_star : array_like, shape (m, d) or (m,)
            Test inputs.
        return_cov : bool
            Return the full (m, m) covariance instead of the variances.

        Returns
        -------
        mean : ndarray, shape (m,)
            Posterior mean [TCB (1)].
        var_or_cov : ndarray, shape (m,) or (m, m)
            Posterior variance or covariance of f (noise-free) [TCB (2)]; the prior
            variances come from the kernel's diagonal.

        Raises
        ------
        AttributeError
            If the model has not been fitted.
        """
        self._fitted()
        X_star = as_inputs(X_star, "X_star")
        K_sX = kernel_matrix(self.kernel, X_star, self.X_train_)
        mean = self.mean + K_sX @ self.alpha_
        B = linalg.solve_triangular(self.L_, K_sX.T, lower=True)
        if return_cov:
            cov = kernel_matrix(self.kernel, X_star) - B.T @ B
            return mean, 0.5 * (cov + cov.T)
        variance = kernel_diagonal(self.kernel, X_star) - np.sum(B * B, axis=0)
        return mean, np.maximum(variance, 0.0)

    def log_marginal_likelihood(self):
        """Log marginal likelihood ``log N(y | beta 1, K + V)`` of the training data.

        Returns
        -------
        float
            The log likelihood (nats).

        Raises
        ------
        AttributeError
            If the model has not been fitted.
        """
        self._fitted()
        n = len(self.y_train_)
        return float(
            -0.5 * (self.y_train_ - self.mean) @ self.alpha_
            - np.sum(np.log(np.diag(self.L_)))
            - 0.5 * n * np.log(2 * np.pi)
        )

    @property
    def X(self):
        """Read-only alias of ``X_train_`` (the name of earlier versions)."""
        return self.X_train_

    @property
    def y(self):
        """Read-only alias of ``y_train_`` (the name of earlier versions)."""
        return self.y_train_

    @property
    def jitter(self):
        """Read-only alias of ``jitter_``; None before :meth:`fit`."""
        return getattr(self, "jitter_", None)

    @property
    def _L(self):
        return self.L_

    @property
    def _alpha(self):
        return self.alpha_


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
        fitted. :class:`RBF` and :class:`Exponential` have their variance replaced; any
        other kernel (a scikit-learn kernel, a function ``k(A, B)``) is read as
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
    ValueError
        As :func:`constant_mean_variance_mle`.

    Notes
    -----
    Profile likelihood of the constant mean and the variance ([TCB] §5.1).
    """
    X = as_inputs(X)
    y = as_finite_array(y, "y", ndim=1)
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


def _inverse_and_logdet(R):
    """``R^{-1}`` and ``log det R`` of a positive definite matrix from its Cholesky factor.

    The likelihood gradient needs the whole inverse (a trace term), which LAPACK's
    ``potri`` forms from the Cholesky factor at a third of the cost of solving against
    the identity.
    """
    L, _ = cholesky_with_jitter(R, "correlation matrix")
    inverse, info = lapack.dpotri(L, lower=1)
    if info != 0:
        raise ValueError(f"correlation matrix inverse failed (LAPACK potri info {info})")
    inverse = np.tril(inverse) + np.tril(inverse, -1).T
    return inverse, 2.0 * np.sum(np.log(np.diag(L)))


def _profile_nll(theta, D, y):
    """Profiled negative log likelihood and its gradient.

    ``theta`` holds the log length scales and the log noise-to-signal ratio
    ``tau = sigma_n^2 / sigma^2``; ``D`` (d, n, n) holds the squared input differences
    per dimension. beta and sigma^2 are profiled out in closed form, so by the envelope
    theorem only R = C + tau I varies:
    d nll = 1/2 tr((R^{-1} - a a^T / sigma^2) dR) with a = R^{-1} (y - beta 1).
    """
    inverse_l2, tau = np.exp(-2 * theta[:-1]), np.exp(theta[-1])
    n = len(y)
    C = np.exp(-0.5 * np.tensordot(inverse_l2, D, axes=1))
    R_inv, logdet = _inverse_and_logdet(C + tau * np.eye(n))
    beta = (R_inv @ y).sum() / R_inv.sum()
    a = R_inv @ (y - beta)
    sigma2 = (y - beta) @ a / n
    nll = 0.5 * n * np.log(sigma2) + 0.5 * logdet
    W = R_inv - np.outer(a, a) / sigma2
    grad_l = 0.5 * inverse_l2 * (D.reshape(len(D), -1) @ (W * C).ravel())
    grad_tau = 0.5 * np.trace(W) * tau
    return nll, np.append(grad_l, grad_tau)


def fit_hyperparameters(X, y, restarts=5, seed=None, noise_ratio_bounds=(1e-8, 1e2), initial=None):
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
        A model with an :class:`RBF` kernel and scalar noise whose length scales and
        noise-to-signal ratio replace the first start.

    Returns
    -------
    MLFit
        The fitted GP (``gp.kernel`` an :class:`RBF`, ``gp.mean`` = beta,
        ``gp.noise`` = sigma_n^2) and its log likelihood.

    Raises
    ------
    ValueError
        On non-finite or mismatched data, fewer than one restart, or when every
        start fails.

    Notes
    -----
    Type-II maximum likelihood (Rasmussen and Williams 2006, §5.4); [TCB] §5 fits the
    same four hyperparameters for the census study and the Stationary baseline.
    """
    X = as_inputs(X)
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)} rows")
    if restarts < 1:
        raise ValueError(f"restarts must be at least 1, got {restarts}")
    scale = np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    D = np.ascontiguousarray(np.moveaxis(_squared_differences(X / scale, X / scale), 2, 0))
    d = X.shape[1]
    bounds = [(np.log(1e-2), np.log(1e2))] * d + [tuple(np.log(noise_ratio_bounds))]
    rng = np.random.default_rng(seed)
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
