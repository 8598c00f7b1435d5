"""Writing study output: atomic files, results tables and figures.

Every study writes through a :class:`StudyOutput`, so that an interrupted run never
leaves a half-written file behind: each file is written under a temporary name in the
same folder and renamed into place only when complete.
"""

import csv
import io
import json
import os
import platform
import tempfile
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ssa_privacy import __version__


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    On an exception (including ``KeyboardInterrupt``) the temporary file is removed
    and ``path`` is left as it was.

    Parameters
    ----------
    path : str or Path
        The file to write; its folder is created if missing.

    Yields
    ------
    Path
        A temporary file in the same folder, to be written by the caller.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(handle)
    try:
        yield Path(temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text_atomic(path, text):
    """Write ``text`` to ``path`` atomically (temporary file, then rename).

    Parameters
    ----------
    path : str or Path
        The file to write.
    text : str
        Its content, written as UTF-8.
    """
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def rows_to_csv(rows):
    """Return CSV text for a list of dicts; the header is the union of their keys in order.

    Parameters
    ----------
    rows : list of dict
        The rows; a key missing from a row leaves its cell empty.

    Returns
    -------
    str
        The CSV text, one line per row after the header.
    """
    fields = []
    for row in rows:
        fields.extend(key for key in row if key not in fields)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _jsonable(v) for k, v in row.items()})
    return buffer.getvalue()


class StudyOutput:
    """The output folder of one study run.

    Parameters
    ----------
    folder : str or Path
        Where the study writes; created if missing.
    study : str
        The study's name, recorded in ``results.json``.
    parameters : dict
        The run's parameters (seed included), recorded in ``results.json``.
    """

    def __init__(self, folder, study, parameters):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.study = study
        self.parameters = dict(parameters)
        self.written = []

    def path(self, name):
        """Return the path of file ``name`` inside the output folder.

        Parameters
        ----------
        name : str
            File name.

        Returns
        -------
        Path
            ``folder / name``.
        """
        return self.folder / name

    def _record(self, name):
        self.written.append(name)
        return self.path(name)

    def write_text(self, name, text):
        """Write a text file atomically.

        Parameters
        ----------
        name : str
            File name inside the output folder.
        text : str
            Its content.

        Returns
        -------
        Path
            The path written.
        """
        path = self._record(name)
        write_text_atomic(path, text)
        return path

    def write_csv(self, name, rows):
        """Write a list of dicts as CSV atomically.

        Parameters
        ----------
        name : str
            File name inside the output folder.
        rows : list of dict
            The rows (see :func:`rows_to_csv`).

        Returns
        -------
        Path
            The path written.
        """
        return self.write_text(name, rows_to_csv(rows))

    def write_json(self, name, payload):
        """Write a JSON document atomically.

        Parameters
        ----------
        name : str
            File name inside the output folder.
        payload : dict
            The document; numpy arrays and scalars become JSON lists and numbers,
            non-finite floats ``null``.

        Returns
        -------
        Path
            The path written.
        """
        return self.write_text(name, json.dumps(_jsonable(payload), indent=2) + "\n")

    def save_figure(self, figure, stem):
        """Save a matplotlib figure as ``stem.png`` and ``stem.pdf`` atomically and close it.

        Parameters
        ----------
        figure : matplotlib.figure.Figure
            The figure.
        stem : str
            File name without extension.

        Returns
        -------
        list of Path
            The PNG and PDF paths.
        """
        import matplotlib.pyplot as plt

        paths = []
        for extension in ("png", "pdf"):
            path = self._record(f"{stem}.{extension}")
            with atomic_path(path) as temporary:
                figure.savefig(temporary, format=extension, dpi=150, bbox_inches="tight")
            paths.append(path)
        plt.close(figure)
        return paths

    def metadata(self):
        """Return the provenance block stored in ``results.json``.

        Returns
        -------
        dict
            Study name, package and dependency versions, creation time (UTC) and the
            run's parameters.
        """
        return {
            "study": self.study,
            "package": "ssa_privacy",
            "version": __version__,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
            "parameters": self.parameters,
        }

    def write_results(self, rows, **extra):
        """Write ``results.csv`` (the rows) and ``results.json`` (metadata, rows, extras).

        Parameters
        ----------
        rows : list of dict
            The results table.
        **extra
            Further top-level entries of ``results.json`` (certificates, summaries).
        """
        self.write_csv("results.csv", rows)
        payload = {**self.metadata(), "results": rows, **extra}
        self.write_json("results.json", payload)
