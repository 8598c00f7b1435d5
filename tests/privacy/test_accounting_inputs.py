"""``privacy.accounting``: the largest meaningful PML budget, and bad input to the
accounting functions (each a one-line error naming the argument).

The largest meaningful budget is a theorem about floating point: a release whose noise
has ``u^2`` times the signal's variance in each of its l canonical directions leaks
``w l log(1 + 1/u^2) / 2 + F^{-1}_{chi^2_l}(1 - delta) / 2`` ([LKC] Theorem 3.3, (8));
a larger budget would ask for noise below the rounding of the signal in some direction.
"""

import numpy as np
import pytest
from corpus import Corpus

from ssa_privacy.privacy import accounting
from ssa_privacy.privacy.accounting import (
    SMALLEST_NOISE_RATIO,
    design_epsilon,
    maximum_epsilon,
    maximum_information,
    minimum_epsilon,
    pml_to_dp_delta,
)
from ssa_privacy.privacy.pml.stream import stream_leakage

DELTA = 0.01


@pytest.mark.parametrize("convention", ["exact", "paper"])
@pytest.mark.parametrize("l", [1, 2, 6])
def test_the_largest_budget_is_the_leakage_of_noise_at_the_rounding_of_the_signal(l, convention):
    """The stream leakage of a release with signal-to-noise ratio 1/u^2 in each of l
    directions (information J = diag(1/u^2) on a unit prior) is maximum_epsilon."""
    J = np.diag(np.full(l, 1.0 / SMALLEST_NOISE_RATIO))
    leakage = stream_leakage(np.eye(l), J, DELTA, convention)
    assert leakage.epsilon == pytest.approx(maximum_epsilon(DELTA, l, convention), rel=1e-12)
    assert maximum_information(l) == pytest.approx(l * 53 * np.log(2), rel=1e-12)


def test_a_design_aims_at_the_budget_or_at_the_largest_meaningful_one():
    largest = maximum_epsilon(DELTA, 6)
    assert design_epsilon(20.0, DELTA, 6) == 20.0
    assert design_epsilon(1e300, DELTA, 6) == largest
    np.testing.assert_array_equal(
        design_epsilon(np.array([20.0, 1e4]), DELTA, np.array([6, 1])),
        [20.0, maximum_epsilon(DELTA, 1)],
    )
    assert largest == pytest.approx(6 * 53 * np.log(2) + minimum_epsilon(DELTA, 6), rel=1e-12)


def test_a_pml_budget_too_large_for_any_noise_implies_no_dp():
    """(18) of [LKC]: as epsilon grows the noise the guarantee allows goes to 0 and the
    implied DP delta to 1; past the overflow of the ratio it is 1 exactly."""
    Sigma = np.diag([1.0, 2.0])
    deltas = [pml_to_dp_delta(Sigma, e, DELTA, 1, 1.0, 1.0) for e in (3.6, 4.0, 1e300)]
    assert deltas[0] < deltas[1] < deltas[2] == 1.0


corpus = Corpus()
case = corpus.case
case("minimum_epsilon-l=huge", minimum_epsilon, {"delta": DELTA, "l": 10**30}, ValueError, "l")
case("maximum_epsilon-l=0", maximum_epsilon, {"delta": DELTA, "l": 0}, ValueError, "l")
case("maximum_epsilon-l=huge", maximum_epsilon, {"delta": DELTA, "l": 10**30}, ValueError, "l")
case(
    "maximum_epsilon-convention",
    maximum_epsilon,
    {"delta": DELTA, "l": 2, "convention": "tight"},
    ValueError,
    "convention",
)
corpus.numbers(
    "maximum_epsilon",
    maximum_epsilon,
    {"delta": DELTA, "l": 2},
    "delta",
    bad=(("0", 0.0), ("1", 1.0)),
    types=(("str", "0.1"), ("None", None)),
)
case("maximum_information-l=2.5", maximum_information, {"l": 2.5}, ValueError, "l")
case("maximum_information-l=str", maximum_information, {"l": "2"}, TypeError, "l")
case(
    "check_epsilon-l=huge",
    accounting.check_epsilon,
    {"epsilon": 20.0, "delta": DELTA, "l": 10**30},
    ValueError,
    "l",
)
de = {"epsilon": 20.0, "delta": DELTA, "l": 6}
corpus.numbers(
    "design_epsilon",
    design_epsilon,
    de,
    "epsilon",
    bad=(("floor", 8.0), ("negative", -1.0)),
    types=(("str", "20"), ("None", None)),
)
case(
    "design_epsilon-name",
    design_epsilon,
    {**de, "epsilon": 1.0, "name": "epsilon_day"},
    ValueError,
    "epsilon_day",
)
pd = {
    "Sigma_XX": np.diag([1.0, 2.0]),
    "epsilon": 10.0,
    "delta": DELTA,
    "l": 1,
    "epsilon_DP": 1.0,
    "zeta": 1.0,
}
corpus.numbers("pml_to_dp_delta", pml_to_dp_delta, pd, "l", bad=(("0", 0), ("fraction", 1.5)))
case("pml_to_dp_delta-l=array", pml_to_dp_delta, {**pd, "l": np.array([1, 2])}, TypeError, "l")


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()
