"""The day budget across stations (``privacy.pml.day_design.DayMechanism``).

The reference is the dense day mechanism ``y = A x0 + v``: A the stacked maps of all the
day's passes, each row divided by its sensor noise standard deviation, v ~ N(0, Theta)
with Theta block diagonal over the passes. Independent passes add their Fisher
information, and each pass's is computed here densely, without the information form:

- a noise of full rank on the pass: ``J_p = A_p^T Theta_p^{-1} A_p`` (Cholesky solve);
- a noise of low rank inside range(A_p) (log-det designs): with Q an orthonormal basis of
  range(A_p) (our own QR), ``Q^T y_p`` loses nothing and ``J_p = (Q^T A_p)^T (Q^T Theta_p
  Q)^{-1} (Q^T A_p)``.

Then ``I = log det(I + L^T J L) / 2`` and the achieved epsilon is ``w I +
F^{-1}_{chi^2_l}(1 - delta) / 2`` with l = rank(A) ([LKC] Theorem 3.3, (8)). The optimum of
the "trace" designer is checked against an independent Clarabel solve of the same convex
problem and by feasible perturbations of each block.
"""

import cvxpy as cp
import numpy as np
import pytest
from scipy import linalg, optimize, stats

from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.privacy.mechanism import Mechanism, Release
from ssa_privacy.privacy.pml.day_design import DAY_DESIGNERS, DayMechanism
from ssa_privacy.privacy.pml.day_noise import BlockDiagonalCovariance, day_logdet_noise
from ssa_privacy.privacy.pml.stream_design import information_limited_noise
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import Pass, object_stream

DELTA = 0.01
WEIGHT = {"exact": 1.0, "paper": 2.0}
#: Radar sensor noise: 0.01 deg, 0.01 deg, 20 m, 0.1 m/s (rad, rad, km, km/s).
RADAR_STD = np.array([np.radians(0.01), np.radians(0.01), 0.02, 1e-4])


@pytest.fixture(scope="module")
def iss_day():
    """Half a day of the ISS over the eight radars: about 15 passes of 4 to 17 samples."""
    element_set = iss_element_set()
    times = np.arange(0.0, 12 * 3600.0 + 1e-9, 30.0)
    state0 = element_set.state_at_epoch()
    earth = EarthRotation(element_set.gmst_epoch)
    _, _, found = object_stream(state0, times, radar_network(), earth, J2Propagator())
    return found, manoeuvre_prior(state0, 2.0 * np.pi / element_set.period)


def synthetic_day(seed, ranks, K=3):
    """Passes with random maps of the given ranks (0: a zero pass), radar noise, and a prior
    of the manoeuvre scale (0.5-1.2 km, 1 m/s)."""
    rng = np.random.default_rng(seed)
    found = []
    for i, rank in enumerate(ranks):
        whitened = rng.standard_normal((K * 4, rank)) @ rng.standard_normal((rank, 6))
        C = whitened.reshape(K, 4, 6) * RADAR_STD[:, None] * np.array([1, 1, 1, 1e3, 1e3, 1e3])
        found.append(Pass(i % 3, np.arange(K) + 10 * i, C, np.diag(RADAR_STD**2)))
    G = rng.standard_normal((6, 6))
    Sigma_XX = np.diag([0.8, 1.0, 0.6, 1e-3, 1e-3, 1e-3]) ** 2 + 1e-8 * (G @ G.T)
    return found, Sigma_XX


def whitened(item, Theta):
    """Stacked rows A_p (K m, 6) and Theta_p in units of each row's sensor noise."""
    sigma = np.tile(np.sqrt(np.diag(item.R)), len(item.C))
    return item.C.reshape(-1, 6) / sigma[:, None], Theta / np.outer(sigma, sigma)


def range_basis(A):
    """Q (K m, r): an orthonormal basis of range(A) by column-pivoted QR, and r."""
    Q, R, _ = linalg.qr(A, mode="economic", pivoting=True)
    r = int(np.sum(np.abs(np.diag(R)) > 1e-10 * abs(R[0, 0]))) if A.any() else 0
    return Q[:, :r], r


def pass_information(A, Theta):
    """The Fisher information about x0 of one pass, densely (module docstring)."""
    if not A.any():
        return np.zeros((6, 6))
    if np.linalg.matrix_rank(Theta) == len(Theta):
        W = linalg.solve_triangular(np.linalg.cholesky(Theta), A, lower=True)
        return W.T @ W
    Q, _ = range_basis(A)
    assert np.abs(Theta - Q @ (Q.T @ Theta @ Q) @ Q.T).max() <= 1e-9 * np.abs(Theta).max()
    Az = Q.T @ A
    return Az.T @ np.linalg.solve(Q.T @ Theta @ Q, Az)


def dense_day(found, Sigma_XX, Thetas, convention="exact"):
    """Achieved day epsilon, information, l and whitened trace of given pass noises."""
    L = np.linalg.cholesky(Sigma_XX)
    J, trace, rows = np.zeros((6, 6)), 0.0, []
    for item, Theta in zip(found, Thetas, strict=True):
        A, T = whitened(item, Theta)
        J += pass_information(A, T)
        trace += np.trace(T)
        rows.append(A)
    s = linalg.svdvals(np.vstack(rows) @ L)
    rank = int(np.sum(s > 1e-8 * s[0]))
    information = 0.5 * np.linalg.slogdet(np.eye(6) + L.T @ J @ L)[1]
    epsilon = WEIGHT[convention] * information + stats.chi2.ppf(1 - DELTA, rank) / 2
    return epsilon, information, rank, trace


def pass_noises(mechanism):
    """The passes' noise covariances F_p F_p^T (release units squared)."""
    return [p.factor @ p.factor.T for p in mechanism.passes]


@pytest.mark.parametrize("designer", DAY_DESIGNERS)
@pytest.mark.parametrize("budget, convention", [(10.0, "exact"), (16.0, "exact"), (30.0, "paper")])
def test_each_designer_meets_the_day_budget_exactly(iss_day, designer, budget, convention):
    """Recomputed densely, the day's epsilon is at most the budget and within 1e-9 nats of
    it; the day certificate and every pass's own certificate pass; the passes' epsilons are
    their own achieved leakages; the trace is that of the dense whitened noise."""
    found, Sigma_XX = iss_day
    assert 10 <= len(found) <= 25
    day = DayMechanism.design(
        found, Sigma_XX, budget, DELTA, designer=designer, convention=convention
    )
    achieved, _, rank, trace = dense_day(found, Sigma_XX, pass_noises(day), convention)
    assert rank == 6 and day.leakage.rank == 6
    assert budget - 1e-9 <= achieved <= budget + 1e-12  # dense round-off about 1e-13
    assert budget - 1e-9 <= day.leakage.epsilon <= budget
    assert day.certificate().passed and day.certificate().margin >= 0.0
    assert day.trace == pytest.approx(trace, rel=1e-10)
    designer = day.candidate  # "day" is the "trace" or the "pass" design
    assert designer in (DAY_DESIGNERS if day.designer != "day" else ("trace", "pass"))
    for item, member in zip(found, day.passes, strict=True):
        assert member.certificate().passed and member.designer in (designer, "logdet")
        A, T = whitened(item, member.Theta)
        own = dense_day([item], Sigma_XX, [member.Theta], convention)[0]
        assert member.leakage.epsilon == pytest.approx(own, abs=1e-8)
        assert own <= member.epsilon <= own + 2e-9 or designer == "pass"
    if designer == "pass":  # one common pass budget t, met by every pass
        budgets = {member.epsilon for member in day.passes}
        assert len(budgets) == 1
        assert all(m.leakage.epsilon == pytest.approx(m.epsilon, abs=1e-9) for m in day.passes)


@pytest.mark.parametrize("designer", DAY_DESIGNERS)
def test_the_day_noise_is_block_diagonal_and_released_pass_by_pass(iss_day, designer):
    """The release's noise covariance is the block diagonal of the passes' noises (zero
    across passes, memory O(M n)); the day release equals the passes released in turn from
    one generator, and its noise is the passes' factors times disjoint normals."""
    found, Sigma_XX = iss_day
    found = found[:6]
    day = DayMechanism.design(found, Sigma_XX, 14.0, DELTA, designer=designer)
    assert isinstance(day, Mechanism)
    noise = day.noise_covariance
    assert isinstance(noise, BlockDiagonalCovariance)
    M = sum(p.C.shape[0] * p.C.shape[1] for p in found)
    assert noise.dim == M and noise.eigenvectors.nnz <= 6 * M
    sigma = np.concatenate([np.tile(np.sqrt(np.diag(p.R)), len(p.C)) for p in found])
    dense = noise.matrix() / np.outer(sigma, sigma)  # in units of the sensor noise
    blocks = linalg.block_diag(*pass_noises(day)) / np.outer(sigma, sigma)
    assert np.abs(dense - blocks).max() <= 1e-10 * np.abs(blocks).max()
    data = [np.random.default_rng(i).standard_normal(p.C.shape[:2]) for i, p in enumerate(found)]
    release = day.release(data, seed=11)
    assert isinstance(release, Release) and release.certificate is day.certificate()
    rng = np.random.default_rng(11)
    parts = [m.release(y, seed=rng).values.reshape(-1) for m, y in zip(day.passes, data)]
    assert np.array_equal(release.values, np.concatenate(parts))
    rng = np.random.default_rng(11)
    expected = []
    for m, y in zip(day.passes, data, strict=True):
        normals = rng.standard_normal(y.size)
        expected.append(y.reshape(-1) + m.factor @ normals[: m.factor.shape[1]])
    assert np.array_equal(release.values, np.concatenate(expected))
    audit = day.with_noise([m.noise_covariance for m in day.passes])  # an audit
    assert audit.designer == "given" and audit.certificate().passed
    assert audit.leakage.epsilon == pytest.approx(day.leakage.epsilon, abs=1e-8)


def test_the_release_noise_has_the_designed_covariance(iss_day):
    """Monte Carlo (4000 day releases of two passes): the sample covariance of the released
    noise, whitened by the designed one on its range, is the identity (each entry within
    5 standard errors, 1/sqrt(4000)), and the cross-pass block is zero likewise."""
    found, Sigma_XX = iss_day
    day = DayMechanism.design(found[:2], Sigma_XX, 12.0, DELTA, designer="trace")
    data = [np.zeros(p.C.shape[:2]) for p in found[:2]]
    rng = np.random.default_rng(5)
    draws = np.array([day.release(data, seed=rng).values for _ in range(4000)])
    noise = day.noise_covariance
    vectors = noise.eigenvectors.toarray()
    z = (draws @ vectors) / np.sqrt(noise.eigenvalues)
    sample = z.T @ z / len(z)
    assert np.abs(sample - np.eye(len(sample))).max() < 5.0 / np.sqrt(len(z)) * 1.5
    r0 = day.passes[0].factor.shape[1]
    assert np.abs(sample[:r0, r0:]).max() < 5.0 / np.sqrt(len(z))


def test_the_day_design_spends_the_least_noise(iss_day):
    """At the same day leakage (all three exact to 1e-9 nats), the "trace" design's total
    trace (rows in units of their sensor noise) is at most the "pass" and "measurement"
    designs'."""
    found, Sigma_XX = iss_day
    for budget in (10.0, 16.0):
        traces = {}
        for designer in DAY_DESIGNERS:
            day = DayMechanism.design(found, Sigma_XX, budget, DELTA, designer=designer)
            traces[designer] = dense_day(found, Sigma_XX, pass_noises(day))[3]
        assert traces["trace"] <= traces["pass"] * (1 + 1e-9)
        assert traces["trace"] <= traces["measurement"] * (1 + 1e-9)


def test_the_day_design_leaves_the_least_predicted_error(iss_day):
    """The "day" design's posterior covariance of x0, recomputed densely from its pass
    noises, has the least ``tr(W P)`` of the "trace" and "pass" designs, for the default
    metric and for the squared position error half a day later."""
    found, Sigma_XX = iss_day
    propagator = J2Propagator()
    state = np.array([6778.0, 0.0, 0.0, 0.0, 4.8, 5.98])
    Phi = propagator.transition_matrices(np.array([0.0, 43200.0]), state[None])[0, -1]
    position = Phi[:3].T @ Phi[:3]
    for weight in (None, position):
        W = np.linalg.inv(Sigma_XX) if weight is None else weight
        errors = {}
        for designer in ("day", "trace", "pass"):
            day = DayMechanism.design(
                found, Sigma_XX, 12.0, DELTA, designer=designer, weight=weight
            )
            J = np.zeros((6, 6))
            for item, Theta in zip(found, pass_noises(day)):
                scale = np.tile(np.sqrt(np.diag(item.R)), len(item.C))
                C = item.C.reshape(-1, 6) / scale[:, None]
                inverse = np.linalg.pinv(Theta / np.outer(scale, scale), rcond=1e-9, hermitian=True)
                J += C.T @ inverse @ C
            P = np.linalg.inv(np.linalg.inv(Sigma_XX) + J)
            errors[designer] = np.trace(W @ P)
            assert day.predicted_error(weight) == pytest.approx(errors[designer], rel=1e-6)
        assert errors["day"] <= min(errors["trace"], errors["pass"]) * (1 + 1e-9)


@pytest.mark.parametrize("preferred", [0, 1])
def test_a_user_score_chooses_the_day_design(iss_day, preferred):
    """With a ``score``, the "day" designer keeps the candidate of the lower score: the
    trace design, then the pass design, each reported as its ``candidate``."""
    found, Sigma_XX = iss_day
    seen = []

    def score(candidates):
        seen.append([m.designer for m in candidates])
        return [0.0 if c == preferred else 1.0 for c in range(len(candidates))]

    day = DayMechanism.design(found, Sigma_XX, 12.0, DELTA, designer="day", score=score)
    assert seen == [["trace", "pass"]]
    assert day.designer == "day" and day.candidate == seen[0][preferred]


@pytest.mark.parametrize("scores", [[0.0], [0.0, np.nan], "ab"])
def test_a_score_of_the_wrong_shape_or_not_finite_is_refused(iss_day, scores):
    found, Sigma_XX = iss_day
    with pytest.raises((ValueError, TypeError), match="score"):
        DayMechanism.design(found, Sigma_XX, 12.0, DELTA, score=lambda candidates: scores)


def sufficient_maps(found, Sigma_XX):
    """Per seeing pass: Q_p (our own range basis) and ``B_p = Q_p^T A_p L`` (r_p, 6)."""
    L = np.linalg.cholesky(Sigma_XX)
    out = []
    for item in found:
        A, _ = whitened(item, np.eye(item.C.shape[0] * item.C.shape[1]))
        Q, r = range_basis(A)
        if r:
            out.append((Q, Q.T @ A @ L))
    return out


def cvxpy_day_trace(maps, information):
    """min sum tr T_p s.t. log det Y >= -2 I, [[B B^T + blkdiag(T), B], [B^T, I - Y]] >= 0."""
    T = [cp.Variable((len(B), len(B)), PSD=True) for B in maps]
    Y = cp.Variable((6, 6), symmetric=True)
    B = np.vstack(maps)
    Tz = cp.bmat(
        [
            [T[p] if p == q else np.zeros((len(maps[p]), len(maps[q]))) for q in range(len(maps))]
            for p in range(len(maps))
        ]
    )
    lmi = cp.bmat([[B @ B.T + Tz, B], [B.T, np.eye(6) - Y]])
    constraints = [0.5 * (lmi + lmi.T) >> 0, cp.log_det(Y) >= -2.0 * information]
    problem = cp.Problem(cp.Minimize(sum(cp.trace(t) for t in T)), constraints)
    problem.solve(solver="CLARABEL")
    assert problem.status == cp.OPTIMAL
    return problem.value


def test_the_day_optimum_matches_clarabel():
    """Three passes whose sufficient statistics have 2, 3 and 2 dimensions: the "trace"
    design's total trace equals the Clarabel optimum of the Schur-complement form of the
    convex problem to 1e-5 relative (the solver's accuracy)."""
    found, Sigma_XX = synthetic_day(3, (2, 3, 2))
    budget = 12.0
    day = DayMechanism.design(found, Sigma_XX, budget, DELTA, designer="trace")
    information = budget - stats.chi2.ppf(1 - DELTA, 6) / 2
    maps = [B for _, B in sufficient_maps(found, Sigma_XX)]
    optimum = cvxpy_day_trace(maps, information)
    assert day.trace == pytest.approx(optimum, rel=1e-5)
    assert dense_day(found, Sigma_XX, pass_noises(day))[3] == pytest.approx(optimum, rel=1e-5)


def _rescaled_trace(maps, T, information):
    """sum tr(c T_p) with the common c at which the day's information is the budget."""
    J = sum(B.T @ np.linalg.solve(t, B) for B, t in zip(maps, T, strict=True))
    lam = np.clip(np.linalg.eigvalsh(J), 0.0, None)
    c = optimize.brentq(
        lambda c: 0.5 * np.sum(np.log1p(lam / c)) - information,
        1e-12,
        1e12,
        xtol=1e-300,
        rtol=1e-15,
    )
    return c * sum(np.trace(t) for t in T)


@pytest.mark.parametrize("seed, ranks", [(4, (3, 2, 3)), (5, (4, 6, 5, 6))])
def test_no_feasible_perturbation_of_one_pass_lowers_the_trace(seed, ranks):
    """KKT without a solver: moving any one block's noise along a random symmetric direction
    (both signs, 0.1% of its size) and rescaling all to the budget never lowers the total
    trace, and the first-order change vanishes (the two signs differ by under 5% of the
    second-order rise)."""
    found, Sigma_XX = synthetic_day(seed, ranks)
    budget = 13.0
    day = DayMechanism.design(found, Sigma_XX, budget, DELTA, designer="trace")
    information = budget - stats.chi2.ppf(1 - DELTA, 6) / 2
    stats_ = sufficient_maps(found, Sigma_XX)
    maps = [B for _, B in stats_]
    T = []
    for (Q, _), member, item in zip(stats_, day.passes, found, strict=True):
        T.append(Q.T @ whitened(item, member.Theta)[1] @ Q)
    base = _rescaled_trace(maps, T, information)
    assert base == pytest.approx(day.trace, rel=1e-9)
    rng = np.random.default_rng(seed)
    for p in range(len(T)):
        for _ in range(3):
            D = rng.standard_normal(T[p].shape)
            D = 1e-3 * np.linalg.norm(T[p]) * (D + D.T) / np.linalg.norm(D + D.T)
            moved = []
            for sign in (1.0, -1.0):
                T2 = list(T)
                T2[p] = T[p] + sign * D
                assert np.linalg.eigvalsh(T2[p])[0] > 0.0  # feasible
                moved.append(_rescaled_trace(maps, T2, information))
            assert min(moved) >= base * (1 - 1e-12)
            assert abs(moved[0] - moved[1]) <= 1e-6 * base


def test_one_pass_is_the_stacked_closed_form():
    """With one pass the day problem is the stacked log-det design: the block-coordinate
    descent returns information_limited_noise (eigenvalues to 1e-9 relative)."""
    rng = np.random.default_rng(2)
    B = np.diag([3.0, 1.0, 0.2]) @ linalg.qr(rng.standard_normal((6, 6)))[0][:3]
    ((_, theta),) = day_logdet_noise([B], 2.5)
    s = linalg.svdvals(B)
    reference = information_limited_noise(np.diag(s**2), 2.5)
    assert np.sort(theta) == pytest.approx(np.sort(reference.eigenvalues), rel=1e-9)


@pytest.mark.parametrize("designer", DAY_DESIGNERS)
def test_a_pass_with_zero_maps_gets_no_noise(designer):
    """A pass whose maps are zero gets a noise of rank 0, adds nothing, releases its data
    unchanged; the others still meet the day budget exactly."""
    found, Sigma_XX = synthetic_day(6, (6, 0, 5))
    day = DayMechanism.design(found, Sigma_XX, 11.0, DELTA, designer=designer)
    assert day.passes[1].factor.shape[1] == 0 and day.passes[1].leakage.epsilon == 0.0
    achieved = dense_day(found, Sigma_XX, pass_noises(day))[0]
    assert 11.0 - 1e-9 <= achieved <= 11.0 + 1e-12
    data = [np.ones(p.C.shape[:2]) for p in found]
    values = day.release(data, seed=1).values
    assert np.array_equal(values[12:24], np.ones(12))


@pytest.mark.parametrize("designer", ["day", "pass"])
def test_a_day_that_sees_three_directions_uses_the_floor_of_three(designer):
    """All passes' rows in one 3-dim subspace of x0: l = 3, the floor is that of chi^2_3
    (below the rank-6 floor 8.41 nats), and the budget 8 nats is met exactly."""
    rng = np.random.default_rng(1)
    W = rng.standard_normal((3, 6))
    found = [
        Pass(
            i,
            np.arange(3),
            (rng.standard_normal((12, 3)) @ W).reshape(3, 4, 6) * RADAR_STD[:, None],
            np.diag(RADAR_STD**2),
        )
        for i in range(3)
    ]
    Sigma_XX = np.diag([0.8, 1.0, 0.6, 1e-3, 1e-3, 1e-3]) ** 2
    day = DayMechanism.design(found, Sigma_XX, 8.0, DELTA, designer=designer)
    achieved, _, rank, _ = dense_day(found, Sigma_XX, pass_noises(day))
    assert rank == 3 and day.leakage.rank == 3
    assert 8.0 - 1e-9 <= achieved <= 8.0 + 1e-12 and day.certificate().passed


def test_bad_input_is_named():
    found, Sigma_XX = synthetic_day(7, (6, 6))
    floor = stats.chi2.ppf(1 - DELTA, 6) / 2
    for epsilon in (floor, floor - 1.0):
        with pytest.raises(ValueError, match="epsilon_day.*infeasible"):
            DayMechanism.design(found, Sigma_XX, epsilon, DELTA)
    with pytest.raises(ValueError, match="epsilon_day.*infeasible for the 'pass'"):
        # at any common pass budget above the rank-6 floor the rank-3 pass leaks 2.7 nats
        DayMechanism.design(synthetic_day(8, (6, 3))[0], Sigma_XX, 10.0, DELTA, designer="pass")
    DayMechanism.design(synthetic_day(8, (6, 3))[0], Sigma_XX, 10.0, DELTA, designer="day")
    with pytest.raises(ValueError, match=r"passes\[0\] has a measurement map of rank below 4"):
        DayMechanism.design(
            synthetic_day(8, (3, 6))[0], Sigma_XX, 10.0, DELTA, designer="measurement"
        )
    with pytest.raises(ValueError, match="designer"):
        DayMechanism.design(found, Sigma_XX, 12.0, DELTA, designer="logdet")
    with pytest.raises(ValueError, match="passes"):
        DayMechanism.design([], Sigma_XX, 12.0, DELTA)
    with pytest.raises(TypeError, match=r"passes\[0\]"):
        DayMechanism.design([np.zeros((3, 4, 6))], Sigma_XX, 12.0, DELTA)
    with pytest.raises(ValueError, match="all zero"):
        DayMechanism.design(synthetic_day(7, (0, 0))[0], Sigma_XX, 12.0, DELTA)
    with pytest.raises(ValueError, match="delta"):
        DayMechanism.design(found, Sigma_XX, 12.0, 1.5)
    day = DayMechanism.design(found, Sigma_XX, 12.0, DELTA)
    with pytest.raises(ValueError, match="data"):
        day.release([np.zeros((3, 4))], seed=0)
    with pytest.raises(ValueError, match=r"data\[1\]"):
        day.release([np.zeros((3, 4)), np.zeros((2, 4))], seed=0)
    with pytest.raises(ValueError, match="information"):
        day_logdet_noise([np.eye(6)], 0.0)
