"""The least-trace block-diagonal noise of a day's passes, on their sufficient statistics.

A pass p of a day releases rows ``A_p x0 + noise`` (each row divided by its sensor noise
standard deviation). With ``Sigma_XX = L L^T`` and the thin SVD ``A_p L = U_p S_p V_p^T`` of
rank r_p, ``z_p = U_p^T y_p = B_p u + w_p`` (``B_p = S_p V_p^T``, ``u = L^{-1} x0 ~ N(0,
I)``) is sufficient for the pass, and a noise ``Theta_p = U_p T_p U_p^T`` has ``tr Theta_p
= tr T_p``. :func:`day_logdet_noise` finds the T_p of least total trace whose day
information ``I(u; z_1, ..., z_P)`` meets a budget, each pass's noise independent of the
others' (:mod:`~ssa_privacy.privacy.pml.day_design` builds the day mechanism on it).
:class:`BlockDiagonalCovariance` carries such a noise in memory O(M n).
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize, sparse

from ssa_privacy._internal.validation import as_matrix, nonempty, read_only
from ssa_privacy.privacy.accounting import maximum_epsilon
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.pml.passes import _checked_passes
from ssa_privacy.privacy.pml.stream import _epsilon, _floor, _spectrum
from ssa_privacy.privacy.pml.stream_design import _information_budget, _root_on_safe_side

__all__ = [
    "BlockDiagonalCovariance",
    "day_logdet_noise",
    "sufficient_statistics",
]

#: Block-coordinate descent stops when no block's noise moves by more than this fraction.
SWEEP_TOL = 1e-11
#: At most this many sweeps.
MAX_SWEEPS = 2000


def _closed_form_theta(m, mu):
    """``theta_i = 2 mu / (1 + sqrt(1 + 4 mu / m_i))``: the root of ``theta (theta + m) = mu m``."""
    return 2.0 * mu / (1.0 + np.sqrt(1.0 + 4.0 * mu / m))


def _rank(s, rows, n):
    """The number of singular values above round-off (s descending), as
    :func:`~ssa_privacy.privacy.pml.stream_design.stream_logdet_design` counts them."""
    if s.size == 0 or s[0] == 0.0:
        return 0
    return int(np.sum(s > s[0] * max(rows, n) * np.finfo(float).eps))


def sufficient_statistics(passes, L):
    """Each pass's rows in units of its sensor noise, reduced to their sufficient statistic.

    Parameters
    ----------
    passes : sequence of Pass
        Maps C (K, m, n) of x0 (release units per unit of x0) and sensor covariance R
        (m, m) each (:class:`~ssa_privacy.sensors.streams.Pass`).
    L : ndarray, shape (n, n)
        Lower Cholesky factor of the prior, ``Sigma_XX = L L^T``.

    Returns
    -------
    list of (ndarray (K m,), ndarray (K m, r), ndarray (r, n))
        Per pass: the row scales (sensor noise standard deviations), the basis U and the map
        ``B = S V^T`` of ``u = L^{-1} x0`` from the thin SVD ``(C / scale) L = U S V^T`` of
        rank r (r = 0 for zero maps).

    Raises
    ------
    TypeError
        If ``passes`` is not a list of Pass or ``L`` not a matrix of real numbers.
    ValueError
        If a pass is invalid (non-finite maps, a sensor covariance that is not positive
        definite), or ``L`` is not an (n, n) lower-triangular matrix with a positive
        diagonal for the passes' n.

    Notes
    -----
    ``U^T y`` is sufficient for u: the rest of the whitened rows is noise alone (the
    construction of :func:`~ssa_privacy.privacy.pml.stream_design.stream_logdet_design`).
    """
    passes = _checked_passes(passes, empty=True)
    n = np.shape(passes[0].C)[2] if passes else None
    L = as_matrix(L, "L", shape=(n, n))
    if L.shape[0] != L.shape[1] or np.any(np.triu(L, 1)) or not np.all(np.diag(L) > 0):
        raise ValueError(
            f"L must be the lower Cholesky factor of the prior (square, lower triangular, "
            f"positive diagonal), got shape {L.shape}"
        )
    out = []
    for item in passes:
        C = np.asarray(item.C, dtype=float)
        scale = np.tile(np.sqrt(np.diag(item.R)), len(C))
        rows = C.reshape(-1, C.shape[2]) / scale[:, None]
        U, s, Vt = linalg.svd(rows @ L, full_matrices=False)
        r = _rank(s, len(U), C.shape[2])
        out.append((scale, U[:, :r], s[:r, None] * Vt[:r]))
    return out


def _information(blocks, n):
    """``I + sum_p B_p^T T_p^{-1} B_p`` for ``T_p = E diag(theta) E^T`` (blocks (B, E, theta))."""
    total = np.eye(n)
    for B, E, theta in blocks:
        G = (E.T @ B) / np.sqrt(theta)[:, None]
        total += G.T @ G
    return total


def _sweep(maps, noise, mu):
    """One Gauss-Seidel sweep: each pass's best noise given the others; the largest move."""
    n = maps[0].shape[1]
    total = _information(zip(maps, *zip(*noise), strict=True), n)
    moved = 0.0
    for p, B in enumerate(maps):
        E, theta = noise[p]
        G = (E.T @ B) / np.sqrt(theta)[:, None]
        others = total - G.T @ G
        X = np.linalg.solve(np.linalg.cholesky(others), B.T)  # tiny: LAPACK gesv
        m, E_new = np.linalg.eigh(X.T @ X)  # Sigma_p = B P_-p B^T
        theta_new = _closed_form_theta(m, mu)
        old, new = (E * theta) @ E.T, (E_new * theta_new) @ E_new.T
        moved = max(moved, np.abs(new - old).max() / np.abs(new).max())
        G = (E_new.T @ B) / np.sqrt(theta_new)[:, None]
        total = others + G.T @ G
        noise[p] = (E_new, theta_new)
    return moved, total


def _checked_maps(maps):
    """``maps`` as a non-empty list of finite matrices (r_p, n) of full row rank."""
    if not isinstance(maps, list | tuple):
        raise TypeError(f"maps must be a list of matrices (r_p, n), got {type(maps).__name__}")
    if not maps:
        raise ValueError("maps must hold at least one pass's sufficient statistic")
    checked = []
    for index, B in enumerate(maps):
        name = f"maps[{index}]"
        B = nonempty(as_matrix(B, name, shape=(None, np.shape(maps[0])[-1])), name)
        if _rank(linalg.svdvals(B), len(B), B.shape[1]) < len(B):
            raise ValueError(f"{name} must have full row rank (r_p independent rows)")
        checked.append(B)
    return checked


def day_logdet_noise(maps, information):
    """The least-trace block-diagonal noise of sufficient statistics that meets an information.

    Parameters
    ----------
    maps : sequence of ndarray, shape (r_p, n)
        ``B_p = S_p V_p^T``: pass p releases ``z_p = B_p u + w_p``, ``w_p ~ N(0, T_p)``,
        about a whitened secret ``u ~ N(0, I_n)`` (rows of full rank r_p >= 1, in units of
        the sensor noise).
    information : float
        The budget of ``I(u; z_1, ..., z_P) = log det(I + sum_p B_p^T T_p^{-1} B_p) / 2``,
        nats, > 0.

    Returns
    -------
    list of (ndarray (r_p, r_p), ndarray (r_p,))
        ``T_p = E_p diag(theta_p) E_p^T`` as eigenvectors and eigenvalues, meeting the
        budget to about 1e-9 relative (a caller certifies by a final common scale).

    Raises
    ------
    TypeError
        If ``maps`` is not a list of matrices of real numbers or ``information`` not a
        real number.
    ValueError
        If ``maps`` is empty, a map is not finite, of full row rank and of the first's
        number of columns, or ``information`` is not positive or exceeds
        :func:`~ssa_privacy.privacy.accounting.maximum_information` of the maps' rank.
    RuntimeError
        If the block-coordinate descent does not converge.

    Notes
    -----
    ``min sum_p tr T_p`` s.t. ``I(T) <= I_b`` is convex (``-log det`` of the posterior
    covariance ``I - B^T (B B^T + T)^{-1} B``, concave in T, is convex). With the others
    fixed, ``I = const + (log det(Sigma_p + T_p) - log det T_p) / 2``, ``Sigma_p = B_p
    P_-p B_p^T``, ``P_-p = (I + sum_{q != p} J_q)^{-1}``; the stationarity of ``tr T_p +
    2 mu I`` is ``T_p^{-1} - (Sigma_p + T_p)^{-1} = I / mu``, solved in the eigenbasis of
    Sigma_p by ``theta_i (theta_i + m_i) = mu m_i``
    (:func:`~ssa_privacy.privacy.pml.stream_design.information_limited_noise`). Each
    sweep is followed by a multiplier update: the common scale c with ``I(c T) = I_b``,
    ``T <- c T``, ``mu <- c^2 mu`` (at fixed P, T is proportional to ``sqrt(mu)``:
    ``T_p^2 = mu B_p P B_p^T``). At the fixed point c = 1 and every block is stationary:
    the KKT conditions of the convex problem hold (Boyd & Vandenberghe, Convex
    Optimization, 5.5.3; Bertsekas, Nonlinear Programming, 2.7 for the descent).
    """
    maps = _checked_maps(maps)
    stacked = np.vstack(maps)
    s = linalg.svdvals(stacked)
    information = _information_budget(information, _rank(s, len(stacked), stacked.shape[1]))
    mu = float(np.mean(s**2)) * np.exp(-information / len(s))
    noise = [(np.eye(len(B)), np.full(len(B), mu)) for B in maps]
    for _ in range(MAX_SWEEPS):
        moved, total = _sweep(maps, noise, mu)
        c = _budget_scale(np.linalg.eigvalsh(total - np.eye(len(total))), information)
        noise = [(E, c * theta) for E, theta in noise]
        mu *= c * c
        if moved < SWEEP_TOL and abs(c - 1.0) < SWEEP_TOL:
            return noise
    raise RuntimeError(f"the day design did not converge in {MAX_SWEEPS} sweeps")


def _budget_scale(lam, information):
    """The c > 0 with ``sum log(1 + lam_i / c) / 2 = information`` (lam >= 0, not all 0)."""
    lam = np.clip(lam, 0.0, None)

    def excess(log_c):
        return 0.5 * float(np.sum(np.log1p(lam / np.exp(log_c)))) - information

    low, high = -1.0, 1.0
    while excess(low) <= 0.0:
        low -= 4.0
    while excess(high) > 0.0:
        high += 4.0
    return float(np.exp(optimize.brentq(excess, low, high, xtol=1e-15)))


def _thetas_for(m, information):
    """Row by row, the closed-form noise of signal eigenvalues m (P, k; 0 pads a row) whose
    information is ``information`` (P,): safeguarded Newton steps on log mu, all rows at once.

    ``g(x) = sum_i log(1 + m_i / theta_i(e^x)) / 2 - information`` decreases in x, with
    ``g'(x) = -sum_i m_i / (2 theta_i + m_i) / 2`` (from ``theta (theta + m) = mu m``).
    """
    seen = m > 0.0
    m = np.where(seen, m, 1.0)
    x = np.log(np.sum(m * seen, axis=1) / np.sum(seen, axis=1))
    low, high = np.full(len(m), -np.inf), np.full(len(m), np.inf)
    for _ in range(200):
        theta = _closed_form_theta(m, np.exp(x)[:, None])
        g = 0.5 * np.sum(seen * np.log1p(m / theta), axis=1) - information
        low, high = np.where(g > 0.0, x, low), np.where(g > 0.0, high, x)
        step = x + g / (0.5 * np.sum(seen * m / (2.0 * theta + m), axis=1))
        if np.all(np.abs(step - x) <= 1e-14 * np.maximum(np.abs(x), 1.0)):
            return np.where(seen, theta, 0.0)  # |g| about 1e-14 relative
        inside = (step > low) & (step < high)
        bisect = np.where(np.isfinite(low) & np.isfinite(high), 0.5 * (low + high), x)
        fallback = np.where(np.isfinite(low) & np.isfinite(high), bisect, x + np.sign(g) * 4.0)
        x = np.where(inside, step, fallback)
    raise RuntimeError("the closed-form noise did not meet its information in 200 steps")


def _pass_model(maps, delta, convention):
    """Per seeing pass (``B = S V^T``): singular values (P, n; 0 pads), right vectors
    (P, n, n; rows of 0 pad), the floors (P,) ``F^{-1}_{chi^2_r}(1 - delta) / 2`` and the
    largest meaningful budgets (P,)
    (:func:`~ssa_privacy.privacy.accounting.maximum_epsilon`)."""
    n = maps[0].shape[1]
    s, V = np.zeros((len(maps), n)), np.zeros((len(maps), n, n))
    for p, B in enumerate(maps):
        s[p, : len(B)] = np.linalg.norm(B, axis=1)
        V[p, : len(B)] = B / s[p, : len(B), None]
    ranks = [len(B) for B in maps]
    floors = np.array([_floor(delta, r) for r in ranks])
    return s, V, floors, np.asarray(maximum_epsilon(delta, ranks, convention))


def _modelled_information(model, t, weight):
    """``I(u; day)`` when each pass gets the log-det design of its own budget t: ``theta``
    of :func:`~ssa_privacy.privacy.pml.stream_design.information_limited_noise` for
    ``diag(s^2)`` at ``(min(t, largest) - floor) / w`` (as ``PassMechanism.design`` at ``t +
    FIRST_SLACK``, which aims at most at the pass's largest meaningful budget)."""
    s, V, floors, largest = model
    theta = _thetas_for(s**2, (np.minimum(t, largest) - floors) / weight)
    G = V * np.divide(s, np.sqrt(theta), out=np.zeros_like(s), where=s > 0.0)[:, :, None]
    return 0.5 * np.linalg.slogdet(np.eye(s.shape[1]) + np.einsum("pki,pkj->ij", G, G))[1]


def _scale_root(Sigma_XX, stream, target, delta, weight):
    """The least c with the achieved epsilon of the stream's information over c <= target."""
    lam, rank = _spectrum(Sigma_XX, stream)

    def excess(c):
        return _epsilon(lam / c, rank, delta, weight) - target

    low = high = 1.0
    while excess(low) <= 0.0:
        low /= 16.0
    while excess(high) > 0.0:
        high *= 16.0
    return _root_on_safe_side(excess, low, high)


def _pass_blocks(mechanism):
    """A pass's noise as blocks: one per measurement if its factor is block diagonal so."""
    K, m, _ = mechanism.C.shape
    F = mechanism.factor
    if F.shape == (K * m, K * m) and K > 1:
        blocks = F.reshape(K, m, K, m)[np.arange(K), :, np.arange(K), :]  # (K, m, m)
        if np.array_equal(linalg.block_diag(*blocks), F):
            values, vectors = np.linalg.eigh(blocks @ np.swapaxes(blocks, 1, 2))
            return [FactoredCovariance(v, U, mechanism.designer) for v, U in zip(values, vectors)]
    return [mechanism.noise_covariance]


def _block_vectors(blocks):
    """The blocks' eigenvectors on the diagonal of a sparse (M, r) array."""
    return sparse.block_diag([sparse.csr_array(b.eigenvectors) for b in blocks], "csr")


@dataclass(frozen=True)
class BlockDiagonalCovariance(FactoredCovariance):
    """A block-diagonal :class:`~ssa_privacy.privacy.mechanism.FactoredCovariance`.

    The noise of a day, independent across passes (or measurements): ``eigenvectors`` is
    a sparse block-diagonal (M, r) array, so memory stays O(M n) for M released rows.

    Parameters
    ----------
    eigenvalues : ndarray, shape (r,)
        The blocks' eigenvalues, concatenated (squared data units).
    eigenvectors : scipy.sparse.csr_array, shape (M, r)
        The blocks' eigenvectors on the diagonal.
    method : str
        The designer's name.
    blocks : tuple of FactoredCovariance
        The blocks, in the order of the released rows.

    Raises
    ------
    TypeError
        If ``blocks`` is not a non-empty tuple of FactoredCovariance or ``eigenvectors``
        is not a sparse array.
    ValueError
        If ``eigenvalues`` and ``eigenvectors`` are not those of the blocks (build with
        :meth:`of`).
    """

    blocks: tuple = ()

    def __post_init__(self):
        blocks = self.blocks
        if not (isinstance(blocks, tuple) and blocks):
            raise TypeError(f"blocks must be a non-empty tuple, got {type(blocks).__name__}")
        for index, block in enumerate(blocks):
            if not isinstance(block, FactoredCovariance):
                raise TypeError(
                    f"blocks[{index}] must be a FactoredCovariance, got {type(block).__name__}"
                )
        if not sparse.issparse(self.eigenvectors):
            raise TypeError(
                f"eigenvectors must be a scipy.sparse array (build with "
                f"BlockDiagonalCovariance.of), got {type(self.eigenvectors).__name__}"
            )
        expected = _block_vectors(blocks)
        values = np.concatenate([b.eigenvalues for b in blocks])
        vectors = self.eigenvectors
        if vectors.shape != expected.shape or (vectors != expected).nnz:
            raise ValueError("eigenvectors must be the blocks' eigenvectors on the diagonal")
        if not np.array_equal(np.asarray(self.eigenvalues, dtype=float), values):
            raise ValueError("eigenvalues must be the blocks' eigenvalues, concatenated")
        if not isinstance(self.method, str):
            raise TypeError(f"method must be a string, got {type(self.method).__name__}")
        object.__setattr__(self, "eigenvalues", read_only(values))

    @classmethod
    def of(cls, blocks, method):
        """The block-diagonal covariance of ``blocks`` (FactoredCovariance each).

        Parameters
        ----------
        blocks : sequence of FactoredCovariance
            The diagonal blocks, in row order (a block of rank 0 adds rows, no noise).
        method : str
            A label for records.

        Returns
        -------
        BlockDiagonalCovariance
            Sparse eigenvectors (block diagonal), eigenvalues concatenated.
        """
        if not isinstance(blocks, list | tuple):
            raise TypeError(
                f"blocks must be a list of FactoredCovariance, got {type(blocks).__name__}"
            )
        blocks = tuple(blocks)
        for index, block in enumerate(blocks):
            if not isinstance(block, FactoredCovariance):
                raise TypeError(
                    f"blocks[{index}] must be a FactoredCovariance, got {type(block).__name__}"
                )
        values = np.concatenate([b.eigenvalues for b in blocks]) if blocks else np.zeros(0)
        return cls(values, _block_vectors(blocks) if blocks else None, method, blocks)

    def matrix(self):
        """The dense covariance.

        Returns
        -------
        ndarray, shape (M, M)
            Block diagonal (O(M^2) memory).
        """
        return linalg.block_diag(*(b.matrix() for b in self.blocks))

    def scaled(self, factor):
        """Every block times a factor.

        Parameters
        ----------
        factor : float
            Finite and > 0 (as ``FactoredCovariance.scaled``).

        Returns
        -------
        BlockDiagonalCovariance
            The scaled blocks.
        """
        return BlockDiagonalCovariance.of([b.scaled(factor) for b in self.blocks], self.method)

    def sample(self, rng, size=None):
        """Draw ``Z ~ N(0, Sigma)``, block after block (as ``FactoredCovariance.sample``).

        Parameters
        ----------
        rng : numpy.random.Generator
            The randomness.
        size : int or tuple of int, optional
            Leading shape of the draws.

        Returns
        -------
        ndarray, shape ``size + (M,)``
            The draws.
        """
        draws = [b.sample(rng, size) for b in self.blocks]
        return np.concatenate(draws, axis=-1)
