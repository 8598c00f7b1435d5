"""Consistency of a filter: the NEES and NIS, and their chi-square bands.

A filter is consistent when its errors are zero-mean with the covariance it states. Two
statistics test it (Bar-Shalom, Li and Kirubarajan, *Estimation with Applications to
Tracking and Navigation*, 2001, §5.4):

- the normalized estimation error squared (NEES) ``e^T P^{-1} e`` of an estimate's error
  e (known in simulation) with its stated covariance P, chi-square with n (the state
  dimension) degrees of freedom for a consistent filter (ibid., §5.4.2), :func:`nees`;
- the normalized innovation squared (NIS) ``nu^T S^{-1} nu`` of an innovation nu with its
  predicted covariance S, chi-square with the measurement dimension (ibid., §5.4.3),
  :func:`nis`.

An average of N independent such values (over Monte Carlo runs, or over the epochs of
one run when they are independent) is chi-square with ``N dof`` degrees of freedom,
divided by N: :func:`chi_square_band` gives its two-sided band, and
:func:`median_chi_square_band` that of the median of N values.
"""

import numpy as np
from scipy import stats

from ssa_privacy._internal.validation import (
    as_finite_array,
    non_negative,
    open_interval,
    positive_int,
)

__all__ = ["chi_square_band", "median_chi_square_band", "nees", "nis"]


def nees(errors, covariances, jitter=0.0):
    """The normalized estimation error squared ``e^T P^{-1} e`` of each estimate.

    Parameters
    ----------
    errors : array_like, shape (..., n)
        Estimate minus truth (the state's units, e.g. km and km/s).
    covariances : array_like, shape (..., n, n)
        The stated covariances (the state's units squared), symmetric positive definite;
        their leading shape must broadcast with that of ``errors``.
    jitter : float, optional
        Added to the diagonal of each correlation matrix (the covariance divided by its
        standard deviations, unit diagonal) before its Cholesky factorisation, >= 0
        (default 0): a floor on the eigenvalues that round-off leaves in a covariance
        the dynamics have stretched (e.g. ``64 n`` times the machine epsilon).

    Returns
    -------
    ndarray, shape (...)
        The NEES, chi-square with n degrees of freedom for a consistent filter.

    Raises
    ------
    ValueError
        Naming the argument: non-finite entries, shapes that do not match, a covariance
        with a zero or negative variance or that is not positive definite (the index of
        the first one in a stack), a negative ``jitter``.
    TypeError
        If an argument does not hold real numbers.

    Notes
    -----
    Computed as ``|L^{-1} (e / s)|^2``, s the standard deviations and ``L L^T`` the
    Cholesky factorisation of the correlation matrix (plus ``jitter I``): scaling by s
    makes the factorisation insensitive to mixed units. Bar-Shalom, Li and Kirubarajan,
    2001, §5.4.2, eq. (5.4.2-1).
    """
    return _normalized_square(errors, covariances, "errors", "covariances", jitter)


def nis(innovations, covariances):
    """The normalized innovation squared ``nu^T S^{-1} nu`` of each innovation.

    Parameters
    ----------
    innovations : array_like, shape (..., m)
        Measurement minus its prediction (the measurement's units).
    covariances : array_like, shape (..., m, m)
        The innovations' predicted covariances S (units squared), symmetric positive
        definite; their leading shape must broadcast with that of ``innovations``.

    Returns
    -------
    ndarray, shape (...)
        The NIS, chi-square with m degrees of freedom for a consistent filter.

    Raises
    ------
    ValueError
        As :func:`nees`, naming ``innovations`` or ``covariances``.
    TypeError
        If an argument does not hold real numbers.

    Notes
    -----
    Computed as :func:`nees` (Cholesky of the correlation matrix). Bar-Shalom, Li and
    Kirubarajan, 2001, §5.4.3, eq. (5.4.3-1).
    """
    return _normalized_square(innovations, covariances, "innovations", "covariances", 0.0)


def chi_square_band(dof, count=1, confidence=0.95):
    """Two-sided band of the mean of ``count`` independent chi-square(dof) values.

    Parameters
    ----------
    dof : int
        Degrees of freedom of each value (n for a NEES, m for a NIS), >= 1.
    count : int, optional
        N, the values averaged (Monte Carlo runs, or the epochs of a time average), >= 1
        (default 1: one value's band).
    confidence : float, optional
        Probability inside the band, in (0, 1) (default 0.95).

    Returns
    -------
    tuple of float
        ``F^{-1}_{chi^2_{dof N}}((1 -+ confidence) / 2) / N``: N times the mean is
        chi-square with ``dof N`` degrees of freedom.

    Raises
    ------
    ValueError
        If ``dof`` or ``count`` is not a positive integer, or ``confidence`` is not in
        (0, 1).
    TypeError
        If an argument is not a real number.

    Notes
    -----
    Bar-Shalom, Li and Kirubarajan, 2001, §5.4.2, eqs. (5.4.2-3) to (5.4.2-6) (the
    Monte Carlo average NEES and its acceptance region) and §5.4.2's time-averaged
    NEES (the epochs of one run, assumed independent). A NIS summed over updates of
    ``d`` rows in all, divided by d, has the band ``chi_square_band(1, d)``.
    """
    dof, count = positive_int(dof, "dof"), positive_int(count, "count")
    tail = (1.0 - open_interval(confidence, "confidence")) / 2.0
    low, high = stats.chi2.ppf([tail, 1.0 - tail], dof * count) / count
    return float(low), float(high)


def median_chi_square_band(dof, count, confidence=0.95):
    """Two-sided band of the median of ``count`` independent chi-square(dof) values.

    Parameters
    ----------
    dof : int
        Degrees of freedom of each value, >= 1.
    count : int
        N, the values, >= 1.
    confidence : float, optional
        Probability inside the band, in (0, 1) (default 0.95).

    Returns
    -------
    tuple of float
        The chi-square(dof) quantiles at the ``(1 -+ confidence) / 2`` quantiles of
        ``Beta(k, N + 1 - k)``, ``k = (N + 1) / 2``: the sample median is the k-th order
        statistic, and ``F(X_(k))`` of N independent draws is so distributed (David and
        Nagaraja, *Order Statistics*, 2003, §2.2; for even N the Beta law of the
        fractional order statistic, an approximation). Unlike the mean's band it is not
        moved by a few values far out.

    Raises
    ------
    ValueError
        If ``dof`` or ``count`` is not a positive integer, or ``confidence`` is not in
        (0, 1).
    TypeError
        If an argument is not a real number.
    """
    dof, count = positive_int(dof, "dof"), positive_int(count, "count")
    tail = (1.0 - open_interval(confidence, "confidence")) / 2.0
    k = (count + 1) / 2.0
    low, high = stats.beta.ppf([tail, 1.0 - tail], k, count + 1 - k)
    return float(stats.chi2.ppf(low, dof)), float(stats.chi2.ppf(high, dof))


def _normalized_square(vectors, covariances, name, covariance_name, jitter):
    """``v^T P^{-1} v`` per vector, by Cholesky of the correlation matrix (:func:`nees`)."""
    jitter = non_negative(jitter, "jitter")
    v = as_finite_array(vectors, name)
    P = as_finite_array(covariances, covariance_name)
    if v.ndim < 1 or P.ndim < 2 or P.shape[-2:] != (v.shape[-1],) * 2:
        raise ValueError(
            f"{covariance_name} must hold n x n matrices for {name} of shape {v.shape} "
            f"(n = {v.shape[-1] if v.ndim else 0}), got shape {P.shape}"
        )
    try:
        shape = np.broadcast_shapes(v.shape[:-1], P.shape[:-2])
    except ValueError:
        raise ValueError(
            f"{name} (shape {v.shape}) and {covariance_name} (shape {P.shape}) do not broadcast"
        ) from None
    variances = np.einsum("...ii->...i", P)
    if np.any(variances <= 0.0):
        raise ValueError(f"{covariance_name} has a zero or negative variance on its diagonal")
    s = np.sqrt(variances)
    correlations = P / (s[..., :, None] * s[..., None, :])
    correlations = 0.5 * (correlations + np.swapaxes(correlations, -1, -2))
    correlations = correlations + jitter * np.eye(P.shape[-1])
    try:
        L = np.linalg.cholesky(correlations)
    except np.linalg.LinAlgError:
        smallest = np.linalg.eigvalsh(correlations)[..., 0]
        first = tuple(int(i) for i in np.unravel_index(np.argmin(smallest), smallest.shape))
        where = f" (matrix {first} of the stack)" if first else ""
        raise ValueError(
            f"{covariance_name} is not positive definite{where}: its correlation matrix "
            f"(plus jitter {jitter:g}) has smallest eigenvalue {float(smallest[first]):.3g}"
        ) from None
    z = _forward_substitution(np.broadcast_to(L, (*shape, *L.shape[-2:])), v / s)
    return np.sum(z**2, axis=-1)


def _forward_substitution(L, b):
    """``L^{-1} b`` for stacks of lower-triangular L (..., n, n) and vectors b (..., n)."""
    b = np.broadcast_to(b, L.shape[:-1])
    z = np.empty(L.shape[:-1])
    for i in range(L.shape[-1]):
        z[..., i] = (b[..., i] - np.einsum("...j,...j->...", L[..., i, :i], z[..., :i])) / L[
            ..., i, i
        ]
    return z
