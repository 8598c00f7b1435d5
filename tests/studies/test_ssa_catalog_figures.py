"""The ssa-catalog figures on made-up rows: every designer subset draws, objects without
contact are counted apart (never drawn as a value), objects without a pass are left out of
the leakage, every ground track is labelled, and
no figure has a layout problem (:func:`~ssa_privacy.engine.figures.layout_problems`)."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from ssa_privacy.engine.figures import layout_problems
from ssa_privacy.engine.transaction import FIGURE_STYLE
from ssa_privacy.studies.ssa_catalog import figures as figures
from ssa_privacy.studies.ssa_catalog import trust_figures as trust
from ssa_privacy.studies.ssa_catalog.rows import NO_CONTACT, TRACKED

LEVELS = {"none": np.inf, "10": 10.0, "14": 14.0, "20": 20.0}
SEEN, UNSEEN = (101, 102, 103, 104, 105), (201, 202)
DESIGNERS = [("logdet",), ("scaled",), ("logdet", "scaled")]


@pytest.fixture(autouse=True)
def house_style():
    with matplotlib.rc_context(FIGURE_STYLE):
        yield
    plt.close("all")


def _rows(designers, status=True):
    """results.csv rows: RMSE 0.1 km * object index * 10 / level; none for unseen objects."""
    rows = []
    for norad in SEEN + UNSEEN:
        for level, epsilon in LEVELS.items():
            seen = norad in SEEN
            rmse = 0.1 * (norad - 100) * (1.0 if level == "none" else 20.0 / epsilon)
            row = {"norad_id": norad, "level": level, "epsilon_pass_design": epsilon}
            row["position_rmse_km"] = (
                rmse if seen and (level == "none" or "logdet" in designers) else None
            )
            row["position_rmse_km_scaled"] = (
                3.0 * rmse if seen and level != "none" and "scaled" in designers else None
            )
            if status:
                row["status"] = TRACKED if seen else NO_CONTACT
            rows.append(row)
    return rows


def _plotted_x(figure):
    return np.concatenate(
        [line.get_xdata() for line in figure.axes[0].lines if len(line.get_xdata())]
    )


def _legend_text(figure):
    legend = figure.legends[0]
    return " | ".join([legend.get_title().get_text(), *(t.get_text() for t in legend.get_texts())])


@pytest.mark.parametrize("designers", DESIGNERS, ids=["logdet", "scaled", "both"])
@pytest.mark.parametrize("status", [True, False], ids=["status", "no-status-column"])
def test_rmse_figures_draw_every_designer_subset_and_count_objects_without_contact(
    designers, status
):
    rows = _rows(designers, status)
    for build in (figures.rmse_cdf, figures.rmse_vs_epsilon):
        figure = build(rows)
        assert layout_problems(figure) == []
        legend = _legend_text(figure)
        assert "left out: 2 objects without contact" in legend
        assert ("log-det pass design" in legend) == ("logdet" in designers)
        assert ("per-measurement design, scaled" in legend) == ("scaled" in designers)
        assert legend.count("no privacy") == 1
        x = _plotted_x(figure)
        assert np.all(np.isfinite(x[x != 1.0]) | np.isnan(x[x != 1.0]))
    # The CDF has one step per object in contact: the unseen objects are not values.
    cdf = figures.rmse_cdf(rows)
    steps = [line for line in cdf.axes[0].lines if len(line.get_xdata()) > 2]
    assert steps and all(len(line.get_xdata()) == len(SEEN) for line in steps)


def test_the_1_km_line_of_the_cdf_is_in_the_legend():
    figure = figures.rmse_cdf(_rows(("logdet",)))
    assert "1 km" in _legend_text(figure).split(" | ")


def test_an_object_seen_too_late_to_be_judged_is_counted_apart():
    rows = _rows(("logdet",))
    for row in rows:
        if row["norad_id"] == SEEN[0]:
            row["position_rmse_km"] = None
    kept, note = figures.judged(rows)
    assert {row["norad_id"] for row in kept} == set(SEEN[1:])
    assert note == (
        "left out: 2 objects without contact, 1 object first seen after the last evaluation time"
    )


def test_without_a_truth_every_object_without_a_status_counts_as_seen():
    rows = [{**row, "position_rmse_km": None} for row in _rows(("logdet",), status=False)]
    assert figures.in_contact(rows) == (rows, 0)


def test_per_measurement_leakage_leaves_out_objects_without_a_pass():
    rows = [
        {
            "norad_id": norad,
            "epsilon_measurement": level,
            "epsilon_pass_median": level * 1.4 if norad in SEEN else 0.0,
            "epsilon_pass_max": level * 1.5 if norad in SEEN else 0.0,
            "epsilon_day": level * 2.0 if norad in SEEN else 0.0,
            "passes": 3 if norad in SEEN else 0,
        }
        for norad in SEEN + UNSEEN
        for level in (7.0, 12.0, 24.0)
    ]
    figure = figures.per_measurement_leakage(rows)
    assert layout_problems(figure) == []
    assert "left out: 2 objects without a pass" in _legend_text(figure)
    bars = [c for c in figure.axes[0].collections]
    lowest = min(np.min(segment[:, 1]) for c in bars for segment in c.get_segments())
    assert lowest >= 7.0 * 1.4 - 1e-9  # no 0-nat object pulls a band down


def test_the_map_labels_every_site_and_every_track_apart():
    sensors = [
        {"name": n, "kind": k, "latitude": la, "longitude": lo, "elevation_mask": 5.0,
         "azimuth_sector": None, "range_max": None}
        for n, k, la, lo in (
            ("Fylingdales", "radar", 54.4, -0.7), ("TIRA", "radar", 50.6, 7.1),
            ("Thule", "radar", 76.5, -68.7), ("Teide", "optical", 28.3, -16.5),
        )
    ]  # fmt: skip
    t = np.linspace(0.0, 2.0 * np.pi, 200)
    tracks = [
        (50.0 * np.sin(t + k), np.degrees((t * 1.1 + k) % (2 * np.pi)) - 180.0) for k in range(6)
    ]
    names = [f"OBJECT-{k}" for k in range(6)]
    figure = figures.network_coverage(tracks, names, sensors, note="ground tracks of all 6")
    texts = [t.get_text() for t in figure.axes[0].texts if t.get_text()]
    assert sorted(texts) == sorted([s["name"] for s in sensors] + names)
    assert layout_problems(figure) == []


def test_the_day_budget_figure_keeps_every_designer_visible():
    rows = [
        {"norad_id": n, "designer": d, "epsilon_day": b, "feasible": True,
         "position_rmse_km": None if n in UNSEEN else (0.15 if d != "measurement" else 11.0) / b}
        for n in SEEN + UNSEEN for d in ("day", "pass", "measurement") for b in (10.0, 12.0, 14.0)
    ]  # fmt: skip
    figure = trust.day_budgets(rows)
    assert layout_problems(figure) == []
    lines = figure.axes[0].lines
    sizes = [line.get_markersize() for line in lines]
    assert len(set(sizes)) == len(lines)  # equal medians: the later marker sits inside
    assert all(line.get_markerfacecolor() == "none" for line in lines)
    assert list(figure.axes[0].get_xticks()) == [10.0, 12.0, 14.0]
    assert "left out: 2 objects without an RMSE" in _legend_text(figure)


def test_detectability_labels_say_their_level_and_unit_apart():
    points = [
        {"scope": scope, "label": label, "rmse_km": rmse, "auc": auc, "magnitude_m_s": size}
        for scope in ("pass", "day")
        for label, rmse, auc in (("no privacy", 0.006, 1.0), ("25 nats", 0.007, 1.0),
                                 ("10 nats", 0.12, 0.6))
        for size in (0.1, 1.0)
    ]  # fmt: skip
    figure = trust.detectability_tradeoff(points)
    assert layout_problems(figure) == []
    labels = [t.get_text() for ax in figure.axes for t in ax.texts if t.get_text()]
    assert sorted(labels) == sorted(["no privacy", "25 nats", "10 nats"] * 2)


@pytest.mark.parametrize("rmse", [0.05, np.nan, None], ids=["measured", "nan", "none"])
def test_a_level_without_a_measured_rmse_has_no_tradeoff_point(rmse):
    """Given measurements (no truth) the RMSE medians are NaN: no point may be drawn."""
    summaries = {"none": {"none": {"position_rmse_km_median": rmse}}}
    table = {"unknown": {"1": {"auc": 0.9}}}
    detectability = {"none": {"none": {"pass": table, "day": table}}}
    points = trust.tradeoff_points(summaries, detectability)
    assert len(points) == (2 if rmse == 0.05 else 0)
