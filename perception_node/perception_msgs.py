"""The perception node's message helpers and QoS choices (also used by the mapping node):
sensor QoS parameters, depth decoding, class-list payloads, vision_msgs detections."""
from __future__ import annotations

import json

import numpy as np
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image
from std_msgs.msg import Header
from vision_msgs.msg import Detection2D, Detection3D, ObjectHypothesisWithPose

from hazard_ros import conversions as conv
from hazard_ros import params
from hazard_ros import ros_qos as qos
from hazard_ros.tf_math import TfBuffer
from perception_node.detectors import Detection

LATCHED = qos.LATCHED
RELIABLE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
TF_QOS = qos.TF
#: lock-step sensor subscriptions (the simulator does not wait for perception; the decision nodes
#: wait for perception's output of every frame)
LOCKSTEP_READER = qos.LOCKSTEP_READER


def as_bool(name: str, value) -> bool:
    """A bool parameter that may arrive as text ("true" / "false") from a launcher."""
    return params.as_bool(value, f"parameter {name}")


SENSOR_QOS_KINDS = ("best_effort", "reliable", "transient_local")


def declare_sensor_qos(node: Node) -> tuple[str, QoSProfile]:
    """Parameters ``lockstep`` (bool) and ``sensor_qos`` ('' = transient_local in lock-step,
    else best_effort); returns the chosen kind and the subscriber QoS of sensor topics."""
    lockstep = as_bool("lockstep", node.declare_parameter(
        "lockstep", False, ParameterDescriptor(
            description="simulator in lock-step: sensor topics reliable + transient local",
            dynamic_typing=True)).value)
    kind = str(node.declare_parameter("sensor_qos", "", ParameterDescriptor(
        description="sensor subscriptions: " + " | ".join(SENSOR_QOS_KINDS) +
                    " ('' = transient_local with lockstep, else best_effort)")).value)
    kind = kind or ("transient_local" if lockstep else "best_effort")
    return kind, sensor_qos(kind)


def sensor_qos(kind: str) -> QoSProfile:
    """Subscriber QoS of sensor topics. ``best_effort`` (free-run; also receives from
    reliable publishers); ``reliable`` (nothing lost); ``transient_local`` (reliable, and a
    node that starts late still gets the sim's current lock-step frame; needs a transient
    local publisher, as sim_node has in lock-step)."""
    if kind == "best_effort":
        return qos.SENSOR_DATA
    if kind == "reliable":
        return QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
    if kind == "transient_local":
        return LOCKSTEP_READER
    raise ValueError(f"parameter sensor_qos must be one of {', '.join(SENSOR_QOS_KINDS)}, got {kind!r}")


def add_odometry_to_tf(tf: TfBuffer, msg: Odometry) -> None:
    """Odometry carries the odom -> base_link transform of its stamp: add it to the buffer
    (covers frames whose /tf a late-starting node missed; /tf itself is volatile)."""
    if not msg.header.frame_id or not msg.child_frame_id:
        return
    tf.set_transform(conv.from_ros_pose(msg.pose.pose), msg.header.frame_id, msg.child_frame_id,
                     conv.time_to_ns(msg.header.stamp))


def depth_image(msg: Image) -> np.ndarray:
    """Depth in metres (float32) of a 32FC1 (m) or 16UC1 (mm, 0 = none) image."""
    img = conv.from_ros_image(msg)
    if msg.encoding in ("16UC1", "mono16"):
        d = img.astype(np.float32) / 1000.0
        d[img == 0] = np.nan
        return d
    if msg.encoding not in ("32FC1", "64FC1"):
        raise ValueError(f"depth image encoding {msg.encoding!r} is not 32FC1 (m) or 16UC1 (mm)")
    return img.astype(np.float32, copy=False)


def parse_class_list(text: str) -> list[str]:
    """``perception/set_classes`` payload: a JSON list of names (or {"classes": [...]})."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc}); expected a list of class names like [\"backpack\"]") from None
    if isinstance(data, dict):
        data = data.get("classes")
    if not isinstance(data, list) or not all(isinstance(c, str) for c in data):
        raise ValueError(f"expected a JSON list of class names, got {text[:80]!r}")
    return data


def _short(classes, n: int = 10) -> str:
    """A class list for a log line: at most ``n`` names, then how many more."""
    if not isinstance(classes, (list, tuple)) or len(classes) <= n:
        return str(classes)
    return f"{list(classes[:n])} and {len(classes) - n} more"


def to_detection2d(det: Detection, header: Header) -> Detection2D:
    d = Detection2D(header=header)
    d.id = "" if det.instance_id is None else str(det.instance_id)
    d.bbox.center.position.x, d.bbox.center.position.y = float(det.cx), float(det.cy)
    d.bbox.size_x, d.bbox.size_y = float(det.w), float(det.h)
    hyp = ObjectHypothesisWithPose()
    hyp.hypothesis.class_id, hyp.hypothesis.score = det.label, float(det.score)
    d.results.append(hyp)
    return d


def to_detection3d(det: Detection, proj, header: Header) -> Detection3D:
    d = Detection3D(header=header)
    d.id = "" if det.instance_id is None else str(det.instance_id)
    hyp = ObjectHypothesisWithPose()
    hyp.hypothesis.class_id, hyp.hypothesis.score = det.label, float(det.score)
    p = hyp.pose.pose.position
    p.x, p.y, p.z = (float(v) for v in proj.center)
    hyp.pose.pose.orientation.w = 1.0
    d.results.append(hyp)
    c = d.bbox.center.position
    c.x, c.y, c.z = (float(v) for v in proj.center)
    d.bbox.center.orientation.w = 1.0
    d.bbox.size.x, d.bbox.size.y, d.bbox.size.z = (float(v) for v in proj.size)
    return d
