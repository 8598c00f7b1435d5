"""The pointwise maximal leakage of real (nonlinear) pass releases, by Monte Carlo.

Scenario (:doc:`/studies/ssa-leakage`): objects drawn, seeded, from the active catalogue
of the shipped ssa-catalog scenario (:func:`~ssa_privacy.studies.ssa_catalog.choose_objects`;
3 LEO, 2 MEO and 2 GEO by default), its 24 h window and its eight radars. For each object
the first, middle and last pass of the window (at least
:data:`~ssa_privacy.studies._ssa_leakage_task.MIN_PASS_SAMPLES` samples) is released
through the log-det pass mechanism (:class:`~ssa_privacy.privacy.pml.passes.PassMechanism`)
at each budget. That mechanism's (epsilon, delta)-PML guarantee holds for the linearised
release ``C x0 + v``; the real release is ``h(nominal + x0) + v``. The study estimates
``P[l(Y) > epsilon]`` of the real release with a Clopper-Pearson interval
(:func:`~ssa_privacy.attacks.nonlinear_leakage.nonlinear_pml`), the linear mechanism's on
the same draws, and a verdict (:func:`~ssa_privacy.studies._ssa_leakage_task.verdict`);
it checks the Laplace evidence by importance sampling on the first passes, and measures
the restoring design (:mod:`~ssa_privacy.attacks.nonlinear_restoration`) where a pass
exceeds its budget, with its cost in tracking.

Work: one runner task per (object, pass position)
(:func:`~ssa_privacy.studies._ssa_leakage_task.leakage_task`); the payload is the element
set and the position, the worker rebuilds the track and the pass. Seeds depend on the run's
seed, the object, the pass and the budget only, so the results do not depend on the
runner.
"""

import argparse
import time
from dataclasses import dataclass, field

from scipy import stats

from ssa_privacy.engine.figures import save_figures
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.orbits.catalog import read_element_sets, sgp4_valid, utc_text
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies import _ssa_leakage_task as task
from ssa_privacy.studies._ssa_leakage_figures import exceedance_by_pass
from ssa_privacy.studies._ssa_leakage_summary import COLUMNS, summary_rows, validation_summary
from ssa_privacy.studies.scenario.checks import MAX_BUDGET, _too_large
from ssa_privacy.studies.scenario.files import file_record
from ssa_privacy.studies.scenario.reading import default_scenario
from ssa_privacy.studies.ssa_catalog import Scenario, choose_objects

__all__ = [
    "DESCRIPTION",
    "LeakageOptions",
    "MAX_OUTCOMES",
    "USES_RUNNER",
    "add_arguments",
    "parse_regime_counts",
    "run",
]

USES_RUNNER = True
DESCRIPTION = "PML of real (nonlinear) radar pass releases against the linearised guarantee"

#: Regimes whose objects the study may draw, and the default counts.
REGIMES = ("leo", "meo", "geo")
DEFAULT_COUNTS = {"leo": 3, "meo": 2, "geo": 2}
#: Confidence of the Clopper-Pearson intervals.
CONFIDENCE = 0.95
#: Most Monte Carlo outcomes per pass: each holds one release of the pass (160 numbers at
#: the shipped 20-min passes) and an optimisation of its Laplace evidence, so 10^5
#: outcomes are 130 MB of releases and some hours of optimisation per pass.
MAX_OUTCOMES = 100_000


def parse_regime_counts(text):
    """Parse ``--objects-per-regime``: ``leo=3,meo=2,geo=2`` (regimes left out: none).

    Parameters
    ----------
    text : str
        Comma-separated ``regime=count`` pairs.

    Returns
    -------
    dict
        Regime -> count (non-negative integers), in :data:`REGIMES` order.

    Raises
    ------
    argparse.ArgumentTypeError
        On an unknown regime, a repeated one, a count that is not a non-negative
        integer, or no object at all.
    """
    counts = {}
    for part in text.split(","):
        regime, _, count = part.strip().partition("=")
        regime = regime.strip().lower()
        if regime not in REGIMES or regime in counts or not count.strip().isdigit():
            raise argparse.ArgumentTypeError(
                f"expected regime=count pairs of {', '.join(REGIMES)} (each once, counts "
                f"non-negative integers), got {text!r}"
            )
        counts[regime] = int(count)
    if sum(counts.values()) == 0:
        raise argparse.ArgumentTypeError(f"expected at least one object, got {text!r}")
    return {r: counts[r] for r in REGIMES if r in counts}


def add_arguments(parser):
    """Options of ``ssa-privacy run ssa-leakage`` (see :class:`LeakageOptions`)."""
    add = parser.add_argument
    add(
        "--objects-per-regime",
        type=parse_regime_counts,
        default=dict(DEFAULT_COUNTS),
        help="objects drawn per regime, seeded by --seed (default leo=3,meo=2,geo=2)",
    )
    add(
        "--passes",
        type=opt.comma_list(opt.checked_by(_position)),
        default=task.POSITIONS,
        help="which passes of each object's window (default first,middle,last)",
    )
    add(
        "--epsilons",
        type=opt.comma_list(opt.positive_float),
        default=(10.0, 20.0),
        help="pass budgets (nats, default 10,20; each above 8.41 at delta 0.01)",
    )
    opt.add_pml_level(parser, 0.01, "failure probability of each budget")
    add("--outcomes", type=opt.positive_int, default=150, help="outcomes per pass (default 150)")
    add(
        "--restore-outcomes",
        type=opt.positive_int,
        default=100,
        help="outcomes per restored pass (default 100)",
    )
    add(
        "--eta-share",
        type=opt.probability,
        default=0.06,
        help="share of the budget the restoring design sets aside for the remainder "
        "(default 0.06: 0.6 nats at 10 nats)",
    )
    add(
        "--validate",
        type=opt.non_negative_int,
        default=3,
        help="passes (the first tasks) whose Laplace evidence is checked by importance "
        "sampling (default 3)",
    )
    opt.add_data_folder(parser, "the catalogue")


def _position(text):
    """A pass position, or ValueError."""
    if text not in task.POSITIONS:
        raise ValueError(f"expected one of {', '.join(task.POSITIONS)}, got {text!r}")
    return text


def _checked_number(value, name, low, high=None, integer=False):
    """``value`` as a number in ``(low, high)`` (integer: ``>= low``), or an error naming it."""
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        raise TypeError(f"{name} must be {kind}, got {value!r}")
    bad = value < low if integer else not (low < value and (high is None or value < high))
    if bad or value != value:
        bound = f">= {low}" if integer else f"in ({low}, {high})" if high else f"> {low}"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return value


@dataclass(frozen=True)
class LeakageOptions:
    """The options of an ssa-leakage run, checked.

    Parameters
    ----------
    objects_per_regime : dict, optional
        Regime (``leo``, ``meo``, ``geo``) -> number of objects drawn (default 3, 2, 2).
    passes : sequence of str, optional
        Which passes of each window: ``first``, ``middle``, ``last`` (default all three).
    epsilons : sequence of float, optional
        Pass budgets (nats; default 10, 20); each above ``F^{-1}_{chi^2_6}(1 - delta/2)
        / 2`` divided by ``1 - eta_share``, so that the restoring design exists, and at
        most :data:`~ssa_privacy.studies.scenario.MAX_BUDGET` (100).
    delta : float, optional
        Failure probability of each budget (default 0.01).
    outcomes, restore_outcomes : int, optional
        Monte Carlo outcomes per pass and budget (default 150) and per restored pass
        (default 100), at most :data:`MAX_OUTCOMES`.
    eta_share : float, optional
        The restoring design's share of the budget for the remainder (default 0.06).
    validate : int, optional
        How many of the first tasks check the Laplace evidence (default 3).
    data : str or Path, optional
        Data folder holding the catalogue (default ``$SSA_PRIVACY_DATA``).

    Raises
    ------
    TypeError, ValueError
        Naming the option and what is wrong with it.
    """

    objects_per_regime: dict = field(default_factory=lambda: dict(DEFAULT_COUNTS))
    passes: tuple = task.POSITIONS
    epsilons: tuple = (10.0, 20.0)
    delta: float = 0.01
    outcomes: int = 150
    restore_outcomes: int = 100
    eta_share: float = 0.06
    validate: int = 3
    data: str | None = None

    def __post_init__(self):
        counts = self.objects_per_regime
        if not isinstance(counts, dict) or not set(counts) <= set(REGIMES):
            raise ValueError(f"objects_per_regime must map {REGIMES} to counts, got {counts!r}")
        for regime, count in counts.items():
            _checked_number(count, f"objects_per_regime[{regime!r}]", 0, integer=True)
        if sum(counts.values()) == 0:
            raise ValueError("objects_per_regime must ask for at least one object")
        passes = tuple(self.passes)
        if not passes or any(p not in task.POSITIONS for p in passes):
            raise ValueError(f"passes must be among {task.POSITIONS}, got {self.passes!r}")
        _checked_number(self.delta, "delta", 0.0, 1.0)
        _checked_number(self.eta_share, "eta_share", 0.0, 1.0)
        for name in ("outcomes", "restore_outcomes"):
            if _checked_number(getattr(self, name), name, 1, integer=True) > MAX_OUTCOMES:
                raise ValueError(
                    f"{name} must be at most {MAX_OUTCOMES:,} (each outcome holds a release of "
                    f"the pass and an optimisation of its evidence), got {getattr(self, name)}"
                )
        _checked_number(self.validate, "validate", 0, integer=True)
        epsilons = tuple(self.epsilons)
        floor = stats.chi2.ppf(1.0 - self.delta / 2, 6) / 2 / (1.0 - self.eta_share)
        for epsilon in epsilons:
            if _checked_number(epsilon, "epsilons", floor) > MAX_BUDGET:
                raise ValueError(f"epsilons: {_too_large(epsilon)}")
        if not epsilons or len(set(epsilons)) != len(epsilons):
            raise ValueError(f"epsilons must be distinct and not empty, got {self.epsilons!r}")
        object.__setattr__(self, "passes", tuple(dict.fromkeys(passes)))
        object.__setattr__(self, "epsilons", tuple(sorted(float(e) for e in epsilons)))

    def settings(self):
        """What every task shares of the options (``leakage_task``'s ``settings``)."""
        keys = ("epsilons", "delta", "outcomes", "restore_outcomes", "eta_share")
        return {**{k: getattr(self, k) for k in keys}, "confidence": CONFIDENCE}


def _objects(options, seed):
    """The shipped scenario, the window start, the catalogue file and the drawn objects."""
    spec = default_scenario()
    catalogue_file = spec.catalogue_file(options.data)
    catalogue = read_element_sets(catalogue_file)
    chosen, start_jd = [], None
    for regime, count in options.objects_per_regime.items():
        if count > 0:
            start_jd, sample, _ = choose_objects(catalogue, regime, count, seed)
            chosen += [(regime, e) for e in sample]
    scenario = Scenario(spec, start_jd)
    valid = sgp4_valid([e for _, e in chosen], start_jd, scenario.times)
    chosen = [c for c, ok in zip(chosen, valid, strict=True) if ok]
    return spec, scenario, catalogue_file, chosen


def _tasks(chosen, options, seed):
    """One task per object and pass position; the first ``validate`` check the evidence."""
    tasks = []
    for regime, e in chosen:
        for position in options.passes:
            norad = e.norad_id
            arguments = {
                "regime": regime,
                "elements": (e.name, e.line1, e.line2),
                "position": position,
                "validate": len(tasks) < options.validate,
            }
            keys = (seed, norad, task.POSITIONS.index(position))
            tasks.append(Task(("pass", norad, position), arguments, seed_keys=keys))
    return tasks


def _parameters(spec, scenario, options, seed, chosen, catalogue_file):
    """What ``results.json`` records of the run's parameters and provenance."""
    return {
        "seed": seed,
        "objects_per_regime": options.objects_per_regime,
        "norad_ids": {r: [e.norad_id for g, e in chosen if g == r] for r in REGIMES},
        "passes": list(options.passes),
        "min_pass_samples": task.MIN_PASS_SAMPLES,
        "start_utc": utc_text(scenario.start_jd),
        "start_jd": scenario.start_jd,
        "hours": spec.window.hours,
        "dt": spec.window.step_s,
        "longest_pass_minutes": spec.window.longest_pass_min,
        "stations": [s.name for s in scenario.stations],
        "designer": "logdet",
        "epsilons": list(options.epsilons),
        "delta": options.delta,
        "confidence": CONFIDENCE,
        "outcomes": options.outcomes,
        "restore_outcomes": options.restore_outcomes,
        "eta_share": options.eta_share,
        "validate": options.validate,
        "search": {**task.SEARCH, "ml_step_tolerance": task.ML_STEP_TOLERANCE},
        "importance_sampling": {
            "outcomes": task.VALIDATION_OUTCOMES,
            "draws": task.IS_DRAWS,
            **task.IS_PROPOSAL,
        },
        "remainder_points": task.REMAINDER_POINTS,
        "verdict_rule": "exceeds: interval above delta; within: interval at or below delta; "
        "undecided: the interval contains delta",
        "seed_scheme": "default_rng([seed, norad_id, pass index, budget in millinats, "
        "0 (outcomes) | 1 (importance sampling) | 2 (remainder) | 3 (restored outcomes)])",
        "data_files": {"catalogue": file_record(catalogue_file)},
    }


def _write(output, results, options, scenario, throughput, runner):
    """Write leakage.csv, validation.csv, results.csv/json and the figure."""
    rows = [{c: r.get(c) for c in COLUMNS} for result in results for r in result["rows"]]
    checks = [c for result in results for c in result["validation"]]
    output.write_csv("leakage.csv", rows)
    if checks:
        output.write_csv("validation.csv", checks)
    summaries = summary_rows(rows)
    output.write_results(
        summaries,
        validation=validation_summary(checks),
        throughput=throughput,
    )
    if rows:
        arguments = {"rows": rows, "delta": options.delta, "hours": scenario.times[-1] / 3600}
        save_figures(output, {"exceedance": (exceedance_by_pass, arguments)}, runner)
    return rows, summaries


@transactional
def run(out, seed=0, progress=True, runner=None, **options):
    """Run the ssa-leakage study; write leakage.csv, results.csv/json and a figure.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Seeds the draw of the objects (:func:`~ssa_privacy.studies.ssa_catalog.choose_objects`)
        and the Monte Carlo of each pass (``default_rng([seed, norad_id, pass index,
        budget in millinats, purpose])``). Results do not depend on the runner.
    progress : bool
        Show a progress bar.
    runner : Runner, optional
        Runs the tasks (default: serially in this process).
    **options
        The study's options by name (:class:`LeakageOptions`): ``objects_per_regime``,
        ``passes``, ``epsilons``, ``delta``, ``outcomes``, ``restore_outcomes``,
        ``eta_share``, ``validate``, ``data``.

    Returns
    -------
    dict
        Output folder, passes measured, the verdict counts per budget and the wall time.

    Raises
    ------
    TypeError, ValueError
        On an unknown or bad option (the message names it).
    FileNotFoundError
        If the catalogue is not in the data folder.
    """
    options = LeakageOptions(**options)
    spec, scenario, catalogue_file, chosen = _objects(options, seed)
    params = _parameters(spec, scenario, options, seed, chosen, catalogue_file)
    output = StudyOutput(out, "ssa-leakage", params)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    started = time.perf_counter()
    results = runner.map(
        task.leakage_task,
        _tasks(chosen, options, seed),
        shared={"scenario": scenario, "settings": options.settings()},
        name="ssa-leakage",
        fingerprint=params,
    )
    elapsed = time.perf_counter() - started
    output.parameters["runner"] = runner.describe()
    throughput = {"wall_time_s": elapsed, "workers": runner.describe()["workers"] or 1}
    rows, summaries = _write(output, results, options, scenario, throughput, runner)
    verdicts = {}
    for row in rows:
        counts = verdicts.setdefault(row["epsilon"], {})
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    return {
        "out": str(output.folder),
        "passes": len({(r["norad_id"], r["pass_index"]) for r in rows}),
        "verdicts": verdicts,
        "wall_time_s": round(elapsed, 1),
    }
