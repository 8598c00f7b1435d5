"""Figures of the excursion-set study ([MAC] §5): the summary and the example pairs."""

from ssa_privacy.engine.figures import PAGE_WIDTH, legend_below

__all__ = [
    "example",
    "summary",
]


def summary(rows):
    """BCE, IoU and epsilon of both choices against the NSR.

    Parameters
    ----------
    rows : list of dict
        The study's rows, one per noise level.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    import matplotlib.pyplot as plt

    nsr = [r["nsr"] for r in rows]
    figure, (ax_bce, ax_iou, ax_eps) = plt.subplots(1, 3, figsize=(PAGE_WIDTH, 3.2))
    ax_bce.plot(nsr, [r["bce_unconstrained_median"] for r in rows], "-o", label="unconstrained")
    ax_bce.plot(nsr, [r["bce_private_median"] for r in rows], "-s", label="epsilon-constrained")
    ax_bce.set_ylabel("median integrated BCE (nats)")
    ax_iou.plot(
        nsr,
        [r["iou_unconstrained_median"] for r in rows],
        "-o",
        label="unconstrained",
    )
    ax_iou.errorbar(
        nsr,
        [r["iou_one_path_private_median"] for r in rows],
        yerr=[r["iou_one_path_sd_median"] for r in rows],
        fmt="-s",
        capsize=3,
        color="C2",
        label="one private path (+- median SD)",
    )
    ax_iou.set_ylabel("median IoU (dimensionless)")
    ax_eps.plot(nsr, [r["epsilon"] for r in rows], "-s", color="C1")
    budget = f"epsilon budget (delta = {rows[0]['delta']:g})"
    ax_eps.axhline(rows[0]["epsilon_max"], color="grey", ls=":", label=budget)
    ax_eps.set_ylabel("epsilon of one path (nats)")
    for ax in (ax_bce, ax_iou, ax_eps):
        ax.set_xlabel("NSR (dimensionless)")
    handles = [h for ax in (ax_bce, ax_iou, ax_eps) for h in ax.get_legend_handles_labels()[0]]
    legend_below(figure, handles, ncol=3)
    figure.suptitle("Excursion sets: unconstrained and privacy-constrained hyperparameters")
    return figure


def example(pair, grid, panels, threshold, nsr):
    """One pair with the posterior and a released path of each choice of hyperparameters.

    Parameters
    ----------
    pair : dict
        ``X``, ``y`` (n,) and ``truth`` (grid values of f*).
    grid : ndarray, shape (m,)
        The evaluation grid.
    panels : list of tuple
        Per choice ``(title, (l, r, sigma), mean, sd, path)``: the posterior mean and
        standard deviation on the grid (m,) and ``(values, certified)`` of one released
        path, or None when sigma = 0.
    threshold : float
        The level u of the excursion set.
    nsr : float
        The noise-to-signal ratio of the pair.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(panels), figsize=(PAGE_WIDTH, 3.2), sharey=True)
    for ax, (title, candidate, mean, sd, path) in zip(axes, panels):
        ax.plot(grid, pair["truth"], "k", label="f*")
        ax.plot(pair["X"], pair["y"], ".", color="grey", ms=3, label="data")
        ax.plot(grid, mean, "C0", label="posterior mean")
        ax.fill_between(grid, mean - 2 * sd, mean + 2 * sd, color="C0", alpha=0.2)
        if path is not None:
            values, certified = path
            label = f"one released path ({'certified' if certified else 'over budget'})"
            ax.plot(grid, values, "C1", lw=0.8, label=label)
        ax.axhline(threshold, color="black", lw=0.5, label="level u")
        l, r, s = candidate
        ax.set_title(f"{title}\nl = {l:.3g}, r = {r:.3g}, sigma = {s:.3g}")
        ax.set_xlabel("x (dimensionless)")
    axes[0].set_ylabel("f (dimensionless)")
    handles = [h for ax in axes for h in ax.get_legend_handles_labels()[0]]
    legend_below(figure, handles, ncol=3)
    figure.suptitle(f"One pair at NSR = {nsr:.2f}")
    return figure
