"""numpy / core values <-> ROS 2 messages (``to_ros_*`` / ``from_ros_*``).

Pure functions: message classes only, no rclpy import, so everything here is
tested by building messages in memory. Conventions:

* Time: the simulator's frame ``n`` is the sim time ``n * FRAME_DT`` (0.1 s),
  converted with integer nanoseconds so a stamp maps back to its frame exactly.
* Images (REP 118): ``rgb8`` (H, W, 3) uint8, ``32FC1`` (H, W) float32 (depth
  in metres with +inf where nothing was hit, temperature in C, water level in m),
  ``32SC1`` (H, W) int32 instance ids, plus ``mono8`` / ``16UC1`` on input.
* Transforms are 4x4 homogeneous matrices ``parent_T_child`` (maps child
  coordinates into the parent frame), quaternions are (x, y, z, w).
* GPS: a local east-north-up tangent plane (the ``map`` frame, REP 103/105)
  around a datum (lat, lon, alt in degrees / metres) on the WGS-84 ellipsoid,
  first-order (sub-millimetre error within a few hundred metres of the datum).
"""
from __future__ import annotations

import json
import math
import sys
from array import array
from typing import Iterable, Mapping, Sequence

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, Quaternion, Transform, TransformStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image, Imu, NavSatFix, NavSatStatus, PointCloud2, PointField
from std_msgs.msg import Header, String

from hazard_sim import rotations
from hazard_sim.rotations import matrix_to_quaternion, quaternion_to_matrix  # noqa: F401 (re-exported)

FRAME_DT_NS = 100_000_000          # 0.1 s per simulator frame (hazard_sim.world.FRAME_DT)
GRAVITY = 9.80665                  # m/s^2, what an accelerometer at rest reads (+z)
WGS84_A = 6378137.0                # semi-major axis (m)
WGS84_F = 1.0 / 298.257223563      # flattening
WGS84_E2 = WGS84_F * (2.0 - WGS84_F)

# encoding -> (numpy dtype, channels)
IMAGE_ENCODINGS = {
    "rgb8": (np.uint8, 3), "bgr8": (np.uint8, 3), "rgba8": (np.uint8, 4), "bgra8": (np.uint8, 4),
    "mono8": (np.uint8, 1), "8UC1": (np.uint8, 1), "mono16": (np.uint16, 1), "16UC1": (np.uint16, 1),
    "32FC1": (np.float32, 1), "32SC1": (np.int32, 1), "64FC1": (np.float64, 1),
}


# ============================================================================ time
def stamp_from_frame(frame: int, frame_dt_ns: int = FRAME_DT_NS) -> Time:
    """builtin_interfaces/Time of simulator frame ``frame`` (exact, integer ns)."""
    if frame < 0:
        raise ValueError(f"frame must be >= 0, got {frame}")
    ns = int(frame) * int(frame_dt_ns)
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def time_to_ns(stamp: Time) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def time_to_sec(stamp: Time) -> float:
    return time_to_ns(stamp) * 1e-9


def frame_from_stamp(stamp: Time, frame_dt_ns: int = FRAME_DT_NS) -> int:
    """Inverse of :func:`stamp_from_frame` (rounds to the nearest frame)."""
    return int(round(time_to_ns(stamp) / frame_dt_ns))


def to_ros_clock(frame: int) -> Clock:
    return Clock(clock=stamp_from_frame(frame))


def to_ros_header(stamp: Time, frame_id: str) -> Header:
    return Header(stamp=stamp, frame_id=frame_id)


# ============================================================================ JSON strings
def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"cannot encode {type(o).__name__} as JSON")


def to_ros_json(obj) -> String:
    """std_msgs/String carrying ``obj`` as JSON (numpy values and sets allowed)."""
    return String(data=json.dumps(obj, default=_json_default, sort_keys=True))


def from_ros_json(msg: String):
    try:
        return json.loads(msg.data)
    except json.JSONDecodeError as exc:
        raise ValueError(f"std_msgs/String does not hold JSON: {exc}; data={msg.data[:80]!r}") from None


# ============================================================================ images
def _bytes_array(buf) -> array:
    a = array("B")
    a.frombytes(memoryview(buf).cast("B"))
    return a


def to_ros_image(img: np.ndarray, stamp: Time, frame_id: str, encoding: str | None = None) -> Image:
    """sensor_msgs/Image from an (H, W) or (H, W, C) array; encoding inferred from
    the dtype when not given (uint8x3 rgb8, uint8 mono8, uint16 16UC1, float32
    32FC1, int32 32SC1)."""
    img = np.asarray(img)
    if img.ndim not in (2, 3):
        raise ValueError(f"image must be (H, W) or (H, W, C), got shape {img.shape}")
    channels = 1 if img.ndim == 2 else img.shape[2]
    if encoding is None:
        guess = {(np.uint8, 3): "rgb8", (np.uint8, 4): "rgba8", (np.uint8, 1): "mono8",
                 (np.uint16, 1): "16UC1", (np.float32, 1): "32FC1", (np.int32, 1): "32SC1",
                 (np.float64, 1): "64FC1"}
        encoding = guess.get((img.dtype.type, channels))
        if encoding is None:
            raise ValueError(f"no image encoding for dtype {img.dtype} with {channels} channel(s)")
    if encoding not in IMAGE_ENCODINGS:
        raise ValueError(f"unsupported image encoding {encoding!r}; known: {sorted(IMAGE_ENCODINGS)}")
    dtype, want = IMAGE_ENCODINGS[encoding]
    if channels != want:
        raise ValueError(f"encoding {encoding} needs {want} channel(s), image has {channels}")
    img = np.ascontiguousarray(img, dtype=np.dtype(dtype).newbyteorder("="))
    msg = Image(header=to_ros_header(stamp, frame_id), height=img.shape[0], width=img.shape[1],
                encoding=encoding, is_bigendian=int(sys.byteorder == "big"),
                step=img.shape[1] * channels * img.itemsize)
    msg.data = _bytes_array(img)
    return msg


def from_ros_image(msg: Image) -> np.ndarray:
    """(H, W) or (H, W, C) numpy array of an Image (row padding and byte order handled)."""
    if msg.encoding not in IMAGE_ENCODINGS:
        raise ValueError(f"unsupported image encoding {msg.encoding!r}; known: {sorted(IMAGE_ENCODINGS)}")
    dtype, channels = IMAGE_ENCODINGS[msg.encoding]
    dt = np.dtype(dtype).newbyteorder(">" if msg.is_bigendian else "<")
    row = msg.width * channels * dt.itemsize
    if msg.step < row or len(msg.data) < msg.step * msg.height:
        raise ValueError(f"image data too short: step {msg.step}, {len(msg.data)} bytes for "
                         f"{msg.height}x{msg.width} {msg.encoding}")
    raw = np.frombuffer(msg.data, np.uint8, count=msg.step * msg.height).reshape(msg.height, msg.step)
    out = raw[:, :row].copy().view(dt).astype(dt.newbyteorder("="), copy=False)
    return out.reshape(msg.height, msg.width, channels) if channels > 1 else out.reshape(msg.height, msg.width)


def to_ros_camera_info(K: np.ndarray, width: int, height: int, stamp: Time, frame_id: str) -> CameraInfo:
    """CameraInfo of an ideal pinhole (plumb_bob, zero distortion, P = [K | 0])."""
    K = np.asarray(K, float).reshape(3, 3)
    P = np.zeros((3, 4))
    P[:, :3] = K
    return CameraInfo(header=to_ros_header(stamp, frame_id), width=int(width), height=int(height),
                      distortion_model="plumb_bob", d=[0.0] * 5, k=K.ravel().tolist(),
                      r=np.eye(3).ravel().tolist(), p=P.ravel().tolist())


def from_ros_camera_info(msg: CameraInfo) -> np.ndarray:
    """The 3x3 intrinsic matrix K (``msg.width`` / ``msg.height`` give the size)."""
    K = np.asarray(msg.k, float).reshape(3, 3)
    if K[2, 2] == 0.0:
        raise ValueError("CameraInfo is uncalibrated (K is all zeros)")
    return K


# ============================================================================ rotations / transforms
def yaw_to_quaternion(yaw: float) -> Quaternion:
    x, y, z, w = rotations.yaw_to_quaternion(yaw)
    return Quaternion(x=float(x), y=float(y), z=float(z), w=float(w))


def quaternion_to_yaw(q: Quaternion) -> float:
    return rotations.quaternion_to_yaw((q.x, q.y, q.z, q.w))


def planar_matrix(x: float, y: float, yaw: float, z: float = 0.0) -> np.ndarray:
    """4x4 pose of a body at (x, y, z) rotated by ``yaw`` about +z."""
    c, s = math.cos(yaw), math.sin(yaw)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    T[:3, 3] = (x, y, z)
    return T


def to_ros_pose(T: np.ndarray) -> Pose:
    T = np.asarray(T, float)
    x, y, z, w = matrix_to_quaternion(T[:3, :3])
    p = Pose()
    p.position.x, p.position.y, p.position.z = (float(v) for v in T[:3, 3])
    p.orientation = Quaternion(x=float(x), y=float(y), z=float(z), w=float(w))
    return p


def from_ros_pose(pose: Pose) -> np.ndarray:
    o, p = pose.orientation, pose.position
    T = np.eye(4)
    T[:3, :3] = quaternion_to_matrix([o.x, o.y, o.z, o.w])
    T[:3, 3] = (p.x, p.y, p.z)
    return T


def to_ros_transform(T: np.ndarray, stamp: Time, parent: str, child: str) -> TransformStamped:
    """TransformStamped ``parent_T_child`` (child coordinates -> parent)."""
    T = np.asarray(T, float)
    x, y, z, w = matrix_to_quaternion(T[:3, :3])
    msg = TransformStamped(header=to_ros_header(stamp, parent), child_frame_id=child)
    tr = msg.transform.translation
    tr.x, tr.y, tr.z = (float(v) for v in T[:3, 3])
    msg.transform.rotation = Quaternion(x=float(x), y=float(y), z=float(z), w=float(w))
    return msg


def from_ros_transform(msg: Transform | TransformStamped) -> np.ndarray:
    """4x4 matrix of a Transform or TransformStamped."""
    t = msg.transform if isinstance(msg, TransformStamped) else msg
    T = np.eye(4)
    r, p = t.rotation, t.translation
    T[:3, :3] = quaternion_to_matrix([r.x, r.y, r.z, r.w])
    T[:3, 3] = (p.x, p.y, p.z)
    return T


def to_ros_tf_message(transforms: Iterable[TransformStamped]):
    from tf2_msgs.msg import TFMessage  # built from interfaces/ on pip-only machines
    return TFMessage(transforms=list(transforms))


# ============================================================================ odometry / IMU / GPS
def to_ros_odometry(x: float, y: float, yaw: float, vx: float, wz: float, stamp: Time,
                    frame_id: str = "odom", child_frame_id: str = "base_link", vy: float = 0.0,
                    z: float = 0.0, vz: float = 0.0, planar: bool = True) -> Odometry:
    """Odometry: pose in ``frame_id``, twist in ``child_frame_id`` (REP 105). ``planar`` (a
    ground body): z, roll and pitch are unknown (large covariance); a flying body
    (``planar=False``) gives its height ``z`` and climb rate ``vz`` with small covariance."""
    msg = Odometry(header=to_ros_header(stamp, frame_id), child_frame_id=child_frame_id)
    msg.pose.pose.position.x, msg.pose.pose.position.y = float(x), float(y)
    msg.pose.pose.position.z = float(z)
    msg.pose.pose.orientation = yaw_to_quaternion(yaw)
    msg.twist.twist.linear.x, msg.twist.twist.linear.y = float(vx), float(vy)
    msg.twist.twist.linear.z = float(vz)
    msg.twist.twist.angular.z = float(wz)
    cov = np.diag([1e-6, 1e-6, 1e6, 1e6, 1e6, 1e-6] if planar else [1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6])
    msg.pose.covariance = cov.ravel()
    msg.twist.covariance = cov.ravel()
    return msg


def from_ros_odometry(msg: Odometry) -> tuple[float, float, float]:
    """(x, y, yaw) of the pose."""
    p = msg.pose.pose
    return p.position.x, p.position.y, quaternion_to_yaw(p.orientation)


def to_ros_imu(yaw: float, wz: float, accel_xy, stamp: Time, frame_id: str = "imu_link") -> Imu:
    """IMU of a body that keeps level (a walking or driving body, a flying body whose tilt is
    not modelled): orientation (yaw, in ENU), yaw rate, and specific force = body-frame
    acceleration plus gravity on +z. ``accel_xy`` is (ax, ay) or (ax, ay, az) m/s^2."""
    msg = Imu(header=to_ros_header(stamp, frame_id))
    msg.orientation = yaw_to_quaternion(yaw)
    msg.angular_velocity.z = float(wz)
    a = [float(v) for v in accel_xy]
    msg.linear_acceleration.x, msg.linear_acceleration.y = a[0], a[1]
    msg.linear_acceleration.z = GRAVITY + (a[2] if len(a) > 2 else 0.0)
    msg.orientation_covariance = np.diag([1e-6] * 3).ravel()
    msg.angular_velocity_covariance = np.diag([1e-6] * 3).ravel()
    msg.linear_acceleration_covariance = np.diag([1e-4] * 3).ravel()
    return msg


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


# ============================================================================ point clouds
_XYZ_FIELDS = [PointField(name=n, offset=4 * k, datatype=PointField.FLOAT32, count=1)
               for k, n in enumerate("xyz")]
_POINTFIELD_DTYPES = {PointField.INT8: "i1", PointField.UINT8: "u1", PointField.INT16: "i2",
                      PointField.UINT16: "u2", PointField.INT32: "i4", PointField.UINT32: "u4",
                      PointField.FLOAT32: "f4", PointField.FLOAT64: "f8"}


def to_ros_pointcloud2(points: np.ndarray, stamp: Time, frame_id: str) -> PointCloud2:
    """Unordered PointCloud2 with float32 fields x, y, z of an (N, 3) array
    (non-finite points are dropped)."""
    pts = np.asarray(points, np.float32).reshape(-1, 3)
    pts = np.ascontiguousarray(pts[np.isfinite(pts).all(axis=1)], dtype="<f4")
    msg = PointCloud2(header=to_ros_header(stamp, frame_id), height=1, width=len(pts),
                      fields=[PointField(name=f.name, offset=f.offset, datatype=f.datatype, count=1)
                              for f in _XYZ_FIELDS],
                      is_bigendian=False, point_step=12, row_step=12 * len(pts), is_dense=True)
    msg.data = _bytes_array(pts)
    return msg


def from_ros_pointcloud2(msg: PointCloud2) -> np.ndarray:
    """(N, 3) float32 x, y, z of any PointCloud2 that has those fields."""
    fields = {f.name: f for f in msg.fields}
    missing = [n for n in "xyz" if n not in fields]
    if missing:
        raise ValueError(f"PointCloud2 has no field(s) {missing}; fields: {sorted(fields)}")
    order = ">" if msg.is_bigendian else "<"
    dt = np.dtype({"names": list("xyz"),
                   "formats": [order + _POINTFIELD_DTYPES[fields[n].datatype] for n in "xyz"],
                   "offsets": [fields[n].offset for n in "xyz"], "itemsize": msg.point_step})
    n = msg.width * msg.height
    rows = np.frombuffer(msg.data, np.uint8, count=msg.row_step * msg.height).reshape(msg.height, msg.row_step)
    rec = np.ascontiguousarray(rows[:, :msg.width * msg.point_step]).view(dt).reshape(n)
    return np.stack([rec[c].astype(np.float32) for c in "xyz"], axis=1)


# ============================================================================ labels
def to_ros_label_info(labels: Mapping[int, str], stamp: Time, frame_id: str = "", threshold: float = 0.0):
    """vision_msgs/LabelInfo mapping instance ids (0..65535) to label names."""
    from vision_msgs.msg import LabelInfo, VisionClass
    bad = [i for i in labels if not 0 <= int(i) <= 0xFFFF]
    if bad:
        raise ValueError(f"LabelInfo class ids are uint16; out of range: {bad[:5]}")
    return LabelInfo(header=to_ros_header(stamp, frame_id), threshold=float(threshold),
                     class_map=[VisionClass(class_id=int(i), class_name=str(n)) for i, n in sorted(labels.items())])


def from_ros_label_info(msg) -> dict[int, str]:
    return {int(c.class_id): c.class_name for c in msg.class_map}


# ============================================================================ action outcomes
def to_trigger_message(status, text: str) -> str:
    """A std_srvs/Trigger message carrying an action's typed status: ``"[status] text"``
    (the status is machine-readable; clients branch on it, not on the text)."""
    return f"[{status}] {text}"


def from_trigger_message(message: str):
    """``(Status, text)`` of a message made by :func:`to_trigger_message`; the status is
    ``Status.INVALID`` for a message without one (e.g. from another robot's driver)."""
    from hazard_sim.core.outcome import Status
    if message.startswith("[") and "] " in message:
        code, text = message[1:].split("] ", 1)
        try:
            return Status(code), text
        except ValueError:
            pass
    return Status.INVALID, message


# ============================================================================ altimeter
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


# ============================================================================ world markers / paths
def _rgba(color, alpha: float = 1.0):
    from std_msgs.msg import ColorRGBA
    r, g, b = (float(c) / 255.0 for c in color[:3])
    return ColorRGBA(r=r, g=g, b=b, a=float(alpha))


def to_ros_markers(markers, stamp: Time, frame_id: str = "map", ns: str = "world", labels: bool = True,
                   clear: bool = True, alpha: float = 1.0):
    """visualization_msgs/MarkerArray of :class:`hazard_sim.core.markers.WorldMarker` s:
    CUBE / CYLINDER / SPHERE (pose + scale = size) or TRIANGLE_LIST (``mesh``: three points per
    triangle, per-vertex colours), marker id = the world id, namespace ``ns``; with ``labels``
    a TEXT_VIEW_FACING marker (namespace ``ns + "_labels"``) above each shape. ``clear``
    starts with a DELETEALL so markers of things that left the world disappear."""
    from visualization_msgs.msg import Marker, MarkerArray
    header = to_ros_header(stamp, frame_id)
    out = [Marker(header=header, ns=ns, action=Marker.DELETEALL)] if clear else []
    types = {"box": Marker.CUBE, "cylinder": Marker.CYLINDER, "sphere": Marker.SPHERE,
             "mesh": Marker.TRIANGLE_LIST}
    from geometry_msgs.msg import Point
    for m in markers:
        mk = Marker(header=header, ns=ns, id=int(m.id) % (1 << 31), type=types[m.shape], action=Marker.ADD)
        mk.color = _rgba(m.color, alpha)
        if m.shape == "mesh":
            mk.pose = to_ros_pose(m.pose())
            mk.scale.x = mk.scale.y = mk.scale.z = 1.0
            tri = np.asarray(m.faces, np.int64).reshape(-1)
            v = np.asarray(m.vertices, float)[tri]
            mk.points = [Point(x=float(a), y=float(b), z=float(c)) for a, b, c in v]
            if m.vertex_colors is not None:
                cols = np.asarray(m.vertex_colors, float)[tri] / 255.0
                from std_msgs.msg import ColorRGBA
                mk.colors = [ColorRGBA(r=float(r), g=float(g), b=float(b), a=float(alpha)) for r, g, b in cols]
            out.append(mk)
            continue
        mk.pose = to_ros_pose(m.pose())
        mk.scale.x, mk.scale.y, mk.scale.z = (max(float(s), 1e-3) for s in m.size)
        out.append(mk)
        if labels:
            txt = Marker(header=header, ns=ns + "_labels", id=mk.id, type=Marker.TEXT_VIEW_FACING,
                         action=Marker.ADD, text=str(m.label))
            txt.pose.position.x, txt.pose.position.y = float(m.position[0]), float(m.position[1])
            txt.pose.position.z = float(m.position[2]) + 0.5 * float(m.size[2]) + 0.5
            txt.pose.orientation.w = 1.0
            txt.scale.z = max(0.3, 0.5 * float(max(m.size)))
            txt.color = _rgba((255, 255, 255))
            out.append(txt)
    return MarkerArray(markers=out)


def to_ros_detection3d_array(items, stamp: Time, frame_id: str = "map"):
    """vision_msgs/Detection3DArray: one Detection3D per item, ``results[0].hypothesis.class_id``
    = its label, ``id`` = its id as text, bbox = its pose and size, score = its ``score``
    attribute (1 if none). Items are WorldMarkers or anything with ``id``, ``label``,
    ``position``, ``size`` and optionally ``rotation`` / ``score``."""
    from vision_msgs.msg import Detection3D, Detection3DArray, ObjectHypothesisWithPose
    out = Detection3DArray(header=to_ros_header(stamp, frame_id))
    for it in items:
        T = np.eye(4)
        T[:3, :3] = np.asarray(getattr(it, "rotation", None) if getattr(it, "rotation", None) is not None
                               else np.eye(3), float)
        T[:3, 3] = np.asarray(it.position, float)[:3]
        d = Detection3D(header=out.header, id=str(it.id))
        d.bbox.center = to_ros_pose(T)
        d.bbox.size.x, d.bbox.size.y, d.bbox.size.z = (float(v) for v in it.size)
        h = ObjectHypothesisWithPose()
        h.hypothesis.class_id = str(it.label)
        h.hypothesis.score = float(getattr(it, "score", 1.0))
        h.pose.pose = d.bbox.center
        d.results = [h]
        out.detections.append(d)
    return out


def from_ros_detection3d_array(msg) -> list[tuple[str, np.ndarray, float]]:
    """(class_id, centre (3,), score) of each detection's best hypothesis (centre of its bbox)."""
    out = []
    for d in msg.detections:
        if not d.results:
            raise ValueError(f"Detection3D {d.id!r} has no results (no class)")
        best = max(d.results, key=lambda r: r.hypothesis.score)
        p = d.bbox.center.position
        out.append((best.hypothesis.class_id, np.array([p.x, p.y, p.z]), float(best.hypothesis.score)))
    return out


def to_ros_path(points, stamp: Time, frame_id: str = "map", yaws=None):
    """nav_msgs/Path through (N, 3) points (orientation = ``yaws`` if given, else along the path)."""
    from geometry_msgs.msg import PoseStamped
    from nav_msgs.msg import Path
    pts = np.asarray(points, float).reshape(-1, 3)
    msg = Path(header=to_ros_header(stamp, frame_id))
    for k, p in enumerate(pts):
        if yaws is not None:
            yaw = float(yaws[k])
        else:
            d = pts[min(k + 1, len(pts) - 1)] - pts[max(k - 1, 0)]
            yaw = math.atan2(d[1], d[0]) if np.any(d[:2]) else 0.0
        ps = PoseStamped(header=msg.header)
        ps.pose = to_ros_pose(planar_matrix(p[0], p[1], yaw, p[2]))
        msg.poses.append(ps)
    return msg
