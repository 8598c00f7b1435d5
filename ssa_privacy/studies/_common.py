"""Helpers shared by the study modules: metrics, timing and plotting.

A study's random numbers come from the package's one seed helper,
:func:`ssa_privacy._internal.random.random_generator`, with the task's seed keys.
"""

import time
from contextlib import contextmanager

import numpy as np

__all__ = [
    "METHOD_COLOURS",
    "band",
    "mean_std",
    "rmse",
    "stopwatch",
]

#: Colours used for the methods in every figure.
METHOD_COLOURS = {
    "truth": "black",
    "private": "tab:red",
    "released": "tab:blue",
    "privacy-aware": "tab:green",
    "dropout": "tab:orange",
    "stationary": "tab:purple",
    "non-private": "tab:blue",
}


def rmse(prediction, truth):
    """Root-mean-square error between two arrays of the same shape."""
    return float(np.sqrt(np.mean((np.asarray(prediction) - np.asarray(truth)) ** 2)))


def mean_std(values):
    """Mean and population standard deviation of a sequence (as in the papers' tables)."""
    values = np.asarray(values, dtype=float)
    return float(np.mean(values)), float(np.std(values))


@contextmanager
def stopwatch(times, key):
    """Append the wall-clock duration (s) of the block to ``times[key]``."""
    start = time.perf_counter()
    yield
    times.setdefault(key, []).append(time.perf_counter() - start)


def band(axis, x, mean, half_width, colour, label, alpha=0.2):
    """Plot a mean curve with a shaded band ``mean +- half_width``."""
    axis.plot(x, mean, color=colour, label=label)
    axis.fill_between(x, mean - half_width, mean + half_width, color=colour, alpha=alpha, lw=0)
