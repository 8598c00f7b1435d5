"""Whole-stream PML accounting and the stream-level noise scale (issue 12, item 1-2)."""

import numpy as np
import pytest

from ssa_privacy.privacy.pml import (
    leakage_probability,
    linear_mechanism_covariances,
    linear_mechanism_noise,
    monte_carlo_leakage_probability,
    pml_margin,
)
from ssa_privacy.privacy.pml_stream import (
    stream_information,
    stream_leakage,
    stream_leakage_probability,
    stream_logdet_noise,
    stream_noise_scale,
)

DELTA = 0.01


def random_stream(seed, N=4, m=3, n=5):
    """A prior, N measurement maps and N positive definite noises."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    Sigma_XX = A @ A.T + n * np.eye(n)
    C = rng.standard_normal((N, m, n))
    B = rng.standard_normal((N, m, m))
    Theta = B @ np.swapaxes(B, 1, 2) + 0.5 * np.eye(m)
    return Sigma_XX, C, Theta


def stacked(C, Theta):
    """The dense stacked mechanism: C (N m, n) and block-diagonal Theta."""
    N, m, _ = C.shape
    Theta_stack = np.zeros((N * m, N * m))
    for k in range(N):
        Theta_stack[k * m : (k + 1) * m, k * m : (k + 1) * m] = Theta[k]
    return C.reshape(N * m, -1), Theta_stack


@pytest.mark.parametrize("seed", range(4))
def test_the_information_form_is_the_stacked_mechanism(seed):
    """The achieved epsilon and P[l <= epsilon] from J equal those of the dense stacked
    covariances ([LKC] Theorem 3.3 through pml_margin and leakage_probability)."""
    Sigma_XX, C, Theta = random_stream(seed)
    J = stream_information(C, Theta)
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(
        *stacked(C, Theta)[:1], Sigma_XX, stacked(C, Theta)[1]
    )
    for convention in ("exact", "paper"):
        leak = stream_leakage(Sigma_XX, J, DELTA, convention)
        dense = -pml_margin(Sigma_XX, Sigma_XY, Sigma_YY, 0.0, DELTA, convention)
        assert leak.epsilon == pytest.approx(dense, rel=1e-10)
        assert leak.rank == 5
        for epsilon in (0.8 * leak.epsilon, leak.epsilon, 1.2 * leak.epsilon):
            assert stream_leakage_probability(Sigma_XX, J, epsilon, convention) == pytest.approx(
                leakage_probability(Sigma_XX, Sigma_XY, Sigma_YY, epsilon, convention), abs=1e-12
            )


def test_monte_carlo_leakage_of_a_stream_agrees_with_the_closed_form():
    """20,000 draws of the stacked release: the 99% Clopper-Pearson interval of
    P[l(X -> Y) <= epsilon] contains the information-form value."""
    Sigma_XX, C, Theta = random_stream(7, N=3)
    J = stream_information(C, Theta)
    epsilon = stream_leakage(Sigma_XX, J, 0.2).epsilon  # where P = 0.8: a sharp test
    C_stack, Theta_stack = stacked(C, Theta)
    mc = monte_carlo_leakage_probability(
        C_stack, Sigma_XX, Theta_stack, epsilon, 20000, np.random.default_rng(1), confidence=0.99
    )
    assert mc.low <= stream_leakage_probability(Sigma_XX, J, epsilon) <= mc.high
    assert stream_leakage_probability(Sigma_XX, J, epsilon) == pytest.approx(0.8, abs=1e-9)


def test_per_measurement_designs_compose_over_a_pass():
    """Each release is designed for (epsilon, delta) alone; the pass reaches a larger
    epsilon, growing with the number of releases."""
    Sigma_XX, C, _ = random_stream(3, N=8, m=2)
    Theta = np.array([linear_mechanism_noise(c, Sigma_XX, 6.0, DELTA) for c in C])
    single = [
        stream_leakage(Sigma_XX, stream_information(C[k : k + 1], Theta[k : k + 1]), DELTA)
        for k in range(8)
    ]
    assert all(s.epsilon <= 6.0 + 1e-9 for s in single)
    reached = [
        stream_leakage(Sigma_XX, stream_information(C[:k], Theta[:k]), DELTA).epsilon
        for k in range(1, 9)
    ]
    assert np.all(np.diff(reached) > 0) and reached[-1] > 6.0
    assert reached[0] == pytest.approx(single[0].epsilon)


@pytest.mark.parametrize("with_sensor", [False, True])
def test_the_scaled_design_meets_the_stream_budget_exactly(with_sensor):
    """With noises R_k + c Theta_k the stream's achieved epsilon equals the budget; 0.999 c
    leaks more than the budget (c is the least such factor)."""
    Sigma_XX, C, Theta = random_stream(5, N=6)
    R = np.array([0.05 * np.eye(3)] * 6) if with_sensor else np.zeros_like(Theta)
    budget = 12.0
    c = stream_noise_scale(Sigma_XX, C, Theta, budget, DELTA, R=R if with_sensor else None)
    reached = stream_leakage(Sigma_XX, stream_information(C, R + c * Theta), DELTA).epsilon
    assert reached == pytest.approx(budget, abs=1e-8)
    below = stream_leakage(Sigma_XX, stream_information(C, R + 0.999 * c * Theta), DELTA).epsilon
    assert below > budget
    C_stack, Theta_stack = stacked(C, R + c * Theta)
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(C_stack, Sigma_XX, Theta_stack)
    assert pml_margin(Sigma_XX, Sigma_XY, Sigma_YY, budget, DELTA) == pytest.approx(0.0, abs=1e-8)


def test_bad_streams_are_named():
    Sigma_XX, C, Theta = random_stream(0)
    broken = Theta.copy()
    broken[2] = -np.eye(3)
    with pytest.raises(ValueError, match=r"Theta\[2\] is not positive definite"):
        stream_information(C, broken)
    skew = Theta.copy()
    skew[1, 0, 1] += 1.0
    with pytest.raises(ValueError, match=r"Theta\[1\] is not symmetric"):
        stream_information(C, skew)
    with pytest.raises(ValueError, match="shape"):
        stream_information(C, Theta[:, :2, :2])
    with pytest.raises(ValueError, match="at least one"):
        stream_information(C[:0], Theta[:0])
    with pytest.raises(ValueError, match="epsilon must exceed"):
        stream_noise_scale(Sigma_XX, C, Theta, 5.0, DELTA)  # below F^-1_{chi2_5}(0.99)/2 = 7.5


@pytest.mark.parametrize("N", [2, 12, 40])
def test_the_stream_logdet_design_meets_the_budget_with_less_noise_than_scaling(N):
    """Theta = Q Theta_r Q^T (C = Q R): the release y = C x0 + Q w reveals exactly z = R x0
    + w, whose PML (dense route) equals the budget; Theta is PSD of rank <= n, and its
    trace is at most that of the per-measurement designs scaled to the same budget (the
    log-det design is optimal over all noises of the stack)."""
    Sigma_XX, C, _ = random_stream(11, N=N, m=4, n=6)
    per_measurement = np.array([linear_mechanism_noise(c, Sigma_XX, 7.0, DELTA) for c in C])
    budget = 12.0
    noise = stream_logdet_noise(Sigma_XX, C, budget, DELTA)
    assert noise.eigenvectors.shape[0] == 4 * N and noise.rank <= 6
    assert np.all(noise.eigenvalues > 0)
    Q, R = np.linalg.qr(C.reshape(-1, 6))
    Sigma_XZ, Sigma_ZZ = linear_mechanism_covariances(R, Sigma_XX, Q.T @ noise.matrix() @ Q)
    assert pml_margin(Sigma_XX, Sigma_XZ, Sigma_ZZ, budget, DELTA) == pytest.approx(0.0, abs=1e-7)
    c = stream_noise_scale(Sigma_XX, C, per_measurement, budget, DELTA)
    assert noise.trace <= c * np.trace(per_measurement, axis1=1, axis2=2).sum()


def test_the_stream_logdet_design_needs_a_stream_that_sees_all_of_x0():
    Sigma_XX, C, _ = random_stream(2, N=1, m=3, n=5)
    with pytest.raises(ValueError, match="rank 3 < 5"):
        stream_logdet_noise(Sigma_XX, C, 12.0, DELTA)
