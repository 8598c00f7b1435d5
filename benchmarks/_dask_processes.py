"""A Dask scheduler and workers started as separate processes, for the benchmarks.

As ``tests/test_dask_cluster.py`` starts them: ``python -m dask scheduler`` and
``python -m dask worker tcp://...`` (one single-threaded worker each) of this
interpreter, with ``OPENBLAS_NUM_THREADS=1`` and ``$SSA_PRIVACY_DATA`` in their
environment.
"""

import os
import socket
import subprocess
import sys
import time

from ssa_privacy.engine.data import data_dir

#: Seconds to wait for the scheduler and its workers.
START_TIMEOUT = 120.0
#: Gives a process's dashboard a free port.
NO_DASHBOARD = ("--dashboard-address", ":0")
#: Seconds a process has to exit after ``terminate`` before it is killed.
STOP_TIMEOUT = 30.0


def _free_port():
    """A TCP port of 127.0.0.1 that is free now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class DaskProcesses:
    """A scheduler process on 127.0.0.1 and the worker processes added to it.

    Use as a context manager: the processes are stopped on leaving it (terminated, then
    killed after :data:`STOP_TIMEOUT` seconds).

    Attributes
    ----------
    address : str
        The scheduler's address, ``tcp://127.0.0.1:PORT``.
    """

    def __init__(self):
        self.env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "SSA_PRIVACY_DATA": str(data_dir())}
        self.port = str(_free_port())
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.processes = []
        self.workers = 0

    def __enter__(self):
        self._start("scheduler", "--port", self.port, *NO_DASHBOARD)
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _start(self, *arguments):
        """Start ``python -m dask <arguments>``, its output discarded."""
        self.processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "dask", *arguments],
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )

    def add_workers(self, count):
        """Start ``count`` more single-threaded workers; return once all are connected.

        Parameters
        ----------
        count : int
            Workers to add.

        Raises
        ------
        TimeoutError, OSError
            If the scheduler or the workers are not up within :data:`START_TIMEOUT` s.
        """
        for _ in range(count):
            self._start("worker", self.address, "--nthreads", "1", "--nworkers", "1", *NO_DASHBOARD)
        self.workers += count
        self._wait()

    def _wait(self):
        """Wait until the scheduler answers and has :attr:`workers` workers."""
        from distributed import Client

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with Client(self.address, timeout=5) as client:
                    left = max(1.0, deadline - time.monotonic())
                    client.wait_for_workers(self.workers, timeout=left)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1.0)

    def close(self):
        """Stop every process, workers first: terminate, then kill the laggards."""
        for process in self.processes[::-1]:
            process.terminate()
        for process in self.processes[::-1]:
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes = []
