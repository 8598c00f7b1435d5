"""[TCB] §5.1: a privacy-aware GP surrogate of a planar J2 orbit that hides t in [1, 2].

Four independent noiseless GPs (one per state component) are fitted to 61 samples of
the trajectory on t = 0, 0.05, ..., 3 (units of T_orb). The owner releases
``W = Y + Z`` with the optimal synthetic noise for the private segment (H = alpha K on
the 21 training points inside [1, 2]); the user's privacy-aware GP is compared with
Dropout (the same GP without the private points), the Stationary attack (a fresh GP
fitted by ML to W), the non-private GP and DP-cloaking ([SMI], epsilon in {0.3, 0.5, 1},
delta = 0.01, on the same GPs and replications; see :mod:`._dp_rows`). Outputs:
Figures 2-7 of the paper, Table 3 (RMSE against the true trajectory at the 61 points),
the privacy-aware vs DP-cloaking comparison (also printed) and ``trajectory.csv``.
"""

import numpy as np

from ssa_privacy._internal.validation import positive_int
from ssa_privacy.attacks import stationary_attack
from ssa_privacy.engine.figures import save_figures
from ssa_privacy.engine.output import StudyOutput, transactional
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.gp.baselines import dropout_gp
from ssa_privacy.gp.fit import fit_mean_and_variance
from ssa_privacy.gp.regression import RBF
from ssa_privacy.orbits import PlanarJ2Model
from ssa_privacy.privacy import (
    SyntheticNoiseMechanism,
    privacy_aware_gp,
    release,
)
from ssa_privacy.privacy.accounting import c_delta
from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies import _satellite_figures as figures
from ssa_privacy.studies._common import mean_std, replication_rng, rmse, stopwatch

__all__ = [
    "ALPHAS",
    "AUTHORS_CSV",
    "COMPONENTS",
    "DESCRIPTION",
    "Design",
    "FAR_LENGTH_SCALES",
    "KERNEL_CONVENTIONS",
    "PAPER_L",
    "PAPER_TABLE3",
    "PRIVATE_SEGMENT",
    "USES_RUNNER",
    "add_arguments",
    "comparison",
    "distance_to_segment",
    "dp_checks",
    "dp_cloaking_designs",
    "dp_cloaking_replication",
    "dp_cloaking_results",
    "dropout_means",
    "privacy_aware_run",
    "replicate",
    "replication_task",
    "run",
    "stationary_run",
    "table_rows",
    "theory_checks",
    "trajectory",
    "zero_mean_rows",
]

USES_RUNNER = True
DESCRIPTION = (
    "[TCB] 5.1: privacy-aware GP of a planar J2 orbit, DP-cloaking beside it (Figs 2-7; Table 3)"
)

COMPONENTS = ("r", "r_dot", "theta", "theta_dot")
ALPHAS = (0.1, 0.5, 0.9)
#: The paper's kernel parameter l (sigma^2 exp(-(x - x')^2 / (2 l))).
PAPER_L = 1 / 400
#: Kernel readings: "paper" as printed (length scale sqrt(l) = 0.05); "code" as the
#: authors' code ran it (length scale l = 0.0025: white noise on the 0.05 grid).
KERNEL_CONVENTIONS = {"paper": RBF.paper(PAPER_L), "code": RBF(PAPER_L)}
PRIVATE_SEGMENT = (1.0, 2.0)
DENSE_STEP, TRAIN_STRIDE, HORIZON = 0.01, 5, 3.0
#: "Far from the private segment": more than this many kernel length scales away.
FAR_LENGTH_SCALES = 5

#: [TCB] Table 3, average RMSE over the four outputs (paper's alpha convention; the
#: DP-cloaking rows are keyed by epsilon).
PAPER_TABLE3 = {
    ("privacy-aware", 0.1): 0.3343,
    ("privacy-aware", 0.5): 0.3045,
    ("privacy-aware", 0.9): 0.1912,
    ("stationary", 0.1): 1.0412,
    ("stationary", 0.5): 0.3268,
    ("stationary", 0.9): 0.0663,
    (dp.METHOD, 0.3): 0.8878,
    (dp.METHOD, 0.5): 0.5327,
    (dp.METHOD, 1.0): 0.2663,
}
#: The authors' results CSV (commit 7b65a1f), per output then average; their alpha
#: label a means paper alpha 1 - a, already converted here (:doc:`/theory/privacy-aware-gp`).
AUTHORS_CSV = {
    ("privacy-aware", 0.1): (0.000074, 0.000496, 1.336169, 0.000554, 0.334323),
    ("privacy-aware", 0.5): (0.000083, 0.000560, 1.576380, 0.001067, 0.394523),
    ("privacy-aware", 0.9): (0.000048, 0.000348, 0.763929, 0.000554, 0.191220),
    ("stationary", 0.1): (0.000264, 0.002348, 4.159171, 0.002843, 1.041157),
    ("stationary", 0.5): (0.000149, 0.001665, 1.303963, 0.001464, 0.326810),
    ("stationary", 0.9): (0.000123, 0.001535, 0.262526, 0.001073, 0.066314),
    ("dropout", None): (0.000290, 0.001970, 1.117435, 0.003199, 0.280723),
    (dp.METHOD, 0.3): (0.000307, 0.002185, 3.545108, 0.003494, 0.887773),
    (dp.METHOD, 0.5): (0.000184, 0.001311, 2.127065, 0.002096, 0.532664),
    (dp.METHOD, 1.0): (0.000092, 0.000656, 1.063533, 0.001048, 0.266332),
}


def add_arguments(parser):
    """Options of ``ssa-privacy run satellite``."""
    parser.add_argument(
        "--replications",
        type=opt.positive_int,
        default=100,
        help="replications for Figures 4-5 (default 100, as the paper)",
    )
    parser.add_argument(
        "--table-seeds",
        type=opt.positive_int,
        default=20,
        help="seeds averaged in Table 3 (default 20, as the paper)",
    )
    parser.add_argument(
        "--kernel-convention",
        choices=sorted(KERNEL_CONVENTIONS),
        default="paper",
        help="read l = 1/400 as printed (paper) or as the authors' code did (code)",
    )


def trajectory(model=None):
    """Dense time grid (T_orb), normalized states (m, 4) and the private mask."""
    model = model or PlanarJ2Model()
    t = np.round(np.arange(0.0, HORIZON + DENSE_STEP / 2, DENSE_STEP), 10)
    private = (t >= PRIVATE_SEGMENT[0]) & (t <= PRIVATE_SEGMENT[1])
    return t, model.propagate(t), private


class Design:
    """The study's fixed quantities: grids, truth, fitted GPs and noise designs."""

    def __init__(self, kernel, zero_mean=False):
        self.t, self.states, self.private_dense = trajectory()
        self.X = self.t[::TRAIN_STRIDE]
        self.Y = self.states[::TRAIN_STRIDE]
        self.private = self.private_dense[::TRAIN_STRIDE]
        self.S0 = self.X[self.private]
        self.kernel, self.zero_mean = kernel, zero_mean
        self.gps = [
            fit_mean_and_variance(self.X, self.Y[:, c], kernel, zero_mean)
            for c in range(len(COMPONENTS))
        ]
        self.mechanisms, self.design_times = {}, {}
        for a in ALPHAS:
            for c, gp in enumerate(self.gps):
                with stopwatch(self.design_times, (a, c)):
                    self.mechanisms[a, c] = SyntheticNoiseMechanism.for_region(
                        gp.kernel, self.X, self.S0, a
                    )
        self.factors = {key: m.noise_covariance for key, m in self.mechanisms.items()}


def privacy_aware_run(design, alpha, c, rng, times):
    """One release and reconstruction: (W, mean, variance on the dense grid, certificate).

    The mechanism is the design's (output c, level alpha): the owner's fit and the
    certified Sigma_opt do not depend on the replication, so they are computed once. The
    certificate (:meth:`SyntheticNoiseMechanism.certificate`, computed by the certified
    design from the noise it returns) is a :class:`~ssa_privacy.privacy.Certificate`.
    """
    y, gp, mechanism = design.Y[:, c], design.gps[c], design.mechanisms[alpha, c]
    with stopwatch(times, ("privacy-aware", alpha)):
        factor = mechanism.noise_covariance
        W = release(y, factor, seed=rng)
        mean, variance = privacy_aware_gp(gp, design.X, W, factor).predict(design.t)
    return W, mean, variance, mechanism.certificate()


def stationary_run(design, W, rng, times, alpha):
    """The Stationary attack on a release: mean on the dense grid."""
    with stopwatch(times, ("stationary", alpha)):
        fit = stationary_attack(design.X, W, restarts=3, seed=rng)
        mean, _ = fit.gp.predict(design.t)
    return mean


def replicate(design, seed, replication, with_attack):
    """All alphas and outputs of one replication; returns a dict of arrays and times."""
    times = {}
    out = {"W": {}, "pa_mean": {}, "pa_var": {}, "certificate": {}, "stationary": {}}
    for ia, alpha in enumerate(ALPHAS):
        for c in range(len(COMPONENTS)):
            rng = replication_rng(seed, replication, ia, c)
            key = (alpha, c)
            (out["W"][key], out["pa_mean"][key], out["pa_var"][key], out["certificate"][key]) = (
                privacy_aware_run(design, alpha, c, rng, times)
            )
            if with_attack:
                out["stationary"][key] = stationary_run(design, out["W"][key], rng, times, alpha)
    out["times"] = times
    return out


def dropout_means(design, times):
    """Dropout predictions on the dense grid, one per output."""
    means = []
    for c, gp in enumerate(design.gps):
        with stopwatch(times, ("dropout", None)):
            means.append(
                dropout_gp(gp, design.X, design.Y[:, c], design.private).predict(design.t)[0]
            )
    return means


def dp_cloaking_designs(design):
    """The DP-cloaking noise shape and sensitivity of each output, designed once.

    Each output's shape is :class:`._dp_rows.CloakingDesign` on that output's fitted GP
    (the one the privacy-aware rows use), at the 301 points of the dense grid.

    Parameters
    ----------
    design : Design
        The study's fitted GPs and grids.

    Returns
    -------
    dict
        ``designs`` (one :class:`._dp_rows.CloakingDesign` per output) and
        ``sensitivity`` (one float per output, output units).
    """
    return {
        "designs": [dp.CloakingDesign(gp, design.X, design.t) for gp in design.gps],
        "sensitivity": [dp.output_sensitivity(y) for y in design.Y.T],
    }


def dp_cloaking_replication(design, cloaking, seed, replication):
    """The DP-cloaking releases of one replication, one per (epsilon, output).

    Epsilon index j and output c draw from ``default_rng([seed, replication, 100 + j,
    c])``.

    Parameters
    ----------
    design : Design
        The study's fitted GPs and grids.
    cloaking : dict
        :func:`dp_cloaking_designs` of ``design``.
    seed, replication : int
        Base seed and replication index.

    Returns
    -------
    dict
        ``values[epsilon, c]`` the release (shape (301,)); ``records`` the (epsilon,
        delta), check and seed keys of every release; ``times[epsilon]`` per-release
        times (s).
    """
    out = {"values": {}, "records": [], "times": {}}
    for j, epsilon in enumerate(dp.EPSILONS):
        for c, (cloak, gp) in enumerate(zip(cloaking["designs"], design.gps)):
            keys = (seed, replication, dp.SEED_KEY_OFFSET + j, c)
            with stopwatch(out["times"], epsilon):
                released = cloak.release(
                    design.Y[:, c],
                    gp.mean,
                    epsilon,
                    cloaking["sensitivity"][c],
                    replication_rng(*keys),
                )
            out["values"][epsilon, c] = released.values
            out["records"].append(
                dp.release_record(released, replication, keys, output=COMPONENTS[c])
            )
    return out


def dp_cloaking_results(design, cloaking, replications):
    """DP-cloaking releases on the dense grid, one per (replication, epsilon, output).

    Parameters
    ----------
    design : Design
        The study's fitted GPs and grids.
    cloaking : dict
        :func:`dp_cloaking_designs` of ``design``.
    replications : list of dict
        :func:`dp_cloaking_replication` of replications 0, 1, ..., in order.

    Returns
    -------
    dict
        ``designs`` and ``sensitivity`` per output; ``values[epsilon, c]`` the releases
        (one per replication, shape (301,)); ``sd[epsilon, c]`` the predictive standard
        deviation of a release (posterior plus DP noise); ``records`` the (epsilon,
        delta) and check of every release; ``times[epsilon]`` per-release times (s).
    """
    out = {**cloaking, "values": {}, "sd": {}, "records": [], "times": {}}
    for released in replications:
        for key, values in released["values"].items():
            out["values"].setdefault(key, []).append(values)
        out["records"] += released["records"]
        for epsilon, times in released["times"].items():
            out["times"].setdefault(epsilon, []).extend(times)
    for c, (cloak, gp) in enumerate(zip(cloaking["designs"], design.gps)):
        posterior_variance = gp.predict(design.t)[1]
        for epsilon in dp.EPSILONS:
            noise_variance = cloak.noise_scale(epsilon, cloaking["sensitivity"][c]) ** 2 * np.diag(
                cloak.M
            )
            out["sd"][epsilon, c] = np.sqrt(posterior_variance + noise_variance)
    return out


def replication_task(design, cloaking, seed, replication, table_seed):
    """One task of the runner: replication ``replication`` of the study.

    Parameters
    ----------
    design : Design
        The study's fitted GPs and grids.
    cloaking : dict
        :func:`dp_cloaking_designs` of ``design``.
    seed, replication : int
        Base seed and replication index; every random number comes from
        ``default_rng([seed, replication, ...])``.
    table_seed : bool
        A Table 3 replication: with the Stationary attack and the DP-cloaking releases.

    Returns
    -------
    dict
        :func:`replicate`'s dict, plus ``dp``: :func:`dp_cloaking_replication` (None
        unless ``table_seed``).
    """
    out = replicate(design, seed, replication, with_attack=table_seed)
    out["dp"] = dp_cloaking_replication(design, cloaking, seed, replication) if table_seed else None
    return out


def table_rows(design, reps, dropout, dropout_times, cloaking):
    """Table 3: RMSE and time per method, alpha (or epsilon) and output.

    Output rows give the mean and standard deviation over seeds; the AVERAGE row gives,
    as the paper's Table 3 does, the mean over the four outputs of their seed means with
    the standard deviation across the outputs, and the time over all seeds and outputs.
    Privacy-aware times are per release (the draw and the reconstruction); the one-off
    certified design of Sigma_opt of each output is in ``design_time_s``. DP-cloaking
    times are per release; the one-off design of each output's noise shape is in
    ``design_time_s``. AVERAGE rows give the mean design time over the outputs.
    """
    Y, grid = design.Y, slice(None, None, TRAIN_STRIDE)
    rows = []
    for method, key in (("privacy-aware", "pa_mean"), ("stationary", "stationary")):
        for alpha in ALPHAS:
            errors = [[rmse(r[key][alpha, c][grid], Y[:, c]) for r in reps] for c in range(4)]
            times = [t for r in reps for t in r["times"][method, alpha]]
            method_rows = _method_rows(method, alpha, None, errors, times)
            if method == "privacy-aware":
                seconds = [design.design_times[alpha, c][0] for c in range(4)]
                for row, value in zip(method_rows, seconds + [float(np.mean(seconds))]):
                    row["design_time_s"] = value
            rows += method_rows
    design_times = [cloak.time_s for cloak in cloaking["designs"]]
    for epsilon in dp.EPSILONS:
        errors = [
            [rmse(v[grid], Y[:, c]) for v in cloaking["values"][epsilon, c]] for c in range(4)
        ]
        records = [
            [r for r in cloaking["records"] if r["epsilon"] == epsilon and r["output"] == name]
            for name in COMPONENTS
        ]
        rows += _method_rows(
            dp.METHOD, None, epsilon, errors, cloaking["times"][epsilon], design_times, records
        )
    rows += _method_rows(
        "dropout", None, None, [[rmse(dropout[c][grid], Y[:, c])] for c in range(4)], dropout_times
    )
    return rows


def _method_rows(method, alpha, epsilon, errors, times, design_times=None, records=None):
    """The four output rows (errors[c]: one RMSE per seed) and the AVERAGE row."""
    rows = [
        _row(method, alpha, epsilon, name, mean_std(e), None, c)
        for c, (name, e) in enumerate(zip(COMPONENTS, errors))
    ]
    means = [row["rmse_mean"] for row in rows]
    rows.append(_row(method, alpha, epsilon, "AVERAGE", mean_std(means), mean_std(times), 4))
    if design_times is not None:
        design_times = list(design_times) + [float(np.mean(design_times))]
        records = list(records) + [[r for by_output in records for r in by_output]]
        for row, seconds, released in zip(rows, design_times, records):
            row.update(
                design_time_s=seconds,
                releases=len(released),
                checks_passed=all(r["check_passed"] for r in released),
                max_exact_delta=max(r["check_exact_delta"] for r in released),
            )
    return rows


def _row(method, alpha, epsilon, output, rmse_stats, time_stats, column):
    row = {
        "method": method,
        "alpha": alpha,
        "epsilon": epsilon,
        "delta": dp.DELTA if epsilon else None,
        "output": output,
        "rmse_mean": rmse_stats[0],
        "rmse_std": rmse_stats[1],
        "rmse_std_over": "outputs (the paper's +-)" if column == 4 else "seeds",
    }
    if time_stats is not None:
        row["time_mean_s"], row["time_std_s"] = time_stats
    level = epsilon if method == dp.METHOD else alpha
    row["paper_table3_rmse"] = PAPER_TABLE3.get((method, level)) if column == 4 else None
    csv = AUTHORS_CSV.get((method, level))
    row["authors_csv_rmse"] = csv[column] if csv else None
    return row


def theory_checks(design, reps):
    """The predictions of the theory, measured: traces, binding variances, locality."""
    prior_var = [gp.kernel.variance for gp in design.gps]
    on_grid = slice(None, None, TRAIN_STRIDE)
    far = distance_to_segment(design.t) > FAR_LENGTH_SCALES * float(design.kernel.lengthscale)
    checks = {
        "trace_Sigma_opt": {},
        "trace_decreasing_in_alpha": {},
        "posterior_variance_ratio_at_S": {},
        f"max_abs_difference_to_non_private_beyond_{FAR_LENGTH_SCALES}_length_scales_over_prior_std": {},
    }
    far_key = list(checks)[-1]
    for c, name in enumerate(COMPONENTS):
        np_mean = design.gps[c].predict(design.t)[0]
        traces = [design.factors[a, c].trace for a in ALPHAS]
        checks["trace_Sigma_opt"][name] = dict(zip(map(str, ALPHAS), traces))
        checks["trace_decreasing_in_alpha"][name] = bool(np.all(np.diff(traces) < 0))
        for a in ALPHAS:
            ratio = reps[0]["pa_var"][a, c][on_grid][design.private] / ((1 - a) * prior_var[c])
            checks["posterior_variance_ratio_at_S"][f"{name}, alpha={a}"] = [
                float(ratio.min()),
                float(ratio.max()),
            ]
            gaps = [np.max(np.abs(r["pa_mean"][a, c] - np_mean)[far]) for r in reps]
            checks[far_key][f"{name}, alpha={a}"] = float(np.max(gaps) / np.sqrt(prior_var[c]))
    return checks


def dp_checks(design, cloaking):
    """What the theory predicts for the DP-cloaking releases, measured.

    - every release's check passed;
    - the noiseless GP interpolates its training points, so there the columns of C are
      unit vectors, M is the identity and the noise standard deviation is
      ``d c(delta) / epsilon`` at every training point (ratio 1);
    - the seed-mean MSE at the 61 points agrees with its prediction
      ``(||b||^2 + tr Sigma) / 61`` (z-score, see :func:`._dp_rows.mse_z_score`).
    """
    grid = slice(None, None, TRAIN_STRIDE)
    ratio_key = "dp_noise_sd_at_training_points_over_d_c_delta_over_epsilon"
    checks = {
        "dp_all_checks_passed": all(r["check_passed"] for r in cloaking["records"]),
        ratio_key: {},
        "dp_mse_z_score": {},
    }
    for c, (name, cloak, gp) in enumerate(zip(COMPONENTS, cloaking["designs"], design.gps)):
        d = cloaking["sensitivity"][c]
        bias = gp.predict(design.X)[0] - design.Y[:, c]
        M = cloak.M[grid, grid]
        for epsilon in dp.EPSILONS:
            covariance = cloak.noise_scale(epsilon, d) ** 2 * M
            ratio = np.sqrt(np.diag(covariance)) / (d * c_delta(dp.DELTA) / epsilon)
            label = f"{name}, epsilon={epsilon}"
            checks[ratio_key][label] = [float(ratio.min()), float(ratio.max())]
            errors = [rmse(v[grid], design.Y[:, c]) for v in cloaking["values"][epsilon, c]]
            checks["dp_mse_z_score"][label] = dp.mse_z_score(errors, bias, covariance)
    return checks


def distance_to_segment(t):
    """Distance (T_orb) from each time to the private segment [1, 2]."""
    return np.maximum(0.0, np.maximum(PRIVATE_SEGMENT[0] - t, t - PRIVATE_SEGMENT[1]))


@transactional
def run(
    out,
    seed=0,
    progress=True,
    replications=100,
    table_seeds=20,
    kernel_convention="paper",
    data=None,
    runner=None,
):
    """Run the satellite study; write figures, tables and ``trajectory.csv`` into ``out``.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Base seed; replication i draws its noise from ``default_rng([seed, i, alpha
        index, output index])``, and its DP-cloaking noise from ``default_rng([seed, i,
        100 + epsilon index, output index])``.
    progress : bool
        Show a progress bar.
    replications : int
        Replications for Figures 4-5 (the paper: 100).
    table_seeds : int
        Replications averaged in Table 3, with the Stationary attack and DP-cloaking
        (the paper: 20).
    kernel_convention : {"paper", "code"}
        Reading of the paper's l = 1/400 (see :data:`KERNEL_CONVENTIONS`).
    data : None
        Kept for existing scripts; the study simulates its data, so only None is
        accepted.
    runner : Runner, optional
        Runs the replications (one task each, with the Stationary attack and the
        DP-cloaking releases of the Table 3 replications; default: serially in this
        process). Results do not depend on it; ``results.json`` records it and each
        task's seed keys.

    Returns
    -------
    dict
        Summary: output folder, the smallest certificate margin, whether every
        certificate and every DP check passed, the AVERAGE RMSE rows and the
        privacy-aware vs DP-cloaking comparison (which is also printed).

    Notes
    -----
    [TCB] §5.1, Figures 2-7, Table 3; [SMI] §3 for DP-cloaking; the authors' runs and
    their discrepancies are in :doc:`/theory/privacy-aware-gp`.
    """
    if data is not None:
        raise ValueError(f"the satellite study simulates its data: data must be None, got {data!r}")
    replications = positive_int(replications, "replications")
    table_seeds = positive_int(table_seeds, "table_seeds")
    if kernel_convention not in KERNEL_CONVENTIONS:
        raise ValueError(f"kernel_convention must be one of {sorted(KERNEL_CONVENTIONS)}")
    params = {
        "seed": seed,
        "replications": replications,
        "table_seeds": table_seeds,
        "kernel_convention": kernel_convention,
        "alphas": ALPHAS,
        "kernel_length_scale": float(KERNEL_CONVENTIONS[kernel_convention].lengthscale),
        "seed_scheme": "default_rng([seed, replication, alpha_index, output_index])",
        **dp.parameters(),
        "dp_seed_scheme": "default_rng([seed, replication, 100 + epsilon_index, output_index]), "
        "replications 0 .. table_seeds - 1 (the Table 3 seeds)",
    }
    output = StudyOutput(out, "satellite", params)
    design = Design(KERNEL_CONVENTIONS[kernel_convention])
    output.write_csv("trajectory.csv", figures.trajectory_rows(design))
    cloaking = dp_cloaking_designs(design)
    tasks = [
        Task(("replication", i), {"replication": i, "table_seed": i < table_seeds}, (seed, i))
        for i in range(max(replications, table_seeds))
    ]
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    shared = {"design": design, "cloaking": cloaking, "seed": seed}
    reps = runner.map(replication_task, tasks, shared=shared, name="satellite", fingerprint=params)
    output.parameters["runner"] = runner.describe()
    cloaking = dp_cloaking_results(design, cloaking, [r["dp"] for r in reps[:table_seeds]])
    dropout_times = {}
    dropout = dropout_means(design, dropout_times)
    zero_design = Design(design.kernel, zero_mean=True)
    zero_rep = replicate(zero_design, seed, 0, with_attack=False)
    rows = table_rows(
        design, reps[:table_seeds], dropout, dropout_times[("dropout", None)], cloaking
    )
    rows += zero_mean_rows(zero_design, zero_rep)
    certificates = {
        f"alpha={a}": {
            name: [r["certificate"][a, c].margin for r in reps] for c, name in enumerate(COMPONENTS)
        }
        for a in ALPHAS
    }
    released = [cert for r in reps for cert in r["certificate"].values()]
    jobs = figures.figure_jobs(
        design, reps[:replications], dropout, zero_design, zero_rep, ALPHAS, cloaking, dp.EPSILONS
    )
    save_figures(output, jobs, runner)
    checks = {**theory_checks(design, reps[:replications]), **dp_checks(design, cloaking)}
    checks["certificate_min"] = min(min(v) for d in certificates.values() for v in d.values())
    checks["certificates_passed"] = all(cert.passed for cert in released)
    checks["certificate_tolerance_max"] = max(cert.tolerance for cert in released)
    pa_vs_dp = comparison(rows, table_seeds)
    output.write_results(
        rows,
        certificates_per_release=certificates,
        checks=checks,
        jitter={name: gp.jitter for name, gp in zip(COMPONENTS, design.gps)},
        pa_vs_dp=pa_vs_dp,
        dp_cloaking_design={
            name: cloak.record() for name, cloak in zip(COMPONENTS, cloaking["designs"])
        },
        dp_releases=cloaking["records"],
    )
    print(
        dp.format_comparison(
            f"Privacy-aware GP vs DP-cloaking, satellite: AVERAGE RMSE over the 4 outputs, replications "
            f"0-{table_seeds - 1} of seed {seed} for both, same GPs (+- across outputs, as Table 3)",
            pa_vs_dp,
        )
    )
    return {
        "out": str(output.folder),
        "certificate_min": checks["certificate_min"],
        "certificates_passed": checks["certificates_passed"],
        "dp_all_checks_passed": checks["dp_all_checks_passed"],
        "average_rmse": {dp.row_label(r): r["rmse_mean"] for r in rows if r["output"] == "AVERAGE"},
        "pa_vs_dp": pa_vs_dp,
    }


def comparison(rows, seeds):
    """Privacy-aware GP and DP-cloaking AVERAGE rows side by side (see :func:`._dp_rows.comparison`)."""
    average = [r for r in rows if r["output"] == "AVERAGE"]
    pa = {r["alpha"]: r for r in average if r["method"] == "privacy-aware"}
    cloaking = {r["epsilon"]: r for r in average if r["method"] == dp.METHOD}
    dropout = next(r["rmse_mean"] for r in average if r["method"] == "dropout")
    return [
        {**r, "seeds": seeds} for r in dp.comparison(pa, cloaking, dropout, ALPHAS, PAPER_TABLE3)
    ]


def zero_mean_rows(design, rep):
    """Figure 7's model (beta = 0): RMSE per output for one seed, as the authors ran it."""
    rows = []
    for a in ALPHAS:
        errors = [rmse(rep["pa_mean"][a, c][::TRAIN_STRIDE], design.Y[:, c]) for c in range(4)]
        for name, error in zip(COMPONENTS + ("AVERAGE",), errors + [float(np.mean(errors))]):
            rows.append(
                {
                    "method": "privacy-aware (zero mean)",
                    "alpha": a,
                    "output": name,
                    "rmse_mean": error,
                    "rmse_std": None,
                    "rmse_std_over": "one seed",
                }
            )
    return rows
