"""Input checks shared by the package: every public function validates its arguments here.

Each check names the offending argument as the caller wrote it and says in one line what
was wrong: a :class:`TypeError` for a value of the wrong type (None, a bool, a string or a
complex number where a real number is expected: ``float()`` would coerce them), a
:class:`ValueError` for a wrong value (NaN, inf, out of range, a wrong shape, an empty
array). :func:`scalar` is the scalar validator; :func:`positive`, :func:`non_negative`,
:func:`open_interval`, :func:`unit_interval`, :func:`positive_int` and
:func:`non_negative_int` are its shorthands; :func:`as_finite_array` checks arrays. The
matrix checks (symmetry, definiteness, numerical rank, Schur stability) live in
:mod:`ssa_privacy._internal.matrix_validation`, built on these; seeds are turned into
generators by :mod:`ssa_privacy._internal.random`.
"""

import numbers

import numpy as np

__all__ = [
    "LARGEST_COUNT",
    "as_finite_array",
    "as_matrix",
    "boolean_mask",
    "flag",
    "non_negative",
    "non_negative_int",
    "nonempty",
    "open_interval",
    "positive",
    "positive_int",
    "read_only",
    "real_array",
    "scalar",
    "scalar_or_array",
    "unit_interval",
    "vector",
    "whole_numbers",
]


#: The largest count :func:`positive_int` and :func:`non_negative_int` accept: 2^53, above
#: which not every integer is a double (a count of samples, rows or steps is far below).
LARGEST_COUNT = 2**53


def _describe(value):
    """A short description of a value for error messages: its type, and the value if short."""
    text = repr(value)
    kind = type(value).__name__
    return f"a {kind} ({text})" if len(text) <= 40 else f"a {kind}"


def _reject_non_real(value, name, what):
    """Raise TypeError unless ``value`` can be read as real numbers without coercion.

    None, booleans, strings and bytes, and complex numbers are refused by name (numpy's
    ``float()`` would read ``True`` as 1, ``'0.5'`` as 0.5 and drop an imaginary part).
    """
    if value is None:
        raise TypeError(f"{name} must be {what}, got None")
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be {what}, got a bool ({value!r})")
    if isinstance(value, str | bytes):
        raise TypeError(f"{name} must be {what}, got a string ({value!r})")
    if isinstance(value, complex | np.complexfloating):
        raise TypeError(f"{name} must be {what}, got a complex number ({value!r})")


def real_array(value, name, ndim=None):
    """Return ``value`` as a float array of real numbers (NaN and inf allowed).

    The type checks of :func:`as_finite_array` without its finiteness check, for callers
    that word their own message on a non-finite value.

    Raises
    ------
    TypeError
        If ``value`` is None, or holds booleans, strings, complex numbers or other
        objects that are not real numbers.
    ValueError
        If the array is ragged or has the wrong number of dimensions.
    """
    _reject_non_real(value, name, "an array of real numbers")
    try:
        raw = np.asarray(value)
    except ValueError:
        raise ValueError(
            f"{name} must be a rectangular array of real numbers (it is ragged)"
        ) from None
    kind = raw.dtype.kind
    if kind == "b":
        raise TypeError(f"{name} must hold real numbers, got booleans (dtype bool)")
    if kind in "USV":
        raise TypeError(f"{name} must hold real numbers, got strings (dtype {raw.dtype})")
    if kind == "c":
        raise TypeError(f"{name} must hold real numbers, got complex numbers (dtype {raw.dtype})")
    if kind == "O":
        for item in raw.flat:
            _reject_non_real(item, name, "an array of real numbers")
            if not isinstance(item, numbers.Real):
                raise TypeError(
                    f"{name} must hold real numbers, got an entry of type {type(item).__name__}"
                )
    elif kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    array = raw.astype(np.float64, copy=False)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    return array


def as_finite_array(value, name, ndim=None):
    """Return ``value`` as a float array, checking it is real, finite and of the given rank.

    Parameters
    ----------
    value : array_like
        Real numbers (nested sequences or an array).
    name : str
        The argument's name, as the caller wrote it, for error messages.
    ndim : int, optional
        Required number of dimensions.

    Returns
    -------
    ndarray
        The values as float64.

    Raises
    ------
    TypeError
        If ``value`` is None, or holds booleans, strings, complex numbers or other
        objects that are not real numbers.
    ValueError
        If the array is ragged, has the wrong number of dimensions or non-finite entries.
    """
    array = real_array(value, name, ndim)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    return array


def whole_numbers(value, name, low=1):
    """Return ``value`` (a number or an array) as ints, checking each is a whole number >= low.

    Raises
    ------
    TypeError
        As :func:`real_array`.
    ValueError
        Naming ``name``, on a non-finite, fractional or too small entry.
    """
    array = real_array(value, name)
    bad = ~(np.isfinite(array) & (array >= low) & (array == np.round(array)))
    if np.any(bad):
        first = np.ravel(array)[np.flatnonzero(bad)[0]]
        raise ValueError(f"{name} must be an integer >= {low}, got {first:g}")
    return array.astype(int)


def scalar_or_array(array):
    """A 0-dimensional result as a float, any other as the array (for functions that
    accept a number or an array and answer in kind)."""
    return float(array) if np.ndim(array) == 0 else array


def vector(value, name, size):
    """Return ``value`` as a finite float vector of shape ``(size,)``.

    Raises
    ------
    TypeError
        As :func:`as_finite_array`.
    ValueError
        Naming ``name``, on non-finite entries or another shape.
    """
    array = as_finite_array(value, name)
    if array.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {array.shape}")
    return array


def nonempty(array, name):
    """Return ``array`` after checking it has at least one entry.

    Raises
    ------
    ValueError
        Naming ``name``, if the array is empty.
    """
    if np.size(array) == 0:
        raise ValueError(f"{name} is empty (shape {np.shape(array)}): it needs at least one entry")
    return array


def _real(value, name, what="a real number"):
    """``value`` as a float (NaN and inf included) after the type checks of :func:`scalar`."""
    _reject_non_real(value, name, what)
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise TypeError(f"{name} must be {what}, got an array of shape {value.shape}")
        value = value[()]
        _reject_non_real(value, name, what)
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {what}, got {_describe(value)}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got an integer too large for a float") from None


def _show(value):
    """``repr`` of a number for messages, numpy scalars shown as plain Python numbers."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    return repr(value.item() if isinstance(value, np.generic) else value)


def scalar(
    value,
    name,
    *,
    low=None,
    high=None,
    low_open=False,
    high_open=False,
    integer=False,
    allow_inf=False,
    allow_nan=False,
):
    """The scalar validator: return ``value`` as a float (an int if ``integer``) after checking it.

    Every public function of the package that takes a number passes it through here (or
    through one of the shorthands :func:`positive`, :func:`non_negative`,
    :func:`open_interval`, :func:`positive_int`, :func:`non_negative_int`).

    Parameters
    ----------
    value : object
        The candidate: a Python or numpy real number, or a 0-dimensional array of one.
    name : str
        The argument's name as the user wrote it (the public parameter name).
    low, high : float, optional
        Bounds of the admissible range.
    low_open, high_open : bool
        Whether each bound is excluded (``low < value``) or included (``low <= value``).
    integer : bool
        Require a whole number (a float such as ``3.0`` is accepted and returned as 3).
    allow_inf : bool
        Accept ``+-inf``.
    allow_nan : bool
        Accept NaN (returned as it is, without the range check): for a quantity that is
        legitimately "not a number", such as the margin of a certificate that proves
        nothing.

    Returns
    -------
    float or int
        The checked value.

    Raises
    ------
    TypeError
        For None, a bool, a string, a complex number, an array with more than one
        dimension or any object that is not a real number, naming ``name``.
    ValueError
        For NaN (unless ``allow_nan``), an infinity (unless ``allow_inf``), a
        non-integer where an integer is required, or a value outside the range, naming
        ``name`` and the range.
    """
    what = "an integer" if integer else "a real number"
    number = _real(value, name, what)
    if np.isnan(number):
        if allow_nan and not integer:
            return number
        raise ValueError(f"{name} must be a number, got NaN")
    if np.isinf(number) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {number}")
    if integer:
        if not number.is_integer():
            raise ValueError(f"{name} must be an integer, got {_show(value)}")
        number = int(number)
    too_low = low is not None and (number <= low if low_open else number < low)
    too_high = high is not None and (number >= high if high_open else number > high)
    if too_low or too_high:
        raise ValueError(
            f"{name} must be {_range_text(low, high, low_open, high_open)}, got {_show(value)}"
        )
    return number


def _range_text(low, high, low_open, high_open):
    """``> 0``, ``>= 1``, ``in (0, 1)``, ``in [0, 1)`` ... for error messages."""
    if high is None:
        return f"{'>' if low_open else '>='} {low:g}"
    if low is None:
        return f"{'<' if high_open else '<='} {high:g}"
    return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def as_matrix(value, name, shape=None):
    """Return a finite 2-D float array, optionally of an exact ``shape``.

    ``shape`` may hold ``None`` for a free dimension.

    Raises
    ------
    ValueError
        On a wrong rank, a wrong shape, or non-finite entries.
    """
    array = as_finite_array(value, name, ndim=2)
    if shape is not None:
        for axis, (got, want) in enumerate(zip(array.shape, shape)):
            if want is not None and got != want:
                raise ValueError(
                    f"{name} has shape {array.shape}, expected {_shape_text(shape)} "
                    f"(dimension {axis} should be {want})"
                )
    return array


def _shape_text(shape):
    return "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"


def open_interval(value, name, low=0.0, high=1.0):
    """Return ``value`` as a float, checking ``low < value < high`` (:func:`scalar`).

    Raises
    ------
    TypeError
        As :func:`scalar` (None, bool, string, complex).
    ValueError
        If the value is NaN, infinite or outside the open interval.
    """
    number = _real(value, name)
    if not (np.isfinite(number) and low < number < high):
        raise ValueError(
            f"{name} must lie in the open interval ({low:g}, {high:g}), got {_show(value)}"
        )
    return number


def unit_interval(value, name, *, closed=False):
    """Return ``value`` (a number or an array) as floats, checking each lies in (0, 1).

    Parameters
    ----------
    value : float or array_like
        The candidate probabilities.
    name : str
        The argument's name in error messages.
    closed : bool, optional
        Accept the end points: ``[0, 1]`` instead of the open ``(0, 1)`` (default).

    Returns
    -------
    ndarray
        The values as a float array of the input's shape (0-dimensional for a number).

    Raises
    ------
    TypeError
        As :func:`real_array` (None, bool, string, complex).
    ValueError
        Naming ``name``, on a non-finite entry or one outside the interval.
    """
    array = real_array(value, name)
    inside = (array >= 0) & (array <= 1) if closed else (array > 0) & (array < 1)
    bad = ~(np.isfinite(array) & inside)
    if np.any(bad):
        first = float(np.ravel(array)[np.flatnonzero(bad)[0]])
        interval = "closed interval [0, 1]" if closed else "open interval (0, 1)"
        raise ValueError(f"{name} must lie in the {interval}, got {first!r}")
    return array


def positive(value, name):
    """Return ``value`` as a float, checking it is finite and strictly positive (:func:`scalar`).

    Raises
    ------
    TypeError
        As :func:`scalar` (None, bool, string, complex).
    ValueError
        If the value is NaN, infinite or not positive.
    """
    number = _real(value, name)
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be a finite positive number, got {_show(value)}")
    return number


def non_negative(value, name):
    """Return ``value`` as a float, checking it is finite and ``>= 0`` (:func:`scalar`).

    Raises
    ------
    TypeError
        As :func:`scalar`.
    ValueError
        If the value is NaN, infinite or negative.
    """
    number = _real(value, name)
    if not np.isfinite(number) or number < 0:
        raise ValueError(f"{name} must be a finite non-negative number, got {_show(value)}")
    return number


def positive_int(value, name):
    """Return ``value`` as an int, checking it is a whole number ``>= 1`` (:func:`scalar`).

    Raises
    ------
    TypeError
        As :func:`scalar` (a bool is not an integer here).
    ValueError
        If the value is not a whole number in [1, 2^53].
    """
    number = _real(value, name, "an integer")
    if not (np.isfinite(number) and number.is_integer() and number >= 1):
        raise ValueError(f"{name} must be a positive integer, got {_show(value)}")
    return _count(number, value, name)


def non_negative_int(value, name):
    """Return ``value`` as an int, checking it is a whole number ``>= 0`` (:func:`scalar`).

    Raises
    ------
    TypeError
        As :func:`scalar`.
    ValueError
        If the value is not a whole number in [0, 2^53].
    """
    number = _real(value, name, "an integer")
    if not (np.isfinite(number) and number.is_integer() and number >= 0):
        raise ValueError(f"{name} must be a non-negative integer, got {_show(value)}")
    return _count(number, value, name)


def _count(number, value, name):
    """A whole ``number`` as an int, after checking it is at most ``LARGEST_COUNT``."""
    if number > LARGEST_COUNT:
        raise ValueError(f"{name} must be an integer of at most 2^53, got {_show(value)}")
    return int(number)


def boolean_mask(value, name, size):
    """Return ``value`` as a boolean array of shape ``(size,)``.

    An integer array is refused: reading ``[0, 1, 2]`` as booleans would silently turn
    indices into a mask.

    Raises
    ------
    TypeError
        If the values are not booleans (``numpy.bool_`` or Python ``bool``).
    ValueError
        If the shape is not ``(size,)``.
    """
    if value is None:
        raise TypeError(f"{name} must be a boolean mask of length {size}, got None")
    mask = np.asarray(value)
    if mask.dtype.kind != "b" and not (
        mask.dtype.kind == "O" and all(isinstance(v, bool | np.bool_) for v in mask.flat)
    ):
        raise TypeError(
            f"{name} must be a boolean mask (dtype bool) of length {size}, got dtype "
            f"{mask.dtype}: pass a comparison such as indices == k, not indices"
        )
    if mask.shape != (size,):
        raise ValueError(f"{name} must be a boolean mask of length {size}, got shape {mask.shape}")
    return mask.astype(bool)


def read_only(array):
    """A read-only view of ``array``, for the attributes of a frozen object.

    The caller's array is not changed (only the view is locked): the object cannot be
    mutated through its attribute, so what it derived from it stays true.

    Parameters
    ----------
    array : ndarray
        The validated array.

    Returns
    -------
    ndarray
        A view that refuses writes (``ValueError: assignment destination is read-only``).
    """
    view = array.view()
    view.flags.writeable = False
    return view


def flag(value, name):
    """Return ``value`` after checking it is a bool (``numpy.bool_`` included).

    Raises
    ------
    TypeError
        Naming ``name``, for any other type (a string ``"False"`` is truthy).
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {_describe(value)}")
    return bool(value)
