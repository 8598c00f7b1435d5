"""Legacy names of GP posterior sampling [MAC], kept until 0.3.

Each imports what it needs when called, so that ``import ssa_privacy`` stays light.
"""

from ssa_privacy._compat import MOVED_NAMES, _legacy

#: Served through :data:`ssa_privacy._compat.REPLACED_NAMES` only.
__all__ = []

#: The bound module of 0.1 re-exported the enclosure of its epsilon.
MOVED_NAMES["ssa_privacy.privacy.posterior_sampling_bound", "epsilon_enclosure_exp_1d"] = (
    "ssa_privacy.privacy.posterior_sampling.enclosure:epsilon_enclosure_exp_1d"
)


@_legacy(
    ("ssa_privacy.privacy.posterior_sampling",),
    "sample_posterior_paths_exp_1d",
    "PosteriorSamplingMechanism(X, grid, epsilon, delta, lengthscale=..., ridge=..., "
    "sigma=sigma, paths=paths, eta=eta, sampler='matheron').release(y, seed=seed)",
)
def _sample_posterior_paths_exp_1d(
    X, y, grid, *, lengthscale, ridge, sigma, paths=1, eta=0.0, seed=None
):
    """Posterior sample paths on a grid, 1-D exponential kernel [MAC §2] (deprecated).

    .. deprecated:: 0.2
        Use ``PosteriorSamplingMechanism(X, grid, epsilon, delta, lengthscale=lengthscale,
        ridge=ridge, sigma=sigma, paths=paths, eta=eta, sampler="matheron").release(y,
        seed=seed)``: the same draws, with the certificate of the release; removed in 0.3.

    Parameters
    ----------
    X : array_like, shape (n,)
        Training inputs (private).
    y : array_like, shape (n,)
        Training responses (private).
    grid : array_like, shape (m,)
        Where the paths are released.
    lengthscale : float
        l of the kernel ``exp(-|x - x'| / l)``.
    ridge : float
        Effective ridge r > 0.
    sigma : float
        Posterior scale (> 0, finite).
    paths : int
        Number L of independent paths.
    eta : float
        Scale of an added prior path (Proposition 2).
    seed : int or numpy.random.Generator, optional
        Randomness; fresh entropy by default.

    Returns
    -------
    ndarray, shape (paths, m)
        The paths (units of y), drawn by Matheron's rule.

    Raises
    ------
    ValueError
        On mismatched, empty or invalid inputs.
    TypeError
        On numbers of the wrong type or a bad seed.
    """
    import numpy as np

    from ssa_privacy._internal.random import random_generator
    from ssa_privacy._internal.validation import (
        as_finite_array,
        non_negative,
        nonempty,
        positive,
        positive_int,
        scalar,
    )
    from ssa_privacy.privacy.posterior_sampling.paths import _grid_posterior, _matheron_paths

    X = nonempty(as_finite_array(X, "X", ndim=1), "X")
    y = as_finite_array(y, "y", ndim=1)
    grid = nonempty(as_finite_array(grid, "grid", ndim=1), "grid")
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)}")
    sigma = scalar(sigma, "sigma", allow_inf=True)
    if not (sigma > 0 and np.isfinite(sigma)):
        raise ValueError(f"sigma must be positive and finite to sample paths, got {sigma!r}")
    r, l = positive(ridge, "ridge"), positive(lengthscale, "lengthscale")
    weights = _grid_posterior(X, grid, l, r).weights()
    return _matheron_paths(
        weights @ y,
        weights,
        grid,
        X,
        lengthscale=l,
        ridge=r,
        sigma=sigma,
        eta=non_negative(eta, "eta"),
        size=positive_int(paths, "paths"),
        rng=random_generator(seed),
    )


@_legacy(
    ("ssa_privacy.studies.mia",),
    "posterior_at_target",
    "GaussianProcess(Exponential(lengthscale), 0.0, ridge**2).fit(X, y).predict([0.5]), "
    "or the posterior_mean of PosteriorSamplingMechanism(...).release(y)",
)
def _posterior_at_target(X, y, lengthscale, ridge):
    """Unit-scale posterior mean and variance at x0 = 0.5 per data set (deprecated).

    .. deprecated:: 0.2
        The membership study releases through ``PosteriorSamplingMechanism``; fit a
        ``GaussianProcess(Exponential(lengthscale), 0.0, ridge**2)`` per data set
        instead; removed in 0.3.

    Parameters
    ----------
    X, y : array_like, shape (count, n)
        Inputs and responses of each data set.
    lengthscale : float
        l of the kernel ``exp(-|x - x'| / l)``.
    ridge : float
        Effective ridge r (noise variance ``r^2``).

    Returns
    -------
    mean, variance : ndarray, shape (count,)
        ``m_D(x0)`` and ``k_D(x0, x0)``.
    """
    import numpy as np

    from ssa_privacy.gp.kernels import Exponential
    from ssa_privacy.gp.regression import GaussianProcess

    kernel, target = Exponential(lengthscale), np.array([0.5])
    fits = [
        GaussianProcess(kernel, 0.0, ridge**2).fit(Xi, yi).predict(target) for Xi, yi in zip(X, y)
    ]
    return np.array([f[0][0] for f in fits]), np.array([f[1][0] for f in fits])


@_legacy(
    ("ssa_privacy.studies.mia",),
    "release_at_target",
    "PosteriorSamplingMechanism(X, [0.5], epsilon, delta, lengthscale=..., ridge=..., "
    "sigma=sigma, paths=paths, sampler='cholesky').release(y, seed=rng) per data set",
)
def _release_at_target(mean, variance, sigma, paths, rng):
    """L posterior draws at x0 per data set, ``m + sigma sqrt(v) z`` (deprecated).

    .. deprecated:: 0.2
        Use ``PosteriorSamplingMechanism(X, [0.5], epsilon, delta, lengthscale=...,
        ridge=..., sigma=sigma, paths=paths, sampler="cholesky").release(y, seed=rng)``
        per data set: the same draws, certified; removed in 0.3.

    Parameters
    ----------
    mean, variance : ndarray, shape (count,)
        Unit-scale posterior mean and variance at x0 per data set.
    sigma : float
        Posterior scale.
    paths : int
        Draws L per data set.
    rng : numpy.random.Generator
        Randomness.

    Returns
    -------
    ndarray, shape (count, paths)
        The draws.
    """
    import numpy as np

    return mean[:, None] + sigma * np.sqrt(variance)[:, None] * rng.standard_normal(
        (len(mean), paths)
    )
