"""The linear part of the ssa-network study: the station-kept CW plant and its PML bounds.

Each station reports the relative position ``[I_3, 0] X`` of the Clohessy-Wiltshire
plant about the nominal orbit, with sensor noise and its privacy noise ([LKC]
Corollary 3.7 on the manoeuvre prior ``Sigma_CW``); a linear Kalman filter runs per
station and on the fusion of all stations. Its steady-state error covariance (empirical
and DARE) is compared with the chain bound and with [LKC] (28)-(29) in the design's
convention (:doc:`/theory/kalman-bounds`). For the fusion and for "no privacy", the
bounds are evaluated at the implied level, the smallest epsilon at which that release is
private.
"""

import numpy as np
from scipy import linalg

from ssa_privacy._internal.random import random_generator
from ssa_privacy.estimation.kalman import (
    empirical_error_covariance,
    error_covariance_bounds,
    steady_state,
)
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.leakage import linear_mechanism_covariances, pml_margin

__all__ = [
    "CW_SENSOR_STD",
    "C_POSITION",
    "cw_designs",
    "cw_filter_row",
    "cw_row",
    "cw_task",
    "implied_epsilon",
]

#: Output matrix of a CW relative-position report.
C_POSITION = np.hstack([np.eye(3), np.zeros((3, 3))])
#: Sensor noise of a CW relative-position report (km, per axis).
CW_SENSOR_STD = 0.1


def implied_epsilon(plant, Theta, delta, convention):
    """Smallest epsilon at which ``Y = C X + V`` is (epsilon, delta)-PML private."""
    Sigma = plant.prior_covariance()
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(plant.C, Sigma, Theta)
    return -pml_margin(Sigma, Sigma_XY, Sigma_YY, 0.0, delta, convention)


def cw_row(plant, Theta, epsilon, scenario, options, rng):
    """Steady-state error covariance of one filter against its bounds."""
    implied = implied_epsilon(plant, Theta, scenario.delta, scenario.convention)
    bound_epsilon = implied if epsilon is None else epsilon
    bounds = error_covariance_bounds(
        plant, Theta, bound_epsilon, scenario.delta, scenario.convention
    )
    P = steady_state(plant, Theta).P
    S, trace_se, logdet_se = empirical_error_covariance(
        plant, Theta, options["cw_runs"], options["cw_steps"], options["cw_burn_in"], rng
    )
    values = {
        "logdet_P_dare": np.linalg.slogdet(P)[1],
        "logdet_P_empirical": np.linalg.slogdet(S)[1],
        "trace_P_dare": np.trace(P),
        "trace_P_empirical": np.trace(S),
    }
    row = {
        "epsilon_design": epsilon,
        "epsilon_implied": implied,
        "epsilon_of_bound": bound_epsilon,
        "trace_Theta": np.trace(Theta),
        **values,
        "logdet_P_empirical_se": logdet_se,
        "trace_P_empirical_se": trace_se,
        "bound_chain_logdet": bounds.log_det_chain,
        "bound_28": bounds.log_det,
        "bound_chain_trace": bounds.trace_chain,
        "bound_29": bounds.trace,
        "trace_chain_vacuous": bounds.trace_chain_vacuous,
        "bound_29_vacuous": bounds.trace_vacuous,
        "bound_28_29_applies": bounds.applies,
    }
    for kind in ("dare", "empirical"):
        row[f"holds_chain_{kind}"] = bool(values[f"logdet_P_{kind}"] >= bounds.log_det_chain)
        row[f"holds_28_{kind}"] = bool(values[f"logdet_P_{kind}"] >= bounds.log_det)
        # A trace bound <= 0 holds for every P: no check (None) rather than a claim.
        trace = values[f"trace_P_{kind}"]
        row[f"holds_trace_chain_{kind}"] = (
            None if bounds.trace_chain_vacuous else bool(trace >= bounds.trace_chain)
        )
        row[f"holds_29_{kind}"] = None if bounds.trace_vacuous else bool(trace >= bounds.trace)
    return row


def cw_designs(scenario, stations, station_plant, eps):
    """Per-station privacy noise (Corollary 3.7 on Sigma_CW), zero without privacy."""
    if eps is None:
        return [np.zeros((3, 3)) for _ in stations]
    return [
        linear_mechanism_noise(
            station_plant.C, scenario.Sigma_cw, e, scenario.delta, scenario.convention
        )
        for e in eps
    ]


def cw_filter_row(scenario, options, noise, station, eps, rng):
    """The CW row of one filter: a station's, or the fusion of all stations.

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_network.Scenario
        The run's fixed quantities (CW plant, delta, convention).
    options : dict
        The study's options (``cw_dt``, ``cw_runs``, ``cw_steps``, ``cw_burn_in``).
    noise : ndarray or list of ndarray
        The station's privacy noise, shape (3, 3) (km^2); for the fusion, the list of
        every station's.
    station : int or None
        The station's index in ``eps``; None for the fusion.
    eps : tuple of float or None
        The level's epsilon per station (nats); None for "no privacy".
    rng : numpy.random.Generator
        Draws of the simulation (:func:`cw_row`).

    Returns
    -------
    dict
        :func:`cw_row`, bounds at the design level of the station or, for the fusion and
        for "no privacy", at the implied level.
    """
    sensor = CW_SENSOR_STD**2 * np.eye(3)
    if station is None:
        plant = scenario.cw_plant(np.vstack([C_POSITION] * len(noise)), options["cw_dt"])
        fused = linalg.block_diag(*(Theta + sensor for Theta in noise))
        return cw_row(plant, fused, None, scenario, options, rng)
    plant = scenario.cw_plant(C_POSITION, options["cw_dt"])
    epsilon = None if eps is None else eps[station]
    return cw_row(plant, noise + sensor, epsilon, scenario, options, rng)


def cw_task(scenario, options, level, station, noise, seed_keys):
    """One row of the CW table: a station's filter (``station`` its index) or, with
    ``station`` None, the fusion's, at level index ``level``; the simulation draws from
    ``default_rng(seed_keys)``."""
    label, eps = scenario.levels[level]
    rng = random_generator(seed_keys)
    name = "fusion" if station is None else scenario.stations[station].name
    return {
        "level": label,
        "filter": name,
        **cw_filter_row(scenario, options, noise, station, eps, rng),
    }
