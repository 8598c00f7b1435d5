"""The ``ssa-privacy`` command: ``ssa-privacy list`` and ``ssa-privacy run <study> [options]``.

Exit statuses: 0 on success; 2 on any error, reported as one line
``ssa-privacy: error: ...`` on standard error (``--debug`` shows the Python traceback
instead); 130 when interrupted (Ctrl-C); 141 (128 + SIGPIPE) when standard output was
closed before everything was printed (``ssa-privacy list | head -1``); the study's output
folder is complete all the same. See :doc:`/cli`.
"""

import argparse
import contextlib
import os
import re
import sys
import traceback
from pathlib import Path

from ssa_privacy import __version__
from ssa_privacy.engine.output import json_text
from ssa_privacy.engine.runner import Runner, TaskError, WorkerLost
from ssa_privacy.engine.transaction import checkpoint_folder, discard_checkpoints
from ssa_privacy.studies import _options, load_study, study_info, study_names

__all__ = [
    "EXPECTED_ERRORS",
    "PROG",
    "UsageError",
    "build_parser",
    "describe",
    "main",
]

#: The command's name, which starts every error line.
PROG = "ssa-privacy"
#: Exit statuses of an error, an interrupt and a closed standard output.
EXIT_ERROR, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 2, 130, 141
#: Errors the package raises on a user's input (bad options, values, names, data, files,
#: an unreachable scheduler); any other error (an ``IndexError``, say) is a fault of the
#: package and is reported as unexpected, with a hint to ``--debug``. An error raised in
#: a task (:class:`ssa_privacy.engine.runner.TaskError`) is always a fault of the
#: package: a study checks its inputs before it starts its tasks.
EXPECTED_ERRORS = (ValueError, TypeError, KeyError, OSError)


class UsageError(Exception):
    """A command line that ``argparse`` rejects.

    Parameters
    ----------
    prog : str
        The (sub-)command whose options were misused, e.g. ``"ssa-privacy run census"``.
    message : str
        What is wrong, naming the option or argument.
    """

    def __init__(self, prog, message):
        super().__init__(message)
        self.prog, self.message = prog, message


class _Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`UsageError` instead of printing and exiting."""

    def error(self, message):
        raise UsageError(self.prog, message)


def build_parser(study=None):
    """Return the argument parser, with one ``run`` sub-command per study.

    Parameters
    ----------
    study : str, optional
        The study whose own options to add (its module is imported); the others get
        only their description, read without importing them, so that ``--help`` and
        ``list`` stay fast.

    Returns
    -------
    argparse.ArgumentParser
        The parser; its errors raise :class:`UsageError`. Its attribute
        ``study_parsers`` maps each study's name to its sub-parser.
    """
    parser = _Parser(prog=PROG, description="Privacy-aware estimation studies for SSA.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the Python traceback of an error"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="list the studies")
    run = commands.add_parser("run", help="run a study")
    studies = run.add_subparsers(dest="study", required=True, metavar="STUDY")
    parser.study_parsers = {}
    for name in study_names():
        info = study_info(name)
        sub = studies.add_parser(name, help=info.description, description=info.description)
        if name == study:
            _add_common_options(sub, name, info)
            load_study(name).add_arguments(sub)
        parser.study_parsers[name] = sub
    return parser


def _add_common_options(sub, name, info):
    """The options every study has: output, seed, progress, debug, and the runner's."""
    sub.add_argument(
        "--out",
        type=_options.output_folder,
        default=str(Path("figures") / name),
        help=f"output folder, replaced as a whole when the run completes (default: "
        f"figures/{name}); a folder holding other files is refused",
    )
    if info.uses_seed:
        sub.add_argument(
            "--seed",
            type=_options.non_negative_int,
            default=0,
            help="base random seed, a non-negative integer (default: 0)",
        )
    sub.add_argument("--no-progress", action="store_true", help="hide progress bars")
    sub.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show the Python traceback of an error",
    )
    if info.uses_runner:
        _add_runner_options(sub)


def _add_runner_options(sub):
    group = sub.add_argument_group("where the tasks run (results do not depend on it)")
    where = group.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=_options.positive_int,
        default=None,
        help="local worker processes; 1 runs serially (default: the usable cores)",
    )
    where.add_argument(
        "--scheduler",
        type=_options.scheduler_address,
        default=None,
        help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786",
    )
    where.add_argument(
        "--dask-local",
        type=_options.positive_int,
        default=None,
        metavar="N",
        help="start a local Dask cluster of N single-threaded workers",
    )
    group.add_argument(
        "--connect-timeout",
        type=_options.positive_float,
        default=10.0,
        metavar="SECONDS",
        help="give up on a Dask scheduler that does not answer within this time (default: 10)",
    )
    group.add_argument(
        "--resume",
        action="store_true",
        help="reuse the tasks an interrupted run of the same command stored beside --out",
    )


def _requested_study(argv):
    """The study named after ``run`` in ``argv``, if any."""
    if "run" not in argv:
        return None
    names = set(study_names())
    for token in argv[argv.index("run") + 1 :]:
        if token in names:
            return token
        if not token.startswith("-"):
            return None
    return None


def _use_file_backend():
    """Draw figures without a screen (set once, before a study is imported)."""
    import matplotlib

    matplotlib.use("Agg")


def _runner(options, progress, module):
    """Take the runner's options out of ``options`` and build the Runner; its process pool
    preloads the study's ``module`` and the figure writer. The caller closes it (a Dask
    cluster lives until then)."""
    out = Path(options["out"])
    return Runner(
        options.pop("workers"),
        scheduler=options.pop("scheduler"),
        dask_local=options.pop("dask_local"),
        progress=progress,
        checkpoints=checkpoint_folder(out),
        resume=options.pop("resume"),
        preload=(module, "ssa_privacy.engine.figures"),
        connect_timeout=options.pop("connect_timeout"),
    )


def _say(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _option_names(parser):
    """Map the parameter names with an underscore to their options (burn_in: --burn-in)."""
    names = {}
    for action in parser._actions:
        long = [s for s in action.option_strings if s.startswith("--")]
        if long and "_" in action.dest:
            names[action.dest] = long[0]
    return names


def _message(error):
    """The text of an error: a ``KeyError``'s without quotes, an ``OSError``'s with its file."""
    if isinstance(error, KeyError) and len(error.args) == 1 and isinstance(error.args[0], str):
        message = error.args[0]
    elif isinstance(error, OSError) and error.strerror and error.filename is not None:
        message = f"{error.strerror}: {str(error.filename)!r}"
    else:
        message = str(error)
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


def describe(error, option_names=None):
    """Return the one-line message of an error raised while running a study.

    Parameters
    ----------
    error : BaseException
        The error.
    option_names : dict, optional
        Parameter names to replace by the options the user typed (``{"burn_in":
        "--burn-in"}``); not applied to an error that already names what the user wrote
        (one whose ``names_keys_as_written`` is true, such as a scenario file's key).

    Returns
    -------
    str
        One line: the message (a ``KeyError``'s without quotes, an ``OSError``'s with its
        file; an error in a task is the task's error, followed by the task's key). An
        error that a user's input cannot cause (not one of :data:`EXPECTED_ERRORS`, or
        any error raised in a task: a study checks its inputs before its tasks start)
        reads ``unexpected <Type>: <message> (--debug for the traceback)``.
    """
    cause, where = error, ""
    if isinstance(error, TaskError) and not isinstance(error, WorkerLost):
        cause, where = error.error, f" (in task {error.key!r} of {error.name!r})"
    message = _message(cause)
    if getattr(cause, "names_keys_as_written", False):
        option_names = None
    for dest, option in sorted((option_names or {}).items(), key=lambda item: -len(item[0])):
        message = re.sub(rf"(?<![\w-]){re.escape(dest)}(?![\w-])", option, message)
    name = type(cause).__name__
    if isinstance(error, TaskError) or not isinstance(cause, EXPECTED_ERRORS):
        return f"unexpected {name}: {message or name}{where} (--debug for the traceback)"
    return f"{message or name}{where}"


class _GuardedStream:
    """Standard output that stops writing, without an error, once its reader has gone."""

    def __init__(self, stream):
        self._stream = stream
        self.broken = False

    def _close(self):
        self.broken = True
        # Later flushes (at exit too) go to the null device instead of raising again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self._stream.fileno())
            finally:
                os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text):
        if not self.broken:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._close()
        return len(text)

    def flush(self):
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._close()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _command(argv, state):
    """Parse ``argv`` and run it; return the exit status."""
    parser = build_parser(_requested_study(argv))
    try:
        args, extras = parser.parse_known_args(argv)
    except UsageError as error:
        _say(f"{error.message} (see '{error.prog} --help')")
        return EXIT_ERROR
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    state["debug"] = bool(getattr(args, "debug", False))
    options = vars(args)
    command, study = options.pop("command"), options.pop("study", None)
    if extras:
        where = f"{PROG} run {study}" if study else f"{PROG} {command}"
        _say(f"unrecognized arguments: {' '.join(extras)} (see '{where} --help')")
        return EXIT_ERROR
    if command == "list":
        for name in study_names():
            print(f"{name:16s} {study_info(name).description}")
        return 0
    options.pop("debug", None)
    progress = not options.pop("no_progress")
    _use_file_backend()
    try:
        if study_info(study).uses_runner:
            module = f"ssa_privacy.studies.{study.replace('-', '_')}"
            options["runner"] = _runner(options, progress, module)
        with options.get("runner") or contextlib.nullcontext():  # closes a Dask cluster
            summary = load_study(study).run(progress=progress, **options)
        if "runner" in options:
            discard_checkpoints(options["runner"].checkpoints)
    except Exception as error:
        if state["debug"]:
            traceback.print_exception(error)
        else:
            _say(describe(error, _option_names(parser.study_parsers[study])))
        return EXIT_ERROR
    print(json_text(summary, default=str))
    return 0


def main(argv=None):
    """Entry point of the ``ssa-privacy`` console script.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, :data:`EXIT_ERROR` (2), :data:`EXIT_INTERRUPTED` (130) or
        :data:`EXIT_BROKEN_PIPE` (141).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    state = {"debug": "--debug" in argv}
    stdout = _GuardedStream(sys.stdout)
    try:
        with contextlib.redirect_stdout(stdout):
            try:
                status = _command(argv, state)
            finally:
                stdout.flush()
    except KeyboardInterrupt as interrupt:
        if state["debug"]:
            traceback.print_exception(interrupt)
        _say("interrupted")
        return EXIT_INTERRUPTED
    except Exception as error:  # building the parser or listing the studies failed
        if state["debug"]:
            traceback.print_exception(error)
        else:
            _say(describe(error))
        return EXIT_ERROR
    return EXIT_BROKEN_PIPE if stdout.broken else status


if __name__ == "__main__":
    sys.exit(main())
