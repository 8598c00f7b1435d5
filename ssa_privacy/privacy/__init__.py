"""Privacy mechanisms and their guarantees.

- :mod:`ssa_privacy.privacy.synthetic_noise`: privacy-aware GP regression [TCB], the
  optimal synthetic-noise covariance and its release. Its public functions are
  re-exported here.
- :mod:`ssa_privacy.privacy.pml`: pointwise maximal leakage of Gaussian mechanisms [LKC].
"""

from ssa_privacy.privacy.synthetic_noise import (  # noqa: F401
    ObfuscationResult,
    SyntheticNoiseDesign,
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
