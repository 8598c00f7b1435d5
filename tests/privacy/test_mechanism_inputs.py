"""Bad input to the shared vocabulary of ``privacy.mechanism``: each a one-line error.

The silent wrong answers it closes: a :class:`FactoredCovariance` with a negative
eigenvalue (it sampled NaN) or eigenvectors that are not orthonormal (its trace was not
that of its matrix), a :class:`Certificate` whose ``passed`` contradicts its margin, and
an object mutated through its arrays.
"""

import numpy as np
import pytest
from corpus import Corpus
from scipy import sparse

from ssa_privacy.privacy.mechanism import (
    Certificate,
    FactoredCovariance,
    as_factored,
    data_vector,
)
from ssa_privacy.privacy.pml.day_noise import BlockDiagonalCovariance

corpus = Corpus()
case = corpus.case
TILTED = np.array([[1.0, 0.1], [0.0, 1.0]])
ROTATION = np.array([[0.6, -0.8], [0.8, 0.6]])

# --- FactoredCovariance --------------------------------------------------------------
fc = {"eigenvalues": np.array([2.0, 1.0]), "eigenvectors": ROTATION}
case(
    "FC-negative-eigenvalue",
    FactoredCovariance,
    {**fc, "eigenvalues": [2.0, -1.0]},
    ValueError,
    "eigenvalues",
)
case(
    "FC-nan-eigenvalue",
    FactoredCovariance,
    {**fc, "eigenvalues": [2.0, np.nan]},
    ValueError,
    "eigenvalues",
)
case(
    "FC-2d-eigenvalues",
    FactoredCovariance,
    {**fc, "eigenvalues": np.eye(2)},
    ValueError,
    "eigenvalues",
)
case(
    "FC-str-eigenvalues", FactoredCovariance, {**fc, "eigenvalues": "12"}, TypeError, "eigenvalues"
)
case(
    "FC-bool-eigenvalues",
    FactoredCovariance,
    {**fc, "eigenvalues": [True, True]},
    TypeError,
    "eigenvalues",
)
case(
    "FC-scaled-eigenvectors",
    FactoredCovariance,
    {**fc, "eigenvectors": 2 * ROTATION},
    ValueError,
    "eigenvectors",
)
case(
    "FC-tilted-eigenvectors",
    FactoredCovariance,
    {**fc, "eigenvectors": TILTED},
    ValueError,
    "eigenvectors",
)
case(
    "FC-many-tilted-eigenvectors",
    FactoredCovariance,
    {
        "eigenvalues": np.ones(12),
        "eigenvectors": np.linalg.qr(np.random.default_rng(0).standard_normal((20, 12)))[0]
        @ (np.eye(12) + 1e-3 * np.triu(np.ones((12, 12)), 1)),
    },
    ValueError,
    "eigenvectors",
)
case(
    "FC-more-columns-than-rows",
    FactoredCovariance,
    {"eigenvalues": np.ones(3), "eigenvectors": np.eye(2, 3)},
    ValueError,
    "eigenvectors",
)
case(
    "FC-columns-not-eigenvalues",
    FactoredCovariance,
    {**fc, "eigenvectors": np.eye(3)},
    ValueError,
    "eigenvectors",
)
case(
    "FC-no-rows",
    FactoredCovariance,
    {"eigenvalues": np.zeros(0), "eigenvectors": np.zeros((0, 0))},
    ValueError,
    "eigenvectors",
)
case(
    "FC-nan-eigenvectors",
    FactoredCovariance,
    {**fc, "eigenvectors": np.full((2, 2), np.nan)},
    ValueError,
    "eigenvectors",
)
case(
    "FC-complex-eigenvectors",
    FactoredCovariance,
    {**fc, "eigenvectors": ROTATION + 0j},
    TypeError,
    "eigenvectors",
)
case("FC-method", FactoredCovariance, {**fc, "method": 3}, TypeError, "method")
case(
    "FC.from_matrix-indefinite",
    FactoredCovariance.from_matrix,
    {"Sigma": -np.eye(2)},
    ValueError,
    "Sigma",
)
case(
    "FC.scaled_identity-n",
    FactoredCovariance.scaled_identity,
    {"variance": 1.0, "n": 2.5},
    ValueError,
    "n",
)
case(
    "FC.scaled_identity-variance",
    FactoredCovariance.scaled_identity,
    {"variance": -1.0, "n": 2},
    ValueError,
    "variance",
)
identity = FactoredCovariance.from_matrix(np.eye(2))
case("FC.scaled-nan", identity.scaled, {"factor": np.nan}, ValueError, "factor")
case("FC.scaled-bool", identity.scaled, {"factor": True}, TypeError, "factor")
case("FC.sample-rng", identity.sample, {"rng": 0}, TypeError, "rng")
case(
    "FC.sample-size",
    identity.sample,
    {"rng": np.random.default_rng(0), "size": 0},
    ValueError,
    "size",
)
case("as_factored-n=bool", as_factored, {"noise": np.eye(2), "n": True}, TypeError, "n")
case("as_factored-n=0", as_factored, {"noise": np.eye(2), "n": 0}, ValueError, "n")
case("as_factored-n=str", as_factored, {"noise": np.eye(2), "n": "2"}, TypeError, "n")
case(
    "as_factored-dimension",
    as_factored,
    {"noise": np.eye(2), "n": 3},
    ValueError,
    "noise_covariance",
)
case("data_vector-n", data_vector, {"data": np.ones(2), "n": "2"}, TypeError, "n")
case("data_vector-length", data_vector, {"data": np.ones(2), "n": 3}, ValueError, "data")

# --- BlockDiagonalCovariance -----------------------------------------------------------
block = FactoredCovariance(np.array([2.0, 1.0]), np.eye(2))
bd = {
    "eigenvalues": np.array([2.0, 1.0]),
    "eigenvectors": sparse.csr_array(np.eye(2)),
    "method": "x",
    "blocks": (block,),
}
case(
    "BD-eigenvalues-not-the-blocks'",
    BlockDiagonalCovariance,
    {**bd, "eigenvalues": np.array([3.0, 1.0])},
    ValueError,
    "eigenvalues",
)
case(
    "BD-eigenvectors-not-the-blocks'",
    BlockDiagonalCovariance,
    {**bd, "eigenvectors": sparse.csr_array(np.eye(3)[:, :2])},
    ValueError,
    "eigenvectors",
)
case(
    "BD-dense-eigenvectors",
    BlockDiagonalCovariance,
    {**bd, "eigenvectors": np.eye(2)},
    TypeError,
    "eigenvectors",
)
case("BD-no-blocks", BlockDiagonalCovariance, {**bd, "blocks": ()}, TypeError, "blocks")
case(
    "BD-block-not-factored",
    BlockDiagonalCovariance,
    {**bd, "blocks": (np.eye(2),)},
    TypeError,
    "blocks[0]",
)
case("BD.of-str", BlockDiagonalCovariance.of, {"blocks": "x", "method": "x"}, TypeError, "blocks")
case(
    "BD.of-None-block",
    BlockDiagonalCovariance.of,
    {"blocks": [block, None], "method": "x"},
    TypeError,
    "blocks[1]",
)

# --- Certificate ------------------------------------------------------------------------
cert = {"notion": "pml", "parameters": {}, "passed": True, "margin": 1.0, "tolerance": 0.5}
case(
    "Certificate-passed-with-negative-margin",
    Certificate,
    {**cert, "margin": -1.0},
    ValueError,
    "passed",
)
case(
    "Certificate-passed-within-the-rounding-bound",
    Certificate,
    {**cert, "margin": 0.0, "tolerance": 1e-12},
    ValueError,
    "passed",
)
case(
    "Certificate-passed-margin-below-tolerance",
    Certificate,
    {**cert, "margin": 0.4, "tolerance": 0.5},
    ValueError,
    "passed",
)
case(
    "Certificate-failed-with-a-proven-margin",
    Certificate,
    {**cert, "passed": False},
    ValueError,
    "passed",
)
case(
    "Certificate-passed-with-nan-margin",
    Certificate,
    {**cert, "margin": np.nan},
    ValueError,
    "passed",
)
case("Certificate-passed-str", Certificate, {**cert, "passed": "yes"}, TypeError, "passed")
case("Certificate-passed-int", Certificate, {**cert, "passed": 1}, TypeError, "passed")
corpus.numbers("Certificate", Certificate, cert, "margin", finite=False)
corpus.numbers(
    "Certificate",
    Certificate,
    cert,
    "tolerance",
    bad=(("negative", -1e-3), ("nan", np.nan)),
    finite=False,
)
case(
    "Certificate-parameters",
    Certificate,
    {**cert, "parameters": [("epsilon", 1.0)]},
    TypeError,
    "parameters",
)
case("Certificate-evidence", Certificate, {**cert, "evidence": None}, TypeError, "evidence")
case("Certificate-notion", Certificate, {**cert, "notion": "privacy"}, ValueError, "notion")


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_a_certificate_passes_exactly_when_margin_minus_tolerance_is_not_negative():
    """The rule of every certificate: margin 0 passes only with a rounding bound of 0;
    a NaN margin (nothing identified) and a -inf margin with an inf bound fail."""
    assert Certificate("dp", {}, True, 0.0, 0.0).passed
    assert not Certificate("dp", {}, False, 0.0, 1e-15).passed
    assert not Certificate("dp", {}, False, np.nan, np.inf).passed
    assert not Certificate("pml", {}, False, -np.inf, np.inf).passed
    assert Certificate("pml", {}, True, np.inf, 1.0).passed


def test_the_trace_and_samples_of_a_valid_factorisation_are_those_of_its_matrix():
    """Orthonormal eigenvectors: tr Sigma is the sum of the eigenvalues; an eigenvalue
    within round-off below 0 is stored as 0, so sampling never takes a root of a negative."""
    covariance = FactoredCovariance(np.array([2.0, -1e-20]), ROTATION)
    assert covariance.trace == pytest.approx(np.trace(covariance.matrix()), rel=1e-15)
    assert covariance.eigenvalues[1] == 0.0
    draws = covariance.sample(np.random.default_rng(0), size=100)
    assert np.all(np.isfinite(draws))


@pytest.mark.parametrize("attribute", ["eigenvalues", "eigenvectors"])
def test_a_factored_covariance_cannot_be_changed_through_its_arrays(attribute):
    """Frozen means frozen: its rank and trace stay those of its arrays."""
    covariance = FactoredCovariance(np.array([2.0, 1.0]), ROTATION)
    with pytest.raises(ValueError, match="read-only"):
        getattr(covariance, attribute)[0] = -5.0
    assert covariance.trace == 3.0


def test_the_caller_s_array_stays_writable():
    values = np.array([2.0, 1.0])
    FactoredCovariance(values, ROTATION)
    values[0] = 3.0  # only the object's view is locked
    assert values[0] == 3.0


def test_the_corpus_is_large_enough():
    assert len(corpus.cases) >= 50
