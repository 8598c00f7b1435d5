"""DP choice of GP hyperparameters by the exponential mechanism ([SMI] supplement).

The utility of a candidate (length scale, noise variance) is minus its cross-validated
squared error, clamped, plus the expected energy of the later cloaking noise; the
exponential mechanism picks a candidate with probability proportional to
``exp(epsilon u / (2 Delta_u))``, which is epsilon-DP when ``Delta_u`` bounds the change
of every utility between neighbouring data sets (McSherry and Talwar 2007). The
temperature is calibrated to ``epsilon (1 - kappa)`` with a small public margin kappa
for the rounding of the probabilities; the check recomputes the epsilon of the
probabilities actually sampled from, with a rigorous bound on that rounding. See
:doc:`/theory/dp-gp`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import special
from tqdm.auto import tqdm

from ssa_privacy._internal.random import random_generator
from ssa_privacy._internal.validation import (
    as_finite_array,
    flag,
    nonempty,
    open_interval,
    positive,
    positive_int,
)
from ssa_privacy.gp.kernels import RBF, as_inputs
from ssa_privacy.privacy.accounting import noise_multiplier
from ssa_privacy.privacy.dp_gp.cloaking import CloakingMechanism
from ssa_privacy.privacy.dp_gp.release import PrivacyCheck, cloaking_matrix
from ssa_privacy.privacy.mechanism import Certificate
from ssa_privacy.privacy.rounding import INFLATE, RULE, UNIT_ROUNDOFF, gamma

__all__ = [
    "HyperparameterSelection",
    "SELECTION_MARGIN",
    "select_hyperparameters",
]

#: Least relative margin of the calibration: the temperature is ``epsilon (1 - kappa) /
#: (2 Delta_u)`` with kappa this or 16 times the a-priori rounding bound over epsilon,
#: whichever is larger (public, so the choice leaks nothing). It covers the check's
#: tolerance unless the utilities of all candidates lie within about 1e-4 Delta_u.
SELECTION_MARGIN = 2.0**-30
#: Largest exponent of a probability kept away from underflow (exp(-700) is normal).
_EXPONENT_LIMIT = 700.0
_DESCRIPTION = "exponential mechanism (McSherry and Talwar 2007) on -SSE"


@dataclass(frozen=True)
class HyperparameterSelection:
    """Result of :func:`select_hyperparameters`.

    Parameters
    ----------
    candidates : ndarray, shape (G, 2)
        Grid of (lengthscale, noise variance) pairs.
    utilities : ndarray, shape (G,)
        u(theta) = -(clamped cross-validation SSE + expected DP-noise energy).
    utility_sensitivity : float
        Delta_u, the largest change of any utility between neighbouring data sets.
    probabilities : ndarray, shape (G,)
        Selection probabilities ``prop. to exp(epsilon (1 - kappa) u / (2 Delta_u))``
        (kappa: see :func:`select_hyperparameters`).
    index : int
        The selected candidate.
    check : PrivacyCheck
        Pure epsilon-DP of the selection, recomputed from ``probabilities`` (its
        ``certificate`` is the :class:`~ssa_privacy.privacy.mechanism.Certificate`).
    """

    candidates: np.ndarray
    utilities: np.ndarray
    utility_sensitivity: float
    probabilities: np.ndarray
    index: int
    check: PrivacyCheck

    @property
    def lengthscale(self):
        """Selected length scale (input units)."""
        return float(self.candidates[self.index, 0])

    @property
    def noise_variance(self):
        """Selected noise variance (normalised units)."""
        return float(self.candidates[self.index, 1])


def _fold_terms(X, y, train, test, lengthscale, noise_variance, d, bound, release):
    """Clamped SSE, expected noise energy and per-point SSE sensitivity of one fold."""
    kernel = RBF(lengthscale)
    K_star_X, K_XX = kernel(X[test], X[train]), kernel(X[train])
    C, _ = cloaking_matrix(K_star_X, K_XX, noise_variance)
    residual = np.clip(y[test] - C @ y[train], -bound, bound)
    energy = 0.0
    if release is not None:
        cloak = CloakingMechanism(
            K_star_X, K_XX, noise_variance, *release, d, calibration="hall", tol=1e-6
        )
        energy = float(np.trace(cloak.noise_scale**2 * cloak.M))
    per_point = np.full(len(X), min(2 * bound * d, bound**2))
    per_point[train] = np.sum(np.minimum(2 * bound * d * np.abs(C), bound**2), axis=0)
    return float(residual @ residual), energy, per_point


def select_hyperparameters(
    X,
    y,
    lengthscales,
    noise_variances,
    *,
    epsilon,
    sensitivity,
    residual_bound=None,
    folds=20,
    test_fraction=0.1,
    release=None,
    seed=None,
    progress=False,
):
    """DP choice of an RBF length scale and noise variance by the exponential mechanism.

    The utility of a candidate theta is ``u(theta) = -(SSE(theta) + E(theta))``. SSE is
    the sum over ``folds`` Monte-Carlo cross-validation splits (drawn from public
    indices) of squared test residuals of the posterior mean, each residual clamped to
    ``[-B, B]``. E is the expected energy ``tr(Sigma_k)`` of the cloaking noise the
    regression release will add at the fold's test points (it depends only on the
    public inputs; [SMI] Fig. 4 shows the selection reacting to the release epsilon).

    Sensitivity: changing ``y_j`` by at most d changes a clamped squared residual by at
    most ``min(2 B |delta r|, B^2)``. If j is a training point of fold k the residuals
    move by ``d |C^(k)_tj|``; if j is a test point its own residual moves by d. So::

        Delta_SSE(theta) = max_j sum_k [ j in test_k ? min(2Bd, B^2)
                                         : sum_t min(2 B d |C^(k)_tj|, B^2) ]

    and ``Delta_u = max_theta Delta_SSE(theta)``. This per-point sum is valid for
    Monte-Carlo splits where a point can be tested in several folds (the paper's
    formula assumes each point is tested once).

    Parameters
    ----------
    X : array_like, shape (n, D) or (n,)
        Training inputs (public).
    y : array_like, shape (n,)
        Normalised, clipped outputs (private).
    lengthscales : array_like, shape (a,)
        Candidate RBF length scales (input units); kernel variance 1.
    noise_variances : array_like, shape (b,)
        Candidate noise variances (normalised units).
    epsilon : float
        Privacy budget of the selection (pure DP).
    sensitivity : float
        d (normalised units).
    residual_bound : float, optional
        Clamp B on residuals (normalised units); default d.
    folds : int
        Number of Monte-Carlo cross-validation splits.
    test_fraction : float
        Fraction of points in each test split.
    release : tuple of (epsilon, delta), optional
        Privacy target of the later cloaking release, to include E(theta).
    seed : int or numpy.random.Generator, optional
        Randomness of the splits and of the selection; None draws fresh entropy.
    progress : bool
        Show a tqdm progress bar over candidates.

    Returns
    -------
    HyperparameterSelection
        The grid, utilities, sensitivity, probabilities, choice and its check. The
        probabilities are ``prop. to exp(epsilon (1 - kappa) u / (2 Delta_u))`` with
        ``kappa = max(SELECTION_MARGIN, 16 eta / epsilon)``, eta the a-priori bound on
        the rounding of the log-probabilities (:func:`_code_rounding`), recorded as
        ``selection_margin`` in the check's evidence.

    Raises
    ------
    ValueError
        On empty or mismatched data, empty grids, non-positive values, a bad split
        fraction, fewer than one fold, or a ``release`` that is not a valid (epsilon,
        delta) pair (epsilon <= 1 for the cloaking release's Hall calibration).
    TypeError
        On a number of the wrong type (bool, string), a non-bool ``progress`` or a bad
        seed.

    Notes
    -----
    [SMI] supplement, "Hyperparameter selection"; McSherry and Talwar (2007). The clamp
    and the exact sensitivity expression are not legible in the paper's text; this is
    a rigorous reconstruction (:doc:`/theory/dp-gp`).
    """
    X = as_inputs(X)
    y = as_finite_array(y, "y", ndim=1)
    if len(y) != len(X):
        raise ValueError(f"y has {len(y)} entries but X has {len(X)} rows")
    epsilon, d = positive(epsilon, "epsilon"), positive(sensitivity, "sensitivity")
    bound = d if residual_bound is None else positive(residual_bound, "residual_bound")
    test_fraction = open_interval(test_fraction, "test_fraction")
    folds, progress = positive_int(folds, "folds"), flag(progress, "progress")
    candidates = {}
    for name, values in (("lengthscales", lengthscales), ("noise_variances", noise_variances)):
        values = nonempty(np.atleast_1d(as_finite_array(values, name)), name)
        if values.ndim != 1 or np.any(values <= 0):
            raise ValueError(f"{name} must be a vector of positive numbers, got {values}")
        candidates[name] = values
    if release is not None:
        if isinstance(release, str) or np.shape(release) != (2,):
            raise ValueError(f"release must be a pair (epsilon, delta), got {release!r}")
        try:  # the release's level, with the calibration of the cloaking noise of the utility
            noise_multiplier(*release)
        except (TypeError, ValueError) as error:
            raise type(error)(f"release (epsilon, delta) is invalid: {error}") from None
    grid = np.array(
        [(l, s) for l in candidates["lengthscales"] for s in candidates["noise_variances"]]
    )
    rng = random_generator(seed)
    n_test = max(1, int(round(test_fraction * len(X))))
    splits = [np.split(rng.permutation(len(X)), [n_test]) for _ in range(folds)]
    utilities, sensitivities, energies = (np.empty(len(grid)) for _ in range(3))
    for g, (l, s2) in enumerate(tqdm(grid, disable=not progress, desc="candidates", leave=False)):
        terms = [_fold_terms(X, y, train, test, l, s2, d, bound, release) for test, train in splits]
        energies[g] = sum(t[1] for t in terms)
        utilities[g] = -(sum(t[0] for t in terms) + energies[g])
        sensitivities[g] = float(np.max(np.sum([t[2] for t in terms], axis=0)))
    Delta_u = _utility_sensitivity(sensitivities)
    # Public: |u| <= folds n_test B^2 + E for every data set (residuals clamped to B).
    utility_bound = folds * n_test * bound**2 + float(np.max(energies))
    eta = _code_rounding(epsilon / (2 * Delta_u), utility_bound, len(grid))
    kappa = max(SELECTION_MARGIN, 16 * eta / epsilon)
    logits = epsilon * (1 - kappa) * utilities / (2 * Delta_u)
    probabilities = np.exp(logits - special.logsumexp(logits))
    index = int(rng.choice(len(grid), p=probabilities))
    certificate = _selection_certificate(
        utilities,
        probabilities,
        sensitivities,
        epsilon,
        utility_bound,
        folds=folds,
        residual_bound=bound,
        selection_margin=kappa,
    )
    check = PrivacyCheck.from_certificate(certificate)
    return HyperparameterSelection(grid, utilities, Delta_u, probabilities, index, check)


def _code_rounding(beta, utility_bound, count):
    """A-priori bound on the rounding of the log-probabilities of :func:`select_hyperparameters`.

    For any data set whose utilities are at most ``utility_bound`` in magnitude, with
    inverse temperature at most beta, the stored ``p_i = fl(exp(fl(l_i - L)))``, ``l_i =
    fl(fl(eps u_i) / (2 Delta_u))`` and L any float within ``log count + 1`` above the
    largest logit, satisfy ``log p_i = beta_c u_i - L + e_i`` with ``|e_i| <= eta``:
    ``gamma_3 |l_i|`` for the logit (two roundings), ``u |l_i - L|`` for the
    subtraction, ``gamma_4`` for exp (2 ulps, 4 u relative). ``|l_i| <= beta U`` and
    ``|l_i - L| <= 2 beta U + log count + 1``.
    """
    magnitude = beta * utility_bound
    return INFLATE * (
        gamma(3) * magnitude + UNIT_ROUNDOFF * (2 * magnitude + np.log(count) + 1.0) + gamma(4)
    )


def _utility_sensitivity(sensitivities):
    """The calibration's Delta_u: the largest per-candidate sensitivity."""
    return float(sensitivities.max())


def _selection_certificate(
    utilities, probabilities, sensitivities, epsilon, utility_bound, **evidence
):
    """Pure-DP certificate of an exponential-mechanism draw, from its probabilities.

    The sampled distribution is ``q = p / sum(p)`` with p the stored probabilities. The
    computation that produced them gives, for every data set, ``log p_i = beta u_i - L +
    e_i`` with one inverse temperature beta (public: epsilon and Delta_u are) and
    ``|e_i| <= eta`` (:func:`_code_rounding`, with ``utility_bound`` the public bound on
    ``|u|`` and beta at most ``beta_mag``). For neighbours the normalising constants
    cancel and each ratio ``q_i(D) / q_i(D')`` is at most ``exp(2 beta Delta_u + 4 eta)``
    (Dwork and Roth 2014, Theorem 3.10, with the deviations): the selection is
    ``(2 beta Delta_u + 4 eta)``-DP, the exact quantity certified.

    beta is recovered from p: the slope ``beta^`` of log p between the candidates of
    largest and smallest utility is within ``2 eta / (u_max - u_min)`` of beta (plus
    the rounding of the slope), and the residuals of the other candidates about that
    line are then at most ``4 eta`` (plus the rounding of beta^): if one provably
    exceeds it, p was not computed this way and nothing is certified (tolerance inf;
    the consistency residual). ``Delta_u`` is recomputed as the largest per-candidate
    sensitivity. The computed margin is ``epsilon - 2 beta^ Delta_u``; the tolerance
    ``2 w Delta_u + 4 eta`` plus the rounding of the margin. It is inf as well when a
    probability of some data set could underflow (``2 beta_mag U + log G + 2 > 700``:
    then a candidate of probability 0 for one data set may be positive for a neighbour),
    when a stored probability is not positive, or when all utilities are equal (beta is
    not identified). The computed utilities and Delta_u are taken as exact.
    """
    Delta_u = float(np.max(sensitivities))
    count = len(utilities)
    with np.errstate(divide="ignore"):
        log_p = np.log(probabilities)
    fit = _temperature(utilities, log_p)
    recovered = abs(fit["beta"]) if np.isfinite(fit["beta"]) else 0.0
    beta_mag = max(recovered, epsilon / (2 * Delta_u)) * (1 + 2.0**-20)
    eta = _code_rounding(beta_mag, utility_bound, count) if count > 1 else 0.0
    u = UNIT_ROUNDOFF
    width = np.inf
    if fit["spread"] > 0:
        width = INFLATE * (2 * eta / fit["spread"] * (1 + 2 * u) + fit["slope_error"])
    achieved = 2 * fit["beta"] * Delta_u
    margin = float(epsilon - achieved)
    exponent = 2 * beta_mag * utility_bound + np.log(count) + 2.0
    bounded = (
        fit["lowest"] - fit["error"] <= 4 * eta + fit["slope_error"] * fit["spread"] * INFLATE
        and abs(fit["beta"]) + width <= beta_mag
        and exponent <= _EXPONENT_LIMIT
    )
    tolerance = np.inf
    if count == 1:
        tolerance = 0.0
    elif bounded and np.isfinite(margin):
        tolerance = INFLATE * (2 * width * Delta_u + 4 * eta + u * (abs(achieved) + abs(margin)))
    details = {
        "mechanism": _DESCRIPTION,
        "utility_sensitivity": Delta_u,
        **evidence,
        "utility_bound": float(utility_bound),
        "inverse_temperature": fit["beta"],
        "inverse_temperature_error": float(width),
        "epsilon_achieved": float(achieved),
        "code_rounding": float(eta),
        "fit_residual": fit["residual"],
        "underflow_possible": bool(exponent > _EXPONENT_LIMIT),
        "rule": RULE,
    }
    parameters = {"epsilon": float(epsilon), "delta": 0.0}
    passed = bool(margin - tolerance >= 0.0)
    return Certificate("dp", parameters, passed, margin, float(tolerance), details)


def _temperature(utilities, log_p):
    """The two-point slope of log p on u and the residuals about it, with rounding bounds.

    Returns a dict: ``beta`` (the slope between the candidates of largest and smallest
    utility), ``spread`` (a lower bound on ``u_max - u_min``), ``slope_error`` (bound on
    the distance of beta to the exact slope of the stored inputs), ``residual`` (an upper
    bound on the largest exact residual ``|log p_k - log p_j - beta (u_k - u_j)|``),
    ``lowest`` and ``error`` (the largest computed residual and its rounding bound, so
    that ``lowest - error`` is a lower bound on the largest exact residual). Each
    logarithm is within 2 ulps (4 u relative); a difference or product adds one rounding.
    """
    u = UNIT_ROUNDOFF
    if len(utilities) == 1:
        return dict(beta=0.0, spread=np.inf, slope_error=0.0, residual=0.0, lowest=0.0, error=0.0)
    i, j = int(np.argmax(utilities)), int(np.argmin(utilities))
    spread = float(utilities[i] - utilities[j]) * (1 - u)
    with np.errstate(invalid="ignore", divide="ignore"):
        rise = log_p[i] - log_p[j]
        beta = rise / (utilities[i] - utilities[j])
        slope_error = (
            gamma(5) * (abs(log_p[i]) + abs(log_p[j])) / spread + gamma(3) * abs(beta)
        ) * INFLATE
        steps = utilities - utilities[j]
        residuals = (log_p - log_p[j]) - beta * steps
        errors = INFLATE * (
            gamma(5) * (np.abs(log_p) + abs(log_p[j]))
            + gamma(3) * np.abs(beta * steps)
            + u * np.abs(residuals)
        )
    finite = bool(np.all(np.isfinite(residuals)) and np.isfinite(beta) and spread > 0)
    if not finite:
        return dict(
            beta=np.nan, spread=0.0, slope_error=np.inf, residual=np.inf, lowest=np.inf, error=0.0
        )
    k = int(np.argmax(np.abs(residuals) - errors))
    return dict(
        beta=float(beta),
        spread=spread,
        slope_error=float(slope_error),
        residual=float(np.max(np.abs(residuals) + errors)),
        lowest=float(np.abs(residuals[k])),
        error=float(errors[k]),
    )
