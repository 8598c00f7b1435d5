"""The design rule of certified synthetic noise [TCB]: how much to tighten, and where.

A design that meets the privacy constraint (5) with equality in exact arithmetic can miss
it by round-off. :meth:`~ssa_privacy.privacy.synthetic_noise.design.SyntheticNoiseDesign.certified`
therefore designs (8) for ``(1 - m) Delta_rho`` with ``Delta_rho = Delta + rho I`` and,
when needed, adds a nugget ``nu I``. This module chooses (m, rho, nu) from the error
analysis of the certificate
(:func:`~ssa_privacy.privacy.synthetic_noise.certificate.posterior_covariance_certificate`):

- the *relative* errors come from whitening by ``Delta_rho`` (a bound ``eta`` growing with
  its condition number); m is ``DESIGN_SAFETY`` times ``eta``, at least ``DESIGN_MARGIN``;
  when that would exceed ``MAX_DESIGN_MARGIN`` (near-duplicate sensitive inputs), the
  resolution rho is raised instead, and directions of f(S) whose prior variance is below
  about rho are no longer protected;
- the *absolute* errors (sums of n products, Cholesky of an n x n matrix) are covered by
  the slack ``m lambda_min(K_XX + V)`` when it is large enough (raising m by factors of 10
  up to ``MAX_DESIGN_MARGIN``), otherwise by a nugget: noiseless data with a smooth kernel
  have a numerically singular ``K_XX``, and no noise of rank <= s can then be certified.

The derivation is in :doc:`/theory/privacy-aware-gp`, "Certificates in floating point".
"""

from dataclasses import dataclass

import numpy as np

from ssa_privacy._internal.matrix_validation import symmetric_matrix
from ssa_privacy._internal.validation import as_matrix, positive_int, scalar
from ssa_privacy.privacy.mechanism import Certificate, FactoredCovariance
from ssa_privacy.privacy.rounding import cholesky_lower_bound, gamma
from ssa_privacy.privacy.synthetic_noise.certificate import whiten

__all__ = [
    "CertifiedNoise",
    "DESIGN_MARGIN",
    "DESIGN_SAFETY",
    "MAX_DESIGN_MARGIN",
    "absolute_plan",
    "error_scale",
    "relative_plan",
    "validated_tolerance",
]

#: Smallest relative design margin of certified designs: they target ``(1 - m) Delta_rho``
#: with ``m >= DESIGN_MARGIN``, m chosen from the certificate's error analysis.
DESIGN_MARGIN = 1e-7
#: Largest relative design margin chosen automatically; a Delta too ill-conditioned for it
#: gets a resolution rho instead (``Delta_rho = Delta + rho I``).
MAX_DESIGN_MARGIN = 1e-4
#: Ratio between a certified design's slack and the error bounds it must exceed.
DESIGN_SAFETY = 8.0


@dataclass(frozen=True)
class CertifiedNoise:
    """A certified synthetic-noise design.

    Parameters
    ----------
    noise : FactoredCovariance
        Sigma (output units^2).
    margin : float
        The relative tightening m of ``Delta_rho`` used by the design.
    resolution : float
        rho (output units^2): the design and its certificate are for ``Delta + rho I``.
    nugget : float
        nu (output units^2): independent noise added to every output (0 unless the
        data are noiseless, or nearly, with a smooth kernel).
    certificate : Certificate
        The certificate of ``noise``, which passes.
    attempts : int
        1 when the first design passed (the rule's margins are a factor
        ``DESIGN_SAFETY`` above the error bounds); more if the nugget and the margin had
        to be raised.
    """

    noise: FactoredCovariance
    margin: float
    resolution: float
    nugget: float
    certificate: Certificate
    attempts: int = 1


def validated_tolerance(Delta, s):
    """Delta as a symmetric positive semi-definite (s, s) matrix, and its smallest eigenvalue.

    Parameters
    ----------
    Delta : array_like, shape (s, s)
        The tolerance (output units^2).
    s : int
        The number of sensitive inputs.

    Returns
    -------
    Delta : ndarray, shape (s, s)
        Symmetrized.
    smallest : float
        Its smallest eigenvalue (floating-point estimate).

    Raises
    ------
    TypeError
        If ``s`` is not an integer.
    ValueError
        If ``s`` is below 1, Delta is not square (s, s), finite and symmetric, or has an
        eigenvalue below ``-1e-8`` times its largest entry.
    """
    Delta = symmetric_matrix(Delta, "Delta", size=positive_int(s, "s"))
    smallest = float(np.linalg.eigvalsh(Delta)[0])
    if smallest < -1e-8 * max(float(np.max(np.abs(Delta))), np.finfo(float).tiny):
        raise ValueError(f"Delta is not positive definite: smallest eigenvalue {smallest:.3g}")
    return Delta, smallest


def relative_plan(K_XS, Delta, smallest):
    """The design margin m and the whitening by ``Delta_rho`` (which holds rho).

    Parameters
    ----------
    K_XS : ndarray, shape (n, s)
        Prior covariance between training and sensitive inputs.
    Delta : ndarray, shape (s, s)
        Validated tolerance.
    smallest : float
        Its smallest eigenvalue.

    Returns
    -------
    margin : float
        m in [``DESIGN_MARGIN``, ``MAX_DESIGN_MARGIN``], at least ``DESIGN_SAFETY``
        times the whitening's error bounds ``eta + theta``.
    whitening : Whitening
        From :func:`~ssa_privacy.privacy.synthetic_noise.certificate.whiten`, with the
        resolution rho: 0 unless m would exceed ``MAX_DESIGN_MARGIN``.

    Raises
    ------
    TypeError, ValueError
        If K_XS or Delta is not a finite real matrix, Delta not symmetric positive
        semi-definite with one row per column of K_XS or zero, or ``smallest`` not a
        finite number.
    RuntimeError
        If no resolution makes ``Delta_rho`` well enough conditioned (not expected).
    """
    smallest = scalar(smallest, "smallest")
    Delta = validated_tolerance(Delta, as_matrix(K_XS, "K_XS").shape[1])[0]
    if not np.any(Delta):
        raise ValueError(
            "Delta is zero: no reduction of the covariance at S is allowed, which no finite "
            "noise achieves"
        )
    scale = DESIGN_SAFETY * gamma(len(Delta) + 2) * float(np.trace(Delta))
    needed = scale / (0.9 * smallest) if smallest > 0 else np.inf
    margin, resolution = max(DESIGN_MARGIN, needed), 0.0
    if margin > MAX_DESIGN_MARGIN:
        margin = MAX_DESIGN_MARGIN
        resolution = scale / (0.8 * margin) - max(smallest, 0.0)
    for _ in range(40):
        try:
            whitening = whiten(K_XS, Delta, resolution)
        except ValueError:
            whitening = None
        needed = np.inf if whitening is None else DESIGN_SAFETY * (whitening.eta + whitening.theta)
        if needed <= margin:
            return margin, whitening
        if needed <= MAX_DESIGN_MARGIN:
            return needed, whitening
        margin = MAX_DESIGN_MARGIN
        resolution = max(1.3 * resolution, scale / (0.8 * margin))
    raise RuntimeError("no resolution makes Delta well enough conditioned")


def _trace_and_rows(K_XX, V):
    """``tr(K_XX + V)`` and the largest row sum of ``|K_XX| + |V|``."""
    rows = np.max(np.sum(np.abs(K_XX), axis=1))
    if np.ndim(V) == 0:
        return float(np.trace(K_XX) + len(K_XX) * V), float(rows + abs(V))
    return float(np.trace(K_XX) + np.trace(V)), float(rows + np.max(np.sum(np.abs(V), axis=1)))


def error_scale(K_XX, V, whitening, margin):
    """A priori estimate of the certificate's absolute error bound (twice the expected one).

    Parameters
    ----------
    K_XX : ndarray, shape (n, n)
        Prior covariance at the training inputs.
    V : float or ndarray, shape (n, n)
        Observation-noise variance or covariance.
    whitening : Whitening
        The whitened sensitive covariances.
    margin : float
        The design margin m.

    Returns
    -------
    float
        Output units^2: the Cholesky test's ``gamma_{n+2}`` times the trace of the tested
        matrix, the rounding of Sigma and G (``gamma_{s+6}`` times their traces), of the
        sums (``gamma_4`` times row sums) and of the triangular solve, each doubled.
    """
    n, s = whitening.Y.shape[1], whitening.Y.shape[0]
    F2 = whitening.frob2 / (1.0 - margin)
    column_norms = np.sum(whitening.Y**2, axis=0)
    rows_G = float(np.max(np.sqrt(column_norms) * np.sum(np.sqrt(column_norms))))
    trace, rows = _trace_and_rows(K_XX, V)
    return 2.0 * (
        gamma(n + 2) * (trace + 2.0 * F2)
        + gamma(s + 6) * 2.0 * F2
        + gamma(4) * (rows + 3.0 * rows_G)
        + DESIGN_SAFETY * whitening.theta**2 * F2 / margin
    )


def absolute_plan(K_XX, V, errors, margin):
    """(m, nu): the first m (times 10 each rung) whose slack covers the errors, else a nugget.

    Parameters
    ----------
    K_XX : ndarray, shape (n, n)
        Prior covariance at the training inputs.
    V : float or ndarray, shape (n, n)
        Observation-noise variance or covariance.
    errors : float
        :func:`error_scale` (output units^2).
    margin : float
        The margin of :func:`relative_plan`.

    Returns
    -------
    margin : float
        m, raised by factors of 10 (up to ``MAX_DESIGN_MARGIN``) until
        ``lambda_min(K_XX + V) >= 4 errors / m`` is proven by a Cholesky test (of
        ``K_XX + V - 8 errors / m``).
    nugget : float
        0 in that case; otherwise ``4 errors`` plus twice a proven bound on the negative
        part of ``lambda_min(K_XX + V)`` (output units^2).

    Raises
    ------
    ValueError
        If ``K_XX + V`` is not positive semi-definite (up to its largest diagonal entry).
    """
    rung = margin
    while rung <= MAX_DESIGN_MARGIN * (1 + 1e-12):
        needed = 4.0 * errors / rung
        floor = _shifted_floor(K_XX, V, -2.0 * needed)
        if floor is not None and floor + 2.0 * needed >= needed:
            return rung, 0.0
        rung *= 10.0
    return margin, 4.0 * errors + 2.0 * _negative_part(K_XX, V, errors)


def _shifted_floor(K_XX, V, shift):
    """A proven b with ``lambda_min(K_XX + V + shift I) >= b``, or None on breakdown.

    Rump's verification of the stored, rounded matrix, corrected for the rounding of the
    sum (at most two roundings per entry, bounded by ``gamma_2`` times a row sum).
    """
    A = K_XX + V if np.ndim(V) else K_XX.copy()
    diagonal = np.diag_indices_from(A)
    A[diagonal] += shift + (V if np.ndim(V) == 0 else 0.0)
    bound = cholesky_lower_bound(A)
    if bound is None:
        return None
    _, rows = _trace_and_rows(K_XX, V)
    return bound - 1.001 * gamma(2) * (rows + abs(shift))


def _negative_part(K_XX, V, errors):
    """A proven bound on ``max(0, -lambda_min(K_XX + V))`` (a shifted Cholesky ladder)."""
    scale = max(float(np.max(np.abs(np.diag(K_XX)))), errors, np.finfo(float).tiny)
    shift = 0.0
    while shift <= scale:
        floor = _shifted_floor(K_XX, V, shift)
        if floor is not None:
            return max(0.0, shift - floor)
        shift = errors if shift == 0.0 else 100.0 * shift
    raise ValueError("K_XX + V is not positive semi-definite")
