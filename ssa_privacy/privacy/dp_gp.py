"""Differentially private GP regression with public inputs and private outputs [SMI].

This module gathers, for existing scripts, the names it held before the package was
split by concept; new code imports them from where they live:

- :mod:`ssa_privacy.privacy.normalisation`: clipping and standardising the outputs;
- :mod:`ssa_privacy.privacy.hall`: Hall et al.'s standard DP-GP
  (:class:`~ssa_privacy.privacy.hall.StandardDPGPMechanism`) and the RKHS sensitivity;
- :mod:`ssa_privacy.privacy.cloaking`: the cloaking mechanism
  (:class:`~ssa_privacy.privacy.cloaking.CloakingMechanism`);
- :mod:`ssa_privacy.ellipsoid`: the minimum-volume ellipsoid (D-optimal design) solver
  behind the cloaking noise;
- :mod:`ssa_privacy.privacy.binning`: Laplace binning
  (:class:`~ssa_privacy.privacy.binning.LaplaceBinningMechanism`) and the integral kernel;
- :mod:`ssa_privacy.privacy.hyperparameters`: DP hyperparameter selection;
- :mod:`ssa_privacy.privacy.dp_release`: the prediction operator, the Gaussian
  certificate and the legacy result types;
- :mod:`ssa_privacy.privacy.accounting`: the Gaussian-mechanism formulas.

The theory is on :doc:`/theory/dp-gp`.
"""

from ssa_privacy.ellipsoid import (  # noqa: F401
    COARSE_GAP,
    NULL_SPACE_SHARE,
    ROUND_OFF,
    d_optimal_design,
)
from ssa_privacy.ellipsoid import MinimumVolumeEllipsoid as CloakingSolution  # noqa: F401
from ssa_privacy.privacy.accounting import (  # noqa: F401
    CALIBRATIONS,
    c_delta,
    gaussian_mechanism_delta,
    noise_multiplier,
    privacy_loss_tail,
)
from ssa_privacy.privacy.binning import (  # noqa: F401
    BinnedRelease,
    IntegralRBF,
    LaplaceBinningMechanism,
    _bin_index,
    _edges,
    _integrated_erf,
    integral_binning_predict,
    laplace_bin_means,
    simple_binning_predict,
)
from ssa_privacy.privacy.cloaking import (  # noqa: F401
    CloakingMechanism,
    cloaking_lambdas_gradient,
    cloaking_noise_covariance,
    cloaking_release,
    optimal_cloaking_covariance,
)
from ssa_privacy.privacy.dp_release import (  # noqa: F401
    CHECK_RTOL,
    DPRelease,
    PrivacyCheck,
    _generator,
    _posterior_mean,
    _training_factor,
    cloaking_matrix,
    gaussian_check,
)
from ssa_privacy.privacy.hall import (  # noqa: F401
    RKHS_METHODS,
    StandardDPGPMechanism,
    rkhs_sensitivity,
    standard_release,
)
from ssa_privacy.privacy.hyperparameters import (  # noqa: F401
    HyperparameterSelection,
    _fold_terms,
    select_hyperparameters,
)
from ssa_privacy.privacy.normalisation import OutputNormalisation, clip_and_normalise  # noqa: F401


def cloaking_dual(points, tol=1e-8, max_iter=100_000):
    """Solve the cloaking dual ``min_{lambda >= 0} -log det M(lambda) + sum_i lambda_i``.

    Thin wrapper, kept for existing scripts: use
    :func:`ssa_privacy.ellipsoid.d_optimal_design` (same arguments and results).

    Parameters
    ----------
    points : ndarray, shape (r, n)
        Columns p_i spanning R^r.
    tol : float
        Relative tolerance of the duality gap.
    max_iter : int
        Limit on interior-point steps.

    Returns
    -------
    lambdas : ndarray, shape (n,)
        Optimal dual variables (sum r at the optimum).
    g : ndarray, shape (n,)
        ``p_i^T M(lambda)^{-1} p_i``.
    gap : float
        The duality gap at the returned lambdas.
    iterations : int
        Interior-point steps used.
    """
    return d_optimal_design(points, tol=tol, max_iter=max_iter)
