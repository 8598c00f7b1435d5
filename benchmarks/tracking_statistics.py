"""Tracking statistics of ssa-catalog: recorded before a change that must move results,
and compared with them after it.

A change of the propagator, of the filter's update form or of the work the study does
(fewer orbit-determination solves, fewer Monte Carlo draws) moves the numbers; it is
judged by statistics, not by bit equality. This script runs the reference runs and, per
run, level and designer, records:

- the median position RMSE (km) over the objects tracked, with its bootstrap 95%
  interval (percentile method, 9,999 resamples of the objects, generator seed 0);
- the share of objects whose time-averaged NEES lies inside the chi-square(6) two-sided
  95% band (``results.json``'s ``consistency``) and the largest time-averaged NEES;
- the pass designs' certificates (designs, passed);
- for day budgets, the largest excess of an achieved day leakage over its budget (nats;
  must be <= 0) and the feasible day designs of objects with a pass more than 1e-9 nats
  below their budget;
- the detectability brute-force checks further than 3 standard errors from the exact AUC.

The reference runs (each through the command line, 24 h, the defaults unless named):
``default-seed0``, ``default-seed1``, ``default-seed2`` (50 LEO objects, seeds 0, 1, 2);
``objects12-day`` (``--objects 12 --day-epsilons 20,30``); ``tutorial`` (the tutorial's
own network, ``docs/tutorials/your-own-network``, over its five objects taken from the
catalogue).

Usage::

    python benchmarks/tracking_statistics.py record FILE.json [--runs NAME ...]
    python benchmarks/tracking_statistics.py compare FILE.json [--runs NAME ...]

``compare`` runs again and prints, per run, level and designer, whether the median RMSE
is at most the recorded interval's upper end, the NEES criteria (no time-averaged NEES
above 50, at least 0.9 of the objects inside the band), the certificates and the day
budgets; it exits with 1 when a criterion fails. Runs take about 15 minutes in all on
two cores; the study's workers default to 2 (``--workers``).
"""

import argparse
import csv
import datetime
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

import ssa_privacy
from ssa_privacy.cli import main as cli
from ssa_privacy.engine.output import atomic_path
from ssa_privacy.orbits.tle import load_catalogue

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorials" / "your-own-network"
TUTORIAL_OBJECTS = (25544, 20580, 43013, 37816, 36830)

#: Name -> the study's options (the tutorial's are completed in the run's folder).
RUNS = {
    "default-seed0": ["--seed", "0"],
    "default-seed1": ["--seed", "1"],
    "default-seed2": ["--seed", "2"],
    "objects12-day": ["--objects", "12", "--day-epsilons", "20,30"],
    "tutorial": ["--scenario", "{folder}/network.toml"],
}
#: The NEES criteria: no object's time-averaged NEES above this ...
NEES_LIMIT = 50.0
#: ... and at least this share of the objects inside the chi-square(6) 95% band.
INSIDE_SHARE = 0.9
#: A feasible day design may lie at most this far below its budget (nats).
DAY_SLACK = 1e-9


def _tutorial_folder(folder):
    """The tutorial's scenario and sites beside a TLE file of its five objects."""
    newest = {}
    for element_set in load_catalogue():
        number = int(element_set.catalogue_number)
        if number in TUTORIAL_OBJECTS and (
            number not in newest or element_set.epoch_jd > newest[number].epoch_jd
        ):
            newest[number] = element_set
    text = "".join(f"{e.name}\n{e.line1}\n{e.line2}\n" for e in newest.values())
    (folder / "my.tle").write_text(text)
    for name in ("network.toml", "my_sites.geojson"):
        shutil.copy(TUTORIAL / name, folder / name)


def _run(name, folder, workers):
    """Run one reference run into ``folder / name``; return that folder."""
    if name == "tutorial":
        _tutorial_folder(folder)
    out = folder / name
    options = [o.format(folder=folder) for o in RUNS[name]]
    code = cli(
        ["run", "ssa-catalog", "--no-progress", "--workers", str(workers), "--out", str(out)]
        + options
    )
    if code != 0:
        raise SystemExit(f"{name}: the study exited with {code}")
    return out


def _number(text):
    return float(text) if text not in ("", None) else math.nan


def _median_interval(values):
    """Median and its bootstrap 95% interval (percentile, 9,999 resamples, seed 0)."""
    values = np.asarray(values, dtype=float)
    median = float(np.median(values))
    if values.size < 2 or np.ptp(values) == 0.0:
        return median, [median, median]
    result = stats.bootstrap(
        (values,),
        np.median,
        confidence_level=0.95,
        n_resamples=9999,
        method="percentile",
        rng=np.random.default_rng(0),
    )
    interval = result.confidence_interval
    return median, [float(interval.low), float(interval.high)]


def _rmse_columns(designer):
    suffix = "_scaled" if designer == "scaled" else ""
    return f"position_rmse_km{suffix}", f"nees_mean{suffix}"


def _filter_statistics(rows, consistency, certificates, level, designer):
    """The statistics of one level and pass designer (or no privacy)."""
    rmse_key, nees_key = _rmse_columns(designer)
    mine = [r for r in rows if r["level"] == level]
    rmse = [_number(r[rmse_key]) for r in mine]
    rmse = [v for v in rmse if math.isfinite(v)]
    nees = [_number(r[nees_key]) for r in mine]
    nees = [v for v in nees if math.isfinite(v)]
    if not rmse:
        return None
    median, interval = _median_interval(rmse)
    judged = consistency.get(level, {}).get(designer, {})
    certified = certificates.get(level, {}).get(designer, {})
    return {
        "objects_tracked": len(rmse),
        "position_rmse_km_median": median,
        "position_rmse_km_median_interval": interval,
        "nees_fraction_inside": judged.get("fraction_inside"),
        "nees_max": max(nees) if nees else None,
        "certificates": [certified.get("designs", 0), certified.get("passed", 0)],
    }


def _day_statistics(folder):
    """The day designs: largest excess over the budget, designs further below it."""
    path = folder / "day_budgets.csv"
    if not path.exists():
        return None
    with path.open(newline="") as stream:
        rows = [r for r in csv.DictReader(stream) if r["designer"] == "day"]
    # An object without a pass releases nothing: its day leakage is 0 whatever the budget.
    feasible = [r for r in rows if r["feasible"] == "True" and int(r["passes"]) > 0]
    slack = [float(r["epsilon_day"]) - float(r["epsilon_day_achieved"]) for r in feasible]
    return {
        "designs": len(rows),
        "feasible_with_a_pass": len(feasible),
        "excess_max_nats": -min(slack) if slack else None,
        "below_budget_by_more_than_slack": sum(s > DAY_SLACK for s in slack),
        "certificates_failed": sum(r["certificate_passed"] != "True" for r in feasible),
    }


def _detectability_statistics(checks):
    """Brute-force checks further than 3 standard errors from the exact AUC."""
    far = [
        c
        for c in checks
        if abs(c["auc"] - c["auc_exact"]) > 3.0 * c["auc_se"] and c["auc_se"] > 0.0
    ]
    return {"checks": len(checks), "beyond_3_se": len(far)}


def statistics(folder):
    """The recorded statistics of one finished run's folder."""
    with (folder / "results.csv").open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    results = json.loads((folder / "results.json").read_text())
    consistency, certificates = results["consistency"], results["pass_certificates"]
    filters = {}
    for level in dict.fromkeys(r["level"] for r in rows):
        for designer in ("none",) if level == "none" else ("logdet", "scaled"):
            entry = _filter_statistics(rows, consistency, certificates, level, designer)
            if entry is not None:
                filters[f"{level}/{designer}"] = entry
    return {
        "objects": len({r["norad_id"] for r in rows}),
        "filters": filters,
        "day": _day_statistics(folder),
        "detectability": _detectability_statistics(results.get("detectability_checks", [])),
    }


def _verdicts(before, after):
    """Lines ``(passed, text)`` judging ``after`` against ``before`` (one run)."""
    lines = []
    for key, new in after["filters"].items():
        old = before["filters"].get(key)
        if old is not None:
            high = old["position_rmse_km_median_interval"][1]
            lines.append(
                (
                    new["position_rmse_km_median"] <= high,
                    f"{key}: median RMSE {new['position_rmse_km_median']:.4g} km "
                    f"(recorded {old['position_rmse_km_median']:.4g}, upper end {high:.4g})",
                )
            )
        inside = new["nees_fraction_inside"]
        lines.append(
            (
                inside is not None and inside >= INSIDE_SHARE,
                f"{key}: {inside} of the objects inside the NEES band (at least {INSIDE_SHARE})",
            )
        )
        lines.append(
            (
                new["nees_max"] is not None and new["nees_max"] <= NEES_LIMIT,
                f"{key}: largest time-averaged NEES {new['nees_max']:.4g} (at most {NEES_LIMIT})",
            )
        )
        designs, passed = new["certificates"]
        lines.append((designs == passed, f"{key}: {passed} of {designs} certificates passed"))
    day = after["day"]
    if day is not None:
        within = day["excess_max_nats"] is None or day["excess_max_nats"] <= 0.0
        lines.append(
            (
                within
                and not day["below_budget_by_more_than_slack"]
                and not day["certificates_failed"],
                f"day designs: largest excess {day['excess_max_nats']} nats, "
                f"{day['below_budget_by_more_than_slack']} more than {DAY_SLACK} below, "
                f"{day['certificates_failed']} certificates failed",
            )
        )
    detect = after["detectability"]
    lines.append(
        (
            not detect["beyond_3_se"],
            f"detectability: {detect['beyond_3_se']} of {detect['checks']} checks beyond 3 SE",
        )
    )
    return lines


def _measure(names, workers):
    with tempfile.TemporaryDirectory(prefix="tracking-statistics-") as folder:
        return {name: statistics(_run(name, Path(folder), workers)) for name in names}


def record(path, names, workers):
    """Run ``names`` and write their statistics to ``path`` (atomically)."""
    payload = {
        "recorded_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "package_version": ssa_privacy.__version__,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "runs": {name: {"options": RUNS[name]} for name in names},
    }
    for name, measured in _measure(names, workers).items():
        payload["runs"][name].update(measured)
    with atomic_path(Path(path)) as temporary:
        Path(temporary).write_text(json.dumps(payload, indent=1) + "\n")
    print(f"recorded {', '.join(names)} in {path}")


def compare(path, names, workers):
    """Run ``names`` again and judge them against the statistics recorded in ``path``."""
    recorded = json.loads(Path(path).read_text())["runs"]
    missing = [n for n in names if n not in recorded]
    if missing:
        raise SystemExit(f"{path} records no run {', '.join(missing)}")
    failed = 0
    for name, measured in _measure(names, workers).items():
        print(f"== {name}")
        for passed, text in _verdicts(recorded[name], measured):
            failed += not passed
            print(f"  {'ok  ' if passed else 'FAIL'} {text}")
    print(f"{failed} criteria failed")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("file", help="the recorded statistics (JSON)")
    parser.add_argument("--runs", nargs="+", choices=list(RUNS), default=list(RUNS))
    parser.add_argument("--workers", type=int, default=2)
    arguments = parser.parse_args()
    if arguments.action == "record":
        record(arguments.file, arguments.runs, arguments.workers)
        return 0
    return compare(arguments.file, arguments.runs, arguments.workers)


if __name__ == "__main__":
    sys.exit(main())
