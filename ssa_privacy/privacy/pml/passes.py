"""Privacy noise designed for a whole pass of a station over a catalogue object.

A station that sees an object for a pass releases K measurements, each four rows
(azimuth, elevation, range, range rate), whose linearised maps of the private
manoeuvre deviation x0 are ``C_k = H_k Phi(t_k, t0)``
(:class:`~ssa_privacy.sensors.streams.Pass`). A pass-level budget (epsilon, delta)
bounds the PML of the whole pass about x0, not of each measurement. Two designers
(:data:`DESIGNERS`) meet it exactly:

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
public element set (the nominal orbit). Theory: :doc:`/theory/pml-stream`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ssa_privacy.privacy.mechanism import Certificate
from ssa_privacy.privacy.pml.design import linear_mechanism_noise
from ssa_privacy.privacy.pml.stream import ReleaseStream, StreamLeakage
from ssa_privacy.privacy.pml.stream_design import design_stream_noise, stream_logdet_design

__all__ = [
    "DESIGNERS",
    "PassNoise",
    "pass_noise",
]

#: The pass-level designers of :func:`pass_noise`.
DESIGNERS = ("logdet", "scaled")


@dataclass(frozen=True, eq=False)
class PassNoise:
    """The privacy noise of one pass and what its releases leak.

    Parameters
    ----------
    factor : ndarray, shape (4 K, r)
        F with noise covariance ``F F^T`` of the pass's stacked releases (measurement
        units squared: rad^2, km^2, km^2/s^2), measurement after measurement.
    stream : ReleaseStream
        The adversary's stream of the pass about x0 (privacy noise alone), to merge with
        other passes into a day.
    leakage : StreamLeakage
        Its PML at the design's delta; ``leakage.epsilon`` is at most the budget.
    designer : str
        One of :data:`DESIGNERS`.
    certificate : Certificate
        The rigorous (epsilon, delta)-PML certificate of ``stream`` for the pass budget
        (:func:`~ssa_privacy.privacy.pml.stream.stream_certificate`); it passes.
    """

    factor: np.ndarray
    stream: ReleaseStream
    leakage: StreamLeakage
    designer: str
    certificate: Certificate

    @property
    def covariance(self):
        """The noise covariance ``F F^T``, shape (4 K, 4 K)."""
        return self.factor @ self.factor.T

    def sample(self, normals):
        """A draw of the noise from standard normals.

        Parameters
        ----------
        normals : ndarray, shape (4 K,)
            Independent standard normal numbers; the first r are used, so that one
            array serves every designer (common random numbers).

        Returns
        -------
        ndarray, shape (4 K,)
            ``F normals[:r]``.
        """
        return self.factor @ normals[: self.factor.shape[1]]


def pass_noise(item, Sigma_XX, epsilon, delta, designer="logdet", convention="exact"):
    """Noise for one pass that meets an (epsilon, delta)-PML budget for the whole pass.

    Parameters
    ----------
    item : Pass
        The pass: its maps ``C`` (K, 4, 6) and sensor noise covariance ``R`` (4, 4).
    Sigma_XX : array_like, shape (6, 6)
        Prior covariance of x0 (km^2, km^2/s, km^2/s^2), positive definite.
    epsilon : float
        The pass budget, nats, above condition (9) of [LKC] for the pass (8.41 nats when
        the pass sees all of x0, at delta = 0.01).
    delta : float
        Failure probability in (0, 1).
    designer : {"logdet", "scaled"}
        Which design (module docstring).
    convention : {"exact", "paper"}
        Which leakage formula.

    Returns
    -------
    PassNoise
        The noise, the pass's stream, its leakage and its passing certificate.

    Raises
    ------
    ValueError
        On an unknown designer, or as the designers (a budget below condition (9), a
        prior that is not positive definite).
    RuntimeError
        If tightening the budget by up to ``SLACK_LIMIT`` nats
        (:mod:`~ssa_privacy.privacy.pml.stream_design`) does not certify the design.
    """
    if designer not in DESIGNERS:
        raise ValueError(f"designer must be one of {', '.join(DESIGNERS)}, got {designer!r}")
    C = np.asarray(item.C, dtype=float)
    if designer == "logdet":
        scale = np.tile(np.sqrt(np.diag(item.R)), len(C))
        rows = C.reshape(-1, 6) / scale[:, None]
        design = stream_logdet_design(Sigma_XX, rows, epsilon, delta, convention)
        noise = design.noise
        factor = scale[:, None] * (noise.eigenvectors * np.sqrt(noise.eigenvalues))
    else:
        Theta = linear_mechanism_noise(C, Sigma_XX, epsilon, delta, convention)
        design = design_stream_noise(Sigma_XX, C, Theta, epsilon, delta, convention=convention)
        factor = linalg.block_diag(*np.linalg.cholesky(design.noise))
    return PassNoise(factor, design.stream, design.leakage, designer, design.certificate)
