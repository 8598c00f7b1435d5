"""Write a study's figures in parallel, on the workers of its runner.

A study with several many-panel figures spends much of its time drawing them (about 1.5
s for a 4 x 3 grid as PNG and PDF). :func:`save_figures` hands each figure to the
study's :class:`~ssa_privacy.engine.runner.Runner` as one task: the task builds the figure
from a module-level builder function and its arguments, in the house style
(:data:`~ssa_privacy.engine.transaction.FIGURE_STYLE`), and writes its files into the output
folder being written. Figure tasks are not checkpointed: the files belong to the run
that draws them.
"""

from ssa_privacy.engine.output import write_figure
from ssa_privacy.engine.runner import Runner, Task
from ssa_privacy.engine.transaction import FIGURE_STYLE

__all__ = [
    "render_figure",
    "save_figures",
]


def render_figure(builder, arguments, targets):
    """Build one figure with ``builder(**arguments)`` and write it to ``targets``.

    Parameters
    ----------
    builder : callable
        Module-level function returning a matplotlib figure.
    arguments : dict
        Its keyword arguments.
    targets : list of Path
        Files to write (:meth:`~ssa_privacy.engine.output.StudyOutput.figure_targets`).
    """
    import matplotlib

    with matplotlib.rc_context(FIGURE_STYLE):
        write_figure(builder(**arguments), targets)


def save_figures(output, jobs, runner=None):
    """Build and write several figures, one runner task each.

    Parameters
    ----------
    output : ssa_privacy.engine.output.StudyOutput
        The study's output; the figures are recorded in it.
    jobs : dict
        File stem -> ``(builder, arguments)``: a module-level function returning a
        matplotlib figure and its keyword arguments (picklable).
    runner : ssa_privacy.engine.runner.Runner, optional
        The study's runner: its process pool draws the figures; with a serial or a Dask
        runner (whose workers may not see this machine's disk) they are drawn here.

    Returns
    -------
    list of Path
        The written files in the output folder (see
        :meth:`~ssa_privacy.engine.output.StudyOutput.path`), PNG and PDF per stem.
    """
    tasks = [
        Task(
            ("figure", stem),
            {"builder": builder, "arguments": arguments, "targets": output.figure_targets(stem)},
        )
        for stem, (builder, arguments) in jobs.items()
    ]
    if runner is None or runner.backend != "process-pool":
        runner = Runner(workers=1, progress=False)
    runner.map(render_figure, tasks, name="figures", checkpoint=False)
    return [output.path(target.name) for task in tasks for target in task.arguments["targets"]]
