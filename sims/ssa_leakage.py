"""The PML of real (nonlinear) radar pass releases against the linearised guarantee.

Same as ``ssa-privacy run ssa-leakage [--out DIR] [--seed N] [--objects-per-regime
leo=3,meo=2,geo=2] [--passes first,middle,last] [--epsilons 10,20] [--outcomes 150]
[--workers N] ...``; writes leakage.csv, validation.csv, results.csv/json and the
exceedance figure (PNG and PDF).
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "ssa-leakage", *sys.argv[1:]]))
