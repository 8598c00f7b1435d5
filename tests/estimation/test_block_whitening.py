"""``estimation._block_whitening`` against the dense Cholesky solve it replaces."""

import numpy as np
import pytest
from scipy import linalg

from ssa_privacy.estimation._block_whitening import block_factors, whiten


def _blocks(rng, sizes):
    blocks = []
    for b in sizes:
        A = rng.standard_normal((b, b))
        blocks.append(A @ A.T + b * np.eye(b))
    return blocks


@pytest.mark.parametrize("sizes", [(4,) * 40, (160,), (4, 4, 160, 4, 2, 2, 2, 30, 4)])
def test_whitening_equals_the_dense_cholesky_solve(sizes):
    rng = np.random.default_rng(len(sizes))
    blocks = _blocks(rng, sizes)
    values = rng.standard_normal((sum(sizes), 7))
    dense = np.linalg.cholesky(linalg.block_diag(*blocks))
    expected = linalg.solve_triangular(dense, values, lower=True)
    got = whiten(block_factors(blocks), values)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_runs_of_small_blocks_are_stacked():
    factors = block_factors(_blocks(np.random.default_rng(0), (4, 4, 4, 160, 2, 2)))
    assert [f.shape for f in factors] == [(3, 4, 4), (160, 160), (2, 2, 2)]


@pytest.mark.parametrize("bad", [0, 2])
def test_a_block_not_definite_is_named(bad):
    blocks = _blocks(np.random.default_rng(1), (4, 4, 4))
    blocks[bad] = -blocks[bad]
    with pytest.raises(ValueError, match=rf"noise\[{bad}\] is not positive definite"):
        block_factors(blocks)
