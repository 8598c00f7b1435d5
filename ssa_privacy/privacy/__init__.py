"""Privacy mechanisms and their guarantees.

Every mechanism speaks one vocabulary (:mod:`ssa_privacy.privacy.mechanism`): a design
step builds a :class:`Mechanism`; its ``release(data, *, seed=None)`` returns a
:class:`Release` with the noise it used (a :class:`FactoredCovariance`) and a
:class:`Certificate` recomputed from that noise.

- :class:`SyntheticNoiseMechanism`: privacy-aware GP regression [TCB]
  (:mod:`ssa_privacy.privacy.synthetic_noise`, design functions in
  :mod:`ssa_privacy.privacy.synthetic_noise_design`; its public functions are
  re-exported here).
- :class:`PosteriorSamplingMechanism`: GP posterior sampling with a Renyi-DP bound [MAC]
  (:mod:`ssa_privacy.privacy.posterior_sampling`, the bound in
  :mod:`ssa_privacy.privacy.posterior_sampling_bound`).
- :class:`LinearGaussianMechanism`: (epsilon, delta)-PML noise for a linear Gaussian
  release [LKC] (:mod:`ssa_privacy.privacy.pml_design`; :func:`design_noise` for a plant,
  leakage closed forms in :mod:`ssa_privacy.privacy.pml_leakage`).
- :mod:`ssa_privacy.privacy.accounting`: the Gaussian mechanism's delta and the
  PML/DP/MI relations, used by every mechanism above.
"""

from ssa_privacy.privacy.mechanism import (  # noqa: F401
    Certificate,
    FactoredCovariance,
    Mechanism,
    Release,
)
from ssa_privacy.privacy.pml_design import LinearGaussianMechanism  # noqa: F401
from ssa_privacy.privacy.pml_plant import design_noise  # noqa: F401
from ssa_privacy.privacy.posterior_sampling import PosteriorSamplingMechanism  # noqa: F401
from ssa_privacy.privacy.synthetic_noise import (  # noqa: F401
    ObfuscationResult,
    PSDPart,
    SyntheticNoiseDesign,
    SyntheticNoiseMechanism,
    diagonal_noise_covariance,
    kernel_gram_G,
    obfuscate,
    optimal_noise_covariance,
    optimal_noise_factor,
    privacy_aware_gp,
    privacy_certificate,
    psd_part,
    region_noise_factor,
    release,
    sample_synthetic_noise,
    uniform_noise_covariance,
)

# --- Mechanisms of the other engineers: the lead adds these imports when they land. ---
# from ssa_privacy.privacy.cloaking import CloakingMechanism
# from ssa_privacy.privacy.hall import StandardDPGPMechanism
# from ssa_privacy.privacy.binning import LaplaceBinningMechanism
# --- end of the marked spot ---
