"""Input checks shared by the orbit and sensor modules."""

from ssa_privacy._validation import as_finite_array


def vectors(value, name, size=6):
    """Return ``value`` as a finite float array of shape ``(size,)`` or ``(..., size)``.

    Raises
    ------
    ValueError
        Naming ``name``, on non-finite entries or a last axis of another length.
    """
    array = as_finite_array(value, name)
    if array.ndim < 1 or array.shape[-1] != size:
        raise ValueError(f"{name} must have shape ({size},) or (..., {size}), got {array.shape}")
    return array
