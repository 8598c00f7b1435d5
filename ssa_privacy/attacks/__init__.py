"""Attacks that measure what a release leaks.

- :mod:`ssa_privacy.attacks.stationary`: the Stationary attack of [TCB] §5, an adversary
  fitting a fresh stationary GP to the released data.
"""

from ssa_privacy.attacks.stationary import stationary_attack  # noqa: F401
