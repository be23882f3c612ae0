"""numpy / core values <-> ROS 2 messages (``to_ros_*`` / ``from_ros_*``).

Pure functions: message classes only, no rclpy import, so everything here is
tested by building messages in memory. One module a kind of message (:mod:`.stamps`,
:mod:`.text`, :mod:`.images`, :mod:`.poses`, :mod:`.geodesy`, :mod:`.pointclouds`,
:mod:`.markers`); every name is importable from this package. Conventions:

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

from hazard_ros.conversions.geodesy import (
    WGS84_A,
    WGS84_E2,
    WGS84_F,
    from_ros_navsatfix,
    geodetic_to_local,
    isa_altitude,
    isa_pressure,
    local_to_geodetic,
    to_ros_fluid_pressure,
    to_ros_navsatfix,
    to_ros_range,
)
from hazard_ros.conversions.images import (
    IMAGE_ENCODINGS,
    bytes_array,
    from_ros_camera_info,
    from_ros_image,
    to_ros_camera_info,
    to_ros_image,
)
from hazard_ros.conversions.markers import (
    from_ros_detection3d_array,
    to_ros_detection3d_array,
    to_ros_markers,
    to_ros_path,
)
from hazard_ros.conversions.pointclouds import from_ros_pointcloud2, to_ros_pointcloud2
from hazard_ros.conversions.poses import (
    GRAVITY,
    from_ros_odometry,
    from_ros_pose,
    from_ros_transform,
    matrix_to_quaternion,
    planar_matrix,
    quaternion_to_matrix,
    quaternion_to_yaw,
    to_ros_imu,
    to_ros_odometry,
    to_ros_pose,
    to_ros_tf_message,
    to_ros_transform,
    yaw_to_quaternion,
)
from hazard_ros.conversions.stamps import (
    FRAME_DT_NS,
    frame_from_stamp,
    stamp_from_frame,
    time_to_ns,
    time_to_sec,
    to_ros_clock,
    to_ros_header,
)
from hazard_ros.conversions.text import (
    from_ros_json,
    from_ros_label_info,
    from_trigger_message,
    to_ros_json,
    to_ros_label_info,
    to_trigger_message,
)

__all__ = [
    "FRAME_DT_NS",
    "stamp_from_frame",
    "time_to_ns",
    "time_to_sec",
    "frame_from_stamp",
    "to_ros_clock",
    "to_ros_header",
    "to_ros_json",
    "from_ros_json",
    "to_ros_label_info",
    "from_ros_label_info",
    "to_trigger_message",
    "from_trigger_message",
    "IMAGE_ENCODINGS",
    "bytes_array",
    "to_ros_image",
    "from_ros_image",
    "to_ros_camera_info",
    "from_ros_camera_info",
    "GRAVITY",
    "yaw_to_quaternion",
    "quaternion_to_yaw",
    "planar_matrix",
    "to_ros_pose",
    "from_ros_pose",
    "to_ros_transform",
    "from_ros_transform",
    "to_ros_tf_message",
    "to_ros_odometry",
    "from_ros_odometry",
    "to_ros_imu",
    "matrix_to_quaternion",
    "quaternion_to_matrix",
    "WGS84_A",
    "WGS84_F",
    "WGS84_E2",
    "local_to_geodetic",
    "geodetic_to_local",
    "to_ros_navsatfix",
    "from_ros_navsatfix",
    "isa_pressure",
    "isa_altitude",
    "to_ros_range",
    "to_ros_fluid_pressure",
    "to_ros_pointcloud2",
    "from_ros_pointcloud2",
    "to_ros_markers",
    "to_ros_detection3d_array",
    "from_ros_detection3d_array",
    "to_ros_path",
]
