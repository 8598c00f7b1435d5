"""Gaussian-process regression: the exact posterior and the likelihood.

Model [TCB §2]: ``y_i = f(x_i) + e_i`` with ``e ~ N(0, V)`` and prior
``f ~ GP(beta, K)`` with a constant mean ``beta``. The posterior at ``X*`` is

    mean = beta + K_{X*,X} (K_{X,X} + V)^{-1} (Y - beta 1)          [TCB (1)]
    cov  = K_{X*,X*} - K_{X*,X} (K_{X,X} + V)^{-1} K_{X,X*}          [TCB (2)]

computed by Cholesky. ``V`` may be a scalar noise variance or a full covariance (the
privacy mechanism adds a correlated synthetic noise Sigma to it). When ``K + V`` is not
numerically positive definite, a diagonal jitter is added explicitly and reported in
``GaussianProcess.jitter_``.

The kernel K may be any callable ``k(A, B)``: the package's
:class:`~ssa_privacy.gp.kernels.RBF` and :class:`~ssa_privacy.gp.kernels.Exponential`, a
scikit-learn kernel, a plain function. The kernels and that interface live in
:mod:`ssa_privacy.gp.kernels`, the maximum-likelihood fits of the hyperparameters in
:mod:`ssa_privacy.gp.fit`; all of them are importable from :mod:`ssa_privacy.gp`.
"""

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import psd_matrix, symmetric_matrix
from ssa_privacy._internal.validation import (
    as_finite_array,
    flag,
    non_negative,
    positive_int,
    scalar,
)
from ssa_privacy.gp.kernels import (  # noqa: F401
    RBF,
    Exponential,
    ScaledKernel,
    _squared_differences,
    as_inputs,
    kernel_diagonal,
    kernel_matrix,
)

__all__ = [
    "GaussianProcess",
    "JITTER_LADDER",
    "cholesky_with_jitter",
    "noise_matrix",
]

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
        If the matrix is not square, finite and symmetric, the jitter is negative, or the
        matrix is not positive definite even with the largest jitter.
    """
    symmetric = symmetric_matrix(matrix, name)
    if jitter is not None:
        jitter = non_negative(jitter, "jitter")
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
    n = positive_int(n, "n")
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
        Prior covariance function K: :class:`~ssa_privacy.gp.kernels.RBF`,
        :class:`~ssa_privacy.gp.kernels.Exponential`, a scikit-learn kernel, or any
        ``k(A, B)`` returning an (nA, nB) matrix for inputs of shape (nA, d) and (nB, d).
    mean : float
        Constant prior mean beta (output units).
    noise : float or ndarray, shape (n, n)
        Observation-noise variance (>= 0), or the full covariance V of the noise on the
        training outputs (for a privatized release: ``V + Sigma``); None for none.
    jitter : float, optional
        Absolute diagonal jitter (>= 0); by default the smallest that makes ``K + V``
        factorise (see :func:`cholesky_with_jitter`).

    Raises
    ------
    TypeError
        If ``kernel`` is not callable or a number is of the wrong type (bool, string).
    ValueError
        If ``mean`` is not finite, or ``noise`` or ``jitter`` is negative or not finite.

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
        self.mean = scalar(mean, "mean")
        if noise is not None:
            checked = as_finite_array(noise, "noise")
            if checked.ndim == 0 and checked < 0:
                raise ValueError(f"noise (a variance) must be non-negative, got {float(checked)}")
        self.noise = noise
        self.requested_jitter = None if jitter is None else non_negative(jitter, "jitter")

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
        X = as_inputs(X)
        y = as_finite_array(y, "y", ndim=1)
        n = len(X)
        if len(y) != n:
            raise ValueError(f"y has {len(y)} entries but X has {n} rows")
        covariance = kernel_matrix(self.kernel, X, names=("X", "X")) + noise_matrix(self.noise, n)
        self.X_train_, self.y_train_ = X, y
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
        ValueError
            If ``X_star`` is invalid or has another number of columns than X.
        TypeError
            If ``return_cov`` is not a bool.
        """
        self._fitted()
        return_cov = flag(return_cov, "return_cov")
        X_star = as_inputs(X_star, "X_star")
        if X_star.shape[1] != self.X_train_.shape[1]:
            raise ValueError(
                f"X_star has {X_star.shape[1]} columns but the training inputs X have "
                f"{self.X_train_.shape[1]}"
            )
        K_sX = kernel_matrix(self.kernel, X_star, self.X_train_, names=("X_star", "X"))
        mean = self.mean + K_sX @ self.alpha_
        B = linalg.solve_triangular(self.L_, K_sX.T, lower=True)
        if return_cov:
            cov = kernel_matrix(self.kernel, X_star, names=("X_star", "X_star")) - B.T @ B
            return mean, 0.5 * (cov + cov.T)
        variance = kernel_diagonal(self.kernel, X_star, name="X_star") - np.sum(B * B, axis=0)
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
