"""Input checks shared by the package: every public function validates its arguments here.

Each check names the offending argument and says what was wrong, so that a bad input
gives a clear :class:`ValueError` instead of a silent NaN.
"""

import numpy as np
from scipy.linalg import lapack

#: Relative tolerance for symmetry checks: |A - A^T| <= SYMMETRY_RTOL * max|A|.
SYMMETRY_RTOL = 1e-8
#: Relative tolerance for positive semi-definiteness: lambda_min >= -PSD_RTOL * max|A|.
PSD_RTOL = 1e-8


def as_finite_array(value, name, ndim=None):
    """Return ``value`` as a float array, checking it is finite and of the given rank.

    Raises
    ------
    ValueError
        If the array has the wrong number of dimensions or non-finite entries.
    """
    array = np.asarray(value, dtype=float)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    return array


def as_matrix(value, name, shape=None):
    """Return a finite 2-D float array, optionally of an exact ``shape``.

    ``shape`` may hold ``None`` for a free dimension.

    Raises
    ------
    ValueError
        On a wrong rank, a wrong shape, or non-finite entries.
    """
    array = as_finite_array(value, name, ndim=2)
    if shape is not None:
        for axis, (got, want) in enumerate(zip(array.shape, shape)):
            if want is not None and got != want:
                raise ValueError(
                    f"{name} has shape {array.shape}, expected {_shape_text(shape)} "
                    f"(dimension {axis} should be {want})"
                )
    return array


def _shape_text(shape):
    return "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"


def symmetric_matrix(value, name, size=None):
    """Return a finite, square, symmetric matrix, symmetrized to remove round-off.

    Raises
    ------
    ValueError
        If the matrix is not square, has the wrong size, is non-finite, or its
        asymmetry exceeds ``SYMMETRY_RTOL`` relative to its largest entry.
    """
    return _symmetric_with_scale(value, name, size)[0]


def _symmetric_with_scale(value, name, size):
    """:func:`symmetric_matrix` that also returns ``max |A|`` (1 for an empty matrix)."""
    array = as_matrix(value, name)
    if array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be square, got shape {array.shape}")
    if size is not None and array.shape[0] != size:
        raise ValueError(f"{name} must be {size}x{size}, got shape {array.shape}")
    if array.size == 0:
        return array, 1.0
    scale, asymmetry = _scale_and_asymmetry(array)
    if asymmetry > SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name} is not symmetric: max |A - A^T| = {asymmetry:.3g} (largest entry {scale:.3g})"
        )
    if asymmetry == 0.0:
        return array.copy(), scale
    return 0.5 * (array + array.T), scale


def _scale_and_asymmetry(array, block=128):
    """Return ``(max |A|, max |A - A^T|)`` of a square array, a block of rows at a time.

    Each block of rows is compared, up to the diagonal, with the matching block of
    columns: every entry is read once and the temporaries stay in cache.
    """
    scale = asymmetry = 0.0
    for start in range(0, len(array), block):
        stop = start + block
        rows, columns = array[start:stop, :stop], array[:stop, start:stop]
        scale = max(scale, np.max(np.abs(rows)), np.max(np.abs(columns)))
        asymmetry = max(asymmetry, np.max(np.abs(rows - columns.T)))
    return max(scale, np.finfo(float).tiny), asymmetry


def psd_matrix(value, name, size=None):
    """Return a symmetric positive semi-definite matrix.

    The check is a Cholesky factorisation of ``A + PSD_RTOL * max|A| * I``, which
    succeeds exactly when the smallest eigenvalue is at least ``-PSD_RTOL * max|A|``
    (an eigendecomposition is computed only to word the error).

    Raises
    ------
    ValueError
        As :func:`symmetric_matrix`, or if the matrix is indefinite beyond that
        tolerance.
    """
    array, scale = _symmetric_with_scale(value, name, size)
    if array.size == 0:
        return array
    # The transpose of the symmetric array is Fortran-ordered: LAPACK factors a copy in place.
    shifted = array.T.copy(order="F")
    shifted[np.diag_indices_from(shifted)] += PSD_RTOL * scale
    _, info = lapack.dpotrf(shifted, lower=1, clean=0, overwrite_a=1)
    if info != 0:
        smallest = np.linalg.eigvalsh(array)[0]
        raise ValueError(
            f"{name} is not positive semi-definite: smallest eigenvalue "
            f"{smallest:.3g} (largest entry {scale:.3g})"
        )
    return array


def pd_cholesky(value, name, size=None):
    """Return the lower Cholesky factor of a symmetric positive definite matrix.

    Raises
    ------
    ValueError
        As :func:`symmetric_matrix`, or if the matrix is not positive definite.
    """
    array = symmetric_matrix(value, name, size)
    try:
        return np.linalg.cholesky(array)
    except np.linalg.LinAlgError:
        smallest = np.linalg.eigvalsh(array)[0]
        raise ValueError(
            f"{name} is not positive definite: smallest eigenvalue {smallest:.3g}"
        ) from None


def open_interval(value, name, low=0.0, high=1.0):
    """Return ``value`` as a float, checking ``low < value < high``.

    Raises
    ------
    ValueError
        If the value is non-finite or outside the open interval.
    """
    number = float(value)
    if not np.isfinite(number) or not low < number < high:
        raise ValueError(f"{name} must lie in the open interval ({low}, {high}), got {value!r}")
    return number


def positive(value, name):
    """Return ``value`` as a float, checking it is finite and strictly positive.

    Raises
    ------
    ValueError
        If the value is non-finite or not positive.
    """
    number = float(value)
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return number


def positive_int(value, name):
    """Return ``value`` as an int, checking it is a positive integer.

    Raises
    ------
    ValueError
        If the value is not a whole number of at least 1.
    """
    if int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


#: A plant is accepted as Schur stable when its spectral radius is below this value.
SCHUR_STABILITY_RADIUS = 1.0


def schur_stable(A, name="A"):
    """Return ``A`` as a float array (one matrix or a stack ``(..., n, n)``) after
    checking it is finite, square and Schur stable (spectral radius < 1).

    Raises
    ------
    ValueError
        Naming ``name``, on a non-finite or non-square array or a spectral radius >= 1
        (the index of the first unstable matrix is given for a stack).
    """
    A = np.asarray(A, dtype=float)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(
            f"{name} must be square (or a stack of square matrices), got shape {A.shape}"
        )
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    radius = np.max(np.abs(np.linalg.eigvals(A)), axis=-1)
    unstable = np.flatnonzero(radius >= SCHUR_STABILITY_RADIUS)
    if unstable.size:
        where = "" if A.ndim == 2 else f" (agent {unstable[0]})"
        value = np.ravel(radius)[unstable[0]]
        raise ValueError(
            f"{name} is not Schur stable{where}: spectral radius {value:.6g} >= 1, so the "
            "state has no stationary distribution"
        )
    return A


def covariance_stack(value, name, size=None, definite=True):
    """Return a stack ``(..., n, n)`` of symmetric positive (semi-)definite matrices, symmetrized.

    The stacked counterpart of :func:`ssa_privacy._validation.pd_cholesky` and
    :func:`~ssa_privacy._validation.psd_matrix`, vectorised so that 10^5 small matrices
    are checked at once.

    Raises
    ------
    ValueError
        Naming ``name``, on a non-finite, non-square, asymmetric or not positive definite
        (``definite=True``) / semi-definite matrix, with the index of the first offending
        matrix for a stack.
    """
    array = np.asarray(value, dtype=float)
    if array.ndim == 2:
        (pd_cholesky if definite else psd_matrix)(array, name, size)
        return 0.5 * (array + array.T)
    if array.ndim < 2 or array.shape[-1] != array.shape[-2]:
        raise ValueError(f"{name} must be a stack of square matrices, got shape {array.shape}")
    if size is not None and array.shape[-1] != size:
        raise ValueError(f"{name} must hold {size}x{size} matrices, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    transpose = np.swapaxes(array, -1, -2)
    scale = np.maximum(np.max(np.abs(array), axis=(-2, -1)), np.finfo(float).tiny)
    asymmetric = np.flatnonzero(
        np.max(np.abs(array - transpose), axis=(-2, -1)) > SYMMETRY_RTOL * scale
    )
    if asymmetric.size:
        raise ValueError(f"{name} is not symmetric (matrix {asymmetric[0]} of the stack)")
    array = 0.5 * (array + transpose)
    smallest = np.linalg.eigvalsh(array)[..., 0]
    bad = np.flatnonzero(smallest <= 0 if definite else smallest < -PSD_RTOL * scale)
    if bad.size:
        kind = "positive definite" if definite else "positive semi-definite"
        raise ValueError(
            f"{name} is not {kind} (matrix {bad[0]} of the stack has smallest eigenvalue "
            f"{np.ravel(smallest)[bad[0]]:.3g})"
        )
    return array
