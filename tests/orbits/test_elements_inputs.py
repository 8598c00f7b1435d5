"""Bad input to the low-level orbit functions (``orbits.elements``, ``relative_motion``,
``planar``, ``propagator``): each a one-line error naming the argument.

The silent wrong answers it closes: an :class:`OrbitalElements` of ``a = None`` or ``e =
1.5`` (also through ``_replace``), and ``manoeuvre_prior`` of a stack of states (a
(6, 6, 6) "prior").
"""

import numpy as np
from corpus import Corpus

from ssa_privacy.orbits.elements import OrbitalElements, elements_to_state, state_to_elements
from ssa_privacy.orbits.planar import PlanarJ2Model
from ssa_privacy.orbits.propagator import J2Propagator
from ssa_privacy.orbits.relative_motion import manoeuvre_prior

ELEMENTS = {"a": 7000.0, "e": 0.01, "i": 1.0, "raan": 0.1, "argp": 0.2, "nu": 0.3}
STATE = elements_to_state(**ELEMENTS)

corpus = Corpus()
case = corpus.case
for name in ELEMENTS:
    corpus.numbers(
        "OrbitalElements",
        OrbitalElements,
        ELEMENTS,
        name,
        types=(("str", "1"), ("None", None), ("complex", 1j)),
    )
case("OrbitalElements-a=0", OrbitalElements, {**ELEMENTS, "a": 0.0}, ValueError, "a")
case("OrbitalElements-e=1.5", OrbitalElements, {**ELEMENTS, "e": 1.5}, ValueError, "e")
case("OrbitalElements-e=-0.1", OrbitalElements, {**ELEMENTS, "e": -0.1}, ValueError, "e")
case(
    "OrbitalElements-shapes",
    OrbitalElements,
    {**ELEMENTS, "a": [7000.0, 8000.0], "e": [0.1, 0.2, 0.3]},
    ValueError,
    "elements",
)
case("OrbitalElements._replace", OrbitalElements(**ELEMENTS)._replace, {"e": 2.0}, ValueError, "e")
mp = {"state": STATE, "mean_motion": 1e-3}
for label, state, exception in (
    ("stack", np.array([STATE, STATE]), ValueError),
    ("5-entries", STATE[:5], ValueError),
    ("None", None, TypeError),
    ("nan", np.full(6, np.nan), ValueError),
):
    case(
        f"manoeuvre_prior-state={label}",
        manoeuvre_prior,
        {**mp, "state": state},
        exception,
        "state",
    )
corpus.numbers("manoeuvre_prior", manoeuvre_prior, mp, "mean_motion", bad=(("zero", 0.0),))
model = PlanarJ2Model()
case("PlanarJ2Model.propagate-times=empty", model.propagate, {"times": []}, ValueError, "times")
case(
    "PlanarJ2Model.propagate-times=decreasing",
    model.propagate,
    {"times": [1.0, 0.0]},
    ValueError,
    "times",
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_valid_elements_are_kept_and_read_back_from_their_state():
    elements = OrbitalElements(**ELEMENTS)
    assert elements == tuple(ELEMENTS.values()) and isinstance(elements.a, float)
    np.testing.assert_allclose(state_to_elements(STATE), tuple(ELEMENTS.values()), rtol=1e-9)


def test_no_elapsed_time_gives_the_initial_state():
    """A grid of one time (or of equal times) integrates nothing."""
    np.testing.assert_array_equal(model.propagate([0.0]), model.initial_state()[None])
    np.testing.assert_array_equal(
        model.propagate([2.0, 2.0]), np.tile(model.initial_state(), (2, 1))
    )


def test_the_transitions_of_no_object_are_empty():
    paths, Phi = J2Propagator().propagate_with_transition([0.0, 60.0], np.zeros((0, 6)))
    assert paths.shape == (0, 2, 6) and Phi.shape == (0, 2, 6, 6)
