"""The PML certificate's rounding bound against a 50-digit computation of the exact margin."""

import mpmath
import numpy as np
import pytest
from scipy import stats

from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.pml.design import METHODS, LinearGaussianMechanism
from ssa_privacy.privacy.rounding import chi2_quantile_enclosure, singular_value_enclosure

EPSILON, DELTA = 6.0, 0.01


def _mp(A):
    return mpmath.matrix(np.asarray(A, dtype=float).tolist())


def _logdet(M):
    return mpmath.log(mpmath.det(M))


def exact_margin(C, Sigma_XX, noise, epsilon, delta, weight=0.5):
    """epsilon - w I(X; Y) - q / 2 of the stored inputs, at 50 digits."""
    with mpmath.workdps(50):
        S, Cm = _mp(Sigma_XX), _mp(C)
        U = _mp(noise.eigenvectors)
        D = mpmath.diag([mpmath.mpf(float(t)) for t in noise.eigenvalues])
        S_XY = S * Cm.T
        S_YY = Cm * S * Cm.T + U * D * U.T
        n, m = S.rows, S_YY.rows
        J = mpmath.zeros(n + m, n + m)
        for i in range(n + m):
            for j in range(n + m):
                if i < n and j < n:
                    J[i, j] = S[i, j]
                elif i < n:
                    J[i, j] = S_XY[i, j - n]
                elif j < n:
                    J[i, j] = S_XY[j, i - n]
                else:
                    J[i, j] = S_YY[i - n, j - n]
        information = (_logdet(S) + _logdet(S_YY) - _logdet(J)) / 2
        l = int(np.linalg.matrix_rank(C))
        x0 = stats.chi2.isf(delta, l)
        q = mpmath.findroot(
            lambda x: (
                mpmath.gammainc(mpmath.mpf(l) / 2, x / 2, mpmath.inf, regularized=True)
                - mpmath.mpf(delta)
            ),
            mpmath.mpf(x0),
        )
        return mpmath.mpf(epsilon) - 2 * weight * information - q / 2


def _spd(rng, n, condition):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (Q * np.geomspace(1.0, 1.0 / condition, n)) @ Q.T


@pytest.mark.parametrize(
    ("method", "condition"),
    [("logdet", 1.0), ("logdet", 100.0), ("closed-form", 1e6), ("closed-form", 1e10)],
)
@pytest.mark.parametrize("scale", [0.999, 1.0, 1.0 + 1e-9, 3.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_enclosure_contains_the_exact_margin(method, condition, scale, seed):
    rng = np.random.default_rng(seed)
    n, m = 3, 2
    Sigma_XX = _spd(rng, n, condition)
    C = rng.standard_normal((m, n))
    designed = LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA, method=method)
    mechanism = designed.with_noise(designed.noise_covariance.scaled(scale))
    certificate = mechanism.certificate()
    exact = exact_margin(mechanism.C, mechanism.Sigma_XX, mechanism.noise_covariance, 6.0, DELTA)
    assert np.isfinite(certificate.tolerance)
    assert abs(mpmath.mpf(certificate.margin) - exact) <= certificate.tolerance
    if method == "logdet":  # the exact design: (8) holds with equality before inflation
        assert certificate.passed == (scale >= 1.0)


def test_an_ill_conditioned_noise_is_enclosed_too():
    rng = np.random.default_rng(3)
    Sigma_XX = _spd(rng, 3, 10.0)
    C = rng.standard_normal((3, 3))
    Q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    noise = FactoredCovariance(np.array([1e-9, 1e-3, 10.0]), Q)
    mechanism = LinearGaussianMechanism(C, Sigma_XX, noise, 40.0, DELTA)
    certificate = mechanism.certificate()
    exact = exact_margin(C, Sigma_XX, noise, 40.0, DELTA)
    assert abs(mpmath.mpf(certificate.margin) - exact) <= certificate.tolerance
    # 1 - rho^2 ~ 1e-9 along the least noisy direction: a relative error ~1e-13 in rho^2
    # is ~1e-4 in log(1 - rho^2); the bound says so instead of hiding it
    assert certificate.tolerance < 1e-3


@pytest.mark.parametrize("method", METHODS)
def test_every_design_passes_and_a_slightly_smaller_exact_design_fails(method):
    rng = np.random.default_rng(7)
    Sigma_XX = _spd(rng, 4, 100.0)
    C = rng.standard_normal((2, 4))
    mechanism = LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA, method=method)
    certificate = mechanism.certificate()
    assert certificate.passed and certificate.margin - certificate.tolerance >= 0
    assert 0 < certificate.tolerance < 1e-10
    assert 1.0 <= mechanism.inflation < 1.0 + 1e-6
    assert certificate.evidence["design_inflation"] == mechanism.inflation
    smaller = mechanism.with_noise(mechanism.noise_covariance.scaled(0.999)).certificate()
    assert smaller.margin < certificate.margin
    if method == "logdet":  # exact design; the LMI designs are sufficient, with slack
        assert not smaller.passed


def test_singular_value_enclosure_contains_50_digit_singular_values():
    rng = np.random.default_rng(11)
    K = rng.standard_normal((6, 4)) @ np.diag([1.0, 1e-4, 1e-8, 1e-12])
    _, lower, upper = singular_value_enclosure(K)
    with mpmath.workdps(50):
        exact = sorted(mpmath.svd_r(_mp(K), compute_uv=False), reverse=True)
    for value, low, high in zip(exact, lower, upper, strict=True):
        assert mpmath.mpf(low) <= value <= mpmath.mpf(high)


@pytest.mark.parametrize(("delta", "l"), [(1e-9, 1), (0.01, 3), (0.5, 10), (0.99, 50)])
def test_chi2_quantile_enclosure_contains_the_50_digit_quantile(delta, l):
    q, error = chi2_quantile_enclosure(delta, l)
    with mpmath.workdps(50):
        exact = mpmath.findroot(
            lambda x: (
                mpmath.gammainc(mpmath.mpf(l) / 2, x / 2, mpmath.inf, regularized=True)
                - mpmath.mpf(delta)
            ),
            mpmath.mpf(q),
        )
    assert abs(mpmath.mpf(q) - exact) <= error < 1e-9 * q
