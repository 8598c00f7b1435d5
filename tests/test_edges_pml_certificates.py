"""Edges of the PML certificates: pass and plant designs over budgets, bad inputs.

Every returned design's certificate must pass, and an independent 50-digit computation
of the mutual information of the stored inputs (mpmath, Sylvester's determinant identity
``det(I + S^T J S) = det(I + R Sigma_XX R^T)`` for a stream, the log-det ratio of the
noisy and the noise covariance for a mechanism) must lie within the certificate's proven
``information_error`` of its computed value. Uncounted eigenvalues (at most
``EIGENVALUE_TOL`` each, the stated resolution) may add ``n EIGENVALUE_TOL / 2`` nats.
Every refused input must raise the documented type with a message naming what was wrong.
"""

import control
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_pass_privacy import _passes

from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.privacy.accounting import maximum_epsilon
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism
from ssa_privacy.privacy.pml.information_form import (
    EIGENVALUE_TOL,
    information_certificate,
)
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.privacy.pml.plant import design_noise
from ssa_privacy.privacy.pml.stream import ReleaseStream, stream_certificate

DELTA = 0.01
PLANT = control.ss([[0.8, 0.1], [0.0, 0.6]], np.eye(2), np.eye(2), 0, 1.0)


def _mp(A):
    return mpmath.matrix(np.asarray(A, dtype=float).tolist())


def exact_stream_information(Sigma_XX, R):
    """``log det(I + R Sigma_XX R^T) / 2`` of the stored R and Sigma_XX, 50 digits."""
    with mpmath.workdps(50):
        Rm = _mp(R)
        return float(mpmath.log(mpmath.det(mpmath.eye(Rm.rows) + Rm * _mp(Sigma_XX) * Rm.T)) / 2)


def exact_mechanism_information(C, Sigma_XX, noise):
    """``(log det(C Sigma C^T + Theta) - log det Theta) / 2``, Theta = U diag(theta) U^T."""
    with mpmath.workdps(50):
        U = _mp(noise.eigenvectors)
        Theta = U * mpmath.diag([mpmath.mpf(float(t)) for t in noise.eigenvalues]) * U.T
        Cm = _mp(C)
        signal = Cm * _mp(Sigma_XX) * Cm.T
        return float((mpmath.log(mpmath.det(signal + Theta)) - mpmath.log(mpmath.det(Theta))) / 2)


def assert_encloses(certificate, exact, n):
    information = certificate.evidence["mutual_information"]
    bound = certificate.evidence["information_error"] + n * EIGENVALUE_TOL / 2
    assert abs(exact - information) <= bound


@pytest.fixture(scope="module")
def iss_pass():
    found, Sigma_XX = _passes(iss_element_set(), hours=3.0)
    return found[0], Sigma_XX


@pytest.mark.parametrize("designer", ["logdet", "scaled"])
@pytest.mark.parametrize("budget", [9.0, 12.0, 16.0, 20.0, 30.0, 45.0])
def test_a_pass_design_is_certified_and_its_information_is_enclosed(iss_pass, designer, budget):
    item, Sigma_XX = iss_pass
    noise = PassMechanism.design(item, Sigma_XX, budget, DELTA, designer=designer)
    certificate = noise.certificate()
    assert certificate.passed and certificate.evidence["form"] == "information"
    assert_encloses(certificate, exact_stream_information(Sigma_XX, noise.stream.factor), 6)


def test_the_information_form_bound_is_below_a_micro_nat_on_a_radar_pass_at_20_nats(iss_pass):
    item, Sigma_XX = iss_pass
    certificate = PassMechanism.design(item, Sigma_XX, 20.0, DELTA).certificate()
    assert certificate.tolerance < 1e-6


def _random_prior(rng, n, condition):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    units = np.diag(np.r_[np.ones(n // 2), 1e-3 * np.ones(n - n // 2)])  # km and km/s
    return units @ (Q * np.geomspace(1.0, 1.0 / condition, n)) @ Q.T @ units


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("condition", [1e2, 1e8])
@pytest.mark.parametrize("strength", [1e-3, 1.0, 1e6])
def test_the_stream_certificate_encloses_the_exact_information(seed, condition, strength):
    rng = np.random.default_rng(seed)
    Sigma_XX = _random_prior(rng, 6, condition)
    C = strength * rng.standard_normal((3, 4, 6)) / np.sqrt(np.diag(Sigma_XX))
    stream = ReleaseStream.of(C, np.eye(4))
    certificate = stream_certificate(Sigma_XX, stream, 1e3, DELTA)
    assert np.isfinite(certificate.tolerance)
    assert_encloses(certificate, exact_stream_information(Sigma_XX, stream.factor), 6)


@given(
    n=st.integers(1, 6),
    k=st.integers(1, 5),
    log_condition=st.floats(0.0, 10.0),
    log_strength=st.floats(-4.0, 7.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_stream_certificate_encloses_the_exact_information_of_random_streams(
    n, k, log_condition, log_strength, seed
):
    """The property version of the test above, over sizes, conditions and strengths."""
    rng = np.random.default_rng(seed)
    Sigma_XX = _random_prior(rng, n, 10.0**log_condition)
    C = 10.0**log_strength * rng.standard_normal((k, 2, n)) / np.sqrt(np.diag(Sigma_XX))
    stream = ReleaseStream.of(C, np.eye(2))
    certificate = stream_certificate(Sigma_XX, stream, 1e4, DELTA)
    assert np.isfinite(certificate.tolerance)
    assert_encloses(certificate, exact_stream_information(Sigma_XX, stream.factor), n)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("spread", [1.0, 1e-6])
@pytest.mark.parametrize("condition", [1e3, 1e10])
def test_the_mechanism_information_form_encloses_the_exact_information(seed, spread, condition):
    rng = np.random.default_rng(seed)
    Sigma_XX = _random_prior(rng, 4, condition)
    C = rng.standard_normal((3, 4)) / np.sqrt(np.diag(Sigma_XX))
    Q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    noise = FactoredCovariance(np.array([1.0, spread, spread**2]) * 1e-8, Q, "given")
    certificate = information_certificate(Sigma_XX, 60.0, DELTA, "exact", C=C, noise=noise)
    assert np.isfinite(certificate.tolerance)
    assert_encloses(certificate, exact_mechanism_information(C, Sigma_XX, noise), 4)


@pytest.mark.parametrize("epsilon", [6.0, 20.0, 30.0, 35.0, 50.0, 78.0])
def test_a_plant_design_is_certified_at_large_epsilon(epsilon):
    """Up to the largest meaningful budget of two outputs (78.08 nats at delta = 0.01)."""
    mechanism = design_noise(PLANT, epsilon, DELTA)
    certificate = mechanism.certificate()
    assert certificate.passed
    exact = exact_mechanism_information(mechanism.C, mechanism.Sigma_XX, mechanism.noise_covariance)
    assert_encloses(certificate, exact, 2)


#: The plant of a python-control user: noise through one input, B Q_w B^T of rank 1.
INPUT_NOISE_PLANT = control.ss([[0.9, 0.1], [0.0, 0.8]], [[1.0], [0.5]], [[1.0, 0.0]], 0, 1.0)


@pytest.mark.parametrize("epsilon", [6.0, 30.0, 39.0])
def test_a_plant_with_input_noise_is_certified(epsilon):
    mechanism = design_noise(INPUT_NOISE_PLANT, epsilon, DELTA, process_noise=[[0.04]])
    assert mechanism.certificate().passed
    exact = exact_mechanism_information(mechanism.C, mechanism.Sigma_XX, mechanism.noise_covariance)
    assert_encloses(mechanism.certificate(), exact, 2)


@pytest.mark.parametrize("epsilon", [79.0, 1e4, 1e300])
def test_a_budget_above_the_largest_meaningful_one_gets_that_budget_s_noise(epsilon):
    """Two outputs: above maximum_epsilon(delta, 2) the closed form aims at that budget
    (less noise would lie below the rounding of the signal), which meets epsilon."""
    mechanism = design_noise(PLANT, epsilon, DELTA)
    at_the_bound = design_noise(PLANT, maximum_epsilon(DELTA, 2), DELTA)
    np.testing.assert_allclose(mechanism.Theta, at_the_bound.Theta, rtol=1e-9)
    assert mechanism.certificate().passed and mechanism.epsilon == epsilon


@pytest.mark.parametrize("method", ["lmi", "logdet"])
def test_a_cone_design_below_the_solver_s_accuracy_names_epsilon(method):
    """The cone solvers cannot reach the noise of large budgets: one line naming epsilon."""
    with pytest.raises((ValueError, RuntimeError), match=r"epsilon = 1e\+300 nats") as raised:
        design_noise(PLANT, 1e300, DELTA, method=method)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("C", "named"),
    [
        ([[1.0, 0.0], [0.0, 0.0]], r"row\(s\) \[1\]"),
        ([[0.0, 0.0], [0.0, 1.0]], r"row\(s\) \[0\]"),
        ([[1.0, 0.0], [2.0, 0.0]], "rank 1"),
        ([[1.0, 1.0], [1.0, 1.0], [0.0, 1.0]], "rank 2"),
    ],
)
def test_a_plant_with_a_dead_or_dependent_output_is_refused(C, named):
    plant = control.ss([[0.8, 0.1], [0.0, 0.6]], np.eye(2), C, 0, 1.0)
    with pytest.raises(ValueError, match=f"plant: .*{named}"):
        design_noise(plant, 10.0, DELTA)


@pytest.mark.parametrize("epsilon", [30.0, 50.0])
def test_the_logdet_plant_design_is_certified_or_names_the_solver_status(epsilon):
    try:
        mechanism = design_noise(PLANT, epsilon, DELTA, method="logdet")
    except RuntimeError as error:
        assert f"epsilon = {epsilon!r}" in str(error) and "status" in str(error)
    else:
        assert mechanism.certificate().passed


def test_a_singular_noise_has_no_information_certificate():
    noise = FactoredCovariance(np.array([1.0]), np.array([[1.0], [0.0]]), "given")
    certificate = information_certificate(np.eye(2), 10.0, DELTA, "exact", C=np.eye(2), noise=noise)
    assert not certificate.passed and certificate.margin == -np.inf
    assert "noise covariance Theta" in certificate.evidence["reason"]


def test_a_mechanism_keeps_the_more_conclusive_of_its_two_certificates():
    mechanism = LinearGaussianMechanism.design(np.eye(2), np.eye(2), 30.0, DELTA)
    assert mechanism.certificate().passed
    assert mechanism.certificate().evidence["form"] == "information"


@pytest.mark.parametrize(
    ("arguments", "error", "named"),
    [
        (dict(), ValueError, "factor, or C and noise"),
        (dict(C=np.eye(2)), ValueError, "factor, or C and noise"),
        (dict(factor=np.eye(2), C=np.eye(2), noise=1), ValueError, "factor, or C and noise"),
        (dict(factor=np.eye(2), convention="other"), ValueError, "convention"),
    ],
)
def test_information_certificate_refuses_ambiguous_inputs(arguments, error, named):
    convention = arguments.pop("convention", "exact")
    with pytest.raises(error, match=named):
        information_certificate(np.eye(2), 10.0, DELTA, convention, **arguments)


STREAM = ReleaseStream.of(np.eye(2), np.eye(2))


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (dict(stream=np.eye(2)), "stream must be a ReleaseStream"),
        (dict(Sigma_XX=np.eye(3)), "Sigma_XX"),
        (dict(Sigma_XX=-np.eye(2)), "Sigma_XX"),
        (dict(Sigma_XX=np.full((2, 2), np.nan)), "Sigma_XX"),
        (dict(delta=1.5), "delta"),
        (dict(delta=0.0), "delta"),
        (dict(epsilon=np.nan), "epsilon"),
        (dict(epsilon=np.inf), "epsilon"),
        (dict(convention="nats"), "convention"),
    ],
)
def test_stream_certificate_names_the_bad_argument(arguments, named):
    call = dict(Sigma_XX=np.eye(2), stream=STREAM, epsilon=10.0, delta=DELTA)
    call.update(arguments)
    with pytest.raises(TypeError if "stream" in arguments else ValueError, match=named):
        stream_certificate(**call)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (dict(designer="dense"), "designer"),
        (dict(epsilon=5.0), "epsilon must exceed"),
        (dict(delta=2.0), "delta"),
    ],
)
def test_pass_noise_names_the_bad_argument(iss_pass, arguments, named):
    item, Sigma_XX = iss_pass
    call = dict(epsilon=12.0, delta=DELTA, designer="logdet")
    call.update(arguments)
    with pytest.raises(ValueError, match=named):
        PassMechanism.design(item, Sigma_XX, **call)
