"""Figures of the !Kung study ([SMI] Figure 1 and the DP hyperparameter selection)."""

import numpy as np

from ssa_privacy.engine.figures import COLUMN_WIDTH, PAGE_WIDTH, legend_below

__all__ = [
    "noise_sd",
    "releases_figure",
    "selection_figure",
]


def noise_sd(release):
    """Standard deviation of the noise of a release at each released value.

    Parameters
    ----------
    release : ssa_privacy.privacy.mechanism.Release
        A release of a Gaussian mechanism.

    Returns
    -------
    ndarray, shape (m,)
        ``sqrt(diag(noise_covariance))`` (units of the released values).
    """
    return np.sqrt(np.maximum(np.diag(release.noise_covariance.matrix()), 0.0))


def releases_figure(age, height, grid, norm, standard, cloak, mean):
    """[SMI] Figure 1: one standard and one cloaking release on the age grid.

    Parameters
    ----------
    age, height : ndarray, shape (n,)
        The data (years, cm).
    grid : ndarray, shape (m,)
        The ages of the releases (years).
    norm : OutputNormalisation
        The normalisation of the heights.
    standard, cloak : Release
        One release of the standard mechanism and one of cloaking (normalised units).
    mean : ndarray, shape (m,)
        The non-private posterior mean on the grid (cm).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.4), sharey=True)
    for ax, (title, release) in zip(
        axes,
        (("A. standard (Hall et al.), exact sensitivity", standard), ("B. cloaking", cloak)),
    ):
        values = norm.unnormalise(release.values)
        sd = norm.std * noise_sd(release)
        ax.plot(age, height, ".", color="grey", ms=3, label="data (women)")
        ax.plot(grid, mean, "k", lw=1, label="non-private posterior mean")
        ax.plot(grid, values, "C1", label="DP release (one draw)")
        ax.fill_between(
            grid,
            values - 2 * sd,
            values + 2 * sd,
            color="C1",
            alpha=0.2,
            label="+- 2 sd of DP noise",
        )
        ax.set_ylim(0, 250)
        ax.set_xlabel("age (years)")
        level, passed = release.certificate.parameters, release.certificate.passed
        ax.set_title(
            f"{title}\nepsilon = {level['epsilon']:g}, delta = {level['delta']:g}, "
            f"check {'passed' if passed else 'FAILED'}"
        )
    axes[0].set_ylabel("height (cm)")
    legend_below(figure, axes[0].get_legend_handles_labels()[0], ncol=4)
    return figure


def selection_figure(selections, lengthscales, noise_variances):
    """Selection probabilities of the exponential mechanism, averaged over the splits.

    Parameters
    ----------
    selections : list of HyperparameterSelection
        One per split, over the grid ``lengthscales x noise_variances``.
    lengthscales, noise_variances : sequence of float
        The candidates (years, normalised units).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    candidates = selections[0].candidates
    probabilities = np.mean([s.probabilities for s in selections], axis=0)
    figure, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.2))
    for k, s2 in enumerate(noise_variances):
        chosen = candidates[:, 1] == s2
        ax.bar(
            np.arange(len(lengthscales)) + 0.25 * (k - 1),
            probabilities[chosen],
            width=0.25,
            label=f"{s2:g}",
        )
    ax.set_xticks(range(len(lengthscales)), [f"{l:g}" for l in lengthscales])
    ax.set_xlabel("length scale (years)")
    ax.set_ylabel("selection probability (dimensionless)")
    ax.set_title(
        "Exponential mechanism, epsilon = 1\n(mean over splits; utility with cloaking noise)"
    )
    legend_below(
        figure,
        ax.get_legend_handles_labels()[0],
        ncol=len(noise_variances),
        title="noise variance (normalised units)",
    )
    return figure
