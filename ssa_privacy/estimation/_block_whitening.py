"""Whitening by a block-diagonal covariance: its blocks' Cholesky factors, runs of equal
small blocks factored and applied as stacks.

A contact's noise (:meth:`~ssa_privacy.estimation.contact_noise.ContactNoise.blocks`)
has a block per pass, or a block per measurement (m x m, m = 4 for a radar) for a pass
whose noise is independent across its measurements: hundreds of small blocks, which one
LAPACK call per block would spend in call overhead. Used by the contact update
(:mod:`~ssa_privacy.estimation.contact_update`) and the orbit determination
(:mod:`~ssa_privacy.estimation.orbit_determination`).
"""

import itertools

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import covariance_stack, pd_cholesky

__all__ = ["SMALL_BLOCK", "block_factors", "whiten"]

#: Blocks of at most this many rows are factored and applied as stacks.
SMALL_BLOCK = 16


def block_factors(blocks, name="noise"):
    """The lower Cholesky factors of a block-diagonal covariance's blocks.

    Parameters
    ----------
    blocks : sequence of array_like
        The diagonal blocks, block i of shape (b_i, b_i), in row order, each symmetric
        positive definite (symmetrized to remove round-off).
    name : str, optional
        The argument's name in error messages (block i is ``name[i]``).

    Returns
    -------
    list of ndarray
        Runs of consecutive blocks: a stack (k, b, b) of k factors of b rows each
        (b <= :data:`SMALL_BLOCK`), or one factor (b, b).

    Raises
    ------
    ValueError
        Naming the block, if one is not finite, square, symmetric and positive definite.
    """
    runs, start = [], 0
    for size, group in itertools.groupby(blocks, key=lambda block: np.shape(block)[:1]):
        group = list(group)
        if size and size[0] <= SMALL_BLOCK:
            try:
                runs.append(np.linalg.cholesky(covariance_stack(np.array(group), name)))
                start += len(group)
                continue
            except (ValueError, np.linalg.LinAlgError):
                pass  # checked block by block below, for the message naming the block
        for block in group:
            factor = pd_cholesky(block, f"{name}[{start}]")
            runs.append(factor[None] if len(factor) <= SMALL_BLOCK else factor)
            start += 1
    return runs


def whiten(factors, values):
    """``W^{-1} values`` for the block-diagonal lower triangular W of :func:`block_factors`.

    Parameters
    ----------
    factors : list of ndarray
        As returned by :func:`block_factors`.
    values : ndarray, shape (M, k)
        The rows to whiten (M the sum of the blocks' rows).

    Returns
    -------
    ndarray, shape (M, k)
        The whitened rows: a triangular solve per large block, a batched solve per run
        of small ones.
    """
    whitened, start = np.empty_like(values), 0
    for factor in factors:
        if factor.ndim == 2:
            rows = slice(start, start + len(factor))
            whitened[rows] = linalg.solve_triangular(factor, values[rows], lower=True)
        else:
            count, size, _ = factor.shape
            rows = slice(start, start + count * size)
            stacked = values[rows].reshape(count, size, -1)
            whitened[rows] = np.linalg.solve(factor, stacked).reshape(count * size, -1)
        start = rows.stop
    return whitened
