"""The layout checker (:func:`ssa_privacy.engine.figures.layout_problems`) on hand-made
figures: each fault it names is found in a figure made to have it, and a figure made
without faults passes."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from ssa_privacy.engine.figures import layout_problems
from ssa_privacy.engine.transaction import FIGURE_STYLE


@pytest.fixture(autouse=True)
def house_style():
    with matplotlib.rc_context(FIGURE_STYLE):
        yield
    plt.close("all")


def _axes(figsize=(3.5, 2.6)):
    figure, ax = plt.subplots(figsize=figsize)
    ax.set_xlabel("time (h)")
    ax.set_ylabel("error (km)")
    return figure, ax


def _good():
    """A line and a band with their legend below the axes: nothing to report."""
    figure, ax = _axes()
    t = np.linspace(0.0, 10.0, 50)
    ax.plot(t, np.sin(t), label="estimate")
    ax.fill_between(t, np.sin(t) - 0.2, np.sin(t) + 0.2, alpha=0.3, label="95% band")
    figure.legend(loc="outside lower center", ncol=2)
    return figure


def test_a_well_made_figure_has_no_problem():
    assert layout_problems(_good()) == []


def test_a_legend_over_a_line_is_found():
    figure, ax = _axes()
    t = np.linspace(0.0, 1.0, 50)
    ax.plot(t, 0.5 + 0.0 * t, label="flat line through the middle")
    ax.legend(loc="center")
    assert any("legend" in p and "covers data" in p for p in layout_problems(figure))


def test_a_legend_beside_the_data_is_not_a_problem():
    figure, ax = _axes()
    ax.plot([0.0, 0.2], [0.0, 0.2], label="line in the lower left")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.legend(loc="upper right")
    assert layout_problems(figure) == []


@pytest.mark.parametrize(
    "draw",
    [
        lambda ax: ax.scatter([0.5], [0.5], s=20, label="a point"),
        lambda ax: ax.plot([0.5], [0.5], "o", label="a marker"),
        lambda ax: ax.fill_between([0.0, 1.0], [0.3, 0.3], [0.7, 0.7], label="a band"),
        lambda ax: ax.add_patch(plt.Rectangle((0.4, 0.4), 0.2, 0.2, label="a patch")),
        lambda ax: ax.imshow(np.ones((2, 2)), extent=(0, 1, 0, 1), label="an image"),
        lambda ax: ax.errorbar([0.5], [0.5], yerr=[0.4], fmt="none", label="an error bar"),
        lambda ax: ax.step([0.0, 0.5, 1.0], [0.0, 0.5, 0.5], where="post", label="a step"),
    ],
    ids=["scatter", "marker", "band", "patch", "image", "errorbar", "step"],
)
def test_a_legend_over_every_kind_of_data_is_found(draw):
    figure, ax = _axes()
    draw(ax)
    ax.plot([], [], label="an empty line: the legend is never empty")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.legend(loc="center")
    assert any("covers data" in p for p in layout_problems(figure))


def test_a_line_broken_by_nan_is_not_drawn_in_its_gap():
    figure, ax = _axes()
    ax.plot([0.0, 0.1, np.nan, 0.9, 1.0], [0.5, 0.5, np.nan, 0.5, 0.5], label="gap")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.legend(loc="center")
    assert layout_problems(figure) == []


def test_overlapping_annotations_are_found():
    figure, ax = _axes()
    ax.plot([0.0, 1.0], [0.0, 1.0])
    ax.annotate("Fylingdales", (0.5, 0.5))
    ax.annotate("TIRA", (0.52, 0.5))
    assert any("'Fylingdales'" in p and "'TIRA'" in p for p in layout_problems(figure))


def test_overlapping_tick_labels_are_found():
    figure, ax = _axes(figsize=(1.5, 2.6))
    ax.plot([0.0, 1.0], [0.0, 1.0])
    ax.set_xticks(np.linspace(0.0, 1.0, 11), [f"{x:.4f}" for x in np.linspace(0, 1, 11)])
    assert any("overlap" in p for p in layout_problems(figure))


def test_a_title_wider_than_the_figure_is_found():
    figure, ax = _axes()
    ax.plot([0.0, 1.0], [0.0, 1.0])
    ax.set_title("a title far too long for a single column of a two-column paper, clipped")
    assert any("outside the figure" in p for p in layout_problems(figure))


def test_small_fonts_are_found_and_a_wide_figure_is_printed_smaller():
    figure, ax = _axes()
    ax.plot([0.0, 1.0], [0.0, 1.0])
    ax.set_title("small", fontsize=6)
    assert any("below 8 pt" in p and "'small'" in p for p in layout_problems(figure))
    wide = _good()
    wide.set_size_inches(14.0, 4.0)
    assert any("down to 4.0 pt" in p for p in layout_problems(wide))
    assert layout_problems(wide, width=14.0) == []


def test_an_axis_without_a_label_is_found_unless_its_row_or_column_has_one():
    figure, axes = plt.subplots(2, 2, figsize=(3.5, 3.5), sharex=True, sharey=True)
    for ax in axes.flat:
        ax.plot([0.0, 1.0], [0.0, 1.0])
    for ax in axes[-1]:
        ax.set_xlabel("x (m)")
    axes[0, 0].set_ylabel("y (m)")
    problems = layout_problems(figure)
    assert len(problems) == 1 and "the y axis" in problems[0]
    axes[1, 0].set_ylabel("y (m)")
    assert layout_problems(figure) == []


def test_invisible_and_hidden_texts_are_not_inspected():
    figure, ax = _axes()
    ax.plot([0.0, 1.0], [0.0, 1.0])
    ax.annotate("hidden", (0.5, 0.5)).set_visible(False)
    ax.annotate("also hidden", (0.5, 0.5)).set_visible(False)
    off = figure.add_axes((0.0, 0.0, 0.1, 0.1))
    off.set_axis_off()
    assert layout_problems(figure) == []


@pytest.mark.parametrize("option", ["width", "min_font"])
@pytest.mark.parametrize("value", [0, -1.0, np.nan, np.inf, "7", True])
def test_bad_sizes_are_refused(option, value):
    with pytest.raises(ValueError, match=f"^{option} must be a positive finite number"):
        layout_problems(_good(), **{option: value})
