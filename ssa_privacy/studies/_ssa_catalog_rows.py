"""The rows an ssa-catalog task returns for one object: tracking, leakage and consistency.

:func:`level_rows` gives ``results.csv`` (one row per level: the log-det designer's
columns, the scaled designer's beside them), :func:`per_measurement_rows`
``per_measurement.csv`` and :func:`consistency_rows` ``consistency.csv``; the tracking
columns come from :func:`tracking_errors` (RMSE) and :func:`normalized_errors` (NEES).
"""

import numpy as np
from scipy import stats

from ssa_privacy.orbits.catalog import regime
from ssa_privacy.privacy.pml.passes import per_measurement_epsilons

__all__ = [
    "CORRELATION_FLOOR",
    "NO_PRIVACY",
    "consistency_rows",
    "level_rows",
    "normalized_errors",
    "number",
    "per_measurement_rows",
    "tracking_errors",
]

NO_PRIVACY = "none"
#: Least eigenvalue of a covariance's correlation matrix the NEES divides by: 64 n u.
CORRELATION_FLOOR = 64 * 6 * np.finfo(float).eps


def tracking_errors(errors, filters):
    """Position (km) and velocity (m/s) RMSE over the evaluation times, shape (F, E, 6).

    Without a truth (recorded measurements, ``errors`` None), None for each of the filters."""
    if errors is None:
        return [None] * filters, [None] * filters
    position = np.sqrt(np.mean(np.sum(errors[..., :3] ** 2, axis=-1), axis=-1))
    velocity = 1e3 * np.sqrt(np.mean(np.sum(errors[..., 3:] ** 2, axis=-1), axis=-1))
    return position, velocity


def normalized_errors(errors, covariances):
    """The NEES ``e^T P^-1 e`` of each filter's estimate at each evaluation time.

    Parameters
    ----------
    errors : ndarray, shape (F, E, 6)
        Estimate minus truth (km, km/s).
    covariances : ndarray, shape (F, E, 6, 6)
        The filters' covariances at those times, positive definite.

    Returns
    -------
    ndarray, shape (F, E)
        Chi-square with 6 degrees of freedom at each time for a consistent filter
        (Bar-Shalom, Li and Kirubarajan, 2001, §5.4.2).

    Notes
    -----
    Computed on the correlation matrix (the covariance divided by its standard
    deviations), whose eigenvalues below :data:`CORRELATION_FLOOR` (round-off of a
    6 x 6 matrix of unit scale; over a day the J2 flow stretches a covariance until
    one combination of along-track position and semi-major axis is known that well)
    are raised to it.
    """
    scale = np.sqrt(np.einsum("...ii->...i", covariances))
    correlations = covariances / (scale[..., :, None] * scale[..., None, :])
    values, vectors = np.linalg.eigh(0.5 * (correlations + np.swapaxes(correlations, -1, -2)))
    whitened = np.einsum("...ji,...j->...i", vectors, errors / scale)
    return np.sum(whitened**2 / np.maximum(values, CORRELATION_FLOOR), axis=-1)


def level_rows(element_set, found, filters, accounts, tracking):
    """One row per level: the logdet filter's RMSE, and the scaled designer's beside it."""
    ident = {"norad_id": element_set.norad_id, "regime": regime(element_set)}
    counts = {"measurements": int(sum(len(p.indices) for p in found)), "passes": len(found)}
    by_label = {}
    for f, (label, epsilon, designer) in enumerate(filters):
        entry = by_label.setdefault(label, {"epsilon": epsilon})
        entry[designer or "logdet"] = (accounts[f], *(column[f] for column in tracking))
    rows = []
    for label, entry in by_label.items():
        (pass_eps, day_eps), pos, vel, rejected, nees, nis = entry["logdet"]
        row = {
            **ident,
            "level": label,
            "epsilon_pass_design": np.inf if entry["epsilon"] is None else entry["epsilon"],
            "epsilon_pass_achieved": pass_eps,
            "epsilon_day_achieved": day_eps,
            "position_rmse_km": pos,
            "velocity_rmse_m_s": vel,
            **counts,
            "updates_rejected": int(rejected),
            "nees_mean": number(nees),
            "nis_per_dof": number(nis),
        }
        if "scaled" in entry:
            (pass_s, day_s), pos_s, vel_s, rejected_s, nees_s, nis_s = entry["scaled"]
            row.update(
                epsilon_pass_achieved_scaled=pass_s,
                epsilon_day_achieved_scaled=day_s,
                position_rmse_km_scaled=pos_s,
                velocity_rmse_m_s_scaled=vel_s,
                updates_rejected_scaled=int(rejected_s),
                nees_mean_scaled=number(nees_s),
                nis_per_dof_scaled=number(nis_s),
            )
        rows.append(row)
    return rows


def number(value):
    """A float, or None for a missing value."""
    return None if value is None else float(value)


def per_measurement_rows(scenario, norad, Sigma_XX, found):
    """Pass and day epsilons of today's per-measurement designs, one row per level."""
    rows = []
    for epsilon in scenario.per_measurement_epsilons:
        passes_eps, day = per_measurement_epsilons(
            Sigma_XX, found, epsilon, scenario.delta, scenario.convention
        )
        rows.append(
            {
                "norad_id": norad,
                "epsilon_measurement": epsilon,
                "epsilon_pass_median": float(np.median(passes_eps)) if found else 0.0,
                "epsilon_pass_max": float(np.max(passes_eps)) if found else 0.0,
                "epsilon_day": day,
                "passes": len(found),
            }
        )
    return rows


def consistency_rows(norad, filters, diagnostics):
    """One row per filter: its NIS and time-averaged NEES against their 95% bands.

    Parameters
    ----------
    norad : int
        The object.
    filters : list of tuple
        ``(label, epsilon, designer)`` per filter.
    diagnostics : dict
        :func:`~ssa_privacy.estimation.ekf.track_contacts`'s, with ``nees`` (F, E) when
        there is a truth.

    Returns
    -------
    list of dict
        ``nis_per_dof`` (the NIS summed over the updates, divided by their rows) in the
        chi-square band of its degrees of freedom; ``nees_mean`` (over the evaluation
        times) in that of one epoch (:func:`~ssa_privacy.studies._ssa_catalog_summaries.nees_band`).
    """
    low_e, high_e = stats.chi2.ppf([0.025, 0.975], 6)
    rows = []
    for f, (label, _, designer) in enumerate(filters):
        dof = int(diagnostics["nis_dof"][f])
        low, high = stats.chi2.ppf([0.025, 0.975], dof) / dof if dof else (None, None)
        nis = float(diagnostics["nis"][f]) / dof if dof else None
        nees = float(diagnostics["nees"][f].mean()) if "nees" in diagnostics else None
        rows.append(
            {
                "norad_id": norad,
                "level": label,
                "designer": designer or NO_PRIVACY,
                "nis_per_dof": nis,
                "dof": dof,
                "band_low": low,
                "band_high": high,
                "consistent": None if nis is None else bool(low <= nis <= high),
                "nees_mean": nees,
                "nees_band_low": float(low_e),
                "nees_band_high": float(high_e),
                "nees_consistent": None if nees is None else bool(low_e <= nees <= high_e),
            }
        )
    return rows
