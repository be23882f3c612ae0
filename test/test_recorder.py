"""mcap_recorder: record live topics in-process, read the MCAP back with mcap.reader and
deserialize with rclpy. Skipped without rclpy or the mcap package."""
from __future__ import annotations

import time

import numpy as np
import pytest

try:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from rclpy.serialization import deserialize_message, serialize_message
    from sensor_msgs.msg import Image
    from std_msgs.msg import String
    from tf2_msgs.msg import TFMessage
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run `bash scripts/setup_ros.sh`",
                allow_module_level=True)
mcap_reader = pytest.importorskip("mcap.reader", reason="the mcap package is not installed")

from hazard_ros import conversions as conv  # noqa: E402 (after the import skips)
from hazard_ros.recorder_node import Recorder, message_class, message_definition, qos_profiles_yaml  # noqa: E402

TEST_TIME_LIMIT_S = 25


@pytest.fixture
def ctx(ros_context):
    """conftest's rclpy context of its own, on an isolated domain."""
    return ros_context


def test_message_definition_like_rosbag2():
    text = message_definition("sensor_msgs/msg/Image")
    assert text.startswith(open(_share("sensor_msgs/msg/Image.msg")).read())
    sep = "\n" + "=" * 80 + "\n"
    assert sep + "MSG: std_msgs/Header\n" in text and sep + "MSG: builtin_interfaces/Time\n" in text
    assert text.count("MSG: builtin_interfaces/Time") == 1         # each dependency once
    tf = message_definition("tf2_msgs/msg/TFMessage")
    assert [ln for ln in tf.splitlines() if ln.startswith("MSG: ")] == [
        "MSG: geometry_msgs/TransformStamped", "MSG: geometry_msgs/Transform", "MSG: geometry_msgs/Quaternion",
        "MSG: geometry_msgs/Vector3", "MSG: std_msgs/Header", "MSG: builtin_interfaces/Time"]
    with pytest.raises(LookupError):
        message_definition("no_such_pkg/msg/Nothing")
    assert message_class("nav2_msgs/action/NavigateToPose_FeedbackMessage").__name__.endswith("FeedbackMessage")
    yaml_text = qos_profiles_yaml([QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                                              durability=DurabilityPolicy.TRANSIENT_LOCAL)])
    assert "reliability: 1" in yaml_text and "durability: 1" in yaml_text and "depth: 1" in yaml_text


def _share(rel):
    import sys
    from pathlib import Path
    pkg, ns, name = rel.split("/")
    return Path(sys.prefix) / "share" / pkg / ns / name


def test_records_live_topics_and_reads_back(ctx, tmp_path):
    out = tmp_path / "run"
    probe = rclpy.create_node("probe", context=ctx)
    latched = probe.create_publisher(String, "task", QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                                                                durability=DurabilityPolicy.TRANSIENT_LOCAL))
    images = probe.create_publisher(Image, "camera/image_raw", 10)
    tf = probe.create_publisher(TFMessage, "/tf", 10)
    latched.publish(String(data='{"hazard": "fire"}'))             # before the recorder exists
    rec = Recorder(context=ctx, parameter_overrides=[Parameter("output", value=str(out)),
                                                     Parameter("discovery_period", value=0.2),
                                                     Parameter("exclude", value="/rosout|/parameter_events")])
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(rec)
    ex.add_node(probe)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not {"/task", "/camera/image_raw", "/tf"} <= set(rec.channels):
            ex.spin_once(timeout_sec=0.05)
        assert {"/task", "/camera/image_raw", "/tf"} <= set(rec.channels)
        while time.monotonic() < deadline and images.get_subscription_count() == 0:
            ex.spin_once(timeout_sec=0.05)
        img = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
        sent = []
        for k in range(5):
            m = conv.to_ros_image(img + k, conv.stamp_from_frame(k), "cam")
            images.publish(m)
            sent.append(m)
            T = conv.to_ros_transform(np.eye(4), conv.stamp_from_frame(k), "odom", "base_link")
            tf.publish(conv.to_ros_tf_message([T]))
        while time.monotonic() < deadline and (rec.counts["/camera/image_raw"] < 5 or rec.counts["/task"] < 1
                                               or rec.counts["/tf"] < 5):
            ex.spin_once(timeout_sec=0.05)
    finally:
        rec.close()
        ex.shutdown()
        rec.destroy_node()
        probe.destroy_node()
    path = tmp_path / "run" / "run_0.mcap"
    assert rec.path == path and path.stat().st_size > 0
    assert (tmp_path / "run" / "metadata.yaml").is_file()

    with open(path, "rb") as f:
        reader = mcap_reader.make_reader(f)
        header = reader.get_header()
        assert header.profile == "ros2"
        summary = reader.get_summary()
        schemas = {s.name: s for s in summary.schemas.values()}
        assert schemas["sensor_msgs/msg/Image"].encoding == "ros2msg"
        assert schemas["sensor_msgs/msg/Image"].data.decode() == message_definition("sensor_msgs/msg/Image")
        chans = {c.topic: c for c in summary.channels.values()}
        assert chans["/task"].message_encoding == "cdr"
        assert "durability: 1" in chans["/task"].metadata["offered_qos_profiles"]   # transient local
        assert chans["/camera/image_raw"].metadata.get("topic_type_hash", "RIHS01_").startswith("RIHS01_")
        assert "/rosout" not in chans
        got = {"/task": [], "/camera/image_raw": [], "/tf": []}
        for schema, channel, message in reader.iter_messages():
            cls = {"/task": String, "/camera/image_raw": Image, "/tf": TFMessage}[channel.topic]
            got[channel.topic].append(deserialize_message(message.data, cls))
        metadata = {m.name: m.metadata for m in reader.iter_metadata()}
        times = [(m.log_time, m.publish_time) for _, _, m in reader.iter_messages()]
    assert metadata["rosbag2"]["serialized_metadata"] == ""
    assert all(0 < pub <= log + 10**8 for log, pub in times) and any(pub < log for log, pub in times)
    assert got["/task"][0].data == '{"hazard": "fire"}'                    # latched value before start
    assert [serialize_message(m) for m in got["/camera/image_raw"]] == [serialize_message(m) for m in sent]
    assert len(got["/tf"]) == 5 and got["/tf"][0].transforms[0].child_frame_id == "base_link"


def test_bad_output_parameter(ctx, tmp_path):
    with pytest.raises(ValueError, match="'output' is empty"):
        Recorder(context=ctx)
    (tmp_path / "bag").mkdir()
    (tmp_path / "bag" / "x").write_text("")
    with pytest.raises(ValueError, match="already exists"):
        Recorder(context=ctx, parameter_overrides=[Parameter("output", value=str(tmp_path / "bag"))])
    with pytest.raises(ValueError, match="compression"):
        Recorder(context=ctx, parameter_overrides=[Parameter("output", value="/tmp/x.mcap"),
                                                   Parameter("compression", value="gzip")])


def test_full_disk_keeps_a_readable_bag(ctx, tmp_path):
    """The disk fills while recording: one error line, recording stops, and the bag is cut back to
    its last whole record and ended there, so mcap's readers read every message before it."""
    import errno
    out = tmp_path / "full"
    probe = rclpy.create_node("probe_full", context=ctx)
    images = probe.create_publisher(Image, "camera/image_raw", 100)
    rec = Recorder(context=ctx, parameter_overrides=[Parameter("output", value=str(out)),
                                                     Parameter("discovery_period", value=0.2),
                                                     Parameter("chunk_size", value=1024),
                                                     Parameter("compression", value="none"),
                                                     Parameter("exclude", value="/rosout|/parameter_events")])
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(rec)
    ex.add_node(probe)
    f = rec._file.f
    capacity = 4000                               # the disk: writes past it fail as a full disk does

    class Disk:
        def write(self, data):
            room = capacity - f.tell()
            if len(data) > room:
                f.write(bytes(data[:max(room, 0)]))
                raise OSError(errno.ENOSPC, "No space left on device")
            return f.write(data)

        def __getattr__(self, name):
            return getattr(f, name)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and ("/camera/image_raw" not in rec.channels or
                                               images.get_subscription_count() == 0):
            ex.spin_once(timeout_sec=0.05)
        rec._file.f = Disk()
        img = np.zeros((4, 5, 3), np.uint8)
        for k in range(60):
            images.publish(conv.to_ros_image(img + k % 7, conv.stamp_from_frame(k), "cam"))
            ex.spin_once(timeout_sec=0.01)
        while time.monotonic() < deadline and not rec.closed:
            ex.spin_once(timeout_sec=0.05)
        assert rec.closed, "the disk never filled"
    finally:
        rec.close()
        ex.shutdown()
        rec.destroy_node()
        probe.destroy_node()
    kept = rec.counts["/camera/image_raw"]
    with open(rec.path, "rb") as fh:
        got = [deserialize_message(m.data, Image) for _, _, m in mcap_reader.make_reader(fh).iter_messages()]
    assert 0 < len(got) <= kept < 60
    assert [bytes(m.data)[0] for m in got] == [k % 7 for k in range(len(got))]
    assert (out / "metadata.yaml").is_file()
