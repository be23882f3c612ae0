"""Values carried as text: JSON in ``std_msgs/String``, label tables and action outcomes in
trigger messages.
"""
from __future__ import annotations

import json
from typing import Mapping

import numpy as np
from builtin_interfaces.msg import Time
from std_msgs.msg import String

from hazard_ros.conversions.stamps import to_ros_header


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
