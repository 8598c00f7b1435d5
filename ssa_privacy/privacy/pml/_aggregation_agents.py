"""The agents of a privacy-aware aggregation (:mod:`ssa_privacy.privacy.pml.aggregation`).

The per-agent inputs broadcast to one leading agent axis (:func:`_agents`), each agent's
designed noise scaled until its own certificate passes (:func:`_certified`), and the
agents' privacy fields of an
:class:`~ssa_privacy.privacy.pml.aggregation.AggregationDesign` (:func:`_privacy`);
[LKC] §5.
"""

import numpy as np

from ssa_privacy._internal.validation import as_finite_array, real_array
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism

__all__ = []


def _agents(A, C, L, epsilon, delta, **matrices):
    """Broadcast per-agent inputs to a common leading agent axis of length N."""
    arrays = {"A": A, "C": C, "L": L, **matrices}
    arrays = {k: as_finite_array(v, k) for k, v in arrays.items()}
    for name, value in arrays.items():
        if value.ndim not in (2, 3):
            raise ValueError(
                f"{name} must be one matrix or a stack (N, rows, cols), got shape {value.shape}"
            )
    scalars = {
        "epsilon": as_finite_array(epsilon, "epsilon"),
        "delta": real_array(delta, "delta"),
    }
    for name, value in scalars.items():
        if value.ndim > 1:
            raise ValueError(f"{name} must be a number or a vector (N,), got shape {value.shape}")
    batches = {
        **{k: v.shape[:-2] for k, v in arrays.items()},
        **{k: v.shape for k, v in scalars.items()},
    }
    try:
        batch = np.broadcast_shapes(*batches.values())
    except ValueError:
        raise ValueError(
            f"the per-agent inputs disagree on the number of agents N: {batches}"
        ) from None
    N = batch[0] if batch else 1
    out = {k: np.broadcast_to(v, (N, *v.shape[-2:])) for k, v in arrays.items()}
    out.update({k: np.broadcast_to(v, (N,)) for k, v in scalars.items()})
    n, m = out["A"].shape[-1], out["C"].shape[-2]
    if out["C"].shape[-1] != n or out["L"].shape[-1] != m:
        raise ValueError(
            f"shapes do not chain: A is (n, n) = {out['A'].shape[-2:]}, C must be (m, n), got "
            f"{out['C'].shape[-2:]}, L must be (q, m), got {out['L'].shape[-2:]}"
        )
    return out


def _certified(Theta, Sigma, agents, convention):
    """Each ``Theta_i`` scaled by the least factor that makes agent i's certificate pass.

    See :meth:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism.certified`: the
    designs meet (8) to round-off or to the solver's accuracy, the certificate asks for a
    margin above its rigorous rounding bound.
    """
    certified = [
        LinearGaussianMechanism(
            agents["C"][i],
            Sigma[i],
            Theta[i],
            agents["epsilon"][i],
            agents["delta"][i],
            convention=convention,
        ).certified()
        for i in range(len(Theta))
    ]
    return np.array([mechanism.Theta for mechanism in certified])


def _privacy(agents):
    """The fields C, epsilon and delta of an AggregationDesign."""
    return {k: np.array(agents[k], dtype=float) for k in ("C", "epsilon", "delta")}
