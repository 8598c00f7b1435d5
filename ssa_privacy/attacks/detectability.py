"""Could an observer of an object's released passes tell that it manoeuvred?

The adversary knows the public nominal orbit and the release noise (sensor plus privacy
noise, independent across passes) and tests H0 (no manoeuvre) against H1 (a Delta-v of
:data:`MAGNITUDES` at the window start, radial, along-track or cross-track in the
nominal's RSW frame (:func:`~ssa_privacy.orbits.frames.rsw_frame`), or uniform on the
sphere, ``"unknown"``).
:func:`object_detectability` gives per filter (a release of every pass, each through
its mechanism or as measured), scope (first pass, or day) and manoeuvre:
``auc``/``tpr``, the exact power of the Neyman-Pearson test of the NONLINEAR shift (the
manoeuvred orbit propagated and measured, minus the nominal measurements;
:func:`~ssa_privacy.attacks.manoeuvre.known_direction`), or for the unknown direction a
Monte Carlo estimate with 95% intervals
(:func:`~ssa_privacy.attacks.manoeuvre.unknown_direction`); ``auc_linear``/``tpr_linear``
the same for the linearised shift ``C [0; Delta v]``; ``auc_cap``/``tpr_cap`` the most
any (epsilon, delta)-PML linear Gaussian release with the filter's achieved epsilon
allows (:func:`~ssa_privacy.attacks.manoeuvre.pml_detection_cap`), which bounds the
linearised power, not the nonlinear one. :func:`brute_force_check` compares the exact
power with releases drawn through a pass's mechanism.
"""

import itertools

import numpy as np
from scipy import linalg, stats

from ssa_privacy._internal.validation import positive, positive_int
from ssa_privacy.attacks.manoeuvre import (
    brute_force_auc,
    fibonacci_directions,
    known_direction,
    log_likelihood_ratio,
    pml_detection_cap,
    unknown_direction,
    unknown_direction_draws,
)
from ssa_privacy.estimation.ukf import measurement_residual
from ssa_privacy.orbits.frames import rsw_frame
from ssa_privacy.privacy.pml.stream import ReleaseStream

__all__ = [
    "ALPHA",
    "DIRECTIONS",
    "MAGNITUDES",
    "SCOPES",
    "UNKNOWN",
    "UNKNOWN_DIRECTIONS",
    "UNKNOWN_SAMPLES",
    "brute_force_check",
    "first_pass",
    "manoeuvre_velocities",
    "nonlinear_shifts",
    "object_detectability",
]

#: Delta-v magnitudes of the manoeuvres, m/s.
MAGNITUDES = (0.1, 0.3, 1.0, 3.0)
#: The known directions, the rows of :func:`~ssa_privacy.orbits.frames.rsw_frame`.
DIRECTIONS = ("radial", "along-track", "cross-track")
#: Name of the direction uniform on the sphere.
UNKNOWN = "unknown"
#: Fibonacci directions of the unknown-direction test.
UNKNOWN_DIRECTIONS = 32
#: Monte Carlo draws per hypothesis of the unknown-direction test.
UNKNOWN_SAMPLES = 4000
#: False-positive rate of the reported TPRs.
ALPHA = 0.01
#: "pass": the object's first pass (:func:`first_pass`); "day": all its passes.
SCOPES = ("pass", "day")
#: Integration tolerance (rtol = atol) of the manoeuvred orbits.
KICK_TOLERANCE = 1.0e-10


def manoeuvre_velocities(state0):
    """The Delta-v vectors of every manoeuvre, known directions first (km/s).

    Parameters
    ----------
    state0 : array_like, shape (6,)
        The nominal's state at the window start (km, km/s).

    Returns
    -------
    ndarray, shape (3 A + A J, 3)
        Row ``d A + a``: direction d of :data:`DIRECTIONS`, magnitude a of
        :data:`MAGNITUDES`; then row ``3 A + a J + j``: magnitude a, Fibonacci direction j
        (taken in the RSW frame), J = :data:`UNKNOWN_DIRECTIONS`.

    Raises
    ------
    ValueError
        As :func:`~ssa_privacy.orbits.frames.rsw_frame`.
    """
    frame = rsw_frame(state0)
    speeds = 1e-3 * np.asarray(MAGNITUDES)
    known = (frame[:, None, :] * speeds[None, :, None]).reshape(-1, 3)
    sphere = fibonacci_directions(UNKNOWN_DIRECTIONS) @ frame
    unknown = (speeds[:, None, None] * sphere[None]).reshape(-1, 3)
    return np.concatenate([known, unknown])


def nonlinear_shifts(model, nominal, found, velocities):
    """Each pass's measurement change by manoeuvres at the window start (J2, nonlinear).

    Parameters
    ----------
    model : ssa_privacy.estimation.tracking.TrackingModel
        Its ``times`` (the grid, s), ``stations``, ``earth`` and ``propagator``.
    nominal : ndarray, shape (m, 6)
        The nominal track over the grid (km, km/s).
    found : list of Pass
        The passes (:func:`~ssa_privacy.sensors.streams.passes_of`).
    velocities : ndarray, shape (N, 3)
        The Delta-v vectors (km/s).

    Returns
    -------
    list of ndarray, shape (N, K_p m_p)
        Per pass, ``h(x_n(t_k)) - h(nominal(t_k))`` stacked measurement after measurement,
        angles wrapped into (-pi, pi] (release units).

    Raises
    ------
    ValueError
        If ``velocities`` is not (N, 3) finite, or as the propagator and the stations.

    Notes
    -----
    One batched J2 integration of all manoeuvred orbits (Cowell's method, DOP853 at 1e-10,
    Vallado Ch. 8) at the passes' times; Vallado Algorithm 27 for the measurements.
    """
    velocities = np.asarray(velocities, dtype=float)
    if velocities.ndim != 2 or velocities.shape[1] != 3 or not np.all(np.isfinite(velocities)):
        raise ValueError(f"velocities must be (N, 3) finite (km/s), got {velocities.shape}")
    index = np.unique(np.concatenate([[0]] + [p.indices for p in found]))
    starts = np.tile(nominal[0], (len(velocities), 1))
    starts[:, 3:] += velocities
    paths = model.propagator.propagate_many(
        model.times[index], starts, KICK_TOLERANCE, KICK_TOLERANCE
    )
    out = []
    for p in found:
        station, t = model.stations[p.station], model.times[p.indices]
        moved = station.measure(paths[:, np.searchsorted(index, p.indices)], t, model.earth)
        reference = station.measure(nominal[p.indices], t, model.earth)
        wrapped = np.tile(station.wrapped, moved.shape[0] * moved.shape[1])
        reference = np.broadcast_to(reference, moved.shape)
        change = measurement_residual(moved.ravel(), reference.ravel(), wrapped)
        out.append(change.reshape(len(velocities), -1))
    return out


def first_pass(found):
    """The index of an object's first pass: the earliest over all sensors.

    Parameters
    ----------
    found : list of Pass
        The object's passes (:func:`~ssa_privacy.sensors.streams.passes_of` lists them
        sensor by sensor), at least one.

    Returns
    -------
    int
        The pass whose first measurement comes first; of passes starting together, the
        one listed first (its sensor first in the network).
    """
    return min(range(len(found)), key=lambda i: found[i].indices[0])


def _sensor(item):
    """Row scales D (sensor stds, (K m,)) and the sensor noise in their units ``D^-1 R D^-1``."""
    K = len(item.indices)
    scale = np.tile(np.sqrt(np.diag(item.R)), K)
    return scale, np.kron(np.eye(K), item.R) / np.outer(scale, scale)


def _scaled_noise(scale, sensor, mechanism):
    """``D^-1 S D^-1``, S the release noise: sensor plus privacy (the sensor alone)."""
    if mechanism is None:
        return sensor
    factor = mechanism.factor / scale[:, None]
    noise = sensor + factor @ factor.T
    return 0.5 * (noise + noise.T)


def _pass_statistics(found, designs, sensors, columns):
    """Per pass, what the tests see: the deflections d2 of the known columns (P, 6 A) and
    the Gram matrices ``g_i . g_j`` of each magnitude's unknown directions (P, A, J, J).

    ``g = L^-1 D^-1 d`` with ``D^-1 S D^-1 = L L^T`` (Golub and Van Loan §4.2)."""
    known, J = 2 * len(DIRECTIONS) * len(MAGNITUDES), UNKNOWN_DIRECTIONS
    deflections = np.empty((len(found), known))
    grams = np.empty((len(found), len(MAGNITUDES), J, J))
    for i, (mechanism, (scale, sensor), shifts) in enumerate(zip(designs, sensors, columns)):
        L = np.linalg.cholesky(_scaled_noise(scale, sensor, mechanism))
        W = linalg.solve_triangular(L, shifts, lower=True, check_finite=False)
        deflections[i] = np.sum(W[:, :known] ** 2, axis=0)
        U = W[:, known:].reshape(len(W), len(MAGNITUDES), J).transpose(1, 0, 2)
        grams[i] = np.matmul(U.transpose(0, 2, 1), U)
    return deflections, grams


def _powers(deflections):
    """AUC and TPR at :data:`ALPHA` of the Neyman-Pearson test for deflections d2 (array).

    The formulas of :func:`~ssa_privacy.attacks.manoeuvre.known_direction`, ``Phi(sqrt(d2 /
    2))`` and ``Phi(sqrt(d2) - z_{1-alpha})`` (Van Trees I, §2.6), for many d2 at once."""
    root = np.sqrt(np.asarray(deflections, dtype=float))
    return stats.norm.cdf(root / np.sqrt(2.0)), stats.norm.sf(stats.norm.isf(ALPHA) - root)


def _cap_deflections(Sigma_XX, epsilon, privacy, frame):
    """pml_detection_cap's deflections of the known manoeuvres (d2 grows as a^2), (3 A,);
    ``privacy`` is (delta, convention)."""
    level = (epsilon, privacy[0], ALPHA, privacy[1])
    unit = [pml_detection_cap(Sigma_XX, np.r_[0, 0, 0, 1e-3 * u], *level).deflection for u in frame]
    return np.outer(unit, np.square(MAGNITUDES)).ravel()


def _pass_epsilon(privacy, Sigma_XX, item, mechanism):
    """The achieved epsilon of one pass (nats): its mechanism's, or its sensor noise's;
    ``privacy`` is (delta, convention)."""
    if mechanism is not None:
        return mechanism.leakage.epsilon
    stream = ReleaseStream.of(item.C, item.R)
    return stream.epsilon(Sigma_XX, *privacy)


def _known_rows(base, deflections, cap, epsilon):
    """Rows of the known directions of one filter and scope.

    ``deflections`` (6 A,): nonlinear then linearised d2 of the known manoeuvres (row
    ``d A + a``), ``cap`` (3 A,) the cap's."""
    count = len(DIRECTIONS) * len(MAGNITUDES)
    auc, tpr = _powers(np.concatenate([deflections, cap]))
    names = ("auc", "tpr", "auc_linear", "tpr_linear", "auc_cap", "tpr_cap")
    rows = []
    for j, (direction, magnitude) in enumerate(itertools.product(DIRECTIONS, MAGNITUDES)):
        values = [float(v[k * count + j]) for k in range(3) for v in (auc, tpr)]
        rows.append({**base, "direction": direction, "magnitude_m_s": magnitude})
        rows[-1].update(epsilon_achieved=epsilon, **dict(zip(names, values)))
    return rows


def _unknown_rows(base, grams, epsilon, draws):
    """Rows of the unknown direction of one filter and scope; grams (A, J, J); draws of
    :func:`~ssa_privacy.attacks.manoeuvre.unknown_direction_draws`, shared by the filter's
    scopes and magnitudes.

    The averaged test sees the whitened shifts only through their inner products: with
    ``Gram = V diag(lambda) V^T``, the coordinates ``diag(sqrt(lambda)) V^T`` have them."""
    rows = []
    for magnitude, gram in zip(MAGNITUDES, grams):
        lam, V = linalg.eigh(0.5 * (gram + gram.T))
        coords = np.sqrt(np.clip(lam, 0.0, None))[:, None] * V.T
        estimate = unknown_direction(
            coords.T, np.eye(len(coords)), ALPHA, UNKNOWN_SAMPLES, factored=True, draws=draws
        )
        rows.append({**base, "direction": UNKNOWN, "magnitude_m_s": magnitude})
        rows[-1].update(
            epsilon_achieved=epsilon,
            auc=estimate.auc,
            auc_low=estimate.auc_interval[0],
            auc_high=estimate.auc_interval[1],
            tpr=estimate.tpr,
            tpr_low=estimate.tpr_interval[0],
            tpr_high=estimate.tpr_interval[1],
            **dict.fromkeys(("auc_linear", "tpr_linear", "auc_cap", "tpr_cap")),
        )
    return rows


def _checked(mechanisms, day_epsilons, columns, found):
    """The rows' identifying columns per filter (default ``{"filter": f}``); ValueError
    unless there is one mechanism per pass and one day epsilon and columns per filter."""
    columns = [{"filter": f} for f in range(len(mechanisms))] if columns is None else columns
    if not (len(mechanisms) == len(day_epsilons) == len(columns)):
        raise ValueError(
            f"mechanisms, day_epsilons and columns must have one entry per filter, got "
            f"{len(mechanisms)}, {len(day_epsilons)} and {len(columns)}"
        )
    for f, designs in enumerate(mechanisms):
        if len(designs) != len(found):
            raise ValueError(f"mechanisms[{f}] must hold one entry per pass ({len(found)})")
    return columns


def object_detectability(
    model,
    nominal,
    Sigma_XX,
    found,
    mechanisms,
    day_epsilons,
    seed_keys,
    *,
    delta,
    convention="exact",
    columns=None,
):
    """Manoeuvre detectability of one object's releases, per filter (module docstring).

    Parameters
    ----------
    model, nominal
        As :func:`nonlinear_shifts` (nominal: the object's track, (m, 6), km and km/s).
    Sigma_XX : ndarray, shape (6, 6)
        Prior covariance of the manoeuvre deviation x0 (km^2, km^2/s, km^2/s^2).
    found : list of Pass
        The object's passes; the "pass" scope is its first (:func:`first_pass`).
    mechanisms : list of list
        Per filter (one way of releasing the passes), per pass, its PassMechanism, or
        None (the sensor's measurements released as they are).
    day_epsilons : sequence of float
        Per filter the achieved day epsilon (nats), the cap's epsilon of the "day" scope.
    seed_keys : tuple of int
        Keys of the unknown-direction Monte Carlo: filter f uses ``seed_keys + (f,)``
        for every scope and magnitude, drawn once (common random numbers).
    delta, convention : float, str
        The PML delta and convention (:mod:`ssa_privacy.privacy.notions`, default
        ``"exact"``) of the caps and of the pass epsilons of the sensor noise.
    columns : list of dict, optional
        Per filter, the columns its rows start with; default ``{"filter": f}``.

    Returns
    -------
    list of dict
        One row per filter, scope, direction and magnitude: the filter's ``columns``,
        ``scope``, ``direction``, ``magnitude_m_s``, ``epsilon_achieved`` (the cap's,
        nats) and the columns of the module docstring; none without passes.

    Raises
    ------
    ValueError
        If the mechanisms, day epsilons and columns do not match, or as :func:`nonlinear_shifts`.

    Notes
    -----
    Van Trees, *Detection, Estimation and Modulation Theory I*, §2.6; Kay, *Fundamentals
    of Statistical Signal Processing II*, §6.4; [LKC] Theorem 3.3. The passes' noises are
    independent: the day's deflections and Gram matrices are sums over its passes.
    """
    if not found:
        return []
    columns = _checked(mechanisms, day_epsilons, columns, found)
    shared = _shared(model, nominal, Sigma_XX, found, (delta, convention))
    return _rows(shared, columns, mechanisms, day_epsilons, seed_keys)


def _shared(model, nominal, Sigma_XX, found, privacy):
    """What every filter's rows use: ``privacy`` (delta, convention), the prior, the RSW
    frame, the passes, their sensors' scales and noise, and the whitened shifts."""
    sensors = [_sensor(p) for p in found]
    shifts = _whitened_shifts(model, nominal, found, sensors)
    return privacy, Sigma_XX, rsw_frame(nominal[0]), found, sensors, shifts


def _rows(shared, columns, mechanisms, day_epsilons, seed_keys):
    """The rows of every filter (:func:`object_detectability`)."""
    rows = []
    for f, (designs, day_epsilon) in enumerate(zip(mechanisms, day_epsilons, strict=True)):
        rows += _filter_rows(columns[f], designs, day_epsilon, shared, tuple(seed_keys) + (f,))
    return rows


def _whitened_shifts(model, nominal, found, sensors):
    """Per pass, the measurement shifts of every manoeuvre divided by the sensor's
    standard deviations: the known directions' nonlinear shifts, their linear shifts
    (``C`` times the Delta-v), then the unknown directions' nonlinear shifts."""
    velocities = manoeuvre_velocities(nominal[0])
    known = len(DIRECTIONS) * len(MAGNITUDES)
    shifts = nonlinear_shifts(model, nominal, found, velocities)
    return [
        np.concatenate(
            [s[:known].T, p.C.reshape(-1, 6)[:, 3:] @ velocities[:known].T, s[known:].T], 1
        )
        / scale[:, None]
        for p, s, (scale, _) in zip(found, shifts, sensors)
    ]


def _filter_rows(base, designs, day_epsilon, shared, keys):
    """The rows of one filter: both scopes, every manoeuvre."""
    privacy, Sigma_XX, frame, found, sensors, columns = shared
    deflections, grams = _pass_statistics(found, designs, sensors, columns)
    first = first_pass(found)
    epsilons = (_pass_epsilon(privacy, Sigma_XX, found[first], designs[first]), day_epsilon)
    # one set of random numbers for every scope and magnitude (those of drawing afresh
    # from the filter's keys for each)
    J = UNKNOWN_DIRECTIONS
    draws = unknown_direction_draws(UNKNOWN_SAMPLES, J, J, keys)
    rows = []
    for scope, parts, epsilon in zip(SCOPES, (slice(first, first + 1), slice(None)), epsilons):
        cap = _cap_deflections(Sigma_XX, epsilon, privacy, frame)
        scoped = {**base, "scope": scope}
        rows += _known_rows(scoped, deflections[parts].sum(axis=0), cap, epsilon)
        rows += _unknown_rows(scoped, grams[parts].sum(axis=0), epsilon, draws)
    return rows


def brute_force_check(
    model, nominal, item, mechanism, direction="along-track", magnitude=1.0, samples=2000, seed=0
):
    """Release one pass many times under H0 and H1 and measure the known-direction test.

    Parameters
    ----------
    model, nominal
        As :func:`nonlinear_shifts` (nominal: the track, (m, 6), km and km/s).
    item : Pass
        The pass.
    mechanism : PassMechanism or None
        Its mechanism (None: the sensor's measurements are released as they are).
    direction : {"radial", "along-track", "cross-track"}, optional
        The manoeuvre's direction (default along-track).
    magnitude : float, optional
        Its Delta-v, m/s, positive (default 1).
    samples : int, optional
        Releases under each hypothesis, >= 2 (default 2000).
    seed : int, sequence of int or Generator, optional
        Randomness of the sensor noise and the releases (default 0).

    Returns
    -------
    dict
        ``auc_exact``, ``tpr_exact`` (:func:`~ssa_privacy.attacks.manoeuvre.known_direction`
        of the nonlinear shift), ``auc``, ``auc_low``, ``auc_high``, ``auc_se`` (the
        DeLong interval's half-width / 1.96), ``tpr``, ``tpr_low``, ``tpr_high`` of the
        same statistic on the releases, and ``samples``.

    Raises
    ------
    ValueError
        On an unknown direction, a non-positive magnitude or samples, or as
        :func:`~ssa_privacy.attacks.manoeuvre.brute_force_auc`.

    Notes
    -----
    Each release is ``h + n + F e``: h the nominal (H0) or manoeuvred (H1) measurements,
    n the sensor noise ``N(0, R)`` per measurement, F e the mechanism's noise
    (:meth:`PassMechanism.release <ssa_privacy.privacy.pml.passes.PassMechanism.release>`);
    the statistic is :func:`~ssa_privacy.attacks.manoeuvre.log_likelihood_ratio` of the
    wrapped residual against the nominal measurements (Robert and Casella, *Monte Carlo
    Statistical Methods*, §3.2).
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    magnitude = positive(magnitude, "magnitude")
    samples = positive_int(samples, "samples")
    kick = 1e-3 * magnitude * rsw_frame(nominal[0])[DIRECTIONS.index(direction)]
    shift, reference, statistic, factor = _pass_test(model, nominal, item, mechanism, kick)
    sensor = np.tile(np.sqrt(np.diag(item.R)), len(item.indices))
    h0, h1 = (_release_sampler(mean, sensor, mechanism) for mean in (reference, reference + shift))
    estimate = brute_force_auc(h0, h1, statistic, samples, seed, ALPHA, vectorized=True)
    return _check_row(known_direction(shift, factor, ALPHA, True), estimate, samples)


def _pass_test(model, nominal, item, mechanism, kick):
    """The nonlinear shift of a pass's measurements by the Delta-v ``kick`` (km/s), its
    nominal measurements, the log-likelihood ratio of releases (K, n) against them
    (wrapped residuals) and the release noise's Cholesky factor (release units)."""
    shift = nonlinear_shifts(model, nominal, [item], kick[None])[0][0]
    station = model.stations[item.station]
    times = model.times[item.indices]
    reference = station.measure(nominal[item.indices], times, model.earth).ravel()
    wrapped = np.tile(station.wrapped, len(item.indices))
    scale, sensor = _sensor(item)
    factor = scale[:, None] * np.linalg.cholesky(_scaled_noise(scale, sensor, mechanism))
    llr = log_likelihood_ratio(shift, factor, True)

    def statistic(releases):  # the draws of a hypothesis at once
        return llr(np.array([measurement_residual(r, reference, wrapped) for r in releases]))

    return shift, reference, statistic, factor


def _release_sampler(mean, sensor, mechanism):
    """A draw of one release of the pass: ``mean`` plus sensor noise of standard
    deviations ``sensor``, released through ``mechanism`` (None: as measured)."""

    def draw(rng):
        y = mean + rng.standard_normal(len(mean)) * sensor
        return y if mechanism is None else mechanism.release(y, seed=rng).values

    return draw


def _check_row(exact, estimate, samples):
    """The row of :func:`brute_force_check`: the exact power and its Monte Carlo estimate."""
    (low, high), (tpr_low, tpr_high) = estimate.auc_interval, estimate.tpr_interval
    return dict(
        auc_exact=exact.auc, tpr_exact=exact.tpr, auc=estimate.auc, auc_low=low,
        auc_high=high, auc_se=float((high - low) / (2 * stats.norm.isf(0.025))), tpr=estimate.tpr,
        tpr_low=tpr_low, tpr_high=tpr_high, samples=samples,
    )  # fmt: skip
