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
        self._values(label, function, kwargs, argument, types, TypeError)
        self._values(label, function, kwargs, argument, (NON_FINITE if finite else ()) + tuple(bad))

    def flags(self, label, function, kwargs, argument):
        """Rows for one boolean argument given non-booleans (TypeError)."""
        self._values(label, function, kwargs, argument, NOT_FLAGS, TypeError)

    def _values(self, label, function, kwargs, argument, values, exception=ValueError):
        """A row per (tag, value) of ``values`` given as ``argument``."""
        for tag, value in values:
            self.case(
                f"{label}-{argument}={tag}",
                function,
                {**kwargs, argument: value},
                exception,
                argument,
            )

    def refusal_test(self):
        """The test of every row (:func:`assert_refused`), to bind in a test module as
        ``test_bad_input_raises_a_one_line_error_naming_the_argument``."""

        @pytest.mark.parametrize("function, kwargs, exception, argument", self.cases)
        def test(function, kwargs, exception, argument):
            assert_refused(function, kwargs, exception, argument)

        return test


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
