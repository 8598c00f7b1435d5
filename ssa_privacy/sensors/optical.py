"""Optical (angles-only) sensors: topocentric right ascension and declination from a telescope.

An :class:`OpticalStation` measures the direction of the line of sight from the site to
the object as ``(right ascension, declination)`` in rad, RA in [0, 2 pi), in the ECI
frame of the propagator (for real orbits SGP4's TEME: true equator, mean equinox of
date). The direction is geometric (the positions of site and object at the same
instant): no light time (an object at 7.5 km/s and 1,000 km range moves about 25 m, 5
arcsec of arc, while its light travels), no aberration, no refraction. A measurement
exists when the object is above the elevation mask (and in the sector and within the
range, if set), the site is dark (the Sun at or below ``sun_elevation_max``) and the
object is sunlit (:func:`ssa_privacy.sensors.illumination.sunlit`). The noise is Gaussian
with standard deviations ``noise_std`` on right ascension and declination (rad).

The site's ECI position comes from
:meth:`~ssa_privacy.sensors.geodesy.EarthRotation.ecef_to_eci_position` and the local
horizon (elevation, azimuth sector) from
:meth:`~ssa_privacy.sensors.geodesy.EarthRotation.eci_to_ecef`, so an Earth orientation
model with UT1 - UTC and polar motion moves the site with it. To place the Sun the
station needs the UTC Julian date of ``t = 0``, the ``epoch_jd`` of the EarthRotation.

The class has the interface of :class:`ssa_privacy.sensors.stations.GroundStation`
(``measure``, ``jacobian``, ``visible``, ``linearised_measurement``,
``noise_covariance``) and the same description of its rows (``kind``, ``rows``,
``names``, ``units``, ``wrapped``).

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed.: Algorithm 26
(TOPOCENTRIC, topocentric right ascension and declination), §4.4 (site visibility, dark
site and lit satellite), §3.2 (site position); O. Montenbruck and E. Gill, "Satellite
Orbits", Springer, 2000, §6.2.3 (optical angle measurements and their partials);
T. Schildknecht, "Optical surveys for space debris", Astron. Astrophys. Rev. 14 (2007)
41-111 (astrometric accuracy of debris telescopes, of the order of an arcsecond).
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.validation import scalar
from ssa_privacy.orbits._checks import vectors
from ssa_privacy.sensors.geodesy import _earth_rotation
from ssa_privacy.sensors.illumination import sun_elevation, sun_position, sunlit
from ssa_privacy.sensors.stations import (
    SiteSensor,
    _azimuth_elevation_range,
    _in_field,
    _linearise,
    _topocentric,
)

__all__ = [
    "ARCSEC",
    "DEFAULT_OPTICAL_NOISE_STD",
    "OPTICAL_MEASUREMENTS",
    "OPTICAL_UNITS",
    "OpticalStation",
]

#: One arcsecond in radians: pi / 648000 = 4.848e-6 rad.
ARCSEC = np.pi / 648000.0
#: Default sensor noise (1 sigma) of a telescope: 1 arcsec on right ascension and on
#: declination. An assumption of the order of the astrometric accuracy of debris and
#: survey telescopes (Schildknecht 2007: 0.5 to 2 arcsec), not a calibrated value.
DEFAULT_OPTICAL_NOISE_STD = (ARCSEC, ARCSEC)
#: Names of the two optical measurements, in order (units rad, rad).
OPTICAL_MEASUREMENTS = ("right_ascension", "declination")
#: Units of :data:`OPTICAL_MEASUREMENTS`.
OPTICAL_UNITS = ("rad", "rad")


@dataclass(frozen=True)
class OpticalStation(SiteSensor):
    """A telescope at a fixed geodetic position measuring right ascension and declination.

    Parameters
    ----------
    name : str
        Label: one line of visible text, not blank, without blanks at either end.
    latitude, longitude : float
        WGS-84 geodetic latitude in [-90, 90] and longitude in [-360, 360] (deg).
    altitude : float
        Height above the ellipsoid (km), in
        :data:`~ssa_privacy.sensors.stations.SITE_HEIGHT_RANGE_KM` ([-1, 10]).
    elevation_mask : float, optional
        Smallest elevation of a measurement (deg), in [0, 90), default 15.
    noise_std : sequence of 2 floats, optional
        Standard deviations of the sensor noise on right ascension and declination (rad),
        default :data:`DEFAULT_OPTICAL_NOISE_STD` (1 arcsec, :data:`ARCSEC`, each). The
        noise is on right ascension itself: an arc on the sky of
        ``noise_std[0] cos(declination)``.
    sun_elevation_max : float, optional
        The site is dark when the Sun's topocentric elevation is at or below this (deg,
        in [-90, 90]); default -12 (nautical twilight over).
    azimuth_sector : pair of floats, optional
        Field of regard in azimuth, as for
        :class:`~ssa_privacy.sensors.stations.GroundStation`: ``(from, to)`` in degrees in
        [0, 360], clockwise from north, may wrap through north; default None (all
        around).
    range_max : float, optional
        Largest range of a measurement (km, positive), default None (no limit).

    Attributes
    ----------
    kind : str
        ``"optical"``.
    rows : int
        2.
    names : tuple of str
        :data:`OPTICAL_MEASUREMENTS`, ``("right_ascension", "declination")``.
    units : tuple of str
        :data:`OPTICAL_UNITS`, ``("rad", "rad")``.
    wrapped : tuple of bool
        ``(True, False)``: the right ascension is an angle modulo 2 pi.

    Raises
    ------
    ValueError
        Naming the argument: a name, site, mask, sector or range limit as refused by
        :class:`~ssa_privacy.sensors.stations.GroundStation` (an altitude outside [-1, 10]
        km, say), a noise that is not two positive values, a ``sun_elevation_max`` outside
        [-90, 90], or a value that is not finite.
    TypeError
        If ``name`` is not a string or a number is not a real number.

    Notes
    -----
    Vallado Algorithm 26 (topocentric right ascension and declination) and §4.4 (an
    optical site sees a satellite that is lit while the site is dark); Montenbruck and
    Gill §6.2.3. A station designs no privacy: :meth:`linearised_measurement` gives the
    model that a mechanism privatizes.
    """

    name: str
    latitude: float
    longitude: float
    altitude: float = 0.0
    elevation_mask: float = 15.0
    noise_std: tuple = DEFAULT_OPTICAL_NOISE_STD
    sun_elevation_max: float = -12.0
    azimuth_sector: tuple | None = None
    range_max: float | None = None

    kind = "optical"
    rows = 2
    names = OPTICAL_MEASUREMENTS
    units = OPTICAL_UNITS
    wrapped = (True, False)

    def __post_init__(self):
        super().__post_init__()
        if not -90 <= scalar(self.sun_elevation_max, "sun_elevation_max") <= 90:
            raise ValueError(
                f"sun_elevation_max must lie in [-90, 90] degrees, got {self.sun_elevation_max!r}"
            )
        object.__setattr__(self, "sun_elevation_max", float(self.sun_elevation_max))

    def _line_of_sight(self, states, times, earth):
        """ECI line of sight site -> object (km), ``states.shape[:-1] + (3,)``."""
        states = vectors(states, "states", 6)
        earth = _earth_rotation(earth)
        site = np.broadcast_to(self._geometry[0], states.shape[:-1] + (3,))
        rho = states[..., :3] - earth.ecef_to_eci_position(site, times)
        if np.any(np.linalg.norm(rho, axis=-1) == 0):
            raise ValueError("states include a satellite at the station: the line of sight is zero")
        return rho

    def measure(self, states, times, earth):
        """Noise-free measurements ``(right ascension, declination)`` of the line of sight.

        Parameters
        ----------
        states : array_like, shape (6,) or (..., 6)
            ECI satellite states (km, km/s).
        times : float or array_like, shape ``states.shape[:-1]`` (or broadcasting to it)
            Their times (s since epoch).
        earth : EarthRotation
            The Earth's orientation.

        Returns
        -------
        ndarray, shape (2,) or (..., 2)
            Topocentric right ascension in [0, 2 pi) and declination in [-pi/2, pi/2]
            (rad), ECI (TEME) axes.

        Raises
        ------
        ValueError
            On non-finite values, mismatched shapes or a satellite at the station.
        TypeError
            If ``earth`` is not an EarthRotation.

        Notes
        -----
        Vallado Algorithm 26 (TOPOCENTRIC): ``rho = r - r_site`` in ECI,
        ``alpha = atan2(rho_y, rho_x)``, ``delta = atan2(rho_z, |rho_xy|)``.
        """
        rho = self._line_of_sight(states, times, earth)
        x, y, z = np.moveaxis(rho, -1, 0)
        return np.stack(
            [np.mod(np.arctan2(y, x), 2 * np.pi), np.arctan2(z, np.hypot(x, y))], axis=-1
        )

    def jacobian(self, states, times, earth):
        """Jacobian of :meth:`measure` with respect to the ECI state.

        Parameters
        ----------
        states : array_like, shape (6,) or (..., 6)
            ECI satellite states (km, km/s), not at a celestial pole as seen from the
            station (right ascension is singular there).
        times : float or array_like
            Their times (s since epoch), as :meth:`measure`.
        earth : EarthRotation
            The Earth's orientation.

        Returns
        -------
        ndarray, shape (2, 6) or (..., 2, 6)
            Rows right ascension, declination; columns the ECI position (rad/km) and
            velocity (rad/(km/s), zero: the angles do not depend on the velocity).

        Raises
        ------
        ValueError
            On non-finite values, mismatched shapes, a satellite at the station or a
            line of sight within 1e-6 rad of a celestial pole (declination +-90 deg).
        TypeError
            If ``earth`` is not an EarthRotation.

        Notes
        -----
        Montenbruck and Gill §6.2.3 (partials of the angles), on Vallado Algorithm 26:
        ``d alpha / d r = (-rho_y, rho_x, 0) / rho_xy^2``,
        ``d delta / d r = (-rho_x rho_z, -rho_y rho_z, rho_xy^2) / (rho^2 rho_xy)``; the
        site's position does not depend on the state.
        """
        rho = self._line_of_sight(states, times, earth)
        x, y, z = np.moveaxis(rho, -1, 0)
        horizontal2 = x**2 + y**2
        if np.any(horizontal2 <= 1e-12 * np.sum(rho**2, axis=-1)):
            raise ValueError(
                "states include a satellite at a celestial pole (declination +-90 deg) as "
                "seen from the station: right ascension is singular"
            )
        horizontal = np.sqrt(horizontal2)
        distance2 = horizontal2 + z**2
        zero = np.zeros_like(x)
        d_ra = np.stack([-y, x, zero], -1) / horizontal2[..., None]
        d_dec = np.stack([-x * z, -y * z, horizontal2], -1) / (distance2 * horizontal)[..., None]
        by_position = np.stack([d_ra, d_dec], axis=-2)
        return np.concatenate([by_position, np.zeros(by_position.shape)], axis=-1)

    def visible(self, states, times, earth):
        """Whether the telescope sees the object: in its field, the site dark, the object lit.

        Parameters
        ----------
        states : array_like, shape (6,) or (..., 6)
            ECI satellite states (km, km/s).
        times : float or array_like
            Their times (s since epoch), as :meth:`measure`.
        earth : EarthRotation
            The Earth's orientation, with ``epoch_jd`` (the UTC Julian date of
            ``t = 0``) to place the Sun.

        Returns
        -------
        bool or ndarray of bool, shape ``states.shape[:-1]``
            True where the elevation is at least :attr:`elevation_mask` (with the sector
            and range limits, if set), the Sun's topocentric elevation is at most
            :attr:`sun_elevation_max` and the object is outside the Earth's umbra.

        Raises
        ------
        ValueError
            As :meth:`measure`, or if ``earth.epoch_jd`` is None.
        TypeError
            If ``earth`` is not an EarthRotation.

        Notes
        -----
        Vallado §4.4 (site visibility: a lit satellite above the horizon of a dark
        site); the Sun from :func:`~ssa_privacy.sensors.illumination.sun_position`
        (cached per time grid), the shadow from
        :func:`~ssa_privacy.sensors.illumination.sunlit` (conical, umbra), the site's
        darkness from :func:`~ssa_privacy.sensors.illumination.sun_elevation`.
        """
        states = vectors(states, "states", 6)
        rho, _ = _topocentric(self, states, times, earth)
        epoch_jd = getattr(earth, "epoch_jd", None)
        if epoch_jd is None:
            raise ValueError(
                "earth.epoch_jd is None: an optical station needs the UTC Julian date of "
                "t = 0 to place the Sun (build the EarthRotation with epoch_jd, e.g. "
                "EarthRotation.at_utc(jd))"
            )
        seen = _in_field(self, *_azimuth_elevation_range(rho))
        if not np.any(seen):
            return seen
        times = np.asarray(times, dtype=float)
        sun = sun_position(epoch_jd, times)
        sun_state = np.concatenate([sun, np.zeros(sun.shape)], axis=-1)
        sun_ecef = earth.eci_to_ecef(sun_state, times)[..., :3]
        solar = sun_elevation(self.latitude, self.longitude, self.altitude, sun_ecef)
        dark = solar <= np.radians(self.sun_elevation_max)
        return seen & dark & sunlit(states[..., :3], sun)

    def linearised_measurement(self, state, time, earth):
        """The measurement model linearised about one state, with the sensor noise.

        Parameters
        ----------
        state : array_like, shape (6,)
            Linearisation point, ECI (km, km/s); not at a celestial pole as seen from
            the station.
        time : float
            Time (s since epoch).
        earth : EarthRotation
            The Earth's orientation.

        Returns
        -------
        LinearisedMeasurement
            ``H`` (2, 6) from :meth:`jacobian`, ``R`` (2, 2) :attr:`noise_covariance`,
            ``value`` = :meth:`measure` at ``state``, the point ``state`` and ``time``,
            and the row names :data:`OPTICAL_MEASUREMENTS`.

        Raises
        ------
        ValueError
            On a state that is not a finite 6-vector, a non-finite time, or a state at a
            celestial pole.
        TypeError
            If ``earth`` is not an EarthRotation.

        Notes
        -----
        Vallado Algorithm 26 and its Jacobian (Montenbruck and Gill §6.2.3).
        """
        return _linearise(self, state, time, earth)
