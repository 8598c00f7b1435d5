"""The shared vocabulary: factored covariances, certificates, notions, seeds."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ssa_privacy._internal.random import random_generator
from ssa_privacy.privacy.mechanism import (
    Certificate,
    FactoredCovariance,
    as_factored,
    data_vector,
    generator,
)
from ssa_privacy.privacy.notions import Notion


def _low_rank(n, r, seed):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((n, r))
    return F @ F.T


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 8), st.integers(0, 8), st.integers(0, 2**32 - 1))
def test_from_matrix_keeps_rank_and_reconstructs(n, r, seed):
    """Sigma = U diag(lambda) U^T with rank(Sigma) positive eigenpairs, orthonormal U."""
    r = min(r, n)
    Sigma = _low_rank(n, r, seed)
    factored = FactoredCovariance.from_matrix(Sigma)
    assert factored.rank == np.linalg.matrix_rank(Sigma)
    assert factored.dim == n
    np.testing.assert_allclose(factored.matrix(), Sigma, atol=1e-10 * max(1.0, np.abs(Sigma).max()))
    np.testing.assert_allclose(
        factored.eigenvectors.T @ factored.eigenvectors, np.eye(factored.rank), atol=1e-10
    )
    assert factored.trace == pytest.approx(np.trace(Sigma), rel=1e-10, abs=1e-12)


def test_samples_have_the_covariance_within_monte_carlo_error():
    """Each entry of the sample covariance lies within 5 standard errors of Sigma."""
    Sigma = _low_rank(4, 2, 1) + 0.1 * np.eye(4)
    factored = FactoredCovariance.from_matrix(Sigma)
    draws = factored.sample(np.random.default_rng(2), size=200_000)
    estimate = draws.T @ draws / len(draws)
    # Var of x_i x_j for a Gaussian is Sigma_ii Sigma_jj + Sigma_ij^2.
    se = np.sqrt((np.outer(np.diag(Sigma), np.diag(Sigma)) + Sigma**2) / len(draws))
    assert np.all(np.abs(estimate - Sigma) < 5 * se)


def test_scaled_multiplies_the_covariance():
    Sigma = _low_rank(3, 3, 0)
    factored = FactoredCovariance.from_matrix(Sigma).scaled(0.5)
    np.testing.assert_allclose(factored.matrix(), 0.5 * Sigma, atol=1e-12)
    with pytest.raises(ValueError, match="factor"):
        FactoredCovariance.from_matrix(Sigma).scaled(-1.0)


def test_scaled_identity_and_its_zero_variance():
    assert FactoredCovariance.scaled_identity(2.0, 3).trace == pytest.approx(6.0)
    assert FactoredCovariance.scaled_identity(0.0, 3).rank == 0
    assert FactoredCovariance.scaled_identity(0.0, 3).sample(np.random.default_rng(0)).shape == (3,)


@pytest.mark.parametrize(
    "matrix, message",
    [
        (np.diag([1.0, -1.0]), "not positive semi-definite"),
        (np.array([[1.0, 2.0], [0.0, 1.0]]), "symmetric"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "Sigma"),
    ],
)
def test_from_matrix_rejects_bad_covariances(matrix, message):
    with pytest.raises(ValueError, match=message):
        FactoredCovariance.from_matrix(matrix)


def test_as_factored_checks_the_dimension():
    with pytest.raises(ValueError, match="noise_covariance is 2x2, expected 3x3"):
        as_factored(np.eye(2), 3)


def test_generator_records_the_seed_and_reproduces():
    rng, keys = generator(7)
    assert keys == {"seed": 7}
    assert rng.standard_normal() == np.random.default_rng(7).standard_normal()
    assert generator(None)[1] == {"seed": None}
    sequence = np.random.SeedSequence(3).spawn(2)[1]
    assert generator(sequence)[1] == {"seed": 3, "spawn_key": [1]}
    passed = np.random.default_rng(0)
    assert generator(passed)[0] is passed


@pytest.mark.parametrize("seed", [1.5, True, "0", [], [1, 2.0], [True]])
def test_generator_rejects_other_seeds(seed):
    with pytest.raises(TypeError, match="seed"):
        generator(seed)


@pytest.mark.parametrize("seed", [-1, [3, -1]])
def test_generator_rejects_negative_seeds(seed):
    with pytest.raises(ValueError, match="seed"):
        generator(seed)


def test_one_seed_helper_gives_every_caller_the_same_stream():
    """A mechanism, a validated function and a study task draw the same numbers from the
    same seed keys: ``default_rng(list(keys))``."""
    keys = (12, 3, 0)
    rng, record = generator(keys)
    assert record == {"seed": [12, 3, 0]}
    expected = np.random.default_rng([12, 3, 0]).standard_normal(4)
    np.testing.assert_array_equal(rng.standard_normal(4), expected)
    np.testing.assert_array_equal(random_generator(list(keys)).standard_normal(4), expected)
    assert random_generator(7).integers(2**63) == np.random.default_rng(7).integers(2**63)


def test_fresh_entropy_differs_between_calls():
    """Without a seed, two draws coincide with probability zero."""
    assert generator(None)[0].standard_normal() != generator(None)[0].standard_normal()


@pytest.mark.parametrize("notion", list(Notion))
def test_certificate_notion_is_typed_and_reads_as_its_string(notion):
    certificate = Certificate(notion.value, {}, True, 0.0)
    assert certificate.notion is notion
    assert certificate.notion == notion.value
    assert json.dumps(certificate.record()) == json.dumps({"notion": notion.value, **_FLAGS})


_FLAGS = {"passed": True, "margin": 0.0, "tolerance": 0.0}


def test_certificate_refuses_an_unknown_notion():
    with pytest.raises(ValueError, match="'isotropic' is not a privacy notion; use one of"):
        Certificate("isotropic", {}, True, 0.0)
    with pytest.raises(TypeError, match="notion"):
        Certificate(None, {}, True, 0.0)


def test_certificate_record_is_flat():
    certificate = Certificate("dp", {"epsilon": 1.0, "delta": 1e-3}, True, 1e-4, 1e-12, {"m": 0.3})
    row = certificate.record()
    assert row == {
        "notion": "dp",
        "epsilon": 1.0,
        "delta": 1e-3,
        "passed": True,
        "margin": 1e-4,
        "tolerance": 1e-12,
        "evidence_m": 0.3,
    }


def test_data_vector_names_the_argument():
    with pytest.raises(ValueError, match="y has 2 entries but the mechanism releases 3"):
        data_vector([1.0, 2.0], 3, "y")
    with pytest.raises(ValueError, match="y"):
        data_vector([1.0, np.inf, 2.0], 3, "y")


def test_gaussian_sample_norm_is_chi_square():
    """||L^{-1} z||^2 over the kept subspace is chi^2 with rank degrees of freedom."""
    factored = FactoredCovariance.from_matrix(_low_rank(5, 3, 4))
    draws = factored.sample(np.random.default_rng(5), size=20_000)
    whitened = (draws @ factored.eigenvectors) / np.sqrt(factored.eigenvalues)
    result = stats.kstest(np.sum(whitened**2, axis=1), stats.chi2(3).cdf)
    assert result.pvalue > 1e-3
