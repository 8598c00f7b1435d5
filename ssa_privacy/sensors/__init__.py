"""Ground-based tracking sensors: Earth rotation, stations, radar measurements and the tracker.

One concept per module:

- :mod:`ssa_privacy.sensors.geodesy`: WGS-84 geodetic coordinates, the Earth's rotation
  (:class:`~ssa_privacy.sensors.geodesy.EarthRotation`) and ground tracks;
- :mod:`ssa_privacy.sensors.stations`:
  :class:`~ssa_privacy.sensors.stations.GroundStation` (azimuth, elevation, range and
  range rate; visibility; the Jacobian) and its linearised measurement model
  (:class:`~ssa_privacy.sensors.stations.LinearisedMeasurement`), which a privacy
  mechanism privatizes;
- :mod:`ssa_privacy.sensors.tracking`:
  :class:`~ssa_privacy.sensors.tracking.OrbitTracker`, the fusion centre's unscented
  Kalman filter.

The constants live in :mod:`ssa_privacy.constants`. Every public name of the former
single module stays importable from ``ssa_privacy.sensors``. See
:doc:`/theory/orbits-and-sensors`.
"""

# Re-exports: the public names of the module before the split.
from ssa_privacy.constants import OMEGA_EARTH, WGS84_A, WGS84_F  # noqa: F401
from ssa_privacy.sensors.geodesy import (  # noqa: F401
    GEODETIC_ITERATIONS,
    EarthRotation,
    ecef_to_geodetic,
    geodetic_to_ecef,
    ground_track,
)
from ssa_privacy.sensors.stations import (  # noqa: F401
    DEFAULT_NOISE_STD,
    MEASUREMENTS,
    GroundStation,
    LinearisedMeasurement,
)
from ssa_privacy.sensors.tracking import (  # noqa: F401
    FIRST_STEP,
    SIGMA_POINT_PARAMETERS,
    OrbitTracker,
    measurement_mean,
    measurement_residual,
)
