"""Smoke test of the satellite study ([TCB] §5.1): files and the theory's predictions."""

import csv
import json

import numpy as np
import pytest

from ssa_privacy.studies import satellite


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("satellite")
    satellite.run(out, seed=1, progress=False, replications=3, table_seeds=2)
    return out, json.loads((out / "results.json").read_text())


def test_files_are_written(results):
    out, payload = results
    for stem in ("figure2_trajectory", "figure3_privacy_aware", "figure4_replications",
                 "figure5_squared_difference", "figure7_zero_mean"):
        assert (out / f"{stem}.png").stat().st_size > 0 and (out / f"{stem}.pdf").stat().st_size > 0
    assert payload["parameters"]["seed"] == 1 and payload["version"]
    with open(out / "trajectory.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["time", "r", "r_dot", "theta", "theta_dot", "is_private"]
    times = np.array([float(r["time"]) for r in rows])
    np.testing.assert_allclose(times, np.arange(301) * 0.01, atol=1e-12)
    private = np.array([r["is_private"] == "1" for r in rows])
    np.testing.assert_array_equal(private, (times >= 1) & (times <= 2))


def test_every_release_is_certified(results):
    _, payload = results
    certificates = [c for by_output in payload["certificates_per_release"].values()
                    for values in by_output.values() for c in values]
    assert len(certificates) == 3 * 3 * 4
    assert min(certificates) >= -1e-8


def test_theory_predictions_hold(results):
    _, payload = results
    checks = payload["checks"]
    assert all(checks["trace_decreasing_in_alpha"].values())
    for low, high in checks["posterior_variance_ratio_at_S"].values():
        assert low == pytest.approx(1.0, abs=1e-6) and high == pytest.approx(1.0, abs=1e-6)
    far = next(v for k, v in checks.items() if k.startswith("max_abs_difference"))
    assert max(far.values()) < 1e-2  # within 1% of the prior standard deviation


def test_table_has_every_method_alpha_and_output(results):
    _, payload = results
    rows = payload["results"]
    for method in ("privacy-aware", "stationary"):
        for alpha in satellite.ALPHAS:
            outputs = {r["output"] for r in rows if r["method"] == method and r["alpha"] == alpha}
            assert outputs == set(satellite.COMPONENTS) | {"AVERAGE"}
    averages = [r for r in rows if r["output"] == "AVERAGE" and r["method"] == "privacy-aware"]
    assert all(r["paper_table3_rmse"] is not None and r["authors_csv_rmse"] is not None for r in averages)
