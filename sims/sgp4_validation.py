"""Validation of the 3D J2 propagator against SGP4 on real element sets, and J2 secular rates.

Same as ``ssa-privacy run sgp4-validation [--out DIR] [--satellites all] [--hours 24] ...``;
writes results.csv/json, secular_rates.csv and two figures (PNG and PDF).
"""

import sys

from ssa_privacy.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", "sgp4-validation", *sys.argv[1:]]))
