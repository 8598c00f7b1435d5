"""A study on a real Dask cluster: a scheduler and two workers started as separate
processes (``dask scheduler``, ``dask worker tcp://...``, one thread each), reached
through ``--scheduler``; its results equal the serial run's.

The processes find the catalogue where the tests do ($SSA_PRIVACY_DATA, passed on);
the test is skipped without distributed or the catalogue.
"""

import csv
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from ssa_privacy.cli import main
from ssa_privacy.engine.data import data_dir

pytestmark = pytest.mark.slow

#: Seconds to wait for the scheduler and its two workers.
START_TIMEOUT = 120.0
ARGUMENTS = ["run", "ssa-catalog", "--seed", "3", "--objects", "2", "--hours", "3"]


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _dask(*arguments, env):
    """Start ``dask <arguments>`` as a process of this interpreter."""
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *arguments],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def cluster(catalogue):
    """The address of a scheduler with two single-threaded workers, each its own process."""
    distributed = pytest.importorskip("distributed")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "SSA_PRIVACY_DATA": str(data_dir())}
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    processes = [_dask("scheduler", "--port", port, "--dashboard-address", ":0", env=env)]
    try:
        for _ in range(2):
            processes.append(
                _dask("worker", address, "--nthreads", "1", "--dashboard-address", ":0", env=env)
            )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with distributed.Client(address, timeout=5) as client:
                    client.wait_for_workers(2, timeout=max(1.0, deadline - time.monotonic()))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1.0)
        yield address
    finally:
        for process in processes[::-1]:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def _rows(out):
    with open(out / "results.csv") as stream:
        return list(csv.DictReader(stream))


def test_a_study_on_a_separate_process_cluster_equals_the_serial_run(cluster, tmp_path):
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    assert main([*ARGUMENTS, "--out", str(serial), "--workers", "1", "--no-progress"]) == 0
    assert main([*ARGUMENTS, "--out", str(dask), "--scheduler", cluster, "--no-progress"]) == 0
    rows = _rows(dask)
    assert rows == _rows(serial)
    assert len({row["norad_id"] for row in rows}) == 2
    throughput = json.loads((dask / "results.json").read_text())["throughput"]
    assert throughput["workers"] == 2  # the cluster's two single-threaded workers
