"""PML of Gaussian mechanisms [LKC §3] against independent computations.

Every Monte Carlo assertion is a binomial or goodness-of-fit test at a stated level with a
fixed seed; the closed forms are compared with numerical optimisation (scipy.optimize),
numerical integration (scipy.integrate) or an independent cvxpy solve.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, linalg, optimize, stats

from ssa_privacy.privacy import accounting
from ssa_privacy.privacy.pml import design as pml_design
from ssa_privacy.privacy.pml import leakage as pml_leakage

LEVEL = 1e-4  # level of every binomial test below (chance of a false failure)


def random_spd(rng, n, floor=0.2):
    M = rng.standard_normal((n, n))
    return M @ M.T / n + floor * np.eye(n)


def random_pair(rng, n, m, rank):
    """Covariances of X ~ N(0, Sigma_XX), Y = B X + E with rank(B) = rank (canonical
    correlations bounded away from 0 and 1)."""
    Sigma_XX = random_spd(rng, n)
    U = np.linalg.qr(rng.standard_normal((m, m)))[0][:, :rank]
    V = np.linalg.qr(rng.standard_normal((n, n)))[0][:, :rank]
    B = U @ np.diag(rng.uniform(0.4, 2.0, rank)) @ V.T
    R = random_spd(rng, m, floor=0.3)
    return Sigma_XX, Sigma_XX @ B.T, B @ Sigma_XX @ B.T + R


def numerical_pml(Sigma_XX, Sigma_XY, Sigma_YY, y):
    """max_x log f_{X|Y}(x|y) - log f_X(x) by BFGS, posterior from scipy.linalg.solve."""
    mean = Sigma_XY @ linalg.solve(Sigma_YY, y, assume_a="pos")
    Gamma = Sigma_XX - Sigma_XY @ linalg.solve(Sigma_YY, Sigma_XY.T, assume_a="pos")
    posterior = stats.multivariate_normal(mean, 0.5 * (Gamma + Gamma.T))
    prior = stats.multivariate_normal(np.zeros(len(Sigma_XX)), Sigma_XX)
    result = optimize.minimize(
        lambda x: prior.logpdf(x) - posterior.logpdf(x),
        mean,
        method="BFGS",
        options={"gtol": 1e-10},
    )
    return -result.fun


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3), m=st.integers(1, 3), data=st.data())
def test_closed_form_pml_equals_numerical_maximum(seed, n, m, data):
    rank = data.draw(st.integers(1, min(n, m)))
    rng = np.random.default_rng(seed)
    Sigma_XX, Sigma_XY, Sigma_YY = random_pair(rng, n, m, rank)
    y = rng.multivariate_normal(np.zeros(m), Sigma_YY) * rng.uniform(0.2, 2.0)
    exact = pml_leakage.pointwise_maximal_leakage(Sigma_XX, Sigma_XY, Sigma_YY, y)
    assert exact == pytest.approx(
        numerical_pml(Sigma_XX, Sigma_XY, Sigma_YY, y), abs=1e-6, rel=1e-6
    )
    # [LKC] (6) as printed overstates the log-det term: it exceeds the true PML by I(X; Y).
    paper = pml_leakage.pointwise_maximal_leakage(
        Sigma_XX, Sigma_XY, Sigma_YY, y, convention="paper"
    )
    assert paper - exact == pytest.approx(
        pml_leakage.mutual_information(Sigma_XX, Sigma_XY, Sigma_YY), rel=1e-9
    )
    assert paper - exact > 1e-3


def test_pml_with_means_depends_on_y_minus_mu_Y_only():
    rng = np.random.default_rng(3)
    Sigma_XX, Sigma_XY, Sigma_YY = random_pair(rng, 2, 2, 2)
    y, mu_Y = rng.standard_normal(2), rng.standard_normal(2)
    shifted = pml_leakage.pointwise_maximal_leakage(
        Sigma_XX, Sigma_XY, Sigma_YY, y + mu_Y, mu_X=[5.0, -3.0], mu_Y=mu_Y
    )
    assert shifted == pytest.approx(
        pml_leakage.pointwise_maximal_leakage(Sigma_XX, Sigma_XY, Sigma_YY, y), rel=1e-12
    )


@pytest.mark.parametrize("n, m, rank", [(1, 1, 1), (3, 2, 2), (2, 3, 1), (3, 3, 2)])
def test_xi_follows_chi_square_with_l_degrees_of_freedom(n, m, rank):
    # [LKC] proof of Theorem 3.3: xi = 2 (l(X -> Y) - I(X; Y)) ~ chi^2_l with l = rank(Sigma_XY).
    rng = np.random.default_rng(100 + 10 * n + m)
    Sigma_XX, Sigma_XY, Sigma_YY = random_pair(rng, n, m, rank)
    Y = rng.multivariate_normal(np.zeros(m), Sigma_YY, size=20_000)
    xi = 2 * (
        pml_leakage.pointwise_maximal_leakage(Sigma_XX, Sigma_XY, Sigma_YY, Y)
        - pml_leakage.mutual_information(Sigma_XX, Sigma_XY, Sigma_YY)
    )
    assert stats.kstest(xi, stats.chi2(rank).cdf).pvalue > 1e-3  # goodness of fit at level 1e-3


def failures(Sigma_XX, Sigma_XZ, Sigma_ZZ, Theta, epsilon, samples, seed):
    """Draws with l(X -> Y) > epsilon for Y = Z + V, sampled from the joint law directly."""
    rng = np.random.default_rng(seed)
    n, m = Sigma_XZ.shape
    joint = np.block([[Sigma_XX, Sigma_XZ], [Sigma_XZ.T, Sigma_ZZ]])
    XZ = rng.multivariate_normal(np.zeros(n + m), joint, size=samples, method="eigh")
    Y = XZ[:, n:] + rng.multivariate_normal(np.zeros(m), Theta, size=samples, method="eigh")
    leak = pml_leakage.pointwise_maximal_leakage(Sigma_XX, Sigma_XZ, Sigma_ZZ + Theta, Y)
    return int(np.sum(leak > epsilon))


SAMPLES, DELTA = 200_000, 0.05


def linear_case(n, m, seed):
    rng = np.random.default_rng(seed)
    Sigma_XX, C = random_spd(rng, n), rng.standard_normal((m, n))
    return Sigma_XX, Sigma_XX @ C.T, C @ Sigma_XX @ C.T, C


def general_case(seed):
    rng = np.random.default_rng(seed)
    return random_pair(rng, 3, 2, 2)


@pytest.mark.parametrize(
    "design, tight",
    [
        ("corollary 3.7, scalar", True),
        ("corollary 3.7, n = 3, m = 2", False),
        ("lmi, general", False),
        ("log-det, general", True),
        ("log-det, linear n = 3, m = 2", True),
    ],
)
def test_exact_designs_reach_the_guarantee_and_tight_ones_are_not_wasteful(design, tight):
    epsilon = 3.0
    if design.startswith("corollary"):
        n, m = (1, 1) if "scalar" in design else (3, 2)
        Sigma_XX, Sigma_XZ, Sigma_ZZ, C = linear_case(n, m, seed=11)
        Theta = pml_design.linear_mechanism_noise(C, Sigma_XX, epsilon, DELTA)
    else:
        Sigma_XX, Sigma_XZ, Sigma_ZZ = (
            general_case(12) if "general" in design else linear_case(3, 2, 13)[:3]
        )
        designer = (
            pml_design.lmi_mechanism_noise
            if design.startswith("lmi")
            else pml_design.logdet_mechanism_noise
        )
        Theta = designer(Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, DELTA)
    k = failures(Sigma_XX, Sigma_XZ, Sigma_ZZ, Theta, epsilon, SAMPLES, seed=sum(map(ord, design)))
    # (epsilon, delta)-PML: P[l > epsilon] <= delta, one-sided binomial test at LEVEL.
    assert k <= stats.binom.ppf(1 - LEVEL, SAMPLES, DELTA)
    if tight:  # not wasteful: P[l > epsilon] is not below delta / 2 (one-sided test at LEVEL)
        assert k >= stats.binom.ppf(LEVEL, SAMPLES, DELTA / 2)


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 3),
    convention=st.sampled_from(["exact", "paper"]),
)
def test_corollary_3_7_closed_form_matches_the_cvxpy_lmi(seed, n, convention):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, n + 1))
    Sigma_XX, C = random_spd(rng, n), rng.standard_normal((m, n))
    delta = rng.uniform(0.001, 0.2)
    epsilon = accounting.minimum_epsilon(delta, m) + rng.uniform(0.2, 3.0)
    closed = pml_design.linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention)
    lmi = pml_design.lmi_mechanism_noise(
        Sigma_XX, Sigma_XX @ C.T, C @ Sigma_XX @ C.T, epsilon, delta, convention=convention
    )
    np.testing.assert_allclose(lmi, closed, rtol=1e-5, atol=1e-7 * np.abs(closed).max())


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_log_det_designer_is_exact_and_never_needs_more_trace_than_the_lmi(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    Sigma_XX, Sigma_XZ, Sigma_ZZ = random_pair(rng, n, m, min(n, m))
    delta = rng.uniform(0.001, 0.2)
    epsilon = accounting.minimum_epsilon(delta, min(n, m)) + rng.uniform(0.2, 3.0)
    lmi = pml_design.lmi_mechanism_noise(Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta)
    exact = pml_design.logdet_mechanism_noise(Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta)
    assert np.trace(exact) <= np.trace(lmi) * (1 + 1e-6) + 1e-7
    # Theorem 3.3 holds with equality for the log-det design (unless Theta = 0 suffices).
    margin = pml_leakage.pml_margin(Sigma_XX, Sigma_XZ, Sigma_ZZ + exact, epsilon, delta)
    assert -1e-6 <= margin <= 1e-5 or np.trace(exact) < 1e-7
    assert pml_leakage.pml_margin(Sigma_XX, Sigma_XZ, Sigma_ZZ + lmi, epsilon, delta) >= -1e-6


def test_paper_convention_designs_are_private_in_the_exact_sense_too():
    Sigma_XX, Sigma_XZ, Sigma_ZZ = general_case(21)
    for designer in (pml_design.lmi_mechanism_noise, pml_design.logdet_mechanism_noise):
        Theta = designer(Sigma_XX, Sigma_XZ, Sigma_ZZ, 6.0, 0.01, convention="paper")
        assert pml_leakage.is_pml_private(
            Sigma_XX, Sigma_XZ, Sigma_ZZ + Theta, 6.0, 0.01, "paper", atol=1e-6
        )
        assert (
            pml_leakage.pml_margin(Sigma_XX, Sigma_XZ, Sigma_ZZ + Theta, 6.0, 0.01, "exact") > 0.1
        )


def test_closed_form_probability_is_one_minus_delta_for_tight_designs_and_kappa_relation():
    Sigma_XX = np.array([[0.4 / (1 - 0.75**2)]])
    for convention in ("exact", "paper"):
        Theta = pml_design.linear_mechanism_noise([[1.0]], Sigma_XX, 6.0, 0.001, convention)
        Sxy, Syy = pml_leakage.linear_mechanism_covariances([[1.0]], Sigma_XX, Theta)
        assert pml_leakage.leakage_probability(
            Sigma_XX, Sxy, Syy, 6.0, convention
        ) == pytest.approx(0.999, abs=1e-12)
        smaller = pml_leakage.linear_mechanism_covariances([[1.0]], Sigma_XX, 0.99 * Theta)[1]
        assert not pml_leakage.is_pml_private(Sigma_XX, Sxy, smaller, 6.0, 0.001, convention)
    # The exact convention squares the paper's kappa (docs: theory/pml).
    assert pml_leakage.kappa(6.0, 0.001, 1, 1, "exact") == pytest.approx(
        pml_leakage.kappa(6.0, 0.001, 1, 1, "paper") ** 2
    )


def test_epsilon_below_the_necessary_condition_names_the_smallest_feasible_epsilon():
    smallest = stats.chi2.ppf(1 - 0.001, 1) / 2  # 5.41378
    with pytest.raises(
        ValueError, match=r"epsilon = 5\.4 is infeasible.*= 5\.41378.*smallest feasible"
    ):
        pml_design.linear_mechanism_noise([[1.0]], [[1.0]], 5.4, 0.001)
    assert accounting.minimum_epsilon(0.001, 1) == pytest.approx(smallest)
    with pytest.raises(ValueError, match=r"entry 1"):
        pml_design.linear_mechanism_noise(np.ones((2, 1, 1)), np.ones((2, 1, 1)), [6.0, 5.0], 0.001)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5, np.nan])
def test_delta_outside_the_open_unit_interval_is_refused(delta):
    with pytest.raises(ValueError, match="delta must lie in the open interval"):
        pml_design.linear_mechanism_noise([[1.0]], [[1.0]], 6.0, delta)


def test_other_invalid_inputs_raise_clear_errors():
    S = np.eye(2)
    with pytest.raises(ValueError, match="Sigma_XX is not symmetric"):
        pml_leakage.pointwise_maximal_leakage([[1.0, 0.5], [0.0, 1.0]], S, 2 * S, [0.0, 0.0])
    with pytest.raises(ValueError, match="Sigma_YY is not positive definite"):
        pml_leakage.pointwise_maximal_leakage(S, S, -S, [0.0, 0.0])
    with pytest.raises(ValueError, match="largest canonical correlation"):
        pml_leakage.pointwise_maximal_leakage(S, S, S, [0.0, 0.0])  # Y = X exactly
    with pytest.raises(ValueError, match=r"y must have shape \(2,\)"):
        pml_leakage.pointwise_maximal_leakage(S, S, 2 * S, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="convention must be one of"):
        pml_leakage.pointwise_maximal_leakage(S, S, 2 * S, [0.0, 0.0], convention="Paper")
    with pytest.raises(ValueError, match="Sigma_XZ is zero"):
        pml_design.logdet_mechanism_noise(S, np.zeros((2, 2)), S, 6.0, 0.01)
    with pytest.raises(ValueError, match="l \\(the rank of Sigma_XY\\)"):
        pml_design.linear_mechanism_noise(np.zeros((1, 2)), S, 6.0, 0.01)


@pytest.mark.parametrize("epsilon_DP, ratio", [(0.5, 0.3), (1.0, 1.0), (2.0, 4.0), (0.1, 2.5)])
def test_gaussian_mechanism_delta_matches_numerical_integration(epsilon_DP, ratio):
    # delta(eps) = integral of max(0, p(y) - e^eps q(y)) for p = N(ratio, 1), q = N(0, 1).
    def integrand(y):
        return max(0.0, stats.norm.pdf(y, ratio) - np.exp(epsilon_DP) * stats.norm.pdf(y))

    split = epsilon_DP / ratio + ratio / 2  # where the two densities cross
    value = integrate.quad(integrand, split, np.inf, epsabs=1e-13)[0]
    assert accounting.gaussian_mechanism_delta(ratio, epsilon_DP) == pytest.approx(
        value, rel=1e-7, abs=1e-13
    )
    assert accounting.analytic_gaussian_ratio(epsilon_DP, value) == pytest.approx(ratio, rel=1e-7)


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_theorem_3_9_pml_to_dp_and_back(convention):
    rng = np.random.default_rng(5)
    n = 2
    Sigma_XX, C = random_spd(rng, n), rng.standard_normal((n, n))
    epsilon, delta, epsilon_DP, zeta = 6.0, 0.01, 1.0, 0.5
    # (i): a PML-private mechanism is DP with at most the delta_DP of (18).
    Theta = pml_design.linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention)
    actual = accounting.gaussian_mechanism_dp_delta(C, Theta, epsilon_DP, zeta)
    assert actual <= accounting.pml_to_dp_delta(
        Sigma_XX, epsilon, delta, n, epsilon_DP, zeta, convention
    )
    # (ii): a mechanism that is exactly (epsilon_DP, delta_DP)-DP is PML private at (19)'s epsilon.
    delta_DP = 1e-3
    ratio = accounting.analytic_gaussian_ratio(epsilon_DP, delta_DP)
    Theta_DP = (zeta * np.linalg.norm(C, 2) / ratio) ** 2 * np.eye(n)
    assert accounting.gaussian_mechanism_dp_delta(C, Theta_DP, epsilon_DP, zeta) == pytest.approx(
        delta_DP, rel=1e-6
    )
    eps_pml = accounting.dp_to_pml_epsilon(
        Sigma_XX, epsilon_DP, delta_DP, zeta, delta, n, convention
    )
    Sxy, Syy = pml_leakage.linear_mechanism_covariances(C, Sigma_XX, Theta_DP)
    assert pml_leakage.is_pml_private(Sigma_XX, Sxy, Syy, eps_pml, delta, convention)


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_mutual_information_and_theorem_3_11(convention):
    rng = np.random.default_rng(8)
    n, m = 3, 2
    Sigma_XX, C, Theta = random_spd(rng, n), rng.standard_normal((m, n)), random_spd(rng, m)
    Sxy, Syy = pml_leakage.linear_mechanism_covariances(C, Sigma_XX, Theta)
    info = pml_leakage.mutual_information(Sigma_XX, Sxy, Syy)
    # h(Y) - h(Y | X), entropies from scipy.
    entropy = (
        stats.multivariate_normal(np.zeros(m), Syy).entropy()
        - stats.multivariate_normal(np.zeros(m), Theta).entropy()
    )
    assert info == pytest.approx(entropy, rel=1e-10)
    root = linalg.sqrtm(Sigma_XX).real  # [LKC] Theorem 3.11 form
    assert info == pytest.approx(
        0.5 * np.linalg.slogdet(np.eye(n) + root @ C.T @ linalg.solve(Theta, C) @ root)[1]
    )
    # (i): a PML-private design has I(X; Y) <= -(n/2) log kappa.
    delta, epsilon = 0.01, 6.0
    Theta_pml = pml_design.linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention)
    info_pml = pml_leakage.mutual_information(
        Sigma_XX, *pml_leakage.linear_mechanism_covariances(C, Sigma_XX, Theta_pml)
    )
    assert info_pml <= accounting.pml_to_mi_epsilon(epsilon, delta, m, convention) + 1e-12
    # (ii) with Lemma 11.1: I = epsilon_MI gives PML privacy at exactly mi_to_pml_epsilon.
    eps_pml = accounting.mi_to_pml_epsilon(info, delta, m, convention)
    assert pml_leakage.pml_margin(Sigma_XX, Sxy, Syy, eps_pml, delta, convention) == pytest.approx(
        0.0, abs=1e-9
    )


def test_gaussian_mechanism_draws_fresh_entropy_unless_seeded():
    Z, Theta = np.zeros((5, 2)), np.eye(2)
    assert not np.array_equal(
        pml_leakage.gaussian_mechanism(Z, Theta), pml_leakage.gaussian_mechanism(Z, Theta)
    )
    np.testing.assert_array_equal(
        pml_leakage.gaussian_mechanism(Z, Theta, 3), pml_leakage.gaussian_mechanism(Z, Theta, 3)
    )
