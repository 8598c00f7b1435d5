"""Classical orbital elements: conversions to and from ECI states, and orbit averages.

Elements ``(a, e, i, raan, argp, nu)``: semi-major axis (km), eccentricity, inclination,
right ascension of the ascending node, argument of perigee and true anomaly (rad), for
elliptic orbits. Orbit averages of the osculating node and perigee remove the
short-periodic J2 terms and give the secular drift of a propagation. See
:doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., 2013:
Algorithms 9-10 (RV2COE, COE2RV), Ch. 9 (mean elements). H. D. Curtis, "Orbital
Mechanics for Engineering Students", 3rd ed., Algorithms 4.2 and 4.5.
"""

from collections import namedtuple

import numpy as np

from ssa_privacy._internal.validation import as_finite_array, positive
from ssa_privacy.constants import MU_EARTH
from ssa_privacy.orbits._checks import orbital_states, vectors

__all__ = [
    "OrbitalElements",
    "SINGULAR_TOL",
    "angular_momentum",
    "elements_to_state",
    "orbit_averaged_rates",
    "orbit_averages",
    "state_to_elements",
]


class OrbitalElements(namedtuple("OrbitalElements", "a e i raan argp nu")):
    """Classical orbital elements of one or several elliptic orbits (a named tuple).

    Parameters
    ----------
    a : float or ndarray
        Semi-major axis (km).
    e : float or ndarray
        Eccentricity, in [0, 1).
    i : float or ndarray
        Inclination (rad).
    raan : float or ndarray
        Right ascension of the ascending node (rad).
    argp : float or ndarray
        Argument of perigee (rad).
    nu : float or ndarray
        True anomaly (rad).

    Raises
    ------
    TypeError
        If an element is not made of real numbers.
    ValueError
        If an element is not finite, ``a`` is not positive, ``e`` is outside [0, 1) or
        the elements do not broadcast together (``_replace`` checks the same).

    Notes
    -----
    Vallado Algorithm 9 (RV2COE); returned by :func:`state_to_elements`.
    """

    __slots__ = ()

    def __new__(cls, a, e, i, raan, argp, nu):
        arrays = _checked_elements(a, e, i, raan, argp, nu)
        return super().__new__(cls, *(float(x) if x.ndim == 0 else x for x in arrays))

    @classmethod
    def _make(cls, iterable):
        return cls(*iterable)


def _checked_elements(a, e, i, raan, argp, nu):
    """The six elements as broadcast float arrays, checked (see :class:`OrbitalElements`)."""
    named = {"a": a, "e": e, "i": i, "raan": raan, "argp": argp, "nu": nu}
    arrays = [as_finite_array(v, name) for name, v in named.items()]
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = {name: v.shape for name, v in zip(named, arrays)}
        raise ValueError(f"the elements must broadcast together, got shapes {shapes}") from None
    a, e = arrays[0], arrays[1]
    if np.any(a <= 0):
        raise ValueError("a (semi-major axis) must be positive")
    if np.any((e < 0) | (e >= 1)):
        raise ValueError("e (eccentricity) must lie in [0, 1) (elliptic orbits only)")
    return arrays


def angular_momentum(states):
    """Specific angular momentum ``r x v`` (km^2/s) of ECI states.

    Parameters
    ----------
    states : array_like, shape (..., 6)
        ECI states, km and km/s.

    Returns
    -------
    ndarray, shape (..., 3)
        Conserved by two-body motion; its z component is conserved under J2 too.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional.
    """
    states = vectors(states, "states")
    return np.cross(states[..., :3], states[..., 3:])


def _rotation_313(raan, i, argp):
    """Perifocal (PQW) to inertial rotation ``R3(-raan) R1(-i) R3(-argp)``, shape (..., 3, 3)."""
    cO, sO, ci, si, cw, sw = (f(x) for x in (raan, i, argp) for f in (np.cos, np.sin))
    return np.stack(
        [
            np.stack([cO * cw - sO * sw * ci, -cO * sw - sO * cw * ci, sO * si], axis=-1),
            np.stack([sO * cw + cO * sw * ci, -sO * sw + cO * cw * ci, -cO * si], axis=-1),
            np.stack([sw * si, cw * si, ci], axis=-1),
        ],
        axis=-2,
    )


def elements_to_state(a, e, i, raan, argp, nu, mu=MU_EARTH):
    """ECI state from classical orbital elements (elliptic orbits).

    Parameters
    ----------
    a : float or array_like
        Semi-major axis (km), positive.
    e : float or array_like
        Eccentricity in [0, 1).
    i, raan, argp, nu : float or array_like
        Inclination, right ascension of the ascending node, argument of perigee and true
        anomaly (rad). All arguments broadcast together.
    mu : float, optional
        Gravitational parameter (km^3/s^2).

    Returns
    -------
    ndarray, shape (..., 6)
        Position (km) and velocity (km/s).

    Raises
    ------
    ValueError
        If an element is not finite, ``a`` is not positive, ``e`` is outside [0, 1),
        ``mu`` is not positive or the elements do not broadcast together.
    TypeError
        If an element is not a real number (a bool, a string, None).

    Notes
    -----
    Vallado Algorithm 10 (COE2RV); Curtis Algorithm 4.5.
    """
    a, e, i, raan, argp, nu = _checked_elements(a, e, i, raan, argp, nu)
    mu = positive(mu, "mu")
    p = a * (1 - e**2)
    radius = p / (1 + e * np.cos(nu))
    r_pqw = np.stack([radius * np.cos(nu), radius * np.sin(nu), np.zeros_like(nu)], axis=-1)
    speed = np.sqrt(mu / p)
    v_pqw = np.stack([-speed * np.sin(nu), speed * (e + np.cos(nu)), np.zeros_like(nu)], axis=-1)
    rotation = _rotation_313(raan, i, argp)
    return np.concatenate(
        [
            np.einsum("...ij,...j->...i", rotation, r_pqw),
            np.einsum("...ij,...j->...i", rotation, v_pqw),
        ],
        axis=-1,
    )


def _angle_about(u, w, axis):
    """Angle in [0, 2 pi) from vectors ``u`` to ``w`` (..., 3) counter-clockwise about ``axis``."""
    sine = np.sum(np.cross(u, w) * axis, axis=-1)
    return np.mod(np.arctan2(sine, np.sum(u * w, axis=-1)), 2 * np.pi)


#: Smallest eccentricity and inclination (rad) for which the argument of perigee and the
#: node are defined well enough to be returned by :func:`state_to_elements`.
SINGULAR_TOL = 1e-9


def state_to_elements(states, mu=MU_EARTH):
    """Osculating classical orbital elements of ECI states (elliptic, inclined orbits).

    Parameters
    ----------
    states : array_like, shape (6,) or (..., 6)
        Position (km) and velocity (km/s).
    mu : float, optional
        Gravitational parameter (km^3/s^2).

    Returns
    -------
    OrbitalElements
        ``a`` (km), ``e``, ``i``, ``raan``, ``argp``, ``nu`` (rad; the last three in
        [0, 2 pi)), each of shape ``states.shape[:-1]``.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional, a state has a zero position
        or zero angular momentum (h = 0), or an orbit is not elliptic, equatorial (node
        undefined) or circular (perigee undefined) to :data:`SINGULAR_TOL`.

    Notes
    -----
    Vallado Algorithm 9 (RV2COE); Curtis Algorithm 4.2. The angles use ``arctan2``.
    """
    states = orbital_states(states, "states")
    mu = positive(mu, "mu")
    r, v = states[..., :3], states[..., 3:]
    radius = np.linalg.norm(r, axis=-1)
    h = np.cross(r, v)
    h_norm = np.linalg.norm(h, axis=-1)
    node = np.stack([-h[..., 1], h[..., 0], np.zeros_like(radius)], axis=-1)
    node_norm = np.linalg.norm(node, axis=-1)
    e_vec = (np.sum(v * v, axis=-1) - mu / radius)[..., None] * r
    e_vec = (e_vec - np.sum(r * v, axis=-1)[..., None] * v) / mu
    e = np.linalg.norm(e_vec, axis=-1)
    energy = 0.5 * np.sum(v * v, axis=-1) - mu / radius
    if np.any(energy >= 0):
        raise ValueError("states must describe elliptic orbits (negative energy)")
    if np.any(node_norm <= SINGULAR_TOL * h_norm) or np.any(e <= SINGULAR_TOL):
        raise ValueError(
            "states include an equatorial or circular orbit: the node or the "
            "argument of perigee is undefined"
        )
    h_hat = h / h_norm[..., None]
    return OrbitalElements(
        a=-mu / (2 * energy),
        e=e,
        i=np.arccos(np.clip(h[..., 2] / h_norm, -1.0, 1.0)),
        raan=np.mod(np.arctan2(node[..., 1], node[..., 0]), 2 * np.pi),
        argp=_angle_about(node, e_vec, h_hat),
        nu=_angle_about(e_vec, r, h_hat),
    )


def orbit_averages(times, states, period, mu=MU_EARTH):
    """Node and argument of perigee averaged over consecutive whole orbits.

    The osculating elements carry short-periodic J2 terms of the orbital period; their
    averages over whole periods remove these terms to first order.

    Parameters
    ----------
    times : array_like, shape (m,)
        Uniform sample times (s) covering at least two whole periods.
    states : array_like, shape (m, 6)
        ECI states at ``times`` (km, km/s).
    period : float
        Averaging window (s), the (anomalistic) orbital period.
    mu : float, optional
        Gravitational parameter (km^3/s^2).

    Returns
    -------
    mean_times, raan, argp : ndarray, shape (w,)
        Mid-times (s) of the w whole windows and the averages of the unwrapped node and
        argument of perigee over each (rad).

    Raises
    ------
    ValueError
        On shape mismatches, times that do not increase, fewer than two whole periods,
        or singular orbits (see :func:`state_to_elements`).

    Notes
    -----
    Orbit averaging of osculating elements (mean elements, Vallado Ch. 9).
    """
    times = as_finite_array(times, "times", ndim=1)
    if len(times) < 2 or np.any(np.diff(times) <= 0):
        raise ValueError("times must be an increasing grid of at least 2 samples")
    states = vectors(states, "states")
    if states.shape != (len(times), 6):
        raise ValueError(f"states must have shape ({len(times)}, 6), got {states.shape}")
    period = positive(period, "period")
    # Rounded so that samples on a window boundary are not split by round-off.
    windows = np.floor(np.round((times - times[0]) / period, 9)).astype(int)
    whole = windows < windows[-1]  # the last window is (usually) incomplete
    if windows[-1] < 2:
        raise ValueError("times must cover at least two whole periods")
    elements = state_to_elements(states[whole], mu)
    counts = np.bincount(windows[whole])
    average = lambda values: np.bincount(windows[whole], values) / counts  # noqa: E731
    return (
        average(times[whole]),
        average(np.unwrap(elements.raan)),
        average(np.unwrap(elements.argp)),
    )


def orbit_averaged_rates(times, states, period, mu=MU_EARTH):
    """Secular drift of the node and of the argument of perigee fitted to a propagation.

    Parameters
    ----------
    times, states, period, mu
        As :func:`orbit_averages`.

    Returns
    -------
    raan_dot, argp_dot : float
        Slopes (rad/s) of least-squares lines through the orbit averages.

    Raises
    ------
    ValueError
        As :func:`orbit_averages`.

    Notes
    -----
    Orbit averages (:func:`orbit_averages`) fitted with ``numpy.polyfit``.
    """
    mean_times, *angles = orbit_averages(times, states, period, mu)
    return tuple(float(np.polyfit(mean_times, angle, 1)[0]) for angle in angles)
