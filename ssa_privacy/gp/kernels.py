"""Kernels of the GP: the package's own, and the interface any kernel callable meets.

A kernel is any callable ``k(A, B)`` returning the (nA, nB) covariance of inputs of shape
(nA, d) and (nB, d): :class:`RBF`, :class:`Exponential`, :class:`ScaledKernel`, a
scikit-learn kernel (``sklearn.gaussian_process.kernels.RBF``, ``ConstantKernel() *
RBF()``, ...; this module never imports scikit-learn) or a plain function.
:func:`kernel_matrix` calls it on inputs reshaped to (n, d) (a 1-D array is n points in
one dimension), as ``k(A)`` when its signature allows one argument (scikit-learn's
convention for a training covariance, where a ``WhiteKernel`` adds its noise);
:func:`kernel_diagonal` takes the prior variances from ``k.diag(A)`` when the kernel has
it, else from the diagonal of ``k(A, A)``.
"""

import inspect
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial import distance

from ssa_privacy._internal.validation import as_finite_array, nonempty, positive

__all__ = [
    "Exponential",
    "RBF",
    "ScaledKernel",
    "as_inputs",
    "kernel_diagonal",
    "kernel_matrix",
]


def as_inputs(X, name="X"):
    """Return inputs as a finite (n, d) float array; a 1-D array is read as (n, 1).

    Parameters
    ----------
    X : array_like, shape (n,) or (n, d)
        Inputs, at least one point and one column.
    name : str
        The argument's name in error messages.

    Returns
    -------
    ndarray, shape (n, d)
        The inputs as a float array.

    Raises
    ------
    TypeError
        If ``X`` is None or holds booleans, strings or complex numbers.
    ValueError
        If ``X`` is empty, has more than two dimensions or non-finite entries.
    """
    array = as_finite_array(X, name)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(f"{name} must have shape (n,) or (n, d), got {array.shape}")
    return nonempty(array, name)


def _same_columns(A, B, names):
    """Refuse inputs of different widths (numpy would broadcast a single column)."""
    if B is not None and A.shape[1] != B.shape[1]:
        raise ValueError(
            f"{names[1]} has {B.shape[1]} columns but {names[0]} has {A.shape[1]}: both sets of "
            "inputs must have the same dimension d"
        )


def kernel_matrix(kernel, A, B=None, *, names=("A", "B")):
    """The kernel matrix ``K_{A,B}`` of any kernel callable, inputs reshaped to (n, d).

    Parameters
    ----------
    kernel : callable
        ``kernel(A, B)`` -> (nA, nB), e.g. :class:`RBF` or a scikit-learn kernel.
    A : array_like, shape (nA, d) or (nA,)
        First inputs (a 1-D array is read as nA points in one dimension).
    B : array_like, shape (nB, d) or (nB,), optional
        Second inputs; None for ``K_{A,A}``, computed as ``kernel(A)`` when the kernel
        accepts one argument (scikit-learn's convention for a training covariance).
    names : tuple of str, optional
        The names of A and B in error messages (the caller's argument names).

    Returns
    -------
    ndarray, shape (nA, nB)
        The kernel matrix (covariance units).

    Raises
    ------
    TypeError
        If ``kernel`` is not callable, or an input is not an array of real numbers.
    ValueError
        If an input is empty, has more than two dimensions or non-finite entries, A and B
        have different numbers of columns, or the kernel returns an array of the wrong
        shape or with non-finite values.
    """
    if not callable(kernel):
        raise TypeError(f"kernel must be callable, got {type(kernel).__name__}")
    A = as_inputs(A, names[0])
    B = None if B is None else as_inputs(B, names[1])
    _same_columns(A, B, names)
    if B is None and not _accepts_one_input(kernel):
        B = A
    K = np.asarray(kernel(A) if B is None else kernel(A, B), dtype=float)
    expected = (len(A), len(A) if B is None else len(B))
    if K.shape != expected:
        raise ValueError(f"kernel returned shape {K.shape}, expected {expected}")
    if not np.all(np.isfinite(K)):
        raise ValueError("kernel returned non-finite values (NaN or inf)")
    return K


def _accepts_one_input(kernel):
    """True when ``kernel(A)`` is a valid call (the signature binds one argument)."""
    try:
        inspect.signature(kernel).bind(None)
    except (TypeError, ValueError):
        return False
    return True


def kernel_diagonal(kernel, X, *, name="X"):
    """Prior variances ``k(x_i, x_i)`` of any kernel callable.

    Parameters
    ----------
    kernel : callable
        The kernel; its ``diag(X)`` method is used when it has one (scikit-learn kernels,
        :class:`RBF`, :class:`Exponential`), else the diagonal of ``kernel(X, X)``.
    X : array_like, shape (n, d) or (n,)
        Inputs.
    name : str, optional
        The name of X in error messages.

    Returns
    -------
    ndarray, shape (n,)
        The prior variances (squared output units).

    Raises
    ------
    TypeError
        If ``kernel`` is not callable.
    ValueError
        If X is invalid or the kernel's diagonal has the wrong shape or non-finite values.
    """
    if not callable(kernel):
        raise TypeError(f"kernel must be callable, got {type(kernel).__name__}")
    X = as_inputs(X, name)
    diag = getattr(kernel, "diag", None)
    values = np.asarray(diag(X), dtype=float) if callable(diag) else None
    if values is None:
        values = np.diag(kernel_matrix(kernel, X, names=(name, name))).copy()
    if values.shape != (len(X),):
        raise ValueError(f"kernel diagonal has shape {values.shape}, expected ({len(X)},)")
    if not np.all(np.isfinite(values)):
        raise ValueError("kernel diagonal has non-finite values (NaN or inf)")
    return values


def _squared_differences(A, B):
    """Per-dimension squared differences, shape (nA, nB, d)."""
    return (A[:, None, :] - B[None, :, :]) ** 2


def _scaled_inputs(lengthscale, A, B):
    """Validated inputs (A, B) of equal width and the length scales broadcast to it."""
    A = as_inputs(A, "A")
    B = A if B is None else as_inputs(B, "B")
    _same_columns(A, B, ("A", "B"))
    scales = np.atleast_1d(np.asarray(lengthscale, dtype=float))
    if scales.size not in (1, A.shape[1]):
        raise ValueError(
            f"lengthscale has {scales.size} entries but the inputs have {A.shape[1]} columns"
        )
    return A, B, np.broadcast_to(scales, (A.shape[1],))


@dataclass(frozen=True)
class RBF:
    """Squared-exponential kernel ``variance * exp(-sum_j (x_j - x'_j)^2 / (2 lengthscale_j^2))``.

    Parameters
    ----------
    lengthscale : float or array_like, shape (d,)
        Length scale per input dimension (same units as the inputs); a scalar is
        shared by all dimensions.
    variance : float
        Output variance sigma^2 (squared output units).

    Notes
    -----
    [TCB §5.1] writes the kernel as ``sigma^2 exp(-(x - x')^2 / (2 l))``, where ``l``
    multiplies like a squared length scale; build that reading with :meth:`paper`.
    """

    lengthscale: object = 1.0
    variance: float = 1.0

    def __post_init__(self):
        scales = np.atleast_1d(as_finite_array(self.lengthscale, "lengthscale"))
        if scales.ndim != 1 or scales.size == 0 or np.any(scales <= 0):
            raise ValueError(
                f"lengthscale must be positive (a number or one per input dimension), got "
                f"{self.lengthscale!r}"
            )
        positive(self.variance, "variance")

    @classmethod
    def paper(cls, l, variance=1.0):
        """Kernel ``variance * exp(-(x - x')^2 / (2 l))``, the convention of [TCB] §5.1.

        Parameters
        ----------
        l : float
            The paper's ``l`` (squared input units); the length scale is ``sqrt(l)``.
        variance : float
            Output variance sigma^2.

        Returns
        -------
        RBF
            The kernel with length scale ``sqrt(l)``.
        """
        return cls(lengthscale=np.sqrt(positive(l, "l")), variance=variance)

    def with_variance(self, variance):
        """Return the same kernel with output variance ``variance``.

        Parameters
        ----------
        variance : float
            The new output variance sigma^2 (squared output units).

        Returns
        -------
        RBF or Exponential
            A copy with that variance.
        """
        return replace(self, variance=variance)

    def correlation(self, A, B=None):
        """Return the correlation matrix (kernel / variance) between input sets.

        Parameters
        ----------
        A : array_like, shape (nA, d) or (nA,)
            First inputs.
        B : array_like, shape (nB, d) or (nB,), optional
            Second inputs; None for A.

        Returns
        -------
        ndarray, shape (nA, nB)
            The correlations (dimensionless, 1 on coincident inputs).
        """
        A, B, scales = _scaled_inputs(self.lengthscale, A, B)
        return np.exp(-0.5 * distance.cdist(A / scales, B / scales, "sqeuclidean"))

    def __call__(self, A, B=None):
        """Return the kernel matrix K_{A,B}, shape (nA, nB)."""
        return self.variance * self.correlation(A, B)

    def diag(self, X):
        """Return the prior variances ``k(x_i, x_i) = variance``.

        Parameters
        ----------
        X : array_like, shape (n, d) or (n,)
            Inputs.

        Returns
        -------
        ndarray, shape (n,)
            The output variance, repeated (squared output units).
        """
        return np.full(len(as_inputs(X)), float(self.variance))


@dataclass(frozen=True)
class Exponential:
    """Exponential (Matern-1/2) kernel ``variance * exp(-||(x - x') / lengthscale||)``.

    Parameters
    ----------
    lengthscale : float or array_like, shape (d,)
        Length scale per input dimension (input units).
    variance : float
        Output variance sigma^2.
    """

    lengthscale: object = 1.0
    variance: float = 1.0

    __post_init__ = RBF.__post_init__
    with_variance = RBF.with_variance

    def correlation(self, A, B=None):
        """Return the correlation matrix between input sets.

        Parameters
        ----------
        A : array_like, shape (nA, d) or (nA,)
            First inputs.
        B : array_like, shape (nB, d) or (nB,), optional
            Second inputs; None for A.

        Returns
        -------
        ndarray, shape (nA, nB)
            ``exp(-||(a - b) / lengthscale||)``.
        """
        A, B, scales = _scaled_inputs(self.lengthscale, A, B)
        return np.exp(-distance.cdist(A / scales, B / scales, "euclidean"))

    __call__ = RBF.__call__
    diag = RBF.diag


@dataclass(frozen=True)
class ScaledKernel:
    """A kernel times a positive constant, ``scale * kernel(A, B)``.

    :func:`ssa_privacy.gp.fit.fit_mean_and_variance` returns it for kernels without
    ``with_variance`` (a scikit-learn kernel, a plain function).

    Parameters
    ----------
    kernel : callable
        The base kernel ``k(A, B)``.
    scale : float
        The positive factor (dimensionless when the base kernel carries the units).
    """

    kernel: object
    scale: float = 1.0

    def __post_init__(self):
        if not callable(self.kernel):
            raise TypeError(f"kernel must be callable, got {type(self.kernel).__name__}")
        positive(self.scale, "scale")

    def __call__(self, A, B=None):
        """Return ``scale * K_{A,B}``, shape (nA, nB)."""
        return self.scale * kernel_matrix(self.kernel, A, B)

    def diag(self, X):
        """Return the prior variances ``scale * k(x_i, x_i)``.

        Parameters
        ----------
        X : array_like, shape (n, d) or (n,)
            Inputs.

        Returns
        -------
        ndarray, shape (n,)
            The scaled prior variances.
        """
        return self.scale * kernel_diagonal(self.kernel, X)
