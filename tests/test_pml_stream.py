"""Whole-stream PML accounting and stream-level noise designs (issue 12, items 1-2).

The reference everywhere is the dense stacked mechanism ``Y = C X + V`` with block-diagonal
noise, evaluated by the package's own closed forms ([LKC] Theorem 3.3 through
``pml_margin`` and ``leakage_probability``), independently of the information form.
"""

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.pml.cone_design import logdet_mechanism_noise
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism, linear_mechanism_noise
from ssa_privacy.privacy.pml.leakage import (
    kappa,
    leakage_probability,
    linear_mechanism_covariances,
    monte_carlo_leakage_probability,
    pml_margin,
)
from ssa_privacy.privacy.pml.stream import (
    ReleaseStream,
    stream_certificate,
    stream_information,
    stream_leakage,
    stream_leakage_probability,
)
from ssa_privacy.privacy.pml.stream_design import (
    design_stream_noise,
    information_limited_noise,
    stream_logdet_design,
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


def dense_margin(Sigma_XX, blocks, epsilon, delta=DELTA, convention="exact"):
    """pml_margin of the dense stack of (C_k, Theta_k) blocks (any m_k)."""
    C = np.vstack([c for c, _ in blocks])
    Theta = linalg.block_diag(*[t for _, t in blocks])
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(C, Sigma_XX, Theta)
    return pml_margin(Sigma_XX, Sigma_XY, Sigma_YY, epsilon, delta, convention)


def dense_epsilon(Sigma_XX, C, Theta, delta=DELTA, convention="exact"):
    """The achieved epsilon of the dense stack (implied_epsilon of the ssa-network study)."""
    return -dense_margin(Sigma_XX, list(zip(C, Theta)), 0.0, delta, convention)


@pytest.mark.parametrize("seed", range(4))
def test_the_information_form_is_the_stacked_mechanism(seed):
    """Achieved epsilon and P[l <= epsilon] from the square-root information (and from J)
    equal those of the dense stacked covariances, in both conventions, for blocks of
    different sizes."""
    Sigma_XX, C, Theta = random_stream(seed)
    _, C2, Theta2 = random_stream(seed + 100, N=3, m=2)
    stream = ReleaseStream.of(C, Theta).add(C2, Theta2)
    assert (stream.releases, stream.rows) == (7, 18)
    blocks = list(zip(C, Theta)) + list(zip(C2, Theta2))
    C_stack, Theta_stack = np.vstack(C.tolist() + C2.tolist()), linalg.block_diag(*Theta, *Theta2)
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(C_stack, Sigma_XX, Theta_stack)
    J = stream_information(C, Theta) + stream_information(C2, Theta2)
    for convention in ("exact", "paper"):
        leak = stream_leakage(Sigma_XX, stream, DELTA, convention)
        dense = -dense_margin(Sigma_XX, blocks, 0.0, convention=convention)
        assert leak.rank == 5
        assert leak.epsilon == pytest.approx(dense, rel=1e-10)
        assert stream_leakage(Sigma_XX, J, DELTA, convention).epsilon == pytest.approx(
            dense, rel=1e-10
        )
        for epsilon in (0.8 * leak.epsilon, leak.epsilon, 1.2 * leak.epsilon):
            expected = leakage_probability(Sigma_XX, Sigma_XY, Sigma_YY, epsilon, convention)
            assert stream_leakage_probability(
                Sigma_XX, stream, epsilon, convention
            ) == pytest.approx(expected, abs=1e-12)


def test_a_measurement_that_sees_part_of_x0_counts_only_its_rows():
    """One 4-row measurement of a 6-dim x0: l = 4 in the square-root form, from J and in the
    dense route (the unseen directions are round-off, not leakage)."""
    Sigma_XX, C, Theta = random_stream(3, N=1, m=4, n=6)
    dense = dense_epsilon(Sigma_XX, C, Theta)
    for information in (ReleaseStream.of(C, Theta), stream_information(C, Theta)):
        leak = stream_leakage(Sigma_XX, information, DELTA)
        assert leak.rank == 4 and leak.epsilon == pytest.approx(dense, rel=1e-10)


def test_composing_streams_equals_accumulating_all_blocks():
    """Passes composed into a day (in any order, by compose or +) are the stream of all
    blocks, and the accountant's epsilon is the stream's leakage."""
    Sigma_XX, C, Theta = random_stream(5, N=12, m=4, n=6)
    passes = [ReleaseStream.of(C[k : k + 4], Theta[k : k + 4]) for k in (0, 4, 8)]
    day = passes[2].compose(passes[0], passes[1])
    assert day.epsilon(Sigma_XX, DELTA) == stream_leakage(Sigma_XX, day, DELTA).epsilon
    assert day.epsilon(Sigma_XX, DELTA, "paper") == (
        stream_leakage(Sigma_XX, day, DELTA, "paper").epsilon
    )
    whole = ReleaseStream.of(C, Theta)
    assert (day.releases, day.rows) == (12, 48)
    np.testing.assert_allclose(day.information, whole.information, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        (passes[0] + passes[1] + passes[2]).information, whole.information, rtol=1e-12, atol=1e-12
    )
    assert stream_leakage(Sigma_XX, day, DELTA).epsilon == pytest.approx(
        stream_leakage(Sigma_XX, whole, DELTA).epsilon, rel=1e-12
    )
    one_by_one = ReleaseStream.empty(6)
    for c, t in zip(C, Theta):
        one_by_one = one_by_one.add(c, t)
    np.testing.assert_allclose(one_by_one.information, whole.information, rtol=1e-12, atol=1e-12)


def test_merge_is_the_deprecated_name_of_compose():
    Sigma_XX, C, Theta = random_stream(5, N=8, m=4, n=6)
    first, second = ReleaseStream.of(C[:4], Theta[:4]), ReleaseStream.of(C[4:], Theta[4:])
    with pytest.warns(
        DeprecationWarning, match=r"ReleaseStream.merge .* use ReleaseStream.compose"
    ):
        merged = first.merge(second)
    np.testing.assert_array_equal(merged.factor, first.compose(second).factor)


def test_factored_and_broadcast_noises_give_the_same_stream():
    Sigma_XX, C, Theta = random_stream(6)
    dense = ReleaseStream.of(C, Theta).information
    factored = [FactoredCovariance.from_matrix(t) for t in Theta]
    np.testing.assert_allclose(ReleaseStream.of(C, factored).information, dense, rtol=1e-10)
    shared = ReleaseStream.of(C, Theta[0]).information
    np.testing.assert_allclose(shared, ReleaseStream.of(C, np.array([Theta[0]] * 4)).information)


def test_monte_carlo_leakage_of_a_stream_agrees_with_the_closed_form():
    """20,000 draws of the dense stacked release: the 99% Clopper-Pearson interval of
    P[l(X -> Y) <= epsilon] contains the information-form value (a false alarm has
    probability 1%; the seed is fixed)."""
    Sigma_XX, C, Theta = random_stream(7, N=3)
    stream = ReleaseStream.of(C, Theta)
    epsilon = stream_leakage(Sigma_XX, stream, 0.2).epsilon  # where P = 0.8: a sharp test
    analytic = stream_leakage_probability(Sigma_XX, stream, epsilon)
    assert analytic == pytest.approx(0.8, abs=1e-9)
    mc = monte_carlo_leakage_probability(
        np.vstack(C), Sigma_XX, linalg.block_diag(*Theta), epsilon, 20000,
        np.random.default_rng(1), confidence=0.99,
    )  # fmt: skip
    assert mc.low <= analytic <= mc.high


@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_identical_per_measurement_designs_compose_as_the_theory_says(convention):
    """N copies of one rank-l measurement, each with the Corollary 3.7 noise for epsilon_1:
    every canonical eigenvalue is N (1 - kappa) / kappa, so the stream reaches
    ``w l log(1 + N (1 - kappa) / kappa) / 2 + F^{-1}_{chi2_l}(1 - delta) / 2``, increasing
    in N, from below epsilon_1 at N = 1 (kappa spreads over n > l directions)."""
    Sigma_XX, C, _ = random_stream(8, N=1, m=4, n=6)
    Theta = linear_mechanism_noise(C[0], Sigma_XX, 9.0, DELTA, convention)
    k, w = kappa(9.0, DELTA, 6, 4, convention), {"exact": 1.0, "paper": 2.0}[convention]
    reached = []
    for N in (1, 2, 5, 20, 100):
        leak = stream_leakage(
            Sigma_XX, ReleaseStream.of(np.repeat(C, N, 0), Theta), DELTA, convention
        )
        expected = w * 2.0 * np.log1p(N * (1 - k) / k) + minimum_epsilon(DELTA, 4)
        assert leak.rank == 4 and leak.epsilon == pytest.approx(expected, rel=1e-10)
        reached.append(leak.epsilon)
    assert np.all(np.diff(reached) > 0) and reached[0] <= 9.0 + 1e-9 < reached[-1]


def test_a_pass_of_per_measurement_designs_reaches_more_than_each_measurement():
    """Different maps: the pass's epsilon grows with each release, exceeds every single
    release's, and once the pass sees all of x0 it is at least F^{-1}_{chi2_n}(1-delta)/2."""
    Sigma_XX, C, _ = random_stream(3, N=8, m=2, n=6)
    Theta = np.array([linear_mechanism_noise(c, Sigma_XX, 6.0, DELTA) for c in C])
    single = [
        stream_leakage(Sigma_XX, ReleaseStream.of(c, t), DELTA).epsilon for c, t in zip(C, Theta)
    ]
    reached = [
        stream_leakage(Sigma_XX, ReleaseStream.of(C[:k], Theta[:k]), DELTA) for k in range(1, 9)
    ]
    assert max(single) <= 6.0 + 1e-9
    assert np.all(np.diff([r.epsilon for r in reached]) > 0)
    assert all(r.epsilon >= max(single[: k + 1]) for k, r in enumerate(reached))
    assert reached[-1].rank == 6 and reached[-1].epsilon > minimum_epsilon(DELTA, 6) > 6.0


@pytest.mark.parametrize("with_sensor", [False, True])
def test_the_scaled_design_meets_the_stream_budget_exactly(with_sensor):
    """With noises R_k + c Theta_k the stream's achieved epsilon is the budget (to 1e-8
    relative, dense route), its certificate passes, and 0.999999 c misses the budget."""
    Sigma_XX, C, Theta = random_stream(5, N=6)
    R = np.array([0.05 * np.eye(3)] * 6) if with_sensor else None
    seen = np.zeros_like(Theta) if R is None else R
    budget = 12.0
    design = design_stream_noise(Sigma_XX, C, Theta, budget, DELTA, R=R)
    assert design.certificate.passed and design.certificate.notion == "pml"
    assert 0.0 <= design.margin <= 1e-9
    assert design.leakage.epsilon == pytest.approx(budget, rel=1e-8)
    assert dense_epsilon(Sigma_XX, C, seen + design.noise) == pytest.approx(budget, rel=1e-8)
    assert dense_epsilon(Sigma_XX, C, seen + 0.999999 * design.noise) > budget
    assert design.scale == pytest.approx(
        stream_noise_scale(Sigma_XX, C, Theta, budget, DELTA, R), rel=1e-9
    )
    if with_sensor:  # the sensor noise does part of the work
        assert design.scale < stream_noise_scale(Sigma_XX, C, Theta, budget, DELTA)


def test_sensor_noise_that_meets_the_budget_alone_needs_no_privacy_noise():
    Sigma_XX, C, Theta = random_stream(5, N=6)
    R = np.array([1e4 * np.eye(3)] * 6)
    design = design_stream_noise(Sigma_XX, C, Theta, 12.0, DELTA, R=R)
    assert design.scale == 0.0 and not np.any(design.noise) and design.certificate.passed


def test_the_stream_certificate_is_that_of_the_dense_stack():
    Sigma_XX, C, Theta = random_stream(9, N=3)
    dense = LinearGaussianMechanism(np.vstack(C), Sigma_XX, linalg.block_diag(*Theta), 30.0, DELTA)
    certificate = stream_certificate(Sigma_XX, ReleaseStream.of(C, Theta), 30.0, DELTA)
    assert certificate.margin == pytest.approx(dense.certificate().margin, rel=1e-10)
    assert certificate.passed == dense.certificate().passed
    assert certificate.evidence["releases"] == 3 and certificate.evidence["rows"] == 9


def test_the_logdet_design_equals_the_direct_one_on_short_stacks():
    """Up to n rows the direct log-det design of the stack solves; the design on the
    sufficient statistic finds the same optimum (also for a stack of rank < n)."""
    Sigma_XX, C, _ = random_stream(10, N=1, m=4, n=6)
    direct = logdet_mechanism_noise(
        Sigma_XX, Sigma_XX @ C[0].T, C[0] @ Sigma_XX @ C[0].T, 12.0, DELTA
    )
    design = stream_logdet_design(Sigma_XX, C, 12.0, DELTA)
    assert design.noise.trace == pytest.approx(np.trace(direct), rel=1e-5)
    assert design.certificate.passed and design.achieved_epsilon <= 12.0


@pytest.mark.parametrize("N", [2, 12, 40])
def test_the_stream_logdet_design_meets_the_budget_with_less_noise_than_scaling(N):
    """Theta = Q Theta_r Q^T: the release y = C x0 + Q w reveals exactly z = Q^T y = R x0 + w,
    whose PML (dense route) is the budget; Theta has rank <= n, and its trace is at most
    that of the per-measurement designs scaled to the same budget."""
    Sigma_XX, C, _ = random_stream(11, N=N, m=4, n=6)
    per_measurement = np.array([linear_mechanism_noise(c, Sigma_XX, 7.0, DELTA) for c in C])
    design = stream_logdet_design(Sigma_XX, C, 12.0, DELTA)
    noise, Q = design.noise, design.basis
    assert noise.dim == 4 * N and noise.rank <= 6 and np.all(noise.eigenvalues > 0)
    np.testing.assert_allclose(Q @ (Q.T @ np.vstack(C)), np.vstack(C), atol=1e-10)
    Sigma_XZ, Sigma_ZZ = linear_mechanism_covariances(
        Q.T @ np.vstack(C), Sigma_XX, Q.T @ noise.matrix() @ Q
    )
    assert pml_margin(Sigma_XX, Sigma_XZ, Sigma_ZZ, 12.0, DELTA) == pytest.approx(0.0, abs=1e-6)
    assert design.certificate.passed
    c = stream_noise_scale(Sigma_XX, C, per_measurement, 12.0, DELTA)
    assert noise.trace <= c * np.trace(per_measurement, axis1=1, axis2=2).sum()


def test_bad_streams_are_named():
    Sigma_XX, C, Theta = random_stream(0)
    broken = Theta.copy()
    broken[2] = -np.eye(3)
    with pytest.raises(ValueError, match=r"Theta is not positive definite \(matrix 2"):
        ReleaseStream.of(C, broken)
    skew = Theta.copy()
    skew[1, 0, 1] += 1.0
    with pytest.raises(ValueError, match=r"Theta is not symmetric \(matrix 1"):
        ReleaseStream.of(C, skew)
    with pytest.raises(ValueError, match=r"Theta must have shape"):
        ReleaseStream.of(C, Theta[:2])
    with pytest.raises(ValueError, match=r"Theta is not positive definite \(matrix 1"):
        ReleaseStream.of(
            C[:2],
            [
                FactoredCovariance.from_matrix(Theta[0]),
                FactoredCovariance.from_matrix(np.diag([1.0, 1.0, 0.0])),
            ],
        )
    with pytest.raises(ValueError, match="Theta must hold 3x3 covariances"):
        ReleaseStream.of(C[0], FactoredCovariance.scaled_identity(1.0, 2))
    with pytest.raises(ValueError, match=r"C must have shape \(m, 5\) or \(N, m, 5\)"):
        ReleaseStream.empty(5).add(C[:, :, :4], Theta)
    with pytest.raises(ValueError, match="C must have shape"):
        ReleaseStream.of(C[:0], Theta[:0])
    with pytest.raises(ValueError, match="same 5-dim x0"):
        ReleaseStream.empty(5) + ReleaseStream.empty(4)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        ReleaseStream.empty(0)
    stream = ReleaseStream.of(C, Theta)
    with pytest.raises(ValueError, match="Sigma_XX is not positive definite"):
        stream_leakage(-Sigma_XX, stream, DELTA)
    with pytest.raises(ValueError, match="delta must lie in the open interval"):
        stream_leakage(Sigma_XX, stream, 1.0)
    with pytest.raises(TypeError, match="stream must be a ReleaseStream"):
        stream_certificate(Sigma_XX, stream.information, 12.0, DELTA)
    with pytest.raises(ValueError, match=r"R is not positive definite \(matrix 0"):
        stream_noise_scale(Sigma_XX, C, Theta, 12.0, DELTA, R=np.zeros_like(Theta))
    floor = stats.chi2.isf(DELTA, 5) / 2  # 7.54 nats: no noise brings a 5-dim stream below it
    with pytest.raises(ValueError, match=f"epsilon must exceed {floor:.6g}"):
        stream_noise_scale(Sigma_XX, C, Theta, 7.5, DELTA)
    with pytest.raises(ValueError, match="C is zero"):
        stream_logdet_design(Sigma_XX, np.zeros_like(C), 12.0, DELTA)


def test_information_limited_noise_meets_its_budget_with_the_least_trace():
    """The closed form spends exactly the budget, and no Theta found by Clarabel for the
    same constraint (the log-det design of the r-row mechanism z = x + w) has less trace."""
    rng = np.random.default_rng(12)
    A = rng.standard_normal((4, 4))
    Sigma_ZZ = A @ A.T + 0.1 * np.eye(4)
    noise = information_limited_noise(Sigma_ZZ, 1.5)
    Theta = noise.matrix()
    spent = 0.5 * (np.linalg.slogdet(Sigma_ZZ + Theta)[1] - np.linalg.slogdet(Theta)[1])
    assert spent == pytest.approx(1.5, abs=1e-12)  # to the round-off of two slogdets
    floor = float(minimum_epsilon(DELTA, 4))
    direct = logdet_mechanism_noise(Sigma_ZZ, Sigma_ZZ, Sigma_ZZ, floor + 1.5, DELTA)
    assert noise.trace <= np.trace(direct) * (1 + 1e-6)
    assert noise.trace == pytest.approx(np.trace(direct), rel=1e-5)


@pytest.mark.parametrize(
    ("Sigma_ZZ", "information", "message"),
    [
        (np.diag([1.0, 0.0]), 1.0, "Sigma_ZZ must be positive definite"),
        (np.eye(2), 0.0, r"information must lie in \(0, 73.4"),
        (np.eye(2), 1e3, r"information must lie in \(0, 73.4"),
        (np.eye(2), np.nan, "information"),
        (np.array([[1.0, 0.5], [0.0, 1.0]]), 1.0, "Sigma_ZZ"),
    ],
)
def test_information_limited_noise_names_bad_input(Sigma_ZZ, information, message):
    with pytest.raises(ValueError, match=message):
        information_limited_noise(Sigma_ZZ, information)
