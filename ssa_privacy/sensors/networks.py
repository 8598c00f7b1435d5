"""A ground radar network at public sites, for catalogue-scale tracking studies.

Eight space-surveillance radars spread over both hemispheres and most longitudes. Their
positions are those of the public sensor catalogue of KeepTrack (T. Kruczek,
``github.com/thkruz/keeptrack.space``, sensor manager list; it cites radartutorial.eu
and mostlymissiledefense.com for the sites), rounded to 1e-4 deg (about 10 m). The
catalogue marks most site heights as approximate; they only shape the geometry, since
the truth and the filter of a study use the same site.

Every site measures (azimuth, elevation, range, range rate) like a
:class:`~ssa_privacy.sensors.stations.GroundStation`:

- noise (1 sigma): 0.02 deg in azimuth, 0.01 deg in elevation and 90 m in range, the
  values of the Fylingdales sensor record in D. A. Vallado's companion software to
  *Fundamentals of Astrodynamics and Applications* (``getsensorparams``); 10 cm/s in
  range rate (this package's :data:`~ssa_privacy.sensors.stations.DEFAULT_NOISE_STD`,
  an assumption: the record has no range rate);
- elevation mask: :data:`ELEVATION_MASK` = 5 deg for every site (the catalogue's
  lowest usable elevations are 1-3 deg; 5 deg keeps the measurements away from the
  horizon, where refraction, not modelled here, matters).

Coverage, not the radars' real fields of view (several face one sector only), is what
the network models: every site sees the whole sky above its mask.
"""

import numpy as np

from ssa_privacy.sensors.stations import GroundStation

__all__ = [
    "ELEVATION_MASK",
    "NOISE_STD",
    "SITES",
    "radar_network",
]

#: Smallest elevation of a measurement at every site (deg).
ELEVATION_MASK = 5.0
#: Sensor noise (1 sigma) on (azimuth, elevation, range, range rate): (rad, rad, km, km/s).
NOISE_STD = (np.radians(0.02), np.radians(0.01), 0.090, 1.0e-4)
#: (name, latitude deg, longitude deg, height km, what is there), from the KeepTrack list.
SITES = (
    ("Eglin", 30.5724, -86.2148, 0.061, "AN/FPS-85 phased array, Florida"),
    ("Cobra Dane", 52.7370, 174.0920, 0.011, "AN/FPS-108, Shemya, Alaska"),
    ("Clear", 64.2906, -149.1869, 0.061, "upgraded early-warning radar, Alaska"),
    ("Fylingdales", 54.3618, -0.6701, 0.061, "upgraded early-warning radar, England"),
    ("Thule", 76.5703, -68.2992, 0.061, "upgraded early-warning radar, Greenland"),
    ("ALTAIR", 8.7167, 167.7333, 0.0, "tracking radar, Kwajalein Atoll"),
    ("Ascension", -7.9694, -14.3939, 0.0, "tracking radar, Ascension Island"),
    ("TIRA", 50.6166, 7.1296, 0.0, "tracking and imaging radar, Germany"),
)


def radar_network(elevation_mask=ELEVATION_MASK, noise_std=NOISE_STD):
    """The eight ground radars of :data:`SITES` as ground stations.

    Parameters
    ----------
    elevation_mask : float, optional
        Smallest elevation of a measurement (deg), default :data:`ELEVATION_MASK`.
    noise_std : sequence of 4 floats, optional
        Sensor noise (1 sigma) on (azimuth, elevation, range, range rate) in (rad, rad,
        km, km/s), default :data:`NOISE_STD`.

    Returns
    -------
    tuple of GroundStation
        In the order of :data:`SITES`.

    Raises
    ------
    ValueError, TypeError
        As :class:`~ssa_privacy.sensors.stations.GroundStation` for a bad mask or noise.
    """
    return tuple(
        GroundStation(name, latitude, longitude, height, elevation_mask, noise_std)
        for name, latitude, longitude, height, _ in SITES
    )
