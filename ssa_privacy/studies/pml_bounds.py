"""[LKC] §4 in closed loop: Kalman error covariance against the PML bounds, over epsilon.

Plant: two coupled building zones (state in K, time step one sampling period),

    A = [[0.75, 0.10], [0.10, 0.65]],  C = I_2,  Q = [[0.40, 0.05], [0.05, 0.30]] K^2,

observed through ``Y_k = X_k + V_k``. For each epsilon of the sweep and each design

- ``corollary-3.7/paper``: closed form (15) with the paper's kappa,
- ``corollary-3.7/exact``: closed form (15) with the exact kappa,
- ``log-det/exact``: the exact log-det-cone design (min tr Theta, :doc:`/theory/pml`),

the study simulates the plant and the filterpy Kalman filter over many seeded runs and
compares the empirical steady-state error covariance P (log det and trace) with the DARE
value and the lower bounds: the chain ``log det Q + log det Gamma - log det Sigma_XX`` and
[LKC] (28)/(29) in the design's own convention (the pairing that is guaranteed), and beside
(29) the AM-GM trace bound ``n exp((28) / n)`` (never looser, never negative). For the
exact designs the paper-convention (28) is also reported, marked as a pairing that is not
guaranteed. A trace bound that is not positive holds for every P and says nothing: it is
marked vacuous (``bound_29_vacuous``, ``trace_chain_vacuous``) and its ``holds_*`` columns
are null, not a check. Independent draws of ``(X, Y)`` give a Monte Carlo estimate of
``P[l(X -> Y) <= epsilon]`` (true, exact PML) with a 99% Clopper-Pearson interval,
against ``1 - delta``.
"""

import functools

import numpy as np

from ssa_privacy._internal.validation import (
    as_finite_array,
    non_negative_int,
    nonempty,
    open_interval,
    positive_int,
)
from ssa_privacy.engine.figures import COLUMN_WIDTH, PAGE_WIDTH, legend_below, log_axis
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.estimation.kalman import (
    empirical_error_covariance,
    error_covariance_bounds,
    steady_state,
)
from ssa_privacy.plants import LTIPlant
from ssa_privacy.privacy.accounting import check_epsilon, minimum_epsilon
from ssa_privacy.privacy.pml.leakage import (
    leakage_probability,
    linear_mechanism_covariances,
    monte_carlo_leakage_probability,
)
from ssa_privacy.privacy.pml.plant import design_noise
from ssa_privacy.studies import _options as opt

__all__ = [
    "A_PLANT",
    "C_PLANT",
    "DEFAULT_EPSILONS",
    "DESCRIPTION",
    "DESIGNS",
    "EPSILON_EXCESS_LIMIT",
    "METHODS",
    "Q_PLANT",
    "USES_RUNNER",
    "add_arguments",
    "run",
]

USES_RUNNER = True
DESCRIPTION = (
    "[LKC] §4: Kalman error covariance vs PML bounds (28)-(29) and P[l <= eps] over epsilon"
)

A_PLANT = [[0.75, 0.10], [0.10, 0.65]]
C_PLANT = [[1.0, 0.0], [0.0, 1.0]]
Q_PLANT = [[0.40, 0.05], [0.05, 0.30]]
DEFAULT_EPSILONS = (5.0, 5.5, 6.0, 7.0, 8.0, 10.0)
#: Design name -> (method label written to design.json, convention).
DESIGNS = {
    "corollary-3.7/paper": ("closed form", "paper"),
    "corollary-3.7/exact": ("closed form", "exact"),
    "log-det/exact": ("log-det", "exact"),
}
#: Method label -> ``method`` of :func:`~ssa_privacy.privacy.pml.plant.design_noise`.
METHODS = {"closed form": "closed-form", "log-det": "logdet"}
#: Largest epsilon above condition (9), ``epsilon - F^{-1}_{chi^2_2}(1 - delta) / 2``, in
#: nats, that the study accepts. The exact designs' noise is about ``exp(-excess)`` times the
#: signal's variance (6e-6 at 12 nats). Measured over delta from 1e-300 to 1 - 1e-12, every
#: design and row evaluation works up to it; from 13.25 nats on (the least failure, at some
#: delta) the log-det design's Theta is below the solver's accuracy and misses (8) by more
#: than INFLATION_LIMIT repairs, and from about 27.6 nats the canonical correlations of the
#: exact closed form round to 1 in the row's evaluations.
EPSILON_EXCESS_LIMIT = 12.0


def _column(rows, key):
    """The values of ``key`` over ``rows`` as a float array."""
    return np.array([r[key] for r in rows], dtype=float)


def add_arguments(parser):
    """Options of the pml-bounds study."""
    parser.add_argument(
        "--runs",
        type=opt.int_at_least(2),
        default=100,
        help="independent simulation runs, at least 2 (default: 100)",
    )
    parser.add_argument(
        "--steps", type=opt.positive_int, default=500, help="time steps per run (default: 500)"
    )
    parser.add_argument(
        "--burn-in",
        type=opt.non_negative_int,
        default=50,
        help="initial steps left out of the averages, fewer than --steps (default: 50)",
    )
    opt.add_pml_level(parser, 0.01)
    parser.add_argument(
        "--epsilons",
        type=opt.comma_list(opt.positive_float),
        default=DEFAULT_EPSILONS,
        help="comma-separated leakage levels in nats (default: 5,5.5,6,7,8,10)",
    )
    opt.add_mc_samples(parser, 400_000, "independent (X, Y) draws per design for P[l <= epsilon]")


def _design(plant, method, convention, epsilon, delta):
    """The designed Theta (dense, as the design returned it)."""
    return design_noise(plant, epsilon, delta, method=METHODS[method], convention=convention).Theta


def _case(plant, name, epsilon, delta, options, seed_keys):
    """One task of the runner: design ``name`` at ``epsilon``, its Theta and results row."""
    Theta = _design(plant, *DESIGNS[name], epsilon, delta)
    rng = np.random.default_rng(list(seed_keys))
    return Theta, _row(plant, name, epsilon, delta, Theta, options, rng)


def _holds(value, bound, vacuous=False):
    """Whether ``value >= bound``; None (no check) for a vacuous bound."""
    return None if vacuous else bool(value >= bound)


def _row(plant, name, epsilon, delta, Theta, options, rng):
    convention = DESIGNS[name][1]
    ss = steady_state(plant, Theta)
    bounds = error_covariance_bounds(plant, Theta, epsilon, delta, convention)
    S, trace_se, log_det_se = empirical_error_covariance(
        plant, Theta, options["runs"], options["steps"], options["burn_in"], rng
    )
    values = {
        "logdet_P_dare": np.linalg.slogdet(ss.P)[1],
        "logdet_P_empirical": np.linalg.slogdet(S)[1],
        "trace_P_dare": np.trace(ss.P),
        "trace_P_empirical": np.trace(S),
    }
    Sigma = plant.prior_covariance()
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(plant.C, Sigma, Theta)
    mc = monte_carlo_leakage_probability(plant.C, Sigma, Theta, epsilon, options["mc_samples"], rng)
    row = {
        "epsilon": epsilon,
        "delta": delta,
        "design": name,
        "convention": convention,
        "trace_Theta": np.trace(Theta),
        **values,
        "logdet_P_empirical_se": log_det_se,
        "trace_P_empirical_se": trace_se,
        "bound_chain_logdet": bounds.log_det_chain,
        "bound_28": bounds.log_det,
        "bound_chain_trace": bounds.trace_chain,
        "bound_29": bounds.trace,
        "trace_chain_vacuous": bounds.trace_chain_vacuous,
        "bound_29_vacuous": bounds.trace_vacuous,
        "bound_28_29_guaranteed": bounds.applies,
        "bound_chain_trace_am_gm": bounds.trace_chain_am_gm,
        "bound_29_am_gm": bounds.trace_am_gm,
    }
    for kind in ("dare", "empirical"):
        logdet, trace = values[f"logdet_P_{kind}"], values[f"trace_P_{kind}"]
        row[f"holds_chain_{kind}"] = _holds(logdet, bounds.log_det_chain)
        row[f"holds_28_{kind}"] = _holds(logdet, bounds.log_det)
        row[f"holds_trace_chain_{kind}"] = _holds(
            trace, bounds.trace_chain, bounds.trace_chain_vacuous
        )
        row[f"holds_29_{kind}"] = _holds(trace, bounds.trace, bounds.trace_vacuous)
        row[f"holds_trace_chain_am_gm_{kind}"] = _holds(trace, bounds.trace_chain_am_gm)
        row[f"holds_29_am_gm_{kind}"] = _holds(trace, bounds.trace_am_gm)
    if convention == "exact":
        paper = error_covariance_bounds(plant, Theta, epsilon, delta, "paper")
        row["paper_bound_28_not_guaranteed"] = paper.log_det
        row["paper_bound_28_holds_dare"] = _holds(values["logdet_P_dare"], paper.log_det)
    row.update(
        {
            "P_leak_le_eps_analytic": leakage_probability(
                Sigma, Sigma_XY, Sigma_YY, epsilon, "exact"
            ),
            "P_leak_le_eps_mc": mc.estimate,
            "P_mc_ci99_low": mc.low,
            "P_mc_ci99_high": mc.high,
            "P_leak_mc_failures": mc.failures,
            "mc_samples": mc.samples,
            "privacy_holds_mc": bool(mc.high >= 1.0 - delta),
        }
    )
    return row


def _covariance_panel(ax, mine, name, kind):
    """One panel of the first figure: the empirical P against the DARE and the bounds."""
    get = functools.partial(_column, mine)
    eps, convention = get("epsilon"), DESIGNS[name][1]
    bound, chain = {
        "logdet": ("bound_28", "bound_chain_logdet"),
        "trace": ("bound_29", "bound_chain_trace"),
    }[kind]
    ax.errorbar(
        eps,
        get(f"{kind}_P_empirical"),
        yerr=2 * get(f"{kind}_P_empirical_se"),
        fmt="o",
        color="black",
        ms=4,
        capsize=3,
        label="empirical (±2 s.e.)",
    )
    ax.plot(eps, get(f"{kind}_P_dare"), color="tab:green", label="DARE")
    ax.plot(eps, get(chain), color="tab:blue", ls="--", label="chain bound (this Theta)")
    ax.plot(eps, get(bound), color="tab:red", ls=":", label="(28) / (29), the design's convention")
    if kind == "trace":
        label = "AM-GM n exp((28) / n)"
        ax.plot(eps, get("bound_29_am_gm"), color="tab:purple", ls="-.", label=label)
    if kind == "logdet" and "paper_bound_28_not_guaranteed" in mine[0]:
        label = "paper (28): not guaranteed here"
        ax.plot(eps, get("paper_bound_28_not_guaranteed"), color="grey", ls="-.", label=label)
    ax.set_ylabel("log det P (P in K$^2$)" if kind == "logdet" else "trace P (K$^2$)")
    ax.set_title(f"{name} ({convention} convention)")


def _covariance_figure(output, rows, delta):
    """The empirical error covariance against the DARE and the bounds, per design."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        len(DESIGNS), 2, figsize=(PAGE_WIDTH, 2.2 * len(DESIGNS) + 1.2), sharex=True
    )
    for axes_row, name in zip(axes, DESIGNS):
        mine = [r for r in rows if r["design"] == name]
        for ax, kind in zip(axes_row, ("logdet", "trace")):
            _covariance_panel(ax, mine, name, kind)
    for ax in axes[-1]:
        ax.set_xlabel("epsilon (nats)")
    handles = [h for ax in axes.flat for h in ax.get_legend_handles_labels()[0]]
    legend_below(fig, handles, ncol=3)
    fig.suptitle(f"Steady-state Kalman error covariance vs PML bounds (delta = {delta:g})")
    output.save_figure(fig, "fig_error_covariance_bounds")


def _leakage_figure(output, rows, delta):
    """The Monte Carlo leakage failure probability (99% interval) and its closed form."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 4.0))
    for name, color in zip(DESIGNS, ("tab:red", "tab:orange", "tab:blue")):
        get = functools.partial(_column, [r for r in rows if r["design"] == name])
        eps, estimate = get("epsilon"), get("P_leak_le_eps_mc")
        below, above = estimate - get("P_mc_ci99_low"), get("P_mc_ci99_high") - estimate
        ax.errorbar(
            eps,
            1.0 - estimate,
            yerr=[above, below],
            fmt="o",
            color=color,
            capsize=3,
            label=f"{name}: Monte Carlo, 99% CI",
        )
        ax.plot(eps, 1.0 - get("P_leak_le_eps_analytic"), color=color, ls=":", lw=1)
    ax.plot([], [], color="0.4", ls=":", lw=1, label="closed form (dotted, per design)")
    ax.axhline(delta, color="black", ls="--", label="delta")
    log_axis(ax.yaxis)
    ax.set_xlabel("epsilon (nats)")
    ax.set_ylabel("P[l(X -> Y) > epsilon]")
    ax.set_title("Leakage failure probability of the designs")
    legend_below(fig, ax.get_legend_handles_labels()[0])
    output.save_figure(fig, "fig_leakage_probability")


def _parameters(seed, runs, steps, burn_in, delta, epsilons, mc_samples):
    """The run's parameters, every option checked before anything is written.

    Raises
    ------
    ValueError, TypeError
        As :func:`run`, naming the option.
    """
    runs, steps = positive_int(runs, "runs"), positive_int(steps, "steps")
    if runs < 2:
        raise ValueError(f"runs must be at least 2 (the standard errors need two runs), got {runs}")
    burn_in = non_negative_int(burn_in, "burn_in")
    if not burn_in < steps:
        raise ValueError(f"burn_in must lie in [0, steps), got {burn_in} with steps = {steps}")
    delta = open_interval(delta, "delta")
    epsilons = tuple(
        float(e) for e in nonempty(as_finite_array(epsilons, "epsilons", 1), "epsilons")
    )
    _check_epsilons(epsilons, delta)
    mc_samples = positive_int(mc_samples, "mc_samples")
    seed = non_negative_int(seed, "seed")
    options = dict(runs=runs, steps=steps, burn_in=burn_in, mc_samples=mc_samples)
    return dict(
        seed=seed, delta=delta, epsilons=list(epsilons), A=A_PLANT, C=C_PLANT, Q=Q_PLANT, **options
    )


def _check_epsilons(epsilons, delta):
    """Refuse an epsilon below condition (9) or above it by more than EPSILON_EXCESS_LIMIT."""
    l = np.linalg.matrix_rank(C_PLANT)
    check_epsilon(np.array(epsilons), delta, l, "epsilons")
    ceiling = float(minimum_epsilon(delta, l)) + EPSILON_EXCESS_LIMIT
    above = [e for e in epsilons if e > ceiling]
    if above:
        raise ValueError(
            f"epsilons: {above[0]:g} nats is above {ceiling:.6g} nats, the largest this study "
            f"designs and evaluates at delta = {delta:g} (condition (9)'s "
            f"F^-1_chi2_2(1 - delta) / 2 + {EPSILON_EXCESS_LIMIT:g} nats): beyond it the "
            "log-det design's noise is below the solver's accuracy"
        )


def _tasks(epsilons, seed):
    """One task per (epsilon, design), task index j seeded by ``(seed, j)``."""
    cases = [(eps, name) for eps in epsilons for name in DESIGNS]
    return [
        Task(("epsilon", eps, "design", name), {"epsilon": eps, "name": name}, (seed, index))
        for index, (eps, name) in enumerate(cases)
    ]


def _design_record(plant, delta, tasks, thetas):
    """``design.json``: the plant, its prior and every designed Theta by epsilon."""
    by_design = {name: {} for name in DESIGNS}
    for task, Theta in zip(tasks, thetas, strict=True):
        by_design[task.arguments["name"]][str(task.arguments["epsilon"])] = Theta
    return {
        "A": A_PLANT,
        "C": C_PLANT,
        "Q": Q_PLANT,
        "Sigma_XX": plant.prior_covariance(),
        "delta": delta,
        "designs": {
            name: {
                "method": DESIGNS[name][0],
                "convention": DESIGNS[name][1],
                "Theta_by_epsilon": by_design[name],
            }
            for name in DESIGNS
        },
    }


def _checks(rows):
    """The guaranteed checks, and whether all hold (a null check, for a vacuous bound, is
    no check: it neither holds nor fails)."""
    guaranteed = [k for k in rows[0] if k.startswith("holds_")] + ["privacy_holds_mc"]
    return guaranteed, bool(all(r[k] is not False for r in rows for k in guaranteed))


def _summary(rows, guaranteed, all_hold, delta, folder):
    """The summary printed by the command."""
    return {
        "all_guaranteed_checks_hold": all_hold,
        "failed_checks": [
            (r["epsilon"], r["design"], k) for r in rows for k in guaranteed if r[k] is False
        ],
        "paper_bound_28_on_exact_designs_holds_dare": all(
            r["paper_bound_28_holds_dare"] for r in rows if "paper_bound_28_holds_dare" in r
        ),
        "min_P_leak_le_eps_mc": min(r["P_leak_le_eps_mc"] for r in rows),
        "one_minus_delta": 1.0 - delta,
        "out": str(folder),
    }


@transactional
def run(
    out,
    seed,
    progress,
    runs=100,
    steps=500,
    burn_in=50,
    delta=0.01,
    epsilons=DEFAULT_EPSILONS,
    mc_samples=400_000,
    runner=None,
):
    """Run the study; write design.json, results.csv/json and the two figures into ``out``.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Base seed, >= 0: task j (epsilon-major, designs in :data:`DESIGNS` order) draws
        from ``default_rng([seed, j])``.
    progress : bool
        Show a progress bar.
    runs : int
        Independent simulation runs, >= 2.
    steps : int
        Time steps per run, >= 1.
    burn_in : int
        Initial steps left out of the averages, in ``[0, steps)``.
    delta : float
        PML failure probability, in (0, 1).
    epsilons : sequence of float
        Leakage levels (nats), above condition (9) for l = 2, ``F^{-1}_{chi^2_2}(1 - delta)
        / 2`` (4.61 nats at delta = 0.01), by at most :data:`EPSILON_EXCESS_LIMIT` = 12
        nats (16.6 nats at delta = 0.01): beyond it the log-det design's noise is below the
        solver's accuracy.
    mc_samples : int
        Monte Carlo draws of ``(X, Y)`` per task, >= 1.
    runner : Runner, optional
        Runs the tasks, one per (epsilon, design) (default: serially in this process);
        results do not depend on it.

    Returns
    -------
    dict
        Whether every guaranteed check holds (and which failed), the paper bound on the
        exact designs, the smallest Monte Carlo probability and the output folder.

    Raises
    ------
    ValueError, TypeError
        On an invalid option (an epsilon outside the range above included), before any
        task runs and anything is written.
    """
    parameters = _parameters(seed, runs, steps, burn_in, delta, epsilons, mc_samples)
    output = StudyOutput(out, "pml-bounds", parameters)
    plant, delta = LTIPlant(A_PLANT, C_PLANT, Q_PLANT), parameters["delta"]
    tasks = _tasks(parameters["epsilons"], parameters["seed"])
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    options = {k: parameters[k] for k in ("runs", "steps", "burn_in", "mc_samples")}
    shared = {"plant": plant, "delta": delta, "options": options}
    results = runner.map(_case, tasks, shared=shared, name="pml-bounds", fingerprint=parameters)
    output.parameters["runner"] = runner.describe()
    output.parameters["mechanisms"] = {
        "none": "no data released: the Monte Carlo of the filter error and of "
        "P[l <= epsilon] simulates the noise of each LinearGaussianMechanism design"
    }
    rows = [row for _, row in results]
    output.write_json("design.json", _design_record(plant, delta, tasks, [t for t, _ in results]))
    guaranteed, all_hold = _checks(rows)
    output.write_results(rows, all_guaranteed_checks_hold=all_hold, checks=guaranteed)
    _covariance_figure(output, rows, delta)
    _leakage_figure(output, rows, delta)
    return _summary(rows, guaranteed, all_hold, delta, output.folder)
