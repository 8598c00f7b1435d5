"""Differentially private GP regression [SMI]: cloaking, the standard mechanism, binning,
DP hyperparameter selection and their certificates.

Every public name of the modules below is importable from ``ssa_privacy.privacy.dp_gp``:

- :mod:`ssa_privacy.privacy.dp_gp.release`
- :mod:`ssa_privacy.privacy.dp_gp.ellipsoid`
- :mod:`ssa_privacy.privacy.dp_gp.cloaking`
- :mod:`ssa_privacy.privacy.dp_gp.hall`
- :mod:`ssa_privacy.privacy.dp_gp.binning`
- :mod:`ssa_privacy.privacy.dp_gp.hyperparameters`
- :mod:`ssa_privacy.privacy.dp_gp.normalisation`
- :mod:`ssa_privacy.privacy.dp_gp.gaussian_delta`
- :mod:`ssa_privacy.privacy.dp_gp.laplace`
"""

from ssa_privacy.privacy.dp_gp import (
    binning,
    cloaking,
    ellipsoid,
    gaussian_delta,
    hall,
    hyperparameters,
    laplace,
    normalisation,
    release,
)
from ssa_privacy.privacy.dp_gp.binning import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.cloaking import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.ellipsoid import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.gaussian_delta import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.hall import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.hyperparameters import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.laplace import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.normalisation import *  # noqa: F403
from ssa_privacy.privacy.dp_gp.release import *  # noqa: F403

__all__ = [
    *release.__all__,
    *ellipsoid.__all__,
    *cloaking.__all__,
    *hall.__all__,
    *binning.__all__,
    *hyperparameters.__all__,
    *normalisation.__all__,
    *gaussian_delta.__all__,
    *laplace.__all__,
]
