"""The summaries of the ssa-catalog study's tables (``results.json``)."""

import numpy as np

from ssa_privacy.studies._ssa_catalog_task import NO_PRIVACY

__all__ = [
    "TRACKED_KM",
    "certificate_summary",
    "level_summaries",
    "measurement_summaries",
    "percentile",
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
