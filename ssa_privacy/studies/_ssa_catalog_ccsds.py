"""CCSDS messages of the ssa-catalog study: recorded measurements in, TDM and OEM out.

In: ``--measurements FILE``, a Tracking Data Message (:func:`~ssa_privacy.sensors.tdm.read_tdm`)
of sensor measurements. Each segment names a sensor of the scenario (``PARTICIPANT_1``)
and an object by its catalogue number (``PARTICIPANT_2``); its time tags must lie on the
scenario's time grid (within :data:`GRID_TOLERANCE_S`) and inside the window. The
objects tracked are the message's, in the order they first appear; a station measures at
the recorded epochs only (:class:`RecordedMeasurements`).

Out (``--ccsds``), under ``ccsds/`` of the output folder:

- ``measurements.tdm``: every pass of every sensor and object as measured (one segment
  per pass);
- ``releases_<level>_<designer>.tdm``: the same passes as released at each privatized
  level (``COMMENT`` lines name the budget, the designer and delta);
- ``estimates/<norad_id>_<level>_<designer>.oem``: each filter's estimates of each object
  every ``EVALUATION_STEP`` seconds over the window, with their covariances (TEME, km and
  km/s).

A run given the ``measurements.tdm`` of an earlier run and the same seed releases the
same values (each angle read back within one unit in the last place) and so tracks alike.
"""

import numpy as np

from ssa_privacy.orbits.oem import write_oem
from ssa_privacy.sensors.tdm import TrackingData, read_tdm, write_tdm

__all__ = [
    "GRID_TOLERANCE_S",
    "RecordedMeasurements",
    "read_measurements",
    "write_messages",
]

#: Largest distance (s) of a recorded time tag from the scenario's time grid.
GRID_TOLERANCE_S = 1.0e-3


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
        Naming the file and the segment: an unknown sensor, a sensor of another kind, or
        an object that is not a catalogue number.
    """

    def __init__(self, path, segments, sensors):
        self.path = str(path)
        names = [s.name for s in sensors]
        self.segments, self.norad_ids = [], []
        for k, segment in enumerate(segments):
            where = f"{self.path}: segment {k + 1}"
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
            if not segment.object_id.strip().isdigit():
                raise ValueError(f"{where}: object {segment.object_id!r} is not a catalogue number")
            norad = int(segment.object_id)
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


def _tracking(scenario, norad, tracks, comments=()):
    """TrackingData segments of one object's passes: ``(station, indices, values)`` each."""
    return [
        TrackingData(
            scenario.stations[station].name,
            str(norad),
            scenario.stations[station].kind,
            scenario.start_jd,
            scenario.times[indices],
            values,
            comments,
        )
        for station, indices, values in tracks
    ]


def _release_segments(scenario, objects):
    """Per (level, designer): the TrackingData of every object's released passes."""
    out = {}
    for item in objects:
        for label, designer, tracks in item["releases"]:
            note = (
                f"privatized release: pass budget {label} nats, designer {designer}, "
                f"delta {scenario.delta:g}",
            )
            out.setdefault((label, designer), []).extend(
                _tracking(scenario, item["norad_id"], tracks, note)
            )
    return out


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
        ``ccsds`` lists, :func:`~ssa_privacy.studies._ssa_catalog_task.catalog_task`).
    """
    names = {e.norad_id: e.name.strip() for e in chosen}
    measured = [
        segment
        for item in objects
        for segment in _tracking(scenario, item["norad_id"], item["measured"])
    ]
    if measured:
        write_tdm(output.target("ccsds/measurements.tdm"), measured)
    for (label, designer), segments in _release_segments(scenario, objects).items():
        if segments:
            write_tdm(output.target(f"ccsds/releases_{label}_{designer}.tdm"), segments)
    times = scenario.times[scenario.ephemeris]
    for item in objects:
        norad = item["norad_id"]
        for f, (label, designer) in enumerate(item["filters"]):
            write_oem(
                output.target(f"ccsds/estimates/{norad}_{label}_{designer}.oem"),
                names.get(norad) or str(norad),
                str(norad),
                scenario.start_jd,
                times,
                item["estimates"][f],
                item["covariances"][f],
                comments=(f"fusion centre's EKF estimate, level {label}, designer {designer}",),
            )
