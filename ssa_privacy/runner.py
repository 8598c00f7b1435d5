"""The design-study engine: run a study's tasks serially, on a process pool or on Dask.

A study (or a user's own sweep) declares its work as a list of :class:`Task` s, each with
its keyword arguments and the keys of its random seed, and hands them to a
:class:`Runner`:

>>> from ssa_privacy.runner import Runner, Task
>>> def square(x, offset):
...     return x * x + offset
>>> tasks = [Task(key=("x", x), arguments={"x": x}) for x in range(4)]
>>> Runner(workers=1, progress=False).map(square, tasks, shared={"offset": 1})
[1, 2, 5, 10]

The backends:

- serial (``workers=1``);
- a local process pool (``workers=N``; processes are forked from a fresh server process
  (``forkserver``) that imports the package, and the modules named in ``preload``, once
  and ahead of time, so a worker starts in milliseconds instead of re-importing scipy
  and matplotlib; the function must be importable: defined at module level, not in
  ``__main__`` of an interactive session);
- a Dask distributed cluster (``scheduler="tcp://HOST:PORT"`` for a running one,
  ``dask_local=N`` to start a ``LocalCluster`` of N single-threaded worker processes),
  through ``dask.distributed`` itself.

Results do not depend on the backend or on the number of workers: every task carries
its own seed keys, BLAS runs one thread per task in every backend (``threadpoolctl``;
OpenBLAS threads competing for two cores slowed an ``eigh`` fifty-fold here, and the
thread count can change the rounding of a product), and results are returned in task
order. With a checkpoint folder, each finished task is stored there (written to a
temporary name, then renamed), and a run with ``resume=True`` loads the stored tasks
instead of recomputing them; a stored result is used only for a task with the same
function, key, arguments, seed keys and shared fingerprint.
"""

import hashlib
import importlib.util
import multiprocessing
import os
import pickle
import re
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from threadpoolctl import threadpool_limits
from tqdm import tqdm

from ssa_privacy.output import atomic_path
from ssa_privacy.output_set import clean_parts

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
        3, "alpha", 0.1)``; JSON-representable values.
    arguments : dict
        Keyword arguments of the task's function (picklable).
    seed_keys : tuple, optional
        The entropy of the task's random numbers (``numpy.random.default_rng(list(
        seed_keys))``), recorded with the results; None for a deterministic task.
    """

    key: tuple
    arguments: dict = field(default_factory=dict)
    seed_keys: tuple = None

    def record(self):
        """The task's key and seed keys as a JSON-ready dict.

        Returns
        -------
        dict
            ``{"key": [...], "seed_keys": [...] or None}``.
        """
        seeds = None if self.seed_keys is None else list(self.seed_keys)
        return {"key": list(self.key), "seed_keys": seeds}


_SHARED = {}


def _initialise(shared):
    """Process-pool initializer: keep the shared arguments in the worker."""
    _SHARED.clear()
    _SHARED.update(shared)


def _run(function, arguments, shared):
    """Run one task with one BLAS thread."""
    with threadpool_limits(limits=1):
        return function(**shared, **arguments)


def _run_in_pool(function, arguments):
    return _run(function, arguments, _SHARED)


def _start_server(preload):
    """Start the pool's fork server now, importing this package and ``preload`` in it."""
    if isinstance(preload, str) or not all(isinstance(name, str) for name in preload):
        raise TypeError(f"preload must be a sequence of module names, got {preload!r}")
    from multiprocessing import forkserver

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["ssa_privacy.runner", *preload])
    forkserver.ensure_running()


def _fingerprint(function, task, fingerprint):
    """Digest of what a stored result depends on."""
    identity = (function.__module__, function.__qualname__, task.key, task.arguments)
    blob = pickle.dumps((identity, task.seed_keys, fingerprint), protocol=4)
    return hashlib.sha256(blob).hexdigest()[:20]


class _Store:
    """The checkpoint files of one map: one pickle per finished task."""

    def __init__(self, folder, name):
        self.folder = None if folder is None else Path(folder) / name
        if self.folder is not None and self.folder.is_dir():
            clean_parts(self.folder)  # temporaries of a killed run

    def path(self, index, digest):
        return self.folder / f"{index:06d}-{digest}.pkl"

    def load(self, index, digest):
        if self.folder is None or not self.path(index, digest).is_file():
            return False, None
        with open(self.path(index, digest), "rb") as stream:
            return True, pickle.load(stream)

    def save(self, index, digest, result):
        if self.folder is None:
            return
        with atomic_path(self.path(index, digest)) as temporary, open(temporary, "wb") as out:
            pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)

    def clear(self):
        if self.folder is not None and self.folder.is_dir():
            for path in self.folder.glob("*.pkl"):
                path.unlink()


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
        processes for the runner's lifetime.
    progress : bool, optional
        Show one progress bar over the tasks of each map (default True).
    checkpoints : str or Path, optional
        Folder where each finished task is stored (default: none).
    resume : bool, optional
        Load the tasks already stored in ``checkpoints`` instead of recomputing them
        (default False: stored tasks are discarded at the start of a map).
    preload : sequence of str, optional
        Modules the process pool's server imports as soon as the runner is built, for
        example the module of the tasks' function (the first runner of a process sets
        them; the server then lives as long as the process).

    Raises
    ------
    ValueError
        If ``workers`` or ``dask_local`` is not a positive integer, ``scheduler`` is not
        an address, both ``scheduler`` and ``dask_local`` are given, Dask is asked for
        but not installed, or ``resume`` is asked without ``checkpoints``.
    TypeError
        If an option has the wrong type.
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
        if resume and checkpoints is None:
            raise ValueError("resume needs a checkpoints folder")
        self.progress, self.resume = bool(progress), bool(resume)
        self.checkpoints = None if checkpoints is None else Path(checkpoints)
        self.records = {}
        if self.backend == "process-pool":
            _start_server(preload)

    @property
    def backend(self):
        """``"serial"``, ``"process-pool"`` or ``"dask"``."""
        if self.scheduler is not None or self.dask_local is not None:
            return "dask"
        return "serial" if self.workers == 1 else "process-pool"

    def describe(self):
        """The backend and its size, for a results file.

        Returns
        -------
        dict
            ``backend``, ``workers`` (the local pool size, or the Dask cluster's
            ``dask_local``), ``scheduler`` and, per map, the tasks' keys and seed keys.
        """
        workers = self.dask_local if self.backend == "dask" else self.workers
        return {
            "backend": self.backend,
            "workers": workers,
            "scheduler": self.scheduler,
            "tasks": self.records,
        }

    def map(self, function, tasks, *, shared=None, name="tasks", fingerprint=None, checkpoint=True):
        """Run ``function(**shared, **task.arguments)`` for every task.

        Parameters
        ----------
        function : callable
            A module-level function (picklable by reference).
        tasks : sequence of Task
            The tasks; their keys must be distinct.
        shared : dict, optional
            Keyword arguments common to every task (sent once to each worker).
        name : str, optional
            Name of this map: its progress bar, its record and its checkpoint sub-folder.
        fingerprint : object, optional
            Anything else the results depend on (e.g. the study's parameters); a stored
            result is reused only when it matches.
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
            If a task is not a :class:`Task`.
        """
        tasks = _checked_tasks(tasks)
        if not isinstance(name, str) or not re.fullmatch(r"[\w.-]+", name):
            raise ValueError(f"name must be a simple name (letters, digits, _ . -), got {name!r}")
        shared = dict(shared or {})
        store = _Store(self.checkpoints if checkpoint else None, name)
        if not self.resume:
            store.clear()
        digests = [
            _fingerprint(function, task, fingerprint) if store.folder else None for task in tasks
        ]
        results, todo = {}, []
        for index, digest in enumerate(digests):
            found, value = store.load(index, digest) if self.resume else (False, None)
            if found:
                results[index] = value
            else:
                todo.append(index)
        if checkpoint:
            self.records[name] = [
                {**task.record(), "resumed": index in results} for index, task in enumerate(tasks)
            ]
        bar = tqdm(total=len(tasks), initial=len(results), desc=name, disable=not self.progress)
        with bar:
            for index, value in self._execute(function, tasks, todo, shared):
                store.save(index, digests[index], value)
                results[index] = value
                bar.update(1)
        return [results[index] for index in range(len(tasks))]

    def _execute(self, function, tasks, todo, shared):
        """Yield ``(index, result)`` as tasks finish."""
        if not todo:
            return
        if self.backend == "serial":
            for index in todo:
                yield index, _run(function, tasks[index].arguments, shared)
        elif self.backend == "process-pool":
            yield from self._pool(function, tasks, todo, shared)
        else:
            yield from self._dask(function, tasks, todo, shared)

    def _pool(self, function, tasks, todo, shared):
        context = multiprocessing.get_context("forkserver")
        executor = ProcessPoolExecutor(
            max_workers=min(self.workers, len(todo)),
            mp_context=context,
            initializer=_initialise,
            initargs=(shared,),
        )
        try:
            futures = {
                executor.submit(_run_in_pool, function, tasks[index].arguments): index
                for index in todo
            }
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            executor.shutdown(wait=True, cancel_futures=True)

    def _dask(self, function, tasks, todo, shared):
        from distributed import Client, LocalCluster
        from distributed import as_completed as dask_completed

        cluster = None
        if self.dask_local is not None:
            cluster = LocalCluster(
                n_workers=self.dask_local,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
        client = Client(cluster if cluster is not None else self.scheduler)
        try:
            scattered = client.scatter(shared, broadcast=True) if shared else {}
            futures = {
                client.submit(_run, function, tasks[index].arguments, scattered, pure=False): index
                for index in todo
            }
            for future in dask_completed(list(futures)):
                yield futures[future], future.result()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a positive integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return value


def _checked_tasks(tasks):
    tasks = list(tasks)
    for task in tasks:
        if not isinstance(task, Task):
            raise TypeError(f"tasks must be Task objects, got {type(task).__name__}")
    keys = [task.key for task in tasks]
    if len(set(keys)) != len(keys):
        duplicate = next(key for key in keys if keys.count(key) > 1)
        raise ValueError(f"two tasks share the key {duplicate!r}")
    return tasks
