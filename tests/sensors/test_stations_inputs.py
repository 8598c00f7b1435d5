"""Sites and names of the sensor classes: the same limits as the scenario files.

A radar (:class:`GroundStation`) and a telescope (:class:`OpticalStation`) stand on the
ground: a height above the WGS-84 ellipsoid outside [-1, 10] km (the Dead Sea shore is
at -0.43 km, the highest observatories at 5.6 km) is refused in one line naming the
argument and its unit, as a scenario file's ``height_km`` is; so are a longitude outside
[-360, 360] deg and a name the outputs cannot hold (blank, blanks at an end, a control or
invisible character).
"""

import pytest

from ssa_privacy.sensors.optical import OpticalStation
from ssa_privacy.sensors.stations import SITE_HEIGHT_RANGE_KM, GroundStation
from ssa_privacy.studies.scenario import ScenarioError, SensorSpec

CLASSES = (GroundStation, OpticalStation)

#: id -> (keyword arguments over a valid site, words of the one-line ValueError).
BAD_SITES = {
    "altitude -7000 (metres as km)": ({"altitude": -7000.0}, "altitude must lie in [-1, 10] km"),
    "altitude 2390 (metres as km)": ({"altitude": 2390.0}, "metres given as km?"),
    "altitude just below -1 km": ({"altitude": -1.001}, "altitude must lie in [-1, 10] km"),
    "altitude nan": ({"altitude": float("nan")}, "altitude must be a number, got NaN"),
    "longitude 400": ({"longitude": 400.0}, "longitude (deg) must be in [-360, 360]"),
    "longitude 1e300": ({"longitude": 1e300}, "longitude (deg) must be in [-360, 360]"),
    "latitude 95": ({"latitude": 95.0}, "latitude must lie in [-90, 90] degrees"),
    "name with a line feed": ({"name": "A\nB"}, "U+000A (a control character)"),
    "name with a NUL": ({"name": "A\x00"}, "U+0000 (a control character)"),
    "name with a direction mark": ({"name": "A\u200f"}, "U+200F (an invisible character)"),
    "name with a line separator": ({"name": "A\u2028B"}, "U+2028"),
    "name empty": ({"name": ""}, "name must not be empty or blank"),
    "name blank": ({"name": "   "}, "name must not be empty or blank, got '   '"),
    "name with a trailing blank": ({"name": "A "}, "name must not begin or end with blanks"),
}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("case", sorted(BAD_SITES))
def test_a_bad_site_or_name_is_one_line_naming_the_argument(cls, case):
    changes, words = BAD_SITES[case]
    site = {"name": "Site", "latitude": 40.0, "longitude": -4.0, "altitude": 0.8} | changes
    with pytest.raises(ValueError) as caught:
        cls(**site)
    message = str(caught.value)
    assert "\n" not in message and words in message, message


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    ("name", "altitude", "longitude"),
    [
        ("Mer Morte", -0.43, 35.5),  # the lowest shore
        ("Chajnantor", 5.6, -67.75),  # among the highest observatories
        ("Edge low", SITE_HEIGHT_RANGE_KM[0], 360.0),
        ("Edge high", SITE_HEIGHT_RANGE_KM[1], -360.0),
        ("Observatoire de Haute-Provence é", 0.65, 5.71),
    ],
)
def test_sites_on_the_ground_are_accepted(cls, name, altitude, longitude):
    station = cls(name, 10.0, longitude, altitude)
    assert (station.name, station.altitude, station.longitude) == (name, altitude, longitude)


def test_the_scenario_files_use_the_same_height_range():
    low, high = SITE_HEIGHT_RANGE_KM
    for height in (low - 1e-3, high + 1e-3):
        with pytest.raises(ScenarioError, match=r"height_km: .*\[-1, 10\] km"):
            SensorSpec("A", 0.0, 0.0, height_km=height)
    for height in (low, high):
        assert SensorSpec("A", 0.0, 0.0, height_km=height).build().altitude == height
