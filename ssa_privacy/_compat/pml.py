"""Legacy names of pointwise maximal leakage [LKC] and the sensors, kept until 0.3.

Each imports what it needs when called, so that ``import ssa_privacy`` stays light.
"""

import types

from ssa_privacy._compat import MOVED_NAMES, _legacy, _legacy_method, _warn

#: Served through :data:`ssa_privacy._compat.REPLACED_NAMES` and ``REPLACED_METHODS`` only.
__all__ = []

#: Where the pass noise of 0.1 was importable: the module ``pass_privacy.py`` of 0.1, its
#: new place ``privacy.pml.passes`` and the package ``privacy.pml``, which star-imports it.
_PASSES = ("ssa_privacy.pass_privacy", "ssa_privacy.privacy.pml.passes", "ssa_privacy.privacy.pml")
_PASS_DESIGN = "PassMechanism.design(item, Sigma_XX, epsilon, delta, designer=...)"

# Sensors come before the privacy stage: the leakage of per-measurement designs over
# passes is accounted for in privacy.pml.passes (``catalog_tracking`` of 0.1 is served
# as ``sensors.streams`` by the import hook, whose missing names land here).
for _module in ("ssa_privacy.sensors", "ssa_privacy.sensors.streams"):
    MOVED_NAMES[_module, "per_measurement_epsilons"] = (
        "ssa_privacy.privacy.pml.passes:per_measurement_epsilons"
    )


@_legacy(_PASSES, "PassNoise", "ssa_privacy.privacy.pml.passes.PassMechanism")
class PassNoise(types.SimpleNamespace):
    """The noise of one pass as the deprecated ``pass_noise`` returned it.

    .. deprecated:: 0.2
        A :class:`~ssa_privacy.privacy.pml.passes.PassMechanism` replaces it: the same
        ``factor``, ``stream``, ``leakage`` and ``designer``, ``certificate()`` a method,
        ``Theta`` the covariance, ``release(y, seed=...)`` the sampling; removed in 0.3.

    Parameters
    ----------
    factor : ndarray, shape (4 K, r)
        F with noise covariance ``F F^T`` of the pass's stacked releases.
    stream : ReleaseStream
        The adversary's stream of the pass about x0 (privacy noise alone).
    leakage : StreamLeakage
        Its PML at the design's delta.
    designer : str
        ``"logdet"`` or ``"scaled"``.
    certificate : Certificate
        The passing certificate of ``stream`` for the pass budget.
    """

    def __init__(self, factor, stream, leakage, designer, certificate):
        super().__init__(
            factor=factor,
            stream=stream,
            leakage=leakage,
            designer=designer,
            certificate=certificate,
        )

    @property
    def covariance(self):
        """The noise covariance ``F F^T``, shape (4 K, 4 K)."""
        return self.factor @ self.factor.T

    def sample(self, normals):
        """``F normals[:r]``: a draw of the noise from standard normals, shape (4 K,).

        Parameters
        ----------
        normals : ndarray, shape (4 K,)
            Independent standard normal numbers; the first r are used.

        Returns
        -------
        ndarray, shape (4 K,)
            The noise.

        Raises
        ------
        TypeError
            If ``normals`` is not an array of real numbers.
        ValueError
            If ``normals`` is not a finite vector of shape (4 K,).
        """
        from ssa_privacy._internal.validation import vector

        normals = vector(normals, "normals", len(self.factor))
        return self.factor @ normals[: self.factor.shape[1]]


@_legacy(_PASSES, "pass_noise", _PASS_DESIGN)
def _pass_noise(item, Sigma_XX, epsilon, delta, designer="logdet", convention="exact"):
    """Noise for one pass that meets an (epsilon, delta)-PML budget for the whole pass.

    .. deprecated:: 0.2
        Use ``PassMechanism.design(item, Sigma_XX, epsilon, delta, designer=designer,
        convention=convention)``, a mechanism whose ``release`` adds the noise and
        certifies the pass; removed in 0.3.

    Parameters
    ----------
    item : Pass
        The pass: its maps ``C`` (K, 4, 6) and sensor noise covariance ``R`` (4, 4).
    Sigma_XX : array_like, shape (6, 6)
        Prior covariance of x0, positive definite.
    epsilon, delta : float
        The pass budget (nats) and its failure probability.
    designer : {"logdet", "scaled"}
        Which design.
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    PassNoise
        The designed mechanism's factor, stream, leakage, designer and certificate.

    Raises
    ------
    ValueError, RuntimeError
        As :meth:`~ssa_privacy.privacy.pml.passes.PassMechanism.design`.
    """
    from ssa_privacy.privacy.pml.passes import PassMechanism

    mechanism = PassMechanism.design(
        item, Sigma_XX, epsilon, delta, designer=designer, convention=convention
    )
    return PassNoise(
        mechanism.factor,
        mechanism.stream,
        mechanism.leakage,
        mechanism.designer,
        mechanism.certificate(),
    )


@_legacy_method("ssa_privacy.privacy.pml.stream", "ReleaseStream")
def merge(self, *others):
    """:meth:`compose`, under its name before 0.2.

    .. deprecated:: 0.2
        Use :meth:`compose`; ``merge`` will be removed in 0.3.

    Parameters
    ----------
    *others : ReleaseStream
        As :meth:`compose`.

    Returns
    -------
    ReleaseStream
        ``self.compose(*others)``.
    """
    _warn("ReleaseStream.merge", "ReleaseStream.compose")
    return self.compose(*others)
