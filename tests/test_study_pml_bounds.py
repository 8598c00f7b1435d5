"""Smoke test of the pml-bounds study through the CLI, with theory checks."""

import json

import numpy as np
import pytest
from scipy import stats

from ssa_privacy.cli import main

DELTA, SAMPLES = 0.01, 40000


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("pml_bounds")
    assert (
        main(
            [
                "run",
                "pml-bounds",
                "--out",
                str(out),
                "--seed",
                "5",
                "--no-progress",
                "--runs",
                "10",
                "--steps",
                "120",
                "--burn-in",
                "20",
                "--epsilons",
                "5.5,7",
                "--delta",
                str(DELTA),
                "--mc-samples",
                str(SAMPLES),
            ]
        )
        == 0
    )
    for name in (
        "design.json",
        "results.csv",
        "results.json",
        "fig_error_covariance_bounds.png",
        "fig_error_covariance_bounds.pdf",
        "fig_leakage_probability.png",
        "fig_leakage_probability.pdf",
    ):
        assert (out / name).stat().st_size > 0
    return json.loads((out / "results.json").read_text())


def test_every_guaranteed_bound_holds(results):
    rows = results["results"]
    assert len(rows) == 6 and results["all_guaranteed_checks_hold"]
    for row in rows:
        assert row["bound_28_29_guaranteed"]
        assert row["logdet_P_dare"] >= row["bound_chain_logdet"] >= row["bound_28"] - 1e-7
        assert row["trace_P_dare"] >= row["bound_chain_trace"] >= row["bound_29"] - 1e-7
        assert row["logdet_P_empirical"] >= row["bound_chain_logdet"]
        assert row["trace_P_empirical"] >= row["bound_chain_trace"]


def test_designs_are_private_and_the_exact_ones_are_tight(results):
    rows = results["results"]
    for row in rows:
        assert row["P_leak_le_eps_analytic"] >= 1 - DELTA - 1e-7
        if row["convention"] == "exact":
            assert row["P_leak_le_eps_analytic"] == pytest.approx(1 - DELTA, abs=1e-6)
        # Monte Carlo failures: one-sided binomial test of P[l > eps] <= delta at level 1e-4.
        assert row["P_leak_mc_failures"] <= stats.binom.ppf(1 - 1e-4, SAMPLES, DELTA)
    for eps in (5.5, 7.0):
        trace = {r["design"]: r["trace_Theta"] for r in rows if r["epsilon"] == eps}
        assert trace["log-det/exact"] <= trace["corollary-3.7/exact"] * (1 + 1e-6)
        assert trace["corollary-3.7/exact"] < trace["corollary-3.7/paper"]


def test_empirical_covariance_agrees_with_the_dare(results):
    for row in results["results"]:
        # 10 runs x 100 steps: agreement within 5 standard errors of the run-to-run spread.
        assert (
            abs(row["trace_P_empirical"] - row["trace_P_dare"]) <= 5 * row["trace_P_empirical_se"]
        )
        assert (
            abs(row["logdet_P_empirical"] - row["logdet_P_dare"])
            <= 5 * row["logdet_P_empirical_se"]
        )


def test_am_gm_trace_bound_beside_29(results):
    for row in results["results"]:
        # n = 2: n exp((28) / n), never below (29), never negative, below the DARE trace.
        assert row["bound_29_am_gm"] == pytest.approx(2 * np.exp(row["bound_28"] / 2), rel=1e-12)
        assert row["bound_29_am_gm"] >= row["bound_29"] and row["bound_29_am_gm"] > 0
        assert row["trace_P_dare"] >= row["bound_chain_trace_am_gm"] >= row["bound_29_am_gm"] - 1e-7
        assert row["holds_29_am_gm_dare"] and row["holds_29_am_gm_empirical"]
        assert row["bound_29"] < 0  # (29) is vacuous here; the AM-GM form is not


def test_a_vacuous_trace_bound_is_no_check(results):
    for row in results["results"]:
        for bound, vacuous, holds in (
            ("bound_29", "bound_29_vacuous", "holds_29"),
            ("bound_chain_trace", "trace_chain_vacuous", "holds_trace_chain"),
        ):
            # A trace is positive: a bound <= 0 holds for every P and checks nothing.
            assert row[vacuous] == (row[bound] <= 0)
            for kind in ("dare", "empirical"):
                expected = None if row[vacuous] else row[f"trace_P_{kind}"] >= row[bound]
                assert row[f"{holds}_{kind}"] == expected
    # With this plant both trace bounds are vacuous in every row (log det Q < -n).
    assert all(row["bound_29_vacuous"] and row["trace_chain_vacuous"] for row in results["results"])
