"""The DP-cloaking rows of the satellite study ([SMI] §3 beside [TCB] §5.1).

Each output's fitted GP gets its own cloaking mechanism (:class:`._dp_rows.CloakingDesign`),
designed once at the 301 points of the dense grid; every Table 3 replication releases
once per (epsilon, output) through it. The functions read the outputs' names and the
training points from the design (``design.components``, ``design.training``).
"""

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy.privacy.accounting import c_delta
from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies._common import rmse, stopwatch

__all__ = [
    "dp_checks",
    "dp_cloaking_designs",
    "dp_cloaking_replication",
    "dp_cloaking_results",
]


def dp_cloaking_designs(design):
    """The DP-cloaking noise shape and sensitivity of each output, designed once.

    Each output's shape is :class:`._dp_rows.CloakingDesign` on that output's fitted GP
    (the one the privacy-aware rows use), at the 301 points of the dense grid.

    Parameters
    ----------
    design : satellite.Design
        The study's fitted GPs and grids.

    Returns
    -------
    dict
        ``designs`` (one :class:`._dp_rows.CloakingDesign` per output) and
        ``sensitivity`` (one float per output, output units).
    """
    return {
        "designs": [dp.CloakingDesign(gp, design.X, design.t) for gp in design.gps],
        "sensitivity": [dp.output_sensitivity(y) for y in design.Y.T],
    }


def dp_cloaking_replication(design, cloaking, seed_keys, replication):
    """The DP-cloaking releases of one replication, one per (epsilon, output).

    With ``seed_keys = (seed, replication)``, epsilon index j and output c draw from
    ``default_rng([seed, replication, 100 + j, c])``.

    Parameters
    ----------
    design : satellite.Design
        The study's fitted GPs and grids.
    cloaking : dict
        :func:`dp_cloaking_designs` of ``design``.
    seed_keys : tuple of int
        The replication's seed keys ``(seed, replication)``.
    replication : int
        The replication index, recorded with each release.

    Returns
    -------
    dict
        ``values[epsilon, c]`` the release (shape (301,)); ``records`` the (epsilon,
        delta), check and seed keys of every release; ``times[epsilon]`` per-release
        times (s).
    """
    out = {"values": {}, "records": [], "times": {}}
    for j, epsilon in enumerate(dp.EPSILONS):
        for c, (cloak, gp) in enumerate(zip(cloaking["designs"], design.gps)):
            keys = (*seed_keys, dp.SEED_KEY_OFFSET + j, c)
            with stopwatch(out["times"], epsilon):
                released = cloak.release(
                    design.Y[:, c],
                    gp.mean,
                    epsilon,
                    cloaking["sensitivity"][c],
                    random_generator(keys),
                )
            out["values"][epsilon, c] = released.values
            out["records"].append(
                dp.release_record(released, replication, keys, output=design.components[c])
            )
    return out


def dp_cloaking_results(design, cloaking, replications):
    """DP-cloaking releases on the dense grid, one per (replication, epsilon, output).

    Parameters
    ----------
    design : satellite.Design
        The study's fitted GPs and grids.
    cloaking : dict
        :func:`dp_cloaking_designs` of ``design``.
    replications : list of dict
        :func:`dp_cloaking_replication` of replications 0, 1, ..., in order.

    Returns
    -------
    dict
        ``designs`` and ``sensitivity`` per output; ``values[epsilon, c]`` the releases
        (one per replication, shape (301,)); ``sd[epsilon, c]`` the predictive standard
        deviation of a release (posterior plus DP noise); ``records`` the (epsilon,
        delta) and check of every release; ``times[epsilon]`` per-release times (s).
    """
    out = {**cloaking, "values": {}, "sd": {}, "records": [], "times": {}}
    for released in replications:
        for key, values in released["values"].items():
            out["values"].setdefault(key, []).append(values)
        out["records"] += released["records"]
        for epsilon, times in released["times"].items():
            out["times"].setdefault(epsilon, []).extend(times)
    for c, (cloak, gp) in enumerate(zip(cloaking["designs"], design.gps)):
        posterior_variance = gp.predict(design.t)[1]
        for epsilon in dp.EPSILONS:
            noise_variance = cloak.noise_scale(epsilon, cloaking["sensitivity"][c]) ** 2 * np.diag(
                cloak.M
            )
            out["sd"][epsilon, c] = np.sqrt(posterior_variance + noise_variance)
    return out


def dp_checks(design, cloaking):
    """What the theory predicts for the DP-cloaking releases, measured.

    - every release's check passed;
    - the noiseless GP interpolates its training points, so there the columns of C are
      unit vectors, M is the identity and the noise standard deviation is
      ``d c(delta) / epsilon`` at every training point (ratio 1);
    - the seed-mean MSE at the 61 points agrees with its prediction
      ``(||b||^2 + tr Sigma) / 61`` (z-score, see :func:`._dp_rows.mse_z_score`).
    """
    grid = design.training
    ratio_key = "dp_noise_sd_at_training_points_over_d_c_delta_over_epsilon"
    checks = {
        "dp_all_checks_passed": all(r["check_passed"] for r in cloaking["records"]),
        ratio_key: {},
        "dp_mse_z_score": {},
    }
    for c, (name, cloak, gp) in enumerate(zip(design.components, cloaking["designs"], design.gps)):
        d = cloaking["sensitivity"][c]
        bias = gp.predict(design.X)[0] - design.Y[:, c]
        M = cloak.M[grid, grid]
        for epsilon in dp.EPSILONS:
            covariance = cloak.noise_scale(epsilon, d) ** 2 * M
            ratio = np.sqrt(np.diag(covariance)) / (d * c_delta(dp.DELTA) / epsilon)
            label = f"{name}, epsilon={epsilon}"
            checks[ratio_key][label] = [float(ratio.min()), float(ratio.max())]
            errors = [rmse(v[grid], design.Y[:, c]) for v in cloaking["values"][epsilon, c]]
            checks["dp_mse_z_score"][label] = dp.mse_z_score(errors, bias, covariance)
    return checks
