"""The UKF part of the ssa-network study: truths, the filter runs and their table rows.

Part 1 of :mod:`ssa_privacy.studies.ssa_network` (its docstring describes the
scenario); the study module builds the tasks, this one runs and summarises them. Every
privatized measurement is released through its station's mechanism
(:meth:`~ssa_privacy.studies.ssa_network.Scenario.station_mechanism`), whose
certificate is counted.
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy.estimation.consistency import nees
from ssa_privacy.estimation.ukf import OrbitTracker
from ssa_privacy.sensors.stations import GroundStation

__all__ = [
    "FILTER_PSD",
    "FILTER_TOLERANCE",
    "STATIONS",
    "Tracking",
    "UKFSetup",
    "monotone",
    "tracking",
    "ukf_rows",
    "ukf_run",
    "ukf_setup",
]

#: The default stations: approximate WGS-84 positions of the deep-space antennas (a
#: scenario file may give others, :class:`~ssa_privacy.studies.ssa_network.NetworkOptions`).
STATIONS = (
    GroundStation("Goldstone", 35.4259, -116.8895, 1.002),
    GroundStation("Madrid", 40.4313, -4.2480, 0.865),
    GroundStation("Canberra", -35.4024, 148.9813, 0.689),
)
#: White-acceleration PSD of the UKF's process noise (km^2/s^3): covers the looser
#: integration tolerance of its process model.
FILTER_PSD = 1.0e-14
FILTER_TOLERANCE = 1.0e-9


@dataclass
class Tracking:
    """The UKF part's grid and outputs.

    ``times`` are the filter epochs (s), ``evaluate`` marks the regular epochs after the
    burn-in used by the RMSE, ``truth`` is run 0's true state, and ``results[level]``
    holds per-run ``errors`` (R, m, 6), covariances ``P`` (R, m, 6, 6), the privacy
    noise standard deviations of range and ``releases``, the privatized measurements'
    count, how many certificates passed and the mechanisms' classes.
    """

    times: np.ndarray
    evaluate: np.ndarray
    truth: np.ndarray
    results: dict


def _truths(scenario, runs, seed):
    """Truth of each run on the fine grid, shape (R, m, 6): the nominal start displaced by
    a draw of the manoeuvre prior, propagated at rtol = atol = 1e-10."""
    L = np.linalg.cholesky(scenario.prior_eci(scenario.nominal[0]))
    starts = np.array(
        [
            scenario.nominal[0] + L @ random_generator((seed, r, 0)).standard_normal(6)
            for r in range(runs)
        ]
    )
    return scenario.propagator.propagate(scenario.fine, starts)


def _grid(visible, dt, gap_step):
    """Indices into the fine grid of the filter epochs (every gap step, and every epoch at
    which some run sees the satellite), and the mask of the regular (gap-step) epochs."""
    regular = np.arange(visible.shape[1]) % round(gap_step / dt) == 0
    return np.flatnonzero(regular | visible.any(axis=(0, 2))), regular


def _measurements(scenario, level, truth, time, seen, x_pred, rngs):
    """Privatized measurements and their covariances of the visible stations at one epoch,
    the privacy noises' range standard deviations and the releases."""
    z, R, range_std, releases = [], [], [], []
    for s in seen:
        station = scenario.stations[s]
        z_s = station.measure(truth, time, scenario.earth)
        z_s = z_s + np.asarray(station.noise_std) * rngs[0].standard_normal(4)
        R_s = station.noise_covariance
        if level is not None:
            model = station.linearised_measurement(x_pred, time, scenario.earth)
            Theta, mechanism = scenario.station_mechanism(model, level[s])
            # The mechanism scales standard normals by Theta's Cholesky factor (not by
            # eigenvectors, whose signs may flip): the same draws at every level.
            releases.append((mechanism, mechanism.release(z_s, seed=rngs[1])))
            z_s = releases[-1][1].values
            R_s = R_s + Theta
            range_std.append(np.sqrt(Theta[2, 2]))
        z.append(z_s)
        R.append(R_s)
    return np.array(z), R, range_std, releases


def _track(scenario, times, level, truth, visible, rngs):
    """One UKF run at one privacy level: errors (m, 6), covariances (m, 6, 6), range stds."""
    tracker = OrbitTracker(
        scenario.propagator,
        scenario.earth,
        scenario.nominal[0],
        scenario.prior_eci(scenario.nominal[0]),
        FILTER_PSD,
        scenario.t0,
        FILTER_TOLERANCE,
    )
    errors, covariances, range_std = [], [], []
    releases = {"releases": 0, "passed": 0, "mechanisms": set()}
    for k, t in enumerate(times):
        tracker.predict(t)
        seen = np.flatnonzero(visible[k])
        if seen.size:
            z, R, stds, made = _measurements(scenario, level, truth[k], t, seen, tracker.x, rngs)
            tracker.update([scenario.stations[s] for s in seen], z, R)
            range_std.extend(stds)
            releases["releases"] += len(made)
            releases["passed"] += sum(bool(r.certificate.passed) for _, r in made)
            releases["mechanisms"].update(type(m).__name__ for m, _ in made)
        errors.append(tracker.x - truth[k])
        covariances.append(tracker.P)
    return np.array(errors), np.array(covariances), range_std, releases


@dataclass
class UKFSetup:
    """What every UKF run shares: the filter grid, and each run's truth and visibility.

    ``times`` are the filter epochs (s), ``evaluate`` marks the regular epochs after the
    burn-in, ``truth`` (R, m, 6) and ``visible`` (R, m, S) are each run's true state and
    which stations see it, on the filter epochs.
    """

    times: np.ndarray
    evaluate: np.ndarray
    truth: np.ndarray
    visible: np.ndarray


def ukf_setup(scenario, options, seed):
    """The UKF runs' truths (from ``default_rng([seed, run, 0])``) and filter grid."""
    truth = _truths(scenario, options["runs"], seed)
    visible = np.stack(
        [s.visible(truth, scenario.fine, scenario.earth) for s in scenario.stations], axis=-1
    )  # (R, m_fine, S)
    index, regular = _grid(visible, options["dt"], options["gap_step"])
    times = scenario.fine[index]
    evaluate = regular[index] & (times >= scenario.t0 + options["burn_in_hours"] * 3600.0)
    return UKFSetup(times, evaluate, truth[:, index], visible[:, index])


def ukf_run(scenario, options, times, level, truth, visible, seed_keys):
    """One UKF run at one level: with ``seed_keys = (seed, run)``, its sensor and privacy
    noise come from ``default_rng([seed, run, 1])`` and ``default_rng([seed, run, 2])``,
    the same at every level.

    Returns the errors (m, 6), covariances (m, 6, 6), privacy range standard deviations
    and the count of releases, of passing certificates and the mechanisms' classes."""
    rngs = (random_generator((*seed_keys, 1)), random_generator((*seed_keys, 2)))
    return _track(scenario, times, level, truth, visible, rngs)


def tracking(scenario, setup, runs):
    """The UKF runs (level-major, as :func:`_ukf_tasks` lists them) gathered per level."""
    results = {
        label: {"errors": [], "P": [], "range_std": [], "releases": {"releases": 0, "passed": 0}}
        for label, _ in scenario.levels
    }
    labels = [label for label, _ in scenario.levels for _ in range(len(setup.truth))]
    for label, (errors, covariances, stds, releases) in zip(labels, runs, strict=True):
        entry = results[label]
        entry["errors"].append(errors)
        entry["P"].append(covariances)
        entry["range_std"].extend(stds)
        entry["releases"]["releases"] += releases["releases"]
        entry["releases"]["passed"] += releases["passed"]
        classes = entry["releases"].setdefault("mechanisms", [])
        entry["releases"]["mechanisms"] = sorted({*classes, *releases["mechanisms"]})
    return Tracking(setup.times, setup.evaluate, setup.truth[0], results)


def _rmse_per_run(errors, evaluate, block):
    """Root-mean-square norm of an error block (position or velocity) per run, shape (R,)."""
    errors = np.asarray(errors)[:, evaluate][..., block]
    return np.sqrt(np.mean(np.sum(errors**2, axis=-1), axis=1))


def _nees(errors, covariances, evaluate):
    """Mean position NEES ``e^T P^{-1} e`` over runs and evaluation epochs (3 if consistent)."""
    e = np.asarray(errors)[:, evaluate, :3]
    return float(np.mean(nees(e, np.asarray(covariances)[:, evaluate, :3, :3])))


def _standard_error(values):
    return float(np.std(values, ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def ukf_rows(scenario, tracking):
    """One row per level: RMSE (mean and MC standard error), NEES, privacy-noise size."""
    rows = []
    for label, eps in scenario.levels:
        entry = tracking.results[label]
        pos = _rmse_per_run(entry["errors"], tracking.evaluate, slice(0, 3))
        vel = _rmse_per_run(entry["errors"], tracking.evaluate, slice(3, 6))
        rows.append(
            {
                "level": label,
                "epsilon_first_station": None if eps is None else eps[0],
                "epsilons": "-" if eps is None else "/".join(f"{e:g}" for e in eps),
                "delta": scenario.delta,
                "convention": scenario.convention,
                "ukf_position_rmse_km": float(np.mean(pos)),
                "ukf_position_rmse_se_km": _standard_error(pos),
                "ukf_velocity_rmse_m_s": 1e3 * float(np.mean(vel)),
                "ukf_velocity_rmse_se_m_s": 1e3 * _standard_error(vel),
                "ukf_position_nees": _nees(entry["errors"], entry["P"], tracking.evaluate),
                "privacy_range_std_km_median": (
                    float(np.median(entry["range_std"])) if entry["range_std"] else 0.0
                ),
                "_per_run_position_rmse": pos,
            }
        )
    return rows


def monotone(rows):
    """Paired differences of per-run position RMSE between consecutive levels (tight to loose)."""
    checks = []
    for tight, loose in zip(rows, rows[1:]):
        diff = tight["_per_run_position_rmse"] - loose["_per_run_position_rmse"]
        se = _standard_error(diff)
        checks.append(
            {
                "from": tight["level"],
                "to": loose["level"],
                "rmse_difference_km": float(np.mean(diff)),
                "se_km": se,
                "decreasing_within_2se": bool(np.mean(diff) > -2 * se),
            }
        )
    return checks
