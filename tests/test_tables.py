"""Tables streamed to Parquet: task order whatever the arrival order, exact values, the
CSV of the rows, and nothing left by an interrupted stream."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssa_privacy.engine.output import StudyOutput, rows_to_csv
from ssa_privacy.engine.tables import TableStream, header, read_rows

pytest.importorskip("pyarrow")

SCHEMA = [
    ("norad_id", "int"),
    ("level", "str"),
    ("rmse_km", "float"),
    ("consistent", "bool"),
    ("nees", "floats"),
    ("scaled_km", "float"),
]

_floats = st.floats(allow_nan=False) | st.none()
_row = st.fixed_dictionaries(
    {"norad_id": st.integers(-(2**63), 2**63 - 1), "level": st.text(max_size=5)},
    optional={
        "rmse_km": _floats,
        "consistent": st.booleans() | st.none(),
        "nees": st.lists(st.floats(allow_nan=False), max_size=3),
        "scaled_km": _floats,
    },
)
# Tasks of 0-3 rows each, finishing in a permuted order.
_tasks = st.lists(st.lists(_row, max_size=3), min_size=1, max_size=6).flatmap(
    lambda tasks: st.tuples(st.just(tasks), st.permutations(range(len(tasks))))
)


def _stream(path, tasks, arrival):
    with TableStream(path, SCHEMA) as stream:
        for index in arrival:
            stream.append(tasks[index], index)
    return stream


@given(_tasks)
def test_the_file_holds_the_rows_in_task_order_and_its_csv_is_that_of_the_rows(
    tmp_path_factory, case
):
    """Whatever order the tasks finish in, the rows read back are those appended, in task
    order, value for value (a left-out column is None), and the streamed CSV is the CSV
    of the rows themselves (rows_to_csv: the header is the union of their keys in order)."""
    tasks, arrival = case
    folder = tmp_path_factory.mktemp("tables")
    _stream(folder / "t.parquet", tasks, arrival)
    expected = [row for rows in tasks for row in rows]
    back = list(read_rows(folder / "t.parquet"))
    assert back == [{key: row.get(key) for key in header(folder / "t.parquet")} for row in expected]
    output = StudyOutput(folder / "out", "test", {})
    output.write_csv_stream("t.csv", header(folder / "t.parquet"), back)
    with open(folder / "out" / "t.csv", encoding="utf-8", newline="") as written:
        assert written.read() == rows_to_csv(expected)


def test_infinities_and_extreme_integers_are_kept(tmp_path):
    rows = [{"norad_id": 2**63 - 1, "rmse_km": math.inf}, {"norad_id": -1, "rmse_km": -math.inf}]
    _stream(tmp_path / "t.parquet", [rows], [0])
    assert [(r["norad_id"], r["rmse_km"]) for r in read_rows(tmp_path / "t.parquet")] == [
        (2**63 - 1, math.inf),
        (-1, -math.inf),
    ]


@pytest.mark.parametrize(
    "row, words",
    [
        ({"norad_id": 1, "orbit": "leo"}, "columns ['orbit'] are not in the schema"),
        ({"norad_id": "one"}, "column 'norad_id'"),
        ({"norad_id": 1, "nees": 2.0}, "column 'nees'"),
    ],
)
def test_a_row_that_does_not_fit_the_schema_is_refused_by_name(tmp_path, row, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        _stream(tmp_path / "t.parquet", [[row]], [0])
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_kind_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="column 'x' has kind 'complex'"):
        TableStream(tmp_path / "t.parquet", [("x", "complex")])


def test_an_interrupted_stream_leaves_no_file(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with TableStream(tmp_path / "t.parquet", SCHEMA) as stream:
            stream.append([{"norad_id": 1}], 0)
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
