"""Attacks that measure what a release leaks: the Stationary attack [TCB], membership
inference on posterior sampling [MAC], manoeuvre detection from released measurements
(and from a catalogue object's released passes), attack evaluation (ROC, AUC, the DP
region) and the pointwise maximal leakage of real, nonlinear pass releases (its Monte
Carlo estimate, the importance-sampling check of its Laplace evidence, and the noise
that restores the budget).

Every public name of the modules below is importable from ``ssa_privacy.attacks``:

- :mod:`ssa_privacy.attacks.stationary`
- :mod:`ssa_privacy.attacks.membership`
- :mod:`ssa_privacy.attacks.manoeuvre`
- :mod:`ssa_privacy.attacks.detectability`
- :mod:`ssa_privacy.attacks.roc`
- :mod:`ssa_privacy.attacks.nonlinear_leakage`
- :mod:`ssa_privacy.attacks.nonlinear_evidence`
- :mod:`ssa_privacy.attacks.nonlinear_restoration`
"""

from ssa_privacy.attacks import (
    detectability,
    manoeuvre,
    membership,
    nonlinear_evidence,
    nonlinear_leakage,
    nonlinear_restoration,
    roc,
    stationary,
)
from ssa_privacy.attacks.detectability import *  # noqa: F403
from ssa_privacy.attacks.manoeuvre import *  # noqa: F403
from ssa_privacy.attacks.membership import *  # noqa: F403
from ssa_privacy.attacks.nonlinear_evidence import *  # noqa: F403
from ssa_privacy.attacks.nonlinear_leakage import *  # noqa: F403
from ssa_privacy.attacks.nonlinear_restoration import *  # noqa: F403
from ssa_privacy.attacks.roc import *  # noqa: F403
from ssa_privacy.attacks.stationary import *  # noqa: F403

__all__ = [
    *stationary.__all__,
    *membership.__all__,
    *manoeuvre.__all__,
    *detectability.__all__,
    *roc.__all__,
    *nonlinear_leakage.__all__,
    *nonlinear_evidence.__all__,
    *nonlinear_restoration.__all__,
]
