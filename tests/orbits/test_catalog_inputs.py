"""Files of element sets as users assemble them, through ``read_element_sets`` and the
catalogue functions: a file mixing OMMs and TLEs is read whole, in file order, each line
named as in the file; Alpha-5 catalogue numbers (123456 written ``C3456``) are one object
whether given by a TLE or an OMM, and are carried as numbers into the records.

References: CCSDS 502.0-B-3 (OMM, KVN and XML); Vallado et al. (2006) (the TLE); the
MARIO OMM and TLE and the ISS set shipped with ``sgp4``.
"""

import re

import numpy as np
import pytest
from sgp4.io import fix_checksum

from ssa_privacy.orbits.catalog import (
    exclusion,
    mean_motion,
    newest_element_sets,
    read_element_sets,
    select_objects,
    sgp4_states,
    sgp4_valid,
    stale_element_sets,
    utc_text,
)
from ssa_privacy.orbits.omm import read_omm
from ssa_privacy.orbits.tle import TLEError, _package_text, iss_element_set, read_catalogue

SGP4_TESTS = _package_text("tests.py")
MARIO_XML = re.search(r'MARIO_XML = """\\\n(.*?)"""', SGP4_TESTS, re.S).group(1)
MARIO_LINES = tuple(
    re.search(r'MARIO_TLE = """\\\n(.*?)"""', SGP4_TESTS, re.S).group(1).splitlines()[1:]
)
ISS = iss_element_set()
#: MARIO's OMM in KVN (25 lines), its values those of CelesTrak's XML.
KVN = """\
CCSDS_OMM_VERS = 2.0
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
KVN_LINES = len(KVN.splitlines())


def lines(*texts):
    return "\n".join(texts) + "\n"


ISS_3LE = lines("ISS (ZARYA)", ISS.line1, ISS.line2)
ISS_2LE = lines(ISS.line1, ISS.line2)
MARIO = ("MARIO", "55123")
ISS_NAMED = ("ISS (ZARYA)", "25544")

# (id, file text, (name, catalogue number) of each element set read, in order)
MIXED = [
    ("an OMM, then two TLEs", KVN + lines("MARIO TLE", *MARIO_LINES) + ISS_3LE,
     [MARIO, ("MARIO TLE", "55123"), ISS_NAMED]),
    ("an OMM, then a two-line set", KVN + ISS_2LE, [MARIO, ("25544", "25544")]),
    ("an OMM, a blank line, then a three-line set", KVN + "\n" + ISS_3LE, [MARIO, ISS_NAMED]),
    ("TLEs, then an OMM", ISS_3LE + KVN, [ISS_NAMED, MARIO]),
    ("an OMM, TLEs, an OMM", KVN + ISS_2LE + KVN, [MARIO, ("25544", "25544"), MARIO]),
    ("XML, then a TLE", MARIO_XML + ISS_3LE, [MARIO, ISS_NAMED]),
    ("a TLE, then XML", ISS_3LE + MARIO_XML, [ISS_NAMED, MARIO]),
    ("a byte-order mark, then XML and a TLE", "\ufeff" + MARIO_XML + ISS_2LE,
     [MARIO, ("25544", "25544")]),
    ("two KVN OMMs, CRLF", (KVN + KVN).replace("\n", "\r\n"), [MARIO, MARIO]),
    ("files joined, each with a byte-order mark", "\ufeff" + KVN + "\ufeff" + ISS_3LE + "\ufeff"
     + KVN, [MARIO, ISS_NAMED, MARIO]),
]  # fmt: skip


def _file(tmp_path, text, name="sets.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("text, expected", [c[1:] for c in MIXED], ids=[c[0] for c in MIXED])
def test_a_file_mixing_omms_and_tles_is_read_whole(tmp_path, text, expected):
    sets = read_element_sets(_file(tmp_path, text))
    assert [(s.name, s.catalogue_number) for s in sets] == expected
    by_number = {"55123": MARIO_LINES, "25544": (ISS.line1, ISS.line2)}
    assert all((s.line1, s.line2) == by_number[s.catalogue_number] for s in sets)


# (id, file text, file line named, fragment)
MIXED_REFUSED = [
    ("a bad TLE after an OMM", KVN + lines("ISS", ISS.line1, ISS.line2[:68] + "0"),
     KVN_LINES + 3, "element set 'ISS' (catalogue number 25544), TLE line 2, checksum"),
    ("a bad second OMM after TLEs", KVN + ISS_3LE + KVN.replace("= .1568E-2", "= x"),
     KVN_LINES + 3 + 22, "OMM 2, BSTAR: 'x' is not a number"),
    ("a TDM among the OMMs", KVN + ISS_2LE + "CCSDS_TDM_VERS = 2.0\n", KVN_LINES + 3,
     "holds a CCSDS TDM, not an OMM"),
    ("a line without a TLE after an OMM", KVN + "ISS\n", KVN_LINES + 1,
     "OMM 1: 'ISS' is neither 'KEYWORD = value' nor a COMMENT line"),
]  # fmt: skip


@pytest.mark.parametrize(
    "text, file_line, fragment", [c[1:] for c in MIXED_REFUSED], ids=[c[0] for c in MIXED_REFUSED]
)
def test_a_fault_in_a_mixed_file_names_its_line_in_the_file(tmp_path, text, file_line, fragment):
    path = _file(tmp_path, text)
    with pytest.raises(ValueError) as error:
        read_element_sets(path)
    message = str(error.value)
    assert re.match(rf"{re.escape(str(path))}, line {file_line}[,:] ", message)
    assert fragment in message


def test_a_line_that_is_neither_kvn_nor_a_tle_ends_an_omm_as_a_name_line(tmp_path):
    """After an OMM, a line followed by a TLE line 1 that is not KVN is the set's name."""
    [omm, tle] = read_element_sets(_file(tmp_path, KVN + ISS_3LE.replace("ISS (ZARYA)", "ZARYA")))
    assert (omm.name, tle.name) == ("MARIO", "ZARYA")


def test_the_single_format_readers_point_at_the_other_format(tmp_path):
    path = _file(tmp_path, KVN + ISS_3LE)
    with pytest.raises(ValueError) as error:
        read_omm(path)
    assert str(error.value) == (
        f"{path}, line {KVN_LINES + 1}: a TLE element set starts here, in an OMM file "
        "(read_element_sets reads a file of OMMs and TLEs)"
    )
    path = _file(tmp_path, ISS_3LE + KVN)
    with pytest.raises(TLEError) as error:
        read_catalogue(path)
    assert str(error.value) == (
        f"{path}, line 4: a CCSDS OMM starts here, in a TLE catalogue (read_element_sets "
        "reads a file of OMMs and TLEs)"
    )


# --------------------------------------------- Alpha-5 numbers through the catalogue

#: MARIO's TLE numbered 123456 (Alpha-5 C3456), epoch 2023-04-25T10:45:31 (day 115.448).
ALPHA5_LINES = tuple(fix_checksum(line[:2] + "C3456" + line[7:]) for line in MARIO_LINES)
#: The same object's OMM a day later, numbered as OMMs number it.
ALPHA5_KVN = KVN.replace("= 55123", "= 123456").replace("2023-04-25T", "2023-04-26T")


def test_an_alpha5_tle_and_its_omm_are_one_object(tmp_path):
    """The TLE's ``C3456`` and the OMM's 123456 are the same catalogue number: the newer
    element set is kept and the other recorded under norad_id 123456."""
    path = _file(tmp_path, lines("BIG", *ALPHA5_LINES) + ALPHA5_KVN)
    tle, omm = read_element_sets(path)
    assert tle.catalogue_number == omm.catalogue_number == "C3456"
    assert tle.norad_id == omm.norad_id == 123456
    assert omm.epoch_jd - tle.epoch_jd == pytest.approx(1.0, abs=1e-8)
    kept, repeated = newest_element_sets([tle, omm])
    assert kept == [omm]
    assert [(r["norad_id"], r["name"]) for r in repeated] == [(123456, "BIG")]
    assert type(repeated[0]["norad_id"]) is int


def test_alpha5_objects_are_sampled_and_recorded_by_number(tmp_path):
    [big] = read_element_sets(_file(tmp_path, lines("BIG", *ALPHA5_LINES)))
    assert select_objects([ISS, big], "leo", 2, seed=0) == [ISS, big]
    record = exclusion(big, "a reason")
    assert record["norad_id"] == 123456 and type(record["norad_id"]) is int
    [stale] = stale_element_sets([big], big.epoch_jd + 30.0)
    assert stale["norad_id"] == 123456 and "30.0 days before the window start" in stale["reason"]


def test_an_sgp4_failure_names_the_alpha5_number_and_its_value(tmp_path):
    [big] = read_element_sets(_file(tmp_path, lines("BIG", *ALPHA5_LINES)))
    with pytest.raises(TLEError) as error:
        sgp4_states([big], big.epoch_jd, np.array([0.0, 3.0e9]))
    assert str(error.value).startswith(
        "element set 'BIG' (catalogue number C3456, Alpha-5 for 123456): SGP4 failed at "
        "t = 3e+09 s after start_jd: SGP4 error"
    )


NOT_READ = "which is not read here: element sets are read from TLE files"


@pytest.mark.parametrize("read", [read_element_sets, read_omm, read_catalogue])
@pytest.mark.parametrize(
    "text, file_line, fragment",
    [
        ('[{"OBJECT_NAME": "MARIO", "NORAD_CAT_ID": 55123}]\n', 1, f"the file is JSON, {NOT_READ}"),
        ('\n{\n  "OBJECT_NAME": "MARIO"\n}\n', 2, f"the file is JSON, {NOT_READ}"),
        ("OBJECT_NAME,OBJECT_ID,EPOCH\nMARIO,1998-067UQ,2023-04-25\n", 1, "the file is CSV"),
    ],
    ids=["JSON", "JSON after a blank line", "CSV"],
)
def test_celestraks_json_and_csv_are_refused_by_name(tmp_path, read, text, file_line, fragment):
    path = _file(tmp_path, text)
    with pytest.raises(ValueError) as error:
        read(path)
    assert str(error.value).startswith(f"{path}, line {file_line}: {fragment}")


@pytest.mark.parametrize("read", [read_element_sets, read_omm])
def test_text_after_an_xml_document_is_named_by_its_line(tmp_path, read):
    text = MARIO_XML + "\nEND OF FILE\n"
    path = _file(tmp_path, text)
    with pytest.raises(ValueError) as error:
        read(path)
    line = len(text.splitlines())
    assert str(error.value) == (
        f"{path}, line {line}: 'END OF FILE' follows the XML document's last tag and is "
        "neither XML nor a TLE element set"
    )


# (id, call, exception, message)
BAD_CALLS = [
    ("utc_text of NaN", lambda: utc_text(float("nan")), ValueError, "jd must be a number, got NaN"),
    ("utc_text beyond year 9999", lambda: utc_text(1e12), ValueError,
     "jd must be a Julian date in the years 1 to 9999, got 1000000000000.0"),
    ("utc_text of text", lambda: utc_text("2460000.5"), TypeError, "jd must be a real number"),
    ("sgp4_states of a non-element set", lambda: sgp4_states([ISS, "ISS"], 2.46e6, [0.0]),
     TypeError, "element_sets[1] must be an ElementSet, got str"),
    ("sgp4_valid of lines", lambda: sgp4_valid([(ISS.line1, ISS.line2)], 2.46e6, [0.0]),
     TypeError, "element_sets[0] must be an ElementSet, got tuple"),
    ("mean_motion of a name", lambda: mean_motion("ISS"), TypeError,
     "element_set must be an ElementSet, got str"),
    ("exclusion with a number for a reason", lambda: exclusion(ISS, 5), TypeError,
     "reason must be a str, got int"),
    ("read_element_sets of a number", lambda: read_element_sets(5), TypeError,
     "path must be a str or path-like, got int"),
]  # fmt: skip


@pytest.mark.parametrize(
    "call, exception, message", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS]
)
def test_a_bad_call_is_refused_naming_the_argument(call, exception, message):
    with pytest.raises(exception) as error:
        call()
    assert str(error.value).startswith(message)


def test_utc_text_rounds_to_the_second():
    assert utc_text(2451545.0) == "2000-01-01T12:00:00Z"
    assert utc_text(2451545.0 + 0.6 / 86400.0) == "2000-01-01T12:00:01Z"
