"""Optical (angles-only) stations: right ascension and declination against skyfield in the
TEME frame, the Jacobian against finite differences, the linearised model, and the
visibility rules (field of regard, dark site, sunlit object) on geometric constructions."""

import numpy as np
import pytest
from sgp4.propagation import gstime

from ssa_privacy.constants import WGS84_A
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.sensors.geodesy import EarthRotation, ecef_to_geodetic
from ssa_privacy.sensors.illumination import sun_elevation, sun_position, sunlit
from ssa_privacy.sensors.optical import (
    ARCSEC,
    DEFAULT_OPTICAL_NOISE_STD,
    OPTICAL_MEASUREMENTS,
    OpticalStation,
)
from ssa_privacy.sensors.stations import GroundStation, LinearisedMeasurement

TENERIFE = OpticalStation("Tenerife", 28.3003, -16.5122, 2.393)  # ESA optical ground station
#: TT - UTC in 2020 (32.184 s + 37 leap seconds): skyfield's Delta T making UT1 = UTC.
TT_MINUS_UTC = 69.184


@pytest.fixture(scope="module")
def iss_track():
    """The ISS (SGP4, TEME) over 6 h at 60 s, the Earth with UT1 = UTC, and the epoch."""
    element_set = iss_element_set()
    times = np.arange(0.0, 6 * 3600.0, 60.0)
    earth = EarthRotation(gstime(element_set.epoch_jd), epoch_jd=element_set.epoch_jd)
    return element_set, times, element_set.propagate(times), earth


def test_radec_matches_skyfield_topocentric_in_teme(iss_track):
    """Skyfield's geometric vector site -> ISS (its own WGS-84 site, Earth rotation and
    SGP4 satellite) in its TEME frame, with UT1 = UTC on both sides: RA and Dec agree to
    0.2 arcsec (measured 0.04 arcsec over 360 epochs seen from above and below the
    horizon)."""
    pytest.importorskip("skyfield")
    from skyfield.api import EarthSatellite, load, wgs84
    from skyfield.sgp4lib import TEME

    element_set, times, states, earth = iss_track
    ts = load.timescale(delta_t=TT_MINUS_UTC)
    satellite = EarthSatellite(element_set.line1, element_set.line2, "ISS", ts)
    site = wgs84.latlon(TENERIFE.latitude, TENERIFE.longitude, elevation_m=1e3 * TENERIFE.altitude)
    t = ts.ut1_jd(element_set.epoch_jd + times / 86400.0)
    x, y, z = (satellite - site).at(t).frame_xyz(TEME).km
    ra, dec = np.mod(np.arctan2(y, x), 2 * np.pi), np.arctan2(z, np.hypot(x, y))
    measured = TENERIFE.measure(states, times, earth)
    assert measured.shape == (len(times), 2)
    assert np.all((measured[:, 0] >= 0) & (measured[:, 0] < 2 * np.pi))
    d_ra = np.angle(np.exp(1j * (measured[:, 0] - ra))) * np.cos(dec)
    assert np.abs(d_ra).max() < 0.2 * ARCSEC
    assert np.abs(measured[:, 1] - dec).max() < 0.2 * ARCSEC


def test_a_known_direction_is_measured_back():
    earth = EarthRotation(1.1, epoch_jd=2460000.5)
    t = np.array([0.0, 500.0, 4000.0])
    ra = np.radians([10.0, 200.0, 359.5])
    dec = np.radians([-30.0, 5.0, 60.0])
    rho = 2500.0 * np.stack([np.cos(dec) * np.cos(ra), np.cos(dec) * np.sin(ra), np.sin(dec)], -1)
    site = earth.ecef_to_eci_position(np.tile(TENERIFE.ecef, (3, 1)), t)
    states = np.hstack([site + rho, np.tile([1.0, -7.0, 0.5], (3, 1))])
    np.testing.assert_allclose(TENERIFE.measure(states, t, earth), np.stack([ra, dec], -1))


def test_jacobian_matches_central_finite_differences(iss_track):
    _, times, states, earth = iss_track
    steps = 1e-3  # km; truncation ~ h^2 |d3 angle / dr3| / 6 ~ 1e-15 rad at 1,000 km
    picks = np.arange(0, len(times), 37)
    J = TENERIFE.jacobian(states[picks], times[picks], earth)
    assert J.shape == (len(picks), 2, 6)
    np.testing.assert_array_equal(J[..., 3:], 0.0)  # the angles ignore the velocity
    for n, k in enumerate(picks):
        numeric = np.zeros((2, 6))
        for j in range(6):
            d = np.zeros(6)
            d[j] = steps if j < 3 else 1e-6
            plus, minus = (TENERIFE.measure(states[k] + s * d, times[k], earth) for s in (1, -1))
            difference = plus - minus
            difference[0] = np.angle(np.exp(1j * difference[0]))  # RA wraps at 2 pi
            numeric[:, j] = difference / (2 * d[j])
        np.testing.assert_allclose(J[n], numeric, rtol=1e-6, atol=1e-12)
        np.testing.assert_array_equal(TENERIFE.jacobian(states[k], times[k], earth), J[n])


def test_linearised_measurement_has_the_optical_rows(iss_track):
    _, times, states, earth = iss_track
    model = TENERIFE.linearised_measurement(states[5], times[5], earth)
    assert isinstance(model, LinearisedMeasurement)
    assert model.H.shape == (2, 6) and model.R.shape == (2, 2) and model.value.shape == (2,)
    assert model.names == OPTICAL_MEASUREMENTS == ("right_ascension", "declination")
    np.testing.assert_array_equal(model.R, np.diag(np.square(DEFAULT_OPTICAL_NOISE_STD)))
    np.testing.assert_array_equal(model.value, TENERIFE.measure(states[5], times[5], earth))
    np.testing.assert_array_equal(model.H, TENERIFE.jacobian(states[5], times[5], earth))
    assert model.time == times[5]
    # first order: the remainder shrinks as the square of a 100 m step
    direction = np.array([0.06, -0.05, 0.08, 0.0, 0.0, 0.0])
    remainders = [
        np.abs(
            TENERIFE.measure(states[5] + s * direction, times[5], earth)
            - model.value
            - s * model.H @ direction
        )
        for s in (1.0, 0.5, 0.25)
    ]
    np.testing.assert_allclose(
        [remainders[0] / remainders[1], remainders[1] / remainders[2]], 4.0, rtol=0.05
    )


def test_sensor_protocol_attributes_match_on_both_classes():
    radar = GroundStation("Madrid", 40.4313, -4.2480, 0.865)
    assert (radar.kind, radar.rows, radar.wrapped) == ("radar", 4, (True, False, False, False))
    assert radar.names == ("azimuth", "elevation", "range", "range_rate")
    assert radar.units == ("rad", "rad", "km", "km/s")
    assert (TENERIFE.kind, TENERIFE.rows, TENERIFE.wrapped) == ("optical", 2, (True, False))
    assert TENERIFE.names == OPTICAL_MEASUREMENTS and TENERIFE.units == ("rad", "rad")
    assert ARCSEC == pytest.approx(4.848e-6, rel=1e-4)
    assert TENERIFE.noise_std == (ARCSEC, ARCSEC) and TENERIFE.elevation_mask == 15.0
    assert TENERIFE.sun_elevation_max == -12.0
    assert TENERIFE.noise_covariance.shape == (2, 2)


def test_the_pole_is_singular():
    earth = EarthRotation(0.3)
    site = earth.ecef_to_eci_position(TENERIFE.ecef, 0.0)
    state = np.concatenate([site + [0.0, 0.0, 3000.0], [7.0, 0.0, 0.0]])
    assert TENERIFE.measure(state, 0.0, earth)[1] == pytest.approx(np.pi / 2)
    with pytest.raises(ValueError, match="celestial pole"):
        TENERIFE.jacobian(state, 0.0, earth)
    with pytest.raises(ValueError, match="celestial pole"):
        TENERIFE.linearised_measurement(state, 0.0, earth)


# --- visibility on geometric constructions -------------------------------------------

JD = 2460400.25  # 2024-04-01 18:00 UTC
EARTH = EarthRotation(gstime(JD), epoch_jd=JD)


def _site_from_sun(angle_deg, t=0.0):
    """Geodetic latitude and longitude (deg) of the surface point ``angle_deg`` from the
    subsolar point, towards the north pole, at ``t`` s after ``JD``."""
    sun = sun_position(JD, t)
    sun_ecef = EARTH.eci_to_ecef(np.concatenate([sun, np.zeros(3)]), t)[:3]
    toward = sun_ecef / np.linalg.norm(sun_ecef)
    north = np.array([0.0, 0.0, 1.0]) - toward[2] * toward
    north /= np.linalg.norm(north)
    angle = np.radians(angle_deg)
    latitude, longitude, _ = ecef_to_geodetic(
        WGS84_A * (np.cos(angle) * toward + np.sin(angle) * north)
    )
    return float(latitude), float(longitude)


def _overhead(station, height, t=0.0, tilt=(0.0, 0.0)):
    """ECI state ``height`` km above the station along its vertical, tilted by ``tilt``
    (km east, north), with an arbitrary velocity."""
    east, north, up = station.enu_rotation
    ecef = station.ecef + height * up + tilt[0] * east + tilt[1] * north
    return np.concatenate([EARTH.ecef_to_eci_position(ecef, t), [1.0, 2.0, 7.0]])


def _solar_elevation_deg(station, t=0.0):
    """The Sun's elevation (deg) at a station, ``t`` s after ``JD``."""
    sun = sun_position(JD, t)
    sun_ecef = EARTH.eci_to_ecef(np.concatenate([sun, np.zeros(3)]), t)[:3]
    return np.degrees(sun_elevation(station.latitude, station.longitude, 0.0, sun_ecef))


def _distance_from_shadow_axis(state, t=0.0):
    """Distance (km) of a position from the Earth-Sun line, and whether it is behind."""
    sun = sun_position(JD, t)
    axis = sun / np.linalg.norm(sun)
    along = state[:3] @ axis
    return np.linalg.norm(state[:3] - along * axis), along < 0


def test_dark_site_and_sunlit_object_is_visible_and_the_shadowed_one_is_not():
    """A site 110 deg from the subsolar point (Sun about 20 deg below the horizon): an
    object 2,000 km overhead is beyond the shadow (checked on the Earth-Sun line) and
    seen; one 200 km overhead is in the umbra and not seen."""
    latitude, longitude = _site_from_sun(110.0)
    station = OpticalStation("dusk", latitude, longitude, 0.0)
    assert -20.5 < _solar_elevation_deg(station) < -19.5
    high, low = _overhead(station, 2000.0), _overhead(station, 200.0)
    distance, behind = _distance_from_shadow_axis(high)
    assert behind and distance > WGS84_A + 100.0
    distance, behind = _distance_from_shadow_axis(low)
    assert behind and distance < WGS84_A - 100.0
    np.testing.assert_array_equal(station.visible(np.stack([high, low]), 0.0, EARTH), [True, False])
    # a stricter darkness threshold (the Sun is only ~20 deg down) turns both off
    strict = OpticalStation("dusk", latitude, longitude, 0.0, sun_elevation_max=-25.0)
    assert not strict.visible(high, 0.0, EARTH)


def test_a_site_at_local_noon_is_not_dark():
    latitude, longitude = _site_from_sun(5.0)
    station = OpticalStation("noon", latitude, longitude, 0.0)
    assert 84.5 < _solar_elevation_deg(station) < 85.5
    overhead = _overhead(station, 800.0)
    assert not station.visible(overhead, 0.0, EARTH)
    lenient = OpticalStation("noon", latitude, longitude, 0.0, sun_elevation_max=90.0)
    assert lenient.visible(overhead, 0.0, EARTH)  # lit, above the mask: only darkness failed


def test_field_of_regard_limits_apply_to_telescopes():
    latitude, longitude = _site_from_sun(110.0)
    # 2,000 km up, 300 km north of the zenith: azimuth 0, elevation ~81 deg, range ~2,022 km
    state = _overhead(OpticalStation("x", latitude, longitude), 2000.0, tilt=(0.0, 300.0))
    for sector, range_max, mask, seen in [
        (None, None, 15.0, True),
        ((300.0, 30.0), None, 15.0, True),
        ((30.0, 300.0), None, 15.0, False),
        (None, 2100.0, 15.0, True),
        (None, 2000.0, 15.0, False),
        (None, None, 85.0, False),
    ]:
        station = OpticalStation(
            "x",
            latitude,
            longitude,
            elevation_mask=mask,
            azimuth_sector=sector,
            range_max=range_max,
        )
        assert station.visible(state, 0.0, EARTH) == seen, (sector, range_max, mask)


def test_visibility_over_a_grid_combines_the_three_conditions(iss_track):
    """Over 6 h of the ISS from three observatories: visible = above the mask (the radar's
    elevation) and site dark and object outside the umbra; some epochs are seen, and some
    above the mask are lost to daylight or shadow. Shapes (m,) and (2, m) agree."""
    element_set, times, states, earth = iss_track
    sun = sun_position(element_set.epoch_jd, times)
    sun_ecef = earth.eci_to_ecef(np.hstack([sun, np.zeros_like(sun)]), times)[:, :3]
    counts = np.zeros(2, dtype=int)
    for name, latitude, longitude, altitude in [
        ("La Silla", -29.2567, -70.7377, 2.400),
        ("Haleakala", 20.7082, -156.2571, 3.058),
        ("Maidanak", 38.6733, 66.8964, 2.593),
    ]:
        telescope = OpticalStation(name, latitude, longitude, altitude)
        radar = GroundStation(name, latitude, longitude, altitude, elevation_mask=15.0)
        above = radar.visible(states, times, earth)
        dark = np.degrees(sun_elevation(latitude, longitude, altitude, sun_ecef)) <= -12.0
        seen = telescope.visible(states, times, earth)
        np.testing.assert_array_equal(seen, above & dark & sunlit(states[:, :3], sun))
        counts += [np.count_nonzero(seen), np.count_nonzero(above & ~seen)]
        both = telescope.visible(np.stack([states, states]), times, earth)
        np.testing.assert_array_equal(both, np.stack([seen, seen]))
    assert np.all(counts > 0)


def test_visibility_needs_the_epoch():
    state = _overhead(TENERIFE, 1000.0)
    with pytest.raises(ValueError, match="epoch_jd"):
        TENERIFE.visible(state, 0.0, EarthRotation(0.0))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: OpticalStation("x", 0.0, 0.0, noise_std=(1e-6,) * 4), ValueError, "noise_std"),
        (lambda: OpticalStation("x", 0.0, 0.0, noise_std=(0.0, 1e-6)), ValueError, "noise_std"),
        (lambda: OpticalStation("x", 0.0, 0.0, sun_elevation_max=95.0), ValueError, "sun_elev"),
        (lambda: OpticalStation("x", 0.0, 0.0, sun_elevation_max="-12"), TypeError, "sun_elev"),
        (lambda: OpticalStation("x", 0.0, 0.0, elevation_mask=90.0), ValueError, "elevation"),
        (lambda: OpticalStation("x", 91.0, 0.0), ValueError, "latitude"),
        (lambda: OpticalStation(1, 0.0, 0.0), TypeError, "name"),
        (lambda: OpticalStation("x", 0.0, 0.0, azimuth_sector=(5.0, 5.0)), ValueError, "azimuth"),
        (lambda: OpticalStation("x", 0.0, 0.0, range_max=0.0), ValueError, "range_max"),
        (lambda: TENERIFE.measure(np.ones(5), 0.0, EARTH), ValueError, "states"),
        (lambda: TENERIFE.measure(_overhead(TENERIFE, 500.0), 0.0, "earth"), TypeError, "earth"),
        (lambda: TENERIFE.measure(np.ones((2, 6)), [0.0, 1.0, 2.0], EARTH), ValueError, "times"),
        (
            lambda: TENERIFE.measure(
                np.concatenate([EARTH.ecef_to_eci_position(TENERIFE.ecef, 0.0), np.ones(3)]),
                0.0,
                EARTH,
            ),
            ValueError,
            "station",
        ),
        (lambda: TENERIFE.linearised_measurement(np.ones(4), 0.0, EARTH), ValueError, "state"),
        (lambda: TENERIFE.linearised_measurement(np.ones(6), np.nan, EARTH), ValueError, "time"),
    ],
)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
