"""Files a scenario names: where they are found, and their provenance record.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import hashlib
from pathlib import Path

from ssa_privacy.engine.data import data_file
from ssa_privacy.studies.scenario.checks import ScenarioError, _string

__all__ = [
    "file_record",
    "resolve",
]


# -- reading -----------------------------------------------------------------------------------


def file_record(path):
    """Path, size and SHA-256 of a file, for provenance.

    Parameters
    ----------
    path : str or path-like
        An existing file.

    Returns
    -------
    dict
        ``path`` (absolute, str), ``bytes`` (int) and ``sha256`` (hex).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.

    Notes
    -----
    SHA-256: FIPS 180-4 (:mod:`hashlib`).
    """
    path = Path(path)
    raw = path.read_bytes()
    return {
        "path": str(path.resolve()),
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }


def resolve(path_text, data_folder=None, *, base=None, source=None, key=None, text=None):
    """The file a scenario names: beside the scenario, else in the data folder.

    Parameters
    ----------
    path_text : str or path-like
        The name as written. ``~`` is expanded; an absolute path must exist.
    data_folder : str or path-like, optional
        Data folder (``--data``); without it, the search of
        :func:`ssa_privacy.engine.data.data_file`.
    base : str or path-like, optional
        Folder of the scenario file: a relative name is looked up there first. None (the
        shipped default): the data folder only.
    source, key : str, optional
        The scenario file and the dotted key, for the error message.
    text : str, optional
        The scenario's text, to give the key's line in the error message.

    Returns
    -------
    Path
        An existing file.

    Raises
    ------
    ScenarioError
        A one-line message naming the source and key and every place tried, or the
        folder the name gives.

    Notes
    -----
    Search order of this module's docstring; the data folder's:
    :mod:`ssa_privacy.engine.data`.
    """

    def fail(problem):
        error = ScenarioError(problem, source=source, key=key)
        return error.within(text=text) if text else error

    name = _string(str(path_text), key or "path")
    path = Path(name).expanduser()
    if path.is_absolute():
        if not path.is_file():
            problem = "is a folder, not a file" if path.is_dir() else "file not found"
            raise fail(f"{problem}: {str(path)!r}")
        return path
    tried = []
    if base is not None:
        beside = Path(base) / path
        if beside.is_file():
            return beside
        if beside.is_dir():
            raise fail(f"{name!r} names a folder beside the scenario, not a file")
        tried.append(f"{str(beside.absolute())!r}")
    try:
        return data_file(name, data_folder)
    except (FileNotFoundError, NotADirectoryError) as error:
        found = " ".join(str(error).split())
        where = f"not beside the scenario ({tried[0]}); " if tried else ""
        raise fail(f"file {name!r} not found: {where}{found}") from None
