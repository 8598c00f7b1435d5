"""Shared test configuration: the hypothesis profiles, a screenless plotting backend, the
``catalogue`` fixture (the shared active-satellite catalogue, or a skip without it) and
the ``data`` marker, and the ``propagator_backend`` fixture (a test using it runs once on
heyoka and once on the scipy fallback, heyoka hidden as on a platform without its wheel).

A test that reads files of the shared data folder is marked
``@pytest.mark.data("file", ...)``: it is skipped, with the places tried, when a file is
not found (``$SSA_PRIVACY_DATA``, then ``../shared/data`` beside the checkout), so that
the README's test command passes on a machine without the data.

Three profiles, chosen by the environment variable ``HYPOTHESIS_PROFILE`` (default
``"default"``):

``default``
    The everyday run and the README's test command: a modest number of examples (50) for
    every property test that does not set its own, no deadline (numerical code has no
    stable timing). Derandomized and without an example database, so that every run of a
    clean clone draws the same examples and gives the same result.
``slow``
    The thorough run of the guarantees in CI: 1,000 examples for every property test that
    takes its number of examples from the profile (``HYPOTHESIS_PROFILE=slow pytest
    tests/test_property_guarantees.py``), no deadline; derandomized too.
``random``
    Random search for counterexamples, never part of the README's command or CI: fresh
    examples every run (``HYPOTHESIS_PROFILE=random pytest``), 200 per property test,
    with hypothesis's example database in ``.hypothesis/`` so that a failure found is
    replayed until it is fixed. Turn a failure it finds into an ``@example`` regression.

A property test takes its number of examples from the profile when it does not pass
``max_examples`` to ``@settings``. Tests that fix their own number keep it under both.
"""

import os
import sys

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

from ssa_privacy.engine.data import data_file
from ssa_privacy.orbits.tle import load_catalogue

# The studies draw their figures into files; the command line sets this backend itself.
matplotlib.use("Agg")

#: Examples per property test in the everyday run.
DEFAULT_EXAMPLES = 50
#: Examples per property test in the thorough run.
SLOW_EXAMPLES = 1000

#: Examples per property test in the random search.
RANDOM_EXAMPLES = 200

settings.register_profile(
    "default",
    max_examples=DEFAULT_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
)
settings.register_profile(
    "slow",
    max_examples=SLOW_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "random",
    max_examples=RANDOM_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(params=["heyoka", "scipy"])
def propagator_backend(request, monkeypatch):
    """Run the test on each backend of the J2 propagator: heyoka, then scipy's DOP853 with
    ``import heyoka`` failing (``sys.modules['heyoka'] = None``)."""
    monkeypatch.delenv("SSA_PRIVACY_PROPAGATOR", raising=False)
    if request.param == "scipy":
        monkeypatch.setitem(sys.modules, "heyoka", None)
    return request.param


@pytest.fixture(scope="module")
def catalogue():
    """The active-satellite catalogue of the data folder; skips the test without it."""
    try:
        return load_catalogue()
    except FileNotFoundError as error:
        pytest.skip(f"the shared catalogue is not available: {error}")


def pytest_runtest_setup(item):
    """Skip a test marked ``data`` when a file it names is not in the data folder."""
    for marker in item.iter_markers("data"):
        for name in marker.args:
            try:
                data_file(name)
            except FileNotFoundError as error:
                pytest.skip(f"the shared data are not available: {error}")
