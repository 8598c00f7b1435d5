"""The DP-GP mechanisms of [SMI] in the mechanism vocabulary: cloaking, Hall's standard
method and Laplace binning (analytic calibration), their certificates, and the deprecated
functions of 0.1 that delegate to them."""

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.gp.regression import RBF
from ssa_privacy.privacy import accounting, dp_gp
from ssa_privacy.privacy.accounting import analytic_gaussian_ratio
from ssa_privacy.privacy.dp_gp import binning, cloaking, ellipsoid, hall
from ssa_privacy.privacy.dp_gp import release as dp_release
from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism
from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.privacy.dp_gp.hall import StandardDPGPMechanism, rkhs_sensitivity
from ssa_privacy.privacy.dp_gp.release import PrivacyCheck, cloaking_matrix, gaussian_check
from ssa_privacy.privacy.mechanism import FactoredCovariance, Mechanism, Release
from ssa_privacy.privacy.rounding import RULE

X = np.array([0.0, 1, 2, 3, 4])
Y = np.array([0.5, 1.0, -0.3, 0.2, 0.9])
X_STAR = np.array([0.5, 2.5, 3.5])
S2, EPSILON, DELTA, D = 0.5, 2.0, 1e-3, 1.5
EDGES = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def exact_delta(m, epsilon):
    """Balle and Wang's exact delta, written here with scipy.stats (independent code)."""
    return stats.norm.cdf(m / 2 - epsilon / m) - np.exp(epsilon) * stats.norm.cdf(
        -m / 2 - epsilon / m
    )


def worst_shift(Sigma, shifts):
    """max_i ||Sigma^{-1/2} s_i|| by a dense Cholesky solve."""
    L = linalg.cholesky(Sigma, lower=True)
    return float(np.max(np.linalg.norm(linalg.solve_triangular(L, shifts, lower=True), axis=0)))


def mechanisms():
    kernel = RBF(1.0)
    return {
        "cloaking": CloakingMechanism.from_kernel(kernel, S2, X, X_STAR, EPSILON, DELTA, D),
        "standard": StandardDPGPMechanism.from_kernel(kernel, S2, X, X_STAR, EPSILON, DELTA, D),
        "binning": LaplaceBinningMechanism(X, EDGES, EPSILON, D),
    }


SHAPES = {"cloaking": (3,), "standard": (3,), "binning": (5,)}


# --------------------------------------------------------------------------------------
# Acceptance: release, certificate, seeds, a weakened mechanism
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cloaking", "standard", "binning"])
def test_release_is_certified_reproducible_and_weakening_fails(name):
    mechanism = mechanisms()[name]
    assert isinstance(mechanism, Mechanism)
    release = mechanism.release(Y, seed=0)
    assert isinstance(release, Release) and release.values.shape == SHAPES[name]
    assert release.certificate.passed and release.certificate.notion == "dp"
    assert release.seed_keys == {"seed": 0}
    assert isinstance(release.noise_covariance, FactoredCovariance)
    np.testing.assert_array_equal(mechanism.release(Y, seed=0).values, release.values)
    assert not np.array_equal(mechanism.release(Y).values, mechanism.release(Y).values)
    weakened = mechanism.with_noise(mechanism.noise_covariance.scaled(0.5))
    assert not weakened.certificate().passed
    assert not weakened.release(Y, seed=0).certificate.passed


@pytest.mark.parametrize("name", ["cloaking", "standard"])
def test_gaussian_certificate_against_an_independent_computation(name):
    """Analytic calibration is tight: the worst shift, recomputed densely from the noise
    covariance, has exact delta = target; the certificate reports those numbers."""
    mechanism = mechanisms()[name]
    Sigma = mechanism.noise_covariance.matrix()
    C = cloaking_matrix(RBF(1.0)(X_STAR, X), RBF(1.0)(X), S2)[0]
    finite_shift = worst_shift(Sigma, D * C)
    certificate = mechanism.certificate()
    m = certificate.evidence["mahalanobis_sensitivity"]
    if name == "cloaking":
        assert m == pytest.approx(finite_shift, rel=1e-9)
    else:  # Hall: the RKHS bound dominates the shift at any finite test set
        Delta = rkhs_sensitivity(RBF(1.0)(X), S2, D, "exact")
        assert m == pytest.approx(Delta / np.sqrt(Sigma[0, 0] / RBF(1.0)(X_STAR)[0, 0]), rel=1e-9)
        assert finite_shift <= m
    assert m == pytest.approx(analytic_gaussian_ratio(EPSILON, DELTA), rel=1e-9)
    assert certificate.evidence["exact_delta"] == pytest.approx(exact_delta(m, EPSILON), rel=1e-8)
    assert certificate.margin == pytest.approx(DELTA - exact_delta(m, EPSILON), abs=1e-9 * DELTA)
    # A rigorous rounding bound, tiny on these well-conditioned inputs; the design leaves
    # a margin above it (inflating the noise by at most 1e-12 if it had to).
    assert 0 < certificate.tolerance < 1e-10 * DELTA
    assert certificate.margin - certificate.tolerance >= 0
    assert 1.0 <= certificate.evidence["design_inflation"] < 1 + 1e-12
    assert certificate.parameters == {"epsilon": EPSILON, "delta": DELTA, "calibration": "analytic"}


def test_standard_noise_is_the_scaled_prior_covariance():
    mechanism = mechanisms()["standard"]
    Delta = rkhs_sensitivity(RBF(1.0)(X), S2, D, "exact")
    scale = Delta / analytic_gaussian_ratio(EPSILON, DELTA)
    K_star = RBF(1.0)(X_STAR) + mechanism.prior_jitter * np.eye(3)
    np.testing.assert_allclose(mechanism.noise_covariance.matrix(), scale**2 * K_star, rtol=1e-9)


def test_laplace_certificate_recomputes_epsilon_from_the_covariance():
    mechanism = mechanisms()["binning"]
    counts = np.histogram(X, EDGES)[0]  # [0, 1), ..., [4, 5]: one point each
    np.testing.assert_array_equal(mechanism.counts, counts)
    variance = np.diag(mechanism.noise_covariance.matrix())
    np.testing.assert_allclose(variance, 2 * (D / (counts * EPSILON)) ** 2, rtol=1e-12)
    certificate = mechanism.certificate()
    assert certificate.parameters == {"epsilon": EPSILON, "delta": 0.0}
    assert certificate.evidence["max_privacy_loss"] == pytest.approx(EPSILON, rel=1e-12)
    weakened = mechanism.with_noise(mechanism.noise_covariance.scaled(0.5)).certificate()
    assert weakened.evidence["max_privacy_loss"] == pytest.approx(np.sqrt(2) * EPSILON)
    assert weakened.margin == pytest.approx((1 - np.sqrt(2)) * EPSILON)


def test_laplace_mechanism_certificate_catches_a_wrong_calibration(monkeypatch):
    """The calibration is one private function; the certificate does not call it."""
    calibrate = binning._laplace_scales
    monkeypatch.setattr(binning, "_laplace_scales", lambda *args: 0.5 * calibrate(*args))
    certificate = LaplaceBinningMechanism(X, EDGES, EPSILON, D).certificate()
    assert not certificate.passed
    assert certificate.evidence["max_privacy_loss"] == pytest.approx(2 * EPSILON)


def test_noise_outside_the_shifts_gives_no_guarantee():
    """A covariance missing a direction the outputs can move in (or a bin) fails."""
    cloak = mechanisms()["cloaking"]
    Sigma = cloak.noise_covariance.matrix()
    U = np.linalg.eigh(Sigma)[1][:, 1:]
    projected = U @ U.T @ Sigma @ U @ U.T
    assert cloak.with_noise(projected).certificate().evidence["mahalanobis_sensitivity"] == np.inf
    assert not cloak.with_noise(projected).certificate().passed
    bins = mechanisms()["binning"]
    diagonal = np.diag(bins.noise_covariance.matrix()).copy()
    diagonal[2] = 0.0
    assert not bins.with_noise(np.diag(diagonal)).certificate().passed


@pytest.mark.parametrize("name", ["cloaking", "standard", "binning"])
def test_released_noise_has_the_certified_covariance(name):
    """Monte Carlo: the sample covariance of release - release_without_noise agrees with
    noise_covariance within 6 standard errors (entrywise)."""
    mechanism = mechanisms()[name]
    draws = 4000
    seeds = np.random.SeedSequence(11).spawn(draws)
    values = np.array([mechanism.release(Y, seed=s).values for s in seeds])
    Sigma = mechanism.noise_covariance.matrix()
    centred = values - values.mean(axis=0)
    estimate = centred.T @ centred / (draws - 1)
    kurtosis = 6.0 if name == "binning" else 3.0  # Laplace noise: excess kurtosis 3
    variance = np.outer(np.diag(Sigma), np.diag(Sigma)) + Sigma**2
    variance[np.diag_indices(len(Sigma))] = (kurtosis - 1) * np.diag(Sigma) ** 2
    assert np.all(np.abs(estimate - Sigma) <= 6 * np.sqrt(variance / draws) + 1e-12)


# --------------------------------------------------------------------------------------
# One solved ellipsoid, many privacy levels; the old forms
# --------------------------------------------------------------------------------------


def test_at_reuses_the_ellipsoid_and_equals_a_fresh_mechanism():
    base = CloakingMechanism(RBF(1.0)(X_STAR, X), RBF(1.0)(X), S2)
    for epsilon, delta, d in [(0.5, 1e-2, 1.0), (4.0, 1e-6, 2.0)]:
        level = base.at(epsilon, delta, d)
        assert level.solution is base.solution and level.certificate().passed
        fresh = CloakingMechanism(RBF(1.0)(X_STAR, X), RBF(1.0)(X), S2, epsilon, delta, d)
        np.testing.assert_allclose(
            level.noise_covariance.matrix(), fresh.noise_covariance.matrix(), rtol=1e-12
        )
        np.testing.assert_allclose(
            level.release(Y, seed=3).values, fresh.release(Y, seed=3).values, rtol=1e-12
        )
    assert base.at(1.0, 0.01, 1.0).at(2.0, 0.01).sensitivity == 1.0
    hall_level = base.at(0.5, 0.01, 1.0, calibration="hall")
    m = hall_level.certificate().evidence["mahalanobis_sensitivity"]
    assert m == pytest.approx(0.5 / np.sqrt(2 * np.log(2 / 0.01)), rel=1e-9)


def test_without_a_level_the_mechanism_has_no_noise_and_one_release_form():
    K_star_X, K_XX = RBF(1.0)(X_STAR, X), RBF(1.0)(X)
    bare = CloakingMechanism(K_star_X, K_XX, S2)
    assert bare.noise_covariance is None and bare.noise_scale is None
    with pytest.raises(ValueError, match="privacy level"):
        bare.release(Y, seed=0)
    level = bare.at(EPSILON, DELTA, D)
    np.testing.assert_allclose(
        level.noise_covariance.matrix(), level.noise_scale**2 * level.M, rtol=1e-10
    )
    with pytest.raises(TypeError):
        level.release(Y, EPSILON, DELTA, D, 5)  # the 0.1 form: the level is the mechanism's


def deprecated(module, name):
    """The deprecated ``module.name``, fetched with its DeprecationWarning."""
    with pytest.warns(
        DeprecationWarning, match=rf"{name} is deprecated .* removed in ssa_privacy 0\.3"
    ):
        return getattr(module, name)


def test_deprecated_cloaking_release_gives_the_mechanism_release():
    new = mechanisms()["cloaking"].release(Y, seed=5)
    function = deprecated(cloaking, "cloaking_release")
    old = function(RBF(1.0), S2, X, Y, X_STAR, EPSILON, DELTA, D, seed=5, calibration="analytic")
    np.testing.assert_array_equal(old.values, new.values)
    np.testing.assert_allclose(old.noise_covariance, new.noise_covariance.matrix(), rtol=1e-10)
    assert isinstance(old.check, PrivacyCheck) and old.check.passed
    assert old.record()["check_passed"] and (old.epsilon, old.delta) == (EPSILON, DELTA)
    assert isinstance(old, deprecated(dp_release, "DPRelease"))


def test_deprecated_cloaking_noise_covariance_takes_both_orders():
    K_star_X, K_XX = RBF(1.0)(X_STAR, X), RBF(1.0)(X)
    Sigma = mechanisms()["cloaking"].noise_covariance.matrix()
    function = deprecated(cloaking, "cloaking_noise_covariance")
    old_order = function(K_star_X, K_XX, S2, D, EPSILON, DELTA, calibration="analytic")
    new_order = function(K_star_X, K_XX, S2, EPSILON, DELTA, sensitivity=D, calibration="analytic")
    for dense in (old_order, new_order):
        np.testing.assert_allclose(dense, Sigma, rtol=1e-10)
    with pytest.raises(TypeError, match="sensitivity"):
        function(K_star_X, K_XX, S2, EPSILON, DELTA)


def test_deprecated_standard_release_gives_the_mechanism_release():
    new = mechanisms()["standard"].release(Y, seed=5)
    function = deprecated(hall, "standard_release")
    old = function(RBF(1.0), S2, X, Y, X_STAR, EPSILON, DELTA, D, seed=5, calibration="analytic")
    np.testing.assert_array_equal(old.values, new.values)
    np.testing.assert_array_equal(old.noise_covariance, new.noise_covariance.matrix())
    assert old.check.passed and set(old.details) == {
        "rkhs_sensitivity",
        "noise_scale",
        "jitter",
        "prior_jitter",
    }


def test_deprecated_laplace_bin_means_gives_the_mechanism_release():
    binned = mechanisms()["binning"].release(Y, seed=5).details["binned"]
    legacy = deprecated(binning, "laplace_bin_means")(X, Y, EDGES, EPSILON, D, seed=5)
    np.testing.assert_array_equal(binned.values, legacy.values)
    assert legacy.check.passed and legacy.check.evidence["occupied_bins"] == 5


def test_deprecated_small_names_still_work():
    C = cloaking_matrix(RBF(1.0)(X_STAR, X), RBF(1.0)(X), S2)[0]
    dual = deprecated(dp_gp, "cloaking_dual")(C)
    np.testing.assert_array_equal(dual[0], ellipsoid.d_optimal_design(C, max_iter=100_000)[0])
    assert deprecated(ellipsoid, "COARSE_GAP") == 1e-5
    delta = deprecated(accounting, "analytic_gaussian_delta")(1.0, 0.5)
    assert delta == accounting.gaussian_mechanism_delta(0.5, 1.0)


def test_gaussian_check_builds_a_certificate_and_the_old_check():
    certificate = gaussian_check("test", 0.5, 1.0, 0.01, "hall", extra=3)
    assert certificate.notion == "dp" and certificate.passed
    assert certificate.margin == pytest.approx(0.01 - exact_delta(0.5, 1.0), rel=1e-9)
    check = PrivacyCheck.from_certificate(certificate)
    assert check.mechanism == "test" and (check.epsilon, check.delta) == (1.0, 0.01)
    assert list(check.evidence) == [
        "calibration",
        "mahalanobis_sensitivity",
        "sensitivity_lower",
        "sensitivity_upper",
        "loss_tail",
        "exact_delta",
        "exact_delta_upper",
        "hall_condition",
        "extra",
    ]
    assert certificate.evidence["rule"] == RULE
    assert check.record()["check_passed"] and check.certificate is certificate
    failing = gaussian_check("test", 3.0, 1.0, 0.01, "analytic")
    assert not failing.passed and failing.margin < -failing.tolerance
    assert gaussian_check("test", np.inf, 1.0, 0.01, "analytic").evidence["exact_delta"] == 1.0


K_SX, I5 = np.ones((2, 5)), np.eye(5)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: CloakingMechanism(K_SX, I5, 0.1, 1.0, 0.01), ValueError, "sensitivity"),
        (lambda: CloakingMechanism(K_SX, I5, 0.1, 2.0, 0.01, 1.0, calibration="hall"), ValueError, "analytic"),
        (lambda: CloakingMechanism(K_SX, I5, 0.1, calibration="laplace"), ValueError, "calibration"),
        (lambda: mechanisms()["cloaking"].release(Y, seed=0, mean=1.0), TypeError, "mean"),
        (lambda: mechanisms()["cloaking"].release(Y, EPSILON, DELTA, D), TypeError, "positional"),
        (lambda: mechanisms()["cloaking"].release(Y[:3], seed=0), ValueError, "y has 3"),
        (lambda: mechanisms()["cloaking"].with_noise(np.eye(2)), ValueError, "noise_covariance"),
        (lambda: mechanisms()["standard"].release(Y, seed=1.5), TypeError, "seed"),
        (lambda: StandardDPGPMechanism(K_SX, I5, 0.1, np.eye(3), 1.0, 0.01, 1.0), ValueError, "K_star_star"),
        (lambda: LaplaceBinningMechanism(X, EDGES, 0.0, 1.0), ValueError, "epsilon"),
        (lambda: LaplaceBinningMechanism(X, [0.0, 1.0], 1.0, 1.0), ValueError, "outside"),
        (lambda: mechanisms()["binning"].release(Y[:2], seed=0), ValueError, "y"),
    ],
)  # fmt: skip
def test_bad_input_raises_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_modules_keep_their_concepts():
    """The mechanisms live in their own modules (the vocabulary's cross-references)."""
    assert cloaking.CloakingMechanism.__module__ == "ssa_privacy.privacy.dp_gp.cloaking"
    assert hall.StandardDPGPMechanism.__module__ == "ssa_privacy.privacy.dp_gp.hall"
    assert binning.LaplaceBinningMechanism.__module__ == "ssa_privacy.privacy.dp_gp.binning"
