"""Measurements, releases and contacts of one object's passes (the ssa-catalog study).

Shared by the study's task (:mod:`~ssa_privacy.studies._ssa_catalog_task`, the object's
truth) and the day designer's judge (:mod:`~ssa_privacy.studies._ssa_catalog_day_judge`,
simulated truths).
"""

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.estimation.ekf import ContactMeasurements, track_contacts
from ssa_privacy.estimation.ukf import measurement_residual
from ssa_privacy.sensors.streams import contacts

__all__ = [
    "contact_releases",
    "measured_passes",
    "release_passes",
    "sensor_noise",
    "track_object",
]


def sensor_noise(found, rng):
    """Each pass's sensor noise (K, m): standard normals from ``rng`` times the sensor's
    standard deviations, pass by pass in order."""
    return [rng.standard_normal((len(p.indices), len(p.R))) * np.sqrt(np.diag(p.R)) for p in found]


def measured_passes(scenario, nominal, truth, found, noise, recorded):
    """Each pass's sensor measurements (m K,) and their nominal references.

    A station measures the truth with sensor noise, or its measurements are the recorded
    ones (``recorded``, then ``truth`` and ``noise`` are None); angles (azimuth, right
    ascension) are taken on the branch nearest to the nominal's (public) one.
    """
    measured, references = [], []
    for n, item in enumerate(found):
        station, t = scenario.stations[item.station], scenario.times[item.indices]
        reference = station.measure(nominal[item.indices], t, scenario.earth).ravel()
        if recorded is None:
            clean = station.measure(truth[item.indices], t, scenario.earth) + noise[n]
        else:
            indices, values = recorded[item.station]
            clean = values[np.searchsorted(indices, item.indices)]
        wrapped = np.tile(station.wrapped, len(item.indices))
        measured.append(reference + measurement_residual(clean.ravel(), reference, wrapped))
        references.append(reference)
    return measured, references


def release_passes(mechanisms, measured, keys):
    """Per filter, every pass as released: through its mechanism, or as measured.

    Parameters
    ----------
    mechanisms : list of list
        Per filter, each pass's :class:`~ssa_privacy.privacy.pml.passes.PassMechanism`,
        or None for the level without privacy.
    measured : list of ndarray, shape (4 K,)
        Each pass's sensor measurements.
    keys : tuple of int
        Seed keys of the privacy noise: each privatized filter releases its passes in
        order from a fresh ``default_rng(keys)`` (common random numbers across filters).

    Returns
    -------
    list of list
        Per filter, per pass, the :class:`~ssa_privacy.privacy.mechanism.Release` or, for
        the level without privacy, None.
    """
    out = []
    for designs in mechanisms:
        rng = random_generator(keys)
        out.append(
            [None if d is None else d.release(y, seed=rng) for d, y in zip(designs, measured)]
        )
    return out


def contact_releases(stations, found, measured, references, mechanisms, releases):
    """The releases of each contact for every filter (module docstring, step 5)."""
    out = []
    for group in contacts(found):
        z, noise = [], []
        for designs, released in zip(mechanisms, releases, strict=True):
            z_f, terms = [], []
            for i in group:
                K = len(found[i].indices)
                if designs[i] is None:
                    z_f.append(measured[i])
                    terms.append((found[i].R, K, None))
                else:
                    z_f.append(released[i].values)
                    terms.append((found[i].R, K, designs[i]))
            z.append(np.concatenate(z_f))
            noise.append(terms)
        rows = [np.full(len(found[i].indices), found[i].station) for i in group]
        indices = np.concatenate([found[i].indices for i in group])
        scale = [np.tile(np.sqrt(np.diag(found[i].R)), len(found[i].indices)) for i in group]
        reference = np.concatenate([references[i] for i in group])
        wrapped = [
            np.tile(stations[found[i].station].wrapped, len(found[i].indices)) for i in group
        ]
        out.append(
            ContactMeasurements(
                np.concatenate(rows),
                indices,
                np.array(z),
                ContactNoise(noise),
                np.concatenate(scale),
                reference,
                np.concatenate(wrapped),
            )
        )
    return out


def track_object(scenario, nominal, Sigma_XX, contacts, filters, diagnostics=False):
    """The study's filters of one object from its prior over the scenario's grid
    (:func:`~ssa_privacy.estimation.ekf.track_contacts`, estimates at the scenario's
    ephemeris times)."""
    return track_contacts(
        scenario.propagator,
        scenario.earth,
        scenario.stations,
        scenario.times,
        nominal[0],
        Sigma_XX,
        contacts,
        scenario.ephemeris,
        filters=filters,
        psd=scenario.process_noise_psd,
        diagnostics=diagnostics,
    )
