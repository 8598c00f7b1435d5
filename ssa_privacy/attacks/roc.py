"""Evaluating a membership-inference attack: ROC, AUC, TPR at fixed FPR, the DP region.

An attack scores evaluation releases from data sets with ("members") and without the
target record; a test "member iff score >= t" then has a true- and a false-positive rate
for every threshold t. :func:`evaluate_attack` reports the AUC (Mann-Whitney), the
empirical ROC curve and the TPR at fixed FPRs. Against an (epsilon, delta)-DP release no
test can leave the privacy region of Kairouz, Oh and Viswanath (2015):
:func:`max_tpr_under_dp` and :func:`max_auc_under_dp` give its boundary (see
:doc:`/theory/posterior-sampling`).
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import integrate, stats

from ssa_privacy._internal.validation import as_finite_array, nonempty, open_interval, scalar

__all__ = [
    "AttackResult",
    "DEFAULT_FPRS",
    "auc_score",
    "evaluate_attack",
    "max_auc_under_dp",
    "max_tpr_under_dp",
    "roc_curve",
    "tpr_at_fpr",
]

#: False-positive rates at which the true-positive rate is reported.
DEFAULT_FPRS = (0.01, 0.05, 0.10)


def _scores(values, name):
    return nonempty(as_finite_array(values, name, ndim=1), name)


def _privacy_level(epsilon, delta):
    """Validated (epsilon, delta) of a DP release: epsilon >= 0 (inf allowed), delta in [0, 1]."""
    epsilon = scalar(epsilon, "epsilon", low=0.0, allow_inf=True)
    return epsilon, scalar(delta, "delta", low=0.0, high=1.0)


def auc_score(scores_in, scores_out):
    """Area under the ROC curve, ``P(S_in > S_out) + P(S_in = S_out) / 2`` (Mann-Whitney).

    Parameters
    ----------
    scores_in : array_like, shape (n_in,)
        Attack scores (higher = "member") on members.
    scores_out : array_like, shape (n_out,)
        Attack scores on non-members.

    Returns
    -------
    float
        AUC in [0, 1]; 0.5 is random guessing.

    Raises
    ------
    TypeError
        If the scores are not real numbers.
    ValueError
        If the scores are empty, not one-dimensional or not finite.
    """
    scores_in, scores_out = _scores(scores_in, "scores_in"), _scores(scores_out, "scores_out")
    ranks = stats.rankdata(np.concatenate([scores_in, scores_out]))
    u = ranks[: len(scores_in)].sum() - len(scores_in) * (len(scores_in) + 1) / 2
    return float(u / (len(scores_in) * len(scores_out)))


def roc_curve(scores_in, scores_out):
    """Empirical ROC curve of the test "member iff score >= t" over all thresholds t.

    Parameters
    ----------
    scores_in : array_like, shape (n_in,)
        Attack scores (higher = "member") on members.
    scores_out : array_like, shape (n_out,)
        Attack scores on non-members.

    Returns
    -------
    fpr : ndarray
        Increasing false-positive rates, from 0 to 1.
    tpr : ndarray
        The matching true-positive rates, from 0 to 1.

    Raises
    ------
    TypeError
        If the scores are not real numbers.
    ValueError
        If the scores are empty, not one-dimensional or not finite.
    """
    scores_in, scores_out = _scores(scores_in, "scores_in"), _scores(scores_out, "scores_out")
    thresholds = np.unique(np.concatenate([scores_in, scores_out]))[::-1]
    in_sorted, out_sorted = np.sort(scores_in), np.sort(scores_out)
    tpr = 1.0 - np.searchsorted(in_sorted, thresholds, side="left") / len(in_sorted)
    fpr = 1.0 - np.searchsorted(out_sorted, thresholds, side="left") / len(out_sorted)
    return np.concatenate([[0.0], fpr]), np.concatenate([[0.0], tpr])


def tpr_at_fpr(scores_in, scores_out, fpr):
    """True-positive rate at a false-positive rate of at most ``fpr``.

    The threshold is the ``(k+1)``-th largest non-member score with
    ``k = floor(fpr n_out)``; the test "member iff score > threshold" then has an
    empirical FPR of at most ``fpr``.

    Parameters
    ----------
    scores_in : array_like, shape (n_in,)
        Scores of members.
    scores_out : array_like, shape (n_out,)
        Scores of non-members.
    fpr : float
        Target false-positive rate in (0, 1).

    Returns
    -------
    float
        The empirical true-positive rate at that threshold.

    Raises
    ------
    TypeError, ValueError
        On empty or non-finite scores, or an ``fpr`` outside (0, 1).
    """
    scores_in, scores_out = _scores(scores_in, "scores_in"), _scores(scores_out, "scores_out")
    k = int(np.floor(open_interval(fpr, "fpr") * len(scores_out)))
    threshold = np.sort(scores_out)[::-1][min(k, len(scores_out) - 1)]
    return float(np.mean(scores_in > threshold))


@dataclass(frozen=True)
class AttackResult:
    """Success of one attack on evaluation releases.

    Parameters
    ----------
    name : str
        Label of the attack.
    auc : float
        Area under the ROC curve.
    tpr : dict
        ``{fpr: tpr}`` at the reported false-positive rates.
    roc : tuple of ndarray
        (fpr, tpr) of the empirical ROC curve.
    """

    name: str
    auc: float
    tpr: dict
    roc: tuple = field(repr=False)

    def record(self):
        """Flat dict for a results row.

        Returns
        -------
        dict
            ``attack``, ``auc`` and ``tpr_at_fpr_<fpr>`` entries.
        """
        row = {"attack": self.name, "auc": self.auc}
        row.update({f"tpr_at_fpr_{fpr:g}": value for fpr, value in self.tpr.items()})
        return row


def evaluate_attack(name, scores_in, scores_out, fprs=DEFAULT_FPRS):
    """AUC, TPR at the given FPRs and the ROC curve of an attack.

    Parameters
    ----------
    name : str
        Label of the attack.
    scores_in : array_like, shape (n_in,)
        Scores on evaluation releases from members (higher = member).
    scores_out : array_like, shape (n_out,)
        Scores on evaluation releases from non-members.
    fprs : sequence of float
        False-positive rates.

    Returns
    -------
    AttackResult
        AUC, TPR at ``fprs`` and the ROC curve.

    Raises
    ------
    TypeError
        If ``name`` is not a string, or scores or rates are not real numbers.
    ValueError
        On empty or non-finite scores, or a rate outside (0, 1).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    rates = [open_interval(f, "fprs") for f in nonempty(as_finite_array(fprs, "fprs", 1), "fprs")]
    return AttackResult(
        name,
        auc_score(scores_in, scores_out),
        {f: tpr_at_fpr(scores_in, scores_out, f) for f in rates},
        roc_curve(scores_in, scores_out),
    )


def max_tpr_under_dp(fpr, epsilon, delta):
    """Largest TPR of any membership test at a given FPR against an (epsilon, delta)-DP release.

    ``min(1, e^eps FPR + delta, 1 - e^-eps (1 - delta - FPR))``.

    Parameters
    ----------
    fpr : float or ndarray
        False-positive rate(s) in [0, 1].
    epsilon : float
        >= 0 (``inf`` gives 1).
    delta : float
        In [0, 1].

    Returns
    -------
    float or ndarray
        The largest true-positive rate(s), in [0, 1].

    Raises
    ------
    TypeError
        If an argument is not made of real numbers (a bool, a string, None).
    ValueError
        If a rate is outside [0, 1] or not finite, epsilon is negative or NaN, or delta
        is outside [0, 1].

    Notes
    -----
    Kairouz, Oh and Viswanath (2015), Theorem 2.1 (the privacy region of a DP test).
    """
    epsilon, delta = _privacy_level(epsilon, delta)
    fpr = as_finite_array(fpr, "fpr")
    if np.any((fpr < 0) | (fpr > 1)):
        raise ValueError(f"fpr must lie in [0, 1], got values in [{fpr.min():g}, {fpr.max():g}]")
    if np.isinf(epsilon):
        return np.ones_like(fpr)
    growth = np.exp(min(float(epsilon), 700.0))
    return np.minimum.reduce(
        [np.ones_like(fpr), growth * fpr + delta, 1.0 - (1.0 - delta - fpr) / growth]
    )


def max_auc_under_dp(epsilon, delta):
    """Largest AUC of any membership test against an (epsilon, delta)-DP release.

    The integral over FPR of :func:`max_tpr_under_dp`.

    Parameters
    ----------
    epsilon : float
        >= 0.
    delta : float
        In [0, 1].

    Returns
    -------
    float
        In [0.5, 1].

    Raises
    ------
    TypeError, ValueError
        As :func:`max_tpr_under_dp`.
    """
    epsilon, delta = _privacy_level(epsilon, delta)
    if epsilon > 700:
        return 1.0
    kink = (1.0 - delta) / (np.exp(float(epsilon)) + 1.0)
    value, _ = integrate.quad(
        lambda f: float(max_tpr_under_dp(f, epsilon, delta)),
        0.0,
        1.0,
        points=[kink, 1.0 - delta],
        limit=200,
    )
    return float(value)
