"""The vocabulary every privacy mechanism speaks: design, release, certificate.

A *design step* (a constructor or a ``design_*`` function) turns a model and a privacy
level into a :class:`Mechanism`. Its ``release(data, *, seed=None)`` adds noise to the
data and returns a :class:`Release`: the released values, the noise covariance that
was used (a :class:`FactoredCovariance`), and a :class:`Certificate` that recomputes the
guarantee from that covariance, independently of the code that designed it.

The mechanisms of the package:

==============================  ==========================  ============================
mechanism                       guarantee (``notion``)      paper
==============================  ==========================  ============================
``SyntheticNoiseMechanism``     ``"posterior-covariance"``  [TCB] (5), (8), (11)
``LinearGaussianMechanism``     ``"pml"``                   [LKC] Theorem 3.3, (12)-(15)
``CloakingMechanism``           ``"dp"``                    [SMI] §3
``StandardDPGPMechanism``       ``"dp"``                    [SMI] §2 (Hall et al. 2013)
``LaplaceBinningMechanism``     ``"dp"`` (pure, delta = 0)  [SMI] §4
``PosteriorSamplingMechanism``  ``"renyi-dp"``              [MAC] Theorem 3.1
==============================  ==========================  ============================

The notions are the members of :class:`~ssa_privacy.privacy.notions.Notion`, strings that
a :class:`Certificate` checks when it is made.

Every mechanism also offers ``with_noise(noise_covariance)``: the same mechanism with
another noise covariance, so that an auditor can certify any noise, for example a
deliberately weakened one.
"""

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import (
    PSD_RTOL,
    orthonormal_columns,
    symmetric_matrix,
)
from ssa_privacy._internal.random import random_generator, seed_record
from ssa_privacy._internal.validation import (
    as_finite_array,
    flag,
    non_negative,
    positive,
    positive_int,
    read_only,
    scalar,
)
from ssa_privacy.privacy.notions import Notion, as_notion

__all__ = [
    "Certificate",
    "FactoredCovariance",
    "Mechanism",
    "RANK_RTOL",
    "Release",
    "as_factored",
    "data_vector",
    "generator",
]

#: Eigenvalues at or below this fraction of the largest are dropped by
#: :meth:`FactoredCovariance.from_matrix` (they are round-off of a singular matrix).
RANK_RTOL = 1e-12


@dataclass(frozen=True)
class Certificate:
    """The privacy guarantee of a release, recomputed from the noise it used.

    Parameters
    ----------
    notion : Notion or str
        What is guaranteed (:class:`~ssa_privacy.privacy.notions.Notion`; a string is
        converted): ``"posterior-covariance"`` ([TCB] (5)), ``"pml"`` ([LKC] Definition
        2.2), ``"dp"`` ((epsilon, delta)-differential privacy) or ``"renyi-dp"`` (Renyi
        DP of an order alpha, with its (epsilon, delta) conversion).
    parameters : dict
        The guarantee's parameters, by name: ``alpha`` or ``Delta`` for the posterior
        covariance, ``epsilon`` and ``delta`` (and ``convention``) for PML and DP,
        ``order`` and ``epsilon`` for Renyi DP.
    passed : bool
        True when the guarantee provably holds for the given floating-point inputs:
        ``margin - tolerance >= 0`` (``evidence["rule"]`` states it).
    margin : float
        How far inside the guarantee the release is, in the notion's own units:
        dimensionless for ``"posterior-covariance"`` (the largest fraction mu such that
        (5) still holds with Delta tightened to ``(1 - mu) Delta``); nats for ``"pml"``
        (``epsilon`` minus the (1 - delta)-quantile of the leakage); the target delta
        minus the exact delta for a Gaussian ``"dp"`` release (dimensionless), the
        target epsilon minus the privacy loss for a pure ``"dp"`` one (Laplace bins, the
        exponential mechanism; nats); the target epsilon minus the Renyi bound for
        ``"renyi-dp"`` (nats). Negative means the guarantee fails.
    tolerance : float
        A rigorous bound on the distance from ``margin`` to the exact margin of the
        floating-point inputs (same units), derived from the computation performed
        (:mod:`ssa_privacy.privacy.rounding`); inf when none could be proven.
    evidence : dict
        The named numbers of the computation (e.g. the worst-case Mahalanobis
        sensitivity, the exact delta, the leakage quantile).

    Raises
    ------
    TypeError
        If ``notion`` is not a string, ``parameters`` or ``evidence`` not a dict,
        ``passed`` not a bool, or ``margin`` or ``tolerance`` not a real number.
    ValueError
        If ``notion`` names no :class:`~ssa_privacy.privacy.notions.Notion`,
        ``tolerance`` is negative or NaN, or ``passed`` disagrees with the rule
        ``margin - tolerance >= 0`` (a margin of 0 passes only with a tolerance of 0; a
        NaN margin never passes).
    """

    notion: Notion
    parameters: dict
    passed: bool
    margin: float
    tolerance: float = 0.0
    evidence: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "notion", as_notion(self.notion))
        for name in ("parameters", "evidence"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")
        passed = flag(self.passed, "passed")
        margin = scalar(self.margin, "margin", allow_inf=True, allow_nan=True)
        tolerance = scalar(self.tolerance, "tolerance", low=0.0, allow_inf=True)
        if passed != bool(margin - tolerance >= 0.0):
            raise ValueError(
                f"passed={passed} contradicts margin {margin!r} and tolerance {tolerance!r}: "
                "a certificate passes exactly when margin - tolerance >= 0"
            )
        object.__setattr__(self, "passed", passed)
        object.__setattr__(self, "margin", margin)
        object.__setattr__(self, "tolerance", tolerance)

    def record(self):
        """Return a flat, JSON-ready dict for a results row.

        Returns
        -------
        dict
            ``notion``, the parameters, ``passed``, ``margin``, ``tolerance`` and the
            evidence (keys prefixed ``evidence_``).
        """
        row = {"notion": self.notion, **self.parameters}
        row.update(passed=bool(self.passed), margin=self.margin, tolerance=self.tolerance)
        row.update({f"evidence_{key}": value for key, value in self.evidence.items()})
        return row


@dataclass(frozen=True)
class FactoredCovariance:
    """A positive semi-definite covariance ``Sigma = U diag(eigenvalues) U^T``.

    Only the positive eigenpairs are kept, so sampling and traces cost O(n r) for a
    rank-r noise. Every mechanism's :class:`Release` carries its noise this way.

    Parameters
    ----------
    eigenvalues : ndarray, shape (r,)
        The eigenvalues (squared data units), finite and >= 0; a negative one within
        round-off (``PSD_RTOL`` of the largest) is stored as 0.
    eigenvectors : ndarray, shape (n, r)
        The matching orthonormal eigenvectors, n >= 1 (checked to
        ``ORTHONORMALITY_TOL`` by
        :func:`~ssa_privacy._internal.matrix_validation.orthonormal_columns`).
    method : str
        A label of how the factorisation was obtained, for records (not a privacy
        notion): ``"dense"`` (:meth:`from_matrix`), ``"isotropic"``
        (:meth:`scaled_identity`), ``"partial"`` (subset eigensolver), ``"lanczos"``
        (block Lanczos), ``"nugget"``, or the designer's name.

    Raises
    ------
    TypeError
        If the eigenpairs are not real arrays or ``method`` is not a string.
    ValueError
        On non-finite or negative eigenvalues, eigenvectors of another number of columns
        than eigenvalues, no row, or eigenvectors that are not orthonormal.

    Notes
    -----
    The arrays are stored as read-only views: the object cannot be changed through them,
    so its derived ``rank`` and ``trace`` stay true.
    """

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    method: str = "dense"

    def __post_init__(self):
        values = as_finite_array(self.eigenvalues, "eigenvalues", ndim=1)
        vectors = orthonormal_columns(self.eigenvectors, "eigenvectors")
        if vectors.shape[1] != len(values) or len(vectors) == 0:
            raise ValueError(
                f"eigenvectors must have shape (n, {len(values)}) with n >= 1 to match "
                f"{len(values)} eigenvalues, got {vectors.shape}"
            )
        if values.size and values.min() < 0:
            if values.min() < -PSD_RTOL * np.max(np.abs(values)):
                raise ValueError(f"eigenvalues must be >= 0 (a covariance), got {values.min():.6g}")
            values = np.maximum(values, 0.0)
        if not isinstance(self.method, str):
            raise TypeError(f"method must be a string, got {type(self.method).__name__}")
        object.__setattr__(self, "eigenvalues", read_only(values))
        object.__setattr__(self, "eigenvectors", read_only(vectors))

    @classmethod
    def from_matrix(cls, Sigma, name="Sigma"):
        """Factor a dense symmetric positive semi-definite matrix.

        Parameters
        ----------
        Sigma : array_like, shape (n, n)
            The covariance (squared data units).
        name : str
            The argument's name in error messages.

        Returns
        -------
        FactoredCovariance
            Eigenvalues above ``RANK_RTOL`` times the largest are kept.

        Raises
        ------
        ValueError
            If Sigma is not square, symmetric and finite, or has an eigenvalue below
            ``-1e-8`` times its largest (not positive semi-definite).
        """
        Sigma = symmetric_matrix(Sigma, name)
        values, vectors = linalg.eigh(Sigma)
        scale = max(float(np.max(np.abs(values))) if values.size else 0.0, np.finfo(float).tiny)
        if values.size and values[0] < -1e-8 * scale:
            raise ValueError(f"{name} is not positive semi-definite: eigenvalue {values[0]:.3g}")
        keep = values > RANK_RTOL * scale
        return cls(values[keep], vectors[:, keep], "dense")

    @classmethod
    def scaled_identity(cls, variance, n):
        """``variance * I_n`` in factored form (a variance of 0 gives rank 0).

        Parameters
        ----------
        variance : float
            The variance (squared data units), >= 0.
        n : int
            The dimension.

        Returns
        -------
        FactoredCovariance
            Method ``"isotropic"``.

        Raises
        ------
        TypeError, ValueError
            If variance is not a finite number >= 0 or n not a positive integer.
        """
        variance, n = non_negative(variance, "variance"), positive_int(n, "n")
        if variance == 0:
            return cls(np.zeros(0), np.zeros((n, 0)), "isotropic")
        return cls(np.full(n, float(variance)), np.eye(n), "isotropic")

    @property
    def dim(self):
        """n, the dimension of the data the noise is added to."""
        return self.eigenvectors.shape[0]

    @property
    def rank(self):
        """r, the number of positive eigenvalues kept."""
        return len(self.eigenvalues)

    @property
    def trace(self):
        """``tr Sigma`` (squared data units)."""
        return float(np.sum(self.eigenvalues))

    def matrix(self):
        """Return Sigma as a dense matrix.

        Returns
        -------
        ndarray, shape (n, n)
            ``U diag(lambda) U^T``, symmetrized.
        """
        U = self.eigenvectors
        dense = (U * self.eigenvalues) @ U.T
        return 0.5 * (dense + dense.T)

    def scaled(self, factor):
        """Return ``factor * Sigma``, for example to weaken or strengthen a noise.

        Parameters
        ----------
        factor : float
            The multiplier, finite and > 0.

        Returns
        -------
        FactoredCovariance
            The same eigenvectors, eigenvalues times ``factor``.

        Raises
        ------
        TypeError
            If factor is not a real number (a bool, a string).
        ValueError
            If factor is not finite and positive.
        """
        factor = positive(factor, "factor")
        return FactoredCovariance(factor * self.eigenvalues, self.eigenvectors, self.method)

    def sample(self, rng, size=None):
        """Draw ``Z ~ N(0, Sigma)``.

        Parameters
        ----------
        rng : numpy.random.Generator
            Source of randomness.
        size : int, optional
            Number of independent draws; None for a single draw.

        Returns
        -------
        ndarray, shape (n,) or (size, n)
            ``Z = U (sqrt(lambda) * omega)`` with omega standard normal.

        Raises
        ------
        TypeError
            If rng is not a Generator.
        ValueError
            If size is not None or a positive integer.
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        size = None if size is None else positive_int(size, "size")
        shape = (self.rank,) if size is None else (size, self.rank)
        omega = rng.standard_normal(shape)
        return (np.sqrt(self.eigenvalues) * omega) @ self.eigenvectors.T


def as_factored(noise, n=None, name="noise_covariance"):
    """A :class:`FactoredCovariance` from a factored covariance or a dense matrix.

    Parameters
    ----------
    noise : FactoredCovariance or array_like, shape (n, n)
        The covariance.
    n : int, optional
        Required dimension.
    name : str
        The argument's name in error messages.

    Returns
    -------
    FactoredCovariance
        ``noise`` itself, or the factorisation of the dense matrix.

    Raises
    ------
    ValueError
        If a dense matrix is not symmetric positive semi-definite, or the dimension is
        not n.
    """
    n = None if n is None else positive_int(n, "n")
    factored = noise if isinstance(noise, FactoredCovariance) else None
    if factored is None:
        factored = FactoredCovariance.from_matrix(noise, name)
    if n is not None and factored.dim != n:
        raise ValueError(f"{name} is {factored.dim}x{factored.dim}, expected {n}x{n}")
    return factored


@dataclass(frozen=True)
class Release:
    """What a mechanism released, the noise it used, and the guarantee.

    Parameters
    ----------
    values : ndarray
        The released data (shape documented by each mechanism, data units).
    noise_covariance : FactoredCovariance
        Covariance of the noise that was added (squared data units).
    certificate : Certificate
        The guarantee, recomputed from ``noise_covariance``.
    seed_keys : dict
        The caller's seed as given (``{"seed": ...}``), or ``{"seed": None}`` when fresh
        operating-system entropy was drawn. That entropy is deliberately not kept: with
        it, anyone holding this object could subtract the noise.
    details : dict
        Diagnostics of the computation (jitter, solver statistics, scales).
    """

    values: np.ndarray
    noise_covariance: FactoredCovariance
    certificate: Certificate
    seed_keys: dict
    details: dict = field(default_factory=dict)


@runtime_checkable
class Mechanism(Protocol):
    """What every privacy mechanism offers.

    A mechanism is built by a design step and then releases data. Implementations:
    :class:`~ssa_privacy.privacy.synthetic_noise.mechanism.SyntheticNoiseMechanism`,
    :class:`~ssa_privacy.privacy.pml.design.LinearGaussianMechanism`,
    :class:`~ssa_privacy.privacy.pml.passes.PassMechanism`,
    :class:`~ssa_privacy.privacy.dp_gp.cloaking.CloakingMechanism`,
    :class:`~ssa_privacy.privacy.dp_gp.hall.StandardDPGPMechanism`,
    :class:`~ssa_privacy.privacy.dp_gp.binning.LaplaceBinningMechanism`,
    :class:`~ssa_privacy.privacy.posterior_sampling.mechanism.PosteriorSamplingMechanism`.
    """

    noise_covariance: FactoredCovariance

    def certificate(self) -> Certificate:
        """The guarantee of this mechanism's releases, recomputed from its noise.

        Returns
        -------
        Certificate
            Whether the guarantee holds, with its margin and tolerance.
        """
        ...

    def release(self, data, *, seed=None) -> Release:
        """Add the mechanism's noise to ``data`` and certify the result.

        Parameters
        ----------
        data : array_like
            What the owner releases (its shape is documented by each mechanism).
        seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
            Randomness; None draws fresh operating-system entropy.

        Returns
        -------
        Release
            The released values, the noise covariance and the certificate.
        """
        ...

    def with_noise(self, noise_covariance) -> "Mechanism":
        """The same mechanism with another noise covariance (for audits).

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like
            The noise to certify and release with.

        Returns
        -------
        Mechanism
            A mechanism of the same type and design inputs.
        """
        ...


def generator(seed):
    """A ``numpy.random.Generator`` and the record of where its randomness came from.

    What a mechanism's ``release`` calls: the conversion is
    :func:`ssa_privacy._internal.random.random_generator`, the package's one seed helper,
    so a release draws the same numbers as any other function given the same seed.

    Parameters
    ----------
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        None draws fresh operating-system entropy (the default for anything released).

    Returns
    -------
    rng : numpy.random.Generator
        The generator to draw from.
    seed_keys : dict
        ``{"seed": seed}`` for an int (a list for a sequence), ``{"seed": None}`` for
        fresh entropy, ``{"seed": "generator"}`` for a Generator passed in (its state is
        the caller's), ``{"seed": entropy, "spawn_key": key}`` for a SeedSequence.

    Raises
    ------
    TypeError
        For any other type (a float, a bool, a string).
    ValueError
        For a negative integer.
    """
    return random_generator(seed), seed_record(seed)


def data_vector(data, n, name="data"):
    """Validate a data vector of length n for a release.

    Parameters
    ----------
    data : array_like, shape (n,)
        The data to release.
    n : int
        The mechanism's dimension.
    name : str
        The argument's name in error messages.

    Returns
    -------
    ndarray, shape (n,)
        The data as floats.

    Raises
    ------
    ValueError
        If data is not a finite vector of length n.
    """
    n = positive_int(n, "n")
    data = as_finite_array(data, name, ndim=1)
    if len(data) != n:
        raise ValueError(f"{name} has {len(data)} entries but the mechanism releases {n}")
    return data
