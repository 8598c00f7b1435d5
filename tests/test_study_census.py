"""Smoke test of the census study ([TCB] §5.2) on the real PUMS sample."""

import json

import numpy as np
import pytest

from ssa_privacy.engine.data import CENSUS_FILE, CENSUS_SPLIT_FILE, load_census
from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies import census

pytestmark = pytest.mark.data(CENSUS_FILE, CENSUS_SPLIT_FILE)


def test_authors_split_and_sensitive_set():
    """Sizes and sensitive records as recovered from the authors' data (docs/studies/census.rst)."""
    data = load_census()
    assert data.X_train.shape == (1325, 5) and data.X_test.shape == (331, 5)
    assert data.y_train.mean() == pytest.approx(0.498698, abs=1e-6)
    private = np.flatnonzero(census.sensitive_mask(data.X_train))
    assert private.tolist()[:5] == [14, 48, 50, 73, 142] and len(private) == 24
    assert census.sensitive_mask(data.X_test).sum() == 3


def test_random_split_is_seeded_and_disjoint():
    first, second = load_census(split="random", seed=3), load_census(split="random", seed=3)
    np.testing.assert_array_equal(first.train_rows, second.train_rows)
    assert not set(first.train_rows) & set(first.test_rows)


@pytest.mark.slow
def test_census_study_runs_and_certifies_every_release(tmp_path, capsys):
    census.run(tmp_path, seed=0, progress=False, replications=1, restarts=1)
    payload = json.loads((tmp_path / "results.json").read_text())
    for stem in ("figure8_census", "figure9_dp_cloaking"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 0 and (
            tmp_path / f"{stem}.pdf"
        ).stat().st_size > 0
    assert payload["sensitive_training_records"] == 24
    assert payload["parameters"]["mechanisms"] == {
        "privacy-aware": "SyntheticNoiseMechanism",
        dp.METHOD: "CloakingMechanism",
    }
    assert payload["certificates_passed"] and payload["certificate_min"] > 0
    for releases in payload["certificates_per_release"].values():
        assert all(c["passed"] and c["margin"] - c["tolerance"] >= 0 for c in releases)
    traces = [payload["Sigma_opt"][f"alpha={a}"]["trace"] for a in census.ALPHAS]
    assert traces[0] > traces[1] > traces[2] > 0
    assert all(payload["Sigma_opt"][f"alpha={a}"]["rank"] <= 24 for a in census.ALPHAS)
    # K_SS is nearly singular (near-duplicate records): the design states a resolution.
    assert all(payload["Sigma_opt"][f"alpha={a}"]["resolution"] > 0 for a in census.ALPHAS)
    methods = {(r["method"], r["alpha"], r["epsilon"]) for r in payload["results"]}
    assert methods == (
        {(m, a, None) for m in ("privacy-aware", "stationary") for a in census.ALPHAS}
        | {("dropout", None, None)}
        | {(dp.METHOD, None, e) for e in dp.EPSILONS}
    )
    _check_dp(payload, capsys.readouterr().out)


def _check_dp(payload, printed):
    """DP-cloaking rows, releases and design of a one-replication run."""
    rows = {r["epsilon"]: r for r in payload["results"] if r["method"] == dp.METHOD}
    for row in rows.values():
        assert row["delta"] == dp.DELTA and np.isfinite(row["rmse_mean"])
        assert row["checks_passed"] and row["releases"] == 1
        assert row["paper_table4_rmse"] is not None and row["authors_csv_rmse_mean"] is not None
    releases = payload["dp_releases"]
    assert sorted((r["replication"], r["epsilon"]) for r in releases) == [
        (0, e) for e in dp.EPSILONS
    ]
    assert all(
        r["check_passed"] and r["check_exact_delta"] <= r["delta"] == dp.DELTA for r in releases
    )
    assert payload["checks"]["dp_all_checks_passed"]
    assert max(abs(z) for z in payload["checks"]["dp_mse_z_score"].values()) < 5
    design = payload["dp_cloaking_design"]
    assert (design["test_points"], design["training_points"]) == (331, 1325)
    assert design["max_leverage"] <= 1 + 1e-3 + 1e-6  # KKT: every column inside the ellipsoid
    assert design["sum_lambdas"] == pytest.approx(design["kept_rank"], rel=1e-6)
    comparison = payload["pa_vs_dp"]
    assert [(r["alpha"], r["epsilon"]) for r in comparison] == list(zip(census.ALPHAS, dp.EPSILONS))
    assert "Privacy-aware GP vs DP-cloaking" in printed
