"""Smoke test of the excursion-set utility study ([MAC] §5)."""

import json

import pytest

from ssa_privacy.privacy.posterior_sampling import epsilon_for_delta
from ssa_privacy.studies import excursion


@pytest.mark.slow
def test_excursion_study_respects_the_privacy_constraint(tmp_path):
    excursion.run(
        tmp_path, seed=0, progress=False, replications=2, validation=1, n=40, paths=2, rounds=0
    )
    assert (tmp_path / "excursion_summary.png").stat().st_size > 0
    assert (tmp_path / "excursion_summary.pdf").stat().st_size > 0
    rows = json.loads((tmp_path / "results.json").read_text())["results"]
    assert [r["noise_M"] for r in rows] == list(excursion.NOISE_LEVELS)
    for row in rows:
        recomputed = epsilon_for_delta(
            row["delta"],
            n=40,
            lengthscale=row["lengthscale_private"],
            ridge=row["ridge_private"],
            sigma=row["sigma_private"],
        )
        assert (
            row["check_passed"] and row["epsilon"] == pytest.approx(recomputed) and recomputed < 3.0
        )
        # The constrained optimum is searched over a subset of the candidates.
        assert row["bce_private_mean"] >= row["bce_unconstrained_mean"]
        assert 0.0 <= row["iou_one_path_private_median"] <= 1.0
