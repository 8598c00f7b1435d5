"""Writing study output: atomic files, results tables and figures.

Every study writes through a :class:`StudyOutput`. Inside a study run (a ``run``
decorated with :func:`~ssa_privacy.engine.transaction.transactional`) the output is written as a
*set* (:mod:`ssa_privacy.engine.transaction`): into a temporary folder beside the target, renamed
onto it only when the run completes, so that the target holds the complete output of one
run. Outside a study run, :class:`StudyOutput` writes straight into its folder, each file
atomically (a temporary file ``.<name>.<pid>-<token>.part`` beside it, renamed into place
when complete). See :doc:`/cli`.

Values: numpy arrays and scalars become JSON lists and numbers; NaN, +inf and -inf are
written as JSON ``null`` (never the invalid bare ``NaN``) and as an empty cell in CSV,
the spelling of a missing value in both. Lists and dicts in a CSV cell are written as
JSON text. Files are created with the permissions the umask allows.
"""

import csv
import importlib.metadata
import io
import json
import os
import platform
import re
import secrets
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ssa_privacy import __version__
from ssa_privacy.engine.transaction import RESULTS_FILE, current_call, writing_folder

__all__ = [
    "DEPENDENCIES",
    "FIGURE_FORMATS",
    "StudyOutput",
    "atomic_path",
    "dependency_versions",
    "json_text",
    "rows_to_csv",
    "write_figure",
    "write_text_atomic",
]


@contextmanager
def atomic_path(path):
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    On an exception (including ``KeyboardInterrupt``) the temporary file is removed
    and ``path`` is left as it was. The file is created with the permissions the umask
    allows (``0o666 & ~umask``).

    Parameters
    ----------
    path : str or Path
        The file to write; its folder is created if missing.

    Yields
    ------
    Path
        A temporary file ``.<name>.<pid>-<token>.part`` in the same folder, to be
        written by the caller.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        temporary = path.parent / f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.part"
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
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


#: The main dependencies whose installed versions every results.json records.
DEPENDENCIES = (
    "numpy",
    "scipy",
    "control",
    "cvxpy",
    "clarabel",
    "filterpy",
    "matplotlib",
    "sgp4",
    "mpmath",
    "dask",
    "distributed",
)


def dependency_versions():
    """Installed versions of the main dependencies (None for one not installed).

    Returns
    -------
    dict
        Distribution name to version string, from the installed metadata.
    """
    versions = {}
    for name in DEPENDENCIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


#: Columns holding wall-clock times (kept out of results.csv, see write_results).
_TIME_COLUMN = re.compile(r"(^|_)time(_[a-z]+)?_s$")


def _without_times(row):
    return {key: value for key, value in row.items() if not _TIME_COLUMN.search(key)}


def _recorded_call():
    call = current_call()
    if call is None:
        return None
    plain = (str, int, float, bool, type(None), list, tuple, dict, Path, np.ndarray, np.generic)
    return {
        name: value if isinstance(value, plain) else repr(value)
        for name, value in call.items()
        if name not in ("runner", "progress")
    }


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def json_text(payload, indent=2, default=None):
    """Return ``payload`` as JSON text with every non-finite float written as ``null``.

    Parameters
    ----------
    payload : object
        Dicts, lists, tuples, numpy arrays and scalars, paths, str, int, float, bool, None.
    indent : int, optional
        Indentation of the JSON text.
    default : callable, optional
        Conversion of any other object (as in :func:`json.dumps`); without it such an
        object is a ``TypeError``.

    Returns
    -------
    str
        Valid JSON (RFC 8259): NaN, +inf and -inf become ``null``.
    """
    return json.dumps(_jsonable(payload), indent=indent, default=default, allow_nan=False)


def _csv_cell(value):
    value = _jsonable(value)
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, allow_nan=False)
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
        The CSV text, one line per row after the header. A missing value, None, NaN,
        +inf and -inf are all an empty cell; a list or dict is its JSON text.
    """
    fields = list(dict.fromkeys(key for row in rows for key in row))
    buffer = io.StringIO()
    _write_rows(buffer, fields, rows)
    return buffer.getvalue()


def _write_rows(stream, fields, rows):
    """Write the CSV header ``fields`` and the rows (an iterable of dicts) to ``stream``."""
    writer = csv.DictWriter(stream, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_cell(v) for k, v in row.items()})


#: Formats every study figure is written in.
FIGURE_FORMATS = ("png", "pdf")


def write_figure(figure, targets):
    """Save a matplotlib figure to each target (format from the suffix) atomically; close it.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    targets : sequence of Path
        The files to write, e.g. from :meth:`StudyOutput.figure_targets`; PNG at 150 dpi.
    """
    import matplotlib.pyplot as plt

    try:
        options = _frozen_layout(figure)
        for target in targets:
            with atomic_path(target) as temporary:
                figure.savefig(temporary, format=Path(target).suffix[1:], dpi=150, **options)
    finally:
        plt.close(figure)


def _frozen_layout(figure):
    """Lay the figure out once for both formats; the ``savefig`` options that remain.

    A figure with a layout engine (constrained layout, the studies' default) is laid out
    here and its engine switched off, so that the PNG and the PDF share one layout pass
    instead of one each (about half the time of a many-panel figure). A figure without one
    is cropped to its content (``bbox_inches="tight"``), which draws it twice per format.
    """
    engine = figure.get_layout_engine()
    if engine is None:
        return {"bbox_inches": "tight"}
    engine.execute(figure)
    figure.set_layout_engine("none")
    return {}


class StudyOutput:
    """The output folder of one study run.

    Parameters
    ----------
    folder : str or Path
        Where the study writes. Inside a study run
        (:func:`~ssa_privacy.engine.transaction.transactional`) it is checked with
        :func:`~ssa_privacy.engine.transaction.check_output_folder`, written as a set and replaced
        when the run completes; outside, it is created if missing and each file written
        atomically (see :func:`ssa_privacy.engine.transaction.writing_folder`).
    study : str
        The study's name, recorded in ``results.json``.
    parameters : dict
        The run's parameters (seed included), recorded in ``results.json``.

    Raises
    ------
    TypeError, ValueError, OSError
        If ``folder`` cannot be used (see
        :func:`~ssa_privacy.engine.transaction.check_output_folder`).
    """

    def __init__(self, folder, study, parameters):
        self._root = writing_folder(folder)
        self.folder = Path(folder).expanduser()
        self.study = study
        self.parameters = dict(parameters)
        self.written = []

    def path(self, name):
        """Return the path file ``name`` has inside the output folder (once complete).

        Parameters
        ----------
        name : str
            File name.

        Returns
        -------
        Path
            ``folder / name``. Inside a study run the file is there only once the run
            has completed.
        """
        return self.folder / name

    def target(self, name):
        """Return where to write file ``name`` now, for a writer of its own (atomically).

        Parameters
        ----------
        name : str
            File name inside the output folder, may hold sub-folders (``ccsds/x.tdm``).

        Returns
        -------
        Path
            The path in the run's writing folder; the file reaches :meth:`path` when the
            run completes.

        Raises
        ------
        ValueError
            If ``name`` is absolute, empty or leaves the folder.
        """
        return self._record(name)

    def _record(self, name):
        if Path(name).is_absolute() or ".." in Path(name).parts or not str(name).strip():
            raise ValueError(f"output file name must be relative and inside the folder: {name!r}")
        self.written.append(name)
        return self._root / name

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
            Its path in the output folder (see :meth:`path`).
        """
        write_text_atomic(self._record(name), text)
        return self.path(name)

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
            Its path in the output folder (see :meth:`path`).
        """
        return self.write_text(name, rows_to_csv(rows))

    def write_csv_stream(self, name, fields, rows):
        """Write rows as CSV atomically as they come, for a table too large to hold.

        Parameters
        ----------
        name : str
            File name inside the output folder.
        fields : list of str
            The header: the columns, in order.
        rows : iterable of dict
            The rows, each with columns of ``fields`` only (cells as :func:`rows_to_csv`).

        Returns
        -------
        Path
            Its path in the output folder (see :meth:`path`).
        """
        with atomic_path(self._record(name)) as temporary:
            with open(temporary, "w", encoding="utf-8", newline="") as stream:
                _write_rows(stream, fields, rows)
        return self.path(name)

    def write_json(self, name, payload):
        """Write a JSON document atomically.

        Parameters
        ----------
        name : str
            File name inside the output folder.
        payload : dict
            The document; numpy arrays and scalars become JSON lists and numbers,
            non-finite floats ``null`` (:func:`json_text`).

        Returns
        -------
        Path
            Its path in the output folder (see :meth:`path`).
        """
        return self.write_text(name, json_text(payload) + "\n")

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
            The PNG and PDF paths in the output folder (see :meth:`path`).
        """
        write_figure(figure, self.figure_targets(stem))
        return [self.path(f"{stem}.{extension}") for extension in FIGURE_FORMATS]

    def figure_targets(self, stem):
        """Record the figure files of ``stem`` and return where to write them.

        Parameters
        ----------
        stem : str
            File name without extension.

        Returns
        -------
        list of Path
            One path per format of :data:`FIGURE_FORMATS`, in the folder being written
            (inside a study run, the staging folder).
        """
        return [self._record(f"{stem}.{extension}") for extension in FIGURE_FORMATS]

    def metadata(self):
        """Return the provenance block stored in ``results.json``.

        Returns
        -------
        dict
            Study name, package and dependency versions, creation time (UTC), the
            arguments of the study's ``run`` as called (:func:`~ssa_privacy.engine.transaction.
            current_call`; the runner is recorded under ``parameters.runner``) and the
            run's parameters.
        """
        return {
            "study": self.study,
            "package": "ssa_privacy",
            "version": __version__,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "dependencies": dependency_versions(),
            "created_utc": datetime.now(UTC).isoformat(timespec="seconds"),
            "call": _recorded_call(),
            "parameters": self.parameters,
        }

    def write_results(self, rows, **extra):
        """Write ``results.csv`` (the rows) and ``results.json`` (metadata, rows, extras).

        Wall-clock times (columns named ``*time_s``, ``time_*_s``) differ from run to run
        and with the runner's backend, so they are kept out of ``results.csv``, which
        is then identical for the same parameters and seed wherever the run took place;
        ``results.json`` has the rows with their times.

        Parameters
        ----------
        rows : list of dict
            The results table.
        **extra
            Further top-level entries of ``results.json`` (certificates, summaries).
        """
        self.write_csv("results.csv", [_without_times(row) for row in rows])
        payload = {**self.metadata(), "results": rows, **extra}
        self.write_json(RESULTS_FILE, payload)
