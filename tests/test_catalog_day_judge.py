"""The ssa-catalog study's judge of the day designer's candidates.

The least-noise ("trace") day design is kept only if, on every simulated day, the
study's filter keeps the track with it (position RMSE at most 1 km) and loses it with the
common-pass-budget design; otherwise the pass design. The simulation itself runs in the
study's tests (``day_budgets.csv``).
"""

from types import SimpleNamespace

import numpy as np
import pytest

from ssa_privacy.studies.ssa_catalog import day_judge as judge


@pytest.mark.parametrize(
    "rmse, kept",
    [
        ([[0.1, 2.0], [0.9, 30.0]], "trace"),  # pass lost on both, trace kept both
        ([[0.1, 0.2], [0.3, 0.4]], "pass"),  # better on both, but pass tracks too
        ([[0.1, 2.0], [1.5, 30.0]], "pass"),  # both lost on one draw
        ([[0.1, 2.0], [0.9, 0.95]], "pass"),  # pass kept one draw
        ([[np.nan, np.nan], [np.nan, np.nan]], "pass"),  # no evaluation time after contact
    ],
)
def test_the_trace_design_is_kept_only_where_the_pass_design_loses_every_track(
    monkeypatch, rmse, kept
):
    monkeypatch.setattr(judge, "simulated_rmse", lambda *arguments: np.array(rmse))
    candidates = [SimpleNamespace(designer="trace"), SimpleNamespace(designer="pass")]
    score = judge.filter_judge(None, None, None, None, (0,), 1e-10)(candidates)
    assert candidates[int(np.argmin(score))].designer == kept


def test_a_lone_candidate_is_not_simulated(monkeypatch):
    monkeypatch.setattr(judge, "simulated_rmse", lambda *arguments: pytest.fail("simulated"))
    score = judge.filter_judge(None, None, None, None, (0,), 1e-10)
    assert score([SimpleNamespace(designer="trace")]) == [0.0]
