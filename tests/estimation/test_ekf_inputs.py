"""Bad input to ``plausible`` and ``process_noise`` (``estimation.ekf``): a one-line
error naming the argument.

The silent wrong answer it closes: a state of 5 entries was read as a position and a
2-entry velocity, and judged. A diverged update (a non-finite state) is still reported as
implausible, which is what the filter asks.
"""

import numpy as np
import pytest
from corpus import Corpus

from ssa_privacy.estimation.ekf import plausible, process_noise

#: A circular LEO state (km, km/s).
LEO = np.array([7000.0, 0.0, 0.0, 0.0, 7.546, 0.0])

corpus = Corpus()
for label, state, exception in (
    ("5-entries", LEO[:5], ValueError),
    ("7-entries", np.append(LEO, 0.0), ValueError),
    ("2d", LEO[None], ValueError),
    ("None", None, TypeError),
    ("str", "LEO", TypeError),
    ("bool", [True] * 6, TypeError),
    ("complex", LEO + 0j, TypeError),
):
    corpus.case(f"plausible-state={label}", plausible, {"state": state}, exception, "state")
for label, kwargs, argument in (
    ("dt=1e300", {"dt": 1e300, "psd": 1e-12}, "dt"),  # dt^3 psd / 3 overflows
    ("dt=-1", {"dt": -1.0, "psd": 1e-12}, "dt"),
    ("psd=nan", {"dt": 30.0, "psd": np.nan}, "psd"),
):
    corpus.case(f"process_noise-{label}", process_noise, kwargs, ValueError, argument)


test_bad_input_raises_a_one_line_error_naming_the_argument = corpus.refusal_test()


@pytest.mark.parametrize(
    "state, expected",
    [
        (LEO, True),  # bound, perigee 622 km
        (LEO * [1, 1, 1, 1, 2, 1], False),  # escape: v > sqrt(2 mu / r)
        (np.array([6400.0, 0, 0, 0, 7.9, 0]), False),  # perigee below the floor
        (np.full(6, np.nan), False),  # a diverged update
    ],
)
def test_plausible_judges_the_conic_of_a_six_entry_state(state, expected):
    assert plausible(state) is expected


def test_process_noise_is_the_white_acceleration_covariance():
    """q [[dt^3/3, dt^2/2], [dt^2/2, dt]] per axis; none at all without a density, at any
    step."""
    q, dt = 2e-12, 60.0
    Q = process_noise(dt, q)
    np.testing.assert_allclose(Q[0, [0, 3]], q * np.array([dt**3 / 3, dt**2 / 2]))
    np.testing.assert_allclose(Q[3, 3], q * dt)
    assert np.all(np.linalg.eigvalsh(Q) >= -1e-25)
    assert not np.any(process_noise(1e300, 0.0))
