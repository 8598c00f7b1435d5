"""The ssa-catalog study's tables, streamed to Parquet as its tasks finish.

Each finished task's rows go to one Parquet file per table
(:class:`~ssa_privacy.engine.tables.TableStream`, in the run's output folder) and are
dropped, so that a whole-catalogue run does not hold them all: ``results.parquet``,
``per_measurement.parquet``, ``consistency.parquet``, ``detectability.parquet``,
``day_budgets.parquet`` (with day budgets) and ``nees_series.parquet`` (each filter's
NEES at the evaluation times). What the run keeps in memory is small beside them: the
certificate counts (summed), the mechanism classes, the J2-against-SGP4 differences (one
number per object), the brute-force detectability checks (one object) and, with
``--ccsds``, what the messages hold. The CSV tables and the summaries are made from the
Parquet files when the tasks are done.
"""

from array import array

import numpy as np

from ssa_privacy.engine.tables import TableStream, header, read_rows
from ssa_privacy.studies.ssa_catalog.rows import RESULTS_COLUMNS
from ssa_privacy.studies.ssa_catalog.summaries import certificate_summary

__all__ = ["SCHEMAS", "CatalogTables", "nees_by_filter"]

_TRACKING = [
    ("position_rmse_km", "float"),
    ("velocity_rmse_m_s", "float"),
]
_CONSISTENCY = [("nees_mean", "float"), ("nis_per_dof", "float")]

#: The columns of each table and their kinds (:data:`~ssa_privacy.engine.tables.KINDS`),
#: in the order of its CSV file; the task result's key of each table's rows.
SCHEMAS = {
    "results": ("rows", list(RESULTS_COLUMNS)),
    "per_measurement": (
        "per_measurement",
        [
            ("norad_id", "int"),
            ("epsilon_measurement", "float"),
            ("epsilon_pass_median", "float"),
            ("epsilon_pass_max", "float"),
            ("epsilon_day", "float"),
            ("passes", "int"),
        ],
    ),
    "consistency": (
        "consistency",
        [
            ("norad_id", "int"),
            ("level", "str"),
            ("designer", "str"),
            ("status", "str"),
            ("nis_per_dof", "float"),
            ("dof", "int"),
            ("band_low", "float"),
            ("band_high", "float"),
            ("consistent", "bool"),
            ("nees_mean", "float"),
            ("nees_band_low", "float"),
            ("nees_band_high", "float"),
            ("nees_consistent", "bool"),
        ],
    ),
    "detectability": (
        "detectability",
        [
            ("norad_id", "int"),
            ("level", "str"),
            ("designer", "str"),
            ("scope", "str"),
            ("direction", "str"),
            ("magnitude_m_s", "float"),
            ("epsilon_achieved", "float"),
            *[(name, "float") for name in ("auc", "tpr", "auc_linear", "tpr_linear")],
            *[(name, "float") for name in ("auc_cap", "tpr_cap", "auc_low", "auc_high")],
            *[(name, "float") for name in ("tpr_low", "tpr_high")],
        ],
    ),
    "day_budgets": (
        "day_rows",
        [
            ("norad_id", "int"),
            ("regime", "str"),
            ("passes", "int"),
            ("status", "str"),
            ("level", "str"),
            ("epsilon_day", "float"),
            ("designer", "str"),
            ("chosen", "str"),
            ("feasible", "bool"),
            ("epsilon_day_achieved", "float"),
            ("certificate_passed", "bool"),
            ("certificate_margin", "float"),
            *_TRACKING,
            ("updates_rejected", "int"),
            *_CONSISTENCY,
            ("reason", "str"),
        ],
    ),
    "nees_series": (
        "nees",
        [("norad_id", "int"), ("level", "str"), ("designer", "str"), ("nees", "floats")],
    ),
}


class CatalogTables:
    """The run's tables as its tasks finish (module docstring).

    Parameters
    ----------
    output : StudyOutput
        The run's output: the Parquet files are written to its folder.

    Notes
    -----
    A context manager: the files are completed when the block ends normally and
    removed when it ends with an error.
    """

    def __init__(self, output):
        self.output = output
        self.streams = {
            name: TableStream(output.target(f"{name}.parquet"), schema)
            for name, (_, schema) in SCHEMAS.items()
        }
        self.certificates = {}
        self.mechanisms = {}
        self.sgp4_difference_km = {}
        self.detectability_checks = {}
        self.ccsds = {}

    def add(self, index, result):
        """Stream one task's rows and keep its small parts.

        Parameters
        ----------
        index : int
            The task's index (the tables are in task order).
        result : dict
            :func:`~ssa_privacy.studies.ssa_catalog.task.catalog_task`'s result.
        """
        for name, (key, _) in SCHEMAS.items():
            self.streams[name].append(result[key], index)
        self.certificates = certificate_summary([self.certificates, *result["certificates"]])
        self.mechanisms.update(result["mechanisms"])
        self.sgp4_difference_km[index] = result["sgp4_difference_km"]
        self.detectability_checks[index] = result["detectability_checks"]
        if result["ccsds"]:
            self.ccsds[index] = result["ccsds"]

    def in_task_order(self, part):
        """A kept part (``sgp4_difference_km``, ``detectability_checks``, ``ccsds``) of
        every task, concatenated in task order."""
        by_task = getattr(self, part)
        return [item for index in sorted(by_task) for item in by_task[index]]

    def rows(self, name):
        """The rows of a table (a list of dict, in task order)."""
        return list(self.iterate(name))

    def iterate(self, name):
        """The rows of a table, one at a time (for one too large to hold)."""
        return read_rows(self.output.target(f"{name}.parquet"))

    def has_rows(self, name):
        """Whether the table has a row."""
        return self.streams[name].rows > 0

    def write_csv(self, name):
        """Write ``<name>.csv`` from the table, streamed (the rows of the task results'
        dicts: a cell a row left out is empty, as :func:`~ssa_privacy.engine.output.rows_to_csv`)."""
        path = self.output.target(f"{name}.parquet")
        self.output.write_csv_stream(f"{name}.csv", header(path), read_rows(path))

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        for stream in self.streams.values():
            if kind is None:
                stream.close()
            else:
                stream.abandon()


def nees_by_filter(rows):
    """The NEES series per filter, stacked over the objects.

    Parameters
    ----------
    rows : iterable of dict
        ``nees_series`` rows: ``level``, ``designer``, ``nees`` (E,), None at the times
        not measured (before the end of the object's first contact).

    Returns
    -------
    dict
        ``(level, designer)`` -> ndarray (objects, E), NaN where not measured, in the
        order the filters first appear.
    """
    stacked, times = {}, 0
    for row in rows:
        values = [np.nan if v is None else v for v in row["nees"]]
        stacked.setdefault((row["level"], row["designer"]), array("d")).extend(values)
        times = len(row["nees"])
    return {key: np.frombuffer(values).reshape(-1, times) for key, values in stacked.items()}
