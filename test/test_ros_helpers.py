"""The small shared ROS helpers: boolean parameters, QoS choices, rosbag2 metadata pieces."""
from __future__ import annotations

import pytest

try:
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)

from hazard_ros import ros_qos as qos
from hazard_ros.params import as_bool
from hazard_ros.recorder_node import bag_paths, qos_profiles_v9


def test_as_bool_takes_what_launch_files_pass_and_rejects_the_rest():
    for v in (True, 1, "true", "True", "yes", "on", "1", " TRUE "):
        assert as_bool(v) is True
    for v in (False, 0, "false", "False", "no", "off", "0"):
        assert as_bool(v) is False
    for v in ("ture", "", 2, 0.5, None, [True]):
        with pytest.raises(ValueError, match="parameter 'x' must be a boolean"):
            as_bool(v, "parameter 'x'")


def test_camera_qos_choices():
    assert qos.camera_publisher_qos(True) is qos.LOCKSTEP_SENSOR
    rel = qos.camera_publisher_qos(False)
    assert rel.reliability == ReliabilityPolicy.RELIABLE and rel.durability == DurabilityPolicy.VOLATILE
    assert qos.camera_publisher_qos(False, "best_effort").reliability == ReliabilityPolicy.BEST_EFFORT
    with pytest.raises(ValueError, match="camera_qos"):
        qos.camera_publisher_qos(False, "fast")


def test_bag_layout_and_v9_qos_yaml(tmp_path):
    assert bag_paths(str(tmp_path / "ep0")) == (tmp_path / "ep0", tmp_path / "ep0" / "ep0_0.mcap")
    assert bag_paths(str(tmp_path / "run.mcap")) == (tmp_path / "run", tmp_path / "run" / "run_0.mcap")
    (p,) = qos_profiles_v9([QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                                       durability=DurabilityPolicy.TRANSIENT_LOCAL)])
    assert (p["history"], p["depth"], p["reliability"], p["durability"]) == \
        ("keep_last", 1, "reliable", "transient_local")
    assert p["deadline"] == {"sec": 0, "nsec": 0} and p["avoid_ros_namespace_conventions"] is False
