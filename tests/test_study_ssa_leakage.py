"""The ssa-leakage study: a tiny run (one LEO object, its first pass, 40 outcomes, one
budget), its numbers against the linear Gaussian closed form, the runner's independence,
and its options.

The catalogue comes from the data folder ($SSA_PRIVACY_DATA, then ../shared/data); the
tests that need it are skipped when it is absent.
"""

import argparse
import csv
import json

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.cli import main
from ssa_privacy.engine.runner import Runner
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.studies import _ssa_leakage_task as task
from ssa_privacy.studies import ssa_leakage
from ssa_privacy.studies._ssa_leakage_summary import COLUMNS
from ssa_privacy.studies.scenario import default_scenario
from ssa_privacy.studies.ssa_catalog import Scenario, choose_objects

SEED, EPSILON, DELTA, OUTCOMES = 3, 10.0, 0.01, 40
TINY = {
    "objects_per_regime": {"leo": 1},
    "passes": ("first",),
    "outcomes": OUTCOMES,
    "epsilons": (EPSILON,),
    "delta": DELTA,
}


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def serial_out(catalogue, tmp_path_factory):
    out = tmp_path_factory.mktemp("ssa_leakage") / "run"
    ssa_leakage.run(out, seed=SEED, progress=False, validate=1, **TINY)
    return out


@pytest.fixture(scope="module")
def row(serial_out):
    rows = _rows(serial_out / "leakage.csv")
    assert len(rows) == 1
    return rows[0]


def test_the_run_writes_its_tables_and_figure(serial_out, row):
    for name in ("leakage.csv", "validation.csv", "results.csv", "results.json"):
        assert (serial_out / name).is_file()
    for suffix in ("png", "pdf"):
        assert (serial_out / f"exceedance.{suffix}").stat().st_size > 1000
    assert list(row) == list(COLUMNS)
    assert row["position"] == "first" and row["pass_index"] == "0" and row["regime"] == "leo"
    results = json.loads((serial_out / "results.json").read_text())
    assert results["study"] == "ssa-leakage"
    assert results["parameters"]["seed"] == SEED
    assert results["parameters"]["epsilons"] == [EPSILON]
    assert len(results["parameters"]["norad_ids"]["leo"]) == 1
    summary = _rows(serial_out / "results.csv")
    assert len(summary) == 1 and int(summary[0]["passes"]) == 1


def test_intervals_contain_their_estimates_and_the_verdict_follows_them(row):
    for prefix in ("", "linear_"):
        low, value, high = (float(row[f"{prefix}{k}"]) for k in ("ci_low", "exceedance", "ci_high"))
        assert 0.0 <= low <= value <= high <= 1.0
        count = round(value * OUTCOMES)
        assert value == pytest.approx(count / OUTCOMES)
        exact = stats.binomtest(count, OUTCOMES).proportion_ci(0.95, method="exact")
        assert (low, high) == pytest.approx((exact.low, exact.high))
        expected = task.verdict((low, high), DELTA)
        assert row[f"{prefix}verdict"] == expected
    assert task.verdict((0.02, 0.3), DELTA) == "exceeds"
    assert task.verdict((0.0, 0.01), DELTA) == "within"
    assert task.verdict((0.0, 0.05), DELTA) == "undecided"


def _linear_pass(catalogue, row):
    """The measured pass, rebuilt, and the chi-square law of its linear leakage."""
    spec = default_scenario()
    start_jd, sample, _ = choose_objects(catalogue, "leo", 1, SEED)
    scenario = Scenario(spec, start_jd)
    e = sample[0]
    assert int(e.catalogue_number) == int(row["norad_id"])
    _, _, Phi, Sigma_XX, found = task.object_passes(scenario, (e.name, e.line1, e.line2))
    item = found[0]
    mechanism = PassMechanism.design(item, Sigma_XX, EPSILON, DELTA)
    C = item.C.reshape(-1, 6)
    S = linalg.block_diag(*[item.R] * len(item.indices)) + mechanism.Theta
    return item, Phi, Sigma_XX, C, 0.5 * (S + S.T)


def test_the_linear_exceedance_matches_the_chi_square_law(catalogue, row):
    """For the linear release, 2 (l - I) ~ chi^2 with rank(C) degrees of freedom ([LKC]
    Theorem 3.3): P[l > eps] = P[chi^2 > 2 (eps - I)], computed here from the dense
    matrices; the 95 % interval of the 40 outcomes must contain it, and that probability
    is at most delta (the design's guarantee)."""
    _, _, Sigma_XX, C, S = _linear_pass(catalogue, row)
    L = np.linalg.cholesky(Sigma_XX)
    J = C.T @ np.linalg.solve(S, C)
    lam = np.linalg.eigvalsh(L.T @ J @ L)
    seen = lam > 1e-10 * lam.max()
    information = 0.5 * np.sum(np.log1p(lam[seen]))
    p = stats.chi2.sf(2 * (EPSILON - information), int(seen.sum()))
    assert p <= DELTA * (1 + 1e-6)
    assert float(row["linear_ci_low"]) <= p <= float(row["linear_ci_high"])


def test_the_position_std_is_the_kalman_update_in_covariance_form(catalogue, row):
    """sqrt(trace P_pos) with P = Sigma - Sigma C^T (C Sigma C^T + S)^-1 C Sigma, mapped
    to the pass's midpoint: the covariance form of the information-form update."""
    item, Phi, Sigma_XX, C, S = _linear_pass(catalogue, row)
    gain = np.linalg.solve(C @ Sigma_XX @ C.T + S, C @ Sigma_XX).T
    P = Sigma_XX - gain @ C @ Sigma_XX
    mid = Phi[item.indices[len(item.indices) // 2]]
    for value, covariance in (
        (row["plain_position_std_km"], P),
        (row["prior_position_std_km"], Sigma_XX),
    ):
        expected = np.sqrt(np.trace((mid @ covariance @ mid.T)[:3, :3]))
        assert float(value) == pytest.approx(expected, rel=1e-6)
    assert float(row["plain_position_std_km"]) < float(row["prior_position_std_km"])


def test_importance_sampling_confirms_the_laplace_evidence(serial_out, row):
    """Early in the window the release is nearly linear and the Laplace evidence nearly
    exact: importance sampling agrees within 0.1 nats, with hundreds of effective draws."""
    checks = _rows(serial_out / "validation.csv")
    assert len(checks) == task.VALIDATION_OUTCOMES
    errors = [abs(float(c["is_minus_laplace"])) for c in checks]
    assert max(errors) < 0.1
    assert min(float(c["ess"]) for c in checks) > 100
    assert float(row["is_max_abs_error"]) == pytest.approx(max(errors))


def test_two_workers_give_the_serial_results(serial_out, tmp_path):
    out = tmp_path / "pool"
    with Runner(workers=2, progress=False) as runner:
        ssa_leakage.run(out, seed=SEED, progress=False, runner=runner, validate=0, **TINY)
    parallel = _rows(out / "leakage.csv")
    serial = _rows(serial_out / "leakage.csv")
    skip = {"is_max_abs_error", "is_min_ess"}  # the serial run validated its pass
    assert [{k: v for k, v in r.items() if k not in skip} for r in parallel] == [
        {k: v for k, v in r.items() if k not in skip} for r in serial
    ]


def test_pass_positions_keep_each_pass_once():
    assert task.pass_positions(0) == {}
    assert task.pass_positions(1) == {"first": 0}
    assert task.pass_positions(2) == {"first": 0, "middle": 1}
    assert task.pass_positions(5) == {"first": 0, "middle": 2, "last": 4}


@pytest.mark.parametrize(
    "options, error, words",
    [
        ({"outcomes": 0}, ValueError, "outcomes"),
        ({"restore_outcomes": 2.5}, TypeError, "restore_outcomes"),
        ({"objects_per_regime": {"heo": 1}}, ValueError, "objects_per_regime"),
        ({"objects_per_regime": {"leo": 0}}, ValueError, "objects_per_regime"),
        ({"passes": ("second",)}, ValueError, "passes"),
        ({"epsilons": (8.0,)}, ValueError, "epsilons"),
        ({"epsilons": ()}, ValueError, "epsilons"),
        ({"delta": 0.0}, ValueError, "delta"),
        ({"eta_share": 1.5}, ValueError, "eta_share"),
        ({"validate": -1}, ValueError, "validate"),
        ({"samples": 10}, TypeError, "samples"),
    ],
)
def test_bad_options_are_refused_before_any_work(tmp_path, options, error, words):
    with pytest.raises(error, match=words):
        ssa_leakage.run(tmp_path / "out", progress=False, **options)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["heo=1", "leo=x", "leo=1,leo=2", "leo=0", "leo"])
def test_bad_regime_counts_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="expected"):
        ssa_leakage.parse_regime_counts(text)


def test_the_cli_names_a_bad_option(tmp_path, capsys):
    arguments = ["run", "ssa-leakage", "--out", str(tmp_path / "out"), "--passes", "second"]
    assert main(arguments) == 2
    assert "--passes" in capsys.readouterr().err
    assert ssa_leakage.parse_regime_counts("geo=2, leo=1") == {"leo": 1, "geo": 2}
