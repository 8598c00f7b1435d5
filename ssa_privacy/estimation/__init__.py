"""State estimators and their bounds: the Kalman filter and PML error bounds, the unscented
filter of the ground network and the catalogue's extended filter.

Every public name of the modules below is importable from ``ssa_privacy.estimation``:

- :mod:`ssa_privacy.estimation.kalman`
- :mod:`ssa_privacy.estimation.ukf`
- :mod:`ssa_privacy.estimation.ekf`
- :mod:`ssa_privacy.estimation.contact_noise`
- :mod:`ssa_privacy.estimation.contact_update`
- :mod:`ssa_privacy.estimation.consistency`
- :mod:`ssa_privacy.estimation.orbit_determination`
- :mod:`ssa_privacy.estimation.contacts`
- :mod:`ssa_privacy.estimation.tracking`
"""

from ssa_privacy.estimation import (
    consistency,
    contact_noise,
    contact_update,
    contacts,
    ekf,
    kalman,
    orbit_determination,
    tracking,
    ukf,
)
from ssa_privacy.estimation.consistency import *  # noqa: F403
from ssa_privacy.estimation.contact_noise import *  # noqa: F403
from ssa_privacy.estimation.contact_update import *  # noqa: F403
from ssa_privacy.estimation.contacts import *  # noqa: F403
from ssa_privacy.estimation.ekf import *  # noqa: F403
from ssa_privacy.estimation.kalman import *  # noqa: F403
from ssa_privacy.estimation.orbit_determination import *  # noqa: F403
from ssa_privacy.estimation.tracking import *  # noqa: F403
from ssa_privacy.estimation.ukf import *  # noqa: F403

__all__ = [
    *kalman.__all__,
    *ukf.__all__,
    *ekf.__all__,
    *contact_noise.__all__,
    *contact_update.__all__,
    *consistency.__all__,
    *orbit_determination.__all__,
    *contacts.__all__,
    *tracking.__all__,
]
