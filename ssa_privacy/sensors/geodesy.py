"""Geodesy and Earth rotation: WGS-84 geodetic coordinates, the Earth-fixed frame, ground tracks.

Frames and conventions
----------------------
- ECI: the inertial frame of :class:`ssa_privacy.orbits.propagator.J2Propagator` (for real orbits,
  the TEME frame of SGP4: over a day the TEME/J2000 distinction is ignored).
- ECEF: Earth-fixed, obtained from ECI by the rotation ``R3(theta)`` about z through the
  Earth rotation angle ``theta(t) = theta_0 + omega_E t`` (:class:`EarthRotation`): a
  rotation at Earth's inertial rate from the Greenwich mean sidereal time ``theta_0`` at
  epoch (for a TLE, SGP4's IAU-82 ``gsto``). Precession over the span and polar motion
  are neglected (metre level). UT1 - UTC is neglected too, which turns the Earth by
  ``omega_E (UT1 - UTC)`` too little or too much: checked against skyfield (which applies
  it) on 5 objects seen from 8 sites with UT1 - UTC = +0.05 s, the predicted range was off
  by 25-30 m and the angles by up to 3.1e-3 deg. UT1 - UTC may reach 0.9 s, where these
  errors scale to about 0.5 km and 0.06 deg.
- Geodetic: WGS-84 latitude, longitude (deg) and height above the ellipsoid (km).

See :doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed.: §3.2 (site
position on the WGS-84 ellipsoid), Algorithm 12 (ECEF to latitude and longitude), Ch. 3
(sidereal time, Earth rotation); National Imagery and Mapping Agency, "WGS 84", TR8350.2.
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.validation import as_finite_array, open_interval, scalar
from ssa_privacy.constants import OMEGA_EARTH, WGS84_A, WGS84_F
from ssa_privacy.orbits._checks import times_for, vectors

__all__ = [
    "EarthRotation",
    "GEODETIC_ITERATIONS",
    "ecef_to_geodetic",
    "geodetic_to_ecef",
    "ground_track",
]

#: Latitude fixed-point iterations of :func:`ecef_to_geodetic` (converged to < 1e-12 rad
#: for altitudes below 10^4 km).
GEODETIC_ITERATIONS = 6


def geodetic_to_ecef(latitude, longitude, altitude):
    """ECEF position of WGS-84 geodetic coordinates.

    Parameters
    ----------
    latitude, longitude : float or array_like
        Geodetic latitude in [-90, 90] and longitude (deg, east positive).
    altitude : float or array_like
        Height above the ellipsoid (km). All three broadcast together.

    Returns
    -------
    ndarray, shape (..., 3)
        ECEF position (km).

    Raises
    ------
    ValueError
        If a value is not finite, a latitude is outside [-90, 90], or the shapes do not
        broadcast together.
    TypeError
        If a value is not a real number (a bool, a string, None).

    Notes
    -----
    Vallado §3.2 (site position on the ellipsoid); WGS-84 constants.
    """
    degrees = as_finite_array(latitude, "latitude")
    if np.any(np.abs(degrees) > 90):
        raise ValueError("latitude must lie in [-90, 90] degrees")
    lat = np.radians(degrees)
    lon = np.radians(as_finite_array(longitude, "longitude"))
    alt = as_finite_array(altitude, "altitude")
    try:
        np.broadcast_shapes(lat.shape, lon.shape, alt.shape)
    except ValueError:
        raise ValueError(
            f"latitude, longitude and altitude must broadcast together, got shapes "
            f"{lat.shape}, {lon.shape}, {alt.shape}"
        ) from None
    e2 = WGS84_F * (2 - WGS84_F)
    prime = WGS84_A / np.sqrt(1 - e2 * np.sin(lat) ** 2)
    return np.stack(
        np.broadcast_arrays(
            (prime + alt) * np.cos(lat) * np.cos(lon),
            (prime + alt) * np.cos(lat) * np.sin(lon),
            (prime * (1 - e2) + alt) * np.sin(lat),
        ),
        axis=-1,
    )


def ecef_to_geodetic(position):
    """WGS-84 geodetic latitude, longitude (deg) and altitude (km) of ECEF positions.

    Parameters
    ----------
    position : array_like, shape (3,) or (..., 3)
        ECEF position (km), away from the Earth's centre.

    Returns
    -------
    latitude, longitude, altitude : ndarray, shape (...)
        Degrees (longitude in (-180, 180]) and km.

    Raises
    ------
    ValueError
        If a position is not finite or lies on the polar axis within 1 m (longitude
        undefined).

    Notes
    -----
    Fixed-point iteration on the latitude, Vallado Algorithm 12 (ECEF to LATLON).
    """
    position = vectors(position, "position", 3)
    x, y, z = np.moveaxis(position, -1, 0)
    equatorial = np.hypot(x, y)
    if np.any(equatorial < 1e-3):
        raise ValueError("position lies on the polar axis: longitude is undefined")
    e2 = WGS84_F * (2 - WGS84_F)
    lat = np.arctan2(z, equatorial)
    for _ in range(GEODETIC_ITERATIONS):
        prime = WGS84_A / np.sqrt(1 - e2 * np.sin(lat) ** 2)
        lat = np.arctan2(z + prime * e2 * np.sin(lat), equatorial)
    prime = WGS84_A / np.sqrt(1 - e2 * np.sin(lat) ** 2)
    altitude = equatorial / np.cos(lat) - prime
    return np.degrees(lat), np.degrees(np.arctan2(y, x)), altitude


def _rotation_z(angle):
    """Frame rotations ``R3(angle)``, shape (..., 3, 3): components in a frame turned by +angle."""
    c, s = np.cos(angle), np.sin(angle)
    zero, one = np.zeros_like(c), np.ones_like(c)
    return np.stack(
        [np.stack([c, s, zero], -1), np.stack([-s, c, zero], -1), np.stack([zero, zero, one], -1)],
        -2,
    )


@dataclass(frozen=True)
class EarthRotation:
    """Rotation of the Earth-fixed frame: ``theta(t) = gmst0 + rate * t``.

    Parameters
    ----------
    gmst0 : float
        Greenwich mean sidereal time at ``t = 0`` (rad); for a TLE,
        :attr:`ssa_privacy.orbits.tle.ElementSet.gmst_epoch`.
    rate : float, optional
        Rotation rate (rad/s), default :data:`~ssa_privacy.constants.OMEGA_EARTH`.

    Raises
    ------
    ValueError
        If ``gmst0`` or ``rate`` is not finite, or ``rate`` is not positive.

    Notes
    -----
    Vallado Ch. 3 (sidereal time): a rotation at Earth's inertial rate from the GMST at
    epoch, consistent with treating the frame of epoch as inertial. The IAU-82 GMST
    polynomial (``sgp4``'s ``gstime``) also contains the precession of the equinox: the
    two differ by 6e-7 rad after a day (4 m on the ground).
    """

    gmst0: float = 0.0
    rate: float = OMEGA_EARTH

    def __post_init__(self):
        scalar(self.gmst0, "gmst0")
        open_interval(self.rate, "rate", 0.0, np.inf)

    def angle(self, times):
        """Earth rotation angle ``gmst0 + rate * t``.

        Parameters
        ----------
        times : float or array_like
            Seconds since the epoch.

        Returns
        -------
        float or ndarray
            Angle (rad, not wrapped), same shape as ``times``.

        Raises
        ------
        ValueError
            If a time is not finite.
        """
        return self.gmst0 + self.rate * as_finite_array(times, "times")

    def rotation(self, times):
        """Rotations ``R3(theta(t))`` taking ECI position components to ECEF components.

        Parameters
        ----------
        times : float or array_like
            Seconds since the epoch.

        Returns
        -------
        ndarray, shape ``times.shape + (3, 3)``
            ``[[cos, sin, 0], [-sin, cos, 0], [0, 0, 1]]`` of the Earth rotation angle.

        Raises
        ------
        ValueError
            If a time is not finite.

        Notes
        -----
        Vallado Ch. 3: the Earth-fixed frame turned by the rotation angle about z.
        """
        return _rotation_z(np.asarray(self.angle(times)))

    def eci_to_ecef(self, states, times):
        """Earth-fixed states of ECI states.

        Parameters
        ----------
        states : array_like, shape (6,) or (m, 6)
            ECI states (km, km/s).
        times : float or array_like, shape (m,)
            Their times (s since epoch).

        Returns
        -------
        ndarray, shape of ``states``
            ECEF position ``R3(theta) r`` and velocity ``R3(theta) (v - omega x r)``.

        Raises
        ------
        ValueError
            On non-finite values or mismatched shapes.

        Notes
        -----
        Transport theorem for the rotating Earth-fixed frame.
        """
        states = vectors(states, "states", 6)
        angle = self.angle(times_for(times, states))
        c, s = np.cos(angle), np.sin(angle)
        x, y, z, vx, vy, vz = np.moveaxis(states, -1, 0)
        vx, vy = vx + self.rate * y, vy - self.rate * x
        return np.stack(
            [c * x + s * y, c * y - s * x, z, c * vx + s * vy, c * vy - s * vx, vz], axis=-1
        )

    def ecef_to_eci_position(self, positions, times):
        """ECI positions of Earth-fixed points, ``R3(-theta) r_ecef``.

        Parameters
        ----------
        positions : array_like, shape (3,) or (m, 3)
            ECEF positions (km).
        times : float or array_like, shape (m,)
            Their times (s since epoch).

        Returns
        -------
        ndarray, shape of ``positions``
            ECI positions (km).

        Raises
        ------
        ValueError
            On non-finite values or mismatched shapes.
        """
        positions = vectors(positions, "positions", 3)
        angle = np.asarray(self.angle(times_for(times, positions)))
        rotation = _rotation_z(-angle)
        return np.einsum("...ij,...j->...i", rotation, positions)


def _earth_rotation(earth, name="earth"):
    """Return ``earth`` after checking it is an :class:`EarthRotation`.

    Raises
    ------
    TypeError
        Naming ``name``, for any other type.
    """
    if not isinstance(earth, EarthRotation):
        raise TypeError(f"{name} must be an EarthRotation, got {type(earth).__name__}")
    return earth


def ground_track(states, times, earth):
    """Sub-satellite geodetic latitude and longitude (deg) of ECI states.

    Parameters
    ----------
    states : array_like, shape (m, 6)
        ECI states (km, km/s).
    times : array_like, shape (m,)
        Their times (s since epoch).
    earth : EarthRotation
        The Earth's orientation.

    Returns
    -------
    latitude, longitude : ndarray, shape (m,)
        Degrees, longitude in (-180, 180].

    Raises
    ------
    TypeError
        If ``earth`` is not an EarthRotation.
    ValueError
        As :meth:`EarthRotation.eci_to_ecef` and :func:`ecef_to_geodetic`.
    """
    earth = _earth_rotation(earth)
    latitude, longitude, _ = ecef_to_geodetic(earth.eci_to_ecef(states, times)[..., :3])
    return latitude, longitude
