"""The Dask backend of :class:`ssa_privacy.engine.runner.Runner`: a running cluster or a local one.

A runner's first Dask map opens a :class:`DaskConnection`: a ``distributed.Client`` to the
runner's scheduler (giving up after the runner's ``connect_timeout`` with a
``ConnectionError`` naming the address), or to a ``LocalCluster`` of single-threaded
worker processes it starts. The connection serves every later map of the runner and is
closed by :meth:`Runner.close <ssa_privacy.engine.runner.Runner.close>` (the command line
closes it when the study ends, however it ends). The local cluster's processes are
started with the interrupt signal ignored, so that Ctrl-C in a terminal interrupts this
process alone (once the cluster has started), which then closes the cluster quietly: an
interrupted run ends with one line, not with the tracebacks of every worker. The local
cluster logs nothing (its problems reach the caller as errors): a task's error is
re-raised as :class:`ssa_privacy.engine.runner.TaskError` naming the task, and a task
whose worker died (``distributed.KilledWorker``, after the scheduler's allowed retries)
as :class:`ssa_privacy.engine.runner.WorkerLost`, naming every task lost with that worker
(a worker holds the tasks queued on it besides the one it runs, and the scheduler fails
them all at once, in no particular order).
"""

import contextlib
import logging
import signal
import threading

__all__ = [
    "DaskConnection",
    "LOST_TASKS_WAIT_S",
    "run_on_dask",
]

#: After a worker's death, how long to wait (s) for the scheduler to fail the other tasks
#: it held, so that the error names them all.
LOST_TASKS_WAIT_S = 2.0


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


#: Attempts at starting a client: distributed gives its client's IO-loop thread a fixed
#: 10 s to start and fails with a bare AssertionError when a loaded machine misses it.
CLIENT_ATTEMPTS = 3


def _connect(runner, address):
    """``distributed.Client(address)``, or a ConnectionError after the connect timeout
    (or after CLIENT_ATTEMPTS client threads that did not start)."""
    from distributed import Client

    try:
        for attempt in range(1, CLIENT_ATTEMPTS + 1):
            try:
                return Client(address, timeout=runner.connect_timeout)
            except AssertionError as error:
                if attempt == CLIENT_ATTEMPTS:
                    raise OSError(
                        f"the Dask client's IO loop did not start in {CLIENT_ATTEMPTS} attempts"
                    ) from error
    except OSError as error:
        where = "of the local cluster" if runner.scheduler is None else repr(runner.scheduler)
        raise ConnectionError(
            f"cannot reach the Dask scheduler {where} within "
            f"connect_timeout={runner.connect_timeout:g} s: {error}"
        ) from error


class DaskConnection:
    """A runner's client to its Dask cluster, and the local cluster it started.

    Parameters
    ----------
    runner : ssa_privacy.engine.runner.Runner
        A runner with a ``scheduler`` address or a ``dask_local`` size.

    Attributes
    ----------
    client : distributed.Client
        The client every map of the runner submits its tasks to.

    Raises
    ------
    ConnectionError
        If the scheduler cannot be reached within ``runner.connect_timeout`` seconds (a
        local cluster started for the connection is closed first).
    """

    def __init__(self, runner):
        from distributed import LocalCluster

        self._cluster = None
        if runner.dask_local is not None:
            with _interrupts_ignored():
                self._cluster = LocalCluster(
                    n_workers=runner.dask_local,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # a free port: other clusters may run
                    silence_logs=logging.CRITICAL,
                )
        try:
            address = self._cluster if self._cluster is not None else runner.scheduler
            self.client = _connect(runner, address)
        except BaseException:
            self._close_cluster()
            raise

    def threads(self):
        """The worker threads of the cluster now (the sum over its workers).

        Returns
        -------
        int
            The tasks the cluster can run at once.
        """
        return sum(self.client.nthreads().values())

    def _close_cluster(self):
        cluster, self._cluster = self._cluster, None
        if cluster is not None:
            with _silenced_logging():
                cluster.close()

    def close(self):
        """Close the client, then the local cluster, with logging silenced (idempotent)."""
        client, self.client = getattr(self, "client", None), None
        try:
            if client is not None:
                with _silenced_logging():
                    client.close()
        finally:
            self._close_cluster()


def run_on_dask(connection, function, tasks, todo, shared, name):
    """Run the tasks ``todo`` on the cluster of a runner's Dask connection.

    Parameters
    ----------
    connection : DaskConnection
        The runner's open connection.
    function : callable
        The task function (picklable).
    tasks : list of ssa_privacy.engine.runner.Task
        All tasks of the map.
    todo : list of int
        Indices of the tasks to run.
    shared : dict
        Keyword arguments common to every task (broadcast to every worker once per map).
    name : str
        The map's name, for the errors.

    Yields
    ------
    tuple
        ``(index, result)`` as the tasks finish. Tasks still pending when the map stops
        (an error, an interrupt) are cancelled.

    Raises
    ------
    ssa_privacy.engine.runner.TaskError
        If a task raised (the original error is its ``__cause__``).
    ssa_privacy.engine.runner.WorkerLost
        If the workers running a task died (more often than the scheduler retries it).
    """
    from distributed import KilledWorker
    from distributed import as_completed as dask_completed

    from ssa_privacy.engine.runner import TaskError, WorkerLost, _run

    client = connection.client
    # A list with hash=False gives the data fresh keys (a dict would be keyed by its names):
    # a map never reuses the data of an earlier map that the scheduler is releasing.
    data = client.scatter(list(shared.values()), broadcast=True, hash=False) if shared else []
    scattered = dict(zip(shared, data, strict=True))
    futures = {
        client.submit(_run, function, tasks[index].keywords, scattered, pure=False): index
        for index in todo
    }
    try:
        for future in dask_completed(list(futures)):
            index = futures[future]
            try:
                value = future.result()
            except KilledWorker as error:
                lost = _lost_with(futures, KilledWorker)
                raise WorkerLost(name, [tasks[i].key for i in lost], error) from error
            except Exception as error:
                raise TaskError(name, tasks[index].key, error) from error
            yield index, value
    finally:
        pending = [future for future in futures if not future.done()]
        if pending and connection.client is not None:
            with _silenced_logging():
                client.cancel(pending)


def _lost_with(futures, killed):
    """The indices of the tasks that failed with ``killed`` (KilledWorker), in order, once
    the others have finished or :data:`LOST_TASKS_WAIT_S` has passed."""
    from distributed import wait

    with contextlib.suppress(TimeoutError):
        wait([future for future in futures if not future.done()], timeout=LOST_TASKS_WAIT_S)
    return sorted(
        index
        for future, index in futures.items()
        if future.status == "error" and isinstance(future.exception(), killed)
    )
