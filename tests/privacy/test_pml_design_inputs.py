"""Bad input to the PML designers and certificates: each a one-line error naming the
argument (``privacy.pml.passes``, ``stream_design``, ``day_design``, ``day_noise``,
``certificate``, ``information_form``).

The silent wrong answers it closes: ``design_stream_noise(certify="no")`` ran (a truthy
string), ``information_certificate`` certified a prior of None, a day's noise trace in
release units after ``with_noise``, a negative predicted error from an indefinite weight.
The budgets above the largest meaningful one are at the end.
"""

import dataclasses

import numpy as np
import pytest
from corpus import Corpus, call

from ssa_privacy.privacy.accounting import maximum_epsilon
from ssa_privacy.privacy.mechanism import Certificate, FactoredCovariance
from ssa_privacy.privacy.pml.certificate import margin_certificate, pml_certificate
from ssa_privacy.privacy.pml.day_design import DayMechanism
from ssa_privacy.privacy.pml.day_noise import day_logdet_noise, sufficient_statistics
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.information_form import information_certificate, more_conclusive
from ssa_privacy.privacy.pml.passes import PassMechanism, per_measurement_epsilons
from ssa_privacy.privacy.pml.stream import ReleaseStream
from ssa_privacy.privacy.pml.stream_design import (
    design_stream_noise,
    information_limited_noise,
    stream_logdet_design,
    stream_noise_scale,
)
from ssa_privacy.sensors.streams import Pass

DELTA = 0.01
#: Radar sensor noise: 0.01 deg, 0.01 deg, 20 m, 0.1 m/s (rad, rad, km, km/s).
RADAR_STD = np.array([np.radians(0.01), np.radians(0.01), 0.02, 1e-4])
#: A manoeuvre prior: 0.5-1 km, 1 m/s (km, km/s).
SIGMA = np.diag([0.8, 1.0, 0.6, 1e-3, 1e-3, 1e-3]) ** 2


def radar_pass(seed, K=3):
    """A pass of K radar measurements whose maps see all six directions of x0."""
    rng = np.random.default_rng(seed)
    C = rng.standard_normal((K, 4, 6)) * RADAR_STD[:, None] * np.array([1, 1, 1, 1e3, 1e3, 1e3])
    return Pass(0, np.arange(K), C, np.diag(RADAR_STD**2))


PASSES = [radar_pass(1), radar_pass(2)]
C = PASSES[0].C
THETA = np.diag(RADAR_STD**2)
MECHANISM = PassMechanism.design(PASSES[0], SIGMA, 14.0, DELTA)
DAY = DayMechanism.design(PASSES, SIGMA, 20.0, DELTA, designer="trace")
CERTIFICATE = MECHANISM.certificate()

corpus = Corpus()
case = corpus.case

# --- Passes ----------------------------------------------------------------------------
design = {"item": PASSES[0], "Sigma_XX": SIGMA, "epsilon": 14.0, "delta": DELTA}
case(
    "PassMechanism.design-item=None",
    PassMechanism.design,
    {**design, "item": None},
    TypeError,
    "item",
)
case(
    "PassMechanism.design-item=array",
    PassMechanism.design,
    {**design, "item": C},
    TypeError,
    "item",
)
case(
    "PassMechanism.design-item.C=nan",
    PassMechanism.design,
    {**design, "item": dataclasses.replace(PASSES[0], C=np.full((2, 4, 6), np.nan))},
    ValueError,
    "item.C",
)
case(
    "PassMechanism.design-item.R=indefinite",
    PassMechanism.design,
    {**design, "item": dataclasses.replace(PASSES[0], R=-THETA)},
    ValueError,
    "item.R",
)
case(
    "PassMechanism.design-designer",
    PassMechanism.design,
    {**design, "designer": "best"},
    ValueError,
    "designer",
)
corpus.numbers(
    "PassMechanism.design", PassMechanism.design, design, "epsilon", bad=(("floor", 8.0),)
)
corpus.numbers(
    "PassMechanism.design", PassMechanism.design, design, "delta", bad=(("0", 0.0), ("1", 1.0))
)
given = {"C": C, "Sigma_XX": SIGMA, "factor": MECHANISM.factor, "epsilon": 14.0, "delta": DELTA}
corpus.numbers(
    "PassMechanism", PassMechanism, given, "epsilon", bad=(("0", 0.0), ("negative", -1.0))
)
case(
    "PassMechanism-factor-rows",
    PassMechanism,
    {**given, "factor": MECHANISM.factor[:-1]},
    ValueError,
    "factor",
)
case("PassMechanism-designer", PassMechanism, {**given, "designer": 3}, TypeError, "designer")
case(
    "PassMechanism-stream",
    PassMechanism,
    {**given, "stream": ReleaseStream.empty(3)},
    TypeError,
    "stream",
)
case(
    "PassMechanism.with_noise-noiseless",
    MECHANISM.with_noise,
    {"noise_covariance": np.zeros((12, 12))},
    ValueError,
    "noise_covariance",
)
case(
    "PassMechanism.with_noise-shape",
    MECHANISM.with_noise,
    {"noise_covariance": np.eye(4)},
    ValueError,
    "noise_covariance",
)
case("PassMechanism.release-data", MECHANISM.release, {"data": np.ones(11)}, ValueError, "data")
case(
    "PassMechanism.release-seed",
    MECHANISM.release,
    {"data": np.ones(12), "seed": 1.5},
    TypeError,
    "seed",
)
pm = {"Sigma_XX": SIGMA, "found": PASSES, "epsilon": 14.0, "delta": DELTA}
case(
    "per_measurement_epsilons-found=None",
    per_measurement_epsilons,
    {**pm, "found": None},
    TypeError,
    "found",
)
case(
    "per_measurement_epsilons-found[1]=None",
    per_measurement_epsilons,
    {**pm, "found": [PASSES[0], None]},
    TypeError,
    "found[1]",
)
case(
    "per_measurement_epsilons-found=str",
    per_measurement_epsilons,
    {**pm, "found": "ab"},
    TypeError,
    "found",
)
case(
    "per_measurement_epsilons-epsilon=array",
    per_measurement_epsilons,
    {**pm, "epsilon": np.array([14.0, 15.0])},
    TypeError,
    "epsilon",
)

# --- Stream designs ----------------------------------------------------------------------
scale = {"Sigma_XX": SIGMA, "C": C, "Theta": THETA, "epsilon": 14.0, "delta": DELTA}
corpus.flags("design_stream_noise", design_stream_noise, scale, "certify")
corpus.flags(
    "stream_logdet_design",
    stream_logdet_design,
    {"Sigma_XX": SIGMA, "C": C, "epsilon": 14.0, "delta": DELTA},
    "certify",
)
case(
    "stream_noise_scale-C-columns", stream_noise_scale, {**scale, "C": C[..., :5]}, ValueError, "C"
)
case(
    "design_stream_noise-C-columns",
    design_stream_noise,
    {**scale, "C": C[..., :5]},
    ValueError,
    "C",
)
case("stream_noise_scale-R", stream_noise_scale, {**scale, "R": -THETA}, ValueError, "R")
case(
    "stream_noise_scale-floor", stream_noise_scale, {**scale, "epsilon": 8.0}, ValueError, "epsilon"
)
lim = {"Sigma_ZZ": np.diag([4.0, 1.0]), "information": 2.0}
corpus.numbers(
    "information_limited_noise",
    information_limited_noise,
    lim,
    "information",
    bad=(("zero", 0.0), ("above-the-rounding", 1e3)),
)
case(
    "stream_logdet_design-C=zero",
    stream_logdet_design,
    {"Sigma_XX": SIGMA, "C": np.zeros((4, 6)), "epsilon": 14.0, "delta": DELTA},
    ValueError,
    "C",
)

# --- Day designs ----------------------------------------------------------------------
day = {"passes": list(DAY.passes), "Sigma_XX": SIGMA, "epsilon": 20.0, "delta": DELTA}
case("DayMechanism-passes=str", DayMechanism, {**day, "passes": "ab"}, TypeError, "passes")
case("DayMechanism-passes[0]", DayMechanism, {**day, "passes": [PASSES[0]]}, TypeError, "passes[0]")
case("DayMechanism-Sigma_XX=str", DayMechanism, {**day, "Sigma_XX": "x"}, TypeError, "Sigma_XX")
case(
    "DayMechanism-Sigma_XX=complex",
    DayMechanism,
    {**day, "Sigma_XX": SIGMA + 0j},
    TypeError,
    "Sigma_XX",
)
case("DayMechanism-designer", DayMechanism, {**day, "designer": None}, TypeError, "designer")
corpus.numbers("DayMechanism", DayMechanism, day, "epsilon", bad=(("0", 0.0),))
case(
    "DayMechanism-row_scales-count",
    DayMechanism,
    {**day, "row_scales": [np.ones(12)]},
    ValueError,
    "row_scales",
)
case(
    "DayMechanism-row_scales[1]-length",
    DayMechanism,
    {**day, "row_scales": [np.ones(12), np.ones(11)]},
    ValueError,
    "row_scales[1]",
)
case(
    "DayMechanism-row_scales[0]-zero",
    DayMechanism,
    {**day, "row_scales": [np.zeros(12), np.ones(12)]},
    ValueError,
    "row_scales[0]",
)
dday = {"passes": PASSES, "Sigma_XX": SIGMA, "epsilon_day": 20.0, "delta": DELTA}
case(
    "DayMechanism.design-passes=[]",
    DayMechanism.design,
    {**dday, "passes": []},
    ValueError,
    "passes",
)
case(
    "DayMechanism.design-passes[1]",
    DayMechanism.design,
    {**dday, "passes": [PASSES[0], "pass"]},
    TypeError,
    "passes[1]",
)
corpus.numbers(
    "DayMechanism.design",
    DayMechanism.design,
    {**dday, "designer": "trace"},
    "epsilon_day",
    bad=(("floor", 8.0),),
)
day_with_noise = call(lambda: DAY, "with_noise")
case(
    "DayMechanism.with_noise-None",
    day_with_noise,
    {"noise_covariances": None},
    TypeError,
    "noise_covariances",
)
case(
    "DayMechanism.with_noise-count",
    day_with_noise,
    {"noise_covariances": [np.eye(12)]},
    ValueError,
    "noise_covariances",
)
case(
    "DayMechanism.with_noise-[1]=nan",
    day_with_noise,
    {"noise_covariances": [np.eye(12), np.full((12, 12), np.nan)]},
    ValueError,
    "noise_covariances[1]",
)
error = call(lambda: DAY, "predicted_error")
case("DayMechanism.predicted_error-indefinite", error, {"weight": -np.eye(6)}, ValueError, "weight")
case("DayMechanism.predicted_error-shape", error, {"weight": np.eye(5)}, ValueError, "weight")
case(
    "DayMechanism.predicted_error-mask",
    error,
    {"weight": [(np.array([1, 0]), np.eye(6))]},
    TypeError,
    "weight[0] mask",
)
case("DayMechanism.predicted_error-pair", error, {"weight": [np.eye(6)]}, TypeError, "weight[0]")
case("DayMechanism.predicted_error-empty", error, {"weight": []}, ValueError, "weight")
maps = [np.random.default_rng(3).standard_normal((4, 6))]
case(
    "day_logdet_noise-maps=None",
    day_logdet_noise,
    {"maps": None, "information": 3.0},
    TypeError,
    "maps",
)
case(
    "day_logdet_noise-maps=[]",
    day_logdet_noise,
    {"maps": [], "information": 3.0},
    ValueError,
    "maps",
)
case(
    "day_logdet_noise-maps[0]=rank",
    day_logdet_noise,
    {"maps": [np.ones((2, 6))], "information": 3.0},
    ValueError,
    "maps[0]",
)
case(
    "day_logdet_noise-maps[1]=columns",
    day_logdet_noise,
    {"maps": [maps[0], np.ones((1, 5))], "information": 3.0},
    ValueError,
    "maps[1]",
)
case(
    "day_logdet_noise-maps[0]=nan",
    day_logdet_noise,
    {"maps": [np.full((2, 6), np.nan)], "information": 3.0},
    ValueError,
    "maps[0]",
)
corpus.numbers(
    "day_logdet_noise",
    day_logdet_noise,
    {"maps": maps, "information": 3.0},
    "information",
    bad=(("zero", 0.0), ("above-the-rounding", 1e6)),
)
L = np.linalg.cholesky(SIGMA)
case(
    "sufficient_statistics-passes",
    sufficient_statistics,
    {"passes": None, "L": L},
    TypeError,
    "passes",
)
case(
    "sufficient_statistics-L=upper",
    sufficient_statistics,
    {"passes": PASSES, "L": L.T + np.triu(np.ones((6, 6)), 1)},
    ValueError,
    "L",
)
case(
    "sufficient_statistics-L=shape",
    sufficient_statistics,
    {"passes": PASSES, "L": L[:5, :5]},
    ValueError,
    "L",
)
case(
    "sufficient_statistics-L=complex",
    sufficient_statistics,
    {"passes": PASSES, "L": L + 0j},
    TypeError,
    "L",
)

# --- Certificates ----------------------------------------------------------------------
stream = MECHANISM.stream
ic = {
    "Sigma_XX": SIGMA,
    "epsilon": 14.0,
    "delta": DELTA,
    "convention": "exact",
    "factor": stream.factor,
}
case(
    "information_certificate-Sigma_XX=None",
    information_certificate,
    {**ic, "Sigma_XX": None},
    TypeError,
    "Sigma_XX",
)
case(
    "information_certificate-Sigma_XX=indefinite",
    information_certificate,
    {**ic, "Sigma_XX": -SIGMA},
    ValueError,
    "Sigma_XX",
)
case(
    "information_certificate-factor=columns",
    information_certificate,
    {**ic, "factor": stream.factor[:, :5]},
    ValueError,
    "factor",
)
corpus.numbers("information_certificate", information_certificate, ic, "epsilon")
corpus.numbers(
    "information_certificate", information_certificate, ic, "delta", bad=(("0", 0.0), ("1", 1.0))
)
case(
    "information_certificate-noise",
    information_certificate,
    {**ic, "factor": None, "C": C[0], "noise": -THETA},
    ValueError,
    "noise",
)
S_XZ, S_ZZ = SIGMA @ C[0].T, C[0] @ SIGMA @ C[0].T
pc = {
    "Sigma_XX": SIGMA,
    "Sigma_XZ": S_XZ,
    "Sigma_ZZ": S_ZZ,
    "noise": FactoredCovariance.from_matrix(THETA),
    "epsilon": 14.0,
    "delta": DELTA,
    "convention": "exact",
}
case(
    "pml_certificate-Sigma_ZZ=indefinite",
    pml_certificate,
    {**pc, "Sigma_ZZ": -S_ZZ},
    ValueError,
    "Sigma_ZZ",
)
case(
    "pml_certificate-joint", pml_certificate, {**pc, "Sigma_XZ": 10 * S_XZ}, ValueError, "Sigma_XZ"
)
case(
    "pml_certificate-Sigma_XZ=shape",
    pml_certificate,
    {**pc, "Sigma_XZ": S_XZ[:5]},
    ValueError,
    "Sigma_XZ",
)
case(
    "pml_certificate-noise=shape", pml_certificate, {**pc, "noise": np.eye(3)}, ValueError, "noise"
)
case(
    "pml_certificate-convention",
    pml_certificate,
    {**pc, "convention": "loose"},
    ValueError,
    "convention",
)
corpus.numbers("pml_certificate", pml_certificate, pc, "delta", bad=(("1", 1.0),))
mc = {
    "information": 2.0,
    "spread": 1e-12,
    "l": 4,
    "parameters": {"epsilon": 14.0, "delta": DELTA, "convention": "exact"},
    "evidence": {},
}
corpus.numbers(
    "margin_certificate",
    margin_certificate,
    mc,
    "information",
    bad=(("negative", -1.0),),
    finite=False,
)
corpus.numbers(
    "margin_certificate", margin_certificate, mc, "spread", bad=(("negative", -1.0),), finite=False
)
corpus.numbers(
    "margin_certificate", margin_certificate, mc, "l", bad=(("negative", -1), ("fraction", 2.5))
)
case(
    "margin_certificate-parameters",
    margin_certificate,
    {**mc, "parameters": {}},
    ValueError,
    "parameters",
)
case(
    "margin_certificate-evidence",
    margin_certificate,
    {**mc, "evidence": None},
    TypeError,
    "evidence",
)
case(
    "more_conclusive-first",
    more_conclusive,
    {"first": None, "second": CERTIFICATE},
    TypeError,
    "first",
)
case(
    "more_conclusive-other-claim",
    more_conclusive,
    {"first": CERTIFICATE, "second": Certificate("pml", {"epsilon": 1.0}, False, -1.0)},
    ValueError,
    "second",
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_the_corpus_is_large_enough():
    assert len(corpus.cases) >= 100


def test_with_noise_keeps_the_day_s_row_scales():
    """The day's trace is in units of each row's sensor noise, before and after."""
    same = DAY.with_noise([p.Theta for p in DAY.passes])
    assert same.trace == pytest.approx(DAY.trace, rel=1e-9)


# --------------------------------------------------------------------------------------
# Budgets above the largest meaningful one (maximum_epsilon): the noise of that bound,
# which meets the budget, and a certificate that passes
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("designer", ["logdet", "scaled"])
@pytest.mark.parametrize("epsilon", [1e4, 1e300])
def test_a_pass_design_for_a_huge_budget_has_the_noise_of_the_largest_meaningful_one(
    designer, epsilon
):
    """The design aims at maximum_epsilon(delta, 6) (the noise then has u^2 times the
    signal's variance on average over the directions): the same noise as a design for
    that bound, whose certificate at the requested budget passes. The leakage is the
    stream's, accumulated anew from its noise: it meets the bound to that accumulation's
    round-off (a few ulp; 1e-12 relative allowed), not bit for bit."""
    huge = PassMechanism.design(PASSES[0], SIGMA, epsilon, DELTA, designer=designer)
    bound = PassMechanism.design(
        PASSES[0], SIGMA, maximum_epsilon(DELTA, 6), DELTA, designer=designer
    )
    np.testing.assert_allclose(huge.Theta, bound.Theta, rtol=1e-6, atol=0.0)
    assert huge.certificate().passed and huge.epsilon == epsilon
    assert huge.leakage.epsilon <= maximum_epsilon(DELTA, 6) * (1.0 + 1e-12)


@pytest.mark.parametrize("designer", ["trace", "pass", "day"])
def test_a_day_design_for_a_huge_budget_passes_at_that_budget(designer):
    mechanism = DayMechanism.design(PASSES, SIGMA, 1e300, DELTA, designer=designer)
    assert mechanism.certificate().passed
    assert mechanism.leakage.epsilon <= maximum_epsilon(DELTA, 6) + 1e-6


def test_the_closed_form_for_a_huge_budget_is_that_of_the_largest_meaningful_one():
    """Corollary 3.7 per measurement: kappa of maximum_epsilon(delta, rank C_k)."""
    huge = linear_mechanism_noise(C, SIGMA, 1e300, DELTA)
    bound = linear_mechanism_noise(C, SIGMA, maximum_epsilon(DELTA, 4), DELTA)
    np.testing.assert_array_equal(huge, bound)
    assert np.all(np.linalg.eigvalsh(huge) > 0)


def test_the_stream_scale_for_a_huge_budget_is_positive_and_certified():
    design = design_stream_noise(SIGMA, C, THETA, 1e300, DELTA)
    assert design.scale > 0 and design.certificate.passed


@pytest.mark.parametrize(
    "normals", [np.full(12, np.nan), np.r_[np.ones(11), np.inf], np.ones(11), "normals"]
)
def test_the_old_pass_noise_refuses_normals_that_are_not_a_finite_vector(normals):
    """``PassNoise.sample(normals)`` (0.1's pass noise, kept until 0.3) scaled NaN normals
    into a NaN noise; it now names them."""
    with pytest.warns(DeprecationWarning, match="PassMechanism.design"):
        from ssa_privacy.privacy.pml.passes import pass_noise
    old = pass_noise(PASSES[0], SIGMA, 14.0, DELTA, "scaled")
    with pytest.raises((TypeError, ValueError), match="normals") as raised:
        old.sample(normals)
    assert "\n" not in str(raised.value)
    assert np.all(np.isfinite(old.sample(np.ones(12))))
