"""Gaussian-process surrogates: regression, kernels, maximum-likelihood fits and the
baselines they are compared with.

Every public name of the modules below is importable from ``ssa_privacy.gp``:

- :mod:`ssa_privacy.gp.kernels`
- :mod:`ssa_privacy.gp.regression`
- :mod:`ssa_privacy.gp.fit`
- :mod:`ssa_privacy.gp.baselines`
"""

from ssa_privacy import _compat
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


def __getattr__(name):
    """Serve the names that moved in 0.2 from their old place (with a warning)."""
    return _compat.moved_attribute(__name__, name)
