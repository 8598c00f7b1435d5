"""The ssa-catalog study's CCSDS surface: what it refuses before the run
(:func:`check_writable`), what ``--measurements`` refuses (a releases TDM, objects that
are not catalogue numbers), and what it writes when a value no message may hold turns up
after the run (the rest, and a list of what was left out)."""

import dataclasses

import numpy as np
import pytest

from ssa_privacy.cli import main
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.orbits.oem import read_oem
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE, iss_element_set
from ssa_privacy.sensors.tdm import TrackingData, read_tdm, write_tdm
from ssa_privacy.studies.scenario import default_scenario
from ssa_privacy.studies.scenario.sensors import SensorSpec
from ssa_privacy.studies.ssa_catalog import Scenario
from ssa_privacy.studies.ssa_catalog.ccsds import (
    NOT_WRITTEN,
    _file_name,
    _levels,
    check_writable,
    write_messages,
)

ISS = iss_element_set()
#: 2024-03-01T00:00:00 UTC: a window start inside the IERS tables.
START = 2460370.5


def _spec(*names, kind="radar", day_epsilons=()):
    spec = default_scenario()
    sensors = tuple(
        SensorSpec(name=name, latitude_deg=40.0, longitude_deg=-105.0, kind=kind) for name in names
    )
    privacy = dataclasses.replace(spec.privacy, day_epsilons=day_epsilons)
    return dataclasses.replace(spec, sensors=sensors or spec.sensors, privacy=privacy)


def _scenario(*names, **options):
    return Scenario(_spec(*names, **options), START, ccsds=True)


def test_the_default_scenario_can_be_written():
    scenario = _scenario(day_epsilons=(12.0,))
    assert check_writable(scenario, [ISS]) is None
    # Every pass-level filter is written, the day budgets' designs are not.
    passes = {(f"{e:g}", d) for e in scenario.epsilons for d in scenario.designers}
    assert set(_levels(scenario)) == {("none", "none"), *passes}


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("Z\u00fcrich", "it holds '\u00fc', which a KVN message cannot (printable ASCII only)"),
        ("Radar [north]", "it ends in [...], which a KVN reader takes for units"),
        ("R" * 230, "it makes a PARTICIPANT_1 line of 257 characters (KVN: 254)"),
    ],
    ids=["not ASCII", "units", "too long"],
)
def test_a_sensor_no_tdm_can_name_is_refused_before_the_run(name, fragment):
    # (A name with a control or invisible character is refused by the scenario itself.)
    with pytest.raises(ValueError) as error:
        check_writable(_scenario(name), [ISS])
    message = str(error.value)
    assert message.startswith(f"sensor {name!r} cannot be written in a CCSDS TDM: "), message
    assert fragment in message and "\n" not in message


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("ÉCHO SAT", "it holds 'É', which a KVN message cannot"),
        ("I" * 240, "it makes a OBJECT_NAME line of 267 characters"),
    ],
    ids=["not ASCII", "too long"],
)
def test_an_object_no_oem_can_name_is_refused_before_the_run(name, fragment):
    element_set = dataclasses.replace(ISS, name=name)
    with pytest.raises(ValueError) as error:
        check_writable(_scenario("S"), [element_set])
    message = str(error.value)
    assert message.startswith(f"object 25544 ({name.strip()!r}) cannot be written in a CCSDS OEM")
    assert fragment in message and "\n" not in message


@pytest.mark.parametrize(
    "name",
    [
        "releases_a/b_logdet.tdm",
        "releases_a\\b_logdet.tdm",
        "releases_a:b_logdet.tdm",
        "releases_a\x00_logdet.tdm",
        "x" * 252 + ".oem",
        "ends with a dot.",
    ],
    ids=["separator", "backslash", "reserved", "control", "too long", "trailing dot"],
)
def test_an_output_file_name_that_is_not_portable_is_refused(name):
    """Every file name the run writes passes through this check before the run (the labels
    of the levels and the designers make them)."""
    with pytest.raises(ValueError, match="is not a portable file name"):
        _file_name(name)
    assert _file_name("releases_day 12_pass.tdm") == "releases_day 12_pass.tdm"


def _release_tdm(tmp_path, object_id="25544", release=True):
    values = [[0.1, np.radians(-196.71), -1.0, 1.0]] if release else [[0.1, 0.2, 900.0, 1.0]]
    data = TrackingData("S", object_id, "radar", START, [0.0], values, release=release)
    return write_tdm(tmp_path / "releases_10_logdet.tdm", data)


def test_what_no_message_may_hold_is_listed_and_the_rest_written(tmp_path):
    """A simulated measurement whose noise took an elevation past 90 deg, and an estimate
    that is not finite, are left out and listed; everything else is written."""
    scenario = _scenario("S")
    good = np.array([[0.1, 0.2, 900.0, 1.0], [0.1, 0.3, 890.0, 1.0]])
    zenith = np.array([[0.1, np.radians(90.004), 500.0, 0.0]])
    times = scenario.times[scenario.ephemeris]
    estimates = np.tile(ISS.propagate(times[:1]), (times.size, 1))
    covariances = np.tile(np.eye(6), (times.size, 1, 1))
    objects = [
        {
            "norad_id": 25544,
            "measured": [(0, np.array([10, 11]), good), (0, np.array([400]), zenith)],
            "releases": [("10", "logdet", [(0, np.array([10, 11]), good * [1, -5, -1, 1])])],
            "filters": [("none", "none"), ("10", "logdet")],
            "estimates": [estimates, np.where(np.eye(times.size, 6) > 0, np.nan, estimates)],
            "covariances": [covariances, covariances],
        }
    ]
    output = StudyOutput(tmp_path, "test", {})
    unwritten = write_messages(output, scenario, [ISS], objects)
    assert len(unwritten) == 2
    assert unwritten[0].startswith(
        "ccsds/measurements.tdm: the pass of object 25544 over 'S' from "
    )
    assert "values[0, 1]: elevation 90.004 deg is outside [-90, 90] deg" in unwritten[0]
    assert unwritten[1].startswith(
        "ccsds/estimates/25544_10_logdet.oem: the estimate of object 25544: states contains"
    )
    assert (tmp_path / NOT_WRITTEN).read_text() == "".join(f"{u}\n" for u in unwritten)
    [measured] = read_tdm(tmp_path / "ccsds" / "measurements.tdm")
    np.testing.assert_allclose(measured.values, good, rtol=4e-16)
    [released] = read_tdm(tmp_path / "ccsds" / "releases_10_logdet.tdm")
    assert released.release
    np.testing.assert_allclose(released.values, good * [1, -5, -1, 1], rtol=4e-16)
    ephemeris = read_oem(tmp_path / "ccsds" / "estimates" / "25544_none_none.oem")
    np.testing.assert_array_equal(ephemeris.states, estimates)
    assert not (tmp_path / "ccsds" / "estimates" / "25544_10_logdet.oem").exists()


@pytest.mark.data(ACTIVE_CATALOGUE_FILE)
def test_the_run_refuses_an_unwritable_sensor_before_it_computes(tmp_path, capsys):
    scenario = tmp_path / "zurich.toml"
    scenario.write_text(
        '[[sensors]]\nname = "Z\u00fcrich"\nlatitude_deg = 47.4\nlongitude_deg = 8.5\n',
        encoding="utf-8",
    )
    arguments = ["run", "ssa-catalog", "--scenario", str(scenario), "--objects", "2"]
    out = tmp_path / "never"
    assert main([*arguments, "--hours", "3", "--ccsds", "--out", str(out), "--no-progress"]) == 2
    message = capsys.readouterr().err.strip()
    assert message.endswith(
        "sensor 'Z\u00fcrich' cannot be written in a CCSDS TDM: segments[0].sensor = "
        "'Z\u00fcrich' cannot be written in KVN: it holds '\u00fc', which a KVN message "
        "cannot (printable ASCII only)"
    )
    assert not out.exists()
