"""[MAC] §4: LiRA membership inference on GP posterior sampling against the RDP bound.

Same as ``ssa-privacy run mia [--out DIR] [--seed N] [--replications R] ...``.
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "mia", *sys.argv[1:]]))
