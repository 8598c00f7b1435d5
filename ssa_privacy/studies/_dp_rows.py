"""DP-cloaking rows of the satellite and census studies ([TCB] Tables 3-4, [SMI] §3).

Both studies compare the privacy-aware GP with the cloaking mechanism of Smith et al.
(2018) on the same fitted GP (kernel, constant mean, noise and jitter) and the same
replications. Choices, all documented in the study pages:

- the cloaking matrix is Smith et al.'s ``C = K_{*X} (K_XX + V)^{-1}`` over all training
  outputs (the code of [TCB] used ``K_{*S} K_SS^{-1}``, the private columns only and no
  noise term, which is not Smith et al.'s mechanism; see :doc:`/theory/dp-gp`);
- neighbouring data sets differ in one training output by at most ``d`` = one standard
  deviation (ddof = 0) of the training outputs (``d = 1`` in normalised units, as the
  authors ran it); the mean and standard deviation of the outputs and the GP's constant
  mean are treated as public, as in [SMI];
- each (replication, epsilon) releases ONE draw with the full noise (the code of [TCB]
  averaged 100 draws, which divides the noise sd by 10 and voids the (epsilon, delta)
  claim), seeded by ``default_rng([seed, replication, SEED_KEY_OFFSET + epsilon index,
  ...])``;
- the noise shape M depends only on C, so it is solved once per fitted GP
  (:class:`~ssa_privacy.privacy.dp_gp.cloaking.CloakingMechanism`, timed separately) and
  scaled per epsilon with Hall et al.'s calibration ``c(delta) / epsilon`` (valid for
  epsilon <= 1): :meth:`CloakingDesign.at_level` is the mechanism at one level, and every
  release is that mechanism's ``release(y, seed=...)``, a
  :class:`~ssa_privacy.privacy.mechanism.Release` with its certificate, which the studies
  record (:func:`release_record`; the class: :data:`MECHANISM`).
"""

import time

import numpy as np

from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.privacy.dp_gp.release import PrivacyCheck

__all__ = [
    "CALIBRATION",
    "COLOUR",
    "CloakingDesign",
    "DELTA",
    "EPSILONS",
    "MECHANISM",
    "METHOD",
    "NEIGHBOURING",
    "SEED_KEY_OFFSET",
    "comparison",
    "format_comparison",
    "mse_prediction",
    "mse_z_score",
    "output_sensitivity",
    "parameters",
    "release_record",
    "row_label",
]

EPSILONS = (0.3, 0.5, 1.0)
DELTA = 0.01
CALIBRATION = "hall"
METHOD = "dp-cloaking"
#: The mechanism class of every DP-cloaking release.
MECHANISM = CloakingMechanism
#: Added to the epsilon index in the seed keys, so that the DP streams never coincide
#: with the privacy-aware ones (whose third key is the alpha index 0, 1, 2).
SEED_KEY_OFFSET = 100
NEIGHBOURING = (
    "data sets differ in one training output, changed by at most d = one standard "
    "deviation (ddof 0) of that output's training values (d = 1 in normalised units); "
    "inputs, output mean and standard deviation and the GP's constant mean are public"
)
#: Colour of the DP-cloaking curves in the figures.
COLOUR = "tab:brown"


def output_sensitivity(y):
    """Sensitivity d (output units): one standard deviation (ddof 0) of the training outputs."""
    return float(np.std(y))


def parameters():
    """The DP settings recorded in ``results.json`` → ``parameters``."""
    return {
        "epsilons": EPSILONS,
        "delta": DELTA,
        "dp_calibration": CALIBRATION,
        "dp_neighbouring_relation": NEIGHBOURING,
        "dp_cloaking_matrix": "C = K_*X (K_XX + V)^-1 over all training outputs (Smith et al. 2018)",
        "dp_draws_per_release": 1,
    }


class CloakingDesign:
    """The cloaking mechanism of one fitted GP at fixed test inputs, at this study's delta.

    Parameters
    ----------
    gp : ssa_privacy.gp.regression.GaussianProcess
        Fitted GP with a scalar noise variance; its kernel, noise and jitter are used,
        so ``V = (noise + jitter) I``.
    X : ndarray, shape (n, D)
        Training inputs (public).
    X_star : ndarray, shape (m, D)
        Test inputs of the release.

    Raises
    ------
    ValueError
        If the GP's noise is a matrix, or as
        :class:`ssa_privacy.privacy.dp_gp.cloaking.CloakingMechanism`.

    Attributes
    ----------
    mechanism : ssa_privacy.privacy.dp_gp.cloaking.CloakingMechanism
        Cloaking matrix and optimal noise shape M, solved once, without a privacy level.
    time_s : float
        Wall-clock time of that solve (s).
    """

    def __init__(self, gp, X, X_star):
        if np.ndim(gp.noise) != 0:
            raise ValueError(
                "CloakingDesign needs a GP with a scalar noise variance, got a noise matrix"
            )
        start = time.perf_counter()
        self.mechanism = CloakingMechanism(
            gp.kernel(X_star, X), gp.kernel(X), float(gp.noise) + (gp.jitter or 0.0)
        )
        self.time_s = time.perf_counter() - start

    @property
    def M(self):
        """The noise shape, shape (m, m)."""
        return self.mechanism.M

    def at_level(self, epsilon, sensitivity, mean=0.0):
        """The mechanism at (epsilon, :data:`DELTA`) with Hall's calibration.

        The ellipsoid is the one solved in the constructor; the noise is scaled (and
        certified) at each call.

        Parameters
        ----------
        epsilon : float
            Privacy parameter, in (0, 1].
        sensitivity : float
            d (output units).
        mean : float
            The GP's constant prior mean (public).

        Returns
        -------
        ssa_privacy.privacy.dp_gp.cloaking.CloakingMechanism
            Its noise covariance is ``noise_scale^2 M``.
        """
        return self.mechanism.at(epsilon, DELTA, sensitivity, calibration=CALIBRATION, mean=mean)

    def noise_scale(self, epsilon, sensitivity):
        """Standard-deviation multiplier of M at (epsilon, :data:`DELTA`) (see :meth:`at_level`)."""
        return self.at_level(epsilon, sensitivity).noise_scale

    def release(self, y, mean, epsilon, sensitivity, rng):
        """One release at (epsilon, :data:`DELTA`): the mechanism's ``release(y, seed=rng)``.

        Returns
        -------
        ssa_privacy.privacy.mechanism.Release
            The values at the test inputs and the certificate.
        """
        return self.at_level(epsilon, sensitivity, mean).release(y, seed=rng)

    def record(self):
        """The mechanism's record plus the design time, for ``results.json``."""
        return {**self.mechanism.record(), "design_time_s": self.time_s}


def mse_prediction(bias, covariance):
    """Mean and standard deviation of the mean squared error of one release.

    The error of a release is ``b + z`` with ``b`` the error of the non-private
    prediction and ``z ~ N(0, Sigma)``, so ``m MSE = ||b + z||^2`` has mean
    ``||b||^2 + tr Sigma`` and variance ``2 tr Sigma^2 + 4 b^T Sigma b``.

    Parameters
    ----------
    bias : ndarray, shape (m,)
        Non-private prediction minus truth at the evaluation points.
    covariance : ndarray, shape (m, m)
        DP noise covariance at those points.

    Returns
    -------
    mean, sd : float
        Of the MSE (squared output units).
    """
    m = len(bias)
    mean = (bias @ bias + np.trace(covariance)) / m
    variance = 2 * np.sum(covariance * covariance) + 4 * bias @ covariance @ bias
    return float(mean), float(np.sqrt(variance) / m)


def mse_z_score(errors, bias, covariance):
    """z-score of the seed-mean MSE against :func:`mse_prediction` (|z| of a few at most).

    ``errors`` holds the RMSE of each release, shape (seeds,).
    """
    mean, sd = mse_prediction(bias, covariance)
    squared = np.asarray(errors) ** 2
    return float((squared.mean() - mean) / (sd / np.sqrt(len(squared))))


def release_record(release, replication, seed_keys, **labels):
    """One release's (epsilon, delta), its certificate's check and the seed that drew it.

    ``release`` is a :class:`~ssa_privacy.privacy.mechanism.Release`; its certificate is
    recorded in the flat form of :meth:`PrivacyCheck.record` (``mechanism``, ``epsilon``,
    ``delta``, ``check_passed`` and ``check_*`` evidence).
    """
    check = PrivacyCheck.from_certificate(release.certificate).record()
    return {**labels, "replication": replication, "seed_keys": list(seed_keys), **check}


def row_label(row):
    """``"<method> alpha=<a>"``, or ``"dp-cloaking epsilon=<e>"`` for the DP rows."""
    if row["method"] == METHOD:
        return f"{METHOD} epsilon={row['epsilon']}"
    return f"{row['method']} alpha={row['alpha']}"


def comparison(pa, dp, dropout, alphas, paper=None):
    """Privacy-aware GP beside DP-cloaking, pairing alpha and epsilon as the paper's columns do.

    Parameters
    ----------
    pa, dp : dict
        RMSE rows of the privacy-aware GP by alpha and of DP-cloaking by epsilon (each
        with ``rmse_mean`` and ``rmse_std``).
    dropout : float
        Dropout RMSE.
    alphas : sequence of float
        The alphas, paired in order with :data:`EPSILONS` (strongest privacy first).
    paper : dict, optional
        The paper's RMSE by (method, alpha or epsilon).

    Returns
    -------
    list of dict
    """
    paper = paper or {}
    rows = []
    for alpha, epsilon in zip(alphas, EPSILONS):
        a, e = pa[alpha], dp[epsilon]
        rows.append(
            {
                "alpha": alpha,
                "epsilon": epsilon,
                "delta": DELTA,
                "privacy_aware_rmse": a["rmse_mean"],
                "privacy_aware_std": a["rmse_std"],
                "dp_cloaking_rmse": e["rmse_mean"],
                "dp_cloaking_std": e["rmse_std"],
                "dp_over_privacy_aware": e["rmse_mean"] / a["rmse_mean"],
                "dropout_rmse": dropout,
                "paper_privacy_aware": paper.get(("privacy-aware", alpha)),
                "paper_dp_cloaking": paper.get((METHOD, epsilon)),
            }
        )
    return rows


def format_comparison(title, rows):
    """The comparison as a fixed-width text table (printed at the end of a run)."""

    def number(value):
        return f"{value:9.4g}" if value is not None else f"{'--':>9s}"

    lines = [
        title,
        f"{'alpha':>5s} {'eps':>4s} | {'PA':>9s} {'+-':>9s} | {'DP':>9s} {'+-':>9s} | "
        f"{'DP/PA':>7s} | {'Dropout':>9s} | {'paper PA':>9s} {'paper DP':>9s}",
    ]
    for r in rows:
        lines.append(
            f"{r['alpha']:5.1f} {r['epsilon']:4.1f} | {number(r['privacy_aware_rmse'])} "
            f"{number(r['privacy_aware_std'])} | {number(r['dp_cloaking_rmse'])} "
            f"{number(r['dp_cloaking_std'])} | {r['dp_over_privacy_aware']:7.1f} | "
            f"{number(r['dropout_rmse'])} | {number(r['paper_privacy_aware'])} "
            f"{number(r['paper_dp_cloaking'])}"
        )
    return "\n".join(lines)
