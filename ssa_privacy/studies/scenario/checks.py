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
    "MAX_BUDGET",
    "MAX_PASS_SAMPLES",
    "MAX_TIME_STEPS",
    "MAX_WINDOW_HOURS",
    "MIN_STEP_S",
    "SECTIONS",
    "SENSOR_KINDS",
    "ScenarioError",
]


#: The ``source`` of the shipped default scenario (``scenarios/default.toml``).
DEFAULT_SOURCE = "<default>"
#: The tables of a scenario file, in order (``[[sensors]]`` apart).
SECTIONS = ("window", "objects", "earth", "privacy", "filter")
#: Earth orientation models of ``earth.orientation``: neglected, from the offline IERS
#: table (an error when the window is not within it), or from the table where it covers
#: the window and neglected otherwise (``results.json`` says which).
EARTH_ORIENTATIONS = ("none", "iers", "iers-or-none")
#: Sensor kinds of ``sensors[i].kind``.
SENSOR_KINDS = ("radar", "optical")
#: Default longest pass (min): a stretch in view beyond it is cut into passes of this length.
LONGEST_PASS_MIN = 20.0
#: Largest budget (nats) of ``privacy.*_epsilons`` (with a sensor's ``epsilon_offset``).
#: The least-trace noise meeting a budget epsilon has about ``exp(-(epsilon - floor) / (w
#: r))`` of the prior's spread in each of the r directions a pass sees (w = 1 for the
#: exact convention, 2 for the paper's;
#: :func:`~ssa_privacy.privacy.pml.stream_design.information_limited_noise`): at 100
#: nats under 2.3e-7 of it for a pass that sees all six directions (5e-4 with the
#: paper's weight), far below any sensor's noise, so a larger budget releases the
#: measurements as they are (the study's ``"none"`` level). Beyond some 800 nats the
#: designs' noise underflows and cannot be computed.
MAX_BUDGET = 100.0
#: Largest window (h): 366 days. The J2 truth and its transition matrices are integrated
#: over the whole window (a cost that grows with the number of orbits), and element sets
#: predict for days to weeks.
MAX_WINDOW_HOURS = 366 * 24.0
#: Smallest measurement interval (s): 1 ms, above the rate of any tracking sensor.
MIN_STEP_S = 1e-3
#: Most time steps of a window (``hours * 3600 / step_s``): each object of a runner task
#: holds its nominal track, transition matrices and truth, 48 numbers (384 bytes) a step,
#: so a task of 5 objects holds 1.9 GB at this limit.
MAX_TIME_STEPS = 1_000_000
#: Most samples of one pass (``longest_pass_min * 60 / step_s``): a contact's noise
#: covariance is dense, (rows x samples) squared; two LEO objects tracked for an hour
#: at 1 s with 20-min passes (1200 samples) held 2.5 GB and took 3 minutes.
MAX_PASS_SAMPLES = 1200
#: Package folder holding the shipped scenarios.
_SCENARIOS = "scenarios"
_DEFAULT_FILE = "default.toml"
#: Agreement asked of a GeoJSON Point and the same value in its properties.
_GEOJSON_TOLERANCE = {"latitude_deg": 1e-9, "longitude_deg": 1e-9, "height_km": 1e-9}
#: Rows of one measurement of each kind: (az, el, range, range rate) and (ra, dec).
_MEASUREMENT_ROWS = {"radar": GroundStation.rows, "optical": OpticalStation.rows}
#: Units of the keys whose name carries none.
_UNITS_OF_PLAIN_KEYS = {"hours": "h"}
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
    ``sensor`` hold the parts. The class attribute ``names_keys_as_written`` (True) says
    that the message names every key as the user wrote it (a TOML key, or an option as
    typed): a command line should print it unchanged.
    """

    names_keys_as_written = True

    def __init__(self, problem, *, source=None, key=None, line=None, sensor=None):
        self.problem = " ".join(line.strip() for line in str(problem).splitlines() if line.strip())
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


def _locate(text, key, exact=False):
    """1-based line of ``key`` (dotted, as ScenarioError names it) in a TOML text, or None.

    A light scan of table headers and ``key =`` lines: enough for the files this module
    reads (no inline tables). A key not written in the file: the line of its table's
    header, or (``exact``) None.
    """
    section, index, name = _key_parts(key)
    if section is None:
        return None
    top_level = name is None  # a top-level key, or a table written as a value
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
    return None if exact else header_line


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
    """Distinct positive budgets (nats) of at most :data:`MAX_BUDGET`, as a tuple of floats."""
    values = _array(value, key, empty=empty)
    out = tuple(_positive(v, f"{key}[{k}]", "nats") for k, v in enumerate(values))
    for k, v in enumerate(out):
        if v > MAX_BUDGET:
            raise ScenarioError(_too_large(v), key=f"{key}[{k}]")
    for k, v in enumerate(out):
        if v in out[:k]:
            raise ScenarioError(f"{v:g} is listed twice", key=f"{key}[{k}]")
    return out


def _too_large(budget):
    """Why a budget above :data:`MAX_BUDGET` is refused: ``"<budget> nats is above ..."``."""
    return (
        f"{budget:g} nats is above {MAX_BUDGET:g}, the largest budget the designs take: the "
        "noise they would add is far below any sensor's (the level would release the "
        "measurements as they are, as the 'none' level does)"
    )


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
        unit = same[0][len(stem) + 1 :] or _UNITS_OF_PLAIN_KEYS.get(same[0])
        return f"; units are fixed: did you mean {same[0]}" + (f" (unit {unit})?" if unit else "?")
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
