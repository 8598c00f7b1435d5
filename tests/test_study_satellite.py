"""Smoke test of the satellite study ([TCB] §5.1): files and the theory's predictions."""

import contextlib
import csv
import io
import json

import numpy as np
import pytest

from ssa_privacy.engine.runner import Runner
from ssa_privacy.privacy.accounting import c_delta
from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies import satellite

TABLE_SEEDS = 2


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("satellite")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        satellite.run(out, seed=1, progress=False, replications=3, table_seeds=TABLE_SEEDS)
    return out, json.loads((out / "results.json").read_text()), printed.getvalue()


def test_files_are_written(results):
    out, payload, _ = results
    for stem in (
        "figure2_trajectory",
        "figure3_privacy_aware",
        "figure4_replications",
        "figure5_squared_difference",
        "figure6_dp_cloaking",
        "figure6_dp_cloaking_zoom",
        "figure7_zero_mean",
    ):
        assert (out / f"{stem}.png").stat().st_size > 0 and (out / f"{stem}.pdf").stat().st_size > 0
    assert payload["parameters"]["seed"] == 1 and payload["version"]
    # Every release goes through a public mechanism's release(y, seed=...).
    assert payload["parameters"]["mechanisms"] == {
        "privacy-aware": "SyntheticNoiseMechanism",
        dp.METHOD: "CloakingMechanism",
    }
    with open(out / "trajectory.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["time", "r", "r_dot", "theta", "theta_dot", "is_private"]
    times = np.array([float(r["time"]) for r in rows])
    np.testing.assert_allclose(times, np.arange(301) * 0.01, atol=1e-12)
    private = np.array([r["is_private"] == "1" for r in rows])
    np.testing.assert_array_equal(private, (times >= 1) & (times <= 2))


def test_every_release_is_certified(results):
    _, payload, _ = results
    certificates = [
        c
        for by_output in payload["certificates_per_release"].values()
        for values in by_output.values()
        for c in values
    ]
    assert len(certificates) == 3 * 3 * 4
    # Relative margins (dimensionless): the designs bind at their margin 1e-7 and pass.
    assert min(certificates) >= 5e-8
    assert payload["checks"]["certificates_passed"]
    assert payload["checks"]["certificate_tolerance_max"] < 1e-8


def test_theory_predictions_hold(results):
    _, payload, _ = results
    checks = payload["checks"]
    assert all(checks["trace_decreasing_in_alpha"].values())
    for low, high in checks["posterior_variance_ratio_at_S"].values():
        assert low == pytest.approx(1.0, abs=1e-6) and high == pytest.approx(1.0, abs=1e-6)
    far = next(v for k, v in checks.items() if k.startswith("max_abs_difference"))
    assert max(far.values()) < 1e-2  # within 1% of the prior standard deviation


def test_table_has_every_method_alpha_and_output(results):
    _, payload, _ = results
    rows = payload["results"]
    for method in ("privacy-aware", "stationary"):
        for alpha in satellite.ALPHAS:
            outputs = {r["output"] for r in rows if r["method"] == method and r["alpha"] == alpha}
            assert outputs == set(satellite.COMPONENTS) | {"AVERAGE"}
    averages = [r for r in rows if r["output"] == "AVERAGE" and r["method"] == "privacy-aware"]
    assert all(
        r["paper_table3_rmse"] is not None and r["authors_csv_rmse"] is not None for r in averages
    )


def test_dp_rows_exist_with_finite_rmse_and_passed_checks(results):
    _, payload, _ = results
    rows = [r for r in payload["results"] if r["method"] == dp.METHOD]
    assert {(r["epsilon"], r["output"]) for r in rows} == {
        (e, o) for e in dp.EPSILONS for o in satellite.COMPONENTS + ("AVERAGE",)
    }
    for row in rows:
        assert row["delta"] == dp.DELTA and row["alpha"] is None
        assert np.isfinite(row["rmse_mean"]) and row["rmse_mean"] > 0
        assert row["checks_passed"] and row["max_exact_delta"] <= dp.DELTA
        assert row["releases"] == TABLE_SEEDS * (4 if row["output"] == "AVERAGE" else 1)
    averages = [r for r in rows if r["output"] == "AVERAGE"]
    assert all(
        r["paper_table3_rmse"] is not None and r["authors_csv_rmse"] is not None for r in averages
    )


def test_every_dp_release_carries_its_guarantee_and_check(results):
    """One release per (Table 3 seed, epsilon, output), each verified at (epsilon, 0.01)."""
    _, payload, _ = results
    releases = payload["dp_releases"]
    assert sorted((r["replication"], r["epsilon"], r["output"]) for r in releases) == sorted(
        (i, e, o) for i in range(TABLE_SEEDS) for e in dp.EPSILONS for o in satellite.COMPONENTS
    )
    for r in releases:
        assert r["check_passed"] and r["delta"] == dp.DELTA
        assert r["check_exact_delta"] <= dp.DELTA
        # Hall's condition: worst-case Mahalanobis shift at most epsilon / c(delta).
        assert r["check_mahalanobis_sensitivity"] <= r["epsilon"] / c_delta(dp.DELTA) * (1 + 1e-9)
        assert r["seed_keys"][:2] == [1, r["replication"]]
    assert payload["checks"]["dp_all_checks_passed"]


def test_dp_theory_predictions_hold(results):
    _, payload, _ = results
    checks = payload["checks"]
    # The noiseless GP interpolates: at the training points M = I, noise sd = d c(delta) / epsilon.
    for low, high in checks["dp_noise_sd_at_training_points_over_d_c_delta_over_epsilon"].values():
        assert low == pytest.approx(1.0, abs=1e-3) and high == pytest.approx(1.0, abs=1e-3)
    # One full-noise draw per release: the MSE matches its prediction (an average of 100
    # draws, the authors' bug #12, would give z of about -sqrt(61 * seeds / 2) * 0.99).
    assert max(abs(z) for z in checks["dp_mse_z_score"].values()) < 5
    for design in payload["dp_cloaking_design"].values():  # KKT conditions of the ellipsoid
        assert design["max_leverage"] <= 1 + 1e-3 + 1e-6
        assert design["sum_lambdas"] == pytest.approx(design["kept_rank"], rel=1e-6)


def test_pa_and_dp_compared_on_the_same_seeds_and_printed(results):
    _, payload, printed = results
    comparison = payload["pa_vs_dp"]
    assert [(r["alpha"], r["epsilon"]) for r in comparison] == list(
        zip(satellite.ALPHAS, dp.EPSILONS)
    )
    average = {
        dp.row_label(r): r["rmse_mean"] for r in payload["results"] if r["output"] == "AVERAGE"
    }
    for r in comparison:
        assert r["seeds"] == TABLE_SEEDS
        assert r["privacy_aware_rmse"] == average[f"privacy-aware alpha={r['alpha']}"]
        assert r["dp_cloaking_rmse"] == average[f"dp-cloaking epsilon={r['epsilon']}"]
    assert "Privacy-aware GP vs DP-cloaking" in printed
    assert len([line for line in printed.splitlines() if "|" in line]) == 1 + len(comparison)


def _without_times(rows):
    """Rows without their wall-clock columns (the only ones a rerun may change)."""
    return [{k: v for k, v in row.items() if "time" not in k} for row in rows]


def test_two_workers_reproduce_the_serial_run(results, tmp_path):
    """Each replication draws from its own seed keys: the backend changes no number."""
    out, payload, _ = results
    with contextlib.redirect_stdout(io.StringIO()):
        satellite.run(
            tmp_path,
            seed=1,
            progress=False,
            replications=3,
            table_seeds=TABLE_SEEDS,
            runner=Runner(workers=2, progress=False),
        )
    for name in ("results.csv", "trajectory.csv"):
        with open(out / name) as serial, open(tmp_path / name) as pooled:
            assert _without_times(csv.DictReader(pooled)) == _without_times(csv.DictReader(serial))
    pooled = json.loads((tmp_path / "results.json").read_text())
    for key in ("certificates_per_release", "checks", "pa_vs_dp"):
        assert pooled[key] == payload[key]
    assert _without_times(pooled["dp_releases"]) == _without_times(payload["dp_releases"])
    record = pooled["parameters"]["runner"]
    assert record["backend"] == "process-pool" and record["workers"] == 2
    assert [t["seed_keys"] for t in record["tasks"]["satellite"]] == [[1, i] for i in range(3)]
    assert payload["parameters"]["runner"]["backend"] == "serial"


def test_study_noise_equals_the_library_cloaking_covariance():
    """The study's once-designed, per-epsilon scaled noise is the library's cloaking noise."""
    design = satellite.Design(satellite.KERNEL_CONVENTIONS["paper"])
    gp, y = design.gps[1], design.Y[:, 1]
    cloak = dp.CloakingDesign(gp, design.X, design.t[::10])
    d = dp.output_sensitivity(y)
    for epsilon in dp.EPSILONS:
        released = cloak.release(y, gp.mean, epsilon, d, np.random.default_rng(0))
        ours = released.noise_covariance.matrix()
        library = CloakingMechanism(
            gp.kernel(design.t[::10], design.X),
            gp.kernel(design.X),
            gp.noise + gp.jitter,
            epsilon,
            dp.DELTA,
            d,
            calibration="hall",
        ).noise_covariance.matrix()
        np.testing.assert_allclose(ours, library, rtol=1e-6, atol=1e-12 * np.abs(library).max())


def test_cloaking_design_rejects_bad_input():
    design = satellite.Design(satellite.KERNEL_CONVENTIONS["paper"])
    gp, y = design.gps[0], design.Y[:, 0]
    cloak = dp.CloakingDesign(gp, design.X, design.X)
    with pytest.raises(ValueError, match="epsilon"):
        cloak.release(
            y, gp.mean, 2.0, 1.0, np.random.default_rng(0)
        )  # Hall's proof needs epsilon <= 1
    with pytest.raises(ValueError, match="sensitivity"):
        cloak.release(y, gp.mean, 0.5, 0.0, np.random.default_rng(0))
    gp.noise = np.eye(len(y))
    with pytest.raises(ValueError, match="scalar noise"):
        dp.CloakingDesign(gp, design.X, design.X)
