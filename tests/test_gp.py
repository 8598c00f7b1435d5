"""GP regression: posterior, likelihood and maximum likelihood against independent formulas."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from ssa_privacy.gp.fit import (
    constant_mean_variance_mle,
    fit_hyperparameters,
    fit_mean_and_variance,
)
from ssa_privacy.gp.regression import RBF, Exponential, GaussianProcess


def data(seed, n=25, d=2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, d))
    y = 1.5 + np.sin(4 * X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y


def test_kernel_conventions():
    x, x2 = np.array([[0.3]]), np.array([[0.45]])
    l = 1 / 400
    assert RBF.paper(l, 2.0)(x, x2)[0, 0] == pytest.approx(2.0 * np.exp(-(0.15**2) / (2 * l)))
    assert RBF(l, 2.0)(x, x2)[0, 0] == pytest.approx(2.0 * np.exp(-(0.15**2) / (2 * l**2)))
    assert Exponential(0.2, 3.0)(x, x2)[0, 0] == pytest.approx(3.0 * np.exp(-0.15 / 0.2))
    ard = RBF([0.5, 2.0])(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]))[0, 0]
    assert ard == pytest.approx(np.exp(-0.5 * (1 / 0.25 + 1 / 4)))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=st.floats(1e-4, 1.0))
def test_posterior_matches_the_textbook_formulas(seed, noise):
    X, y = data(seed)
    X_star = np.random.default_rng(seed + 1).uniform(0, 1, (7, 2))
    kernel = RBF([0.3, 0.7], 1.3)
    gp = GaussianProcess(kernel, mean=0.4, noise=noise).fit(X, y)
    mean, cov = gp.predict(X_star, return_cov=True)
    C = kernel(X) + noise * np.eye(len(X))
    K_sX = kernel(X_star, X)
    np.testing.assert_allclose(
        mean, 0.4 + K_sX @ np.linalg.solve(C, y - 0.4), rtol=1e-8, atol=1e-10
    )
    np.testing.assert_allclose(cov, kernel(X_star) - K_sX @ np.linalg.solve(C, K_sX.T), atol=1e-10)
    np.testing.assert_allclose(gp.predict(X_star)[1], np.diag(cov), atol=1e-10)
    expected = stats.multivariate_normal(0.4 * np.ones(len(y)), C).logpdf(y)
    assert gp.log_marginal_likelihood() == pytest.approx(expected, rel=1e-10)
    assert gp.jitter == 0.0


def test_jitter_is_added_only_when_needed_and_reported():
    X = np.array([0.0, 0.0, 1.0])  # a repeated input: K is singular without noise
    gp = GaussianProcess(RBF(0.5)).fit(X, np.array([1.0, 1.0, 2.0]))
    assert gp.jitter > 0
    assert np.all(np.isfinite(gp.predict([0.5])[0]))
    assert GaussianProcess(RBF(0.5)).fit([0.0, 1.0], [1.0, 2.0]).jitter == 0.0


def test_closed_form_mean_and_variance_maximise_the_likelihood():
    X, y = data(3)
    R = RBF([0.3, 0.6]).correlation(X) + 0.05 * np.eye(len(y))
    beta, sigma2, _ = constant_mean_variance_mle(R, y)

    def negative_log_likelihood(theta):
        return -stats.multivariate_normal(theta[0] * np.ones(len(y)), np.exp(theta[1]) * R).logpdf(
            y
        )

    numerical = optimize.minimize(
        negative_log_likelihood,
        [0.0, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000},
    )
    assert beta == pytest.approx(numerical.x[0], abs=1e-5)
    assert sigma2 == pytest.approx(np.exp(numerical.x[1]), rel=1e-5)


def test_zero_mean_fit_uses_beta_zero():
    X = np.linspace(0, 1, 25)
    y = 1.5 + np.sin(4 * X)
    gp = fit_mean_and_variance(X, y, RBF(0.05), zero_mean=True)
    R = RBF(0.05).correlation(X)
    assert gp.mean == 0.0 and gp.jitter == 0.0
    assert gp.kernel.variance == pytest.approx(y @ np.linalg.solve(R, y) / len(y), rel=1e-8)


def test_maximum_likelihood_beats_nearby_hyperparameters_and_recovers_the_noise():
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 10, (150, 2))
    y = 2.0 + np.sin(X[:, 0]) + 0.1 * X[:, 1] + 0.2 * rng.standard_normal(150)
    fit = fit_hyperparameters(X, y, restarts=3, seed=0)
    gp = fit.gp
    assert 0.5 * 0.04 < gp.noise < 2 * 0.04
    for factor in (0.8, 1.25):
        for perturbed in (
            RBF(gp.kernel.lengthscale * factor, gp.kernel.variance),
            RBF(gp.kernel.lengthscale, gp.kernel.variance * factor),
        ):
            other = GaussianProcess(perturbed, gp.mean, gp.noise).fit(X, y)
            assert other.log_marginal_likelihood() < fit.log_likelihood
        other = GaussianProcess(gp.kernel, gp.mean, gp.noise * factor).fit(X, y)
        assert other.log_marginal_likelihood() < fit.log_likelihood


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: GaussianProcess(RBF()).fit([[0.0], [np.nan]], [1.0, 2.0]),
            "X contains non-finite",
        ),
        (lambda: GaussianProcess(RBF()).fit([0.0, 1.0], [1.0]), "y has 1 entries but X has 2"),
        (lambda: GaussianProcess(RBF(), noise=-1.0).fit([0.0], [1.0]), "must be non-negative"),
        (lambda: GaussianProcess(RBF(), noise=np.eye(3)).fit([0.0], [1.0]), "must be 1x1"),
        (lambda: RBF(lengthscale=-1.0), "lengthscale must be positive"),
        (lambda: RBF(variance=0.0), "variance must be a finite positive number"),
        (
            lambda: fit_hyperparameters([0.0, 1.0], [1.0, 2.0], restarts=0),
            "restarts must be at least 1",
        ),
    ],
)
def test_bad_input_raises_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("seed", [0, 1])
def test_profiled_likelihood_gradient_matches_finite_differences(seed):
    """The analytic gradient of the profiled negative log likelihood (envelope theorem,
    lower triangle of R^{-1} only) agrees with central differences of an independent
    dense evaluation (explicit solve and slogdet) to the differences' own accuracy."""
    from ssa_privacy.gp import fit as gp_fit

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((120, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(120)
    D = np.moveaxis((X[:, None, :] - X[None, :, :]) ** 2, 2, 0).copy()

    def dense_nll(theta):
        C = np.exp(-0.5 * np.tensordot(np.exp(-2 * theta[:-1]), D, axes=1))
        R = C + np.exp(theta[-1]) * np.eye(len(y))
        ones = np.ones(len(y))
        beta = ones @ np.linalg.solve(R, y) / (ones @ np.linalg.solve(R, ones))
        sigma2 = (y - beta) @ np.linalg.solve(R, y - beta) / len(y)
        return 0.5 * len(y) * np.log(sigma2) + 0.5 * np.linalg.slogdet(R)[1]

    theta = np.append(rng.uniform(-0.5, 0.5, 3), rng.uniform(np.log(1e-3), 0.0))
    value, gradient = gp_fit._profile_nll(theta, D, y)
    step = 1e-5
    differences = np.array(
        [
            (dense_nll(theta + step * e) - dense_nll(theta - step * e)) / (2 * step)
            for e in np.eye(4)
        ]
    )
    assert value == pytest.approx(dense_nll(theta), rel=1e-10)
    np.testing.assert_allclose(
        gradient, differences, rtol=1e-5, atol=1e-6 * np.abs(differences).max()
    )
