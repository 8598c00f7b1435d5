"""Overriding a scenario's keys and files, and checking its window and objects against a catalogue.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import dataclasses
from pathlib import Path

from ssa_privacy.orbits.catalog import regime, utc_text
from ssa_privacy.studies.scenario.checks import ScenarioError, _array, _number, _suggest
from ssa_privacy.studies.scenario.files import file_record
from ssa_privacy.studies.scenario.reading import read_stations
from ssa_privacy.studies.scenario.sections import _DEFAULT
from ssa_privacy.studies.scenario.ssa_scenario import (
    _SECTION_TYPES,
    SsaScenario,
    _base_key,
    _placed,
    _section_keys,
)

__all__ = [
    "check_objects",
    "check_window",
    "with_overrides",
]


# -- overrides ----------------------------------------------------------------------------------


def _override_key(key):
    """(section, field) of an override key, bare (``hours``) or dotted (``window.hours``)."""
    fields = {f: s for s, cls in _SECTION_TYPES.items() for f in _section_keys(cls)}
    if "." in key:
        section, _, name = key.partition(".")
        if section in _SECTION_TYPES and name in _section_keys(_SECTION_TYPES[section]):
            return section, name
    elif key in fields:
        return fields[key], key
    valid = sorted(list(fields) + [f"{s}.{f}" for f, s in fields.items()])
    raise ScenarioError(f"unknown key{_suggest(key, valid)}", source="<override>", key=key)


def with_overrides(scenario, tle=None, stations=None, *, given_as=None, **keys):
    """The scenario with its catalogue, sensors or single keys replaced.

    Parameters
    ----------
    scenario : SsaScenario
        The scenario to change.
    tle : str or path-like, optional
        Element-set file replacing ``objects.catalogue`` (a command-line path: relative to
        the current folder). Recorded in ``inputs`` with its SHA-256.
    stations : str or path-like, optional
        Stations file replacing the sensors (:func:`read_stations`); recorded likewise.
    given_as : dict, optional
        How the user gave each override, by the name used here (``"hours"``,
        ``"window.hours"``, ``"tle"``, ``"stations"``): e.g. ``{"hours": "--hours"}``
        for command-line options. Errors about an override name it so (``--hours: ...``),
        and errors about a key of the file that an override makes wrong add it (``(with
        --hours 0.001)``); without a label, ``<override>`` and the dotted key.
    **keys
        Section keys, bare (``hours=12``) or dotted (``**{"window.hours": 12}``), with
        their new values in file units; None leaves a key as it is. Giving ``norad_ids``
        clears ``regime`` and ``sample``, and giving ``regime`` or ``sample`` clears
        ``norad_ids`` (the other of the two then takes its default if the scenario named
        its objects by number).

    Returns
    -------
    SsaScenario
        The new scenario, every section checked again; ``source``, ``text`` and
        ``sha256`` are the original file's, ``inputs``, ``overrides`` and ``given_as`` say
        what changed and how it was given.

    Raises
    ------
    ScenarioError
        Placed as ``given_as`` says: an unknown key (with the nearest valid one), a bad
        value, a missing file or a folder, a key of the file made wrong by an override,
        or any error of the files read.
    TypeError
        If ``scenario`` is not an SsaScenario.

    Notes
    -----
    Provenance as :meth:`SsaScenario.as_record`.
    """
    if not isinstance(scenario, SsaScenario):
        raise TypeError(f"scenario must be an SsaScenario, got {type(scenario).__name__}")
    labels = dict(given_as or {})
    changes, recorded, given = _key_changes(scenario, keys, labels)
    inputs = list(scenario.inputs)
    sensors = scenario.sensors
    if tle is not None:
        path = _override_file(tle, labels.get("tle"), "tle")
        changes.setdefault("objects", {})["catalogue"] = str(path.resolve())
        inputs.append({"role": "objects.catalogue (override)", **file_record(path)})
        recorded.append(("objects.catalogue", str(path.resolve())))
        given.append(("objects.catalogue", labels.get("tle")))
    if stations is not None:
        path = _override_file(stations, labels.get("stations"), "stations")
        sensors = read_stations(path)
        inputs.append({"role": "sensors (override)", **file_record(path)})
        recorded.append(("sensors", str(path.resolve())))
        label = labels.get("stations")
        given.append(("sensors", None if label is None else f"{label} {stations}"))
    placed = scenario._given() | {key: None for key, _ in recorded} | dict(given)
    sections = {}
    for section, values in changes.items():
        try:
            sections[section] = dataclasses.replace(getattr(scenario, section), **values)
        except ScenarioError as error:
            key = section if error.key is None else f"{section}.{error.key}"
            context = _context(key, section, recorded, placed)
            raise _placed(
                error.problem + context,
                key,
                source=scenario.source,
                text=scenario.text,
                given=placed,
            ).within(sensor=error.sensor) from None
    return dataclasses.replace(
        scenario,
        **sections,
        sensors=sensors,
        inputs=tuple(inputs),
        overrides=scenario.overrides + tuple(recorded),
        given_as=scenario.given_as + tuple((k, v) for k, v in given if v is not None),
    )


def _context(key, section, recorded, placed):
    """`` (with --hours 0.001)``: the overrides of a section that made a key of the file
    wrong; empty for an error about an override itself."""
    if _base_key(key) in placed:
        return ""
    shown = [
        f"{placed[k]} {_shown(v)}" if placed.get(k) else f"the override {k} = {_shown(v)}"
        for k, v in recorded
        if k.startswith(f"{section}.")
    ]
    return f" (with {', '.join(shown)})" if shown else ""


def _shown(value):
    """An override's value as a user writes it: ``0.001``, ``10,14``, ``leo``."""
    if isinstance(value, list | tuple):
        return ",".join(_shown(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _key_changes(scenario, keys, labels):
    """Overridden keys by section, the (dotted key, value) record and the (dotted key,
    label) of each; None keeps a key.

    Catalogue numbers and sampling exclude each other: giving one clears the other."""
    changes, recorded, given = {}, [], []
    for key, value in keys.items():
        if value is None:
            continue
        section, name = _override_key(key)
        changes.setdefault(section, {})[name] = value
        recorded.append((f"{section}.{name}", value))
        given.append((f"{section}.{name}", labels.get(key)))
    objects = changes.get("objects", {})
    if "norad_ids" in objects:
        objects.setdefault("regime", None)
        objects.setdefault("sample", None)
    elif "regime" in objects or "sample" in objects:
        objects["norad_ids"] = None
        if scenario.objects.norad_ids is not None:  # the other takes its default
            objects.setdefault("regime", _DEFAULT)
            objects.setdefault("sample", _DEFAULT)
    return changes, recorded, given


def _override_file(name, label, key):
    """The path of an override file, or a ScenarioError naming the option (or ``key``)."""
    path = Path(name).expanduser()
    if not path.is_file():
        problem = "is a folder, not a file" if path.is_dir() else "file not found"
        where = {"key": label} if label else {"source": "<override>", "key": key}
        raise ScenarioError(f"{problem}: {str(path)!r}", **where)
    return path


def check_window(scenario, catalogue_epochs_jd, start_jd):
    """Check the window against the catalogue's epochs and the Earth orientation table.

    Parameters
    ----------
    scenario : SsaScenario
        Gives ``window.staleness_days`` and ``window.hours``, ``earth.orientation`` and
        the file (or the overrides) for the message.
    catalogue_epochs_jd : array_like of float, shape (n,)
        Epochs (Julian dates, UTC) of the catalogue's element sets, n >= 1.
    start_jd : float
        Window start (Julian date, UTC), given or by the catalogue rule.

    Returns
    -------
    int
        How many element sets have their epoch within ``staleness_days`` of the start.

    Raises
    ------
    ScenarioError
        Placed where the value came from (:meth:`SsaScenario.fail`: the file's line, or
        the option as given): naming ``window.start`` when the start is further than
        ``staleness_days`` from every epoch (the message says whether it lies before the
        oldest epoch, after the newest, or in a gap between them, with the distance to
        the nearest epoch and the catalogue's span); naming ``earth.orientation`` when
        ``"iers"`` is asked for a window the offline IERS table does not cover
        (:meth:`EarthSpec.model`, which gives the table's first and last date); also
        naming ``catalogue_epochs_jd`` or ``start_jd`` if they are not finite numbers or
        there is no epoch.
    TypeError
        If ``scenario`` is not an SsaScenario or the epochs are not iterable.

    Notes
    -----
    The staleness rule of :func:`~ssa_privacy.orbits.catalog.stale_element_sets`: an element
    set is usable when ``|epoch - start| <= staleness_days``.
    """
    if not isinstance(scenario, SsaScenario):
        raise TypeError(f"scenario must be an SsaScenario, got {type(scenario).__name__}")
    epochs = [
        _number(e, "catalogue_epochs_jd")
        for e in _array(list(catalogue_epochs_jd), "catalogue_epochs_jd")
    ]
    start = _number(start_jd, "start_jd")
    limit = scenario.window.staleness_days
    usable = sum(abs(e - start) <= limit for e in epochs)
    if not usable:
        raise scenario.fail(_stale_start(scenario, epochs, start), "window.start")
    try:
        scenario.earth.model(start, scenario.window.hours / 24.0)
    except ScenarioError as error:
        raise scenario.fail(error.problem, "earth.orientation") from None
    return usable


def _stale_start(scenario, epochs, start):
    """Why no element set is usable at the window start: where the start lies."""
    first, last = min(epochs), max(epochs)
    nearest = min(epochs, key=lambda e: abs(e - start))
    if start > last:
        where = f"is {start - last:.1f} days after the newest element set epoch"
    elif start < first:
        where = f"is {first - start:.1f} days before the oldest element set epoch"
    else:
        side = "after" if nearest > start else "before"
        where = (
            f"falls in a gap of the catalogue's epochs: the nearest, {utc_text(nearest)}, is "
            f"{abs(nearest - start):.1f} days {side} it"
        )
    given = "" if scenario.window.start is not None else " (the catalogue rule's start)"
    limit = f"{scenario.name('window.staleness_days')} = {scenario.window.staleness_days:g}"
    return (
        f"the window start {utc_text(start)}{given} {where} (the catalogue spans "
        f"{utc_text(first)} to {utc_text(last)}); no element set is within {limit} days of it"
    )


def check_objects(scenario, catalogue):
    """Check that the catalogue holds the scenario's objects.

    Parameters
    ----------
    scenario : SsaScenario
        Gives ``objects`` and the file (or the overrides) for the message.
    catalogue : sequence of ssa_privacy.orbits.tle.ElementSet
        The element sets of ``objects.catalogue`` as read.

    Returns
    -------
    int or None
        How many objects the study tracks before the staleness screen (the sample's size
        or the number of catalogue numbers), None for every object of the regime.

    Raises
    ------
    ScenarioError
        Placed where the value came from (:meth:`SsaScenario.fail`): naming
        ``objects.norad_ids[i]`` for a catalogue number the catalogue does not hold, or
        ``objects.sample`` for a sample larger than the regime's objects in the catalogue
        (each catalogue number counted once).

    Notes
    -----
    Regimes and sampling: :func:`~ssa_privacy.orbits.catalog.regime`,
    :func:`~ssa_privacy.orbits.catalog.select_objects`.
    """
    objects = scenario.objects
    numbers = {e.norad_id for e in catalogue}
    where = f"the catalogue {Path(objects.catalogue).name}"
    if objects.norad_ids is not None:
        for k, number in enumerate(objects.norad_ids):
            if number not in numbers:
                raise scenario.fail(
                    f"catalogue number {number} is not in {where}", f"objects.norad_ids[{k}]"
                )
        return len(objects.norad_ids)
    if objects.sample is None:
        return None
    members = {e.norad_id for e in catalogue if objects.regime in ("all", regime(e))}
    if objects.sample > len(members):
        which = "" if objects.regime == "all" else f" {objects.regime.upper()}"
        default = "" if scenario.written("objects.sample") else " (the default)"
        raise scenario.fail(
            f"{objects.sample} objects{default} are more than the {len(members)}{which} "
            f'objects of {where}: give a smaller sample, or "all"',
            "objects.sample",
        )
    return objects.sample
