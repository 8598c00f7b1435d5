"""Attacks that measure what a release leaks.

- :mod:`ssa_privacy.attacks.stationary`: the Stationary attack of [TCB] §5, an adversary
  fitting a fresh stationary GP to the released data.
- :mod:`ssa_privacy.attacks.membership`: membership inference on GP posterior sampling
  [MAC] §4 (LiRA beside a mean-threshold baseline).
- :mod:`ssa_privacy.attacks.roc`: evaluation of an attack (ROC, AUC, TPR at fixed FPR) and
  the region every (epsilon, delta)-DP release confines it to.
"""

from ssa_privacy.attacks.membership import (  # noqa: F401
    LiRA,
    MeanThresholdAttack,
    release_statistics,
)
from ssa_privacy.attacks.roc import (  # noqa: F401
    AttackResult,
    auc_score,
    evaluate_attack,
    max_auc_under_dp,
    max_tpr_under_dp,
    roc_curve,
    tpr_at_fpr,
)
from ssa_privacy.attacks.stationary import stationary_attack  # noqa: F401
