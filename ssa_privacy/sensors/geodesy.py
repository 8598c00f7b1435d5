"""Geodesy and Earth rotation: WGS-84 geodetic coordinates, the Earth-fixed frame, ground tracks.

Frames and conventions
----------------------
- ECI: the inertial frame of :class:`ssa_privacy.orbits.propagator.J2Propagator` (for real orbits,
  the TEME frame of SGP4: over a day the TEME/J2000 distinction is ignored).
- ECEF: Earth-fixed, obtained from ECI by ``r_ECEF = W^T R3(theta) r_ECI``
  (:class:`EarthRotation`): the rotation ``R3`` about z through the Greenwich sidereal
  time ``theta(t)``, linear in time from its value ``theta_0`` at epoch (for a TLE,
  SGP4's IAU-82 ``gsto``), and the polar motion ``W``. By default (and with
  ``EarthRotation.at_utc(jd, "none")``) ``theta(t) = theta_0 + omega_E t`` at the
  inertial rate with UT1 - UTC and polar motion neglected
  (:data:`~ssa_privacy.sensors.earth_orientation.NEGLECTED_EFFECTS`: against skyfield,
  90 m in range and 1e-2 deg in angle at UT1 - UTC = 0.2 s, growing with it up to 0.9 s).
  ``EarthRotation.at_utc(jd, "iers")`` applies UT1 - UTC and polar motion from the
  offline IERS table (:mod:`ssa_privacy.sensors.earth_orientation`) and the IAU-82
  sidereal rate: it agrees with skyfield to 6 cm, 5e-6 deg and 0.4 mm/s.
- Geodetic: WGS-84 latitude, longitude (deg) and height above the ellipsoid (km).

See :doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed.: §3.2 (site
position on the WGS-84 ellipsoid), Algorithm 12 (ECEF to latitude and longitude), Ch. 3
(sidereal time, Earth rotation), §3.7 (UT1, polar motion); Vallado et al., "Revisiting
Spacetrack Report #3", AIAA 2006-6753, Appendix C (TEME to PEF to ITRF); G. Petit,
B. Luzum (eds.), "IERS Conventions (2010)", IERS Technical Note 36, Ch. 5; National
Imagery and Mapping Agency, "WGS 84", TR8350.2.
"""

from dataclasses import dataclass

import numpy as np
from sgp4.propagation import gstime

from ssa_privacy._internal.validation import as_finite_array, open_interval, scalar
from ssa_privacy.constants import OMEGA_EARTH, WGS84_A, WGS84_F
from ssa_privacy.orbits._checks import times_for, vectors
from ssa_privacy.sensors.earth_orientation import (
    NEGLECTED_EFFECTS,
    POLAR_MOTION_NEGLECTED,
    _check_orientation,
    iers_parameters,
)

__all__ = [
    "EarthRotation",
    "GEODETIC_ITERATIONS",
    "GMST_RATE_IAU82",
    "ORIENTATIONS",
    "ecef_to_geodetic",
    "geodetic_to_ecef",
    "ground_track",
    "polar_motion_matrix",
]

#: Latitude fixed-point iterations of :func:`ecef_to_geodetic` (converged to < 1e-12 rad
#: for altitudes below 10^4 km).
GEODETIC_ITERATIONS = 6

#: Rate of the IAU-82 Greenwich mean sidereal time per second of UT1 (rad/s):
#: ``2 pi / 86400 * (1 + 8640184.812866 / (36525 * 86400))`` = 7.292115855306589e-5, the
#: derivative of the GMST polynomial of Aoki et al. (1982) (Vallado eq. 3-45, ``sgp4``'s
#: ``gstime``). Its T^2 term changes it by under 5e-15 rad/s this century (neglected).
#: Faster than the inertial :data:`~ssa_privacy.constants.OMEGA_EARTH` by the precession
#: of the equinox, 7.1e-12 rad/s: SGP4's TEME frame is of date.
GMST_RATE_IAU82 = 2 * np.pi / 86400.0 * (1.0 + 8640184.812866 / (36525.0 * 86400.0))
#: Earth orientation choices of :meth:`EarthRotation.at_utc`.
ORIENTATIONS = ("iers", "none")


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


def polar_motion_matrix(x_p, y_p):
    """Polar motion rotation ``W^T = R1(-y_p) R2(-x_p)`` from PEF to ITRF components.

    Parameters
    ----------
    x_p, y_p : float
        Pole coordinates (arcsec), the IERS values of
        :func:`ssa_privacy.sensors.earth_orientation.iers_parameters`.

    Returns
    -------
    ndarray, shape (3, 3)
        Orthonormal matrix with ``r_ITRF = W^T r_PEF`` (about
        ``[[1, 0, x_p], [0, 1, -y_p], [-x_p, y_p, 1]]`` with the angles in rad).

    Raises
    ------
    ValueError
        If ``x_p`` or ``y_p`` is not finite.
    TypeError
        If ``x_p`` or ``y_p`` is not a real number.

    Notes
    -----
    IERS Conventions (2010), eq. (5.3)-(5.4): ``[TIRS] = W [ITRS]`` with
    ``W = R3(-s') R2(x_p) R1(y_p)``, ``R_i`` frame rotations as in :func:`_rotation_z`;
    ``s'`` (below 0.05 mas this century, 1.5 mm on the ground) is neglected, and the pseudo-Earth-fixed
    frame of Vallado et al. (AIAA 2006-6753, Appendix C) plays the part of the TIRS.
    """
    x = np.radians(scalar(x_p, "x_p") / 3600.0)
    y = np.radians(scalar(y_p, "y_p") / 3600.0)
    cx, sx, cy, sy = np.cos(x), np.sin(x), np.cos(y), np.sin(y)
    # R1(-y) R2(-x), with R1(a) = [[1,0,0],[0,c,s],[0,-s,c]], R2(a) = [[c,0,-s],[0,1,0],[s,0,c]].
    return np.array(
        [
            [cx, 0.0, sx],
            [sx * sy, cy, -cx * sy],
            [-sx * cy, sy, cx * cy],
        ]
    )


@dataclass(frozen=True)
class EarthRotation:
    """Orientation of the Earth-fixed frame: ``r_ECEF = W^T R3(theta(t)) r_ECI``.

    The rotation angle is the Greenwich mean sidereal time of UT1,
    ``theta(t) = gmst0 + rate * (t + ut1_utc + ut1_utc_rate * t)`` (``t`` in seconds of
    UTC since the epoch), and ``W`` the polar motion (:func:`polar_motion_matrix`).
    With the defaults of the Earth orientation fields (zero) this is today's model
    ``theta(t) = gmst0 + rate * t``, computed bit for bit as before.

    Parameters
    ----------
    gmst0 : float
        Greenwich mean sidereal time at ``t = 0`` evaluated at the UTC of the epoch as if
        it were UT1 (rad); for a TLE,
        :attr:`ssa_privacy.orbits.tle.ElementSet.gmst_epoch`.
    rate : float, optional
        Rate of the rotation angle per second of UT1 (rad/s), default
        :data:`~ssa_privacy.constants.OMEGA_EARTH` (the inertial rate);
        :data:`GMST_RATE_IAU82` for the sidereal time of SGP4's TEME frame of date.
    ut1_utc : float, optional
        ``UT1 - UTC`` at ``t = 0`` (s), default 0.
    ut1_utc_rate : float, optional
        Rate of ``UT1 - UTC`` (s/s), default 0.
    polar_motion : sequence of 2 floats, optional
        Pole coordinates ``(x_p, y_p)`` (arcsec), default ``(0, 0)``.
    epoch_jd : float or None, optional
        Julian date (UTC) of ``t = 0``, if known (needed to place the Sun); default None.

    Raises
    ------
    ValueError
        If a number is not finite, ``rate`` is not positive, ``|ut1_utc| > 1`` s,
        ``|ut1_utc_rate| > 1e-6`` s/s, ``polar_motion`` does not hold two values within
        +-1 arcsec.
    TypeError
        If a value is not a real number.

    Notes
    -----
    Vallado Ch. 3 (sidereal time) and §3.7; Vallado et al., AIAA 2006-6753, Appendix C:
    ``r_PEF = R3(GMST82(UT1)) r_TEME``, ``r_ITRF = W^T r_PEF``. Velocities map by
    ``W^T R3(theta) (v - rate x r)``; the change of ``UT1 - UTC`` (a few ms per day, 4e-8
    of the rate) is left out of the velocity (below 0.1 mm/s at GEO). The polar motion is held
    at its value at ``t = 0`` (it drifts by under 5 mas, 2.4e-8 rad, a day).
    :meth:`at_utc` builds the model of a window from the IERS tables; :meth:`neglected`
    states what a model leaves out.
    """

    gmst0: float = 0.0
    rate: float = OMEGA_EARTH
    ut1_utc: float = 0.0
    ut1_utc_rate: float = 0.0
    polar_motion: tuple = (0.0, 0.0)
    epoch_jd: float | None = None

    def __post_init__(self):
        scalar(self.gmst0, "gmst0")
        open_interval(self.rate, "rate", 0.0, np.inf)
        ut1_utc, ut1_utc_rate, pole = _check_orientation(
            self.ut1_utc, self.ut1_utc_rate, self.polar_motion
        )
        object.__setattr__(self, "ut1_utc", ut1_utc)
        object.__setattr__(self, "ut1_utc_rate", ut1_utc_rate)
        object.__setattr__(self, "polar_motion", pole)
        if self.epoch_jd is not None:
            object.__setattr__(self, "epoch_jd", scalar(self.epoch_jd, "epoch_jd"))
        wobble = None if pole == (0.0, 0.0) else polar_motion_matrix(*pole)
        object.__setattr__(self, "_wobble", wobble)

    @classmethod
    def at_utc(cls, jd_utc, orientation="iers", span_days=1.0):
        """The Earth's rotation for a window starting at a UTC date.

        Parameters
        ----------
        jd_utc : float
            Julian date (UTC) of ``t = 0``.
        orientation : {"iers", "none"}, optional
            ``"iers"`` (default): GMST of UT1 at the IAU-82 rate :data:`GMST_RATE_IAU82`,
            with UT1 - UTC, its rate over the window and the polar motion from the IERS
            table (:func:`~ssa_privacy.sensors.earth_orientation.iers_parameters`).
            ``"none"``: the model without Earth orientation parameters,
            ``EarthRotation(gstime(jd_utc), epoch_jd=jd_utc)`` (inertial rate
            :data:`~ssa_privacy.constants.OMEGA_EARTH`).
        span_days : float, optional
            Length of the window (days), over which UT1 - UTC is taken linear; default 1.
            Used with ``"iers"`` only.

        Returns
        -------
        EarthRotation
            With ``epoch_jd = jd_utc``.

        Raises
        ------
        ValueError
            If ``orientation`` is not ``"iers"`` or ``"none"``, ``jd_utc`` is not finite,
            or (``"iers"``) the window lies outside the IERS table or contains a leap
            second.
        TypeError
            If ``jd_utc`` is not a real number or ``orientation`` is not a str.

        Notes
        -----
        ``gmst0`` is ``sgp4.propagation.gstime`` (the IAU-82 GMST polynomial, Vallado
        eq. 3-45) of the UTC epoch; with ``"iers"``, ``theta(0) = gmst0 + rate * ut1_utc``
        is the GMST of UT1. IERS Conventions (2010), Ch. 5; Vallado et al., AIAA
        2006-6753, Appendix C.
        """
        if not isinstance(orientation, str):
            raise TypeError(
                f"orientation must be one of {ORIENTATIONS}, got {type(orientation).__name__}"
            )
        if orientation not in ORIENTATIONS:
            raise ValueError(f"orientation must be one of {ORIENTATIONS}, got {orientation!r}")
        jd = scalar(jd_utc, "jd_utc")
        if orientation == "none":
            return cls(gstime(jd), epoch_jd=jd)
        parameters = iers_parameters(jd, span_days)
        return cls(
            gstime(jd),
            GMST_RATE_IAU82,
            ut1_utc=parameters.ut1_utc,
            ut1_utc_rate=parameters.ut1_utc_rate,
            polar_motion=parameters.polar_motion,
            epoch_jd=jd,
        )

    def neglected(self):
        """What this model leaves out of the Earth's orientation, for provenance.

        Returns
        -------
        str or None
            :data:`~ssa_privacy.sensors.earth_orientation.NEGLECTED_EFFECTS` without UT1 -
            UTC and polar motion,
            :data:`~ssa_privacy.sensors.earth_orientation.POLAR_MOTION_NEGLECTED` with
            UT1 - UTC but without polar motion, a note on UT1 - UTC with polar motion
            but without UT1 - UTC, None with both.
        """
        has_ut1 = self.ut1_utc != 0.0 or self.ut1_utc_rate != 0.0
        has_pole = self._wobble is not None
        if has_ut1 and has_pole:
            return None
        if has_ut1:
            return POLAR_MOTION_NEGLECTED
        if has_pole:
            return (
                "UT1-UTC neglected (polar motion applied): errors as in NEGLECTED_EFFECTS "
                "less the polar motion part"
            )
        return NEGLECTED_EFFECTS

    def angle(self, times):
        """Earth rotation angle ``gmst0 + rate * (t + ut1_utc + ut1_utc_rate * t)``.

        Parameters
        ----------
        times : float or array_like
            Seconds (UTC) since the epoch.

        Returns
        -------
        float or ndarray
            Angle (rad, not wrapped), same shape as ``times``.

        Raises
        ------
        ValueError
            If a time is not finite.

        Notes
        -----
        Vallado Ch. 3: sidereal time as a linear function of UT1.
        """
        times = as_finite_array(times, "times")
        if self.ut1_utc == 0.0 and self.ut1_utc_rate == 0.0:
            return self.gmst0 + self.rate * times
        return self.gmst0 + self.rate * (times + (self.ut1_utc + self.ut1_utc_rate * times))

    @property
    def wobble(self):
        """Polar motion matrix ``W^T`` (PEF to ITRF), shape (3, 3); identity without it."""
        return np.eye(3) if self._wobble is None else self._wobble.copy()

    def rotation(self, times):
        """Rotations ``W^T R3(theta(t))`` taking ECI position components to ECEF components.

        Parameters
        ----------
        times : float or array_like
            Seconds since the epoch.

        Returns
        -------
        ndarray, shape ``times.shape + (3, 3)``
            ``[[cos, sin, 0], [-sin, cos, 0], [0, 0, 1]]`` of the Earth rotation angle,
            multiplied on the left by the polar motion matrix :attr:`wobble` if any.

        Raises
        ------
        ValueError
            If a time is not finite.

        Notes
        -----
        Vallado Ch. 3: the Earth-fixed frame turned by the rotation angle about z; IERS
        Conventions (2010) eq. (5.3) for the polar motion.
        """
        rotation = _rotation_z(np.asarray(self.angle(times)))
        if self._wobble is None:
            return rotation
        return np.einsum("ij,...jk->...ik", self._wobble, rotation)

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
            ECEF position ``W^T R3(theta) r`` and velocity ``W^T R3(theta) (v - omega x
            r)``, ``omega = rate`` about z (``W`` only with polar motion).

        Raises
        ------
        ValueError
            On non-finite values or mismatched shapes.

        Notes
        -----
        Transport theorem for the rotating Earth-fixed frame; the polar motion is a
        constant rotation (IERS Conventions 2010, eq. 5.3).
        """
        states = vectors(states, "states", 6)
        angle = self.angle(times_for(times, states))
        c, s = np.cos(angle), np.sin(angle)
        x, y, z, vx, vy, vz = np.moveaxis(states, -1, 0)
        vx, vy = vx + self.rate * y, vy - self.rate * x
        ecef = np.stack(
            [c * x + s * y, c * y - s * x, z, c * vx + s * vy, c * vy - s * vx, vz], axis=-1
        )
        if self._wobble is None:
            return ecef
        ecef[..., :3] = ecef[..., :3] @ self._wobble.T
        ecef[..., 3:] = ecef[..., 3:] @ self._wobble.T
        return ecef

    def ecef_to_eci_position(self, positions, times):
        """ECI positions of Earth-fixed points, ``R3(-theta) W r_ecef``.

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

        Notes
        -----
        The inverse of the position map of :meth:`eci_to_ecef` (orthonormal rotations).
        """
        positions = vectors(positions, "positions", 3)
        angle = np.asarray(self.angle(times_for(times, positions)))
        rotation = _rotation_z(-angle)
        if self._wobble is not None:
            positions = positions @ self._wobble
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
