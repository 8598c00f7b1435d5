"""Rigorous bounds on the rounding errors of floating-point certificates.

Every :class:`~ssa_privacy.privacy.mechanism.Certificate` reports a computed ``margin``
and a ``tolerance`` bounding the distance from the computed margin to the exact margin
of the floating-point inputs; ``passed`` means ``margin - tolerance >= 0``. This module
holds the building blocks those bounds share:

- the standard model of floating-point arithmetic, ``fl(a op b) = (a op b)(1 + d)`` with
  ``|d| <= u = 2^-53``, and Higham's constants ``gamma_k = k u / (1 - k u)`` (Higham,
  *Accuracy and Stability of Numerical Algorithms*, 2nd ed., 2002, Lemma 3.1); an inner
  product of length k is off by at most ``gamma_k |x|^T |y|`` in any summation order
  ((3.5) there), hence a matrix product by ``gamma_k |A| |B|`` ((3.13));
- a verified lower bound on the smallest eigenvalue from a successful Cholesky
  factorisation (Higham Theorem 10.3; Rump 2006, BIT 46:433-452);
- an enclosure of the singular values of a stored matrix from a computed SVD, by an a
  posteriori residual and the orthogonality defects of the computed singular vectors
  (Weyl's inequality and ``sigma_i(A B C) <= ||A||_2 sigma_i(B) ||C||_2``);
- enclosures of scalar special functions (chi-square quantiles, normal tails) evaluated
  by mpmath at 40 significant digits, far beyond the double-precision inputs, with the
  verification done by monotonicity at the two ends of the enclosure.
"""

import functools

import mpmath
import numpy as np
from scipy import stats
from scipy.linalg import lapack

from ssa_privacy._internal.matrix_validation import symmetric_matrix
from ssa_privacy._internal.validation import (
    as_matrix,
    non_negative_int,
    nonempty,
    open_interval,
    positive_int,
)

__all__ = [
    "DIGITS",
    "EXTRA",
    "INFLATE",
    "RULE",
    "UNIT_ROUNDOFF",
    "abs_norm2_squared",
    "chi2_quantile_enclosure",
    "cholesky_lower_bound",
    "colsum",
    "gamma",
    "orthogonality_defect",
    "proven_lambda_min",
    "rowsum",
    "singular_value_enclosure",
]

#: Unit roundoff of IEEE double precision (rounding to nearest).
UNIT_ROUNDOFF = 2.0**-53
#: Every bound is multiplied by this factor to cover the rounding of its own evaluation
#: (sums and products of at most 1e9 non-negative numbers lose less than 1e-6 relative).
INFLATE = 1.001
#: Extra roundings allowed per computed entry (a division done as a product with a
#: computed reciprocal, as optimised BLAS do, and the final store).
EXTRA = 2
#: Significant digits of the mpmath evaluations of scalar special functions.
DIGITS = 40
#: Relative guard on an mpmath comparison (its own error is below 10^-(DIGITS - 5)).
_MP_GUARD = mpmath.mpf(10) ** (5 - DIGITS)
#: Relative widths tried for a verified quantile enclosure.
_WIDTHS = (1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4)


def gamma(k):
    """Higham's ``gamma_k = k u / (1 - k u)`` for double precision.

    Parameters
    ----------
    k : int
        Number of roundings, ``k u < 1/2``.

    Returns
    -------
    float
        The constant bounding ``|prod (1 + delta_i)^{+-1} - 1|`` over k roundings.

    Raises
    ------
    TypeError
        If ``k`` is not an integer.
    ValueError
        If ``k`` is negative or ``k u >= 1/2``.

    Notes
    -----
    Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Lemma 3.1.
    """
    ku = non_negative_int(k, "k") * UNIT_ROUNDOFF
    if ku >= 0.5:
        raise ValueError(f"gamma_k needs k u < 1/2, got k = {k}")
    return ku / (1.0 - ku)


def cholesky_lower_bound(A):
    """A rigorous lower bound on the smallest eigenvalue of A, or None.

    Parameters
    ----------
    A : ndarray, shape (n, n)
        A symmetric floating-point matrix, taken exactly as stored.

    Returns
    -------
    float or None
        ``-gamma_{n+2} / (1 - gamma_{n+2}) * sum_i |a_ii|`` when LAPACK's Cholesky
        factorisation runs to completion, None when it breaks down.

    Raises
    ------
    TypeError
        If ``A`` is not a matrix of real numbers.
    ValueError
        If ``A`` is not finite, square and symmetric (to ``SYMMETRY_RTOL``).

    Notes
    -----
    If the factorisation completes, ``R^T R = A + E`` with ``|E| <= gamma_{n+2} |R^T| |R|``
    (Higham 2002, Theorem 10.3; its proof uses only the recurrences, in any order of the
    inner products, so it holds for any symmetric A for which the factorisation completes;
    two extra roundings cover a division done as a product with a reciprocal). ``|R^T|
    |R|`` is the Gram matrix of the columns of ``|R|``, so ``||E||_2 <= gamma sum_i
    ||r_i||^2 <= gamma / (1 - gamma) sum_i a_ii``, and ``A >= -||E||_2 I`` because
    ``R^T R >= 0``. This is the verification of Rump (2006), BIT 46:433-452.
    """
    A = _stored_symmetric(A, "A")
    n = len(A)
    if n == 0:
        return 0.0
    _, info = lapack.dpotrf(A, lower=1, clean=0, overwrite_a=0)
    if info != 0:
        return None
    g = gamma(n + EXTRA)
    return -INFLATE * g / (1.0 - g) * float(np.sum(np.abs(np.diag(A))))


def _stored_symmetric(A, name):
    """``A`` as a float array, as stored, after checking it is finite, square and symmetric
    to :data:`~ssa_privacy._internal.matrix_validation.SYMMETRY_RTOL`."""
    symmetric_matrix(A, name)
    return np.asarray(A, dtype=float)


def rowsum(A):
    """``max_i sum_j |a_ij|`` (``||A||_inf``; bounds ``||A||_2`` for a symmetric A).

    Parameters
    ----------
    A : ndarray, shape (p, q)
        Any matrix.

    Returns
    -------
    float
        The largest absolute row sum (0 for an empty matrix).

    Raises
    ------
    TypeError, ValueError
        If ``A`` is not a finite matrix of real numbers.
    """
    A = as_matrix(A, "A")
    return float(np.max(np.sum(np.abs(A), axis=1))) if A.size else 0.0


def colsum(A):
    """``max_j sum_i |a_ij|`` (``||A||_1``).

    Parameters
    ----------
    A : ndarray, shape (p, q)
        Any matrix.

    Returns
    -------
    float
        The largest absolute column sum (0 for an empty matrix).

    Raises
    ------
    TypeError, ValueError
        If ``A`` is not a finite matrix of real numbers.
    """
    A = as_matrix(A, "A")
    return float(np.max(np.sum(np.abs(A), axis=0))) if A.size else 0.0


def abs_norm2_squared(L):
    """An upper bound on ``|| |L| ||_2^2``: ``min(||L||_F^2, ||L||_1 ||L||_inf)``.

    Parameters
    ----------
    L : ndarray, shape (p, q)
        Any matrix (typically a Cholesky factor).

    Returns
    -------
    float
        The bound (Higham 2002, (6.12) and Lemma 6.6).

    Raises
    ------
    TypeError, ValueError
        If ``L`` is not a finite matrix of real numbers.
    """
    L = as_matrix(L, "L")
    return min(float(np.sum(L**2)), colsum(L) * rowsum(L))


def proven_lambda_min(A):
    """A proven lower bound on the smallest eigenvalue of a stored symmetric matrix.

    Parameters
    ----------
    A : ndarray, shape (n, n)
        Symmetric, taken exactly as stored.

    Returns
    -------
    float
        ``sigma + cholesky_lower_bound(A - sigma I)`` minus the rounding of the shift, for
        the first of ``sigma = 0.9, 0.5, 0`` times the computed smallest eigenvalue (0 if
        it is not positive) whose factorisation completes; ``-inf`` if none does.

    Raises
    ------
    TypeError
        If ``A`` is not a matrix of real numbers.
    ValueError
        If ``A`` is empty, or not finite, square and symmetric (to ``SYMMETRY_RTOL``).
    """
    A = nonempty(_stored_symmetric(A, "A"), "A")
    estimate = float(np.linalg.eigvalsh(A)[0])
    for fraction in (0.9, 0.5, 0.0):
        sigma = fraction * estimate if estimate > 0 else 0.0
        shifted = A.copy()
        shifted[np.diag_indices_from(shifted)] -= sigma
        bound = cholesky_lower_bound(shifted)
        if bound is not None:
            diagonal = float(np.max(np.abs(np.diag(shifted))))
            return sigma + bound - INFLATE * UNIT_ROUNDOFF * diagonal
    return -np.inf


def orthogonality_defect(Q):
    """A rigorous upper bound on ``||Q^T Q - I||_2`` for a stored matrix with k columns.

    Parameters
    ----------
    Q : ndarray, shape (p, k)
        Computed orthonormal columns (eigen- or singular vectors).

    Returns
    -------
    float
        ``||fl(Q^T Q) - I||_F + gamma_{p+1} ||Q||_F^2``, inflated by ``INFLATE``: the
        product is off by at most ``gamma_p |Q|^T |Q|`` entrywise (Higham (3.13)), whose
        Frobenius norm is at most ``||Q||_F^2``; one more rounding covers the subtraction.

    Raises
    ------
    TypeError, ValueError
        If ``Q`` is not a finite matrix of real numbers.
    """
    Q = as_matrix(Q, "Q")
    p = Q.shape[0]
    defect = Q.T @ Q - np.eye(Q.shape[1])
    return INFLATE * (float(np.linalg.norm(defect)) + gamma(p + 1) * float(np.sum(Q**2)))


def singular_value_enclosure(K):
    """Computed singular values of a stored matrix with rigorous lower and upper bounds.

    Parameters
    ----------
    K : ndarray, shape (p, q)
        The matrix, taken exactly as stored.

    Returns
    -------
    sigma : ndarray, shape (min(p, q),)
        LAPACK's singular values, descending.
    lower, upper : ndarray, shape (min(p, q),)
        ``lower_i <= sigma_i(K) <= upper_i`` for the exact singular values of the stored K.

    Notes
    -----
    With the computed ``K ~ U S V^T``: ``U`` and ``V`` have orthogonality defects
    ``omega_U``, ``omega_V`` (:func:`orthogonality_defect`), so the singular values of
    ``U S V^T`` lie in ``s_i [sqrt((1 - omega_U)(1 - omega_V)), sqrt((1 + omega_U)(1 +
    omega_V))]`` (``sigma_i(A B C)`` lies between ``sigma_min(A) sigma_i(B)
    sigma_min(C)`` and ``||A|| sigma_i(B) ||C||``). The residual ``R = K - U S V^T`` is
    computed with an error of at most ``gamma_{k+2} sum_i s_i ||u_i|| ||v_i|| + u
    ||K||_F`` in the Frobenius norm (Higham (3.13)), and Weyl's inequality moves each
    singular value by at most ``||R||_2 <= ||R||_F``. No property of the SVD routine is
    assumed: the enclosure is a posteriori.

    Raises
    ------
    TypeError, ValueError
        If ``K`` is not a finite matrix of real numbers.
    """
    K = as_matrix(K, "K")
    U, s, Vt = np.linalg.svd(K, full_matrices=False)
    k = len(s)
    if k == 0:
        return s, s.copy(), s.copy()
    omega_U, omega_V = orthogonality_defect(U), orthogonality_defect(Vt.T)
    spread = float(np.sum(s * np.linalg.norm(U, axis=0) * np.linalg.norm(Vt, axis=1)))
    residual = float(np.linalg.norm(K - (U * s) @ Vt)) + INFLATE * (
        gamma(k + EXTRA) * spread + UNIT_ROUNDOFF * float(np.linalg.norm(K))
    )
    residual *= INFLATE
    shrink = np.sqrt(max(0.0, (1.0 - omega_U) * (1.0 - omega_V))) * (1.0 - 4 * UNIT_ROUNDOFF)
    stretch = np.sqrt((1.0 + omega_U) * (1.0 + omega_V)) * (1.0 + 4 * UNIT_ROUNDOFF)
    lower = np.maximum(s * shrink - residual, 0.0)
    upper = s * stretch + residual
    return s, lower, upper


def _chi2_sf(x, l):
    """P[chi^2_l > x] evaluated by mpmath at DIGITS significant digits."""
    with mpmath.workdps(DIGITS):
        a, z = mpmath.mpf(int(l)) / 2, mpmath.mpf(float(x)) / 2
        return mpmath.gammainc(a, z, mpmath.inf, regularized=True)


def chi2_quantile_enclosure(delta, l):
    """The (1 - delta)-quantile of chi^2_l with a verified enclosure.

    Parameters
    ----------
    delta : float
        Tail probability in (0, 1).
    l : int
        Degrees of freedom, >= 1.

    Returns
    -------
    q : float
        scipy's ``chi2.isf(delta, l)``.
    error : float
        A bound on ``|q - q_exact|`` (inf if no enclosure was verified): the tail
        probability, evaluated by mpmath at 40 digits, is checked to straddle delta at
        ``q (1 -+ w)`` for the smallest width w in 1e-14 ... 1e-4 that does (the tail is
        decreasing in x). Computed once per (delta, l) in a process: a catalogue run
        certifies thousands of designs at one delta and a few ranks.

    Raises
    ------
    TypeError
        If ``delta`` is not a real number or ``l`` not an integer.
    ValueError
        If ``delta`` is outside (0, 1) or ``l`` below 1.
    """
    return _chi2_quantile_enclosure(open_interval(delta, "delta"), positive_int(l, "l"))


@functools.lru_cache(maxsize=256)
def _chi2_quantile_enclosure(delta, l):
    q = float(stats.chi2.isf(delta, l))
    target = mpmath.mpf(delta)
    for width in _WIDTHS:
        low, high = q * (1.0 - width), q * (1.0 + width)
        if _chi2_sf(low, l) > target * (1 + _MP_GUARD) and _chi2_sf(high, l) < target * (
            1 - _MP_GUARD
        ):
            return q, INFLATE * width * q
    return q, np.inf


#: The rule behind ``passed`` of every certificate with a rigorous rounding bound.
RULE = (
    "passed iff margin - tolerance >= 0: the exact margin of the floating-point inputs "
    "lies in [margin - tolerance, margin + tolerance] (rigorous bound)"
)
