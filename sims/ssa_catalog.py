"""Catalogue-scale privatized SSA: real element sets, eight ground radars, pass-level PML.

Same as ``ssa-privacy run ssa-catalog [--out DIR] [--seed N] [--regime leo|meo|geo|all]
[--objects N] [--epsilons ...] [--workers N | --dask-local N | --scheduler ADDRESS] ...``;
writes results.csv/json, per_measurement.csv and four figures (PNG and PDF).
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "ssa-catalog", *sys.argv[1:]]))
