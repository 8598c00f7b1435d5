"""A network measuring a truth: the sensor noise of an object's passes, the measurements
on the nominal's angle branch, and their releases.

A station of the network measures the true track at its pass's samples with its sensor
noise (``N(0, R)`` per measurement, drawn pass by pass). A measured angle taken modulo
2 pi (azimuth, right ascension) is given on the branch nearest to the nominal's
(public) prediction of it (:func:`wrap_angles`), so that a release, a real number, is
compared with a prediction on the same branch. Each pass is then released through its
privacy mechanism (:func:`release_passes`), or as measured. The filters take these
releases grouped into contacts
(:func:`~ssa_privacy.estimation.contacts.contact_releases`).
"""

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import as_finite_array

__all__ = ["measured_passes", "release_passes", "sensor_noise", "wrap_angles"]


def wrap_angles(values, wrapped=None):
    """Wrap the angle entries of stacked measurements into (-pi, pi].

    Parameters
    ----------
    values : ndarray, shape (..., M)
        Stacked measurement differences (rad for the angles).
    wrapped : ndarray of bool, shape (M,), optional
        The rows that are angles taken modulo 2 pi (azimuth, right ascension). Default:
        every fourth row from 0 (the azimuths of radar rows).

    Returns
    -------
    ndarray, shape (..., M)
        A copy of ``values`` with the wrapped rows in (-pi, pi] (``angle(exp(i v))``).

    Notes
    -----
    Source: standard (the principal value of an angle difference).
    """
    values = np.array(values, dtype=float)
    if wrapped is None:
        values[..., 0::4] = np.angle(np.exp(1j * values[..., 0::4]))
    else:
        values[..., wrapped] = np.angle(np.exp(1j * values[..., wrapped]))
    return values


def sensor_noise(found, rng):
    """Each pass's sensor noise: standard normals times the sensor's standard deviations.

    Parameters
    ----------
    found : list of Pass
        The passes (:func:`~ssa_privacy.sensors.streams.passes_of`), each with its
        sensor noise covariance ``R`` (m, m).
    rng : int, sequence of int or Generator
        The randomness, drawn pass by pass in order
        (:func:`~ssa_privacy._internal.random.random_generator`).

    Returns
    -------
    list of ndarray, shape (K, m)
        Per pass, ``N(0, diag(R))`` per measurement (rad, km, km/s as the rows' units).

    Notes
    -----
    Source: standard (independent Gaussian sensor noise; a station's ``R`` is diagonal).
    """
    rng = random_generator(rng, "rng")
    return [rng.standard_normal((len(p.indices), len(p.R))) * np.sqrt(np.diag(p.R)) for p in found]


def measured_passes(stations, earth, times, nominal, truth, found, noise, recorded=None):
    """Each pass's sensor measurements (m K,) and their nominal references.

    A station measures the truth with sensor noise, or its measurements are the recorded
    ones (``recorded``, then ``truth`` and ``noise`` are None); angles (azimuth, right
    ascension) are taken on the branch nearest to the nominal's (public) one
    (:func:`wrap_angles`).

    Parameters
    ----------
    stations : sequence of GroundStation or OpticalStation
        The network (indexed by the passes' ``station``).
    earth : EarthRotation
        The Earth's orientation.
    times : ndarray, shape (m_t,)
        The time grid (s).
    nominal : ndarray, shape (m_t, 6)
        The public nominal track (km, km/s).
    truth : ndarray, shape (m_t, 6), or None
        The true track (km, km/s); None with ``recorded``.
    found : list of Pass
        The passes.
    noise : list of ndarray, shape (K, m), or None
        Each pass's sensor noise (:func:`sensor_noise`); None with ``recorded``.
    recorded : dict, optional
        Station index -> (grid indices (K,), values (K, m)): recorded measurements
        instead of the truth's.

    Returns
    -------
    measured : list of ndarray, shape (m K,)
        Each pass's measurements, measurement after measurement.
    references : list of ndarray, shape (m K,)
        The nominal's measurements at the same samples.

    Raises
    ------
    ValueError
        If ``truth`` is not (m_t, 6) finite or ``noise`` does not hold one array per
        pass (without ``recorded``), or as the stations (a non-finite state).

    Notes
    -----
    Source: standard (measurement model ``z = h(x) + v``; Vallado, *Fundamentals of
    Astrodynamics and Applications*, Algorithm 27, for a radar's ``h``).
    """
    if recorded is None:
        truth = as_finite_array(truth, "truth", ndim=2)
        if truth.shape != (len(times), 6):
            raise ValueError(f"truth must have shape ({len(times)}, 6), got {truth.shape}")
        if noise is None or len(noise) != len(found):
            raise ValueError(f"noise must hold one array per pass ({len(found)})")
    measured, references = [], []
    for n, item in enumerate(found):
        station, t = stations[item.station], times[item.indices]
        reference = station.measure(nominal[item.indices], t, earth).ravel()
        if recorded is None:
            clean = station.measure(truth[item.indices], t, earth) + noise[n]
        else:
            indices, values = recorded[item.station]
            clean = values[np.searchsorted(indices, item.indices)]
        wrapped = np.tile(station.wrapped, len(item.indices))
        measured.append(reference + wrap_angles(clean.ravel() - reference, wrapped))
        references.append(reference)
    return measured, references


def release_passes(mechanisms, measured, keys):
    """Per filter, every pass as released: through its mechanism, or as measured.

    Parameters
    ----------
    mechanisms : list of list
        Per filter, each pass's :class:`~ssa_privacy.privacy.pml.passes.PassMechanism`,
        or None where the pass is released as measured.
    measured : list of ndarray, shape (m K,)
        Each pass's sensor measurements.
    keys : tuple of int
        Seed keys of the privacy noise: each filter releases its passes in order from a
        fresh ``default_rng(keys)`` (common random numbers across filters).

    Returns
    -------
    list of list
        Per filter, per pass, the :class:`~ssa_privacy.privacy.mechanism.Release`, or None
        where the mechanism is None.

    Notes
    -----
    Source: standard (common random numbers; Glasserman, *Monte Carlo Methods in
    Financial Engineering*, §4.2).
    """
    out = []
    for designs in mechanisms:
        rng = random_generator(keys)
        out.append(
            [None if d is None else d.release(y, seed=rng) for d, y in zip(designs, measured)]
        )
    return out
