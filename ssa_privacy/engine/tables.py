"""Tables streamed to Parquet as a run's tasks finish, and read back in task order.

A study of many tasks (the ssa-catalog study over the whole catalogue) writes each task's
rows to disk when the task finishes and drops them, so that the run's memory does not
grow with its number of tasks. :class:`TableStream` appends rows to a Parquet file
(Apache Parquet through ``pyarrow``) under a schema the study declares, so that every
row group has the same typed columns and any Parquet reader (pyarrow, pandas, polars,
DuckDB) reads the file as one table. The tasks finish in an order that depends on the
runner; each append carries its task's index, and closing the stream writes the final
file with the row groups in task order (one group at a time), so that the file does not
depend on the runner. Both files are written under temporary names and renamed: an
interrupted run leaves no file that looks complete.

A schema is a sequence of ``(column, kind)`` with the kinds of :data:`KINDS`. Any cell
may be None (empty), and a row may leave a column out. The file records the columns the
rows had, in the order they first appeared (the header of the CSV table), as its
metadata :data:`HEADER_KEY`; :func:`read_rows` and :func:`header` read them back.
"""

import json
import os
from pathlib import Path

import numpy as np

from ssa_privacy.engine.output import atomic_path

__all__ = ["HEADER_KEY", "KINDS", "TableStream", "header", "read_rows"]

#: The column kinds of a schema and what they hold.
KINDS = {
    "int": "64-bit integer",
    "float": "64-bit float (infinities kept)",
    "bool": "boolean",
    "str": "text",
    "floats": "list of 64-bit floats",
}
#: The Parquet metadata key of the columns the rows had, in order (a JSON list).
HEADER_KEY = "ssa_privacy.header"


def _arrow_schema(schema):
    """The pyarrow schema of ``(column, kind)`` pairs; a ValueError names a bad kind."""
    import pyarrow as pa

    types = {
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "str": pa.string(),
        "floats": pa.list_(pa.float64()),
    }
    fields = []
    for column, kind in schema:
        if kind not in types:
            raise ValueError(
                f"schema: column {column!r} has kind {kind!r}, not one of {sorted(KINDS)}"
            )
        fields.append(pa.field(column, types[kind]))
    return pa.schema(fields)


def _plain(value):
    """A numpy scalar or array as the Python value pyarrow converts exactly."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


class TableStream:
    """Rows appended to a Parquet file as tasks finish (module docstring).

    Parameters
    ----------
    path : str or Path
        The Parquet file; it appears there, in task order, when the stream is closed.
    schema : sequence of tuple of str
        ``(column, kind)`` in the order of the columns (:data:`KINDS`).

    Raises
    ------
    ValueError
        If a kind is unknown.
    ModuleNotFoundError
        If pyarrow is not installed.

    Notes
    -----
    Use it as a context manager: the file is written when the block ends normally, and
    the partial file removed when it ends with an error (an interrupted run).
    """

    def __init__(self, path, schema):
        import pyarrow.parquet as pq

        self.path = Path(path)
        self.schema = _arrow_schema(schema)
        self._partial = self.path.with_name(f".{self.path.name}.arrival.part")
        self._writer = pq.ParquetWriter(self._partial, self.schema)
        self._groups = []  # (task index, row group of the partial file)
        self._keys = {}  # distinct key orders of the appends -> first task index
        self.rows = 0

    def append(self, rows, index):
        """Append the rows of one task as one row group.

        Parameters
        ----------
        rows : list of dict
            Column -> value; a missing column is None. Numpy scalars and arrays are
            converted to Python numbers and lists.
        index : int
            The task's index: the final file has the row groups in this order.

        Raises
        ------
        ValueError
            If a row has a column the schema does not declare, or a value does not fit
            its column's kind (the message names the column).
        """
        import pyarrow as pa

        if not rows:
            return
        keys = tuple(dict.fromkeys(key for row in rows for key in row))
        stray = [key for key in keys if key not in self.schema.names]
        if stray:
            raise ValueError(f"rows: columns {stray} are not in the schema of {self.path.name}")
        arrays = []
        for field in self.schema:
            values = [_plain(row.get(field.name)) for row in rows]
            try:
                arrays.append(pa.array(values, type=field.type))
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as error:
                raise ValueError(
                    f"rows: column {field.name!r} of {self.path.name} ({field.type}): {error}"
                ) from error
        self._writer.write_table(pa.Table.from_arrays(arrays, schema=self.schema))
        self._groups.append(index)
        self._keys[keys] = min(index, self._keys.get(keys, index))
        self.rows += len(rows)

    def header(self):
        """The columns the rows appended so far had.

        Returns
        -------
        list of str
            Every column some row had, in the order they first appeared, the tasks
            taken in task order (the header of the table's CSV file).
        """
        ordered = sorted(self._keys.items(), key=lambda item: item[1])
        return list(dict.fromkeys(key for keys, _ in ordered for key in keys))

    def close(self):
        """Write the final file, row groups in task order, and delete the partial one."""
        import pyarrow.parquet as pq

        self._writer.close()
        try:
            source = pq.ParquetFile(self._partial)
            schema = self.schema.with_metadata({HEADER_KEY: json.dumps(self.header())})
            with atomic_path(self.path) as temporary:
                with pq.ParquetWriter(temporary, schema) as writer:
                    for group in np.argsort(self._groups, kind="stable"):
                        table = source.read_row_group(int(group))
                        writer.write_table(table.replace_schema_metadata(schema.metadata))
        finally:
            self._partial.unlink(missing_ok=True)

    def abandon(self):
        """Close and delete the partial file (the run failed or was interrupted)."""
        self._writer.close()
        self._partial.unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None:
            self.close()
        else:
            self.abandon()


def header(path):
    """The columns the rows of a :class:`TableStream` file had, in order.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    list of str
        The recorded header (every column of the schema if the file has none).
    """
    import pyarrow.parquet as pq

    schema = pq.read_schema(os.fspath(path))
    recorded = (schema.metadata or {}).get(HEADER_KEY.encode())
    return schema.names if recorded is None else json.loads(recorded)


def read_rows(path, columns=None):
    """Yield the rows of a Parquet file as dicts, one row group at a time.

    Parameters
    ----------
    path : str or Path
        The file (:class:`TableStream`).
    columns : sequence of str, optional
        Only these columns (default: those of :func:`header`).

    Yields
    ------
    dict
        Column -> value (None for an empty cell), in the order of ``columns``.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    """
    import pyarrow.parquet as pq

    columns = header(path) if columns is None else list(columns)
    source = pq.ParquetFile(os.fspath(path))
    for group in range(source.num_row_groups):
        yield from source.read_row_group(group, columns=columns).to_pylist()
