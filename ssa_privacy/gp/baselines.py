"""Baselines that privacy-aware GP regression is compared with [TCB §5]."""

import numpy as np

from ssa_privacy._internal.validation import as_finite_array, boolean_mask
from ssa_privacy.gp.kernels import as_inputs
from ssa_privacy.gp.regression import GaussianProcess

__all__ = [
    "dropout_gp",
]


def dropout_gp(gp, X, y, private):
    """Dropout: the same GP conditioned only on the data outside the sensitive set.

    Parameters
    ----------
    gp : GaussianProcess
        Model whose hyperparameters (kernel, constant mean, scalar noise variance) are
        kept.
    X : array_like, shape (n, d) or (n,)
        Training inputs.
    y : array_like, shape (n,)
        Training outputs.
    private : array_like of bool, shape (n,)
        True for the training points inside the sensitive set S, which are withheld.

    Returns
    -------
    GaussianProcess
        Fitted to the non-private points only.

    Raises
    ------
    TypeError
        If ``gp`` is not a GaussianProcess, or ``private`` is not a boolean mask (an
        integer array would be read as booleans).
    ValueError
        If X and y do not match, ``private`` does not match the data or withholds every
        point, or the model's noise is a full matrix (Dropout needs a per-point noise
        variance).

    Notes
    -----
    [TCB] §5, baseline (1) ("same hyperparameters"); :doc:`/theory/privacy-aware-gp`.
    """
    if not isinstance(gp, GaussianProcess):
        raise TypeError(f"gp must be a GaussianProcess, got {type(gp).__name__}")
    X = as_inputs(X)
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)} rows")
    private = boolean_mask(private, "private", len(X))
    if private.all():
        raise ValueError("private marks every training point: Dropout has no data left")
    if np.ndim(gp.noise) != 0:
        raise ValueError("dropout_gp needs a scalar noise variance, got a noise matrix")
    keep = ~private
    return GaussianProcess(gp.kernel, gp.mean, gp.noise).fit(X[keep], y[keep])
