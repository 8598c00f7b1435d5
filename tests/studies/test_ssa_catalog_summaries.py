"""The ssa-catalog detectability summary: medians over objects, per level, designer,
scope, direction and magnitude, checked against numpy's median on synthetic rows."""

import numpy as np

from ssa_privacy.studies.ssa_catalog.summaries import WHAT, detectability_summary


def _rows(values, direction="radial"):
    base = {"level": "10", "designer": "logdet", "scope": "pass", "magnitude_m_s": 0.3}
    return [
        {**base, "direction": direction, "auc": v, "tpr": v / 2, "auc_linear": None, "auc_cap": 1}
        for v in values
    ]


def test_the_summary_takes_the_median_over_objects_of_each_group():
    values = [0.61, 0.9, 0.55, 0.7]
    summary = detectability_summary(_rows(values) + _rows([0.8], "unknown"))
    group = summary["10"]["logdet"]["pass"]["radial"]["0.3"]
    assert group["objects"] == 4
    assert group["auc"] == np.median(values)
    assert group["tpr"] == np.median(np.array(values) / 2)
    assert group["auc_linear"] is None  # no object has one
    unknown = summary["10"]["logdet"]["pass"]["unknown"]["0.3"]
    assert unknown["objects"] == 1 and unknown["auc"] == 0.8 and unknown["auc_low"] is None
    assert summary["what"] == WHAT
