"""Pointwise maximal leakage (PML) of jointly Gaussian variables, in closed form [LKC §2-3].

For jointly Gaussian ``X`` (n-dim, the private state) and ``Y`` (m-dim, the release), with
``Gamma = Sigma_XX - Sigma_XY Sigma_YY^{-1} Sigma_XY^T`` the posterior covariance and
``l = rank(Sigma_XY)``, the PML at an observation ``y`` is::

    l(X -> y) = w * I(X; Y) + xi / 2,   I(X; Y) = (log det Sigma_XX - log det Gamma) / 2,

with ``xi ~ chi^2_l`` when ``Y`` is drawn from its distribution. The weight is ``w = 1``
in the ``"exact"`` convention (the default: the PML as defined) and ``w = 2`` in the
``"paper"`` one ([LKC] Theorem 3.2 as printed, whose conditions are stricter, hence still
sufficient). Every (epsilon, delta) statement reduces to [LKC] Theorem 3.3, (8)::

    log det Gamma - log det Sigma_XX >= (F^{-1}_{chi^2_l}(1 - delta) - 2 epsilon) / w,

the right side being :func:`~ssa_privacy.privacy.accounting.log_det_ratio_bound`
(``n log kappa`` in the paper's notation): that budget and its necessary condition (9) are
the PML part of :mod:`ssa_privacy.privacy.accounting`, the conventions and their weights
are in :mod:`ssa_privacy.privacy.notions`. Leakages are in nats. The derivation, the
factor-1/2 correction of Theorem 3.2 and both conventions: :doc:`/theory/pml`.

References
----------
[LKC] L. Liu, Y. Kawano, M. Cao, "Privacy protection under the exposure of systems'
prior information".
"""

from collections import namedtuple

import numpy as np
from scipy import linalg, stats

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    non_negative,
    nonempty,
    open_interval,
    positive_int,
    scalar,
    scalar_or_array,
    unit_interval,
    vector,
    whole_numbers,
)
from ssa_privacy.privacy import accounting
from ssa_privacy.privacy.notions import convention_weight

__all__ = [
    "EIGENVALUE_TOL",
    "CORRELATION_TOL",
    "MonteCarloProbability",
    "gaussian_mechanism",
    "is_pml_private",
    "kappa",
    "leakage_probability",
    "linear_mechanism_covariances",
    "monte_carlo_leakage_probability",
    "mutual_information",
    "pml_margin",
    "pointwise_maximal_leakage",
]

#: Canonical correlations at or below this value count as zero when computing l.
CORRELATION_TOL = 1e-10

#: lambda_i counts when rho_i > CORRELATION_TOL: the same cut on the eigenvalues of the
#: information form ``Lambda = rho^2 / (1 - rho^2)``.
EIGENVALUE_TOL = CORRELATION_TOL**2 / (1.0 - CORRELATION_TOL**2)


def kappa(epsilon, delta, n, l, convention="exact"):
    """The contraction factor kappa_l(epsilon, delta) of [LKC] (11).

    Parameters
    ----------
    epsilon, delta, l, convention
        As :func:`~ssa_privacy.privacy.accounting.log_det_ratio_bound`.
    n : int or array_like
        Dimension of X, a positive integer.

    Returns
    -------
    float or ndarray
        ``exp(log_det_ratio_bound / n)``, in (0, 1). The exact convention gives the
        square of the paper's value.

    Raises
    ------
    ValueError
        As :func:`~ssa_privacy.privacy.accounting.log_det_ratio_bound`, or if ``n`` is not
        a positive integer.
    TypeError
        If an argument is not made of real numbers (a bool, a string, None).

    Notes
    -----
    [LKC] equation (11); in the exact convention ``kappa_exact = kappa_paper^2``
    (:doc:`/theory/pml`).
    """
    n = whole_numbers(n, "n")
    return scalar_or_array(
        np.exp(np.asarray(accounting.log_det_ratio_bound(epsilon, delta, l, convention)) / n)
    )


_Canonical = namedtuple("_Canonical", "rho scores information n m")


def _canonical(Sigma_XX, Sigma_XY, Sigma_YY):
    """Canonical correlations of (X, Y) and the map from ``y - mu_Y`` to canonical scores.

    With ``L_X``, ``L_Y`` the Cholesky factors,
    ``K = L_X^{-1} Sigma_XY L_Y^{-T} = U diag(rho) V^T``.
    Whitened, the prior is N(0, I) and the posterior along each canonical pair is
    ``N(rho_i s_i, 1 - rho_i^2)`` with score ``s_i = v_i^T L_Y^{-1} (y - mu_Y) ~ N(0, 1)``;
    the log density ratio along it peaks at ``-log(1 - rho_i^2)/2 + s_i^2/2``.
    """
    L_X = nonempty(pd_cholesky(Sigma_XX, "Sigma_XX"), "Sigma_XX")
    L_Y = nonempty(pd_cholesky(Sigma_YY, "Sigma_YY"), "Sigma_YY")
    n, m = L_X.shape[0], L_Y.shape[0]
    Sigma_XY = as_matrix(Sigma_XY, "Sigma_XY", (n, m))
    right = linalg.solve_triangular(L_Y, Sigma_XY.T, lower=True)  # L_Y^{-1} Sigma_XY^T
    K = linalg.solve_triangular(L_X, right.T, lower=True)
    _, rho, Vt = linalg.svd(K, full_matrices=False)
    if rho.size and 1.0 - rho[0] ** 2 <= 1e-12:
        raise ValueError(
            "the joint covariance [[Sigma_XX, Sigma_XY], [Sigma_XY^T, Sigma_YY]] is not positive "
            f"definite: largest canonical correlation {rho[0]:.12g} >= 1"
        )
    keep = rho > CORRELATION_TOL
    scores = linalg.solve_triangular(L_Y, Vt[keep].T, lower=True, trans="T").T  # V_l^T L_Y^{-1}
    information = -0.5 * float(np.sum(np.log1p(-(rho[keep] ** 2))))
    return _Canonical(rho[keep], scores, information, n, m)


def mutual_information(Sigma_XX, Sigma_XY, Sigma_YY):
    """Mutual information I(X; Y) of a jointly Gaussian pair, in nats.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of X, positive definite.
    Sigma_XY : array_like, shape (n, m)
        Cross covariance.
    Sigma_YY : array_like, shape (m, m)
        Covariance of Y, positive definite.

    Returns
    -------
    float
        ``(log det Sigma_XX - log det Gamma) / 2 = -sum_i log(1 - rho_i^2) / 2`` over the
        canonical correlations ``rho_i``.

    Raises
    ------
    ValueError
        On wrong shapes, non-finite or not positive definite covariances, or a singular
        joint covariance.

    Notes
    -----
    [LKC] Definition 3.10 and proof of Theorem 3.11 (for a linear mechanism it equals
    ``log det(I + Sigma_XX^{1/2} C^T Theta^{-1} C Sigma_XX^{1/2}) / 2``).
    """
    return _canonical(Sigma_XX, Sigma_XY, Sigma_YY).information


def pointwise_maximal_leakage(
    Sigma_XX, Sigma_XY, Sigma_YY, y, mu_X=None, mu_Y=None, convention="exact"
):
    """PML ``l(X -> y)`` of a jointly Gaussian pair at an observation ``y``, in nats.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of X, positive definite.
    Sigma_XY : array_like, shape (n, m)
        Cross covariance of X and Y.
    Sigma_YY : array_like, shape (m, m)
        Covariance of Y, positive definite.
    y : array_like, shape (m,) or (k, m)
        One observation, or k of them.
    mu_X : array_like, shape (n,), optional
        Mean of X (default 0). The leakage does not depend on it (the supremum over x is
        translation invariant); it is only validated.
    mu_Y : array_like, shape (m,), optional
        Mean of Y (default 0).
    convention : {"exact", "paper"}
        ``"exact"``: ``I(X;Y) + xi/2``; ``"paper"``: [LKC] (6) as printed, ``2 I(X;Y) + xi/2``.

    Returns
    -------
    float or ndarray, shape (k,)
        The leakage, >= 0.

    Raises
    ------
    ValueError
        On wrong shapes, non-finite values, covariances that are not positive definite, a
        singular joint covariance, or an unknown convention.

    Notes
    -----
    [LKC] Theorem 3.2, (6)-(7), evaluated through canonical correlations:
    ``xi = |V_l^T L_Y^{-1} (y - mu_Y)|^2`` with ``V_l`` the right singular vectors of
    ``L_X^{-1} Sigma_XY L_Y^{-T}`` whose singular values exceed ``CORRELATION_TOL``.
    Exact convention (factor 1/2 on the log-det term): :doc:`/theory/pml`.
    """
    weight = convention_weight(convention)
    canon = _canonical(Sigma_XX, Sigma_XY, Sigma_YY)
    y = as_finite_array(y, "y")
    if y.ndim not in (1, 2) or y.shape[-1] != canon.m:
        raise ValueError(f"y must have shape ({canon.m},) or (k, {canon.m}), got {y.shape}")
    if mu_X is not None:
        vector(mu_X, "mu_X", canon.n)
    if mu_Y is not None:
        y = y - vector(mu_Y, "mu_Y", canon.m)
    xi = np.sum((y @ canon.scores.T) ** 2, axis=-1)
    return scalar_or_array(weight * canon.information + 0.5 * xi)


def leakage_probability(Sigma_XX, Sigma_XY, Sigma_YY, epsilon, convention="exact"):
    """``P_Y[l(X -> Y) <= epsilon]`` in closed form.

    Parameters
    ----------
    Sigma_XX, Sigma_XY, Sigma_YY
        As :func:`pointwise_maximal_leakage`.
    epsilon : float
        Leakage level, nats.
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    float
        ``F_{chi^2_l}(2 epsilon - 2 w I(X;Y))`` (1 when ``l = 0``: nothing leaks).

    Raises
    ------
    ValueError
        As :func:`pointwise_maximal_leakage`, or a non-finite ``epsilon``.

    Notes
    -----
    [LKC] proof of Theorem 3.3 (xi ~ chi^2_l); both conventions: :doc:`/theory/pml`.
    """
    weight = convention_weight(convention)
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    canon = _canonical(Sigma_XX, Sigma_XY, Sigma_YY)
    if canon.rho.size == 0:
        return float(epsilon >= 0)
    return float(stats.chi2.cdf(2.0 * (epsilon - weight * canon.information), canon.rho.size))


def pml_margin(Sigma_XX, Sigma_XY, Sigma_YY, epsilon, delta, convention="exact"):
    """Slack of the (epsilon, delta)-PML condition, in nats (>= 0 iff private).

    Parameters
    ----------
    Sigma_XX, Sigma_XY, Sigma_YY
        As :func:`pointwise_maximal_leakage`.
    epsilon : float
        Leakage bound, nats.
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    float
        ``epsilon - w I(X;Y) - F^{-1}_{chi^2_l}(1 - delta) / 2``; ``epsilon`` when ``l = 0``.

    Raises
    ------
    ValueError
        As :func:`pointwise_maximal_leakage`, or ``delta`` outside (0, 1).

    Notes
    -----
    [LKC] Theorem 3.3, condition (8); both conventions: :doc:`/theory/pml`.
    """
    weight = convention_weight(convention)
    delta = float(unit_interval(delta, "delta"))
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    canon = _canonical(Sigma_XX, Sigma_XY, Sigma_YY)
    if canon.rho.size == 0:
        return epsilon
    return float(
        epsilon - weight * canon.information - accounting.minimum_epsilon(delta, canon.rho.size)
    )


def is_pml_private(Sigma_XX, Sigma_XY, Sigma_YY, epsilon, delta, convention="exact", atol=1e-9):
    """Whether X is (epsilon, delta)-PML private given Y (Theorem 3.3).

    Parameters
    ----------
    Sigma_XX, Sigma_XY, Sigma_YY, epsilon, delta, convention
        As :func:`pml_margin`.
    atol : float, optional
        Tolerance in nats on the condition, for designs that meet it with equality.

    Returns
    -------
    bool
        ``pml_margin(...) >= -atol``.

    Raises
    ------
    ValueError
        As :func:`pml_margin`, or a negative ``atol``.

    Notes
    -----
    [LKC] Theorem 3.3, condition (8); both conventions: :doc:`/theory/pml`.
    """
    atol = non_negative(atol, "atol")
    return pml_margin(Sigma_XX, Sigma_XY, Sigma_YY, epsilon, delta, convention) >= -atol


def linear_mechanism_covariances(C, Sigma_XX, Theta):
    """Covariances of the linear Gaussian mechanism ``Y = C X + V``, ``V ~ N(0, Theta)``.

    Parameters
    ----------
    C : array_like, shape (m, n)
        Output matrix.
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of X, positive definite.
    Theta : array_like, shape (m, m)
        Noise covariance, positive semi-definite.

    Returns
    -------
    Sigma_XY : ndarray, shape (n, m)
        ``Sigma_XX C^T``.
    Sigma_YY : ndarray, shape (m, m)
        ``C Sigma_XX C^T + Theta``.

    Raises
    ------
    ValueError
        On wrong shapes or invalid covariances.

    Notes
    -----
    [LKC] (14) and proof of Corollary 3.7.
    """
    Sigma_XX = nonempty(psd_matrix(Sigma_XX, "Sigma_XX"), "Sigma_XX")
    C = nonempty(as_matrix(C, "C", (None, Sigma_XX.shape[0])), "C")
    Theta = psd_matrix(Theta, "Theta", C.shape[0])
    Sigma_YY = C @ Sigma_XX @ C.T + Theta
    return Sigma_XX @ C.T, 0.5 * (Sigma_YY + Sigma_YY.T)


def gaussian_mechanism(Z, Theta, rng=None):
    """Release ``Y = Z + V`` with ``V ~ N(0, Theta)`` drawn independently for each row.

    Parameters
    ----------
    Z : array_like, shape (..., m)
        The signals to privatize (one per row), in their physical unit.
    Theta : array_like, shape (m, m)
        Noise covariance, positive semi-definite, unit squared.
    rng : numpy.random.Generator or int or None, optional
        Source of randomness. ``None`` (default) draws fresh entropy, as a release must;
        pass a seed or Generator only for reproducible studies.

    Returns
    -------
    ndarray, shape (..., m)
        The privatized signals.

    Raises
    ------
    ValueError
        If ``Z`` is not finite or its last axis does not match ``Theta``.
    TypeError
        If ``rng`` is not None, a non-negative int or a Generator.

    Notes
    -----
    [LKC] Definition 3.5, mechanism (10). The Monte Carlo evaluations draw the mechanism's
    noise with it (:func:`monte_carlo_leakage_probability`,
    :func:`~ssa_privacy.estimation.kalman.empirical_error_covariance`); a release of real
    data goes through :meth:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism.release`,
    which also certifies.
    """
    Z = as_finite_array(Z, "Z")
    Theta = psd_matrix(Theta, "Theta")
    if Z.ndim < 1 or Z.shape[-1] != Theta.shape[0]:
        raise ValueError(f"Z must end with an axis of length {Theta.shape[0]}, got shape {Z.shape}")
    noise = random_generator(rng, "rng").multivariate_normal(
        np.zeros(Theta.shape[0]), Theta, size=Z.shape[:-1], method="eigh", check_valid="ignore"
    )
    return Z + noise


MonteCarloProbability = namedtuple("MonteCarloProbability", "estimate low high failures samples")
MonteCarloProbability.__doc__ = """Monte Carlo estimate of P[l(X -> Y) <= epsilon], with an interval.

Parameters
----------
estimate : float
    The fraction of draws with ``l <= epsilon``.
low, high : float
    The Clopper-Pearson interval.
failures : int
    Draws with ``l > epsilon``.
samples : int
    Number of draws.
"""


def monte_carlo_leakage_probability(
    C, Sigma_XX, Theta, epsilon, samples, rng=None, convention="exact", confidence=0.99
):
    """Monte Carlo estimate of ``P[l(X -> Y) <= epsilon]`` for ``Y = C X + V``.

    Parameters
    ----------
    C : array_like, shape (m, n)
        Output matrix.
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of X (zero mean), positive definite.
    Theta : array_like, shape (m, m)
        Noise covariance, positive semi-definite.
    epsilon : float
        Leakage level, nats.
    samples : int
        Number of independent draws of (X, Y).
    rng : numpy.random.Generator or int or None, optional
        Source of randomness (``None``: fresh entropy).
    convention : {"exact", "paper"}
        Which leakage formula to evaluate at each draw.
    confidence : float, optional
        Confidence level of the two-sided Clopper-Pearson interval (default 0.99).

    Returns
    -------
    MonteCarloProbability
        Estimate, interval, number of draws with ``l > epsilon`` and of draws.

    Raises
    ------
    ValueError
        On invalid covariances, shapes, a non-finite epsilon, ``samples`` < 1 or
        ``confidence`` outside (0, 1).
    TypeError
        On a number of the wrong type (bool, string) or a bad ``rng``.

    Notes
    -----
    Draws ``X ~ N(0, Sigma_XX)``, releases ``Y`` through :func:`gaussian_mechanism` and
    evaluates :func:`pointwise_maximal_leakage`; the target is [LKC] (4).
    """
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(C, Sigma_XX, Theta)
    epsilon = scalar(epsilon, "epsilon")
    samples = positive_int(samples, "samples")
    confidence = open_interval(confidence, "confidence")
    convention_weight(convention)
    rng = random_generator(rng, "rng")
    L_X = pd_cholesky(Sigma_XX, "Sigma_XX")
    X = rng.standard_normal((int(samples), L_X.shape[0])) @ L_X.T
    Y = gaussian_mechanism(X @ np.asarray(C, dtype=float).T, Theta, rng)
    leakage = pointwise_maximal_leakage(Sigma_XX, Sigma_XY, Sigma_YY, Y, convention=convention)
    failures = int(np.sum(leakage > epsilon))
    interval = stats.binomtest(int(samples) - failures, int(samples)).proportion_ci(
        confidence, method="exact"
    )
    return MonteCarloProbability(
        1.0 - failures / samples, interval.low, interval.high, failures, int(samples)
    )
