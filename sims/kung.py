"""[SMI] !Kung women: standard and cloaking DP-GP, binning and DP hyperparameter selection.

Same as ``ssa-privacy run kung [--out DIR] [--seed N] [--replications R] ...``.
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "kung", *sys.argv[1:]]))
