"""The [TCB] certificate proven in floating point, checked against 50-digit arithmetic.

The certificate of a synthetic-noise release reports the relative margin ``mu*`` of the
privacy constraint (5) (``(5)`` holds for ``(1 - mu*) (Delta + rho I)``) with a rigorous
bound on its rounding error (docs/theory/privacy-aware-gp.rst, "Certificates in floating
point"). Here an independent mpmath computation at 50 significant digits on the very
float64 inputs gives the exact ``mu*``; the tests check that it lies within the reported
bound of the reported margin, that ``passed`` implies ``mu* >= 0``, that certified designs
pass (near-duplicate sensitive inputs and noiseless data included) and that the same noise
scaled by 0.999 fails.
"""

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ssa_privacy.gp.regression import RBF
from ssa_privacy.privacy import (
    FactoredCovariance,
    SyntheticNoiseMechanism,
    optimal_noise_factor,
    privacy_certificate,
    psd_part,
)
from ssa_privacy.privacy.synthetic_noise.certificate import (
    UNIT_ROUNDOFF,
    cholesky_lower_bound,
    gamma,
)
from ssa_privacy.privacy.synthetic_noise.tightening import DESIGN_MARGIN, MAX_DESIGN_MARGIN

DIGITS = 50


def _lower_solve(L, B):
    """Forward substitution L X = B in mpmath (L lower triangular)."""
    rows, columns = B.rows, B.cols
    X = mp.matrix(rows, columns)
    for j in range(columns):
        for i in range(rows):
            acc = B[i, j]
            for k in range(i):
                acc -= L[i, k] * X[k, j]
            X[i, j] = acc / L[i, i]
    return X


def exact_margin(K_XX, K_XS, Delta, noise, V=None, resolution=0.0):
    """mu* = lambda_min(Delta_rho^{-1/2} (Delta_rho - K_SX C^{-1} K_XS) Delta_rho^{-1/2}) at
    50 digits, C = K_XX + V + Sigma with Sigma = U diag(lambda) U^T from the float factors
    (or a float matrix); -inf when C is not positive definite (then (5) fails)."""
    with mp.workdps(DIGITS):
        n, s = K_XS.shape
        C = mp.matrix(np.asarray(K_XX).tolist())
        if V is not None and np.ndim(V) == 0:
            for i in range(n):
                C[i, i] += mp.mpf(float(V))
        elif V is not None:
            C += mp.matrix(np.asarray(V).tolist())
        if isinstance(noise, np.ndarray):
            C += mp.matrix(noise.tolist())
        elif noise.rank:
            U = mp.matrix(noise.eigenvectors.tolist())
            for k in range(noise.rank):
                C += mp.mpf(float(noise.eigenvalues[k])) * (U[:, k] * U[:, k].T)
        D = mp.matrix(np.asarray(Delta).tolist())
        for i in range(s):
            D[i, i] += mp.mpf(float(resolution))
        try:
            L_C = mp.cholesky(C)
        except ValueError:
            return -np.inf
        Z = _lower_solve(L_C, mp.matrix(np.asarray(K_XS).tolist()))
        P = _lower_solve(mp.cholesky(D), Z.T)
        return float(1 - max(mp.eigsy(P * P.T, eigvals_only=True)))


def near_duplicates(offset, noise=1e-3, n=25):
    """Three pairs of near-duplicate sensitive inputs, RBF length scale 0.2, Delta = 0.5 K_SS."""
    X, kernel = np.linspace(0, 1, n), RBF(0.2)
    S = np.array([0.2, 0.2 + offset, 0.5, 0.5 + offset, 0.8, 0.8 + offset])
    return kernel(X), kernel(X, S), 0.5 * kernel(S), noise


def condition(Delta):
    values = np.linalg.eigvalsh(Delta)
    return values[-1] / values[0]


def assert_enclosed(certificate, exact):
    """The exact margin lies within the reported bound; passed implies exact >= 0."""
    assert abs(certificate.margin - exact) <= certificate.tolerance
    assert not certificate.passed or exact >= 0
    assert certificate.passed == (certificate.margin - certificate.tolerance >= 0)


@pytest.mark.parametrize(
    "offset, low, high", [(5.2e-5, 5e8, 2e9), (1.64e-6, 5e11, 2e12)], ids=["cond1e9", "cond1e12"]
)
@pytest.mark.parametrize("noise", [1e-3, None], ids=["V", "noiseless"])
def test_ill_conditioned_delta_designs_pass_and_a_0999_scaling_fails(offset, low, high, noise):
    K_XX, K_XS, Delta, _ = near_duplicates(offset)
    assert low < condition(Delta) < high
    mech = SyntheticNoiseMechanism(K_XX, K_XS, Delta, V=noise)
    certificate = mech.certificate()
    exact = exact_margin(K_XX, K_XS, Delta, mech.noise_covariance, noise, mech.resolution)
    assert certificate.passed and exact >= 0 and certificate.evidence["design_attempts"] == 1
    assert_enclosed(certificate, exact)
    weak = mech.with_noise(mech.noise_covariance.scaled(0.999)).certificate()
    weak_exact = exact_margin(
        K_XX, K_XS, Delta, mech.noise_covariance.scaled(0.999), noise, mech.resolution
    )
    assert not weak.passed and weak_exact < 0
    assert_enclosed(weak, weak_exact)
    assert DESIGN_MARGIN <= mech.margin <= MAX_DESIGN_MARGIN


def test_the_issue_designs_now_meet_the_constraint_in_exact_arithmetic():
    """The designs that violated (5) by 1.7e-16 and 6.5e-16 with the fixed 1e-7 margin
    (cond(Delta) 3e9 and 3.5e12) are certified, and 50 digits confirm them."""
    for offset, target in ((3.0e-5, 3e9), (8.8e-7, 3.5e12)):
        K_XX, K_XS, Delta, V = near_duplicates(offset)
        assert condition(Delta) == pytest.approx(target, rel=0.1)
        mech = SyntheticNoiseMechanism(K_XX, K_XS, Delta, V=V)
        exact = exact_margin(K_XX, K_XS, Delta, mech.noise_covariance, V, mech.resolution)
        assert mech.certificate().passed and exact > 0
        assert_enclosed(mech.certificate(), exact)


def test_resolution_is_stated_and_zero_for_well_conditioned_delta():
    """A numerically singular Delta gets a resolution rho > 0, reported with the prior
    variance below which a direction of f(S) is not protected; a well-conditioned Delta
    gets none, and the design is the old one (margin 1e-7, no nugget)."""
    X = np.linspace(0, 1, 20)
    S0 = np.array([0.3, 0.3 + 1e-7, 0.7])
    near = SyntheticNoiseMechanism.for_region(RBF(0.2), X, S0, 0.4, V=1e-3)
    evidence = near.certificate().evidence
    assert near.resolution > 0 and evidence["resolution"] == near.resolution
    assert evidence["unprotected_prior_variance"] == pytest.approx(near.resolution / 0.6)
    # The stated resolution is far below the prior variance of the protected directions.
    assert near.resolution < 1e-6 * np.linalg.eigvalsh(RBF(0.2)(S0))[-1]
    plain = SyntheticNoiseMechanism.for_region(RBF(0.2), X, X[8:12], 0.4, V=1e-3)
    assert (plain.resolution, plain.nugget, plain.margin) == (0.0, 0.0, DESIGN_MARGIN)
    old = optimal_noise_factor(
        RBF(0.2)(X), RBF(0.2)(X, X[8:12]), (1 - DESIGN_MARGIN) * 0.4 * RBF(0.2)(X[8:12]), 1e-3
    )
    np.testing.assert_allclose(plain.noise_covariance.matrix(), old.matrix(), atol=1e-12)


def test_psd_part_keeps_at_most_the_inertia_bound():
    """At condition 1e9 the matrix of (8) for s = 2 has round-off positive eigenvalues beyond
    the two allowed by the inertia bound; psd_part with rank_bound keeps the largest two."""
    X, kernel = np.linspace(0, 1, 60), RBF(0.3)
    S = np.array([0.5, 0.5 + 3e-5])
    Delta = 0.5 * kernel(S)
    assert condition(Delta) > 1e8
    B = np.linalg.solve(np.linalg.cholesky(Delta), kernel(X, S).T)
    A = B.T @ B - kernel(X)
    A = 0.5 * (A + A.T)
    assert np.sum(np.linalg.eigvalsh(A) > 0) > 2  # round-off beyond the bound
    part = psd_part(A, rank_bound=2)
    assert part.rank == 2
    np.testing.assert_allclose(part.eigenvalues, np.sort(np.linalg.eigvalsh(A))[-2:], rtol=1e-8)
    assert optimal_noise_factor(kernel(X), kernel(X, S), Delta).rank <= 2


def test_cholesky_bound_is_a_lower_bound_and_detects_indefinite_matrices():
    rng = np.random.default_rng(1)
    Q, _ = np.linalg.qr(rng.normal(size=(40, 40)))
    for smallest in (1e-3, 1e-12, 0.0):
        A = (Q * np.linspace(smallest, 1.0, 40)) @ Q.T
        A = 0.5 * (A + A.T)
        bound = cholesky_lower_bound(A)
        exact_smallest = float(mp.eigsy(mp.matrix(A.tolist()), eigvals_only=True)[0])
        if bound is not None:
            assert bound <= exact_smallest
            assert -bound <= gamma(42) / (1 - gamma(42)) * np.trace(A) * 1.01
    assert cholesky_lower_bound(np.diag([1.0, -1e-3])) is None
    assert gamma(1) == pytest.approx(UNIT_ROUNDOFF, rel=1e-12)


def test_dense_and_factored_noise_give_enclosures_of_their_own_exact_margin():
    K_XX, K_XS, Delta, V = near_duplicates(1e-3, n=15)
    mech = SyntheticNoiseMechanism(K_XX, K_XS, Delta, V=V)
    dense = mech.noise_covariance.matrix()
    for noise in (dense, mech.noise_covariance, 0.7 * dense):
        certificate = privacy_certificate(K_XX, K_XS, Delta, noise, V, resolution=mech.resolution)
        assert_enclosed(certificate, exact_margin(K_XX, K_XS, Delta, noise, V, mech.resolution))


def test_zero_noise_on_noiseless_smooth_data_fails_rather_than_raising():
    """K_XX of a smooth kernel is numerically singular; with no noise (5) cannot be
    certified, and the certificate says so (no 'not positive definite' error)."""
    X = np.linspace(0, 1, 40)
    K, K_XS = RBF(0.3)(X), RBF(0.3)(X, X[18:21])
    none = FactoredCovariance(np.zeros(0), np.zeros((40, 0)))
    certificate = privacy_certificate(K, K_XS, 0.5 * RBF(0.3)(X[18:21]), none, resolution=1e-8)
    assert not certificate.passed


GRID_NS = (2, 3, 5, 20, 100, 500, 1000, 2000)
GRID_LENGTHS = (1e-3, 1e-2, 0.1, 0.3, 1.0)


def noiseless_case(n, lengthscale, spacing):
    X = (
        np.linspace(0, 1, n)
        if spacing == "equal"
        else np.sort(np.random.default_rng(n).uniform(0, 1, n))
    )
    S0 = X[(X >= 0.4) & (X <= 0.6)]
    return X, (S0 if len(S0) else X[n // 2 : n // 2 + 1]), RBF(lengthscale)


def check_noiseless(n, lengthscale, spacing):
    X, S0, kernel = noiseless_case(n, lengthscale, spacing)
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, 0.5)
    result = mech.release(np.sin(6 * X), seed=0)
    assert result.certificate.passed and result.values.shape == (n,)
    assert np.all(np.isfinite(result.values))
    assert mech.certificate().evidence["design_attempts"] == 1  # the rule sufficed
    assert not mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed


@pytest.mark.parametrize("spacing", ["equal", "random"])
@pytest.mark.parametrize("lengthscale", [1e-3, 0.3, 1.0])
@pytest.mark.parametrize("n", [2, 3, 20, 100])
def test_noiseless_data_with_smooth_kernels_are_certified(n, lengthscale, spacing):
    """[TCB] allows V = 0: every certified design passes (a representative subset)."""
    check_noiseless(n, lengthscale, spacing)


@pytest.mark.slow
@pytest.mark.parametrize("spacing", ["equal", "random"])
@pytest.mark.parametrize("lengthscale", GRID_LENGTHS)
@pytest.mark.parametrize("n", GRID_NS)
def test_noiseless_grid_n_2_to_2000_length_scales_1e3_to_1(n, lengthscale, spacing):
    check_noiseless(n, lengthscale, spacing)


@st.composite
def region_designs(draw):
    """Random kernels, inputs, sensitive sets (with near-duplicates), alphas and noise."""
    seed = draw(st.integers(0, 2**32 - 1))
    n, d = draw(st.integers(2, 14)), draw(st.integers(1, 2))
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, d))
    kernel = RBF(10 ** draw(st.floats(-3, 0)) * np.ones(d), variance=10 ** draw(st.floats(-3, 3)))
    s = draw(st.integers(1, min(n, 4)))
    S = X[rng.choice(n, s, replace=False)]
    if draw(st.booleans()):
        S = np.vstack([S, S[:1] + 10 ** draw(st.floats(-9, -3))])
    alpha = draw(st.floats(0.02, 0.98))
    V = draw(st.sampled_from([None, 1e-6, 1e-2]))
    return kernel, X, S, alpha, (None if V is None else V * kernel.variance)


@settings(deadline=None)
@given(region_designs())
def test_property_certified_designs_pass_and_bounds_hold_at_50_digits(case):
    """A certified design passes, its margin is within the bound of the 50-digit margin,
    and the noise scaled by 1 - 1e-3 is enclosed too and fails whenever its exact margin is
    negative, which it is when the data alone would break (5) by a wide margin (exact
    margin below -1/2 without noise, or with the nugget alone if the design has one: the
    noise then carries a share of K + V + Sigma far above the design margin, at most
    1e-4)."""
    kernel, X, S, alpha, V = case
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S, alpha, V=V)
    args = (mech.K_XX, mech.K_XS, mech.Delta)
    certificate = mech.certificate()
    assert certificate.passed and certificate.evidence["design_attempts"] == 1
    assert_enclosed(certificate, exact_margin(*args, mech.noise_covariance, V, mech.resolution))
    assume(mech.noise_covariance.rank > 0)
    weak_noise = mech.noise_covariance.scaled(1 - 1e-3)
    weak = mech.with_noise(weak_noise).certificate()
    weak_exact = exact_margin(*args, weak_noise, V, mech.resolution)
    assert_enclosed(weak, weak_exact)
    nugget_only = FactoredCovariance.scaled_identity(mech.nugget, len(X))
    if exact_margin(*args, nugget_only, V, mech.resolution) < -0.5:
        assert weak_exact < 0 and not weak.passed
