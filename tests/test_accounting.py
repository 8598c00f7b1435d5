"""The accounting formulas against independent implementations.

- The Gaussian mechanism's delta by numerical integration of its privacy-loss density
  (scipy.integrate, and mpmath at 40 digits for small deltas), its inverse (the analytic
  calibration) by an mpmath root, Hall et al.'s calibration by its definition.
- The PML/DP/MI relations of [LKC] Theorems 3.9 and 3.11 against direct computations from
  the definitions on small instances: the worst-case shift by a search over directions,
  the PML of a scalar release by maximising the density ratio numerically and its
  probability by the law of Y, the mutual information by a double integral.
"""

import numpy as np
import pytest
from scipy import integrate, linalg, optimize, stats

from ssa_privacy.privacy import accounting

mpmath = pytest.importorskip("mpmath")


def delta_by_quadrature(m, epsilon):
    """delta(epsilon) = E[(1 - exp(epsilon - L))_+], L ~ N(m^2/2, m^2) the privacy loss."""
    mu, sd = m * m / 2, m
    upper = max(epsilon, mu) + 40 * sd
    points = [mu] if epsilon < mu < upper else None
    value, _ = integrate.quad(
        lambda loss: -np.expm1(epsilon - loss) * stats.norm.pdf(loss, mu, sd),
        epsilon,
        upper,
        points=points,
        epsabs=0.0,
        epsrel=1e-11,
        limit=500,
    )
    return value


def delta_by_mpmath(m, epsilon):
    """The same integral at 40 significant digits."""
    with mpmath.workdps(40):
        m, epsilon = mpmath.mpf(m), mpmath.mpf(epsilon)
        mu = m * m / 2
        nodes = [epsilon, mu, mpmath.inf] if mu > epsilon else [epsilon, mpmath.inf]
        return mpmath.quad(
            lambda loss: -mpmath.expm1(epsilon - loss) * mpmath.npdf(loss, mu, m), nodes
        )


CASES = [(0.1, 0.3), (0.5, 1.0), (1.0, 1.0), (2.0, 4.0), (1.0, 0.2), (8.0, 1.5)]


@pytest.mark.parametrize("epsilon, m", CASES)
def test_gaussian_mechanism_delta_is_the_integral_of_the_privacy_loss(epsilon, m):
    exact = delta_by_mpmath(m, epsilon)
    assert accounting.gaussian_mechanism_delta(m, epsilon) == pytest.approx(float(exact), rel=1e-9)
    assert delta_by_quadrature(m, epsilon) == pytest.approx(float(exact), rel=1e-7)


@pytest.mark.parametrize("epsilon, m", CASES)
def test_privacy_loss_tail_is_the_probability_that_the_loss_exceeds_epsilon(epsilon, m):
    tail = integrate.quad(stats.norm(m * m / 2, m).pdf, epsilon, np.inf, epsabs=0, epsrel=1e-11)[0]
    assert accounting.privacy_loss_tail(m, epsilon) == pytest.approx(tail, rel=1e-8)
    assert accounting.privacy_loss_tail(m, epsilon) >= accounting.gaussian_mechanism_delta(
        m, epsilon
    )


@pytest.mark.parametrize(
    "epsilon, delta", [(0.1, 1e-2), (0.5, 1e-5), (1.0, 1e-3), (3.0, 1e-6), (5.0, 1e-12)]
)
def test_analytic_ratio_is_the_root_of_the_integrated_delta(epsilon, delta):
    ratio = accounting.analytic_gaussian_ratio(epsilon, delta)
    root = analytic_root(epsilon, delta, ratio)
    assert ratio == pytest.approx(root, rel=1e-9)
    # noise_multiplier("analytic") is its inverse; Hall's is c(delta)/epsilon by definition.
    assert accounting.noise_multiplier(epsilon, delta, "analytic") == pytest.approx(1 / root)
    assert accounting.c_delta(delta) == pytest.approx(np.sqrt(2 * np.log(2 / delta)), rel=1e-15)


@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-2), (0.5, 1e-5), (1.0, 1e-3)])
def test_hall_calibration_is_private_and_never_less_noise_than_the_analytic_one(epsilon, delta):
    hall = accounting.noise_multiplier(epsilon, delta, "hall")
    assert hall == pytest.approx(np.sqrt(2 * np.log(2 / delta)) / epsilon, rel=1e-15)
    assert delta_by_quadrature(1 / hall, epsilon) <= delta  # Hall et al., Prop. 3 (eps <= 1)
    assert accounting.noise_multiplier(epsilon, delta, "analytic") <= hall
    with pytest.raises(ValueError, match="calibration='analytic'"):
        accounting.noise_multiplier(1.5, delta, "hall")


def worst_shift(C, Theta, zeta):
    """max over |x - x'| <= zeta of |Theta^{-1/2} C (x - x')|, by a search over directions."""
    W = linalg.sqrtm(linalg.inv(Theta)).real @ C  # Theta^{-1/2} C, independently of Cholesky

    def negative_norm(angle):
        return -np.linalg.norm(W @ [np.cos(angle), np.sin(angle)])

    grid = np.linspace(0, np.pi, 721)
    start = grid[np.argmin([negative_norm(a) for a in grid])]
    best = optimize.minimize_scalar(negative_norm, bracket=(start - 0.01, start, start + 0.01))
    return -zeta * best.fun


def test_dp_delta_of_a_linear_mechanism_from_its_worst_case_shift():
    rng = np.random.default_rng(2)
    C = rng.standard_normal((3, 2))
    M = rng.standard_normal((3, 3))
    Theta = M @ M.T + 0.5 * np.eye(3)
    m = worst_shift(C, Theta, 0.7)
    assert accounting.gaussian_mechanism_dp_delta(C, Theta, 1.0, 0.7) == pytest.approx(
        delta_by_quadrature(m, 1.0), rel=1e-7
    )


# --- PML of a scalar release Y = c X + V, from the definitions --------------------------


def scalar_leakage(y, c, s, t):
    """l(X -> y) = log sup_x f(x | y) / f(x), maximised numerically (X ~ N(0, s), V ~ N(0, t))."""
    gain = c * s / (c * c * s + t)
    posterior = stats.norm(gain * y, np.sqrt(s - gain * c * s))
    prior = stats.norm(0.0, np.sqrt(s))
    best = optimize.minimize_scalar(lambda x: prior.logpdf(x) - posterior.logpdf(x))
    return -best.fun


def scalar_pml_probability(epsilon, c, s, t):
    """P_Y[l(X -> Y) <= epsilon]: l is even and increasing in |y|, so the set is an interval."""
    sd_Y = np.sqrt(c * c * s + t)
    if scalar_leakage(0.0, c, s, t) > epsilon:
        return 0.0
    edge = optimize.brentq(lambda y: scalar_leakage(y, c, s, t) - epsilon, 0.0, 60 * sd_Y)
    return 2 * stats.norm.cdf(edge / sd_Y) - 1


def differential_entropy(sd):
    """h = -integral f log f of N(0, sd^2), by quadrature."""
    density = stats.norm(0.0, sd)
    value, _ = integrate.quad(
        lambda y: -density.pdf(y) * density.logpdf(y), -40 * sd, 40 * sd, epsabs=0, epsrel=1e-12
    )
    return value


def scalar_mutual_information(c, s, t):
    """I(X; Y) = h(Y) - h(Y | X) = h(Y) - h(V), the entropies by quadrature."""
    return differential_entropy(np.sqrt(c * c * s + t)) - differential_entropy(np.sqrt(t))


def analytic_root(epsilon, delta, guess):
    """The m with delta_by_mpmath(m, epsilon) = delta, by an mpmath root on log m.

    ``guess`` only brackets the search, in [guess / 2, 2 guess]."""
    with mpmath.workdps(40):
        log_m = mpmath.findroot(
            lambda u: mpmath.log(delta_by_mpmath(mpmath.exp(u), epsilon) / delta),
            (mpmath.log(guess / 2), mpmath.log(2 * guess)),
            solver="illinois",
            tol=1e-30,
        )
        return float(mpmath.exp(log_m))


C_, S_ = 1.3, 0.9  # scalar output gain and prior variance


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_theorem_3_9_i_pml_implies_the_dp_delta_of_18(convention):
    epsilon, delta, epsilon_DP, zeta = 6.0, 0.01, 1.0, 0.3
    # (18) computed directly: kappa^n = exp((F^-1(1 - delta) - 2 epsilon) / w), n = 1.
    w = {"exact": 1.0, "paper": 2.0}[convention]
    kappa_n = np.exp((stats.chi2.ppf(1 - delta, 1) - 2 * epsilon) / w)
    bound = accounting.pml_to_dp_delta([[S_]], epsilon, delta, 1, epsilon_DP, zeta, convention)
    assert bound == pytest.approx(delta_by_quadrature(zeta / np.sqrt(kappa_n * S_), epsilon_DP))
    # A release that is exactly (epsilon, delta)-PML private (the smallest t with
    # P[l <= epsilon] = 1 - delta by the definition) has at most that delta_DP.
    t = optimize.brentq(
        lambda t: scalar_pml_probability(epsilon, C_, S_, t) - (1 - delta), 1e-8, 10.0
    )
    if convention == "paper":  # the paper's (8) asks for more noise; it is still private
        t = C_ * C_ * S_ * kappa_n / (1 - kappa_n)
        assert scalar_pml_probability(epsilon, C_, S_, t) >= 1 - delta
    assert delta_by_quadrature(zeta * C_ / np.sqrt(t), epsilon_DP) <= bound


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_theorem_3_9_ii_dp_implies_the_pml_epsilon_of_19(convention):
    epsilon_DP, delta_DP, zeta, delta = 1.0, 1e-3, 0.3, 0.01
    ratio = analytic_root(epsilon_DP, delta_DP, 1.0)
    t = (zeta * C_ / ratio) ** 2  # the release is exactly (epsilon_DP, delta_DP)-DP
    epsilon = accounting.dp_to_pml_epsilon([[S_]], epsilon_DP, delta_DP, zeta, delta, 1, convention)
    w = {"exact": 1.0, "paper": 2.0}[convention]
    direct = (stats.chi2.ppf(1 - delta, 1) + w * np.log1p((ratio / zeta) ** 2 * S_)) / 2
    assert epsilon == pytest.approx(direct, rel=1e-8)
    assert scalar_pml_probability(epsilon, C_, S_, t) >= 1 - delta - 1e-9


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_theorem_3_11_mutual_information_and_pml(convention):
    delta = 0.01
    w = {"exact": 1.0, "paper": 2.0}[convention]
    # (ii): with I(X; Y) = eps_MI the release is PML private at mi_to_pml_epsilon, and in
    # the exact convention exactly so (P[l <= epsilon] = 1 - delta).
    eps_MI = 0.4
    t = C_ * C_ * S_ / np.expm1(2 * eps_MI)
    assert scalar_mutual_information(C_, S_, t) == pytest.approx(eps_MI, rel=1e-7)
    epsilon = accounting.mi_to_pml_epsilon(eps_MI, delta, 1, convention)
    assert epsilon == pytest.approx(stats.chi2.ppf(1 - delta, 1) / 2 + w * eps_MI, rel=1e-12)
    probability = scalar_pml_probability(epsilon, C_, S_, t)
    assert probability >= 1 - delta - 1e-9
    if convention == "exact":
        assert probability == pytest.approx(1 - delta, abs=1e-8)
    # (i): a PML-private release has I(X; Y) <= pml_to_mi_epsilon; the release that meets
    # (8) with equality (by the definition in the exact convention; [LKC] (15) with kappa
    # of (11) in the paper's) reaches it.
    epsilon = 6.0
    bound = accounting.pml_to_mi_epsilon(epsilon, delta, 1, convention)
    assert bound == pytest.approx((2 * epsilon - stats.chi2.ppf(1 - delta, 1)) / (2 * w))
    if convention == "exact":
        t = optimize.brentq(
            lambda t: scalar_pml_probability(epsilon, C_, S_, t) - (1 - delta), 1e-8, 10.0
        )
    else:
        kappa = np.exp(stats.chi2.ppf(1 - delta, 1) / 2 - epsilon)
        t = C_ * C_ * S_ * kappa / (1 - kappa)
    assert scalar_mutual_information(C_, S_, t) == pytest.approx(bound, rel=1e-6)
