"""Privacy-aware estimation for space situational awareness and sensor networks.

The package carries data through one pipeline, one subpackage per stage: dynamics
(:mod:`ssa_privacy.orbits`, :mod:`ssa_privacy.plants`) -> measurements
(:mod:`ssa_privacy.sensors`) -> privacy mechanism (:mod:`ssa_privacy.privacy`) ->
estimators (:mod:`ssa_privacy.gp`, :mod:`ssa_privacy.estimation`) -> evaluation
(:mod:`ssa_privacy.attacks`). The studies that reproduce and extend the papers live in
:mod:`ssa_privacy.studies` and run on :mod:`ssa_privacy.engine` from the ``ssa-privacy``
command. See ``docs/architecture.rst``.
"""

__version__ = "0.2.0"
__all__ = ["__version__"]

# The old paths and names of 0.1 are served by ssa_privacy/_compat alone, with a warning:
# its import hook, installed here, is the one link of the package to it.
from ssa_privacy import _compat

_compat.install()
