"""The studies: each module here is one study, runnable as ``ssa-privacy run <name>``.

A study module defines

- ``DESCRIPTION`` (one line, shown by ``ssa-privacy list``),
- ``add_arguments(parser)`` adding its own command-line options, and
- ``run(out, seed, progress, **options)`` writing figures and results into ``out``
  and returning a summary dict.

The study's command-line name is the module name with ``_`` replaced by ``-``.
Modules whose names start with ``_`` are shared helpers, not studies.
"""

import importlib
import pkgutil


def study_names():
    """Return the command-line names of all studies, sorted."""
    return sorted(
        info.name.replace("_", "-")
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    )


def load_study(name):
    """Import and return the module of the study called ``name``.

    Raises
    ------
    KeyError
        If no study has that name; the message lists the known ones.
    """
    if name not in study_names():
        raise KeyError(f"unknown study {name!r}; known studies: {', '.join(study_names())}")
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
