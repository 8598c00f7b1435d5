"""The contacts the catalogue filter updates from (``estimation.contacts``): passes that
overlap in time are one contact, whose releases are the passes' stacked in order with a
noise covariance block diagonal over them (sensor noise plus each mechanism's Theta)."""

import types

import numpy as np
import pytest
from scipy import linalg

from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.estimation.contacts import ContactMeasurements, contact_releases
from ssa_privacy.sensors.streams import Pass

#: A radar's sensor covariance (rad^2, rad^2, km^2, km^2/s^2).
R = np.diag([3e-7, 1e-7, 8.1e-3, 1e-8])


def _pass(station, first, count):
    return Pass(station, np.arange(first, first + count), np.zeros((count, 4, 6)), R)


@pytest.fixture
def two_contacts():
    """Passes of stations 0 and 1 overlapping (one contact) and a later one of station 0;
    a filter without privacy and one whose mechanisms add Theta = 2 I."""
    stations = [types.SimpleNamespace(wrapped=(True, False, False, False))] * 2
    found = [_pass(0, 0, 3), _pass(1, 2, 2), _pass(0, 10, 2)]
    measured = [np.full(4 * len(p.indices), float(n)) for n, p in enumerate(found)]
    references = [m - 0.5 for m in measured]
    mechanism = [types.SimpleNamespace(Theta=2.0 * np.eye(4 * len(p.indices))) for p in found]
    releases = [None] * 3, [types.SimpleNamespace(values=m + 10.0) for m in measured]
    mechanisms = [[None] * 3, mechanism]
    return stations, found, measured, references, mechanisms, list(releases)


def test_overlapping_passes_are_one_contact_stacked_in_order(two_contacts):
    stations, found, measured, references, mechanisms, releases = two_contacts
    first, second = contact_releases(stations, found, measured, references, mechanisms, releases)
    assert isinstance(first, ContactMeasurements) and isinstance(first.noise, ContactNoise)
    np.testing.assert_array_equal(first.indices, [0, 1, 2, 2, 3])
    np.testing.assert_array_equal(first.stations, [0, 0, 0, 1, 1])
    assert first.z.shape == (2, 20) and second.z.shape == (2, 8)
    np.testing.assert_array_equal(first.z[0], np.concatenate(measured[:2]))
    np.testing.assert_array_equal(first.z[1], np.concatenate(measured[:2]) + 10.0)
    np.testing.assert_array_equal(first.reference, np.concatenate(references[:2]))
    np.testing.assert_array_equal(first.scale, np.tile(np.sqrt(np.diag(R)), 5))
    np.testing.assert_array_equal(first.wrapped, np.tile([True, False, False, False], 5))
    sensor = linalg.block_diag(np.kron(np.eye(3), R), np.kron(np.eye(2), R))
    np.testing.assert_array_equal(first.noise[0], sensor)
    np.testing.assert_array_equal(first.noise[1], sensor + 2.0 * np.eye(20))
    assert (first.end, second.end) == (3, 11)


def test_mechanisms_and_releases_must_hold_the_same_filters(two_contacts):
    stations, found, measured, references, mechanisms, releases = two_contacts
    with pytest.raises(ValueError):
        contact_releases(stations, found, measured, references, mechanisms, releases[:1])


def test_no_pass_is_no_contact():
    assert contact_releases([], [], [], [], [[]], [[]]) == []
