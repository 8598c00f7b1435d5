"""PML-private output noise of a plant: one design call from a plant to a mechanism.

:func:`design_noise` takes a plant (an :class:`~ssa_privacy.plants.LTIPlant` or a
discrete-time python-control ``StateSpace``), computes the adversary's prior, the
stationary covariance ``Sigma_XX`` of [LKC] (27), and designs the noise of the release
``Y_k = C X_k + V_k`` with any method of
:meth:`~ssa_privacy.privacy.pml_design.LinearGaussianMechanism.design`. The returned
mechanism releases the outputs, and :mod:`ssa_privacy.estimation` takes it in place of
Theta (Kalman filter, bounds of [LKC] §4). See :doc:`/theory/kalman-bounds`.

Examples
--------
>>> import control
>>> import numpy as np
>>> from ssa_privacy.estimation import error_covariance_bounds, steady_state
>>> from ssa_privacy.privacy.pml_plant import design_noise
>>> sys = control.ss([[0.8, 0.1], [0.0, 0.6]], np.eye(2), np.eye(2), 0, 1.0)
>>> mech = design_noise(sys, 6.0, 0.01)
>>> P = steady_state(sys, mech).P
>>> bounds = error_covariance_bounds(sys, mech)
>>> bool(bounds.applies and np.linalg.slogdet(P)[1] >= bounds.log_det)
True
"""

from ssa_privacy.plants import as_plant
from ssa_privacy.privacy.pml_design import LinearGaussianMechanism


def design_noise(
    plant, epsilon, delta, *, method="closed-form", convention="exact", process_noise=None
):
    """PML-private output noise of a plant, as a LinearGaussianMechanism.

    Parameters
    ----------
    plant : LTIPlant or control.StateSpace
        The plant; a python-control system must be discrete time (``control.c2d``).
    epsilon : float
        Leakage bound, nats, above the necessary condition (9).
    delta : float
        Failure probability in (0, 1).
    method : {"closed-form", "lmi", "logdet"}, optional
        The design (:meth:`~ssa_privacy.privacy.pml_design.LinearGaussianMechanism.design`).
    convention : {"exact", "paper"}, optional
        PML convention (default exact).
    process_noise : array_like, shape (p, p), optional
        Covariance of the input ``w`` of a StateSpace (default identity); see
        :meth:`~ssa_privacy.plants.LTIPlant.from_statespace`.

    Returns
    -------
    LinearGaussianMechanism
        For ``Y_k = C X_k + V_k`` with the stationary prior ``Sigma_XX`` of [LKC] (27).

    Raises
    ------
    TypeError
        If ``plant`` is neither an LTIPlant nor a StateSpace.
    ValueError
        For a continuous-time or unstable plant, a singular process noise, and as
        :meth:`~ssa_privacy.privacy.pml_design.LinearGaussianMechanism.design`.

    Notes
    -----
    [LKC] §4: prior (27) (:func:`control.dlyap`), mechanism (14); :doc:`/theory/kalman-bounds`.
    """
    plant = as_plant(plant, process_noise)
    return LinearGaussianMechanism.design(
        plant.C,
        plant.prior_covariance(),
        epsilon,
        delta,
        method=method,
        convention=convention,
    )
