"""Bad input to ``estimation.orbit_determination``: each a one-line error naming the
argument (before anything is propagated)."""

import numpy as np
from corpus import Corpus

from ssa_privacy.estimation.orbit_determination import contact_orbit_determination, split_prior

X = np.array([7000.0, 0.0, 0.0, 0.0, 7.546, 0.0])
P = np.diag([1.0, 1.0, 1.0, 1e-6, 1e-6, 1e-6])

corpus = Corpus()
case = corpus.case
case("split_prior-x=None", split_prior, {"x": None, "P": P}, TypeError, "x")
case("split_prior-x=nan", split_prior, {"x": np.full(6, np.nan), "P": P}, ValueError, "x")
case("split_prior-x=2d", split_prior, {"x": X[None], "P": P}, ValueError, "x")
case("split_prior-x=empty", split_prior, {"x": [], "P": P}, ValueError, "x")
case("split_prior-P=shape", split_prior, {"x": X, "P": P[:5, :5]}, ValueError, "P")
case("split_prior-P=indefinite", split_prior, {"x": X, "P": -P}, ValueError, "P")
case(
    "split_prior-P=asymmetric",
    split_prior,
    {"x": X, "P": P + np.triu(np.ones((6, 6)), 1)},
    ValueError,
    "P",
)
case("split_prior-P=complex", split_prior, {"x": X, "P": P + 0j}, TypeError, "P")
od = {"model": None, "x_prior": X[None], "P_prior": P[None], "contact": None, "tolerance": 1e-9}
corpus.flags("contact_orbit_determination", contact_orbit_determination, od, "split")
case(
    "contact_orbit_determination-x_prior=1d",
    contact_orbit_determination,
    {**od, "x_prior": X},
    ValueError,
    "x_prior",
)
case(
    "contact_orbit_determination-x_prior=columns",
    contact_orbit_determination,
    {**od, "x_prior": np.zeros((1, 5))},
    ValueError,
    "x_prior",
)
case(
    "contact_orbit_determination-P_prior=indefinite",
    contact_orbit_determination,
    {**od, "P_prior": -P[None]},
    ValueError,
    "P_prior",
)
case(
    "contact_orbit_determination-P_prior=count",
    contact_orbit_determination,
    {**od, "P_prior": np.array([P, P])},
    ValueError,
    "P_prior",
)
corpus.numbers(
    "contact_orbit_determination",
    contact_orbit_determination,
    od,
    "tolerance",
    bad=(("zero", 0.0),),
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_the_split_keeps_the_mean_and_covariance_of_the_prior():
    """The mixture's first two moments are those of N(x, P)."""
    means, covariances, weights = split_prior(X, P)
    mean = weights @ means
    spread = sum(
        w * (C + np.outer(m - mean, m - mean)) for w, m, C in zip(weights, means, covariances)
    )
    np.testing.assert_allclose(mean, X, rtol=1e-15)
    np.testing.assert_allclose(spread, P, atol=1e-12)
