"""Design of PML-private Gaussian mechanisms [LKC §3.2], as functions and as a mechanism.

The release is ``Y = Z + V``, ``V ~ N(0, Theta)``, of a signal ``Z`` that is jointly
Gaussian with the private ``X`` (covariances ``Sigma_XX``, ``Sigma_XZ``, ``Sigma_ZZ``); the
linear case is ``Z = C X``. Three designs of Theta meet (epsilon, delta)-PML privacy:

``"closed-form"``
    [LKC] Corollary 3.7, (15): ``Theta = kappa / (1 - kappa) C Sigma_XX C^T``, the
    smallest Theta allowed by the LMI (12) in the linear case.
``"lmi"``
    [LKC] Theorem 3.6, LMI (12), solved by cvxpy with Clarabel (any ``Sigma_XZ``).
``"logdet"``
    The exact condition of [LKC] Theorem 3.3 as a log-det cone, beyond the paper: never
    more noise than the LMI.

The cone designs ``"lmi"`` and ``"logdet"`` are in
:mod:`~ssa_privacy.privacy.pml.cone_design`. :class:`LinearGaussianMechanism` puts the
three behind one design call and releases certified
data; :func:`ssa_privacy.privacy.pml.plant.design_noise` designs it for a plant. The
conventions (``"exact"``, the default, or ``"paper"``) and the theory: :doc:`/theory/pml`.
"""

import numpy as np

from ssa_privacy._internal.matrix_validation import covariance_stack, psd_matrix
from ssa_privacy._internal.validation import as_finite_array, nonempty, open_interval, scalar
from ssa_privacy.privacy.accounting import check_epsilon, design_epsilon
from ssa_privacy.privacy.mechanism import (
    FactoredCovariance,
    Release,
    as_factored,
    generator,
)
from ssa_privacy.privacy.notions import convention_weight
from ssa_privacy.privacy.pml.certificate import pml_certificate
from ssa_privacy.privacy.pml.cone_design import (
    _joint_model,
    _least_inflation,
    _not_a_system,
    lmi_mechanism_noise,
    logdet_mechanism_noise,
)
from ssa_privacy.privacy.pml.information_form import (
    information_certificate,
    more_conclusive,
)
from ssa_privacy.privacy.pml.leakage import kappa

__all__ = [
    "LinearGaussianMechanism",
    "METHODS",
    "linear_mechanism_noise",
]

#: The design methods of :meth:`LinearGaussianMechanism.design`.
METHODS = ("closed-form", "lmi", "logdet")


def linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention="exact"):
    """Closed-form noise covariance of Corollary 3.7 for ``Y = C X + V``.

    Parameters
    ----------
    C : array_like, shape (m, n) or (..., m, n)
        Output matrix (or a stack, one per agent), of rank l >= 1.
    Sigma_XX : array_like, shape (n, n) or (..., n, n)
        Prior covariance of X, positive definite, broadcast against ``C``.
    epsilon : float or array_like
        Leakage bound(s), nats, above the necessary condition (9).
    delta : float or array_like
        Failure probability(ies) in (0, 1).
    convention : {"exact", "paper"}
        ``"paper"`` reproduces [LKC] (15); ``"exact"`` uses ``kappa_exact = kappa_paper^2``.

    Returns
    -------
    Theta : ndarray, shape (m, m) or (..., m, m)
        ``kappa / (1 - kappa) C Sigma_XX C^T``, the smallest Theta satisfying LMI (12)
        (units of ``C X`` squared), at the budget
        :func:`~ssa_privacy.privacy.accounting.design_epsilon` (epsilon, or the largest
        meaningful budget of rank(C) directions when epsilon exceeds it).

    Raises
    ------
    TypeError
        If ``C`` is a plant (use :func:`~ssa_privacy.privacy.pml.plant.design_noise`).
    ValueError
        On shape mismatches, non-finite values, a ``Sigma_XX`` not positive definite, a
        zero ``C``, ``delta`` outside (0, 1) or ``epsilon`` below condition (9) (the message
        names the smallest feasible epsilon).

    Notes
    -----
    [LKC] Corollary 3.7, (15) (and (33), (36) per agent); kappa from (11) with
    ``l = rank(C)``. The two conventions: :doc:`/theory/pml`.
    """
    _not_a_system(C, "C")
    Sigma = nonempty(covariance_stack(Sigma_XX, "Sigma_XX"), "Sigma_XX")
    C = as_finite_array(C, "C")
    if C.ndim < 2 or C.shape[-1] != Sigma.shape[-1] or C.shape[-2] == 0:
        raise ValueError(
            f"C must have shape (..., m, {Sigma.shape[-1]}) with m >= 1, got {C.shape}"
        )
    rank = np.linalg.matrix_rank(C)
    if np.any(rank == 0):
        where = (
            ""
            if C.ndim == 2
            else f" (matrix {np.flatnonzero(np.ravel(rank) == 0)[0]} of the stack)"
        )
        raise ValueError(
            f"C is zero{where}: l (the rank of Sigma_XY) must be a positive integer, got 0; "
            "with l = 0 the release is independent of X and needs no noise"
        )
    k = _kappas(epsilon, delta, Sigma.shape[-1], rank, convention)
    CSC = C @ Sigma @ np.swapaxes(C, -1, -2)
    Theta = (k / (1.0 - k))[..., None, None] * (0.5 * (CSC + np.swapaxes(CSC, -1, -2)))
    return Theta


def _kappas(epsilon, delta, n, rank, convention):
    """kappa at the design budget (:func:`~ssa_privacy.privacy.accounting.design_epsilon`)
    for each rank of a stack: once per distinct rank when epsilon and delta are scalars (a
    catalogue designs thousands of stacks of equal rank); an infeasible level is reported
    by the full call, which names the matrix of the stack."""
    if np.ndim(rank) and np.ndim(epsilon) == 0 and np.ndim(delta) == 0:
        ranks, where = np.unique(rank, return_inverse=True)
        try:
            target = design_epsilon(epsilon, delta, ranks, convention)
            k = np.asarray(kappa(target, delta, n, ranks, convention))
            return k[where].reshape(np.shape(rank))
        except ValueError:
            pass
    target = design_epsilon(epsilon, delta, rank, convention)
    return np.asarray(kappa(target, delta, n, rank, convention))


class LinearGaussianMechanism:
    """The Gaussian mechanism ``Y = Z + V``, ``V ~ N(0, Theta)``, certified for PML privacy.

    Built by :meth:`design` (or :func:`~ssa_privacy.privacy.pml.plant.design_noise` for a
    plant); the constructor takes a given noise covariance, for example to audit it.

    Parameters
    ----------
    C : array_like, shape (m, n), or None
        Output matrix of the linear mechanism ``Z = C X`` ([LKC] (14)); None for a general
        signal Z described by ``Sigma_XZ`` and ``Sigma_ZZ``.
    Sigma_XX : array_like, shape (n, n)
        The adversary's prior covariance of the private X, positive definite (state units
        squared).
    noise_covariance : FactoredCovariance or array_like, shape (m, m)
        Theta, positive semi-definite (units of Z squared).
    epsilon : float
        Leakage bound, nats, above the necessary condition (9).
    delta : float
        Failure probability in (0, 1).
    convention : {"exact", "paper"}, optional
        Which PML formula the guarantee refers to (default exact; :doc:`/theory/pml`).
    Sigma_XZ : array_like, shape (n, m), optional
        Cross covariance of X and Z (only with ``C=None``).
    Sigma_ZZ : array_like, shape (m, m), optional
        Covariance of Z, positive semi-definite (only with ``C=None``).
    method : str, optional
        How Theta was obtained (recorded in the releases; ``"given"`` by default).

    Attributes
    ----------
    noise_covariance : FactoredCovariance
        Theta, the noise that :meth:`release` draws and :meth:`certificate` certifies.
    Theta : ndarray, shape (m, m)
        The same covariance as a dense matrix, as designed or given (a designer's output
        may be symmetric only up to round-off).
    l : int
        ``rank(Sigma_XZ)``, the degrees of freedom of the leakage's chi-square part.
    C, Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, convention, method
        The validated arguments (``Sigma_XZ = Sigma_XX C^T``, ``Sigma_ZZ = C Sigma_XX C^T``
        in the linear case).
    process_noise : ndarray, shape (n_plant, n_plant), or None
        The process-noise covariance ``Q`` of the plant the mechanism was designed for
        (:func:`~ssa_privacy.privacy.pml.plant.design_noise`); None otherwise.
    state_basis : ndarray, shape (n_plant, n), or None
        For a plant whose stationary prior is singular, the orthonormal basis ``U`` of its
        range: the mechanism's state is ``U^T X`` and ``C`` is the plant's ``C U``
        (:func:`~ssa_privacy.plants.prior_range`); None when the prior is definite.

    Raises
    ------
    TypeError
        If ``C`` is a plant (use :func:`~ssa_privacy.privacy.pml.plant.design_noise`).
    ValueError
        On invalid covariances or shapes, both or neither of ``C`` and ``Sigma_XZ``, a zero
        ``Sigma_XZ``, ``delta`` outside (0, 1), ``epsilon`` below (9), a bad convention.

    Notes
    -----
    [LKC] Definition 3.5, mechanism (10), and (14); guarantee [LKC] Theorem 3.3, (8).

    Examples
    --------
    >>> import numpy as np
    >>> from ssa_privacy.privacy.pml.design import LinearGaussianMechanism
    >>> C, Sigma_XX = np.eye(2), np.array([[1.0, 0.3], [0.3, 0.5]])
    >>> mech = LinearGaussianMechanism.design(C, Sigma_XX, 6.0, 0.01, method="closed-form")
    >>> out = mech.release(np.zeros((5, 2)), seed=0)
    >>> out.values.shape, out.certificate.passed
    ((5, 2), True)
    >>> bool(np.array_equal(out.values, mech.release(np.zeros((5, 2)), seed=0).values))
    True
    >>> mech.with_noise(mech.noise_covariance.scaled(0.5)).certificate().passed
    False
    """

    process_noise = None
    state_basis = None

    def __init__(
        self,
        C,
        Sigma_XX,
        noise_covariance,
        epsilon,
        delta,
        *,
        convention="exact",
        Sigma_XZ=None,
        Sigma_ZZ=None,
        method="given",
    ):
        convention_weight(convention)
        model = _joint_model(C, Sigma_XX, Sigma_XZ, Sigma_ZZ)
        self.C, self.Sigma_XX, self.Sigma_XZ, self.Sigma_ZZ, self.l = model
        self.delta = open_interval(delta, "delta")
        self.epsilon = float(check_epsilon(scalar(epsilon, "epsilon"), self.delta, self.l))
        if not isinstance(method, str):
            raise TypeError(f"method must be a string, got {type(method).__name__}")
        self.convention, self.method = convention, method
        m = self.Sigma_XZ.shape[1]
        self.noise_covariance = as_factored(noise_covariance, m, "noise_covariance")
        if isinstance(noise_covariance, FactoredCovariance):
            self.Theta = self.noise_covariance.matrix()
        else:  # validated, kept as given (symmetric up to round-off)
            self.Theta = np.array(noise_covariance, dtype=float)
            psd_matrix(self.Theta, "noise_covariance", m)
        self.inflation = 1.0
        self._certificate = None

    @classmethod
    def design(
        cls,
        C,
        Sigma_XX,
        epsilon,
        delta,
        *,
        method="closed-form",
        convention="exact",
        Sigma_XZ=None,
        Sigma_ZZ=None,
        L=None,
        objective=None,
    ):
        """Design Theta for (epsilon, delta)-PML privacy and return the mechanism.

        Parameters
        ----------
        C : array_like, shape (m, n), or None
            Output matrix of ``Z = C X``; None for a general Z (then give ``Sigma_XZ`` and
            ``Sigma_ZZ``).
        Sigma_XX : array_like, shape (n, n)
            Prior covariance of X, positive definite.
        epsilon : float
            Leakage bound, nats, above the necessary condition (9).
        delta : float
            Failure probability in (0, 1).
        method : {"closed-form", "lmi", "logdet"}, optional
            ``"closed-form"``: [LKC] (15), linear case only; ``"lmi"``: [LKC] (12);
            ``"logdet"``: the exact log-det design (:func:`logdet_mechanism_noise`).
        convention : {"exact", "paper"}, optional
            PML convention of the design and of the certificate (default exact).
        Sigma_XZ : array_like, shape (n, m), optional
            Cross covariance of X and a general Z (with ``C=None``).
        Sigma_ZZ : array_like, shape (m, m), optional
            Covariance of a general Z (with ``C=None``).
        L : array_like, shape (q, m), optional
            Weight of the objective ``min tr(L Theta L^T)`` of ``"lmi"`` and ``"logdet"``.
            The closed form is the least Theta in the PSD order, optimal for every L.
        objective : callable, optional
            Convex cvxpy objective ``objective(Theta)`` of ``"lmi"`` and ``"logdet"``.

        Returns
        -------
        LinearGaussianMechanism
            With the designed Theta; ``method`` records the design.

        Raises
        ------
        ValueError
            On an unknown method, ``"closed-form"`` without C or with an ``objective``,
            and as the constructor and the designers.
        RuntimeError
            If a cvxpy design does not solve or fails verification.

        Notes
        -----
        [LKC] Corollary 3.7 (15), Theorem 3.6 (12), and the exact log-det cone
        (:doc:`/theory/pml`).
        """
        if not isinstance(method, str) or method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        C, Sigma_XX, Sigma_XZ, Sigma_ZZ, _ = _joint_model(C, Sigma_XX, Sigma_XZ, Sigma_ZZ)
        if method == "closed-form":
            if C is None or objective is not None:
                raise ValueError(
                    "method='closed-form' ([LKC] (15)) is the linear mechanism Y = C X + V "
                    "with the objective tr(L Theta L^T): give C and no objective, or use "
                    "method='lmi' or 'logdet'"
                )
            Theta = linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention)
        else:
            designer = lmi_mechanism_noise if method == "lmi" else logdet_mechanism_noise
            Theta = designer(Sigma_XX, Sigma_XZ, Sigma_ZZ, epsilon, delta, L, objective, convention)
        general = {} if C is not None else dict(Sigma_XZ=Sigma_XZ, Sigma_ZZ=Sigma_ZZ)
        mechanism = cls(
            C, Sigma_XX, Theta, epsilon, delta, convention=convention, method=method, **general
        )
        return mechanism.certified()

    def __repr__(self):
        n, m = self.Sigma_XZ.shape
        return (
            f"LinearGaussianMechanism(n={n}, m={m}, epsilon={self.epsilon:g}, "
            f"delta={self.delta:g}, convention={self.convention!r}, method={self.method!r})"
        )

    def with_noise(self, noise_covariance):
        """The same mechanism (model and guarantee) with another noise covariance.

        Parameters
        ----------
        noise_covariance : FactoredCovariance or array_like, shape (m, m)
            The new Theta.

        Returns
        -------
        LinearGaussianMechanism
            With ``method="given"`` and the same ``process_noise`` and ``state_basis``; its
            certificate is recomputed for the new noise.
        """
        general = {} if self.C is not None else dict(Sigma_XZ=self.Sigma_XZ, Sigma_ZZ=self.Sigma_ZZ)
        parameters = (self.epsilon, self.delta)
        mechanism = LinearGaussianMechanism(
            self.C,
            self.Sigma_XX,
            noise_covariance,
            *parameters,
            convention=self.convention,
            **general,
        )
        mechanism.process_noise, mechanism.state_basis = self.process_noise, self.state_basis
        return mechanism

    def certified(self):
        """This mechanism, its noise scaled by the least tried ``1 + tau`` that certifies it.

        A design meets condition (8) to round-off (closed form) or to the solver's
        accuracy (cvxpy); the rigorous certificate asks for a margin above its rounding
        bound. :meth:`design` calls this on every design.

        Returns
        -------
        LinearGaussianMechanism
            ``self`` when its certificate passes or cannot be repaired by scaling (a
            noiseless direction, or no proven bound); otherwise the same mechanism with
            Theta scaled by ``1 + tau`` (recorded as ``inflation`` and in the
            certificate's evidence).

        Notes
        -----
        Scaling Theta by ``1 + tau`` lowers ``w I`` by at least ``w tau (1 - exp(-2 I)) /
        2`` to first order (``sum mu_i / (1 + mu_i) >= 1 - prod 1 / (1 + mu_i)`` over the
        eigenvalues ``mu_i`` of the signal-to-noise matrix), so tau starts at four times
        the deficit over that rate and doubles until the certificate passes, up to
        ``INFLATION_LIMIT`` (tried last). The cone designers repair a solver's deficit the
        same way (one function, ``cone_design._least_inflation``).
        """
        certificate = self.certificate()
        if certificate.passed or not np.isfinite(certificate.margin - certificate.tolerance):
            return self
        candidates = {}

        def passes(factor):
            candidate = self.with_noise(self.noise_covariance.scaled(factor))
            candidate.method, candidate.inflation = self.method, self.inflation * factor
            candidates[factor] = candidate
            return candidate.certificate().passed

        factor = _least_inflation(
            passes,
            certificate.tolerance - certificate.margin,
            certificate.evidence["mutual_information"],
            self.convention,
        )
        return self if factor is None else candidates[factor]

    def certificate(self):
        """The (epsilon, delta)-PML guarantee, recomputed from ``noise_covariance``.

        Returns
        -------
        Certificate
            From :func:`~ssa_privacy.privacy.pml.certificate.pml_certificate`:
            ``notion="pml"``; parameters epsilon, delta and convention; ``margin`` (nats)
            is epsilon minus the (1 - delta)-quantile of the leakage, ``tolerance`` a
            rigorous bound on its rounding error, ``passed`` iff ``margin - tolerance >=
            0``. A noise that leaves a direction of Z noiseless, so that Y determines a
            combination of X exactly, has ``margin = -inf``. The evidence records the
            design's ``design_inflation`` (1 for a given noise).

        Notes
        -----
        [LKC] Theorem 3.3, condition (8), in the chosen convention. In the linear case, a
        certificate in canonical correlations that does not pass is followed by one in
        the information form
        (:func:`~ssa_privacy.privacy.pml.information_form.information_certificate`),
        whose bound stays tight as correlations near 1 (large epsilon); both are rigorous,
        and the one with the larger ``margin - tolerance`` is kept.
        """
        if self._certificate is None:
            common = (self.epsilon, self.delta, self.convention)
            certificate = pml_certificate(
                self.Sigma_XX,
                self.Sigma_XZ,
                self.Sigma_ZZ,
                self.noise_covariance,
                *common,
                C=self.C,
                design_inflation=self.inflation,
            )
            if not certificate.passed and self.C is not None:
                information = information_certificate(
                    self.Sigma_XX,
                    *common,
                    C=self.C,
                    noise=self.noise_covariance,
                    design_inflation=self.inflation,
                )
                certificate = more_conclusive(certificate, information)
            self._certificate = certificate
        return self._certificate

    def release(self, data, *, seed=None):
        """Release ``Y = Z + V`` with ``V ~ N(0, Theta)`` drawn independently for each row.

        Parameters
        ----------
        data : array_like, shape (m,) or (T, m)
            The signal Z (e.g. ``C X_k``), one vector or a time series of T of them.
        seed : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
            None (default) draws fresh entropy; see :func:`~ssa_privacy.privacy.mechanism.generator`.

        Returns
        -------
        Release
            ``values`` of the shape of ``data``, the noise covariance, the certificate
            and the seed record; ``details`` holds ``method``.

        Raises
        ------
        ValueError
            If ``data`` is not finite or not of shape (m,) or (T, m).
        TypeError
            On an invalid seed.
        """
        m = self.Sigma_XZ.shape[1]
        Z = as_finite_array(data, "data")
        if Z.ndim not in (1, 2) or Z.shape[-1] != m:
            raise ValueError(f"data must have shape ({m},) or (T, {m}), got {Z.shape}")
        rng, seed_keys = generator(seed)
        noise = self.noise_covariance.sample(rng, None if Z.ndim == 1 else len(Z))
        details = {"method": self.method}
        return Release(Z + noise, self.noise_covariance, self.certificate(), seed_keys, details)
