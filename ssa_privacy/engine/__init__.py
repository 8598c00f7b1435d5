"""The engine every study runs on: tasks, where they run, and what they write.

- :mod:`ssa_privacy.engine.runner`: the :class:`~ssa_privacy.engine.runner.Runner` (serial,
  process pool, Dask), with :mod:`ssa_privacy.engine.checkpoints` and
  :mod:`ssa_privacy.engine.dask_backend`;
- :mod:`ssa_privacy.engine.output`: a study's results tables and figures;
- :mod:`ssa_privacy.engine.tables`: tables streamed to Parquet as the tasks finish;
- :mod:`ssa_privacy.engine.transaction`: an output folder replaced as a whole;
- :mod:`ssa_privacy.engine.figures`: figure sets at a two-column paper's width;
- :mod:`ssa_privacy.engine.data`: the real data sets, read from a path.

The package imports nothing on its own, so that the command line starts fast; import the
module you need.
"""

__all__ = []
