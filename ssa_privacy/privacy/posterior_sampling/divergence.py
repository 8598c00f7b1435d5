"""The exact Renyi divergence between two Gaussians, to test the bound of [MAC].

Theorem 3.1 bounds the Renyi divergence between the releases of two neighbouring data
sets; for two given Gaussian releases :func:`gaussian_renyi_divergence` computes it
exactly (the tests compare the two). The theory is in :doc:`/theory/posterior-sampling`.
"""

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.validation import as_finite_array, nonempty, scalar

__all__ = [
    "gaussian_renyi_divergence",
]


def gaussian_renyi_divergence(alpha, mean1, cov1, mean2, cov2):
    """Renyi divergence ``D_alpha(N(m1, S1) || N(m2, S2))`` of two Gaussians (nats).

    ``(alpha/2) dm^T S_a^{-1} dm - ln(det S_a / (det S1^(1-alpha) det S2^alpha)) / (2 (alpha - 1))``
    with ``S_a = alpha S2 + (1 - alpha) S1``; infinite when ``S_a`` is not positive
    definite.

    Parameters
    ----------
    alpha : float
        Order > 1.
    mean1 : array_like, shape (k,)
        Mean of the first Gaussian.
    cov1 : array_like, shape (k, k)
        Its positive definite covariance.
    mean2 : array_like, shape (k,)
        Mean of the second Gaussian.
    cov2 : array_like, shape (k, k)
        Its positive definite covariance.

    Returns
    -------
    float
        The divergence (nats); ``inf`` when ``S_a`` is not positive definite.

    Raises
    ------
    ValueError
        On alpha <= 1, empty or mismatched shapes, or covariances that are not symmetric
        positive definite.
    TypeError
        On arguments that are not real numbers.

    Notes
    -----
    Gil, Alajaji and Linder (2013), Information Sciences 249, Table 2; [MAC] App. A.
    """
    alpha = scalar(alpha, "alpha", low=1.0, low_open=True)
    mean1 = nonempty(as_finite_array(mean1, "mean1", ndim=1), "mean1")
    mean2 = as_finite_array(mean2, "mean2", ndim=1)
    if mean2.shape != mean1.shape:
        raise ValueError(f"mean2 has {len(mean2)} entries but mean1 has {len(mean1)}")
    dm = mean1 - mean2
    factors = {name: pd_cholesky(S, name, len(dm)) for name, S in (("cov1", cov1), ("cov2", cov2))}
    S1, S2 = (
        0.5 * (S + S.T) for S in (as_finite_array(cov1, "cov1"), as_finite_array(cov2, "cov2"))
    )

    def logdet(S, name):
        return 2.0 * np.sum(np.log(np.diag(factors[name])))

    S_a = alpha * S2 + (1 - alpha) * S1
    try:
        L = np.linalg.cholesky(S_a)
    except np.linalg.LinAlgError:
        return np.inf
    quadratic = np.sum(linalg.solve_triangular(L, dm, lower=True) ** 2)
    log_ratio = (
        2.0 * np.sum(np.log(np.diag(L)))
        - (1 - alpha) * logdet(S1, "cov1")
        - alpha * logdet(S2, "cov2")
    )
    return float(0.5 * alpha * quadratic - log_ratio / (2 * (alpha - 1)))
