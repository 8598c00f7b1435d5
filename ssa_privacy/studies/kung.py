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

Every release of private heights is a mechanism's ``release(y, seed=...)``
(:data:`MECHANISMS`, recorded in ``results.json``); the hyperparameters are chosen by the
exponential mechanism of :func:`~ssa_privacy.privacy.dp_gp.hyperparameters.select_hyperparameters`.
The mechanisms, their theory and the reproduction notes: :doc:`/theory/dp-gp` and
:doc:`/studies/kung`.
"""

import numpy as np

from ssa_privacy.engine.data import load_kung_women as load_women
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.gp.kernels import RBF
from ssa_privacy.gp.regression import GaussianProcess
from ssa_privacy.privacy.accounting import c_delta, gaussian_mechanism_delta
from ssa_privacy.privacy.dp_gp.binning import (
    LaplaceBinningMechanism,
    integral_binning_predict,
    simple_binning_predict,
)
from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.privacy.dp_gp.hall import RKHS_METHODS, StandardDPGPMechanism, rkhs_sensitivity
from ssa_privacy.privacy.dp_gp.hyperparameters import select_hyperparameters
from ssa_privacy.privacy.dp_gp.normalisation import clip_and_normalise
from ssa_privacy.privacy.dp_gp.release import PrivacyCheck
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies._kung_figures import noise_sd, releases_figure, selection_figure

__all__ = [
    "BIN_WIDTHS",
    "CALIBRATION",
    "DATA_FILE",
    "DELTA",
    "DESCRIPTION",
    "EPSILON",
    "GRID",
    "LENGTHSCALE",
    "MECHANISMS",
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
#: The mechanism of each kind of release of private heights.
MECHANISMS = {
    "standard": StandardDPGPMechanism,
    "cloaking": CloakingMechanism,
    "binning": LaplaceBinningMechanism,
}
#: The Gaussian mechanisms' calibration: Hall et al.'s ``c(delta) / epsilon``, as the paper.
CALIBRATION = "hall"
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
    opt.add_data_folder(parser, DATA_FILE)
    opt.add_replications(parser, 60, "cross-validation splits for the RMSE of cloaking and binning")
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
    """Cloaking release at the test ages (cm) and its certificate."""
    y, norm = clip_and_normalise(height, RAW_SENSITIVITY)
    mechanism = MECHANISMS["cloaking"].from_kernel(
        RBF(lengthscale),
        noise_variance,
        age,
        test_age,
        EPSILON,
        DELTA,
        norm.sensitivity,
        calibration=CALIBRATION,
    )
    release = mechanism.release(y, seed=rng)
    return norm.unnormalise(release.values), release.certificate


def _binning(age, height, test_age, width, integral, rng):
    """Simple or integral binning at the test ages (cm) and the Laplace certificate."""
    y, norm = clip_and_normalise(height, RAW_SENSITIVITY)
    edges = np.arange(0.0, age.max() + width + 1e-9, width)
    mechanism = MECHANISMS["binning"](age, edges, EPSILON, norm.sensitivity)
    release = mechanism.release(y, seed=rng)
    binned = release.details["binned"]
    prediction = (
        integral_binning_predict(binned, test_age, seed=rng)
        if integral
        else simple_binning_predict(binned, test_age)
    )
    return norm.unnormalise(prediction), release.certificate


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
        rng)`` returns the values (cm) at the test ages and the release's certificate
        (None for the non-private GP).
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
    """Errors (cm) at the test ages and certificates of every method of :func:`_methods` on one split.

    The releases draw from ``rng`` in the order of :func:`_methods`.
    """
    results = []
    for *_, predict in _methods():
        values, certificate = predict(age[train], height[train], age[test], rng)
        results.append((values - height[test], certificate))
    return results


def _rmse_row(method, setting, errors, certificates, paper):
    """Pooled RMSE (cm) of a method over the splits, with the checks of its releases."""
    row = {
        "method": method,
        "setting": setting,
        "replications": len(errors),
        "rmse_cm": float(np.sqrt(np.mean(np.concatenate(errors) ** 2))),
        "paper_rmse_low_cm": paper[0] if paper else None,
        "paper_rmse_high_cm": paper[1] if paper else None,
    }
    return row if certificates[0] is None else {**row, **_check_columns(certificates)}


def _check_columns(certificates, epsilon=None):
    """Guarantee (``epsilon`` by default that of the releases) and worst check of a set of
    releases' certificates, as results columns."""
    checks = [PrivacyCheck.from_certificate(c) for c in certificates]
    worst = max(
        checks, key=lambda c: c.evidence.get("exact_delta", c.evidence.get("max_privacy_loss", 0.0))
    )
    return {
        "mechanism": checks[0].mechanism,
        "epsilon": checks[0].epsilon if epsilon is None else epsilon,
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
        ``(expected, realised, selection, certificates)``: the mean squared error (cm^2)
        averaged with the selection probabilities, that of the candidate drawn, the
        selection and the certificates of the candidates' releases.
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
    squared, certificates = [], []
    for lengthscale, noise_variance in selection.candidates:
        values, certificate = _cloaking(
            age[train], height[train], age[test], lengthscale, noise_variance, rng
        )
        squared.append(np.mean((values - height[test]) ** 2))
        certificates.append(certificate)
    return selection.probabilities @ squared, squared[selection.index], selection, certificates


def _cloaking_em_row(results, folds):
    """Cloaking with exponential-mechanism hyperparameters (epsilon 1 + 1).

    ``results`` holds :func:`_selection_split` of each split. ``rmse_cm`` is the RMSE
    expected over the mechanism's choice (and one draw of its noise),
    ``rmse_cm_realised`` that of the candidates drawn.
    """
    expected = [r[0] for r in results]
    realised = [r[1] for r in results]
    selections = [r[2] for r in results]
    certificates = [c for r in results for c in r[3]]
    columns = _check_columns(certificates, EPSILON + selections[0].check.epsilon)
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

    The runner passes the task's ``seed_keys`` (:func:`_tasks`). ``part`` is ``"grid"``
    (:func:`_grid_rows`), ``"releases"`` (:func:`_split_releases` on the split ``test,
    train``) or ``"selection"`` (:func:`_selection_split`).
    """
    rng = np.random.default_rng(list(seed_keys))
    if part == "grid":
        return _grid_rows(age, height, rng)
    if part == "releases":
        return _split_releases(age, height, test, train, rng)
    if part == "selection":
        return _selection_split(age, height, test, train, folds, rng)
    raise ValueError(f"unknown part {part!r}")


def _calibration_rows(age, y, norm):
    """Normalisation, posterior mean and the standard method's noise per RKHS bound (grid.csv)."""
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
    report = norm.unnormalise(gp.predict(np.array(REPORT_AGES))[0])
    rows.append(
        {
            "quantity": "posterior_mean_cm",
            **{f"age_{a:g}": float(v) for a, v in zip(REPORT_AGES, report)},
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
    return rows, norm.unnormalise(gp.predict(GRID)[0])


def _release_row(name, release, norm):
    """The noise (cm) of one release on the grid, its check and its scalar details."""
    noise = norm.std * noise_sd(release)
    return {
        "quantity": name,
        "noise_sd_cm_median": float(np.median(noise)),
        "noise_sd_cm_min": float(noise.min()),
        "noise_sd_cm_max": float(noise.max()),
        **{f"noise_sd_cm_age_{a:g}": float(noise[np.argmin(np.abs(GRID - a))]) for a in NOISE_AGES},
        **PrivacyCheck.from_certificate(release.certificate).record(),
        **{k: v for k, v in release.details.items() if np.isscalar(v)},
    }


def _grid_rows(age, height, rng):
    """Normalisation, standard-method calibrations and one release of each on the 100-age grid.

    The standard mechanism (exact RKHS sensitivity) releases first, then cloaking, both
    drawing from ``rng``.

    Returns
    -------
    tuple
        ``(rows, figure, summary)``: the rows of grid.csv, the arguments of
        :func:`._kung_figures.releases_figure` after ``age, height``, and the summary entries.
    """
    y, norm = clip_and_normalise(height, RAW_SENSITIVITY)
    rows, mean = _calibration_rows(age, y, norm)
    level = (RBF(LENGTHSCALE), NOISE_VARIANCE, age, GRID, EPSILON, DELTA, norm.sensitivity)
    standard = MECHANISMS["standard"].from_kernel(*level, calibration=CALIBRATION)
    cloaking = MECHANISMS["cloaking"].from_kernel(*level, calibration=CALIBRATION)
    releases = {
        "standard_release_exact": standard.release(y, seed=rng),
        "cloaking_release": cloaking.release(y, seed=rng),
    }
    rows += [_release_row(name, release, norm) for name, release in releases.items()]
    cloak_sd = norm.std * noise_sd(releases["cloaking_release"])
    figure = (norm, *releases.values(), mean)
    return rows, figure, {"cloaking_noise_sd_median_cm": float(np.median(cloak_sd))}


def _parameters(seed, replications, selection_replications, folds):
    """The run's settings for ``results.json``, with the mechanism class of each release."""
    if min(replications, selection_replications, folds) < 1:
        raise ValueError("replications, selection-replications and folds must be positive")
    if selection_replications > replications:
        raise ValueError(
            f"selection_replications ({selection_replications}) must not exceed replications "
            f"({replications}): the selection uses the first of the replications' splits"
        )
    return {
        "seed": seed,
        "replications": replications,
        "selection_replications": selection_replications,
        "folds": folds,
        "raw_sensitivity_cm": RAW_SENSITIVITY,
        "lengthscale": LENGTHSCALE,
        "noise_variance": NOISE_VARIANCE,
        "epsilon": EPSILON,
        "delta": DELTA,
        "calibration": CALIBRATION,
        "bin_widths": BIN_WIDTHS,
        "selection_lengthscales": SELECTION_LENGTHSCALES,
        "selection_noise_variances": SELECTION_NOISE_VARIANCES,
        "seed_scheme": SEED_SCHEME,
        "mechanisms": {kind: cls.__name__ for kind, cls in MECHANISMS.items()},
        "selection_mechanism": "exponential mechanism (select_hyperparameters)",
    }


def _tasks(seed, splits, selection_replications):
    """The DP selections (the longest tasks, first: a pool ends with short ones), the grid
    releases, then the releases of every split."""

    def split_task(part, i):
        test, train = splits[i]
        arguments = {"part": part, "test": test, "train": train}
        return Task((part, i), arguments, (seed, SEED_KEYS[part], i))

    return [
        *(split_task("selection", i) for i in range(selection_replications)),
        Task(("grid",), {"part": "grid"}, (seed, SEED_KEYS["grid"])),
        *(split_task("releases", i) for i in range(len(splits))),
    ]


def _tables(results, selection_replications, folds):
    """The RMSE rows of every method, then cloaking with DP hyperparameters.

    Returns
    -------
    tuple
        ``(rows, grid, selections)``: the results rows, :func:`_grid_rows`' output and
        the selection of each split.
    """
    selection_results = results[:selection_replications]
    grid = results[selection_replications]
    releases = results[selection_replications + 1 :]
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
    return rows + [row], grid, selections


def _figures(output, age, height, figure, selections):
    """Save [SMI] Figure 1 (``figure``: from :func:`_grid_rows`) and the selection figure."""
    output.save_figure(releases_figure(age, height, GRID, *figure), "kung_releases")
    selection = selection_figure(selections, SELECTION_LENGTHSCALES, SELECTION_NOISE_VARIANCES)
    output.save_figure(selection, "kung_selection")


def _summary(rows, grid_summary):
    """The run's summary: the grid's entries, the RMSE of every row and the checks."""
    return {
        **grid_summary,
        **{f"rmse_cm_{r['method']}_{r['setting']}": r["rmse_cm"] for r in rows},
        "all_checks_passed": all(r.get("check_passed", True) for r in rows),
    }


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
        Base seed (:data:`SEED_SCHEME`).
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
        Runs the tasks of :func:`_tasks` (default: serially in this process); results
        do not depend on it. ``results.json`` records it, each task's seed keys and the
        mechanism classes.

    Returns
    -------
    dict
        RMSE (cm) per method and the paper's values.

    Raises
    ------
    ValueError
        If a count is not positive or ``selection_replications > replications``.
    """
    parameters = _parameters(seed, replications, selection_replications, folds)
    age, height = load_women(data)
    output = StudyOutput(out, "kung", parameters)
    tasks = _tasks(seed, _splits(len(age), replications, seed), selection_replications)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    results = runner.map(
        _task,
        tasks,
        shared={"age": age, "height": height, "folds": folds},
        name="kung",
        fingerprint=(parameters, str(data)),
    )
    output.parameters["runner"] = runner.describe()
    rows, (grid_rows, figure, grid_summary), selections = _tables(
        results, selection_replications, folds
    )
    _figures(output, age, height, figure, selections)
    output.write_csv("grid.csv", grid_rows)
    summary = _summary(rows, grid_summary)
    output.write_results(rows, grid=grid_rows, summary=summary)
    return summary
