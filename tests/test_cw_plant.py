"""The Clohessy-Wiltshire plant: discretisation, manoeuvre noise, station keeping, PML bounds."""

import control
import numpy as np
import pytest
from scipy import integrate, linalg

from ssa_privacy import plants
from ssa_privacy.estimation.kalman import error_covariance_bounds, steady_state
from ssa_privacy.orbits.relative_motion import clohessy_wiltshire, cw_plant, station_keeping_gain
from ssa_privacy.plants import white_noise_covariance
from ssa_privacy.privacy.pml.design import linear_mechanism_noise

N = 2 * np.pi / 5575.0  # ISS-like mean motion (rad/s)
DT = 60.0
C_POSITION = np.hstack([np.eye(3), np.zeros((3, 3))])
SCALES = (1.0, 1e-3, 1e-6)
PSD = 4e-9


def cw_transition(n, t):
    """Closed-form CW state-transition matrix (Curtis, Orbital Mechanics, §7.5)."""
    c, s = np.cos(n * t), np.sin(n * t)
    return np.array(
        [
            [4 - 3 * c, 0, 0, s / n, 2 * (1 - c) / n, 0],
            [6 * (s - n * t), 1, 0, 2 * (c - 1) / n, (4 * s - 3 * n * t) / n, 0],
            [0, 0, c, 0, 0, s / n],
            [3 * n * s, 0, 0, c, 2 * s, 0],
            [6 * n * (c - 1), 0, 0, -2 * s, 4 * c - 3, 0],
            [0, 0, -n * s, 0, 0, c],
        ]
    )


def test_zoh_discretisation_matches_the_matrix_exponential_and_the_closed_form():
    system = clohessy_wiltshire(N)
    discrete = control.c2d(system, DT, method="zoh")
    np.testing.assert_allclose(discrete.A, linalg.expm(system.A * DT), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(discrete.A, cw_transition(N, DT), rtol=1e-10, atol=1e-12)
    augmented = linalg.expm(np.block([[system.A, system.B], [np.zeros((3, 9))]]) * DT)
    np.testing.assert_allclose(discrete.B, augmented[:6, 6:], rtol=1e-10, atol=1e-14)


def test_open_loop_cw_drifts_and_has_no_stationary_prior():
    A_d = cw_transition(N, DT)
    assert np.max(np.abs(np.linalg.eigvals(A_d))) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match="not Schur stable"):
        cw_plant(N, DT, PSD, C_POSITION, np.zeros((3, 6)))


def test_van_loan_covariance_matches_quadrature():
    system = clohessy_wiltshire(N)
    A = system.A - system.B @ station_keeping_gain(N, *SCALES)
    W = PSD * np.eye(3)

    def integrand(s):
        return linalg.expm(A * s) @ system.B @ W @ system.B.T @ linalg.expm(A.T * s)

    quadrature, _ = integrate.quad_vec(integrand, 0.0, DT, epsabs=1e-18, epsrel=1e-10)
    np.testing.assert_allclose(
        white_noise_covariance(A, system.B, W, DT), quadrature, rtol=1e-8, atol=1e-20
    )


def test_station_kept_plant_is_stable_with_a_stationary_prior():
    K = station_keeping_gain(N, *SCALES)
    system = clohessy_wiltshire(N)
    assert np.all(np.linalg.eigvals(system.A - system.B @ K).real < 0)
    plant = cw_plant(N, DT, PSD, C_POSITION, K)
    np.testing.assert_allclose(plant.A, linalg.expm((system.A - system.B @ K) * DT), atol=1e-12)
    Sigma = plant.prior_covariance()
    np.testing.assert_allclose(
        Sigma, plant.A @ Sigma @ plant.A.T + plant.Q, rtol=1e-9, atol=1e-10 * np.max(np.abs(Sigma))
    )
    assert np.all(np.linalg.eigvalsh(Sigma) > 0)
    # Bryson's scales: excursions of order 1 km and 1 m/s.
    assert 0.1 < np.sqrt(Sigma[1, 1]) < 3.0 and 1e-4 < np.sqrt(Sigma[4, 4]) < 3e-3


@pytest.mark.parametrize("epsilon", [6.5, 9.0, 14.0])
@pytest.mark.parametrize("convention", ["exact", "paper"])
def test_kalman_error_on_the_cw_plant_respects_the_pml_bounds(epsilon, convention):
    plant = cw_plant(N, DT, PSD, C_POSITION, station_keeping_gain(N, *SCALES))
    Theta = linear_mechanism_noise(C_POSITION, plant.prior_covariance(), epsilon, 0.01, convention)
    bounds = error_covariance_bounds(plant, Theta, epsilon, 0.01, convention)
    P = steady_state(plant, Theta).P
    assert bounds.applies
    log_det = np.linalg.slogdet(P)[1]
    assert log_det >= bounds.log_det_chain >= bounds.log_det - 1e-7
    assert np.trace(P) >= bounds.trace_chain >= bounds.trace - 1e-7


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: clohessy_wiltshire(0.0), "mean_motion"),
        (lambda: cw_plant(N, -1.0, PSD, C_POSITION, np.zeros((3, 6))), "dt"),
        (lambda: cw_plant(N, DT, PSD, C_POSITION, np.zeros((2, 6))), "gain"),
        (lambda: station_keeping_gain(N, 1.0, 0.0, 1e-6), "velocity_scale"),
        (lambda: white_noise_covariance(np.eye(2), np.ones((2, 1)), -np.eye(1), 1.0), "psd"),
    ],
)
def test_bad_input_raises_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_old_import_path_still_serves_the_cw_plant():
    with pytest.warns(DeprecationWarning, match="ssa_privacy.orbits.relative_motion.cw_plant"):
        from ssa_privacy.plants import cw_plant as old_cw_plant

    assert old_cw_plant is cw_plant
    with pytest.warns(DeprecationWarning, match="will be removed in ssa_privacy 0.3"):
        assert plants.clohessy_wiltshire is clohessy_wiltshire
        assert plants.station_keeping_gain is station_keeping_gain
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        plants.not_a_name  # noqa: B018
