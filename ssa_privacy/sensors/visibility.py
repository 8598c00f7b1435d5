"""Passes: the contiguous stretches of time in which a station sees an object.

A station's measurements of one object over a window come in passes, each a run of
consecutive sample times with the object above the elevation mask
(:meth:`~ssa_privacy.sensors.stations.GroundStation.visible`). Privacy accounting over a
whole pass, and per-pass statistics of a catalogue study, start from these runs.
"""

import numpy as np

from ssa_privacy._internal.validation import positive_int

__all__ = [
    "passes",
    "split_passes",
]


def passes(visible):
    """The passes of a visibility series: ``(start, stop)`` index pairs of its runs of True.

    Parameters
    ----------
    visible : array_like of bool, shape (m,) or (N, m)
        Whether the object is above the mask at each of m sample times (one row per
        object, or per station).

    Returns
    -------
    list of tuple of int, or list of such lists
        For each row, the runs in time order; ``visible[start:stop]`` is all True and
        the samples just before ``start`` and at ``stop`` (where they exist) are False.

    Raises
    ------
    ValueError
        If ``visible`` is not 1-D or 2-D, or holds values other than booleans (or 0 and 1).
    """
    array = np.asarray(visible)
    if array.ndim not in (1, 2):
        raise ValueError(f"visible must be 1-D or 2-D, got shape {array.shape}")
    if array.dtype != bool:
        if array.size and not np.isin(array, (0, 1)).all():
            raise ValueError("visible must hold booleans (or 0 and 1)")
        array = array.astype(bool)
    rows = np.atleast_2d(array)
    padded = np.zeros((rows.shape[0], rows.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = rows
    change = np.diff(padded, axis=1)
    runs = [
        list(zip(np.flatnonzero(row == 1).tolist(), np.flatnonzero(row == -1).tolist()))
        for row in change
    ]
    return runs[0] if array.ndim == 1 else runs


def split_passes(runs, length):
    """Split the runs longer than ``length`` samples at the multiples of ``length``.

    Parameters
    ----------
    runs : list of tuple of int
        ``(start, stop)`` pairs, as :func:`passes` returns for one series.
    length : int
        The longest pass, in samples, >= 1.

    Returns
    -------
    list of tuple of int
        The runs of at most ``length`` samples kept whole; each longer run cut at the
        sample indices ``k * length`` inside it, so that the pieces of all stations'
        long runs share their boundaries (a geosynchronous object, in view of several
        stations all day, gives aligned passes of ``length`` samples).

    Raises
    ------
    ValueError
        If ``length`` is not a positive integer.
    """
    length = positive_int(length, "length")
    pieces = []
    for start, stop in runs:
        if stop - start <= length:
            pieces.append((start, stop))
            continue
        cuts = [start, *range((start // length + 1) * length, stop, length), stop]
        pieces.extend(zip(cuts[:-1], cuts[1:], strict=True))
    return pieces
