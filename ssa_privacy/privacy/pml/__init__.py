"""Pointwise maximal leakage (PML) of linear Gaussian releases [LKC]: leakage closed forms,
noise design, certificates, streams, pass and day noise, and distributed aggregation.

Every public name of the modules below is importable from ``ssa_privacy.privacy.pml``:

- :mod:`ssa_privacy.privacy.pml.leakage`
- :mod:`ssa_privacy.privacy.pml.certificate`
- :mod:`ssa_privacy.privacy.pml.information_form`
- :mod:`ssa_privacy.privacy.pml.design`
- :mod:`ssa_privacy.privacy.pml.cone_design`
- :mod:`ssa_privacy.privacy.pml.plant`
- :mod:`ssa_privacy.privacy.pml.stream`
- :mod:`ssa_privacy.privacy.pml.stream_design`
- :mod:`ssa_privacy.privacy.pml.passes`
- :mod:`ssa_privacy.privacy.pml.day_noise`
- :mod:`ssa_privacy.privacy.pml.day_design`
- :mod:`ssa_privacy.privacy.pml.aggregation`
"""

from ssa_privacy.privacy.pml import (
    aggregation,
    certificate,
    cone_design,
    day_design,
    day_noise,
    design,
    information_form,
    leakage,
    passes,
    plant,
    stream,
    stream_design,
)
from ssa_privacy.privacy.pml.aggregation import *  # noqa: F403
from ssa_privacy.privacy.pml.certificate import *  # noqa: F403
from ssa_privacy.privacy.pml.cone_design import *  # noqa: F403
from ssa_privacy.privacy.pml.day_design import *  # noqa: F403
from ssa_privacy.privacy.pml.day_noise import *  # noqa: F403
from ssa_privacy.privacy.pml.design import *  # noqa: F403
from ssa_privacy.privacy.pml.information_form import *  # noqa: F403
from ssa_privacy.privacy.pml.leakage import *  # noqa: F403
from ssa_privacy.privacy.pml.passes import *  # noqa: F403
from ssa_privacy.privacy.pml.plant import *  # noqa: F403
from ssa_privacy.privacy.pml.stream import *  # noqa: F403
from ssa_privacy.privacy.pml.stream_design import *  # noqa: F403

__all__ = [
    *leakage.__all__,
    *certificate.__all__,
    *information_form.__all__,
    *design.__all__,
    *cone_design.__all__,
    *plant.__all__,
    *stream.__all__,
    *stream_design.__all__,
    *passes.__all__,
    *day_noise.__all__,
    *day_design.__all__,
    *aggregation.__all__,
]
