"""Figures of the membership-inference study ([MAC] §4): the sigma/r and L sweeps, ROC."""

import numpy as np

from ssa_privacy.attacks.roc import max_tpr_under_dp

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

    figure, (ax_auc, ax_tpr, ax_eps) = plt.subplots(1, 3, figsize=(14, 4))
    for index, sigma in enumerate(sigmas):
        colour = f"C{index}"
        for attack, style in (("lira", "-"), ("mean_threshold", "--")):
            chosen = [
                r
                for r in rows
                if r["sweep"] == "sigma_r" and r["sigma"] == sigma and r["attack"] == attack
            ]
            ridges = [r["ridge"] for r in chosen]
            label = f"sigma={sigma:g} {'LiRA' if attack == 'lira' else 'mean threshold'}"
            ax_auc.plot(
                ridges, [r["auc"] for r in chosen], style, color=colour, marker="o", label=label
            )
            ax_tpr.plot(
                ridges,
                [r["excess_tpr_at_fpr_0.05"] for r in chosen],
                style,
                color=colour,
                marker="o",
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
            label=f"sigma={sigma:g}",
        )
    ax_auc.axhline(0.5, color="grey", lw=0.8)
    for ax, label in ((ax_auc, "AUC"), (ax_tpr, "excess TPR at FPR 5%"), (ax_eps, "epsilon bound")):
        ax.set_xscale("log")
        ax.set_xlabel("effective ridge r")
        ax.set_ylabel(label)
    ax_eps.set_yscale("log")
    ax_auc.legend(fontsize=7)
    ax_eps.legend(fontsize=7)
    figure.suptitle("LiRA vs mean-threshold baseline, L = 3 paths, against the RDP bound")
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

    figure, (ax_auc, ax_eps) = plt.subplots(1, 2, figsize=(10, 4))
    for attack, style in (("lira", "-o"), ("mean_threshold", "--s")):
        chosen = [r for r in rows if r["sweep"] == "paths" and r["attack"] == attack]
        ax_auc.plot([r["paths"] for r in chosen], [r["auc"] for r in chosen], style, label=attack)
        ax_auc.plot(
            [r["paths"] for r in chosen], [r["dp_max_auc"] for r in chosen], ":", color="grey"
        )
    chosen = [r for r in rows if r["sweep"] == "paths" and r["attack"] == "lira"]
    counts = np.array([r["paths"] for r in chosen])
    epsilon = np.array([r["epsilon"] for r in chosen])
    ax_eps.plot(counts, epsilon, "-o", label="epsilon(L) (optimised order)")
    ax_eps.plot(counts, epsilon[0] * counts, ":", label="linear in L")
    ax_auc.set_ylabel("AUC (dotted: largest AUC the bound allows)")
    ax_eps.set_ylabel("epsilon bound")
    for ax in (ax_auc, ax_eps):
        ax.set_xscale("log")
        ax.set_xlabel("released paths L")
        ax.legend(fontsize=8)
    ridge, sigma = setting
    figure.suptitle(
        f"Attack success and bound against the number of paths (r = {ridge:g}, sigma = {sigma:g})"
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

    figure, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 4), squeeze=False)
    for ax, (title, results, epsilon, delta) in zip(axes[0], curves):
        for result in results:
            ax.plot(*result.roc, label=f"{result.name} (AUC {result.auc:.3f})")
        grid = np.linspace(0, 1, 400)
        ax.plot(
            grid,
            max_tpr_under_dp(grid, epsilon, delta),
            ":",
            color="grey",
            label="DP region boundary",
        )
        ax.plot([0, 1], [0, 1], color="black", lw=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1e-3, 1)
        ax.set_ylim(1e-3, 1)
        ax.set_title(f"{title}\nepsilon = {epsilon:.3g}", fontsize=9)
        ax.set_xlabel("FPR")
        ax.set_ylabel("TPR")
        ax.legend(fontsize=7)
    return figure
