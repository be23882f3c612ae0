"""World markers (the core's plain-data accessor) for every benchmark, their ROS messages
(MarkerArray, Detection3DArray, Path, Range, FluidPressure), and the 2.5-D height map of a
flying body."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.markers import WorldMarker
from hazard_sim.render.camera import CameraSpec


def test_marker_shapes_are_checked():
    with pytest.raises(ValueError, match="marker shape must be one of box, cylinder, sphere, mesh, got 'cone'"):
        WorldMarker(1, "x", np.zeros(3), shape="cone")
    with pytest.raises(ValueError, match="mesh marker 2 \\(ground\\) needs vertices and faces"):
        WorldMarker(2, "ground", np.zeros(3), shape="mesh")


def test_hazard_world_markers_are_its_objects():
    env = EmbodiedEnv("hazard/fire", "test", 0, camera=CameraSpec(32, 24))
    env.reset()
    ms = env.world.markers()
    objs = env.world.in_scene()
    assert [m.id for m in ms[:len(objs)]] == [o.id for o in objs]
    m, o = ms[0], objs[0]
    assert m.label == o.name and m.shape == "box" and not m.static
    assert np.allclose(m.position, o.box.center) and np.allclose(m.size, 2 * o.box.half)


def test_doze_people_are_cylinders_where_the_people_are():
    env = EmbodiedEnv("doze/level2", "test", 0, camera=CameraSpec(32, 24))
    env.reset()
    people = env.world.process("people").people
    ms = [m for m in env.world.markers() if m.label == "person"]
    assert len(ms) == len(people) > 0
    for m, p in zip(ms, people):
        assert m.shape == "cylinder" and m.id == p.id
        assert np.allclose(m.position, [p.xy[0], p.xy[1], p.height / 2]) and m.size[2] == p.height
    env.advance(20)                                   # they walk: the markers follow
    moved = {m.id: m.position[:2] for m in env.world.markers() if m.label == "person"}
    assert all(np.allclose(moved[p.id], p.xy) for p in people)


def test_esar_markers_victims_clues_and_terrain_mesh():
    env = EmbodiedEnv("esar/alpine", "test", 0, camera=CameraSpec(32, 32))
    env.reset()
    ms = env.world.markers()
    labels = [m.label for m in ms if not m.static]
    assert labels.count("victim") == len(env.spec_dict["victims"])
    assert sum(lab.startswith("clue:") for lab in labels) == len(env.spec_dict["clues"])
    terrain = [m for m in ms if m.static]
    assert len(terrain) == 1 and terrain[0].shape == "mesh"
    t = env.world.scene.terrain
    v = terrain[0].vertices
    # every 2nd sample of the 168 x 168 alpine grid (at most 96 a side): 84 x 84 vertices at the grid heights
    assert len(v) == 84 * 84 and terrain[0].faces.shape == (83 * 83 * 2, 3)
    assert np.allclose(v[:, 2], t.heights[::2, ::2].ravel()) and v[:, 0].max() == pytest.approx(83 * 24.0)


def test_marker_and_detection_messages():
    pytest.importorskip("vision_msgs.msg", reason="ROS message packages not installed")
    from visualization_msgs.msg import Marker

    from hazard_ros import conversions as conv
    stamp = conv.stamp_from_frame(3)
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])      # 90 deg about z
    box = WorldMarker(7, "clue:tent", np.array([1.0, 2.0, 3.0]), (2.0, 1.0, 0.5), (255, 0, 0), "box", rot)
    tri = WorldMarker(1, "terrain", np.zeros(3), shape="mesh", static=True,
                      vertices=np.array([[0, 0, 0], [1, 0, 0], [0, 1, 1.0]]), faces=np.array([[0, 1, 2]]),
                      vertex_colors=np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255]], np.uint8))
    arr = conv.to_ros_markers([box, tri], stamp)
    assert (arr.markers[0].ns, arr.markers[0].action) == ("world", Marker.DELETEALL)   # things that left go
    kinds = [(m.ns, m.type, m.action) for m in arr.markers[1:]]
    assert kinds == [("world", Marker.CUBE, Marker.ADD),
                     ("world_labels", Marker.TEXT_VIEW_FACING, Marker.ADD), ("world", Marker.TRIANGLE_LIST, Marker.ADD)]
    cube = arr.markers[1]
    assert (cube.id, cube.scale.x, cube.scale.y, cube.scale.z) == (7, 2.0, 1.0, 0.5)
    assert conv.quaternion_to_yaw(cube.pose.orientation) == pytest.approx(math.pi / 2)
    assert cube.color.r == 1.0 and cube.color.g == 0.0
    assert arr.markers[2].text == "clue:tent" and arr.markers[2].pose.position.z == pytest.approx(3.0 + 0.25 + 0.5)
    mesh = arr.markers[3]
    assert [(p.x, p.y, p.z) for p in mesh.points] == [(0, 0, 0), (1, 0, 0), (0, 1, 1)]
    assert [(c.r, c.g, c.b) for c in mesh.colors] == [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    det = conv.to_ros_detection3d_array([box], stamp)
    d = det.detections[0]
    assert (d.id, d.results[0].hypothesis.class_id, d.bbox.size.x) == ("7", "clue:tent", 2.0)
    back = conv.from_ros_detection3d_array(det)
    assert back[0][0] == "clue:tent" and np.allclose(back[0][1], [1, 2, 3]) and back[0][2] == 1.0
    d.results = []
    with pytest.raises(ValueError, match="has no results"):
        conv.from_ros_detection3d_array(det)


def test_path_range_pressure_and_odometry_height():
    pytest.importorskip("vision_msgs.msg", reason="ROS message packages not installed")
    from hazard_ros import conversions as conv
    stamp = conv.stamp_from_frame(0)
    path = conv.to_ros_path(np.array([[0, 0, 10.0], [3, 4, 12.0]]), stamp)
    assert [p.pose.position.z for p in path.poses] == [10.0, 12.0]
    assert conv.quaternion_to_yaw(path.poses[0].pose.orientation) == pytest.approx(math.atan2(4, 3))
    r = conv.to_ros_range(42.0, stamp, "altimeter_link")
    assert (r.range, r.header.frame_id) == (42.0, "altimeter_link")
    assert conv.to_ros_range(5000.0, stamp, "a").range == math.inf            # REP 117: beyond max_range
    assert conv.to_ros_range(0.01, stamp, "a").range == -math.inf
    # ISA: 101325 Pa at sea level, 89874.6 Pa at 1000 m, 54019.9 Pa at 5000 m (standard tables)
    assert conv.isa_pressure(0.0) == pytest.approx(101325.0)
    assert conv.isa_pressure(1000.0) == pytest.approx(89874.6, abs=1.0)
    assert conv.isa_pressure(5000.0) == pytest.approx(54019.9, abs=2.0)
    assert conv.isa_altitude(conv.isa_pressure(1234.5)) == pytest.approx(1234.5, abs=1e-6)
    odom = conv.to_ros_odometry(1, 2, 0.5, 3, 0.1, stamp, z=55.0, vz=1.5, planar=False)
    assert (odom.pose.pose.position.z, odom.twist.twist.linear.z, odom.pose.covariance[14]) == (55.0, 1.5, 1e-6)
    planar = conv.to_ros_odometry(1, 2, 0.5, 3, 0.1, stamp)
    assert planar.pose.pose.position.z == 0.0 and planar.pose.covariance[14] == 1e6
    imu = conv.to_ros_imu(0.0, 0.0, (1.0, 2.0, 0.5), stamp)
    assert imu.linear_acceleration.z == pytest.approx(conv.GRAVITY + 0.5)


def test_height_map_core_obstacles_at_altitude():
    from perception_node.mapping import HeightMapCore
    core = HeightMapCore((0, 0, 100, 100), resolution=10.0, step=1, max_range=500.0, clearance=5.0)
    # a camera 100 m up looking straight down (optical z = world -z, x = world x, y = world -y)
    K = np.array([[4.0, 0, 1.5], [0, 4.0, 1.5], [0, 0, 1.0]])
    T = np.eye(4)
    T[:3, :3] = [[1, 0, 0], [0, -1, 0], [0, 0, -1]]
    T[:3, 3] = (50.0, 50.0, 100.0)
    depth = np.full((4, 4), 100.0, np.float32)       # flat ground at z = 0 ...
    depth[0, 0] = 60.0                               # ... and one 40 m high thing
    n = core.add_depth(depth, K, T)
    assert n == 16 and len(core.height_points()) == 16          # 25 m apart: one cell each
    pts = core.height_points()
    assert len(pts) > 0 and pts[:, 2].max() == pytest.approx(40.0)
    occ = core.obstacles(altitude=30.0)              # flying at 30 m: the 40 m thing blocks, the ground not
    assert (occ == 100).sum() == 1 and (occ == 0).sum() == len(pts) - 1 and (occ == -1).sum() == 100 - len(pts)
    assert (core.obstacles(altitude=50.0) == 100).sum() == 0     # 50 - 5 > 40
    with pytest.raises(ValueError, match="resolution > 0"):
        HeightMapCore((0, 0, 10, 10), resolution=0.0)
