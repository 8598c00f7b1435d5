"""The studies: each module here is one study, runnable as ``ssa-privacy run <name>``.

A study module defines

- ``DESCRIPTION`` (one line, shown by ``ssa-privacy list``),
- ``add_arguments(parser)`` adding its own command-line options, each validated by an
  ``argparse`` type (:mod:`ssa_privacy.studies._options`); a study offers only the
  options it uses,
- optionally ``USES_SEED = False`` for a deterministic study (the command line then
  does not offer ``--seed``), and
- ``run(out, seed, progress, **options)`` writing figures and results into ``out``
  through :class:`ssa_privacy.output.StudyOutput` and returning a summary dict;
  decorated with :func:`ssa_privacy.output.transactional`, so that ``out`` is replaced
  as a whole only when the run completes.

The command line adds ``--out``, ``--seed`` (unless ``USES_SEED`` is False),
``--no-progress`` and ``--debug`` to every study.

The study's command-line name is the module name with ``_`` replaced by ``-``.
Modules whose names start with ``_`` are shared helpers, not studies.
"""

import importlib
import pkgutil


def study_names():
    """Return the command-line names of all studies, sorted.

    Returns
    -------
    list of str
        The names, e.g. ``"pml-bounds"`` for the module ``pml_bounds``.
    """
    return sorted(
        info.name.replace("_", "-")
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    )


def load_study(name):
    """Import and return the module of the study called ``name``.

    Parameters
    ----------
    name : str
        The study's command-line name (see :func:`study_names`).

    Returns
    -------
    module
        The study's module.

    Raises
    ------
    KeyError
        If no study has that name; the message lists the known ones.
    """
    if name not in study_names():
        raise KeyError(f"unknown study {name!r}; known studies: {', '.join(study_names())}")
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
