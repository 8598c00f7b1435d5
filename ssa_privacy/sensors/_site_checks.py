"""The checks of a site sensor's name and field of regard (:mod:`ssa_privacy.sensors.stations`).

A sensor's name must be one line of visible text, as every output holds it
(:func:`sensor_name_problem`); its azimuth sector and range limit, when given, must describe a
field of regard (:func:`_checked_sector`, :func:`_checked_range_max`). Each fault is a
one-line error naming the field.
"""

import unicodedata

import numpy as np

from ssa_privacy._internal.validation import positive, real_array

__all__ = []

#: Unicode categories a sensor's name may not hold: control characters (Cc: line feed,
#: tab, NUL ...), invisible format characters (Cf: zero-width space, direction marks),
#: lone surrogates (Cs, which UTF-8 cannot encode) and line and paragraph separators
#: (Zl, Zp). Tables, JSON and CCSDS messages hold a name on one line of visible text.
_NAME_UNFIT = ("Cc", "Cf", "Cs", "Zl", "Zp")


def sensor_name_problem(name):
    """What makes a sensor's name unfit for the outputs, or None.

    Parameters
    ----------
    name : str
        The sensor's name.

    Returns
    -------
    str or None
        The problem, worded to follow the field's name in an error message (``"must not
        be empty or blank, got ''"``); None for a fit name.

    Notes
    -----
    The outputs (CSV rows, ``results.json``, figure labels, CCSDS ``PARTICIPANT_1``)
    hold a name as one line of visible text, compared as written: it must not be empty
    or blank, begin or end with blanks, or hold a control or invisible character
    (Unicode categories Cc, Cf, Cs, Zl, Zp).
    """
    if not name.strip():
        return f"must not be empty or blank, got {name!r}"
    if name != name.strip():
        return f"must not begin or end with blanks, got {name!r}"
    bad = next((c for c in name if unicodedata.category(c) in _NAME_UNFIT), None)
    if bad is not None:
        kind = "a control" if unicodedata.category(bad) == "Cc" else "an invisible"
        return (
            f"must be one line of visible text, got {name!r}, which holds U+{ord(bad):04X} "
            f"({kind} character)"
        )
    return None


def _checked_sector(sector):
    """An azimuth sector (from, to) in degrees as a tuple of floats, or None.

    Raises
    ------
    TypeError
        If the values are not real numbers.
    ValueError
        Naming ``azimuth_sector``, unless it is two finite azimuths in [0, 360] of
        non-zero width (``from == to`` is refused; ``(0, 360)`` is the full circle).
    """
    if sector is None:
        return None
    values = real_array(sector, "azimuth_sector")
    if values.shape != (2,):
        raise ValueError(
            f"azimuth_sector must be a pair (from, to) of azimuths in degrees, got {sector!r}"
        )
    if not np.all(np.isfinite(values)) or np.any((values < 0) | (values > 360)):
        raise ValueError(
            f"azimuth_sector must hold two azimuths in [0, 360] degrees, got {sector!r}"
        )
    start, stop = (float(v) for v in values)
    if _sector_width(start, stop) == 0:
        raise ValueError(
            f"azimuth_sector must have a non-zero width (from != to), got {sector!r}; "
            "use (0, 360) for the full circle"
        )
    return start, stop


def _sector_width(start, stop):
    """Clockwise width (deg) from ``start`` to ``stop``, both in [0, 360]; 360 for (0, 360)."""
    return stop - start if stop > start else stop - start + 360.0 if stop < start else 0.0


def _checked_range_max(range_max):
    """``range_max`` as a positive float (km), or None.

    Raises
    ------
    TypeError, ValueError
        Naming ``range_max``, as :func:`ssa_privacy._internal.validation.positive`.
    """
    return None if range_max is None else positive(range_max, "range_max")
