"""Scenario files: one TOML file describes a whole SSA design study.

A scenario file (:doc:`/reference/scenario-files`) names the observation window, the
objects (a catalogue file and which of its objects), the Earth's orientation model, the
sensors (radars and optical telescopes with their sites, limits and noise), the privacy
levels and the filter's process noise. :func:`load_scenario` reads one into an
:class:`SsaScenario` of section dataclasses (:class:`WindowSpec`, :class:`ObjectsSpec`,
:class:`EarthSpec`, :class:`SensorSpec`, :class:`PrivacySpec`, :class:`FilterSpec`), each
checked when it is made; :func:`default_scenario` is the shipped ``scenarios/default.toml``,
the ``ssa-catalog`` study as it ran before scenario files (the eight radars of
:mod:`ssa_privacy.sensors.networks`). :func:`read_stations` reads a sensor network alone,
from a TOML file of ``[[sensors]]`` tables or a GeoJSON FeatureCollection of Points, and
:func:`with_overrides` replaces the catalogue, the sensors or single keys (the command
line's options), recording what it replaced.

Units are in the key names and fixed: ``_deg`` degrees, ``_arcsec`` arcseconds, ``_km``
kilometres, ``_km_s`` km/s, ``_s`` seconds, ``_min`` minutes, ``hours``, ``_days``; budgets
in nats; ``process_noise_psd`` in km^2/s^3. A key with another unit suffix (say
``elevation_min_rad``) is an unknown key, and the error names the key to use.
:meth:`SensorSpec.build` converts to the package's internal units (rad, km, km/s).

Every error is a :class:`ScenarioError` (a :class:`ValueError`) whose message is one line
naming the file, the line where the key was found, the dotted key (``sensors[2].latitude_deg``
and the sensor's name) and what is wrong; a value given as an override is named as it
was given (``--hours``, :func:`with_overrides`). A key left out takes its default,
defined once in the section classes (:doc:`/reference/scenario-files` lists them).
:func:`check_window` and :func:`check_objects` check a scenario against its catalogue
and the Earth orientation table before a study computes anything. The record of a scenario for ``results.json``
(:meth:`SsaScenario.as_record`) holds the file's text, its SHA-256 and its path, with the
files it pulled in and the overrides.

Relative file names (``objects.catalogue``, ``sensors_file``) are looked up beside the
scenario file first, then in the data folder (:func:`ssa_privacy.engine.data.data_file`);
the shipped default's, in the data folder only (:func:`resolve`).

References
----------
TOML v1.0.0 (https://toml.io/en/v1.0.0), read with :mod:`tomllib`; H. Butler et al.,
"The GeoJSON Format", RFC 7946 (2016): §3.1.1 positions are [longitude, latitude,
altitude], §4 in WGS 84 decimal degrees with the altitude in metres above the WGS 84
ellipsoid; SHA-256: FIPS 180-4.
"""

from ssa_privacy.studies.scenario import (
    checks,
    files,
    overrides,
    reading,
    sections,
    sensors,
    ssa_scenario,
    writing,
)
from ssa_privacy.studies.scenario.checks import *  # noqa: F403
from ssa_privacy.studies.scenario.files import *  # noqa: F403
from ssa_privacy.studies.scenario.overrides import *  # noqa: F403
from ssa_privacy.studies.scenario.reading import *  # noqa: F403
from ssa_privacy.studies.scenario.sections import *  # noqa: F403
from ssa_privacy.studies.scenario.sensors import *  # noqa: F403
from ssa_privacy.studies.scenario.ssa_scenario import *  # noqa: F403
from ssa_privacy.studies.scenario.writing import *  # noqa: F403

__all__ = [
    *checks.__all__,
    *sections.__all__,
    *sensors.__all__,
    *files.__all__,
    *ssa_scenario.__all__,
    *reading.__all__,
    *overrides.__all__,
    *writing.__all__,
]
