"""SyntheticNoiseMechanism [TCB]: design, release and a certificate recomputed from the noise."""

import numpy as np
import pytest
import scipy.linalg

from ssa_privacy.gp.regression import RBF, GaussianProcess
from ssa_privacy.privacy import (
    Certificate,
    FactoredCovariance,
    Mechanism,
    Release,
    SyntheticNoiseMechanism,
    diagonal_noise_covariance,
    privacy_aware_gp,
    region_noise_factor,
    sample_synthetic_noise,
)
from ssa_privacy.privacy.synthetic_noise.tightening import DESIGN_MARGIN


def instance(n=15, alpha=0.4, V=1e-3):
    """A small region design: RBF prior on [0, 1], sensitive region [0.4, 0.6]."""
    X = np.linspace(0, 1, n)
    kernel = RBF(0.15, 1.3)
    S0 = X[(X >= 0.4) & (X <= 0.6)]
    return kernel, X, S0, alpha, V


def independent_margin(K_XX, K_XS, Delta, Sigma, V):
    """The relative margin lambda_min(L^{-1} (Delta - K_SX (K_XX + V I + Sigma)^{-1} K_XS)
    L^{-T}), Delta = L L^T, by a dense solve and a generalized symmetric eigensolver."""
    C = K_XX + V * np.eye(len(K_XX)) + Sigma
    reduction = K_XS.T @ np.linalg.solve(C, K_XS)
    gap = Delta - 0.5 * (reduction + reduction.T)
    return scipy.linalg.eigh(gap, Delta, eigvals_only=True)[0]


def test_acceptance_release_certificate_seed_and_a_weakened_noise():
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    y = np.sin(5 * X)
    out = mech.release(y, seed=0)
    assert isinstance(mech, Mechanism)
    assert isinstance(out, Release) and isinstance(out.certificate, Certificate)
    assert out.values.shape == (len(X),)
    assert out.certificate.passed and out.certificate.notion == "posterior-covariance"
    assert out.seed_keys == {"seed": 0}
    np.testing.assert_array_equal(out.values, mech.release(y, seed=0).values)
    assert not np.array_equal(out.values, mech.release(y, seed=1).values)
    weak = mech.with_noise(mech.noise_covariance.scaled(0.5))
    weak_release = weak.release(y, seed=0)
    assert not weak_release.certificate.passed
    assert weak_release.certificate.margin < -weak_release.certificate.tolerance
    assert weak_release.noise_covariance.trace == pytest.approx(0.5 * mech.noise_covariance.trace)


def test_certificate_is_the_constraint_recomputed_independently():
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    K_XX, K_XS, Delta = kernel(X), kernel(X, S0), alpha * kernel(S0)
    certificate = mech.certificate()
    for noise, cert in [
        (mech.noise_covariance.matrix(), certificate),
        (
            0.5 * mech.noise_covariance.matrix(),
            mech.with_noise(0.5 * mech.noise_covariance.matrix()).certificate(),
        ),
    ]:
        independent = independent_margin(K_XX, K_XS, Delta, noise, V)
        assert abs(cert.margin - independent) <= cert.tolerance + 1e-9
    # The design binds at its relative margin, which exceeds the certificate's bound.
    assert abs(certificate.margin - mech.margin) <= certificate.tolerance + 1e-12
    assert mech.margin >= DESIGN_MARGIN and certificate.margin - certificate.tolerance > 0
    assert certificate.parameters == {"sensitive_inputs": len(S0), "alpha": alpha}
    assert certificate.evidence["resolution"] == mech.resolution == 0


def test_more_noise_keeps_the_guarantee_and_the_diagonal_sdp_noise_passes():
    """(5) is monotone in Sigma: any noise above Sigma_opt passes; [TCB] Example 1's
    diagonal SDP answer meets (5) too."""
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    more = mech.with_noise(mech.noise_covariance.matrix() + 0.1 * np.eye(len(X)))
    assert more.certificate().passed
    assert more.certificate().margin > mech.certificate().margin
    example_X = np.arange(1, 10) / 10
    example_kernel = RBF(np.sqrt(1 / 20))
    K_XX, K_XS, Delta = example_kernel(example_X), example_kernel(example_X, [0.5]), [[0.5]]
    exact = SyntheticNoiseMechanism(K_XX, K_XS, Delta, margin=0.0)
    assert exact.noise_covariance.trace == pytest.approx(3.545614, abs=1e-6)
    assert exact.noise_covariance.rank == 1
    # (8) binds: its margin is 0 within the bound, so only a tightened design passes.
    assert abs(exact.certificate().margin) <= exact.certificate().tolerance
    assert SyntheticNoiseMechanism(K_XX, K_XS, Delta).certificate().passed
    diagonal = exact.with_noise(diagonal_noise_covariance(K_XX, K_XS, Delta))
    assert diagonal.certificate().margin >= -1e-6


def test_the_users_posterior_covariance_at_S_stays_above_K_SS_minus_Delta():
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    out = mech.release(np.cos(3 * X), seed=3)
    user = privacy_aware_gp(GaussianProcess(kernel, noise=V), X, out.values, out.noise_covariance)
    _, covariance = user.predict(S0, return_cov=True)
    gap = covariance - (1 - alpha) * kernel(S0)
    assert np.linalg.eigvalsh(gap)[0] >= -1e-10


def test_for_region_is_region_noise_factor_and_the_release_keeps_the_old_draws():
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    factor = region_noise_factor(kernel, X, S0, alpha, V=V)
    np.testing.assert_array_equal(mech.noise_covariance.eigenvalues, factor.eigenvalues)
    np.testing.assert_array_equal(mech.noise_covariance.eigenvectors, factor.eigenvectors)
    y = np.sin(X)
    np.testing.assert_array_equal(
        mech.release(y, seed=7).values, y + sample_synthetic_noise(factor, seed=7)
    )
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    np.testing.assert_array_equal(
        mech.release(y, seed=rng_a).values, y + sample_synthetic_noise(factor, seed=rng_b)
    )


def test_matrix_constructor_agrees_with_the_kernel_form():
    kernel, X, S0, alpha, V = instance()
    region = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    matrix = SyntheticNoiseMechanism(kernel(X), kernel(X, S0), alpha * kernel(S0), V=V)
    np.testing.assert_allclose(
        matrix.noise_covariance.matrix(), region.noise_covariance.matrix(), atol=1e-10
    )
    assert matrix.certificate().passed
    assert "alpha" not in matrix.certificate().parameters


def test_released_noise_has_the_designed_covariance():
    """Monte Carlo: W - y over 20,000 releases; every entry within 5 standard errors."""
    kernel, X, S0, alpha, V = instance(n=8)
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    rng, draws, y = np.random.default_rng(5), 20_000, np.zeros(8)
    Z = np.array([mech.release(y, seed=rng).values for _ in range(draws)])
    Sigma = mech.noise_covariance.matrix()
    empirical = Z.T @ Z / draws
    standard_error = np.sqrt((np.outer(np.diag(Sigma), np.diag(Sigma)) + Sigma**2) / draws)
    assert np.all(np.abs(empirical - Sigma) <= 5 * standard_error + 1e-12)


def test_fresh_entropy_unless_seeded():
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    first, second = mech.release(np.zeros(len(X))), mech.release(np.zeros(len(X)))
    assert first.seed_keys == {"seed": None}
    assert not np.array_equal(first.values, second.values)


def test_with_noise_accepts_a_factored_or_dense_covariance_and_checks_it():
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    dense = mech.with_noise(mech.noise_covariance.matrix())
    assert isinstance(dense.noise_covariance, FactoredCovariance)
    gap = abs(dense.certificate().margin - mech.certificate().margin)
    assert gap <= dense.certificate().tolerance + mech.certificate().tolerance
    with pytest.raises(ValueError, match="noise_covariance is 3x3, expected 15x15"):
        mech.with_noise(np.eye(3))
    with pytest.raises(ValueError, match="not positive semi-definite"):
        mech.with_noise(-np.eye(len(X)))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda m: m.release(np.zeros(3)), ValueError, "y has 3 entries"),
        (lambda m: m.release(np.full(15, np.nan)), ValueError, "y contains non-finite"),
        (lambda m: m.release(np.zeros(15), seed=1.5), TypeError, "seed must be"),
    ],
)
def test_bad_release_input_raises_a_clear_error(call, error, message):
    kernel, X, S0, alpha, V = instance()
    with pytest.raises(error, match=message):
        call(SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V))


def test_bad_design_input_raises_a_clear_error():
    kernel, X, S0, _, _ = instance()
    with pytest.raises(ValueError, match="alpha must lie in the open interval"):
        SyntheticNoiseMechanism.for_region(kernel, X, S0, 1.2)
    with pytest.raises(ValueError, match="margin must lie in"):
        SyntheticNoiseMechanism.for_region(kernel, X, S0, 0.5, margin=0.1)
    with pytest.raises(ValueError, match="Delta is not positive definite"):
        SyntheticNoiseMechanism(kernel(X), kernel(X, S0), -kernel(S0))
    with pytest.raises(ValueError, match="K_XS has shape"):
        SyntheticNoiseMechanism(kernel(X), kernel(S0, S0), kernel(S0))


def test_design_names_live_in_the_design_module_and_the_package():
    from ssa_privacy.privacy.synthetic_noise import diagonal_noise_covariance, psd_part
    from ssa_privacy.privacy.synthetic_noise.design import (
        diagonal_noise_covariance as designed_diagonal,
    )

    assert diagonal_noise_covariance is designed_diagonal
    part = psd_part(np.diag([2.0, -1.0, 0.5]))
    assert isinstance(part, FactoredCovariance) and part.rank == 2
    assert part.trace == pytest.approx(2.5)


# Deprecated in 0.2, removed in 0.3 (ssa_privacy._compat): each still works, with a warning.


def test_legacy_release_warns_and_draws_as_the_mechanism():
    kernel, X, S0, alpha, V = instance()
    mech = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V)
    y = np.sin(X)
    with pytest.warns(DeprecationWarning, match=r"release\(y, seed=\.\.\.\)"):
        from ssa_privacy.privacy import release
    W = release(y, mech.noise_covariance, seed=7)
    np.testing.assert_array_equal(W, mech.release(y, seed=7).values)
    with pytest.raises(ValueError, match="y has 3 entries"):
        release(np.zeros(3), mech.noise_covariance)


def test_legacy_obfuscate_warns_and_returns_the_mechanism_release():
    kernel, X, S0, alpha, V = instance()
    with pytest.warns(DeprecationWarning, match="SyntheticNoiseMechanism.for_region"):
        from ssa_privacy.privacy.synthetic_noise import obfuscate
    with pytest.warns(DeprecationWarning, match="use Release"):
        from ssa_privacy.privacy.synthetic_noise.mechanism import ObfuscationResult
    result = obfuscate(kernel, X, np.cos(X), S0, alpha, V=V, seed=3)
    released = SyntheticNoiseMechanism.for_region(kernel, X, S0, alpha, V=V).release(
        np.cos(X), seed=3
    )
    assert isinstance(result, ObfuscationResult)
    np.testing.assert_array_equal(result.W, released.values)
    assert result.Sigma.trace == released.noise_covariance.trace
    assert result.certificate == released.certificate.margin and result.record.passed


def test_legacy_names_psd_part_and_certificate_rtol_warn():
    with pytest.warns(
        DeprecationWarning, match="use ssa_privacy.privacy.mechanism.FactoredCovariance"
    ):
        from ssa_privacy.privacy.synthetic_noise.mechanism import PSDPart
    assert PSDPart is FactoredCovariance
    with pytest.warns(DeprecationWarning, match="use Certificate.tolerance"):
        from ssa_privacy.privacy.synthetic_noise import CERTIFICATE_RTOL
    assert CERTIFICATE_RTOL == 1e-8
