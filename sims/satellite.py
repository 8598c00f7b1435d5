"""Run the `satellite` study: `python sims/satellite.py [--out DIR] [--seed N] ...` (see --help)."""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "satellite", *sys.argv[1:]]))
