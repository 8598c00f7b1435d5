"""The pass mechanism (``privacy.pml.passes.PassMechanism``) on the passes of real objects.

The reference is the dense stacked mechanism of one pass, ``y = C x0 + v`` with ``C =
[C_1; ...; C_K]`` (4 K x 6) and ``v ~ N(0, Theta)``, ``Theta = PassMechanism.Theta``,
evaluated here without the information form of ``privacy.pml.stream``:

- ``"scaled"``: Theta is block diagonal and positive definite; ``I(X; Y) = sum_i log(1 +
  s_i^2) / 2`` over the singular values of ``L_Theta^{-1} C L_X`` (dense Cholesky of the
  whole 4 K x 4 K Theta), [LKC] Theorem 3.3 in whitened coordinates;
- ``"logdet"``: Theta has rank <= 6 and lies in the range of C, so Y lies there too and
  ``B^T y`` (B an orthonormal basis of range(C), from our own QR) loses nothing:
  ``I = (log det(B^T (C Sigma C^T + Theta) B) - log det(B^T Theta B)) / 2``.

Rows are first divided by the sensor noise standard deviations (an invertible map of Y,
which changes neither I nor the leakage) so that radians and kilometres do not mix. The
achieved epsilon is ``w I + F^{-1}_{chi^2_l}(1 - delta) / 2`` with l = rank(C) ([LKC] (8)).
"""

import warnings

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import iss_element_set, verification_element_sets
from ssa_privacy.privacy.mechanism import Mechanism, Release
from ssa_privacy.privacy.pml.leakage import (
    linear_mechanism_covariances,
    pml_margin,
    pointwise_maximal_leakage,
)
from ssa_privacy.privacy.pml.passes import DESIGNERS, PassMechanism
from ssa_privacy.privacy.pml.stream import (
    ReleaseStream,
    stream_certificate,
    stream_leakage,
    stream_leakage_probability,
)
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import object_stream

DELTA = 0.01
BUDGETS = (10.0, 14.0, 20.0)
WEIGHT = {"exact": 1.0, "paper": 2.0}
#: F^{-1}_{chi^2_6}(0.99) / 2, the floor of a pass that sees all of x0 ([LKC] (9)).
FLOOR_6 = stats.chi2.ppf(1 - DELTA, 6) / 2


def _passes(element_set, hours=6.0, dt=30.0):
    """The passes of one real object over the eight radars, and its manoeuvre prior."""
    times = np.arange(0.0, hours * 3600.0 + 1e-9, dt)
    state0 = element_set.state_at_epoch()
    earth = EarthRotation(element_set.gmst_epoch)
    _, _, found = object_stream(state0, times, radar_network(), earth, J2Propagator())
    Sigma_XX = manoeuvre_prior(state0, 2.0 * np.pi / element_set.period)
    return found, Sigma_XX


@pytest.fixture(scope="module")
def iss():
    return _passes(iss_element_set())


@pytest.fixture(scope="module")
def sun_synchronous():
    return _passes(verification_element_sets()["28057"])


def pass_mechanism(item, Sigma_XX, budget, designer, convention="exact"):
    return PassMechanism.design(
        item, Sigma_XX, budget, DELTA, designer=designer, convention=convention
    )


def _whitened(item, Theta):
    """Stacked C (M, 6) and Theta (M, M) in units of each row's sensor noise."""
    sigma = np.tile(np.sqrt(np.diag(item.R)), len(item.C))
    return item.C.reshape(-1, 6) / sigma[:, None], Theta / np.outer(sigma, sigma)


def _rank(C, Sigma_XX):
    """rank(C) = l, the number of non-zero canonical correlations (Theta > 0 on range C);
    asserted to be unambiguous so the floor used below is not a matter of tolerance."""
    s = linalg.svdvals(C @ np.linalg.cholesky(Sigma_XX))
    rank = int(np.sum(s > 1e-8 * s[0]))
    assert rank == len(s) or s[rank] < 1e-13 * s[0]
    return rank


def dense_information(item, Sigma_XX, Theta, designer):
    """I(X; Y) of the dense stacked pass and l, independently of ``pml_stream``."""
    C, Theta = _whitened(item, Theta)
    rank = _rank(C, Sigma_XX)
    if designer == "logdet":
        B = np.linalg.qr(C)[0]  # orthonormal basis of range(C), 6 columns
        assert np.abs(Theta - B @ (B.T @ Theta @ B) @ B.T).max() <= 1e-9 * np.abs(Theta).max()
        Cz, Tz = B.T @ C, B.T @ Theta @ B
        signal = Cz @ Sigma_XX @ Cz.T + Tz
        information = 0.5 * (np.linalg.slogdet(signal)[1] - np.linalg.slogdet(Tz)[1])
    else:
        L_T = np.linalg.cholesky(Theta)
        s = linalg.svdvals(
            linalg.solve_triangular(L_T, C, lower=True) @ np.linalg.cholesky(Sigma_XX)
        )
        information = 0.5 * float(np.sum(np.log1p(s**2)))
    return information, rank


def dense_margin_epsilon(item, Sigma_XX, Theta, designer, convention):
    """The achieved epsilon by the package's dense route (``pml_margin`` at epsilon 0)."""
    C, Theta = _whitened(item, Theta)
    if designer == "logdet":
        B = np.linalg.qr(C)[0]
        C, Theta = B.T @ C, B.T @ Theta @ B
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(C, Sigma_XX, Theta)
    return -pml_margin(Sigma_XX, Sigma_XY, Sigma_YY, 0.0, DELTA, convention)


@pytest.mark.parametrize("designer", DESIGNERS)
@pytest.mark.parametrize(
    "budget, convention", [(10.0, "exact"), (14.0, "exact"), (20.0, "exact"), (20.0, "paper")]
)
def test_the_stacked_pass_meets_its_budget_exactly(
    iss, sun_synchronous, designer, budget, convention
):
    """Recomputed from the dense stacked matrices, every pass's achieved epsilon is at most
    the budget (round-off 1e-9) and equal to it within 1e-6 nats: the designs are exact.
    The package's dense route (pml_margin) and the design's own leakage agree."""
    for found, Sigma_XX in (iss, (sun_synchronous[0][:4], sun_synchronous[1])):
        assert len(found) >= 4
        for item in found:
            design = pass_mechanism(item, Sigma_XX, budget, designer, convention)
            information, rank = dense_information(item, Sigma_XX, design.Theta, designer)
            achieved = WEIGHT[convention] * information + stats.chi2.ppf(1 - DELTA, rank) / 2
            assert rank == 6
            assert achieved <= budget + 1e-9
            assert achieved == pytest.approx(budget, abs=1e-6)
            assert design.leakage.rank == rank
            assert design.leakage.epsilon == pytest.approx(achieved, abs=1e-6)
            dense = dense_margin_epsilon(item, Sigma_XX, design.Theta, designer, convention)
            assert dense == pytest.approx(achieved, abs=1e-6)


def test_the_logdet_noise_is_correlated_within_the_range_of_the_pass(iss):
    """The log-det noise lives on the sufficient statistic: rank <= 6, inside range(C)
    (checked in ``dense_information``), and correlated across measurements."""
    found, Sigma_XX = iss
    design = pass_mechanism(found[0], Sigma_XX, 14.0, "logdet")
    C, Theta = _whitened(found[0], design.Theta)
    assert design.factor.shape == (len(C), 6)
    assert np.linalg.matrix_rank(Theta, tol=1e-10 * np.abs(Theta).max()) == 6
    off_block = Theta[:4, 4:8]
    assert np.abs(off_block).max() > 1e-3 * np.sqrt(Theta[0, 0] * Theta[4, 4])


def test_the_scaled_noise_is_one_factor_times_corollary_3_7_per_measurement(iss):
    """Independent across measurements (zero off-diagonal blocks), and each block is one
    common factor times ``C_k Sigma_XX C_k^T`` ([LKC] Corollary 3.7, rank 4 each)."""
    found, Sigma_XX = iss
    item = found[1]
    Theta = pass_mechanism(item, Sigma_XX, 14.0, "scaled").Theta
    factors = []
    for k, C_k in enumerate(item.C):
        rows = slice(4 * k, 4 * k + 4)
        block = Theta[rows, rows]
        shape = C_k @ Sigma_XX @ C_k.T
        factor = np.sum(block * shape) / np.sum(shape * shape)
        np.testing.assert_allclose(block, factor * shape, rtol=1e-9, atol=0)
        assert np.all(Theta[rows, : 4 * k] == 0) and np.all(Theta[rows, 4 * k + 4 :] == 0)
        factors.append(factor)
    np.testing.assert_allclose(factors, factors[0], rtol=1e-9)


@pytest.mark.parametrize("budget", BUDGETS)
def test_the_logdet_pass_noise_costs_no_more_than_the_scaled_one(iss, sun_synchronous, budget):
    """Minimum trace (in units of each row's sensor noise) among noises that meet the pass
    budget: the scaled design meets the same budget, so it cannot have a smaller trace."""
    for found, Sigma_XX in (iss, (sun_synchronous[0][:4], sun_synchronous[1])):
        for item in found:
            traces = {
                d: np.trace(_whitened(item, pass_mechanism(item, Sigma_XX, budget, d).Theta)[1])
                for d in DESIGNERS
            }
            assert traces["logdet"] <= traces["scaled"] * (1 + 1e-9)


@pytest.mark.parametrize("designer", DESIGNERS)
def test_a_release_adds_the_factor_times_the_first_normals(iss, designer):
    """release() adds ``F e[:r]`` of K m standard normals drawn from the seed, whatever
    the rank (common random numbers across designers: a Generator advances by K m), and
    returns the certificate of the pass's stream and the noise covariance F F^T."""
    found, Sigma_XX = iss
    item = found[0]
    design = pass_mechanism(item, Sigma_XX, 14.0, designer)
    M, r = 4 * len(item.C), design.factor.shape[1]
    y = np.arange(M, dtype=float)
    released = design.release(y, seed=5)
    normals = np.random.default_rng(5).standard_normal(M)
    assert isinstance(released, Release) and isinstance(design, Mechanism)
    assert np.array_equal(released.values, y + design.factor @ normals[:r])
    assert released.seed_keys == {"seed": 5}
    assert released.details == {"designer": designer, "rank": r}
    np.testing.assert_allclose(
        released.noise_covariance.matrix(), design.Theta, rtol=0, atol=1e-12 * design.Theta.max()
    )
    expected = stream_certificate(Sigma_XX, design.stream, 14.0, DELTA)
    assert released.certificate == expected and released.certificate.passed
    rng = np.random.default_rng(5)
    shaped = design.release(y.reshape(-1, 4), seed=rng)
    assert np.array_equal(shaped.values, released.values.reshape(-1, 4))
    assert rng.standard_normal() == np.random.default_rng(5).standard_normal(M + 1)[M]


def test_a_release_refuses_data_of_another_pass_and_a_bad_seed(iss):
    found, Sigma_XX = iss
    design = pass_mechanism(found[0], Sigma_XX, 14.0, "logdet")
    M = 4 * len(found[0].C)
    for data in (np.zeros(M + 1), np.zeros((M // 4, 5)), np.full(M, np.nan)):
        with pytest.raises(ValueError, match="data"):
            design.release(data, seed=0)
    with pytest.raises(TypeError, match="seed"):
        design.release(np.zeros(M), seed=1.5)


@pytest.mark.parametrize("designer", DESIGNERS)
def test_the_mechanism_of_a_given_factor_has_the_designed_stream(iss, designer):
    """Built from the factor alone, the stream (from F's singular vectors) carries the
    information of the designed one, and the certificate recomputed from it passes; with a
    noise halved (an audit), the pass leaks more than its budget and the certificate fails."""
    found, Sigma_XX = iss
    item = found[1]
    design = pass_mechanism(item, Sigma_XX, 14.0, designer)
    given = PassMechanism(item.C, Sigma_XX, design.factor, 14.0, DELTA)
    assert given.designer == "given"
    np.testing.assert_allclose(
        given.stream.information, design.stream.information, rtol=1e-8, atol=0
    )
    assert given.leakage.epsilon == pytest.approx(design.leakage.epsilon, abs=1e-7)
    audit = design.with_noise(design.noise_covariance)
    assert audit.leakage.epsilon == pytest.approx(design.leakage.epsilon, abs=1e-7)
    weak = design.with_noise(design.noise_covariance.scaled(0.5))
    assert weak.leakage.epsilon > 14.0 and not weak.certificate().passed


def test_a_factor_that_leaves_a_direction_of_the_pass_noiseless_is_refused(iss):
    found, Sigma_XX = iss
    item = found[0]
    design = pass_mechanism(item, Sigma_XX, 14.0, "logdet")
    with pytest.raises(ValueError, match="without noise"):
        PassMechanism(item.C, Sigma_XX, design.factor[:, :5], 14.0, DELTA)
    with pytest.raises(ValueError, match="factor must have"):
        PassMechanism(item.C, Sigma_XX, design.factor[1:], 14.0, DELTA)
    with pytest.raises(TypeError, match="stream"):
        PassMechanism(item.C, Sigma_XX, design.factor, 14.0, DELTA, stream=np.eye(6))
    with pytest.raises(ValueError, match="Sigma_XX"):
        PassMechanism(item.C, -Sigma_XX, design.factor, 14.0, DELTA)


def test_one_measurement_with_a_cholesky_factor_is_a_pass_of_one(iss):
    """The ssa-network study releases each radar measurement so: K = 1, F the Cholesky
    factor of its Corollary 3.7 noise; the stream is that of (H, Theta)."""
    found, Sigma_XX = iss
    H = found[0].C[0]
    Theta = found[0].R + H @ Sigma_XX @ H.T
    mechanism = PassMechanism(H, Sigma_XX, np.linalg.cholesky(Theta), 9.0, DELTA)
    expected = stream_leakage(Sigma_XX, ReleaseStream.of(H, Theta), DELTA)
    assert mechanism.leakage.epsilon == pytest.approx(expected.epsilon, rel=1e-10)
    rng = np.random.default_rng(2)
    values = mechanism.release(np.zeros(4), seed=np.random.default_rng(2)).values
    assert np.array_equal(values, np.linalg.cholesky(Theta) @ rng.standard_normal(4))


def test_the_old_pass_noise_warns_and_returns_the_mechanism_s_design(iss):
    """``pass_noise`` and ``PassNoise`` of 0.1 still work until 0.3, with a warning naming
    the mechanism; the old result keeps its covariance, sample and certificate."""
    found, Sigma_XX = iss
    design = pass_mechanism(found[0], Sigma_XX, 14.0, "scaled")
    with pytest.warns(DeprecationWarning, match="PassMechanism.design"):
        from ssa_privacy.privacy.pml.passes import pass_noise
    with pytest.warns(DeprecationWarning) as caught:  # the old module, then the old name
        from ssa_privacy.pass_privacy import PassNoise
    assert "use ssa_privacy.privacy.pml.passes.PassMechanism" in str(caught[-1].message)
    old = pass_noise(found[0], Sigma_XX, 14.0, DELTA, "scaled")
    assert isinstance(old, PassNoise) and old.certificate.passed
    assert np.array_equal(old.covariance, design.Theta)
    normals = np.random.default_rng(0).standard_normal(4 * len(found[0].C))
    assert np.array_equal(old.sample(normals), design.factor @ normals)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PassMechanism.design(found[0], Sigma_XX, 14.0, DELTA)


def test_per_measurement_accounting_moved_from_the_sensors_to_the_passes():
    """Sensors import no privacy: the leakage of per-measurement designs over passes is
    ``privacy.pml.passes.per_measurement_epsilons``; the old place warns and serves it."""
    from ssa_privacy.privacy.pml import passes

    with pytest.warns(DeprecationWarning, match="privacy.pml.passes.per_measurement_epsilons"):
        from ssa_privacy.sensors.streams import per_measurement_epsilons
    assert per_measurement_epsilons is passes.per_measurement_epsilons


@pytest.mark.parametrize("designer", DESIGNERS)
def test_monte_carlo_leakage_of_a_stacked_pass_agrees_with_the_closed_form(iss, designer):
    """20,000 releases of one real pass (x0 from the prior, the pass's noise drawn by
    ``release``), their pointwise leakage by the dense route (Theorem 3.2), against the
    closed form P[l <= epsilon] = F_{chi^2_l}(2 (epsilon - I)) of the pass's stream. At
    epsilon = budget - 4 (probability about 0.8, so the test can fail) and at the budget
    (1 - delta), the analytic value lies in the 99.9% Clopper-Pearson interval (a false
    alarm has probability at most 0.1% per check; the seed is fixed)."""
    found, Sigma_XX = iss
    item, budget, samples = found[0], 14.0, 20000
    design = pass_mechanism(item, Sigma_XX, budget, designer)
    rng = np.random.default_rng(11)
    x0 = rng.standard_normal((samples, 6)) @ np.linalg.cholesky(Sigma_XX).T
    zero = np.zeros(4 * len(item.C))
    noise = np.array([design.release(zero, seed=rng).values for _ in range(samples)])
    C, Theta = _whitened(item, design.Theta)
    sigma = np.tile(np.sqrt(np.diag(item.R)), len(item.C))
    y = (x0 @ item.C.reshape(-1, 6).T + noise) / sigma
    if designer == "logdet":  # y lies in range(C): B^T y is the whole release
        B = np.linalg.qr(C)[0]
        C, Theta, y = B.T @ C, B.T @ Theta @ B, y @ B
    Sigma_XY, Sigma_YY = linear_mechanism_covariances(C, Sigma_XX, Theta)
    leakage = pointwise_maximal_leakage(Sigma_XX, Sigma_XY, Sigma_YY, y)
    for epsilon in (budget - 4.0, budget):
        analytic = stream_leakage_probability(Sigma_XX, design.stream, epsilon)
        if epsilon == budget:
            assert analytic == pytest.approx(1 - DELTA, abs=1e-9)
        else:
            assert 0.05 < analytic < 0.95
        within = int(np.sum(leakage <= epsilon))
        interval = stats.binomtest(within, samples).proportion_ci(0.999, method="exact")
        assert interval.low <= analytic <= interval.high, (epsilon, within / samples, analytic)


@pytest.mark.parametrize("designer", DESIGNERS)
def test_a_budget_at_or_below_the_six_direction_floor_is_refused(iss, designer):
    """A pass that sees all of x0 leaks at least F^{-1}_{chi^2_6}(1 - delta)/2 = 8.41 nats
    however much noise is added ([LKC] (9)): 8 nats (feasible for one 4-row measurement)
    and the floor itself are refused."""
    found, Sigma_XX = iss
    assert FLOOR_6 == pytest.approx(8.406, abs=1e-3)
    for budget in (8.0, FLOOR_6):
        with pytest.raises(ValueError, match="epsilon"):
            pass_mechanism(found[0], Sigma_XX, budget, designer)


def test_an_unknown_designer_is_refused(iss):
    found, Sigma_XX = iss
    with pytest.raises(ValueError, match="designer"):
        pass_mechanism(found[0], Sigma_XX, 14.0, "per-measurement")
