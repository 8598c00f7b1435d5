"""The process-pool backend of :class:`ssa_privacy.engine.runner.Runner`.

Tasks run on a ``ProcessPoolExecutor`` whose processes are forked from the process's
fork server (``forkserver``), started once with the package and the runner's
``preload`` modules imported (:mod:`ssa_privacy.engine.runner` describes the backends).
Each worker announces the task it starts on a queue, so that when a worker dies the
error names the tasks that were running: :class:`~ssa_privacy.engine.runner.WorkerLost`;
a task's own error is re-raised as :class:`~ssa_privacy.engine.runner.TaskError`.
"""

import importlib.util
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from ssa_privacy.engine.runner import TaskError, WorkerLost, _run

__all__ = []

_POOL = {"shared": {}, "started": None}


def _initialise(shared, started):
    """Process-pool initializer: keep the shared arguments and the start queue."""
    _POOL["shared"], _POOL["started"] = dict(shared), started


def _run_in_pool(function, arguments, index):
    """Announce task ``index`` on the start queue, then run it."""
    _POOL["started"].put(index)
    return _run(function, arguments, _POOL["shared"])


def _drain(started, running):
    """Move the task indices announced on the start queue into the set ``running``
    (read at every completion, so that the queue's pipe never fills)."""
    while not started.empty():
        running.add(started.get())


def _start_server(preload):
    """Start the process's fork server if it is not running, importing this package,
    heyoka (where installed: every task limits its threads) and ``preload`` in it (a
    running server keeps the modules it was started with)."""
    from multiprocessing import forkserver

    heyoka = ["heyoka"] if importlib.util.find_spec("heyoka") else []
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["ssa_privacy.engine._process_pool", *heyoka, *preload])
    forkserver.ensure_running()


def _run_on_pool(workers, preload, function, tasks, todo, shared, name):
    """Yield ``(index, result)`` of the tasks ``todo`` as they finish on a process pool
    of at most ``workers`` processes (:meth:`Runner.imap
    <ssa_privacy.engine.runner.Runner.imap>`)."""
    _start_server(preload)
    context = multiprocessing.get_context("forkserver")
    started = context.SimpleQueue()
    executor = ProcessPoolExecutor(
        max_workers=min(workers, len(todo)),
        mp_context=context,
        initializer=_initialise,
        initargs=(shared, started),
    )
    try:
        futures = {
            index: executor.submit(_run_in_pool, function, tasks[index].keywords, index)
            for index in todo
        }
        indices, running = {future: index for index, future in futures.items()}, set()
        for future in as_completed(indices):
            index = indices[future]
            _drain(started, running)
            try:
                value = future.result()
            except BrokenProcessPool as error:  # lost with the pool: the running tasks
                lost = sorted(i for i in running if futures[i].exception() is error)
                raise WorkerLost(name, [tasks[i].key for i in lost], error) from error
            except Exception as error:
                raise TaskError(name, tasks[index].key, error) from error
            running.discard(index)
            yield index, value
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        started.close()
