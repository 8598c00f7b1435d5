"""Internals of ``privacy.pml.passes`` against the computations they replace."""

import numpy as np
from scipy import linalg

from ssa_privacy.privacy.pml.passes import _block_diagonal


def test_block_diagonal_equals_scipy_block_diag():
    blocks = np.random.default_rng(0).standard_normal((7, 4, 4))
    assert np.array_equal(_block_diagonal(blocks), linalg.block_diag(*blocks))
    assert np.array_equal(_block_diagonal(blocks[:1]), blocks[0])
