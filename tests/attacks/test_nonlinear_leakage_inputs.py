"""Bad input to the attacks of ``attacks.nonlinear_leakage``, ``nonlinear_evidence``,
``nonlinear_restoration`` and ``membership``: each a one-line error naming the argument.

The silent wrong answers it closes: a noise covariance given as booleans, complex numbers
or an asymmetric matrix was symmetrized and used; ``linear_leakage`` of outcomes of the
wrong width.
"""

import numpy as np
from corpus import Corpus

from ssa_privacy.attacks.membership import release_statistics
from ssa_privacy.attacks.nonlinear_evidence import importance_log_evidence
from ssa_privacy.attacks.nonlinear_leakage import linear_leakage, nonlinear_pml
from ssa_privacy.attacks.nonlinear_restoration import remainder_samples

rng = np.random.default_rng(0)
M = 8
C = rng.standard_normal((M, 6))
G0 = rng.standard_normal(M)
S = 4.0 * np.eye(M)
SIGMA = np.diag([0.5, 0.8, 1.2, 1e-3, 1e-3, 1e-3]) ** 2


def g_batch(X):
    return G0 + X @ C.T


def jacobian_batch(X):
    return g_batch(X), np.broadcast_to(C, (len(X), M, 6)).copy()


ASYMMETRIC = S + np.triu(np.ones((M, M)), 1)
corpus = Corpus()
case = corpus.case
pml = {
    "g_batch": g_batch,
    "jacobian_batch": jacobian_batch,
    "Sigma_XX": SIGMA,
    "noise_covariance": S,
    "epsilon": 10.0,
    "samples": 5,
    "seed": 0,
}
for name in ("g_batch", "jacobian_batch"):
    case(f"nonlinear_pml-{name}", nonlinear_pml, {**pml, name: None}, TypeError, name)
for label, noise, exception in (
    ("bool", S > 0, TypeError),
    ("complex", S + 0j, TypeError),
    ("asymmetric", ASYMMETRIC, ValueError),
    ("str", "S", TypeError),
):
    case(
        f"nonlinear_pml-noise_covariance={label}",
        nonlinear_pml,
        {**pml, "noise_covariance": noise},
        exception,
        "noise_covariance",
    )
ev = {
    "g_batch": g_batch,
    "y": G0,
    "noise_covariance": S,
    "Sigma_XX": SIGMA,
    "mean": np.zeros(6),
    "covariance": SIGMA,
    "draws": 20,
    "seed": 0,
}
case(
    "importance_log_evidence-g_batch",
    importance_log_evidence,
    {**ev, "g_batch": 1.0},
    TypeError,
    "g_batch",
)
case(
    "importance_log_evidence-noise_covariance",
    importance_log_evidence,
    {**ev, "noise_covariance": ASYMMETRIC},
    ValueError,
    "noise_covariance",
)
case(
    "importance_log_evidence-covariance=bool",
    importance_log_evidence,
    {**ev, "covariance": SIGMA > 0},
    TypeError,
    "covariance",
)
case(
    "importance_log_evidence-covariance=shape",
    importance_log_evidence,
    {**ev, "covariance": SIGMA[:5, :5]},
    ValueError,
    "covariance",
)
corpus.numbers(
    "importance_log_evidence", importance_log_evidence, ev, "inflation", bad=(("zero", 0.0),)
)
corpus.numbers(
    "importance_log_evidence",
    importance_log_evidence,
    {**ev, "df": 3.0},
    "df",
    bad=(("zero", 0.0),),
    types=(("str", "3"), ("complex", 3j)),
)
rs = {"g_batch": g_batch, "C": C, "Sigma_XX": SIGMA, "delta": 0.01, "count": 5, "seed": 0}
case("remainder_samples-g_batch", remainder_samples, {**rs, "g_batch": "g"}, TypeError, "g_batch")
case("linear_leakage-B=None", linear_leakage, {"B": None, "z": np.ones((1, 3))}, TypeError, "B")
case(
    "linear_leakage-B=empty",
    linear_leakage,
    {"B": np.zeros((0, 3)), "z": np.ones((1, 0))},
    ValueError,
    "B",
)
case(
    "linear_leakage-z=width",
    linear_leakage,
    {"B": np.eye(3), "z": np.ones((2, 4))},
    ValueError,
    "z",
)
case("linear_leakage-z=1d", linear_leakage, {"B": np.eye(3), "z": np.ones(3)}, ValueError, "z")
case(
    "release_statistics-sigma=str",
    release_statistics,
    {"values": np.ones((2, 3)), "sigma": "1"},
    TypeError,
    "sigma",
)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


def test_release_statistics_of_a_huge_sigma_is_a_tiny_variance_ratio():
    """v_hat / sigma^2 (the mean squared deviation, 1 here) without forming sigma^2, which
    overflows at 1e300: the ratio 1e-600 underflows to 0 instead of an OverflowError."""
    values = np.array([[1.0, 3.0]])
    assert release_statistics(values, 1e300)[1][0] == 0.0
    np.testing.assert_allclose(release_statistics(values, 2.0)[1], [0.25])
