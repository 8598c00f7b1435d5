"""Two-line element sets (TLEs) through the ``sgp4`` package: real orbits, read at run time.

The ``sgp4`` package ships real element sets: ``SGP4-VER.TLE``, the 33 verification
satellites of the SGP4 standard, and an ISS element set in ``sgp4/tests.py``. They are
read from the installed package (never copied into this repository, never downloaded).
Whole catalogues in the three-line format (a name line, then lines 1 and 2), in the
plain two-line format or in both are read by :func:`read_catalogue` and, from the data
folder, :func:`load_catalogue`; :func:`ssa_privacy.orbits.catalog.read_element_sets` also reads
CCSDS OMM files (:mod:`ssa_privacy.orbits.omm`).

An :class:`ElementSet` wraps ``sgp4.api.Satrec``: SGP4 propagation (WGS-72 constants, as
the standard prescribes) returning states in the TEME frame (true equator, mean equinox
of date) in km and km/s, the epoch as a Julian date (UTC) and the Greenwich mean sidereal
time at epoch (IAU-82, the angle that rotates TEME into the pseudo-Earth-fixed frame,
Vallado et al. 2006). Times are seconds since the element set's epoch.

Every element set is validated before SGP4 sees it
(:func:`ssa_privacy.orbits.tle_format.validate_tle`, with
:class:`~ssa_privacy.orbits.tle_format.TLEError` and
:func:`~ssa_privacy.orbits.tle_format.describe_sgp4_error`): line length 69, line numbers,
the syntax and range of every fixed-column field, the checksums and matching catalogue numbers. SGP4's error
codes are reported with the fields they concern, and :meth:`ElementSet.propagate` never
returns a non-finite state. Every error is a one-line :class:`~ssa_privacy.orbits.tle_format.TLEError` naming the
element set, the line and the field with its columns. See
:doc:`/theory/orbits-and-sensors`.

References
----------
D. A. Vallado, P. Crawford, R. Hujsak, T. S. Kelso, "Revisiting Spacetrack Report #3",
AIAA 2006-6753 (SGP4, the TEME frame, the TLE format and the error codes); the ``sgp4``
package by B. Rhodes.
"""

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
from sgp4.api import Satrec

from ssa_privacy._internal.validation import as_finite_array
from ssa_privacy.orbits._element_text import decode, numbered_lines, parts
from ssa_privacy.orbits.tle_format import (  # noqa: F401 (re-exported)
    SGP4_ERROR_FIELDS,
    TLE_LINE_LENGTH,
    TLEError,
    describe_sgp4_error,
    sgp4_error_location,
    validate_tle,
)

__all__ = [
    "ACTIVE_CATALOGUE_FILE",
    "ElementSet",
    "ISS_CATALOG_NUMBER",
    "SECONDS_PER_DAY",
    "iss_element_set",
    "load_catalogue",
    "load_element_set",
    "read_catalogue",
    "verification_element_sets",
]

#: NORAD catalogue number of the International Space Station.
ISS_CATALOG_NUMBER = "25544"
SECONDS_PER_DAY = 86400.0
#: The catalogue of active satellites in the data folder (three-line format).
ACTIVE_CATALOGUE_FILE = "active_satellites_2026-03-19.tle"


@dataclass(frozen=True)
class ElementSet:
    """One satellite's two-line element set, validated, with SGP4 propagation.

    Parameters
    ----------
    name : str
        Label of the satellite (catalogue number or common name), printable text.
    line1, line2 : str
        The two lines of the element set, 69 columns each (trailing blanks ignored).

    Attributes
    ----------
    satrec : sgp4.api.Satrec
        The initialised SGP4 record (WGS-72 constants).

    Raises
    ------
    TypeError
        If ``name`` or a line is not a str.
    TLEError
        A :class:`ValueError` naming the field ``name`` if the name holds a character
        that is not printable (a tab, a line end, a control character), or the line and
        field at fault: see
        :func:`~ssa_privacy.orbits.tle_format.validate_tle`, or SGP4 initialisation failed (the error code is translated
        into the fields it concerns, :func:`~ssa_privacy.orbits.tle_format.describe_sgp4_error`).

    Notes
    -----
    Vallado et al. (2006), "Revisiting Spacetrack Report #3".
    """

    name: str
    line1: str
    line2: str
    satrec: Satrec = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {type(self.name).__name__}")
        bad = next((c for c in self.name if not c.isprintable()), None)
        if bad is not None:
            raise TLEError(
                f"the name holds {bad!r}, which is not printable (a name is one line of "
                "printable text)",
                name=self.name,
                field="name",
            )
        line1, line2 = validate_tle(self.line1, self.line2, name=self.name)
        satrec = Satrec.twoline2rv(line1, line2)
        if satrec.error:
            raise TLEError(
                f"SGP4 rejects the element set at its epoch: {describe_sgp4_error(satrec.error)}",
                name=self.name,
                catalogue_number=line1[2:7].strip(),
                **sgp4_error_location(satrec.error),
            )
        for name, value in (("line1", line1), ("line2", line2), ("satrec", satrec)):
            object.__setattr__(self, name, value)

    @property
    def catalogue_number(self):
        """Catalogue number (line 1, columns 3-7, without leading blanks)."""
        return self.line1[2:7].strip()

    @property
    def norad_id(self):
        """Catalogue number as an int: the Alpha-5 form (``"C3456"``: the letter A-Z without
        I and O counts 10-33, so 123456) decoded by SGP4 (``Satrec.satnum``)."""
        return int(self.satrec.satnum)

    @property
    def epoch_jd(self):
        """Epoch as a Julian date (UTC), whole and fractional parts added."""
        return self.satrec.jdsatepoch + self.satrec.jdsatepochF

    @property
    def gmst_epoch(self):
        """Greenwich mean sidereal time at epoch (rad, IAU-82), SGP4's ``gsto``."""
        return float(self.satrec.gsto)

    @property
    def period(self):
        """Period of the mean motion (s), ``2 pi / n`` with SGP4's mean motion ``no_kozai``."""
        return 2 * np.pi / self.satrec.no_kozai * 60.0

    def propagate(self, times):
        """SGP4 states at times since epoch, in the TEME frame.

        Parameters
        ----------
        times : array_like, shape (m,)
            Seconds since the epoch of the element set.

        Returns
        -------
        ndarray, shape (m, 6)
            TEME position (km) and velocity (km/s), all finite.

        Raises
        ------
        ValueError
            If the times are not finite, or SGP4 reports an error (e.g. decayed orbit:
            a :class:`~ssa_privacy.orbits.tle_format.TLEError` naming the first failing time and the fields the error
            code concerns), or SGP4 returns a non-finite state without an error code.

        Notes
        -----
        ``Satrec.sgp4_array`` (Vallado et al. 2006).
        """
        times = as_finite_array(times, "times", ndim=1)
        days = times / SECONDS_PER_DAY
        whole = np.full_like(days, self.satrec.jdsatepoch)
        errors, r, v = self.satrec.sgp4_array(whole, self.satrec.jdsatepochF + days)
        if np.any(errors):
            first = np.flatnonzero(errors)[0]
            code = int(errors[first])
            raise TLEError(
                f"SGP4 failed at t = {times[first]:g} s: {describe_sgp4_error(code)}",
                name=self.name,
                catalogue_number=self.catalogue_number,
                **sgp4_error_location(code),
            )
        states = np.hstack([r, v])
        finite = np.all(np.isfinite(states), axis=1)
        if not np.all(finite):
            first = np.flatnonzero(~finite)[0]
            raise TLEError(
                f"SGP4 returned a non-finite state at t = {times[first]:g} s without an error "
                "code: the element set cannot be propagated",
                name=self.name,
                catalogue_number=self.catalogue_number,
            )
        return states

    def state_at_epoch(self):
        """TEME state at the epoch; see :meth:`propagate`.

        Returns
        -------
        ndarray, shape (6,)
            SGP4's position (km) and velocity (km/s) in the TEME frame at the epoch.
        """
        return self.propagate([0.0])[0]


def _package_text(name):
    """Text of a file shipped inside the installed ``sgp4`` package."""
    path = resources.files("sgp4").joinpath(name)
    if not path.is_file():
        raise FileNotFoundError(f"{name} not found in the installed sgp4 package ({path})")
    return path.read_text(encoding="utf-8")


def iss_element_set():
    """The ISS element set of ``sgp4/tests.py`` (epoch 2020-01-01 19:42:47 UTC).

    Returns
    -------
    ElementSet
        Named ``"ISS (25544)"``.

    Raises
    ------
    FileNotFoundError
        If the installed ``sgp4`` package has no ``tests.py``.
    ValueError
        If the element set is not found in it.
    """
    text = _package_text("tests.py")
    lines = [re.search(rf"'({k} {ISS_CATALOG_NUMBER}[^']+)'", text) for k in (1, 2)]
    if not all(lines):
        raise ValueError("the ISS element set was not found in sgp4/tests.py")
    return ElementSet(f"ISS ({ISS_CATALOG_NUMBER})", lines[0].group(1), lines[1].group(1))


def verification_element_sets():
    """The element sets of ``SGP4-VER.TLE``, the SGP4 verification satellites.

    Returns
    -------
    dict of str to ElementSet
        Keyed by the five-digit catalogue number (e.g. ``"06251"``), in file order; the
        lines are cut to their 69 TLE columns (the file appends start, stop and step
        times). The file deliberately includes element sets that SGP4 rejects at
        initialisation (to test its error codes) and three (33333, 33334, 33335) whose
        checksums were not updated after their elements were edited; they are left out.

    Raises
    ------
    FileNotFoundError
        If the installed ``sgp4`` package has no ``SGP4-VER.TLE``.
    """
    lines = [
        line for line in _package_text("SGP4-VER.TLE").splitlines() if line[:2] in ("1 ", "2 ")
    ]
    sets = {}
    for one, two in zip(lines[::2], lines[1::2]):
        key = one[2:7].strip().zfill(5)
        try:
            sets[key] = ElementSet(key, one[:TLE_LINE_LENGTH], two[:TLE_LINE_LENGTH])
        except TLEError:
            continue
    return sets


def load_element_set(name):
    """An element set by name: ``"iss"`` or a catalogue number of ``SGP4-VER.TLE``.

    Parameters
    ----------
    name : str
        ``"iss"`` (case-insensitive) or a catalogue number such as ``"6251"`` or
        ``"06251"``.

    Returns
    -------
    ElementSet
        The element set read from the installed ``sgp4`` package.

    Raises
    ------
    ValueError
        If no shipped element set has that name; the message lists the known ones.
    """
    if str(name).lower() in ("iss", ISS_CATALOG_NUMBER):
        return iss_element_set()
    sets = verification_element_sets()
    key = str(name).strip().zfill(5)
    if key not in sets:
        raise ValueError(
            f"name must be 'iss' or a catalogue number of SGP4-VER.TLE "
            f"({', '.join(sets)}), got {name!r}"
        )
    return sets[key]


def _is_tle_line(text, number):
    """Whether a line is a whole TLE line ``number``: its number, a blank, a catalogue
    number and at least 60 columns (a name line never is one)."""
    return bool(re.match(rf"{number} [ \dA-Z]{{5}}", text)) and len(text) >= 60


def read_catalogue(file):
    """Read every element set of a TLE catalogue file: three-line (3LE), two-line, or both.

    Parameters
    ----------
    file : str or path-like
        The catalogue, e.g. CelesTrak's three-line format (a name line, then lines 1 and
        2) or a plain two-line file (lines 1 and 2 only, as space-track's ``tle`` format).
        Each element set may have a name line or not: a set without one is named by its
        catalogue number: a line starts a set without a name when it is a whole TLE line
        1 (or starts with ``"1 "`` and a line 2 follows), else it is a name line. Blank
        lines are skipped; a name line may start with ``"0 "`` (space-track's 3LE), which
        is dropped (a name line ``"0"`` alone names the set by its number). UTF-8 text (a
        byte-order mark starting a line is dropped), lines ending in LF, CRLF or CR.

    Returns
    -------
    list of ElementSet
        In file order, named by their name lines (a set without one by its catalogue
        number, e.g. ``"25544"`` or ``"C3456"``). Nothing is dropped: a bad element set
        is an error.

    Raises
    ------
    FileNotFoundError
        If ``file`` is not a file.
    TLEError
        A :class:`ValueError` naming the file, the line number in the file, the element
        set, the TLE line and the field at fault (see
        :func:`~ssa_privacy.orbits.tle_format.validate_tle`), a name that is not
        printable text, a file that ends inside an element set, a TLE line 2 where an
        element set starts (its line 1 missing), a file that holds no element set, or one
        that holds a CCSDS OMM (the line where it starts:
        :func:`ssa_privacy.orbits.catalog.read_element_sets` reads such files).

    Notes
    -----
    Vallado et al. (2006); see :doc:`/theory/orbits-and-sensors`.
    """
    path = Path(file)
    if not path.is_file():
        raise FileNotFoundError(f"file: TLE catalogue {str(path)!r} is not a file")
    runs = parts(numbered_lines(decode(path.read_bytes(), str(path))), str(path))
    if not runs:
        raise TLEError("the file holds no element set", file=str(path))
    omm = next((run for run in runs if run.kind == "omm"), None)
    if omm is not None:
        raise TLEError(
            "a CCSDS OMM starts here, in a TLE catalogue (read_element_sets reads a file "
            "of OMMs and TLEs)",
            file=str(path),
            file_line=omm.first_line,
        )
    return _sets_of_lines(runs[0].lines, str(path))


def _sets_of_lines(lines, file):
    """The element sets of TLE lines of ``file``: (file line, text) pairs, blank ones
    included; each set is an optional name line, then lines 1 and 2."""
    lines = [(number, text.rstrip()) for number, text in lines if text.strip()]
    sets, index = [], 0
    while index < len(lines):
        element_set, index = _set_at(lines, index, file)
        sets.append(element_set)
    return sets


def _set_at(lines, index, file):
    """The element set starting at ``lines[index]`` and the index after it."""
    number, text = lines[index]
    if _is_tle_line(text, 2):
        raise TLEError(
            "found where an element set starts (a name line or a TLE line 1): its line 1 "
            "is missing",
            catalogue_number=text[2:7].strip(),
            line=2,
            file=file,
            file_line=number,
        )
    following = lines[index + 1][1] if index + 1 < len(lines) else ""
    nameless = _is_tle_line(text, 1) or (text.startswith("1 ") and following.startswith("2 "))
    first = index if nameless else index + 1
    group = lines[first : first + 2]
    name = "" if nameless else re.sub(r"^0( |$)", "", text).strip()
    # A set without a name line, or with an empty one ("0"), is named by its number.
    name = name or (group[0][1][2:7].strip() if group else "")
    if len(group) < 2:
        raise TLEError(
            f"the file ends inside the element set that starts at line {number}: TLE "
            f"line {len(group) + 1} is missing",
            name=name,
            line=len(group) + 1,
            file=file,
            file_line=lines[-1][0],
        )
    try:
        return ElementSet(name, group[0][1], group[1][1]), first + 2
    except TLEError as error:
        at = number if error.field == "name" else group[(error.line or 1) - 1][0]
        raise error.located(file, at) from None


def load_catalogue(name=ACTIVE_CATALOGUE_FILE, path=None):
    """A three-line catalogue from the data folder (:func:`ssa_privacy.engine.data.data_file`).

    Parameters
    ----------
    name : str
        File name in the data folder (default: the active-satellite catalogue).
    path : str or path-like, optional
        Data folder; see :func:`ssa_privacy.engine.data.data_dir` for the search order.

    Returns
    -------
    list of ElementSet
        See :func:`read_catalogue`.

    Raises
    ------
    FileNotFoundError
        If the file is not found (the message names every place tried).
    TLEError
        If an element set is bad (see :func:`read_catalogue`).
    """
    from ssa_privacy.engine.data import data_file

    return read_catalogue(data_file(name, path))
