"""The ``ssa-privacy`` command line: every misuse is one line on stderr and exit status 2.

The cases run in-process through :func:`ssa_privacy.cli.main`. A misuse is rejected
either by the option's ``argparse`` type, before anything runs, or by the study's own
checks at the start of ``run`` (cross-option constraints, data files); the latter are
all met before any heavy computation, so no case runs a study.
"""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import ssa_privacy
from ssa_privacy import __version__, cli
from ssa_privacy.cli import EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_INTERRUPTED, build_parser, main
from ssa_privacy.engine.data import CENSUS_FEATURES, CENSUS_TARGET
from ssa_privacy.studies import _options, example1, load_study, pml_bounds, study_names

ERROR = "ssa-privacy: error: "
CENSUS_HEADER = ",".join((*CENSUS_FEATURES, CENSUS_TARGET))
CENSUS_ROW = "1,2,30,4,5,10000"
KUNG_HEADER = "height_cm,weight_kg,age_yr,male"
KUNG_ROW = "151.765,47.8,63,1"


def error_line(capsys):
    """The one error line of a failed command (nothing on stdout, nothing else on stderr)."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(ERROR), lines[0]
    assert captured.out == ""
    return lines[0]


def _census(folder, csv_text, split_text=None):
    folder.mkdir()
    (folder / "pums_tx2023_person_sample_5000.csv").write_text(csv_text)
    if split_text is not None:
        (folder / "privacygp_census_split.json").write_text(split_text)
    return folder


def _kung(folder, csv_text):
    folder.mkdir()
    (folder / "howell1_kung_san.csv").write_text(csv_text)
    return folder


@pytest.fixture
def places(tmp_path):
    """Named paths for the cases: ``{out}`` (new folder), files, folders, bad data."""
    (tmp_path / "a_file.txt").write_text("not a folder")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    header_rows = f"{CENSUS_HEADER}\n{CENSUS_ROW}\n{CENSUS_ROW}\n"
    return {
        "tmp": tmp_path,
        "out": tmp_path / "out",
        "file": tmp_path / "a_file.txt",
        "below_file": tmp_path / "a_file.txt" / "out",
        "foreign": tmp_path / "foreign",
        "missing": tmp_path / "no_such_folder",
        "in_package": Path(ssa_privacy.__file__).parent / "my-results",
        "long_name": tmp_path / ("x" * 230),
        "census_bad_value": _census(
            tmp_path / "census_bad_value", f"{CENSUS_HEADER}\n{CENSUS_ROW}\n1,2,abc,4,5,10\n"
        ),
        "census_truncated": _census(
            tmp_path / "census_truncated", f"{CENSUS_HEADER}\n{CENSUS_ROW}\n1,2,3"
        ),
        "census_header_only": _census(tmp_path / "census_header_only", f"{CENSUS_HEADER}\n"),
        "census_empty": _census(tmp_path / "census_empty", ""),
        "census_no_column": _census(tmp_path / "census_no_column", "PUMA,AGEP\n1,2\n"),
        "census_bad_split": _census(tmp_path / "census_bad_split", header_rows, "{not json"),
        "census_split_rows": _census(
            tmp_path / "census_split_rows",
            header_rows,
            json.dumps({"train_csv_row": [0, 7], "test_csv_row": [1]}),
        ),
        "census_no_split": _census(tmp_path / "census_no_split", header_rows),
        "kung_bad_male": _kung(tmp_path / "kung_bad_male", f"{KUNG_HEADER}\n151.7,47.8,63,x\n"),
        "kung_male_two": _kung(tmp_path / "kung_male_two", f"{KUNG_HEADER}\n151.7,47.8,63,2\n"),
        "kung_truncated": _kung(tmp_path / "kung_truncated", f"{KUNG_HEADER}\n{KUNG_ROW}\n151.7"),
        "kung_header_only": _kung(tmp_path / "kung_header_only", f"{KUNG_HEADER}\n"),
        "kung_empty": _kung(tmp_path / "kung_empty", ""),
        "kung_missing_file": tmp_path / "foreign",
    }


def P(key):
    """A placeholder for the path ``places[key]``."""
    return f"{{{key}}}"


# (id, arguments after "run", pattern the error line must contain). Each case is run with
# "--out {out}" before its own arguments, so that a case's own --out overrides it.
STUDY_CASES = [
    # --out, --seed and the options a study does not use
    ("out-empty", ["census", "--out", ""], "--out"),
    ("out-file", ["building", "--out", P("file")], "--out"),
    ("out-below-file", ["mia", "--out", P("below_file")], "--out"),
    ("out-foreign-folder", ["kung", "--out", P("foreign")], "--out"),
    ("out-current-directory", ["pml-bounds", "--out", "."], "--out"),
    ("out-root", ["satellite", "--out", "/"], "--out"),
    ("out-in-package", ["ssa-catalog", "--out", P("in_package")], "--out.*installed package"),
    ("out-long-name", ["ssa-catalog", "--out", P("long_name")], "--out.*230 bytes"),
    ("seed-negative", ["building", "--seed", "-1"], "--seed"),
    ("seed-text", ["census", "--seed", "abc"], "--seed"),
    ("seed-float", ["mia", "--seed", "1.5"], "--seed"),
    ("example1-no-seed", ["example1", "--seed", "3"], "--seed"),
    ("example1-no-replications", ["example1", "--replications", "3"], "--replications"),
    ("example1-no-data", ["example1", "--data", P("tmp")], "--data"),
    ("satellite-no-data", ["satellite", "--data", P("tmp")], "--data"),
    ("sgp4-no-seed", ["sgp4-validation", "--seed", "1"], "--seed"),
    ("unknown-option", ["census", "--replication-count", "3"], "--replication-count"),
    # building
    ("building-steps-0", ["building", "--steps", "0"], "--steps"),
    ("building-steps-negative", ["building", "--steps", "-3"], "--steps"),
    ("building-steps-text", ["building", "--steps", "many"], "--steps"),
    ("building-mc-samples-0", ["building", "--mc-samples", "0"], "--mc-samples"),
    ("building-mc-samples-float", ["building", "--mc-samples", "1e5"], "--mc-samples"),
    # census
    ("census-replications-0", ["census", "--replications", "0"], "--replications"),
    ("census-replications-negative", ["census", "--replications", "-1"], "--replications"),
    ("census-replications-text", ["census", "--replications", "two"], "--replications"),
    ("census-data-missing", ["census", "--data", P("missing")], "--data"),
    ("census-data-file", ["census", "--data", P("file")], "--data"),
    ("census-data-empty", ["census", "--data", ""], "--data"),
    ("census-split", ["census", "--split", "other"], "--split"),
    ("census-restarts-0", ["census", "--restarts", "0"], "--restarts"),
    ("census-attack-restarts", ["census", "--attack-restarts", "-1"], "--attack-restarts"),
    ("census-csv-bad-value", ["census", "--data", P("census_bad_value")], r"pums.*line 3.*AGEP"),
    ("census-csv-truncated", ["census", "--data", P("census_truncated")], r"pums.*line 3"),
    ("census-csv-header-only", ["census", "--data", P("census_header_only")], r"pums.*no data"),
    ("census-csv-empty", ["census", "--data", P("census_empty")], r"pums.*empty"),
    ("census-csv-no-column", ["census", "--data", P("census_no_column")], r"pums.*POWPUMA"),
    ("census-split-invalid", ["census", "--data", P("census_bad_split")], r"census_split\.json"),
    ("census-split-rows", ["census", "--data", P("census_split_rows")], r"census_split\.json"),
    ("census-split-missing", ["census", "--data", P("census_no_split")], r"census_split\.json"),
    # example1: no options of its own
    ("example1-out-file", ["example1", "--out", P("file")], "--out"),
    # excursion
    ("excursion-replications-1", ["excursion", "--replications", "1"], "--replications"),
    ("excursion-validation-0", ["excursion", "--validation", "0"], "--validation"),
    ("excursion-n-0", ["excursion", "--n", "0"], "--n"),
    ("excursion-paths-0", ["excursion", "--paths", "0"], "--paths"),
    ("excursion-rounds-negative", ["excursion", "--rounds", "-1"], "--rounds"),
    ("excursion-epsilon-max-0", ["excursion", "--epsilon-max", "0"], "--epsilon-max"),
    ("excursion-epsilon-max-nan", ["excursion", "--epsilon-max", "nan"], "--epsilon-max"),
    ("excursion-delta-0", ["excursion", "--delta", "0"], "--delta"),
    ("excursion-delta-1", ["excursion", "--delta", "1"], "--delta"),
    ("excursion-lengthscale", ["excursion", "--true-lengthscale", "-1"], "--true-lengthscale"),
    # kung
    ("kung-replications-0", ["kung", "--replications", "0"], "--replications"),
    ("kung-selection-0", ["kung", "--selection-replications", "0"], "--selection-replications"),
    ("kung-folds-0", ["kung", "--folds", "0"], "--folds"),
    ("kung-data-missing", ["kung", "--data", P("missing")], "--data"),
    ("kung-data-file", ["kung", "--data", P("file")], "--data"),
    (
        "kung-selection-above-replications",
        ["kung", "--replications", "2", "--selection-replications", "3"],
        "--selection-replications",
    ),
    ("kung-csv-bad-male", ["kung", "--data", P("kung_bad_male")], r"howell1.*line 2.*male"),
    ("kung-csv-male-two", ["kung", "--data", P("kung_male_two")], r"howell1.*line 2.*male"),
    ("kung-csv-truncated", ["kung", "--data", P("kung_truncated")], r"howell1.*line 3"),
    ("kung-csv-header-only", ["kung", "--data", P("kung_header_only")], r"howell1.*no data"),
    ("kung-csv-empty", ["kung", "--data", P("kung_empty")], r"howell1.*empty"),
    ("kung-csv-missing", ["kung", "--data", P("kung_missing_file")], r"howell1_kung_san\.csv"),
    # mia
    ("mia-replications-99", ["mia", "--replications", "99"], "--replications"),
    ("mia-n-0", ["mia", "--n", "0"], "--n"),
    ("mia-lengthscale-0", ["mia", "--lengthscale", "0"], "--lengthscale"),
    ("mia-lengthscale-inf", ["mia", "--lengthscale", "inf"], "--lengthscale"),
    ("mia-delta-above-1", ["mia", "--delta", "1.5"], "--delta"),
    ("mia-ridges-0", ["mia", "--ridges", "1", "0"], "--ridges"),
    ("mia-ridges-none", ["mia", "--ridges"], "--ridges"),
    ("mia-sigmas-negative", ["mia", "--sigmas", "-1"], "--sigmas"),
    ("mia-path-counts-0", ["mia", "--path-counts", "0"], "--path-counts"),
    ("mia-path-counts-float", ["mia", "--path-counts", "1.5"], "--path-counts"),
    # pml-bounds
    ("pml-runs-1", ["pml-bounds", "--runs", "1"], "--runs"),
    ("pml-steps-0", ["pml-bounds", "--steps", "0"], "--steps"),
    ("pml-burn-in-negative", ["pml-bounds", "--burn-in", "-1"], "--burn-in"),
    ("pml-burn-in-above-steps", ["pml-bounds", "--burn-in", "600"], "--burn-in"),
    ("pml-delta-0", ["pml-bounds", "--delta", "0"], "--delta"),
    ("pml-epsilons-empty", ["pml-bounds", "--epsilons", ""], "--epsilons"),
    ("pml-epsilons-gap", ["pml-bounds", "--epsilons", "5,,6"], "--epsilons"),
    ("pml-epsilons-text", ["pml-bounds", "--epsilons", "5,x"], "--epsilons"),
    ("pml-epsilons-negative", ["pml-bounds", "--epsilons", "-1"], "--epsilons"),
    ("pml-epsilons-infeasible", ["pml-bounds", "--epsilons", "0.1"], r"epsilons = 0\.1"),
    ("pml-mc-samples-0", ["pml-bounds", "--mc-samples", "0"], "--mc-samples"),
    # satellite
    ("satellite-replications-0", ["satellite", "--replications", "0"], "--replications"),
    ("satellite-table-seeds-0", ["satellite", "--table-seeds", "0"], "--table-seeds"),
    ("satellite-convention", ["satellite", "--kernel-convention", "x"], "--kernel-convention"),
    # sgp4-validation
    ("sgp4-hours-0", ["sgp4-validation", "--hours", "0"], "--hours"),
    ("sgp4-step-0", ["sgp4-validation", "--step", "0"], "--step"),
    ("sgp4-step-inf", ["sgp4-validation", "--step", "inf"], "--step"),
    ("sgp4-secular-days", ["sgp4-validation", "--secular-days", "-1"], "--secular-days"),
    ("sgp4-unknown-satellite", ["sgp4-validation", "--satellites", "99999"], "satellites"),
    ("sgp4-step-above-span", ["sgp4-validation", "--hours", "1", "--step", "7200"], "step"),
    # ssa-network
    ("network-satellite", ["ssa-network", "--satellite", "99999"], "--satellite"),
    ("network-start-hours", ["ssa-network", "--start-hours", "-1"], "--start-hours"),
    ("network-hours-0", ["ssa-network", "--hours", "0"], "--hours"),
    ("network-dt-0", ["ssa-network", "--dt", "0"], "--dt"),
    ("network-gap-step-0", ["ssa-network", "--gap-step", "0"], "--gap-step"),
    ("network-gap-step-multiple", ["ssa-network", "--gap-step", "45"], "--gap-step"),
    ("network-burn-in-hours", ["ssa-network", "--burn-in-hours", "-1"], "--burn-in-hours"),
    ("network-burn-in-above", ["ssa-network", "--burn-in-hours", "10"], "--burn-in-hours"),
    ("network-epsilons-0", ["ssa-network", "--epsilons", "0"], "--epsilons"),
    ("network-offsets-text", ["ssa-network", "--offsets", "0,x,2"], "--offsets"),
    (
        "network-offsets-count",
        ["ssa-network", "--hours", "1", "--burn-in-hours", "0", "--offsets", "1,2"],
        "offsets",
    ),
    ("network-delta-2", ["ssa-network", "--delta", "2"], "--delta"),
    ("network-convention", ["ssa-network", "--convention", "other"], "--convention"),
    ("network-runs-0", ["ssa-network", "--runs", "0"], "--runs"),
    ("network-cw-runs-0", ["ssa-network", "--cw-runs", "0"], "--cw-runs"),
    ("network-cw-steps-0", ["ssa-network", "--cw-steps", "0"], "--cw-steps"),
    ("network-cw-burn-in-negative", ["ssa-network", "--cw-burn-in", "-1"], "--cw-burn-in"),
    ("network-cw-burn-in-above", ["ssa-network", "--cw-burn-in", "300"], "--cw-burn-in"),
    ("network-cw-dt-0", ["ssa-network", "--cw-dt", "0"], "--cw-dt"),
    ("network-mc-samples-0", ["ssa-network", "--mc-samples", "0"], "--mc-samples"),
]

COMMAND_CASES = [
    ("no-command", [], "COMMAND"),
    ("unknown-command", ["frobnicate"], "COMMAND"),
    ("run-without-study", ["run"], "STUDY"),
    ("unknown-study", ["run", "no-such-study"], "STUDY.*no-such-study"),
    ("list-extra", ["list", "extra"], "extra"),
    ("unknown-global-option", ["--bogus", "list"], "--bogus"),
]


def _fill(arguments, places):
    return [a.format(**{k: str(v) for k, v in places.items()}) for a in arguments]


@pytest.mark.parametrize(
    "arguments, pattern", [c[1:] for c in STUDY_CASES], ids=[c[0] for c in STUDY_CASES]
)
def test_study_misuse_is_one_line_with_status_2(arguments, pattern, places, capsys):
    study, *rest = _fill(arguments, places)
    status = main(["run", study, "--out", str(places["out"]), *rest])
    line = error_line(capsys)
    assert status == EXIT_ERROR
    assert re.search(pattern, line), line
    assert "Traceback" not in line
    # Nothing written: no output folder, no temporary beside it.
    assert not places["out"].exists()
    assert not [p.name for p in places["tmp"].iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    "arguments, pattern", [c[1:] for c in COMMAND_CASES], ids=[c[0] for c in COMMAND_CASES]
)
def test_command_misuse_is_one_line_with_status_2(arguments, pattern, capsys):
    assert main(arguments) == EXIT_ERROR
    assert re.search(pattern, error_line(capsys))


def test_every_study_option_is_validated_by_an_argparse_type():
    """Each option taking a value has a checking type or a fixed set of choices."""
    checked_in_run = {("sgp4-validation", "--satellites")}
    parser = build_parser()
    for name, sub in parser.study_parsers.items():
        for action in sub._actions:
            if action.nargs == 0 or not action.option_strings or action.choices:
                continue
            option = action.option_strings[0]
            if (name, option) in checked_in_run:
                continue
            assert action.type not in (None, int, float, str), (name, option)
            assert action.type.__module__ == _options.__name__, (name, option)


def test_unwritable_output_parent_is_rejected(places, monkeypatch, capsys):
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert main(["run", "building", "--out", str(places["out"])]) == EXIT_ERROR
    line = error_line(capsys)
    assert "--out" in line and "not writable" in line


def test_debug_shows_the_traceback_instead(places, capsys):
    for arguments in (
        ["--debug", "run", "pml-bounds", "--burn-in", "600"],
        ["run", "pml-bounds", "--debug", "--burn-in", "600"],
    ):
        assert main([*arguments, "--out", str(places["out"])]) == EXIT_ERROR
        err = capsys.readouterr().err
        assert "Traceback (most recent call last)" in err and "ValueError" in err


def _fake_run(error):
    def run(out, progress, **options):
        raise error

    return run


@pytest.mark.parametrize(
    "error, expected",
    [
        (KeyError("unknown satellite 'x'"), "ssa-privacy: error: unknown satellite 'x'"),
        (
            PermissionError(13, "Permission denied", "/x/y"),
            "ssa-privacy: error: Permission denied: '/x/y'",
        ),
        (ValueError("first line\n  second line"), "ssa-privacy: error: first line second line"),
        (
            RuntimeError("boom"),
            "ssa-privacy: error: unexpected RuntimeError: boom (--debug for the traceback)",
        ),
        (
            IndexError("index 1 is out of bounds for axis 0 with size 1"),
            "ssa-privacy: error: unexpected IndexError: index 1 is out of bounds for axis 0 "
            "with size 1 (--debug for the traceback)",
        ),
    ],
    ids=["key-error", "os-error", "multi-line", "unexpected", "internal-index-error"],
)
def test_errors_raised_inside_a_study_are_one_line(error, expected, monkeypatch, places, capsys):
    monkeypatch.setattr(example1, "run", _fake_run(error))
    assert main(["run", "example1", "--out", str(places["out"])]) == EXIT_ERROR
    assert error_line(capsys) == expected


def test_parameter_names_become_the_options_typed(monkeypatch, places, capsys):
    monkeypatch.setattr(
        pml_bounds, "run", _fake_run(ValueError("burn_in must lie in [0, steps); mc_samples"))
    )
    assert main(["run", "pml-bounds", "--out", str(places["out"])]) == EXIT_ERROR
    assert error_line(capsys).endswith("--burn-in must lie in [0, steps); --mc-samples")


@pytest.mark.parametrize(
    ("options", "backend", "workers"),
    [
        (["--workers", "1"], "serial", 1),
        (["--workers", "3"], "process-pool", 3),
        (["--dask-local", "2"], "dask", 2),
        (["--scheduler", "tcp://127.0.0.1:8786"], "dask", None),
    ],
)
def test_runner_options_choose_the_backend(monkeypatch, places, options, backend, workers):
    seen = {}
    monkeypatch.setattr(pml_bounds, "run", lambda **options: seen.update(options) or {"x": 1})
    assert main(["run", "pml-bounds", "--out", str(places["out"]), *options]) == 0
    description = seen["runner"].describe()
    assert description["backend"] == backend and description["workers"] == workers


@pytest.mark.parametrize(
    "options",
    [
        ["--workers", "0"],
        ["--workers", "1", "--dask-local", "2"],
        ["--scheduler", "localhost:8786"],
        ["--dask-local", "-1"],
        ["--connect-timeout", "0"],
        ["--connect-timeout", "nan"],
        ["--connect-timeout", "soon"],
    ],
)
def test_bad_runner_options_are_one_line_errors(places, options, capsys):
    assert main(["run", "pml-bounds", "--out", str(places["out"]), *options]) == EXIT_ERROR
    line = error_line(capsys)
    named = ("--workers", "--dask-local", "--scheduler", "--connect-timeout")
    assert any(word in line for word in named)


def test_the_connect_timeout_reaches_the_runner(monkeypatch, places):
    seen = {}
    monkeypatch.setattr(pml_bounds, "run", lambda **options: seen.update(options) or {"x": 1})
    options = ["--out", str(places["out"]), "--scheduler", "tcp://h:1", "--connect-timeout", "2.5"]
    assert main(["run", "pml-bounds", *options]) == 0
    assert seen["runner"].connect_timeout == 2.5


def test_studies_without_tasks_offer_no_runner_options(places, capsys):
    assert main(["run", "example1", "--out", str(places["out"]), "--workers", "2"]) == EXIT_ERROR
    assert "unrecognized arguments: --workers 2" in error_line(capsys)


def test_interrupt_exits_130_with_one_line(monkeypatch, places, capsys):
    monkeypatch.setattr(example1, "run", _fake_run(KeyboardInterrupt()))
    assert main(["run", "example1", "--out", str(places["out"])]) == EXIT_INTERRUPTED
    assert error_line(capsys) == "ssa-privacy: error: interrupted"


def test_options_reach_the_study_validated(monkeypatch, places, capsys):
    seen = {}
    monkeypatch.setattr(pml_bounds, "run", lambda **options: seen.update(options) or {"x": 1})
    arguments = ["--out", str(places["out"]), "--seed", "3", "--epsilons", "5,6.5"]
    assert main(["run", "pml-bounds", *arguments, "--no-progress", "--runs", "4"]) == 0
    runner = seen.pop("runner")
    assert runner.backend == "process-pool" or runner.workers == 1
    assert runner.checkpoints == places["out"].parent / f".{places['out'].name}.checkpoints"
    assert seen == {
        "out": places["out"],
        "seed": 3,
        "progress": False,
        "runs": 4,
        "steps": 500,
        "burn_in": 50,
        "delta": 0.01,
        "epsilons": (5.0, 6.5),
        "mc_samples": 400_000,
    }
    assert json.loads(capsys.readouterr().out) == {"x": 1}


def test_summary_is_printed_as_valid_json(monkeypatch, places, capsys):
    """A deterministic study gets no seed; a NaN in the summary is printed as null."""
    seen = {}

    def run(**options):
        seen.update(options)
        return {"value": float("nan"), "folder": Path("x")}

    monkeypatch.setattr(example1, "run", run)
    assert main(["run", "example1", "--out", str(places["out"])]) == 0
    assert set(seen) == {"out", "progress"}
    text = capsys.readouterr().out
    assert json.loads(text, parse_constant=pytest.fail) == {"value": None, "folder": "x"}


class _ClosedPipe:
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_closed_stdout_ends_quietly(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["list"]) == EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""


def test_piping_into_a_closed_reader_prints_no_traceback():
    """``ssa-privacy run census --help | head -0``: a real pipe whose reader has gone."""
    read, write = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-m", "ssa_privacy.cli", "run", "census", "--help"],
        stdout=write,
        stderr=subprocess.PIPE,
    )
    os.close(write)
    os.close(read)
    _, err = process.communicate(timeout=120)
    assert process.returncode == EXIT_BROKEN_PIPE, err
    assert err == b""
    assert signal.SIGPIPE + 128 == EXIT_BROKEN_PIPE


def test_help_version_and_list_still_work(capsys):
    assert main(["--help"]) == 0
    assert "usage: ssa-privacy" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out
    assert main(["run", "census", "--help"]) == 0
    helped = capsys.readouterr().out
    assert "--replications" in helped and "--data" in helped and "--debug" in helped
    assert main(["run", "example1", "--help"]) == 0
    helped = capsys.readouterr().out
    assert not any(o in helped for o in ("--seed", "--replications", "--data"))
    assert main(["list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == study_names()


def test_every_study_declares_its_options():
    """Each study has the interface the command line relies on."""
    for name in study_names():
        module = load_study(name)
        assert module.DESCRIPTION and callable(module.add_arguments) and callable(module.run)
        assert hasattr(module.run, "__wrapped__"), f"{name}.run does not write its output as a set"


def test_python_api_rejects_the_unused_options(tmp_path):
    with pytest.raises(TypeError, match="replications"):
        example1.run(tmp_path / "out", replications=3)
    with pytest.raises(TypeError, match="data"):
        example1.run(tmp_path / "out", data=tmp_path)
    with pytest.raises(TypeError, match="data"):
        load_study("satellite").run(tmp_path / "out", data=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_describe_never_returns_an_empty_message():
    assert cli.describe(ValueError()) == "ValueError"
    assert cli.describe(RuntimeError()).startswith("unexpected RuntimeError: RuntimeError")
