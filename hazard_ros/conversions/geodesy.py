"""GPS and air data: a local east-north-up tangent plane (the ``map`` frame, REP 103/105) around a
datum (lat, lon, alt in degrees / metres) on the WGS-84 ellipsoid, first-order (sub-millimetre
error within a few hundred metres of the datum); ISA pressure altitude, range finders.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from builtin_interfaces.msg import Time
from sensor_msgs.msg import NavSatFix, NavSatStatus

from hazard_ros.conversions.poses import GRAVITY
from hazard_ros.conversions.stamps import to_ros_header

WGS84_A = 6378137.0                # semi-major axis (m)
WGS84_F = 1.0 / 298.257223563      # flattening
WGS84_E2 = WGS84_F * (2.0 - WGS84_F)


def _radii(lat_deg: float) -> tuple[float, float]:
    """Meridian and prime-vertical radii of curvature (m) at a latitude."""
    s2 = math.sin(math.radians(lat_deg)) ** 2
    n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * s2)
    m = WGS84_A * (1.0 - WGS84_E2) / (1.0 - WGS84_E2 * s2) ** 1.5
    return m, n


def local_to_geodetic(x: float, y: float, z: float, datum: Sequence[float]) -> tuple[float, float, float]:
    """(lat, lon, alt) of a point (east x, north y, up z) of the tangent plane at ``datum``."""
    lat0, lon0, alt0 = datum
    m, n = _radii(lat0)
    return (lat0 + math.degrees(y / m), lon0 + math.degrees(x / (n * math.cos(math.radians(lat0)))),
            alt0 + z)


def geodetic_to_local(lat: float, lon: float, alt: float, datum: Sequence[float]) -> tuple[float, float, float]:
    """Inverse of :func:`local_to_geodetic`: (east, north, up) metres from the datum."""
    lat0, lon0, alt0 = datum
    m, n = _radii(lat0)
    return (math.radians(lon - lon0) * n * math.cos(math.radians(lat0)), math.radians(lat - lat0) * m,
            alt - alt0)


def to_ros_navsatfix(xyz, datum: Sequence[float], stamp: Time, frame_id: str = "gps_link",
                     sigma_m: float = 0.0) -> NavSatFix:
    lat, lon, alt = local_to_geodetic(*(float(v) for v in xyz), datum)
    var = max(sigma_m, 1e-3) ** 2
    return NavSatFix(header=to_ros_header(stamp, frame_id),
                     status=NavSatStatus(status=NavSatStatus.STATUS_FIX, service=NavSatStatus.SERVICE_GPS),
                     latitude=lat, longitude=lon, altitude=alt,
                     position_covariance=[var, 0.0, 0.0, 0.0, var, 0.0, 0.0, 0.0, var],
                     position_covariance_type=NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN)


def from_ros_navsatfix(msg: NavSatFix, datum: Sequence[float]) -> np.ndarray:
    """Local (east, north, up) position of a fix in the tangent plane at ``datum``."""
    if msg.status.status < NavSatStatus.STATUS_FIX:
        raise ValueError("NavSatFix has no fix (status < STATUS_FIX)")
    return np.array(geodetic_to_local(msg.latitude, msg.longitude, msg.altitude, datum))


ISA_P0, ISA_T0, ISA_LAPSE, ISA_M, ISA_R = 101325.0, 288.15, 0.0065, 0.0289644, 8.31446


def isa_pressure(altitude_m: float) -> float:
    """Static pressure (Pa) of the ICAO standard atmosphere at ``altitude_m`` above sea level
    (troposphere, below 11 km): ``p0 (1 - L h / T0) ^ (g M / (R L))``."""
    return ISA_P0 * (1.0 - ISA_LAPSE * float(altitude_m) / ISA_T0) ** (GRAVITY * ISA_M / (ISA_R * ISA_LAPSE))


def isa_altitude(pressure_pa: float) -> float:
    """Inverse of :func:`isa_pressure`: pressure altitude (m)."""
    return ISA_T0 / ISA_LAPSE * (1.0 - (float(pressure_pa) / ISA_P0) ** (ISA_R * ISA_LAPSE / (GRAVITY * ISA_M)))


def to_ros_range(distance: float, stamp: Time, frame_id: str, min_range: float = 0.1, max_range: float = 1000.0,
                 fov: float = 0.05):
    """sensor_msgs/Range of a downward rangefinder (height above the ground). Out of range:
    +inf above ``max_range``, -inf below ``min_range`` (REP 117)."""
    from sensor_msgs.msg import Range
    d = float(distance)
    if d > max_range:
        d = math.inf
    elif d < min_range:
        d = -math.inf
    return Range(header=to_ros_header(stamp, frame_id), radiation_type=Range.INFRARED, field_of_view=float(fov),
                 min_range=float(min_range), max_range=float(max_range), range=d)


def to_ros_fluid_pressure(altitude_m: float, stamp: Time, frame_id: str, sigma_pa: float = 1.0):
    """sensor_msgs/FluidPressure (Pa) a barometer reads at ``altitude_m`` above sea level (ISA)."""
    from sensor_msgs.msg import FluidPressure
    return FluidPressure(header=to_ros_header(stamp, frame_id), fluid_pressure=isa_pressure(altitude_m),
                         variance=float(sigma_pa) ** 2)
