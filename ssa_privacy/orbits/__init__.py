"""Orbit propagation: the planar J2 model of [TCB] §5.1 and a 3D two-body + J2 model.

One concept per module:

- :mod:`ssa_privacy.orbits.planar`: :class:`~ssa_privacy.orbits.planar.PlanarJ2Model`,
  the planar model of [TCB] (12)-(13) in normalised units (length R_e, time T_orb),
  with the paper's J2 term (default) or the physical one (:doc:`/theory/planar-j2`);
- :mod:`ssa_privacy.orbits.propagator`:
  :class:`~ssa_privacy.orbits.propagator.J2Propagator`, two-body + J2 motion in an
  Earth-centred inertial frame (km, km/s), its energy and secular rates;
- :mod:`ssa_privacy.orbits.elements`: classical orbital elements and orbit averages;
- :mod:`ssa_privacy.orbits.frames`: the RSW axes and the Hill frame.

The constants live in :mod:`ssa_privacy.constants`; element sets (TLEs) enter through
:mod:`ssa_privacy.tle`. Every public name of the former single module stays importable from
``ssa_privacy.orbits``. See :doc:`/theory/orbits-and-sensors`.
"""

# Re-exports: the public names of the module before the split.
from ssa_privacy.constants import J2_EARTH, MU_EARTH, R_EARTH  # noqa: F401
from ssa_privacy.orbits.elements import (  # noqa: F401
    SINGULAR_TOL,
    OrbitalElements,
    angular_momentum,
    elements_to_state,
    orbit_averaged_rates,
    orbit_averages,
    state_to_elements,
)
from ssa_privacy.orbits.frames import hill_to_inertial, rsw_frame  # noqa: F401
from ssa_privacy.orbits.planar import J2_FORMS, MAX_TOLERANCE, PlanarJ2Model  # noqa: F401
from ssa_privacy.orbits.propagator import (  # noqa: F401
    LOOSEST_TOLERANCE,
    TIGHT_TOLERANCE,
    J2Propagator,
)
