"""Plants as users write them: noise through fewer inputs than states, and the edges.

A python-control system ``x_{k+1} = A x_k + B w_k`` with ``rank B < n`` has a singular
``Q = B Q_w B^T``. For a Schur-stable ``A`` the stationary prior still solves the Lyapunov
equation [LKC] (27); its range is the controllable subspace of ``(A, B Q_w^{1/2})``, the
rest has zero prior variance and needs no noise. Accepted plants are checked against that
theory; refused inputs must raise the stated exception with a one-line message naming the
argument or object at fault.
"""

import re

import control
import numpy as np
import pytest

from ssa_privacy.estimation.kalman import (
    empirical_error_covariance,
    error_covariance_bounds,
    filter_outputs,
    kalman_filter,
    steady_state,
)
from ssa_privacy.plants import LTIPlant, as_plant, prior_covariance, prior_range
from ssa_privacy.privacy.pml.plant import design_noise

EPSILON, DELTA = 6.0, 0.01
A2 = [[0.9, 0.1], [0.0, 0.8]]

#: (label, A, B, C, Q_w): rank B < n, A Schur stable.
RANK_DEFICIENT = [
    ("2x1-controllable", A2, [[1.0], [0.5]], [[1.0, 0.0]], 0.04),
    ("2x1-drives-second", A2, [[0.0], [1.0]], [[1.0, 0.0]], 1.0),
    (
        "3x1-chain",
        [[0.5, 1.0, 0.0], [0.0, 0.5, 1.0], [0.0, 0.0, 0.5]],
        [[0], [0], [1]],
        [[1, 0, 0]],
        2.0,
    ),
    (
        "3x2-rotation",
        [[0.6, -0.3, 0], [0.3, 0.6, 0], [0, 0.2, 0.7]],
        [[1, 0], [0, 0], [0, 1]],
        [[1, 0, 0], [0, 0, 1]],
        [[0.5, 0.1], [0.1, 0.3]],
    ),
    ("2x1-uncontrollable", [[0.9, 0.0], [0.0, 0.5]], [[1.0], [0.0]], [[1.0, 1.0]], 0.3),
    (
        "3x1-uncontrollable",
        [[0.7, 0.2, 0.0], [0.0, 0.6, 0.0], [0.0, 0.0, -0.4]],
        [[1.0], [1.0], [0.0]],
        [[1.0, 0.0, 1.0]],
        1.0,
    ),
    (
        "3x2-one-dead-mode",
        [[0.5, 0, 0], [0, 0.5, 0], [0, 0, 0.2]],
        [[1, 0], [0, 1], [0, 0]],
        [[1, 1, 1]],
        np.eye(2),
    ),
    (
        "4x1-scaled-identity",
        0.5 * np.eye(4),
        [[1.0], [2.0], [0.0], [-1.0]],
        [[1.0, 0.0, 0.0, 0.0]],
        0.1,
    ),
]
IDS = [case[0] for case in RANK_DEFICIENT]


def _system(A, B, C):
    B = np.atleast_2d(np.array(B, dtype=float))
    return control.ss(np.array(A, dtype=float), B, np.array(C, dtype=float), 0, 1.0)


def _names(message, name):
    """Whether ``name`` occurs in ``message`` as a word (not inside a longer identifier)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message)


def _controllable_rank(A, B, Q_w):
    B = np.atleast_2d(np.array(B, dtype=float))
    Q_w = Q_w * np.eye(B.shape[1]) if np.ndim(Q_w) == 0 else np.array(Q_w, dtype=float)
    return np.linalg.matrix_rank(
        control.ctrb(np.array(A, dtype=float), B @ np.linalg.cholesky(Q_w))
    )


@pytest.mark.parametrize(("label", "A", "B", "C", "Q_w"), RANK_DEFICIENT, ids=IDS)
def test_the_prior_of_a_rank_deficient_input_solves_lyapunov_on_the_controllable_subspace(
    label, A, B, C, Q_w
):
    plant = LTIPlant.from_statespace(_system(A, B, C), Q_w)
    A, Q = plant.A, plant.Q
    assert np.linalg.matrix_rank(Q) < plant.n  # the case of interest: Q singular
    Sigma = plant.prior_covariance()
    np.testing.assert_allclose(A @ Sigma @ A.T + Q, Sigma, atol=1e-13 * np.abs(Sigma).max())
    # Range of the prior = controllable subspace of (A, B Q_w^{1/2}) (Kalman decomposition).
    U = prior_range(Sigma)
    assert U.shape[1] == _controllable_rank(A, B, Q_w)
    residual = Sigma - U @ U.T @ Sigma @ U @ U.T
    assert np.abs(residual).max() <= 1e-12 * np.abs(Sigma).max()  # nothing outside the range


@pytest.mark.parametrize(("label", "A", "B", "C", "Q_w"), RANK_DEFICIENT, ids=IDS)
def test_design_filter_and_bounds_accept_a_rank_deficient_input(label, A, B, C, Q_w):
    sys = _system(A, B, C)
    plant = LTIPlant.from_statespace(sys, Q_w)
    mech = design_noise(sys, EPSILON, DELTA, process_noise=Q_w)
    assert mech.certificate().passed
    np.testing.assert_array_equal(mech.process_noise, plant.Q)
    r = _controllable_rank(A, B, Q_w)
    # A singular prior is designed on its range, and says so through its basis.
    assert (mech.state_basis is None) == (r == plant.n)
    if mech.state_basis is not None:
        assert mech.state_basis.shape == (plant.n, r)
        np.testing.assert_allclose(mech.C, plant.C @ mech.state_basis, atol=1e-15)
    ss = steady_state(sys, mech)  # takes the design's Q
    gain = ss.P_pred @ plant.C.T @ np.linalg.inv(plant.C @ ss.P_pred @ plant.C.T + mech.Theta)
    riccati = plant.A @ (ss.P_pred - gain @ plant.C @ ss.P_pred) @ plant.A.T + plant.Q
    np.testing.assert_allclose(riccati, ss.P_pred, atol=1e-12 * np.abs(ss.P_pred).max())
    bounds = error_covariance_bounds(sys, mech)
    assert not bounds.applies and f"rank {np.linalg.matrix_rank(plant.Q)} < n" in bounds.reason
    assert bounds.log_det == -np.inf and bounds.trace_vacuous  # true, and says nothing


@pytest.mark.parametrize(
    ("A", "B", "C"),
    [
        ([[0.9, 0.0], [0.0, 0.5]], [[1.0], [0.0]], [[0.0, 1.0]]),
        ([[0.5, 0, 0], [0, 0.5, 0], [0, 0, 0.2]], [[1, 0], [0, 1], [0, 0]], [[0, 0, 1]]),
        (0.5 * np.eye(2), [[0.0], [0.0]], [[1.0, 1.0]]),
    ],
    ids=["output-on-dead-mode", "output-on-dead-mode-3", "no-noise-at-all"],
)
def test_outputs_that_see_only_zero_variance_states_need_no_noise(A, B, C):
    with pytest.raises(ValueError) as raised:
        design_noise(_system(A, B, C), EPSILON, DELTA)
    message = str(raised.value)
    assert _names(message, "plant") and "needs no noise" in message and "\n" not in message


UNSTABLE = [[1.1, 0.0], [0.0, 0.5]]


@pytest.mark.parametrize(
    "call",
    [
        lambda: LTIPlant(UNSTABLE, [[1.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]]),
        lambda: LTIPlant.from_statespace(_system(UNSTABLE, [[1.0], [0.0]], [[1.0, 0.0]])),
        lambda: prior_covariance(UNSTABLE, [[1.0, 0.0], [0.0, 0.0]]),
        lambda: design_noise(_system(UNSTABLE, [[0.0], [1.0]], [[1.0, 0.0]]), EPSILON, DELTA),
        lambda: as_plant(_system([[1.0, 1.0], [0.0, 1.0]], [[0.0], [1.0]], [[1.0, 0.0]])),
    ],
    ids=["LTIPlant", "from_statespace", "prior_covariance", "design_noise", "double-integrator"],
)
def test_an_unstable_plant_with_singular_noise_is_refused_naming_A(call):
    with pytest.raises(ValueError) as raised:
        call()
    message = str(raised.value)
    assert _names(message, "A") and "Schur stable" in message and "\n" not in message


SYS = _system(A2, [[1.0], [0.5]], [[1.0, 0.0]])
MECH = design_noise(SYS, EPSILON, DELTA, process_noise=0.04)
OTHER_Q = LTIPlant(A2, [[1.0, 0.0]], np.eye(2))
Y = np.zeros((5, 1))


@pytest.mark.parametrize(
    "call",
    [
        lambda: steady_state(SYS, MECH, process_noise=1.0),
        lambda: steady_state(OTHER_Q, MECH),
        lambda: kalman_filter(SYS, MECH, process_noise=[[0.05]]),
        lambda: filter_outputs(OTHER_Q, MECH, Y),
        lambda: error_covariance_bounds(SYS, MECH, process_noise=0.5),
        lambda: empirical_error_covariance(OTHER_Q, MECH, 2, 5, 0, 0),
    ],
    ids=[
        "steady_state",
        "steady_state-LTIPlant",
        "kalman_filter",
        "filter_outputs",
        "bounds",
        "empirical",
    ],
)
def test_a_plant_with_another_process_noise_than_the_design_is_refused(call):
    with pytest.raises(ValueError) as raised:
        call()
    message = str(raised.value)
    assert _names(message, "Q") and _names(message, "Theta") and "designed" in message
    assert "\n" not in message


def test_the_mechanism_remembers_its_process_noise():
    # Without process_noise the StateSpace takes the design's Q = 0.04 B B^T, not B B^T.
    designed = LTIPlant(A2, [[1.0, 0.0]], 0.04 * np.array([[1.0, 0.5], [0.5, 0.25]]))
    np.testing.assert_allclose(
        steady_state(SYS, MECH).P, steady_state(designed, MECH.Theta).P, rtol=1e-12
    )
    np.testing.assert_allclose(
        steady_state(SYS, MECH, process_noise=0.04).P, steady_state(SYS, MECH).P
    )
    # A bare matrix carries no Q: identity input noise, Q = B B^T >= 0.04 B B^T, and the
    # Riccati solution is monotone in Q, so the filter error is larger in the PSD order.
    gap = steady_state(SYS, MECH.Theta).P - steady_state(SYS, MECH).P
    assert np.linalg.eigvalsh(gap)[0] >= -1e-15 and np.trace(gap) > 1e-3
    # Kept by with_noise and by the certified inflation.
    np.testing.assert_array_equal(MECH.with_noise(2 * MECH.Theta).process_noise, MECH.process_noise)


@pytest.mark.parametrize(
    ("process_noise", "error", "name"),
    [
        ([[1.0, 0.2], [0.0, 1.0]], ValueError, "process_noise"),
        ([[1.0, 2.0], [2.0, 1.0]], ValueError, "process_noise"),
        ([[np.nan, 0.0], [0.0, 1.0]], ValueError, "process_noise"),
        ([[np.inf, 0.0], [0.0, 1.0]], ValueError, "process_noise"),
        (np.eye(3), ValueError, "process_noise"),
        ([1.0, 1.0], ValueError, "process_noise"),
        (-0.1, ValueError, "process_noise"),
        (0.0, ValueError, "process_noise"),
        (np.nan, ValueError, "process_noise"),
        ("1.0", TypeError, "process_noise"),
        (True, TypeError, "process_noise"),
    ],
    ids=[
        "non-symmetric",
        "indefinite",
        "nan",
        "inf",
        "wrong-shape",
        "vector",
        "negative",
        "zero",
        "scalar-nan",
        "string",
        "bool",
    ],
)
def test_a_bad_process_noise_is_refused_naming_it(process_noise, error, name):
    sys = _system([[0.9, 0.1], [0.0, 0.8]], [[1.0, 0.0], [0.5, 1.0]], [[1.0, 0.0]])
    for call in (
        LTIPlant.from_statespace,
        lambda s, q: design_noise(s, EPSILON, DELTA, process_noise=q),
    ):
        with pytest.raises(error) as raised:
            call(sys, process_noise)
        message = str(raised.value)
        assert _names(message, name) and "\n" not in message, message


@pytest.mark.parametrize(
    ("A", "C", "Q", "name"),
    [
        (A2, [[1.0, 0.0]], [[1.0, 0.5], [0.0, 1.0]], "Q"),
        (A2, [[1.0, 0.0]], [[1.0, 0.0], [0.0, -1e-3]], "Q"),
        (A2, [[1.0, 0.0]], [[np.nan, 0.0], [0.0, 1.0]], "Q"),
        (A2, [[1.0, 0.0]], np.eye(3), "Q"),
        (A2, [[1.0, 0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], "C"),
        ([[0.5, 0.0, 0.0], [0.0, 0.5, 0.0]], [[1.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], "A"),
    ],
    ids=[
        "Q-non-symmetric",
        "Q-indefinite",
        "Q-nan",
        "Q-wrong-shape",
        "C-wrong-shape",
        "A-not-square",
    ],
)
def test_a_bad_plant_is_refused_naming_the_matrix(A, C, Q, name):
    with pytest.raises(ValueError) as raised:
        LTIPlant(A, C, Q)
    message = str(raised.value)
    assert _names(message, name) and "\n" not in message, message


def test_a_process_noise_with_an_ltiplant_is_refused():
    with pytest.raises(ValueError, match="process_noise applies to a python-control StateSpace"):
        design_noise(OTHER_Q, EPSILON, DELTA, process_noise=1.0)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 50.0])
def test_the_trace_bound_says_when_it_is_vacuous(scale):
    # Scaling the state scales Q, Sigma_XX and P by scale: log det Q moves, n + (28) with it.
    plant = LTIPlant(A2, np.eye(2), scale * np.array([[0.4, 0.05], [0.05, 0.3]]))
    mech = design_noise(plant, EPSILON, DELTA)
    bounds = error_covariance_bounds(plant, mech)
    assert bounds.applies and bounds.reason == ""
    assert bounds.trace_vacuous == (bounds.trace <= 0) == (2 + bounds.log_det <= 0)
    assert bounds.trace_chain_vacuous == (bounds.trace_chain <= 0)
    P = steady_state(plant, mech).P
    assert np.trace(P) >= bounds.trace_am_gm * (1 - 1e-9) > 0  # AM-GM: never vacuous
    if not bounds.trace_vacuous:
        assert np.trace(P) >= bounds.trace
