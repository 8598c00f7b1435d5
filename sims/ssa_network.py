"""SSA sensor network: PML-privatized ground radars tracking a real LEO orbit, and CW bounds.

Same as ``ssa-privacy run ssa-network [--out DIR] [--seed N] [--runs R] [--epsilons ...] ...``;
writes results.csv/json, cw_bounds.csv, privacy_checks.csv, passes.csv and four figures
(PNG and PDF).
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "ssa-network", *sys.argv[1:]]))
