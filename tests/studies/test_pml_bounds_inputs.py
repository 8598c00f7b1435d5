"""pml-bounds: every epsilon it accepts is designed and evaluated; any other is refused first.

Inside ``(F^-1_chi2_2(1 - delta) / 2, F^-1_chi2_2(1 - delta) / 2 + EPSILON_EXCESS_LIMIT]``
every design is certified (margin - tolerance >= 0, inflation within INFLATION_LIMIT)
and its row evaluates, with ``P[l <= epsilon] >= 1 - delta`` (Theorem 3.3); above it the
study refuses in one line naming ``epsilons`` before any task and writes nothing.
"""

import numpy as np
import pytest

from ssa_privacy.cli import main
from ssa_privacy.plants import LTIPlant
from ssa_privacy.privacy.accounting import minimum_epsilon
from ssa_privacy.privacy.pml.cone_design import INFLATION_LIMIT
from ssa_privacy.privacy.pml.plant import design_noise
from ssa_privacy.studies import pml_bounds
from ssa_privacy.studies.pml_bounds import DESIGNS, EPSILON_EXCESS_LIMIT, METHODS

PLANT = LTIPlant(pml_bounds.A_PLANT, pml_bounds.C_PLANT, pml_bounds.Q_PLANT)
OPTIONS = dict(runs=2, steps=30, burn_in=5, mc_samples=2000)
DELTAS = (1e-12, 0.01, 0.1, 0.5, 0.9, 0.999, 1 - 1e-9)
EXCESSES = (0.5, 6.0, 10.0, EPSILON_EXCESS_LIMIT)


def _epsilon(delta, excess):
    return float(minimum_epsilon(delta, 2)) + excess


@pytest.mark.parametrize("name", list(DESIGNS))
@pytest.mark.parametrize("excess", EXCESSES)
@pytest.mark.parametrize("delta", DELTAS)
def test_designs_certified_and_rows_evaluate_inside_the_limit(delta, excess, name):
    epsilon = _epsilon(delta, excess)
    method, convention = DESIGNS[name]
    mechanism = design_noise(PLANT, epsilon, delta, method=METHODS[method], convention=convention)
    certificate = mechanism.certificate()
    assert certificate.margin - certificate.tolerance >= 0.0
    assert 1.0 <= mechanism.inflation <= 1.0 + INFLATION_LIMIT
    _, row = pml_bounds._case(PLANT, name, epsilon, delta, OPTIONS, (0, 1))
    assert row["P_leak_le_eps_analytic"] >= 1.0 - delta - 1e-9
    assert np.isfinite([row["bound_28"], row["logdet_P_dare"], row["P_leak_le_eps_mc"]]).all()


@pytest.mark.parametrize(
    ("options", "shown"),
    [
        (["--epsilons", "1e300"], "1e+300"),
        (["--epsilons", "5,16.7"], "16.7"),
        (["--delta", "0.9", "--epsilons", "12.2"], "12.2"),
        (["--delta", "1e-12", "--epsilons", "30,39.7"], "39.7"),
    ],
)
def test_epsilon_above_the_limit_refused_before_any_task(tmp_path, capsys, options, shown):
    out = tmp_path / "never"
    assert main(["run", "pml-bounds", *options, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "unexpected" not in err
    assert "epsilons" in err and shown in err
    assert not out.exists()


def test_python_api_refuses_above_the_limit(tmp_path):
    out = tmp_path / "never"
    with pytest.raises(ValueError, match=r"^epsilons: 20 nats is above 16\.6052 nats"):
        pml_bounds.run(out, 0, False, epsilons=(5.0, 20.0))
    assert not out.exists()
