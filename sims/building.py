"""Reproduce [LKC] §5.2: PML-private aggregation of three building zones.

Same as ``ssa-privacy run building [--out DIR] [--seed N] [--steps T] [--mc-samples M]``;
writes design.json, results.csv/json and Figures 2-3 (PNG and PDF).
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "building", *sys.argv[1:]]))
