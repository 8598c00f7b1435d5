"""Privacy mechanisms and their guarantees.

Every mechanism speaks one vocabulary (:mod:`ssa_privacy.privacy.mechanism`): a design
step builds a :class:`Mechanism`; its ``release(data, *, seed=None)`` returns a
:class:`Release` with the noise it used (a :class:`FactoredCovariance`) and a
:class:`Certificate` recomputed from that noise.

- :class:`SyntheticNoiseMechanism`: privacy-aware GP regression [TCB]
  (:mod:`ssa_privacy.privacy.synthetic_noise.mechanism`, design functions in
  :mod:`ssa_privacy.privacy.synthetic_noise.design`; its public functions are
  importable from here).
- :class:`PosteriorSamplingMechanism`: GP posterior sampling with a Renyi-DP bound [MAC]
  (:mod:`ssa_privacy.privacy.posterior_sampling.mechanism`, the bound in
  :mod:`ssa_privacy.privacy.posterior_sampling.bound`).
- :class:`LinearGaussianMechanism`: (epsilon, delta)-PML noise for a linear Gaussian
  release [LKC] (:mod:`ssa_privacy.privacy.pml.design`; :func:`design_noise` for a plant,
  leakage closed forms in :mod:`ssa_privacy.privacy.pml.leakage`), and
  :class:`~ssa_privacy.privacy.pml.passes.PassMechanism`, the noise of one tracking pass
  (:mod:`ssa_privacy.privacy.pml.passes`).
- :class:`CloakingMechanism`, :class:`StandardDPGPMechanism`,
  :class:`LaplaceBinningMechanism`: differentially private GP predictions and binned
  means [SMI] (:mod:`ssa_privacy.privacy.dp_gp.cloaking`, :mod:`ssa_privacy.privacy.dp_gp.hall`,
  :mod:`ssa_privacy.privacy.dp_gp.binning`; the package :mod:`ssa_privacy.privacy.dp_gp`
  exports them with the rest of its names).
- :mod:`ssa_privacy.privacy.notions`: the privacy notions a :class:`Certificate` proves.
- :mod:`ssa_privacy.privacy.accounting`: the Gaussian mechanism's delta and the
  PML/DP/MI relations, used by every mechanism above.
"""

from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism
from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.privacy.dp_gp.hall import StandardDPGPMechanism
from ssa_privacy.privacy.mechanism import (
    Certificate,
    FactoredCovariance,
    Mechanism,
    Release,
)
from ssa_privacy.privacy.notions import Notion
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism
from ssa_privacy.privacy.pml.plant import design_noise
from ssa_privacy.privacy.posterior_sampling.mechanism import PosteriorSamplingMechanism
from ssa_privacy.privacy.synthetic_noise.design import (
    SyntheticNoiseDesign,
    diagonal_noise_covariance,
    kernel_gram_G,
    optimal_noise_covariance,
    optimal_noise_factor,
    psd_part,
    region_noise_factor,
    uniform_noise_covariance,
)
from ssa_privacy.privacy.synthetic_noise.mechanism import (
    SyntheticNoiseMechanism,
    privacy_aware_gp,
    privacy_certificate,
    sample_synthetic_noise,
)

__all__ = [
    "Certificate",
    "CloakingMechanism",
    "FactoredCovariance",
    "LaplaceBinningMechanism",
    "LinearGaussianMechanism",
    "Mechanism",
    "Notion",
    "PosteriorSamplingMechanism",
    "Release",
    "StandardDPGPMechanism",
    "SyntheticNoiseDesign",
    "SyntheticNoiseMechanism",
    "design_noise",
    "diagonal_noise_covariance",
    "kernel_gram_G",
    "optimal_noise_covariance",
    "optimal_noise_factor",
    "privacy_aware_gp",
    "privacy_certificate",
    "psd_part",
    "region_noise_factor",
    "sample_synthetic_noise",
    "uniform_noise_covariance",
]
