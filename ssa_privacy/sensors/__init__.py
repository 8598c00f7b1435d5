"""Ground-based tracking sensors: the Earth's rotation and orientation, radar and optical
stations and their measurements, the Sun, visibility, the default networks and the
measurement streams of a catalogue.

Every public name of the modules below is importable from ``ssa_privacy.sensors``:

- :mod:`ssa_privacy.sensors.geodesy`
- :mod:`ssa_privacy.sensors.earth_orientation`
- :mod:`ssa_privacy.sensors.stations`
- :mod:`ssa_privacy.sensors.optical`
- :mod:`ssa_privacy.sensors.illumination`
- :mod:`ssa_privacy.sensors.visibility`
- :mod:`ssa_privacy.sensors.networks`
- :mod:`ssa_privacy.sensors.streams`
- :mod:`ssa_privacy.sensors.simulation`

Tracking Data Messages are read and written by :mod:`ssa_privacy.sensors.tdm`, and a
network's passes read from and written to them by :mod:`ssa_privacy.sensors.tdm_passes`,
each imported by its own path (they load the CCSDS library).
"""

from ssa_privacy.sensors import (
    earth_orientation,
    geodesy,
    illumination,
    networks,
    optical,
    simulation,
    stations,
    streams,
    visibility,
)
from ssa_privacy.sensors.earth_orientation import *  # noqa: F403
from ssa_privacy.sensors.geodesy import *  # noqa: F403
from ssa_privacy.sensors.illumination import *  # noqa: F403
from ssa_privacy.sensors.networks import *  # noqa: F403
from ssa_privacy.sensors.optical import *  # noqa: F403
from ssa_privacy.sensors.simulation import *  # noqa: F403
from ssa_privacy.sensors.stations import *  # noqa: F403
from ssa_privacy.sensors.streams import *  # noqa: F403
from ssa_privacy.sensors.visibility import *  # noqa: F403

__all__ = [
    *geodesy.__all__,
    *earth_orientation.__all__,
    *stations.__all__,
    *optical.__all__,
    *illumination.__all__,
    *visibility.__all__,
    *networks.__all__,
    *streams.__all__,
    *simulation.__all__,
]
