"""Shared helpers of the corpora of bad input: a row is (callable, kwargs, exception, argument).

Each test module named by the module it tests (``tests/<stage>/test_<module>_inputs.py``)
builds its rows with a :class:`Corpus` and checks them with :func:`assert_refused`: the
call must raise that exception type, with a one-line message naming the argument as the
user wrote it (the public parameter name), as in ``tests/test_bad_input.py``.
"""

import re

import pytest

NAN, INF = float("nan"), float("inf")
#: Wrong types of a number: each must give a TypeError naming the argument.
WRONG_TYPES = (("bool", True), ("str", "0.5"), ("complex", 1 + 0j), ("None", None))
#: Non-finite values of a number: each must give a ValueError naming the argument.
NON_FINITE = (("nan", NAN), ("inf", INF))
#: Non-booleans where a flag is expected: each must give a TypeError naming the argument.
NOT_FLAGS = (("str", "no"), ("int", 1), ("None", None))


class Corpus:
    """The rows of one test module, as ``pytest.param`` objects in :attr:`cases`."""

    def __init__(self):
        self.cases = []

    def case(self, label, function, kwargs, exception, argument):
        """Add a row: ``function(**kwargs)`` raises ``exception`` naming ``argument``."""
        self.cases.append(pytest.param(function, kwargs, exception, argument, id=label))

    def numbers(self, label, function, kwargs, argument, bad=(), types=WRONG_TYPES, finite=True):
        """Rows for one numeric argument: wrong types, non-finite values and ``bad`` ones.

        ``bad`` holds (label, value) pairs out of range (ValueError); ``types`` the wrong
        types (TypeError); ``finite`` adds NaN and inf (ValueError).
        """
        for tag, value in types:
            self.case(
                f"{label}-{argument}={tag}",
                function,
                {**kwargs, argument: value},
                TypeError,
                argument,
            )
        for tag, value in (NON_FINITE if finite else ()) + tuple(bad):
            self.case(
                f"{label}-{argument}={tag}",
                function,
                {**kwargs, argument: value},
                ValueError,
                argument,
            )

    def flags(self, label, function, kwargs, argument):
        """Rows for one boolean argument given non-booleans (TypeError)."""
        for tag, value in NOT_FLAGS:
            self.case(
                f"{label}-{argument}={tag}",
                function,
                {**kwargs, argument: value},
                TypeError,
                argument,
            )


def call(factory, method):
    """A callable running ``getattr(factory(), method)(**kwargs)`` (objects built lazily)."""

    def run(**kwargs):
        return getattr(factory(), method)(**kwargs)

    run.__name__ = method
    return run


def assert_refused(function, kwargs, exception, argument):
    """``function(**kwargs)`` raises ``exception`` with one line naming ``argument``."""
    with pytest.raises(exception) as raised:
        function(**kwargs)
    message = str(raised.value)
    assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(argument)}(?![A-Za-z0-9_])", message), message
    assert "\n" not in message, message
