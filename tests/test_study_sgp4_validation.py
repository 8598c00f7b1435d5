"""Smoke test of the sgp4-validation study through the CLI, with its stated tolerances."""

import json

import pytest

from ssa_privacy.cli import main
from ssa_privacy.engine.runner import Runner
from ssa_privacy.studies import sgp4_validation

SMALL = {"satellites": "iss,06251,28872", "hours": 3.0, "secular_days": 1.5}


@pytest.fixture(scope="module")
def serial_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("sgp4_validation")
    arguments = [
        "run",
        "sgp4-validation",
        "--out",
        str(out),
        "--no-progress",
        "--workers",
        "1",
        "--satellites",
        SMALL["satellites"],
        "--hours",
        str(SMALL["hours"]),
        "--secular-days",
        str(SMALL["secular_days"]),
    ]
    assert main(arguments) == 0
    return out


@pytest.fixture(scope="module")
def results(serial_out):
    out = serial_out
    for stem in ("fig_sgp4_difference", "fig_secular_rates"):
        for extension in ("png", "pdf"):
            assert (out / f"{stem}.{extension}").stat().st_size > 0
    assert (out / "secular_rates.csv").stat().st_size > 0
    return json.loads((out / "results.json").read_text())


def test_near_circular_leo_stays_within_1_km_of_sgp4_over_the_first_orbit(results):
    rows = {r["satellite"]: r for r in results["results"]}
    for name in ("ISS (25544)", "06251"):
        assert rows[name]["status"] == "compared"
        assert rows[name]["max_difference_first_orbit_km"] < 1.0
        assert rows[name]["max_difference_km"] >= rows[name]["max_difference_first_orbit_km"]


def test_a_decaying_element_set_is_reported_as_skipped(results):
    rows = {r["satellite"]: r for r in results["results"]}
    assert rows["28872"]["status"].startswith("skipped") and "decayed" in rows["28872"]["status"]


def test_secular_rates_match_the_analytic_ones_within_one_percent(results):
    for row in results["secular_rates"]:
        assert row["raan_rate_relative_error"] < 0.01
        assert row["argp_rate_relative_error"] < 0.01


def test_two_workers_give_the_serial_results(serial_out, tmp_path):
    out = tmp_path / "parallel"
    sgp4_validation.run(out, progress=False, runner=Runner(workers=2, progress=False), **SMALL)
    for name in ("results.csv", "secular_rates.csv"):
        assert (out / name).read_text() == (serial_out / name).read_text()
    serial, parallel = (json.loads((o / "results.json").read_text()) for o in (serial_out, out))
    assert parallel["results"] == serial["results"]
    assert parallel["secular_rates"] == serial["secular_rates"]
    assert parallel["parameters"]["runner"]["backend"] == "process-pool"
    assert serial["parameters"]["runner"]["backend"] == "serial"
    tasks = parallel["parameters"]["runner"]["tasks"]
    assert [t["key"] for t in tasks["sgp4-validation-sgp4"]] == [
        ["satellite", key] for key in ("25544", "06251", "28872")
    ]
    assert all(t["seed_keys"] is None for t in tasks["sgp4-validation-secular"])
