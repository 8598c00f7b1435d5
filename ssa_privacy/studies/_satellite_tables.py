"""Table 3 of the satellite study ([TCB] §5.1): rows, the paper's values, the comparison.

Every function reads the study's index sets from its design (``design.alphas``,
``design.components`` and ``design.training``, the training points on the dense grid).
"""

import numpy as np

from ssa_privacy.studies import _dp_rows as dp
from ssa_privacy.studies._common import mean_std, rmse

__all__ = [
    "AUTHORS_CSV",
    "PAPER_TABLE3",
    "comparison",
    "table_rows",
    "zero_mean_rows",
]

#: [TCB] Table 3, average RMSE over the four outputs (paper's alpha convention; the
#: DP-cloaking rows are keyed by epsilon).
PAPER_TABLE3 = {
    ("privacy-aware", 0.1): 0.3343,
    ("privacy-aware", 0.5): 0.3045,
    ("privacy-aware", 0.9): 0.1912,
    ("stationary", 0.1): 1.0412,
    ("stationary", 0.5): 0.3268,
    ("stationary", 0.9): 0.0663,
    (dp.METHOD, 0.3): 0.8878,
    (dp.METHOD, 0.5): 0.5327,
    (dp.METHOD, 1.0): 0.2663,
}
#: The authors' results CSV (commit 7b65a1f), per output then average; their alpha
#: label a means paper alpha 1 - a, already converted here (:doc:`/theory/privacy-aware-gp`).
AUTHORS_CSV = {
    ("privacy-aware", 0.1): (0.000074, 0.000496, 1.336169, 0.000554, 0.334323),
    ("privacy-aware", 0.5): (0.000083, 0.000560, 1.576380, 0.001067, 0.394523),
    ("privacy-aware", 0.9): (0.000048, 0.000348, 0.763929, 0.000554, 0.191220),
    ("stationary", 0.1): (0.000264, 0.002348, 4.159171, 0.002843, 1.041157),
    ("stationary", 0.5): (0.000149, 0.001665, 1.303963, 0.001464, 0.326810),
    ("stationary", 0.9): (0.000123, 0.001535, 0.262526, 0.001073, 0.066314),
    ("dropout", None): (0.000290, 0.001970, 1.117435, 0.003199, 0.280723),
    (dp.METHOD, 0.3): (0.000307, 0.002185, 3.545108, 0.003494, 0.887773),
    (dp.METHOD, 0.5): (0.000184, 0.001311, 2.127065, 0.002096, 0.532664),
    (dp.METHOD, 1.0): (0.000092, 0.000656, 1.063533, 0.001048, 0.266332),
}


def table_rows(design, reps, dropout, dropout_times, cloaking):
    """Table 3: RMSE and time per method, alpha (or epsilon) and output.

    Output rows give the mean and standard deviation over seeds; the AVERAGE row gives,
    as the paper's Table 3 does, the mean over the four outputs of their seed means with
    the standard deviation across the outputs, and the time over all seeds and outputs.
    Privacy-aware times are per release (the draw and the reconstruction); the one-off
    certified design of Sigma_opt of each output is in ``design_time_s``. DP-cloaking
    times are per release; the one-off design of each output's noise shape is in
    ``design_time_s``. AVERAGE rows give the mean design time over the outputs.

    Parameters
    ----------
    design : satellite.Design
        The study's fitted GPs, grids and mechanisms.
    reps : list of dict
        The Table 3 replications (``satellite.replicate``).
    dropout : list of ndarray
        Dropout means on the dense grid, one per output.
    dropout_times : list of float
        Dropout fit and prediction times (s).
    cloaking : dict
        The DP-cloaking results (``satellite.dp_cloaking_results``).

    Returns
    -------
    list of dict
        The rows of ``results.csv``, in the order privacy-aware, stationary (each by
        alpha), DP-cloaking (by epsilon), Dropout.
    """
    Y, grid, outputs = design.Y, design.training, range(len(design.components))
    rows = []
    for method, key in (("privacy-aware", "pa_mean"), ("stationary", "stationary")):
        for alpha in design.alphas:
            errors = [[rmse(r[key][alpha, c][grid], Y[:, c]) for r in reps] for c in outputs]
            times = [t for r in reps for t in r["times"][method, alpha]]
            method_rows = _method_rows(design.components, method, alpha, None, errors, times)
            if method == "privacy-aware":
                seconds = [design.design_times[alpha, c][0] for c in outputs]
                for row, value in zip(method_rows, seconds + [float(np.mean(seconds))]):
                    row["design_time_s"] = value
            rows += method_rows
    rows += _dp_method_rows(design, cloaking)
    errors = [[rmse(dropout[c][grid], Y[:, c])] for c in outputs]
    return rows + _method_rows(design.components, "dropout", None, None, errors, dropout_times)


def _dp_method_rows(design, cloaking):
    """The DP-cloaking rows, one block per epsilon, with each release's check."""
    Y, grid, rows = design.Y, design.training, []
    design_times = [cloak.time_s for cloak in cloaking["designs"]]
    for epsilon in dp.EPSILONS:
        errors = [
            [rmse(v[grid], Y[:, c]) for v in cloaking["values"][epsilon, c]]
            for c in range(len(design.components))
        ]
        records = [
            [r for r in cloaking["records"] if r["epsilon"] == epsilon and r["output"] == name]
            for name in design.components
        ]
        times = cloaking["times"][epsilon]
        rows += _method_rows(
            design.components, dp.METHOD, None, epsilon, errors, times, design_times, records
        )
    return rows


def _method_rows(
    components, method, alpha, epsilon, errors, times, design_times=None, records=None
):
    """The output rows (errors[c]: one RMSE per seed) and the AVERAGE row."""
    rows = [
        _row(method, alpha, epsilon, name, mean_std(e), None, c)
        for c, (name, e) in enumerate(zip(components, errors))
    ]
    means = [row["rmse_mean"] for row in rows]
    average = len(components)
    rows.append(_row(method, alpha, epsilon, "AVERAGE", mean_std(means), mean_std(times), average))
    if design_times is not None:
        design_times = list(design_times) + [float(np.mean(design_times))]
        records = list(records) + [[r for by_output in records for r in by_output]]
        for row, seconds, released in zip(rows, design_times, records):
            row.update(
                design_time_s=seconds,
                releases=len(released),
                checks_passed=all(r["check_passed"] for r in released),
                max_exact_delta=max(r["check_exact_delta"] for r in released),
            )
    return rows


def _row(method, alpha, epsilon, output, rmse_stats, time_stats, column):
    """One row; ``column`` indexes the authors' CSV (output c, then the AVERAGE)."""
    average = output == "AVERAGE"
    row = {
        "method": method,
        "alpha": alpha,
        "epsilon": epsilon,
        "delta": dp.DELTA if epsilon else None,
        "output": output,
        "rmse_mean": rmse_stats[0],
        "rmse_std": rmse_stats[1],
        "rmse_std_over": "outputs (the paper's +-)" if average else "seeds",
    }
    if time_stats is not None:
        row["time_mean_s"], row["time_std_s"] = time_stats
    level = epsilon if method == dp.METHOD else alpha
    row["paper_table3_rmse"] = PAPER_TABLE3.get((method, level)) if average else None
    csv = AUTHORS_CSV.get((method, level))
    row["authors_csv_rmse"] = csv[column] if csv else None
    return row


def zero_mean_rows(design, rep):
    """Figure 7's model (beta = 0): RMSE per output for one seed, as the authors ran it.

    Parameters
    ----------
    design : satellite.Design
        The zero-mean design.
    rep : dict
        Its replication 0 (``satellite.replicate``).

    Returns
    -------
    list of dict
        One row per alpha and output, then the AVERAGE over the outputs.
    """
    rows = []
    outputs = range(len(design.components))
    for a in design.alphas:
        errors = [rmse(rep["pa_mean"][a, c][design.training], design.Y[:, c]) for c in outputs]
        for name, error in zip(design.components + ("AVERAGE",), errors + [float(np.mean(errors))]):
            rows.append(
                {
                    "method": "privacy-aware (zero mean)",
                    "alpha": a,
                    "output": name,
                    "rmse_mean": error,
                    "rmse_std": None,
                    "rmse_std_over": "one seed",
                }
            )
    return rows


def comparison(rows, seeds, alphas):
    """Privacy-aware GP and DP-cloaking AVERAGE rows side by side.

    Parameters
    ----------
    rows : list of dict
        :func:`table_rows`.
    seeds : int
        The Table 3 replications both methods are averaged over.
    alphas : sequence of float
        The privacy-aware levels, paired in order with the epsilons.

    Returns
    -------
    list of dict
        :func:`._dp_rows.comparison`, each row with ``seeds``.
    """
    average = [r for r in rows if r["output"] == "AVERAGE"]
    pa = {r["alpha"]: r for r in average if r["method"] == "privacy-aware"}
    cloaking = {r["epsilon"]: r for r in average if r["method"] == dp.METHOD}
    dropout = next(r["rmse_mean"] for r in average if r["method"] == "dropout")
    return [
        {**r, "seeds": seeds} for r in dp.comparison(pa, cloaking, dropout, alphas, PAPER_TABLE3)
    ]
