"""A network's passes and CCSDS Tracking Data Messages: recorded measurements read onto a
time grid, and an object's passes written as TDM segments.

In: :func:`read_measurements` reads a TDM (:func:`~ssa_privacy.sensors.tdm.read_tdm`) of
sensor measurements. Each segment names a sensor of the network (``PARTICIPANT_1``) and
an object by its catalogue number (``PARTICIPANT_2``: digits, or Alpha-5 such as
``C3456``, read as 123456); :meth:`RecordedMeasurements.on_grid` puts its time tags on a
time grid (within :data:`GRID_TOLERANCE_S`), inside the window. A segment marked as a
privatized release is refused: releases are not measurements.

Out: :func:`pass_segments` gives the segments of an object's passes (measured or
released), one per pass, leaving out a pass whose values no TDM may hold;
:func:`check_tdm_writable` renders a network's segments before a run, so that a sensor
whose name or comments a message cannot hold is refused before anything is computed.

Like :mod:`ssa_privacy.sensors.tdm`, this module is not gathered by
:mod:`ssa_privacy.sensors` (it loads the CCSDS library): import it by its path.
"""

import re

import numpy as np
from sgp4.alpha5 import from_alpha5

from ssa_privacy.sensors.tdm import TrackingData, read_tdm, tdm_text

__all__ = [
    "GRID_TOLERANCE_S",
    "RecordedMeasurements",
    "check_tdm_writable",
    "pass_segments",
    "read_measurements",
]

#: Largest distance (s) of a recorded time tag from the time grid.
GRID_TOLERANCE_S = 1.0e-3
#: A catalogue number: digits, or Alpha-5 (a letter A-Z without I and O, then 4 digits).
_CATALOGUE_NUMBER = re.compile(r"\d+|[A-HJ-NP-Z]\d{4}")
#: The epoch of the segments :func:`check_tdm_writable` renders (2000-01-01T12:00:00).
_J2000 = 2451545.0


class RecordedMeasurements:
    """The segments of a TDM matched to the scenario's sensors.

    Parameters
    ----------
    path : str
        The TDM file (for messages).
    segments : list of TrackingData
        As read.
    sensors : sequence
        The network's sensors (each with a ``name`` and a ``kind``, ``"radar"`` or
        ``"optical"``: a :class:`~ssa_privacy.sensors.stations.GroundStation`, an
        optical station or a scenario's sensor), whose names the segments must use.

    Raises
    ------
    ValueError
        Naming the file and the segment: a privatized release (not measurements), an
        unknown sensor, a sensor of another kind, or an object that is not a catalogue
        number (digits, or Alpha-5 such as ``C3456``, read as 123456).
    """

    def __init__(self, path, segments, sensors):
        self.path = str(path)
        self.names = names = [s.name for s in sensors]
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

    def on_grid(self, start_jd, times):
        """The measurements by object and station, as grid indices and values.

        Parameters
        ----------
        start_jd : float
            Julian date (UTC) of the grid's ``t = 0``.
        times : ndarray, shape (m,)
            The time grid (s), evenly spaced from 0.

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
        step = times[1] - times[0]
        gathered = {}
        for k, (norad, station, segment) in enumerate(self.segments):
            where = f"{self.path}: segment {k + 1} ({segment.sensor}, object {norad})"
            offset = (segment.epoch_jd - start_jd) * 86400.0
            t = offset + np.asarray(segment.times)
            index = np.rint(t / step).astype(int)
            if np.any(np.abs(t - index * step) > GRID_TOLERANCE_S):
                raise ValueError(
                    f"{where}: time tags must lie on the scenario's {step:g} s grid from the "
                    f"window start (within {GRID_TOLERANCE_S:g} s)"
                )
            if index.min() < 0 or index.max() >= len(times):
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
                        f"{self.path}: sensor {self.names[station]!r} measures "
                        f"object {norad} twice at one epoch"
                    )
                out.setdefault(norad, {})[station] = (indices[order], values[order])
        return out


def read_measurements(path, sensors):
    """Recorded sensor measurements (CCSDS TDM) of a network.

    Parameters
    ----------
    path : str or path-like
        The TDM (KVN or XML).
    sensors : sequence
        The network's sensors, as :class:`RecordedMeasurements`.

    Returns
    -------
    RecordedMeasurements
        The message's segments, matched to ``sensors``.

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`~ssa_privacy.sensors.tdm.read_tdm`, and as :class:`RecordedMeasurements`.
    """
    return RecordedMeasurements(path, read_tdm(path), sensors)


def pass_segments(stations, object_id, epoch_jd, times, tracks, comments=(), release=False):
    """The TDM segments of one object's passes, one per pass; a pass no TDM may hold is
    left out.

    Parameters
    ----------
    stations : sequence of GroundStation or OpticalStation
        The network (``name``, ``kind``), indexed by each track's station.
    object_id : str
        The object (``PARTICIPANT_2``), e.g. its catalogue number.
    epoch_jd : float
        Julian date (UTC) of the grid's ``t = 0``.
    times : ndarray, shape (m,)
        The time grid (s).
    tracks : iterable of tuple
        ``(station index, grid indices (K,), values (K, n))`` per pass (radians, km,
        km/s as :class:`~ssa_privacy.sensors.tdm.TrackingData` takes them).
    comments : tuple of str, optional
        ``COMMENT`` lines of every segment.
    release : bool, optional
        Whether the values are a privatized release (default False: measurements).

    Returns
    -------
    segments : list of TrackingData
        The passes a TDM can hold, in order.
    left_out : list of tuple
        ``(station index, grid indices, reason)`` of each pass left out: a value no
        segment of its kind may hold (a measured elevation above 90 deg, a non-finite
        value), the reason :class:`~ssa_privacy.sensors.tdm.TrackingData`'s error.
    """
    segments, left_out = [], []
    for station, indices, values in tracks:
        sensor = stations[station]
        try:
            segments.append(
                TrackingData(
                    sensor.name,
                    object_id,
                    sensor.kind,
                    epoch_jd,
                    times[indices],
                    values,
                    comments,
                    release,
                )
            )
        except ValueError as error:
            left_out.append((station, indices, str(error)))
    return segments, left_out


def check_tdm_writable(stations, comments=(), **render):
    """Check, before a run, that a TDM can hold every sensor's measurements and releases.

    Renders in memory, through :func:`~ssa_privacy.sensors.tdm.tdm_text`, a measurement
    segment and a release segment (with ``comments``) of a one-sample pass per sensor.

    Parameters
    ----------
    stations : sequence of GroundStation or OpticalStation
        The network (``name``, ``kind``).
    comments : tuple of str, optional
        The ``COMMENT`` lines of the release segments.
    **render
        Keyword arguments of :func:`~ssa_privacy.sensors.tdm.tdm_text` (the format and
        creation date the run writes with).

    Returns
    -------
    None
        Nothing: the check raises or passes.

    Raises
    ------
    ValueError
        Naming the sensor and what the message cannot hold (e.g. ``sensor 'Zürich'
        cannot be written in a CCSDS TDM: segments[0].sensor = 'Zürich' cannot be
        written in KVN: it holds 'ü', ...``).
    """
    for station in stations:
        values = np.zeros((1, 4 if station.kind == "radar" else 2))
        try:
            measured = TrackingData(station.name, "1", station.kind, _J2000, [0.0], values)
            released = TrackingData(
                station.name, "1", station.kind, _J2000, [0.0], values, comments, release=True
            )
            tdm_text([measured, released], **render)
        except ValueError as error:
            raise ValueError(
                f"sensor {station.name!r} cannot be written in a CCSDS TDM: {error}"
            ) from None
