"""[TCB] §5.2: a privacy-aware GP of census income that protects older residents.

Income (PINCP, units of 1e5 USD) is modelled from PUMA, POWPUMA, AGEP, ANC1P and POBP
(standardised by the training means and standard deviations) with a constant-mean GP,
ARD RBF kernel and white noise, all fitted by maximum likelihood. The sensitive set is
the training records with AGEP in [75, 100] and PUMA in [0, 2000] (24 records in the
authors' split). The owner releases ``W = Y + Z`` with the optimal synthetic noise for
H = alpha K on that set; the study compares the privacy-aware GP, Dropout and the
Stationary attack on the 331 test records: Table 4 and Figure 8.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from ssa_privacy._validation import positive_int  # noqa: E402
from ssa_privacy.attacks import stationary_attack  # noqa: E402
from ssa_privacy.baselines import dropout_gp  # noqa: E402
from ssa_privacy.data import load_census  # noqa: E402
from ssa_privacy.gp import fit_hyperparameters  # noqa: E402
from ssa_privacy.output import StudyOutput  # noqa: E402
from ssa_privacy.privacy import (  # noqa: E402
    privacy_aware_gp,
    privacy_certificate,
    region_noise_factor,
    release,
)
from ssa_privacy.studies._common import METHOD_COLOURS as COLOURS  # noqa: E402
from ssa_privacy.studies._common import (  # noqa: E402
    mean_std,
    replication_rng,
    rmse,
    stopwatch,
)

DESCRIPTION = "[TCB] 5.2: privacy-aware GP of census income on real PUMS data (Fig 8; Table 4)"

ALPHAS = (0.1, 0.5, 0.9)
#: Sensitive region: AGEP in [75, 100] and PUMA in [0, 2000], inclusive.
SENSITIVE_AGE, SENSITIVE_PUMA = (75, 100), (0, 2000)
AGEP, PUMA = 2, 0
#: [TCB] Table 4 RMSE (1e5 USD), paper's alpha convention; its "+- 0.0000" are artefacts.
PAPER_TABLE4 = {
    ("privacy-aware", 0.1): 0.6093, ("privacy-aware", 0.5): 0.6048, ("privacy-aware", 0.9): 0.5970,
    ("stationary", 0.1): 0.9807, ("stationary", 0.5): 0.6389, ("stationary", 0.9): 0.5968,
}
#: The authors' CSV (commit 7b65a1f): RMSE mean and std over 20 seeds, alpha converted
#: to the paper's convention (privacygp_spec §5.5).
AUTHORS_CSV = {
    ("privacy-aware", 0.1): (0.599268, 0.010106), ("privacy-aware", 0.5): (0.604765, 0.011081),
    ("privacy-aware", 0.9): (0.597026, 0.004707), ("stationary", 0.1): (0.980737, 0.230931),
    ("stationary", 0.5): (0.638930, 0.032837), ("stationary", 0.9): (0.596827, 0.005325),
    ("dropout", None): (0.599149, 0.000517),
}


def add_arguments(parser):
    """Options of ``ssa-privacy run census``."""
    parser.add_argument("--replications", type=int, default=20,
                        help="seeds of the synthetic noise averaged in Table 4 (default 20)")
    parser.add_argument("--data", help="folder holding the PUMS sample and the split file")
    parser.add_argument("--split", choices=("authors", "random"), default="authors",
                        help="the authors' exact train/test split, or a fresh random one")
    parser.add_argument("--restarts", type=int, default=3,
                        help="optimiser starts of the owner's maximum-likelihood fit")
    parser.add_argument("--attack-restarts", type=int, default=1,
                        help="optimiser starts of the Stationary attack (the first from the prior)")


def sensitive_mask(X_raw):
    """Records with AGEP in [75, 100] and PUMA in [0, 2000] (raw features)."""
    age, puma = X_raw[:, AGEP], X_raw[:, PUMA]
    return ((age >= SENSITIVE_AGE[0]) & (age <= SENSITIVE_AGE[1])
            & (puma >= SENSITIVE_PUMA[0]) & (puma <= SENSITIVE_PUMA[1]))


class Design:
    """Standardised data, the owner's ML fit and the sensitive set."""

    def __init__(self, data, restarts, seed):
        self.data = data
        self.center = data.X_train.mean(axis=0)
        self.scale = data.X_train.std(axis=0, ddof=1)
        self.X = (data.X_train - self.center) / self.scale
        self.X_test = (data.X_test - self.center) / self.scale
        self.private = sensitive_mask(data.X_train)
        if not self.private.any():
            raise ValueError("no training record lies in the sensitive region")
        self.S0 = self.X[self.private]
        self.fit_times = {}
        with stopwatch(self.fit_times, "fit"):
            self.gp = fit_hyperparameters(self.X, data.y_train, restarts=restarts, seed=seed).gp

    def factor(self, alpha):
        """Sigma_opt for level alpha, factored."""
        return region_noise_factor(self.gp.kernel, self.X, self.S0, alpha, V=self.gp.noise)

    def certificate(self, alpha, factor):
        """Privacy certificate of a release designed by :meth:`factor`."""
        k = self.gp.kernel
        return privacy_certificate(k(self.X), k(self.X, self.S0), alpha * k(self.S0), factor,
                                   V=self.gp.noise)


def replicate(design, seed, replication, attack_restarts):
    """All alphas for one seed: released data, predictions, certificates and times."""
    times, out = {}, {}
    for ia, alpha in enumerate(ALPHAS):
        rng = replication_rng(seed, replication, ia)
        with stopwatch(times, ("privacy-aware", alpha)):
            factor = design.factor(alpha)
            W = release(design.data.y_train, factor, seed=rng)
            pa_mean, pa_var = privacy_aware_gp(design.gp, design.X, W, factor).predict(design.X_test)
        with stopwatch(times, ("stationary", alpha)):
            attack = stationary_attack(design.X, W, restarts=attack_restarts, seed=rng,
                                       initial=design.gp)
            st_mean, st_var = attack.gp.predict(design.X_test)
        out[alpha] = {"W": W, "privacy-aware": (pa_mean, pa_var), "stationary": (st_mean, st_var),
                      "certificate": design.certificate(alpha, factor), "rank": factor.rank,
                      "trace": factor.trace}
    out["times"] = times
    return out


def table_rows(design, reps, dropout_mean, dropout_time):
    """Table 4: RMSE (1e5 USD) and time per method and alpha, over the seeds.

    Times are per release: the privacy-aware time is the design of Sigma_opt, the
    release and the reconstruction; the owner's one-off hyperparameter fit is reported
    separately in ``results.json`` (``owner_fit_time_s``).
    """
    y_test = design.data.y_test
    rows = []
    for method in ("privacy-aware", "stationary"):
        for alpha in ALPHAS:
            errors = [rmse(r[alpha][method][0], y_test) for r in reps]
            times = [t for r in reps for t in r["times"][method, alpha]]
            rows.append(_row(method, alpha, errors, times))
    rows.append(_row("dropout", None, [rmse(dropout_mean, y_test)], [dropout_time]))
    return rows


def _row(method, alpha, errors, times):
    (rmse_mean, rmse_std), (time_mean, time_std) = mean_std(errors), mean_std(times)
    authors = AUTHORS_CSV.get((method, alpha), (None, None))
    return {"method": method, "alpha": alpha, "rmse_mean": rmse_mean, "rmse_std": rmse_std,
            "rmse_min": min(errors), "rmse_max": max(errors), "time_mean_s": time_mean,
            "time_std_s": time_std, "paper_table4_rmse": PAPER_TABLE4.get((method, alpha)),
            "authors_csv_rmse_mean": authors[0], "authors_csv_rmse_std": authors[1]}


def figure8(design, rep, dropout):
    """Figure 8: test predictions against AGEP and PUMA for each alpha (first replication)."""
    figure, axes = plt.subplots(2, len(ALPHAS), figsize=(5 * len(ALPHAS), 7), squeeze=False,
                                constrained_layout=True)
    figure.suptitle("Privacy-aware GP of census income (sensitive region shaded)")
    data, private_test = design.data, sensitive_mask(design.data.X_test)
    features = ((AGEP, "AGEP (years)", SENSITIVE_AGE), (PUMA, "PUMA code", SENSITIVE_PUMA))
    for row, (feature, name, region) in enumerate(features):
        x_test = data.X_test[:, feature]
        for j, alpha in enumerate(ALPHAS):
            axis = axes[row, j]
            axis.axvspan(*region, color=COLOURS["private"], alpha=0.08, lw=0)
            axis.scatter(data.X_train[:, feature], rep[alpha]["W"], s=3, color=COLOURS["released"],
                         alpha=0.3, label="released W")
            axis.scatter(x_test, data.y_test, s=8, color=COLOURS["truth"], label="test")
            axis.scatter(x_test[private_test], data.y_test[private_test], marker="x",
                         color=COLOURS["private"], label="test, sensitive")
            for method in ("privacy-aware", "stationary"):
                axis.scatter(x_test, rep[alpha][method][0], s=4, color=COLOURS[method], label=method)
            axis.scatter(x_test, dropout, s=4, marker="s", color=COLOURS["dropout"], label="Dropout")
            axis.set_ylim(-1.5, 5)
            axis.set_xlabel(name)
        axes[row, 0].set_ylabel("PINCP (1e5 USD)")
    for axis, alpha in zip(axes[0], ALPHAS):
        axis.set_title(rf"$\alpha$ = {alpha}", fontsize=9)
    axes[0, 0].legend(loc="upper left", fontsize=6)
    return figure


def run(out, seed=0, progress=True, replications=20, data=None, split="authors", restarts=3,
        attack_restarts=1):
    """Run the census study; write Figure 8 and Table 4 into ``out``.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Base seed: the owner's fit restarts, the random split, and the noise of
        replication i (``default_rng([seed, i, alpha index])``).
    progress : bool
        Show a progress bar.
    replications : int
        Noise seeds averaged in Table 4 (the paper: 20).
    data : str or Path, optional
        Data folder (default: ``$SSA_PRIVACY_DATA`` or ``../shared/data``).
    split : {"authors", "random"}
        Train/test split (see :func:`ssa_privacy.data.load_census`).
    restarts, attack_restarts : int
        Optimiser starts of the owner's and the attacker's maximum-likelihood fits.

    Returns
    -------
    dict
        Summary: output folder, smallest certificate, the RMSE rows.

    Raises
    ------
    FileNotFoundError
        If the data are missing (the message names the path tried).

    Notes
    -----
    [TCB] §5.2, Figure 8, Table 4; privacygp_spec §5.5 and §6 for the authors' runs.
    """
    replications = positive_int(replications, "replications")
    params = {"seed": seed, "replications": replications, "split": split, "restarts": restarts,
              "attack_restarts": attack_restarts, "alphas": ALPHAS,
              "seed_scheme": "default_rng([seed, replication, alpha_index])"}
    output = StudyOutput(out, "census", params)
    design = Design(load_census(data, split=split, seed=seed), restarts, seed)
    reps = [replicate(design, seed, i, attack_restarts)
            for i in tqdm(range(replications), desc="census", disable=not progress)]
    dropout_times = {}
    with stopwatch(dropout_times, "dropout"):
        dropout_mean = dropout_gp(design.gp, design.X, design.data.y_train, design.private).predict(
            design.X_test)[0]
    rows = table_rows(design, reps, dropout_mean, dropout_times["dropout"][0])
    output.save_figure(figure8(design, reps[0], dropout_mean), "figure8_census")
    certificates = {f"alpha={a}": [r[a]["certificate"] for r in reps] for a in ALPHAS}
    gp = design.gp
    output.write_results(
        rows, certificates_per_release=certificates,
        certificate_min=min(min(v) for v in certificates.values()),
        hyperparameters={"mean": gp.mean, "variance": gp.kernel.variance,
                         "lengthscale_standardised": gp.kernel.lengthscale, "noise_variance": gp.noise,
                         "jitter": gp.jitter},
        sensitive_training_records=int(design.private.sum()),
        owner_fit_time_s=design.fit_times["fit"][0],
        Sigma_opt={f"alpha={a}": {"rank": reps[0][a]["rank"], "trace": reps[0][a]["trace"]} for a in ALPHAS},
        constant_predictor_rmse=rmse(np.full_like(design.data.y_test, design.data.y_train.mean()),
                                     design.data.y_test))
    return {"out": str(output.folder), "certificate_min": min(min(v) for v in certificates.values()),
            "rmse": {f"{r['method']} alpha={r['alpha']}": r["rmse_mean"] for r in rows}}
