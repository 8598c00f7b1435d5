"""Clipping and standardisation of private outputs before a DP-GP release.

Clipping every output to a window of width ``d_raw`` makes the sensitivity hold (two
clipped outputs differ by at most ``d_raw``); standardising expresses it in normalised
units, ``d = d_raw / sd``, the value the mechanisms of :mod:`ssa_privacy.privacy` take.
See :doc:`/theory/dp-gp`.
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.validation import (
    as_finite_array,
    non_negative_int,
    nonempty,
    positive,
    scalar,
)

__all__ = [
    "OutputNormalisation",
    "clip_and_normalise",
]


@dataclass(frozen=True)
class OutputNormalisation:
    """Clipping range and standardisation of the outputs [SMI] §2.

    Parameters
    ----------
    centre : float
        Centre of the clipping window (output units).
    raw_sensitivity : float
        d_raw, the width of the clipping window (output units): two clipped outputs
        differ by at most d_raw.
    mean, std : float
        Mean and standard deviation (ddof = 0) of the clipped outputs (output units).
    n_clipped : int
        Number of outputs changed by clipping.

    Raises
    ------
    TypeError
        If a field is not a real number (a bool, a string, None).
    ValueError
        If ``centre`` or ``mean`` is not finite, ``raw_sensitivity`` or ``std`` is not
        positive, or ``n_clipped`` is not a non-negative integer.

    Notes
    -----
    ``centre``, ``mean`` and ``std`` are computed from the private outputs and are not
    privatised; [SMI] ignores this leak, and so does this package (see
    :doc:`/theory/dp-gp`, "Threat model").
    """

    centre: float
    raw_sensitivity: float
    mean: float
    std: float
    n_clipped: int

    def __post_init__(self):
        scalar(self.centre, "centre")
        positive(self.raw_sensitivity, "raw_sensitivity")
        scalar(self.mean, "mean")
        positive(self.std, "std")
        non_negative_int(self.n_clipped, "n_clipped")

    @property
    def sensitivity(self):
        """d = d_raw / std, the sensitivity in normalised units."""
        return self.raw_sensitivity / self.std

    def normalise(self, y):
        """Clip outputs to the window and standardise them.

        Parameters
        ----------
        y : array_like
            Outputs (output units).

        Returns
        -------
        ndarray
            Clipped, standardised outputs (normalised units), of the shape of y.

        Raises
        ------
        TypeError, ValueError
            If y is not made of finite real numbers.
        """
        low = self.centre - self.raw_sensitivity / 2
        clipped = np.clip(as_finite_array(y, "y"), low, low + self.raw_sensitivity)
        return (clipped - self.mean) / self.std

    def unnormalise(self, f):
        """Map predictions from normalised units back to output units.

        Parameters
        ----------
        f : array_like
            Predictions (normalised units).

        Returns
        -------
        ndarray
            ``f * std + mean`` (output units).

        Raises
        ------
        TypeError, ValueError
            If f is not made of finite real numbers.
        """
        return as_finite_array(f, "f") * self.std + self.mean

    def unnormalise_covariance(self, covariance):
        """Map a (co)variance from normalised units to squared output units.

        Parameters
        ----------
        covariance : array_like
            Variance or covariance (squared normalised units).

        Returns
        -------
        ndarray
            ``covariance * std^2`` (squared output units).

        Raises
        ------
        TypeError, ValueError
            If the covariance is not made of finite real numbers.
        """
        return as_finite_array(covariance, "covariance") * self.std**2


def clip_and_normalise(y, sensitivity, clip="midpoint"):
    """Clip outputs to a window of width ``sensitivity`` and standardise them.

    Parameters
    ----------
    y : array_like, shape (n,)
        Raw outputs (output units).
    sensitivity : float
        d_raw, the full width of the allowed output range (output units), e.g. 100 cm.
    clip : {"midpoint", "mean", "median"} or float
        Centre of the window: the midpoint of the data range (the paper's default),
        the mean, the median, or a given (public) value.

    Returns
    -------
    y_normalised : ndarray, shape (n,)
        Clipped, standardised outputs (normalised units).
    normalisation : OutputNormalisation
        Its ``sensitivity`` is d = d_raw / std, the value to pass to the mechanisms.

    Raises
    ------
    ValueError
        On non-finite or non-1-D y, a non-positive sensitivity, an unknown ``clip``,
        or clipped outputs with zero spread.

    Notes
    -----
    [SMI] footnote to Fig. 1 ("rectifying all values to lie 50cm of the mean"); the
    authors' code clips the same way (:doc:`/theory/dp-gp`).

    Examples
    --------
    >>> from ssa_privacy.privacy.dp_gp.normalisation import clip_and_normalise
    >>> y, norm = clip_and_normalise([100.0, 150.0, 160.0, 170.0, 250.0], 100.0)
    >>> norm.n_clipped, round(norm.sensitivity, 3)
    (2, 3.023)
    """
    y = nonempty(as_finite_array(y, "y", ndim=1), "y")
    width = positive(sensitivity, "sensitivity")
    centres = {"midpoint": lambda v: (v.max() + v.min()) / 2, "mean": np.mean, "median": np.median}
    if isinstance(clip, str):
        if clip not in centres:
            raise ValueError(f"clip must be one of {tuple(centres)} or a number, got {clip!r}")
        centre = float(centres[clip](y))
    else:
        centre = float(as_finite_array(clip, "clip", ndim=0))
    clipped = np.clip(y, centre - width / 2, centre + width / 2)
    std = float(np.std(clipped))
    if std <= 0:
        raise ValueError("the clipped outputs have zero standard deviation; cannot normalise")
    normalisation = OutputNormalisation(
        centre, width, float(np.mean(clipped)), std, int(np.sum(clipped != y))
    )
    return (clipped - normalisation.mean) / std, normalisation
