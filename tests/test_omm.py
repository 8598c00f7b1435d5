"""Orbit Mean-elements Messages and the element set dispatcher.

The independent references: CelesTrak's OMM (NDM/XML) of MARIO and the TLE it was made
from, both shipped in ``sgp4/tests.py``; SGP4 states of the TLE the OMM came from; and
``sgp4``'s own OMM reader (``sgp4.omm.parse_xml`` and ``initialize``) on the files written
here.
"""

import os
import re
import socket

import numpy as np
import pytest
from sgp4 import omm as sgp4_omm
from sgp4.api import Satrec

from ssa_privacy.orbits.catalog import read_element_sets
from ssa_privacy.orbits.omm import read_omm, write_omm
from ssa_privacy.orbits.tle import (
    ElementSet,
    TLEError,
    _package_text,
    iss_element_set,
    verification_element_sets,
)

SGP4_TESTS = _package_text("tests.py")
MARIO_XML = re.search(r'MARIO_XML = """\\\n(.*?)"""', SGP4_TESTS, re.S).group(1)
MARIO_LINES = re.search(r'MARIO_TLE = """\\\n(.*?)"""', SGP4_TESTS, re.S).group(1).splitlines()[1:]
DAY = np.linspace(0.0, 86400.0, 289)  # every 5 minutes over a day
#: Every element set SGP4 propagates over a day after its epoch, and the ISS.
SETS = [
    s
    for s in [*verification_element_sets().values(), iss_element_set()]
    if Satrec.twoline2rv(s.line1, s.line2)
    .sgp4_array(np.full(DAY.size, s.satrec.jdsatepoch), s.satrec.jdsatepochF + DAY / 86400.0)[0]
    .max()
    == 0
]


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Everything here is offline: a connection attempt fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)


def _largest_difference(a, b):
    """Largest position difference (km) of two element sets over the day after a's epoch."""
    offset = (a.epoch_jd - b.epoch_jd) * 86400.0
    return np.max(
        np.linalg.norm(a.propagate(DAY)[:, :3] - b.propagate(DAY + offset)[:, :3], axis=1)
    )


def test_celestraks_omm_is_the_tle_it_was_made_from(tmp_path):
    path = tmp_path / "mario.xml"
    path.write_text(MARIO_XML)
    [element_set] = read_omm(path)
    assert element_set.name == "MARIO"
    assert (element_set.line1, element_set.line2) == tuple(MARIO_LINES)
    tle = ElementSet("MARIO", *MARIO_LINES)
    np.testing.assert_array_equal(element_set.propagate(DAY), tle.propagate(DAY))


def test_an_ndm_of_many_omms_gives_them_all(tmp_path):
    block = re.search(r"<omm .*?</omm>", MARIO_XML, re.S).group(0)
    second = block.replace("<OBJECT_NAME>MARIO<", "<OBJECT_NAME>MARIO 2<").replace(
        "<NORAD_CAT_ID>55123<", "<NORAD_CAT_ID>123456<"
    )
    path = tmp_path / "group.xml"
    path.write_text(MARIO_XML.replace(block, block + "\n" + second))
    first, alpha5 = read_omm(path)
    assert (first.name, alpha5.name) == ("MARIO", "MARIO 2")
    # above 99999 the TLE holds the catalogue number in Alpha-5 (12 -> C)
    assert alpha5.catalogue_number == "C3456" and alpha5.satrec.satnum == 123456
    np.testing.assert_array_equal(first.propagate(DAY), alpha5.propagate(DAY))


@pytest.mark.parametrize("name", ["all.xml", "all.omm"])
def test_element_sets_round_trip_through_omm(tmp_path, name):
    """Written and read back, every element set propagates as before (within 1 m; in fact
    to the bit, since the OMM holds the TLE's own numbers)."""
    path = write_omm(tmp_path / name, SETS, comments=["the SGP4 verification satellites"])
    back = read_omm(path)
    assert [b.name for b in back] == [s.name for s in SETS]
    worst = max(_largest_difference(s, b) for s, b in zip(SETS, back))
    assert worst < 1e-3
    assert worst == 0.0
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_one_element_set_is_one_omm(tmp_path):
    iss = iss_element_set()
    for name in ("iss.xml", "iss.omm"):
        [back] = read_omm(write_omm(tmp_path / name, iss))
        assert back.name == iss.name and back.line2 == iss.line2
        # the ISS's epoch 19366.8 (day 366 of 2019) is written as 20001.8, the same instant
        assert back.epoch_jd == iss.epoch_jd
    assert "<ndm" not in (tmp_path / "iss.xml").read_text()


def test_sgp4s_own_omm_reader_agrees(tmp_path):
    """sgp4.omm reads the XML written here into the same satellites (within 1 m)."""
    path = write_omm(tmp_path / "all.xml", SETS)
    with open(path) as file:
        fields = list(sgp4_omm.parse_xml(file))
    assert len(fields) == len(SETS)
    for element_set, entry in zip(SETS, fields):
        satrec = Satrec()
        sgp4_omm.initialize(satrec, entry)
        errors, r, _ = satrec.sgp4_array(
            np.full(DAY.size, element_set.satrec.jdsatepoch),
            element_set.satrec.jdsatepochF + DAY / 86400.0,
        )
        assert not errors.any()
        difference = np.linalg.norm(r - element_set.propagate(DAY)[:, :3], axis=1)
        assert difference.max() < 1e-3, element_set.name


def test_a_missing_international_designator_is_unknown(tmp_path):
    blank = next(s for s in SETS if not s.line1[9:17].strip())
    path = write_omm(tmp_path / "blank.omm", blank)
    assert re.search(r"^OBJECT_ID\s+= UNKNOWN$", path.read_text(), re.M)
    [back] = read_omm(path)
    assert not back.line1[9:17].strip()
    assert _largest_difference(blank, back) == 0.0


#: An OMM 2.0 in KVN as space-track writes it (by hand here, not by ccsds-ndm).
KVN = """\
CCSDS_OMM_VERS = 2.0
COMMENT GENERATED VIA SPACE-TRACK.ORG API
CREATION_DATE = 2023-04-25T15:06:09
ORIGINATOR = 18 SPCS
OBJECT_NAME = MARIO
OBJECT_ID = 1998-067UQ
CENTER_NAME = EARTH
REF_FRAME = TEME
TIME_SYSTEM = UTC
MEAN_ELEMENT_THEORY = SGP4
EPOCH = 2023-04-25T10:45:30.642912
MEAN_MOTION = 15.99081912
ECCENTRICITY = .0014649
INCLINATION = 51.6242
RA_OF_ASC_NODE = 216.2930
ARG_OF_PERICENTER = 331.8976
MEAN_ANOMALY = 28.1241
EPHEMERIS_TYPE = 0
CLASSIFICATION_TYPE = U
NORAD_CAT_ID = 55123
ELEMENT_SET_NO = 999
REV_AT_EPOCH = 1839
BSTAR = .1568E-2
MEAN_MOTION_DOT = .787702E-2
MEAN_MOTION_DDOT = .29408E-3
"""


def test_kvn_omms_one_after_another_are_read(tmp_path):
    path = tmp_path / "two.omm"
    path.write_text(KVN + "\n" + KVN.replace("OBJECT_NAME = MARIO", "OBJECT_NAME = AGAIN"))
    first, second = read_omm(path)
    assert (first.name, second.name) == ("MARIO", "AGAIN")
    assert (first.line1, first.line2) == tuple(MARIO_LINES) == (second.line1, second.line2)


def test_an_angle_is_taken_modulo_360_degrees(tmp_path):
    path = _write(tmp_path, "negative.omm", KVN.replace("= 216.2930", "= -143.7070"))
    [element_set] = read_omm(path)
    assert (element_set.line1, element_set.line2) == tuple(MARIO_LINES)


# (description, text replaced, replacement, keyword and fragment of the message)
BAD_OMMS = [
    ("frame", "REF_FRAME = TEME", "REF_FRAME = GCRF", "REF_FRAME: 'GCRF' is not supported"),
    ("theory", "= SGP4", "= SGP4-XP", "MEAN_ELEMENT_THEORY: 'SGP4-XP' is not supported"),
    ("time system", "= UTC", "= TAI", "TIME_SYSTEM: 'TAI' is not supported"),
    ("centre", "= EARTH", "= MOON", "CENTER_NAME: 'MOON' is not supported"),
    ("number", "= 55123", "= 400000", "NORAD_CAT_ID: 400000 cannot be written in a TLE"),
    ("no mean motion", "MEAN_MOTION = 15.99081912\n", "", "MEAN_MOTION: missing"),
    ("no B*", "BSTAR = .1568E-2\n", "", "BSTAR: missing"),
    ("eccentricity", "= .0014649", "= 1.5", "ECCENTRICITY: 1.5 is outside [0, 1)"),
    ("inclination", "= 51.6242", "= -51.6242", "INCLINATION: -51.6242 is outside [0, 180]"),
    ("mean motion", "= 15.99081912", "= 150.0", "MEAN_MOTION: 150.0 is outside [0, 100)"),
    ("no motion", "= 15.99081912", "= 0.0", "MEAN_MOTION: 0.0 is not positive"),
    ("epoch", "2023-04-25T10:45:30.642912", "2023-04-31T10:45:30", "not a calendar date"),
]


@pytest.mark.parametrize(
    "old, new, fragment", [c[1:] for c in BAD_OMMS], ids=[c[0] for c in BAD_OMMS]
)
def test_what_is_not_understood_is_named(tmp_path, old, new, fragment):
    """The message names the file, the keyword's line (the message's lines when the
    keyword is missing), the OMM and the keyword."""
    path = tmp_path / "bad.omm"
    path.write_text((KVN + "\n" + KVN).replace(old, new, 2))
    with pytest.raises(ValueError, match=re.escape(fragment)) as error:
        read_omm(path)
    text = path.read_text()
    where = f"line {text[: text.index(new)].count(chr(10)) + 1}" if new else "lines 1-24"
    assert str(error.value).startswith(f"{path}, {where}, OMM 1 (MARIO), ")


def test_units_other_than_the_standards_are_refused(tmp_path):
    text = write_omm(tmp_path / "iss.xml", iss_element_set()).read_text()
    path = _write(tmp_path, "rad.xml", text.replace("<INCLINATION>", '<INCLINATION units="rad">'))
    with pytest.raises(ValueError, match=r"OMM 1 \(ISS \(25544\)\), INCLINATION: units 'rad'"):
        read_omm(path)


def test_another_message_is_refused(tmp_path):
    from ssa_privacy.orbits.oem import write_oem

    iss = iss_element_set()
    path = write_oem(
        tmp_path / "a.oem", "ISS", "1998-067A", iss.epoch_jd, [0.0], [iss.state_at_epoch()]
    )
    with pytest.raises(ValueError, match=r"a.oem, line 1: holds a CCSDS OEM, not an OMM"):
        read_omm(path)
    xml = write_oem(
        tmp_path / "a.xml", "ISS", "1998-067A", iss.epoch_jd, [0.0], [iss.state_at_epoch()]
    )
    with pytest.raises(ValueError, match=r"a.xml: holds a CCSDS OEM, not an OMM"):
        read_omm(xml)


def test_bad_write_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="element_sets must hold at least one"):
        write_omm(tmp_path / "a.omm", [])
    with pytest.raises(TypeError, match=r"element_sets\[1\] must be an ElementSet"):
        write_omm(tmp_path / "a.omm", [SETS[0], MARIO_LINES])
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------- the dispatcher


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "name, text",
    [
        ("two.txt", "\n".join(MARIO_LINES) + "\n"),
        ("three.tle", "MARIO\n" + "\n".join(MARIO_LINES) + "\n"),
        ("celestrak.dat", MARIO_XML),
        ("space-track.txt", KVN),
        ("bom.omm", "\ufeff" + KVN),
    ],
)
def test_the_dispatcher_reads_every_format_by_content(tmp_path, name, text):
    [element_set] = read_element_sets(_write(tmp_path, name, text))
    assert (element_set.line1, element_set.line2) == tuple(MARIO_LINES)
    assert element_set.name == ("55123" if name == "two.txt" else "MARIO")


@pytest.mark.parametrize(
    "content, exception, fragment",
    [
        (None, FileNotFoundError, "not found"),
        (b"  \n\n", ValueError, "the file is empty"),
        (b"\xff\xfe", ValueError, "line 1: the file is not UTF-8"),
        (b"CCSDS_TDM_VERS = 2.0\n", ValueError, "line 1: holds a CCSDS TDM, not an OMM"),
        (b"<tdm/>", ValueError, "not a readable CCSDS OMM"),
        (b"MARIO\n1 55123U\n", TLEError, "TLE line 2 is missing"),
    ],
)
def test_the_dispatcher_names_the_file(tmp_path, content, exception, fragment):
    path = tmp_path / "sets.txt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(exception, match=re.escape(fragment)) as error:
        read_element_sets(path)
    assert str(path) in str(error.value)


def test_a_file_is_read_once_per_content(tmp_path, monkeypatch):
    """A second read of the same bytes does not parse them again (a whole catalogue takes
    seconds to validate), whatever the file; changed bytes are read anew, even when the
    file keeps its name, size and times (a copy that keeps timestamps)."""
    from ssa_privacy.orbits import catalog

    catalog._CACHE.clear()
    path = _write(tmp_path, "three.tle", "MARIO\n" + "\n".join(MARIO_LINES) + "\n")
    parses = []
    original = catalog._element_sets
    monkeypatch.setattr(
        catalog, "_element_sets", lambda raw, file: parses.append(file) or original(raw, file)
    )
    first, second = read_element_sets(path), read_element_sets(path)
    assert first == second and first is not second and len(parses) == 1
    copy = _write(tmp_path, "copy.tle", path.read_text())
    assert read_element_sets(copy) == first and len(parses) == 1
    times = path.stat()
    path.write_text("LUIGI\n" + "\n".join(MARIO_LINES) + "\n")  # same size
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert path.stat().st_size == times.st_size and path.stat().st_mtime_ns == times.st_mtime_ns
    [renamed] = read_element_sets(path)
    assert renamed.name == "LUIGI" and len(parses) == 2
