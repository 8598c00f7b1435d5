"""The ``[[sensors]]`` entries of a scenario file: radars and optical sites.

Part of :mod:`ssa_privacy.studies.scenario`.
"""

import dataclasses
import math
import unicodedata
from dataclasses import dataclass

from ssa_privacy.sensors.networks import ELEVATION_MASK, NOISE_STD
from ssa_privacy.sensors.optical import ARCSEC, OpticalStation
from ssa_privacy.sensors.stations import SITE_HEIGHT_RANGE_KM, GroundStation, sensor_name_problem
from ssa_privacy.studies.scenario.checks import (
    _MEASUREMENT_ROWS,
    SENSOR_KINDS,
    ScenarioError,
    _array,
    _choice,
    _number,
    _positive,
    _set,
    _string,
)

__all__ = [
    "SensorSpec",
]


_COMMON_KEYS = (
    "name",
    "kind",
    "latitude_deg",
    "longitude_deg",
    "height_km",
    "elevation_min_deg",
    "azimuth_sector_deg",
    "range_max_km",
    "epsilon_offset",
)
#: Keys of one kind only.
_KIND_KEYS = {
    "radar": (
        "azimuth_noise_deg",
        "elevation_noise_deg",
        "range_noise_km",
        "range_rate_noise_km_s",
    ),
    "optical": (
        "right_ascension_noise_arcsec",
        "declination_noise_arcsec",
        "sun_elevation_max_deg",
    ),
}

#: Unit of each noise key (1 sigma, > 0).
_NOISE_UNITS = {
    "azimuth_noise_deg": "deg",
    "elevation_noise_deg": "deg",
    "range_noise_km": "km",
    "range_rate_noise_km_s": "km/s",
    "right_ascension_noise_arcsec": "arcsec",
    "declination_noise_arcsec": "arcsec",
}


def _radar_defaults():
    """Defaults of a radar's keys (file units): :mod:`ssa_privacy.sensors.networks`."""
    return {
        "elevation_min_deg": float(ELEVATION_MASK),
        "azimuth_noise_deg": _clean(math.degrees(NOISE_STD[0])),
        "elevation_noise_deg": _clean(math.degrees(NOISE_STD[1])),
        "range_noise_km": float(NOISE_STD[2]),
        "range_rate_noise_km_s": float(NOISE_STD[3]),
    }


def _optical_defaults():
    """Defaults of an optical sensor's keys (file units): ``OpticalStation``'s own defaults."""
    defaults = {f.name: f.default for f in dataclasses.fields(OpticalStation)}
    noise = defaults["noise_std"]
    return {
        "elevation_min_deg": float(defaults["elevation_mask"]),
        "right_ascension_noise_arcsec": _clean(float(noise[0]) / ARCSEC),
        "declination_noise_arcsec": _clean(float(noise[1]) / ARCSEC),
        "sun_elevation_max_deg": float(defaults["sun_elevation_max"]),
    }


def _clean(value):
    """A converted default without its last-digit noise (12 significant digits)."""
    return float(f"{value:.12g}")


@dataclass(frozen=True)
class SensorSpec:
    """One sensor: a ``[[sensors]]`` table (or a GeoJSON Point's properties).

    Parameters
    ----------
    name : str
        Label, unique in the scenario: one line of visible text, not blank, without
        blanks at either end (the outputs hold it as written).
    latitude_deg, longitude_deg : float
        WGS-84 geodetic latitude in [-90, 90] and longitude in [-360, 360] (deg, east
        positive).
    height_km : float
        Height above the WGS-84 ellipsoid (km), in [-1, 10]; default 0.
    kind : {"radar", "optical"}
        A radar measures (azimuth, elevation, range, range rate)
        (:class:`~ssa_privacy.sensors.stations.GroundStation`); an optical sensor
        (right ascension, declination) (``ssa_privacy.sensors.optical.OpticalStation``).
        Default ``"radar"``.
    elevation_min_deg : float, optional
        Elevation mask (deg) in [0, 90); default 5 (radar,
        :data:`~ssa_privacy.sensors.networks.ELEVATION_MASK`) or ``OpticalStation``'s.
    azimuth_sector_deg : sequence of 2 floats, optional
        Field of regard in azimuth ``[from, to]`` (deg in [0, 360], clockwise from north,
        inclusive); ``from > to`` wraps through north; ``[0, 360]`` is the whole circle;
        ``from == to`` (no width) is refused. None: the whole circle.
    range_max_km : float, optional
        Largest range of a measurement (km), > 0; None: unlimited.
    epsilon_offset : float
        Nats added to each pass budget of this sensor; default 0.
    azimuth_noise_deg, elevation_noise_deg, range_noise_km, range_rate_noise_km_s : float, optional
        Radar only: noise (1 sigma) in deg, deg, km, km/s, > 0; defaults
        :data:`~ssa_privacy.sensors.networks.NOISE_STD` (0.02 deg, 0.01 deg, 0.09 km,
        1e-4 km/s).
    right_ascension_noise_arcsec, declination_noise_arcsec : float, optional
        Optical only: noise (1 sigma) in arcsec, > 0; defaults ``OpticalStation``'s.
    sun_elevation_max_deg : float, optional
        Optical only: the site observes while the Sun is at most this high (deg) in
        [-90, 90]; default ``OpticalStation``'s.

    Raises
    ------
    ScenarioError
        Naming the key (without the ``sensors[i].`` prefix, which the file reader adds):
        a missing name or site, a name the outputs cannot hold (blank, blanks at an end, a
        control or invisible character), a wrong type, a value out of range (a latitude outside
        [-90, 90]), an empty azimuth sector (``from == to``), an unknown kind, or a key of
        the other kind (a radar noise key on an optical sensor and vice versa).

    Notes
    -----
    Values are kept in the file's units; :meth:`build` converts. Site: Vallado,
    *Fundamentals of Astrodynamics and Applications*, 4th ed., §3.2 (WGS-84 geodetic
    coordinates).
    """

    name: str
    latitude_deg: float
    longitude_deg: float
    height_km: float = 0.0
    kind: str = "radar"
    elevation_min_deg: float | None = None
    azimuth_sector_deg: tuple | None = None
    range_max_km: float | None = None
    epsilon_offset: float = 0.0
    azimuth_noise_deg: float | None = None
    elevation_noise_deg: float | None = None
    range_noise_km: float | None = None
    range_rate_noise_km_s: float | None = None
    right_ascension_noise_arcsec: float | None = None
    declination_noise_arcsec: float | None = None
    sun_elevation_max_deg: float | None = None

    def __post_init__(self):
        problem = sensor_name_problem(_string(self.name, "name"))
        if problem is not None:
            raise ScenarioError(problem, key="name")
        kind = _choice(self.kind, "kind", SENSOR_KINDS)
        other = SENSOR_KINDS[1 - SENSOR_KINDS.index(kind)]
        for key in _KIND_KEYS[other]:
            if getattr(self, key) is not None:
                raise ScenarioError(_wrong_kind(key, kind), key=key)
        _set(
            self,
            "latitude_deg",
            _number(self.latitude_deg, "latitude_deg", low=-90.0, high=90.0, unit="deg"),
        )
        _set(
            self,
            "longitude_deg",
            _number(self.longitude_deg, "longitude_deg", low=-360.0, high=360.0, unit="deg"),
        )
        low, high = SITE_HEIGHT_RANGE_KM
        if not isinstance(self.height_km, bool) and isinstance(self.height_km, int | float):
            if math.isfinite(self.height_km) and not low <= self.height_km <= high:
                raise ScenarioError(
                    f"a ground site's height must lie in [{low:g}, {high:g}] km, got "
                    f"{self.height_km:g} (metres given as km?)",
                    key="height_km",
                )
        _set(self, "height_km", _number(self.height_km, "height_km", unit="km"))
        defaults = _radar_defaults() if kind == "radar" else _optical_defaults()
        for key, value in defaults.items():
            if getattr(self, key) is None:
                _set(self, key, value)
        _set(
            self,
            "elevation_min_deg",
            _number(
                self.elevation_min_deg,
                "elevation_min_deg",
                low=0.0,
                high=90.0,
                high_open=True,
                unit="deg",
            ),
        )
        for key in _KIND_KEYS[kind]:
            if key in _NOISE_UNITS:
                _set(self, key, _positive(getattr(self, key), key, _NOISE_UNITS[key]))
        if kind == "optical":
            sun = _number(
                self.sun_elevation_max_deg,
                "sun_elevation_max_deg",
                low=-90.0,
                high=90.0,
                unit="deg",
            )
            _set(self, "sun_elevation_max_deg", sun)
        if self.azimuth_sector_deg is not None:
            _set(self, "azimuth_sector_deg", _sector(self.azimuth_sector_deg))
        if self.range_max_km is not None:
            _set(self, "range_max_km", _positive(self.range_max_km, "range_max_km", "km"))
        _set(self, "epsilon_offset", _number(self.epsilon_offset, "epsilon_offset", unit="nats"))

    @property
    def measurement_rows(self):
        """Rows of one measurement: 4 for a radar, 2 for an optical sensor."""
        return _MEASUREMENT_ROWS[self.kind]

    def build(self):
        """The sensor as a station object, in the package's internal units.

        Returns
        -------
        GroundStation or OpticalStation
            A radar: :class:`~ssa_privacy.sensors.stations.GroundStation` with
            ``noise_std`` (rad, rad, km, km/s); an optical sensor:
            ``ssa_privacy.sensors.optical.OpticalStation`` with ``noise_std`` (rad, rad) and
            ``sun_elevation_max`` (deg). Site in deg and km, ``elevation_mask`` in deg;
            ``azimuth_sector`` (deg) and ``range_max`` (km) only when given.

        Raises
        ------
        ValueError, TypeError
            As the station classes (the values were checked here, so only on a station
            class that refuses what this module allows).

        Notes
        -----
        1 arcsec = pi / 648000 rad (``ssa_privacy.sensors.optical.ARCSEC``).
        """
        limits = {}
        if self.azimuth_sector_deg is not None:
            limits["azimuth_sector"] = self.azimuth_sector_deg
        if self.range_max_km is not None:
            limits["range_max"] = self.range_max_km
        site = (self.name, self.latitude_deg, self.longitude_deg, self.height_km)
        if self.kind == "radar":
            noise = (
                math.radians(self.azimuth_noise_deg),
                math.radians(self.elevation_noise_deg),
                self.range_noise_km,
                self.range_rate_noise_km_s,
            )
            return GroundStation(*site, self.elevation_min_deg, noise, **limits)
        noise = (
            self.right_ascension_noise_arcsec * ARCSEC,
            self.declination_noise_arcsec * ARCSEC,
        )
        return OpticalStation(
            *site,
            elevation_mask=self.elevation_min_deg,
            noise_std=noise,
            sun_elevation_max=self.sun_elevation_max_deg,
            **limits,
        )

    def to_dict(self):
        """The sensor's keys and values (file units), None values left out, in file order.

        Returns
        -------
        dict
            JSON- and TOML-able (the sector as a list).
        """
        out = {}
        for key in _COMMON_KEYS + _KIND_KEYS[self.kind]:
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out


def _repeated_name(sensors):
    """(k, first) of the first sensor whose name an earlier one has, or None.

    Names are compared as Unicode NFC: two that differ only in how an accented letter is
    composed look the same and are the same."""
    names = [unicodedata.normalize("NFC", sensor.name) for sensor in sensors]
    for k, name in enumerate(names):
        if name in names[:k]:
            return k, names.index(name)
    return None


def _wrong_kind(key, kind):
    other = SENSOR_KINDS[1 - SENSOR_KINDS.index(kind)]
    keys = ", ".join(_KIND_KEYS[kind])
    article = "an" if other[0] in "aeiou" else "a"
    return (
        f"is a key of {article} {other} sensor, this sensor's kind is {kind!r} (its keys: {keys})"
    )


def _sector(value):
    sector = _array(value, "azimuth_sector_deg")
    if len(sector) != 2:
        raise ScenarioError(
            f"must be [from, to] (2 numbers, deg), got {len(sector)} values",
            key="azimuth_sector_deg",
        )
    sector = tuple(
        _number(v, f"azimuth_sector_deg[{k}]", low=0.0, high=360.0, unit="deg")
        for k, v in enumerate(sector)
    )
    start, stop = sector
    if (stop - start if stop >= start else stop - start + 360.0) == 0.0:
        same = "from = to" if start == stop else "from and to are the same azimuth"
        raise ScenarioError(
            f"is empty: {same} ({start:g} to {stop:g} deg, clockwise); use [0, 360] or "
            "leave the key out for the whole circle",
            key="azimuth_sector_deg",
        )
    return sector
