"""Input checks shared by the orbit and sensor modules."""

import numpy as np

from ssa_privacy._validation import as_finite_array

#: A state is degenerate (no orbital plane) when ``|r x v| <= DEGENERATE_RTOL |r| |v|``.
DEGENERATE_RTOL = 1e-12


def vectors(value, name, size=6):
    """Return ``value`` as a finite float array of shape ``(size,)`` or ``(..., size)``.

    Raises
    ------
    TypeError
        If the values are not real numbers.
    ValueError
        Naming ``name``, on non-finite entries or a last axis of another length.
    """
    array = as_finite_array(value, name)
    if array.ndim < 1 or array.shape[-1] != size:
        raise ValueError(f"{name} must have shape ({size},) or (..., {size}), got {array.shape}")
    return array


def orbital_states(value, name):
    """Return ECI states ``(..., 6)`` that define an orbital plane.

    A zero position, or a velocity along the position (angular momentum ``h = r x v``
    zero), leaves the radial or cross-track axis undefined: such states are refused
    instead of turning into NaN.

    Raises
    ------
    ValueError
        Naming ``name``, as :func:`vectors`, or on a zero position or ``h = 0``.
    """
    states = vectors(value, name)
    r, v = states[..., :3], states[..., 3:]
    radius = np.linalg.norm(r, axis=-1)
    if np.any(radius == 0):
        raise ValueError(f"{name} has a zero position vector: the frame is undefined")
    h = np.linalg.norm(np.cross(r, v), axis=-1)
    if np.any(h <= DEGENERATE_RTOL * radius * np.linalg.norm(v, axis=-1)):
        raise ValueError(
            f"{name} has zero angular momentum (h = r x v = 0: velocity zero or along the "
            "position): the orbital plane is undefined"
        )
    return states


def times_for(times, states, name="times"):
    """Return finite times that broadcast to the leading shape of ``states`` (or one time).

    Raises
    ------
    ValueError
        Naming ``name``, if the times are not finite or do not match the states.
    """
    times = as_finite_array(times, name)
    try:
        fits = np.broadcast_shapes(times.shape, states.shape[:-1]) == states.shape[:-1]
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"{name} has shape {times.shape} but the states {states.shape}: one time per state"
        )
    return times
