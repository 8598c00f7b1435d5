"""Timing helper shared by the benchmark scripts."""

import time


def best_time(function, repeats):
    """Smallest wall-clock time of ``repeats`` calls of ``function``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)
