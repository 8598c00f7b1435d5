"""Reading scenario files and sensor networks (TOML and GeoJSON).

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import hashlib
import json
import re
import tomllib
from importlib import resources
from pathlib import Path

from ssa_privacy.sensors.stations import SITE_HEIGHT_RANGE_KM
from ssa_privacy.studies.scenario.checks import (
    _DEFAULT_FILE,
    _GEOJSON_TOLERANCE,
    _SCENARIOS,
    DEFAULT_SOURCE,
    SENSOR_KINDS,
    ScenarioError,
    _array,
    _check_keys,
    _kind_of,
    _locate,
    _number,
    _string,
)
from ssa_privacy.studies.scenario.files import file_record, resolve
from ssa_privacy.studies.scenario.sensors import (
    _COMMON_KEYS,
    _KIND_KEYS,
    SensorSpec,
    _repeated_name,
    _wrong_kind,
)
from ssa_privacy.studies.scenario.ssa_scenario import (
    _SECTION_TYPES,
    _TOP_KEYS,
    SsaScenario,
    _section_keys,
)

__all__ = [
    "default_scenario",
    "load_scenario",
    "read_stations",
]


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
        One line naming the file and the key as written (``sensors[i].key`` in TOML;
        ``features[i].properties.key``, ``features[i].geometry.coordinates[j]`` or
        ``crs`` in GeoJSON): a missing file or a folder, an unknown suffix, a syntax error
        (with its line), a JSON member given twice in one object, a ``crs`` member (of the
        collection, a feature or a geometry) that is not WGS 84 longitude-latitude
        (:data:`WGS84_CRS_NAMES`) or is null, a feature that is not a Point, a position
        with fewer than 2 or more than 3 numbers or out of range (the height in metres,
        in [-1000, 10000]), a disagreeing property, no sensor, a repeated name (compared
        as Unicode NFC), or any error of :class:`SensorSpec` (a coordinate's named at its
        place in the Point).

    Notes
    -----
    H. Butler et al., "The GeoJSON Format", RFC 7946 (2016), §3.1.1, §3.2, §3.3, §4;
    the ``crs`` member: H. Butler et al., "The GeoJSON Format Specification" (2008),
    §3; duplicate member names: RFC 8259 §4.
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
    repeated = _repeated_name(sensors)
    if repeated is not None:
        k, first = repeated
        key = f"{prefix}[{k}].name" if prefix == "sensors" else f"{prefix}[{k}].properties.name"
        raise ScenarioError(
            f"{sensors[k].name!r} is also the name of {prefix}[{first}]; names must be distinct",
            source=source,
            key=key,
            sensor=sensors[k].name,
            line=_locate(text, key) if prefix == "sensors" else None,
        )
    return tuple(sensors)


#: ``crs`` names of WGS 84 longitude-latitude (GeoJSON 2008 §3.1; RFC 7946 §4 dropped the
#: member: coordinates are WGS 84). EPSG:4326 is the same datum; GeoJSON orders its
#: coordinates longitude first all the same.
WGS84_CRS_NAMES = (
    "urn:ogc:def:crs:OGC:1.3:CRS84",
    "urn:ogc:def:crs:OGC::CRS84",
    "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
    "OGC:CRS84",
    "CRS84",
    "urn:ogc:def:crs:EPSG::4326",
    "http://www.opengis.net/def/crs/EPSG/0/4326",
    "EPSG:4326",
)
#: Where a Point's coordinates go among the sensor's keys (height in metres, RFC 7946 §4).
_POSITION_KEYS = ("longitude_deg", "latitude_deg", "height_m")


class _Members(dict):
    """A JSON object as read, with the first member name given twice, if any."""

    repeated = None


def _members(pairs):
    """``object_pairs_hook``: keep the object, note a member name given twice (RFC 8259 §4:
    names SHOULD be unique; Python's reader would keep the last silently)."""
    members = _Members(pairs)
    names = [name for name, _ in pairs]
    members.repeated = next((n for k, n in enumerate(names) if n in names[:k]), None)
    return members


def _repeated_member(node, where=""):
    """The dotted place of the first member name given twice in a JSON document, or None."""
    if isinstance(node, _Members):
        if node.repeated is not None:
            return f"{where}.{node.repeated}" if where else node.repeated
        items = node.items()
        return next(
            (p for k, v in items if (p := _repeated_member(v, f"{where}.{k}" if where else k))),
            None,
        )
    if isinstance(node, list):
        return next(
            (p for k, v in enumerate(node) if (p := _repeated_member(v, f"{where}[{k}]"))), None
        )
    return None


def _json_text(value):
    """A JSON value as JSON writes it (``null``, ``[[1, 2]]``), cut to 80 characters."""
    return json.dumps(value)[:80]


def _check_crs(value, key):
    """Refuse a ``crs`` member other than WGS 84 longitude-latitude."""
    name = None
    if isinstance(value, dict) and value.get("type") == "name":
        properties = value.get("properties")
        name = properties.get("name") if isinstance(properties, dict) else None
    if name in WGS84_CRS_NAMES:
        return
    if value is None:
        found = "is null (no coordinate reference system can be assumed)"
    else:
        shown = repr(name) if isinstance(name, str) else _json_text(value)
        found = f"names the coordinate reference system {shown}"
    raise ScenarioError(
        f"{found}; the positions must be WGS 84 longitude and latitude (RFC 7946 §4): leave "
        'crs out, or name "urn:ogc:def:crs:OGC:1.3:CRS84"',
        key=key,
    )


def _geojson_sensors(text, source):
    """The sensors of a GeoJSON FeatureCollection of Points (RFC 7946)."""
    try:
        document = json.loads(text, object_pairs_hook=_members)
    except json.JSONDecodeError as error:
        raise ScenarioError(
            f"JSON syntax error at column {error.colno}: {error.msg}",
            source=source,
            line=error.lineno,
        ) from None

    def fail(problem, key, sensor=None):
        return ScenarioError(problem, source=source, key=key, sensor=sensor)

    repeated = _repeated_member(document)
    if repeated is not None:
        raise fail(
            "is given twice in one object (JSON readers differ on which one counts)", repeated
        )
    if not isinstance(document, dict) or document.get("type") != "FeatureCollection":
        found = (
            _json_text(document.get("type")) if isinstance(document, dict) else _kind_of(document)
        )
        raise fail(f"must be a GeoJSON FeatureCollection, got {found}", "type")
    features = document.get("features")
    if not isinstance(features, list):
        raise fail(f"must be an array of features, got {_kind_of(features)}", "features")
    try:
        if "crs" in document:
            _check_crs(document["crs"], "crs")
        return [_feature_sensor(feature, f"features[{k}]") for k, feature in enumerate(features)]
    except ScenarioError as error:
        raise error.within(source=source) from None


def _feature_sensor(feature, where):
    """The SensorSpec of one Feature; errors name ``features[k]....`` as written."""
    if not isinstance(feature, dict) or feature.get("type") != "Feature":
        raise ScenarioError('must be a GeoJSON Feature ("type": "Feature")', key=f"{where}.type")
    properties = feature.get("properties")
    properties = {} if properties is None else properties
    if not isinstance(properties, dict):
        raise ScenarioError(
            f"must be an object, got {_kind_of(properties)}", key=f"{where}.properties"
        )
    name = properties.get("name") if isinstance(properties.get("name"), str) else None
    geometry = feature.get("geometry")
    if "crs" in feature:
        _check_crs(feature["crs"], f"{where}.crs")
    if isinstance(geometry, dict) and "crs" in geometry:
        _check_crs(geometry["crs"], f"{where}.geometry.crs")
    if not isinstance(geometry, dict) or geometry.get("type") != "Point":
        found = geometry.get("type") if isinstance(geometry, dict) else geometry
        raise ScenarioError(
            f"must be a Point, got {_json_text(found)}", key=f"{where}.geometry.type", sensor=name
        )
    site = _point_site(geometry.get("coordinates"), f"{where}.geometry.coordinates", name)
    table = dict(properties)
    for key, (value, written) in site.items():
        if key in table:
            given = table[key]
            number = not isinstance(given, bool) and isinstance(given, int | float)
            if not number or abs(given - value) > _GEOJSON_TOLERANCE[key]:
                raise ScenarioError(
                    f"must be absent or agree with the Point's coordinates ({written}), got "
                    f"{given!r}",
                    key=f"{where}.properties.{key}",
                    sensor=name,
                )
        table[key] = value
    try:
        return _sensor(table)
    except ScenarioError as error:
        key = error.key
        if key in site:  # the value the user wrote in the Point
            index = _POSITION_KEYS.index("height_m" if key == "height_km" else key)
            raise ScenarioError(
                error.problem, key=f"{where}.geometry.coordinates[{index}]", sensor=name
            ) from None
        raise error.within(f"{where}.properties") from None


def _point_site(position, key, name):
    """The site keys a Point's coordinates give: key -> (value, as written)."""
    if not isinstance(position, list) or not 2 <= len(position) <= 3:
        raise ScenarioError(
            "must be [longitude, latitude] or [longitude, latitude, height in metres] "
            f"(RFC 7946 §3.1.1), got {_json_text(position)}",
            key=key,
            sensor=name,
        )
    values = []
    for j, value in enumerate(position):
        try:
            values.append(_number(value, _POSITION_KEYS[j]))
        except ScenarioError as error:
            raise ScenarioError(error.problem, key=f"{key}[{j}]", sensor=name) from None
    site = {
        "longitude_deg": (values[0], f"{values[0]:g}"),
        "latitude_deg": (values[1], f"{values[1]:g}"),
    }
    if len(values) == 3:
        low, high = (1000.0 * h for h in SITE_HEIGHT_RANGE_KM)
        if not low <= values[2] <= high:
            raise ScenarioError(
                f"a ground site's height must lie in [{low:g}, {high:g}] m above the WGS-84 "
                f"ellipsoid (RFC 7946 §4: metres), got {values[2]:g}",
                key=f"{key}[2]",
                sensor=name,
            )
        site["height_km"] = (values[2] / 1000.0, f"{values[2] / 1000.0:g} km, from {values[2]:g} m")
    return site
