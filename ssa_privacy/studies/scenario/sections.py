"""The sections of a scenario file: window, objects, Earth, privacy, filter.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import re
from dataclasses import dataclass

from sgp4.alpha5 import from_alpha5

from ssa_privacy.estimation.ekf import FILTER_PSD
from ssa_privacy.orbits.catalog import REGIMES, STALENESS_DAYS, parse_utc, utc_text
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE
from ssa_privacy.privacy.notions import CONVENTIONS
from ssa_privacy.privacy.pml.passes import DESIGNERS
from ssa_privacy.sensors.earth_orientation import iers_parameters, iers_table_range
from ssa_privacy.studies.scenario.checks import (
    EARTH_ORIENTATIONS,
    LONGEST_PASS_MIN,
    MAX_PASS_SAMPLES,
    MAX_TIME_STEPS,
    MAX_WINDOW_HOURS,
    MIN_STEP_S,
    ScenarioError,
    _array,
    _budgets,
    _choice,
    _integer,
    _number,
    _positive,
    _set,
    _start_text,
    _string,
)

__all__ = [
    "DEFAULT_REGIME",
    "check_grid",
    "DEFAULT_SAMPLE",
    "EarthSpec",
    "FilterSpec",
    "ObjectsSpec",
    "PrivacySpec",
    "WindowSpec",
]

#: Regime and sample size of ``[objects]`` when neither they nor ``norad_ids`` are given:
#: 50 LEO objects, the shipped study's.
DEFAULT_REGIME, DEFAULT_SAMPLE = "leo", 50
#: A catalogue number written as text: 1 to 9 digits, or Alpha-5 (a capital letter other
#: than I and O, counting 10 to 33, then four digits: ``"C3456"`` is 123456).
_CATALOGUE_NUMBER = re.compile(r"^(?:[0-9]{1,9}|[A-HJ-NP-Z][0-9]{4})$")


class _Default:
    """The value of an ``[objects]`` key left out (its default depends on the others)."""

    def __repr__(self):
        return "DEFAULT"


_DEFAULT = _Default()


# -- sections ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowSpec:
    """The observation window: ``[window]``.

    Parameters
    ----------
    start : str, optional
        Window start, UTC in ISO 8601 (``"2026-03-20T14:12:03"``; an offset such as
        ``+02:00`` is converted to UTC; a TOML date-time is accepted and kept as text).
        None: the catalogue rule (:func:`~ssa_privacy.orbits.catalog.window_start`).
    hours : float
        Window length (h), in (0, :data:`MAX_WINDOW_HOURS`]; default 24.
    step_s : float
        Measurement interval (s), in [:data:`MIN_STEP_S`, window], and at most
        :data:`MAX_TIME_STEPS` steps in the window; default 30.
    staleness_days : float
        Element sets whose epoch is further than this from the start, either side, are left
        out (days), > 0; default :data:`~ssa_privacy.orbits.catalog.STALENESS_DAYS` (14).
    longest_pass_min : float
        A stretch in view longer than this is cut into passes of this length (min), > 0,
        at most :data:`MAX_PASS_SAMPLES` steps; default :data:`LONGEST_PASS_MIN` (20).

    Raises
    ------
    ScenarioError
        Naming the key: a value of the wrong type, out of range, a start that is not
        ISO 8601, or a grid too large to hold (the limits above, with the reasons given
        where they are defined).

    Notes
    -----
    The rules are those of the ``ssa-catalog`` study (:doc:`/studies/ssa-catalog`).
    """

    start: str | None = None
    hours: float = 24.0
    step_s: float = 30.0
    staleness_days: float = STALENESS_DAYS
    longest_pass_min: float = LONGEST_PASS_MIN

    def __post_init__(self):
        if self.start is not None:
            _set(self, "start", _start_text(self.start, "start"))
        hours, step = check_grid(self.hours, self.step_s)
        _set(self, "hours", hours)
        _set(self, "step_s", step)
        _set(self, "staleness_days", _positive(self.staleness_days, "staleness_days", "days"))
        longest = _positive(self.longest_pass_min, "longest_pass_min", "min")
        samples = longest * 60.0 / self.step_s
        if samples > MAX_PASS_SAMPLES:
            raise ScenarioError(
                f"{longest:g} min at a {self.step_s:g}-s step is {samples:,.0f} samples a "
                f"pass, more than {MAX_PASS_SAMPLES}, the most whose dense noise covariance a "
                f"run holds: at most {MAX_PASS_SAMPLES * self.step_s / 60.0:g} min at this step",
                key="longest_pass_min",
            )
        _set(self, "longest_pass_min", longest)

    @property
    def start_jd(self):
        """Julian date (UTC) of :attr:`start`, or None for the catalogue rule."""
        return None if self.start is None else parse_utc(self.start, "window.start")


def check_grid(hours, step_s):
    """A window's length and step, checked against what a run can hold.

    Parameters
    ----------
    hours : float
        Window length (h), in (0, :data:`MAX_WINDOW_HOURS`].
    step_s : float
        Measurement interval (s), in [:data:`MIN_STEP_S`, window], at most
        :data:`MAX_TIME_STEPS` steps in the window.

    Returns
    -------
    hours, step_s : float

    Raises
    ------
    ScenarioError
        Naming ``hours`` or ``step_s``, with the limit and the reason for it.

    Notes
    -----
    The limits and their reasons: :mod:`ssa_privacy.studies.scenario.checks`.
    """
    hours = _positive(hours, "hours", "h")
    if hours > MAX_WINDOW_HOURS:
        raise ScenarioError(
            f"must be at most {MAX_WINDOW_HOURS:g} h ({MAX_WINDOW_HOURS / 24:g} days), the "
            f"longest window the study integrates, got {hours:g} h",
            key="hours",
        )
    step = _positive(step_s, "step_s", "s")
    seconds = hours * 3600.0
    if step < MIN_STEP_S:
        raise ScenarioError(
            f"must be at least {MIN_STEP_S:g} s (1 ms, above the rate of any tracking "
            f"sensor), got {step:g} s",
            key="step_s",
        )
    if step > seconds:
        raise ScenarioError(
            f"must be at most the window ({hours:g} h = {seconds:g} s), got {step:g} s",
            key="step_s",
        )
    if seconds / step > MAX_TIME_STEPS:
        raise ScenarioError(
            f"{step:g} s over a window of {hours:g} h makes {seconds / step:,.0f} time "
            f"steps, more than {MAX_TIME_STEPS:,}, the most a run holds: at least "
            f"{seconds / MAX_TIME_STEPS:g} s for this window",
            key="step_s",
        )
    return hours, step


@dataclass(frozen=True)
class ObjectsSpec:
    """The objects tracked: ``[objects]``.

    Parameters
    ----------
    catalogue : str
        Element-set file: TLE, 3LE or CCSDS OMM (KVN or XML). A relative name is looked up
        beside the scenario file, then in the data folder (:func:`resolve`). Default
        ``active_satellites_2026-03-19.tle``.
    norad_ids : sequence of int or str, optional
        Exactly these catalogue numbers (distinct, positive): integers, or text as a TLE
        writes them, digits or Alpha-5 (``"C3456"`` for 123456: a capital letter other than
        I and O, counting 10 to 33, then four digits), kept as ints (the
        ``ElementSet.norad_id`` the study matches). Excludes ``regime`` and ``sample``.
    regime : {"leo", "meo", "geo", "all"}, optional
        Regime sampled (:mod:`ssa_privacy.orbits.catalog`); without ``norad_ids`` the
        default is :data:`DEFAULT_REGIME` (``"leo"``), with them it is None.
    sample : int or "all", optional
        Objects drawn from the regime, seeded by the run's seed; ``"all"`` (kept as None):
        every object of the regime. Without ``norad_ids`` the default is
        :data:`DEFAULT_SAMPLE` (50), with them it is None.

    Raises
    ------
    ScenarioError
        Naming the key: wrong type, an empty or repeated catalogue number, text that is
        not a catalogue number, a regime not known, or ``norad_ids`` together with
        ``regime`` or ``sample``.

    Notes
    -----
    Sampling: :func:`~ssa_privacy.orbits.catalog.select_objects`. Alpha-5:
    ``sgp4.alpha5.from_alpha5`` (the decoding of ``ElementSet.norad_id``).
    """

    catalogue: str = ACTIVE_CATALOGUE_FILE
    norad_ids: tuple | None = None
    regime: str | None = _DEFAULT
    sample: int | str | None = _DEFAULT

    def __post_init__(self):
        name = _string(self.catalogue, "catalogue")
        if not name.strip():
            raise ScenarioError("must name a file, got an empty string", key="catalogue")
        if self.norad_ids is None:
            regime = DEFAULT_REGIME if self.regime in (None, _DEFAULT) else self.regime
            _set(self, "regime", _choice(regime, "regime", REGIMES))
            sample = DEFAULT_SAMPLE if self.sample is _DEFAULT else self.sample
            if isinstance(sample, str) and sample != "all":
                raise ScenarioError(
                    f'must be a positive integer or "all", got {sample!r}', key="sample"
                )
            _set(self, "sample", None if sample in (None, "all") else _integer(sample, "sample"))
            return
        ids = _array(self.norad_ids, "norad_ids")
        ids = tuple(_norad_id(v, f"norad_ids[{k}]") for k, v in enumerate(ids))
        for k, v in enumerate(ids):
            if v in ids[:k]:
                raise ScenarioError(f"catalogue number {v} is listed twice", key=f"norad_ids[{k}]")
        _set(self, "norad_ids", ids)
        for other in ("regime", "sample"):
            if getattr(self, other) not in (None, _DEFAULT):
                raise ScenarioError(
                    "give either norad_ids (exactly these objects) or regime and sample, not both",
                    key=other,
                )
            _set(self, other, None)


def _norad_id(value, key):
    """A catalogue number: a positive int, or its text (digits or Alpha-5) as an int."""
    if not isinstance(value, str):
        return _integer(value, key)
    if not _CATALOGUE_NUMBER.match(value):
        raise ScenarioError(
            f"must be a catalogue number: an integer, or text of 1 to 9 digits or Alpha-5 (a "
            f'capital letter other than I and O, then 4 digits, e.g. "C3456"), got {value!r}',
            key=key,
        )
    number = from_alpha5(value)
    if number < 1:
        raise ScenarioError(f"must be a positive catalogue number, got {value!r}", key=key)
    return number


@dataclass(frozen=True)
class EarthSpec:
    """The Earth's orientation model: ``[earth]``.

    Parameters
    ----------
    orientation : {"none", "iers", "iers-or-none"}
        ``"none"`` (default): UT1-UTC and polar motion neglected (the Earth turns at its
        inertial rate from GMST at the window start; the run records what that
        neglects), which keeps the results published before Earth orientation was
        modelled. ``"iers"``: both from the offline IERS table (astropy's
        ``astropy-iers-data``, never downloaded), an error for a window the table does
        not cover (:meth:`model`). ``"iers-or-none"``: from the table where it covers the
        window, else neglected; the run records which, and why.

    Raises
    ------
    ScenarioError
        On another value.

    Notes
    -----
    IERS Conventions (2010), IERS Technical Note 36, ch. 5 (UT1 and polar motion).
    """

    orientation: str = "none"

    def __post_init__(self):
        _choice(self.orientation, "orientation", EARTH_ORIENTATIONS)

    def model(self, start_jd, span_days):
        """The model of a window: ``"iers"`` or ``"none"``, and why the table is not used.

        Parameters
        ----------
        start_jd : float
            Julian date (UTC) of the window start (``t = 0`` of the Earth's rotation).
        span_days : float
            Length of the window from ``start_jd`` (days), > 0.

        Returns
        -------
        model : {"iers", "none"}
            For :meth:`~ssa_privacy.sensors.geodesy.EarthRotation.at_utc`.
        reason : str or None
            With ``"iers-or-none"`` falling back: why the table cannot serve the window.

        Raises
        ------
        ScenarioError
            Naming ``orientation``: ``"iers"`` for a window that is not within the IERS
            table (the message gives the table's first and last date) or holds a leap
            second.
        ValueError, TypeError
            As :func:`~ssa_privacy.sensors.earth_orientation.iers_parameters`, on a
            ``start_jd`` or ``span_days`` that is not a finite number.

        Notes
        -----
        :func:`~ssa_privacy.sensors.earth_orientation.iers_parameters` decides.
        """
        if self.orientation == "none":
            return "none", None
        first, last = iers_table_range()
        end = start_jd + span_days
        try:
            iers_parameters(start_jd, span_days)
        except ValueError as error:
            if first <= start_jd and end <= last:  # a leap second: say the table's reason
                reason = f"the IERS table cannot serve the window: {error}"
            else:
                reason = (
                    f"the window {utc_text(start_jd)} to {utc_text(end)} is not within the "
                    f"offline IERS table, which covers {utc_text(first)[:10]} to "
                    f"{utc_text(last)[:10]}"
                )
            if self.orientation == "iers-or-none":
                return "none", reason
            raise ScenarioError(
                f'"iers" needs UT1-UTC and polar motion over the window, but {reason}; give '
                '"none" to neglect them, or "iers-or-none" to neglect them where the table '
                "ends",
                key="orientation",
            ) from None
        return "iers", None


@dataclass(frozen=True)
class PrivacySpec:
    """The privacy levels: ``[privacy]``.

    Parameters
    ----------
    delta : float
        Failure probability of each budget, in (0, 1); default 0.01.
    convention : {"exact", "paper"}
        PML convention (:data:`~ssa_privacy.privacy.notions.CONVENTIONS`); default
        ``"exact"``.
    pass_epsilons : sequence of float
        Pass-level budgets (nats), distinct, positive; default (10, 14, 20).
    measurement_epsilons : sequence of float
        Per-measurement levels whose pass and day leakage is reported (nats), distinct,
        positive, possibly none; default (7, 12, 24).
    day_epsilons : sequence of float
        Per-object day budgets (nats) over all stations' passes, distinct, positive,
        possibly none (default): each is met by the day designs of
        :mod:`ssa_privacy.privacy.pml.day_design`.
    designers : sequence of {"logdet", "scaled"}
        Pass designers compared (:data:`~ssa_privacy.privacy.pml.passes.DESIGNERS`),
        distinct; default both.

    Raises
    ------
    ScenarioError
        Naming the key: delta outside (0, 1), a budget that is not a positive number or
        is repeated, an unknown convention or designer. Condition (9) of [LKC] is checked
        by :class:`SsaScenario`, which knows the sensors.

    Notes
    -----
    [LKC] (pointwise maximal leakage); the pass-level designs of
    :mod:`ssa_privacy.privacy.pml.passes`.
    """

    delta: float = 0.01
    convention: str = "exact"
    pass_epsilons: tuple = (10.0, 14.0, 20.0)
    measurement_epsilons: tuple = (7.0, 12.0, 24.0)
    designers: tuple = DESIGNERS
    day_epsilons: tuple = ()

    def __post_init__(self):
        _set(
            self,
            "delta",
            _number(self.delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True),
        )
        _choice(self.convention, "convention", tuple(CONVENTIONS))
        _set(self, "pass_epsilons", _budgets(self.pass_epsilons, "pass_epsilons"))
        _set(
            self,
            "measurement_epsilons",
            _budgets(self.measurement_epsilons, "measurement_epsilons", empty=True),
        )
        _set(self, "day_epsilons", _budgets(self.day_epsilons, "day_epsilons", empty=True))
        designers = _array(self.designers, "designers")
        for k, designer in enumerate(designers):
            _choice(designer, f"designers[{k}]", DESIGNERS)
            if designer in designers[:k]:
                raise ScenarioError(f"{designer!r} is listed twice", key=f"designers[{k}]")
        _set(self, "designers", designers)


@dataclass(frozen=True)
class FilterSpec:
    """The fusion centre's filter: ``[filter]``.

    Parameters
    ----------
    process_noise_psd : float
        White-acceleration power spectral density of the process noise (km^2/s^3), >= 0;
        default :data:`~ssa_privacy.estimation.ekf.FILTER_PSD` (0: the filter's own model
        error, its integration error, is measured and added at each prediction).

    Raises
    ------
    ScenarioError
        On a value that is not a finite number >= 0.

    Notes
    -----
    :func:`~ssa_privacy.estimation.ekf.process_noise` (continuous white acceleration).
    """

    process_noise_psd: float = FILTER_PSD

    def __post_init__(self):
        _set(
            self,
            "process_noise_psd",
            _number(self.process_noise_psd, "process_noise_psd", low=0.0, unit="km^2/s^3"),
        )


#: Keys every sensor has, in the order a written file lists them.
