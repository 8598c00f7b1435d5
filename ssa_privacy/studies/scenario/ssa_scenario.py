"""The whole study a scenario file describes (:class:`SsaScenario`).

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.studies.scenario.checks import SECTIONS, ScenarioError, _array, _set, _string
from ssa_privacy.studies.scenario.files import resolve
from ssa_privacy.studies.scenario.sections import (
    EarthSpec,
    FilterSpec,
    ObjectsSpec,
    PrivacySpec,
    WindowSpec,
)
from ssa_privacy.studies.scenario.sensors import SensorSpec

__all__ = [
    "SsaScenario",
]


_SECTION_TYPES = dict(
    zip(SECTIONS, (WindowSpec, ObjectsSpec, EarthSpec, PrivacySpec, FilterSpec), strict=True)
)
#: Top-level keys of a scenario file (tables and plain keys).
_TOP_KEYS = ("description", "sensors_file", *_SECTION_TYPES, "sensors")


def _section_keys(cls):
    return tuple(f.name for f in dataclasses.fields(cls))


@dataclass(frozen=True)
class SsaScenario:
    """A whole SSA study: window, objects, Earth, sensors, privacy and filter.

    Parameters
    ----------
    window : WindowSpec
        ``[window]``: start, length and step of the window.
    objects : ObjectsSpec
        ``[objects]``: catalogue file and which of its objects.
    earth : EarthSpec
        ``[earth]``: Earth orientation model.
    sensors : sequence of SensorSpec
        ``[[sensors]]``: at least one; names distinct.
    privacy : PrivacySpec
        ``[privacy]``: budgets, delta, convention, designers.
    filter : FilterSpec
        ``[filter]``: process noise of the filter.
    description : str
        Free text (top-level key ``description``); default empty.
    source : str
        Where it came from: the file's path, ``"<default>"`` or ``"<python>"``.
    text : str
        The file's content as read (empty when made in Python).
    sha256 : str
        SHA-256 (hex) of the file's bytes (empty when made in Python).
    inputs : tuple of dict
        Files pulled in (the sensors file, override files):
        :func:`file_record` plus ``role``.
    overrides : tuple of (str, object)
        Keys replaced by :func:`with_overrides`, dotted, with their new values.

    Raises
    ------
    ScenarioError
        On no sensor, a repeated sensor name (naming ``sensors[i].name``), or a budget
        at or below condition (9) of [LKC] for a pass (6 directions) or a measurement
        (4 rows with any radar, 2 with optical sensors only), including a sensor's
        ``epsilon_offset``.

    Notes
    -----
    Equality compares the study (the sections and the description), not where it came
    from: ``source``, ``text``, ``sha256``, ``inputs`` and ``overrides`` are provenance.
    [LKC] Corollary 3.4, condition (9) (:func:`~ssa_privacy.privacy.accounting.minimum_epsilon`).
    """

    window: WindowSpec = field(default_factory=WindowSpec)
    objects: ObjectsSpec = field(default_factory=ObjectsSpec)
    earth: EarthSpec = field(default_factory=EarthSpec)
    sensors: tuple = ()
    privacy: PrivacySpec = field(default_factory=PrivacySpec)
    filter: FilterSpec = field(default_factory=FilterSpec)
    description: str = ""
    source: str = field(default="<python>", compare=False)
    text: str = field(default="", compare=False, repr=False)
    sha256: str = field(default="", compare=False)
    inputs: tuple = field(default=(), compare=False)
    overrides: tuple = field(default=(), compare=False)

    def __post_init__(self):
        for name, cls in _SECTION_TYPES.items():
            if not isinstance(getattr(self, name), cls):
                raise ScenarioError(
                    f"must be a {cls.__name__}, got {type(getattr(self, name)).__name__}", key=name
                )
        _string(self.description, "description")
        sensors = _array(self.sensors, "sensors", empty=True)
        if not sensors:
            raise ScenarioError(
                "the scenario has no sensors: give [[sensors]] tables or sensors_file",
                key="sensors",
            )
        for k, sensor in enumerate(sensors):
            if not isinstance(sensor, SensorSpec):
                raise ScenarioError(
                    f"must be a SensorSpec, got {type(sensor).__name__}", key=f"sensors[{k}]"
                )
            first = next(j for j, s in enumerate(sensors) if s.name == sensor.name)
            if first != k:
                raise ScenarioError(
                    f"{sensor.name!r} is also the name of sensors[{first}]; names must be distinct",
                    key=f"sensors[{k}].name",
                    sensor=sensor.name,
                )
        _set(self, "sensors", sensors)
        self._check_budgets()

    def _check_budgets(self):
        """Condition (9) of [LKC] for every pass budget (with offsets) and measurement level."""
        privacy = self.privacy
        floor = float(minimum_epsilon(privacy.delta, 6))
        for k, epsilon in enumerate(privacy.pass_epsilons):
            for j, sensor in enumerate(self.sensors):
                budget = epsilon + sensor.epsilon_offset
                if budget > floor:
                    continue
                if sensor.epsilon_offset != 0 and epsilon > floor:
                    raise ScenarioError(
                        f"takes the pass budget {epsilon:g} to {budget:g} nats, at or below "
                        f"{floor:.4g}, the smallest feasible budget of a pass that sees the 6 "
                        f"state directions at delta = {privacy.delta:g} ([LKC] condition (9))",
                        key=f"sensors[{j}].epsilon_offset",
                        sensor=sensor.name,
                    )
                raise ScenarioError(
                    f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest feasible budget "
                    f"of a pass that sees the 6 state directions at delta = {privacy.delta:g} "
                    "([LKC] condition (9))",
                    key=f"privacy.pass_epsilons[{k}]",
                )
        for k, epsilon in enumerate(privacy.day_epsilons):
            if epsilon <= floor:
                raise ScenarioError(
                    f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest "
                    f"feasible budget of a day that sees the 6 state directions at delta = "
                    f"{privacy.delta:g} ([LKC] condition (9))",
                    key=f"privacy.day_epsilons[{k}]",
                )
        rows = max(s.measurement_rows for s in self.sensors)
        floor = float(minimum_epsilon(privacy.delta, rows))
        for k, epsilon in enumerate(privacy.measurement_epsilons):
            if epsilon <= floor:
                raise ScenarioError(
                    f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest feasible level "
                    f"of a {rows}-row measurement at delta = {privacy.delta:g} ([LKC] "
                    "condition (9))",
                    key=f"privacy.measurement_epsilons[{k}]",
                )

    @property
    def folder(self):
        """Folder of the scenario file (Path), or None for the default and Python-made ones."""
        if self.source.startswith("<"):
            return None
        return Path(self.source).parent

    @property
    def start_jd(self):
        """Julian date (UTC) of ``window.start``, or None for the catalogue rule."""
        return self.window.start_jd

    @property
    def epsilon_offsets(self):
        """Each sensor's ``epsilon_offset`` (nats), in sensor order (tuple of float)."""
        return tuple(s.epsilon_offset for s in self.sensors)

    def build_sensors(self):
        """Every sensor as a station object (:meth:`SensorSpec.build`), in order.

        Returns
        -------
        tuple of GroundStation or OpticalStation
            Internal units (noise in rad and km).

        Raises
        ------
        ScenarioError
            Naming ``sensors[i]`` if a station class refuses a sensor.
        """
        built = []
        for k, sensor in enumerate(self.sensors):
            try:
                built.append(sensor.build())
            except (ValueError, TypeError) as error:
                raise ScenarioError(
                    str(error), source=self.source, key=f"sensors[{k}]", sensor=sensor.name
                ) from None
        return tuple(built)

    def catalogue_file(self, data_folder=None):
        """The element-set file of ``objects.catalogue`` (:func:`resolve`).

        Parameters
        ----------
        data_folder : str or path-like, optional
            Data folder (``--data``), else the search of
            :func:`ssa_privacy.engine.data.data_dir`.

        Returns
        -------
        Path
            An existing file.

        Raises
        ------
        ScenarioError
            Naming ``objects.catalogue`` and every place tried, if the file is not found.
        """
        return resolve(
            self.objects.catalogue,
            data_folder,
            base=self.folder,
            source=self.source,
            key="objects.catalogue",
            text=self.text,
        )

    def to_dict(self):
        """The study's values by section (file units), JSON- and TOML-able.

        Returns
        -------
        dict
            ``description`` (when not empty), ``window``, ``objects``, ``earth``,
            ``privacy``, ``filter`` (dicts, None values left out) and ``sensors`` (a list
            of :meth:`SensorSpec.to_dict`).
        """
        out = {"description": self.description} if self.description else {}
        for name in _SECTION_TYPES:
            section = getattr(self, name)
            out[name] = {
                f.name: list(v) if isinstance(v, tuple) else v
                for f in dataclasses.fields(section)
                if (v := getattr(section, f.name)) is not None
            }
        out["sensors"] = [s.to_dict() for s in self.sensors]
        return out

    def as_record(self):
        """The scenario's record for ``results.json``.

        Returns
        -------
        dict
            ``source`` (path or ``"<default>"``), ``sha256`` and ``text`` of the file,
            ``values`` (:meth:`to_dict`: every value used, defaults included), ``inputs``
            (files pulled in, with their SHA-256) and ``overrides`` (dotted key -> value).
        """
        return {
            "source": self.source,
            "sha256": self.sha256,
            "text": self.text,
            "values": self.to_dict(),
            "inputs": [dict(i) for i in self.inputs],
            "overrides": {k: list(v) if isinstance(v, tuple) else v for k, v in self.overrides},
        }
