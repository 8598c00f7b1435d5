"""The Sun and the Earth's shadow: the Sun's position, sunlit objects, dark sites.

An optical sensor sees an object only when the object reflects sunlight and the sky at
the site is dark (:class:`ssa_privacy.sensors.optical.OpticalStation`). This module gives
the three ingredients:

- :func:`sun_position`: the Sun's geocentric position in the TEME frame (km), from
  astropy's apparent Sun (:func:`astropy.coordinates.get_sun`, which includes the light
  time and the annual aberration) transformed to :class:`astropy.coordinates.TEME`. No
  solar series is written here; results are cached per grid of times (a study asks for
  the same grid many times).
- :func:`sunlit_fraction` and :func:`sunlit`: the conical shadow model of a spherical
  Earth (umbra and penumbra), after Montenbruck and Gill §3.4.2. An object counts as
  sunlit unless it is in the umbra (a partly lit object in the penumbra still reflects
  light).
- :func:`sun_elevation`: the Sun's topocentric elevation above a site's geodetic horizon
  (geometric: no refraction), to decide whether the site is dark.

Notes
-----
*Offline Earth orientation.* The transformation GCRS -> TEME in astropy goes through
the Earth-fixed ITRS frame and so asks for UT1 - UTC and the polar motion, which cancel
between the two legs (checked: a 0.9 s error in UT1 - UTC moves the Sun's TEME position
by 1 m, 7e-12 rad). Every astropy call here therefore runs in ``_offline_iers``:
automatic downloads off, and the IERS-A table bundled with the ``astropy-iers-data``
package passed explicitly (outside its span, 1973 to about a year after the package's
release, astropy holds the last values and the mean polar motion, silently). Astropy
never reaches for the network from this module.

*Accuracy.* Sun direction: that of astropy's built-in ephemeris (ERFA ``epv00``);
against the JPL DE430 ephemeris through skyfield (apparent Sun in skyfield's TEME frame,
2015-03-01 to 03-05) the directions agree to 2.3e-6 deg (8 mas) and the distances to
3.2 km, and against the Astronomical Almanac's low-precision formula to 0.009 deg over
1990-2040 (the formula's own accuracy is 0.01 deg). Shadow: a sphere of the equatorial
radius :data:`~ssa_privacy.constants.WGS84_A`; the oblateness (the polar radius is 21 km
shorter) and the atmosphere (which dims light grazing the limb to some 50 km up) are
neglected, which moves the shadow boundary by up to tens of km: a low-orbit object
(whose distance from the shadow axis changes by some 3 km/s at entry) enters or leaves
the umbra some 10 to 20 s off, more on a grazing pass.

References
----------
O. Montenbruck and E. Gill, "Satellite Orbits: Models, Methods and Applications",
Springer, 2000, §3.4.2 (conical shadow model, fraction of the Sun's disc visible);
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., §5.3 (Sun
position, Algorithm 29), §5.3.2 (Earth shadow, Algorithm 34 SHADOW); IAU 2015 Resolution
B3 (nominal solar radius 695,700 km); Astropy Collaboration, astropy 8 documentation,
"IERS data access" (working offline).
"""

import warnings
from collections import OrderedDict
from contextlib import contextmanager

import numpy as np

from ssa_privacy._internal.validation import as_finite_array
from ssa_privacy.constants import WGS84_A
from ssa_privacy.orbits._checks import vectors
from ssa_privacy.sensors.geodesy import geodetic_to_ecef

__all__ = [
    "SUN_CACHE_SIZE",
    "SUN_RADIUS",
    "sun_elevation",
    "sun_position",
    "sunlit",
    "sunlit_fraction",
]

#: Nominal radius of the Sun (km), IAU 2015 Resolution B3.
SUN_RADIUS = 695700.0
#: Number of time grids whose Sun positions :func:`sun_position` keeps (least recently
#: used first out).
SUN_CACHE_SIZE = 16

_SUN_CACHE = OrderedDict()
_SECONDS_PER_DAY = 86400.0


@contextmanager
def _offline_iers():
    """Run astropy with the bundled IERS-A table and no download, quietly outside its span.

    Sets, for the duration only: ``iers.conf.auto_download = False`` (nor the IERS table
    nor the leap seconds are fetched), ``iers.conf.iers_degraded_accuracy = "ignore"``
    and the Earth orientation table to the IERS-A file of ``astropy-iers-data``
    (``iers.IERS_A_FILE``); the warning about the mean polar motion used outside the
    table is silenced (the Sun's TEME position does not depend on it), and so is ERFA's
    "dubious year" warning for dates past the leap-second table (an unknown future leap
    second moves the Sun by 0.04 arcsec).
    """
    from astropy.utils import iers

    with (
        iers.conf.set_temp("auto_download", False),
        iers.conf.set_temp("iers_degraded_accuracy", "ignore"),
        iers.earth_orientation_table.set(_bundled_iers_table()),
        warnings.catch_warnings(),
    ):
        warnings.filterwarnings("ignore", message=".*polar motion.*")
        warnings.filterwarnings("ignore", message=".*dubious year.*")
        yield


def _bundled_iers_table():
    """The IERS-A table shipped by ``astropy-iers-data`` (read once, then reused)."""
    global _IERS_TABLE
    if _IERS_TABLE is None:
        from astropy.utils import iers

        _IERS_TABLE = iers.IERS_A.open(iers.IERS_A_FILE)
    return _IERS_TABLE


_IERS_TABLE = None


def _compute_sun(jd_utc, seconds):
    """Apparent geocentric Sun in TEME (km), shape ``jd_utc.shape + (3,)`` (no cache)."""
    import astropy.units as u
    from astropy.coordinates import TEME, get_sun
    from astropy.time import Time

    whole = np.floor(jd_utc)
    fraction = (jd_utc - whole) + seconds / _SECONDS_PER_DAY
    with _offline_iers():
        time = Time(whole.ravel(), fraction.ravel(), format="jd", scale="utc")
        teme = get_sun(time).transform_to(TEME(obstime=time))
        xyz = teme.cartesian.xyz.to_value(u.km)
    return np.moveaxis(xyz, 0, -1).reshape(jd_utc.shape + (3,))


def sun_position(jd_utc, seconds=0.0):
    """Geocentric position of the Sun in the TEME frame.

    Parameters
    ----------
    jd_utc : float or array_like
        Julian date (UTC, days), e.g. an epoch.
    seconds : float or array_like, optional
        Seconds after ``jd_utc`` (default 0), e.g. a study's time grid; broadcasts with
        ``jd_utc``. The two are added without rounding the grid into the large Julian
        date.

    Returns
    -------
    ndarray, shape ``broadcast(jd_utc, seconds).shape + (3,)``
        The apparent Sun (light time and annual aberration included), TEME axes, km;
        about 1.47e8 to 1.52e8 km from the Earth's centre. A fresh array each call.

    Raises
    ------
    TypeError
        If a value is not a real number.
    ValueError
        If a value is not finite, the two do not broadcast, or a date lies outside
        1900-2100 (the span of the ephemeris and of this module's checks).

    Notes
    -----
    :func:`astropy.coordinates.get_sun` transformed to
    :class:`astropy.coordinates.TEME` under :func:`_offline_iers` (no network). The last
    :data:`SUN_CACHE_SIZE` grids are cached, keyed on the bytes of both arrays: a
    repeated call costs a copy. Computing 2,881 epochs (a day at 30 s) takes about
    0.5 s (astropy 8, one core; most of it in astropy's frame bookkeeping), plus about
    1.5 s for astropy's imports and IERS table at the first call of a process; a cached
    grid, 0.2 ms. See the module notes for the accuracy. Vallado §5.3; Montenbruck and
    Gill §3.3.2.
    """
    jd = as_finite_array(jd_utc, "jd_utc")
    offset = as_finite_array(seconds, "seconds")
    try:
        shape = np.broadcast_shapes(jd.shape, offset.shape)
    except ValueError:
        raise ValueError(
            f"jd_utc and seconds must broadcast together, got shapes {jd.shape} and {offset.shape}"
        ) from None
    days = jd + offset / _SECONDS_PER_DAY
    if np.any((days < 2415020.5) | (days > 2488069.5)):
        raise ValueError("jd_utc (plus seconds) must lie within 1900-2100 (JD 2415020.5-2488069.5)")
    key = (jd.shape, jd.tobytes(), offset.shape, offset.tobytes())
    if key in _SUN_CACHE:
        _SUN_CACHE.move_to_end(key)
        return _SUN_CACHE[key].copy()
    sun = _compute_sun(*np.broadcast_arrays(jd, offset))
    assert sun.shape == shape + (3,)
    sun.setflags(write=False)
    _SUN_CACHE[key] = sun
    while len(_SUN_CACHE) > SUN_CACHE_SIZE:
        _SUN_CACHE.popitem(last=False)
    return sun.copy()


def _positions_and_sun(positions, sun):
    """Check positions (..., 3) and Sun positions (..., 3) that broadcast, both km."""
    positions = vectors(positions, "positions", 3)
    sun = vectors(sun, "sun", 3)
    try:
        np.broadcast_shapes(positions.shape, sun.shape)
    except ValueError:
        raise ValueError(
            f"positions and sun must broadcast together, got shapes {positions.shape} and "
            f"{sun.shape}"
        ) from None
    radius = np.linalg.norm(positions, axis=-1)
    if np.any(radius <= WGS84_A):
        raise ValueError(
            f"positions must lie outside the Earth (|r| > {WGS84_A} km), got a radius of "
            f"{np.min(radius):.3f} km"
        )
    if np.any(np.linalg.norm(sun, axis=-1) <= SUN_RADIUS + WGS84_A):
        raise ValueError("sun must be the Sun's geocentric position (km), far outside the Earth")
    return positions, sun, radius


def sunlit_fraction(positions, sun):
    """Fraction of the Sun's disc seen from each position (conical shadow of a spherical Earth).

    Parameters
    ----------
    positions : array_like, shape (3,) or (..., 3)
        Geocentric positions (km), outside the Earth, e.g. ECI/TEME.
    sun : array_like, shape (3,) or (..., 3)
        The Sun's geocentric position in the same frame (km), e.g. :func:`sun_position`;
        broadcasts with ``positions``.

    Returns
    -------
    ndarray, shape ``broadcast(positions, sun).shape[:-1]``
        1 outside the shadow, 0 in the umbra, in between in the penumbra (the share of
        the solar disc not hidden by the Earth, discs taken as flat; uniform brightness).

    Raises
    ------
    TypeError
        If a value is not a real number.
    ValueError
        On non-finite values, a last axis other than 3, shapes that do not broadcast, a
        position inside the Earth (radius at most :data:`~ssa_privacy.constants.WGS84_A`)
        or a ``sun`` closer than the Sun's radius plus the Earth's.

    Notes
    -----
    Montenbruck and Gill §3.4.2, eqs. (3.85)-(3.87): the apparent radii of the Sun,
    ``a = asin(R_sun / |s - r|)``, and of the Earth, ``b = asin(R_E / |r|)``, and their
    apparent separation ``c``; the Sun is hidden wholly when ``c <= b - a``, partly when
    ``|a - b| < c < a + b`` (overlap of two discs), and by at most ``(b / a)^2`` beyond
    the umbra's apex (``c < a - b``, a ring eclipse, only farther than 1.4e6 km).
    Vallado Algorithm 34 (SHADOW) draws the same umbra and penumbra cones.
    """
    positions, sun, radius = _positions_and_sun(positions, sun)
    to_sun = sun - positions
    distance = np.linalg.norm(to_sun, axis=-1)
    a = np.arcsin(SUN_RADIUS / distance)
    b = np.arcsin(WGS84_A / radius)
    cosine = -np.sum(positions * to_sun, axis=-1) / (radius * distance)
    c = np.arccos(np.clip(cosine, -1.0, 1.0))
    a, b, c = np.broadcast_arrays(a, b, c)
    fraction = np.ones(c.shape)
    umbra = c <= b - a
    ring = c <= a - b
    partial = ~umbra & ~ring & (c < a + b)
    fraction[umbra] = 0.0
    fraction[ring] = 1.0 - (b[ring] / a[ring]) ** 2
    ap, bp, cp = a[partial], b[partial], c[partial]
    x = (cp**2 + ap**2 - bp**2) / (2 * cp)
    y = np.sqrt(np.maximum(ap**2 - x**2, 0.0))
    hidden = (
        ap**2 * np.arccos(np.clip(x / ap, -1.0, 1.0))
        + bp**2 * np.arccos(np.clip((cp - x) / bp, -1.0, 1.0))
        - cp * y
    )
    fraction[partial] = np.clip(1.0 - hidden / (np.pi * ap**2), 0.0, 1.0)
    return fraction


def sunlit(positions, sun):
    """Whether each position sees some of the Sun: outside the Earth's umbra.

    Parameters
    ----------
    positions, sun : array_like
        As :func:`sunlit_fraction` (km, same frame).

    Returns
    -------
    ndarray of bool, shape ``broadcast(positions, sun).shape[:-1]``
        True unless the position is in the umbra (a position in the penumbra counts as
        lit: it reflects part of the sunlight).

    Raises
    ------
    TypeError, ValueError
        As :func:`sunlit_fraction`.

    Notes
    -----
    Conical model of Montenbruck and Gill §3.4.2 (see the module notes for its accuracy,
    boundary within tens of km); the umbra boundary is that of Vallado Algorithm 34.
    """
    return sunlit_fraction(positions, sun) > 0.0


def sun_elevation(latitude, longitude, altitude, sun_ecef):
    """Topocentric elevation of the Sun above a site's geodetic horizon.

    Parameters
    ----------
    latitude, longitude : float
        WGS-84 geodetic latitude in [-90, 90] and longitude of the site (deg).
    altitude : float
        Height of the site above the ellipsoid (km).
    sun_ecef : array_like, shape (3,) or (..., 3)
        The Sun's position in the Earth-fixed frame (km): e.g. :func:`sun_position`
        turned by :meth:`ssa_privacy.sensors.geodesy.EarthRotation.eci_to_ecef`.

    Returns
    -------
    float or ndarray, shape ``sun_ecef.shape[:-1]``
        Elevation of the site-to-Sun direction above the plane normal to the ellipsoid's
        vertical (rad, in [-pi/2, pi/2]); geometric, without refraction (which lifts the
        Sun by about 0.6 deg at the horizon and not at all at twilight depths).

    Raises
    ------
    TypeError
        If a value is not a real number.
    ValueError
        On non-finite values, a latitude outside [-90, 90], or a ``sun_ecef`` without a
        last axis of 3 or at the site.

    Notes
    -----
    Vallado §3.2 (site on the ellipsoid) and Algorithm 27 (elevation from the SEZ/ENU
    components); the Sun's parallax (at most 8.8 arcsec) is included by taking the
    direction from the site, not from the Earth's centre.
    """
    site = geodetic_to_ecef(latitude, longitude, altitude)
    if site.shape != (3,):
        raise ValueError("latitude, longitude and altitude must be single numbers (one site)")
    sun_ecef = vectors(sun_ecef, "sun_ecef", 3)
    lat, lon = np.radians(latitude), np.radians(longitude)
    up = np.array([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
    line = sun_ecef - site
    distance = np.linalg.norm(line, axis=-1)
    if np.any(distance == 0):
        raise ValueError("sun_ecef is at the site: the direction is undefined")
    return np.arcsin(np.clip(line @ up / distance, -1.0, 1.0))
