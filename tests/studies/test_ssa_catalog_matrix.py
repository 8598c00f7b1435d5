"""Every documented combination of the ssa-catalog study finishes and writes every output.

The matrix {designers logdet, scaled, both} x {``--ccsds`` on, off} x {no day budget,
one} (one combination in the default run, all with ``-m slow``) on two LEO objects over
3 h (one pass budget, one per-measurement level, a 60 s step: the cheapest run that
still has contacts, day designs and messages). Each run goes through the command line and
must exit 0 with every table, ``results.json`` and, with ``--ccsds``, every message; each
TDM and OEM written is read back by ccsds-ndm itself (its ``NdmIo``), not only by the
package's readers. The ``results.csv`` column scheme holds for every subset of
designers: unsuffixed columns for the log-det designer (and the level without privacy),
``_scaled`` ones for the scaled designer, a designer not run leaving its columns empty.
"""

import csv
import dataclasses
import json
import warnings

import pytest
from ccsds_ndm.ndm_io import NdmIo

from ssa_privacy.cli import main
from ssa_privacy.engine.data import data_file
from ssa_privacy.orbits.catalog import read_element_sets
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE
from ssa_privacy.sensors.tdm import read_tdm
from ssa_privacy.studies.scenario import default_scenario
from ssa_privacy.studies.scenario.writing import write_scenario
from ssa_privacy.studies.ssa_catalog.rows import DESIGNER_COLUMNS, RESULTS_COLUMNS

pytestmark = pytest.mark.data(ACTIVE_CATALOGUE_FILE)

#: Two LEO objects that the shipped radars see early in the window (ISS, NOAA 20).
NORAD_IDS = (25544, 43013)
DESIGNERS = {"logdet": ("logdet",), "scaled": ("scaled",), "both": ("logdet", "scaled")}
TABLES = ("results", "per_measurement", "consistency", "detectability")


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory):
    """A scenario file per subset of designers, the two objects in a file of their own."""
    folder = tmp_path_factory.mktemp("matrix_scenarios")
    newest = {}
    for e in read_element_sets(data_file(ACTIVE_CATALOGUE_FILE)):
        if e.norad_id in NORAD_IDS and (
            e.norad_id not in newest or e.epoch_jd > newest[e.norad_id].epoch_jd
        ):
            newest[e.norad_id] = e
    tle = folder / "two.tle"
    tle.write_text("".join(f"{e.name}\n{e.line1}\n{e.line2}\n" for e in newest.values()))
    spec = default_scenario()
    files = {}
    for name, designers in DESIGNERS.items():
        privacy = dataclasses.replace(
            spec.privacy, pass_epsilons=(14.0,), measurement_epsilons=(12.0,), designers=designers
        )
        mine = dataclasses.replace(
            spec,
            window=dataclasses.replace(spec.window, hours=3.0, step_s=60.0),
            objects=dataclasses.replace(
                spec.objects, catalogue=str(tle), norad_ids=NORAD_IDS, regime=None, sample=None
            ),
            privacy=privacy,
        )
        files[name] = write_scenario(mine, folder / f"{name}.toml")
    return files


def _read_back(folder, designers):
    """Every TDM and OEM under ``ccsds/`` through ccsds-ndm: each parses, holds its
    segments, and says what the package's reader says (observations per segment)."""
    files = sorted((folder / "ccsds").rglob("*"))
    tdms = [f for f in files if f.suffix == ".tdm"]
    oems = [f for f in files if f.suffix == ".oem"]
    expected = {"measurements.tdm", *(f"releases_14_{d}.tdm" for d in designers)}
    assert {f.name for f in tdms} == expected
    assert len(oems) == len(NORAD_IDS) * (1 + len(designers))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # xsdata's conversion notes on the schema's enums
        for path in tdms:
            message = NdmIo().from_path(path)
            assert type(message).__name__ == "Tdm", path
            counts = [len(s.data.observation) for s in message.body.segment]
            ours = [s.values.size for s in read_tdm(path)]
            assert counts == ours and min(counts) > 0, path
        for path in oems:
            message = NdmIo().from_path(path)
            assert type(message).__name__ == "Oem", path
            (segment,) = message.body.segment
            assert int(segment.metadata.object_id) == int(path.name.split("_")[0])
            assert len(segment.data.state_vector) == len(segment.data.covariance_matrix) > 0


def _check_columns(rows, designers):
    """Every row has every column; a designer's columns are filled exactly when it ran
    (and, for the level without privacy, the unsuffixed ones only)."""
    assert list(rows[0]) == [name for name, _ in RESULTS_COLUMNS]
    for row in rows:
        assert row["status"] == "tracked" and row["first_contact_utc"]
        for suffix, designer in (("", "logdet"), ("_scaled", "scaled")):
            ran = designer in designers and row["level"] != "none"
            if row["level"] == "none":
                ran = suffix == ""
            for name in DESIGNER_COLUMNS:
                assert (row[f"{name}{suffix}"] != "") == ran, (row["level"], name, suffix)


#: The combination of the default test run (about 6 s; both failures it guards against,
#: a designer subset and messages with day budgets, in one run); the other eleven
#: (together about 80 s) are slow.
FAST = ("scaled", True, True)
CASES = [
    pytest.param(
        designers,
        ccsds,
        day,
        id=f"{designers}-{'ccsds' if ccsds else 'no-ccsds'}-{'day' if day else 'no-day'}",
        marks=() if (designers, ccsds, day) == FAST else pytest.mark.slow,
    )
    for designers in DESIGNERS
    for ccsds in (False, True)
    for day in (False, True)
]


@pytest.mark.parametrize("designers, ccsds, day", CASES)
def test_every_combination_finishes_and_writes_every_output(
    scenarios, tmp_path, designers, ccsds, day
):
    out = tmp_path / "run"
    arguments = ["run", "ssa-catalog", "--scenario", str(scenarios[designers])]
    arguments += ["--out", str(out), "--workers", "1", "--no-progress"]
    arguments += ["--ccsds"] * ccsds + ["--day-epsilons", "12"] * day
    assert main(arguments) == 0
    for name in TABLES + ("day_budgets",) * day:
        assert (out / f"{name}.csv").stat().st_size > 0 and (out / f"{name}.parquet").is_file()
    assert (out / "nees_series.parquet").is_file()
    assert not (out / "day_budgets.csv").exists() or day
    assert (out / "ccsds").is_dir() == ccsds
    results = json.loads((out / "results.json").read_text())
    ran = DESIGNERS[designers]
    for level, summary in results["summaries"].items():
        names = {"none"} if level == "none" else set(ran)
        assert set(summary) & {"none", "logdet", "scaled"} == names, level
        assert summary["objects_without_contact"] == 0
    with open(out / "results.csv") as stream:
        _check_columns(list(csv.DictReader(stream)), ran)
    if ccsds:
        _read_back(out, ran)
