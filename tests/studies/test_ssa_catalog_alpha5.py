"""The ssa-catalog study with an object numbered above 99999: the Alpha-5 catalogue number
of its TLE (``C3456``, the letter C counting 12) is carried as the number 123456 into
results.csv and results.json.

A two-object file (the ISS element set shipped with ``sgp4``, and the same orbit half a
revolution ahead numbered C3456), a one-hour window sampled every minute and one budget
keep the run small (about 6 s).
"""

import csv
import json

from sgp4.io import fix_checksum

from ssa_privacy.cli import main
from ssa_privacy.orbits.tle import iss_element_set


def test_an_alpha5_object_runs_through_the_study(tmp_path):
    iss = iss_element_set()
    ahead = iss.line2[:43] + f"{(float(iss.line2[43:51]) + 180.0) % 360.0:8.4f}" + iss.line2[51:]
    lines = [fix_checksum(line[:2] + "C3456" + line[7:]) for line in (iss.line1, ahead)]
    tle = tmp_path / "objects.tle"
    tle.write_text("\n".join(["ISS (ZARYA)", iss.line1, iss.line2, "BIG", *lines]) + "\n")
    out = tmp_path / "run"
    arguments = ["run", "ssa-catalog", "--tle", str(tle), "--objects", "all", "--hours", "1"]
    arguments += ["--dt", "60"]
    arguments += ["--epsilons", "10", "--out", str(out), "--workers", "1", "--no-progress"]
    assert main(arguments) == 0
    with open(out / "results.csv") as stream:
        numbers = {row["norad_id"] for row in csv.DictReader(stream)}
    assert numbers == {"25544", "123456"}
    parameters = json.loads((out / "results.json").read_text())["parameters"]
    assert sorted(parameters["norad_ids"]) == [25544, 123456]
