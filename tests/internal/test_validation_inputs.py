"""The shared validators of ``_internal.validation`` and ``_internal.matrix_validation``
added for the low-level API: counts, NaN where a number may be "not a number",
orthonormal columns and read-only views."""

import numpy as np
import pytest
from corpus import Corpus

from ssa_privacy._internal.matrix_validation import ORTHONORMALITY_TOL, orthonormal_columns
from ssa_privacy._internal.validation import (
    LARGEST_COUNT,
    non_negative_int,
    positive_int,
    read_only,
    scalar,
)

corpus = Corpus()
case = corpus.case
case("positive_int-huge", positive_int, {"value": 10**30, "name": "n"}, ValueError, "n")
case("non_negative_int-huge", non_negative_int, {"value": 2**54, "name": "k"}, ValueError, "k")
case("scalar-nan", scalar, {"value": np.nan, "name": "x"}, ValueError, "x")
case(
    "scalar-nan-integer",
    scalar,
    {"value": np.nan, "name": "x", "integer": True, "allow_nan": True},
    ValueError,
    "x",
)
Q = np.linalg.qr(np.random.default_rng(0).standard_normal((30, 20)))[0]
for label, U in (
    ("scaled-column", Q * np.r_[np.ones(19), 1.0 + 1e-3]),
    ("tilted", Q @ (np.eye(20) + 1e-4 * np.triu(np.ones((20, 20)), 1))),
    ("too-many-columns", np.eye(3, 4)),
    ("nan", np.full((3, 2), np.nan)),
    ("1d", np.ones(3)),
):
    case(
        f"orthonormal_columns-{label}",
        orthonormal_columns,
        {"value": U, "name": "U"},
        ValueError,
        "U",
    )


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_counts_up_to_two_to_the_53_are_accepted():
    assert positive_int(LARGEST_COUNT, "n") == 2**53
    assert non_negative_int(0, "k") == 0


def test_a_nan_is_returned_only_where_asked_for():
    assert np.isnan(scalar(np.nan, "margin", allow_nan=True))


def test_computed_orthonormal_columns_are_accepted():
    """QR, eigenvectors and their subsets: off by n u, far below the tolerance."""
    assert orthonormal_columns(Q, "U") is not None
    assert orthonormal_columns(np.linalg.eigh(np.cov(Q))[1][:, -5:], "U").shape == (30, 5)
    assert orthonormal_columns(np.zeros((3, 0)), "U").shape == (3, 0)
    assert ORTHONORMALITY_TOL <= 1e-6


def test_a_read_only_view_locks_the_view_only():
    array = np.arange(3.0)
    view = read_only(array)
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 5.0
    array[0] = 5.0
    assert view[0] == 5.0
