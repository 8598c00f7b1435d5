"""Tests of the membership-inference utilities and the LiRA attack [MAC §4, App. C]."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from ssa_privacy.attacks import membership as mb
from ssa_privacy.attacks import roc
from ssa_privacy.privacy.accounting import gaussian_mechanism_delta
from ssa_privacy.privacy.posterior_sampling.bound import PosteriorSamplingBound
from ssa_privacy.studies import mia


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=1, max_size=15),
    st.lists(st.integers(-3, 3), min_size=1, max_size=15),
)
def test_auc_is_the_pairwise_win_rate(scores_in, scores_out):
    wins = [1.0 if a > b else 0.5 if a == b else 0.0 for a in scores_in for b in scores_out]
    assert roc.auc_score(scores_in, scores_out) == pytest.approx(np.mean(wins))
    fpr, tpr = roc.roc_curve(scores_in, scores_out)
    assert np.trapezoid(tpr, fpr) == pytest.approx(np.mean(wins))


@settings(max_examples=30, deadline=None)
@given(st.floats(0.01, 0.5), st.integers(0, 2**32 - 1))
def test_tpr_at_fpr_respects_the_target_fpr(fpr, seed):
    rng = np.random.default_rng(seed)
    scores_in, scores_out = rng.normal(1, 1, 300), rng.normal(0, 1, 300)
    k = int(np.floor(fpr * 300))
    threshold = np.sort(scores_out)[::-1][k]
    assert np.mean(scores_out > threshold) <= fpr
    assert roc.tpr_at_fpr(scores_in, scores_out, fpr) == np.mean(scores_in > threshold)


def test_dp_region_contains_the_optimal_test_of_a_gaussian_mechanism():
    """The Neyman-Pearson ROC of N(m, 1) vs N(0, 1) lies in the (epsilon, delta(epsilon)) region."""
    m = 1.3
    fpr = np.linspace(1e-4, 1 - 1e-4, 500)
    tpr = stats.norm.sf(stats.norm.isf(fpr) - m)
    for epsilon in (0.2, 1.0, 3.0):
        delta = gaussian_mechanism_delta(m, epsilon)
        assert np.all(tpr <= roc.max_tpr_under_dp(fpr, epsilon, delta) + 1e-12)
    assert roc.max_auc_under_dp(0.0, 0.0) == pytest.approx(0.5)
    assert roc.max_auc_under_dp(1e6, 0.0) == 1.0
    auc = integrate.quad(lambda f: stats.norm.sf(stats.norm.isf(f) - m), 0, 1)[0]
    assert auc <= roc.max_auc_under_dp(1.0, gaussian_mechanism_delta(m, 1.0))


@settings(max_examples=10, deadline=None)
@given(
    st.floats(-3, 3),
    st.floats(-3, 3),
    st.floats(0.001, 3),
    st.floats(0.001, 3),
    st.floats(0.05, 0.95),
    st.floats(0.02, 0.5),
)
def test_latent_mixture_is_a_proper_density(m1, m2, s1, s2, weight, s_obs):
    """Integrates to one for every parameter value, also below the quadrature resolution."""
    model = mb.LatentMixtureDensity(weight, np.array([m1, m2]), np.array([s1, s2]), s_obs)
    total, _ = integrate.quad(
        lambda f: np.exp(model.logpdf(np.array([f]))[0]),
        -1 - 10 * s_obs,
        1 + 10 * s_obs,
        limit=400,
        points=list(np.tanh(np.array([m1, m2]) / 2)),
    )
    assert total == pytest.approx(1.0, abs=2e-3)


def test_log_mixture_density_integrates_to_one():
    model = mb.LogMixtureDensity.fit(np.random.default_rng(0).lognormal(-1, 0.7, 2000))
    total, _ = integrate.quad(lambda v: np.exp(model.logpdf(np.array([v]))[0]), 1e-8, 50, limit=200)
    assert total == pytest.approx(1.0, abs=1e-4)


def test_latent_mixture_fit_recovers_the_sample_mean():
    rng = np.random.default_rng(3)
    samples = np.tanh(rng.normal(1.0, 0.6, 3000) / 2) + rng.normal(0, 0.05, 3000)
    model = mb.LatentMixtureDensity.fit(samples, seed=0)
    assert model.mean() == pytest.approx(
        samples.mean(), abs=4 * samples.std() / np.sqrt(3000) + 0.005
    )


def run_attacks(ridge, sigma, paths, replications=1000, seed=0):
    """Shadow and evaluation releases of the step experiment; LiRA and baseline results."""
    rng = np.random.default_rng(seed)
    data = {key: mia.step_datasets(10, key.endswith("_in"), replications, rng) for key in mia._KEYS}
    scenario = {"n": 10, "lengthscale": 1.0, "delta": 1e-5}
    mechanisms = mia._mechanisms(data, scenario, ridge, sigma)
    rows, record = mia._configuration(
        mechanisms, data, scenario, (ridge, sigma, paths, "sigma_r"), rng
    )
    assert record["releases"] == record["passed"] == 4 * replications
    return {result.name: result for _, result in rows}, rows[0][0]


def test_lira_on_a_nearly_non_private_release_is_far_from_random():
    results, lira = run_attacks(ridge=0.1, sigma=0.05, paths=3)
    assert lira["lira_fit_ok"]
    # Null AUC has sd sqrt((n1 + n2 + 1) / (12 n1 n2)) = 0.013 for 1000 / 1000.
    assert results["lira"].auc > 0.85 and results["mean_threshold"].auc > 0.85
    assert results["lira"].auc >= results["mean_threshold"].auc - 0.02


def test_lira_on_a_heavily_regularised_release_is_near_random_and_inside_the_dp_bound():
    ridge, sigma, paths, delta = 10.0, 2.0, 3, 1e-5
    results, lira = run_attacks(ridge=ridge, sigma=sigma, paths=paths, seed=1)
    epsilon = PosteriorSamplingBound.exp_1d(10, 1.0, ridge, sigma).epsilon(delta, paths)[0]
    assert epsilon < 0.5
    null_sd = np.sqrt((2000 + 1) / (12 * 1000 * 1000))
    for result in results.values():
        assert abs(result.auc - 0.5) <= 4 * null_sd + (roc.max_auc_under_dp(epsilon, delta) - 0.5)
        for fpr, tpr in result.tpr.items():
            assert tpr <= roc.max_tpr_under_dp(fpr, epsilon, delta) + 4 * np.sqrt(0.25 / 1000)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: roc.auc_score([], [1.0]), "scores_in is empty"),
        (lambda: roc.tpr_at_fpr([1.0], [0.0], 1.5), "fpr"),
        (lambda: mb.release_statistics(np.ones(3), 1.0), "values"),
        (lambda: mb.release_statistics(np.ones((3, 2)), 0.0), "sigma"),
        (lambda: mb.LiRA.fit([0.1, 0.2], [0.3, 0.1], v_in=[0.1, 0.2]), "both v_in and v_out"),
        (lambda: roc.auc_score([np.nan], [1.0]), "non-finite"),
    ],
)
def test_bad_input_raises_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
