"""The DP certificates at the edges of their validity, checked against mpmath.

At extreme epsilons, deltas, sensitivities and noise scales, a certificate either reports
a margin whose exact value (computed here independently by mpmath, with enough digits for
every cancellation and the differences taken exactly) lies within its tolerance, or the
call fails with an error of the stated type naming the argument at fault.
"""

import math

import mpmath as mp
import numpy as np
import pytest

from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism
from ssa_privacy.privacy.dp_gp.release import gaussian_check, mahalanobis_enclosure
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.posterior_sampling.enclosure import epsilon_enclosure_exp_1d

#: Digits of the reference values: beyond every loss to cancellation in the cases below.
DIGITS = 400
SUBNORMAL = 5e-324


def exact_delta(m, epsilon):
    """Balle and Wang's delta(m) at DIGITS digits (mpmath's normal CDF), as a range.

    ``(delta, delta)`` exactly; for ``m / 2 - epsilon / m < -100`` (where mpmath's CDF of
    arguments near 1e154 and beyond overflows) the range ``[0, Phi(-100)]`` that holds it,
    since ``0 <= delta(m) <= Phi(m / 2 - epsilon / m)``.
    """
    with mp.workdps(DIGITS):
        m, epsilon = mp.mpf(m), mp.mpf(epsilon)
        if m == 0:
            return mp.mpf(0), mp.mpf(0)
        if m / 2 - epsilon / m < -100:
            return mp.mpf(0), mp.ncdf(-100)
        value = mp.ncdf(m / 2 - epsilon / m) - mp.exp(epsilon) * mp.ncdf(-m / 2 - epsilon / m)
        return value, value


def assert_encloses(certificate, exact_margin):
    """``|margin - exact| <= tolerance`` with the difference taken exactly; passed is sound."""
    with mp.workdps(DIGITS):
        assert abs(mp.fsub(certificate.margin, exact_margin, exact=True)) <= certificate.tolerance
    assert not certificate.passed or exact_margin >= 0


# --------------------------------------------------------------------------------------
# The Gaussian certificate
# --------------------------------------------------------------------------------------

#: (m, epsilon, delta, relative error of m): delta(m) far below an ulp of delta, negligible
#: (erfc argument above 40), subnormal m, delta(m) near 1, tiny epsilon, the two erfc
#: terms cancelling, arguments whose rounding costs digits, targets near 0 and 1.
GAUSSIAN_EDGES = [
    (0.5, 6.0, 0.01, 0.0),
    (0.5, 6.0, 0.01, 1e-9),
    (1e-3, 30.0, 0.01, 0.0),
    (1e-150, 1e300, 1e-300, 1e-3),
    (SUBNORMAL, 1.0, 0.5, 0.0),
    (1e5, 1.0, 1e-300, 1e-3),
    (1.0, 1e-300, 0.5, 0.0),
    (40.0, 800.0, 1e-10, 1e-6),
    (1e-6, 1e-10, 1e-3, 0.0),
    (2.0, 1.0, 1e-300, 0.0),
    (0.05, 1e-3, 1.0 - 2.0**-53, 0.0),
    (3.0, 5.0, 1e-20, 1e-9),
    (2000.0, 1e6, 1e-5, 0.0),
    (1e6, 5e11 + 10.0, 1e-5, 1e-9),
    (8.5, 36.0, 1e-5, 1e-15),
]


@pytest.mark.parametrize("m, epsilon, delta, relative", GAUSSIAN_EDGES)
def test_gaussian_certificate_encloses_the_exact_margin_at_the_edges(m, epsilon, delta, relative):
    error = relative * m
    certificate = gaussian_check("edge", m, epsilon, delta, "analytic", sensitivity_error=error)
    assert certificate.passed == (certificate.margin - certificate.tolerance >= 0)
    for point in (max(m - error, 0.0), m, m + error):
        for end in exact_delta(point, epsilon):  # the exact margin lies between the ends
            with mp.workdps(DIGITS):
                assert_encloses(certificate, mp.fsub(delta, end, exact=True))


def test_a_negligible_delta_costs_one_subnormal():
    """Beyond erfc argument 40 the exact delta is below 1e-697: margin delta, tolerance the
    smallest subnormal, and the certificate passes."""
    certificate = gaussian_check("edge", 1e-3, 30.0, 0.01, "analytic")
    assert (certificate.margin, certificate.tolerance, certificate.passed) == (
        0.01,
        SUBNORMAL,
        True,
    )


def test_an_infinite_sensitivity_is_exact_and_fails():
    certificate = gaussian_check("edge", np.inf, 1.0, 0.01, "analytic")
    assert certificate.margin == 0.01 - 1.0 and not certificate.passed


@pytest.mark.parametrize(
    "arguments, error, names",
    [
        ((1, 0.5, 1.0, 0.01, "analytic"), TypeError, ("mechanism",)),
        (("t", -0.5, 1.0, 0.01, "analytic"), ValueError, ("mahalanobis_sensitivity",)),
        (("t", np.nan, 1.0, 0.01, "analytic"), ValueError, ("mahalanobis_sensitivity",)),
        (("t", "0.5", 1.0, 0.01, "analytic"), TypeError, ("mahalanobis_sensitivity",)),
        (("t", 0.5, 0.0, 0.01, "analytic"), ValueError, ("epsilon",)),
        (("t", 0.5, -1.0, 0.01, "analytic"), ValueError, ("epsilon",)),
        (("t", 0.5, np.inf, 0.01, "analytic"), ValueError, ("epsilon",)),
        (("t", 0.5, 1.0, 0.0, "analytic"), ValueError, ("delta",)),
        (("t", 0.5, 1.0, 1.0, "analytic"), ValueError, ("delta",)),
        (("t", 0.5, 1.0, np.nan, "analytic"), ValueError, ("delta",)),
        (
            ("t", 2.0**400, 2.0**799, 0.5, "analytic"),
            ValueError,
            ("mahalanobis_sensitivity", "epsilon"),
        ),
    ],
)
def test_gaussian_certificate_refuses_bad_arguments_by_name(arguments, error, names):
    with pytest.raises(error) as raised:
        gaussian_check(*arguments)
    assert all(name in str(raised.value) for name in names)


@pytest.mark.parametrize("bad", [-1e-3, np.nan, "x"])
def test_gaussian_certificate_refuses_a_bad_sensitivity_error(bad):
    with pytest.raises((TypeError, ValueError), match="sensitivity_error"):
        gaussian_check("t", 0.5, 1.0, 0.01, "analytic", sensitivity_error=bad)


@pytest.mark.parametrize(
    "noise, shifts, error, name",
    [
        (np.eye(2), np.ones((2, 1)), TypeError, "noise_covariance"),
        (
            FactoredCovariance.scaled_identity(1.0, 2),
            np.array([[1.0], [np.nan]]),
            ValueError,
            "shifts",
        ),
        (FactoredCovariance.scaled_identity(1.0, 2), np.ones((3, 1)), ValueError, "shifts"),
        (FactoredCovariance.scaled_identity(1.0, 2), np.ones((2, 0)), ValueError, "shifts"),
    ],
)
def test_mahalanobis_enclosure_refuses_bad_arguments_by_name(noise, shifts, error, name):
    with pytest.raises(error, match=name):
        mahalanobis_enclosure(noise, shifts)


@pytest.mark.parametrize("variance", [1e-300, 1.0, 1e300])
def test_mahalanobis_enclosure_holds_at_extreme_noise_scales(variance):
    """A diagonal noise of any normal scale: the exact norm ``||s|| / sqrt(variance)``."""
    noise = FactoredCovariance.scaled_identity(variance, 3)
    shifts = np.array([[1.0, 0.5], [2.0, -1.0], [3.0, 0.25]]) * math.sqrt(variance)
    m, error = mahalanobis_enclosure(noise, shifts)
    with mp.workdps(DIGITS):
        exact = max(
            mp.sqrt(mp.fsum(mp.mpf(float(x)) ** 2 for x in column) / mp.mpf(variance))
            for column in shifts.T
        )
        assert abs(mp.fsub(m, exact, exact=True)) <= error


# --------------------------------------------------------------------------------------
# Laplace bins
# --------------------------------------------------------------------------------------

BIN_INPUTS = np.array([0.5, 1.5, 1.6])
BIN_EDGES = [0.0, 1.0, 2.0]


def laplace_margin(mechanism, noise):
    """epsilon - max_b (d / n_b) / sqrt(Sigma_bb / 2) at DIGITS digits."""
    with mp.workdps(DIGITS):
        V = noise.eigenvectors
        losses = []
        for b in np.flatnonzero(mechanism.counts):
            variance = mp.fsum(
                mp.mpf(float(V[b, k])) ** 2 * mp.mpf(float(lam))
                for k, lam in enumerate(noise.eigenvalues)
            )
            losses.append(
                mp.mpf(mechanism.sensitivity) / int(mechanism.counts[b]) / mp.sqrt(variance / 2)
            )
        return mp.mpf(mechanism.epsilon) - max(losses)


@pytest.mark.parametrize(
    "epsilon, sensitivity",
    [(1e-3, 1e150), (1e-3, 1e-150), (1e100, 1e-3), (1e-100, 1e50), (20.0, 1e-3)],
)
def test_laplace_certificate_encloses_the_exact_margin_at_extreme_scales(epsilon, sensitivity):
    mechanism = LaplaceBinningMechanism(BIN_INPUTS, BIN_EDGES, epsilon, sensitivity)
    certificate = mechanism.certificate()
    exact = laplace_margin(mechanism, mechanism.noise_covariance)
    assert certificate.passed
    assert_encloses(certificate, exact)


@pytest.mark.parametrize(
    "epsilon, sensitivity", [(1.0, 1e-160), (1e160, 1e-3), (1.0, 1e-310), (1.0, 1e160)]
)
def test_laplace_calibration_outside_the_normal_range_is_refused_by_name(epsilon, sensitivity):
    """A variance 2 b^2 that underflows or overflows is not the calibrated noise."""
    with pytest.raises(ValueError, match="sensitivity / epsilon"):
        LaplaceBinningMechanism(BIN_INPUTS, BIN_EDGES, epsilon, sensitivity)


def test_laplace_certificate_proves_nothing_from_a_subnormal_variance():
    """An audited variance below the normal range: halving it rounds, so no bound holds."""
    mechanism = LaplaceBinningMechanism(BIN_INPUTS, BIN_EDGES, 1.0, 1.0)
    noise = FactoredCovariance(np.array([3 * SUBNORMAL, 1.0]), np.eye(2))
    certificate = mechanism.with_noise(noise).certificate()
    assert certificate.tolerance == np.inf and not certificate.passed


def test_laplace_certificate_of_an_exactly_zero_variance_is_exact():
    """A bin without noise has an infinite loss, exactly: margin -inf, tolerance 0."""
    mechanism = LaplaceBinningMechanism(BIN_INPUTS, BIN_EDGES, 1.0, 1.0)
    noise = FactoredCovariance(np.array([1.0]), np.eye(2)[:, :1])
    certificate = mechanism.with_noise(noise).certificate()
    assert (certificate.margin, certificate.tolerance, certificate.passed) == (-np.inf, 0.0, False)


# --------------------------------------------------------------------------------------
# The Renyi epsilon of posterior sampling
# --------------------------------------------------------------------------------------


def exact_renyi_epsilon(order, scale, n, lengthscale, ridge, sigma, delta):
    """Theorem 3.1 of [MAC] (eta = 0, one path, M_Y = 1) at DIGITS digits."""
    with mp.workdps(DIGITS):
        r2, alpha = mp.mpf(ridge) ** 2, mp.mpf(order)
        V = 1 - mp.exp(-2 / mp.mpf(lengthscale)) * (n - 1) / (n - 1 + r2)
        Phi = 1 / (4 * r2) if V >= r2 else V / (V + r2) ** 2
        tau, beta = V / r2, (alpha - 1) * V / r2
        psi = max(
            mp.log(1 + tau) / 2 - tau / (2 * beta) * mp.log((1 + alpha * tau) / (1 + tau)),
            -mp.log(1 + tau) / 2 - tau / (2 * beta) * mp.log(1 - beta),
        )
        mean = (
            alpha * (V + r2) * 8 * Phi / (2 * mp.mpf(scale) * mp.mpf(sigma) ** 2 * r2 * (1 - beta))
        )
        return 2 * psi + mean + mp.log(1 / mp.mpf(delta)) / (alpha - 1)


@pytest.mark.parametrize(
    "order, n, lengthscale, ridge",
    [
        (1.1, 10, 1e30, 1e-15),
        (1.5, 10, 1.0, 3.0),
        (1.0 + 1e-12, 1000, 0.1, 1.0),
        (1.9, 2, 1e3, 1.0),
    ],
)
def test_renyi_epsilon_enclosure_brackets_the_exact_value_through_cancellations(
    order, n, lengthscale, ridge
):
    """``V = 2.1e-30`` in the first case: 40 digits kept 11, and the enclosure missed."""
    setting = dict(n=n, lengthscale=lengthscale, ridge=ridge, sigma=1.0, delta=1e-5)
    lower, upper = epsilon_enclosure_exp_1d(order, (1.0, 1.0), **setting)
    exact = exact_renyi_epsilon(order, 1.0, **setting)
    assert lower <= exact <= upper


@pytest.mark.parametrize(
    "order, scales, name",
    [
        (1.0, (1.0, 1.0), "order"),
        (2.0, (2.0, 1.0), "scales"),
        (2.0, (-1.0, 1.0), "c_lo"),
        (2.0, 1.0, "scales"),
    ],
)
def test_renyi_epsilon_enclosure_refuses_bad_arguments_by_name(order, scales, name):
    setting = dict(n=10, lengthscale=1.0, ridge=3.0, sigma=1.0, delta=1e-5)
    with pytest.raises(ValueError, match=name):
        epsilon_enclosure_exp_1d(order, scales, **setting)
