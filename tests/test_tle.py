"""TLE validation: every corruption is rejected naming the line and field; real sets parse.

The reference lines are the ISS element set shipped with ``sgp4`` (``sgp4/tests.py``). A
corruption that keeps the checksum valid is built with ``sgp4.io.fix_checksum`` so that
the field check itself, not the checksum, must catch it.
"""

import numpy as np
import pytest
from sgp4.api import Satrec
from sgp4.io import compute_checksum, fix_checksum

from ssa_privacy.orbits.tle import (
    ElementSet,
    TLEError,
    _package_text,
    describe_sgp4_error,
    iss_element_set,
    load_catalogue,
    read_catalogue,
    validate_tle,
    verification_element_sets,
)
from ssa_privacy.orbits.tle_format import SGP4_ERROR_FIELDS, TLE_LINE_LENGTH

ISS = iss_element_set()
L1, L2 = ISS.line1, ISS.line2
DAY = 86400.0


def put(line, column, text, fix=True):
    """``line`` with ``text`` written from 1-based ``column``; checksum refreshed if ``fix``."""
    changed = line[: column - 1] + text + line[column - 1 + len(text) :]
    return fix_checksum(changed) if fix else changed


def wrong_checksum(line):
    return line[:68] + str((int(line[68]) + 1) % 10)


def changed_digit(line, column):
    """One digit changed, checksum left alone (the review's inclination case)."""
    return put(line, column, str((int(line[column - 1]) + 1) % 10), fix=False)


# (description, line1, line2, TLE line at fault, field, columns)
CORRUPTIONS = [
    ("wrong checksum, line 1", wrong_checksum(L1), L2, 1, "checksum", (69, 69)),
    ("wrong checksum, line 2", L1, wrong_checksum(L2), 2, "checksum", (69, 69)),
    ("inclination digit, checksum left", L1, changed_digit(L2, 11), 2, "checksum", (69, 69)),
    ("mean motion digit, checksum left", L1, changed_digit(L2, 60), 2, "checksum", (69, 69)),
    ("epoch digit, checksum left", changed_digit(L1, 25), L2, 1, "checksum", (69, 69)),
    ("catalogue numbers differ", L1, put(L2, 3, "25545"), 2, "catalogue number", (3, 7)),
    ("catalogue numbers differ, old checksum", L1, put(L2, 3, "25545", False), 2,
     "catalogue number", (3, 7)),
    ("lines of two objects", L1, put(L2, 3, "06251"), 2, "catalogue number", (3, 7)),
    ("line 1 cut to 68", L1[:68], L2, 1, "checksum", (69, 69)),
    ("line 2 cut to 68", L1, L2[:68], 2, "checksum", (69, 69)),
    ("line 1 cut to 60", L1[:60], L2, 1, "drag term B*", (54, 61)),
    ("line 2 cut to 60", L1, L2[:60], 2, "mean motion", (53, 63)),
    ("line 1 cut to 40", L1[:40], L2, 1, "first derivative of mean motion", (34, 43)),
    ("line 2 cut to 20", L1, L2[:20], 2, "right ascension of the ascending node", (18, 25)),
    ("line 1 empty", "", L2, 1, "line number", (1, 1)),
    ("line 2 empty", L1, "", 2, "line number", (1, 1)),
    ("lines swapped", L2, L1, 1, "line number", (1, 1)),
    ("line 1 shifted right", " " + L1[:68], L2, 1, "line number", (1, 1)),
    ("line 2 number 3", L1, put(L2, 1, "3"), 2, "line number", (1, 1)),
    ("text after line 1", L1 + " 0.0 1440.0", L2, 1, "text after the checksum", (70, 80)),
    ("text after line 2", L1, L2 + "X", 2, "text after the checksum", (70, 70)),
    ("tab in line 1", put(L1, 33, "\t", False), L2, 1, "blank separator", (33, 33)),
    ("non-ASCII in line 2", L1, put(L2, 12, "\u00b0", False), 2, "inclination", (9, 16)),
    ("catalogue number letter I", put(L1, 3, "I5544"), L2, 1, "catalogue number", (3, 7)),
    ("classification", put(L1, 8, "X"), L2, 1, "classification", (8, 8)),
    ("designator", put(L1, 12, "O"), L2, 1, "international designator", (10, 17)),
    ("epoch decimal point", put(L1, 24, "5"), L2, 1, "epoch", (19, 32)),
    ("epoch letter", put(L1, 30, "O"), L2, 1, "epoch", (19, 32)),
    ("epoch day 0", put(L1, 21, "000"), L2, 1, "epoch", (19, 32)),
    ("epoch day 367", put(L1, 21, "367"), L2, 1, "epoch", (19, 32)),
    ("ndot without point", put(L1, 35, "0"), L2, 1, "first derivative of mean motion",
     (34, 43)),
    ("nddot exponent", put(L1, 51, "x"), L2, 1, "second derivative of mean motion", (45, 52)),
    ("B* with a decimal point", put(L1, 54, " 1.027-3"), L2, 1, "drag term B*", (54, 61)),
    ("B* exponent sign", put(L1, 60, "*"), L2, 1, "drag term B*", (54, 61)),
    ("ephemeris type", put(L1, 63, "A"), L2, 1, "ephemeris type", (63, 63)),
    ("element set number", put(L1, 66, "9x2"), L2, 1, "element set number", (65, 68)),
    ("checksum not a digit", put(L1, 69, "x", False), L2, 1, "checksum", (69, 69)),
    ("blank separator line 1", put(L1, 18, "0"), L2, 1, "blank separator", (18, 18)),
    ("blank separator line 2", L1, put(L2, 26, "0"), 2, "blank separator", (26, 26)),
    ("inclination letter", L1, put(L2, 10, "x"), 2, "inclination", (9, 16)),
    ("inclination 181", L1, put(L2, 9, "181.6392"), 2, "inclination", (9, 16)),
    ("raan 361", L1, put(L2, 18, "361.0000"), 2, "right ascension of the ascending node",
     (18, 25)),
    ("raan point moved", L1, put(L2, 18, " 966.358"), 2,
     "right ascension of the ascending node", (18, 25)),
    ("eccentricity with a point", L1, put(L2, 27, ".000515"), 2, "eccentricity", (27, 33)),
    ("eccentricity blank digit", L1, put(L2, 27, "00 5156"), 2, "eccentricity", (27, 33)),
    ("argument of perigee 400", L1, put(L2, 35, "400.0000"), 2, "argument of perigee",
     (35, 42)),
    ("mean anomaly negative", L1, put(L2, 44, "-71.4601"), 2, "mean anomaly", (44, 51)),
    ("mean motion zero", L1, put(L2, 53, " 0.00000000"), 2, "mean motion", (53, 63)),
    ("mean motion letter", L1, put(L2, 55, "x"), 2, "mean motion", (53, 63)),
    ("revolution number", L1, put(L2, 64, "6O61"), 2, "revolution number at epoch", (64, 68)),
]  # fmt: skip


def assert_names(error, line, field, columns, name):
    message = str(error)
    first, last = columns
    where = f"column {first}" if first == last else f"columns {first}-{last}"
    assert "\n" not in message
    assert f"TLE line {line}" in message and f"{field} ({where})" in message
    assert name in message
    assert (error.line, error.field, error.columns) == (line, field, columns)


@pytest.mark.parametrize(
    "line1, line2, line, field, columns",
    [c[1:] for c in CORRUPTIONS],
    ids=[c[0] for c in CORRUPTIONS],
)
def test_a_corrupted_element_set_is_rejected_naming_line_and_field(
    line1, line2, line, field, columns
):
    with pytest.raises(TLEError) as error:
        ElementSet("ISS (ZARYA)", line1, line2)
    assert isinstance(error.value, ValueError)
    assert_names(error.value, line, field, columns, "ISS (ZARYA)")
    if line1[:7] == "1 25544":  # the catalogue number is named whenever it is readable
        assert "25544" in str(error.value)


def test_validate_tle_names_the_catalogue_number_when_no_name_is_given():
    with pytest.raises(TLEError, match=r"catalogue number 25544\), TLE line 2, checksum"):
        validate_tle(L1, wrong_checksum(L2))


def test_the_corruptions_are_valid_for_sgp4_s_own_parser_or_caught_by_checksum():
    """The review's cases: SGP4's C++ parser alone accepts them (why the checks exist)."""
    for line1, line2 in [(L1, wrong_checksum(L2)), (L1, put(L2, 3, "25545")), (L1[:68], L2)]:
        assert Satrec.twoline2rv(line1, line2).error == 0


def test_the_checksum_catches_an_inclination_digit_that_moves_the_iss_by_hundreds_of_km():
    line2 = changed_digit(L2, 10)  # 51.6392 -> 61.6392 deg, checksum left alone
    moved = Satrec.twoline2rv(L1, line2)
    assert moved.error == 0  # SGP4's own parser takes it
    days = np.linspace(0.0, 1.0, 97)
    jd = np.full_like(days, ISS.satrec.jdsatepoch)
    _, r_true, _ = ISS.satrec.sgp4_array(jd, ISS.satrec.jdsatepochF + days)
    _, r_moved, _ = moved.sgp4_array(jd, moved.jdsatepochF + days)
    assert np.max(np.linalg.norm(r_moved - r_true, axis=1)) > 500.0
    assert int(line2[68]) != compute_checksum(line2)
    with pytest.raises(TLEError, match="TLE line 2, checksum"):
        ElementSet("ISS", L1, line2)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((5, L1, L2), "name must be a str"),
        (("ISS", None, L2), "line1 must be a str"),
        (("ISS", L1, b"2 25544"), "line2 must be a str"),
    ],
)
def test_arguments_of_the_wrong_type_are_named(arguments, message):
    with pytest.raises(TypeError, match=message):
        ElementSet(*arguments)


def test_trailing_blanks_and_line_ends_are_allowed():
    element_set = ElementSet("ISS", L1 + "   \r\n", L2 + "\n")
    assert (element_set.line1, element_set.line2) == (L1, L2)
    assert len(element_set.line1) == len(element_set.line2) == TLE_LINE_LENGTH


def _verification_pairs():
    lines = [
        line for line in _package_text("SGP4-VER.TLE").splitlines() if line[:2] in ("1 ", "2 ")
    ]
    return [(one[:69], two[:69]) for one, two in zip(lines[::2], lines[1::2])]


def test_every_sgp4_verification_set_with_valid_checksums_and_epoch_parses():
    """Independent criterion: sgp4's checksum and SGP4 initialisation decide, not our list."""
    sets = verification_element_sets()
    for line1, line2 in _verification_pairs():
        key = line1[2:7]
        good = all(int(x[68]) == compute_checksum(x) for x in (line1, line2))
        if good and Satrec.twoline2rv(line1, line2).error == 0:
            assert sets[key].line1 == line1 and sets[key].line2 == line2
        else:
            assert key not in sets
            with pytest.raises(TLEError, match=r"checksum \(column 69\)|SGP4 error"):
                ElementSet(key, line1, line2)
    assert ISS.catalogue_number == "25544" and np.all(np.isfinite(ISS.state_at_epoch()))


@pytest.mark.parametrize(
    "code, field",
    [(1, "eccentricity"), (2, "mean motion"), (3, "eccentricity"), (4, "eccentricity"),
     (5, "mean motion"), (6, "mean motion")],
)  # fmt: skip
def test_sgp4_error_codes_are_translated_into_fields(code, field):
    text = describe_sgp4_error(code)
    name, line, first, last = SGP4_ERROR_FIELDS[code][0]
    assert name == field and f"{field} (line {line}, columns {first}-{last})" in text
    assert f"SGP4 error {code}" in text and "\n" not in text


@pytest.mark.parametrize("code", [0, 7, -1, True, 1.0, "1", None])
def test_an_unknown_sgp4_error_code_is_rejected(code):
    with pytest.raises(ValueError, match="code must be an SGP4 error code"):
        describe_sgp4_error(code)


def _fixed(catalogue_number):
    line1, line2 = next(p for p in _verification_pairs() if p[0][2:7] == catalogue_number)
    return fix_checksum(line1), fix_checksum(line2)


def test_an_error_at_the_epoch_names_the_eccentricity():
    """SGP4-VER's 33334 (mean motion 1e-5 rev/day): error 3, perturbed eccentricity."""
    with pytest.raises(TLEError) as error:
        ElementSet("33334", *_fixed("33334"))
    assert_names(error.value, 2, "eccentricity", (27, 33), "33334")
    assert "SGP4 error 3" in str(error.value)


@pytest.mark.parametrize(
    "make, code, line, field, columns",
    [
        # B* = 9.9999 on the ISS: the mean eccentricity leaves [0, 1) (error 1).
        (lambda: ElementSet("ISS", put(L1, 54, " 99999+1"), L2), 1, 2, "eccentricity",
         (27, 33)),
        (lambda: ElementSet("33333", *_fixed("33333")), 4, 2, "eccentricity", (27, 33)),
        (lambda: verification_element_sets()["28872"], 6, 2, "mean motion", (53, 63)),
    ],
)  # fmt: skip
def test_a_propagation_error_names_the_time_and_the_fields(make, code, line, field, columns):
    element_set = make()
    with pytest.raises(TLEError) as error:
        element_set.propagate(np.arange(0.0, 3 * DAY, 600.0))
    assert_names(error.value, line, field, columns, element_set.name)
    assert f"SGP4 error {code}" in str(error.value) and "at t = " in str(error.value)


class _NaNSatrec:
    """A Satrec stand-in that returns NaN states without an error code."""

    def __init__(self, satrec):
        self.jdsatepoch, self.jdsatepochF = satrec.jdsatepoch, satrec.jdsatepochF

    def sgp4_array(self, jd, fr):
        nan = np.full((len(jd), 3), np.nan)
        return np.zeros(len(jd), dtype=np.uint8), nan, nan


def test_propagate_never_returns_non_finite_states():
    element_set = iss_element_set()
    object.__setattr__(element_set, "satrec", _NaNSatrec(element_set.satrec))
    with pytest.raises(TLEError, match=r"ISS \(25544\).*non-finite state at t = 0 s"):
        element_set.propagate([0.0, 60.0])


def _write(tmp_path, lines, name="catalogue.tle"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_three_line_catalogue_is_read_in_order(tmp_path):
    path = _write(tmp_path, ["ISS (ZARYA)", L1, L2, "", "0 DELTA 1 DEB", *_fixed("06251")])
    sets = read_catalogue(path)
    assert [s.name for s in sets] == ["ISS (ZARYA)", "DELTA 1 DEB"]
    assert sets[1].catalogue_number == "06251"


def test_a_two_line_catalogue_is_read_in_order(tmp_path):
    one, two = _fixed("06251")
    path = _write(tmp_path, [L1, L2, "", one, two])
    sets = read_catalogue(path)
    assert [s.name for s in sets] == ["25544", "06251"]
    assert [(s.line1, s.line2) for s in sets] == [(L1, L2), (one, two)]
    # the same element sets as from the three-line file
    named = read_catalogue(_write(tmp_path, ["ISS", L1, L2, "DELTA", one, two], "named.tle"))
    t = np.linspace(0.0, DAY, 5)
    for plain, three in zip(sets, named):
        np.testing.assert_array_equal(plain.propagate(t), three.propagate(t))


# (description, file lines, file line at fault, message fragment)
CATALOGUE_FAULTS = [
    ("bad second set", ["ISS", L1, L2, "BAD", L1, wrong_checksum(L2)], 6,
     "element set 'BAD' (catalogue number 25544), TLE line 2, checksum (column 69)"),
    ("bad first line", ["ISS", L1[:60], L2], 2, "TLE line 1, drag term B* (columns 54-61)"),
    ("blank lines counted", ["", "ISS", "", L1, put(L2, 9, "191.6392")], 5,
     "TLE line 2, inclination (columns 9-16)"),
    ("a line 1 missing", ["ISS", L1, L2, L2], 4,
     "TLE line 2: found where an element set starts"),
    ("a line 1 missing in a two-line file", [L1, L2, L2, L1, L2], 3,
     "its line 1 is missing"),
    ("a name line, then a line 2", [L1, L2, "ISS", L2, L1], 4,
     "element set 'ISS', TLE line 1, line number (column 1): found '2'"),
    ("two-line file, bad line 2", [L1, L2, L1, wrong_checksum(L2)], 4,
     "element set '25544', TLE line 2, checksum (column 69)"),
    ("two-line file, bad line 1", ["", wrong_checksum(L1), L2], 2,
     "TLE line 1, checksum (column 69)"),
    ("two-line file ends after line 1", [L1, L2, L1], 3, "TLE line 2 is missing"),
    ("ends after line 1", ["ISS", L1, L2, "LAST", L1], 5, "TLE line 2 is missing"),
    ("ends after the name", ["ISS", L1, L2, "LAST"], 4, "TLE line 1 is missing"),
]  # fmt: skip


@pytest.mark.parametrize(
    "lines, file_line, fragment",
    [c[1:] for c in CATALOGUE_FAULTS],
    ids=[c[0] for c in CATALOGUE_FAULTS],
)
def test_a_bad_catalogue_names_the_file_and_its_line(tmp_path, lines, file_line, fragment):
    path = _write(tmp_path, lines)
    with pytest.raises(TLEError) as error:
        read_catalogue(path)
    assert str(error.value).startswith(f"{path}, line {file_line}")
    assert fragment in str(error.value) and "\n" not in str(error.value)
    assert error.value.file_line == file_line


@pytest.mark.parametrize(
    "content, exception, fragment",
    [
        (b"", TLEError, "holds no element set"),
        (b"\n\n  \n", TLEError, "holds no element set"),
        (b"ISS \xff\n" + L1.encode() + b"\n", TLEError, "line 1: the file is not UTF-8"),
        (None, FileNotFoundError, "is not a file"),
    ],
)
def test_an_unreadable_catalogue_is_named(tmp_path, content, exception, fragment):
    path = tmp_path / "catalogue.tle"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(exception, match=fragment) as error:
        read_catalogue(path)
    assert str(path) in str(error.value)


def test_the_shared_active_catalogue_parses_entirely():
    try:
        sets = load_catalogue()
    except FileNotFoundError as error:
        pytest.skip(f"the shared catalogue is not available: {error}")
    assert len(sets) == 14710
    assert len({s.catalogue_number for s in sets}) == len(sets)
    # The data folder's description: 13,909 objects above 11.25 rev/day (LEO).
    mean_motion = np.array([s.satrec.no_kozai for s in sets]) * 1440.0 / (2 * np.pi)
    assert np.count_nonzero(mean_motion > 11.25) == 13909
