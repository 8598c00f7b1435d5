"""The day designers of :class:`~ssa_privacy.privacy.pml.day_design.DayMechanism`.

Each builds the passes' mechanisms of one object's day for a target leakage (nats) that
the mechanism then certifies (module :mod:`ssa_privacy.privacy.pml.day_design` for the
designers and their sources).
"""

import numpy as np
from scipy import linalg, optimize

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.validation import as_finite_array, unit_interval
from ssa_privacy.privacy.accounting import design_epsilon
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml.day_noise import (
    _modelled_information,
    _pass_model,
    _rank,
    _scale_root,
    day_logdet_noise,
    sufficient_statistics,
)
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.passes import PassMechanism, _checked_passes
from ssa_privacy.privacy.pml.stream import ReleaseStream, _floor, stream_leakage
from ssa_privacy.privacy.pml.stream_design import FIRST_SLACK

__all__ = ["DESIGNS", "PASS_ROUNDING", "DayProblem", "day_stream", "predicted_errors"]

#: A pass of a day design carries its achieved epsilon plus this many nats as its own
#: budget, so that its certificate (rounding bound about 1e-12 nats) passes.
PASS_ROUNDING = 1e-9


def day_stream(n, streams):
    """The passes' streams composed (none: the empty stream)."""
    return ReleaseStream.empty(n).compose(*streams)


def _member(item, Sigma_XX, factor, stream, budget, designer):
    """A pass's mechanism with its own achieved epsilon (plus PASS_ROUNDING) as its budget."""
    delta, convention = budget
    achieved = stream_leakage(Sigma_XX, stream, delta, convention).epsilon
    parameters = (item.C, Sigma_XX, factor, achieved + PASS_ROUNDING, delta)
    return PassMechanism(*parameters, convention=convention, designer=designer, stream=stream)


def _silent(item, Sigma_XX, budget, designer):
    """The mechanism of a pass whose maps are zero: no noise, no information."""
    C = np.asarray(item.C, dtype=float)
    stream = ReleaseStream(np.zeros((C.shape[2], C.shape[2])), len(C), C.shape[0] * C.shape[1])
    return _member(item, Sigma_XX, np.zeros((C.shape[0] * C.shape[1], 0)), stream, budget, designer)


class DayProblem:
    """The validated inputs of a day design and each pass's sufficient statistic."""

    def __init__(self, passes, Sigma_XX, epsilon, delta, convention):
        self.weight = convention_weight(convention)
        self.delta = float(unit_interval(delta, "delta"))
        self.epsilon = float(as_finite_array(epsilon, "epsilon_day", ndim=0))
        self.convention, self.passes = convention, _checked_passes(passes)
        n = np.shape(self.passes[0].C)[-1]
        self.L = pd_cholesky(Sigma_XX, "Sigma_XX", n)
        self.Sigma_XX = np.asarray(Sigma_XX, dtype=float)
        self.statistics = sufficient_statistics(self.passes, self.L)
        maps = [B for _, _, B in self.statistics if len(B)]
        if not maps:
            raise ValueError("the passes' maps are all zero: the day reveals nothing about x0")
        stacked = np.vstack(maps)
        self.rank = _rank(linalg.svdvals(stacked), len(stacked), n)
        self.floor = _floor(self.delta, self.rank)
        if self.epsilon <= self.floor:
            raise ValueError(
                f"epsilon_day must exceed {self.floor:.6g} nats, the leakage of a day that sees "
                f"{self.rank} directions of x0 however much noise is added (condition (9) of "
                f"[LKC]): {self.epsilon:g} is infeasible"
            )
        self.target = design_epsilon(self.epsilon, self.delta, self.rank, convention)

    @property
    def budget(self):
        return self.delta, self.convention

    def silent(self, p, designer):
        return _silent(self.passes[p], self.Sigma_XX, self.budget, designer)


def predicted_errors(candidates, weight):
    """The "day" designer's default judge: each candidate's predicted error."""
    return [m.predicted_error(weight) for m in candidates]


def _design_trace(problem, target, cache):
    """The "trace" designer for a budget ``target``: block-coordinate descent, one scale."""
    if "noise" not in cache:
        maps = [B for _, _, B in problem.statistics if len(B)]
        information = (problem.target - problem.floor) / problem.weight
        cache["noise"] = day_logdet_noise(maps, information)
    noise, streams, parts = iter(cache["noise"]), [], []
    for scale, U, B in problem.statistics:
        if len(B):
            E, theta = next(noise)
            R = np.linalg.solve(problem.L.T, B.T).T  # B L^{-1}: the map of x0
            parts.append((scale, U, E, theta, R))
            streams.append(ReleaseStream.of(R, (E * theta) @ E.T))
    n = len(problem.L)
    c = _scale_root(problem.Sigma_XX, day_stream(n, streams), target, problem.delta, problem.weight)
    members, part = [], iter(parts)
    for p, (_, _, B) in enumerate(problem.statistics):
        if not len(B):
            members.append(problem.silent(p, "trace"))
            continue
        scale, U, E, theta, R = next(part)
        stream = ReleaseStream.of(R, (E * (c * theta)) @ E.T)
        factor = scale[:, None] * (U @ (E * np.sqrt(c * theta)))
        members.append(
            _member(problem.passes[p], problem.Sigma_XX, factor, stream, problem.budget, "trace")
        )
    return members


def _design_pass(problem, target, cache):
    """The "pass" designer: every pass's log-det design at one common pass budget t."""
    if "model" not in cache:
        maps = [B for _, _, B in problem.statistics if len(B)]
        cache["model"] = _pass_model(maps, problem.delta, problem.convention)
    t = _common_pass_budget(problem, cache["model"], target)
    members = []
    for p, (_, _, B) in enumerate(problem.statistics):
        if not len(B):
            members.append(problem.silent(p, "pass"))
            continue
        parameters = (problem.passes[p], problem.Sigma_XX, t, problem.delta)
        members.append(
            PassMechanism.design(*parameters, designer="logdet", convention=problem.convention)
        )
    return members


def _common_pass_budget(problem, model, target):
    """The pass budget t at which the modelled day epsilon is ``target`` (Brent's root), or
    the largest of the passes' largest meaningful budgets if the day leaks at most
    ``target`` there (every pass then gets its least meaningful noise)."""

    def excess(t):
        information = _modelled_information(model, t - FIRST_SLACK, problem.weight)
        return problem.weight * information + problem.floor - target

    low = float(np.max(model[2])) + FIRST_SLACK + 1e-9
    if (least := excess(low)) >= 0.0:
        raise ValueError(
            f"epsilon_day {problem.epsilon:g} is infeasible for the 'pass' designer: at the "
            f"least common pass budget {low:.6g} nats (the largest pass floor, condition (9) "
            f"of [LKC]) the day already leaks {least + target:.6g} nats"
        )
    top = float(np.max(model[3])) + FIRST_SLACK
    if excess(top) <= 0.0:
        return top
    high = low + 1.0
    while high < top and excess(high) <= 0.0:
        high = low + 2.0 * (high - low)
    return optimize.brentq(excess, low, min(high, top), xtol=1e-13)


def _measurement_noises(problem, p):
    """Pass p's per-measurement noises (K, m, m) at epsilon_day, None for zero maps."""
    C = np.asarray(problem.passes[p].C, dtype=float)
    if not len(problem.statistics[p][2]):
        return None
    if np.any(np.linalg.matrix_rank(C) < C.shape[1]):
        raise ValueError(
            f"passes[{p}] has a measurement map of rank below {C.shape[1]}: the "
            "'measurement' designer's noise C_k Sigma_XX C_k^T would be singular"
        )
    return linear_mechanism_noise(C, problem.Sigma_XX, problem.epsilon, *problem.budget)


def _design_measurement(problem, target, cache):
    """The "measurement" designer: [LKC] Corollary 3.7 per measurement, one day scale."""
    if "noises" not in cache:
        noises = [_measurement_noises(problem, p) for p in range(len(problem.passes))]
        streams = [
            ReleaseStream.of(p.C, N) for p, N in zip(problem.passes, noises) if N is not None
        ]
        cache["noises"], cache["stream"] = noises, day_stream(len(problem.L), streams)
    c = _scale_root(problem.Sigma_XX, cache["stream"], target, problem.delta, problem.weight)
    members = []
    for p, Theta in enumerate(cache["noises"]):
        if Theta is None:
            members.append(problem.silent(p, "measurement"))
            continue
        item = problem.passes[p]
        factor = linalg.block_diag(*np.linalg.cholesky(c * Theta))
        stream = ReleaseStream.of(item.C, c * Theta)
        members.append(
            _member(item, problem.Sigma_XX, factor, stream, problem.budget, "measurement")
        )
    return members


DESIGNS = {"trace": _design_trace, "pass": _design_pass, "measurement": _design_measurement}
