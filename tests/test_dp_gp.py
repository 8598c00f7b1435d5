"""Tests of the DP-GP functions of [SMI]: test vectors, optimality and privacy checks.

The test vectors (toy example and !Kung) were computed independently of this package
with numpy/scipy from the formulas of docs/theory/dp-gp.rst; the toy example is its
"Toy example" section.
"""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, linalg, stats

from ssa_privacy.engine.data import KUNG_FILE
from ssa_privacy.engine.data import load_kung_women as load_women
from ssa_privacy.gp.regression import RBF
from ssa_privacy.privacy import accounting, dp_gp
from ssa_privacy.privacy.dp_gp import (
    binning,
    cloaking,
    ellipsoid,
    hall,
    hyperparameters,
    normalisation,
)
from ssa_privacy.privacy.dp_gp import release as dp_release

# The toy example (docs/theory/dp-gp.rst).
X1 = np.array([0.0, 1, 2, 3, 4])
Y1 = np.array([0.5, 1.0, -0.3, 0.2, 0.9])
XS1 = np.array([0.5, 2.5, 3.5])
S2 = 0.5


def toy_cloaking_matrix():
    kernel = RBF(1.0)
    return dp_release.cloaking_matrix(kernel(XS1, X1), kernel(X1), S2)[0]


def cloaking_level(kernel, noise_variance, X, X_star, epsilon, delta, d):
    """The cloaking mechanism with Hall et al.'s calibration, as the paper."""
    return cloaking.CloakingMechanism.from_kernel(
        kernel, noise_variance, X, X_star, epsilon, delta, d, calibration="hall"
    )


def bin_means(X, y, edges, epsilon, d, seed):
    """The Laplace bin means and the release's certificate."""
    release = binning.LaplaceBinningMechanism(X, edges, epsilon, d).release(y, seed=seed)
    return release.details["binned"], release.certificate


def binomial_interval(successes, trials, level):
    """Two-sided Clopper-Pearson interval."""
    low = stats.beta.ppf(level / 2, successes, trials - successes + 1) if successes else 0.0
    high = (
        stats.beta.ppf(1 - level / 2, successes + 1, trials - successes)
        if successes < trials
        else 1.0
    )
    return low, high


# --------------------------------------------------------------------------------------
# Test vectors
# --------------------------------------------------------------------------------------


def test_toy_vectors_standard_method():
    K = RBF(1.0)(X1)
    assert accounting.c_delta(0.01) == pytest.approx(3.2552472614, rel=1e-9)
    assert hall.rkhs_sensitivity(K, S2, 1.0, "infinity_norm") == pytest.approx(
        1.8776319461, rel=1e-9
    )
    assert hall.rkhs_sensitivity(K, S2, 1.0, "paper_refinement") == pytest.approx(
        1.1078447041, rel=1e-9
    )
    mechanism = hall.StandardDPGPMechanism.from_kernel(
        RBF(1.0), S2, X1, XS1, 1.0, 0.01, 1.0, method="paper_refinement", calibration="hall"
    )
    np.testing.assert_allclose(np.diag(mechanism.noise_covariance.matrix()), 13.005461, rtol=1e-6)


def test_toy_vectors_cloaking():
    C = toy_cloaking_matrix()
    np.testing.assert_allclose(C @ Y1, [0.616679, -0.020984, 0.435882], atol=1e-6)
    np.testing.assert_allclose(
        C,
        [
            [0.419959, 0.412343, 0.019892, -0.021107, 0.005051],
            [-0.018932, 0.019421, 0.413346, 0.415065, 0.011169],
            [0.005051, -0.021107, 0.019892, 0.412343, 0.419959],
        ],
        atol=1e-6,
    )
    solution = ellipsoid.minimum_volume_ellipsoid(C)
    np.testing.assert_allclose(
        solution.lambdas, [0.997277, 0.0, 0.666747, 0.625463, 0.710512], atol=2e-6
    )
    M = solution.covariance()
    np.testing.assert_allclose(
        M,
        [
            [0.176446, -0.007886, -0.001557],
            [-0.007886, 0.222117, 0.115767],
            [-0.001557, 0.115767, 0.231945],
        ],
        atol=2e-6,
    )
    assert np.linalg.slogdet(M)[1] == pytest.approx(-5.0036384, abs=1e-6)
    Sigma = cloaking_level(RBF(1.0), S2, X1, XS1, 1.0, 0.01, 1.0).noise_covariance.matrix()
    np.testing.assert_allclose(np.diag(Sigma), [1.869737, 2.353695, 2.457834], rtol=1e-5)


def test_authors_gradient_descent_reproduced():
    """The authors' fixed-step optimiser converges slowly to the same optimum (556 steps)."""
    lambdas, iterations, max_leverage = ellipsoid.projected_gradient_design(
        toy_cloaking_matrix(), seed=0
    )
    assert iterations == 556
    np.testing.assert_allclose(lambdas, [0.99709, 0.0, 0.66673, 0.62549, 0.71051], atol=2e-5)
    assert max_leverage == pytest.approx(1.00019, abs=1e-5)


@pytest.mark.data(KUNG_FILE)
def test_kung_vectors():
    age, height = load_women()
    assert len(age) == 287
    y, norm = normalisation.clip_and_normalise(height, 100.0)
    assert (norm.centre, norm.mean, norm.std, norm.sensitivity) == pytest.approx(
        (108.2675, 134.604617, 25.742149, 3.884680), abs=1e-6
    )
    K = RBF(25.0)(age)
    assert hall.rkhs_sensitivity(K, 0.3, 1.0, "paper_refinement") == pytest.approx(
        4.381635, abs=1e-6
    )
    assert hall.rkhs_sensitivity(K, 0.3, 1.0, "infinity_norm") == pytest.approx(8.446767, abs=1e-6)
    assert hall.rkhs_sensitivity(K, 0.3, norm.sensitivity, "exact") == pytest.approx(
        1.937, abs=1e-3
    )
    mechanism = cloaking_level(
        RBF(25.0), 0.3, age, 1.8 * np.arange(100), 1.0, 0.01, norm.sensitivity
    )
    release = mechanism.release(y, seed=0)
    sd = norm.std * np.sqrt(np.diag(release.noise_covariance.matrix()))
    assert release.details["rank"] == 14
    assert np.median(sd) == pytest.approx(14.2, abs=0.05)
    np.testing.assert_allclose(sd[[0, 20, 40, 60, 80]], [12.5, 6.2, 36.7, 174.3, 29.4], atol=0.1)


# --------------------------------------------------------------------------------------
# The cloaking covariance: optimality conditions and the privacy guarantee
# --------------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(0, 12), st.integers(0, 2**32 - 1))
def test_ellipsoid_satisfies_optimality_conditions(m, extra, seed):
    """KKT: c_i^T M^{-1} c_i <= 1, sum lambda = rank, lambda_i (1 - c_i^T M^{-1} c_i) = 0."""
    rng = np.random.default_rng(seed)
    C = rng.standard_normal((m, m + extra)) * rng.uniform(0.1, 2.0, m + extra)
    solution = ellipsoid.minimum_volume_ellipsoid(C, tol=1e-9)
    M = solution.covariance()
    leverage = np.sum(C * linalg.solve(M, C, assume_a="pos"), axis=0)
    assert solution.rank == m
    assert leverage.max() <= 1 + 1e-7
    assert solution.lambdas.sum() == pytest.approx(m, abs=1e-6)
    assert np.max(solution.lambdas * (1 - leverage)) <= 1e-7
    np.testing.assert_allclose(M, (C * solution.lambdas) @ C.T, atol=1e-8 * np.abs(M).max())


def test_ellipsoid_matches_an_independent_convex_solver():
    """Same minimal log det as cvxpy (CLARABEL) on the primal problem in W = M^{-1}."""
    rng = np.random.default_rng(3)
    C = rng.standard_normal((4, 25))
    W = cp.Variable((4, 4), PSD=True)
    problem = cp.Problem(
        cp.Maximize(cp.log_det(W)), [cp.quad_form(C[:, i], W) <= 1 for i in range(25)]
    )
    problem.solve(solver="CLARABEL")
    assert problem.status == cp.OPTIMAL
    ours = np.linalg.slogdet(ellipsoid.minimum_volume_ellipsoid(C).covariance())[1]
    assert ours == pytest.approx(-problem.value, abs=1e-5)


def test_rank_deficient_cloaking_is_covered_in_every_direction():
    """Duplicate test points: the noise still covers every column, and its scale is exact."""
    kernel = RBF(2.0)
    X, X_star = np.linspace(0, 10, 30), np.array([1.0, 1.0, 5.0, 5.0, 9.0])
    C, _ = dp_release.cloaking_matrix(kernel(X_star, X), kernel(X), 0.1)
    solution = ellipsoid.minimum_volume_ellipsoid(C)
    assert solution.rank == 3
    assert np.max(solution.mahalanobis_squared(C)) <= 1 + ellipsoid.NULL_SPACE_SHARE + 1e-7


def test_worst_case_shift_has_mahalanobis_norm_epsilon_over_c():
    """The release covariance is scaled so that max_i ||Sigma^{-1/2} d c_i|| = epsilon / c(delta)."""
    d, epsilon, delta = 2.0, 0.5, 1e-3
    Sigma = cloaking_level(RBF(1.0), S2, X1, XS1, epsilon, delta, d).noise_covariance.matrix()
    C = toy_cloaking_matrix()
    m = np.sqrt(np.max(np.sum((d * C) * linalg.solve(Sigma, d * C, assume_a="pos"), axis=0)))
    assert m == pytest.approx(epsilon / accounting.c_delta(delta), rel=1e-7)


def test_one_cloaking_mechanism_serves_every_privacy_level():
    """The noise shape is solved once; each (epsilon, delta, d) release still meets Hall's
    condition max_i ||Sigma^{-1/2} d c_i|| = epsilon / c(delta) exactly, and its check passes."""
    mechanism = cloaking.CloakingMechanism(RBF(1.0)(XS1, X1), RBF(1.0)(X1), S2)
    C = toy_cloaking_matrix()
    for epsilon, delta, d in [(0.3, 0.01, 1.0), (1.0, 1e-5, 2.0), (0.7, 0.1, 0.5)]:
        release = mechanism.at(epsilon, delta, d, calibration="hall").release(Y1, seed=0)
        Sigma = release.noise_covariance.matrix()
        m = np.sqrt(np.max(np.sum((d * C) * linalg.solve(Sigma, d * C, assume_a="pos"), axis=0)))
        assert m == pytest.approx(epsilon / accounting.c_delta(delta), rel=1e-7)
        certificate = release.certificate
        assert certificate.passed and certificate.parameters["epsilon"] == epsilon
        assert certificate.parameters["delta"] == delta


def test_empirical_privacy_loss_check():
    """The authors' empirical test: for every training index perturbed by d, P[loss > epsilon] < delta."""
    rng = np.random.default_rng(0)
    X = 10 * rng.standard_normal(50)
    y = np.sin(X) + 0.5 * rng.standard_normal(50)
    X_star = np.array([0.0, 2, 4, 6, 8])
    d, epsilon, delta, draws = 2.0, 1.0, 0.01, 200_000
    release = cloaking_level(RBF(1.0), 0.25, X, X_star, epsilon, delta, d).release(y, seed=1)
    assert release.certificate.passed
    C, _ = dp_release.cloaking_matrix(RBF(1.0)(X_star, X), RBF(1.0)(X), 0.25)
    Sigma = release.noise_covariance.matrix()
    z = rng.multivariate_normal(np.zeros(5), Sigma, size=draws)
    base = stats.multivariate_normal(np.zeros(5), Sigma)
    log_base = base.logpdf(z)
    level = 1e-6 / len(X)
    for j in range(len(X)):
        shift = d * C[:, j]
        forward = np.mean(log_base - base.logpdf(z + shift) > epsilon)
        backward = np.mean(log_base - base.logpdf(z - shift) > epsilon)
        m = np.sqrt(shift @ linalg.solve(Sigma, shift, assume_a="pos"))
        expected = accounting.privacy_loss_tail(m, epsilon)
        for fraction in (forward, backward):
            assert fraction < delta
            low, high = binomial_interval(int(round(fraction * draws)), draws, level)
            assert low <= expected <= high


def test_gaussian_mechanism_delta_against_its_definition():
    """Exact delta = sup over events, computed by integrating the positive part of p - e^eps q."""
    m, epsilon = 0.8, 0.7
    integrand = lambda x: max(stats.norm.pdf(x, m) - np.exp(epsilon) * stats.norm.pdf(x), 0.0)  # noqa: E731
    value, _ = integrate.quad(integrand, -10, 12, points=[m / 2 + epsilon / m])
    assert accounting.gaussian_mechanism_delta(m, epsilon) == pytest.approx(value, rel=1e-7)
    assert accounting.gaussian_mechanism_delta(m, epsilon) <= accounting.privacy_loss_tail(
        m, epsilon
    )


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 5.0])
def test_analytic_calibration_is_tight_and_below_hall(epsilon):
    s = accounting.noise_multiplier(epsilon, 0.01, "analytic")
    assert accounting.gaussian_mechanism_delta(1 / s, epsilon) == pytest.approx(0.01, rel=1e-8)
    if epsilon <= 1:
        assert s < accounting.noise_multiplier(epsilon, 0.01, "hall")


# --------------------------------------------------------------------------------------
# RKHS sensitivity of the standard method
# --------------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 12), st.floats(0.3, 5.0), st.floats(0.05, 2.0), st.integers(0, 2**32 - 1))
def test_rkhs_bounds_are_ordered_and_dominate_the_test_set_shift(n, lengthscale, s2, seed):
    """exact <= rigorous refinement <= infinity norm, and every finite test set sees at most exact."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, n)
    kernel = RBF(lengthscale)
    K = kernel(X)
    exact, rigorous, infinity = (
        hall.rkhs_sensitivity(K, s2, 1.0, m)
        for m in ("exact", "rigorous_refinement", "infinity_norm")
    )
    assert exact <= rigorous * (1 + 1e-9) and rigorous <= infinity * (1 + 1e-9)
    X_star = rng.uniform(-2, 12, 3)
    C, _ = dp_release.cloaking_matrix(kernel(X_star, X), K, s2)
    K_star = kernel(X_star) + 1e-9 * np.eye(3)
    shift = np.sqrt(np.max(np.sum(C * linalg.solve(K_star, C, assume_a="pos"), axis=0)))
    assert shift <= exact * (1 + 1e-6) + 1e-6


@pytest.mark.data(KUNG_FILE)
def test_paper_refinement_is_flagged_and_exact_is_much_smaller_on_kung():
    age, _ = load_women()
    K = RBF(25.0)(age)
    assert hall.rkhs_sensitivity(K, 0.3, 1.0, "exact") < 0.2 * hall.rkhs_sensitivity(
        K, 0.3, 1.0, "paper_refinement"
    )
    assert hall.rkhs_sensitivity(K, 0.3, 1.0, "exact") <= 1 / (2 * np.sqrt(0.3))


# --------------------------------------------------------------------------------------
# Binning and hyperparameter selection
# --------------------------------------------------------------------------------------


def test_laplace_bins_are_half_open_and_calibrated():
    X = np.array([0.0, 0.5, 1.0, 1.0, 1.9, 2.0])
    y = np.array([0.1, 0.2, 0.3, -0.4, 0.5, 0.6])
    binned, certificate = bin_means(X, y, [0.0, 1.0, 2.0, 3.0], 0.5, 2.0, seed=0)
    np.testing.assert_array_equal(binned.counts, [2, 3, 1])
    np.testing.assert_allclose(binned.laplace_scales, 2.0 / (binned.counts * 0.5))
    assert certificate.passed and certificate.evidence["max_privacy_loss"] == pytest.approx(0.5)
    assert binned.check.passed
    prediction = binning.simple_binning_predict(binned, [0.2, 2.5, 7.0], fill=0.0)
    np.testing.assert_allclose(prediction, [binned.values[0], binned.values[2], 0.0])


def test_laplace_noise_has_the_stated_scale():
    """Empirical sd of the DP bin mean over many releases agrees with sqrt(2) * scale."""
    X, y = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0])
    rng = np.random.default_rng(0)
    draws = np.array(
        [bin_means(X, y, [0.0, 1.0], 1.0, 1.0, seed=rng)[0].values[0] for _ in range(4000)]
    )
    variance_ratio = np.var(draws) / (2 * 0.25**2)
    low, high = stats.chi2.ppf([1e-4, 1 - 1e-4], 3999) / 3999
    assert np.mean(draws) == pytest.approx(2.5, abs=5 * 0.25 * np.sqrt(2 / 4000))
    assert 0.8 * low <= variance_ratio <= 1.25 * high  # Laplace kurtosis widens the chi2 band


@pytest.mark.parametrize(
    "boxes", [(0.0, 1.0, 0.5, 2.0), (-1.0, 0.2, -1.0, 0.2), (0.0, 3.0, 5.0, 6.0)]
)
def test_integral_kernel_against_numerical_integration(boxes):
    s, t, s2, t2 = boxes
    kernel = binning.IntegralRBF(lengthscale=0.7, variance=1.3)
    rbf = lambda u, v: 1.3 * np.exp(-((u - v) ** 2) / (2 * 0.7**2))  # noqa: E731
    box_box, _ = integrate.dblquad(lambda v, u: rbf(u, v), s, t, s2, t2)
    box_point, _ = integrate.quad(lambda u: rbf(u, 0.4), s, t)
    K = kernel(np.array([[s, t], [s2, t2], [0.4, 0.4]]))
    assert K[0, 1] == pytest.approx(box_box, rel=1e-8)
    assert K[0, 2] == pytest.approx(box_point, rel=1e-8) and K[2, 0] == pytest.approx(
        box_point, rel=1e-8
    )
    assert K[2, 2] == pytest.approx(1.3)


def test_integral_binning_recovers_a_smooth_function():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, 400)
    y = np.sin(X / 2)
    binned = bin_means(X, y, np.arange(0, 10.5, 1.0), 5.0, 2.0, seed=rng)[0]
    prediction = binning.integral_binning_predict(binned, np.array([2.0, 5.0, 8.0]), seed=0)
    np.testing.assert_allclose(prediction, np.sin(np.array([2.0, 5.0, 8.0]) / 2), atol=0.15)


def test_exponential_mechanism_sensitivity_bound_holds():
    """|u_D(theta) - u_D'(theta)| <= Delta_u for neighbours D' (one output moved by <= d)."""
    rng = np.random.default_rng(4)
    X = np.sort(rng.uniform(0, 10, 30))
    y = np.clip(np.sin(X) + 0.3 * rng.standard_normal(30), -1, 1)
    kwargs = dict(epsilon=1.0, sensitivity=2.0, folds=3, seed=7)
    base = hyperparameters.select_hyperparameters(X, y, [1.0, 3.0], [0.1, 0.5], **kwargs)
    assert base.check.passed and np.isclose(base.probabilities.sum(), 1.0)
    for j in range(0, 30, 3):
        for move in (-2.0, 2.0):
            y_neighbour = y.copy()
            y_neighbour[j] += move
            other = hyperparameters.select_hyperparameters(
                X, y_neighbour, [1.0, 3.0], [0.1, 0.5], **kwargs
            )
            assert np.max(np.abs(other.utilities - base.utilities)) <= base.utility_sensitivity
            ratio = np.max(np.abs(np.log(other.probabilities / base.probabilities)))
            assert ratio <= 1.0 + 1e-9


def test_laplace_check_fails_on_a_wrong_calibration(monkeypatch):
    """The check recomputes the loss from the scales used: halving them is caught."""
    X, y = np.array([0.2, 0.4, 1.5]), np.array([0.1, 0.3, -0.2])
    assert bin_means(X, y, [0.0, 1.0, 2.0], 1.0, 2.0, seed=0)[1].passed
    calibrate = binning._laplace_scales
    monkeypatch.setattr(binning, "_laplace_scales", lambda *args: 0.5 * calibrate(*args))
    check = bin_means(X, y, [0.0, 1.0, 2.0], 1.0, 2.0, seed=0)[1]
    assert not check.passed
    assert check.evidence["max_privacy_loss"] == pytest.approx(2.0)


def test_selection_check_fails_on_a_wrong_sensitivity(monkeypatch):
    """The check recomputes epsilon from the probabilities sampled from: a calibration with
    half the utility sensitivity doubles the inverse temperature, so epsilon doubles."""
    rng = np.random.default_rng(4)
    X = np.sort(rng.uniform(0, 10, 20))
    y = np.clip(np.sin(X) + 0.3 * rng.standard_normal(20), -1, 1)
    kwargs = dict(epsilon=1.0, sensitivity=2.0, folds=2, seed=7)
    honest = hyperparameters.select_hyperparameters(X, y, [1.0, 3.0], [0.1, 0.5], **kwargs)
    assert honest.check.passed
    margin = honest.check.evidence["selection_margin"]
    assert margin == hyperparameters.SELECTION_MARGIN  # public, not fitted to the data
    assert honest.check.evidence["epsilon_achieved"] == pytest.approx(1.0 - margin, rel=1e-12)
    calibrate = hyperparameters._utility_sensitivity
    monkeypatch.setattr(hyperparameters, "_utility_sensitivity", lambda s: 0.5 * calibrate(s))
    wrong = hyperparameters.select_hyperparameters(X, y, [1.0, 3.0], [0.1, 0.5], **kwargs)
    assert not wrong.check.passed
    assert wrong.check.evidence["epsilon_achieved"] == pytest.approx(2.0, rel=1e-9)


def test_selection_check_rejects_probabilities_not_of_the_exponential_form():
    utilities = np.array([-3.0, -2.0, -1.0])
    probabilities = np.array([0.2, 0.3, 0.5])  # log p is not linear in u
    certificate = hyperparameters._selection_certificate(
        utilities, probabilities, np.ones(3), 10.0, 3.0
    )
    assert not certificate.passed and certificate.evidence["fit_residual"] > 1e-3
    assert certificate.tolerance == np.inf  # provably not of that form: nothing certified


# --------------------------------------------------------------------------------------
# The package, in place of the 0.1 module dp_gp.py
# --------------------------------------------------------------------------------------


def test_the_package_serves_the_names_of_the_former_module():
    """The public names of the former module dp_gp.py that stayed in the subpackage are its
    own (no warning); the moved and deprecated ones warn (tests/test_compat.py checks each)."""
    homes = {
        normalisation: ["OutputNormalisation", "clip_and_normalise"],
        hall: ["RKHS_METHODS", "StandardDPGPMechanism", "rkhs_sensitivity"],
        cloaking: ["CloakingMechanism"],
        binning: [
            "BinnedRelease",
            "simple_binning_predict",
            "IntegralRBF",
            "integral_binning_predict",
        ],
        hyperparameters: ["HyperparameterSelection", "select_hyperparameters"],
        ellipsoid: ["NULL_SPACE_SHARE", "ROUND_OFF", "d_optimal_design"],
        dp_release: ["PrivacyCheck", "gaussian_check", "CHECK_RTOL", "cloaking_matrix"],
    }
    for module, names in homes.items():
        for name in names:
            assert name in module.__all__ and getattr(dp_gp, name) is getattr(module, name), name
    with pytest.warns(DeprecationWarning, match="use ssa_privacy.privacy.dp_gp.ellipsoid"):
        assert dp_gp.CloakingSolution is ellipsoid.MinimumVolumeEllipsoid
    # An old-style script: a deprecated function through the package, in its old order.
    with pytest.warns(DeprecationWarning, match="cloaking_noise_covariance is deprecated"):
        old_covariance = dp_gp.cloaking_noise_covariance
    Sigma = old_covariance(RBF(1.0)(XS1, X1), RBF(1.0)(X1), S2, 1.0, 1.0, 0.01)
    expected = cloaking_level(RBF(1.0), S2, X1, XS1, 1.0, 0.01, 1.0)
    np.testing.assert_allclose(Sigma, expected.noise_scale**2 * expected.M, rtol=1e-12)


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: accounting.c_delta(1.5), "delta"),
        (lambda: accounting.noise_multiplier(2.0, 0.01), "calibration='analytic'"),
        (lambda: accounting.noise_multiplier(1.0, 0.01, "laplace"), "calibration"),
        (lambda: hall.rkhs_sensitivity(np.eye(2), 0.1, 1.0, "other"), "method"),
        (lambda: hall.rkhs_sensitivity(4 * np.eye(2), 0.1, 1.0, "infinity_norm"), "kernel values"),
        (lambda: normalisation.clip_and_normalise([1.0, np.nan], 1.0), "y"),
        (lambda: normalisation.clip_and_normalise([1.0, 2.0], -1.0), "sensitivity"),
        (lambda: normalisation.clip_and_normalise([1.0, 2.0], 1.0, clip="mode"), "clip"),
        (
            lambda: cloaking_level(RBF(1.0), 0.5, X1, XS1, 1.0, 0.01, 1.0).release(Y1[:3]),
            "y has 3",
        ),
        (
            lambda: cloaking.CloakingMechanism(np.ones((2, 3)), np.eye(4), 0.1, 1.0, 0.01, 1.0),
            "K_star_X",
        ),
        (
            lambda: cloaking.CloakingMechanism(np.ones((2, 2)), np.eye(2), 0.1, 0.0, 0.01, 1.0),
            "epsilon",
        ),
        (lambda: ellipsoid.minimum_volume_ellipsoid(np.zeros((2, 3))), "C is zero"),
        (lambda: binning.LaplaceBinningMechanism([0.5, 4.0], [0.0, 1.0], 1.0, 1.0), "outside"),
        (lambda: binning.LaplaceBinningMechanism([0.5], [1.0, 0.0], 1.0, 1.0), "increasing"),
        (lambda: binning.IntegralRBF()(np.array([[0.0, 1.0, 1.0, 1.0]])), "point"),
    ],
)
def test_bad_input_raises_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
