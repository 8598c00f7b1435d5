"""Locating and reading the real data sets used by the studies.

The data are never part of the project: they are read from a folder given by the
caller, else by the environment variable ``SSA_PRIVACY_DATA``, else from
``../shared/data`` beside the checkout (or beside the current directory).
"""

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Environment variable naming the data folder.
DATA_ENV = "SSA_PRIVACY_DATA"

_SOURCES = {
    "pums_tx2023_person_sample_5000.csv": (
        "the 2023 ACS 1-year PUMS Texas person file (U.S. Census Bureau), 5,000-record sample "
        "published with the privacy-aware GP paper's code"
    ),
    "privacygp_census_split.json": "the census train/test split recovered from the authors' data",
    "howell1_kung_san.csv": "Howell's !Kung San census (R package rethinking, Howell1)",
}


def _default_candidates():
    checkout = Path(__file__).resolve().parent.parent
    return [checkout.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]


def data_dir(path=None):
    """Return the data folder.

    Parameters
    ----------
    path : str or Path, optional
        Explicit folder; takes precedence over the environment.

    Returns
    -------
    Path
        The folder given, else ``$SSA_PRIVACY_DATA``, else the first existing
        ``../shared/data`` beside the checkout or the current directory (the first
        candidate if none exists, so that error messages name it).
    """
    if path is not None:
        return Path(path)
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    candidates = _default_candidates()
    return next((c for c in candidates if c.is_dir()), candidates[0])


def data_file(name, path=None):
    """Return the path of data file ``name``, checking it exists.

    Parameters
    ----------
    name : str
        File name inside the data folder.
    path : str or Path, optional
        Data folder (see :func:`data_dir`).

    Returns
    -------
    Path
        The file's path.

    Raises
    ------
    FileNotFoundError
        If the file is missing; the message names the path tried, how to point the
        package at the data, and where the data comes from.
    """
    folder = data_dir(path)
    target = folder / name
    if not target.is_file():
        source = _SOURCES.get(name, "the project's shared data folder")
        raise FileNotFoundError(
            f"data file not found: {target}. Pass --data PATH or set {DATA_ENV} to the "
            f"folder holding {name} ({source}); by default the package looks in "
            f"../shared/data beside the checkout."
        )
    return target


#: Census inputs of the [TCB] §5.2 study, in model order.
CENSUS_FEATURES = ("PUMA", "POWPUMA", "AGEP", "ANC1P", "POBP")
#: Census output: total personal income (USD), modelled in units of CENSUS_INCOME_UNIT.
CENSUS_TARGET = "PINCP"
CENSUS_INCOME_UNIT = 1e5
CENSUS_FILE = "pums_tx2023_person_sample_5000.csv"
CENSUS_SPLIT_FILE = "privacygp_census_split.json"
#: Sizes of the authors' split (train, test).
CENSUS_SPLIT_SIZES = (1325, 331)


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


def _read_census_columns(path):
    """Read the census columns as float arrays (blank -> NaN), one row per data row."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = set(CENSUS_FEATURES + (CENSUS_TARGET,)) - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path} lacks the columns {sorted(missing)}")
        rows = [
            [float(r[c]) if r[c].strip() else np.nan for c in CENSUS_FEATURES + (CENSUS_TARGET,)]
            for r in reader
        ]
    table = np.array(rows)
    return table[:, :-1], table[:, -1]


def load_census(path=None, split="authors", seed=None):
    """Load the [TCB] §5.2 census data with the authors' or a random train/test split.

    Parameters
    ----------
    path : str or Path, optional
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
        If a data file is missing (the message names the path tried).
    ValueError
        If ``split`` is unknown or the split file names rows without an income.

    Notes
    -----
    [TCB] §5.2; preprocessing as the authors' code (see :doc:`/theory/privacy-aware-gp`,
    census reproduction notes): blank features become 0, features are not standardised
    here, income is divided by 1e5.
    """
    features, income = _read_census_columns(data_file(CENSUS_FILE, path))
    if split == "authors":
        with open(data_file(CENSUS_SPLIT_FILE, path), encoding="utf-8") as handle:
            recorded = json.load(handle)
        train, test = np.array(recorded["train_csv_row"]), np.array(recorded["test_csv_row"])
    elif split == "random":
        eligible = np.flatnonzero(np.isfinite(income))
        chosen = np.random.default_rng(seed).choice(
            eligible, sum(CENSUS_SPLIT_SIZES), replace=False
        )
        train, test = chosen[: CENSUS_SPLIT_SIZES[0]], chosen[CENSUS_SPLIT_SIZES[0] :]
    else:
        raise ValueError(f"split must be 'authors' or 'random', got {split!r}")
    if not np.all(np.isfinite(income[np.concatenate([train, test])])):
        raise ValueError("the split names rows without a reported income (PINCP)")
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
