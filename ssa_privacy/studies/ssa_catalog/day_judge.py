"""The "day" designer's judge in the ssa-catalog study: the fusion centre's filter, simulated.

The day designer (:meth:`DayMechanism.design
<ssa_privacy.privacy.pml.day_design.DayMechanism.design>`) chooses between the
least-noise (``"trace"``) design and the common-pass-budget (``"pass"``) one. Its
default judge, the posterior error of the linearised model, preferred the least-noise
design for most objects, yet the study's filter tracked worse with it: at these budgets
the filter learns much from the second-order part of the measurements, which the linear
model leaves out. The study therefore judges the candidates by what it measures: before
the day, from the predicted passes and the public prior alone, it draws
:data:`JUDGE_DRAWS` truths from the prior, releases each one's measurements through
every candidate (the same truth, sensor noise and privacy normals for all) and runs the
study's filter on them. Two draws resolve only gross differences, so the least-noise
design is kept only where, on every draw, it keeps the track (position RMSE over the
object's evaluation times,
:func:`~ssa_privacy.studies.ssa_catalog.rows.evaluation_indices`, at most
:data:`~ssa_privacy.studies.ssa_catalog.summaries.TRACKED_KM`)
and the pass design loses it; otherwise the pass design is kept (and the least-noise one
where no common pass budget is feasible). "Tracks better on both draws" was tried first:
on 50 LEO objects over 24 h it kept the least-noise design for 23 of the 146
object-budgets where both were feasible, mostly on near-ties (RMSE ratios of 1.01 to 1.1
on a draw), and that design tracked better in reality for 4 of them.
"""

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy.estimation.tracking import rmse, simulate_and_track
from ssa_privacy.studies.ssa_catalog.rows import evaluation_indices
from ssa_privacy.studies.ssa_catalog.summaries import TRACKED_KM

__all__ = ["JUDGE_DRAWS", "filter_judge"]

#: Simulated days per judgement (each candidate tracked on the same draws).
JUDGE_DRAWS = 2


def filter_judge(scenario, nominal, Sigma_XX, found, keys, truth_tolerance):
    """The ``score`` of the day designer for one object: its filter on simulated days.

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        The grid, network, evaluation times and the filters' process noise.
    nominal : ndarray, shape (m, 6)
        The object's nominal track (km, km/s).
    Sigma_XX : ndarray, shape (6, 6)
        Its prior (km^2, km^2/s, km^2/s^2).
    found : list of Pass
        Its predicted passes.
    keys : tuple of int
        Seed keys of the simulated days (truths and sensor noise from ``keys``, each
        draw's privacy normals from ``keys + (draw,)``).
    truth_tolerance : float
        Integration tolerance of the simulated truths.

    Returns
    -------
    callable
        ``score(candidates)``: 0 for each candidate but the least-noise one, whose score is
        -1 if on every draw it kept the track and the pass design lost it, and 1 otherwise
        (module docstring; so also when no evaluation time follows the first contact).
    """

    def score(candidates):
        designers = [m.designer for m in candidates]
        if "pass" not in designers:
            return [0.0] * len(candidates)
        rmse = simulated_rmse(scenario, nominal, Sigma_XX, found, candidates, keys, truth_tolerance)
        lost = rmse[:, designers.index("pass")] > TRACKED_KM
        better = np.all((rmse <= TRACKED_KM) & lost[:, None], axis=0)
        return [
            (-1.0 if better[c] else 1.0) if d == "trace" else 0.0 for c, d in enumerate(designers)
        ]

    return score


def simulated_rmse(scenario, nominal, Sigma_XX, found, candidates, keys, truth_tolerance):
    """Position RMSE (km), shape (JUDGE_DRAWS, C), of the filter on each candidate's
    releases of simulated days (:func:`filter_judge`); NaN when no evaluation time
    follows the object's first contact."""
    evaluated = evaluation_indices(scenario, found)
    if not len(evaluated):
        return np.full((JUDGE_DRAWS, len(candidates)), np.nan)
    rng = random_generator(keys)
    deviations = rng.standard_normal((JUDGE_DRAWS, 6)) @ np.linalg.cholesky(Sigma_XX).T
    truths = scenario.propagator.propagate_many(
        scenario.times, nominal[0] + deviations, truth_tolerance, truth_tolerance
    )
    simulation = simulate_and_track(
        scenario.tracking,
        truths,
        found,
        [m.passes for m in candidates],
        (rng, keys),
        nominal=nominal,
        prior=Sigma_XX,
        evaluate=scenario.ephemeris,
        diagnostics=False,
    )
    position, _ = rmse(simulation.track.errors(truths, evaluated))
    return np.asarray(position).reshape(JUDGE_DRAWS, len(candidates))
