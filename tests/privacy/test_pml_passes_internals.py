"""Internals of ``privacy.pml.passes`` against the computations they replace."""

from types import SimpleNamespace

import numpy as np
from scipy import linalg

from ssa_privacy.privacy.pml.passes import (
    PassMechanism,
    _block_diagonal,
    _blocks_svd,
    _factor_svd,
)


def test_block_diagonal_equals_scipy_block_diag():
    blocks = np.random.default_rng(0).standard_normal((7, 4, 4))
    assert np.array_equal(_block_diagonal(blocks), linalg.block_diag(*blocks))
    assert np.array_equal(_block_diagonal(blocks[:1]), blocks[0])


def test_the_blocks_svd_is_that_of_the_block_diagonal_factor():
    rng = np.random.default_rng(1)
    blocks = np.linalg.cholesky(
        np.array([(A @ A.T + np.eye(4)) for A in rng.standard_normal((9, 4, 4))])
    )
    factor = _block_diagonal(blocks)
    U, s = _blocks_svd(blocks)
    U_dense, s_dense = _factor_svd(factor)
    np.testing.assert_allclose(np.sort(s)[::-1], s_dense, rtol=1e-13)
    np.testing.assert_allclose(U.T @ U, np.eye(len(s)), atol=1e-14)
    np.testing.assert_allclose((U * s**2) @ U.T, factor @ factor.T, rtol=1e-13, atol=1e-13)


def test_the_scaled_pass_mechanism_carries_the_covariance_of_its_factor():
    rng = np.random.default_rng(2)
    C = rng.standard_normal((5, 4, 6))
    item = SimpleNamespace(C=C, R=np.diag([1e-6, 1e-6, 1e-2, 1e-4]))
    A = rng.standard_normal((6, 6))
    mechanism = PassMechanism.design(item, A @ A.T + np.eye(6), 14.0, 0.01, designer="scaled")
    noise = mechanism.noise_covariance
    np.testing.assert_allclose(noise.matrix(), mechanism.Theta, rtol=1e-12, atol=1e-15)
    assert len(noise.eigenvalues) == 20
    np.testing.assert_allclose(
        linalg.block_diag(*mechanism.Theta_blocks), mechanism.Theta, rtol=1e-14, atol=0.0
    )
    logdet = PassMechanism.design(item, A @ A.T + np.eye(6), 14.0, 0.01, designer="logdet")
    assert logdet.Theta_blocks is None  # correlated across the pass
