"""Earth orientation parameters (UT1 - UTC, polar motion) from the offline IERS tables.

The Earth does not turn uniformly, and its crust wobbles about the rotation axis. Two
corrections from the International Earth Rotation and Reference Systems Service (IERS)
place an Earth-fixed site in the SGP4 TEME frame to the centimetre level:

- ``UT1 - UTC`` (s): the Greenwich sidereal time is a function of UT1, while times here
  are UTC. Kept within +-0.9 s by leap seconds, it turns the Earth by
  ``omega_E (UT1 - UTC)``: up to 0.4 km on the ground.
- polar motion ``(x_p, y_p)`` (arcsec, below 0.6"): the position of the Celestial
  Intermediate Pole in the International Terrestrial Reference Frame (ITRF), up to about
  20 m on the ground.

The values come from ``finals2000A.all`` (IERS Rapid Service / Prediction Centre,
Bulletin A, with the Bulletin B final values where they exist), the copy shipped by the
``astropy-iers-data`` package and read with :class:`astropy.utils.iers.IERS_A`. Nothing
is ever downloaded: the table is read from its installed path, and astropy's automatic
download of newer tables is switched off while it is read. The table covers 1973-01-02
to about a year after the package's release; its last year is a prediction
(:attr:`EarthOrientationParameters.predicted`). :func:`iers_table_range` and
:func:`iers_table_version` describe the table for a study's provenance record.

:func:`iers_parameters` gives the parameters for a window of a study;
:meth:`ssa_privacy.sensors.geodesy.EarthRotation.at_utc` builds the Earth's rotation
from them. :data:`NEGLECTED_EFFECTS` states what is lost without them (measured against
skyfield, ``tests/test_skyfield_geometry.py``).

References
----------
G. Petit, B. Luzum (eds.), "IERS Conventions (2010)", IERS Technical Note 36, Ch. 5
(the transformation between the celestial and terrestrial systems, polar motion matrix
``W``); IERS Rapid Service / Prediction Centre, ``readme.finals2000A`` (table format);
D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., §3.7 (UT1,
polar motion, the TEME and PEF frames); Vallado et al., "Revisiting Spacetrack Report
#3", AIAA 2006-6753, Appendix C (TEME to PEF with GMST of UT1, PEF to ITRF by polar
motion).
"""

import functools
import os
from contextlib import contextmanager
from dataclasses import dataclass

import astropy_iers_data
import numpy as np

from ssa_privacy._internal.validation import as_finite_array, scalar
from ssa_privacy.orbits.catalog import utc_text

__all__ = [
    "EarthOrientationParameters",
    "IERS_TABLE_FILE",
    "MAX_POLAR_MOTION",
    "MAX_UT1_UTC",
    "MAX_UT1_UTC_RATE",
    "NEGLECTED_EFFECTS",
    "POLAR_MOTION_NEGLECTED",
    "iers_parameters",
    "iers_table_range",
    "iers_table_version",
    "offline_astropy",
]

#: Path of the IERS table read here: ``finals2000A.all`` as shipped by ``astropy-iers-data``.
IERS_TABLE_FILE = astropy_iers_data.IERS_A_FILE
#: Largest admissible ``|UT1 - UTC|`` (s): leap seconds keep it within 0.9 s.
MAX_UT1_UTC = 1.0
#: Largest admissible ``|d(UT1 - UTC)/dt|`` (s/s): the excess length of day is a few ms,
#: a rate of about 4e-8; 1e-6 (86 ms per day) flags a value in the wrong unit.
MAX_UT1_UTC_RATE = 1.0e-6
#: Largest admissible ``|x_p|`` or ``|y_p|`` (arcsec): the pole has stayed within 0.6".
MAX_POLAR_MOTION = 1.0

#: What is lost without Earth orientation parameters, measured against skyfield
#: (``tests/test_skyfield_geometry.py``: the ISS on 2020-01-01, UT1 - UTC = -0.18 s, and
#: a LEO, a GPS and a GEO satellite in June 2006, +0.20 s; pole offset 0.3 arcsec; 6
#: sites, 60 s steps over a day, 6032 samples above 5 deg elevation). With the IERS values
#: (:meth:`~ssa_privacy.sensors.geodesy.EarthRotation.at_utc`) the same comparison leaves
#: 4.7e-6 deg, 6 cm and 0.4 mm/s.
NEGLECTED_EFFECTS = (
    "UT1-UTC and polar motion neglected (Earth rotation angle: IAU-82 GMST of UTC at the "
    "inertial rate): against skyfield at |UT1-UTC| = 0.18-0.20 s and a pole offset of "
    "0.3 arcsec, up to 1.0e-2 deg in azimuth x cos(elevation), 8e-3 deg in elevation, 90 m "
    "in range and 0.8 m/s in range rate (LEO); the UT1-UTC part scales with |UT1-UTC| (up "
    "to 0.9 s: about 0.4 km and 0.05 deg); polar motion alone accounts for up to 10 m, "
    "1e-3 deg and 0.13 m/s"
)
#: What is lost when UT1 - UTC is applied but polar motion is not (same measurement).
POLAR_MOTION_NEGLECTED = (
    "polar motion neglected: against skyfield with a pole offset of 0.3 arcsec, up to 10 m "
    "in range, 1e-3 deg in angle and 0.13 m/s in range rate"
)

#: Status codes of :mod:`astropy.utils.iers` (``FROM_IERS_A_PREDICTION``).
_PREDICTION_STATUS = 2
_MJD_ZERO = 2400000.5
_SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class EarthOrientationParameters:
    """UT1 - UTC and polar motion at a UTC date, with the rate of UT1 - UTC over a window.

    Parameters
    ----------
    jd_utc : float
        Julian date (UTC) the values refer to (the start of the window).
    ut1_utc : float
        ``UT1 - UTC`` at ``jd_utc`` (s), ``|ut1_utc| <=`` :data:`MAX_UT1_UTC`.
    ut1_utc_rate : float
        Mean rate of ``UT1 - UTC`` over the window (s/s), so that
        ``UT1 - UTC ~ ut1_utc + ut1_utc_rate * t`` at ``t`` seconds after ``jd_utc``;
        ``|ut1_utc_rate| <=`` :data:`MAX_UT1_UTC_RATE`.
    polar_motion : tuple of 2 floats
        Pole coordinates ``(x_p, y_p)`` at ``jd_utc`` (arcsec), each at most
        :data:`MAX_POLAR_MOTION` in size.
    source : str
        Provenance: the table file and its version and date range
        (:func:`iers_table_version`).
    predicted : bool
        True if a value comes from the prediction part of the table (Bulletin A
        predictions, less accurate: UT1 - UTC to milliseconds after weeks).

    Raises
    ------
    ValueError
        If a value is not finite or is out of its admissible range, or ``polar_motion``
        does not hold two values.
    TypeError
        If a number is not a real number, ``source`` is not a str or ``predicted`` is
        not a bool.

    Notes
    -----
    IERS Conventions (2010), Ch. 5; the values are those of :func:`iers_parameters`.
    """

    jd_utc: float
    ut1_utc: float
    ut1_utc_rate: float
    polar_motion: tuple
    source: str
    predicted: bool

    def __post_init__(self):
        object.__setattr__(self, "jd_utc", scalar(self.jd_utc, "jd_utc"))
        ut1_utc, rate, pole = _check_orientation(self.ut1_utc, self.ut1_utc_rate, self.polar_motion)
        object.__setattr__(self, "ut1_utc", ut1_utc)
        object.__setattr__(self, "ut1_utc_rate", rate)
        object.__setattr__(self, "polar_motion", pole)
        if not isinstance(self.source, str):
            raise TypeError(f"source must be a str, got {type(self.source).__name__}")
        if not isinstance(self.predicted, bool | np.bool_):
            raise TypeError(f"predicted must be a bool, got {type(self.predicted).__name__}")
        object.__setattr__(self, "predicted", bool(self.predicted))

    def to_dict(self):
        """The parameters as plain JSON-ready values, for a provenance record.

        Returns
        -------
        dict
            ``jd_utc``, ``utc`` (ISO 8601 text), ``ut1_utc_s``, ``ut1_utc_rate_s_per_s``,
            ``polar_motion_arcsec`` (list of 2), ``source`` and ``predicted``.
        """
        return {
            "jd_utc": self.jd_utc,
            "utc": utc_text(self.jd_utc),
            "ut1_utc_s": self.ut1_utc,
            "ut1_utc_rate_s_per_s": self.ut1_utc_rate,
            "polar_motion_arcsec": list(self.polar_motion),
            "source": self.source,
            "predicted": self.predicted,
        }


def _check_orientation(ut1_utc, ut1_utc_rate, polar_motion):
    """Validate Earth orientation values; shared with :class:`~ssa_privacy.sensors.geodesy.EarthRotation`.

    Parameters
    ----------
    ut1_utc : float
        UT1 - UTC (s), at most :data:`MAX_UT1_UTC` in size.
    ut1_utc_rate : float
        Its rate (s/s), at most :data:`MAX_UT1_UTC_RATE` in size.
    polar_motion : sequence of 2 floats
        ``(x_p, y_p)`` (arcsec), each at most :data:`MAX_POLAR_MOTION` in size.

    Returns
    -------
    ut1_utc, ut1_utc_rate : float
    polar_motion : tuple of 2 floats

    Raises
    ------
    ValueError
        Naming the argument, if a value is not finite or out of range, or
        ``polar_motion`` does not hold two values.
    TypeError
        If a value is not a real number.
    """
    ut1_utc = scalar(ut1_utc, "ut1_utc", low=-MAX_UT1_UTC, high=MAX_UT1_UTC)
    rate = scalar(ut1_utc_rate, "ut1_utc_rate", low=-MAX_UT1_UTC_RATE, high=MAX_UT1_UTC_RATE)
    pole = as_finite_array(polar_motion, "polar_motion", ndim=1)
    if pole.shape != (2,):
        raise ValueError(
            f"polar_motion must hold 2 values (x_p, y_p) in arcsec, got shape {pole.shape}"
        )
    if np.any(np.abs(pole) > MAX_POLAR_MOTION):
        raise ValueError(
            f"polar_motion must lie within +-{MAX_POLAR_MOTION:g} arcsec, got "
            f"{tuple(float(p) for p in pole)}"
        )
    return ut1_utc, rate, (float(pole[0]), float(pole[1]))


@contextmanager
def offline_astropy():
    """Within the block, astropy's IERS machinery never reaches for the network.

    Sets ``astropy.utils.iers.conf.auto_download = False`` (and lifts the age limit
    ``auto_max_age``, so a table past its predictions is not reported as stale) and makes
    the table read here the Earth orientation table of astropy's time and coordinate
    transformations; the previous settings are restored on leaving the block.

    Yields
    ------
    astropy.utils.iers.IERS_A
        The table (:data:`IERS_TABLE_FILE`).

    Raises
    ------
    FileNotFoundError
        If the ``astropy-iers-data`` table is missing.

    Notes
    -----
    astropy documentation, "IERS data access" (``astropy.utils.iers``): working offline.
    """
    from astropy.utils import iers

    table = _table()
    with (
        iers.conf.set_temp("auto_download", False),
        iers.conf.set_temp("auto_max_age", None),
        iers.earth_orientation_table.set(table),
    ):
        yield table


@functools.lru_cache(maxsize=1)
def _table():
    """The IERS-A table of :data:`IERS_TABLE_FILE`, read once (about 0.7 s)."""
    from astropy.utils import iers

    if not os.path.isfile(IERS_TABLE_FILE):
        raise FileNotFoundError(
            f"the IERS table {IERS_TABLE_FILE} of astropy-iers-data is missing; "
            "reinstall astropy-iers-data"
        )
    with iers.conf.set_temp("auto_download", False):
        return iers.IERS_A.read(IERS_TABLE_FILE)


def iers_table_range():
    """First and last date of the IERS table (Julian dates, UTC).

    Returns
    -------
    first_jd, last_jd : float
        0h UTC of the first and of the last day with UT1 - UTC and polar motion values
        (the last ones predictions).

    Raises
    ------
    FileNotFoundError
        If the ``astropy-iers-data`` table is missing.
    """
    mjd = _table()["MJD"].value
    return float(mjd[0]) + _MJD_ZERO, float(mjd[-1]) + _MJD_ZERO


def _prediction_start_jd():
    """Julian date (UTC) of the first predicted row of the table."""
    return float(_table().meta["predictive_mjd"]) + _MJD_ZERO


def iers_table_version():
    """Provenance of the IERS table: file, package version, date range, start of predictions.

    Returns
    -------
    str
        E.g. ``"finals2000A.all (IERS Bulletin A/B) of astropy-iers-data 0.2026.11.2.0.34.55:
        1973-01-02 to 2027-10-29, predicted from 2026-10-23"``.

    Raises
    ------
    FileNotFoundError
        If the ``astropy-iers-data`` table is missing.
    """
    first, last = iers_table_range()
    version = getattr(astropy_iers_data, "__version__", "unknown version")
    return (
        f"{os.path.basename(IERS_TABLE_FILE)} (IERS Bulletin A/B) of astropy-iers-data "
        f"{version}: {utc_text(first)[:10]} to {utc_text(last)[:10]}, predicted from "
        f"{utc_text(_prediction_start_jd())[:10]}"
    )


def iers_parameters(jd_utc, span_days=1.0):
    """UT1 - UTC, its rate and the polar motion for a window starting at ``jd_utc``.

    Parameters
    ----------
    jd_utc : float
        Julian date (UTC) of the start of the window.
    span_days : float, optional
        Length of the window (days, > 0), default 1: the rate of UT1 - UTC is the mean
        over ``[jd_utc, jd_utc + span_days]``.

    Returns
    -------
    EarthOrientationParameters
        UT1 - UTC (s) at ``jd_utc`` and its mean rate (s/s) over the window, the polar
        motion ``(x_p, y_p)`` (arcsec) at ``jd_utc``, the table's provenance and whether
        a value is a prediction.

    Raises
    ------
    ValueError
        If ``jd_utc`` (named with its ISO date) or the end of the window lies outside the
        table (:func:`iers_table_range`), if a leap second falls within the window (UT1 -
        UTC jumps by 1 s: start the window after it), or if a value is not finite or
        ``span_days`` is not positive.
    TypeError
        If ``jd_utc`` or ``span_days`` is not a real number.
    FileNotFoundError
        If the ``astropy-iers-data`` table is missing.

    Notes
    -----
    Daily IERS values interpolated linearly in UTC (``astropy.utils.iers.IERS.ut1_utc``
    and ``pm_xy``, which remove leap-second jumps before interpolating). Over a day the
    linear UT1 - UTC stays within 0.2 ms of the table (1.2e-8 rad of rotation), and the
    pole, held at its value at ``jd_utc``, moves by under 5 mas (2.4e-8 rad): together
    under 0.25 m at a LEO satellite (measured against skyfield: 6 cm).
    """
    jd = scalar(jd_utc, "jd_utc")
    span = scalar(span_days, "span_days", low=0.0, low_open=True)
    first, last = iers_table_range()
    if not first <= jd <= last:
        raise ValueError(
            f"jd_utc = {jd!r} ({utc_text(jd)}) lies outside the IERS table "
            f"({utc_text(first)} to {utc_text(last)}, {os.path.basename(IERS_TABLE_FILE)})"
        )
    end = jd + span
    if end > last:
        raise ValueError(
            f"the window of span_days = {span:g} from jd_utc = {jd!r} ({utc_text(jd)}) ends "
            f"at {utc_text(end)}, after the end of the IERS table ({utc_text(last)})"
        )
    table = _table()
    whole = np.floor([jd, end])
    dut1, dut1_status = table.ut1_utc(whole, np.array([jd, end]) - whole, return_status=True)
    dut1 = np.asarray(dut1.to_value("s"), dtype=float)
    x_p, y_p, pole_status = table.pm_xy(whole[0], jd - whole[0], return_status=True)
    change = float(dut1[1] - dut1[0])
    if abs(change) > 0.5:
        raise ValueError(
            f"a leap second falls within the window of span_days = {span:g} from jd_utc = "
            f"{jd!r} ({utc_text(jd)}): UT1-UTC jumps from {dut1[0]:.4f} s to {dut1[1]:.4f} s, "
            "so it is not linear over the window; start the window after the leap second"
        )
    predicted = bool(
        np.any(np.asarray(dut1_status) == _PREDICTION_STATUS) or pole_status == _PREDICTION_STATUS
    )
    return EarthOrientationParameters(
        jd_utc=jd,
        ut1_utc=float(dut1[0]),
        ut1_utc_rate=change / (span * _SECONDS_PER_DAY),
        polar_motion=(float(x_p.to_value("arcsec")), float(y_p.to_value("arcsec"))),
        source=iers_table_version(),
        predicted=predicted,
    )
