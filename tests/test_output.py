"""Study output as a set: umask, null for non-finite values, all-or-nothing folders."""

import csv
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ssa_privacy
from ssa_privacy.engine.output import (
    StudyOutput,
    atomic_path,
    json_text,
    rows_to_csv,
    write_text_atomic,
)
from ssa_privacy.engine.transaction import check_output_folder, output_transaction, transactional
from ssa_privacy.studies import example1


def _dead_pid():
    """A process id that no running process has (one above the kernel's largest)."""
    try:
        with open("/proc/sys/kernel/pid_max") as handle:
            return int(handle.read()) + 1
    except OSError:
        return 2**22 + 1


def strict_json(text):
    """Parse JSON, failing on the non-standard NaN / Infinity tokens."""
    return json.loads(text, parse_constant=lambda token: pytest.fail(f"bare {token} in JSON"))


def hidden(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def contents(folder):
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


@pytest.fixture
def umask_027():
    previous = os.umask(0o027)
    yield
    os.umask(previous)


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


# --- permissions -------------------------------------------------------------------------


def test_files_and_folders_respect_the_umask(tmp_path, umask_027):
    write_text_atomic(tmp_path / "direct.txt", "x")
    assert mode(tmp_path / "direct.txt") == 0o640
    with output_transaction():
        output = StudyOutput(tmp_path / "out", "demo", {})
        output.write_results([{"a": 1}])
        output.write_text("notes.txt", "x")
    assert mode(tmp_path / "out") == 0o750
    for name in ("results.csv", "results.json", "notes.txt"):
        assert mode(tmp_path / "out" / name) == 0o640


def test_figures_respect_the_umask(tmp_path, umask_027):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(1, 1))
    paths = StudyOutput(tmp_path, "demo", {}).save_figure(figure, "f")
    assert [mode(p) for p in paths] == [0o640, 0o640]
    assert not plt.get_fignums()


# --- non-finite values -------------------------------------------------------------------

NON_FINITE = [
    float("nan"),
    float("inf"),
    -float("inf"),
    np.float64("nan"),
    np.float32("inf"),
    np.array(np.nan),
]


@pytest.mark.parametrize("value", NON_FINITE, ids=repr)
def test_non_finite_values_are_null_in_json(value, tmp_path):
    StudyOutput(tmp_path, "demo", {"p": value}).write_json("d.json", {"v": value, "l": [1, value]})
    payload = strict_json((tmp_path / "d.json").read_text())
    assert payload == {"v": None, "l": [1, None]}
    assert strict_json(json_text(np.array([[1.0, value]]))) == [[1.0, None]]


@pytest.mark.parametrize("value", [*NON_FINITE, None], ids=repr)
def test_non_finite_values_are_empty_cells_in_csv(value):
    text = rows_to_csv([{"a": 1.5, "b": value, "c": [value, 2]}, {"a": value}])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows == [
        {"a": "1.5", "b": "", "c": "[null, 2]"},
        {"a": "", "b": "", "c": ""},
    ]


def test_results_json_is_strict_json_and_csv_agrees(tmp_path):
    output = StudyOutput(tmp_path, "demo", {"seed": np.int64(3)})
    output.write_results([{"x": np.nan, "y": np.float32(0.5)}], extra={"inf": np.inf})
    payload = strict_json((tmp_path / "results.json").read_text())
    assert payload["results"] == [{"x": None, "y": 0.5}] and payload["extra"] == {"inf": None}
    assert payload["parameters"] == {"seed": 3}
    assert (tmp_path / "results.csv").read_text().splitlines() == ["x,y", ",0.5"]


def test_json_text_rejects_unknown_objects_unless_told():
    with pytest.raises(TypeError):
        json_text({"x": object()})
    assert strict_json(json_text({"x": range(0)}, default=str)) == {"x": "range(0, 0)"}


# --- the output set ----------------------------------------------------------------------


def _run(target, files, fail=None):
    """A study run writing ``files`` (name -> text), failing after them with ``fail``."""
    with output_transaction():
        output = StudyOutput(target, "demo", {})
        for name, text in files.items():
            output.write_text(name, text)
        assert not target.exists() or "new.txt" not in os.listdir(target)
        if fail is not None:
            raise fail
        output.write_results([{"ok": True}])


@pytest.mark.parametrize(
    "failure", [RuntimeError("halfway"), KeyboardInterrupt()], ids=["error", "interrupt"]
)
def test_a_failure_halfway_leaves_the_previous_output_untouched(tmp_path, failure):
    target = tmp_path / "out"
    _run(target, {"old.txt": "first run"})
    before = contents(target)
    with pytest.raises(type(failure)):
        _run(target, {"new.txt": "second run", "old.txt": "overwritten?"}, fail=failure)
    assert contents(target) == before
    assert hidden(tmp_path) == [] and hidden(target) == []


def test_a_completed_run_replaces_the_folder_as_a_whole(tmp_path):
    target = tmp_path / "out"
    _run(target, {"old.txt": "first run"})
    _run(target, {"new.txt": "second run"})
    assert sorted(contents(target)) == ["new.txt", "results.csv", "results.json"]
    assert hidden(tmp_path) == []


def test_nothing_appears_before_the_run_completes(tmp_path):
    target = tmp_path / "out"
    with output_transaction():
        output = StudyOutput(target, "demo", {})
        assert output.write_text("a.txt", "x") == target / "a.txt"
        assert not target.exists()
        (staging,) = hidden(tmp_path)
        assert staging.startswith(".out.staging-")
    assert (target / "a.txt").read_text() == "x" and hidden(tmp_path) == []


def test_a_study_failing_early_keeps_the_previous_output(tmp_path, monkeypatch):
    target = tmp_path / "example1"
    _run(target, {"old.txt": "previous"})
    before = contents(target)

    def fail():
        raise ValueError("design failed")

    monkeypatch.setattr(example1, "designs", fail)
    with pytest.raises(ValueError, match="design failed"):
        example1.run(target)
    assert contents(target) == before and hidden(tmp_path) == []


def test_transactional_keeps_the_function_and_nested_blocks_join(tmp_path):
    @transactional
    def run(out):
        """Doc."""
        StudyOutput(out, "demo", {}).write_text("a.txt", "x")
        with output_transaction():
            StudyOutput(out.parent / "second", "demo", {}).write_text("b.txt", "y")
        assert not out.exists() and not (out.parent / "second").exists()
        return 7

    assert run.__doc__ == "Doc." and run(tmp_path / "first") == 7
    assert (tmp_path / "first" / "a.txt").exists() and (tmp_path / "second" / "b.txt").exists()


def test_one_target_twice_in_a_run_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="already written"):
        with output_transaction():
            StudyOutput(tmp_path / "out", "demo", {})
            StudyOutput(tmp_path / "out", "demo", {})
    assert list(tmp_path.iterdir()) == []


# --- stale temporaries -------------------------------------------------------------------


def test_stale_temporaries_of_crashed_runs_are_cleaned_at_start(tmp_path):
    dead, alive = _dead_pid(), os.getpid()
    target = tmp_path / "out"
    _run(target, {"old.txt": "previous"})
    for name in (f".out.staging-{dead}-0123abcd", f".out.old-{dead}-89abcdef"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text("{}")
    (tmp_path / f".out.staging-{alive}-0123abcd").mkdir()  # a live run's: kept
    (tmp_path / ".other.staging-1-0123abcd").mkdir()  # another target's: kept
    with output_transaction():
        StudyOutput(target, "demo", {})
        left = set(hidden(tmp_path)) - {
            ".other.staging-1-0123abcd",
            f".out.staging-{alive}-0123abcd",
        }
        assert len(hidden(tmp_path)) == 3 and len(left) == 1
        assert left.pop().startswith(f".out.staging-{alive}-")
    assert contents(target) == {}


def test_stale_part_files_are_cleaned_in_a_direct_folder(tmp_path):
    dead = _dead_pid()
    stale = [f".results.json.{dead}-0123abcd.part", ".results.csv.ab_c1234.part"]
    live = f".notes.txt.{os.getpid()}-0123abcd.part"
    for name in [*stale, live, "keep.txt"]:
        (tmp_path / name).write_text("x")
    StudyOutput(tmp_path, "demo", {})
    assert sorted(p.name for p in tmp_path.iterdir()) == [live, "keep.txt"]


def test_output_left_aside_by_a_crash_between_the_renames_is_restored(tmp_path):
    target = tmp_path / "out"
    aside = tmp_path / f".out.old-{_dead_pid()}-0123abcd"
    aside.mkdir()
    (aside / "results.json").write_text("{}")
    with pytest.raises(RuntimeError):
        _run(target, {"new.txt": "x"}, fail=RuntimeError("again"))
    assert sorted(contents(target)) == ["results.json"] and hidden(tmp_path) == []


def test_a_killed_run_leaves_nothing_after_the_next_run(tmp_path):
    """SIGKILL in the middle of a run, then a new run: no temporary survives."""
    target = tmp_path / "out"
    script = (
        "import os, signal, sys\n"
        "from ssa_privacy.engine.output import StudyOutput\n"
        "from ssa_privacy.engine.transaction import output_transaction\n"
        "with output_transaction():\n"
        "    StudyOutput(sys.argv[1], 'demo', {}).write_text('half.txt', 'x')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run([sys.executable, "-c", script, str(target)], check=False)
    assert killed.returncode == -9
    assert [name.split("-")[0] for name in hidden(tmp_path)] == [".out.staging"]
    _run(target, {"new.txt": "x"})
    assert hidden(tmp_path) == [] and "new.txt" in contents(target)


# --- the target folder -------------------------------------------------------------------


def test_target_checks(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "mine.txt").write_text("x")
    (tmp_path / "leftovers").mkdir()
    (tmp_path / ".kept.checkpoints").write_text("x")
    (tmp_path / "leftovers" / ".results.csv.abcd1234.part").write_text("x")
    bad = {
        "": ValueError,
        tmp_path / "file": NotADirectoryError,
        tmp_path / "file" / "below": NotADirectoryError,
        tmp_path / "foreign": FileExistsError,
        "/": ValueError,
        b"bytes": TypeError,
        Path(ssa_privacy.__file__).parent / "results": ValueError,  # inside the package
        Path(ssa_privacy.__file__).parent: ValueError,
        tmp_path / ("x" * 230): OSError,  # its staging folder's name would exceed 255 bytes
        tmp_path / "kept": NotADirectoryError,  # .kept.checkpoints beside it is a file
    }
    for folder, error in bad.items():
        with pytest.raises(error, match="out"):
            check_output_folder(folder)
    monkeypatch.chdir(tmp_path / "leftovers")
    for folder in (".", tmp_path):
        with pytest.raises(ValueError, match="current directory"):
            check_output_folder(folder)
    assert check_output_folder(tmp_path / "leftovers" / "new") == tmp_path / "leftovers" / "new"
    monkeypatch.chdir(tmp_path / "foreign")
    assert check_output_folder(tmp_path / "leftovers") == tmp_path / "leftovers"
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(PermissionError, match="not writable"):
        check_output_folder(tmp_path / "new")


def test_a_symbolic_link_to_the_target_stays_valid(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    _run(tmp_path / "link", {"a.txt": "x"})
    assert (tmp_path / "link").is_symlink() and (tmp_path / "link" / "a.txt").exists()


def test_atomic_path_leaves_nothing_behind_on_interrupt(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(tmp_path / "results.csv") as temporary:
            temporary.write_text("half")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_file_names_stay_inside_the_folder(tmp_path):
    output = StudyOutput(tmp_path, "demo", {})
    for name in ("../escape.txt", "/abs.txt", ""):
        with pytest.raises(ValueError, match="inside the folder"):
            output.write_text(name, "x")


def test_set_names_are_served_from_the_output_module_with_a_warning():
    """The names that 0.1 re-exported from ``output`` live in ``engine.transaction``; the
    old place serves them until 0.3, with a warning."""
    from ssa_privacy.engine import output, transaction

    for name in ("check_output_folder", "output_transaction", "transactional"):
        with pytest.warns(DeprecationWarning, match=f"use ssa_privacy.engine.transaction.{name}"):
            assert getattr(output, name) is getattr(transaction, name)
