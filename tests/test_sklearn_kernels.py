"""Any kernel callable drives the GP and the synthetic-noise design, scikit-learn's included.

scikit-learn is a test dependency only: the library never imports it.
"""

import subprocess
import sys

import numpy as np
import pytest

from ssa_privacy import gp
from ssa_privacy.gp.fit import fit_mean_and_variance
from ssa_privacy.gp.kernels import RBF, ScaledKernel, kernel_diagonal, kernel_matrix
from ssa_privacy.gp.regression import GaussianProcess
from ssa_privacy.privacy import SyntheticNoiseMechanism, region_noise_factor

sklearn_gp = pytest.importorskip("sklearn.gaussian_process")
kernels = pytest.importorskip("sklearn.gaussian_process.kernels")


def data(seed=0, n=20, d=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, d))
    return X, np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(n)


@pytest.mark.parametrize(
    "kernel, d",
    [
        (kernels.RBF(length_scale=0.2), 1),
        (kernels.ConstantKernel(2.0) * kernels.RBF(length_scale=0.3), 1),
        (kernels.ConstantKernel(0.7) * kernels.RBF(length_scale=[0.3, 0.6]), 2),
        (kernels.RBF(0.25) + kernels.WhiteKernel(0.05), 1),
    ],
)
def test_fit_predict_equal_scikit_learns_regressor(kernel, d):
    """Posterior mean and covariance equal GaussianProcessRegressor(optimizer=None, alpha=...)
    on the same data (zero prior mean, observation-noise variance alpha)."""
    X, y = data(d=d)
    X_star = np.random.default_rng(1).uniform(0, 1, (9, d))
    noise = 1e-2
    ours = GaussianProcess(kernel, mean=0.0, noise=noise).fit(X, y)
    theirs = sklearn_gp.GaussianProcessRegressor(kernel, alpha=noise, optimizer=None).fit(X, y)
    mean, cov = ours.predict(X_star, return_cov=True)
    reference_mean, reference_cov = theirs.predict(X_star, return_cov=True)
    np.testing.assert_allclose(mean, reference_mean, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(cov, reference_cov, atol=1e-10)
    _, reference_std = theirs.predict(X_star, return_std=True)
    np.testing.assert_allclose(np.sqrt(ours.predict(X_star)[1]), reference_std, atol=1e-7)
    np.testing.assert_allclose(ours.alpha_, theirs.alpha_, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(ours.L_, theirs.L_, atol=1e-12)


def test_one_dimensional_inputs_are_read_as_columns():
    X, y = data()
    kernel = kernels.ConstantKernel(1.5) * kernels.RBF(0.2)
    flat = GaussianProcess(kernel, noise=1e-3).fit(X[:, 0], y).predict(np.linspace(0, 1, 5))
    column = GaussianProcess(kernel, noise=1e-3).fit(X, y).predict(np.linspace(0, 1, 5)[:, None])
    np.testing.assert_array_equal(flat[0], column[0])
    np.testing.assert_array_equal(flat[1], column[1])
    assert kernel_matrix(kernel, X[:, 0]).shape == (20, 20)
    np.testing.assert_allclose(kernel_diagonal(kernel, X[:, 0]), 1.5)


def test_package_rbf_and_scikit_learn_rbf_give_the_same_posterior():
    X, y = data()
    ours = GaussianProcess(RBF(0.2, 1.5), noise=1e-2).fit(X, y)
    theirs = GaussianProcess(kernels.ConstantKernel(1.5) * kernels.RBF(0.2), noise=1e-2).fit(X, y)
    for a, b in zip(ours.predict(X, return_cov=True), theirs.predict(X, return_cov=True)):
        np.testing.assert_allclose(a, b, atol=1e-10)


def test_a_plain_two_argument_function_is_a_kernel():
    def laplace(A, B):
        return np.exp(-np.abs(A[:, None, 0] - B[None, :, 0]) / 0.3)

    X, y = data()
    gp = GaussianProcess(laplace, noise=1e-2).fit(X[:, 0], y)
    mean, variance = gp.predict([0.5])
    K = laplace(X, X) + 1e-2 * np.eye(len(X))
    k = laplace(np.array([[0.5]]), X)[0]
    assert mean[0] == pytest.approx(k @ np.linalg.solve(K, y), rel=1e-10)
    assert variance[0] == pytest.approx(1.0 - k @ np.linalg.solve(K, k), rel=1e-10)


def test_fit_mean_and_variance_with_a_scikit_learn_kernel():
    """The variance fitted for a scikit-learn kernel is that of the package's RBF with the
    same correlation; the returned kernel is the input scaled."""
    X = np.linspace(0, 1, 15)
    y = 1.0 + np.sin(3 * X)
    ours = fit_mean_and_variance(X, y, RBF(0.3))
    theirs = fit_mean_and_variance(X, y, kernels.ConstantKernel(4.0) * kernels.RBF(0.3))
    assert isinstance(theirs.kernel, ScaledKernel)
    assert theirs.mean == pytest.approx(ours.mean, rel=1e-10)
    assert 4.0 * theirs.kernel.scale == pytest.approx(ours.kernel.variance, rel=1e-10)
    X_star = np.linspace(-0.2, 1.2, 7)
    for a, b in zip(ours.predict(X_star), theirs.predict(X_star)):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_synthetic_noise_design_with_a_scikit_learn_kernel():
    """for_region with sklearn's RBF gives the Sigma of the package's RBF (same length
    scale), and the release passes its certificate."""
    X = np.linspace(0, 1, 25)
    S0 = X[(X >= 0.3) & (X <= 0.5)]
    ours = SyntheticNoiseMechanism.for_region(RBF(0.1), X, S0, 0.3, V=1e-3)
    theirs = SyntheticNoiseMechanism.for_region(kernels.RBF(0.1), X, S0, 0.3, V=1e-3)
    scale = np.abs(ours.noise_covariance.matrix()).max()
    np.testing.assert_allclose(
        theirs.noise_covariance.matrix(), ours.noise_covariance.matrix(), atol=1e-9 * scale
    )
    assert theirs.noise_covariance.rank == ours.noise_covariance.rank
    out = theirs.release(np.sin(X), seed=0)
    assert out.certificate.passed and out.values.shape == (25,)
    assert not theirs.with_noise(theirs.noise_covariance.scaled(0.5)).certificate().passed
    factor = region_noise_factor(kernels.RBF(0.1), X, S0, 0.3, V=1e-3)
    np.testing.assert_allclose(factor.matrix(), ours.noise_covariance.matrix(), atol=1e-9 * scale)
    assert out.certificate.margin > 0


def test_fitted_attributes_follow_the_trailing_underscore_convention():
    X, y = data()
    gp = GaussianProcess(RBF(0.2), noise=1e-2)
    assert gp.jitter is None
    with pytest.raises(AttributeError, match="not fitted"):
        gp.predict([0.5])
    gp.fit(X, y)
    assert gp.X_train_.shape == (20, 1) and gp.y_train_.shape == (20,)
    assert gp.L_.shape == (20, 20) and gp.alpha_.shape == (20,) and gp.jitter_ == 0.0
    assert gp.X is gp.X_train_ and gp.y is gp.y_train_ and gp.jitter == gp.jitter_
    assert gp._L is gp.L_ and gp._alpha is gp.alpha_
    with pytest.raises(AttributeError):
        gp.X = X
    with pytest.raises(TypeError, match="kernel must be callable"):
        GaussianProcess(0.5)


def test_kernels_stay_importable_from_the_gp_module():
    assert gp.RBF is RBF and gp.ScaledKernel is ScaledKernel
    assert gp.kernel_matrix is kernel_matrix and gp.kernel_diagonal is kernel_diagonal


def test_the_library_never_imports_scikit_learn():
    code = (
        "import sys\n"
        "import ssa_privacy.gp.regression, ssa_privacy.gp.kernels, ssa_privacy.privacy, ssa_privacy.gp.baselines\n"
        "import ssa_privacy.attacks, ssa_privacy.privacy.synthetic_noise.design\n"
        "import ssa_privacy.privacy.posterior_sampling.bound\n"
        "assert not any(name.startswith('sklearn') for name in sys.modules), 'sklearn imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
