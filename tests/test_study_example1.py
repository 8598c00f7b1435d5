"""Smoke test of the Example 1 study ([TCB] §4.1, Figure 1)."""

import csv
import json

from ssa_privacy.cli import main


def test_example1_writes_figure_and_results_that_meet_the_guarantee(tmp_path):
    assert main(["run", "example1", "--out", str(tmp_path)]) == 0
    for name in (
        "figure1_example1.png",
        "figure1_example1.pdf",
        "results.csv",
        "noise_variances.csv",
    ):
        assert (tmp_path / name).stat().st_size > 0
    rows = {r["method"]: r for r in json.loads((tmp_path / "results.json").read_text())["results"]}
    assert rows["optimal"]["trace"] < rows["diagonal"]["trace"]
    for method in ("optimal", "diagonal"):
        assert rows[method]["posterior_variance_x0.5"] >= 0.5 - 1e-8
    assert rows["unsecured"]["posterior_variance_x0.5"] < 0.5
    assert rows["optimal"]["certificate"] >= -1e-8
    # Independent noise degrades the model far from the sensitive input, correlated noise barely.
    assert rows["diagonal"]["posterior_variance_x0"] > 10 * rows["optimal"]["posterior_variance_x0"]
    with open(tmp_path / "noise_variances.csv") as handle:
        assert len(list(csv.DictReader(handle))) == 9
