"""The benchmarks keep up with the library: each script imports and has a ``main``.

They are run by hand on an idle machine (``benchmarks/README.md``), so nothing else would
notice a benchmark that imports a name the library no longer has.
"""

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_benchmark_script_imports_and_has_a_main(path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(f"benchmark_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(module.main)
