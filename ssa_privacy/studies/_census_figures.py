"""Figures of the census study ([TCB] Figures 8 and 9)."""

from types import SimpleNamespace

import matplotlib.pyplot as plt

from ssa_privacy.engine.figures import PAGE_WIDTH, legend_below
from ssa_privacy.studies._common import METHOD_COLOURS as COLOURS
from ssa_privacy.studies._dp_rows import COLOUR as DP_COLOUR

__all__ = [
    "Y_LIMITS",
    "figure8",
    "figure9",
    "figure_jobs",
]

#: Vertical range of the panels (PINCP, 1e5 USD), as the authors' figures.
Y_LIMITS = (-1.5, 5)


def _panels(design, features, levels, symbol, title, draw, behind=None):
    """One row of panels per feature, one column per level: test data and ``draw``'s methods.

    ``features`` holds (column, axis label, sensitive range) per row;
    ``draw(axis, level, column)`` adds the level's predictions to one panel, over the
    test data, and ``behind`` (same signature) what goes under them.
    """
    figure, axes = plt.subplots(
        len(features),
        len(levels),
        figsize=(PAGE_WIDTH, 2.2 * len(features) + 1.4),
        squeeze=False,
        sharey=True,
    )
    figure.suptitle(title)
    data = design.data
    for row, (feature, name, region) in enumerate(features):
        x_test = data.X_test[:, feature]
        for j, level in enumerate(levels):
            axis = axes[row, j]
            axis.axvspan(*region, color=COLOURS["private"], alpha=0.08, lw=0)
            if behind is not None:
                behind(axis, level, feature)
            axis.scatter(x_test, data.y_test, s=8, color=COLOURS["truth"], label="test")
            axis.scatter(
                x_test[design.private_test],
                data.y_test[design.private_test],
                marker="x",
                color=COLOURS["private"],
                label="test, sensitive",
            )
            draw(axis, level, feature)
            axis.set_ylim(*Y_LIMITS)
            axis.set_xlabel(name)
        axes[row, 0].set_ylabel("PINCP (1e5 USD)")
    for axis, level in zip(axes[0], levels):
        axis.set_title(rf"${symbol}$ = {level}")
    handles = axes[0, 0].get_legend_handles_labels()[0]
    shaded = plt.Rectangle(
        (0, 0), 1, 1, color=COLOURS["private"], alpha=0.08, label="sensitive region"
    )
    legend_below(figure, [*handles, shaded], ncol=4)
    return figure


def figure8(design, features, rep, dropout, alphas):
    """Figure 8: test predictions against AGEP and PUMA for each alpha (first replication)."""

    def released(axis, alpha, feature):
        axis.scatter(
            design.data.X_train[:, feature],
            rep[alpha]["W"],
            s=3,
            color=COLOURS["released"],
            alpha=0.3,
            label="released W",
        )

    def draw(axis, alpha, feature):
        x_test = design.data.X_test[:, feature]
        for method in ("privacy-aware", "stationary"):
            axis.scatter(x_test, rep[alpha][method][0], s=4, color=COLOURS[method], label=method)
        axis.scatter(x_test, dropout, s=4, marker="s", color=COLOURS["dropout"], label="Dropout")

    return _panels(
        design,
        features,
        alphas,
        r"\alpha",
        "Privacy-aware GP of census income",
        draw,
        released,
    )


def figure9(design, features, releases, dropout, epsilons):
    """Figure 9: one DP-cloaking release per epsilon (replication 0) and Dropout, by AGEP, PUMA."""

    def draw(axis, epsilon, feature):
        x_test = design.data.X_test[:, feature]
        axis.scatter(x_test, releases[epsilon], s=4, color=DP_COLOUR, label="DP-cloaking")
        axis.scatter(x_test, dropout, s=4, marker="s", color=COLOURS["dropout"], label="Dropout")

    return _panels(
        design,
        features,
        epsilons,
        r"\varepsilon",
        "DP-cloaking GP of census income, delta = 0.01",
        draw,
    )


def figure_jobs(design, rep, compared, features, alphas, epsilons):
    """Figures 8 and 9 as jobs of :func:`ssa_privacy.engine.figures.save_figures`.

    Parameters
    ----------
    design : census.Design
        The study's design; only its data and sensitive test records are sent.
    rep : dict
        Replication 0 (``census.replicate``).
    compared : dict
        ``census.baselines``: the DP-cloaking releases and the Dropout prediction.
    features : tuple
        (input column, axis label, sensitive range) of each row of panels.
    alphas, epsilons : sequence of float
        The privacy-aware and DP-cloaking levels (the columns).

    Returns
    -------
    dict
        Stem -> (builder, keyword arguments).
    """
    drawn = SimpleNamespace(data=design.data, private_test=design.private_test)
    first = {epsilon: values[0] for epsilon, values in compared["cloaking"]["values"].items()}
    common = {"design": drawn, "features": features, "dropout": compared["dropout"]}
    return {
        "figure8_census": (figure8, {**common, "rep": rep, "alphas": alphas}),
        "figure9_dp_cloaking": (figure9, {**common, "releases": first, "epsilons": epsilons}),
    }
