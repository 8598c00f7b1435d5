"""Passes: the contiguous stretches of time in which a station sees an object.

A station's measurements of one object over a window come in passes, each a run of
consecutive sample times with the object above the elevation mask
(:meth:`~ssa_privacy.sensors.stations.GroundStation.visible`). Privacy accounting over a
whole pass, and per-pass statistics of a catalogue study, start from these runs.
:func:`coverage_outline` gives where on the ground a site sees an object at a given
altitude (a coverage map's area).
"""

import numpy as np

from ssa_privacy._internal.validation import positive_int
from ssa_privacy.constants import R_EARTH

__all__ = [
    "coverage_outline",
    "passes",
    "split_passes",
]


def passes(visible):
    """The passes of a visibility series: ``(start, stop)`` index pairs of its runs of True.

    Parameters
    ----------
    visible : array_like of bool, shape (m,) or (N, m)
        Whether the object is above the mask at each of m sample times (one row per
        object, or per station).

    Returns
    -------
    list of tuple of int, or list of such lists
        For each row, the runs in time order; ``visible[start:stop]`` is all True and
        the samples just before ``start`` and at ``stop`` (where they exist) are False.

    Raises
    ------
    ValueError
        If ``visible`` is not 1-D or 2-D, or holds values other than booleans (or 0 and 1).
    """
    array = np.asarray(visible)
    if array.ndim not in (1, 2):
        raise ValueError(f"visible must be 1-D or 2-D, got shape {array.shape}")
    if array.dtype != bool:
        if array.size and not np.isin(array, (0, 1)).all():
            raise ValueError("visible must hold booleans (or 0 and 1)")
        array = array.astype(bool)
    rows = np.atleast_2d(array)
    padded = np.zeros((rows.shape[0], rows.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = rows
    change = np.diff(padded, axis=1)
    runs = [
        list(zip(np.flatnonzero(row == 1).tolist(), np.flatnonzero(row == -1).tolist()))
        for row in change
    ]
    return runs[0] if array.ndim == 1 else runs


def split_passes(runs, length):
    """Split the runs longer than ``length`` samples at the multiples of ``length``.

    Parameters
    ----------
    runs : list of tuple of int
        ``(start, stop)`` pairs, as :func:`passes` returns for one series.
    length : int
        The longest pass, in samples, >= 1.

    Returns
    -------
    list of tuple of int
        The runs of at most ``length`` samples kept whole; each longer run cut at the
        sample indices ``k * length`` inside it, so that the pieces of all stations'
        long runs share their boundaries (a geosynchronous object, in view of several
        stations all day, gives aligned passes of ``length`` samples).

    Raises
    ------
    ValueError
        If ``length`` is not a positive integer.
    """
    length = positive_int(length, "length")
    pieces = []
    for start, stop in runs:
        if stop - start <= length:
            pieces.append((start, stop))
            continue
        cuts = [start, *range((start // length + 1) * length, stop, length), stop]
        pieces.extend(zip(cuts[:-1], cuts[1:], strict=True))
    return pieces


def coverage_outline(latitude, longitude, altitude, mask, sector=None, range_max=None):
    """The ground area (deg) where an object at ``altitude`` km is seen from a site.

    The boundary lies where the object is at elevation ``mask`` or, nearer, at slant
    range ``range_max``; with an azimuth ``sector`` the area is the wedge from the site
    over that arc.

    Parameters
    ----------
    latitude, longitude : float
        The site (deg, geodetic latitude; a sphere of radius R_EARTH is assumed).
    altitude : float
        The object's altitude (km).
    mask : float
        Elevation mask (deg).
    sector : tuple of float, optional
        Azimuths (deg, clockwise from north) from ``sector[0]`` to ``sector[1]``.
    range_max : float, optional
        Largest slant range (km).

    Returns
    -------
    lon, lat : ndarray
        A closed polygon (deg). Longitudes run continuously (they may leave [-180, 180]:
        draw the polygon also shifted by +-360 deg). An area around a pole is closed along
        that pole's latitude (+-90 deg), so that it fills the cap.

    Notes
    -----
    Standard spherical geometry: the Earth-central angle to an object at altitude h seen
    at elevation e is ``arccos(R cos e / (R + h)) - e`` (the sine rule in the triangle of
    the Earth's centre, the site and the object), at slant range r it follows from the
    cosine rule, and the boundary points from the spherical direct problem (Vallado,
    *Fundamentals of Astrodynamics and Applications*, 4th ed., §11.2).
    """
    el = np.radians(mask)
    angle = np.arccos(R_EARTH * np.cos(el) / (R_EARTH + altitude)) - el
    if range_max is not None:
        outer = R_EARTH + altitude
        cosine = (R_EARTH**2 + outer**2 - range_max**2) / (2.0 * R_EARTH * outer)
        angle = min(angle, np.arccos(np.clip(cosine, -1.0, 1.0)))
    if sector is None:
        bearing = np.linspace(0.0, 2.0 * np.pi, 181)
        ground = np.full(bearing.shape, angle)
    else:
        width = (sector[1] - sector[0]) % 360.0 or 360.0
        arc = np.radians(sector[0] + np.linspace(0.0, width, max(3, round(width / 2))))
        bearing = np.concatenate([[0.0], arc, [0.0]])
        ground = np.concatenate([[0.0], np.full(arc.shape, angle), [0.0]])
    phi, lam = np.radians(latitude), np.radians(longitude)
    lat = np.arcsin(np.sin(phi) * np.cos(ground) + np.cos(phi) * np.sin(ground) * np.cos(bearing))
    lon = lam + np.arctan2(
        np.sin(bearing) * np.sin(ground) * np.cos(phi), np.cos(ground) - np.sin(phi) * np.sin(lat)
    )
    lon, lat = np.degrees(np.unwrap(lon)), np.degrees(lat)
    if abs(lon[-1] - lon[0]) > 180.0:  # the boundary goes round a pole: close over it
        pole = 90.0 if latitude >= 0.0 else -90.0
        lon, lat = np.append(lon, [lon[-1], lon[0]]), np.append(lat, [pole, pole])
    return lon, lat
