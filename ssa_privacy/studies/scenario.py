"""Scenario files: one TOML file describes a whole SSA design study.

A scenario file (:doc:`/reference/scenario-files`) names the observation window, the
objects (a catalogue file and which of its objects), the Earth's orientation model, the
sensors (radars and optical telescopes with their sites, limits and noise), the privacy
levels and the filter's process noise. :func:`load_scenario` reads one into an
:class:`SsaScenario` of section dataclasses (:class:`WindowSpec`, :class:`ObjectsSpec`,
:class:`EarthSpec`, :class:`SensorSpec`, :class:`PrivacySpec`, :class:`FilterSpec`), each
checked when it is made; :func:`default_scenario` is the shipped ``scenarios/default.toml``,
the ``ssa-catalog`` study as it ran before scenario files (the eight radars of
:mod:`ssa_privacy.sensors.networks`). :func:`read_stations` reads a sensor network alone,
from a TOML file of ``[[sensors]]`` tables or a GeoJSON FeatureCollection of Points, and
:func:`with_overrides` replaces the catalogue, the sensors or single keys (the command
line's options), recording what it replaced.

Units are in the key names and fixed: ``_deg`` degrees, ``_arcsec`` arcseconds, ``_km``
kilometres, ``_km_s`` km/s, ``_s`` seconds, ``_min`` minutes, ``hours``, ``_days``; budgets
in nats; ``process_noise_psd`` in km^2/s^3. A key with another unit suffix (say
``elevation_min_rad``) is an unknown key, and the error names the key to use.
:meth:`SensorSpec.build` converts to the package's internal units (rad, km, km/s).

Every error is a :class:`ScenarioError` (a :class:`ValueError`) whose message is one line
naming the file, the line where the key was found, the dotted key (``sensors[2].latitude_deg``
and the sensor's name) and what is wrong. The record of a scenario for ``results.json``
(:meth:`SsaScenario.as_record`) holds the file's text, its SHA-256 and its path, with the
files it pulled in and the overrides.

Relative file names (``objects.catalogue``, ``sensors_file``) are looked up beside the
scenario file first, then in the data folder (:func:`ssa_privacy.engine.data.data_file`);
the shipped default's, in the data folder only (:func:`resolve`).

References
----------
TOML v1.0.0 (https://toml.io/en/v1.0.0), read with :mod:`tomllib`; H. Butler et al.,
"The GeoJSON Format", RFC 7946 (2016): §3.1.1 positions are [longitude, latitude,
altitude], §4 in WGS 84 decimal degrees with the altitude in metres above the WGS 84
ellipsoid; SHA-256: FIPS 180-4.
"""

import dataclasses
import datetime
import difflib
import hashlib
import json
import math
import numbers
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ssa_privacy.engine.data import data_file
from ssa_privacy.engine.output import write_text_atomic
from ssa_privacy.estimation.ekf import FILTER_PSD
from ssa_privacy.orbits.catalog import REGIMES, STALENESS_DAYS, parse_utc, utc_text
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE
from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.privacy.notions import CONVENTIONS
from ssa_privacy.privacy.pml.passes import DESIGNERS
from ssa_privacy.sensors.networks import ELEVATION_MASK, NOISE_STD
from ssa_privacy.sensors.optical import ARCSEC, OpticalStation
from ssa_privacy.sensors.stations import GroundStation

__all__ = [
    "DEFAULT_SOURCE",
    "EARTH_ORIENTATIONS",
    "EarthSpec",
    "FilterSpec",
    "LONGEST_PASS_MIN",
    "ObjectsSpec",
    "PrivacySpec",
    "SENSOR_KINDS",
    "ScenarioError",
    "SensorSpec",
    "SsaScenario",
    "WindowSpec",
    "check_window",
    "default_scenario",
    "file_record",
    "load_scenario",
    "read_stations",
    "resolve",
    "scenario_toml",
    "with_overrides",
    "write_scenario",
]

#: The ``source`` of the shipped default scenario (``scenarios/default.toml``).
DEFAULT_SOURCE = "<default>"
#: Earth orientation models of ``earth.orientation``.
EARTH_ORIENTATIONS = ("iers", "none")
#: Sensor kinds of ``sensors[i].kind``.
SENSOR_KINDS = ("radar", "optical")
#: Default longest pass (min): a stretch in view beyond it is cut into passes of this length.
LONGEST_PASS_MIN = 20.0
#: Package folder holding the shipped scenarios.
_SCENARIOS = "scenarios"
_DEFAULT_FILE = "default.toml"
#: Largest and smallest height of a ground site (km): a larger number is most likely metres.
_HEIGHT_RANGE_KM = (-1.0, 10.0)
#: Agreement asked of a GeoJSON Point and the same value in its properties.
_GEOJSON_TOLERANCE = {"latitude_deg": 1e-9, "longitude_deg": 1e-9, "height_km": 1e-9}
#: Rows of one measurement of each kind: (az, el, range, range rate) and (ra, dec).
_MEASUREMENT_ROWS = {"radar": GroundStation.rows, "optical": OpticalStation.rows}
#: Unit suffixes of the keys, longest first (for the suggestion on a wrong unit).
_UNIT_SUFFIXES = (
    "_km_s",
    "_m_s",
    "_arcsec",
    "_arcmin",
    "_hours",
    "_days",
    "_deg",
    "_rad",
    "_min",
    "_km",
    "_m",
    "_s",
    "_h",
)


class ScenarioError(ValueError):
    """A scenario or stations file (or an override) whose content is not valid.

    Parameters
    ----------
    problem : str
        What is wrong (made one line).
    source : str, optional
        The file (its path), ``"<default>"``, ``"<override>"`` or ``"<python>"``.
    key : str, optional
        Dotted key at fault, e.g. ``"sensors[2].latitude_deg"`` or ``"window.start"``.
    line : int, optional
        1-based line of the file where the key (or the syntax error) is.
    sensor : str, optional
        Name of the sensor the key belongs to, shown after the key.

    Notes
    -----
    ``str(error)`` is one line: ``file, line N: key (sensor 'name'): problem``; the parts
    not known are left out. The attributes ``problem``, ``source``, ``key``, ``line`` and
    ``sensor`` hold the parts.
    """

    def __init__(self, problem, *, source=None, key=None, line=None, sensor=None):
        self.problem = " ".join(str(problem).split())
        self.source, self.key, self.line, self.sensor = source, key, line, sensor
        where = [str(source)] if source is not None else []
        if line is not None:
            where.append(f"line {line}")
        head = ", ".join(where)
        if key is not None:
            label = key if sensor is None else f"{key} (sensor {sensor!r})"
            head = f"{head}: {label}" if head else label
        super().__init__(f"{head}: {self.problem}" if head else self.problem)

    def within(self, prefix=None, *, source=None, text=None, sensor=None):
        """The same error placed in a file: key prefixed, source and line filled in.

        Parameters
        ----------
        prefix : str, optional
            Dotted prefix of the key, e.g. ``"sensors[2]"``.
        source : str, optional
            The file, unless the error already names one.
        text : str, optional
            The file's TOML text, to find the key's line in.
        sensor : str, optional
            The sensor's name, unless the error already names one.

        Returns
        -------
        ScenarioError
            A new error.
        """
        key = self.key
        if prefix:
            key = prefix if key is None else f"{prefix}.{key}" if key[0] != "[" else prefix + key
        source = self.source if self.source is not None else source
        line = self.line
        if line is None and text is not None and key is not None:
            line = _locate(text, key)
        sensor = self.sensor if self.sensor is not None else sensor
        return ScenarioError(self.problem, source=source, key=key, line=line, sensor=sensor)


# -- line of a key in a TOML text -------------------------------------------------------------

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")


def _key_parts(key):
    """``"sensors[2].latitude_deg[1]"`` -> (``"sensors"``, 2, ``"latitude_deg"``)."""
    match = re.match(r"^([A-Za-z0-9_\-]+)(?:\[(\d+)\])?(?:\.([A-Za-z0-9_\-]+))?", key)
    if not match:
        return None, None, None
    index = int(match.group(2)) if match.group(2) is not None else None
    return match.group(1), index, match.group(3)


def _locate(text, key):
    """1-based line of ``key`` (dotted, as ScenarioError names it) in a TOML text, or None.

    A light scan of table headers and ``key =`` lines: enough for the files this module
    reads (no inline tables); None when the key is not written in the file.
    """
    section, index, name = _key_parts(key)
    if section is None:
        return None
    top_level = name is None and section not in (*_SECTION_TYPES, "sensors")
    table, count, header_line = None, {}, None
    pattern = re.compile(rf"^\s*[\"']?{re.escape(name or section)}[\"']?\s*=")
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            table = header.group(2).strip().strip("\"'")
            if header.group(1) == "[[":
                count[table] = count.get(table, -1) + 1
            current = count.get(table) if header.group(1) == "[[" else None
            if table == section and (index is None or current == index):
                header_line = number
                if name is None:
                    return number
            continue
        if top_level and table is None and pattern.match(line):
            return number
        if name is None or table != section:
            continue
        if index is not None and count.get(table) != index:
            continue
        if pattern.match(line):
            return number
    return header_line


# -- value checks ------------------------------------------------------------------------------


def _kind_of(value):
    """A short description of a TOML value for error messages."""
    names = {
        bool: "a boolean",
        str: "a string",
        int: "an integer",
        float: "a number",
        list: "an array",
        dict: "a table",
        datetime.datetime: "a date-time",
        datetime.date: "a date",
        datetime.time: "a time",
    }
    kind = names.get(type(value), f"a {type(value).__name__}")
    text = repr(value)
    return f"{kind} ({text})" if len(text) <= 40 else kind


def _number(value, key, *, low=None, high=None, low_open=False, high_open=False, unit=""):
    """A finite real number (int or float, not bool) within the bounds, as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ScenarioError(
            f"must be a number{unit and ' (' + unit + ')'}, got {_kind_of(value)}", key=key
        )
    value = float(value)
    if not math.isfinite(value):
        raise ScenarioError(f"must be a finite number, got {value!r}", key=key)
    below = low is not None and (value <= low if low_open else value < low)
    above = high is not None and (value >= high if high_open else value > high)
    if below or above:
        suffix = f" ({unit})" if unit else ""
        if low == 0 and high is None:
            what = "a positive number" if low_open else "a number >= 0"
            raise ScenarioError(f"must be {what}{suffix}, got {value:g}", key=key)
        left = "(" if low_open or low is None else "["
        right = ")" if high_open or high is None else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        suffix = f" {unit}" if unit else ""
        raise ScenarioError(f"must lie in {left}{lo}, {hi}{right}{suffix}, got {value:g}", key=key)
    return value


def _positive(value, key, unit=""):
    return _number(value, key, low=0.0, low_open=True, unit=unit)


def _integer(value, key, low=1):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"must be an integer, got {_kind_of(value)}", key=key)
    if value < low:
        raise ScenarioError(f"must be an integer of at least {low}, got {value}", key=key)
    return int(value)


def _string(value, key):
    if not isinstance(value, str):
        raise ScenarioError(f"must be a string, got {_kind_of(value)}", key=key)
    return value


def _choice(value, key, choices):
    value = _string(value, key)
    if value not in choices:
        near = difflib.get_close_matches(value.lower(), choices, n=1, cutoff=0.5)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        options = " | ".join(repr(c) for c in choices)
        raise ScenarioError(f"must be one of {options}, got {value!r}{hint}", key=key)
    return value


def _array(value, key, *, empty=False):
    """A TOML array (or tuple) as a tuple; non-empty unless ``empty``."""
    if not isinstance(value, list | tuple):
        raise ScenarioError(f"must be an array, got {_kind_of(value)}", key=key)
    if not value and not empty:
        raise ScenarioError("must not be empty", key=key)
    return tuple(value)


def _budgets(value, key, *, empty=False):
    """Distinct positive finite budgets (nats), as a tuple of floats."""
    values = _array(value, key, empty=empty)
    out = tuple(_positive(v, f"{key}[{k}]", "nats") for k, v in enumerate(values))
    for k, v in enumerate(out):
        if v in out[:k]:
            raise ScenarioError(f"{v:g} is listed twice", key=f"{key}[{k}]")
    return out


def _start_text(value, key):
    """The window start as ISO 8601 text (TOML date-times are accepted and written back)."""
    if isinstance(value, datetime.datetime | datetime.date):
        value = value.isoformat()
    value = _string(value, key)
    try:
        parse_utc(value, key)
    except ValueError as error:
        raise ScenarioError(str(error).removeprefix(f"{key} "), key=key) from None
    return value


def _stem(key):
    """A key without its unit suffix (``elevation_min_deg`` -> ``elevation_min``)."""
    for suffix in _UNIT_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)]
    return key


def _suggest(key, valid):
    """A hint naming the valid key nearest ``key``: same name with another unit, else difflib."""
    stem = _stem(key)
    same = [v for v in valid if v != key and stem != key and _stem(v) == stem]
    if same:
        unit = same[0][len(stem) + 1 :]
        return f"; units are fixed: did you mean {same[0]} (unit {unit})?"
    near = difflib.get_close_matches(key.lower(), list(valid), n=1, cutoff=0.6)
    near = near or [v for v in valid if len(key) >= 3 and v.startswith(key.lower())][:1]
    return f"; did you mean {near[0]}?" if near else ""


def _check_keys(table, valid, prefix, *, others=None):
    """Raise ScenarioError on the first key of ``table`` that is not in ``valid``.

    ``others`` maps a key valid elsewhere (another sensor kind) to the message for it.
    """
    for key in table:
        if key in valid:
            continue
        if others and key in others:
            raise ScenarioError(others[key], key=_join(prefix, key))
        listed = ", ".join(valid)
        raise ScenarioError(
            f"unknown key{_suggest(key, valid)} (valid keys: {listed})", key=_join(prefix, key)
        )


def _join(prefix, key):
    return key if not prefix else f"{prefix}.{key}"


def _set(instance, name, value):
    object.__setattr__(instance, name, value)


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
    sample : int, optional
        Objects drawn from the regime, seeded by the run's seed; default: every object of
        the regime, without ``norad_ids``.

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
            if self.sample is not None:
                _set(self, "sample", _integer(self.sample, "sample"))
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
        default :data:`~ssa_privacy.estimation.ekf.FILTER_PSD` (1e-14).

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
_COMMON_KEYS = (
    "name",
    "kind",
    "latitude_deg",
    "longitude_deg",
    "height_km",
    "elevation_min_deg",
    "azimuth_sector_deg",
    "range_max_km",
    "epsilon_offset",
)
#: Keys of one kind only.
_KIND_KEYS = {
    "radar": (
        "azimuth_noise_deg",
        "elevation_noise_deg",
        "range_noise_km",
        "range_rate_noise_km_s",
    ),
    "optical": (
        "right_ascension_noise_arcsec",
        "declination_noise_arcsec",
        "sun_elevation_max_deg",
    ),
}

#: Unit of each noise key (1 sigma, > 0).
_NOISE_UNITS = {
    "azimuth_noise_deg": "deg",
    "elevation_noise_deg": "deg",
    "range_noise_km": "km",
    "range_rate_noise_km_s": "km/s",
    "right_ascension_noise_arcsec": "arcsec",
    "declination_noise_arcsec": "arcsec",
}


def _radar_defaults():
    """Defaults of a radar's keys (file units): :mod:`ssa_privacy.sensors.networks`."""
    return {
        "elevation_min_deg": float(ELEVATION_MASK),
        "azimuth_noise_deg": _clean(math.degrees(NOISE_STD[0])),
        "elevation_noise_deg": _clean(math.degrees(NOISE_STD[1])),
        "range_noise_km": float(NOISE_STD[2]),
        "range_rate_noise_km_s": float(NOISE_STD[3]),
    }


def _optical_defaults():
    """Defaults of an optical sensor's keys (file units): ``OpticalStation``'s own defaults."""
    defaults = {f.name: f.default for f in dataclasses.fields(OpticalStation)}
    noise = defaults["noise_std"]
    return {
        "elevation_min_deg": float(defaults["elevation_mask"]),
        "right_ascension_noise_arcsec": _clean(float(noise[0]) / ARCSEC),
        "declination_noise_arcsec": _clean(float(noise[1]) / ARCSEC),
        "sun_elevation_max_deg": float(defaults["sun_elevation_max"]),
    }


def _clean(value):
    """A converted default without its last-digit noise (12 significant digits)."""
    return float(f"{value:.12g}")


@dataclass(frozen=True)
class SensorSpec:
    """One sensor: a ``[[sensors]]`` table (or a GeoJSON Point's properties).

    Parameters
    ----------
    name : str
        Label, unique in the scenario, not empty.
    latitude_deg, longitude_deg : float
        WGS-84 geodetic latitude in [-90, 90] and longitude in [-360, 360] (deg, east
        positive).
    height_km : float
        Height above the WGS-84 ellipsoid (km), in [-1, 10]; default 0.
    kind : {"radar", "optical"}
        A radar measures (azimuth, elevation, range, range rate)
        (:class:`~ssa_privacy.sensors.stations.GroundStation`); an optical sensor
        (right ascension, declination) (``ssa_privacy.sensors.optical.OpticalStation``).
        Default ``"radar"``.
    elevation_min_deg : float, optional
        Elevation mask (deg) in [0, 90); default 5 (radar,
        :data:`~ssa_privacy.sensors.networks.ELEVATION_MASK`) or ``OpticalStation``'s.
    azimuth_sector_deg : sequence of 2 floats, optional
        Field of regard in azimuth ``[from, to]`` (deg in [0, 360], clockwise from north,
        inclusive); ``from > to`` wraps through north; ``[0, 360]`` is the whole circle;
        ``from == to`` (no width) is refused. None: the whole circle.
    range_max_km : float, optional
        Largest range of a measurement (km), > 0; None: unlimited.
    epsilon_offset : float
        Nats added to each pass budget of this sensor; default 0.
    azimuth_noise_deg, elevation_noise_deg, range_noise_km, range_rate_noise_km_s : float, optional
        Radar only: noise (1 sigma) in deg, deg, km, km/s, > 0; defaults
        :data:`~ssa_privacy.sensors.networks.NOISE_STD` (0.02 deg, 0.01 deg, 0.09 km,
        1e-4 km/s).
    right_ascension_noise_arcsec, declination_noise_arcsec : float, optional
        Optical only: noise (1 sigma) in arcsec, > 0; defaults ``OpticalStation``'s.
    sun_elevation_max_deg : float, optional
        Optical only: the site observes while the Sun is at most this high (deg) in
        [-90, 90]; default ``OpticalStation``'s.

    Raises
    ------
    ScenarioError
        Naming the key (without the ``sensors[i].`` prefix, which the file reader adds):
        a missing name or site, a wrong type, a value out of range (a latitude outside
        [-90, 90]), an empty azimuth sector (``from == to``), an unknown kind, or a key of
        the other kind (a radar noise key on an optical sensor and vice versa).

    Notes
    -----
    Values are kept in the file's units; :meth:`build` converts. Site: Vallado,
    *Fundamentals of Astrodynamics and Applications*, 4th ed., §3.2 (WGS-84 geodetic
    coordinates).
    """

    name: str
    latitude_deg: float
    longitude_deg: float
    height_km: float = 0.0
    kind: str = "radar"
    elevation_min_deg: float | None = None
    azimuth_sector_deg: tuple | None = None
    range_max_km: float | None = None
    epsilon_offset: float = 0.0
    azimuth_noise_deg: float | None = None
    elevation_noise_deg: float | None = None
    range_noise_km: float | None = None
    range_rate_noise_km_s: float | None = None
    right_ascension_noise_arcsec: float | None = None
    declination_noise_arcsec: float | None = None
    sun_elevation_max_deg: float | None = None

    def __post_init__(self):
        name = _string(self.name, "name")
        if not name.strip():
            raise ScenarioError("must not be empty", key="name")
        kind = _choice(self.kind, "kind", SENSOR_KINDS)
        other = SENSOR_KINDS[1 - SENSOR_KINDS.index(kind)]
        for key in _KIND_KEYS[other]:
            if getattr(self, key) is not None:
                raise ScenarioError(_wrong_kind(key, kind), key=key)
        _set(
            self,
            "latitude_deg",
            _number(self.latitude_deg, "latitude_deg", low=-90.0, high=90.0, unit="deg"),
        )
        _set(
            self,
            "longitude_deg",
            _number(self.longitude_deg, "longitude_deg", low=-360.0, high=360.0, unit="deg"),
        )
        low, high = _HEIGHT_RANGE_KM
        if not isinstance(self.height_km, bool) and isinstance(self.height_km, int | float):
            if math.isfinite(self.height_km) and not low <= self.height_km <= high:
                raise ScenarioError(
                    f"a ground site's height must lie in [{low:g}, {high:g}] km, got "
                    f"{self.height_km:g} (metres given as km?)",
                    key="height_km",
                )
        _set(self, "height_km", _number(self.height_km, "height_km", unit="km"))
        defaults = _radar_defaults() if kind == "radar" else _optical_defaults()
        for key, value in defaults.items():
            if getattr(self, key) is None:
                _set(self, key, value)
        _set(
            self,
            "elevation_min_deg",
            _number(
                self.elevation_min_deg,
                "elevation_min_deg",
                low=0.0,
                high=90.0,
                high_open=True,
                unit="deg",
            ),
        )
        for key in _KIND_KEYS[kind]:
            if key in _NOISE_UNITS:
                _set(self, key, _positive(getattr(self, key), key, _NOISE_UNITS[key]))
        if kind == "optical":
            sun = _number(
                self.sun_elevation_max_deg,
                "sun_elevation_max_deg",
                low=-90.0,
                high=90.0,
                unit="deg",
            )
            _set(self, "sun_elevation_max_deg", sun)
        if self.azimuth_sector_deg is not None:
            _set(self, "azimuth_sector_deg", _sector(self.azimuth_sector_deg))
        if self.range_max_km is not None:
            _set(self, "range_max_km", _positive(self.range_max_km, "range_max_km", "km"))
        _set(self, "epsilon_offset", _number(self.epsilon_offset, "epsilon_offset", unit="nats"))

    @property
    def measurement_rows(self):
        """Rows of one measurement: 4 for a radar, 2 for an optical sensor."""
        return _MEASUREMENT_ROWS[self.kind]

    def build(self):
        """The sensor as a station object, in the package's internal units.

        Returns
        -------
        GroundStation or OpticalStation
            A radar: :class:`~ssa_privacy.sensors.stations.GroundStation` with
            ``noise_std`` (rad, rad, km, km/s); an optical sensor:
            ``ssa_privacy.sensors.optical.OpticalStation`` with ``noise_std`` (rad, rad) and
            ``sun_elevation_max`` (deg). Site in deg and km, ``elevation_mask`` in deg;
            ``azimuth_sector`` (deg) and ``range_max`` (km) only when given.

        Raises
        ------
        ValueError, TypeError
            As the station classes (the values were checked here, so only on a station
            class that refuses what this module allows).

        Notes
        -----
        1 arcsec = pi / 648000 rad (``ssa_privacy.sensors.optical.ARCSEC``).
        """
        limits = {}
        if self.azimuth_sector_deg is not None:
            limits["azimuth_sector"] = self.azimuth_sector_deg
        if self.range_max_km is not None:
            limits["range_max"] = self.range_max_km
        site = (self.name, self.latitude_deg, self.longitude_deg, self.height_km)
        if self.kind == "radar":
            noise = (
                math.radians(self.azimuth_noise_deg),
                math.radians(self.elevation_noise_deg),
                self.range_noise_km,
                self.range_rate_noise_km_s,
            )
            return GroundStation(*site, self.elevation_min_deg, noise, **limits)
        noise = (
            self.right_ascension_noise_arcsec * ARCSEC,
            self.declination_noise_arcsec * ARCSEC,
        )
        return OpticalStation(
            *site,
            elevation_mask=self.elevation_min_deg,
            noise_std=noise,
            sun_elevation_max=self.sun_elevation_max_deg,
            **limits,
        )

    def to_dict(self):
        """The sensor's keys and values (file units), None values left out, in file order.

        Returns
        -------
        dict
            JSON- and TOML-able (the sector as a list).
        """
        out = {}
        for key in _COMMON_KEYS + _KIND_KEYS[self.kind]:
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out


def _wrong_kind(key, kind):
    other = SENSOR_KINDS[1 - SENSOR_KINDS.index(kind)]
    keys = ", ".join(_KIND_KEYS[kind])
    article = "an" if other[0] in "aeiou" else "a"
    return (
        f"is a key of {article} {other} sensor, this sensor's kind is {kind!r} (its keys: {keys})"
    )


def _sector(value):
    sector = _array(value, "azimuth_sector_deg")
    if len(sector) != 2:
        raise ScenarioError(
            f"must be [from, to] (2 numbers, deg), got {len(sector)} values",
            key="azimuth_sector_deg",
        )
    sector = tuple(
        _number(v, f"azimuth_sector_deg[{k}]", low=0.0, high=360.0, unit="deg")
        for k, v in enumerate(sector)
    )
    start, stop = sector
    if (stop - start if stop >= start else stop - start + 360.0) == 0.0:
        raise ScenarioError(
            f"is empty: from = to ({start:g} to {stop:g} deg, clockwise); use [0, 360] or "
            "leave the key out for the whole circle",
            key="azimuth_sector_deg",
        )
    return sector


_SECTION_TYPES = {
    "window": WindowSpec,
    "objects": ObjectsSpec,
    "earth": EarthSpec,
    "privacy": PrivacySpec,
    "filter": FilterSpec,
}
#: Top-level keys of a scenario file (tables and plain keys).
_TOP_KEYS = ("description", "sensors_file", *_SECTION_TYPES, "sensors")


def _section_keys(cls):
    return tuple(f.name for f in dataclasses.fields(cls))


@dataclass(frozen=True)
class SsaScenario:
    """A whole SSA study: window, objects, Earth, sensors, privacy and filter.

    Parameters
    ----------
    window : WindowSpec
        ``[window]``: start, length and step of the window.
    objects : ObjectsSpec
        ``[objects]``: catalogue file and which of its objects.
    earth : EarthSpec
        ``[earth]``: Earth orientation model.
    sensors : sequence of SensorSpec
        ``[[sensors]]``: at least one; names distinct.
    privacy : PrivacySpec
        ``[privacy]``: budgets, delta, convention, designers.
    filter : FilterSpec
        ``[filter]``: process noise of the filter.
    description : str
        Free text (top-level key ``description``); default empty.
    source : str
        Where it came from: the file's path, ``"<default>"`` or ``"<python>"``.
    text : str
        The file's content as read (empty when made in Python).
    sha256 : str
        SHA-256 (hex) of the file's bytes (empty when made in Python).
    inputs : tuple of dict
        Files pulled in (the sensors file, override files):
        :func:`file_record` plus ``role``.
    overrides : tuple of (str, object)
        Keys replaced by :func:`with_overrides`, dotted, with their new values.

    Raises
    ------
    ScenarioError
        On no sensor, a repeated sensor name (naming ``sensors[i].name``), or a budget
        at or below condition (9) of [LKC] for a pass (6 directions) or a measurement
        (4 rows with any radar, 2 with optical sensors only), including a sensor's
        ``epsilon_offset``.

    Notes
    -----
    Equality compares the study (the sections and the description), not where it came
    from: ``source``, ``text``, ``sha256``, ``inputs`` and ``overrides`` are provenance.
    [LKC] Corollary 3.4, condition (9) (:func:`~ssa_privacy.privacy.accounting.minimum_epsilon`).
    """

    window: WindowSpec = field(default_factory=WindowSpec)
    objects: ObjectsSpec = field(default_factory=ObjectsSpec)
    earth: EarthSpec = field(default_factory=EarthSpec)
    sensors: tuple = ()
    privacy: PrivacySpec = field(default_factory=PrivacySpec)
    filter: FilterSpec = field(default_factory=FilterSpec)
    description: str = ""
    source: str = field(default="<python>", compare=False)
    text: str = field(default="", compare=False, repr=False)
    sha256: str = field(default="", compare=False)
    inputs: tuple = field(default=(), compare=False)
    overrides: tuple = field(default=(), compare=False)

    def __post_init__(self):
        for name, cls in _SECTION_TYPES.items():
            if not isinstance(getattr(self, name), cls):
                raise ScenarioError(
                    f"must be a {cls.__name__}, got {type(getattr(self, name)).__name__}", key=name
                )
        _string(self.description, "description")
        sensors = _array(self.sensors, "sensors", empty=True)
        if not sensors:
            raise ScenarioError(
                "the scenario has no sensors: give [[sensors]] tables or sensors_file",
                key="sensors",
            )
        for k, sensor in enumerate(sensors):
            if not isinstance(sensor, SensorSpec):
                raise ScenarioError(
                    f"must be a SensorSpec, got {type(sensor).__name__}", key=f"sensors[{k}]"
                )
            first = next(j for j, s in enumerate(sensors) if s.name == sensor.name)
            if first != k:
                raise ScenarioError(
                    f"{sensor.name!r} is also the name of sensors[{first}]; names must be distinct",
                    key=f"sensors[{k}].name",
                    sensor=sensor.name,
                )
        _set(self, "sensors", sensors)
        self._check_budgets()

    def _check_budgets(self):
        """Condition (9) of [LKC] for every pass budget (with offsets) and measurement level."""
        privacy = self.privacy
        floor = float(minimum_epsilon(privacy.delta, 6))
        for k, epsilon in enumerate(privacy.pass_epsilons):
            for j, sensor in enumerate(self.sensors):
                budget = epsilon + sensor.epsilon_offset
                if budget > floor:
                    continue
                if sensor.epsilon_offset != 0 and epsilon > floor:
                    raise ScenarioError(
                        f"takes the pass budget {epsilon:g} to {budget:g} nats, at or below "
                        f"{floor:.4g}, the smallest feasible budget of a pass that sees the 6 "
                        f"state directions at delta = {privacy.delta:g} ([LKC] condition (9))",
                        key=f"sensors[{j}].epsilon_offset",
                        sensor=sensor.name,
                    )
                raise ScenarioError(
                    f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest feasible budget "
                    f"of a pass that sees the 6 state directions at delta = {privacy.delta:g} "
                    "([LKC] condition (9))",
                    key=f"privacy.pass_epsilons[{k}]",
                )
        rows = max(s.measurement_rows for s in self.sensors)
        floor = float(minimum_epsilon(privacy.delta, rows))
        for k, epsilon in enumerate(privacy.measurement_epsilons):
            if epsilon <= floor:
                raise ScenarioError(
                    f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest feasible level "
                    f"of a {rows}-row measurement at delta = {privacy.delta:g} ([LKC] "
                    "condition (9))",
                    key=f"privacy.measurement_epsilons[{k}]",
                )

    @property
    def folder(self):
        """Folder of the scenario file (Path), or None for the default and Python-made ones."""
        if self.source.startswith("<"):
            return None
        return Path(self.source).parent

    @property
    def start_jd(self):
        """Julian date (UTC) of ``window.start``, or None for the catalogue rule."""
        return self.window.start_jd

    @property
    def epsilon_offsets(self):
        """Each sensor's ``epsilon_offset`` (nats), in sensor order (tuple of float)."""
        return tuple(s.epsilon_offset for s in self.sensors)

    def build_sensors(self):
        """Every sensor as a station object (:meth:`SensorSpec.build`), in order.

        Returns
        -------
        tuple of GroundStation or OpticalStation
            Internal units (noise in rad and km).

        Raises
        ------
        ScenarioError
            Naming ``sensors[i]`` if a station class refuses a sensor.
        """
        built = []
        for k, sensor in enumerate(self.sensors):
            try:
                built.append(sensor.build())
            except (ValueError, TypeError) as error:
                raise ScenarioError(
                    str(error), source=self.source, key=f"sensors[{k}]", sensor=sensor.name
                ) from None
        return tuple(built)

    def catalogue_file(self, data_folder=None):
        """The element-set file of ``objects.catalogue`` (:func:`resolve`).

        Parameters
        ----------
        data_folder : str or path-like, optional
            Data folder (``--data``), else the search of
            :func:`ssa_privacy.engine.data.data_dir`.

        Returns
        -------
        Path
            An existing file.

        Raises
        ------
        ScenarioError
            Naming ``objects.catalogue`` and every place tried, if the file is not found.
        """
        return resolve(
            self.objects.catalogue,
            data_folder,
            base=self.folder,
            source=self.source,
            key="objects.catalogue",
            text=self.text,
        )

    def to_dict(self):
        """The study's values by section (file units), JSON- and TOML-able.

        Returns
        -------
        dict
            ``description`` (when not empty), ``window``, ``objects``, ``earth``,
            ``privacy``, ``filter`` (dicts, None values left out) and ``sensors`` (a list
            of :meth:`SensorSpec.to_dict`).
        """
        out = {"description": self.description} if self.description else {}
        for name in _SECTION_TYPES:
            section = getattr(self, name)
            out[name] = {
                f.name: list(v) if isinstance(v, tuple) else v
                for f in dataclasses.fields(section)
                if (v := getattr(section, f.name)) is not None
            }
        out["sensors"] = [s.to_dict() for s in self.sensors]
        return out

    def as_record(self):
        """The scenario's record for ``results.json``.

        Returns
        -------
        dict
            ``source`` (path or ``"<default>"``), ``sha256`` and ``text`` of the file,
            ``values`` (:meth:`to_dict`: every value used, defaults included), ``inputs``
            (files pulled in, with their SHA-256) and ``overrides`` (dotted key -> value).
        """
        return {
            "source": self.source,
            "sha256": self.sha256,
            "text": self.text,
            "values": self.to_dict(),
            "inputs": [dict(i) for i in self.inputs],
            "overrides": {k: list(v) if isinstance(v, tuple) else v for k, v in self.overrides},
        }


# -- reading -----------------------------------------------------------------------------------


def file_record(path):
    """Path, size and SHA-256 of a file, for provenance.

    Parameters
    ----------
    path : str or path-like
        An existing file.

    Returns
    -------
    dict
        ``path`` (absolute, str), ``bytes`` (int) and ``sha256`` (hex).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.

    Notes
    -----
    SHA-256: FIPS 180-4 (:mod:`hashlib`).
    """
    path = Path(path)
    raw = path.read_bytes()
    return {
        "path": str(path.resolve()),
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }


def resolve(path_text, data_folder=None, *, base=None, source=None, key=None, text=None):
    """The file a scenario names: beside the scenario, else in the data folder.

    Parameters
    ----------
    path_text : str or path-like
        The name as written. ``~`` is expanded; an absolute path must exist.
    data_folder : str or path-like, optional
        Data folder (``--data``); without it, the search of
        :func:`ssa_privacy.engine.data.data_file`.
    base : str or path-like, optional
        Folder of the scenario file: a relative name is looked up there first. None (the
        shipped default): the data folder only.
    source, key : str, optional
        The scenario file and the dotted key, for the error message.
    text : str, optional
        The scenario's text, to give the key's line in the error message.

    Returns
    -------
    Path
        An existing file.

    Raises
    ------
    ScenarioError
        A one-line message naming the source and key and every place tried.

    Notes
    -----
    Search order of this module's docstring; the data folder's:
    :mod:`ssa_privacy.engine.data`.
    """

    def fail(problem):
        error = ScenarioError(problem, source=source, key=key)
        return error.within(text=text) if text else error

    name = _string(str(path_text), key or "path")
    path = Path(name).expanduser()
    if path.is_absolute():
        if not path.is_file():
            raise fail(f"file not found: {str(path)!r}")
        return path
    tried = []
    if base is not None:
        beside = Path(base) / path
        if beside.is_file():
            return beside
        tried.append(f"{str(beside.absolute())!r}")
    try:
        return data_file(name, data_folder)
    except (FileNotFoundError, NotADirectoryError) as error:
        found = " ".join(str(error).split())
        where = f"not beside the scenario ({tried[0]}); " if tried else ""
        raise fail(f"file {name!r} not found: {where}{found}") from None


def _decode(raw, source):
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ScenarioError("the file is not UTF-8 text", source=source, line=line) from None


def _parse_toml(text, source):
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = re.search(r"\(at line (\d+), column (\d+)\)", message)
        if found is None:
            found = re.search(r"\(at end of document\)", message)
            line = text.count("\n") + 1 if found else None
            column = None
        else:
            line, column = int(found.group(1)), int(found.group(2))
        what = re.sub(r"\s*\(at [^)]*\)\s*$", "", message)
        place = f" at column {column}" if column else ""
        raise ScenarioError(f"TOML syntax error{place}: {what}", source=source, line=line) from None


def _read_file(path, what):
    """Bytes of a file named by the caller, or ScenarioError naming it."""
    path = Path(path)
    if not path.is_file():
        problem = "is a folder, not a file" if path.is_dir() else "file not found"
        raise ScenarioError(f"{what} {problem}", source=str(path))
    return path.read_bytes()


def _table(value, key, *, array=False):
    """A TOML table (or, with ``array``, an array of tables), checked."""
    if array:
        if isinstance(value, dict):
            raise ScenarioError(
                f"must be an array of tables ([[{key}]] for each), got a single table ([{key}])",
                key=key,
            )
        values = _array(value, key, empty=True)
        for k, item in enumerate(values):
            if not isinstance(item, dict):
                raise ScenarioError(f"must be a table, got {_kind_of(item)}", key=f"{key}[{k}]")
        return values
    if isinstance(value, list):
        raise ScenarioError(
            f"must be a table ([{key}]), got an array of tables ([[{key}]])", key=key
        )
    if not isinstance(value, dict):
        raise ScenarioError(f"must be a table ([{key}]), got {_kind_of(value)}", key=key)
    return value


def _section(name, table):
    cls = _SECTION_TYPES[name]
    table = _table(table, name)
    try:
        _check_keys(table, _section_keys(cls), None)
        return cls(**table)
    except ScenarioError as error:
        raise error.within(name) from None


def _sensor(table, prefix=""):
    """A SensorSpec from a table of file keys; errors name ``prefix.key``."""
    name = table.get("name") if isinstance(table.get("name"), str) else None
    try:
        kind = table.get("kind", "radar")
        if kind in SENSOR_KINDS:
            valid = _COMMON_KEYS + _KIND_KEYS[kind]
            other = SENSOR_KINDS[1 - SENSOR_KINDS.index(kind)]
            wrong = {k: _wrong_kind(k, kind) for k in _KIND_KEYS[other]}
            _check_keys(table, valid, None, others=wrong)
        else:
            _check_keys(table, _COMMON_KEYS + _KIND_KEYS["radar"] + _KIND_KEYS["optical"], None)
        for required in ("name", "latitude_deg", "longitude_deg"):
            if required not in table:
                raise ScenarioError(
                    "is missing (every sensor needs name, latitude_deg and longitude_deg)",
                    key=required,
                )
        return SensorSpec(**table)
    except ScenarioError as error:
        raise error.within(prefix, sensor=name) from None


def _sensor_tables(tables, prefix, source, text):
    sensors = []
    for k, table in enumerate(tables):
        try:
            sensors.append(_sensor(table, f"{prefix}[{k}]"))
        except ScenarioError as error:
            raise error.within(source=source, text=text) from None
    return sensors


def _from_document(document, source, text, base, sha256):
    """An SsaScenario from a parsed TOML document; every error located in the file."""
    try:
        _check_keys(document, _TOP_KEYS, None)
        sections = {
            name: _section(name, document[name]) for name in _SECTION_TYPES if name in document
        }
        description = _string(document.get("description", ""), "description")
        inputs = []
        has_tables = "sensors" in document
        tables = _table(document["sensors"], "sensors", array=True) if has_tables else ()
        sensors = _sensor_tables(tables, "sensors", source, text)
        if "sensors_file" in document:
            if has_tables:
                raise ScenarioError(
                    "give either sensors_file or [[sensors]] tables, not both", key="sensors_file"
                )
            name = _string(document["sensors_file"], "sensors_file")
            path = resolve(name, base=base, source=source, key="sensors_file", text=text)
            sensors = list(read_stations(path))
            inputs.append({"role": "sensors_file", **file_record(path)})
        return SsaScenario(
            **sections,
            sensors=tuple(sensors),
            description=description,
            source=source,
            text=text,
            sha256=sha256,
            inputs=tuple(inputs),
        )
    except ScenarioError as error:
        raise error.within(source=source, text=text) from None


def load_scenario(path, *, data_folder=None, check_files=True):
    """Read a scenario file.

    Parameters
    ----------
    path : str or path-like
        The TOML file (:doc:`/reference/scenario-files`).
    data_folder : str or path-like, optional
        Data folder (``--data``) for the catalogue check.
    check_files : bool
        Check now that ``objects.catalogue`` is found (:meth:`SsaScenario.catalogue_file`);
        the sensors file is always read now.

    Returns
    -------
    SsaScenario
        ``source`` the file's absolute path, ``text`` and ``sha256`` of the file.

    Raises
    ------
    ScenarioError
        One line naming the file, line and key: a missing file, text that is not UTF-8,
        a TOML syntax error (with tomllib's line and column), an unknown key (with the
        nearest valid key), a wrong type or value, a missing catalogue or sensors file;
        see the section classes.

    Notes
    -----
    TOML v1.0.0 (:mod:`tomllib`).
    """
    path = Path(path).expanduser().absolute()
    raw = _read_file(path, "scenario")
    source = str(path)
    text = _decode(raw, source)
    document = _parse_toml(text, source)
    scenario = _from_document(document, source, text, path.parent, hashlib.sha256(raw).hexdigest())
    if check_files:
        scenario.catalogue_file(data_folder)
    return scenario


def default_scenario():
    """The shipped scenario ``scenarios/default.toml``: the ``ssa-catalog`` study.

    Returns
    -------
    SsaScenario
        ``source`` ``"<default>"``: the eight radars of
        :data:`~ssa_privacy.sensors.networks.SITES` with their 5-deg mask and noise, 50 LEO
        objects of ``active_satellites_2026-03-19.tle``, a 24-h window in 30-s steps,
        14 days' staleness, 20-min passes, pass budgets 10/14/20 and measurement levels
        7/12/24 nats at delta 0.01 (exact convention), Earth orientation ``"none"``. Its
        files are looked up in the data folder.

    Raises
    ------
    ScenarioError
        If the packaged file is missing or broken (an installation error).

    Notes
    -----
    Read through :mod:`importlib.resources`; :doc:`/studies/ssa-catalog`.

    Examples
    --------
    >>> from ssa_privacy.studies.scenario import default_scenario
    >>> scenario = default_scenario()
    >>> [sensor.name for sensor in scenario.sensors[:3]], scenario.window.hours
    (['Eglin', 'Cobra Dane', 'Clear'], 24.0)
    >>> scenario.build_sensors()[0].elevation_mask
    5.0
    """
    resource = resources.files("ssa_privacy.studies").joinpath(_SCENARIOS, _DEFAULT_FILE)
    if not resource.is_file():
        raise ScenarioError(
            f"the packaged scenario {_SCENARIOS}/{_DEFAULT_FILE} is missing (check the "
            "installation's package data)",
            source=DEFAULT_SOURCE,
        )
    raw = resource.read_bytes()
    text = _decode(raw, DEFAULT_SOURCE)
    document = _parse_toml(text, DEFAULT_SOURCE)
    return _from_document(document, DEFAULT_SOURCE, text, None, hashlib.sha256(raw).hexdigest())


def read_stations(path):
    """A sensor network from a TOML file of ``[[sensors]]`` tables or a GeoJSON file.

    Parameters
    ----------
    path : str or path-like
        ``.toml``: only ``[[sensors]]`` tables (the keys of :class:`SensorSpec`).
        ``.geojson`` or ``.json``: a GeoJSON FeatureCollection of Point features; each
        Point's ``coordinates`` are ``[longitude, latitude]`` or ``[longitude, latitude,
        height]`` with the height in **metres** above the WGS-84 ellipsoid (RFC 7946
        §3.1.1 and §4); its ``properties`` carry the other sensor keys (``name``
        required). ``latitude_deg``, ``longitude_deg`` and ``height_km`` in the properties
        must be absent or agree with the Point (to 1e-9 deg and 1e-9 km); without a third
        coordinate the height is ``height_km`` of the properties, else 0.

    Returns
    -------
    tuple of SensorSpec
        In file order.

    Raises
    ------
    ScenarioError
        One line naming the file and the key (``sensors[i].key`` in TOML,
        ``features[i].properties.key`` or ``features[i].geometry.coordinates`` in
        GeoJSON): a missing file, an unknown suffix, a syntax error (with its line), a
        feature that is not a Point, a position with fewer than 2 or more than 3 numbers,
        a disagreeing property, no sensor, a repeated name, or any error of
        :class:`SensorSpec`.

    Notes
    -----
    H. Butler et al., "The GeoJSON Format", RFC 7946 (2016), §3.1.1, §3.2, §3.3, §4.
    """
    path = Path(path).expanduser()
    source = str(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".geojson", ".json"):
        raise ScenarioError(
            f"stations file must end in .toml, .geojson or .json, got {path.name!r}", source=source
        )
    text = _decode(_read_file(path, "stations"), source)
    if suffix == ".toml":
        document = _parse_toml(text, source)
        try:
            _check_keys(document, ("sensors",), None)
            tables = _table(document.get("sensors", []), "sensors", array=True)
        except ScenarioError as error:
            raise error.within(source=source, text=text) from None
        sensors = _sensor_tables(tables, "sensors", source, text)
        prefix = "sensors"
    else:
        sensors = _geojson_sensors(text, source)
        prefix = "features"
    if not sensors:
        raise ScenarioError("the stations file holds no sensor", source=source, key=prefix)
    for k, sensor in enumerate(sensors):
        first = next(j for j, s in enumerate(sensors) if s.name == sensor.name)
        if first != k:
            key = f"{prefix}[{k}].name" if prefix == "sensors" else f"{prefix}[{k}].properties.name"
            raise ScenarioError(
                f"{sensor.name!r} is also the name of {prefix}[{first}]; names must be distinct",
                source=source,
                key=key,
                sensor=sensor.name,
                line=_locate(text, key) if prefix == "sensors" else None,
            )
    return tuple(sensors)


def _geojson_sensors(text, source):
    """The sensors of a GeoJSON FeatureCollection of Points (RFC 7946)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ScenarioError(
            f"JSON syntax error at column {error.colno}: {error.msg}",
            source=source,
            line=error.lineno,
        ) from None

    def fail(problem, key, sensor=None):
        return ScenarioError(problem, source=source, key=key, sensor=sensor)

    if not isinstance(document, dict) or document.get("type") != "FeatureCollection":
        found = document.get("type") if isinstance(document, dict) else _kind_of(document)
        raise fail(f"must be a GeoJSON FeatureCollection, got {found!r}", "type")
    features = document.get("features")
    if not isinstance(features, list):
        raise fail(f"must be an array of features, got {_kind_of(features)}", "features")
    sensors = []
    for k, feature in enumerate(features):
        where = f"features[{k}]"
        if not isinstance(feature, dict) or feature.get("type") != "Feature":
            raise fail('must be a GeoJSON Feature ("type": "Feature")', f"{where}.type")
        properties = feature.get("properties") or {}
        if not isinstance(properties, dict):
            raise fail(f"must be an object, got {_kind_of(properties)}", f"{where}.properties")
        name = properties.get("name") if isinstance(properties.get("name"), str) else None
        geometry = feature.get("geometry")
        if not isinstance(geometry, dict) or geometry.get("type") != "Point":
            found = geometry.get("type") if isinstance(geometry, dict) else geometry
            raise fail(f"must be a Point, got {found!r}", f"{where}.geometry.type", name)
        position = geometry.get("coordinates")
        if not isinstance(position, list) or not 2 <= len(position) <= 3:
            raise fail(
                "must be [longitude, latitude] or [longitude, latitude, height in metres] "
                f"(RFC 7946 §3.1.1), got {position!r}",
                f"{where}.geometry.coordinates",
                name,
            )
        keys = ("longitude_deg", "latitude_deg", "height_m")
        try:
            values = [_number(v, keys[j]) for j, v in enumerate(position)]
        except ScenarioError as error:
            raise fail(
                error.problem, f"{where}.geometry.coordinates[{keys.index(error.key)}]", name
            ) from None
        site = {"longitude_deg": values[0], "latitude_deg": values[1]}
        if len(values) == 3:
            site["height_km"] = values[2] / 1000.0
        table = dict(properties)
        for key, value in site.items():
            if key in table:
                given = table[key]
                number = not isinstance(given, bool) and isinstance(given, int | float)
                if not number or abs(given - value) > _GEOJSON_TOLERANCE[key]:
                    shown = (
                        f"{value:g} (from {values[2]:g} m)" if key == "height_km" else f"{value:g}"
                    )
                    raise fail(
                        f"must be absent or agree with the Point's coordinates ({shown}), got "
                        f"{given!r}",
                        f"{where}.properties.{key}",
                        name,
                    )
            table[key] = value
        try:
            sensors.append(_sensor(table, f"{where}.properties"))
        except ScenarioError as error:
            raise error.within(source=source) from None
    return sensors


# -- overrides ----------------------------------------------------------------------------------


def _override_key(key):
    """(section, field) of an override key, bare (``hours``) or dotted (``window.hours``)."""
    fields = {f: s for s, cls in _SECTION_TYPES.items() for f in _section_keys(cls)}
    if "." in key:
        section, _, name = key.partition(".")
        if section in _SECTION_TYPES and name in _section_keys(_SECTION_TYPES[section]):
            return section, name
    elif key in fields:
        return fields[key], key
    valid = sorted(list(fields) + [f"{s}.{f}" for f, s in fields.items()])
    raise ScenarioError(f"unknown key{_suggest(key, valid)}", source="<override>", key=key)


def with_overrides(scenario, tle=None, stations=None, **keys):
    """The scenario with its catalogue, sensors or single keys replaced.

    Parameters
    ----------
    scenario : SsaScenario
        The scenario to change.
    tle : str or path-like, optional
        Element-set file replacing ``objects.catalogue`` (a command-line path: relative to
        the current folder). Recorded in ``inputs`` with its SHA-256.
    stations : str or path-like, optional
        Stations file replacing the sensors (:func:`read_stations`); recorded likewise.
    **keys
        Section keys, bare (``hours=12``) or dotted (``**{"window.hours": 12}``), with
        their new values in file units; None leaves a key as it is. Giving ``norad_ids``
        clears ``regime`` and ``sample``, and giving ``regime`` or ``sample`` clears
        ``norad_ids``.

    Returns
    -------
    SsaScenario
        The new scenario, every section checked again; ``source``, ``text`` and
        ``sha256`` are the original file's, ``inputs`` and ``overrides`` say what changed.

    Raises
    ------
    ScenarioError
        Naming ``<override>`` and the key: an unknown key (with the nearest valid one), a
        bad value, a missing file, or any error of the files read.
    TypeError
        If ``scenario`` is not an SsaScenario.

    Notes
    -----
    Provenance as :meth:`SsaScenario.as_record`.
    """
    if not isinstance(scenario, SsaScenario):
        raise TypeError(f"scenario must be an SsaScenario, got {type(scenario).__name__}")
    changes, recorded = _key_changes(keys)
    inputs = list(scenario.inputs)
    if tle is not None:
        path = _override_file(tle, "tle")
        changes.setdefault("objects", {})["catalogue"] = str(path.resolve())
        inputs.append({"role": "objects.catalogue (override)", **file_record(path)})
        recorded.append(("objects.catalogue", str(path.resolve())))
    sections = {}
    for section, values in changes.items():
        try:
            sections[section] = dataclasses.replace(getattr(scenario, section), **values)
        except ScenarioError as error:
            raise error.within(section, source="<override>") from None
    sensors = scenario.sensors
    if stations is not None:
        path = _override_file(stations, "stations")
        sensors = read_stations(path)
        inputs.append({"role": "sensors (override)", **file_record(path)})
        recorded.append(("sensors", str(path.resolve())))
    try:
        return dataclasses.replace(
            scenario,
            **sections,
            sensors=sensors,
            inputs=tuple(inputs),
            overrides=scenario.overrides + tuple(recorded),
        )
    except ScenarioError as error:
        raise error.within(source="<override>") from None


def _key_changes(keys):
    """Overridden keys by section, and the (dotted key, value) record; None keeps a key.

    Catalogue numbers and sampling exclude each other: giving one clears the other."""
    changes, recorded = {}, []
    for key, value in keys.items():
        if value is None:
            continue
        section, name = _override_key(key)
        changes.setdefault(section, {})[name] = value
        recorded.append((f"{section}.{name}", value))
    objects = changes.get("objects", {})
    if "norad_ids" in objects:
        objects.setdefault("regime", None)
        objects.setdefault("sample", None)
    elif "regime" in objects or "sample" in objects:
        objects["norad_ids"] = None
    return changes, recorded


def _override_file(name, key):
    """The path of an override file, or a ScenarioError naming ``key``."""
    path = Path(name).expanduser()
    if not path.is_file():
        raise ScenarioError(f"file not found: {str(path)!r}", source="<override>", key=key)
    return path


# -- writing -----------------------------------------------------------------------------------


def _toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def scenario_toml(scenario):
    """A scenario as the text of a scenario file, every value written out.

    Parameters
    ----------
    scenario : SsaScenario
        The scenario.

    Returns
    -------
    str
        TOML text that :func:`load_scenario` reads back to an equal scenario (the sensors
        written as ``[[sensors]]`` tables, a sensors file's content included).

    Raises
    ------
    TypeError
        If ``scenario`` is not an SsaScenario.

    Notes
    -----
    TOML v1.0.0: basic strings (JSON escapes are valid TOML escapes), floats as
    :func:`repr` (shortest round-trip decimal).
    """
    if not isinstance(scenario, SsaScenario):
        raise TypeError(f"scenario must be an SsaScenario, got {type(scenario).__name__}")
    values = scenario.to_dict()
    lines = []
    if "description" in values:
        lines += [f"description = {_toml_value(values.pop('description'))}", ""]
    sensors = values.pop("sensors")
    for name, table in values.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
        lines.append("")
    for sensor in sensors:
        lines.append("[[sensors]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in sensor.items()]
        lines.append("")
    return "\n".join(lines)


def write_scenario(scenario, path):
    """Write a scenario file (:func:`scenario_toml`), atomically.

    Parameters
    ----------
    scenario : SsaScenario
        The scenario.
    path : str or path-like
        Target file (replaced).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    TypeError
        If ``scenario`` is not an SsaScenario.
    OSError
        If the file cannot be written.

    Notes
    -----
    :func:`ssa_privacy.engine.output.write_text_atomic`.
    """
    path = Path(path)
    write_text_atomic(path, scenario_toml(scenario))
    return path


def check_window(scenario, catalogue_epochs_jd, start_jd):
    """Check that some element set is within ``staleness_days`` of the window start.

    Parameters
    ----------
    scenario : SsaScenario
        Gives ``window.staleness_days`` and the file for the message.
    catalogue_epochs_jd : array_like of float, shape (n,)
        Epochs (Julian dates, UTC) of the catalogue's element sets, n >= 1.
    start_jd : float
        Window start (Julian date, UTC), given or by the catalogue rule.

    Returns
    -------
    int
        How many element sets have their epoch within ``staleness_days`` of the start.

    Raises
    ------
    ScenarioError
        Naming ``window.start``: the start is further than ``staleness_days`` from every
        epoch (the message gives the distance and the catalogue's span); also naming
        ``catalogue_epochs_jd`` or ``start_jd`` if they are not finite numbers or there
        is no epoch.
    TypeError
        If ``scenario`` is not an SsaScenario or the epochs are not iterable.

    Notes
    -----
    The staleness rule of :func:`~ssa_privacy.orbits.catalog.stale_element_sets`: an element
    set is usable when ``|epoch - start| <= staleness_days``.
    """
    if not isinstance(scenario, SsaScenario):
        raise TypeError(f"scenario must be an SsaScenario, got {type(scenario).__name__}")
    epochs = [
        _number(e, "catalogue_epochs_jd")
        for e in _array(list(catalogue_epochs_jd), "catalogue_epochs_jd")
    ]
    start = _number(start_jd, "start_jd")
    limit = scenario.window.staleness_days
    usable = sum(abs(e - start) <= limit for e in epochs)
    if usable:
        return usable
    first, last = min(epochs), max(epochs)
    side = (
        f"{start - last:.1f} days after the newest"
        if start > last
        else f"{first - start:.1f} days before the oldest"
    )
    given = "" if scenario.window.start is not None else " (the catalogue rule's start)"
    error = ScenarioError(
        f"the window start {utc_text(start)}{given} is {side} element set epoch (the catalogue "
        f"spans {utc_text(first)} to {utc_text(last)}); no element set is within "
        f"staleness_days = {limit:g} days of it",
        source=scenario.source,
        key="window.start",
    )
    raise error.within(text=scenario.text) if scenario.text else error
