"""Initial orbit determination from one contact: the state by batch least squares.

An extended Kalman filter linearises its first update about the prior mean. For a
catalogue object that mean is the public nominal orbit, and the manoeuvre deviation
(about 1 km and 1 m/s at the window start) moves the object tens of kilometres from it
by the first contact hours later: the second-order terms of the measurements are then
far above a radar's noise, and the linearised update is overconfident and biased. The
filters of :func:`~ssa_privacy.estimation.ekf.track_contacts` therefore start from
:func:`contact_orbit_determination`: the maximum a posteriori state at the window start
given the prior and the first contact's releases, found by
:func:`scipy.optimize.least_squares` (trust-region reflective) on the whitened residuals

    r(x) = [W^{-1} (z - h(flow(x))) ; L^{-1} (x - x_prior)],

(``W W^T`` the releases' noise covariance, ``L L^T`` the prior's), with the Jacobian
from the state-transition matrices of the J2 flow. Its covariance is the Laplace
(Gauss-Newton) one, ``(G^T (W W^T)^{-1} G + P^{-1})^{-1}`` at the solution, propagated to
the contact's end. This is the batch least-squares orbit determination of Vallado,
*Fundamentals of Astrodynamics and Applications* (4th ed., 2013), §10.4, with the prior
as an a-priori state (§10.6), and the limit of the iterated EKF (Bell and Cathey, IEEE
Trans. Automatic Control 38(2), 1993): a Gauss-Newton method with a trust region, so it
converges from a distant start where plain iterations may not.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize

from ssa_privacy._internal.matrix_validation import (
    covariance_stack,
    pd_cholesky,
    symmetric_matrix,
)
from ssa_privacy._internal.validation import (
    as_finite_array,
    flag,
    non_negative_int,
    nonempty,
    positive,
)
from ssa_privacy.estimation._block_whitening import block_factors, whiten
from ssa_privacy.sensors.simulation import wrap_angles
from ssa_privacy.sensors.stations import GroundStation, radar_measurements

__all__ = [
    "REFUSED_RESIDUAL",
    "SOLVER_TOLERANCE",
    "ContactSolution",
    "SPLIT_VARIANCE",
    "contact_orbit_determination",
    "linearised_contact",
    "split_prior",
]

#: Relative tolerances (x, f and g) of the least-squares solver: a step below 1e-8 of
#: the deviation from the prior (about 10 micrometres in LEO) ends it.
SOLVER_TOLERANCE = 1e-8
#: The whitened residual of a trial state that cannot be measured or propagated.
REFUSED_RESIDUAL = 1e8
#: The variance of each component of :func:`split_prior` along the split axis, as a
#: fraction of the prior's.
SPLIT_VARIANCE = 0.45


def linearised_contact(stations, earth, contact, times, path, Phi, position, at_end=True):
    """Predicted measurements (M,) of a contact and their maps (M, 6) of one state, or of F.

    Parameters
    ----------
    stations : sequence of GroundStation or OpticalStation
        The network (indexed by ``contact.stations``).
    earth : EarthRotation
        The Earth's orientation.
    contact : ContactMeasurements
        The contact (:class:`~ssa_privacy.estimation.contacts.ContactMeasurements`).
    times : ndarray, shape (m,)
        The time grid (s).
    path : ndarray, shape (g, 6) or (F, g, 6)
        The state (km, km/s) at the propagated grid points, or those of F filters.
    Phi : ndarray, shape (g, 6, 6) or (F, g, 6, 6)
        ``Phi(t, t_first)`` at those points, from the first one (of each filter).
    position : dict
        Grid index -> row of ``path``.
    at_end : bool, optional
        Map a change of the state at the contact's end (default) or at the first grid
        point.

    Returns
    -------
    h : ndarray, shape (M,) or (F, M)
        The predicted measurements, radar rows (rad, rad, km, km/s) or optical (rad, rad).
    maps : ndarray, shape (M, 6) or (F, M, 6)
        ``H_k Phi(t_k, t_first)``, times ``Phi(t_end, t_first)^{-1}`` with ``at_end``.

    Notes
    -----
    Each station gives its own number of rows per measurement (4 for a radar, 2 for an
    optical sensor); the rows follow the order of the measurements.
    """
    stacked = np.ndim(path) == 3
    paths, Phis = (path, Phi) if stacked else (path[None], Phi[None])
    F, (rows, first, sizes, groups) = len(paths), _layout(stations, contact, position)
    h, maps = np.empty((F, sizes.sum())), np.empty((F, sizes.sum(), 6))
    for mine, s in groups:
        j, where = rows[mine], (first[mine][:, None] + np.arange(sizes[mine][0])).ravel()
        states, t = paths[:, j].reshape(-1, 6), np.tile(times[contact.indices[mine]], F)
        if s is None:  # all radars at once, the Earth's rotation once per epoch
            which = np.tile(contact.stations[mine], F)
            values, H = radar_measurements(stations, which, states, t, earth)
        else:
            values = stations[s].measure(states, t, earth)
            H = stations[s].jacobian(states, t, earth)
        h[:, where] = values.reshape(F, -1)
        maps[:, where] = (H.reshape(F, len(j), -1, 6) @ Phis[:, j]).reshape(F, -1, 6)
    if at_end:
        # H_k Phi(t_k, t_first) Phi(t_end, t_first)^{-1}: the maps of the state at the end
        end = np.swapaxes(Phis[:, position[contact.end]], 1, 2)
        maps = np.swapaxes(np.linalg.solve(end, np.swapaxes(maps, 1, 2)), 1, 2)
    return (h, maps) if stacked else (h[0], maps[0])


def _layout(stations, contact, position):
    """Where a contact's measurements lie: each one's row of the path (N,), first row
    (N,) and number of rows (N,) in the contact's M, and the groups computed together:
    (mask of the measurements, None) for all radars, (mask, station) for each other
    station, non-empty ones only."""
    rows = np.array([position[k] for k in contact.indices.tolist()], dtype=int)
    used, inverse = np.unique(contact.stations, return_inverse=True)
    sizes = np.array([len(stations[s].noise_std) for s in used.tolist()], dtype=int)[inverse]
    radar = np.array([isinstance(stations[s], GroundStation) for s in used.tolist()])[inverse]
    groups = [(radar, None)] + [
        (contact.stations == s, s) for s in np.unique(contact.stations[~radar]).tolist()
    ]
    return rows, np.cumsum(sizes) - sizes, sizes, [g for g in groups if g[0].any()]


@dataclass(frozen=True)
class ContactSolution:
    """The filters' states after orbit determination from one contact.

    Parameters
    ----------
    states : ndarray, shape (F, 6)
        Each filter's state at the contact's end (km, km/s).
    covariances : ndarray, shape (F, 6, 6)
        Their covariances (Laplace, propagated to the end; km^2, km^2/s, km^2/s^2).
    nis : ndarray, shape (F,)
        The innovation of each filter's releases, ``nu^T S^-1 nu``, with ``nu`` and ``S``
        linearised about the solution (the iterated EKF's innovation): chi-square with M
        degrees of freedom for a consistent filter.
    rows : int
        M, the contact's measurement rows.
    iterations : int
        Function evaluations of the least-squares solver.
    """

    states: np.ndarray
    covariances: np.ndarray
    nis: np.ndarray
    rows: int
    iterations: int


class _Problem:
    """The stacked whitened residuals of F filters' MAP problems (one system, one solve).

    Filter f's M + 6 whitened residuals ``r_f = [misfit_f; L_f^{-1} delta_f]`` (the
    releases, then the prior), of Jacobian ``J_f = [-G_f; L_f^{-1}]``, enter compressed
    (:func:`_compressed`) to 6 rows ``Q_f^T r_f`` of Jacobian ``T_f`` (``J_f = Q_f T_f``,
    thin QR), and what ``Q_f`` leaves of all filters' residuals to one more row of zero
    Jacobian: the same cost at every point and the same Gauss-Newton model as the
    F (M + 6) rows, so the solver's steps are theirs, with a Jacobian of 6 F + 1 rows
    whatever M."""

    def __init__(self, model, x_prior, P_prior, contact, tolerance):
        self.model, self.contact, self.tolerance = model, contact, tolerance
        self.x_prior, self.F = x_prior, len(x_prior)
        self.prior_root = np.linalg.cholesky(P_prior)
        # the prior rows of the Jacobian, L^{-1}, once per problem
        self.prior_rows = np.array(
            [linalg.solve_triangular(root, np.eye(6), lower=True) for root in self.prior_root]
        )
        self.noise_root = _noise_roots(contact, self.F)
        groups = {}
        for f, factors in enumerate(self.noise_root):
            groups.setdefault(id(factors), (factors, []))[1].append(f)
        self.noise_groups = list(groups.values())
        self._cache = (None, None)

    def linearise(self, delta):
        """Per filter: the whitened innovation, whitened maps (of the start state), path, Phi."""
        return self._linearised(delta)[0]

    def _linearised(self, delta):
        """:meth:`linearise`, and per filter the compressed residual (7,) and maps (7, 6)."""
        key = delta.tobytes()
        if self._cache[0] == key:
            return self._cache[1]
        propagator, stations, earth, times, start = self.model
        contact = self.contact
        grid = np.unique(np.concatenate([[start], contact.indices]))
        states = self.x_prior + delta.reshape(self.F, 6)
        paths, Phi = propagator.propagate_with_transition(
            times[grid], states, rtol=self.tolerance, atol=self.tolerance
        )
        position = dict(zip(grid.tolist(), range(len(grid)), strict=True))
        hs, maps_all = linearised_contact(
            stations, earth, contact, times, paths, Phi, position, at_end=False
        )
        if not np.all(np.isfinite(hs)):
            raise ValueError("a predicted measurement of a trial state is not finite")
        # the measured rows on the branch of each prediction (h + wrapped z - h), whitened
        # by its filter's noise: all filters that share a noise in one solve per block
        wrapped = wrap_angles(hs - contact.reference, contact.wrapped)
        residual = contact.z - (contact.reference + wrapped)
        stacked = np.concatenate([maps_all, residual[..., None]], axis=2) / contact.scale[:, None]
        whitened = np.empty_like(stacked)
        for factors, members in self.noise_groups:
            columns = np.swapaxes(stacked[members], 0, 1).reshape(len(contact.scale), -1)
            solved = whiten(factors, columns).reshape(len(contact.scale), len(members), 7)
            whitened[members] = np.swapaxes(solved, 0, 1)
        misfit, G = whitened[..., -1], whitened[..., :-1]
        end = position[contact.end]
        out = list(zip(misfit, G, paths[:, end], Phi[:, end], strict=True))
        prior = [
            linalg.solve_triangular(root, part, lower=True)
            for root, part in zip(self.prior_root, delta.reshape(self.F, 6), strict=True)
        ]
        residual = np.concatenate([misfit, prior], axis=1)
        compressed = _compressed(residual, np.concatenate([-G, self.prior_rows], axis=1))
        self._cache = (key, (out, compressed))
        return out, compressed

    def residuals(self, delta):
        """The whitened residuals, compressed: 6 rows per filter, then the remainder.

        A trial state the geometry or the propagator refuses (a satellite at a station's
        zenith, where the azimuth's derivative is singular, or an orbit into the Earth)
        gets residuals of :data:`REFUSED_RESIDUAL`: the solver rejects the step and
        shrinks its trust region."""
        try:
            fitted, rest, _ = self._linearised(delta)[1]
        except ValueError:
            return np.full(6 * self.F + 1, REFUSED_RESIDUAL)
        return np.append(fitted.ravel(), np.sqrt(np.sum(rest**2)))

    def jacobian(self, delta):
        """The residuals' Jacobian (6 F + 1, 6 F): block diagonal over the filters, and a
        zero row."""
        T, F = self._linearised(delta)[1][2], self.F
        jacobian = np.zeros((F + 1, 6, F, 6))
        jacobian[np.arange(F), :, np.arange(F), :] = T
        return jacobian.reshape(6 * F + 6, 6 * F)[: 6 * F + 1]


def _noise_roots(contact, F):
    """Per filter, the Cholesky factors of its noise's diagonal blocks (per pass or per
    measurement of a :class:`~ssa_privacy.estimation.contact_noise.ContactNoise`, else
    the one dense matrix; :func:`~ssa_privacy.estimation._block_whitening.block_factors`),
    in units of ``contact.scale``; once per distinct noise (a split prior repeats each
    filter three times)."""
    noise = contact.noise
    sources = getattr(noise, "source", None)
    roots, found = {}, []
    for f in range(F):
        key = f if sources is None else sources(f)
        if key not in roots:
            blocks = noise.blocks(f) if hasattr(noise, "blocks") else [noise[f]]
            scaled, start = [], 0
            for block in blocks:
                scale = contact.scale[start : start + len(block)]
                scaled.append(block / np.outer(scale, scale))
                start += len(block)
            try:
                roots[key] = block_factors(scaled, "contact.noise")
            except ValueError as error:  # the documented error of a noise not definite
                raise np.linalg.LinAlgError(str(error)) from None
        found.append(roots[key])
    return found


def _compressed(residual, jacobian):
    """Residuals (F, N) and their Jacobians (F, N, n), N >= n, compressed to n rows each.

    With the thin QR ``J_f = Q_f T_f``: ``Q_f^T r_f`` (n,), of Jacobian ``T_f`` (n, n),
    and ``|r_f - Q_f Q_f^T r_f|``, of zero Jacobian. For every p, ``|r_f + J_f p|^2``
    equals ``|Q_f^T r_f + T_f p|^2 + |r_f - Q_f Q_f^T r_f|^2``: ``Q_f`` and the remainder
    are an orthonormal basis of a space holding ``r_f`` and the range of ``J_f``.

    Returns
    -------
    fitted : ndarray, shape (F, n)
        ``Q_f^T r_f``.
    rest : ndarray, shape (F,)
        ``|r_f - Q_f Q_f^T r_f|``.
    T : ndarray, shape (F, n, n)
        The triangular factors.
    """
    Q, T = np.linalg.qr(jacobian)
    fitted = np.einsum("fmi,fm->fi", Q, residual)
    rest = np.linalg.norm(residual - np.einsum("fmi,fi->fm", Q, fitted), axis=1)
    return fitted, rest, T


def contact_orbit_determination(model, x_prior, P_prior, contact, tolerance, split=False, start=0):
    """The MAP states of F filters from their prior and one contact's releases.

    Parameters
    ----------
    model : TrackingModel
        The J2 propagator, the network, the Earth's orientation and the time grid (s)
        (:class:`~ssa_privacy.estimation.tracking.TrackingModel`). The tuple
        ``(propagator, stations, earth, times, start)`` of earlier versions is deprecated
        (a DeprecationWarning; its ``start`` is used).
    x_prior : ndarray, shape (F, 6)
        Each filter's prior mean at ``times[start]`` (km, km/s).
    P_prior : ndarray, shape (F, 6, 6)
        Its covariance, positive definite.
    contact : ContactMeasurements
        The contact's releases of the F filters, after ``start``.
    tolerance : float
        Integration tolerance (rtol = atol) of the propagations.
    split : bool, optional
        Split each prior into the three Gaussians of :func:`split_prior`, solve each and
        merge the three Laplace posteriors, weighted by their evidence, into one Gaussian
        of the same mean and covariance (default False: one solve from the prior). The
        releases of a strongly privatized contact constrain the state to a curved valley
        whose extent one Laplace covariance underestimates; the merged covariance spans
        the components' solutions along it.
    start : int, optional
        The grid index of the prior, before the contact (default 0).

    Returns
    -------
    ContactSolution
        The states and covariances at the contact's end and the innovations (with
        ``split``, those of each filter's most probable component).

    Raises
    ------
    TypeError
        If ``split`` is not a bool, or a prior is not made of real numbers.
    ValueError
        If ``x_prior`` is not (F, 6) and finite, ``P_prior`` not F symmetric positive
        definite 6 x 6 matrices, ``tolerance`` not finite and positive, ``start`` not a
        grid index, or as the propagator (a trial state that falls into the Earth).
    numpy.linalg.LinAlgError
        If a noise covariance of the contact is not positive definite.

    Notes
    -----
    Module docstring (Vallado §10.4 and §10.6). The F problems are independent; they are
    solved as one (a block-diagonal Jacobian) so that each trial propagates all filters
    in one batch. The split and merge are those of a Gaussian-sum filter (Alspach and
    Sorenson, IEEE Trans. Automatic Control 17(4), 1972; for orbits, DeMars, Bishop and
    Jah, J. Guidance Control Dyn. 36(4), 2013): component i's weight is its prior weight
    times its Laplace evidence ``exp(-c_i / 2) sqrt(det Sigma_i / det P_i)`` (``c_i`` the
    squared whitened residual at its solution, ``Sigma_i`` its posterior covariance).
    """
    x_prior = as_finite_array(x_prior, "x_prior", ndim=2)
    if x_prior.shape[1:] != (6,) or not len(x_prior):
        raise ValueError(f"x_prior must have shape (F, 6), got {x_prior.shape}")
    P_prior = covariance_stack(P_prior, "P_prior", 6)
    if P_prior.shape != (len(x_prior), 6, 6):
        raise ValueError(f"P_prior must have shape ({len(x_prior)}, 6, 6), got {P_prior.shape}")
    tolerance = positive(tolerance, "tolerance")
    split = flag(split, "split")
    start = non_negative_int(start, "start")
    if start >= len(model.times):
        raise ValueError(f"start must index the time grid of {len(model.times)} epochs")
    model = (model.propagator, model.stations, model.earth, model.times, start)
    if split:
        return _split_solution(model, x_prior, P_prior, contact, tolerance)
    return _solve(model, x_prior, P_prior, contact, tolerance)[0]


def _solve(model, x_prior, P_prior, contact, tolerance):
    """The MAP solutions (a ContactSolution) and each one's log Laplace evidence (F,)."""
    problem = _Problem(model, x_prior, P_prior, contact, tolerance)
    scale = np.sqrt(np.einsum("fii->fi", P_prior)).ravel()
    solution = optimize.least_squares(
        problem.residuals,
        np.zeros(6 * problem.F),
        jac=problem.jacobian,
        method="trf",
        x_scale=scale,
        xtol=SOLVER_TOLERANCE,
        ftol=SOLVER_TOLERANCE,
        gtol=SOLVER_TOLERANCE,
    )
    states, covariances, nis, evidence = [], [], [], []
    for f, (misfit, G, end_state, Phi_end) in enumerate(problem.linearise(solution.x)):
        prior_root = problem.prior_root[f]
        delta = solution.x[6 * f : 6 * f + 6]
        whitened = np.vstack([G, linalg.solve_triangular(prior_root, np.eye(6), lower=True)])
        R = linalg.qr(whitened, mode="r")[0][:6]
        root = linalg.solve_triangular(R, Phi_end.T, trans="T").T  # Phi R^{-1}
        states.append(end_state)
        covariances.append(root @ root.T)
        nis.append(_innovation(misfit, G, prior_root, delta))
        prior = linalg.solve_triangular(prior_root, delta, lower=True)
        # log of exp(-c/2) sqrt(det Sigma / det P): det Sigma = 1/det(R)^2, det P = det(L)^2
        evidence.append(
            -0.5 * (misfit @ misfit + prior @ prior)
            - np.sum(np.log(np.abs(np.diag(R))))
            - np.sum(np.log(np.diag(prior_root)))
        )
    solved = ContactSolution(
        np.array(states), np.array(covariances), np.array(nis), len(contact.scale), solution.nfev
    )
    return solved, np.array(evidence)


def split_prior(x, P):
    """Three Gaussians whose mixture has the mean and covariance of N(x, P).

    The split is along the principal axis ``v`` of P (its largest eigenvalue ``lambda``):
    means ``x`` and ``x +- m sqrt(lambda) v``, covariances ``P - (1 - s^2) lambda v v^T``
    and weights ``(w, 1 - 2 w, w)``, with ``s^2`` = :data:`SPLIT_VARIANCE` and ``m``,
    ``w`` chosen so that along ``v`` the mixture has the first four moments of the
    Gaussian (in units of ``sqrt(lambda)``: mean 0, variance 1, fourth moment 3):
    ``2 w m^2 = 1 - s^2`` and ``3 s^4 + 2 w m^4 + 12 w m^2 s^2 = 3``. With ``s^2`` = 0.45,
    ``w`` = 1/6 and ``m`` = 1.28.

    Parameters
    ----------
    x : ndarray, shape (6,)
        The mean.
    P : ndarray, shape (6, 6)
        The covariance, positive definite.

    Returns
    -------
    means : ndarray, shape (3, 6)
        The components' means.
    covariances : ndarray, shape (3, 6, 6)
        Their covariances (one matrix, repeated).
    weights : ndarray, shape (3,)
        Their weights, summing to 1.

    Raises
    ------
    TypeError
        If x or P is not made of real numbers.
    ValueError
        If x is not a finite vector, or P not a symmetric positive definite matrix of its
        size.

    Notes
    -----
    Splitting along the direction of largest uncertainty is the usual choice of
    Gaussian-sum filters for orbits (DeMars, Bishop and Jah 2013); the moment-matched
    three-point split is the construction above, not a table of that paper.
    """
    x = nonempty(as_finite_array(x, "x", ndim=1), "x")
    pd_cholesky(P, "P", len(x))
    P = symmetric_matrix(P, "P")
    values, vectors = np.linalg.eigh(P)
    lam, v = values[-1], vectors[:, -1]
    s2 = SPLIT_VARIANCE
    m2 = (3.0 - 3.0 * s2**2 - 6.0 * (1.0 - s2) * s2) / (1.0 - s2)
    w = (1.0 - s2) / (2.0 * m2)
    offset = np.sqrt(m2 * lam) * v
    means = np.array([x - offset, x, x + offset])
    narrowed = P - (1.0 - s2) * lam * np.outer(v, v)
    return means, np.array([narrowed] * 3), np.array([w, 1.0 - 2.0 * w, w])


def _split_solution(model, x_prior, P_prior, contact, tolerance):
    """contact_orbit_determination with split priors: solve the 3 F components as one
    problem, then merge each filter's three posteriors by their weights."""
    F = len(x_prior)
    parts = [split_prior(x, P) for x, P in zip(x_prior, P_prior, strict=True)]
    means = np.concatenate([p[0] for p in parts])
    covs = np.concatenate([p[1] for p in parts])
    solved, evidence = _solve(
        model, means, covs, contact.subset(np.repeat(np.arange(F), 3)), tolerance
    )
    log_weight = (evidence + np.log(np.concatenate([p[2] for p in parts]))).reshape(F, 3)
    weight = np.exp(log_weight - log_weight.max(axis=1, keepdims=True))
    weight /= weight.sum(axis=1, keepdims=True)
    states = solved.states.reshape(F, 3, 6)
    mean = np.einsum("fc,fci->fi", weight, states)
    spread = states - mean[:, None]
    covariance = np.einsum(
        "fc,fcij->fij",
        weight,
        solved.covariances.reshape(F, 3, 6, 6) + np.einsum("fci,fcj->fcij", spread, spread),
    )
    best = np.argmax(weight, axis=1)
    nis = solved.nis.reshape(F, 3)[np.arange(F), best]
    return ContactSolution(
        mean,
        0.5 * (covariance + np.swapaxes(covariance, 1, 2)),
        nis,
        solved.rows,
        solved.iterations,
    )


def _innovation(misfit, G, prior_root, delta):
    """``nu^T S^-1 nu`` of the releases about the prior, linearised at the solution.

    ``nu = misfit + G delta`` (the misfit the prior mean would leave on the solution's
    tangent), ``S = G P G^T + I`` (whitened rows), by the Woodbury identity without an
    M x M matrix: with ``A = G L`` (``P = L L^T``) and ``w = (I + A^T A)^{-1} A^T nu``,
    ``nu^T S^-1 nu = |nu - A w|^2 + |w|^2``, a sum of squares."""
    nu = misfit + G @ delta
    A = G @ prior_root
    root = linalg.cho_factor(np.eye(A.shape[1]) + A.T @ A, lower=True)
    w = linalg.cho_solve(root, A.T @ nu)
    return float(np.sum((nu - A @ w) ** 2) + w @ w)
