"""The privacy checks of the ssa-network study: P[l(X -> Y) <= epsilon] of the designs.

For each station and level, the Monte Carlo estimate (with a 99% Clopper-Pearson
interval) and the closed form of ``P[l(X -> Y) <= epsilon_i]`` ([LKC] Theorem 3.3) of its
designed mechanisms: the CW report, and the radar measurement linearised at the
station's highest elevation in the window (:mod:`ssa_privacy.studies.ssa_network`).
"""

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy.privacy.pml.leakage import (
    leakage_probability,
    linear_mechanism_covariances,
    monte_carlo_leakage_probability,
)
from ssa_privacy.studies._ssa_network_cw import C_POSITION

__all__ = [
    "CONFIDENCE",
    "privacy_checks",
    "privacy_row",
]

#: Confidence of the Monte Carlo privacy intervals.
CONFIDENCE = 0.99


def privacy_row(kind, station, epsilon, C, Sigma, Theta, scenario, samples, rng):
    """One row of the privacy checks: P[l <= epsilon] of ``Y = C X + V``, analytic and by
    Monte Carlo (``samples`` draws from ``rng``, 99% Clopper-Pearson interval)."""
    mc = monte_carlo_leakage_probability(
        C, Sigma, Theta, epsilon, samples, rng, confidence=CONFIDENCE
    )
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(C, Sigma, Theta)
    return {
        "mechanism": kind,
        "station": station.name,
        "epsilon": epsilon,
        "delta": scenario.delta,
        "convention": scenario.convention,
        "P_leak_le_eps_analytic": leakage_probability(Sigma, Sigma_XY, Sigma_YY, epsilon),
        "P_leak_le_eps_mc": mc.estimate,
        "P_mc_ci99_low": mc.low,
        "P_mc_ci99_high": mc.high,
        "P_leak_mc_failures": mc.failures,
        "mc_samples": mc.samples,
        "privacy_holds_mc": bool(mc.high >= 1.0 - scenario.delta),
    }


def privacy_checks(scenario, options, station, cw_noise, seed_keys):
    """Monte Carlo P[l <= epsilon] of one station's designed mechanisms, at every level:
    its CW report, and its radar measurement linearised at its highest elevation on the
    nominal track. The draws come from ``default_rng(seed_keys)``, in row order."""
    rng = random_generator(seed_keys)
    samples, site = options["mc_samples"], scenario.stations[station]
    k = int(np.argmax(site.measure(scenario.nominal, scenario.fine, scenario.earth)[:, 1]))
    model = site.linearised_measurement(scenario.nominal[k], scenario.fine[k], scenario.earth)
    H, Sigma = model.H, scenario.prior_eci(model.state)
    rows = []
    for label, eps in scenario.levels[:-1]:
        rows.append(
            privacy_row(
                "CW relative position",
                site,
                eps[station],
                C_POSITION,
                scenario.Sigma_cw,
                cw_noise[label][station],
                scenario,
                samples,
                rng,
            )
        )
        Theta = scenario.station_noise(model, eps[station])
        rows.append(
            privacy_row(
                "radar (linearised)", site, eps[station], H, Sigma, Theta, scenario, samples, rng
            )
        )
    return rows
