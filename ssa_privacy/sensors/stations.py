"""Ground stations: radar measurements, visibility, Jacobians and linearised measurement models.

A :class:`GroundStation` measures ``(azimuth, elevation, range, range rate)`` in
``(rad, rad, km, km/s)``; azimuth is clockwise from north in [0, 2 pi). The range rate
is that of the line of sight in the rotating frame (the station is fixed on the Earth).
A measurement exists when the elevation is at least the station's mask and, when the
station has them, the azimuth lies in its field of regard (``azimuth_sector``) and the
range is within its reach (``range_max``); each station adds Gaussian sensor noise of
standard deviations ``noise_std`` (same units). Positions are taken to the topocentric
ENU (east, north, up) axes at the station's WGS-84 geodetic position (frames:
:mod:`ssa_privacy.sensors.geodesy`).

A station knows its measurement, not privacy (a sensor comes before the privacy stage of
the pipeline and imports none of it): :meth:`GroundStation.linearised_measurement`
returns the linearised model ``h(X) ~ h(x) + H (X - x)`` with the sensor noise covariance
``R`` (:class:`LinearisedMeasurement`), on which the caller designs a privacy mechanism.
See :doc:`/theory/orbits-and-sensors`.

Every sensor class (this radar, and
:class:`ssa_privacy.sensors.optical.OpticalStation`) carries the same description of its
measurement rows, read by the studies: ``kind`` (``"radar"``, ``"optical"``), ``rows``
(their number), ``names``, ``units`` and ``wrapped`` (which rows are angles taken modulo
2 pi, whose residuals must be wrapped).

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed.: §3.2 (site
position on the WGS-84 ellipsoid), Algorithm 27 (RAZEL: topocentric azimuth, elevation,
range and range rate).
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.validation import as_finite_array, scalar
from ssa_privacy.orbits._checks import vectors
from ssa_privacy.sensors._site_checks import (
    _checked_range_max,
    _checked_sector,
    _sector_width,
    sensor_name_problem,
)
from ssa_privacy.sensors.geodesy import _earth_rotation, geodetic_to_ecef

__all__ = [
    "DEFAULT_NOISE_STD",
    "GroundStation",
    "LinearisedMeasurement",
    "MEASUREMENTS",
    "SITE_HEIGHT_RANGE_KM",
    "SITE_LONGITUDE_RANGE",
    "SiteSensor",
    "UNITS",
    "radar_measurements",
    "sensor_name_problem",
]

#: Names of the four measurements, in order (units rad, rad, km, km/s).
MEASUREMENTS = ("azimuth", "elevation", "range", "range_rate")
#: Units of the four measurements of :data:`MEASUREMENTS`.
UNITS = ("rad", "rad", "km", "km/s")
#: Default sensor noise (1 sigma) of a tracking radar: 0.01 deg in both angles, 20 m in
#: range, 10 cm/s in range rate.
DEFAULT_NOISE_STD = (np.radians(0.01), np.radians(0.01), 0.020, 1.0e-4)
#: Heights of a ground site above the WGS-84 ellipsoid (km): the lowest land is 0.43 km
#: below sea level (the Dead Sea shore) and the highest observatories stand at about
#: 5.6 km, so -1 to 10 km holds every site; a height outside it is most likely metres.
SITE_HEIGHT_RANGE_KM = (-1.0, 10.0)
#: Longitudes of a site (deg, east positive): one turn either way.
SITE_LONGITUDE_RANGE = (-360.0, 360.0)


@dataclass(frozen=True)
class LinearisedMeasurement:
    """A sensor's measurement linearised about a state: ``h(X) ~ value + H (X - state)``.

    The measurement of an ECI state ``X`` with sensor noise is
    ``Z = h(X) + W``, ``W ~ N(0, R)``; to first order about ``state``,
    ``Z ~ value + H (X - state) + W``. A privacy mechanism designed on ``H`` and a prior
    covariance of ``X`` privatizes it. The ``m`` rows are those of the sensor: four for a
    radar (:class:`GroundStation`), two for a telescope
    (:class:`ssa_privacy.sensors.optical.OpticalStation`).

    Parameters
    ----------
    H : ndarray, shape (m, 6)
        Jacobian ``dh/dX`` at ``state``; columns the ECI position (per km) and velocity
        (per km/s). For a radar the rows are azimuth, elevation (rad), range (km), range
        rate (km/s): units rad/km and rad/(km/s) in the first two rows, km/km and
        km/(km/s) in the third, (km/s)/km and (km/s)/(km/s) in the fourth. For a
        telescope, right ascension and declination (rad/km, zero on the velocity).
    R : ndarray, shape (m, m)
        Sensor noise covariance ``diag(noise_std^2)`` (measurement units squared).
    value : ndarray, shape (m,)
        Noise-free measurement ``h(state)``; angles that wrap (azimuth, right ascension)
        in [0, 2 pi).
    state : ndarray, shape (6,)
        Linearisation point, ECI (km, km/s).
    time : float
        Time of the measurement (s since epoch).
    names : tuple of str, optional
        Names of the ``m`` rows, default :data:`MEASUREMENTS` (a radar's).

    Notes
    -----
    Vallado Algorithm 27 (RAZEL), differentiated (:meth:`GroundStation.jacobian`), or the
    topocentric right ascension and declination (Vallado Algorithm 26, TOPOCENTRIC) and
    their derivatives; see :doc:`/theory/orbits-and-sensors`.
    """

    H: np.ndarray
    R: np.ndarray
    value: np.ndarray
    state: np.ndarray
    time: float
    names: tuple = MEASUREMENTS


def _site_axes(latitude, longitude, altitude):
    """ECEF position (km) of a geodetic site and the rotation ECEF -> ENU (rows E, N, U).

    Vallado §3.2 (site on the WGS-84 ellipsoid) and the topocentric axes of Algorithm 27.
    """
    site = geodetic_to_ecef(latitude, longitude, altitude)
    lat, lon = np.radians(latitude), np.radians(longitude)
    enu = np.array(
        [
            [-np.sin(lon), np.cos(lon), 0.0],
            [-np.sin(lat) * np.cos(lon), -np.sin(lat) * np.sin(lon), np.cos(lat)],
            [np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)],
        ]
    )
    return site, enu


def _azimuth_elevation_range(rho):
    """Azimuth in [0, 2 pi), elevation (rad) and range (km) of ENU lines of sight (..., 3)."""
    east, north, up = np.moveaxis(rho, -1, 0)
    return (
        np.mod(np.arctan2(east, north), 2 * np.pi),
        np.arctan2(up, np.hypot(east, north)),
        np.linalg.norm(rho, axis=-1),
    )


def _check_site(sensor):
    """Validate a sensor's site fields and store its geometry (for ``__post_init__``).

    The sensor is a frozen dataclass with the fields ``name``, ``latitude``,
    ``longitude``, ``altitude``, ``elevation_mask``, ``noise_std``, ``azimuth_sector`` and
    ``range_max`` and the class attribute ``rows``; ``noise_std``, ``azimuth_sector`` and
    ``range_max`` are stored normalised, and ``_geometry`` = (site ECEF, ECEF -> ENU).

    Raises
    ------
    TypeError
        If ``name`` is not a string or a number is not a real number.
    ValueError
        Naming the field, on a name the outputs cannot hold (:func:`sensor_name_problem`) or a
        value out of range (latitude [-90, 90] and longitude [-360, 360] deg, altitude
        :data:`SITE_HEIGHT_RANGE_KM`) or not finite.
    """
    if not isinstance(sensor.name, str):
        raise TypeError(f"name must be a string, got {type(sensor.name).__name__}")
    problem = sensor_name_problem(sensor.name)
    if problem is not None:
        raise ValueError(f"name {problem}")
    scalar(sensor.latitude, "latitude")
    low, high = SITE_LONGITUDE_RANGE
    scalar(sensor.longitude, "longitude (deg)", low=low, high=high)
    low, high = SITE_HEIGHT_RANGE_KM
    if not low <= scalar(sensor.altitude, "altitude") <= high:
        raise ValueError(
            f"altitude must lie in [{low:g}, {high:g}] km (a ground site's height above the "
            f"WGS-84 ellipsoid), got {sensor.altitude!r} (metres given as km?)"
        )
    site, enu = _site_axes(sensor.latitude, sensor.longitude, sensor.altitude)
    if not 0 <= scalar(sensor.elevation_mask, "elevation_mask") < 90:
        raise ValueError(
            f"elevation_mask must lie in [0, 90) degrees, got {sensor.elevation_mask!r}"
        )
    std = as_finite_array(sensor.noise_std, "noise_std", ndim=1)
    if std.shape != (sensor.rows,) or np.any(std <= 0):
        raise ValueError(
            f"noise_std must hold {sensor.rows} positive values, got {sensor.noise_std!r}"
        )
    object.__setattr__(sensor, "noise_std", tuple(float(s) for s in std))
    object.__setattr__(sensor, "azimuth_sector", _checked_sector(sensor.azimuth_sector))
    object.__setattr__(sensor, "range_max", _checked_range_max(sensor.range_max))
    object.__setattr__(sensor, "_geometry", (site, enu))


def _topocentric(sensor, states, times, earth):
    """Line of sight and its rate in the sensor's ENU axes (km, km/s), each ``(..., 3)``.

    Raises
    ------
    TypeError
        If ``earth`` is not an EarthRotation.
    ValueError
        As :meth:`EarthRotation.eci_to_ecef`, or on a satellite at the station.
    """
    ecef = _earth_rotation(earth).eci_to_ecef(states, times)
    site, rotation = sensor._geometry
    rho = (ecef[..., :3] - site) @ rotation.T
    if np.any(np.linalg.norm(rho, axis=-1) == 0):
        raise ValueError("states include a satellite at the station: the line of sight is zero")
    return rho, ecef[..., 3:] @ rotation.T


def _radar_values(rho, rho_dot):
    """Azimuth in [0, 2 pi), elevation (rad), range (km) and range rate (km/s), (..., 4),
    of ENU lines of sight and their rates (..., 3) (Vallado Algorithm 27)."""
    east, north, up = np.moveaxis(rho, -1, 0)
    distance = np.linalg.norm(rho, axis=-1)
    return np.stack(
        [
            np.mod(np.arctan2(east, north), 2 * np.pi),
            np.arctan2(up, np.hypot(east, north)),
            distance,
            np.sum(rho * rho_dot, axis=-1) / distance,
        ],
        axis=-1,
    )


def _radar_partials(rho, rho_dot):
    """Derivatives (..., 4, 3) of :func:`_radar_values` by the ENU line of sight and by its
    rate.

    Raises
    ------
    ValueError
        On a line of sight at the zenith (azimuth is singular there).
    """
    east, north, up = np.moveaxis(rho, -1, 0)
    horizontal2 = east**2 + north**2
    if np.any(horizontal2 <= 1e-12 * np.sum(rho**2, axis=-1)):
        raise ValueError("states include a satellite at the zenith: azimuth is singular")
    distance = np.linalg.norm(rho, axis=-1)
    horizontal = np.sqrt(horizontal2)
    zero = np.zeros_like(east)
    d_az = np.stack([north, -east, zero], -1) / horizontal2[..., None]
    d_el = (
        np.stack([-east * up, -north * up, horizontal2], -1) / (distance**2 * horizontal)[..., None]
    )
    unit = rho / distance[..., None]
    range_rate = np.sum(unit * rho_dot, axis=-1)
    d_rr = (rho_dot - range_rate[..., None] * unit) / distance[..., None]
    by_rho = np.stack([d_az, d_el, unit, d_rr], axis=-2)  # (..., 4, 3)
    by_rho_dot = np.zeros(by_rho.shape)
    by_rho_dot[..., 3, :] = unit
    return by_rho, by_rho_dot


def _state_partials(by_rho, by_rho_dot, to_enu, rate):
    """Derivatives (..., m, 6) by the ECI state of measurements whose derivatives by the
    ENU line of sight and its rate are ``by_rho``, ``by_rho_dot`` (..., m, 3), through
    ``rho_ENU = to_enu r - M r_site`` and ``rho_dot_ENU = to_enu (v - omega x r)``
    (``to_enu`` (..., 3, 3) = ``M W^T R3(theta)``, ``omega`` = ``rate`` about z)."""
    omega_cross = np.array([[0.0, -rate, 0.0], [rate, 0.0, 0.0], [0.0, 0.0, 0.0]])
    d_velocity = by_rho_dot @ to_enu  # matrix products: a three-operand einsum loops
    d_position = by_rho @ to_enu - d_velocity @ omega_cross
    return np.concatenate([d_position, d_velocity], axis=-1)


def _in_field(sensor, azimuth, elevation, distance):
    """Elevation at or above the mask, azimuth in the sector, range within reach (bool).

    Azimuth and elevation in rad, distance in km; the sector test is inclusive at both
    ends and wraps through north (Vallado §4.4, site visibility).
    """
    seen = elevation >= np.radians(sensor.elevation_mask)
    if sensor.azimuth_sector is not None:
        start, stop = sensor.azimuth_sector
        width = np.radians(_sector_width(start, stop))
        seen = seen & (np.mod(azimuth - np.radians(start), 2 * np.pi) <= width)
    if sensor.range_max is not None:
        seen = seen & (distance <= sensor.range_max)
    return seen


def _linearise(sensor, state, time, earth):
    """:class:`LinearisedMeasurement` of a sensor about one state (checks state and time).

    Raises
    ------
    ValueError
        On a state that is not a finite 6-vector or a non-finite time, or as the
        sensor's ``jacobian``.
    """
    state = as_finite_array(state, "state", ndim=1)
    if state.shape != (6,):
        raise ValueError(f"state must have 6 entries, got shape {state.shape}")
    time = scalar(time, "time")
    return LinearisedMeasurement(
        H=sensor.jacobian(state, time, earth),
        R=sensor.noise_covariance,
        value=sensor.measure(state, time, earth),
        state=state.copy(),
        time=time,
        names=sensor.names,
    )


class SiteSensor:
    """A sensor at a fixed geodetic site: what radars and telescopes share.

    The base of :class:`GroundStation` and
    :class:`~ssa_privacy.sensors.optical.OpticalStation`, frozen dataclasses with the
    fields ``name``, ``latitude``, ``longitude`` (deg), ``altitude`` (km),
    ``elevation_mask`` (deg), ``noise_std`` (one per measured row), ``azimuth_sector``
    and ``range_max``, and the class attribute ``rows``. Checking the fields when a
    sensor is made, it stores the site's ECEF position and ENU axes.

    Raises
    ------
    TypeError, ValueError
        Naming the field, as the subclasses say.

    Notes
    -----
    Vallado §3.2 (site position on the WGS-84 ellipsoid), Algorithm 27 (ENU axes).
    """

    def __post_init__(self):
        _check_site(self)

    @property
    def ecef(self):
        """ECEF position of the site (km), shape (3,)."""
        return self._geometry[0].copy()

    @property
    def enu_rotation(self):
        """Rotation from ECEF to the site's east-north-up axes, shape (3, 3) (rows E, N, U)."""
        return self._geometry[1].copy()

    @property
    def noise_covariance(self):
        """Sensor noise covariance ``diag(noise_std^2)``, shape (rows, rows), units^2 of the rows."""
        return np.diag(np.square(self.noise_std))


@dataclass(frozen=True)
class GroundStation(SiteSensor):
    """A tracking radar at a fixed geodetic position.

    Parameters
    ----------
    name : str
        Label: one line of visible text, not blank, without blanks at either end.
    latitude, longitude : float
        WGS-84 geodetic latitude in [-90, 90] and longitude in [-360, 360] (deg).
    altitude : float
        Height above the ellipsoid (km), in :data:`SITE_HEIGHT_RANGE_KM` ([-1, 10]).
    elevation_mask : float, optional
        Smallest elevation of a measurement (deg), default 10.
    noise_std : sequence of 4 floats, optional
        Standard deviations of the sensor noise on (azimuth, elevation, range, range rate)
        in (rad, rad, km, km/s), default :data:`DEFAULT_NOISE_STD`.
    azimuth_sector : pair of floats, optional
        Field of regard in azimuth, ``(from, to)`` in degrees in [0, 360], clockwise from
        north and inclusive; it may wrap through north (``(300, 30)`` spans 90 deg);
        ``(0, 360)`` is the full circle. Default None: the full circle.
    range_max : float, optional
        Largest range of a measurement (km, positive). Default None: no limit.

    Attributes
    ----------
    kind : str
        ``"radar"``.
    rows : int
        4, the number of measurement rows.
    names : tuple of str
        :data:`MEASUREMENTS`.
    units : tuple of str
        :data:`UNITS`, ``("rad", "rad", "km", "km/s")``.
    wrapped : tuple of bool
        ``(True, False, False, False)``: the azimuth is an angle modulo 2 pi.

    Raises
    ------
    ValueError
        Naming the argument (and its unit): a name that is blank, has blanks at an end or
        holds a control or invisible character, a latitude outside [-90, 90], a longitude
        outside [-360, 360], an altitude outside [-1, 10] km, a mask outside [0, 90), a
        noise standard deviation that is not positive, an azimuth sector that is not two
        azimuths in [0, 360] of non-zero width, a ``range_max`` that is not positive, or a
        value that is not finite.
    TypeError
        If ``name`` is not a string or a number is not a real number.

    Notes
    -----
    Vallado Algorithm 27 (RAZEL): topocentric ENU vector, azimuth and elevation. A
    station designs no privacy: :meth:`linearised_measurement` gives the model that a
    mechanism privatizes (:doc:`/theory/orbits-and-sensors`). The sector and range limit
    model a radar's field of regard and its detection range (e.g. a phased array facing
    one way); Vallado §4.4 (site visibility).
    """

    name: str
    latitude: float
    longitude: float
    altitude: float = 0.0
    elevation_mask: float = 10.0
    noise_std: tuple = DEFAULT_NOISE_STD
    azimuth_sector: tuple | None = None
    range_max: float | None = None

    kind = "radar"
    rows = 4
    names = MEASUREMENTS
    units = UNITS
    wrapped = (True, False, False, False)

    def _topocentric(self, states, times, earth):
        """Line of sight and its rate in ENU (km, km/s), each ``states.shape[:-1] + (3,)``."""
        return _topocentric(self, states, times, earth)

    def measure(self, states, times, earth):
        """Noise-free measurements ``(azimuth, elevation, range, range rate)``.

        Parameters
        ----------
        states : array_like, shape (6,) or (m, 6)
            ECI satellite states (km, km/s).
        times : float or array_like, shape (m,)
            Their times (s since epoch).
        earth : EarthRotation
            The Earth's orientation.

        Returns
        -------
        ndarray, shape (4,) or (m, 4)
            Azimuth in [0, 2 pi) and elevation (rad), range (km), range rate (km/s).

        Raises
        ------
        ValueError
            On non-finite values, mismatched shapes or a satellite at the station.
        TypeError
            If ``earth`` is not an EarthRotation.

        Notes
        -----
        Vallado Algorithm 27 (RAZEL) for a station fixed on the rotating Earth.
        """
        return _radar_values(*self._topocentric(states, times, earth))

    def visible(self, states, times, earth):
        """Whether the satellite is in the station's field of regard.

        Parameters
        ----------
        states, times, earth
            As :meth:`measure`.

        Returns
        -------
        bool or ndarray of bool, shape ``states.shape[:-1]``
            True where the elevation is at least :attr:`elevation_mask` and, when set,
            the azimuth lies in :attr:`azimuth_sector` (inclusive) and the range is at
            most :attr:`range_max`.

        Raises
        ------
        ValueError
            As :meth:`measure`.

        Notes
        -----
        Vallado §4.4 (site visibility) on the RAZEL measurement of Algorithm 27.
        """
        z = self.measure(states, times, earth)
        if self.azimuth_sector is None and self.range_max is None:
            return z[..., 1] >= np.radians(self.elevation_mask)
        return _in_field(self, z[..., 0], z[..., 1], z[..., 2])

    def linearised_measurement(self, state, time, earth):
        """The measurement model linearised about one state, with the sensor noise.

        Parameters
        ----------
        state : array_like, shape (6,)
            Linearisation point, e.g. a filter's predicted ECI state (km, km/s); not at
            the station's zenith (azimuth is singular there).
        time : float
            Time (s since epoch).
        earth : EarthRotation
            The Earth's orientation.

        Returns
        -------
        LinearisedMeasurement
            ``H`` (4, 6) from :meth:`jacobian`, ``R`` (4, 4) the sensor noise covariance
            :attr:`noise_covariance`, ``value`` = :meth:`measure` at ``state``, the
            point ``state`` and ``time``, and the row names :data:`MEASUREMENTS`.

        Raises
        ------
        ValueError
            On a state that is not a finite 6-vector, a non-finite time, or a state at
            the zenith.

        Notes
        -----
        Vallado Algorithm 27 (RAZEL) and its Jacobian; a privacy mechanism is designed on
        ``H``, see :doc:`/theory/orbits-and-sensors`.

        Examples
        --------
        >>> from ssa_privacy.sensors import EarthRotation, GroundStation
        >>> station = GroundStation("Madrid", 40.4313, -4.2480, 0.865)
        >>> earth = EarthRotation(0.0)
        >>> overhead = station.ecef * 1.1 + [50.0, 0.0, 0.0]
        >>> state = np.concatenate([overhead, [0.0, 7.0, 0.0]])
        >>> model = station.linearised_measurement(state, 0.0, earth)
        >>> model.H.shape, model.R.shape
        ((4, 6), (4, 4))
        """
        return _linearise(self, state, time, earth)

    def jacobian(self, states, times, earth):
        """Jacobian of :meth:`measure` with respect to the ECI state.

        Parameters
        ----------
        states : array_like, shape (6,) or (m, 6)
            ECI satellite states (km, km/s), not at the station's zenith (azimuth is
            singular there).
        times : float or array_like, shape (m,)
            Their times (s since epoch).
        earth : EarthRotation
            The Earth's orientation.

        Returns
        -------
        ndarray, shape (4, 6) or (m, 4, 6)
            Rows azimuth, elevation, range, range rate; columns the ECI position (per km)
            and velocity (per km/s).

        Raises
        ------
        ValueError
            On non-finite values, mismatched shapes, or a state at the zenith.

        Notes
        -----
        Differentiates Vallado Algorithm 27 through ``rho_ENU = M R3(theta) r - M r_site``
        and ``rho_dot_ENU = M R3(theta) (v - omega x r)``.
        """
        states = vectors(states, "states", 6)
        by_rho, by_rho_dot = _radar_partials(*self._topocentric(states, times, earth))
        rotation = earth.rotation(
            np.broadcast_to(np.asarray(times, dtype=float), states.shape[:-1])
        )
        to_enu = np.einsum("ij,...jk->...ik", self._geometry[1], rotation)
        return _state_partials(by_rho, by_rho_dot, to_enu, earth.rate)


def radar_measurements(stations, which, states, times, earth):
    """Measurements and Jacobians of many states, each seen by one radar of a network.

    The vectorised :meth:`GroundStation.measure` and :meth:`GroundStation.jacobian` of
    ``states[k]`` at ``times[k]`` by ``stations[which[k]]``, for all ``k`` at once: the
    Earth's rotation is computed once per epoch for all radars.

    Parameters
    ----------
    stations : sequence of GroundStation
        The network; only the stations that ``which`` names must be radars.
    which : array_like of int, shape (K,)
        Index into ``stations`` of each state's radar.
    states : array_like, shape (K, 6)
        ECI satellite states (km, km/s), none at its radar's zenith.
    times : array_like, shape (K,)
        Their times (s since epoch).
    earth : EarthRotation
        The Earth's orientation.

    Returns
    -------
    values : ndarray, shape (K, 4)
        ``stations[which[k]].measure(states[k], times[k], earth)``: azimuth in [0, 2 pi)
        and elevation (rad), range (km), range rate (km/s).
    jacobians : ndarray, shape (K, 4, 6)
        ``stations[which[k]].jacobian(states[k], times[k], earth)``.

    Raises
    ------
    TypeError
        If a station named by ``which`` is not a GroundStation, or ``earth`` is not an
        EarthRotation.
    ValueError
        If ``which`` is not K indices into ``stations``, on non-finite values or
        mismatched shapes, or on a satellite at a station or at its zenith.

    Notes
    -----
    Vallado Algorithm 27 (RAZEL) and its derivatives, as :meth:`GroundStation.jacobian`.
    """
    states = vectors(states, "states", 6)
    which = np.asarray(which)
    if which.shape != states.shape[:1] or not np.issubdtype(which.dtype, np.integer):
        raise ValueError(f"which must hold {len(states)} station indices, got {which!r}")
    if len(which) and (which.min() < 0 or which.max() >= len(stations)):
        raise ValueError(f"which must index the {len(stations)} stations, got {which!r}")
    used, inverse = np.unique(which, return_inverse=True)
    for s in used:
        if not isinstance(stations[s], GroundStation):
            raise TypeError(
                f"stations[{s}] must be a GroundStation, got {type(stations[s]).__name__}"
            )
    site = np.array([stations[s]._geometry[0] for s in used]).reshape(-1, 3)[inverse]
    enu = np.array([stations[s]._geometry[1] for s in used]).reshape(-1, 3, 3)[inverse]
    ecef = _earth_rotation(earth).eci_to_ecef(states, times)
    rho = np.einsum("kij,kj->ki", enu, ecef[:, :3] - site)
    if np.any(np.linalg.norm(rho, axis=-1) == 0):
        raise ValueError("states include a satellite at the station: the line of sight is zero")
    rho_dot = np.einsum("kij,kj->ki", enu, ecef[:, 3:])
    by_rho, by_rho_dot = _radar_partials(rho, rho_dot)
    to_enu = enu @ earth.rotation(np.broadcast_to(np.asarray(times, dtype=float), which.shape))
    return _radar_values(rho, rho_dot), _state_partials(by_rho, by_rho_dot, to_enu, earth.rate)
