"""Gaussian-process surrogates: regression, kernels, maximum-likelihood fits and the
baselines they are compared with.

Every public name of the modules below is importable from ``ssa_privacy.gp``:

- :mod:`ssa_privacy.gp.kernels`
- :mod:`ssa_privacy.gp.regression`
- :mod:`ssa_privacy.gp.fit`
- :mod:`ssa_privacy.gp.baselines`
"""

from ssa_privacy.gp import baselines, fit, kernels, regression
from ssa_privacy.gp.baselines import *  # noqa: F403
from ssa_privacy.gp.fit import *  # noqa: F403
from ssa_privacy.gp.kernels import *  # noqa: F403
from ssa_privacy.gp.regression import *  # noqa: F403

__all__ = [
    *kernels.__all__,
    *regression.__all__,
    *fit.__all__,
    *baselines.__all__,
]
