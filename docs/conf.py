"""Sphinx configuration for the ssa_privacy documentation."""

import enum
import importlib
import inspect
import pkgutil
import re

import ssa_privacy

project = "ssa_privacy"
author = "ssa_privacy developers"
release = ssa_privacy.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.mathjax", "numpydoc"]
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
# numpydoc validation of the public API: every object documented, every parameter
# documented and none unknown, a summary line, a Returns section where something is returned.
numpydoc_validation_checks = {"GL08", "SS01", "PR01", "PR02", "PR07", "RT01", "RT03"}


def _imported_names():
    """Regexes of the names each module imports: they are validated where they are defined."""
    names = []
    for info in pkgutil.walk_packages(ssa_privacy.__path__, "ssa_privacy."):
        module = importlib.import_module(info.name)
        for attribute, value in vars(module).items():
            home = getattr(value, "__module__", None)
            if (inspect.isclass(value) or callable(value)) and home != info.name:
                names.append(rf"^{re.escape(info.name)}\.{re.escape(attribute)}(\.|$)")
    return names


def _enumerations():
    """Regexes of the package's enumerations: their signature is the one of ``enum.Enum``."""
    names = []
    for info in pkgutil.walk_packages(ssa_privacy.__path__, "ssa_privacy."):
        module = importlib.import_module(info.name)
        for attribute, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, enum.Enum)
                and value.__module__ == info.name
            ):
                names.append(rf"^{re.escape(info.name)}\.{re.escape(attribute)}$")
    return names


# Private names, dunders, and what a module imports from elsewhere are not validated there;
# nor is the signature of the Mechanism protocol, which is never instantiated, nor that
# of an enumeration (its members are documented, not its constructor).
numpydoc_validation_exclude = {
    r"\._[a-zA-Z0-9]",
    r"\.__[a-z]+__$",
    r"^ssa_privacy\.privacy\.mechanism\.Mechanism$",
    *_imported_names(),
    *_enumerations(),
}
exclude_patterns = ["_build"]
html_theme = "alabaster"
suppress_warnings = []
