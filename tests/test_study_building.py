"""Smoke test of the building study ([LKC] §5.2) through the CLI, with theory checks."""

import csv
import json

import numpy as np
import pytest
from scipy import stats

from ssa_privacy.cli import main

SIGMA = 0.4 / (1 - 0.75**2)
EPSILON, DELTA = np.array([6.0, 7.0, 8.0]), 0.001


def closed_form(log_det_bound):
    """Theta = kappa / (1 - kappa) Sigma for a scalar zone, kappa = exp(bound) (n = 1)."""
    kappa = np.exp(log_det_bound)
    return kappa / (1 - kappa) * SIGMA


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("building")
    assert (
        main(
            [
                "run",
                "building",
                "--out",
                str(out),
                "--seed",
                "3",
                "--no-progress",
                "--steps",
                "40",
                "--mc-samples",
                "40000",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    return out


def test_files_are_written(run_dir):
    for name in (
        "design.json",
        "results.csv",
        "results.json",
        "fig2_state_estimates.png",
        "fig2_state_estimates.pdf",
        "fig3_aggregate.png",
        "fig3_aggregate.pdf",
    ):
        assert (run_dir / name).stat().st_size > 0
    assert json.loads((run_dir / "results.json").read_text())["parameters"]["seed"] == 3


def test_design_reproduces_the_paper_and_the_exact_convention_is_smaller(run_dir):
    design = json.loads((run_dir / "design.json").read_text())
    np.testing.assert_allclose(design["Sigma_XX"], SIGMA, rtol=1e-12)  # (27), not the printed 6.4
    F = stats.chi2.isf(DELTA, 1)
    paper = np.array(design["conventions"]["paper"]["Theta"])
    exact = np.array(design["conventions"]["exact"]["Theta"])
    np.testing.assert_allclose(paper, closed_form(F / 2 - EPSILON), rtol=1e-10)  # [LKC] (36), (11)
    np.testing.assert_allclose(exact, closed_form(F - 2 * EPSILON), rtol=1e-10)  # exact convention
    # The paper prints two decimals: within one unit of the last digit.
    assert np.all(np.abs(paper - np.array(design["Theta_reported_by_paper"])) <= 0.01)
    assert design["paper_convention_reproduces_reported_Theta"] and np.all(exact < paper)
    assert design["conventions"]["paper"]["J"] == pytest.approx(np.sum(paper) / 9)


def test_both_designs_meet_the_exact_guarantee(run_dir):
    rows = json.loads((run_dir / "results.json").read_text())["results"]
    assert len(rows) == 6
    for row in rows:
        # Closed form: the exact design is tight, the paper's has slack.
        if row["design_convention"] == "exact":
            assert row["P_exact_leak_le_eps_analytic"] == pytest.approx(1 - DELTA, abs=1e-12)
        else:
            assert row["P_exact_leak_le_eps_analytic"] > 1 - DELTA
        # Monte Carlo: failures are not significantly more than delta (one-sided, level 1e-4).
        samples = 40000
        failures = round((1 - row["P_exact_leak_le_eps_mc"]) * samples)
        assert failures <= stats.binom.ppf(1 - 1e-4, samples, DELTA)
        # The Kalman error grows with the noise: P < Sigma_XX, and P < Theta (one observation).
        assert row["P_kalman_steady_state"] < min(row["Sigma_XX"], row["Theta"])


def _table(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


def test_two_workers_reproduce_the_serial_run(run_dir, tmp_path):
    """Each Monte Carlo row draws from its own seed keys: the backend changes no number."""
    arguments = ["run", "building", "--out", str(tmp_path), "--seed", "3", "--no-progress"]
    assert main([*arguments, "--steps", "40", "--mc-samples", "40000", "--workers", "2"]) == 0
    assert _table(tmp_path / "results.csv") == _table(run_dir / "results.csv")
    pooled = json.loads((tmp_path / "results.json").read_text())["parameters"]["runner"]
    serial = json.loads((run_dir / "results.json").read_text())["parameters"]["runner"]
    assert (serial["backend"], pooled["backend"], pooled["workers"]) == (
        "serial",
        "process-pool",
        2,
    )
    assert [t["seed_keys"] for t in pooled["tasks"]["building"]] == [[3, j] for j in range(1, 7)]


def test_the_zones_outputs_are_released_through_the_designs_mechanism(run_dir):
    """The trajectory's privatized outputs are one release of the network mechanism of each
    design, whose certificate ((sum epsilon_i, sum delta_i)-PML of the stack) passes."""
    record = json.loads((run_dir / "results.json").read_text())
    assert record["parameters"]["mechanisms"] == {
        "zone outputs (trajectory)": "LinearGaussianMechanism"
    }
    for convention in ("paper", "exact"):
        release = record["releases"][convention]
        assert release["mechanism"] == "LinearGaussianMechanism" and release["notion"] == "pml"
        assert release["passed"] and release["convention"] == convention
        assert release["epsilon"] == pytest.approx(EPSILON.sum())
        assert release["delta"] == pytest.approx(3 * DELTA)
