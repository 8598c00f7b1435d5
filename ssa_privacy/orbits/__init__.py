"""Orbit dynamics and element sets: the planar J2 model of [TCB] §5.1, the 3D two-body + J2
propagator, elements, frames, relative motion, TLEs and the catalogue.

Every public name of the modules below is importable from ``ssa_privacy.orbits``:

- :mod:`ssa_privacy.orbits.planar`
- :mod:`ssa_privacy.orbits.propagator`
- :mod:`ssa_privacy.orbits.elements`
- :mod:`ssa_privacy.orbits.frames`
- :mod:`ssa_privacy.orbits.relative_motion`
- :mod:`ssa_privacy.orbits.tle_format`
- :mod:`ssa_privacy.orbits.tle`
- :mod:`ssa_privacy.orbits.catalog`

Orbit Ephemeris and Orbit Mean-Elements Messages are read and written by
:mod:`ssa_privacy.orbits.oem` and :mod:`ssa_privacy.orbits.omm`, imported by their own paths
(they load the CCSDS library).
"""

from ssa_privacy.orbits import (
    catalog,
    elements,
    frames,
    planar,
    propagator,
    relative_motion,
    tle,
    tle_format,
)
from ssa_privacy.orbits.catalog import *  # noqa: F403
from ssa_privacy.orbits.elements import *  # noqa: F403
from ssa_privacy.orbits.frames import *  # noqa: F403
from ssa_privacy.orbits.planar import *  # noqa: F403
from ssa_privacy.orbits.propagator import *  # noqa: F403
from ssa_privacy.orbits.relative_motion import *  # noqa: F403
from ssa_privacy.orbits.tle import *  # noqa: F403
from ssa_privacy.orbits.tle_format import *  # noqa: F403

__all__ = [
    *planar.__all__,
    *propagator.__all__,
    *elements.__all__,
    *frames.__all__,
    *relative_motion.__all__,
    *tle_format.__all__,
    *tle.__all__,
    *catalog.__all__,
]
