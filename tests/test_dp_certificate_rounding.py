"""The DP-GP certificates proven in floating point, checked against 50-digit arithmetic.

Each certificate of the DP baselines ([SMI]: cloaking, Hall's standard method, Laplace
binning, the exponential mechanism for hyperparameters) reports a margin and a rigorous
bound on its rounding error (docs/theory/dp-gp.rst, "Certificates in floating point").
Here independent mpmath computations at 50 significant digits on the very float64 inputs
give the exact quantities; the tests check that they lie within the reported bounds,
that ``passed`` implies an exact margin >= 0, that calibrated designs pass and that the
same noise scaled down by 0.999 in variance fails.
"""

import mpmath as mp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ssa_privacy.gp.regression import RBF
from ssa_privacy.privacy.accounting import analytic_gaussian_ratio
from ssa_privacy.privacy.dp_gp import hyperparameters
from ssa_privacy.privacy.dp_gp.binning import LaplaceBinningMechanism
from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.privacy.dp_gp.hall import StandardDPGPMechanism, prior_noise_scale
from ssa_privacy.privacy.dp_gp.release import (
    INFLATION_LIMIT,
    gaussian_check,
    least_inflation,
    mahalanobis_enclosure,
)
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.rounding import RULE

DIGITS = 50


def mp_delta(m, epsilon):
    """Balle and Wang's exact delta at 50 digits (mpmath's normal CDF)."""
    with mp.workdps(DIGITS):
        m, epsilon = mp.mpf(m), mp.mpf(epsilon)
        if m == 0:
            return mp.mpf(0)
        return mp.ncdf(m / 2 - epsilon / m) - mp.exp(epsilon) * mp.ncdf(-m / 2 - epsilon / m)


def mp_sigma(noise):
    """Sigma = V diag(lambda) V^T from the float factors, at 50 digits."""
    V = mp.matrix(noise.eigenvectors.tolist())
    Sigma = mp.zeros(noise.dim, noise.dim)
    for k, lam in enumerate(noise.eigenvalues):
        Sigma += mp.mpf(float(lam)) * (V[:, k] * V[:, k].T)
    return Sigma


def exact_mahalanobis_squared(noise, shifts):
    """s_i^T Sigma^{-1} s_i for every column at 50 digits (Sigma of full rank)."""
    with mp.workdps(DIGITS):
        Sigma = mp_sigma(noise)
        values = []
        for column in np.asarray(shifts).T:
            s = mp.matrix(column.tolist())
            values.append((s.T * mp.lu_solve(Sigma, s))[0])
        return values


def exact_prior_scale(K, noise):
    """The largest c with c^2 K <= Sigma: 1 / sqrt(lambda_max(L^{-1} K L^{-T})), L L^T = Sigma."""
    with mp.workdps(DIGITS):
        L = mp.cholesky(mp_sigma(noise))
        Linv = mp.inverse(L)
        M = Linv * mp.matrix(np.asarray(K).tolist()) * Linv.T
        return 1 / mp.sqrt(max(mp.eigsy((M + M.T) / 2, eigvals_only=True)))


def assert_encloses(certificate, exact_margin):
    """The exact margin (an mpf) lies within the reported bound; passed implies it is >= 0."""
    with mp.workdps(DIGITS):
        assert abs(mp.fsub(certificate.margin, exact_margin, exact=True)) <= certificate.tolerance
    assert not certificate.passed or exact_margin >= 0
    assert certificate.passed == (certificate.margin - certificate.tolerance >= 0)
    assert certificate.evidence["rule"] == RULE


# --------------------------------------------------------------------------------------
# The Gaussian certificate: the Mahalanobis enclosure and the exact delta
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("tilt", [0.0, 1e-10, 1e-7])
def test_mahalanobis_enclosure_holds_for_eigenvectors_that_are_not_orthonormal(tilt):
    """Sigma = V diag(lambda) V^T is taken exactly from its factors, also when V is not
    orthonormal (tilt): the exact norm, which then differs from sum (v_k^T s)^2 / lambda_k
    at first order in tilt / sqrt(lambda_min), lies in the enclosure."""
    rng = np.random.default_rng(5)
    Q = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    V = Q @ (np.eye(4) + tilt * rng.standard_normal((4, 4)))
    noise = FactoredCovariance(np.array([1.0, 1e-3, 1e-6, 1e-9]), V)
    shifts = np.column_stack([Q[:, 0], Q[:, 1] + 1e-4 * Q[:, 3], rng.standard_normal(4)])
    for k in range(3):
        m, error = mahalanobis_enclosure(noise, shifts[:, [k]])
        exact = float(mp.sqrt(exact_mahalanobis_squared(noise, shifts[:, [k]])[0]))
        assert abs(m - exact) <= error
        assert error <= (1e-9 + 1e5 * tilt) * exact  # first order in tilt sqrt(cond)
    if tilt == 1e-7:  # the orthonormal formula alone would be off by more than round-off
        g = float(np.sum((V.T @ shifts[:, 0]) ** 2 / noise.eigenvalues))
        assert abs(g - float(exact_mahalanobis_squared(noise, shifts[:, [0]])[0])) > 1e-9 * g


def test_shift_outside_the_range_has_no_guarantee_below_it_the_projection_is_certified():
    """The range test is a resolution: a component outside range(Sigma) above RANGE_RTOL
    of the shift gives m = inf (delta = 1 exactly); below, the projection is certified."""
    noise = FactoredCovariance(np.array([2.0, 0.5]), np.eye(3)[:, :2])
    outside = np.array([[1.0], [0.0], [1e-6]])
    assert mahalanobis_enclosure(noise, outside) == (np.inf, 0.0)
    certificate = gaussian_check("test", np.inf, 1.0, 0.01, "analytic")
    assert certificate.margin == 0.01 - 1.0 and certificate.tolerance < 1e-16  # its rounding
    m, error = mahalanobis_enclosure(noise, np.array([[1.0], [2.0], [1e-12]]))
    assert abs(m - np.sqrt(0.5 + 8.0)) <= error < 1e-14


@settings(max_examples=40, deadline=None)
@given(
    st.floats(1e-3, 30.0),
    st.floats(0.0, 1e-3),
    st.floats(0.05, 8.0),
    st.sampled_from([1e-2, 1e-5, 1e-10]),
)
@example(m=0.5, relative_error=0.0, epsilon=6.0, delta=1e-2)
def test_gaussian_check_encloses_the_exact_margin_at_every_sensitivity_in_its_error(
    m, relative_error, epsilon, delta
):
    """Every m' within the stated error of m has delta - delta(m') within the bound."""
    error = relative_error * m
    certificate = gaussian_check("test", m, epsilon, delta, "analytic", sensitivity_error=error)
    for point in (max(m - error, 0.0), m, m + error):
        with mp.workdps(DIGITS):
            assert_encloses(certificate, mp.fsub(delta, mp_delta(point, epsilon), exact=True))
    if relative_error == 0.0:  # m exact: only the rounding of the margin to a float
        assert certificate.tolerance <= 2.0**-52 * abs(certificate.margin) + 1e-30


def test_gaussian_check_encloses_a_delta_far_below_the_rounding_of_the_target():
    """delta(0.5) at epsilon 6 is 1.4e-33, below half an ulp of delta = 0.01: the float
    margin is 0.01 and its whole error is delta(0.5). The tolerance covers it exactly
    (it was once computed as 0.01 - delta(m) rounded at 40 digits, 5e-12 short of it)."""
    certificate = gaussian_check("test", 0.5, 6.0, 0.01, "analytic")
    with mp.workdps(DIGITS):
        exact = mp.fsub(0.01, mp_delta(0.5, 6.0), exact=True)
        assert_encloses(certificate, exact)
        assert certificate.tolerance <= mp_delta(0.5, 6.0) * (1 + 2.0**-49)


def test_gaussian_check_rejects_a_bad_sensitivity_error():
    for bad in (-1e-3, np.nan):
        with pytest.raises(ValueError, match="sensitivity_error"):
            gaussian_check("test", 0.5, 1.0, 0.01, "hall", sensitivity_error=bad)


def test_least_inflation_finds_a_passing_factor_within_a_few_times_the_need():
    """A design whose upper end is 1e-6 above the root needs tau >= 1e-6; the search
    returns a passing factor with tau at most four times that, and gives up (factor 1)
    when no factor up to INFLATION_LIMIT passes."""
    epsilon, delta = 1.0, 1e-3
    root = analytic_gaussian_ratio(epsilon, delta)

    def design(excess):
        def certify(factor):
            m = root * (1 + excess) / factor
            return gaussian_check("t", m, epsilon, delta, "analytic", sensitivity_error=1e-9 * m)

        return certify

    factor, certificate = least_inflation(design(1e-6), root)
    assert certificate.passed and certificate.evidence["sensitivity_upper"] <= root
    assert 1e-6 < factor - 1 <= 4e-6
    assert least_inflation(design(0.0), root)[0] - 1 <= 1e-8  # only the error to cover
    factor, certificate = least_inflation(design(10 * INFLATION_LIMIT), root)
    assert factor == 1.0 and not certificate.passed


# --------------------------------------------------------------------------------------
# Cloaking and Hall's mechanism: calibrated designs pass, 0.999 of the variance fails
# --------------------------------------------------------------------------------------

X = np.array([0.0, 1, 2, 3, 4])
TOY_STAR = np.array([0.5, 2.5, 3.5])
# Two near-duplicate test inputs: C is numerically of rank 2, so the noise has a
# direction of variance tau at the round-off level of the points (condition ~1e12).
NEAR_STAR = np.array([0.5, 0.5 + 1e-7, 2.5])


def cloaking_margin(mechanism, noise):
    """delta - delta(m_exact) for the noise, m_exact = d max_i sqrt(c_i^T Sigma^{-1} c_i)."""
    g = exact_mahalanobis_squared(noise, mechanism.C)
    with mp.workdps(DIGITS):
        m = mp.mpf(mechanism.sensitivity) * mp.sqrt(max(g))
        return mp.mpf(mechanism.delta) - mp_delta(m, mechanism.epsilon), float(m)


@pytest.mark.parametrize("test_inputs", [TOY_STAR, NEAR_STAR], ids=["toy", "near-duplicates"])
@pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-2), (2.0, 1e-6)])
def test_cloaking_design_passes_and_0999_of_its_variance_fails(test_inputs, epsilon, delta):
    mechanism = CloakingMechanism.from_kernel(
        RBF(1.0), 0.5, X, test_inputs, epsilon, delta, 1.5, calibration="analytic"
    )
    certificate = mechanism.certificate()
    exact, m = cloaking_margin(mechanism, mechanism.noise_covariance)
    assert certificate.passed and exact >= 0
    assert_encloses(certificate, exact)
    evidence = certificate.evidence
    assert evidence["sensitivity_lower"] <= m <= evidence["sensitivity_upper"]
    assert evidence["design_inflation"] == mechanism.inflation < 1 + 1e-9
    weak_noise = mechanism.noise_covariance.scaled(0.999)
    weak = mechanism.with_noise(weak_noise).certificate()
    weak_exact = cloaking_margin(mechanism, weak_noise)[0]
    assert not weak.passed and weak_exact < 0
    assert_encloses(weak, weak_exact)
    if test_inputs is TOY_STAR:  # well conditioned: the bound is tiny
        assert certificate.tolerance < 1e-12 * delta


@settings(max_examples=12, deadline=None)
@given(
    st.floats(0.3, 3.0),
    st.floats(1e-3, 1.0),
    st.floats(0.05, 8.0),
    st.sampled_from([1e-2, 1e-6, 1e-12]),
    st.floats(1e-2, 1e2),
    st.floats(0.5, 2.0),
)
def test_property_cloaking_certificate_encloses_the_exact_margin(
    lengthscale, noise_variance, epsilon, delta, sensitivity, audit
):
    """Designs and audited noises (the design's covariance times ``audit``): the exact
    margin at 50 digits lies within the bound, and the design passes."""
    mechanism = CloakingMechanism.from_kernel(
        RBF(lengthscale),
        noise_variance,
        X,
        TOY_STAR,
        epsilon,
        delta,
        sensitivity,
        calibration="analytic",
    )
    certificate = mechanism.certificate()
    assert certificate.passed
    assert_encloses(certificate, cloaking_margin(mechanism, mechanism.noise_covariance)[0])
    noise = mechanism.noise_covariance.scaled(audit)
    assert_encloses(mechanism.with_noise(noise).certificate(), cloaking_margin(mechanism, noise)[0])


def test_cloaking_at_another_level_with_the_analytic_calibration_is_certified_too():
    """A mechanism solved without a level, then set to a tight calibration by ``at``."""
    mechanism = CloakingMechanism(RBF(1.0)(TOY_STAR, X), RBF(1.0)(X), 0.5)
    level = mechanism.at(1.0, 1e-3, 1.0, calibration="analytic")
    release = level.release(np.ones(5), seed=0)
    assert release.certificate.passed and release.details["noise_inflation"] >= 1.0
    assert release.details["noise_scale"] == level.noise_scale
    assert_encloses(release.certificate, cloaking_margin(level, level.noise_covariance)[0])


def hall_margin(mechanism, noise, K):
    """delta - delta(Delta_H / c_exact) and c_exact for the noise."""
    c = exact_prior_scale(K, noise)
    with mp.workdps(DIGITS):
        m = mp.mpf(mechanism.rkhs_sensitivity) / c
        return mp.mpf(mechanism.delta) - mp_delta(m, mechanism.epsilon), float(c)


@pytest.mark.parametrize(
    "test_inputs", [TOY_STAR, np.linspace(0.0, 4.0, 24)], ids=["toy", "dense-grid"]
)
def test_hall_design_passes_and_0999_of_its_variance_fails(test_inputs):
    """On the dense grid K_** is numerically singular (jitter needed): the jitter floor of
    the design leaves the Loewner test c^2 K_** <= Sigma room in those directions."""
    kernel = RBF(1.0)
    mechanism = StandardDPGPMechanism.from_kernel(
        kernel, 0.5, X, test_inputs, 1.0, 1e-3, 1.5, calibration="analytic"
    )
    K = kernel(test_inputs)
    certificate = mechanism.certificate()
    exact, c = hall_margin(mechanism, mechanism.noise_covariance, K)
    evidence = certificate.evidence
    assert evidence["prior_noise_scale_lower"] <= c <= evidence["prior_noise_scale_upper"]
    assert certificate.passed and exact >= 0
    assert_encloses(certificate, exact)
    assert certificate.tolerance < 1e-10 * mechanism.delta
    weak_noise = mechanism.noise_covariance.scaled(0.999)
    weak = mechanism.with_noise(weak_noise).certificate()
    weak_exact = hall_margin(mechanism, weak_noise, K)[0]
    assert not weak.passed and weak_exact < 0
    assert_encloses(weak, weak_exact)


@settings(max_examples=12, deadline=None)
@given(
    st.floats(0.3, 3.0),
    st.floats(1e-3, 1.0),
    st.floats(0.05, 5.0),
    st.sampled_from([1e-2, 1e-6, 1e-12]),
    st.floats(1e-2, 1e2),
    st.floats(0.5, 2.0),
)
def test_property_hall_certificate_encloses_the_exact_margin(
    lengthscale, noise_variance, epsilon, delta, sensitivity, audit
):
    """Hall's mechanism at random levels and audited noises: the exact margin (from the
    exact Loewner scale at 50 digits) lies within the bound, and the design passes."""
    kernel = RBF(lengthscale)
    mechanism = StandardDPGPMechanism.from_kernel(
        kernel, noise_variance, X, TOY_STAR, epsilon, delta, sensitivity, calibration="analytic"
    )
    K = kernel(TOY_STAR)
    certificate = mechanism.certificate()
    assert certificate.passed
    assert_encloses(certificate, hall_margin(mechanism, mechanism.noise_covariance, K)[0])
    noise = mechanism.noise_covariance.scaled(audit)
    assert_encloses(mechanism.with_noise(noise).certificate(), hall_margin(mechanism, noise, K)[0])


def test_prior_noise_scale_encloses_the_exact_scale_of_any_noise():
    """An audited noise unrelated to K_**: the enclosure still holds (and is finite)."""
    rng = np.random.default_rng(2)
    K = RBF(1.0)(TOY_STAR)
    A = rng.standard_normal((3, 3))
    noise = FactoredCovariance.from_matrix(A @ A.T + 0.1 * np.eye(3))
    c, lower, upper = prior_noise_scale(K, noise)
    exact = float(exact_prior_scale(K, noise))
    assert 0 < lower <= exact <= upper < np.inf
    assert lower <= c <= upper
    singular = FactoredCovariance(noise.eigenvalues[1:], noise.eigenvectors[:, 1:])
    assert prior_noise_scale(K, singular)[1] == 0.0  # nothing proven below a singular Sigma
    with pytest.raises(TypeError, match="noise_covariance"):
        prior_noise_scale(K, noise.matrix())
    with pytest.raises(ValueError, match="K_star_star"):
        prior_noise_scale(K[:2, :2], noise)


# --------------------------------------------------------------------------------------
# Laplace binning
# --------------------------------------------------------------------------------------


def laplace_margin(mechanism, noise):
    """epsilon - max_b (d / n_b) / sqrt(Sigma_bb / 2) at 50 digits."""
    with mp.workdps(DIGITS):
        V = noise.eigenvectors
        losses = []
        for b in np.flatnonzero(mechanism.counts):
            variance = mp.fsum(
                mp.mpf(float(V[b, k])) ** 2 * mp.mpf(float(lam))
                for k, lam in enumerate(noise.eigenvalues)
            )
            scale = mp.sqrt(variance / 2)
            losses.append(mp.mpf(mechanism.sensitivity) / int(mechanism.counts[b]) / scale)
        return mp.mpf(mechanism.epsilon) - max(losses)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.0, 9.999), min_size=1, max_size=40),
    st.integers(2, 12),
    st.floats(1e-3, 20.0),
    st.floats(1e-3, 1e3),
)
def test_laplace_design_passes_and_0999_of_its_variance_fails(inputs, bins, epsilon, d):
    mechanism = LaplaceBinningMechanism(np.array(inputs), np.linspace(0, 10, bins), epsilon, d)
    certificate = mechanism.certificate()
    exact = laplace_margin(mechanism, mechanism.noise_covariance)
    assert certificate.passed and exact >= 0
    assert_encloses(certificate, exact)
    assert certificate.tolerance < 1e-14 * epsilon
    weak_noise = mechanism.noise_covariance.scaled(0.999)
    weak = mechanism.with_noise(weak_noise).certificate()
    weak_exact = laplace_margin(mechanism, weak_noise)
    assert not weak.passed and weak_exact < 0
    assert_encloses(weak, weak_exact)


def test_laplace_certificate_of_a_dense_covariance_encloses_its_exact_margin():
    """An audited covariance that is not diagonal: its eigenvectors mix the bins, and the
    variance of each bin is a sum of many rounded terms."""
    X_bins = np.array([0.2, 0.4, 1.5, 2.5, 2.7, 2.9])
    mechanism = LaplaceBinningMechanism(X_bins, [0.0, 1.0, 2.0, 3.0], 1.0, 2.0)
    rng = np.random.default_rng(3)
    A = rng.standard_normal((3, 3))
    for scale in (4.0, 40.0):
        noise = FactoredCovariance.from_matrix(scale * (A @ A.T + np.eye(3)))
        certificate = mechanism.with_noise(noise).certificate()
        assert_encloses(certificate, laplace_margin(mechanism, noise))
        assert certificate.tolerance < 1e-13


# --------------------------------------------------------------------------------------
# The exponential mechanism
# --------------------------------------------------------------------------------------


def selection_problem(seed=4, epsilon=1.0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0, 10, 24))
    y = np.clip(np.sin(X) + 0.3 * rng.standard_normal(24), -1, 1)
    return hyperparameters.select_hyperparameters(
        X, y, [1.0, 3.0, 9.0], [0.1, 0.5], epsilon=epsilon, sensitivity=2.0, folds=3, seed=7
    )


def code_temperature(selection):
    """beta of the code: fl(epsilon (1 - kappa)) / (2 Delta_u), exactly (50 digits)."""
    evidence = selection.check.evidence
    epsilon_design = selection.check.epsilon * (1 - evidence["selection_margin"])
    with mp.workdps(DIGITS):
        return mp.mpf(epsilon_design) / (2 * mp.mpf(selection.utility_sensitivity))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**16), st.floats(0.05, 20.0))
@example(seed=4, epsilon=0.3)
@example(seed=4, epsilon=1.0)
@example(seed=4, epsilon=5.0)
def test_selection_probabilities_deviate_from_the_exponential_form_within_the_bound(seed, epsilon):
    """log p_i - beta u_i is constant up to the a-priori rounding bound eta (50 digits)."""
    selection = selection_problem(seed, epsilon)
    evidence = selection.check.evidence
    beta = code_temperature(selection)
    with mp.workdps(DIGITS):
        deviations = [
            mp.log(mp.mpf(float(p))) - beta * mp.mpf(float(u))
            for p, u in zip(selection.probabilities, selection.utilities)
        ]
        half_range = (max(deviations) - min(deviations)) / 2
    assert half_range <= evidence["code_rounding"]
    width = evidence["inverse_temperature_error"]
    assert abs(evidence["inverse_temperature"] - float(beta)) <= width
    # The certified epsilon of the code's mechanism, 2 beta Delta_u + 4 eta, is within the
    # bound of the computed 2 beta^ Delta_u, and below epsilon.
    with mp.workdps(DIGITS):
        certified = 2 * beta * mp.mpf(selection.utility_sensitivity) + 4 * evidence["code_rounding"]
        exact_margin = mp.mpf(epsilon) - certified
    certificate = selection.check.certificate
    assert certificate.passed and exact_margin >= 0
    assert_encloses(certificate, exact_margin)
    assert certificate.tolerance < 1e-11 * epsilon


def test_selection_neighbours_have_probability_ratios_within_the_certified_epsilon():
    """For actual neighbours (one output moved by d) the log-ratios of the selection
    probabilities stay below epsilon - margin + tolerance."""
    rng = np.random.default_rng(4)
    X = np.sort(rng.uniform(0, 10, 20))
    y = np.clip(np.sin(X) + 0.3 * rng.standard_normal(20), -1, 1)
    kwargs = dict(epsilon=1.0, sensitivity=2.0, folds=2, seed=7)
    base = hyperparameters.select_hyperparameters(X, y, [1.0, 3.0], [0.1, 0.5], **kwargs)
    bound = base.check.epsilon - base.check.certificate.margin + base.check.certificate.tolerance
    assert bound <= 1.0
    for j in (0, 7, 19):
        y_neighbour = y.copy()
        y_neighbour[j] -= 2.0
        other = hyperparameters.select_hyperparameters(
            X, y_neighbour, [1.0, 3.0], [0.1, 0.5], **kwargs
        )
        with mp.workdps(DIGITS):
            ratios = [
                abs(mp.log(mp.mpf(float(p)) / mp.mpf(float(q))))
                for p, q in zip(base.probabilities, other.probabilities)
            ]
        assert max(ratios) <= bound


def test_selection_at_a_higher_temperature_fails():
    """Probabilities of the exponential form at 1.001 times the calibrated inverse
    temperature: the certificate recovers it and fails."""
    selection = selection_problem()
    beta = float(code_temperature(selection)) * 1.001
    logits = beta * selection.utilities
    probabilities = np.exp(logits - np.log(np.sum(np.exp(logits))))
    certificate = hyperparameters._selection_certificate(
        selection.utilities,
        probabilities,
        np.full(len(probabilities), selection.utility_sensitivity),
        1.0,
        selection.check.evidence["utility_bound"],
    )
    assert certificate.evidence["epsilon_achieved"] == pytest.approx(1.001, rel=1e-6)
    assert not certificate.passed and certificate.margin + certificate.tolerance < 0


def test_selection_certificate_proves_nothing_where_the_form_cannot_be_checked():
    """Possible underflow of a probability (then pure DP fails for some neighbour), equal
    utilities (beta is not identified): tolerance inf. One candidate is 0-DP exactly."""
    u = np.array([-1.0, -2.0, -3.0])
    p = np.exp(0.1 * u) / np.sum(np.exp(0.1 * u))
    underflow = hyperparameters._selection_certificate(u, p, np.full(3, 0.05), 1.0, 1e5)
    assert underflow.evidence["underflow_possible"] and underflow.tolerance == np.inf
    assert not underflow.passed
    flat = hyperparameters._selection_certificate(
        np.ones(3), np.full(3, 1 / 3), np.ones(3), 1.0, 3.0
    )
    assert flat.tolerance == np.inf and not flat.passed
    single = hyperparameters._selection_certificate(np.ones(1), np.ones(1), np.ones(1), 1.0, 3.0)
    assert single.passed and (single.margin, single.tolerance) == (1.0, 0.0)
