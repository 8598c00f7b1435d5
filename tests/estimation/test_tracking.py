"""The tracking pipeline of ``estimation.tracking``: a user's element sets tracked through
:class:`TrackingModel` and :func:`simulate_and_track` give the ssa-catalog study's rows,
and the API's shapes and refusals.

The study is run through its command line (its public entry); the library side imports
nothing of ``ssa_privacy.studies`` and rebuilds the run from what the run records
(``results.json``: window start, grid, stations, privacy) and the study's documented seed
scheme (``default_rng([seed, norad_id, 0 | 1 | 2])``), with one BLAS thread as the study's
runner gives each task.
"""

import csv
import json

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from ssa_privacy.cli import main
from ssa_privacy.engine.data import data_file
from ssa_privacy.estimation import consistency
from ssa_privacy.estimation.contacts import ContactMeasurements
from ssa_privacy.estimation.orbit_determination import contact_orbit_determination
from ssa_privacy.estimation.tracking import (
    CORRELATION_FLOOR,
    TrackingModel,
    TrackResult,
    rmse,
    simulate_and_track,
)
from ssa_privacy.orbits.catalog import read_element_sets, regime, sgp4_states
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior
from ssa_privacy.orbits.tle import ACTIVE_CATALOGUE_FILE, iss_element_set
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.networks import radar_network
from ssa_privacy.sensors.streams import contacts, passes_of

SEED = 0
HOURS = 3.0
EPSILON = 10.0
#: The study's evaluation spacing (s), as its run record states it.
EVALUATION_S = 300
TOLERANCE = 1e-10
#: (column suffix, designer) of the privatized filters, in the study's filter order.
DESIGNERS = (("", "logdet"), ("_scaled", "scaled"))


def _three_leo_sets():
    """Three LEO element sets of the shared catalogue with epochs on its main day."""
    sets = read_element_sets(data_file(ACTIVE_CATALOGUE_FILE))
    chosen = [e for e in sets if regime(e) == "leo" and e.line1[18:23] == "26078"]
    return chosen[:3]


@pytest.fixture(scope="module")
def study_run(tmp_path_factory):
    """The ssa-catalog study on a user's TLE file of three objects: rows and run record."""
    sets = _three_leo_sets()
    folder = tmp_path_factory.mktemp("tracking")
    tle = folder / "three.tle"
    tle.write_text("".join(f"{e.name}\n{e.line1}\n{e.line2}\n" for e in sets), encoding="utf-8")
    out = folder / "run"
    arguments = ["run", "ssa-catalog", "--out", str(out), "--tle", str(tle), "--objects", "3"]
    arguments += ["--hours", f"{HOURS:g}", "--epsilons", f"{EPSILON:g}", "--seed", str(SEED)]
    assert main([*arguments, "--workers", "1", "--no-progress"]) == 0
    with open(out / "results.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    record = json.loads((out / "results.json").read_text(encoding="utf-8"))["parameters"]
    return sets, rows, record


def _library_columns(model, element_set, record, evaluate):
    """Position and velocity RMSE and mean NEES of the filters none, logdet and scaled,
    computed through the library alone."""
    norad, times, propagator = element_set.norad_id, model.times, model.propagator
    state0 = sgp4_states([element_set], record["start_jd"], times[[0, -1]])[0, 0]
    nominal, Phi = propagator.propagate_with_transition(
        times, state0[None], rtol=TOLERANCE, atol=TOLERANCE
    )
    nominal, Phi = nominal[0], Phi[0]
    prior = manoeuvre_prior(nominal[0], 2.0 * np.pi / element_set.period)
    deviation = np.linalg.cholesky(prior) @ np.random.default_rng([SEED, norad, 0]).standard_normal(
        6
    )
    truth = propagator.propagate(times, nominal[0] + deviation, TOLERANCE, TOLERANCE)
    longest = max(1, round(record["longest_pass_minutes"] * 60.0 / record["dt"]))
    found = passes_of(nominal, Phi, times, model.stations, model.earth, longest)
    design = {"delta": record["delta"], "convention": record["convention"]}
    mechanisms = [[None] * len(found)] + [
        [PassMechanism.design(p, prior, EPSILON, designer=d, **design) for p in found]
        for _, d in DESIGNERS
    ]
    simulation = simulate_and_track(
        model,
        truth,
        found,
        mechanisms,
        ((SEED, norad, 1), (SEED, norad, 2)),
        nominal=nominal,
        prior=prior,
        evaluate=evaluate,
    )
    end = max(found[i].indices[-1] for i in contacts(found)[0])
    evaluated = evaluate[evaluate >= end]
    errors = simulation.track.errors(truth, evaluated)
    kept = np.searchsorted(evaluate, evaluated)
    nees = consistency.nees(
        errors, simulation.track.covariances[:, kept], jitter=CORRELATION_FLOOR
    ).mean(axis=1)
    return (*rmse(errors), nees)


@pytest.mark.slow  # the study's run takes about 40 s on two cores
@pytest.mark.data(ACTIVE_CATALOGUE_FILE)
def test_three_objects_of_a_tle_file_track_as_in_the_study(study_run):
    sets, rows, record = study_run
    assert EVALUATION_S == 300 and "every 300 s" in record["evaluation"]
    stations = radar_network()
    assert [s.name for s in stations] == record["stations"]
    assert record["earth_orientation"]["used"] == "none"
    times = np.arange(0.0, record["hours"] * 3600.0 + 1e-9, record["dt"])
    index = np.arange(len(times))
    step = max(1, round(EVALUATION_S / record["dt"]))
    evaluate = index[(times >= times[-1] / 2) & (index % step == 0)]
    earth = EarthRotation.at_utc(record["start_jd"], "none", record["hours"] / 24.0)
    model = TrackingModel(J2Propagator(), stations, earth, times)
    assert sorted(record["norad_ids"]) == sorted(e.norad_id for e in sets)
    for element_set in sets:
        mine = {r["level"]: r for r in rows if int(r["norad_id"]) == element_set.norad_id}
        assert mine["none"]["status"] == "tracked"
        # the study's runner gives each task one BLAS thread: the same sums, in order
        with threadpool_limits(limits=1):
            position, velocity, nees = _library_columns(model, element_set, record, evaluate)
        expected = [(mine["none"], "", 0)] + [
            (mine[f"{EPSILON:g}"], suffix, 1 + k) for k, (suffix, _) in enumerate(DESIGNERS)
        ]
        for row, suffix, f in expected:
            assert float(row[f"position_rmse_km{suffix}"]) == position[f]
            assert float(row[f"velocity_rmse_m_s{suffix}"]) == velocity[f]
            assert float(row[f"nees_mean{suffix}"]) == nees[f]


@pytest.fixture(scope="module")
def iss():
    """The ISS over 6 h at 60 s on the eight radars, its nominal track and a prior."""
    element_set = iss_element_set()
    times = np.arange(0.0, 21600.0 + 1e-9, 60.0)
    start_jd = element_set.satrec.jdsatepoch + element_set.satrec.jdsatepochF
    earth = EarthRotation.at_utc(start_jd, "none", 1.0)
    model = TrackingModel(J2Propagator(), radar_network(), earth, times)
    state0 = sgp4_states([element_set], start_jd, times[[0, -1]])[0, 0]
    nominal, Phi = model.propagator.propagate_with_transition(
        times, state0[None], rtol=TOLERANCE, atol=TOLERANCE
    )
    prior = manoeuvre_prior(nominal[0, 0], 2.0 * np.pi / element_set.period)
    found = passes_of(nominal[0], Phi[0], times, model.stations, earth, 20)
    return model, nominal[0], prior, found


def test_a_model_refuses_a_grid_that_does_not_increase_no_station_and_a_negative_psd():
    stations, earth = radar_network(), EarthRotation()
    with pytest.raises(ValueError, match="times must be"):
        TrackingModel(J2Propagator(), stations, earth, [0.0, 30.0, 30.0])
    with pytest.raises(ValueError, match="stations must"):
        TrackingModel(J2Propagator(), (), earth, [0.0, 30.0])
    with pytest.raises(ValueError, match="psd"):
        TrackingModel(J2Propagator(), stations, earth, [0.0, 30.0], psd=-1.0)


def test_without_contacts_every_filter_predicts_the_prior_mean(iss):
    model, nominal, prior, _ = iss
    evaluate = np.array([0, 30, 120])
    result = model.track(nominal[0], prior, [], evaluate, filters=2)
    assert isinstance(result, TrackResult)
    assert result.estimates.shape == (2, 3, 6)
    assert result.covariances.shape == (2, 3, 6, 6)
    assert result.nis.shape == (2, 0) and result.nis_dof.shape == (0,)
    np.testing.assert_array_equal(result.total_nis, [0.0, 0.0])
    np.testing.assert_array_equal(result.rejected, [0, 0])
    # the filters' prediction is the nominal track, integrated at the filters' tolerance
    np.testing.assert_allclose(result.estimates[0], nominal[evaluate], rtol=0, atol=1e-5)
    np.testing.assert_allclose(result.covariances[0, 0], prior, rtol=1e-6, atol=1e-12)
    assert model.track(nominal[0], prior, [], evaluate, 1, diagnostics=False).nis is None


def test_simulate_and_track_gives_each_truth_its_filters_and_contact_nis(iss):
    """Two truths (the nominal and a deviation) x two filters: the NIS of each contact
    has the contact's rows as degrees of freedom, and the stack's errors are per truth."""
    model, nominal, prior, found = iss
    assert len(contacts(found)) >= 2
    truths = np.array([nominal, nominal])
    mechanisms = [[None] * len(found), [None] * len(found)]
    evaluate = np.arange(0, len(model.times), 10)
    common = {"nominal": nominal, "prior": prior, "evaluate": evaluate}
    simulation = simulate_and_track(model, truths, found, mechanisms, (1, (1, 2)), **common)
    track = simulation.track
    count = len(contacts(found))
    assert track.estimates.shape == (4, len(evaluate), 6)
    assert track.nis.shape == (4, count)
    rows = [len(c.scale) for c in simulation.contacts]
    np.testing.assert_array_equal(track.nis_dof, rows)
    assert track.total_dof == sum(rows)
    np.testing.assert_allclose(track.total_nis, track.nis.sum(axis=1), rtol=1e-12)
    # no privacy: the two filters of a truth see the same measurements (the batch
    # solver of the first contact couples them only through its stopping rule)
    np.testing.assert_allclose(track.estimates[0], track.estimates[1], rtol=0, atol=1e-6)
    # the second truth's measurements have their own sensor noise (metres, not micrometres)
    assert np.abs(track.estimates[0] - track.estimates[2]).max() > 1e-4
    assert track.errors(truths, evaluate[-2:]).shape == (4, 2, 6)
    with pytest.raises(ValueError, match="indices must be evaluation times"):
        track.errors(truths, [evaluate[1] + 1])
    assert track.filters(np.array([3, 0])).nis.shape == (2, count)


def test_simulate_and_track_refuses_a_bad_seed_and_a_missing_truth(iss):
    model, nominal, prior, found = iss
    common = {"nominal": nominal, "prior": prior, "evaluate": np.array([0])}
    with pytest.raises(ValueError, match="seed must be a pair"):
        simulate_and_track(model, nominal, found, [[None] * len(found)], 3, **common)
    with pytest.raises(ValueError, match="truth must be given"):
        simulate_and_track(model, None, found, [[None] * len(found)], (1, (2,)), **common)
    with pytest.raises(ValueError, match="truth must have shape"):
        simulate_and_track(model, nominal[:5], found, [[None] * len(found)], (1, (2,)), **common)


def test_the_orbit_determination_tuple_and_the_old_contact_path_are_deprecated(iss):
    import ssa_privacy.estimation.ekf as ekf

    with pytest.warns(DeprecationWarning, match="use ssa_privacy.estimation.contacts"):
        assert ekf.ContactMeasurements is ContactMeasurements
    model, nominal, prior, found = iss
    common = {"nominal": nominal, "prior": prior, "evaluate": np.array([0])}
    simulation = simulate_and_track(
        model, nominal, found, [[None] * len(found)], (1, (2,)), **common
    )
    contact = simulation.contacts[0]
    old = (model.propagator, model.stations, model.earth, model.times, 0)
    with pytest.warns(DeprecationWarning, match="TrackingModel and start="):
        legacy = contact_orbit_determination(old, nominal[:1], prior[None], contact, 1e-9)
    new = contact_orbit_determination(model, nominal[:1], prior[None], contact, 1e-9)
    np.testing.assert_array_equal(legacy.states, new.states)
    with pytest.raises(ValueError, match="start must index"):
        contact_orbit_determination(model, nominal[:1], prior[None], contact, 1e-9, start=10**6)


def test_track_contacts_in_its_old_form_warns_and_tracks_as_the_model(iss):
    """The deprecated (propagator, earth, stations, times, ...) form, psd included, runs
    the same filter as the TrackingModel form."""
    import ssa_privacy.estimation.ekf as ekf

    model, nominal, prior, found = iss
    common = {"nominal": nominal, "prior": prior, "evaluate": np.array([0, 10])}
    simulation = simulate_and_track(
        model, nominal, found, [[None] * len(found)], (1, (2,)), **common
    )
    arguments = (nominal[0], prior, simulation.contacts, np.array([0, 10]))
    new = ekf.track_contacts(model, *arguments)
    old_form = (model.propagator, model.earth, model.stations, model.times, *arguments)
    with pytest.warns(DeprecationWarning, match="use ssa_privacy.estimation.tracking"):
        legacy = ekf.track_contacts(*old_form, psd=model.psd)
    np.testing.assert_array_equal(legacy[0], new[0])
    np.testing.assert_array_equal(legacy[1], new[1])


def test_rmse_is_the_root_mean_square_of_position_and_velocity_errors():
    errors = np.zeros((1, 2, 6))
    errors[0, 0, :3] = [3.0, 4.0, 0.0]  # |e_r| = 5 km, then 0
    errors[0, 1, 3:] = [0.0, 0.0, 2e-3]  # |e_v| = 0, then 2 m/s
    position, velocity = rmse(errors)
    np.testing.assert_allclose(position, [np.sqrt(12.5)])
    np.testing.assert_allclose(velocity, [np.sqrt(2.0)])


def test_linearised_about_the_nominal_a_contact_predicts_its_references(iss):
    """The contact's references are the nominal's measurements; its maps at the contact's
    end are the stations' Jacobians carried by the transition matrices."""
    model, nominal, prior, found = iss
    common = {"nominal": nominal, "prior": prior, "evaluate": np.array([0])}
    simulation = simulate_and_track(
        model, nominal, found, [[None] * len(found)], (1, (2,)), **common
    )
    contact = simulation.contacts[0]
    grid = np.unique(np.concatenate([[0], contact.indices]))
    paths, Phi = model.propagator.propagate_with_transition(
        model.times[grid], nominal[0][None], rtol=TOLERANCE, atol=TOLERANCE
    )
    position = dict(zip(grid.tolist(), range(len(grid)), strict=True))
    h, maps = model.linearise(contact, paths[0], Phi[0], position, at_end=False)
    np.testing.assert_allclose(h, contact.reference, rtol=0, atol=1e-7)
    assert maps.shape == (len(contact.reference), 6)
    first = model.stations[contact.stations[0]]
    k = contact.indices[0]
    jacobian = first.jacobian(nominal[k][None], model.times[k][None], model.earth)[0]
    np.testing.assert_allclose(maps[:4], jacobian @ Phi[0, position[int(k)]], rtol=1e-6)
    with pytest.raises(ValueError, match="diagnostics=True"):
        model.track(nominal[0], prior, [], np.array([0]), 1, diagnostics=False).total_nis  # noqa: B018
