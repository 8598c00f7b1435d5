"""Tests of the Renyi-DP bounds of GP posterior sampling [MAC]."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import ssa_privacy.privacy.posterior_sampling as ps
from ssa_privacy.gp.regression import RBF, Exponential, GaussianProcess

E = np.e


# --------------------------------------------------------------------------------------
# Reference values of the bound (docs/theory/posterior-sampling.rst)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, r, kappa, V, Phi, delta_exp, delta_generic_code",
    [
        (10, 0.1, E**-1, 0.8648149224, 25.0, 14.14213562, 219.2031022),
        (10, 1.0, E**-1, 0.8781982451, 0.248948609, 1.411236646, 2.822473293),
        (100, 2.0, E**-2, 0.9823956481, 0.03957400523, 0.5626651241, 1.680944386),
        (
            400,
            5.0,
            np.exp(-np.sqrt(2) / 0.2),
            0.9999993212,
            0.001479289014,
            0.1087856246,
            0.2716919272,
        ),
    ],
)
def test_basic_quantities(n, r, kappa, V, Phi, delta_exp, delta_generic_code):
    assert ps.variance_scale_bound(n, r, kappa) == pytest.approx(V, rel=1e-9)
    assert ps.phi_bound(V, r) == pytest.approx(Phi, rel=1e-8)
    assert 2 * np.sqrt(2) * np.sqrt(
        ps.phi_bound(ps.variance_scale_bound(n, r, kappa), r)
    ) == pytest.approx(delta_exp, rel=1e-8)
    assert ps.mean_sensitivity_generic(n, r, kappa, factor=np.sqrt(2)) == pytest.approx(
        delta_generic_code, rel=1e-8
    )


def test_exp_1d_sensitivity_uses_kappa_of_the_unit_interval():
    assert ps.mean_sensitivity_exp_1d(10, 1.0, 1.0) == pytest.approx(1.411236646, rel=1e-8)
    assert ps.mean_sensitivity_exp_1d(10, 1.0, 1.0, response_bound=2.0) == pytest.approx(
        2 * 1.411236646, rel=1e-8
    )


def test_fixed_order_rdp_vectors():
    V = ps.variance_scale_bound(10, 1.0, E**-1)
    bound = ps.PosteriorSamplingBound(V, 2 * np.sqrt(2 * ps.phi_bound(V, 1.0)), 1.0, 1.0)
    assert bound.alpha_max == pytest.approx(2.1386951, rel=1e-7)
    assert 2 * ps.psi(0.5 * bound.tau, bound.tau) == pytest.approx(0.5261092192, rel=1e-9)
    assert bound.rdp(1.5) == pytest.approx(5.527793396, rel=1e-9)
    generic = ps.PosteriorSamplingBound.generic(10, E**-1, 1.0, 1.0, factor=np.sqrt(2))
    assert generic.rdp(1.5) == pytest.approx(20.53284593, rel=1e-9)
    assert ps.PosteriorSamplingBound.exp_1d(100, 0.5, 2.0, 0.5).rdp(2.0) == pytest.approx(
        2.153127332, rel=1e-9
    )
    assert ps.PosteriorSamplingBound.generic(100, E**-2, 2.0, 0.5, factor=np.sqrt(2)).rdp(
        2.0
    ) == pytest.approx(18.72354476, rel=1e-9)
    kappa = np.exp(-np.sqrt(2) / 0.18)
    V = ps.variance_scale_bound(400, 5.0, kappa)
    exp_form = ps.PosteriorSamplingBound(V, 2 * np.sqrt(2 * ps.phi_bound(V, 5.0)), 5.0, 0.12)
    assert exp_form.alpha_max == pytest.approx(26.000004, rel=1e-7)
    assert exp_form.rdp(2.0) == pytest.approx(0.8919145453, rel=1e-9)
    assert ps.PosteriorSamplingBound.generic(400, kappa, 5.0, 0.12, factor=np.sqrt(2)).rdp(
        2.0
    ) == pytest.approx(5.554928874, rel=1e-9)
    assert exp_form.rdp(26.5) == np.inf


@pytest.mark.parametrize(
    "n, l, r, sigma, eta, L, delta, epsilon, alpha",
    [
        (10, 1, 0.1, 0.5, 0, 1, 1e-5, 47950.4, 1.0017),
        (10, 1, 0.1, 0.5, 0, 3, 1e-5, 126797, 1.0010),
        (10, 1, 1.0, 0.5, 0, 1, 1e-5, 43.5582, 1.5018),
        (10, 1, 1.0, 1.0, 0, 3, 1e-5, 39.4323, 1.5353),
        (10, 1, 3.0, 1.0, 0, 1, 1e-5, 2.75315, 6.9289),
        (100, 0.5, 2.0, 0.5, 0, 1, 0.005, 6.73814, 2.4684),
        (100, 1.0, 5.0, 1.0, 0, 1, 0.005, 0.557523, 15.371),
        (100, 0.25, 1.0, 0.2, 0, 1, 0.005, 101.730, 1.1868),
        (100, 0.5, 2.0, 0.5, 0.5, 1, 0.005, 3.82938, 3.6165),
        (100, 0.5, 2.0, 0.5, 0, 10, 0.005, 24.0851, 1.6151),
    ],
)
def test_epsilon_vectors(n, l, r, sigma, eta, L, delta, epsilon, alpha):
    assert ps.epsilon_for_delta(
        delta, n=n, lengthscale=l, ridge=r, sigma=sigma, paths=L, eta=eta
    ) == pytest.approx(epsilon, rel=6e-6)
    _, optimal = ps.PosteriorSamplingBound.exp_1d(n, l, r, sigma, eta).epsilon(delta, L)
    assert optimal == pytest.approx(alpha, abs=1.5e-4 * alpha)


def test_delta_vectors():
    assert ps.delta_for_epsilon(3.0, n=100, lengthscale=0.5, ridge=2.0, sigma=0.5) == pytest.approx(
        0.38901, rel=1e-4
    )
    assert ps.delta_for_epsilon(3.0, n=10, lengthscale=1.0, ridge=1.0, sigma=0.5) == 1.0


@pytest.mark.parametrize(
    "l, r, sigma, L, epsilon_code, epsilon_factor_2",
    [
        (0.18, 5.0, 0.12, 1, 11.4800, 17.6863),
        (0.35, 3.0, 0.27, 1, 25.8586, 41.4955),
        (0.10, 8.0, 0.05, 1, 6.88994, 10.3897),
        (0.24, 4.0, 0.18, 3, 31.1589, 51.0532),
    ],
)
def test_two_dimensional_generic_vectors(l, r, sigma, L, epsilon_code, epsilon_factor_2):
    kappa, delta = np.exp(-np.sqrt(2) / l), 400**-1.1
    code = ps.PosteriorSamplingBound.generic(400, kappa, r, sigma, factor=np.sqrt(2)).epsilon(
        delta, L
    )[0]
    valid = ps.PosteriorSamplingBound.generic(400, kappa, r, sigma).epsilon(delta, L)[0]
    assert code == pytest.approx(epsilon_code, rel=1e-5)
    assert valid == pytest.approx(epsilon_factor_2, rel=1e-5)


def test_optimiser_matches_brute_force_over_the_order():
    bound = ps.PosteriorSamplingBound.exp_1d(100, 0.5, 2.0, 0.5)
    alphas = 1 + np.linspace(1e-6, 1 - 1e-6, 20001) / bound.tau
    brute = min(3 * bound.rdp(a) + np.log(1 / 0.005) / (a - 1) for a in alphas)
    assert bound.epsilon(0.005, 3)[0] <= brute * (1 + 1e-9)
    assert bound.epsilon(0.005, 3)[0] == pytest.approx(brute, rel=1e-5)


# --------------------------------------------------------------------------------------
# The bounds dominate exact quantities (exact Gaussian Renyi divergences)
# --------------------------------------------------------------------------------------


def posterior_on(X, y, T, lengthscale, ridge):
    """Unit-scale posterior mean and covariance of the 1-D exponential-kernel GP on T."""
    gp = GaussianProcess(Exponential(lengthscale), 0.0, ridge**2).fit(X, y)
    return gp.predict(T, return_cov=True)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 6),
    lengthscale=st.floats(0.1, 2.0),
    ridge=st.floats(0.3, 3.0),
    sigma=st.floats(0.2, 3.0),
    eta=st.sampled_from([0.0, 0.5, 1.0]),
    fraction=st.floats(0.05, 0.95),
    seed=st.integers(0, 2**32 - 1),
)
def test_renyi_bound_dominates_exact_divergence(n, lengthscale, ridge, sigma, eta, fraction, seed):
    """Theorem 3.1 / Proposition 2 (with Prop. 3 and Lemma B.7) >= exact Gaussian divergence."""
    rng = np.random.default_rng(seed)
    core = rng.uniform(0, 1, n - 1)
    X, X_other = np.append(core, rng.uniform(0, 1)), np.append(core, rng.uniform(0, 1))
    y_core = rng.uniform(-1, 1, n - 1)
    y, y_other = np.append(y_core, rng.choice([-1.0, 1.0])), np.append(y_core, rng.uniform(-1, 1))
    T = np.unique(np.concatenate([np.linspace(0, 1, 25), X, X_other]))
    prior = Exponential(lengthscale)(T)
    (m1, k1), (m2, k2) = (
        posterior_on(X, y, T, lengthscale, ridge),
        posterior_on(X_other, y_other, T, lengthscale, ridge),
    )
    bound = ps.PosteriorSamplingBound.exp_1d(n, lengthscale, ridge, sigma, eta)
    alpha = 1 + fraction / bound.tau
    exact = ps.gaussian_renyi_divergence(
        alpha,
        m1,
        sigma**2 * k1 + eta**2 * prior + 1e-10 * np.eye(len(T)),
        m2,
        sigma**2 * k2 + eta**2 * prior + 1e-10 * np.eye(len(T)),
    )
    assert exact <= bound.rdp(alpha) * (1 + 1e-6) + 1e-8


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 8),
    lengthscale=st.floats(0.05, 3.0),
    ridge=st.floats(0.1, 3.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_variance_and_mean_sensitivity_bounds_dominate(n, lengthscale, ridge, seed):
    """Prop. 3 bounds the core's posterior variance; Lemma B.7 the RKHS distance of the means."""
    rng = np.random.default_rng(seed)
    core, x, x_other = rng.uniform(0, 1, n - 1), rng.uniform(0, 1), rng.uniform(0, 1)
    y_core, label, label_other = rng.uniform(-1, 1, n - 1), rng.uniform(-1, 1), rng.uniform(-1, 1)
    kernel = Exponential(lengthscale)
    m0, k0 = (
        GaussianProcess(kernel, 0.0, ridge**2)
        .fit(core, y_core)
        .predict(np.array([x, x_other]), return_cov=True)
    )
    V = ps.variance_scale_bound(n, ridge, ps.kappa_exp_1d(lengthscale))
    assert np.max(np.diag(k0)) <= V + 1e-12
    # One-point update (eq. 9): m_D - m_D' = k0(., x) a - k0(., x') a'; its norm in H(k0).
    a = (label - m0[0]) / (k0[0, 0] + ridge**2)
    a_other = (label_other - m0[1]) / (k0[1, 1] + ridge**2)
    norm = np.sqrt(max(a**2 * k0[0, 0] - 2 * a * a_other * k0[0, 1] + a_other**2 * k0[1, 1], 0.0))
    assert norm <= ps.mean_sensitivity_exp_1d(n, ridge, lengthscale) * (1 + 1e-9)


def test_generic_sensitivity_factor_two_holds_where_sqrt_two_fails():
    """Counterexample to the factor sqrt(2) of the authors' code (docs/theory/posterior-sampling.rst):
    n = 2, r = 3, core point far away, y = 1 vs -1 at x."""
    ridge = 3.0
    kernel = RBF(0.2)
    core, x = np.array([0.0]), np.array([10.0])
    gp = GaussianProcess(kernel, 0.0, ridge**2).fit(core, np.array([1.0]))
    mean, variance = gp.predict(x)
    exact = abs((1 - mean[0]) - (-1 - mean[0])) * np.sqrt(variance[0]) / (variance[0] + ridge**2)
    kappa = 0.0
    assert exact > ps.mean_sensitivity_generic(2, ridge, kappa, factor=np.sqrt(2))
    assert exact <= ps.mean_sensitivity_generic(2, ridge, kappa)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 200),
    lengthscale=st.floats(0.1, 2.0),
    ridge=st.floats(0.2, 5.0),
    sigma=st.floats(0.1, 5.0),
    paths=st.integers(2, 20),
)
def test_epsilon_is_monotone_and_sublinear_in_paths(n, lengthscale, ridge, sigma, paths):
    kwargs = dict(n=n, lengthscale=lengthscale)
    one = ps.epsilon_for_delta(1e-5, ridge=ridge, sigma=sigma, **kwargs)
    assert ps.epsilon_for_delta(
        1e-5, ridge=ridge, sigma=sigma, paths=paths, **kwargs
    ) <= paths * one * (1 + 1e-9)
    assert ps.epsilon_for_delta(1e-5, ridge=ridge, sigma=2 * sigma, **kwargs) <= one * (1 + 1e-9)
    assert ps.epsilon_for_delta(1e-5, ridge=2 * ridge, sigma=sigma, **kwargs) <= one * (1 + 1e-9)
    assert ps.epsilon_for_delta(1e-5, ridge=ridge, sigma=sigma, eta=1.0, **kwargs) <= one * (
        1 + 1e-9
    )
    assert ps.delta_for_epsilon(one, ridge=ridge, sigma=sigma, **kwargs) <= 1e-5 * (1 + 1e-6)


def test_covariance_only_limit():
    """sigma -> inf leaves only the covariance term 2 psi (Theorem 3.1)."""
    bound = ps.PosteriorSamplingBound.exp_1d(10, 1.0, 0.5, np.inf)
    alpha = 1 + 0.5 / bound.tau
    assert bound.rdp(alpha) == pytest.approx(2 * ps.psi(0.5, bound.tau))
    assert ps.PosteriorSamplingBound.exp_1d(10, 1.0, 0.5, 1e8).rdp(alpha) == pytest.approx(
        bound.rdp(alpha), rel=1e-9
    )


# --------------------------------------------------------------------------------------
# Gaussian Renyi divergence and path sampling
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "alpha, m1, s1, m2, s2", [(1.5, 0.0, 1.0, 0.7, 1.3), (3.0, 0.2, 0.8, -0.5, 1.0)]
)
def test_gaussian_renyi_divergence_against_integration(alpha, m1, s1, m2, s2):
    def integrand(x):
        return np.exp(
            alpha * stats.norm.logpdf(x, m1, s1) + (1 - alpha) * stats.norm.logpdf(x, m2, s2)
        )

    value, _ = integrate.quad(integrand, -20, 20, epsabs=0, epsrel=1e-11)
    expected = np.log(value) / (alpha - 1)
    assert ps.gaussian_renyi_divergence(alpha, [m1], [[s1**2]], [m2], [[s2**2]]) == pytest.approx(
        expected, rel=1e-7
    )


def test_posterior_paths_have_the_posterior_law():
    """Monte-Carlo mean and covariance of Matheron paths agree with the exact posterior."""
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, 8)
    y = np.sign(X - 0.5)
    grid = np.array([0.1, 0.45, 0.5, 0.9])
    lengthscale, ridge, sigma, eta, draws = 0.4, 0.5, 0.8, 0.6, 40_000
    mechanism = ps.PosteriorSamplingMechanism(
        X,
        grid,
        1e3,
        1e-5,
        lengthscale=lengthscale,
        ridge=ridge,
        sigma=sigma,
        eta=eta,
        sampler="matheron",
    )
    paths = mechanism.release(y, seed=rng, size=draws).values[:, 0, :]
    mean, cov = posterior_on(X, y, grid, lengthscale, ridge)
    target = sigma**2 * cov + eta**2 * Exponential(lengthscale)(grid)
    standard_error = np.sqrt(np.diag(target) / draws)
    assert np.all(np.abs(paths.mean(axis=0) - mean) <= 5 * standard_error)
    ratio = np.var(paths, axis=0, ddof=1) / np.diag(target)
    low, high = stats.chi2.ppf([1e-5, 1 - 1e-5], draws - 1) / (draws - 1)
    assert np.all((ratio >= low) & (ratio <= high))
    correlation = np.corrcoef(paths.T)[0, 1]
    expected = target[0, 1] / np.sqrt(target[0, 0] * target[1, 1])
    assert abs(np.arctanh(correlation) - np.arctanh(expected)) <= 5 / np.sqrt(draws - 3)


def test_ou_paths_match_the_exponential_kernel():
    rng = np.random.default_rng(0)
    points = np.array([0.3, 0.0, 0.3, 1.0])
    paths = ps.ou_prior_paths(points, 0.5, 50_000, rng)
    np.testing.assert_array_equal(paths[:, 0], paths[:, 2])
    empirical = np.cov(paths.T)
    np.testing.assert_allclose(empirical, Exponential(0.5)(points), atol=5 * np.sqrt(2 / 50_000))


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ps.epsilon_for_delta(0.0, n=10, lengthscale=1, ridge=1, sigma=1), "delta"),
        (lambda: ps.epsilon_for_delta(1e-5, n=0, lengthscale=1, ridge=1, sigma=1), "n must"),
        (lambda: ps.epsilon_for_delta(1e-5, n=10, lengthscale=-1, ridge=1, sigma=1), "lengthscale"),
        (lambda: ps.epsilon_for_delta(1e-5, n=10, lengthscale=1, ridge=0, sigma=1), "ridge"),
        (lambda: ps.epsilon_for_delta(1e-5, n=10, lengthscale=1, ridge=1, sigma=0), "sigma"),
        (
            lambda: ps.epsilon_for_delta(1e-5, n=10, lengthscale=1, ridge=1, sigma=1, paths=0),
            "paths",
        ),
        (lambda: ps.epsilon_for_delta(1e-5, n=10, lengthscale=1, ridge=1, sigma=1, eta=-1), "eta"),
        (lambda: ps.variance_scale_bound(10, 1.0, 1.5), "kappa"),
        (lambda: ps.PosteriorSamplingBound.exp_1d(10, 1, 1, 1).rdp(1.0), "alpha"),
        (lambda: ps.gaussian_renyi_divergence(2.0, [0.0], [[-1.0]], [0.0], [[1.0]]), "cov1"),
        (
            lambda: ps.PosteriorSamplingMechanism(
                [0.1], [0.5], 1.0, 0.1, lengthscale=1, ridge=1, sigma=1
            ).release([1.0, 2.0]),
            "y has",
        ),
        (
            lambda: ps.PosteriorSamplingMechanism(
                [0.1], [0.5], 1.0, 0.1, lengthscale=1, ridge=1, sigma=np.inf
            ),
            "sigma",
        ),
    ],
)
def test_bad_input_raises_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
