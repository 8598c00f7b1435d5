"""Pointwise maximal leakage (PML) of Gaussian mechanisms [LKC §2-3]: one import for all of it.

This module gathers, for existing scripts and for convenience, the names of five modules:

- :mod:`ssa_privacy.privacy.pml_leakage`: the PML of a jointly Gaussian pair in closed
  form, its (epsilon, delta) condition (kappa, the log-det ratio bound, the margin), the
  leakage probability and its Monte Carlo estimate, and the legacy release
  ``gaussian_mechanism``;
- :mod:`ssa_privacy.privacy.pml_design`: the noise designers (closed form, LMI, exact
  log-det) and the mechanism
  :class:`~ssa_privacy.privacy.pml_design.LinearGaussianMechanism`; with
  :func:`~ssa_privacy.privacy.pml_plant.design_noise` for a plant;
- :mod:`ssa_privacy.privacy.accounting`: the Gaussian mechanism's differential-privacy
  delta and the relations between PML, differential privacy and mutual information.
- :mod:`ssa_privacy.privacy.pml_stream` and :mod:`ssa_privacy.privacy.pml_stream_design`:
  the PML of a whole stream of linear Gaussian releases
  (:class:`~ssa_privacy.privacy.pml_stream.ReleaseStream`) and the noise designs for a
  budget on the stream.

Leakages are in nats. Both conventions, ``"exact"`` (the default, the PML as defined) and
``"paper"`` ([LKC] Theorem 3.2 as printed), are explained in :doc:`/theory/pml`.

References
----------
[LKC] L. Liu, Y. Kawano, M. Cao, "Privacy protection under the exposure of systems'
prior information".
[BW18] B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising", ICML 2018.
"""

from ssa_privacy.privacy.accounting import (  # noqa: F401
    analytic_gaussian_delta,
    analytic_gaussian_ratio,
    dp_to_pml_epsilon,
    gaussian_mechanism_dp_delta,
    mi_to_pml_epsilon,
    pml_to_dp_delta,
    pml_to_mi_epsilon,
)
from ssa_privacy.privacy.pml_cone_design import (  # noqa: F401
    DESIGN_ATOL,
    SOLVER_SETTINGS,
    lmi_mechanism_noise,
    logdet_mechanism_noise,
)
from ssa_privacy.privacy.pml_design import (  # noqa: F401
    METHODS,
    LinearGaussianMechanism,
    linear_mechanism_noise,
)
from ssa_privacy.privacy.pml_leakage import (  # noqa: F401
    CONVENTIONS,
    CORRELATION_TOL,
    MonteCarloProbability,
    _degrees,
    _unit_interval,
    _weight,
    check_epsilon,
    gaussian_mechanism,
    is_pml_private,
    kappa,
    leakage_probability,
    linear_mechanism_covariances,
    log_det_ratio_bound,
    minimum_epsilon,
    monte_carlo_leakage_probability,
    mutual_information,
    pml_margin,
    pointwise_maximal_leakage,
)
from ssa_privacy.privacy.pml_plant import design_noise  # noqa: F401
from ssa_privacy.privacy.pml_stream import (  # noqa: F401
    ReleaseStream,
    StreamLeakage,
    stream_certificate,
    stream_information,
    stream_leakage,
    stream_leakage_probability,
)
from ssa_privacy.privacy.pml_stream_design import (  # noqa: F401
    StackedLogdetDesign,
    StreamDesign,
    design_stream_noise,
    information_limited_noise,
    stream_logdet_design,
    stream_logdet_noise,
    stream_noise_scale,
)
