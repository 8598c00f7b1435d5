"""The summaries of the ssa-catalog study's tables (``results.json``).

Objects without a contact (``status`` ``"no contact"``) are counted apart in every
summary (``objects_without_contact``) and left out of its medians, percentiles,
fractions and maxima: they leak nothing and have no RMSE or NEES.
"""

from array import array

import numpy as np

from ssa_privacy.attacks.detectability import UNKNOWN
from ssa_privacy.estimation.consistency import chi_square_band, median_chi_square_band
from ssa_privacy.studies.ssa_catalog.rows import NO_CONTACT, NO_PRIVACY, SUFFIXES, TRACKED

__all__ = [
    "TRACKED_KM",
    "certificate_summary",
    "consistency_summary",
    "day_summaries",
    "detectability_summary",
    "level_summaries",
    "measurement_summaries",
    "percentile",
    "regime_summaries",
]

#: An object is "tracked within 1 km" when its position RMSE is at most this (km).
TRACKED_KM = 1.0


def percentile(values, q):
    """The q-th percentile of ``values``, NaN (``null`` in ``results.json``) if empty."""
    return float(np.percentile(values, q)) if len(values) else float("nan")


def _fraction(flags):
    """The fraction of true ``flags``, NaN if there is none."""
    return float(np.mean(flags)) if len(flags) else float("nan")


def level_summaries(rows):
    """Per-level medians and 90th percentiles of the RMSE, fraction tracked, epsilons.

    Parameters
    ----------
    rows : list of dict
        The results table (:data:`~ssa_privacy.studies.ssa_catalog.rows.RESULTS_COLUMNS`).

    Returns
    -------
    dict
        Level -> ``objects`` (all), ``objects_without_contact``, ``epsilon_pass_design``
        and, per designer the level ran (``none`` for the level without privacy,
        ``logdet`` and ``scaled`` for the others; a designer whose columns are empty
        in every row was not run and is left out), :func:`_designer_summary` over the
        objects with a contact.
    """
    out = {}
    for level in dict.fromkeys(r["level"] for r in rows):
        mine = [r for r in rows if r["level"] == level]
        seen = [r for r in mine if r["status"] == TRACKED]
        summary = {
            "objects": len(mine),
            "objects_without_contact": sum(r["status"] == NO_CONTACT for r in mine),
            "epsilon_pass_design": mine[0]["epsilon_pass_design"],
        }
        names = {NO_PRIVACY: ""} if level == NO_PRIVACY else SUFFIXES
        for name, suffix in names.items():
            if all(r.get(f"epsilon_pass_achieved{suffix}") is None for r in mine):
                continue
            summary[name] = _designer_summary(seen, suffix)
        out[level] = summary
    return out


def _designer_summary(rows, suffix):
    """One designer's summary over the rows of objects with a contact: ``objects_with_rmse``
    (those with an evaluation time after their first contact and a truth), the median
    and 90th percentile of their position and velocity RMSE and the fraction within
    :data:`TRACKED_KM`; the largest achieved pass epsilon, the median and largest day
    epsilon, the rejected updates and the objects with one (None or NaN without rows)."""

    def column(name):
        return [r[f"{name}{suffix}"] for r in rows]

    position = np.array([v for v in column("position_rmse_km") if v is not None])
    velocity = [v for v in column("velocity_rmse_m_s") if v is not None]
    rejected = column("updates_rejected")
    return {
        "objects_with_rmse": len(position),
        "position_rmse_km_median": percentile(position, 50),
        "position_rmse_km_p90": percentile(position, 90),
        "velocity_rmse_m_s_median": percentile(velocity, 50),
        "velocity_rmse_m_s_p90": percentile(velocity, 90),
        "fraction_tracked_within_1_km": _fraction(position <= TRACKED_KM),
        "epsilon_pass_achieved_max": max(column("epsilon_pass_achieved"), default=None),
        "epsilon_day_achieved_median": percentile(column("epsilon_day_achieved"), 50),
        "epsilon_day_achieved_max": max(column("epsilon_day_achieved"), default=None),
        "updates_rejected": sum(rejected),
        "objects_with_rejected_updates": sum(n > 0 for n in rejected),
    }


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
        (:func:`~ssa_privacy.studies.ssa_catalog.task.certificate_counts`).

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


def consistency_summary(rows):
    """Per level and designer: how many objects' time-averaged NEES lie in the band.

    Parameters
    ----------
    rows : list of dict
        ``level``, ``designer``, ``status`` and ``nees_mean`` (None when not measured:
        without a truth, a contact or an evaluation time after it) per object and filter.

    Returns
    -------
    dict
        ``{level: {designer: {...}}}`` with ``objects`` (those with a NEES),
        ``objects_without_contact``, ``band`` (one object's), ``fraction_inside``,
        ``below`` and ``above`` (counts), ``mean`` and ``median`` over the objects with a
        NEES, with their bands
        (:func:`~ssa_privacy.estimation.consistency.chi_square_band`,
        :func:`~ssa_privacy.estimation.consistency.median_chi_square_band`, 95%, 6
        degrees of freedom); the statistics are None when no object has a NEES.

    Notes
    -----
    One object's band is that of one epoch's NEES: a time average of NEES values that
    are each chi-square with 6 degrees of freedom is smaller in convex order than one of
    them (Jensen), so the band holds it at least as tightly as the spread allows
    (Bar-Shalom, Li and Kirubarajan, 2001, §5.4.2).
    """
    groups = {}
    for row in rows:
        group = groups.setdefault(row["level"], {}).setdefault(row["designer"], [[], 0])
        group[1] += row["status"] == NO_CONTACT
        if row["nees_mean"] is not None:
            group[0].append(row["nees_mean"])
    low, high = chi_square_band(6)
    return {
        level: {
            designer: {
                "objects": len(values),
                "objects_without_contact": unseen,
                "band": [low, high],
                **_nees_statistics(np.array(values), low, high),
            }
            for designer, (values, unseen) in designers.items()
        }
        for level, designers in groups.items()
    }


def _nees_statistics(values, low, high):
    """:func:`consistency_summary`'s statistics of the time-averaged NEES ``values``."""
    if not len(values):
        names = ("fraction_inside", "below", "above", "mean", "mean_band", "median")
        return dict.fromkeys((*names, "median_band"))
    return {
        "fraction_inside": float(np.mean((values >= low) & (values <= high))),
        "below": int(np.sum(values < low)),
        "above": int(np.sum(values > high)),
        "mean": float(values.mean()),
        "mean_band": list(chi_square_band(6, len(values))),
        "median": float(np.median(values)),
        "median_band": list(median_chi_square_band(6, len(values))),
    }


def day_summaries(rows):
    """Per day budget and designer: feasibility, achieved day epsilon and tracking.

    Parameters
    ----------
    rows : list of dict
        ``day_budgets.csv`` (:func:`~ssa_privacy.studies.ssa_catalog.day.day_rows`).

    Returns
    -------
    dict
        ``{level: {designer: {...}}}``: ``objects``, ``objects_without_contact``,
        ``infeasible``, ``certificates_passed``, ``largest_shortfall_nats`` (budget minus
        achieved) and ``epsilon_day_achieved_max`` over objects with a contact,
        ``position_rmse_km_median`` and ``_p90``, ``velocity_rmse_m_s_median`` (feasible
        objects with an RMSE).
    """
    out = {}
    for level in dict.fromkeys(r["level"] for r in rows):
        for designer in dict.fromkeys(r["designer"] for r in rows if r["level"] == level):
            mine = [r for r in rows if r["level"] == level and r["designer"] == designer]
            done = [r for r in mine if r["feasible"]]
            seen = [r for r in done if r["status"] == TRACKED]
            position = [r["position_rmse_km"] for r in done if r["position_rmse_km"] is not None]
            velocity = [r["velocity_rmse_m_s"] for r in done if r["velocity_rmse_m_s"] is not None]
            out.setdefault(level, {})[designer] = {
                "objects": len(mine),
                "objects_without_contact": sum(r["status"] == NO_CONTACT for r in mine),
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


#: What the columns of :func:`detectability_summary` are.
WHAT = {
    "auc": "exact AUC of the Neyman-Pearson test of the nonlinear shift (manoeuvred orbit "
    "propagated and measured, minus nominal) in the Gaussian release noise (sensor plus "
    "privacy); median over objects",
    "tpr": "its true-positive rate at false-positive rate 0.01",
    "auc_linear": "the linearised prediction: the same AUC for the shift C [0; Delta v]",
    "auc_cap": "the most any (epsilon, delta)-PML linear Gaussian release with the filter's "
    "achieved epsilon allows (pml_detection_cap)",
    "unknown": "direction uniform on the sphere (32 Fibonacci directions): Monte Carlo AUC of "
    "the averaged likelihood ratio test (4000 draws per hypothesis), with the medians of "
    "the ends of its 95% intervals",
}

#: The columns detectability_summary takes the median of, per direction (None: known ones).
_SUMMARIZED = {
    UNKNOWN: ("auc", "auc_low", "auc_high", "tpr"),
    None: ("auc", "tpr", "auc_linear", "auc_cap"),
}


def _median(values):
    """The median of an array of floats, None if it is empty."""
    return float(np.median(np.frombuffer(values))) if len(values) else None


def detectability_summary(rows):
    """Medians over objects of the detectability rows, for ``results.json``.

    Parameters
    ----------
    rows : iterable of dict
        :func:`~ssa_privacy.attacks.detectability.object_detectability` rows of all
        objects, read once (only the summarized columns are kept, as arrays: a whole
        catalogue has millions of rows).

    Returns
    -------
    dict
        ``{level: {designer: {scope: {direction: {magnitude (str, m/s): {"objects", "auc",
        "tpr", "auc_linear", "auc_cap"}}}}}}`` (medians; for the unknown direction ``auc``,
        ``auc_low``, ``auc_high``, ``tpr``), and ``"what"``: what each is.
    """
    groups = {}
    for row in rows:
        key = (row["level"], row["designer"], row["scope"], row["direction"])
        columns = _SUMMARIZED.get(row["direction"], _SUMMARIZED[None])
        group = groups.setdefault(key, {}).setdefault(
            f"{row['magnitude_m_s']:g}", {"objects": 0, **{k: array("d") for k in columns}}
        )
        group["objects"] += 1
        for k in columns:
            if row.get(k) is not None:
                group[k].append(row[k])
    out = {}
    for (level, designer, scope, direction), by_magnitude in groups.items():
        place = out.setdefault(level, {}).setdefault(designer, {}).setdefault(scope, {})
        place[direction] = {
            magnitude: {k: v if k == "objects" else _median(v) for k, v in group.items()}
            for magnitude, group in by_magnitude.items()
        }
    return {**out, "what": dict(WHAT)}
