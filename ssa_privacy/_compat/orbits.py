"""Legacy names of the orbit propagator, kept until 0.3.

The transition matrices of :class:`~ssa_privacy.orbits.propagator.J2Propagator` come from
the variational equations, no longer from central differences: their half-widths
and the ``steps`` argument are gone (the argument is still accepted, ignored, with a
warning).
"""

from ssa_privacy._compat import _legacy

#: Served through :data:`ssa_privacy._compat.REPLACED_NAMES` only.
__all__ = []

#: The half-widths (km, km/s) of the finite differences that gave the transition matrices.
_legacy(
    ("ssa_privacy.orbits", "ssa_privacy.orbits.propagator"),
    "DIFFERENCE_STEPS",
    "nothing: the transition matrices come from the variational equations",
)((1.0e-3, 1.0e-6))
