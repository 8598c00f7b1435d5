"""Bad input to ``privacy.synthetic_noise`` and ``privacy.posterior_sampling``, and their
``with_noise``: each bad input a one-line error naming the argument."""

import numpy as np
from corpus import Corpus

from ssa_privacy.gp.kernels import RBF
from ssa_privacy.gp.regression import GaussianProcess
from ssa_privacy.privacy.posterior_sampling import PosteriorSamplingMechanism
from ssa_privacy.privacy.posterior_sampling.enclosure import epsilon_enclosure_exp_1d
from ssa_privacy.privacy.synthetic_noise import certificate, design, tightening
from ssa_privacy.privacy.synthetic_noise.mechanism import (
    SyntheticNoiseMechanism,
    privacy_aware_gp,
    sample_synthetic_noise,
)

X = np.linspace(0.0, 1.0, 12)
S0 = X[4:7]
KERNEL = RBF(0.2)
K_XX, K_XS, DELTA = KERNEL(X, X), KERNEL(X, S0), 0.5 * KERNEL(S0, S0)
MECHANISM = SyntheticNoiseMechanism(K_XX, K_XS, DELTA, V=1e-4)
POSTERIOR = PosteriorSamplingMechanism(
    np.linspace(0.05, 0.95, 6), np.linspace(0.0, 1.0, 5), 5.0, 1e-5, lengthscale=1.0, ridge=3.0
)

corpus = Corpus()
case = corpus.case
case(
    "SyntheticNoiseMechanism-Delta=zero",
    SyntheticNoiseMechanism,
    {"K_XX": K_XX, "K_XS": K_XS, "Delta": np.zeros((3, 3)), "V": 1e-4},
    ValueError,
    "Delta",
)
case(
    "sample_synthetic_noise-factor",
    sample_synthetic_noise,
    {"factor": np.eye(3)},
    TypeError,
    "factor",
)
case(
    "sample_synthetic_noise-size=1.5",
    sample_synthetic_noise,
    {"factor": MECHANISM.noise_covariance, "size": 1.5},
    ValueError,
    "size",
)
case(
    "sample_synthetic_noise-size=str",
    sample_synthetic_noise,
    {"factor": MECHANISM.noise_covariance, "size": "3"},
    TypeError,
    "size",
)
case(
    "sample_synthetic_noise-seed=-1",
    sample_synthetic_noise,
    {"factor": MECHANISM.noise_covariance, "seed": -1},
    ValueError,
    "seed",
)
case(
    "sample_synthetic_noise-seed=1.5",
    sample_synthetic_noise,
    {"factor": MECHANISM.noise_covariance, "seed": 1.5},
    TypeError,
    "seed",
)
gp = GaussianProcess(RBF(0.3), noise=1e-2).fit(X, np.sin(X))
pa = {"gp": gp, "X": X, "W": np.sin(X), "Sigma": MECHANISM.noise_covariance}
case("privacy_aware_gp-gp", privacy_aware_gp, {**pa, "gp": None}, TypeError, "gp")
case("privacy_aware_gp-W=nan", privacy_aware_gp, {**pa, "W": np.full(12, np.nan)}, ValueError, "W")
case("privacy_aware_gp-W=empty", privacy_aware_gp, {**pa, "W": []}, ValueError, "W")
case(
    "privacy_aware_gp-Sigma=indefinite",
    privacy_aware_gp,
    {**pa, "Sigma": -np.eye(12)},
    ValueError,
    "Sigma",
)
case(
    "psd_part-rank_bound=0",
    design.psd_part,
    {"A": np.eye(2), "rank_bound": 0},
    ValueError,
    "rank_bound",
)
case(
    "psd_part-rank_bound=str",
    design.psd_part,
    {"A": np.eye(2), "rank_bound": "1"},
    TypeError,
    "rank_bound",
)
wh = {"K_XS": K_XS, "Delta": DELTA, "resolution": 0.0}
case("whiten-K_XS=None", certificate.whiten, {**wh, "K_XS": None}, TypeError, "K_XS")
case(
    "whiten-K_XS=nan",
    certificate.whiten,
    {**wh, "K_XS": np.full((12, 3), np.nan)},
    ValueError,
    "K_XS",
)
case("whiten-Delta=None", certificate.whiten, {**wh, "Delta": None}, TypeError, "Delta")
case("whiten-Delta=shape", certificate.whiten, {**wh, "Delta": DELTA[:2, :2]}, ValueError, "Delta")
corpus.numbers("whiten", certificate.whiten, wh, "resolution", bad=(("negative", -1.0),))
pcc = {"K_XX": K_XX, "K_XS": K_XS, "Delta": DELTA, "noise": MECHANISM.noise_covariance, "V": 1e-4}
case(
    "posterior_covariance_certificate-K_XX=None",
    certificate.posterior_covariance_certificate,
    {**pcc, "K_XX": None},
    TypeError,
    "K_XX",
)
case(
    "posterior_covariance_certificate-K_XS=rows",
    certificate.posterior_covariance_certificate,
    {**pcc, "K_XS": K_XS[:-1]},
    ValueError,
    "K_XS",
)
case(
    "posterior_covariance_certificate-noise=None",
    certificate.posterior_covariance_certificate,
    {**pcc, "noise": None},
    TypeError,
    "noise",
)
case(
    "posterior_covariance_certificate-noise=shape",
    certificate.posterior_covariance_certificate,
    {**pcc, "noise": np.eye(3)},
    ValueError,
    "noise",
)
corpus.numbers(
    "posterior_covariance_certificate",
    certificate.posterior_covariance_certificate,
    pcc,
    "V",
    bad=(("negative", -1.0),),
    types=(("str", "0"), ("complex", 1j)),
)
case(
    "posterior_covariance_certificate-alpha",
    certificate.posterior_covariance_certificate,
    {**pcc, "alpha": "0.5"},
    TypeError,
    "alpha",
)
case(
    "validated_tolerance-s",
    tightening.validated_tolerance,
    {"Delta": DELTA, "s": 2.5},
    ValueError,
    "s",
)
rp = {"K_XS": K_XS, "Delta": DELTA, "smallest": float(np.linalg.eigvalsh(DELTA)[0])}
corpus.numbers("relative_plan", tightening.relative_plan, rp, "smallest")
case(
    "relative_plan-Delta=indefinite",
    tightening.relative_plan,
    {**rp, "Delta": -DELTA},
    ValueError,
    "Delta",
)
case("relative_plan-K_XS=str", tightening.relative_plan, {**rp, "K_XS": "K"}, TypeError, "K_XS")
ee = {
    "order": 4.0,
    "scales": (1.0, 1.1),
    "n": 6,
    "lengthscale": 0.5,
    "ridge": 0.1,
    "sigma": 1.0,
    "delta": 0.01,
}
case(
    "epsilon_enclosure_exp_1d-scales=negative",
    epsilon_enclosure_exp_1d,
    {**ee, "scales": (-1.0, 1.0)},
    ValueError,
    "scales[0]",
)
case(
    "epsilon_enclosure_exp_1d-scales=nan",
    epsilon_enclosure_exp_1d,
    {**ee, "scales": (np.nan, 1.0)},
    ValueError,
    "scales[0]",
)
case(
    "PosteriorSampling.with_scale-sigma=huge",
    POSTERIOR.with_scale,
    {"sigma": 1e300},
    ValueError,
    "sigma",
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_with_noise_clears_what_describes_the_designed_noise():
    """margin and nugget (synthetic noise) and design_rtol (posterior sampling) describe
    the designed noise; another noise has none. The resolution stays: it is part of the
    guarantee certified."""
    other = MECHANISM.with_noise(MECHANISM.noise_covariance.scaled(2.0))
    assert other.margin is None and other.nugget is None
    assert other.resolution == MECHANISM.resolution
    assert other.certificate().evidence["design_margin"] is None
    assert MECHANISM.margin is not None
    sampled = POSTERIOR.with_noise(POSTERIOR.noise_covariance.scaled(2.0))
    assert sampled.design_rtol is None and POSTERIOR.design_rtol is not None


def test_sample_synthetic_noise_draws_as_the_factor_does():
    draws = sample_synthetic_noise(MECHANISM.noise_covariance, size=3, seed=7)
    expected = MECHANISM.noise_covariance.sample(np.random.default_rng(7), 3)
    np.testing.assert_array_equal(draws, expected)
