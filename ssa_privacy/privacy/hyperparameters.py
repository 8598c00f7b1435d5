"""DP choice of GP hyperparameters by the exponential mechanism ([SMI] supplement).

The utility of a candidate (length scale, noise variance) is minus its cross-validated
squared error, clamped, plus the expected energy of the later cloaking noise; the
exponential mechanism picks a candidate with probability proportional to
``exp(epsilon u / (2 Delta_u))``, which is epsilon-DP when ``Delta_u`` bounds the change
of every utility between neighbouring data sets (McSherry and Talwar 2007). The check
recomputes the epsilon of the probabilities actually sampled from. See
:doc:`/theory/dp-gp`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import special
from tqdm.auto import tqdm

from ssa_privacy._validation import (
    as_finite_array,
    flag,
    nonempty,
    open_interval,
    positive,
    positive_int,
)
from ssa_privacy.gp import RBF, as_inputs
from ssa_privacy.privacy.accounting import noise_multiplier
from ssa_privacy.privacy.cloaking import cloaking_noise_covariance
from ssa_privacy.privacy.dp_release import PrivacyCheck, _generator, cloaking_matrix
from ssa_privacy.privacy.mechanism import Certificate

#: Relative slack of the selection's check on epsilon (the temperature is fitted from
#: log-probabilities, which carry round-off).
SELECTION_RTOL = 1e-9
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
        Selection probabilities ``prop. to exp(epsilon u / (2 Delta_u))``.
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
        energy = float(
            np.trace(
                cloaking_noise_covariance(
                    K_star_X, K_XX, noise_variance, *release, sensitivity=d, tol=1e-6
                )
            )
        )
    per_point = np.full(len(X), min(2 * bound * d, bound**2))
    per_point[train] = np.sum(np.minimum(2 * bound * d * np.abs(C), bound**2), axis=0)
    return float(residual @ residual) + energy, per_point


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
        The grid, utilities, sensitivity, probabilities, choice and its check.

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
    rng = _generator(seed)
    n_test = max(1, int(round(test_fraction * len(X))))
    splits = [np.split(rng.permutation(len(X)), [n_test]) for _ in range(folds)]
    utilities, sensitivities = np.empty(len(grid)), np.empty(len(grid))
    for g, (l, s2) in enumerate(tqdm(grid, disable=not progress, desc="candidates", leave=False)):
        terms = [_fold_terms(X, y, train, test, l, s2, d, bound, release) for test, train in splits]
        utilities[g] = -sum(t[0] for t in terms)
        sensitivities[g] = float(np.max(np.sum([t[1] for t in terms], axis=0)))
    Delta_u = _utility_sensitivity(sensitivities)
    logits = epsilon * utilities / (2 * Delta_u)
    probabilities = np.exp(logits - special.logsumexp(logits))
    index = int(rng.choice(len(grid), p=probabilities))
    certificate = _selection_certificate(
        utilities, probabilities, sensitivities, epsilon, folds=folds, residual_bound=bound
    )
    check = PrivacyCheck.from_certificate(certificate)
    return HyperparameterSelection(grid, utilities, Delta_u, probabilities, index, check)


def _utility_sensitivity(sensitivities):
    """The calibration's Delta_u: the largest per-candidate sensitivity."""
    return float(sensitivities.max())


def _selection_certificate(utilities, probabilities, sensitivities, epsilon, **evidence):
    """Pure-DP certificate of an exponential-mechanism draw, from its probabilities.

    The probabilities sampled from are ``p ~ exp(beta u)``; beta is recovered by least
    squares of ``log p`` on u (over the candidates with p > 0), ``Delta_u`` is recomputed
    as the largest per-candidate sensitivity, and the selection is
    ``2 beta Delta_u``-DP (Dwork and Roth 2014, Theorem 3.10). The check fails if the
    probabilities are not of that form (fit residual above round-off).
    """
    Delta_u = float(np.max(sensitivities))
    kept = probabilities > 0
    u, log_p = utilities[kept], np.log(probabilities[kept])
    centred = u - u.mean()
    spread = float(centred @ centred)
    beta = float(centred @ (log_p - log_p.mean())) / spread if spread > 0 else 0.0
    residual = float(np.max(np.abs(log_p - log_p.mean() - beta * centred)))
    achieved = 2 * beta * Delta_u
    consistent = residual <= 1e-8 * max(1.0, float(np.max(np.abs(log_p))))
    margin, tolerance = epsilon - achieved, SELECTION_RTOL * epsilon
    passed = bool(np.isfinite(achieved) and consistent and margin >= -tolerance)
    details = {
        "mechanism": _DESCRIPTION,
        "utility_sensitivity": Delta_u,
        **evidence,
        "inverse_temperature": beta,
        "epsilon_achieved": achieved,
        "fit_residual": residual,
        "rule": "margin >= -tolerance and log p linear in u (relative slack on epsilon)",
    }
    parameters = {"epsilon": float(epsilon), "delta": 0.0}
    return Certificate("dp", parameters, passed, float(margin), tolerance, details)
