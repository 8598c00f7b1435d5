"""Noise that restores the PML budget of a pass's real, nonlinear release.

The pass mechanism is designed for the linearised map C of x0
(:class:`~ssa_privacy.privacy.pml.passes.PassMechanism`); the real release carries the
remainder ``r(x) = g(x) - g(0) - C x`` as well, in directions the privacy noise (of rank
at most 6, inside the range of C) leaves to the sensor noise alone. Late in a window the
remainder over the prior's bulk is many sensor standard deviations, and the real release
leaks far beyond the budget (:func:`~ssa_privacy.attacks.nonlinear_leakage.nonlinear_pml`).
:func:`remainder_samples` measures the remainder on the boundary of the prior's 1 - delta
region; :func:`restored_mechanism` adds noise along its principal directions, sized for a
share eta of the budget, the linear design taking ``epsilon - eta``.
"""

import numpy as np
from scipy import linalg, stats

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import as_finite_array, positive_int, unit_interval
from ssa_privacy.attacks.nonlinear_leakage import _checked_values
from ssa_privacy.privacy.pml.passes import PassMechanism

__all__ = [
    "remainder_samples",
    "restored_mechanism",
]

#: The share of the whitened remainder's squared bound that :func:`restored_mechanism`
#: leaves to the sensor noise alone.
TAIL_SHARE = 0.1


def remainder_samples(g_batch, C, Sigma_XX, delta, count, seed):
    """The second-order remainder ``g(x) - g(0) - C x`` on the prior's 1 - delta ellipsoid.

    Parameters
    ----------
    g_batch : callable
        ``g_batch(X)``, X (N, n) -> (N, M), as
        :func:`~ssa_privacy.attacks.nonlinear_leakage.nonlinear_pml`.
    C : array_like, shape (M, n) or (K, m, n)
        The linearised map at x = 0 (stacked if three-dimensional).
    Sigma_XX : array_like, shape (n, n)
        The prior covariance of x0, positive definite.
    delta : float
        The ellipsoid ``x^T Sigma_XX^-1 x = F^{-1}_{chi^2_n}(1 - delta)`` holds the prior's
        1 - delta mass.
    count : int
        Number of points, uniform on the ellipsoid's boundary in whitened coordinates.
    seed : int, SeedSequence or Generator
        Randomness.

    Returns
    -------
    ndarray, shape (count, M)
        The remainders (release units).

    Raises
    ------
    ValueError
        On a prior that is not positive definite, delta outside (0, 1), or shapes that
        do not match.
    TypeError
        If ``g_batch`` is not callable.

    Notes
    -----
    Taylor's theorem: the remainder is second order in x, so its largest size over the
    ellipsoid is reached on the boundary (up to the third-order terms, which
    :func:`restored_mechanism` covers by an inflation factor).
    """
    L_X = pd_cholesky(Sigma_XX, "Sigma_XX")
    n = len(L_X)
    C = as_finite_array(C, "C")
    C = C.reshape(-1, n) if C.ndim == 3 else C
    if C.ndim != 2 or C.shape[1] != n:
        raise ValueError(f"C must have shape (M, {n}) or (K, m, {n}), got {C.shape}")
    radius = np.sqrt(stats.chi2.ppf(1.0 - float(unit_interval(delta, "delta")), n))
    s = random_generator(seed).standard_normal((positive_int(count, "count"), n))
    X = radius * (s / np.linalg.norm(s, axis=1, keepdims=True)) @ L_X.T
    values = _checked_values(g_batch, np.vstack([np.zeros((1, n)), X]), len(C))
    return values[1:] - values[0] - X @ C.T


def restored_mechanism(mechanism, remainders, eta, sensor_covariance, *, inflation=2.0):
    """A pass mechanism with extra noise that covers the nonlinear remainder of the release.

    Parameters
    ----------
    mechanism : PassMechanism
        The linear design, for the budget ``epsilon - eta`` and ``delta / 2``.
    remainders : array_like, shape (J, M)
        Remainders ``g(x) - g(0) - C x`` on the boundary of the prior's region of mass
        ``1 - delta / 2`` (:func:`remainder_samples`), release units.
    eta : float
        The budget set aside for the remainder, nats (> 0).
    sensor_covariance : array_like, shape (m, m)
        The sensor noise covariance R of one measurement.
    inflation : float, optional
        Factor on the largest sampled amplitude of each direction (default 2), for the
        remainder's higher-order terms and the sampling of the boundary.

    Returns
    -------
    PassMechanism
        ``designer="restored"``, budget ``(mechanism.epsilon + eta, 2 mechanism.delta)``;
        its factor is F with extra columns ``D v_i sqrt(gamma_i^2 - present_i)``.

    Raises
    ------
    TypeError
        If ``mechanism`` is not a PassMechanism.
    ValueError
        On a non-positive eta or inflation, ``2 mechanism.delta >= 1``, or shapes that
        do not match.

    Notes
    -----
    Rows are divided by D, the sensor standard deviations. With ``a(x) = Gamma^{-1/2}
    r(x)`` the whitened remainder and ``|a(x)| <= beta`` over the region A, the outcome's
    remainder part ``r(x*) + n``, ``n ~ N(0, Gamma)``, changes ``log p(y | x)`` between
    two x of A by at most ``(|P w| + 2 beta)^2 / 2 - (|P w| - 2 beta)^2 / 2 = 4 beta |P
    w|``, P the projection onto the k remainder directions, ``|P w|^2 ~ chi^2_k``: so
    ``l(y)`` exceeds the linear leakage by at most ``eta = 4 beta sqrt(F^{-1}_{chi^2_k}(1
    - delta/2))`` except with probability delta / 2 (sup and mean of the likelihood
    ratio taken over A, the heuristic step; :func:`~ssa_privacy.attacks.nonlinear_leakage.nonlinear_pml` checks it). The
    remainders' principal directions v_i get ``gamma_i = b_i sqrt(k / (1 - s)) /
    beta``, b_i the largest sampled ``|v_i^T r|`` times ``inflation``; the weakest
    directions, whose ``sum b_i^2`` stays below ``s beta^2`` (s = :data:`TAIL_SHARE`),
    keep the sensor noise alone. The noise already along v_i is subtracted.
    """
    if not isinstance(mechanism, PassMechanism):
        raise TypeError(f"mechanism must be a PassMechanism, got {type(mechanism).__name__}")
    eta = float(as_finite_array(eta, "eta", ndim=0))
    inflation = float(as_finite_array(inflation, "inflation", ndim=0))
    if eta <= 0 or inflation <= 0:
        raise ValueError(f"eta and inflation must be positive, got {eta} and {inflation}")
    delta = 2.0 * mechanism.delta
    if delta >= 1.0:
        raise ValueError(f"2 mechanism.delta must be below 1, got {delta}")
    K, m, _ = mechanism.C.shape
    R = np.asarray(sensor_covariance, dtype=float)
    pd_cholesky(R, "sensor_covariance", m)
    r = as_finite_array(remainders, "remainders", ndim=2)
    if r.shape[1] != K * m:
        raise ValueError(f"remainders must have {K * m} columns, got {r.shape}")
    D = np.tile(np.sqrt(np.diag(R)), K)
    V, b = _remainder_directions(r / D, inflation)
    k, beta = len(b), 0.0
    for _ in range(3):  # k depends on beta through the tail, beta on k
        c = np.sqrt(stats.chi2.ppf(1.0 - delta / 2, max(k, 1)))
        beta = eta / (4.0 * c)
        tail = np.cumsum((b**2)[::-1])[::-1]
        k = int(np.sum(tail > TAIL_SHARE * beta**2))
    gamma2 = b[:k] ** 2 * k / ((1.0 - TAIL_SHARE) * beta**2)
    S = linalg.block_diag(*[R] * K) + mechanism.Theta
    present = np.einsum("mi,mn,ni->i", V[:, :k], S / np.outer(D, D), V[:, :k])
    extra = np.sqrt(np.clip(gamma2 - present, 0.0, None))
    factor = np.hstack([mechanism.factor, D[:, None] * V[:, :k] * extra])
    return PassMechanism(
        mechanism.C,
        mechanism.Sigma_XX,
        factor,
        mechanism.epsilon + eta,
        delta,
        convention=mechanism.convention,
        designer="restored",
    )


def _remainder_directions(r, inflation):
    """Principal directions (M, q) of whitened remainders and their inflated largest
    amplitudes (q,), strongest first."""
    _, _, Vt = np.linalg.svd(r, full_matrices=False)
    b = inflation * np.max(np.abs(r @ Vt.T), axis=0)
    order = np.argsort(b)[::-1]
    return Vt[order].T, b[order]
