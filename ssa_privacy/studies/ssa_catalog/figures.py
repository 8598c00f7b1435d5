"""Figures of the ssa-catalog study, drawn at a two-column paper's sizes in the house
style (8 pt text): single-column figures are
:data:`~ssa_privacy.engine.figures.COLUMN_WIDTH` wide, the network map
:data:`~ssa_privacy.engine.figures.PAGE_WIDTH`.

Objects without contact (no sensor saw them: ``status`` "no contact", no RMSE) are left
out of every distribution and counted in the figure's legend. Each designer's columns are
drawn when the run has them (``designers`` may be log-det, scaled or both).
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ssa_privacy.engine.figures import (
    COLUMN_WIDTH,
    PAGE_WIDTH,
    label_points,
    land_outlines,
    legend_below,
    save_figures,
)
from ssa_privacy.orbits.catalog import sgp4_states
from ssa_privacy.sensors.geodesy import ground_track
from ssa_privacy.sensors.visibility import coverage_outline
from ssa_privacy.studies.ssa_catalog.rows import NO_CONTACT

__all__ = [
    "COLOURS",
    "DESIGNER_COLUMNS",
    "MAP_ALTITUDE_KM",
    "MAP_TRACKS",
    "TRACK_HOURS",
    "in_contact",
    "judged",
    "left_out",
    "level_colour",
    "network_coverage",
    "per_measurement_leakage",
    "rmse_cdf",
    "rmse_vs_epsilon",
    "save",
    "sensor_records",
]

COLOURS = tuple(f"C{i}" for i in range(10))
#: The position RMSE column of each pass designer, its name in the figures and its line style.
DESIGNER_COLUMNS = (
    ("position_rmse_km", "log-det pass design", "-"),
    ("position_rmse_km_scaled", "per-measurement design, scaled", "--"),
)
#: Altitude of the coverage areas of the map (km) and the span of its ground tracks (h).
MAP_ALTITUDE_KM = 550.0
TRACK_HOURS = 3.0
#: Most ground tracks the map draws (those of the first tracked objects; the legend says
#: how many of how many).
MAP_TRACKS = 8


def _measured(row):
    return any(row.get(key) is not None for key, _, _ in DESIGNER_COLUMNS)


def _objects(count, what):
    return f"{count} object{'' if count == 1 else 's'} {what}"


def left_out(count, what):
    """The legend's note on objects a figure leaves out, None when it leaves none.

    Parameters
    ----------
    count : int
        How many objects.
    what : str
        Why, e.g. "without contact".

    Returns
    -------
    str or None
        "left out: 2 objects without contact".
    """
    return f"left out: {_objects(count, what)}" if count else None


def in_contact(rows):
    """The rows of the objects some sensor saw, and how many objects none saw.

    Parameters
    ----------
    rows : list of dict
        ``results.csv`` rows. An object is without contact when its ``status`` is
        :data:`NO_CONTACT`; in rows without a ``status``, when the run has a truth and
        the object no position RMSE.

    Returns
    -------
    seen : list of dict
        The rows of the objects in contact.
    unseen : int
        The number of objects (NORAD ids) without contact.
    """
    truth = any(_measured(row) for row in rows)
    unseen = {
        row["norad_id"]
        for row in rows
        if (row["status"] == NO_CONTACT if "status" in row else truth and not _measured(row))
    }
    return [row for row in rows if row["norad_id"] not in unseen], len(unseen)


def judged(rows):
    """The rows of the objects with a position RMSE, and a note on those left out.

    Parameters
    ----------
    rows : list of dict
        ``results.csv`` rows of a run with a truth.

    Returns
    -------
    kept : list of dict
        The rows of the objects with an RMSE from some designer at some level.
    note : str or None
        How many objects are left out and why (without contact; or in contact, but too
        late to be judged at any evaluation time), None when none is.
    """
    seen, unseen = in_contact(rows)
    kept_ids = {row["norad_id"] for row in seen if _measured(row)}
    late = len({row["norad_id"] for row in seen} - kept_ids)
    parts = [_objects(unseen, "without contact")] if unseen else []
    parts += [_objects(late, "first seen after the last evaluation time")] if late else []
    kept = [row for row in seen if row["norad_id"] in kept_ids]
    return kept, "left out: " + ", ".join(parts) if parts else None


def _values(rows, key):
    """The finite values of ``key`` in ``rows`` (missing and None left out)."""
    values = np.array([row.get(key) for row in rows], dtype=float)
    return values[np.isfinite(values)]


def _levels(rows):
    """The levels in order, each with whether it is private (a finite pass budget)."""
    levels = {}
    for row in rows:
        levels.setdefault(row["level"], np.isfinite(float(row["epsilon_pass_design"])))
    return list(levels.items())


def level_colour(index, private):
    """The colour of a level in every figure: black without privacy, C0, C1, ... after.

    Parameters
    ----------
    index : int
        The level's position among the private levels (0 for the first).
    private : bool
        Whether it is a private level.

    Returns
    -------
    str
        A matplotlib colour.
    """
    return COLOURS[index % len(COLOURS)] if private else "black"


def _level_name(level, private):
    return f"{level} nats" if private else "no privacy"


def rmse_cdf(rows):
    """Empirical CDF of the position RMSE over the objects in contact, per level and designer.

    Parameters
    ----------
    rows : list of dict
        ``results.csv`` rows.

    Returns
    -------
    Figure
        Colour: the level; line style: the designer (solid log-det, dashed scaled). The
        dotted line marks 1 km, the bound of the summaries' "tracked within 1 km".
    """
    tracked, note = judged(rows)
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.6))
    handles, styles, n = [], {}, 0
    for level, private in _levels(tracked):
        colour = level_colour(n, private)
        n += private
        mine = [row for row in tracked if row["level"] == level]
        for key, name, style in DESIGNER_COLUMNS if private else DESIGNER_COLUMNS[:1]:
            values = np.sort(_values(mine, key))
            if values.size:
                fraction = np.arange(1, values.size + 1) / values.size
                ax.step(values, fraction, style, color=colour, where="post")
                if private:
                    styles[name] = style
        handles.append(Line2D([], [], color=colour, label=_level_name(level, private)))
    handles += [Line2D([], [], color="0.3", ls=s, label=name) for name, s in styles.items()]
    ax.axvline(1.0, color="0.5", lw=0.8, ls=":")
    handles.append(Line2D([], [], color="0.5", lw=0.8, ls=":", label="1 km"))
    ax.set_xscale("log")
    ax.set_xlabel("position RMSE (km)")
    ax.set_ylabel("fraction of objects in contact")
    legend_below(fig, handles, ncol=2, title=note)
    return fig


def rmse_vs_epsilon(rows):
    """Median and 90th-percentile position RMSE against the pass-level budget.

    Parameters
    ----------
    rows : list of dict
        ``results.csv`` rows.

    Returns
    -------
    Figure
        One pair of lines per designer the run has; the no-privacy median as a line
        across.
    """
    tracked, note = judged(rows)
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.2))
    private = [level for level, is_private in _levels(tracked) if is_private]
    eps = np.array([float(level) for level in private])
    for (key, name, _), colour in zip(DESIGNER_COLUMNS, ("tab:blue", "tab:orange")):
        values = [_values([r for r in tracked if r["level"] == level], key) for level in private]
        if not all(v.size for v in values) or not values:
            continue
        ax.plot(eps, [np.median(v) for v in values], "o-", color=colour, label=f"{name}: median")
        ax.plot(
            eps,
            [np.percentile(v, 90) for v in values],
            "s:",
            color=colour,
            ms=3,
            label=f"{name}: 90th percentile",
        )
    none = _values([r for r in tracked if r["level"] not in private], "position_rmse_km")
    if none.size:
        ax.axhline(np.median(none), color="black", lw=0.8, label="no privacy: median")
    ax.set_xticks(eps)
    ax.set_yscale("log")
    ax.set_xlabel("pass-level budget epsilon (nats)")
    ax.set_ylabel("position RMSE (km)")
    legend_below(fig, ax.get_legend_handles_labels()[0], title=note)
    return fig


def _wrapped(longitude, latitude):
    """Longitudes brought into [-180, 180), with their latitudes."""
    return (np.asarray(longitude) + 180.0) % 360.0 - 180.0, latitude


def _broken(longitude, latitude):
    """Insert NaNs where a longitude series wraps, so that lines do not cross the map."""
    wrapped = np.flatnonzero(np.abs(np.diff(longitude)) > 180.0) + 1
    return np.insert(longitude, wrapped, np.nan), np.insert(latitude, wrapped, np.nan)


def sensor_records(stations):
    """What the coverage map draws of each sensor: name, kind, site, mask, sector, range.

    Parameters
    ----------
    stations : list of GroundStation
        The scenario's sensors.

    Returns
    -------
    list of dict
        ``name``, ``kind``, ``latitude``, ``longitude``, ``elevation_mask``,
        ``azimuth_sector``, ``range_max`` per sensor.
    """
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


def network_coverage(tracks, names, sensors, hours=TRACK_HOURS, note=None):
    """Map of the sensors (stars: radars, triangles: optical), their coverage and tracks.

    Parameters
    ----------
    tracks : list of tuple of ndarray
        ``(latitude, longitude)`` (deg) of each ground track to draw.
    names : list of str
        Each track's object.
    sensors : list of dict
        :func:`sensor_records`.
    hours : float
        The tracks' span (h).
    note : str, optional
        A line added to the legend (how many tracks of how many objects are drawn).

    Returns
    -------
    Figure
        Land, each sensor's coverage of an object at :data:`MAP_ALTITUDE_KM` (above its
        own mask, within its sector and range; an area round a pole filled up to it),
        the sites and the ground tracks, every site and track labelled.
    """
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH, 4.3))
    for lon, lat, edge in land_outlines():
        ax.fill(lon, lat, facecolor="0.9", edgecolor="0.7" if edge else "none", lw=0.3)
    masks = {sensor["elevation_mask"] for sensor in sensors}
    points, labels = [], []
    for n, sensor in enumerate(sensors):
        site = _draw_sensor(ax, sensor, COLOURS[n % len(COLOURS)])
        mask = "" if len(masks) == 1 else f" ({sensor['elevation_mask']:g} deg)"
        points.append(site)
        labels.append((f"{sensor['name']}{mask}", "black"))
    for (latitude, longitude), name in zip(tracks, names, strict=True):
        ax.plot(*_broken(longitude, latitude), color="0.35", lw=0.7, ls="--")
        ax.plot(longitude[0], latitude[0], "o", color="0.35", ms=3)
        points.append((longitude[0], latitude[0]))
        labels.append((name, "0.25"))
    ax.set_xlim(-180, 180)
    ax.set_ylim(-90, 90)
    ax.set_aspect("equal")
    ax.set_xticks(np.arange(-180, 181, 60))
    ax.set_yticks(np.arange(-90, 91, 30))
    ax.set_xlabel("longitude (deg)")
    ax.set_ylabel("geodetic latitude (deg)")
    handles = _coverage_legend(masks, {sensor["kind"] for sensor in sensors}, hours)
    legend_below(fig, handles, ncol=3, title=note)
    label_points(ax, points, labels)
    return fig


def _draw_sensor(ax, sensor, colour):
    """A sensor's coverage outline and area (repeated a turn either side) and its site
    marker; returns the site (longitude, latitude), deg."""
    lon, lat = coverage_outline(
        sensor["latitude"],
        sensor["longitude"],
        MAP_ALTITUDE_KM,
        sensor["elevation_mask"],
        sensor["azimuth_sector"],
        sensor["range_max"],
    )
    boundary = np.abs(lat) < 90.0  # not the closure over a pole
    ax.plot(*_broken(*_wrapped(lon[boundary], lat[boundary])), color=colour, lw=0.8)
    for shift in (-360.0, 0.0, 360.0):
        ax.fill(lon + shift, lat, facecolor=colour, alpha=0.12, lw=0)
    radar = sensor["kind"] == "radar"
    site = (sensor["longitude"], sensor["latitude"])
    ax.plot(*site, "*" if radar else "^", color=colour, ms=9 if radar else 6, mec="black", mew=0.4)
    return site


def _coverage_legend(masks, kinds, hours):
    """The map's legend entries: the sensor kinds drawn, coverage, ground tracks, land."""
    above = (
        f"above {next(iter(masks)):g} deg elevation, " if len(masks) == 1 else "above its mask, "
    )
    return [
        Line2D([], [], ls="", marker=marker, ms=size, color="0.5", mec="black", mew=0.4, label=kind)
        for kind, marker, size in (("radar", "*", 9), ("optical", "^", 6))
        if kind in kinds
    ] + [
        Patch(
            facecolor="0.5",
            alpha=0.3,
            edgecolor="0.5",
            label=f"coverage at {MAP_ALTITUDE_KM:g} km {above}within sector and range",
        ),
        Line2D(
            [],
            [],
            color="0.35",
            lw=0.7,
            ls="--",
            marker="o",
            ms=3,
            label=f"ground track, first {hours:g} h (dot: start)",
        ),
        Patch(facecolor="0.9", edgecolor="0.7", label="land"),
    ]


def per_measurement_leakage(rows):
    """The epsilon that per-measurement designs reach over a pass and over the day.

    Parameters
    ----------
    rows : list of dict
        ``per_measurement.csv`` rows. Objects without a pass (``passes`` 0) leak nothing
        and are left out, and counted in the legend.

    Returns
    -------
    Figure
        Per per-measurement level: the median over the objects and the 10-90% range of
        their median pass epsilon, worst pass epsilon and day epsilon.
    """
    passed = [row for row in rows if row["passes"] > 0]
    lost = len({row["norad_id"] for row in rows} - {row["norad_id"] for row in passed})
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.4))
    levels = sorted({row["epsilon_measurement"] for row in passed})
    dodge = 0.02 * ((max(levels) - min(levels)) if len(levels) > 1 else 1.0) if levels else 0.0
    for key, label, colour, shift in (
        ("epsilon_pass_median", "a pass (its median)", "tab:blue", -dodge),
        ("epsilon_pass_max", "its worst pass", "tab:orange", 0.0),
        ("epsilon_day", "the day, all sensors", "tab:red", dodge),
    ):
        values = [
            _values([r for r in passed if r["epsilon_measurement"] == e], key) for e in levels
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
    ax.plot(levels, levels, color="0.6", lw=0.8, label="the per-measurement level")
    ax.set_xticks(levels)
    ax.set_xlabel("per-measurement epsilon (nats)")
    ax.set_ylabel("achieved epsilon (nats)")
    title = "median and 10-90% of the objects, over"
    if lost:
        title = f"{title}\n({left_out(lost, 'without a pass')})"
    legend_below(fig, ax.get_legend_handles_labels()[0], ncol=2, title=title)
    return fig


def _tracks(scenario, chosen, rows):
    """The map's ground tracks (latitude, longitude) from SGP4 of the first MAP_TRACKS
    objects in contact, over the window's first TRACK_HOURS (where SGP4 holds for them),
    their names, span (h) and the legend's note on what is drawn."""
    tracked, lost = in_contact(rows)
    seen = {row["norad_id"] for row in tracked}
    objects = [e for e in chosen if e.norad_id in seen]
    sample = objects[:MAP_TRACKS]
    span = min(TRACK_HOURS * 3600.0, scenario.times[-1])
    times = np.arange(0.0, span + 1.0, 60.0)
    states = sgp4_states(sample, scenario.start_jd, times) if sample else []
    tracks = [ground_track(s, times, scenario.earth) for s in states]
    names = [e.name.strip() or e.catalogue_number for e in sample]
    drawn = "the" if len(sample) == len(objects) else f"{len(sample)} of the"
    note = f"ground tracks of {drawn} {_objects(len(objects), 'in contact')}"
    if lost:
        note = f"{note}; {lost} without contact"
    return tracks, names, span / 3600.0, note


def save(output, scenario, chosen, rows, per_measurement, runner):
    """Write the figures (PNG and PDF) through the runner: four, or two without a truth
    (recorded measurements: no RMSE).

    Parameters
    ----------
    output : StudyOutput
        The run's output.
    scenario : Scenario
        The run's scenario (sensors, window, Earth model).
    chosen : list of ElementSet
        The objects.
    rows : list of dict
        ``results.csv`` rows.
    per_measurement : list of dict
        ``per_measurement.csv`` rows.
    runner : Runner
        Draws the figures.

    Returns
    -------
    list of Path
        The written files.
    """
    tracks, names, hours, note = _tracks(scenario, chosen, rows)
    jobs = {}
    if any(row.get(key) is not None for row in rows for key, _, _ in DESIGNER_COLUMNS):
        jobs["rmse_cdf"] = (rmse_cdf, {"rows": rows})
        jobs["rmse_vs_epsilon"] = (rmse_vs_epsilon, {"rows": rows})
    jobs["network_coverage"] = (
        network_coverage,
        {
            "tracks": tracks,
            "names": names,
            "sensors": sensor_records(scenario.stations),
            "hours": hours,
            "note": note,
        },
    )
    jobs["per_measurement_leakage"] = (per_measurement_leakage, {"rows": per_measurement})
    return save_figures(output, jobs, runner)
