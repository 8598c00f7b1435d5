"""[TCB] §5.1: a privacy-aware GP surrogate of a planar J2 orbit that hides t in [1, 2].

Four independent noiseless GPs (one per state component) are fitted to 61 samples of
the trajectory on t = 0, 0.05, ..., 3 (units of T_orb). The owner releases
``W = Y + Z`` through
:class:`~ssa_privacy.privacy.synthetic_noise.mechanism.SyntheticNoiseMechanism` (the
optimal synthetic noise for the private segment, H = alpha K on the 21 training points
inside [1, 2]); the user's privacy-aware GP is compared with Dropout (the same GP
without the private points), the Stationary attack (a fresh GP fitted by ML to W), the
non-private GP and DP-cloaking ([SMI], epsilon in {0.3, 0.5, 1}, delta = 0.01, on the
same GPs and replications; see :mod:`._dp_rows`). Outputs: Figures 2-7 of the paper,
Table 3 (RMSE against the true trajectory at the 61 points, :mod:`._satellite_tables`),
the privacy-aware vs DP-cloaking comparison (also printed) and ``trajectory.csv``.
"""

import numpy as np

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import positive_int
from ssa_privacy.attacks.stationary import stationary_attack
from ssa_privacy.engine.figures import save_figures
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.gp.baselines import dropout_gp
from ssa_privacy.gp.fit import fit_mean_and_variance
from ssa_privacy.gp.kernels import RBF
from ssa_privacy.orbits.planar import PlanarJ2Model
from ssa_privacy.privacy.synthetic_noise.mechanism import SyntheticNoiseMechanism, privacy_aware_gp
from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies import _satellite_dp as cloaking_rows
from ssa_privacy.studies import _satellite_figures as figures
from ssa_privacy.studies import _satellite_tables as tables
from ssa_privacy.studies._common import stopwatch

__all__ = [
    "ALPHAS",
    "COMPONENTS",
    "DESCRIPTION",
    "Design",
    "FAR_LENGTH_SCALES",
    "KERNEL_CONVENTIONS",
    "PAPER_L",
    "PRIVATE_SEGMENT",
    "USES_RUNNER",
    "add_arguments",
    "baselines",
    "distance_to_segment",
    "dropout_means",
    "mechanism_classes",
    "parameters",
    "privacy_aware_run",
    "replicate",
    "replication_task",
    "report",
    "run",
    "scenario",
    "stationary_run",
    "study_checks",
    "table",
    "tasks",
    "theory_checks",
    "trajectory",
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


def add_arguments(parser):
    """Options of ``ssa-privacy run satellite``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The study's sub-command parser.
    """
    opt.add_replications(parser, 100, "replications for Figures 4-5, as the paper")
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
    """The study's fixed quantities: grids, truth, fitted GPs and privacy mechanisms.

    Parameters
    ----------
    kernel : RBF
        The prior kernel (one of :data:`KERNEL_CONVENTIONS`); each output's variance is
        fitted.
    zero_mean : bool
        Fit a zero prior mean (Figure 7) instead of a constant one.

    Attributes
    ----------
    alphas, components : tuple
        :data:`ALPHAS` and :data:`COMPONENTS`, the index sets of the mechanisms.
    training : slice
        The training points on the dense grid ``t``.
    mechanisms : dict
        ``(alpha, output index)`` -> the certified
        :class:`~ssa_privacy.privacy.synthetic_noise.mechanism.SyntheticNoiseMechanism`
        of that output's fitted kernel at level alpha; ``design_times`` the time (s) of
        each design.
    """

    def __init__(self, kernel, zero_mean=False):
        self.alphas, self.components = ALPHAS, COMPONENTS
        self.training = slice(None, None, TRAIN_STRIDE)
        self.t, self.states, self.private_dense = trajectory()
        self.X = self.t[self.training]
        self.Y = self.states[self.training]
        self.private = self.private_dense[self.training]
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


def privacy_aware_run(design, alpha, c, rng, times):
    """One release and reconstruction: (W, mean, variance on the dense grid, certificate).

    The release is the design's mechanism's (output c, level alpha):
    ``mechanism.release(y, seed=rng)``, whose certificate (computed by the certified design
    from the noise it returns) is a :class:`~ssa_privacy.privacy.mechanism.Certificate`.
    The owner's fit and the certified Sigma_opt do not depend on the replication, so
    they are computed once.
    """
    y, gp, mechanism = design.Y[:, c], design.gps[c], design.mechanisms[alpha, c]
    with stopwatch(times, ("privacy-aware", alpha)):
        released = mechanism.release(y, seed=rng)
        user = privacy_aware_gp(gp, design.X, released.values, released.noise_covariance)
        mean, variance = user.predict(design.t)
    return released.values, mean, variance, released.certificate


def stationary_run(design, W, rng, times, alpha):
    """The Stationary attack on a release: mean on the dense grid."""
    with stopwatch(times, ("stationary", alpha)):
        fit = stationary_attack(design.X, W, restarts=3, seed=rng)
        mean, _ = fit.gp.predict(design.t)
    return mean


def replicate(design, seed_keys, with_attack):
    """All alphas and outputs of one replication; returns a dict of arrays and times.

    With ``seed_keys = (seed, replication)``, level index ia and output c draw from
    ``default_rng([seed, replication, ia, c])``: first the release, then
    (``with_attack``) the Stationary attack's restarts.
    """
    times = {}
    out = {"W": {}, "pa_mean": {}, "pa_var": {}, "certificate": {}, "stationary": {}}
    for ia, alpha in enumerate(ALPHAS):
        for c in range(len(COMPONENTS)):
            rng = random_generator((*seed_keys, ia, c))
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


def replication_task(design, cloaking, replication, table_seed, seed_keys):
    """One task of the runner: replication ``replication`` of the study.

    Parameters
    ----------
    design : Design
        The study's fitted GPs and grids.
    cloaking : dict
        :func:`._satellite_dp.dp_cloaking_designs` of ``design``.
    replication : int
        The replication index.
    table_seed : bool
        A Table 3 replication: with the Stationary attack and the DP-cloaking releases.
    seed_keys : tuple of int
        ``(seed, replication)``, from the task: every random number comes from
        ``default_rng([seed, replication, ...])``.

    Returns
    -------
    dict
        :func:`replicate`'s dict, plus ``dp``:
        :func:`._satellite_dp.dp_cloaking_replication` (None unless ``table_seed``).
    """
    out = replicate(design, seed_keys, with_attack=table_seed)
    if table_seed:
        out["dp"] = cloaking_rows.dp_cloaking_replication(design, cloaking, seed_keys, replication)
    else:
        out["dp"] = None
    return out


def theory_checks(design, reps):
    """The predictions of the theory, measured: traces, binding variances, locality."""
    prior_var = [gp.kernel.variance for gp in design.gps]
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
        traces = [design.mechanisms[a, c].noise_covariance.trace for a in ALPHAS]
        checks["trace_Sigma_opt"][name] = dict(zip(map(str, ALPHAS), traces))
        checks["trace_decreasing_in_alpha"][name] = bool(np.all(np.diff(traces) < 0))
        for a in ALPHAS:
            variance = reps[0]["pa_var"][a, c][design.training][design.private]
            ratio = variance / ((1 - a) * prior_var[c])
            checks["posterior_variance_ratio_at_S"][f"{name}, alpha={a}"] = [
                float(ratio.min()),
                float(ratio.max()),
            ]
            gaps = [np.max(np.abs(r["pa_mean"][a, c] - np_mean)[far]) for r in reps]
            checks[far_key][f"{name}, alpha={a}"] = float(np.max(gaps) / np.sqrt(prior_var[c]))
    return checks


def distance_to_segment(t):
    """Distance (T_orb) from each time to the private segment [1, 2]."""
    return np.maximum(0.0, np.maximum(PRIVATE_SEGMENT[0] - t, t - PRIVATE_SEGMENT[1]))


def parameters(seed, replications, table_seeds, kernel_convention):
    """The run's validated parameters for ``results.json``, with its seed schemes.

    Parameters
    ----------
    seed, replications, table_seeds, kernel_convention
        As :func:`run`.

    Returns
    -------
    dict
        The parameters, the DP settings (:func:`._dp_rows.parameters`) and the seed
        schemes of both kinds of release.

    Raises
    ------
    ValueError
        If ``replications`` or ``table_seeds`` is not a positive integer, or
        ``kernel_convention`` is not one of :data:`KERNEL_CONVENTIONS`.
    """
    replications = positive_int(replications, "replications")
    table_seeds = positive_int(table_seeds, "table_seeds")
    if kernel_convention not in KERNEL_CONVENTIONS:
        raise ValueError(f"kernel_convention must be one of {sorted(KERNEL_CONVENTIONS)}")
    return {
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


def scenario(kernel_convention):
    """The study's design and its DP-cloaking designs, fixed across replications.

    Parameters
    ----------
    kernel_convention : {"paper", "code"}
        The prior kernel (:data:`KERNEL_CONVENTIONS`).

    Returns
    -------
    design : Design
        The fitted GPs and the certified synthetic-noise mechanisms.
    cloaking : dict
        :func:`._satellite_dp.dp_cloaking_designs` of ``design``.
    """
    design = Design(KERNEL_CONVENTIONS[kernel_convention])
    return design, cloaking_rows.dp_cloaking_designs(design)


def mechanism_classes(designs):
    """The public mechanism class of each kind of release the study makes.

    Parameters
    ----------
    designs : sequence of Design
        Every design that releases (the study's and the zero-mean one).

    Returns
    -------
    dict
        ``{"privacy-aware": "SyntheticNoiseMechanism", "dp-cloaking":
        "CloakingMechanism"}``, for ``results.json``.
    """
    used = {type(m).__name__ for design in designs for m in design.mechanisms.values()}
    return {"privacy-aware": ", ".join(sorted(used)), dp.METHOD: dp.MECHANISM.__name__}


def tasks(seed, replications, table_seeds):
    """One task per replication; the first ``table_seeds`` are Table 3 replications.

    Parameters
    ----------
    seed, replications, table_seeds : int
        As :func:`run`.

    Returns
    -------
    list of Task
        Task i has the arguments of :func:`replication_task` and the seed keys
        ``(seed, i)``.
    """
    return [
        Task(("replication", i), {"replication": i, "table_seed": i < table_seeds}, (seed, i))
        for i in range(max(replications, table_seeds))
    ]


def baselines(design, cloaking, reps, seed, table_seeds):
    """What the replications are compared with: DP-cloaking, Dropout, the zero-mean model.

    Parameters
    ----------
    design : Design
        The study's design.
    cloaking : dict
        :func:`._satellite_dp.dp_cloaking_designs` of ``design``.
    reps : list of dict
        The replications (:func:`replication_task`), in order.
    seed, table_seeds : int
        As :func:`run`.

    Returns
    -------
    dict
        ``cloaking`` (:func:`._satellite_dp.dp_cloaking_results` of the Table 3
        replications), ``dropout`` (:func:`dropout_means`) and ``dropout_times`` (s),
        ``zero_design`` (:class:`Design` with a zero prior mean) and ``zero_rep`` (its
        replication 0, without the attack).
    """
    times = {}
    out = {
        "cloaking": cloaking_rows.dp_cloaking_results(
            design, cloaking, [r["dp"] for r in reps[:table_seeds]]
        ),
        "dropout": dropout_means(design, times),
        "dropout_times": times[("dropout", None)],
        "zero_design": Design(design.kernel, zero_mean=True),
    }
    out["zero_rep"] = replicate(out["zero_design"], (seed, 0), with_attack=False)
    return out


def study_checks(design, reps, replications, cloaking):
    """The theory's predictions and every release's certificate, measured.

    Parameters
    ----------
    design : Design
        The study's design.
    reps : list of dict
        Every replication (:func:`replication_task`).
    replications : int
        How many of them the theory's checks use (those of Figures 4-5).
    cloaking : dict
        :func:`._satellite_dp.dp_cloaking_results`.

    Returns
    -------
    checks : dict
        :func:`theory_checks` (on the first ``replications``),
        :func:`._satellite_dp.dp_checks`, the smallest certificate margin, whether all
        passed and the largest tolerance.
    certificates : dict
        ``"alpha=<a>"`` -> output -> the certificate margin of every replication.
    """
    certificates = {
        f"alpha={a}": {
            name: [r["certificate"][a, c].margin for r in reps] for c, name in enumerate(COMPONENTS)
        }
        for a in ALPHAS
    }
    released = [cert for r in reps for cert in r["certificate"].values()]
    checks = {
        **theory_checks(design, reps[:replications]),
        **cloaking_rows.dp_checks(design, cloaking),
    }
    checks["certificate_min"] = min(min(v) for d in certificates.values() for v in d.values())
    checks["certificates_passed"] = all(cert.passed for cert in released)
    checks["certificate_tolerance_max"] = max(cert.tolerance for cert in released)
    return checks, certificates


def table(design, reps, compared, table_seeds):
    """Table 3 (:func:`._satellite_tables.table_rows` of the Table 3 replications) and the
    zero-mean rows of Figure 7 (:func:`._satellite_tables.zero_mean_rows`)."""
    rows = tables.table_rows(
        design,
        reps[:table_seeds],
        compared["dropout"],
        compared["dropout_times"],
        compared["cloaking"],
    )
    return rows + tables.zero_mean_rows(compared["zero_design"], compared["zero_rep"])


def report(output, design, reps, compared, rows):
    """Write ``results.json`` and ``results.csv``, print the comparison, return the summary.

    Parameters
    ----------
    output : StudyOutput
        The run's output (its parameters hold the seed and the replication counts).
    design : Design
        The study's design.
    reps : list of dict
        Every replication (:func:`replication_task`).
    compared : dict
        :func:`baselines`.
    rows : list of dict
        :func:`table`.

    Returns
    -------
    dict
        The summary :func:`run` returns.
    """
    seed, seeds = output.parameters["seed"], output.parameters["table_seeds"]
    cloaking = compared["cloaking"]
    checks, certificates = study_checks(design, reps, output.parameters["replications"], cloaking)
    pa_vs_dp = tables.comparison(rows, seeds, ALPHAS)
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
            f"Privacy-aware GP vs DP-cloaking, satellite: AVERAGE RMSE over the 4 outputs, "
            f"replications 0-{seeds - 1} of seed {seed} for both, same GPs (+- across "
            "outputs, as Table 3)",
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


@transactional
def run(
    out,
    seed=0,
    progress=True,
    replications=100,
    table_seeds=20,
    kernel_convention="paper",
    runner=None,
):
    """Run the satellite study; write figures, tables and ``trajectory.csv`` into ``out``.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Base seed of every release (seed schemes in ``results.json``).
    progress : bool
        Show a progress bar.
    replications : int
        Replications for Figures 4-5 (the paper: 100).
    table_seeds : int
        Replications averaged in Table 3, with the Stationary attack and DP-cloaking
        (the paper: 20).
    kernel_convention : {"paper", "code"}
        Reading of the paper's l = 1/400 (see :data:`KERNEL_CONVENTIONS`).
    runner : Runner, optional
        Runs the replications (default: serially in this process); results do not
        depend on it.

    Returns
    -------
    dict
        :func:`report`'s summary (the comparison with DP-cloaking is also printed).

    Raises
    ------
    ValueError
        On invalid parameters (see :func:`parameters`).

    Notes
    -----
    [TCB] §5.1, Figures 2-7, Table 3; [SMI] §3 for DP-cloaking; :doc:`/theory/privacy-aware-gp`.
    Every release goes through a public mechanism's ``release``; ``results.json`` records
    their classes (``parameters.mechanisms``), the runner and each task's seed keys.
    """
    params = parameters(seed, replications, table_seeds, kernel_convention)
    output = StudyOutput(out, "satellite", params)
    design, cloaking = scenario(kernel_convention)
    output.write_csv("trajectory.csv", figures.trajectory_rows(design))
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    work = tasks(seed, params["replications"], params["table_seeds"])
    shared = {"design": design, "cloaking": cloaking}
    reps = runner.map(replication_task, work, shared=shared, name="satellite", fingerprint=params)
    output.parameters["runner"] = runner.describe()
    compared = baselines(design, cloaking, reps, seed, params["table_seeds"])
    output.parameters["mechanisms"] = mechanism_classes([design, compared["zero_design"]])
    rows = table(design, reps, compared, params["table_seeds"])
    jobs = figures.figure_jobs(
        design, reps[: params["replications"]], compared, ALPHAS, dp.EPSILONS
    )
    save_figures(output, jobs, runner)
    return report(output, design, reps, compared, rows)
