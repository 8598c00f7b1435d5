"""Smoke test of the !Kung study ([SMI] §2-4) on the real data."""

import csv
import json

import numpy as np
import pytest

from ssa_privacy.engine.data import KUNG_FILE
from ssa_privacy.engine.runner import Runner
from ssa_privacy.privacy.accounting import c_delta, gaussian_mechanism_delta
from ssa_privacy.studies import kung

pytestmark = pytest.mark.data(KUNG_FILE)

SMALL = {"replications": 2, "selection_replications": 1, "folds": 2}


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("kung")
    return out, kung.run(out, seed=0, progress=False, **SMALL)


@pytest.mark.slow
def test_kung_study_writes_outputs_and_every_release_is_certified(serial):
    tmp_path, summary = serial
    for stem in ("kung_releases", "kung_selection"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 0 and (
            tmp_path / f"{stem}.pdf"
        ).stat().st_size > 0
    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["parameters"]["seed"] == 0 and summary["all_checks_passed"]
    private = [r for r in payload["results"] if r["method"] != "non_private_gp"]
    assert {r["method"] for r in private} == {
        "cloaking",
        "simple_binning",
        "integral_binning",
        "cloaking_em",
    }
    for row in private:
        assert row["check_passed"] and row["epsilon"] > 0 and "delta" in row
    for row in (r for r in private if r["method"].startswith("cloaking")):
        # Hall's calibration: worst-case shift of epsilon / c(delta) noise sds, exact delta below delta.
        assert row["check_mahalanobis_sensitivity"] <= 1.0 / c_delta(0.01) * (1 + 1e-9)
        assert row["check_exact_delta"] <= row["delta"]
    assert next(r for r in private if r["method"] == "cloaking_em")["epsilon"] == pytest.approx(2.0)
    grid = {row["quantity"]: row for row in csv.DictReader(open(tmp_path / "grid.csv"))}
    # The exact RKHS sensitivity is never above the valid bounds; the paper's eps = 100 figure fails DP.
    noise = {
        m: float(grid[f"standard_noise_sd_cm_eps1_{m}"]["noise_sd_cm"])
        for m in ("exact", "rigorous_refinement", "infinity_norm")
    }
    assert noise["exact"] <= noise["rigorous_refinement"] <= noise["infinity_norm"]
    assert float(grid["paper_figure_standard_eps100"]["exact_delta_at_eps100"]) > 0.01
    assert gaussian_mechanism_delta(100 / c_delta(0.01), 100.0) > 0.01
    cloak = grid["cloaking_release"]
    assert float(cloak["noise_sd_cm_median"]) == pytest.approx(14.2, abs=0.05)
    assert float(cloak["noise_sd_cm_median"]) < float(
        grid["standard_release_exact"]["noise_sd_cm_median"]
    )
    assert np.isfinite(summary["rmse_cm_cloaking_l=25, s2=0.3"])


@pytest.mark.slow
def test_two_workers_give_the_serial_results(serial, tmp_path):
    serial_out, serial_summary = serial
    runner = Runner(workers=2, progress=False)
    summary = kung.run(tmp_path, seed=0, progress=False, runner=runner, **SMALL)
    assert summary == serial_summary
    for name in ("results.csv", "grid.csv"):
        assert (tmp_path / name).read_text() == (serial_out / name).read_text()
    tasks = json.loads((tmp_path / "results.json").read_text())["parameters"]["runner"]["tasks"]
    assert [t["seed_keys"] for t in tasks["kung"]] == [[0, 3, 0], [0, 0], [0, 2, 0], [0, 2, 1]]
