"""The Stationary attack of [TCB] §5: fit a fresh stationary GP to the released data."""

from ssa_privacy.gp.fit import fit_hyperparameters

__all__ = [
    "stationary_attack",
]


def stationary_attack(X, W, restarts=3, seed=None, initial=None):
    """The adversary's reconstruction: a stationary GP fitted by ML to the release.

    The adversary ignores the mechanism's correlated noise model and fits a constant
    mean, an output variance, ARD length scales and a white-noise variance to the
    released data by maximum likelihood.

    Parameters
    ----------
    X : array_like, shape (n, d) or (n,)
        Released inputs.
    W : array_like, shape (n,)
        Released (privatized) outputs.
    restarts : int
        Optimiser starts of the maximum-likelihood fit.
    seed : int or numpy.random.Generator, optional
        Seeds the random starts.
    initial : ssa_privacy.gp.regression.GaussianProcess, optional
        The prior the adversary knows (the worst case of [TCB] §3), used as the first
        optimiser start; it only speeds up and steadies the fit of the same likelihood.

    Returns
    -------
    ssa_privacy.gp.fit.MLFit
        The adversary's fitted GP (``.gp.predict`` gives its reconstruction).

    Raises
    ------
    TypeError, ValueError
        As :func:`ssa_privacy.gp.fit.fit_hyperparameters` (naming X and W).

    Notes
    -----
    [TCB] §5, baseline (2) ("Stationary"); :doc:`/theory/privacy-aware-gp`.
    """
    return fit_hyperparameters(
        X, W, restarts=restarts, seed=seed, initial=initial, names=("X", "W")
    )
