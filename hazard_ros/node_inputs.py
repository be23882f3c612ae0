"""The input plumbing the nodes share: camera images, camera info, label maps, JSON topics,
and (through :class:`hazard_ros.pose_inputs.PoseInputs`) TF and odometry.

Every node that decides or perceives subscribes the same kinds of topics and does the same
with each message: ask the node's message guard (:mod:`hazard_ros.msg_guards`) whether it is
usable, decode it (:mod:`hazard_ros.conversions`), log a decoding error once in a while instead
of raising, and hand the result to the node under its lock. :class:`NodeInputs` is that, once::

    self.inputs = NodeInputs(self, lock=self._cv, callback_group=group)
    self.inputs.images({"rgb": "camera/color/image_raw", ...}, qos, self._on_image)   # (kind, stamp, array, frame)
    self.inputs.camera_info("camera/color/camera_info", qos, self._on_camera_info)     # (K, msg)
    self.inputs.label_info("perception/instances/label_info", qos, self._on_labels)    # (labels, stamp_ns)
    self.inputs.json("episode/status", self._on_status, mg.STATUS_FIELDS)              # (dict)
    self.poses = self.inputs.poses(on_change=self._assemble, planar=True, odom_qos=qos)  # a PoseInputs

``raw=True`` on :meth:`images` / :meth:`camera_info` hands over the checked message itself
(the perception node groups messages by stamp and decodes them later). ``lock`` (a Lock or
Condition) is held while a handler runs. Images of one frame are grouped by stamp by the
consumer (:class:`planner_node.observation.ObservationAssembler` for the decision nodes,
:class:`perception_node.projection.StampSync` for the perception node).
"""
from __future__ import annotations

import contextlib
from typing import Callable

from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import String
from vision_msgs.msg import LabelInfo

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.pose_inputs import PoseInputs

LOG_PERIOD_S = 10.0


class NodeInputs:
    """See the module docstring."""

    def __init__(self, node, lock=None, callback_group=None):
        self.node = node
        self.lock = lock if lock is not None else contextlib.nullcontext()
        self.group = callback_group

    def _sub(self, cls, topic: str, cb, qos_profile, group):
        return self.node.create_subscription(cls, topic, cb, qos_profile,
                                             callback_group=group if group is not None else self.group)

    def _error(self, what: str, exc: Exception) -> None:
        self.node.get_logger().error(f"{what}: {exc}", throttle_duration_sec=LOG_PERIOD_S)

    # ------------------------------------------------------------------ cameras
    def images(self, topics: dict[str, str], qos_profile, handler: Callable, *, raw: bool = False,
               group=None, check_name: Callable[[str], str] | None = None) -> None:
        """Subscribe ``kind -> topic`` images; ``handler(kind, stamp_ns, array, frame_id)``
        (``raw``: ``handler(kind, msg)``) for each usable one."""
        for kind, topic in topics.items():
            self._sub(Image, topic, lambda m, k=kind: self._on_image(k, m, handler, raw, check_name), qos_profile,
                      group)

    def _on_image(self, kind: str, msg: Image, handler, raw: bool, check_name) -> None:
        name = check_name(kind) if check_name else f"{kind} image"
        self._take(name, mg.check_image, conv.from_ros_image, msg,
                   (lambda m: handler(kind, m)) if raw else
                   (lambda arr: handler(kind, conv.time_to_ns(msg.header.stamp), arr, msg.header.frame_id)), raw)

    def _take(self, name: str, check, decode, msg, handler, raw: bool) -> None:
        """Guard ``msg`` with ``check``; hand it (``raw``) or ``decode(msg)`` to ``handler``
        under the lock; a decoding error is logged, not raised."""
        g = mg.guard(self.node)
        if not g.ok(name, check, msg, g.now_ns()):
            return
        if raw:
            with self.lock:
                handler(msg)
            return
        try:
            value = decode(msg)
        except ValueError as exc:
            self._error(name, exc)
            return
        with self.lock:
            handler(value)

    def camera_info(self, topic: str, qos_profile, handler: Callable, *, raw: bool = False, group=None,
                    name: str = "camera_info") -> None:
        """``handler(K, msg)`` (``raw``: ``handler(msg)``) for each usable CameraInfo."""
        def cb(msg):
            self._take(name, mg.check_camera_info, conv.from_ros_camera_info, msg,
                       handler if raw else (lambda K: handler(K, msg)), raw)
        self._sub(CameraInfo, topic, cb, qos_profile, group)

    # ------------------------------------------------------------------ labels and JSON
    def label_info(self, topic: str, qos_profile, handler: Callable, group=None) -> None:
        """``handler(labels: {id: name}, stamp_ns)`` for each usable LabelInfo."""
        def cb(msg):
            if not mg.guard(self.node).ok(topic, mg.check_label_info, msg):
                return
            with self.lock:
                handler(conv.from_ros_label_info(msg), conv.time_to_ns(msg.header.stamp))
        self._sub(LabelInfo, topic, cb, qos_profile, group)

    def json(self, topic: str, handler: Callable, fields: dict | None = None, required: tuple = (),
             qos_profile=qos.LATCHED_SUB, group=None, parse: Callable | None = None) -> None:
        """``handler(data)`` for each JSON object on ``topic`` that passes the guard's field
        checks (``fields``: :mod:`hazard_ros.msg_guards` field table) and ``parse`` (a
        normaliser that raises ValueError / TypeError for what it cannot use)."""
        def cb(msg: String):
            data = mg.guard(self.node).json(topic, msg, fields or {}, required)
            if data is None:
                return
            if parse is not None:
                data = mg.guard(self.node).accept(topic, parse, data)
                if data is None:
                    return
            with self.lock:
                handler(data)
        self._sub(String, topic, cb, qos_profile, group)

    # ------------------------------------------------------------------ poses
    def poses(self, on_change: Callable | None = None, **kwargs) -> PoseInputs:
        """``/tf``, ``/tf_static`` and ``odom`` into one TF buffer (:class:`PoseInputs`, with
        this node's lock and callback group)."""
        kwargs.setdefault("lock", self.lock if not isinstance(self.lock, contextlib.nullcontext) else None)
        kwargs.setdefault("callback_group", self.group)
        return PoseInputs(self.node, on_change, **kwargs)


__all__ = ["NodeInputs"]
