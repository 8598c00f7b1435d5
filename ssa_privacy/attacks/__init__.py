"""Attacks that measure what a release leaks: the Stationary attack [TCB], membership
inference on posterior sampling [MAC], manoeuvre detection from released measurements and
attack evaluation (ROC, AUC, the DP region).

Every public name of the modules below is importable from ``ssa_privacy.attacks``:

- :mod:`ssa_privacy.attacks.stationary`
- :mod:`ssa_privacy.attacks.membership`
- :mod:`ssa_privacy.attacks.manoeuvre`
- :mod:`ssa_privacy.attacks.roc`
"""

from ssa_privacy import _compat
from ssa_privacy.attacks import manoeuvre, membership, roc, stationary
from ssa_privacy.attacks.manoeuvre import *  # noqa: F403
from ssa_privacy.attacks.membership import *  # noqa: F403
from ssa_privacy.attacks.roc import *  # noqa: F403
from ssa_privacy.attacks.stationary import *  # noqa: F403

__all__ = [
    *stationary.__all__,
    *membership.__all__,
    *manoeuvre.__all__,
    *roc.__all__,
]


def __getattr__(name):
    """Serve the names that moved in 0.2 from their old place (with a warning)."""
    return _compat.moved_attribute(__name__, name)
