"""The checkpoints of a :class:`ssa_privacy.engine.runner.Runner` map: one file per finished task.

Each finished task is stored as ``<index>-<key digest>.pkl`` in the map's folder (written
to a temporary name, then renamed). The key digest covers everything the result depends
on: the task function (its module, name and source), the task's key, arguments and seed
keys, the map's ``shared`` arguments, the caller's fingerprint and the package version,
so a resumed run reuses a stored result only when none of these changed. A stored file
that cannot be read back (truncated by a crash, empty, overwritten) is named in a
:class:`DamagedCheckpointWarning`, deleted, and its task recomputed.
"""

import hashlib
import inspect
import pickle
import warnings
from pathlib import Path

from ssa_privacy import __version__
from ssa_privacy.engine.output import atomic_path
from ssa_privacy.engine.transaction import clean_parts

__all__ = [
    "CheckpointStore",
    "DamagedCheckpointWarning",
    "map_digest",
    "task_digest",
]


class DamagedCheckpointWarning(RuntimeWarning):
    """A checkpoint file could not be read; it was deleted and its task is recomputed."""


def _pickled(value, what):
    """``pickle.dumps(value)``, or a TypeError naming ``what`` when it cannot be pickled."""
    try:
        return pickle.dumps(value, protocol=4)
    except Exception as error:
        raise TypeError(
            f"{what} cannot be pickled for the checkpoint key: {type(error).__name__}: {error}"
        ) from error


def _function_identity(function):
    """Module, qualified name and source text of a task function (source None if unknown)."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        source = None
    name = getattr(function, "__qualname__", type(function).__qualname__)
    return getattr(function, "__module__", None), name, source


def map_digest(function, shared, fingerprint):
    """Digest of what every task of one map depends on besides its own arguments.

    Parameters
    ----------
    function : callable
        The task function.
    shared : dict
        The map's shared keyword arguments.
    fingerprint : object
        The caller's description of anything else the results depend on.

    Returns
    -------
    bytes
        A SHA-256 digest of the function's identity, ``shared``, ``fingerprint`` and the
        package version.

    Raises
    ------
    TypeError
        If an entry of ``shared`` or ``fingerprint`` cannot be pickled (named).
    """
    parts = [_pickled((_function_identity(function), __version__), "the task function")]
    parts += [_pickled((name, value), f"shared[{name!r}]") for name, value in shared.items()]
    parts.append(_pickled(fingerprint, "fingerprint"))
    return hashlib.sha256(b"".join(parts)).digest()


def task_digest(common, task):
    """Digest of one task's stored result.

    Parameters
    ----------
    common : bytes
        The map's digest (:func:`map_digest`).
    task : ssa_privacy.engine.runner.Task
        The task.

    Returns
    -------
    str
        20 hexadecimal characters.

    Raises
    ------
    TypeError
        If the task's arguments cannot be pickled (the task's key is named).
    """
    blob = _pickled((task.key, task.arguments, task.seed_keys), f"task {task.key!r}")
    return hashlib.sha256(common + blob).hexdigest()[:20]


class CheckpointStore:
    """The checkpoint files of one map: one pickle per finished task.

    Parameters
    ----------
    folder : str or Path or None
        The runner's checkpoint folder; None stores nothing.
    name : str
        The map's name (its sub-folder).
    """

    def __init__(self, folder, name):
        self.folder = None if folder is None else Path(folder) / name
        if self.folder is not None and self.folder.is_dir():
            clean_parts(self.folder)  # temporaries of a killed run

    def path(self, index, digest):
        """The file of a task's stored result.

        Parameters
        ----------
        index : int
            The task's position in the map.
        digest : str
            The task's key digest (:func:`task_digest`).

        Returns
        -------
        Path
            ``<folder>/<index, 6 digits>-<digest>.pkl``.
        """
        return self.folder / f"{index:06d}-{digest}.pkl"

    def load(self, index, digest):
        """Load a task's stored result, if there is a readable one.

        Parameters
        ----------
        index : int
            The task's position in the map.
        digest : str
            The task's key digest (:func:`task_digest`).

        Returns
        -------
        tuple
            ``(True, result)``, or ``(False, None)`` when nothing is stored. A file that
            cannot be read back is deleted with a :class:`DamagedCheckpointWarning`
            naming it, and reported as not stored.
        """
        if self.folder is None or not self.path(index, digest).is_file():
            return False, None
        path = self.path(index, digest)
        try:
            with open(path, "rb") as stream:
                return True, pickle.load(stream)
        except Exception as error:
            warnings.warn(
                f"checkpoint {str(path)!r} is damaged ({type(error).__name__}: {error}); "
                "deleted, its task is recomputed",
                DamagedCheckpointWarning,
                stacklevel=2,
            )
            path.unlink(missing_ok=True)
            return False, None

    def save(self, index, digest, result):
        """Store a task's result (nothing without a folder), atomically.

        Parameters
        ----------
        index : int
            The task's position in the map.
        digest : str
            The task's key digest (:func:`task_digest`).
        result : object
            The task's result (picklable).
        """
        if self.folder is None:
            return
        with atomic_path(self.path(index, digest)) as temporary, open(temporary, "wb") as out:
            pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)

    def clear(self):
        """Delete every stored task of this map."""
        if self.folder is not None and self.folder.is_dir():
            for path in self.folder.glob("*.pkl"):
                path.unlink()
