"""NEES, NIS and chi-square bands against scipy and Monte Carlo."""

import numpy as np
import pytest
from scipy import stats

from ssa_privacy.estimation.consistency import (
    chi_square_band,
    median_chi_square_band,
    nees,
    nis,
)


def random_covariances(rng, count, n, scale):
    """``count`` random SPD n x n covariances in mixed units (standard deviations ``scale``)."""
    A = rng.standard_normal((count, n, n))
    P = A @ np.swapaxes(A, 1, 2) / n + 0.05 * np.eye(n)
    return P * np.outer(scale, scale)


def test_nees_equals_the_quadratic_form_solved_independently():
    rng = np.random.default_rng(0)
    scale = np.array([1.0, 1.0, 1.0, 1e-3, 1e-3, 1e-3])  # km and km/s
    P = random_covariances(rng, 50, 6, scale)
    e = rng.standard_normal((50, 6)) * scale
    expected = np.einsum("ki,ki->k", e, np.linalg.solve(P, e[..., None])[..., 0])
    np.testing.assert_allclose(nees(e, P), expected, rtol=1e-11)
    np.testing.assert_allclose(
        nis(e[:3, :2], P[:3, :2, :2]),
        [float(v @ np.linalg.solve(S, v)) for v, S in zip(e[:3, :2], P[:3, :2, :2], strict=True)],
        rtol=1e-11,
    )


def test_nees_broadcasts_one_covariance_over_many_errors():
    rng = np.random.default_rng(1)
    P = random_covariances(rng, 1, 3, np.ones(3))[0]
    e = rng.standard_normal((4, 7, 3))
    expected = np.einsum("abi,ij,abj->ab", e, np.linalg.inv(P), e)
    np.testing.assert_allclose(nees(e, P), expected, rtol=1e-11)


def test_jitter_is_added_to_the_correlation_matrix():
    P = np.diag([4.0, 1e-6])
    e = np.array([2.0, 1e-3])  # one standard deviation on each axis
    assert nees(e, P) == pytest.approx(2.0, rel=1e-14)
    assert nees(e, P, jitter=1.0) == pytest.approx(1.0, rel=1e-14)  # (1 + 1) per axis


@pytest.mark.parametrize("confidence", [0.95, 0.99])
def test_gaussian_errors_with_their_covariance_fall_inside_the_band_at_its_rate(confidence):
    """R Gaussian errors drawn with their own covariance: the count of NEES inside the
    band is binomial(R, confidence); it must lie in that binomial's 99.9% interval."""
    rng = np.random.default_rng(int(confidence * 100))
    runs, n = 4000, 6
    P = random_covariances(rng, runs, n, np.array([1.0, 2.0, 3.0, 1e-3, 2e-3, 3e-3]))
    e = np.einsum("kij,kj->ki", np.linalg.cholesky(P), rng.standard_normal((runs, n)))
    low, high = chi_square_band(n, confidence=confidence)
    values = nees(e, P)
    inside = int(np.sum((values >= low) & (values <= high)))
    lo, hi = stats.binom.ppf([0.0005, 0.9995], runs, confidence)
    assert lo <= inside <= hi
    # the mean of groups of 20 values, inside the band of the mean of 20 at its rate
    means = values.reshape(-1, 20).mean(axis=1)
    low20, high20 = chi_square_band(n, 20, confidence)
    inside20 = int(np.sum((means >= low20) & (means <= high20)))
    lo, hi = stats.binom.ppf([0.0005, 0.9995], len(means), confidence)
    assert lo <= inside20 <= hi


def test_median_band_holds_the_median_at_its_rate():
    rng = np.random.default_rng(5)
    trials, count = 2000, 25
    medians = np.median(rng.chisquare(6, (trials, count)), axis=1)
    low, high = median_chi_square_band(6, count)
    inside = int(np.sum((medians >= low) & (medians <= high)))
    lo, hi = stats.binom.ppf([0.0005, 0.9995], trials, 0.95)
    assert lo <= inside <= hi


@pytest.mark.parametrize(
    ("dof", "count", "confidence"), [(6, 1, 0.95), (3, 40, 0.9), (1, 517, 0.99)]
)
def test_bands_are_the_chi_square_quantiles(dof, count, confidence):
    tail = (1 - confidence) / 2
    low = stats.chi2(dof * count).ppf(tail) / count
    high = stats.chi2(dof * count).isf(tail) / count
    assert chi_square_band(dof, count, confidence) == pytest.approx((low, high), rel=1e-10)


def test_median_band_for_one_value_is_the_chi_square_band():
    assert median_chi_square_band(6, 1) == pytest.approx(chi_square_band(6), rel=1e-10)


def test_bad_input_names_the_argument():
    P = np.eye(3)
    with pytest.raises(ValueError, match="errors contains non-finite"):
        nees([np.nan, 0.0, 0.0], P)
    with pytest.raises(ValueError, match="covariances must hold n x n matrices"):
        nees(np.zeros(3), np.eye(2))
    with pytest.raises(ValueError, match="do not broadcast"):
        nees(np.zeros((4, 3)), np.stack([P] * 5))
    with pytest.raises(ValueError, match="zero or negative variance"):
        nees(np.zeros(3), np.diag([1.0, 0.0, 1.0]))
    with pytest.raises(
        ValueError, match=r"covariances is not positive definite \(matrix \(1,\) of the stack\)"
    ):
        nees(np.zeros((2, 3)), np.stack([P, np.ones((3, 3))]))
    with pytest.raises(ValueError, match="jitter"):
        nees(np.zeros(3), P, jitter=-1.0)
    with pytest.raises(ValueError, match="innovations contains non-finite"):
        nis([np.inf], [[1.0]])
    with pytest.raises(ValueError, match="dof must be a positive integer"):
        chi_square_band(0)
    with pytest.raises(ValueError, match="count must be a positive integer"):
        median_chi_square_band(6, 2.5)
    with pytest.raises(ValueError, match="confidence"):
        chi_square_band(6, confidence=1.0)
