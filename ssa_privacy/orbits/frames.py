"""Local orbital frames: the RSW (radial, along-track, cross-track) axes and the Hill frame.

The Hill frame has the RSW axes and rotates with the reference orbit; a relative state
in it maps to a relative ECI state through the transport theorem. See
:doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., 2013: §3.3
(RSW frame) and Ch. 6 (relative motion).
"""

import numpy as np

from ssa_privacy.orbits._checks import orbital_states
from ssa_privacy.orbits.elements import angular_momentum

__all__ = [
    "hill_to_inertial",
    "rsw_frame",
]


def rsw_frame(states):
    """Radial, along-track and cross-track unit vectors of ECI states.

    Parameters
    ----------
    states : array_like, shape (..., 6)
        ECI states, km and km/s.

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Rows ``R = r / |r|``, ``W = h / |h|`` and ``S = W x R``, ordered (R, S, W): a
        rotation taking ECI vectors to RSW components.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional, or a state has a zero
        position or zero angular momentum (the frame is undefined).
    TypeError
        If the states are not real numbers.

    Notes
    -----
    Vallado §3.3, the RSW (satellite coordinate) system.
    """
    states = orbital_states(states, "states")
    radial = states[..., :3] / np.linalg.norm(states[..., :3], axis=-1, keepdims=True)
    h = angular_momentum(states)
    cross = h / np.linalg.norm(h, axis=-1, keepdims=True)
    return np.stack([radial, np.cross(cross, radial), cross], axis=-2)


def hill_to_inertial(states):
    """Linear map from a relative state in the Hill frame to the relative ECI state.

    Parameters
    ----------
    states : array_like, shape (..., 6)
        ECI states of the reference (km, km/s).

    Returns
    -------
    ndarray, shape (..., 6, 6)
        ``T = [[R^T, 0], [R^T [w x], R^T]]`` with ``R`` from :func:`rsw_frame` (the Hill
        axes x radial, y along-track, z cross-track) and ``w = |r x v| / |r|^2`` the
        frame's angular rate about its z axis: ``(dr, dv)_ECI = T (dr, dv)_Hill``. A Hill
        covariance ``S`` maps to ``T S T^T``.

    Raises
    ------
    ValueError
        If the states are not finite or not 6-dimensional, or a state has a zero
        position or zero angular momentum (the frame is undefined).
    TypeError
        If the states are not real numbers.

    Notes
    -----
    Transport theorem for the rotating Hill frame; Vallado Ch. 6 (relative motion).
    """
    states = orbital_states(states, "states")
    to_eci = np.swapaxes(rsw_frame(states), -1, -2)
    rate = np.linalg.norm(angular_momentum(states), axis=-1) / np.sum(states[..., :3] ** 2, axis=-1)
    spin = np.zeros(states.shape[:-1] + (3, 3))
    spin[..., 0, 1], spin[..., 1, 0] = -rate, rate
    T = np.zeros(states.shape[:-1] + (6, 6))
    T[..., :3, :3] = T[..., 3:, 3:] = to_eci
    T[..., 3:, :3] = to_eci @ spin
    return T
