"""perception_node and mapping_node in-process on one executor, fed with synthetic
camera / TF / task messages from a test node; checks outputs, types, frames, stamps.

Every test runs on its own random DDS domain, discovers on localhost only, and has a
hard time limit. Skipped when rclpy cannot be imported.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import helpers
import numpy as np
import pytest

try:
    import rclpy
    from nav_msgs.msg import OccupancyGrid, Odometry
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import CameraInfo, Image
    from std_msgs.msg import String
    from tf2_msgs.msg import TFMessage
    from vision_msgs.msg import Detection2DArray, Detection3DArray, LabelInfo
    from visualization_msgs.msg import MarkerArray
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run `bash scripts/setup_ros.sh`",
                allow_module_level=True)

from hazard_ros import conversions as conv
from hazard_sim.render.camera import BODY_FROM_OPTICAL, CameraSpec
from perception_node import mapping_node, perception_node
from perception_node.detectors import UnknownDetectorError, WeightsNotFoundError
from perception_node.mapping_node import MappingNode
from perception_node.perception_node import PerceptionNode

TEST_TIME_LIMIT_S = 25
WAIT_S = 10.0

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL, history=HistoryPolicy.KEEP_LAST)
RELIABLE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
LOCKSTEP_SENSOR = QoSProfile(depth=2, reliability=ReliabilityPolicy.RELIABLE,       # sim_node in lock-step
                             durability=DurabilityPolicy.TRANSIENT_LOCAL, history=HistoryPolicy.KEEP_LAST)

CAM = CameraSpec(width=64, height=48, hfov_deg=90.0)
K = CAM.intrinsics()
CAM_H = 1.0
BASE_X = 0.5
WALL_DEPTH = 3.05                  # wall at map x = 3.55 (a cell centre)
OBJ_ID, WALL_ID, FLOOR_ID = 1000, 5, 1
OBJ_ROWS, OBJ_COLS = slice(30, 38), slice(28, 36)
OBJ_DEPTH = 2.0
TASK = {"benchmark": "hazard/fire", "hazard": "fire", "targets": [{"category": "backpack", "value": 5}],
        "containers": {}, "bounds": [-1.0, -5.0, 6.0, 5.0], "episode": 0}


def spin_until(executor, predicate, timeout_s=WAIT_S, step=None) -> bool:
    return helpers.spin_until(executor, predicate, timeout_s, step)


# ------------------------------------------------------------------ synthetic frame
def scene():
    """Depth / seg / thermal of a level camera 1 m high looking along +x at a wall
    3.05 m ahead over a floor, with an 8 x 8 px box (instance 1000) 2 m ahead."""
    v, u = np.mgrid[0:CAM.height, 0:CAM.width].astype(float)
    y = (v - K[1, 2]) / K[1, 1]
    t_floor = np.where(y > 0, CAM_H / np.where(y > 0, y, 1), np.inf)
    depth = np.minimum(WALL_DEPTH, t_floor).astype(np.float32)
    seg = np.where(t_floor >= WALL_DEPTH, WALL_ID, FLOOR_ID).astype(np.int32)
    depth[OBJ_ROWS, OBJ_COLS] = OBJ_DEPTH
    seg[OBJ_ROWS, OBJ_COLS] = OBJ_ID
    thermal = np.full(depth.shape, 25.0, np.float32)
    thermal[OBJ_ROWS, OBJ_COLS] = 180.0
    rgb = np.zeros((CAM.height, CAM.width, 3), np.uint8)
    return rgb, depth, seg, thermal


def planar(x, y=0.0, z=0.0):
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def optical_T():
    T = np.eye(4)
    T[:3, :3] = BODY_FROM_OPTICAL
    return T


class Feeder:
    """The simulator's side: TF, task, label info and camera images."""

    def __init__(self, context):
        self.node = rclpy.create_node("test_feeder", context=context)
        n = self.node
        self.tf = n.create_publisher(TFMessage, "/tf", RELIABLE)
        self.tf_static = n.create_publisher(TFMessage, "/tf_static", LATCHED)
        self.task = n.create_publisher(String, "task", LATCHED)
        self.labels = n.create_publisher(LabelInfo, "camera/segmentation/label_info", LATCHED)
        self.status = n.create_publisher(String, "episode/status", LATCHED)
        self.set_classes = n.create_publisher(String, "perception/set_classes", RELIABLE)
        self.cam = {t: n.create_publisher(Image, t, LOCKSTEP_SENSOR) for t in
                    ("camera/color/image_raw", "camera/depth/image_raw", "camera/segmentation/image_raw",
                     "thermal/image_raw")}
        self.info = n.create_publisher(CameraInfo, "camera/color/camera_info", LOCKSTEP_SENSOR)
        self.odom = n.create_publisher(Odometry, "odom", LOCKSTEP_SENSOR)
        self.got: dict[str, list] = {k: [] for k in ("det2d", "det3d", "map", "temp", "memory", "markers",
                                                     "classes", "layers_info")}
        for topic, cls, key, qos in (("detections", Detection2DArray, "det2d", RELIABLE),
                                     ("detections_3d", Detection3DArray, "det3d", RELIABLE),
                                     ("map", OccupancyGrid, "map", LATCHED),
                                     ("hazard/temperature", OccupancyGrid, "temp", LATCHED),
                                     ("objects/memory", String, "memory", LATCHED),
                                     ("objects", MarkerArray, "markers", LATCHED),
                                     ("perception/classes", String, "classes", LATCHED),
                                     ("hazard/layers_info", String, "layers_info", LATCHED)):
            n.create_subscription(cls, topic, lambda m, k=key: self.got[k].append(m), qos)

    def publish_static(self):
        stamp = conv.stamp_from_frame(0)
        self.tf_static.publish(conv.to_ros_tf_message([
            conv.to_ros_transform(np.eye(4), stamp, "map", "odom"),
            conv.to_ros_transform(planar(0.0, 0.0, CAM_H), stamp, "base_link", "camera_link"),
            conv.to_ros_transform(optical_T(), stamp, "camera_link", "camera_optical_frame")]))
        self.task.publish(String(data=json.dumps(TASK)))
        self.labels.publish(conv.to_ros_label_info({OBJ_ID: "backpack", WALL_ID: "wall", FLOOR_ID: "floor"},
                                                   stamp, "camera_optical_frame"))

    def publish_tf(self, frame):
        self.tf.publish(conv.to_ros_tf_message([conv.to_ros_transform(
            planar(BASE_X), conv.stamp_from_frame(frame), "odom", "base_link")]))

    def publish_odom(self, frame):
        self.odom.publish(conv.to_ros_odometry(BASE_X, 0.0, 0.0, 0.0, 0.0, conv.stamp_from_frame(frame)))

    def publish_images(self, frame):
        stamp = conv.stamp_from_frame(frame)
        rgb, depth, seg, thermal = scene()
        f = "camera_optical_frame"
        self.cam["camera/color/image_raw"].publish(conv.to_ros_image(rgb, stamp, f))
        self.cam["camera/depth/image_raw"].publish(conv.to_ros_image(depth, stamp, f))
        self.cam["camera/segmentation/image_raw"].publish(conv.to_ros_image(seg, stamp, f))
        self.cam["thermal/image_raw"].publish(conv.to_ros_image(thermal, stamp, f, "32FC1"))
        self.info.publish(conv.to_ros_camera_info(K, CAM.width, CAM.height, stamp, f))


def stamp_of(msg):
    return conv.time_to_ns(msg.header.stamp)


def make_nodes(context):
    overrides = [Parameter("lockstep", value="true")]          # as text, like a launcher may pass it
    perc = PerceptionNode(context=context, parameter_overrides=overrides)
    mapn = MappingNode(context=context, parameter_overrides=overrides + [Parameter("step", value=1)])
    return perc, mapn


@pytest.fixture
def pipeline(ros_context):
    perc, mapn = make_nodes(ros_context)
    feeder = Feeder(ros_context)
    ex = SingleThreadedExecutor(context=ros_context)
    for n in (perc, mapn, feeder.node):
        ex.add_node(n)
    try:
        yield ex, perc, mapn, feeder
    finally:
        ex.shutdown()
        for n in (perc, mapn, feeder.node):
            n.destroy_node()


def wait_for_subscribers(ex, feeder):
    pubs = [p for t, p in feeder.cam.items() if t != "camera/color/image_raw"] + [feeder.info]
    # (the ground-truth detector does not subscribe to rgb)
    assert spin_until(ex, lambda: all(p.get_subscription_count() >= 1 for p in pubs)
                      and feeder.tf.get_subscription_count() >= 2), "nodes not discovered"


def test_pipeline_outputs_types_frames_and_stamps(pipeline):
    ex, perc, mapn, feeder = pipeline
    feeder.publish_static()
    wait_for_subscribers(ex, feeder)
    assert spin_until(ex, lambda: mapn.core is not None and perc.classes_source == "task"), \
        "task not received"
    # min_pixels 0 (the default): the task's benchmark's ground-truth rule (hazard/fire: 46 px;
    # the 8 x 8 px box is 64 px, so it is seen)
    assert perc.auto_min_pixels and perc.min_pixels == perc.instances.min_pixels == perc.detector.min_pixels == 46

    # frame 1: images first, TF later (the nodes must wait for TF at the image stamp)
    feeder.publish_images(1)
    spin_until(ex, lambda: feeder.got["det2d"], 5.0)
    assert not feeder.got["det3d"] and not feeder.got["map"]
    feeder.publish_tf(1)
    s1 = conv.time_to_ns(conv.stamp_from_frame(1))
    assert spin_until(ex, lambda: feeder.got["det3d"] and feeder.got["map"] and feeder.got["memory"]
                      and feeder.got["temp"] and feeder.got["markers"]), \
        {k: len(v) for k, v in feeder.got.items()}

    d2 = feeder.got["det2d"][-1]
    assert stamp_of(d2) == s1 and d2.header.frame_id == "camera_optical_frame"
    assert len(d2.detections) == 1                          # wall / floor are not task classes
    det = d2.detections[0]
    assert det.id == str(OBJ_ID) and det.results[0].hypothesis.class_id == "backpack"
    assert (det.bbox.center.position.x, det.bbox.center.position.y) == (31.5, 33.5)
    assert (det.bbox.size_x, det.bbox.size_y) == (8.0, 8.0)

    d3 = feeder.got["det3d"][-1]
    assert stamp_of(d3) == s1 and d3.header.frame_id == "map" and len(d3.detections) == 1
    b = d3.detections[0]
    assert b.id == str(OBJ_ID) and b.results[0].hypothesis.class_id == "backpack"
    c = b.bbox.center.position
    # 8 px at 2 m = 0.5 m wide; the centre is pushed 0.25 m back from the visible face at x = 2.5
    f = K[0, 0]
    assert c.x == pytest.approx(BASE_X + OBJ_DEPTH + 0.25, abs=1e-6)
    assert c.y == pytest.approx(-(31.5 - K[0, 2]) / f * OBJ_DEPTH, abs=1e-6)
    assert c.z == pytest.approx(CAM_H - (33.5 - K[1, 2]) / f * OBJ_DEPTH, abs=1e-6)
    assert b.bbox.size.y == pytest.approx(8 * OBJ_DEPTH / f, abs=1e-6)
    assert b.results[0].pose.pose.position.x == pytest.approx(c.x)

    m = feeder.got["map"][-1]
    assert stamp_of(m) == s1 and m.header.frame_id == "map"
    assert (m.info.width, m.info.height, m.info.resolution) == (70, 100, pytest.approx(0.1))
    assert (m.info.origin.position.x, m.info.origin.position.y) == (-1.0, -5.0)
    grid = np.asarray(m.data, np.int8).reshape(m.info.height, m.info.width)
    cell = mapn.core.spec.to_cell
    assert grid[cell((BASE_X + WALL_DEPTH, -1.0))] == 100     # the wall
    assert grid[cell((BASE_X + 1.5, -1.0))] == 0              # floor in front of it
    assert grid[cell((5.5, 0.0))] == -1                       # behind the wall
    obj_cell = cell((BASE_X + OBJ_DEPTH + 0.05, c.y))
    assert grid[obj_cell] == 100                              # not known as an object yet
    t = feeder.got["temp"][-1]
    assert stamp_of(t) == s1 and t.header.frame_id == "map"
    tgrid = np.asarray(t.data, np.int8).reshape(t.info.height, t.info.width)
    assert tgrid[cell((BASE_X + WALL_DEPTH, -1.0))] in (2, 3)   # 25 C, 10 C per cell value
    info = json.loads(feeder.got["layers_info"][-1].data)
    assert info["temperature"]["unit"] == "C" and info["frame_id"] == "map"

    mem = json.loads(feeder.got["memory"][-1].data)
    assert mem["frame_id"] == "map" and mem["stamp"] == pytest.approx(0.1)
    (obj,) = mem["objects"]
    assert obj["id"] == OBJ_ID and obj["label"] == "backpack" and obj["is_target"] and obj["value"] == 5
    assert obj["reading"] == pytest.approx(180.0) and obj["state"] == "scene"
    assert obj["last_seen"] == pytest.approx(0.1)
    markers = feeder.got["markers"][-1].markers
    assert markers[0].action == markers[0].DELETEALL
    assert {mk.ns for mk in markers[1:]} == {"objects", "object_labels"}
    assert all(mk.header.frame_id == "map" for mk in markers)

    # frame 2 with its TF already there: the map follows with the new stamp
    feeder.publish_tf(2)
    feeder.publish_images(2)
    s2 = conv.time_to_ns(conv.stamp_from_frame(2))
    assert spin_until(ex, lambda: stamp_of(feeder.got["map"][-1]) == s2
                      and stamp_of(feeder.got["det3d"][-1]) == s2)
    grid = np.asarray(feeder.got["map"][-1].data, np.int8).reshape(100, 70)
    assert grid[cell((BASE_X + WALL_DEPTH, -1.0))] == 100
    assert grid[obj_cell] != 100                              # the remembered object is kept off the map

    # status: the object is held
    feeder.status.publish(String(data=json.dumps({"frame": 2, "held": OBJ_ID, "rescued_ids": []})))
    assert spin_until(ex, lambda: json.loads(feeder.got["memory"][-1].data)["objects"][0]["state"] == "held")

    # classes at run time
    classes = json.loads(feeder.got["classes"][-1].data)
    assert classes["classes"] == ["backpack"] and classes["source"] == "task"
    feeder.set_classes.publish(String(data='["wall", "backpack"]'))
    assert spin_until(ex, lambda: json.loads(feeder.got["classes"][-1].data)["source"] == "set_classes")
    assert json.loads(feeder.got["classes"][-1].data)["classes"] == ["wall", "backpack"]
    feeder.set_classes.publish(String(data='not json'))
    assert spin_until(ex, lambda: json.loads(feeder.got["classes"][-1].data)["error"])
    feeder.publish_tf(3)
    feeder.publish_images(3)
    s3 = conv.time_to_ns(conv.stamp_from_frame(3))
    assert spin_until(ex, lambda: stamp_of(feeder.got["det2d"][-1]) == s3)
    assert sorted(d.results[0].hypothesis.class_id for d in feeder.got["det2d"][-1].detections) == \
        ["backpack", "wall"]


def test_mapping_node_km_map_from_parameters_and_task(ros_context):
    """bounds from the parameter (a 5 km square), cells from the task's map_resolution:
    the map is tiled and published as a window_size window around the camera."""
    feeder = Feeder(ros_context)
    mapn = MappingNode(context=ros_context, parameter_overrides=[
        Parameter("lockstep", value=True), Parameter("step", value=1), Parameter("window_size", value=20.0),
        Parameter("bounds", value=[-2500.0, -2500.0, 2500.0, 2500.0])])
    ex = SingleThreadedExecutor(context=ros_context)
    for n in (mapn, feeder.node):
        ex.add_node(n)
    try:
        assert mapn.core is not None and mapn.core.spec.resolution == 0.1 and mapn.core.spec.tiled
        feeder.publish_static()
        feeder.task.publish(String(data=json.dumps(dict(TASK, map_resolution=0.5, channel="temperature"))))
        assert spin_until(ex, lambda: mapn.core.spec.resolution == 0.5 and mapn.task.get("map_resolution"))
        assert mapn.core.spec.bounds == (-2500.0, -2500.0, 2500.0, 2500.0)      # the parameter wins
        assert mapn.core.spec.shape == (10000, 10000) and mapn.core.spec.tile == 256
        wait_for_subscribers_of(ex, feeder, mapn)
        feeder.publish_tf(1)
        feeder.publish_images(1)
        assert spin_until(ex, lambda: feeder.got["map"] and feeder.got["temp"])
        m, t = feeder.got["map"][-1], feeder.got["temp"][-1]
        # camera at (0.5, 0): cell (5000, 5001); 20 cells either side
        assert (m.info.width, m.info.height, m.info.resolution) == (41, 41, 0.5)
        assert (m.info.origin.position.x, m.info.origin.position.y) == (-9.5, -10.0)
        grid = np.asarray(m.data, np.int8).reshape(41, 41)
        assert grid[20, 26] == 100                            # the wall at x = 3.55: column (3.55 + 9.5) / 0.5
        assert grid[20, 25] == 0 and grid[20, 30] == -1       # floor before it, unknown behind it
        assert (t.info.width, t.info.height) == (41, 41)
        tgrid = np.asarray(t.data, np.int8).reshape(41, 41)
        assert tgrid[20, 26] in (2, 3)                        # 25 C at 10 C a cell value
        assert mapn.core.reading_layer() == "temperature"
        assert len(mapn.core.occupancy_map.map.hits.tiles) == 1
    finally:
        ex.shutdown()
        for n in (mapn, feeder.node):
            n.destroy_node()


def wait_for_subscribers_of(ex, feeder, mapn):
    pubs = [feeder.cam["camera/depth/image_raw"], feeder.cam["thermal/image_raw"], feeder.info]
    assert spin_until(ex, lambda: all(p.get_subscription_count() >= 1 for p in pubs)
                      and feeder.tf.get_subscription_count() >= 1), "mapping node not discovered"


def test_late_start_in_lockstep_gets_the_current_frame(ros_context):
    """The simulator published its frame (images, odom: transient local; /tf: volatile)
    before the nodes started: they still map and detect it, with the pose from odom."""
    feeder = Feeder(ros_context)
    ex = SingleThreadedExecutor(context=ros_context)
    ex.add_node(feeder.node)
    nodes = []
    try:
        feeder.publish_static()
        feeder.publish_images(4)
        feeder.publish_odom(4)
        nodes = make_nodes(ros_context)
        for n in nodes:
            ex.add_node(n)
        s4 = conv.time_to_ns(conv.stamp_from_frame(4))
        assert spin_until(ex, lambda: feeder.got["map"] and feeder.got["det3d"] and feeder.got["temp"]), \
            {k: len(v) for k, v in feeder.got.items()}
        assert stamp_of(feeder.got["map"][-1]) == s4 and stamp_of(feeder.got["det3d"][-1]) == s4
        assert stamp_of(feeder.got["temp"][-1]) == s4
        (b,) = feeder.got["det3d"][-1].detections
        assert b.bbox.center.position.x == pytest.approx(BASE_X + OBJ_DEPTH + 0.25, abs=1e-6)
    finally:
        ex.shutdown()
        for n in (*nodes, feeder.node):
            n.destroy_node()


def test_published_topic_lists():
    for mod in (perception_node, mapping_node):
        assert mod.PUBLISHED_TOPICS and all(isinstance(t, str) and "/msg/" in ty for t, ty in mod.PUBLISHED_TOPICS)
        assert all(not t.startswith("/") for t, _ in mod.PUBLISHED_TOPICS)     # relative names
    names = dict(perception_node.PUBLISHED_TOPICS) | dict(mapping_node.PUBLISHED_TOPICS)
    assert names["detections_3d"] == "vision_msgs/msg/Detection3DArray"
    assert names["map"] == "nav_msgs/msg/OccupancyGrid"
    assert names["objects"] == "visualization_msgs/msg/MarkerArray"


def test_startup_errors_raise_clear_exceptions(ros_context):
    with pytest.raises(UnknownDetectorError, match="groundtruth, onnx, yolo, yolo_world"):
        PerceptionNode(context=ros_context, parameter_overrides=[Parameter("detector", value="detectron")])
    with pytest.raises(WeightsNotFoundError, match="/nonexistent/best.pt"):
        PerceptionNode(context=ros_context, parameter_overrides=[
            Parameter("detector", value="yolo"), Parameter("weights", value="/nonexistent/best.pt")])
    with pytest.raises(ValueError, match="sensor_qos"):
        MappingNode(context=ros_context, parameter_overrides=[Parameter("sensor_qos", value="fast")])


def test_main_exits_non_zero_with_one_logged_error(ros_env):
    proc = subprocess.run(
        [sys.executable, "-m", "perception_node.perception_node", "--ros-args",
         "-p", "detector:=yolo", "-p", "weights:=/nonexistent/best.pt"],
        capture_output=True, text=True, timeout=20, env=dict(os.environ),
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "Traceback" not in out
    assert "cannot start" in out and "/nonexistent/best.pt" in out


def test_esar_reporter_turns_perception_into_reports(ros_context):
    """detections_3d (map frame) in, each new victim / clue once on `report`; other labels and
    other frames are not reported."""
    from vision_msgs.msg import Detection3D, Detection3DArray, ObjectHypothesisWithPose

    from planner_node.plugins.esar import EsarReporter
    node = EsarReporter(context=ros_context)
    probe = rclpy.create_node("probe", context=ros_context)
    ex = SingleThreadedExecutor(context=ros_context)
    ex.add_node(node)
    ex.add_node(probe)
    got = []
    probe.create_subscription(Detection3DArray, "report", got.append, 10)
    pub = probe.create_publisher(Detection3DArray, "detections_3d", 10)

    def dets(frame, *items):
        msg = Detection3DArray()
        msg.header.frame_id = frame
        for label, x in items:
            d = Detection3D()
            h = ObjectHypothesisWithPose()
            h.hypothesis.class_id, h.hypothesis.score = label, 0.7
            d.results.append(h)
            d.bbox.center.position.x = float(x)
            msg.detections.append(d)
        return msg
    try:
        assert spin_until(ex, lambda: pub.get_subscription_count() > 0 and probe.count_publishers("report") > 0)
        pub.publish(dets("map", ("victim", 10.0), ("rock", 20.0), ("clue:tent", 30.0)))
        assert spin_until(ex, lambda: len(got) == 1)
        assert [(d.results[0].hypothesis.class_id, d.bbox.center.position.x) for d in got[0].detections] == \
            [("victim", 10.0), ("clue:tent", 30.0)]
        pub.publish(dets("map", ("victim", 12.0)))                       # the same victim again
        pub.publish(dets("camera_front_center_optical_frame", ("victim", 50.0)))   # not in map
        pub.publish(dets("map", ("victim", 80.0)))                       # another victim
        assert spin_until(ex, lambda: len(got) == 2)
        assert len(got) == 2 and got[1].detections[0].bbox.center.position.x == 80.0
        assert node.sent == 3
    finally:
        ex.shutdown()
        probe.destroy_node()
        node.destroy_node()


TINY_DETECTOR = Path(__file__).parent / "data" / "tiny_yolo_detect.onnx"


def _onnx_node_on_a_red_frame(ros_context, extra=(), check=None):
    """A perception node with the tiny test detector (and ``extra`` parameters) fed one red
    64 x 48 frame; returns (the node, its Detection2DArray, the frame's stamp and frame id).
    ``check(node)`` runs once the node is up."""
    perc = PerceptionNode(context=ros_context, parameter_overrides=[
        Parameter("detector", value="onnx"), Parameter("weights", value=str(TINY_DETECTOR)),
        Parameter("wait_for_task", value=False), Parameter("lockstep", value=True), *extra])
    feeder = Feeder(ros_context)
    ex = SingleThreadedExecutor(context=ros_context)
    for n in (perc, feeder.node):
        ex.add_node(n)
    try:
        pubs = [feeder.cam["camera/color/image_raw"], feeder.cam["camera/depth/image_raw"], feeder.info]
        assert spin_until(ex, lambda: all(p.get_subscription_count() >= 1 for p in pubs))
        if check is not None:
            check(perc)
        stamp, f = conv.stamp_from_frame(1), "camera_optical_frame"
        _, depth, _, _ = scene()
        red = np.zeros((CAM.height, CAM.width, 3), np.uint8)
        red[..., 0] = 255
        feeder.cam["camera/color/image_raw"].publish(conv.to_ros_image(red, stamp, f))
        feeder.cam["camera/depth/image_raw"].publish(conv.to_ros_image(depth, stamp, f))
        feeder.info.publish(conv.to_ros_camera_info(K, CAM.width, CAM.height, stamp, f))
        assert spin_until(ex, lambda: feeder.got["det2d"])
        return perc, feeder.got["det2d"][-1], stamp, f
    finally:
        ex.shutdown()
        for n in (perc, feeder.node):
            n.destroy_node()


def test_perception_node_runs_the_onnx_detector(ros_context):
    """detector:=onnx with the tiny test graph (test/data): on a red 64 x 48 frame it reports
    the graph's red-thing boxes, mapped back through the letterbox, in the image's header."""
    def check(perc):
        assert not perc.detector.needs_segmentation and perc.detector.classes is None
    _, d2, stamp, f = _onnx_node_on_a_red_frame(ros_context, check=check)
    assert stamp_of(d2) == conv.time_to_ns(stamp) and d2.header.frame_id == f
    # 64 x 48 letterboxed into 64 x 64 with 8 grey rows above: the red mean is (48 * 255 + 16 * 114) / 64 / 255
    got = [(d.results[0].hypothesis.class_id, round(d.results[0].hypothesis.score, 4),
            d.bbox.center.position.x, d.bbox.center.position.y) for d in d2.detections]
    red_mean = (48 * 255 + 16 * 114) / 64 / 255
    assert got == [("red thing", round(0.9 * red_mean, 4), 15.5, 7.5),
                   ("red thing", round(0.7 * red_mean, 4), 47.5, 31.5)]
    assert all(d.id == "" for d in d2.detections)


def test_perception_node_names_detections_with_a_namer(ros_context, tmp_path):
    """``namer`` parameter: the shipped namer (its description told to rename the tiny graph's
    class, and to always name) turns the tiny detector's "red thing"s into kinds it knows; the
    node's published vocabulary holds those kinds."""
    import shutil
    shipped = Path(__file__).resolve().parents[1] / "data" / "perception" / "namer" / "namer.onnx"
    if not shipped.is_file():
        pytest.skip("no shipped namer")
    shutil.copy(shipped, tmp_path / "namer.onnx")
    desc = json.loads(shipped.with_suffix(".json").read_text())
    (tmp_path / "namer.json").write_text(json.dumps(dict(desc, renames=["red thing"], min_score=0.0)))

    def check(perc):
        assert set(desc["classes"]) <= set(perc._vocabulary())
    perc, d2, _, _ = _onnx_node_on_a_red_frame(
        ros_context, [Parameter("namer", value=str(tmp_path / "namer.onnx"))], check)
    labels = [d.results[0].hypothesis.class_id for d in d2.detections]
    assert len(labels) == 2 and all(lab in desc["classes"] for lab in labels), labels
    assert perc.detector.stats["named"] == 2


def test_a_closed_vocabulary_detector_publishes_prompted_classes_under_their_labels(ros_context):
    """A task's ``detect_classes`` prompts (label -> text, as a search task gives
    ``victim`` -> ``person``): the detector is asked for the prompt and its detections are
    published under the label; the detections topics keep them (the filter is in labels: it
    dropped every mapped detection before). A prompt the detector does not know is reported."""
    def check(perc):
        assert perc._apply_classes(["victim", "clue:tent"], "task",
                                   prompts={"victim": "red thing", "clue:tent": "tent"})
        assert perc.unknown_classes == ["tent"] and perc.label_filter == {"victim"}
    _, d2, _, _ = _onnx_node_on_a_red_frame(ros_context, check=check)
    assert [d.results[0].hypothesis.class_id for d in d2.detections] == ["victim", "victim"]
