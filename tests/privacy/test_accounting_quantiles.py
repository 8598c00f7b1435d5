"""``privacy.accounting``'s quantiles against scipy's, on every path of their caching."""

import numpy as np
import pytest
from scipy import stats

from ssa_privacy.privacy.accounting import minimum_epsilon


@pytest.mark.parametrize("delta", [0.3, 0.01, 1e-9])
@pytest.mark.parametrize(
    "l", [6, [6], [[1, 2, 3], [4, 5, 6]], [4] * 40 + [3], list(range(1, 40)), []]
)
def test_minimum_epsilon_is_half_the_chi_square_quantile(delta, l):
    expected = stats.chi2.isf(delta, np.asarray(l)) / 2.0
    for _ in range(2):  # computed, then remembered
        got = minimum_epsilon(delta, l)
        assert np.shape(got) == np.shape(expected)
        assert np.array_equal(got, expected)


def test_minimum_epsilon_broadcasts_an_array_of_deltas():
    deltas, l = np.array([0.1, 0.01]), np.array([2, 6])
    assert np.array_equal(minimum_epsilon(deltas, l), stats.chi2.isf(deltas, l) / 2.0)
