"""Studies release private data the way a user would: through public mechanism classes.

A study is what a user would write, so its source may take from the library only public
names: no private helper of a privacy module (which could draw noise outside a mechanism),
no legacy function kept for old scripts. The studies' own tests check that each study
records the class of every mechanism it released through (``parameters.mechanisms`` of
``results.json``).
"""

import ast
import inspect
from pathlib import Path

import pytest

from ssa_privacy import _compat, studies

FOLDER = Path(studies.__file__).parent
#: Every module of the studies, those of a study package (ssa_catalog/) included.
STUDIES = sorted(FOLDER.rglob("*.py"))
LEGACY = {name for _, name in _compat.REPLACED_NAMES}


def _library_imports(path):
    """(module, name) of every ``from ssa_privacy... import name`` outside the studies."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ssa_privacy"):
            if not node.module.startswith("ssa_privacy.studies"):
                yield from ((node.module, alias.name) for alias in node.names)


@pytest.mark.parametrize("path", STUDIES, ids=lambda p: str(p.relative_to(FOLDER)))
def test_a_study_uses_only_public_library_names(path):
    private = [f"{m}.{n}" for m, n in _library_imports(path) if n.startswith("_")]
    assert not private


@pytest.mark.parametrize("path", STUDIES, ids=lambda p: str(p.relative_to(FOLDER)))
def test_a_study_calls_no_legacy_release_function(path):
    legacy = [f"{m}.{n}" for m, n in _library_imports(path) if n in LEGACY]
    assert not legacy


def _mechanism_classes():
    import ssa_privacy.privacy as privacy

    for package in (
        privacy.pml,
        privacy.synthetic_noise,
        privacy.dp_gp,
        privacy.posterior_sampling,
    ):
        for name in package.__all__:
            value = getattr(package, name)
            if isinstance(value, type) and name.endswith("Mechanism"):
                yield value


@pytest.mark.parametrize(
    "cls", sorted(set(_mechanism_classes()), key=lambda c: c.__name__), ids=lambda c: c.__name__
)
def test_every_mechanism_releases_with_one_signature(cls):
    """``release(data, *, seed=None, ...)``: one positional argument, the rest by keyword.

    Options beyond the seed (keyword-only, with defaults) may shape a release, never its type.
    """
    parameters = list(inspect.signature(cls.release).parameters.values())
    positional = [p.name for p in parameters if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    keywords = {p.name: p.default for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert len(positional) == 2, positional
    assert "seed" in keywords and keywords["seed"] is None
    assert inspect.Parameter.empty not in keywords.values()
    assert callable(getattr(cls, "certificate", None))
