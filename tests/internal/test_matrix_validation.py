"""``_internal.matrix_validation.pd_cholesky``: the remembered factors of small matrices
are those computed, new arrays each call, and a failed check still names its argument."""

import numpy as np
import pytest

from ssa_privacy._internal.matrix_validation import _checked_cholesky, pd_cholesky


def test_a_remembered_factor_equals_the_computed_one_and_is_a_new_array():
    A = np.random.default_rng(0).standard_normal((6, 6))
    Sigma = A @ A.T + np.eye(6)
    first, second = pd_cholesky(Sigma, "Sigma"), pd_cholesky(Sigma.copy(), "Sigma", 6)
    assert np.array_equal(first, _checked_cholesky(Sigma, "Sigma", None))
    assert np.array_equal(first, second) and first is not second
    first[0, 0] = 0.0  # the caller's copy: the next call is not affected
    assert np.array_equal(pd_cholesky(Sigma, "Sigma"), second)


def test_a_remembered_matrix_is_checked_against_the_size_asked_for():
    Sigma = np.eye(3)
    pd_cholesky(Sigma, "Sigma", 3)
    with pytest.raises(ValueError, match="Sigma must be 4x4"):
        pd_cholesky(Sigma, "Sigma", 4)


@pytest.mark.parametrize(
    ("value", "message"),
    [(-np.eye(2), "positive definite"), (np.array([[1.0, 2.0], [0.0, 1.0]]), "symmetric")],
)
def test_a_failed_check_names_the_argument_every_time(value, message):
    for _ in range(2):
        with pytest.raises(ValueError, match=f"^P is not {message}"):
            pd_cholesky(value, "P")
