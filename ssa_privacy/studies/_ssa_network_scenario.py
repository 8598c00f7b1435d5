"""A scenario file for the ssa-network study: one object, its radars, window and levels.

ssa-network tracks one object with an unscented Kalman filter fed by radars. From a
scenario file (:mod:`ssa_privacy.studies.scenario`) it takes:

- the object: the one catalogue number of ``objects.norad_ids``, or the one object of
  ``objects.catalogue``;
- the sensors: every ``[[sensors]]`` entry, each a radar (the filter's measurement model
  is the radar's), with its ``epsilon_offset`` as the station's offset;
- the window: ``window.start`` (default: 6 h after the element set's epoch), ``hours``
  and ``step_s``;
- the levels: ``privacy.measurement_epsilons`` (the first station's epsilon per level),
  ``delta`` and ``convention``; and ``earth.orientation``.

Everything else (the Monte Carlo runs, the CW part, the filter's gap step) stays an
option of the study.
"""

from ssa_privacy.orbits.catalog import read_element_sets
from ssa_privacy.studies.scenario.checks import (
    MAX_BUDGET,
    MAX_WINDOW_HOURS,
    ScenarioError,
    _too_large,
)
from ssa_privacy.studies.scenario.reading import load_scenario
from ssa_privacy.studies.scenario.sections import check_grid
from ssa_privacy.studies.scenario.sensors import SensorSpec

__all__ = [
    "check_limits",
    "network_values",
    "stations_of",
]


def _element_set(spec, data):
    """The one element set the scenario names."""
    sets = read_element_sets(spec.catalogue_file(data))
    ids = spec.objects.norad_ids
    if ids is None:
        if len(sets) != 1:
            raise ScenarioError(
                f"ssa-network tracks one object: give its catalogue number (the catalogue "
                f"holds {len(sets)} element sets)",
                source=spec.source,
                key="objects.norad_ids",
            )
        return sets[0]
    if len(ids) != 1:
        raise ScenarioError(
            f"ssa-network tracks one object: give one catalogue number, got {len(ids)}",
            source=spec.source,
            key="objects.norad_ids",
        )
    found = [e for e in sets if e.norad_id == ids[0]]
    if not found:
        raise ScenarioError(
            f"catalogue number {ids[0]} is not in {spec.objects.catalogue}",
            source=spec.source,
            key="objects.norad_ids",
        )
    return max(found, key=lambda e: e.epoch_jd)


def network_values(path, data=None):
    """The ssa-network options a scenario file sets, and its record.

    Parameters
    ----------
    path : str or path-like
        The scenario file.
    data : str or path-like, optional
        Data folder in which relative file names are also looked up.

    Returns
    -------
    values : dict
        ``satellite`` (the catalogue number, text), ``element_set`` (name, line 1,
        line 2), ``stations`` (each sensor's keys, :meth:`SensorSpec.to_dict`),
        ``start_hours`` (h after the element set's epoch), ``hours``, ``dt``,
        ``epsilons``, ``offsets``, ``delta``, ``convention`` and ``earth_orientation``
        (the model used, ``"iers"`` or ``"none"``: ``"iers-or-none"`` resolved over the
        element set's epoch to the window's end).
    record : dict
        :meth:`~ssa_privacy.studies.scenario.SsaScenario.as_record`.

    Raises
    ------
    ScenarioError
        Naming the file and the key: a bad scenario, an optical sensor, not exactly one
        object, a window start before the element set's epoch, or ``earth.orientation =
        "iers"`` for a window (from the epoch) the offline IERS table does not cover.
    """
    spec = load_scenario(path, data_folder=data)
    for k, sensor in enumerate(spec.sensors):
        if sensor.kind != "radar":
            raise ScenarioError(
                "ssa-network's filter models radars only; this sensor is optical (use "
                "ssa-catalog for mixed networks)",
                source=spec.source,
                key=f"sensors[{k}].kind",
            )
    element_set = _element_set(spec, data)
    start_hours = 6.0
    if spec.start_jd is not None:
        start_hours = (spec.start_jd - element_set.epoch_jd) * 24.0
        if start_hours < 0:
            raise spec.fail(
                "must not precede the element set's epoch (ssa-network propagates forward from it)",
                "window.start",
            )
        if start_hours > MAX_WINDOW_HOURS:
            raise spec.fail(
                f"is {start_hours / 24:.1f} days after the element set's epoch: ssa-network "
                f"propagates forward from it, at most {MAX_WINDOW_HOURS / 24:g} days",
                "window.start",
            )
    try:  # the Earth turns from the element set's epoch (t = 0) to the window's end
        span_days = (start_hours + spec.window.hours) / 24.0
        orientation, _ = spec.earth.model(element_set.epoch_jd, max(1.0, span_days))
    except ScenarioError as error:
        raise spec.fail(error.problem, "earth.orientation") from None
    values = {
        "satellite": str(element_set.norad_id),
        "element_set": [element_set.name, element_set.line1, element_set.line2],
        "stations": [s.to_dict() for s in spec.sensors],
        "start_hours": start_hours,
        "hours": spec.window.hours,
        "dt": spec.window.step_s,
        "epsilons": list(spec.privacy.measurement_epsilons),
        "offsets": list(spec.epsilon_offsets),
        "delta": spec.privacy.delta,
        "convention": spec.privacy.convention,
        "earth_orientation": orientation,
    }
    return values, spec.as_record()


def check_limits(hours, dt, start_hours, epsilons, offsets):
    """Check the window and the levels of an ssa-network run against what it can hold.

    Parameters
    ----------
    hours, dt : float
        Window length (h) and measurement interval (s): :func:`check_grid`.
    start_hours : float
        Window start after the element set's epoch (h): the study propagates from the
        epoch, at most :data:`MAX_WINDOW_HOURS`.
    epsilons, offsets : sequence of float
        Levels (nats) and per-station offsets: each level plus each offset at most
        :data:`MAX_BUDGET`.

    Raises
    ------
    ValueError
        Naming the option (``hours``, ``dt``, ``start_hours``, ``epsilons``) with the
        limit and the reason for it.
    """
    try:
        check_grid(hours, dt)
    except ScenarioError as error:
        name = {"hours": "hours", "step_s": "dt"}[error.key]
        raise ValueError(f"{name}: {error.problem}") from None
    if start_hours > MAX_WINDOW_HOURS:
        raise ValueError(
            f"start_hours: must be at most {MAX_WINDOW_HOURS:g} h after the element set's "
            f"epoch (the study propagates from it), got {start_hours:g}"
        )
    largest = max(epsilons) + max(offsets, default=0.0)
    if largest > MAX_BUDGET:
        raise ValueError(
            f"epsilons: the largest level plus the largest offset: {_too_large(largest)}"
        )


def stations_of(values):
    """The radars of :func:`network_values`' ``stations`` entry, built.

    Parameters
    ----------
    values : list of dict
        Each sensor's scenario keys.

    Returns
    -------
    tuple of GroundStation
    """
    return tuple(SensorSpec(**sensor).build() for sensor in values)
