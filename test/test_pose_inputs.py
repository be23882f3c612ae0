"""hazard_ros.pose_inputs: /tf, /tf_static and odom into one TF buffer, with hand-computed
poses. The node is a stand-in that records subscriptions (no DDS); messages are real ROS
messages. Skipped when rclpy cannot be imported."""
from __future__ import annotations

import math
import threading

import numpy as np
import pytest

try:
    from nav_msgs.msg import Odometry
    from tf2_msgs.msg import TFMessage

    from hazard_ros import conversions as conv
    from hazard_ros import ros_qos as qos
    from hazard_ros.pose_inputs import PoseInputs, odometry_matrix
    from hazard_ros.tf_math import TfLookupError
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run `bash scripts/setup_ros.sh`",
                allow_module_level=True)


class _Clock:
    def __init__(self, ns):
        self.ns = ns

    def now(self):
        return type("Now", (), {"nanoseconds": self.ns})()


class _Logger:
    def __init__(self):
        self.warnings = []

    def warning(self, text, **_):
        self.warnings.append(text)


class FakeNode:
    """What PoseInputs and the message guard use of an rclpy Node."""

    def __init__(self, now_ns=100 * 10**9):
        self.subs = {}
        self.clock = _Clock(now_ns)
        self.logger = _Logger()

    def create_subscription(self, msg_type, topic, callback, qos_profile, callback_group=None):
        self.subs[topic] = (msg_type, callback, qos_profile)

    def get_clock(self):
        return self.clock

    def get_logger(self):
        return self.logger


def _time(sec: float):
    from builtin_interfaces.msg import Time
    ns = int(round(sec * 1e9))
    return Time(sec=ns // 10**9, nanosec=ns % 10**9)


def tf_msg(*edges):
    """edges: (parent, child, x, y, z, yaw, t)."""
    return TFMessage(transforms=[conv.to_ros_transform(conv.planar_matrix(x, y, yaw, z), _time(t), parent, child)
                                 for parent, child, x, y, z, yaw, t in edges])


def odom_msg(x, y, yaw, t, z=0.0, frame="odom", child="base_link"):
    return conv.to_ros_odometry(x, y, yaw, 0.0, 0.0, _time(t), frame, child, z=z)


def test_subscribes_the_three_topics_with_their_qos():
    node = FakeNode()
    PoseInputs(node, odom_qos=qos.LOCKSTEP_SENSOR)
    assert {t: (m, q) for t, (m, _, q) in node.subs.items()} == {
        "/tf": (TFMessage, qos.TF), "/tf_static": (TFMessage, qos.TF_STATIC_SUB),
        "odom": (Odometry, qos.LOCKSTEP_SENSOR)}
    node = FakeNode()
    PoseInputs(node, odom=False)
    assert set(node.subs) == {"/tf", "/tf_static"}


def test_chain_from_tf_static_and_odom_interpolated_at_a_stamp():
    node = FakeNode()
    calls = []
    poses = PoseInputs(node, on_change=lambda: calls.append(1))
    node.subs["/tf_static"][1](tf_msg(("map", "odom", 0, 0, 0, 0, 0), ("base_link", "camera_link", 0.2, 0, 1.0, 0, 0)))
    node.subs["odom"][1](odom_msg(1.0, 0.0, 0.0, 1.0))
    node.subs["odom"][1](odom_msg(3.0, 2.0, math.pi / 2, 2.0))
    assert calls == [1, 1, 1] and poses.pose_stamp_ns == 2 * 10**9
    # half way: x 2, y 1, yaw 45 deg; the camera 0.2 m ahead along that heading, 1 m up
    T = poses.lookup("map", "camera_link", int(1.5e9))
    c = math.cos(math.pi / 4)
    np.testing.assert_allclose(T[:3, 3], [2.0 + 0.2 * c, 1.0 + 0.2 * c, 1.0], atol=1e-9)
    np.testing.assert_allclose(T[:2, :2], [[c, -c], [c, c]], atol=1e-9)
    np.testing.assert_allclose(poses.pose("map", None)[:3, 3], [3.0, 2.0, 0.0], atol=1e-12)
    with pytest.raises(TfLookupError, match="after the newest"):
        poses.pose("map", 3 * 10**9)
    assert poses.pose_or_none("map", 3 * 10**9) is None
    assert poses.pose_or_none("nowhere") is None


def test_odometry_keeps_height_unless_planar_and_fills_empty_frames():
    msg = odom_msg(1.0, 2.0, 0.3, 1.0, z=50.0)
    np.testing.assert_allclose(odometry_matrix(msg)[:3, 3], [1.0, 2.0, 50.0])
    np.testing.assert_allclose(odometry_matrix(msg, planar=True), conv.planar_matrix(1.0, 2.0, 0.3), atol=1e-12)
    node = FakeNode()
    poses = PoseInputs(node, planar=True, base_frame="body")
    node.subs["odom"][1](odom_msg(1.0, 2.0, 0.3, 1.0, z=50.0, frame="", child=""))
    np.testing.assert_allclose(poses.lookup("odom", "body")[:3, 3], [1.0, 2.0, 0.0])
    assert poses.pose_stamp_ns == 10**9


def test_bad_inputs_are_dropped_and_the_good_transforms_of_a_message_kept():
    node = FakeNode(now_ns=10 * 10**9)
    poses = PoseInputs(node)
    node.subs["/tf_static"][1](tf_msg(("map", "odom", 0, 0, 0, 0, 0)))
    # the second edge gives odom a second parent: refused, the third still stored
    node.subs["/tf"][1](tf_msg(("odom", "base_link", 1, 0, 0, 0, 1.0), ("world", "odom", 0, 0, 0, 0, 1.0),
                               ("base_link", "arm", 0, 0, 0.5, 0, 1.0)))
    assert poses.rejected == 1 and "already has parent" in node.logger.warnings[0]
    np.testing.assert_allclose(poses.lookup("map", "arm")[:3, 3], [1.0, 0.0, 0.5])
    assert poses.pose_stamp_ns == 10**9
    # a stamp far in the future and a non-finite pose: the guard drops them, the buffer is unchanged
    node.subs["odom"][1](odom_msg(5.0, 0.0, 0.0, 1000.0))
    bad = odom_msg(float("nan"), 0.0, 0.0, 2.0)
    node.subs["odom"][1](bad)
    assert poses.pose_stamp_ns == 10**9
    np.testing.assert_allclose(poses.pose("map")[:3, 3], [1.0, 0.0, 0.0])


def test_lock_is_held_while_the_buffer_changes_and_on_change_runs():
    node = FakeNode()
    lock = threading.Condition()
    held = []
    PoseInputs(node, on_change=lambda: held.append(lock._is_owned()), lock=lock)
    node.subs["/tf"][1](tf_msg(("odom", "base_link", 1, 0, 0, 0, 1.0)))
    node.subs["odom"][1](odom_msg(1.0, 0.0, 0.0, 2.0))
    assert held == [True, True] and not lock._is_owned()
