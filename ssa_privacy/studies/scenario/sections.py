"""The sections of a scenario file: window, objects, Earth, privacy, filter.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

from dataclasses import dataclass

from ssa_privacy.estimation.ekf import FILTER_PSD
from ssa_privacy.orbits.catalog import REGIMES, STALENESS_DAYS, parse_utc
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE
from ssa_privacy.privacy.notions import CONVENTIONS
from ssa_privacy.privacy.pml.passes import DESIGNERS
from ssa_privacy.studies.scenario.checks import (
    EARTH_ORIENTATIONS,
    LONGEST_PASS_MIN,
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
    "EarthSpec",
    "FilterSpec",
    "ObjectsSpec",
    "PrivacySpec",
    "WindowSpec",
]


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
        Window length (h), > 0; default 24.
    step_s : float
        Measurement interval (s), in (0, window]; default 30.
    staleness_days : float
        Element sets whose epoch is further than this from the start, either side, are left
        out (days), > 0; default :data:`~ssa_privacy.orbits.catalog.STALENESS_DAYS` (14).
    longest_pass_min : float
        A stretch in view longer than this is cut into passes of this length (min), > 0;
        default :data:`LONGEST_PASS_MIN` (20).

    Raises
    ------
    ScenarioError
        Naming the key: a value of the wrong type, out of range, or a start that is not
        ISO 8601.

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
        _set(self, "hours", _positive(self.hours, "hours", "h"))
        step = _positive(self.step_s, "step_s", "s")
        if step > self.hours * 3600.0:
            raise ScenarioError(
                f"must be at most the window ({self.hours:g} h = {self.hours * 3600:g} s), "
                f"got {step:g} s",
                key="step_s",
            )
        _set(self, "step_s", step)
        _set(self, "staleness_days", _positive(self.staleness_days, "staleness_days", "days"))
        _set(self, "longest_pass_min", _positive(self.longest_pass_min, "longest_pass_min", "min"))

    @property
    def start_jd(self):
        """Julian date (UTC) of :attr:`start`, or None for the catalogue rule."""
        return None if self.start is None else parse_utc(self.start, "window.start")


@dataclass(frozen=True)
class ObjectsSpec:
    """The objects tracked: ``[objects]``.

    Parameters
    ----------
    catalogue : str
        Element-set file: TLE, 3LE or CCSDS OMM (KVN or XML). A relative name is looked up
        beside the scenario file, then in the data folder (:func:`resolve`). Default
        ``active_satellites_2026-03-19.tle``.
    norad_ids : sequence of int, optional
        Exactly these catalogue numbers (distinct, positive). Excludes ``regime`` and
        ``sample``.
    regime : {"leo", "meo", "geo", "all"}, optional
        Regime sampled (:mod:`ssa_privacy.orbits.catalog`); default ``"all"`` without
        ``norad_ids``.
    sample : int or "all", optional
        Objects drawn from the regime, seeded by the run's seed; ``"all"`` (kept as None)
        or the default: every object of the regime, without ``norad_ids``.

    Raises
    ------
    ScenarioError
        Naming the key: wrong type, an empty or repeated catalogue number, a regime not
        known, or ``norad_ids`` together with ``regime`` or ``sample``.

    Notes
    -----
    Sampling: :func:`~ssa_privacy.orbits.catalog.select_objects`.
    """

    catalogue: str = ACTIVE_CATALOGUE_FILE
    norad_ids: tuple | None = None
    regime: str | None = None
    sample: int | None = None

    def __post_init__(self):
        name = _string(self.catalogue, "catalogue")
        if not name.strip():
            raise ScenarioError("must name a file, got an empty string", key="catalogue")
        if self.norad_ids is None:
            regime = "all" if self.regime is None else _choice(self.regime, "regime", REGIMES)
            _set(self, "regime", regime)
            if isinstance(self.sample, str) and self.sample != "all":
                raise ScenarioError(
                    f'must be a positive integer or "all", got {self.sample!r}', key="sample"
                )
            if self.sample is not None:
                sample = None if self.sample == "all" else _integer(self.sample, "sample")
                _set(self, "sample", sample)
            return
        ids = _array(self.norad_ids, "norad_ids")
        ids = tuple(_integer(v, f"norad_ids[{k}]") for k, v in enumerate(ids))
        for k, v in enumerate(ids):
            if v in ids[:k]:
                raise ScenarioError(f"catalogue number {v} is listed twice", key=f"norad_ids[{k}]")
        _set(self, "norad_ids", ids)
        for other in ("regime", "sample"):
            if getattr(self, other) is not None:
                raise ScenarioError(
                    "give either norad_ids (exactly these objects) or regime and sample, not both",
                    key=other,
                )


@dataclass(frozen=True)
class EarthSpec:
    """The Earth's orientation model: ``[earth]``.

    Parameters
    ----------
    orientation : {"none", "iers"}
        ``"iers"``: UT1-UTC and polar motion from the offline IERS tables (astropy's
        ``astropy-iers-data``, never downloaded); ``"none"``: both neglected (the Earth
        turns at its inertial rate from GMST at the window start; the run records what
        that neglects). Default ``"iers"``; the shipped scenario says ``"none"``, which
        keeps the results published before Earth orientation was modelled.

    Raises
    ------
    ScenarioError
        On another value.

    Notes
    -----
    IERS Conventions (2010), IERS Technical Note 36, ch. 5 (UT1 and polar motion).
    """

    orientation: str = "iers"

    def __post_init__(self):
        _choice(self.orientation, "orientation", EARTH_ORIENTATIONS)


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
