"""Figures and the trajectory table of the satellite study ([TCB] Figures 2-7)."""

import matplotlib.pyplot as plt
import numpy as np

from ssa_privacy.engine.figures import COLUMN_WIDTH, PAGE_WIDTH, legend_below
from ssa_privacy.studies._common import METHOD_COLOURS as COLOURS
from ssa_privacy.studies._common import band
from ssa_privacy.studies._dp_rows import COLOUR as DP_COLOUR

__all__ = [
    "BAND_PERCENTILES",
    "LABELS",
    "SQUARED_LABELS",
    "ZOOM",
    "figure_dp_cloaking",
    "figure_jobs",
    "figure_privacy_aware",
    "figure_replications",
    "figure_squared_error",
    "figure_trajectory",
    "trajectory_rows",
]

LABELS = (
    r"$r / R_e$",
    r"$\dot r / (R_e / T_{orb})$",
    r"$\theta$ (rad)",
    r"$\dot\theta$ (rad / $T_{orb}$)",
)
#: Squared differences of the four outputs, in their (squared) units (Figure 5).
SQUARED_LABELS = (
    r"$\Delta r^2 / R_e^2$",
    r"$\Delta\dot r^2 / (R_e / T_{orb})^2$",
    r"$\Delta\theta^2$ (rad$^2$)",
    r"$\Delta\dot\theta^2$ (rad / $T_{orb}$)$^2$",
)
#: Percentiles of the empirical band of Figures 4-5 over the replications: the 2-98%
#: range, which the paper calls its 96% band.
BAND_PERCENTILES = (2.0, 98.0)
#: The band's name in the figures.
BAND_LABEL = "2-98% of replications (the paper's 96% band)"
#: Time window of the zoomed Figure 6 (T_orb), as the authors' inset.
ZOOM = (0.9, 2.1)


def trajectory_rows(design):
    """Rows of ``trajectory.csv``: time, the four normalized states, is_private."""
    names = ("r", "r_dot", "theta", "theta_dot")
    return [
        {"time": t, **dict(zip(names, state)), "is_private": int(p)}
        for t, state, p in zip(design.t, design.states, design.private_dense)
    ]


def _grid(rows, columns, title):
    """A rows x columns grid at most a page wide, sharing the time axis."""
    width = COLUMN_WIDTH if columns == 1 else PAGE_WIDTH
    figure, axes = plt.subplots(
        rows, columns, figsize=(width, 1.45 * rows + 1.2), squeeze=False, sharex=True
    )
    figure.suptitle(title)
    for axis in axes[-1]:
        axis.set_xlabel(r"$t / T_{orb}$")
    return figure, axes


def _truth(axis, design, c):
    axis.plot(design.t, design.states[:, c], color=COLOURS["truth"], lw=1, label="truth")
    private = np.where(design.private_dense, design.states[:, c], np.nan)
    axis.plot(design.t, private, color=COLOURS["private"], lw=1.5, label="private segment")


def _decorate(figure, axes, levels, symbol=r"\alpha", labels=LABELS):
    """Column titles (alpha or epsilon), row labels (outputs) and one legend below."""
    for axis, level in zip(axes[0], levels):
        axis.set_title(rf"${symbol}$ = {level}")
    for axis, label in zip(axes[:, 0], labels):
        axis.set_ylabel(label)
    legend_below(figure, axes[0, 0].get_legend_handles_labels()[0], ncol=3)


def figure_trajectory(design):
    """Figure 2: the four state components, the private segment in red."""
    figure, axes = _grid(4, 1, "Planar J2 trajectory")
    for c, axis in enumerate(axes[:, 0]):
        _truth(axis, design, c)
    _decorate(figure, axes, [])
    return figure


def figure_privacy_aware(design, rep, alphas, dropout=None, title="Privacy-aware GP"):
    """Figure 3 (and 7): truth, release, privacy-aware GP with 95% band, baselines."""
    figure, axes = _grid(4, len(alphas), title)
    for j, alpha in enumerate(alphas):
        for c in range(4):
            axis = axes[c, j]
            _truth(axis, design, c)
            axis.plot(
                design.X,
                rep["W"][alpha, c],
                ".",
                color=COLOURS["released"],
                ms=3,
                label="released W",
            )
            band(
                axis,
                design.t,
                rep["pa_mean"][alpha, c],
                1.96 * np.sqrt(rep["pa_var"][alpha, c]),
                COLOURS["privacy-aware"],
                "privacy-aware (95%)",
            )
            if dropout is not None:
                axis.plot(design.t, dropout[c], "--", color=COLOURS["dropout"], label="Dropout")
            if rep["stationary"]:
                axis.plot(
                    design.t,
                    rep["stationary"][alpha, c],
                    "--",
                    color=COLOURS["stationary"],
                    label="Stationary",
                )
    _decorate(figure, axes, alphas)
    return figure


def figure_replications(design, reps, alphas):
    """Figure 4: replication mean of the privacy-aware mean (2-98% band), the non-private GP."""
    figure, axes = _grid(4, len(alphas), f"Privacy-aware GP: mean over {len(reps)} replications")
    for j, alpha in enumerate(alphas):
        for c in range(4):
            axis = axes[c, j]
            means = np.array([r["pa_mean"][alpha, c] for r in reps])
            low, high = np.percentile(means, BAND_PERCENTILES, axis=0)
            axis.plot(
                design.t,
                means.mean(axis=0),
                color=COLOURS["privacy-aware"],
                label="privacy-aware mean",
            )
            axis.fill_between(
                design.t,
                low,
                high,
                color=COLOURS["privacy-aware"],
                alpha=0.25,
                lw=0,
                label=BAND_LABEL,
            )
            np_mean, np_var = design.gps[c].predict(design.t)
            band(
                axis,
                design.t,
                np_mean,
                1.96 * np.sqrt(np_var),
                COLOURS["non-private"],
                "non-private (95%)",
                0.15,
            )
    _decorate(figure, axes, alphas)
    return figure


def figure_squared_error(design, reps, alphas):
    """Figure 5: mean over replications of (privacy-aware mean - non-private mean)^2, 2-98% band."""
    figure, axes = _grid(
        4, len(alphas), f"Squared difference to the non-private GP over {len(reps)} replications"
    )
    for j, alpha in enumerate(alphas):
        for c in range(4):
            axis = axes[c, j]
            np_mean = design.gps[c].predict(design.t)[0]
            squared = np.array([(r["pa_mean"][alpha, c] - np_mean) ** 2 for r in reps])
            low, high = np.percentile(squared, BAND_PERCENTILES, axis=0)
            axis.plot(design.t, squared.mean(axis=0), color=COLOURS["privacy-aware"], label="mean")
            axis.fill_between(
                design.t,
                low,
                high,
                color=COLOURS["privacy-aware"],
                alpha=0.25,
                lw=0,
                label=BAND_LABEL,
            )
    _decorate(figure, axes, alphas, labels=SQUARED_LABELS)
    return figure


def figure_dp_cloaking(design, cloaking, dropout, epsilons, window=None):
    """Figure 6: one DP-cloaking release (replication 0) +- 1.96 sigma per epsilon, and Dropout.

    sigma is the predictive standard deviation of the release: the posterior variance
    of the GP plus the variance of the DP noise. With ``window`` = (t0, t1) the axes
    are limited to that time window (the zoomed variant).
    """
    title = "DP-cloaking GP, one release (delta = 0.01)"
    if window is not None:
        title = f"{title}, $t / T_{{orb}}$ in [{window[0]}, {window[1]}]"
    figure, axes = _grid(4, len(epsilons), title)
    for j, epsilon in enumerate(epsilons):
        for c in range(4):
            axis = axes[c, j]
            _truth(axis, design, c)
            mean, sd = cloaking["values"][epsilon, c][0], cloaking["sd"][epsilon, c]
            band(axis, design.t, mean, 1.96 * sd, DP_COLOUR, "DP-cloaking (95%)")
            axis.plot(design.t, dropout[c], "--", color=COLOURS["dropout"], label="Dropout")
            if window is not None:
                inside = (design.t >= window[0]) & (design.t <= window[1])
                low, high = (mean - 1.96 * sd)[inside].min(), (mean + 1.96 * sd)[inside].max()
                axis.set_xlim(window)
                axis.set_ylim(low - 0.05 * (high - low), high + 0.05 * (high - low))
    _decorate(figure, axes, epsilons, r"\varepsilon")
    return figure


def figure_jobs(design, reps, compared, alphas, epsilons):
    """Figures 2-7 as jobs of :func:`ssa_privacy.engine.figures.save_figures` (stem -> builder).

    Parameters
    ----------
    design : satellite.Design
        The study's design.
    reps : list of dict
        The replications of Figures 4-5 (``satellite.replicate``).
    compared : dict
        ``satellite.baselines``: the DP-cloaking results, the Dropout means and the
        zero-mean design with its replication.
    alphas, epsilons : sequence of float
        The privacy-aware and DP-cloaking levels (the figures' columns).

    Returns
    -------
    dict
        Stem -> (builder, keyword arguments). Only what each figure draws is passed (the
        privacy-aware means of the replications, the DP-cloaking values and standard
        deviations), so that a worker receives little.
    """
    means = [{"pa_mean": r["pa_mean"]} for r in reps]
    dp = {"values": compared["cloaking"]["values"], "sd": compared["cloaking"]["sd"]}
    dropout = compared["dropout"]
    shown = {key: reps[0][key] for key in ("W", "pa_mean", "pa_var", "stationary")}
    return {
        "figure2_trajectory": (figure_trajectory, {"design": design}),
        "figure3_privacy_aware": (
            figure_privacy_aware,
            {"design": design, "rep": shown, "alphas": alphas, "dropout": dropout},
        ),
        "figure4_replications": (
            figure_replications,
            {"design": design, "reps": means, "alphas": alphas},
        ),
        "figure5_squared_difference": (
            figure_squared_error,
            {"design": design, "reps": means, "alphas": alphas},
        ),
        "figure6_dp_cloaking": (
            figure_dp_cloaking,
            {"design": design, "cloaking": dp, "dropout": dropout, "epsilons": epsilons},
        ),
        "figure6_dp_cloaking_zoom": (
            figure_dp_cloaking,
            {
                "design": design,
                "cloaking": dp,
                "dropout": dropout,
                "epsilons": epsilons,
                "window": ZOOM,
            },
        ),
        "figure7_zero_mean": (
            figure_privacy_aware,
            {
                "design": compared["zero_design"],
                "rep": compared["zero_rep"],
                "alphas": alphas,
                "title": "Privacy-aware GP with zero prior mean",
            },
        ),
    }
