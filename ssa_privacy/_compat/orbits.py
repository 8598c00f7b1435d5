"""Legacy names of the orbit propagator, kept until 0.3.

The transition matrices of :class:`~ssa_privacy.orbits.propagator.J2Propagator` come from
the variational equations, no longer from central differences: their half-widths
and the ``steps`` argument are gone (the argument is still accepted, ignored, with a
warning).
"""

import functools

from ssa_privacy._compat import _legacy, _legacy_call, deprecated_argument

#: Served through :data:`ssa_privacy._compat.REPLACED_NAMES` only.
__all__ = []

#: The half-widths (km, km/s) of the finite differences that gave the transition matrices.
_legacy(
    ("ssa_privacy.orbits", "ssa_privacy.orbits.propagator"),
    "DIFFERENCE_STEPS",
    "nothing: the transition matrices come from the variational equations",
)((1.0e-3, 1.0e-6))


def _without_steps(method):
    """``method(times, states0, *, rtol, atol)`` that also takes the old call form
    ``(times, states0, steps, rtol, atol)`` (``steps`` positional or by keyword), warns
    when ``steps`` is given, and ignores it."""

    @functools.wraps(method)
    def adapted(self, times, states0, *old, steps=None, **tolerances):
        if len(old) > 3:
            raise TypeError(f"{method.__qualname__} takes at most 5 positional arguments")
        if old:
            steps, *old_tolerances = old
            tolerances.update(zip(("rtol", "atol"), old_tolerances, strict=False))
        if old or steps is not None:
            deprecated_argument(
                f"J2Propagator.{method.__name__}",
                "steps",
                "nothing: the matrices come from the variational equations",
                2,
            )
        return method(self, times, states0, **tolerances)

    return adapted


for _method in ("transition_matrices", "propagate_with_transition"):
    _legacy_call("ssa_privacy.orbits.propagator", f"J2Propagator.{_method}")(_without_steps)
