"""One task of the ssa-catalog study: a batch of objects tracked at every privacy level.

For each object of the batch (module :mod:`ssa_privacy.studies.ssa_catalog` for the
scenario):

1. nominal state at the window start from SGP4, nominal track and ``Phi(t, t0)`` by the
   J2 model (all objects of the batch in one integration);
2. the private manoeuvre deviation ``x0 ~ N(0, Sigma_XX)`` (the station-kept CW prior
   about the nominal state, :func:`~ssa_privacy.orbits.relative_motion.manoeuvre_prior`) and the
   truth, the J2 propagation of ``nominal + x0``;
3. the passes of every station over the nominal track (the stations schedule them from
   the public element set; a stretch in view longer than the scenario's longest pass is
   cut into passes of that length), their sensor noise and standard normals for the
   privacy noise, drawn once per object and shared by every level (common random
   numbers);
4. per level and pass-level designer, every pass's noise
   (:func:`~ssa_privacy.privacy.pml.passes.pass_noise`), its achieved epsilon and the day's
   (privacy noise alone; for "none", the sensor noise, which is all there is);
5. the fusion centre's extended Kalman filters of all levels at once
   (:func:`~ssa_privacy.estimation.ekf.track_contacts`) and their RMSE against the truth
   over the evaluation grid;
6. the epsilon that today's per-measurement designs reach over a pass and the day.

Random streams: ``default_rng([seed, norad_id, 0])`` draws x0, ``[seed, norad_id, 1]``
the sensor noise and ``[seed, norad_id, 2]`` the privacy normals, so an object's random
numbers do not depend on the batch it is in, nor on the runner (its tracks are
integrated with the others of its batch, which changes them at round-off only).
"""

import numpy as np
from scipy import linalg

from ssa_privacy.estimation.ekf import ContactMeasurements, track_contacts
from ssa_privacy.estimation.ukf import measurement_residual
from ssa_privacy.orbits.catalog import regime, sgp4_states
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import ElementSet
from ssa_privacy.privacy.pml.passes import DESIGNERS, pass_noise
from ssa_privacy.privacy.pml.stream import ReleaseStream, stream_leakage
from ssa_privacy.sensors.streams import contacts, passes_of, per_measurement_epsilons
from ssa_privacy.studies._common import replication_rng

__all__ = [
    "NO_PRIVACY",
    "TRUTH_TOLERANCE",
    "catalog_task",
    "certificate_counts",
]

#: Integration tolerance (rtol = atol) of the nominal tracks and of the truth.
TRUTH_TOLERANCE = 1.0e-10
NO_PRIVACY = "none"


def _object_setup(scenario, element_set, nominal, Phi, seed):
    """Prior, truth start, passes and random draws of one object."""
    norad = int(element_set.catalogue_number)
    Sigma_XX = manoeuvre_prior(nominal[0], 2.0 * np.pi / element_set.period)
    x0 = np.linalg.cholesky(Sigma_XX) @ replication_rng(seed, norad, 0).standard_normal(6)
    found = passes_of(
        nominal, Phi, scenario.times, scenario.stations, scenario.earth, scenario.longest_pass
    )
    sensor, privacy = replication_rng(seed, norad, 1), replication_rng(seed, norad, 2)
    draws = [
        (
            sensor.standard_normal((len(p.indices), 4)) * np.sqrt(np.diag(p.R)),
            privacy.standard_normal(4 * len(p.indices)),
        )
        for p in found
    ]
    return norad, Sigma_XX, x0, found, draws


def _level_noises(scenario, Sigma_XX, found):
    """Per filter (none, then each epsilon x designer): pass noises and privacy figures.

    With no pass, every filter has no noise and leaks nothing: it predicts alone."""
    filters = [(NO_PRIVACY, None, None)]
    filters += [(f"{e:g}", e, d) for e in scenario.epsilons for d in DESIGNERS]
    noises, accounts = [], []
    for _, epsilon, designer in filters:
        if epsilon is None:
            streams = [ReleaseStream.of(p.C, p.R) for p in found]
            noises.append([None] * len(found))
        else:
            designs = [
                pass_noise(p, Sigma_XX, epsilon, scenario.delta, designer, scenario.convention)
                for p in found
            ]
            streams = [d.stream for d in designs]
            noises.append(designs)
        accounts.append(_account(scenario, Sigma_XX, streams))
    return filters, noises, accounts


def _account(scenario, Sigma_XX, streams):
    """Largest achieved epsilon of a pass, and that of the day (all passes), nats."""
    if not streams:
        return 0.0, 0.0
    leak = [stream_leakage(Sigma_XX, s, scenario.delta, scenario.convention) for s in streams]
    day = streams[0].merge(*streams[1:])
    return (
        max(item.epsilon for item in leak),
        stream_leakage(Sigma_XX, day, scenario.delta, scenario.convention).epsilon,
    )


def _contact_measurements(scenario, nominal, truth, found, draws, noises):
    """The releases of each contact for every filter (module docstring, step 5).

    A station measures the truth with sensor noise and adds its privacy noise; the
    azimuth is released on the branch nearest to the nominal's (public) azimuth.
    """
    measured, references = [], []
    for item, (sensor, _) in zip(found, draws, strict=True):
        station, t = scenario.stations[item.station], scenario.times[item.indices]
        reference = station.measure(nominal[item.indices], t, scenario.earth).ravel()
        clean = (station.measure(truth[item.indices], t, scenario.earth) + sensor).ravel()
        measured.append(reference + measurement_residual(clean, reference))
        references.append(reference)
    out = []
    for group in contacts(found):
        z, noise = [], []
        for designs in noises:
            z_f, blocks = [], []
            for i in group:
                sensor_cov = np.kron(np.eye(len(found[i].indices)), found[i].R)
                if designs[i] is None:
                    z_f.append(measured[i])
                    blocks.append(sensor_cov)
                else:
                    z_f.append(measured[i] + designs[i].sample(draws[i][1]))
                    blocks.append(sensor_cov + designs[i].covariance)
            z.append(np.concatenate(z_f))
            noise.append(linalg.block_diag(*blocks))
        rows = [np.full(len(found[i].indices), found[i].station) for i in group]
        indices = np.concatenate([found[i].indices for i in group])
        scale = [np.tile(np.sqrt(np.diag(found[i].R)), len(found[i].indices)) for i in group]
        reference = np.concatenate([references[i] for i in group])
        out.append(
            ContactMeasurements(
                np.concatenate(rows),
                indices,
                np.array(z),
                np.array(noise),
                np.concatenate(scale),
                reference,
            )
        )
    return out


def certificate_counts(filters, noises):
    """Per privatized level and designer: the pass designs and those whose certificate passed.

    Parameters
    ----------
    filters : list of tuple
        ``(label, epsilon, designer)`` per filter, as :func:`_level_noises` gives them.
    noises : list of list
        Per filter, the pass designs (:class:`~ssa_privacy.privacy.pml.passes.PassNoise`), or
        None for the level without privacy.

    Returns
    -------
    dict
        ``{label: {designer: {"designs": int, "passed": int}}}``.
    """
    counts = {}
    for (label, _, designer), designs in zip(filters, noises, strict=True):
        if designer is None:
            continue
        counts.setdefault(label, {})[designer] = {
            "designs": len(designs),
            "passed": sum(bool(d.certificate.passed) for d in designs),
        }
    return counts


def _rmse(errors):
    """Position (km) and velocity (m/s) RMSE over the evaluation times, shape (F, E, 6)."""
    position = np.sqrt(np.mean(np.sum(errors[..., :3] ** 2, axis=-1), axis=-1))
    velocity = 1e3 * np.sqrt(np.mean(np.sum(errors[..., 3:] ** 2, axis=-1), axis=-1))
    return position, velocity


def _rows(scenario, element_set, found, filters, accounts, tracking):
    """One row per level: the logdet filter's RMSE, and the scaled designer's beside it."""
    ident = {"norad_id": int(element_set.catalogue_number), "regime": regime(element_set)}
    counts = {"measurements": int(sum(len(p.indices) for p in found)), "passes": len(found)}
    by_label = {}
    for f, (label, epsilon, designer) in enumerate(filters):
        entry = by_label.setdefault(label, {"epsilon": epsilon})
        entry[designer or "logdet"] = (accounts[f], *(column[f] for column in tracking))
    rows = []
    for label, entry in by_label.items():
        (pass_eps, day_eps), pos, vel, rejected = entry["logdet"]
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
        }
        if "scaled" in entry:
            (pass_s, day_s), pos_s, vel_s, rejected_s = entry["scaled"]
            row.update(
                epsilon_pass_achieved_scaled=pass_s,
                epsilon_day_achieved_scaled=day_s,
                position_rmse_km_scaled=pos_s,
                velocity_rmse_m_s_scaled=vel_s,
                updates_rejected_scaled=int(rejected_s),
            )
        rows.append(row)
    return rows


def _per_measurement(scenario, norad, Sigma_XX, found):
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


def catalog_task(scenario, elements, seed):
    """Track a batch of objects at every level (module docstring).

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        The run's fixed quantities (grid, network, levels, delta).
    elements : list of tuple of str
        The batch's element sets as (name, line 1, line 2).
    seed : int
        The run's seed.

    Returns
    -------
    dict
        ``rows`` (one per object and level; an object without a pass has ``passes =
        measurements = 0``, leakage 0 and the RMSE of the prediction alone),
        ``per_measurement`` (one per object and per-measurement level),
        ``certificates`` (per object, :func:`certificate_counts`) and
        ``sgp4_difference_km`` (J2 nominal against SGP4 at the end of the window, per
        object).
    """
    sets = [ElementSet(*lines) for lines in elements]
    times = scenario.times
    sgp4 = sgp4_states(sets, scenario.start_jd, times[[0, -1]])
    nominal, Phi = scenario.propagator.propagate_with_transition(
        times, sgp4[:, 0], rtol=TRUTH_TOLERANCE, atol=TRUTH_TOLERANCE
    )
    setups = [_object_setup(scenario, e, nominal[i], Phi[i], seed) for i, e in enumerate(sets)]
    starts = np.array([nominal[i, 0] + s[2] for i, s in enumerate(setups)])
    truths = scenario.propagator.propagate_many(times, starts, TRUTH_TOLERANCE, TRUTH_TOLERANCE)
    rows, per_measurement, certificates = [], [], []
    for i, (norad, Sigma_XX, _, found, draws) in enumerate(setups):
        filters, noises, accounts = _level_noises(scenario, Sigma_XX, found)
        certificates.append(certificate_counts(filters, noises))
        measured = _contact_measurements(scenario, nominal[i], truths[i], found, draws, noises)
        estimates, rejected = track_contacts(
            scenario.propagator,
            scenario.earth,
            scenario.stations,
            times,
            nominal[i, 0],
            Sigma_XX,
            measured,
            scenario.evaluate,
            filters=len(filters),
        )
        position, velocity = _rmse(estimates - truths[i][scenario.evaluate])
        rows += _rows(scenario, sets[i], found, filters, accounts, (position, velocity, rejected))
        per_measurement += _per_measurement(scenario, norad, Sigma_XX, found)
    difference = np.linalg.norm(nominal[:, -1, :3] - sgp4[:, 1, :3], axis=-1)
    return {
        "rows": rows,
        "per_measurement": per_measurement,
        "certificates": certificates,
        "sgp4_difference_km": difference.tolist(),
    }
