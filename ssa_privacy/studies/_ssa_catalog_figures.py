"""Figures of the ssa-catalog study, drawn at a two-column paper's sizes (fonts 8 pt).

Single-column figures are 3.5 in wide, the network map 7 in (the full width).
"""

import matplotlib.pyplot as plt
import numpy as np

from ssa_privacy.constants import R_EARTH
from ssa_privacy.engine.figures import save_figures
from ssa_privacy.orbits.catalog import sgp4_states
from ssa_privacy.sensors.geodesy import ground_track

__all__ = [
    "COLOURS",
    "COLUMN",
    "FONT",
    "MAP_ALTITUDE_KM",
    "TRACKS",
    "TRACK_HOURS",
    "network_coverage",
    "per_measurement_leakage",
    "rmse_cdf",
    "rmse_vs_epsilon",
    "save",
    "sensor_records",
]

FONT = {"font.size": 8, "axes.titlesize": 8, "legend.fontsize": 7.5}
COLUMN, PAGE = 3.5, 7.0
COLOURS = tuple(f"C{i}" for i in range(10))
#: Altitude of the coverage circles of the map (km) and the span of its ground tracks (h).
MAP_ALTITUDE_KM = 550.0
TRACK_HOURS = 3.0
TRACKS = 3


def _column(rows, key):
    return np.array([r[key] for r in rows], dtype=float)


def _levels(rows):
    return list(dict.fromkeys(r["level"] for r in rows))


def rmse_cdf(rows):
    """Empirical CDF of the position RMSE per level (solid: log-det, dashed: scaled)."""
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(COLUMN, 3.4))
        for n, level in enumerate(_levels(rows)):
            mine = [r for r in rows if r["level"] == level]
            colour = "black" if n == 0 else COLOURS[(n - 1) % len(COLOURS)]
            keys = [("position_rmse_km", "-")]
            if "position_rmse_km_scaled" in mine[0]:
                keys.append(("position_rmse_km_scaled", "--"))
            for key, style in keys:
                values = np.sort(_column(mine, key))
                label = (
                    "no privacy"
                    if n == 0
                    else f"{level} nats" + (" scaled" if style == "--" else "")
                )
                ax.step(
                    values,
                    np.arange(1, len(values) + 1) / len(values),
                    style,
                    color=colour,
                    where="post",
                    label=label,
                )
        ax.set_xscale("log")
        ax.set_xlabel("position RMSE, second half of the window (km)")
        ax.set_ylabel("fraction of objects")
        ax.axvline(1.0, color="0.6", lw=0.6)
        fig.legend(loc="outside lower center", ncol=3, frameon=False, fontsize=7)
    return fig


def rmse_vs_epsilon(rows):
    """Median and 90th-percentile position RMSE against the pass-level budget."""
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(COLUMN, 2.6))
        private = [
            level
            for level in _levels(rows)
            if np.isfinite(
                _column([r for r in rows if r["level"] == level], "epsilon_pass_design")[0]
            )
        ]
        eps = np.array([float(level) for level in private])
        for key, label, colour in (
            ("position_rmse_km", "log-det pass design", "tab:blue"),
            ("position_rmse_km_scaled", "per-measurement design scaled", "tab:orange"),
        ):
            values = [_column([r for r in rows if r["level"] == level], key) for level in private]
            ax.plot(
                eps, [np.median(v) for v in values], "o-", color=colour, label=f"{label}, median"
            )
            ax.plot(
                eps,
                [np.percentile(v, 90) for v in values],
                "s:",
                color=colour,
                ms=3,
                label="90th percentile",
            )
        none = _column(
            [r for r in rows if not np.isfinite(r["epsilon_pass_design"])], "position_rmse_km"
        )
        ax.axhline(np.median(none), color="black", lw=0.8, label="no privacy, median")
        ax.set_yscale("log")
        ax.set_xlabel("pass-level budget epsilon (nats)")
        ax.set_ylabel("position RMSE (km)")
        ax.legend(frameon=False, fontsize=7)
    return fig


def _coverage_circle(latitude, longitude, altitude, mask, sector=None, range_max=None):
    """Ground points (deg) bounding where an object at ``altitude`` km is seen from a site.

    The boundary lies where the object is at elevation ``mask`` deg or, nearer, at slant
    range ``range_max`` km; with an azimuth ``sector`` (deg, clockwise from north, from
    ``sector[0]`` to ``sector[1]``) it is the wedge from the site over that arc."""
    el = np.radians(mask)
    angle = np.arccos(R_EARTH * np.cos(el) / (R_EARTH + altitude)) - el
    if range_max is not None:
        outer = R_EARTH + altitude
        cosine = (R_EARTH**2 + outer**2 - range_max**2) / (2.0 * R_EARTH * outer)
        angle = min(angle, np.arccos(np.clip(cosine, -1.0, 1.0)))
    if sector is None:
        bearing = np.linspace(0.0, 2.0 * np.pi, 181)
    else:
        width = (sector[1] - sector[0]) % 360.0 or 360.0
        arc = np.radians(sector[0] + np.linspace(0.0, width, max(3, round(width / 2))))
        bearing = np.concatenate([[0.0], arc, [0.0]])
    ground = np.full(bearing.shape, angle)
    if sector is not None:
        ground[[0, -1]] = 0.0
    phi, lam = np.radians(latitude), np.radians(longitude)
    lat = np.arcsin(np.sin(phi) * np.cos(ground) + np.cos(phi) * np.sin(ground) * np.cos(bearing))
    lon = lam + np.arctan2(
        np.sin(bearing) * np.sin(ground) * np.cos(phi), np.cos(ground) - np.sin(phi) * np.sin(lat)
    )
    return np.degrees(lat), (np.degrees(lon) + 180.0) % 360.0 - 180.0


def _broken(longitude, latitude):
    """Insert NaNs where a longitude series wraps, so that lines do not cross the map."""
    wrapped = np.flatnonzero(np.abs(np.diff(longitude)) > 180.0) + 1
    return np.insert(longitude, wrapped, np.nan), np.insert(latitude, wrapped, np.nan)


def sensor_records(stations):
    """What the coverage map draws of each sensor: name, kind, site, mask, sector, range."""
    return [
        {
            "name": station.name,
            "kind": station.kind,
            "latitude": station.latitude,
            "longitude": station.longitude,
            "elevation_mask": station.elevation_mask,
            "azimuth_sector": station.azimuth_sector,
            "range_max": station.range_max,
        }
        for station in stations
    ]


def network_coverage(tracks, names, sensors, hours=TRACK_HOURS):
    """The sensors' sites (stars: radars, triangles: optical), their coverage of an object
    at MAP_ALTITUDE_KM (each above its own mask, within its sector and range), and a few
    ``hours``-long ground tracks."""
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(PAGE, 3.6))
        for n, sensor in enumerate(sensors):
            colour = COLOURS[n % len(COLOURS)]
            lat, lon = _coverage_circle(
                sensor["latitude"],
                sensor["longitude"],
                MAP_ALTITUDE_KM,
                sensor["elevation_mask"],
                sensor["azimuth_sector"],
                sensor["range_max"],
            )
            lon, lat = _broken(lon, lat)
            ax.plot(lon, lat, color=colour, lw=0.8)
            marker = "*" if sensor["kind"] == "radar" else "^"
            site = (sensor["longitude"], sensor["latitude"])
            ax.plot(*site, marker, color=colour, ms=8 if marker == "*" else 6, mec="black", mew=0.4)
            label = f"{sensor['name']} ({sensor['elevation_mask']:g} deg)"
            ax.annotate(label, site, xytext=(3, 3), textcoords="offset points")
        for (latitude, longitude), name in zip(tracks, names, strict=True):
            lon, lat = _broken(longitude, latitude)
            ax.plot(lon, lat, color="0.5", lw=0.7, ls="--")
            ax.annotate(name, (longitude[0], latitude[0]), color="0.3", fontsize=7)
        ax.set_xlim(-180, 180)
        ax.set_ylim(-90, 90)
        ax.set_xticks(np.arange(-180, 181, 60))
        ax.set_yticks(np.arange(-90, 91, 30))
        ax.set_xlabel("longitude (deg)")
        ax.set_ylabel("geodetic latitude (deg)")
        ax.set_title(
            f"coverage of an object at {MAP_ALTITUDE_KM:g} km above each sensor's mask, within "
            "its sector and range (solid; stars radar, triangles optical)\n"
            f"and {hours:g} h ground tracks of tracked objects (dashed)"
        )
        ax.grid(color="0.9", lw=0.5)
    return fig


def per_measurement_leakage(rows):
    """The epsilon that per-measurement designs reach over a pass and over the day."""
    with plt.rc_context(FONT):
        fig, ax = plt.subplots(figsize=(COLUMN, 2.8))
        levels = sorted({r["epsilon_measurement"] for r in rows})
        for key, label, colour, shift in (
            ("epsilon_pass_median", "a pass (median over its passes)", "tab:blue", -0.3),
            ("epsilon_pass_max", "its worst pass", "tab:orange", 0.0),
            ("epsilon_day", "the whole day, all stations", "tab:red", 0.3),
        ):
            values = [
                _column([r for r in rows if r["epsilon_measurement"] == e], key) for e in levels
            ]
            median = np.array([np.median(v) for v in values])
            low = median - np.array([np.percentile(v, 10) for v in values])
            high = np.array([np.percentile(v, 90) for v in values]) - median
            ax.errorbar(
                np.array(levels) + shift,
                median,
                yerr=[low, high],
                fmt="o",
                color=colour,
                ms=3,
                capsize=2,
                label=label,
            )
        ax.plot(levels, levels, color="0.6", lw=0.8, label="per-measurement level")
        ax.set_xlabel("per-measurement epsilon (nats)")
        ax.set_ylabel("achieved epsilon (nats)")
        ax.legend(
            frameon=False, fontsize=7, title="median, 10-90% of objects, over", title_fontsize=7
        )
    return fig


def _tracks(scenario, chosen):
    """Ground tracks (latitude, longitude) of the first sampled objects from SGP4, their
    names and span (h): the window's first TRACK_HOURS, where SGP4 holds for them."""
    sample = chosen[:TRACKS]
    span = min(TRACK_HOURS * 3600.0, scenario.times[-1])
    times = np.arange(0.0, span + 1.0, 60.0)
    states = sgp4_states(sample, scenario.start_jd, times)
    tracks = [ground_track(s, times, scenario.earth) for s in states]
    return tracks, [e.name.strip() or e.catalogue_number for e in sample], span / 3600.0


def save(output, scenario, chosen, rows, per_measurement, runner):
    """Write the figures (PNG and PDF) through the runner: four, or two without a truth
    (recorded measurements: no RMSE)."""
    tracks, names, hours = _tracks(scenario, chosen)
    jobs = {}
    if rows[0]["position_rmse_km"] is not None:
        jobs["rmse_cdf"] = (rmse_cdf, {"rows": rows})
        jobs["rmse_vs_epsilon"] = (rmse_vs_epsilon, {"rows": rows})
    jobs["network_coverage"] = (
        network_coverage,
        {
            "tracks": tracks,
            "names": names,
            "sensors": sensor_records(scenario.stations),
            "hours": hours,
        },
    )
    jobs["per_measurement_leakage"] = (per_measurement_leakage, {"rows": per_measurement})
    return save_figures(output, jobs, runner)
