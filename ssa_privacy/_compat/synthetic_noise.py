"""Legacy names of privacy-aware GP regression by synthetic noise [TCB], kept until 0.3.

Each imports what it needs when called, so that ``import ssa_privacy`` stays light.
"""

import types

from ssa_privacy._compat import MOVED_NAMES, _legacy

#: Served through :data:`ssa_privacy._compat.REPLACED_NAMES` only.
__all__ = []

#: Where the standalone release functions of [TCB] were importable (the package, the
#: module ``synthetic_noise.py`` of 0.1, now a subpackage, and its new ``mechanism``).
_SYNTHETIC_NOISE = (
    "ssa_privacy.privacy",
    "ssa_privacy.privacy.synthetic_noise",
    "ssa_privacy.privacy.synthetic_noise.mechanism",
)
_SYNTHETIC_NOISE_RELEASE = "SyntheticNoiseMechanism(...).release(y, seed=...)"

for _module in _SYNTHETIC_NOISE:
    MOVED_NAMES[_module, "PSDPart"] = "ssa_privacy.privacy.mechanism:FactoredCovariance"

#: No longer used since 0.1: certificates once passed down to ``-CERTIFICATE_RTOL *
#: lambda_min(Delta)``; their tolerance is now a rigorous bound on their rounding error.
_legacy(_SYNTHETIC_NOISE[1:], "CERTIFICATE_RTOL", "Certificate.tolerance")(1e-8)


@_legacy(_SYNTHETIC_NOISE, "release", _SYNTHETIC_NOISE_RELEASE)
def _synthetic_noise_release(y, factor, seed=None):
    """The released data ``W = y + Z``, ``Z ~ N(0, Sigma)`` [TCB] §4.1 (deprecated).

    .. deprecated:: 0.2
        Use ``SyntheticNoiseMechanism(...).release(y, seed=seed)``, which also certifies
        the release; removed in 0.3.

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
        W: the same draws as the mechanism's ``release(y, seed=seed).values``.

    Raises
    ------
    ValueError
        If y is not a finite vector of Sigma's size.
    """
    from ssa_privacy.privacy.mechanism import as_factored, data_vector
    from ssa_privacy.privacy.synthetic_noise.mechanism import sample_synthetic_noise

    factor = as_factored(factor, name="factor")
    y = data_vector(y, factor.eigenvectors.shape[0], "y")
    return y + sample_synthetic_noise(factor, seed=seed)


@_legacy(_SYNTHETIC_NOISE, "ObfuscationResult", "Release, from " + _SYNTHETIC_NOISE_RELEASE)
class ObfuscationResult(types.SimpleNamespace):
    """One release of the deprecated ``obfuscate`` (a :class:`Release` replaces it).

    Parameters
    ----------
    W : ndarray, shape (n,)
        Released outputs.
    Sigma : FactoredCovariance
        Synthetic-noise covariance, factored.
    certificate : float
        The margin of the release's certificate (relative, dimensionless).
    record : Certificate, optional
        The full certificate.
    """

    def __init__(self, W, Sigma, certificate, record=None):
        super().__init__(W=W, Sigma=Sigma, certificate=certificate, record=record)


@_legacy(
    _SYNTHETIC_NOISE,
    "obfuscate",
    "SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V).release(y, seed=seed)",
)
def _obfuscate(kernel, X, y, S0, alpha, V=None, seed=None):
    """Design Sigma_opt for a sensitive region, release and certify [TCB] §4.2 (deprecated).

    .. deprecated:: 0.2
        Use ``SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V).release(y,
        seed=seed)``, whose :class:`Release` carries the values, the noise and the
        certificate; removed in 0.3.

    Parameters
    ----------
    kernel : callable
        Prior kernel K.
    X : array_like, shape (n, d) or (n,)
        Training inputs.
    y : array_like, shape (n,)
        Training outputs.
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
        The release W, the factored noise, the certificate's margin and the certificate.

    Raises
    ------
    ValueError
        As :meth:`SyntheticNoiseMechanism.for_region` and its ``release``.
    """
    from ssa_privacy.privacy.synthetic_noise.mechanism import SyntheticNoiseMechanism

    mechanism = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    released = mechanism.release(y, seed=seed)
    record = released.certificate
    return ObfuscationResult(released.values, released.noise_covariance, record.margin, record)
