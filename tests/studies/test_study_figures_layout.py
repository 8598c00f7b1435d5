"""Every study's figures, rendered by a small run of the study, have no layout problem
(:func:`~ssa_privacy.engine.figures.layout_problems`: no text outside the figure or over
another, no legend over data, 8 pt text at a page's width, every axis labelled).

The quick studies (about 5 s in all) run in the default test run; the others (about
60 s) are marked slow. The default run also checks that every study has its small
options here, so that a new study is not left out.
"""

from pathlib import Path

import pytest
from matplotlib.figure import Figure

from ssa_privacy.cli import main
from ssa_privacy.engine.data import CENSUS_FILE, CENSUS_SPLIT_FILE, KUNG_FILE
from ssa_privacy.engine.figures import layout_problems
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE
from ssa_privacy.studies import study_info, study_names

#: Each study's smallest options (those of its own tests) and the data files it reads.
SMALL = {
    "building": (["--steps", "40", "--mc-samples", "40000"], ()),
    "census": (["--replications", "1", "--restarts", "1"], (CENSUS_FILE, CENSUS_SPLIT_FILE)),
    "example1": ([], ()),
    "excursion": (
        ["--replications", "2", "--validation", "1", "--n", "40", "--paths", "2", "--rounds", "0"],
        (),
    ),
    "kung": (
        ["--replications", "2", "--selection-replications", "1", "--folds", "2"],
        (KUNG_FILE,),
    ),
    "mia": (
        ["--replications", "200", "--ridges", "0.1", "1", "10", "--sigmas", "0.5"]
        + ["--path-counts", "1", "3", "10"],
        (),
    ),
    "pml-bounds": (
        ["--runs", "10", "--steps", "120", "--burn-in", "20", "--epsilons", "5.5,7"]
        + ["--mc-samples", "40000"],
        (),
    ),
    "satellite": (["--replications", "3", "--table-seeds", "2"], ()),
    "sgp4-validation": (
        ["--satellites", "iss,06251,28872", "--hours", "3", "--secular-days", "1.5"],
        (ACTIVE_CATALOGUE_FILE,),
    ),
    "ssa-catalog": (
        ["--objects", "2", "--hours", "6", "--day-epsilons", "12"],
        (ACTIVE_CATALOGUE_FILE,),
    ),
    "ssa-leakage": (
        ["--objects-per-regime", "leo=1", "--passes", "first", "--outcomes", "40"]
        + ["--epsilons", "10"],
        (ACTIVE_CATALOGUE_FILE,),
    ),
    "ssa-network": (
        ["--runs", "3", "--epsilons", "7,30", "--hours", "4", "--burn-in-hours", "2"]
        + ["--cw-runs", "4", "--cw-steps", "120", "--cw-burn-in", "20", "--mc-samples", "20000"],
        (ACTIVE_CATALOGUE_FILE,),
    ),
}


#: The studies whose small run takes a second or two: in the default test run.
QUICK = {"building", "example1", "pml-bounds", "sgp4-validation", "ssa-leakage"}


def test_every_study_has_its_small_options_here():
    assert sorted(SMALL) == study_names()


@pytest.fixture
def drawn(monkeypatch):
    """Figure name -> its layout problems, for every PNG a study saves while it runs."""
    found = {}
    save = Figure.savefig

    def checked(figure, target, *args, **kwargs):
        name = Path(str(target)).name
        if ".png" in name:  # the PNG's temporary: .<stem>.png.<pid>-<token>.part
            found[name.lstrip(".").split(".png")[0]] = layout_problems(figure)
        return save(figure, target, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checked)
    return found


def _marks(name):
    data = pytest.mark.data(*SMALL[name][1])
    return [data] if name in QUICK else [data, pytest.mark.slow]


@pytest.mark.parametrize("name", [pytest.param(name, marks=_marks(name)) for name in SMALL])
def test_every_figure_of_the_study_reads_at_a_page_width(name, drawn, tmp_path):
    options, _ = SMALL[name]
    serial = ["--workers", "1"] if study_info(name).uses_runner else []  # drawn here
    command = ["run", name, "--out", str(tmp_path / "out"), "--no-progress", *serial, *options]
    assert main(command) == 0
    pngs = {path.stem for path in (tmp_path / "out").glob("*.png")}
    assert pngs and set(drawn) == pngs
    assert {stem: problems for stem, problems in drawn.items() if problems} == {}
