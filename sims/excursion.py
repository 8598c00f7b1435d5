"""[MAC] §5: 1-D excursion-set utility with and without the posterior-sampling DP constraint.

Same as ``ssa-privacy run excursion [--out DIR] [--seed N] [--replications R] ...``.
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "excursion", *sys.argv[1:]]))
