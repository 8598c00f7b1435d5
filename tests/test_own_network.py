"""Your own SSA study end to end: a scenario file, your element sets and sensors, CCSDS out and in.

The scenario is the tutorial's (``docs/tutorials/your-own-network``): two radars with
90-degree azimuth sectors and a 3,000 km range limit, one telescope, and five objects of
a TLE file made from the shared catalogue (the tests skip without it). Runs are 3 h long
to stay fast; the tutorial runs 24 h.
"""

import json
import shutil
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from ccsds_ndm.ndm_io import NdmIo

from ssa_privacy.cli import main
from ssa_privacy.orbits.oem import read_oem
from ssa_privacy.sensors.earth_orientation import NEGLECTED_EFFECTS, iers_table_range
from ssa_privacy.sensors.tdm import read_tdm
from ssa_privacy.sensors.visibility import coverage_outline
from ssa_privacy.studies.scenario import load_scenario
from ssa_privacy.studies.ssa_catalog import earth_model
from ssa_privacy.studies.ssa_catalog import figures as figures

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorials" / "your-own-network"
OBJECTS = (25544, 20580, 43013, 37816, 36830)
SENSORS = ["North-East fence", "South fence", "Teide telescope"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory, catalogue):
    """The tutorial's scenario and sites beside a five-object TLE file from the catalogue."""
    here = tmp_path_factory.mktemp("own")
    newest = {}
    for element_set in catalogue:
        number = int(element_set.catalogue_number)
        if number in OBJECTS and (
            number not in newest or element_set.epoch_jd > newest[number].epoch_jd
        ):
            newest[number] = element_set
    lines = [f"{e.name}\n{e.line1}\n{e.line2}\n" for e in (newest[n] for n in OBJECTS)]
    (here / "my.tle").write_text("".join(lines))
    for name in ("network.toml", "my_sites.geojson"):
        shutil.copy(TUTORIAL / name, here / name)
    return here


def _run(*arguments):
    return main(["run", "ssa-catalog", "--no-progress", "--hours", "3", *map(str, arguments)])


@pytest.fixture(scope="module")
def first_run(folder):
    """The tutorial's scenario, 3 h, writing its CCSDS messages."""
    out = folder / "run"
    assert _run("--scenario", folder / "network.toml", "--ccsds", "--out", out) == 0
    return out


def test_scenario_runs_and_is_recorded(folder, first_run):
    parameters = json.loads((first_run / "results.json").read_text())["parameters"]
    record = parameters["scenario"]
    text = (folder / "network.toml").read_text()
    assert record["text"] == text
    assert record["sha256"] == load_scenario(folder / "network.toml").sha256
    assert parameters["stations"] == SENSORS
    assert sorted(parameters["norad_ids"]) == sorted(OBJECTS)
    assert parameters["earth_orientation"]["used"] == "iers"
    assert parameters["data_files"]["catalogue"]["path"].endswith("my.tle")
    sensors = record["values"]["sensors"]
    assert [s["azimuth_sector_deg"] for s in sensors[:2]] == [[0.0, 90.0], [135.0, 225.0]]
    assert sensors[2]["kind"] == "optical"


def test_coverage_figure_draws_the_scenario_sensors(folder):
    stations = load_scenario(folder / "network.toml").build_sensors()
    records = figures.sensor_records(stations)
    figure = figures.network_coverage([], [], records)
    try:
        labels = [text.get_text() for text in figure.axes[0].texts if text.get_text()]
        assert labels == [f"{name} ({mask:g} deg)" for name, mask in zip(SENSORS, (5, 5, 20))]
    finally:
        plt.close(figure)
    # A sector-limited radar is drawn as a wedge closed at its site.
    first = records[0]
    wedge = np.column_stack(
        coverage_outline(
            first["latitude"],
            first["longitude"],
            figures.MAP_ALTITUDE_KM,
            first["elevation_mask"],
            first["azimuth_sector"],
            first["range_max"],
        )
    )
    assert np.allclose(wedge[0], [11.0, 48.0]) and np.allclose(wedge[-1], [11.0, 48.0])
    lon, lat = np.radians(wedge[1:-1, 0] - 11.0), np.radians(wedge[1:-1, 1])
    site = np.radians(48.0)
    bearing = np.degrees(
        np.arctan2(
            np.sin(lon) * np.cos(lat),
            np.cos(site) * np.sin(lat) - np.sin(site) * np.cos(lat) * np.cos(lon),
        )
    )
    assert bearing.min() > -1e-6 and bearing.max() < 90.0 + 1e-6  # the sector [0, 90]


def test_tle_and_geojson_shortcuts(folder):
    out = folder / "shortcut"
    tle, sites = folder / "my.tle", folder / "my_sites.geojson"
    assert _run("--tle", tle, "--stations", sites, "--out", out) == 0
    parameters = json.loads((out / "results.json").read_text())["parameters"]
    assert parameters["stations"] == SENSORS
    assert sorted(parameters["norad_ids"]) == sorted(OBJECTS)
    roles = {i["role"] for i in parameters["scenario"]["inputs"]}
    assert roles == {"objects.catalogue (override)", "sensors (override)"}


def test_messages_are_read_by_the_ccsds_library(first_run):
    folder = first_run / "ccsds"
    ours = read_tdm(folder / "measurements.tdm")
    with warnings.catch_warnings():
        # TEME is outside the NDM/XML 4.0.0 enumeration: xsdata warns and keeps the text
        warnings.simplefilter("ignore")
        segments = NdmIo().from_path(folder / "measurements.tdm").body.segment
        oem_file = folder / "estimates" / "25544_none_none.oem"
        oem = NdmIo().from_path(oem_file).body.segment[0]
    assert [s.metadata.participant_1 for s in segments] == [m.sensor for m in ours]
    for segment, mine in zip(segments, ours, strict=True):
        ranges = [
            float(getattr(o.range, "value", o.range))
            for o in segment.data.observation
            if o.range is not None
        ]
        if mine.kind == "radar":
            assert np.array_equal(ranges, mine.values[:, 2])
        else:
            assert ranges == []
    states = np.array(
        [
            [float(getattr(v, "value", v)) for v in (e.x, e.y, e.z, e.x_dot, e.y_dot, e.z_dot)]
            for e in oem.data.state_vector
        ]
    )
    assert np.array_equal(states, read_oem(oem_file).states)


@pytest.mark.slow
def test_recorded_measurements_give_the_run_again(folder, first_run):
    out = folder / "replay"
    measurements = first_run / "ccsds" / "measurements.tdm"
    arguments = ("--scenario", folder / "network.toml", "--ccsds", "--out", out)
    assert _run(*arguments, "--measurements", measurements) == 0
    for released in sorted((first_run / "ccsds").glob("releases_*.tdm")):
        before, again = read_tdm(released), read_tdm(out / "ccsds" / released.name)
        for a, b in zip(before, again, strict=True):
            # the measurements come back within an ulp (angles pass through degrees)
            assert np.allclose(a.values, b.values, rtol=1e-14, atol=1e-15)
    # the filters' orbit determination stops at a step of 1e-8 of the deviation it
    # solves for (about 10 micrometres), so an ulp in a measurement moves an estimate by
    # at most about that: 1 mm and 1 micrometre/s
    for estimate in sorted((first_run / "ccsds" / "estimates").glob("*.oem")):
        a, b = read_oem(estimate), read_oem(out / "ccsds" / "estimates" / estimate.name)
        assert np.abs(a.states[:, :3] - b.states[:, :3]).max() <= 1e-6
        assert np.abs(a.states[:, 3:] - b.states[:, 3:]).max() <= 1e-9
    rows = (out / "results.csv").read_text().splitlines()
    header = rows[0].split(",")
    column = header.index("position_rmse_km")
    assert all(row.split(",")[column] == "" for row in rows[1:])  # no truth: null errors
    assert (out / "consistency.csv").exists()


BAD = {
    "unknown key": ("[window]\nhourz = 3\n", "window.hourz"),
    "wrong type": ('[window]\nhours = "three"\n', "window.hours"),
    "wrong unit": (
        "[[sensors]]\nname = 'a'\nlatitude_deg = 1\nlongitude_deg = 2\nelevation_min_rad = 0.1\n",
        "elevation_min_rad",
    ),
    "missing file": ('[objects]\ncatalogue = "nowhere.tle"\n', "objects.catalogue"),
    "empty sector": (
        "[[sensors]]\nname = 'a'\nlatitude_deg = 1\nlongitude_deg = 2\n"
        "azimuth_sector_deg = [10.0, 10.0]\n",
        "azimuth_sector_deg",
    ),
    "latitude": ("[[sensors]]\nname = 'a'\nlatitude_deg = 95\nlongitude_deg = 2\n", "latitude_deg"),
    "optical with radar noise": (
        "[[sensors]]\nname = 'a'\nkind = 'optical'\n"
        "latitude_deg = 1\nlongitude_deg = 2\nrange_noise_km = 0.1\n",
        "range_noise_km",
    ),
    "window outside the epochs": ('[window]\nstart = "2030-01-01T00:00:00"\n', "window.start"),
    "TOML syntax": ("[window\nhours = 3\n", "line 1"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scenarios_give_one_line_and_status_2(folder, case, capsys):
    text, key = BAD[case]
    if "[[sensors]]" not in text:
        text += "[[sensors]]\nname = 'a'\nlatitude_deg = 1\nlongitude_deg = 2\n"
    if "[objects]" not in text:
        text += '[objects]\ncatalogue = "my.tle"\n'
    path = folder / f"bad_{case.replace(' ', '_')}.toml"
    path.write_text(text)
    assert _run("--scenario", path, "--out", folder / "never") == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1, message
    assert str(path) in message or path.name in message, message
    assert key in message, message
    assert not (folder / "never").exists()


NETWORK = """\
[window]
start = "2026-03-20T12:00:00"
hours = 3.0

[objects]
catalogue = "my.tle"
norad_ids = [25544]

[privacy]
measurement_epsilons = [9.0]

[[sensors]]
name = "North-East fence"
latitude_deg = 48.0
longitude_deg = 11.0
azimuth_sector_deg = [300.0, 90.0]
range_max_km = 3000.0

[[sensors]]
name = "South"
latitude_deg = 37.2
longitude_deg = -5.9
epsilon_offset = 1.0
"""
SMALL = ("--runs", "2", "--cw-runs", "2", "--cw-steps", "60", "--mc-samples", "500")


def test_ssa_network_takes_its_object_radars_and_window_from_a_scenario(folder):
    path, out = folder / "network_radars.toml", folder / "network_run"
    path.write_text(NETWORK)
    assert main(["run", "ssa-network", "--scenario", str(path), "--out", str(out), *SMALL]) == 0
    parameters = json.loads((out / "results.json").read_text())["parameters"]
    assert parameters["satellite"] == "25544"
    assert [s["name"] for s in parameters["stations"]] == ["North-East fence", "South"]
    assert parameters["offsets"] == [0.0, 1.0] and parameters["epsilons"] == [9.0]
    assert parameters["scenario_record"]["text"] == NETWORK
    # the window opens at the scenario's start, after the element set's epoch
    assert parameters["start_hours"] > 0 and parameters["hours"] == 3.0
    passes = (out / "passes.csv").read_text().splitlines()[1:]
    assert passes and all(p.split(",")[0] in ("North-East fence", "South") for p in passes)


def test_ssa_network_refuses_an_optical_sensor(folder, capsys):
    path = folder / "network_optical.toml"
    telescope = "\n[[sensors]]\nname = 'T'\nkind = 'optical'\nlatitude_deg = 1\nlongitude_deg = 2\n"
    path.write_text(NETWORK + telescope)
    assert main(["run", "ssa-network", "--scenario", str(path), "--out", str(folder / "no")]) == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and "sensors[2].kind" in message, message


def test_the_run_says_what_the_earth_model_neglects():
    first, last = iers_table_range()
    _, used = earth_model(first + 100.0, "iers")
    assert used["used"] == "iers" and used["neglected"] is None and used["table"]
    _, neglected = earth_model(first + 100.0, "none")
    assert neglected["used"] == "none" and neglected["neglected"] == NEGLECTED_EFFECTS
    # after the table: "iers" is an error naming the table's span, "iers-or-none" falls
    # back and says why
    with pytest.raises(ValueError, match="orientation: .*covers 1973-01-02 to"):
        earth_model(last + 30.0, "iers")
    _, outside = earth_model(last + 30.0, "iers-or-none")
    assert outside["used"] == "none" and "not within the offline IERS table" in outside["reason"]
    assert outside["neglected"] == NEGLECTED_EFFECTS
    _, inside = earth_model(first + 100.0, "iers-or-none")
    assert inside["used"] == "iers" and "reason" not in inside
