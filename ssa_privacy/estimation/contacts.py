"""The releases of an object's contacts: the container the filters update from, and its
assembly from the passes' releases.

A *contact* is a group of passes that overlap in time
(:func:`~ssa_privacy.sensors.streams.contacts`); the catalogue's extended Kalman filter
(:func:`~ssa_privacy.estimation.ekf.track_contacts`) updates from all its measurements
at once. :class:`ContactMeasurements` holds them for F filters (one per privacy level or
simulated truth) and :func:`contact_releases` builds them from the passes' releases.
"""

import numpy as np

from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.sensors.streams import contacts

__all__ = ["ContactMeasurements", "contact_releases"]


class ContactMeasurements:
    """The releases of one contact, for each of F filters.

    Parameters
    ----------
    stations : ndarray of int, shape (N,)
        The station of each of the contact's N measurements: a radar's has four rows
        (azimuth, elevation, range, range rate), an optical sensor's two (right ascension,
        declination); M rows in all, in the order of the measurements.
    indices : ndarray of int, shape (N,)
        Its index in the time grid.
    z : ndarray, shape (F, M)
        The released measurements of each filter (rad, km, km/s as the rows' units).
    noise : ndarray, shape (F, M, M), or ContactNoise
        Their noise covariances (sensor and privacy), positive definite; a
        :class:`~ssa_privacy.estimation.contact_noise.ContactNoise` keeps them as the
        passes' blocks (not materialized).
    scale : ndarray, shape (M,)
        A typical standard deviation of each row (the sensor's), to condition the batch
        least squares of orbit determination.
    reference : ndarray, shape (M,)
        The public prediction of each row (from the nominal orbit). A released azimuth
        is a real number (the noise may exceed a turn); it is given on the branch
        nearest to the reference azimuth, and the filter compares it with its own
        prediction on that branch.
    wrapped : ndarray of bool, shape (M,), optional
        The rows that are angles taken modulo 2 pi (azimuth, right ascension). Default:
        every fourth row from 0 (radar measurements only).
    """

    def __init__(self, stations, indices, z, noise, scale, reference, wrapped=None):
        self.wrapped = None if wrapped is None else np.asarray(wrapped, dtype=bool)
        self.scale = np.asarray(scale, dtype=float)
        self.reference = np.asarray(reference, dtype=float)
        self.stations = np.asarray(stations)
        self.indices = np.asarray(indices)
        self.z = np.asarray(z, dtype=float)
        self.noise = noise if isinstance(noise, ContactNoise) else np.asarray(noise, dtype=float)

    def subset(self, filters):
        """The same contact with the releases of some filters only.

        Parameters
        ----------
        filters : ndarray of int
            The filters kept, in order.

        Returns
        -------
        ContactMeasurements
            Their releases and noises, the rest shared.
        """
        return ContactMeasurements(
            self.stations,
            self.indices,
            self.z[filters],
            self.noise[filters],
            self.scale,
            self.reference,
            self.wrapped,
        )

    def stacked(self, others):
        """The same contact with the filters of ``others`` after this one's.

        Parameters
        ----------
        others : sequence of ContactMeasurements
            Releases of the same measurements (stations, grid indices, scale, reference)
            for other filters, e.g. of other simulated truths.

        Returns
        -------
        ContactMeasurements
            All their filters' releases and noises, in order.

        Raises
        ------
        ValueError
            If one of ``others`` is not the same contact's (other stations or indices).
        """
        for other in others:
            if not (
                np.array_equal(other.stations, self.stations)
                and np.array_equal(other.indices, self.indices)
            ):
                raise ValueError("others must hold the same contact's measurements")
        return ContactMeasurements(
            self.stations,
            self.indices,
            np.concatenate([self.z, *(o.z for o in others)]),
            _concatenated([self.noise, *(o.noise for o in others)]),
            self.scale,
            self.reference,
            self.wrapped,
        )

    @property
    def end(self):
        """The grid index of the contact's last measurement."""
        return int(self.indices.max())


def _concatenated(noises):
    """The filters of several contacts' noises, in order (a ContactNoise if all are)."""
    if all(isinstance(n, ContactNoise) for n in noises):
        return ContactNoise([t for n in noises for t in n.terms])
    return np.concatenate([np.asarray(n, dtype=float) for n in noises])


def contact_releases(stations, found, measured, references, mechanisms, releases):
    """The releases of each contact of an object's passes, for every filter.

    The passes are grouped into contacts (:func:`~ssa_privacy.sensors.streams.contacts`:
    passes that overlap in time); a filter's releases of a contact are its passes'
    releases (or, for a filter without privacy, the measurements) stacked in the order
    of the passes, with a noise covariance that is block diagonal over them: each pass's
    sensor noise ``kron(I_K, R)`` plus its mechanism's ``Theta``
    (:class:`~ssa_privacy.estimation.contact_noise.ContactNoise`).

    Parameters
    ----------
    stations : sequence of GroundStation or OpticalStation
        The network (indexed by the passes' ``station``).
    found : list of Pass
        The object's passes (:func:`~ssa_privacy.sensors.streams.passes_of`).
    measured : list of ndarray, shape (m K,)
        Each pass's sensor measurements (:func:`~ssa_privacy.sensors.simulation.measured_passes`).
    references : list of ndarray, shape (m K,)
        Each pass's nominal measurements (the public prediction; angles' branch).
    mechanisms : list of list
        Per filter, each pass's :class:`~ssa_privacy.privacy.pml.passes.PassMechanism`,
        or None where the pass is released as measured (no privacy).
    releases : list of list
        Per filter, each pass's :class:`~ssa_privacy.privacy.mechanism.Release` (None
        where its mechanism is None), as
        :func:`~ssa_privacy.sensors.simulation.release_passes` gives them.

    Returns
    -------
    list of ContactMeasurements
        The contacts in time order, each with the F filters' releases.

    Raises
    ------
    ValueError
        If ``mechanisms`` and ``releases`` do not hold the same number of filters.

    Notes
    -----
    Source: standard (stacked measurement model of a batch update; Bar-Shalom, Li and
    Kirubarajan 2001, §3.4).
    """
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
