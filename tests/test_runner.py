"""The runner: identical results on every backend, resumable, and the CLI's lazy imports."""

import ast
import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ssa_privacy.cli import EXIT_INTERRUPTED, main
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.studies import pml_bounds

SMALL = dict(runs=3, steps=30, burn_in=5, epsilons=(5.5, 7.0), mc_samples=2000)


def noisy_sum(seed_keys, size, scale):
    """A task whose result depends on its seed keys only."""
    return float(np.random.default_rng(list(seed_keys)).standard_normal(size).sum() * scale)


def fragile(index, stop_at, ledger, stop_file=None):
    """Append to a ledger, and fail at ``stop_at`` while ``stop_file`` exists (an
    interrupted run; removing the file lets the same shared arguments run through)."""
    with open(ledger, "a") as stream:
        stream.write(f"{index}\n")
    if index == stop_at and (stop_file is None or Path(stop_file).exists()):
        raise KeyboardInterrupt
    return index * index


def _tasks(n):
    return [Task(("i", i), {"size": 50}, (7, i)) for i in range(n)]


def test_backends_agree_and_keep_task_order():
    serial = Runner(workers=1, progress=False).map(noisy_sum, _tasks(5), shared={"scale": 2.0})
    pool = Runner(workers=2, progress=False).map(noisy_sum, _tasks(5), shared={"scale": 2.0})
    expected = [noisy_sum((7, i), 50, 2.0) for i in range(5)]
    assert serial == pool == expected


def heyoka_threads(index):
    """The number of threads heyoka may use while a task runs."""
    import heyoka

    return heyoka.get_nthreads()


def test_a_task_compiles_heyoka_integrators_on_one_thread_and_the_count_is_restored():
    """heyoka's TBB threads are pinned to one inside a task, as BLAS's (every backend runs
    a task through the same function); a serial run restores the calling process's count
    afterwards."""
    heyoka = pytest.importorskip("heyoka")
    before = heyoka.get_nthreads()
    tasks = [Task(("i", i), {"index": i}) for i in range(2)]
    assert Runner(workers=1, progress=False).map(heyoka_threads, tasks) == [1, 1]
    assert heyoka.get_nthreads() == before


def test_the_seed_keys_of_a_task_are_given_once_and_reach_its_function():
    """Task.seed_keys is what the function receives as ``seed_keys`` and what the runner
    records; the same keys in the arguments are refused."""
    runner = Runner(workers=1, progress=False)
    tasks = [Task(("i", i), {"size": 3}, [7, i]) for i in range(2)]
    assert runner.map(noisy_sum, tasks, shared={"scale": 1.0}, name="s") == [
        noisy_sum((7, i), 3, 1.0) for i in range(2)
    ]
    assert [t["seed_keys"] for t in runner.describe()["tasks"]["s"]] == [[7, 0], [7, 1]]
    assert tasks[0].seed_keys == (7, 0) and tasks[0].keywords == {"size": 3, "seed_keys": (7, 0)}
    assert Task(("x",), {"size": 3}).keywords == {"size": 3}
    with pytest.raises(ValueError, match="give the seed keys once"):
        Task(("i", 0), {"seed_keys": (7, 0)}, (7, 0))
    with pytest.raises(TypeError, match="seed_keys of task"):
        Task(("i", 0), {}, (7, 0.5))


def test_a_runner_starts_no_process_until_a_pool_is_needed():
    """Building a process-pool runner starts no fork server (a side effect of its first
    map, with the runner's preload)."""
    code = (
        "from multiprocessing import forkserver\n"
        "from ssa_privacy.engine.runner import Runner\n"
        "runner = Runner(workers=2, progress=False, preload=('json',))\n"
        "print(forkserver._forkserver._forkserver_pid is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]


def test_a_local_dask_cluster_lives_from_the_first_map_until_close():
    pytest.importorskip("distributed")
    tasks = _tasks(3)
    with Runner(dask_local=1, progress=False) as runner:
        assert runner._dask is None
        first = runner.map(noisy_sum, tasks, shared={"scale": 1.0}, name="first")
        connection = runner._dask
        second = runner.map(noisy_sum, tasks, shared={"scale": 1.0}, name="second")
        assert runner._dask is connection and first == second
        cluster = connection._cluster
    assert runner._dask is None and connection.client is None and connection._cluster is None
    assert cluster.status.name == "closed"
    runner.close()  # idempotent


def _interrupted_sweep(tmp_path):
    """Run six tasks that stop at task 3; return the tasks and their shared arguments."""
    ledger, stop = tmp_path / "ledger.txt", tmp_path / "stop"
    stop.touch()
    tasks = [Task(("i", i), {"index": i}) for i in range(6)]
    shared = {"stop_at": 3, "ledger": str(ledger), "stop_file": str(stop)}
    first = Runner(workers=1, progress=False, checkpoints=tmp_path / "ckpt")
    with pytest.raises(KeyboardInterrupt):
        first.map(fragile, tasks, shared=shared, name="sweep")
    assert ledger.read_text().split() == ["0", "1", "2", "3"]
    stop.unlink()
    return tasks, shared


def test_resume_recomputes_nothing_it_has(tmp_path):
    tasks, shared = _interrupted_sweep(tmp_path)
    resumed = Runner(workers=1, progress=False, checkpoints=tmp_path / "ckpt", resume=True)
    results = resumed.map(fragile, tasks, shared=shared, name="sweep")
    assert results == [i * i for i in range(6)]
    ledger = Path(shared["ledger"]).read_text().split()
    assert ledger == ["0", "1", "2", "3", "3", "4", "5"]
    assert [t["resumed"] for t in resumed.describe()["tasks"]["sweep"]] == [True] * 3 + [False] * 3


def test_a_changed_shared_argument_recomputes_every_task(tmp_path):
    tasks, shared = _interrupted_sweep(tmp_path)
    resumed = Runner(workers=1, progress=False, checkpoints=tmp_path / "ckpt", resume=True)
    resumed.map(fragile, tasks, shared={**shared, "stop_at": -1}, name="sweep")
    ledger = Path(shared["ledger"]).read_text().split()
    assert ledger == ["0", "1", "2", "3", *map(str, range(6))]
    assert not any(t["resumed"] for t in resumed.describe()["tasks"]["sweep"])


def test_a_changed_fingerprint_recomputes(tmp_path):
    ledger = tmp_path / "ledger.txt"
    tasks = [Task(("i", i), {"index": i}) for i in range(2)]
    shared = {"stop_at": -1, "ledger": str(ledger)}
    Runner(1, progress=False, checkpoints=tmp_path).map(
        fragile, tasks, shared=shared, fingerprint=1
    )
    again = Runner(1, progress=False, checkpoints=tmp_path, resume=True)
    again.map(fragile, tasks, shared=shared, fingerprint=2)
    assert ledger.read_text().split() == ["0", "1", "0", "1"]


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        (dict(workers=0), ValueError, "workers"),
        (dict(workers=True), TypeError, "workers"),
        (dict(workers=1.5), TypeError, "workers"),
        (dict(dask_local=0), ValueError, "dask_local"),
        (dict(scheduler="localhost"), ValueError, "scheduler"),
        (dict(scheduler="tcp://a:1", dask_local=2), ValueError, "not both"),
        (dict(resume=True), ValueError, "checkpoints"),
    ],
)
def test_bad_runner_options_are_named(kwargs, error, words):
    with pytest.raises(error, match=words):
        Runner(**kwargs)


def test_bad_tasks_are_refused():
    runner = Runner(1, progress=False)
    with pytest.raises(ValueError, match="share the key"):
        runner.map(noisy_sum, [Task(("a",)), Task(("a",))])
    with pytest.raises(TypeError, match="Task"):
        runner.map(noisy_sum, [("a",)])
    with pytest.raises(ValueError, match="name"):
        runner.map(noisy_sum, [], name="a/b")


def _rows(folder):
    with open(folder / "results.csv") as stream:
        return list(csv.DictReader(stream))


@pytest.fixture(scope="module")
def serial_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    pml_bounds.run(out, 3, False, runner=Runner(workers=1, progress=False), **SMALL)
    return out


def test_a_study_on_a_two_worker_local_dask_cluster_matches_the_serial_run(serial_run, tmp_path):
    pytest.importorskip("distributed")
    runner = Runner(dask_local=2, progress=False)
    pml_bounds.run(tmp_path, 3, False, runner=runner, **SMALL)
    assert _rows(tmp_path) == _rows(serial_run)
    record = json.loads((tmp_path / "results.json").read_text())["parameters"]["runner"]
    assert record["backend"] == "dask" and record["workers"] == 2
    assert [t["seed_keys"] for t in record["tasks"]["pml-bounds"]] == [[3, i] for i in range(6)]


def test_a_study_on_a_process_pool_matches_the_serial_run(serial_run, tmp_path):
    pml_bounds.run(tmp_path, 3, False, runner=Runner(workers=2, progress=False), **SMALL)
    assert _rows(tmp_path) == _rows(serial_run)


def test_help_and_list_do_not_import_the_numerical_stack():
    code = (
        "import sys; from ssa_privacy.cli import main; main(['list']); "
        "heavy = [m for m in ('cvxpy', 'control', 'scipy', 'matplotlib') if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_documented_sweep_runs_as_written(tmp_path):
    text = (Path(__file__).parents[1] / "docs" / "cli.rst").read_text()
    block = text[text.index("   # sweep.py") : text.index("``Runner(dask_local=2)``")]
    (tmp_path / "sweep.py").write_text("\n".join(line[3:] for line in block.splitlines()))
    out = subprocess.run(
        [sys.executable, "sweep.py"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    results = ast.literal_eval(out.stdout.strip().splitlines()[-1])
    assert [epsilon for epsilon, _, _ in results] == [5.0, 6.0, 8.0]
    traces = [trace for _, trace, _ in results]
    assert traces == sorted(traces, reverse=True) and all(passed for *_, passed in results)


SMALL_CLI = ["--runs", "3", "--steps", "30", "--burn-in", "5", "--epsilons", "5.5,7"]
SMALL_CLI += ["--mc-samples", "2000", "--seed", "3", "--workers", "1", "--no-progress"]


def test_an_interrupted_run_resumes_without_recomputing_finished_tasks(tmp_path, monkeypatch):
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    original, calls = pml_bounds._row, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(pml_bounds, "_row", interrupted)
    assert main(["run", "pml-bounds", "--out", str(out), *SMALL_CLI]) == EXIT_INTERRUPTED
    stored = tmp_path / ".out.checkpoints" / "pml-bounds"
    assert len(list(stored.glob("*.pkl"))) == 3 and not out.exists()

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    calls.clear()
    monkeypatch.setattr(pml_bounds, "_row", counted)
    assert main(["run", "pml-bounds", "--out", str(out), *SMALL_CLI, "--resume"]) == 0
    assert len(calls) == 3  # the three tasks the interrupted run had not finished
    assert not (tmp_path / ".out.checkpoints").exists()
    assert main(["run", "pml-bounds", "--out", str(fresh), *SMALL_CLI]) == 0
    assert _rows(out) == _rows(fresh)


def line_figure(slope):
    """A figure builder for the figure tasks (module level: picklable by reference)."""
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(2, 2))
    axis.plot([0, 1], [0, slope])
    axis.set_xlabel("x (m)")
    return figure


def test_figures_drawn_on_the_pool_are_written_in_the_house_style_and_not_checkpointed(tmp_path):
    """save_figures on a two-worker pool writes every PNG and PDF (valid headers), records
    them in the output, leaves no temporary files, stores no checkpoint and records no
    figure tasks with the study's tasks; the layout engine of the house style was used."""
    from ssa_privacy.engine.figures import save_figures
    from ssa_privacy.engine.output import StudyOutput

    runner = Runner(workers=2, progress=False, checkpoints=tmp_path / "ckpt")
    output = StudyOutput(tmp_path / "out", "demo", {})
    jobs = {f"line{k}": (line_figure, {"slope": k}) for k in range(3)}
    paths = save_figures(output, jobs, runner)
    assert sorted(p.name for p in paths) == sorted(
        f"line{k}.{e}" for k in range(3) for e in ("png", "pdf")
    )
    headers = {".png": b"\x89PNG", ".pdf": b"%PDF"}
    assert all(p.read_bytes().startswith(headers[p.suffix]) for p in paths)
    assert sorted(output.written) == sorted(p.name for p in paths)
    assert sorted(f.name for f in (tmp_path / "out").iterdir()) == sorted(p.name for p in paths)
    assert not (tmp_path / "ckpt").exists() or not any((tmp_path / "ckpt").rglob("*.pkl"))
    assert "figures" not in runner.describe()["tasks"]


def test_the_house_style_lays_figures_out_with_constrained_layout():
    """Inside a study run, figures get the constrained layout engine (FIGURE_STYLE)."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from ssa_privacy.engine.transaction import transactional

    @transactional
    def run(out):
        import matplotlib.pyplot as plt

        figure = line_figure(1.0)
        engine = type(figure.get_layout_engine())
        plt.close(figure)
        return engine

    assert run(None) is ConstrainedLayoutEngine


@pytest.mark.parametrize("workers", [1, 2])
def test_imap_yields_every_task_once_with_its_index(workers):
    """imap is map as a stream: each (index, result) once, the results those of map."""
    runner = Runner(workers=workers, progress=False)
    streamed = list(runner.imap(noisy_sum, _tasks(5), shared={"scale": 2.0}))
    assert sorted(index for index, _ in streamed) == list(range(5))
    assert dict(streamed) == {i: noisy_sum((7, i), 50, 2.0) for i in range(5)}


def test_imap_yields_the_resumed_tasks_first_and_recomputes_only_the_others(tmp_path):
    tasks, shared = _interrupted_sweep(tmp_path)
    resumed = Runner(workers=1, progress=False, checkpoints=tmp_path / "ckpt", resume=True)
    streamed = list(resumed.imap(fragile, tasks, shared=shared, name="sweep"))
    assert streamed == [(i, i * i) for i in range(6)]
    assert Path(shared["ledger"]).read_text().split() == ["0", "1", "2", "3", "3", "4", "5"]
