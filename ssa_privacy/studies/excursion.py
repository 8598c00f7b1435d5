"""Privacy-utility of excursion-set release by GP posterior sampling in 1-D [MAC §5, App. D].

Data (the authors' 1-D setting, see :doc:`/theory/posterior-sampling`): a target ``f*``
drawn from a unit-variance GP with the exponential kernel (length scale ``l_true``),
rescaled to ``max |f*| = 1 - M``;
``n`` inputs uniform on [0, 1] with responses ``y = f*(x) + U(-M, M)``, so ``|y| <= 1``
and the amplitude noise-to-signal ratio is ``NSR = M / (1 - M)``. The target set is
``{f* > u}`` with ``u = 0`` on a grid of 800 points (trapezoid weights).

Per noise level, hyperparameters ``(l, r, sigma)`` of a GP with the exponential kernel
are chosen by minimising the mean integrated binary cross-entropy (BCE) of the
posterior excursion probabilities ``Phi((m_D - u) / (sigma sqrt(k_D)))`` over the
search pairs, on a coarse grid followed by multiplicative refinement around the best
three candidates: once without constraint and once subject to the privacy bound
``epsilon < epsilon_max`` of releasing one posterior path (Theorem 3.1, Lemma B.7,
delta = 0.005). The utility of the deterministic estimate ``{p > c}`` of the
unconstrained fit (cutoff c chosen on separate validation pairs) is compared with
the IoU of the actual one-path private release ``{f > u}``, f a posterior sample path.
"""

import numpy as np
from scipy import special
from tqdm.auto import tqdm

from ssa_privacy.engine.output import StudyOutput, transactional
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.gp.regression import Exponential, GaussianProcess
from ssa_privacy.privacy.posterior_sampling.mechanism import (
    PosteriorSamplingBound,
    ou_prior_paths,
    sample_posterior_paths_exp_1d,
)
from ssa_privacy.studies import _options as opt

__all__ = [
    "COARSE",
    "DESCRIPTION",
    "FIGURE_SEED_KEY",
    "GRID_SIZE",
    "NOISE_LEVELS",
    "PROBABILITY_CLIP",
    "REFINE",
    "SIGMA_FROM_ZERO",
    "THRESHOLD",
    "USES_RUNNER",
    "VOLUME_RANGE",
    "add_arguments",
    "draw_pair",
    "evaluation_grid",
    "excursion_probability",
    "integrated_bce",
    "iou",
    "posterior",
    "run",
    "search",
]

USES_RUNNER = True
DESCRIPTION = (
    "[MAC] §5: 1-D excursion-set utility with and without the posterior-sampling DP constraint"
)

#: Amplitude-noise levels M and the matching NSR = M / (1 - M) of the paper's tables.
NOISE_LEVELS = (0.1, 0.3, 0.5, 0.6)
#: Coarse search grid ([MAC] App. D; README of the authors' code).
COARSE = {
    "lengthscale": (0.08, 0.13, 0.2, 0.25, 0.35, 0.5, 0.6, 0.75, 1.0),
    "ridge": (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
    "sigma": (0.0, 0.1, 0.5, 1.0, 2.0, 5.0),
}
#: Multiplicative refinement factors.
REFINE = {
    "lengthscale": (0.7, 0.85, 1.0, 1.2, 1.5),
    "ridge": (0.4, 0.55, 0.7, 0.85, 1.0, 1.2, 1.5, 2.0, 3.0, 4.0),
}
#: Refinement values of sigma when the centre has sigma = 0.
SIGMA_FROM_ZERO = (0.0, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75)
GRID_SIZE = 800
THRESHOLD = 0.0
PROBABILITY_CLIP = 1e-6
#: Accept a target only if its excursion set covers this fraction range of [0, 1].
VOLUME_RANGE = (0.1, 0.9)
#: Last seed key of the released path drawn for an example figure.
FIGURE_SEED_KEY = 1


def add_arguments(parser):
    """Options of the study."""
    parser.add_argument(
        "--replications",
        type=opt.int_at_least(2),
        default=20,
        help="search pairs (f*, D) per noise level, at least 2 (paper: 100)",
    )
    parser.add_argument(
        "--validation", type=opt.positive_int, default=10, help="validation pairs per noise level"
    )
    parser.add_argument(
        "--n", type=opt.positive_int, default=100, help="training points per data set (default 100)"
    )
    parser.add_argument(
        "--paths",
        type=opt.positive_int,
        default=20,
        help="Monte-Carlo one-path releases per pair (paper: 50)",
    )
    parser.add_argument(
        "--rounds", type=opt.non_negative_int, default=1, help="refinement rounds (paper: 2)"
    )
    parser.add_argument(
        "--epsilon-max", type=opt.positive_float, default=3.0, help="privacy budget (default 3)"
    )
    parser.add_argument(
        "--delta", type=opt.probability, default=0.005, help="delta of the bound (default 0.005)"
    )
    parser.add_argument(
        "--true-lengthscale", type=opt.positive_float, default=1.0, help="l of the target prior"
    )


def evaluation_grid():
    """The grid on [0, 1] and its trapezoid weights."""
    grid = np.linspace(0.0, 1.0, GRID_SIZE)
    weights = np.full(GRID_SIZE, grid[1])
    weights[[0, -1]] /= 2
    return grid, weights


def draw_pair(n, noise, true_lengthscale, rng):
    """One pair (f*, D): the target on the grid and a data set.

    The target is rescaled so that ``max |f*| = 1 - noise`` over grid and inputs, which
    keeps ``|y| <= 1`` (the authors rescale on the grid only); targets whose
    excursion set covers less than 10% or more than 90% of [0, 1] are redrawn.

    Returns
    -------
    dict
        ``X`` (n,), ``y`` (n,), ``truth`` (grid values of f*).
    """
    grid, weights = evaluation_grid()
    for _ in range(1000):
        X = np.sort(rng.uniform(0.0, 1.0, n))
        path = ou_prior_paths(np.concatenate([grid, X]), true_lengthscale, 1, rng)[0]
        path *= (1.0 - noise) / np.max(np.abs(path))
        truth = path[:GRID_SIZE]
        volume = float(weights @ (truth > THRESHOLD))
        if VOLUME_RANGE[0] <= volume <= VOLUME_RANGE[1]:
            y = path[GRID_SIZE:] + rng.uniform(-noise, noise, n)
            return {"X": X, "y": y, "truth": truth}
    raise RuntimeError("could not draw a target with a non-trivial excursion set")


def posterior(pair, lengthscale, ridge):
    """Unit-scale posterior mean and variance on the grid, shape (2, GRID_SIZE)."""
    grid, _ = evaluation_grid()
    gp = GaussianProcess(Exponential(lengthscale), 0.0, ridge**2).fit(pair["X"], pair["y"])
    return np.stack(gp.predict(grid))


def excursion_probability(mean, variance, sigma):
    """``Phi((m - u) / (sigma sqrt(v)))``, the hard indicator for sigma = 0, clipped."""
    if sigma == 0:
        p = (mean > THRESHOLD).astype(float)
    else:
        p = special.ndtr((mean - THRESHOLD) / (sigma * np.sqrt(np.maximum(variance, 1e-300))))
    return np.clip(p, PROBABILITY_CLIP, 1 - PROBABILITY_CLIP)


def integrated_bce(truth, p):
    """Trapezoid-integrated binary cross-entropy of probabilities p against ``{f* > u}``."""
    _, weights = evaluation_grid()
    s = truth > THRESHOLD
    return float(weights @ np.where(s, -np.log(p), -np.log1p(-p)))


def iou(truth, estimate):
    """Trapezoid-weighted intersection over union of two sets given as boolean grids."""
    _, weights = evaluation_grid()
    s = truth > THRESHOLD
    union = float(weights @ (s | estimate))
    return float(weights @ (s & estimate)) / union if union > 0 else 1.0


class _Search:
    """BCE of (l, r, sigma) candidates over the search pairs, with caches."""

    def __init__(self, pairs, n, delta, epsilon_max):
        self.pairs, self.n, self.delta, self.epsilon_max = pairs, n, delta, epsilon_max
        self.bce, self.epsilon = {}, {}

    def evaluate(self, candidates):
        """Fill the caches for candidates (grouped by (l, r) so each posterior is computed once)."""
        todo = {}
        for l, r, s in candidates:
            if (l, r, s) not in self.bce:
                todo.setdefault((l, r), []).append(s)
        for (l, r), sigmas in todo.items():
            posteriors = [posterior(pair, l, r) for pair in self.pairs]
            for s in sigmas:
                self.bce[(l, r, s)] = np.array(
                    [
                        integrated_bce(pair["truth"], excursion_probability(*post, s))
                        for pair, post in zip(self.pairs, posteriors)
                    ]
                )

    def epsilon_of(self, candidate):
        """epsilon of releasing one path with these hyperparameters (inf for sigma = 0)."""
        if candidate not in self.epsilon:
            l, r, s = candidate
            self.epsilon[candidate] = (
                np.inf
                if s == 0
                else PosteriorSamplingBound.exp_1d(self.n, l, r, s).epsilon(self.delta)[0]
            )
        return self.epsilon[candidate]

    def best(self, feasible_only, count=3):
        """The ``count`` candidates of smallest mean BCE (optionally with epsilon < epsilon_max)."""
        ranked = sorted(self.bce, key=lambda c: self.bce[c].mean())
        if feasible_only:
            ranked = [c for c in ranked if self.epsilon_of(c) < self.epsilon_max]
        return ranked[:count]


def _neighbours(candidate):
    """Multiplicative refinement grid around one (l, r, sigma)."""
    l, r, s = candidate
    sigmas = SIGMA_FROM_ZERO if s == 0 else tuple(s * f for f in REFINE["ridge"])
    return [
        (round(l * a, 10), round(r * b, 10), round(c, 10))
        for a in REFINE["lengthscale"]
        for b in REFINE["ridge"]
        for c in sigmas
    ]


def search(search_state, rounds, progress):
    """Coarse grid, then ``rounds`` refinements (first round around both optima, later the feasible)."""
    coarse = [
        (l, r, s) for l in COARSE["lengthscale"] for r in COARSE["ridge"] for s in COARSE["sigma"]
    ]
    search_state.evaluate(coarse)
    for round_index in tqdm(range(rounds), disable=not progress, desc="refinement", leave=False):
        centres = search_state.best(True)
        if round_index == 0:
            centres += search_state.best(False)
        search_state.evaluate([c for centre in centres for c in _neighbours(centre)])
    unconstrained, private = search_state.best(False, 1), search_state.best(True, 1)
    if not private:
        raise RuntimeError("no candidate satisfies the privacy constraint")
    return unconstrained[0], private[0]


def _cutoff(validation, candidate):
    """Probability cutoff c maximising the mean IoU of ``{p > c}`` on the validation pairs."""
    l, r, s = candidate
    probabilities = [excursion_probability(*posterior(pair, l, r), s) for pair in validation]
    cutoffs = np.linspace(0.001, 0.999, 999)
    scores = [
        np.mean([iou(pair["truth"], p > c) for pair, p in zip(validation, probabilities)])
        for c in cutoffs
    ]
    return float(cutoffs[int(np.argmax(scores))])


def _release_iou(pairs, candidate, paths, rng):
    """Mean and SD over ``paths`` one-path releases of the IoU of ``{f > u}``, per pair."""
    l, r, s = candidate
    grid, _ = evaluation_grid()
    stats = []
    for pair in pairs:
        released = sample_posterior_paths_exp_1d(
            pair["X"], pair["y"], grid, lengthscale=l, ridge=r, sigma=s, paths=paths, seed=rng
        )
        scores = [iou(pair["truth"], f > THRESHOLD) for f in released]
        stats.append((np.mean(scores), np.std(scores)))
    return np.array(stats)


def _effective_dimension(pair, lengthscale, ridge):
    """``tr K (K + r^2 I)^{-1}`` of the data set."""
    K = Exponential(lengthscale)(pair["X"])
    return float(np.trace(np.linalg.solve(K + ridge**2 * np.eye(len(K)), K)))


def _median_iqr(values):
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    return float(median), float(q3 - q1)


def _noise_level_task(options, noise, seed_keys):
    """One task of the runner: :func:`_noise_level` with ``default_rng(list(seed_keys))``."""
    return _noise_level(noise, options, np.random.default_rng(list(seed_keys)), False)


def _noise_level(noise, options, rng, progress):
    """Search, select and evaluate at one noise level; returns the results row and an example."""
    pairs = [
        draw_pair(options["n"], noise, options["true_lengthscale"], rng)
        for _ in range(options["replications"])
    ]
    validation = [
        draw_pair(options["n"], noise, options["true_lengthscale"], rng)
        for _ in range(options["validation"])
    ]
    state = _Search(pairs, options["n"], options["delta"], options["epsilon_max"])
    unconstrained, private = search(state, options["rounds"], progress)
    cutoff = _cutoff(validation, unconstrained)
    l_u, r_u, s_u = unconstrained
    iou_unconstrained = [
        iou(pair["truth"], excursion_probability(*posterior(pair, l_u, r_u), s_u) > cutoff)
        for pair in pairs
    ]
    release = _release_iou(pairs, private, options["paths"], rng)
    bce_u, bce_p = state.bce[unconstrained], state.bce[private]
    epsilon, alpha = PosteriorSamplingBound.exp_1d(options["n"], *private).epsilon(options["delta"])
    row = {
        "nsr": noise / (1 - noise),
        "noise_M": noise,
        "lengthscale_unconstrained": l_u,
        "ridge_unconstrained": r_u,
        "sigma_unconstrained": s_u,
        "epsilon_unconstrained": state.epsilon_of(unconstrained),
        "lengthscale_private": private[0],
        "ridge_private": private[1],
        "sigma_private": private[2],
        "mechanism": "one GP posterior path (exponential kernel), Theorem 3.1 + Lemma B.7",
        "epsilon": epsilon,
        "delta": options["delta"],
        "renyi_order": alpha,
        "epsilon_max": options["epsilon_max"],
        "check_passed": bool(epsilon < options["epsilon_max"]),
        "bce_unconstrained_median": float(np.median(bce_u)),
        "bce_private_median": float(np.median(bce_p)),
        "bce_unconstrained_mean": float(bce_u.mean()),
        "bce_private_mean": float(bce_p.mean()),
        "cutoff": cutoff,
    }
    for name, values in (
        ("relative_bce_increase", (bce_p - bce_u) / bce_u),
        ("iou_unconstrained", iou_unconstrained),
        ("iou_one_path_private", release[:, 0]),
        ("iou_one_path_sd", release[:, 1]),
        ("d_eff_unconstrained", [_effective_dimension(p, l_u, r_u) for p in pairs]),
        ("d_eff_private", [_effective_dimension(p, *private[:2]) for p in pairs]),
    ):
        row[f"{name}_median"], row[f"{name}_iqr"] = _median_iqr(values)
    row["relative_iou_gap"] = (
        1.0 - row["iou_one_path_private_median"] / row["iou_unconstrained_median"]
    )
    return row, (pairs[0], unconstrained, private, cutoff)


def _figure_summary(rows):
    import matplotlib.pyplot as plt

    nsr = [r["nsr"] for r in rows]
    figure, (ax_bce, ax_iou, ax_eps) = plt.subplots(1, 3, figsize=(14, 4))
    ax_bce.plot(nsr, [r["bce_unconstrained_median"] for r in rows], "-o", label="unconstrained")
    ax_bce.plot(nsr, [r["bce_private_median"] for r in rows], "-s", label="epsilon-constrained")
    ax_bce.set_ylabel("median integrated BCE")
    ax_iou.plot(
        nsr,
        [r["iou_unconstrained_median"] for r in rows],
        "-o",
        label="posterior probability, unconstrained",
    )
    ax_iou.errorbar(
        nsr,
        [r["iou_one_path_private_median"] for r in rows],
        yerr=[r["iou_one_path_sd_median"] for r in rows],
        fmt="-s",
        capsize=3,
        label="one-path private release (+- median SD)",
    )
    ax_iou.set_ylabel("median IoU")
    ax_eps.plot(nsr, [r["epsilon"] for r in rows], "-s", label="private choice")
    ax_eps.axhline(rows[0]["epsilon_max"], color="grey", ls=":", label="budget")
    ax_eps.set_ylabel(f"epsilon of one path (delta = {rows[0]['delta']:g})")
    for ax in (ax_bce, ax_iou, ax_eps):
        ax.set_xlabel("NSR")
        ax.legend(fontsize=8)
    figure.suptitle("Excursion sets: unconstrained vs privacy-constrained hyperparameters")
    return figure


def _figure_example(example, noise, rng):
    import matplotlib.pyplot as plt

    pair, unconstrained, private, cutoff = example
    grid, _ = evaluation_grid()
    figure, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    for ax, (title, candidate) in zip(
        axes, (("unconstrained", unconstrained), ("epsilon-constrained", private))
    ):
        mean, variance = posterior(pair, *candidate[:2])
        sd = candidate[2] * np.sqrt(variance)
        ax.plot(grid, pair["truth"], "k", label="f*")
        ax.plot(pair["X"], pair["y"], ".", color="grey", ms=3, label="data")
        ax.plot(grid, mean, "C0", label="posterior mean")
        ax.fill_between(grid, mean - 2 * sd, mean + 2 * sd, color="C0", alpha=0.2)
        if candidate[2] > 0:
            path = sample_posterior_paths_exp_1d(
                pair["X"],
                pair["y"],
                grid,
                lengthscale=candidate[0],
                ridge=candidate[1],
                sigma=candidate[2],
                seed=rng,
            )[0]
            ax.plot(grid, path, "C1", lw=0.8, label="one released path")
        ax.axhline(THRESHOLD, color="black", lw=0.5)
        l, r, s = candidate
        ax.set_title(f"{title}: l={l:.3g}, r={r:.3g}, sigma={s:.3g}")
        ax.set_xlabel("x")
        ax.legend(fontsize=7)
    figure.suptitle(f"One pair at NSR = {noise / (1 - noise):.2f}")
    return figure


@transactional
def run(
    out,
    seed,
    progress,
    replications=20,
    validation=10,
    n=100,
    paths=20,
    rounds=1,
    epsilon_max=3.0,
    delta=0.005,
    true_lengthscale=1.0,
    runner=None,
):
    """Run the study; write figures and results; return a summary.

    Parameters
    ----------
    out : Path
        Output folder.
    seed : int
        Base seed: noise level i draws its pairs, data and releases from
        ``default_rng([seed, i])``, and the released path of its example figure from
        ``default_rng([seed, i, 1])``.
    progress : bool
        Show a progress bar.
    replications, validation : int
        Search and validation pairs per noise level.
    n : int
        Training points per data set.
    paths : int
        Monte-Carlo one-path releases per pair.
    rounds : int
        Refinement rounds of the hyperparameter search.
    epsilon_max, delta : float
        Privacy constraint ``epsilon(delta) < epsilon_max`` for one path.
    true_lengthscale : float
        Length scale of the target prior.
    runner : Runner, optional
        Runs the noise levels (one task each; default: serially in this process).
        Results do not depend on it; ``results.json`` records it and each task's seed
        keys.

    Returns
    -------
    dict
        Per NSR: the relative BCE increase and relative IoU gap.
    """
    if replications < 2 or validation < 1 or paths < 1 or rounds < 0:
        raise ValueError("need replications >= 2, validation >= 1, paths >= 1 and rounds >= 0")
    options = {
        "replications": replications,
        "validation": validation,
        "n": n,
        "paths": paths,
        "rounds": rounds,
        "epsilon_max": epsilon_max,
        "delta": delta,
        "true_lengthscale": true_lengthscale,
    }
    parameters = {
        "seed": seed,
        **options,
        "noise_levels": NOISE_LEVELS,
        "grid_size": GRID_SIZE,
        "threshold": THRESHOLD,
        "seed_scheme": "default_rng([seed, noise_level_index]); example figure path: "
        f"default_rng([seed, noise_level_index, {FIGURE_SEED_KEY}])",
    }
    output = StudyOutput(out, "excursion", parameters)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    tasks = [
        Task(key=("noise_M", noise), arguments={"noise": noise, "seed_keys": keys}, seed_keys=keys)
        for index, noise in enumerate(NOISE_LEVELS)
        for keys in [(seed, index)]
    ]
    results = runner.map(
        _noise_level_task,
        tasks,
        shared={"options": options},
        name="excursion",
        fingerprint=parameters,
    )
    output.parameters["runner"] = runner.describe()
    rows = [row for row, _ in results]
    output.save_figure(_figure_summary(rows), "excursion_summary")
    for index in (0, len(NOISE_LEVELS) - 1):
        noise, rng = NOISE_LEVELS[index], np.random.default_rng([seed, index, FIGURE_SEED_KEY])
        output.save_figure(
            _figure_example(results[index][1], noise, rng),
            f"excursion_example_nsr_{noise / (1 - noise):.2f}",
        )
    summary = {
        f"nsr_{r['nsr']:.2f}": {
            "relative_bce_increase": r["relative_bce_increase_median"],
            "relative_iou_gap": r["relative_iou_gap"],
            "epsilon": r["epsilon"],
        }
        for r in rows
    }
    output.write_results(rows, summary=summary)
    return summary
