"""[TCB] §5.2: a privacy-aware GP of census income that protects older residents.

Income (PINCP, units of 1e5 USD) is modelled from PUMA, POWPUMA, AGEP, ANC1P and POBP
(standardised by the training means and standard deviations) with a constant-mean GP,
ARD RBF kernel and white noise, all fitted by maximum likelihood. The sensitive set is
the training records with AGEP in [75, 100] and PUMA in [0, 2000] (24 records in the
authors' split). The owner releases ``W = Y + Z`` with the optimal synthetic noise for
H = alpha K on that set; the study compares the privacy-aware GP, Dropout, the
Stationary attack and DP-cloaking ([SMI], epsilon in {0.3, 0.5, 1}, delta = 0.01, on the
same fitted GP and seeds; see :mod:`._dp_rows`) on the 331 test records: Table 4,
Figures 8 and 9 and the privacy-aware vs DP-cloaking comparison (also printed). Every
privacy-aware release is ``SyntheticNoiseMechanism(...).release(y, seed=...)`` of a
mechanism designed once per alpha.
"""

import numpy as np
from tqdm import tqdm

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import positive_int
from ssa_privacy.attacks.stationary import stationary_attack
from ssa_privacy.engine.data import load_census
from ssa_privacy.engine.figures import save_figures
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.gp.baselines import dropout_gp
from ssa_privacy.gp.fit import fit_hyperparameters
from ssa_privacy.privacy.synthetic_noise.mechanism import SyntheticNoiseMechanism, privacy_aware_gp
from ssa_privacy.studies import _census_figures as figures
from ssa_privacy.studies import _census_tables as tables
from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies._common import rmse, stopwatch

__all__ = [
    "ALPHAS",
    "DESCRIPTION",
    "Design",
    "FIGURE_FEATURES",
    "USES_RUNNER",
    "add_arguments",
    "baselines",
    "certificate_record",
    "dp_checks",
    "dp_cloaking_runs",
    "mechanism_classes",
    "parameters",
    "replicate",
    "report",
    "run",
    "sensitive_mask",
    "tasks",
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


def add_arguments(parser):
    """Options of ``ssa-privacy run census``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The study's sub-command parser.
    """
    opt.add_replications(parser, 20, "seeds of the synthetic noise averaged in Table 4")
    opt.add_data_folder(parser, "the PUMS sample and the split file")
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
    """Standardised data, the owner's ML fit, the sensitive set and the mechanisms.

    Parameters
    ----------
    data : ssa_privacy.engine.data.CensusData
        The split PUMS sample (:func:`~ssa_privacy.engine.data.load_census`).
    restarts : int
        Optimiser starts of the owner's maximum-likelihood fit.
    seed : int
        Seed of those starts.

    Attributes
    ----------
    mechanisms : dict
        alpha -> the certified
        :class:`~ssa_privacy.privacy.synthetic_noise.mechanism.SyntheticNoiseMechanism`
        of the owner's fit at level alpha, designed once (it does not depend on the
        replication); ``fit_times`` the times (s) of the fit and of each design.
    alphas : tuple
        :data:`ALPHAS`, the levels of the mechanisms.

    Raises
    ------
    ValueError
        If no training record lies in the sensitive region.
    """

    def __init__(self, data, restarts, seed):
        self.data, self.alphas = data, ALPHAS
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


def replicate(design, attack_restarts, seed_keys):
    """All alphas for one seed: released data, predictions, certificates and times.

    One task of the runner; with its ``seed_keys = (seed, replication)``, its random
    numbers come from ``default_rng([seed, replication, alpha_index])``: first the
    release (``mechanism.release(y, seed=rng)``), then the Stationary attack's restarts.
    """
    times, out = {}, {}
    for ia, alpha in enumerate(ALPHAS):
        rng = random_generator((*seed_keys, ia))
        mechanism = design.mechanisms[alpha]
        with stopwatch(times, ("privacy-aware", alpha)):
            released = mechanism.release(design.data.y_train, seed=rng)
            W, factor = released.values, released.noise_covariance
            user = privacy_aware_gp(design.gp, design.X, W, factor)
            pa_mean, pa_var = user.predict(design.X_test)
        with stopwatch(times, ("stationary", alpha)):
            attack = stationary_attack(
                design.X, W, restarts=attack_restarts, seed=rng, initial=design.gp
            )
            st_mean, st_var = attack.gp.predict(design.X_test)
        out[alpha] = {
            "W": W,
            "privacy-aware": (pa_mean, pa_var),
            "stationary": (st_mean, st_var),
            "certificate": released.certificate,
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
                    y, mean, epsilon, out["sensitivity"], random_generator(keys)
                )
            out["values"].setdefault(epsilon, []).append(released.values)
            out["records"].append(dp.release_record(released, i, keys))
    return out


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


def parameters(seed, replications, split, restarts, attack_restarts):
    """The run's validated parameters for ``results.json``, with its seed schemes.

    Parameters
    ----------
    seed, replications, split, restarts, attack_restarts
        As :func:`run`.

    Returns
    -------
    dict
        The parameters, the DP settings (:func:`._dp_rows.parameters`) and the seed
        schemes of both kinds of release.

    Raises
    ------
    ValueError
        If ``replications`` is not a positive integer.
    """
    return {
        "seed": seed,
        "replications": positive_int(replications, "replications"),
        "split": split,
        "restarts": restarts,
        "attack_restarts": attack_restarts,
        "alphas": ALPHAS,
        "seed_scheme": "default_rng([seed, replication, alpha_index])",
        **dp.parameters(),
        "dp_seed_scheme": "default_rng([seed, replication, 100 + epsilon_index]), the same "
        "replications as the privacy-aware rows",
    }


def mechanism_classes(design):
    """The public mechanism class of each kind of release the study makes.

    Parameters
    ----------
    design : Design
        The study's design (its privacy-aware mechanisms).

    Returns
    -------
    dict
        ``{"privacy-aware": "SyntheticNoiseMechanism", "dp-cloaking":
        "CloakingMechanism"}``, for ``results.json``.
    """
    used = {type(mechanism).__name__ for mechanism in design.mechanisms.values()}
    return {"privacy-aware": ", ".join(sorted(used)), dp.METHOD: dp.MECHANISM.__name__}


def tasks(seed, replications):
    """One task per replication.

    Parameters
    ----------
    seed, replications : int
        As :func:`run`.

    Returns
    -------
    list of Task
        Task i has the seed keys ``(seed, i)``, passed to :func:`replicate`.
    """
    return [Task(key=("replication", i), seed_keys=(seed, i)) for i in range(replications)]


def baselines(design, seed, replications, progress):
    """What the privacy-aware GP is compared with: DP-cloaking and Dropout.

    Parameters
    ----------
    design : Design
        The study's design.
    seed, replications, progress
        As :func:`run`.

    Returns
    -------
    dict
        ``cloaking`` (:func:`dp_cloaking_runs` of the same replications), ``dropout``
        (the Dropout mean at the test records, 1e5 USD) and ``dropout_time`` (s).
    """
    cloaking = dp_cloaking_runs(design, seed, replications, progress)
    times = {}
    with stopwatch(times, "dropout"):
        dropout = dropout_gp(design.gp, design.X, design.data.y_train, design.private)
        mean = dropout.predict(design.X_test)[0]
    return {"cloaking": cloaking, "dropout": mean, "dropout_time": times["dropout"][0]}


def certificate_record(reps):
    """Every release's certificate and the designs of Sigma_opt, for ``results.json``.

    Parameters
    ----------
    reps : list of dict
        Every replication (:func:`replicate`).

    Returns
    -------
    dict
        ``certificates_per_release`` (``"alpha=<a>"`` -> margin, tolerance and passed of
        each replication), ``certificate_min``, ``certificates_passed`` and ``Sigma_opt``
        (rank, trace, design margin, resolution, nugget and unprotected prior variance
        per alpha).
    """
    released = {a: [r[a]["certificate"] for r in reps] for a in ALPHAS}
    return {
        "certificates_per_release": {
            f"alpha={a}": [
                {"margin": c.margin, "tolerance": c.tolerance, "passed": c.passed} for c in cs
            ]
            for a, cs in released.items()
        },
        "certificate_min": min(c.margin for cs in released.values() for c in cs),
        "certificates_passed": all(c.passed for cs in released.values() for c in cs),
        "Sigma_opt": {
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
    }


def report(output, design, reps, compared, rows):
    """Write ``results.json`` and ``results.csv``, print the comparison, return the summary.

    Parameters
    ----------
    output : StudyOutput
        The run's output (its parameters hold the seed and the replications).
    design : Design
        The study's design.
    reps : list of dict
        Every replication (:func:`replicate`).
    compared : dict
        :func:`baselines`.
    rows : list of dict
        :func:`._census_tables.table_rows`.

    Returns
    -------
    dict
        The summary :func:`run` returns.
    """
    seed, replications = output.parameters["seed"], output.parameters["replications"]
    cloaking, gp, data = compared["cloaking"], design.gp, design.data
    record = certificate_record(reps)
    checks = dp_checks(design, cloaking)
    pa_vs_dp = tables.comparison(rows, replications, ALPHAS)
    output.write_results(
        rows,
        certificates_per_release=record["certificates_per_release"],
        certificate_min=record["certificate_min"],
        certificates_passed=record["certificates_passed"],
        hyperparameters={
            "mean": gp.mean,
            "variance": gp.kernel.variance,
            "lengthscale_standardised": gp.kernel.lengthscale,
            "noise_variance": gp.noise,
            "jitter": gp.jitter,
        },
        sensitive_training_records=int(design.private.sum()),
        owner_fit_time_s=design.fit_times["fit"][0],
        Sigma_opt=record["Sigma_opt"],
        constant_predictor_rmse=rmse(np.full_like(data.y_test, data.y_train.mean()), data.y_test),
        checks=checks,
        pa_vs_dp=pa_vs_dp,
        dp_cloaking_design={**cloaking["design"].record(), "sensitivity": cloaking["sensitivity"]},
        dp_releases=cloaking["records"],
    )
    print(
        dp.format_comparison(
            f"Privacy-aware GP vs DP-cloaking, census: test RMSE (1e5 USD), mean +- std over "
            f"replications 0-{replications - 1} of seed {seed} for both, same fitted GP",
            pa_vs_dp,
        )
    )
    return {
        "out": str(output.folder),
        "certificate_min": record["certificate_min"],
        "certificates_passed": record["certificates_passed"],
        "dp_all_checks_passed": checks["dp_all_checks_passed"],
        "rmse": {dp.row_label(r): r["rmse_mean"] for r in rows},
        "pa_vs_dp": pa_vs_dp,
    }


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
        Base seed: the owner's fit restarts, the random split and every release (seed
        schemes in ``results.json``).
    progress : bool
        Show a progress bar.
    replications : int
        Noise seeds averaged in Table 4, for both mechanisms (the paper: 20).
    data : str or Path, optional
        Data folder (default: ``$SSA_PRIVACY_DATA`` or ``../shared/data``).
    split : {"authors", "random"}
        Train/test split (see :func:`ssa_privacy.engine.data.load_census`).
    restarts, attack_restarts : int
        Optimiser starts of the owner's and the attacker's maximum-likelihood fits.
    runner : Runner, optional
        Runs the replications (default: serially here); results do not depend on it.

    Returns
    -------
    dict
        :func:`report`'s summary (the comparison with DP-cloaking is also printed).

    Raises
    ------
    FileNotFoundError
        If the data are missing (the message names the path tried).
    ValueError
        If ``replications`` is not a positive integer.

    Notes
    -----
    [TCB] §5.2, Figures 8-9, Table 4; [SMI] §3 for DP-cloaking; :doc:`/theory/privacy-aware-gp`.
    ``results.json`` records the mechanism class of each kind of release
    (``parameters.mechanisms``), the runner and each task's seed keys.
    """
    params = parameters(seed, replications, split, restarts, attack_restarts)
    output = StudyOutput(out, "census", params)
    design = Design(load_census(data, split=split, seed=seed), restarts, seed)
    output.parameters["mechanisms"] = mechanism_classes(design)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    work, fingerprint = tasks(seed, params["replications"]), (params, str(data))
    shared = {"design": design, "attack_restarts": attack_restarts}
    reps = runner.map(replicate, work, shared=shared, name="census", fingerprint=fingerprint)
    output.parameters["runner"] = runner.describe()
    compared = baselines(design, seed, params["replications"], progress)
    rows = tables.table_rows(design, reps, compared)
    jobs = figures.figure_jobs(design, reps[0], compared, FIGURE_FEATURES, ALPHAS, dp.EPSILONS)
    save_figures(output, jobs, runner)
    return report(output, design, reps, compared, rows)
