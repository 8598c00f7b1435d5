"""Locating and reading the real data sets used by the studies.

The data are never part of the project. The data folder is searched in this order:

1. the folder given by the caller (``path``; ``--data PATH`` on the command line);
2. the folder named by the environment variable ``SSA_PRIVACY_DATA`` (an empty value
   counts as unset);
3. ``../shared/data`` beside the repository holding the current working directory: the
   search walks up from the current directory to the first folder holding ``.git``,
   ``pyproject.toml`` or ``setup.cfg`` and takes ``shared/data`` in that folder's parent;
4. ``../shared/data`` beside the package's own checkout, when the package runs from a
   checkout (an editable install or ``PYTHONPATH``); an installed package (under
   ``site-packages``) has no checkout and skips this step.

A folder given in 1 or 2 that is not a folder is an error naming it (the search does not
fall through to the defaults). Among 3 and 4, a data file is taken from the first folder
that holds it; when none does, the error names every place tried.

The readers never drop a row: a bad value is an error naming the file, its line (and the
0-based data row, as the split file counts them) and the column.
"""

import csv
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "CENSUS_FEATURES",
    "CENSUS_FILE",
    "CENSUS_INCOME_UNIT",
    "CENSUS_SPLIT_FILE",
    "CENSUS_SPLIT_KEYS",
    "CENSUS_SPLIT_SIZES",
    "CENSUS_TARGET",
    "CensusData",
    "DATA_ENV",
    "DataFileError",
    "KUNG_COLUMNS",
    "KUNG_FILE",
    "REPOSITORY_MARKERS",
    "data_dir",
    "data_file",
    "load_census",
    "load_kung",
    "load_kung_women",
    "read_csv_columns",
    "read_split",
]

#: Environment variable naming the data folder.
DATA_ENV = "SSA_PRIVACY_DATA"
#: Files or folders that mark the root of a repository (the search of step 3).
REPOSITORY_MARKERS = (".git", "pyproject.toml", "setup.cfg")
#: Root of the package's checkout when it runs from one (the parent of ``ssa_privacy/``).
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent

_SOURCES = {
    "pums_tx2023_person_sample_5000.csv": (
        "the 2023 ACS 1-year PUMS Texas person file (U.S. Census Bureau), 5,000-record sample "
        "published with the privacy-aware GP paper's code"
    ),
    "privacygp_census_split.json": "the census train/test split recovered from the authors' data",
    "howell1_kung_san.csv": "Howell's !Kung San census (R package rethinking, Howell1)",
    "active_satellites_2026-03-19.tle": "CelesTrak's catalogue of active satellites (3 lines)",
}
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class DataFileError(ValueError):
    """A data file whose content is not what the reader expects.

    Parameters
    ----------
    file : str or Path
        The file.
    problem : str
        What is wrong (one line).
    line : int, optional
        Line number in the file (1-based; the header of a CSV file is line 1).
    column : str or int, optional
        Column at fault (CSV: its name; JSON: the character position).
    key : str, optional
        Key at fault (JSON), e.g. ``"train_csv_row[3]"``.

    Notes
    -----
    ``str(error)`` is one line naming the file, line and column.
    """

    def __init__(self, file, problem, *, line=None, column=None, key=None):
        self.file, self.problem, self.line, self.column = str(file), problem, line, column
        self.key = key
        where = [self.file]
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        if key is not None:
            where.append(f"key {key}")
        super().__init__(f"{', '.join(where)}: {problem}")


def _folder_argument(value, origin):
    """An explicit folder (argument or environment variable), checked to be a folder."""
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{origin} must be a folder name (str or path), got {type(value).__name__}")
    if str(value).strip() == "":
        raise ValueError(f"{origin} must name a data folder, got an empty string")
    folder = Path(value).expanduser()
    if not folder.exists():
        raise FileNotFoundError(f"data folder given by {origin} does not exist: {str(folder)!r}")
    if not folder.is_dir():
        raise NotADirectoryError(
            f"data folder given by {origin} is not a folder: {str(folder)!r} is a file"
        )
    return folder


def _repository_root(start):
    """The first folder from ``start`` upwards that holds a repository marker, or None."""
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in REPOSITORY_MARKERS):
            return folder
    return None


def _default_candidates():
    """Steps 3 and 4 of the search: (folder, origin) pairs, and notes on skipped steps."""
    candidates, notes = [], []
    try:
        cwd = Path.cwd()
    except OSError:
        cwd = None
        notes.append("the current directory no longer exists")
    repository = _repository_root(cwd) if cwd is not None else None
    if repository is not None:
        origin = f"../shared/data beside the repository of the current directory ({repository})"
        candidates.append((repository.parent / "shared" / "data", origin))
    elif cwd is not None:
        notes.append(f"no repository (.git, pyproject.toml, setup.cfg) above {cwd}")
    if any((_PACKAGE_ROOT / marker).exists() for marker in REPOSITORY_MARKERS):
        folder = _PACKAGE_ROOT.parent / "shared" / "data"
        if all(folder != c for c, _ in candidates):
            candidates.append(
                (folder, f"../shared/data beside the package checkout ({_PACKAGE_ROOT})")
            )
    else:
        notes.append(f"the package is installed in {_PACKAGE_ROOT}, not run from a checkout")
    return candidates, notes


def _tried(candidates, notes, name=None):
    places = []
    for folder, origin in candidates:
        target = folder / name if name else folder
        state = (
            ", folder does not exist" if not folder.is_dir() else ", no such file" if name else ""
        )
        places.append(f"{target} ({origin}{state})")
    return "; ".join(places + notes) or "nowhere"


def data_dir(path=None):
    """Return the data folder.

    Parameters
    ----------
    path : str or path-like, optional
        Explicit folder (``--data``); takes precedence over the environment.

    Returns
    -------
    Path
        The folder given, else ``$SSA_PRIVACY_DATA``, else the first existing default
        folder of the search order (module documentation).

    Raises
    ------
    TypeError, ValueError
        If ``path`` is not a str or path, or is empty.
    FileNotFoundError
        If the folder given by ``path`` or ``SSA_PRIVACY_DATA`` does not exist (the
        message names it), or no default folder exists (it names every place tried).
    NotADirectoryError
        If ``path`` or ``SSA_PRIVACY_DATA`` names a file.
    """
    if path is not None:
        return _folder_argument(path, "path (--data)")
    if os.environ.get(DATA_ENV, "").strip():
        return _folder_argument(os.environ[DATA_ENV], DATA_ENV)
    candidates, notes = _default_candidates()
    for folder, _ in candidates:
        if folder.is_dir():
            return folder
    raise FileNotFoundError(
        f"no data folder found; tried: {_tried(candidates, notes)}. Pass --data PATH or set "
        f"{DATA_ENV} to the folder holding the data"
    )


def data_file(name, path=None):
    """Return the path of data file ``name``, checking it exists.

    Parameters
    ----------
    name : str
        File name inside the data folder.
    path : str or path-like, optional
        Data folder (see :func:`data_dir`). Without it (and without
        ``SSA_PRIVACY_DATA``), the file is taken from the first default folder holding it.

    Returns
    -------
    Path
        The file's path.

    Raises
    ------
    FileNotFoundError
        If the file is missing; the message names every place tried, how to point the
        package at the data, and where the data come from.
    NotADirectoryError, TypeError, ValueError
        As :func:`data_dir`.
    """
    source = _SOURCES.get(name, "the project's shared data folder")
    hint = f"Pass --data PATH or set {DATA_ENV} to the folder holding {name} ({source})"
    if path is not None or os.environ.get(DATA_ENV, "").strip():
        folder = data_dir(path)
        origin = "path (--data)" if path is not None else DATA_ENV
        target = folder / name
        if not target.is_file():
            raise FileNotFoundError(
                f"data file not found: {target} (folder given by {origin}). {hint}"
            )
        return target
    candidates, notes = _default_candidates()
    for folder, _ in candidates:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(
        f"data file {name} not found; tried: {_tried(candidates, notes, name)}. {hint}"
    )


def _decode(path):
    """Text of a file, with a decoding error placed at its line."""
    raw = Path(path).read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise DataFileError(path, "not UTF-8 text", line=line) from None


def read_csv_columns(file, columns, *, allow_blank=()):
    """Read numeric columns of a CSV file, every data row, as float arrays.

    Parameters
    ----------
    file : str or path-like
        CSV file with a header line.
    columns : sequence of str
        Columns to read (others are not parsed).
    allow_blank : sequence of str, optional
        Columns where a blank field is allowed; it becomes NaN.

    Returns
    -------
    dict of str to ndarray, shape (rows,)
        One array per column, one entry per data row (none dropped), in file order.

    Raises
    ------
    DataFileError
        A :class:`ValueError` naming the file, line (and 0-based data row) and column: an
        empty file, a header without a requested column, no data rows, a row with another
        number of fields than the header (e.g. a truncated file), a value that is not a
        finite number, a blank where none is allowed, or malformed CSV.
    """
    path = Path(file)
    reader = csv.reader(_decode(path).splitlines(), strict=True)
    rows = []
    try:
        header = next(reader, None)
        if header is None or not any(h.strip() for h in header):
            raise DataFileError(path, "the file is empty (no header line)", line=1)
        names = [h.strip() for h in header]
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataFileError(path, f"the header lacks the columns {missing}", line=1)
        index = [names.index(c) for c in columns]
        for fields in reader:
            line, row = reader.line_num, len(rows)
            if len(fields) != len(names):
                first = names[len(fields)] if len(fields) < len(names) else "(extra)"
                raise DataFileError(
                    path,
                    f"data row {row} has {len(fields)} fields, the header {len(names)} "
                    "(truncated or malformed row)",
                    line=line,
                    column=first,
                )
            rows.append(
                [
                    _number(fields[i], path, line, row, c, allow_blank)
                    for i, c in zip(index, columns)
                ]
            )
    except csv.Error as error:
        raise DataFileError(path, f"malformed CSV ({error})", line=reader.line_num) from None
    if not rows:
        raise DataFileError(path, "the file has a header but no data rows", line=2)
    table = np.array(rows, dtype=float).reshape(len(rows), len(columns))
    return {c: table[:, k] for k, c in enumerate(columns)}


def _number(text, path, line, row, column, allow_blank):
    value = text.strip()
    if not value and column in allow_blank:
        return np.nan
    if not _NUMBER.fullmatch(value) or not np.isfinite(float(value)):
        found = "a blank" if not value else f"{text!r}"
        raise DataFileError(
            path, f"data row {row}: {found} is not a finite number", line=line, column=column
        )
    return float(value)


#: Census inputs of the [TCB] §5.2 study, in model order.
CENSUS_FEATURES = ("PUMA", "POWPUMA", "AGEP", "ANC1P", "POBP")
#: Census output: total personal income (USD), modelled in units of CENSUS_INCOME_UNIT.
CENSUS_TARGET = "PINCP"
CENSUS_INCOME_UNIT = 1e5
CENSUS_FILE = "pums_tx2023_person_sample_5000.csv"
CENSUS_SPLIT_FILE = "privacygp_census_split.json"
#: Sizes of the authors' split (train, test).
CENSUS_SPLIT_SIZES = (1325, 331)
#: Keys of the split file: 0-based data-row indices of the census file.
CENSUS_SPLIT_KEYS = ("train_csv_row", "test_csv_row")


@dataclass(frozen=True)
class CensusData:
    """Train/test arrays of the census study.

    Parameters
    ----------
    X_train, X_test : ndarray, shape (n, 5)
        Raw features PUMA, POWPUMA, AGEP (years), ANC1P, POBP (codes read as numbers;
        a blank POWPUMA, i.e. not working, is 0).
    y_train, y_test : ndarray, shape (n,)
        PINCP in units of 1e5 USD.
    train_rows, test_rows : ndarray of int
        0-based data-row indices into the PUMS sample file.
    split : str
        ``"authors"`` or ``"random"``.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    train_rows: np.ndarray
    test_rows: np.ndarray
    split: str


def read_split(file, rows):
    """Read and check the census split file.

    Parameters
    ----------
    file : str or path-like
        JSON object with the lists ``train_csv_row`` and ``test_csv_row``.
    rows : int
        Number of data rows of the census file the indices point into.

    Returns
    -------
    tuple of ndarray of int
        ``(train, test)`` 0-based data-row indices.

    Raises
    ------
    DataFileError
        A :class:`ValueError` naming the file and the line/column (invalid JSON) or the
        key and entry at fault: not a JSON object, a missing or empty list, an entry that
        is not an integer, a row outside the census file, a row listed twice.
    """
    path = Path(file)
    try:
        recorded = json.loads(_decode(path))
    except json.JSONDecodeError as error:
        message = f"invalid JSON ({error.msg})"
        raise DataFileError(path, message, line=error.lineno, column=error.colno) from None
    if not isinstance(recorded, dict):
        raise DataFileError(path, f"expected a JSON object with the keys {list(CENSUS_SPLIT_KEYS)}")
    seen, lists = {}, []
    for key in CENSUS_SPLIT_KEYS:
        entries = recorded.get(key)
        if not isinstance(entries, list) or not entries:
            found = "nothing" if key not in recorded else f"{entries!r:.40}"
            raise DataFileError(
                path, f"expected a non-empty list of row indices, found {found}", key=key
            )
        for k, entry in enumerate(entries):
            problem = None
            if isinstance(entry, bool) or not isinstance(entry, int):
                problem = f"{entry!r} is not an integer row index"
            elif not 0 <= entry < rows:
                problem = f"data row {entry} is outside the census file (rows 0-{rows - 1})"
            elif entry in seen:
                problem = f"data row {entry} is listed twice (also {seen[entry]})"
            if problem:
                raise DataFileError(path, problem, key=f"{key}[{k}]")
            seen[entry] = f"{key}[{k}]"
        lists.append(np.array(entries, dtype=int))
    return lists[0], lists[1]


def load_census(path=None, split="authors", seed=None):
    """Load the [TCB] §5.2 census data with the authors' or a random train/test split.

    Parameters
    ----------
    path : str or path-like, optional
        Data folder (see :func:`data_dir`).
    split : {"authors", "random"}
        ``"authors"``: the exact 1,325 / 331 rows of the authors' code
        (``privacygp_census_split.json``). ``"random"``: 1,656 rows drawn without
        replacement among those with a reported income, split 1,325 / 331.
    seed : int, optional
        Seed of the random split (ignored for ``"authors"``).

    Returns
    -------
    CensusData
        The train and test arrays with the data-file rows they came from.

    Raises
    ------
    FileNotFoundError
        If a data file is missing (the message names every place tried).
    DataFileError
        A :class:`ValueError` naming file, line and column of a bad value (see
        :func:`read_csv_columns` and :func:`read_split`), or a split row without income.
    ValueError
        If ``split`` is unknown, or the census file has too few rows with an income for
        a random split.

    Notes
    -----
    [TCB] §5.2; preprocessing as the authors' code (see :doc:`/theory/privacy-aware-gp`,
    census reproduction notes): blank features become 0, features are not standardised
    here, income is divided by 1e5.
    """
    if split not in ("authors", "random"):
        raise ValueError(f"split must be 'authors' or 'random', got {split!r}")
    census = data_file(CENSUS_FILE, path)
    columns = CENSUS_FEATURES + (CENSUS_TARGET,)
    table = read_csv_columns(census, columns, allow_blank=columns)
    features = np.column_stack([table[c] for c in CENSUS_FEATURES])
    income = table[CENSUS_TARGET]
    if split == "authors":
        split_file = data_file(CENSUS_SPLIT_FILE, path)
        train, test = read_split(split_file, len(income))
        for key, rows in zip(CENSUS_SPLIT_KEYS, (train, test)):
            bad = np.flatnonzero(~np.isfinite(income[rows]))
            if bad.size:
                raise DataFileError(
                    split_file,
                    f"data row {rows[bad[0]]} (line {rows[bad[0]] + 2} of {census.name}) has "
                    f"no reported income ({CENSUS_TARGET})",
                    key=f"{key}[{bad[0]}]",
                )
    else:
        eligible = np.flatnonzero(np.isfinite(income))
        if eligible.size < sum(CENSUS_SPLIT_SIZES):
            raise ValueError(
                f"{census}: {eligible.size} rows report an income ({CENSUS_TARGET}), a random "
                f"split needs {sum(CENSUS_SPLIT_SIZES)}"
            )
        chosen = np.random.default_rng(seed).choice(
            eligible, sum(CENSUS_SPLIT_SIZES), replace=False
        )
        train, test = chosen[: CENSUS_SPLIT_SIZES[0]], chosen[CENSUS_SPLIT_SIZES[0] :]
    features = np.nan_to_num(features, nan=0.0)
    return CensusData(
        features[train],
        income[train] / CENSUS_INCOME_UNIT,
        features[test],
        income[test] / CENSUS_INCOME_UNIT,
        train,
        test,
        split,
    )


#: Howell's !Kung San census ([SMI] §4): height (cm), weight (kg), age (years), male (1/0).
KUNG_FILE = "howell1_kung_san.csv"
KUNG_COLUMNS = ("height_cm", "weight_kg", "age_yr", "male")


def load_kung(path=None):
    """Every row of Howell's !Kung San census.

    Parameters
    ----------
    path : str or path-like, optional
        Data folder (see :func:`data_dir`).

    Returns
    -------
    dict of str to ndarray, shape (544,)
        ``height_cm``, ``weight_kg``, ``age_yr`` and ``male`` (0 or 1), in file order.

    Raises
    ------
    FileNotFoundError
        If the file is missing (the message names every place tried).
    DataFileError
        A :class:`ValueError` naming file, line and column: see :func:`read_csv_columns`;
        also a ``male`` other than 0 or 1 and a negative age or non-positive height.

    Notes
    -----
    [SMI] §4 (the data of the !Kung study); see :doc:`/theory/dp-gp`.
    """
    file = data_file(KUNG_FILE, path)
    table = read_csv_columns(file, KUNG_COLUMNS)
    checks = (
        ("male", lambda v: np.isin(v, (0.0, 1.0)), "is not 0 or 1"),
        ("age_yr", lambda v: v >= 0, "is a negative age"),
        ("height_cm", lambda v: v > 0, "is not a positive height"),
    )
    for column, valid, problem in checks:
        bad = np.flatnonzero(~valid(table[column]))
        if bad.size:
            row, value = int(bad[0]), table[column][bad[0]]
            message = f"data row {row}: {value:g} {problem}"
            raise DataFileError(file, message, line=row + 2, column=column)
    return table


def load_kung_women(path=None):
    """Ages (years) and heights (cm) of the 287 women of Howell's !Kung San census.

    Parameters
    ----------
    path : str or path-like, optional
        Data folder (see :func:`data_dir`).

    Returns
    -------
    age, height : ndarray, shape (287,)
        The rows with ``male == 0``, in file order.

    Raises
    ------
    FileNotFoundError
        If the file is missing (the message names every place tried).
    DataFileError
        A :class:`ValueError` naming file, line and column of a bad value (see
        :func:`load_kung`).

    Notes
    -----
    [SMI] §4: the heights are private, the ages public; see :doc:`/theory/dp-gp`.
    """
    table = load_kung(path)
    women = table["male"] == 0
    return table["age_yr"][women], table["height_cm"][women]
