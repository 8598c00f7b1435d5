"""Noise that meets an (epsilon, delta)-PML budget for a whole stream of releases.

Two designs for the stacked mechanism ``y_k = C_k x0 + v_k`` of
:mod:`ssa_privacy.privacy.pml.stream`:

- :func:`design_stream_noise` (and :func:`stream_noise_scale`): given per-release noises
  (today's per-measurement designs, [LKC] Corollary 3.7), the least common factor c for
  which the stream meets the budget exactly; the noises stay independent per release;
- :func:`stream_logdet_design`: the minimum-trace noise of the whole stack, correlated
  across releases, exact for the budget. It is designed on the stack's n-dimensional
  sufficient statistic in closed form (:func:`information_limited_noise`, the
  stationarity condition of the log-det design of :doc:`/theory/pml`), so a stack of any
  length costs one thin SVD and a scalar root.

Theory, measured costs and caveats: :doc:`/theory/pml-stream`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.validation import as_finite_array, flag, scalar, unit_interval
from ssa_privacy.privacy.accounting import design_epsilon, maximum_information
from ssa_privacy.privacy.mechanism import Certificate, FactoredCovariance
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml.design import LinearGaussianMechanism
from ssa_privacy.privacy.pml.stream import (
    ReleaseStream,
    StreamLeakage,
    _epsilon,
    _floor,
    _maps,
    _noise_stack,
    _spectrum,
    stream_certificate,
    stream_leakage,
)

__all__ = [
    "FIRST_SLACK",
    "SLACK_LIMIT",
    "StackedLogdetDesign",
    "StreamDesign",
    "design_stream_noise",
    "information_limited_noise",
    "stream_logdet_design",
    "stream_logdet_noise",
    "stream_noise_scale",
]

#: The designers tighten their budget by at most this many nats to certify.
SLACK_LIMIT = 1e-6
#: :func:`stream_logdet_design` and :func:`design_stream_noise` (certified) first design
#: for the budget less this many nats, which their rigorous certificate (rounding
#: tolerance about 1e-12 nats on a radar pass at 20 nats) then passes at once.
FIRST_SLACK = 1e-11


def _scaled_epsilon(Sigma_XX, C, Theta, R, delta, convention):
    """epsilon(c) of the stream with noises ``R_k + c Theta_k``, and l (fixed at c = 1)."""
    weight = convention_weight(convention)
    delta = float(unit_interval(delta, "delta"))
    seen = 0.0 if R is None else R
    lam, rank = _spectrum(Sigma_XX, ReleaseStream.of(C, seen + Theta))

    def achieved(c):
        if c == np.inf or rank == 0:
            return _epsilon(np.zeros(rank), rank, delta, weight)
        if R is None:
            return np.inf if c == 0 else _epsilon(lam / c, rank, delta, weight)
        stream = ReleaseStream.of(C, R + c * Theta)
        return _epsilon(_spectrum(Sigma_XX, stream)[0], rank, delta, weight)

    return achieved, rank


def _tightened(slack, certificate):
    """The next slack after a failed certificate: past its deficit, twice over."""
    return max(2.0 * slack, slack + 2.0 * (certificate.tolerance - certificate.margin), 1e-15)


def _root_on_safe_side(excess, low, high):
    """The root of a decreasing ``excess`` in [low, high], moved up to where it is <= 0."""
    c = optimize.brentq(excess, low, high, xtol=1e-300)
    for step in range(64):  # Brent's root may sit an ulp on the wrong side
        if excess(c) <= 0.0:
            return float(c)
        c *= 1.0 + 2.0**step * np.finfo(float).eps
    raise RuntimeError(f"no point at or below the budget found next to the root {c:.17g}")


def stream_noise_scale(Sigma_XX, C, Theta, epsilon, delta, R=None, convention="exact"):
    """The least c >= 0 such that the noises ``R_k + c Theta_k`` meet a stream budget.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    C : array_like, shape (N, m, n) or (m, n)
        Measurement maps of x0.
    Theta : array_like, shape (N, m, m) or (m, m)
        Privacy noises to scale (e.g. the per-measurement designs of [LKC] Corollary 3.7,
        (15)), symmetric positive definite; one (m, m) matrix serves every release.
    epsilon : float
        The budget of the whole stream, nats, above condition (9) for the stream's l.
    delta : float
        Failure probability in (0, 1).
    R : array_like, shape (N, m, m) or (m, m), optional
        Noise the adversary sees anyway (the sensor's), positive definite, not scaled.
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    float
        c with the stream's achieved epsilon
        (:func:`~ssa_privacy.privacy.pml.stream.stream_leakage`) at most ``epsilon`` and
        equal to it to round-off; 0 when the sensor noise alone meets the budget. Above
        the largest meaningful budget of the stream's l directions, c meets that budget
        (:func:`~ssa_privacy.privacy.accounting.design_epsilon`): less noise would lie
        below the rounding of the released signal.

    Raises
    ------
    ValueError
        On invalid maps or noises (named), ``delta`` outside (0, 1), or a budget at or
        below ``F^{-1}_{chi^2_l}(1 - delta) / 2`` ([LKC] (9)), which no noise reaches.

    Notes
    -----
    The achieved epsilon decreases strictly in c (J decreases in the Loewner order): one
    root, found by Brent's method. Without R, ``J(c) = J(1) / c`` and only the eigenvalues
    rescale; with R, the stream is re-accumulated for each c. l is that at c = 1.
    """
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    C = _maps(C, len(pd_cholesky(Sigma_XX, "Sigma_XX")))
    Theta = _noise_stack(Theta, "Theta", C)
    R = None if R is None else _noise_stack(R, "R", C)
    achieved, rank = _scaled_epsilon(Sigma_XX, C, Theta, R, delta, convention)
    if epsilon <= (floor := achieved(np.inf)):
        raise ValueError(
            f"epsilon must exceed {floor:.6g} nats, the leakage of the stream however much "
            f"privacy noise is added (necessary condition (9) of [LKC]), got {epsilon:g}"
        )
    if achieved(0.0) <= epsilon:
        return 0.0
    target = design_epsilon(epsilon, delta, rank, convention)
    low, high = 1.0, 1.0
    while achieved(low) <= target:
        low /= 16.0
    while achieved(high) > target:
        high *= 16.0
    return _root_on_safe_side(lambda c: achieved(c) - target, low, high)


@dataclass(frozen=True, eq=False)
class StreamDesign:
    """Per-release noises scaled to meet a budget for the whole stream.

    Parameters
    ----------
    scale : float
        c, the factor of the given noises.
    noise : ndarray, shape (N, m, m)
        The privacy noises ``c Theta_k`` to add (release units squared).
    stream : ReleaseStream
        What the adversary sees: the releases with noises ``R_k + c Theta_k``.
    leakage : StreamLeakage
        Its PML at the design's delta.
    margin : float
        The budget minus ``leakage.epsilon``, nats (>= 0).
    certificate : Certificate or None
        :func:`stream_certificate` of ``stream`` for the budget; it passes. None when
        designed without ``certify``.
    """

    scale: float
    noise: np.ndarray
    stream: ReleaseStream
    leakage: StreamLeakage
    margin: float
    certificate: Certificate


def design_stream_noise(
    Sigma_XX, C, Theta, epsilon, delta, *, R=None, convention="exact", certify=True
):
    """Scale per-release noises so that the whole stream meets (epsilon, delta).

    Parameters
    ----------
    Sigma_XX, C, Theta, epsilon, delta, R, convention
        As :func:`stream_noise_scale`.
    certify : bool, optional
        Tighten the budget until the rigorous certificate passes (default); with False,
        until the stream, accumulated anew, meets it in the information form.

    Returns
    -------
    StreamDesign
        The scale, the noises, the stream, its leakage and margin, and a passing
        certificate (None without ``certify``).

    Raises
    ------
    TypeError
        If ``certify`` is not a bool.
    ValueError
        As :func:`stream_noise_scale`.
    RuntimeError
        If tightening the budget by up to ``SLACK_LIMIT`` nats does not meet it.

    Notes
    -----
    Solves :func:`stream_noise_scale` for ``epsilon - s``: s = FIRST_SLACK, then past
    twice the certificate's deficit, at least doubling (without ``certify``: s = 0, then
    from FIRST_SLACK). The achieved epsilon is the budget to within s (of the order of
    1e-11 nats). The first slack is that of :func:`stream_logdet_design`: a design for
    the budget itself meets it to round-off, which the rigorous certificate (rounding
    tolerance about 1e-12 nats) almost never passes, so a first solve at s = 0 was
    nearly always repeated.
    """
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    certify = flag(certify, "certify")
    C = _maps(C, len(pd_cholesky(Sigma_XX, "Sigma_XX")))
    Theta = _noise_stack(Theta, "Theta", C)
    seen = 0.0 if R is None else _noise_stack(R, "R", C)
    slack = FIRST_SLACK if certify else 0.0
    while slack <= SLACK_LIMIT:
        c = stream_noise_scale(Sigma_XX, C, Theta, epsilon - slack, delta, R, convention)
        stream = ReleaseStream.of(C, seen + c * Theta)
        leakage = stream_leakage(Sigma_XX, stream, delta, convention)
        margin = epsilon - leakage.epsilon
        if not certify:
            if margin >= 0.0:  # the stream's own round-off, not the scale's
                return StreamDesign(c, c * Theta, stream, leakage, margin, None)
            slack = max(2.0 * slack, FIRST_SLACK)
            continue
        certificate = stream_certificate(Sigma_XX, stream, epsilon, delta, convention)
        if certificate.passed:
            return StreamDesign(c, c * Theta, stream, leakage, margin, certificate)
        slack = _tightened(slack, certificate)
    raise RuntimeError(f"the scaled stream does not meet the budget {epsilon!r} after tightening")


def _information_budget(information, size):
    """``information`` (nats) checked: positive, at most ``maximum_information(size)``."""
    information = scalar(information, "information")
    largest = float(maximum_information(size))
    if not 0.0 < information <= largest:
        raise ValueError(
            f"information must lie in (0, {largest:.6g}] nats for a {size}-dim signal (more "
            f"asks for noise below the rounding of the signal), got {information:g}"
        )
    return information


def information_limited_noise(Sigma_ZZ, information):
    """The minimum-trace noise Theta with ``I(Z; Z + V) <= information``, in closed form.

    Parameters
    ----------
    Sigma_ZZ : array_like, shape (r, r)
        Covariance of the Gaussian signal Z, positive definite (units of Z squared).
    information : float
        The mutual-information budget, nats, > 0.

    Returns
    -------
    FactoredCovariance
        ``Theta = E diag(theta) E^T``, ``V ~ N(0, Theta)``: ``Sigma_ZZ = E diag(m) E^T``
        and ``theta_i = 2 mu / (1 + sqrt(1 + 4 mu / m_i))``, with mu the root of
        ``sum_i log(1 + m_i / theta_i) / 2 = information`` (moved to the side where the
        budget holds in floating point).

    Raises
    ------
    TypeError
        If ``information`` is not a real number.
    ValueError
        If ``Sigma_ZZ`` is not symmetric positive definite or ``information`` is not a
        positive number of at most
        :func:`~ssa_privacy.privacy.accounting.maximum_information` of its size (more
        would ask for noise below the rounding of the signal).

    Notes
    -----
    ``I = (log det(Sigma_ZZ + Theta) - log det Theta) / 2`` is convex in Theta (it is the
    log-det of the posterior covariance, with a minus sign, :doc:`/theory/pml`), so the
    KKT conditions of ``min tr Theta`` subject to it characterise the optimum:
    ``I = mu (Theta^{-1} - (Sigma_ZZ + Theta)^{-1})``. Theta sharing the eigenvectors of
    Sigma_ZZ solves them with ``theta_i (theta_i + m_i) = mu m_i``. This is the log-det
    design of [LKC] Theorem 3.3 for a signal of full rank, without a cone solver
    (:doc:`/theory/pml-stream`; a test checks it against the Clarabel solve).
    """
    m, E = linalg.eigh(0.5 * (psd_matrix(Sigma_ZZ, "Sigma_ZZ") + np.transpose(Sigma_ZZ)))
    if m[0] <= 0.0:
        raise ValueError(f"Sigma_ZZ must be positive definite, its least eigenvalue is {m[0]:.3g}")
    information = _information_budget(information, len(m))

    def theta(mu):
        return 2.0 * mu / (1.0 + np.sqrt(1.0 + 4.0 * mu / m))

    def excess(mu):
        return 0.5 * float(np.sum(np.log1p(m / theta(mu)))) - information

    low = high = float(np.mean(m))
    while excess(low) <= 0.0:
        low /= 16.0
    while excess(high) > 0.0:
        high *= 16.0
    mu = _root_on_safe_side(excess, low, high)
    return FactoredCovariance(theta(mu), E, "information-limited")


@dataclass(frozen=True, eq=False)
class StackedLogdetDesign:
    """The exact log-det noise of a whole stack, designed on its sufficient statistic.

    Parameters
    ----------
    noise : FactoredCovariance
        ``Theta = Q Theta_r Q^T`` (M x M, rank r <= n), release units squared.
    basis : ndarray, shape (M, r)
        Q, an orthonormal basis of the range of the stacked C (``C = Q R``).
    mechanism : LinearGaussianMechanism
        The mechanism ``Theta_r^{-1/2} z = Theta_r^{-1/2} R_u u + e``, ``e ~ N(0, I)``, of
        the sufficient statistic ``z = R_u u + w`` (``w ~ N(0, Theta_r)``) about the
        whitened secret ``u = L^{-1} x0``: the same PML as the stream about x0. The
        stream releases ``Q z``.
    stream : ReleaseStream
        What the adversary learns about x0: the stream of ``z`` (its information is that
        of the whole stack), to merge with other passes.
    leakage : StreamLeakage
        The PML of the stream at the design's delta (that of ``mechanism``).
    certificate : Certificate
        :func:`~ssa_privacy.privacy.pml.stream.stream_certificate` of ``stream`` for the
        budget (information form); it passes when designed with ``certify``.
    """

    noise: FactoredCovariance
    basis: np.ndarray
    mechanism: LinearGaussianMechanism
    stream: ReleaseStream
    leakage: StreamLeakage
    certificate: Certificate

    @property
    def achieved_epsilon(self):
        """The smallest epsilon at which the stream is private, nats (``leakage.epsilon``)."""
        return self.leakage.epsilon


def stream_logdet_design(Sigma_XX, C, epsilon, delta, convention="exact", certify=True):
    """The minimum-trace noise of a whole stacked stream, exact for a stream budget.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0, positive definite.
    C : array_like, shape (N, m, n) or (M, n)
        Measurement maps of x0, stacked into ``[C_1; ...; C_N]`` (M rows). Make the rows
        commensurate first (divide each by its sensor noise standard deviation): the
        objective adds the squared units of all rows.
    epsilon, delta : float
        The budget of the whole stream (nats) and its failure probability.
    convention : {"exact", "paper"}
        Which leakage formula.
    certify : bool, optional
        Tighten the budget until the rigorous certificate of the stream passes (default;
        :func:`~ssa_privacy.privacy.pml.stream.stream_certificate`, information form,
        rounding bound about 1e-12 nats on a radar pass at 20 nats). With False the
        budget is met by the information-form leakage, accurate to round-off, and the
        certificate is still attached.

    Returns
    -------
    StackedLogdetDesign
        The noise, correlated across the releases and factored (memory O(M n)), the basis
        Q, the reduced mechanism, the stream's certificate (it passes when ``certify``)
        and the stream's leakage (at most ``epsilon``, equal to it to within 1e-11 nats or the
        certificate's rounding tolerance).

    Raises
    ------
    TypeError
        If ``certify`` is not a bool.
    ValueError
        On wrong shapes, non-finite values, a ``Sigma_XX`` not positive definite, a zero
        C, ``delta`` outside (0, 1), or a budget at or below condition (9) of [LKC] for
        the rank of C.
    RuntimeError
        If tightening the budget by up to ``SLACK_LIMIT`` nats does not certify it (with
        ``certify``), or the information-form leakage exceeds the budget (without).

    Notes
    -----
    The design works on the whitened secret ``u = L^{-1} x0`` (``Sigma_XX = L L^T``), which
    has the same PML (the canonical correlations do not change under an invertible map)
    and a prior I, so that a prior mixing units (km and km/s) does not inflate the
    certificate's rounding bound. With the thin SVD ``C L = U S V^T`` of rank r, ``Q =
    U_r`` and ``z = Q^T y = S_r V_r^T u + Q^T v`` is sufficient. The budget asks ``I(u; z)
    <= (epsilon - F^{-1}_{chi^2_r}(1 - delta) / 2) / w`` ([LKC] Theorem 3.3, (8)); the
    least-trace noise of z meeting it is :func:`information_limited_noise` of ``Sigma_ZZ =
    S_r^2``, and every noise of the stack meeting the budget has at least its trace
    (:doc:`/theory/pml-stream`).
    """
    weight = convention_weight(convention)
    delta = float(unit_interval(delta, "delta"))
    epsilon = float(as_finite_array(epsilon, "epsilon", ndim=0))
    certify = flag(certify, "certify")
    Q, s, R_u, floor, target = _sufficient_statistic(Sigma_XX, C, epsilon, delta, convention)
    slack = FIRST_SLACK
    while slack <= SLACK_LIMIT:
        reduced = information_limited_noise(np.diag(s**2), (target - slack - floor) / weight)
        design = _lifted(Sigma_XX, Q, R_u, reduced, (epsilon, delta, convention))
        if design.certificate.passed or (not certify and design.leakage.epsilon <= epsilon):
            return design
        if not certify:
            raise RuntimeError(
                f"the stacked design leaks {design.leakage.epsilon!r} nats, over the "
                f"budget {epsilon!r}"
            )
        slack = _tightened(slack, design.certificate)
    raise RuntimeError(
        f"the stacked design's certificate does not pass at the budget {epsilon!r} nats "
        f"after tightening it by {SLACK_LIMIT:g} nats: margin "
        f"{design.certificate.margin:.3g}, tolerance {design.certificate.tolerance:.3g} nats"
    )


def _sufficient_statistic(Sigma_XX, C, epsilon, delta, convention):
    """The thin SVD ``C L = Q diag(s) V^T`` of rank r, ``R_u = diag(s) V^T``, the floor
    ``F^{-1}_{chi^2_r}(1 - delta) / 2`` and the budget the design aims at
    (:func:`~ssa_privacy.privacy.accounting.design_epsilon`), with the checks of
    :func:`stream_logdet_design`."""
    C = as_finite_array(C, "C")
    L = pd_cholesky(Sigma_XX, "Sigma_XX")
    n = len(L)
    if C.ndim not in (2, 3) or C.shape[-1] != n or C.size == 0:
        raise ValueError(f"C must have shape (N, m, {n}) or (M, {n}), got {C.shape}")
    U, s, Vt = linalg.svd(C.reshape(-1, n) @ L, full_matrices=False)
    rank = int(np.sum(s > s[0] * max(len(U), n) * np.finfo(float).eps))
    if rank == 0:
        raise ValueError("C is zero: the stream reveals nothing about x0 and needs no noise")
    floor = _floor(delta, rank)
    if epsilon <= floor:
        raise ValueError(
            f"epsilon must exceed {floor:.6g} nats for a stream that sees {rank} directions "
            f"of x0 (necessary condition (9) of [LKC]), got {epsilon:g}"
        )
    target = design_epsilon(epsilon, delta, rank, convention)
    return U[:, :rank], s[:rank], s[:rank, None] * Vt[:rank], floor, target


def _lifted(Sigma_XX, Q, R_u, reduced, budget):
    """The design of the stack from that of its sufficient statistic, and its certificate."""
    epsilon, delta, convention = budget
    W = (reduced.eigenvectors / np.sqrt(reduced.eigenvalues)) @ reduced.eigenvectors.T
    mechanism = LinearGaussianMechanism(
        W @ R_u,
        np.eye(R_u.shape[1]),
        FactoredCovariance.scaled_identity(1.0, len(R_u)),
        epsilon,
        delta,
        convention=convention,
        method="stream-logdet",
    )
    lifted = FactoredCovariance(reduced.eigenvalues, Q @ reduced.eigenvectors, "stream-logdet")
    L = np.linalg.cholesky(Sigma_XX)
    R = linalg.solve_triangular(L, R_u.T, lower=True, trans="T").T  # R_u L^{-1}
    stream = ReleaseStream.of(R, reduced.matrix())
    leakage = stream_leakage(Sigma_XX, stream, delta, convention)
    certificate = stream_certificate(Sigma_XX, stream, epsilon, delta, convention)
    return StackedLogdetDesign(lifted, Q, mechanism, stream, leakage, certificate)


def stream_logdet_noise(Sigma_XX, C, epsilon, delta, convention="exact", certify=True):
    """The noise of :func:`stream_logdet_design` alone.

    Parameters
    ----------
    Sigma_XX, C, epsilon, delta, convention, certify
        As :func:`stream_logdet_design`.

    Returns
    -------
    FactoredCovariance
        ``stream_logdet_design(...).noise``.

    Raises
    ------
    ValueError
        As :func:`stream_logdet_design`.
    """
    return stream_logdet_design(Sigma_XX, C, epsilon, delta, convention, certify).noise
