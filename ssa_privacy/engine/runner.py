"""The design-study engine: run a study's tasks serially, on a process pool or on Dask.

A study (or a user's own sweep) declares its work as a list of :class:`Task` s, each with
its keyword arguments and the keys of its random seed, and hands them to a
:class:`Runner`:

>>> from ssa_privacy.engine.runner import Runner, Task
>>> def square(x, offset):
...     return x * x + offset
>>> tasks = [Task(key=("x", x), arguments={"x": x}) for x in range(4)]
>>> Runner(workers=1, progress=False).map(square, tasks, shared={"offset": 1})
[1, 2, 5, 10]

A task's seed keys are given once, as ``Task(..., seed_keys=(seed, i))``: the runner
passes them to the function as its keyword argument ``seed_keys`` and records them in
:meth:`Runner.describe`; the function draws from ``default_rng(list(seed_keys))``.

The backends:

- serial (``workers=1``);
- a local process pool (``workers=N``; processes are forked from a fresh server process
  (``forkserver``) that imports the package, and the modules named in ``preload``, once
  and ahead of time, so a worker starts in milliseconds instead of re-importing scipy
  and matplotlib; the server starts when a runner first needs a pool, and lives as long
  as the process; the function must be importable: defined at module level, not in
  ``__main__`` of an interactive session);
- a Dask distributed cluster (``scheduler="tcp://HOST:PORT"`` for a running one,
  ``dask_local=N`` to start a ``LocalCluster`` of N single-threaded worker processes),
  through ``dask.distributed`` itself. The client (and the local cluster) is opened by
  the first map and lives until :meth:`Runner.close`; use the runner as a context
  manager (``with Runner(dask_local=2) as runner: ...``) so that it is closed.

Results do not depend on the backend or on the number of workers: every task carries
its own seed keys, BLAS runs one thread per task in every backend (``threadpoolctl``;
OpenBLAS threads competing for two cores slowed an ``eigh`` fifty-fold here, and the
thread count can change the rounding of a product), so does heyoka's compiler of orbit
integrators (``heyoka.set_nthreads(1)``, restored after a task run serially), and :meth:`Runner.map` returns the
results in task order (:meth:`Runner.imap` yields them as they finish, each with its
task's index, for a caller that writes them away instead of holding them). With a
checkpoint folder, each finished task is stored there (written to a temporary name, then
renamed), and a run with ``resume=True`` loads the stored tasks
instead of recomputing them; a stored result is used only for a task with the same
function, key, arguments, seed keys, ``shared`` arguments, fingerprint and package
version, and a damaged one is deleted with a warning naming it and recomputed
(:mod:`ssa_privacy.engine.checkpoints`).

No task is lost without its name: an error raised by a task is re-raised as
:class:`TaskError`, which names the task's key and chains the original error (and, from
a process pool or Dask, the worker's traceback); a worker process that dies while
running a task raises :class:`WorkerLost`, naming the task.
"""

import importlib.util
import math
import numbers
import os
import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from ssa_privacy._internal.threads import one_heyoka_thread
from ssa_privacy._internal.validation import flag
from ssa_privacy.engine.checkpoints import CheckpointStore, map_digest, task_digest

__all__ = [
    "Runner",
    "SCHEDULER_PATTERN",
    "Task",
    "TaskError",
    "WorkerLost",
    "usable_cores",
]

#: Form of a Dask scheduler address accepted by :class:`Runner`.
SCHEDULER_PATTERN = re.compile(r"^(tcp|tls|inproc|ws|wss|ucx)://\S+$")


def usable_cores():
    """The number of CPU cores this process may run on.

    Returns
    -------
    int
        ``len(os.sched_getaffinity(0))`` where available, else ``os.cpu_count()``
        (at least 1).
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Task:
    """One unit of a study's work.

    Parameters
    ----------
    key : tuple
        Identifies the task in the results and the checkpoints, e.g. ``("replication",
        3, "alpha", 0.1)``: a non-empty tuple of strings, integers, finite floats, bools
        or None, so that it is hashable, picklable and recorded in JSON as it is (numpy
        numbers are stored as the Python numbers of the same value).
    arguments : dict
        Keyword arguments of the task's function (picklable), without ``seed_keys``.
    seed_keys : tuple of int, optional
        The entropy of the task's random numbers, non-negative integers: passed to the
        function as its keyword argument ``seed_keys`` (it draws from
        ``numpy.random.default_rng(list(seed_keys))``) and recorded with the results; None
        for a deterministic task, whose function gets no ``seed_keys``.

    Raises
    ------
    ValueError
        If ``arguments`` holds ``seed_keys`` (give them once, as ``seed_keys``), ``key``
        is empty or holds a non-finite float, or a seed key is negative.
    TypeError
        If ``key`` is not a tuple of those values (a string ``"ab"`` is refused: write
        ``("ab",)``), ``arguments`` is not a dict, or ``seed_keys`` is not a non-empty
        sequence of integers.
    """

    key: tuple
    arguments: dict = field(default_factory=dict)
    seed_keys: tuple = None

    def __post_init__(self):
        object.__setattr__(self, "key", _checked_key(self.key))
        if not isinstance(self.arguments, dict):
            raise TypeError(f"arguments must be a dict, got {type(self.arguments).__name__}")
        if "seed_keys" in self.arguments:
            raise ValueError(
                f"task {self.key!r}: give the seed keys once, as Task(seed_keys=...), not in "
                "arguments (the runner passes them to the function and records them)"
            )
        if self.seed_keys is not None:
            object.__setattr__(self, "seed_keys", _checked_seed_keys(self.seed_keys, self.key))

    @property
    def keywords(self):
        """The keyword arguments the function is called with: ``arguments``, and
        ``seed_keys`` when the task has them."""
        if self.seed_keys is None:
            return self.arguments
        return {**self.arguments, "seed_keys": self.seed_keys}

    def record(self):
        """The task's key and seed keys as a JSON-ready dict.

        Returns
        -------
        dict
            ``{"key": [...], "seed_keys": [...] or None}``.
        """
        seeds = None if self.seed_keys is None else list(self.seed_keys)
        return {"key": list(self.key), "seed_keys": seeds}


def _key_entry(value, key):
    """One entry of a task key as a JSON scalar of Python's type (numpy numbers converted)."""
    if isinstance(value, np.generic) and isinstance(value, numbers.Real):
        value = value.item()
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"key {key!r} holds {value!r}: task keys must be finite")
        return value
    raise TypeError(
        f"key {key!r} holds a {type(value).__name__}: a task key holds strings, integers, "
        "finite floats, bools or None"
    )


def _checked_key(key):
    """``key`` checked: a non-empty tuple of JSON scalars (:class:`Task`)."""
    if not isinstance(key, tuple):
        hint = "as a tuple" if isinstance(key, list) else f"({key!r:.40},) for a one-entry key"
        raise TypeError(
            f"key must be a tuple, got {type(key).__name__} {key!r:.40}: write it {hint}"
        )
    if not key:
        raise ValueError("key must name the task: an empty tuple was given")
    return tuple(_key_entry(value, key) for value in key)


def _checked_seed_keys(seed_keys, key):
    """``seed_keys`` as a tuple of non-negative Python ints (:class:`Task`)."""
    if not isinstance(seed_keys, tuple | list) or not seed_keys:
        raise TypeError(
            f"seed_keys of task {key!r} must be a non-empty sequence of integers, "
            f"got {seed_keys!r:.60}"
        )
    for value in seed_keys:
        if not isinstance(value, numbers.Integral) or isinstance(value, bool | np.bool_):
            raise TypeError(
                f"seed_keys of task {key!r} must be a sequence of integers, got {seed_keys!r}"
            )
        if value < 0:
            raise ValueError(
                f"seed_keys of task {key!r} must be non-negative integers, got {int(value)}"
            )
    return tuple(int(value) for value in seed_keys)


class TaskError(Exception):
    """A task of :meth:`Runner.map` raised an error; this names the task.

    The original error is kept as ``error`` and chained as ``__cause__``, so its type,
    message and traceback (the worker's, for a process pool or Dask) stay visible.

    Parameters
    ----------
    name : str
        The map's name.
    key : tuple
        The failed task's key.
    error : Exception
        The error the task raised.
    """

    def __init__(self, name, key, error):
        super().__init__(f"task {key!r} of {name!r} raised {type(error).__name__}: {error}")
        self.name, self.key, self.error = name, key, error

    def __reduce__(self):
        # picklable, so that a task may itself run a map on a process pool
        return type(self), (self.name, self.key, self.error)


class WorkerLost(TaskError):
    """A worker process died while running a task (killed, out of memory, ``os._exit``).

    Parameters
    ----------
    name : str
        The map's name.
    keys : sequence of tuple
        The keys of the tasks that were running when the worker died (a process pool
        cannot tell which of several running tasks its dead worker held); empty if the
        worker died before starting one. ``key`` is the first of them, or None.
    error : Exception
        The backend's error (``BrokenProcessPool``, ``distributed.KilledWorker``).
    """

    def __init__(self, name, keys, error):
        keys = list(keys)
        if not keys:
            running = "before it started a task"
        elif len(keys) == 1:
            running = f"while running task {keys[0]!r}"
        else:
            running = f"while running one of the tasks {', '.join(map(repr, keys))}"
        Exception.__init__(
            self,
            f"a worker process of {name!r} died (killed, or exited without returning) "
            f"{running}: {type(error).__name__}: {error}",
        )
        self.name, self.keys, self.error = name, keys, error
        self.key = keys[0] if keys else None

    def __reduce__(self):
        return type(self), (self.name, self.keys, self.error)


def _run(function, arguments, shared):
    """Run one task with one BLAS thread and one heyoka (TBB) thread."""
    with threadpool_limits(limits=1), one_heyoka_thread():
        return function(**shared, **arguments)


def _module_names(preload):
    """``preload`` as a tuple of module names, checked."""
    if not isinstance(preload, list | tuple) or not all(isinstance(name, str) for name in preload):
        raise TypeError(f"preload must be a sequence of module names, got {preload!r}")
    return tuple(preload)


class Runner:
    """Runs tasks serially, on a local process pool or on a Dask cluster.

    Parameters
    ----------
    workers : int, optional
        Number of local worker processes; 1 runs serially in this process. Default: the
        usable cores (:func:`usable_cores`). Ignored with a Dask cluster.
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://HOST:PORT``).
    dask_local : int, optional
        Start a ``dask.distributed.LocalCluster`` with this many single-threaded worker
        processes for the runner's lifetime: at its first map, until :meth:`close`.
    progress : bool, optional
        Show one progress bar over the tasks of each map (default True).
    checkpoints : str or Path, optional
        Folder where each finished task is stored (default: none).
    resume : bool, optional
        Load the tasks already stored in ``checkpoints`` instead of recomputing them
        (default False: stored tasks are discarded at the start of a map).
    preload : sequence of str, optional
        Modules the process pool's server imports when it starts, for example the module
        of the tasks' function. The server starts at the first map of the first runner of
        the process that needs a pool, with that runner's ``preload``, and lives as long
        as the process.
    connect_timeout : float, optional
        Seconds to wait for the Dask scheduler before a map gives up with a
        ``ConnectionError`` (default 10).

    Raises
    ------
    ValueError
        If ``workers`` or ``dask_local`` is not a positive integer, ``scheduler`` is not
        an address, both ``scheduler`` and ``dask_local`` are given, Dask is asked for
        but not installed, ``resume`` is asked without ``checkpoints``, or
        ``connect_timeout`` is not a finite number > 0.
    TypeError
        If an option has the wrong type.

    Notes
    -----
    A runner with a Dask backend holds a client (and, with ``dask_local``, a cluster)
    from its first map until :meth:`close`; ``with Runner(...) as runner:`` closes it.
    A runner that is never closed closes them when it is garbage-collected, or at exit.
    """

    def __init__(
        self,
        workers=None,
        *,
        scheduler=None,
        dask_local=None,
        progress=True,
        checkpoints=None,
        resume=False,
        preload=(),
        connect_timeout=10.0,
    ):
        self.workers = usable_cores() if workers is None else _positive(workers, "workers")
        if scheduler is not None and dask_local is not None:
            raise ValueError("give scheduler (a running cluster) or dask_local, not both")
        if scheduler is not None and (
            not isinstance(scheduler, str) or not SCHEDULER_PATTERN.match(scheduler)
        ):
            raise ValueError(
                f"scheduler must be an address like tcp://HOST:PORT, got {scheduler!r}"
            )
        self.scheduler = scheduler
        self.dask_local = None if dask_local is None else _positive(dask_local, "dask_local")
        if self.backend == "dask" and importlib.util.find_spec("distributed") is None:
            raise ValueError(
                "scheduler and dask_local need dask.distributed: pip install 'ssa_privacy[dask]'"
            )
        self.progress, self.resume = flag(progress, "progress"), flag(resume, "resume")
        if self.resume and checkpoints is None:
            raise ValueError("resume needs a checkpoints folder")
        if checkpoints is not None and not isinstance(checkpoints, str | os.PathLike):
            raise TypeError(
                f"checkpoints must be a folder (str or path), got {type(checkpoints).__name__}"
            )
        self.checkpoints = None if checkpoints is None else Path(checkpoints)
        self.connect_timeout = _positive_seconds(connect_timeout, "connect_timeout")
        self.preload = _module_names(preload)
        self.records = {}
        self._dask = None  # the open Dask connection, from the first Dask map to close()
        self._cluster_threads = None  # the Dask cluster's worker threads at the last map
        self._closer = None

    @property
    def backend(self):
        """``"serial"``, ``"process-pool"`` or ``"dask"``."""
        if self.scheduler is not None or self.dask_local is not None:
            return "dask"
        return "serial" if self.workers == 1 else "process-pool"

    @property
    def concurrency(self):
        """How many tasks run at once: 1 serially, ``workers`` on a process pool,
        ``dask_local`` on a local Dask cluster; on a running cluster its worker threads
        when the last map started (None before the first map)."""
        if self.backend == "dask":
            return self._cluster_threads if self.dask_local is None else self.dask_local
        return self.workers

    def describe(self):
        """The backend and its size, for a results file.

        Returns
        -------
        dict
            ``backend``, ``workers`` (:attr:`concurrency`), ``scheduler`` and, per map,
            the tasks' keys and seed keys.
        """
        return {
            "backend": self.backend,
            "workers": self.concurrency,
            "scheduler": self.scheduler,
            "tasks": self.records,
        }

    def close(self):
        """Close the Dask client and the local cluster this runner opened, if any.

        Idempotent; the runner can still be used (a later Dask map opens a new
        connection). A process pool needs no closing: each map shuts its own down, and
        the fork server lives as long as the process.
        """
        closer, self._dask, self._closer = self._closer, None, None
        if closer is not None:
            closer()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def map(self, function, tasks, *, shared=None, name="tasks", fingerprint=None, checkpoint=True):
        """Run ``function(**shared, **task.keywords)`` for every task.

        Parameters
        ----------
        function : callable
            A module-level function (picklable by reference); it takes ``seed_keys``
            when the tasks have them (:attr:`Task.keywords`).
        tasks : sequence of Task
            The tasks; their keys must be distinct.
        shared : dict, optional
            Keyword arguments common to every task (sent once to each worker).
        name : str, optional
            Name of this map: its progress bar, its record and its checkpoint sub-folder.
        fingerprint : object, optional
            Anything else the results depend on (e.g. the study's parameters). A stored
            result is reused only when the function, the task, ``shared``,
            ``fingerprint`` and the package version all match
            (:mod:`ssa_privacy.engine.checkpoints`).
        checkpoint : bool, optional
            Store the finished tasks (when the runner has a checkpoint folder) and record
            them in :meth:`describe` (default True). False for work whose effect is not its
            result, such as writing a run's figures, which must be redone with the run.

        Returns
        -------
        list
            The results, in the order of ``tasks``.

        Raises
        ------
        ValueError
            If two tasks share a key, or ``name`` is not a simple name.
        TypeError
            If ``tasks`` is not a sequence of :class:`Task`, ``checkpoint`` not a bool, or
            (with checkpoints) an argument cannot be pickled for the checkpoint key.
        TaskError
            If a task raised; the original error is its ``__cause__``.
        WorkerLost
            If a worker process died while running a task.
        ConnectionError
            If the Dask scheduler cannot be reached within ``connect_timeout``.
        """
        results = dict(
            self.imap(
                function,
                tasks,
                shared=shared,
                name=name,
                fingerprint=fingerprint,
                checkpoint=checkpoint,
            )
        )
        return [results[index] for index in range(len(results))]

    def imap(
        self, function, tasks, *, shared=None, name="tasks", fingerprint=None, checkpoint=True
    ):
        """Yield ``(index, result)`` of every task as it finishes (:meth:`map` in a stream).

        The caller can write each result away and drop it, so that a map of many tasks
        does not hold their results in memory: the tasks resumed from the checkpoints
        come first, in task order, then the others in the order they finish (which
        depends on the backend; ``index`` is the task's position in ``tasks``). Each
        result is checkpointed before it is yielded.

        Parameters
        ----------
        function, tasks, shared, name, fingerprint, checkpoint
            As :meth:`map`.

        Yields
        ------
        index : int
            The task's position in ``tasks``.
        result : object
            What the task's function returned.

        Raises
        ------
        ValueError, TypeError, TaskError, WorkerLost, ConnectionError
            As :meth:`map`; the checks of the tasks and ``name`` are made at the first
            ``next``.
        """
        tasks = _checked_tasks(tasks)
        checkpoint = flag(checkpoint, "checkpoint")
        if not isinstance(name, str) or not re.fullmatch(r"[\w.-]+", name):
            raise ValueError(f"name must be a simple name (letters, digits, _ . -), got {name!r}")
        shared = dict(shared or {})
        store = CheckpointStore(self.checkpoints if checkpoint else None, name)
        if not self.resume:
            store.clear()
        common = map_digest(function, shared, fingerprint) if store.folder else None
        digests = [task_digest(common, task) if store.folder else None for task in tasks]
        resumed, todo = set(), []
        for index, digest in enumerate(digests):
            found, value = store.load(index, digest) if self.resume else (False, None)
            if found:
                resumed.add(index)
                yield index, value
            else:
                todo.append(index)
        if checkpoint:
            self.records[name] = [
                {**task.record(), "resumed": index in resumed} for index, task in enumerate(tasks)
            ]
        bar = tqdm(total=len(tasks), initial=len(resumed), desc=name, disable=not self.progress)
        with bar:
            for index, value in self._execute(function, tasks, todo, shared, name):
                store.save(index, digests[index], value)
                bar.update(1)
                yield index, value

    def _execute(self, function, tasks, todo, shared, name):
        """Yield ``(index, result)`` as tasks finish."""
        if not todo:
            return
        if self.backend == "serial":
            for index in todo:
                try:
                    value = _run(function, tasks[index].keywords, shared)
                except Exception as error:
                    raise TaskError(name, tasks[index].key, error) from error
                yield index, value
        elif self.backend == "process-pool":
            from ssa_privacy.engine._process_pool import _run_on_pool

            yield from _run_on_pool(self.workers, self.preload, function, tasks, todo, shared, name)
        else:
            from ssa_privacy.engine.dask_backend import run_on_dask

            connection = self._connection()
            self._cluster_threads = connection.threads()
            yield from run_on_dask(connection, function, tasks, todo, shared, name)

    def _connection(self):
        """The Dask connection of this runner, opened at its first Dask map."""
        if self._dask is None:
            from ssa_privacy.engine.dask_backend import DaskConnection

            self._dask = DaskConnection(self)
            self._closer = weakref.finalize(self, self._dask.close)
        return self._dask


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a positive integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return value


def _positive_seconds(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds, got {type(value).__name__}")
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} must be a finite number of seconds > 0, got {value!r}")
    return float(value)


def _checked_tasks(tasks):
    if isinstance(tasks, str | bytes | Task) or not hasattr(tasks, "__iter__"):
        raise TypeError(f"tasks must be a sequence of Task, got {type(tasks).__name__}")
    tasks = list(tasks)
    for index, task in enumerate(tasks):
        if not isinstance(task, Task):
            raise TypeError(f"tasks[{index}] must be a Task, got {type(task).__name__}")
    keys = [task.key for task in tasks]
    if len(set(keys)) != len(keys):
        duplicate = next(key for key in keys if keys.count(key) > 1)
        raise ValueError(f"two tasks share the key {duplicate!r}")
    return tasks
