"""The 0.2 layout: old paths keep working with a warning, and the package never uses them.

Checks the promises of ``docs/changelog.rst``: every module path and public name that moved
still imports, warns with a :class:`DeprecationWarning` naming its new place and the removal
version, and gives the very object at the new place; no module of the package imports an
old path, and none but the package's ``__init__`` imports the compatibility package
``_compat`` (whose import hook gives the modules their old names); every module declares
``__all__`` without private names; a subpackage gathers the public names of the modules its
docstring lists.
"""

import ast
import importlib
import inspect
import pickle
import pkgutil
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import ssa_privacy
from ssa_privacy import _compat

PACKAGE = Path(ssa_privacy.__file__).parent
MODULES = sorted(info.name for info in pkgutil.walk_packages(ssa_privacy.__path__, "ssa_privacy."))


@pytest.mark.parametrize("old, new", sorted(_compat.MOVED_MODULES.items()))
def test_old_module_path_imports_the_new_module_with_a_warning(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated .* 0\.3; use {new}$"):
        alias = importlib.import_module(old)
    module = importlib.import_module(new)
    for name in module.__all__:
        assert getattr(alias, name) is getattr(module, name)


@pytest.mark.parametrize("key", sorted(_compat.MOVED_NAMES), ids="{0[0]}.{0[1]}".format)
def test_old_name_is_the_object_at_its_new_place_with_a_warning(key):
    module, name = key
    new_module, _, new_name = _compat.MOVED_NAMES[key].partition(":")
    with pytest.warns(DeprecationWarning, match=rf"use {new_module}\.{new_name}$"):
        value = getattr(importlib.import_module(module), name)
    assert value is getattr(importlib.import_module(new_module), new_name)


@pytest.mark.parametrize("key", sorted(_compat.REPLACED_NAMES), ids="{0[0]}.{0[1]}".format)
def test_replaced_name_is_the_legacy_function_with_a_warning(key):
    module, name = key
    function, instead = _compat.REPLACED_NAMES[key]
    with pytest.warns(DeprecationWarning, match="will be removed in ssa_privacy 0.3; use"):
        assert getattr(importlib.import_module(module), name) is function
    assert instead


class _Probe:
    """An instance whose every attribute is missing: a legacy method must warn before use."""

    def __getattr__(self, name):
        raise LookupError(name)


@pytest.mark.parametrize("key", sorted(_compat.REPLACED_METHODS), ids="{0[1]}.{0[2]}".format)
def test_replaced_method_is_the_legacy_method_with_a_warning_when_called(key):
    module, owner, name = key
    method = getattr(getattr(importlib.import_module(module), owner), name)
    assert method is _compat.REPLACED_METHODS[key]
    assert pickle.loads(pickle.dumps(method)) is method
    with pytest.warns(DeprecationWarning, match=rf"{owner}\.{name} is deprecated .* 0\.3; use"):
        with pytest.raises(LookupError):
            method(_Probe())


OLD_NAMES = sorted({*_compat.MOVED_NAMES, *_compat.REPLACED_NAMES} - set(_compat.MOVED_MODULES))


@pytest.mark.parametrize("key", OLD_NAMES, ids="{0[0]}.{0[1]}".format)
def test_from_import_of_an_old_name_gives_the_attribute_and_warns_at_the_import(key):
    """``from package import name`` reads the name twice (``hasattr``, then ``getattr``)."""
    module, name = key
    namespace = {}
    with warnings.catch_warnings(record=True) as imported:
        warnings.simplefilter("always")
        exec(f"from {module} import {name}", namespace)
    with warnings.catch_warnings(record=True) as read:
        warnings.simplefilter("always")
        value = getattr(importlib.import_module(module), name)
    assert namespace[name] is value and name not in dir(importlib.import_module(module))
    assert 1 <= len(imported) <= 2 and len(read) == 1
    assert {(w.category, w.filename) for w in imported} == {(DeprecationWarning, "<string>")}
    assert (read[0].category, read[0].filename) == (DeprecationWarning, __file__)


def _imported_modules(path):
    """Every module an ``import`` statement of ``path`` imports or imports from, resolved."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(filter(None, (base, node.module)))
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


COMPAT = "ssa_privacy._compat"


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_only_the_package_face_imports_the_compatibility_package(path):
    imported = [m for m in _imported_modules(path) if m == COMPAT or m.startswith(COMPAT + ".")]
    if path.parent.name == "_compat":
        return
    assert imported == ([COMPAT] if path == PACKAGE / "__init__.py" else [])


def test_importing_the_package_loads_only_its_face_and_the_compatibility_package():
    code = "import sys, ssa_privacy; print(*sorted(sys.modules), ssa_privacy.__file__)"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PACKAGE.parent
    ).stdout.split()
    assert loaded.pop() == ssa_privacy.__file__
    ours = {m for m in loaded if m.partition(".")[0] == "ssa_privacy"}
    assert {m for m in ours if m != COMPAT and not m.startswith(COMPAT + ".")} == {"ssa_privacy"}


def test_a_module_serving_old_names_keeps_its_own_source_and_file():
    module = importlib.import_module("ssa_privacy.privacy.pml")
    source = Path(module.__file__).read_text(encoding="utf-8")
    assert module.__loader__.get_source(module.__name__) == source
    assert inspect.getsource(module) == source
    assert module.__spec__.origin == module.__file__ == str(PACKAGE / "privacy/pml/__init__.py")


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        ssa_privacy.plants.no_such_name  # noqa: B018


def _imports(path):
    """Every (module, name) an ``import`` statement of ``path`` reads, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                yield node.module, alias.name


def _deprecated(module, name):
    old = set(_compat.MOVED_MODULES)
    if module in old or any(module.startswith(path + ".") for path in old):
        return True
    if name is None:
        return False
    return (
        f"{module}.{name}" in old
        or (module, name) in _compat.MOVED_NAMES
        or (module, name) in _compat.REPLACED_NAMES
    )


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_the_package_imports_no_deprecated_path(path):
    used = [f"{m}.{n}" if n else m for m, n in _imports(path) if _deprecated(m, n)]
    assert not used


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_its_public_names(name):
    module = importlib.import_module(name)
    assert isinstance(module.__all__, list)
    assert not [n for n in module.__all__ if n.startswith("_") and n != "__version__"]
    assert len(set(module.__all__)) == len(module.__all__)
    for exported in module.__all__:
        assert hasattr(module, exported), exported


SHADOWING = sorted(
    old
    for old in _compat.MOVED_MODULES
    if old.rpartition(".")[2]
    in getattr(importlib.import_module(old.rpartition(".")[0]), "__all__", ())
)


@pytest.mark.parametrize("old", SHADOWING)
def test_an_old_module_path_does_not_replace_a_public_name_of_its_package(old):
    package_name, _, child = old.rpartition(".")
    package = importlib.import_module(package_name)
    public = getattr(package, child)
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"use {_compat.MOVED_MODULES[old]}$"):
        alias = importlib.import_module(old)
    assert getattr(package, child) is public and not isinstance(public, type(alias))
    assert getattr(alias, child) is public


GATHERING = [
    name
    for name in MODULES
    if "Every public name of the modules below" in (importlib.import_module(name).__doc__ or "")
]


@pytest.mark.parametrize("name", GATHERING)
def test_a_subpackage_gathers_the_modules_it_lists_and_names_the_others(name):
    package = importlib.import_module(name)
    head, _, tail = package.__doc__.partition("Every public name of the modules below")
    listed = re.findall(r"^- :mod:`([\w.]+)`$", tail, flags=re.MULTILINE)
    own = {f"{name}.{m.name}" for m in pkgutil.iter_modules(package.__path__)}
    public = {m for m in own if not m.rpartition(".")[2].startswith("_")}
    assert set(listed) <= own
    assert public <= set(re.findall(r":mod:`([\w.]+)`", package.__doc__))
    for module in map(importlib.import_module, listed):
        for exported in module.__all__:
            assert exported in package.__all__, (module.__name__, exported)
            assert getattr(package, exported) is getattr(module, exported), exported


@pytest.mark.parametrize(
    "use",
    [
        lambda: importlib.import_module("ssa_privacy.runner"),
        lambda: ssa_privacy.output,
        lambda: ssa_privacy.plants.cw_plant,
    ],
    ids=["import", "package attribute", "moved name"],
)
def test_the_warning_points_at_the_line_that_used_the_old_path(use):
    for old in ("ssa_privacy.runner", "ssa_privacy.output"):
        sys.modules.pop(old, None)
        ssa_privacy.__dict__.pop(old.rpartition(".")[2], None)
    with pytest.warns(DeprecationWarning) as record:
        use()
    assert record[0].filename == __file__
