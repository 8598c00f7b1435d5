"""One task of the ssa-leakage study: the PML of one real pass release, per budget.

A task gets one object's element set and which of its passes to measure (the first,
middle or last of the window); it rebuilds the nominal track and the pass, designs the
log-det mechanism for each budget, and estimates the exceedance ``P[l(Y) > epsilon]`` of
the real (nonlinear) release by Monte Carlo
(:func:`~ssa_privacy.attacks.nonlinear_leakage.nonlinear_pml`). Optionally it checks the
Laplace evidence by importance sampling
(:func:`~ssa_privacy.attacks.nonlinear_evidence.importance_log_evidence`), and where the
release exceeds its budget it measures the restoring design
(:func:`~ssa_privacy.attacks.nonlinear_restoration.restored_mechanism`) and its cost in
tracking. Seeds: ``default_rng([seed, norad_id, pass index, budget in millinats,
purpose])``, purpose 0 (outcomes), 1 (importance sampling), 2 (remainder points), 3
(outcomes of the restored release), so results do not depend on the runner.
"""

import numpy as np
from scipy import linalg

from ssa_privacy.attacks.nonlinear_evidence import importance_log_evidence
from ssa_privacy.attacks.nonlinear_leakage import nonlinear_pml, pass_measurement_model
from ssa_privacy.attacks.nonlinear_restoration import remainder_samples, restored_mechanism
from ssa_privacy.orbits.catalog import sgp4_states
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import ElementSet
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.sensors.streams import passes_of

__all__ = [
    "IS_DRAWS",
    "IS_PROPOSAL",
    "MIN_PASS_SAMPLES",
    "ML_STEP_TOLERANCE",
    "POSITIONS",
    "REMAINDER_POINTS",
    "SEARCH",
    "VALIDATION_OUTCOMES",
    "leakage_task",
    "object_passes",
    "pass_positions",
    "position_std",
    "verdict",
]

#: Which passes of an object's window a task may measure.
POSITIONS = ("first", "middle", "last")
#: Passes with fewer samples are not measured (too short to matter, as in the measurement).
MIN_PASS_SAMPLES = 4
#: rtol and atol of the nominal track and its transition matrices.
TRACK_TOLERANCE = 1e-10
#: Levenberg-Marquardt steps of the MAP and the ML searches (nonlinear_pml).
SEARCH = {"iterations": 2, "ml_iterations": 8}
#: The ML search counts as converged when its next step is below this (prior std).
ML_STEP_TOLERANCE = 0.1
#: Outcomes per validated pass, draws per outcome and the proposal (a multivariate t
#: with 4 degrees of freedom mixed with 10 % prior draws) of the importance sampling.
VALIDATION_OUTCOMES = 4
IS_DRAWS = 2000
IS_PROPOSAL = {"df": 4.0, "prior_share": 0.1}
#: Points on the prior's ellipsoid at which the remainder is sampled for the restoration.
REMAINDER_POINTS = 300


def object_passes(scenario, elements):
    """An object's nominal track over the window and its passes, in time order.

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        The window's grid, stations, Earth and propagator.
    elements : tuple of str
        The element set as (name, line 1, line 2).

    Returns
    -------
    element_set : ElementSet
        The parsed element set.
    state0 : ndarray, shape (6,)
        SGP4 state at the window start (km, km/s).
    Phi : ndarray, shape (m, 6, 6)
        ``Phi(t_k, t_0)`` along the J2 nominal track.
    Sigma_XX : ndarray, shape (6, 6)
        The manoeuvre prior about ``state0``
        (:func:`~ssa_privacy.orbits.relative_motion.manoeuvre_prior`).
    found : list of Pass
        The passes of at least :data:`MIN_PASS_SAMPLES` samples, sorted by start.
    """
    element_set = ElementSet(*elements)
    state0 = sgp4_states([element_set], scenario.start_jd, scenario.times[[0, -1]])[0, 0]
    nominal, Phi = scenario.propagator.propagate_with_transition(
        scenario.times, state0[None], rtol=TRACK_TOLERANCE, atol=TRACK_TOLERANCE
    )
    nominal, Phi = nominal[0], Phi[0]
    Sigma_XX = manoeuvre_prior(nominal[0], 2 * np.pi / element_set.period)
    found = passes_of(
        nominal, Phi, scenario.times, scenario.stations, scenario.earth, scenario.longest_pass
    )
    found = sorted(
        (p for p in found if len(p.indices) >= MIN_PASS_SAMPLES), key=lambda p: p.indices[0]
    )
    return element_set, state0, Phi, Sigma_XX, found


def pass_positions(count):
    """Index of the first, middle and last of ``count`` passes; a repeat is dropped.

    Parameters
    ----------
    count : int
        Number of passes.

    Returns
    -------
    dict
        Position name -> pass index (``0``, ``count // 2``, ``count - 1``), each index
        once, kept by the earliest position; empty without passes.
    """
    chosen = {}
    for name, index in zip(POSITIONS, (0, count // 2, count - 1), strict=True):
        if count > 0 and index not in chosen.values():
            chosen[name] = index
    return chosen


def verdict(interval, delta):
    """Whether an exceedance interval says the budget holds.

    Parameters
    ----------
    interval : tuple of float
        The Clopper-Pearson interval of ``P[l(Y) > epsilon]``.
    delta : float
        The budget's failure probability.

    Returns
    -------
    str
        ``"exceeds"`` when the interval lies above delta, ``"within"`` when it lies at
        or below delta, ``"undecided"`` when it straddles delta.
    """
    if interval[0] > delta:
        return "exceeds"
    return "within" if interval[1] <= delta else "undecided"


def position_std(Phi_mid, Sigma_XX, C, S=None):
    """Position standard deviation at a time from the linear posterior of x0 after a pass.

    Parameters
    ----------
    Phi_mid : ndarray, shape (6, 6)
        ``Phi(t, t_0)`` at the time.
    Sigma_XX : ndarray, shape (6, 6)
        Prior covariance of x0 (km, km/s).
    C : ndarray, shape (M, 6)
        The pass's stacked linear map.
    S : ndarray, shape (M, M), optional
        The release's noise covariance; None gives the prior's value.

    Returns
    -------
    float
        ``sqrt(trace P_pos)`` (km), ``P = Phi (Sigma^-1 + C^T S^-1 C)^-1 Phi^T``, computed
        as ``Phi L (I + B^T B)^-1 L^T Phi^T``, ``B = L_S^-1 C L`` (Kalman update in
        information form, Simon, Optimal State Estimation, 2006, eq. 6.33).
    """
    L = np.linalg.cholesky(Sigma_XX)
    if S is None:
        P = Sigma_XX
    else:
        B = linalg.solve_triangular(np.linalg.cholesky(S), C @ L, lower=True)
        factor = linalg.cho_factor(np.eye(6) + B.T @ B, lower=True)
        P = L @ linalg.cho_solve(factor, L.T)
    P = Phi_mid @ P @ Phi_mid.T
    return float(np.sqrt(np.trace(0.5 * (P[:3, :3] + P[:3, :3].T))))


def _rng(seed, norad, index, epsilon, purpose):
    """The seed of one purpose of one pass and budget (module docstring)."""
    return np.random.default_rng([seed, norad, index, round(1000 * epsilon), purpose])


def _noise(item, mechanism):
    """The release's noise covariance: sensor noise of every sample plus the privacy noise."""
    S = linalg.block_diag(*[item.R] * len(item.indices)) + mechanism.Theta
    return 0.5 * (S + S.T)


def _estimate(context, item, mechanism, epsilon, settings, outcomes, keys, purpose):
    """The Monte Carlo PML estimate of a pass released through a mechanism, and its noise."""
    g_batch, jacobian_batch, Sigma_XX, _ = context
    S = _noise(item, mechanism)
    estimate = nonlinear_pml(
        g_batch,
        jacobian_batch,
        Sigma_XX,
        S,
        epsilon,
        settings[outcomes],
        _rng(*keys, purpose),
        confidence=settings["confidence"],
        **SEARCH,
    )
    return estimate, S


def _estimate_columns(estimate, prefix=""):
    """The table columns of a LeakageEstimate."""
    return {
        f"{prefix}exceedance": estimate.exceedance,
        f"{prefix}ci_low": estimate.interval[0],
        f"{prefix}ci_high": estimate.interval[1],
        f"{prefix}linear_exceedance": estimate.linear_exceedance,
        f"{prefix}linear_ci_low": estimate.linear_interval[0],
        f"{prefix}linear_ci_high": estimate.linear_interval[1],
    }


def _validation(model, estimate, S, Sigma_XX, rng):
    """Importance-sampling check of the Laplace evidence on the first outcomes."""
    rows = []
    for i in range(min(VALIDATION_OUTCOMES, estimate.samples)):
        value, ess = importance_log_evidence(
            model,
            estimate.outcomes[i],
            S,
            Sigma_XX,
            estimate.x_map[i],
            estimate.laplace_covariance[i],
            IS_DRAWS,
            rng,
            **IS_PROPOSAL,
        )
        rows.append(
            {
                "outcome": i,
                "leakage": float(estimate.leakage[i]),
                "is_minus_laplace": value - float(estimate.log_evidence[i]),
                "ess": ess,
            }
        )
    return rows


def _restoration(context, item, epsilon, settings, keys):
    """The restoring design of an exceeding pass, its estimate and its cost."""
    g_batch, jacobian_batch, Sigma_XX, Phi_mid = context
    delta, eta = settings["delta"], settings["eta_share"] * epsilon
    remainders = remainder_samples(
        g_batch, item.C, Sigma_XX, delta / 2, REMAINDER_POINTS, _rng(*keys, 2)
    )
    base = PassMechanism.design(item, Sigma_XX, epsilon - eta, delta / 2, designer="logdet")
    try:
        restored = restored_mechanism(base, remainders, eta, item.R)
    except ValueError as error:  # the design is refused (its certificate's checks)
        return {"eta": eta, "restored_verdict": "not built", "restoration_error": str(error)}
    estimate, S = _estimate(context, item, restored, epsilon, settings, "restore_outcomes", keys, 3)
    D = np.tile(np.sqrt(np.diag(item.R)), len(item.indices))
    added = restored.factor[:, base.factor.shape[1] :] / D[:, None]
    return {
        "eta": eta,
        **_estimate_columns(estimate, "restored_"),
        "restored_verdict": verdict(estimate.interval, delta),
        "restored_added_trace": float(np.sum(added**2)),
        "restored_position_std_km": position_std(Phi_mid, Sigma_XX, item.C.reshape(-1, 6), S),
    }


def _budget_row(context, item, epsilon, settings, keys, validate):
    """One budget's row (and validation rows) for one pass."""
    g_batch, jacobian_batch, Sigma_XX, Phi_mid = context
    delta = settings["delta"]
    mechanism = PassMechanism.design(item, Sigma_XX, epsilon, delta, designer="logdet")
    estimate, S = _estimate(context, item, mechanism, epsilon, settings, "outcomes", keys, 0)
    D = np.tile(np.sqrt(np.diag(item.R)), len(item.indices))
    row = {
        "epsilon": epsilon,
        **_estimate_columns(estimate),
        "verdict": verdict(estimate.interval, delta),
        "linear_verdict": verdict(estimate.linear_interval, delta),
        "median_leakage": float(np.median(estimate.leakage)),
        "median_linear_leakage": float(np.median(estimate.linear_leakage)),
        "max_map_step": estimate.max_map_step,
        "max_ml_step": estimate.max_ml_step,
        "search": "converged" if estimate.max_ml_step <= ML_STEP_TOLERANCE else "lower bound",
        "median_ml_gain": float(np.median(estimate.ml_gain)),
        "exceedance_with_gain": float(np.mean(estimate.leakage + estimate.ml_gain > epsilon)),
        "plain_noise_trace": float(np.sum((mechanism.factor / D[:, None]) ** 2)),
        "prior_position_std_km": position_std(Phi_mid, Sigma_XX, None),
        "plain_position_std_km": position_std(Phi_mid, Sigma_XX, item.C.reshape(-1, 6), S),
    }
    checks = _validation(g_batch, estimate, S, Sigma_XX, _rng(*keys, 1)) if validate else []
    if checks:
        row["is_max_abs_error"] = max(abs(c["is_minus_laplace"]) for c in checks)
        row["is_min_ess"] = min(c["ess"] for c in checks)
    if row["verdict"] == "exceeds":
        row.update(_restoration(context, item, epsilon, settings, keys))
    return row, checks


def leakage_task(scenario, settings, regime, elements, position, validate, seed_keys):
    """Measure one pass of one object at every budget (module docstring).

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        The window's grid, stations, Earth and propagator.
    settings : dict
        ``epsilons`` (nats), ``delta``, ``outcomes``, ``restore_outcomes``,
        ``eta_share`` (the restoration's share of the budget) and ``confidence``.
    regime : str
        The object's regime (recorded).
    elements : tuple of str
        The element set as (name, line 1, line 2).
    position : {"first", "middle", "last"}
        Which pass of the window.
    validate : bool
        Check the Laplace evidence by importance sampling (at the first budget).
    seed_keys : tuple of int
        ``(seed, norad_id, position index)``; the draws use ``seed`` and ``norad_id``.

    Returns
    -------
    dict
        ``rows``: one per budget (empty when the object has no such pass: a pass
        shared with an earlier position, or none at all); ``validation``: one per
        checked outcome.
    """
    element_set, state0, Phi, Sigma_XX, found = object_passes(scenario, elements)
    index = pass_positions(len(found)).get(position)
    if index is None:
        return {"rows": [], "validation": []}
    item = found[index]
    station = scenario.stations[item.station]
    g_batch, jacobian_batch = pass_measurement_model(
        scenario.propagator, scenario.earth, station, scenario.times, state0, item.indices
    )
    mid = item.indices[len(item.indices) // 2]
    context = (g_batch, jacobian_batch, Sigma_XX, Phi[mid])
    norad = element_set.norad_id
    common = {
        "regime": regime,
        "norad_id": norad,
        "name": element_set.name,
        "position": position,
        "pass_index": index,
        "station": station.name,
        "start_h": float(scenario.times[item.indices[0]] / 3600.0),
        "mid_h": float(scenario.times[mid] / 3600.0),
        "samples": len(item.indices),
        "delta": settings["delta"],
        "outcomes": settings["outcomes"],
    }
    rows, validation = [], []
    for n, epsilon in enumerate(settings["epsilons"]):
        keys = (seed_keys[0], norad, index, epsilon)
        row, checks = _budget_row(context, item, epsilon, settings, keys, validate and n == 0)
        rows.append({**common, **row})
        validation += [{**common, "epsilon": epsilon, **c} for c in checks]
    return {"rows": rows, "validation": validation}
