"""The Gaussian mechanism of a whole pass of a station over a catalogue object.

A station that sees an object for a pass releases K measurements, each four rows
(azimuth, elevation, range, range rate), whose linearised maps of the private
manoeuvre deviation x0 are ``C_k = H_k Phi(t_k, t0)``
(:class:`~ssa_privacy.sensors.streams.Pass`). A pass-level budget (epsilon, delta)
bounds the PML of the whole pass about x0, not of each measurement.
:class:`PassMechanism` adds the pass's noise ``F e``, ``e ~ N(0, I)``, to its stacked
measurements and certifies the pass budget. Two designers (:data:`DESIGNERS`,
:meth:`PassMechanism.design`) meet it exactly:

``"logdet"``
    The minimum-trace noise of the stacked pass
    (:func:`~ssa_privacy.privacy.pml.stream_design.stream_logdet_design`), correlated
    across the pass, of rank at most 6. The rows are first divided by the sensor's noise
    standard deviations, so that the trace it minimises counts every row in units of its
    own sensor noise.
``"scaled"``
    Today's per-measurement design ([LKC] Corollary 3.7, ``Theta_k`` proportional to
    ``C_k Sigma_XX C_k^T``), scaled by the one factor c for which the pass meets the
    budget (:func:`~ssa_privacy.privacy.pml.stream_design.design_stream_noise`);
    independent across measurements.

Both count the privacy noise alone: the sensor noise, also seen by the adversary, only
lowers the leakage. Both carry a rigorous certificate of the pass budget in the
information form (:func:`~ssa_privacy.privacy.pml.stream.stream_certificate`), whose
rounding bound stays near 1e-12 nats although a radar pass measures some directions of x0
far better than the prior knows them (canonical correlations near 1); a design whose
certificate does not pass is re-solved for a budget tightened by the least amount that
certifies it.
The station needs the pass's maps before the first release; it predicts them from the
public element set (the nominal orbit). The day's passes, from every station, are
accounted for by composing their streams
(:meth:`~ssa_privacy.privacy.pml.stream.ReleaseStream.compose`);
:func:`per_measurement_epsilons` accounts so for today's per-measurement designs. Theory:
:doc:`/theory/pml-stream`.
"""

import functools

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky
from ssa_privacy._internal.random import random_generator, seed_record
from ssa_privacy._internal.validation import as_finite_array, positive, scalar, unit_interval
from ssa_privacy.privacy.mechanism import FactoredCovariance, Release, as_factored
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.stream import (
    ReleaseStream,
    _maps,
    stream_certificate,
    stream_leakage,
)
from ssa_privacy.privacy.pml.stream_design import design_stream_noise, stream_logdet_design

__all__ = [
    "DESIGNERS",
    "PassMechanism",
    "per_measurement_epsilons",
]

#: The pass-level designers of :meth:`PassMechanism.design`.
DESIGNERS = ("logdet", "scaled")


def _factor_svd(factor):
    """``F = U diag(s) W^T`` with the singular values above round-off: U (M, r), s (r,)."""
    U, s, _ = linalg.svd(factor, full_matrices=False)
    keep = s > max(factor.shape) * np.finfo(float).eps * (s[0] if s.size else 0.0)
    return U[:, keep], s[keep]


def _pass_design(R, C, Sigma_XX, epsilon, delta, designer, convention):
    """:meth:`PassMechanism.design`'s design of a pass: the designer's result (its stream
    and certificate), the noise factor F (K m, r) and, for the scaled design, F's diagonal
    blocks (K, m, m) (else None)."""
    if designer == "logdet":
        scale = np.tile(np.sqrt(np.diag(R)), len(C))
        rows = C.reshape(-1, 6) / scale[:, None]
        design = stream_logdet_design(Sigma_XX, rows, epsilon, delta, convention)
        noise = design.noise
        return design, scale[:, None] * (noise.eigenvectors * np.sqrt(noise.eigenvalues)), None
    Theta = linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention)
    design = design_stream_noise(Sigma_XX, C, Theta, epsilon, delta, convention=convention)
    blocks = np.linalg.cholesky(design.noise)
    return design, _block_diagonal(blocks), blocks


def _blocks_svd(blocks):
    """:func:`_factor_svd` of the block-diagonal F of ``blocks`` (K, m, m), block by block:
    U (K m, r) block diagonal, s (r,) in block order (not sorted), the same round-off
    threshold. One SVD of the K m x K m F costs O((K m)^3); the blocks', O(K m^3)."""
    U, s, _ = np.linalg.svd(blocks)
    K, m, _ = blocks.shape
    s = s.ravel()
    keep = s > K * m * np.finfo(float).eps * (s.max() if s.size else 0.0)
    return _block_diagonal(U)[:, keep], s[keep]


def _block_diagonal(blocks):
    """The block-diagonal matrix (K m, K m) of a stack of blocks (K, m, m), as
    ``scipy.linalg.block_diag(*blocks)`` but in one assignment (that builds it block by
    block through its array-API layer, most of a scaled pass design's time)."""
    K, m, _ = blocks.shape
    matrix = np.zeros((K, m, K, m))
    matrix[np.arange(K), :, np.arange(K), :] = blocks
    return matrix.reshape(K * m, K * m)


def _checked_pass(item, name):
    """``item`` after checking it is a Pass: finite maps C (K, m, n), K, m, n >= 1, and a
    positive definite sensor covariance R (m, m)."""
    if not (hasattr(item, "C") and hasattr(item, "R")):
        raise TypeError(f"{name} must be a Pass (maps C, noise R), got {type(item).__name__}")
    C = as_finite_array(item.C, f"{name}.C", ndim=3)
    if 0 in C.shape:
        raise ValueError(f"{name}.C must have shape (K, m, n) with K, m, n >= 1, got {C.shape}")
    pd_cholesky(item.R, f"{name}.R", C.shape[1])
    return item


def _checked_passes(passes, name="passes", empty=False):
    """``passes`` as a list of checked Pass (:func:`_checked_pass`) about one x0, non-empty
    unless ``empty``."""
    if not isinstance(passes, list | tuple):
        raise TypeError(f"{name} must be a list of Pass, got {type(passes).__name__}")
    if not (passes or empty):
        raise ValueError(
            f"{name} must hold at least one Pass, got an empty {type(passes).__name__}"
        )
    for index, item in enumerate(passes):
        _checked_pass(item, f"{name}[{index}]")
        if np.shape(item.C)[2] != np.shape(passes[0].C)[2]:
            raise ValueError(
                f"{name}[{index}] maps a {np.shape(item.C)[2]}-dim x0, {name}[0] a "
                f"{np.shape(passes[0].C)[2]}-dim one"
            )
    return list(passes)


def _noise_stream(C, factor):
    """The stream of ``y = C x0 + F e`` about x0, from the factor F (its singular vectors)."""
    stacked = C.reshape(-1, C.shape[2])
    U, s = _factor_svd(factor)
    seen = U.T @ stacked
    missed = np.linalg.norm(stacked - U @ seen)
    if missed > 64 * len(stacked) * np.finfo(float).eps * np.linalg.norm(stacked):
        raise ValueError(
            "factor leaves a direction of the pass's signal C x0 without noise: that "
            "combination of x0 would be released exactly"
        )
    return ReleaseStream.of(seen / s[:, None], np.eye(len(s)))


class PassMechanism:
    """The Gaussian mechanism ``y = C x0 + F e``, ``e ~ N(0, I_r)``, of a stack of releases.

    A pass of K measurements of m rows each (m = 4 for a radar), certified for an
    (epsilon, delta)-PML budget on the whole stack about x0 ([LKC] (14) for the stacked
    maps, Theorem 3.3 for the guarantee). Built by :meth:`design` for a pass; the
    constructor takes a given noise factor, for example to audit it, or one measurement
    (K = 1) with the Cholesky factor of its designed noise.

    Parameters
    ----------
    C : array_like, shape (K, m, n) or (m, n)
        The maps of the releases about x0 (release units per unit of x0), measurement
        after measurement.
    Sigma_XX : array_like, shape (n, n)
        The adversary's prior covariance of x0, positive definite (units of x0 squared).
    factor : array_like, shape (K m, r)
        F, with noise covariance ``F F^T`` of the stacked releases (release units
        squared: rad^2, km^2, km^2/s^2 for a radar).
    epsilon : float
        The budget of the whole stack, nats, > 0.
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}, optional
        Which leakage formula the guarantee refers to (default exact).
    designer : str, optional
        How F was obtained: one of :data:`DESIGNERS` for :meth:`design`, another name for
        a given noise (default ``"given"``).
    stream : ReleaseStream, optional
        The adversary's stream of the releases about x0 with this noise (privacy noise
        alone), when the designer already computed it on the stack's sufficient
        statistic; default: from F (its range must hold that of the stacked C).

    Attributes
    ----------
    C : ndarray, shape (K, m, n)
        The maps.
    Sigma_XX, factor, epsilon, delta, convention, designer, stream
        The validated arguments.
    leakage : StreamLeakage
        The PML of ``stream`` at delta; its ``epsilon`` is the smallest budget the stack
        meets.
    noise_covariance : FactoredCovariance
        ``F F^T`` as eigenpairs (from the singular values of F), as every release carries it.
    Theta : ndarray, shape (K m, K m)
        ``F F^T`` as a dense matrix, as a filter of the releases needs it.
    Theta_blocks : ndarray, shape (K, m, m), or None
        Its diagonal blocks when it is block diagonal per measurement (the scaled design),
        else None.

    Raises
    ------
    ValueError
        On wrong shapes, non-finite values, a prior that is not positive definite, an
        epsilon that is not positive, delta outside (0, 1), an unknown convention, or
        (without ``stream``) a factor that leaves a direction of ``C x0`` noiseless.
    TypeError
        If ``designer`` is not a string or ``stream`` not a ReleaseStream about x0.

    Notes
    -----
    :meth:`release` draws K m standard normals and uses the first r, so that every
    designer's release of the same pass from the same generator consumes the same numbers
    (common random numbers), and scales them by F itself (not by eigenvectors, whose
    signs may flip between designs).
    """

    def __init__(
        self,
        C,
        Sigma_XX,
        factor,
        epsilon,
        delta,
        *,
        convention="exact",
        designer="given",
        stream=None,
    ):
        convention_weight(convention)
        self.C = _maps(C)
        n = self.C.shape[2]
        pd_cholesky(Sigma_XX, "Sigma_XX", n)
        self.Sigma_XX = np.asarray(Sigma_XX, dtype=float)
        self.factor = as_finite_array(factor, "factor", ndim=2)
        if len(self.factor) != self.C.shape[0] * self.C.shape[1]:
            rows = self.C.shape[0] * self.C.shape[1]
            raise ValueError(
                f"factor must have K m = {rows} rows for C of shape {self.C.shape}, got "
                f"{self.factor.shape}"
            )
        self.epsilon = positive(epsilon, "epsilon")
        self.delta = float(unit_interval(delta, "delta"))
        if not isinstance(designer, str):
            raise TypeError(f"designer must be a string, got {type(designer).__name__}")
        if stream is None:
            stream = _noise_stream(self.C, self.factor)
        elif not isinstance(stream, ReleaseStream) or stream.n != n:
            got = (
                f"one about a {stream.n}-dim x0"
                if isinstance(stream, ReleaseStream)
                else (type(stream).__name__)
            )
            raise TypeError(f"stream must be a ReleaseStream about a {n}-dim x0, got {got}")
        self.convention, self.designer, self.stream = convention, designer, stream
        self.leakage = stream_leakage(self.Sigma_XX, stream, self.delta, convention)
        self._certificate, self._blocks = None, None

    @classmethod
    def design(cls, item, Sigma_XX, epsilon, delta, *, designer="logdet", convention="exact"):
        """The mechanism of one pass that meets an (epsilon, delta)-PML budget for the pass.

        Parameters
        ----------
        item : Pass
            The pass: its maps ``C`` (K, 4, 6) and sensor noise covariance ``R`` (4, 4)
            (:class:`~ssa_privacy.sensors.streams.Pass`).
        Sigma_XX : array_like, shape (6, 6)
            Prior covariance of x0 (km^2, km^2/s, km^2/s^2), positive definite.
        epsilon : float
            The pass budget, nats, above condition (9) of [LKC] for the pass (8.41 nats
            when the pass sees all of x0, at delta = 0.01).
        delta : float
            Failure probability in (0, 1).
        designer : {"logdet", "scaled"}, optional
            Which design (module docstring; default ``"logdet"``).
        convention : {"exact", "paper"}, optional
            Which leakage formula.

        Returns
        -------
        PassMechanism
            The pass's noise factor, its stream and leakage, and a certificate that passes.

        Raises
        ------
        TypeError
            If ``item`` is not a Pass.
        ValueError
            On an unknown designer, a pass with non-finite maps or a sensor covariance
            that is not positive definite, or as the designers (a budget below condition
            (9), a prior that is not positive definite).
        RuntimeError
            If tightening the budget by up to ``SLACK_LIMIT`` nats
            (:mod:`~ssa_privacy.privacy.pml.stream_design`) does not certify the design.
        """
        if designer not in DESIGNERS:
            raise ValueError(f"designer must be one of {', '.join(DESIGNERS)}, got {designer!r}")
        C = np.asarray(_checked_pass(item, "item").C, dtype=float)
        design, factor, blocks = _pass_design(
            item.R, C, Sigma_XX, epsilon, delta, designer, convention
        )
        mechanism = cls(
            C,
            Sigma_XX,
            factor,
            epsilon,
            delta,
            convention=convention,
            designer=designer,
            stream=design.stream,
        )
        mechanism._certificate = design.certificate  # the same stream_certificate call
        mechanism._blocks = blocks  # F's diagonal blocks (the scaled design), for noise_covariance
        return mechanism

    def __repr__(self):
        K, m, n = self.C.shape
        return (
            f"PassMechanism(K={K}, m={m}, n={n}, rank={self.factor.shape[1]}, "
            f"epsilon={self.epsilon:g}, delta={self.delta:g}, designer={self.designer!r})"
        )

    @functools.cached_property
    def noise_covariance(self):
        """``F F^T`` as a :class:`~ssa_privacy.privacy.mechanism.FactoredCovariance`
        (from the blocks of a block-diagonal F of the scaled design, block by block)."""
        U, s = _factor_svd(self.factor) if self._blocks is None else _blocks_svd(self._blocks)
        return FactoredCovariance(s**2, U, self.designer)

    @property
    def Theta(self):
        """``F F^T``, shape (K m, K m) (release units squared)."""
        return self.factor @ self.factor.T

    @property
    def Theta_blocks(self):
        """``Theta``'s diagonal blocks (K, m, m) when the noise is independent across the
        measurements (the scaled design: ``L_k L_k^T`` of F's blocks), else None."""
        if self._blocks is None:
            return None
        return self._blocks @ np.swapaxes(self._blocks, 1, 2)

    def certificate(self):
        """The (epsilon, delta)-PML guarantee of the stack, recomputed from its stream.

        Returns
        -------
        Certificate
            :func:`~ssa_privacy.privacy.pml.stream.stream_certificate` of ``stream`` for
            the budget: information form, ``margin`` (nats) epsilon minus the
            (1 - delta)-quantile of the leakage, ``tolerance`` a rigorous bound on its
            rounding error; the evidence counts the releases and rows.
        """
        if self._certificate is None:
            self._certificate = stream_certificate(
                self.Sigma_XX, self.stream, self.epsilon, self.delta, self.convention
            )
        return self._certificate

    def with_noise(self, noise_covariance):
        """The same stack and budget with another noise covariance (for audits).

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like, shape (K m, K m)
            The new ``F F^T``, positive semi-definite; its range must hold that of the
            stacked C.

        Returns
        -------
        PassMechanism
            With ``designer="given"`` and ``F = U diag(sqrt(lambda))``; its stream and
            certificate are recomputed from the new noise.

        Raises
        ------
        ValueError
            As the constructor, or if the noise is not positive semi-definite of size K m.
        """
        noise = as_factored(noise_covariance, len(self.factor), "noise_covariance")
        factor = noise.eigenvectors * np.sqrt(noise.eigenvalues)
        try:
            stream = _noise_stream(self.C, factor)
        except ValueError as error:
            raise ValueError(f"noise_covariance: {error}") from None
        parameters = (self.C, self.Sigma_XX, factor, self.epsilon, self.delta)
        return PassMechanism(*parameters, convention=self.convention, stream=stream)

    def release(self, data, *, seed=None):
        """Release the stack with its noise: ``y + F e``, ``e`` the first r of K m normals.

        Parameters
        ----------
        data : array_like, shape (K m,) or (K, m)
            The measurements of the stack (release units), measurement after measurement.
        seed : None, int, sequence of int, SeedSequence or Generator, optional
            Randomness (:func:`~ssa_privacy._internal.random.random_generator`); None
            (default) draws fresh entropy. A Generator passed in is advanced by K m
            normals whatever the rank (module docstring of the class).

        Returns
        -------
        Release
            ``values`` of the shape of ``data``, the noise covariance, the certificate and
            the seed record; ``details`` holds ``designer`` and ``rank`` (r).

        Raises
        ------
        ValueError
            If ``data`` is not finite or not of shape (K m,) or (K, m).
        TypeError
            On an invalid seed.
        """
        K, m, _ = self.C.shape
        y = as_finite_array(data, "data")
        if y.shape not in ((K * m,), (K, m)):
            raise ValueError(f"data must have shape ({K * m},) or ({K}, {m}), got {y.shape}")
        rng = random_generator(seed)
        normals = rng.standard_normal(K * m)
        noise = self.factor @ normals[: self.factor.shape[1]]
        details = {"designer": self.designer, "rank": self.factor.shape[1]}
        values = y + noise.reshape(y.shape)
        return Release(
            values, self.noise_covariance, self.certificate(), seed_record(seed), details
        )


def per_measurement_epsilons(Sigma_XX, found, epsilon, delta, convention="exact"):
    """Epsilon reached by each pass and by the window under per-measurement designs.

    Parameters
    ----------
    Sigma_XX : array_like, shape (6, 6)
        Prior covariance of x0 (km^2, km^2/s, km^2/s^2), positive definite.
    found : list of Pass
        The passes (:func:`~ssa_privacy.sensors.streams.object_stream`).
    epsilon : float
        The per-measurement level, nats: each measurement's noise is
        ``linear_mechanism_noise(C_k, Sigma_XX, epsilon, delta)`` ([LKC] Corollary 3.7).
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    pass_epsilons : ndarray, shape (len(found),)
        The achieved epsilon of each pass's releases together (nats).
    window_epsilon : float
        The achieved epsilon of all passes composed (nats); 0 without passes.

    Raises
    ------
    TypeError
        If ``found`` is not a list of Pass or ``epsilon`` not a real number.
    ValueError
        As :func:`~ssa_privacy.privacy.pml.design.linear_mechanism_noise` (an epsilon
        below the necessary condition (9) for 4 rows) or
        :func:`~ssa_privacy.privacy.pml.stream.stream_leakage`.

    Notes
    -----
    The privacy noise alone is counted (the sensor noise is the data owner's, and a
    conservative guarantee does not rely on it), as in the per-measurement design.
    """
    epsilon = scalar(epsilon, "epsilon")
    streams = [
        ReleaseStream.of(p.C, linear_mechanism_noise(p.C, Sigma_XX, epsilon, delta, convention))
        for p in _checked_passes(found, "found", empty=True)
    ]
    reached = [s.epsilon(Sigma_XX, delta, convention) for s in streams]
    if not streams:
        return np.array(reached), 0.0
    return np.array(reached), streams[0].compose(*streams[1:]).epsilon(Sigma_XX, delta, convention)
