"""The Dask backend of :class:`ssa_privacy.engine.runner.Runner`: a running cluster or a local one.

A map connects a ``distributed.Client`` to the runner's scheduler (giving up after the
runner's ``connect_timeout`` with a ``ConnectionError`` naming the address) or starts a
``LocalCluster`` of single-threaded worker processes for the map. The local cluster's
processes are started with the interrupt signal ignored, so that Ctrl-C in a terminal
interrupts this process alone (once the cluster has started), which then closes the
cluster quietly: an interrupted run ends with one line, not with the tracebacks of every
worker. The local cluster logs nothing (its problems reach the caller as errors): a
task's error is re-raised as :class:`ssa_privacy.engine.runner.TaskError` naming the task, and
a task whose worker died (``distributed.KilledWorker``, after the scheduler's allowed
retries) as :class:`ssa_privacy.engine.runner.WorkerLost`.
"""

import contextlib
import logging
import signal
import threading

__all__ = [
    "run_on_dask",
]


@contextlib.contextmanager
def _interrupts_ignored():
    """Ignore SIGINT during the block: processes started in it inherit the disposition.

    So the local cluster's workers never see a terminal's Ctrl-C; this process ignores
    one pressed while the cluster starts (about two seconds), and takes the next.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


@contextlib.contextmanager
def _silenced_logging():
    """Drop every log record of this process during the block (a cluster's shutdown)."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


def _connect(runner, address):
    """``distributed.Client(address)``, or a ConnectionError after the connect timeout."""
    from distributed import Client

    try:
        return Client(address, timeout=runner.connect_timeout)
    except OSError as error:
        where = "of the local cluster" if runner.scheduler is None else repr(runner.scheduler)
        raise ConnectionError(
            f"cannot reach the Dask scheduler {where} within "
            f"connect_timeout={runner.connect_timeout:g} s: {error}"
        ) from error


@contextlib.contextmanager
def _client(runner):
    """A ``distributed.Client`` for ``runner``'s cluster; it and a local cluster are
    closed with logging silenced."""
    from distributed import LocalCluster

    cluster = None
    try:
        if runner.dask_local is not None:
            with _interrupts_ignored():
                cluster = LocalCluster(
                    n_workers=runner.dask_local,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # a free port: other clusters may run
                    silence_logs=logging.CRITICAL,
                )
        client = _connect(runner, cluster if cluster is not None else runner.scheduler)
        try:
            yield client
        finally:
            with _silenced_logging():
                client.close()
    finally:
        if cluster is not None:
            with _silenced_logging():
                cluster.close()


def run_on_dask(runner, function, tasks, todo, shared, name):
    """Run the tasks ``todo`` on ``runner``'s Dask cluster.

    Parameters
    ----------
    runner : ssa_privacy.engine.runner.Runner
        A runner with a ``scheduler`` address or ``dask_local`` size.
    function : callable
        The task function (picklable).
    tasks : list of ssa_privacy.engine.runner.Task
        All tasks of the map.
    todo : list of int
        Indices of the tasks to run.
    shared : dict
        Keyword arguments common to every task (broadcast to every worker once).
    name : str
        The map's name, for the errors.

    Yields
    ------
    tuple
        ``(index, result)`` as the tasks finish.

    Raises
    ------
    ConnectionError
        If the scheduler cannot be reached within ``runner.connect_timeout`` seconds.
    ssa_privacy.engine.runner.TaskError
        If a task raised (the original error is its ``__cause__``).
    ssa_privacy.engine.runner.WorkerLost
        If the workers running a task died (more often than the scheduler retries it).
    """
    from distributed import KilledWorker
    from distributed import as_completed as dask_completed

    from ssa_privacy.engine.runner import TaskError, WorkerLost, _run

    with _client(runner) as client:
        scattered = client.scatter(shared, broadcast=True) if shared else {}
        futures = {
            client.submit(_run, function, tasks[index].arguments, scattered, pure=False): index
            for index in todo
        }
        for future in dask_completed(list(futures)):
            index = futures[future]
            try:
                value = future.result()
            except KilledWorker as error:
                raise WorkerLost(name, [tasks[index].key], error) from error
            except Exception as error:
                raise TaskError(name, tasks[index].key, error) from error
            yield index, value
