"""Figure of the ssa-leakage study: the measured exceedance of each pass, per budget.

One column wide (:data:`~ssa_privacy.engine.figures.COLUMN_WIDTH`), in the house style
of :func:`~ssa_privacy.engine.figures.save_figures` (8 pt, constrained layout).
"""

import matplotlib.pyplot as plt
import numpy as np

from ssa_privacy.engine.figures import COLUMN_WIDTH, legend_below

__all__ = [
    "MARKERS",
    "exceedance_by_pass",
]

#: Marker per orbital regime.
MARKERS = {"leo": "o", "meo": "s", "geo": "^"}
#: Horizontal offset of the linear mechanism's marker (h), so that both stay visible.
OFFSET_H = 0.25


def _errorbars(ax, rows, prefix, offset, filled, marker, colour, label):
    """Exceedances with their Clopper-Pearson intervals, at the passes' start times."""
    x = np.array([r["start_h"] for r in rows]) + offset
    value = np.array([r[f"{prefix}exceedance"] for r in rows])
    low = np.array([r[f"{prefix}ci_low"] for r in rows])
    high = np.array([r[f"{prefix}ci_high"] for r in rows])
    ax.errorbar(
        x,
        value,
        yerr=[value - low, high - value],
        fmt=marker,
        ms=3.5,
        lw=0.7,
        capsize=1.5,
        color=colour,
        mfc=colour if filled else "white",
        label=label,
    )


def exceedance_by_pass(rows, delta, hours):
    """P[l(Y) > epsilon] of the real and the linearised release per pass, one panel per budget.

    Parameters
    ----------
    rows : list of dict
        The rows of ``leakage.csv`` (``start_h``, ``regime``, ``epsilon``, the exceedances
        and their intervals).
    delta : float
        The budgets' failure probability (the dashed line).
    hours : float
        The window's length (h), the x range.

    Returns
    -------
    matplotlib.figure.Figure
        Filled markers: the real release; open markers: the linear mechanism on the
        same draws. The y axis is linear up to 0.02, logarithmic above.
    """
    epsilons = sorted({r["epsilon"] for r in rows})
    fig, axes = plt.subplots(
        len(epsilons), 1, figsize=(COLUMN_WIDTH, 1.2 + 1.5 * len(epsilons)), sharex=True
    )
    axes = np.atleast_1d(axes)
    for ax, epsilon in zip(axes, epsilons, strict=True):
        for n, regime in enumerate(MARKERS):
            mine = [r for r in rows if r["epsilon"] == epsilon and r["regime"] == regime]
            if not mine:
                continue
            marker, colour = MARKERS[regime], f"C{n}"
            _errorbars(ax, mine, "", 0.0, True, marker, colour, f"{regime.upper()} real")
            _errorbars(
                ax, mine, "linear_", OFFSET_H, False, marker, colour, f"{regime.upper()} linearised"
            )
        ax.axhline(delta, color="0.3", ls="--", lw=0.8, label=f"delta = {delta:g}")
        ax.set_yscale("symlog", linthresh=0.02, linscale=1.0)
        ax.set_ylim(0.0, 1.0)
        ax.set_ylabel("P[l > epsilon]")
        ax.set_title(f"epsilon = {epsilon:g} nats")
    axes[-1].set_xlim(-0.5, hours + 0.5)
    axes[-1].set_xlabel("pass start since the window start (h)")
    legend_below(fig, axes[0].get_legend_handles_labels()[0], ncol=3)
    return fig
