"""[TCB] §5.2: a privacy-aware GP of census income that protects older residents.

Income (PINCP, units of 1e5 USD) is modelled from PUMA, POWPUMA, AGEP, ANC1P and POBP
(standardised by the training means and standard deviations) with a constant-mean GP,
ARD RBF kernel and white noise, all fitted by maximum likelihood. The sensitive set is
the training records with AGEP in [75, 100] and PUMA in [0, 2000] (24 records in the
authors' split). The owner releases ``W = Y + Z`` with the optimal synthetic noise for
H = alpha K on that set; the study compares the privacy-aware GP, Dropout, the
Stationary attack and DP-cloaking ([SMI], epsilon in {0.3, 0.5, 1}, delta = 0.01, on the
same fitted GP and seeds; see :mod:`._dp_rows`) on the 331 test records: Table 4,
Figures 8 and 9 and the privacy-aware vs DP-cloaking comparison (also printed).
"""

from types import SimpleNamespace

import numpy as np
from tqdm import tqdm

from ssa_privacy._internal.validation import positive_int
from ssa_privacy.attacks import stationary_attack
from ssa_privacy.engine.data import load_census
from ssa_privacy.engine.figures import save_figures
from ssa_privacy.engine.output import StudyOutput, transactional
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.gp.baselines import dropout_gp
from ssa_privacy.gp.fit import fit_hyperparameters
from ssa_privacy.privacy import SyntheticNoiseMechanism, privacy_aware_gp, release
from ssa_privacy.studies import _census_figures as figures
from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies._common import mean_std, replication_rng, rmse, stopwatch

__all__ = [
    "ALPHAS",
    "AUTHORS_CSV",
    "DESCRIPTION",
    "Design",
    "FIGURE_FEATURES",
    "PAPER_TABLE4",
    "USES_RUNNER",
    "add_arguments",
    "comparison",
    "dp_checks",
    "dp_cloaking_runs",
    "replicate",
    "run",
    "sensitive_mask",
    "table_rows",
]

USES_RUNNER = True
DESCRIPTION = (
    "[TCB] 5.2: privacy-aware GP and DP-cloaking of census income, PUMS data (Figs 8-9; Table 4)"
)

ALPHAS = (0.1, 0.5, 0.9)
#: Sensitive region: AGEP in [75, 100] and PUMA in [0, 2000], inclusive.
SENSITIVE_AGE, SENSITIVE_PUMA = (75, 100), (0, 2000)
AGEP, PUMA = 2, 0
#: Rows of Figures 8-9: (input column, axis label, sensitive range).
FIGURE_FEATURES = ((AGEP, "AGEP (years)", SENSITIVE_AGE), (PUMA, "PUMA code", SENSITIVE_PUMA))
#: [TCB] Table 4 RMSE (1e5 USD), paper's alpha convention (DP-cloaking keyed by epsilon);
#: its "+- 0.0000" are artefacts.
PAPER_TABLE4 = {
    ("privacy-aware", 0.1): 0.6093,
    ("privacy-aware", 0.5): 0.6048,
    ("privacy-aware", 0.9): 0.5970,
    ("stationary", 0.1): 0.9807,
    ("stationary", 0.5): 0.6389,
    ("stationary", 0.9): 0.5968,
    (dp.METHOD, 0.3): 2.7640,
    (dp.METHOD, 0.5): 1.7148,
    (dp.METHOD, 1.0): 1.0178,
}
#: The authors' CSV (commit 7b65a1f): RMSE mean and std over 20 seeds, alpha converted
#: to the paper's convention (:doc:`/theory/privacy-aware-gp`).
AUTHORS_CSV = {
    ("privacy-aware", 0.1): (0.599268, 0.010106),
    ("privacy-aware", 0.5): (0.604765, 0.011081),
    ("privacy-aware", 0.9): (0.597026, 0.004707),
    ("stationary", 0.1): (0.980737, 0.230931),
    ("stationary", 0.5): (0.638930, 0.032837),
    ("stationary", 0.9): (0.596827, 0.005325),
    ("dropout", None): (0.599149, 0.000517),
    (dp.METHOD, 0.3): (2.763980, 1.341534),
    (dp.METHOD, 0.5): (1.714787, 0.750033),
    (dp.METHOD, 1.0): (1.017836, 0.320011),
}


def add_arguments(parser):
    """Options of ``ssa-privacy run census``."""
    parser.add_argument(
        "--replications",
        type=opt.positive_int,
        default=20,
        help="seeds of the synthetic noise averaged in Table 4 (default 20)",
    )
    parser.add_argument(
        "--data",
        type=opt.existing_folder,
        help="folder holding the PUMS sample and the split file (default: $SSA_PRIVACY_DATA, "
        "then ../shared/data beside the repository)",
    )
    parser.add_argument(
        "--split",
        choices=("authors", "random"),
        default="authors",
        help="the authors' exact train/test split, or a fresh random one",
    )
    parser.add_argument(
        "--restarts",
        type=opt.positive_int,
        default=3,
        help="optimiser starts of the owner's maximum-likelihood fit",
    )
    parser.add_argument(
        "--attack-restarts",
        type=opt.positive_int,
        default=1,
        help="optimiser starts of the Stationary attack (the first from the prior)",
    )


def sensitive_mask(X_raw):
    """Records with AGEP in [75, 100] and PUMA in [0, 2000] (raw features)."""
    age, puma = X_raw[:, AGEP], X_raw[:, PUMA]
    return (
        (age >= SENSITIVE_AGE[0])
        & (age <= SENSITIVE_AGE[1])
        & (puma >= SENSITIVE_PUMA[0])
        & (puma <= SENSITIVE_PUMA[1])
    )


class Design:
    """Standardised data, the owner's ML fit and the sensitive set."""

    def __init__(self, data, restarts, seed):
        self.data = data
        self.center = data.X_train.mean(axis=0)
        self.scale = data.X_train.std(axis=0, ddof=1)
        self.X = (data.X_train - self.center) / self.scale
        self.X_test = (data.X_test - self.center) / self.scale
        self.private = sensitive_mask(data.X_train)
        self.private_test = sensitive_mask(data.X_test)
        if not self.private.any():
            raise ValueError("no training record lies in the sensitive region")
        self.S0 = self.X[self.private]
        self.fit_times = {}
        with stopwatch(self.fit_times, "fit"):
            self.gp = fit_hyperparameters(self.X, data.y_train, restarts=restarts, seed=seed).gp
        self.mechanisms = {}
        for alpha in ALPHAS:
            with stopwatch(self.fit_times, ("design", alpha)):
                self.mechanisms[alpha] = SyntheticNoiseMechanism.for_region(
                    self.gp.kernel, self.X, self.S0, alpha, V=self.gp.noise
                )

    def mechanism(self, alpha):
        """The certified privacy-aware mechanism for level alpha (Sigma_opt and certificate),
        designed once: it depends on the owner's fit only, not on the replication."""
        return self.mechanisms[alpha]


def replicate(design, seed, replication, attack_restarts):
    """All alphas for one seed: released data, predictions, certificates and times.

    One task of the runner; its random numbers come from ``default_rng([seed,
    replication, alpha_index])``.
    """
    times, out = {}, {}
    for ia, alpha in enumerate(ALPHAS):
        rng = replication_rng(seed, replication, ia)
        mechanism = design.mechanism(alpha)
        with stopwatch(times, ("privacy-aware", alpha)):
            factor = mechanism.noise_covariance
            W = release(design.data.y_train, factor, seed=rng)
            pa_mean, pa_var = privacy_aware_gp(design.gp, design.X, W, factor).predict(
                design.X_test
            )
        with stopwatch(times, ("stationary", alpha)):
            attack = stationary_attack(
                design.X, W, restarts=attack_restarts, seed=rng, initial=design.gp
            )
            st_mean, st_var = attack.gp.predict(design.X_test)
        out[alpha] = {
            "W": W,
            "privacy-aware": (pa_mean, pa_var),
            "stationary": (st_mean, st_var),
            "certificate": mechanism.certificate(),
            "rank": factor.rank,
            "trace": factor.trace,
            "design": {
                "margin": mechanism.margin,
                "resolution": mechanism.resolution,
                "nugget": mechanism.nugget,
            },
        }
    out["times"] = times
    return out


def dp_cloaking_runs(design, seed, replications, progress=False):
    """DP-cloaking releases at the test records, one per (replication, epsilon).

    The noise shape is designed once for the owner's fitted GP
    (:class:`._dp_rows.CloakingDesign`: C is 331 x 1325); replication i and epsilon
    index j draw from ``default_rng([seed, i, 100 + j])``.

    Returns
    -------
    dict
        ``design`` and ``sensitivity`` (1e5 USD); ``values[epsilon]`` the releases (one per
        replication, shape (331,)); ``records`` the (epsilon, delta) and check of every
        release; ``times[epsilon]`` per-release times (s).
    """
    cloak = dp.CloakingDesign(design.gp, design.X, design.X_test)
    y, mean = design.data.y_train, design.gp.mean
    out = {
        "design": cloak,
        "sensitivity": dp.output_sensitivity(y),
        "values": {},
        "records": [],
        "times": {},
    }
    for i in tqdm(range(replications), desc="census dp-cloaking", disable=not progress):
        for j, epsilon in enumerate(dp.EPSILONS):
            keys = (seed, i, dp.SEED_KEY_OFFSET + j)
            with stopwatch(out["times"], epsilon):
                released = cloak.release(
                    y, mean, epsilon, out["sensitivity"], replication_rng(*keys)
                )
            out["values"].setdefault(epsilon, []).append(released.values)
            out["records"].append(dp.release_record(released, i, keys))
    return out


def table_rows(design, reps, dropout_mean, dropout_time, cloaking):
    """Table 4: RMSE (1e5 USD) and time per method and alpha (or epsilon), over the seeds.

    Times are per release: the privacy-aware time is the release and the reconstruction,
    with the one-off certified design of Sigma_opt for that alpha in ``design_time_s``;
    the DP-cloaking time is the scaling of the noise, the draw and the prediction, with
    the one-off design of its noise shape in ``design_time_s``; the owner's one-off
    hyperparameter fit is reported separately in ``results.json`` (``owner_fit_time_s``).
    """
    y_test = design.data.y_test
    rows = []
    for method in ("privacy-aware", "stationary"):
        for alpha in ALPHAS:
            errors = [rmse(r[alpha][method][0], y_test) for r in reps]
            times = [t for r in reps for t in r["times"][method, alpha]]
            row = _row(method, alpha, None, errors, times)
            if method == "privacy-aware":
                row["design_time_s"] = design.fit_times["design", alpha][0]
            rows.append(row)
    for epsilon in dp.EPSILONS:
        errors = [rmse(v, y_test) for v in cloaking["values"][epsilon]]
        released = [r for r in cloaking["records"] if r["epsilon"] == epsilon]
        rows.append(
            {
                **_row(dp.METHOD, None, epsilon, errors, cloaking["times"][epsilon]),
                "design_time_s": cloaking["design"].time_s,
                "releases": len(released),
                "checks_passed": all(r["check_passed"] for r in released),
                "max_exact_delta": max(r["check_exact_delta"] for r in released),
            }
        )
    rows.append(_row("dropout", None, None, [rmse(dropout_mean, y_test)], [dropout_time]))
    return rows


def _row(method, alpha, epsilon, errors, times):
    (rmse_mean, rmse_std), (time_mean, time_std) = mean_std(errors), mean_std(times)
    level = epsilon if method == dp.METHOD else alpha
    authors = AUTHORS_CSV.get((method, level), (None, None))
    return {
        "method": method,
        "alpha": alpha,
        "epsilon": epsilon,
        "delta": dp.DELTA if epsilon else None,
        "rmse_mean": rmse_mean,
        "rmse_std": rmse_std,
        "rmse_min": min(errors),
        "rmse_max": max(errors),
        "time_mean_s": time_mean,
        "time_std_s": time_std,
        "paper_table4_rmse": PAPER_TABLE4.get((method, level)),
        "authors_csv_rmse_mean": authors[0],
        "authors_csv_rmse_std": authors[1],
    }


def dp_checks(design, cloaking):
    """What the theory predicts for the DP-cloaking releases, measured.

    Every release's check passed, and the seed-mean test MSE agrees with its prediction
    ``(||b||^2 + tr Sigma) / 331`` with b the error of the non-private GP
    (z-score, see :func:`._dp_rows.mse_z_score`).
    """
    cloak = cloaking["design"]
    bias = design.gp.predict(design.X_test)[0] - design.data.y_test
    z = {}
    for epsilon in dp.EPSILONS:
        covariance = cloak.noise_scale(epsilon, cloaking["sensitivity"]) ** 2 * cloak.M
        errors = [rmse(v, design.data.y_test) for v in cloaking["values"][epsilon]]
        z[f"epsilon={epsilon}"] = dp.mse_z_score(errors, bias, covariance)
    return {
        "dp_all_checks_passed": all(r["check_passed"] for r in cloaking["records"]),
        "dp_mse_z_score": z,
        "non_private_rmse": rmse(bias, 0.0),
    }


def comparison(rows, replications):
    """Privacy-aware GP and DP-cloaking rows side by side (see :func:`._dp_rows.comparison`)."""
    pa = {r["alpha"]: r for r in rows if r["method"] == "privacy-aware"}
    cloaking = {r["epsilon"]: r for r in rows if r["method"] == dp.METHOD}
    dropout = next(r["rmse_mean"] for r in rows if r["method"] == "dropout")
    return [
        {**r, "seeds": replications}
        for r in dp.comparison(pa, cloaking, dropout, ALPHAS, PAPER_TABLE4)
    ]


@transactional
def run(
    out,
    seed=0,
    progress=True,
    replications=20,
    data=None,
    split="authors",
    restarts=3,
    attack_restarts=1,
    runner=None,
):
    """Run the census study; write Figures 8-9 and Table 4 into ``out``; print PA vs DP.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Base seed: the owner's fit restarts, the random split, and the noise of
        replication i (``default_rng([seed, i, alpha index])``; DP-cloaking:
        ``default_rng([seed, i, 100 + epsilon index])``).
    progress : bool
        Show a progress bar.
    replications : int
        Noise seeds averaged in Table 4, for the privacy-aware GP and DP-cloaking alike
        (the paper: 20).
    data : str or Path, optional
        Data folder (default: ``$SSA_PRIVACY_DATA`` or ``../shared/data``).
    split : {"authors", "random"}
        Train/test split (see :func:`ssa_privacy.engine.data.load_census`).
    restarts, attack_restarts : int
        Optimiser starts of the owner's and the attacker's maximum-likelihood fits.
    runner : Runner, optional
        Runs the replications (one task each; default: serially in this process).
        Results do not depend on it; ``results.json`` records it and each task's seed
        keys.

    Returns
    -------
    dict
        Summary: output folder, smallest certificate margin, whether every certificate
        and every DP check passed, the RMSE rows and the privacy-aware vs DP-cloaking
        comparison (also printed).

    Raises
    ------
    FileNotFoundError
        If the data are missing (the message names the path tried).

    Notes
    -----
    [TCB] §5.2, Figures 8-9, Table 4; [SMI] §3 for DP-cloaking; the authors' runs and
    their discrepancies are in :doc:`/theory/privacy-aware-gp`.
    """
    replications = positive_int(replications, "replications")
    params = {
        "seed": seed,
        "replications": replications,
        "split": split,
        "restarts": restarts,
        "attack_restarts": attack_restarts,
        "alphas": ALPHAS,
        "seed_scheme": "default_rng([seed, replication, alpha_index])",
        **dp.parameters(),
        "dp_seed_scheme": "default_rng([seed, replication, 100 + epsilon_index]), the same "
        "replications as the privacy-aware rows",
    }
    output = StudyOutput(out, "census", params)
    design = Design(load_census(data, split=split, seed=seed), restarts, seed)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    tasks = [
        Task(key=("replication", i), arguments={"replication": i}, seed_keys=(seed, i))
        for i in range(replications)
    ]
    shared = {"design": design, "seed": seed, "attack_restarts": attack_restarts}
    fingerprint = (params, str(data))
    reps = runner.map(replicate, tasks, shared=shared, name="census", fingerprint=fingerprint)
    output.parameters["runner"] = runner.describe()
    cloaking = dp_cloaking_runs(design, seed, replications, progress)
    dropout_times = {}
    with stopwatch(dropout_times, "dropout"):
        dropout_mean = dropout_gp(design.gp, design.X, design.data.y_train, design.private).predict(
            design.X_test
        )[0]
    rows = table_rows(design, reps, dropout_mean, dropout_times["dropout"][0], cloaking)
    first = {epsilon: values[0] for epsilon, values in cloaking["values"].items()}
    drawn = SimpleNamespace(data=design.data, private_test=design.private_test)  # what's drawn
    jobs = {
        "figure8_census": (
            figures.figure8,
            dict(
                design=drawn,
                features=FIGURE_FEATURES,
                rep=reps[0],
                dropout=dropout_mean,
                alphas=ALPHAS,
            ),
        ),
        "figure9_dp_cloaking": (
            figures.figure9,
            dict(
                design=drawn,
                features=FIGURE_FEATURES,
                releases=first,
                dropout=dropout_mean,
                epsilons=dp.EPSILONS,
            ),
        ),
    }
    save_figures(output, jobs, runner)
    released = {a: [r[a]["certificate"] for r in reps] for a in ALPHAS}
    certificates = {
        f"alpha={a}": [
            {"margin": c.margin, "tolerance": c.tolerance, "passed": c.passed} for c in cs
        ]
        for a, cs in released.items()
    }
    margins = [c.margin for cs in released.values() for c in cs]
    all_passed = all(c.passed for cs in released.values() for c in cs)
    checks = dp_checks(design, cloaking)
    pa_vs_dp = comparison(rows, replications)
    gp = design.gp
    output.write_results(
        rows,
        certificates_per_release=certificates,
        certificate_min=min(margins),
        certificates_passed=all_passed,
        hyperparameters={
            "mean": gp.mean,
            "variance": gp.kernel.variance,
            "lengthscale_standardised": gp.kernel.lengthscale,
            "noise_variance": gp.noise,
            "jitter": gp.jitter,
        },
        sensitive_training_records=int(design.private.sum()),
        owner_fit_time_s=design.fit_times["fit"][0],
        Sigma_opt={
            f"alpha={a}": {
                "rank": reps[0][a]["rank"],
                "trace": reps[0][a]["trace"],
                **reps[0][a]["design"],
                "unprotected_prior_variance": reps[0][a]["certificate"].evidence.get(
                    "unprotected_prior_variance"
                ),
            }
            for a in ALPHAS
        },
        constant_predictor_rmse=rmse(
            np.full_like(design.data.y_test, design.data.y_train.mean()), design.data.y_test
        ),
        checks=checks,
        pa_vs_dp=pa_vs_dp,
        dp_cloaking_design={**cloaking["design"].record(), "sensitivity": cloaking["sensitivity"]},
        dp_releases=cloaking["records"],
    )
    print(
        dp.format_comparison(
            f"Privacy-aware GP vs DP-cloaking, census: test RMSE (1e5 USD), mean +- std over replications "
            f"0-{replications - 1} of seed {seed} for both, same fitted GP",
            pa_vs_dp,
        )
    )
    return {
        "out": str(output.folder),
        "certificate_min": min(margins),
        "certificates_passed": all_passed,
        "dp_all_checks_passed": checks["dp_all_checks_passed"],
        "rmse": {dp.row_label(r): r["rmse_mean"] for r in rows},
        "pa_vs_dp": pa_vs_dp,
    }
