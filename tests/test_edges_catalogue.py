"""Edges of the catalogue study a user can reach: catalogue content (outlying epochs,
repeated catalogue numbers, objects that no station sees), the window options, and the
inputs of the catalogue filter. Each case either runs as the study's rules say or fails
with an exception naming the argument, the option or the object at fault.

Element sets with edited epochs are real ones of the data folder's catalogue (or the
ISS set shipped with ``sgp4``) with the epoch field rewritten and the checksum refreshed.
"""

import json

import numpy as np
import pytest
from sgp4.api import jday
from sgp4.io import fix_checksum

from ssa_privacy.cli import main
from ssa_privacy.estimation.contacts import ContactMeasurements
from ssa_privacy.estimation.ekf import process_noise, track_contacts
from ssa_privacy.estimation.tracking import TrackingModel
from ssa_privacy.orbits.catalog import (
    newest_element_sets,
    parse_utc,
    stale_element_sets,
    utc_text,
    window_start,
)
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE, ElementSet, iss_element_set
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.studies import ssa_catalog


def with_epoch(element_set, year, day, number=None):
    """``element_set`` with its epoch set to (two-digit ``year``, fractional ``day``) and,
    if given, its catalogue number replaced (both lines), checksums refreshed."""
    line1, line2 = element_set.line1, element_set.line2
    if number is not None:
        line1 = line1[:2] + f"{number:05d}" + line1[7:]
        line2 = line2[:2] + f"{number:05d}" + line2[7:]
    line1 = line1[:18] + f"{year:02d}{day:012.8f}" + line1[32:]
    return ElementSet(element_set.name, fix_checksum(line1), fix_checksum(line2))


def shifted(element_set, days, number=None):
    """``element_set`` with its epoch moved by ``days`` (same year for the shifts used)."""
    year, day = int(element_set.line1[18:20]), float(element_set.line1[20:32])
    return with_epoch(element_set, year, day + days, number)


#: The ISS element set of ``sgp4``, its epoch moved to 2020 day 100.25 (room both sides
#: within the year for the shifts below).
ISS = with_epoch(iss_element_set(), 20, 100.25)
ISS_JD = ISS.epoch_jd


# --- the window start -------------------------------------------------------------------


@pytest.mark.parametrize(
    "outlier",
    [(56, 100.5), (57, 4.8), (99, 365.0), (0, 1.0), (20, 1.0 + 30.0)],
    ids=["2056", "1957", "1999", "2000", "30 days after"],
)
def test_an_outlying_epoch_does_not_move_the_window(outlier):
    """The default start is the newest epoch within 3 days of the median epoch: seven
    element sets at the ISS epoch and up to 2 days after it, plus one outlier, give the
    newest of the seven whatever the outlier."""
    cluster = [shifted(ISS, days, 90000 + k) for k, days in enumerate(np.linspace(0, 2, 7))]
    outlier_set = with_epoch(ISS, *outlier, number=90100)
    start = window_start([*cluster, outlier_set])
    assert start == pytest.approx(ISS_JD + 2.0, abs=1e-8)


def test_a_catalogue_without_a_cluster_asks_for_the_start():
    sets = [with_epoch(ISS, 57, 4.8, 90001), with_epoch(ISS, 56, 100.0, 90002)]
    with pytest.raises(ValueError, match=r"catalogue: .*median epoch.*\(start\)"):
        window_start(sets)


@pytest.mark.parametrize(
    "text",
    ["", "yesterday", "2026-13-01", "2026-03-20T25:00", "20-03-2026", "2026-03-20 14:12 UTC"],
)
def test_an_unreadable_start_is_refused_naming_it(text):
    with pytest.raises(ValueError, match=r"^start must be a UTC date and time in ISO 8601"):
        parse_utc(text)


@pytest.mark.parametrize("value", [20260320, None, 2461120.5])
def test_a_start_that_is_not_text_is_refused_naming_it(value):
    with pytest.raises(TypeError, match=r"^start must be an ISO 8601 date and time \(str\)"):
        parse_utc(value)


@pytest.mark.parametrize(
    "text, parts",
    [
        ("2026-03-20T14:12:03", (2026, 3, 20, 14, 12, 3.0)),
        ("2026-03-20T14:12:03Z", (2026, 3, 20, 14, 12, 3.0)),
        ("2026-03-20T16:12:03+02:00", (2026, 3, 20, 14, 12, 3.0)),
        ("2026-03-19T23:30:00-01:00", (2026, 3, 20, 0, 30, 0.0)),
        ("2026-03-20", (2026, 3, 20, 0, 0, 0.0)),
    ],
)
def test_a_start_is_read_as_utc(text, parts):
    """ISO 8601 with or without an offset: the Julian date of the UTC instant (sgp4's
    ``jday``), and :func:`utc_text` gives it back to the second."""
    assert parse_utc(text) == pytest.approx(sum(jday(*parts)), abs=1e-9)
    assert utc_text(parse_utc(text)) == "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02.0f}Z".format(
        *parts
    )


# --- staleness and repeated numbers -----------------------------------------------------


@pytest.mark.parametrize(
    "days, limit, stale",
    [
        (13.9, 14.0, False),
        (-13.9, 14.0, False),
        (14.1, 14.0, True),
        (-14.1, 14.0, True),
        (0.0, 0.5, False),
        (-0.6, 0.5, True),
        (40.0, 60.0, False),
    ],
)
def test_an_element_set_is_stale_beyond_the_limit_either_side(days, limit, stale):
    """Left out iff |epoch - start| > limit, with the reason naming the side and the limit."""
    found = stale_element_sets([shifted(ISS, days)], ISS_JD, limit)
    assert len(found) == int(stale)
    if stale:
        side = "after" if days > 0 else "before"  # the epoch, against the start ISS_JD
        assert found[0]["norad_id"] == 25544
        assert side in found[0]["reason"] and f"limit of {limit:g} days" in found[0]["reason"]


@pytest.mark.parametrize("limit", [-1.0, 0.0, np.nan, np.inf, -np.inf])
def test_a_bad_staleness_limit_is_refused_naming_it(limit):
    with pytest.raises(ValueError, match=r"^staleness_days must be a finite positive number"):
        stale_element_sets([ISS], ISS_JD, limit)


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 2, 0)])
def test_a_repeated_catalogue_number_keeps_the_newest_element_set(order):
    """Three element sets of the ISS (epochs +0, +1, +2 days) in any order and another
    object: the +2 day set and the other object are kept, in catalogue order; the two
    older ISS sets are listed as repeated, naming the kept epoch."""
    copies = [shifted(ISS, days) for days in (0.0, 1.0, 2.0)]
    other = shifted(ISS, 0.5, 90001)
    catalogue = [copies[i] for i in order] + [other]
    kept, repeated = newest_element_sets(catalogue)
    assert kept == [c for c in catalogue if c in (copies[2], other)]
    assert [r["norad_id"] for r in repeated] == [25544, 25544]
    newest = utc_text(copies[2].epoch_jd)
    assert all(
        f"repeated catalogue number: the element set of epoch {newest}" in r["reason"]
        for r in repeated
    )


@pytest.mark.parametrize("mistyped", [(56, 100.5), (57, 4.8)], ids=["2056", "1957"])
def test_a_mistyped_copy_does_not_hide_a_usable_element_set(mistyped):
    """The ISS twice, once with its epoch mistyped as decades away: with a window start
    the usable set is kept, however new the mistyped one; the mistyped copy is listed as
    repeated, naming the kept epoch."""
    copies = [with_epoch(ISS, *mistyped), ISS]
    kept, repeated = newest_element_sets(copies, ISS_JD, 14.0)
    assert kept == [ISS]
    assert repeated[0]["epoch_utc"] == utc_text(copies[0].epoch_jd)
    assert utc_text(ISS_JD) in repeated[0]["reason"]


def test_choosing_objects_lists_every_left_out_set():
    """2056, 1957 and two repeated numbers (one a mistyped 2056 copy) among seven: the
    sample is the three usable sets, the four others are listed with their reasons."""
    cluster = [shifted(ISS, days, 90000 + k) for k, days in enumerate((0.0, 0.5, 1.0))]
    catalogue = [
        *cluster,
        with_epoch(ISS, 56, 100.5, 90100),
        with_epoch(ISS, 57, 4.8, 90101),
        shifted(ISS, -0.5, 90000),
        with_epoch(ISS, 56, 1.0, 90001),
    ]
    start, sample, excluded = ssa_catalog.choose_objects(catalogue, "all", 5, seed=0)
    assert start == pytest.approx(cluster[-1].epoch_jd, abs=1e-9)
    assert sample == cluster
    reasons = {r["norad_id"]: r["reason"] for r in excluded}
    assert set(reasons) == {90000, 90001, 90100, 90101}
    assert reasons[90000].startswith("repeated catalogue number")
    assert reasons[90001].startswith("repeated catalogue number")
    assert "after the window start" in reasons[90100]
    assert "before the window start" in reasons[90101]
    assert all(r["sampled"] for r in excluded)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"objects": 3}, r"^objects must be at most the 2 objects of the catalogue, got 3"),
        ({"objects": 3, "staleness_days": 1.0}, r"^objects must be at most the 2 objects"),
        ({"start": "2030-01-01"}, r"^every sampled element set .*staleness_days = 14 days"),
        ({"start": "2026-02-30"}, r"^start must be a UTC date and time"),
        ({"staleness_days": -3.0}, r"^staleness_days must be a finite positive number"),
        (
            {"start": "2020-04-12", "staleness_days": 0.1},
            r"^every sampled element set .*staleness_days = 0.1 days .* 2020-04-12T00:00:00Z",
        ),
    ],
)
def test_a_bad_choice_of_objects_or_window_is_refused_naming_it(options, message):
    with pytest.raises(ValueError, match=message):
        options = {"objects": 2} | options
        ssa_catalog.choose_objects([ISS, shifted(ISS, 1.0, 90001)], "all", seed=0, **options)


# --- the command line -------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["--start", "soon"], "argument --start: start must be a UTC date and time"),
        (["--start", "2026-03-32"], "argument --start: start must be a UTC date and time"),
        (["--staleness-days", "-1"], "argument --staleness-days: expected a finite number > 0"),
        (["--staleness-days", "nan"], "argument --staleness-days:"),
    ],
)
def test_the_cli_refuses_a_bad_window_option_in_one_line(tmp_path, capsys, arguments, words):
    command = ["run", "ssa-catalog", "--out", str(tmp_path / "out"), *arguments]
    assert main([*command, "--workers", "1", "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]
    assert not (tmp_path / "out").exists()


# --- the filter's inputs ----------------------------------------------------------------


@pytest.mark.parametrize(
    "dt, psd, name",
    [
        (-1.0, 1e-14, "dt"),
        (-1e-300, 1e-14, "dt"),
        (np.nan, 1e-14, "dt"),
        (np.inf, 1e-14, "dt"),
        (30.0, -1e-14, "psd"),
        (30.0, np.nan, "psd"),
        (30.0, np.inf, "psd"),
    ],
)
def test_process_noise_refuses_a_negative_or_non_finite_step_or_psd(dt, psd, name):
    """A covariance needs dt >= 0 and q >= 0, both finite: ValueError naming which."""
    with pytest.raises(ValueError, match=rf"^{name} must be a finite non-negative number"):
        process_noise(dt, psd)


@pytest.mark.parametrize("dt, psd, name", [("30", 1e-14, "dt"), (30.0, None, "psd")])
def test_process_noise_refuses_a_non_number_naming_it(dt, psd, name):
    with pytest.raises(TypeError, match=rf"^{name} must be a real number"):
        process_noise(dt, psd)


@pytest.mark.parametrize("dt", [0.0, 1e-3, 60.0, 86400.0])
def test_process_noise_is_positive_semidefinite_and_zero_without_time(dt):
    """q [[dt^3/3, dt^2/2], [dt^2/2, dt]] (x) I has determinant q^2 dt^4 / 12 per axis
    pair: positive semi-definite, and zero at dt = 0."""
    Q = process_noise(dt, 2.0)
    eigenvalues = np.linalg.eigvalsh(Q)
    assert eigenvalues.min() >= -1e-12 * max(1.0, eigenvalues.max())
    block = Q[np.ix_([0, 3], [0, 3])]
    assert np.linalg.det(block) == pytest.approx(4.0 * dt**4 / 12.0, rel=1e-9, abs=1e-300)


@pytest.fixture(scope="module")
def iss_window():
    """The ISS's SGP4 state at its epoch, its prior and a 20-minute grid at 60 s."""
    times = np.arange(0.0, 1201.0, 60.0)
    return {
        "propagator": J2Propagator(),
        "earth": EarthRotation(ISS.gmst_epoch),
        "stations": radar_network(),
        "times": times,
        "x0": ISS.state_at_epoch(),
        "P0": np.diag([1e-2] * 3 + [1e-8] * 3),
    }


def _track(window, contacts=(), evaluate=(0, 10, 20), **options):
    w = window
    return track_contacts(
        TrackingModel(w["propagator"], w["stations"], w["earth"], w["times"]),
        w["x0"],
        w["P0"],
        list(contacts),
        np.asarray(evaluate),
        **options,
    )


@pytest.mark.parametrize(
    "evaluate, words",
    [
        ([0, 21], "evaluate must index the time grid of 21 epochs (0 to 20), got 21"),
        ([0, 10**6], "evaluate must index the time grid of 21 epochs"),
        ([-1, 3], "evaluate must be an integer >= 0, got -1"),
        ([0.5, 3], "evaluate must be an integer >= 0, got 0.5"),
        ([0, np.nan], "evaluate must be an integer >= 0, got nan"),
        ([5, 3], "evaluate must be strictly increasing"),
        ([3, 3], "evaluate must be strictly increasing"),
        ([[0, 1], [2, 3]], "evaluate must be one-dimensional"),
    ],
)
def test_evaluation_indices_off_the_grid_are_refused(iss_window, evaluate, words):
    """Before any propagation: an index beyond the grid would read memory never written."""
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        _track(iss_window, evaluate=evaluate, filters=1)


def _scaled_velocity(factor):
    state = ISS.state_at_epoch()
    return np.concatenate([state[:3], factor * state[3:]])


@pytest.mark.parametrize(
    "x0, words",
    [
        (np.array([3000.0, 0.0, 0.0, 0.0, 7.0, 0.0]), r"^x0: position radius 3000.0 km is below"),
        (np.array([0.0, 0.0, 0.0, 0.0, 7.0, 0.0]), r"^x0: position radius 0.0 km is below"),
        (_scaled_velocity(1.5), r"^x0: hyperbolic orbit"),
        (_scaled_velocity(0.5), r"^x0: perigee altitude .* km is below 80 km"),
        (np.array([7000.0, 0.0, 0.0, 0.0, np.nan, 0.0]), r"^x0: entries are not finite"),
        (np.zeros(5), r"^x0 must have shape \(6,\) or \(N, 6\), got \(5,\)"),
        (np.tile(ISS.state_at_epoch(), (2, 1)), r"^x0 must be one state of shape \(6,\)"),
    ],
)
def test_an_initial_state_the_filter_cannot_propagate_is_refused(iss_window, x0, words):
    """Below the surface, on an escape orbit, re-entering (perigee under 80 km), not
    finite or not one state: ValueError naming x0 and the reason, before any work."""
    with pytest.raises(ValueError, match=words):
        _track({**iss_window, "x0": x0}, filters=1)


@pytest.mark.parametrize(
    "P0, words",
    [
        (np.eye(5), r"^P0 has shape \(5, 5\), expected \(6, 6\)"),
        (np.full((6, 6), np.nan), r"^P0 "),
        (np.ones(6), r"^P0 "),
    ],
)
def test_a_malformed_initial_covariance_is_refused_naming_it(iss_window, P0, words):
    with pytest.raises(ValueError, match=words):
        _track({**iss_window, "P0": P0}, filters=1)


def _contact(indices, filters):
    M = 4 * len(indices)
    return ContactMeasurements(
        np.zeros(len(indices), dtype=int),
        np.asarray(indices),
        np.zeros((filters, M)),
        np.tile(np.eye(M), (filters, 1, 1)),
        np.ones(M),
        np.zeros(M),
    )


@pytest.mark.parametrize(
    "contacts, filters, words",
    [
        ([], None, "filters must be given when there are no contacts"),
        ([], 0, "filters must be a positive integer, got 0"),
        ([], 2.5, "filters must be a positive integer, got 2.5"),
        ([_contact([3, 4], 2)], 3, "contacts must hold the releases of filters = 3"),
        ([_contact([3, 4], 2), _contact([8], 3)], None, "contacts must hold the releases"),
        ([_contact([3, 25], 1)], 1, r"contacts\[0\].indices must index the time grid"),
        ([_contact([5, 6], 1), _contact([6, 7], 1)], 1, r"contacts must be in time order"),
    ],
)
def test_inconsistent_filters_or_contacts_are_refused_naming_them(
    iss_window, contacts, filters, words
):
    with pytest.raises(ValueError, match=words):
        _track(iss_window, contacts, filters=filters)


@pytest.mark.parametrize("filters", [1, 3, 7])
def test_an_object_without_contacts_is_tracked_by_prediction_alone(iss_window, filters):
    """No contact: every filter's estimate at the evaluation times is the J2 prediction
    of the initial estimate, and nothing is rejected. Integrated as one batch of F copies,
    the steps differ from those of one copy: agreement within 10 times the integration
    tolerance (1e-9 relative), not bit for bit."""
    evaluate = [0, 7, 20]
    estimates, rejected = _track(iss_window, evaluate=evaluate, filters=filters)
    w = iss_window
    expected = w["propagator"].propagate_many(w["times"][evaluate], w["x0"][None], 1e-9, 1e-9)
    assert estimates.shape == (filters, len(evaluate), 6)
    np.testing.assert_allclose(estimates, np.repeat(expected, filters, axis=0), rtol=1e-8)
    assert rejected.tolist() == [0] * filters


# --- a study run on edited catalogue content --------------------------------------------


def _data_folder(folder, element_sets):
    folder.mkdir()
    text = "".join(f"{e.name}\n{e.line1}\n{e.line2}\n" for e in element_sets)
    (folder / ACTIVE_CATALOGUE_FILE).write_text(text)
    return folder


#: Real objects of the catalogue: CALSPHERE 1 (LEO, in view within the first hour),
#: OSCAR 7 (LEO) and TDRS 7 (GEO) that no radar of the network sees in that hour.
SEEN, UNSEEN = ("00900",), ("07530", "23613")
#: Real objects whose epochs are moved to 2056 and to 1957.
TO_2056, TO_1957 = "01512", "05398"


@pytest.fixture(scope="module")
def edited_run(catalogue, tmp_path_factory):
    """The five real element sets above, two of them dated 2056 and 1957, and a copy of
    CALSPHERE 1 a day older: a one-hour run over all of them from a data folder, from the
    window start of the whole catalogue (where the three are in view as stated)."""
    by_number = {e.catalogue_number: e for e in catalogue}
    real = [by_number[n] for n in SEEN + UNSEEN]
    edited = [
        with_epoch(by_number[TO_2056], 56, 100.5),
        with_epoch(by_number[TO_1957], 57, 4.8),
        shifted(real[0], -1.0),
    ]
    start = utc_text(window_start(catalogue))  # the study's default on the whole catalogue
    folder = tmp_path_factory.mktemp("edited")
    data = _data_folder(folder / "data", [*real, *edited])
    out = folder / "out"
    ssa_catalog.run(
        out,
        progress=False,
        regime="all",
        objects=5,
        hours=1.0,
        dt=60.0,
        epsilons=(14.0,),
        measurement_epsilons=(12.0,),
        data=data,
        start=start,
    )
    return json.loads((out / "results.json").read_text())


def test_the_run_tracks_the_others_and_lists_the_three(edited_run):
    """The 2056 and 1957 sets are stale (beyond 14 days of the window start), the older
    CALSPHERE 1 is a repeated number: all three listed with the reason; the three real
    objects are tracked, in catalogue order."""
    parameters = edited_run["parameters"]
    assert parameters["norad_ids"] == [int(n) for n in SEEN + UNSEEN]
    reasons = {r["norad_id"]: r["reason"] for r in parameters["excluded_element_sets"]}
    assert set(reasons) == {int(TO_2056), int(TO_1957), int(SEEN[0])}
    assert "after the window start" in reasons[int(TO_2056)]
    assert "before the window start" in reasons[int(TO_1957)]
    assert reasons[int(SEEN[0])].startswith("repeated catalogue number")
    assert parameters["staleness_days"] == 14.0 and parameters["start_rule"] == "given"


def test_objects_without_a_contact_say_so_and_have_no_rmse(edited_run):
    """OSCAR 7 (LEO) and TDRS 7 (GEO): rows at every level with ``status = no contact``,
    no first contact, no pass, no measurement, nothing leaked, and no RMSE or NEES (a
    prediction from the prior says nothing of the tracking); counted apart in the
    summaries. CALSPHERE 1 has passes and an RMSE."""
    rows = edited_run["results"]
    for number in UNSEEN:
        mine = [r for r in rows if r["norad_id"] == int(number)]
        assert [r["level"] for r in mine] == ["none", "14"]
        for row in mine:
            assert (row["status"], row["first_contact_utc"]) == ("no contact", None)
            assert row["passes"] == row["measurements"] == 0
            assert row["epsilon_pass_achieved"] == row["epsilon_day_achieved"] == 0.0
            for key in ("position_rmse_km", "velocity_rmse_m_s", "nees_mean"):
                assert row[key] is None and row[f"{key}_scaled"] is None, key
    seen = [r for r in rows if r["norad_id"] == int(SEEN[0])]
    assert all(r["passes"] >= 1 and r["status"] == "tracked" for r in seen)
    assert all(r["position_rmse_km"] is not None for r in seen)
    for summary in edited_run["summaries"].values():
        assert summary["objects"] == 3 and summary["objects_without_contact"] == 2


def test_every_pass_design_is_counted_and_certified(edited_run):
    """``pass_certificates``: per designer at the one budget, as many designs as the
    tracked objects' passes, every certificate passed."""
    passes = sum(r["passes"] for r in edited_run["results"] if r["level"] == "14")
    counts = edited_run["pass_certificates"]
    assert counts == {
        "14": {d: {"designs": passes, "passed": passes} for d in ("logdet", "scaled")}
    }
