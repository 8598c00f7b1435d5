"""Privacy-aware estimation for space situational awareness and sensor networks.

The package carries data through one pipeline: dynamics (:mod:`ssa_privacy.orbits`)
-> measurements -> privacy mechanism (:mod:`ssa_privacy.privacy`) -> estimators
(:mod:`ssa_privacy.gp`) -> evaluation (:mod:`ssa_privacy.baselines`,
:mod:`ssa_privacy.attacks`). The studies that reproduce and extend the papers live in
:mod:`ssa_privacy.studies` and run from the ``ssa-privacy`` command.
"""

__version__ = "0.1.0"
