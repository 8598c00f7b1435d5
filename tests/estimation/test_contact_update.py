"""information_update against the dense Joseph-form Kalman update, and its NIS law."""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.estimation.contact_update import information_update

#: Standard deviations of a 6-state orbit estimate: km for position, km/s for velocity.
ORBIT_SCALE = np.array([1.0, 1.0, 1.0, 1e-3, 1e-3, 1e-3])


def joseph_update(x, P, H, y, N):
    """The dense Kalman update, independently: ``K = P H^T S^-1``, Joseph-form P."""
    S = H @ P @ H.T + N
    K = np.linalg.solve(S, H @ P).T
    I_KH = np.eye(len(x)) - K @ H
    return x + K @ y, I_KH @ P @ I_KH.T + K @ N @ K.T, float(y @ np.linalg.solve(S, y))


def random_spd(rng, n, scale=None):
    """A random symmetric positive definite n x n matrix (moderate condition number)."""
    A = rng.standard_normal((n, n))
    P = A @ A.T / n + 0.1 * np.eye(n)
    return P if scale is None else P * np.outer(scale, scale)


def low_rank_plus_diagonal(rng, size, rank):
    """A pass-like block: sensor noise on the diagonal plus a privacy noise of low rank."""
    F = rng.standard_normal((size, rank))
    return F @ F.T + np.diag(rng.uniform(0.05, 0.2, size))


def case(rng, sizes, rank=None, singular=False):
    """A prediction in orbit units, a map, a residual and noise blocks of the given sizes."""
    P = random_spd(rng, 6, ORBIT_SCALE)
    if singular:  # rank 4: two directions known exactly
        values, vectors = np.linalg.eigh(P)
        P = (vectors[:, 2:] * values[2:]) @ vectors[:, 2:].T
    M = sum(sizes)
    H = rng.standard_normal((M, 6)) / ORBIT_SCALE
    blocks = [
        random_spd(rng, b) if rank is None else low_rank_plus_diagonal(rng, b, rank) for b in sizes
    ]
    x = np.r_[7000.0, 0.0, 0.0, 0.0, 7.5, 0.0] + rng.standard_normal(6) * ORBIT_SCALE
    return x, P, H, rng.standard_normal(M) * 3.0, blocks


@pytest.mark.parametrize(
    ("sizes", "rank", "singular"),
    [
        ((3,), None, False),
        ((4, 8, 12), None, False),
        ((160, 160, 160), 6, False),  # M = 480 >> 6, pass-level logdet-like blocks
        ((40,) * 8, 2, False),
        ((4, 4, 4), None, True),  # a prediction that is only positive semi-definite
    ],
)
def test_equals_the_dense_joseph_update(sizes, rank, singular):
    rng = np.random.default_rng(sum(sizes) + (rank or 0) + singular)
    x, P, H, y, blocks = case(rng, sizes, rank, singular)
    expected_x, expected_P, expected_nis = joseph_update(x, P, H, y, linalg.block_diag(*blocks))
    update = information_update(x, P, H, y, blocks)
    s = np.sqrt(np.diag(P))  # compare in units of the prediction's standard deviations
    assert np.max(np.abs(update.x - expected_x) / s) < 1e-10
    assert np.max(np.abs(update.P - expected_P) / np.outer(s, s)) < 1e-10
    assert update.nis == pytest.approx(expected_nis, rel=1e-10)
    assert update.dof == sum(sizes)
    np.testing.assert_array_equal(update.P, update.P.T)


def test_a_dense_noise_is_one_block():
    rng = np.random.default_rng(7)
    x, P, H, y, blocks = case(rng, (5, 7))
    dense = linalg.block_diag(*blocks)
    by_blocks, whole = (
        information_update(x, P, H, y, blocks),
        information_update(x, P, H, y, [dense]),
    )
    np.testing.assert_allclose(whole.x, by_blocks.x, rtol=1e-12)
    np.testing.assert_allclose(whole.P, by_blocks.P, rtol=1e-9, atol=1e-14)
    assert whole.nis == pytest.approx(by_blocks.nis, rel=1e-12)


def test_nis_is_chi_square_and_the_update_consistent():
    """With truth drawn from the prediction and noise from N, NIS ~ chi2(M) and the
    updated state's NEES ~ chi2(6): the sums over R trials lie in their 99.9% bands, and
    the fraction of NIS inside the 95% band in its binomial 99.9% interval."""
    rng = np.random.default_rng(2024)
    x, P, H, _, blocks = case(rng, (4, 4, 8), rank=3)
    N = linalg.block_diag(*blocks)
    trials, M = 600, len(H)
    nis, nees, inside = np.empty(trials), np.empty(trials), 0
    low95, high95 = stats.chi2.ppf([0.025, 0.975], M)
    truths = x + rng.standard_normal((trials, 6)) @ np.linalg.cholesky(P).T
    noises = rng.standard_normal((trials, M)) @ np.linalg.cholesky(N).T
    for t, truth in enumerate(truths):
        y = H @ (truth - x) + noises[t]
        update = information_update(x, P, H, y, blocks)
        nis[t] = update.nis
        error = update.x - truth
        nees[t] = error @ np.linalg.solve(update.P, error)
        inside += low95 <= update.nis <= high95
    assert stats.chi2.ppf(0.0005, trials * M) < nis.sum() < stats.chi2.ppf(0.9995, trials * M)
    assert stats.chi2.ppf(0.0005, trials * 6) < nees.sum() < stats.chi2.ppf(0.9995, trials * 6)
    low, high = stats.binom.ppf([0.0005, 0.9995], trials, 0.95)
    assert low <= inside <= high


def test_contact_noise_blocks_are_the_passes_covariances():
    R = np.diag([1e-8, 1e-8, 1e-4, 1e-6])
    Theta = np.outer(np.arange(8.0), np.arange(8.0)) * 1e-6
    split = np.array([np.eye(4), 2.0 * np.eye(4)]) * 1e-6
    independent = SimpleNamespace(Theta=linalg.block_diag(*split), Theta_blocks=split)
    terms = [(R, 2, SimpleNamespace(Theta=Theta)), (R, 3, None), (R, 2, independent)]
    first, *rest = ContactNoise([terms]).blocks(0)
    np.testing.assert_array_equal(first, linalg.block_diag(R, R) + Theta)
    # a pass whose noise is independent across its measurements: a block per measurement
    assert len(rest) == 5
    for block, expected in zip(rest, [R, R, R, R + split[0], R + split[1]], strict=True):
        np.testing.assert_array_equal(block, expected)


def test_bad_input_names_the_argument():
    rng = np.random.default_rng(3)
    x, P, H, y, blocks = case(rng, (4, 4))
    with pytest.raises(ValueError, match="residual contains non-finite"):
        information_update(x, P, H, np.r_[y[:-1], np.nan], blocks)
    with pytest.raises(ValueError, match="x_pred contains non-finite"):
        information_update(np.r_[x[:-1], np.inf], P, H, y, blocks)
    with pytest.raises(ValueError, match="P_pred must be 6x6"):
        information_update(x, P[:5, :5], H, y, blocks)
    with pytest.raises(ValueError, match="P_pred is not positive semi-definite"):
        information_update(x, P - 2.0 * np.eye(6), H, y, blocks)
    with pytest.raises(ValueError, match="H has shape"):
        information_update(x, P, H[:, :5], y, blocks)
    with pytest.raises(ValueError, match="residual must have one entry per row of H"):
        information_update(x, P, H, y[:-1], blocks)
    with pytest.raises(ValueError, match="noise: the blocks have 4 rows"):
        information_update(x, P, H, y, blocks[:1])
    with pytest.raises(ValueError, match="noise must be a sequence of diagonal blocks"):
        information_update(x, P, H, y, linalg.block_diag(*blocks))
    with pytest.raises(ValueError, match=r"noise\[1\] is not positive definite"):
        information_update(x, P, H, y, [blocks[0], -blocks[1]])
    with pytest.raises(ValueError, match=r"noise\[0\] is not symmetric"):
        information_update(x, P, H, y, [blocks[0] + np.triu(np.ones((4, 4)), 1), blocks[1]])
