"""One (epsilon, delta)-PML budget for an object's whole day, over every station's passes.

A pass budget (:class:`~ssa_privacy.privacy.pml.passes.PassMechanism`) bounds the PML of
one pass; the day's passes then compose
(:meth:`~ssa_privacy.privacy.pml.stream.ReleaseStream.compose`) to a leakage nobody
designed. :class:`DayMechanism` designs the day instead, before it starts, from the
predicted passes (their maps C are known from the public element set): each pass gets
its own noise, independent of the other passes' (block diagonal over the day, as each
station adds its own), and the composed day stream, privacy noise alone, meets
``epsilon_day`` exactly (to within 1e-9 nats below) with a passing rigorous certificate.
Four designers (:data:`DAY_DESIGNERS`), compared at equal day leakage:

``"day"``
    Of the ``"trace"`` and ``"pass"`` designs, the one whose releases leave the least
    predicted estimation error ``tr(W P)``, ``P = (Sigma_XX^{-1} + J)^{-1}`` the
    posterior covariance of x0 given the day's releases (J their information, privacy
    noise alone) and W the user's error metric (default ``Sigma_XX^{-1}``: the error in
    units of the prior; a tracking study passes the squared position error at its
    evaluation times). Equal leakage leaves the same mutual information, but not the
    same error: the trace design concentrates it where the noise is cheap, which may not
    be where the estimate needs it. A user whose estimator is not linear passes its own
    ``score`` of the candidates instead (the catalogue study simulates its filter).
``"trace"``
    The least total noise trace ``sum_p tr Theta_p`` (rows in units of their sensor noise)
    subject to ``I(x0; day) <= (epsilon_day - F^{-1}_{chi^2_l}(1 - delta) / 2) / w``
    ([LKC] Theorem 3.3, (8)), a convex problem (the information is convex in the block
    diagonal noise), solved by block-coordinate descent on the passes' sufficient
    statistics (:func:`~ssa_privacy.privacy.pml.day_noise.day_logdet_noise`).
``"pass"``
    Every pass's log-det design (``PassMechanism.design(..., designer="logdet")``) at
    one common pass budget t, the root at which the day composes to ``epsilon_day``.
``"measurement"``
    Today's per-measurement designs ([LKC] Corollary 3.7) scaled by one common factor
    over the whole day (as :func:`~ssa_privacy.privacy.pml.stream_design.design_stream_noise`).

Passes whose maps are zero get no noise and add nothing. Theory: :doc:`/theory/pml-stream`.
"""

from functools import cached_property, partial

import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import pd_cholesky, psd_matrix
from ssa_privacy._internal.random import random_generator, seed_record
from ssa_privacy._internal.validation import (
    as_finite_array,
    boolean_mask,
    positive,
    unit_interval,
    vector,
)
from ssa_privacy.privacy.mechanism import Release, as_factored
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml._day_designers import (
    DESIGNS,
    DayProblem,
    day_stream,
    predicted_errors,
)
from ssa_privacy.privacy.pml.day_noise import (
    BlockDiagonalCovariance,
    _pass_blocks,
)
from ssa_privacy.privacy.pml.passes import PassMechanism
from ssa_privacy.privacy.pml.stream import (
    stream_certificate,
    stream_leakage,
)
from ssa_privacy.privacy.pml.stream_design import (
    FIRST_SLACK,
    SLACK_LIMIT,
    _tightened,
)

__all__ = [
    "DAY_DESIGNERS",
    "DayMechanism",
]

#: The day-level designers of :meth:`DayMechanism.design`.
DAY_DESIGNERS = ("day", "trace", "pass", "measurement")


def _posterior_trace(Sigma_XX, J, W):
    """``tr(W P)``, ``P = L (I + L^T J L)^{-1} L^T`` by Cholesky factors."""
    L = np.linalg.cholesky(Sigma_XX)
    J_u = L.T @ J @ L
    root = np.linalg.cholesky(np.eye(len(L)) + 0.5 * (J_u + J_u.T))
    A = linalg.solve_triangular(root, L.T, lower=True)  # P = A^T A
    return float(np.trace(A @ W @ A.T))


def _row_scales(row_scales, passes):
    """Each pass's row scales (K_p m,), finite and positive; ones when None."""
    if row_scales is None:
        return [np.ones(len(p.factor)) for p in passes]
    if not isinstance(row_scales, list | tuple) or len(row_scales) != len(passes):
        raise ValueError(f"row_scales must hold one array per pass ({len(passes)})")
    checked = []
    for index, (scales, item) in enumerate(zip(row_scales, passes)):
        name = f"row_scales[{index}]"
        scales = vector(scales, name, len(item.factor))
        if np.any(scales <= 0):
            raise ValueError(f"{name} must be positive (standard deviations)")
        checked.append(scales)
    return checked


class DayMechanism:
    """The day's passes of one object, each with its own noise, certified for one day budget.

    Built by :meth:`design` from the predicted passes; the constructor composes given pass
    mechanisms (for audits, :meth:`with_noise`).

    Parameters
    ----------
    passes : sequence of PassMechanism
        The day's passes in release order, with noises independent of each other.
    Sigma_XX : array_like, shape (n, n)
        Prior covariance of x0 (km^2, km^2/s, km^2/s^2), positive definite.
    epsilon : float
        The day budget epsilon_day, nats.
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}, optional
        Which leakage formula.
    designer : str, optional
        One of :data:`DAY_DESIGNERS`, or ``"given"`` (default).
    row_scales : sequence of ndarray, shape (K_p m,), optional
        Each pass's sensor noise standard deviations per row, the units of ``trace``
        (default 1: release units).

    Attributes
    ----------
    passes : list of PassMechanism
        Per pass its mechanism: its factor, its stream, its own achieved epsilon (plus
        ``PASS_ROUNDING`` nats so its own certificate passes; the pass budget t for
        ``"pass"``) as its ``epsilon``, and the designer's name.
    stream : ReleaseStream
        The passes' streams composed: what the adversary learns from the day.
    leakage : StreamLeakage
        Its PML at delta (``leakage.epsilon`` the achieved day epsilon).
    epsilon, delta, convention, designer, Sigma_XX, row_scales
        The budget and the validated arguments.
    trace : float
        ``sum_p tr Theta_p`` with each row in units of ``row_scales`` (dimensionless
        with the sensor noise standard deviations).

    Raises
    ------
    ValueError
        If ``passes`` is empty or holds mechanisms about another x0, or on an invalid
        budget, delta or convention.
    TypeError
        If an element of ``passes`` is not a PassMechanism.
    """

    def __init__(
        self,
        passes,
        Sigma_XX,
        epsilon,
        delta,
        *,
        convention="exact",
        designer="given",
        row_scales=None,
    ):
        convention_weight(convention)
        if not isinstance(passes, list | tuple):
            raise TypeError(f"passes must be a list of PassMechanism, got {type(passes).__name__}")
        if len(passes) == 0:
            raise ValueError("passes must be a non-empty list of PassMechanism")
        for index, item in enumerate(passes):
            if not isinstance(item, PassMechanism):
                raise TypeError(
                    f"passes[{index}] must be a PassMechanism, got {type(item).__name__}"
                )
        if not isinstance(designer, str):
            raise TypeError(f"designer must be a string, got {type(designer).__name__}")
        self.passes, self.designer, self.convention = list(passes), designer, convention
        self.candidate = designer
        pd_cholesky(Sigma_XX, "Sigma_XX", self.passes[0].C.shape[2])
        self.Sigma_XX = np.asarray(Sigma_XX, dtype=float)
        self.epsilon = positive(epsilon, "epsilon")
        self.delta = float(unit_interval(delta, "delta"))
        self.stream = day_stream(len(self.Sigma_XX), [p.stream for p in self.passes])
        self.leakage = stream_leakage(self.Sigma_XX, self.stream, self.delta, convention)
        self.row_scales = _row_scales(row_scales, self.passes)
        pairs = zip(self.passes, self.row_scales, strict=True)
        self.trace = float(sum(np.sum((p.factor / s[:, None]) ** 2) for p, s in pairs))
        self._certificate = None

    @classmethod
    def design(
        cls,
        passes,
        Sigma_XX,
        epsilon_day,
        delta,
        *,
        designer="day",
        convention="exact",
        weight=None,
        score=None,
    ):
        """The day mechanism of an object that meets (epsilon_day, delta)-PML exactly.

        Parameters
        ----------
        passes : list of Pass
            The day's predicted passes (:class:`~ssa_privacy.sensors.streams.Pass`, maps C
            (K, m, n) and sensor covariance R (m, m)), in release order.
        Sigma_XX : array_like, shape (n, n)
            Prior covariance of x0, positive definite.
        epsilon_day : float
            The day budget, nats, above ``F^{-1}_{chi^2_l}(1 - delta) / 2``, l the rank of
            the day's maps ([LKC] condition (9)).
        delta : float
            Failure probability in (0, 1).
        designer : {"day", "trace", "pass", "measurement"}, optional
            Module docstring (default ``"day"``, the least predicted error).
        convention : {"exact", "paper"}, optional
            Which leakage formula.
        weight : array_like, shape (n, n), optional
            The error metric W of the ``"day"`` designer, symmetric positive
            semi-definite (default ``Sigma_XX^{-1}``); ignored by the others.
        score : callable, optional
            The ``"day"`` designer's judge: called with the list of candidate designs
            (the ``"trace"`` one, then the ``"pass"`` one where a common pass budget is
            feasible), it returns one finite score per candidate, lower is better
            (default each candidate's :meth:`predicted_error` with ``weight``).

        Returns
        -------
        DayMechanism
            Its ``leakage.epsilon`` in ``[epsilon_day - 1e-9, epsilon_day]`` and its day
            certificate passes.

        Raises
        ------
        ValueError
            On an unknown designer, no passes, passes whose maps are all zero, an
            ``epsilon_day`` at or below the floor (infeasible), invalid arguments, or a
            ``score`` that does not return one finite number per candidate.
        TypeError
            If a pass is not a Pass.
        RuntimeError
            If tightening the budget by up to ``SLACK_LIMIT`` nats does not certify it.

        Notes
        -----
        Each designer is solved for ``epsilon_day - s``, s from ``FIRST_SLACK``, then past
        twice the certificate's deficit (as
        :func:`~ssa_privacy.privacy.pml.stream_design.stream_logdet_design`).
        """
        if designer not in DAY_DESIGNERS:
            raise ValueError(
                f"designer must be one of {', '.join(DAY_DESIGNERS)}, got {designer!r}"
            )
        if designer == "day":
            score = score or partial(predicted_errors, weight=weight)
            return cls._least_error(passes, Sigma_XX, epsilon_day, delta, convention, score)
        problem = DayProblem(passes, Sigma_XX, epsilon_day, delta, convention)
        slack, cache = FIRST_SLACK, {}
        scales = [scale for scale, _, _ in problem.statistics]
        while slack <= SLACK_LIMIT:
            members = DESIGNS[designer](problem, problem.target - slack, cache)
            mechanism = cls(
                members,
                problem.Sigma_XX,
                problem.epsilon,
                problem.delta,
                convention=convention,
                designer=designer,
                row_scales=scales,
            )
            certificate = mechanism.certificate()
            if certificate.passed and mechanism.leakage.epsilon <= problem.epsilon:
                return mechanism
            slack = _tightened(slack, certificate)
        raise RuntimeError(
            f"the {designer!r} day design does not certify epsilon_day {problem.epsilon!r} "
            f"after tightening it by {SLACK_LIMIT:g} nats"
        )

    @classmethod
    def _least_error(cls, passes, Sigma_XX, epsilon_day, delta, convention, score):
        """The "day" designer: the "trace" or "pass" design of the lower score."""
        candidates = [
            cls.design(
                passes, Sigma_XX, epsilon_day, delta, designer="trace", convention=convention
            )
        ]
        try:
            candidates.append(
                cls.design(
                    passes, Sigma_XX, epsilon_day, delta, designer="pass", convention=convention
                )
            )
        except ValueError:  # a common pass budget may be infeasible where the day is not
            pass
        returned = score(candidates)
        try:
            scores = np.asarray(returned, dtype=float)
        except (TypeError, ValueError):
            scores = None
        if scores is None or scores.shape != (len(candidates),) or not np.all(np.isfinite(scores)):
            raise ValueError(
                f"score must return one finite number per candidate ({len(candidates)}), "
                f"got {returned!r}"
            )
        best = candidates[int(np.argmin(scores))]
        best.candidate, best.designer = best.designer, "day"
        return best

    def predicted_error(self, weight=None):
        """``tr(W P)``: the error the day's releases leave about x0 (linear model).

        Parameters
        ----------
        weight : array_like, shape (n, n), or list of (mask, array_like), optional
            W, symmetric positive semi-definite (default ``Sigma_XX^{-1}``); or
            checkpoints ``(mask (P,) of bool, W_e (n, n))``, each the metric of an
            estimate made from the passes the mask selects (a filter's estimate at a time
            uses the passes that ended by then), averaged.

        Returns
        -------
        float
            ``tr(W P)`` with ``P = L (I + L^T J L)^{-1} L^T`` (``Sigma_XX = L L^T``, J the
            information of the releases, privacy noise alone): the posterior covariance
            of x0, in the units of W times those of x0 squared; for checkpoints, the mean
            over them.

        Raises
        ------
        TypeError
            If a checkpoint is not a pair or a mask not of booleans.
        ValueError
            If a W is not a finite symmetric positive semi-definite n x n matrix, a mask
            not of the passes, or the list of checkpoints is empty.
        """
        n = len(self.Sigma_XX)
        if weight is None:  # Sigma_XX^{-1}, by Cholesky solves
            weight = linalg.cho_solve(linalg.cho_factor(self.Sigma_XX), np.eye(n))
        if not isinstance(weight, list):
            weight = [(np.ones(len(self.passes), dtype=bool), weight)]
        if not weight:
            raise ValueError("weight must hold at least one checkpoint (mask, matrix)")
        informations = np.array([p.stream.information for p in self.passes])
        total = 0.0
        for index, pair in enumerate(weight):
            if not (isinstance(pair, tuple | list) and len(pair) == 2):
                raise TypeError(
                    f"weight[{index}] must be a pair (mask, matrix), got {type(pair).__name__}"
                )
            mask = boolean_mask(pair[0], f"weight[{index}] mask", len(self.passes))
            W = psd_matrix(pair[1], "weight" if len(weight) == 1 else f"weight[{index}]", n)
            total += _posterior_trace(self.Sigma_XX, informations[mask].sum(axis=0), W)
        return total / len(weight)

    def __repr__(self):
        return (
            f"DayMechanism(passes={len(self.passes)}, epsilon={self.epsilon:g}, "
            f"delta={self.delta:g}, designer={self.designer!r})"
        )

    def certificate(self):
        """The day's (epsilon, delta)-PML certificate, recomputed from the composed stream.

        Returns
        -------
        Certificate
            :func:`~ssa_privacy.privacy.pml.stream.stream_certificate` of ``stream``.
        """
        if self._certificate is None:
            self._certificate = stream_certificate(
                self.Sigma_XX, self.stream, self.epsilon, self.delta, self.convention
            )
        return self._certificate

    @cached_property
    def noise_covariance(self):
        """The day's noise, block diagonal over passes (over measurements where the
        pass's factor is), a :class:`~ssa_privacy.privacy.pml.day_noise.BlockDiagonalCovariance`."""
        return BlockDiagonalCovariance.of(
            [block for p in self.passes for block in _pass_blocks(p)], self.designer
        )

    def with_noise(self, noise_covariances):
        """The same passes and budget with other noises (for audits).

        Parameters
        ----------
        noise_covariances : sequence of FactoredCovariance or array_like
            One per pass, (K_p m, K_p m), as ``PassMechanism.with_noise``.

        Returns
        -------
        DayMechanism
            With ``designer="given"`` and this day's ``row_scales``; its stream, trace and
            certificate are recomputed.

        Raises
        ------
        ValueError
            If the number of noises is not that of the passes, or as
            ``PassMechanism.with_noise``.
        """
        if not isinstance(noise_covariances, list | tuple):
            raise TypeError(
                f"noise_covariances must be a list, one noise per pass, got "
                f"{type(noise_covariances).__name__}"
            )
        if len(noise_covariances) != len(self.passes):
            raise ValueError(f"noise_covariances must hold {len(self.passes)} noises")
        noises = [
            as_factored(N, len(p.factor), f"noise_covariances[{index}]")
            for index, (p, N) in enumerate(zip(self.passes, noise_covariances))
        ]
        passes = [p.with_noise(N) for p, N in zip(self.passes, noises, strict=True)]
        return DayMechanism(
            passes,
            self.Sigma_XX,
            self.epsilon,
            self.delta,
            convention=self.convention,
            row_scales=self.row_scales,
        )

    def release(self, data, *, seed=None):
        """Release the day: each pass's ``y_p + F_p e_p``, concatenated.

        Parameters
        ----------
        data : sequence of array_like, shape (K_p m,) or (K_p, m)
            The passes' measurements, in the order of ``passes``.
        seed : None, int, sequence of int, SeedSequence or Generator, optional
            Randomness; each pass draws its K_p m normals in turn from one generator, as
            ``passes[p].release(y_p, seed=rng)`` does, so that releasing pass by pass from
            the same generator gives the same values.

        Returns
        -------
        Release
            ``values`` (sum K_p m,), the block-diagonal noise covariance, the day
            certificate and the seed record; ``details`` holds ``designer`` and ``ranks``.

        Raises
        ------
        ValueError
            If ``data`` does not hold one finite array of the right shape per pass.
        TypeError
            On an invalid seed.
        """
        if not isinstance(data, list | tuple) or len(data) != len(self.passes):
            raise ValueError(f"data must be a list of {len(self.passes)} measurement arrays")
        rng = random_generator(seed)
        values = []
        for i, (p, y) in enumerate(zip(self.passes, data, strict=True)):
            K, m, _ = p.C.shape
            y = as_finite_array(y, f"data[{i}]")
            if y.shape not in ((K * m,), (K, m)):
                raise ValueError(
                    f"data[{i}] must have shape ({K * m},) or ({K}, {m}), got {y.shape}"
                )
            normals = rng.standard_normal(K * m)
            values.append(y.reshape(-1) + p.factor @ normals[: p.factor.shape[1]])
        details = {"designer": self.designer, "ranks": [p.factor.shape[1] for p in self.passes]}
        return Release(
            np.concatenate(values),
            self.noise_covariance,
            self.certificate(),
            seed_record(seed),
            details,
        )
