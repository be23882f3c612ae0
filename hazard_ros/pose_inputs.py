"""The TF / odometry inputs of a node: one :class:`hazard_ros.tf_math.TfBuffer` fed from
``/tf``, ``/tf_static`` and ``odom`` (ROS side; the buffer itself is ROS-free).

Every node that needs the robot's pose or a camera's pose at an image stamp subscribes the
same three topics and does the same with them; :class:`PoseInputs` is that, once::

    self.poses = PoseInputs(self, on_change=self._flush, odom_qos=cam_qos)
    ...
    T = self.poses.lookup("map", depth_msg.header.frame_id, stamp_ns)   # at that stamp

* ``/tf`` (:data:`hazard_ros.ros_qos.TF`) and ``/tf_static`` (``tf_static_qos``, by default
  :data:`hazard_ros.ros_qos.TF_STATIC_SUB`): every transform passes the node's message guard
  (:func:`hazard_ros.msg_guards.guard`: finite, not from the future, no jump); each good one
  is stored on its own, so one bad transform does not cost the others of its message;
* ``odom`` (nav_msgs/Odometry, ``odom_qos``; ``odom=False``: not subscribed): the message
  carries the ``odom -> base_link`` transform of its stamp, which covers frames whose
  volatile ``/tf`` a late-starting node missed (in lock-step ``odom`` is latched, ``/tf`` is
  not). Empty frame ids mean ``odom_frame`` / ``base_frame``. ``planar=True`` keeps only
  x, y and yaw of the pose (a ground robot's 2-D pose).

After every stored input ``on_change()`` runs (a node's flush of frames waiting for their
transform). ``lock`` (a ``threading.Lock`` / ``Condition``, for multi-threaded executors) is
held while the buffer changes and ``on_change`` runs. :attr:`pose_stamp_ns` is the newest
stamp of a ``base_frame`` pose received (-1 before the first), so a lock-step client can wait
for the pose of a frame.
"""
from __future__ import annotations

import contextlib
from typing import Callable

import numpy as np
from nav_msgs.msg import Odometry
from tf2_msgs.msg import TFMessage

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.tf_math import TfBuffer

__all__ = ["PoseInputs", "odometry_matrix"]


def odometry_matrix(msg: Odometry, planar: bool = False) -> np.ndarray:
    """4x4 ``odom_T_base`` of an Odometry's pose; ``planar``: x, y and yaw only."""
    p = msg.pose.pose
    if planar:
        return conv.planar_matrix(p.position.x, p.position.y, conv.quaternion_to_yaw(p.orientation))
    return conv.from_ros_pose(p)


class PoseInputs:
    """``/tf``, ``/tf_static`` and ``odom`` of ``node`` into one :class:`TfBuffer` (see the
    module docstring)."""

    def __init__(self, node, on_change: Callable[[], None] | None = None, *, odom: bool = True,
                 odom_qos=qos.SENSOR_DATA, tf_static_qos=qos.TF_STATIC_SUB, planar: bool = False,
                 odom_frame: str = "odom", base_frame: str = "base_link", history: int = 200,
                 lock=None, callback_group=None):
        self.node = node
        self.on_change = on_change
        self.planar = bool(planar)
        self.odom_frame, self.base_frame = odom_frame, base_frame.lstrip("/")
        self.tf = TfBuffer(history)
        self.lock = lock if lock is not None else contextlib.nullcontext()
        self.pose_stamp_ns = -1
        self.rejected = 0                       # inputs the buffer refused (a frame with two parents, ...)
        sub = node.create_subscription
        sub(TFMessage, "/tf", lambda m: self.on_tf(m, False), qos.TF, callback_group=callback_group)
        sub(TFMessage, "/tf_static", lambda m: self.on_tf(m, True), tf_static_qos, callback_group=callback_group)
        if odom:
            sub(Odometry, "odom", self.on_odom, odom_qos, callback_group=callback_group)

    # ------------------------------------------------------------------ callbacks
    def on_tf(self, msg: TFMessage, static: bool = False) -> None:
        with self.lock:
            for t in mg.guard(self.node).transforms("/tf_static" if static else "/tf", msg, static):
                try:
                    self.tf.add_message([t], static=static)
                except ValueError as exc:
                    self._refused(f"bad transform ignored: {exc}")
                    continue
                if not static and t.child_frame_id.lstrip("/") == self.base_frame:
                    self.pose_stamp_ns = max(self.pose_stamp_ns, mg.stamp_ns(t.header.stamp))
            self._changed()

    def on_odom(self, msg: Odometry) -> None:
        with self.lock:
            if not mg.guard(self.node).odometry("odom", msg):
                return
            child = msg.child_frame_id or self.base_frame
            stamp = conv.time_to_ns(msg.header.stamp)
            try:
                self.tf.set_transform(odometry_matrix(msg, self.planar), msg.header.frame_id or self.odom_frame,
                                      child, stamp)
            except ValueError as exc:
                self._refused(f"odometry not usable as TF: {exc}")
                return
            if child.lstrip("/") == self.base_frame:
                self.pose_stamp_ns = max(self.pose_stamp_ns, stamp)
            self._changed()

    def _refused(self, text: str) -> None:
        self.rejected += 1
        self.node.get_logger().warning(text, throttle_duration_sec=5.0)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # ------------------------------------------------------------------ queries
    def lookup(self, parent: str, child: str, stamp_ns: int | None = None) -> np.ndarray:
        """4x4 ``parent_T_child`` at ``stamp_ns`` (interpolated; None: the latest); raises
        :class:`hazard_ros.tf_math.TfLookupError` (a LookupError) when it cannot."""
        return self.tf.lookup(parent, child, stamp_ns)

    def pose(self, frame: str = "map", stamp_ns: int | None = None) -> np.ndarray:
        """The body's pose ``frame_T_base`` at ``stamp_ns`` (None: the latest)."""
        return self.tf.lookup(frame, self.base_frame, stamp_ns)

    def pose_or_none(self, frame: str = "map", stamp_ns: int | None = None) -> np.ndarray | None:
        """:meth:`pose`, or None when it is not known (yet)."""
        try:
            return self.pose(frame, stamp_ns)
        except LookupError:
            return None
