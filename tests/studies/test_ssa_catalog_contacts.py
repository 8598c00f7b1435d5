"""The ssa-catalog rows say what they are: an object's contacts, and where it is judged.

Each ``results.csv`` row carries the object's ``first_contact_utc`` (its first
measurement) and ``status`` (``tracked`` with a contact, ``no contact`` without); the
RMSE and NEES are taken at the evaluation times (every 300 s over the window's second
half) at or after the end of its first contact, and an object without a contact has none
and is counted apart in every summary. Checked on synthetic passes (the rule, the column
scheme of every designer subset, the summaries) and on a run of one radar (TIRA) over
2 h with a GEO object it sees, a GEO object over the Pacific it cannot see, and a LEO
object it first sees 78 minutes in, whose RMSE is recomputed from its written estimates
(OEM) and its truth (rebuilt from the seed scheme) over the times the rule gives.
"""

import csv
import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pytest

from ssa_privacy._internal.random import random_generator
from ssa_privacy.engine.data import data_file
from ssa_privacy.engine.tables import read_rows
from ssa_privacy.orbits.catalog import read_element_sets, sgp4_states, utc_text
from ssa_privacy.orbits.oem import read_oem
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE, iss_element_set
from ssa_privacy.sensors.streams import Pass
from ssa_privacy.sensors.tdm import read_tdm
from ssa_privacy.studies import ssa_catalog
from ssa_privacy.studies.scenario import default_scenario
from ssa_privacy.studies.scenario.writing import write_scenario
from ssa_privacy.studies.ssa_catalog.rows import (
    NO_CONTACT,
    RESULTS_COLUMNS,
    TRACKED,
    Level,
    contact_columns,
    evaluation_indices,
    level_rows,
)
from ssa_privacy.studies.ssa_catalog.summaries import level_summaries
from ssa_privacy.studies.ssa_catalog.task import TRUTH_TOLERANCE

#: Seen by TIRA all the time (7.3 W), over the Pacific (152 E), first seen at 78 min.
SEEN_GEO, UNSEEN_GEO, LATE_LEO = 37816, 29495, 29522
START_JD = 2461120.0
DATA = pytest.mark.data(ACTIVE_CATALOGUE_FILE)


def _scenario(times, step=300.0):
    """What the rows read of a Scenario: the grid and the second half's evaluation times."""
    index = np.arange(len(times))
    every = round(step / (times[1] - times[0]))
    evaluate = index[(times >= times[-1] / 2) & (index % every == 0)]
    return SimpleNamespace(times=times, evaluate=evaluate, start_jd=START_JD)


def _pass(station, first, last):
    count = last - first + 1
    return Pass(station, np.arange(first, last + 1), np.zeros((count, 4, 6)), np.eye(4))


GRID = _scenario(np.arange(0.0, 7200.0 + 1, 60.0))  # 2 h at 60 s: evaluation 60, 65, .. min


@pytest.mark.parametrize(
    "found, first, end",
    [
        ([], None, None),
        ([_pass(0, 78, 88)], 78, 88),
        ([_pass(1, 100, 104), _pass(0, 78, 88)], 78, 88),  # listed sensor by sensor
        ([_pass(0, 80, 90), _pass(1, 85, 95)], 80, 95),  # one contact of two passes
        ([_pass(0, 10, 20), _pass(1, 70, 75)], 10, 20),  # the first contact ends early
        ([_pass(0, 117, 119)], 117, 119),  # ends after the last evaluation time
    ],
    ids=["none", "one", "second-sensor-first", "overlapping", "early", "too-late"],
)
def test_the_first_contact_and_the_times_the_filters_are_judged_at(found, first, end):
    """``first_contact_utc`` is the first measurement over all sensors (ISO 8601 UTC),
    ``status`` says whether there is one; the evaluation times are those of the second
    half at or after the last measurement of the first contact (overlapping passes of
    several sensors are one contact)."""
    columns = contact_columns(GRID, found)
    judged = evaluation_indices(GRID, found)
    if first is None:
        assert columns == {"first_contact_utc": None, "status": NO_CONTACT}
        assert judged.size == 0
        return
    assert columns == {
        "first_contact_utc": utc_text(START_JD + 60.0 * first / 86400.0),
        "status": TRACKED,
    }
    assert judged.tolist() == [k for k in range(60, 121, 5) if k >= end]


@pytest.mark.parametrize(
    "designers", [("logdet",), ("scaled",), ("logdet", "scaled")], ids=["logdet", "scaled", "both"]
)
def test_every_row_has_every_column_and_a_designer_not_run_leaves_its_columns_empty(designers):
    """Unsuffixed columns: the log-det designer (and the level without privacy);
    ``_scaled``: the scaled designer. Each row has every column of results.csv, those of
    a designer not run (and the ``_scaled`` ones of ``none``) None."""
    levels = [Level("none", None, None, account=(30.0, 50.0))]
    levels += [Level("14", 14.0, d, account=(14.0, 20.0)) for d in designers]
    count = len(levels)
    tracking = ([0.1] * count, [0.2] * count, [0] * count, [5.0] * count, [1.0] * count)
    found = [_pass(0, 70, 80)]
    rows = level_rows(iss_element_set(), found, levels, tracking, contact_columns(GRID, found))
    assert [r["level"] for r in rows] == ["none", "14"]
    for row in rows:
        assert list(row) == [name for name, _ in RESULTS_COLUMNS]
        assert row["status"] == TRACKED and row["passes"] == 1 and row["measurements"] == 11
    none, private = rows
    assert none["position_rmse_km"] == 0.1 and none["position_rmse_km_scaled"] is None
    assert (private["position_rmse_km"] is None) == ("logdet" not in designers)
    assert (private["position_rmse_km_scaled"] is None) == ("scaled" not in designers)
    assert (private["epsilon_day_achieved"] is None) == ("logdet" not in designers)


def _row(norad, level, status, rmse, scaled=None):
    return {
        "norad_id": norad,
        "regime": "geo",
        "level": level,
        "status": status,
        "epsilon_pass_design": np.inf if level == "none" else 14.0,
        "epsilon_pass_achieved": 0.0 if status == NO_CONTACT else 13.0,
        "epsilon_day_achieved": 0.0 if status == NO_CONTACT else 20.0,
        "position_rmse_km": rmse,
        "velocity_rmse_m_s": rmse,
        "updates_rejected": 0,
        **{f"{k}_scaled": None for k in ("epsilon_pass_achieved", "position_rmse_km")},
    }


def test_objects_without_a_contact_are_counted_apart_in_the_summaries():
    """Medians, fractions and maxima are over the objects with a contact; the others are
    counted in ``objects_without_contact``; a designer not run (its columns empty in
    every row) has no summary."""
    rows = [
        _row(1, "14", TRACKED, 0.5),
        _row(2, "14", TRACKED, 3.0),
        _row(3, "14", NO_CONTACT, None),
        _row(4, "14", TRACKED, None),  # first contact after the last evaluation time
    ]
    summary = level_summaries(rows)["14"]
    assert summary["objects"] == 4 and summary["objects_without_contact"] == 1
    assert "scaled" not in summary
    mine = summary["logdet"]
    assert mine["objects_with_rmse"] == 2
    assert mine["position_rmse_km_median"] == pytest.approx(1.75)
    assert mine["fraction_tracked_within_1_km"] == 0.5
    assert mine["epsilon_day_achieved_median"] == 20.0  # not pulled down by the unseen 0


# --- a run ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """TIRA alone over 2 h at 60 s, the three objects, one budget, log-det only, with
    --ccsds."""
    folder = tmp_path_factory.mktemp("contacts")
    spec = default_scenario()
    spec = dataclasses.replace(
        spec,
        window=dataclasses.replace(spec.window, hours=2.0, step_s=60.0),
        objects=dataclasses.replace(
            spec.objects, norad_ids=(SEEN_GEO, UNSEEN_GEO, LATE_LEO), regime=None, sample=None
        ),
        privacy=dataclasses.replace(
            spec.privacy, pass_epsilons=(14.0,), measurement_epsilons=(12.0,), designers=("logdet",)
        ),
        sensors=tuple(s for s in spec.sensors if s.name == "TIRA"),
    )
    scenario = write_scenario(spec, folder / "tira.toml")
    out = folder / "run"
    summary = ssa_catalog.run(out, seed=3, progress=False, scenario=str(scenario), ccsds=True)
    with open(out / "results.csv") as stream:
        rows = list(csv.DictReader(stream))
    return SimpleNamespace(out=out, summary=summary, rows=rows)


@DATA
def test_an_object_no_sensor_sees_has_no_contact_and_no_rmse(run):
    """The Pacific GEO object: ``no contact`` at every level, no first contact, no
    measurement, nothing leaked, and empty RMSE, NEES and NIS; in consistency.csv and
    nees_series.parquet too."""
    unseen = [r for r in run.rows if int(r["norad_id"]) == UNSEEN_GEO]
    assert [r["level"] for r in unseen] == ["none", "14"]
    for row in unseen:
        assert (row["status"], row["first_contact_utc"], row["passes"]) == (NO_CONTACT, "", "0")
        assert float(row["epsilon_day_achieved"]) == 0.0
        for key in ("position_rmse_km", "velocity_rmse_m_s", "nees_mean", "nis_per_dof"):
            assert row[key] == "", key
    for row in read_rows(run.out / "consistency.parquet"):
        assert (row["norad_id"] == UNSEEN_GEO) == (row["status"] == NO_CONTACT)
        assert (row["nees_mean"] is None) == (row["norad_id"] == UNSEEN_GEO)
    for row in read_rows(run.out / "nees_series.parquet"):
        assert all(v is None for v in row["nees"]) == (row["norad_id"] == UNSEEN_GEO)
    seen = [r for r in run.rows if int(r["norad_id"]) != UNSEEN_GEO]
    assert all(r["status"] == TRACKED and r["position_rmse_km"] != "" for r in seen)


@DATA
def test_the_summaries_count_the_unseen_object_apart(run):
    results = json.loads((run.out / "results.json").read_text())
    assert run.summary["objects"] == 3 and run.summary["objects_without_contact"] == 1
    for level, summary in results["summaries"].items():
        name = "none" if level == "none" else "logdet"
        assert summary["objects_without_contact"] == 1, level
        assert summary[name]["objects_with_rmse"] == 2
        rmse = sorted(
            float(r["position_rmse_km"])
            for r in run.rows
            if r["level"] == level and r["position_rmse_km"]
        )
        assert summary[name]["position_rmse_km_median"] == pytest.approx(np.median(rmse))
        assert results["consistency"][level][name]["objects"] == 2
        assert results["consistency"][level][name]["objects_without_contact"] == 1
    assert results["summaries_by_regime"]["geo"]["14"]["objects_without_contact"] == 1
    assert results["summaries_by_regime"]["leo"]["14"]["objects_without_contact"] == 0


@DATA
def test_the_rmse_is_taken_from_the_end_of_the_first_contact(run):
    """The LEO object first seen 78 min in: its first contact (its first segment in
    measurements.tdm, one sensor) starts at ``first_contact_utc``; its RMSE at each level
    is that of its written estimates against its truth (the J2 propagation of SGP4's state
    plus the deviation drawn from ``default_rng([seed, norad_id, 0])``) over the
    evaluation times at or after the contact's last measurement, and the NEES series is
    empty exactly before it."""
    parameters = json.loads((run.out / "results.json").read_text())["parameters"]
    start_jd, step = parameters["start_jd"], parameters["dt"]
    segments = read_tdm(run.out / "ccsds" / "measurements.tdm")
    first = [s for s in segments if int(s.object_id) == LATE_LEO][0]
    begin = (first.epoch_jd - start_jd) * 86400.0 + first.times[0]
    end = (first.epoch_jd - start_jd) * 86400.0 + first.times[-1]
    assert 60.0 * 60.0 < begin < end < 2 * 3600.0  # in the second half: the case in point
    times = np.arange(0.0, 2 * 3600.0 + 1e-9, step)
    evaluation = times[(times >= 3600.0) & (np.round(times) % 300.0 == 0)]
    judged = evaluation[evaluation >= end - 1e-6]
    assert 0 < len(judged) < len(evaluation)

    catalogue = read_element_sets(data_file(ACTIVE_CATALOGUE_FILE))
    _, (element_set,), _ = ssa_catalog.choose_objects(
        catalogue, None, None, 3, norad_ids=[LATE_LEO]
    )
    state0 = sgp4_states([element_set], start_jd, times[[0, -1]])[0, 0]
    propagator = ssa_catalog.J2Propagator()
    nominal = propagator.propagate_with_transition(
        times, state0[None], rtol=TRUTH_TOLERANCE, atol=TRUTH_TOLERANCE
    )[0][0]
    prior = manoeuvre_prior(nominal[0], 2.0 * np.pi / element_set.period)
    x0 = np.linalg.cholesky(prior) @ random_generator((3, LATE_LEO, 0)).standard_normal(6)
    truth = propagator.propagate(times, nominal[0] + x0, TRUTH_TOLERANCE, TRUTH_TOLERANCE)

    def rmse(level, designer, at):
        """Position RMSE (km) of a filter's written estimates against the truth at ``at``."""
        ephemeris = read_oem(run.out / "ccsds" / "estimates" / f"{LATE_LEO}_{level}_{designer}.oem")
        offset = (ephemeris.epoch_jd - start_jd) * 86400.0
        rows = np.searchsorted(offset + np.asarray(ephemeris.times), at - 1e-6)
        errors = np.asarray(ephemeris.states)[rows] - truth[np.searchsorted(times, at - 1e-6)]
        return np.sqrt(np.mean(np.sum(errors[:, :3] ** 2, axis=1)))

    mine = {r["level"]: r for r in run.rows if int(r["norad_id"]) == LATE_LEO}
    assert mine["none"]["first_contact_utc"] == utc_text(start_jd + begin / 86400.0)
    for level, designer in (("none", "none"), ("14", "logdet")):
        expected = rmse(level, designer, judged)
        assert float(mine[level]["position_rmse_km"]) == pytest.approx(expected, rel=1e-9)
    # the rule matters here: before its first contact the filter holds the prior's
    # prediction, kilometres off, against tens of metres after it
    assert rmse("none", "none", evaluation) > 10 * rmse("none", "none", judged)
    for row in read_rows(run.out / "nees_series.parquet"):
        if row["norad_id"] == LATE_LEO:
            assert [v is None for v in row["nees"]] == list(evaluation < end - 1e-6)


@DATA
def test_the_figures_are_drawn_with_an_object_no_sensor_sees(run):
    """Every figure of the run is written (PNG and PDF) although one object has no contact
    and so no RMSE and no NEES."""
    for name in ("rmse_cdf", "rmse_vs_epsilon", "network_coverage", "consistency"):
        for suffix in ("png", "pdf"):
            assert (run.out / f"{name}.{suffix}").stat().st_size > 0, (name, suffix)
