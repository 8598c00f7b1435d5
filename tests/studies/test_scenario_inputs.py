"""A corpus of bad and unusual scenario files, stations files and options of ssa-catalog.

Every case gives a correct result or one clear line: a :class:`ScenarioError` naming the
key as the user wrote it (the dotted TOML key, ``features[i]....`` in GeoJSON, the
option as typed on the command line), the file and, in TOML, the line (each case marks
the line it expects with ``# <-``). On the command line the same cases end with exit
status 2 and one line on standard error, before anything is computed. The catalogue is
one ISS element set (epoch 2020-01-01 19:42 UTC), written beside each file.
"""

import json

import pytest

from ssa_privacy.cli import main
from ssa_privacy.orbits.catalog import parse_utc, utc_text
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.sensors.earth_orientation import iers_table_range
from ssa_privacy.studies import _ssa_network_scenario as network_scenario
from ssa_privacy.studies.scenario import (
    MAX_BUDGET,
    ScenarioError,
    check_objects,
    check_window,
    load_scenario,
    read_stations,
    scenario_toml,
)
from ssa_privacy.studies.ssa_catalog.options import CatalogOptions
from ssa_privacy.studies.ssa_leakage import LeakageOptions
from ssa_privacy.studies.ssa_network import NetworkOptions

SENSOR = '[[sensors]]\nname = "A"\nlatitude_deg = 10.0\nlongitude_deg = 20.0\n'
OBJECTS = '[objects]\ncatalogue = "iss.tle"\n'
MARK = "# <-"


def _folder(tmp_path):
    element_set = iss_element_set()
    (tmp_path / "iss.tle").write_text(
        f"{element_set.name}\n{element_set.line1}\n{element_set.line2}\n"
    )
    return tmp_path


def _scenario_text(text):
    """A case's text with the objects (unless it has them) and a sensor (unless it has one)."""
    if "[objects]" not in text:
        text += OBJECTS
    elif "catalogue =" not in text:
        text = text.replace("[objects]\n", OBJECTS, 1)
    if "sensors" not in text:
        text += SENSOR
    return text


def _marked_line(text):
    lines = [k for k, line in enumerate(text.splitlines(), 1) if MARK in line]
    return lines[0] if lines else None


def _one_line(error, source):
    message = str(error)
    assert "\n" not in message, message
    if source is not None:
        assert message.startswith(str(source)), message
    return message


# -- scenario files (TOML) ---------------------------------------------------------------------

#: id -> (text, the key named, words of the problem). The line marked ``# <-`` is named.
BAD_TOML = {
    "hours as a string": ('[window]\nhours = "3"  # <-\n', "window.hours", "a string"),
    "hours as a boolean": ("[window]\nhours = true  # <-\n", "window.hours", "a boolean"),
    "hours nan": ("[window]\nhours = nan  # <-\n", "window.hours", "finite"),
    "hours inf": ("[window]\nhours = inf  # <-\n", "window.hours", "finite"),
    "hours negative": ("[window]\nhours = -1  # <-\n", "window.hours", "positive"),
    "hours beyond a year": ("[window]\nhours = 1e9  # <-\n", "window.hours", "8784 h"),
    "unit in the key of hours": (
        "[window]\nhours_h = 3  # <-\n",
        "window.hours_h",
        "did you mean hours (unit h)?",
    ),
    "step in ms": ("[window]\nstep_ms = 3  # <-\n", "window.step_ms", "did you mean step_s"),
    "step below a millisecond": ("[window]\nstep_s = 1e-300  # <-\n", "window.step_s", "0.001 s"),
    "step longer than the window": (
        "[window]\nhours = 1\nstep_s = 7200  # <-\n",
        "window.step_s",
        "at most the window",
    ),
    "too many time steps": (
        "[window]\nhours = 8000\nstep_s = 1  # <-\n",
        "window.step_s",
        "28,800,000 time steps",
    ),
    "pass longer than a run holds": (
        "[window]\nlongest_pass_min = 1e9  # <-\n",
        "window.longest_pass_min",
        "samples a pass",
    ),
    "staleness zero": ("[window]\nstaleness_days = 0  # <-\n", "window.staleness_days", "positive"),
    "start not ISO 8601": ('[window]\nstart = "yesterday"  # <-\n', "window.start", "ISO 8601"),
    "start an integer": ("[window]\nstart = 2026  # <-\n", "window.start", "a string"),
    "start a TOML time": ("[window]\nstart = 12:00:00  # <-\n", "window.start", "a time"),
    "unknown section": ("[windows]  # <-\nhours = 3\n", "windows", "did you mean window?"),
    "section written as an array": (
        "[[window]]  # <-\nhours = 3\n",
        "window",
        "array of tables",
    ),
    "section as a value": ("window = 3  # <-\n", "window", "must be a table"),
    "top-level key of a section": ("hours = 3  # <-\n", "hours", "unknown key"),
    "description a number": ("description = 3  # <-\n", "description", "a string"),
    "sample a float": ("[objects]\nsample = 5.0  # <-\n", "objects.sample", "an integer"),
    "sample zero": ("[objects]\nsample = 0  # <-\n", "objects.sample", "at least 1"),
    "sample in capitals": ('[objects]\nsample = "ALL"  # <-\n', "objects.sample", '"all"'),
    "regime in capitals": ('[objects]\nregime = "LEO"  # <-\n', "objects.regime", "'leo'?"),
    "regime unknown": ('[objects]\nregime = "heo"  # <-\n', "objects.regime", "must be one of"),
    "norad_ids with a regime": (
        '[objects]\nnorad_ids = [25544]\nregime = "leo"  # <-\n',
        "objects.regime",
        "not both",
    ),
    "norad_ids empty": ("[objects]\nnorad_ids = []  # <-\n", "objects.norad_ids", "empty"),
    "norad_ids repeated": (
        "[objects]\nnorad_ids = [25544, 25544]  # <-\n",
        "objects.norad_ids[1]",
        "listed twice",
    ),
    "norad_ids repeated as Alpha-5": (
        '[objects]\nnorad_ids = [123456, "C3456"]  # <-\n',
        "objects.norad_ids[1]",
        "123456 is listed twice",
    ),
    "Alpha-5 in lower case": (
        '[objects]\nnorad_ids = ["c3456"]  # <-\n',
        "objects.norad_ids[0]",
        "capital letter",
    ),
    "Alpha-5 with an I": (
        '[objects]\nnorad_ids = ["I3456"]  # <-\n',
        "objects.norad_ids[0]",
        "other than I and O",
    ),
    "norad_id negative": ("[objects]\nnorad_ids = [-5]  # <-\n", "objects.norad_ids[0]", "least 1"),
    "norad_id zero as text": (
        '[objects]\nnorad_ids = ["00000"]  # <-\n',
        "objects.norad_ids[0]",
        "positive",
    ),
    "norad_ids not an array": (
        "[objects]\nnorad_ids = 25544  # <-\n",
        "objects.norad_ids",
        "an array",
    ),
    "norad_id a float": (
        "[objects]\nnorad_ids = [25544.0]  # <-\n",
        "objects.norad_ids[0]",
        "an integer",
    ),
    "catalogue empty": ('[objects]\ncatalogue = ""  # <-\n', "objects.catalogue", "empty"),
    "catalogue a folder": ('[objects]\ncatalogue = "."  # <-\n', "objects.catalogue", "folder"),
    "orientation in capitals": (
        '[earth]\norientation = "IERS"  # <-\n',
        "earth.orientation",
        "'iers'?",
    ),
    "orientation a boolean": (
        "[earth]\norientation = false  # <-\n",
        "earth.orientation",
        "a string",
    ),
    "delta 0": ("[privacy]\ndelta = 0  # <-\n", "privacy.delta", "(0, 1)"),
    "delta 1": ("[privacy]\ndelta = 1  # <-\n", "privacy.delta", "(0, 1)"),
    "delta so small no budget is feasible": (
        "[privacy]\ndelta = 1e-300\npass_epsilons = [10.0]  # <-\n",
        "privacy.pass_epsilons[0]",
        "at or below 703.2",
    ),
    "pass budgets a scalar": (
        "[privacy]\npass_epsilons = 10  # <-\n",
        "privacy.pass_epsilons",
        "an array",
    ),
    "pass budgets empty": (
        "[privacy]\npass_epsilons = []  # <-\n",
        "privacy.pass_epsilons",
        "empty",
    ),
    "pass budget 1e300": (
        "[privacy]\npass_epsilons = [1e300]  # <-\n",
        "privacy.pass_epsilons[0]",
        "1e+300 nats is above 100",
    ),
    "pass budget just above the ceiling": (
        "[privacy]\npass_epsilons = [100.5]  # <-\n",
        "privacy.pass_epsilons[0]",
        "above 100",
    ),
    "pass budget repeated": (
        "[privacy]\npass_epsilons = [10, 10.0]  # <-\n",
        "privacy.pass_epsilons[1]",
        "listed twice",
    ),
    "pass budget nan": (
        "[privacy]\npass_epsilons = [nan]  # <-\n",
        "privacy.pass_epsilons[0]",
        "finite",
    ),
    "pass budgets singular": (
        "[privacy]\npass_epsilon = [10]  # <-\n",
        "privacy.pass_epsilon",
        "did you mean pass_epsilons? (valid keys: delta, convention, pass_epsilons, "
        "measurement_epsilons, designers, day_epsilons)",
    ),
    "measurement level below its floor": (
        "[privacy]\nmeasurement_epsilons = [5]  # <-\n",
        "privacy.measurement_epsilons[0]",
        "at or below 6.638",
    ),
    "day budget below its floor": (
        "[privacy]\nday_epsilons = [8]  # <-\n",
        "privacy.day_epsilons[0]",
        "at or below 8.406",
    ),
    "day budget 1e6": (
        "[privacy]\nday_epsilons = [1e6]  # <-\n",
        "privacy.day_epsilons[0]",
        "above 100",
    ),
    "designer misspelt": (
        '[privacy]\ndesigners = ["logdett"]  # <-\n',
        "privacy.designers[0]",
        "'logdet'?",
    ),
    "designers empty": ("[privacy]\ndesigners = []  # <-\n", "privacy.designers", "empty"),
    "designer repeated": (
        '[privacy]\ndesigners = ["logdet", "logdet"]  # <-\n',
        "privacy.designers[1]",
        "listed twice",
    ),
    "process noise negative": (
        "[filter]\nprocess_noise_psd = -1  # <-\n",
        "filter.process_noise_psd",
        ">= 0",
    ),
    "no sensors": ("sensors = []  # <-\n", "sensors", "no sensors"),
    "sensors a single table": (
        '[sensors]  # <-\nname = "A"\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors",
        "array of tables",
    ),
    "sensor name with a line feed": (
        '[[sensors]]\nname = "A\\nB"  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[0].name",
        "U+000A (a control character)",
    ),
    "sensor name with a tab": (
        '[[sensors]]\nname = "A\\tB"  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[0].name",
        "U+0009",
    ),
    "sensor name blank": (
        '[[sensors]]\nname = "  "  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[0].name",
        "blank, got '  '",
    ),
    "sensor name empty": (
        '[[sensors]]\nname = ""  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[0].name",
        "empty",
    ),
    "sensor name with a leading blank": (
        '[[sensors]]\nname = " A"  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[0].name",
        "begin or end with blanks",
    ),
    "sensor name with a zero-width space": (
        '[[sensors]]\nname = "A\\u200bB"  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[0].name",
        "U+200B (an invisible character)",
    ),
    "sensor name a number": (
        "[[sensors]]\nname = 5  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n",
        "sensors[0].name",
        "a string",
    ),
    "duplicate sensors": (
        SENSOR + '[[sensors]]\nname = "A"  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[1].name",
        "also the name of sensors[0]",
    ),
    "names equal once composed (NFC)": (
        '[[sensors]]\nname = "Caf\\u00e9"\nlatitude_deg = 1\nlongitude_deg = 2\n'
        '[[sensors]]\nname = "Cafe\\u0301"  # <-\nlatitude_deg = 1\nlongitude_deg = 2\n',
        "sensors[1].name",
        "also the name of sensors[0]",
    ),
    "sensor without latitude": (
        '[[sensors]]  # <-\nname = "A"\nlongitude_deg = 2\n',
        "sensors[0].latitude_deg",
        "is missing",
    ),
    "latitude 95": (
        '[[sensors]]\nname = "A"\nlatitude_deg = 95  # <-\nlongitude_deg = 2\n',
        "sensors[0].latitude_deg",
        "[-90, 90] deg",
    ),
    "longitude 400": (
        '[[sensors]]\nname = "A"\nlatitude_deg = 5\nlongitude_deg = 400  # <-\n',
        "sensors[0].longitude_deg",
        "[-360, 360] deg",
    ),
    "height in metres as km": (
        SENSOR + "height_km = 2390  # <-\n",
        "sensors[0].height_km",
        "metres",
    ),
    "height -7 km": (SENSOR + "height_km = -7  # <-\n", "sensors[0].height_km", "[-1, 10] km"),
    "height in a key in metres": (
        SENSOR + "height_m = 2390  # <-\n",
        "sensors[0].height_m",
        "did you mean height_km (unit km)?",
    ),
    "latitude in radians": (
        '[[sensors]]\nname = "A"\nlatitude_rad = 0.5  # <-\nlongitude_deg = 2\n',
        "sensors[0].latitude_rad",
        "latitude_deg (unit deg)",
    ),
    "azimuth sector of width 0": (
        SENSOR + "azimuth_sector_deg = [10.0, 10.0]  # <-\n",
        "sensors[0].azimuth_sector_deg",
        "from = to",
    ),
    "azimuth sector 360 to 0": (
        SENSOR + "azimuth_sector_deg = [360.0, 0.0]  # <-\n",
        "sensors[0].azimuth_sector_deg",
        "the same azimuth",
    ),
    "azimuth sector of three values": (
        SENSOR + "azimuth_sector_deg = [10.0, 20.0, 30.0]  # <-\n",
        "sensors[0].azimuth_sector_deg",
        "3 values",
    ),
    "azimuth beyond 360": (
        SENSOR + "azimuth_sector_deg = [10.0, 361.0]  # <-\n",
        "sensors[0].azimuth_sector_deg[1]",
        "[0, 360]",
    ),
    "range limit zero": (
        SENSOR + "range_max_km = 0  # <-\n",
        "sensors[0].range_max_km",
        "positive",
    ),
    "a range minimum": (
        SENSOR + "range_min_km = 100  # <-\n",
        "sensors[0].range_min_km",
        "did you mean range_max_km?",
    ),
    "elevation mask 90": (
        SENSOR + "elevation_min_deg = 90  # <-\n",
        "sensors[0].elevation_min_deg",
        "[0, 90)",
    ),
    "unknown kind": (SENSOR + 'kind = "lidar"  # <-\n', "sensors[0].kind", "'radar'?"),
    "optical sensor with a radar key": (
        SENSOR + 'kind = "optical"\nrange_noise_km = 0.1  # <-\n',
        "sensors[0].range_noise_km",
        "key of a radar sensor",
    ),
    "radar with an optical key": (
        SENSOR + "sun_elevation_max_deg = -12  # <-\n",
        "sensors[0].sun_elevation_max_deg",
        "key of an optical sensor",
    ),
    "noise zero": (
        SENSOR + "azimuth_noise_deg = 0  # <-\n",
        "sensors[0].azimuth_noise_deg",
        "positive",
    ),
    "offset 1e300": (
        SENSOR + "epsilon_offset = 1e300  # <-\n",
        "sensors[0].epsilon_offset",
        "to 1e+300 nats: 1e+300 nats is above 100",
    ),
    "offset below the floor": (
        SENSOR + "epsilon_offset = -5  # <-\n",
        "sensors[0].epsilon_offset",
        "takes the pass budget 10 to 5 nats",
    ),
    "sun elevation 100": (
        SENSOR + 'kind = "optical"\nsun_elevation_max_deg = 100  # <-\n',
        "sensors[0].sun_elevation_max_deg",
        "[-90, 90]",
    ),
    "sensors file and sensor tables": (
        'sensors_file = "x.toml"  # <-\n' + SENSOR,
        "sensors_file",
        "not both",
    ),
    "sensors file missing": ('sensors_file = "x.toml"  # <-\n', "sensors_file", "not found"),
}


@pytest.mark.parametrize("case", sorted(BAD_TOML))
def test_a_bad_scenario_names_the_file_line_and_key(tmp_path, case):
    text, key, words = BAD_TOML[case]
    text = _scenario_text(text)
    path = _folder(tmp_path) / "study.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = _one_line(caught.value, path)
    assert caught.value.key == key, message
    assert caught.value.line == _marked_line(text), message
    assert words in caught.value.problem, message


#: id -> (text, what the scenario then holds): unusual files that are right.
GOOD_TOML = {
    "Alpha-5 and text catalogue numbers": (
        '[objects]\nnorad_ids = ["C3456", "25544", 5]\n',
        lambda s: s.objects.norad_ids == (123456, 25544, 5),
    ),
    "sample all of every regime": (
        '[objects]\nregime = "all"\nsample = "all"\n',
        lambda s: (s.objects.regime, s.objects.sample) == ("all", None),
    ),
    "no objects table: 50 LEO objects": (
        "",
        lambda s: (s.objects.regime, s.objects.sample, s.objects.norad_ids) == ("leo", 50, None),
    ),
    "a regime alone samples 50": (
        '[objects]\nregime = "geo"\n',
        lambda s: (s.objects.regime, s.objects.sample) == ("geo", 50),
    ),
    "no earth table: orientation none": ("", lambda s: s.earth.orientation == "none"),
    "iers-or-none": (
        '[earth]\norientation = "iers-or-none"\n',
        lambda s: s.earth.orientation == "iers-or-none",
    ),
    "a TOML date-time start": (
        "[window]\nstart = 2020-01-02T00:00:00\n",
        lambda s: s.start_jd == parse_utc("2020-01-02T00:00:00"),
    ),
    "a start with an offset": (
        '[window]\nstart = "2020-01-02T02:00:00+02:00"\n',
        lambda s: s.start_jd == parse_utc("2020-01-02T00:00:00"),
    ),
    "a sector through north": (
        SENSOR + "azimuth_sector_deg = [300.0, 60.0]\n",
        lambda s: s.sensors[0].azimuth_sector_deg == (300.0, 60.0),
    ),
    "a site below sea level and an accented name": (
        '[[sensors]]\nname = "Mer Morte é"\nlatitude_deg = 31.5\nlongitude_deg = 35.5\n'
        "height_km = -0.43\n",
        lambda s: s.build_sensors()[0].altitude == -0.43,
    ),
    "a longitude of 359": (
        '[[sensors]]\nname = "A"\nlatitude_deg = 1\nlongitude_deg = 359\n',
        lambda s: s.sensors[0].longitude_deg == 359.0,
    ),
    "a budget at the ceiling": (
        f"[privacy]\npass_epsilons = [{MAX_BUDGET}]\n",
        lambda s: s.privacy.pass_epsilons == (MAX_BUDGET,),
    ),
    "a long staleness": (
        "[window]\nstaleness_days = 1e300\n",
        lambda s: s.window.staleness_days == 1e300,
    ),
}


@pytest.mark.parametrize("case", sorted(GOOD_TOML))
def test_an_unusual_scenario_reads_as_it_says(tmp_path, case):
    text, holds = GOOD_TOML[case]
    path = _folder(tmp_path) / "study.toml"
    path.write_text(_scenario_text(text), encoding="utf-8")
    scenario = load_scenario(path)
    assert holds(scenario)
    # written back, it reads the same (a sample of "all" stays "all", not the default 50)
    again = tmp_path / "again.toml"
    again.write_text(scenario_toml(scenario), encoding="utf-8")
    assert load_scenario(again) == scenario


# -- stations files (GeoJSON) ------------------------------------------------------------------


def _point(coordinates, **properties):
    geometry = {"type": "Point", "coordinates": coordinates}
    return {"type": "Feature", "geometry": geometry, "properties": properties}


def _collection(*features, **members):
    return json.dumps({"type": "FeatureCollection", "features": list(features), **members})


A = _point([10.0, 20.0], name="A")


def _crs(name):
    return {"type": "name", "properties": {"name": name}}


#: id -> (file text, key named, words of the problem).
BAD_GEOJSON = {
    "crs EPSG:3857": (_collection(A, crs=_crs("EPSG:3857")), "crs", "'EPSG:3857'"),
    "crs null": (_collection(A, crs=None), "crs", "is null"),
    "crs a link": (
        _collection(A, crs={"type": "link", "properties": {"href": "http://x"}}),
        "crs",
        '"link"',
    ),
    "crs of a feature": (
        _collection({**A, "crs": _crs("EPSG:2056")}),
        "features[0].crs",
        "'EPSG:2056'",
    ),
    "crs of a geometry": (
        _collection(
            {**A, "geometry": {**A["geometry"], "crs": _crs("urn:ogc:def:crs:EPSG::32632")}}
        ),
        "features[0].geometry.crs",
        "32632",
    ),
    "latitude 95 in the third feature": (
        _collection(A, _point([10.0, 20.0], name="B"), _point([10.0, 95.0], name="C")),
        "features[2].geometry.coordinates[1]",
        "[-90, 90] deg, got 95",
    ),
    "longitude 400": (
        _collection(_point([400.0, 20.0], name="A")),
        "features[0].geometry.coordinates[0]",
        "[-360, 360]",
    ),
    "height 20 km in metres": (
        _collection(_point([10.0, 20.0, 20000.0], name="A")),
        "features[0].geometry.coordinates[2]",
        "[-1000, 10000] m",
    ),
    "height -7000 m": (
        _collection(_point([10.0, 20.0, -7000.0], name="A")),
        "features[0].geometry.coordinates[2]",
        "got -7000",
    ),
    "four coordinates": (
        _collection(_point([1, 2, 3, 4], name="A")),
        "features[0].geometry.coordinates",
        "RFC 7946",
    ),
    "nested coordinates": (
        _collection(_point([[1, 2]], name="A")),
        "features[0].geometry.coordinates",
        "got [[1, 2]]",
    ),
    "null coordinates": (
        _collection(_point(None, name="A")),
        "features[0].geometry.coordinates",
        "got null",
    ),
    "a coordinate as text": (
        _collection(_point(["1", 2], name="A")),
        "features[0].geometry.coordinates[0]",
        "a string",
    ),
    "a MultiPoint": (
        _collection({**A, "geometry": {"type": "MultiPoint", "coordinates": [[1, 2]]}}),
        "features[0].geometry.type",
        '"MultiPoint"',
    ),
    "a null geometry": (
        _collection({**A, "geometry": None}),
        "features[0].geometry.type",
        "got null",
    ),
    "no name": (_collection(_point([1, 2])), "features[0].properties.name", "is missing"),
    "a name with a line feed": (
        _collection(_point([1, 2], name="A\nB")),
        "features[0].properties.name",
        "U+000A",
    ),
    "a name with a trailing blank": (
        _collection(_point([1, 2], name="A ")),
        "features[0].properties.name",
        "blanks",
    ),
    "a repeated name": (
        _collection(A, _point([1, 2], name="A")),
        "features[1].properties.name",
        "features[0]",
    ),
    "a member given twice": (
        '{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": '
        '{"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "A", "name": "B"}}]}',
        "features[0].properties.name",
        "given twice",
    ),
    "no features": (_collection(), "features", "no sensor"),
    "features an object": (
        json.dumps({"type": "FeatureCollection", "features": {}}),
        "features",
        "array of features",
    ),
    "a Feature alone": (json.dumps(A), "type", '"Feature"'),
    "NaN latitude": (
        _collection(A).replace("20.0", "NaN"),
        "features[0].geometry.coordinates[1]",
        "finite",
    ),
    "a property that disagrees with the Point": (
        _collection(_point([1, 2], name="A", latitude_deg=3)),
        "features[0].properties.latitude_deg",
        "agree",
    ),
    "an unknown property": (
        _collection(_point([1, 2], name="A", color="red")),
        "features[0].properties.color",
        "unknown key",
    ),
    "properties an array": (
        _collection({**A, "properties": []}),
        "features[0].properties",
        "an object",
    ),
    "optical sensor with a radar key": (
        _collection(_point([1, 2], name="A", kind="optical", range_noise_km=0.1)),
        "features[0].properties.range_noise_km",
        "radar",
    ),
    "a sector of width 0": (
        _collection(_point([1, 2], name="A", azimuth_sector_deg=[5, 5])),
        "features[0].properties.azimuth_sector_deg",
        "empty",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_GEOJSON))
def test_a_bad_geojson_names_the_place_written(tmp_path, case):
    text, key, words = BAD_GEOJSON[case]
    path = tmp_path / "sites.geojson"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        read_stations(path)
    message = _one_line(caught.value, path)
    assert caught.value.key == key, message
    assert words in caught.value.problem, message


@pytest.mark.parametrize(
    "name",
    [
        "urn:ogc:def:crs:OGC:1.3:CRS84",
        "OGC:CRS84",
        "EPSG:4326",
        "http://www.opengis.net/def/crs/EPSG/0/4326",
    ],
)
def test_a_wgs84_crs_is_accepted(tmp_path, name):
    path = tmp_path / "sites.geojson"
    path.write_text(_collection(_point([10.0, 20.0, 500.0], name="A"), crs=_crs(name)))
    (sensor,) = read_stations(path)
    assert (sensor.longitude_deg, sensor.latitude_deg, sensor.height_km) == (10.0, 20.0, 0.5)


def test_a_json_syntax_error_gives_its_line(tmp_path):
    path = tmp_path / "sites.json"
    path.write_text('{"type": "FeatureCollection",\n "features": [}')
    with pytest.raises(ScenarioError) as caught:
        read_stations(path)
    assert caught.value.line == 2 and "JSON syntax error" in _one_line(caught.value, path)


# -- options (the command line's overrides) ----------------------------------------------------


@pytest.fixture()
def study(tmp_path):
    """A scenario file of one radar over the ISS's catalogue, window from 2020-01-02."""
    path = _folder(tmp_path) / "study.toml"
    path.write_text(
        '[window]\nstart = "2020-01-02T00:00:00"\nhours = 2.0\nstep_s = 60.0\n'
        "longest_pass_min = 20.0\n" + OBJECTS + "[privacy]\npass_epsilons = [10.0, 14.0]\n" + SENSOR
    )
    return path


#: id -> (options, the start of the message, words). ``{here}`` is the scenario's folder.
BAD_OPTIONS = {
    "hours beyond a year": ({"hours": 1e9}, "--hours: ", "8784 h"),
    "dt below a millisecond": ({"dt": 1e-4}, "--dt: ", "0.001 s"),
    "dt longer than the window": ({"hours": 1.0, "dt": 7200.0}, "--dt: ", "at most the window"),
    "dt making passes too long": (
        {"dt": 0.5},
        "{here}/study.toml, line 5: window.longest_pass_min: ",
        "(with --dt 0.5)",
    ),
    "hours shorter than the file's step": (
        {"hours": 0.01},
        "{here}/study.toml, line 4: window.step_s: ",
        "(with --hours 0.01)",
    ),
    "epsilons 1e300": ({"epsilons": (1e300,)}, "--epsilons: ", "1e+300 nats is above 100"),
    "epsilons repeated": ({"epsilons": (10.0, 10.0)}, "--epsilons: ", "listed twice"),
    "epsilons below the floor": ({"epsilons": (5.0,)}, "--epsilons: ", "infeasible"),
    "measurement levels huge": (
        {"measurement_epsilons": (1e9,)},
        "--measurement-epsilons: ",
        "above 100",
    ),
    "day budgets huge": ({"day_epsilons": (101.0,)}, "--day-epsilons: ", "above 100"),
    "delta raising the file's floor": (
        {"delta": 1e-12},
        "{here}/study.toml, line 9: privacy.pass_epsilons[0]: ",
        "at --delta = 1e-12",
    ),
    "a convention not known": ({"convention": "strict"}, "--convention: ", "must be one of"),
    "a regime not known": ({"regime": "heo"}, "--regime: ", "must be one of"),
    "an orientation not known": (
        {"earth_orientation": "IERS"},
        "--earth-orientation: ",
        "'iers'?",
    ),
    "a start not ISO 8601": ({"start": "tomorrow"}, "--start: ", "ISO 8601"),
    "a tle file that is a folder": ({"tle": "{here}"}, "--tle: ", "is a folder"),
    "a stations file missing": ({"stations": "{here}/none.geojson"}, "--stations: ", "not found"),
}


def _filled(value, here):
    return value.replace("{here}", str(here)) if isinstance(value, str) else value


@pytest.mark.parametrize("case", sorted(BAD_OPTIONS))
def test_a_bad_option_names_the_option_as_typed(study, case):
    options, start, words = BAD_OPTIONS[case]
    options = {k: _filled(v, study.parent) for k, v in options.items()}
    with pytest.raises(ScenarioError) as caught:
        CatalogOptions(scenario=str(study), **options).study()
    message = _one_line(caught.value, None)
    assert message.startswith(_filled(start, study.parent)), message
    assert words in message, message


def test_the_tle_option_replaces_the_scenario_catalogue(study, tmp_path):
    """``--scenario`` with a catalogue and ``--tle``: the option's file, every object of it."""
    other = tmp_path / "other"
    other.mkdir()
    tle = _folder(other) / "iss.tle"
    spec = CatalogOptions(scenario=str(study), tle=str(tle)).study()
    assert spec.catalogue_file() == tle.resolve()
    assert (spec.objects.regime, spec.objects.sample) == ("all", None)


# -- the window against the catalogue, the objects, the Earth orientation table ----------------


def _epoch():
    return iss_element_set().epoch_jd


def test_a_start_in_a_gap_of_the_epochs_says_so(study):
    """The start between two epochs, each more than staleness_days away: the message says
    it falls in a gap and how far the nearest epoch is, never a negative distance."""
    scenario = load_scenario(study)
    epoch = _epoch()
    start = epoch + 20.0
    with pytest.raises(ScenarioError) as caught:
        check_window(scenario, [epoch, epoch + 50.0], start)
    message = _one_line(caught.value, study)
    assert "falls in a gap" in message and "20.0 days before it" in message, message
    assert "-" not in message.split("days")[0].split("is ")[-1]


def test_a_start_given_as_an_option_is_named_as_the_option(study):
    spec = CatalogOptions(scenario=str(study), start="1960-01-01T00:00:00").study()
    with pytest.raises(ScenarioError) as caught:
        check_window(spec, [_epoch()], spec.start_jd)
    message = _one_line(caught.value, None)
    assert message.startswith("--start: the window start 1960-01-01T00:00:00Z is "), message
    assert "before the oldest element set epoch" in message
    assert caught.value.line is None


def _past_the_table(tmp_path, orientation, option=None):
    """A scenario whose window opens 30 days after the IERS table's last date."""
    start = utc_text(iers_table_range()[1] + 30.0)[:19]
    path = _folder(tmp_path) / "late.toml"
    path.write_text(
        f'[window]\nstart = "{start}"\nhours = 1.0\nstaleness_days = 10000.0\n'
        + OBJECTS
        + f'[earth]\norientation = "{orientation}"  # <-\n'
        + SENSOR
    )
    options = {} if option is None else {"earth_orientation": option}
    return CatalogOptions(scenario=str(path), **options).study(), path


@pytest.mark.parametrize(
    ("orientation", "option", "start"),
    [
        ("iers", None, "{path}, line 8: earth.orientation: "),
        ("none", "iers", "--earth-orientation: "),
    ],
)
def test_iers_outside_the_table_is_an_error_naming_its_span(tmp_path, orientation, option, start):
    spec, path = _past_the_table(tmp_path, orientation, option)
    with pytest.raises(ScenarioError) as caught:
        check_window(spec, [_epoch()], spec.start_jd)
    message = _one_line(caught.value, None)
    assert message.startswith(start.replace("{path}", str(path))), message
    last = utc_text(iers_table_range()[1])[:10]
    assert f"covers 1973-01-02 to {last}" in message and '"iers-or-none"' in message


def test_iers_or_none_falls_back_outside_the_table(tmp_path):
    spec, _ = _past_the_table(tmp_path, "iers-or-none")
    assert check_window(spec, [_epoch()], spec.start_jd) == 1
    used, reason = spec.earth.model(spec.start_jd, spec.window.hours / 24)
    assert used == "none" and "not within the offline IERS table" in reason


@pytest.mark.parametrize(
    ("objects", "key", "words"),
    [
        ("norad_ids = [25544, 99999]  # <-", "objects.norad_ids[1]", "99999 is not in"),
        ("sample = 2  # <-", "objects.sample", "2 objects are more than the 1 LEO objects"),
        ('regime = "geo"', "objects.sample", "50 objects (the default) are more than the 0 GEO"),
    ],
)
def test_objects_the_catalogue_cannot_give(tmp_path, objects, key, words):
    path = _folder(tmp_path) / "study.toml"
    text = OBJECTS + objects + "\n" + SENSOR
    path.write_text(text)
    scenario = load_scenario(path)
    with pytest.raises(ScenarioError) as caught:
        check_objects(scenario, [iss_element_set()])
    message = _one_line(caught.value, path)
    assert caught.value.key == key and words in message, message
    assert caught.value.line == (_marked_line(text) or 1)


def test_objects_the_catalogue_holds(tmp_path):
    path = _folder(tmp_path) / "study.toml"
    path.write_text(OBJECTS + 'norad_ids = ["25544"]\n' + SENSOR)
    assert check_objects(load_scenario(path), [iss_element_set()]) == 1


def _checksum(line):
    """A TLE line with its modulo-10 checksum (digits, and 1 for each minus sign)."""
    body = line[:68]
    total = sum(int(c) if c.isdigit() else c == "-" for c in body)
    return body + str(total % 10)


def test_ssa_network_checks_the_earth_orientation_table_too(tmp_path):
    """ssa-network turns the Earth from the element set's epoch to the window's end: an
    element set of 2027-12-06, past the table, with "iers" is an error naming the key,
    with "iers-or-none" the run neglects Earth orientation."""
    iss = iss_element_set()
    line1 = _checksum(iss.line1[:18] + "27340.00000000" + iss.line1[32:])
    (tmp_path / "late.tle").write_text(f"ISS\n{line1}\n{iss.line2}\n")
    path = tmp_path / "net.toml"
    body = '[objects]\ncatalogue = "late.tle"\nnorad_ids = [25544]\n' + SENSOR
    for orientation, used in (("iers", None), ("iers-or-none", "none")):
        path.write_text(
            '[window]\nstart = "2027-12-07T00:00:00"\n'
            f'[earth]\norientation = "{orientation}"  # <-\n' + body
        )
        if used is None:
            with pytest.raises(ScenarioError) as caught:
                network_scenario.network_values(path)
            message = _one_line(caught.value, path)
            assert caught.value.key == "earth.orientation" and "covers 1973-01-02 to" in message
            assert caught.value.line == _marked_line(path.read_text())
        else:
            assert network_scenario.network_values(path)[0]["earth_orientation"] == used
    path.write_text(
        '[window]\nstart = "2020-01-02T00:00:00"\n[earth]\norientation = "iers-or-none"\n'
        + body.replace("late.tle", "iss.tle")
    )
    _folder(tmp_path)
    assert network_scenario.network_values(path)[0]["earth_orientation"] == "iers"


# -- the command line: status 2 and one line, before any work -----------------------------------


def _cli(arguments, out):
    return main(
        ["run", "ssa-catalog", "--no-progress", "--workers", "1", "--out", str(out), *arguments]
    )


#: id -> (arguments, words of the one line). ``{here}`` is the folder of the scenario.
BAD_COMMANDS = {
    "hours 1e9": (["--hours", "1e9"], "--hours: must be at most 8784 h"),
    "epsilons 1e300": (["--epsilons", "1e300"], "--epsilons: 1e+300 nats is above 100"),
    "dt 1e-4": (["--dt", "1e-4"], "--dt: must be at least 0.001 s"),
    "start before every epoch": (
        ["--start", "1960-01-01T00:00:00"],
        "--start: the window start 1960-01-01T00:00:00Z is ",
    ),
    "scenario a folder": (["--scenario", "{here}"], "argument --scenario: '{here}' is a folder"),
    "tle a folder": (["--tle", "{here}"], "argument --tle: '{here}' is a folder"),
    "measurements a folder": (["--measurements", "{here}"], "is a folder, not a file"),
    "iers outside the table": (
        [
            "--earth-orientation",
            "iers",
            "--start",
            "2028-06-01T00:00:00",
            "--staleness-days",
            "5000",
        ],
        '--earth-orientation: "iers" needs UT1-UTC and polar motion over the window',
    ),
    "a bad scenario": (
        ["--scenario", "{here}/bad.toml"],
        "{here}/bad.toml, line 2: window.hours: ",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_COMMANDS))
def test_the_command_line_refuses_in_one_line_with_status_2(study, case, capsys):
    arguments, words = BAD_COMMANDS[case]
    here = study.parent
    (here / "bad.toml").write_text('[window]\nhours = "3"\n' + OBJECTS + SENSOR)
    arguments = [_filled(a, here) for a in arguments]
    if "--scenario" not in arguments:
        arguments += ["--scenario", str(study)]
    out = here / "never"
    assert _cli(arguments, out) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and _filled(words, here) in lines[0], lines
    assert not out.exists()


def test_the_command_line_keeps_the_toml_keys_of_a_scenario_error(study, capsys):
    bad = study.parent / "keys.toml"
    bad.write_text("[privacy]\npass_epsilon = [10.0]\n" + OBJECTS + SENSOR)
    assert _cli(["--scenario", str(bad)], study.parent / "never") == 2
    line = capsys.readouterr().err.strip()
    assert "measurement_epsilons" in line and "--measurement-epsilons" not in line, line


# -- the other SSA studies: the same limits on their own options -------------------------------


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"hours": 1e9}, "hours: must be at most 8784 h"),
        ({"dt": 1e-6}, "dt: must be at least 0.001 s"),
        ({"hours": 300.0, "dt": 1.0, "gap_step": 600.0}, "dt: 1 s over a window of 300 h"),
        ({"start_hours": 1e9}, "start_hours: must be at most 8784 h"),
        ({"epsilons": (1e300,)}, "1e+300 nats is above 100"),
        ({"epsilons": (99.0,), "offsets": (0.0, 1.0, 2.0)}, "101 nats is above 100"),
    ],
)
def test_ssa_network_refuses_what_a_run_cannot_hold(options, words):
    with pytest.raises(ValueError) as caught:
        NetworkOptions(**options)
    assert "\n" not in str(caught.value) and words in str(caught.value), str(caught.value)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"epsilons": (1e300,)}, "epsilons: 1e+300 nats is above 100"),
        ({"outcomes": 10**12}, "outcomes must be at most 100,000"),
        ({"restore_outcomes": 10**6}, "restore_outcomes must be at most 100,000"),
    ],
)
def test_ssa_leakage_refuses_what_a_run_cannot_hold(options, words):
    with pytest.raises(ValueError) as caught:
        LeakageOptions(**options)
    assert "\n" not in str(caught.value) and words in str(caught.value), str(caught.value)


def test_ssa_network_refuses_a_start_past_its_propagation(tmp_path):
    path = _folder(tmp_path) / "net.toml"
    path.write_text(
        '[window]\nstart = "2028-06-01T00:00:00"  # <-\n'
        '[objects]\ncatalogue = "iss.tle"\nnorad_ids = [25544]\n' + SENSOR
    )
    with pytest.raises(ScenarioError) as caught:
        network_scenario.network_values(path)
    message = _one_line(caught.value, path)
    assert caught.value.key == "window.start" and caught.value.line == 2, message
    assert "days after the element set's epoch" in message and "at most 366 days" in message
