"""Two-line element sets (TLEs) through the ``sgp4`` package: real orbits, read at run time.

The ``sgp4`` package ships real element sets: ``SGP4-VER.TLE``, the 33 verification
satellites of the SGP4 standard, and an ISS element set in ``sgp4/tests.py``. They are
read from the installed package (never copied into this repository, never downloaded).

An :class:`ElementSet` wraps ``sgp4.api.Satrec``: SGP4 propagation (WGS-72 constants, as
the standard prescribes) returning states in the TEME frame (true equator, mean equinox
of date) in km and km/s, the epoch as a Julian date (UTC) and the Greenwich mean sidereal
time at epoch (IAU-82, the angle that rotates TEME into the pseudo-Earth-fixed frame,
Vallado et al. 2006). Times are seconds since the element set's epoch.

References
----------
D. A. Vallado, P. Crawford, R. Hujsak, T. S. Kelso, "Revisiting Spacetrack Report #3",
AIAA 2006-6753 (SGP4 and the TEME frame); the ``sgp4`` package by B. Rhodes.
"""

import re
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
from sgp4.api import SGP4_ERRORS, Satrec

from ssa_privacy._validation import as_finite_array

#: NORAD catalogue number of the International Space Station.
ISS_CATALOG_NUMBER = "25544"
#: Columns of a TLE line; ``SGP4-VER.TLE`` appends start/stop/step times after them.
TLE_LINE_LENGTH = 69
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class ElementSet:
    """One satellite's two-line element set, with SGP4 propagation.

    Parameters
    ----------
    name : str
        Label of the satellite (catalogue number or common name).
    line1, line2 : str
        The two lines of the element set (columns 1-69 are used).

    Attributes
    ----------
    satrec : sgp4.api.Satrec
        The initialised SGP4 record (WGS-72 constants).

    Raises
    ------
    ValueError
        If the lines are not a valid element set (SGP4 initialisation reports an error).

    Notes
    -----
    Vallado et al. (2006), "Revisiting Spacetrack Report #3".
    """

    name: str
    line1: str
    line2: str
    satrec: Satrec = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        line1, line2 = self.line1[:TLE_LINE_LENGTH], self.line2[:TLE_LINE_LENGTH]
        if not (line1.startswith("1 ") and line2.startswith("2 ")):
            raise ValueError(f"line1/line2 of {self.name!r} are not the two lines of a TLE")
        satrec = Satrec.twoline2rv(line1, line2)
        if satrec.error:
            raise ValueError(f"element set {self.name!r}: {SGP4_ERRORS[satrec.error]}")
        for name, value in (("line1", line1), ("line2", line2), ("satrec", satrec)):
            object.__setattr__(self, name, value)

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
            TEME position (km) and velocity (km/s).

        Raises
        ------
        ValueError
            If the times are not finite, or SGP4 reports an error (e.g. decayed orbit).

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
            raise ValueError(
                f"SGP4 failed for {self.name!r} at t = {times[first]} s: "
                f"{SGP4_ERRORS[int(errors[first])]}"
            )
        return np.hstack([r, v])

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
        Keyed by the five-digit catalogue number (e.g. ``"06251"``), in file order. The
        file deliberately includes element sets that SGP4 rejects at initialisation (to
        test its error codes); they are left out.

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
        if not Satrec.twoline2rv(one[:TLE_LINE_LENGTH], two[:TLE_LINE_LENGTH]).error:
            sets[key] = ElementSet(key, one, two)
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
