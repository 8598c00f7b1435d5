"""CCSDS messages of the ssa-catalog study: recorded measurements in, TDM and OEM out.

In: ``--measurements FILE``, a Tracking Data Message (:func:`~ssa_privacy.sensors.tdm.read_tdm`)
of sensor measurements. Each segment names a sensor of the scenario (``PARTICIPANT_1``)
and an object by its catalogue number (``PARTICIPANT_2``: digits, or Alpha-5 such as
``C3456``, read as 123456); its time tags must lie on the scenario's time grid (within
:data:`GRID_TOLERANCE_S`) and inside the window. The objects tracked are the message's,
in the order they first appear; a station measures at the recorded epochs only
(:class:`RecordedMeasurements`). A segment marked as a privatized release (a run's
``releases_*.tdm``) is refused: releases are not measurements.

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

import re
from contextlib import contextmanager

import numpy as np
from sgp4.alpha5 import from_alpha5

from ssa_privacy.orbits.catalog import utc_text
from ssa_privacy.orbits.oem import Ephemeris, oem_text
from ssa_privacy.sensors.tdm import TrackingData, read_tdm, tdm_text
from ssa_privacy.studies.ssa_catalog.rows import pass_levels

__all__ = [
    "GRID_TOLERANCE_S",
    "NOT_WRITTEN",
    "RecordedMeasurements",
    "check_writable",
    "read_measurements",
    "write_messages",
]

#: Largest distance (s) of a recorded time tag from the scenario's time grid.
GRID_TOLERANCE_S = 1.0e-3
#: A catalogue number: digits, or Alpha-5 (a letter A-Z without I and O, then 4 digits).
_CATALOGUE_NUMBER = re.compile(r"\d+|[A-HJ-NP-Z]\d{4}")
#: Characters no output file name may hold (path separators; Windows' reserved ones).
_NOT_IN_FILE_NAMES = set('/\\<>:"|?*')


class RecordedMeasurements:
    """The segments of a TDM matched to the scenario's sensors.

    Parameters
    ----------
    path : str
        The TDM file (for messages).
    segments : list of TrackingData
        As read.
    sensors : sequence of SensorSpec
        The scenario's sensors, whose names the segments must use.

    Raises
    ------
    ValueError
        Naming the file and the segment: a privatized release (not measurements), an
        unknown sensor, a sensor of another kind, or an object that is not a catalogue
        number (digits, or Alpha-5 such as ``C3456``, read as 123456).
    """

    def __init__(self, path, segments, sensors):
        self.path = str(path)
        names = [s.name for s in sensors]
        self.segments, self.norad_ids = [], []
        for k, segment in enumerate(segments):
            where = f"{self.path}: segment {k + 1}"
            if segment.release:
                raise ValueError(
                    f"{where}: a privatized release, not measurements (--measurements takes "
                    "the measurements of sensors, e.g. a run's ccsds/measurements.tdm)"
                )
            if segment.sensor not in names:
                raise ValueError(
                    f"{where}: sensor {segment.sensor!r} is not a sensor of the scenario "
                    f"({', '.join(names)})"
                )
            station = names.index(segment.sensor)
            if segment.kind != sensors[station].kind:
                raise ValueError(
                    f"{where}: sensor {segment.sensor!r} is a {sensors[station].kind} in the "
                    f"scenario, but the segment holds {segment.kind} measurements"
                )
            if not _CATALOGUE_NUMBER.fullmatch(segment.object_id):
                raise ValueError(
                    f"{where}: object {segment.object_id!r} is not a catalogue number (digits, "
                    "or Alpha-5 such as C3456)"
                )
            norad = from_alpha5(segment.object_id)
            if norad not in self.norad_ids:
                self.norad_ids.append(norad)
            self.segments.append((norad, station, segment))

    def on_grid(self, scenario):
        """The measurements by object and station, as grid indices and values.

        Parameters
        ----------
        scenario : ssa_privacy.studies.ssa_catalog.Scenario
            The run's grid (``start_jd``, ``times``).

        Returns
        -------
        dict
            ``{norad_id: {station index: (grid indices (K,), values (K, m))}}``, the
            indices increasing.

        Raises
        ------
        ValueError
            Naming the file and the segment: a time tag off the grid or outside the
            window, or an epoch measured twice by one sensor.
        """
        step = scenario.times[1] - scenario.times[0]
        gathered = {}
        for k, (norad, station, segment) in enumerate(self.segments):
            where = f"{self.path}: segment {k + 1} ({segment.sensor}, object {norad})"
            offset = (segment.epoch_jd - scenario.start_jd) * 86400.0
            t = offset + np.asarray(segment.times)
            index = np.rint(t / step).astype(int)
            if np.any(np.abs(t - index * step) > GRID_TOLERANCE_S):
                raise ValueError(
                    f"{where}: time tags must lie on the scenario's {step:g} s grid from the "
                    f"window start (within {GRID_TOLERANCE_S:g} s)"
                )
            if index.min() < 0 or index.max() >= len(scenario.times):
                raise ValueError(f"{where}: time tags outside the scenario's window")
            gathered.setdefault(norad, {}).setdefault(station, []).append(
                (index, np.asarray(segment.values))
            )
        out = {}
        for norad, stations in gathered.items():
            for station, parts in stations.items():
                indices = np.concatenate([i for i, _ in parts])
                values = np.concatenate([v for _, v in parts])
                order = np.argsort(indices, kind="stable")
                if np.any(np.diff(indices[order]) == 0):
                    raise ValueError(
                        f"{self.path}: sensor {scenario.stations[station].name!r} measures "
                        f"object {norad} twice at one epoch"
                    )
                out.setdefault(norad, {})[station] = (indices[order], values[order])
        return out


def read_measurements(path, spec):
    """Recorded sensor measurements (CCSDS TDM) for a scenario.

    Parameters
    ----------
    path : str or path-like
        The TDM (KVN or XML).
    spec : SsaScenario
        The scenario whose sensors measured.

    Returns
    -------
    RecordedMeasurements

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`~ssa_privacy.sensors.tdm.read_tdm`, and as :class:`RecordedMeasurements`.
    """
    return RecordedMeasurements(path, read_tdm(path), spec.sensors)


#: Where :func:`write_messages` lists what it could not write (under the output folder).
NOT_WRITTEN = "ccsds/not_written.txt"


def _tracking(scenario, norad, tracks, unwritten, file, comments=(), release=False):
    """TrackingData segments of one object's passes (``(station, indices, values)`` each);
    a pass a TDM cannot hold is left out and listed in ``unwritten``, naming ``file``."""
    segments = []
    for station, indices, values in tracks:
        sensor = scenario.stations[station]
        try:
            segments.append(
                TrackingData(
                    sensor.name,
                    str(norad),
                    sensor.kind,
                    scenario.start_jd,
                    scenario.times[indices],
                    values,
                    comments,
                    release,
                )
            )
        except ValueError as error:
            start = utc_text(scenario.start_jd + scenario.times[indices[0]] / 86400.0)
            unwritten.append(
                f"{file}: the pass of object {norad} over {sensor.name!r} from {start}: {error}"
            )
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
    for station in scenario.stations:
        values = np.zeros((1, 4 if station.kind == "radar" else 2))
        with _naming(f"sensor {station.name!r}", "TDM"):
            measured = TrackingData(station.name, "1", station.kind, _J2000, [0.0], values)
            released = TrackingData(
                station.name, "1", station.kind, _J2000, [0.0], values, releases, release=True
            )
            tdm_text([measured, released], **_RENDER)
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
