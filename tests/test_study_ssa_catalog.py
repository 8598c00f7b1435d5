"""The ssa-catalog study: a small run through the CLI, its privacy numbers recomputed
from the dense stacked matrices of every pass, and its options.

The catalogue comes from the data folder ($SSA_PRIVACY_DATA, then ../shared/data); the
tests that need it are skipped when it is absent.
"""

import csv
import json

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.cli import EXIT_INTERRUPTED, main
from ssa_privacy.engine.output import rows_to_csv
from ssa_privacy.engine.tables import read_rows
from ssa_privacy.orbits.catalog import regime, sgp4_states
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.sensors.streams import passes_of
from ssa_privacy.studies import ssa_catalog
from ssa_privacy.studies.scenario import default_scenario, with_overrides
from ssa_privacy.studies.ssa_catalog import task as task_module
from ssa_privacy.studies.ssa_catalog.options import CatalogOptions
from ssa_privacy.studies.ssa_catalog.task import TRUTH_TOLERANCE

SEED, OBJECTS, HOURS, DELTA = 1, 2, 6.0, 0.01
EPSILONS = (10.0, 14.0, 20.0)
MEASUREMENT_EPSILONS = (7.0, 12.0, 24.0)
COLUMNS = [
    "norad_id",
    "regime",
    "level",
    "epsilon_pass_design",
    "epsilon_pass_achieved",
    "epsilon_day_achieved",
    "position_rmse_km",
    "velocity_rmse_m_s",
    "measurements",
    "passes",
]
FIGURES = ("network_coverage", "per_measurement_leakage", "rmse_cdf", "rmse_vs_epsilon")


def floor(rank):
    """F^{-1}_{chi^2_l}(1 - delta) / 2, [LKC] (9)."""
    return stats.chi2.ppf(1 - DELTA, rank) / 2


def _arguments(out, batch):
    arguments = ["run", "ssa-catalog", "--out", str(out), "--seed", str(SEED)]
    arguments += ["--objects", str(OBJECTS), "--hours", str(HOURS), "--batch", str(batch)]
    return [*arguments, "--workers", "1", "--no-progress"]


def _cli(out, batch):
    return main(_arguments(out, batch))


@pytest.fixture(scope="module")
def serial_out(catalogue, tmp_path_factory):
    out = tmp_path_factory.mktemp("ssa_catalog") / "run"
    assert _cli(out, batch=1) == 0
    return out


@pytest.fixture(scope="module")
def rows(serial_out):
    with open(serial_out / "results.csv") as stream:
        return list(csv.DictReader(stream))


def _number(text):
    return float("inf") if text == "" else float(text)


def test_the_cli_writes_the_tables_and_the_figures(serial_out, rows):
    """results.csv starts with the issue's ten columns, then what the object's contacts
    are (first contact, status), then the log-det designer's consistency and the scaled
    designer's columns; one row per object and level (none, then the budgets);
    results.json, per_measurement.csv and four figures in PNG and PDF."""
    with open(serial_out / "results.csv") as stream:
        header = next(csv.reader(stream))
    assert header[: len(COLUMNS)] == COLUMNS
    extra = header[len(COLUMNS) :]
    assert extra[:2] == ["first_contact_utc", "status"]
    assert extra[2:5] == ["updates_rejected", "nees_mean", "nis_per_dof"]
    assert all(c.endswith("_scaled") for c in extra[5:])
    levels = ["none", *(f"{e:g}" for e in EPSILONS)]
    objects = list(dict.fromkeys(r["norad_id"] for r in rows))
    assert len(objects) == OBJECTS
    assert [(r["norad_id"], r["level"]) for r in rows] == [(o, v) for o in objects for v in levels]
    for row in rows:
        assert row["regime"] == "leo"
        assert int(row["passes"]) >= 1 and int(row["measurements"]) >= int(row["passes"])
        assert row["status"] == "tracked" and row["first_contact_utc"].endswith("Z")
        scaled = [row[c] for c in header[len(COLUMNS) + 5 :]]
        assert all(s == "" for s in scaled) if row["level"] == "none" else all(scaled)
    for name in ("results.json", "per_measurement.csv"):
        assert (serial_out / name).stat().st_size > 0
    for stem in FIGURES:
        for extension in ("png", "pdf"):
            assert (serial_out / f"{stem}.{extension}").stat().st_size > 0


def test_no_pass_exceeds_its_budget_and_the_day_leaks_at_least_each_pass(rows):
    """Per row and designer: the largest pass epsilon is at most the budget (1e-9) and
    equal to it (the designs are exact; the largest pass sees all of x0); the day's
    epsilon is at least every pass's (information only adds) and at most the floor of
    six directions plus the passes' information (I(X; Y_1..Y_P) <= sum_p I(X; Y_p) for
    noises independent given X, with I_p <= budget - floor(1))."""
    for row in rows:
        passes, design = int(row["passes"]), _number(row["epsilon_pass_design"])
        suffixes = ("",) if row["level"] == "none" else ("", "_scaled")
        for suffix in suffixes:
            pass_eps = float(row[f"epsilon_pass_achieved{suffix}"])
            day = float(row[f"epsilon_day_achieved{suffix}"])
            assert day >= pass_eps - 1e-9
            if row["level"] == "none":
                assert design == float("inf")
                continue
            assert pass_eps <= design + 1e-9
            assert pass_eps == pytest.approx(design, abs=1e-6)
            assert day <= floor(6) + passes * (design - floor(1))


def _dense_stack(item, Theta, designer):
    """Rows ``W = L_T^{-1} C`` (whitened by sensor sigma, then by the noise) of one pass:
    ``I = sum log(1 + s_i^2) / 2`` over the singular values of ``W L_X``; for the rank-6
    log-det noise, of the sufficient statistic ``B^T y`` (B from our QR of range(C))."""
    sigma = np.tile(np.sqrt(np.diag(item.R)), len(item.C))
    C, Theta = item.C.reshape(-1, 6) / sigma[:, None], Theta / np.outer(sigma, sigma)
    if designer == "logdet":
        B = np.linalg.qr(C)[0]
        C, Theta = B.T @ C, B.T @ Theta @ B
    return linalg.solve_triangular(np.linalg.cholesky(Theta), C, lower=True)


def _dense_epsilon(W, Sigma_XX):
    s = linalg.svdvals(W @ np.linalg.cholesky(Sigma_XX))
    rank = int(np.sum(s > 1e-8 * s[0]))
    return 0.5 * float(np.sum(np.log1p(s[:rank] ** 2))) + floor(rank)


def test_the_reported_epsilons_are_those_of_the_dense_stacked_passes(catalogue, serial_out, rows):
    """Each object's passes rebuilt (its nominal alone, as a batch of one), each pass's
    noise designed and its leakage recomputed from the dense stacked matrices: the
    largest over the passes is the row's pass epsilon and the stack of all passes the
    day's, within 1e-6 nats, for the sensor noise alone ("none") and both designers."""
    parameters = json.loads((serial_out / "results.json").read_text())["parameters"]
    by_number = {int(e.catalogue_number): e for e in catalogue}
    spec = with_overrides(
        default_scenario(),
        hours=HOURS,
        pass_epsilons=EPSILONS,
        measurement_epsilons=MEASUREMENT_EPSILONS,
        delta=DELTA,
    )
    scenario = ssa_catalog.Scenario(spec, parameters["start_jd"])
    times = scenario.times
    for number in parameters["norad_ids"]:
        element_set = by_number[number]
        start = sgp4_states([element_set], scenario.start_jd, times[[0, -1]])[:, 0]
        nominal, Phi = scenario.propagator.propagate_with_transition(
            times, start, rtol=TRUTH_TOLERANCE, atol=TRUTH_TOLERANCE
        )
        found = passes_of(nominal[0], Phi[0], times, scenario.stations, scenario.earth)
        Sigma_XX = manoeuvre_prior(nominal[0, 0], 2 * np.pi / element_set.period)
        mine = {r["level"]: r for r in rows if int(r["norad_id"]) == number}
        levels = [("none", None, "", None)] + [
            (f"{e:g}", e, suffix, designer)
            for e in EPSILONS
            for suffix, designer in (("", "logdet"), ("_scaled", "scaled"))
        ]
        for level, epsilon, suffix, designer in levels:
            stacks = []
            for item in found:
                if designer is None:
                    Theta = np.kron(np.eye(len(item.C)), item.R)
                else:
                    design = PassMechanism.design(item, Sigma_XX, epsilon, DELTA, designer=designer)
                    Theta = design.Theta
                stacks.append(_dense_stack(item, Theta, designer))
            passes = [_dense_epsilon(W, Sigma_XX) for W in stacks]
            day = _dense_epsilon(np.vstack(stacks), Sigma_XX)
            row = mine[level]
            assert int(row["passes"]) == len(found)
            assert float(row[f"epsilon_pass_achieved{suffix}"]) == pytest.approx(
                max(passes), abs=1e-6
            )
            assert float(row[f"epsilon_day_achieved{suffix}"]) == pytest.approx(day, abs=1e-6)


def test_the_summaries_are_those_of_the_rows(serial_out, rows):
    """results.json: per level, the median and 90th percentile of the rows' RMSE, the
    fraction within 1 km, the largest pass epsilon; the throughput of the run."""
    results = json.loads((serial_out / "results.json").read_text())
    summaries = results["summaries"]
    assert list(summaries) == ["none", *(f"{e:g}" for e in EPSILONS)]
    for level, summary in summaries.items():
        mine = [r for r in rows if r["level"] == level]
        assert summary["objects"] == len(mine) == OBJECTS
        names = [("none", "")] if level == "none" else [("logdet", ""), ("scaled", "_scaled")]
        assert summary["objects_without_contact"] == 0
        assert set(summary) == {
            "objects",
            "objects_without_contact",
            "epsilon_pass_design",
            *(n for n, _ in names),
        }
        for name, suffix in names:
            position = np.array([float(r[f"position_rmse_km{suffix}"]) for r in mine])
            expected = {
                "position_rmse_km_median": np.median(position),
                "position_rmse_km_p90": np.percentile(position, 90),
                "fraction_tracked_within_1_km": np.mean(position <= 1.0),
                "epsilon_pass_achieved_max": max(
                    float(r[f"epsilon_pass_achieved{suffix}"]) for r in mine
                ),
            }
            for key, value in expected.items():
                assert summary[name][key] == pytest.approx(value, rel=1e-12), (level, name, key)
    throughput = results["throughput"]
    assert throughput["objects"] == OBJECTS and throughput["workers"] == 1
    assert throughput["objects_per_second_per_worker"] == pytest.approx(
        OBJECTS / throughput["wall_time_s"], rel=1e-9
    )
    assert len(results["parameters"]["norad_ids"]) == OBJECTS


def test_every_table_is_streamed_to_parquet_with_the_rows_of_its_csv(serial_out):
    """Each CSV table is the CSV of its Parquet file's rows (typed, in task order), the NEES
    series hold one row per object and filter, and results.json summarizes each regime."""
    pq = pytest.importorskip("pyarrow.parquet")
    for name in ("results", "per_measurement", "consistency", "detectability"):
        streamed = list(read_rows(serial_out / f"{name}.parquet"))
        assert rows_to_csv(streamed) == (serial_out / f"{name}.csv").read_text(), name
    consistency = pq.read_table(serial_out / "consistency.parquet").to_pylist()
    series = pq.read_table(serial_out / "nees_series.parquet").to_pylist()
    assert [(r["norad_id"], r["level"], r["designer"]) for r in series] == [
        (r["norad_id"], r["level"], r["designer"]) for r in consistency
    ]
    for row, summary in zip(series, consistency, strict=True):
        assert np.mean(row["nees"]) == pytest.approx(summary["nees_mean"], rel=1e-12)
    results = json.loads((serial_out / "results.json").read_text())
    assert results["summaries_by_regime"] == {"leo": results["summaries"]}


@pytest.mark.slow
def test_an_interrupted_run_resumes_with_only_its_unfinished_tasks(serial_out, monkeypatch):
    """Stopped in its second task, the run leaves no output; --resume computes only that
    task, and its tables (CSV and Parquet) are those of the uninterrupted run."""
    out = serial_out.parent / "resumed"
    original, calls = task_module._track_object, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(task_module, "_track_object", interrupted)
    assert _cli(out, batch=1) == EXIT_INTERRUPTED and not out.exists()
    calls.clear()
    assert main([*_arguments(out, batch=1), "--resume"]) == 0
    assert len(calls) == 1
    for name in ("results", "consistency", "detectability"):
        assert (out / f"{name}.csv").read_text() == (serial_out / f"{name}.csv").read_text()
        assert list(read_rows(out / f"{name}.parquet")) == list(
            read_rows(serial_out / f"{name}.parquet")
        )


def test_every_pass_is_released_by_a_certified_pass_mechanism(serial_out, rows):
    """``pass_certificates``: per budget and designer, one design per pass of the
    objects (the rows' ``passes``), released through a :class:`PassMechanism`
    (``parameters.mechanisms``), and every release's certificate passed."""
    results = json.loads((serial_out / "results.json").read_text())
    assert results["parameters"]["mechanisms"] == {
        "none": "none (as measured)",
        "pass (logdet)": "PassMechanism",
        "pass (scaled)": "PassMechanism",
    }
    counts = results["pass_certificates"]
    assert list(counts) == [f"{e:g}" for e in EPSILONS]
    for level, designers in counts.items():
        passes = sum(int(r["passes"]) for r in rows if r["level"] == level)
        assert passes > 0
        assert designers == {d: {"designs": passes, "passed": passes} for d in ("logdet", "scaled")}


def test_the_window_starts_at_the_newest_epoch_near_the_median(catalogue, serial_out):
    """By default the window opens at the newest epoch within 3 days of the median epoch
    (:func:`~ssa_privacy.orbits.catalog.window_start`); the element sets more than 14 days from
    it are listed, each with its reason, and none of them is tracked."""
    parameters = json.loads((serial_out / "results.json").read_text())["parameters"]
    epochs = np.array([e.epoch_jd for e in catalogue])
    near = epochs[np.abs(epochs - np.median(epochs)) <= 3.0]
    assert parameters["start_jd"] == near.max()
    stale = [e for e in catalogue if abs(e.epoch_jd - near.max()) > 14.0]
    excluded = parameters["excluded_element_sets"]
    assert sorted(r["norad_id"] for r in excluded) == sorted(int(e.catalogue_number) for e in stale)
    assert all("beyond the staleness limit of 14 days" in r["reason"] for r in excluded)
    assert not {r["norad_id"] for r in excluded} & set(parameters["norad_ids"])


def test_per_measurement_designs_leak_more_at_larger_levels_and_over_the_day(serial_out):
    """per_measurement.csv: one row per object and per-measurement level; the day leaks at
    least its worst pass, the worst pass at least the median one, and a larger
    per-measurement epsilon (less noise, [LKC] (15)) leaks more over a pass and a day."""
    with open(serial_out / "per_measurement.csv") as stream:
        table = list(csv.DictReader(stream))
    assert len(table) == OBJECTS * len(MEASUREMENT_EPSILONS)
    by_object = {}
    for row in table:
        median, worst = float(row["epsilon_pass_median"]), float(row["epsilon_pass_max"])
        assert float(row["epsilon_day"]) >= worst - 1e-9 and worst >= median
        by_object.setdefault(row["norad_id"], []).append(row)
    for mine in by_object.values():
        assert [float(r["epsilon_measurement"]) for r in mine] == list(MEASUREMENT_EPSILONS)
        for key in ("epsilon_pass_median", "epsilon_pass_max", "epsilon_day"):
            values = [float(r[key]) for r in mine]
            assert values == sorted(values) and values[0] < values[-1]


@pytest.fixture(scope="module")
def batched_out(catalogue, tmp_path_factory):
    """The same run with both objects in one task."""
    out = tmp_path_factory.mktemp("ssa_catalog_batched") / "run"
    ssa_catalog.run(out, seed=SEED, progress=False, objects=OBJECTS, hours=HOURS, batch=2)
    return out


def test_the_rows_do_not_depend_on_the_batch(serial_out, batched_out):
    """A batch of two gives the numbers of two batches of one, to the last digit: every
    object is integrated on its own and draws from its own random streams, so its rows
    (results, consistency, detectability, NEES series) are the same whatever the batch.
    (When a batch was integrated as one stacked system, whose step follows its most
    demanding object, the RMSEs moved by up to 1e-6 relative and the NEES by 1e-3.)"""
    for name in ("results", "consistency", "detectability", "per_measurement"):
        assert (batched_out / f"{name}.csv").read_text() == (serial_out / f"{name}.csv").read_text()
    assert list(read_rows(batched_out / "nees_series.parquet")) == list(
        read_rows(serial_out / "nees_series.parquet")
    )


@pytest.fixture(scope="module")
def day_rows(catalogue, tmp_path_factory):
    """One object over a day budget of 12 nats, every day designer."""
    out = tmp_path_factory.mktemp("ssa_catalog_day") / "run"
    ssa_catalog.run(out, seed=SEED, progress=False, objects=1, hours=3.0, day_epsilons=[12.0])
    with open(out / "day_budgets.csv") as stream:
        return list(csv.DictReader(stream))


@pytest.mark.slow
def test_every_day_design_meets_its_budget_and_the_day_designer_keeps_a_candidate(day_rows):
    """Each designer's achieved day epsilon lies within 1e-9 nats below the budget with a
    passing certificate; the "day" designer keeps the trace or the pass design, and when
    it keeps the pass design its row is the "pass" row's (the same releases, one filter)."""
    assert sorted(r["designer"] for r in day_rows) == ["day", "measurement", "pass"]
    for row in day_rows:
        assert row["feasible"] == "True" and row["certificate_passed"] == "True"
        assert 0.0 <= 12.0 - float(row["epsilon_day_achieved"]) <= 1e-9
    by_designer = {r["designer"]: r for r in day_rows}
    day, common = by_designer["day"], by_designer["pass"]
    assert day["chosen"] in ("trace", "pass")
    if day["chosen"] == "pass":
        for key in ("position_rmse_km", "nees_mean", "epsilon_day_achieved"):
            assert day[key] == common[key]


# --- options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, words",
    [
        ({"epsilons": (8.0,)}, "epsilon"),
        ({"epsilons": (12.0, floor(6))}, "epsilon"),
        ({"measurement_epsilons": (floor(4),)}, "epsilon"),
        ({"convention": "strict"}, "convention"),
        ({"hours": 1.0, "dt": 7200.0}, "dt"),
        ({"hours": 0.05}, r"hours \(window.hours\): .* no evaluation time"),
    ],
)
def test_bad_options_are_refused_before_any_work(tmp_path, options, words):
    """A pass budget at or below 8.41 nats (six directions, [LKC] (9)), a per-measurement
    level at or below 6.64 (four rows), an unknown convention, a step longer than the
    window, a window with no evaluation time (3 min: the first is at 5 min): ValueError
    naming the argument, and no output."""
    with pytest.raises(ValueError, match=words):
        ssa_catalog.run(
            tmp_path / "out", progress=False, **({"objects": 1, "hours": 1.0} | options)
        )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "options, words",
    [
        ({"regime": "geo", "objects": 596}, "596 objects are more than the 595 GEO objects"),
        ({"regime": "heo"}, r"^--regime: must be one of"),
    ],
)
def test_bad_selections_are_refused(catalogue, tmp_path, options, words):
    with pytest.raises(ValueError, match=words):
        ssa_catalog.run(tmp_path / "out", progress=False, hours=1.0, **options)


def test_the_cli_reports_an_infeasible_budget_in_one_line(tmp_path, capsys):
    arguments = ["run", "ssa-catalog", "--out", str(tmp_path / "out"), "--epsilons", "8"]
    assert main([*arguments, "--workers", "1", "--no-progress"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "ssa-privacy: error: --epsilons: 8 nats is infeasible"
    )
    assert "infeasible" in lines[0]


def test_objects_all_takes_every_object_of_the_regime(catalogue):
    """``--objects all``: the scenario samples nothing, and the objects tracked and those
    left out (repeated or stale element sets) together are every MEO catalogue number."""
    spec = CatalogOptions(objects="all", regime="meo").study()
    assert (spec.objects.regime, spec.objects.sample) == ("meo", None)
    _, sample, excluded = ssa_catalog.choose_objects(catalogue, "meo", spec.objects.sample, 0)
    tracked = {int(e.catalogue_number) for e in sample}
    left_out = {r["norad_id"] for r in excluded}
    meo = {int(e.catalogue_number) for e in catalogue if regime(e) == "meo"}
    assert tracked <= meo and meo - tracked <= left_out and len(tracked) > 150


@pytest.mark.parametrize("text", ["some", "0", "-3"])
def test_objects_is_a_positive_count_or_all(text, capsys):
    assert main(["run", "ssa-catalog", "--objects", text]) == 2
    assert "positive integer or 'all'" in capsys.readouterr().err
