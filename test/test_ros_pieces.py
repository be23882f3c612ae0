"""Every shipped benchmark's ROS pieces (hazard_sim.core.ros_pieces) hold together without ROS:
each service runs an action its task parses, each field topic belongs to a channel its
processes offer, its plug-in, decision node, launch file and RViz config exist; the registry
imports only the benchmark asked for."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hazard_sim.core.ros_pieces import FIELD_IMAGE_TYPE, NO_ROS_PIECES, RosPieces, ros_pieces
from hazard_sim.core.spec import benchmark_ids, get_spec

REPO = Path(__file__).resolve().parents[1]
SHIPPED = [b for b in benchmark_ids() if b.split("/")[0] in ("hazard", "doze", "esar")]


@pytest.mark.parametrize("benchmark", SHIPPED)
def test_shipped_ros_pieces_hold_together(benchmark):
    spec = get_spec(benchmark)
    pieces = ros_pieces(spec)
    assert isinstance(pieces, RosPieces) and pieces is not NO_ROS_PIECES
    task = spec.task()
    for name, action in pieces.services.items():
        assert re.fullmatch(r"[a-z_]+(/[a-z_]+)?", name), name
        if action is not None:
            task.parse(action)                    # raises where the task does not know the action
    assert (None in pieces.services.values()) <= bool(pieces.plugin)     # a plug-in serves the None ones
    if pieces.plugin:
        module, _, cls = pieces.plugin.partition(":")
        assert cls and importlib.util.find_spec(module) is not None, pieces.plugin
    assert (REPO / pieces.launch_file).is_file() and (REPO / pieces.rviz).is_file()
    setup = (REPO / "setup.py").read_text()
    assert f'"{pieces.decision} = ' in setup, f"{pieces.decision} is no console script"
    launch = (REPO / pieces.launch_file).read_text()
    assert "exec: sim_node" in launch and f"exec: {pieces.decision}" in launch
    assert set(pieces.published()) >= set(pieces.topics)
    assert all(pieces.published()[t] == FIELD_IMAGE_TYPE for t in pieces.field_topics.values())


def test_field_topics_follow_the_processes_channels():
    """HAZARD's fire offers temperature and its flood water level; each has its topic, wind none."""
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.render.camera import CameraSpec
    topics = {}
    for b in ("hazard/fire", "hazard/flood", "hazard/wind"):
        env = EmbodiedEnv(b, camera=CameraSpec(16, 12))
        env.reset()
        channel = next((q.channel for q in env.world.processes if q.channel), None)
        topics[b] = ros_pieces(env.spec_b).field_topics.get(channel)
    assert topics == {"hazard/fire": "thermal/image_raw", "hazard/flood": "water_level/image_raw",
                      "hazard/wind": None}


def test_ros_pieces_of_a_spec_without_them_and_a_wrong_one():
    class Spec:
        id, ros = "x/y", None
    assert ros_pieces(Spec()) is NO_ROS_PIECES and NO_ROS_PIECES.published() == {}
    Spec.ros = {"services": {}}
    with pytest.raises(TypeError, match="x/y: its spec's ros must be a RosPieces, got dict"):
        ros_pieces(Spec())


PROBE = """
import json, sys
from hazard_sim.core.spec import resolve
ids = [resolve(name) for name in sys.argv[1:]]
print(json.dumps([ids, sorted(m for m in sys.modules if m.count(".") == 2 and m.startswith("hazard_sim.tasks."))]))
"""


@pytest.mark.parametrize("names, packages", [(["esar/alpine"], ["esar"]), (["doze/level2"], ["doze"]),
                                             (["flood"], ["hazard"]), (["hazard/wind", "fire"], ["hazard"])])
def test_resolve_imports_only_the_package_that_registers_the_name(names, packages):
    proc = subprocess.run([sys.executable, "-c", PROBE, *names], capture_output=True, text=True, timeout=120,
                          cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ids, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(i.split("/")[0] == packages[0] for i in ids)
    assert loaded == [f"hazard_sim.tasks.{p}" for p in packages]


def test_topic_types_generic_named_cameras_and_declared():
    """The sim node's catalogue without ROS: generic topics, a named camera's, a benchmark's own."""
    from hazard_ros.sim_topics import PUBLISHED_TOPICS, topic_type
    pieces = RosPieces(field_topics={"heat": "heat/image_raw"}, topics={"x/y": "std_msgs/msg/String"})
    assert topic_type("odom", pieces) == "nav_msgs/msg/Odometry"
    assert topic_type("camera_left/depth/camera_info", NO_ROS_PIECES) == "sensor_msgs/msg/CameraInfo"
    assert topic_type("heat/image_raw", pieces) == FIELD_IMAGE_TYPE
    assert topic_type("x/y", pieces) == "std_msgs/msg/String"
    assert topic_type("x/y", NO_ROS_PIECES) is None and topic_type("camera_left/foo", pieces) is None
    # the whole catalogue: every shipped benchmark's topics and named cameras
    assert PUBLISHED_TOPICS["thermal/image_raw"] == FIELD_IMAGE_TYPE
    assert PUBLISHED_TOPICS["reports"] == "vision_msgs/msg/Detection3DArray"
    assert {"water_level/image_raw", "reports/markers", "camera_front_left/segmentation/image_raw"} <= set(
        PUBLISHED_TOPICS)
    with pytest.raises(KeyError):
        PUBLISHED_TOPICS["no/such/topic"]
