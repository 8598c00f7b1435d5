"""Figures of the membership-inference study ([MAC] §4): the sigma/r and L sweeps, ROC."""

import numpy as np

from ssa_privacy.attacks.roc import max_tpr_under_dp
from ssa_privacy.engine.figures import PAGE_WIDTH, legend_below

__all__ = [
    "paths",
    "roc",
    "sigma_r",
]


def sigma_r(rows, sigmas):
    """AUC, excess TPR and the bound's epsilon against the ridge, per sigma (L = 3).

    Parameters
    ----------
    rows : list of dict
        The study's rows.
    sigmas : sequence of float
        The scales of the sigma/r sweep.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    import matplotlib.pyplot as plt

    figure, (ax_auc, ax_tpr, ax_eps) = plt.subplots(1, 3, figsize=(PAGE_WIDTH, 3.0))
    for index, sigma in enumerate(sigmas):
        colour = f"C{index}"
        for attack, style in (("lira", "-"), ("mean_threshold", "--")):
            chosen = [
                r
                for r in rows
                if r["sweep"] == "sigma_r" and r["sigma"] == sigma and r["attack"] == attack
            ]
            ridges = [r["ridge"] for r in chosen]
            ax_auc.plot(ridges, [r["auc"] for r in chosen], style, color=colour, marker="o", ms=3)
            ax_tpr.plot(
                ridges,
                [r["excess_tpr_at_fpr_0.05"] for r in chosen],
                style,
                color=colour,
                marker="o",
                ms=3,
            )
        lira = [
            r
            for r in rows
            if r["sweep"] == "sigma_r" and r["sigma"] == sigma and r["attack"] == "lira"
        ]
        ax_eps.plot(
            [r["ridge"] for r in lira],
            [r["epsilon"] for r in lira],
            color=colour,
            marker="o",
            ms=3,
            label=f"sigma = {sigma:g}",
        )
    ax_auc.axhline(0.5, color="grey", lw=0.8, label="chance (AUC 0.5)")
    for ax, label in (
        (ax_auc, "AUC (dimensionless)"),
        (ax_tpr, "excess TPR at FPR 5% (dimensionless)"),
        (ax_eps, "epsilon bound (nats)"),
    ):
        ax.set_xscale("log")
        ax.set_xlabel("effective ridge r (dimensionless)")
        ax.set_ylabel(label)
    ax_eps.set_yscale("log")
    styles = [
        plt.Line2D([], [], color="0.3", ls=style, label=name)
        for name, style in (("LiRA", "-"), ("mean threshold", "--"))
    ]
    handles = ax_eps.get_legend_handles_labels()[0] + styles
    legend_below(figure, handles + ax_auc.get_legend_handles_labels()[0], ncol=4)
    figure.suptitle("LiRA and the mean-threshold baseline, L = 3 paths, against the RDP bound")
    return figure


def paths(rows, setting):
    """AUC and the bound's epsilon against the number of paths L.

    Parameters
    ----------
    rows : list of dict
        The study's rows.
    setting : tuple of float
        ``(ridge, sigma)`` of the L sweep.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    import matplotlib.pyplot as plt

    figure, (ax_auc, ax_eps) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.0))
    for attack, style in (("lira", "-o"), ("mean_threshold", "--s")):
        chosen = [r for r in rows if r["sweep"] == "paths" and r["attack"] == attack]
        name = "LiRA" if attack == "lira" else "mean threshold"
        ax_auc.plot([r["paths"] for r in chosen], [r["auc"] for r in chosen], style, label=name)
    ax_auc.plot(
        [r["paths"] for r in chosen],
        [r["dp_max_auc"] for r in chosen],
        ":",
        color="grey",
        label="largest AUC the bound allows",
    )
    chosen = [r for r in rows if r["sweep"] == "paths" and r["attack"] == "lira"]
    counts = np.array([r["paths"] for r in chosen])
    epsilon = np.array([r["epsilon"] for r in chosen])
    ax_eps.plot(counts, epsilon, "-^", color="black", label="epsilon(L) (optimised order)")
    ax_eps.plot(counts, epsilon[0] * counts, ":", color="black", label="linear in L")
    ax_auc.set_ylabel("AUC (dimensionless)")
    ax_eps.set_ylabel("epsilon bound (nats)")
    for ax in (ax_auc, ax_eps):
        ax.set_xscale("log")
        ax.set_xlabel("released paths L (count)")
    handles = ax_auc.get_legend_handles_labels()[0] + ax_eps.get_legend_handles_labels()[0]
    legend_below(figure, handles, ncol=3)
    ridge, sigma = setting
    figure.suptitle(
        f"Attack success and bound against the paths (r = {ridge:g}, sigma = {sigma:g})"
    )
    return figure


def roc(curves):
    """ROC curves of both attacks against the DP region's boundary, one panel per setting.

    Parameters
    ----------
    curves : list of tuple
        ``(title, results, epsilon, delta)`` per panel, ``results`` the
        :class:`~ssa_privacy.attacks.roc.AttackResult` of each attack.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(
        1, len(curves), figsize=(PAGE_WIDTH, 3.3), squeeze=False, sharey=True
    )
    for ax, (title, results, epsilon, delta) in zip(axes[0], curves):
        for n, result in enumerate(results):
            ax.plot(*result.roc, color=f"C{n}", label=result.name)
        auc = ", ".join(f"{result.name.split('_')[0]} {result.auc:.3f}" for result in results)
        grid = np.linspace(0, 1, 400)
        ax.plot(
            grid,
            max_tpr_under_dp(grid, epsilon, delta),
            ":",
            color="grey",
            label="DP region boundary",
        )
        ax.plot([0, 1], [0, 1], color="black", lw=0.6, label="chance")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1e-3, 1)
        ax.set_ylim(1e-3, 1)
        ax.set_title(f"{title}\nepsilon = {epsilon:.3g} nats\nAUC {auc}")
        ax.set_xlabel("FPR (dimensionless)")
    axes[0, 0].set_ylabel("TPR (dimensionless)")
    legend_below(figure, axes[0, 0].get_legend_handles_labels()[0], ncol=4)
    return figure
