"""The summaries of the ssa-catalog study's tables (``results.json``)."""

import numpy as np
from scipy import stats

from ssa_privacy.studies._ssa_catalog_rows import NO_PRIVACY

__all__ = [
    "TRACKED_KM",
    "certificate_summary",
    "consistency_summary",
    "day_summaries",
    "level_summaries",
    "measurement_summaries",
    "median_nees_band",
    "nees_band",
    "percentile",
    "regime_summaries",
]

#: An object is "tracked" when its position RMSE is at most this (km).
TRACKED_KM = 1.0


def percentile(values, q):
    return float(np.percentile(values, q)) if len(values) else float("nan")


def level_summaries(rows):
    """Per-level medians and 90th percentiles of the RMSE, fraction tracked, epsilons.

    Parameters
    ----------
    rows : list of dict
        The results table.

    Returns
    -------
    dict
        Level -> summary (``logdet`` and, for privatized levels, ``scaled`` RMSEs).
    """
    out = {}
    for level in dict.fromkeys(r["level"] for r in rows):
        mine = [r for r in rows if r["level"] == level]
        summary = {"objects": len(mine), "epsilon_pass_design": mine[0]["epsilon_pass_design"]}
        for suffix in ("", "_scaled"):
            if mine[0].get(f"position_rmse_km{suffix}", None) is None:
                continue
            position = np.array([r[f"position_rmse_km{suffix}"] for r in mine])
            velocity = np.array([r[f"velocity_rmse_m_s{suffix}"] for r in mine])
            name = "scaled" if suffix else ("none" if level == NO_PRIVACY else "logdet")
            summary[name] = {
                "position_rmse_km_median": percentile(position, 50),
                "position_rmse_km_p90": percentile(position, 90),
                "velocity_rmse_m_s_median": percentile(velocity, 50),
                "velocity_rmse_m_s_p90": percentile(velocity, 90),
                "fraction_tracked_within_1_km": float(np.mean(position <= TRACKED_KM)),
                "epsilon_pass_achieved_max": max(r[f"epsilon_pass_achieved{suffix}"] for r in mine),
                "epsilon_day_achieved_median": percentile(
                    [r[f"epsilon_day_achieved{suffix}"] for r in mine], 50
                ),
                "epsilon_day_achieved_max": max(r[f"epsilon_day_achieved{suffix}"] for r in mine),
                "updates_rejected": sum(r[f"updates_rejected{suffix}"] for r in mine),
                "objects_with_rejected_updates": sum(
                    r[f"updates_rejected{suffix}"] > 0 for r in mine
                ),
            }
        out[level] = summary
    return out


def regime_summaries(rows):
    """:func:`level_summaries` of each orbit regime's objects.

    Parameters
    ----------
    rows : list of dict
        The results table (its ``regime`` column: ``"leo"``, ``"meo"``, ``"geo"``).

    Returns
    -------
    dict
        Regime -> level -> summary, the regimes in the order they first appear.
    """
    by_regime = {}
    for row in rows:
        by_regime.setdefault(row["regime"], []).append(row)
    return {name: level_summaries(mine) for name, mine in by_regime.items()}


def certificate_summary(counts):
    """The pass designs of a run and how many have a passing certificate, per level and designer.

    Parameters
    ----------
    counts : iterable of dict
        Per object, ``{level: {designer: {"designs": int, "passed": int}}}``
        (:func:`~ssa_privacy.studies._ssa_catalog_task.certificate_counts`).

    Returns
    -------
    dict
        The same keys, the counts summed over the objects.
    """
    out = {}
    for mine in counts:
        for level, designers in mine.items():
            for designer, count in designers.items():
                total = out.setdefault(level, {}).setdefault(designer, {"designs": 0, "passed": 0})
                for key in total:
                    total[key] += count[key]
    return out


def measurement_summaries(rows):
    """Per per-measurement level: the pass and day epsilons its designs reach (medians, p90)."""
    out = {}
    for epsilon in dict.fromkeys(r["epsilon_measurement"] for r in rows):
        mine = [r for r in rows if r["epsilon_measurement"] == epsilon]
        out[f"{epsilon:g}"] = {
            key: {
                "median": percentile([r[key] for r in mine], 50),
                "p90": percentile([r[key] for r in mine], 90),
            }
            for key in ("epsilon_pass_median", "epsilon_pass_max", "epsilon_day")
        }
    return out


def nees_band(objects, dof=6, confidence=0.95):
    """Two-sided chi-square band of the NEES averaged over ``objects`` independent objects.

    Parameters
    ----------
    objects : int
        N, the objects averaged (1 for one object's time average).
    dof : int
        The state dimension (6).
    confidence : float
        Probability inside the band.

    Returns
    -------
    tuple of float
        ``F^{-1}_{chi^2_{dof N}}((1 -+ confidence) / 2) / N``. For one object the band is
        that of one epoch's NEES: a time average of NEES values that are each chi-square
        with ``dof`` degrees of freedom is smaller in convex order than one of them
        (Jensen), so the band holds it at least as tightly as the spread allows
        (Bar-Shalom, Li and Kirubarajan, 2001, §5.4.2).
    """
    tail = (1.0 - confidence) / 2.0
    low, high = stats.chi2.ppf([tail, 1.0 - tail], dof * objects) / objects
    return float(low), float(high)


def median_nees_band(objects, dof=6, confidence=0.95):
    """Two-sided band of the median NEES of ``objects`` independent consistent filters.

    Parameters
    ----------
    objects : int
        N, the objects.
    dof : int
        The state dimension (6).
    confidence : float
        Probability inside the band.

    Returns
    -------
    tuple of float
        The chi-square quantiles at the ``(1 -+ confidence) / 2`` quantiles of
        ``Beta(k, N + 1 - k)``, ``k = (N + 1) / 2``: the sample median is the k-th order
        statistic, and ``F(X_(k))`` of N independent draws is so distributed (David and
        Nagaraja, *Order Statistics*, 2003, §2.2). Unlike the mean's band it is not moved
        by the few filters that lose their object.
    """
    k = (objects + 1) / 2.0
    tail = (1.0 - confidence) / 2.0
    low, high = stats.beta.ppf([tail, 1.0 - tail], k, objects + 1 - k)
    return float(stats.chi2.ppf(low, dof)), float(stats.chi2.ppf(high, dof))


def consistency_summary(rows):
    """Per level and designer: how many objects' time-averaged NEES lie in the band.

    Parameters
    ----------
    rows : list of dict
        ``level``, ``designer``, ``nees_mean`` (None without a truth) per object.

    Returns
    -------
    dict
        ``{level: {designer: {...}}}`` with ``objects``, ``band`` (one object's),
        ``fraction_inside``, ``below`` and ``above`` (counts), ``mean`` and ``median``
        over the objects with their bands (:func:`nees_band`, :func:`median_nees_band`).
    """
    out = {}
    for row in rows:
        if row["nees_mean"] is None:
            continue
        out.setdefault(row["level"], {}).setdefault(row["designer"], []).append(row["nees_mean"])
    low, high = nees_band(1)
    for designers in out.values():
        for designer, values in designers.items():
            values = np.array(values)
            designers[designer] = {
                "objects": len(values),
                "band": [low, high],
                "fraction_inside": float(np.mean((values >= low) & (values <= high))),
                "below": int(np.sum(values < low)),
                "above": int(np.sum(values > high)),
                "mean": float(values.mean()),
                "mean_band": list(nees_band(len(values))),
                "median": float(np.median(values)),
                "median_band": list(median_nees_band(len(values))),
            }
    return out


def day_summaries(rows):
    """Per day budget and designer: feasibility, achieved day epsilon and tracking.

    Parameters
    ----------
    rows : list of dict
        ``day_budgets.csv`` (:func:`~ssa_privacy.studies._ssa_catalog_day.day_rows`).

    Returns
    -------
    dict
        ``{level: {designer: {...}}}``: ``objects``, ``infeasible``, ``certificates_passed``,
        ``largest_shortfall_nats`` (budget minus achieved, over objects with passes),
        ``position_rmse_km_median`` and ``_p90``, ``velocity_rmse_m_s_median`` (feasible
        objects).
    """
    out = {}
    for level in dict.fromkeys(r["level"] for r in rows):
        for designer in dict.fromkeys(r["designer"] for r in rows if r["level"] == level):
            mine = [r for r in rows if r["level"] == level and r["designer"] == designer]
            done = [r for r in mine if r["feasible"]]
            seen = [r for r in done if r["passes"]]
            position = [r["position_rmse_km"] for r in done if r["position_rmse_km"] is not None]
            velocity = [r["velocity_rmse_m_s"] for r in done if r["velocity_rmse_m_s"] is not None]
            out.setdefault(level, {})[designer] = {
                "objects": len(mine),
                "infeasible": len(mine) - len(done),
                "certificates_passed": sum(r["certificate_passed"] for r in done),
                "largest_shortfall_nats": max(
                    (r["epsilon_day"] - r["epsilon_day_achieved"] for r in seen), default=None
                ),
                "epsilon_day_achieved_max": max(
                    (r["epsilon_day_achieved"] for r in seen), default=None
                ),
                "position_rmse_km_median": percentile(position, 50),
                "position_rmse_km_p90": percentile(position, 90),
                "velocity_rmse_m_s_median": percentile(velocity, 50),
            }
    return out
