"""Tables of the ssa-leakage study: the columns of leakage.csv and the summaries.

``leakage.csv`` has one row per pass and budget (:data:`COLUMNS`);
:func:`summary_rows` condenses it per regime and budget (``results.csv``) and
:func:`validation_summary` the importance-sampling check of the Laplace evidence.
"""

import numpy as np

__all__ = [
    "COLUMNS",
    "summary_rows",
    "validation_summary",
]

#: Columns of leakage.csv, in order; a column that does not apply to a row is empty
#: (the importance-sampling columns outside the validated passes, the restoration's
#: outside the exceeding ones).
COLUMNS = (
    "regime",
    "norad_id",
    "name",
    "position",
    "pass_index",
    "station",
    "start_h",
    "mid_h",
    "samples",
    "epsilon",
    "delta",
    "outcomes",
    "exceedance",
    "ci_low",
    "ci_high",
    "linear_exceedance",
    "linear_ci_low",
    "linear_ci_high",
    "verdict",
    "linear_verdict",
    "median_leakage",
    "median_linear_leakage",
    "max_map_step",
    "max_ml_step",
    "search",
    "median_ml_gain",
    "exceedance_with_gain",
    "is_max_abs_error",
    "is_min_ess",
    "plain_noise_trace",
    "prior_position_std_km",
    "plain_position_std_km",
    "eta",
    "restored_exceedance",
    "restored_ci_low",
    "restored_ci_high",
    "restored_linear_exceedance",
    "restored_linear_ci_low",
    "restored_linear_ci_high",
    "restored_verdict",
    "restored_added_trace",
    "restored_position_std_km",
    "restoration_error",
)


def _median(values):
    """Median of the values that are not None, or None."""
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else None


def summary_rows(rows):
    """One row per regime and budget: verdict counts and typical values.

    Parameters
    ----------
    rows : list of dict
        The rows of ``leakage.csv`` (:data:`COLUMNS`).

    Returns
    -------
    list of dict
        ``regime``, ``epsilon``, ``passes``, the counts of each verdict of the real and
        the linearised release, the median and largest exceedance, the passes whose ML
        search stopped short (``lower_bound_passes``), the restored passes and how many
        of them still exceed, and the median position standard deviation at the pass's
        midpoint (prior, plain design, restored design; km).
    """
    summaries = []
    keys = sorted({(r["regime"], r["epsilon"]) for r in rows}, key=lambda k: (k[1], k[0]))
    for regime, epsilon in keys:
        mine = [r for r in rows if r["regime"] == regime and r["epsilon"] == epsilon]
        restored = [r for r in mine if r["restored_exceedance"] is not None]
        summary = {"regime": regime, "epsilon": epsilon, "passes": len(mine)}
        for verdict in ("exceeds", "undecided", "within"):
            summary[verdict] = sum(r["verdict"] == verdict for r in mine)
            summary[f"linear_{verdict}"] = sum(r["linear_verdict"] == verdict for r in mine)
        summary.update(
            median_exceedance=_median(r["exceedance"] for r in mine),
            max_exceedance=max(r["exceedance"] for r in mine),
            max_linear_exceedance=max(r["linear_exceedance"] for r in mine),
            lower_bound_passes=sum(r["search"] == "lower bound" for r in mine),
            restored_passes=len(restored),
            restorations_refused=sum(r["restored_verdict"] == "not built" for r in mine),
            restored_still_exceeding=sum(r["restored_verdict"] == "exceeds" for r in restored),
            prior_position_std_km=_median(r["prior_position_std_km"] for r in mine),
            plain_position_std_km=_median(r["plain_position_std_km"] for r in mine),
            restored_position_std_km=_median(r["restored_position_std_km"] for r in restored),
        )
        summaries.append(summary)
    return summaries


def validation_summary(checks):
    """The importance-sampling check of the Laplace evidence, condensed.

    Parameters
    ----------
    checks : list of dict
        Rows of ``validation.csv``: ``is_minus_laplace`` (nats) and ``ess`` per outcome.

    Returns
    -------
    dict
        ``outcomes`` checked, the largest ``|IS - Laplace|`` (nats), the median of it and
        the smallest effective sample size (None without checks).
    """
    errors = [abs(c["is_minus_laplace"]) for c in checks]
    return {
        "outcomes": len(checks),
        "max_abs_is_minus_laplace": max(errors) if errors else None,
        "median_abs_is_minus_laplace": _median(errors),
        "min_ess": min(c["ess"] for c in checks) if checks else None,
        "what": "log p(y) by importance sampling (multivariate t, df 4, 10 % prior draws) "
        "minus its Laplace approximation, on the first outcomes of the validated passes",
    }
