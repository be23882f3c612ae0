"""Bad ROS messages never crash a node, never skew a result.

* The guards (:mod:`hazard_ros.msg_guards`) on the probes of the robustness issue: a
  Detection3DArray with a NaN centre, a task with ``"targets": 7``, a status with
  ``"rescued_ids": 5``, odometry stamped in the future or jumping, NaN transforms.
* In-process fuzz: every node of the HAZARD launch (sim, perception, mapping, navigation,
  decision) built on one context; hypothesis draws messages of each subscribed topic's type
  (NaN / inf / huge numbers, wrong-typed JSON fields, empty and huge arrays) and hands them
  to the subscription's callback exactly as the executor would, and calls every service;
  no callback may raise, and the simulated robot stays finite.
* Over DDS: the launch (every node its own process, lock-step) runs a short fire episode
  while malformed messages are published on every non-control topic; every node stays
  up, and the metrics equal those of the same episode without them.

``-m fuzz`` runs a deeper variant of the in-process fuzz (many more examples).
"""
from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

try:
    import rclpy
    from builtin_interfaces.msg import Time
    from geometry_msgs.msg import TransformStamped
    from nav_msgs.msg import Odometry
    from rclpy.context import Context
    from rclpy.parameter import Parameter
    from std_msgs.msg import String
    from tf2_msgs.msg import TFMessage
    from vision_msgs.msg import Detection3D, Detection3DArray, ObjectHypothesisWithPose
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run `bash scripts/setup_ros.sh`",
                allow_module_level=True)

import ros_fuzz  # noqa: E402

from hazard_ros import msg_guards as mg  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TEST_TIME_LIMIT_S = 300          # s: one rerun of a stalled fuzzed launch fits (below)
SKIP_TOPICS = {"/clock"}          # rclpy's own TimeSource, not a node callback


# ============================================================================ the guards on the probes
class FakeClock:
    def __init__(self, ns):
        self.ns = ns

    def now(self):
        return type("T", (), {"nanoseconds": self.ns})()


class FakeNode:
    """Enough of a node for a Guard: a clock and a logger that records warnings."""

    def __init__(self, now_ns=100 * 10 ** 9):
        self.clock, self.warnings = FakeClock(now_ns), []

    def get_clock(self):
        return self.clock

    def get_logger(self):
        node = self

        class Log:
            def warning(self, text):
                node.warnings.append(text)
        return Log()


def _odom(x, y, sec, nsec=0, frame="odom", child="base_link"):
    m = Odometry()
    m.header.frame_id, m.child_frame_id = frame, child
    m.header.stamp = Time(sec=sec, nanosec=nsec)
    m.pose.pose.position.x, m.pose.pose.position.y = float(x), float(y)
    m.pose.pose.orientation.w = 1.0
    return m


def _detections(*centres):
    arr = Detection3DArray()
    arr.header.frame_id = "map"
    for i, c in enumerate(centres):
        d = Detection3D()
        d.id = str(1000 + i)
        d.bbox.center.position.x, d.bbox.center.position.y, d.bbox.center.position.z = c
        d.bbox.center.orientation.w = 1.0
        d.bbox.size.x = d.bbox.size.y = d.bbox.size.z = 0.3
        h = ObjectHypothesisWithPose()
        h.hypothesis.class_id, h.hypothesis.score = "backpack", 0.9
        d.results.append(h)
        arr.detections.append(d)
    return arr


def test_a_timed_out_lock_step_wait_names_what_the_frame_lacks():
    """The decision node's frame check, read as a list: what is missing for frame 30 of a
    lock-step episode (a frame is 0.1 s)."""
    from types import SimpleNamespace

    from planner_node.plugins.hazard import DecisionNode
    node = SimpleNamespace(latest={"frame": 30}, status={"frame": 30}, perception={}, lockstep=True,
                           frame_dt=0.1, map_stamp_ns=3_000_000_000, boxes_frame=0,
                           labels_of=lambda f: {1: "wall"}, true_boxes=lambda: False)
    node._frame_gaps = lambda m: DecisionNode._frame_gaps(node, m)
    gaps = lambda m=30: list(node._frame_gaps(m))      # noqa: E731
    assert gaps() == [] and DecisionNode._frame_ready(node, 30)
    node.map_stamp_ns = 2_900_000_000
    assert gaps() == ["map of frame 30 (the newest is stamped 2.900 s; is mapping_node running?)"]
    node.status = {"frame": 29}
    node.labels_of = lambda f: None
    assert [g.split(" (")[0] for g in gaps()] == ["perception's instance labels of frame 30",
                                                   "episode/status of frame 30", "map of frame 30"]
    assert not DecisionNode._frame_ready(node, 30)
    assert gaps(31) == ["camera frame from frame 31 on (the newest is 30)"]
    node.lockstep = False                  # free-run: the labels only
    assert len(gaps()) == 1


def test_probes_of_the_issue_are_dropped_with_a_reason():
    node = FakeNode()
    g = mg.Guard(node, warn_period_s=0.0)
    good = g.detections("detections_3d", _detections((1.0, 2.0, 0.5), (math.nan, 0.0, 0.0), (1e300, 0, 0)))
    assert len(good) == 1 and good[0].id == "1000"
    assert "detection 1" in node.warnings[-1] and "not finite" in node.warnings[-1]
    assert g.json("task", String(data='{"hazard": "fire", "targets": 7, "bounds": [0, 0, 1, 1]}'),
                  mg.TASK_FIELDS) is None
    assert "targets must be a list" in node.warnings[-1]
    assert g.json("episode/status", String(data='{"rescued_ids": 5}'), mg.STATUS_FIELDS) is None
    assert g.json("episode/status", String(data='{"held": 1003, "rescued_ids": [5.5]}'), mg.STATUS_FIELDS) is None
    assert g.json("episode/status", String(data='{"held": true}'), mg.STATUS_FIELDS) is None
    ok = g.json("episode/status", String(data='{"held": null, "rescued_ids": [1003], "frame": 7}'), mg.STATUS_FIELDS)
    assert ok == {"held": None, "rescued_ids": [1003], "frame": 7}
    for text in ("[1, 2]", "42", "nope", "[" * 100_000 + "]" * 100_000):
        assert g.json("task", String(data=text), mg.TASK_FIELDS) is None
    from sensor_msgs.msg import Image  # a valid frame stamped 0 (the first one) is accepted
    assert g.ok("image", mg.check_image, Image(height=2, width=3, encoding="mono8", step=3, data=[0] * 6), None)
    assert not g.ok("image", mg.check_image, Image(height=2, width=3, encoding="mono8", step=3, data=[0] * 5), None)
    with pytest.raises(mg.Rejected, match="lacks frames"):
        mg.parse_json('{"value_rate": 1.0}', mg.METRICS_FIELDS, "episode/metrics", mg.METRICS_REQUIRED)


def test_odometry_future_stale_nan_and_jumps_are_rejected_but_a_new_track_is_adopted():
    node = FakeNode(now_ns=100 * 10 ** 9)                        # the clock at 100 s
    g = mg.Guard(node, warn_period_s=0.0)
    assert g.odometry("odom", _odom(1.0, 1.0, 99))
    assert not g.odometry("odom", _odom(1.1, 1.0, 500))          # future-stamped
    assert "in the future" in node.warnings[-1]
    assert not g.odometry("odom", _odom(math.nan, 1.0, 99, 5))   # NaN
    assert not g.odometry("odom", _odom(50.0, 1.0, 99, 100_000_000))   # 49 m in 0.1 s
    assert "implausible jump" in node.warnings[-1]
    assert not g.odometry("odom", _odom(1.0, 1.0, 90))           # 9 s older than the newest
    assert "stale" in node.warnings[-1]
    bad_q = _odom(1.0, 1.0, 99, 200_000_000)
    bad_q.pose.pose.orientation.w = 0.0
    assert not g.odometry("odom", bad_q)
    assert g.odometry("odom", _odom(1.2, 1.0, 99, 300_000_000))  # the real stream goes on
    # a reset (new episode: stamps back to 0, another start): adopted after a few agreeing poses
    results = [g.odometry("odom", _odom(-3.0, 2.0, 0, k * 100_000_000)) for k in range(5)]
    assert results == [False, False, True, True, True]
    # before the clock runs (sim time, no /clock yet: it reads 0): far-future poses are refused
    node3 = FakeNode(now_ns=0)
    g3 = mg.Guard(node3, warn_period_s=0.0)
    assert not g3.odometry("odom", _odom(0.0, 0.0, 10_000))
    assert "in the future (clock at 0.000 s)" in node3.warnings[-1]
    assert g3.odometry("odom", _odom(1.0, 1.0, 0))
    # no clock at all: a pose far after the newest is refused, and forged poses interleaved
    # with a real new track (a reset) do not keep it from being adopted
    s = mg.PoseStreamGuard()
    s.check(5 * 10 ** 9, (1.0, 1.0, 0.0))
    with pytest.raises(mg.Rejected, match="after the newest pose"):
        s.check(10 ** 13, (1.0, 1.0, 0.0))
    adopted = []
    for k in range(4):
        for fake in range(3):
            with pytest.raises(mg.Rejected):
                s.check(10 ** 13 + 10 ** 12 * (3 * k + fake), (50.0, 0.0, 0.0))
        try:
            s.check(k * 100_000_000, (-3.0, 2.0, 0.0))       # the reset: stamps from 0 again
            adopted.append(k)
        except mg.Rejected:
            pass
    assert adopted == [2, 3]
    # warnings are throttled: one per topic per period, with the count since
    node2 = FakeNode()
    g2 = mg.Guard(node2)
    for _ in range(50):
        g2.odometry("odom", _odom(math.inf, 0.0, 1))
    assert len(node2.warnings) == 1 and g2.dropped["odom"] == 50


def test_image_encodings_are_those_the_conversions_decode():
    from hazard_ros.conversions import IMAGE_ENCODINGS
    assert {e: np.dtype(d).itemsize * c for e, (d, c) in IMAGE_ENCODINGS.items()} == mg.IMAGE_BYTES_PER_PIXEL


def test_transforms_are_checked_one_by_one():
    g = mg.Guard(FakeNode())
    msg = TFMessage()
    for x, child in ((1.0, "base_link"), (math.nan, "camera"), (2.0, "")):
        t = TransformStamped()
        t.header.frame_id, t.child_frame_id = "odom", child
        t.header.stamp = Time(sec=99)
        t.transform.translation.x = x
        t.transform.rotation.w = 1.0
        msg.transforms.append(t)
    good = g.transforms("/tf", msg)
    assert [t.child_frame_id for t in good] == ["base_link", ""]    # an empty child: the TF buffer says why
    assert g.dropped["/tf"] == 1


@given(ros_fuzz.message(Detection3DArray))
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_guards_never_raise_on_any_message(msg):
    g = mg.Guard(FakeNode())
    got = g.detections("detections_3d", msg)
    assert got is None or all(math.isfinite(d.bbox.center.position.x) for d in got)


# ============================================================================ every node, in-process
@pytest.fixture(scope="module")
def hazard_nodes():
    """The nodes of the HAZARD launch on one context (no executor: the test calls their
    callbacks the way the executor does)."""
    from hazard_ros.sim_node import SimNode
    from perception_node.mapping_node import MappingNode
    from perception_node.perception_node import PerceptionNode
    from planner_node.navigation_node import NavigationNode
    from planner_node.plugins.hazard import DecisionNode

    context = Context()
    rclpy.init(context=context, domain_id=random.SystemRandom().randint(1, 101))
    lock = [Parameter("lockstep", value=True)]
    nodes = {
        "sim_node": SimNode(context=context, parameter_overrides=lock + [
            Parameter("task", value="fire"), Parameter("camera_width", value=64), Parameter("camera_height", value=48),
            Parameter("lidar_rate", value=0.0), Parameter("gps_rate", value=0.0), Parameter("imu_rate", value=0.0)]),
        "perception_node": PerceptionNode(context=context, parameter_overrides=lock),
        "mapping_node": MappingNode(context=context, parameter_overrides=lock),
        "navigation_node": NavigationNode(context=context, parameter_overrides=lock),
        "decision_node": DecisionNode(context=context, parameter_overrides=lock + [Parameter("agent", value="greedy")]),
    }
    yield nodes
    for n in nodes.values():
        n.destroy_node()
    rclpy.shutdown(context=context)


def _targets(nodes):
    """(node name, topic, message class, callback) of every subscription, and
    (node name, service, request class, callback) of every service."""
    subs, srvs = [], []
    for name, node in nodes.items():
        for s in node.subscriptions:
            if s.topic_name not in SKIP_TOPICS:
                subs.append((name, s.topic_name, s.msg_type, s.callback))
        for s in node.services:
            base = s.srv_name.rsplit("/", 1)[-1]         # rclpy's own parameter services left out
            if not ("parameter" in base or base == "get_type_description"):
                srvs.append((name, s.srv_name, s.srv_type, s.callback))
    return subs, srvs


def _fuzz_nodes(nodes, examples: int) -> dict:
    subs, srvs = _targets(nodes)
    assert {t for _, t, _, _ in subs} >= {"/cmd_vel", "/odom", "/tf", "/tf_static", "/task", "/episode/status",
                                          "/detections_3d", "/map", "/camera/depth/image_raw"}
    assert {s.lstrip("/") for _, s, _, _ in srvs} >= {"pick_up", "drop", "sim/step"}
    tried = {"messages": 0, "service_calls": 0}
    sim = nodes["sim_node"]

    for name, topic, cls, callback in subs:
        @given(ros_fuzz.message(cls))
        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def feed(msg):
            try:
                callback(msg)
            except Exception as exc:       # name the node and topic in the failure
                raise AssertionError(f"{name} crashed on {topic}: {type(exc).__name__}: {exc}") from exc
            tried["messages"] += 1
        feed()
    deep = "[" * 100_000 + "]" * 100_000         # found by the deep fuzz: crashed perception/set_classes
    for name, topic, cls, callback in subs:
        if cls is String:
            for text in (deep, '{"targets": 7, "rescued_ids": 5, "bounds": [1, 2, 3]}', "\x00", "[1]"):
                callback(String(data=text))
                tried["messages"] += 1
    for name, service, srv, callback in srvs:
        for _ in range(3):
            resp = callback(srv.Request(), srv.Response())
            assert isinstance(resp, srv.Response), (name, service, resp)
            tried["service_calls"] += 1
    for _ in range(5):                         # the robot after whatever cmd_vel got through
        sim._advance_frame()
    state = np.concatenate([np.ravel(sim.env.agent.xy), [sim.env.agent.yaw]])
    assert np.all(np.isfinite(state)), state
    for e in sim.env.world.in_scene():
        assert np.all(np.isfinite(e.box.center)), e
    return tried


def test_every_subscription_and_service_of_every_node_survives_fuzzing(hazard_nodes):
    tried = _fuzz_nodes(hazard_nodes, examples=25)
    print(f"fuzz: {tried['messages']} messages, {tried['service_calls']} service calls")
    assert tried["messages"] > 200


@pytest.mark.fuzz
def test_deep_fuzz_of_every_node(hazard_nodes, request):
    if "fuzz" not in (request.config.option.markexpr or ""):
        pytest.skip("the deep fuzz runs with -m fuzz")
    import signal
    signal.alarm(3600)             # the module's 300 s limit is for the suite's tests; a deep run takes longer
    t0 = time.monotonic()
    tried = _fuzz_nodes(hazard_nodes, examples=int(os.environ.get("HAZARD_FUZZ_EXAMPLES", "600")))
    print(f"deep fuzz: {tried['messages']} messages, {tried['service_calls']} service calls "
          f"in {time.monotonic() - t0:.0f} s")


# ============================================================================ over DDS, the launch
def _malformed(rng: random.Random, now_s: float):
    """(topic, message) pairs that every guard must drop: a defect in each."""
    from nav_msgs.msg import OccupancyGrid
    from sensor_msgs.msg import CameraInfo, Image
    bad = rng.choice([math.nan, math.inf, -math.inf, 1e300])
    future = Time(sec=int(now_s) + 10_000 + rng.randrange(10 ** 6))
    now = Time(sec=int(now_s))
    kind = rng.randrange(12)
    if kind == 0:
        return "detections_3d", _detections((bad, 1.0, 0.5))
    if kind == 1:
        m = _odom(bad, 0.0, int(now_s))
        return "odom", m
    if kind == 2:
        m = _odom(0.0, 0.0, 0)
        m.header.stamp = future
        return "odom", m
    if kind == 3:
        msg = TFMessage()
        t = TransformStamped()
        t.header.frame_id, t.child_frame_id, t.header.stamp = "odom", "base_link", future
        t.transform.rotation.w = 1.0
        msg.transforms.append(t)
        return "/tf", msg
    if kind == 4:
        msg = TFMessage()
        t = TransformStamped()
        t.header.frame_id, t.child_frame_id, t.header.stamp = "base_link", "camera_link", now
        t.transform.translation.z = bad
        t.transform.rotation.w = 1.0
        msg.transforms.append(t)
        return rng.choice(["/tf", "/tf_static"]), msg
    if kind == 5:
        field, value = rng.choice([("targets", 7), ("bounds", [0, 0, 1]), ("frame_dt", "x"),
                                   ("sensor_periods", {"camera": 0}), ("map_resolution", -1)])
        return "task", String(data=json.dumps({"hazard": "fire", field: value}))
    if kind == 6:
        field, value = rng.choice([("rescued_ids", 5), ("held", "x"), ("frame", -3), ("done", "yes")])
        return "episode/status", String(data=json.dumps({field: value}))
    if kind == 7:
        return rng.choice(["task", "episode/status", "episode/metrics"]), String(
            data=rng.choice(["[1]", "42", "not json", "[" * 3000 + "]" * 3000, '{"value_rate": 1.0}']))
    if kind == 8:
        img = Image(height=48, width=64, encoding=rng.choice(["32FC1", "rgb8", "16UC1"]), step=64 * 4)
        # valid sizes of the launch's 64 x 48 camera, but the data does not fit or the stamp is far ahead
        img.header.stamp, img.data = (future, [0] * 100) if rng.random() < 0.5 else (now, [0] * 7)
        return rng.choice(["camera/depth/image_raw", "camera/color/image_raw", "camera/segmentation/image_raw",
                           "hazard/temperature/image_raw"]), img
    if kind == 9:
        info = CameraInfo(width=64, height=48)
        info.header.stamp = now
        info.k = [bad, 0.0, 32.0, 0.0, 50.0, 24.0, 0.0, 0.0, 1.0]
        return "camera/color/camera_info", info
    if kind == 10:
        m = OccupancyGrid()
        m.header.stamp = now
        m.info.width, m.info.height, m.info.resolution = 10, 10, bad
        m.data = [0] * 100
        return "map", m
    m = OccupancyGrid()
    m.header.stamp = future
    m.info.width, m.info.height, m.info.resolution = 10, 10, 0.1
    m.data = [0] * 99
    return "map", m


def _launch(tmp_path, name, fuzz: bool, frames: int):
    limit = 200 + 2 * frames           # s: two shared cores under load
    env = dict(os.environ, ROS_DOMAIN_ID=str(random.SystemRandom().randint(1, 101)),
               ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST", PYTHONUNBUFFERED="1")
    out = tmp_path / f"{name}.json"
    cmd = [sys.executable, "-m", "hazard_ros.launcher", "--metrics-out", str(out),
           str(REPO / "launch" / "hazard.launch.yaml"), "task:=fire", "episode:=0", "agent:=greedy",
           f"frame_limit:={frames}", "camera_width:=64", "camera_height:=48"]
    stats = {"published": 0}
    if fuzz:
        # the fuzzer's participant is up before the launch starts, so it discovers the
        # simulator's /clock as soon as that is announced (started after the launch, under
        # load, it once joined only after a 200-frame episode had ended)
        stop, ready = threading.Event(), threading.Event()
        thread = threading.Thread(target=_publish_malformed, args=(int(env["ROS_DOMAIN_ID"]), stop, stats, ready),
                                  daemon=True)
        thread.start()
        ready.wait(60)
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        log, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.send_signal(2)
        try:
            log = proc.communicate(timeout=30)[0] + f"\n[test] the launch did not end within {limit} s"
        except subprocess.TimeoutExpired:
            proc.kill()
            log = proc.communicate()[0] + f"\n[test] the launch did not end within {limit} s"
    finally:
        if fuzz:
            stop.set()
            thread.join(10)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, log, (json.loads(out.read_text()) if out.exists() else None), stats


def _stalls(log: str) -> list[str]:
    """The lock-step waits that timed out (a node waited its wait_timeout for a frame's data)."""
    return [ln for ln in log.splitlines() if "waited " in ln or "lock-step: no pose / map" in ln]


def _publish_malformed(domain_id, stop, stats, ready):
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    context = Context()
    rclpy.init(context=context, domain_id=domain_id)
    node = rclpy.create_node("fuzzer", context=context)
    rng = random.Random(11)
    pubs = {}
    # reliable + transient local: matched by every subscription kind (best effort, volatile, latched)
    reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.TRANSIENT_LOCAL)
    from rclpy.executors import SingleThreadedExecutor
    from rosgraph_msgs.msg import Clock
    sim_time = [0.0]
    node.create_subscription(Clock, "/clock", lambda m: sim_time.__setitem__(0, m.clock.sec + m.clock.nanosec * 1e-9),
                             10)
    ex = SingleThreadedExecutor(context=context)
    ex.add_node(node)
    ready.set()
    try:
        # start once the episode is under way: every node has its latched task and static TF
        # (a flood on a latched topic of history depth 1 could displace those before they are
        # read: that is DDS queueing, not a message a guard can judge), then a steady trickle
        # (a flood of a lock-step sensor queue would displace real frames the same way)
        while sim_time[0] < 1.0 and not stop.is_set():
            ex.spin_once(timeout_sec=0.1)
        while not stop.is_set():
            topic, msg = _malformed(rng, sim_time[0])
            key = (topic, type(msg))
            if key not in pubs:
                pubs[key] = node.create_publisher(type(msg), topic, reliable)
            pubs[key].publish(msg)
            stats["published"] += 1
            stats.setdefault("topics", set()).add(topic)
            ex.spin_once(timeout_sec=0.0)
            time.sleep(0.03)
    finally:
        ex.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=context)


@pytest.mark.fuzz          # in the suite too (200 frames); -m fuzz runs the longer episode
@pytest.mark.skipif(os.environ.get("HAZARD_SKIP_DDS_FUZZ") == "1", reason="HAZARD_SKIP_DDS_FUZZ=1")
def test_malformed_messages_on_every_topic_leave_the_episode_unchanged(tmp_path, request):
    """200 frames in the suite (the lock-step pipeline runs them in a few seconds: enough for
    the trickle that starts at frame 10); with -m fuzz 1000 (the greedy agent's first rescue,
    at frame 972, is in them)."""
    pytest.importorskip("nav2_msgs")
    frames = 1000 if "fuzz" in (request.config.option.markexpr or "") else 200
    if frames > 200:
        import signal
        signal.alarm(1800)         # two launches of the longer episode exceed the module's 300 s limit
    rc0, log0, clean, _ = _launch(tmp_path, "clean", False, frames)
    assert rc0 == 0 and clean is not None, log0[-3000:]
    rc1, log1, fuzzed, stats = _launch(tmp_path, "fuzzed", True, frames)
    if stats["published"] < 40 and rc1 == 0:
        # the episode ended before the fuzzer had discovered the simulator's clock (DDS
        # discovery under load): that says nothing about the guards, so run it once more
        print(f"DDS fuzz: only {stats['published']} messages reached the episode; running it again")
        rc1, log1, fuzzed, stats = _launch(tmp_path, "fuzzed", True, frames)
    stalls = _stalls(log1)
    if stalls and rc1 == 0 and fuzzed == clean:
        # a rare 30 s wait (about 1 run in 10 on this machine, cause not yet found: the
        # warning now names what was missing) is run once more; a systematic one (every run
        # had several while latched readers were one deep) fails below
        (tmp_path / "fuzzed_stalled.log").write_text(log1)
        print(f"DDS fuzz: {len(stalls)} lock-step wait(s), running it again: {stalls[:3]}")
        rc1, log1, fuzzed, stats = _launch(tmp_path, "fuzzed", True, frames)
    (tmp_path / "fuzzed.log").write_text(log1)
    print(f"DDS fuzz: {stats['published']} malformed messages on {sorted(stats.get('topics', ()))}; "
          f"log: {tmp_path / 'fuzzed.log'}")
    assert rc1 == 0 and fuzzed is not None, log1[-3000:]
    # a steady trickle (one message per ~30 ms) for as long as the episode runs: 200 frames take
    # 3-20 s depending on the machine's load, so count what reached the topics, not a fixed total
    assert stats["published"] >= 40 and len(stats["topics"]) >= 10, stats
    assert "dropped a message" in log1
    # a dropped message never costs a lock-step wait: a malformed message must not displace the
    # good one a node waits for (a one-deep latched reader once lost its frame's map: 30 s each)
    stalls = _stalls(log1)
    assert not stalls, stalls[:5]
    for name in ("sim_node", "perception_node", "mapping_node", "navigation_node", "decision_node"):
        assert f"started {name}" in log1
    assert fuzzed == clean
