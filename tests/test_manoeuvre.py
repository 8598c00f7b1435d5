"""Tests of the manoeuvre detectability attack (:mod:`ssa_privacy.attacks.manoeuvre`).

The closed forms are checked against independent computations: a dense solve of the
stacked covariance, brute-force Monte Carlo with releases drawn by scipy, the exact ROC of
the two-direction (+g, -g) detector by quadrature, and mechanisms designed by
:mod:`ssa_privacy.privacy.pml.stream_design` to meet a PML budget. Monte Carlo checks use
4 standard errors (two-sided probability of a false failure about 6e-5) or intervals at
99.9 %; all draws are seeded.
"""

import numpy as np
import pytest
from scipy import integrate, linalg, stats

from ssa_privacy.attacks import manoeuvre as mv
from ssa_privacy.privacy.pml.stream import ReleaseStream
from ssa_privacy.privacy.pml.stream_design import stream_logdet_design, stream_noise_scale

#: Standard errors allowed between a Monte Carlo estimate and the exact value.
SE_MULTIPLE = 4.0


def _spd(rng, size, scale=1.0):
    A = rng.normal(size=(size, size))
    return scale * (A @ A.T / size + 0.5 * np.eye(size))


def _passes(rng, sizes=(8, 12)):
    return [_spd(rng, m, scale=rng.uniform(0.5, 2.0)) for m in sizes]


def _standard_error(interval, confidence=mv.DETECTION_CONFIDENCE):
    return (interval[1] - interval[0]) / (2.0 * stats.norm.isf((1.0 - confidence) / 2.0))


def _prior(rng):
    """A manoeuvre-like prior: about 0.5-1.2 km and 1 m/s, correlated."""
    sd = np.array([0.5, 0.8, 1.2, 1e-3, 1e-3, 1e-3])
    Q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    core = 0.6 * np.eye(6) + 0.4 * Q @ np.diag(rng.uniform(0.5, 1.5, 6)) @ Q.T
    return np.diag(sd) @ core @ np.diag(sd)


def _velocity_kick(u, magnitude=1e-3):
    return np.concatenate([np.zeros(3), magnitude * np.asarray(u)])


def test_deflection_is_the_dense_quadratic_form_and_adds_over_passes():
    rng = np.random.default_rng(1)
    blocks = _passes(rng, (5, 9, 3))
    shifts = [rng.normal(size=len(S)) for S in blocks]
    dense = np.concatenate(shifts) @ np.linalg.solve(
        linalg.block_diag(*blocks), np.concatenate(shifts)
    )
    power = mv.known_direction(shifts, blocks, alpha=0.05)
    assert power.deflection == pytest.approx(dense, rel=1e-12)
    parts = [mv.known_direction(d, S).deflection for d, S in zip(shifts, blocks)]
    assert power.deflection == pytest.approx(sum(parts), rel=1e-12)
    assert power.auc == pytest.approx(stats.norm.cdf(np.sqrt(dense / 2.0)), rel=1e-12)
    assert power.tpr == pytest.approx(stats.norm.sf(stats.norm.isf(0.05) - np.sqrt(dense)))
    factors = [np.linalg.cholesky(S) for S in blocks]
    assert mv.known_direction(shifts, factors, factored=True).deflection == pytest.approx(dense)
    # The statistic's mean under H1 minus under H0 is d2 (a linear function of y).
    statistic = mv.log_likelihood_ratio(shifts, blocks)
    residual = np.concatenate(shifts)
    assert statistic(residual) - statistic(np.zeros_like(residual)) == pytest.approx(dense)
    assert statistic(np.zeros_like(residual)) == pytest.approx(-dense / 2.0)


def test_exact_power_matches_brute_force_monte_carlo():
    """Releases drawn by scipy from N(mu0 + d, S) and N(mu0, S), S block diagonal."""
    rng = np.random.default_rng(2)
    blocks = _passes(rng)
    shifts = [rng.normal(size=len(S)) for S in blocks]
    target = 1.5  # d2 about 1.5: AUC about 0.81
    scale = np.sqrt(target / mv.known_direction(shifts, blocks).deflection)
    shifts = [scale * d for d in shifts]
    mu0 = rng.normal(size=sum(len(S) for S in blocks)) * 100.0
    mu1 = mu0 + np.concatenate(shifts)
    S = linalg.block_diag(*blocks)
    h0, h1 = stats.multivariate_normal(mu0, S), stats.multivariate_normal(mu1, S)
    statistic = mv.log_likelihood_ratio(shifts, blocks)

    def brute_force(vectorized):  # the statistic takes one release or the stacked draws
        return mv.brute_force_auc(
            lambda g: h0.rvs(random_state=g),
            lambda g: h1.rvs(random_state=g),
            lambda y: statistic(y - mu0),
            samples=3000,
            seed=3,
            alpha=0.05,
            confidence=0.999,
            vectorized=vectorized,
        )

    estimate = brute_force(False)
    exact = mv.known_direction(shifts, blocks, alpha=0.05)
    assert exact.deflection == pytest.approx(target)
    assert abs(estimate.auc - exact.auc) <= SE_MULTIPLE * _standard_error(
        estimate.auc_interval, 0.999
    )
    assert estimate.tpr_interval[0] <= exact.tpr <= estimate.tpr_interval[1]
    # the statistic applied to the stacked draws gives the same estimate
    batched = brute_force(True)
    assert batched.auc == estimate.auc and batched.tpr == estimate.tpr


def test_interval_coverage_of_the_monte_carlo_estimates():
    """With one direction the averaged test is the known-direction test: exact AUC and TPR
    are known, so the coverage of both 95 % intervals can be counted over replications."""
    g = np.array([1.1, 0.0, 0.0])
    exact = mv.known_direction(g, np.eye(3), alpha=0.05)
    rng = np.random.default_rng(4)
    hits = np.zeros(2)
    replications = 300
    for _ in range(replications):
        est = mv.unknown_direction(g[None], np.eye(3), alpha=0.05, samples=600, seed=rng)
        hits += [
            est.auc_interval[0] <= exact.auc <= est.auc_interval[1],
            est.tpr_interval[0] <= exact.tpr <= est.tpr_interval[1],
        ]
    # Binomial(300, 0.95) falls below 0.95 - 3 sd = 0.912 with probability about 1e-3.
    floor = 0.95 - 3.0 * np.sqrt(0.95 * 0.05 / replications)
    assert np.all(hits / replications >= floor)


def test_unknown_direction_of_an_antipodal_pair_matches_its_exact_roc():
    """Shifts +g and -g: log Lambda is a function of |g . w| / |g| = |Z + m| (H1), |Z| (H0)."""
    rng = np.random.default_rng(5)
    blocks = _passes(rng, (6, 4))
    direction = [rng.normal(size=len(S)) for S in blocks]
    m = np.sqrt(mv.known_direction(direction, blocks).deflection)
    shifts = [np.array([d, -d]) for d in direction]
    estimate = mv.unknown_direction(shifts, blocks, alpha=0.05, samples=20000, seed=6)
    estimate_999 = mv.unknown_direction(
        shifts, blocks, alpha=0.05, samples=20000, seed=6, confidence=0.999
    )

    def tail(t):
        return stats.norm.cdf(m - t) + stats.norm.cdf(-m - t)

    auc = integrate.quad(lambda t: tail(t) * 2.0 * stats.norm.pdf(t), 0.0, np.inf)[0]
    tpr = tail(stats.norm.isf(0.025))
    assert abs(estimate.auc - auc) <= SE_MULTIPLE * _standard_error(estimate.auc_interval)
    assert estimate_999.tpr_interval[0] <= tpr <= estimate_999.tpr_interval[1]
    # Not knowing the sign costs power: below the known-direction AUC of either direction.
    assert estimate.auc_interval[1] < mv.known_direction(direction, blocks).auc


def test_shared_draws_are_the_draws_of_the_seed_and_serve_tests_of_lower_rank():
    """Draws of the test's rank r and J directions from its seed give the seed's estimate
    exactly; draws of a higher rank (their first r columns) an estimate of the exact ROC
    of the antipodal pair within the Monte Carlo error; mismatched draws are refused."""
    rng = np.random.default_rng(5)
    blocks = _passes(rng, (6, 4))
    direction = [rng.normal(size=len(S)) for S in blocks]
    m = np.sqrt(mv.known_direction(direction, blocks).deflection)
    shifts = [np.array([d, -d]) for d in direction]
    own = mv.unknown_direction(shifts, blocks, alpha=0.05, samples=20000, seed=6)
    draws = mv.unknown_direction_draws(20000, 2, 2, 6)
    assert mv.unknown_direction(shifts, blocks, 0.05, 20000, draws=draws) == own
    wider = mv.unknown_direction_draws(20000, 7, 2, 7)
    shared = mv.unknown_direction(shifts, blocks, 0.05, 20000, draws=wider)
    auc = integrate.quad(
        lambda t: (stats.norm.cdf(m - t) + stats.norm.cdf(-m - t)) * 2.0 * stats.norm.pdf(t),
        0.0,
        np.inf,
    )[0]
    assert abs(shared.auc - auc) <= SE_MULTIPLE * _standard_error(shared.auc_interval)
    for bad in (mv.unknown_direction_draws(100, 2, 2, 6), mv.unknown_direction_draws(20000, 1, 2)):
        with pytest.raises(ValueError, match="draws"):
            mv.unknown_direction(shifts, blocks, 0.05, 20000, draws=bad)
    with pytest.raises(ValueError, match="draws"):
        mv.unknown_direction(
            shifts, blocks, 0.05, 20000, draws=mv.unknown_direction_draws(20000, 2, 3)
        )


def test_unknown_direction_on_the_sphere_is_bounded_and_matches_brute_force():
    """Linear shifts d(u) = B u over a Fibonacci sphere: 0.5 < AUC <= mean_j AUC_j, and the
    reduced (span of the g_j) estimate agrees with a full-dimensional brute force."""
    rng = np.random.default_rng(7)
    blocks = _passes(rng, (7, 5))
    maps = [rng.normal(size=(len(S), 3)) * 0.4 for S in blocks]
    directions = mv.fibonacci_directions(32)
    shifts = [directions @ B.T for B in maps]
    estimate = mv.unknown_direction(shifts, blocks, samples=20000, seed=8)
    known = [mv.known_direction([s[j] for s in shifts], blocks).auc for j in range(len(directions))]
    error = _standard_error(estimate.auc_interval)
    assert estimate.auc_interval[0] > 0.5
    assert estimate.auc <= np.mean(known) + SE_MULTIPLE * error
    assert np.mean(known) <= max(known)

    S = linalg.block_diag(*blocks)
    factor = np.linalg.cholesky(S)
    stacked = np.concatenate(shifts, axis=1)  # (J, M)
    G = linalg.solve_triangular(factor, stacked.T, lower=True)  # (M, J)

    def statistic(residual):
        w = linalg.solve_triangular(factor, residual, lower=True)
        return float(np.log(np.mean(np.exp(G.T @ w - 0.5 * np.sum(G**2, axis=0)))))

    def h1(g):
        return stacked[g.integers(len(directions))] + factor @ g.standard_normal(len(S))

    brute = mv.brute_force_auc(
        lambda g: factor @ g.standard_normal(len(S)), h1, statistic, samples=3000, seed=9
    )
    combined = np.hypot(error, _standard_error(brute.auc_interval))
    assert abs(brute.auc - estimate.auc) <= SE_MULTIPLE * combined


def test_averaged_likelihood_ratio_has_unit_mean_under_each_hypothesis():
    """A likelihood ratio Lambda = p1 / p0 has E_H0[Lambda] = 1 and E_H1[1 / Lambda] = 1."""
    rng = np.random.default_rng(13)
    blocks = _passes(rng, (6, 5))
    maps = [rng.normal(size=(len(S), 3)) * np.array([0.5, 0.2, 0.05]) for S in blocks]
    directions = mv.fibonacci_directions(16)
    shifts = [directions @ B.T for B in maps]
    statistic = mv.log_likelihood_ratio(shifts, blocks)
    S = linalg.block_diag(*blocks)
    draws = stats.multivariate_normal(np.zeros(len(S)), S).rvs(20000, random_state=rng)
    stacked = np.concatenate(shifts, axis=1)
    chosen = stacked[rng.integers(len(directions), size=len(draws))]
    for ratio in (np.exp(statistic(draws)), np.exp(-statistic(draws + chosen))):
        error = ratio.std(ddof=1) / np.sqrt(len(ratio))
        assert abs(ratio.mean() - 1.0) <= SE_MULTIPLE * error
    # One direction: the averaged ratio is the known-direction one.
    one = mv.log_likelihood_ratio([s[:1] for s in shifts], blocks)
    known = mv.log_likelihood_ratio([s[0] for s in shifts], blocks)
    np.testing.assert_allclose(one(draws[:50]), known(draws[:50]), rtol=1e-12, atol=1e-12)


def test_fibonacci_directions_are_unit_and_nearly_uniform():
    u = mv.fibonacci_directions(200)
    assert u.shape == (200, 3)
    np.testing.assert_allclose(np.linalg.norm(u, axis=1), 1.0, atol=1e-14)
    # Uniform on the sphere: mean 0, second moment I / 3, cap fractions = area fractions.
    assert np.linalg.norm(u.mean(axis=0)) < 0.01
    np.testing.assert_allclose(u.T @ u / len(u), np.eye(3) / 3.0, atol=0.01)
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    for height in (0.2, 0.5, 0.9):  # cap {u . axis > h} has area fraction (1 - h) / 2
        assert abs(np.mean(u @ axis > height) - (1.0 - height) / 2.0) < 0.03
    assert mv.fibonacci_directions(1).shape == (1, 3)


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_the_rank_one_mechanism_attains_the_pml_cap(convention):
    """y = (Sigma^{-1} x)^T x0 + e with the log-det noise for the budget reaches the cap."""
    rng = np.random.default_rng(10)
    Sigma = _prior(rng)
    x = _velocity_kick(mv.fibonacci_directions(7)[3])
    row = linalg.cho_solve(linalg.cho_factor(Sigma), x)[None]
    delta = 1e-3
    for epsilon in (6.0, 8.0, 12.0):
        design = stream_logdet_design(Sigma, row, epsilon, delta, convention=convention)
        reached = x @ design.stream.information @ x
        cap = mv.pml_detection_cap(Sigma, x, epsilon, delta, convention=convention)
        assert reached <= cap.deflection * (1 + 1e-12)
        assert reached == pytest.approx(cap.deflection, rel=1e-9)


def test_the_pml_cap_bounds_mechanisms_designed_for_the_budget():
    rng = np.random.default_rng(11)
    Sigma = _prior(rng)
    delta, alpha = 1e-3, 0.01
    C = rng.normal(size=(24, 6)) * np.array([1.0, 1.0, 1.0, 1e3, 1e3, 1e3])
    kicks = [_velocity_kick(u) for u in mv.fibonacci_directions(16)]
    # The minimum-trace log-det design (noise of rank 6, correlated across rows).
    design = stream_logdet_design(Sigma, C, 14.0, delta)
    Q = design.basis
    reduced_noise = Q.T @ design.noise.matrix() @ Q
    # Per-row noises scaled by one factor on top of a sensor noise, for a 3-pass stream.
    passes = C.reshape(3, 8, 6)
    sensor = np.stack([_spd(rng, 8, 0.1) for _ in range(3)])
    privacy = np.stack([_spd(rng, 8) for _ in range(3)])
    scale = stream_noise_scale(Sigma, passes, privacy, 14.0, delta, R=sensor)
    noises = list(sensor + scale * privacy)
    assert ReleaseStream.of(passes, noises).epsilon(Sigma, delta) <= 14.0 + 1e-9
    for x in kicks:
        cap = mv.pml_detection_cap(Sigma, x, 14.0, delta, alpha=alpha)
        logdet = mv.known_direction([Q.T @ C @ x], [reduced_noise], alpha=alpha)
        assert logdet.deflection == pytest.approx(x @ design.stream.information @ x, rel=1e-9)
        scaled = mv.known_direction(list(passes @ x), noises, alpha=alpha)
        for power in (logdet, scaled):
            assert 0.0 < power.deflection <= cap.deflection
            assert power.auc <= cap.auc and power.tpr <= cap.tpr


def test_below_the_rank_one_floor_nothing_is_detectable():
    Sigma = _prior(np.random.default_rng(12))
    x = _velocity_kick([0.0, 1.0, 0.0])
    delta = 1e-3
    floor = stats.chi2.isf(delta, 1) / 2.0
    for epsilon in (0.0, floor - 1e-6, floor):
        cap = mv.pml_detection_cap(Sigma, x, epsilon, delta, alpha=0.02)
        assert (cap.deflection, cap.auc, cap.tpr) == (0.0, 0.5, pytest.approx(0.02))
    assert mv.pml_detection_cap(Sigma, x, floor + 0.1, delta).deflection > 0.0
    assert mv.pml_detection_cap(Sigma, 0 * x, floor + 0.1, delta).deflection == 0.0
    huge = mv.pml_detection_cap(Sigma, x, 1e4, delta)
    assert (huge.deflection, huge.auc, huge.tpr) == (np.inf, 1.0, 1.0)


def _bad_known():
    S = np.eye(3)
    d = np.ones(3)
    return [
        (dict(shifts=[d], noise_blocks=[S, S]), ValueError, "one entry per pass"),
        (dict(shifts=[np.ones(4)], noise_blocks=[S]), ValueError, "noise_blocks\\[0\\]"),
        (dict(shifts=[d], noise_blocks=[-S]), ValueError, "positive definite"),
        (dict(shifts=[d], noise_blocks=[S + np.triu(np.ones((3, 3)), 1)]), ValueError, "symmetric"),
        (dict(shifts=[np.array([1.0, np.nan, 0])], noise_blocks=[S]), ValueError, "shifts\\[0\\]"),
        (dict(shifts=[d], noise_blocks=[np.full((3, 3), np.inf)]), ValueError, "noise_blocks"),
        (dict(shifts=[d], noise_blocks=[S], alpha=1.0), ValueError, "alpha"),
        (dict(shifts=[d], noise_blocks=[S], alpha=0.0), ValueError, "alpha"),
        (dict(shifts=[d], noise_blocks=[np.ones((3, 3))], factored=True), ValueError, "lower"),
        (dict(shifts=[d], noise_blocks=[-S], factored=True), ValueError, "positive diagonal"),
        (dict(shifts="abc", noise_blocks=[S]), TypeError, "shifts"),
        (dict(shifts=[np.ones((2, 3))], noise_blocks=[S]), ValueError, "shifts\\[0\\]"),
        (dict(shifts=[np.ones(0)], noise_blocks=[np.eye(0)]), ValueError, "empty"),
        (dict(shifts=[d], noise_blocks=[S], factored=1), TypeError, "factored"),
    ]


@pytest.mark.parametrize(("kwargs", "error", "match"), _bad_known())
def test_known_direction_rejects_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        mv.known_direction(**kwargs)


def test_other_functions_reject_bad_input():
    S, D = np.eye(3), np.ones((4, 3))
    with pytest.raises(ValueError, match="directions"):
        mv.unknown_direction([D, np.ones((5, 2))], [S, np.eye(2)])
    with pytest.raises(ValueError, match="samples"):
        mv.unknown_direction([D], [S], samples=1)
    with pytest.raises(ValueError, match="samples"):
        mv.unknown_direction([D], [S], samples=2.5)
    with pytest.raises(ValueError, match="confidence"):
        mv.unknown_direction([D], [S], confidence=1.5)
    with pytest.raises(ValueError, match="shifts\\[0\\]"):
        mv.unknown_direction([np.ones(3)], [S])
    with pytest.raises(ValueError, match="empty"):
        mv.unknown_direction([np.ones((0, 3))], [S])
    with pytest.raises(ValueError, match="count"):
        mv.fibonacci_directions(0)
    with pytest.raises(TypeError, match="statistic"):
        mv.brute_force_auc(lambda g: 0.0, lambda g: 1.0, "T")
    with pytest.raises(TypeError, match="sample_h1"):
        mv.brute_force_auc(lambda g: g.normal(), None, float)
    with pytest.raises(ValueError, match="not finite"):
        mv.brute_force_auc(lambda g: np.nan, lambda g: 1.0, float)
    with pytest.raises(ValueError, match="residual"):
        mv.log_likelihood_ratio([np.ones(3)], [S])(np.ones(4))
    Sigma = np.diag([1.0, 1.0, 1.0, 1e-6, 1e-6, 1e-6])
    for kwargs, error, match in [
        (dict(direction=np.ones(5)), ValueError, "direction"),
        (dict(direction=np.full(6, np.nan)), ValueError, "direction"),
        (dict(delta=1.0), ValueError, "delta"),
        (dict(epsilon=np.inf), ValueError, "epsilon"),
        (dict(alpha=-0.1), ValueError, "alpha"),
        (dict(convention="loose"), ValueError, "convention"),
        (dict(Sigma_XX=-Sigma), ValueError, "Sigma_XX"),
    ]:
        arguments = dict(Sigma_XX=Sigma, direction=np.ones(6), epsilon=8.0, delta=1e-3)
        with pytest.raises(error, match=match):
            mv.pml_detection_cap(**(arguments | kwargs))
