"""The least-squares internals of ``estimation.orbit_determination`` against the dense
computations they replace: the block whitening of a contact's noise, the compressed
residual rows and the innovation by the Woodbury identity."""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import linalg

from ssa_privacy.estimation._block_whitening import whiten
from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.estimation.orbit_determination import _compressed, _innovation, _noise_roots


def _contact(rng):
    """Two filters over passes of 3 and 2 radar measurements (20 rows), with privacy
    noise of rank 2 on the first pass of filter 0 and sensor noise alone otherwise."""
    R = np.diag([1e-6, 2e-6, 1e-2, 1e-4])
    factor = rng.standard_normal((12, 2)) * 1e-3
    mechanism = SimpleNamespace(Theta=factor @ factor.T)
    terms = [[(R, 3, mechanism), (R, 2, None)], [(R, 3, None), (R, 2, None)]]
    scale = np.tile(np.sqrt(np.diag(R)), 5)
    return SimpleNamespace(noise=ContactNoise(terms), scale=scale)


def test_block_whitening_equals_the_dense_cholesky_solve():
    rng = np.random.default_rng(1)
    contact = _contact(rng)
    values = rng.standard_normal((20, 7))
    for f, factors in enumerate(_noise_roots(contact, 2)):
        dense = contact.noise[f] / np.outer(contact.scale, contact.scale)
        expected = linalg.solve_triangular(np.linalg.cholesky(dense), values, lower=True)
        np.testing.assert_allclose(whiten(factors, values), expected, rtol=1e-12, atol=1e-12)


def test_a_dense_noise_is_one_block():
    rng = np.random.default_rng(2)
    contact = _contact(rng)
    dense = SimpleNamespace(noise=np.asarray(contact.noise), scale=contact.scale)
    values = rng.standard_normal((20, 3))
    for blocks, one in zip(_noise_roots(contact, 2), _noise_roots(dense, 2), strict=True):
        assert len(one) == 1
        np.testing.assert_allclose(whiten(blocks, values), whiten(one, values), rtol=1e-12)


@pytest.mark.parametrize("rows", [50, 7, 6])
def test_compressed_rows_keep_the_cost_and_the_gauss_newton_model(rows):
    rng = np.random.default_rng(3)
    residual, jacobian = rng.standard_normal((2, rows)), rng.standard_normal((2, rows, 6))
    fitted, rest, T = _compressed(residual, jacobian)
    assert fitted.shape == (2, 6) and rest.shape == (2,) and T.shape == (2, 6, 6)
    for f in range(2):
        r, J = residual[f], jacobian[f]
        for p in (np.zeros(6), rng.standard_normal(6), 1e3 * rng.standard_normal(6)):
            full = np.sum((r + J @ p) ** 2)
            compressed = np.sum((fitted[f] + T[f] @ p) ** 2) + rest[f] ** 2
            np.testing.assert_allclose(compressed, full, rtol=1e-12)
        np.testing.assert_allclose(T[f].T @ fitted[f], J.T @ r, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(T[f].T @ T[f], J.T @ J, rtol=1e-12, atol=1e-12)


def test_innovation_equals_the_dense_normalized_innovation():
    rng = np.random.default_rng(4)
    misfit, G = rng.standard_normal(40), rng.standard_normal((40, 6))
    prior_root = np.linalg.cholesky(np.diag([4.0, 1.0, 2.0, 1e-2, 3e-2, 1e-3]))
    delta = rng.standard_normal(6)
    nu = misfit + G @ delta
    S = G @ prior_root @ prior_root.T @ G.T + np.eye(40)
    expected = nu @ linalg.solve(S, nu, assume_a="pos")
    np.testing.assert_allclose(_innovation(misfit, G, prior_root, delta), expected, rtol=1e-11)
