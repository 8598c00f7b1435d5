"""LTI plants: the prior covariance solves the Lyapunov equation (27) and is the stationary
covariance of simulated trajectories; networks are block diagonal; bad input is refused."""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ssa_privacy.plants import (
    LTIPlant,
    network,
    prior_covariance,
    zone_temperature_plant,
    zone_temperature_plants,
)


def random_stable(rng, n, radius=0.9):
    A = rng.standard_normal((n, n))
    return radius * A / max(1e-12, np.max(np.abs(np.linalg.eigvals(A))))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 4))
def test_prior_covariance_solves_lyapunov_27(seed, n):
    rng = np.random.default_rng(seed)
    A = random_stable(rng, n)
    M = rng.standard_normal((n, n))
    Q = M @ M.T + 0.1 * np.eye(n)
    Sigma = prior_covariance(A, Q)
    np.testing.assert_allclose(
        Sigma, A @ Sigma @ A.T + Q, rtol=1e-9, atol=1e-9 * np.abs(Sigma).max()
    )
    assert np.all(np.linalg.eigvalsh(Sigma) > 0)


def test_stacked_prior_covariance_matches_dlyap_per_agent():
    rng = np.random.default_rng(1)
    A = np.stack([random_stable(rng, 3, r) for r in rng.uniform(0.1, 0.95, 20)])
    M = rng.standard_normal((20, 3, 3))
    Q = M @ np.swapaxes(M, 1, 2) + 0.2 * np.eye(3)
    Sigma = prior_covariance(A, Q)
    for i in range(20):
        np.testing.assert_allclose(Sigma[i], control.dlyap(A[i], Q[i]), rtol=1e-9, atol=1e-12)


def test_zone_prior_is_q_over_one_minus_a_squared():
    # [LKC] §2.1: Sigma = b^2 q / (1 - a^2); for §5.2 this is 0.914, not the 6.4 printed.
    plant = zone_temperature_plant(0.75, 0.4)
    assert plant.prior_covariance()[0, 0] == pytest.approx(0.4 / (1 - 0.75**2), rel=1e-12)
    assert zone_temperature_plant(0.5, 0.3, b=2.0).prior_covariance()[0, 0] == pytest.approx(
        4 * 0.3 / 0.75
    )


def test_plant_is_a_discrete_python_control_system():
    plant = LTIPlant([[0.5, 0.1], [0.0, 0.3]], [[1.0, 1.0]], np.eye(2))
    assert control.isdtime(plant.system, strict=True)
    np.testing.assert_array_equal(plant.system.A, plant.A)
    np.testing.assert_array_equal(plant.system.C, plant.C)
    assert (plant.n, plant.m) == (2, 1)


def test_simulated_states_have_the_stationary_covariance():
    # Runs are independent and start stationary, so X_k ~ N(0, Sigma) at every k: the
    # statistic R tr(Sigma^{-1} S) with S the sample second moment at one time is chi^2_{nR}.
    plant = LTIPlant([[0.8, 0.15], [-0.1, 0.6]], np.eye(2), [[0.5, 0.1], [0.1, 0.2]])
    runs = 4000
    X = plant.simulate(30, runs=runs, rng=7)[:, -1]
    Sigma = plant.prior_covariance()
    statistic = np.sum(X * np.linalg.solve(Sigma, X.T).T)
    dof = plant.n * runs
    assert (
        stats.chi2.ppf(0.0005, dof) < statistic < stats.chi2.ppf(0.9995, dof)
    )  # two-sided, level 1e-3


def test_network_is_block_diagonal_and_its_prior_too():
    zones = zone_temperature_plants([0.75, 0.5, 0.2], [0.4, 0.3, 0.2])
    net = network(zones)
    assert (net.n, net.m) == (3, 3)
    expected = np.diag([z.prior_covariance()[0, 0] for z in zones])
    np.testing.assert_allclose(net.prior_covariance(), expected, atol=1e-12)


@pytest.mark.parametrize(
    "A, C, Q, message",
    [
        ([[1.0]], [[1.0]], [[1.0]], "A is not Schur stable: spectral radius 1 >= 1"),
        ([[0.5, 2.0], [0.0, -1.2]], np.eye(2), np.eye(2), "not Schur stable"),
        ([[0.5]], [[1.0]], [[-0.1]], "Q is not positive semi-definite"),
        (
            [[0.5, 0], [0, 0.5]],
            np.eye(2),
            [[1.0, 2.0], [2.0, 1.0]],
            "Q is not positive semi-definite",
        ),
        ([[0.5, 0], [0, 0.5]], np.eye(2), [[1.0, 0.5], [0.0, 1.0]], "Q is not symmetric"),
        ([[0.5]], [[1.0, 1.0]], [[1.0]], "C has shape"),
        ([[np.nan]], [[1.0]], [[1.0]], "A contains non-finite"),
    ],
)
def test_invalid_plants_raise_clear_errors(A, C, Q, message):
    with pytest.raises(ValueError, match=message):
        LTIPlant(A, C, Q)


def test_invalid_stacks_name_the_agent():
    A = np.stack([0.5 * np.eye(2), 1.1 * np.eye(2)])
    with pytest.raises(ValueError, match=r"agent 1\).*spectral radius 1\.1"):
        prior_covariance(A, np.eye(2))
    Q = np.stack([np.eye(2), -np.eye(2)])
    with pytest.raises(ValueError, match="matrix 1 of the stack"):
        prior_covariance(0.5 * np.eye(2), Q)
