"""Smoke test of the ssa-network study through the CLI, with theory checks on its numbers."""

import csv
import json

import pytest
from scipy import stats

from ssa_privacy.cli import main

DELTA, SAMPLES = 0.01, 20000
#: The smallest configuration: 3 UKF runs per level, two levels, a 4 h window.
SMALL = [
    "--no-progress",
    "--runs",
    "3",
    "--epsilons",
    "7,30",
    "--hours",
    "4",
    "--burn-in-hours",
    "2",
    "--cw-runs",
    "4",
    "--cw-steps",
    "120",
    "--cw-burn-in",
    "20",
    "--delta",
    str(DELTA),
    "--mc-samples",
    str(SAMPLES),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("ssa_network")
    arguments = ["run", "ssa-network", "--out", str(out), "--seed", "2", *SMALL]
    assert main([*arguments, "--workers", "1"]) == 0
    for stem in (
        "fig_ground_tracks",
        "fig_tracking_errors",
        "fig_rmse_vs_epsilon",
        "fig_cw_bounds",
    ):
        for extension in ("png", "pdf"):
            assert (out / f"{stem}.{extension}").stat().st_size > 0
    for name in ("results.csv", "cw_bounds.csv", "privacy_checks.csv", "passes.csv"):
        assert (out / name).stat().st_size > 0
    return json.loads((out / "results.json").read_text()) | {"_out": out}


def test_tighter_privacy_gives_a_larger_tracking_error(results):
    rows = {r["level"]: r for r in results["results"]}
    assert list(rows) == ["7", "30", "none"]
    assert rows["7"]["epsilons"] == "7/8/9"
    check = results["monotone_checks"][0]
    assert (check["from"], check["to"]) == ("7", "30")
    # Paired over runs (common random numbers): clearly positive, beyond 2 standard errors.
    assert check["rmse_difference_km"] > 2 * check["se_km"] > 0
    assert rows["7"]["privacy_range_std_km_median"] > rows["30"]["privacy_range_std_km_median"]
    assert rows["none"]["privacy_range_std_km_median"] == 0.0
    for row in rows.values():
        assert 0.0 < row["ukf_position_rmse_km"] < 5.0
        assert 0.2 < row["ukf_position_nees"] < 10.0  # 3 for a consistent filter; 3 runs only


def test_every_cw_error_is_above_its_bounds(results):
    for row in results["cw_bounds"]:
        assert row["bound_28_29_applies"]
        assert row["logdet_P_dare"] >= row["bound_chain_logdet"] >= row["bound_28"] - 1e-7
        assert row["trace_P_dare"] >= row["bound_chain_trace"] >= row["bound_29"] - 1e-7
        assert row["logdet_P_empirical"] >= row["bound_chain_logdet"]
        assert row["trace_P_empirical"] >= row["bound_chain_trace"]
        # The fusion of three releases leaks more than each: its implied epsilon is larger.
        assert row["epsilon_implied"] <= (row["epsilon_design"] or float("inf")) + 1e-9
    assert results["summary"]["cw_all_bounds_hold"]
    fusion = {r["level"]: r for r in results["cw_bounds"] if r["filter"] == "fusion"}
    stations = [r for r in results["cw_bounds"] if r["filter"] != "fusion"]
    for row in stations:
        assert fusion[row["level"]]["logdet_P_dare"] < row["logdet_P_dare"]
        assert fusion[row["level"]]["epsilon_implied"] > row["epsilon_implied"]


def test_designed_mechanisms_meet_their_pml_level(results):
    rows = results["privacy_checks"]
    assert len(rows) == 2 * 3 * 2  # (CW, radar) x 3 stations x 2 privacy levels
    for row in rows:
        assert row["P_leak_le_eps_analytic"] >= 1 - DELTA - 1e-9
        # One-sided binomial test of P[l > epsilon] <= delta at level 1e-4.
        assert row["P_leak_mc_failures"] <= stats.binom.ppf(1 - 1e-4, SAMPLES, DELTA)


def test_every_radar_release_goes_through_a_certified_mechanism(results):
    """Each privatized radar measurement is released by a ``PassMechanism`` of one
    measurement (``parameters.mechanisms``), and every release's certificate passed; the
    level without privacy releases none."""
    assert results["parameters"]["mechanisms"]["radar measurement (UKF)"] == "PassMechanism"
    releases = results["radar_releases"]
    assert releases["none"] == {"releases": 0, "passed": 0, "mechanisms": []}
    for level in ("7", "30"):
        assert releases[level]["releases"] > 0
        assert releases[level]["passed"] == releases[level]["releases"]
    # Common random numbers: the same measurements are released at every level.
    assert releases["7"]["releases"] == releases["30"]["releases"]


def test_the_options_are_checked_and_named_before_any_work(tmp_path):
    from ssa_privacy.studies import ssa_network

    for options, words in (
        ({"gap_step": 45.0}, "gap_step must be a multiple of dt"),
        ({"cw_burn_in": 400}, "cw_burn_in"),
        ({"epsilons": ()}, "epsilons must hold at least one level"),
    ):
        with pytest.raises(ValueError, match=words):
            ssa_network.run(tmp_path / "out", 0, False, **options)
    with pytest.raises(TypeError, match="unexpected keyword argument 'samples'"):
        ssa_network.run(tmp_path / "out", 0, False, samples=10)
    assert not (tmp_path / "out").exists()


def test_passes_come_from_several_stations(results):
    passes = results["passes"]
    assert len({p["station"] for p in passes}) >= 2
    assert all(p["max_elevation_deg"] >= 10.0 for p in passes)


def _table(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


def test_two_workers_reproduce_the_serial_run(results, tmp_path):
    """Every task draws from its own seed keys: the backend changes no number."""
    arguments = ["run", "ssa-network", "--out", str(tmp_path), "--seed", "2", *SMALL]
    assert main([*arguments, "--workers", "2"]) == 0
    for name in ("results.csv", "cw_bounds.csv", "privacy_checks.csv"):
        assert _table(tmp_path / name) == _table(results["_out"] / name)
    record = json.loads((tmp_path / "results.json").read_text())["parameters"]["runner"]
    assert record["backend"] == "process-pool" and record["workers"] == 2
    keys = {tuple(t["key"]): t["seed_keys"] for t in record["tasks"]["ssa-network"]}
    assert keys[("ukf", "30", 1)] == [2, 1] and keys[("cw", "none", "fusion")] == [2, 2, 3, 3]
    assert keys[("privacy", "Madrid")] == [2, 1, 4]
    assert results["parameters"]["runner"]["backend"] == "serial"
