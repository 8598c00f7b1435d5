"""Privacy-aware GP regression by optimal synthetic noise [TCB]: the mechanism, its design,
certificate, Lanczos bounds and tightening.

Every public name of the modules below is importable from ``ssa_privacy.privacy.synthetic_noise``:

- :mod:`ssa_privacy.privacy.synthetic_noise.mechanism`
- :mod:`ssa_privacy.privacy.synthetic_noise.design`
- :mod:`ssa_privacy.privacy.synthetic_noise.certificate`
- :mod:`ssa_privacy.privacy.synthetic_noise.lanczos`
- :mod:`ssa_privacy.privacy.synthetic_noise.tightening`
"""

from ssa_privacy.privacy.synthetic_noise import certificate, design, lanczos, mechanism, tightening
from ssa_privacy.privacy.synthetic_noise.certificate import *  # noqa: F403
from ssa_privacy.privacy.synthetic_noise.design import *  # noqa: F403
from ssa_privacy.privacy.synthetic_noise.lanczos import *  # noqa: F403
from ssa_privacy.privacy.synthetic_noise.mechanism import *  # noqa: F403
from ssa_privacy.privacy.synthetic_noise.tightening import *  # noqa: F403

__all__ = [
    *mechanism.__all__,
    *design.__all__,
    *certificate.__all__,
    *lanczos.__all__,
    *tightening.__all__,
]
