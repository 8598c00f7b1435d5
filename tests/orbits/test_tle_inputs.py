"""TLE files as users have them: each unusual file is read as the format says, each bad one
refused in one line naming the file, its line and the field.

The reference element sets are the ISS set and the verification satellite 06251 shipped
with ``sgp4``; variants keep a valid checksum (``sgp4.io.fix_checksum``) so that the check
under test, not the checksum, must catch them. The format: Vallado et al., "Revisiting
Spacetrack Report #3" (2006); a three-line file has a name line before each pair of lines,
space-track's starts it with ``0``; Alpha-5 writes 100000-339999 as a letter (A-Z without
I and O, counting 10-33) and four digits.
"""

import pytest
from sgp4.api import jday
from sgp4.io import fix_checksum

from ssa_privacy.orbits.catalog import read_element_sets
from ssa_privacy.orbits.tle import (
    ElementSet,
    TLEError,
    iss_element_set,
    read_catalogue,
    verification_element_sets,
)

ISS = iss_element_set()
L1, L2 = ISS.line1, ISS.line2
M1, M2 = verification_element_sets()["06251"].line1, verification_element_sets()["06251"].line2


def put(line, column, text, fix=True):
    """``line`` with ``text`` written from 1-based ``column``; checksum refreshed if ``fix``."""
    changed = line[: column - 1] + text + line[column - 1 + len(text) :]
    return fix_checksum(changed) if fix else changed


def numbered(number, line1=L1, line2=L2):
    """The two lines with another catalogue number (columns 3-7), checksums refreshed."""
    return put(line1, 3, number), put(line2, 3, number)


A1, A2 = numbered("C3456")
#: The ISS lines with epoch year 57 (1957) and 56 (2056), day 1.5.
Y57 = put(L1, 19, "57001.50000000")
Y56 = put(L1, 19, "56001.50000000")


def lines(*texts, end="\n"):
    return end.join(texts) + end


# (id, file text, the element sets read: (name, catalogue number, norad_id) each)
READ = [
    ("three-line", lines("ISS (ZARYA)", L1, L2), [("ISS (ZARYA)", "25544", 25544)]),
    ("two-line", lines(L1, L2, M1, M2), [("25544", "25544", 25544), ("06251", "06251", 6251)]),
    ("two-line, then three-line", lines(L1, L2, "DELTA 1", M1, M2),
     [("25544", "25544", 25544), ("DELTA 1", "06251", 6251)]),
    ("three-line, then two-line", lines("ISS", L1, L2, M1, M2),
     [("ISS", "25544", 25544), ("06251", "06251", 6251)]),
    ("a name missing in a three-line file", lines("ISS", L1, L2, M1, M2, "A5", A1, A2),
     [("ISS", "25544", 25544), ("06251", "06251", 6251), ("A5", "C3456", 123456)]),
    ("space-track's 0 before the name", lines("0 ISS (ZARYA)", L1, L2),
     [("ISS (ZARYA)", "25544", 25544)]),
    ("an empty space-track name", lines("0", L1, L2), [("25544", "25544", 25544)]),
    ("a name starting with 1 and a blank", lines("1 KUIPER", L1, L2),
     [("1 KUIPER", "25544", 25544)]),
    ("a name that is a number", lines("6251", M1, M2), [("6251", "06251", 6251)]),
    ("CRLF line ends", lines("ISS", L1, L2, end="\r\n"), [("ISS", "25544", 25544)]),
    ("CR line ends", lines("ISS", L1, L2, end="\r"), [("ISS", "25544", 25544)]),
    ("trailing blanks and tabs", lines("ISS  ", L1 + " \t", L2 + "   ", "", "  "),
     [("ISS", "25544", 25544)]),
    ("blank lines between and around", lines("", "ISS", "", L1, "", L2, ""),
     [("ISS", "25544", 25544)]),
    ("a byte-order mark, three-line", "\ufeff" + lines("ISS", L1, L2),
     [("ISS", "25544", 25544)]),
    ("a byte-order mark, two-line", "\ufeff" + lines(L1, L2), [("25544", "25544", 25544)]),
    ("a non-ASCII name", lines("SPUTNIK Ω", L1, L2), [("SPUTNIK Ω", "25544", 25544)]),
    ("a repeated catalogue number", lines("OLD", L1, L2, "NEW", L1, L2),
     [("OLD", "25544", 25544), ("NEW", "25544", 25544)]),
    ("Alpha-5", lines("BIG", A1, A2), [("BIG", "C3456", 123456)]),
    ("Alpha-5 without a name", lines(A1, A2), [("C3456", "C3456", 123456)]),
    ("Alpha-5 Z9999, the largest", lines("Z", *numbered("Z9999")), [("Z", "Z9999", 339999)]),
    ("a number padded by blanks and by zeros", lines("X", put(L1, 3, "  123"), put(L2, 3, "00123")),
     [("X", "123", 123)]),
    ("catalogue number 00000", lines("ZERO", *numbered("00000")), [("ZERO", "00000", 0)]),
]  # fmt: skip

# (id, file text, file line at fault, fragment naming the TLE line and field)
REFUSED = [
    ("a lone name line", lines("ISS"), 1, "element set 'ISS', TLE line 1: the file ends"),
    ("name lines only", lines("ISS", "MIR", "SKYLAB"), 2,
     "element set 'ISS', TLE line 1, line number (column 1): found 'M'"),
    ("a lone line 1", lines(L1), 1, "TLE line 2: the file ends inside the element set"),
    ("the file ends after a name", lines("ISS", L1, L2, "LAST"), 4, "TLE line 1 is missing"),
    ("a line 2 where a set starts", lines("ISS", L1, L2, L2), 4,
     "element set (catalogue number 25544), TLE line 2: found where an element set starts"),
    ("a two-line set without its line 2", lines(L1, M1, M2), 2,
     "TLE line 2, line number (column 1): found '1'"),
    ("lines swapped", lines("ISS", L2, L1), 2, "TLE line 1, line number (column 1): found '2'"),
    ("a line 1 shifted by a blank", lines("ISS", " " + L1[:68], L2), 2,
     "TLE line 1, line number (column 1): found ' '"),
    ("a line 1 of 70 columns", lines("ISS", L1 + "0", L2), 2,
     "TLE line 1, text after the checksum (column 70)"),
    ("a line 2 of 68 columns", lines("ISS", L1, L2[:68]), 3,
     "TLE line 2, checksum (column 69): the line has 68 columns"),
    ("a line 1 cut to 40 columns, two-line", lines(L1[:40], L2), 1,
     "TLE line 1, first derivative of mean motion (columns 34-43)"),
    ("a wrong checksum", lines("ISS", L1, L2[:68] + "0"), 3, "TLE line 2, checksum (column 69)"),
    ("a tab inside line 1", lines("ISS", put(L1, 33, "\t", False), L2), 2,
     "TLE line 1, blank separator (column 33)"),
    ("a tab in the name", lines("IS\tS", L1, L2), 1, "name: the name holds '\\t'"),
    ("a NUL in the name", lines("IS\x00S", L1, L2), 1, "name: the name holds '\\x00'"),
    ("a line separator in the name", lines("IS\u2028S", L1, L2), 1,
     "name: the name holds '\\u2028'"),
    ("a form feed in the name", lines("IS\x0cS", L1, L2), 1, "name: the name holds '\\x0c'"),
    ("catalogue numbers differ", lines("ISS", L1, put(L2, 3, "25545")), 3,
     "TLE line 2, catalogue number (columns 3-7): '25545' differs from line 1's '25544'"),
    ("Alpha-5 against its digits", lines("BIG", A1, put(L2, 3, "12345")), 3,
     "(catalogue number C3456, Alpha-5 for 123456), TLE line 2, catalogue number"),
    ("Alpha-5 with the letter I", lines("X", *numbered("I3456")), 2,
     "TLE line 1, catalogue number (columns 3-7): 'I3456' is not of the form"),
    ("Alpha-5 with the letter O", lines("X", *numbered("O3456")), 2,
     "TLE line 1, catalogue number (columns 3-7): 'O3456'"),
    ("Alpha-5 in lower case", lines("X", *numbered("c3456")), 2,
     "TLE line 1, catalogue number (columns 3-7): 'c3456'"),
    ("a negative mean motion", lines("ISS", L1, put(L2, 53, "-5.49497216")), 3,
     "TLE line 2, mean motion (columns 53-63)"),
    ("an eccentricity of 0.9999999", lines("ISS", L1, put(L2, 27, "9999999")), 3,
     "TLE line 2, eccentricity (columns 27-33): SGP4 rejects"),
    ("an epoch day 0", lines("ISS", put(L1, 21, "000"), L2), 2,
     "TLE line 1, epoch (columns 19-32)"),
]  # fmt: skip


def _file(tmp_path, text):
    path = tmp_path / "sets.tle"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("read", [read_catalogue, read_element_sets])
@pytest.mark.parametrize("text, expected", [c[1:] for c in READ], ids=[c[0] for c in READ])
def test_an_unusual_file_is_read_as_the_format_says(tmp_path, read, text, expected):
    sets = read(_file(tmp_path, text))
    assert [(s.name, s.catalogue_number, s.norad_id) for s in sets] == expected


@pytest.mark.parametrize("read", [read_catalogue, read_element_sets])
@pytest.mark.parametrize(
    "text, file_line, fragment", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_a_bad_file_is_refused_naming_the_line_and_the_field(
    tmp_path, read, text, file_line, fragment
):
    path = _file(tmp_path, text)
    with pytest.raises(TLEError) as error:
        read(path)
    message = str(error.value)
    assert message.startswith(f"{path}, line {file_line}, ") and "\n" not in message
    assert fragment in message
    assert error.value.file_line == file_line


@pytest.mark.parametrize(
    "content, read, fragment",
    [
        (b"", read_catalogue, ": the file holds no element set"),
        (b" \n\t\n", read_catalogue, ": the file holds no element set"),
        (b"", read_element_sets, ": the file is empty (no element set)"),
        (b"\r\n\r\n", read_element_sets, ": the file is empty (no element set)"),
        (b"ISS\n\xe9\n", read_catalogue, ", line 2: the file is not UTF-8 text"),
        (b"\n\r\nX\xff", read_element_sets, ", line 3: the file is not UTF-8 text"),
    ],
)
def test_an_empty_or_undecodable_file_is_named(tmp_path, content, read, fragment):
    path = tmp_path / "sets.tle"
    path.write_bytes(content)
    with pytest.raises(ValueError) as error:
        read(path)
    assert str(error.value) == f"{path}{fragment}"


@pytest.mark.parametrize(
    "line1, year", [(Y57, 1957), (Y56, 2056)], ids=["year 57 is 1957", "year 56 is 2056"]
)
def test_the_two_digit_epoch_year_covers_1957_to_2056(line1, year):
    """Vallado et al. (2006): years 57-99 are 1957-1999, 00-56 are 2000-2056."""
    element_set = ElementSet("ISS", line1, L2)
    assert element_set.epoch_jd == sum(jday(year, 1, 1, 12, 0, 0))


@pytest.mark.parametrize("name", ["a\tb", "a\nb", "\ufeffISS", "x\x7f"])
def test_an_element_set_refuses_a_name_that_is_not_printable(name):
    with pytest.raises(TLEError, match=r"^element set .*, name: the name holds") as error:
        ElementSet(name, L1, L2)
    assert error.value.field == "name"
