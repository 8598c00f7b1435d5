"""Scenario errors and the checks of a scenario file's values.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import datetime
import difflib
import math
import numbers
import re

from ssa_privacy.orbits.catalog import parse_utc
from ssa_privacy.sensors.optical import OpticalStation
from ssa_privacy.sensors.stations import GroundStation

__all__ = [
    "DEFAULT_SOURCE",
    "EARTH_ORIENTATIONS",
    "LONGEST_PASS_MIN",
    "SECTIONS",
    "SENSOR_KINDS",
    "ScenarioError",
]


#: The ``source`` of the shipped default scenario (``scenarios/default.toml``).
DEFAULT_SOURCE = "<default>"
#: The tables of a scenario file, in order (``[[sensors]]`` apart).
SECTIONS = ("window", "objects", "earth", "privacy", "filter")
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
    top_level = name is None and section not in (*SECTIONS, "sensors")
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
