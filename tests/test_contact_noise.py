"""A contact's noise kept as its passes' blocks: the same matrices as the dense stack, and
the same filter results to the last bit."""

import numpy as np
import pytest
from scipy import linalg

from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.estimation.contacts import ContactMeasurements
from ssa_privacy.estimation.ekf import track_contacts
from ssa_privacy.estimation.tracking import TrackingModel
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import iss_element_set
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import contacts, object_stream


@pytest.fixture(scope="module")
def iss():
    """The ISS over 4 h: its passes grouped in contacts, its prior and a pass design each."""
    element_set = iss_element_set()
    times = np.arange(0.0, 4 * 3600.0 + 1e-9, 30.0)
    earth, stations, model = EarthRotation(element_set.gmst_epoch), radar_network(), J2Propagator()
    state0 = element_set.state_at_epoch()
    nominal, _, found = object_stream(state0, times, stations, earth, model)
    Sigma_XX = manoeuvre_prior(state0, 2 * np.pi / element_set.period)
    designs = [PassMechanism.design(p, Sigma_XX, 14.0, 0.01) for p in found]
    return times, earth, stations, model, nominal, found, Sigma_XX, designs


def _terms(found, group, designs):
    """Per filter (none, then the log-det designs): the passes' (R, K, mechanism)."""
    return [
        [(found[i].R, len(found[i].indices), None if d is None else d[i]) for i in group]
        for d in (None, designs)
    ]


def _dense(found, group, designs):
    """The same matrices as the study formed them before: block_diag of the full blocks."""
    out = []
    for d in (None, designs):
        blocks = [np.kron(np.eye(len(found[i].indices)), found[i].R) for i in group]
        if d is not None:
            blocks = [b + d[i].Theta for b, i in zip(blocks, group, strict=True)]
        out.append(linalg.block_diag(*blocks))
    return np.array(out)


def test_the_matrices_are_the_dense_block_diagonal_ones_and_a_subset_shares_them(iss):
    _, _, _, _, _, found, _, designs = iss
    group = max(contacts(found), key=len)
    noise, dense = ContactNoise(_terms(found, group, designs)), _dense(found, group, designs)
    assert noise.shape == dense.shape and len(noise) == 2
    for f in range(2):
        np.testing.assert_array_equal(noise[f], dense[f])
    np.testing.assert_array_equal(np.asarray(noise), dense)
    repeated = noise[np.array([1, 1, 0])]
    assert repeated.source(0) == repeated.source(1) != repeated.source(2)
    np.testing.assert_array_equal(np.asarray(repeated), dense[[1, 1, 0]])


def test_the_filters_are_the_same_to_the_last_bit_with_either_form(iss):
    """Two filters (none, 14 nats) through the ISS's contacts with the noise as blocks and
    as dense stacks: the same estimates and covariances, bit for bit."""
    times, earth, stations, model, nominal, found, Sigma_XX, designs = iss
    runs = {}
    for form in ("blocks", "dense"):
        measured = []
        for group in contacts(found):
            rows = sum(len(found[i].indices) * len(found[i].R) for i in group)
            reference = np.concatenate(
                [
                    stations[found[i].station]
                    .measure(nominal[found[i].indices], times[found[i].indices], earth)
                    .ravel()
                    for i in group
                ]
            )
            noise = (
                ContactNoise(_terms(found, group, designs))
                if form == "blocks"
                else _dense(found, group, designs)
            )
            measured.append(
                ContactMeasurements(
                    np.concatenate(
                        [np.full(len(found[i].indices), found[i].station) for i in group]
                    ),
                    np.concatenate([found[i].indices for i in group]),
                    reference + 1e-3 * np.random.default_rng(rows).standard_normal((2, rows)),
                    noise,
                    np.concatenate(
                        [
                            np.tile(np.sqrt(np.diag(found[i].R)), len(found[i].indices))
                            for i in group
                        ]
                    ),
                    reference,
                )
            )
        evaluate = np.arange(0, len(times), 60)
        runs[form] = track_contacts(
            TrackingModel(model, stations, earth, times),
            nominal[0],
            Sigma_XX,
            measured,
            evaluate,
            diagnostics=True,
        )
    blocks, dense = runs["blocks"], runs["dense"]
    np.testing.assert_array_equal(blocks[0], dense[0])
    np.testing.assert_array_equal(blocks[2]["covariances"], dense[2]["covariances"])
    np.testing.assert_array_equal(blocks[2]["nis"], dense[2]["nis"])
