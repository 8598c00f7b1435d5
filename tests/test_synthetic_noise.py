"""Privacy-aware GP regression [TCB]: the optimal noise, its release and its guarantee."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssa_privacy.gp.regression import RBF, GaussianProcess
from ssa_privacy.privacy import (
    SyntheticNoiseDesign,
    diagonal_noise_covariance,
    kernel_gram_G,
    optimal_noise_covariance,
    optimal_noise_factor,
    privacy_aware_gp,
    privacy_certificate,
    psd_part,
    region_noise_factor,
    sample_synthetic_noise,
    uniform_noise_covariance,
)
from ssa_privacy.privacy.synthetic_noise import design as design_module
from ssa_privacy.privacy.synthetic_noise import lanczos as lanczos_module
from ssa_privacy.privacy.synthetic_noise.mechanism import SyntheticNoiseMechanism
from ssa_privacy.privacy.synthetic_noise.tightening import DESIGN_MARGIN

#: Certificates of valid designs must be non-negative up to this round-off.
CERTIFICATE_TOLERANCE = 1e-8


def random_instance(seed, n_max=30):
    """A random, well-posed design problem (K_XX, K_XS, Delta, V) with Sigma_opt != 0.

    Delta = alpha K_SS + a ridge (any positive definite Delta is allowed by (5)), and
    the observation noise V keeps K_XX + V well conditioned.
    """
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(4, n_max + 1)), int(rng.integers(1, 3))
    X = rng.uniform(0, 1, (n, d))
    variance = rng.uniform(0.5, 2.0)
    kernel = RBF(lengthscale=rng.uniform(0.15, 0.4, d), variance=variance)
    S = X[rng.choice(n, int(rng.integers(1, max(2, n // 3) + 1)), replace=False)]
    alpha = rng.uniform(0.05, 0.8)
    Delta = alpha * kernel(S) + 0.05 * alpha * variance * np.eye(len(S))
    V = rng.uniform(1e-3, 0.05) * variance
    return kernel(X), kernel(X, S), Delta, V, alpha


def sdp_minimum_trace(K_XX, K_XS, Delta, V):
    """Independent solve of the SDP (7) of [TCB] with cvxpy and Clarabel."""
    n = len(K_XX)
    B = K_XS @ np.linalg.solve(Delta, K_XS.T) - K_XX - V * np.eye(n)
    Sigma = cp.Variable((n, n), PSD=True)
    problem = cp.Problem(cp.Minimize(cp.trace(Sigma)), [Sigma - 0.5 * (B + B.T) >> 0])
    problem.solve(solver="CLARABEL")
    assert problem.status == cp.OPTIMAL
    return Sigma.value


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_closed_form_equals_independent_sdp_solve(seed):
    K_XX, K_XS, Delta, V, _ = random_instance(seed)
    closed_form = optimal_noise_covariance(K_XX, K_XS, Delta, V)
    solved = sdp_minimum_trace(K_XX, K_XS, Delta, V)
    assert np.trace(closed_form) > 0
    assert abs(np.trace(closed_form) - np.trace(solved)) / np.trace(closed_form) < 1e-6


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_optimal_release_is_certified_and_the_constraint_binds(seed):
    """The exact (8) binds: its relative margin is 0 within the certificate's bound (so it
    cannot be certified in floating point); 0.9 Sigma fails; the certified design passes."""
    K_XX, K_XS, Delta, V, _ = random_instance(seed)
    Sigma = optimal_noise_covariance(K_XX, K_XS, Delta, V)
    certificate = privacy_certificate(K_XX, K_XS, Delta, Sigma, V)
    assert abs(certificate.margin) <= certificate.tolerance + 1e-9
    weak = privacy_certificate(K_XX, K_XS, Delta, 0.9 * Sigma, V)
    assert not weak.passed and weak.margin < -weak.tolerance
    assert SyntheticNoiseMechanism(K_XX, K_XS, Delta, V=V).certificate().passed


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_noise_eigenvalues_decrease_as_alpha_grows(seed):
    """G/alpha - K - V decreases in alpha, so by Weyl every ordered eigenvalue of its PSD
    part, and the trace, decrease too (the PSD part itself need not be Loewner-monotone)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (12, 1))
    kernel = RBF(0.3)
    low, high = np.sort(rng.uniform(0.05, 0.95, 2))
    strong = np.linalg.eigvalsh(region_noise_factor(kernel, X, X[:4], low, margin=0).matrix())
    weak = np.linalg.eigvalsh(region_noise_factor(kernel, X, X[:4], high, margin=0).matrix())
    assert np.all(strong >= weak - 1e-9 * strong.max())
    assert strong.sum() > weak.sum()


def test_one_validated_prior_serves_every_design():
    """Certified designs from one SyntheticNoiseDesign pass for each sensitive set and
    alpha, have rank <= |S| (Sylvester), and bind at their margin m whenever noise is
    needed (minimum trace): the relative margin is m within the certificate's bound."""
    K_XX, _, _, V, _ = random_instance(3)
    design = SyntheticNoiseDesign(K_XX, V)
    for S_index, alpha in [([1, 2], 0.3), ([0, len(K_XX) - 1], 0.7), ([2], 0.05)]:
        K_XS = K_XX[:, S_index]
        Delta = alpha * K_XX[np.ix_(S_index, S_index)] + 0.01 * np.eye(len(S_index))
        certified = design.certified(K_XS, Delta)
        certificate = privacy_certificate(
            K_XX, K_XS, Delta, certified.noise, V, resolution=certified.resolution
        )
        assert certified.noise.rank <= len(S_index) and certificate.passed
        assert certified.noise.rank == 0 or (
            abs(certificate.margin - certified.margin) <= certificate.tolerance + 1e-12
        )


def test_partial_eigensolver_agrees_with_dense():
    rng = np.random.default_rng(3)
    n, s = 200, 7
    B = rng.normal(size=(s, n))
    M = rng.normal(size=(n, n))
    A = B.T @ B - (M @ M.T / n + np.eye(n))
    partial, dense = psd_part(A, rank_bound=s), psd_part(A)
    assert partial.method == "partial" and dense.method == "dense"
    assert partial.rank == dense.rank <= s
    np.testing.assert_allclose(partial.matrix(), dense.matrix(), atol=1e-10 * np.abs(A).max())
    eigenvalues, vectors = np.linalg.eigh(A)
    reference = (vectors * np.maximum(eigenvalues, 0)) @ vectors.T
    np.testing.assert_allclose(dense.matrix(), reference, atol=1e-10 * np.abs(A).max())


@pytest.mark.parametrize("V", [None, 0.01])
def test_kernel_form_with_S_equal_to_X_is_the_uniform_solution(V):
    X = np.linspace(0, 1, 8)
    kernel, alpha = RBF(0.3), 0.4
    K = kernel(X)
    kernel_form = region_noise_factor(kernel, X, X, alpha, V, margin=0.0).matrix()
    eigenvalues, vectors = np.linalg.eigh(K / alpha - K - (0.0 if V is None else V) * np.eye(8))
    projected = (vectors * np.maximum(eigenvalues, 0)) @ vectors.T
    np.testing.assert_allclose(kernel_form, projected, atol=1e-9)
    np.testing.assert_allclose(uniform_noise_covariance(K, alpha, V), projected, atol=1e-9)


def test_posterior_variance_at_S_is_one_minus_alpha_of_the_prior():
    """Noiseless white-noise prior: the guarantee holds with equality at every private point."""
    X = np.linspace(0, 3, 61)
    kernel = RBF(1 / 400, variance=2.0)
    private = (X >= 1) & (X <= 2)
    for alpha in (0.1, 0.5, 0.9):
        factor = region_noise_factor(kernel, X, X[private], alpha, margin=0.0)
        gp = privacy_aware_gp(GaussianProcess(kernel), X, np.zeros(61), factor)
        variance = gp.predict(X[private])[1]
        np.testing.assert_allclose(variance, (1 - alpha) * 2.0, rtol=1e-10)
        np.testing.assert_allclose(factor.trace, private.sum() * 2.0 * (1 / alpha - 1), rtol=1e-10)


def test_example1_numbers_and_diagonal_needs_more_noise():
    """[TCB] Example 1; reference values recomputed independently (docs/theory/privacy-aware-gp.rst)."""
    X = np.arange(1, 10) / 10
    kernel = RBF(np.sqrt(1 / 20))
    K_XX, K_XS, Delta = kernel(X), kernel(X, [0.5]), np.array([[0.5]])
    optimal = optimal_noise_covariance(K_XX, K_XS, Delta)
    diagonal = diagonal_noise_covariance(K_XX, K_XS, Delta)
    assert np.trace(optimal) == pytest.approx(3.545614, abs=1e-6)
    assert np.linalg.matrix_rank(optimal, tol=1e-9) == 1
    assert np.trace(diagonal) == pytest.approx(20.07292, abs=1e-4)
    assert np.trace(diagonal) > np.trace(optimal)
    assert privacy_certificate(K_XX, K_XS, Delta, diagonal).margin >= -1e-6


def test_synthetic_noise_has_the_designed_covariance():
    X = np.linspace(0, 1, 6)
    factor = region_noise_factor(RBF(0.25), X, X[2:4], 0.3, V=0.01)
    Sigma, draws = factor.matrix(), 40_000
    Z = sample_synthetic_noise(factor, size=draws, seed=11)
    empirical = Z.T @ Z / draws
    # Standard error of a sample covariance entry of a zero-mean Gaussian.
    standard_error = np.sqrt((np.outer(np.diag(Sigma), np.diag(Sigma)) + Sigma**2) / draws)
    assert np.all(np.abs(empirical - Sigma) <= 5 * standard_error + 1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_released_designs_keep_a_strictly_positive_certificate(seed):
    """A certified design passes, at a price the theory bounds: tightening Delta to
    (1 - m) Delta adds m / (1 - m) G(S) (PSD) to the matrix of (8), the trace of the PSD
    part grows by at most the trace of what is added, and a nugget nu adds n nu."""
    rng = np.random.default_rng(seed)
    X = np.linspace(0, 1, 15)
    kernel, alpha = RBF(rng.uniform(0.03, 0.1), rng.uniform(1e-6, 1e3)), rng.uniform(0.05, 0.95)
    V = rng.choice([None, 1e-3 * kernel.variance])
    mech = SyntheticNoiseMechanism.for_region(kernel, X, X[3:8], alpha, V=V)
    result = mech.release(np.zeros(15))
    assert result.certificate.margin > 0 and result.certificate.passed and mech.resolution == 0
    exact = region_noise_factor(kernel, X, X[3:8], alpha, V=V, margin=0.0)
    G = kernel_gram_G(kernel(X, X[3:8]), alpha * kernel(X[3:8]))
    added = mech.margin / (1 - mech.margin) * np.trace(G) + 15 * mech.nugget
    rounding = 1e-12 * np.trace(G)
    assert exact.trace - rounding <= result.noise_covariance.trace <= exact.trace + added + rounding


@pytest.mark.parametrize("alpha", [0.1, 0.5, 0.9])
def test_certificate_keeps_the_margin_with_near_duplicate_sensitive_inputs(alpha):
    """Pairs of sensitive inputs 3e-4 apart make Delta nearly singular (condition number
    about 5e5). A design with relative margin m gives Delta - K_SX (K + V + Sigma)^{-1}
    K_XS >= m Delta in exact arithmetic: the certificate's relative margin is m, within
    its bound, and passes."""
    X, kernel = np.linspace(0, 1, 40), RBF(0.1)
    S0 = np.array([0.3, 0.3003, 0.62, 0.6203])
    mechanism = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=1e-2)
    record = mechanism.release(np.zeros(40), seed=0).certificate
    assert record.passed and record.evidence["resolution"] == 0
    assert abs(record.margin - record.evidence["design_margin"]) <= record.tolerance
    assert record.evidence["design_margin"] >= DESIGN_MARGIN


def test_release_draws_fresh_entropy_unless_seeded():
    X = np.linspace(0, 1, 10)
    y = np.sin(X)
    kernel = RBF(0.2)
    mechanism = SyntheticNoiseMechanism.for_region(kernel, X, X[3:6], 0.5)
    first, second = mechanism.release(y), mechanism.release(y)
    assert not np.allclose(first.values, second.values)
    np.testing.assert_array_equal(
        mechanism.release(y, seed=4).values, mechanism.release(y, seed=4).values
    )
    assert first.certificate.margin >= -CERTIFICATE_TOLERANCE


def test_factored_design_matches_the_dense_matrix():
    K_XX, K_XS, Delta, V, _ = random_instance(7)
    np.testing.assert_allclose(
        optimal_noise_factor(K_XX, K_XS, Delta, V).matrix(),
        optimal_noise_covariance(K_XX, K_XS, Delta, V),
        atol=1e-12,
    )


GOOD = dict(K_XX=np.eye(3) * 2.0, K_XS=np.ones((3, 1)), Delta=np.array([[0.5]]))


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(K_XX=np.array([[1.0, 0.5, 0], [0.0, 1, 0], [0, 0, 1]])), "K_XX is not symmetric"),
        (dict(K_XX=np.diag([1.0, -1.0, 1.0])), "K_XX is not positive semi-definite"),
        (dict(K_XX=np.full((3, 3), np.nan)), "K_XX contains non-finite"),
        (dict(K_XS=np.ones((4, 1))), "K_XS has shape"),
        (dict(Delta=np.array([[-0.5]])), "Delta is not positive definite"),
        (dict(Delta=np.eye(2)), "Delta must be 1x1"),
        (dict(V=np.diag([1.0, -1.0, 0.0])), "V is not positive semi-definite"),
        (dict(V=-1.0), "V .* must be non-negative"),
    ],
)
def test_bad_input_raises_a_clear_error(change, message):
    with pytest.raises(ValueError, match=message):
        optimal_noise_covariance(**{**GOOD, **change})


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.2, 1.5, np.nan])
def test_alpha_outside_the_open_unit_interval_is_rejected(alpha):
    with pytest.raises(ValueError, match="alpha must lie in the open interval"):
        region_noise_factor(RBF(0.3), np.linspace(0, 1, 5), [0.5], alpha)
    with pytest.raises(ValueError, match="alpha must lie in the open interval"):
        uniform_noise_covariance(np.eye(3), alpha)


def kernel_problem(seed, n=480, s=40, alpha=0.5, noise=0.05, lengthscale=0.35):
    """An RBF prior in 2-D with a sensitive region (the s inputs nearest a centre); the
    ridge of Delta keeps it well conditioned."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 2))
    kernel = RBF(lengthscale)
    S = np.argsort(np.sum((X - X[0]) ** 2, axis=1))[:s]
    Delta = alpha * (kernel(X[S]) + 0.01 * np.eye(s))
    return kernel(X), kernel(X)[:, S], Delta, noise


def dense_positive_part(K_XX, K_XS, Delta, V):
    """The exact reference: every eigenpair of the matrix of (8), positive ones kept."""
    V = V if np.ndim(V) else V * np.eye(len(K_XX))
    A = K_XS @ np.linalg.solve(Delta, K_XS.T) - K_XX - V
    eigenvalues, vectors = np.linalg.eigh(0.5 * (A + A.T))
    return eigenvalues, (vectors * np.maximum(eigenvalues, 0)) @ vectors.T


@pytest.fixture
def krylov(monkeypatch):
    """Designs of (8) by block Lanczos from 100 training inputs on."""
    monkeypatch.setattr(design_module, "KRYLOV_MIN_SIZE", 100)
    return design_module


@pytest.mark.parametrize(
    "seed, alpha, noise", [(0, 0.5, 0.05), (1, 0.1, 0.01), (2, 0.9, 0.05), (3, 0.3, "matrix")]
)
def test_lanczos_design_is_the_exact_psd_part(krylov, seed, alpha, noise):
    """Block Lanczos with the inertia count of an s x s matrix gives (8) to 1e-10 relative
    (its a-posteriori bound is 1e-11), with exactly as many eigenpairs as (8) has positive
    eigenvalues (Sylvester), at most s."""
    if noise == "matrix":
        noise = np.diag(np.random.default_rng(seed).uniform(0.01, 0.1, 480))
    K_XX, K_XS, Delta, V = kernel_problem(seed, alpha=alpha, noise=noise)
    factor = SyntheticNoiseDesign(K_XX, V).factor(K_XS, Delta)
    eigenvalues, reference = dense_positive_part(K_XX, K_XS, Delta, V)
    assert factor.method == "lanczos"
    assert factor.rank == np.sum(eigenvalues > 0) <= len(Delta)
    error = np.linalg.norm(factor.matrix() - reference) / np.linalg.norm(reference)
    assert error < 1e-10
    U = factor.eigenvectors
    np.testing.assert_allclose(U.T @ U, np.eye(factor.rank), atol=1e-12)


def test_lanczos_inertia_brackets_the_number_of_positive_eigenvalues():
    """The count of eigenvalues of scale Z^T Z above 1 (Z = L^{-1} Y^T) is the number of
    positive eigenvalues of scale Y^T Y - K_XX - V, within its rounding band."""
    K_XX, K_XS, Delta, V = kernel_problem(4, alpha=0.4)
    Y = np.linalg.solve(np.linalg.cholesky(Delta), K_XS.T)
    for scale in (1.0, 1.5, 3.0):
        p_min, p_max = lanczos_module._inertia(K_XX, V, Y, scale)
        A = scale * Y.T @ Y - K_XX - V * np.eye(len(K_XX))
        positive = np.sum(np.linalg.eigvalsh(0.5 * (A + A.T)) > 0)
        assert p_min <= positive <= p_max <= len(Y)


def test_lanczos_design_without_noise_needed_is_zero(krylov):
    """When K_XS Delta^{-1} K_SX <= K_XX + V, Sigma_opt = 0: the count is 0 and no
    iteration runs."""
    K_XX, K_XS, Delta, _ = kernel_problem(5, alpha=0.95)
    factor = SyntheticNoiseDesign(K_XX, 50.0).factor(K_XS, Delta)
    assert factor.method == "lanczos" and factor.rank == 0
    assert np.all(dense_positive_part(K_XX, K_XS, Delta, 50.0)[0] <= 0)


def test_lanczos_falls_back_to_the_subset_eigensolver(krylov, monkeypatch):
    """Singular K_XX + V (noiseless smooth data), a positive eigenvalue of multiplicity
    above the block size, or a basis cap too small: the subset eigensolver answers, and
    the design is still (8)."""
    X = np.linspace(0, 1, 200)
    smooth = RBF(0.5)
    S = X[::25]
    noiseless = SyntheticNoiseDesign(smooth(X)).factor(smooth(X, S), 0.5 * smooth(S))
    assert noiseless.method == "partial"
    white = RBF(1e-4)  # K = I: (8) is (1/alpha - 1) I on the 40 sensitive inputs
    factor = SyntheticNoiseDesign(white(X), 0.0).factor(white(X, X[:40]), 0.5 * white(X[:40]))
    assert factor.method == "partial"
    np.testing.assert_allclose(factor.eigenvalues, np.ones(40))
    monkeypatch.setattr(lanczos_module, "KRYLOV_MAX_FRACTION", 0.05)
    K_XX, K_XS, Delta, V = kernel_problem(6)
    capped = SyntheticNoiseDesign(K_XX, V).factor(K_XS, Delta)
    assert capped.method == "partial"
    reference = dense_positive_part(K_XX, K_XS, Delta, V)[1]
    np.testing.assert_allclose(capped.matrix(), reference, atol=1e-10 * np.abs(reference).max())


def test_certified_lanczos_design_passes_and_matches_the_dense_design(krylov, monkeypatch):
    """The certified design through block Lanczos passes its certificate and equals the
    one through the subset eigensolver to 1e-10 relative."""
    K_XX, K_XS, Delta, V = kernel_problem(7, alpha=0.3)
    design = SyntheticNoiseDesign(K_XX, V)
    certified = design.certified(K_XS, Delta, alpha=0.3)
    assert certified.noise.method == "lanczos" and certified.certificate.passed
    monkeypatch.setattr(design_module, "KRYLOV_MIN_SIZE", 10**9)
    dense = design.certified(K_XS, Delta, alpha=0.3)
    assert dense.noise.method == "partial" and dense.margin == certified.margin
    error = np.linalg.norm(certified.noise.matrix() - dense.noise.matrix())
    assert error < 1e-10 * np.linalg.norm(dense.noise.matrix())
