"""Where a site sees an object (sensors.visibility.coverage_outline): a polar site covers a
filled cap round its pole, a site across the antimeridian both edges of the map."""

import numpy as np
import pytest
from matplotlib.path import Path

from ssa_privacy.sensors.visibility import coverage_outline


def _inside(lon, lat, point):
    return any(Path(np.column_stack([lon + s, lat])).contains_point(point) for s in (-360, 0, 360))


@pytest.mark.parametrize("latitude", [76.5, -78.0], ids=["thule", "antarctic"])
def test_a_polar_site_covers_a_filled_cap_round_its_pole(latitude):
    lon, lat = coverage_outline(latitude, -68.7, 550.0, 5.0)
    pole = np.sign(latitude) * 89.5
    for longitude in (-170.0, -60.0, 0.0, 90.0, 175.0):
        assert _inside(lon, lat, (longitude, pole))
    assert _inside(lon, lat, (-68.7, latitude))
    assert not _inside(lon, lat, (-68.7 + 180.0, np.sign(latitude) * 45.0))


def test_a_mid_latitude_site_across_the_antimeridian_covers_both_edges_of_the_map():
    lon, lat = coverage_outline(52.7, 174.1, 550.0, 5.0)
    assert _inside(lon, lat, (179.0, 52.7)) and _inside(lon, lat, (-179.0, 52.7))
    assert not _inside(lon, lat, (0.0, 89.5)) and not _inside(lon, lat, (0.0, 52.7))
