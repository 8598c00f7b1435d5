"""The quick-start page's examples run as written and print what the page says."""

import contextlib
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "quickstart.rst"


def _blocks():
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:    .*\n|\n)+)", text)
    return ["\n".join(line[4:] for line in block.splitlines()) for block in blocks]


def test_the_page_has_a_control_and_a_gp_example():
    assert len(_blocks()) == 2


@pytest.mark.parametrize("index", [0, 1], ids=["control", "gp"])
def test_example_runs_and_its_checks_hold(index):
    """Every line the example prints that names a check ends True where the page says so."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(_blocks()[index], f"quickstart-{index}", "exec"), {})
    lines = printed.getvalue().splitlines()
    if index == 0:
        assert lines[0].startswith("True") and lines[1] == "True True"
    else:
        assert lines[0] == "True 4" and lines[1] == "True" and lines[2] == "False"
