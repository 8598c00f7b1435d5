"""Input checks shared by the orbit and sensor modules."""

import numpy as np

from ssa_privacy._internal.validation import as_finite_array, real_array

__all__ = [
    "DEGENERATE_RTOL",
    "MIN_PERIGEE_ALTITUDE",
    "PARABOLIC_RTOL",
    "earth_orbits",
    "orbital_states",
    "times_for",
    "vectors",
]

#: A state is degenerate (no orbital plane) when ``|r x v| <= DEGENERATE_RTOL |r| |v|``.
DEGENERATE_RTOL = 1e-12
#: Lowest osculating perigee altitude (km) of an Earth orbit: below about 80 km the
#: atmosphere brings an object down within a revolution, a motion that a drag-free model
#: does not describe (the re-entry interface is conventionally put at 120 km).
MIN_PERIGEE_ALTITUDE = 80.0
#: An orbit is parabolic to rounding when ``|E| <= PARABOLIC_RTOL mu / r``: the specific
#: energy ``E = |v|^2 / 2 - mu / r`` is a difference of two terms of size ``mu / r``, each
#: computed to a few units in the last place.
PARABOLIC_RTOL = 1e-12


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


def _rows_of_six(value, name):
    """Name the first row of a ragged sequence of states that is not a 6-vector."""
    if isinstance(value, list | tuple) and value and np.ndim(value[0]) >= 1:
        for n, row in enumerate(value):
            if np.shape(row) != (6,):
                raise ValueError(
                    f"{name}[{n}] must be a state of 6 numbers (km, km/s), got shape "
                    f"{np.shape(row)}"
                )


def _conic(states, mu):
    """Radius (km), specific Keplerian energy (km^2/s^2) and perigee radius (km) of each state.

    The perigee radius is ``p / (1 + e)`` with ``p = h^2 / mu`` and ``e^2 = 1 + 2 E h^2 /
    mu^2`` (Vallado Algorithm 9), free of the cancellation of ``a (1 - e)`` near ``e = 1``.
    """
    r = np.linalg.norm(states[:, :3], axis=1)
    energy = 0.5 * np.sum(states[:, 3:] ** 2, axis=1) - mu / r
    h2 = np.sum(np.cross(states[:, :3], states[:, 3:]) ** 2, axis=1)
    e = np.sqrt(np.maximum(0.0, 1.0 + 2.0 * energy * h2 / mu**2))
    return r, energy, h2 / mu / (1.0 + e)


def earth_orbits(value, name, mu, radius, batch):
    """Return initial states that are finite, bound Earth orbits with a perigee above 80 km.

    Parameters
    ----------
    value : array_like, shape (6,) or (N, 6)
        ECI states (km, km/s); shape (6,) only when ``batch`` is False.
    name : str
        The argument's name for error messages; object ``n`` of a batch is ``name[n]``.
    mu : float
        Gravitational parameter (km^3/s^2).
    radius : float
        Equatorial radius of the Earth (km), the surface and the origin of altitudes.
    batch : bool
        Whether ``value`` must be a batch ``(N, 6)`` (True) or may be one state (6,).

    Returns
    -------
    ndarray, shape (6,) or (N, 6)
        The states as floats.

    Raises
    ------
    TypeError
        If the states are not real numbers.
    ValueError
        On a wrong shape, or naming the first refused object (``name[n]``) and how many
        are refused: a non-finite entry, a position below the surface (``|r| < radius``),
        a parabolic or hyperbolic orbit (specific energy ``>= 0``, to rounding
        :data:`PARABOLIC_RTOL`) or a perigee altitude below :data:`MIN_PERIGEE_ALTITUDE`.

    Notes
    -----
    The energy and perigee are those of the osculating Keplerian conic (Vallado
    Algorithm 9); the J2 perturbation moves a perigee by a few km.
    """
    _rows_of_six(value, name)
    states = real_array(value, name)
    if states.ndim not in ((2,) if batch else (1, 2)) or states.shape[-1] != 6:
        shape = "(N, 6)" if batch else "(6,) or (N, 6)"
        raise ValueError(f"{name} must have shape {shape}, got {states.shape}")
    rows = np.atleast_2d(states)
    with np.errstate(invalid="ignore", divide="ignore"):
        r, energy, perigee = _conic(rows, mu)
        escape = energy >= -PARABOLIC_RTOL * mu / r
        kinds = np.where(energy > PARABOLIC_RTOL * mu / r, "hyperbolic", "parabolic")
    finite = np.all(np.isfinite(rows), axis=1)
    checks = (
        (~finite, lambda n: f"entries are not finite (NaN or inf): {rows[n].tolist()}"),
        (
            finite & (r < radius),
            lambda n: f"position radius {r[n]:.1f} km is below the Earth's surface ({radius} km)",
        ),
        (
            finite & (r >= radius) & escape,
            lambda n: (
                f"{kinds[n]} orbit (specific energy {energy[n]:.6g} km^2/s^2 >= 0): "
                "only bound (elliptic) Earth orbits are propagated"
            ),
        ),
        (
            finite & (r >= radius) & ~escape & (perigee - radius < MIN_PERIGEE_ALTITUDE),
            lambda n: (
                f"perigee altitude {perigee[n] - radius:.1f} km is below "
                f"{MIN_PERIGEE_ALTITUDE:g} km (the object re-enters; the model has no drag)"
            ),
        ),
    )
    refused = np.any([mask for mask, _ in checks], axis=0)
    if np.any(refused):
        n = int(np.flatnonzero(refused)[0])
        label = f"{name}[{n}]" if states.ndim == 2 else name
        reason = next(describe(n) for mask, describe in checks if mask[n])
        more = f" ({np.count_nonzero(refused)} of {len(rows)} objects refused)"
        raise ValueError(f"{label}: {reason}" + (more if np.count_nonzero(refused) > 1 else ""))
    return states
