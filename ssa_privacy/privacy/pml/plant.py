"""PML-private output noise of a plant: one design call from a plant to a mechanism.

:func:`design_noise` takes a plant (an :class:`~ssa_privacy.plants.LTIPlant` or a
discrete-time python-control ``StateSpace``), computes the adversary's prior, the
stationary covariance ``Sigma_XX`` of [LKC] (27), and designs the noise of the release
``Y_k = C X_k + V_k`` with any method of
:meth:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism.design`. The returned
mechanism releases the outputs, and :mod:`ssa_privacy.estimation.kalman` takes it in place of
Theta (Kalman filter, bounds of [LKC] §4). See :doc:`/theory/kalman-bounds`.

The mechanism remembers the plant's process-noise covariance ``Q`` (``process_noise``),
so that the filter of :mod:`ssa_privacy.estimation.kalman` runs with the ``Q`` the noise was
designed for. When ``Q`` is singular and ``(A, Q^{1/2})`` not controllable, the prior is
singular: the directions it does not reach are known to the adversary in advance and need
no noise, and the mechanism is designed on the range of the prior (``state_basis``).

Examples
--------
>>> import control
>>> import numpy as np
>>> from ssa_privacy.estimation.kalman import error_covariance_bounds, steady_state
>>> from ssa_privacy.privacy.pml.plant import design_noise
>>> sys = control.ss([[0.8, 0.1], [0.0, 0.6]], np.eye(2), np.eye(2), 0, 1.0)
>>> mech = design_noise(sys, 6.0, 0.01)
>>> P = steady_state(sys, mech).P
>>> bounds = error_covariance_bounds(sys, mech)
>>> bool(bounds.applies and np.linalg.slogdet(P)[1] >= bounds.log_det)
True
"""

import numpy as np

from ssa_privacy.plants import PRIOR_RANK_RTOL, as_plant, prior_range
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism

__all__ = [
    "design_noise",
]


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
        The design (:meth:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism.design`).
    convention : {"exact", "paper"}, optional
        PML convention (default exact).
    process_noise : array_like, shape (p, p), optional
        Covariance of the input ``w`` of a StateSpace (default identity); see
        :meth:`~ssa_privacy.plants.LTIPlant.from_statespace`.

    Returns
    -------
    LinearGaussianMechanism
        Its certificate passes. For ``Y_k = C X_k + V_k`` with the stationary prior
        ``Sigma_XX`` of [LKC] (27); its ``process_noise`` is the plant's ``Q`` (n, n). For
        a singular prior of rank ``r < n`` its ``state_basis`` is the (n, r) basis ``U`` of
        the prior's range and the mechanism is that of ``C U`` with the prior ``U^T
        Sigma_XX U``.

    Raises
    ------
    TypeError
        If ``plant`` is neither an LTIPlant nor a StateSpace.
    ValueError
        For a continuous-time or unstable plant; if the outputs see only states of zero
        prior variance (no noise is needed); if an output row has zero prior variance or
        the outputs are linearly dependent (the message names the rows or the rank); if no
        design certifies (the message says why, for example a noise below the solver's
        tolerance at this epsilon); and as
        :meth:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism.design`.
    RuntimeError
        As :meth:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism.design` (the
        solver's status and epsilon).

    Notes
    -----
    [LKC] §4: prior (27) (:func:`control.dlyap`), mechanism (14); :doc:`/theory/kalman-bounds`.
    ``X = U U^T X`` almost surely, so ``Y = C U (U^T X) + V`` leaks about X exactly what
    it leaks about ``U^T X``, whose prior is positive definite.
    """
    plant = as_plant(plant, process_noise)
    Sigma_XX = plant.prior_covariance()
    C_norm = np.linalg.norm(plant.C, 2)
    output_variance = np.trace(plant.C @ Sigma_XX @ plant.C.T)
    if output_variance <= PRIOR_RANK_RTOL * C_norm**2 * np.linalg.eigvalsh(Sigma_XX)[-1]:
        raise ValueError(
            f"plant: the outputs C X have zero prior variance (trace of C Sigma_XX C^T "
            f"{output_variance:.3g}): C sees only states that the process noise Q does not "
            "drive, which are known in advance; the release needs no noise"
        )
    U = prior_range(Sigma_XX)
    basis = None if U.shape[1] == plant.n else U
    C, prior = (plant.C, Sigma_XX) if basis is None else (plant.C @ U, U.T @ Sigma_XX @ U)
    _live_outputs(C, prior)
    mechanism = LinearGaussianMechanism.design(
        C, 0.5 * (prior + prior.T), epsilon, delta, method=method, convention=convention
    )
    mechanism.process_noise, mechanism.state_basis = plant.Q, basis
    return _passing(mechanism)


def _live_outputs(C, Sigma_XX):
    """Refuse outputs that are exact combinations of others (a dead row, for one)."""
    Sigma_ZZ = C @ Sigma_XX @ C.T
    dead = np.flatnonzero(np.diag(Sigma_ZZ) <= PRIOR_RANK_RTOL * np.max(np.diag(Sigma_ZZ)))
    if dead.size:
        raise ValueError(
            f"plant: output row(s) {dead.tolist()} of C have zero prior variance (a zero or "
            "dead row): they carry nothing about the state and need no noise; drop them "
            "from the plant's outputs"
        )
    rank = np.linalg.matrix_rank(Sigma_ZZ, rtol=PRIOR_RANK_RTOL)
    if rank < len(C):
        raise ValueError(
            f"plant: the {len(C)} outputs have a prior covariance C Sigma_XX C^T of rank "
            f"{rank}: some outputs are exact combinations of others; keep {rank} independent "
            "outputs"
        )


def _passing(mechanism):
    """The mechanism if its certificate passes, else a ValueError that says why."""
    certificate = mechanism.certificate()
    if certificate.passed:
        return mechanism
    theta = mechanism.noise_covariance.eigenvalues
    if theta.size < mechanism.Sigma_ZZ.shape[0] or not np.all(theta > 0.0):
        why = (
            f"Theta has {np.sum(theta > 0.0)} positive eigenvalues of "
            f"{mechanism.Sigma_ZZ.shape[0]}: the noise this epsilon needs is below the "
            "design's accuracy (the solver's tolerance for 'lmi' and 'logdet'), and a "
            "noiseless release is certified at no finite epsilon; use a smaller epsilon or "
            "method='closed-form'"
        )
    else:
        why = certificate.evidence.get("reason", "its rounding bound exceeds the margin")
    raise ValueError(
        f"design_noise: no certified {mechanism.method!r} design at epsilon = "
        f"{mechanism.epsilon!r} nats (margin {certificate.margin:.3g}, tolerance "
        f"{certificate.tolerance:.3g} nats): {why}"
    )
