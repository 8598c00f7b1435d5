"""Internals of ``privacy.pml.information_form`` against the computations they replace."""

import numpy as np
import pytest

from ssa_privacy.privacy.pml.information_form import _prior_root, _root


def test_the_remembered_prior_root_is_the_root_of_the_stored_prior():
    A = np.random.default_rng(1).standard_normal((6, 6))
    Sigma = A @ A.T + np.diag([1.0, 1.0, 1.0, 1e-6, 1e-6, 1e-6])
    L, g, inverse_norm = _root(Sigma)
    for _ in range(2):  # computed, then remembered
        cached = _prior_root(Sigma)
        assert np.array_equal(cached[0], L) and cached[1:] == (g, inverse_norm)
    with pytest.raises(ValueError):
        cached[0][0, 0] = 0.0  # read-only: a caller cannot change what others get
    other = Sigma.copy()
    other[0, 0] *= 1.0 + 2.0**-50
    assert _prior_root(other)[1:] == _root(other)[1:]
    assert not np.array_equal(_prior_root(other)[0], L)
