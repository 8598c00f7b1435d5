"""Ground-based tracking sensors: Earth rotation, stations, radar measurements and visibility.

Frames and conventions
----------------------
- ECI: the inertial frame of :class:`ssa_privacy.orbits.J2Propagator` (for real orbits,
  the TEME frame of SGP4: over a day the TEME/J2000 distinction is ignored).
- ECEF: Earth-fixed, obtained from ECI by the rotation ``R3(theta)`` about z through the
  Earth rotation angle ``theta(t) = theta_0 + omega_E t`` (:class:`EarthRotation`): a
  rotation at Earth's inertial rate from the Greenwich mean sidereal time ``theta_0`` at
  epoch (for a TLE, SGP4's IAU-82 ``gsto``). Precession over the span, polar motion and
  UT1 - UTC are neglected (metre level).
- Topocentric ENU (east, north, up) at a station's WGS-84 geodetic position.

A :class:`GroundStation` measures ``(azimuth, elevation, range, range rate)`` in
``(rad, rad, km, km/s)``; azimuth is clockwise from north in [0, 2 pi). The range rate
is that of the line of sight in the rotating frame (the station is fixed on the Earth).
A measurement exists when the elevation is at least the station's mask; each station
adds Gaussian sensor noise of standard deviations ``noise_std`` (same units).

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed.: §3.2 (site
position on the WGS-84 ellipsoid), Algorithm 12 (ECEF to latitude and longitude), Ch. 3
(sidereal time, Earth rotation), Algorithm 27 (RAZEL: topocentric azimuth, elevation,
range and range rate); National Imagery and Mapping Agency, "WGS 84", TR8350.2.
"""

from dataclasses import dataclass

import numpy as np
from filterpy.common import Q_continuous_white_noise
from filterpy.kalman import MerweScaledSigmaPoints, UnscentedKalmanFilter
from scipy import linalg

from ssa_privacy._validation import as_finite_array, open_interval, pd_cholesky, symmetric_matrix
from ssa_privacy.privacy.pml import linear_mechanism_noise

#: WGS-84 semi-major axis (km) and flattening.
WGS84_A = 6378.137
WGS84_F = 1.0 / 298.257223563
#: Earth's rotation rate with respect to inertial space (rad/s), the value of Vallado's
#: SGP4 code (WGS-84 rounds it to 7.292115e-5). GMST grows faster, by the precession of
#: the equinox (7.1e-12 rad/s).
OMEGA_EARTH = 7.292115146706979e-5
#: Names of the four measurements, in order (units rad, rad, km, km/s).
MEASUREMENTS = ("azimuth", "elevation", "range", "range_rate")
#: Default sensor noise (1 sigma) of a tracking radar: 0.01 deg in both angles, 20 m in
#: range, 10 cm/s in range rate.
DEFAULT_NOISE_STD = (np.radians(0.01), np.radians(0.01), 0.020, 1.0e-4)
#: Latitude fixed-point iterations of :func:`ecef_to_geodetic` (converged to < 1e-12 rad
#: for altitudes below 10^4 km).
GEODETIC_ITERATIONS = 6


def _vectors(value, name, size):
    array = as_finite_array(value, name)
    if array.ndim < 1 or array.shape[-1] != size:
        raise ValueError(f"{name} must have shape ({size},) or (..., {size}), got {array.shape}")
    return array


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
        If a value is not finite or a latitude is outside [-90, 90].

    Notes
    -----
    Vallado §3.2 (site position on the ellipsoid); WGS-84 constants.
    """
    lat = np.radians(as_finite_array(latitude, "latitude"))
    if np.any(np.abs(lat) > np.pi / 2):
        raise ValueError("latitude must lie in [-90, 90] degrees")
    lon = np.radians(as_finite_array(longitude, "longitude"))
    alt = as_finite_array(altitude, "altitude")
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
    position = _vectors(position, "position", 3)
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
        :attr:`ssa_privacy.tle.ElementSet.gmst_epoch`.
    rate : float, optional
        Rotation rate (rad/s), default :data:`OMEGA_EARTH`.

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
        float(as_finite_array(self.gmst0, "gmst0", ndim=0))
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
        states = _vectors(states, "states", 6)
        angle = self.angle(times)
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
        positions = _vectors(positions, "positions", 3)
        angle = np.asarray(self.angle(times))
        rotation = _rotation_z(-angle)
        return np.einsum("...ij,...j->...i", rotation, positions)


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
    ValueError
        As :meth:`EarthRotation.eci_to_ecef` and :func:`ecef_to_geodetic`.
    """
    latitude, longitude, _ = ecef_to_geodetic(earth.eci_to_ecef(states, times)[..., :3])
    return latitude, longitude


@dataclass(frozen=True)
class GroundStation:
    """A tracking radar at a fixed geodetic position.

    Parameters
    ----------
    name : str
        Label.
    latitude, longitude : float
        WGS-84 geodetic latitude and longitude (deg).
    altitude : float
        Height above the ellipsoid (km).
    elevation_mask : float, optional
        Smallest elevation of a measurement (deg), default 10.
    noise_std : sequence of 4 floats, optional
        Standard deviations of the sensor noise on (azimuth, elevation, range, range rate)
        in (rad, rad, km, km/s), default :data:`DEFAULT_NOISE_STD`.

    Raises
    ------
    ValueError
        On a latitude outside [-90, 90], a mask outside [0, 90) or a noise standard
        deviation that is not positive.

    Notes
    -----
    Vallado Algorithm 27 (RAZEL): topocentric ENU vector, azimuth and elevation.
    """

    name: str
    latitude: float
    longitude: float
    altitude: float = 0.0
    elevation_mask: float = 10.0
    noise_std: tuple = DEFAULT_NOISE_STD

    def __post_init__(self):
        site = geodetic_to_ecef(self.latitude, self.longitude, self.altitude)
        if not 0 <= float(self.elevation_mask) < 90:
            raise ValueError(
                f"elevation_mask must lie in [0, 90) degrees, got {self.elevation_mask!r}"
            )
        std = as_finite_array(self.noise_std, "noise_std", ndim=1)
        if std.shape != (4,) or np.any(std <= 0):
            raise ValueError(f"noise_std must hold 4 positive values, got {self.noise_std!r}")
        object.__setattr__(self, "noise_std", tuple(float(s) for s in std))
        lat, lon = np.radians(self.latitude), np.radians(self.longitude)
        enu = np.array(
            [
                [-np.sin(lon), np.cos(lon), 0.0],
                [-np.sin(lat) * np.cos(lon), -np.sin(lat) * np.sin(lon), np.cos(lat)],
                [np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)],
            ]
        )
        object.__setattr__(self, "_geometry", (site, enu))

    @property
    def ecef(self):
        """ECEF position of the station (km), shape (3,)."""
        return self._geometry[0].copy()

    @property
    def enu_rotation(self):
        """Rotation from ECEF to the station's east-north-up axes, shape (3, 3) (rows E, N, U)."""
        return self._geometry[1].copy()

    @property
    def noise_covariance(self):
        """Sensor noise covariance ``diag(noise_std^2)``, shape (4, 4), measurement units^2."""
        return np.diag(np.square(self.noise_std))

    def _topocentric(self, states, times, earth):
        """Line of sight and its rate in ENU (km, km/s), each ``states.shape[:-1] + (3,)``."""
        ecef = earth.eci_to_ecef(states, times)
        site, rotation = self._geometry
        return (ecef[..., :3] - site) @ rotation.T, ecef[..., 3:] @ rotation.T

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
            On non-finite values or mismatched shapes.

        Notes
        -----
        Vallado Algorithm 27 (RAZEL) for a station fixed on the rotating Earth.
        """
        rho, rho_dot = self._topocentric(states, times, earth)
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

    def visible(self, states, times, earth):
        """Whether the satellite is at or above the station's elevation mask.

        Parameters
        ----------
        states, times, earth
            As :meth:`measure`.

        Returns
        -------
        bool or ndarray of bool, shape ``states.shape[:-1]``

        Raises
        ------
        ValueError
            As :meth:`measure`.
        """
        return self.measure(states, times, earth)[..., 1] >= np.radians(self.elevation_mask)

    def privacy_noise(self, state, time, earth, Sigma_XX, epsilon, delta, convention="exact"):
        """PML noise covariance for one measurement, designed on its linearisation.

        The measurement ``h(X)`` is linearised about ``state``,
        ``h(X) ~ h(state) + H (X - state)``; the noise makes the linear mechanism
        ``Y = H X + V``, ``V ~ N(0, Theta)``, (epsilon, delta)-PML private for a prior
        ``X ~ N(state, Sigma_XX)``.

        Parameters
        ----------
        state : array_like, shape (6,)
            Linearisation point, e.g. a filter's predicted ECI state (km, km/s).
        time : float
            Time (s since epoch).
        earth : EarthRotation
            The Earth's orientation.
        Sigma_XX : array_like, shape (6, 6)
            Prior covariance of the private state (km^2, km^2/s, km^2/s^2), positive
            definite.
        epsilon : float
            Leakage level (nats), above the necessary condition (9) for rank 4.
        delta : float
            Failure probability in (0, 1).
        convention : {"exact", "paper"}
            PML convention of the design (SPEC §4).

        Returns
        -------
        Theta : ndarray, shape (4, 4)
            ``kappa / (1 - kappa) H Sigma_XX H^T`` in measurement units squared (rad^2,
            km^2, km^2/s^2 and products: a Gaussian mechanism needs no common unit).

        Raises
        ------
        ValueError
            On invalid inputs, a zenith geometry, or an epsilon below condition (9).

        Notes
        -----
        [LKC] Corollary 3.7, (15), via
        :func:`ssa_privacy.privacy.pml.linear_mechanism_noise`. The guarantee is that of
        the linearised measurement; the nonlinear one matches it to first order in the
        prior's spread over the range (about 1e-3 for a km-level prior at 1000 km).
        """
        H = self.jacobian(state, time, earth)
        return linear_mechanism_noise(H, Sigma_XX, epsilon, delta, convention)

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
        states = _vectors(states, "states", 6)
        rho, rho_dot = self._topocentric(states, times, earth)
        east, north, up = np.moveaxis(rho, -1, 0)
        horizontal2 = east**2 + north**2
        if np.any(horizontal2 <= 1e-12 * np.sum(rho**2, axis=-1)):
            raise ValueError("states include a satellite at the zenith: azimuth is singular")
        distance = np.linalg.norm(rho, axis=-1)
        horizontal = np.sqrt(horizontal2)
        zero = np.zeros_like(east)
        d_az = np.stack([north, -east, zero], -1) / horizontal2[..., None]
        d_el = (
            np.stack([-east * up, -north * up, horizontal2], -1)
            / (distance**2 * horizontal)[..., None]
        )
        unit = rho / distance[..., None]
        range_rate = np.sum(unit * rho_dot, axis=-1)
        d_rr = (rho_dot - range_rate[..., None] * unit) / distance[..., None]
        by_rho = np.stack([d_az, d_el, unit, d_rr], axis=-2)  # (..., 4, 3)
        by_rho_dot = np.zeros(by_rho.shape)
        by_rho_dot[..., 3, :] = unit
        to_enu = np.einsum(
            "ij,...jk->...ik",
            self._geometry[1],
            _rotation_z(np.broadcast_to(earth.angle(times), east.shape)),
        )
        omega_cross = np.array([[0.0, -earth.rate, 0.0], [earth.rate, 0.0, 0.0], [0.0, 0.0, 0.0]])
        d_position = np.einsum("...mi,...ij->...mj", by_rho, to_enu) - np.einsum(
            "...mi,...ij,jk->...mk", by_rho_dot, to_enu, omega_cross
        )
        d_velocity = np.einsum("...mi,...ij->...mj", by_rho_dot, to_enu)
        return np.concatenate([d_position, d_velocity], axis=-1)


# --------------------------------------------------------------------------------------
# The fusion centre's tracking filter.
# --------------------------------------------------------------------------------------

#: Scaled sigma points (alpha, beta, kappa) of the tracker: alpha = 1, kappa = 0 keep
#: every covariance weight non-negative (the predicted covariance stays positive
#: semi-definite); beta = 2 is optimal for Gaussian priors.
SIGMA_POINT_PARAMETERS = (1.0, 2.0, 0.0)


#: Largest initial integration step of the tracker's process model (s).
FIRST_STEP = 60.0


def _wrap_azimuth(values):
    """Wrap the azimuth entries (every fourth, from 0) of stacked measurements into (-pi, pi]."""
    values = np.array(values, dtype=float)
    values[..., 0::4] = np.angle(np.exp(1j * values[..., 0::4]))
    return values


def measurement_residual(z, z_ref):
    """Difference of stacked measurements with azimuth differences wrapped into (-pi, pi].

    Parameters
    ----------
    z, z_ref : ndarray, shape (4 k,)
        Stacked ``(azimuth, elevation, range, range rate)`` of k stations.

    Returns
    -------
    ndarray, shape (4 k,)
        ``z - z_ref``, the azimuth entries wrapped.
    """
    return _wrap_azimuth(np.subtract(z, z_ref))


def measurement_mean(sigmas, weights):
    """Weighted mean of stacked measurement sigma points, circular in azimuth.

    Parameters
    ----------
    sigmas : ndarray, shape (s, 4 k)
        Sigma points of the stacked measurements.
    weights : ndarray, shape (s,)
        Mean weights of the unscented transform.

    Returns
    -------
    ndarray, shape (4 k,)
        Linear weighted mean, except the azimuths: the angle of the weighted mean of
        ``exp(i azimuth)``, in [0, 2 pi).
    """
    mean = weights @ sigmas
    mean[0::4] = np.mod(np.angle(weights @ np.exp(1j * sigmas[:, 0::4])), 2 * np.pi)
    return mean


def _covariance(value, name, size):
    """A symmetric positive definite ``size`` x ``size`` matrix, symmetrized."""
    pd_cholesky(value, name, size)
    return symmetric_matrix(value, name, size)


def _spd_inverse(matrix):
    """Inverse of a symmetric positive definite matrix through its Cholesky factor."""
    factor = linalg.cho_factor(0.5 * (matrix + matrix.T), lower=True)
    return linalg.cho_solve(factor, np.eye(len(matrix)))


class _BatchUKF(UnscentedKalmanFilter):
    """filterpy's UKF with the process model applied to all sigma points in one call."""

    def compute_process_sigmas(self, dt, fx=None, **fx_args):
        sigmas = self.points_fn.sigma_points(self.x, self.P)
        self.sigmas_f = (fx or self.fx)(sigmas, dt, **fx_args)


class OrbitTracker:
    """The fusion centre's unscented Kalman filter of a satellite's ECI state.

    Process model: :class:`ssa_privacy.orbits.J2Propagator` over each time step (all
    sigma points integrated as one system), with process noise of a white acceleration
    of power spectral density ``acceleration_psd`` per axis (discretised with
    :func:`filterpy.common.Q_continuous_white_noise`). Measurement model: the stacked
    ``(azimuth, elevation, range, range rate)`` of the stations that report at a time,
    with azimuth residuals and means taken on the circle.

    Parameters
    ----------
    propagator : ssa_privacy.orbits.J2Propagator
        Dynamics of the filter.
    earth : EarthRotation
        The Earth's orientation (station positions).
    x0 : array_like, shape (6,)
        Prior mean of the state at ``t0`` (km, km/s).
    P0 : array_like, shape (6, 6)
        Prior covariance, positive definite (km^2, km^2/s, km^2/s^2).
    acceleration_psd : float
        Process-noise spectral density (km^2/s^3), >= 0.
    t0 : float, optional
        Time of the prior (s since epoch).
    tolerance : float, optional
        rtol = atol of the process model's integration (default 1e-9; the truth of a
        study uses the tighter 1e-10).

    Raises
    ------
    ValueError
        On invalid prior, noise level or tolerance.

    Notes
    -----
    Unscented Kalman filter: Julier and Uhlmann (2004), Proc. IEEE 92(3); scaled sigma
    points: van der Merwe (2004), PhD thesis, OGI; filterpy's
    :class:`~filterpy.kalman.UnscentedKalmanFilter` and
    :class:`~filterpy.kalman.MerweScaledSigmaPoints` with
    :data:`SIGMA_POINT_PARAMETERS`. The innovation covariance is inverted through its
    Cholesky factor.
    """

    def __init__(self, propagator, earth, x0, P0, acceleration_psd, t0=0.0, tolerance=1e-9):
        x0 = as_finite_array(x0, "x0", ndim=1)
        if x0.shape != (6,):
            raise ValueError(f"x0 must have 6 entries, got shape {x0.shape}")
        P0 = _covariance(P0, "P0", 6)
        if not np.isfinite(acceleration_psd) or acceleration_psd < 0:
            raise ValueError(f"acceleration_psd must be finite and >= 0, got {acceleration_psd!r}")
        self.propagator, self.earth = propagator, earth
        self.acceleration_psd, self.tolerance = float(acceleration_psd), float(tolerance)
        self.time = float(t0)
        points = MerweScaledSigmaPoints(6, *SIGMA_POINT_PARAMETERS)
        ukf = _BatchUKF(
            dim_x=6,
            dim_z=4,
            dt=1.0,
            hx=None,
            fx=self._process,
            points=points,
            z_mean_fn=measurement_mean,
            residual_z=measurement_residual,
        )
        ukf.x, ukf.P, ukf.inv = x0.copy(), P0, _spd_inverse
        ukf.sigmas_f = points.sigma_points(ukf.x, ukf.P)
        self.ukf = ukf

    @property
    def x(self):
        """Current state estimate (km, km/s), shape (6,)."""
        return self.ukf.x.copy()

    @property
    def P(self):
        """Current error covariance, shape (6, 6)."""
        return self.ukf.P.copy()

    def _process(self, sigmas, dt):
        return self.propagator.propagate(
            [0.0, dt], sigmas, self.tolerance, self.tolerance, first_step=min(dt, FIRST_STEP)
        )[:, -1]

    def predict(self, time):
        """Propagate the estimate and covariance to ``time`` (unscented transform).

        Parameters
        ----------
        time : float
            Seconds since epoch, not before the filter's current time; equal to it, the
            call does nothing.

        Raises
        ------
        ValueError
            If ``time`` is before the filter's current time, or the integration fails.
        """
        dt = float(time) - self.time
        if dt < 0:
            raise ValueError(f"time must not precede the filter's time {self.time}, got {time}")
        if dt > 0:
            self.ukf.Q = Q_continuous_white_noise(
                2, dt, self.acceleration_psd, block_size=3, order_by_dim=False
            )
            self.ukf.predict(dt=dt)
            self.ukf.P = 0.5 * (self.ukf.P + self.ukf.P.T)
        self.time = float(time)

    def update(self, stations, z, R):
        """Update with simultaneous measurements of several stations at the current time.

        Parameters
        ----------
        stations : sequence of GroundStation
            The reporting stations (k >= 1).
        z : array_like, shape (k, 4)
            Their (privatized) measurements.
        R : array_like, shape (k, 4, 4)
            Their noise covariances (sensor plus privacy noise), positive definite.

        Raises
        ------
        ValueError
            On shape mismatches or invalid covariances.
        """
        z = as_finite_array(z, "z", ndim=2)
        if not stations or z.shape != (len(stations), 4):
            raise ValueError(f"z must have shape ({len(stations)}, 4), got {z.shape}")
        blocks = [_covariance(Ri, f"R[{i}]", 4) for i, Ri in enumerate(R)]
        if len(blocks) != len(stations):
            raise ValueError(f"R must hold {len(stations)} covariances, got {len(blocks)}")
        time, earth = self.time, self.earth
        self.ukf.update(
            z.ravel(),
            R=linalg.block_diag(*blocks),
            hx=lambda state: np.concatenate(
                [station.measure(state, time, earth) for station in stations]
            ),
        )
        self.ukf.P = 0.5 * (self.ukf.P + self.ukf.P.T)
        self.ukf.sigmas_f = self.ukf.points_fn.sigma_points(self.ukf.x, self.ukf.P)
