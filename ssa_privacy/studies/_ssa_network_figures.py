"""Figures and the pass table of the ssa-network study."""

import functools

import matplotlib.pyplot as plt
import numpy as np

from ssa_privacy.engine.figures import PAGE_WIDTH, land_outlines, legend_below, log_axis
from ssa_privacy.orbits.frames import rsw_frame
from ssa_privacy.sensors.geodesy import ground_track

__all__ = [
    "RSW",
    "STATION_COLOURS",
    "cw_bounds",
    "ground_tracks",
    "pass_rows",
    "rmse_vs_epsilon",
    "tracking_errors",
]

STATION_COLOURS = ("tab:red", "tab:blue", "tab:green", "tab:purple", "tab:orange")
RSW = ("radial", "along-track", "cross-track")


def _column(rows, key):
    """The values of ``key`` over ``rows`` as a float array."""
    return np.array([r[key] for r in rows], dtype=float)


def _hours(times):
    return np.asarray(times) / 3600.0


def _segments(mask):
    """(start, stop) index pairs of the runs of True in a boolean array (stop exclusive)."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)))


def _elevations(scenario, stations):
    """Elevation (deg) of the nominal track from each station, shape (S, m)."""
    return np.array(
        [
            np.degrees(s.measure(scenario.nominal, scenario.fine, scenario.earth)[:, 1])
            for s in stations
        ]
    )


def pass_rows(scenario, stations):
    """Passes of the nominal track over each station: start, end (h since epoch), peak (deg)."""
    rows = []
    for station, elevation in zip(stations, _elevations(scenario, stations)):
        for start, stop in _segments(elevation >= station.elevation_mask):
            rows.append(
                {
                    "station": station.name,
                    "start_h": float(_hours(scenario.fine[start])),
                    "end_h": float(_hours(scenario.fine[stop - 1])),
                    "max_elevation_deg": float(np.max(elevation[start:stop])),
                    "measurements": int(stop - start),
                }
            )
    return sorted(rows, key=lambda row: row["start_h"])


def ground_tracks(output, scenario, stations):
    """Ground track of the nominal orbit with the passes, and elevations against time."""
    latitude, longitude = ground_track(scenario.nominal, scenario.fine, scenario.earth)
    wrapped = np.flatnonzero(np.abs(np.diff(longitude)) > 180) + 1
    lon, lat = np.insert(longitude, wrapped, np.nan), np.insert(latitude, wrapped, np.nan)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(PAGE_WIDTH, 6.6), height_ratios=(3, 2))
    for land_lon, land_lat, coast in land_outlines():
        top.fill(
            land_lon, land_lat, facecolor="0.92", edgecolor="0.75" if coast else "none", lw=0.3
        )
    top.plot(lon, lat, color="0.7", lw=0.8, label="ground track (nominal)")
    for station, elevation, colour in zip(
        stations, _elevations(scenario, stations), STATION_COLOURS
    ):
        for n, (start, stop) in enumerate(_segments(elevation >= station.elevation_mask)):
            top.plot(
                longitude[start:stop],
                latitude[start:stop],
                color=colour,
                lw=2.5,
                label=f"visible from {station.name}" if n == 0 else None,
            )
        top.plot(station.longitude, station.latitude, "*", color=colour, ms=10, mec="black")
        bottom.plot(
            _hours(scenario.fine),
            np.where(elevation > 0, elevation, np.nan),
            color=colour,
            label=station.name,
        )
    top.set(
        xlim=(-180, 180),
        ylim=(-90, 90),
        xlabel="longitude (deg)",
        ylabel="geodetic latitude (deg)",
        title=f"{scenario.element_set.name.strip()}: ground track and passes "
        f"({_hours(scenario.fine[0]):g}-{_hours(scenario.fine[-1]):g} h after epoch)",
    )
    top.set_aspect("equal")
    top.grid(alpha=0.3)
    bottom.axhline(stations[0].elevation_mask, color="black", ls="--", lw=1, label="mask")
    bottom.set(xlabel="time since TLE epoch (h)", ylabel="elevation (deg)", ylim=(0, 90))
    handles = top.get_legend_handles_labels()[0] + bottom.get_legend_handles_labels()[0]
    legend_below(fig, handles, ncol=3)
    output.save_figure(fig, "fig_ground_tracks")


def tracking_errors(output, scenario, tracking):
    """Run 0: |position error| per RSW axis with its 3-sigma bound, one row per level."""
    frames = rsw_frame(tracking.truth)
    levels = [label for label, _ in scenario.levels]
    fig, axes = plt.subplots(
        len(levels),
        3,
        figsize=(PAGE_WIDTH, 1.5 * len(levels) + 1.2),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    hours = _hours(tracking.times)
    for row, label in zip(axes, levels):
        error = tracking.results[label]["errors"][0][:, :3]
        P = tracking.results[label]["P"][0][:, :3, :3]
        components = np.einsum("mij,mj->mi", frames, error)
        sigma = np.sqrt(np.einsum("mij,mjk,mik->mi", frames, P, frames))
        for c, ax in enumerate(row):
            ax.semilogy(
                hours, 1e3 * np.abs(components[:, c]), color="black", lw=0.8, label="|error|"
            )
            ax.semilogy(hours, 3e3 * sigma[:, c], color="tab:red", lw=0.8, label="3 sigma (UKF)")
            ax.set_title(f"{RSW[c]}, epsilon = {label}")
        row[0].set_ylabel("|error| (m)")
    for ax in axes[-1]:
        ax.set_xlabel("time since TLE epoch (h)")
    axes[0, 0].set_ylim(bottom=0.1)
    legend_below(fig, axes[0, 0].get_legend_handles_labels()[0], ncol=2)
    fig.suptitle("UKF position error and its 3-sigma bound per privacy level (run 0)")
    output.save_figure(fig, "fig_tracking_errors")


def rmse_vs_epsilon(output, rows):
    """Position and velocity RMSE (mean over runs +- 2 s.e.) against the privacy level."""
    private = [r for r in rows if r["epsilon_first_station"] is not None]
    reference = next(r for r in rows if r["epsilon_first_station"] is None)
    eps = np.array([r["epsilon_first_station"] for r in private])
    fig, axes = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 3.2))
    for ax, key, unit in (
        (axes[0], "ukf_position_rmse", "km"),
        (axes[1], "ukf_velocity_rmse", "m_s"),
    ):
        mean = np.array([r[f"{key}_{unit}"] for r in private])
        se = np.array([r[f"{key}_se_{unit}"] for r in private])
        ax.errorbar(
            eps,
            mean,
            yerr=2 * se,
            fmt="o-",
            color="tab:blue",
            capsize=3,
            label="privatized stations (mean +- 2 s.e.)",
        )
        ax.axhline(reference[f"{key}_{unit}"], color="black", ls="--", label="no privacy")
        ax.set_yscale("log")
        ax.set_xlabel("epsilon of the first station (nats)")
        ax.set_ylabel(f"{key.split('_')[1]} RMSE ({unit.replace('_', '/')})")
    legend_below(
        fig, axes[0].get_legend_handles_labels()[0], ncol=2, title="the other stations at offsets"
    )
    fig.suptitle("Tracking accuracy against privacy level (UKF, J2 orbit)")
    output.save_figure(fig, "fig_rmse_vs_epsilon")


def _trace_bounds(ax, eps, chain, bound):
    """Trace panel on a log scale: a bound is drawn where positive, negative values quoted."""
    ax.set_yscale("log")
    ax.set_ylabel("trace P (km^2 + (km/s)^2)")
    for values, colour, style, label in (
        (chain, "tab:blue", "--", "chain bound"),
        (bound, "tab:red", ":", "(29)"),
    ):
        if np.any(values > 0):
            ax.plot(eps, np.where(values > 0, values, np.nan), color=colour, ls=style, label=label)
    if np.any(chain <= 0) or np.any(bound <= 0):
        ax.text(
            0.98,
            0.95,
            f"vacuous trace bounds (< 0):\nchain up to {np.max(chain):.3g},\n"
            f"(29) up to {np.max(bound):.3g}",
            transform=ax.transAxes,
            ha="right",
            va="top",
        )
    log_axis(ax.yaxis)


def cw_bounds(output, cw_rows, scenario):
    """CW plant: empirical and DARE error covariance against the bounds, per filter."""
    filters = list(dict.fromkeys(r["filter"] for r in cw_rows))
    first = {label: eps[0] for label, eps in scenario.levels if eps is not None}
    fig, axes = plt.subplots(
        len(filters), 2, figsize=(PAGE_WIDTH, 2.0 * len(filters) + 1.2), sharex=True, squeeze=False
    )
    for row, name in zip(axes, filters):
        mine = [r for r in cw_rows if r["filter"] == name and r["level"] in first]
        reference = next(r for r in cw_rows if r["filter"] == name and r["level"] not in first)
        eps = np.array([first[r["level"]] for r in mine])
        get = functools.partial(_column, mine)
        for ax, kind, bound, chain in (
            (row[0], "logdet", "bound_28", "bound_chain_logdet"),
            (row[1], "trace", "bound_29", "bound_chain_trace"),
        ):
            ax.errorbar(
                eps,
                get(f"{kind}_P_empirical"),
                yerr=2 * get(f"{kind}_P_empirical_se"),
                fmt="o",
                color="black",
                ms=4,
                capsize=3,
                label="empirical (+- 2 s.e.)",
            )
            ax.plot(eps, get(f"{kind}_P_dare"), color="tab:green", label="DARE")
            ax.axhline(reference[f"{kind}_P_dare"], color="0.5", lw=1, label="no privacy (DARE)")
            ax.set_title(name if name == "fusion" else f"station {name}")
            if kind == "trace":
                _trace_bounds(ax, eps, get(chain), get(bound))
                continue
            ax.plot(eps, get(chain), color="tab:blue", ls="--", label="chain bound")
            ax.plot(
                eps,
                get(bound),
                color="tab:red",
                ls=":",
                label=f"(28), {scenario.convention} convention (fusion: at its implied epsilon)",
            )
            ax.set_ylabel("log det P (km, km/s)")
    for ax in axes[-1]:
        ax.set_xlabel("epsilon of the first station (nats)")
    legend_below(fig, [h for ax in axes.flat for h in ax.get_legend_handles_labels()[0]], ncol=3)
    fig.suptitle("CW plant: steady-state Kalman error covariance against the PML bounds")
    output.save_figure(fig, "fig_cw_bounds")
