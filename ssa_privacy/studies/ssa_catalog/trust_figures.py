"""Figures of the ssa-catalog study on what the operator trusts and risks (house style).

- :func:`consistency`: the filters' NEES against time, averaged over the objects, with
  the chi-square band of that average;
- :func:`day_budgets`: position RMSE against the day budget for the day designs;
- :func:`detectability_tradeoff`: how well a manoeuvre can be detected against how well
  the object is tracked, per level: the privacy-utility trade-off in an operator's terms.
"""

import matplotlib.pyplot as plt
import numpy as np

from ssa_privacy.engine.figures import COLUMN_WIDTH, label_points, legend_below, log_axis
from ssa_privacy.estimation.consistency import median_chi_square_band
from ssa_privacy.studies.ssa_catalog.figures import COLOURS, left_out, level_colour

__all__ = [
    "MARKERS",
    "consistency",
    "day_budgets",
    "detectability_tradeoff",
    "jobs",
    "tradeoff_points",
]

#: Markers of the day designers, in their order.
MARKERS = ("o", "s", "^", "D")


def _median_over_measured(values):
    """Median over the objects (rows) at each time of the finite values; NaN at a time
    where no object has one (before any object's first contact ended)."""
    measured = np.isfinite(values).any(axis=0)
    median = np.full(values.shape[1], np.nan)
    median[measured] = np.nanmedian(values[:, measured], axis=0)
    return median


def consistency(series, hours):
    """Median NEES over the objects against time, per level (log-det and day designs).

    Parameters
    ----------
    series : dict
        ``(level, designer)`` -> the NEES (objects, E) of each object's filter
        (:func:`~ssa_privacy.studies.ssa_catalog.tables.nees_by_filter`).
    hours : ndarray, shape (E,)
        The evaluation times (h from the window start).

    Returns
    -------
    Figure
        One line per level and designer (no privacy, the log-det pass design, else the
        scaled one, and the day designs); the shaded band is the two-sided 95% band of
        the median of N consistent filters' NEES, 6 dof
        (:func:`~ssa_privacy.estimation.consistency.median_chi_square_band`): the
        median, not the mean, so that the few filters that lose their object do not hide
        the rest. Objects without contact (no finite NEES) are left out and counted; the
        median at a time is over the objects with a NEES then.
    """
    pass_designer = "logdet" if any(k[1] == "logdet" for k in series) else "scaled"
    keys = [k for k in series if k[1] in ("none", pass_designer, "day")]
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    count, lost, n = 0, 0, 0
    for level, designer in keys:
        values = np.asarray(series[level, designer], dtype=float)
        seen = np.any(np.isfinite(values), axis=1)  # objects without contact have no NEES
        count, lost = int(seen.sum()), int((~seen).sum())
        if not count:
            continue
        private = designer != "none"
        label = f"{level} nats ({designer})" if private else "no privacy"
        median = _median_over_measured(values[seen])
        ax.plot(hours, median, color=level_colour(n, private), label=label)
        n += private
    low, high = median_chi_square_band(6, max(count, 1))
    ax.axhspan(low, high, color="0.85", label=f"95% band (median of {count})")
    ax.set_xlabel("time from the window start (h)")
    ax.set_ylabel("median NEES (dimensionless)")
    log_axis(ax.yaxis)
    note = left_out(lost, "without a NEES (no contact, or seen too late)")
    legend_below(fig, ax.get_legend_handles_labels()[0], ncol=2, title=note)
    return fig


def day_budgets(rows):
    """Median position RMSE against the day budget, one line per day designer.

    Parameters
    ----------
    rows : list of dict
        ``day_budgets.csv``.

    Returns
    -------
    Figure
        Markers at the budgets tried; an infeasible design is left out at that budget.
    """
    designers = list(dict.fromkeys(r["designer"] for r in rows))
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.2))
    measured = [r for r in rows if r["feasible"] and r["position_rmse_km"] is not None]
    lost = len({r["norad_id"] for r in rows} - {r["norad_id"] for r in measured})
    budgets = sorted({r["epsilon_day"] for r in rows})
    for n, designer in enumerate(designers):
        mine = [r for r in measured if r["designer"] == designer]
        tried = sorted({r["epsilon_day"] for r in mine})
        medians = [
            np.median([r["position_rmse_km"] for r in mine if r["epsilon_day"] == b]) for b in tried
        ]
        # Open markers, each smaller than the one before: equal medians stay visible.
        ax.plot(
            tried,
            medians,
            MARKERS[n % len(MARKERS)] + "-",
            color=COLOURS[n],
            mfc="none",
            ms=10 - 2 * (n % 4),
            label=designer,
        )
    ax.set_xticks(budgets)
    ax.set_xlabel("day budget epsilon_day (nats)")
    ax.set_ylabel("median position RMSE (km)")
    log_axis(ax.yaxis)
    title = "day design" + (f"\n({left_out(lost, 'without an RMSE')})" if lost else "")
    legend_below(fig, ax.get_legend_handles_labels()[0], ncol=len(designers), title=title)
    return fig


def detectability_tradeoff(points):
    """AUC of the best detector of a manoeuvre against the median position RMSE, per level.

    Parameters
    ----------
    points : list of dict
        ``scope`` (``pass``: the first pass; ``day``: all passes), ``label``, ``rmse_km``
        (median position RMSE), ``auc`` (median AUC over the objects) and
        ``magnitude_m_s`` per level and manoeuvre size.

    Returns
    -------
    Figure
        One panel per scope, one line per manoeuvre size through the levels (a level is a
        point).
    """
    scopes = list(dict.fromkeys(p["scope"] for p in points))
    sizes = sorted({p["magnitude_m_s"] for p in points})
    fig, axes = plt.subplots(
        len(scopes), 1, figsize=(COLUMN_WIDTH, 2.3 * len(scopes) + 0.8), sharex=True, squeeze=False
    )
    for ax, scope in zip(axes[:, 0], scopes):
        mine = [p for p in points if p["scope"] == scope]
        for n, size in enumerate(sizes):
            line = sorted(
                (p for p in mine if p["magnitude_m_s"] == size), key=lambda p: p["rmse_km"]
            )
            ax.plot(
                [p["rmse_km"] for p in line],
                [p["auc"] for p in line],
                "o-",
                color=COLOURS[n],
                ms=4,
                label=f"{size:g} m/s",
            )
        ax.set_ylim(0.45, 1.05)
        ax.set_ylabel("AUC (dimensionless)")
        ax.set_title("first pass" if scope == "pass" else "day of releases")
    axes[-1, 0].set_xscale("log")
    axes[-1, 0].set_xlabel("median position RMSE (km)")
    log_axis(axes[-1, 0].xaxis)
    legend_below(
        fig,
        axes[0, 0].get_legend_handles_labels()[0],
        ncol=len(sizes),
        title="Delta-v of unknown direction",
    )
    for ax, scope in zip(axes[:, 0], scopes):  # the levels, along the first size's line
        first = [p for p in points if p["scope"] == scope and p["magnitude_m_s"] == sizes[0]]
        label_points(
            ax, [(p["rmse_km"], p["auc"]) for p in first], [(p["label"], "black") for p in first]
        )
    return fig


def tradeoff_points(summaries, detectability, direction="unknown", scopes=("pass", "day")):
    """The points of :func:`detectability_tradeoff`: per level, median RMSE and AUC.

    Parameters
    ----------
    summaries : dict
        ``results.json``'s per-level summaries: of no privacy, else of the log-det
        designer, else of the scaled one.
    detectability : dict
        :func:`~ssa_privacy.studies.ssa_catalog.detectability.detectability_summary`.
    direction : str
        Which detection problem: by default a Delta-v of unknown direction.
    scopes : tuple of str
        From the first pass and from the day's releases.

    Returns
    -------
    list of dict
        ``scope``, ``label`` (the level in words, with its unit), ``rmse_km``, ``auc``,
        ``magnitude_m_s`` (levels without both left out: without a truth, when the
        measurements are given, the RMSE is NaN and no level has a point).
    """
    points = []
    for level, summary in summaries.items():
        designer = next((d for d in ("none", "logdet", "scaled") if d in summary), None)
        rmse = summary.get(designer, {}).get("position_rmse_km_median")
        label = {"none": "no privacy", "logdet": f"{level} nats"}.get(
            designer, f"{level} nats, scaled"
        )
        for scope in scopes:
            table = detectability.get(level, {}).get(designer, {}).get(scope, {})
            for magnitude, entry in table.get(direction, {}).items():
                if rmse is None or not np.isfinite(rmse) or entry.get("auc") is None:
                    continue
                points.append(
                    {
                        "scope": scope,
                        "label": label,
                        "rmse_km": rmse,
                        "auc": entry["auc"],
                        "magnitude_m_s": float(magnitude),
                    }
                )
    return points


def jobs(series, hours, day_rows, points):
    """The figure jobs (:func:`~ssa_privacy.engine.figures.save_figures`) that have data.

    Parameters
    ----------
    series : dict
        NEES series per filter (:func:`consistency`); empty without a truth.
    hours : ndarray
        Their times (h).
    day_rows : list of dict
        ``day_budgets.csv`` rows; empty without day budgets.
    points : list of dict
        Detectability points (:func:`detectability_tradeoff`); empty without a truth.

    Returns
    -------
    dict
        Name -> (function, keyword arguments).
    """
    out = {}
    if series:
        out["consistency"] = (consistency, {"series": series, "hours": hours})
    if day_rows:
        out["day_budgets"] = (day_budgets, {"rows": day_rows})
    if points:
        out["detectability_tradeoff"] = (detectability_tradeoff, {"points": points})
    return out
