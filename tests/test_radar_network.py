"""The ground radar network and passes."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import ELEVATION_MASK, SITES, radar_network
from ssa_privacy.sensors.visibility import passes


@given(st.lists(st.booleans(), max_size=60))
def test_passes_are_exactly_the_runs_of_visibility(values):
    """Rebuilding the series from its passes gives it back, and passes are maximal."""
    runs = passes(values)
    rebuilt = np.zeros(len(values), dtype=bool)
    for start, stop in runs:
        assert start < stop and not rebuilt[start:stop].any()
        rebuilt[start:stop] = True
        assert start == 0 or not values[start - 1]
        assert stop == len(values) or not values[stop]
    assert rebuilt.tolist() == list(values)


def test_passes_of_rows_and_bad_input():
    assert passes([[0, 1, 1, 0, 1], [0, 0, 0, 0, 0]]) == [[(1, 3), (4, 5)], []]
    with pytest.raises(ValueError, match="1-D or 2-D"):
        passes(np.zeros((2, 2, 2), dtype=bool))
    with pytest.raises(ValueError, match="booleans"):
        passes([0, 2, 1])


def test_the_network_has_eight_sites_on_both_hemispheres_with_their_mask():
    stations = radar_network()
    assert len(stations) == len(SITES) == 8
    latitudes = [s.latitude for s in stations]
    assert min(latitudes) < 0 < max(latitudes)
    assert all(s.elevation_mask == ELEVATION_MASK for s in stations)
    assert len({round(s.longitude) for s in stations}) == 8


def test_the_iss_is_seen_in_passes_of_a_few_minutes_by_most_sites_in_a_day():
    """Above a 5 deg mask, a site sees a 420 km orbit within an Earth central angle of
    acos(R_e cos 5 deg / (R_e + 420 km)) - 5 deg = 15.8 deg (1,760 km), so an ISS pass
    (ground speed about 7.2 km/s) lasts at most 2 x 1,760 / 7.2 s = 8.2 min, a little
    more with the Earth's rotation; a day brings several passes to most sites; Thule, at
    76.6 deg north, never sees an orbit inclined 51.6 deg above 5 deg of elevation."""
    iss = iss_element_set()
    times = np.arange(0.0, 86400.0, 30.0)
    states = iss.propagate(times)
    earth = EarthRotation(iss.gmst_epoch)
    seen = {s.name: passes(s.visible(states, times, earth)) for s in radar_network()}
    durations = [(stop - start) * 30.0 for runs in seen.values() for start, stop in runs]
    assert 6 * 60 <= max(durations) <= 9 * 60
    assert seen["Thule"] == []
    assert sum(len(runs) >= 3 for runs in seen.values()) >= 5
