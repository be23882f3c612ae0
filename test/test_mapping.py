"""Occupancy from a synthetic depth image of a wall, field layers (HAZARD's, from its mapping
plug-in), object memory."""
from __future__ import annotations

import json

import numpy as np
import pytest

from hazard_sim.render.camera import BODY_FROM_OPTICAL, CameraSpec
from perception_node.map_plugins import load_map_plugin
from perception_node.mapping import (
    FREE,
    OCCUPIED,
    UNKNOWN,
    FieldLayer,
    MappingCore,
    ObjectMemory,
    ObjectObservation,
    OccupancyMapper,
    depth_points,
    field_reading,
)

HAZARD = load_map_plugin("hazard")
SCALES = {f.name: f.scale for f in HAZARD.field_layers}         # HAZARD's temperature and water level

CAM = CameraSpec(width=64, height=48, hfov_deg=90.0)
K = CAM.intrinsics()
CAM_H = 1.0
WALL_X = 3.05                     # a cell centre: no float ties at cell borders
BOUNDS = (-1.0, -5.0, 6.0, 5.0)


def pose():
    T = np.eye(4)
    T[:3, :3] = BODY_FROM_OPTICAL
    T[:3, 3] = (0.0, 0.0, CAM_H)
    return T


def wall_scene():
    """Depth of a level camera at height 1 m looking along +x at a wall x = 3 m over a floor
    z = 0; also a mask of the pixels that see the wall."""
    v, u = np.mgrid[0:CAM.height, 0:CAM.width].astype(float)
    y = (v - K[1, 2]) / K[1, 1]                # optical y (down) per unit z
    t_floor = np.where(y > 0, CAM_H / np.where(y > 0, y, 1), np.inf)
    depth = np.minimum(WALL_X, t_floor).astype(np.float32)
    return depth, t_floor >= WALL_X


def test_depth_points_geometry():
    depth, wall = wall_scene()
    pts = depth_points(depth, K, pose())
    np.testing.assert_allclose(pts[wall][:, 0], WALL_X, atol=1e-5)
    np.testing.assert_allclose(pts[~wall][:, 2], 0.0, atol=1e-5)
    bad = depth.copy()
    bad[0, 0], bad[0, 1], bad[0, 2] = np.inf, 0.0, np.nan
    p = depth_points(bad, K, pose(), max_range=2.5)
    assert np.isnan(p[0, :3]).all()
    assert np.isnan(p[wall]).all()                               # the wall is beyond max_range


def test_occupancy_of_a_wall_at_known_distance():
    depth, _ = wall_scene()
    m = OccupancyMapper(BOUNDS, resolution=0.1, step=1)
    m.integrate_depth(depth, K, pose())
    occ = m.occupancy()
    assert occ.shape == (100, 70) and occ.dtype == np.int8
    cell = m.spec.to_cell
    # the wall: x in [3.0, 3.1), |y| <= ~3 m (90 deg field of view)
    for y in (-2.5, -1.0, 0.0, 1.0, 2.5):
        assert occ[cell((3.05, y))] == OCCUPIED, y
    assert occ[cell((3.05, 3.5))] == UNKNOWN                  # outside the field of view
    assert occ[cell((2.75, 0.0))] == FREE                      # floor just before the wall (last floor ray hits 2.78 m)
    assert occ[cell((2.0, 0.0))] == FREE
    assert occ[cell((0.5, 0.0))] == UNKNOWN                    # below the lowest ray
    assert occ[cell((4.0, 0.0))] == UNKNOWN                    # behind the wall
    occupied_x = m.spec.centres()[occ == OCCUPIED][:, 0]
    np.testing.assert_allclose(occupied_x, 3.05, atol=1e-9)    # nothing else is an obstacle
    # the obstacle columns are exactly those inside the view cone
    ys = m.spec.centres()[occ == OCCUPIED][:, 1]
    assert ys.min() == pytest.approx(-3.05) and ys.max() == pytest.approx(3.05)   # 31.5 px * 3.05 m / 32 px = 3.002 m


def test_occupancy_ignores_boxes_and_out_of_bounds():
    depth, _ = wall_scene()
    m = OccupancyMapper(BOUNDS, resolution=0.1, step=1)
    m.integrate_depth(depth, K, pose(), ignore_boxes=[(np.array([3.05, 0.5, 1.0]), np.array([0.2, 0.2, 2.0]))])
    occ = m.occupancy()
    assert occ[m.spec.to_cell((3.05, 0.0))] == OCCUPIED
    assert occ[m.spec.to_cell((3.05, 0.55))] != OCCUPIED       # inside the ignored box
    m.clear_boxes([(np.array([3.05, -1.0, 1.0]), np.array([0.1, 0.1, 1.0]))])
    occ = m.occupancy()
    assert occ[m.spec.to_cell((3.05, -1.0))] != OCCUPIED and occ[m.spec.to_cell((3.05, -1.35))] == OCCUPIED
    short = OccupancyMapper((-1.0, -1.0, 2.5, 1.0), resolution=0.1, step=1)   # the wall lies outside
    short.integrate_depth(depth, K, pose())
    occ = short.occupancy()
    assert not (occ == OCCUPIED).any()                          # nothing clamped onto the border
    assert (occ == FREE).any()


def test_field_layers_max_per_frame_latest_across_frames():
    depth, wall = wall_scene()
    pts = depth_points(depth, K, pose())
    thermal = np.where(wall, 120.0, 20.0).astype(np.float32)
    m = OccupancyMapper(BOUNDS, step=1)
    layer = FieldLayer(m.spec, "temperature", SCALES["temperature"])
    assert layer.update(pts, thermal, 1.0) > 0
    c = m.spec.to_cell
    assert layer.values[c((3.05, 0.0))] == 120.0
    assert layer.values[c((2.0, 0.0))] == 20.0
    assert np.isnan(layer.values[c((4.5, 0.0))])
    packed = layer.occupancy()
    assert packed[c((3.05, 0.0))] == 12 and packed[c((2.0, 0.0))] == 2 and packed[c((4.5, 0.0))] == -1
    np.testing.assert_allclose(SCALES["temperature"].unpack(packed[c((3.05, 0.0))]), 120.0)
    layer.update(pts, thermal * 0.5, 2.0)                       # it cooled down: latest wins
    assert layer.values[c((3.05, 0.0))] == 60.0 and layer.peak[c((3.05, 0.0))] == 120.0
    assert layer.updated[c((3.05, 0.0))] == 2.0
    assert layer.scale.pack(np.array([5000.0, -3.0])).tolist() == [100, 0]

    water = FieldLayer(m.spec, "water_level", SCALES["water_level"])
    water.update(pts, np.where(wall, 0.0, 0.4).astype(np.float32), 1.0)
    assert water.values[c((2.0, 0.0))] == pytest.approx(0.4)
    assert water.occupancy()[c((2.0, 0.0))] == 20
    assert water.info()["unit"] == "m" and water.info()["scale"] == 0.02


def test_field_reading_projects_the_box():
    img = np.zeros((CAM.height, CAM.width), np.float32)
    img[20:28, 28:36] = 300.0                                  # hot patch around the image centre
    reading = field_reading(img, K, pose(), center=(2.0, 0.0, 1.0), size=(0.2, 0.2, 0.2))
    assert reading == 300.0
    assert np.isnan(field_reading(img, K, pose(), center=(-2.0, 0.0, 1.0), size=(0.2, 0.2, 0.2)))


TASK = {"hazard": "fire", "targets": [{"category": "backpack", "value": 5}],
        "containers": {"40": "cart_0"}}


def test_object_memory_ids_association_and_status():
    mem = ObjectMemory(TASK, match_radius=0.5, container_prefixes=HAZARD.container_prefixes,
                       task_keys=HAZARD.memory_task_keys)
    ids = mem.update([ObjectObservation("backpack", np.array([1.0, 1.0, 0.2]), np.full(3, 0.3), 1.0, 1003, 80.0),
                      ObjectObservation("cart", np.array([4.0, 0.0, 0.5]), np.full(3, 0.8), 1.0, 40)], 0.5)
    assert ids == [1003, 40]
    r = mem.objects[1003]
    assert (r.is_target, r.value, r.reading, r.last_seen, r.status) == (True, 5, 80.0, 0.5, "scene")
    assert mem.objects[40].is_container and not mem.objects[40].is_target
    mem.update([ObjectObservation("backpack", np.array([1.1, 1.0, 0.2]), np.full(3, 0.3), 1.0, 1003, 100.0)], 1.5)
    assert r.reading_rate_per_s() == pytest.approx(20.0) and r.times_seen == 2
    np.testing.assert_allclose(r.position, [1.1, 1.0, 0.2])

    # no instance ids (a YOLO detector): nearest same-label record within the radius
    a = mem.update([ObjectObservation("bottle", np.array([0.0, 0.0, 0.1]), score=0.9)], 2.0)
    s = np.full(3, 0.1)
    b = mem.update([ObjectObservation("bottle", np.array([0.2, 0.0, 0.1]), s, score=0.8),
                    ObjectObservation("bottle", np.array([0.3, 0.1, 0.1]), s, score=0.7),
                    ObjectObservation("bottle", np.array([3.0, 0.0, 0.1]), s, score=0.6)], 3.0)
    assert a[0] >= 1_000_000 and b[0] == a[0]                  # same object, moved a little
    assert len(set(b)) == 3 and len(mem.objects) == 5          # second bottle nearby, third far

    assert mem.apply_status(1003, [])
    assert mem.objects[1003].status == "held"
    assert mem.apply_status(-1, [1003]) and mem.objects[1003].status == "rescued"
    assert not mem.apply_status(-1, [1003])
    boxes = mem.in_scene_boxes()
    assert len(boxes) == 3                                      # bottles only: cart is a container

    d = mem.to_dict(3.0, unit="C")
    text = json.dumps(d, allow_nan=False)                       # strict JSON: no NaN
    back = json.loads(text)
    assert back["hazard"] == "fire" and back["frame_id"] == "map"
    o = {x["id"]: x for x in back["objects"]}
    assert o[1003]["state"] == "rescued" and o[1003]["reading"] == 100.0
    assert o[1003]["label"] == "backpack" and o[1003]["position"] == [1.1, 1.0, 0.2]
    assert o[a[0]]["reading"] is None and o[a[0]]["last_seen"] == 3.0
    assert set(o[40]) >= {"id", "label", "position", "last_seen", "reading", "state"}


def test_mapping_core_orders_streams_by_stamp():
    depth, wall = wall_scene()
    core = MappingCore(BOUNDS, step=1, task=TASK, layers=SCALES)
    thermal = np.where(wall, 150.0, 30.0).astype(np.float32)
    assert core.add_field(1.0, "temperature", thermal) is False          # waits for its depth
    assert core.add_depth(1.0, depth, K, pose()) == ["temperature"]
    assert core.last_depth_stamp == 1.0
    c = core.spec.to_cell
    assert core.occupancy_map.occupancy()[c((3.05, 0.0))] == OCCUPIED
    assert core.layers["temperature"].values[c((3.05, 0.0))] == 150.0
    # an object on the wall: reading from the thermal image of the same stamp
    ids = core.add_objects(1.0, [ObjectObservation("backpack", np.array([2.95, 0.0, 1.0]),
                                                   np.full(3, 0.3), 1.0, 1000)])
    assert ids == [1000] and core.memory.objects[1000].reading == 150.0
    # a stamp without a cached image: the layer value at the object's cell
    core.add_objects(7.0, [ObjectObservation("backpack", np.array([2.0, 0.0, 0.1]),
                                             np.full(3, 0.3), 1.0, 1001)])
    assert core.memory.objects[1001].reading == 30.0
    d = core.memory_dict(7.0)
    assert d["reading_unit"] == "C" and len(d["objects"]) == 2
    assert set(core.layers_info()) == {"temperature", "water_level"}
    with pytest.raises(ValueError, match="unknown field layer"):
        core.add_field(1.0, "radiation", thermal)
    with pytest.raises(ValueError, match="does not match"):
        core.add_field(1.0, "water_level", thermal[:10])


def moved_pose(x: float, y: float) -> np.ndarray:
    T = pose()
    T[:2, 3] = (x, y)
    return T


def test_tiled_mapping_core_on_a_5km_map_matches_the_dense_one():
    """The same frames on a dense 7 m x 10 m map and on a tiled 5 km x 5 km one (0.1 m cells,
    2.5e9 of them) give the same cells around the camera."""
    depth, wall = wall_scene()
    thermal = np.where(wall, 150.0, 30.0).astype(np.float32)
    ox, oy = 2500.0, 1200.0
    small = MappingCore((ox - 1.0, oy - 5.0, ox + 6.0, oy + 5.0), step=1, tile=0, layers=SCALES)
    big = MappingCore((0.0, 0.0, 5000.0, 5000.0), step=1, layers=SCALES)
    assert not small.spec.tiled and big.spec.tiled and big.spec.shape == (50000, 50000)
    for core in (small, big):
        core.add_depth(1.0, depth, K, moved_pose(ox, oy))
        assert core.add_field(1.0, "temperature", thermal)
        core.occupancy_map.clear_boxes([(np.array([ox + 3.05, oy - 1.0, 1.0]), np.array([0.1, 0.1, 1.0]))])
    win = big.spec.window_covering([small.spec.bounds[:2], np.array(small.spec.bounds[2:]) - 0.05], 0.0)
    assert win.shape == small.spec.shape
    np.testing.assert_allclose(win.grid.bounds, small.spec.bounds)
    np.testing.assert_array_equal(big.occupancy_map.occupancy(win), small.occupancy_map.occupancy())
    t_big, t_small = big.layers["temperature"], small.layers["temperature"]
    np.testing.assert_array_equal(t_big.occupancy(win), t_small.occupancy())
    assert t_big.value_at((ox + 3.05, oy)) == 150.0
    # 7 m x 10 m of 0.1 m cells touch at most 2 x 3 tiles of 256 cells per layer
    assert len(big.occupancy_map.map.hits.tiles) <= 6 and len(t_big.values.tiles) <= 6


def test_reading_layer_comes_from_the_channel_not_the_task_name():
    core = MappingCore(BOUNDS, step=1, task={"hazard": "anything", "channel": "water_level"}, layers=SCALES)
    assert core.reading_layer() == "water_level" and core.memory_dict()["reading_unit"] == "m"
    core.set_task({"channel": None})                  # a hazard without an image channel
    assert core.reading_layer() is None and core.memory_dict()["reading_unit"] == ""
    core.set_task({"targets": []})                           # no channel: the layer that gets images
    assert core.reading_layer() is None
    depth, _ = wall_scene()
    core.add_depth(1.0, depth, K, pose())
    core.add_field(1.0, "temperature", np.full(depth.shape, 40.0, np.float32))
    assert core.reading_layer() == "temperature"
    core.add_field(1.0, "water_level", np.zeros(depth.shape, np.float32))
    assert core.reading_layer() is None                       # two fed layers: ambiguous
