"""Validation of the 3D J2 propagator: against SGP4 on real element sets, and J2 secular rates.

SGP4 comparison. For each element set (default: the ISS set of ``sgp4/tests.py`` and the
near-Earth satellites of ``SGP4-VER.TLE``), the J2 propagator (rtol = atol = 1e-10)
starts from SGP4's TEME state at epoch and both propagate for a day. The TEME frame is
treated as inertial (its precession over a day is negligible here). The differences come
from what the J2 model leaves out (drag, J3/J4 and the other terms of SGP4), from the
different constants (WGS-72 in SGP4) and from starting an osculating propagation at SGP4's
state while SGP4 propagates mean elements: the along-track difference grows with time.
Element sets that SGP4 itself cannot propagate over the horizon (decay) are reported as
skipped.

Secular rates. Inclined LEO orbits (a = 7000 km, e = 0.05) are propagated for several
days; the node and the argument of perigee, averaged over each orbit (removing the
short-periodic J2 terms), are fitted with a line and compared with the first-order
analytic rates (Curtis §4.7; Vallado Ch. 9).
"""

import numpy as np

from ssa_privacy.constants import R_EARTH
from ssa_privacy.engine.figures import PAGE_WIDTH, legend_below
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.orbits.elements import (
    elements_to_state,
    orbit_averaged_rates,
    orbit_averages,
    state_to_elements,
)
from ssa_privacy.orbits.frames import rsw_frame
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import ISS_CATALOG_NUMBER, iss_element_set, verification_element_sets
from ssa_privacy.studies import _options as opt

__all__ = [
    "DEG_PER_DAY",
    "DESCRIPTION",
    "NEAR_EARTH_PERIOD_MIN",
    "SAMPLES_PER_ORBIT",
    "SECULAR_INCLINATIONS",
    "USES_RUNNER",
    "USES_SEED",
    "add_arguments",
    "compare",
    "run",
    "secular_rate_rows",
]

USES_RUNNER = True
DESCRIPTION = "J2 propagator vs SGP4 on real TLEs over a day, and J2 secular rates"

#: Element sets with a period below this (min) are "near Earth" (SGP4's own split).
NEAR_EARTH_PERIOD_MIN = 225.0
#: Secular-rate test orbits: a (km), e, inclinations (deg), node and perigee (deg).
SECULAR_A, SECULAR_E = 7000.0, 0.05
SECULAR_INCLINATIONS = (28.5, 51.6, 97.8)
SECULAR_RAAN, SECULAR_ARGP = 30.0, 60.0
#: Samples per orbit of the secular-rate propagation.
SAMPLES_PER_ORBIT = 64
DEG_PER_DAY = np.degrees(1.0) * 86400.0
#: The study is deterministic: the command line offers no --seed.
USES_SEED = False


def add_arguments(parser):
    """Options of the sgp4-validation study."""
    parser.add_argument(
        "--satellites",
        default="all",
        help="comma-separated 'iss' and SGP4-VER.TLE catalogue numbers, or 'all' (default: "
        "the ISS and every near-Earth verification satellite)",
    )
    parser.add_argument(
        "--hours", type=opt.positive_float, default=24.0, help="comparison span (h, default 24)"
    )
    parser.add_argument(
        "--step",
        type=opt.positive_float,
        default=60.0,
        help="output step, at most the span (s, default 60)",
    )
    parser.add_argument(
        "--secular-days",
        type=opt.positive_float,
        default=5.0,
        help="propagation span of the secular-rate fit (days, default 5)",
    )


def _element_sets(satellites):
    """The selected element sets, ISS first."""
    verification = verification_element_sets()
    if satellites == "all":
        near = {k: v for k, v in verification.items() if v.period / 60.0 < NEAR_EARTH_PERIOD_MIN}
        return {ISS_CATALOG_NUMBER: iss_element_set(), **near}
    chosen = {}
    for name in (s.strip() for s in satellites.split(",")):
        if name.lower() in ("iss", ISS_CATALOG_NUMBER):
            chosen[ISS_CATALOG_NUMBER] = iss_element_set()
        elif name.zfill(5) in verification:
            chosen[name.zfill(5)] = verification[name.zfill(5)]
        else:
            raise ValueError(
                f"satellites: unknown element set {name!r}; use 'iss' or one of "
                f"{', '.join(verification)}"
            )
    return chosen


def compare(element_set, times, propagator):
    """Position difference of the J2 propagation from SGP4, in SGP4's RSW axes.

    Parameters
    ----------
    element_set : ssa_privacy.orbits.tle.ElementSet
        The satellite.
    times : ndarray, shape (m,)
        Seconds since epoch, starting at 0.
    propagator : ssa_privacy.orbits.propagator.J2Propagator
        The model under test (run at rtol = atol = 1e-10).

    Returns
    -------
    ndarray, shape (m, 3)
        ``J2 - SGP4`` position in SGP4's radial, along-track, cross-track axes (km).

    Raises
    ------
    ValueError
        If SGP4 fails on the grid (e.g. decay) or the integration fails.
    """
    sgp4_states = element_set.propagate(times)
    j2_states = propagator.propagate(times, sgp4_states[0])
    difference = np.einsum(
        "mij,mj->mi", rsw_frame(sgp4_states), j2_states[:, :3] - sgp4_states[:, :3]
    )
    return difference


def _comparison_row(key, element_set, times, difference):
    distance = np.linalg.norm(difference, axis=1)
    first = times <= element_set.period
    elements = state_to_elements(element_set.state_at_epoch())
    return {
        "satellite": element_set.name if key == ISS_CATALOG_NUMBER else key,
        "epoch_jd": element_set.epoch_jd,
        "period_min": element_set.period / 60.0,
        "eccentricity": element_set.satrec.ecco,
        "inclination_deg": np.degrees(element_set.satrec.inclo),
        "perigee_altitude_km": elements.a * (1 - elements.e) - R_EARTH,
        "bstar": element_set.satrec.bstar,
        "max_difference_first_orbit_km": float(np.max(distance[first])),
        "max_difference_km": float(np.max(distance)),
        "difference_at_end_km": float(distance[-1]),
        "radial_at_end_km": float(difference[-1, 0]),
        "along_track_at_end_km": float(difference[-1, 1]),
        "cross_track_at_end_km": float(difference[-1, 2]),
        "status": "compared",
    }


def secular_rate_rows(propagator, days, progress=False, runner=None):
    """Fitted against analytic J2 secular rates for the test orbits (deg/day and relative error).

    Parameters
    ----------
    propagator : ssa_privacy.orbits.propagator.J2Propagator
        The model under test (picklable, for a runner with workers).
    days : float
        Propagation span (days), at least three orbits.
    progress : bool, optional
        Show a progress bar (of the default runner).
    runner : Runner, optional
        Runs one task per inclination (default: serially in this process).

    Returns
    -------
    list of dict
        One row per inclination, with the series used by the figure under ``"_series"``.
    """
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    tasks = [
        Task(key=("inclination_deg", inclination), arguments={"inclination": inclination})
        for inclination in SECULAR_INCLINATIONS
    ]
    return runner.map(
        _secular_rate_row,
        tasks,
        shared={"propagator": propagator, "days": days},
        name="sgp4-validation-secular",
        fingerprint={"days": days, "propagator": propagator},
    )


def _secular_rate_row(propagator, days, inclination):
    """One task of the runner: the secular-rate row of one inclination (deg)."""
    period = 2 * np.pi / propagator.mean_motion(SECULAR_A)
    times = np.arange(0.0, days * 86400.0, period / SAMPLES_PER_ORBIT)
    start = elements_to_state(
        SECULAR_A,
        SECULAR_E,
        np.radians(inclination),
        np.radians(SECULAR_RAAN),
        np.radians(SECULAR_ARGP),
        0.0,
        propagator.mu,
    )
    states = propagator.propagate(times, start)
    fitted = orbit_averaged_rates(times, states, period, propagator.mu)
    elements = state_to_elements(states, propagator.mu)
    analytic = propagator.secular_rates(
        np.mean(elements.a), np.mean(elements.e), np.mean(elements.i)
    )
    row = {"a_km": SECULAR_A, "e": SECULAR_E, "inclination_deg": inclination, "days": days}
    for name, fit, exact in zip(("raan", "argp"), fitted, analytic):
        row[f"{name}_rate_fitted_deg_day"] = fit * DEG_PER_DAY
        row[f"{name}_rate_analytic_deg_day"] = float(exact) * DEG_PER_DAY
        row[f"{name}_rate_relative_error"] = abs(fit / float(exact) - 1.0)
    row["_series"] = (times, states, analytic)
    return row


def _comparison_task(propagator, times, key):
    """One task of the runner: compare element set ``key`` with SGP4.

    The element set is loaded in the task (SGP4's ``Satrec`` does not pickle).

    Returns
    -------
    tuple
        ``(row, difference)``; ``difference`` is None for a set SGP4 cannot propagate.
    """
    element_set = _element_sets(key)[key]
    try:
        difference = compare(element_set, times, propagator)
    except ValueError as error:  # SGP4 rejects decayed orbits: report, do not compare
        return {"satellite": key, "status": f"skipped: {error}"}, None
    return _comparison_row(key, element_set, times, difference), difference


def _figure_differences(output, results, hours):
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.4))
    key, (element_set, times, difference) = next(iter(results.items()))
    t = times / 3600.0
    for c, (label, colour) in enumerate(
        zip(("radial", "along-track", "cross-track"), ("tab:blue", "tab:red", "tab:green"))
    ):
        left.plot(t, difference[:, c], color=colour, label=label)
    left.plot(t, np.linalg.norm(difference, axis=1), color="black", label="|difference|")
    left.axvspan(0, element_set.period / 3600.0, color="0.9", label="first orbit")
    left.set(
        xlabel="time since epoch (h)",
        ylabel="J2 - SGP4 position (km)",
        title=f"{element_set.name.strip()}: J2 minus SGP4 (TEME)",
    )
    for n, (key, (element_set, times, difference)) in enumerate(results.items()):
        right.semilogy(
            times / 3600.0,
            np.linalg.norm(difference, axis=1),
            lw=1,
            color=f"C{4 + n % 6}",  # apart from the components' colours on the left
            label=f"{key} (e = {element_set.satrec.ecco:.3f})",
        )
    right.set(
        xlabel="time since epoch (h)",
        ylabel="|J2 - SGP4| (km)",
        xlim=(0, hours),
        title="near-Earth element sets",
    )
    handles = left.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    legend_below(fig, handles, ncol=4)
    output.save_figure(fig, "fig_sgp4_difference")


def _figure_secular(output, rows, propagator):
    import matplotlib.pyplot as plt

    period = 2 * np.pi / propagator.mean_motion(SECULAR_A)
    fig, axes = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.0))
    for row, colour in zip(rows, ("tab:blue", "tab:red", "tab:green")):
        times, states, analytic = row["_series"]
        mean_times, *averages = orbit_averages(times, states, period, propagator.mu)
        for ax, angle, rate in zip(axes, averages, analytic):
            residual = np.degrees(angle - angle[0] - float(rate) * (mean_times - mean_times[0]))
            ax.plot(
                mean_times / 86400.0,
                residual,
                ".-",
                color=colour,
                ms=3,
                lw=0.6,
                label=f"i = {row['inclination_deg']:g} deg",
            )
    for ax, name in zip(axes, ("node", "argument of perigee")):
        ax.set(xlabel="time (days)", ylabel="residual (deg)", title=name)
    legend_below(fig, axes[0].get_legend_handles_labels()[0], ncol=3)
    fig.suptitle(
        f"J2 secular rates, a = {SECULAR_A:g} km, e = {SECULAR_E:g}: orbit average minus the "
        "analytic drift\n(its slope is the error of the first-order analytic rate)"
    )
    output.save_figure(fig, "fig_secular_rates")


def _parameters(satellites, hours, step, secular_days):
    """The run's parameters, checked before anything is written.

    Raises
    ------
    ValueError
        If a span or the step is not positive, or the step exceeds the span.
    """
    if not (0 < step <= hours * 3600.0 and secular_days > 0):
        raise ValueError("step, hours and secular_days must be positive, with step <= hours")
    return dict(satellites=satellites, hours=hours, step=step, secular_days=secular_days)


def _comparisons(runner, element_sets, times, propagator, parameters):
    """Compare every element set with SGP4, one runner task each.

    Returns
    -------
    rows : list of dict
        One results row per element set (compared or skipped), in order.
    results : dict
        Catalogue number -> ``(element_set, times, difference)`` of the compared sets.
    """
    compared = runner.map(
        _comparison_task,
        [Task(key=("satellite", key), arguments={"key": key}) for key in element_sets],
        shared={"propagator": propagator, "times": times},
        name="sgp4-validation-sgp4",
        fingerprint={**parameters, "propagator": propagator},
    )
    rows, results = [], {}
    for (key, element_set), (row, difference) in zip(element_sets.items(), compared, strict=True):
        rows.append(row)
        if difference is not None:
            results[key] = (element_set, times, difference)
    return rows, results


def _summary(rows, secular, folder):
    """The summary printed by the command."""
    compared = [r for r in rows if r["status"] == "compared"]
    return {
        "max_difference_first_orbit_km": {
            r["satellite"]: round(r["max_difference_first_orbit_km"], 3) for r in compared
        },
        "difference_at_end_km": {
            r["satellite"]: round(r["difference_at_end_km"], 2) for r in compared
        },
        "skipped": [r["satellite"] for r in rows if r["status"] != "compared"],
        "max_secular_rate_relative_error": max(
            max(r["raan_rate_relative_error"], r["argp_rate_relative_error"]) for r in secular
        ),
        "out": str(folder),
    }


@transactional
def run(
    out,
    seed=None,
    progress=True,
    satellites="all",
    hours=24.0,
    step=60.0,
    secular_days=5.0,
    runner=None,
):
    """Run the validation; write results.csv/json, secular_rates.csv and two figures.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : None
        Ignored (the study is deterministic).
    progress : bool
        Show progress bars.
    satellites : str
        Comma-separated ``iss`` and SGP4-VER.TLE catalogue numbers, or ``"all"``.
    hours : float
        Comparison span (h).
    step : float
        Output step (s), at most the span.
    secular_days : float
        Propagation span of the secular-rate fit (days).
    runner : Runner, optional
        Runs one task per element set and one per secular-rate orbit (default: serially
        in this process). The tasks are deterministic; results do not depend on it, and
        ``results.json`` records it.

    Returns
    -------
    dict
        Summary: the largest difference over the first orbit and the difference at the
        end per compared set, the skipped sets and the largest secular-rate error.

    Raises
    ------
    ValueError
        On a non-positive span or step, a step above the span, or an unknown satellite.
    """
    del seed  # deterministic study
    parameters = _parameters(satellites, hours, step, secular_days)
    output = StudyOutput(out, "sgp4-validation", parameters)
    propagator, element_sets = J2Propagator(), _element_sets(satellites)
    times = np.arange(0.0, hours * 3600.0 + 1e-9, step)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    rows, results = _comparisons(runner, element_sets, times, propagator, parameters)
    secular = secular_rate_rows(propagator, secular_days, progress, runner)
    output.parameters["runner"] = runner.describe()
    secular_table = [{k: v for k, v in r.items() if k != "_series"} for r in secular]
    output.write_csv("secular_rates.csv", secular_table)
    output.write_results(rows, secular_rates=secular_table)
    _figure_differences(output, results, hours)
    _figure_secular(output, secular, propagator)
    return _summary(rows, secular, output.folder)
