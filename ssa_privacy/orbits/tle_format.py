"""The two-line element set (TLE) format: its fields, their validation, SGP4's error codes.

A TLE line has 69 fixed columns. Line 1 holds the catalogue number, classification,
international designator, epoch, the first and second derivatives of the mean motion, the
drag term B*, the ephemeris type and the element set number; line 2 the catalogue number
again, inclination, right ascension of the ascending node, eccentricity, argument of
perigee, mean anomaly, mean motion and revolution number. Each line ends with a mod-10
checksum. :func:`validate_tle` checks all of it before SGP4 sees the lines (SGP4's own
parser reads whatever stands in the columns), :func:`describe_sgp4_error` translates
SGP4's error codes into the fields they concern, and every fault is a one-line
:class:`TLEError` naming the element set, the line and the field with its columns. See
:doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, P. Crawford, R. Hujsak, T. S. Kelso, "Revisiting Spacetrack Report #3",
AIAA 2006-6753 (the TLE format, SGP4 and its error codes); the ``sgp4`` package by
B. Rhodes (``sgp4.io``: the layout checks of ``twoline2rv`` and the checksum).
"""

import re
from numbers import Integral

from sgp4.alpha5 import from_alpha5
from sgp4.api import SGP4_ERRORS
from sgp4.io import compute_checksum, verify_checksum

__all__ = [
    "SGP4_ERROR_FIELDS",
    "TLEError",
    "TLE_LINE_LENGTH",
    "describe_sgp4_error",
    "sgp4_error_location",
    "validate_tle",
]

#: Columns of a TLE line.
TLE_LINE_LENGTH = 69

_ANGLE = (r" *\d+\.\d{4}", "NNN.NNNN (deg)")
_EXPONENTIAL = (r"[ +-]\d{5}[+-]\d", "+NNNNN-N (implied leading decimal point, exponent)")
_CATALOGUE = (r" *\d+|[A-HJ-NP-Z]\d{4}", "NNNNN (digits, or a letter and 4 digits)")
#: Fields of each line: name, first and last column (1-based), syntax, readable form.
_FIELDS = {
    1: (
        ("line number", 1, 1, "1", "1"),
        ("catalogue number", 3, 7) + _CATALOGUE,
        ("classification", 8, 8, "[UCS ]", "U, C or S"),
        ("international designator", 10, 17, r"\d{5}[A-Z]{1,3} *| {8}", "YYNNNAAA"),
        ("epoch", 19, 32, r"\d{2}[ \d]{2}\d\.\d{8}", "YYDDD.DDDDDDDD (year, day of year)"),
        ("first derivative of mean motion", 34, 43, r"[ +-]\.\d{8}", "+.NNNNNNNN (rev/day^2)"),
        ("second derivative of mean motion", 45, 52) + _EXPONENTIAL,
        ("drag term B*", 54, 61) + _EXPONENTIAL,
        ("ephemeris type", 63, 63, r"[\d ]", "N (a digit)"),
        ("element set number", 65, 68, r" *\d*", "NNNN"),
        ("checksum", 69, 69, r"\d", "N (a digit)"),
    ),
    2: (
        ("line number", 1, 1, "2", "2"),
        ("catalogue number", 3, 7) + _CATALOGUE,
        ("inclination", 9, 16) + _ANGLE,
        ("right ascension of the ascending node", 18, 25) + _ANGLE,
        ("eccentricity", 27, 33, r"\d{7}", "NNNNNNN (implied leading decimal point)"),
        ("argument of perigee", 35, 42) + _ANGLE,
        ("mean anomaly", 44, 51) + _ANGLE,
        ("mean motion", 53, 63, r" *\d+\.\d{8}", "NN.NNNNNNNN (rev/day)"),
        ("revolution number at epoch", 64, 68, r" *\d*", "NNNNN"),
        ("checksum", 69, 69, r"\d", "N (a digit)"),
    ),
}
#: Closed ranges (deg) of the angles, checked after the syntax.
_RANGES = {
    "inclination": (0.0, 180.0),
    "right ascension of the ascending node": (0.0, 360.0),
    "argument of perigee": (0.0, 360.0),
    "mean anomaly": (0.0, 360.0),
}
_DRAG = (("drag term B*", 1, 54, 61), ("first derivative of mean motion", 1, 34, 43))
_ECCENTRICITY = ("eccentricity", 2, 27, 33)
_MEAN_MOTION = ("mean motion", 2, 53, 63)
#: The fields each SGP4 error code concerns: (field, line, first column, last column).
SGP4_ERROR_FIELDS = {
    1: (_ECCENTRICITY,) + _DRAG,
    2: (_MEAN_MOTION,) + _DRAG,
    3: (_ECCENTRICITY, _MEAN_MOTION),
    4: (_ECCENTRICITY, _MEAN_MOTION),
    5: (_MEAN_MOTION, _ECCENTRICITY),
    6: (_MEAN_MOTION,) + _DRAG,
}


def _columns(first, last):
    return f"column {first}" if first == last else f"columns {first}-{last}"


def _label(name, catalogue_number):
    """``element set 'NAME' (catalogue number N)``, an Alpha-5 number with its value."""
    label = f"element set {name!r}" if name is not None else "element set"
    if not catalogue_number:
        return label
    if catalogue_number[0].isalpha():
        return f"{label} (catalogue number {catalogue_number}, Alpha-5 for " + (
            f"{from_alpha5(catalogue_number)})"
        )
    return (
        label if catalogue_number in str(name) else f"{label} (catalogue number {catalogue_number})"
    )


class TLEError(ValueError):
    """A two-line element set that is not valid, with where the fault is.

    Parameters
    ----------
    problem : str
        What is wrong (one line).
    name : str, optional
        The element set's name, when known.
    catalogue_number : str, optional
        Its catalogue number (line 1, columns 3-7), when readable; an Alpha-5 number
        (``"C3456"``) is named with its value (123456).
    line : {1, 2}, optional
        The TLE line at fault.
    field : str, optional
        The field at fault, e.g. ``"inclination"``.
    columns : tuple of int, optional
        First and last column (1-based) of the field.
    file : str, optional
        The catalogue file, when read from one.
    file_line : int, optional
        The line number in ``file`` (1-based).

    Notes
    -----
    A subclass of :class:`ValueError`; ``str(error)`` is one line naming the file and
    its line (if any), the element set, the TLE line, the field and its columns.
    """

    def __init__(
        self,
        problem,
        *,
        name=None,
        catalogue_number=None,
        line=None,
        field=None,
        columns=None,
        file=None,
        file_line=None,
    ):
        self.problem, self.name, self.catalogue_number = problem, name, catalogue_number
        self.line, self.field, self.columns = line, field, columns
        self.file, self.file_line = file, file_line
        parts = []
        if file is not None:
            parts.append(f"{file}, line {file_line}" if file_line else str(file))
        if name is not None or catalogue_number is not None:
            parts.append(_label(name, catalogue_number))
        if line is not None:
            parts.append(f"TLE line {line}")
        if field is not None:
            parts.append(f"{field} ({_columns(*columns)})" if columns else field)
        super().__init__(": ".join([", ".join(parts), problem]) if parts else problem)

    def located(self, file, file_line):
        """The same error, placed at a line of a catalogue file.

        Parameters
        ----------
        file : str
            The file.
        file_line : int
            The line number in the file (1-based).

        Returns
        -------
        TLEError
            The same problem, element set, line and field, with the file and its line.
        """
        return TLEError(
            self.problem,
            name=self.name,
            catalogue_number=self.catalogue_number,
            line=self.line,
            field=self.field,
            columns=self.columns,
            file=file,
            file_line=file_line,
        )


def _layout(line_number):
    """Fields and the blanks between them in column order: (name, first, last, regex, form)."""
    layout, column = [], 1
    for name, first, last, pattern, form in _FIELDS[line_number]:
        layout += [
            ("blank separator", c, c, re.compile(" "), "a blank") for c in range(column, first)
        ]
        layout.append((name, first, last, re.compile(pattern), form))
        column = last + 1
    return tuple(layout)


_LAYOUT = {1: _layout(1), 2: _layout(2)}


def _field_at(line_number, column):
    """The field of a line holding a column (1-based), or the blank between fields."""
    return next((n, (a, b)) for n, a, b, *_ in _LAYOUT[line_number] if a <= column <= b)


def _check_line(text, line_number, argument, where):
    """Validate one TLE line; return it without trailing blanks or line ends."""
    if not isinstance(text, str):
        raise TypeError(f"{argument} must be a str (a TLE line), got {type(text).__name__}")
    line = text.rstrip()
    bad = next((i for i, c in enumerate(line) if not (" " <= c <= "~")), None)
    if bad is not None:
        name, columns = _field_at(line_number, min(bad + 1, TLE_LINE_LENGTH))
        raise TLEError(
            f"character {line[bad]!r} at column {bad + 1} is not printable ASCII",
            line=line_number,
            field=name,
            columns=columns,
            **where,
        )
    if not line or line[0] != str(line_number):
        found = repr(line[0]) if line else "an empty line"
        raise TLEError(
            f"found {found} where the line number {line_number} belongs (are the lines empty, "
            "swapped or shifted?)",
            line=line_number,
            field="line number",
            columns=(1, 1),
            **where,
        )
    if len(line) < TLE_LINE_LENGTH:
        name, first, last = next(f[:3] for f in _FIELDS[line_number] if f[2] > len(line))
        raise TLEError(
            f"the line has {len(line)} columns, a TLE line has {TLE_LINE_LENGTH}: this field "
            "and those after it are cut off",
            line=line_number,
            field=name,
            columns=(first, last),
            **where,
        )
    if len(line) > TLE_LINE_LENGTH:
        raise TLEError(
            f"the line has {len(line)} columns, a TLE line has {TLE_LINE_LENGTH}: "
            f"{line[TLE_LINE_LENGTH:]!r} follows the checksum",
            line=line_number,
            field="text after the checksum",
            columns=(TLE_LINE_LENGTH + 1, len(line)),
            **where,
        )
    for name, first, last, pattern, form in _LAYOUT[line_number]:
        value = line[first - 1 : last]
        if not pattern.fullmatch(value):
            problem = (
                f"found {value!r} where the format has a blank between fields (is the line "
                "shifted?)"
                if name == "blank separator"
                else f"{value!r} is not of the form {form}"
            )
            raise TLEError(problem, line=line_number, field=name, columns=(first, last), **where)
        _check_range(name, value, line_number, (first, last), where)
    return line


def _check_checksum(line, line_number, where):
    """The mod-10 checksum of column 69 (``sgp4.io.verify_checksum``)."""
    try:
        verify_checksum(line)
    except ValueError:
        raise TLEError(
            f"the line gives checksum {line[-1]} but its digits tally to "
            f"{compute_checksum(line)} (a character of the line or its checksum is wrong)",
            line=line_number,
            field="checksum",
            columns=(69, 69),
            **where,
        ) from None


def _check_range(name, value, line_number, columns, where):
    """Range checks of the numeric fields whose syntax passed."""
    problem = None
    if name in _RANGES:
        low, high = _RANGES[name]
        if not low <= float(value) <= high:
            problem = f"{float(value):g} deg is outside [{low:g}, {high:g}]"
    elif name == "mean motion" and float(value) <= 0:
        problem = f"{value.strip()} rev/day is not positive"
    elif name == "epoch" and not 1.0 <= float(value[2:]) < 367.0:
        problem = f"day of year {value[2:].strip()} is outside [1, 367)"
    if problem:
        raise TLEError(problem, line=line_number, field=name, columns=columns, **where)


def _catalogue_number(line1):
    number = line1[2:7] if isinstance(line1, str) and line1.startswith("1 ") else ""
    return number.strip() if re.fullmatch(_CATALOGUE[0], number) else None


def validate_tle(line1, line2, *, name=None):
    """Check two TLE lines against the format; return them without trailing blanks.

    Parameters
    ----------
    line1, line2 : str
        The two lines (69 columns each; trailing blanks and line ends are ignored).
    name : str, optional
        The satellite's name, used in error messages.

    Returns
    -------
    tuple of str
        ``(line1, line2)``, 69 columns each.

    Raises
    ------
    TypeError
        If a line is not a str.
    TLEError
        A :class:`ValueError` naming the line and field (with its columns) at fault: a
        wrong length, a line number other than 1/2, a character outside printable ASCII,
        a field without the syntax of the format (every fixed-column field, the blanks
        between them and the implied decimal points of eccentricity, second derivative
        of mean motion and B*), an angle, day of year or mean motion out of range, a
        wrong checksum (``sgp4.io.verify_checksum``), or different catalogue numbers on
        the two lines (compared as numbers: ``"  123"`` and ``"00123"`` are the same).

    Notes
    -----
    Vallado et al. (2006), appendix on the TLE format; the layout is also the one
    ``sgp4.io.twoline2rv`` checks (blanks and decimal points in fixed columns), made
    complete here (every field and the checksum). See :doc:`/theory/orbits-and-sensors`.

    Examples
    --------
    >>> from ssa_privacy.orbits.tle import iss_element_set
    >>> iss = iss_element_set()  # read from the installed sgp4 package
    >>> validate_tle(iss.line1, iss.line2 + "   ") == (iss.line1, iss.line2)
    True
    >>> changed = iss.line2[:9] + "6" + iss.line2[10:]  # inclination 51.6 -> 61.6 deg
    >>> try:
    ...     validate_tle(iss.line1, changed, name="ISS")
    ... except TLEError as error:
    ...     print(error.line, error.field, error.columns)
    2 checksum (69, 69)
    """
    where = {"name": name, "catalogue_number": _catalogue_number(line1)}
    line1 = _check_line(line1, 1, "line1", where)
    line2 = _check_line(line2, 2, "line2", where)
    if from_alpha5(line1[2:7]) != from_alpha5(line2[2:7]):
        raise TLEError(
            f"{line2[2:7]!r} differs from line 1's {line1[2:7]!r} (the two lines belong to "
            "different objects)",
            line=2,
            field="catalogue number",
            columns=(3, 7),
            **where,
        )
    _check_checksum(line1, 1, where)
    _check_checksum(line2, 2, where)
    return line1, line2


def describe_sgp4_error(code):
    """One-line explanation of an SGP4 error code, with the fields it concerns.

    Parameters
    ----------
    code : int
        SGP4's ``error`` (1-6).

    Returns
    -------
    str
        E.g. ``"SGP4 error 1 (mean eccentricity is outside the range 0.0 to 1.0):
        check eccentricity (line 2, columns 27-33), ..."``.

    Raises
    ------
    ValueError
        If ``code`` is not one of SGP4's error codes.

    Notes
    -----
    The codes of Vallado et al. (2006), as documented by the ``sgp4`` package: 1 mean
    eccentricity outside [0, 1), 2 mean motion below zero, 3 perturbed eccentricity
    outside [0, 1], 4 semi-latus rectum below zero, 5 (no longer used) sub-orbital epoch
    elements, 6 decayed orbit. At the epoch they point at the fields of line 2; later
    they come from the secular drag terms of line 1.
    """
    if isinstance(code, bool) or not isinstance(code, Integral) or code not in SGP4_ERROR_FIELDS:
        raise ValueError(f"code must be an SGP4 error code 1-6, got {code!r}")
    fields = ", ".join(
        f"{name} (line {line}, {_columns(first, last)})"
        for name, line, first, last in SGP4_ERROR_FIELDS[int(code)]
    )
    return f"SGP4 error {int(code)} ({SGP4_ERRORS[int(code)]}): check {fields}"


def sgp4_error_location(code):
    """Where an SGP4 error code points first, as keyword arguments of :class:`TLEError`.

    Parameters
    ----------
    code : int
        SGP4's ``error`` (1-6).

    Returns
    -------
    dict
        ``{"line": 1 or 2, "field": str, "columns": (first, last)}``: the first field of
        :data:`SGP4_ERROR_FIELDS` for the code.

    Raises
    ------
    ValueError
        If ``code`` is not one of SGP4's error codes.
    """
    describe_sgp4_error(code)
    name, line, first, last = SGP4_ERROR_FIELDS[int(code)][0]
    return {"line": line, "field": name, "columns": (first, last)}
