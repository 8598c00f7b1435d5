"""Bad input to ``privacy.dp_gp`` (cloaking, Hall, binning and their certificates), and
``with_noise`` leaving no stale derived attribute.

Each bad input is a one-line error naming the argument. The silent wrong answers it
closes: ``CloakingMechanism.from_kernel`` with a kernel of the wrong shape (the extra
test row was released), a stale ``noise_scale`` and ``laplace_scales`` after
``with_noise``, and the certificate helpers reading ``"0.5"``, True or a negative scale
as numbers.
"""

import numpy as np
from corpus import Corpus

from ssa_privacy.gp.kernels import RBF
from ssa_privacy.privacy.dp_gp import gaussian_delta, laplace, release
from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism
from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.privacy.dp_gp.hall import StandardDPGPMechanism, prior_noise_scale

X = np.linspace(0.0, 4.0, 8)
X_STAR = np.array([0.5, 2.5, 3.5])
Y = np.sin(X)
KERNEL = RBF(1.0)
LEVEL = {"epsilon": 1.0, "delta": 0.01, "sensitivity": 1.0}
CLOAK = CloakingMechanism.from_kernel(KERNEL, 0.5, X, X_STAR, **LEVEL)
HALL = StandardDPGPMechanism.from_kernel(KERNEL, 0.5, X, X_STAR, **LEVEL)
BINS = LaplaceBinningMechanism([0.2, 0.4, 1.5, 2.5], [0.0, 1.0, 2.0, 3.0], 1.0, 2.0)


def extra_row(A, B=None):
    """A kernel that returns one row too many."""
    K = KERNEL(A, A if B is None else B)
    return np.vstack([K, K[:1]])


def transposed(A, B=None):
    """A kernel that returns K(B, A)."""
    return KERNEL(A, A if B is None else B).T


corpus = Corpus()
case = corpus.case
fk = {"noise_variance": 0.5, "X": X, "X_star": X_STAR, **LEVEL}
for mechanism in (CloakingMechanism, StandardDPGPMechanism):
    name = mechanism.__name__
    case(
        f"{name}.from_kernel-extra-row",
        mechanism.from_kernel,
        {**fk, "kernel": extra_row},
        ValueError,
        "kernel",
    )
    case(
        f"{name}.from_kernel-transposed",
        mechanism.from_kernel,
        {**fk, "kernel": transposed},
        ValueError,
        "kernel",
    )
    case(
        f"{name}.from_kernel-nan",
        mechanism.from_kernel,
        {**fk, "kernel": lambda A, B=None: np.full((len(A), len(A if B is None else B)), np.nan)},
        ValueError,
        "kernel",
    )
    case(
        f"{name}.from_kernel-not-callable",
        mechanism.from_kernel,
        {**fk, "kernel": 1.0},
        TypeError,
        "kernel",
    )
    case(
        f"{name}.from_kernel-huge-sensitivity",
        mechanism.from_kernel,
        {**fk, "kernel": KERNEL, "sensitivity": 1e300},
        ValueError,
        "sensitivity",
    )
case(
    "Cloaking.with_noise-shape",
    CLOAK.with_noise,
    {"noise_covariance": np.eye(2)},
    ValueError,
    "noise_covariance",
)
case(
    "Hall.with_noise-indefinite",
    HALL.with_noise,
    {"noise_covariance": -np.eye(3)},
    ValueError,
    "noise_covariance",
)
case(
    "Binning.with_noise-shape",
    BINS.with_noise,
    {"noise_covariance": np.eye(2)},
    ValueError,
    "noise_covariance",
)
case(
    "prior_noise_scale-indefinite",
    prior_noise_scale,
    {"K_star_star": -KERNEL(X_STAR, X_STAR), "noise_covariance": HALL.noise_covariance},
    ValueError,
    "K_star_star",
)
case(
    "prior_noise_scale-noise",
    prior_noise_scale,
    {"K_star_star": KERNEL(X_STAR, X_STAR), "noise_covariance": np.eye(3)},
    TypeError,
    "noise_covariance",
)
bm = {"counts": np.array([2, 1, 1]), "sensitivity": 1.0}
case(
    "bin_mean_sensitivity-counts=0",
    laplace.bin_mean_sensitivity,
    {**bm, "counts": [2, 0]},
    ValueError,
    "counts",
)
case(
    "bin_mean_sensitivity-counts=1.5",
    laplace.bin_mean_sensitivity,
    {**bm, "counts": [2, 1.5]},
    ValueError,
    "counts",
)
case(
    "bin_mean_sensitivity-counts=bool",
    laplace.bin_mean_sensitivity,
    {**bm, "counts": [True, True]},
    TypeError,
    "counts",
)
case(
    "bin_mean_sensitivity-counts=2d",
    laplace.bin_mean_sensitivity,
    {**bm, "counts": np.ones((2, 2))},
    ValueError,
    "counts",
)
corpus.numbers(
    "bin_mean_sensitivity",
    laplace.bin_mean_sensitivity,
    bm,
    "sensitivity",
    bad=(("zero", 0.0), ("negative", -1.0)),
)
case(
    "check_variance_range-negative",
    laplace.check_variance_range,
    {"scales": [1.0, -2.0]},
    ValueError,
    "scales",
)
case("check_variance_range-str", laplace.check_variance_range, {"scales": "1"}, TypeError, "scales")
case(
    "check_variance_range-overflow",
    laplace.check_variance_range,
    {"scales": [1e300]},
    ValueError,
    "scales",
)
case(
    "covariance_scales-noise",
    laplace.covariance_scales,
    {"noise": np.eye(3), "occupied": np.ones(3, dtype=bool)},
    TypeError,
    "noise",
)
case(
    "covariance_scales-occupied=int",
    laplace.covariance_scales,
    {"noise": BINS.noise_covariance, "occupied": np.array([1, 1, 1])},
    TypeError,
    "occupied",
)
case(
    "covariance_scales-occupied=length",
    laplace.covariance_scales,
    {"noise": BINS.noise_covariance, "occupied": np.ones(2, dtype=bool)},
    ValueError,
    "occupied",
)
lc = {
    "scales": np.array([1.0, 2.0, 2.0]),
    "counts": np.array([2, 1, 1]),
    "epsilon": 1.0,
    "sensitivity": 1.0,
    "scale_error": 0.0,
}
corpus.numbers(
    "laplace_certificate", laplace.laplace_certificate, lc, "epsilon", bad=(("zero", 0.0),)
)
case(
    "laplace_certificate-scales=negative",
    laplace.laplace_certificate,
    {**lc, "scales": np.array([1.0, -2.0, 2.0])},
    ValueError,
    "scales",
)
case(
    "laplace_certificate-scales=length",
    laplace.laplace_certificate,
    {**lc, "scales": np.array([1.0, 2.0])},
    ValueError,
    "scales",
)
case(
    "laplace_certificate-scales=nan",
    laplace.laplace_certificate,
    {**lc, "scales": np.array([1.0, np.nan, 2.0])},
    ValueError,
    "scales",
)
case(
    "laplace_certificate-scale_error=negative",
    laplace.laplace_certificate,
    {**lc, "scale_error": -1e-3},
    ValueError,
    "scale_error",
)
case(
    "laplace_certificate-scale_error=str",
    laplace.laplace_certificate,
    {**lc, "scale_error": "0"},
    TypeError,
    "scale_error",
)
case(
    "laplace_certificate-scale_error=nan",
    laplace.laplace_certificate,
    {**lc, "scale_error": np.nan},
    ValueError,
    "scale_error",
)
corpus.numbers(
    "widened",
    gaussian_delta.widened,
    {"m": 1.0, "error": 1e-10},
    "m",
    bad=(("negative", -1.0),),
    finite=False,
)
corpus.numbers(
    "widened",
    gaussian_delta.widened,
    {"m": 1.0, "error": 1e-10},
    "error",
    bad=(("negative", -1.0),),
    finite=False,
)
de = {"m": 1.0, "lower": 0.999, "upper": 1.001, "epsilon": 1.0, "delta": 0.1}
case(
    "delta_enclosure-order",
    gaussian_delta.delta_enclosure,
    {**de, "lower": 1.1},
    ValueError,
    "lower",
)
corpus.numbers(
    "delta_enclosure", gaussian_delta.delta_enclosure, de, "epsilon", bad=(("zero", 0.0),)
)
corpus.numbers(
    "delta_enclosure", gaussian_delta.delta_enclosure, de, "delta", bad=(("0", 0.0), ("1", 1.0))
)
case(
    "least_inflation-certify",
    release.least_inflation,
    {"certify": None, "root": 1.0},
    TypeError,
    "certify",
)
corpus.numbers(
    "least_inflation",
    release.least_inflation,
    {"certify": lambda factor: CLOAK.certificate(), "root": 1.0},
    "root",
    bad=(("zero", 0.0),),
)
me = {"noise_covariance": CLOAK.noise_covariance, "shifts": CLOAK.C, "factor": 1.0}
corpus.numbers(
    "mahalanobis_enclosure",
    release.mahalanobis_enclosure,
    me,
    "factor",
    bad=(("zero", 0.0), ("negative", -1.0)),
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_the_corpus_is_large_enough():
    assert len(corpus.cases) >= 60


def test_with_noise_clears_the_scale_of_a_designed_noise():
    """``noise_scale`` and ``inflation`` describe the designed noise: after with_noise
    there is none (the release's details say so too)."""
    for mechanism in (CLOAK, HALL):
        other = mechanism.with_noise(mechanism.noise_covariance.scaled(0.5))
        assert other.noise_scale is None and other.inflation == 1.0
        assert other.release(Y, seed=0).details["noise_scale"] is None
        assert mechanism.noise_scale is not None


def test_the_laplace_scales_are_those_of_the_noise_in_use():
    """sqrt(diag / 2) of the covariance drawn from: halving the variance divides each
    scale by sqrt(2), on the mechanism and in its release."""
    other = BINS.with_noise(BINS.noise_covariance.scaled(0.5))
    np.testing.assert_allclose(other.laplace_scales, BINS.laplace_scales / np.sqrt(2), rtol=1e-14)
    release_scales = other.release([0.1, 0.3, -0.2, 0.5], seed=0).details["laplace_scales"]
    np.testing.assert_array_equal(release_scales, other.laplace_scales)


def test_a_kernel_of_the_right_shape_gives_the_same_mechanism_as_its_blocks():
    """from_kernel builds exactly the mechanism of kernel(X_star, X) and kernel(X)."""
    direct = CloakingMechanism(KERNEL(X_STAR, X), KERNEL(X, X), 0.5, **LEVEL)
    np.testing.assert_array_equal(direct.C, CLOAK.C)
