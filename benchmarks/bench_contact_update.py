"""Timing of the contact update in information form against the dense update it replaced.

A contact of P radar passes of K measurements each has M = 4 K P rows; its noise is
block diagonal over the passes, each block ``kron(I_K, R) + Theta`` with a privacy noise
Theta of rank 6 (a log-det pass design). Two updates of a 6-state orbit prediction by it,
timed in the same run, each from the contact's
:class:`~ssa_privacy.estimation.contact_noise.ContactNoise` as the filter has it:

1. Baseline, the update the catalogue's filter used before: the dense (M, M) noise
   (``ContactNoise[f]``), rows divided by the sensor's standard deviations, and
   filterpy's ``ExtendedKalmanFilter.update`` (an M x M inverse of S).
2. :func:`~ssa_privacy.estimation.contact_update.information_update` on the noise's
   blocks (``ContactNoise.blocks``): block Cholesky whitening, a 6 x 6 information
   Cholesky, the NIS by Woodbury.

Printed: each update's best time, the ratio baseline / new, and the largest difference
of the updated states (in the prediction's standard deviations) and of the NIS (relative).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_contact_update.py [--passes 1 8]
[--measurements K] [--repeats R]`` (defaults: M = 160 and 1,280 rows, K = 40).
"""

import argparse
from types import SimpleNamespace

import numpy as np
from _timing import best_time
from filterpy.kalman import ExtendedKalmanFilter

from ssa_privacy.estimation.contact_noise import ContactNoise
from ssa_privacy.estimation.contact_update import information_update

#: A radar's noise standard deviations: azimuth, elevation (rad), range (km), range rate (km/s).
RADAR_SIGMA = np.array([1e-4, 1e-4, 5e-3, 1e-4])
#: The prediction's standard deviations: position (km), velocity (km/s).
STATE_SIGMA = np.array([0.1, 0.1, 0.1, 1e-4, 1e-4, 1e-4])


def contact(passes, measurements, rng):
    """A prediction, maps, residual, the contact's ContactNoise and the rows' scale."""
    rows = 4 * measurements
    R = np.diag(RADAR_SIGMA**2)
    scale = np.tile(RADAR_SIGMA, measurements * passes)
    terms = []
    for _ in range(passes):
        factor = rng.standard_normal((rows, 6)) * np.tile(RADAR_SIGMA, measurements)[:, None]
        terms.append((R, measurements, SimpleNamespace(Theta=3.0 * factor @ factor.T)))
    A = rng.standard_normal((6, 6))
    P = (A @ A.T / 6 + 0.1 * np.eye(6)) * np.outer(STATE_SIGMA, STATE_SIGMA)
    H = rng.standard_normal((len(scale), 6)) * scale[:, None] / STATE_SIGMA
    x = np.r_[7000.0, 0.0, 0.0, 0.0, 7.5, 0.0]
    return x, P, H, rng.standard_normal(len(scale)) * scale * 2.0, ContactNoise([terms]), scale


def dense_update(x, P, H, y, noise, scale):
    """The filter's update before information_update (filterpy, dense R, rows scaled)."""
    ekf = ExtendedKalmanFilter(6, 4)
    ekf.x, ekf.P = x.copy(), P.copy()
    Hs = H / scale[:, None]
    ekf.update(
        y / scale,
        HJacobian=lambda _: Hs,
        Hx=lambda state: Hs @ (state - x),
        R=noise[0] / np.outer(scale, scale),
    )
    return ekf.x, float(ekf.mahalanobis) ** 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--measurements", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    for passes in arguments.passes:
        x, P, H, y, noise, scale = contact(passes, arguments.measurements, np.random.default_rng(0))
        old = best_time(lambda: dense_update(x, P, H, y, noise, scale), arguments.repeats)
        new = best_time(lambda: information_update(x, P, H, y, noise.blocks(0)), arguments.repeats)
        expected_x, expected_nis = dense_update(x, P, H, y, noise, scale)
        update = information_update(x, P, H, y, noise.blocks(0))
        state = np.max(np.abs(update.x - expected_x) / np.sqrt(np.diag(P)))
        print(
            f"M = {len(y):5d} ({passes} passes): dense {1e3 * old:8.2f} ms, information "
            f"{1e3 * new:7.2f} ms, ratio {old / new:6.1f}; state difference {state:.1e} "
            f"sd, NIS {abs(update.nis / expected_nis - 1):.1e} relative"
        )


if __name__ == "__main__":
    main()
