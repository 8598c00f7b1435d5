"""Catalogue-scale privatized SSA: real element sets, a sensor network, pass-level privacy.

Scenario (:doc:`/studies/ssa-catalog`): a scenario file
(:mod:`ssa_privacy.studies.scenario`; the shipped one by default, the options of
:mod:`~ssa_privacy.studies.ssa_catalog.options` override it) names the element sets,
the objects, the window, the sensors, the Earth orientation, the privacy levels and the
filter. The shipped scenario draws 50 LEO objects, seeded, from the active catalogue
(``active_satellites_2026-03-19.tle`` in the data folder), each catalogue number once
(its newest element set), tracked for 24 h by the eight radars of
:mod:`ssa_privacy.sensors.networks`. The window opens at ``start`` (by default the
newest epoch among the element sets within 3 days of the median epoch,
:func:`~ssa_privacy.orbits.catalog.window_start`) and lasts ``hours``; a sampled object
whose epoch is further than ``staleness_days`` from the start is left out, and every
element set left out is listed with the reason. The nominal state of each object at the
start comes from SGP4, its nominal track and state transition from the J2 model (each
object integrated on its own, so that its numbers do not depend on ``batch``); an
object that no sensor sees in the window (``status = "no contact"``) is tracked by
prediction alone and has no RMSE or NEES.
What is private is the manoeuvre deviation x0 at the window start, under the
station-kept CW prior of the ssa-network study
(:func:`~ssa_privacy.orbits.relative_motion.manoeuvre_prior`); the truth is the J2
propagation of ``nominal + x0``. A radar measures (azimuth, elevation, range, range
rate), an optical sensor (right ascension, declination), every ``step_s`` seconds within
its field of regard; a stretch in view longer than the longest pass (20 min by default:
MEO and GEO objects) is cut into passes of that length on a common grid, so that the
sensors' passes align. With recorded measurements (a CCSDS TDM) the passes are the
recorded ones and there is no truth.

Privacy: every sensor privatizes each pass with the pass-level designers of
:mod:`ssa_privacy.privacy.pml.passes`, for each budget of ``epsilons`` plus the sensor's
offset (the whole pass is (epsilon, delta)-PML private about x0): the exact
minimum-trace stacked design (``"logdet"``, the study's mechanism) and, for comparison
at the same guarantee, the per-measurement design scaled to meet it (``"scaled"``). The
level ``"none"`` releases the sensor data as measured. With ``day_epsilons`` each object's
whole day is also designed for one day budget by the three day designers of
:mod:`~ssa_privacy.studies.ssa_catalog.day`. The fusion centre tracks each object at
every level with an extended Kalman filter started by batch least squares
(:mod:`ssa_privacy.estimation.ekf`); the RMSE and the NEES are taken against the truth
every ``EVALUATION_STEP`` seconds over the second half of the window, from the end of
the object's first contact on
(:func:`~ssa_privacy.studies.ssa_catalog.rows.evaluation_indices`), the NIS of the
updates against its chi-square band, and the detectability of a manoeuvre from each
level's releases by :mod:`~ssa_privacy.attacks.detectability`.

Work: one runner task per batch of ``batch`` objects
(:mod:`~ssa_privacy.studies.ssa_catalog.task`); each task returns only its table rows
(and, with ``--ccsds``, what the messages hold, :mod:`~ssa_privacy.studies.ssa_catalog.ccsds`),
and with a checkpoint folder each finished task is stored on disk. A worker holds one
batch's tracks (``hours * 3600 / step_s`` samples per object) and one contact's dense
noise covariances at a time: at most every sensor x one longest pass of measurements.
"""

import time
import warnings

import numpy as np

from ssa_privacy.engine.figures import save_figures
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.estimation.tracking import TrackingModel
from ssa_privacy.orbits.catalog import (
    STALENESS_DAYS,
    START_SPREAD_DAYS,
    newest_element_sets,
    parse_utc,
    read_element_sets,
    select_objects,
    sgp4_valid,
    stale_element_sets,
    utc_text,
    window_start,
)
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.sensors.earth_orientation import iers_table_version
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.tdm_passes import read_measurements
from ssa_privacy.studies.scenario.checks import LONGEST_PASS_MIN
from ssa_privacy.studies.scenario.files import file_record
from ssa_privacy.studies.scenario.overrides import check_objects, check_window
from ssa_privacy.studies.scenario.sections import EarthSpec, PrivacySpec
from ssa_privacy.studies.ssa_catalog import ccsds, figures, trust_figures
from ssa_privacy.studies.ssa_catalog.options import (
    SCENARIO_KEYS,
    CatalogOptions,
    add_arguments,
)
from ssa_privacy.studies.ssa_catalog.rows import NO_PRIVACY, SUFFIXES
from ssa_privacy.studies.ssa_catalog.summaries import (
    TRACKED_KM,
    certificate_summary,
    consistency_summary,
    day_summaries,
    detectability_summary,
    level_summaries,
    measurement_summaries,
    percentile,
    regime_summaries,
)
from ssa_privacy.studies.ssa_catalog.tables import CatalogTables, nees_by_filter
from ssa_privacy.studies.ssa_catalog.task import batches, catalog_task

__all__ = [
    "CatalogOptions",
    "DEFAULT_EPSILONS",
    "DEFAULT_MEASUREMENT_EPSILONS",
    "DESCRIPTION",
    "EVALUATION_STEP",
    "LONGEST_PASS_MINUTES",
    "SCENARIO_KEYS",
    "START_RULE",
    "Scenario",
    "TRACKED_KM",
    "USES_RUNNER",
    "add_arguments",
    "certificate_summary",
    "choose_objects",
    "earth_model",
    "level_summaries",
    "measurement_summaries",
    "run",
]

USES_RUNNER = True
DESCRIPTION = (
    "Catalogue-scale SSA: real element sets, 8 radars, pass-level PML designs, EKF tracking"
)

#: Pass-level budgets of the shipped scenario (nats): above the 8.41-nat floor of a pass
#: that sees all of x0.
DEFAULT_EPSILONS = PrivacySpec().pass_epsilons
#: Per-measurement levels whose pass and day epsilons are reported (ssa-network's range).
DEFAULT_MEASUREMENT_EPSILONS = PrivacySpec().measurement_epsilons
#: Spacing of the times at which the RMSE is taken (s), over the window's second half
#: (from the end of each object's first contact on).
EVALUATION_STEP = 300.0
#: The longest pass (min): a stretch in view beyond it (MEO and GEO objects are in view
#: for hours) is cut into passes of this length, each with its own budget.
LONGEST_PASS_MINUTES = LONGEST_PASS_MIN
#: How the window start is chosen when it is not given (``parameters.start_rule``).
START_RULE = (
    f"newest epoch among the element sets within {START_SPREAD_DAYS:g} days of the median epoch"
)


class Scenario:
    """What every task shares: time grid, network, Earth, levels (module docstring).

    Parameters
    ----------
    spec : SsaScenario
        The study's scenario.
    start_jd : float
        Julian date (UTC) of the window start.
    ccsds : bool
        Whether the tasks return what the CCSDS messages hold.

    Raises
    ------
    ValueError
        If the window has no evaluation time (shorter than the evaluation spacing).
    """

    def __init__(self, spec, start_jd, ccsds=False):
        window, privacy = spec.window, spec.privacy
        self.start_jd = float(start_jd)
        self.times = np.arange(0.0, window.hours * 3600.0 + 1e-9, window.step_s)
        step = max(1, round(EVALUATION_STEP / window.step_s))
        index = np.arange(len(self.times))
        self.evaluate = index[(self.times >= self.times[-1] / 2) & (index % step == 0)]
        if not len(self.evaluate):
            spacing = step * window.step_s
            raise ValueError(
                f"hours (window.hours): a window of {window.hours:g} h has no evaluation "
                f"time (every {spacing:g} s over its second half, at step_s = "
                f"{window.step_s:g} s): make it at least {spacing:g} s"
            )
        # The filters report at the evaluation times, or, for the OEMs, every step over the
        # window (a superset: more output times change the estimates in the last place).
        self.ephemeris = index[index % step == 0] if ccsds else self.evaluate
        self.earth, self.earth_orientation = earth_model(
            self.start_jd, spec.earth.orientation, window.hours / 24.0
        )
        self.stations = spec.build_sensors()
        self.epsilon_offsets = spec.epsilon_offsets
        self.propagator = J2Propagator()
        self.epsilons = tuple(sorted(privacy.pass_epsilons))
        self.per_measurement_epsilons = tuple(sorted(privacy.measurement_epsilons))
        self.day_epsilons = tuple(sorted(privacy.day_epsilons))
        self.designers = tuple(privacy.designers)
        self.delta, self.convention = privacy.delta, privacy.convention
        self.process_noise_psd = spec.filter.process_noise_psd
        #: The filters' model: J2, the network, the Earth, the grid and the process noise.
        self.tracking = TrackingModel(
            self.propagator, self.stations, self.earth, self.times, self.process_noise_psd
        )
        self.longest_pass = max(1, round(window.longest_pass_min * 60.0 / window.step_s))
        self.ccsds = ccsds
        #: The object whose detectability is checked against a brute-force Monte Carlo.
        self.check_object = None


def earth_model(start_jd, orientation, span_days=1.0):
    """The Earth's orientation for a window, and what it uses and neglects.

    Parameters
    ----------
    start_jd : float
        Julian date (UTC) of the window start.
    orientation : {"none", "iers", "iers-or-none"}
        UT1-UTC and polar motion neglected, from the offline IERS table, or from the
        table where it covers the window and neglected otherwise
        (:class:`~ssa_privacy.studies.scenario.EarthSpec`).
    span_days : float, optional
        Length of the window (days), over which the table must hold and UT1-UTC is
        taken linear; default 1.

    Returns
    -------
    earth : EarthRotation
        :meth:`~ssa_privacy.sensors.geodesy.EarthRotation.at_utc`.
    record : dict
        ``requested``, ``used`` (``"iers"`` or ``"none"``), ``table`` (the IERS table's
        version, or None), ``neglected`` (what the model leaves out and its measured size,
        or None) and, when ``"iers-or-none"`` falls back, ``reason``.

    Raises
    ------
    ScenarioError
        A :class:`ValueError` naming ``orientation``: another value, or ``"iers"`` for a
        window outside the IERS table (with the table's first and last date) or holding a
        leap second. The study checks this before it computes anything
        (:func:`~ssa_privacy.studies.scenario.check_window`).
    """
    used, reason = EarthSpec(orientation).model(start_jd, span_days)
    earth = EarthRotation.at_utc(start_jd, used, span_days)
    record = {"requested": orientation, "used": used, "table": None}
    if reason is not None:
        record["reason"] = reason
    if used == "iers":
        record["table"] = iers_table_version()
    record["neglected"] = earth.neglected()
    return earth, record


def choose_objects(
    catalogue,
    regime,
    objects,
    seed,
    start=None,
    staleness_days=STALENESS_DAYS,
    norad_ids=None,
):
    """The window start, the sampled objects to track and the element sets left out.

    Parameters
    ----------
    catalogue : sequence of ssa_privacy.orbits.tle.ElementSet
        The catalogue as read.
    regime : {"leo", "meo", "geo", "all"}
        Regime of the sample (ignored with ``norad_ids``).
    objects : int or None
        Sample size (:func:`~ssa_privacy.orbits.catalog.select_objects`); None takes every
        object of the regime.
    seed : int
        Seed of the sample.
    start : str, optional
        Window start, UTC in ISO 8601; default :func:`~ssa_privacy.orbits.catalog.window_start`
        of the catalogue.
    staleness_days : float
        Largest distance (days, either side) of a tracked element set's epoch from the
        window start.
    norad_ids : sequence of int, optional
        Exactly these objects, in this order, instead of a sample.

    Returns
    -------
    start_jd : float
        Julian date (UTC) of the window start.
    sample : list of ssa_privacy.orbits.tle.ElementSet
        The sampled element sets within ``staleness_days`` of the start.
    excluded : list of dict
        Every element set of the catalogue left out
        (:func:`~ssa_privacy.orbits.catalog.exclusion`): repeated catalogue numbers (the
        newest element set is kept, one within ``staleness_days`` of the start if there
        is one, :func:`~ssa_privacy.orbits.catalog.newest_element_sets`) and stale epochs;
        ``sampled`` says whether its catalogue number was drawn. The sample is drawn
        before the staleness screen, so that without repeated numbers it depends on the
        catalogue and the seed only, not on the window.

    Raises
    ------
    ValueError
        On a bad ``start`` (not ISO 8601), ``staleness_days`` (not a finite positive
        number), regime or size, a catalogue number of ``norad_ids`` not in the
        catalogue, or when every sampled element set is stale.
    """
    start_jd = window_start(catalogue) if start is None else parse_utc(start, "start")
    unique, repeated = newest_element_sets(catalogue, start_jd, staleness_days)
    stale = stale_element_sets(unique, start_jd, staleness_days)
    sample = _sample(unique, regime, objects, seed, norad_ids)
    drawn = {e.norad_id for e in sample}
    excluded = [{**r, "sampled": r["norad_id"] in drawn} for r in repeated + stale]
    return start_jd, _fresh(sample, stale, start_jd, staleness_days), excluded


def _sample(unique, regime, objects, seed, norad_ids):
    """The sampled element sets (:func:`choose_objects`): drawn, or ``norad_ids``."""
    if norad_ids is None:
        return select_objects(unique, regime, objects, seed)
    by_number = {e.norad_id: e for e in unique}
    missing = [n for n in norad_ids if n not in by_number]
    if missing:
        raise ValueError(f"norad_ids: not in the catalogue: {missing}")
    return [by_number[n] for n in norad_ids]


def _fresh(sample, stale, start_jd, staleness_days):
    """The sampled element sets that are not ``stale``; ValueError if none is."""
    left_out = {r["norad_id"] for r in stale}
    fresh = [e for e in sample if e.norad_id not in left_out]
    if not fresh:
        raise ValueError(
            f"every sampled element set has its epoch further than staleness_days = "
            f"{staleness_days:g} days from the window start {utc_text(start_jd)}: choose "
            "another start or a larger staleness_days"
        )
    return fresh


def _objects(spec, catalogue, seed, recorded):
    """The window start, the objects and those left out; with recorded measurements, every
    object measured must be one of the scenario's."""
    objects, window = spec.objects, spec.window
    start = window_start(catalogue) if spec.start_jd is None else spec.start_jd
    check_window(spec, [e.epoch_jd for e in catalogue], start)
    check_objects(spec, catalogue)
    start_jd, sample, excluded = choose_objects(
        catalogue,
        objects.regime,
        objects.sample,
        seed,
        window.start,
        window.staleness_days,
        objects.norad_ids,
    )
    if recorded is not None:
        tracked = {e.norad_id for e in sample}
        stray = [n for n in recorded.norad_ids if n not in tracked]
        if stray:
            raise ValueError(
                f"{recorded.path}: objects {stray} are measured but not among the scenario's "
                "objects (give them in objects.norad_ids, or a --tle file that holds them)"
            )
    return start_jd, sample, excluded


def _scenario(options, seed):
    """The scenario, the objects tracked (SGP4 valid over the window), the parameters and
    the recorded measurements on the scenario's grid (None without them)."""
    spec = options.study()
    catalogue_file = spec.catalogue_file(options.data)
    catalogue = read_element_sets(catalogue_file)
    recorded = (
        None
        if options.measurements is None
        else read_measurements(options.measurements, spec.sensors)
    )
    start_jd, sample, excluded = _objects(spec, catalogue, seed, recorded)
    scenario = Scenario(spec, start_jd, options.ccsds)
    valid = sgp4_valid(sample, start_jd, scenario.times)
    chosen = [e for e, ok in zip(sample, valid, strict=True) if ok]
    scenario.check_object = chosen[0].norad_id if chosen else None
    skipped = [e.norad_id for e, ok in zip(sample, valid, strict=True) if not ok]
    if not chosen:
        raise ValueError(f"SGP4 fails within the window for every sampled object: {skipped}")
    params = _parameters(spec, scenario, options, seed, chosen, skipped, excluded)
    params["data_files"] = {"catalogue": file_record(catalogue_file)}
    if recorded is None:
        return scenario, chosen, params, None
    params["data_files"]["measurements"] = file_record(options.measurements)
    return scenario, chosen, params, recorded.on_grid(scenario.start_jd, scenario.times)


def _parameters(spec, scenario, options, seed, chosen, skipped, excluded):
    """What ``results.json`` records of the run's parameters and provenance."""
    window, objects = spec.window, spec.objects
    return {
        "seed": seed,
        "scenario": spec.as_record(),
        "regime": objects.regime,
        "objects": objects.sample,
        "norad_ids": [e.norad_id for e in chosen],
        "skipped_sgp4_errors": skipped,
        "start_utc": utc_text(scenario.start_jd),
        "start_rule": "given" if window.start is not None else START_RULE,
        "staleness_days": window.staleness_days,
        "excluded_element_sets": excluded,
        "epsilons": list(scenario.epsilons),
        "measurement_epsilons": list(scenario.per_measurement_epsilons),
        "day_epsilons": list(scenario.day_epsilons),
        "hours": window.hours,
        "dt": window.step_s,
        "delta": scenario.delta,
        "convention": scenario.convention,
        "batch": options.batch,
        "start_jd": scenario.start_jd,
        "evaluation": f"every {EVALUATION_STEP:g} s over the second half of the window, "
        "at or after the end of the object's first contact",
        "longest_pass_minutes": window.longest_pass_min,
        "stations": [station.name for station in scenario.stations],
        "earth_orientation": scenario.earth_orientation,
        "recorded_measurements": options.measurements is not None,
        "seed_scheme": "sample default_rng([seed, 7]); object default_rng([seed, norad_id, "
        "0 (deviation) | 1 (sensor noise) | 2 (privacy noise)])",
    }


def _finite(value):
    """A float, or None for NaN (a median over no object)."""
    return value if np.isfinite(value) else None


def _throughput(objects, elapsed, runner):
    """Objects, wall time (s), workers and objects per second per worker of the map."""
    workers = runner.describe()["workers"] or 1
    return {
        "objects": objects,
        "wall_time_s": elapsed,
        "workers": workers,
        "objects_per_second_per_worker": objects / elapsed / workers,
    }


def _tables(output, tables, throughput, **extra):
    """Write the CSV tables and results.json (with ``extra`` entries) from the streamed
    tables; return the rows, the per-measurement rows, the level summaries and the
    detectability summary.

    ``results.json`` records, besides the summaries, the class of the mechanism that
    released each kind of pass (``parameters.mechanisms``)."""
    rows = tables.rows("results")
    per_measurement = tables.rows("per_measurement")
    consistency = tables.rows("consistency")
    difference = np.array(tables.in_task_order("sgp4_difference_km"))
    output.parameters["mechanisms"] = {NO_PRIVACY: "none (as measured)", **tables.mechanisms}
    for name in ("per_measurement", "consistency"):
        tables.write_csv(name)
    if tables.has_rows("detectability"):
        tables.write_csv("detectability")
        extra["detectability"] = detectability_summary(tables.iterate("detectability"))
        extra["detectability_checks"] = tables.in_task_order("detectability_checks")
    if tables.has_rows("day_budgets"):
        tables.write_csv("day_budgets")
        extra["day_budget_summaries"] = day_summaries(tables.rows("day_budgets"))
    summaries = level_summaries(rows)
    output.write_results(
        rows,
        summaries=summaries,
        summaries_by_regime=regime_summaries(rows),
        consistency=consistency_summary(consistency),
        **extra,
        per_measurement_summaries=measurement_summaries(per_measurement),
        pass_certificates=tables.certificates,
        truth_vs_sgp4_km={
            "median": percentile(difference, 50),
            "p90": percentile(difference, 90),
            "max": float(difference.max()),
            "what": "J2 nominal track against SGP4 of the element set at the window's end",
        },
        throughput=throughput,
    )
    return rows, per_measurement, summaries, extra.get("detectability", {})


def _messages(output, scenario, chosen, tables):
    """Write the CCSDS messages; what ``results.json`` records of what they left out
    (``ccsds_not_written``), with a warning when that is anything."""
    unwritten = ccsds.write_messages(output, scenario, chosen, tables.in_task_order("ccsds"))
    if unwritten:
        warnings.warn(
            f"{len(unwritten)} CCSDS passes or estimates could not be written (values no "
            f"message of their kind may hold); listed in {output.folder / ccsds.NOT_WRITTEN}",
            RuntimeWarning,
            stacklevel=2,
        )
    return {"ccsds_not_written": unwritten}


@transactional
def run(out, seed=0, progress=True, runner=None, **options):
    """Run the catalogue study; write its tables (results.csv/json and the others) and figures.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Seeds the sample of objects (``default_rng([seed, 7])``) and, per object, its
        deviation, sensor noise and privacy noise (``default_rng([seed, norad_id, 0 | 1 |
        2])``). Results do not depend on the runner.
    progress : bool
        Show a progress bar.
    runner : Runner, optional
        Runs the batches (default: serially in this process).
    **options
        The study's options by name, with their defaults: :class:`CatalogOptions`
        (``regime``, ``objects``, ``epsilons``, ``measurement_epsilons``, ``hours``,
        ``dt``, ``delta``, ``convention``, ``batch``, ``data``, ``start``,
        ``staleness_days``).

    Returns
    -------
    dict
        Output folder, number of objects and of those without a contact, per level and
        designer the median position RMSE (over the objects with one, None without),
        throughput (objects per second per worker) and the Earth orientation: what the
        model neglects (and its measured size), or the IERS table used.

    Raises
    ------
    TypeError
        On an unknown option.
    ValueError
        As :class:`CatalogOptions`; on an unknown regime, too many objects, a ``start``
        that is not ISO 8601, a ``staleness_days`` that is not positive, or every sampled
        element set stale (the message names the argument).
    FileNotFoundError
        If the catalogue is not in the data folder.
    """
    options = CatalogOptions(**options)
    scenario, chosen, params, recorded = _scenario(options, seed)
    if scenario.ccsds:
        ccsds.check_writable(scenario, chosen)
    output = StudyOutput(out, "ssa-catalog", params)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    started = time.perf_counter()
    tables = _track(output, runner, scenario, batches(chosen, options.batch, recorded), seed)
    throughput = _throughput(len(chosen), time.perf_counter() - started, runner)
    output.parameters["runner"] = runner.describe()
    extra = _messages(output, scenario, chosen, tables) if scenario.ccsds else {}
    rows, per_measurement, summaries, detectability = _tables(output, tables, throughput, **extra)
    figures.save(output, scenario, chosen, rows, per_measurement, runner)
    _trust_figures(output, scenario, tables, summaries, detectability, runner)
    return _summary(output, scenario, chosen, summaries, throughput)


def _track(output, runner, scenario, batches, seed):
    """Run the batches' tasks on the runner; their tables, streamed as they finish."""
    with CatalogTables(output) as tables:
        for index, result in runner.imap(
            catalog_task,
            batches,
            shared={"scenario": scenario, "seed": seed},
            name="ssa-catalog",
            fingerprint=output.parameters,
        ):
            tables.add(index, result)
    return tables


def _trust_figures(output, scenario, tables, summaries, detectability, runner):
    """The NEES series, day budgets and detectability trade-off figures."""
    hours = scenario.times[scenario.evaluate] / 3600.0
    day = [row for row in tables.rows("day_budgets") if row["feasible"]]
    points = trust_figures.tradeoff_points(summaries, detectability)
    series = nees_by_filter(tables.iterate("nees_series"))
    save_figures(output, trust_figures.jobs(series, hours, day, points), runner)


def _summary(output, scenario, chosen, summaries, throughput):
    """What :func:`run` returns (its docstring)."""
    return {
        "out": str(output.folder),
        "objects": len(chosen),
        "objects_without_contact": summaries[NO_PRIVACY]["objects_without_contact"],
        "median_position_rmse_km": {
            level: {
                name: _finite(s[name]["position_rmse_km_median"])
                for name in (NO_PRIVACY, *SUFFIXES)
                if name in s
            }
            for level, s in summaries.items()
        },
        "objects_per_second_per_worker": round(throughput["objects_per_second_per_worker"], 3),
        "earth_orientation": scenario.earth_orientation["neglected"]
        or scenario.earth_orientation["table"],
    }
