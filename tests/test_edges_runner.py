"""The runner at its edges, with real worker processes: no task is ever lost unnamed.

Each case runs on the backends a user has (serial, a two-process pool, and a Dask
``LocalCluster`` of worker processes shared by the module) and asserts the exception
type and that its message names the task's key, the checkpoint file or the argument.
The Dask cluster retries no task (``allowed-failures`` 0), so a killed worker fails its
task at once instead of after three restarts. The worker processes import this module
for its task functions, so it imports the studies and Dask only where
a test needs them: a pool's worker then starts in a fraction of a second.
"""

import logging
import os
import pickle
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest

from ssa_privacy.cli import EXIT_ERROR, EXIT_INTERRUPTED, main
from ssa_privacy.engine import checkpoints
from ssa_privacy.engine.checkpoints import DamagedCheckpointWarning
from ssa_privacy.engine.runner import Runner, Task, TaskError, WorkerLost

ERRORS = {
    "ValueError": ValueError,
    "IndexError": IndexError,
    "KeyError": KeyError,
    "ZeroDivisionError": ZeroDivisionError,
    "RuntimeError": RuntimeError,
}
BACKENDS = ["serial", "pool", "dask"]


def counted(x, ledger, scale=1):
    """Record the call in ``ledger`` (one line per computed task) and return ``scale * x``."""
    with open(ledger, "a") as stream:
        stream.write(f"{x}\n")
    return scale * x * x


def counted_differently(x, ledger, scale=1):
    """Another task function with the signature of :func:`counted`."""
    with open(ledger, "a") as stream:
        stream.write(f"{x}\n")
    return scale * x * x + 1


def raising(x, kind):
    """Raise an error of type ``ERRORS[kind]`` in task 2."""
    if x == 2:
        raise ERRORS[kind](f"task body failed on x={x}")
    return x


def dying(x, how):
    """Kill the worker process running task 1 (``os._exit`` or SIGKILL)."""
    if x == 1:
        if how == "exit":
            os._exit(1)
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def announce_and_sleep(x):
    """Tell the test (on standard output) that a task runs, then sleep."""
    print(f"started {x}", flush=True)
    time.sleep(20)  # long beside an interrupt's handling, short enough to end a stuck run
    return x


@pytest.fixture(scope="module")
def scheduler():
    """The address of one LocalCluster of two worker processes for the module."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        )
    yield cluster.scheduler_address
    cluster.close()


@pytest.fixture
def runner_for(request, scheduler):
    """Build a Runner on a named backend (the Dask one on the module's cluster)."""

    def build(backend, **options):
        where = {
            "serial": {"workers": 1},
            "pool": {"workers": 2},
            "dask": {"scheduler": scheduler},
        }[backend]
        return Runner(progress=False, **where, **options)

    return build


def _tasks(n, **arguments):
    return [Task(("x", x), {"x": x, **arguments}) for x in range(n)]


def _ledger(path):
    return sorted(int(line) for line in path.read_text().split()) if path.exists() else []


DAMAGE = {
    "truncated": lambda data: data[: len(data) // 2],
    "empty": lambda data: b"",
    "garbage": lambda data: b"\x00not a pickle\xff" * 3,
    "missing-module": lambda data: b"cno_such_module_anywhere\nThing\n.",
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_checkpoint_is_named_discarded_and_recomputed(
    runner_for, tmp_path, backend, damage
):
    ledger = tmp_path / "ledger.txt"
    tasks, shared = _tasks(4), {"ledger": str(ledger)}
    first = runner_for(backend, checkpoints=tmp_path / "ckpt")
    expected = first.map(counted, tasks, shared=shared, name="sweep")
    stored = sorted((tmp_path / "ckpt" / "sweep").glob("000001-*.pkl"))
    assert len(stored) == 1
    stored[0].write_bytes(DAMAGE[damage](stored[0].read_bytes()))
    ledger.unlink()
    resumed = runner_for(backend, checkpoints=tmp_path / "ckpt", resume=True)
    with pytest.warns(DamagedCheckpointWarning, match=stored[0].name):
        results = resumed.map(counted, tasks, shared=shared, name="sweep")
    assert results == expected
    assert _ledger(ledger) == [1]  # only the damaged task was recomputed
    assert pickle.loads(stored[0].read_bytes()) == expected[1]  # and stored again


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_an_error_in_a_task_names_the_task_and_keeps_the_original(runner_for, backend, kind):
    runner = runner_for(backend)
    with pytest.raises(TaskError) as caught:
        runner.map(raising, _tasks(4, kind=kind), name="edge-sweep")
    error = caught.value
    assert error.key == ("x", 2) and error.name == "edge-sweep"
    assert "('x', 2)" in str(error) and "'edge-sweep'" in str(error) and kind in str(error)
    assert type(error.error) is ERRORS[kind] and error.__cause__ is error.error
    shown = "".join(traceback.format_exception(error))
    assert "in raising" in shown and "task body failed on x=2" in shown


@pytest.mark.parametrize("backend", ["pool", "dask"])
@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_a_dead_worker_names_the_task_it_was_running(runner_for, backend, how):
    runner = runner_for(backend)
    with pytest.raises(WorkerLost) as caught:
        runner.map(dying, _tasks(2, how=how), name="doomed")
    error = caught.value
    assert ("x", 1) in error.keys and "('x', 1)" in str(error) and "'doomed'" in str(error)
    assert isinstance(error, TaskError) and error.__cause__ is error.error


class _Finished:
    """A finished Dask future: its status and, for an error, its exception."""

    def __init__(self, error=None):
        self.status = "finished" if error is None else "error"
        self.error = error

    def done(self):
        return True

    def exception(self):
        return self.error


def test_a_dead_dask_worker_names_every_task_it_held():
    """The scheduler fails every task a dead worker held (the one it ran and those queued
    on it) at once and in no particular order: the error names all of them, not only the
    first one reported, and not the tasks that finished or failed otherwise."""
    distributed = pytest.importorskip("distributed")
    from ssa_privacy.engine.dask_backend import _lost_with

    killed = distributed.KilledWorker
    futures = {
        _Finished(killed("t", "w", 0)): 3,
        _Finished(): 0,
        _Finished(ValueError("own error")): 1,
        _Finished(killed("t", "w", 0)): 2,
    }
    assert _lost_with(futures, killed) == [2, 3]


CHANGES = {
    "shared value": lambda shared, mp: (counted, {**shared, "scale": 2}, None),
    "shared entry removed": lambda shared, mp: (counted, {"ledger": shared["ledger"]}, None),
    "fingerprint": lambda shared, mp: (counted, shared, {"study": "other"}),
    "function": lambda shared, mp: (counted_differently, shared, None),
    "package version": lambda shared, mp: (
        mp.setattr(checkpoints, "__version__", "999.0"),
        (counted, shared, None),
    )[1],
}


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("backend", ["serial", "pool"])
def test_a_resumed_run_recomputes_after_any_change_of_what_results_depend_on(
    runner_for, tmp_path, monkeypatch, backend, change
):
    ledger = tmp_path / "ledger.txt"
    shared = {"ledger": str(ledger), "scale": 1}
    runner_for(backend, checkpoints=tmp_path / "ckpt").map(counted, _tasks(3), shared=shared)
    function, shared, fingerprint = CHANGES[change](shared, monkeypatch)
    resumed = runner_for(backend, checkpoints=tmp_path / "ckpt", resume=True)
    resumed.map(function, _tasks(3), shared=shared, fingerprint=fingerprint)
    assert _ledger(ledger) == [0, 0, 1, 1, 2, 2]
    assert not any(task["resumed"] for task in resumed.describe()["tasks"]["tasks"])


def test_an_unchanged_resumed_run_recomputes_nothing(runner_for, tmp_path):
    ledger = tmp_path / "ledger.txt"
    shared = {"ledger": str(ledger)}
    first = runner_for("pool", checkpoints=tmp_path / "ckpt").map(counted, _tasks(3), shared=shared)
    resumed = runner_for("pool", checkpoints=tmp_path / "ckpt", resume=True)
    assert resumed.map(counted, _tasks(3), shared=shared) == first
    assert _ledger(ledger) == [0, 1, 2]


@pytest.mark.parametrize(
    ("options", "error", "named"),
    [
        ({"connect_timeout": 0}, ValueError, "connect_timeout"),
        ({"connect_timeout": -1.0}, ValueError, "connect_timeout"),
        ({"connect_timeout": float("nan")}, ValueError, "connect_timeout"),
        ({"connect_timeout": float("inf")}, ValueError, "connect_timeout"),
        ({"connect_timeout": "10"}, TypeError, "connect_timeout"),
        ({"connect_timeout": True}, TypeError, "connect_timeout"),
        ({"workers": 2, "preload": "numpy"}, TypeError, "preload"),
        ({"dask_local": -2}, ValueError, "dask_local"),
        ({"scheduler": "127.0.0.1:8786"}, ValueError, "scheduler"),
    ],
)
def test_bad_runner_arguments_are_named(options, error, named):
    with pytest.raises(error, match=named):
        Runner(**options)


@pytest.mark.parametrize(
    ("shared", "arguments", "named"),
    [
        ({"rule": lambda x: x}, {}, r"shared\['rule'\]"),
        ({}, {"rule": lambda x: x}, r"task \('x', 0\)"),
    ],
    ids=["shared", "task-arguments"],
)
def test_an_argument_that_cannot_be_keyed_is_named(tmp_path, shared, arguments, named):
    runner = Runner(1, progress=False, checkpoints=tmp_path)
    with pytest.raises(TypeError, match=named):
        runner.map(counted, [Task(("x", 0), {"x": 0, **arguments})], shared=shared)


def test_an_unreachable_scheduler_fails_within_the_connect_timeout():
    runner = Runner(scheduler="tcp://127.0.0.1:1", connect_timeout=2, progress=False)
    start = time.monotonic()
    with pytest.raises(ConnectionError, match=r"tcp://127\.0\.0\.1:1.*connect_timeout=2"):
        runner.map(counted, _tasks(1), shared={"ledger": os.devnull})
    assert time.monotonic() - start < 20


@pytest.mark.parametrize("failures", [2, 3])
def test_a_client_whose_io_loop_misses_its_start_is_retried(monkeypatch, failures):
    """distributed's IO loop must start in a fixed 10 s (AssertionError if not): the
    runner tries CLIENT_ATTEMPTS clients, then gives up with a ConnectionError."""
    distributed = pytest.importorskip("distributed")
    from ssa_privacy.engine import dask_backend

    calls = []

    def client(address, timeout):
        calls.append(address)
        if len(calls) <= failures:
            raise AssertionError
        return "client"

    monkeypatch.setattr(distributed, "Client", client)
    runner = Runner(scheduler="tcp://127.0.0.1:1", progress=False)
    if failures < dask_backend.CLIENT_ATTEMPTS:
        assert dask_backend._connect(runner, runner.scheduler) == "client"
        assert len(calls) == failures + 1
    else:
        with pytest.raises(ConnectionError, match="IO loop did not start in 3 attempts"):
            dask_backend._connect(runner, runner.scheduler)
        assert len(calls) == dask_backend.CLIENT_ATTEMPTS


def test_the_command_gives_up_on_an_unreachable_scheduler_after_its_default_timeout(
    tmp_path, capsys
):
    start = time.monotonic()
    out = str(tmp_path / "out")
    options = ["--out", out, "--scheduler", "tcp://127.0.0.1:1", "--no-progress"]
    assert main(["run", "pml-bounds", *options]) == EXIT_ERROR
    assert time.monotonic() - start < 20
    lines = capsys.readouterr().err.strip().splitlines()
    assert (
        len(lines) == 1 and "tcp://127.0.0.1:1" in lines[0] and "--connect-timeout=10" in lines[0]
    )


def _command(monkeypatch, function, **arguments):
    """The command's ``main``, with pml-bounds' run replaced by a map of ``function``."""
    from ssa_privacy.studies import pml_bounds

    def run(out, runner, progress, **options):
        runner.map(function, _tasks(3, **arguments), name="stand-in")
        return {}

    monkeypatch.setattr(pml_bounds, "run", run)
    return main


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("kind", ["ValueError", "KeyError", "IndexError", "RuntimeError"])
def test_the_command_reports_any_task_error_as_the_packages_fault(
    monkeypatch, tmp_path, capsys, workers, kind
):
    """A study checks its inputs before its tasks start, so an error raised in a task is
    a fault of the package whatever its type (a ValueError too): one line, ``unexpected
    <Type>``, the task named, and the hint to --debug."""
    main = _command(monkeypatch, raising, kind=kind)
    options = ["--out", str(tmp_path / "out"), "--workers", workers, "--no-progress"]
    assert main(["run", "pml-bounds", *options]) == EXIT_ERROR
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "task body failed on x=2" in lines[0]
    assert lines[0].startswith(f"ssa-privacy: error: unexpected {kind}: ")
    assert lines[0].endswith("(in task ('x', 2) of 'stand-in') (--debug for the traceback)"), lines[
        0
    ]


@pytest.mark.parametrize("kind", ["ValueError", "KeyError"])
def test_the_command_reports_a_users_error_outside_the_tasks_as_such(
    monkeypatch, tmp_path, capsys, kind
):
    """The same errors raised by the study before its tasks (checking its inputs) are the
    user's: one line with the message alone."""
    from ssa_privacy.studies import pml_bounds

    def run(out, runner, progress, **options):
        raise ERRORS[kind]("bad input named here")

    monkeypatch.setattr(pml_bounds, "run", run)
    options = ["--out", str(tmp_path / "out"), "--workers", "1", "--no-progress"]
    assert main(["run", "pml-bounds", *options]) == EXIT_ERROR
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == ["ssa-privacy: error: bad input named here"]


def test_the_command_shows_the_tasks_traceback_under_debug(monkeypatch, tmp_path, capsys):
    main = _command(monkeypatch, raising, kind="IndexError")
    options = ["--out", str(tmp_path / "out"), "--workers", "2", "--debug"]
    assert main(["run", "pml-bounds", *options]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "in raising" in err and "IndexError: task body failed on x=2" in err
    assert "TaskError: task ('x', 2) of 'stand-in' raised IndexError" in err


def test_the_command_names_the_task_of_a_dead_worker(monkeypatch, tmp_path, capsys):
    main = _command(monkeypatch, dying, how="sigkill")
    options = ["--out", str(tmp_path / "out"), "--workers", "2", "--no-progress"]
    assert main(["run", "pml-bounds", *options]) == EXIT_ERROR
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ssa-privacy: error: unexpected WorkerLost")
    assert "('x', 1)" in lines[0] and "(--debug for the traceback)" in lines[0]


INTERRUPTED_RUN = """
import signal
import sys
from ssa_privacy.cli import main
from ssa_privacy.engine.runner import Task
from ssa_privacy.studies import pml_bounds
from test_edges_runner import announce_and_sleep

def run(out, runner, progress, **options):
    runner.map(announce_and_sleep, [Task(("x", x), {"x": x}) for x in range(4)])

if __name__ == "__main__":
    # As in a terminal: a shell's background job (a CI step) may start this process with
    # the interrupt ignored, which Python then keeps.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    pml_bounds.run = run
    sys.exit(main(["run", "pml-bounds", "--out", sys.argv[1], "--dask-local", "2", "--no-progress"]))
"""


def test_ctrl_c_under_a_local_dask_cluster_prints_one_line(tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C, once a task runs."""
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED_RUN)
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    process = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        start_new_session=True,
    )
    try:
        assert process.stdout.readline().startswith("started")
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == EXIT_INTERRUPTED, err
    assert err.strip().splitlines() == ["ssa-privacy: error: interrupted"]


def test_a_long_map_on_a_pool_keeps_reading_which_tasks_started():
    """4,000 start announcements overflow a pipe's buffer unless they are read as the
    tasks finish; the map completes, in task order."""
    runner = Runner(workers=2, progress=False)
    assert runner.map(raising, _tasks(4000, kind="ValueError")[3:]) == list(range(3, 4000))


@pytest.mark.parametrize(
    "error",
    [
        TaskError("inner", ("x", 2), IndexError("deep")),
        WorkerLost("inner", [("x", 1), ("x", 3)], RuntimeError("pool broke")),
    ],
    ids=["task-error", "worker-lost"],
)
def test_task_errors_survive_pickling_from_a_nested_map(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error) and copy.key == error.key
    assert type(copy.error) is type(error.error)
