"""The Sun's position (against JPL DE430 and the Astronomical Almanac), the conical Earth
shadow (against the cone geometry and a Monte Carlo count of the solar disc), the Sun's
elevation at a site, the cache, and that astropy never reaches for the network."""

import os
import socket
import warnings

import numpy as np
import pytest

from ssa_privacy.constants import WGS84_A
from ssa_privacy.sensors import illumination
from ssa_privacy.sensors.geodesy import geodetic_to_ecef
from ssa_privacy.sensors.illumination import (
    SUN_RADIUS,
    sun_elevation,
    sun_position,
    sunlit,
    sunlit_fraction,
)

AU = 1.495978707e8  # km, IAU 2012 Resolution B2
JD_2015_03_01 = 2457082.5  # 2015-03-01 00:00 UTC


def _angle_deg(a, b):
    cosine = np.sum(a * b, axis=-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)
    return np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))


def test_sun_matches_jpl_de430_through_skyfield():
    """Skyfield's apparent Sun from the DE430 excerpt shipped with skyfield's own tests
    (2015-02-26 to 03-06), in skyfield's TEME frame: within 1e-4 deg and 10 km."""
    skyfield = pytest.importorskip("skyfield")
    from skyfield.api import load, load_file
    from skyfield.sgp4lib import TEME

    path = os.path.join(os.path.dirname(skyfield.__file__), "tests", "data", "de430-2015-03-02.bsp")
    if not os.path.exists(path):
        pytest.skip("skyfield's DE430 test excerpt is not installed")
    ephemeris = load_file(path)
    seconds = np.arange(0.0, 4 * 86400.0, 3600.0)
    t = load.timescale(builtin=True).utc(2015, 3, 1, 0, 0, seconds)
    reference = ephemeris["earth"].at(t).observe(ephemeris["sun"]).apparent().frame_xyz(TEME).km.T
    ours = sun_position(JD_2015_03_01, seconds)
    assert ours.shape == (len(seconds), 3)
    assert _angle_deg(ours, reference).max() < 1e-4  # measured 2.3e-6 deg
    distance = np.linalg.norm(ours, axis=-1) - np.linalg.norm(reference, axis=-1)
    assert np.abs(distance).max() < 10.0  # km; measured 3.2 km


def test_sun_matches_the_almanac_low_precision_formula_over_fifty_years():
    """Astronomical Almanac, section C 'low precision formulas for the Sun' (0.01 deg,
    1950-2050): ecliptic longitude and obliquity of date, rotated to the equator."""
    jd = np.linspace(2447892.5, 2466154.5, 401)  # 1990-01-01 to 2040-01-01
    n = jd - 2451545.0
    mean_longitude = np.radians(280.460 + 0.9856474 * n)
    anomaly = np.radians(357.528 + 0.9856003 * n)
    longitude = (
        mean_longitude
        + np.radians(1.915) * np.sin(anomaly)
        + np.radians(0.020) * np.sin(2 * anomaly)
    )
    obliquity = np.radians(23.439 - 4e-7 * n)
    distance = (1.00014 - 0.01671 * np.cos(anomaly) - 0.00014 * np.cos(2 * anomaly)) * AU
    reference = np.stack(
        [
            distance * np.cos(longitude),
            distance * np.cos(obliquity) * np.sin(longitude),
            distance * np.sin(obliquity) * np.sin(longitude),
        ],
        axis=-1,
    )
    ours = sun_position(jd)
    assert _angle_deg(ours, reference).max() < 0.01  # measured 0.0089 deg
    np.testing.assert_allclose(np.linalg.norm(ours, axis=-1), distance, rtol=2e-4)


def test_sun_position_broadcasts_and_adds_seconds_exactly():
    grid = sun_position(JD_2015_03_01, [0.0, 43200.0, 86400.0])
    np.testing.assert_allclose(sun_position(JD_2015_03_01 + 0.5), grid[1], rtol=1e-12)
    np.testing.assert_allclose(sun_position([JD_2015_03_01, JD_2015_03_01 + 1.0]), grid[[0, 2]])
    assert sun_position(JD_2015_03_01).shape == (3,)
    assert sun_position([[JD_2015_03_01]], [0.0, 60.0]).shape == (1, 2, 3)


def test_sun_positions_are_cached_per_grid_and_returned_as_fresh_arrays(monkeypatch):
    calls = []
    compute = illumination._compute_sun

    def counting(jd, seconds):
        calls.append(jd.shape)
        return compute(jd, seconds)

    monkeypatch.setattr(illumination, "_compute_sun", counting)
    grid = np.arange(0.0, 600.0, 30.0)
    first = sun_position(2460500.123, grid)
    first[:] = 0.0  # the caller's copy; the cache is untouched
    second = sun_position(2460500.123, grid.copy())
    assert len(calls) == 1 and np.all(np.linalg.norm(second, axis=-1) > 1e8)
    sun_position(2460500.123, grid + 1.0)  # another grid
    assert len(calls) == 2


def test_astropy_never_touches_the_network(monkeypatch):
    """Sockets blocked, astropy's downloader and its auto-updating IERS table refused,
    and astropy's global setting left at auto_download=True: dates inside, before and
    beyond the bundled IERS table all compute, with no connection or download attempt and
    no warning, and the global setting is as it was."""
    import astropy.utils.data
    from astropy.utils import iers

    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(astropy.utils.data, "download_file", refuse)
    # the auto-updating table is the one that downloads: it must not even be opened
    monkeypatch.setattr(iers.IERS_Auto, "open", classmethod(refuse))
    monkeypatch.setattr(iers.conf, "auto_download", True)
    illumination._SUN_CACHE.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for jd in (2433282.5, 2461371.5, 2470000.5, 2487000.5):  # 1950, 2027, 2050, 2096
            sun = sun_position(jd, [0.0, 3600.0])
            assert np.all(np.abs(np.linalg.norm(sun, axis=-1) / AU - 1) < 0.02)
    assert attempts == []
    assert iers.conf.auto_download is True


def _shadow_radii(behind, sun_distance):
    """Radii (km) of the umbra and penumbra cones at ``behind`` km past the Earth's centre
    on the anti-Sun axis: cones tangent to both spheres (Vallado §5.3.2 geometry)."""
    umbra = np.arcsin((SUN_RADIUS - WGS84_A) / sun_distance)
    penumbra = np.arcsin((SUN_RADIUS + WGS84_A) / sun_distance)
    umbra_apex = WGS84_A / np.sin(umbra)  # behind the Earth
    penumbra_apex = WGS84_A / np.sin(penumbra)  # on the Sun's side
    # the distance from the axis of a cone's surface, measured perpendicular to the axis
    return (umbra_apex - behind) * np.tan(umbra), (penumbra_apex + behind) * np.tan(penumbra)


@pytest.mark.parametrize("behind", [7000.0, 42164.0, 384400.0])
def test_shadow_boundaries_follow_the_umbra_and_penumbra_cones(behind):
    sun = np.array([AU, 0.0, 0.0])
    umbra, penumbra = _shadow_radii(behind, AU)
    offsets = np.array([0.0, umbra - 1.0, umbra + 1.0, penumbra - 1.0, penumbra + 1.0, 1e5])
    positions = np.stack([-behind * np.ones(6), offsets, np.zeros(6)], axis=-1)
    fraction = sunlit_fraction(positions, sun)
    assert fraction[0] == 0.0 and fraction[1] == 0.0
    assert 0.0 < fraction[2] < 0.01 and 0.99 < fraction[3] < 1.0
    assert fraction[4] == 1.0 and fraction[5] == 1.0
    assert np.all(np.diff(fraction) >= 0)
    np.testing.assert_array_equal(sunlit(positions, sun), [False, False, True, True, True, True])


def test_objects_between_the_earth_and_the_sun_or_beside_the_earth_are_lit():
    sun = np.array([0.3, -0.8, 0.5]) * AU / np.linalg.norm([0.3, -0.8, 0.5])
    axis = sun / np.linalg.norm(sun)
    side = np.cross(axis, [0.0, 0.0, 1.0])
    side /= np.linalg.norm(side)
    positions = np.array([7000.0 * axis, 7000.0 * side, -7000.0 * axis, 42164.0 * side])
    np.testing.assert_array_equal(sunlit(positions, sun), [True, True, False, True])


def test_penumbra_fraction_matches_a_count_of_the_solar_disc():
    """The visible share of the Sun's disc counted on 200,000 seeded points of the disc
    (flat discs as the model): within 4 standard errors of the count."""
    rng = np.random.default_rng(20)
    sun = np.array([AU, 0.0, 0.0])
    behind = 42164.0
    umbra, penumbra = _shadow_radii(behind, AU)
    for offset in np.linspace(umbra, penumbra, 6)[1:-1]:
        position = np.array([-behind, offset, 0.0])
        to_sun = sun - position
        a = np.arcsin(SUN_RADIUS / np.linalg.norm(to_sun))
        b = np.arcsin(WGS84_A / np.linalg.norm(position))
        c = np.arccos(-position @ to_sun / np.linalg.norm(position) / np.linalg.norm(to_sun))
        radius = a * np.sqrt(rng.random(200_000))
        angle = 2 * np.pi * rng.random(200_000)
        points = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=-1)
        visible = np.mean(np.hypot(points[:, 0] - c, points[:, 1]) > b)
        error = np.sqrt(visible * (1 - visible) / 200_000)
        assert sunlit_fraction(position, sun) == pytest.approx(visible, abs=4 * error + 1e-6)


def test_sun_elevation_at_the_subsolar_antisolar_and_terminator_points():
    sun = np.array([AU, 0.0, 0.0])
    elevations = np.degrees(
        [sun_elevation(0.0, lon, 0.0, sun) for lon in (0.0, 180.0, 90.0, -90.0)]
    )
    # parallax: from a site on the terminator the Sun is R_E / AU rad below the horizon
    parallax = np.degrees(WGS84_A / AU)
    np.testing.assert_allclose(elevations, [90.0, -90.0, -parallax, -parallax], atol=1e-7)
    # the geodetic vertical, not the geocentric one: a Sun along the ellipsoid normal at
    # latitude 45 deg is at the zenith
    site = geodetic_to_ecef(45.0, 30.0, 0.2)
    lat, lon = np.radians(45.0), np.radians(30.0)
    normal = np.array([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
    assert np.degrees(sun_elevation(45.0, 30.0, 0.2, site + AU * normal)) == pytest.approx(90.0)
    batch = np.stack([sun, -sun])
    np.testing.assert_allclose(np.degrees(sun_elevation(0.0, 0.0, 0.0, batch)), [90.0, -90.0])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: sun_position(np.nan), ValueError, "jd_utc"),
        (lambda: sun_position("2460000.5"), TypeError, "jd_utc"),
        (lambda: sun_position(2460000.5, [np.inf]), ValueError, "seconds"),
        (lambda: sun_position([2460000.5] * 2, [0.0, 1.0, 2.0]), ValueError, "broadcast"),
        (lambda: sun_position(2400000.5), ValueError, "1900-2100"),
        (lambda: sunlit([7000.0, 0.0], [AU, 0.0, 0.0]), ValueError, "positions"),
        (lambda: sunlit([6000.0, 0.0, 0.0], [AU, 0.0, 0.0]), ValueError, "outside the Earth"),
        (lambda: sunlit([7000.0, 0.0, 0.0], [1e5, 0.0, 0.0]), ValueError, "sun"),
        (lambda: sunlit(np.full((2, 3), 7000.0), np.full((3, 3), AU)), ValueError, "broadcast"),
        (lambda: sunlit_fraction([7000.0, np.nan, 0.0], [AU, 0, 0]), ValueError, "positions"),
        (lambda: sun_elevation(95.0, 0.0, 0.0, [AU, 0.0, 0.0]), ValueError, "latitude"),
        (lambda: sun_elevation(0.0, 0.0, 0.0, [AU, 0.0]), ValueError, "sun_ecef"),
        (lambda: sun_elevation([0.0, 1.0], 0.0, 0.0, [AU, 0, 0]), ValueError, "one site"),
        (lambda: sun_elevation(0.0, 0.0, 0.0, [WGS84_A, 0, 0]), ValueError, "at the site"),
        (lambda: sun_elevation(None, 0.0, 0.0, [AU, 0.0, 0.0]), TypeError, "latitude"),
    ],
)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()
