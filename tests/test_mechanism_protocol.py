"""All six mechanisms speak one vocabulary: design, release(data, *, seed), certificate.

For each mechanism on a small instance: a release is a
``Release`` with the documented shape and a passing certificate; the same seed gives
the same values; fresh entropy gives other values; the same mechanism with half its
noise covariance fails its certificate, which is recomputed from the noise used.
"""

import numpy as np
import pytest

from ssa_privacy.gp.regression import RBF
from ssa_privacy.privacy import (
    CloakingMechanism,
    FactoredCovariance,
    LaplaceBinningMechanism,
    LinearGaussianMechanism,
    Mechanism,
    PosteriorSamplingMechanism,
    Release,
    StandardDPGPMechanism,
    SyntheticNoiseMechanism,
)

X5, Y5 = [0.0, 1.0, 2.0, 3.0, 4.0], [0.5, 1.0, -0.3, 0.2, 0.9]
X10 = np.linspace(0.05, 0.95, 10)


def _synthetic_noise():
    X = np.linspace(0.0, 1.0, 20)
    mech = SyntheticNoiseMechanism.for_region(RBF(0.2), X, X[8:12], 0.5, V=1e-4)
    return mech, np.sin(6.0 * X), (20,)


def _linear_gaussian():
    Sigma_XX = np.array([[1.0, 0.3], [0.3, 0.5]])
    mech = LinearGaussianMechanism.design(np.eye(2), Sigma_XX, 6.0, 0.01, method="lmi")
    return mech, np.ones((4, 2)), (4, 2)


def _cloaking():
    mech = CloakingMechanism.from_kernel(
        RBF(1.0), 0.5, X5, [0.5, 2.5], epsilon=1.0, delta=0.01, sensitivity=1.0
    )
    return mech, Y5, (2,)


def _standard():
    mech = StandardDPGPMechanism.from_kernel(
        RBF(1.0), 0.5, X5, [0.5, 2.5, 3.5], 1.0, 0.01, sensitivity=1.0
    )
    return mech, Y5, (3,)


def _binning():
    mech = LaplaceBinningMechanism([0.2, 0.4, 1.5, 2.5], [0.0, 1.0, 2.0, 3.0], 1.0, 2.0)
    return mech, [0.1, 0.3, -0.2, 0.5], (3,)


def _posterior_sampling():
    grid = np.linspace(0.0, 1.0, 5)
    mech = PosteriorSamplingMechanism(X10, grid, 5.0, 1e-5, lengthscale=1.0, ridge=3.0)
    return mech, np.sign(X10 - 0.5), (1, 5)


BUILDERS = {
    "synthetic-noise": (_synthetic_noise, "posterior-covariance"),
    "linear-gaussian": (_linear_gaussian, "pml"),
    "cloaking": (_cloaking, "dp"),
    "standard-dp-gp": (_standard, "dp"),
    "laplace-binning": (_binning, "dp"),
    "posterior-sampling": (_posterior_sampling, "renyi-dp"),
}


@pytest.fixture(params=list(BUILDERS), scope="module")
def case(request):
    build, notion = BUILDERS[request.param]
    mech, data, shape = build()
    return mech, data, shape, notion


def test_is_a_mechanism_with_a_factored_noise(case):
    mech, _, _, _ = case
    assert isinstance(mech, Mechanism)
    assert isinstance(mech.noise_covariance, FactoredCovariance)


def test_release_is_certified_and_has_the_documented_shape(case):
    mech, data, shape, notion = case
    release = mech.release(data, seed=0)
    assert isinstance(release, Release)
    assert release.values.shape == shape
    assert release.certificate.notion == notion
    assert (
        release.certificate.passed and release.certificate.margin >= -release.certificate.tolerance
    )
    assert release.seed_keys == {"seed": 0}


def test_same_seed_same_values_fresh_entropy_other_values(case):
    mech, data, _, _ = case
    first, again = mech.release(data, seed=0), mech.release(data, seed=0)
    np.testing.assert_array_equal(first.values, again.values)
    fresh = mech.release(data)
    assert fresh.seed_keys == {"seed": None}
    finite = np.isfinite(first.values)  # empty bins release NaN in both
    assert not np.array_equal(first.values[finite], fresh.values[finite])


def test_half_the_noise_fails_the_certificate(case):
    mech, data, _, _ = case
    weakened = mech.with_noise(mech.noise_covariance.scaled(0.5))
    assert not weakened.certificate().passed
    assert weakened.certificate().margin < 0
    assert not weakened.release(data, seed=0).certificate.passed


def test_the_designed_noise_passes_when_given_back(case):
    """with_noise on the mechanism's own covariance certifies the same guarantee."""
    mech, _, _, _ = case
    assert mech.with_noise(mech.noise_covariance).certificate().passed
