"""The options of the ssa-catalog study: a scenario file and what overrides it.

``ssa-privacy run ssa-catalog`` describes its study by a scenario file
(:mod:`ssa_privacy.studies.scenario`, the shipped one by default); every command-line
option left out takes the scenario's value, one given replaces the scenario's key
(:data:`SCENARIO_KEYS`). The study module (:mod:`ssa_privacy.studies.ssa_catalog`)
gathers these names.
"""

from dataclasses import dataclass, replace

from ssa_privacy.orbits.catalog import REGIMES, parse_utc
from ssa_privacy.privacy.notions import CONVENTIONS
from ssa_privacy.studies import _options as opt
from ssa_privacy.studies.scenario.checks import EARTH_ORIENTATIONS
from ssa_privacy.studies.scenario.overrides import with_overrides
from ssa_privacy.studies.scenario.reading import default_scenario, load_scenario
from ssa_privacy.studies.scenario.sections import ObjectsSpec

__all__ = [
    "CatalogOptions",
    "OPTION_NAMES",
    "SCENARIO_KEYS",
    "add_arguments",
]


#: Command-line option -> the scenario key it overrides (:mod:`ssa_privacy.studies.scenario`).
SCENARIO_KEYS = {
    "regime": "regime",
    "objects": "sample",
    "epsilons": "pass_epsilons",
    "measurement_epsilons": "measurement_epsilons",
    "day_epsilons": "day_epsilons",
    "hours": "hours",
    "dt": "step_s",
    "delta": "delta",
    "convention": "convention",
    "start": "start",
    "staleness_days": "staleness_days",
    "earth_orientation": "orientation",
}
#: How each override is named in an error: the command-line option (``--staleness-days``).
OPTION_NAMES = {name: f"--{name.replace('_', '-')}" for name in (*SCENARIO_KEYS, "tle", "stations")}


def add_arguments(parser):
    """Options of ``ssa-privacy run ssa-catalog``: a scenario file and what overrides it."""
    _add_files(parser)
    add = parser.add_argument
    add("--regime", choices=REGIMES, help="orbital regime of the sample (shipped: leo)")
    add(
        "--objects",
        type=opt.positive_int_or_all,
        help="objects sampled, seeded by --seed, or 'all' of the regime (shipped: 50)",
    )
    add(
        "--epsilons",
        type=opt.comma_list(opt.positive_float),
        help="pass-level budgets (nats, shipped 10,14,20; each above 8.41 at delta 0.01)",
    )
    add(
        "--measurement-epsilons",
        type=opt.comma_list(opt.positive_float),
        help="per-measurement levels whose pass and day leakage is reported (shipped 7,12,24)",
    )
    add(
        "--day-epsilons",
        type=opt.comma_list(opt.positive_float),
        help="per-object day budgets over all stations (nats, each above 8.41 at delta 0.01; "
        "shipped: none)",
    )
    add("--hours", type=opt.positive_float, help="window length (h, shipped 24)")
    add("--dt", type=opt.positive_float, help="measurement interval (s, shipped 30)")
    opt.add_pml_level(parser, 0.01, "failure probability of each budget", CONVENTIONS)
    add(
        "--start",
        type=opt.checked_by(parse_utc),
        help="window start, UTC in ISO 8601 (shipped: the newest epoch within 3 days of the "
        "catalogue's median epoch)",
    )
    add(
        "--staleness-days",
        type=opt.positive_float,
        help="leave out element sets whose epoch is further than this from the window start, "
        "either side (days, shipped 14)",
    )
    add(
        "--earth-orientation",
        choices=EARTH_ORIENTATIONS,
        help="UT1-UTC and polar motion neglected, from the offline IERS table (an error for a "
        "window outside it), or from the table where it covers the window (shipped: none)",
    )
    add("--batch", type=opt.positive_int, default=5, help="objects per runner task (default 5)")
    opt.add_data_folder(parser, "the catalogue")
    parser.set_defaults(delta=None, convention=None)


def _add_files(parser):
    """The options that name files: the scenario, element sets, sensors, recorded
    measurements, and whether to write CCSDS messages."""
    add = parser.add_argument
    opt.add_scenario(
        parser, "the whole study (default: the shipped one, 8 radars, 50 LEO objects, 24 h)"
    )
    add("--tle", type=opt.existing_file, help="element sets (TLE, 3LE or OMM file, or a mix)")
    add(
        "--stations",
        type=opt.existing_file,
        help="sensors file (TOML [[sensors]] tables or a GeoJSON FeatureCollection)",
    )
    add(
        "--measurements",
        type=opt.existing_file,
        help="recorded sensor measurements (CCSDS TDM) to privatize and filter instead of "
        "simulated ones",
    )
    add("--ccsds", action="store_true", help="write TDM and OEM messages under ccsds/")


@dataclass(frozen=True)
class CatalogOptions:
    """The options of a catalogue run: a scenario and what overrides it.

    Every option left None takes the scenario's value (the shipped scenario's, listed
    here, when no ``scenario`` is given); :doc:`/reference/scenario-files` documents the
    keys.

    Parameters
    ----------
    scenario : str or Path, optional
        Scenario file (TOML, :func:`~ssa_privacy.studies.scenario.load_scenario`); default
        the shipped one (:func:`~ssa_privacy.studies.scenario.default_scenario`).
    tle, stations : str or Path, optional
        Files replacing the scenario's catalogue (TLE, 3LE or OMM) and sensors (TOML
        ``[[sensors]]`` or GeoJSON), :func:`~ssa_privacy.studies.scenario.with_overrides`.
        With ``tle`` and neither ``regime`` nor ``objects``, every object of the file is
        tracked (the scenario's ``norad_ids``, if it has them, are kept).
    measurements : str or Path, optional
        Recorded measurements (CCSDS TDM) privatized and filtered instead of simulated
        ones; the objects are the TDM's, with no truth the RMSE columns are None.
    ccsds : bool
        Write the sensors' measurements and releases (TDM) and the estimates (OEM).
    regime : {"leo", "meo", "geo", "all"}, optional
        Orbital regime of the sample (shipped: leo). Giving it, or ``objects``, samples
        instead of the scenario's ``norad_ids``.
    objects : int or "all", optional
        Number of objects sampled (shipped: 50), at most the regime's size, or ``"all"``:
        every object of the regime (scenario key ``sample = "all"``). An object
        whose SGP4 fails within the window is left out and listed in ``results.json``
        (``parameters.skipped_sgp4_errors``).
    epsilons : sequence of float, optional
        Pass-level budgets (nats; shipped 10, 14, 20), each above condition (9) for a
        pass that sees all of x0.
    measurement_epsilons : sequence of float, optional
        Per-measurement levels whose pass and day epsilons are reported (shipped 7, 12, 24).
    day_epsilons : sequence of float, optional
        Per-object day budgets (nats; shipped none), each met by the three day designs
        (:mod:`ssa_privacy.privacy.pml.day_design`), whose tracking is compared in
        ``day_budgets.csv``.
    hours, dt : float, optional
        Window length (h; shipped 24) and measurement interval (s; shipped 30).
    delta : float, optional
        Failure probability in (0, 1) (shipped 0.01).
    convention : {"exact", "paper"}, optional
        PML convention (shipped exact).
    start : str, optional
        Window start, UTC in ISO 8601. Default: the newest epoch among the element sets
        within 3 days of the catalogue's median epoch
        (:func:`~ssa_privacy.orbits.catalog.window_start`).
    staleness_days : float, optional
        A sampled object whose element set's epoch is further than this (days, either
        side; shipped 14) from the window start is left out, and listed in
        ``results.json`` (``parameters.excluded_element_sets``) with the reason.
    earth_orientation : {"none", "iers", "iers-or-none"}, optional
        UT1-UTC and polar motion neglected (shipped: none, which keeps the published
        results), from the offline IERS table (an error before the run when the window
        is not within it), or from the table where it covers the window and neglected
        elsewhere (``results.json`` says which).
    batch : int
        Objects per runner task. The results do not depend on it: each object is
        integrated on its own, so its rows are the same whatever its batch (the tests
        compare ``batch=1`` with a batch of two, digit for digit).
    data : str or Path, optional
        Data folder (default: ``$SSA_PRIVACY_DATA``, then ``../shared/data``).

    Raises
    ------
    ScenarioError
        A :class:`ValueError`: a bad scenario names the file, the line and the key; a bad
        option names the option as typed on the command line (``--hours: ...``,
        :data:`OPTION_NAMES`); a key of the file that an option makes wrong names the
        key's line and the option (``(with --hours 0.001)``).
    """

    scenario: str | None = None
    tle: str | None = None
    stations: str | None = None
    measurements: str | None = None
    ccsds: bool = False
    regime: str | None = None
    objects: int | str | None = None
    epsilons: tuple | None = None
    measurement_epsilons: tuple | None = None
    day_epsilons: tuple | None = None
    hours: float | None = None
    dt: float | None = None
    delta: float | None = None
    convention: str | None = None
    start: str | None = None
    staleness_days: float | None = None
    earth_orientation: str | None = None
    batch: int = 5
    data: str | None = None

    def study(self):
        """The scenario of the run: the file (or the shipped one) with the overrides.

        Returns
        -------
        SsaScenario
            Checked; its provenance says what was overridden.

        Raises
        ------
        ScenarioError
            Naming the file and the key.
        """
        if self.scenario is None:
            spec = default_scenario()
        else:
            spec = load_scenario(self.scenario, data_folder=self.data)
        keys = {key: getattr(self, option) for option, key in SCENARIO_KEYS.items()}
        given_as = {SCENARIO_KEYS.get(name, name): label for name, label in OPTION_NAMES.items()}
        spec = with_overrides(spec, tle=self.tle, stations=self.stations, given_as=given_as, **keys)
        if self.tle is not None and spec.objects.norad_ids is None and keys["regime"] is None:
            if keys["sample"] is None:  # the user's own file: every object of it
                objects = ObjectsSpec(spec.objects.catalogue, regime="all", sample="all")
                spec = replace(spec, objects=objects, overrides=(*spec.overrides, _ALL))
        return spec


#: The override recorded when ``--tle`` replaces a sampled catalogue: all its objects.
_ALL = ("objects.sample", "every object of the --tle file")
