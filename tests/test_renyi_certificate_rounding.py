"""The Renyi-DP certificate of posterior sampling [MAC], proven in floating point.

The certificate of :class:`PosteriorSamplingMechanism` encloses the Loewner scale ``c* =
max{c : Sigma >= c (sigma^2 k_D + eta^2 k)}`` of the stored noise Sigma relative to the
exact design covariance of the floating-point inputs, and the epsilon of Theorem 3.1 at
the reported order over that enclosure (docs/theory/posterior-sampling.rst,
"Certificates in floating point"). Here an independent mpmath computation at 50
significant digits on the very float64 inputs gives ``c*`` and the exact margin; the tests
check that they lie within the reported bounds, that ``passed`` implies a non-negative
exact margin, that designed mechanisms pass and that their noise scaled by 0.999 (in
variance) fails.
"""

from types import SimpleNamespace

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from ssa_privacy.privacy import FactoredCovariance, PosteriorSamplingMechanism
from ssa_privacy.privacy.posterior_sampling.bound import epsilon_for_delta
from ssa_privacy.privacy.posterior_sampling.certificate import FAMILY_RTOL, _posterior_enclosure
from ssa_privacy.privacy.posterior_sampling.enclosure import epsilon_enclosure_exp_1d
from ssa_privacy.privacy.posterior_sampling.mechanism import DESIGN_RTOL, MAX_DESIGN_RTOL

DIGITS = 50
X10 = np.linspace(0.05, 0.95, 10)
GRID7 = np.linspace(0.0, 1.0, 7)

#: (n, m, lengthscale, ridge, eta, paths, epsilon): small instances for 50-digit checks.
SMALL = [
    (10, 7, 1.0, 3.0, 0.0, 1, 5.0),
    (10, 7, 1.0, 3.0, 0.0, 3, 5.0),
    (10, 7, 1.0, 3.0, 0.5, 2, 2.0),
    (8, 5, 0.3, 1.0, 0.0, 1, 60.0),
    (12, 6, 2.0, 0.5, 0.0, 1, 3000.0),
]
#: Larger instances: designs that must pass, and fail when weakened.
LARGER = [
    (100, 50, 0.5, 2.0, 0.0, 1, 8.0),
    (100, 200, 0.2, 3.0, 0.3, 1, 3.0),
    (400, 100, 0.1, 5.0, 0.0, 1, 3.0),
    (50, 400, 0.08, 1.0, 0.0, 2, 120.0),
]


def inputs(n, m, seed=0):
    """Sorted uniform training inputs and an even grid, both in [0, 1]."""
    X = np.sort(np.random.default_rng(seed).uniform(0.0, 1.0, n))
    return X, np.linspace(0.0, 1.0, m)


def design(n, m, l, r, eta, paths, epsilon, seed=0, **options):
    X, grid = inputs(n, m, seed)
    return PosteriorSamplingMechanism(
        X, grid, epsilon, 1e-5, lengthscale=l, ridge=r, eta=eta, paths=paths, **options
    )


def mp_matrix(A):
    return mp.matrix([[mp.mpf(float(a)) for a in row] for row in np.atleast_2d(A)])


def mp_kernel(A, B, l):
    """exp(-|a - b| / l) at working precision for the float inputs."""
    return mp.matrix([[mp.exp(-abs(mp.mpf(a) - mp.mpf(b)) / mp.mpf(l)) for b in B] for a in A])


def exact_posterior(X, grid, l, r):
    """k_D(grid, grid) = K_gg - K_gX (K_XX + r^2 I)^{-1} K_Xg and K_gg, at 50 digits."""
    K_XX, K_gX, K_gg = mp_kernel(X, X, l), mp_kernel(grid, X, l), mp_kernel(grid, grid, l)
    C = K_XX + mp.mpf(r) ** 2 * mp.eye(len(X))
    columns = [mp.lu_solve(C, K_gX.T[:, j]) for j in range(len(grid))]
    Z = mp.matrix(len(X), len(grid))
    for j, column in enumerate(columns):
        for i in range(len(X)):
            Z[i, j] = column[i]
    return K_gg - K_gX * Z, K_gg


def smallest_generalised_eigenvalue(Sigma, S):
    """min x^T Sigma x / x^T S x for S positive definite (Cholesky whitening, eigsy)."""
    L = mp.cholesky(S)
    Linv = mp.inverse(L)
    values, _ = mp.eigsy(Linv * Sigma * Linv.T)
    return min(values)


def exact_noise_scale(mech):
    """c* for the mechanism's stored factors and its (sigma, eta), at 50 digits."""
    with mp.workdps(DIGITS):
        P, K = exact_posterior(mech.X, mech.grid, mech.lengthscale, mech.ridge)
        S = mp.mpf(mech.sigma) ** 2 * P + mp.mpf(mech.eta) ** 2 * K
        noise = mech.noise_covariance
        U = mp_matrix(noise.eigenvectors)
        Lam = mp.diag([mp.mpf(float(v)) for v in noise.eigenvalues])
        return smallest_generalised_eigenvalue(U * Lam * U.T, S)


def exact_epsilon(order, c, mech, digits=DIGITS):
    """Theorem 3.1 with Proposition 2, Proposition 3, Lemma B.7 and Mironov's conversion,
    in the alpha form of docs/theory/posterior-sampling.rst, for the noise c S."""
    with mp.workdps(digits):
        n, r, alpha = len(mech.X), mp.mpf(mech.ridge), mp.mpf(order)
        kappa = mp.exp(-1 / mp.mpf(mech.lengthscale))
        V = 1 - kappa**2 * (n - 1) / (n - 1 + r**2)
        Phi = 1 / (4 * r**2) if V >= r**2 else V / (V + r**2) ** 2
        Delta = 2 * mp.sqrt(2) * mp.mpf(mech.response_bound) * mp.sqrt(Phi)
        s2, e2 = c * mp.mpf(mech.sigma) ** 2, c * mp.mpf(mech.eta) ** 2
        A = s2 * r**2 + e2 * (V + r**2)
        tau = s2 * V / A
        if (alpha - 1) * tau >= 1:
            return mp.inf
        half, inverse = mp.log(1 + tau) / 2, 1 / (2 * (alpha - 1))
        psi = max(
            half - inverse * mp.log((1 + alpha * tau) / (1 + tau)),
            -half - inverse * mp.log(1 - (alpha - 1) * tau),
        )
        rdp = 2 * psi + alpha / 2 * (V + r**2) * Delta**2 / (A * (1 - (alpha - 1) * tau))
        return mech.paths * rdp + mp.log(1 / mp.mpf(mech.delta)) / (alpha - 1)


def check_against_exact(mech):
    """The reported bounds contain the 50-digit c*, epsilon and margin; passed => m* >= 0."""
    certificate = mech.certificate()
    evidence = certificate.evidence
    c_star = exact_noise_scale(mech)
    assert evidence["noise_scale_lower"] <= c_star <= evidence["noise_scale_upper"]
    epsilon = exact_epsilon(certificate.parameters["order"], c_star, mech)
    assert evidence["epsilon_lower"] <= epsilon <= evidence["epsilon_upper"]
    with mp.workdps(DIGITS):
        exact_margin = mp.mpf(mech.epsilon) - epsilon
        assert abs(mp.mpf(certificate.margin) - exact_margin) <= certificate.tolerance
    if certificate.passed:
        assert exact_margin >= 0
    return certificate, exact_margin


@pytest.mark.parametrize("setting", SMALL)
@pytest.mark.parametrize(
    "factor, passes", [(1.0, True), (1.5, True), (0.999, False), (1.0 - 1e-9, None)]
)
def test_enclosure_contains_the_exact_margin(setting, factor, passes):
    """The design's own noise, more, less, and a hair less (whatever the verdict)."""
    mech = design(*setting)
    certificate, exact_margin = check_against_exact(
        mech.with_noise(mech.noise_covariance.scaled(factor))
    )
    if passes is not None:
        assert certificate.passed == passes and (exact_margin > 0) == passes


def test_enclosure_holds_for_a_noise_off_the_family_ray():
    """Eigenvalues perturbed by 1e-9 relative: c* is then about 1 - 1e-9, not 1."""
    mech = design(*SMALL[0])
    noise = mech.noise_covariance
    wobble = 1.0 + 1e-9 * np.random.default_rng(3).standard_normal(noise.rank)
    other = mech.with_noise(FactoredCovariance(noise.eigenvalues * wobble, noise.eigenvectors))
    certificate, _ = check_against_exact(other)
    assert certificate.evidence["in_family"]
    assert 1e-11 < 1.0 - certificate.evidence["noise_scale_lower"] < 1e-8


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(2, 8),
    m=st.integers(1, 6),
    l=st.floats(0.1, 3.0),
    r=st.floats(0.3, 5.0),
    sigma=st.floats(0.05, 20.0),
    eta=st.sampled_from([0.0, 0.3]),
    factor=st.floats(0.98, 1.02),
    seed=st.integers(0, 2**16),
)
def test_enclosure_contains_the_exact_margin_on_random_instances(
    n, m, l, r, sigma, eta, factor, seed
):
    X, grid = inputs(n, m, seed)
    epsilon = epsilon_for_delta(1e-5, n=n, lengthscale=l, ridge=r, sigma=sigma, eta=eta)
    target = 1.0001 * epsilon
    mech = PosteriorSamplingMechanism(
        X, grid, target, 1e-5, lengthscale=l, ridge=r, eta=eta, sigma=sigma
    )
    check_against_exact(mech.with_noise(mech.noise_covariance.scaled(factor)))


@pytest.mark.parametrize("setting", SMALL + LARGER)
def test_designs_pass_and_fail_when_scaled_by_0999(setting):
    mech = design(*setting)
    certificate = mech.certificate()
    assert certificate.passed and certificate.margin - certificate.tolerance >= 0
    assert DESIGN_RTOL <= mech.design_rtol <= MAX_DESIGN_RTOL
    assert certificate.margin <= 2 * mech.design_rtol * mech.epsilon
    weakened = mech.with_noise(mech.noise_covariance.scaled(0.999)).certificate()
    assert not weakened.passed
    assert weakened.margin + weakened.tolerance < 0  # the exact margin is proven negative
    assert mech.release(np.zeros(len(mech.X)), seed=0).certificate.passed


def test_tolerance_is_small_on_well_conditioned_inputs():
    mech = PosteriorSamplingMechanism(X10, GRID7, 5.0, 1e-5, lengthscale=1.0, ridge=3.0)
    certificate = mech.certificate()
    evidence = certificate.evidence
    assert mech.design_rtol == DESIGN_RTOL
    assert 0 < certificate.tolerance < 1e-11 * mech.epsilon
    assert evidence["noise_scale_upper"] - evidence["noise_scale_lower"] < 1e-11
    assert evidence["design_error"] < 1e-12 and evidence["noise_rounding"] < 1e-13


def test_the_design_raises_its_margin_when_the_first_cannot_be_proven():
    """n = 100, m = 50: the bound on the posterior's rounding (~1e-9 relative) exceeds the
    first design margin of 1e-10; the design lowers its target until the proof succeeds."""
    mech = design(*LARGER[0])
    assert mech.design_rtol > DESIGN_RTOL
    certificate = mech.certificate()
    assert certificate.passed and certificate.tolerance > DESIGN_RTOL * mech.epsilon


def test_posterior_enclosure_contains_the_exact_posterior():
    """||P_computed - P_exact||_2 and ||K_computed - K_exact||_2 within the reported bounds."""
    X, grid = inputs(9, 6, seed=5)
    posterior, prior = _posterior_enclosure(X, grid, 0.4, 0.8)
    with mp.workdps(DIGITS):
        P, K = exact_posterior(X, grid, 0.4, 0.8)
        for enclosed, exact in ((posterior, P), (prior, K)):
            values, _ = mp.eigsy(mp_matrix(enclosed.matrix) - exact)
            assert 0 < max(abs(v) for v in values) <= enclosed.error


def test_epsilon_enclosure_brackets_the_exact_value_and_decreases_in_the_scale():
    mech = design(*SMALL[2])
    order = mech.certificate().parameters["order"]
    setting = dict(n=10, lengthscale=1.0, ridge=3.0, sigma=mech.sigma, eta=0.5, delta=1e-5, paths=2)
    lower, upper = epsilon_enclosure_exp_1d(order, (0.9, 1.1), **setting)
    exact = [exact_epsilon(order, mp.mpf(c), mech) for c in (0.9, 1.0, 1.1)]
    assert lower <= exact[2] < exact[1] < exact[0] <= upper
    assert upper - lower < 0.25 * upper
    assert epsilon_enclosure_exp_1d(order, (0.0, 1.0), **setting)[1] == np.inf
    assert epsilon_enclosure_exp_1d(1e6, (1.0, 1.0), **setting) == (np.inf, np.inf)


def setting_of(n, lengthscale, ridge, sigma, eta, delta, paths=1):
    """The keyword arguments of epsilon_enclosure_exp_1d and the mechanism-like record of
    exact_epsilon for one setting (response bound 1)."""
    keywords = dict(n=n, lengthscale=lengthscale, ridge=ridge, sigma=sigma, eta=eta, delta=delta)
    record = SimpleNamespace(X=range(n), response_bound=1.0, paths=paths, **keywords)
    return {**keywords, "paths": paths}, record


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 10**6),
    st.floats(-1.0, 40.0),
    st.floats(-20.0, 1.0),
    st.floats(-3.0, 3.0),
    st.sampled_from([0.0, 0.5]),
    st.floats(1e-12, 0.5),
    st.floats(1e-6, 1.0),
    st.floats(0.01, 100.0),
)
@example(10, 30.0, -15.0, 0.0, 0.0, 1e-5, 0.1, 1.0)  # V = 2.1e-30: 11 digits were left
def test_epsilon_enclosure_brackets_the_exact_value_through_its_cancellations(
    n, log_lengthscale, log_ridge, log_sigma, eta, delta, beta_fraction, scale
):
    """Long length scales and small ridges make ``V = 1 - kappa^2 (n - 1) / (n - 1 + r^2)``
    tiny, small ``tau~`` makes psi a difference of nearly equal terms, and orders near the
    admissible limit make ``1 - beta`` small: the enclosure, computed with the digits
    these cancellations cost, brackets the epsilon evaluated at 300 digits."""
    keywords, record = setting_of(n, 10**log_lengthscale, 10**log_ridge, 10**log_sigma, eta, delta)
    with mp.workdps(300):
        r2 = mp.mpf(record.ridge) ** 2
        V = 1 - mp.exp(-2 / mp.mpf(record.lengthscale)) * (n - 1) / (n - 1 + r2)
        tau = V / (r2 + mp.mpf(eta) ** 2 * (V + r2) / mp.mpf(record.sigma) ** 2)
        order = float(1 + beta_fraction * (1 - 1e-9) / tau)
    assume(order > 1)
    exact = exact_epsilon(order, mp.mpf(scale), record, digits=300)
    assume(mp.isfinite(exact))
    lower, upper = epsilon_enclosure_exp_1d(order, (scale, scale), **keywords)
    assert lower <= exact <= upper
    assert upper - lower <= 4 * np.spacing(upper)


def test_a_noise_outside_the_family_fails():
    mech = design(*SMALL[0])
    noise = mech.noise_covariance
    bump = noise.eigenvalues.copy()
    bump[0] *= 1.0 + 1e3 * FAMILY_RTOL  # more noise, but not a multiple of the design's
    certificate = mech.with_noise(FactoredCovariance(bump, noise.eigenvectors)).certificate()
    assert not certificate.passed and certificate.margin == -np.inf
    assert not certificate.evidence["in_family"]
    assert certificate.evidence["family_residual"] > FAMILY_RTOL
    dropped = FactoredCovariance(noise.eigenvalues[1:], noise.eigenvectors[:, 1:])
    assert not mech.with_noise(dropped).certificate().passed


def test_a_design_that_cannot_be_certified_raises():
    """A repeated grid point makes the posterior covariance singular: no proof is possible."""
    grid = np.array([0.0, 0.5, 0.5, 1.0])
    with pytest.raises(ValueError, match="no scale can be certified"):
        PosteriorSamplingMechanism(X10, grid, 5.0, 1e-5, lengthscale=1.0, ridge=3.0)
    given = PosteriorSamplingMechanism(
        X10, grid, 5.0, 1e-5, lengthscale=1.0, ridge=3.0, sigma=1.0
    ).certificate()
    assert not given.passed and given.tolerance == np.inf


ENCLOSURE = dict(n=10, lengthscale=1.0, ridge=3.0, sigma=1.0, delta=1e-5)


@pytest.mark.parametrize(
    "order, scales, options, error, message",
    [
        (1.0, (1.0, 1.0), {}, ValueError, "order"),
        ("2", (1.0, 1.0), {}, TypeError, "order"),
        (2.0, 1.0, {}, ValueError, "scales must be a pair"),
        (2.0, (1.0, 2.0, 3.0), {}, ValueError, "scales must be a pair"),
        (2.0, (-1.0, 1.0), {}, ValueError, "c_lo"),
        (2.0, (2.0, 1.0), {}, ValueError, "c_lo <= c_hi"),
        (2.0, (1.0, np.nan), {}, ValueError, "c_hi"),
        (2.0, (1.0, 1.0), {"sigma": np.inf}, ValueError, "sigma"),
        (2.0, (1.0, 1.0), {"delta": 1.0}, ValueError, "delta"),
        (2.0, (1.0, 1.0), {"paths": 0}, ValueError, "paths"),
        (2.0, (1.0, 1.0), {"eta": True}, TypeError, "eta"),
    ],
)
def test_epsilon_enclosure_rejects_bad_input(order, scales, options, error, message):
    with pytest.raises(error, match=message):
        epsilon_enclosure_exp_1d(order, scales, **{**ENCLOSURE, **options})
