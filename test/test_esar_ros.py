"""The ROS sim node serving an ESAR task: the UAV's TF, cmd_vel in x, y, z and yaw, odometry /
NavSatFix / altimeter / IMU against hand-computed values, four camera topic sets, world
markers, ground-truth objects and victim / clue reports; and the same over real DDS with
the simulator in its own process.

Hand computation of the climb (MultirotorSpec defaults): cmd_vel linear.x 20 m/s (clipped to
10), linear.z 2 m/s; the velocity moves towards the command by at most 5 m/s^2 horizontally
(0.5 m/s per 0.1 s frame) and 3 m/s^2 vertically (0.3 m/s per frame). After 10 frames the
horizontal speed is 0.5 k m/s in frame k, so the UAV flew 0.1 * 0.5 * (1 + ... + 10) = 2.75 m
along its heading; the climb rate is 0.3, 0.6, ..., 1.8, then 2.0 (frames 7-10): it rose
0.1 * (6.3 + 4 * 2.0) = 1.43 m.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import TensorStandIn

try:
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)

from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from nav_msgs.msg import Path as PathMsg
from sensor_msgs.msg import CameraInfo, FluidPressure, Image, Imu, NavSatFix, PointCloud2, Range
from std_msgs.msg import String
from test_sim_node import Harness, ctx  # noqa: F401  (the fixture and harness of the sim node tests)
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import Detection3DArray
from visualization_msgs.msg import Marker, MarkerArray

from hazard_ros import conversions as conv
from hazard_ros.sim_node import PUBLISHED_TOPICS, camera_topics
from hazard_ros.tf_math import TfBuffer

REPO = Path(__file__).resolve().parents[1]

TEST_TIME_LIMIT_S = 150
CAMERAS = ("front_center", "front_left", "front_right", "bottom_center")
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
LATCHED_MANY = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.TRANSIENT_LOCAL)
BEST_EFFORT = QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)

# WGS-84, written out here so the GPS check does not reuse the code it checks
A, F = 6378137.0, 1.0 / 298.257223563
E2 = F * (2 - F)


def hand_latlon(x, y, lat0, lon0):
    s2 = math.sin(math.radians(lat0)) ** 2
    m = A * (1 - E2) / (1 - E2 * s2) ** 1.5
    n = A / math.sqrt(1 - E2 * s2)
    return lat0 + math.degrees(y / m), lon0 + math.degrees(x / (n * math.cos(math.radians(lat0))))


def hand_ground(h, spacing, x, y):
    """Height on the terrain mesh's triangles (cells split along the (i, j)-(i+1, j+1) diagonal)."""
    fx, fy = x / spacing, y / spacing
    j, i = int(fx), int(fy)
    u, v = fx - j, fy - i
    h00, h01, h10, h11 = (float(h[i, j]), float(h[i, j + 1]), float(h[i + 1, j]), float(h[i + 1, j + 1]))
    if u >= v:
        return h00 + u * (h01 - h00) + v * (h11 - h01)
    return h00 + v * (h10 - h00) + u * (h11 - h10)


def test_topics_of_the_uav_are_in_the_one_topic_list():
    for c in CAMERAS:
        for t, kind in camera_topics(c).items():
            assert PUBLISHED_TOPICS[t] == kind
    assert PUBLISHED_TOPICS["altimeter/range"] == "sensor_msgs/msg/Range"
    assert PUBLISHED_TOPICS["world/markers"] == "visualization_msgs/msg/MarkerArray"


def test_sim_node_flies_the_uav_with_hand_computed_state(ctx):  # noqa: F811
    h = Harness(ctx, benchmark="esar/alpine", lockstep=True, cmd_vel_timeout=5.0, gps_rate=10.0, lidar_rate=10.0,
                idle_republish=0.0)
    try:
        env = h.sim.env
        assert env.agent.kind == "multirotor" and h.sim.flies and h.sim.cameras == list(CAMERAS)
        for t, cls in (("odom", Odometry), ("gps/fix", NavSatFix), ("altimeter/range", Range),
                       ("altimeter/pressure", FluidPressure), ("imu/data", Imu), ("lidar/points", PointCloud2),
                       ("world/markers", MarkerArray), ("world/objects", Detection3DArray), ("trajectory", PathMsg),
                       ("/tf", TFMessage)):
            h.listen(t, cls, BEST_EFFORT if t not in ("/tf",) else 100)
        for c in CAMERAS:
            for t in camera_topics(c):
                h.listen(t, Image if t.endswith("image_raw") else CameraInfo, BEST_EFFORT)
        for t, cls, q in (("/tf_static", TFMessage, LATCHED), ("world/static_markers", MarkerArray, LATCHED),
                          ("task", String, LATCHED), ("reports", Detection3DArray, LATCHED_MANY),
                          ("reports/markers", MarkerArray, LATCHED_MANY),
                          ("episode/status", String, 10)):
            h.listen(t, cls, q)
        x0, y0, z0 = env.agent.position
        yaw0 = env.agent.yaw
        pub = h.probe.create_publisher(Twist, "cmd_vel", 10)
        cmd = Twist()
        cmd.linear.x, cmd.linear.z = 20.0, 2.0
        assert h.spin_until(lambda: pub.get_subscription_count() > 0)
        pub.publish(cmd)
        assert h.spin_until(lambda: h.sim.twist.vz == 2.0)
        assert h.sim.twist.vx == 20.0            # the body clips it, not the node
        for _ in range(10):
            assert h.call("sim/step").success
        assert h.spin_until(lambda: any(conv.frame_from_stamp(m.header.stamp) == 10 for m in h.got["odom"])
                            and h.got["camera_bottom_center/segmentation/image_raw"])

        def at10(topic):
            def head(m):
                return m.markers[0].header if isinstance(m, MarkerArray) else m.header
            return next(m for m in h.got[topic] if conv.frame_from_stamp(head(m).stamp) == 10)
        # odometry: 2.75 m along the heading, 1.43 m up (module docstring)
        odom = at10("odom")
        p = odom.pose.pose.position
        want = (x0 + 2.75 * math.cos(yaw0), y0 + 2.75 * math.sin(yaw0), z0 + 1.43)
        assert (p.x, p.y, p.z) == pytest.approx(want, abs=1e-6)
        assert odom.twist.twist.linear.x == pytest.approx(5.0) and odom.twist.twist.linear.z == pytest.approx(2.0)
        assert odom.pose.covariance[14] < 1.0                       # z is known for a flying body
        # TF odom -> base_link at the same height
        tf = next(t for m in h.got["/tf"] for t in m.transforms
                  if t.child_frame_id == "base_link" and conv.frame_from_stamp(t.header.stamp) == 10)
        assert tf.transform.translation.z == pytest.approx(z0 + 1.43, abs=1e-6)
        # NavSatFix of gps_link (0.12 m above base_link) from the map's geo-reference
        geo = env.world.scene.terrain.georef
        fix = at10("gps/fix")
        lat, lon = hand_latlon(want[0], want[1], geo.lat0, geo.lon0)
        assert fix.latitude == pytest.approx(lat, abs=1e-9) and fix.longitude == pytest.approx(lon, abs=1e-9)
        assert fix.altitude == pytest.approx(geo.alt0 + want[2] + 0.12, abs=1e-6)
        assert fix.header.frame_id == "gps_link"
        # altimeter: height above the terrain's triangles, ISA pressure of the altitude
        t = env.world.scene.terrain
        agl = want[2] - hand_ground(t.heights, t.spacing, want[0], want[1])
        rng = at10("altimeter/range")
        assert rng.range == pytest.approx(agl, abs=1e-4) and rng.header.frame_id == "altimeter_link"
        assert 30.0 < rng.range < 60.0
        press = at10("altimeter/pressure").fluid_pressure
        assert press == pytest.approx(101325.0 * (1 - 0.0065 * want[2] / 288.15) ** 5.25588, rel=1e-4)
        # IMU: still accelerating forward at 5 m/s^2, no longer vertically; gravity on +z
        imu = at10("imu/data")
        a = imu.linear_acceleration
        assert (a.x, a.y, a.z) == pytest.approx((5.0, 0.0, conv.GRAVITY), abs=1e-6)
        # LiDAR of the UAV sees the ground below (the ESAR scanner: -30 .. +10 deg, 300 m)
        assert len(conv.from_ros_pointcloud2(at10("lidar/points"))) > 1000
        # four camera topic sets with their optical frames, matching the TF chain
        buf = TfBuffer()
        for m in h.got["/tf_static"]:
            buf.add_message(m, static=True)
        buf.add_message(TFMessage(transforms=[tf]))
        for c in CAMERAS:
            frame = f"camera_{c}_optical_frame"
            img = at10(f"camera_{c}/image_raw")
            assert (img.encoding, img.width, img.height, img.header.frame_id) == ("rgb8", 64, 48, frame)
            assert at10(f"camera_{c}/depth/image_raw").encoding == "32FC1"
            assert at10(f"camera_{c}/segmentation/image_raw").encoding == "32SC1"
            assert at10(f"camera_{c}/camera_info").header.frame_id == frame
            assert np.allclose(buf.lookup("map", frame), env.agent.frame_pose(frame), atol=1e-6)
        assert buf.lookup("base_link", "altimeter_link")[:3, 0] == pytest.approx([0.0, 0.0, -1.0])
        down = conv.from_ros_image(at10("camera_bottom_center/depth/image_raw"))
        assert np.nanmedian(down[np.isfinite(down)]) == pytest.approx(agl, rel=0.25)   # looking at the ground
        # world markers / objects: every victim and clue with its label; the terrain as a mesh
        labels = {e.id: e.name for e in env.world.in_scene()}
        objs = at10("world/objects")
        assert {d.id: d.results[0].hypothesis.class_id for d in objs.detections} == {str(k): v
                                                                                      for k, v in labels.items()}
        cubes = [m for m in at10("world/markers").markers if m.ns == "world" and m.action == Marker.ADD]
        assert sorted(m.id for m in cubes) == sorted(labels)
        assert "victim" in labels.values() and any(v.startswith("clue:") for v in labels.values())
        terrain = h.got["world/static_markers"][0].markers[-1]
        assert terrain.type == Marker.TRIANGLE_LIST and len(terrain.points) == len(terrain.colors)
        assert len(terrain.points) % 3 == 0 and len(terrain.points) > 3000
        assert at10("trajectory").poses[-1].pose.position.z == pytest.approx(want[2], abs=1e-6)
        task = json.loads(h.got["task"][0].data)
        assert task["cameras"] == list(CAMERAS) and task["flies"] and task["takes_reports"]
        # reports: a victim estimate and a clue, echoed on `reports`; an unknown class is refused
        victim = next(e for e in env.world.in_scene() if e.name == "victim")
        rpub = h.probe.create_publisher(Detection3DArray, "report", 10)
        assert h.spin_until(lambda: rpub.get_subscription_count() > 0)
        rpub.publish(conv.to_ros_detection3d_array([_Item(1, "victim", victim.position), _Item(2, "clue:tent",
                                                                                                 (10.0, 10.0, 0.0))],
                                                   conv.stamp_from_frame(10)))
        assert h.spin_until(lambda: len(h.got["reports"]) > 0 and len(h.got["reports/markers"]) > 0)
        echoed = conv.from_ros_detection3d_array(h.got["reports"][-1])
        assert [(c, s) for c, _, s in echoed] == [("victim", 1.0), ("clue:tent", 0.0)]   # score: counts now
        shown = [m for m in h.got["reports/markers"][-1].markers if m.ns == "reports" and m.action == Marker.ADD]
        assert [(m.type, m.color.g > 0.8) for m in shown] == [(Marker.SPHERE, True), (Marker.CUBE, False)]
        assert np.allclose(echoed[0][1], victim.position)
        assert len(env.task.victim_reports) == 1 and env.task.clue_reports[0][0] == "tent"
        rpub.publish(conv.to_ros_detection3d_array([_Item(3, "unicorn", (0.0, 0.0, 0.0))], conv.stamp_from_frame(10)))
        assert h.spin_until(lambda: h.got["episode/status"] and
                            json.loads(h.got["episode/status"][-1].data)["last_result"].get("status") == "invalid")
        assert "unknown clue class 'unicorn'" in json.loads(h.got["episode/status"][-1].data)["last_result"]["reason"]
        # `stop` ends the mission safely; the victim reported where it lies counts (Hungarian, 20 m)
        h.listen("episode/metrics", String, LATCHED)
        assert h.call("stop").success and env.done
        assert h.spin_until(lambda: h.got["episode/metrics"])
        metrics = json.loads(h.got["episode/metrics"][0].data)
        n = len(env.spec_dict["victims"])
        assert metrics["victims_found"] == 1 and metrics["sr"] == pytest.approx(100.0 / n) and metrics["safe"]
        assert not h.call("stop").success                    # the episode is over
    finally:
        h.close()


class _Item:
    def __init__(self, id, label, position):
        self.id, self.label, self.position, self.size = id, label, np.asarray(position, float), (1.0, 1.0, 1.0)


def test_esar_launch_file_arguments(monkeypatch):
    from hazard_ros import launch_file
    from hazard_ros.launcher import describe
    monkeypatch.setattr(launch_file, "find_executable", lambda pkg, exe, where="": f"/opt/bin/{exe}")
    launch = REPO / "launch" / "esar.launch.yaml"
    desc = describe(launch, {"map": "coastal", "episode": "3", "weather": "fog", "time_of_day": "21.5",
                             "detector": "yolo_world", "weights": "/models/yw.pt", "namer": "/models/n.onnx"})
    procs = {p.name: p for p in desc.processes}
    assert list(procs) == ["sim_node", "perception_node", "mapping_node"]
    sim = [procs["sim_node"].cmd[k + 1] for k, a in enumerate(procs["sim_node"].cmd) if a == "-p"]
    assert {"benchmark:=esar/coastal", "episode:=3", "episode_overrides:=weather=fog,time_of_day=21.5",
            "camera_width:=256", "segmentation:=visible"} <= set(sim)
    per = [procs["perception_node"].cmd[k + 1] for k, a in enumerate(procs["perception_node"].cmd) if a == "-p"]
    assert {"detector:=yolo_world", "weights:=/models/yw.pt", "namer:=/models/n.onnx"} <= set(per)
    assert {"map", "split", "episode", "seed", "weather", "time_of_day", "camera_width", "camera_height",
            "camera_rate", "record"} <= set(desc.args)
    assert "mcap_recorder" in {p.name for p in describe(launch, {"record": "/tmp/x.mcap"}).processes}


def test_rviz_configs_show_what_the_nodes_publish():
    import yaml
    from test_rviz_config import DISPLAY_TYPES, _displays, _norm, published_topics
    topics, _ = published_topics()
    for name, required in (("esar.rviz", {"world/static_markers", "world/markers", "trajectory", "map",
                                          "elevation_map", "lidar/points", "odom"}
                            | {f"camera_{c}/image_raw" for c in CAMERAS}),
                           ("doze.rviz", {"world/markers", "camera/color/image_raw"})):
        cfg = yaml.safe_load((REPO / "rviz" / name).read_text())
        assert cfg["Visualization Manager"]["Global Options"]["Fixed Frame"] == "map"
        shown = {_norm(d["Topic"]["Value"]): d for d in _displays(cfg["Visualization Manager"]["Displays"])
                 if "Topic" in d}
        assert required <= set(shown), f"{name} does not show {required - set(shown)}"
        for topic, d in shown.items():
            assert topic in topics, f"{name} shows {topic!r}, which no node publishes"
            if topics[topic] is not None:
                assert DISPLAY_TYPES[d["Class"]] == topics[topic], f"{name}: {topic}"
        static = shown.get("world/static_markers")
        if static is not None:          # latched once: a late RViz needs transient local
            assert static["Topic"]["Durability Policy"] == "Transient Local"


def test_esar_launch_over_dds_climbs_detects_on_four_views_and_maps_heights(ros_env):
    """hazard_launch with launch/esar.launch.yaml (sim, perception, mapping in their own
    processes, a client here over DDS): cmd_vel climbs the UAV, same-stamp odometry and
    NavSatFix agree, the four cameras and the world markers arrive, the weather override
    reaches the task, the perception node detects on all four views, the mapping node
    publishes the obstacle-at-altitude map and the elevation map."""
    from nav_msgs.msg import OccupancyGrid
    from vision_msgs.msg import Detection2DArray
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "hazard_ros.launcher", str(REPO / "launch" / "esar.launch.yaml"),
                             "map:=alpine", "weather:=fog", "camera_width:=32", "camera_height:=32",
                             "camera_rate:=5.0", "realtime_factor:=2.0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    context = Context()
    rclpy.init(context=context, domain_id=ros_env)
    node = rclpy.create_node("esar_launch_client", context=context)
    ex = SingleThreadedExecutor(context=context)
    ex.add_node(node)
    got = {"task": [], "map": [], "elevation_map": [], "detections": [], "perception/classes": []}
    try:
        node.create_subscription(String, "task", got["task"].append, LATCHED)
        node.create_subscription(OccupancyGrid, "map", got["map"].append, LATCHED)
        node.create_subscription(PointCloud2, "elevation_map", got["elevation_map"].append, 10)
        node.create_subscription(Detection2DArray, "detections", got["detections"].append, 50)
        node.create_subscription(String, "perception/classes", got["perception/classes"].append, LATCHED)
        for t, cls in [("odom", Odometry), ("gps/fix", NavSatFix), ("world/markers", MarkerArray)] + \
                [(f"camera_{c}/image_raw", Image) for c in CAMERAS]:
            got[t] = []
            node.create_subscription(cls, t, got[t].append, BEST_EFFORT)
        pub = node.create_publisher(Twist, "cmd_vel", 10)
        cmd = Twist()
        cmd.linear.z = 4.0
        frames, z_first = set(), None

        def climbed():
            return z_first is not None and got["odom"][-1].pose.pose.position.z > z_first + 3.0
        deadline = time.monotonic() + 100
        while time.monotonic() < deadline:
            ex.spin_once(timeout_sec=0.05)
            pub.publish(cmd)
            if got["odom"] and z_first is None:
                z_first = got["odom"][0].pose.pose.position.z
            frames = {m.header.frame_id for m in got["detections"]}
            if got["task"] and got["map"] and got["elevation_map"] and len(frames) >= 4 and climbed() \
                    and all(got[f"camera_{c}/image_raw"] for c in CAMERAS) and got["world/markers"] and got["gps/fix"] \
                    and got["perception/classes"]:
                break
            assert proc.poll() is None, proc.stdout.read()
        assert climbed(), "the UAV did not climb"
        assert all(got[f"camera_{c}/image_raw"][-1].width == 32 for c in CAMERAS)
        # same-stamp odom and fix agree: fix altitude = z + 0.12 (gps_link)
        fixes = {conv.frame_from_stamp(m.header.stamp): m for m in got["gps/fix"]}
        odoms = {conv.frame_from_stamp(m.header.stamp): m for m in got["odom"]}
        f = max(set(fixes) & set(odoms))
        assert fixes[f].altitude == pytest.approx(odoms[f].pose.pose.position.z + 0.12, abs=1e-6)
        assert "victim" in {m.text for m in got["world/markers"][-1].markers if m.type == Marker.TEXT_VIEW_FACING}
        assert got["task"], "no task from the simulator"
        assert json.loads(got["task"][0].data)["weather"] == "fog"
        assert frames == {f"camera_{c}_optical_frame" for c in CAMERAS}, frames
        classes = json.loads(got["perception/classes"][-1].data)["classes"]
        assert "victim" in classes and "clue:tent" in classes
        grid = got["map"][-1]
        bounds = json.loads(got["task"][0].data)["bounds"]
        assert grid.info.resolution == pytest.approx(10.0)
        assert abs(grid.info.width - (bounds[2] - bounds[0]) / 10.0) <= 1.0        # the whole 2 km map in 10 m cells
        cells = np.array(grid.data)
        assert (cells == 0).sum() > 50                      # seen ground below the UAV's altitude
        heights = conv.from_ros_pointcloud2(got["elevation_map"][-1])
        assert len(heights) > 50 and np.all(heights[:, 2] > 1000.0)    # alpine terrain: 1286 m and up
    finally:
        import signal
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        node.destroy_node()
        rclpy.shutdown(context=context)




def test_perception_yolo_world_on_the_four_views(ctx, monkeypatch, tmp_path):  # noqa: F811
    """The perception node with detector yolo_world (a stand-in ultralytics module, so the
    node test needs no torch; test/test_perception_ultralytics.py runs the real package in its
    own environment) on the UAV's four views served by the sim node: the task's prompts are
    its vocabulary (so no text encoder is needed), every view is detected on, and the
    detections come out under the task's labels (prompt "person" -> "victim")."""
    import sys
    import types

    from vision_msgs.msg import Detection2DArray

    from hazard_sim.tasks.esar.catalog import CLUES
    from perception_node.perception_node import PerceptionNode
    vocab = ["person"] + [c.replace("_", " ") for c in CLUES]
    seen_images = []

    class World:
        names = dict(enumerate(vocab))

        def __init__(self, path):
            self.path = path
            self.model = types.SimpleNamespace(txt_feats=None)     # a YOLO-World network has text features

        def set_classes(self, classes):
            raise RuntimeError("no CLIP here")

        def predict(self, img, **kw):
            seen_images.append(img.shape)
            h, w = img.shape[:2]
            boxes = type("Boxes", (), {"__len__": lambda self: 1})()
            boxes.xywh = TensorStandIn([[w / 2, h / 2, 6.0, 6.0]])  # a "person" in the middle of every view
            boxes.conf, boxes.cls = TensorStandIn([0.8]), TensorStandIn([0.0])
            return [type("Result", (), {"boxes": boxes, "names": self.names})()]
    mod = types.ModuleType("ultralytics")
    mod.YOLO, mod.YOLOWorld, mod.__version__ = World, World, "stand-in"
    monkeypatch.setitem(sys.modules, "ultralytics", mod)
    weights = tmp_path / "yw.pt"
    weights.write_bytes(b"stand-in")

    h = Harness(ctx, benchmark="esar/desert", lockstep=True, idle_republish=0.0)
    P = rclpy.parameter.Parameter
    per = PerceptionNode(context=ctx, parameter_overrides=[
        P("detector", value="yolo_world"), P("weights", value=str(weights)), P("lockstep", value=True)])
    seen_images.clear()                                     # the backend's warm-up prediction
    h.ex.add_node(per)
    try:
        h.listen("detections", Detection2DArray, 50)
        h.listen("detections_3d", Detection3DArray, 50)
        h.listen("perception/classes", String, LATCHED)
        assert h.spin_until(lambda: h.got["perception/classes"]
                            and json.loads(h.got["perception/classes"][-1].data)["source"] == "task"), \
            [m.data for m in h.got["perception/classes"]]
        info = json.loads(h.got["perception/classes"][-1].data)
        assert sorted(info["classes"]) == sorted(vocab) and info["error"] is None   # the prompts: no encoder needed
        for _ in range(2):
            assert h.call("sim/step").success

        def frames():
            return {m.header.frame_id for m in h.got["detections"]}
        assert h.spin_until(lambda: frames() == {f"camera_{c}_optical_frame" for c in CAMERAS}
                            and len(h.got["detections_3d"]) >= 4), frames()
        labels = {d.results[0].hypothesis.class_id for m in h.got["detections"] for d in m.detections}
        assert labels == {"victim"}
        assert all(shape == (48, 64, 3) for shape in seen_images)
        # placed in the map on the terrain in front of / below the UAV
        d3 = [d for m in h.got["detections_3d"] for d in m.detections]
        assert d3 and all(d.results[0].hypothesis.class_id == "victim" for d in d3)
        z = h.sim.env.agent.z
        assert all(d.bbox.center.position.z < z for d in d3)
    finally:
        per.destroy_node()
        h.close()


def test_episode_overrides_are_checked(ctx):  # noqa: F811
    from rclpy.parameter import Parameter

    from hazard_ros.sim_node import SimNode
    p = dict(benchmark="esar/alpine", split="test", episode=0, dataset_root="")
    ep = SimNode._episode_spec(dict(p, episode_overrides=" weather=fog , time_of_day=21.5, wind_speed="))
    assert (ep["weather"], ep["time_of_day"]) == ("fog", 21.5) and "wind_speed" in ep     # empty value: kept
    assert SimNode._episode_spec(dict(p, episode_overrides="weather=,time_of_day=")) is None
    with pytest.raises(ValueError, match="episode_overrides: foo not a field of the episode; fields: .*weather"):
        SimNode._episode_spec(dict(p, episode_overrides="foo=1"))
    with pytest.raises(ValueError, match="must be 'key=value,...', got 'weather'"):
        SimNode._episode_spec(dict(p, episode_overrides="weather"))
    with pytest.raises(ValueError, match="weather 'sandstorm' does not occur on the alpine map; allowed there: clear"):
        SimNode(context=ctx, parameter_overrides=[Parameter("benchmark", value="esar/alpine"),
                                                   Parameter("episode_overrides", value="weather=sandstorm")])


def test_visible_segmentation_track_at_night(ctx):  # noqa: F811
    """segmentation:=visible publishes the benchmark's detection track (ESAR's seg_visible):
    at midnight the dark terrain is not there, where the instance segmentation has it."""
    with pytest.raises(ValueError, match="parameter 'segmentation' must be instance or visible, got 'x'"):
        Harness(ctx, benchmark="esar/alpine", segmentation="x")
    h = Harness(ctx, benchmark="esar/alpine", lockstep=True, idle_republish=0.0, segmentation="visible",
                episode_overrides="time_of_day=0.0")
    try:
        assert isinstance(h.sim.p["segmentation"], str)
        h.listen("camera_bottom_center/segmentation/image_raw", Image, LATCHED_MANY)
        assert h.call("sim/step").success
        assert h.spin_until(lambda: any(conv.frame_from_stamp(m.header.stamp) == 1
                                        for m in h.got["camera_bottom_center/segmentation/image_raw"]))
        msg = next(m for m in h.got["camera_bottom_center/segmentation/image_raw"]
                   if conv.frame_from_stamp(m.header.stamp) == 1)
        view = h.sim.env.last_obs["cameras"]["bottom_center"]
        seg = conv.from_ros_image(msg)
        assert np.array_equal(seg, view["seg_visible"])
        assert (view["seg"] > 0).mean() > 0.9 and (seg > 0).mean() < 0.1
    finally:
        h.close()
