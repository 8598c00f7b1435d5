"""Closed-loop check of [LKC] §4: Kalman error covariance against the PML bounds (28)-(29).

Same as ``ssa-privacy run pml-bounds [--out DIR] [--seed N] [--runs R] [--steps T] ...``;
writes design.json, results.csv/json and the two figures (PNG and PDF).
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "pml-bounds", *sys.argv[1:]]))
