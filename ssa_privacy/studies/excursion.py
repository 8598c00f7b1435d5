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

from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.gp.kernels import Exponential
from ssa_privacy.gp.regression import GaussianProcess
from ssa_privacy.privacy.posterior_sampling.bound import PosteriorSamplingBound
from ssa_privacy.privacy.posterior_sampling.mechanism import PosteriorSamplingMechanism
from ssa_privacy.privacy.posterior_sampling.paths import ou_prior_paths
from ssa_privacy.studies import _excursion_figures as figures
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
    opt.add_replications(parser, 20, "search pairs (f*, D) per noise level (paper: 100)", 2)
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
    opt.add_pml_level(parser, 0.005, "delta of the Renyi-DP bound")
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


def _mechanism(pair, candidate, options):
    """The one-path release of a pair with hyperparameters ``(l, r, sigma)``, budget epsilon_max."""
    l, r, s = candidate
    grid, _ = evaluation_grid()
    return PosteriorSamplingMechanism(
        pair["X"],
        grid,
        options["epsilon_max"],
        options["delta"],
        lengthscale=l,
        ridge=r,
        sigma=s,
        sampler="matheron",
    )


def _release_iou(pairs, candidate, options, rng):
    """IoU of ``{f > u}`` over ``paths`` one-path releases of each pair, and their record.

    Returns
    -------
    stats : ndarray, shape (pairs, 2)
        Mean and SD of the IoU over the releases, per pair.
    record : dict
        ``releases`` made, how many ``passed`` their certificate, and the ``mechanism``.
    """
    stats, passed = [], 0
    for pair in pairs:
        mechanism = _mechanism(pair, candidate, options)
        release = mechanism.release(pair["y"], seed=rng, size=options["paths"])
        scores = [iou(pair["truth"], f > THRESHOLD) for f in release.values[:, 0, :]]
        stats.append((np.mean(scores), np.std(scores)))
        passed += options["paths"] * release.certificate.passed
    record = {
        "releases": options["paths"] * len(pairs),
        "passed": passed,
        "mechanism": type(mechanism).__name__,
    }
    return np.array(stats), record


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


def _draw_pairs(count, noise, options, rng):
    """``count`` pairs (f*, D) of :func:`draw_pair`, drawn in turn from ``rng``."""
    return [draw_pair(options["n"], noise, options["true_lengthscale"], rng) for _ in range(count)]


def _noise_level(noise, options, rng, progress):
    """Search, select and evaluate at one noise level.

    Returns
    -------
    row : dict
        The results row.
    example : tuple
        ``(pair, unconstrained, private, cutoff)`` for the example figure.
    record : dict
        The private releases made (:func:`_release_iou`).
    """
    pairs = _draw_pairs(options["replications"], noise, options, rng)
    validation = _draw_pairs(options["validation"], noise, options, rng)
    state = _Search(pairs, options["n"], options["delta"], options["epsilon_max"])
    unconstrained, private = search(state, options["rounds"], progress)
    cutoff = _cutoff(validation, unconstrained)
    l_u, r_u, s_u = unconstrained
    iou_unconstrained = [
        iou(pair["truth"], excursion_probability(*posterior(pair, l_u, r_u), s_u) > cutoff)
        for pair in pairs
    ]
    release, record = _release_iou(pairs, private, options, rng)
    row = _row(noise, options, state, (unconstrained, private), cutoff)
    for name, values in (
        (
            "relative_bce_increase",
            (state.bce[private] - state.bce[unconstrained]) / state.bce[unconstrained],
        ),
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
    return row, (pairs[0], unconstrained, private, cutoff), record


def _row(noise, options, state, choices, cutoff):
    """The selection part of a noise level's row: hyperparameters, bound, BCE, cutoff."""
    unconstrained, private = choices
    bce_u, bce_p = state.bce[unconstrained], state.bce[private]
    epsilon, alpha = PosteriorSamplingBound.exp_1d(options["n"], *private).epsilon(options["delta"])
    return {
        "nsr": noise / (1 - noise),
        "noise_M": noise,
        "lengthscale_unconstrained": unconstrained[0],
        "ridge_unconstrained": unconstrained[1],
        "sigma_unconstrained": unconstrained[2],
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


def _example_panels(example, options, rng):
    """What the example figure shows of each choice: the posterior and one released path."""
    pair, unconstrained, private, _ = example
    panels = []
    for title, candidate in (("unconstrained", unconstrained), ("epsilon-constrained", private)):
        mean, variance = posterior(pair, *candidate[:2])
        path = None
        if candidate[2] > 0:
            release = _mechanism(pair, candidate, options).release(pair["y"], seed=rng)
            path = (release.values[0], release.certificate.passed)
        panels.append((title, candidate, mean, candidate[2] * np.sqrt(variance), path))
    return panels


def _options(replications, validation, n, paths, rounds, epsilon_max, delta, true_lengthscale):
    """The study's scenario: its options, checked."""
    if replications < 2 or validation < 1 or paths < 1 or rounds < 0:
        raise ValueError("need replications >= 2, validation >= 1, paths >= 1 and rounds >= 0")
    return {
        "replications": replications,
        "validation": validation,
        "n": n,
        "paths": paths,
        "rounds": rounds,
        "epsilon_max": epsilon_max,
        "delta": delta,
        "true_lengthscale": true_lengthscale,
    }


def _parameters(seed, options):
    """The parameters recorded in ``results.json`` (and the runner's fingerprint)."""
    return {
        "seed": seed,
        **options,
        "noise_levels": NOISE_LEVELS,
        "grid_size": GRID_SIZE,
        "threshold": THRESHOLD,
        "seed_scheme": "default_rng([seed, noise_level_index]); example figure path: "
        f"default_rng([seed, noise_level_index, {FIGURE_SEED_KEY}])",
    }


def _tasks(seed):
    """One task per noise level i, seeded by ``(seed, i)``."""
    return [
        Task(key=("noise_M", noise), arguments={"noise": noise}, seed_keys=(seed, index))
        for index, noise in enumerate(NOISE_LEVELS)
    ]


def _save_figures(output, results, seed, options):
    """The summary figure and the example pairs of the first and last noise levels."""
    output.save_figure(figures.summary([row for row, *_ in results]), "excursion_summary")
    grid, _ = evaluation_grid()
    for index in (0, len(NOISE_LEVELS) - 1):
        noise, rng = NOISE_LEVELS[index], np.random.default_rng([seed, index, FIGURE_SEED_KEY])
        pair = results[index][1][0]
        panels = _example_panels(results[index][1], options, rng)
        nsr = noise / (1 - noise)
        figure = figures.example(pair, grid, panels, THRESHOLD, nsr)
        output.save_figure(figure, f"excursion_example_nsr_{nsr:.2f}")


def _summary(results):
    """Per NSR: the relative BCE increase and IoU gap, the epsilon and the releases made."""
    return {
        f"nsr_{row['nsr']:.2f}": {
            "relative_bce_increase": row["relative_bce_increase_median"],
            "relative_iou_gap": row["relative_iou_gap"],
            "epsilon": row["epsilon"],
            "releases": record["releases"],
            "releases_certified": record["passed"],
        }
        for row, _, record in results
    }


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
        Runs the noise levels (one task each; default: serially here). Results do not
        depend on it; ``results.json`` records it and each task's seed keys.

    Returns
    -------
    dict
        Per NSR: the relative BCE increase and relative IoU gap, the epsilon of the
        private choice, and the one-path releases made and certified.

    Raises
    ------
    ValueError
        If ``replications < 2``, ``validation < 1``, ``paths < 1`` or ``rounds < 0``.

    Notes
    -----
    Every private release is made by a :class:`~ssa_privacy.privacy.posterior_sampling.
    mechanism.PosteriorSamplingMechanism` (target ``epsilon_max``), whose class
    ``results.json`` records.
    """
    options = _options(
        replications, validation, n, paths, rounds, epsilon_max, delta, true_lengthscale
    )
    parameters = _parameters(seed, options)
    output = StudyOutput(out, "excursion", parameters)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    results = runner.map(
        _noise_level_task,
        _tasks(seed),
        shared={"options": options},
        name="excursion",
        fingerprint=parameters,
    )
    output.parameters["runner"] = runner.describe()
    output.parameters["mechanisms"] = {
        "one-path private release": ", ".join(sorted({r["mechanism"] for *_, r in results}))
    }
    _save_figures(output, results, seed, options)
    summary = _summary(results)
    output.write_results([row for row, *_ in results], summary=summary)
    return summary
