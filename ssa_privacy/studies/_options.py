"""The studies' command-line options: value types for ``argparse`` and shared option blocks.

Each type function takes the text the user typed and returns the value, or raises
:class:`argparse.ArgumentTypeError` with a message that ``argparse`` prefixes with the
option's name (``argument --steps: expected a positive integer, got '0'``).

The ``add_*`` functions define, once, the options several studies share (``--data``,
``--replications``, ``--delta`` with ``--convention``, ``--mc-samples``); each study
passes its own default and what the option counts.
"""

import argparse
import math
import os
from pathlib import Path

from ssa_privacy.engine.runner import SCHEDULER_PATTERN
from ssa_privacy.engine.transaction import check_output_folder

__all__ = [
    "add_data_folder",
    "add_mc_samples",
    "add_pml_level",
    "add_replications",
    "checked_by",
    "comma_list",
    "add_scenario",
    "existing_file",
    "existing_folder",
    "finite_float",
    "int_at_least",
    "non_negative_float",
    "non_negative_int",
    "output_folder",
    "positive_float",
    "positive_int",
    "positive_int_or_all",
    "probability",
    "scheduler_address",
]


def _integer(text, what):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def _number(text, what):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def int_at_least(minimum):
    """Return a type accepting the integers ``>= minimum``.

    Parameters
    ----------
    minimum : int
        The smallest value accepted.

    Returns
    -------
    callable
        ``str -> int``; raises :class:`argparse.ArgumentTypeError` otherwise.
    """
    what = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}"
    )

    def parse(text):
        value = _integer(text, what)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    parse.__name__ = f"int_at_least_{minimum}"
    return parse


#: Integers >= 1 (counts: replications, steps, samples).
positive_int = int_at_least(1)
#: Integers >= 0 (seeds, burn-in).
non_negative_int = int_at_least(0)


def positive_int_or_all(text):
    """A positive integer, or the word ``all`` (every one), kept as the string ``"all"``.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    int or str

    Raises
    ------
    argparse.ArgumentTypeError
        On anything else.
    """
    if text == "all":
        return text
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer or 'all', got {text!r}"
        ) from None


def positive_float(text):
    """Return ``text`` as a finite float > 0.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The value.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a finite number > 0.
    """
    value = _number(text, "a finite number > 0")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def non_negative_float(text):
    """Return ``text`` as a finite float >= 0.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The value.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a finite number >= 0.
    """
    value = _number(text, "a finite number >= 0")
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def finite_float(text):
    """Return ``text`` as a finite float.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The value.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a finite number.
    """
    return _number(text, "a finite number")


def probability(text):
    """Return ``text`` as a float in the open interval (0, 1) (delta, failure probabilities).

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The value.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a number strictly between 0 and 1.
    """
    value = _number(text, "a number in (0, 1)")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


def comma_list(element):
    """Return a type reading a non-empty comma-separated list, each item through ``element``.

    Parameters
    ----------
    element : callable
        The type of one item (e.g. :func:`positive_float`).

    Returns
    -------
    callable
        ``str -> tuple``; raises :class:`argparse.ArgumentTypeError` naming the bad item.
    """

    def parse(text):
        items = [item.strip() for item in text.split(",")]
        if not text.strip() or any(item == "" for item in items):
            raise argparse.ArgumentTypeError(
                f"expected a comma-separated list without empty items, got {text!r}"
            )
        values = []
        for position, item in enumerate(items, 1):
            try:
                values.append(element(item))
            except argparse.ArgumentTypeError as error:
                raise argparse.ArgumentTypeError(f"item {position} of {text!r}: {error}") from None
        return tuple(values)

    parse.__name__ = f"comma_list_of_{getattr(element, '__name__', 'items')}"
    return parse


def checked_by(check):
    """Return a type that accepts the text ``check`` accepts (e.g. a satellite's name).

    Parameters
    ----------
    check : callable
        Called with the text; raises ``ValueError`` or ``OSError`` to reject it.

    Returns
    -------
    callable
        ``str -> str``, the text unchanged; the rejection becomes
        :class:`argparse.ArgumentTypeError` with ``check``'s message.
    """

    def parse(text):
        try:
            check(text)
        except (ValueError, OSError) as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return text

    parse.__name__ = f"checked_by_{getattr(check, '__name__', 'check')}"
    return parse


def output_folder(text):
    """Return ``text`` as the output folder of a study run, checked before the run.

    Parameters
    ----------
    text : str
        The folder (``--out``).

    Returns
    -------
    Path
        The folder as given (``~`` expanded).

    Raises
    ------
    argparse.ArgumentTypeError
        If the folder is empty, a file, the current directory or above it, a folder
        holding other files than a study's output, or in a folder that is not writable
        (see :func:`ssa_privacy.engine.transaction.check_output_folder`).
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty string")
    try:
        check_output_folder(text, name=None)
    except (TypeError, ValueError, OSError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return Path(text).expanduser()


def existing_folder(text):
    """Return ``text`` as an existing folder (``--data``).

    Parameters
    ----------
    text : str
        The folder.

    Returns
    -------
    Path
        The folder (``~`` expanded).

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is empty, does not exist, is not a folder or cannot be read.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty string")
    folder = Path(text).expanduser()
    if not folder.exists():
        raise argparse.ArgumentTypeError(f"folder {text!r} does not exist")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
    if not os.access(folder, os.R_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"folder {text!r} cannot be read")
    return folder


def existing_file(text):
    """Return ``text`` if it names an existing file (``--scenario``, ``--tle``).

    Parameters
    ----------
    text : str
        The file.

    Returns
    -------
    str
        ``text`` as given (the study resolves it).

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is empty, names a folder, or no file of that name exists.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file, got an empty string")
    path = Path(text).expanduser()
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"file {text!r} not found")
    return text


def add_scenario(parser, what):
    """Add ``--scenario``, a scenario file of an SSA study (:mod:`ssa_privacy.studies.scenario`).

    Parameters
    ----------
    parser : argparse.ArgumentParser or argument group
        Where the option goes.
    what : str
        What the study takes of the scenario, e.g. ``"one object, its radars"``.
    """
    parser.add_argument(
        "--scenario",
        type=existing_file,
        help=f"scenario file (TOML): {what}; the options below override it",
    )


def scheduler_address(text):
    """Return ``text`` as the address of a Dask scheduler (``--scheduler``).

    Parameters
    ----------
    text : str
        The address, e.g. ``tcp://10.0.0.5:8786``.

    Returns
    -------
    str
        The address.

    Raises
    ------
    argparse.ArgumentTypeError
        If it is not of the form ``PROTOCOL://HOST:PORT`` (tcp, tls, ws, wss, ucx,
        inproc).
    """
    if not SCHEDULER_PATTERN.match(text):
        raise argparse.ArgumentTypeError(f"expected an address like tcp://HOST:PORT, got {text!r}")
    return text


DATA_DEFAULT = "default: $SSA_PRIVACY_DATA, then ../shared/data beside the repository"


def add_data_folder(parser, holding):
    """Add ``--data``, the folder of a study's real data.

    Parameters
    ----------
    parser : argparse.ArgumentParser or argument group
        Where the option goes.
    holding : str
        What the folder holds, e.g. ``"the PUMS sample and the split file"``.
    """
    parser.add_argument(
        "--data", type=existing_folder, help=f"folder holding {holding} ({DATA_DEFAULT})"
    )


def add_replications(parser, default, counts, minimum=1):
    """Add ``--replications``, the number of independent repetitions of a study's draws.

    Parameters
    ----------
    parser : argparse.ArgumentParser or argument group
        Where the option goes.
    default : int
        The default count.
    counts : str
        What one replication is, e.g. ``"seeds of the synthetic noise averaged in Table 4"``.
    minimum : int, optional
        The smallest count accepted (default 1).
    """
    parser.add_argument(
        "--replications",
        type=int_at_least(minimum) if minimum != 1 else positive_int,
        default=default,
        help=f"{counts} (default {default}{'' if minimum == 1 else f', at least {minimum}'})",
    )


def add_pml_level(parser, delta, what="PML failure probability", conventions=None):
    """Add ``--delta`` and, given ``conventions``, ``--convention`` of a PML or DP level.

    Parameters
    ----------
    parser : argparse.ArgumentParser or argument group
        Where the options go.
    delta : float
        The default delta, in (0, 1).
    what : str, optional
        What delta is in this study (the help text).
    conventions : iterable of str, optional
        The PML conventions offered by ``--convention`` (default ``"exact"``); None offers
        no ``--convention``.
    """
    parser.add_argument(
        "--delta", type=probability, default=delta, help=f"{what} (default {delta:g})"
    )
    if conventions is not None:
        parser.add_argument(
            "--convention",
            choices=sorted(conventions),
            default="exact",
            help="PML convention of the noise design and of the bounds (default exact)",
        )


def add_mc_samples(parser, default, counts):
    """Add ``--mc-samples``, the Monte Carlo draws behind an estimated probability.

    Parameters
    ----------
    parser : argparse.ArgumentParser or argument group
        Where the option goes.
    default : int
        The default number of draws.
    counts : str
        What is drawn, e.g. ``"draws per mechanism for P[l <= epsilon]"``.
    """
    parser.add_argument(
        "--mc-samples", type=positive_int, default=default, help=f"{counts} (default {default})"
    )
