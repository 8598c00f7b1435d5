"""GP posterior sampling with a Renyi-DP guarantee [MAC]: the mechanism, its bound,
certificate and enclosures.

Every public name of the modules below is importable from ``ssa_privacy.privacy.posterior_sampling``:

- :mod:`ssa_privacy.privacy.posterior_sampling.mechanism`
- :mod:`ssa_privacy.privacy.posterior_sampling.bound`
- :mod:`ssa_privacy.privacy.posterior_sampling.certificate`
- :mod:`ssa_privacy.privacy.posterior_sampling.enclosure`
- :mod:`ssa_privacy.privacy.posterior_sampling.paths`
- :mod:`ssa_privacy.privacy.posterior_sampling.divergence`
"""

from ssa_privacy.privacy.posterior_sampling import (
    bound,
    certificate,
    divergence,
    enclosure,
    mechanism,
    paths,
)
from ssa_privacy.privacy.posterior_sampling.bound import *  # noqa: F403
from ssa_privacy.privacy.posterior_sampling.certificate import *  # noqa: F403
from ssa_privacy.privacy.posterior_sampling.divergence import *  # noqa: F403
from ssa_privacy.privacy.posterior_sampling.enclosure import *  # noqa: F403
from ssa_privacy.privacy.posterior_sampling.mechanism import *  # noqa: F403
from ssa_privacy.privacy.posterior_sampling.paths import *  # noqa: F403

__all__ = [
    *mechanism.__all__,
    *bound.__all__,
    *certificate.__all__,
    *enclosure.__all__,
    *paths.__all__,
    *divergence.__all__,
]
