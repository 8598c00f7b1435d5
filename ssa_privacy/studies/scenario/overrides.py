"""Overriding a scenario's keys and files, and checking its window against a catalogue.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import dataclasses
from pathlib import Path

from ssa_privacy.orbits.catalog import utc_text
from ssa_privacy.studies.scenario.checks import ScenarioError, _array, _number, _suggest
from ssa_privacy.studies.scenario.files import file_record
from ssa_privacy.studies.scenario.reading import read_stations
from ssa_privacy.studies.scenario.ssa_scenario import _SECTION_TYPES, SsaScenario, _section_keys

__all__ = [
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


def with_overrides(scenario, tle=None, stations=None, **keys):
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
    **keys
        Section keys, bare (``hours=12``) or dotted (``**{"window.hours": 12}``), with
        their new values in file units; None leaves a key as it is. Giving ``norad_ids``
        clears ``regime`` and ``sample``, and giving ``regime`` or ``sample`` clears
        ``norad_ids``.

    Returns
    -------
    SsaScenario
        The new scenario, every section checked again; ``source``, ``text`` and
        ``sha256`` are the original file's, ``inputs`` and ``overrides`` say what changed.

    Raises
    ------
    ScenarioError
        Naming ``<override>`` and the key: an unknown key (with the nearest valid one), a
        bad value, a missing file, or any error of the files read.
    TypeError
        If ``scenario`` is not an SsaScenario.

    Notes
    -----
    Provenance as :meth:`SsaScenario.as_record`.
    """
    if not isinstance(scenario, SsaScenario):
        raise TypeError(f"scenario must be an SsaScenario, got {type(scenario).__name__}")
    changes, recorded = _key_changes(keys)
    inputs = list(scenario.inputs)
    if tle is not None:
        path = _override_file(tle, "tle")
        changes.setdefault("objects", {})["catalogue"] = str(path.resolve())
        inputs.append({"role": "objects.catalogue (override)", **file_record(path)})
        recorded.append(("objects.catalogue", str(path.resolve())))
    sections = {}
    for section, values in changes.items():
        try:
            sections[section] = dataclasses.replace(getattr(scenario, section), **values)
        except ScenarioError as error:
            raise error.within(section, source="<override>") from None
    sensors = scenario.sensors
    if stations is not None:
        path = _override_file(stations, "stations")
        sensors = read_stations(path)
        inputs.append({"role": "sensors (override)", **file_record(path)})
        recorded.append(("sensors", str(path.resolve())))
    try:
        return dataclasses.replace(
            scenario,
            **sections,
            sensors=sensors,
            inputs=tuple(inputs),
            overrides=scenario.overrides + tuple(recorded),
        )
    except ScenarioError as error:
        raise error.within(source="<override>") from None


def _key_changes(keys):
    """Overridden keys by section, and the (dotted key, value) record; None keeps a key.

    Catalogue numbers and sampling exclude each other: giving one clears the other."""
    changes, recorded = {}, []
    for key, value in keys.items():
        if value is None:
            continue
        section, name = _override_key(key)
        changes.setdefault(section, {})[name] = value
        recorded.append((f"{section}.{name}", value))
    objects = changes.get("objects", {})
    if "norad_ids" in objects:
        objects.setdefault("regime", None)
        objects.setdefault("sample", None)
    elif "regime" in objects or "sample" in objects:
        objects["norad_ids"] = None
    return changes, recorded


def _override_file(name, key):
    """The path of an override file, or a ScenarioError naming ``key``."""
    path = Path(name).expanduser()
    if not path.is_file():
        raise ScenarioError(f"file not found: {str(path)!r}", source="<override>", key=key)
    return path


def check_window(scenario, catalogue_epochs_jd, start_jd):
    """Check that some element set is within ``staleness_days`` of the window start.

    Parameters
    ----------
    scenario : SsaScenario
        Gives ``window.staleness_days`` and the file for the message.
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
        Naming ``window.start``: the start is further than ``staleness_days`` from every
        epoch (the message gives the distance and the catalogue's span); also naming
        ``catalogue_epochs_jd`` or ``start_jd`` if they are not finite numbers or there
        is no epoch.
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
    if usable:
        return usable
    first, last = min(epochs), max(epochs)
    side = (
        f"{start - last:.1f} days after the newest"
        if start > last
        else f"{first - start:.1f} days before the oldest"
    )
    given = "" if scenario.window.start is not None else " (the catalogue rule's start)"
    error = ScenarioError(
        f"the window start {utc_text(start)}{given} is {side} element set epoch (the catalogue "
        f"spans {utc_text(first)} to {utc_text(last)}); no element set is within "
        f"staleness_days = {limit:g} days of it",
        source=scenario.source,
        key="window.start",
    )
    raise error.within(text=scenario.text) if scenario.text else error
