"""The rows an ssa-catalog task returns for one object: tracking, leakage and consistency.

:func:`level_rows` gives ``results.csv`` (one row per level: the log-det designer's
columns, the scaled designer's beside them, :data:`RESULTS_COLUMNS`),
:func:`per_measurement_rows` ``per_measurement.csv`` and :func:`consistency_rows`
``consistency.csv``; the tracking columns are the RMSE and NEES of the filters
(:func:`~ssa_privacy.estimation.tracking.rmse`,
:func:`~ssa_privacy.estimation.consistency.nees`), taken at the times
:func:`evaluation_indices` gives.

Evaluation rule: an object's filters are judged at the run's evaluation times (every
``EVALUATION_STEP`` seconds over the second half of the window) that are at or after
the end of its first contact, the first time its filters have taken a measurement in;
before it they hold the prior's prediction, which says nothing of the tracking. An
object that no sensor sees (``status`` :data:`NO_CONTACT`), or whose first contact ends
after the last evaluation time, has no RMSE and no NEES.
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy.estimation.consistency import chi_square_band
from ssa_privacy.orbits.catalog import regime, utc_text
from ssa_privacy.privacy.pml.passes import per_measurement_epsilons
from ssa_privacy.sensors.streams import contacts

__all__ = [
    "DESIGNER_COLUMNS",
    "Level",
    "NO_CONTACT",
    "NO_PRIVACY",
    "RESULTS_COLUMNS",
    "SUFFIXES",
    "TRACKED",
    "consistency_rows",
    "contact_columns",
    "evaluation_indices",
    "level_rows",
    "number",
    "pass_levels",
    "per_measurement_rows",
]

NO_PRIVACY = "none"
#: ``status`` of an object with at least one contact in the window, and of one without.
TRACKED, NO_CONTACT = "tracked", "no contact"
#: The columns of ``results.csv`` that each pass designer fills, its suffix appended
#: (:data:`SUFFIXES`); the level without privacy fills the unsuffixed ones.
DESIGNER_COLUMNS = (
    "epsilon_pass_achieved",
    "epsilon_day_achieved",
    "position_rmse_km",
    "velocity_rmse_m_s",
    "updates_rejected",
    "nees_mean",
    "nis_per_dof",
)
#: The suffix of each pass designer's columns in ``results.csv``.
SUFFIXES = {"logdet": "", "scaled": "_scaled"}


@dataclass(frozen=True, eq=False)
class Level:
    """One filter of an object: its privacy level, how its passes are released, and what
    they leak.

    Parameters
    ----------
    label : str
        The level in the tables: :data:`NO_PRIVACY`, a pass budget ``f"{epsilon:g}"`` or a
        day budget ``f"day {epsilon:g}"``.
    epsilon : float or None
        Its budget (nats); None without privacy.
    designer : str or None
        Its designer (:data:`SUFFIXES` for a pass budget,
        :data:`~ssa_privacy.studies.ssa_catalog.day.DESIGNERS` for a day budget); None
        without privacy.
    mechanisms : list, optional
        Per pass, the mechanism that releases it, or None (released as measured).
    account : tuple of float, optional
        The largest achieved epsilon of a pass and that of the day (nats); zeros without
        a pass.
    design : DayMechanism, optional
        A day level's design (None for a pass level and for an object without a pass).
    releases : list, optional
        Per pass its release, once released
        (:func:`~ssa_privacy.sensors.simulation.release_passes`).
    """

    label: str
    epsilon: object
    designer: object
    mechanisms: list = ()
    account: tuple = (0.0, 0.0)
    design: object = None
    releases: list = ()

    @property
    def ident(self):
        """``level`` and ``designer`` (:data:`NO_PRIVACY` without privacy) of its rows."""
        return {"level": self.label, "designer": self.designer or NO_PRIVACY}


def pass_levels(scenario):
    """The pass levels of a run, in the order of its columns, without their mechanisms:
    no privacy (``Level(NO_PRIVACY, None, None)``) then each pass budget x designer
    (label ``f"{epsilon:g}"``, epsilon in nats)."""
    levels = [Level(f"{e:g}", e, d) for e in scenario.epsilons for d in scenario.designers]
    return [Level(NO_PRIVACY, None, None), *levels]


_UNSUFFIXED = (
    ("norad_id", "int"),
    ("regime", "str"),
    ("level", "str"),
    ("epsilon_pass_design", "float"),
    ("epsilon_pass_achieved", "float"),
    ("epsilon_day_achieved", "float"),
    ("position_rmse_km", "float"),
    ("velocity_rmse_m_s", "float"),
    ("measurements", "int"),
    ("passes", "int"),
    ("first_contact_utc", "str"),
    ("status", "str"),
    ("updates_rejected", "int"),
    ("nees_mean", "float"),
    ("nis_per_dof", "float"),
)
#: Every column of ``results.csv`` in order, with its kind
#: (:data:`~ssa_privacy.engine.tables.KINDS`). Every row has all of them: the columns of
#: a designer the run does not use are empty, and so are the ``_scaled`` ones of the
#: level without privacy.
RESULTS_COLUMNS = _UNSUFFIXED + tuple(
    (f"{name}_scaled", kind) for name, kind in _UNSUFFIXED if name in DESIGNER_COLUMNS
)


def evaluation_indices(scenario, found):
    """The grid indices at which an object's filters are judged (module docstring).

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        Its ``evaluate``: the run's evaluation indices (increasing).
    found : list of Pass
        The object's passes.

    Returns
    -------
    ndarray of int, shape (E',)
        The evaluation indices at or after the last index of the object's first contact
        (:func:`~ssa_privacy.sensors.streams.contacts`): from there on its filters'
        estimates have taken a measurement in. Empty without a pass.
    """
    if not found:
        return scenario.evaluate[:0]
    end = max(found[i].indices[-1] for i in contacts(found)[0])
    return scenario.evaluate[scenario.evaluate >= end]


def contact_columns(scenario, found):
    """What ``results.csv`` says of an object's contacts: ``first_contact_utc`` and ``status``.

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        Its ``start_jd`` and ``times``.
    found : list of Pass
        The object's passes.

    Returns
    -------
    dict
        ``first_contact_utc``: the time of its first measurement, ISO 8601 UTC to the
        second (:func:`~ssa_privacy.orbits.catalog.utc_text`), None without one;
        ``status``: :data:`TRACKED` with a pass, :data:`NO_CONTACT` without.
    """
    if not found:
        return {"first_contact_utc": None, "status": NO_CONTACT}
    first = scenario.times[min(p.indices[0] for p in found)]
    return {
        "first_contact_utc": utc_text(scenario.start_jd + first / 86400.0),
        "status": TRACKED,
    }


def level_rows(element_set, found, levels, tracking, contact):
    """One row per level of one object (``results.csv``, :data:`RESULTS_COLUMNS`).

    Parameters
    ----------
    element_set : ElementSet
        The object.
    found : list of Pass
        Its passes.
    levels : list of Level
        Per filter, its level (label, budget, designer; designer None for the level
        without privacy) and account (the largest achieved pass epsilon and the day's).
    tracking : tuple of sequences
        Per filter: position RMSE (km), velocity RMSE (m/s), rejected updates, mean NEES
        and NIS per degree of freedom (None where not measured).
    contact : dict
        :func:`contact_columns`.

    Returns
    -------
    list of dict
        One row per level, in the order the filters give them, with every column of
        :data:`RESULTS_COLUMNS`: each filter fills its designer's columns
        (:data:`SUFFIXES`; the level without privacy the unsuffixed ones), the others are
        None.
    """
    common = {
        "norad_id": element_set.norad_id,
        "regime": regime(element_set),
        "measurements": int(sum(len(p.indices) for p in found)),
        "passes": len(found),
        **contact,
    }
    rows = {}
    for f, level in enumerate(levels):
        design = np.inf if level.epsilon is None else level.epsilon
        row = rows.setdefault(level.label, dict.fromkeys(name for name, _ in RESULTS_COLUMNS))
        row.update(common, level=level.label, epsilon_pass_design=design)
        pass_eps, day_eps = level.account
        position, velocity, rejected, nees, nis = (column[f] for column in tracking)
        values = (pass_eps, day_eps, number(position), number(velocity), int(rejected))
        values += (number(nees), number(nis))
        suffix = "" if level.designer is None else SUFFIXES[level.designer]
        row.update({f"{name}{suffix}": v for name, v in zip(DESIGNER_COLUMNS, values)})
    return list(rows.values())


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


def consistency_rows(norad, levels, diagnostics, status):
    """One row per filter: its NIS and time-averaged NEES against their 95% bands.

    Parameters
    ----------
    norad : int
        The object.
    levels : list of Level
        Per filter, its level.
    diagnostics : dict
        ``covariances``, ``nis`` and ``nis_dof`` per filter (F,) (the NIS summed over the
        contacts, :class:`~ssa_privacy.estimation.tracking.TrackResult`), with ``nees`` (F, E) when
        there is a truth: NaN at the evaluation times not measured
        (:func:`evaluation_indices`).
    status : str
        The object's :data:`TRACKED` or :data:`NO_CONTACT`.

    Returns
    -------
    list of dict
        ``status``; ``nis_per_dof`` (the NIS summed over the updates, divided by their
        rows) in the chi-square band of its degrees of freedom (None without an update);
        ``nees_mean`` (over the evaluation times measured, None without one) in that of
        one epoch (:func:`~ssa_privacy.studies.ssa_catalog.summaries.nees_band`).
    """
    low_e, high_e = chi_square_band(6)
    rows = []
    for f, level in enumerate(levels):
        dof = int(diagnostics["nis_dof"][f])
        low, high = chi_square_band(1, dof) if dof else (None, None)  # NIS per row
        nis = float(diagnostics["nis"][f]) / dof if dof else None
        nees = _measured_mean(diagnostics["nees"][f]) if "nees" in diagnostics else None
        rows.append(
            {
                "norad_id": norad,
                **level.ident,
                "status": status,
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


def _measured_mean(values):
    """The mean of the values that are not NaN, None if there is none."""
    measured = values[~np.isnan(values)]
    return float(measured.mean()) if measured.size else None
