"""The studies: each module here is one study, runnable as ``ssa-privacy run <name>``.

A study module defines

- ``DESCRIPTION`` (one line, shown by ``ssa-privacy list``),
- ``add_arguments(parser)`` adding its own command-line options, each validated by an
  ``argparse`` type (:mod:`ssa_privacy.studies._options`); a study offers only the
  options it uses,
- optionally ``USES_SEED = False`` for a deterministic study (the command line then
  does not offer ``--seed``),
- optionally ``USES_RUNNER = True`` for a study whose work runs through a
  :class:`~ssa_privacy.engine.runner.Runner` (the command line then offers ``--workers``,
  ``--scheduler``, ``--dask-local`` and ``--resume``, and passes ``runner=``), and
- ``run(out, seed, progress, **options)`` writing figures and results into ``out``
  through :class:`ssa_privacy.engine.output.StudyOutput` and returning a summary dict;
  decorated with :func:`ssa_privacy.engine.transaction.transactional`, so that ``out`` is replaced
  as a whole only when the run completes.

The command line adds ``--out``, ``--seed`` (unless ``USES_SEED`` is False),
``--no-progress`` and ``--debug`` to every study.

The study's command-line name is the module name with ``_`` replaced by ``-``.
Modules whose names start with ``_`` are shared helpers, not studies. ``DESCRIPTION``,
``USES_SEED`` and ``USES_RUNNER`` must be literal assignments at module level: they are
read from the source without importing the study (:func:`study_info`), so that
``ssa-privacy --help`` and ``ssa-privacy list`` do not import the numerical stack.
"""

import ast
import importlib
import importlib.util
import pkgutil
from dataclasses import dataclass

__all__ = ["NOT_STUDIES", "StudyInfo", "load_study", "study_info", "study_names"]


#: Public modules of this package that are not studies.
NOT_STUDIES = frozenset({"scenario"})


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
        if not info.name.startswith("_") and info.name not in NOT_STUDIES
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


@dataclass(frozen=True)
class StudyInfo:
    """What the command line needs to know of a study before importing it.

    Parameters
    ----------
    description : str
        The study's ``DESCRIPTION``.
    uses_seed : bool
        ``USES_SEED`` (default True).
    uses_runner : bool
        ``USES_RUNNER`` (default False).
    """

    description: str
    uses_seed: bool = True
    uses_runner: bool = False


def study_info(name):
    """Read a study's ``DESCRIPTION``, ``USES_SEED`` and ``USES_RUNNER`` from its source.

    Parameters
    ----------
    name : str
        The study's command-line name.

    Returns
    -------
    StudyInfo
        The literal values assigned at the study module's top level.

    Raises
    ------
    KeyError
        If no study has that name.
    ValueError
        If the module has no literal ``DESCRIPTION``.
    """
    if name not in study_names():
        raise KeyError(f"unknown study {name!r}; known studies: {', '.join(study_names())}")
    spec = importlib.util.find_spec(f"{__name__}.{name.replace('-', '_')}")
    with open(spec.origin, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in _INFO_NAMES:
                values[_INFO_NAMES[target.id]] = ast.literal_eval(node.value)
    if "description" not in values:
        raise ValueError(f"study {name!r} has no literal DESCRIPTION")
    return StudyInfo(**values)


_INFO_NAMES = {
    "DESCRIPTION": "description",
    "USES_SEED": "uses_seed",
    "USES_RUNNER": "uses_runner",
}
