"""QoS profiles shared by every hazard_stack node (one place, so publishers and subscribers match).

* ``LATCHED``: reliable + transient local, depth 1: state that a late subscriber must get
  (``/tf_static``, ``task``, ``map``, ``episode/*``, ``amcl_pose``, ...).
* ``LATCHED_SUB``: what a subscriber of those topics asks for (reliable + transient local,
  depth 10): the late subscriber still gets the publisher's last message, and a message that
  a guard drops (a malformed one, from another publisher) cannot displace a good one that
  arrived just before it from a one-deep queue (in lock-step a node waits for that message:
  the decision node once waited 30 s for a map of its frame that a malformed map had displaced).
* ``TF``: ``/tf`` as tf2_ros publishes it (reliable, volatile, depth 100).
* ``TF_STATIC``: ``/tf_static`` as tf2_ros publishes it (reliable, transient local, depth 1;
  subscribers use depth 100 to take every static broadcaster's message).
* ``LOCKSTEP_SENSOR``: sensor streams in lock-step mode (reliable + transient local,
  depth 2): a node that starts late still gets the current frame, nothing is dropped.
* ``LOCKSTEP_READER``: what a subscriber of those streams asks for in lock-step (reliable +
  transient local, depth 50): no frame is overwritten while the node is busy, nor by a malformed
  message from another publisher (nodes wait for every frame's data in lock-step).
* ``CAMERA_RELIABLE``: camera images and camera info in free-run, as common ROS 2 camera
  drivers publish them (reliable, volatile, keep last 10, like ``usb_cam`` / ``v4l2_camera``
  / ``realsense2_camera``'s defaults): both reliable and best-effort subscribers receive it.
* ``SENSOR_DATA``: rclpy's ``qos_profile_sensor_data`` (best effort, depth 5): what most
  subscribers of sensor streams ask for; it matches every publisher above.

:func:`camera_publisher_qos` picks the camera profile from a node's ``camera_qos`` parameter.
"""
from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data

LATCHED = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
LATCHED_SUB = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.VOLATILE)
TF_STATIC = LATCHED
TF_STATIC_SUB = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
LOCKSTEP_SENSOR = QoSProfile(depth=2, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
LOCKSTEP_READER = QoSProfile(depth=50, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
CAMERA_RELIABLE = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.VOLATILE)
SENSOR_DATA = qos_profile_sensor_data

#: values of a ``camera_qos`` parameter
CAMERA_QOS_CHOICES = ("reliable", "best_effort")


def camera_publisher_qos(lockstep: bool, choice: str = "reliable") -> QoSProfile:
    """QoS of the camera image / camera info publishers.

    Lock-step: :data:`LOCKSTEP_SENSOR`. Free-run: ``reliable`` (default, like common camera
    drivers; reliable and best-effort subscribers both match) or ``best_effort``
    (:data:`SENSOR_DATA`: never blocks on a slow reader, but reliable subscribers get nothing).
    """
    if lockstep:
        return LOCKSTEP_SENSOR
    if choice == "reliable":
        return CAMERA_RELIABLE
    if choice == "best_effort":
        return SENSOR_DATA
    raise ValueError(f"camera_qos must be one of {', '.join(CAMERA_QOS_CHOICES)}, got {choice!r}")


def sensor_subscription_qos(lockstep: bool) -> QoSProfile:
    """What navigation_node's ``odom`` / ``objects`` / bumper readers ask for: in lock-step
    :data:`LOCKSTEP_SENSOR` (two deep: it plans on the newest pose), else best effort (matches
    any publisher)."""
    return LOCKSTEP_SENSOR if lockstep else SENSOR_DATA


__all__ = ["LATCHED", "LATCHED_SUB", "TF", "TF_STATIC", "TF_STATIC_SUB", "LOCKSTEP_SENSOR", "LOCKSTEP_READER",
           "CAMERA_RELIABLE", "SENSOR_DATA", "CAMERA_QOS_CHOICES", "camera_publisher_qos", "sensor_subscription_qos"]
