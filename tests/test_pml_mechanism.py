"""LinearGaussianMechanism [LKC §3.2]: design, release and certificate, against the theory.

The closed form is compared with an independent cvxpy + Clarabel solve of LMI (12) whose
kappa is computed here from scipy's chi-square quantile; the certificate's margin with the
mutual information from scipy's Gaussian entropies; the guarantee with a Monte Carlo
binomial test at a stated level.
"""

import cvxpy as cp
import numpy as np
import pytest
from scipy import stats

from ssa_privacy.privacy import pml
from ssa_privacy.privacy.mechanism import FactoredCovariance, Mechanism, Release
from ssa_privacy.privacy.pml.design import METHODS, LinearGaussianMechanism
from ssa_privacy.privacy.pml.leakage import pointwise_maximal_leakage

WEIGHT = {"exact": 1.0, "paper": 2.0}  # weight of I(X; Y) in the leakage, per convention
EPSILON, DELTA = 6.0, 0.01


def instance(n=2, seed=3):
    """A prior and an invertible square C: every design then meets (8) with equality."""
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n, n))
    Sigma_XX = M @ M.T / n + 0.3 * np.eye(n)
    C = rng.standard_normal((n, n)) + 2 * np.eye(n)
    return C, Sigma_XX


def information_from_entropies(C, Sigma_XX, Theta):
    """I(X; Y) = h(Y) - h(Y | X) for Y = C X + V, from scipy's Gaussian entropies."""
    m = len(Theta)
    h_Y = stats.multivariate_normal(np.zeros(m), C @ Sigma_XX @ C.T + Theta).entropy()
    return h_Y - stats.multivariate_normal(np.zeros(m), Theta).entropy()


@pytest.mark.parametrize("convention", ["exact", "paper"])
@pytest.mark.parametrize("method", METHODS)
def test_release_is_certified_reproducible_and_a_weakened_noise_fails(method, convention):
    C, Sigma_XX = instance()
    mech = LinearGaussianMechanism.design(
        C, Sigma_XX, EPSILON, DELTA, method=method, convention=convention
    )
    assert isinstance(mech, Mechanism) and mech.method == method
    Z = np.array([0.4, -1.2])
    one = mech.release(Z, seed=0)
    assert isinstance(one, Release) and one.values.shape == (2,)
    assert one.certificate.passed and one.certificate.notion == "pml"
    assert one.certificate.parameters == dict(epsilon=EPSILON, delta=DELTA, convention=convention)
    assert one.seed_keys == {"seed": 0}
    np.testing.assert_array_equal(one.values, mech.release(Z, seed=0).values)
    assert not np.array_equal(one.values, mech.release(Z, seed=1).values)
    series = mech.release(np.tile(Z, (7, 1)), seed=0)
    assert series.values.shape == (7, 2) and series.certificate.passed
    # Halving the noise breaks a design that meets (8) with equality.
    weak = mech.with_noise(mech.noise_covariance.scaled(0.5))
    assert isinstance(weak, LinearGaussianMechanism)
    assert not weak.release(Z, seed=0).certificate.passed
    assert weak.certificate().margin < -0.1


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_certificate_margin_equals_an_independent_computation(convention):
    C, Sigma_XX = instance(seed=5)
    mech = LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA, convention=convention)
    for noise in (mech.noise_covariance, mech.noise_covariance.scaled(3.0)):
        certificate = mech.with_noise(noise).certificate()
        info = information_from_entropies(C, Sigma_XX, noise.matrix())
        quantile = WEIGHT[convention] * info + stats.chi2.ppf(1 - DELTA, 2) / 2
        assert certificate.margin == pytest.approx(EPSILON - quantile, abs=1e-9)
        assert certificate.evidence["leakage_quantile"] == pytest.approx(quantile, abs=1e-9)
        assert 0.0 < certificate.tolerance < 1e-10
    # The design meets (8) with equality; three times the noise leaves a positive margin.
    assert abs(mech.certificate().margin) < 1e-9
    assert mech.with_noise(mech.noise_covariance.scaled(3.0)).certificate().margin > 0.1


@pytest.mark.parametrize("convention", ["exact", "paper"])
@pytest.mark.parametrize("n, m", [(1, 1), (3, 2), (2, 2), (3, 3)])
def test_closed_form_equals_an_independent_cvxpy_solve_of_lmi_12(n, m, convention):
    rng = np.random.default_rng(10 * n + m)
    M = rng.standard_normal((n, n))
    Sigma_XX, C = M @ M.T / n + 0.2 * np.eye(n), rng.standard_normal((m, n))
    epsilon, delta = 7.0, 0.005
    # kappa of [LKC] (11), its square in the exact convention, from scipy's quantile.
    kappa = np.exp((stats.chi2.ppf(1 - delta, m) / 2 - epsilon) / n) ** (2.0 / WEIGHT[convention])
    Theta = cp.Variable((m, m), symmetric=True)
    Sigma_XZ, Sigma_ZZ = Sigma_XX @ C.T, C @ Sigma_XX @ C.T
    lmi = cp.bmat([[(1 - kappa) * Sigma_XX, Sigma_XZ], [Sigma_XZ.T, Theta + Sigma_ZZ]])
    problem = cp.Problem(cp.Minimize(cp.trace(Theta)), [0.5 * (lmi + lmi.T) >> 0])
    problem.solve(solver="CLARABEL")
    assert problem.status == cp.OPTIMAL
    mech = LinearGaussianMechanism.design(C, Sigma_XX, epsilon, delta, convention=convention)
    scale = np.abs(mech.Theta).max()
    np.testing.assert_allclose(mech.Theta, Theta.value, rtol=1e-5, atol=1e-6 * scale)
    assert mech.certificate().passed


def test_releases_meet_the_guarantee_in_monte_carlo():
    # Z = C X with X from the prior; each row released independently: the fraction of rows
    # with l(X -> Y) > epsilon is at most delta (one-sided binomial test at level 1e-4).
    C, Sigma_XX = instance(seed=7)
    mech = LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA, method="logdet")
    T = 100_000
    X = np.random.default_rng(8).multivariate_normal(np.zeros(2), Sigma_XX, size=T)
    Y = mech.release(X @ C.T, seed=9).values
    Sigma_YY = C @ Sigma_XX @ C.T + mech.noise_covariance.matrix()
    leak = pointwise_maximal_leakage(Sigma_XX, Sigma_XX @ C.T, Sigma_YY, Y)
    failures = int(np.sum(leak > EPSILON))
    assert failures <= stats.binom.ppf(1 - 1e-4, T, DELTA)
    assert failures >= stats.binom.ppf(1e-4, T, DELTA / 2)  # tight: not wasteful either


def test_general_gaussian_mechanism_and_method_checks():
    rng = np.random.default_rng(4)
    Sigma_XX = np.array([[1.0, 0.2], [0.2, 0.6]])
    B = rng.standard_normal((2, 2))
    Sigma_XZ, Sigma_ZZ = Sigma_XX @ B.T, B @ Sigma_XX @ B.T + 0.3 * np.eye(2)
    for method in ("lmi", "logdet"):
        mech = LinearGaussianMechanism.design(
            None, Sigma_XX, EPSILON, DELTA, method=method, Sigma_XZ=Sigma_XZ, Sigma_ZZ=Sigma_ZZ
        )
        assert mech.C is None and mech.release(np.zeros(2), seed=0).certificate.passed
    with pytest.raises(ValueError, match="closed-form"):
        LinearGaussianMechanism.design(
            None, Sigma_XX, EPSILON, DELTA, Sigma_XZ=Sigma_XZ, Sigma_ZZ=Sigma_ZZ
        )
    with pytest.raises(ValueError, match="method must be one of"):
        LinearGaussianMechanism.design(np.eye(2), Sigma_XX, EPSILON, DELTA, method="sdp")
    with pytest.raises(ValueError, match="either C"):
        LinearGaussianMechanism.design(np.eye(2), Sigma_XX, EPSILON, DELTA, Sigma_XZ=Sigma_XZ)


def test_a_noiseless_direction_is_certified_as_failing_not_raised():
    C, Sigma_XX = instance()
    mech = LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA)
    rank_one = FactoredCovariance(np.array([1.0]), np.array([[1.0], [0.0]]))
    certificate = mech.with_noise(rank_one).certificate()
    assert not certificate.passed and certificate.margin == -np.inf
    assert "reason" in certificate.evidence


def test_invalid_inputs_raise_clear_errors():
    C, Sigma_XX = instance()
    mech = LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA)
    with pytest.raises(ValueError, match=r"data must have shape \(2,\) or \(T, 2\)"):
        mech.release(np.zeros(3), seed=0)
    with pytest.raises(ValueError, match="data contains non-finite"):
        mech.release([np.nan, 0.0], seed=0)
    with pytest.raises(TypeError, match="seed must be"):
        mech.release(np.zeros(2), seed=1.5)
    with pytest.raises(ValueError, match="noise_covariance is 3x3"):
        mech.with_noise(np.eye(3))
    with pytest.raises(ValueError, match="smallest feasible"):
        LinearGaussianMechanism.design(C, Sigma_XX, 4.0, DELTA)
    with pytest.raises(ValueError, match="convention must be one of"):
        LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA, convention="Paper")


def test_the_old_import_path_serves_every_name_it_served():
    # In 0.1, pml.py was a re-export module over pml_leakage, pml_design and accounting;
    # in 0.2 the package privacy.pml exports its own names, and serves the rest with a
    # DeprecationWarning naming their new place.
    names = """CONVENTIONS CORRELATION_TOL DESIGN_ATOL MonteCarloProbability SOLVER_SETTINGS
    analytic_gaussian_delta analytic_gaussian_ratio check_epsilon dp_to_pml_epsilon
    gaussian_mechanism gaussian_mechanism_dp_delta is_pml_private kappa leakage_probability
    linear_mechanism_covariances linear_mechanism_noise lmi_mechanism_noise
    log_det_ratio_bound logdet_mechanism_noise mi_to_pml_epsilon minimum_epsilon
    monte_carlo_leakage_probability mutual_information pml_margin pml_to_dp_delta
    pml_to_mi_epsilon pointwise_maximal_leakage""".split()
    moved = [name for name in names if name not in pml.__all__]
    assert moved
    for name in moved:
        with pytest.warns(DeprecationWarning, match="will be removed in ssa_privacy 0.3; use"):
            assert getattr(pml, name) is not None
    assert pml.LinearGaussianMechanism is LinearGaussianMechanism
    # The legacy release still works with its own argument order.
    C, Sigma_XX = instance()
    Theta = pml.linear_mechanism_noise(C, Sigma_XX, EPSILON, DELTA, "exact")
    designed = LinearGaussianMechanism.design(C, Sigma_XX, EPSILON, DELTA)
    np.testing.assert_allclose(Theta * designed.inflation, designed.Theta, rtol=1e-14)
    assert pml.gaussian_mechanism(np.zeros((4, 2)), Theta, 0).shape == (4, 2)
