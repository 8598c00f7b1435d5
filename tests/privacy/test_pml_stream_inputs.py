"""Bad input to ``privacy.pml.stream``: each a one-line error naming the argument.

The silent wrong answer it closes: a :class:`ReleaseStream` built on a non-square factor
(its information ``R^T R`` had another dimension than the stream claimed).
"""

import numpy as np
import pytest
from corpus import Corpus

from ssa_privacy.privacy.pml.stream import (
    ReleaseStream,
    stream_certificate,
    stream_information,
    stream_leakage,
    stream_leakage_probability,
)

corpus = Corpus()
case = corpus.case
rng = np.random.default_rng(0)
C = rng.standard_normal((3, 2, 4))
THETA = np.eye(2)
SIGMA = np.diag([1.0, 2.0, 0.5, 1.0])
STREAM = ReleaseStream.of(C, THETA)

rs = {"factor": np.eye(4), "releases": 1, "rows": 2}
case(
    "ReleaseStream-non-square-factor",
    ReleaseStream,
    {**rs, "factor": np.ones((3, 4))},
    ValueError,
    "factor",
)
case(
    "ReleaseStream-empty-factor",
    ReleaseStream,
    {**rs, "factor": np.zeros((0, 0))},
    ValueError,
    "factor",
)
case("ReleaseStream-1d-factor", ReleaseStream, {**rs, "factor": np.ones(4)}, ValueError, "factor")
case(
    "ReleaseStream-nan-factor",
    ReleaseStream,
    {**rs, "factor": np.full((4, 4), np.nan)},
    ValueError,
    "factor",
)
case("ReleaseStream-str-factor", ReleaseStream, {**rs, "factor": "R"}, TypeError, "factor")
case("ReleaseStream-None-factor", ReleaseStream, {**rs, "factor": None}, TypeError, "factor")
case("ReleaseStream-releases=-1", ReleaseStream, {**rs, "releases": -1}, ValueError, "releases")
case("ReleaseStream-releases=1.5", ReleaseStream, {**rs, "releases": 1.5}, ValueError, "releases")
case("ReleaseStream-releases=bool", ReleaseStream, {**rs, "releases": True}, TypeError, "releases")
case("ReleaseStream-rows-below-releases", ReleaseStream, {**rs, "releases": 3}, ValueError, "rows")
case("ReleaseStream-rows-without-release", ReleaseStream, {**rs, "releases": 0}, ValueError, "rows")
case("ReleaseStream-rows=str", ReleaseStream, {**rs, "rows": "2"}, TypeError, "rows")
case("ReleaseStream.empty-n=0", ReleaseStream.empty, {"n": 0}, ValueError, "n")
case("ReleaseStream.empty-n=str", ReleaseStream.empty, {"n": "4"}, TypeError, "n")
case("ReleaseStream.of-C=1d", ReleaseStream.of, {"C": np.ones(4), "Theta": THETA}, ValueError, "C")
case(
    "ReleaseStream.of-C=nan",
    ReleaseStream.of,
    {"C": np.full((2, 4), np.nan), "Theta": THETA},
    ValueError,
    "C",
)
case(
    "ReleaseStream.of-Theta=indefinite",
    ReleaseStream.of,
    {"C": C, "Theta": -THETA},
    ValueError,
    "Theta",
)
case(
    "ReleaseStream.of-Theta=shape",
    ReleaseStream.of,
    {"C": C, "Theta": np.eye(3)},
    ValueError,
    "Theta",
)
case(
    "ReleaseStream.of-Theta=asymmetric",
    ReleaseStream.of,
    {"C": C, "Theta": np.array([[1.0, 0.5], [0.0, 1.0]])},
    ValueError,
    "Theta",
)
case(
    "ReleaseStream.add-columns", STREAM.add, {"C": np.ones((2, 3)), "Theta": THETA}, ValueError, "C"
)
case(
    "ReleaseStream.epsilon-delta=0",
    STREAM.epsilon,
    {"Sigma_XX": SIGMA, "delta": 0.0},
    ValueError,
    "delta",
)
case(
    "ReleaseStream.epsilon-delta=1",
    STREAM.epsilon,
    {"Sigma_XX": SIGMA, "delta": 1.0},
    ValueError,
    "delta",
)
case(
    "ReleaseStream.epsilon-Sigma_XX",
    STREAM.epsilon,
    {"Sigma_XX": np.eye(3), "delta": 0.1},
    ValueError,
    "Sigma_XX",
)
case(
    "ReleaseStream.epsilon-convention",
    STREAM.epsilon,
    {"Sigma_XX": SIGMA, "delta": 0.1, "convention": "strict"},
    ValueError,
    "convention",
)
case(
    "stream_information-Theta",
    stream_information,
    {"C": C, "Theta": np.zeros((2, 2))},
    ValueError,
    "Theta",
)
sl = {"Sigma_XX": SIGMA, "information": STREAM, "delta": 0.1}
case(
    "stream_leakage-information=indefinite",
    stream_leakage,
    {**sl, "information": -np.eye(4)},
    ValueError,
    "information",
)
case(
    "stream_leakage-information=shape",
    stream_leakage,
    {**sl, "information": np.eye(3)},
    ValueError,
    "information",
)
case(
    "stream_leakage-information=other-stream",
    stream_leakage,
    {**sl, "information": ReleaseStream.empty(3)},
    ValueError,
    "information",
)
case(
    "stream_leakage-Sigma_XX=indefinite",
    stream_leakage,
    {**sl, "Sigma_XX": -SIGMA},
    ValueError,
    "Sigma_XX",
)
corpus.numbers(
    "stream_leakage",
    stream_leakage,
    sl,
    "delta",
    bad=(("0", 0.0), ("1", 1.0), ("2", 2.0)),
    types=(("str", "0.1"), ("None", None)),
)
slp = {"Sigma_XX": SIGMA, "information": STREAM, "epsilon": 5.0}
corpus.numbers(
    "stream_leakage_probability",
    stream_leakage_probability,
    slp,
    "epsilon",
    types=(("str", "5"), ("None", None)),
)
sc = {"Sigma_XX": SIGMA, "stream": STREAM, "epsilon": 20.0, "delta": 0.01}
case(
    "stream_certificate-stream",
    stream_certificate,
    {**sc, "stream": np.eye(4)},
    TypeError,
    "stream",
)
case(
    "stream_certificate-Sigma_XX",
    stream_certificate,
    {**sc, "Sigma_XX": np.eye(3)},
    ValueError,
    "Sigma_XX",
)
corpus.numbers("stream_certificate", stream_certificate, sc, "epsilon")
corpus.numbers("stream_certificate", stream_certificate, sc, "delta", bad=(("0", 0.0), ("1", 1.0)))


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_any_square_factor_gives_the_information_r_transpose_r():
    """J = R^T R for any square R (the add's QR keeps it triangular): the leakage of a
    stream depends on R only through J, so a stream built from a rotated factor leaks the
    same."""
    Q = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    rotated = ReleaseStream(Q @ STREAM.factor, STREAM.releases, STREAM.rows)
    np.testing.assert_allclose(rotated.information, STREAM.information, atol=1e-12)
    assert rotated.epsilon(SIGMA, 0.1) == pytest.approx(STREAM.epsilon(SIGMA, 0.1), rel=1e-12)


def test_a_stream_cannot_be_changed_through_its_factor():
    with pytest.raises(ValueError, match="read-only"):
        STREAM.factor[0, 0] = 0.0


def test_the_corpus_is_large_enough():
    assert len(corpus.cases) >= 40
