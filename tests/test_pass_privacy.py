"""Pass-level privacy noise (``pass_privacy.pass_noise``) on the passes of real objects.

The reference is the dense stacked mechanism of one pass, ``y = C x0 + v`` with ``C =
[C_1; ...; C_K]`` (4 K x 6) and ``v ~ N(0, Theta)``, ``Theta = PassNoise.covariance``,
evaluated here without the information form of ``pml_stream``:

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

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import iss_element_set, verification_element_sets
from ssa_privacy.privacy.pml.leakage import (
    linear_mechanism_covariances,
    pml_margin,
    pointwise_maximal_leakage,
)
from ssa_privacy.privacy.pml.passes import DESIGNERS, pass_noise
from ssa_privacy.privacy.pml.stream import stream_leakage_probability
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
            design = pass_noise(item, Sigma_XX, budget, DELTA, designer, convention)
            information, rank = dense_information(item, Sigma_XX, design.covariance, designer)
            achieved = WEIGHT[convention] * information + stats.chi2.ppf(1 - DELTA, rank) / 2
            assert rank == 6
            assert achieved <= budget + 1e-9
            assert achieved == pytest.approx(budget, abs=1e-6)
            assert design.leakage.rank == rank
            assert design.leakage.epsilon == pytest.approx(achieved, abs=1e-6)
            dense = dense_margin_epsilon(item, Sigma_XX, design.covariance, designer, convention)
            assert dense == pytest.approx(achieved, abs=1e-6)


def test_the_logdet_noise_is_correlated_within_the_range_of_the_pass(iss):
    """The log-det noise lives on the sufficient statistic: rank <= 6, inside range(C)
    (checked in ``dense_information``), and correlated across measurements."""
    found, Sigma_XX = iss
    design = pass_noise(found[0], Sigma_XX, 14.0, DELTA, "logdet")
    C, Theta = _whitened(found[0], design.covariance)
    assert design.factor.shape == (len(C), 6)
    assert np.linalg.matrix_rank(Theta, tol=1e-10 * np.abs(Theta).max()) == 6
    off_block = Theta[:4, 4:8]
    assert np.abs(off_block).max() > 1e-3 * np.sqrt(Theta[0, 0] * Theta[4, 4])


def test_the_scaled_noise_is_one_factor_times_corollary_3_7_per_measurement(iss):
    """Independent across measurements (zero off-diagonal blocks), and each block is one
    common factor times ``C_k Sigma_XX C_k^T`` ([LKC] Corollary 3.7, rank 4 each)."""
    found, Sigma_XX = iss
    item = found[1]
    Theta = pass_noise(item, Sigma_XX, 14.0, DELTA, "scaled").covariance
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
                d: np.trace(
                    _whitened(item, pass_noise(item, Sigma_XX, budget, DELTA, d).covariance)[1]
                )
                for d in DESIGNERS
            }
            assert traces["logdet"] <= traces["scaled"] * (1 + 1e-9)


@pytest.mark.parametrize("designer", DESIGNERS)
def test_a_sample_is_the_factor_applied_to_the_first_normals(iss, designer):
    """sample() is linear in the normals and uses only the first r of them, so its
    covariance is sum_j f_j f_j^T = F F^T = ``covariance``; the spare normals are ignored
    (common random numbers across designers)."""
    found, Sigma_XX = iss
    design = pass_noise(found[0], Sigma_XX, 14.0, DELTA, designer)
    M = 4 * len(found[0].C)
    columns = np.array([design.sample(e) for e in np.eye(M)]).T  # column j = sample(e_j)
    r = design.factor.shape[1]
    assert np.all(columns[:, r:] == 0)
    np.testing.assert_allclose(columns @ columns.T, design.covariance, rtol=1e-12, atol=0)
    np.testing.assert_allclose(columns[:, :r] @ columns[:, :r].T, design.covariance, rtol=1e-12)
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(M), rng.standard_normal(M)
    np.testing.assert_allclose(
        design.sample(2.0 * a - b),
        2.0 * design.sample(a) - design.sample(b),
        rtol=1e-10,
        atol=1e-14,
    )


@pytest.mark.parametrize("designer", DESIGNERS)
def test_monte_carlo_leakage_of_a_stacked_pass_agrees_with_the_closed_form(iss, designer):
    """20,000 releases of one real pass (x0 from the prior, the pass's noise drawn by
    ``sample``), their pointwise leakage by the dense route (Theorem 3.2), against the
    closed form P[l <= epsilon] = F_{chi^2_l}(2 (epsilon - I)) of the pass's stream. At
    epsilon = budget - 4 (probability about 0.8, so the test can fail) and at the budget
    (1 - delta), the analytic value lies in the 99.9% Clopper-Pearson interval (a false
    alarm has probability at most 0.1% per check; the seed is fixed)."""
    found, Sigma_XX = iss
    item, budget, samples = found[0], 14.0, 20000
    design = pass_noise(item, Sigma_XX, budget, DELTA, designer)
    rng = np.random.default_rng(11)
    x0 = rng.standard_normal((samples, 6)) @ np.linalg.cholesky(Sigma_XX).T
    normals = rng.standard_normal((samples, 4 * len(item.C)))
    noise = np.array([design.sample(z) for z in normals])
    C, Theta = _whitened(item, design.covariance)
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
            pass_noise(found[0], Sigma_XX, budget, DELTA, designer)


def test_an_unknown_designer_is_refused(iss):
    found, Sigma_XX = iss
    with pytest.raises(ValueError, match="designer"):
        pass_noise(found[0], Sigma_XX, 14.0, DELTA, "per-measurement")
