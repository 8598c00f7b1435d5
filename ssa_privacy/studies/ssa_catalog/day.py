"""The day budgets of the ssa-catalog study: one (epsilon_day, delta) per object over all passes.

For each day budget of the scenario and each designer of :data:`DESIGNERS` (``"day"``:
of the least-noise design that meets the day budget with noise independent across passes
and the ``"pass"`` design, the one the study's filter tracks better on simulated days,
:mod:`~ssa_privacy.studies.ssa_catalog.day_judge`; ``"pass"``: the
pass-level log-det design at one common pass budget, lowered until the day meets the
budget; ``"measurement"``: today's per-measurement designs scaled by one factor over the
day), the object's passes are designed before the day from the predicted schedule
(:meth:`DayMechanism.design <ssa_privacy.privacy.pml.day_design.DayMechanism.design>`),
released pass by pass through the day mechanism's members and tracked like the other
levels. A designer that cannot meet a budget for an object (a pass that sees few
directions has a lower floor, so a common pass budget may leak too much already) is
recorded as infeasible there; an object without a pass leaks nothing and is tracked by
prediction alone.
"""

from ssa_privacy.privacy.pml.day_design import DayMechanism
from ssa_privacy.studies.ssa_catalog.rows import Level

__all__ = ["DESIGNERS", "day_aliases", "day_levels", "day_rows"]

#: The day designers the study compares (:mod:`ssa_privacy.privacy.pml.day_design`).
DESIGNERS = ("day", "pass", "measurement")


def day_levels(scenario, Sigma_XX, found, score):
    """The day levels of one object: their designs, mechanisms and accounts.

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        Its ``day_epsilons``, ``delta`` and ``convention``.
    Sigma_XX : ndarray, shape (6, 6)
        The object's prior (km^2, km^2/s, km^2/s^2).
    found : list of Pass
        The object's passes over the day.
    score : callable
        The "day" designer's judge
        (:func:`~ssa_privacy.studies.ssa_catalog.day_judge.filter_judge`).

    Returns
    -------
    levels : list of Level
        Every feasible design (label ``f"day {epsilon_day:g}"``), its DayMechanism as
        ``design`` (None for an object without passes), the mechanisms of its passes and
        its account (the largest pass epsilon and the day's; zeros without passes).
    infeasible : list of tuple
        ``(label, epsilon_day, designer, reason)`` of the designs that failed.
    """
    levels, infeasible = [], []
    for epsilon in scenario.day_epsilons:
        label = f"day {epsilon:g}"
        for designer in DESIGNERS:
            if not found:
                levels.append(Level(label, epsilon, designer))
                continue
            try:
                mechanism = DayMechanism.design(
                    found,
                    Sigma_XX,
                    epsilon,
                    scenario.delta,
                    designer=designer,
                    convention=scenario.convention,
                    score=score,
                )
            except ValueError as error:
                infeasible.append((label, epsilon, designer, str(error)))
                continue
            account = (max(p.leakage.epsilon for p in mechanism.passes), mechanism.leakage.epsilon)
            levels.append(Level(label, epsilon, designer, mechanism.passes, account, mechanism))
    return levels, infeasible


def day_aliases(levels):
    """The "day" filters that keep the pass design, each with the "pass" filter it equals.

    Parameters
    ----------
    levels : list of Level
        As :func:`day_levels`.

    Returns
    -------
    dict
        Day-level index -> index of the feasible ``"pass"`` filter of the same budget,
        for every ``"day"`` design that kept the pass design: its releases are that
        filter's, so the study tracks them once.
    """
    common = {
        level.epsilon: f
        for f, level in enumerate(levels)
        if level.designer == "pass" and level.design is not None
    }
    return {
        f: common[level.epsilon]
        for f, level in enumerate(levels)
        if level.designer == "day"
        and level.design is not None
        and level.design.candidate == "pass"
        and level.epsilon in common
    }


def day_rows(ident, levels, infeasible, tracking):
    """One row per day budget and designer of one object (``day_budgets.csv``).

    Parameters
    ----------
    ident : dict
        ``norad_id``, ``regime``, ``passes``.
    levels, infeasible
        As :func:`day_levels`.
    tracking : tuple of sequences
        Per filter: position RMSE (km), velocity RMSE (m/s), rejected updates, mean NEES
        and NIS per degree of freedom.

    Returns
    -------
    list of dict
        The budget, designer, achieved day epsilon (nats), whether the day certificate
        passed and its margin (nats), the tracking columns; an infeasible design has
        ``feasible`` False and its reason, with empty tracking columns.
    """
    rows = []
    for f, level in enumerate(levels):
        mechanism = level.design
        certificate = None if mechanism is None else mechanism.certificate()
        position, velocity, rejected, nees, nis = (column[f] for column in tracking)
        rows.append(
            {
                **ident,
                "level": level.label,
                "epsilon_day": level.epsilon,
                "designer": level.designer,
                "chosen": None if mechanism is None else mechanism.candidate,
                "feasible": True,
                "epsilon_day_achieved": 0.0 if mechanism is None else mechanism.leakage.epsilon,
                "certificate_passed": True if certificate is None else bool(certificate.passed),
                "certificate_margin": None if certificate is None else certificate.margin,
                "position_rmse_km": position,
                "velocity_rmse_m_s": velocity,
                "updates_rejected": int(rejected),
                "nees_mean": nees,
                "nis_per_dof": nis,
                "reason": "",
            }
        )
    for label, epsilon, designer, reason in infeasible:
        rows.append(
            {
                **ident,
                "level": label,
                "epsilon_day": epsilon,
                "designer": designer,
                "feasible": False,
                "reason": reason,
            }
        )
    return rows
