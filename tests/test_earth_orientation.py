"""Earth orientation parameters from the offline IERS table, and the Earth's rotation with them.

The references are the IERS table itself (its fixed-column format, readme.finals2000A),
the IAU-82 sidereal time polynomial (``sgp4``'s ``gstime``), the definition of the polar
motion matrix (IERS Conventions 2010, eq. 5.3) and the model of the previous release,
written out here. The comparison with skyfield is in ``tests/test_skyfield_geometry.py``.
"""

import json
import socket
import urllib.request
from dataclasses import replace

import numpy as np
import pytest
from sgp4.propagation import gstime

import ssa_privacy.sensors.earth_orientation as earth_orientation
from ssa_privacy.constants import OMEGA_EARTH
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.sensors.earth_orientation import (
    IERS_TABLE_FILE,
    NEGLECTED_EFFECTS,
    POLAR_MOTION_NEGLECTED,
    EarthOrientationParameters,
    iers_parameters,
    iers_table_range,
    iers_table_version,
    offline_astropy,
)
from ssa_privacy.sensors.geodesy import (
    GMST_RATE_IAU82,
    EarthRotation,
    polar_motion_matrix,
)
from ssa_privacy.sensors.stations import GroundStation

MJD_ZERO = 2400000.5
ISS = iss_element_set()
MADRID = GroundStation("Madrid", 40.4313, -4.2480, 0.865)
#: 2016-12-31 12:00 UTC: the last leap second (UT1 - UTC jumps by +1 s at midnight).
BEFORE_LEAP_SECOND = 2457754.0


def column(line, a_cols, b_cols):
    """A value of a finals2000A.all line: Bulletin B's columns where filled, else A's (1-based)."""
    text = line[b_cols[0] - 1 : b_cols[1]].strip()
    return float(text or line[a_cols[0] - 1 : a_cols[1]])


def table_rows():
    """The rows of finals2000A.all with values, parsed by its fixed columns (readme.finals2000A).

    Returns
    -------
    dict of float to dict
        By MJD: ``ut1_utc`` (Bulletin B where given, else A; s), ``x_p``, ``y_p``
        (arcsec, likewise) and ``ut1_flag`` (Bulletin A's ``I`` or ``P``).
    """
    rows = {}
    with open(IERS_TABLE_FILE, encoding="ascii") as file:
        for line in file:
            if len(line) < 68 or not line[58:68].strip():
                continue
            rows[float(line[7:15])] = {
                "ut1_utc": column(line, (59, 68), (155, 165)),
                "x_p": column(line, (19, 27), (135, 144)),
                "y_p": column(line, (38, 46), (145, 154)),
                "ut1_flag": line[57],
            }
    return rows


@pytest.fixture(scope="module")
def rows():
    return table_rows()


# -- the table -------------------------------------------------------------------------------


def test_table_range_is_that_of_the_file(rows):
    first, last = iers_table_range()
    assert first == min(rows) + MJD_ZERO == 2441684.5  # 1973-01-02, the file's first day
    assert last == max(rows) + MJD_ZERO
    version = iers_table_version()
    assert "finals2000A.all" in version and "1973-01-02" in version


def test_values_at_midnight_are_the_table_values(rows):
    for mjd in (41684.0, 53911.0, 58849.0, 60000.0):
        parameters = iers_parameters(mjd + MJD_ZERO)
        row, following = rows[mjd], rows[mjd + 1]
        assert parameters.ut1_utc == pytest.approx(row["ut1_utc"], abs=1e-10)
        assert parameters.polar_motion == pytest.approx((row["x_p"], row["y_p"]), abs=1e-10)
        rate = (following["ut1_utc"] - row["ut1_utc"]) / 86400.0
        assert parameters.ut1_utc_rate == pytest.approx(rate, abs=1e-15)
        assert parameters.jd_utc == mjd + MJD_ZERO
        assert not parameters.predicted


def test_values_between_days_are_linear_in_time(rows):
    # Noon of 2020-01-01: halfway between the daily values; the rate over two days is
    # the mean of the two daily slopes.
    parameters = iers_parameters(58849.5 + MJD_ZERO, span_days=2.0)
    values = [rows[58849.0 + k]["ut1_utc"] for k in range(4)]
    assert parameters.ut1_utc == pytest.approx((values[0] + values[1]) / 2, abs=1e-10)
    midway = (values[2] + values[3]) / 2
    assert parameters.ut1_utc_rate == pytest.approx(
        (midway - parameters.ut1_utc) / (2 * 86400.0), abs=1e-15
    )


def test_predictions_are_flagged(rows):
    predicted = min(mjd for mjd, row in rows.items() if row["ut1_flag"] == "P")
    assert iers_parameters(predicted + MJD_ZERO).predicted
    assert not iers_parameters(predicted + MJD_ZERO - 30).predicted


@pytest.mark.parametrize(
    "jd, span, match",
    [
        (2441684.5 - 10, 1.0, r"jd_utc = .*\(1972-12-23T00:00:00Z\) lies outside the IERS table"),
        (None, 1.0, "jd_utc"),
        (BEFORE_LEAP_SECOND, 1.0, "leap second"),
        (2458849.5, 0.0, "span_days"),
        (2458849.5, -1.0, "span_days"),
        (np.nan, 1.0, "jd_utc"),
    ],
)
def test_iers_parameters_reject_dates_outside_the_table(jd, span, match):
    if jd is None:
        jd = iers_table_range()[1] + 1.0
    with pytest.raises(ValueError, match=match):
        iers_parameters(jd, span)


def test_a_window_ending_after_the_table_is_refused():
    last = iers_table_range()[1]
    with pytest.raises(ValueError, match="span_days = 1 from jd_utc"):
        iers_parameters(last - 0.5)
    with pytest.raises(ValueError, match="jd_utc"):
        EarthRotation.at_utc(last + 1.0)
    with pytest.raises(TypeError, match="jd_utc"):
        iers_parameters("2020-01-01")


def test_parameters_validate_and_serialise():
    parameters = iers_parameters(ISS.epoch_jd)
    record = json.loads(json.dumps(parameters.to_dict()))
    assert record["ut1_utc_s"] == parameters.ut1_utc
    assert record["polar_motion_arcsec"] == list(parameters.polar_motion)
    assert record["utc"] == "2020-01-01T19:42:47Z"
    for field, value, error in [
        ("ut1_utc", 1.5, ValueError),
        ("ut1_utc_rate", 1e-3, ValueError),
        ("polar_motion", (0.1, 0.2, 0.3), ValueError),
        ("polar_motion", (2.0, 0.0), ValueError),
        ("source", 3, TypeError),
        ("predicted", "no", TypeError),
        ("jd_utc", np.inf, ValueError),
    ]:
        with pytest.raises(error, match=field):
            replace(parameters, **{field: value})
    assert isinstance(parameters, EarthOrientationParameters)


def test_no_network_is_ever_tried(monkeypatch):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network access attempted")

    import astropy.utils.data
    from astropy.time import Time
    from astropy.utils import iers

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(astropy.utils.data, "download_file", refuse)
    monkeypatch.setattr(iers.iers, "download_file", refuse)
    earth_orientation._table.cache_clear()
    parameters = iers_parameters(ISS.epoch_jd)
    EarthRotation.at_utc(ISS.epoch_jd)
    # astropy's own UT1 at a date beyond the table's measured part (its automatic
    # table would look for a newer file there): offline_astropy serves the same table.
    late = iers_table_range()[1] - 30.0
    with offline_astropy():
        time = Time(late, format="jd", scale="utc")
        ut1_utc = (time.ut1.jd1 - time.jd1 + time.ut1.jd2 - time.jd2) * 86400.0
    assert ut1_utc == pytest.approx(iers_parameters(late).ut1_utc, abs=1e-6)
    assert attempts == []
    assert parameters == iers_parameters(ISS.epoch_jd)


# -- the Earth's rotation ----------------------------------------------------------------------


def rotation_z(angle):
    """R3(angle) of the previous release, written out: shape (..., 3, 3)."""
    c, s = np.cos(angle), np.sin(angle)
    zero, one = np.zeros_like(c), np.ones_like(c)
    rows = [[c, s, zero], [-s, c, zero], [zero, zero, one]]
    return np.moveaxis(np.array(rows), (0, 1), (-2, -1))


def test_default_fields_give_the_previous_model_bit_for_bit():
    rng = np.random.default_rng(20)
    times = rng.uniform(0, 86400, 50)
    states = np.hstack([rng.normal(0, 7000, (50, 3)), rng.normal(0, 7, (50, 3))])
    for earth in (
        EarthRotation(1.234),
        EarthRotation(1.234, epoch_jd=2458850.0),
        EarthRotation(1.234, ut1_utc=0.0, ut1_utc_rate=0.0, polar_motion=(0.0, 0.0)),
        EarthRotation.at_utc(ISS.epoch_jd, "none"),
    ):
        gmst0, rate = earth.gmst0, earth.rate
        angle = gmst0 + rate * times
        assert np.array_equal(earth.angle(times), angle)
        assert np.array_equal(earth.rotation(times), rotation_z(angle))
        c, s = np.cos(angle), np.sin(angle)
        x, y, z, vx, vy, vz = states.T
        vx, vy = vx + rate * y, vy - rate * x
        old = np.stack([c * x + s * y, c * y - s * x, z, c * vx + s * vy, c * vy - s * vx, vz], -1)
        assert np.array_equal(earth.eci_to_ecef(states, times), old)
        back = np.einsum("...ij,...j->...i", rotation_z(-angle), old[:, :3])
        assert np.array_equal(earth.ecef_to_eci_position(old[:, :3], times), back)
        assert earth.neglected() == NEGLECTED_EFFECTS


def test_at_utc_none_is_the_model_without_earth_orientation():
    jd = ISS.epoch_jd
    earth = EarthRotation.at_utc(jd, "none")
    assert earth == EarthRotation(gstime(jd), epoch_jd=jd)
    assert earth.rate == OMEGA_EARTH and earth.polar_motion == (0.0, 0.0)
    assert earth.gmst0 == ISS.gmst_epoch  # SGP4's gsto is gstime of the epoch
    state = ISS.state_at_epoch()
    assert np.array_equal(
        MADRID.measure(state, 0.0, earth), MADRID.measure(state, 0.0, EarthRotation(gstime(jd)))
    )


def test_at_utc_iers_turns_the_earth_by_gmst_of_ut1():
    jd = ISS.epoch_jd
    earth = EarthRotation.at_utc(jd, "iers")
    parameters = iers_parameters(jd)
    assert earth.epoch_jd == jd and earth.rate == GMST_RATE_IAU82
    assert (earth.ut1_utc, earth.ut1_utc_rate) == (parameters.ut1_utc, parameters.ut1_utc_rate)
    assert earth.polar_motion == parameters.polar_motion
    assert earth.neglected() is None
    for t in (0.0, 43200.0, 86400.0):
        ut1 = jd + (t + parameters.ut1_utc + parameters.ut1_utc_rate * t) / 86400.0
        difference = np.angle(np.exp(1j * (earth.angle(t) - gstime(ut1))))
        assert abs(difference) < 1e-8  # gstime of a float JD is good to ~3e-9 rad
    assert replace(earth, polar_motion=(0.0, 0.0)).neglected() == POLAR_MOTION_NEGLECTED
    assert "UT1-UTC neglected" in replace(earth, ut1_utc=0.0, ut1_utc_rate=0.0).neglected()


def test_gmst_rate_is_the_derivative_of_the_iau82_polynomial():
    # One UT1 day turns GMST by 2 pi (1.0027379...): one turn plus what gstime's
    # difference (mod 2 pi) shows.
    for jd in (2444239.5, 2451545.0, 2461000.5):
        advance = (gstime(jd + 0.5) - gstime(jd - 0.5)) % (2 * np.pi)
        rate = (2 * np.pi + advance) / 86400.0
        assert rate == pytest.approx(GMST_RATE_IAU82, abs=1e-13)
    assert GMST_RATE_IAU82 - OMEGA_EARTH == pytest.approx(7.09e-12, abs=0.02e-12)


def test_polar_motion_matrix_is_the_iers_rotation():
    x_p, y_p = 0.2, -0.4
    matrix = polar_motion_matrix(x_p, y_p)
    assert np.allclose(matrix @ matrix.T, np.eye(3), rtol=0, atol=1e-15)
    assert np.linalg.det(matrix) == pytest.approx(1.0, abs=1e-15)
    x, y = np.radians([x_p / 3600, y_p / 3600])
    first_order = np.array([[1, 0, x], [0, 1, -y], [-x, y, 1]])
    assert np.allclose(matrix, first_order, rtol=0, atol=1e-11)
    # IERS 2010 eq. 5.3: W = R3(-s') R2(x_p) R1(y_p) takes ITRS to TIRS, so W^T the reverse.
    c, s = np.cos(x), np.sin(x)
    r2 = np.array([[c, 0, -s], [0, 1, 0], [s, 0, c]])
    c, s = np.cos(y), np.sin(y)
    r1 = np.array([[1, 0, 0], [0, c, s], [0, -s, c]])
    assert np.allclose(matrix, (r2 @ r1).T, rtol=0, atol=1e-16)
    assert np.array_equal(polar_motion_matrix(0.0, 0.0), np.eye(3))


def test_rotation_with_earth_orientation_is_orthonormal_and_inverted():
    earth = EarthRotation.at_utc(ISS.epoch_jd)
    times = np.linspace(0, 86400, 7)
    rotation = earth.rotation(times)
    identity = np.einsum("nij,nkj->nik", rotation, rotation)
    assert np.allclose(identity, np.eye(3), rtol=0, atol=1e-15)
    assert np.allclose(np.linalg.det(rotation), 1.0, rtol=0, atol=1e-15)
    states = ISS.propagate(times)
    ecef = earth.eci_to_ecef(states, times)
    assert np.allclose(ecef[:, :3], np.einsum("nij,nj->ni", rotation, states[:, :3]), atol=1e-9)
    assert np.allclose(earth.ecef_to_eci_position(ecef[:, :3], times), states[:, :3], atol=1e-9)
    assert np.array_equal(earth.wobble, polar_motion_matrix(*earth.polar_motion))


def test_ecef_velocity_is_the_time_derivative_of_the_ecef_position():
    earth = EarthRotation.at_utc(ISS.epoch_jd)
    times = np.array([100.0, 5000.0, 40000.0])
    step = 0.01
    states = ISS.propagate(times)
    forward = earth.eci_to_ecef(ISS.propagate(times + step), times + step)[:, :3]
    backward = earth.eci_to_ecef(ISS.propagate(times - step), times - step)[:, :3]
    numerical = (forward - backward) / (2 * step)
    # SGP4's velocity and the derivative of its positions agree to about 4e-5 km/s
    # (the model's own approximations), far below omega x r ~ 0.5 km/s.
    velocity = earth.eci_to_ecef(states, times)[:, 3:]
    assert np.allclose(velocity, numerical, rtol=0, atol=1e-4)


def test_jacobian_matches_finite_differences_with_earth_orientation():
    earth = EarthRotation.at_utc(ISS.epoch_jd)
    times = np.arange(0.0, 86400.0, 30.0)
    states = ISS.propagate(times)
    seen = MADRID.measure(states, times, earth)[:, 1] > np.radians(20)
    assert np.any(seen)
    for state, time in zip(states[seen][::3], times[seen][::3]):
        jacobian = MADRID.jacobian(state, time, earth)
        numerical = np.empty((4, 6))
        for k in range(6):
            step = np.zeros(6)
            step[k] = 1e-3 if k < 3 else 1e-6
            plus = MADRID.measure(state + step, time, earth)
            minus = MADRID.measure(state - step, time, earth)
            numerical[:, k] = (plus - minus) / (2 * step[k])
        scale = np.max(np.abs(jacobian), axis=1, keepdims=True)
        assert np.allclose(jacobian, numerical, rtol=0, atol=1e-6 * scale)


@pytest.mark.parametrize(
    "build, error, match",
    [
        (lambda: EarthRotation.at_utc(ISS.epoch_jd, "IERS"), ValueError, "orientation"),
        (lambda: EarthRotation.at_utc(ISS.epoch_jd, None), TypeError, "orientation"),
        (lambda: EarthRotation.at_utc("2020-01-01"), TypeError, "jd_utc"),
        (lambda: EarthRotation(0.0, ut1_utc=2.0), ValueError, "ut1_utc"),
        (lambda: EarthRotation(0.0, ut1_utc=np.nan), ValueError, "ut1_utc"),
        (lambda: EarthRotation(0.0, ut1_utc_rate=1.0), ValueError, "ut1_utc_rate"),
        (lambda: EarthRotation(0.0, polar_motion=(0.1,)), ValueError, "polar_motion"),
        (lambda: EarthRotation(0.0, polar_motion=(0.1, 3.0)), ValueError, "polar_motion"),
        (lambda: EarthRotation(0.0, polar_motion=None), TypeError, "polar_motion"),
        (lambda: EarthRotation(0.0, epoch_jd=np.inf), ValueError, "epoch_jd"),
        (lambda: EarthRotation(0.0, epoch_jd="today"), TypeError, "epoch_jd"),
        (lambda: polar_motion_matrix(np.nan, 0.0), ValueError, "x_p"),
    ],
)
def test_bad_earth_orientation_is_refused(build, error, match):
    with pytest.raises(error, match=match):
        build()
