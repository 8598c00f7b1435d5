"""Matrix checks shared by the package: symmetry, (semi-)definiteness, rank, stability.

Each check names the offending argument and says what was wrong. They are importable from
:mod:`ssa_privacy._internal.validation`, with the scalar and array checks they build on.
"""

import functools

import numpy as np
from scipy.linalg import lapack

from ssa_privacy._internal.validation import as_finite_array, as_matrix, real_array

__all__ = [
    "ORTHONORMALITY_TOL",
    "PSD_RTOL",
    "SCHUR_STABILITY_RADIUS",
    "SYMMETRY_RTOL",
    "covariance_stack",
    "full_rank",
    "orthonormal_columns",
    "pd_cholesky",
    "psd_matrix",
    "schur_stable",
    "symmetric_matrix",
]

#: Relative tolerance for symmetry checks: |A - A^T| <= SYMMETRY_RTOL * max|A|.
SYMMETRY_RTOL = 1e-8
#: Relative tolerance for positive semi-definiteness: lambda_min >= -PSD_RTOL * max|A|.
PSD_RTOL = 1e-8
#: Columns are accepted as orthonormal when ``|U^T U x - x| <= ORTHONORMALITY_TOL |x|`` for
#: the probes x of :func:`orthonormal_columns` (computed eigenvectors are off by ``n u``).
ORTHONORMALITY_TOL = 1e-6
#: :func:`pd_cholesky` remembers the factors of float matrices of at most this many
#: entries (8 x 8).
REMEMBERED_SIZE = 64
#: Probe vectors of :func:`orthonormal_columns`: with this many columns or fewer, the
#: probes are the unit vectors and the check is exact.
ORTHONORMALITY_PROBES = 8


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

    A float matrix of at most :data:`REMEMBERED_SIZE` entries that passed is remembered
    by its bytes (the check is a pure function of them): the designers check the same
    6 x 6 prior thousands of times. A new array is returned each call.

    Raises
    ------
    ValueError
        As :func:`symmetric_matrix`, or if the matrix is not positive definite.
    """
    if (
        isinstance(value, np.ndarray)
        and value.dtype == np.float64
        and value.ndim == 2
        and value.size <= REMEMBERED_SIZE
    ):
        stored = np.ascontiguousarray(value)
        factor = _remembered_cholesky(stored.tobytes(), stored.shape, size)
        if factor is not None:
            return factor.copy()
    return _checked_cholesky(value, name, size)


@functools.lru_cache(maxsize=256)
def _remembered_cholesky(stored, shape, size):
    """:func:`pd_cholesky` of the matrix of bytes ``stored`` (read-only), None if it fails
    (the caller then checks again, to raise with the argument's name)."""
    try:
        factor = _checked_cholesky(np.frombuffer(stored).reshape(shape), "matrix", size)
    except ValueError:
        return None
    factor.flags.writeable = False
    return factor


def _checked_cholesky(value, name, size):
    """:func:`pd_cholesky`, computed."""
    array = symmetric_matrix(value, name, size)
    try:
        return np.linalg.cholesky(array)
    except np.linalg.LinAlgError:
        smallest = np.linalg.eigvalsh(array)[0]
        raise ValueError(
            f"{name} is not positive definite: smallest eigenvalue {smallest:.3g}"
        ) from None


def orthonormal_columns(value, name):
    """Return a finite matrix ``U`` (n, r) after checking its columns are orthonormal.

    The check costs O(n r), as a product with U does: ``U^T U x = x`` (to
    ``ORTHONORMALITY_TOL``) for the unit vectors x when ``r <= ORTHONORMALITY_PROBES``
    (exact), otherwise for every column's norm and ``ORTHONORMALITY_PROBES`` fixed random
    combinations of the columns.

    Raises
    ------
    ValueError
        Naming ``name``, on a non-finite or non-2-D array, more columns than rows, or a
        Gram matrix ``U^T U`` away from the identity.
    """
    U = as_matrix(value, name)
    n, r = U.shape
    if r > n:
        raise ValueError(f"{name} has {r} columns but only {n} rows: they cannot be orthonormal")
    norms = np.sum(U**2, axis=0)
    worst = int(np.argmax(np.abs(norms - 1.0))) if r else 0
    if r and abs(norms[worst] - 1.0) > ORTHONORMALITY_TOL:
        raise ValueError(
            f"{name} must have orthonormal columns: column {worst} has squared norm "
            f"{norms[worst]:.6g}, not 1"
        )
    if r <= ORTHONORMALITY_PROBES:
        probes = np.eye(r)
    else:
        probes = np.random.default_rng(0).standard_normal((r, ORTHONORMALITY_PROBES))
    defect = np.linalg.norm(U.T @ (U @ probes) - probes, axis=0)
    if np.any(defect > ORTHONORMALITY_TOL * np.linalg.norm(probes, axis=0)):
        raise ValueError(
            f"{name} must have orthonormal columns: |U^T U x - x| / |x| reaches "
            f"{np.max(defect / np.linalg.norm(probes, axis=0)):.3g} (tolerance "
            f"{ORTHONORMALITY_TOL:g})"
        )
    return U


def full_rank(array, name):
    """Return a symmetric stack ``(..., n, n)`` after checking each matrix has full numerical rank.

    Raises
    ------
    ValueError
        Naming ``name`` (and the index in a stack), for a matrix whose smallest eigenvalue
        is at most ``n eps`` times its largest.
    """
    n = array.shape[-1]
    if n == 0:
        return array
    eigenvalues = np.linalg.eigvalsh(array)
    largest = np.max(np.abs(eigenvalues), axis=-1)
    tolerance = largest * n * np.finfo(float).eps
    rank = np.sum(eigenvalues > tolerance[..., None], axis=-1)
    bad = np.flatnonzero(np.ravel(rank) < n)
    if bad.size:
        where = "" if array.ndim == 2 else f" (matrix {bad[0]} of the stack)"
        raise ValueError(
            f"{name} is singular to working precision{where}: numerical rank "
            f"{np.ravel(rank)[bad[0]]} < {n} (smallest eigenvalue "
            f"{np.ravel(eigenvalues[..., 0])[bad[0]]:.3g}, largest {np.ravel(largest)[bad[0]]:.3g})"
        )
    return array


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
    A = as_finite_array(A, name)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2] or A.shape[-1] == 0:
        raise ValueError(
            f"{name} must be square (or a stack of square matrices), got shape {A.shape}"
        )
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

    The stacked counterpart of :func:`pd_cholesky` and
    :func:`psd_matrix`, vectorised so that 10^5 small matrices
    are checked at once.

    Raises
    ------
    ValueError
        Naming ``name``, on a non-finite, non-square, asymmetric or not positive definite
        (``definite=True``) / semi-definite matrix, with the index of the first offending
        matrix for a stack.
    """
    array = real_array(value, name)
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
