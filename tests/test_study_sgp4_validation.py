"""Smoke test of the sgp4-validation study through the CLI, with its stated tolerances."""

import json

import pytest

from ssa_privacy.cli import main


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("sgp4_validation")
    arguments = [
        "run",
        "sgp4-validation",
        "--out",
        str(out),
        "--no-progress",
        "--satellites",
        "iss,06251,28872",
        "--hours",
        "3",
        "--secular-days",
        "1.5",
    ]
    assert main(arguments) == 0
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
