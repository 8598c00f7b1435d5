"""Physics inputs at the edges of the J2 propagator: every refused state is named.

The propagator models bound Earth orbits without drag. An initial state below the surface,
on a parabolic or hyperbolic orbit, with a perigee below 80 km, not finite or not a
6-vector is refused with a ValueError that names the argument and the object's index in
the batch; so is a time that is not finite or runs backwards. Valid LEO, MEO, GEO and HEO
states still propagate, conserving the J2 Hamiltonian (the specific energy with the J2
potential, Vallado Ch. 8).
"""

import re

import numpy as np
import pytest

from ssa_privacy.constants import MU_EARTH, R_EARTH
from ssa_privacy.orbits.elements import elements_to_state
from ssa_privacy.orbits.propagator import J2Propagator

#: Objects per batch of the tests; the refused one sits at each of POSITIONS.
OBJECTS = 5
POSITIONS = (0, 2, 4)
#: Relative drift of the J2 energy over 6 h at the default tolerance 1e-10 (the accuracy
#: test of the orbits measured 2.5e-9 over a day).
ENERGY_RTOL = 1e-8
SPAN = np.linspace(0.0, 6 * 3600.0, 7)


def _perigee_apogee(perigee_altitude, apogee_altitude, nu=0.0, i=1.0):
    """ECI state (km, km/s) of the orbit with these perigee and apogee altitudes (km)."""
    perigee, apogee = R_EARTH + perigee_altitude, R_EARTH + apogee_altitude
    a, e = (perigee + apogee) / 2, (apogee - perigee) / (apogee + perigee)
    return elements_to_state(a, e, i, 0.3, 0.5, nu)


def _radial_speed(state, speed):
    """``state`` with its velocity replaced by ``speed`` (km/s) across the radius."""
    r = state[:3]
    across = np.cross([0.0, 0.0, 1.0], r)
    return np.concatenate([r, speed * across / np.linalg.norm(across)])


LEO = _perigee_apogee(500.0, 700.0)
ESCAPE = np.sqrt(2 * MU_EARTH / np.linalg.norm(LEO[:3]))

#: Refused states and the reason their message gives (the regex after "name[n]: ").
BAD_STATES = {
    "below surface": (
        np.array([3000.0, 0.0, 0.0, 0.0, 7.0, 0.0]),
        r"position radius 3000\.0 km is below the Earth's surface",
    ),
    "centre": (np.zeros(6), r"position radius 0\.0 km is below the Earth's surface"),
    "hyperbolic": (_radial_speed(LEO, 1.2 * ESCAPE), r"hyperbolic orbit \(specific energy"),
    "parabolic": (_radial_speed(LEO, ESCAPE), r"parabolic orbit \(specific energy"),
    "low perigee": (
        _perigee_apogee(42.1, 900.0, nu=2.0),
        r"perigee altitude 42\.1 km is below 80 km",
    ),
    "nan": (np.array([7000.0, 0.0, np.nan, 0.0, 7.5, 0.0]), r"entries are not finite"),
    "inf": (np.array([7000.0, 0.0, 0.0, 0.0, np.inf, 0.0]), r"entries are not finite"),
}

MODEL = J2Propagator()
METHODS = {
    "propagate": (MODEL.propagate, "state0"),
    "propagate_many": (MODEL.propagate_many, "states0"),
    "propagate_with_transition": (MODEL.propagate_with_transition, "states0"),
    "transition_matrices": (MODEL.transition_matrices, "states0"),
}


def _batch(bad, position):
    """OBJECTS valid LEO states with ``bad`` at ``position``."""
    states = np.array([_perigee_apogee(400.0 + 50 * n, 800.0, nu=n) for n in range(OBJECTS)])
    states[position] = bad
    return states


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("kind", BAD_STATES)
@pytest.mark.parametrize("method", METHODS)
def test_a_refused_state_is_named_by_argument_and_index(method, kind, position):
    call, name = METHODS[method]
    bad, reason = BAD_STATES[kind]
    with pytest.raises(ValueError, match=rf"^{name}\[{position}\]: {reason}"):
        call([0.0, 60.0], _batch(bad, position))


@pytest.mark.parametrize("kind", BAD_STATES)
def test_one_refused_state_is_named_by_argument(kind):
    bad, reason = BAD_STATES[kind]
    with pytest.raises(ValueError, match=rf"^state0: {reason}"):
        MODEL.propagate([0.0, 60.0], bad)


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("method", METHODS)
def test_a_ragged_row_is_named_by_argument_and_index(method, position):
    call, name = METHODS[method]
    rows = [list(state) for state in _batch(LEO, 0)]
    rows[position] = rows[position][:5]
    with pytest.raises(ValueError, match=rf"^{name}\[{position}\] must be a state of 6 numbers"):
        call([0.0, 60.0], rows)


@pytest.mark.parametrize("shape", [(OBJECTS, 5), (OBJECTS, 7), (2, OBJECTS, 6)])
@pytest.mark.parametrize("method", [m for m in METHODS if m != "propagate"])
def test_a_batch_of_the_wrong_shape_is_named(method, shape):
    call, name = METHODS[method]
    with pytest.raises(ValueError, match=rf"^{name} must have shape \(N, 6\), got"):
        call([0.0, 60.0], np.ones(shape))


@pytest.mark.parametrize("method", METHODS)
def test_the_first_refused_object_is_named_with_the_number_refused(method):
    call, name = METHODS[method]
    states = _batch(BAD_STATES["nan"][0], 1)
    states[3] = BAD_STATES["below surface"][0]
    with pytest.raises(ValueError, match=rf"^{name}\[1\]: .*\(2 of {OBJECTS} objects refused\)$"):
        call([0.0, 60.0], states)


@pytest.mark.parametrize(
    ("times", "message"),
    [
        ([0.0, np.nan, 60.0], r"^times\[1\] = nan is not finite"),
        ([0.0, 30.0, np.inf], r"^times\[2\] = inf is not finite"),
        ([0.0, 60.0, 30.0], r"^times must be non-decreasing: times\[2\] = 30\.0 s is before"),
        ([], r"^times must be a non-empty grid"),
    ],
)
@pytest.mark.parametrize("method", METHODS)
def test_bad_times_are_named_by_entry(method, times, message):
    call = METHODS[method][0]
    with pytest.raises(ValueError, match=message):
        call(times, _batch(LEO, 0))


@pytest.mark.parametrize("nu", [0.0, 1.0, np.pi, 4.0])
def test_the_perigee_limit_is_the_osculating_perigee_wherever_the_object_is(nu):
    """The perigee altitude is a property of the conic, not of the current position: 79 km
    is refused and reported as 79.0 km, 81 km is accepted, at any true anomaly."""
    with pytest.raises(ValueError, match=r"^states0\[0\]: perigee altitude 79\.0 km is below"):
        MODEL.propagate_many([0.0, 0.0], _perigee_apogee(79.0, 3000.0, nu)[None])
    accepted = MODEL.propagate_many([0.0, 0.0], _perigee_apogee(81.0, 3000.0, nu)[None])
    assert accepted.shape == (1, 2, 6)


def test_a_perigee_just_above_the_limit_is_not_refused_through_its_perturbed_states():
    """The transition matrices perturb each state by 1 m and 1 mm/s; only the states the
    caller gave are checked, so an object 1 cm above the limit is accepted."""
    state = _perigee_apogee(80.00001, 1000.0, nu=np.pi)
    paths, Phi = MODEL.propagate_with_transition([0.0, 60.0], state[None])
    assert paths.shape == (1, 2, 6) and Phi.shape == (1, 2, 6, 6)


@pytest.mark.parametrize("method", METHODS)
def test_an_object_reaching_the_surface_is_named_with_the_time(method):
    """Fifty times the Earth's J2 pulls a 100 km perigee into the surface within the first
    revolution: the error names the object (not one of its perturbed copies) and a time
    within that revolution."""
    call, name = getattr(J2Propagator(J2=0.05), method), METHODS[method][1]
    states = _batch(_perigee_apogee(100.0, 3000.0, nu=np.pi), 3)
    with pytest.raises(ValueError, match=rf"^{name}\[3\]: the orbit reaches") as raised:
        call([0.0, 20000.0], states)
    impact = float(re.search(r"at t = (\d+\.\d) s", str(raised.value)).group(1))
    period = 2 * np.pi * np.sqrt((R_EARTH + 1550.0) ** 3 / MU_EARTH)
    assert 0.0 < impact < period


ORBITS = {
    "LEO": _perigee_apogee(400.0, 420.0, nu=0.3, i=0.9),
    "MEO": _perigee_apogee(20000.0, 20400.0, nu=1.0, i=0.96),
    "GEO": _perigee_apogee(35780.0, 35790.0, nu=2.0, i=0.001),
    "HEO": _perigee_apogee(500.0, 39800.0, nu=0.1, i=1.1),
}


@pytest.mark.parametrize("orbit", ORBITS)
@pytest.mark.parametrize("method", ["propagate", "propagate_many", "propagate_with_transition"])
def test_valid_orbits_propagate_and_conserve_the_j2_energy(method, orbit):
    call = METHODS[method][0]
    start = ORBITS[orbit]
    if method == "propagate":
        path = call(SPAN, start)
    else:
        result = call(SPAN, start[None])
        path = (result[0] if method == "propagate_with_transition" else result)[0]
    assert path.shape == (len(SPAN), 6)
    np.testing.assert_array_equal(path[0], start)
    energy = MODEL.energy(path)
    assert np.ptp(energy) < ENERGY_RTOL * abs(energy[0])


def test_every_object_of_the_catalogue_is_accepted_at_its_epoch(catalogue):
    """The active-satellite catalogue holds no decayed object at its epochs: its SGP4
    states (TEME) are bound orbits with perigees above 80 km, all accepted."""
    states = np.array([element_set.state_at_epoch() for element_set in catalogue])
    assert MODEL.propagate_many([0.0, 0.0], states).shape == (len(states), 2, 6)
