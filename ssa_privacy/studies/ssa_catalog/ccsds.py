"""CCSDS messages of the ssa-catalog study: recorded measurements in, TDM and OEM out.

In: ``--measurements FILE``, a Tracking Data Message of sensor measurements
(:func:`~ssa_privacy.sensors.tdm_passes.read_measurements`): each segment names a sensor
of the scenario and an object by its catalogue number, its time tags on the scenario's
time grid, inside the window. The objects tracked are the message's, in the order they
first appear; a station measures at the recorded epochs only. A segment marked as a
privatized release (a run's ``releases_*.tdm``) is refused: releases are not
measurements.

Out (``--ccsds``), under ``ccsds/`` of the output folder:

- ``measurements.tdm``: every pass of every sensor and object as measured (one segment
  per pass);
- ``releases_<level>_<designer>.tdm``: the same passes as released at each privatized
  level, each segment marked as a release (:data:`~ssa_privacy.sensors.tdm.RELEASE_COMMENT`;
  another ``COMMENT`` line names the budget, the designer and delta). A release may hold
  an elevation of -196.71 deg or a negative range: the TDM carries the values as they
  are, an angle outside the standard's [-180, 360) deg modulo 360 deg with its whole
  turns in a ``COMMENT`` line (:mod:`ssa_privacy.sensors.tdm`), so that every value
  reads back as released;
- ``estimates/<norad_id>_<level>_<designer>.oem``: each filter's estimates of each object
  every ``EVALUATION_STEP`` seconds over the window, with their covariances (TEME, km and
  km/s).

Nothing is lost after the computation: :func:`check_writable`, called before the run,
renders every sensor's and object's messages through the writers and checks the file
names; a value that no message of its kind may hold (a simulated measurement whose sensor
noise took the elevation of a pass near the zenith above 90 deg, a non-finite estimate)
leaves that pass or file out, the rest is written, and :data:`NOT_WRITTEN` lists what
was left out and why.

A run given the ``measurements.tdm`` of an earlier run and the same seed releases the
same values (each angle read back within one unit in the last place) and so tracks alike.
"""

from contextlib import contextmanager

import numpy as np

from ssa_privacy.orbits.catalog import utc_text
from ssa_privacy.orbits.oem import Ephemeris, oem_text
from ssa_privacy.sensors.tdm import tdm_text
from ssa_privacy.sensors.tdm_passes import check_tdm_writable, pass_segments
from ssa_privacy.studies.ssa_catalog.rows import pass_levels

__all__ = [
    "NOT_WRITTEN",
    "check_writable",
    "write_messages",
]

#: Characters no output file name may hold (path separators; Windows' reserved ones).
_NOT_IN_FILE_NAMES = set('/\\<>:"|?*')


#: Where :func:`write_messages` lists what it could not write (under the output folder).
NOT_WRITTEN = "ccsds/not_written.txt"


def _tracking(scenario, norad, tracks, unwritten, file, comments=(), release=False):
    """TrackingData segments of one object's passes (``(station, indices, values)`` each);
    a pass a TDM cannot hold is left out and listed in ``unwritten``, naming ``file``."""
    where = (scenario.stations, str(norad), scenario.start_jd, scenario.times)
    segments, left_out = pass_segments(*where, tracks, comments, release)
    for station, indices, error in left_out:
        start = utc_text(scenario.start_jd + scenario.times[indices[0]] / 86400.0)
        name = scenario.stations[station].name
        unwritten.append(f"{file}: the pass of object {norad} over {name!r} from {start}: {error}")
    return segments


def _release_note(scenario, label, designer):
    """The comment of a release segment: its budget, designer and delta."""
    return (
        f"privatized release: pass budget {label} nats, designer {designer}, "
        f"delta {scenario.delta:g}"
    )


def _estimate_note(label, designer):
    """The comment of an estimate's OEM."""
    return f"fusion centre's EKF estimate, level {label}, designer {designer}"


def _releases_file(label, designer):
    return f"ccsds/{_file_name(f'releases_{label}_{designer}.tdm')}"


def _estimate_file(norad, label, designer):
    return f"ccsds/estimates/{_file_name(f'{norad}_{label}_{designer}.oem')}"


def _object_name(element_set):
    """OBJECT_NAME of an object's OEMs: its name, or its catalogue number without one."""
    return element_set.name.strip() or str(element_set.norad_id)


def write_messages(output, scenario, chosen, objects):
    """Write the run's TDMs and OEMs under ``ccsds/`` of the output folder (module docstring).

    Parameters
    ----------
    output : StudyOutput
        The run's output.
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        The run's grid and sensors.
    chosen : list of ElementSet
        The objects tracked (their names go into the OEMs).
    objects : list of dict
        What the messages hold, per object in task order (the items of the tasks'
        ``ccsds`` lists, :func:`~ssa_privacy.studies.ssa_catalog.task.catalog_task`).

    Returns
    -------
    list of str
        What could not be written, one line each (the file, the pass or estimate and
        why), also written to :data:`NOT_WRITTEN`; empty when everything was.

    Notes
    -----
    :func:`check_writable`, called before the run, has checked every name the messages
    hold, and a release's angles outside the TDM's range are written through their whole
    turns (:mod:`ssa_privacy.sensors.tdm`): what is left out is a value no message of its
    kind may hold, e.g. a simulated measurement whose sensor noise took the elevation of
    a pass near the zenith above 90 deg, or a non-finite estimate. The rest is written.
    """
    unwritten = []
    _write_measurements(output, scenario, objects, unwritten)
    _write_releases(output, scenario, objects, unwritten)
    _write_estimates(output, scenario, chosen, objects, unwritten)
    if unwritten:
        output.write_text(NOT_WRITTEN, "".join(f"{line}\n" for line in unwritten))
    return unwritten


def _write_measurements(output, scenario, objects, unwritten):
    """The sensors' measurements of every object, one TDM."""
    file = "ccsds/measurements.tdm"
    measured = [
        segment
        for item in objects
        for segment in _tracking(scenario, item["norad_id"], item["measured"], unwritten, file)
    ]
    if measured:
        output.write_text(file, tdm_text(measured))


def _write_releases(output, scenario, objects, unwritten):
    """The releases of every object, one TDM per level and designer."""
    releases = {}
    for item in objects:
        for label, designer, tracks in item["releases"]:
            file = _releases_file(label, designer)
            note = (_release_note(scenario, label, designer),)
            releases.setdefault(file, []).extend(
                _tracking(scenario, item["norad_id"], tracks, unwritten, file, note, True)
            )
    for file, segments in releases.items():
        if segments:
            output.write_text(file, tdm_text(segments))


def _write_estimates(output, scenario, chosen, objects, unwritten):
    """Each object's estimates and covariances per filter, one OEM each."""
    names = {e.norad_id: _object_name(e) for e in chosen}
    times = scenario.times[scenario.ephemeris]
    for item in objects:
        norad = item["norad_id"]
        for f, (label, designer) in enumerate(item["filters"]):
            file = _estimate_file(norad, label, designer)
            try:
                ephemeris = Ephemeris(
                    names[norad],
                    str(norad),
                    "TEME",
                    scenario.start_jd,
                    times,
                    item["estimates"][f],
                    item["covariances"][f],
                    comments=(_estimate_note(label, designer),),
                )
            except ValueError as error:
                unwritten.append(f"{file}: the estimate of object {norad}: {error}")
                continue
            output.write_text(file, oem_text(ephemeris))


def _levels(scenario):
    """Every (level label, designer) whose filters the run writes: no privacy and the pass
    budgets (:func:`~ssa_privacy.studies.ssa_catalog.rows.pass_levels`). The day
    budgets' designs are not written as messages."""
    return [tuple(level.ident.values()) for level in pass_levels(scenario)]


def _file_name(name):
    """``name`` if it is a portable file name, else ValueError."""
    bad = sorted(set(name) & _NOT_IN_FILE_NAMES) or [c for c in name if not c.isprintable()]
    if bad or len(name.encode("utf-8")) > 255 or name.strip(". ") != name:
        raise ValueError(
            f"output file {name!r} is not a portable file name (at most 255 bytes, no "
            'control character, none of / \\ < > : " | ? *, no leading or trailing dot or '
            "blank)"
        )
    return name


def check_writable(scenario, chosen):
    """Check, before the run, that every TDM and OEM it will write can be written.

    Renders in memory, through the real writers and in KVN as the run writes them, a TDM
    per sensor (a measurement segment and a release segment with the comments of every
    level) and an OEM per object (its name and catalogue number, the comments of every
    level); and checks the names of the files.

    Parameters
    ----------
    scenario : ssa_privacy.studies.ssa_catalog.Scenario
        The run's sensors (``stations``) and pass levels (``epsilons``, ``designers``,
        ``delta``).
    chosen : list of ElementSet
        The objects tracked: their catalogue numbers (``PARTICIPANT_2``, ``OBJECT_ID``)
        and names (``OBJECT_NAME``).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Naming the sensor or the object and what the message cannot hold (e.g.
        ``sensor 'Zürich' cannot be written in a CCSDS TDM: segments[0].sensor =
        'Zürich' cannot be written in KVN: it holds 'ü', ...``), or an output file whose
        name is not portable.

    Notes
    -----
    The values need no check: they are finite, and a release's angles outside the TDM's
    range are written through their whole turns (:mod:`ssa_privacy.sensors.tdm`).
    """
    levels = _levels(scenario)
    for label, designer in levels[1:]:
        _releases_file(label, designer)
    releases = [_release_note(scenario, label, designer) for label, designer in levels[1:]]
    estimates = [_estimate_note(label, designer) for label, designer in levels]
    check_tdm_writable(scenario.stations, releases, **_RENDER)
    for element_set in chosen:
        norad = element_set.norad_id
        for label, designer in levels:
            _estimate_file(norad, label, designer)
        with _naming(f"object {norad} ({element_set.name.strip()!r})", "OEM"):
            name = _object_name(element_set)
            state = np.zeros((1, 6))
            oem_text(
                Ephemeris(name, str(norad), "TEME", _J2000, [0.0], state, comments=estimates),
                **_RENDER,
            )


#: The epoch of the messages :func:`check_writable` renders (2000-01-01T12:00:00).
_J2000 = 2451545.0
#: How :func:`check_writable` renders: KVN, as the run writes, with a fixed date.
_RENDER = {"file_format": "kvn", "creation_jd": _J2000}


@contextmanager
def _naming(what, kind):
    """Turn a writer's ValueError (what a message cannot hold) into one naming ``what``."""
    try:
        yield
    except ValueError as error:
        raise ValueError(f"{what} cannot be written in a CCSDS {kind}: {error}") from None
