"""Layout of the orbit and sensor code: old import paths, one home per constant, no privacy
import in the sensors."""

import subprocess
import sys

import pytest

import ssa_privacy.constants as constants
import ssa_privacy.estimation.ukf
import ssa_privacy.orbits.elements
import ssa_privacy.orbits.frames
import ssa_privacy.orbits.planar
import ssa_privacy.orbits.propagator
import ssa_privacy.sensors.geodesy
import ssa_privacy.sensors.stations

#: Every public name of the former single modules, and its new home.
OLD_ORBITS = {
    ssa_privacy.orbits.planar: ("MAX_TOLERANCE", "PlanarJ2Model"),
    ssa_privacy.orbits.propagator: ("J2Propagator", "TIGHT_TOLERANCE", "LOOSEST_TOLERANCE"),
    ssa_privacy.orbits.elements: (
        "OrbitalElements",
        "SINGULAR_TOL",
        "angular_momentum",
        "elements_to_state",
        "orbit_averaged_rates",
        "orbit_averages",
        "state_to_elements",
    ),
    ssa_privacy.orbits.frames: ("hill_to_inertial", "rsw_frame"),
    constants: ("J2_EARTH", "MU_EARTH", "R_EARTH"),
}
OLD_SENSORS = {
    ssa_privacy.sensors.geodesy: (
        "GEODETIC_ITERATIONS",
        "EarthRotation",
        "ecef_to_geodetic",
        "geodetic_to_ecef",
        "ground_track",
    ),
    ssa_privacy.sensors.stations: ("DEFAULT_NOISE_STD", "MEASUREMENTS", "GroundStation"),
    ssa_privacy.estimation.ukf: (
        "FIRST_STEP",
        "SIGMA_POINT_PARAMETERS",
        "OrbitTracker",
        "measurement_mean",
        "measurement_residual",
    ),
    constants: ("OMEGA_EARTH", "WGS84_A", "WGS84_F"),
}


@pytest.mark.parametrize("old_path, homes", [("orbits", OLD_ORBITS), ("sensors", OLD_SENSORS)])
def test_the_old_import_paths_give_the_same_objects(old_path, homes):
    module = __import__(f"ssa_privacy.{old_path}", fromlist=["_"])
    for home, names in homes.items():
        for name in names:
            if hasattr(home, "__all__") and name in module.__all__:
                assert getattr(module, name) is getattr(home, name), name
                continue
            # moved out of the package in 0.2: served with a warning until 0.3
            with pytest.warns(DeprecationWarning, match=f"use {home.__name__}.{name}$"):
                assert getattr(module, name) is getattr(home, name), name


def test_old_style_imports_still_work():
    from ssa_privacy.orbits import J2Propagator, PlanarJ2Model, rsw_frame  # noqa: F401
    from ssa_privacy.sensors import GroundStation, ground_track  # noqa: F401

    with pytest.warns(DeprecationWarning, match="use ssa_privacy.estimation.ukf.OrbitTracker"):
        from ssa_privacy.sensors import OrbitTracker  # noqa: F401


def test_each_constant_has_one_value():
    # R_EARTH and WGS84_A were the same number defined twice; now one is the other.
    assert constants.R_EARTH == constants.WGS84_A == 6378.137
    assert ssa_privacy.orbits.propagator.J2Propagator().R_e == constants.R_EARTH
    assert ssa_privacy.sensors.geodesy.EarthRotation().rate == constants.OMEGA_EARTH
    model = ssa_privacy.orbits.planar.PlanarJ2Model()
    assert (model.R_e, model.mu, model.J2, model.h) == (
        constants.TCB_R_E,
        constants.TCB_MU,
        constants.TCB_J2,
        constants.TCB_ALTITUDE,
    )


def test_the_sensors_do_not_import_the_privacy_package():
    code = (
        "import sys, ssa_privacy.sensors, ssa_privacy.orbits; "
        "print(any(m.startswith('ssa_privacy.privacy') for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
