"""Privacy-aware estimation for space situational awareness and sensor networks.

The package carries data through one pipeline, one subpackage per stage: dynamics
(:mod:`ssa_privacy.orbits`, :mod:`ssa_privacy.plants`) -> measurements
(:mod:`ssa_privacy.sensors`) -> privacy mechanism (:mod:`ssa_privacy.privacy`) ->
estimators (:mod:`ssa_privacy.gp`, :mod:`ssa_privacy.estimation`) -> evaluation
(:mod:`ssa_privacy.attacks`). The studies that reproduce and extend the papers live in
:mod:`ssa_privacy.studies` and run on :mod:`ssa_privacy.engine` from the ``ssa-privacy``
command. See ``docs/architecture.rst``.
"""

from ssa_privacy import _compat

__version__ = "0.2.0"
__all__ = ["__version__"]

_compat.install()


def __getattr__(name):
    """Serve the modules that moved in 0.2 from their old paths (with a warning)."""
    return _compat.moved_attribute(__name__, name)
