"""python-control plants everywhere: a ``control.ss`` system goes through the PML design,
the Kalman filter and the bounds of [LKC] §4 without unpacking its matrices.

The conversion folds the input matrix into the process noise, ``Q = B Q_w B^T``; every
check compares with that formula or with the theory (Lyapunov equation (27), DARE (56),
bounds (28)-(29), Monte Carlo within a stated confidence).
"""

import control
import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.estimation.kalman import (
    empirical_error_covariance,
    error_covariance_bounds,
    filter_outputs,
    kalman_filter,
    steady_state,
)
from ssa_privacy.plants import LTIPlant, as_plant, network, prior_covariance
from ssa_privacy.privacy.pml.aggregation import design_aggregation, design_fixed_Q
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism, linear_mechanism_noise
from ssa_privacy.privacy.pml.plant import design_noise

A = np.array([[0.8, 0.2, 0.0], [-0.1, 0.7, 0.1], [0.0, 0.1, 0.5]])
B = np.array([[1.0, 0.0, 0.0], [0.3, 1.0, 0.0], [0.0, 0.2, 0.5]])
C = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
Q_W = np.diag([0.4, 0.2, 0.3])  # covariance of the input w_k
EPSILON, DELTA = 7.0, 0.01


def system(dt=0.5):
    return control.ss(A, B, C, 0, dt)


@pytest.mark.parametrize("method", ["closed-form", "lmi", "logdet"])
def test_acceptance_statespace_to_design_to_kalman_to_bounds(method):
    sys = system()
    mech = design_noise(sys, EPSILON, DELTA, method=method, process_noise=Q_W)
    assert isinstance(mech, LinearGaussianMechanism) and mech.certificate().passed
    P = steady_state(sys, mech, process_noise=Q_W).P
    bounds = error_covariance_bounds(sys, mech, process_noise=Q_W)
    assert bounds.applies and bounds.convention == "exact"
    log_det_P, slack = np.linalg.slogdet(P)[1], 1e-7
    assert log_det_P >= bounds.log_det_chain - slack >= bounds.log_det - 2 * slack  # (55), (28)
    assert np.trace(P) >= bounds.trace_chain - slack >= bounds.trace - 2 * slack  # (29)
    # The same numbers as from the matrices, Q = B Q_w B^T.
    plant = LTIPlant(A, C, B @ Q_W @ B.T, 0.5)
    np.testing.assert_allclose(P, steady_state(plant, mech.Theta).P, rtol=1e-12)
    from_matrices = error_covariance_bounds(plant, mech.Theta, EPSILON, DELTA)
    for field in ("log_det_chain", "log_det", "trace_chain", "trace"):
        assert getattr(bounds, field) == pytest.approx(getattr(from_matrices, field), rel=1e-12)


def test_simulated_kalman_error_satisfies_the_bounds():
    sys = system()
    mech = design_noise(sys, EPSILON, DELTA, process_noise=Q_W)
    rng = np.random.default_rng(11)
    S, trace_se, log_det_se = empirical_error_covariance(
        sys, mech, 40, 60, 20, rng, process_noise=Q_W
    )
    bounds = error_covariance_bounds(sys, mech, process_noise=Q_W)
    P = steady_state(sys, mech, process_noise=Q_W).P
    # Empirical within 5 standard errors of the DARE, and above the bounds by more than that.
    assert abs(np.linalg.slogdet(S)[1] - np.linalg.slogdet(P)[1]) <= 5 * log_det_se
    assert np.linalg.slogdet(S)[1] - 5 * log_det_se >= bounds.log_det_chain >= bounds.log_det
    assert np.trace(S) - 5 * trace_se >= bounds.trace_chain >= bounds.trace


def test_from_statespace_folds_B_into_Q_and_the_prior_solves_27():
    plant = LTIPlant.from_statespace(system(), Q_W)
    np.testing.assert_allclose(plant.Q, B @ Q_W @ B.T, rtol=1e-15)
    assert plant.dt == 0.5 and control.isdtime(plant.system, strict=True)
    Sigma = prior_covariance(system(), process_noise=Q_W)
    np.testing.assert_allclose(Sigma, A @ Sigma @ A.T + B @ Q_W @ B.T, atol=1e-12)
    # Default process noise: w ~ N(0, I), so Q = B B^T; LTIPlant(sys) means the same.
    np.testing.assert_allclose(as_plant(system()).Q, B @ B.T, rtol=1e-15)
    np.testing.assert_allclose(LTIPlant(system()).Q, B @ B.T, rtol=1e-15)
    assert LTIPlant.from_statespace(system(), 2.0).Q == pytest.approx(2 * B @ B.T)
    # dt = True (unspecified period) is discrete time too.
    assert LTIPlant.from_statespace(control.ss(A, B, C, 0, True)).dt is True


def test_a_continuous_time_system_is_refused_naming_c2d():
    continuous = control.ss(A - np.eye(3), B, C, 0)
    for call in (
        lambda: LTIPlant.from_statespace(continuous),
        lambda: LTIPlant(continuous),
        lambda: design_noise(continuous, EPSILON, DELTA),
        lambda: steady_state(continuous, np.eye(2)),
        lambda: error_covariance_bounds(continuous, np.eye(2), EPSILON, DELTA),
        lambda: prior_covariance(continuous),
    ):
        with pytest.raises(ValueError, match=r"continuous-time.*control\.c2d"):
            call()
    with pytest.raises(ValueError, match=r"dt must be True.*control\.c2d"):
        LTIPlant(A, C, np.eye(3), 0)
    with pytest.raises(ValueError, match="without time base"):
        LTIPlant.from_statespace(control.ss(A, B, C, 0, None))


# Noise entering through one input of two states: Q = B Q_w B^T has rank 1.
A_ONE, B_ONE, C_ONE, Q_W_ONE = [[0.9, 0.1], [0.0, 0.8]], [[1.0], [0.5]], [[1.0, 0.0]], 0.04


@pytest.mark.parametrize("method", ["closed-form", "lmi", "logdet"])
def test_a_plant_driven_through_one_input_goes_through_design_filter_and_bounds(method):
    sys = control.ss(A_ONE, B_ONE, C_ONE, 0, 1.0)
    plant = LTIPlant.from_statespace(sys, Q_W_ONE)
    A, Q = np.array(A_ONE), Q_W_ONE * np.array(B_ONE) @ np.array(B_ONE).T
    np.testing.assert_allclose(plant.Q, Q, rtol=1e-15)
    assert np.linalg.matrix_rank(Q) == 1
    Sigma = plant.prior_covariance()
    np.testing.assert_allclose(A @ Sigma @ A.T + Q, Sigma, rtol=1e-13)  # Lyapunov (27)
    # (A, B) is controllable, so the prior is positive definite and no direction is dropped.
    assert np.linalg.matrix_rank(control.ctrb(A, B_ONE)) == 2 and np.linalg.eigvalsh(Sigma)[0] > 0
    mech = design_noise(sys, 6.0, 0.01, method=method, process_noise=Q_W_ONE)
    assert mech.certificate().passed and mech.state_basis is None
    np.testing.assert_allclose(mech.process_noise, Q, rtol=1e-15)
    ss = steady_state(sys, mech)  # the StateSpace takes the Q the mechanism was designed with
    C, Theta = np.array(C_ONE), mech.Theta
    innovation = C @ ss.P_pred @ C.T + Theta
    riccati = A @ (ss.P_pred - ss.P_pred @ C.T @ np.linalg.solve(innovation, C @ ss.P_pred)) @ A.T
    np.testing.assert_allclose(riccati + Q, ss.P_pred, rtol=1e-10)  # filter Riccati (56)
    # python-control's dlqe returns the predicted covariance and the predictor gain A K.
    L, P_dlqe, _ = control.dlqe(A, np.eye(2), C, Q, Theta)
    np.testing.assert_allclose(ss.P_pred, P_dlqe, rtol=1e-9)
    np.testing.assert_allclose(L, A @ ss.K, rtol=1e-9)
    bounds = error_covariance_bounds(sys, mech)
    # log det Q = -inf: the bounds are true but say nothing, and they say why.
    assert not bounds.applies and "singular (rank 1 < n = 2)" in bounds.reason
    assert bounds.log_det == bounds.log_det_chain == -np.inf and bounds.trace_am_gm == 0.0
    assert bounds.trace_vacuous and bounds.trace_chain_vacuous


def test_a_plant_driven_through_one_input_filters_as_the_dare_says():
    sys = control.ss(A_ONE, B_ONE, C_ONE, 0, 1.0)
    mech = design_noise(sys, 6.0, 0.01, process_noise=Q_W_ONE)
    S, trace_se, log_det_se = empirical_error_covariance(sys, mech, 40, 200, 20, 3)
    P = steady_state(sys, mech).P
    assert abs(np.trace(S) - np.trace(P)) <= 5 * trace_se
    assert abs(np.linalg.slogdet(S)[1] - np.linalg.slogdet(P)[1]) <= 5 * log_det_se


def test_other_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="feedthrough D"):
        LTIPlant.from_statespace(control.ss(A, B, C, np.ones((2, 3)), 1.0))
    with pytest.raises(TypeError, match=r"control\.ss"):
        LTIPlant.from_statespace(control.tf([1.0], [1.0, -0.5], 1.0))
    with pytest.raises(TypeError, match="LTIPlant or a discrete-time control.StateSpace"):
        steady_state(A, np.eye(2))
    with pytest.raises(TypeError, match="from_statespace"):
        LTIPlant(system(), C)
    with pytest.raises(ValueError, match="process_noise applies to a python-control"):
        steady_state(LTIPlant(A, C, np.eye(3)), np.eye(2), process_noise=np.eye(3))
    with pytest.raises(ValueError, match="process_noise must be 3x3"):
        as_plant(system(), np.eye(2))
    with pytest.raises(TypeError, match=r"design_noise\(plant"):
        linear_mechanism_noise(system(), np.eye(3), EPSILON, DELTA)
    with pytest.raises(ValueError, match="another C"):
        steady_state(system(), design_noise(control.ss(A, B, np.eye(3)[:2], 0, 1.0), 7.0, 0.01))
    with pytest.raises(ValueError, match="epsilon and delta are required"):
        error_covariance_bounds(system(), np.eye(2))


def test_theta_as_a_factored_covariance_and_the_filter_on_a_statespace():
    sys = system()
    mech = design_noise(sys, EPSILON, DELTA)
    Theta = mech.noise_covariance.matrix()
    expected = steady_state(sys, Theta)
    np.testing.assert_allclose(steady_state(sys, mech.noise_covariance).P, expected.P)
    kf = kalman_filter(sys, mech)
    np.testing.assert_allclose(kf.P, prior_covariance(sys), rtol=1e-12)
    # Independent runs filtered from the true prior: the error at the last step is
    # N(0, P_k) exactly, and P_k has converged to the DARE's P.
    runs, steps = 800, 60
    X = as_plant(sys).simulate(steps, runs, rng=3)
    Y = mech.release((X @ C.T).reshape(-1, 2), seed=4).values.reshape(runs, steps, 2)
    X_hat, P_k = filter_outputs(sys, mech, Y)
    assert X_hat.shape == X.shape
    np.testing.assert_allclose(P_k[-1], expected.P, rtol=1e-8)
    errors = (X - X_hat)[:, -1]
    statistic = np.sum(errors * np.linalg.solve(P_k[-1], errors.T).T)
    dof = errors.size  # chi-square with n R degrees of freedom: two-sided test at level 1e-3
    assert stats.chi2.ppf(5e-4, dof) < statistic < stats.chi2.ppf(1 - 5e-4, dof)


def test_aggregation_and_network_take_statespaces():
    zones = [control.ss([[a]], [[1.0]], [[1.0]], 0, 1.0) for a in (0.75, 0.5, 0.2)]
    design = design_aggregation(zones, [[1 / 3]], [6.0, 7.0, 8.0], 0.001, process_noise=0.4)
    reference = design_fixed_Q(
        np.array([0.75, 0.5, 0.2])[:, None, None],
        [[1.0]],
        [[1 / 3]],
        [[0.4]],
        [6.0, 7.0, 8.0],
        0.001,
    )
    np.testing.assert_allclose(design.Theta, reference.Theta, rtol=1e-13)
    for i in range(3):
        release = design.mechanism(i).release(np.zeros((4, 1)), seed=i)
        assert release.certificate.passed and release.values.shape == (4, 1)
    net = network(zones)
    np.testing.assert_allclose(
        net.prior_covariance(), np.diag(1 / (1 - np.array([0.75, 0.5, 0.2]) ** 2))
    )
    with pytest.raises(ValueError, match="share the state and output dimensions"):
        design_aggregation([zones[0], system()], [[1.0]], 7.0, 0.01)


def test_discretised_continuous_plant_with_integrated_noise():
    # The standard route for a continuous-time model: c2d for A, Van Loan for Q.
    from ssa_privacy.plants import white_noise_covariance

    Ac = np.array([[-0.5, 1.0], [0.0, -0.8]])
    Bc = np.eye(2)
    discrete = control.c2d(control.ss(Ac, Bc, np.eye(2), 0), 0.2)
    Q = white_noise_covariance(Ac, Bc, np.eye(2), 0.2)
    plant = LTIPlant(discrete.A, discrete.C, Q, 0.2)
    np.testing.assert_allclose(plant.A, linalg.expm(Ac * 0.2), rtol=1e-12)
    mech = design_noise(plant, EPSILON, DELTA, method="logdet")
    assert error_covariance_bounds(plant, mech).applies
