"""Discrete-time linear time-invariant plants driven by Gaussian process noise.

A plant is::

    X_{k+1} = A X_k + W_k,    Z_k = C X_k,    W_k ~ N(0, Q) i.i.d.,

held as a python-control :class:`control.StateSpace` (input matrix the identity, so the
input is the process noise ``W_k`` itself) together with the noise covariance ``Q``.
The privacy mechanism adds ``V_k ~ N(0, Theta)`` to ``Z_k`` (see
:mod:`ssa_privacy.privacy.pml.design`). The adversary's prior on the state is the
stationary distribution ``N(0, Sigma_XX)`` with ``Sigma_XX`` from the discrete Lyapunov
equation [LKC] (27); see :doc:`/theory/kalman-bounds`.

``Q`` may be singular, as it is when the noise enters through fewer inputs than states
(``Q = B Q_w B^T`` with ``rank B < n``): ``A`` is Schur stable, so the stationary prior
exists. It is positive definite when ``(A, Q^{1/2})`` is controllable; otherwise the
uncontrollable directions have zero prior variance (:func:`prior_range`), are known to
the adversary in advance and need no privacy noise.

Every function of the package that takes a plant also takes a discrete-time python-control
``StateSpace`` ``x_{k+1} = A x_k + B w_k``, ``z_k = C x_k``: :func:`as_plant` (through
:meth:`LTIPlant.from_statespace`) folds the input matrix into ``Q = B Q_w B^T``, with
``Q_w`` the covariance of ``w`` (``process_noise``, default the identity).

Units: the state is in the plant's physical unit (for the zone-temperature model, the
temperature deviation from its set point in kelvin); ``Q`` and ``Sigma_XX`` are in that
unit squared; the time step is one sampling period.

The Clohessy-Wiltshire plant of a station-kept satellite is in
:mod:`ssa_privacy.orbits.relative_motion` (its names stay importable from here).
:func:`white_noise_covariance` integrates continuous white noise over a sampling period.

References
----------
[LKC] L. Liu, Y. Kawano, M. Cao, "Privacy protection under the exposure of systems'
prior information" (pointwise maximal leakage for LTI systems).
"""

from dataclasses import dataclass, field

import control
import numpy as np
from scipy import linalg

from ssa_privacy._internal.matrix_validation import covariance_stack, psd_matrix, schur_stable
from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    as_matrix,
    nonempty,
    positive,
    positive_int,
    scalar,
    vector,
)

__all__ = [
    "LTIPlant",
    "PRIOR_RANK_RTOL",
    "as_plant",
    "network",
    "prior_covariance",
    "prior_range",
    "white_noise_covariance",
    "zone_temperature_plant",
    "zone_temperature_plants",
]


def prior_covariance(A, Q=None, *, process_noise=None):
    """Stationary state covariance ``Sigma_XX`` solving ``Sigma_XX = A Sigma_XX A^T + Q``.

    Parameters
    ----------
    A : array_like, shape (n, n) or (N, n, n), or LTIPlant or control.StateSpace
        Schur-stable state matrix, or a stack of N of them (one per agent); or a plant,
        whose own ``A`` and ``Q`` are used (then ``Q`` must be omitted).
    Q : array_like, shape (n, n) or (N, n, n)
        Positive semi-definite process-noise covariance(s), in state units squared;
        broadcast against ``A``.
    process_noise : array_like, shape (p, p), optional
        Covariance of the input of a StateSpace ``A`` (:func:`as_plant`).

    Returns
    -------
    Sigma_XX : ndarray, shape (n, n) or (N, n, n)
        The prior (stationary) covariance, symmetric positive semi-definite, state units
        squared: positive definite exactly when ``(A, Q^{1/2})`` is controllable.

    Raises
    ------
    ValueError
        If ``A`` is not Schur stable, ``Q`` is not symmetric positive semi-definite, the
        stacks disagree on the number of agents, or ``Q`` is missing (or given with a
        plant).
    TypeError
        As :func:`as_plant`, for a system that is not a plant, or for entries that are not
        real numbers.

    Notes
    -----
    [LKC] equation (27) (and (32) per agent). A single matrix is solved with
    :func:`control.dlyap`; a stack is solved at once through the vectorised Kronecker
    form ``(I - A (x) A) vec(Sigma_XX) = vec(Q)`` (batched :func:`numpy.linalg.solve`),
    which is exact and fast for the small state dimensions of an agent.
    """
    if _is_system(A):
        if Q is not None:
            raise ValueError("Q must be omitted when A is a plant: the plant carries its Q")
        return as_plant(A, process_noise).prior_covariance()
    if Q is None:
        raise ValueError("Q (the process-noise covariance) is required with a matrix A")
    A = schur_stable(A)
    Q = covariance_stack(Q, "Q", A.shape[-1], definite=False)
    if A.ndim == 2 and Q.ndim == 2:
        Sigma = control.dlyap(A, Q)
        return 0.5 * (Sigma + Sigma.T)
    try:
        A, Q = np.broadcast_arrays(A, Q)
    except ValueError:
        raise ValueError(
            f"A (shape {A.shape}) and Q (shape {Q.shape}) disagree on the number of agents"
        ) from None
    n = A.shape[-1]
    kron = np.einsum("...ij,...kl->...ikjl", A, A).reshape(*A.shape[:-2], n * n, n * n)
    vec = np.linalg.solve(np.eye(n * n) - kron, Q.reshape(*Q.shape[:-2], n * n, 1))
    Sigma = vec.reshape(Q.shape)
    return 0.5 * (Sigma + np.swapaxes(Sigma, -1, -2))


#: Prior variances below this fraction of the largest are taken as zero by
#: :func:`prior_range` (the round-off of the Lyapunov solution is far below it).
PRIOR_RANK_RTOL = 1e-10


def prior_range(Sigma_XX):
    """Orthonormal basis of the range of a stationary prior: the states that can vary.

    Parameters
    ----------
    Sigma_XX : array_like, shape (n, n)
        Positive semi-definite prior covariance (:func:`prior_covariance`), state units
        squared.

    Returns
    -------
    U : ndarray, shape (n, r)
        Orthonormal columns spanning the eigenvectors of ``Sigma_XX`` whose eigenvalue
        exceeds ``PRIOR_RANK_RTOL`` times the largest; ``r = n`` for a positive definite
        prior. ``X = U U^T X`` almost surely, and ``U^T Sigma_XX U`` is positive definite.

    Raises
    ------
    ValueError
        If ``Sigma_XX`` is not a symmetric positive semi-definite matrix.

    Notes
    -----
    The range of the solution of ``Sigma = A Sigma A^T + Q`` is the controllable
    subspace of ``(A, Q^{1/2})`` (Kalman's decomposition): the complement has zero
    variance, so the prior of [LKC] (27) is a density on the range only.
    """
    eigenvalues, vectors = np.linalg.eigh(psd_matrix(Sigma_XX, "Sigma_XX"))
    keep = eigenvalues > PRIOR_RANK_RTOL * max(eigenvalues[-1], 0.0)
    return vectors[:, keep]


def _psd_factor(M):
    """A factor ``F`` with ``F F^T = M`` of a positive semi-definite matrix: the Cholesky
    factor when it exists (so that seeded draws of a definite plant stay as they were),
    else from the eigendecomposition."""
    try:
        return np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        eigenvalues, vectors = np.linalg.eigh(M)
        return vectors * np.sqrt(np.maximum(eigenvalues, 0.0))


def _is_system(value):
    """Whether ``value`` is a plant (an LTIPlant or any python-control system)."""
    return isinstance(value, LTIPlant | control.LTI)


def _sampling_period(dt):
    """``True`` (discrete time, period unspecified) or a finite positive period."""
    if dt is True or (isinstance(dt, np.bool_) and dt):
        return True
    if isinstance(dt, str | bytes | complex):
        raise TypeError(f"dt must be True or a positive sampling period in seconds, got {dt!r}")
    try:
        period = float(dt) if dt is not None and not isinstance(dt, bool | np.bool_) else 0.0
    except (TypeError, ValueError):
        period = np.nan
    if not (np.isfinite(period) and period > 0):
        raise ValueError(
            f"dt must be True (discrete time, period unspecified) or a positive sampling "
            f"period in seconds, got {dt!r}: a continuous-time model (dt = 0) must first be "
            "discretised, e.g. with control.c2d"
        )
    return period


@dataclass(frozen=True)
class LTIPlant:
    """A discrete-time LTI plant ``X_{k+1} = A X_k + W_k``, ``Z_k = C X_k``, ``W_k ~ N(0, Q)``.

    Parameters
    ----------
    A : array_like, shape (n, n), or control.StateSpace
        Schur-stable state matrix (dimensionless, per sampling period). A discrete-time
        python-control system ``LTIPlant(sys)`` is converted by :meth:`from_statespace`
        with its default process noise (use that method for another one).
    C : array_like, shape (m, n)
        Output matrix.
    Q : array_like, shape (n, n)
        Positive semi-definite process-noise covariance, state units squared; singular
        when the noise drives fewer directions than states (the stationary prior exists
        because ``A`` is Schur stable).
    dt : float or True, optional
        Sampling period in seconds, or ``True`` for an unspecified period (default).

    Attributes
    ----------
    system : control.StateSpace
        The discrete-time state-space model with input ``W_k`` (``B = I``), output
        ``Z_k`` and ``D = 0``.

    Raises
    ------
    ValueError
        If ``A`` is not Schur stable, ``C`` has the wrong shape or no row, ``Q`` is not
        symmetric positive semi-definite, or ``dt`` is not True or a positive period
        (``dt = 0`` is continuous time).
    TypeError
        If ``C`` or ``Q`` is missing, or given with a StateSpace, or an entry or ``dt``
        is of the wrong type (a bool, a string).

    Notes
    -----
    [LKC] system (23) without the measurement noise, which the privacy mechanism adds.
    """

    A: np.ndarray
    C: np.ndarray = None
    Q: np.ndarray = None
    dt: object = True
    system: control.StateSpace = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if isinstance(self.A, control.LTI):
            if self.C is not None or self.Q is not None or self.dt is not True:
                raise TypeError(
                    "LTIPlant(sys) takes a python-control system alone (its dt, process noise "
                    "N(0, I) on its inputs); use LTIPlant.from_statespace(sys, process_noise) "
                    "for another process noise"
                )
            plant = LTIPlant.from_statespace(self.A)
            for name in ("A", "C", "Q", "dt", "system"):
                object.__setattr__(self, name, getattr(plant, name))
            return
        if self.C is None or self.Q is None:
            raise TypeError("LTIPlant(A, C, Q, dt) needs the output matrix C and the covariance Q")
        A = schur_stable(as_matrix(self.A, "A"))
        n = A.shape[0]
        C = nonempty(as_matrix(self.C, "C", (None, n)), "C")
        Q = covariance_stack(self.Q, "Q", n, definite=False)
        dt = _sampling_period(self.dt)
        system = control.ss(A, np.eye(n), C, np.zeros((C.shape[0], n)), dt)
        for name, value in (("A", A), ("C", C), ("Q", Q), ("dt", dt), ("system", system)):
            object.__setattr__(self, name, value)

    def __reduce__(self):
        """Pickle by the matrices (python-control systems hold unpicklable lambdas)."""
        return (LTIPlant, (self.A, self.C, self.Q, self.dt))

    @classmethod
    def from_statespace(cls, sys, process_noise=None):
        """The plant of a discrete-time python-control system driven by Gaussian noise.

        ``x_{k+1} = A x_k + B w_k``, ``z_k = C x_k``, ``w_k ~ N(0, Q_w)``, becomes
        ``X_{k+1} = A X_k + W_k`` with ``W_k = B w_k ~ N(0, B Q_w B^T)``.

        Parameters
        ----------
        sys : control.StateSpace
            Discrete-time system (``sys.dt`` True or a positive period), ``D = 0``.
        process_noise : float or array_like, shape (p, p), optional
            Covariance ``Q_w`` of the input ``w`` (p inputs), positive semi-definite; a
            float q means ``q I_p``. Default: the identity, ``w ~ N(0, I)``.

        Returns
        -------
        LTIPlant
            With ``A``, ``C``, ``Q = B Q_w B^T`` and the system's ``dt``.

        Raises
        ------
        TypeError
            If ``sys`` is not a StateSpace (convert a transfer function with
            ``control.ss``).
        ValueError
            If ``sys`` is continuous time (discretise it with ``control.c2d``) or has no
            time base, ``D`` is not zero, ``A`` is not Schur stable (no stationary prior),
            or ``process_noise`` is not a (p, p) positive semi-definite matrix.

        Notes
        -----
        [LKC] system (23) and prior (27); :doc:`/theory/kalman-bounds`. ``Q`` is singular
        when ``rank B < n`` (noise entering through the inputs); the prior then solves
        the same Lyapunov equation and is singular exactly when ``(A, B Q_w^{1/2})`` is
        not controllable (:func:`prior_range`).
        """
        if not isinstance(sys, control.StateSpace):
            hint = " (convert it with control.ss)" if isinstance(sys, control.LTI) else ""
            raise TypeError(f"sys must be a control.StateSpace, got {type(sys).__name__}{hint}")
        if sys.dt is None or (sys.dt is not True and sys.dt == 0):
            kind = "continuous-time (dt = 0)" if sys.dt is not None else "without time base"
            raise ValueError(
                f"sys is {kind}: the plant must be discrete time; discretise it first, e.g. "
                "control.c2d(sys, Ts), and give the covariance of the integrated noise (see "
                "ssa_privacy.plants.white_noise_covariance)"
            )
        A, B, C, D = (np.asarray(M, dtype=float) for M in (sys.A, sys.B, sys.C, sys.D))
        if np.any(D != 0):
            raise ValueError(
                "sys has a feedthrough D != 0: the output would carry the process noise "
                "directly; the plant needs z_k = C x_k (D = 0)"
            )
        n, p = B.shape
        if process_noise is None:
            Q_w = np.eye(p)
        elif np.ndim(process_noise) == 0:
            Q_w = positive(process_noise, "process_noise") * np.eye(p)
        else:
            Q_w = psd_matrix(process_noise, "process_noise", p)
        Q = B @ Q_w @ B.T
        return cls(A, C, 0.5 * (Q + Q.T), sys.dt)

    @property
    def n(self):
        """State dimension."""
        return self.A.shape[0]

    @property
    def m(self):
        """Output dimension."""
        return self.C.shape[0]

    def prior_covariance(self):
        """Stationary state covariance ``Sigma_XX``, [LKC] (27); see :func:`prior_covariance`.

        Returns
        -------
        ndarray, shape (n, n)
            ``Sigma_XX = A Sigma_XX A^T + Q``, symmetric positive semi-definite.
        """
        return prior_covariance(self.A, self.Q)

    def simulate(self, steps, runs=1, rng=None, x0=None):
        """Simulate state trajectories, started from the stationary prior by default.

        Parameters
        ----------
        steps : int
            Number of time steps T (states ``X_0 ... X_{T-1}``).
        runs : int, optional
            Number of independent runs R.
        rng : numpy.random.Generator or int or None, optional
            Source of randomness; ``None`` draws fresh entropy.
        x0 : array_like, shape (n,), optional
            Initial state of every run; by default ``X_0 ~ N(0, Sigma_XX)`` independently
            per run, so that every ``X_k`` has the stationary distribution.

        Returns
        -------
        X : ndarray, shape (R, T, n)
            The states, in state units.

        Raises
        ------
        ValueError
            If ``steps`` or ``runs`` is not a positive integer, or ``x0`` has the wrong
            shape or non-finite entries.
        TypeError
            On an argument of the wrong type (a bool, a string, a bad ``rng``).
        """
        steps, runs = positive_int(steps, "steps"), positive_int(runs, "runs")
        rng = random_generator(rng, "rng")
        if x0 is None:
            state = rng.standard_normal((runs, self.n)) @ _psd_factor(self.prior_covariance()).T
        else:
            state = np.tile(vector(x0, "x0", self.n), (runs, 1))
        noise = rng.standard_normal((steps, runs, self.n)) @ _psd_factor(self.Q).T
        X = np.empty((runs, steps, self.n))
        for k in range(steps):
            X[:, k] = state
            state = state @ self.A.T + noise[k]
        return X


def as_plant(plant, process_noise=None, name="plant"):
    """An :class:`LTIPlant` from an LTIPlant or a discrete-time python-control StateSpace.

    Parameters
    ----------
    plant : LTIPlant or control.StateSpace
        The plant.
    process_noise : float or array_like, shape (p, p), optional
        Covariance of the input of a StateSpace (:meth:`LTIPlant.from_statespace`;
        default identity). Not allowed with an LTIPlant, which carries its own Q.
    name : str, optional
        The argument's name in error messages.

    Returns
    -------
    LTIPlant
        ``plant`` itself, or the converted system.

    Raises
    ------
    TypeError
        If ``plant`` is neither an LTIPlant nor a python-control StateSpace.
    ValueError
        As :meth:`LTIPlant.from_statespace`, or ``process_noise`` given with an LTIPlant.
    """
    if isinstance(plant, LTIPlant):
        if process_noise is not None:
            raise ValueError(
                f"process_noise applies to a python-control StateSpace; the LTIPlant {name} "
                "carries its own Q"
            )
        return plant
    if isinstance(plant, control.LTI):
        return LTIPlant.from_statespace(plant, process_noise)
    raise TypeError(
        f"{name} must be an LTIPlant or a discrete-time control.StateSpace, "
        f"got {type(plant).__name__}"
    )


def zone_temperature_plant(a, q, b=1.0, dt=True):
    """Zone-temperature model of a building zone, [LKC] §2.1.

    ``X_{k+1} = a X_k + b W_k`` with ``W_k ~ N(0, q)`` the occupancy disturbance; the
    zone reports its temperature deviation ``Z_k = X_k``.

    Parameters
    ----------
    a : float
        Decay factor of the temperature deviation per sampling period, ``|a| < 1``.
    q : float
        Variance of the occupancy disturbance ``W_k``, K^2 (before scaling by ``b``).
    b : float, optional
        Gain of the disturbance on the temperature (default 1).
    dt : float or True, optional
        Sampling period in seconds, or ``True`` when unspecified (default).

    Returns
    -------
    LTIPlant
        Scalar plant with ``A = a``, ``C = 1`` and ``Q = b^2 q`` (K^2).

    Raises
    ------
    ValueError
        If ``|a| >= 1``, ``q <= 0``, ``b = 0`` or a value is not finite.
    TypeError
        If a parameter is not a real number (a bool, a string, None).

    Notes
    -----
    [LKC] §2.1; the stationary variance is ``b^2 q / (1 - a^2)``.
    """
    a = scalar(a, "a", low=-1.0, high=1.0, low_open=True, high_open=True)
    q, b = positive(q, "q"), scalar(b, "b")
    if b == 0:
        raise ValueError("b must be non-zero: with b = 0 no disturbance drives the zone")
    return LTIPlant([[a]], [[1.0]], [[b * b * q]], dt)


def zone_temperature_plants(a, q, b=1.0, dt=True):
    """The N zones of a building, [LKC] §2.1 and §5.2, one :class:`LTIPlant` each.

    Parameters
    ----------
    a, q, b : float or array_like, shape (N,)
        Per-zone parameters of :func:`zone_temperature_plant`, broadcast together.
    dt : float or True, optional
        Common sampling period.

    Returns
    -------
    list of LTIPlant
        One scalar plant per zone.

    Raises
    ------
    ValueError
        As :func:`zone_temperature_plant`, for any zone.
    """
    arrays = [np.atleast_1d(as_finite_array(v, name)) for v, name in ((a, "a"), (q, "q"), (b, "b"))]
    try:
        a, q, b = np.broadcast_arrays(*arrays)
    except ValueError:
        raise ValueError(
            f"a, q and b must broadcast together, got shapes {[v.shape for v in arrays]}"
        ) from None
    if a.ndim != 1:
        raise ValueError(f"a, q and b must be numbers or vectors (N,), got shape {a.shape}")
    return [zone_temperature_plant(ai, qi, bi, dt) for ai, qi, bi in zip(a, q, b)]


def network(plants):
    """Block-diagonal plant of N independent subsystems, [LKC] (30).

    Parameters
    ----------
    plants : sequence of LTIPlant or control.StateSpace
        The subsystems, with a common sampling period (a StateSpace with process noise
        ``N(0, I)`` on its inputs, :func:`as_plant`).

    Returns
    -------
    LTIPlant
        The network, state ``(X_1, ..., X_N)`` and output ``(Z_1, ..., Z_N)`` stacked in
        order; ``A``, ``C`` and ``Q`` are block diagonal.

    Raises
    ------
    ValueError
        If ``plants`` is empty or the sampling periods differ.
    TypeError
        If an element is not a plant.
    """
    if isinstance(plants, LTIPlant | control.LTI) or not hasattr(plants, "__iter__"):
        raise TypeError(f"plants must be a sequence of plants, got {type(plants).__name__}")
    plants = [as_plant(p, name=f"plants[{i}]") for i, p in enumerate(plants)]
    if not plants:
        raise ValueError("plants must hold at least one LTIPlant")
    if len({str(p.dt) for p in plants}) > 1:
        raise ValueError(f"plants have different sampling periods: {[p.dt for p in plants]}")
    blocks = {name: linalg.block_diag(*(getattr(p, name) for p in plants)) for name in "ACQ"}
    return LTIPlant(blocks["A"], blocks["C"], blocks["Q"], plants[0].dt)


def white_noise_covariance(A, B, psd, dt):
    """Covariance of continuous white noise integrated over one sampling period.

    ``Q_d = int_0^dt expm(A s) B W B^T expm(A^T s) ds`` for ``x' = A x + B w`` with ``w``
    white of power spectral density ``W``.

    Parameters
    ----------
    A : array_like, shape (n, n)
        Continuous-time state matrix (1/s).
    B : array_like, shape (n, p)
        Noise input matrix.
    psd : array_like, shape (p, p)
        Power spectral density ``W`` of the noise, positive semi-definite (for
        accelerations, km^2/s^3).
    dt : float
        Sampling period (s).

    Returns
    -------
    ndarray, shape (n, n)
        ``Q_d``, symmetric positive semi-definite, state units squared.

    Raises
    ------
    ValueError
        On shape mismatches, non-finite values, an invalid ``psd`` or ``dt <= 0``.

    Notes
    -----
    C. F. Van Loan, "Computing integrals involving the matrix exponential", IEEE TAC
    23(3), 1978: with ``M = [[-A, B W B^T], [0, A^T]] dt`` and ``F = expm(M)``,
    ``Q_d = F_22^T F_12`` (:func:`scipy.linalg.expm`).
    """
    A = nonempty(as_matrix(A, "A"), "A")
    n = A.shape[0]
    if A.shape != (n, n):
        raise ValueError(f"A must be square, got shape {A.shape}")
    B = as_matrix(B, "B", (n, None))
    W = psd_matrix(psd, "psd", B.shape[1])
    dt = positive(dt, "dt")
    F = linalg.expm(np.block([[-A, B @ W @ B.T], [np.zeros((n, n)), A.T]]) * dt)
    Q = F[n:, n:].T @ F[:n, n:]
    return 0.5 * (Q + Q.T)
