"""The reference page of scenario files lists every key of the code, with the code's default.

``docs/reference/scenario-files.rst`` documents each table of a scenario file in a
list-table of (key, type or unit, default, meaning). The defaults are defined once, in
the section classes of :mod:`ssa_privacy.studies.scenario` (and the sensor classes
behind ``SensorSpec``); this test reads the page's tables and checks that each lists
exactly the keys of its table in the code, each with the default the code uses.
"""

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from ssa_privacy.studies.scenario import (
    EarthSpec,
    FilterSpec,
    ObjectsSpec,
    PrivacySpec,
    SensorSpec,
    SsaScenario,
    WindowSpec,
)
from ssa_privacy.studies.scenario import sensors as sensor_keys

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "scenario-files.rst"
#: The page's words for "no value" (the key is absent or None in the code).
NONE_WORDS = ("none", "the catalogue rule", "the whole circle", "unlimited")
REQUIRED = "required"


def _page():
    if not PAGE.is_file():
        pytest.skip("docs/reference/scenario-files.rst is not in this checkout")
    return PAGE.read_text(encoding="utf-8")


def _sections(text):
    """The page's sections by title: heading line followed by an underline of dashes."""
    lines = text.splitlines()
    heads = [k for k in range(len(lines) - 1) if re.fullmatch(r"-{3,}", lines[k + 1])]
    heads.append(len(lines))
    return {lines[a]: "\n".join(lines[a + 2 : b]) for a, b in zip(heads, heads[1:])}


def _tables(section):
    """Each list-table of a section as {key: default text}, header row left out."""
    tables = []
    for block in re.split(r"\.\. list-table::", section)[1:]:
        rows, cells = [], None
        for line in block.splitlines():
            if line.startswith("   * - "):
                cells = [line[7:].strip()]
                rows.append(cells)
            elif cells is not None and re.match(r"^     -( |$)", line):
                cells.append(line[6:].strip())
            elif cells is not None and line.startswith("       "):
                cells[-1] += " " + line.strip()
            elif line.strip() and not line.startswith("   "):
                break
        header, *body = rows
        assert header[:3] in (["key", "type", "default"], ["key", "unit", "default"]), header
        tables.append({row[0].strip("`"): row[2] for row in body})
    return tables


def _value(text):
    """A default as the page writes it: a literal, a word for None, or per sensor kind."""
    text = text.replace("``", "")
    if text == REQUIRED:
        return REQUIRED
    if text in NONE_WORDS:
        return None
    kinds = re.fullmatch(r"(.+) \(radar\), (.+) \(optical\)", text)
    if kinds:
        return {"radar": _value(kinds.group(1)), "optical": _value(kinds.group(2))}
    return ast.literal_eval(text)


def _code(value):
    return list(value) if isinstance(value, tuple) else value


def _section_defaults(cls):
    instance = cls()
    return {f.name: _code(getattr(instance, f.name)) for f in dataclasses.fields(cls)}


def _sensor_defaults(keys):
    """Each sensor key's default: required, one value, or one per kind if they differ."""
    fields = {f.name: f for f in dataclasses.fields(SensorSpec)}
    built = {
        "radar": SensorSpec(name="x", latitude_deg=0.0, longitude_deg=0.0),
        "optical": SensorSpec(name="x", latitude_deg=0.0, longitude_deg=0.0, kind="optical"),
    }
    out = {}
    for key in keys:
        if fields[key].default is dataclasses.MISSING:
            out[key] = REQUIRED
            continue
        if key == "kind":  # the kind left out
            out[key] = built["radar"].kind
            continue
        values = {k: _code(getattr(s, key)) for k, s in built.items() if key in s.to_dict()}
        values = values or {"radar": None}
        same = len({repr(v) for v in values.values()}) == 1
        out[key] = next(iter(values.values())) if same else values
    return out


def _documented():
    sections = _sections(_page())
    by_table = {}
    for title, body in sections.items():
        found = re.match(r"``\[\[?(\w+)\]\]?``", title)
        name = "top" if title == "Top-level keys" else found.group(1) if found else None
        if name is not None:
            by_table[name] = _tables(body)
    return by_table


def _expected():
    top = {
        "description": {f.name: f.default for f in dataclasses.fields(SsaScenario)}["description"],
        "sensors_file": None,  # no sensors file: the [[sensors]] tables
    }
    return {
        "top": [top],
        "window": [_section_defaults(WindowSpec)],
        "objects": [_section_defaults(ObjectsSpec)],
        "earth": [_section_defaults(EarthSpec)],
        "sensors": [
            _sensor_defaults(sensor_keys._COMMON_KEYS),
            _sensor_defaults(sensor_keys._KIND_KEYS["radar"]),
            _sensor_defaults(sensor_keys._KIND_KEYS["optical"]),
        ],
        "privacy": [_section_defaults(PrivacySpec)],
        "filter": [_section_defaults(FilterSpec)],
    }


def test_every_table_of_the_page_lists_the_code_keys():
    documented, expected = _documented(), _expected()
    assert sorted(documented) == sorted(expected)
    for name, tables in expected.items():
        assert [sorted(t) for t in documented[name]] == [sorted(t) for t in tables], name


@pytest.mark.parametrize(
    ("table", "index", "key"),
    [
        (name, k, key)
        for name, tables in _expected().items()
        for k, t in enumerate(tables)
        for key in t
    ],
)
def test_each_documented_default_is_the_code_default(table, index, key):
    written = _documented()[table][index][key]
    assert _value(written) == _expected()[table][index][key], (table, key, written)
