"""Privacy-aware GP regression: release ``W = Y + Z`` with the optimal synthetic noise [TCB].

A data owner releases ``W = Y + Z`` with ``Z ~ N(0, Sigma)``. The release is private
in the sense of [TCB] (5) when a user who knows the GP prior and the mechanism keeps a
posterior covariance of ``f(S)`` at the sensitive inputs S of at least ``K_SS - Delta``:

    Delta - K_{S,X} (K_{X,X} + V + Sigma)^{-1} K_{X,S} >= 0              [TCB (5)]

:class:`SyntheticNoiseMechanism` designs the minimum-trace Sigma of (8) (or (11) for a
sensitive region, Theorem 3), releases, and certifies each release by recomputing (5)
from the noise it used (:func:`privacy_certificate`), with a rigorous bound on the
rounding error of the certificate
(:mod:`ssa_privacy.privacy.synthetic_noise.certificate`). The design functions live in
:mod:`ssa_privacy.privacy.synthetic_noise.design` (their floating-point tightening in
:mod:`ssa_privacy.privacy.synthetic_noise.tightening`); the noise is a
:class:`~ssa_privacy.privacy.mechanism.FactoredCovariance`. The theory is in
:doc:`/theory/privacy-aware-gp`.

The standalone ``release(y, factor, seed)`` and ``obfuscate(...)`` of earlier versions
(with ``ObfuscationResult``, ``PSDPart`` and ``CERTIFICATE_RTOL``) are deprecated and kept
until 0.3 in :mod:`ssa_privacy._compat`: release through
``SyntheticNoiseMechanism(...).release(y, seed=...)``.
"""

import copy

import numpy as np

from ssa_privacy._internal.matrix_validation import psd_matrix
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    non_negative,
    nonempty,
    open_interval,
)
from ssa_privacy.gp.kernels import kernel_matrix
from ssa_privacy.gp.regression import GaussianProcess, noise_matrix
from ssa_privacy.privacy.mechanism import (
    FactoredCovariance,
    Release,
    as_factored,
    data_vector,
    generator,
)
from ssa_privacy.privacy.synthetic_noise.certificate import posterior_covariance_certificate
from ssa_privacy.privacy.synthetic_noise.design import SyntheticNoiseDesign, _check_margin
from ssa_privacy.privacy.synthetic_noise.tightening import validated_tolerance

__all__ = [
    "SyntheticNoiseMechanism",
    "privacy_aware_gp",
    "privacy_certificate",
    "sample_synthetic_noise",
]


def sample_synthetic_noise(factor, size=None, seed=None):
    """Draw ``Z ~ N(0, Sigma)`` from a factored PSD covariance.

    Parameters
    ----------
    factor : FactoredCovariance
        Sigma in factored form (e.g. from
        :func:`~ssa_privacy.privacy.synthetic_noise.design.optimal_noise_factor`).
    size : int, optional
        Number of independent draws; ``None`` for one draw of shape (n,).
    seed : int or numpy.random.Generator, optional
        Randomness; by default fresh operating-system entropy (a release must not be
        reproducible by others).

    Returns
    -------
    ndarray, shape (n,) or (size, n)
        ``Z = U (sqrt(lambda) * omega)`` with omega standard normal.

    Raises
    ------
    TypeError
        If ``factor`` is not a FactoredCovariance, or ``size`` or ``seed`` has a wrong
        type.
    ValueError
        If ``size`` is not a positive integer or ``seed`` is negative.

    Notes
    -----
    [TCB] §4.1, steps 1-3 of the sampling procedure. The same draws as
    ``factor.sample(numpy.random.default_rng(seed), size)``.
    """
    if not isinstance(factor, FactoredCovariance):
        raise TypeError(f"factor must be a FactoredCovariance, got {type(factor).__name__}")
    return factor.sample(random_generator(seed), size)


def privacy_certificate(K_XX, K_XS, Delta, Sigma, V=None, *, resolution=0.0, alpha=None):
    """The certificate of [TCB] (5) for a noise Sigma, with a rigorous rounding bound.

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance at the training inputs (symmetric PSD, output units^2).
    K_XS : array_like, shape (n, s)
        Prior covariance between training and sensitive inputs.
    Delta : array_like, shape (s, s)
        Largest allowed reduction of the covariance of f(S) (symmetric positive
        semi-definite, output units^2).
    Sigma : FactoredCovariance or array_like, shape (n, n)
        Covariance of the synthetic noise added to the data: a FactoredCovariance is
        taken exactly as ``U diag(lambda) U^T`` from its factors (never rebuilt as a
        matrix first), a matrix exactly as given (symmetrized).
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance; ``None`` for noiseless data.
    resolution : float
        rho >= 0 (output units^2): the guarantee certified is (5) for ``Delta + rho I``
        (a numerically singular Delta needs rho > 0; designs state theirs).
    alpha : float, optional
        The privacy level when ``Delta = alpha K_SS`` (recorded in the certificate).

    Returns
    -------
    Certificate
        Notion ``"posterior-covariance"``. ``margin`` (dimensionless) is the relative
        margin ``mu*``: (5) holds for ``(1 - mu*) (Delta + rho I)`` and fails for any
        smaller multiple; ``tolerance`` rigorously bounds ``|margin - mu*|``; ``passed``
        iff ``margin - tolerance >= 0``, which proves (5) for the given floating-point
        inputs. The evidence holds the enclosure, the estimate, the resolution and the
        error terms.

    Raises
    ------
    ValueError
        On invalid input, or a ``Delta + rho I`` that is not numerically positive
        definite.

    Notes
    -----
    [TCB] constraint (5) in the data-space form ``K_XX + V + Sigma - K_XS (Delta + rho
    I)^{-1} K_SX >= 0`` (a Schur complement; no inverse of ``K_XX + V + Sigma``, so it
    holds for noiseless data). The bound follows Higham (2002), Theorems 8.5 and 10.3, and
    Rump (2006); see :func:`~ssa_privacy.privacy.synthetic_noise.certificate.posterior_covariance_certificate`
    and :doc:`/theory/privacy-aware-gp`, "Certificates in floating point". Earlier
    versions returned a float in output units^2, with no bound.
    """
    K_XX = psd_matrix(K_XX, "K_XX")
    n = len(K_XX)
    K_XS = as_matrix(K_XS, "K_XS", shape=(n, None))
    Delta, _ = validated_tolerance(Delta, K_XS.shape[1])
    if isinstance(Sigma, FactoredCovariance):
        noise = as_factored(Sigma, n, "Sigma")
    else:
        noise = psd_matrix(Sigma, "Sigma", n)
    V = noise_matrix(V, 1, "V")[0, 0] if V is None or np.ndim(V) == 0 else noise_matrix(V, n, "V")
    resolution = non_negative(resolution, "resolution")
    if alpha is not None:
        alpha = open_interval(alpha, "alpha")
    return posterior_covariance_certificate(K_XX, K_XS, Delta, noise, V, resolution, alpha)


class SyntheticNoiseMechanism:
    """The privacy-aware release ``W = Y + Z``, ``Z ~ N(0, Sigma_opt)``, of [TCB].

    The constructor designs Sigma_opt of (8) for a prior ``(K_XX, V)``, sensitive inputs
    S (``K_XS``) and a tolerance Delta; :meth:`for_region` designs (11) from a kernel
    and a privacy level alpha. By default the design is *certified*: it tightens Delta by
    a margin chosen from the certificate's error analysis, states a resolution when
    Delta is numerically singular and adds a nugget for noiseless data when needed, so
    that the certificate of its releases passes (:meth:`SyntheticNoiseDesign.certified`).

    Parameters
    ----------
    K_XX : array_like, shape (n, n)
        Prior covariance of f at the training inputs (symmetric PSD, output units^2).
    K_XS : array_like, shape (n, s)
        Prior covariance between the training inputs and the s sensitive inputs.
    Delta : array_like, shape (s, s)
        Largest allowed reduction of the covariance of f(S) (symmetric positive
        semi-definite, output units^2): the user's posterior covariance at S stays
        >= ``K_SS - Delta - rho I`` with rho the design's resolution (0 unless Delta is
        numerically singular).
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance already in the data; ``None`` for noiseless data.
    margin : None or float
        None (default): the certified design. A float in [0, 1e-3]: Sigma_opt for
        ``(1 - margin) Delta`` exactly, with no resolution and no nugget (0 gives exactly
        (8), whose certificate cannot pass: the constraint binds).

    Attributes
    ----------
    noise_covariance : FactoredCovariance
        Sigma, of rank <= s unless a nugget was added (output units^2).
    K_XX, K_XS, Delta, V
        The validated design inputs (V a float or an (n, n) matrix).
    alpha : float or None
        The privacy level of :meth:`for_region` (None for a matrix Delta).
    margin, resolution, nugget : float
        The design's relative tightening m, resolution rho and nugget nu (output
        units^2 for the last two); the certificate's evidence adds ``design_attempts``
        (1 unless the design had to be raised after a failed certificate). After
        :meth:`with_noise`, ``margin`` and ``nugget`` (which describe a designed noise)
        are None; rho stays, as part of the guarantee.

    Raises
    ------
    ValueError
        On invalid input: wrong shapes, a non-symmetric or indefinite K_XX or V, a
        Delta that is not positive semi-definite (with a float margin: not positive
        definite), a margin outside [0, 1e-3].
    TypeError
        If margin is neither None nor a real number.

    Notes
    -----
    [TCB] constraint (5), closed form (8) (Theorem 1), kernel form (11) with Theorem 3,
    sampling §4.1. Certificate: notion ``"posterior-covariance"``, recomputed from
    ``noise_covariance`` by :func:`privacy_certificate` (for ``Delta + rho I``): margin
    the relative margin of (5) (dimensionless), tolerance a rigorous bound on its
    rounding error, passed iff ``margin - tolerance >= 0``. See
    :doc:`/theory/privacy-aware-gp`, "Certificates in floating point".

    Examples
    --------
    >>> import numpy as np
    >>> from ssa_privacy.gp.kernels import RBF
    >>> X = np.linspace(0, 1, 20)
    >>> mech = SyntheticNoiseMechanism.for_region(RBF(0.2), X, X[8:12], 0.5, V=1e-4)
    >>> out = mech.release(np.sin(6 * X), seed=0)
    >>> out.values.shape, out.certificate.passed, mech.noise_covariance.rank <= 4
    ((20,), True, True)
    >>> mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed
    False
    """

    def __init__(self, K_XX, K_XS, Delta, *, V=None, margin=None):
        margin = _check_margin(margin)
        design = SyntheticNoiseDesign(K_XX, V)
        K_XS = as_matrix(K_XS, "K_XS", shape=(len(design.K_XX), None))
        self._design(design, K_XS, Delta, margin, None)

    @classmethod
    def for_region(cls, kernel, X, S0, alpha, *, V=None, margin=None):
        """Design (11) for a sensitive region represented by a dense finite subset S0.

        Parameters
        ----------
        kernel : callable
            Prior kernel K, ``kernel(A, B)`` -> (nA, nB): :class:`ssa_privacy.gp.kernels.RBF`,
            a scikit-learn kernel, ...
        X : array_like, shape (n, d) or (n,)
            Training inputs.
        S0 : array_like, shape (s, d) or (s,)
            Dense finite subset of the sensitive region.
        alpha : float
            Privacy level in (0, 1): ``Delta = alpha K_{S0,S0}``, so the user's posterior
            covariance at S0 stays >= ``(1 - alpha) K_{S0,S0} - rho I``; smaller is
            stronger.
        V : float or array_like, shape (n, n), optional
            Observation-noise covariance.
        margin : None or float
            As the constructor: None for the certified design.

        Returns
        -------
        SyntheticNoiseMechanism
            The noise of
            :func:`~ssa_privacy.privacy.synthetic_noise.design.region_noise_factor` with the
            same arguments.

        Raises
        ------
        ValueError
            If alpha is outside (0, 1), ``K_{S0,S0}`` is not positive semi-definite, or
            the inputs are invalid.

        Notes
        -----
        [TCB] §4.2, (11) with ``H = alpha K`` and Theorem 3. Near-duplicate points of S0
        make ``K_{S0,S0}`` numerically singular: the certified design then states the
        resolution rho, and directions of f(S0) whose prior variance is below ``rho / (1
        - alpha)`` (``evidence["unprotected_prior_variance"]``) are not protected.
        """
        alpha = open_interval(alpha, "alpha")
        margin = _check_margin(margin)
        K_XX, K_XS = kernel_matrix(kernel, X), kernel_matrix(kernel, X, S0)
        design = SyntheticNoiseDesign(K_XX, V)
        mechanism = cls.__new__(cls)
        mechanism._design(design, K_XS, alpha * kernel_matrix(kernel, S0), margin, alpha)
        return mechanism

    def _design(self, design, K_XS, Delta, margin, alpha):
        self.K_XX, self.K_XS, self.V, self.alpha = design.K_XX, K_XS, design.V, alpha
        self._certificate = None
        if margin is None:
            certified = design.certified(K_XS, Delta, alpha=alpha)
            self.Delta = validated_tolerance(Delta, K_XS.shape[1])[0]
            self.noise_covariance = certified.noise
            self.margin, self.resolution = certified.margin, certified.resolution
            self.nugget = certified.nugget
            self._certificate = certified.certificate
            self._certificate.evidence["design_attempts"] = certified.attempts
        else:
            self.Delta = np.asarray(Delta, dtype=float)
            self.noise_covariance = design.factor(K_XS, (1.0 - margin) * self.Delta)
            self.margin, self.resolution, self.nugget = margin, 0.0, 0.0

    @property
    def dim(self):
        """n, the number of released outputs."""
        return len(self.K_XX)

    def certificate(self):
        """The guarantee (5) of this mechanism's releases, recomputed from its noise.

        Returns
        -------
        Certificate
            From :func:`privacy_certificate` for ``noise_covariance`` and ``Delta + rho
            I``: notion ``"posterior-covariance"``; parameters ``sensitive_inputs`` (s)
            and ``alpha`` when known; margin the relative margin (dimensionless);
            tolerance a rigorous bound on its rounding error; passed iff ``margin -
            tolerance >= 0``; evidence as :func:`privacy_certificate`, plus the
            design's ``design_margin`` and ``nugget``.

        Raises
        ------
        ValueError
            If ``Delta + rho I`` is not numerically positive definite.

        Notes
        -----
        A certified design computes this certificate for the noise it returns, from the
        noise itself; :meth:`with_noise` recomputes it for any other noise.
        """
        if self._certificate is None:
            self._certificate = posterior_covariance_certificate(
                self.K_XX,
                self.K_XS,
                self.Delta,
                self.noise_covariance,
                self.V,
                self.resolution,
                self.alpha,
            )
        certificate = self._certificate
        certificate.evidence.setdefault("design_margin", self.margin)
        certificate.evidence.setdefault("nugget", self.nugget)
        return certificate

    def release(self, y, *, seed=None):
        """Release ``W = y + Z``, ``Z ~ N(0, Sigma)``, with its certificate.

        Parameters
        ----------
        y : array_like, shape (n,)
            The owner's outputs (output units).
        seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness; None draws fresh operating-system entropy (as a release should).
            An int or a Generator gives the same draws as
            ``y + sample_synthetic_noise(noise_covariance, seed=seed)``.

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
            A copy whose certificate is recomputed from ``noise_covariance``, with
            ``margin`` and ``nugget`` None.

        Raises
        ------
        ValueError
            If the covariance is not (n, n) symmetric positive semi-definite.
        """
        other = copy.copy(self)
        other.noise_covariance = as_factored(noise_covariance, self.dim, "noise_covariance")
        other._certificate = other.margin = other.nugget = None
        return other


def privacy_aware_gp(gp, X, W, Sigma):
    """The user's GP posterior given a release: the same prior, noise ``V + Sigma``.

    Parameters
    ----------
    gp : ssa_privacy.gp.regression.GaussianProcess
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
    ssa_privacy.gp.regression.GaussianProcess
        Fitted to (X, W); its ``predict`` gives the privacy-aware mean and covariance.

    Raises
    ------
    TypeError
        If ``gp`` is not a GaussianProcess, or an array is not made of real numbers.
    ValueError
        On shape mismatches, non-finite values, a Sigma that is not positive
        semi-definite, or a ``K + V + Sigma`` that does not factorise.

    Notes
    -----
    [TCB] §4: (1)-(2) with V replaced by ``V + Sigma``; its covariance at S satisfies
    (5).
    """
    if not isinstance(gp, GaussianProcess):
        raise TypeError(f"gp must be a GaussianProcess, got {type(gp).__name__}")
    W = nonempty(as_finite_array(W, "W", ndim=1), "W")
    Sigma = as_factored(Sigma, len(W), "Sigma").matrix()
    noise = noise_matrix(gp.noise, len(Sigma)) + Sigma
    return GaussianProcess(gp.kernel, gp.mean, noise).fit(X, W)
