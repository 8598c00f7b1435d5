"""The whole study a scenario file describes (:class:`SsaScenario`).

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.studies.scenario.checks import (
    MAX_BUDGET,
    SECTIONS,
    ScenarioError,
    _array,
    _locate,
    _set,
    _string,
    _too_large,
)
from ssa_privacy.studies.scenario.files import resolve
from ssa_privacy.studies.scenario.sections import (
    EarthSpec,
    FilterSpec,
    ObjectsSpec,
    PrivacySpec,
    WindowSpec,
)
from ssa_privacy.studies.scenario.sensors import SensorSpec, _repeated_name

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


def _base_key(key):
    """The key a value was given under: ``privacy.pass_epsilons[2]`` -> ``privacy.pass_epsilons``,
    ``sensors[1].name`` -> ``sensors`` (the sensors are replaced as a whole)."""
    return "sensors" if key.startswith("sensors") else re.sub(r"\[\d+\]$", "", key)


def _placed(problem, key, *, source, text, given):
    """A ScenarioError about the dotted ``key``, placed where its value came from.

    ``given`` maps the overridden keys to how they were given (a command-line option
    such as ``"--hours"``, or None): an overridden key is named so (``--hours: ...``) or
    as ``<override>: key``, a key of overridden sensors after the option and its file
    (``--stations net.geojson: sensors[1].epsilon_offset: ...``); any other is located
    in the file (``source``, line of ``key`` in ``text``).
    """
    base = _base_key(key)
    if base in given:
        label = given[base]
        if label is None or base == "sensors":  # a sensor's key is named in its file
            return ScenarioError(problem, source=label or "<override>", key=key)
        return ScenarioError(problem, key=label)
    error = ScenarioError(problem, source=source, key=key)
    return error.within(text=text) if text else error


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
    given_as : tuple of (str, str)
        How overridden keys were given, e.g. ``("window.hours", "--hours")``: errors
        about them name that instead of ``<override>``.

    Raises
    ------
    ScenarioError
        Placed where the value came from (the file's line, or the override as given): no
        sensor, a repeated sensor name (naming ``sensors[i].name``; names equal once
        Unicode-normalized, NFC, are the same), or a budget, with a sensor's
        ``epsilon_offset``, at or below condition (9) of [LKC] for a pass (6 directions)
        or a measurement (4 rows with any radar, 2 with optical sensors only), or above
        :data:`MAX_BUDGET`.

    Notes
    -----
    Equality compares the study (the sections and the description), not where it came
    from: ``source``, ``text``, ``sha256``, ``inputs``, ``overrides`` and ``given_as``
    are provenance. [LKC] Corollary 3.4, condition (9)
    (:func:`~ssa_privacy.privacy.accounting.minimum_epsilon`).
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
    given_as: tuple = field(default=(), compare=False)

    def __post_init__(self):
        for name, cls in _SECTION_TYPES.items():
            if not isinstance(getattr(self, name), cls):
                raise ScenarioError(
                    f"must be a {cls.__name__}, got {type(getattr(self, name)).__name__}", key=name
                )
        _string(self.description, "description")
        sensors = _array(self.sensors, "sensors", empty=True)
        if not sensors:
            raise self.fail(
                "the scenario has no sensors: give [[sensors]] tables or sensors_file", "sensors"
            )
        for k, sensor in enumerate(sensors):
            if not isinstance(sensor, SensorSpec):
                raise ScenarioError(
                    f"must be a SensorSpec, got {type(sensor).__name__}", key=f"sensors[{k}]"
                )
        repeated = _repeated_name(sensors)
        if repeated is not None:
            k, first = repeated
            error = self.fail(
                f"{sensors[k].name!r} is also the name of sensors[{first}]; names must be distinct",
                f"sensors[{k}].name",
            )
            raise error.within(sensor=sensors[k].name)
        _set(self, "sensors", sensors)
        self._check_budgets()

    def fail(self, problem, key):
        """A ScenarioError about a dotted key, placed where its value came from.

        Parameters
        ----------
        problem : str
            What is wrong.
        key : str
            Dotted key, e.g. ``"window.start"`` or ``"privacy.pass_epsilons[1]"``.

        Returns
        -------
        ScenarioError
            Naming the override as it was given (``--start: ...``, or ``<override>:
            window.start: ...``) if the key was overridden, else the file and the key's
            line.
        """
        return _placed(problem, key, source=self.source, text=self.text, given=self._given())

    def name(self, key):
        """How the user wrote a dotted key: its option (``"--hours"``) if given as one, else
        the key (``"window.hours"``)."""
        return self._given().get(_base_key(key)) or key

    def written(self, key):
        """Whether the user gave a dotted key: in the file, or as an override.

        Parameters
        ----------
        key : str
            Dotted key, e.g. ``"objects.sample"``.

        Returns
        -------
        bool
            False for a key that takes its default.
        """
        return _base_key(key) in self._given() or _locate(self.text, key, exact=True) is not None

    def _given(self):
        """The overridden keys and how each was given (a label, or None)."""
        labels = dict(self.given_as)
        return {key: labels.get(key) for key, _ in self.overrides}

    def _check_budgets(self):
        """Condition (9) of [LKC] and :data:`MAX_BUDGET` for every budget, offsets included."""
        privacy = self.privacy
        delta = f"{self.name('privacy.delta')} = {privacy.delta:g}"
        floor = float(minimum_epsilon(privacy.delta, 6))
        for k, epsilon in enumerate(privacy.pass_epsilons):
            key = f"privacy.pass_epsilons[{k}]"
            for j, sensor in enumerate(self.sensors):
                budget = epsilon + sensor.epsilon_offset
                if floor < budget <= MAX_BUDGET:
                    continue
                if epsilon <= floor:
                    raise self.fail(
                        f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest "
                        f"feasible budget of a pass that sees the 6 state directions at {delta} "
                        "([LKC] condition (9))",
                        key,
                    )
                problem = (
                    f"takes the pass budget {epsilon:g} to {budget:g} nats, at or below "
                    f"{floor:.4g}, the smallest feasible budget of a pass that sees the 6 "
                    f"state directions at {delta} ([LKC] condition (9))"
                    if budget <= floor
                    else f"takes the pass budget {epsilon:g} to {budget:g} nats: "
                    + _too_large(budget)
                )
                error = self.fail(problem, f"sensors[{j}].epsilon_offset")
                raise error.within(sensor=sensor.name)
        for k, epsilon in enumerate(privacy.day_epsilons):
            if epsilon <= floor:
                raise self.fail(
                    f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest "
                    f"feasible budget of a day that sees the 6 state directions at {delta} "
                    "([LKC] condition (9))",
                    f"privacy.day_epsilons[{k}]",
                )
        rows = max(s.measurement_rows for s in self.sensors)
        floor = float(minimum_epsilon(privacy.delta, rows))
        for k, epsilon in enumerate(privacy.measurement_epsilons):
            if epsilon <= floor:
                raise self.fail(
                    f"{epsilon:g} nats is infeasible: at or below {floor:.4g}, the smallest "
                    f"feasible level of a {rows}-row measurement at {delta} ([LKC] "
                    "condition (9))",
                    f"privacy.measurement_epsilons[{k}]",
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
        if self.objects.norad_ids is None and self.objects.sample is None:
            out["objects"]["sample"] = "all"  # left out, it would read back as the default
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
