"""SSA sensor network: PML-privatized ground radars, a tracking UKF on a real orbit, CW bounds.

Owners of three ground radars (approximate positions of the Goldstone, Madrid and
Canberra deep-space sites) share measurements of a satellite (default: the ISS element
set shipped with ``sgp4``) with a fusion centre. Each station privatizes its measurements
with Gaussian noise designed for its own (epsilon_i, delta) level; the fusion centre
tracks the satellite.

What is private: the satellite's deviation from its nominal slot caused by the operator's
unannounced manoeuvres. The manoeuvre model is the Clohessy-Wiltshire (CW) motion about
the nominal orbit under a published LQR station-keeping law, driven by white random
accelerations; its stationary covariance ``Sigma_CW`` (Hill frame, [LKC] (27)) is the
prior that every station protects.

Part 1, the orbit (nonlinear). Truth: the J2 propagator (rtol = atol = 1e-10) from the
TLE's TEME state, propagated to the start of the window and displaced by a draw of
``Sigma_CW`` (mapped to ECI). Each visible station measures (azimuth, elevation, range,
range rate) with sensor noise, and adds privacy noise ``Theta_i`` from Corollary 3.7
applied to the measurement linearised about the fusion centre's predicted state ``x^``:
``Theta_i = kappa / (1 - kappa) H Sigma_XX H^T`` with ``H = dh/dx(x^)`` and
``Sigma_XX = T(x^) Sigma_CW T(x^)^T`` (``T`` the Hill-to-ECI map); the measurement is
released through a :class:`~ssa_privacy.privacy.pml.passes.PassMechanism` of one
measurement, whose certificate each release carries. The fusion centre runs
a UKF (filterpy) with the J2 process model (1e-9 tolerance) and measurement covariance
sensor + ``Theta_i``. Privacy levels: epsilon_i = level + offset_i, plus "no privacy".
Monte Carlo runs use common random numbers across levels (same initial offset, same
sensor and privacy noise draws), so that differences between levels are paired. The
code of this part is in the private module ``_ssa_network_ukf``.

Part 2, the CW plant (linear). Each station reports the relative position ``[I_3, 0] X``
with sensor noise and its privacy noise (Corollary 3.7 with ``Sigma_CW``); a linear
Kalman filter per station and one for the fusion of all three. The steady-state error
covariance (empirical, and the DARE value) is compared with the chain bound and with
[LKC] (28)-(29) in the design's convention (:doc:`/theory/kalman-bounds`; the code of this
part is in the private module ``_ssa_network_cw``). For the fusion (three releases) and
for "no privacy", the bounds are evaluated at the implied level, the smallest epsilon at
which that release is private. The CW reports are simulated inside the filter's Monte
Carlo (:func:`~ssa_privacy.estimation.kalman.empirical_error_covariance`): no data is
released.

Privacy checks: Monte Carlo estimates of ``P[l(X -> Y) <= epsilon_i]`` (true PML) of each
designed mechanism, with 99% Clopper-Pearson intervals, for the CW stations and for the
linearised radar measurement at each station's highest elevation in the window (the
private module ``_ssa_network_privacy``).
"""

from dataclasses import dataclass, fields

import numpy as np

from ssa_privacy._internal.validation import positive_int
from ssa_privacy.engine.output import StudyOutput
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import transactional
from ssa_privacy.orbits.frames import hill_to_inertial
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import (
    KEEPING_SCALES,
    MANOEUVRE_PSD,
    cw_plant,
    station_keeping_gain,
)
from ssa_privacy.orbits.tle import ElementSet, load_element_set
from ssa_privacy.privacy.accounting import check_epsilon
from ssa_privacy.privacy.notions import CONVENTIONS
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.sensors.geodesy import EarthRotation
from ssa_privacy.sensors.stations import MEASUREMENTS
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies import _ssa_network_figures as figures
from ssa_privacy.studies import _ssa_network_ukf as ukf
from ssa_privacy.studies._ssa_network_cw import C_POSITION, cw_designs, cw_task
from ssa_privacy.studies._ssa_network_privacy import CONFIDENCE, privacy_checks
from ssa_privacy.studies._ssa_network_scenario import (
    check_limits,
    network_values,
    stations_of,
)
from ssa_privacy.studies._ssa_network_ukf import FILTER_PSD, FILTER_TOLERANCE, STATIONS  # noqa: F401

__all__ = [
    "CONFIDENCE",
    "CW_SEED_TAG",
    "BUILT_IN",
    "DEFAULT_EPSILONS",
    "DEFAULT_OFFSETS",
    "DESCRIPTION",
    "NO_PRIVACY",
    "NetworkOptions",
    "PARTS",
    "PRIVACY_SEED_TAG",
    "Scenario",
    "USES_RUNNER",
    "add_arguments",
    "network_task",
    "run",
]

USES_RUNNER = True
DESCRIPTION = "SSA network: PML-privatized ground radars tracking a real LEO orbit (UKF), CW bounds"

DEFAULT_EPSILONS = (7.0, 9.0, 12.0, 16.0, 24.0)
DEFAULT_OFFSETS = (0.0, 1.0, 2.0)
#: The values of the options a scenario file may set, without one.
BUILT_IN = {
    "satellite": "iss",
    "start_hours": 6.0,
    "hours": 10.0,
    "dt": 30.0,
    "epsilons": DEFAULT_EPSILONS,
    "offsets": DEFAULT_OFFSETS,
    "delta": 0.01,
    "convention": "exact",
}
NO_PRIVACY = "none"
#: Last seed key of a CW row's simulation, ``[seed, level, filter, 3]``, and third of a
#: station's privacy checks, ``[seed, station, 4]``: no stream coincides with a UKF run's
#: ``[seed, run, 0 | 1 | 2]`` (``default_rng`` pads keys with zeros: [s, r] = [s, r, 0]).
CW_SEED_TAG = 3
PRIVACY_SEED_TAG = 4


def add_arguments(parser):
    """Options of the ssa-network study."""
    add = parser.add_argument
    opt.add_scenario(parser, "one object, its radars, the window and the levels")
    add(
        "--satellite",
        type=opt.checked_by(load_element_set),
        help="'iss' or a catalogue number of SGP4-VER.TLE (default iss)",
    )
    add(
        "--start-hours",
        type=opt.non_negative_float,
        help="window start after epoch (h, default 6)",
    )
    add("--hours", type=opt.positive_float, help="tracking window length (h, default 10)")
    add("--dt", type=opt.positive_float, help="measurement interval (s, default 30)")
    add(
        "--gap-step",
        type=opt.positive_float,
        default=600.0,
        help="filter step between passes, a multiple of --dt (s, default 600)",
    )
    add(
        "--burn-in-hours",
        type=opt.non_negative_float,
        default=2.0,
        help="time left out of the RMSE after the window start, below --hours (h, default 2)",
    )
    add(
        "--epsilons",
        type=opt.comma_list(opt.positive_float),
        help="privacy levels: epsilon of the first station (nats, default 7,9,12,16,24)",
    )
    add(
        "--offsets",
        type=opt.comma_list(opt.finite_float),
        help="epsilon_i = level + offset_i, one per station (default 0,1,2)",
    )
    opt.add_pml_level(parser, 0.01, conventions=CONVENTIONS)
    parser.set_defaults(delta=None, convention=None)
    add(
        "--runs",
        type=opt.positive_int,
        default=12,
        help="UKF Monte Carlo runs per level (default 12)",
    )
    add("--cw-runs", type=opt.positive_int, default=20, help="CW simulation runs (default 20)")
    add(
        "--cw-steps", type=opt.positive_int, default=300, help="CW time steps per run (default 300)"
    )
    add(
        "--cw-burn-in",
        type=opt.non_negative_int,
        default=50,
        help="CW steps left out, fewer than --cw-steps (default 50)",
    )
    add("--cw-dt", type=opt.positive_float, default=60.0, help="CW sampling period (s, default 60)")
    opt.add_mc_samples(parser, 100_000, "draws per mechanism for P[l <= epsilon]")


@dataclass(frozen=True)
class NetworkOptions:
    """The options of an ssa-network run and their defaults (``ssa-privacy run ssa-network``).

    The options a scenario file may set (``satellite`` to ``convention``) default to None:
    a value given here overrides the scenario's, and without a scenario the defaults
    below apply.

    Parameters
    ----------
    scenario : str or Path, optional
        Scenario file (:mod:`ssa_privacy.studies._ssa_network_scenario` says what the
        study takes of it: the object, its radars, the window, the levels).
    satellite : str
        ``"iss"`` or a catalogue number of ``SGP4-VER.TLE`` (default ``"iss"``); with a
        scenario, the scenario's object.
    start_hours, hours, dt, gap_step, burn_in_hours : float
        Window start after epoch and length (h), measurement interval and filter step
        between passes (s, a multiple of dt within the window), time left out of the
        RMSE (h, below hours).
    epsilons, offsets : sequence of float
        Privacy levels (epsilon of the first station, nats; at least one) and per-station
        offsets.
    delta : float
        PML failure probability.
    convention : {"exact", "paper"}
        PML convention of the noise design and of the bounds.
    runs, cw_runs, cw_steps, cw_burn_in : int
        UKF runs per level; CW simulation runs, steps per run and steps left out (fewer
        than cw_steps).
    cw_dt : float
        CW sampling period (s).
    mc_samples : int
        Draws per mechanism for P[l <= epsilon].

    Raises
    ------
    TypeError, ValueError
        On a count that is not a positive integer, a time that is not positive, a
        ``gap_step`` that is not a multiple of ``dt`` within the window, a burn-in outside
        its range, or no level (the message names the option).
    """

    scenario: str | None = None
    satellite: str | None = None
    start_hours: float | None = None
    hours: float | None = None
    dt: float | None = None
    gap_step: float = 600.0
    burn_in_hours: float = 2.0
    epsilons: tuple | None = None
    offsets: tuple | None = None
    delta: float | None = None
    convention: str | None = None
    runs: int = 12
    cw_runs: int = 20
    cw_steps: int = 300
    cw_burn_in: int = 50
    cw_dt: float = 60.0
    mc_samples: int = 100_000

    def __post_init__(self):
        values, record = dict(BUILT_IN), None
        if self.scenario is not None:
            found, record = network_values(self.scenario)
            values.update(found)
        for name, value in values.items():
            if getattr(self, name, None) is None:
                object.__setattr__(self, name, value)
        object.__setattr__(self, "_scenario", (values, record))
        for name in ("runs", "cw_runs", "cw_steps", "mc_samples"):
            positive_int(getattr(self, name), name)
        if not 0 <= self.cw_burn_in < self.cw_steps:
            raise ValueError("cw_burn_in must lie in [0, cw_steps)")
        for name in ("hours", "dt", "gap_step", "cw_dt"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        ratio = self.gap_step / self.dt
        if abs(ratio - round(ratio)) > 1e-9:
            raise ValueError("gap_step must be a multiple of dt")
        if self.gap_step > self.hours * 3600.0:
            raise ValueError("gap_step must not exceed the window (hours)")
        if not 0 <= self.burn_in_hours < self.hours:
            raise ValueError("burn_in_hours must lie in [0, hours)")
        if not self.epsilons:
            raise ValueError("epsilons must hold at least one level")
        check_limits(self.hours, self.dt, self.start_hours, self.epsilons, self.offsets)

    def as_dict(self):
        """The options by name, the levels and offsets as lists (JSON-ready).

        Returns
        -------
        dict
            Every field, in order.
        """
        options = {f.name: getattr(self, f.name) for f in fields(self)}
        values, record = self._scenario
        extra = {key: values.get(key) for key in ("element_set", "stations", "earth_orientation")}
        return (
            options
            | extra
            | {
                "epsilons": list(self.epsilons),
                "offsets": list(self.offsets),
                "scenario_record": record,
            }
        )


class Scenario:
    """Fixed quantities of a run: orbit, Earth, manoeuvre prior, nominal track and levels."""

    def __init__(self, options):
        if options.get("element_set"):
            self.element_set = ElementSet(*options["element_set"])
            self.stations = stations_of(options["stations"])
            epoch = self.element_set.epoch_jd
            self.earth = EarthRotation.at_utc(epoch, options["earth_orientation"])
        else:
            self.element_set = load_element_set(options["satellite"])
            self.stations = STATIONS
            self.earth = EarthRotation(self.element_set.gmst_epoch)
        self.propagator = J2Propagator()
        self.t0 = options["start_hours"] * 3600.0
        self.fine = self.t0 + np.arange(0.0, options["hours"] * 3600.0 + 1e-9, options["dt"])
        start = self.propagator.propagate([0.0, self.t0], self.element_set.state_at_epoch())[-1]
        self.nominal = self.propagator.propagate(self.fine, start)
        self.mean_motion = 2 * np.pi / self.element_set.period
        self.gain = station_keeping_gain(self.mean_motion, *KEEPING_SCALES)
        self.Sigma_cw = self.cw_plant(C_POSITION, options["cw_dt"]).prior_covariance()
        self.convention, self.delta = options["convention"], options["delta"]
        offsets = np.asarray(options["offsets"], dtype=float)
        if offsets.shape != (len(self.stations),):
            raise ValueError(
                f"offsets must hold {len(self.stations)} values, one per station, got "
                f"{options['offsets']}"
            )
        self.levels = [(f"{e:g}", tuple(e + offsets)) for e in sorted(options["epsilons"])]
        # A radar measurement has rank 4 (the CW report 3, with a lower floor).
        check_epsilon([eps for _, eps in self.levels], self.delta, len(MEASUREMENTS))
        self.levels.append((NO_PRIVACY, None))

    def __getstate__(self):
        """Pickle the element set by its lines (its ``sgp4`` record does not pickle)."""
        state = dict(self.__dict__)
        tle = state.pop("element_set")
        state["_element_set_lines"] = (tle.name, tle.line1, tle.line2)
        return state

    def __setstate__(self, state):
        state = dict(state)
        self.__dict__.update(state, element_set=ElementSet(*state.pop("_element_set_lines")))

    def cw_plant(self, C, dt):
        """The station-kept CW plant about the nominal orbit, with output matrix ``C``."""
        return cw_plant(self.mean_motion, dt, MANOEUVRE_PSD, C, self.gain)

    def prior_eci(self, state):
        """The manoeuvre prior ``T Sigma_CW T^T`` about an ECI state, shape (6, 6)."""
        T = hill_to_inertial(state)
        Sigma = T @ self.Sigma_cw @ T.T
        return 0.5 * (Sigma + Sigma.T)

    def station_noise(self, model, epsilon):
        """Privacy noise of a radar measurement linearised about ``model.state`` (module doc).

        The station provides the linearised measurement ``model`` (H, R); the mechanism of
        [LKC] Corollary 3.7 designs the noise on ``H`` for the manoeuvre prior there.
        """
        return linear_mechanism_noise(
            model.H,
            self.prior_eci(model.state),
            epsilon,
            self.delta,
            convention=self.convention,
        )

    def station_mechanism(self, model, epsilon):
        """A radar measurement's privacy noise and the mechanism that releases it.

        Parameters
        ----------
        model : LinearisedMeasurement
            The station's measurement linearised about the predicted state.
        epsilon : float
            The station's level, nats.

        Returns
        -------
        Theta : ndarray, shape (4, 4)
            :meth:`station_noise` (rad^2, km^2, km^2/s^2 and products).
        mechanism : PassMechanism
            The release of the one measurement (K = 1) with the noise ``L e``, ``Theta =
            L L^T`` (Cholesky), certified for (epsilon, delta)-PML about the state for the
            manoeuvre prior there.
        """
        Theta = self.station_noise(model, epsilon)
        mechanism = PassMechanism(
            model.H,
            self.prior_eci(model.state),
            np.linalg.cholesky(Theta),
            epsilon,
            self.delta,
            convention=self.convention,
            designer="closed-form",
        )
        return Theta, mechanism


#: The kinds of task of the study's runner map.
PARTS = {"ukf": ukf.ukf_run, "cw": cw_task, "privacy": privacy_checks}


def network_task(scenario, options, part, arguments, seed_keys):
    """One task of the runner: a UKF run, a CW table row or a station's privacy checks.

    Parameters
    ----------
    scenario : Scenario
        The run's fixed quantities.
    options : dict
        The study's options.
    part : {"ukf", "cw", "privacy"}
        Kind of task (:data:`PARTS`).
    arguments : dict
        Keyword arguments of that kind's function, but its seed keys.
    seed_keys : tuple of int
        The keys of the task's random numbers (the runner's ``Task.seed_keys``), passed on.

    Returns
    -------
    object
        A UKF run (errors, covariances, privacy range standard deviations, releases), a
        CW row (dict) or a station's privacy-check rows (list of dict).
    """
    return PARTS[part](scenario, options, seed_keys=seed_keys, **arguments)


def _task(key, part, seed_keys, **arguments):
    """A task of :func:`network_task` whose random numbers come from ``seed_keys``."""
    return Task(key, {"part": part, "arguments": arguments}, seed_keys)


def _tasks(scenario, setup, cw_noise, seed):
    """The study's tasks, longest first: UKF runs (level x run), CW rows (level x filter),
    privacy checks (station); each with the keys of its random numbers."""
    tasks = [
        _task(
            ("ukf", label, run),
            "ukf",
            (seed, run),
            times=setup.times,
            level=eps,
            truth=setup.truth[run],
            visible=setup.visible[run],
        )
        for label, eps in scenario.levels
        for run in range(len(setup.truth))
    ]
    filters = [*range(len(scenario.stations)), None]  # the stations, then the fusion
    for level, (label, _) in enumerate(scenario.levels):
        for index, station in enumerate(filters):
            noise = cw_noise[label] if station is None else cw_noise[label][station]
            name = "fusion" if station is None else scenario.stations[station].name
            keys = (seed, level, index, CW_SEED_TAG)
            tasks.append(
                _task(("cw", label, name), "cw", keys, level=level, station=station, noise=noise)
            )
    for station, site in enumerate(scenario.stations):
        keys = (seed, station, PRIVACY_SEED_TAG)
        tasks.append(
            _task(("privacy", site.name), "privacy", keys, station=station, cw_noise=cw_noise)
        )
    return tasks


def _designs(scenario, options, seed):
    """The UKF runs' truths and grid, and every level's CW noises (Corollary 3.7)."""
    setup = ukf.ukf_setup(scenario, options, seed)
    station_plant = scenario.cw_plant(C_POSITION, options["cw_dt"])
    cw_noise = {
        label: cw_designs(scenario, scenario.stations, station_plant, eps)
        for label, eps in scenario.levels
    }
    return setup, cw_noise


def _gather(scenario, setup, tasks, results):
    """The runner's results by part: the UKF tracking and its table rows (with the CW
    fusion's columns), the CW rows and the privacy-check rows."""
    parts = {part: [r for t, r in zip(tasks, results) if t.key[0] == part] for part in PARTS}
    tracking = ukf.tracking(scenario, setup, parts["ukf"])
    rows = ukf.ukf_rows(scenario, tracking)
    cw_rows = parts["cw"]
    holds = [k for k in cw_rows[0] if k.startswith("holds_")]
    for row in rows:
        mine = [r for r in cw_rows if r["level"] == row["level"]]
        fusion = next(r for r in mine if r["filter"] == "fusion")
        row.update(
            {
                "cw_fusion_logdet_P_empirical": fusion["logdet_P_empirical"],
                "cw_fusion_logdet_P_dare": fusion["logdet_P_dare"],
                "cw_fusion_trace_P_dare_km2": fusion["trace_P_dare"],
                "cw_all_bounds_hold": all(r[k] is not False for r in mine for k in holds),
            }
        )
    return tracking, rows, cw_rows, [row for station in parts["privacy"] for row in station]


def _tables(output, scenario, tracking, rows, cw_rows, privacy_rows):
    """Write results.csv/json and the CW, privacy-check and pass tables; return the summary.

    ``results.json`` also records the class of the mechanism that released each kind of
    data (``parameters.mechanisms``) and, per level, the radar releases and how many of
    their certificates passed (``radar_releases``)."""
    monotone = ukf.monotone(rows)
    table = [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]
    passes = figures.pass_rows(scenario, scenario.stations)
    output.write_csv("cw_bounds.csv", cw_rows)
    output.write_csv("privacy_checks.csv", privacy_rows)
    output.write_csv("passes.csv", passes)
    releases = {label: tracking.results[label]["releases"] for label, _ in scenario.levels}
    used = sorted({name for r in releases.values() for name in r.get("mechanisms", [])})
    output.parameters["mechanisms"] = {
        "radar measurement (UKF)": ", ".join(used),
        "CW relative position": "none (simulated inside the filter's Monte Carlo)",
    }
    summary = {
        "position_rmse_km": {r["level"]: round(r["ukf_position_rmse_km"], 5) for r in rows},
        "position_rmse_se_km": {r["level"]: round(r["ukf_position_rmse_se_km"], 5) for r in rows},
        "rmse_decreasing_in_epsilon_within_2se": all(c["decreasing_within_2se"] for c in monotone),
        "cw_all_bounds_hold": all(r["cw_all_bounds_hold"] for r in rows),
        "privacy_holds_mc": all(r["privacy_holds_mc"] for r in privacy_rows),
        "passes": len(passes),
    }
    output.write_results(
        table,
        monotone_checks=monotone,
        cw_bounds=cw_rows,
        privacy_checks=privacy_rows,
        passes=passes,
        radar_releases=releases,
        summary=summary,
        Sigma_cw=scenario.Sigma_cw,
        station_keeping_gain=scenario.gain,
    )
    return summary


@transactional
def run(out, seed, progress, runner=None, **options):
    """Run the study; write the tables and the four figures into ``out``.

    Parameters
    ----------
    out : str or Path
        Output folder.
    seed : int
        Base seed. UKF run r draws its initial offset, sensor noise and privacy noise
        from ``default_rng([seed, r, 0])``, ``[seed, r, 1]`` and ``[seed, r, 2]`` (the
        same at every level); the CW row of level index l and filter index f (stations,
        then the fusion) from ``[seed, l, f, 3]``; station s's privacy checks from
        ``[seed, s, 4]``.
    progress : bool
        Show a progress bar.
    runner : Runner, optional
        Runs the UKF runs (one task per level and run), the CW rows (one per level and
        filter) and the privacy checks (one per station); default: serially in this
        process. Results do not depend on it; ``results.json`` records it and each
        task's seed keys.
    **options
        The study's options by name, with their defaults: :class:`NetworkOptions`.

    Returns
    -------
    dict
        The summary written to ``results.json`` and the output folder.

    Raises
    ------
    TypeError, ValueError
        On an unknown option, or as :class:`NetworkOptions` and :class:`Scenario`.
    """
    options = NetworkOptions(**options).as_dict()
    scenario = Scenario(options)
    output = StudyOutput(out, "ssa-network", {"seed": seed, **options})
    setup, cw_noise = _designs(scenario, options, seed)
    tasks = _tasks(scenario, setup, cw_noise, seed)
    runner = Runner(workers=1, progress=progress) if runner is None else runner
    results = runner.map(
        network_task,
        tasks,
        shared={"scenario": scenario, "options": options},
        name="ssa-network",
        fingerprint={"seed": seed, **options},
    )
    output.parameters["runner"] = runner.describe()
    tracking, rows, cw_rows, privacy_rows = _gather(scenario, setup, tasks, results)
    summary = _tables(output, scenario, tracking, rows, cw_rows, privacy_rows)
    figures.ground_tracks(output, scenario, scenario.stations)
    figures.tracking_errors(output, scenario, tracking)
    figures.rmse_vs_epsilon(output, rows)
    figures.cw_bounds(output, cw_rows, scenario)
    return {**summary, "out": str(output.folder)}
