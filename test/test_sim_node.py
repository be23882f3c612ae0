"""sim_node in-process on an executor: topics, frames, stamps, lock-step, cmd_vel,
services, episode end and parameter errors.

Skipped without rclpy (run `bash scripts/setup_ros.sh`). Each test has its own
rclpy context on a random DDS domain (localhost discovery) and a hard time limit.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

try:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run `bash scripts/setup_ros.sh`",
                allow_module_level=True)

from geometry_msgs.msg import Twist
from std_srvs.srv import Trigger

from hazard_ros import conversions as conv
from hazard_ros.sim_node import PUBLISHED_TOPICS, SimNode, camera_topics
from hazard_ros.tf_math import TfBuffer

TEST_TIME_LIMIT_S = 25
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
BEST_EFFORT = QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)


@pytest.fixture
def ctx(ros_context):
    """conftest's rclpy context of its own, on an isolated domain."""
    return ros_context


class Harness:
    """A sim node and a probe node on one executor; the probe records messages."""

    def __init__(self, context, **params):
        overrides = [Parameter(k, value=v) for k, v in
                     dict(camera_width=64, camera_height=48, lidar_beams=90, lidar_rings=4, **params).items()]
        self.sim = SimNode(context=context, parameter_overrides=overrides)
        self.probe = rclpy.create_node("probe", context=context)
        self.ex = SingleThreadedExecutor(context=context)
        self.ex.add_node(self.sim)
        self.ex.add_node(self.probe)
        self.got: dict[str, list] = {}

    def listen(self, topic, cls, qos=10):
        self.got[topic] = []
        self.probe.create_subscription(cls, topic, self.got[topic].append, qos)

    def spin_until(self, pred, timeout=8.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.ex.spin_once(timeout_sec=0.02)
            if pred():
                return True
        return pred()

    def call(self, name, timeout=8.0):
        client = self.probe.create_client(Trigger, name)
        assert self.spin_until(client.service_is_ready, timeout), f"service {name} not available"
        fut = client.call_async(Trigger.Request())
        assert self.spin_until(fut.done, timeout), f"no response from {name}"
        return fut.result()

    def close(self):
        self.ex.shutdown()
        self.sim.destroy_node()
        self.probe.destroy_node()


def msg_class(type_str):
    import importlib
    pkg, _, name = type_str.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), name)


def test_free_run_publishes_contract_topics(ctx):
    h = Harness(ctx, task="fire", realtime_factor=4.0, gps_rate=10.0, lidar_rate=10.0)
    try:
        # what this node advertises for HAZARD (no named cameras, no altimeter, no reports)
        types = h.sim.topic_types
        assert set(types) == set(h.sim.pubs) and all(PUBLISHED_TOPICS[t] == types[t] for t in types)
        topics = [t for t in types if t not in ("episode/metrics",)]
        assert "water_level/image_raw" not in topics and not any(t.startswith("camera_") for t in topics)
        assert not {"altimeter/range", "reports"} & set(topics)
        for t in topics:
            latched = t in ("/tf_static", "task", "camera/segmentation/label_info", "episode/status",
                            "world/static_markers")
            h.listen(t, msg_class(types[t]), LATCHED if latched else
                     (BEST_EFFORT if "camera" in t or "thermal" in t else 10))
        assert h.spin_until(lambda: all(h.got[t] for t in topics) and len(h.got["camera/depth/image_raw"]) >= 3), \
            f"missing: {[t for t in topics if not h.got[t]]}"
        # types on the graph match the catalogue's
        graph = dict(h.probe.get_topic_names_and_types())
        for t in topics:
            assert graph["/" + t.lstrip("/")] == [types[t]], t
        color, depth = h.got["camera/color/image_raw"][-1], h.got["camera/depth/image_raw"]
        seg, thermal = h.got["camera/segmentation/image_raw"][-1], h.got["thermal/image_raw"][-1]
        encodings = (color.encoding, depth[-1].encoding, seg.encoding, thermal.encoding)
        assert encodings == ("rgb8", "32FC1", "32SC1", "32FC1")
        assert {m.header.frame_id for m in (color, depth[-1], seg, thermal)} == {"camera_optical_frame"}
        assert conv.from_ros_image(color).shape == (48, 64, 3)
        # every image of one frame has the same stamp; successive depth frames are 0.1 s apart
        stamps = {conv.frame_from_stamp(m.header.stamp) for m in h.got["camera/color/image_raw"]}
        assert {conv.frame_from_stamp(m.header.stamp) for m in depth} <= stamps | {0}
        d = np.diff([conv.time_to_ns(m.header.stamp) for m in depth])
        assert np.all(d > 0) and np.all(d % conv.FRAME_DT_NS == 0)
        info = h.got["camera/color/camera_info"][-1]
        assert np.allclose(conv.from_ros_camera_info(info), h.sim.env.camera.intrinsics())
        odom = h.got["odom"][-1]
        assert (odom.header.frame_id, odom.child_frame_id) == ("odom", "base_link")
        assert h.got["lidar/points"][-1].header.frame_id == "lidar_link"
        assert len(conv.from_ros_pointcloud2(h.got["lidar/points"][-1])) > 0
        assert h.got["imu/data"][-1].header.frame_id == "imu_link"
        fix = h.got["gps/fix"][-1]
        xy = conv.from_ros_navsatfix(fix, h.sim.datum)[:2]
        assert np.linalg.norm(xy - conv.from_ros_odometry(h.got["odom"][-1])[:2]) < 0.5
        labels = conv.from_ros_label_info(h.got["camera/segmentation/label_info"][0])
        assert labels[900] == "fire" and all(labels[o.id] == o.name for o in h.sim.env.world.objects)
        task = json.loads(h.got["task"][0].data)
        assert task["hazard"] == "fire" and task["episode"] == 0 and len(task["bounds"]) == 4
        status = json.loads(h.got["episode/status"][-1].data)
        assert {"frame", "held", "rescued_ids", "done", "last_result"} <= set(status)
        # /clock is the simulator's: some frames have run, and the clock never runs ahead of the world
        assert 1 <= conv.frame_from_stamp(h.got["/clock"][-1].clock) <= h.sim.env.world.frame
        # the TF chain map -> camera_optical_frame reproduces the core's camera pose
        buf = TfBuffer()
        for m in h.got["/tf_static"]:
            buf.add_message(m, static=True)
        for m in h.got["/tf"]:
            buf.add_message(m)
        last = h.got["/tf"][-1].transforms[0]
        x, y = last.transform.translation.x, last.transform.translation.y
        T = buf.lookup("map", "camera_optical_frame")
        yaw = conv.quaternion_to_yaw(last.transform.rotation)
        from hazard_sim.embodiment.humanoid import Humanoid
        pos, rot = Humanoid((x, y), yaw, h.sim.env.agent.spec).camera_pose()
        assert np.allclose(T[:3, 3], pos, atol=1e-6) and np.allclose(T[:3, :3], rot, atol=1e-6)
    finally:
        h.close()


def test_lockstep_step_advances_exactly_one_frame(ctx):
    h = Harness(ctx, task="flood", lockstep=True)
    try:
        h.listen("camera/depth/image_raw", msg_class("sensor_msgs/msg/Image"), BEST_EFFORT)
        h.listen("water_level/image_raw", msg_class("sensor_msgs/msg/Image"), BEST_EFFORT)
        # lock-step: nothing moves on its own (no free-run timer), frames come only from sim/step
        assert not [t for t in h.sim.timers if t.callback == h.sim._on_timer]
        assert h.spin_until(lambda: h.sim.count_subscribers("water_level/image_raw") >= 1, 10.0)
        assert h.sim.env.world.frame == 0
        for expect in (1, 2):
            res = h.call("sim/step")
            assert res.success and res.message == str(expect)
            assert h.sim.env.world.frame == expect
            assert h.spin_until(lambda: any(conv.frame_from_stamp(m.header.stamp) == expect
                                            for m in h.got["camera/depth/image_raw"]))
            assert any(conv.frame_from_stamp(m.header.stamp) == expect for m in h.got["water_level/image_raw"])
        assert h.sim.env.world.frame == 2
    finally:
        h.close()


def test_cmd_vel_moves_and_times_out(ctx):
    h = Harness(ctx, task="fire", lockstep=True)
    try:
        env = h.sim.env
        start = env.agent.xy.copy()
        pub = h.probe.create_publisher(Twist, "cmd_vel", 10)
        cmd = Twist()
        cmd.linear.x = 1.0
        assert h.spin_until(lambda: pub.get_subscription_count() > 0)
        pub.publish(cmd)
        assert h.spin_until(lambda: h.sim.cmd == (1.0, 0.0))
        for _ in range(10):
            assert h.call("sim/step").success
        # 0.5 s of sim time (5 frames) at the top walking speed, then the command times out
        moved = np.linalg.norm(env.agent.xy - start)
        assert moved == pytest.approx(5 * min(1.0 * 0.1, env.agent.spec.walk_per_frame), abs=1e-6)
        assert h.sim.tracker.v_body[0] == 0.0
    finally:
        h.close()


def test_services_fail_with_reasons(ctx):
    h = Harness(ctx, task="fire", split="train", episode=13, lockstep=False, realtime_factor=1.0)
    try:
        res = h.call("pick_up")
        assert not res.success and "within reach" in res.message
        res = h.call("drop")
        assert not res.success and "hands are empty" in res.message
        res = h.call("sim/step")
        assert not res.success and "lock-step" in res.message
    finally:
        h.close()


def test_episode_end_latches_metrics(ctx):
    h = Harness(ctx, task="wind", lockstep=True)
    try:
        h.sim.env.frame_limit = 2
        assert h.call("sim/step").success
        assert h.call("sim/step").success
        res = h.call("sim/step")
        assert not res.success and "episode is over" in res.message
        h.listen("episode/metrics", msg_class("std_msgs/msg/String"), LATCHED)   # a late subscriber
        assert h.spin_until(lambda: h.got["episode/metrics"])
        m = json.loads(h.got["episode/metrics"][0].data)
        assert m["task"] == "wind" and m["frames"] == 2 and "value_rate" in m
    finally:
        h.close()


def test_benchmark_id_and_old_task_spelling_agree(ctx):
    nodes = [SimNode(context=ctx, parameter_overrides=[Parameter(k, value=v), Parameter("camera_width", value=32),
                                                       Parameter("camera_height", value=24)])
             for k, v in (("benchmark", "hazard/flood"), ("task", "flood"))]
    try:
        assert [n.env.benchmark for n in nodes] == ["hazard/flood", "hazard/flood"]
        assert [n.channel for n in nodes] == ["water_level", "water_level"]
        assert nodes[0].env.spec_dict == nodes[1].env.spec_dict
    finally:
        for n in nodes:
            n.destroy_node()


def test_bad_parameter_gives_one_clear_error(ctx):
    with pytest.raises(ValueError, match="unknown benchmark 'lava'"):
        SimNode(context=ctx, parameter_overrides=[Parameter("task", value="lava")])
    with pytest.raises(ValueError, match="unknown benchmark 'hazard/lava'"):
        SimNode(context=ctx, parameter_overrides=[Parameter("benchmark", value="hazard/lava")])
    with pytest.raises(ValueError, match="camera_width"):
        SimNode(context=ctx, parameter_overrides=[Parameter("task", value="fire"), Parameter("camera_width", value=0)])
    # no default benchmark: the node names what it needs
    with pytest.raises(ValueError, match="parameter 'benchmark' is required: one of .*doze/level1.*hazard/fire"):
        SimNode(context=ctx, parameter_overrides=[Parameter("camera_width", value=32)])
    proc = subprocess.run([sys.executable, "-m", "hazard_ros.sim_node", "--ros-args", "-p", "task:=lava"],
                          capture_output=True, text=True, timeout=20, env=dict(os.environ))
    assert proc.returncode == 2
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    assert len(lines) == 1, lines                          # one clear line, no traceback
    assert re.fullmatch(r"\[sim_node\] error: unknown benchmark 'lava': expected one of .*"
                        r"hazard/fire, hazard/flood, hazard/wind.* \(or fire, flood, wind\)", lines[0]), lines



RELIABLE_VOLATILE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)


def test_camera_conventions_reliable_and_best_effort_subscribers(ctx):
    """Free-run: depth camera_info beside the depth image (same intrinsics and frame), and
    images / camera infos reach reliable (image_view style) and best-effort subscribers."""
    h = Harness(ctx, task="fire", realtime_factor=4.0)
    try:
        cls = {"image": msg_class("sensor_msgs/msg/Image"), "info": msg_class("sensor_msgs/msg/CameraInfo")}
        for qos_name, qos in (("rel", RELIABLE_VOLATILE), ("be", BEST_EFFORT)):
            for topic, kind in (("camera/depth/image_raw", "image"), ("camera/depth/camera_info", "info"),
                                ("camera/color/image_raw", "image"), ("camera/color/camera_info", "info")):
                key = f"{qos_name}:{topic}"
                h.got[key] = []
                h.probe.create_subscription(cls[kind], topic, h.got[key].append, qos)
        assert h.spin_until(lambda: all(len(v) >= 2 for v in h.got.values())), \
            {k: len(v) for k, v in h.got.items()}
        depth_info, color_info = h.got["rel:camera/depth/camera_info"][-1], h.got["rel:camera/color/camera_info"][-1]
        assert depth_info.header.frame_id == h.got["rel:camera/depth/image_raw"][-1].header.frame_id
        assert np.allclose(conv.from_ros_camera_info(depth_info), conv.from_ros_camera_info(color_info))
        assert (depth_info.width, depth_info.height) == (64, 48)
        offered = h.probe.get_publishers_info_by_topic("/camera/depth/image_raw")[0].qos_profile
        assert offered.reliability == ReliabilityPolicy.RELIABLE
    finally:
        h.close()


def test_lockstep_honours_sensor_rates_and_republishes_state_when_idle(ctx):
    h = Harness(ctx, task="fire", lockstep=True, gps_rate=2.0, lidar_rate=5.0, idle_republish=0.3)
    try:
        h.listen("gps/fix", msg_class("sensor_msgs/msg/NavSatFix"), 10)
        h.listen("lidar/points", msg_class("sensor_msgs/msg/PointCloud2"), 10)
        h.listen("camera/depth/image_raw", msg_class("sensor_msgs/msg/Image"), 10)
        for _ in range(10):
            assert h.call("sim/step").success
        assert h.spin_until(lambda: any(conv.frame_from_stamp(m.header.stamp) == 10
                                        for m in h.got["camera/depth/image_raw"]))
        h.spin_until(lambda: False, 0.1)
        frames = {t: sorted({conv.frame_from_stamp(m.header.stamp) for m in h.got[t]} - {0})
                  for t in ("gps/fix", "lidar/points", "camera/depth/image_raw")}
        assert frames["gps/fix"] == [5, 10]                  # 2 Hz in sim time, as in free-run
        assert frames["lidar/points"] == [2, 4, 6, 8, 10]
        assert frames["camera/depth/image_raw"] == list(range(1, 11))
        # a volatile subscriber that comes late still gets odom and camera info of frame 10
        h.listen("odom", msg_class("nav_msgs/msg/Odometry"), RELIABLE_VOLATILE)
        h.listen("camera/depth/camera_info", msg_class("sensor_msgs/msg/CameraInfo"), RELIABLE_VOLATILE)
        assert h.spin_until(lambda: h.got["odom"] and h.got["camera/depth/camera_info"], 5.0)
        assert conv.frame_from_stamp(h.got["odom"][-1].header.stamp) == 10
        assert h.sim.env.world.frame == 10                    # republishing does not step
    finally:
        h.close()


def test_doze_people_published_as_markers_and_detections(ctx):
    """DOZE's walking people for RViz (world/markers: a cylinder and a label each) and for
    other nodes (world/objects: vision_msgs Detection3DArray, class_id person, id = their
    instance id in the segmentation), following them as they walk."""
    from vision_msgs.msg import Detection3DArray
    from visualization_msgs.msg import Marker, MarkerArray
    h = Harness(ctx, benchmark="doze/level3", lockstep=True, idle_republish=0.0)
    try:
        people = h.sim.env.world.process("people").people
        assert people
        h.listen("world/objects", Detection3DArray, 10)
        h.listen("world/markers", MarkerArray, 10)
        for _ in range(5):
            assert h.call("sim/step").success
        assert h.spin_until(lambda: h.got["world/objects"] and h.got["world/markers"])
        objs = h.got["world/objects"][-1]
        found = {int(d.id): d for d in objs.detections if d.results[0].hypothesis.class_id == "person"}
        assert set(found) == {p.id for p in people}
        assert conv.frame_from_stamp(objs.header.stamp) == h.sim.env.world.frame == 5
        for p in people:
            c = found[p.id].bbox.center.position
            assert (c.x, c.y, c.z) == pytest.approx((p.xy[0], p.xy[1], p.height / 2), abs=1e-9)
        cyl = [m for m in h.got["world/markers"][-1].markers if m.type == Marker.CYLINDER]
        assert sorted(m.id for m in cyl) == sorted(p.id for p in people)
        labels = h.sim.env.world.labels()
        assert all(labels[p.id] == "person" for p in people)          # the same ids as the segmentation
    finally:
        h.close()


def test_ground_truth_topics_off_publishes_only_a_robots_sensors(ctx):
    """``ground_truth_topics:=false`` (the real-robot case): no segmentation, label map or world
    objects / markers are advertised or sent; the sensors are, and the task says so."""
    from hazard_ros.sim_node import GROUND_TRUTH_TOPICS, is_ground_truth
    assert is_ground_truth("camera_front_left/segmentation/image_raw")
    assert not any(is_ground_truth(t) for t in ("camera_front_left/image_raw", "camera/depth/image_raw",
                                                "thermal/image_raw", "odom", "lidar/points", "reports"))
    h = Harness(ctx, task="fire", lockstep=True, ground_truth_topics=False, idle_republish=0.0)
    try:
        assert not set(GROUND_TRUTH_TOPICS) & set(h.sim.pubs)
        for t in ("camera/color/image_raw", "camera/depth/image_raw", "thermal/image_raw", "odom", "task"):
            assert t in h.sim.pubs, t
        h.listen("task", msg_class("std_msgs/msg/String"), LATCHED)
        h.listen("camera/depth/image_raw", msg_class("sensor_msgs/msg/Image"), 10)
        assert h.call("sim/step").success
        assert h.spin_until(lambda: h.got["task"] and any(conv.frame_from_stamp(m.header.stamp) == 1
                                                          for m in h.got["camera/depth/image_raw"]))
        task = json.loads(h.got["task"][0].data)
        assert task["ground_truth_topics"] is False
        assert task["services"] == ["done", "drop", "pick_up", "sim/step", "stop"]
        graph = {name for name, _ in h.probe.get_topic_names_and_types()}
        assert "/camera/depth/image_raw" in graph
        assert not {"/" + t for t in GROUND_TRUTH_TOPICS} & graph
    finally:
        h.close()
    h = Harness(ctx, task="fire", lockstep=True, idle_republish=0.0)      # the default: all of them
    try:
        assert set(GROUND_TRUTH_TOPICS) <= set(h.sim.pubs)
    finally:
        h.close()


IMPORT_PROBE = """
import json, sys
import rclpy
from rclpy.parameter import Parameter
import hazard_ros.sim_node as sim_node
def benchmark_modules():
    return sorted({".".join(m.split(".")[:3]) for m in sys.modules
                   if m.startswith(("hazard_sim.tasks.", "hazard_ros.plugins."))})
at_import = benchmark_modules()
rclpy.init()
node = sim_node.SimNode(parameter_overrides=[Parameter("benchmark", value=sys.argv[1]),
                                             Parameter("camera_width", value=16), Parameter("camera_height", value=12)])
services = sorted(name for name, _ in node.get_service_names_and_types_by_node("sim_node", "/")
                  if not name.startswith("/sim_node/"))
print(json.dumps([at_import, benchmark_modules(), services]))
node.destroy_node()
rclpy.shutdown()
"""


def test_sim_node_imports_only_the_requested_benchmark_and_serves_its_services():
    """Importing sim_node imports no benchmark; a node imports its own benchmark's package and
    plug-in only, and serves sim/step plus the services its RosPieces declare."""
    proc = subprocess.run([sys.executable, "-c", IMPORT_PROBE, "hazard/fire"], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-2000:]
    at_import, loaded, services = json.loads(proc.stdout.strip().splitlines()[-1])
    assert at_import == []
    assert loaded == ["hazard_ros.plugins.hazard", "hazard_sim.tasks.hazard"]
    assert services == ["/done", "/drop", "/pick_up", "/pick_up_object", "/sim/step", "/stop"]


def test_ground_truth_topics_off_leaves_out_the_named_cameras_segmentation(ctx):
    """A body with named cameras (ESAR's UAV): their colour, depth and camera infos stay, their
    segmentation goes with the rest of the ground truth."""
    h = Harness(ctx, benchmark="esar/alpine", lockstep=True, ground_truth_topics=False, idle_republish=0.0)
    try:
        assert h.sim.cameras
        for name in h.sim.cameras:
            topics = camera_topics(name)
            seg = f"camera_{name}/segmentation/image_raw"
            assert seg not in h.sim.pubs and set(topics) - {seg} <= set(h.sim.pubs)
        assert not [t for t in h.sim.pubs if "segmentation" in t or t.startswith("world/")]
        assert {"reports", "altimeter/range", "lidar/points"} <= set(h.sim.pubs)      # the referee's echo, sensors
        assert h.call("sim/step").success
    finally:
        h.close()


def test_pick_up_object_takes_the_named_object_not_the_nearest(ctx):
    """hazard_msgs/srv/PickUp: the agent names its object (HAZARD's pick_up(object)); the Trigger
    pick_up would take the nearest observed target instead (over ROS, fire test 24 once rescued
    another umbrella than the one the agent asked for)."""
    from hazard_msgs.srv import PickUp

    from hazard_sim.geometry import Box
    h = Harness(ctx, task="fire", lockstep=True)
    try:
        env = h.sim.env
        near, far = [o for o in env.world.targets() if o.location == "scene"][:2]
        spots = [env.agent.xy + d for d in (np.array([0.6, 0.0]), np.array([-0.6, 0.0]), np.array([0.0, 0.6]),
                                            np.array([0.0, -0.6]), np.array([1.2, 0.0]), np.array([-1.2, 0.0]),
                                            np.array([0.0, 1.2]), np.array([0.0, -1.2]))]
        free = [p for p in spots if not env.line_blocked(env.agent.xy, np.array([p[0], p[1], 0.3]))]
        free.sort(key=lambda p: float(np.linalg.norm(p - env.agent.xy)))
        assert len(free) >= 2
        for obj, xy in ((near, free[0]), (far, free[-1])):
            centre = np.array([xy[0], xy[1], obj.box.center[2]])
            obj.box = Box(centre, obj.box.half, obj.box.rot)
            if env.world.physics is not None and obj.body >= 0:
                env.world.physics.set_pose(obj.body, centre)
            env.observed_ids.add(obj.id)
        client = h.probe.create_client(PickUp, "pick_up_object")
        assert h.spin_until(client.service_is_ready), "pick_up_object is not served"

        def pick(object_id):
            fut = client.call_async(PickUp.Request(object_id=object_id))
            assert h.spin_until(fut.done), "no response from pick_up_object"
            return fut.result()

        from hazard_sim import teleop
        assert teleop.nearest_reachable_target(env)[0] == near.id       # what the Trigger would take
        res = pick(987654)
        assert not res.success and res.message
        res = pick(far.id)
        assert res.success, res.message
        assert env.agent.held is far                     # the named one, though `near` is nearer
    finally:
        h.close()


def test_frame_limit_minus_one_never_ends_the_episode(ctx):
    from hazard_ros.sim_params import NO_FRAME_LIMIT
    h = Harness(ctx, task="fire", lockstep=True, frame_limit=-1)
    try:
        assert h.sim.env.frame_limit == NO_FRAME_LIMIT
        assert h.call("sim/step").success and not h.sim.env.out_of_time
    finally:
        h.close()
