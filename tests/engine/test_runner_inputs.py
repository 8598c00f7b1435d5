"""Bad input to the runner's :class:`Task` and :class:`Runner`: each a one-line error
naming the argument; a task key is recorded as it was given.

The silent wrong answer it closes: ``Task(key="ab")`` was recorded as ``["a", "b"]`` (a
string iterated as a sequence). A key is a non-empty tuple of JSON scalars, so that it is
hashable, picklable and recorded in JSON as it is.
"""

import json
import pickle

import numpy as np
import pytest
from corpus import Corpus, call

from ssa_privacy.engine.runner import Runner, Task

corpus = Corpus()
case = corpus.case
for label, key, exception in (
    ("str", "ab", TypeError),
    ("list", ["a", 1], TypeError),
    ("int", 3, TypeError),
    ("None", None, TypeError),
    ("empty", (), ValueError),
    ("nan", ("a", float("nan")), ValueError),
    ("inf", ("a", float("inf")), ValueError),
    ("list-entry", ("a", [1, 2]), TypeError),
    ("dict-entry", ("a", {"b": 1}), TypeError),
    ("array-entry", ("a", np.zeros(2)), TypeError),
    ("object-entry", ("a", object()), TypeError),
):
    case(f"Task-key={label}", Task, {"key": key}, exception, "key")
for label, keys, exception in (
    ("str", "12", TypeError),
    ("int", 12, TypeError),
    ("empty", (), TypeError),
    ("float", (1, 2.5), TypeError),
    ("bool", (True,), TypeError),
    ("negative", (1, -2), ValueError),
):
    case(
        f"Task-seed_keys={label}", Task, {"key": ("a",), "seed_keys": keys}, exception, "seed_keys"
    )
case("Task-arguments", Task, {"key": ("a",), "arguments": [("x", 1)]}, TypeError, "arguments")
case(
    "Task-arguments-seed_keys",
    Task,
    {"key": ("a",), "arguments": {"seed_keys": (1,)}},
    ValueError,
    "seed_keys",
)
runner = {"workers": 1, "progress": False}
for flag in ("progress", "resume"):
    corpus.flags("Runner", Runner, runner, flag)
case("Runner-checkpoints", Runner, {**runner, "checkpoints": 1.5}, TypeError, "checkpoints")
case("Runner-resume-without-checkpoints", Runner, {**runner, "resume": True}, ValueError, "resume")
case("Runner-preload=None", Runner, {**runner, "preload": None}, TypeError, "preload")
case("Runner-preload=str", Runner, {**runner, "preload": "numpy"}, TypeError, "preload")
corpus.numbers(
    "Runner", Runner, runner, "workers", bad=(("zero", 0),), types=(("float", 1.5),), finite=False
)
mapped = call(lambda: Runner(workers=1, progress=False), "map")
task = Task(("x",), {"x": 1.0})
corpus.flags("Runner.map", mapped, {"function": abs, "tasks": [task]}, "checkpoint")
case("Runner.map-tasks=Task", mapped, {"function": abs, "tasks": task}, TypeError, "tasks")
case(
    "Runner.map-tasks[1]", mapped, {"function": abs, "tasks": [task, ("y",)]}, TypeError, "tasks[1]"
)
case("Runner.map-duplicate", mapped, {"function": abs, "tasks": [task, task]}, ValueError, "key")
case(
    "Runner.map-name", mapped, {"function": abs, "tasks": [task], "name": "a/b"}, ValueError, "name"
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


@pytest.mark.parametrize(
    "key", [("ab",), ("replication", 3, "alpha", 0.1), ("flag", True, None), ("x", -2)]
)
def test_a_key_is_recorded_as_it_was_given(key):
    """Hashable, picklable, and the JSON record reads back to the key's entries."""
    task = Task(key)
    assert hash(task.key) == hash(key)
    assert pickle.loads(pickle.dumps(task)).key == key
    assert json.loads(json.dumps(task.record()))["key"] == list(key)


def test_numpy_numbers_in_a_key_are_stored_as_python_numbers_of_the_same_value():
    task = Task(("epsilon", np.float64(0.5), np.int64(3)), seed_keys=(np.int64(7), 1))
    assert task.key == ("epsilon", 0.5, 3) and type(task.key[1]) is float
    assert task.seed_keys == (7, 1) and type(task.seed_keys[0]) is int
    assert json.dumps(task.record()) == ('{"key": ["epsilon", 0.5, 3], "seed_keys": [7, 1]}')


def test_the_corpus_is_large_enough():
    assert len(corpus.cases) >= 35
