"""Scenario files: the shipped default is the built-in ssa-catalog study; errors are one line.

Every bad file is an error naming the file, the line, the dotted key and what is wrong
(the cases of ``ssa_privacy.studies.scenario``); the default's sensors equal
``radar_network()`` field by field; stations come from TOML or GeoJSON (RFC 7946:
[longitude, latitude, height in metres]); overrides and relative paths are recorded
and resolved; a written scenario reads back equal. The files are written to ``tmp_path``.
"""

import hashlib
import json
import math
import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from ssa_privacy.engine.data import DATA_ENV
from ssa_privacy.estimation.ekf import FILTER_PSD
from ssa_privacy.orbits.catalog import parse_utc
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.sensors.networks import ELEVATION_MASK, NOISE_STD, SITES, radar_network
from ssa_privacy.sensors.stations import GroundStation
from ssa_privacy.studies.scenario import (
    DEFAULT_SOURCE,
    EarthSpec,
    ObjectsSpec,
    ScenarioError,
    SensorSpec,
    SsaScenario,
    check_window,
    default_scenario,
    load_scenario,
    read_stations,
    resolve,
    scenario_toml,
    with_overrides,
    write_scenario,
)
from ssa_privacy.studies.scenario import sensors as sensor_keys
from ssa_privacy.studies.scenario import ssa_scenario as whole

DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "scenario-files.rst"

#: A small valid scenario; tests replace parts of it. Line numbers matter (see LINES).
BASE = """\
description = "two radars"

[window]
start = "2020-01-02T00:00:00"
hours = 2.0
step_s = 60.0

[objects]
catalogue = "iss.tle"
regime = "leo"
sample = 1

[privacy]
delta = 0.01
pass_epsilons = [10.0, 14.0]

[[sensors]]
name = "North"
kind = "radar"
latitude_deg = 60.0
longitude_deg = 10.0
height_km = 0.1

[[sensors]]
name = "South"
latitude_deg = -30.0
longitude_deg = 20.0
azimuth_sector_deg = [300.0, 60.0]
range_max_km = 3000.0
"""
#: 1-based lines of BASE.
LINES = {
    "window.start": 4,
    "objects.catalogue": 9,
    "privacy.delta": 14,
    "privacy.pass_epsilons": 15,
    "sensors[0].name": 18,
    "sensors[0].latitude_deg": 20,
    "sensors[1].name": 25,
    "sensors[1].latitude_deg": 26,
    "sensors[1].azimuth_sector_deg": 28,
}


def _iss_file(folder, name="iss.tle"):
    element_set = iss_element_set()
    path = Path(folder) / name
    path.write_text(f"{element_set.name}\n{element_set.line1}\n{element_set.line2}\n")
    return path


def _write(folder, text, name="study.toml", catalogue=True):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if catalogue:
        _iss_file(folder)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _error(path, **kwargs):
    """The ScenarioError of loading ``path``, checked to be one line naming the file."""
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return caught.value


def _replace(old, new, text=BASE):
    assert old in text
    return text.replace(old, new, 1)


# -- the shipped default ---------------------------------------------------------------------


def test_default_is_the_built_in_radar_network():
    scenario = default_scenario()
    built = scenario.build_sensors()
    network = radar_network()
    assert len(built) == len(network) == len(SITES) == 8
    for ours, theirs in zip(built, network, strict=True):
        assert type(ours) is GroundStation
        for field in ("name", "latitude", "longitude", "altitude", "elevation_mask"):
            assert getattr(ours, field) == getattr(theirs, field), field
        assert ours.noise_std == tuple(NOISE_STD) == theirs.noise_std
        assert ours.elevation_mask == ELEVATION_MASK
        assert ours.azimuth_sector is None and ours.range_max is None
        assert (ours.ecef == theirs.ecef).all()
    assert built == network


def test_default_reproduces_the_catalogue_study():
    scenario = default_scenario()
    assert scenario.source == DEFAULT_SOURCE and scenario.folder is None
    window, objects, privacy = scenario.window, scenario.objects, scenario.privacy
    assert window.start is None and scenario.start_jd is None
    assert (window.hours, window.step_s, window.staleness_days, window.longest_pass_min) == (
        24.0,
        30.0,
        14.0,
        20.0,
    )
    assert objects.catalogue == "active_satellites_2026-03-19.tle"
    assert (objects.regime, objects.sample, objects.norad_ids) == ("leo", 50, None)
    assert scenario.earth.orientation == "none"
    assert privacy.pass_epsilons == (10.0, 14.0, 20.0)
    assert privacy.measurement_epsilons == (7.0, 12.0, 24.0)
    assert (privacy.delta, privacy.convention, privacy.designers) == (
        0.01,
        "exact",
        ("logdet", "scaled"),
    )
    assert scenario.filter.process_noise_psd == FILTER_PSD
    assert scenario.epsilon_offsets == (0.0,) * 8
    # The packaged file's bytes are what the record says.
    raw = resources.files("ssa_privacy.studies").joinpath("scenarios", "default.toml").read_bytes()
    assert scenario.sha256 == hashlib.sha256(raw).hexdigest()
    assert scenario.text == raw.decode("utf-8")
    # The section defaults are the same study but for the sample and the Earth model: a
    # scenario made in Python with the eight sites, a 50-object LEO sample and no Earth
    # orientation equals the file.
    sites = tuple(SensorSpec(n, lat, lon, h) for n, lat, lon, h, _ in SITES)
    made = SsaScenario(
        sensors=sites,
        description=scenario.description,
        objects=ObjectsSpec(regime="leo", sample=50),
        earth=EarthSpec("none"),
    )
    assert made == scenario


def test_default_files_are_looked_up_in_the_data_folder(tmp_path, monkeypatch):
    _iss_file(tmp_path, "active_satellites_2026-03-19.tle")
    monkeypatch.delenv(DATA_ENV, raising=False)
    found = default_scenario().catalogue_file(tmp_path)
    assert found == tmp_path / "active_satellites_2026-03-19.tle"
    with pytest.raises(ScenarioError) as caught:
        default_scenario().catalogue_file(tmp_path / "elsewhere")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("<default>")
    assert "objects.catalogue" in message and "elsewhere" in message


# -- reading and the record -------------------------------------------------------------------


def test_a_file_reads_with_its_defaults_and_record(tmp_path):
    path = _write(tmp_path, BASE)
    scenario = load_scenario(path)
    assert scenario.source == str(path) and scenario.folder == tmp_path
    assert scenario.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert scenario.start_jd == parse_utc("2020-01-02T00:00:00")
    north, south = scenario.sensors
    assert south.kind == "radar" and south.height_km == 0.0
    assert south.azimuth_sector_deg == (300.0, 60.0) and south.range_max_km == 3000.0
    assert north.elevation_min_deg == ELEVATION_MASK
    assert math.radians(north.azimuth_noise_deg) == NOISE_STD[0]
    assert math.radians(north.elevation_noise_deg) == NOISE_STD[1]
    assert (north.range_noise_km, north.range_rate_noise_km_s) == NOISE_STD[2:]
    built = scenario.build_sensors()
    assert built[1].azimuth_sector == (300.0, 60.0) and built[1].range_max == 3000.0
    record = scenario.as_record()
    assert json.loads(json.dumps(record)) == record
    assert record["text"] == BASE and record["source"] == str(path)
    assert record["values"]["window"]["staleness_days"] == 14.0
    assert record["values"]["sensors"][1]["azimuth_sector_deg"] == [300.0, 60.0]
    assert record["inputs"] == [] and record["overrides"] == {}


def test_toml_date_time_is_a_start(tmp_path):
    path = _write(
        tmp_path, _replace('start = "2020-01-02T00:00:00"', "start = 2020-01-02T01:00:00+01:00")
    )
    scenario = load_scenario(path)
    assert scenario.start_jd == pytest.approx(parse_utc("2020-01-02T00:00:00"), abs=1e-9)


def test_a_written_scenario_reads_back_equal(tmp_path):
    path = _write(tmp_path, BASE)
    scenario = load_scenario(path)
    written = write_scenario(scenario, tmp_path / "copy.toml")
    again = load_scenario(written)
    assert again == scenario
    assert again.to_dict() == scenario.to_dict()
    assert again.build_sensors() == scenario.build_sensors()
    # Every value is written out: the copy is the same study with the defaults spelt out.
    document = tomllib.loads(written.read_text())
    assert document["window"]["staleness_days"] == 14.0
    assert document["sensors"][0]["range_rate_noise_km_s"] == NOISE_STD[3]
    # ... and the default too.
    default = default_scenario()
    assert tomllib.loads(scenario_toml(default))["objects"]["sample"] == 50
    assert load_scenario(write_scenario(default, tmp_path / "d.toml"), check_files=False) == default


def test_a_relative_scenario_path_is_kept_absolute(tmp_path, monkeypatch):
    _write(tmp_path, BASE)
    monkeypatch.chdir(tmp_path)
    scenario = load_scenario("study.toml")
    assert scenario.source == str(tmp_path / "study.toml")
    monkeypatch.chdir(tmp_path.parent)
    assert scenario.catalogue_file() == tmp_path / "iss.tle"


def test_objects_by_catalogue_number(tmp_path):
    text = _replace('regime = "leo"\nsample = 1', "norad_ids = [25544]")
    scenario = load_scenario(_write(tmp_path, text))
    assert scenario.objects.norad_ids == (25544,)
    assert scenario.objects.regime is None and scenario.objects.sample is None
    both = _write(tmp_path, _replace('regime = "leo"', "norad_ids = [25544]"), "both.toml")
    error = _error(both)
    assert error.key == "objects.sample" and "not both" in error.problem


# -- errors: one line naming file, line and key -------------------------------------------------


def test_toml_syntax_error_gives_its_line(tmp_path):
    path = _write(tmp_path, _replace("hours = 2.0", "hours = 2.0 h"))
    error = _error(path)
    assert error.line == 5 and "line 5" in str(error)
    assert "TOML syntax error" in str(error) and "column" in str(error)


def test_not_utf8_gives_its_line(tmp_path):
    path = tmp_path / "latin.toml"
    path.write_bytes(BASE.encode("utf-8") + b"\n# caf\xe9\n")
    error = _error(path)
    assert error.line == BASE.count("\n") + 2 and "UTF-8" in str(error)


@pytest.mark.parametrize(
    ("old", "new", "key", "line", "hint"),
    [
        ("hours = 2.0", "hour = 2.0", "window.hour", 5, "did you mean hours?"),
        ("height_km = 0.1", "height_m = 100.0", "sensors[0].height_m", 22, "height_km (unit km)"),
        (
            "latitude_deg = -30.0",
            "latitude_deg = -30.0\nelevation_min_rad = 0.1",
            "sensors[1].elevation_min_rad",
            27,
            "elevation_min_deg (unit deg)",
        ),
        ("[privacy]", "[privacy]\nepsilon = 3.0", "privacy.epsilon", 14, None),
        ('description = "two radars"', 'descripton = "two radars"', "descripton", 1, "description"),
        ("[privacy]", "[privcy]", "privcy", 13, "did you mean privacy?"),
    ],
)
def test_unknown_key_suggests_the_nearest(tmp_path, old, new, key, line, hint):
    error = _error(_write(tmp_path, _replace(old, new)))
    assert error.key == key and "unknown key" in error.problem
    assert error.line == line and str(error).startswith(
        f"{tmp_path / 'study.toml'}, line {line}: {key}"
    )
    if hint:
        assert hint in error.problem


@pytest.mark.parametrize(
    ("old", "new", "key", "line", "words"),
    [
        ("latitude_deg = 60.0", 'latitude_deg = "60.0"', "sensors[0].latitude_deg", 20, "a string"),
        ("hours = 2.0", "hours = true", "window.hours", 5, "a boolean"),
        ("sample = 1", "sample = 1.5", "objects.sample", 11, "must be an integer"),
        ("sample = 1", 'sample = "some"', "objects.sample", 11, '"all"'),
        (
            "pass_epsilons = [10.0, 14.0]",
            'pass_epsilons = "10"',
            "privacy.pass_epsilons",
            15,
            "array",
        ),
        ("[10.0, 14.0]", "[10.0, nan]", "privacy.pass_epsilons[1]", 15, "finite"),
        ('start = "2020-01-02T00:00:00"', 'start = "yesterday"', "window.start", 4, "ISO 8601"),
        ("step_s = 60.0", "step_s = 9000.0", "window.step_s", 6, "at most the window"),
        ('regime = "leo"', 'regime = "LEO2"', "objects.regime", 10, "one of"),
    ],
)
def test_wrong_type_or_value_names_the_key(tmp_path, old, new, key, line, words):
    error = _error(_write(tmp_path, _replace(old, new)))
    assert error.key == key and error.line == line and words in error.problem


def test_latitude_out_of_range_names_the_sensor(tmp_path):
    path = _write(tmp_path, _replace("latitude_deg = -30.0", "latitude_deg = -95.0"))
    error = _error(path)
    assert error.key == "sensors[1].latitude_deg" and error.sensor == "South"
    assert error.line == LINES["sensors[1].latitude_deg"]
    assert "[-90, 90]" in error.problem and "-95" in error.problem
    assert "sensors[1].latitude_deg (sensor 'South')" in str(error)


def test_height_in_metres_is_caught(tmp_path):
    path = _write(tmp_path, _replace("height_km = 0.1", "height_km = 100.0"))
    error = _error(path)
    assert error.key == "sensors[0].height_km" and "metres" in error.problem


@pytest.mark.parametrize("sector", ["[90.0, 90.0]", "[360.0, 0.0]"])
def test_empty_azimuth_sector(tmp_path, sector):
    path = _write(tmp_path, _replace("[300.0, 60.0]", sector))
    error = _error(path)
    assert error.key == "sensors[1].azimuth_sector_deg" and "empty" in error.problem
    assert error.line == LINES["sensors[1].azimuth_sector_deg"]


def test_whole_circle_sector_is_allowed(tmp_path):
    scenario = load_scenario(_write(tmp_path, _replace("[300.0, 60.0]", "[0.0, 360.0]")))
    assert scenario.build_sensors()[1].azimuth_sector == (0.0, 360.0)


@pytest.mark.parametrize("sector", ["[10.0]", "[-5.0, 30.0]", "[10.0, 400.0]"])
def test_malformed_azimuth_sector(tmp_path, sector):
    error = _error(_write(tmp_path, _replace("[300.0, 60.0]", sector)))
    assert error.key.startswith("sensors[1].azimuth_sector_deg")


def test_radar_noise_key_on_an_optical_sensor(tmp_path):
    text = _replace('kind = "radar"', 'kind = "optical"\nrange_noise_km = 0.02')
    error = _error(_write(tmp_path, text))
    assert error.key == "sensors[0].range_noise_km" and error.sensor == "North"
    assert "radar sensor" in error.problem and "'optical'" in error.problem
    assert error.line == 20


def test_optical_key_on_a_radar(tmp_path):
    text = _replace(
        "range_max_km = 3000.0", "range_max_km = 3000.0\ndeclination_noise_arcsec = 1.0"
    )
    error = _error(_write(tmp_path, text))
    assert error.key == "sensors[1].declination_noise_arcsec" and "optical sensor" in error.problem


def test_unknown_kind(tmp_path):
    error = _error(_write(tmp_path, _replace('kind = "radar"', 'kind = "lidar"')))
    assert error.key == "sensors[0].kind" and "'radar' | 'optical'" in error.problem


def test_duplicate_sensor_name(tmp_path):
    error = _error(_write(tmp_path, _replace('name = "South"', 'name = "North"')))
    assert error.key == "sensors[1].name" and "sensors[0]" in error.problem
    assert error.line == LINES["sensors[1].name"]


def test_missing_sensor_site(tmp_path):
    error = _error(_write(tmp_path, _replace("longitude_deg = 20.0\n", "")))
    assert error.key == "sensors[1].longitude_deg" and "missing" in error.problem


def test_no_sensors(tmp_path):
    error = _error(_write(tmp_path, BASE.split("[[sensors]]")[0]))
    assert error.key == "sensors" and "no sensors" in error.problem


def test_sensors_must_be_an_array_of_tables(tmp_path):
    text = BASE.split("[[sensors]]")[0] + '[sensors]\nname = "A"\n'
    error = _error(_write(tmp_path, text))
    assert error.key == "sensors" and "[[sensors]]" in error.problem


@pytest.mark.parametrize(
    ("old", "new", "key", "words"),
    [
        ("delta = 0.01", "delta = 1.0", "privacy.delta", "(0, 1)"),
        ("delta = 0.01", "delta = 0", "privacy.delta", "(0, 1)"),
        ("[10.0, 14.0]", "[10.0, -2.0]", "privacy.pass_epsilons[1]", "positive number (nats)"),
        ("[10.0, 14.0]", "[]", "privacy.pass_epsilons", "empty"),
        ("[10.0, 14.0]", "[10.0, 10.0]", "privacy.pass_epsilons[1]", "twice"),
        ("[10.0, 14.0]", "[5.0, 14.0]", "privacy.pass_epsilons[0]", "condition (9)"),
        ("delta = 0.01", 'delta = 0.01\nconvention = "papers"', "privacy.convention", "'paper'"),
        (
            "delta = 0.01",
            'delta = 0.01\ndesigners = ["logdet", "greedy"]',
            "privacy.designers[1]",
            "one of",
        ),
        (
            "delta = 0.01",
            "delta = 0.01\nmeasurement_epsilons = [3.0]",
            "privacy.measurement_epsilons[0]",
            "4-row",
        ),
    ],
)
def test_bad_privacy_values(tmp_path, old, new, key, words):
    error = _error(_write(tmp_path, _replace(old, new)))
    assert error.key == key and words in error.problem
    assert error.line is not None


def test_pass_floor_is_the_six_direction_quantile(tmp_path):
    floor = float(minimum_epsilon(0.01, 6))
    assert 8.4 < floor < 8.42
    just_above = _replace("[10.0, 14.0]", f"[{floor * (1 + 1e-9)!r}]")
    assert load_scenario(_write(tmp_path, just_above)).privacy.pass_epsilons[0] > floor
    offset = _replace("range_max_km = 3000.0", "range_max_km = 3000.0\nepsilon_offset = -2.0")
    error = _error(_write(tmp_path, offset, "offset.toml"))
    assert error.key == "sensors[1].epsilon_offset" and error.sensor == "South"


def test_missing_catalogue_names_the_key_and_places(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    path = _write(tmp_path, _replace('catalogue = "iss.tle"', 'catalogue = "gone.tle"'))
    error = _error(path)
    assert error.key == "objects.catalogue" and error.line == LINES["objects.catalogue"]
    assert "gone.tle" in error.problem and str(tmp_path / "gone.tle") in error.problem
    assert str(tmp_path / "data") in error.problem
    # Not checked on request: the catalogue may come from --data later.
    assert load_scenario(path, check_files=False).objects.catalogue == "gone.tle"


def test_missing_scenario_and_sensors_file(tmp_path):
    with pytest.raises(ScenarioError, match=r"nothing\.toml: scenario file not found"):
        load_scenario(tmp_path / "nothing.toml")
    text = 'sensors_file = "network.geojson"\n' + BASE.split("[[sensors]]")[0]
    error = _error(_write(tmp_path, text))
    assert error.key == "sensors_file" and error.line == 1 and "network.geojson" in error.problem


def test_section_of_the_wrong_shape(tmp_path):
    window = '[window]\nstart = "2020-01-02T00:00:00"\nhours = 2.0\nstep_s = 60.0\n'
    error = _error(_write(tmp_path, "window = 3\n" + _replace(window, "")))
    assert error.key == "window" and "must be a table" in error.problem


# -- the window against the catalogue ---------------------------------------------------------


def test_check_window(tmp_path):
    scenario = load_scenario(_write(tmp_path, BASE))
    epoch = iss_element_set().epoch_jd  # 2020-01-01 19:42:47 UTC
    assert check_window(scenario, [epoch], scenario.start_jd) == 1
    late = parse_utc("2020-02-01T00:00:00")
    with pytest.raises(ScenarioError) as caught:
        check_window(scenario, [epoch, epoch - 3.0], late)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(scenario.source))
    assert caught.value.key == "window.start" and caught.value.line == LINES["window.start"]
    assert "after the newest" in message and "staleness_days = 14" in message
    assert f"{late - epoch:.1f} days" in message
    early = epoch - 20.0
    with pytest.raises(ScenarioError, match="before the oldest"):
        check_window(scenario, [epoch, epoch - 3.0], early)
    # Within 14 days either side is usable; 14 days and a second is not.
    assert check_window(scenario, [epoch], epoch + 14.0) == 1
    with pytest.raises(ScenarioError):
        check_window(scenario, [epoch], epoch - 14.0 - 1.0 / 86400)
    with pytest.raises(ScenarioError, match="catalogue_epochs_jd"):
        check_window(scenario, [], epoch)


# -- stations files ---------------------------------------------------------------------------

STATIONS_TOML = """\
[[sensors]]
name = "North"
latitude_deg = 60.0
longitude_deg = 10.0
height_km = 0.1

[[sensors]]
name = "South"
latitude_deg = -30.0
longitude_deg = 20.0
range_noise_km = 0.02
"""


def _geojson(features):
    return json.dumps({"type": "FeatureCollection", "features": features}, indent=1)


def _point(position, **properties):
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": position},
        "properties": properties,
    }


def test_stations_from_toml_and_geojson_agree(tmp_path):
    toml_file = tmp_path / "net.toml"
    toml_file.write_text(STATIONS_TOML)
    geojson_file = tmp_path / "net.geojson"
    geojson_file.write_text(
        _geojson(
            [
                _point([10.0, 60.0, 100.0], name="North", kind="radar"),
                _point([20.0, -30.0], name="South", latitude_deg=-30.0, range_noise_km=0.02),
            ]
        )
    )
    from_toml, from_geojson = read_stations(toml_file), read_stations(geojson_file)
    assert from_toml == from_geojson
    # RFC 7946: the third coordinate is metres above the ellipsoid.
    assert from_geojson[0].height_km == 0.1 and from_geojson[1].height_km == 0.0
    assert from_geojson[1].range_noise_km == 0.02


@pytest.mark.parametrize(
    ("feature", "key", "words"),
    [
        (
            _point([10.0, 60.0], name="A", latitude_deg=61.0),
            "features[0].properties.latitude_deg",
            "agree",
        ),
        (
            _point([10.0, 60.0, 50.0], name="A", height_km=50.0),
            "features[0].properties.height_km",
            "agree",
        ),
        (_point([10.0], name="A"), "features[0].geometry.coordinates", "RFC 7946"),
        (_point([10.0, 95.0], name="A"), "features[0].geometry.coordinates[1]", "[-90, 90]"),
        (_point(["10", 60.0], name="A"), "features[0].geometry.coordinates[0]", "a string"),
        (_point([10.0, 60.0]), "features[0].properties.name", "missing"),
        (
            _point([10.0, 60.0], name="A", elevation_min_rad=0.1),
            "features[0].properties.elevation_min_rad",
            "elevation_min_deg",
        ),
        (
            {
                "type": "Feature",
                "geometry": {"type": "LineString", "coordinates": []},
                "properties": {"name": "A"},
            },
            "features[0].geometry.type",
            "Point",
        ),
    ],
)
def test_bad_geojson_names_the_feature(tmp_path, feature, key, words):
    path = tmp_path / "net.geojson"
    path.write_text(_geojson([feature]))
    with pytest.raises(ScenarioError) as caught:
        read_stations(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path))
    assert caught.value.key == key and words in caught.value.problem


def test_bad_stations_files(tmp_path):
    json_error = tmp_path / "broken.json"
    json_error.write_text('{"type": "FeatureCollection",\n "features": [}')
    with pytest.raises(ScenarioError, match=r"broken\.json, line 2: JSON syntax error"):
        read_stations(json_error)
    duplicate = tmp_path / "twice.toml"
    duplicate.write_text(STATIONS_TOML.replace('"South"', '"North"'))
    with pytest.raises(ScenarioError, match=r"twice\.toml, line 8: sensors\[1\]\.name"):
        read_stations(duplicate)
    empty = tmp_path / "empty.geojson"
    empty.write_text(_geojson([]))
    with pytest.raises(ScenarioError, match="no sensor"):
        read_stations(empty)
    other = tmp_path / "net.csv"
    other.write_text("name,lat\n")
    with pytest.raises(ScenarioError, match=r"\.toml, \.geojson or \.json"):
        read_stations(other)
    extra = tmp_path / "extra.toml"
    extra.write_text("[window]\nhours = 1.0\n" + STATIONS_TOML)
    with pytest.raises(ScenarioError, match=r"extra\.toml, line 1: window: unknown key"):
        read_stations(extra)


def test_sensors_file_beside_the_scenario(tmp_path):
    (tmp_path / "net.geojson").write_text(
        _geojson([_point([10.0, 60.0, 100.0], name="North"), _point([20.0, -30.0], name="South")])
    )
    text = 'sensors_file = "net.geojson"\n' + BASE.split("[[sensors]]")[0]
    scenario = load_scenario(_write(tmp_path, text))
    assert [s.name for s in scenario.sensors] == ["North", "South"]
    (record,) = scenario.as_record()["inputs"]
    assert record["role"] == "sensors_file" and record["path"] == str(tmp_path / "net.geojson")
    assert record["sha256"] == hashlib.sha256((tmp_path / "net.geojson").read_bytes()).hexdigest()
    both = text + '\n[[sensors]]\nname = "X"\nlatitude_deg = 0.0\nlongitude_deg = 0.0\n'
    error = _error(_write(tmp_path, both, "both.toml"))
    assert error.key == "sensors_file" and "not both" in error.problem


# -- relative paths and overrides ---------------------------------------------------------------


def test_relative_catalogue_beside_the_file_then_the_data_folder(tmp_path, monkeypatch):
    study = _write(tmp_path / "study", BASE)
    assert load_scenario(study).catalogue_file() == tmp_path / "study" / "iss.tle"
    data = tmp_path / "data"
    data.mkdir()
    _iss_file(data, "only_in_data.tle")
    moved = _write(
        tmp_path / "study", _replace('"iss.tle"', '"only_in_data.tle"'), "moved.toml", False
    )
    assert load_scenario(moved, data_folder=data).catalogue_file(data) == data / "only_in_data.tle"
    monkeypatch.setenv(DATA_ENV, str(data))
    assert load_scenario(moved).catalogue_file() == data / "only_in_data.tle"
    absolute = _write(
        tmp_path / "study",
        _replace('"iss.tle"', json.dumps(str(data / "only_in_data.tle"))),
        "abs.toml",
        False,
    )
    assert load_scenario(absolute).catalogue_file() == data / "only_in_data.tle"
    with pytest.raises(ScenarioError, match="file not found"):
        resolve(str(tmp_path / "none.tle"), source="s.toml", key="objects.catalogue")


def test_overrides_replace_and_record(tmp_path):
    scenario = load_scenario(_write(tmp_path, BASE))
    (tmp_path / "elsewhere").mkdir()
    other_tle = _iss_file(tmp_path / "elsewhere", "other.tle")
    stations = tmp_path / "net.toml"
    stations.write_text(STATIONS_TOML.replace("North", "Far North"))
    changed = with_overrides(
        scenario,
        tle=other_tle,
        stations=stations,
        hours=4.0,
        **{"privacy.delta": 0.02, "objects.norad_ids": [25544], "start": None},
    )
    assert changed.window.hours == 4.0 and changed.window.start == scenario.window.start
    assert changed.privacy.delta == 0.02
    assert changed.objects.norad_ids == (25544,) and changed.objects.sample is None
    assert changed.objects.catalogue == str(other_tle.resolve())
    assert changed.catalogue_file() == other_tle.resolve()
    assert [s.name for s in changed.sensors] == ["Far North", "South"]
    assert changed.sha256 == scenario.sha256 and changed.text == scenario.text
    record = changed.as_record()
    roles = {r["role"]: r for r in record["inputs"]}
    assert (
        roles["objects.catalogue (override)"]["sha256"]
        == hashlib.sha256(other_tle.read_bytes()).hexdigest()
    )
    assert roles["sensors (override)"]["path"] == str(stations.resolve())
    assert record["overrides"]["window.hours"] == 4.0
    assert record["overrides"]["objects.norad_ids"] == [25544]
    assert "window.start" not in record["overrides"]
    # Sampling again clears the catalogue numbers (the regime takes its default, leo).
    resampled = with_overrides(changed, sample=3)
    assert (resampled.objects.norad_ids, resampled.objects.regime, resampled.objects.sample) == (
        None,
        "leo",
        3,
    )
    # "all" takes every object of the regime: kept as None, recorded as given
    everything = with_overrides(changed, sample="all", regime="geo")
    assert (everything.objects.norad_ids, everything.objects.regime) == (None, "geo")
    assert everything.objects.sample is None
    assert everything.as_record()["overrides"]["objects.sample"] == "all"


def test_bad_overrides(tmp_path):
    scenario = load_scenario(_write(tmp_path, BASE))
    with pytest.raises(
        ScenarioError, match=r"^<override>: hour: unknown key; did you mean hours\?"
    ):
        with_overrides(scenario, hour=3.0)
    with pytest.raises(
        ScenarioError, match=r"^<override>: window\.hours: must be a positive number \(h\)"
    ):
        with_overrides(scenario, hours=-1.0)
    with pytest.raises(ScenarioError, match=r"^<override>: tle: file not found"):
        with_overrides(scenario, tle=tmp_path / "none.tle")
    with pytest.raises(ScenarioError, match=r"^<override>: privacy\.pass_epsilons\[0\]"):
        with_overrides(scenario, pass_epsilons=[1.0])
    with pytest.raises(TypeError, match="scenario"):
        with_overrides(BASE)


# -- optical sensors ------------------------------------------------------------------------------


def test_optical_sensor_defaults_and_build(tmp_path):
    optical = pytest.importorskip("ssa_privacy.sensors.optical")
    text = _replace(
        'kind = "radar"\nlatitude_deg = 60.0',
        'kind = "optical"\nlatitude_deg = 60.0\nright_ascension_noise_arcsec = 2.0',
    )
    scenario = load_scenario(_write(tmp_path, text))
    spec = scenario.sensors[0]
    station = scenario.build_sensors()[0]
    assert isinstance(station, optical.OpticalStation)
    defaults = optical.OpticalStation("x", 0.0, 0.0, 0.0)
    assert station.noise_std[0] == pytest.approx(2.0 * optical.ARCSEC, rel=1e-15)
    assert station.noise_std[1] == pytest.approx(defaults.noise_std[1], rel=1e-12)
    assert station.elevation_mask == defaults.elevation_mask == spec.elevation_min_deg
    assert station.sun_elevation_max == defaults.sun_elevation_max == spec.sun_elevation_max_deg
    assert spec.measurement_rows == 2 and optical.ARCSEC == pytest.approx(math.pi / 648000)
    assert load_scenario(write_scenario(scenario, tmp_path / "copy.toml")) == scenario


# -- the reference page -----------------------------------------------------------------------


def _page():
    if not DOCS_PAGE.is_file():
        pytest.skip("docs/reference/scenario-files.rst is not in this checkout")
    return DOCS_PAGE.read_text(encoding="utf-8")


def test_reference_page_documents_every_key():
    page = _page()
    keys = set(whole._TOP_KEYS) | set(sensor_keys._COMMON_KEYS)
    keys |= {k for kind in sensor_keys._KIND_KEYS.values() for k in kind}
    keys |= {k for cls in whole._SECTION_TYPES.values() for k in whole._section_keys(cls)}
    written = {k: f"``[{k}]``" for k in whole._SECTION_TYPES} | {"sensors": "``[[sensors]]``"}
    missing = sorted(k for k in keys if written.get(k, f"``{k}``") not in page)
    assert not missing


def test_reference_page_example_loads(tmp_path):
    blocks = re.findall(
        r"\.\. code-block:: toml\n\s*:caption: complete example\n\n((?:   .*\n|\n)+)", _page()
    )
    assert blocks, "the page has no complete example"
    text = "\n".join(line[3:] for line in blocks[0].splitlines())
    pytest.importorskip("ssa_privacy.sensors.optical")
    scenario = load_scenario(_write(tmp_path, text), check_files=False)
    assert {s.kind for s in scenario.sensors} == {"radar", "optical"}
    assert [type(s).__name__ for s in scenario.build_sensors()] == [
        "GroundStation",
        "GroundStation",
        "OpticalStation",
    ]
    assert scenario.earth.orientation == "iers"
