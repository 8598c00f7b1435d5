"""Physical constants of the Earth, each defined once, with its units and source.

Two sets coexist on purpose:

- the constants of the 3D propagator and of the sensors (WGS-84 ellipsoid, EGM-96
  gravity field), used by :mod:`ssa_privacy.orbits` and :mod:`ssa_privacy.sensors`;
- the constants of the planar model as printed in [TCB] Table 1 (``TCB_*``), used by
  :class:`ssa_privacy.orbits.planar.PlanarJ2Model` so that the satellite study reproduces the
  paper. They differ from the first set in the last digits (JGM-3 era values).

See :doc:`/theory/planar-j2` and :doc:`/theory/orbits-and-sensors`.

References
----------
National Imagery and Mapping Agency, "Department of Defense World Geodetic System 1984",
TR8350.2, 3rd ed. (WGS-84 ellipsoid and Earth rotation rate); F. G. Lemoine et al., "The
development of the joint NASA GSFC and NIMA geopotential model EGM96", NASA/TP-1998-206861
(mu and J2); D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed.,
2013, Appendix D (constants) and the SGP4 code accompanying Ch. 9 (Earth rotation rate).
"""

__all__ = [
    "J2_EARTH",
    "MU_EARTH",
    "OMEGA_EARTH",
    "R_EARTH",
    "TCB_ALTITUDE",
    "TCB_J2",
    "TCB_MU",
    "TCB_R_E",
    "WGS84_A",
    "WGS84_F",
]

#: WGS-84 semi-major axis, the Earth's equatorial radius (km).
WGS84_A = 6378.137
#: WGS-84 flattening (dimensionless).
WGS84_F = 1.0 / 298.257223563
#: Earth's equatorial radius (km), the WGS-84 semi-major axis: the same number as
#: :data:`WGS84_A`, named for its role in the gravity field.
R_EARTH = WGS84_A
#: Earth's gravitational parameter GM (km^3/s^2), EGM-96 / WGS-84.
MU_EARTH = 398600.4418
#: Earth's second zonal harmonic J2 (dimensionless), EGM-96. The planar model uses
#: instead the dimensional product ``mu * J2 * R_e^2`` (:data:`TCB_J2`).
J2_EARTH = 1.08262668e-3
#: Earth's rotation rate with respect to inertial space (rad/s), the value of Vallado's
#: SGP4 code (WGS-84 rounds it to 7.292115e-5). The Greenwich mean sidereal time grows
#: faster, by the precession of the equinox (7.1e-12 rad/s).
OMEGA_EARTH = 7.292115146706979e-5

#: Earth radius of the planar model (km), [TCB] Table 1; the model's length unit.
TCB_R_E = 6378.1363
#: Gravitational parameter of the planar model (km^3/s^2), [TCB] Table 1.
TCB_MU = 398600.4415
#: J2 coefficient of the planar model (km^5/s^2), [TCB] Table 1: the dimensional product
#: ``mu * J2 * R_e^2`` (dimensionless J2 = 1.08262e-3 with the two constants above).
TCB_J2 = 1.7555e10
#: Altitude of the planar model's initial circular orbit (km), [TCB] Table 1.
TCB_ALTITUDE = 340.0
