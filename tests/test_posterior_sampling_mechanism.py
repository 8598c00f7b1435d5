"""PosteriorSamplingMechanism [MAC]: scale design, release and the Renyi-DP certificate."""

import numpy as np
import pytest

from ssa_privacy.gp.regression import Exponential, GaussianProcess
from ssa_privacy.privacy import (
    Certificate,
    FactoredCovariance,
    Mechanism,
    PosteriorSamplingMechanism,
    Release,
)
from ssa_privacy.privacy.posterior_sampling.bound import epsilon_for_delta
from ssa_privacy.privacy.posterior_sampling.mechanism import DESIGN_RTOL

X = np.linspace(0.05, 0.95, 10)
GRID = np.linspace(0.0, 1.0, 7)
Y = np.sign(X - 0.5)
SETTING = dict(lengthscale=1.0, ridge=3.0)


def mechanism(epsilon=5.0, delta=1e-5, **options):
    return PosteriorSamplingMechanism(X, GRID, epsilon, delta, **{**SETTING, **options})


def posterior(ridge=3.0, lengthscale=1.0):
    """The GP posterior mean and unit-scale covariance on the grid, by GaussianProcess."""
    gp = GaussianProcess(Exponential(lengthscale), noise=ridge**2).fit(X, Y)
    return gp.predict(GRID, return_cov=True)


def test_acceptance_release_certificate_seed_and_a_weakened_noise():
    mech = mechanism(paths=3)
    out = mech.release(Y, seed=0)
    assert isinstance(mech, Mechanism)
    assert isinstance(out, Release) and isinstance(out.certificate, Certificate)
    assert out.values.shape == (3, len(GRID))
    assert out.certificate.passed and out.certificate.notion == "renyi-dp"
    assert out.certificate.parameters["epsilon"] == 5.0
    assert out.certificate.parameters["delta"] == 1e-5
    assert out.certificate.parameters["paths"] == 3
    assert 1 < out.certificate.parameters["order"]
    np.testing.assert_array_equal(out.values, mech.release(Y, seed=0).values)
    weak = mech.with_noise(mech.noise_covariance.scaled(0.5)).release(Y, seed=0)
    assert not weak.certificate.passed
    assert weak.certificate.margin < -weak.certificate.tolerance


def test_designed_scale_is_the_smallest_that_meets_the_target():
    """Without prior noise epsilon decreases in sigma: the design sits on the target."""
    for paths in (1, 3):
        mech = mechanism(paths=paths)
        common = dict(n=len(X), paths=paths, **SETTING)
        at_design = epsilon_for_delta(1e-5, sigma=mech.sigma, **common)
        assert 5.0 * (1 - 1e-8) <= at_design <= 5.0
        assert epsilon_for_delta(1e-5, sigma=mech.sigma * (1 - 1e-6), **common) > 5.0
        certificate = mech.certificate()
        assert certificate.evidence["epsilon_bound"] == pytest.approx(at_design, rel=1e-12)
        assert mech.design_rtol == DESIGN_RTOL
        assert 0 < certificate.tolerance <= certificate.margin <= 2 * DESIGN_RTOL * 5.0
        assert certificate.passed
    assert mechanism(paths=3).sigma > mechanism(paths=1).sigma


def test_noise_covariance_is_sigma_squared_times_the_posterior_covariance():
    mech = mechanism()
    mean, unit = posterior()
    np.testing.assert_allclose(mech.noise_covariance.matrix(), mech.sigma**2 * unit, atol=1e-12)
    np.testing.assert_allclose(mech.release(Y, seed=1).details["posterior_mean"], mean, atol=1e-12)
    with_prior = mechanism(epsilon=2.0, eta=0.5, paths=2)
    prior = Exponential(1.0)(GRID)
    expected = with_prior.sigma**2 * unit + 0.25 * prior
    np.testing.assert_allclose(with_prior.noise_covariance.matrix(), expected, atol=1e-12)
    assert with_prior.certificate().passed
    assert not with_prior.with_noise(with_prior.noise_covariance.scaled(0.5)).certificate().passed


def test_released_paths_have_the_posterior_law():
    """Monte Carlo over 20,000 paths: the mean within 5 standard errors of m_D and the
    covariance entries within 5 standard errors of sigma^2 k_D (a given scale: 20,000
    paths compose to a large epsilon)."""
    mech, draws = mechanism(epsilon=1e9, paths=20_000, sigma=0.5), 20_000
    values = mech.release(Y, seed=4).values
    mean, unit = posterior()
    Sigma = mech.sigma**2 * unit
    assert np.all(np.abs(values.mean(axis=0) - mean) <= 5 * np.sqrt(np.diag(Sigma) / draws))
    centred = values - mean
    empirical = centred.T @ centred / draws
    standard_error = np.sqrt((np.outer(np.diag(Sigma), np.diag(Sigma)) + Sigma**2) / draws)
    assert np.all(np.abs(empirical - Sigma) <= 5 * standard_error)


def test_a_given_scale_is_certified_against_the_target():
    sigma = 1.0
    epsilon = epsilon_for_delta(1e-5, n=len(X), sigma=sigma, **SETTING)  # 2.75 at n = 10
    meets = mechanism(epsilon=1.01 * epsilon, sigma=sigma).certificate()
    misses = mechanism(epsilon=0.99 * epsilon, sigma=sigma).certificate()
    assert meets.passed and meets.margin == pytest.approx(0.01 * epsilon, rel=1e-9)
    assert not misses.passed and misses.margin == pytest.approx(-0.01 * epsilon, rel=1e-9)


def test_more_noise_passes_and_a_covariance_outside_the_family_fails():
    mech = mechanism()
    assert mech.with_noise(mech.noise_covariance.scaled(2.0)).certificate().margin > 0
    other = mech.with_noise(np.eye(len(GRID)))
    assert isinstance(other.noise_covariance, FactoredCovariance)
    certificate = other.certificate()
    assert not certificate.passed and certificate.margin == -np.inf
    assert certificate.evidence["family_residual"] > 1e-3


def test_fresh_entropy_unless_seeded():
    mech = mechanism()
    first, second = mech.release(Y), mech.release(Y)
    assert first.seed_keys == {"seed": None}
    assert not np.array_equal(first.values, second.values)


def test_unreachable_target_is_reported():
    """Covariance leakage alone (sigma -> inf) costs about 1.48 here."""
    with pytest.raises(ValueError, match="epsilon = 1 is out of reach"):
        mechanism(epsilon=1.0)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: mechanism().release(2 * Y), ValueError, "exceeds the response bound"),
        (lambda: mechanism().release(Y[:4]), ValueError, "y has 4 entries"),
        (lambda: mechanism().release(Y, seed="x"), TypeError, "seed must be"),
        (
            lambda: PosteriorSamplingMechanism(X + 0.5, GRID, 5.0, 1e-5, **SETTING),
            ValueError,
            "X must lie in the closed interval",
        ),
        (lambda: mechanism(delta=0.0), ValueError, "delta must lie"),
        (lambda: mechanism(epsilon=-1.0), ValueError, "epsilon must be"),
        (lambda: mechanism(paths=0), ValueError, "paths must be"),
        (lambda: mechanism().with_noise(np.eye(2)), ValueError, "noise_covariance is 2x2"),
    ],
)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_old_import_paths_keep_working():
    """The module ``privacy/posterior_sampling.py`` of 0.1 is the package now."""
    from ssa_privacy.privacy.posterior_sampling import (
        PosteriorSamplingBound,
        gaussian_renyi_divergence,
        psi,
    )
    from ssa_privacy.privacy.posterior_sampling.bound import PosteriorSamplingBound as moved

    assert PosteriorSamplingBound is moved
    assert psi(0.5, 1.0) > 0
    assert gaussian_renyi_divergence(2.0, [0.0], [[1.0]], [1.0], [[1.0]]) == pytest.approx(1.0)


def test_the_standalone_sampler_warns_and_draws_what_the_mechanism_releases():
    import ssa_privacy.privacy.posterior_sampling as old

    with pytest.warns(DeprecationWarning, match="sampler='matheron'"):
        sample = old.sample_posterior_paths_exp_1d
    paths = sample(X, Y, GRID, lengthscale=1.0, ridge=3.0, sigma=1.0, paths=3, seed=4)
    released = mechanism(sigma=1.0, paths=3, sampler="matheron").release(Y, seed=4)
    np.testing.assert_array_equal(paths, released.values)
    with pytest.raises(ValueError, match="finite"):
        sample([0.1], [1.0], [0.5], lengthscale=1, ridge=1, sigma=np.inf)


def test_the_bound_module_of_0_1_serves_the_enclosure_with_a_warning():
    from ssa_privacy.privacy.posterior_sampling.enclosure import epsilon_enclosure_exp_1d

    with pytest.warns(DeprecationWarning) as caught:
        from ssa_privacy.privacy.posterior_sampling_bound import (
            epsilon_enclosure_exp_1d as moved,
        )
    assert moved is epsilon_enclosure_exp_1d
    assert any(
        "posterior_sampling_bound.epsilon_enclosure_exp_1d is deprecated" in str(w.message)
        and str(w.message).endswith("posterior_sampling.enclosure.epsilon_enclosure_exp_1d")
        for w in caught
    )


@pytest.mark.parametrize("sampler", ["eigen", "matheron"])
def test_a_batch_of_releases_has_one_certificate_and_the_posterior_law(sampler):
    mech = mechanism(sampler=sampler)
    batch = mech.release(Y, seed=1, size=20_000)
    assert batch.values.shape == (20_000, 1, len(GRID))
    assert batch.certificate is mech.certificate() and batch.certificate.passed
    assert batch.details["size"] == 20_000 and batch.details["sampler"] == sampler
    draws = batch.values[:, 0, :]
    mean, cov = posterior()
    target = mech.sigma**2 * cov
    np.testing.assert_allclose(draws.mean(axis=0), mean, atol=5 * np.sqrt(target.max() / 20_000))
    np.testing.assert_allclose(np.cov(draws.T), target, atol=0.05 * target.max())


def test_a_batch_of_eigen_releases_draws_what_successive_releases_draw():
    mech = mechanism(paths=2)
    batch = mech.release(Y, seed=np.random.default_rng(7), size=3)
    rng = np.random.default_rng(7)
    successive = np.stack([mech.release(Y, seed=rng).values for _ in range(3)])
    np.testing.assert_array_equal(batch.values, successive)


def test_an_audit_releases_from_the_noise_it_was_given():
    mech = mechanism(sampler="matheron")
    noise = mech.noise_covariance.scaled(4.0)
    audit = mech.with_noise(noise)
    assert audit.sampler == "eigen" and audit.certificate().passed
    released = audit.release(Y, seed=np.random.default_rng(5))
    expected = released.details["posterior_mean"] + noise.sample(np.random.default_rng(5), 1)
    np.testing.assert_array_equal(released.values, expected)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: mechanism(sampler="lanczos"), ValueError, "sampler must be one of"),
        (lambda: mechanism().release(Y, size=0), ValueError, "size must be"),
        (lambda: mechanism().release(Y, size=1.5), ValueError, "size must be"),
    ],
)
def test_bad_sampler_or_size_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_posterior_is_that_of_gaussian_process_bit_for_bit():
    released = mechanism(sampler="cholesky").release(Y, seed=0)
    gp = GaussianProcess(Exponential(1.0), noise=3.0**2).fit(X, Y)
    mean, variance = gp.predict(GRID)
    np.testing.assert_array_equal(released.details["posterior_mean"], mean)
    one_point = PosteriorSamplingMechanism(
        X, [0.5], 5.0, 1e-5, sigma=0.7, paths=4, sampler="cholesky", **SETTING
    )
    draws = one_point.release(Y, seed=np.random.default_rng(3)).values[:, 0]
    z = np.random.default_rng(3).standard_normal(4)
    mean, variance = gp.predict([0.5])
    np.testing.assert_array_equal(draws, mean + 0.7 * np.sqrt(variance) * z)


def test_a_sweep_shares_the_posterior_and_certifies_each_setting():
    base = mechanism(sigma=2.0, sampler="cholesky")
    for sigma, paths in ((2.0, 3), (4.0, 1), (4.0, 5)):
        epsilon = epsilon_for_delta(1e-5, n=len(X), sigma=sigma, paths=paths, **SETTING)
        swept = base.with_scale(sigma, epsilon=epsilon * (1 + 1e-9), paths=paths)
        fresh = mechanism(epsilon * (1 + 1e-9), sigma=sigma, paths=paths, sampler="cholesky")
        assert swept._enclosures is base._enclosures
        assert swept.certificate().passed and swept.paths == paths
        assert swept.certificate().margin == pytest.approx(fresh.certificate().margin, abs=1e-9)
        np.testing.assert_array_equal(
            swept.release(Y, seed=1).values, fresh.release(Y, seed=1).values
        )
    assert base.sigma == 2.0 and base.paths == 1
