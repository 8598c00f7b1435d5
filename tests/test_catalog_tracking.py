"""One object's stream over a window and the epsilon its per-measurement releases reach."""

import numpy as np
import pytest

from ssa_privacy.orbits.frames import hill_to_inertial
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.passes import per_measurement_epsilons
from ssa_privacy.privacy.pml.stream import stream_information, stream_leakage
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import object_stream

DELTA = 0.01


@pytest.fixture(scope="module")
def iss_window():
    """The ISS over 6 h from its epoch, sampled every 20 s, from the eight radars; the
    prior of x0 is 1 km and 1 m/s per Hill axis."""
    iss = iss_element_set()
    times = np.arange(0.0, 6 * 3600.0, 20.0)
    earth = EarthRotation(iss.gmst_epoch)
    state0 = iss.state_at_epoch()
    nominal, Phi, found = object_stream(state0, times, radar_network(), earth, J2Propagator())
    T = hill_to_inertial(state0)
    Sigma_XX = T @ np.diag([1.0, 1.0, 1.0, 1e-6, 1e-6, 1e-6]) @ T.T
    return times, earth, nominal, Phi, found, 0.5 * (Sigma_XX + Sigma_XX.T)


def test_the_linearised_maps_predict_the_measurements_of_a_deviated_orbit(iss_window):
    """h(x(t; x0 + d)) - h(x(t; x0)) = C_k d to first order: for a 100 m, 10 cm/s
    deviation the mismatch is below 1% of the change over every pass (range, range rate)."""
    times, earth, nominal, Phi, found, _ = iss_window
    stations = radar_network()
    d = np.array([0.1, -0.05, 0.08, 1e-4, -5e-5, 8e-5])
    deviated = J2Propagator().propagate_many(times, (nominal[0] + d)[None])[0]
    assert len(found) >= 5
    for item in found:
        station, rows = stations[item.station], item.indices
        change = station.measure(deviated[rows], times[rows], earth) - station.measure(
            nominal[rows], times[rows], earth
        )
        predicted = item.C @ d
        for j in (2, 3):  # range and range rate
            assert np.abs(change[:, j] - predicted[:, j]).max() <= 0.01 * np.abs(change[:, j]).max()


def test_per_measurement_designs_leak_more_over_a_pass_and_more_over_the_window(iss_window):
    """Each release alone meets its epsilon about x0 ([LKC] Corollary 3.7 on C_k); a pass
    reaches more, and the window more than any pass."""
    *_, found, Sigma_XX = iss_window
    pass_eps, window_eps = per_measurement_epsilons(Sigma_XX, found, 8.0, DELTA)
    assert len(pass_eps) == len(found)
    assert np.all(pass_eps > 8.0) and window_eps > pass_eps.max()
    first = found[0]
    for C in first.C[:: max(1, len(first.C) // 5)]:
        Theta = linear_mechanism_noise(C, Sigma_XX, 8.0, DELTA)
        alone = stream_leakage(Sigma_XX, stream_information(C[None], Theta[None]), DELTA)
        assert alone.rank == 4 and alone.epsilon <= 8.0 + 1e-9
