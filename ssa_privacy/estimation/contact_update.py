"""The linearised update of a state estimate by a contact, in information form.

A contact's releases (M stacked measurement rows of several passes,
:class:`~ssa_privacy.estimation.contacts.ContactMeasurements`) have a noise covariance ``N``
that is block diagonal over the passes
(:meth:`~ssa_privacy.estimation.contact_noise.ContactNoise.blocks`). The Kalman update
of a prediction ``(x, P)`` by the residual ``y = z - h(x)`` with the measurement map H
is computed here without any M x M matrix:

1. *whitening*: each block is Cholesky factored, ``N_i = W_i W_i^T``, and its rows of H
   and y are divided by it, ``H_w = W^{-1} H``, ``y_w = W^{-1} y`` (cost
   ``sum_i b_i^3 / 3 + b_i^2 (n + 1)`` for blocks of ``b_i`` rows: O(M b^2), not the
   O(M^3) of a dense inverse);
2. *information*: with a root ``P = G G^T`` and ``A = H_w G`` (M x n), the information of
   the update in the prediction's root coordinates is ``J = I + A^T A`` (n x n, its
   eigenvalues at least 1), Cholesky factored ``J = C C^T``;
3. *update*: ``w = J^{-1} A^T y_w``, ``x+ = x + G w``, ``P+ = G J^{-1} G^T``, the
   latter as ``B^T B`` with ``B = C^{-1} G^T`` (symmetric and positive semi-definite by
   construction);
4. *NIS*: the normalized innovation squared ``y^T S^{-1} y`` with ``S = H P H^T + N``
   (M x M) is, by the Woodbury identity, ``|y_w - A w|^2 + |w|^2``: a sum of squares,
   no cancellation.

This is the information filter's update (Bar-Shalom, Li and Kirubarajan, *Estimation
with Applications to Tracking and Navigation*, 2001, §7.2) in square-root coordinates;
in exact arithmetic it equals the Kalman update ``K = P H^T S^{-1}``,
``P+ = (I - K H) P (I - K H)^T + K N K^T`` (ibid., §5.2), and the prediction's
covariance need only be positive semi-definite.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import psd_matrix
from ssa_privacy._internal.validation import as_finite_array, as_matrix
from ssa_privacy.estimation._block_whitening import block_factors, whiten

__all__ = ["ContactUpdate", "information_update"]


@dataclass(frozen=True)
class ContactUpdate:
    """The state estimate after a contact's update, and the update's consistency.

    Parameters
    ----------
    x : ndarray, shape (n,)
        The updated state (the prediction's units: km, km/s for an orbit).
    P : ndarray, shape (n, n)
        Its covariance, symmetric positive semi-definite.
    nis : float
        The normalized innovation squared ``y^T S^{-1} y`` (dimensionless), chi-square
        with ``dof`` degrees of freedom for a consistent filter (Bar-Shalom, Li and
        Kirubarajan, 2001, §5.4).
    dof : int
        The residual's rows M.
    """

    x: np.ndarray
    P: np.ndarray
    nis: float
    dof: int


def information_update(x_pred, P_pred, H, residual, noise):
    """The Kalman update of a prediction by a contact, in information form.

    Parameters
    ----------
    x_pred : array_like, shape (n,)
        The predicted state (km, km/s for an orbit), finite.
    P_pred : array_like, shape (n, n)
        Its covariance, symmetric positive semi-definite (to ``PSD_RTOL`` of
        :mod:`~ssa_privacy._internal.matrix_validation`).
    H : array_like, shape (M, n)
        The measurement map: the change of the M predicted rows per change of the state
        (row units per state units), finite.
    residual : array_like, shape (M,)
        The measurements minus their prediction at ``x_pred`` (row units), finite.
    noise : sequence of array_like
        The diagonal blocks of the rows' noise covariance, in row order, block i of shape
        (b_i, b_i) with ``sum b_i = M`` (row units squared), each symmetric positive
        definite; a dense (M, M) covariance is given as the one block ``[noise]``.

    Returns
    -------
    ContactUpdate
        The updated state and covariance, the NIS and its degrees of freedom M.

    Raises
    ------
    ValueError
        Naming the argument: a non-finite entry (a NaN or infinite residual included), a
        shape that does not match (``x_pred`` (n,), ``P_pred`` (n, n), ``H`` (M, n),
        ``residual`` (M,), blocks that are not square or do not add up to M rows), a
        ``P_pred`` that is not symmetric positive semi-definite, or a block of ``noise``
        that is not symmetric positive definite (also for ``noise`` given as an array
        rather than a sequence of blocks).
    TypeError
        If an argument does not hold real numbers.

    Notes
    -----
    The module docstring gives the computation; its cost is O(M b^2) for blocks of at
    most b rows (a pass-level release: b = 4 K for K radar measurements) plus O(M n^2),
    against O(M^3) for the dense inverse of S. Source: the information filter
    (Bar-Shalom, Li and Kirubarajan, 2001, §7.2) and the Woodbury identity for the NIS.
    """
    x_pred = as_finite_array(x_pred, "x_pred", ndim=1)
    n = len(x_pred)
    P_pred = psd_matrix(P_pred, "P_pred", n)
    H = as_matrix(H, "H", (None, n))
    residual = as_finite_array(residual, "residual", ndim=1)
    if len(residual) != len(H):
        raise ValueError(
            f"residual must have one entry per row of H ({len(H)}), got shape {residual.shape}"
        )
    H_w, y_w = _whitened(noise, H, residual)
    G = _root(P_pred)
    A = H_w @ G
    C = linalg.cholesky(np.eye(n) + A.T @ A, lower=True)
    w = linalg.cho_solve((C, True), A.T @ y_w)
    B = linalg.solve_triangular(C, G.T, lower=True)
    nis = float(np.sum((y_w - A @ w) ** 2) + w @ w)
    return ContactUpdate(x=x_pred + G @ w, P=B.T @ B, nis=nis, dof=len(residual))


def _whitened(noise, H, residual):
    """``W^{-1} H`` and ``W^{-1} residual`` for the block Cholesky factor W of the noise."""
    if isinstance(noise, np.ndarray) or not hasattr(noise, "__len__"):
        raise ValueError(
            "noise must be a sequence of diagonal blocks (a dense covariance as [noise]), "
            f"got {type(noise).__name__}"
        )
    sizes = [np.shape(block)[0] if np.ndim(block) else 0 for block in noise]
    if sum(sizes) != len(H):
        raise ValueError(
            f"noise: the blocks have {sum(sizes)} rows in all (sizes {sizes}), but H has {len(H)}"
        )
    stacked = whiten(block_factors(noise), np.column_stack([H, residual]))
    return stacked[:, :-1], stacked[:, -1]


def _root(P):
    """A root G of a positive semi-definite P, ``P = G G^T`` (n, n): the symmetric root
    of its correlation matrix (eigenvalues below zero, round-off, set to zero) scaled by
    the standard deviations, so that states of mixed units (km, km/s) are factored to
    the same relative accuracy."""
    deviation = np.sqrt(np.diag(P))
    scale = np.where(deviation > 0.0, deviation, 1.0)
    values, vectors = np.linalg.eigh(P / np.outer(scale, scale))
    return scale[:, None] * vectors * np.sqrt(np.clip(values, 0.0, None))
