"""The pieces of the catalogue filter: contacts, process noise, the J2 flow with its
transition, the manoeuvre prior, and the consistency of the per-contact EKF."""

import numpy as np
import pytest
from scipy import linalg, stats

from ssa_privacy.estimation import ekf
from ssa_privacy.estimation.contacts import ContactMeasurements
from ssa_privacy.estimation.ekf import FILTER_PSD, process_noise, track_contacts
from ssa_privacy.estimation.tracking import TrackingModel
from ssa_privacy.estimation.ukf import measurement_residual
from ssa_privacy.orbits.frames import hill_to_inertial
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import KEEPING_SCALES, MANOEUVRE_PSD, manoeuvre_prior
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import Pass, contacts, object_stream

# --- contacts ---------------------------------------------------------------------------


def _pass(station, first, last):
    K = last - first + 1
    return Pass(station, np.arange(first, last + 1), np.zeros((K, 4, 6)), np.eye(4))


def _expected_contacts(found):
    """Connected components of the graph 'the sample ranges share an index' (union-find)."""
    parent = list(range(len(found)))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i, a in enumerate(found):
        for j, b in enumerate(found[:i]):
            if a.indices[0] <= b.indices[-1] and b.indices[0] <= a.indices[-1]:
                parent[root(i)] = root(j)
    groups = {}
    for i in range(len(found)):
        groups.setdefault(root(i), set()).add(i)
    return {frozenset(g) for g in groups.values()}


def _check_partition_in_time_order(found, grouped):
    flat = [i for group in grouped for i in group]
    assert sorted(flat) == list(range(len(found)))  # every pass exactly once
    spans = [
        (min(found[i].indices[0] for i in g), max(found[i].indices[-1] for i in g)) for g in grouped
    ]
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert end < start  # contacts are disjoint in time and in time order


def test_overlapping_passes_share_a_contact_and_the_others_do_not():
    """Given station by station: A (0-9) and B (5-14) overlap, D (14-16) shares sample 14
    with B, so A, B, D are one contact (A and D only through B); E (17-19) touches none;
    G (30-31) and H (31-40) share 31; C and I are alone."""
    found = [
        _pass(0, 0, 9),  # 0: A
        _pass(0, 20, 25),  # 1: C
        _pass(0, 50, 50),  # 2: I, one sample
        _pass(1, 5, 14),  # 3: B
        _pass(1, 30, 31),  # 4: G
        _pass(2, 14, 16),  # 5: D
        _pass(2, 31, 40),  # 6: H
        _pass(3, 17, 19),  # 7: E
    ]
    grouped = contacts(found)
    assert [set(g) for g in grouped] == [{0, 3, 5}, {7}, {1}, {4, 6}, {2}]
    _check_partition_in_time_order(found, grouped)
    assert contacts([]) == []


def test_contacts_are_the_components_of_the_overlap_graph():
    """300 random sets of passes (up to 5 stations, up to 12 passes over 200 samples): the
    contacts are the connected components of the overlap graph, each pass once, in time
    order."""
    rng = np.random.default_rng(4)
    for _ in range(300):
        found = []
        for station in range(rng.integers(1, 6)):
            start = 0
            for _ in range(rng.integers(0, 4)):
                start += int(rng.integers(0, 40))
                length = int(rng.integers(1, 25))
                found.append(_pass(station, start, start + length - 1))
                start += length  # a station's passes do not overlap each other
        grouped = contacts(found)
        assert {frozenset(g) for g in grouped} == _expected_contacts(found)
        _check_partition_in_time_order(found, grouped)


# --- process noise ----------------------------------------------------------------------


@pytest.mark.parametrize("dt", [0.0, 1.0, 30.0, 5400.0])
def test_process_noise_is_the_white_acceleration_covariance(dt):
    """Van Loan's matrix exponential of the constant-velocity model with white
    acceleration of PSD q gives the same Q (Bar-Shalom et al. 6.2.2); Q is PSD, PD for
    dt > 0, and zero for dt = 0."""
    q = 2.5e-14
    A = np.block([[np.zeros((3, 3)), np.eye(3)], [np.zeros((3, 3)), np.zeros((3, 3))]])
    G = np.vstack([np.zeros((3, 3)), np.eye(3)])
    van_loan = linalg.expm(np.block([[-A, q * G @ G.T], [np.zeros((6, 6)), A.T]]) * dt)
    expected = van_loan[6:, 6:].T @ van_loan[:6, 6:]
    Q = process_noise(dt, q)
    np.testing.assert_allclose(Q, expected, rtol=1e-9, atol=1e-30)
    np.testing.assert_array_equal(Q, Q.T)
    eigenvalues = np.linalg.eigvalsh(Q)
    if dt == 0:
        assert np.all(Q == 0)
    else:
        assert eigenvalues.min() > 0
    # default PSD: the module's constant (none: the model error is measured), linear in q
    np.testing.assert_allclose(process_noise(dt), process_noise(dt, 1.0) * FILTER_PSD, rtol=1e-12)
    np.testing.assert_allclose(process_noise(dt, 2 * q), 2 * Q, rtol=1e-12)


# --- the J2 flow with its transition ----------------------------------------------------


@pytest.fixture(scope="module")
def three_states():
    iss = iss_element_set().state_at_epoch()
    offsets = np.array(
        [[0, 0, 0, 0, 0, 0], [1.0, -2.0, 0.5, 1e-3, 0, -1e-3], [-3, 1, 2, 0, 2e-3, 0]]
    )
    return iss + offsets


def test_paths_with_transition_are_the_propagated_paths(three_states):
    """The paths equal ``propagate_many`` of the same states at the same tolerance to
    within the integration error (1e-8 relative over a day at 1e-10, here 6 h); Phi is
    that of ``transition_matrices`` and starts at the identity."""
    model = J2Propagator()
    times = np.arange(0.0, 6 * 3600.0 + 1.0, 600.0)
    paths, Phi = model.propagate_with_transition(times, three_states, rtol=1e-10, atol=1e-10)
    assert paths.shape == (3, len(times), 6) and Phi.shape == (3, len(times), 6, 6)
    reference = model.propagate_many(times, three_states, 1e-10, 1e-10)
    radius = np.linalg.norm(reference[..., :3], axis=-1)
    assert np.all(np.linalg.norm(paths[..., :3] - reference[..., :3], axis=-1) <= 1e-8 * radius)
    np.testing.assert_array_equal(
        Phi, model.transition_matrices(times, three_states, rtol=1e-10, atol=1e-10)
    )
    np.testing.assert_allclose(Phi[:, 0], np.broadcast_to(np.eye(6), (3, 6, 6)), atol=1e-9)
    # first order: x(t; x0 + d) - x(t; x0) = Phi d, to 1e-3 of the change for 10 m, 1 cm/s
    d = np.array([0.01, -0.005, 0.008, 1e-5, -5e-6, 8e-6])
    moved = model.propagate_many(times, three_states + d, 1e-12, 1e-12)
    exact = model.propagate_many(times, three_states, 1e-12, 1e-12)
    change, predicted = moved - exact, Phi @ d
    scale = np.abs(change[..., :3]).max()
    assert np.abs(change[..., :3] - predicted[..., :3]).max() <= 1e-3 * scale


def test_an_objects_transition_does_not_depend_on_the_other_objects_of_the_call():
    """Phi of each of 20 objects integrated together equals Phi of the object alone to
    1e-5 relative (heyoka's batches keep each object's steps its own; scipy's stacking
    tightens each object's tolerance, it should not loosen it)."""
    model = J2Propagator()
    rng = np.random.default_rng(0)
    states = iss_element_set().state_at_epoch() + np.hstack(
        [rng.normal(0, 1, (20, 3)), rng.normal(0, 1e-3, (20, 3))]
    )
    times = np.arange(0.0, 6 * 3600.0 + 1.0, 1800.0)
    _, Phi = model.propagate_with_transition(times, states, rtol=1e-9, atol=1e-9)
    for n in (0, 19):
        alone = model.propagate_with_transition(times, states[n : n + 1], rtol=1e-9, atol=1e-9)
        column_scale = np.abs(alone[1][0, -1]).max(axis=0)
        assert np.all(np.abs(Phi[n, -1] - alone[1][0, -1]).max(axis=0) <= 1e-5 * column_scale)


# --- the manoeuvre prior ----------------------------------------------------------------


def _cw_stationary_covariance(n):
    """Stationary covariance of the continuous closed loop (CW, LQR by Bryson's rule,
    white acceleration), from scipy's CARE and Lyapunov solvers: the sampled process of
    any step has the same marginal covariance as the discretised plant's prior."""
    A = np.zeros((6, 6))
    A[:3, 3:] = np.eye(3)
    A[3, 0], A[3, 4], A[4, 3], A[5, 2] = 3 * n * n, 2 * n, -2 * n, -n * n
    B = np.vstack([np.zeros((3, 3)), np.eye(3)])
    position, velocity, acceleration = KEEPING_SCALES
    Qlqr = np.diag([1 / position**2] * 3 + [1 / velocity**2] * 3)
    Rlqr = np.eye(3) / acceleration**2
    P = linalg.solve_continuous_are(A, B, Qlqr, Rlqr)
    K = np.linalg.solve(Rlqr, B.T @ P)
    closed = A - B @ K
    return linalg.solve_continuous_lyapunov(closed, -MANOEUVRE_PSD * B @ B.T)


def test_the_manoeuvre_prior_is_the_stationary_cw_covariance_in_eci():
    """Symmetric positive definite; equal to T Sigma_c T^T with Sigma_c the continuous
    stationary covariance (so independent of the discretisation step); about 1 km and
    1 m/s per axis for the ISS (the order of magnitude the module states)."""
    iss = iss_element_set()
    state, n = iss.state_at_epoch(), 2 * np.pi / iss.period
    prior = manoeuvre_prior(state, n)
    np.testing.assert_array_equal(prior, prior.T)
    np.linalg.cholesky(prior)
    T = hill_to_inertial(state)
    np.testing.assert_allclose(prior, T @ _cw_stationary_covariance(n) @ T.T, rtol=1e-6, atol=1e-14)
    np.testing.assert_allclose(manoeuvre_prior(state, n, dt=30.0), prior, rtol=1e-8, atol=1e-16)
    std = np.sqrt(np.diag(prior))
    assert np.all((0.3 < std[:3]) & (std[:3] < 3.0))  # km
    assert np.all((0.3e-3 < std[3:]) & (std[3:] < 3.0e-3))  # km/s


@pytest.mark.parametrize("mean_motion", [0.0, -1.1e-3, np.nan, np.inf])
def test_a_bad_mean_motion_is_refused(mean_motion):
    with pytest.raises(ValueError, match="mean_motion"):
        manoeuvre_prior(iss_element_set().state_at_epoch(), mean_motion)


def test_a_bad_state_is_refused():
    with pytest.raises(ValueError):
        manoeuvre_prior(np.zeros(6), 1.1e-3)
    with pytest.raises(ValueError):
        manoeuvre_prior(np.ones(5), 1.1e-3)


# --- the filter's consistency -----------------------------------------------------------

RUNS = 30
#: The ISS over 6 h every 30 s; the prior is the manoeuvre prior divided by this (about
#: 100 m and 0.1 m/s per axis), where the first-order maps hold (catalog_tracking).
PRIOR_SHRINK = 100.0


def _measurements(stations, earth, times, nominal, truths, found, groups, rng):
    """Each contact's releases (sensor noise only) of F truths, as the study forms them."""
    out = []
    for group in groups:
        items = [found[i] for i in group]
        references = [
            stations[p.station].measure(nominal[p.indices], times[p.indices], earth).ravel()
            for p in items
        ]
        z = []
        for truth in truths:
            released = []
            for p, reference in zip(items, references):
                clean = stations[p.station].measure(truth[p.indices], times[p.indices], earth)
                noisy = (clean + rng.standard_normal(clean.shape) * np.sqrt(np.diag(p.R))).ravel()
                released.append(reference + measurement_residual(noisy, reference))
            z.append(np.concatenate(released))
        noise = linalg.block_diag(*[np.kron(np.eye(len(p.indices)), p.R) for p in items])
        out.append(
            ContactMeasurements(
                np.concatenate([np.full(len(p.indices), p.station) for p in items]),
                np.concatenate([p.indices for p in items]),
                np.array(z),
                np.broadcast_to(noise, (len(truths), *noise.shape)),
                np.concatenate([np.tile(np.sqrt(np.diag(p.R)), len(p.indices)) for p in items]),
                np.concatenate(references),
            )
        )
    return out


def _actual_error_covariance(Sigma_XX, Phi, times, found, groups, k):
    """Covariance of the filter's error at grid index k under the linearised model.

    The filter's gains are computed from its own covariance, inflated by the process
    noise; the truth has none, so the error covariance A follows the same gains without
    Q (the sensitivity analysis of a mismatched Kalman filter, Gelb 1974 §7.2):
    ``A = (I - K H) F A F^T (I - K H)^T + K R K^T``.
    """
    P, A, previous = Sigma_XX.copy(), Sigma_XX.copy(), 0
    for group in groups:
        end = max(found[i].indices[-1] for i in group)
        if end >= k:
            break
        F = np.linalg.solve(Phi[previous].T, Phi[end].T).T  # Phi(t_end, t_previous)
        P = F @ P @ F.T + process_noise(times[end] - times[previous])
        A = F @ A @ F.T
        H = np.linalg.solve(Phi[end].T, np.vstack([found[i].C.reshape(-1, 6) for i in group]).T).T
        R = linalg.block_diag(*[np.kron(np.eye(len(found[i].indices)), found[i].R) for i in group])
        K = P @ H.T @ np.linalg.inv(H @ P @ H.T + R)
        I_KH = np.eye(6) - K @ H
        P = I_KH @ P @ I_KH.T + K @ R @ K.T
        A = I_KH @ A @ I_KH.T + K @ R @ K.T
        previous = end
    F = np.linalg.solve(Phi[previous].T, Phi[k].T).T
    return F @ A @ F.T


def test_the_filter_errors_match_their_linearised_covariance():
    """30 truths (x0 from a 100 m prior) tracked by 30 filters at once through the ISS's
    contacts over 6 h: at three times of the second half, not at a contact's end, the
    position NEES ``e^T A^{-1} e`` against the error covariance A of the linearised filter
    averages 3; the mean of 30 lies in the 99.9% chi-square band of 90 degrees of freedom
    (a false alarm has probability 0.1% per time; the seed is fixed)."""
    iss = iss_element_set()
    times = np.arange(0.0, 6 * 3600.0 + 1e-9, 30.0)
    earth, stations, model = EarthRotation(iss.gmst_epoch), radar_network(), J2Propagator()
    state0 = iss.state_at_epoch()
    nominal, Phi, found = object_stream(state0, times, stations, earth, model)
    groups = contacts(found)
    Sigma_XX = manoeuvre_prior(state0, 2 * np.pi / iss.period) / PRIOR_SHRINK
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal((RUNS, 6)) @ np.linalg.cholesky(Sigma_XX).T
    truths = model.propagate_many(times, nominal[0] + x0, 1e-10, 1e-10)
    measured = _measurements(stations, earth, times, nominal, truths, found, groups, rng)
    assert len(measured) >= 4
    evaluate = np.array([len(times) // 2, 3 * len(times) // 4, len(times) - 1])
    assert not set(evaluate) & {c.end for c in measured}
    estimates, rejected = track_contacts(
        TrackingModel(model, stations, earth, times), nominal[0], Sigma_XX, measured, evaluate
    )
    assert estimates.shape == (RUNS, 3, 6)
    # no update of a consistent filter leaves a plausible orbit
    np.testing.assert_array_equal(rejected, 0)
    low, high = stats.chi2.ppf([0.0005, 0.9995], 3 * RUNS) / RUNS
    for j, k in enumerate(evaluate):
        A = _actual_error_covariance(Sigma_XX, Phi, times, found, groups, k)[:3, :3]
        errors = estimates[:, j, :3] - truths[:, k, :3]
        nees = np.einsum("fi,ij,fj->f", errors, np.linalg.inv(A), errors)
        assert low <= nees.mean() <= high, (k, nees.mean(), low, high)
        # a real test: after the contacts the error is far below the prior's spread
        assert np.sqrt(np.trace(A)) < 0.5 * np.sqrt(np.trace(Sigma_XX[:3, :3]) * PRIOR_SHRINK)


CLOUD = 400


@pytest.mark.parametrize("linearisation", [True, False])
def test_an_uncertain_prediction_holds_the_cloud_the_flow_spreads(linearisation, monkeypatch):
    """Prediction alone of the ISS from its manoeuvre prior (about 1 km and 1 m/s per
    axis) over 6 h: 400 states drawn from the prior and propagated by the same J2 flow
    leave the filter's estimate by e, and ``E[e^T M^-1 e] = tr(M^-1 E[e e^T]) = 6`` when
    M is their second moment about it. With the measured linearisation error the mean
    NEES at 3 h and 6 h is at most 6 (four standard errors allowed) and above 4.5 (M is
    not far too wide); with ``Phi P Phi^T`` alone (the linearisation term switched off)
    the cloud, bent along the orbit by kilometres, lies far outside it (mean NEES above
    18, three times 6)."""
    if not linearisation:
        monkeypatch.setattr(ekf, "RELINEARISE_KM", np.inf)
    iss = iss_element_set()
    times = np.arange(0.0, 6 * 3600.0 + 1e-9, 60.0)
    earth, stations, model = EarthRotation(iss.gmst_epoch), radar_network(), J2Propagator()
    x0 = iss.state_at_epoch()
    P0 = manoeuvre_prior(x0, 2 * np.pi / iss.period)
    evaluate = np.array([len(times) // 2, len(times) - 1])
    rng = np.random.default_rng(1)
    cloud = x0 + rng.standard_normal((CLOUD, 6)) @ np.linalg.cholesky(P0).T
    truths = model.propagate_many(times, cloud, 1e-10, 1e-10)[:, evaluate]
    estimates, _, diagnostics = track_contacts(
        TrackingModel(model, stations, earth, times),
        x0,
        P0,
        [],
        evaluate,
        filters=1,
        diagnostics=True,
    )
    for j in range(len(evaluate)):
        errors = truths[:, j] - estimates[0, j]
        M = diagnostics["covariances"][0, j]
        nees = np.einsum("ni,ni->n", errors, linalg.cho_solve(linalg.cho_factor(M), errors.T).T)
        bound = 6.0 + 4.0 * nees.std() / np.sqrt(CLOUD)
        if linearisation:
            assert 4.5 < nees.mean() <= bound, (j, nees.mean())
        else:
            assert nees.mean() > 18.0, (j, nees.mean())  # three times its value
