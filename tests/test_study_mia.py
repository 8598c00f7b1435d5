"""Smoke test of the membership-inference study ([MAC] §4)."""

import json

import pytest

from ssa_privacy.engine.runner import Runner
from ssa_privacy.studies import mia

SMALL = {
    "replications": 200,
    "ridges": (0.1, 1.0, 10.0),
    "sigmas": (0.5,),
    "path_counts": (1, 3, 10),
}


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("mia")
    return out, mia.run(out, seed=0, progress=False, **SMALL)


@pytest.mark.slow
def test_mia_study_writes_outputs_and_attacks_stay_inside_the_dp_region(serial):
    tmp_path, summary = serial
    for stem in ("mia_sigma_r", "mia_paths", "mia_roc"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 0 and (
            tmp_path / f"{stem}.pdf"
        ).stat().st_size > 0
    rows = json.loads((tmp_path / "results.json").read_text())["results"]
    assert len(rows) == 2 * (3 + 3)
    assert all(
        r["epsilon"] > 0 and r["delta"] == 1e-5 and r["check_attack_inside_dp_region"] for r in rows
    )
    assert summary["all_inside_dp_region"]
    # The bound decreases with the ridge and grows sub-linearly with the number of paths.
    lira = [r for r in rows if r["attack"] == "lira"]
    by_ridge = [r["epsilon"] for r in lira if r["sweep"] == "sigma_r" and r["sigma"] == 0.5]
    assert by_ridge == sorted(by_ridge, reverse=True)
    by_paths = [(r["paths"], r["epsilon"]) for r in lira if r["sweep"] == "paths"]
    assert all(eps <= paths * by_paths[0][1] for paths, eps in by_paths)
    # Attack success: strong at the smallest ridge, near random at the largest (200 / 200 samples).
    assert summary["auc_smallest_ridge"]["mean_threshold"] > 0.85
    assert abs(summary["auc_largest_ridge"]["mean_threshold"] - 0.5) < 0.12


@pytest.mark.slow
def test_two_workers_give_the_serial_results(serial, tmp_path):
    serial_out, serial_summary = serial
    summary = mia.run(
        tmp_path, seed=0, progress=False, runner=Runner(workers=2, progress=False), **SMALL
    )
    assert summary == serial_summary
    assert (tmp_path / "results.csv").read_text() == (serial_out / "results.csv").read_text()
    tasks = json.loads((tmp_path / "results.json").read_text())["parameters"]["runner"]["tasks"]
    assert [t["seed_keys"] for t in tasks["mia-posteriors"]] == [[0, g, 0] for g in range(4)]
    assert [t["seed_keys"] for t in tasks["mia"]] == [[0, g, 1] for g in range(3)] + [
        [0, 3, 1 + j] for j in range(3)
    ]
