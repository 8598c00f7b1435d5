"""The fusion centre's tracking filter: an unscented Kalman filter of a satellite's ECI state.

:class:`OrbitTracker` wraps filterpy's unscented Kalman filter with the J2 propagator as
process model and the stacked measurements of the reporting stations as measurement
model; azimuth residuals and means are taken on the circle
(:func:`measurement_residual`, :func:`measurement_mean`). See
:doc:`/theory/orbits-and-sensors`.

References
----------
S. J. Julier and J. K. Uhlmann, "Unscented filtering and nonlinear estimation", Proc.
IEEE 92(3), 2004; R. van der Merwe, "Sigma-point Kalman filters for probabilistic
inference in dynamic state-space models", PhD thesis, OGI, 2004.
"""

import numpy as np
from filterpy.common import Q_continuous_white_noise
from filterpy.kalman import MerweScaledSigmaPoints, UnscentedKalmanFilter
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky, symmetric_matrix
from ssa_privacy._internal.validation import as_finite_array, non_negative, scalar
from ssa_privacy.orbits.propagator import J2Propagator, _tolerance
from ssa_privacy.sensors.geodesy import _earth_rotation
from ssa_privacy.sensors.simulation import wrap_angles
from ssa_privacy.sensors.stations import GroundStation

__all__ = [
    "FIRST_STEP",
    "OrbitTracker",
    "SIGMA_POINT_PARAMETERS",
    "measurement_mean",
    "measurement_residual",
]

#: Scaled sigma points (alpha, beta, kappa) of the tracker: alpha = 1, kappa = 0 keep
#: every covariance weight non-negative (the predicted covariance stays positive
#: semi-definite); beta = 2 is optimal for Gaussian priors.
SIGMA_POINT_PARAMETERS = (1.0, 2.0, 0.0)


#: Largest initial integration step of the tracker's process model (s).
FIRST_STEP = 60.0


def measurement_residual(z, z_ref, wrapped=None):
    """Difference of stacked measurements with angle differences wrapped into (-pi, pi].

    Parameters
    ----------
    z, z_ref : ndarray, shape (M,)
        Stacked measurements, e.g. ``(azimuth, elevation, range, range rate)`` of k radars
        (M = 4 k) or a mix of radar and optical (right ascension, declination) rows.
    wrapped : array_like of bool, shape (M,), optional
        Which rows are angles taken modulo 2 pi (azimuth, right ascension). Default: every
        fourth row from 0 (radar rows only; M must then be a multiple of 4).

    Returns
    -------
    ndarray, shape (M,)
        ``z - z_ref``, the wrapped entries in (-pi, pi].

    Raises
    ------
    ValueError
        If z and z_ref are not finite or not of one shape (M,), if ``wrapped`` is not a
        boolean mask of shape (M,), or, without ``wrapped``, if M is not a multiple of 4.
    """
    z, z_ref = as_finite_array(z, "z"), as_finite_array(z_ref, "z_ref")
    if wrapped is None:
        if z.shape != z_ref.shape or z.ndim != 1 or z.size % 4:
            raise ValueError(
                f"z and z_ref must have one shape (4 k,), got {z.shape} and {z_ref.shape}"
            )
        return wrap_angles(z - z_ref)
    if z.shape != z_ref.shape or z.ndim != 1:
        raise ValueError(f"z and z_ref must have one shape (M,), got {z.shape} and {z_ref.shape}")
    wrapped = np.asarray(wrapped)
    if wrapped.dtype != bool or wrapped.shape != z.shape:
        raise ValueError(
            f"wrapped must be a boolean mask of shape {z.shape}, got {wrapped.dtype} "
            f"of shape {wrapped.shape}"
        )
    return wrap_angles(z - z_ref, wrapped)


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

    Raises
    ------
    ValueError
        If the sigma points are not a finite (s, 4 k) array or the weights not (s,).
    """
    sigmas, weights = as_finite_array(sigmas, "sigmas", 2), as_finite_array(weights, "weights", 1)
    if sigmas.shape[1] % 4 or sigmas.shape[1] == 0 or weights.shape != (len(sigmas),):
        raise ValueError(
            f"sigmas must be (s, 4 k) and weights (s,), got {sigmas.shape} and {weights.shape}"
        )
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

    Process model: :class:`ssa_privacy.orbits.propagator.J2Propagator` over each time step (all
    sigma points integrated as one system), with process noise of a white acceleration
    of power spectral density ``acceleration_psd`` per axis (discretised with
    :func:`filterpy.common.Q_continuous_white_noise`). Measurement model: the stacked
    ``(azimuth, elevation, range, range rate)`` of the stations that report at a time,
    with azimuth residuals and means taken on the circle.

    Parameters
    ----------
    propagator : ssa_privacy.orbits.propagator.J2Propagator
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
        On invalid prior, noise level, time or tolerance.
    TypeError
        If ``propagator`` is not a J2Propagator, ``earth`` not an EarthRotation, or a
        number is not a real number.

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
        if not isinstance(propagator, J2Propagator):
            raise TypeError(f"propagator must be a J2Propagator, got {type(propagator).__name__}")
        earth = _earth_rotation(earth)
        x0 = as_finite_array(x0, "x0", ndim=1)
        if x0.shape != (6,):
            raise ValueError(f"x0 must have 6 entries, got shape {x0.shape}")
        P0 = _covariance(P0, "P0", 6)
        acceleration_psd = non_negative(acceleration_psd, "acceleration_psd")
        self.propagator, self.earth = propagator, earth
        self.acceleration_psd, self.tolerance = acceleration_psd, _tolerance(tolerance, "tolerance")
        self.time = scalar(t0, "t0")
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
            If ``time`` is not finite or is before the filter's current time, or the
            integration fails.
        TypeError
            If ``time`` is not a real number.
        """
        dt = scalar(time, "time") - self.time
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
            On no station, shape mismatches or invalid covariances.
        TypeError
            If a station is not a GroundStation or z, R are not real numbers.
        """
        if isinstance(stations, GroundStation) or not hasattr(stations, "__len__"):
            raise TypeError(
                f"stations must be a sequence of GroundStation, got {type(stations).__name__}"
            )
        if len(stations) == 0:
            raise ValueError("stations is empty: at least one station must report")
        for i, station in enumerate(stations):
            if not isinstance(station, GroundStation):
                raise TypeError(
                    f"stations[{i}] must be a GroundStation, got {type(station).__name__}"
                )
        z = as_finite_array(z, "z", ndim=2)
        if z.shape != (len(stations), 4):
            raise ValueError(f"z must have shape ({len(stations)}, 4), got {z.shape}")
        R = as_finite_array(R, "R")
        if R.shape != (len(stations), 4, 4):
            raise ValueError(f"R must have shape ({len(stations)}, 4, 4), got {R.shape}")
        blocks = [_covariance(Ri, f"R[{i}]", 4) for i, Ri in enumerate(R)]
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
