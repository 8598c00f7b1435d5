"""Design of the optimal synthetic noise of privacy-aware GP regression [TCB].

A data owner releases ``W = Y + Z`` with ``Z ~ N(0, Sigma)``. A curious user who knows
the GP prior and the mechanism must keep a posterior covariance of ``f(S)`` at the
sensitive inputs ``S`` of at least ``K_SS - Delta``:

    Delta - K_{S,X} (K_{X,X} + V + Sigma)^{-1} K_{X,S} >= 0              [TCB (5)]

The cheapest such noise (minimum trace, the SDP (7)) is unique and explicit:

    Sigma_opt = (K_{X,S} Delta^{-1} K_{S,X} - K_{X,X} - V)^+            [TCB (8)]

where ``A^+`` is the positive semi-definite part. With ``Delta = H_{S,S}`` for a kernel
``H = alpha K`` (0 < alpha < 1) the guarantee reads: posterior covariance at S >=
``(1 - alpha) K_SS`` [TCB §4.2, (11)]; a sensitive region is represented by a dense
finite subset S0 (Theorem 3).

Because ``K_{X,S} Delta^{-1} K_{S,X}`` has rank at most ``|S|`` and ``K + V`` is positive
definite, the matrix in (8) has at most ``|S|`` positive eigenvalues (Sylvester's law of
inertia), so only those eigenpairs are computed when ``|S|`` is small. The diagonal
variant of (7) (Example 1) has no closed form and is solved as an SDP. The theory, the
design margin and the reproduction notes are in :doc:`/theory/privacy-aware-gp`; the
mechanism that releases and certifies is
:class:`ssa_privacy.privacy.synthetic_noise.SyntheticNoiseMechanism`.
"""

import cvxpy as cp
import numpy as np
from scipy import linalg

from ssa_privacy._solvers import solve_clarabel
from ssa_privacy._validation import (
    as_matrix,
    open_interval,
    pd_cholesky,
    psd_matrix,
    symmetric_matrix,
)
from ssa_privacy.gp import kernel_matrix, noise_matrix
from ssa_privacy.privacy.mechanism import FactoredCovariance

#: Relative safety margin of released designs: they target ``(1 - DESIGN_MARGIN) Delta`` so
#: that round-off cannot make the certificate of the release negative. Round-off in the
#: design grows with the condition number of Delta: for the census study (K_SS condition
#: number 1.3e12) it reaches 6e-9 relative to Delta, so 1e-7 leaves a factor of about 16.
DESIGN_MARGIN = 1e-7
#: Use the subset eigensolver when the number of sensitive inputs is at most this fraction of n.
PARTIAL_EIGENSOLVE_FRACTION = 0.25


def psd_part(A, rank_bound=None):
    """Positive semi-definite part of a symmetric matrix, in factored form.

    Parameters
    ----------
    A : array_like, shape (n, n)
        Symmetric matrix.
    rank_bound : int, optional
        Known upper bound on the number of positive eigenvalues. When it is at most
        ``PARTIAL_EIGENSOLVE_FRACTION * n``, LAPACK's subset eigensolver computes only
        the eigenpairs in ``(0, inf)``; otherwise a dense decomposition is used.

    Returns
    -------
    FactoredCovariance
        Positive eigenvalues and eigenvectors of A; ``method`` is ``"partial"`` (subset
        eigensolver) or ``"dense"``.

    Raises
    ------
    ValueError
        If A is not square, symmetric and finite.

    Notes
    -----
    [TCB] §4.1 (the PSD part via the spectral decomposition) and Theorem 1.
    """
    return _psd_part(symmetric_matrix(A, "A").T, rank_bound)


def _psd_part(A, rank_bound):
    """:func:`psd_part` of the symmetric matrix whose lower triangle ``A`` holds.

    ``A`` is overwritten (in place when it is Fortran-ordered); its upper triangle is
    never read.
    """
    n = len(A)
    subset = {}
    if rank_bound is not None and rank_bound <= PARTIAL_EIGENSOLVE_FRACTION * n:
        subset = {"subset_by_value": [0.0, np.inf], "driver": "evr"}
    eigenvalues, eigenvectors = linalg.eigh(
        A, lower=True, overwrite_a=True, check_finite=False, **(subset or {"driver": "evd"})
    )
    keep = eigenvalues > 0
    return FactoredCovariance(
        eigenvalues[keep], eigenvectors[:, keep], "partial" if subset else "dense"
    )


class SyntheticNoiseDesign:
    """The prior covariance at the training inputs, validated once, for designs of (8).

    A data owner usually designs several releases from one GP prior (privacy levels
    alpha, sensitive sets S, seeds). Checking that ``K_XX`` is symmetric positive
    semi-definite costs a Cholesky factorisation, about a quarter of one design; this
    object does it once and then designs Sigma_opt for any ``(K_XS, Delta)``.

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance of f at the training inputs (symmetric PSD, output units^2).
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance already in the data (a scalar means a variance
        times the identity); ``None`` means noiseless data.

    Raises
    ------
    ValueError
        On non-finite input, a wrong shape, or a non-symmetric or indefinite K_XX or V.

    Notes
    -----
    [TCB] equation (8) and Theorem 1; :func:`optimal_noise_factor` is the one-shot form.
    """

    def __init__(self, K_XX, V=None):
        self.K_XX = psd_matrix(K_XX, "K_XX")
        n = len(self.K_XX)
        # A scalar variance (None is 0) stays a float: only the diagonal is touched.
        self.V = (
            noise_matrix(V, 1, "V")[0, 0]
            if V is None or np.ndim(V) == 0
            else noise_matrix(V, n, "V")
        )

    def factor(self, K_XS, Delta):
        """Sigma_opt of (8) for the sensitive inputs S, in factored form.

        Parameters
        ----------
        K_XS : array_like, shape (n, s)
            Prior covariance between the training inputs and the s sensitive inputs.
        Delta : array_like, shape (s, s)
            Largest allowed reduction of the covariance of f(S) (symmetric positive
            definite).

        Returns
        -------
        FactoredCovariance
            ``Sigma_opt = U diag(lambda) U^T`` with rank <= s; only the positive
            eigenpairs are computed when s is small against n (the rank bound of
            :doc:`/theory/privacy-aware-gp`).

        Raises
        ------
        ValueError
            On a wrong shape, non-finite entries or a Delta that is not positive definite.
        """
        return _psd_part(self._matrix(K_XS, Delta), rank_bound=np.shape(K_XS)[1])

    def _matrix(self, K_XS, Delta):
        """Lower triangle, in Fortran order, of ``K_XS Delta^{-1} K_SX - K_XX - V`` (8).

        K_XS and Delta are validated here; the upper triangle of the result is not
        meaningful.
        """
        K_XS = as_matrix(K_XS, "K_XS", shape=(len(self.K_XX), None))
        L_Delta = pd_cholesky(Delta, "Delta", size=K_XS.shape[1])
        B = linalg.solve_triangular(L_Delta, K_XS.T, lower=True, check_finite=False)
        A = linalg.blas.dsyrk(1.0, B, trans=1, lower=1)
        A -= self.K_XX.T  # K_XX is symmetric: its transpose has the Fortran layout of A
        if np.ndim(self.V) == 0:
            A[np.diag_indices_from(A)] -= self.V
        else:
            A -= self.V.T
        return A


def kernel_gram_G(K_XS, Delta):
    """The matrix ``G(S) = K_{X,S} Delta^{-1} K_{S,X}`` by Cholesky.

    Parameters
    ----------
    K_XS : array_like, shape (n, s)
        Prior covariance between training inputs X and sensitive inputs S.
    Delta : array_like, shape (s, s)
        Positive definite tolerance matrix (``H_{S,S}`` in the kernel form).

    Returns
    -------
    ndarray, shape (n, n)
        G(S), symmetric positive semi-definite, rank <= s.

    Raises
    ------
    ValueError
        If Delta is not symmetric positive definite or the shapes do not match.

    Notes
    -----
    [TCB] (10)-(11): with ``Delta = H_{S,S}``, ``G(S)_{ij}`` is the inner product of
    ``K(., x_i)`` and ``K(., x_j)`` in the RKHS of H on S.
    """
    K_XS = as_matrix(K_XS, "K_XS")
    L_Delta = pd_cholesky(Delta, "Delta", size=K_XS.shape[1])
    B = linalg.solve_triangular(L_Delta, K_XS.T, lower=True, check_finite=False)
    return B.T @ B


def optimal_noise_factor(K_XX, K_XS, Delta, V=None):
    """Sigma_opt of (8) in factored form (positive eigenpairs only).

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance of f at the training inputs (symmetric PSD, output units^2).
    K_XS : array_like, shape (n, s)
        Prior covariance between training inputs and the s sensitive inputs.
    Delta : array_like, shape (s, s)
        Largest allowed reduction of the covariance of f(S) (symmetric positive definite).
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance; ``None`` for noiseless data.

    Returns
    -------
    FactoredCovariance
        ``Sigma_opt = U diag(lambda) U^T`` with rank <= s.

    Raises
    ------
    ValueError
        As :func:`optimal_noise_covariance`.

    Notes
    -----
    [TCB] equation (8) and Theorem 1.
    """
    return SyntheticNoiseDesign(K_XX, V).factor(K_XS, Delta)


def optimal_noise_covariance(K_XX, K_XS, Delta, V=None):
    """Minimum-trace synthetic-noise covariance that keeps the privacy constraint (5).

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance of f at the training inputs (symmetric PSD, output units^2).
    K_XS : array_like, shape (n, s)
        Prior covariance between training inputs and the s sensitive inputs.
    Delta : array_like, shape (s, s)
        Largest allowed reduction of the covariance of f(S) (symmetric positive
        definite): the user's posterior covariance at S stays >= ``K_SS - Delta``.
    V : float or array_like, shape (n, n), optional
        Covariance of the observation noise already in the data (a scalar means a
        variance times the identity); ``None`` means noiseless data.

    Returns
    -------
    ndarray, shape (n, n)
        ``Sigma_opt = (K_XS Delta^{-1} K_SX - K_XX - V)^+``, symmetric PSD, rank <= s.

    Raises
    ------
    ValueError
        On non-finite input, wrong shapes, a non-symmetric or indefinite K_XX or V, or
        a Delta that is not positive definite.

    Notes
    -----
    [TCB] equation (8), the unique optimum of the SDP (7) (Theorem 1). Only the
    positive eigenpairs are computed when s is much smaller than n (the rank bound of
    :doc:`/theory/privacy-aware-gp`).
    """
    return optimal_noise_factor(K_XX, K_XS, Delta, V).matrix()


def uniform_noise_covariance(K_XX, alpha, V=None):
    """The uniformly privacy-aware covariance ``(K_XX / alpha - K_XX - V)^+``.

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance at the training inputs (symmetric PSD).
    alpha : float
        Privacy level in (0, 1): ``H = alpha K``; the posterior covariance of f stays
        >= ``(1 - alpha) K`` at every input. Smaller alpha is stronger privacy.
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance; ``None`` for noiseless data.

    Returns
    -------
    ndarray, shape (n, n)
        The covariance, symmetric PSD.

    Raises
    ------
    ValueError
        If alpha is outside (0, 1) or K_XX, V are invalid.

    Notes
    -----
    [TCB] §4.2: with ``H = alpha K``, ``G(R^d) = K_XX / alpha``, and (11) gives the
    solution that protects every input location.
    """
    alpha = open_interval(alpha, "alpha")
    K_XX = psd_matrix(K_XX, "K_XX")
    return psd_part(K_XX / alpha - K_XX - noise_matrix(V, len(K_XX), "V")).matrix()


def _check_margin(margin):
    """Validate a relative design margin in [0, 1e-3] (ValueError otherwise)."""
    if not 0.0 <= margin <= 1e-3:
        raise ValueError(f"margin must lie in [0, 1e-3], got {margin!r}")
    return float(margin)


def region_noise_factor(kernel, X, S0, alpha, V=None, margin=DESIGN_MARGIN):
    """Sigma_opt for a sensitive region approximated by a dense finite subset S0.

    Parameters
    ----------
    kernel : callable
        Prior kernel K, ``kernel(A, B)`` -> (nA, nB): :class:`ssa_privacy.gp.RBF`, a
        scikit-learn kernel, ...
    X : array_like, shape (n, d) or (n,)
        Training inputs.
    S0 : array_like, shape (s, d) or (s,)
        Dense finite subset of the sensitive region.
    alpha : float
        Privacy level in (0, 1), ``H = alpha K``.
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance.
    margin : float
        Relative safety margin in [0, 1e-3]: the design uses ``H = (1 - margin) alpha K``,
        so that the released data meet (5) with a slack of about
        ``margin * lambda_min(Delta)`` that round-off cannot erase. The extra noise is
        that of tightening Delta by the relative amount ``margin``: negligible unless
        ``K_{S0,S0}`` is badly conditioned. 0 gives exactly (11).

    Returns
    -------
    FactoredCovariance
        Factored ``(G(S0) - K_XX - V)^+``.

    Raises
    ------
    ValueError
        If alpha is outside (0, 1), ``K_{S0,S0}`` is not positive definite (points too
        close for the kernel: thin S0), or the inputs are invalid.

    Notes
    -----
    [TCB] (11) with ``H = alpha K`` and Theorem 3 (G(S0) -> G(S) as S0 fills S).
    """
    alpha = open_interval(alpha, "alpha")
    margin = _check_margin(margin)
    return optimal_noise_factor(
        kernel_matrix(kernel, X),
        kernel_matrix(kernel, X, S0),
        (1.0 - margin) * alpha * kernel_matrix(kernel, S0),
        V,
    )


def diagonal_noise_covariance(K_XX, K_XS, Delta, V=None):
    """Minimum-trace diagonal noise covariance meeting constraint (5), by an SDP.

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance at the training inputs.
    K_XS : array_like, shape (n, s)
        Prior covariance between training and sensitive inputs.
    Delta : array_like, shape (s, s)
        Largest allowed reduction of the covariance of f(S) (positive definite).
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance.

    Returns
    -------
    ndarray, shape (n, n)
        ``diag(d)`` with ``d >= 0`` minimising ``sum(d)`` subject to
        ``diag(d) + K_XX + V - K_XS Delta^{-1} K_SX >= 0``.

    Raises
    ------
    ValueError
        On invalid input (as :func:`optimal_noise_covariance`).
    RuntimeError
        If the Clarabel solver does not report an optimal solution, or the returned
        matrix violates the constraint beyond a relative tolerance of 1e-6.

    Notes
    -----
    [TCB] §4.1, Example 1: the SDP (7) with the extra constraint "Sigma diagonal";
    it has no closed form. Solved with cvxpy and Clarabel.
    """
    A = SyntheticNoiseDesign(K_XX, V)._matrix(K_XS, Delta)
    B = np.tril(A) + np.tril(A, -1).T
    d = cp.Variable(len(B), nonneg=True)
    problem = cp.Problem(cp.Minimize(cp.sum(d)), [cp.diag(d) - B >> 0])
    solve_clarabel(problem, "the diagonal-noise SDP")
    variances = np.maximum(d.value, 0.0)
    slack = np.linalg.eigvalsh(np.diag(variances) - B)[0]
    scale = max(np.max(np.abs(B)), 1.0)
    if slack < -1e-6 * scale:
        raise RuntimeError(f"diagonal-noise SDP answer violates the constraint by {slack:.3g}")
    return np.diag(variances)
