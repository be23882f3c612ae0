"""The decision nodes see objects only through the perception node: with the simulator's
ground-truth topics switched off (the real-robot case) and the shipped ONNX detector, a DOZE
decision node still gets observations whose instances and labels are perception's; neither
decision node nor the navigation node (whose ``approach_object`` goals follow an object's box)
subscribes to the simulator's ground truth."""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from hazard_sim.perception.dataset_render import CLASSES

try:
    import rclpy
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)

REPO = Path(__file__).resolve().parent.parent
DETECTOR = REPO / "data" / "perception" / "detector.onnx"
GROUND_TRUTH = {"/camera/segmentation/image_raw", "/camera/segmentation/label_info", "/world/objects"}
WAIT_S = 60.0


def _spin(nodes, context, threads=2):
    from hazard_ros.executors import make_executor
    ex = make_executor(threads, context)
    for n in nodes:
        ex.add_node(n)
    t = threading.Thread(target=ex.spin, daemon=True)
    t.start()
    return ex


def _subscribed(node) -> set[str]:
    return {name for name, _ in node.get_subscriber_names_and_types_by_node(node.get_name(), "/")}


def test_decision_nodes_subscribe_to_perception_not_to_ground_truth(ros_context):
    from rclpy.parameter import Parameter

    from planner_node.navigation_node import NavigationNode
    from planner_node.plugins.doze import DozeDecisionNode
    from planner_node.plugins.hazard import DecisionNode
    lock = [Parameter("lockstep", value=True)]
    nodes = [DecisionNode(context=ros_context, parameter_overrides=lock),
             DozeDecisionNode(context=ros_context, node_name="doze_decision"),
             NavigationNode(context=ros_context, parameter_overrides=lock)]
    try:
        for n in nodes:
            subs = _subscribed(n)
            assert not subs & GROUND_TRUTH, subs
            assert "/perception/objects" in subs, subs
            if n is not nodes[-1]:
                assert {"/perception/instances/image_raw", "/perception/instances/label_info",
                        "/perception/classes"} <= subs, subs
    finally:
        for n in nodes:
            n.destroy_node()


@pytest.mark.skipif(not DETECTOR.exists(), reason="the shipped detector is not there")
def test_doze_decision_node_gets_observations_from_perception_with_ground_truth_off(ros_env):
    """sim_node (doze/level1, lock-step, ground_truth_topics:=false) + perception_node (onnx)
    + the DOZE decision node: the observation of the first frame arrives, its ``seg`` is
    perception's instance image and its labels are the detector's classes."""
    from rclpy.context import Context
    from rclpy.parameter import Parameter

    from hazard_ros.sim_node import SimNode
    from perception_node.perception_node import PerceptionNode
    from planner_node.plugins.doze import DozeDecisionNode
    context = Context()
    rclpy.init(context=context, domain_id=ros_env)
    nodes, ex = [], None
    try:
        sim = SimNode(context=context, parameter_overrides=[Parameter(k, value=v) for k, v in dict(
            benchmark="doze/level1", episode=0, lockstep=True, ground_truth_topics=False, camera_width=128,
            camera_height=128, camera_rate=2.0, lidar_rate=0.0, gps_rate=0.0, imu_rate=0.0).items()])
        perc = PerceptionNode(context=context, parameter_overrides=[
            Parameter("detector", value="onnx"), Parameter("weights", value=str(DETECTOR)),
            Parameter("lockstep", value=True)])
        dec = DozeDecisionNode(context=context, parameter_overrides=[Parameter("wait_timeout", value=WAIT_S)])
        nodes = [sim, perc, dec]
        ex = _spin(nodes, context, threads=4)
        graph = {name for name, _ in dec.get_topic_names_and_types()}
        assert not graph & GROUND_TRUTH, graph & GROUND_TRUTH
        dec._wait(lambda: dec.status is not None and dec.perception is not None, "status and perception",
                  stop_on_metrics=False)
        assert dec.perception["vocabulary"] == "detector" and dec.perception["true_boxes"] is False
        assert dec.perception["names"] == sorted(CLASSES)
        frame = int(dec.status["frame"])
        obs = dec.observation(frame)
        labels = dec.labels_of(frame)
        seg = obs["seg"]
        assert seg.shape == (128, 128) and seg.dtype == np.int32
        ids = {int(i) for i in np.unique(seg) if i > 0}
        assert ids <= set(labels), (ids, labels)              # every painted id has perception's label
        assert set(labels.values()) <= set(dec.perception["names"])
        assert perc.instance_pubs.frames >= 1 and perc.detector.name == "onnx"
    finally:
        if ex is not None:
            ex.shutdown()
        for n in nodes:
            n.destroy_node()
        rclpy.shutdown(context=context)


def test_the_simulators_ids_of_held_and_rescued_objects_become_perceived_ids(ros_context):
    """With a detector the agent knows objects by perception's ids; the simulator reports the
    hands and the rescued objects by its own: after a pick_up of perceived object 3 the held
    simulator id 1001 reads as 3 (and so do the rescued ids); with ground truth (same ids)
    nothing changes."""
    from planner_node.plugins.hazard import DecisionNode
    dec = DecisionNode(context=ros_context)
    try:
        dec.status = {"frame": 5, "held": 1001, "rescued_ids": [], "done": False}
        dec.note_picked(3)
        assert dec.perceived_id(1001) == 3 and dec.perceived_id(-1) == -1 and dec.perceived_ids([1001, 7]) == [3, 7]
        dec.status = {"frame": 9, "held": 1002, "rescued_ids": [1001], "done": False}
        dec.note_picked(1002)                     # the same id (ground truth): no entry
        assert dec.id_of_sim == {1001: 3}
    finally:
        dec.destroy_node()


def _boxes(stamp_frame: int, items):
    from types import SimpleNamespace

    from hazard_ros import conversions as conv
    return conv.to_ros_detection3d_array(
        [SimpleNamespace(id=i, label=lab, position=(x, 0.0, 0.5), size=(0.4, 0.2, 0.3)) for i, lab, x in items],
        conv.stamp_from_frame(stamp_frame))


def test_truth_boxes_wait_for_their_frame_in_order_then_time_out():
    from hazard_ros import conversions as conv
    from perception_node.instance_outputs import TruthBoxes
    ns = lambda f: conv.time_to_ns(conv.stamp_from_frame(f))  # noqa: E731
    t = TruthBoxes(wait=True, timeout=1.0)
    assert t.of(ns(1)) is False                       # lock-step: frame 1's message may still come
    t.defer("a", ns(1), now=0.0)
    t.defer("b", ns(2), now=0.0)
    assert t.ready(0.5) == []
    m1 = _boxes(1, [(1012, "printer", 5.0)])
    t.add(m1)
    assert t.ready(0.5) == [("a", m1)]                # b still waits for frame 2
    assert t.ready(1.5) == [("b", m1)]                # ... until its deadline: the newest boxes
    free = TruthBoxes(wait=False, timeout=1.0)
    free.add(_boxes(3, []))
    assert free.of(ns(5)) is free.latest and free.of(ns(2)) is None
    never = TruthBoxes(wait=True, timeout=1.0)        # no world/objects at all: wait once, then never
    never.defer("x", ns(1), now=0.0)
    assert never.ready(2.0) == [("x", None)] and never.of(ns(2)) is None


def test_frame_instances_groundtruth_and_tracked():
    from hazard_sim.perception.instances import Instance
    from perception_node.instance_outputs import FrameInstances
    fi = FrameInstances(min_pixels=3)
    seg = np.array([[1012, 1012, 1012, 7], [0, 0, 0, 0]], np.int32)
    img, labels, objects = fi.from_segmentation(seg, {1012: "printer", 7: "cup", 5: "lamp"},
                                                _boxes(1, [(1012, "printer", 5.0), (5, "lamp", 1.0)]))
    assert img.tolist() == [[1012, 1012, 1012, -7], [0, 0, 0, 0]]     # cup: 1 pixel, its id negated
    assert labels == {1012: "printer", 7: "cup", 5: "lamp"}
    assert [d.id for d in objects] == ["1012"]                          # seen and boxed (lamp: not seen)
    # a detector: two frames, the object moved 0.3 m: the same id; no pose: nothing painted
    K = np.array([[10.0, 0, 5.5], [0, 10.0, 4.5], [0, 0, 1]])
    depth = np.full((10, 12), 2.0, np.float32)
    for frame, shift in ((1, 0), (2, 3)):
        inst = Instance(label="object", score=0.9, cx=4.0 + shift, cy=4.0, w=3, h=3)
        pose = np.eye(4)
        img, labels, objects = fi.from_detections([inst], depth, K, pose, frame, depth.shape)
        assert labels == {1: "object"} and len(objects) == 1 and int((img == 1).sum()) == 9
    assert fi.from_detections([Instance(label="object", score=0.9, cx=4, cy=4, w=3, h=3)], depth, K, None, 3,
                              depth.shape)[0].max() == 0
