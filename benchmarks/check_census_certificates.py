"""Acceptance check: every certificate of the census study [TCB] passes, whatever the BLAS.

Reproduces the designs of ``ssa-privacy run census``: the study's data and split, its
maximum-likelihood fit of the owner's GP (``--restarts`` starts, seed ``--seed``, as the
study), and the certified Sigma_opt of every alpha, designed once as the study does (the
design depends on the fit only, not on the replication). For each design it prints the
certificate (relative margin, its rigorous error bound, passed, the proven enclosure),
the design's margin, resolution and nugget, the prior variance below which a direction
of f(S) is not protected, and the rank and trace of Sigma beside those of the earlier
design (a fixed relative margin of 1e-7, no resolution), whose own certificate is
printed too.

Run it with each BLAS thread count, e.g.::

    OPENBLAS_NUM_THREADS=1 python benchmarks/check_census_certificates.py
    OPENBLAS_NUM_THREADS=2 python benchmarks/check_census_certificates.py

It exits with status 1 if any certificate of a certified design fails (or needed more
than the first attempt of the design rule). The fit takes
about 40-50 s on one core.
"""

import argparse
import os
import sys

import numpy as np

from ssa_privacy.engine.data import load_census
from ssa_privacy.privacy import optimal_noise_factor, privacy_certificate
from ssa_privacy.studies import census


def earlier_design(design, alpha):
    """Sigma_opt for (1 - 1e-7) alpha K_SS (the fixed margin of earlier versions)."""
    k = design.gp.kernel
    return optimal_noise_factor(
        k(design.X), k(design.X, design.S0), (1 - 1e-7) * alpha * k(design.S0), design.gp.noise
    )


def main(argv=None):
    """Print the census certificates; return 0 when every certified design passes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="folder of the PUMS sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--restarts", type=int, default=3)
    args = parser.parse_args(argv)
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    design = census.Design(
        load_census(args.data, split="authors", seed=args.seed), args.restarts, args.seed
    )
    gp = design.gp
    print(
        f"OPENBLAS_NUM_THREADS={threads}; fit: variance {gp.kernel.variance:.6g}, noise "
        f"{gp.noise:.6g}, length scales {np.round(gp.kernel.lengthscale, 5).tolist()}; "
        f"{len(design.S0)} sensitive records"
    )
    k = gp.kernel
    K_XX, K_XS, K_SS = k(design.X), k(design.X, design.S0), k(design.S0)
    values = np.linalg.eigvalsh(K_SS)
    print(f"cond(K_SS) = {values[-1] / values[0]:.3g}")
    header = (
        "alpha |     margin  tolerance passed |      lower      upper | design m "
        "resolution   nugget unprotected | rank    trace | old rank old trace old margin+-tol"
    )
    print(header)
    failures = 0
    for alpha in census.ALPHAS:
        old = earlier_design(design, alpha)
        old_certificate = privacy_certificate(K_XX, K_XS, alpha * K_SS, old, gp.noise, alpha=alpha)
        mechanism = design.mechanism(alpha)
        c = mechanism.certificate()
        failures += not c.passed or c.evidence["design_attempts"] != 1
        noise = mechanism.noise_covariance
        print(
            f"{alpha:5.1f} | {c.margin:10.4g} {c.tolerance:10.3g} {c.passed!s:>6} | "
            f"{c.evidence['lower']:10.4g} {c.evidence['upper']:10.4g} | "
            f"{mechanism.margin:8.1g} {mechanism.resolution:10.3g} {mechanism.nugget:8.2g} "
            f"{c.evidence['unprotected_prior_variance']:11.3g} | {noise.rank:4d} {noise.trace:8.4f} | "
            f"{old.rank:8d} {old.trace:9.4f} {old_certificate.margin:10.3g}+-"
            f"{old_certificate.tolerance:.3g}"
        )
    print("all certificates passed" if failures == 0 else f"{failures} certificates FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
