"""Privacy-aware GP regression: release ``W = Y + Z`` with the optimal synthetic noise [TCB].

A data owner releases ``W = Y + Z`` with ``Z ~ N(0, Sigma)``. The release is private
in the sense of [TCB] (5) when a user who knows the GP prior and the mechanism keeps a
posterior covariance of ``f(S)`` at the sensitive inputs S of at least ``K_SS - Delta``:

    Delta - K_{S,X} (K_{X,X} + V + Sigma)^{-1} K_{X,S} >= 0              [TCB (5)]

:class:`SyntheticNoiseMechanism` designs the minimum-trace Sigma of (8) (or (11) for a
sensitive region, Theorem 3), releases, and certifies each release by recomputing (5)
from the noise it used (:func:`privacy_certificate`). The design functions live in
:mod:`ssa_privacy.privacy.synthetic_noise_design` and are re-exported here, as is the
factored covariance (``PSDPart`` is the name earlier versions gave
:class:`~ssa_privacy.privacy.mechanism.FactoredCovariance`). The theory is in
:doc:`/theory/privacy-aware-gp`.
"""

import copy
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ssa_privacy._validation import (
    as_finite_array,
    as_matrix,
    open_interval,
    pd_cholesky,
    psd_matrix,
)
from ssa_privacy.gp import GaussianProcess, cholesky_with_jitter, kernel_matrix, noise_matrix
from ssa_privacy.privacy.mechanism import (
    Certificate,
    FactoredCovariance,
    Release,
    as_factored,
    data_vector,
    generator,
)
from ssa_privacy.privacy.synthetic_noise_design import (  # noqa: F401
    DESIGN_MARGIN,
    PARTIAL_EIGENSOLVE_FRACTION,
    SyntheticNoiseDesign,
    _check_margin,
    diagonal_noise_covariance,
    kernel_gram_G,
    optimal_noise_covariance,
    optimal_noise_factor,
    psd_part,
    region_noise_factor,
    uniform_noise_covariance,
)

#: The factored PSD part of earlier versions: the shared factored covariance.
PSDPart = FactoredCovariance

#: Relative tolerance of the certificate of (5): a release passes when its margin is at
#: least ``-CERTIFICATE_RTOL * lambda_min(Delta)``. An empirical round-off level of the
#: Cholesky-based evaluation (below 1e-8 relative in the package's studies, including the
#: census study whose K_SS has condition number 1.3e12), not a rigorous bound; designs
#: keep a relative slack of ``DESIGN_MARGIN`` = 1e-7 above it.
CERTIFICATE_RTOL = 1e-8


def sample_synthetic_noise(factor, size=None, seed=None):
    """Draw ``Z ~ N(0, Sigma)`` from a factored PSD covariance.

    Parameters
    ----------
    factor : FactoredCovariance
        Sigma in factored form (e.g. from :func:`optimal_noise_factor`).
    size : int, optional
        Number of independent draws; ``None`` for one draw of shape (n,).
    seed : int or numpy.random.Generator, optional
        Randomness; by default fresh operating-system entropy (a release must not be
        reproducible by others).

    Returns
    -------
    ndarray, shape (n,) or (size, n)
        ``Z = U (sqrt(lambda) * omega)`` with omega standard normal.

    Notes
    -----
    [TCB] §4.1, steps 1-3 of the sampling procedure. The same draws as
    ``factor.sample(numpy.random.default_rng(seed), size)``.
    """
    rng = np.random.default_rng(seed)
    shape = (factor.rank,) if size is None else (size, factor.rank)
    omega = rng.standard_normal(shape)
    return (np.sqrt(factor.eigenvalues) * omega) @ factor.eigenvectors.T


def privacy_certificate(K_XX, K_XS, Delta, Sigma, V=None):
    """Smallest eigenvalue of (posterior covariance at S) - (K_SS - Delta).

    The release is private in the sense of [TCB] (5) exactly when this is >= 0. It
    equals ``lambda_min(Delta - K_SX (K_XX + V + Sigma)^{-1} K_XS)``.

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance at the training inputs (symmetric PSD, output units^2).
    K_XS : array_like, shape (n, s)
        Prior covariance between training and sensitive inputs.
    Delta : array_like, shape (s, s)
        Largest allowed reduction of the covariance of f(S) (positive definite).
    Sigma : array_like, shape (n, n) or FactoredCovariance
        Covariance of the synthetic noise added to the data.
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance; ``None`` for noiseless data.

    Returns
    -------
    float
        The certificate (output units^2); non-negative up to round-off for a valid
        design.

    Raises
    ------
    ValueError
        On invalid input, or a ``K_XX + V + Sigma`` that is not positive definite.

    Notes
    -----
    [TCB] constraint (5), computed with Cholesky factors (no jitter: a jitter would make
    the certificate optimistic). With ``Delta = L L^T`` and ``B = (K_XX + V +
    Sigma)^{-1/2} K_XS``, ``Delta - B^T B = L M L^T`` where ``M = I - L^{-1} B^T B
    L^{-T}``. When M is positive definite (the constraint holds with some relative
    slack, as for designs with a margin), the certificate is evaluated as the smallest
    squared singular value of ``L chol(M)``: this keeps its relative accuracy even when
    Delta is nearly singular (near-duplicate sensitive inputs), where the direct
    eigenvalue of the difference is swamped by round-off. Otherwise the smallest
    eigenvalue of ``Delta - B^T B`` is returned.
    """
    K_XX = psd_matrix(K_XX, "K_XX")
    K_XS = as_matrix(K_XS, "K_XS", shape=(len(K_XX), None))
    L_Delta = pd_cholesky(Delta, "Delta", size=K_XS.shape[1])
    V = noise_matrix(V, len(K_XX), "V")
    Sigma = (
        Sigma.matrix()
        if isinstance(Sigma, FactoredCovariance)
        else psd_matrix(Sigma, "Sigma", len(K_XX))
    )
    L, _ = cholesky_with_jitter(K_XX + V + Sigma, "K_XX + V + Sigma", jitter=0.0)
    B = linalg.solve_triangular(L, K_XS, lower=True)
    P = linalg.solve_triangular(L_Delta, B.T, lower=True)
    M = np.eye(len(P)) - P @ P.T
    try:
        R = np.linalg.cholesky(0.5 * (M + M.T))
    except np.linalg.LinAlgError:
        return float(np.linalg.eigvalsh(L_Delta @ L_Delta.T - B.T @ B)[0])
    return float(linalg.svdvals(L_Delta @ R)[-1] ** 2)


def release(y, factor, seed=None):
    """The released data ``W = Y + Z`` with ``Z ~ N(0, Sigma)``.

    Thin wrapper, kept for existing scripts: use
    ``SyntheticNoiseMechanism(...).release(y, seed=seed)``, which also certifies.

    Parameters
    ----------
    y : array_like, shape (n,)
        The owner's outputs.
    factor : FactoredCovariance
        Sigma in factored form.
    seed : int or numpy.random.Generator, optional
        Randomness; fresh entropy by default.

    Returns
    -------
    ndarray, shape (n,)
        W.

    Raises
    ------
    ValueError
        If y is non-finite or does not match Sigma.

    Notes
    -----
    [TCB] §4.1, the mechanism ``W = Y + Z``.
    """
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != factor.eigenvectors.shape[0]:
        raise ValueError(
            f"y has {len(y)} entries but Sigma is {factor.eigenvectors.shape[0]}x"
            f"{factor.eigenvectors.shape[0]}"
        )
    return y + sample_synthetic_noise(factor, seed=seed)


class SyntheticNoiseMechanism:
    """The privacy-aware release ``W = Y + Z``, ``Z ~ N(0, Sigma_opt)``, of [TCB].

    The constructor designs Sigma_opt of (8) for a prior ``(K_XX, V)``, sensitive inputs
    S (``K_XS``) and a tolerance Delta; :meth:`for_region` designs (11) from a kernel
    and a privacy level alpha. Both tighten Delta by the relative ``margin`` so that
    round-off cannot break the guarantee of the release.

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance of f at the training inputs (symmetric PSD, output units^2).
    K_XS : array_like, shape (n, s)
        Prior covariance between the training inputs and the s sensitive inputs.
    Delta : array_like, shape (s, s)
        Largest allowed reduction of the covariance of f(S) (symmetric positive
        definite, output units^2): the user's posterior covariance at S stays
        >= ``K_SS - Delta``.
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance already in the data; ``None`` for noiseless data.
    margin : float
        Relative design margin in [0, 1e-3]: Sigma_opt is designed for
        ``(1 - margin) Delta`` (0 gives exactly (8)).

    Attributes
    ----------
    noise_covariance : FactoredCovariance
        Sigma, of rank <= s (output units^2).
    K_XX, K_XS, Delta, V
        The validated design inputs (V as an (n, n) matrix).
    alpha : float or None
        The privacy level of :meth:`for_region` (None for a matrix Delta).

    Raises
    ------
    ValueError
        On invalid input: wrong shapes, a non-symmetric or indefinite K_XX or V, a
        Delta that is not positive definite, a margin outside [0, 1e-3].

    Notes
    -----
    [TCB] constraint (5), closed form (8) (Theorem 1), kernel form (11) with Theorem 3,
    sampling §4.1. Certificate: notion ``"posterior-covariance"``; margin
    ``lambda_min(Delta - K_SX (K_XX + V + Sigma)^{-1} K_XS)`` (output units^2,
    :func:`privacy_certificate`) recomputed from ``noise_covariance``; tolerance
    ``CERTIFICATE_RTOL * lambda_min(Delta)``; passed when ``margin >= -tolerance``. See
    :doc:`/theory/privacy-aware-gp`.

    Examples
    --------
    >>> import numpy as np
    >>> from ssa_privacy.gp import RBF
    >>> X = np.linspace(0, 1, 20)
    >>> mech = SyntheticNoiseMechanism.for_region(RBF(0.2), X, X[8:12], 0.5, V=1e-4)
    >>> out = mech.release(np.sin(6 * X), seed=0)
    >>> out.values.shape, out.certificate.passed, mech.noise_covariance.rank <= 4
    ((20,), True, True)
    >>> mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed
    False
    """

    def __init__(self, K_XX, K_XS, Delta, *, V=None, margin=DESIGN_MARGIN):
        margin = _check_margin(margin)
        design = SyntheticNoiseDesign(K_XX, V)
        K_XS = as_matrix(K_XS, "K_XS", shape=(len(design.K_XX), None))
        Delta = np.asarray(Delta, dtype=float)
        noise = design.factor(K_XS, (1.0 - margin) * Delta)
        self._set(design.K_XX, K_XS, Delta, V, noise, margin, None)

    @classmethod
    def for_region(cls, kernel, X, S0, alpha, *, V=None, margin=DESIGN_MARGIN):
        """Design (11) for a sensitive region represented by a dense finite subset S0.

        Parameters
        ----------
        kernel : callable
            Prior kernel K, ``kernel(A, B)`` -> (nA, nB): :class:`ssa_privacy.gp.RBF`,
            a scikit-learn kernel, ...
        X : array_like, shape (n, d) or (n,)
            Training inputs.
        S0 : array_like, shape (s, d) or (s,)
            Dense finite subset of the sensitive region.
        alpha : float
            Privacy level in (0, 1): ``Delta = alpha K_{S0,S0}``, so the user's posterior
            covariance at S0 stays >= ``(1 - alpha) K_{S0,S0}``; smaller is stronger.
        V : float or array_like, shape (n, n), optional
            Observation-noise covariance.
        margin : float
            Relative design margin in [0, 1e-3] (as the constructor).

        Returns
        -------
        SyntheticNoiseMechanism
            The noise of :func:`region_noise_factor` with the same arguments.

        Raises
        ------
        ValueError
            If alpha is outside (0, 1), ``K_{S0,S0}`` is not positive definite (thin
            S0), or the inputs are invalid.

        Notes
        -----
        [TCB] §4.2, (11) with ``H = alpha K`` and Theorem 3.
        """
        alpha = open_interval(alpha, "alpha")
        margin = _check_margin(margin)
        K_XX, K_XS = kernel_matrix(kernel, X), kernel_matrix(kernel, X, S0)
        K_SS = kernel_matrix(kernel, S0)
        design = SyntheticNoiseDesign(K_XX, V)
        noise = design.factor(K_XS, (1.0 - margin) * alpha * K_SS)
        mechanism = cls.__new__(cls)
        mechanism._set(design.K_XX, K_XS, alpha * K_SS, V, noise, margin, alpha)
        return mechanism

    def _set(self, K_XX, K_XS, Delta, V, noise, margin, alpha):
        self.K_XX, self.K_XS, self.Delta = K_XX, K_XS, Delta
        self.V = noise_matrix(V, len(K_XX), "V")
        self.noise_covariance = noise
        self.margin, self.alpha = margin, alpha
        self._certificate = None

    @property
    def dim(self):
        """n, the number of released outputs."""
        return len(self.K_XX)

    def certificate(self):
        """The guarantee (5) of this mechanism's releases, recomputed from its noise.

        Returns
        -------
        Certificate
            Notion ``"posterior-covariance"``; parameters ``sensitive_inputs`` (s) and
            ``alpha`` when known; margin ``lambda_min(Delta - K_SX (K_XX + V +
            Sigma)^{-1} K_XS)`` (output units^2); tolerance ``CERTIFICATE_RTOL *
            lambda_min(Delta)``; evidence: ``lambda_min_Delta``, ``relative_margin``
            (margin / lambda_min(Delta)), ``noise_trace``, ``noise_rank``, ``rule``.

        Raises
        ------
        ValueError
            If ``K_XX + V + Sigma`` is not positive definite.
        """
        if self._certificate is None:
            margin = privacy_certificate(
                self.K_XX, self.K_XS, self.Delta, self.noise_covariance, self.V
            )
            smallest = float(np.linalg.eigvalsh(self.Delta)[0])
            tolerance = CERTIFICATE_RTOL * smallest
            parameters = {"sensitive_inputs": self.K_XS.shape[1]}
            if self.alpha is not None:
                parameters["alpha"] = self.alpha
            self._certificate = Certificate(
                notion="posterior-covariance",
                parameters=parameters,
                passed=bool(margin >= -tolerance),
                margin=margin,
                tolerance=tolerance,
                evidence={
                    "lambda_min_Delta": smallest,
                    "relative_margin": margin / smallest,
                    "noise_trace": self.noise_covariance.trace,
                    "noise_rank": self.noise_covariance.rank,
                    "rule": "margin >= -tolerance (relative tolerance, not a rigorous bound)",
                },
            )
        return self._certificate

    def release(self, y, *, seed=None):
        """Release ``W = y + Z``, ``Z ~ N(0, Sigma)``, with its certificate.

        Parameters
        ----------
        y : array_like, shape (n,)
            The owner's outputs (output units).
        seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness; None draws fresh operating-system entropy (as a release should).
            An int gives the same draws as ``release(y, factor, seed)``.

        Returns
        -------
        Release
            ``values`` W, shape (n,); ``noise_covariance`` Sigma; the certificate;
            ``details`` with the rank and the eigensolver of Sigma.

        Raises
        ------
        ValueError
            If y is not a finite vector of length n.
        TypeError
            If seed has an unsupported type.
        """
        y = data_vector(y, self.dim, "y")
        rng, seed_keys = generator(seed)
        values = y + self.noise_covariance.sample(rng)
        details = {"rank": self.noise_covariance.rank, "method": self.noise_covariance.method}
        return Release(values, self.noise_covariance, self.certificate(), seed_keys, details)

    def with_noise(self, noise_covariance):
        """The same mechanism with another noise covariance (for audits).

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like, shape (n, n)
            The noise to certify and release with.

        Returns
        -------
        SyntheticNoiseMechanism
            A copy whose certificate is recomputed from ``noise_covariance``.

        Raises
        ------
        ValueError
            If the covariance is not (n, n) symmetric positive semi-definite.
        """
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, self.dim, "noise_covariance")
        other._certificate = None
        return other


@dataclass(frozen=True)
class ObfuscationResult:
    """One privacy-aware release.

    Parameters
    ----------
    W : ndarray, shape (n,)
        Released outputs.
    Sigma : FactoredCovariance
        Synthetic-noise covariance, factored.
    certificate : float
        :func:`privacy_certificate` of the release (>= 0 up to round-off).
    """

    W: np.ndarray
    Sigma: FactoredCovariance
    certificate: float


def obfuscate(kernel, X, y, S0, alpha, V=None, seed=None):
    """Design Sigma_opt for a sensitive region, release ``W = Y + Z`` and certify it.

    Thin wrapper, kept for existing scripts: use
    ``SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V).release(y, seed=seed)``.

    Parameters
    ----------
    kernel : callable
        Prior kernel K.
    X : array_like, shape (n, d) or (n,)
        Training inputs.
    y : array_like, shape (n,)
        Training outputs, centred or not (the mechanism adds zero-mean noise).
    S0 : array_like, shape (s, d) or (s,)
        Dense finite subset of the sensitive region.
    alpha : float
        Privacy level in (0, 1) (``H = alpha K``; smaller is stronger).
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance.
    seed : int or numpy.random.Generator, optional
        Randomness of the release; fresh entropy by default.

    Returns
    -------
    ObfuscationResult
        The release W, the factored noise and its certificate.

    Raises
    ------
    ValueError
        As :func:`region_noise_factor` and :func:`release`.

    Notes
    -----
    [TCB] §4.2, (11) with Theorem 3 (with the safety margin of
    :func:`region_noise_factor`), then the sampling steps of §4.1.
    """
    alpha = open_interval(alpha, "alpha")
    K_XX, K_XS = kernel_matrix(kernel, X), kernel_matrix(kernel, X, S0)
    Delta = alpha * kernel_matrix(kernel, S0)
    factor = optimal_noise_factor(K_XX, K_XS, (1.0 - DESIGN_MARGIN) * Delta, V)
    W = release(y, factor, seed=seed)
    return ObfuscationResult(
        W=W, Sigma=factor, certificate=privacy_certificate(K_XX, K_XS, Delta, factor, V)
    )


def privacy_aware_gp(gp, X, W, Sigma):
    """The user's GP posterior given a release: the same prior, noise ``V + Sigma``.

    Parameters
    ----------
    gp : ssa_privacy.gp.GaussianProcess
        The owner's model (kernel, constant mean, observation noise V), as known to
        the user.
    X : array_like, shape (n, d) or (n,)
        Released inputs.
    W : array_like, shape (n,)
        Released outputs ``Y + Z``.
    Sigma : FactoredCovariance or array_like, shape (n, n)
        Covariance of the synthetic noise Z.

    Returns
    -------
    ssa_privacy.gp.GaussianProcess
        Fitted to (X, W); its ``predict`` gives the privacy-aware mean and covariance.

    Raises
    ------
    ValueError
        On shape mismatches or a ``K + V + Sigma`` that does not factorise.

    Notes
    -----
    [TCB] §4: (1)-(2) with V replaced by ``V + Sigma``; its covariance at S satisfies
    (5).
    """
    Sigma = Sigma.matrix() if isinstance(Sigma, FactoredCovariance) else psd_matrix(Sigma, "Sigma")
    noise = noise_matrix(gp.noise, len(Sigma)) + Sigma
    return GaussianProcess(gp.kernel, gp.mean, noise).fit(X, W)
