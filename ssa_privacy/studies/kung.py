"""DP GP regression of the heights of the !Kung San women on age ([SMI] §2-4).

Data: Howell's census (287 women, ages 0-85.6 years, heights 54-163 cm), read from
``howell1_kung_san.csv``. Setting of the paper and the authors' notebook: the heights are
private, the ages public; heights are clipped to a 100 cm window around the midpoint
of their range and standardised (sensitivity d = 100 cm / sd); RBF kernel with
length scale 25 years and variance 1, noise variance 0.3 (normalised), delta = 0.01.

The study reports

- the standard method (Hall et al. 2013) with the four RKHS-sensitivity bounds and the
  cloaking method on a grid of 100 ages (0 to 178.2 years), with a figure of one
  release of each at epsilon = 1;
- the RMSE (cm) of cloaking, simple binning and integral binning at epsilon = 1, and of
  cloaking with hyperparameters chosen by the exponential mechanism (epsilon = 1 for
  the selection and 1 for the release), by Monte-Carlo cross-validation (90% train,
  10% test; the test ages are the release's test points);
- the paper's ranges beside each number.

The mechanisms, their theory and the reproduction notes: :doc:`/theory/dp-gp` and
:doc:`/studies/kung`.
"""

import numpy as np

from ssa_privacy.engine.data import load_kung_women as load_women
from ssa_privacy.engine.output import StudyOutput, transactional
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.gp.regression import RBF, GaussianProcess
from ssa_privacy.privacy.accounting import c_delta, gaussian_mechanism_delta
from ssa_privacy.privacy.dp_gp.binning import (
    integral_binning_predict,
    laplace_bin_means,
    simple_binning_predict,
)
from ssa_privacy.privacy.dp_gp.cloaking import cloaking_release
from ssa_privacy.privacy.dp_gp.hall import RKHS_METHODS, rkhs_sensitivity, standard_release
from ssa_privacy.privacy.dp_gp.hyperparameters import select_hyperparameters
from ssa_privacy.privacy.dp_gp.normalisation import clip_and_normalise
from ssa_privacy.studies import _options as opt

__all__ = [
    "BIN_WIDTHS",
    "DATA_FILE",
    "DELTA",
    "DESCRIPTION",
    "EPSILON",
    "GRID",
    "LENGTHSCALE",
    "NOISE_AGES",
    "NOISE_VARIANCE",
    "PAPER",
    "RAW_SENSITIVITY",
    "REPORT_AGES",
    "SEED_KEYS",
    "SEED_SCHEME",
    "SELECTION_LENGTHSCALES",
    "SELECTION_NOISE_VARIANCES",
    "TEST_FRACTION",
    "USES_RUNNER",
    "add_arguments",
    "run",
]

USES_RUNNER = True
DESCRIPTION = "[SMI] !Kung women: standard and cloaking DP-GP, binning, DP hyperparameter selection"

DATA_FILE = "howell1_kung_san.csv"
RAW_SENSITIVITY = 100.0
LENGTHSCALE = 25.0
NOISE_VARIANCE = 0.3
DELTA = 0.01
EPSILON = 1.0
GRID = 1.8 * np.arange(100)
REPORT_AGES = (0.0, 18.0, 36.0, 54.0, 72.0)
NOISE_AGES = (0.0, 36.0, 72.0, 108.0, 144.0)
BIN_WIDTHS = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0)
SELECTION_LENGTHSCALES = (3.0, 9.0, 27.0, 81.0)
SELECTION_NOISE_VARIANCES = (0.1, 0.3, 1.0)
TEST_FRACTION = 0.1
#: Ranges reported in [SMI] §4 (RMSE, cm, epsilon = 1).
PAPER = {
    "simple_binning": (23.4, 50.7),
    "integral_binning": (14.2, 20.8),
    "cloaking": (14.3, 14.3),
    "cloaking_em": (17.4, 17.4),
}
#: Second seed key of each part of the work: ``default_rng([seed, key, ...])``.
SEED_KEYS = {"grid": 0, "split": 1, "releases": 2, "selection": 3}
SEED_SCHEME = (
    "grid releases: default_rng([seed, 0]); permutation of split i: default_rng([seed, 1, "
    "i]); releases on split i (cloaking, then simple and integral binning per width, in "
    "the order of the rows): default_rng([seed, 2, i]); DP selection and its releases on "
    "split i: default_rng([seed, 3, i])"
)


def add_arguments(parser):
    """Options of the study."""
    parser.add_argument(
        "--data",
        type=opt.existing_folder,
        default=None,
        help="data folder holding howell1_kung_san.csv (default: $SSA_PRIVACY_DATA, then "
        "../shared/data beside the repository)",
    )
    parser.add_argument(
        "--replications",
        type=opt.positive_int,
        default=60,
        help="cross-validation splits for the RMSE of cloaking and binning",
    )
    parser.add_argument(
        "--selection-replications",
        type=opt.positive_int,
        default=8,
        help="splits for cloaking with exponential-mechanism hyperparameters (at most "
        "--replications: the first of its splits)",
    )
    parser.add_argument(
        "--folds",
        type=opt.positive_int,
        default=10,
        help="Monte-Carlo CV folds inside the DP selection (paper: 100)",
    )


def _splits(n, count, seed):
    """The (test, train) index arrays of split i, from ``default_rng([seed, 1, i])``."""
    size = int(round(TEST_FRACTION * n))
    return [
        np.split(np.random.default_rng([seed, SEED_KEYS["split"], i]).permutation(n), [size])
        for i in range(count)
    ]


def _cloaking(age, height, test_age, lengthscale, noise_variance, rng):
    """Cloaking release at the test ages (cm) and its check."""
    y, norm = clip_and_normalise(height, RAW_SENSITIVITY)
    release = cloaking_release(
        RBF(lengthscale),
        noise_variance,
        age,
        y,
        test_age,
        EPSILON,
        DELTA,
        norm.sensitivity,
        seed=rng,
    )
    return norm.unnormalise(release.values), release.check


def _binning(age, height, test_age, width, integral, rng):
    """Simple or integral binning at the test ages (cm) and the Laplace check."""
    y, norm = clip_and_normalise(height, RAW_SENSITIVITY)
    edges = np.arange(0.0, age.max() + width + 1e-9, width)
    binned = laplace_bin_means(age, y, edges, EPSILON, norm.sensitivity, seed=rng)
    prediction = (
        integral_binning_predict(binned, test_age, seed=rng)
        if integral
        else simple_binning_predict(binned, test_age)
    )
    return norm.unnormalise(prediction), binned.check


def _non_private(age, height, test_age):
    y, norm = clip_and_normalise(height, RAW_SENSITIVITY)
    mean, _ = GaussianProcess(RBF(LENGTHSCALE), 0.0, NOISE_VARIANCE).fit(age, y).predict(test_age)
    return norm.unnormalise(mean), None


def _methods():
    """The rows evaluated on every split, in order.

    Returns
    -------
    list of tuple
        ``(method, setting, paper range, predict)``; ``predict(age, height, test_age,
        rng)`` returns the values (cm) at the test ages and the release's check.
    """
    methods = [
        ("non_private_gp", "l=25, s2=0.3", None, lambda a, h, t, rng: _non_private(a, h, t)),
        (
            "cloaking",
            "l=25, s2=0.3",
            PAPER["cloaking"],
            lambda a, h, t, rng: _cloaking(a, h, t, LENGTHSCALE, NOISE_VARIANCE, rng),
        ),
    ]
    for width in BIN_WIDTHS:
        for method, integral in (("simple_binning", False), ("integral_binning", True)):
            methods.append(
                (
                    method,
                    f"bin width {width:g} yr",
                    PAPER[method],
                    lambda a, h, t, rng, w=width, i=integral: _binning(a, h, t, w, i, rng),
                )
            )
    return methods


def _split_releases(age, height, test, train, rng):
    """Errors (cm) at the test ages and checks of every method of :func:`_methods` on one split.

    The releases draw from ``rng`` in the order of :func:`_methods`.
    """
    results = []
    for *_, predict in _methods():
        values, check = predict(age[train], height[train], age[test], rng)
        results.append((values - height[test], check))
    return results


def _rmse_row(method, setting, errors, checks, paper):
    """Pooled RMSE (cm) of a method over the splits, with the checks of its releases."""
    row = {
        "method": method,
        "setting": setting,
        "replications": len(errors),
        "rmse_cm": float(np.sqrt(np.mean(np.concatenate(errors) ** 2))),
        "paper_rmse_low_cm": paper[0] if paper else None,
        "paper_rmse_high_cm": paper[1] if paper else None,
    }
    return row if checks[0] is None else {**row, **_check_columns(checks, checks[0].epsilon)}


def _check_columns(checks, epsilon):
    """Guarantee and worst check of a set of releases, as results columns."""
    worst = max(
        checks, key=lambda c: c.evidence.get("exact_delta", c.evidence.get("max_privacy_loss", 0.0))
    )
    return {
        "mechanism": checks[0].mechanism,
        "epsilon": epsilon,
        "delta": checks[0].delta,
        "check_passed": all(c.passed for c in checks),
        **{f"check_{k}": v for k, v in worst.evidence.items() if isinstance(v, (int, float))},
    }


def _selection_split(age, height, test, train, folds, rng):
    """DP hyperparameter selection on one split, and every candidate's cloaking release.

    The selection runs on the training part; every candidate's cloaking release is
    evaluated on the test part.

    Returns
    -------
    tuple
        ``(expected, realised, selection, checks)``: the mean squared error (cm^2)
        averaged with the selection probabilities, that of the candidate drawn, the
        selection and the checks of the candidates' releases.
    """
    y, norm = clip_and_normalise(height[train], RAW_SENSITIVITY)
    selection = select_hyperparameters(
        age[train],
        y,
        SELECTION_LENGTHSCALES,
        SELECTION_NOISE_VARIANCES,
        epsilon=EPSILON,
        sensitivity=norm.sensitivity,
        folds=folds,
        release=(EPSILON, DELTA),
        seed=rng,
    )
    squared, checks = [], []
    for lengthscale, noise_variance in selection.candidates:
        values, check = _cloaking(
            age[train], height[train], age[test], lengthscale, noise_variance, rng
        )
        squared.append(np.mean((values - height[test]) ** 2))
        checks.append(check)
    return selection.probabilities @ squared, squared[selection.index], selection, checks


def _cloaking_em_row(results, folds):
    """Cloaking with exponential-mechanism hyperparameters (epsilon 1 + 1).

    ``results`` holds :func:`_selection_split` of each split. ``rmse_cm`` is the RMSE
    expected over the mechanism's choice (and one draw of its noise),
    ``rmse_cm_realised`` that of the candidates drawn.
    """
    expected = [r[0] for r in results]
    realised = [r[1] for r in results]
    selections = [r[2] for r in results]
    checks = [check for r in results for check in r[3]]
    columns = _check_columns(checks, EPSILON + selections[0].check.epsilon)
    columns["mechanism"] += " after exponential-mechanism selection (sequential composition)"
    columns["check_passed"] &= all(s.check.passed for s in selections)
    row = {
        "method": "cloaking_em",
        "setting": f"grid {len(SELECTION_LENGTHSCALES)}x{len(SELECTION_NOISE_VARIANCES)}, "
        f"{folds} folds",
        "replications": len(results),
        "rmse_cm": float(np.sqrt(np.mean(expected))),
        "rmse_cm_realised": float(np.sqrt(np.mean(realised))),
        "paper_rmse_low_cm": PAPER["cloaking_em"][0],
        "paper_rmse_high_cm": PAPER["cloaking_em"][1],
        "selected": "; ".join(f"l={s.lengthscale:g}, s2={s.noise_variance:g}" for s in selections),
        **columns,
    }
    return row, selections


def _task(age, height, folds, part, seed_keys, test=None, train=None):
    """One task of the runner, with random numbers from ``default_rng(list(seed_keys))``.

    ``part`` is ``"grid"`` (:func:`_grid_rows`), ``"releases"`` (:func:`_split_releases`
    on the split ``test, train``) or ``"selection"`` (:func:`_selection_split`).
    """
    rng = np.random.default_rng(list(seed_keys))
    if part == "grid":
        return _grid_rows(age, height, rng)
    if part == "releases":
        return _split_releases(age, height, test, train, rng)
    if part == "selection":
        return _selection_split(age, height, test, train, folds, rng)
    raise ValueError(f"unknown part {part!r}")


def _figure_releases(age, height, norm, standard, cloak, mean):
    """[SMI] Figure 1: one standard and one cloaking release on the grid (``mean``: cm)."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (title, release) in zip(
        axes,
        (("A. standard (Hall et al.), exact RKHS sensitivity", standard), ("B. cloaking", cloak)),
    ):
        values = norm.unnormalise(release.values)
        sd = norm.std * release.noise_sd
        ax.plot(age, height, ".", color="grey", ms=3, label="data (women)")
        ax.plot(GRID, mean, "k", lw=1, label="non-private posterior mean")
        ax.plot(GRID, values, "C1", label="DP release (one draw)")
        ax.fill_between(
            GRID,
            values - 2 * sd,
            values + 2 * sd,
            color="C1",
            alpha=0.2,
            label="+- 2 sd of DP noise",
        )
        ax.set_ylim(0, 250)
        ax.set_xlabel("age (years)")
        ax.set_ylabel("height (cm)")
        ax.set_title(
            f"{title}\nepsilon = {release.epsilon:g}, delta = {release.delta:g}, "
            f"check {'passed' if release.check.passed else 'FAILED'}",
            fontsize=9,
        )
        ax.legend(fontsize=7, loc="lower right")
    return figure


def _figure_selection(selections):
    import matplotlib.pyplot as plt

    candidates = selections[0].candidates
    probabilities = np.mean([s.probabilities for s in selections], axis=0)
    figure, ax = plt.subplots(figsize=(7, 4))
    for k, s2 in enumerate(SELECTION_NOISE_VARIANCES):
        chosen = candidates[:, 1] == s2
        ax.bar(
            np.arange(len(SELECTION_LENGTHSCALES)) + 0.25 * (k - 1),
            probabilities[chosen],
            width=0.25,
            label=f"noise variance {s2:g}",
        )
    ax.set_xticks(range(len(SELECTION_LENGTHSCALES)), [f"{l:g}" for l in SELECTION_LENGTHSCALES])
    ax.set_xlabel("length scale (years)")
    ax.set_ylabel("selection probability (mean over splits)")
    ax.set_title(
        "Exponential mechanism (epsilon = 1), utility includes the cloaking noise at epsilon = 1"
    )
    ax.legend(fontsize=8)
    return figure


def _grid_rows(age, height, rng):
    """Normalisation, standard-method calibrations and cloaking noise on the 100-age grid.

    Returns
    -------
    tuple
        ``(rows, figure, summary)``: the rows of grid.csv, the arguments of
        :func:`_figure_releases` after ``age, height``, and the summary entries.
    """
    y, norm = clip_and_normalise(height, RAW_SENSITIVITY)
    kernel = RBF(LENGTHSCALE)
    rows = [
        {
            "quantity": "normalisation",
            "centre_cm": norm.centre,
            "mean_cm": norm.mean,
            "sd_cm": norm.std,
            "sensitivity_normalised": norm.sensitivity,
            "clipped": norm.n_clipped,
        }
    ]
    gp = GaussianProcess(kernel, 0.0, NOISE_VARIANCE).fit(age, y)
    rows.append(
        {
            "quantity": "posterior_mean_cm",
            **{
                f"age_{a:g}": float(v)
                for a, v in zip(REPORT_AGES, norm.unnormalise(gp.predict(np.array(REPORT_AGES))[0]))
            },
        }
    )
    for method in RKHS_METHODS:
        Delta = rkhs_sensitivity(kernel(age), NOISE_VARIANCE, norm.sensitivity, method)
        rows.append(
            {
                "quantity": f"standard_noise_sd_cm_eps1_{method}",
                "rkhs_sensitivity": Delta,
                "noise_sd_cm": Delta * c_delta(DELTA) / EPSILON * norm.std,
                "valid_bound": method != "paper_refinement",
            }
        )
    msense = rkhs_sensitivity(kernel(age), NOISE_VARIANCE, norm.sensitivity, "paper_refinement")
    rows.append(
        {
            "quantity": "paper_figure_standard_eps100",
            "noise_sd_cm": msense * c_delta(DELTA) / 100 * norm.std,
            "exact_delta_at_eps100": gaussian_mechanism_delta(100 / c_delta(DELTA), 100.0),
            "note": (
                "Hall's c(delta)/epsilon at epsilon = 100 is outside its proof; "
                "the exact delta shows it is not (100, 0.01)-DP"
            ),
        }
    )
    standard = standard_release(
        kernel, NOISE_VARIANCE, age, y, GRID, EPSILON, DELTA, norm.sensitivity, seed=rng
    )
    cloak = cloaking_release(
        kernel, NOISE_VARIANCE, age, y, GRID, EPSILON, DELTA, norm.sensitivity, seed=rng
    )
    sd = norm.std * cloak.noise_sd
    for name, release in (("standard_release_exact", standard), ("cloaking_release", cloak)):
        noise = norm.std * release.noise_sd
        rows.append(
            {
                "quantity": name,
                "noise_sd_cm_median": float(np.median(noise)),
                "noise_sd_cm_min": float(noise.min()),
                "noise_sd_cm_max": float(noise.max()),
                **{
                    f"noise_sd_cm_age_{a:g}": float(noise[np.argmin(np.abs(GRID - a))])
                    for a in NOISE_AGES
                },
                **release.record(),
                **{k: v for k, v in release.details.items() if np.isscalar(v)},
            }
        )
    figure = (norm, standard, cloak, norm.unnormalise(gp.predict(GRID)[0]))
    return rows, figure, {"cloaking_noise_sd_median_cm": float(np.median(sd))}


@transactional
def run(
    out,
    seed,
    progress,
    data=None,
    replications=60,
    selection_replications=8,
    folds=10,
    runner=None,
):
    """Run the study; write figures and results; return a summary.

    Parameters
    ----------
    out : Path
        Output folder.
    seed : int
        Base seed: the releases on the 100-age grid draw from ``default_rng([seed, 0])``,
        the permutation of split i from ``default_rng([seed, 1, i])``, the releases of
        split i from ``default_rng([seed, 2, i])`` and its DP selection from
        ``default_rng([seed, 3, i])``.
    progress : bool
        Show a progress bar.
    data : str or Path, optional
        Data folder.
    replications : int
        Cross-validation splits for cloaking and binning.
    selection_replications : int
        Splits for cloaking with exponential-mechanism hyperparameters.
    folds : int
        Monte-Carlo CV folds inside the selection.
    runner : Runner, optional
        Runs the tasks: the DP selection on each of the first ``selection_replications``
        splits, the releases on the grid, and the releases on each split (default:
        serially in this process). Results do not depend on it; ``results.json``
        records it and each task's seed keys.

    Returns
    -------
    dict
        RMSE (cm) per method and the paper's values.
    """
    if min(replications, selection_replications, folds) < 1:
        raise ValueError("replications, selection-replications and folds must be positive")
    if selection_replications > replications:
        raise ValueError(
            f"selection_replications ({selection_replications}) must not exceed replications "
            f"({replications}): the selection uses the first of the replications' splits"
        )
    age, height = load_women(data)
    parameters = {
        "seed": seed,
        "replications": replications,
        "selection_replications": selection_replications,
        "folds": folds,
        "raw_sensitivity_cm": RAW_SENSITIVITY,
        "lengthscale": LENGTHSCALE,
        "noise_variance": NOISE_VARIANCE,
        "epsilon": EPSILON,
        "delta": DELTA,
        "bin_widths": BIN_WIDTHS,
        "selection_lengthscales": SELECTION_LENGTHSCALES,
        "selection_noise_variances": SELECTION_NOISE_VARIANCES,
        "seed_scheme": SEED_SCHEME,
    }
    output = StudyOutput(out, "kung", parameters)
    splits = _splits(len(age), replications, seed)

    def split_task(part, i):
        keys = (seed, SEED_KEYS[part], i)
        test, train = splits[i]
        arguments = {"part": part, "seed_keys": keys, "test": test, "train": train}
        return Task((part, i), arguments, keys)

    # The longest tasks (the selections) first, so that a pool ends with short ones.
    tasks = [split_task("selection", i) for i in range(selection_replications)]
    grid_keys = (seed, SEED_KEYS["grid"])
    tasks.append(Task(("grid",), {"part": "grid", "seed_keys": grid_keys}, grid_keys))
    tasks += [split_task("releases", i) for i in range(replications)]
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    results = runner.map(
        _task,
        tasks,
        shared={"age": age, "height": height, "folds": folds},
        name="kung",
        fingerprint=(parameters, str(data)),
    )
    output.parameters["runner"] = runner.describe()
    selection_results = results[:selection_replications]
    grid_rows, figure, grid_summary = results[selection_replications]
    releases = results[selection_replications + 1 :]
    output.save_figure(_figure_releases(age, height, *figure), "kung_releases")
    output.write_csv("grid.csv", grid_rows)
    rows = [
        _rmse_row(
            method,
            setting,
            [split[m][0] for split in releases],
            [split[m][1] for split in releases],
            paper,
        )
        for m, (method, setting, paper, _) in enumerate(_methods())
    ]
    row, selections = _cloaking_em_row(selection_results, folds)
    rows.append(row)
    output.save_figure(_figure_selection(selections), "kung_selection")
    summary = {
        **grid_summary,
        **{f"rmse_cm_{r['method']}_{r['setting']}": r["rmse_cm"] for r in rows},
        "all_checks_passed": all(r.get("check_passed", True) for r in rows),
    }
    output.write_results(rows, grid=grid_rows, summary=summary)
    return summary
