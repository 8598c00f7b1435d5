"""Run the `example1` study: `python sims/example1.py [--out DIR]` (deterministic; see --help)."""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "example1", *sys.argv[1:]]))
