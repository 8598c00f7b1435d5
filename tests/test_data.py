"""Data folder search order and the loaders' errors (file, line, column; no row dropped).

Every file here is built in a temporary folder; the search is exercised with a
monkeypatched environment, working directory and package location (an installed package
lives in ``site-packages``, without a checkout around it).
"""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import ssa_privacy.engine.data as data
from ssa_privacy.engine.data import (
    CENSUS_FILE,
    CENSUS_SPLIT_FILE,
    DATA_ENV,
    KUNG_FILE,
    DataFileError,
    data_dir,
    data_file,
    load_census,
    load_kung,
    load_kung_women,
    read_csv_columns,
)

# ----------------------------------------------------------------------------- search


@pytest.fixture
def world(tmp_path, monkeypatch):
    """An installed package, no environment variable, and a working directory in no repository."""
    monkeypatch.delenv(DATA_ENV, raising=False)
    installed = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    installed.mkdir(parents=True)
    monkeypatch.setattr(data, "_PACKAGE_ROOT", installed)
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    if data._repository_root(outside) is not None:
        pytest.skip("the temporary folder lies inside a repository")
    return tmp_path


def _folder(path):
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("marker", [".git", "pyproject.toml", "setup.cfg"])
def test_installed_package_finds_shared_data_beside_the_repository_of_the_cwd(
    world, monkeypatch, marker
):
    repository = _folder(world / "work" / "project")
    (repository / marker).mkdir() if marker == ".git" else (repository / marker).touch()
    shared = _folder(world / "work" / "shared" / "data")
    (shared / KUNG_FILE).write_text("x")
    monkeypatch.chdir(_folder(repository / "notebooks" / "deep"))
    assert data_dir() == shared
    assert data_file(KUNG_FILE) == shared / KUNG_FILE


def test_a_checkout_falls_back_to_shared_data_beside_the_package(world, monkeypatch):
    checkout = _folder(world / "src" / "ssa")
    (checkout / "pyproject.toml").touch()
    monkeypatch.setattr(data, "_PACKAGE_ROOT", checkout)
    shared = _folder(world / "src" / "shared" / "data")
    assert data_dir() == shared


def test_the_first_default_folder_holding_the_file_wins(world, monkeypatch):
    repository = _folder(world / "a" / "repo")
    (repository / "setup.cfg").touch()
    first = _folder(world / "a" / "shared" / "data")
    checkout = _folder(world / "b" / "ssa")
    (checkout / ".git").mkdir()
    second = _folder(world / "b" / "shared" / "data")
    (second / KUNG_FILE).write_text("x")
    monkeypatch.setattr(data, "_PACKAGE_ROOT", checkout)
    monkeypatch.chdir(repository)
    assert data_dir() == first
    assert data_file(KUNG_FILE) == second / KUNG_FILE


def test_explicit_path_then_environment_take_precedence(world, monkeypatch):
    given, env = _folder(world / "given"), _folder(world / "env")
    monkeypatch.setenv(DATA_ENV, str(env))
    assert data_dir() == env and data_dir(given) == given and data_dir(str(given)) == given
    monkeypatch.setenv(DATA_ENV, "  ")  # an empty value counts as unset
    with pytest.raises(FileNotFoundError, match="no data folder found"):
        data_dir()


def test_nothing_found_names_every_place_tried(world, monkeypatch):
    repository = _folder(world / "r" / "repo")
    (repository / ".git").mkdir()
    checkout = _folder(world / "c" / "ssa")
    (checkout / "setup.cfg").touch()
    monkeypatch.setattr(data, "_PACKAGE_ROOT", checkout)
    monkeypatch.chdir(repository)
    with pytest.raises(FileNotFoundError) as error:
        data_file(KUNG_FILE)
    message = str(error.value)
    for place in (world / "r" / "shared" / "data", world / "c" / "shared" / "data"):
        assert str(place / KUNG_FILE) in message
    assert "repository of the current directory" in message and "package checkout" in message
    assert DATA_ENV in message and "--data" in message and "Howell" in message
    assert "\n" not in message


def test_an_installed_package_outside_a_repository_says_why_nothing_was_tried(world):
    with pytest.raises(FileNotFoundError) as error:
        data_dir()
    message = str(error.value)
    assert "site-packages" in message and "not run from a checkout" in message
    assert f"no repository (.git, pyproject.toml, setup.cfg) above {world / 'outside'}" in message


@pytest.mark.parametrize(
    "make, exception, fragments",
    [
        (lambda w: ("path", w / "missing"), FileNotFoundError, ["path (--data)", "missing"]),
        (lambda w: ("path", w / "file.txt"), NotADirectoryError, ["path (--data)", "file.txt"]),
        (lambda w: ("env", w / "missing"), FileNotFoundError, [DATA_ENV, "missing"]),
        (lambda w: ("env", w / "file.txt"), NotADirectoryError, [DATA_ENV, "file.txt"]),
        (lambda w: ("path", ""), ValueError, ["path (--data)", "empty"]),
        (lambda w: ("path", 5), TypeError, ["path (--data)", "int"]),
        (lambda w: ("path", b"/tmp"), TypeError, ["path (--data)", "bytes"]),
        (lambda w: ("file", w), FileNotFoundError, ["path (--data)", str(Path(KUNG_FILE))]),
    ],
    ids=["path missing", "path a file", "env missing", "env a file", "path empty",
         "path int", "path bytes", "file missing in given folder"],
)  # fmt: skip
def test_a_bad_data_folder_is_named(world, monkeypatch, make, exception, fragments):
    (world / "file.txt").write_text("not a folder")
    kind, value = make(world)
    with pytest.raises(exception) as error:
        if kind == "env":
            monkeypatch.setenv(DATA_ENV, str(value))
            data_dir()
        elif kind == "file":
            data_file(KUNG_FILE, value)
        else:
            data_dir(value)
    for fragment in fragments:
        assert fragment in str(error.value)


# ----------------------------------------------------------------------------- census

CENSUS_HEADER = ["RT", "PUMA", "POWPUMA", "AGEP", "ANC1P", "POBP", "PINCP", "SEX"]
CENSUS_ROWS = [
    ["P", "06604", "", "66", "032", "048", "14400", "2"],
    ["P", "06804", "06800", "46", "999", "048", "3500", "1"],
    ["P", "06900", "", "10", "032", "006", "", "2"],
    ["P", "07000", "07001", "35", "050", "048", "-1200", "1"],
]


def _census_text(rows=CENSUS_ROWS, header=CENSUS_HEADER):
    return "\n".join(",".join(r) for r in [header, *rows]) + "\n"


def _census_folder(tmp_path, text=None, split=None):
    folder = _folder(tmp_path / "census")
    (folder / CENSUS_FILE).write_text(_census_text() if text is None else text)
    if split is None:
        split = json.dumps({"train_csv_row": [0, 3], "test_csv_row": [1]})
    (folder / CENSUS_SPLIT_FILE).write_text(split)
    return folder


def test_a_small_census_loads_every_listed_row(tmp_path):
    census = load_census(_census_folder(tmp_path))
    np.testing.assert_array_equal(census.train_rows, [0, 3])
    np.testing.assert_array_equal(census.X_train[0], [6604, 0, 66, 32, 48])  # blank -> 0
    np.testing.assert_allclose(census.y_train, [0.144, -0.012])
    np.testing.assert_array_equal(census.X_test, [[6804, 6800, 46, 999, 48]])


def _replace(row, column, value):
    rows = [list(r) for r in CENSUS_ROWS]
    rows[row][CENSUS_HEADER.index(column)] = value
    return _census_text(rows)


# (description, census text, line, column, message fragment)
CENSUS_FAULTS = [
    ("letters in AGEP", _replace(2, "AGEP", "ten"), 4, "AGEP", "'ten' is not a finite number"),
    ("nan income", _replace(0, "PINCP", "nan"), 2, "PINCP", "'nan' is not a finite number"),
    ("inf code", _replace(1, "POBP", "inf"), 3, "POBP", "'inf' is not a finite number"),
    ("overflow", _replace(3, "ANC1P", "1e999"), 5, "ANC1P", "'1e999' is not a finite number"),
    ("comma decimal", _replace(1, "PUMA", "6,5"), 3, "(extra)", "9 fields, the header 8"),
    ("truncated file", _census_text()[:-17], 5, "ANC1P", "has 4 fields, the header 8"),
    ("extra field", _census_text(CENSUS_ROWS + [CENSUS_ROWS[0] + ["9"]]), 6, "(extra)",
     "9 fields"),
    ("blank line inside", _census_text(CENSUS_ROWS[:2] + [[]] + CENSUS_ROWS[2:]), 4, "RT",
     "0 fields"),
    ("header only", _census_text([]), 2, None, "a header but no data rows"),
    ("empty file", "", 1, None, "the file is empty"),
    ("missing column", _census_text(header=CENSUS_HEADER[:-2] + ["INCOME", "SEX"]), 1, None,
     "lacks the columns ['PINCP']"),
    ("unterminated quote", _census_text() + 'P,"06604,,1\n', 6, None, "malformed CSV"),
]  # fmt: skip


@pytest.mark.parametrize(
    "text, line, column, fragment",
    [c[1:] for c in CENSUS_FAULTS],
    ids=[c[0] for c in CENSUS_FAULTS],
)
def test_a_bad_census_file_names_file_line_and_column(tmp_path, text, line, column, fragment):
    folder = _census_folder(tmp_path, text=text)
    with pytest.raises(DataFileError) as error:
        load_census(folder)
    message = str(error.value)
    assert isinstance(error.value, ValueError) and "\n" not in message
    assert message.startswith(f"{folder / CENSUS_FILE}, line {line}")
    assert error.value.line == line and error.value.column == column and fragment in message
    if column is not None:
        assert f"column {column}" in message


def test_a_census_file_that_is_not_utf8_is_named(tmp_path):
    folder = _census_folder(tmp_path)
    (folder / CENSUS_FILE).write_bytes(_census_text().encode() + b"P,\xff\n")
    with pytest.raises(DataFileError, match=r"line 6: not UTF-8 text"):
        load_census(folder)


# (description, split JSON, key or line/column, message fragment)
SPLIT_FAULTS = [
    ("trailing comma", '{"train_csv_row": [0, 3,], "test_csv_row": [1]}', "line 1, column 25",
     "invalid JSON"),
    ("empty file", "", "line 1, column 1", "invalid JSON (Expecting value)"),
    ("second line", '{"train_csv_row": [0],\n "test_csv_row": [1}', "line 2, column 20",
     "invalid JSON"),
    ("a list", "[0, 1]", None, "expected a JSON object"),
    ("no train key", '{"test_csv_row": [1]}', "key train_csv_row", "found nothing"),
    ("test a string", '{"train_csv_row": [0], "test_csv_row": "1"}', "key test_csv_row",
     "found '1'"),
    ("empty list", '{"train_csv_row": [], "test_csv_row": [1]}', "key train_csv_row",
     "non-empty list"),
    ("float entry", '{"train_csv_row": [0, 3.5], "test_csv_row": [1]}',
     "key train_csv_row[1]", "3.5 is not an integer"),
    ("bool entry", '{"train_csv_row": [true], "test_csv_row": [1]}', "key train_csv_row[0]",
     "True is not an integer"),
    ("string entry", '{"train_csv_row": [0], "test_csv_row": ["1"]}', "key test_csv_row[0]",
     "'1' is not an integer"),
    ("negative row", '{"train_csv_row": [-1], "test_csv_row": [1]}', "key train_csv_row[0]",
     "data row -1 is outside the census file (rows 0-3)"),
    ("row past the end", '{"train_csv_row": [0], "test_csv_row": [4]}',
     "key test_csv_row[0]", "data row 4 is outside"),
    ("row in both", '{"train_csv_row": [0, 1], "test_csv_row": [3, 1]}',
     "key test_csv_row[1]", "listed twice (also train_csv_row[1])"),
    ("row without income", '{"train_csv_row": [0], "test_csv_row": [1, 2]}',
     "key test_csv_row[1]", "data row 2 (line 4 of"),
]  # fmt: skip


@pytest.mark.parametrize(
    "split, where, fragment",
    [c[1:] for c in SPLIT_FAULTS],
    ids=[c[0] for c in SPLIT_FAULTS],
)
def test_a_bad_split_file_names_the_file_and_the_place(tmp_path, split, where, fragment):
    folder = _census_folder(tmp_path, split=split)
    with pytest.raises(DataFileError) as error:
        load_census(folder)
    message = str(error.value)
    prefix = f"{folder / CENSUS_SPLIT_FILE}" + (f", {where}" if where else "")
    assert message.startswith(prefix + ":") and fragment in message and "\n" not in message


@pytest.mark.parametrize("split", ["Authors", None, 1])
def test_an_unknown_split_is_named(tmp_path, split):
    with pytest.raises(ValueError, match="split must be 'authors' or 'random'"):
        load_census(_census_folder(tmp_path), split=split)


def test_a_random_split_needs_enough_rows_with_income(tmp_path):
    with pytest.raises(ValueError, match="3 rows report an income"):
        load_census(_census_folder(tmp_path), split="random", seed=0)


# ----------------------------------------------------------------------------- kung

KUNG_ROWS = [
    ["151.765", "47.8256065", "63", "1"],
    ["139.7", "36.4858065", "63", "0"],
    ["136.525", "31.864838", "65", "0"],
    ["156.845", "53.0419145", "41", "1"],
    ["145.415", "41.276872", "51", "0"],
]


def _kung_folder(tmp_path, rows=KUNG_ROWS, header=("height_cm", "weight_kg", "age_yr", "male")):
    folder = _folder(tmp_path / "kung")
    text = "\n".join(",".join(r) for r in [header, *rows]) + "\n"
    (folder / KUNG_FILE).write_text(text)
    return folder


def test_the_kung_women_are_every_row_with_male_zero_in_file_order(tmp_path):
    folder = _kung_folder(tmp_path)
    age, height = load_kung_women(folder)
    with open(folder / KUNG_FILE, newline="") as handle:
        women = [r for r in csv.DictReader(handle) if r["male"] == "0"]
    np.testing.assert_array_equal(age, [float(r["age_yr"]) for r in women])
    np.testing.assert_array_equal(height, [float(r["height_cm"]) for r in women])
    assert len(load_kung(folder)["male"]) == len(KUNG_ROWS)


def _kung_replace(row, column, value):
    rows = [list(r) for r in KUNG_ROWS]
    rows[row][("height_cm", "weight_kg", "age_yr", "male").index(column)] = value
    return rows


# (description, rows, header, line, column, fragment)
KUNG_FAULTS = [
    ("non-numeric male", _kung_replace(2, "male", "F"), None, 4, "male",
     "'F' is not a finite number"),
    ("male 2", _kung_replace(1, "male", "2"), None, 3, "male", "2 is not 0 or 1"),
    ("male 0.5", _kung_replace(4, "male", "0.5"), None, 6, "male", "0.5 is not 0 or 1"),
    ("blank height", _kung_replace(0, "height_cm", ""), None, 2, "height_cm",
     "a blank is not a finite number"),
    ("negative age", _kung_replace(3, "age_yr", "-4"), None, 5, "age_yr", "negative age"),
    ("zero height", _kung_replace(1, "height_cm", "0"), None, 3, "height_cm",
     "not a positive height"),
    ("short row", KUNG_ROWS[:2] + [["139.7", "36.4"]], None, 4, "age_yr", "2 fields"),
    ("no male column", [r[:3] for r in KUNG_ROWS], ("height_cm", "weight_kg", "age_yr"), 1,
     None, "lacks the columns ['male']"),
    ("header only", [], None, 2, None, "no data rows"),
]  # fmt: skip


@pytest.mark.parametrize(
    "rows, header, line, column, fragment",
    [c[1:] for c in KUNG_FAULTS],
    ids=[c[0] for c in KUNG_FAULTS],
)
def test_a_bad_kung_file_names_file_line_and_column(tmp_path, rows, header, line, column, fragment):
    folder = _kung_folder(tmp_path, rows, header or ("height_cm", "weight_kg", "age_yr", "male"))
    with pytest.raises(DataFileError) as error:
        load_kung_women(folder)
    message = str(error.value)
    assert message.startswith(f"{folder / KUNG_FILE}, line {line}")
    assert (error.value.line, error.value.column) == (line, column) and fragment in message
    if column is not None:
        assert f"column {column}" in message


def test_read_csv_columns_keeps_every_row(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,\n2,3\n-4.5e1,7\n")
    table = read_csv_columns(path, ["a", "b"], allow_blank=["b"])
    np.testing.assert_array_equal(table["a"], [1, 2, -45])
    np.testing.assert_array_equal(table["b"], [np.nan, 3, 7])


def test_the_kung_loader_moved_and_the_old_path_still_works():
    from ssa_privacy.studies import kung

    assert kung.load_women is load_kung_women
