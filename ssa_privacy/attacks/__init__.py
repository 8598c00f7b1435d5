"""Attacks that measure what a release leaks.

- :mod:`ssa_privacy.attacks.stationary`: the Stationary attack of [TCB] §5, an adversary
  fitting a fresh stationary GP to the released data.
- :mod:`ssa_privacy.attacks.membership`: membership inference on GP posterior sampling
  [MAC] §4 (LiRA beside a mean-threshold baseline) and ROC/AUC utilities.
"""

from ssa_privacy.attacks.membership import (  # noqa: F401
    AttackResult,
    LiRA,
    MeanThresholdAttack,
    auc_score,
    evaluate_attack,
    max_auc_under_dp,
    max_tpr_under_dp,
    release_statistics,
    roc_curve,
    tpr_at_fpr,
)
from ssa_privacy.attacks.stationary import stationary_attack  # noqa: F401
