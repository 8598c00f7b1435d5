"""Deprecated import paths and names of ``ssa_privacy``, kept working until version 0.3.

The package was rebuilt around its pipeline in 0.2 (``docs/changelog.rst``). Every module
path and public name that moved keeps working through this one module:

- an old **module path** (``import ssa_privacy.runner``) is served by an import hook
  (:class:`_MovedModuleFinder`, installed by ``ssa_privacy/__init__.py``) as an alias of
  the new module, with a :class:`DeprecationWarning` naming the new place;
- an old **name** in a module that still exists (``ssa_privacy.plants.cw_plant``) is
  served by that module's ``__getattr__``, which calls :func:`moved_attribute`: from its
  new place (:data:`MOVED_NAMES`), or, for a function the package no longer has (a thin
  wrapper of a mechanism), from the legacy function kept at the end of this module
  (:data:`REPLACED_NAMES`, registered by :func:`_legacy`).

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
    "MOVED_NAMES",
    "REMOVAL",
    "REPLACED_NAMES",
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


#: (module, old name) -> (legacy function kept in this module, what to use instead).
REPLACED_NAMES = {}


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
        internal = frame.f_globals.get("__name__") in (__name__, "importlib")
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


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import hook serving :data:`MOVED_MODULES` as aliases of their new modules."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED_MODULES:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return _MovedModule(spec.name)

    def exec_module(self, module):
        new = MOVED_MODULES[module.__name__]
        _warn(module.__name__, new)
        module._target = importlib.import_module(new)


def install():
    """Put the old-path import hook in front of :data:`sys.meta_path` (once)."""
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedModuleFinder())


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


# Legacy functions: thin wrappers of the mechanisms, kept until 0.3. Each imports what it
# needs when called, so that ``import ssa_privacy`` stays light.

# --- synthetic noise [TCB] ---

#: Where the standalone release functions of [TCB] were importable (the package, the
#: module ``synthetic_noise.py`` of 0.1, now a subpackage, and its new ``mechanism``).
_SYNTHETIC_NOISE = (
    "ssa_privacy.privacy",
    "ssa_privacy.privacy.synthetic_noise",
    "ssa_privacy.privacy.synthetic_noise.mechanism",
)
_SYNTHETIC_NOISE_RELEASE = "SyntheticNoiseMechanism(...).release(y, seed=...)"

for _module in _SYNTHETIC_NOISE:
    MOVED_NAMES[_module, "PSDPart"] = "ssa_privacy.privacy.mechanism:FactoredCovariance"

#: No longer used since 0.1: certificates once passed down to ``-CERTIFICATE_RTOL *
#: lambda_min(Delta)``; their tolerance is now a rigorous bound on their rounding error.
_legacy(_SYNTHETIC_NOISE[1:], "CERTIFICATE_RTOL", "Certificate.tolerance")(1e-8)


@_legacy(_SYNTHETIC_NOISE, "release", _SYNTHETIC_NOISE_RELEASE)
def _synthetic_noise_release(y, factor, seed=None):
    """The released data ``W = y + Z``, ``Z ~ N(0, Sigma)`` [TCB] §4.1 (deprecated).

    .. deprecated:: 0.2
        Use ``SyntheticNoiseMechanism(...).release(y, seed=seed)``, which also certifies
        the release; removed in 0.3.

    Parameters
    ----------
    y : array_like, shape (n,)
        The owner's outputs.
    factor : FactoredCovariance
        Sigma in factored form.
    seed : int or numpy.random.Generator, optional
        Randomness; fresh entropy by default.

    Returns
    -------
    ndarray, shape (n,)
        W: the same draws as the mechanism's ``release(y, seed=seed).values``.

    Raises
    ------
    ValueError
        If y is not a finite vector of Sigma's size.
    """
    from ssa_privacy.privacy.mechanism import as_factored, data_vector
    from ssa_privacy.privacy.synthetic_noise.mechanism import sample_synthetic_noise

    factor = as_factored(factor, name="factor")
    y = data_vector(y, factor.eigenvectors.shape[0], "y")
    return y + sample_synthetic_noise(factor, seed=seed)


@_legacy(_SYNTHETIC_NOISE, "ObfuscationResult", "Release, from " + _SYNTHETIC_NOISE_RELEASE)
class ObfuscationResult(types.SimpleNamespace):
    """One release of the deprecated ``obfuscate`` (a :class:`Release` replaces it).

    Parameters
    ----------
    W : ndarray, shape (n,)
        Released outputs.
    Sigma : FactoredCovariance
        Synthetic-noise covariance, factored.
    certificate : float
        The margin of the release's certificate (relative, dimensionless).
    record : Certificate, optional
        The full certificate.
    """

    def __init__(self, W, Sigma, certificate, record=None):
        super().__init__(W=W, Sigma=Sigma, certificate=certificate, record=record)


@_legacy(
    _SYNTHETIC_NOISE,
    "obfuscate",
    "SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V).release(y, seed=seed)",
)
def _obfuscate(kernel, X, y, S0, alpha, V=None, seed=None):
    """Design Sigma_opt for a sensitive region, release and certify [TCB] §4.2 (deprecated).

    .. deprecated:: 0.2
        Use ``SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V).release(y,
        seed=seed)``, whose :class:`Release` carries the values, the noise and the
        certificate; removed in 0.3.

    Parameters
    ----------
    kernel : callable
        Prior kernel K.
    X : array_like, shape (n, d) or (n,)
        Training inputs.
    y : array_like, shape (n,)
        Training outputs.
    S0 : array_like, shape (s, d) or (s,)
        Dense finite subset of the sensitive region.
    alpha : float
        Privacy level in (0, 1) (``H = alpha K``; smaller is stronger).
    V : float or array_like, shape (n, n), optional
        Observation-noise covariance.
    seed : int or numpy.random.Generator, optional
        Randomness of the release; fresh entropy by default.

    Returns
    -------
    ObfuscationResult
        The release W, the factored noise, the certificate's margin and the certificate.

    Raises
    ------
    ValueError
        As :meth:`SyntheticNoiseMechanism.for_region` and its ``release``.
    """
    from ssa_privacy.privacy.synthetic_noise.mechanism import SyntheticNoiseMechanism

    mechanism = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    released = mechanism.release(y, seed=seed)
    record = released.certificate
    return ObfuscationResult(released.values, released.noise_covariance, record.margin, record)


# --- DP-GP [SMI] ---


def _dp_gp(old, new):
    """Where a DP-GP name was importable: its 0.1 module, its 0.2 module, the package."""
    return (old, f"ssa_privacy.privacy.dp_gp.{new}", "ssa_privacy.privacy.dp_gp")


_CLOAKING = _dp_gp("ssa_privacy.privacy.cloaking", "cloaking")
_CLOAKING_RELEASE = "CloakingMechanism.from_kernel(...).release(y, seed=seed)"

#: No longer used since 0.1 (the ellipsoid solver lost its Frank-Wolfe phase).
_legacy(_dp_gp("ssa_privacy.ellipsoid", "ellipsoid"), "COARSE_GAP", "nothing")(1e-5)


@_legacy(_dp_gp("ssa_privacy.privacy.dp_release", "release"), "DPRelease", "Release")
class DPRelease(types.SimpleNamespace):
    """One release of the deprecated DP-GP functions (a :class:`Release` replaces it).

    Parameters
    ----------
    values : ndarray, shape (m,)
        The released predictions (units of y).
    noise_covariance : ndarray, shape (m, m)
        Covariance of the noise added (squared units of y).
    check : PrivacyCheck
        The (epsilon, delta) guarantee and its verification.
    details : dict
        Diagnostics of the computation.
    """

    def __init__(self, values, noise_covariance, check, details):
        super().__init__(
            values=values, noise_covariance=noise_covariance, check=check, details=details
        )

    epsilon = property(lambda self: self.check.epsilon, doc="epsilon of the guarantee.")
    delta = property(lambda self: self.check.delta, doc="delta of the guarantee.")

    @property
    def noise_sd(self):
        """Standard deviation of the noise per test point, shape (m,)."""
        import numpy as np

        return np.sqrt(np.maximum(np.diag(self.noise_covariance), 0.0))

    def record(self):
        """The check as a flat dict for a results row (``PrivacyCheck.record``)."""
        return self.check.record()


def _dp_release(release, noise_covariance, details):
    """A mechanism's Release as the legacy :class:`DPRelease`."""
    from ssa_privacy.privacy.dp_gp.release import PrivacyCheck

    check = PrivacyCheck.from_certificate(release.certificate)
    return DPRelease(release.values, noise_covariance, check, details)


@_legacy(_CLOAKING, "cloaking_release", _CLOAKING_RELEASE)
def _cloaking_release(
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity, seed=None, **options
):
    """Cloaking release of GP predictions at ``X_star`` [SMI] §3 (deprecated).

    .. deprecated:: 0.2
        Use ``CloakingMechanism.from_kernel(kernel, noise_variance, X, X_star, epsilon,
        delta, sensitivity, calibration="hall").release(y, seed=seed)``; removed in 0.3.

    Parameters
    ----------
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity
        As ``CloakingMechanism.from_kernel`` and its ``release`` (y, shape (n,), units of
        y; X_star, shape (m, D) or (m,)).
    seed : None, int or numpy.random.Generator
        Randomness of the noise.
    **options
        ``mean``, ``calibration`` (here ``"hall"`` by default), ``rtol``, ``tol``.

    Returns
    -------
    DPRelease
        The mechanism's release, its dense noise covariance ``noise_scale^2 M`` (m, m)
        and the check of its certificate.

    Raises
    ------
    TypeError, ValueError
        As the mechanism.
    """
    from ssa_privacy._internal.random import random_generator
    from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism

    rng = random_generator(seed)
    options.setdefault("calibration", "hall")
    mechanism = CloakingMechanism.from_kernel(
        kernel, noise_variance, X, X_star, epsilon, delta, sensitivity, **options
    )
    release = mechanism.release(y, seed=rng)
    return _dp_release(release, mechanism.noise_scale**2 * mechanism.M, release.details)


@_legacy(_CLOAKING, "cloaking_noise_covariance", "CloakingMechanism(...).noise_covariance")
def _cloaking_noise_covariance(
    K_star_X, K_XX, noise_variance, epsilon, delta, *old_order, sensitivity=None, **options
):
    """Covariance ``noise_scale^2 M`` of the cloaking noise [SMI] §3 (deprecated).

    .. deprecated:: 0.2
        Use ``CloakingMechanism(K_star_X, K_XX, noise_variance, epsilon, delta,
        sensitivity, calibration="hall").noise_covariance``; removed in 0.3.

    Parameters
    ----------
    K_star_X, K_XX, noise_variance, epsilon, delta
        As the mechanism; shapes (m, n), (n, n), scalar or (n, n).
    *old_order : float
        The order of 0.1, ``(..., sensitivity, epsilon, delta)``: its sixth argument.
    sensitivity : float
        d (units of y), by keyword in the new order.
    **options
        ``calibration`` (here ``"hall"`` by default), ``rtol``, ``tol``.

    Returns
    -------
    ndarray, shape (m, m)
        The dense noise covariance (squared units of y).

    Raises
    ------
    TypeError
        If the sensitivity is missing or given twice.
    ValueError
        As the mechanism.
    """
    from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism

    if old_order:
        if len(old_order) != 1 or sensitivity is not None:
            raise TypeError("cloaking_noise_covariance: sensitivity given twice")
        sensitivity, epsilon, delta = epsilon, delta, old_order[0]
    if sensitivity is None:
        raise TypeError("cloaking_noise_covariance() needs the keyword argument 'sensitivity'")
    options.setdefault("calibration", "hall")
    mechanism = CloakingMechanism(
        K_star_X, K_XX, noise_variance, epsilon, delta, sensitivity, **options
    )
    return mechanism.noise_scale**2 * mechanism.M


@_legacy(
    _dp_gp("ssa_privacy.privacy.hall", "hall"),
    "standard_release",
    "StandardDPGPMechanism.from_kernel(...).release(y, seed=seed)",
)
def _standard_release(
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity, seed=None, **options
):
    """Hall et al.'s standard DP-GP release [SMI] §2 (deprecated).

    .. deprecated:: 0.2
        Use ``StandardDPGPMechanism.from_kernel(kernel, noise_variance, X, X_star, epsilon,
        delta, sensitivity, calibration="hall").release(y, seed=seed)``; removed in 0.3.

    Parameters
    ----------
    kernel, noise_variance, X, y, X_star, epsilon, delta, sensitivity
        As ``StandardDPGPMechanism.from_kernel`` and its ``release``.
    seed : None, int or numpy.random.Generator
        Randomness of the noise.
    **options
        ``method``, ``mean``, ``calibration`` (here ``"hall"`` by default).

    Returns
    -------
    DPRelease
        The mechanism's release, its dense noise covariance (m, m) and the check of its
        certificate.

    Raises
    ------
    TypeError, ValueError
        As the mechanism.
    """
    from ssa_privacy._internal.random import random_generator
    from ssa_privacy.privacy.dp_gp.hall import StandardDPGPMechanism

    rng = random_generator(seed)
    options.setdefault("calibration", "hall")
    mechanism = StandardDPGPMechanism.from_kernel(
        kernel, noise_variance, X, X_star, epsilon, delta, sensitivity, **options
    )
    release = mechanism.release(y, seed=rng)
    kept = ("rkhs_sensitivity", "noise_scale", "jitter", "prior_jitter")
    details = {key: release.details[key] for key in kept}
    return _dp_release(release, mechanism.noise_covariance.matrix(), details)


@_legacy(
    _dp_gp("ssa_privacy.privacy.binning", "binning"),
    "laplace_bin_means",
    "LaplaceBinningMechanism(X, edges, epsilon, sensitivity).release(y, seed=seed)",
)
def _laplace_bin_means(X, y, edges, epsilon, sensitivity, seed=None):
    """DP bin means with the Laplace mechanism [SMI] §4 (deprecated).

    .. deprecated:: 0.2
        Use ``LaplaceBinningMechanism(X, edges, epsilon, sensitivity).release(y,
        seed=seed)``, whose ``details["binned"]`` this returns; removed in 0.3.

    Parameters
    ----------
    X, y, edges, epsilon, sensitivity
        As the mechanism and its ``release`` (X, shape (n, D) or (n,); y, shape (n,)).
    seed : None, int or numpy.random.Generator
        Randomness of the noise.

    Returns
    -------
    BinnedRelease
        The bin means and their check.

    Raises
    ------
    TypeError, ValueError
        As the mechanism.
    """
    from ssa_privacy._internal.random import random_generator
    from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism

    rng = random_generator(seed)
    mechanism = LaplaceBinningMechanism(X, edges, epsilon, sensitivity)
    return mechanism.release(y, seed=rng).details["binned"]


@_legacy(("ssa_privacy.privacy.dp_gp",), "cloaking_dual", "ellipsoid.d_optimal_design")
def _cloaking_dual(points, tol=1e-8, max_iter=100_000):
    """The D-optimal design dual of the cloaking noise (deprecated).

    .. deprecated:: 0.2
        Use ``ssa_privacy.privacy.dp_gp.ellipsoid.d_optimal_design`` (same arguments and
        results); removed in 0.3.

    Parameters
    ----------
    points : ndarray, shape (r, n)
        Columns spanning R^r.
    tol, max_iter
        Tolerance of the duality gap and limit on interior-point steps.

    Returns
    -------
    tuple
        ``(lambdas, g, gap, iterations)`` of ``d_optimal_design``.
    """
    from ssa_privacy.privacy.dp_gp.ellipsoid import d_optimal_design

    return d_optimal_design(points, tol=tol, max_iter=max_iter)


@_legacy(
    ("ssa_privacy.privacy.accounting", "ssa_privacy.privacy.pml"),
    "analytic_gaussian_delta",
    "ssa_privacy.privacy.accounting.gaussian_mechanism_delta(ratio, epsilon_DP)",
)
def _analytic_gaussian_delta(epsilon_DP, ratio):
    """delta of the Gaussian mechanism in [LKC]'s argument order (deprecated).

    .. deprecated:: 0.2
        Use ``gaussian_mechanism_delta(ratio, epsilon_DP)``; removed in 0.3.

    Parameters
    ----------
    epsilon_DP : float
        Differential-privacy epsilon, >= 0.
    ratio : float or array_like
        Sensitivity over noise standard deviation, >= 0.

    Returns
    -------
    float or ndarray
        The exact delta [BW18] Theorem 8.

    Raises
    ------
    ValueError
        If an argument is negative or not finite.
    """
    from ssa_privacy.privacy.accounting import gaussian_mechanism_delta

    return gaussian_mechanism_delta(ratio, epsilon_DP)


# --- posterior sampling [MAC] ---

# --- PML [LKC] and sensors ---

#: Where the pass noise of 0.1 was importable: the module ``pass_privacy.py`` of 0.1, its
#: new place ``privacy.pml.passes`` and the package ``privacy.pml``, which star-imports it.
_PASSES = ("ssa_privacy.pass_privacy", "ssa_privacy.privacy.pml.passes", "ssa_privacy.privacy.pml")
_PASS_DESIGN = "PassMechanism.design(item, Sigma_XX, epsilon, delta, designer=...)"


@_legacy(_PASSES, "PassNoise", "ssa_privacy.privacy.pml.passes.PassMechanism")
class PassNoise(types.SimpleNamespace):
    """The noise of one pass as the deprecated ``pass_noise`` returned it.

    .. deprecated:: 0.2
        A :class:`~ssa_privacy.privacy.pml.passes.PassMechanism` replaces it: the same
        ``factor``, ``stream``, ``leakage`` and ``designer``, ``certificate()`` a method,
        ``Theta`` the covariance, ``release(y, seed=...)`` the sampling; removed in 0.3.

    Parameters
    ----------
    factor : ndarray, shape (4 K, r)
        F with noise covariance ``F F^T`` of the pass's stacked releases.
    stream : ReleaseStream
        The adversary's stream of the pass about x0 (privacy noise alone).
    leakage : StreamLeakage
        Its PML at the design's delta.
    designer : str
        ``"logdet"`` or ``"scaled"``.
    certificate : Certificate
        The passing certificate of ``stream`` for the pass budget.
    """

    def __init__(self, factor, stream, leakage, designer, certificate):
        super().__init__(
            factor=factor, stream=stream, leakage=leakage, designer=designer, certificate=certificate
        )

    @property
    def covariance(self):
        """The noise covariance ``F F^T``, shape (4 K, 4 K)."""
        return self.factor @ self.factor.T

    def sample(self, normals):
        """``F normals[:r]``: a draw of the noise from standard normals, shape (4 K,).

        Parameters
        ----------
        normals : ndarray, shape (4 K,)
            Independent standard normal numbers; the first r are used.

        Returns
        -------
        ndarray, shape (4 K,)
            The noise.
        """
        return self.factor @ normals[: self.factor.shape[1]]


@_legacy(_PASSES, "pass_noise", _PASS_DESIGN)
def _pass_noise(item, Sigma_XX, epsilon, delta, designer="logdet", convention="exact"):
    """Noise for one pass that meets an (epsilon, delta)-PML budget for the whole pass.

    .. deprecated:: 0.2
        Use ``PassMechanism.design(item, Sigma_XX, epsilon, delta, designer=designer,
        convention=convention)``, a mechanism whose ``release`` adds the noise and
        certifies the pass; removed in 0.3.

    Parameters
    ----------
    item : Pass
        The pass: its maps ``C`` (K, 4, 6) and sensor noise covariance ``R`` (4, 4).
    Sigma_XX : array_like, shape (6, 6)
        Prior covariance of x0, positive definite.
    epsilon, delta : float
        The pass budget (nats) and its failure probability.
    designer : {"logdet", "scaled"}
        Which design.
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    PassNoise
        The designed mechanism's factor, stream, leakage, designer and certificate.

    Raises
    ------
    ValueError, RuntimeError
        As :meth:`~ssa_privacy.privacy.pml.passes.PassMechanism.design`.
    """
    from ssa_privacy.privacy.pml.passes import PassMechanism

    mechanism = PassMechanism.design(
        item, Sigma_XX, epsilon, delta, designer=designer, convention=convention
    )
    return PassNoise(
        mechanism.factor,
        mechanism.stream,
        mechanism.leakage,
        mechanism.designer,
        mechanism.certificate(),
    )
