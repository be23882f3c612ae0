"""Poses, transforms, odometry and IMU: transforms are 4x4 homogeneous matrices
``parent_T_child`` (maps child coordinates into the parent frame), quaternions (x, y, z, w).
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, Quaternion, Transform, TransformStamped
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu

from hazard_ros.conversions.stamps import to_ros_header
from hazard_sim import rotations
from hazard_sim.rotations import matrix_to_quaternion, quaternion_to_matrix

GRAVITY = 9.80665                  # m/s^2, what an accelerometer at rest reads (+z)


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
