"""Figures of the ssa-catalog study on what the operator trusts and risks (8 pt fonts).

- :func:`consistency`: the filters' NEES against time, averaged over the objects, with
  the chi-square band of that average;
- :func:`day_budgets`: position RMSE against the day budget for the day designs;
- :func:`detectability_tradeoff`: how well a manoeuvre can be detected against how well
  the object is tracked, per level: the privacy-utility trade-off in an operator's terms.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from ssa_privacy.studies._ssa_catalog_figures import COLOURS, COLUMN, FONT
from ssa_privacy.studies._ssa_catalog_summaries import median_nees_band

__all__ = ["consistency", "day_budgets", "detectability_tradeoff", "jobs", "tradeoff_points"]


def consistency(series, hours):
    """Median NEES over the objects against time, per level (log-det and day designs).

    Parameters
    ----------
    series : dict
        ``(level, designer)`` -> the NEES (objects, E) of each object's filter
        (:func:`~ssa_privacy.studies._ssa_catalog_tables.nees_by_filter`).
    hours : ndarray, shape (E,)
        The evaluation times (h from the window start).

    Returns
    -------
    Figure
        One line per level and designer; the shaded band is the two-sided 95% band of the
        median of N consistent filters' NEES (:func:`median_nees_band`): the median, not
        the mean, so that the few filters that lose their object do not hide the rest.
    """
    keys = [k for k in series if k[1] in ("none", "logdet", "day")]
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(COLUMN, 3.6), layout="constrained")
        count = 0
        for n, (level, designer) in enumerate(keys):
            values = series[level, designer]
            count = len(values)
            label = "no privacy" if designer == "none" else f"{level} nats ({designer})"
            ax.plot(hours, np.median(values, axis=0), color=COLOURS[n % len(COLOURS)], label=label)
        low, high = median_nees_band(max(count, 1))
        ax.axhspan(low, high, color="0.85", label=f"95% band, {count} objects")
        ax.set_yscale("log")
        ax.set_xlabel("time from the window start (h)")
        ax.set_ylabel("median NEES, 6 dof (dimensionless)")
        fig.legend(loc="outside lower center", ncol=2)
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
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(COLUMN, 2.8), layout="constrained")
        for n, designer in enumerate(designers):
            budgets = sorted({r["epsilon_day"] for r in rows if r["designer"] == designer})
            medians = [
                np.median(
                    [
                        r["position_rmse_km"]
                        for r in rows
                        if r["designer"] == designer and r["epsilon_day"] == b and r["feasible"]
                    ]
                )
                for b in budgets
            ]
            ax.plot(budgets, medians, "o-", color=COLOURS[n], label=designer)
        ax.set_yscale("log")
        ax.set_xlabel("day budget epsilon_day (nats)")
        ax.set_ylabel("median position RMSE (km)")
        ax.legend(title="day design")
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
    with plt.rc_context(FONT):
        fig, axes = plt.subplots(
            len(scopes),
            1,
            figsize=(COLUMN, 2.2 * len(scopes) + 0.6),
            sharex=True,
            layout="constrained",
            squeeze=False,
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
                    label=f"{size:g} m/s",
                )
            for p in mine:  # the levels, along the first size's line
                if p["magnitude_m_s"] == sizes[0]:
                    ax.annotate(
                        p["label"],
                        (p["rmse_km"], p["auc"]),
                        fontsize=8,
                        xytext=(2, -9),
                        textcoords="offset points",
                    )
            ax.set_ylim(0.45, 1.02)
            ax.set_ylabel("AUC (dimensionless)")
            ax.set_title("first pass" if scope == "pass" else "day of releases")
        axes[-1, 0].set_xscale("log")
        axes[-1, 0].xaxis.set_minor_formatter(NullFormatter())
        axes[-1, 0].set_xlabel("median position RMSE (km)")
        fig.legend(
            *axes[0, 0].get_legend_handles_labels(),
            loc="outside lower center",
            ncol=len(sizes),
            title="Delta-v of unknown direction",
        )
    return fig


def tradeoff_points(summaries, detectability, direction="unknown", scopes=("pass", "day")):
    """The points of :func:`detectability_tradeoff`: per level, median RMSE and AUC.

    Parameters
    ----------
    summaries : dict
        ``results.json``'s per-level summaries (log-det designer, or none).
    detectability : dict
        :func:`~ssa_privacy.studies._ssa_catalog_detectability.detectability_summary`.
    direction : str
        Which detection problem: by default a Delta-v of unknown direction.
    scopes : tuple of str
        From the first pass and from the day's releases.

    Returns
    -------
    list of dict
        ``scope``, ``label``, ``rmse_km``, ``auc``, ``magnitude_m_s`` (levels without both
        left out).
    """
    points = []
    for level, summary in summaries.items():
        designer = "none" if "none" in summary else "logdet"
        rmse = summary.get(designer, {}).get("position_rmse_km_median")
        for scope in scopes:
            table = detectability.get(level, {}).get(designer, {}).get(scope, {})
            for magnitude, entry in table.get(direction, {}).items():
                if rmse is None or entry.get("auc") is None:
                    continue
                points.append(
                    {
                        "scope": scope,
                        "label": "none" if designer == "none" else level,
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
