"""Study output as a set: a run's folder appears complete, or keeps the previous run's.

Inside a study run (a function decorated with :func:`transactional`, or a block under
:func:`output_transaction`) every :class:`ssa_privacy.engine.output.StudyOutput` writes into a
temporary folder beside its target, ``.<name>.staging-<pid>-<token>``; only when the run
returns without an error is that folder renamed onto the target. A previous target
folder is first renamed aside (``.<name>.old-<pid>-<token>``), the new folder renamed
into place, and the old one deleted. So the target holds either the complete output of
the previous run or the complete output of the new one, never a mix; an error or an
interrupt (Ctrl-C) deletes the staging folder and leaves the previous output untouched.

A run killed without a chance to clean up (SIGKILL, power loss) leaves its staging folder
behind; the next run on the same target deletes it (and every other temporary of a
process that no longer runs) before it starts. If the kill came between the two renames,
the target is missing and the previous output sits aside: the next run renames it back
first.

Because the target is replaced as a whole, a run refuses a target folder that holds
files but no ``results.json`` (it is not the output of a study run), the current
directory and the folders above it; it also refuses a folder inside the installed
package, and a name too long for the temporary folder beside it. Folders are created
with the permissions the umask allows. See :doc:`/cli` for the command line's view of it.
"""

import contextvars
import functools
import inspect
import os
import re
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "FIGURE_STYLE",
    "RESULTS_FILE",
    "check_output_folder",
    "checkpoint_folder",
    "clean_parts",
    "current_call",
    "discard_checkpoints",
    "output_transaction",
    "transactional",
    "writing_folder",
]

#: Name of the results document; a target folder holding it may be replaced by a run.
RESULTS_FILE = "results.json"
#: Temporary files of per-file atomic writes (:func:`ssa_privacy.engine.output.atomic_path`):
#: ``.<name>.<pid>-<token>.part``, and ``.<name>.<8 characters>.part`` of older versions.
_PART = re.compile(r"\.(?P<name>.+)\.(?:(?P<pid>\d+)-[0-9a-f]{8}|[a-z0-9_]{8})\.part\Z")
#: Temporary folders beside a target ``<name>``: ``.<name>.<kind>-<pid>-<token>``.
_BESIDE = re.compile(r"(?P<kind>staging|old)-(?P<pid>\d+)-[0-9a-f]{8}\Z")
#: The most bytes the temporary folders beside a target add to its name:
#: ``.<name>.staging-<pid>-<token>``, the pid of at most 7 digits (Linux's largest).
_BESIDE_EXTRA = len("..staging--") + 7 + 8
#: The installed package's folder: no output goes inside it.
_PACKAGE = Path(__file__).resolve().parents[1]
_ACTIVE = contextvars.ContextVar("ssa_privacy_output_sets", default=None)
_CALL = contextvars.ContextVar("ssa_privacy_study_call", default=None)


def _token():
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def _alive(pid):
    """Whether process ``pid`` may still be running (its temporaries are then kept)."""
    if pid == os.getpid() or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _remove(path):
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _folder_name(folder, name):
    if isinstance(folder, bytes) or not isinstance(folder, (str, os.PathLike)):
        raise TypeError(f"{name} must be a folder name (str or path), got {type(folder).__name__}")
    if str(folder).strip() == "":
        raise ValueError(f"{name} must name a folder, got an empty string")
    return Path(folder).expanduser()


def check_output_folder(folder, name="out"):
    """Check that a study run may write ``folder`` as a set, replacing what it holds.

    Parameters
    ----------
    folder : str or path-like
        The target folder (it need not exist).
    name : str or None, optional
        How the caller calls the argument, for the messages (None: the messages start
        with the folder).

    Returns
    -------
    Path
        The target's absolute path, symbolic links resolved.

    Raises
    ------
    TypeError, ValueError
        If ``folder`` is not a path, is empty, is the filesystem root, is the current
        directory or one above it, or lies inside the installed package.
    NotADirectoryError
        If ``folder`` (or a folder above it) is a file, or so is its checkpoint folder
        (:func:`checkpoint_folder`).
    FileExistsError
        If ``folder`` holds files but no ``results.json``: it is not the output of a
        study run, and a run would replace it as a whole.
    PermissionError
        If the folder that would hold ``folder`` is not writable.
    OSError
        If the name of ``folder`` is too long for the temporary folder a run writes
        beside it (the file system's longest name less 26 bytes).
    """
    path = _folder_name(folder, name or "folder")
    shown = f"{name} {str(path)!r}" if name else repr(str(path))
    target = path.resolve()
    if target.parent == target:
        raise ValueError(f"{shown} is the filesystem root; name a folder below it")
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{shown} is a file, not a folder")
    if target == _PACKAGE or _PACKAGE in target.parents:
        raise ValueError(
            f"{shown} is inside the installed package ({str(_PACKAGE)!r}); name a folder "
            "outside it, e.g. figures/<study>"
        )
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        cwd = None
    if cwd is not None and (cwd == target or target in cwd.parents):
        raise ValueError(
            f"{shown} is the current directory or holds it; a run replaces its output "
            "folder as a whole: name a folder below it, e.g. figures/<study>"
        )
    if target.is_dir():
        others = sorted(e.name for e in target.iterdir() if not _PART.match(e.name))
        if others and not (target / RESULTS_FILE).is_file():
            raise FileExistsError(
                f"{shown} holds files ({len(others)}, e.g. {others[0]!r}) but no "
                f"{RESULTS_FILE}: it is not the output of a study run, and a run replaces its "
                "output folder as a whole; name a new or empty folder, or remove it"
            )
        home = target.parent
    else:
        home = next(a for a in target.parents if a.exists() or a.parent == a)
        if not home.is_dir():
            raise NotADirectoryError(f"{shown}: {str(home)!r} is a file, not a folder")
    if not os.access(home, os.W_OK | os.X_OK):
        raise PermissionError(f"{shown}: the folder {str(home)!r} is not writable")
    _check_name_length(target, home, shown)
    checkpoints = checkpoint_folder(target)
    if checkpoints.exists() and not checkpoints.is_dir():
        raise NotADirectoryError(
            f"{shown}: {str(checkpoints)!r}, where a run keeps its finished tasks, is a file, "
            "not a folder; remove it"
        )
    return target


def _check_name_length(target, home, shown):
    """OSError if the temporary folder beside ``target`` would have too long a name."""
    try:
        longest = os.pathconf(home, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        longest = 255
    size = len(os.fsencode(target.name))
    if size + _BESIDE_EXTRA > longest:
        raise OSError(
            f"{shown}: its name is {size} bytes; a run writes a temporary folder beside it "
            f"whose name is {_BESIDE_EXTRA} bytes longer, and this file system allows "
            f"{longest}: name it in at most {longest - _BESIDE_EXTRA} bytes"
        )


def clean_parts(folder):
    """Delete the per-file temporaries in ``folder`` left by processes no longer running.

    Parameters
    ----------
    folder : Path
        An existing folder.
    """
    for entry in folder.iterdir():
        match = _PART.match(entry.name)
        if match and entry.is_file() and not (match["pid"] and _alive(int(match["pid"]))):
            entry.unlink(missing_ok=True)


def _clean_beside(target):
    """Delete the stale temporaries beside ``target``; restore an output left aside."""
    prefix = f".{target.name}."
    stale = []
    for entry in target.parent.iterdir():
        match = entry.name.startswith(prefix) and _BESIDE.match(entry.name[len(prefix) :])
        if match and not _alive(int(match["pid"])):
            stale.append((match["kind"], entry))
    aside = [entry for kind, entry in stale if kind == "old" and entry.is_dir()]
    if aside and not (target.exists() or target.is_symlink()):
        newest = max(aside, key=lambda entry: entry.stat().st_mtime)
        os.rename(newest, target)
        stale = [(kind, entry) for kind, entry in stale if entry != newest]
    for _, entry in stale:
        _remove(entry)


class _StagedFolder:
    """The staging folder of one target, renamed onto it by :meth:`commit`."""

    def __init__(self, target):
        self.target = target
        target.parent.mkdir(parents=True, exist_ok=True)
        _clean_beside(target)
        while True:
            self.staging = target.parent / f".{target.name}.staging-{_token()}"
            try:
                self.staging.mkdir(mode=0o777)
                break
            except FileExistsError:
                continue

    def commit(self):
        if not (self.target.exists() or self.target.is_symlink()):
            os.rename(self.staging, self.target)
            return
        aside = self.target.parent / f".{self.target.name}.old-{_token()}"
        os.rename(self.target, aside)
        try:
            os.rename(self.staging, self.target)
        except BaseException:
            os.rename(aside, self.target)
            raise
        _remove(aside)

    def discard(self):
        _remove(self.staging)


@contextmanager
def output_transaction():
    """Make the output folders created in the block appear as complete sets.

    Every :class:`~ssa_privacy.engine.output.StudyOutput` created inside the block writes into a
    staging folder beside its target; at the end of the block the staging folders are renamed onto
    their targets (module documentation). On an exception, ``KeyboardInterrupt``
    included, they are deleted and the targets keep their previous content. A nested
    block joins the outer one (the outermost block commits).

    Yields
    ------
    None

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> from ssa_privacy.engine.output import StudyOutput
    >>> try:
    ...     with output_transaction():
    ...         _ = StudyOutput(root / "demo", "demo", {}).write_text("a.txt", "half")
    ...         raise KeyboardInterrupt
    ... except KeyboardInterrupt:
    ...     pass
    >>> sorted(p.name for p in root.iterdir())
    []
    """
    if _ACTIVE.get() is not None:
        yield
        return
    staged = []
    token = _ACTIVE.set(staged)
    try:
        try:
            yield
        finally:
            _ACTIVE.reset(token)
        for folder in staged:
            folder.commit()
    except BaseException:
        for folder in staged:
            folder.discard()
        raise


#: Matplotlib settings of every study's figures: constrained layout, 8 pt text (a
#: two-column paper's; :func:`ssa_privacy.engine.figures.layout_problems` checks it).
FIGURE_STYLE = {"figure.constrained_layout.use": True, "font.size": 8.0}


def transactional(function):
    """Decorate a study's ``run``: its output is written as a set, its call recorded.

    Parameters
    ----------
    function : callable
        The study's ``run``.

    Returns
    -------
    callable
        ``function`` run inside :func:`output_transaction`, with its bound arguments
        available to :func:`current_call` (and so recorded in ``results.json``), and with
        the house figure style (:data:`FIGURE_STYLE`) in force.
    """

    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        import matplotlib

        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        token = _CALL.set(dict(bound.arguments))
        try:
            with output_transaction(), matplotlib.rc_context(FIGURE_STYLE):
                return function(*args, **kwargs)
        finally:
            _CALL.reset(token)

    return wrapper


def current_call():
    """The arguments of the study run in progress, as called (defaults filled in).

    Returns
    -------
    dict or None
        Parameter name to value for the innermost :func:`transactional` run, None
        outside one.
    """
    return _CALL.get()


def writing_folder(folder):
    """Return the folder a study's output for ``folder`` is written into.

    Parameters
    ----------
    folder : str or path-like
        The study's output folder.

    Returns
    -------
    Path
        Inside a study run, a new staging folder beside the checked target (see
        :func:`check_output_folder`), renamed onto it when the run completes. Outside,
        ``folder`` itself, created if missing, after deleting the temporary files that
        processes no longer running left in it.

    Raises
    ------
    TypeError, ValueError, OSError
        If ``folder`` cannot be used (see :func:`check_output_folder`), or is already
        written by the same run.
    """
    staged = _ACTIVE.get()
    path = _folder_name(folder, "out")
    if staged is None:
        if path.exists() and not path.is_dir():
            raise NotADirectoryError(f"out {str(path)!r} is a file, not a folder")
        path.mkdir(parents=True, exist_ok=True)
        clean_parts(path)
        return path
    target = check_output_folder(path)
    if any(stage.target == target for stage in staged):
        raise ValueError(f"out {str(path)!r} is already written by this run")
    stage = _StagedFolder(target)
    staged.append(stage)
    return stage.staging


def checkpoint_folder(folder):
    """Where a run of a study into ``folder`` keeps its finished tasks for ``--resume``.

    Parameters
    ----------
    folder : str or path-like
        The study's output folder.

    Returns
    -------
    Path
        ``.<name>.checkpoints`` beside the output folder: outside the staging folder, so
        that it survives an interrupted run, and removed by the command line when a run
        completes (:func:`discard_checkpoints`).

    Raises
    ------
    TypeError, ValueError
        If ``folder`` is not a folder name.
    """
    path = _folder_name(folder, "out")
    return path.parent / f".{path.name}.checkpoints"


def discard_checkpoints(folder):
    """Delete a checkpoint folder (after the run it served has completed).

    Parameters
    ----------
    folder : Path or None
        The folder from :func:`checkpoint_folder`; None does nothing.
    """
    if folder is not None and Path(folder).exists():
        _remove(Path(folder))
