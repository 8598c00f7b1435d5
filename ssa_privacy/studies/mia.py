"""Membership inference on GP posterior sampling against the RDP bound [MAC §4, App. C].

Setting (that of the authors' code, see :doc:`/theory/posterior-sampling`): n points on
[0, 1] with responses ``y = s(x)``, the step ``s(x) = -1`` for ``x < 0.5`` and ``+1``
otherwise; the target is ``x0 = 0.5``. An "in" data set holds the target plus
``floor(n/2)`` uniform points in [0, 0.5) and the rest in [0.5, 1]; an "out" data set
holds ``floor(n/2)`` and ``n - floor(n/2)`` such points (the authors' stratified design;
the two are replace-one neighbours). The mechanism
releases L posterior sample paths of a GP with the exponential kernel
``exp(-|x - x'| / l)``, ridge r and scale sigma; the attacker sees their values at x0.

Attacks: the LiRA of [MAC] App. C and the baseline threshold on the sample mean
(:mod:`ssa_privacy.attacks.membership`), fitted on shadow releases and evaluated on
fresh ones. Each configuration records the epsilon of the bound (Theorem 3.1,
Lemma B.7, L-fold composition, optimal order) at the chosen delta and checks that the
measured attack stays inside the region any (epsilon, delta)-DP release allows.
"""

import numpy as np
from scipy import stats

from ssa_privacy.attacks.membership import (
    DEFAULT_FPRS,
    LiRA,
    MeanThresholdAttack,
    evaluate_attack,
    max_auc_under_dp,
    max_tpr_under_dp,
    release_statistics,
)
from ssa_privacy.engine.output import StudyOutput, transactional
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.gp.regression import Exponential, GaussianProcess
from ssa_privacy.privacy.posterior_sampling.mechanism import PosteriorSamplingBound
from ssa_privacy.studies import _options as opt

__all__ = [
    "CHECK_LEVEL",
    "DESCRIPTION",
    "L_SWEEP_SETTING",
    "PATH_COUNTS",
    "RIDGES",
    "SIGMAS",
    "TARGET",
    "USES_RUNNER",
    "add_arguments",
    "posterior_at_target",
    "release_at_target",
    "run",
    "step_datasets",
]

USES_RUNNER = True
DESCRIPTION = "[MAC] §4: LiRA membership inference on GP posterior sampling vs the RDP bound"

#: Target input and its (noise-free) label.
TARGET = 0.5
#: Ridges and scales of the sigma/r sweep (L = 3) and path counts of the L sweep.
RIDGES = (0.1, 0.3, 1.0, 3.0, 10.0)
SIGMAS = (0.1, 0.5, 2.0)
PATH_COUNTS = (1, 2, 3, 5, 10, 20, 50)
#: (ridge, sigma) of the L sweep.
L_SWEEP_SETTING = (1.0, 0.5)
#: Significance of the per-row Clopper-Pearson check against the DP region.
CHECK_LEVEL = 1e-3


def add_arguments(parser):
    """Options of the study."""
    parser.add_argument(
        "--replications",
        type=opt.int_at_least(100),
        default=2000,
        help="shadow and evaluation releases per hypothesis, at least 100 (paper: 10000)",
    )
    parser.add_argument("--n", type=opt.positive_int, default=10, help="data-set size (default 10)")
    parser.add_argument(
        "--lengthscale",
        type=opt.positive_float,
        default=1.0,
        help="kernel length scale l (default 1)",
    )
    parser.add_argument(
        "--delta", type=opt.probability, default=1e-5, help="delta of the bound (default 1e-5)"
    )
    parser.add_argument(
        "--ridges",
        type=opt.positive_float,
        nargs="+",
        default=list(RIDGES),
        help="ridges r of the sigma/r sweep",
    )
    parser.add_argument(
        "--sigmas",
        type=opt.positive_float,
        nargs="+",
        default=list(SIGMAS),
        help="scales sigma of the sigma/r sweep",
    )
    parser.add_argument(
        "--path-counts",
        type=opt.positive_int,
        nargs="+",
        default=list(PATH_COUNTS),
        help="L values of the L sweep",
    )


def step_datasets(n, include_target, count, rng):
    """Draw ``count`` data sets of the step-function experiment.

    Parameters
    ----------
    n : int
        Points per data set (>= 2).
    include_target : bool
        Whether the target x0 = 0.5 is one of the points.
    count : int
        Number of data sets.
    rng : numpy.random.Generator

    Returns
    -------
    X, y : ndarray, shape (count, n)
        Inputs in [0, 1] and responses ``s(x)`` in {-1, +1}.
    """
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    left = n // 2
    right = n - left - int(include_target)
    parts = [
        rng.uniform(0.0, 0.5, (count, left)),
        0.5 + 0.5 * rng.uniform(0.0, 1.0, (count, right)),
    ]
    if include_target:
        parts.insert(0, np.full((count, 1), TARGET))
    X = np.hstack(parts)
    return X, np.where(X < 0.5, -1.0, 1.0)


def posterior_at_target(X, y, lengthscale, ridge):
    """Unit-scale posterior mean and variance at x0 for each data set.

    Returns
    -------
    mean, variance : ndarray, shape (count,)
        ``m_D(x0)`` and ``k_D(x0, x0)`` of the GP with kernel ``exp(-|x - x'|/l)`` and
        noise variance ``r^2`` (the posterior of scale sigma has variance
        ``sigma^2 k_D``).
    """
    kernel = Exponential(lengthscale)
    target = np.array([TARGET])
    fits = [
        GaussianProcess(kernel, 0.0, ridge**2).fit(Xi, yi).predict(target) for Xi, yi in zip(X, y)
    ]
    return np.array([f[0][0] for f in fits]), np.array([f[1][0] for f in fits])


def release_at_target(mean, variance, sigma, paths, rng):
    """L posterior draws at x0 per data set: ``m + sigma sqrt(v) z``, shape (count, L)."""
    return mean[:, None] + sigma * np.sqrt(variance)[:, None] * rng.standard_normal(
        (len(mean), paths)
    )


def _attack_rows(posteriors, sigma, paths, rng):
    """Fit LiRA and the baseline on shadow releases; evaluate both on fresh releases."""
    stats_of = {
        key: release_statistics(release_at_target(*posteriors[key], sigma, paths, rng), sigma)
        for key in ("shadow_in", "shadow_out", "eval_in", "eval_out")
    }
    (f_in, v_in), (f_out, v_out) = stats_of["shadow_in"], stats_of["shadow_out"]
    lira = LiRA.fit(f_in, f_out, v_in, v_out, seed=rng)
    baseline = MeanThresholdAttack.fit(f_in, f_out)
    results = []
    for name, attack in (("lira", lira), ("mean_threshold", baseline)):
        scores_in = attack.score(*stats_of["eval_in"])
        scores_out = attack.score(*stats_of["eval_out"])
        results.append((evaluate_attack(name, scores_in, scores_out), scores_in, scores_out))
    return results, lira


def _dp_region_check(result, scores_in, scores_out, epsilon, delta):
    """Is the measured attack inside the (epsilon, delta)-DP region (Clopper-Pearson)?"""
    tests = len(result.tpr)
    level = CHECK_LEVEL / tests
    passed = True
    for fpr in result.tpr:
        k = int(np.floor(fpr * len(scores_out)))
        threshold = np.sort(scores_out)[::-1][min(k, len(scores_out) - 1)]
        hits_in, hits_out = int(np.sum(scores_in > threshold)), int(np.sum(scores_out > threshold))
        tpr_low = (
            stats.beta.ppf(level / 2, hits_in, len(scores_in) - hits_in + 1) if hits_in else 0.0
        )
        fpr_high = (
            stats.beta.ppf(1 - level / 2, hits_out + 1, len(scores_out) - hits_out)
            if hits_out < len(scores_out)
            else 1.0
        )
        passed &= bool(tpr_low <= max_tpr_under_dp(fpr_high, epsilon, delta))
    return passed


def _configuration(posteriors, n, lengthscale, ridge, sigma, paths, delta, sweep, rng):
    """Rows (LiRA and baseline) of one (r, sigma, L) configuration."""
    bound = PosteriorSamplingBound.exp_1d(n, lengthscale, ridge, sigma)
    epsilon, alpha = bound.epsilon(delta, paths)
    results, lira = _attack_rows(posteriors, sigma, paths, rng)
    rows = []
    for result, scores_in, scores_out in results:
        row = {
            "sweep": sweep,
            "n": n,
            "lengthscale": lengthscale,
            "ridge": ridge,
            "sigma": sigma,
            "paths": paths,
            **result.record(),
            "mechanism": "GP posterior sampling, Theorem 3.1 + Lemma B.7, L-fold RDP composition",
            "epsilon": epsilon,
            "delta": delta,
            "renyi_order": alpha,
            "dp_max_auc": max_auc_under_dp(epsilon, delta),
            "check_attack_inside_dp_region": _dp_region_check(
                result, scores_in, scores_out, epsilon, delta
            ),
            "lira_fit_ok": lira.fit_ok,
        }
        row.update({f"excess_tpr_at_fpr_{f:g}": row[f"tpr_at_fpr_{f:g}"] - f for f in DEFAULT_FPRS})
        rows.append((row, result))
    return rows


def _posteriors(n, lengthscale, ridge, replications, rng):
    """Unit-scale posteriors at x0 of shadow and evaluation data sets for one ridge."""
    posteriors = {}
    for key in ("shadow_in", "shadow_out", "eval_in", "eval_out"):
        X, y = step_datasets(n, key.endswith("_in"), replications, rng)
        posteriors[key] = posterior_at_target(X, y, lengthscale, ridge)
    return posteriors


def _posteriors_task(n, lengthscale, replications, ridge, seed_keys):
    """One task of the runner: :func:`_posteriors` with ``default_rng(list(seed_keys))``."""
    rng = np.random.default_rng(list(seed_keys))
    return _posteriors(n, lengthscale, ridge, replications, rng)


def _configuration_task(
    posteriors, n, lengthscale, delta, group, ridge, sigma, paths, sweep, seed_keys
):
    """One task of the runner: :func:`_configuration` on the posteriors of ``group``."""
    rng = np.random.default_rng(list(seed_keys))
    return _configuration(posteriors[group], n, lengthscale, ridge, sigma, paths, delta, sweep, rng)


def _figure_sigma_r(rows, sigmas):
    import matplotlib.pyplot as plt

    figure, (ax_auc, ax_tpr, ax_eps) = plt.subplots(1, 3, figsize=(14, 4))
    for index, sigma in enumerate(sigmas):
        colour = f"C{index}"
        for attack, style in (("lira", "-"), ("mean_threshold", "--")):
            chosen = [
                r
                for r in rows
                if r["sweep"] == "sigma_r" and r["sigma"] == sigma and r["attack"] == attack
            ]
            ridges = [r["ridge"] for r in chosen]
            label = f"sigma={sigma:g} {'LiRA' if attack == 'lira' else 'mean threshold'}"
            ax_auc.plot(
                ridges, [r["auc"] for r in chosen], style, color=colour, marker="o", label=label
            )
            ax_tpr.plot(
                ridges,
                [r["excess_tpr_at_fpr_0.05"] for r in chosen],
                style,
                color=colour,
                marker="o",
            )
        lira = [
            r
            for r in rows
            if r["sweep"] == "sigma_r" and r["sigma"] == sigma and r["attack"] == "lira"
        ]
        ax_eps.plot(
            [r["ridge"] for r in lira],
            [r["epsilon"] for r in lira],
            color=colour,
            marker="o",
            label=f"sigma={sigma:g}",
        )
    ax_auc.axhline(0.5, color="grey", lw=0.8)
    for ax, label in ((ax_auc, "AUC"), (ax_tpr, "excess TPR at FPR 5%"), (ax_eps, "epsilon bound")):
        ax.set_xscale("log")
        ax.set_xlabel("effective ridge r")
        ax.set_ylabel(label)
    ax_eps.set_yscale("log")
    ax_auc.legend(fontsize=7)
    ax_eps.legend(fontsize=7)
    figure.suptitle("LiRA vs mean-threshold baseline, L = 3 paths, against the RDP bound")
    return figure


def _figure_paths(rows):
    import matplotlib.pyplot as plt

    figure, (ax_auc, ax_eps) = plt.subplots(1, 2, figsize=(10, 4))
    for attack, style in (("lira", "-o"), ("mean_threshold", "--s")):
        chosen = [r for r in rows if r["sweep"] == "paths" and r["attack"] == attack]
        ax_auc.plot([r["paths"] for r in chosen], [r["auc"] for r in chosen], style, label=attack)
        ax_auc.plot(
            [r["paths"] for r in chosen], [r["dp_max_auc"] for r in chosen], ":", color="grey"
        )
    chosen = [r for r in rows if r["sweep"] == "paths" and r["attack"] == "lira"]
    paths = np.array([r["paths"] for r in chosen])
    epsilon = np.array([r["epsilon"] for r in chosen])
    ax_eps.plot(paths, epsilon, "-o", label="epsilon(L) (optimised order)")
    ax_eps.plot(paths, epsilon[0] * paths, ":", label="linear in L")
    ax_auc.set_ylabel("AUC (dotted: largest AUC the bound allows)")
    ax_eps.set_ylabel("epsilon bound")
    for ax in (ax_auc, ax_eps):
        ax.set_xscale("log")
        ax.set_xlabel("released paths L")
        ax.legend(fontsize=8)
    ridge, sigma = L_SWEEP_SETTING
    figure.suptitle(
        f"Attack success and bound against the number of paths (r = {ridge:g}, sigma = {sigma:g})"
    )
    return figure


def _figure_roc(curves):
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 4), squeeze=False)
    for ax, (title, results, epsilon, delta) in zip(axes[0], curves):
        for result in results:
            ax.plot(*result.roc, label=f"{result.name} (AUC {result.auc:.3f})")
        grid = np.linspace(0, 1, 400)
        ax.plot(
            grid,
            max_tpr_under_dp(grid, epsilon, delta),
            ":",
            color="grey",
            label="DP region boundary",
        )
        ax.plot([0, 1], [0, 1], color="black", lw=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(1e-3, 1)
        ax.set_ylim(1e-3, 1)
        ax.set_title(f"{title}\nepsilon = {epsilon:.3g}", fontsize=9)
        ax.set_xlabel("FPR")
        ax.set_ylabel("TPR")
        ax.legend(fontsize=7)
    return figure


@transactional
def run(
    out,
    seed,
    progress,
    replications=2000,
    n=10,
    lengthscale=1.0,
    delta=1e-5,
    ridges=RIDGES,
    sigmas=SIGMAS,
    path_counts=PATH_COUNTS,
    runner=None,
):
    """Run the study; write figures and results; return a summary.

    Parameters
    ----------
    out : Path
        Output folder.
    seed : int
        Base seed. Group g (the g-th ridge of the sigma/r sweep; g = len(ridges) for the
        L sweep) draws its shadow and evaluation data sets from ``default_rng([seed, g,
        0])``, and its j-th configuration (sigma, or L) draws its releases and the
        LiRA fit from ``default_rng([seed, g, 1 + j])``.
    progress : bool
        Show progress bars.
    replications : int
        Shadow and evaluation releases per hypothesis.
    n : int
        Data-set size.
    lengthscale : float
        Kernel length scale l.
    delta : float
        delta at which the bound's epsilon is reported.
    ridges, sigmas : sequence of float
        Grid of the sigma/r sweep (L = 3).
    path_counts : sequence of int
        L values of the L sweep at (r, sigma) = ``L_SWEEP_SETTING``.
    runner : Runner, optional
        Runs the posteriors (one task per group) and then the configurations (one task
        each); default: serially in this process. Results do not depend on it;
        ``results.json`` records it and each task's seed keys.

    Returns
    -------
    dict
        Summary: AUC of each attack at the smallest and largest ridge (middle sigma),
        the number of rows where LiRA is weaker than the baseline, LiRA fit failures,
        and whether every row lies inside the DP region.
    """
    if replications < 100:
        raise ValueError(f"replications must be at least 100, got {replications}")
    ridges, sigmas, path_counts = sorted(ridges), sorted(sigmas), sorted(path_counts)
    parameters = {
        "seed": seed,
        "replications": replications,
        "n": n,
        "lengthscale": lengthscale,
        "delta": delta,
        "target": TARGET,
        "ridges": ridges,
        "sigmas": sigmas,
        "path_counts": path_counts,
        "l_sweep_setting": L_SWEEP_SETTING,
        "seed_scheme": "data sets of group g: default_rng([seed, g, 0]); configuration j "
        "of group g: default_rng([seed, g, 1 + j])",
    }
    output = StudyOutput(out, "mia", parameters)
    middle_sigma, shown_ridges = (
        sigmas[len(sigmas) // 2],
        {ridges[0], ridges[len(ridges) // 2], ridges[-1]},
    )
    # Groups share their data sets: one per ridge of the sigma/r sweep, then the L sweep.
    groups = [(ridge, "sigma_r", [(sigma, 3) for sigma in sigmas]) for ridge in ridges]
    groups.append((L_SWEEP_SETTING[0], "paths", [(L_SWEEP_SETTING[1], L) for L in path_counts]))
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    posteriors = runner.map(
        _posteriors_task,
        [
            Task(
                ("group", g, "sweep", sweep, "ridge", ridge),
                {"ridge": ridge, "seed_keys": (seed, g, 0)},
                (seed, g, 0),
            )
            for g, (ridge, sweep, _) in enumerate(groups)
        ],
        shared={"n": n, "lengthscale": lengthscale, "replications": replications},
        name="mia-posteriors",
        fingerprint=parameters,
    )
    configurations = [
        (g, j, ridge, sigma, paths, sweep, (seed, g, 1 + j))
        for g, (ridge, sweep, settings) in enumerate(groups)
        for j, (sigma, paths) in enumerate(settings)
    ]
    tasks = [
        Task(
            ("group", g, "configuration", j, "ridge", ridge, "sigma", sigma, "paths", paths),
            {
                "group": g,
                "ridge": ridge,
                "sigma": sigma,
                "paths": paths,
                "sweep": sweep,
                "seed_keys": keys,
            },
            keys,
        )
        for g, j, ridge, sigma, paths, sweep, keys in configurations
    ]
    shared = {"posteriors": posteriors, "n": n, "lengthscale": lengthscale, "delta": delta}
    results = runner.map(
        _configuration_task, tasks, shared=shared, name="mia", fingerprint=parameters
    )
    output.parameters["runner"] = runner.describe()
    rows, curves = [], []
    for (*_, ridge, sigma, paths, sweep, _), pairs in zip(configurations, results, strict=True):
        rows.extend(row for row, _ in pairs)
        if sweep == "sigma_r" and sigma == middle_sigma and ridge in shown_ridges:
            curves.append(
                (
                    f"r = {ridge:g}, sigma = {sigma:g}, L = {paths}",
                    [p[1] for p in pairs],
                    pairs[0][0]["epsilon"],
                    delta,
                )
            )
    output.save_figure(_figure_sigma_r(rows, sigmas), "mia_sigma_r")
    output.save_figure(_figure_paths(rows), "mia_paths")
    output.save_figure(_figure_roc(curves), "mia_roc")
    lira = [r for r in rows if r["attack"] == "lira"]
    baseline = [r for r in rows if r["attack"] == "mean_threshold"]
    summary = {
        "configurations": len(lira),
        "lira_weaker_than_baseline": int(
            sum(l["auc"] < b["auc"] - 0.01 for l, b in zip(lira, baseline))
        ),
        "lira_fit_failures": int(sum(not r["lira_fit_ok"] for r in lira)),
        "all_inside_dp_region": bool(all(r["check_attack_inside_dp_region"] for r in rows)),
        "auc_smallest_ridge": {
            r["attack"]: r["auc"]
            for r in rows
            if r["sweep"] == "sigma_r" and r["ridge"] == ridges[0] and r["sigma"] == middle_sigma
        },
        "auc_largest_ridge": {
            r["attack"]: r["auc"]
            for r in rows
            if r["sweep"] == "sigma_r" and r["ridge"] == ridges[-1] and r["sigma"] == middle_sigma
        },
    }
    output.write_results(rows, summary=summary)
    return summary
