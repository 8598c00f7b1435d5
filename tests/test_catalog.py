"""Regimes of the satellite catalogue and its seeded samples (issue 12, groundwork)."""

from collections import Counter

import numpy as np
import pytest

from ssa_privacy.orbits.catalog import mean_motion, regime, select_objects, sgp4_states, sgp4_valid
from ssa_privacy.orbits.tle import iss_element_set, verification_element_sets


def test_regimes_match_the_data_folder_counts(catalogue):
    """The data folder's README: 13,909 objects above 11.25 rev/day and 595
    near-geosynchronous ones among 14,710."""
    counts = Counter(regime(e) for e in catalogue)
    assert counts["leo"] == 13909 and counts["geo"] == 595
    assert sum(counts.values()) == 14710


def test_the_iss_is_leo_and_its_mean_motion_is_its_tle_field():
    """The ISS makes about 15.5 revolutions a day (line 2, columns 53-63)."""
    iss = iss_element_set()
    assert mean_motion(iss) == pytest.approx(float(iss.line2[52:63]), rel=1e-6)
    assert regime(iss) == "leo"


def test_samples_are_seeded_distinct_in_regime_and_in_catalogue_order(catalogue):
    first = select_objects(catalogue, "leo", 50, seed=3)
    again = select_objects(catalogue, "leo", 50, seed=3)
    other = select_objects(catalogue, "leo", 50, seed=4)
    numbers = [e.catalogue_number for e in first]
    assert numbers == [e.catalogue_number for e in again]
    assert numbers != [e.catalogue_number for e in other]
    assert len(set(numbers)) == 50 and all(regime(e) == "leo" for e in first)
    order = {e.catalogue_number: i for i, e in enumerate(catalogue)}
    assert [order[n] for n in numbers] == sorted(order[n] for n in numbers)
    assert len(select_objects(catalogue, "geo")) == 595
    assert len(select_objects(catalogue, "all", 14710)) == 14710


@pytest.mark.parametrize(
    "arguments, error, words",
    [
        (("heo", 3), ValueError, "regime must be one of"),
        (("leo", 0), ValueError, "objects"),
        (("geo", 7), ValueError, "at most the 5 geo objects"),
        (("leo", 1.5), (TypeError, ValueError), "objects"),
        (("leo", 1, -1), ValueError, "seed must be a non-negative"),
    ],
)
def test_bad_selections_are_named(arguments, error, words):
    sets = list(verification_element_sets().values())  # 5 of the 29 are near-geosynchronous
    with pytest.raises(error, match=words):
        select_objects(sets, *arguments)


def test_batched_sgp4_states_are_the_one_object_propagations(catalogue):
    """SatrecArray over a sample of every regime gives each object's own SGP4 states. The
    start is one float Julian date (resolution 2^-21 day = 40 us, 0.3 m in LEO), so the
    one-object propagation, timed from each object's epoch, agrees to 1 m and 1 mm/s."""
    sets = [e for name in ("leo", "meo", "geo") for e in select_objects(catalogue, name, 3)]
    start = max(e.epoch_jd for e in sets)
    times = np.linspace(0.0, 6 * 3600.0, 13)
    states = sgp4_states(sets, start, times)
    assert states.shape == (9, 13, 6)
    for e, batch in zip(sets, states):
        alone = e.propagate(times + (start - e.epoch_jd) * 86400.0)
        np.testing.assert_allclose(batch[:, :3], alone[:, :3], rtol=0, atol=1e-3)
        np.testing.assert_allclose(batch[:, 3:], alone[:, 3:], rtol=0, atol=1e-6)


def test_batched_sgp4_names_a_failing_object():
    with pytest.raises(ValueError, match="at least one"):
        sgp4_states([], 2.46e6, [0.0])
    iss = iss_element_set()
    with pytest.raises(
        ValueError, match=r"'ISS \(25544\)': SGP4 failed at t = 3e\+09 s .*SGP4 error [1-6] "
    ):
        sgp4_states([iss], iss.epoch_jd, [0.0, 3.0e9])


def test_sgp4_valid_marks_exactly_the_failing_objects(catalogue):
    """The object SGP4 cannot propagate (the ISS far past its epoch, error 6 at 3e9 s) is
    marked, the others not; STARLINK-30559 of the catalogue decays within a day of the
    newest epoch and is marked too, where its batch neighbours are not."""
    iss = iss_element_set()
    np.testing.assert_array_equal(sgp4_valid([iss], iss.epoch_jd, [0.0, 60.0]), [True])
    np.testing.assert_array_equal(sgp4_valid([iss], iss.epoch_jd, [0.0, 3.0e9]), [False])
    start = max(e.epoch_jd for e in catalogue)
    decaying = [e for e in catalogue if e.name.strip() == "STARLINK-30559"]
    neighbours = select_objects(catalogue, "leo", 3, 0)
    valid = sgp4_valid(neighbours + decaying, start, np.arange(0.0, 86400.0 + 1.0, 600.0))
    np.testing.assert_array_equal(valid, [True, True, True, False])
