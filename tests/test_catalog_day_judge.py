"""The ssa-catalog study's judge of the day designer's candidates.

The least-noise ("trace") day design is kept only if the study's filter tracks better
with it than with the common-pass-budget design on every simulated day; otherwise the
pass design. The simulation itself runs in the study's tests (``day_budgets.csv``).
"""

from types import SimpleNamespace

import numpy as np
import pytest

from ssa_privacy.studies import _ssa_catalog_day_judge as judge


@pytest.mark.parametrize(
    "rmse, kept",
    [
        ([[0.1, 0.2], [0.3, 0.4]], "trace"),  # better on both draws
        ([[0.1, 0.2], [0.5, 0.4]], "pass"),  # worse on one
        ([[0.2, 0.2], [0.3, 0.4]], "pass"),  # a tie is not better
    ],
)
def test_the_trace_design_is_kept_only_if_it_tracks_better_on_every_draw(monkeypatch, rmse, kept):
    monkeypatch.setattr(judge, "simulated_rmse", lambda *arguments: np.array(rmse))
    candidates = [SimpleNamespace(designer="trace"), SimpleNamespace(designer="pass")]
    score = judge.filter_judge(None, None, None, None, (0,), 1e-10)(candidates)
    assert candidates[int(np.argmin(score))].designer == kept


def test_a_lone_candidate_is_not_simulated(monkeypatch):
    monkeypatch.setattr(judge, "simulated_rmse", lambda *arguments: pytest.fail("simulated"))
    score = judge.filter_judge(None, None, None, None, (0,), 1e-10)
    assert score([SimpleNamespace(designer="trace")]) == [0.0]
