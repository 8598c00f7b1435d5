"""Membership inference on GP posterior sampling against the RDP bound [MAC §4, App. C].

Setting (that of the authors' code, see :doc:`/theory/posterior-sampling`): n points on
[0, 1] with responses ``y = s(x)``, the step ``s(x) = -1`` for ``x < 0.5`` and ``+1``
otherwise; the target is ``x0 = 0.5``. An "in" data set holds the target plus
``floor(n/2)`` uniform points in [0, 0.5) and the rest in [0.5, 1]; an "out" data set
holds ``floor(n/2)`` and ``n - floor(n/2)`` such points (the authors' stratified design;
the two are replace-one neighbours). The mechanism
releases L posterior sample paths of a GP with the exponential kernel
``exp(-|x - x'| / l)``, ridge r and scale sigma; the attacker sees their values at x0.

Every release, shadow or evaluation, is made by
:class:`~ssa_privacy.privacy.posterior_sampling.mechanism.PosteriorSamplingMechanism`
(one per data set, Cholesky sampler), certified at the configuration's epsilon (up to
``RELEASE_RTOL``). Attacks: the LiRA of [MAC] App. C and the baseline threshold on the
sample mean (:mod:`ssa_privacy.attacks.membership`), fitted on shadow releases and
evaluated on fresh ones. Each configuration records the epsilon of the bound (Theorem 3.1,
Lemma B.7, L-fold composition, optimal order) at the chosen delta and checks that the
measured attack stays inside the region any (epsilon, delta)-DP release allows.
"""

import numpy as np
from scipy import stats

from ssa_privacy.attacks.membership import LiRA, MeanThresholdAttack, release_statistics
from ssa_privacy.attacks.roc import (
    DEFAULT_FPRS,
    evaluate_attack,
    max_auc_under_dp,
    max_tpr_under_dp,
)
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.privacy.posterior_sampling.bound import PosteriorSamplingBound
from ssa_privacy.privacy.posterior_sampling.mechanism import PosteriorSamplingMechanism
from ssa_privacy.studies import _mia_figures as figures
from ssa_privacy.studies import _options as opt

__all__ = [
    "CHECK_LEVEL",
    "DESCRIPTION",
    "L_SWEEP_SETTING",
    "PATH_COUNTS",
    "RELEASE_RTOL",
    "RIDGES",
    "SIGMAS",
    "TARGET",
    "USES_RUNNER",
    "add_arguments",
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
#: Each release is certified at ``(1 + RELEASE_RTOL)`` times its configuration's epsilon:
#: above the rounding bound of the certificate (below 1e-9 relative here).
RELEASE_RTOL = 1e-6
#: The data sets of each group: shadow (to fit the attacks) and evaluation, in and out.
_KEYS = ("shadow_in", "shadow_out", "eval_in", "eval_out")


def add_arguments(parser):
    """Options of the study."""
    opt.add_replications(
        parser, 2000, "shadow and evaluation releases per hypothesis (paper: 10000)", 100
    )
    parser.add_argument("--n", type=opt.positive_int, default=10, help="data-set size (default 10)")
    parser.add_argument(
        "--lengthscale",
        type=opt.positive_float,
        default=1.0,
        help="kernel length scale l (default 1)",
    )
    opt.add_pml_level(parser, 1e-5, "delta of the Renyi-DP bound")
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


def _mechanisms(data, scenario, ridge, sigma):
    """One mechanism per data set (inputs X, release at x0), at the group's first scale.

    Each configuration sweeps them to its scale, target and L
    (:meth:`~ssa_privacy.privacy.posterior_sampling.mechanism.PosteriorSamplingMechanism.
    with_scale`), so the target given here (1) is never certified.
    """
    return {
        key: [
            PosteriorSamplingMechanism(
                Xi,
                [TARGET],
                1.0,
                scenario["delta"],
                lengthscale=scenario["lengthscale"],
                ridge=ridge,
                sigma=sigma,
                sampler="cholesky",
            )
            for Xi in X
        ]
        for key, (X, _) in data.items()
    }


def _releases(mechanisms, y, sigma, paths, epsilon, rng):
    """Release L paths at x0 for each data set: values (count, L), certificates passed."""
    values, passed = [], 0
    for mechanism, yi in zip(mechanisms, y):
        release = mechanism.with_scale(sigma, epsilon=epsilon, paths=paths).release(yi, seed=rng)
        values.append(release.values[:, 0])
        passed += release.certificate.passed
    return np.array(values), passed


def _attack_rows(statistics, rng):
    """Fit LiRA and the baseline on shadow releases; evaluate both on fresh releases."""
    (f_in, v_in), (f_out, v_out) = statistics["shadow_in"], statistics["shadow_out"]
    lira = LiRA.fit(f_in, f_out, v_in, v_out, seed=rng)
    baseline = MeanThresholdAttack.fit(f_in, f_out)
    results = []
    for name, attack in (("lira", lira), ("mean_threshold", baseline)):
        scores_in = attack.score(*statistics["eval_in"])
        scores_out = attack.score(*statistics["eval_out"])
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


def _configuration(mechanisms, data, scenario, setting, rng):
    """Rows (LiRA and baseline) of one (r, sigma, L) configuration, and its releases.

    The releases are certified at ``(1 + RELEASE_RTOL)`` times the configuration's
    epsilon.
    """
    ridge, sigma, paths, sweep = setting
    n, lengthscale, delta = scenario["n"], scenario["lengthscale"], scenario["delta"]
    epsilon, alpha = PosteriorSamplingBound.exp_1d(n, lengthscale, ridge, sigma).epsilon(
        delta, paths
    )
    statistics, passed = {}, 0
    for key in _KEYS:
        values, certified = _releases(
            mechanisms[key], data[key][1], sigma, paths, epsilon * (1 + RELEASE_RTOL), rng
        )
        statistics[key], passed = release_statistics(values, sigma), passed + certified
    results, lira = _attack_rows(statistics, rng)
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
    record = {
        "releases": sum(len(m) for m in mechanisms.values()),
        "passed": passed,
        "mechanism": type(mechanisms[_KEYS[0]][0]).__name__,
    }
    return rows, record


def _group_task(scenario, group, seed_keys):
    """One task of the runner: the data sets of a group, then each of its configurations.

    The data sets are drawn from ``default_rng([*seed_keys, 0])`` (shadow in, shadow out,
    evaluation in, evaluation out), configuration j from ``default_rng([*seed_keys, 1 +
    j])``.
    """
    ridge, sweep, settings = group
    rng = np.random.default_rng([*seed_keys, 0])
    data = {
        key: step_datasets(scenario["n"], key.endswith("_in"), scenario["replications"], rng)
        for key in _KEYS
    }
    mechanisms = _mechanisms(data, scenario, ridge, settings[0][0])
    return [
        _configuration(
            mechanisms,
            data,
            scenario,
            (ridge, sigma, paths, sweep),
            np.random.default_rng([*seed_keys, 1 + j]),
        )
        for j, (sigma, paths) in enumerate(settings)
    ]


def _scenario(replications, n, lengthscale, delta, ridges, sigmas, path_counts):
    """The study's options and its groups of configurations (a group shares its data sets).

    One group per ridge of the sigma/r sweep (``(sigma, 3)`` for each sigma), then the
    L sweep at ``L_SWEEP_SETTING`` (``(sigma, L)`` for each L).
    """
    if replications < 100:
        raise ValueError(f"replications must be at least 100, got {replications}")
    ridges, sigmas, path_counts = sorted(ridges), sorted(sigmas), sorted(path_counts)
    groups = [(ridge, "sigma_r", [(sigma, 3) for sigma in sigmas]) for ridge in ridges]
    ridge, sigma = L_SWEEP_SETTING
    groups.append((ridge, "paths", [(sigma, L) for L in path_counts]))
    return {
        "replications": replications,
        "n": n,
        "lengthscale": lengthscale,
        "delta": delta,
        "ridges": ridges,
        "sigmas": sigmas,
        "path_counts": path_counts,
        "groups": groups,
    }


def _parameters(seed, scenario):
    """The parameters recorded in ``results.json`` (and the runner's fingerprint)."""
    return {
        "seed": seed,
        "replications": scenario["replications"],
        "n": scenario["n"],
        "lengthscale": scenario["lengthscale"],
        "delta": scenario["delta"],
        "target": TARGET,
        "ridges": scenario["ridges"],
        "sigmas": scenario["sigmas"],
        "path_counts": scenario["path_counts"],
        "l_sweep_setting": L_SWEEP_SETTING,
        "seed_scheme": "data sets of group g: default_rng([seed, g, 0]); configuration j "
        "of group g: default_rng([seed, g, 1 + j])",
    }


def _tasks(seed, scenario):
    """One task per group g, seeded by ``(seed, g)``."""
    return [
        Task(("group", g, "sweep", group[1], "ridge", group[0]), {"group": group}, (seed, g))
        for g, group in enumerate(scenario["groups"])
    ]


def _tables(scenario, results):
    """The rows of every configuration, and the ROC curves shown (middle sigma)."""
    middle_sigma = scenario["sigmas"][len(scenario["sigmas"]) // 2]
    ridges = scenario["ridges"]
    shown = {ridges[0], ridges[len(ridges) // 2], ridges[-1]}
    rows, curves = [], []
    for (ridge, sweep, settings), configurations in zip(scenario["groups"], results, strict=True):
        for (sigma, paths), (pairs, _) in zip(settings, configurations, strict=True):
            rows.extend(row for row, _ in pairs)
            if sweep == "sigma_r" and sigma == middle_sigma and ridge in shown:
                title = f"r = {ridge:g}, sigma = {sigma:g}, L = {paths}"
                curves.append(
                    (title, [p[1] for p in pairs], pairs[0][0]["epsilon"], scenario["delta"])
                )
    return rows, curves


def _save_figures(output, rows, curves, scenario):
    output.save_figure(figures.sigma_r(rows, scenario["sigmas"]), "mia_sigma_r")
    output.save_figure(figures.paths(rows, L_SWEEP_SETTING), "mia_paths")
    output.save_figure(figures.roc(curves), "mia_roc")


def _summary(rows, results, scenario):
    """AUCs at the smallest and largest ridge, LiRA's failures, the DP check, the releases."""
    middle_sigma = scenario["sigmas"][len(scenario["sigmas"]) // 2]
    ridges = scenario["ridges"]
    lira = [r for r in rows if r["attack"] == "lira"]
    baseline = [r for r in rows if r["attack"] == "mean_threshold"]
    records = [record for configurations in results for _, record in configurations]

    def auc_at(ridge):
        return {
            r["attack"]: r["auc"]
            for r in rows
            if r["sweep"] == "sigma_r" and r["ridge"] == ridge and r["sigma"] == middle_sigma
        }

    return {
        "configurations": len(lira),
        "lira_weaker_than_baseline": int(
            sum(l["auc"] < b["auc"] - 0.01 for l, b in zip(lira, baseline))
        ),
        "lira_fit_failures": int(sum(not r["lira_fit_ok"] for r in lira)),
        "all_inside_dp_region": bool(all(r["check_attack_inside_dp_region"] for r in rows)),
        "auc_smallest_ridge": auc_at(ridges[0]),
        "auc_largest_ridge": auc_at(ridges[-1]),
        "releases": sum(r["releases"] for r in records),
        "releases_certified": sum(r["passed"] for r in records),
    }


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
        Runs the groups (one task each: data sets, then configurations; default:
        serially here). Results do not depend on it; ``results.json`` records it.

    Returns
    -------
    dict
        Summary: AUC of each attack at the smallest and largest ridge (middle sigma),
        the number of rows where LiRA is weaker than the baseline, LiRA fit failures,
        whether every row lies inside the DP region, and the releases made and
        certified.

    Raises
    ------
    ValueError
        If ``replications`` is below 100.

    Notes
    -----
    Every release is made by a :class:`~ssa_privacy.privacy.posterior_sampling.mechanism.
    PosteriorSamplingMechanism`, whose class ``results.json`` records.
    """
    scenario = _scenario(replications, n, lengthscale, delta, ridges, sigmas, path_counts)
    parameters = _parameters(seed, scenario)
    output = StudyOutput(out, "mia", parameters)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    results = runner.map(
        _group_task,
        _tasks(seed, scenario),
        shared={"scenario": scenario},
        name="mia",
        fingerprint=parameters,
    )
    output.parameters["runner"] = runner.describe()
    used = {record["mechanism"] for configurations in results for _, record in configurations}
    output.parameters["mechanisms"] = {"shadow and evaluation releases": ", ".join(sorted(used))}
    rows, curves = _tables(scenario, results)
    _save_figures(output, rows, curves, scenario)
    summary = _summary(rows, results, scenario)
    output.write_results(rows, summary=summary)
    return summary
