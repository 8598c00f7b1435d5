"""Sphinx configuration for the ssa_privacy documentation."""

import ssa_privacy

project = "ssa_privacy"
author = "ssa_privacy developers"
release = ssa_privacy.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.mathjax", "numpydoc"]
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
exclude_patterns = ["_build"]
html_theme = "alabaster"
suppress_warnings = []
