"""Deprecated import paths and names of ``ssa_privacy``, kept working until version 0.3.

The package was rebuilt around its pipeline in 0.2 (``docs/changelog.rst``). Every module
path and public name that moved keeps working through this one package, and through
nothing else: no module of the package imports this one (a test parses every module's
imports); ``ssa_privacy/__init__.py`` installs its import hook, :class:`_CompatFinder`,
once, at its end (:func:`install`). The hook serves

- an old **module path** (``import ssa_privacy.runner``) as an alias of the new module,
  with a :class:`DeprecationWarning` naming the new place;
- an old **name** of a module that still exists (``ssa_privacy.plants.cw_plant``): when
  such a module is imported, the hook gives it a module ``__getattr__`` that calls
  :func:`moved_attribute`, which serves the name from its new place
  (:data:`MOVED_NAMES`), or, for a function the package no longer has (a thin wrapper
  of a mechanism), the legacy function kept in this package (:data:`REPLACED_NAMES`,
  registered by :func:`_legacy` in this package's modules, one per family of
  mechanisms); the package of an old module path serves it as an attribute too;
- an old **method name** (``ReleaseStream.merge``): when its class's module is imported,
  the hook sets the legacy method kept in this package on the class
  (:data:`REPLACED_METHODS`, registered by :func:`_legacy_method`);
- an old **call form** (an argument that is gone, a tuple in place of an object): when
  the function's module is imported, the hook puts an adapter in the function's place
  that accepts the old form with a warning (:data:`LEGACY_CALLS`, registered by
  :func:`_legacy_call`).

Nothing inside the package imports an old path (a test walks every module's imports).
Private names (a leading underscore) were never part of the interface and are not kept.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

__all__ = [
    "MOVED_MODULES",
    "LEGACY_CALLS",
    "MOVED_NAMES",
    "REMOVAL",
    "REPLACED_METHODS",
    "REPLACED_NAMES",
    "deprecated_argument",
    "install",
    "moved_attribute",
]

#: The version that will remove the old paths and names.
REMOVAL = "0.3"

#: Old module path -> new module path.
MOVED_MODULES = {
    "ssa_privacy.aggregation": "ssa_privacy.privacy.pml.aggregation",
    "ssa_privacy.baselines": "ssa_privacy.gp.baselines",
    "ssa_privacy.catalog": "ssa_privacy.orbits.catalog",
    "ssa_privacy.catalog_filter": "ssa_privacy.estimation.ekf",
    "ssa_privacy.catalog_tracking": "ssa_privacy.sensors.streams",
    "ssa_privacy.checkpoints": "ssa_privacy.engine.checkpoints",
    "ssa_privacy.dask_backend": "ssa_privacy.engine.dask_backend",
    "ssa_privacy.data": "ssa_privacy.engine.data",
    "ssa_privacy.ellipsoid": "ssa_privacy.privacy.dp_gp.ellipsoid",
    "ssa_privacy.figure_set": "ssa_privacy.engine.figures",
    "ssa_privacy.gp_fit": "ssa_privacy.gp.fit",
    "ssa_privacy.kernels": "ssa_privacy.gp.kernels",
    "ssa_privacy.output": "ssa_privacy.engine.output",
    "ssa_privacy.output_set": "ssa_privacy.engine.transaction",
    "ssa_privacy.pass_privacy": "ssa_privacy.privacy.pml.passes",
    "ssa_privacy.privacy.binning": "ssa_privacy.privacy.dp_gp.binning",
    "ssa_privacy.privacy.cloaking": "ssa_privacy.privacy.dp_gp.cloaking",
    "ssa_privacy.privacy.dp_release": "ssa_privacy.privacy.dp_gp.release",
    "ssa_privacy.privacy.gaussian_delta": "ssa_privacy.privacy.dp_gp.gaussian_delta",
    "ssa_privacy.privacy.hall": "ssa_privacy.privacy.dp_gp.hall",
    "ssa_privacy.privacy.hyperparameters": "ssa_privacy.privacy.dp_gp.hyperparameters",
    "ssa_privacy.privacy.laplace_certificate": "ssa_privacy.privacy.dp_gp.laplace",
    "ssa_privacy.privacy.normalisation": "ssa_privacy.privacy.dp_gp.normalisation",
    "ssa_privacy.privacy.pml_certificate": "ssa_privacy.privacy.pml.certificate",
    "ssa_privacy.privacy.pml_cone_design": "ssa_privacy.privacy.pml.cone_design",
    "ssa_privacy.privacy.pml_design": "ssa_privacy.privacy.pml.design",
    "ssa_privacy.privacy.pml_information_certificate": "ssa_privacy.privacy.pml.information_form",
    "ssa_privacy.privacy.pml_leakage": "ssa_privacy.privacy.pml.leakage",
    "ssa_privacy.privacy.pml_plant": "ssa_privacy.privacy.pml.plant",
    "ssa_privacy.privacy.pml_stream": "ssa_privacy.privacy.pml.stream",
    "ssa_privacy.privacy.pml_stream_design": "ssa_privacy.privacy.pml.stream_design",
    "ssa_privacy.privacy.posterior_sampling_bound": "ssa_privacy.privacy.posterior_sampling.bound",
    "ssa_privacy.privacy.posterior_sampling_certificate": "ssa_privacy.privacy.posterior_sampling.certificate",
    "ssa_privacy.privacy.posterior_sampling_enclosure": "ssa_privacy.privacy.posterior_sampling.enclosure",
    "ssa_privacy.privacy.synthetic_noise_certificate": "ssa_privacy.privacy.synthetic_noise.certificate",
    "ssa_privacy.privacy.synthetic_noise_design": "ssa_privacy.privacy.synthetic_noise.design",
    "ssa_privacy.privacy.synthetic_noise_lanczos": "ssa_privacy.privacy.synthetic_noise.lanczos",
    "ssa_privacy.privacy.synthetic_noise_tightening": "ssa_privacy.privacy.synthetic_noise.tightening",
    "ssa_privacy.relative_motion": "ssa_privacy.orbits.relative_motion",
    "ssa_privacy.runner": "ssa_privacy.engine.runner",
    "ssa_privacy.sensors.passes": "ssa_privacy.sensors.visibility",
    "ssa_privacy.sensors.radar_network": "ssa_privacy.sensors.networks",
    "ssa_privacy.sensors.tracking": "ssa_privacy.estimation.ukf",
    "ssa_privacy.tle": "ssa_privacy.orbits.tle",
    "ssa_privacy.tle_format": "ssa_privacy.orbits.tle_format",
}

#: (module, old name) -> "new.module:name": public names that left a module that remains.
MOVED_NAMES = {
    ("ssa_privacy.attacks.membership", "DEFAULT_FPRS"): "ssa_privacy.attacks.roc:DEFAULT_FPRS",
    ("ssa_privacy.attacks.membership", "AttackResult"): "ssa_privacy.attacks.roc:AttackResult",
    ("ssa_privacy.attacks.membership", "auc_score"): "ssa_privacy.attacks.roc:auc_score",
    (
        "ssa_privacy.attacks.membership",
        "evaluate_attack",
    ): "ssa_privacy.attacks.roc:evaluate_attack",
    (
        "ssa_privacy.attacks.membership",
        "max_auc_under_dp",
    ): "ssa_privacy.attacks.roc:max_auc_under_dp",
    (
        "ssa_privacy.attacks.membership",
        "max_tpr_under_dp",
    ): "ssa_privacy.attacks.roc:max_tpr_under_dp",
    ("ssa_privacy.attacks.membership", "roc_curve"): "ssa_privacy.attacks.roc:roc_curve",
    ("ssa_privacy.attacks.membership", "tpr_at_fpr"): "ssa_privacy.attacks.roc:tpr_at_fpr",
    (
        "ssa_privacy.engine.output",
        "check_output_folder",
    ): "ssa_privacy.engine.transaction:check_output_folder",
    (
        "ssa_privacy.engine.output",
        "output_transaction",
    ): "ssa_privacy.engine.transaction:output_transaction",
    ("ssa_privacy.engine.output", "transactional"): "ssa_privacy.engine.transaction:transactional",
    ("ssa_privacy.orbits", "J2_EARTH"): "ssa_privacy.constants:J2_EARTH",
    ("ssa_privacy.orbits", "MU_EARTH"): "ssa_privacy.constants:MU_EARTH",
    ("ssa_privacy.orbits", "R_EARTH"): "ssa_privacy.constants:R_EARTH",
    (
        "ssa_privacy.plants",
        "clohessy_wiltshire",
    ): "ssa_privacy.orbits.relative_motion:clohessy_wiltshire",
    ("ssa_privacy.plants", "cw_plant"): "ssa_privacy.orbits.relative_motion:cw_plant",
    (
        "ssa_privacy.plants",
        "station_keeping_gain",
    ): "ssa_privacy.orbits.relative_motion:station_keeping_gain",
    (
        "ssa_privacy.privacy.cloaking",
        "cloaking_lambdas_gradient",
    ): "ssa_privacy.privacy.dp_gp.ellipsoid:projected_gradient_design",
    (
        "ssa_privacy.privacy.cloaking",
        "optimal_cloaking_covariance",
    ): "ssa_privacy.privacy.dp_gp.ellipsoid:minimum_volume_ellipsoid",
    ("ssa_privacy.privacy.dp_gp", "CALIBRATIONS"): "ssa_privacy.privacy.accounting:CALIBRATIONS",
    (
        "ssa_privacy.privacy.dp_gp",
        "CloakingSolution",
    ): "ssa_privacy.privacy.dp_gp.ellipsoid:MinimumVolumeEllipsoid",
    ("ssa_privacy.privacy.dp_gp", "c_delta"): "ssa_privacy.privacy.accounting:c_delta",
    (
        "ssa_privacy.privacy.dp_gp",
        "cloaking_lambdas_gradient",
    ): "ssa_privacy.privacy.dp_gp.ellipsoid:projected_gradient_design",
    (
        "ssa_privacy.privacy.dp_gp",
        "gaussian_mechanism_delta",
    ): "ssa_privacy.privacy.accounting:gaussian_mechanism_delta",
    (
        "ssa_privacy.privacy.dp_gp",
        "noise_multiplier",
    ): "ssa_privacy.privacy.accounting:noise_multiplier",
    (
        "ssa_privacy.privacy.dp_gp",
        "optimal_cloaking_covariance",
    ): "ssa_privacy.privacy.dp_gp.ellipsoid:minimum_volume_ellipsoid",
    (
        "ssa_privacy.privacy.dp_gp",
        "privacy_loss_tail",
    ): "ssa_privacy.privacy.accounting:privacy_loss_tail",
    ("ssa_privacy.privacy.pml", "CONVENTIONS"): "ssa_privacy.privacy.notions:CONVENTIONS",
    (
        "ssa_privacy.privacy.pml",
        "analytic_gaussian_ratio",
    ): "ssa_privacy.privacy.accounting:analytic_gaussian_ratio",
    ("ssa_privacy.privacy.pml", "check_epsilon"): "ssa_privacy.privacy.accounting:check_epsilon",
    (
        "ssa_privacy.privacy.pml",
        "dp_to_pml_epsilon",
    ): "ssa_privacy.privacy.accounting:dp_to_pml_epsilon",
    (
        "ssa_privacy.privacy.pml",
        "gaussian_mechanism_dp_delta",
    ): "ssa_privacy.privacy.accounting:gaussian_mechanism_dp_delta",
    (
        "ssa_privacy.privacy.pml",
        "log_det_ratio_bound",
    ): "ssa_privacy.privacy.accounting:log_det_ratio_bound",
    (
        "ssa_privacy.privacy.pml",
        "mi_to_pml_epsilon",
    ): "ssa_privacy.privacy.accounting:mi_to_pml_epsilon",
    (
        "ssa_privacy.privacy.pml",
        "minimum_epsilon",
    ): "ssa_privacy.privacy.accounting:minimum_epsilon",
    (
        "ssa_privacy.privacy.pml",
        "pml_to_dp_delta",
    ): "ssa_privacy.privacy.accounting:pml_to_dp_delta",
    (
        "ssa_privacy.privacy.pml",
        "pml_to_mi_epsilon",
    ): "ssa_privacy.privacy.accounting:pml_to_mi_epsilon",
    (
        "ssa_privacy.privacy.pml.leakage",
        "CONVENTIONS",
    ): "ssa_privacy.privacy.notions:CONVENTIONS",
    (
        "ssa_privacy.privacy.pml.leakage",
        "check_epsilon",
    ): "ssa_privacy.privacy.accounting:check_epsilon",
    (
        "ssa_privacy.privacy.pml.leakage",
        "log_det_ratio_bound",
    ): "ssa_privacy.privacy.accounting:log_det_ratio_bound",
    (
        "ssa_privacy.privacy.pml.leakage",
        "minimum_epsilon",
    ): "ssa_privacy.privacy.accounting:minimum_epsilon",
    ("ssa_privacy.sensors", "FIRST_STEP"): "ssa_privacy.estimation.ukf:FIRST_STEP",
    ("ssa_privacy.sensors", "OMEGA_EARTH"): "ssa_privacy.constants:OMEGA_EARTH",
    ("ssa_privacy.sensors", "OrbitTracker"): "ssa_privacy.estimation.ukf:OrbitTracker",
    (
        "ssa_privacy.sensors",
        "SIGMA_POINT_PARAMETERS",
    ): "ssa_privacy.estimation.ukf:SIGMA_POINT_PARAMETERS",
    ("ssa_privacy.sensors", "WGS84_A"): "ssa_privacy.constants:WGS84_A",
    ("ssa_privacy.sensors", "WGS84_F"): "ssa_privacy.constants:WGS84_F",
    ("ssa_privacy.sensors", "measurement_mean"): "ssa_privacy.estimation.ukf:measurement_mean",
    (
        "ssa_privacy.sensors",
        "measurement_residual",
    ): "ssa_privacy.estimation.ukf:measurement_residual",
}


#: (module, old name) -> (legacy function kept in this package, what to use instead).
REPLACED_NAMES = {}

#: (module, class, old method name) -> legacy method kept in this package (it warns).
REPLACED_METHODS = {}

#: (module, qualified name) -> adapter: ``adapter(function)`` is the function that also
#: takes its deprecated call forms (a tuple of old arguments, a dropped argument), warns
#: and calls ``function``; set in its place when ``module`` is imported.
LEGACY_CALLS = {}


def _legacy(modules, name, instead):
    """Register the decorated function as the legacy ``name`` of each of ``modules``.

    Parameters
    ----------
    modules : tuple of str
        Every module path the name was importable from (old and new paths).
    name : str
        The old name.
    instead : str
        What to use instead, named in the warning.

    Returns
    -------
    callable
        The decorator.
    """

    def register(function):
        for module in modules:
            REPLACED_NAMES[(module, name)] = (function, instead)
        return function

    return register


def _legacy_method(module, owner):
    """Register the decorated function as the legacy method of the class ``owner``.

    The method keeps its name and is set on the class when ``module`` is imported, as if
    defined there (so that it pickles by reference); it warns itself (:func:`_warn`) when
    called.

    Parameters
    ----------
    module : str
        The module that defines the class.
    owner : str
        The name of the class in ``module``.

    Returns
    -------
    callable
        The decorator.
    """

    def register(function):
        function.__module__, function.__qualname__ = module, f"{owner}.{function.__name__}"
        REPLACED_METHODS[(module, owner, function.__name__)] = function
        return function

    return register


def _legacy_call(module, qualname):
    """Register the decorated adapter of the function ``qualname`` of ``module``.

    Parameters
    ----------
    module : str
        The module that defines the function (or the method's class).
    qualname : str
        The function's qualified name, e.g. ``"J2Propagator.transition_matrices"``.

    Returns
    -------
    callable
        The decorator; the adapter takes the function and returns its replacement.
    """

    def register(adapter):
        LEGACY_CALLS[(module, qualname)] = adapter
        return adapter

    return register


def _caller_stacklevel():
    """The ``stacklevel`` of the first frame outside the import system and the old-name hooks.

    :func:`warnings.warn` does not count the import system's frames itself.
    """
    level = 1
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
            continue
        module = frame.f_globals.get("__name__", "")
        internal = module == "importlib" or (module + ".").startswith(__name__ + ".")
        if not internal and frame.f_code.co_name != "__getattr__":
            break
        frame = frame.f_back
        level += 1
    return level


def _warn(old, new):
    warnings.warn(
        f"{old} is deprecated and will be removed in ssa_privacy {REMOVAL}; use {new}",
        DeprecationWarning,
        stacklevel=_caller_stacklevel(),
    )


class _MovedModule(types.ModuleType):
    """An old module path: every attribute is read from the module's new place."""

    def __getattr__(self, name):
        target = self.__dict__.get("_target")
        if target is None:
            raise AttributeError(name)
        try:
            return getattr(target, name)
        except AttributeError:
            return moved_attribute(self.__name__, name)

    def __dir__(self):
        return dir(self.__dict__["_target"])


class _KeepsPublicNames(types.ModuleType):
    """A package whose public names no old submodule path of the same name replaces.

    Importing a submodule binds it to its package's attribute of the same name; an old
    path such as ``ssa_privacy.sensors.passes`` would thus replace the function
    ``ssa_privacy.sensors.passes`` for the whole process."""

    def __setattr__(self, name, value):
        if isinstance(value, _MovedModule) and name in self.__dict__.get("__all__", ()):
            return
        super().__setattr__(name, value)


def _served_modules():
    """The modules that serve an old name: a moved or replaced name, an old submodule path.

    Returns
    -------
    set of str
        The module names (old module paths excluded: :class:`_MovedModule` serves those).
    """
    modules = {module for module, _ in MOVED_NAMES} | {module for module, _ in REPLACED_NAMES}
    modules |= {old.rpartition(".")[0] for old in MOVED_MODULES}
    return modules - set(MOVED_MODULES)


def _serve(module):
    """Give a module that was just imported its old names and its classes' old methods.

    Parameters
    ----------
    module : module
        A module of :func:`_served_modules` or of :data:`REPLACED_METHODS`.
    """
    name = module.__name__
    if name in _served_modules():

        def __getattr__(attribute):
            """Serve the names that moved in 0.2 from their old place (with a warning)."""
            return moved_attribute(name, attribute)

        module.__getattr__ = __getattr__
    for (owner, cls, method), function in REPLACED_METHODS.items():
        if owner == name:
            setattr(getattr(module, cls), method, function)
    for (owner, qualname), adapter in LEGACY_CALLS.items():
        if owner == name:
            *path, attribute = qualname.split(".")
            parent = module
            for part in path:
                parent = getattr(parent, part)
            setattr(parent, attribute, adapter(getattr(parent, attribute)))


class _ServingLoader:
    """The loader of a module that serves old names: its own loader, then :func:`_serve`.

    Everything but ``exec_module`` is the own loader's (``get_source``, resources...).
    """

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _serve(module)


class _CompatFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import hook: old module paths as aliases, old names where a module is imported.

    An old module path of :data:`MOVED_MODULES` is loaded by this finder as a
    :class:`_MovedModule`; a module that serves old names (:func:`_served_modules`,
    :data:`REPLACED_METHODS`, :data:`LEGACY_CALLS`) is found by the finders after this one and loaded by its
    own loader, wrapped in a :class:`_ServingLoader`.
    """

    def __init__(self):
        self.served = (
            _served_modules()
            | {module for module, _, _ in REPLACED_METHODS}
            | {module for module, _ in LEGACY_CALLS}
        )

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED_MODULES:
            return importlib.machinery.ModuleSpec(fullname, self)
        if fullname not in self.served:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _ServingLoader(spec.loader)
                return spec
        return None

    def create_module(self, spec):
        return _MovedModule(spec.name)

    def exec_module(self, module):
        new = MOVED_MODULES[module.__name__]
        _warn(module.__name__, new)
        module._target = importlib.import_module(new)
        package, _, child = module.__name__.rpartition(".")
        if child in getattr(sys.modules[package], "__all__", ()):
            sys.modules[package].__class__ = _KeepsPublicNames


def deprecated_argument(function, argument, instead, stacklevel):
    """Warn that ``argument`` of ``function`` is deprecated (it is accepted until 0.3).

    Parameters
    ----------
    function : str
        The function or method, e.g. ``"J2Propagator.transition_matrices"``.
    argument : str
        The deprecated argument.
    instead : str
        What to do instead, named in the warning.
    stacklevel : int
        ``stacklevel`` of :func:`warnings.warn` seen from the caller of this function
        (2 for the direct caller of ``function``).
    """
    warnings.warn(
        f"the argument {argument!r} of {function} is deprecated and will be removed in "
        f"ssa_privacy {REMOVAL}; use {instead}",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def install():
    """Put the import hook in front of :data:`sys.meta_path` (once).

    Called by ``ssa_privacy/__init__.py`` at its end; the modules that serve old names
    and are already imported (the package itself) are served at once.
    """
    if any(isinstance(finder, _CompatFinder) for finder in sys.meta_path):
        return
    finder = _CompatFinder()
    sys.meta_path.insert(0, finder)
    for name in finder.served & set(sys.modules):
        _serve(sys.modules[name])


def moved_attribute(module, name):
    """Serve an old name or submodule of ``module`` from its new place, with a warning.

    Parameters
    ----------
    module : str
        The module whose ``__getattr__`` was called, e.g. ``"ssa_privacy.plants"``.
    name : str
        The attribute asked for.

    Returns
    -------
    object
        The object at its new place.

    Raises
    ------
    AttributeError
        If ``name`` never lived in ``module``.
    """
    replaced = REPLACED_NAMES.get((module, name))
    if replaced is not None:
        function, instead = replaced
        _warn(f"{module}.{name}", instead)
        return function
    target = MOVED_NAMES.get((module, name))
    if target is not None:
        new_module, _, new_name = target.partition(":")
        _warn(f"{module}.{name}", f"{new_module}.{new_name}")
        return getattr(importlib.import_module(new_module), new_name)
    if f"{module}.{name}" in MOVED_MODULES:
        return importlib.import_module(f"{module}.{name}")
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


# The legacy names register themselves on import; they import nothing heavy.
from ssa_privacy._compat import (  # noqa: E402, F401
    dp_gp,
    estimation,
    orbits,
    pml,
    posterior_sampling,
    synthetic_noise,
)
