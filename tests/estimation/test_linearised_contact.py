"""The linearised contact of the filters and the batch orbit determination: its
predicted measurements and maps, computed for all radars at once, are those of a
straightforward loop over the measurements, one station method call per epoch."""

import numpy as np
import pytest

from ssa_privacy.estimation.contacts import ContactMeasurements
from ssa_privacy.estimation.orbit_determination import linearised_contact
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.optical import OpticalStation

#: Relative agreement of the vectorised and the per-epoch computations (rounding).
RELATIVE = 1e-12


def _scene(optical):
    """A network (the eight radars, plus a telescope if ``optical``), an Earth with
    UT1 - UTC and polar motion, 40 random LEO states on a grid with random transition
    matrices, and a contact of 25 measurements by stations in a shuffled order."""
    rng = np.random.default_rng(3)
    stations = list(radar_network())
    if optical:
        stations.append(OpticalStation("Tenerife", 28.3, -16.5, 2.39))
    earth = EarthRotation(1.2, ut1_utc=0.1, ut1_utc_rate=1e-8, polar_motion=(0.2, 0.3))
    times = np.arange(0.0, 4000.0, 30.0)
    grid = np.sort(rng.choice(len(times), 40, replace=False))
    direction = rng.standard_normal((40, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    velocity = np.cross(direction, rng.standard_normal((40, 3)))
    velocity *= 7.5 / np.linalg.norm(velocity, axis=1, keepdims=True)
    path = np.hstack([7000.0 * direction, velocity])
    Phi = np.eye(6) + 0.3 * rng.standard_normal((40, 6, 6))
    chosen = np.sort(rng.choice(np.arange(1, 40), 25, replace=False))
    which = rng.integers(0, len(stations), 25)
    rows = sum(len(stations[s].noise_std) for s in which)
    contact = ContactMeasurements(
        which, grid[chosen], np.zeros((1, rows)), np.eye(rows)[None], np.ones(rows), np.zeros(rows)
    )
    position = {int(k): j for j, k in enumerate(grid)}
    return stations, earth, contact, times, path, Phi, position


def _reference(stations, earth, contact, times, path, Phi, position, at_end):
    """One measurement at a time: the station's measure and jacobian at its epoch."""
    h, maps = [], []
    for s, k in zip(contact.stations, contact.indices):
        j = position[int(k)]
        h.append(stations[s].measure(path[j], times[k], earth))
        maps.append(stations[s].jacobian(path[j], times[k], earth) @ Phi[j])
    maps = np.vstack(maps)
    if at_end:
        maps = np.linalg.solve(Phi[position[contact.end]].T, maps.T).T
    return np.concatenate(h), maps


@pytest.mark.parametrize("optical", [False, True], ids=["radars", "radars and a telescope"])
@pytest.mark.parametrize("at_end", [False, True])
def test_the_contact_is_the_per_epoch_computation(optical, at_end):
    scene = _scene(optical)
    h, maps = linearised_contact(*scene[:2], *scene[2:], at_end=at_end)
    h_ref, maps_ref = _reference(*scene, at_end)
    assert h.shape == h_ref.shape and maps.shape == maps_ref.shape
    np.testing.assert_allclose(h, h_ref, rtol=RELATIVE, atol=0)
    # each map row to rounding of its own size (rows differ by orders of magnitude)
    scale = np.abs(maps_ref).max(axis=1)
    np.testing.assert_array_less(np.abs(maps - maps_ref).max(axis=1), RELATIVE * scale)


@pytest.mark.parametrize("at_end", [False, True])
def test_stacked_filters_are_each_filter_alone(at_end):
    """Three filters' paths and transitions at once: each filter's per-epoch computation."""
    stations, earth, contact, times, path, Phi, position = _scene(True)
    rng = np.random.default_rng(4)
    paths = path + rng.normal(0.0, [5.0, 5.0, 5.0, 0.005, 0.005, 0.005], (3, *path.shape))
    Phis = Phi + 0.01 * rng.standard_normal((3, *Phi.shape))
    h, maps = linearised_contact(stations, earth, contact, times, paths, Phis, position, at_end)
    assert h.shape[0] == maps.shape[0] == 3
    for f in range(3):
        scene = (stations, earth, contact, times, paths[f], Phis[f], position)
        h_ref, maps_ref = _reference(*scene, at_end)
        np.testing.assert_allclose(h[f], h_ref, rtol=RELATIVE, atol=0)
        scale = np.abs(maps_ref).max(axis=1)
        np.testing.assert_array_less(np.abs(maps[f] - maps_ref).max(axis=1), RELATIVE * scale)
