"""PML of a whole stream of linear Gaussian releases, and noise designed for the stream.

An adversary who collects a pass, or a day of passes from several stations, holds the
stacked releases ``y_k = C_k x0 + v_k``, ``v_k ~ N(0, Theta_k)`` independent, of the
private ``x0 ~ N(0, Sigma_XX)`` (for a satellite, the manoeuvre deviation at the start of
the window, seen through ``C_k = H_k Phi(t_k, t0)``): one linear Gaussian mechanism ([LKC]
(14)) whose PML is the closed form of [LKC] Theorem 3.3 in the canonical correlations
rho_i of (X, Y). They depend on the stack only through the Fisher information ``J = sum_k
C_k^T Theta_k^{-1} C_k = R^T R`` (n x n): with ``Sigma_XX = L L^T`` and ``lambda_i`` the
squared singular values of ``R L``, ``rho_i^2 = lambda_i / (1 + lambda_i)`` and ``I(X; Y)
= sum_i log(1 + lambda_i) / 2``. A day of measurements thus costs small solves and QR
updates (:class:`ReleaseStream`), never a stacked covariance. Noise designed for a budget
on the whole stream: :mod:`ssa_privacy.privacy.pml.stream_design`. Theory and limits:
:doc:`/theory/pml-stream`.
"""

import functools
from dataclasses import dataclass

import numpy as np
from scipy import linalg, stats

from ssa_privacy._internal.matrix_validation import covariance_stack, pd_cholesky, psd_matrix
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    non_negative_int,
    positive_int,
    read_only,
    unit_interval,
)
from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.privacy.mechanism import FactoredCovariance
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml.information_form import information_certificate
from ssa_privacy.privacy.pml.leakage import EIGENVALUE_TOL

__all__ = [
    "ReleaseStream",
    "StreamLeakage",
    "stream_certificate",
    "stream_information",
    "stream_leakage",
    "stream_leakage_probability",
]


def _maps(C, n=None):
    """C as a validated stack (N, m, n), N, m >= 1 (one map (m, n) becomes N = 1)."""
    C = as_finite_array(C, "C")
    C = C[None] if C.ndim == 2 else C
    if C.ndim != 3 or 0 in C.shape[:2] or (n is not None and C.shape[2] != n):
        columns = "n" if n is None else str(n)
        raise ValueError(f"C must have shape (m, {columns}) or (N, m, {columns}), got {C.shape}")
    return C


def _noise_stack(Theta, name, C):
    """Dense noise covariances (N, m, m) of the releases C, validated; (m, m) broadcasts."""
    N, m = C.shape[:2]
    Theta = covariance_stack(Theta, name, size=m)
    if Theta.ndim == 2:
        return np.broadcast_to(Theta, (N, m, m))
    if Theta.shape != (N, m, m):
        raise ValueError(f"{name} must have shape ({m}, {m}) or ({N}, {m}, {m}), got {Theta.shape}")
    return Theta


def _whitened(C, Theta, name="Theta"):
    """The rows ``L_k^{-1} C_k`` of all releases, shape (sum m_k, n) (Theta_k = L_k L_k^T)."""
    if isinstance(Theta, FactoredCovariance):
        Theta = [Theta]
    if isinstance(Theta, list | tuple) and all(isinstance(t, FactoredCovariance) for t in Theta):
        if any(t.dim != C.shape[1] for t in Theta):
            raise ValueError(f"{name} must hold {C.shape[1]}x{C.shape[1]} covariances")
        Theta = np.array([t.matrix() for t in Theta]).reshape(-1, C.shape[1], C.shape[1])
        Theta = Theta[0] if len(Theta) == 1 else Theta
    try:
        factors = np.linalg.cholesky(_noise_stack(Theta, name, C))
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} is not numerically positive definite (Cholesky)") from None
    return np.linalg.solve(factors, C).reshape(-1, C.shape[2])


def _triangular(*blocks):
    """Upper-triangular R (n, n) with ``R^T R = sum_b B_b^T B_b`` (one QR of the stack)."""
    R = np.linalg.qr(np.vstack(blocks), mode="r")
    return np.triu(R[: R.shape[1]])


@dataclass(frozen=True, eq=False)
class ReleaseStream:
    """The Fisher information of a stream of linear Gaussian releases about x0.

    An accountant of PML about x0: build with :meth:`of` (or :meth:`empty`) and
    :meth:`add`; compose independent streams (passes into a day, stations into a network)
    with :meth:`compose` or ``+``; read the leakage at a delta with :meth:`epsilon`.
    Immutable.

    Parameters
    ----------
    factor : ndarray, shape (n, n)
        Upper-triangular square-root information R: ``J = R^T R = sum_k C_k^T Theta_k^{-1}
        C_k`` (inverse units of x0 squared).
    releases : int
        N, the number of releases accumulated.
    rows : int
        ``sum_k m_k``, the number of released scalars.

    Raises
    ------
    TypeError
        If ``factor`` is not an array of real numbers, or ``releases`` or ``rows`` is not
        an integer.
    ValueError
        If ``factor`` is not a finite square matrix of size >= 1, or ``releases`` and
        ``rows`` are negative or disagree (each release has at least one row).

    Notes
    -----
    R is updated by QR factorisations of ``[R; L_k^{-1} C_k]`` (``Theta_k = L_k L_k^T``),
    never through J, so a direction of x0 the stream does not see keeps a singular value at
    round-off, ``u ||R||``, and is discounted by ``CORRELATION_TOL`` as in the dense route.
    [LKC] (14) for the mechanism, Theorem 3.3 for its leakage.
    """

    factor: np.ndarray
    releases: int = 0
    rows: int = 0

    def __post_init__(self):
        factor = as_matrix(self.factor, "factor")
        if factor.shape[0] != factor.shape[1] or factor.size == 0:
            raise ValueError(
                f"factor must be a square (n, n) matrix with n >= 1 (R of J = R^T R), "
                f"got shape {factor.shape}"
            )
        releases = non_negative_int(self.releases, "releases")
        rows = non_negative_int(self.rows, "rows")
        if rows < releases or (releases == 0) != (rows == 0):
            raise ValueError(
                f"rows ({rows}) must be at least releases ({releases}), and 0 exactly when "
                "releases is 0: each release has at least one row"
            )
        object.__setattr__(self, "factor", read_only(factor))
        object.__setattr__(self, "releases", releases)
        object.__setattr__(self, "rows", rows)

    @classmethod
    def empty(cls, n):
        """The stream of no release about an n-dimensional x0.

        Parameters
        ----------
        n : int
            The dimension of x0, >= 1.

        Returns
        -------
        ReleaseStream
            R = 0, no release, no row.

        Raises
        ------
        TypeError, ValueError
            If n is not a positive integer.
        """
        n = positive_int(n, "n")
        return cls(np.zeros((n, n)))

    @classmethod
    def of(cls, C, Theta):
        """The stream of the releases ``y_k = C_k x0 + v_k``, ``v_k ~ N(0, Theta_k)``.

        Parameters
        ----------
        C, Theta
            As :meth:`add`; n is the number of columns of C.

        Returns
        -------
        ReleaseStream
            ``ReleaseStream.empty(n).add(C, Theta)``.
        """
        return cls.empty(_maps(C).shape[2]).add(C, Theta)

    @property
    def n(self):
        """The dimension of x0."""
        return self.factor.shape[1]

    @property
    def information(self):
        """``J = R^T R``, shape (n, n)."""
        return self.factor.T @ self.factor

    def add(self, C, Theta):
        """This stream with more releases ``y_k = C_k x0 + v_k``, ``v_k ~ N(0, Theta_k)``.

        Parameters
        ----------
        C : array_like, shape (m, n) or (N, m, n)
            Measurement maps of x0 (release units per unit of x0).
        Theta : array_like, shape (m, m) or (N, m, m); FactoredCovariance, or a list of N
            Noise covariances (release units squared), symmetric positive definite, dense
            or factored; one (m, m) matrix serves every release.

        Returns
        -------
        ReleaseStream
            The accumulated stream (calls may differ in m).

        Raises
        ------
        ValueError
            On wrong shapes (C must have n columns), non-finite values, or a noise that is
            not symmetric positive definite (the message names it and its index).
        """
        C = _maps(C, self.n)
        W = _whitened(C, Theta)
        return ReleaseStream(
            _triangular(self.factor, W), self.releases + len(C), self.rows + len(W)
        )

    def compose(self, *others):
        """This stream and independent others about the same x0, accounted together.

        The accountant's composition (as ``compose`` of an accountant in dp_accounting):
        passes into a day, stations into a network. ``a + b`` is ``a.compose(b)``.

        Parameters
        ----------
        *others : ReleaseStream
            Streams with noises independent of this one's (other passes, other stations).

        Returns
        -------
        ReleaseStream
            The stream of all their releases: the J add, and so do releases and rows.

        Raises
        ------
        TypeError
            If another is not a ReleaseStream.
        ValueError
            If another is about an x0 of another dimension.
        """
        for other in others:
            if not isinstance(other, ReleaseStream):
                raise TypeError(f"only ReleaseStreams compose, got {type(other).__name__}")
            if other.n != self.n:
                raise ValueError(
                    f"only streams about the same {self.n}-dim x0 compose, got {other.n}"
                )
        streams = (self, *others)
        return ReleaseStream(
            _triangular(*(s.factor for s in streams)),
            sum(s.releases for s in streams),
            sum(s.rows for s in streams),
        )

    def __add__(self, other):
        return self.compose(other)

    def epsilon(self, Sigma_XX, delta, convention="exact"):
        """The smallest epsilon at which the stream is (epsilon, delta)-PML private, nats.

        The accountant's leakage at ``delta`` (as ``get_epsilon`` of an accountant in
        dp_accounting) for the prior ``Sigma_XX``.

        Parameters
        ----------
        Sigma_XX, delta, convention
            As :func:`stream_leakage`.

        Returns
        -------
        float
            ``stream_leakage(Sigma_XX, self, delta, convention).epsilon``: ``w I +
            F^{-1}_{chi^2_l}(1 - delta) / 2`` ([LKC] Theorem 3.3, (8)); 0 if nothing leaks.

        Raises
        ------
        ValueError
            As :func:`stream_leakage`.
        """
        return stream_leakage(Sigma_XX, self, delta, convention).epsilon


def stream_information(C, Theta):
    """The Fisher information ``J = sum_k C_k^T Theta_k^{-1} C_k`` of releases about x0.

    Parameters
    ----------
    C, Theta
        As :meth:`ReleaseStream.add`.

    Returns
    -------
    ndarray, shape (n, n)
        ``ReleaseStream.of(C, Theta).information`` (inverse units of x0 squared). The
        stream itself is the more accurate input to :func:`stream_leakage`.

    Raises
    ------
    ValueError
        As :meth:`ReleaseStream.add`.
    """
    return ReleaseStream.of(C, Theta).information


def _spectrum(Sigma_XX, information):
    """Descending canonical eigenvalues lambda_i and l, the number that count."""
    L = pd_cholesky(Sigma_XX, "Sigma_XX")
    if isinstance(information, ReleaseStream):
        if information.n != len(L):
            raise ValueError(
                f"information is a stream about a {information.n}-dim x0 but Sigma_XX is "
                f"{len(L)}x{len(L)}"
            )
        lam = linalg.svdvals(information.factor @ L) ** 2
        return lam, int(np.sum(lam > EIGENVALUE_TOL))
    J = psd_matrix(information, "information", len(L))
    lam = np.clip(linalg.eigvalsh(L.T @ J @ L)[::-1], 0.0, None)
    floor = max(EIGENVALUE_TOL, 64 * len(lam) * np.finfo(float).eps * float(lam[0]))
    return lam, int(np.sum(lam > floor))


@functools.lru_cache(maxsize=256)
def _floor(delta, rank):
    """``F^{-1}_{chi^2_l}(1 - delta) / 2`` (0 for l = 0), cached: a catalogue evaluates it
    for the same few (delta, l) hundreds of thousands of times."""
    return float(minimum_epsilon(delta, rank)) if rank else 0.0


def _epsilon(lam, rank, delta, weight):
    """``w sum log(1 + lambda_i) / 2 + F^{-1}_{chi^2_l}(1 - delta) / 2`` over the first l."""
    floor = _floor(float(delta), int(rank))
    return weight * 0.5 * float(np.sum(np.log1p(lam[:rank]))) + floor


@dataclass(frozen=True)
class StreamLeakage:
    """The PML of a stream of releases about x0.

    Parameters
    ----------
    information : float
        ``I(X; Y)`` of the whole stream, nats.
    rank : int
        l, the number of canonical correlations that count.
    epsilon : float
        The achieved epsilon ``w I + F^{-1}_{chi^2_l}(1 - delta) / 2``, nats (0 if l = 0).
    delta : float
        The failure probability.
    convention : str
        ``"exact"`` (w = 1) or ``"paper"`` (w = 2).
    """

    information: float
    rank: int
    epsilon: float
    delta: float
    convention: str


def stream_leakage(Sigma_XX, information, delta, convention="exact"):
    """The achieved epsilon of a stream at a given delta ([LKC] Theorem 3.3, (8)).

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    information : ReleaseStream or array_like, shape (n, n)
        The stream, or its Fisher information J (J of independent streams add). From J,
        l also discounts eigenvalues below its round-off, ``64 n u lambda_max``.
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}
        Which leakage formula (:mod:`~ssa_privacy.privacy.pml.leakage`).

    Returns
    -------
    StreamLeakage
        Its ``epsilon`` equals ``-pml_margin(..., epsilon=0, ...)`` of the dense stack.

    Raises
    ------
    ValueError
        On wrong shapes, non-finite values, Sigma_XX not positive definite (J not PSD),
        ``delta`` outside (0, 1), or an unknown convention.
    """
    weight = convention_weight(convention)
    delta = float(unit_interval(delta, "delta"))
    lam, rank = _spectrum(Sigma_XX, information)
    mutual = 0.5 * float(np.sum(np.log1p(lam[:rank])))
    return StreamLeakage(mutual, rank, _epsilon(lam, rank, delta, weight), delta, convention)


def stream_leakage_probability(Sigma_XX, information, epsilon, convention="exact"):
    """``P_Y[l(X -> Y) <= epsilon]`` of the whole stream, in closed form.

    Parameters
    ----------
    Sigma_XX, information, convention
        As :func:`stream_leakage`.
    epsilon : float
        Leakage level, nats.

    Returns
    -------
    float
        ``F_{chi^2_l}(2 (epsilon - w I))``; 1 for ``epsilon >= 0`` when nothing leaks.

    Raises
    ------
    ValueError
        As :func:`stream_leakage`, or a non-finite ``epsilon``.

    Notes
    -----
    [LKC] proof of Theorem 3.3 (chi-square with l degrees of freedom), as
    :func:`~ssa_privacy.privacy.pml.leakage.leakage_probability`.
    """
    weight = convention_weight(convention)
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    lam, rank = _spectrum(Sigma_XX, information)
    if rank == 0:
        return float(epsilon >= 0)
    mutual = 0.5 * float(np.sum(np.log1p(lam[:rank])))
    return float(stats.chi2.cdf(2.0 * (epsilon - weight * mutual), rank))


def stream_certificate(Sigma_XX, stream, epsilon, delta, convention="exact"):
    """The (epsilon, delta)-PML :class:`~ssa_privacy.privacy.mechanism.Certificate` of a stream.

    Parameters
    ----------
    Sigma_XX, delta, convention
        As :func:`stream_leakage`.
    stream : ReleaseStream
        The stream.
    epsilon : float
        The budget, nats.

    Returns
    -------
    Certificate
        :func:`~ssa_privacy.privacy.pml.information_form.information_certificate`
        of the stream's square-root information R: the canonical eigenvalues are the
        squared singular values of ``R L`` (``Sigma_XX = L L^T``), enclosed with relative
        errors where they are large, so the rounding bound stays near ``1e-12`` nats at
        any budget (:doc:`/theory/pml-stream`). The evidence adds ``releases`` and
        ``rows``.

    Raises
    ------
    TypeError
        If ``stream`` is not a ReleaseStream.
    ValueError
        As :func:`stream_leakage`.

    Notes
    -----
    The tolerance bounds the rounding from the stored R on. R itself comes from
    backward-stable Cholesky, solve and QR steps whose error is not part of the proven
    bound: the certificate is that of the stream the adversary is modelled by.
    """
    if not isinstance(stream, ReleaseStream):
        raise TypeError(f"stream must be a ReleaseStream, got {type(stream).__name__}")
    pd_cholesky(Sigma_XX, "Sigma_XX", stream.n)
    return information_certificate(
        Sigma_XX,
        epsilon,
        delta,
        convention,
        factor=stream.factor,
        releases=stream.releases,
        rows=stream.rows,
    )
