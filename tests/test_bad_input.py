"""A corpus of bad inputs over the library's public API: each gives a clear, one-line error.

Every row of the table is (callable, keyword arguments, exception type, argument name): the
call must raise that exception type, with a one-line message naming the argument as the
user wrote it (the public parameter name). The rows cover wrong types (bool, str,
complex, None where a number is expected), non-finite values, values out of range,
wrong shapes and column counts, empty arrays and degenerate geometry: the categories in
which a silent wrong answer or an unclear traceback was measured. The command
line has its own corpus.
"""

import functools
import re

import control
import numpy as np
import pytest

from ssa_privacy import estimation, gp, plants
from ssa_privacy.attacks import membership, roc, stationary
from ssa_privacy.estimation import ukf as tracking
from ssa_privacy.gp import kernels
from ssa_privacy.gp.baselines import dropout_gp
from ssa_privacy.orbits import elements, frames, planar, propagator, relative_motion
from ssa_privacy.privacy import accounting, posterior_sampling
from ssa_privacy.privacy.dp_gp import (
    binning,
    cloaking,
    ellipsoid,
    hall,
    hyperparameters,
    normalisation,
)
from ssa_privacy.privacy.dp_gp import (
    release as dp_release,
)
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.pml import aggregation
from ssa_privacy.privacy.pml import design as pml_design
from ssa_privacy.privacy.pml import leakage as pml_leakage
from ssa_privacy.privacy.pml import plant as pml_plant
from ssa_privacy.privacy.posterior_sampling import (
    bound as posterior_sampling_bound,
)
from ssa_privacy.sensors import geodesy, stations

CASES = []
NAN, INF = float("nan"), float("inf")
#: Wrong types of a number: each must give a TypeError naming the argument.
WRONG_TYPES = (("bool", True), ("str", "0.5"), ("complex", 1 + 0j), ("None", None))
#: Non-finite values of a number: each must give a ValueError naming the argument.
NON_FINITE = (("nan", NAN), ("inf", INF))


def case(label, function, kwargs, exception, argument):
    """Add a row: ``function(**kwargs)`` raises ``exception`` naming ``argument``."""
    CASES.append(pytest.param(function, kwargs, exception, argument, id=label))


def number_cases(label, function, kwargs, argument, bad=(), types=WRONG_TYPES, finite=True):
    """Rows for one numeric argument: wrong types, non-finite values and the ``bad`` values.

    ``bad`` holds (label, value) pairs out of range (ValueError); ``types`` the wrong
    types (TypeError); ``finite`` adds NaN and inf (ValueError).
    """
    for tag, value in types:
        case(
            f"{label}-{argument}={tag}", function, {**kwargs, argument: value}, TypeError, argument
        )
    for tag, value in (NON_FINITE if finite else ()) + tuple(bad):
        case(
            f"{label}-{argument}={tag}", function, {**kwargs, argument: value}, ValueError, argument
        )


def call(factory, method):
    """A callable running ``getattr(factory(), method)(**kwargs)`` (objects built lazily)."""

    def run(**kwargs):
        return getattr(factory(), method)(**kwargs)

    run.__name__ = method
    return run


# --------------------------------------------------------------------------------------
# Kernels and GP regression
# --------------------------------------------------------------------------------------

X1 = np.linspace(0.0, 1.0, 6)
Y1 = np.sin(3 * X1)
X2 = np.column_stack([X1, X1**2])


@functools.cache
def fitted_gp():
    return gp.GaussianProcess(kernels.RBF(0.3), noise=1e-2).fit(X1, Y1)


for tag, value in (("bool", [True, False]), ("str", ["a", "b"]), ("complex", [1j, 2j])):
    case(f"as_inputs-X={tag}", kernels.as_inputs, {"X": value}, TypeError, "X")
case("as_inputs-X=None", kernels.as_inputs, {"X": None}, TypeError, "X")
case("as_inputs-X=empty", kernels.as_inputs, {"X": []}, ValueError, "X")
case("as_inputs-X=3d", kernels.as_inputs, {"X": np.zeros((2, 2, 2))}, ValueError, "X")
case("as_inputs-X=ragged", kernels.as_inputs, {"X": [[0.0], [1.0, 2.0]]}, ValueError, "X")
case("as_inputs-X=nan", kernels.as_inputs, {"X": [0.0, NAN]}, ValueError, "X")
number_cases("RBF", kernels.RBF, {}, "variance", bad=(("zero", 0.0), ("negative", -1.0)))
case("RBF-lengthscale=bool", kernels.RBF, {"lengthscale": True}, TypeError, "lengthscale")
case("RBF-lengthscale=str", kernels.RBF, {"lengthscale": "1"}, TypeError, "lengthscale")
case("RBF-lengthscale=None", kernels.RBF, {"lengthscale": None}, TypeError, "lengthscale")
case("RBF-lengthscale=nan", kernels.RBF, {"lengthscale": NAN}, ValueError, "lengthscale")
case("RBF-lengthscale=negative", kernels.RBF, {"lengthscale": -1.0}, ValueError, "lengthscale")
case("RBF-lengthscale=empty", kernels.RBF, {"lengthscale": []}, ValueError, "lengthscale")
number_cases("RBF.paper", kernels.RBF.paper, {}, "l", bad=(("zero", 0.0),))
case("Exponential-variance=bool", kernels.Exponential, {"variance": True}, TypeError, "variance")
case(
    "Exponential-lengthscale=0",
    kernels.Exponential,
    {"lengthscale": 0.0},
    ValueError,
    "lengthscale",
)
case("RBF.correlation-widths", kernels.RBF(0.3).correlation, {"A": X2, "B": X1}, ValueError, "B")
case("RBF.__call__-widths", kernels.RBF(0.3), {"A": X1, "B": X2}, ValueError, "B")
case(
    "RBF-lengthscales-vs-columns",
    kernels.RBF([0.3, 0.2, 0.1]),
    {"A": X2},
    ValueError,
    "lengthscale",
)
case("Exponential-widths", kernels.Exponential(0.3), {"A": X2, "B": X1}, ValueError, "B")
case("RBF.diag-X=empty", kernels.RBF(0.3).diag, {"X": []}, ValueError, "X")
case("ScaledKernel-kernel", kernels.ScaledKernel, {"kernel": 1.0}, TypeError, "kernel")
number_cases(
    "ScaledKernel", kernels.ScaledKernel, {"kernel": kernels.RBF()}, "scale", bad=(("zero", 0.0),)
)
case("kernel_matrix-kernel", kernels.kernel_matrix, {"kernel": 3, "A": X1}, TypeError, "kernel")
case(
    "kernel_matrix-widths",
    kernels.kernel_matrix,
    {"kernel": kernels.RBF(), "A": X1, "B": X2},
    ValueError,
    "B",
)
case(
    "kernel_matrix-nan-kernel",
    kernels.kernel_matrix,
    {"kernel": lambda A, B: np.full((len(A), len(B)), NAN), "A": X1},
    ValueError,
    "kernel",
)
case(
    "kernel_diagonal-X=str",
    kernels.kernel_diagonal,
    {"kernel": kernels.RBF(), "X": ["a"]},
    TypeError,
    "X",
)
case("GaussianProcess-kernel", gp.GaussianProcess, {"kernel": "rbf"}, TypeError, "kernel")
number_cases("GaussianProcess", gp.GaussianProcess, {"kernel": kernels.RBF()}, "mean")
number_cases(
    "GaussianProcess",
    gp.GaussianProcess,
    {"kernel": kernels.RBF()},
    "noise",
    bad=(("negative", -1.0),),
    types=WRONG_TYPES[:3],
)
number_cases(
    "GaussianProcess",
    gp.GaussianProcess,
    {"kernel": kernels.RBF()},
    "jitter",
    bad=(("negative", -1.0),),
    types=WRONG_TYPES[:3],
)
fit = call(lambda: gp.GaussianProcess(kernels.RBF(0.3), noise=1e-2), "fit")
case("GaussianProcess.fit-X=empty", fit, {"X": [], "y": []}, ValueError, "X")
case("GaussianProcess.fit-y=short", fit, {"X": X1, "y": Y1[:3]}, ValueError, "y")
case("GaussianProcess.fit-y=nan", fit, {"X": X1, "y": np.full(6, NAN)}, ValueError, "y")
case("GaussianProcess.fit-y=2d", fit, {"X": X1, "y": np.ones((6, 2))}, ValueError, "y")
case("GaussianProcess.fit-X=bool", fit, {"X": X1 > 0.5, "y": Y1}, TypeError, "X")
case(
    "GaussianProcess.fit-noise=shape",
    call(lambda: gp.GaussianProcess(kernels.RBF(), noise=np.eye(3)), "fit"),
    {"X": X1, "y": Y1},
    ValueError,
    "noise",
)
predict = call(fitted_gp, "predict")
case("GaussianProcess.predict-X_star=widths", predict, {"X_star": X2}, ValueError, "X_star")
case("GaussianProcess.predict-X_star=empty", predict, {"X_star": []}, ValueError, "X_star")
case("GaussianProcess.predict-X_star=inf", predict, {"X_star": [INF]}, ValueError, "X_star")
case(
    "GaussianProcess.predict-return_cov=str",
    predict,
    {"X_star": X1, "return_cov": "yes"},
    TypeError,
    "return_cov",
)
case(
    "GaussianProcess.predict-unfitted",
    call(lambda: gp.GaussianProcess(kernels.RBF()), "predict"),
    {"X_star": X1},
    AttributeError,
    "fit",
)
case(
    "cholesky_with_jitter-matrix=nan",
    gp.cholesky_with_jitter,
    {"matrix": np.full((2, 2), NAN), "name": "K"},
    ValueError,
    "K",
)
case(
    "cholesky_with_jitter-jitter=negative",
    gp.cholesky_with_jitter,
    {"matrix": np.eye(2), "jitter": -1.0},
    ValueError,
    "jitter",
)
case("noise_matrix-n=0", gp.noise_matrix, {"noise": 0.1, "n": 0}, ValueError, "n")
case("noise_matrix-noise=str", gp.noise_matrix, {"noise": "0.1", "n": 2}, TypeError, "noise")
case(
    "constant_mean_variance_mle-correlation",
    gp.constant_mean_variance_mle,
    {"correlation": np.ones((2, 3)), "y": [1.0, 2.0]},
    ValueError,
    "correlation",
)
fmv = {"X": X1, "y": Y1, "kernel": kernels.RBF(0.3)}
case(
    "fit_mean_and_variance-y=short", gp.fit_mean_and_variance, {**fmv, "y": Y1[:2]}, ValueError, "y"
)
case(
    "fit_mean_and_variance-kernel",
    gp.fit_mean_and_variance,
    {**fmv, "kernel": 2},
    TypeError,
    "kernel",
)
case(
    "fit_mean_and_variance-zero_mean",
    gp.fit_mean_and_variance,
    {**fmv, "zero_mean": "no"},
    TypeError,
    "zero_mean",
)
fh = {"X": X1, "y": Y1}
number_cases(
    "fit_hyperparameters",
    gp.fit_hyperparameters,
    fh,
    "restarts",
    bad=(("zero", 0), ("fraction", 1.5)),
    types=WRONG_TYPES[:3],
)
case("fit_hyperparameters-seed=-1", gp.fit_hyperparameters, {**fh, "seed": -1}, ValueError, "seed")
case(
    "fit_hyperparameters-seed=float", gp.fit_hyperparameters, {**fh, "seed": 1.5}, TypeError, "seed"
)
case(
    "fit_hyperparameters-noise_ratio_bounds",
    gp.fit_hyperparameters,
    {**fh, "noise_ratio_bounds": (1.0, 0.1)},
    ValueError,
    "noise_ratio_bounds",
)
case(
    "fit_hyperparameters-initial",
    gp.fit_hyperparameters,
    {**fh, "initial": kernels.RBF()},
    TypeError,
    "initial",
)
case(
    "stationary_attack-W=short",
    stationary.stationary_attack,
    {"X": X1, "W": Y1[:2]},
    ValueError,
    "W",
)
case(
    "stationary_attack-W=nan",
    stationary.stationary_attack,
    {"X": X1, "W": Y1 * NAN},
    ValueError,
    "W",
)
dropout = {"gp": gp.GaussianProcess(kernels.RBF(0.3), noise=0.1), "X": X1, "y": Y1}
case(
    "dropout_gp-private=int",
    dropout_gp,
    {**dropout, "private": np.array([0, 1, 2, 0, 1, 2])},
    TypeError,
    "private",
)
case("dropout_gp-private=short", dropout_gp, {**dropout, "private": [True]}, ValueError, "private")
case(
    "dropout_gp-private=all",
    dropout_gp,
    {**dropout, "private": np.ones(6, bool)},
    ValueError,
    "private",
)
case(
    "dropout_gp-gp",
    dropout_gp,
    {**dropout, "gp": kernels.RBF(), "private": np.zeros(6, bool)},
    TypeError,
    "gp",
)
case(
    "dropout_gp-y=short",
    dropout_gp,
    {**dropout, "y": Y1[:2], "private": np.zeros(6, bool)},
    ValueError,
    "y",
)


# --------------------------------------------------------------------------------------
# Attacks
# --------------------------------------------------------------------------------------

S_IN, S_OUT = np.array([0.9, 0.7, 0.8]), np.array([0.1, 0.3, 0.2])
scores = {"scores_in": S_IN, "scores_out": S_OUT}
for function in (roc.auc_score, roc.roc_curve):
    label = function.__name__
    case(f"{label}-scores_in=empty", function, {**scores, "scores_in": []}, ValueError, "scores_in")
    case(
        f"{label}-scores_out=nan",
        function,
        {**scores, "scores_out": [NAN]},
        ValueError,
        "scores_out",
    )
    case(f"{label}-scores_in=str", function, {**scores, "scores_in": ["a"]}, TypeError, "scores_in")
number_cases(
    "tpr_at_fpr", roc.tpr_at_fpr, {**scores, "fpr": 0.1}, "fpr", bad=(("zero", 0.0), ("one", 1.0))
)
case(
    "evaluate_attack-fprs",
    roc.evaluate_attack,
    {"name": "a", **scores, "fprs": (0.1, 1.5)},
    ValueError,
    "fprs",
)
case("evaluate_attack-name", roc.evaluate_attack, {"name": 3, **scores}, TypeError, "name")
dp_region = {"fpr": 0.1, "epsilon": 1.0, "delta": 1e-5}
number_cases(
    "max_tpr_under_dp",
    roc.max_tpr_under_dp,
    dp_region,
    "epsilon",
    bad=(("negative", -1.0),),
    finite=False,
)
case(
    "max_tpr_under_dp-epsilon=nan",
    roc.max_tpr_under_dp,
    {**dp_region, "epsilon": NAN},
    ValueError,
    "epsilon",
)
number_cases("max_tpr_under_dp", roc.max_tpr_under_dp, dp_region, "delta", bad=(("above", 1.5),))
case(
    "max_tpr_under_dp-fpr=negative",
    roc.max_tpr_under_dp,
    {**dp_region, "fpr": -0.1},
    ValueError,
    "fpr",
)
case(
    "max_tpr_under_dp-fpr=above",
    roc.max_tpr_under_dp,
    {**dp_region, "fpr": [0.5, 2.0]},
    ValueError,
    "fpr",
)
case(
    "max_tpr_under_dp-fpr=bool", roc.max_tpr_under_dp, {**dp_region, "fpr": True}, TypeError, "fpr"
)
number_cases(
    "max_auc_under_dp",
    roc.max_auc_under_dp,
    {"epsilon": 1.0, "delta": 1e-5},
    "epsilon",
    bad=(("negative", -1.0),),
    finite=False,
)
number_cases(
    "max_auc_under_dp",
    roc.max_auc_under_dp,
    {"epsilon": 1.0, "delta": 1e-5},
    "delta",
    bad=(("negative", -0.5),),
)
values = np.ones((4, 3))
number_cases(
    "release_statistics",
    membership.release_statistics,
    {"values": values},
    "sigma",
    bad=(("zero", 0.0),),
)
case(
    "release_statistics-values=1d",
    membership.release_statistics,
    {"values": [1.0], "sigma": 1.0},
    ValueError,
    "values",
)
case(
    "release_statistics-values=empty",
    membership.release_statistics,
    {"values": np.ones((0, 2)), "sigma": 1.0},
    ValueError,
    "values",
)
case(
    "MeanThresholdAttack.fit-f_in",
    membership.MeanThresholdAttack.fit,
    {"f_in": [], "f_out": S_OUT},
    ValueError,
    "f_in",
)
case(
    "MeanThresholdAttack.score-f_hat",
    membership.MeanThresholdAttack(1.0).score,
    {"f_hat": ["x"]},
    TypeError,
    "f_hat",
)
case("LiRA.fit-f_out=nan", membership.LiRA.fit, {"f_in": S_IN, "f_out": [NAN]}, ValueError, "f_out")
case(
    "LiRA.fit-v_out=missing",
    membership.LiRA.fit,
    {"f_in": S_IN, "f_out": S_OUT, "v_in": S_IN},
    ValueError,
    "v_out",
)
case(
    "LiRA.fit-v_in=empty",
    membership.LiRA.fit,
    {"f_in": S_IN, "f_out": S_OUT, "v_in": [], "v_out": S_OUT},
    ValueError,
    "v_in",
)
case(
    "LiRA.fit-starts=bool",
    membership.LiRA.fit,
    {"f_in": S_IN, "f_out": S_OUT, "starts": True},
    TypeError,
    "starts",
)
case(
    "LiRA.fit-starts=1",
    membership.LiRA.fit,
    {"f_in": S_IN, "f_out": S_OUT, "starts": 1},
    ValueError,
    "starts",
)
case(
    "LiRA.fit-seed=str",
    membership.LiRA.fit,
    {"f_in": S_IN, "f_out": S_OUT, "seed": "1"},
    TypeError,
    "seed",
)
case(
    "LogMixtureDensity.fit-samples",
    membership.LogMixtureDensity.fit,
    {"samples": []},
    ValueError,
    "samples",
)
case(
    "LatentMixtureDensity.fit-samples",
    membership.LatentMixtureDensity.fit,
    {"samples": [INF]},
    ValueError,
    "samples",
)


# --------------------------------------------------------------------------------------
# Accounting and the PML closed forms
# --------------------------------------------------------------------------------------

number_cases("c_delta", accounting.c_delta, {}, "delta", bad=(("zero", 0.0), ("one", 1.0)))
gmd = {"mahalanobis_sensitivity": 1.0, "epsilon": 1.0}
number_cases(
    "gaussian_mechanism_delta",
    accounting.gaussian_mechanism_delta,
    gmd,
    "epsilon",
    bad=(("negative", -1.0),),
)
case(
    "gaussian_mechanism_delta-m=negative",
    accounting.gaussian_mechanism_delta,
    {**gmd, "mahalanobis_sensitivity": -1.0},
    ValueError,
    "mahalanobis_sensitivity",
)
case(
    "gaussian_mechanism_delta-m=bool",
    accounting.gaussian_mechanism_delta,
    {**gmd, "mahalanobis_sensitivity": True},
    TypeError,
    "mahalanobis_sensitivity",
)
number_cases(
    "privacy_loss_tail", accounting.privacy_loss_tail, gmd, "epsilon", bad=(("negative", -0.1),)
)
nm = {"epsilon": 0.5, "delta": 1e-3}
number_cases("noise_multiplier", accounting.noise_multiplier, nm, "epsilon", bad=(("zero", 0.0),))
number_cases("noise_multiplier", accounting.noise_multiplier, nm, "delta", bad=(("one", 1.0),))
case(
    "noise_multiplier-calibration",
    accounting.noise_multiplier,
    {**nm, "calibration": 1},
    ValueError,
    "calibration",
)
agr = {"epsilon_DP": 1.0, "delta_DP": 1e-5}
number_cases(
    "analytic_gaussian_ratio",
    accounting.analytic_gaussian_ratio,
    agr,
    "epsilon_DP",
    bad=(("negative", -1.0),),
)
number_cases(
    "analytic_gaussian_ratio",
    accounting.analytic_gaussian_ratio,
    agr,
    "delta_DP",
    bad=(("zero", 0.0),),
)
gdp = {"C": np.eye(2), "Theta": np.eye(2), "epsilon_DP": 1.0, "zeta": 1.0}
number_cases(
    "gaussian_mechanism_dp_delta",
    accounting.gaussian_mechanism_dp_delta,
    gdp,
    "zeta",
    bad=(("zero", 0.0),),
)
number_cases(
    "gaussian_mechanism_dp_delta",
    accounting.gaussian_mechanism_dp_delta,
    gdp,
    "epsilon_DP",
    bad=(("negative", -1.0),),
)
case(
    "gaussian_mechanism_dp_delta-C=shape",
    accounting.gaussian_mechanism_dp_delta,
    {**gdp, "C": np.eye(3)},
    ValueError,
    "C",
)
case(
    "gaussian_mechanism_dp_delta-Theta=singular",
    accounting.gaussian_mechanism_dp_delta,
    {**gdp, "Theta": np.zeros((2, 2))},
    ValueError,
    "Theta",
)
p2d = {"Sigma_XX": np.eye(2), "epsilon": 6.0, "delta": 0.01, "l": 2, "epsilon_DP": 1.0, "zeta": 0.1}
number_cases("pml_to_dp_delta", accounting.pml_to_dp_delta, p2d, "zeta", bad=(("negative", -1.0),))
number_cases(
    "pml_to_dp_delta", accounting.pml_to_dp_delta, p2d, "epsilon_DP", bad=(("negative", -1.0),)
)
case("pml_to_dp_delta-l=0", accounting.pml_to_dp_delta, {**p2d, "l": 0}, ValueError, "l")
case("pml_to_dp_delta-l=bool", accounting.pml_to_dp_delta, {**p2d, "l": True}, TypeError, "l")
case(
    "pml_to_dp_delta-Sigma_XX=singular",
    accounting.pml_to_dp_delta,
    {**p2d, "Sigma_XX": np.zeros((2, 2))},
    ValueError,
    "Sigma_XX",
)
case(
    "pml_to_dp_delta-epsilon=str",
    accounting.pml_to_dp_delta,
    {**p2d, "epsilon": "6"},
    TypeError,
    "epsilon",
)
d2p = {
    "Sigma_XX": np.eye(2),
    "epsilon_DP": 1.0,
    "delta_DP": 1e-5,
    "zeta": 0.1,
    "delta": 0.01,
    "l": 2,
}
number_cases("dp_to_pml_epsilon", accounting.dp_to_pml_epsilon, d2p, "delta", bad=(("one", 1.0),))
number_cases("dp_to_pml_epsilon", accounting.dp_to_pml_epsilon, d2p, "zeta", bad=(("zero", 0.0),))
case("dp_to_pml_epsilon-l=2.5", accounting.dp_to_pml_epsilon, {**d2p, "l": 2.5}, ValueError, "l")
case(
    "dp_to_pml_epsilon-convention",
    accounting.dp_to_pml_epsilon,
    {**d2p, "convention": "both"},
    ValueError,
    "convention",
)
number_cases(
    "pml_to_mi_epsilon",
    accounting.pml_to_mi_epsilon,
    {"epsilon": 6.0, "delta": 0.01, "l": 1},
    "epsilon",
    bad=(("infeasible", 0.1),),
)
number_cases(
    "mi_to_pml_epsilon",
    accounting.mi_to_pml_epsilon,
    {"epsilon_MI": 1.0, "delta": 0.01, "l": 1},
    "epsilon_MI",
    bad=(("zero", 0.0),),
)
number_cases(
    "mi_to_pml_epsilon",
    accounting.mi_to_pml_epsilon,
    {"epsilon_MI": 1.0, "delta": 0.01, "l": 1},
    "delta",
    bad=(("zero", 0.0),),
)
me = {"delta": 0.01, "l": 2}
number_cases(
    "minimum_epsilon",
    accounting.minimum_epsilon,
    me,
    "delta",
    bad=(("negative", -0.1),),
    types=WRONG_TYPES,
)
number_cases(
    "minimum_epsilon", accounting.minimum_epsilon, me, "l", bad=(("zero", 0), ("fraction", 1.5))
)
case(
    "minimum_epsilon-delta=array",
    accounting.minimum_epsilon,
    {**me, "delta": [0.1, 2.0]},
    ValueError,
    "delta",
)
ldb = {"epsilon": 6.0, "delta": 0.01, "l": 2}
number_cases(
    "log_det_ratio_bound",
    accounting.log_det_ratio_bound,
    ldb,
    "epsilon",
    bad=(("infeasible", 1.0),),
)
case(
    "log_det_ratio_bound-convention",
    accounting.log_det_ratio_bound,
    {**ldb, "convention": None},
    ValueError,
    "convention",
)
kp = {"epsilon": 6.0, "delta": 0.01, "n": 2, "l": 2}
number_cases(
    "kappa", pml_leakage.kappa, kp, "n", bad=(("negative", -2), ("zero", 0), ("fraction", 2.5))
)
number_cases("kappa", pml_leakage.kappa, kp, "delta", bad=(("one", 1.0),))
case(
    "check_epsilon-epsilon=complex",
    accounting.check_epsilon,
    {"epsilon": 6j, "delta": 0.01, "l": 1},
    TypeError,
    "epsilon",
)
S3 = {"Sigma_XX": np.eye(2), "Sigma_XY": 0.5 * np.eye(2), "Sigma_YY": np.eye(2)}
case(
    "mutual_information-Sigma_XY=shape",
    pml_leakage.mutual_information,
    {**S3, "Sigma_XY": np.eye(3)},
    ValueError,
    "Sigma_XY",
)
case(
    "mutual_information-Sigma_YY=nan",
    pml_leakage.mutual_information,
    {**S3, "Sigma_YY": np.full((2, 2), NAN)},
    ValueError,
    "Sigma_YY",
)
case(
    "mutual_information-Sigma_XX=empty",
    pml_leakage.mutual_information,
    {**S3, "Sigma_XX": np.zeros((0, 0))},
    ValueError,
    "Sigma_XX",
)
case(
    "mutual_information-Sigma_XX=str",
    pml_leakage.mutual_information,
    {**S3, "Sigma_XX": "eye"},
    TypeError,
    "Sigma_XX",
)
pml_y = {**S3, "y": [0.1, 0.2]}
case(
    "pointwise_maximal_leakage-y=shape",
    pml_leakage.pointwise_maximal_leakage,
    {**pml_y, "y": [0.1]},
    ValueError,
    "y",
)
case(
    "pointwise_maximal_leakage-mu_X=str",
    pml_leakage.pointwise_maximal_leakage,
    {**pml_y, "mu_X": "0"},
    TypeError,
    "mu_X",
)
case(
    "pointwise_maximal_leakage-mu_Y=nan",
    pml_leakage.pointwise_maximal_leakage,
    {**pml_y, "mu_Y": [NAN, 0.0]},
    ValueError,
    "mu_Y",
)
case(
    "pointwise_maximal_leakage-mu_Y=shape",
    pml_leakage.pointwise_maximal_leakage,
    {**pml_y, "mu_Y": [0.0]},
    ValueError,
    "mu_Y",
)
number_cases(
    "leakage_probability", pml_leakage.leakage_probability, {**S3, "epsilon": 1.0}, "epsilon"
)
pm = {**S3, "epsilon": 6.0, "delta": 0.01}
number_cases("pml_margin", pml_leakage.pml_margin, pm, "delta", bad=(("negative", -0.5),))
number_cases("pml_margin", pml_leakage.pml_margin, pm, "epsilon")
case(
    "is_pml_private-atol=negative",
    pml_leakage.is_pml_private,
    {**pm, "atol": -1.0},
    ValueError,
    "atol",
)
case("is_pml_private-atol=str", pml_leakage.is_pml_private, {**pm, "atol": "0"}, TypeError, "atol")
lmc = {"C": np.eye(2), "Sigma_XX": np.eye(2), "Theta": np.eye(2)}
case(
    "linear_mechanism_covariances-C=width",
    pml_leakage.linear_mechanism_covariances,
    {**lmc, "C": np.ones((2, 3))},
    ValueError,
    "C",
)
case(
    "linear_mechanism_covariances-C=empty",
    pml_leakage.linear_mechanism_covariances,
    {**lmc, "C": np.ones((0, 2))},
    ValueError,
    "C",
)
case(
    "linear_mechanism_covariances-Theta=indefinite",
    pml_leakage.linear_mechanism_covariances,
    {**lmc, "Theta": -np.eye(2)},
    ValueError,
    "Theta",
)
case(
    "gaussian_mechanism-Z=shape",
    pml_leakage.gaussian_mechanism,
    {"Z": np.ones(3), "Theta": np.eye(2)},
    ValueError,
    "Z",
)
case(
    "gaussian_mechanism-rng=str",
    pml_leakage.gaussian_mechanism,
    {"Z": np.ones(2), "Theta": np.eye(2), "rng": "0"},
    TypeError,
    "rng",
)
mc = {**lmc, "epsilon": 3.0, "samples": 10}
number_cases(
    "monte_carlo_leakage_probability",
    pml_leakage.monte_carlo_leakage_probability,
    mc,
    "samples",
    bad=(("zero", 0), ("fraction", 2.5)),
)
number_cases(
    "monte_carlo_leakage_probability",
    pml_leakage.monte_carlo_leakage_probability,
    mc,
    "confidence",
    bad=(("one", 1.0),),
)
number_cases(
    "monte_carlo_leakage_probability", pml_leakage.monte_carlo_leakage_probability, mc, "epsilon"
)


# --------------------------------------------------------------------------------------
# DP-GP: cloaking, Hall's mechanism, binning, hyperparameters, normalisation, ellipsoid
# --------------------------------------------------------------------------------------

XT, XS = np.array([0.0, 1.0, 2.0, 3.0, 4.0]), np.array([0.5, 2.5])
YT = np.array([0.5, 1.0, -0.3, 0.2, 0.9])
RBF1 = kernels.RBF(1.0)
K_SX, K_XX, K_SS = RBF1(XS, XT), RBF1(XT), RBF1(XS)
level = {"epsilon": 1.0, "delta": 0.01, "sensitivity": 1.0}


@functools.cache
def cloaking_mechanism():
    return cloaking.CloakingMechanism(K_SX, K_XX, 0.5, **level)


@functools.cache
def hall_mechanism():
    return hall.StandardDPGPMechanism(K_SX, K_XX, 0.5, K_SS, **level)


cm = {"K_star_X": K_SX, "K_XX": K_XX, "noise_variance": 0.5, **level}
for argument in ("epsilon", "delta", "sensitivity"):
    number_cases(
        "CloakingMechanism",
        cloaking.CloakingMechanism,
        cm,
        argument,
        bad=(("negative", -1.0),),
        types=WRONG_TYPES[:3],
    )
number_cases("CloakingMechanism", cloaking.CloakingMechanism, cm, "mean")
number_cases(
    "CloakingMechanism",
    cloaking.CloakingMechanism,
    cm,
    "noise_variance",
    bad=(("negative", -1.0),),
    types=WRONG_TYPES[:3],
)
number_cases(
    "CloakingMechanism", cloaking.CloakingMechanism, cm, "rtol", bad=(("zero", 0.0), ("one", 1.0))
)
number_cases("CloakingMechanism", cloaking.CloakingMechanism, cm, "tol", bad=(("zero", 0.0),))
case(
    "CloakingMechanism-calibration",
    cloaking.CloakingMechanism,
    {**cm, "calibration": "laplace"},
    ValueError,
    "calibration",
)
case(
    "CloakingMechanism-K_star_X=shape",
    cloaking.CloakingMechanism,
    {**cm, "K_star_X": np.ones((2, 4))},
    ValueError,
    "K_star_X",
)
case(
    "CloakingMechanism-K_XX=asymmetric",
    cloaking.CloakingMechanism,
    {**cm, "K_XX": np.triu(K_XX)},
    ValueError,
    "K_XX",
)
case(
    "CloakingMechanism-K_XX=empty",
    cloaking.CloakingMechanism,
    {**cm, "K_XX": np.zeros((0, 0)), "K_star_X": np.zeros((2, 0))},
    ValueError,
    "K_XX",
)
case(
    "CloakingMechanism-missing",
    cloaking.CloakingMechanism,
    {**cm, "delta": None},
    ValueError,
    "delta",
)
fk = {"kernel": RBF1, "noise_variance": 0.5, "X": XT, "X_star": XS, **level}
case(
    "CloakingMechanism.from_kernel-widths",
    cloaking.CloakingMechanism.from_kernel,
    {**fk, "X_star": np.ones((2, 2))},
    ValueError,
    "X_star",
)
case(
    "CloakingMechanism.from_kernel-kernel",
    cloaking.CloakingMechanism.from_kernel,
    {**fk, "kernel": "rbf"},
    TypeError,
    "kernel",
)
case(
    "CloakingMechanism.from_kernel-X=empty",
    cloaking.CloakingMechanism.from_kernel,
    {**fk, "X": []},
    ValueError,
    "X",
)
at = call(cloaking_mechanism, "at")
number_cases(
    "CloakingMechanism.at",
    at,
    {"epsilon": 1.0, "delta": 0.01},
    "epsilon",
    bad=(("zero", 0.0),),
    types=WRONG_TYPES[:3],
)
case(
    "CloakingMechanism.at-mean=nan",
    at,
    {"epsilon": 1.0, "delta": 0.01, "mean": NAN},
    ValueError,
    "mean",
)
cm_release = call(cloaking_mechanism, "release")
case("CloakingMechanism.release-y=short", cm_release, {"y": YT[:3]}, ValueError, "y")
case("CloakingMechanism.release-y=nan", cm_release, {"y": YT * NAN}, ValueError, "y")
case("CloakingMechanism.release-seed=float", cm_release, {"y": YT, "seed": 0.5}, TypeError, "seed")
case("CloakingMechanism.release-level", cm_release, {"y": YT, **level}, TypeError, "epsilon")
case("CloakingMechanism.release-seed=-1", cm_release, {"y": YT, "seed": -1}, ValueError, "seed")
case(
    "CloakingMechanism.with_noise-shape",
    call(cloaking_mechanism, "with_noise"),
    {"noise_covariance": np.eye(3)},
    ValueError,
    "noise_covariance",
)
case(
    "CloakingMechanism.with_noise-nan",
    call(cloaking_mechanism, "with_noise"),
    {"noise_covariance": np.full((2, 2), NAN)},
    ValueError,
    "noise_covariance",
)
number_cases("CloakingMechanism.from_kernel", cloaking.CloakingMechanism.from_kernel, fk, "mean")
case("CloakingMechanism.release-seed=str", cm_release, {"y": YT, "seed": "0"}, TypeError, "seed")
case(
    "CloakingMechanism.from_kernel-epsilon=2-hall",
    cloaking.CloakingMechanism.from_kernel,
    {**fk, "epsilon": 2.0, "calibration": "hall"},
    ValueError,
    "epsilon",
)
cnc = {
    "K_star_X": K_SX,
    "K_XX": K_XX,
    "noise_variance": 0.5,
    "epsilon": 1.0,
    "delta": 0.01,
    "sensitivity": 1.0,
}
number_cases(
    "CloakingMechanism",
    cloaking.CloakingMechanism,
    cnc,
    "sensitivity",
    bad=(("zero", 0.0),),
    types=WRONG_TYPES[:3],
)
rk = {"K_XX": K_XX, "noise_variance": 0.5, "sensitivity": 1.0}
number_cases("rkhs_sensitivity", hall.rkhs_sensitivity, rk, "sensitivity", bad=(("zero", 0.0),))
case("rkhs_sensitivity-method", hall.rkhs_sensitivity, {**rk, "method": None}, ValueError, "method")
case(
    "rkhs_sensitivity-noise_variance=matrix",
    hall.rkhs_sensitivity,
    {**rk, "noise_variance": np.eye(3)},
    ValueError,
    "noise_variance",
)
sd = {"K_star_X": K_SX, "K_XX": K_XX, "noise_variance": 0.5, "K_star_star": K_SS, **level}
number_cases("StandardDPGPMechanism", hall.StandardDPGPMechanism, sd, "mean")
number_cases(
    "StandardDPGPMechanism",
    hall.StandardDPGPMechanism,
    sd,
    "epsilon",
    bad=(("zero", 0.0),),
    types=WRONG_TYPES[:3],
)
case(
    "StandardDPGPMechanism-K_star_star=shape",
    hall.StandardDPGPMechanism,
    {**sd, "K_star_star": np.eye(3)},
    ValueError,
    "K_star_star",
)
case(
    "StandardDPGPMechanism-method",
    hall.StandardDPGPMechanism,
    {**sd, "method": "other"},
    ValueError,
    "method",
)
case(
    "StandardDPGPMechanism.release-y=str",
    call(hall_mechanism, "release"),
    {"y": ["a"] * 5},
    TypeError,
    "y",
)
case(
    "StandardDPGPMechanism.release-seed=bool",
    call(hall_mechanism, "release"),
    {"y": YT, "seed": True},
    TypeError,
    "seed",
)
case(
    "StandardDPGPMechanism.from_kernel-widths",
    hall.StandardDPGPMechanism.from_kernel,
    {**fk, "X": np.ones((5, 2))},
    ValueError,
    "X_star",
)
sd_release = call(hall_mechanism, "release")
case("StandardDPGPMechanism.release-seed=-3", sd_release, {"y": YT, "seed": -3}, ValueError, "seed")
case("StandardDPGPMechanism.release-y=long", sd_release, {"y": np.ones(7)}, ValueError, "y")
lb = {"X": [0.2, 0.4, 1.5, 2.5], "edges": [0.0, 1.0, 2.0, 3.0], "epsilon": 1.0, "sensitivity": 2.0}
number_cases(
    "LaplaceBinningMechanism", binning.LaplaceBinningMechanism, lb, "epsilon", bad=(("zero", 0.0),)
)
number_cases(
    "LaplaceBinningMechanism",
    binning.LaplaceBinningMechanism,
    lb,
    "sensitivity",
    bad=(("negative", -2.0),),
)
case(
    "LaplaceBinningMechanism-edges=None",
    binning.LaplaceBinningMechanism,
    {**lb, "edges": None},
    TypeError,
    "edges",
)
case(
    "LaplaceBinningMechanism-edges=scalar",
    binning.LaplaceBinningMechanism,
    {**lb, "edges": 1.0},
    TypeError,
    "edges",
)
case(
    "LaplaceBinningMechanism-edges=decreasing",
    binning.LaplaceBinningMechanism,
    {**lb, "edges": [3.0, 2.0, 1.0]},
    ValueError,
    "edges",
)
case(
    "LaplaceBinningMechanism-edges=nan",
    binning.LaplaceBinningMechanism,
    {**lb, "edges": [0.0, NAN, 3.0]},
    ValueError,
    "edges",
)
case(
    "LaplaceBinningMechanism-X=outside",
    binning.LaplaceBinningMechanism,
    {**lb, "X": [0.2, 9.0]},
    ValueError,
    "training inputs",
)
case(
    "LaplaceBinningMechanism-X=empty",
    binning.LaplaceBinningMechanism,
    {**lb, "X": []},
    ValueError,
    "X",
)
lb_release = call(functools.cache(lambda: binning.LaplaceBinningMechanism(**lb)), "release")
LB_Y = [0.1, 0.3, -0.2, 0.5]
case("LaplaceBinningMechanism.release-y=short", lb_release, {"y": [0.1]}, ValueError, "y")
case(
    "LaplaceBinningMechanism.release-seed=str",
    lb_release,
    {"y": LB_Y, "seed": "x"},
    TypeError,
    "seed",
)


@functools.cache
def binned():
    return binning.LaplaceBinningMechanism(**lb).release(LB_Y, seed=0).details["binned"]


case(
    "simple_binning_predict-binned",
    binning.simple_binning_predict,
    {"binned": [1.0], "X_star": [0.5]},
    TypeError,
    "binned",
)
case(
    "simple_binning_predict-X_star=widths",
    lambda **kw: binning.simple_binning_predict(binned(), **kw),
    {"X_star": np.ones((2, 2))},
    ValueError,
    "X_star",
)
case(
    "simple_binning_predict-fill=nan",
    lambda **kw: binning.simple_binning_predict(binned(), **kw),
    {"X_star": [0.5], "fill": NAN},
    ValueError,
    "fill",
)
case(
    "simple_binning_predict-fill=str",
    lambda **kw: binning.simple_binning_predict(binned(), **kw),
    {"X_star": [0.5], "fill": "0"},
    TypeError,
    "fill",
)
case(
    "integral_binning_predict-restarts=0",
    lambda **kw: binning.integral_binning_predict(binned(), **kw),
    {"X_star": [0.5], "restarts": 0},
    ValueError,
    "restarts",
)
case(
    "integral_binning_predict-X_star=widths",
    lambda **kw: binning.integral_binning_predict(binned(), **kw),
    {"X_star": np.ones((2, 2))},
    ValueError,
    "X_star",
)
number_cases("IntegralRBF", binning.IntegralRBF, {}, "lengthscale", bad=(("zero", 0.0),))
case(
    "IntegralRBF-B=widths",
    binning.IntegralRBF(),
    {"A": np.zeros((1, 2)), "B": np.zeros((1, 4))},
    ValueError,
    "B",
)
case("IntegralRBF-A=odd", binning.IntegralRBF(), {"A": np.zeros((1, 3))}, ValueError, "A")
sh = {
    "X": np.linspace(0, 1, 10),
    "y": np.zeros(10),
    "lengthscales": [0.3],
    "noise_variances": [0.1],
    "epsilon": 1.0,
    "sensitivity": 1.0,
}
number_cases(
    "select_hyperparameters",
    hyperparameters.select_hyperparameters,
    sh,
    "folds",
    bad=(("zero", 0),),
    types=WRONG_TYPES[:3],
)
number_cases(
    "select_hyperparameters",
    hyperparameters.select_hyperparameters,
    sh,
    "test_fraction",
    bad=(("one", 1.0),),
)
case(
    "select_hyperparameters-lengthscales=empty",
    hyperparameters.select_hyperparameters,
    {**sh, "lengthscales": []},
    ValueError,
    "lengthscales",
)
case(
    "select_hyperparameters-noise_variances=negative",
    hyperparameters.select_hyperparameters,
    {**sh, "noise_variances": [-0.1]},
    ValueError,
    "noise_variances",
)
case(
    "select_hyperparameters-release",
    hyperparameters.select_hyperparameters,
    {**sh, "release": (2.0, 0.01)},
    ValueError,
    "release",
)
case(
    "select_hyperparameters-progress",
    hyperparameters.select_hyperparameters,
    {**sh, "progress": "no"},
    TypeError,
    "progress",
)
case(
    "select_hyperparameters-y=short",
    hyperparameters.select_hyperparameters,
    {**sh, "y": np.zeros(3)},
    ValueError,
    "y",
)
number_cases(
    "clip_and_normalise",
    normalisation.clip_and_normalise,
    {"y": [1.0, 2.0, 3.0]},
    "sensitivity",
    bad=(("zero", 0.0),),
)
case(
    "clip_and_normalise-clip=bool",
    normalisation.clip_and_normalise,
    {"y": [1.0, 2.0], "sensitivity": 1.0, "clip": True},
    TypeError,
    "clip",
)
case(
    "clip_and_normalise-clip=nan",
    normalisation.clip_and_normalise,
    {"y": [1.0, 2.0], "sensitivity": 1.0, "clip": NAN},
    ValueError,
    "clip",
)
case(
    "clip_and_normalise-clip=name",
    normalisation.clip_and_normalise,
    {"y": [1.0, 2.0], "sensitivity": 1.0, "clip": "mode"},
    ValueError,
    "clip",
)
case(
    "clip_and_normalise-y=empty",
    normalisation.clip_and_normalise,
    {"y": [], "sensitivity": 1.0},
    ValueError,
    "y",
)
on = {"centre": 0.0, "raw_sensitivity": 1.0, "mean": 0.0, "std": 1.0, "n_clipped": 0}
number_cases(
    "OutputNormalisation", normalisation.OutputNormalisation, on, "std", bad=(("zero", 0.0),)
)
case(
    "OutputNormalisation-n_clipped=-1",
    normalisation.OutputNormalisation,
    {**on, "n_clipped": -1},
    ValueError,
    "n_clipped",
)
case(
    "OutputNormalisation.unnormalise-f",
    normalisation.OutputNormalisation(**on).unnormalise,
    {"f": [NAN]},
    ValueError,
    "f",
)
case(
    "cloaking_matrix-noise_variance=nan",
    dp_release.cloaking_matrix,
    {"K_star_X": K_SX, "K_XX": K_XX, "noise_variance": NAN},
    ValueError,
    "noise_variance",
)
case(
    "cloaking_matrix-K_star_X=1d",
    dp_release.cloaking_matrix,
    {"K_star_X": np.ones(5), "K_XX": K_XX, "noise_variance": 0.5},
    ValueError,
    "K_star_X",
)
gc = {
    "mechanism": "m",
    "mahalanobis_sensitivity": 0.5,
    "epsilon": 1.0,
    "delta": 0.01,
    "calibration": "analytic",
}
number_cases("gaussian_check", dp_release.gaussian_check, gc, "delta", bad=(("zero", 0.0),))
case(
    "gaussian_check-m=negative",
    dp_release.gaussian_check,
    {**gc, "mahalanobis_sensitivity": -1.0},
    ValueError,
    "mahalanobis_sensitivity",
)
case(
    "gaussian_check-m=nan",
    dp_release.gaussian_check,
    {**gc, "mahalanobis_sensitivity": NAN},
    ValueError,
    "mahalanobis_sensitivity",
)
case(
    "mahalanobis_sensitivity-noise",
    dp_release.mahalanobis_sensitivity,
    {"noise_covariance": np.eye(2), "shifts": np.eye(2)},
    TypeError,
    "noise_covariance",
)
case(
    "mahalanobis_sensitivity-shifts",
    dp_release.mahalanobis_sensitivity,
    {"noise_covariance": FactoredCovariance.from_matrix(np.eye(2)), "shifts": np.eye(3)},
    ValueError,
    "shifts",
)
case(
    "PrivacyCheck.from_certificate",
    dp_release.PrivacyCheck.from_certificate,
    {"certificate": {"epsilon": 1}},
    TypeError,
    "certificate",
)
POINTS = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
number_cases(
    "minimum_volume_ellipsoid",
    ellipsoid.minimum_volume_ellipsoid,
    {"C": POINTS},
    "max_iter",
    bad=(("zero", 0),),
    types=WRONG_TYPES[:3],
)
number_cases(
    "minimum_volume_ellipsoid",
    ellipsoid.minimum_volume_ellipsoid,
    {"C": POINTS},
    "tol",
    bad=(("negative", -1e-8),),
)
case(
    "minimum_volume_ellipsoid-C=zero",
    ellipsoid.minimum_volume_ellipsoid,
    {"C": np.zeros((2, 3))},
    ValueError,
    "C",
)
case(
    "minimum_volume_ellipsoid-C=empty",
    ellipsoid.minimum_volume_ellipsoid,
    {"C": np.zeros((2, 0))},
    ValueError,
    "C",
)
case(
    "d_optimal_design-points=nan",
    ellipsoid.d_optimal_design,
    {"points": POINTS * NAN},
    ValueError,
    "points",
)
case(
    "d_optimal_design-max_iter=0",
    ellipsoid.d_optimal_design,
    {"points": POINTS, "max_iter": 0},
    ValueError,
    "max_iter",
)
number_cases(
    "projected_gradient_design",
    ellipsoid.projected_gradient_design,
    {"C": POINTS},
    "learning_rate",
    bad=(("zero", 0.0),),
)
case(
    "projected_gradient_design-seed=-1",
    ellipsoid.projected_gradient_design,
    {"C": POINTS, "seed": -1},
    ValueError,
    "seed",
)
mve = ellipsoid.minimum_volume_ellipsoid(POINTS)
case(
    "MinimumVolumeEllipsoid.sample-size=0",
    mve.sample,
    {"rng": np.random.default_rng(0), "size": 0},
    ValueError,
    "size",
)
case("MinimumVolumeEllipsoid.sample-rng=int", mve.sample, {"rng": 0, "size": 2}, TypeError, "rng")
case(
    "MinimumVolumeEllipsoid.mahalanobis_squared-C",
    mve.mahalanobis_squared,
    {"C": np.ones((3, 2))},
    ValueError,
    "C",
)


# --------------------------------------------------------------------------------------
# Posterior sampling, PML design, the factored covariance
# --------------------------------------------------------------------------------------

ps = posterior_sampling
psb = posterior_sampling_bound
vsb = {"n": 10, "ridge": 1.0, "kappa": 0.5}
number_cases(
    "variance_scale_bound", psb.variance_scale_bound, vsb, "n", bad=(("zero", 0), ("fraction", 2.5))
)
number_cases(
    "variance_scale_bound",
    psb.variance_scale_bound,
    vsb,
    "kappa",
    bad=(("above", 1.5), ("negative", -0.1)),
)
number_cases("phi_bound", psb.phi_bound, {"V": 0.5, "ridge": 1.0}, "ridge", bad=(("zero", 0.0),))
number_cases("kappa_exp_1d", psb.kappa_exp_1d, {}, "lengthscale", bad=(("zero", 0.0),))
number_cases(
    "mean_sensitivity_exp_1d",
    psb.mean_sensitivity_exp_1d,
    {"n": 10, "ridge": 1.0, "lengthscale": 1.0},
    "response_bound",
    bad=(("zero", 0.0),),
)
number_cases(
    "mean_sensitivity_generic",
    psb.mean_sensitivity_generic,
    vsb,
    "factor",
    bad=(("negative", -2.0),),
)
case("psi-beta=one", psb.psi, {"beta": 1.0, "tau": 1.0}, ValueError, "beta")
case("psi-beta=array", psb.psi, {"beta": [0.5, 0.0], "tau": 1.0}, ValueError, "beta")
case("psi-tau=zero", psb.psi, {"beta": 0.5, "tau": 0.0}, ValueError, "tau")
case("psi-tau=str", psb.psi, {"beta": 0.5, "tau": "1"}, TypeError, "tau")
psbound = {"V": 0.5, "Delta": 0.3, "ridge": 1.0, "sigma": 2.0}
number_cases(
    "PosteriorSamplingBound",
    psb.PosteriorSamplingBound,
    psbound,
    "sigma",
    bad=(("zero", 0.0), ("negative", -1.0)),
    finite=False,
)
case(
    "PosteriorSamplingBound-sigma=nan",
    psb.PosteriorSamplingBound,
    {**psbound, "sigma": NAN},
    ValueError,
    "sigma",
)
number_cases(
    "PosteriorSamplingBound",
    psb.PosteriorSamplingBound,
    psbound,
    "eta",
    bad=(("negative", -1.0),),
    types=WRONG_TYPES[:3],
)
bound = psb.PosteriorSamplingBound(**psbound)
number_cases(
    "PosteriorSamplingBound.rdp", bound.rdp, {}, "alpha", bad=(("one", 1.0), ("below", 0.5))
)
case("PosteriorSamplingBound.rdp_beta-beta", bound.rdp_beta, {"beta": 1.5}, ValueError, "beta")
number_cases(
    "PosteriorSamplingBound.epsilon",
    bound.epsilon,
    {"delta": 1e-5},
    "paths",
    bad=(("zero", 0),),
    types=WRONG_TYPES[:3],
)
number_cases("PosteriorSamplingBound.epsilon", bound.epsilon, {}, "delta", bad=(("zero", 0.0),))
number_cases("PosteriorSamplingBound.delta", bound.delta, {}, "epsilon", bad=(("negative", -1.0),))
efd = {"delta": 1e-5, "n": 10, "lengthscale": 1.0, "ridge": 3.0, "sigma": 1.0}
number_cases("epsilon_for_delta", psb.epsilon_for_delta, efd, "ridge", bad=(("zero", 0.0),))
dfe = {"epsilon": 1.0, "n": 10, "lengthscale": 1.0, "ridge": 3.0, "sigma": 1.0}
number_cases(
    "delta_for_epsilon", psb.delta_for_epsilon, dfe, "n", bad=(("zero", 0),), types=WRONG_TYPES[:3]
)
ou = {"points": [0.0, 0.5, 1.0], "lengthscale": 1.0, "size": 2, "rng": np.random.default_rng(0)}
number_cases(
    "ou_prior_paths", ps.ou_prior_paths, ou, "size", bad=(("zero", 0),), types=WRONG_TYPES[:3]
)
case("ou_prior_paths-points=empty", ps.ou_prior_paths, {**ou, "points": []}, ValueError, "points")
case("ou_prior_paths-rng=str", ps.ou_prior_paths, {**ou, "rng": "rng"}, TypeError, "rng")
grd = {"alpha": 2.0, "mean1": [0.0, 0.0], "cov1": np.eye(2), "mean2": [1.0, 0.0], "cov2": np.eye(2)}
number_cases(
    "gaussian_renyi_divergence", ps.gaussian_renyi_divergence, grd, "alpha", bad=(("one", 1.0),)
)
case(
    "gaussian_renyi_divergence-mean2=shape",
    ps.gaussian_renyi_divergence,
    {**grd, "mean2": [1.0]},
    ValueError,
    "mean2",
)
case(
    "gaussian_renyi_divergence-cov2=shape",
    ps.gaussian_renyi_divergence,
    {**grd, "cov2": np.eye(3)},
    ValueError,
    "cov2",
)
case(
    "gaussian_renyi_divergence-cov1=indefinite",
    ps.gaussian_renyi_divergence,
    {**grd, "cov1": -np.eye(2)},
    ValueError,
    "cov1",
)
psm = {
    "X": np.linspace(0.05, 0.95, 6),
    "grid": [0.0, 0.5, 1.0],
    "epsilon": 5.0,
    "delta": 1e-5,
    "lengthscale": 1.0,
    "ridge": 3.0,
    "sigma": 1.0,
}
number_cases(
    "PosteriorSamplingMechanism",
    ps.PosteriorSamplingMechanism,
    psm,
    "epsilon",
    bad=(("zero", 0.0),),
)
number_cases(
    "PosteriorSamplingMechanism",
    ps.PosteriorSamplingMechanism,
    psm,
    "paths",
    bad=(("zero", 0),),
    types=WRONG_TYPES[:3],
)
case(
    "PosteriorSamplingMechanism-X=outside",
    ps.PosteriorSamplingMechanism,
    {**psm, "X": [0.5, 1.5]},
    ValueError,
    "X",
)
case(
    "PosteriorSamplingMechanism-grid=empty",
    ps.PosteriorSamplingMechanism,
    {**psm, "grid": []},
    ValueError,
    "grid",
)
case(
    "PosteriorSamplingMechanism-sampler=unknown",
    ps.PosteriorSamplingMechanism,
    {**psm, "sampler": "lanczos"},
    ValueError,
    "sampler",
)


@functools.cache
def posterior_mechanism():
    return ps.PosteriorSamplingMechanism(**psm)


case(
    "PosteriorSamplingMechanism.release-y=bound",
    call(posterior_mechanism, "release"),
    {"y": np.full(6, 2.0)},
    ValueError,
    "y",
)
case(
    "PosteriorSamplingMechanism.release-y=short",
    call(posterior_mechanism, "release"),
    {"y": np.zeros(2)},
    ValueError,
    "y",
)
case(
    "PosteriorSamplingMechanism.release-size=zero",
    call(posterior_mechanism, "release"),
    {"y": np.zeros(6), "size": 0},
    ValueError,
    "size",
)
case(
    "PosteriorSamplingMechanism.with_noise-shape",
    call(posterior_mechanism, "with_noise"),
    {"noise_covariance": np.eye(2)},
    ValueError,
    "noise_covariance",
)
SXX = np.array([[1.0, 0.3], [0.3, 0.5]])
lmn = {"C": np.eye(2), "Sigma_XX": SXX, "epsilon": 6.0, "delta": 0.01}
number_cases(
    "linear_mechanism_noise",
    pml_design.linear_mechanism_noise,
    lmn,
    "epsilon",
    bad=(("infeasible", 2.0),),
)
number_cases(
    "linear_mechanism_noise", pml_design.linear_mechanism_noise, lmn, "delta", bad=(("zero", 0.0),)
)
case(
    "linear_mechanism_noise-C=zero",
    pml_design.linear_mechanism_noise,
    {**lmn, "C": np.zeros((1, 2))},
    ValueError,
    "C",
)
case(
    "linear_mechanism_noise-C=width",
    pml_design.linear_mechanism_noise,
    {**lmn, "C": np.ones((1, 3))},
    ValueError,
    "C",
)
case(
    "linear_mechanism_noise-C=plant",
    pml_design.linear_mechanism_noise,
    {**lmn, "C": control.ss(0.5, 1, 1, 0, True)},
    TypeError,
    "C",
)
case(
    "linear_mechanism_noise-Sigma_XX=empty",
    pml_design.linear_mechanism_noise,
    {**lmn, "Sigma_XX": np.zeros((0, 0)), "C": np.zeros((1, 0))},
    ValueError,
    "Sigma_XX",
)
lmi = {"Sigma_XX": SXX, "Sigma_XZ": SXX, "Sigma_ZZ": SXX, "epsilon": 6.0, "delta": 0.01}
case(
    "lmi_mechanism_noise-L=width",
    pml_design.lmi_mechanism_noise,
    {**lmi, "L": np.ones((1, 3))},
    ValueError,
    "L",
)
case(
    "lmi_mechanism_noise-objective",
    pml_design.lmi_mechanism_noise,
    {**lmi, "objective": "trace"},
    TypeError,
    "objective",
)
case(
    "logdet_mechanism_noise-Sigma_ZZ=shape",
    pml_design.logdet_mechanism_noise,
    {**lmi, "Sigma_ZZ": np.eye(3)},
    ValueError,
    "Sigma_ZZ",
)
lgm = {
    "C": np.eye(2),
    "Sigma_XX": SXX,
    "noise_covariance": np.eye(2),
    "epsilon": 6.0,
    "delta": 0.01,
}
number_cases(
    "LinearGaussianMechanism",
    pml_design.LinearGaussianMechanism,
    lgm,
    "epsilon",
    bad=(("infeasible", 1.0),),
)
number_cases(
    "LinearGaussianMechanism", pml_design.LinearGaussianMechanism, lgm, "delta", bad=(("one", 1.0),)
)
case(
    "LinearGaussianMechanism-method",
    pml_design.LinearGaussianMechanism,
    {**lgm, "method": 3},
    TypeError,
    "method",
)
case(
    "LinearGaussianMechanism-convention",
    pml_design.LinearGaussianMechanism,
    {**lgm, "convention": "Paper"},
    ValueError,
    "convention",
)
case(
    "LinearGaussianMechanism-noise_covariance",
    pml_design.LinearGaussianMechanism,
    {**lgm, "noise_covariance": -np.eye(2)},
    ValueError,
    "noise_covariance",
)
case(
    "LinearGaussianMechanism.design-method",
    pml_design.LinearGaussianMechanism.design,
    {"C": np.eye(2), "Sigma_XX": SXX, "epsilon": 6.0, "delta": 0.01, "method": "sdp"},
    ValueError,
    "method",
)
case(
    "LinearGaussianMechanism.release-data=shape",
    call(lambda: pml_design.LinearGaussianMechanism(**lgm), "release"),
    {"data": np.ones(3)},
    ValueError,
    "data",
)
case(
    "LinearGaussianMechanism.release-seed=str",
    call(lambda: pml_design.LinearGaussianMechanism(**lgm), "release"),
    {"data": np.ones(2), "seed": "1"},
    TypeError,
    "seed",
)
STABLE = control.ss([[0.8, 0.1], [0.0, 0.6]], np.eye(2), np.eye(2), 0, 1.0)
dn = {"plant": STABLE, "epsilon": 6.0, "delta": 0.01}
number_cases("design_noise", pml_plant.design_noise, dn, "epsilon", bad=(("infeasible", 0.5),))
case(
    "design_noise-plant=matrix",
    pml_plant.design_noise,
    {**dn, "plant": np.eye(2)},
    TypeError,
    "plant",
)
case(
    "design_noise-process_noise=bool",
    pml_plant.design_noise,
    {**dn, "process_noise": True},
    TypeError,
    "process_noise",
)
case(
    "design_noise-continuous",
    pml_plant.design_noise,
    {**dn, "plant": control.ss(-1.0, 1.0, 1.0, 0.0)},
    ValueError,
    "sys",
)
fc = FactoredCovariance.from_matrix(np.eye(2))
number_cases("FactoredCovariance.scaled", fc.scaled, {}, "factor", bad=(("zero", 0.0),))
case(
    "FactoredCovariance.sample-size=0",
    fc.sample,
    {"rng": np.random.default_rng(0), "size": 0},
    ValueError,
    "size",
)
case("FactoredCovariance.sample-rng=None", fc.sample, {"rng": None}, TypeError, "rng")
case(
    "FactoredCovariance.scaled_identity-variance",
    FactoredCovariance.scaled_identity,
    {"variance": -1.0, "n": 2},
    ValueError,
    "variance",
)
case(
    "FactoredCovariance.scaled_identity-n",
    FactoredCovariance.scaled_identity,
    {"variance": 1.0, "n": 0},
    ValueError,
    "n",
)
case(
    "FactoredCovariance.from_matrix-Sigma",
    FactoredCovariance.from_matrix,
    {"Sigma": [[True]]},
    TypeError,
    "Sigma",
)


# --------------------------------------------------------------------------------------
# Plants, relative motion, estimation and its bounds, aggregation
# --------------------------------------------------------------------------------------

A2, C2, Q2 = [[0.75, 0.10], [0.10, 0.65]], np.eye(2), [[0.40, 0.05], [0.05, 0.30]]
plant = plants.LTIPlant(A2, C2, Q2)
B_RANK_ONE = np.array([[0.95], [1.73], [-0.39]])
RANK_ONE = B_RANK_ONE @ B_RANK_ONE.T  # a Cholesky factorisation passes on it by round-off
lti = {"A": A2, "C": C2, "Q": Q2}
case("LTIPlant-dt=0", plants.LTIPlant, {**lti, "dt": 0}, ValueError, "dt")
case("LTIPlant-dt=-1", plants.LTIPlant, {**lti, "dt": -1.0}, ValueError, "dt")
case("LTIPlant-dt=nan", plants.LTIPlant, {**lti, "dt": NAN}, ValueError, "dt")
case("LTIPlant-dt=str", plants.LTIPlant, {**lti, "dt": "1"}, TypeError, "dt")
case("LTIPlant-dt=False", plants.LTIPlant, {**lti, "dt": False}, ValueError, "dt")
case("LTIPlant-A=unstable", plants.LTIPlant, {**lti, "A": 2 * np.eye(2)}, ValueError, "A")
case("LTIPlant-A=bool", plants.LTIPlant, {**lti, "A": np.eye(2, dtype=bool)}, TypeError, "A")
case("LTIPlant-A=nan", plants.LTIPlant, {**lti, "A": np.full((2, 2), NAN)}, ValueError, "A")
case("LTIPlant-C=width", plants.LTIPlant, {**lti, "C": np.ones((1, 3))}, ValueError, "C")
case("LTIPlant-C=empty", plants.LTIPlant, {**lti, "C": np.ones((0, 2))}, ValueError, "C")
case("LTIPlant-Q=indefinite", plants.LTIPlant, {**lti, "Q": -np.eye(2)}, ValueError, "Q")
case(
    "LTIPlant-Q=rank-one-A=unstable",
    plants.LTIPlant,
    {"A": 1.5 * np.eye(3), "C": np.eye(3), "Q": RANK_ONE},
    ValueError,
    "A",
)
case(
    "prior_covariance-Q=rank-one-A=unstable",
    plants.prior_covariance,
    {"A": 1.5 * np.eye(3), "Q": RANK_ONE},
    ValueError,
    "A",
)
case(
    "prior_covariance-Q=stack-rank-one-A=unstable",
    plants.prior_covariance,
    {"A": np.stack([0.5 * np.eye(3), 1.5 * np.eye(3)]), "Q": np.stack([np.eye(3), RANK_ONE])},
    ValueError,
    "A",
)
case(
    "prior_covariance-agents",
    plants.prior_covariance,
    {"A": np.stack([0.5 * np.eye(2)] * 3), "Q": np.stack([np.eye(2)] * 2)},
    ValueError,
    "agents",
)
case("prior_covariance-Q=None", plants.prior_covariance, {"A": 0.5 * np.eye(2)}, ValueError, "Q")
case(
    "from_statespace-singular-Q-A=unstable",
    plants.LTIPlant.from_statespace,
    {"sys": control.ss(1.5 * np.eye(3), B_RANK_ONE, np.eye(3), 0, True)},
    ValueError,
    "A",
)
case(
    "from_statespace-process_noise=negative",
    plants.LTIPlant.from_statespace,
    {"sys": STABLE, "process_noise": -1.0},
    ValueError,
    "process_noise",
)
case("from_statespace-sys", plants.LTIPlant.from_statespace, {"sys": "sys"}, TypeError, "sys")
simulate = plant.simulate
number_cases(
    "LTIPlant.simulate",
    simulate,
    {"steps": 5},
    "runs",
    bad=(("zero", 0), ("fraction", 1.5)),
    types=WRONG_TYPES[:3],
)
number_cases(
    "LTIPlant.simulate",
    simulate,
    {"runs": 2},
    "steps",
    bad=(("negative", -5),),
    types=WRONG_TYPES[:3],
)
case("LTIPlant.simulate-x0=shape", simulate, {"steps": 5, "x0": [1.0, 2.0, 3.0]}, ValueError, "x0")
case("LTIPlant.simulate-x0=str", simulate, {"steps": 5, "x0": "0"}, TypeError, "x0")
case("LTIPlant.simulate-rng=-1", simulate, {"steps": 5, "rng": -1}, ValueError, "rng")
zone = {"a": 0.9, "q": 1.0}
number_cases(
    "zone_temperature_plant",
    plants.zone_temperature_plant,
    zone,
    "a",
    bad=(("one", 1.0), ("below", -1.5)),
)
number_cases(
    "zone_temperature_plant", plants.zone_temperature_plant, zone, "q", bad=(("zero", 0.0),)
)
case(
    "zone_temperature_plant-b=0", plants.zone_temperature_plant, {**zone, "b": 0.0}, ValueError, "b"
)
case(
    "zone_temperature_plants-shapes",
    plants.zone_temperature_plants,
    {"a": [0.5, 0.6], "q": [1.0, 1.0, 1.0]},
    ValueError,
    "q",
)
case(
    "zone_temperature_plants-a=str",
    plants.zone_temperature_plants,
    {"a": ["x"], "q": 1.0},
    TypeError,
    "a",
)
case("network-plants=None", plants.network, {"plants": None}, TypeError, "plants")
case("network-plants=empty", plants.network, {"plants": []}, ValueError, "plants")
case("network-plants[1]", plants.network, {"plants": [plant, "zone"]}, TypeError, "plants[1]")
wnc = {"A": np.zeros((2, 2)), "B": np.eye(2), "psd": np.eye(2), "dt": 1.0}
number_cases(
    "white_noise_covariance", plants.white_noise_covariance, wnc, "dt", bad=(("zero", 0.0),)
)
case(
    "white_noise_covariance-A=square",
    plants.white_noise_covariance,
    {**wnc, "A": np.zeros((2, 3))},
    ValueError,
    "A",
)
case(
    "white_noise_covariance-psd=shape",
    plants.white_noise_covariance,
    {**wnc, "psd": np.eye(3)},
    ValueError,
    "psd",
)
number_cases(
    "clohessy_wiltshire",
    relative_motion.clohessy_wiltshire,
    {},
    "mean_motion",
    bad=(("zero", 0.0),),
)
skg = {
    "mean_motion": 1e-3,
    "position_scale": 1.0,
    "velocity_scale": 1e-3,
    "acceleration_scale": 1e-6,
}
number_cases(
    "station_keeping_gain",
    relative_motion.station_keeping_gain,
    skg,
    "velocity_scale",
    bad=(("negative", -1.0),),
)
GAIN = relative_motion.station_keeping_gain(**skg)
cwp = {
    "mean_motion": 1e-3,
    "dt": 60.0,
    "acceleration_psd": 1e-12,
    "C": np.hstack([np.eye(3), np.zeros((3, 3))]),
    "gain": GAIN,
}
number_cases("cw_plant", relative_motion.cw_plant, cwp, "dt", bad=(("zero", 0.0),))
number_cases(
    "cw_plant",
    relative_motion.cw_plant,
    cwp,
    "acceleration_psd",
    bad=(("negative", -1e-12),),
    types=WRONG_TYPES[:3],
)
case(
    "cw_plant-gain=shape",
    relative_motion.cw_plant,
    {**cwp, "gain": np.zeros((6, 3))},
    ValueError,
    "gain",
)
case("cw_plant-C=width", relative_motion.cw_plant, {**cwp, "C": np.eye(3)}, ValueError, "C")
case(
    "cw_plant-gain=zero",
    relative_motion.cw_plant,
    {**cwp, "gain": np.zeros((3, 6))},
    ValueError,
    "gain",
)
THETA2 = 0.5 * np.eye(2)
case(
    "steady_state-Theta=shape",
    estimation.steady_state,
    {"plant": plant, "Theta": np.eye(3)},
    ValueError,
    "Theta",
)
case(
    "steady_state-Theta=singular",
    estimation.steady_state,
    {"plant": plant, "Theta": np.zeros((2, 2))},
    ValueError,
    "Theta",
)
case(
    "steady_state-Theta=None",
    estimation.steady_state,
    {"plant": plant, "Theta": None},
    TypeError,
    "Theta",
)
case(
    "steady_state-plant",
    estimation.steady_state,
    {"plant": A2, "Theta": THETA2},
    TypeError,
    "plant",
)
case(
    "kalman_filter-x0=shape",
    estimation.kalman_filter,
    {"plant": plant, "Theta": THETA2, "x0": [0.0]},
    ValueError,
    "x0",
)
case(
    "kalman_filter-P0=indefinite",
    estimation.kalman_filter,
    {"plant": plant, "Theta": THETA2, "P0": -np.eye(2)},
    ValueError,
    "P0",
)
case(
    "filter_outputs-Y=empty",
    estimation.filter_outputs,
    {"plant": plant, "Theta": THETA2, "Y": np.zeros((0, 2))},
    ValueError,
    "Y",
)
case(
    "filter_outputs-Y=width",
    estimation.filter_outputs,
    {"plant": plant, "Theta": THETA2, "Y": np.zeros((3, 3))},
    ValueError,
    "Y",
)
ecb = {"plant": plant, "Theta": THETA2, "epsilon": 6.0, "delta": 0.01}
number_cases(
    "error_covariance_bounds",
    estimation.error_covariance_bounds,
    ecb,
    "epsilon",
    bad=(("infeasible", 1.0),),
    types=WRONG_TYPES[:3],
)
number_cases(
    "error_covariance_bounds",
    estimation.error_covariance_bounds,
    ecb,
    "delta",
    bad=(("one", 1.0),),
    types=WRONG_TYPES[:3],
)
case(
    "error_covariance_bounds-convention",
    estimation.error_covariance_bounds,
    {**ecb, "convention": "exacts"},
    ValueError,
    "convention",
)
case(
    "error_covariance_bounds-missing",
    estimation.error_covariance_bounds,
    {"plant": plant, "Theta": THETA2},
    ValueError,
    "epsilon",
)
eec = {"plant": plant, "Theta": THETA2, "runs": 3, "steps": 20, "burn_in": 5, "rng": 0}
number_cases(
    "empirical_error_covariance",
    estimation.empirical_error_covariance,
    eec,
    "burn_in",
    bad=(("negative", -5), ("steps", 20), ("beyond", 25)),
    types=WRONG_TYPES[:3],
)
number_cases(
    "empirical_error_covariance",
    estimation.empirical_error_covariance,
    eec,
    "runs",
    bad=(("one", 1), ("zero", 0)),
    types=WRONG_TYPES[:3],
)
number_cases(
    "empirical_error_covariance",
    estimation.empirical_error_covariance,
    eec,
    "steps",
    bad=(("zero", 0),),
    types=WRONG_TYPES[:3],
)
case(
    "empirical_error_covariance-rng=str",
    estimation.empirical_error_covariance,
    {**eec, "rng": "0"},
    TypeError,
    "rng",
)
number_cases(
    "am_gm_trace_bound",
    estimation.am_gm_trace_bound,
    {"log_det_bound": -1.0},
    "n",
    bad=(("zero", 0),),
    types=WRONG_TYPES[:3],
)
number_cases("am_gm_trace_bound", estimation.am_gm_trace_bound, {"n": 2}, "log_det_bound")
dfq = {"A": [[0.5]], "C": [[1.0]], "L": [[1.0]], "Q": [[1.0]], "epsilon": [6.0, 7.0], "delta": 0.01}
case(
    "design_fixed_Q-epsilon=infeasible",
    aggregation.design_fixed_Q,
    {**dfq, "epsilon": [6.0, 1.0]},
    ValueError,
    "epsilon",
)
case(
    "design_fixed_Q-epsilon=bool",
    aggregation.design_fixed_Q,
    {**dfq, "epsilon": True},
    TypeError,
    "epsilon",
)
case(
    "design_fixed_Q-delta=str",
    aggregation.design_fixed_Q,
    {**dfq, "delta": "0.01"},
    TypeError,
    "delta",
)
case(
    "design_fixed_Q-delta=nan",
    aggregation.design_fixed_Q,
    {**dfq, "delta": NAN},
    ValueError,
    "delta",
)
case(
    "design_fixed_Q-agents",
    aggregation.design_fixed_Q,
    {**dfq, "delta": [0.01, 0.02, 0.03]},
    ValueError,
    "agents",
)
case(
    "design_fixed_Q-Q=stack-singular",
    aggregation.design_fixed_Q,
    {**dfq, "Q": [[[1.0]], [[0.0]]]},
    ValueError,
    "Q",
)
case(
    "design_fixed_Q-A=unstable",
    aggregation.design_fixed_Q,
    {**dfq, "A": [[[0.5]], [[1.5]]]},
    ValueError,
    "A",
)
case("design_fixed_Q-C=zero", aggregation.design_fixed_Q, {**dfq, "C": [[0.0]]}, ValueError, "C")
case(
    "design_fixed_Q-L=width",
    aggregation.design_fixed_Q,
    {**dfq, "L": [[1.0, 1.0]]},
    ValueError,
    "L",
)
dq = {"A": [[0.5]], "C": [[1.0]], "L": [[1.0]], "epsilon": 6.0, "delta": 0.01, "c": 0.1}
number_cases("design_Q", aggregation.design_Q, dq, "c", bad=(("zero", 0.0),))
number_cases(
    "design_Q",
    aggregation.design_Q,
    dq,
    "processes",
    bad=(("zero", 0),),
    types=WRONG_TYPES[:3],
    finite=False,
)
case("design_Q-progress", aggregation.design_Q, {**dq, "progress": "yes"}, TypeError, "progress")
case("design_Q-C=zero", aggregation.design_Q, {**dq, "C": [[0.0]]}, ValueError, "C")
case(
    "design_Q-Sigma_lower",
    aggregation.design_Q,
    {**dq, "Sigma_lower": [[-1.0]]},
    ValueError,
    "Sigma_lower",
)
case(
    "design_aggregation-plants=None",
    aggregation.design_aggregation,
    {"plants": None, "L": [[1.0]], "epsilon": 6.0, "delta": 0.01},
    TypeError,
    "plants",
)
case(
    "design_aggregation-plants=empty",
    aggregation.design_aggregation,
    {"plants": [], "L": [[1.0]], "epsilon": 6.0, "delta": 0.01},
    ValueError,
    "plants",
)
case(
    "design_aggregation-plants[0]",
    aggregation.design_aggregation,
    {"plants": [[[0.5]]], "L": [[1.0]], "epsilon": 6.0, "delta": 0.01},
    TypeError,
    "plants[0]",
)
agg = aggregation.design_fixed_Q(**dfq)
case("AggregationDesign.mechanism-i=5", agg.mechanism, {"i": 5}, IndexError, "i")
case("AggregationDesign.mechanism-i=-1", agg.mechanism, {"i": -1}, IndexError, "i")
case("AggregationDesign.mechanism-i=float", agg.mechanism, {"i": 1.0}, TypeError, "i")


# --------------------------------------------------------------------------------------
# Orbits and sensors
# --------------------------------------------------------------------------------------

STATE = np.array([7000.0, 0.0, 0.0, 0.0, 5.0, 5.0])
ZERO_STATE = np.zeros(6)
RADIAL = np.array([7000.0, 0.0, 0.0, 7.0, 0.0, 0.0])
for function in (frames.rsw_frame, frames.hill_to_inertial, elements.state_to_elements):
    label = function.__name__
    case(f"{label}-zero-state", function, {"states": ZERO_STATE}, ValueError, "states")
    case(f"{label}-h=0", function, {"states": RADIAL}, ValueError, "states")
    case(f"{label}-shape", function, {"states": STATE[:5]}, ValueError, "states")
    case(f"{label}-nan", function, {"states": STATE * NAN}, ValueError, "states")
    case(f"{label}-str", function, {"states": "state"}, TypeError, "states")
case(
    "angular_momentum-shape",
    elements.angular_momentum,
    {"states": np.ones((2, 5))},
    ValueError,
    "states",
)
case(
    "state_to_elements-mu",
    elements.state_to_elements,
    {"states": STATE, "mu": -1.0},
    ValueError,
    "mu",
)
ets = {"a": 7000.0, "e": 0.01, "i": 1.0, "raan": 0.1, "argp": 0.2, "nu": 0.3}
number_cases(
    "elements_to_state",
    elements.elements_to_state,
    ets,
    "a",
    bad=(("zero", 0.0),),
    types=WRONG_TYPES,
)
number_cases(
    "elements_to_state",
    elements.elements_to_state,
    ets,
    "e",
    bad=(("one", 1.0), ("negative", -0.1)),
)
number_cases("elements_to_state", elements.elements_to_state, ets, "mu", bad=(("zero", 0.0),))
case(
    "elements_to_state-shapes",
    elements.elements_to_state,
    {**ets, "a": [7000.0, 8000.0], "e": [0.0, 0.1, 0.2]},
    ValueError,
    "e",
)
oa = {"times": np.linspace(0, 3, 30), "states": np.tile(STATE, (30, 1)), "period": 1.0}
number_cases("orbit_averages", elements.orbit_averages, oa, "period", bad=(("zero", 0.0),))
case(
    "orbit_averages-times=empty",
    elements.orbit_averages,
    {**oa, "times": [], "states": np.zeros((0, 6))},
    ValueError,
    "times",
)
case(
    "orbit_averages-times=decreasing",
    elements.orbit_averages,
    {**oa, "times": oa["times"][::-1]},
    ValueError,
    "times",
)
case(
    "orbit_averages-states=shape",
    elements.orbit_averages,
    {**oa, "states": np.tile(STATE, (29, 1))},
    ValueError,
    "states",
)
number_cases("PlanarJ2Model", planar.PlanarJ2Model, {}, "J2", bad=(("negative", -1.0),))
number_cases("PlanarJ2Model", planar.PlanarJ2Model, {}, "R_e", bad=(("zero", 0.0),))
number_cases("PlanarJ2Model", planar.PlanarJ2Model, {}, "h", bad=(("negative", -1.0),))
case("PlanarJ2Model-j2_form", planar.PlanarJ2Model, {"j2_form": "Paper"}, ValueError, "j2_form")
model = planar.PlanarJ2Model()
prop = call(planar.PlanarJ2Model, "propagate")
number_cases(
    "PlanarJ2Model.propagate",
    prop,
    {"times": [0.0, 0.1]},
    "rtol",
    bad=(("loose", 1e-6), ("zero", 0.0)),
    types=WRONG_TYPES[:3],
)
case("PlanarJ2Model.propagate-times=empty", prop, {"times": []}, ValueError, "times")
case("PlanarJ2Model.propagate-times=decreasing", prop, {"times": [1.0, 0.0]}, ValueError, "times")
case(
    "PlanarJ2Model.propagate-state0=shape",
    prop,
    {"times": [0.0, 0.1], "state0": [1.0, 0.0, 0.0]},
    ValueError,
    "state0",
)
case(
    "PlanarJ2Model.propagate-state0=r0",
    prop,
    {"times": [0.0, 0.1], "state0": [0.0, 0.0, 0.0, 6.0]},
    ValueError,
    "state0",
)
case(
    "PlanarJ2Model.propagate-state0=nan",
    prop,
    {"times": [0.0, 0.1], "state0": [NAN, 0.0, 0.0, 6.0]},
    ValueError,
    "state0",
)
case(
    "PlanarJ2Model.to_physical-state", model.to_physical, {"state": [1.0, 2.0]}, ValueError, "state"
)
case(
    "PlanarJ2Model.acceleration-state",
    model.acceleration,
    {"t": 0.0, "state": [0.0, 0.0, 0.0, 1.0]},
    ValueError,
    "state",
)
case(
    "PlanarJ2Model.energy-state",
    model.energy,
    {"state": [[1.0, 0.0, 0.0, NAN]]},
    ValueError,
    "state",
)
number_cases("J2Propagator", propagator.J2Propagator, {}, "J2", bad=(("negative", -1e-3),))
number_cases("J2Propagator", propagator.J2Propagator, {}, "mu", bad=(("zero", 0.0),))
j2 = propagator.J2Propagator()
jp = {"times": [0.0, 60.0], "state0": STATE}
number_cases(
    "J2Propagator.propagate",
    j2.propagate,
    jp,
    "atol",
    bad=(("loose", 1e-3),),
    types=WRONG_TYPES[:3],
)
number_cases(
    "J2Propagator.propagate",
    j2.propagate,
    jp,
    "first_step",
    bad=(("zero", 0.0),),
    types=WRONG_TYPES[:3],
)
case(
    "J2Propagator.propagate-state0=origin",
    j2.propagate,
    {**jp, "state0": ZERO_STATE},
    ValueError,
    "state0",
)
case(
    "J2Propagator.propagate-state0=3d",
    j2.propagate,
    {**jp, "state0": np.ones((2, 2, 6))},
    ValueError,
    "state0",
)
case(
    "J2Propagator.propagate-times=nan",
    j2.propagate,
    {**jp, "times": [0.0, NAN]},
    ValueError,
    "times",
)
case("J2Propagator.derivative-y", j2.derivative, {"t": 0.0, "y": np.ones(5)}, ValueError, "y")
case("J2Propagator.derivative-origin", j2.derivative, {"t": 0.0, "y": ZERO_STATE}, ValueError, "y")
case("J2Propagator.energy-origin", j2.energy, {"states": ZERO_STATE}, ValueError, "states")
case("J2Propagator.mean_motion-a", j2.mean_motion, {"a": -7000.0}, ValueError, "a")
case("J2Propagator.mean_motion-a=str", j2.mean_motion, {"a": "7000"}, TypeError, "a")
case(
    "J2Propagator.secular_rates-e",
    j2.secular_rates,
    {"a": 7000.0, "e": 1.2, "i": 1.0},
    ValueError,
    "e",
)
case(
    "J2Propagator.secular_rates-shapes",
    j2.secular_rates,
    {"a": [7000.0, 7100.0], "e": [0.0, 0.1, 0.2], "i": 1.0},
    ValueError,
    "a",
)
gte = {"latitude": 40.0, "longitude": -4.0, "altitude": 0.8}
number_cases("geodetic_to_ecef", geodesy.geodetic_to_ecef, gte, "latitude", bad=(("above", 91.0),))
number_cases("geodetic_to_ecef", geodesy.geodetic_to_ecef, gte, "altitude")
case(
    "geodetic_to_ecef-shapes",
    geodesy.geodetic_to_ecef,
    {**gte, "latitude": [1.0, 2.0], "longitude": [1.0, 2.0, 3.0]},
    ValueError,
    "longitude",
)
case(
    "ecef_to_geodetic-polar",
    geodesy.ecef_to_geodetic,
    {"position": [0.0, 0.0, 6400.0]},
    ValueError,
    "position",
)
case(
    "ecef_to_geodetic-shape",
    geodesy.ecef_to_geodetic,
    {"position": [1.0, 2.0]},
    ValueError,
    "position",
)
number_cases("EarthRotation", geodesy.EarthRotation, {}, "gmst0")
number_cases("EarthRotation", geodesy.EarthRotation, {}, "rate", bad=(("zero", 0.0),))
earth = geodesy.EarthRotation(0.0)
case("EarthRotation.angle-times", earth.angle, {"times": [0.0, INF]}, ValueError, "times")
case(
    "EarthRotation.eci_to_ecef-times=shape",
    earth.eci_to_ecef,
    {"states": np.tile(STATE, (3, 1)), "times": [0.0, 1.0]},
    ValueError,
    "times",
)
case(
    "EarthRotation.ecef_to_eci_position-times=shape",
    earth.ecef_to_eci_position,
    {"positions": np.ones((3, 3)), "times": np.zeros(4)},
    ValueError,
    "times",
)
case(
    "ground_track-earth",
    geodesy.ground_track,
    {"states": STATE, "times": 0.0, "earth": 0.0},
    TypeError,
    "earth",
)
gs = {"name": "Madrid", "latitude": 40.43, "longitude": -4.25, "altitude": 0.865}
number_cases(
    "GroundStation",
    stations.GroundStation,
    gs,
    "elevation_mask",
    bad=(("ninety", 90.0), ("negative", -1.0)),
)
number_cases("GroundStation", stations.GroundStation, gs, "latitude", bad=(("above", 95.0),))
case("GroundStation-name", stations.GroundStation, {**gs, "name": 3}, TypeError, "name")
case(
    "GroundStation-noise_std=zero",
    stations.GroundStation,
    {**gs, "noise_std": (0.0, 1.0, 1.0, 1.0)},
    ValueError,
    "noise_std",
)
case(
    "GroundStation-noise_std=short",
    stations.GroundStation,
    {**gs, "noise_std": (1.0, 1.0)},
    ValueError,
    "noise_std",
)
station = stations.GroundStation(**gs)
OVERHEAD = np.concatenate([station.ecef * 1.1 + [50.0, 0.0, 0.0], [0.0, 7.0, 0.0]])
case(
    "GroundStation.measure-earth",
    station.measure,
    {"states": OVERHEAD, "times": 0.0, "earth": "earth"},
    TypeError,
    "earth",
)
case(
    "GroundStation.measure-at-station",
    station.measure,
    {"states": np.concatenate([station.ecef, [0.0, 0.0, 0.0]]), "times": 0.0, "earth": earth},
    ValueError,
    "station",
)
case(
    "GroundStation.measure-times=shape",
    station.measure,
    {"states": np.tile(OVERHEAD, (2, 1)), "times": [0.0, 1.0, 2.0], "earth": earth},
    ValueError,
    "times",
)
lm = {"state": OVERHEAD, "time": 0.0, "earth": earth}
number_cases("GroundStation.linearised_measurement", station.linearised_measurement, lm, "time")
case(
    "GroundStation.linearised_measurement-state",
    station.linearised_measurement,
    {**lm, "state": OVERHEAD[:4]},
    ValueError,
    "state",
)
case(
    "GroundStation.jacobian-states",
    station.jacobian,
    {"states": np.ones(5), "times": 0.0, "earth": earth},
    ValueError,
    "states",
)
case(
    "measurement_residual-shapes",
    tracking.measurement_residual,
    {"z": np.zeros(4), "z_ref": np.zeros(8)},
    ValueError,
    "z_ref",
)
case(
    "measurement_residual-nan",
    tracking.measurement_residual,
    {"z": np.full(4, NAN), "z_ref": np.zeros(4)},
    ValueError,
    "z",
)
case(
    "measurement_mean-weights",
    tracking.measurement_mean,
    {"sigmas": np.zeros((3, 4)), "weights": np.ones(2)},
    ValueError,
    "weights",
)
ot = {"propagator": j2, "earth": earth, "x0": STATE, "P0": np.eye(6), "acceleration_psd": 1e-12}
number_cases(
    "OrbitTracker", tracking.OrbitTracker, ot, "acceleration_psd", bad=(("negative", -1.0),)
)
number_cases("OrbitTracker", tracking.OrbitTracker, ot, "t0")
number_cases(
    "OrbitTracker",
    tracking.OrbitTracker,
    ot,
    "tolerance",
    bad=(("loose", 1e-2),),
    types=WRONG_TYPES[:3],
)
case(
    "OrbitTracker-propagator",
    tracking.OrbitTracker,
    {**ot, "propagator": None},
    TypeError,
    "propagator",
)
case("OrbitTracker-earth", tracking.OrbitTracker, {**ot, "earth": 0.0}, TypeError, "earth")
case("OrbitTracker-x0", tracking.OrbitTracker, {**ot, "x0": STATE[:3]}, ValueError, "x0")
case("OrbitTracker-P0", tracking.OrbitTracker, {**ot, "P0": -np.eye(6)}, ValueError, "P0")
tracker = functools.cache(lambda: tracking.OrbitTracker(**ot))
number_cases("OrbitTracker.predict", call(tracker, "predict"), {}, "time", bad=(("past", -10.0),))
upd = call(tracker, "update")
case(
    "OrbitTracker.update-stations=empty",
    upd,
    {"stations": [], "z": np.zeros((0, 4)), "R": np.zeros((0, 4, 4))},
    ValueError,
    "stations",
)
case(
    "OrbitTracker.update-stations[0]",
    upd,
    {"stations": ["Madrid"], "z": np.zeros((1, 4)), "R": [np.eye(4)]},
    TypeError,
    "stations[0]",
)
case(
    "OrbitTracker.update-z=shape",
    upd,
    {"stations": [station], "z": np.zeros((1, 3)), "R": [np.eye(4)]},
    ValueError,
    "z",
)
case(
    "OrbitTracker.update-R=shape",
    upd,
    {"stations": [station], "z": np.zeros((1, 4)), "R": [np.eye(3)]},
    ValueError,
    "R",
)
case(
    "OrbitTracker.update-R=indefinite",
    upd,
    {"stations": [station], "z": np.zeros((1, 4)), "R": [-np.eye(4)]},
    ValueError,
    "R[0]",
)


# --------------------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("function, kwargs, exception, argument", CASES)
def test_bad_input_raises_a_one_line_error_naming_the_argument(
    function, kwargs, exception, argument
):
    with pytest.raises(exception) as raised:
        function(**kwargs)
    message = str(raised.value)
    assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(argument)}(?![A-Za-z0-9_])", message), message
    assert "\n" not in message, message


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 250
