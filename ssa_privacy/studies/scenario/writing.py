"""Writing a scenario back as TOML.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import json
from pathlib import Path

from ssa_privacy.engine.output import write_text_atomic
from ssa_privacy.studies.scenario.ssa_scenario import SsaScenario

__all__ = [
    "scenario_toml",
    "write_scenario",
]


# -- writing -----------------------------------------------------------------------------------


def _toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def scenario_toml(scenario):
    """A scenario as the text of a scenario file, every value written out.

    Parameters
    ----------
    scenario : SsaScenario
        The scenario.

    Returns
    -------
    str
        TOML text that :func:`load_scenario` reads back to an equal scenario (the sensors
        written as ``[[sensors]]`` tables, a sensors file's content included).

    Raises
    ------
    TypeError
        If ``scenario`` is not an SsaScenario.

    Notes
    -----
    TOML v1.0.0: basic strings (JSON escapes are valid TOML escapes), floats as
    :func:`repr` (shortest round-trip decimal).
    """
    if not isinstance(scenario, SsaScenario):
        raise TypeError(f"scenario must be an SsaScenario, got {type(scenario).__name__}")
    values = scenario.to_dict()
    lines = []
    if "description" in values:
        lines += [f"description = {_toml_value(values.pop('description'))}", ""]
    sensors = values.pop("sensors")
    for name, table in values.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
        lines.append("")
    for sensor in sensors:
        lines.append("[[sensors]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in sensor.items()]
        lines.append("")
    return "\n".join(lines)


def write_scenario(scenario, path):
    """Write a scenario file (:func:`scenario_toml`), atomically.

    Parameters
    ----------
    scenario : SsaScenario
        The scenario.
    path : str or path-like
        Target file (replaced).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    TypeError
        If ``scenario`` is not an SsaScenario.
    OSError
        If the file cannot be written.

    Notes
    -----
    :func:`ssa_privacy.engine.output.write_text_atomic`.
    """
    path = Path(path)
    write_text_atomic(path, scenario_toml(scenario))
    return path
