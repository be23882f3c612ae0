"""mapping_node's plug-ins and map kinds in-process: the node's callbacks are called with
messages directly (no DDS traffic), so what it builds is checked without waiting on
discovery. The depth scene is test_mapping's wall 3.05 m ahead of a camera 1 m high."""
from __future__ import annotations

import json

import numpy as np
import pytest

try:
    from rclpy.parameter import Parameter
    from std_msgs.msg import String
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run `bash scripts/setup_ros.sh`",
                allow_module_level=True)

from hazard_ros import conversions as conv
from hazard_sim.render.camera import BODY_FROM_OPTICAL, CameraSpec
from perception_node.field_layers import LayerScale
from perception_node.height_mapping import HeightMapping
from perception_node.map_plugins import FieldLayerSpec, MapPlugin, register_map_plugin, unregister_map_plugin
from perception_node.mapping_node import MappingNode

TEST_TIME_LIMIT_S = 25
CAM = CameraSpec(width=32, height=24, hfov_deg=90.0)
K = CAM.intrinsics()
BOUNDS = [-1.0, -5.0, 6.0, 5.0]
TOY = MapPlugin("toy", (FieldLayerSpec("radiation", LayerScale("Sv", 0.0, 0.5), "rad/image_raw", "toy/radiation"),),
                "toy/layers_info", memory_task_keys=("level",), container_prefixes=("crate",))


def wall_depth():
    v = np.mgrid[0:CAM.height, 0:CAM.width][0].astype(float)
    y = (v - K[1, 2]) / K[1, 1]
    t_floor = np.where(y > 0, 1.0 / np.where(y > 0, y, 1), np.inf)
    return np.minimum(3.05, t_floor).astype(np.float32)


def camera_T():
    T = np.eye(4)
    T[:3, :3] = BODY_FROM_OPTICAL
    return T


def task(**kw):
    return String(data=json.dumps(dict({"bounds": BOUNDS, "targets": [], "episode": 0}, **kw)))


def feed_frame(node, frame: int, field: tuple[str, np.ndarray] | None = None):
    """TF (map = odom, base at the origin, camera 1 m up), depth + info and a field image."""
    stamp, f = conv.stamp_from_frame(frame), "camera_optical_frame"
    T_cam = camera_T()
    T_cam[2, 3] = 1.0
    node.poses.on_tf(conv.to_ros_tf_message([conv.to_ros_transform(np.eye(4), stamp, "map", "odom"),
                                             conv.to_ros_transform(T_cam, stamp, "base_link", f)]), True)
    node.poses.on_tf(conv.to_ros_tf_message([conv.to_ros_transform(np.eye(4), stamp, "odom", "base_link")]))
    if field is not None:
        node._on_field(field[0], conv.to_ros_image(field[1], stamp, f, "32FC1"))
    node._on_camera("depth", conv.to_ros_image(wall_depth(), stamp, f))
    node._on_camera("info", conv.to_ros_camera_info(K, CAM.width, CAM.height, stamp, f))


@pytest.fixture
def make_node(ros_context):
    nodes = []

    def make(**params):
        node = MappingNode(context=ros_context, parameter_overrides=[Parameter("step", value=1)] + [
            Parameter(k, value=v) for k, v in params.items()])
        nodes.append(node)
        return node
    yield make
    for n in nodes:
        n.destroy_node()


def test_hazard_task_brings_its_layers_and_memory_keys(make_node):
    node = make_node()
    assert node.pub_layers == {} and node.pub_layers_info is None      # nothing before the task
    node._on_task(task(benchmark="hazard/flood", hazard="flood", channel="water_level"))
    assert set(node.pub_layers) == {"temperature", "water_level"}
    assert node.pub_layers["water_level"].topic_name == "/hazard/water_level"
    assert node.pub_layers_info.topic_name == "/hazard/layers_info"
    assert set(node.core.layers) == {"temperature", "water_level"} and node.kind_piece is None
    water = np.full((CAM.height, CAM.width), 0.4, np.float32)
    feed_frame(node, 1, ("water_level", water))                        # the field image waits for its depth
    c = node.core.spec.to_cell
    assert node.core.layers["water_level"].values[c((3.05, 0.0))] == pytest.approx(0.4)
    assert node.core.occupancy_map.occupancy()[c((3.05, 0.0))] == 100
    assert node.stats["depth_frames"] == 1 and node.stats["field_frames"] == 1
    mem = node.core.memory_dict(0.1)
    assert mem["hazard"] == "flood" and mem["reading_unit"] == "m"


def test_benchmark_without_plugin_maps_occupancy_only(make_node):
    node = make_node()
    node._on_task(task(benchmark="doze/level1"))
    assert node.pub_layers == {} and node.core.layers == {} and node.pub_layers_info is None
    feed_frame(node, 1)
    assert node.core.occupancy_map.occupancy()[node.core.spec.to_cell((3.05, 0.0))] == 100
    assert "hazard" not in node.core.memory_dict()


def test_parameter_plugin_before_the_task_and_after_the_core(make_node):
    register_map_plugin("toy", TOY)
    try:
        node = make_node(map_plugin="toy", bounds=BOUNDS)
        assert set(node.pub_layers) == {"radiation"} and set(node.core.layers) == {"radiation"}
        assert node.pub_layers["radiation"].topic_name == "/toy/radiation"
        node._on_task(task(benchmark="hazard/fire", level=3))              # the parameter wins
        assert set(node.core.layers) == {"radiation"}
        assert node.core.memory_dict()["level"] == 3 and node.core.memory.container_prefixes == ("crate",)
        feed_frame(node, 2, ("radiation", np.full((CAM.height, CAM.width), 2.0, np.float32)))
        assert node.core.layers["radiation"].occupancy()[node.core.spec.to_cell((3.05, 0.0))] == 4   # 2 Sv / 0.5
        assert node.core.reading_layer() == "radiation"
    finally:
        unregister_map_plugin("toy")
    node = make_node(map_plugin="none")
    node._on_task(task(benchmark="hazard/fire"))
    assert node.pub_layers == {} and node.core.layers == {}


def test_map_kind_from_the_body_or_the_parameter(make_node):
    node = make_node()
    node._on_task(task(benchmark="esar/x", flies=True, cameras=["front_center"]))
    assert isinstance(node.kind_piece, HeightMapping) and node.kind_piece.core.spec.resolution == 10.0
    assert set(node.kind_piece.syncs) == {"front_center"}
    feed_frame(node, 1)                                         # the main camera does not make the floor grid
    assert node.stats["depth_frames"] == 0 and node.core.occupancy_map.frames == 0
    floor = make_node(map_kind="floor")
    floor._on_task(task(benchmark="esar/x", flies=True, cameras=["front_center"]))
    assert floor.kind_piece is None
    feed_frame(floor, 1)
    assert floor.stats["depth_frames"] == 1


def test_bad_map_parameters_are_refused(make_node):
    with pytest.raises(ValueError, match="map_kind must be one of floor, height, got 'cave'"):
        make_node(map_kind="cave")
    with pytest.raises(ValueError, match="parameter map_plugin '../x': .* not a benchmark name"):
        make_node(map_plugin="../x")
    node = make_node()
    node._on_task(task(benchmark="../x"))                      # a task's bad name: logged, no plug-in
    assert node.core is not None and node.pub_layers == {}
