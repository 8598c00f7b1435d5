"""Data location, atomic output and the command line."""

import json

import numpy as np
import pytest

from ssa_privacy import __version__
from ssa_privacy.cli import main
from ssa_privacy.engine.data import DATA_ENV, data_dir, load_census
from ssa_privacy.engine.output import StudyOutput, atomic_path


def test_data_folder_precedence(monkeypatch, tmp_path):
    # The folders must exist: a given folder that does not is an error (tests/test_data.py).
    (tmp_path / "env").mkdir()
    (tmp_path / "given").mkdir()
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "env"))
    assert data_dir() == tmp_path / "env"
    assert data_dir(tmp_path / "given") == tmp_path / "given"


def test_missing_census_data_names_the_path_tried(tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path)) as error:
        load_census(tmp_path)
    assert "SSA_PRIVACY_DATA" in str(error.value) and "PUMS" in str(error.value)


def test_interrupted_write_leaves_nothing_behind(tmp_path):
    target = tmp_path / "results.csv"
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(target) as temporary:
            temporary.write_text("half")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_results_record_parameters_seed_and_version(tmp_path):
    output = StudyOutput(tmp_path, "demo", {"seed": 7, "alpha": np.float64(0.5)})
    output.write_results([{"method": "x", "rmse": 1.0}], certificate_min=0.0)
    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["parameters"] == {"seed": 7, "alpha": 0.5}
    assert payload["version"] == __version__
    assert (tmp_path / "results.csv").read_text().splitlines() == ["method,rmse", "x,1.0"]


def test_cli_lists_the_studies(capsys):
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    for study in ("example1", "satellite", "census"):
        assert study in listed
