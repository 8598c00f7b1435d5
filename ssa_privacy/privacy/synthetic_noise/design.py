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
inertia), so only those eigenpairs are computed when ``|S|`` is small: by LAPACK's subset
eigensolver, and from ``KRYLOV_MIN_SIZE`` training inputs on by a block Lanczos iteration
whose number of eigenpairs is fixed beforehand by the inertia of an ``|S| x |S|`` matrix
(one Cholesky factorisation of ``K + V``) and whose result is residual-checked. The
diagonal variant of (7) (Example 1) has no closed form and is solved as an SDP. The
theory, the design margin and the reproduction notes are in
:doc:`/theory/privacy-aware-gp`; the mechanism that releases and certifies is
:class:`ssa_privacy.privacy.synthetic_noise.mechanism.SyntheticNoiseMechanism`.
"""

import cvxpy as cp
import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix, symmetric_matrix
from ssa_privacy._internal.solvers import solve_clarabel
from ssa_privacy._internal.validation import as_matrix, open_interval, positive_int, scalar
from ssa_privacy.gp.kernels import kernel_matrix
from ssa_privacy.gp.regression import noise_matrix
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.synthetic_noise import tightening
from ssa_privacy.privacy.synthetic_noise.certificate import posterior_covariance_certificate
from ssa_privacy.privacy.synthetic_noise.lanczos import lanczos_psd_part
from ssa_privacy.privacy.synthetic_noise.tightening import MAX_DESIGN_MARGIN

__all__ = [
    "KRYLOV_MIN_SIZE",
    "PARTIAL_EIGENSOLVE_FRACTION",
    "SyntheticNoiseDesign",
    "diagonal_noise_covariance",
    "kernel_gram_G",
    "optimal_noise_covariance",
    "optimal_noise_factor",
    "psd_part",
    "region_noise_factor",
    "uniform_noise_covariance",
]

#: Use the subset eigensolver when the number of sensitive inputs is at most this fraction of n.
PARTIAL_EIGENSOLVE_FRACTION = 0.25
#: From this many training inputs on (and s within ``PARTIAL_EIGENSOLVE_FRACTION * n``),
#: designs of (8) use the block Lanczos solver; below it, the subset eigensolver.
KRYLOV_MIN_SIZE = 3000


def psd_part(A, rank_bound=None):
    """Positive semi-definite part of a symmetric matrix, in factored form.

    Parameters
    ----------
    A : array_like, shape (n, n)
        Symmetric matrix.
    rank_bound : int, optional
        Known upper bound on the number of positive eigenvalues (for (8), the inertia
        bound s). At most ``rank_bound`` eigenpairs, the largest, are kept: further
        positive eigenvalues are round-off. When it is at most
        ``PARTIAL_EIGENSOLVE_FRACTION * n``, LAPACK's subset eigensolver computes only
        the eigenpairs in ``(0, inf)``; otherwise a dense decomposition is used.

    Returns
    -------
    FactoredCovariance
        Positive eigenvalues and eigenvectors of A (rank <= ``rank_bound``); ``method``
        is ``"partial"`` (subset eigensolver) or ``"dense"``.

    Raises
    ------
    TypeError
        If ``rank_bound`` is neither None nor an integer.
    ValueError
        If A is not square, symmetric and finite, or ``rank_bound`` is below 1.

    Notes
    -----
    [TCB] §4.1 (the PSD part via the spectral decomposition) and Theorem 1.
    """
    rank_bound = None if rank_bound is None else positive_int(rank_bound, "rank_bound")
    return _psd_part(symmetric_matrix(A, "A").T, rank_bound)


def _psd_part(A, rank_bound):
    """:func:`psd_part` of the symmetric matrix whose lower triangle ``A`` holds.

    ``A`` is overwritten (in place when it is Fortran-ordered); its upper triangle is
    never read. At most ``rank_bound`` eigenpairs are kept (the largest): by the inertia
    bound, positive eigenvalues beyond it are round-off.
    """
    n = len(A)
    subset = {}
    if rank_bound is not None and rank_bound <= PARTIAL_EIGENSOLVE_FRACTION * n:
        subset = {"subset_by_value": [0.0, np.inf], "driver": "evr"}
    eigenvalues, eigenvectors = linalg.eigh(
        A, lower=True, overwrite_a=True, check_finite=False, **(subset or {"driver": "evd"})
    )
    keep = np.flatnonzero(eigenvalues > 0)
    if rank_bound is not None:
        keep = keep[len(keep) - min(len(keep), rank_bound) :]
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
            :doc:`/theory/privacy-aware-gp`): by block Lanczos (method ``"lanczos"``)
            from ``KRYLOV_MIN_SIZE`` training inputs on, else by the subset eigensolver.

        Raises
        ------
        ValueError
            On a wrong shape, non-finite entries or a Delta that is not positive definite.
        """
        return self._positive_part(self._whitened(K_XS, Delta), 1.0)

    def _whitened(self, K_XS, Delta):
        """``Y = L_Delta^{-1} K_SX`` (s, n), so that ``K_XS Delta^{-1} K_SX = Y^T Y``.

        K_XS and Delta are validated here.
        """
        K_XS = as_matrix(K_XS, "K_XS", shape=(len(self.K_XX), None))
        L_Delta = pd_cholesky(Delta, "Delta", size=K_XS.shape[1])
        return linalg.solve_triangular(L_Delta, K_XS.T, lower=True, check_finite=False)

    def _matrix(self, K_XS, Delta):
        """Lower triangle, in Fortran order, of ``K_XS Delta^{-1} K_SX - K_XX - V`` (8).

        K_XS and Delta are validated here; the upper triangle of the result is not
        meaningful.
        """
        return self._scaled_matrix(self._whitened(K_XS, Delta), 1.0)

    def _scaled_matrix(self, Y, scale):
        """Lower triangle, in Fortran order, of ``scale Y^T Y - K_XX - V``."""
        return self._minus_prior(linalg.blas.dsyrk(scale, Y, trans=1, lower=1))

    def _positive_part(self, Y, scale):
        """The positive eigenpairs (at most s) of ``scale Y^T Y - K_XX - V``.

        Block Lanczos (:func:`~ssa_privacy.privacy.synthetic_noise.lanczos.lanczos_psd_part`)
        when n >= ``KRYLOV_MIN_SIZE`` and s <= ``PARTIAL_EIGENSOLVE_FRACTION * n``; the
        subset eigensolver of the dense matrix otherwise, or when the iteration declines.
        """
        s, n = Y.shape
        if n >= KRYLOV_MIN_SIZE and s <= PARTIAL_EIGENSOLVE_FRACTION * n:
            noise = lanczos_psd_part(self.K_XX, self.V, Y, scale)
            if noise is not None:
                return noise
        return _psd_part(self._scaled_matrix(Y, scale), rank_bound=s)

    def _minus_prior(self, A):
        """``A - K_XX - V`` in place, for the lower triangle A in Fortran order."""
        A -= self.K_XX.T  # K_XX is symmetric: its transpose has the Fortran layout of A
        if np.ndim(self.V) == 0:
            A[np.diag_indices_from(A)] -= self.V
        else:
            A -= self.V.T
        return A

    def certified(self, K_XS, Delta, *, alpha=None):
        """Sigma_opt with a tightening that round-off cannot break, and its certificate.

        Parameters
        ----------
        K_XS : array_like, shape (n, s)
            Prior covariance between the training inputs and the s sensitive inputs.
        Delta : array_like, shape (s, s)
            Tolerance (symmetric positive semi-definite, output units^2).
        alpha : float, optional
            The privacy level when ``Delta = alpha K_SS`` (recorded in the certificate).

        Returns
        -------
        CertifiedNoise
            The noise ``(K_XS Delta_rho^{-1} K_SX / (1 - m) - K_XX - V)^+ + nu I`` (rank
            <= s when ``nu = 0``), the margin m, the resolution rho, the nugget nu and the
            certificate of the noise, which passes.

        Raises
        ------
        ValueError
            On invalid input or a Delta that is not positive semi-definite.
        RuntimeError
            If no design could be certified (not expected; the rule has a safety factor
            of ``DESIGN_SAFETY``).

        Notes
        -----
        [TCB] (8) for ``(1 - m) Delta_rho`` with ``Delta_rho = Delta + rho I``. The margin m
        exceeds ``DESIGN_SAFETY`` times the relative error bound of the whitening by
        ``Delta_rho`` (from ``DESIGN_MARGIN`` up to ``MAX_DESIGN_MARGIN``; beyond it rho > 0
        makes Delta_rho well enough conditioned), and the slack ``m lambda_min(K_XX + V)``
        exceeds the absolute error bound; where it cannot (noiseless data with a smooth
        kernel) a nugget ``nu I`` of independent noise is added. See
        :doc:`/theory/privacy-aware-gp`, "Certificates in floating point".
        """
        K_XS = as_matrix(K_XS, "K_XS", shape=(len(self.K_XX), None))
        Delta, smallest = tightening.validated_tolerance(Delta, K_XS.shape[1])
        margin, whitening = tightening.relative_plan(K_XS, Delta, smallest)
        errors = tightening.error_scale(self.K_XX, self.V, whitening, margin)
        margin, nugget = tightening.absolute_plan(self.K_XX, self.V, errors, margin)
        for attempt in range(1, 5):
            noise = self._noise(whitening.Y, margin, nugget)
            certificate = posterior_covariance_certificate(
                self.K_XX, K_XS, Delta, noise, self.V, whitening.resolution, alpha
            )
            if certificate.passed:
                return tightening.CertifiedNoise(
                    noise, margin, whitening.resolution, nugget, certificate, attempt
                )
            nugget = max(4.0 * nugget, 4.0 * errors)
            margin = min(2.0 * margin, MAX_DESIGN_MARGIN)
        raise RuntimeError(
            "the synthetic-noise design could not be certified in floating point: "
            f"margin {certificate.margin:.3g} +- {certificate.tolerance:.3g}"
        )

    def _noise(self, Y, margin, nugget):
        """``(Y^T Y / (1 - m) - K_XX - V)^+ + nu I`` in factored form (rank <= s if nu = 0)."""
        if nugget == 0.0:
            return self._positive_part(Y, 1.0 / (1.0 - margin))
        A = self._scaled_matrix(Y, 1.0 / (1.0 - margin))
        eigenvalues, eigenvectors = linalg.eigh(
            A, lower=True, overwrite_a=True, check_finite=False, driver="evd"
        )
        kept = np.zeros(len(eigenvalues))
        positive = np.flatnonzero(eigenvalues > 0)[-len(Y) :]
        kept[positive] = eigenvalues[positive]
        return FactoredCovariance(kept + nugget, eigenvectors, "nugget")


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
    """Validate a relative design margin: None (automatic) or a float in [0, 1e-3]."""
    if margin is None:
        return None
    margin = scalar(margin, "margin")
    if not 0.0 <= margin <= 1e-3:
        raise ValueError(f"margin must lie in [0, 1e-3], got {margin!r}")
    return float(margin)


def region_noise_factor(kernel, X, S0, alpha, V=None, margin=None):
    """Sigma_opt for a sensitive region approximated by a dense finite subset S0.

    Parameters
    ----------
    kernel : callable
        Prior kernel K, ``kernel(A, B)`` -> (nA, nB): :class:`ssa_privacy.gp.kernels.RBF`, a
        scikit-learn kernel, ...
    X : array_like, shape (n, d) or (n,)
        Training inputs.
    S0 : array_like, shape (s, d) or (s,)
        Dense finite subset of the sensitive region.
    alpha : float
        Privacy level in (0, 1), ``H = alpha K``.
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance.
    margin : None or float
        None (default): the certified design of
        :meth:`SyntheticNoiseDesign.certified` (its tightening, resolution and nugget
        chosen from the certificate's error analysis, so that the release passes its
        certificate). A float in [0, 1e-3]: the design for ``(1 - margin) alpha K_{S0,S0}``
        exactly, without resolution or nugget; 0 gives exactly (11).

    Returns
    -------
    FactoredCovariance
        Factored ``(G(S0) - K_XX - V)^+`` (tightened as above).

    Raises
    ------
    ValueError
        If alpha is outside (0, 1), ``K_{S0,S0}`` is not positive semi-definite (with a
        float margin: not positive definite), or the inputs are invalid.

    Notes
    -----
    [TCB] (11) with ``H = alpha K`` and Theorem 3 (G(S0) -> G(S) as S0 fills S).
    """
    alpha = open_interval(alpha, "alpha")
    margin = _check_margin(margin)
    K_XX, K_XS = kernel_matrix(kernel, X), kernel_matrix(kernel, X, S0)
    Delta = alpha * kernel_matrix(kernel, S0)
    if margin is None:
        return SyntheticNoiseDesign(K_XX, V).certified(K_XS, Delta, alpha=alpha).noise
    return optimal_noise_factor(K_XX, K_XS, (1.0 - margin) * Delta, V)


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
