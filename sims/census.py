"""Run the `census` study: `python sims/census.py [--out DIR] [--seed N] ...` (see --help)."""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "census", *sys.argv[1:]]))
