"""Smoke test of the membership-inference study ([MAC] §4)."""

import json

import numpy as np
import pytest

from ssa_privacy.engine.runner import Runner
from ssa_privacy.privacy.posterior_sampling.mechanism import PosteriorSamplingMechanism
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
    # Every shadow and evaluation release went through the mechanism and was certified.
    assert summary["releases"] == summary["releases_certified"] == 4 * 200 * 6
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
    parameters = json.loads((tmp_path / "results.json").read_text())["parameters"]
    tasks = parameters["runner"]["tasks"]
    assert [t["seed_keys"] for t in tasks["mia"]] == [[0, g] for g in range(4)]
    assert parameters["mechanisms"] == {
        "shadow and evaluation releases": "PosteriorSamplingMechanism"
    }


def test_the_standalone_draws_of_0_1_warn_and_equal_the_mechanism_releases():
    rng = np.random.default_rng(0)
    X, y = mia.step_datasets(10, True, 3, rng)
    with pytest.warns(DeprecationWarning, match="GaussianProcess"):
        posterior_at_target = mia.posterior_at_target
    with pytest.warns(DeprecationWarning, match="sampler='cholesky'"):
        release_at_target = mia.release_at_target
    mean, variance = posterior_at_target(X, y, 1.0, 0.3)
    draws = release_at_target(mean, variance, 0.5, 4, np.random.default_rng(1))
    generator = np.random.default_rng(1)
    for Xi, yi, row in zip(X, y, draws):
        mechanism = PosteriorSamplingMechanism(
            Xi,
            [mia.TARGET],
            50.0,
            1e-5,
            lengthscale=1.0,
            ridge=0.3,
            sigma=0.5,
            paths=4,
            sampler="cholesky",
        )
        np.testing.assert_array_equal(mechanism.release(yi, seed=generator).values[:, 0], row)
