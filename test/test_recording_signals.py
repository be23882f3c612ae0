"""The recorder as a process, stopped by SIGINT / SIGTERM (once, or twice in a row) at random
moments while messages stream in: it must exit with code 0 and every bag must be complete and
consistent, read back by two independent readers
(rosbags' AnyReader on the bag directory; the mcap package's indexed and streaming readers with
mcap_ros2's pure-Python CDR decoder) and agree with metadata.yaml and the MCAP summary."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

try:
    import rclpy
    from rclpy.context import Context
    from std_msgs.msg import String
    from tf2_msgs.msg import TFMessage
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)
anyreader = pytest.importorskip("rosbags.highlevel", reason="rosbags is not installed")
mcap_reader = pytest.importorskip("mcap.reader", reason="the mcap package is not installed")
mcap_ros2_decoder = pytest.importorskip("mcap_ros2.decoder", reason="mcap-ros2-support is not installed")
import yaml  # noqa: E402

from hazard_ros import conversions as conv  # noqa: E402
from hazard_ros import ros_qos as qos  # noqa: E402

TEST_TIME_LIMIT_S = 60
REPO = Path(__file__).resolve().parents[1]


def _start_recorder(out: Path, env: dict) -> subprocess.Popen:
    code = "import sys; from hazard_ros.recorder_node import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, "--ros-args", "-p", f"output:={out}",
                             "-p", "discovery_period:=0.2", "-p", "exclude:=/rosout|/parameter_events"],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _check_bag(bag: Path) -> int:
    """Read ``bag`` with the independent readers; returns its message count."""
    meta = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert meta["version"] == 9 and meta["storage_identifier"] == "mcap"
    want = {t["topic_metadata"]["name"]: t["message_count"] for t in meta["topics_with_message_count"]}
    assert sum(want.values()) == meta["message_count"] == meta["files"][0]["message_count"]
    mcap_file = bag / meta["relative_file_paths"][0]

    # 1. rosbags (its own MCAP + CDR implementation), opened on the directory like ros2 bag
    with anyreader.AnyReader([bag]) as reader:
        got = {}
        for conn, _, raw in reader.messages():
            msg = reader.deserialize(raw, conn.msgtype)
            got[conn.topic] = got.get(conn.topic, 0) + 1
            if conn.topic == "/chatter":
                assert msg.data.startswith("msg ")
        assert reader.message_count == meta["message_count"]
    assert {t: n for t, n in got.items()} == {t: n for t, n in want.items() if n}

    # 2. the mcap package: summary statistics, indexed reading, and a plain stream scan
    with open(mcap_file, "rb") as f:
        r = mcap_reader.make_reader(f, decoder_factories=[mcap_ros2_decoder.DecoderFactory()])
        summary = r.get_summary()
        assert summary is not None, "no summary: the file was not finished"
        stats = {summary.channels[c].topic: n for c, n in summary.statistics.channel_message_counts.items()}
        indexed = {}
        for _, channel, _, decoded in r.iter_decoded_messages():
            indexed[channel.topic] = indexed.get(channel.topic, 0) + 1
            if channel.topic == "/tf":
                assert decoded.transforms[0].child_frame_id == "base_link"
    with open(mcap_file, "rb") as f:
        streamed = {}
        channels = {}
        for record in mcap_reader.StreamReader(f, skip_magic=False).records:
            name = type(record).__name__
            if name == "Channel":
                channels[record.id] = record.topic
            elif name == "Message":
                streamed[channels[record.channel_id]] = streamed.get(channels[record.channel_id], 0) + 1
    assert stats == indexed == streamed == {t: n for t, n in want.items() if n}
    return meta["message_count"]


def test_recording_survives_sigint_and_sigterm_at_random_moments(ros_env, tmp_path):
    rng = random.Random(int(os.environ.get("HAZARD_TEST_SEED", "0")) or None)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    ctx = Context()
    rclpy.init(context=ctx, domain_id=ros_env)
    node = rclpy.create_node("streamer", context=ctx)
    chatter = node.create_publisher(String, "chatter", 10)
    tf = node.create_publisher(TFMessage, "/tf", qos.TF)
    task = node.create_publisher(String, "task", qos.LATCHED)
    task.publish(String(data='{"hazard": "fire"}'))
    try:
        for k, sig in enumerate((signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGTERM)):
            bag = tmp_path / f"bag{k}"
            proc = _start_recorder(bag, env)
            deadline = time.monotonic() + 20
            while chatter.get_subscription_count() == 0 or tf.get_subscription_count() == 0:
                assert proc.poll() is None, proc.communicate()[0].decode()
                assert time.monotonic() < deadline, "the recorder did not subscribe"
                time.sleep(0.02)
            stop_at = time.monotonic() + rng.uniform(0.2, 1.2)
            n = 0
            while time.monotonic() < stop_at:        # ~1 kHz of two topics until the signal
                chatter.publish(String(data=f"msg {n}"))
                tf.publish(conv.to_ros_tf_message([conv.to_ros_transform(
                    __import__("numpy").eye(4), conv.stamp_from_frame(n), "odom", "base_link")]))
                n += 1
                time.sleep(0.001)
            proc.send_signal(sig)
            if k >= 2:                                # impatient users press Ctrl-C twice
                time.sleep(rng.uniform(0.0, 0.1))
                proc.send_signal(sig)
            for _ in range(50):                       # messages still in flight while it stops
                chatter.publish(String(data=f"msg {n}"))
                n += 1
            out = proc.communicate(timeout=20)[0].decode()
            assert proc.returncode == 0, out
            assert "Traceback" not in out and "terminate called" not in out, out
            assert _check_bag(bag) > 10, out
    finally:
        node.destroy_node()
        rclpy.shutdown(context=ctx)
