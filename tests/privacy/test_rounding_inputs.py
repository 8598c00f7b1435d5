"""Bad input to ``privacy.rounding``: each a one-line error naming the argument.

The rigorous bounds hold for the finite real matrices and counts they document; before,
``gamma(True)``, ``chi2_quantile_enclosure("0.5", 2.5)`` (a string read as 0.5, 2.5 read
as 2) and a complex matrix (its imaginary part dropped) returned numbers.
"""

import numpy as np
from corpus import Corpus

from ssa_privacy.privacy import rounding

corpus = Corpus()
case = corpus.case
corpus.numbers(
    "gamma", rounding.gamma, {}, "k", bad=(("negative", -1), ("fraction", 2.5), ("too-many", 2**52))
)
MATRICES = {
    "cholesky_lower_bound": "A",
    "proven_lambda_min": "A",
    "rowsum": "A",
    "colsum": "A",
    "abs_norm2_squared": "L",
    "orthogonality_defect": "Q",
    "singular_value_enclosure": "K",
}
for function, argument in MATRICES.items():
    call = getattr(rounding, function)
    case(f"{function}-None", call, {argument: None}, TypeError, argument)
    case(f"{function}-str", call, {argument: "A"}, TypeError, argument)
    case(f"{function}-complex", call, {argument: np.eye(2) + 0j}, TypeError, argument)
    case(f"{function}-nan", call, {argument: np.full((2, 2), np.nan)}, ValueError, argument)
    case(f"{function}-1d", call, {argument: np.ones(3)}, ValueError, argument)
for function in ("cholesky_lower_bound", "proven_lambda_min"):
    call = getattr(rounding, function)
    case(f"{function}-non-square", call, {"A": np.ones((2, 3))}, ValueError, "A")
    case(f"{function}-asymmetric", call, {"A": np.array([[1.0, 2.0], [0.0, 1.0]])}, ValueError, "A")
case(
    "proven_lambda_min-empty", rounding.proven_lambda_min, {"A": np.zeros((0, 0))}, ValueError, "A"
)
ce = {"delta": 0.01, "l": 3}
corpus.numbers(
    "chi2_quantile_enclosure",
    rounding.chi2_quantile_enclosure,
    ce,
    "delta",
    bad=(("0", 0.0), ("1", 1.0), ("negative", -0.5)),
)
corpus.numbers(
    "chi2_quantile_enclosure",
    rounding.chi2_quantile_enclosure,
    ce,
    "l",
    bad=(("0", 0), ("fraction", 2.5)),
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_a_stored_matrix_is_bounded_as_stored():
    """An asymmetry at round-off is accepted and the matrix used as stored: the bound is
    that of the Cholesky factorisation of its lower triangle (Rump 2006)."""
    A = np.array([[2.0, 1.0], [1.0 + 1e-15, 2.0]])
    assert rounding.proven_lambda_min(A) <= 1.0 + 1e-15
    assert rounding.proven_lambda_min(A) > 0.5
