"""[TCB] Example 1 (Figure 1): correlated optimal noise against independent noise.

Nine noiseless observations at x = 0.1, ..., 0.9 of a GP with kernel
exp(-10 (x - x')^2); the value at x = 0.5 is sensitive and its posterior variance must
stay >= 0.5 (Delta = 0.5). The optimal synthetic noise (8) is compared with the best
diagonal (independent) noise, found by an SDP.
"""

import matplotlib.pyplot as plt
import numpy as np

from ssa_privacy.engine.figures import PAGE_WIDTH, legend_below
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.gp.kernels import RBF
from ssa_privacy.gp.regression import GaussianProcess
from ssa_privacy.privacy.synthetic_noise.design import (
    diagonal_noise_covariance,
    optimal_noise_covariance,
)
from ssa_privacy.privacy.synthetic_noise.mechanism import privacy_certificate

__all__ = [
    "DELTA",
    "DESCRIPTION",
    "GRID",
    "KERNEL",
    "SENSITIVE",
    "USES_SEED",
    "X",
    "add_arguments",
    "designs",
    "figure1",
    "noise_rows",
    "posterior_variance",
    "run",
    "table_rows",
]

DESCRIPTION = "[TCB] Example 1 / Figure 1: optimal vs diagonal synthetic noise"
#: The example is deterministic: the command line offers no --seed.
USES_SEED = False

X = np.arange(1, 10) / 10
SENSITIVE = np.array([0.5])
DELTA = np.array([[0.5]])
#: exp(-10 (x - x')^2) is the RBF kernel with length scale sqrt(1/20).
KERNEL = RBF(lengthscale=np.sqrt(1 / 20))
GRID = np.linspace(0.0, 1.0, 101)


def add_arguments(parser):
    """Options of ``ssa-privacy run example1``: none (deterministic, no data).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The study's sub-command parser; left as it is.
    """
    del parser  # --replications, --data and --seed would change nothing: not offered


def designs():
    """The unsecured (no noise), optimal and diagonal noise covariances, (9, 9) each."""
    K_XX, K_XS = KERNEL(X), KERNEL(X, SENSITIVE)
    return {
        "unsecured": np.zeros((len(X), len(X))),
        "optimal": optimal_noise_covariance(K_XX, K_XS, DELTA),
        "diagonal": diagonal_noise_covariance(K_XX, K_XS, DELTA),
    }


def posterior_variance(Sigma, at):
    """Posterior variance of f at ``at`` given noiseless data plus noise Sigma."""
    return GaussianProcess(KERNEL, noise=Sigma, jitter=0.0).fit(X, np.zeros(len(X))).predict(at)[1]


def figure1(covariances):
    """Figure 1: heat map of Sigma_opt, noise variances, posterior variance curves."""
    figure, (left, middle, right) = plt.subplots(1, 3, figsize=(PAGE_WIDTH, 2.8))
    image = left.imshow(covariances["optimal"], cmap="YlOrBr", extent=(0.05, 0.95, 0.95, 0.05))
    figure.colorbar(image, ax=left, label="covariance (dimensionless)")
    left.set_title(r"$\Sigma_{opt}$")
    left.set_xlabel(r"input $x_j$ (dimensionless)")
    left.set_ylabel(r"input $x_i$ (dimensionless)")
    width = 0.035
    colours = {"diagonal": "tab:red", "optimal": "limegreen", "unsecured": "tab:blue"}
    for name, shift in (("diagonal", -1), ("optimal", 1)):
        variances = np.diag(covariances[name])
        middle.bar(X + shift * width / 2, variances, width, color=colours[name], label=name)
    middle.set_title("synthetic noise variances")
    middle.set_ylabel("variance (dimensionless)")
    for name, Sigma in covariances.items():
        right.plot(GRID, posterior_variance(Sigma, GRID), color=colours[name], label=name)
    right.axhline(DELTA[0, 0], color="grey", ls=":", lw=1, label=r"required variance $\Delta$")
    right.axvline(SENSITIVE[0], color="grey", ls="--", lw=1, label="sensitive input")
    right.set_title("posterior variance")
    right.set_ylabel("variance (dimensionless)")
    for axis in (middle, right):
        axis.set_xlabel("input x (dimensionless)")
    legend_below(figure, right.get_legend_handles_labels()[0], ncol=5)
    return figure


def table_rows(covariances):
    """The results table: trace, posterior variances and certificate of each noise.

    Parameters
    ----------
    covariances : dict
        :func:`designs`.

    Returns
    -------
    list of dict
        One row per noise: its trace, the posterior variance at x = 0, 0.5 and 1, and
        the margin of its certificate of [TCB] (5) (relative, dimensionless).
    """
    K_XX, K_XS = KERNEL(X), KERNEL(X, SENSITIVE)
    rows = []
    for name, Sigma in covariances.items():
        edges = posterior_variance(Sigma, np.array([0.0, 0.5, 1.0]))
        rows.append(
            {
                "method": name,
                "trace": float(np.trace(Sigma)),
                "posterior_variance_x0": edges[0],
                "posterior_variance_x0.5": edges[1],
                "posterior_variance_x1": edges[2],
                "certificate": privacy_certificate(K_XX, K_XS, DELTA, Sigma).margin,
            }
        )
    return rows


def noise_rows(covariances):
    """Rows of ``noise_variances.csv``: the optimal and diagonal noise variance at each x."""
    optimal, diagonal = np.diag(covariances["optimal"]), np.diag(covariances["diagonal"])
    return [
        {"x": x, "optimal_variance": o, "diagonal_variance": d}
        for x, o, d in zip(X, optimal, diagonal)
    ]


@transactional
def run(out, seed=0, progress=True):
    """Run Example 1; write Figure 1 and the results table into ``out``.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Recorded only (the example is deterministic).
    progress : bool
        Unused (the example is instantaneous).

    Returns
    -------
    dict
        The traces of the optimal and the diagonal noise covariances.

    Notes
    -----
    [TCB] §4.1, Example 1 and Figure 1; :doc:`/theory/privacy-aware-gp`.
    """
    output = StudyOutput(
        out,
        "example1",
        {
            "seed": seed,
            "x": X,
            "sensitive": SENSITIVE,
            "Delta": DELTA,
            "kernel": "exp(-10 (x - x')^2)",
        },
    )
    covariances = designs()
    rows = table_rows(covariances)
    output.write_csv("noise_variances.csv", noise_rows(covariances))
    output.save_figure(figure1(covariances), "figure1_example1")
    output.write_results(rows, Sigma_opt=covariances["optimal"])
    return {
        "out": str(output.folder),
        "trace_optimal": rows[1]["trace"],
        "trace_diagonal": rows[2]["trace"],
    }
