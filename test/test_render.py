"""Tests of the ray-casting renderer against hand-computed values."""
import numpy as np
import pytest

from hazard_sim.geometry import Box
from hazard_sim.render import CameraSpec, Frame, RaycastRenderer, WaterSurface, optical_rotation

# Odd size: the centre pixel (32, 32) lies exactly on the optical axis.
CAM = CameraSpec(width=65, height=65, hfov_deg=90.0, near=0.05, far=50.0)
C = 32
FLOOR_ID, WALL_ID, OBJ_ID = 1, 2, 7


def floor_box():
    """A floor whose top surface is z = 0."""
    return Box.from_yaw([0.0, 0.0, -0.1], [20.0, 20.0, 0.1])


def renderer(static=(), dynamic=()):
    r = RaycastRenderer(CAM)
    if static:
        boxes, ids = zip(*static)
        r.set_static(list(boxes), np.array(ids), np.full((len(ids), 3), 200))
    if dynamic:
        boxes, ids = zip(*dynamic)
        r.set_dynamic(list(boxes), np.array(ids), np.full((len(ids), 3), 100))
    return r


def test_intrinsics_match_hfov():
    cam = CameraSpec(width=256, height=192, hfov_deg=70.0)
    k = cam.intrinsics()
    f = 128.0 / np.tan(np.radians(35.0))
    np.testing.assert_allclose(k, [[f, 0, 127.5], [0, f, 95.5], [0, 0, 1]])
    np.testing.assert_allclose(CameraSpec(width=64, hfov_deg=90.0).intrinsics()[0, 0], 32.0)


def test_optical_rotation_axes():
    r = optical_rotation(0.0)
    np.testing.assert_allclose(r[:, 2], [1, 0, 0], atol=1e-12)   # z forward = world +x
    np.testing.assert_allclose(r[:, 0], [0, -1, 0], atol=1e-12)  # x right = world -y
    np.testing.assert_allclose(r[:, 1], [0, 0, -1], atol=1e-12)  # y down = world -z
    np.testing.assert_allclose(optical_rotation(np.pi / 2)[:, 2], [0, 1, 0], atol=1e-12)
    pitch = 0.3
    np.testing.assert_allclose(optical_rotation(0.0, pitch)[:, 2],
                               [np.cos(pitch), 0, -np.sin(pitch)], atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(optical_rotation(0.7, 0.2)), 1.0)


def test_box_ahead_depth_is_z_depth_and_seg():
    wall = Box.from_yaw([5.0, 0.0, 1.0], [0.5, 6.0, 6.0])   # front face at x = 4.5
    r = renderer(static=[(wall, WALL_ID)])
    f = r.render([0.0, 0.0, 1.0], optical_rotation(0.0))
    assert isinstance(f, Frame)
    assert f.rgb.shape == (65, 65, 3) and f.rgb.dtype == np.uint8
    assert f.depth.dtype == np.float32 and f.seg.dtype == np.int32
    assert f.depth[C, C] == pytest.approx(4.5, abs=1e-5)
    assert f.seg[C, C] == WALL_ID
    # Off-centre pixels on the fronto-parallel face have the same z-depth.
    assert (f.seg == WALL_ID).all()
    np.testing.assert_allclose(f.depth, 4.5, atol=1e-5)
    assert f.water_depth is None
    # Looking the other way nothing is hit: depth inf, seg 0, points nan.
    f = r.render([0.0, 0.0, 1.0], optical_rotation(np.pi))
    assert np.isinf(f.depth).all() and (f.seg == 0).all() and np.isnan(f.points).all()


def test_left_right_and_yaw():
    left = Box.from_yaw([3.0, 1.5, 0.0], [0.2, 0.2, 0.2])     # +y is to the left
    right = Box.from_yaw([3.0, -1.5, 0.0], [0.2, 0.2, 0.2])
    r = renderer(dynamic=[(left, 10), (right, 11)])
    f = r.render([0.0, 0.0, 0.0], optical_rotation(0.0))
    cols_left = np.nonzero((f.seg == 10).any(axis=0))[0]
    cols_right = np.nonzero((f.seg == 11).any(axis=0))[0]
    assert len(cols_left) and cols_left.max() < C
    assert len(cols_right) and cols_right.min() > C
    # Turning left by 90 deg to face +y, the left box is no longer in view...
    f = r.render([0.0, 0.0, 0.0], optical_rotation(np.arctan2(1.5, 3.0)))
    assert f.seg[C, C] == 10                                    # ...but straight ahead


def test_pitch_down_sees_floor():
    r = renderer(static=[(floor_box(), FLOOR_ID)])
    pos = [0.0, 0.0, 1.5]
    f = r.render(pos, optical_rotation(0.0, np.pi / 2))          # straight down
    assert f.seg[C, C] == FLOOR_ID
    assert f.depth[C, C] == pytest.approx(1.5, abs=1e-5)
    assert np.all(f.seg == FLOOR_ID)                             # the whole view is floor
    pitch = 0.3
    f = r.render(pos, optical_rotation(0.0, pitch))
    assert f.seg[C, C] == FLOOR_ID
    assert f.depth[C, C] == pytest.approx(1.5 / np.sin(pitch), rel=1e-5)
    assert f.depth[-1, C] < f.depth[C, C]                        # bottom of image is closer
    assert f.seg[0, C] == 0                                      # top row: above the horizon
    f = r.render(pos, optical_rotation(0.0, 0.0))
    # Level view: sky above the horizon; below it the 20 m floor, whose edge
    # is seen at row C + 1.5 / 20 * fy ~ C + 2.4.
    assert (f.seg[:C + 1] == 0).all() and (f.seg[C + 3:] == FLOOR_ID).all()


def test_points_backproject_with_depth_and_k():
    rng = np.random.default_rng(1)
    boxes = [(floor_box(), FLOOR_ID)] + [
        (Box.from_yaw(rng.uniform([2, -2, 0.3], [5, 2, 1.5]), rng.uniform(0.1, 0.5, 3),
                      rng.uniform(-np.pi, np.pi)), 10 + i) for i in range(6)]
    r = renderer(static=boxes)
    pos, rot = np.array([0.3, -0.2, 1.2]), optical_rotation(0.2, 0.25)
    f = r.render(pos, rot)
    hit = np.isfinite(f.depth)
    assert hit.mean() > 0.5
    np.testing.assert_array_equal(np.isnan(f.points).any(-1), ~hit)
    pc = (f.points[hit] - pos) @ rot                              # optical-frame points
    np.testing.assert_allclose(pc[:, 2], f.depth[hit], rtol=1e-5, atol=1e-5)
    v, u = np.nonzero(hit)
    k = CAM.intrinsics()
    np.testing.assert_allclose(k[0, 0] * pc[:, 0] / pc[:, 2] + k[0, 2], u, atol=1e-3)
    np.testing.assert_allclose(k[1, 1] * pc[:, 1] / pc[:, 2] + k[1, 2], v, atol=1e-3)
    np.testing.assert_allclose(r.unproject(f.depth, pos, rot), f.points, equal_nan=True)


def test_set_colors_changes_rgb_not_seg():
    wall = Box.from_yaw([5.0, 0.0, 1.0], [0.5, 3.0, 3.0])
    obj = Box.from_yaw([3.0, 0.0, 1.0], [0.2, 0.2, 0.2])
    r = renderer(static=[(wall, WALL_ID)], dynamic=[(obj, OBJ_ID)])
    pose = ([0.0, 0.0, 1.0], optical_rotation(0.0))
    before = r.render(*pose)
    r.set_colors([OBJ_ID], [[0, 0, 0]])                          # burnt: black
    after = r.render(*pose)
    np.testing.assert_array_equal(before.seg, after.seg)
    obj_px = after.seg == OBJ_ID
    assert obj_px.any() and (after.rgb[obj_px] == 0).all() and (before.rgb[obj_px] > 0).all()
    np.testing.assert_array_equal(before.rgb[~obj_px], after.rgb[~obj_px])
    # Shading: brightness follows the Lambert term, the wall keeps its colour.
    assert before.rgb[before.seg == WALL_ID].max() <= 200


def test_set_dynamic_moves_objects_and_keeps_static():
    wall = Box.from_yaw([5.0, 0.0, 1.0], [0.5, 3.0, 3.0])
    r = renderer(static=[(wall, WALL_ID)], dynamic=[(Box.from_yaw([3, 0, 1], [0.2] * 3), OBJ_ID)])
    pose = ([0.0, 0.0, 1.0], optical_rotation(0.0))
    assert r.render(*pose).seg[C, C] == OBJ_ID
    r.set_dynamic([Box.from_yaw([3, 1, 1], [0.2] * 3)], [OBJ_ID], [[1, 2, 3]])
    f = r.render(*pose)
    assert f.seg[C, C] == WALL_ID and (f.seg == OBJ_ID).any()
    r.set_dynamic([], [], np.zeros((0, 3)))
    assert set(np.unique(r.render(*pose).seg)) == {0, WALL_ID}


def test_far_plane_clips():
    wall = Box.from_yaw([60.0, 0.0, 0.0], [0.5, 30.0, 30.0])
    f = renderer(static=[(wall, WALL_ID)]).render([0.0, 0.0, 0.0], optical_rotation(0.0))
    assert np.isinf(f.depth).all() and (f.seg == 0).all()


def test_water_height_field():
    w = WaterSurface(level=1.0, origin=[-1.0, 0.0], direction=[2.0, 0.0],
                     slope_rad=np.arctan(0.5))
    xy = np.array([[-3.0, 5.0], [-1.0, 0.0], [0.0, 0.0], [1.0, -2.0], [4.0, 0.0]])
    np.testing.assert_allclose(w.height_at(xy), [1.0, 1.0, 0.5, 0.0, 0.0], atol=1e-12)
    assert w.height_at(np.zeros((4, 3, 2))).shape == (4, 3)


@pytest.mark.parametrize("water", [
    WaterSurface(level=0.5),                                      # flat pool
    WaterSurface(level=1.0, origin=[-1.0, 0.0], direction=[1.0, 0.0],
                 slope_rad=np.arctan(0.5)),                       # 0.5 deep below the camera
])
def test_water_depth_and_tint(water):
    r = renderer(static=[(floor_box(), FLOOR_ID)])
    pose = ([0.0, 0.0, 2.0], optical_rotation(0.0, np.pi / 2))    # looking straight down
    dry = r.render(*pose)
    wet = r.render(*pose, water=water)
    np.testing.assert_array_equal(dry.seg, wet.seg)               # water is translucent
    np.testing.assert_array_equal(dry.depth, wet.depth)
    assert wet.water_depth.dtype == np.float32
    assert wet.water_depth[C, C] == pytest.approx(0.5, abs=1e-5)
    expect = np.round(dry.rgb[C, C] * (1 - water.alpha) + water.color * water.alpha)
    np.testing.assert_allclose(wet.rgb[C, C], expect, atol=1)
    assert not np.array_equal(wet.rgb[C, C], dry.rgb[C, C])
    # Water depth matches the height field at the hit points, and the tint
    # is exactly where there is water above the floor.
    xy = dry.points[..., :2]
    np.testing.assert_allclose(wet.water_depth, water.height_at(xy), atol=1e-5)
    tinted = (wet.rgb != dry.rgb).any(-1)
    wet_px = wet.water_depth > 1e-3
    assert (tinted[wet_px]).all() and not tinted[wet.water_depth == 0].any()


def test_camera_under_water_tints_everything():
    r = renderer(static=[(floor_box(), FLOOR_ID)])
    pose = ([0.0, 0.0, 0.3], optical_rotation(0.0, 0.2))
    dry, wet = r.render(*pose), r.render(*pose, water=WaterSurface(level=0.5))
    assert (wet.rgb != dry.rgb).any(-1).all()
    assert np.all(wet.water_depth[np.isfinite(wet.depth)] == pytest.approx(0.5, abs=1e-5))
    assert (wet.water_depth[np.isinf(wet.depth)] == 0).all()


def test_invalid_inputs():
    r = RaycastRenderer(CAM)
    with pytest.raises(ValueError):
        r.set_static([floor_box()], [0], [[1, 2, 3]])             # id 0 is reserved
    with pytest.raises(ValueError):
        r.set_static([floor_box()], [1, 2], [[1, 2, 3]])


def test_water_intersect_matches_ray_marching():
    w = WaterSurface(level=0.8, origin=[0.5, -0.5], direction=[1.0, 1.0], slope_rad=0.3)
    rng = np.random.default_rng(2)
    ts = np.linspace(0.0, 8.0, 8001)
    for origin in ([0.0, 0.0, 1.5], [3.0, 2.0, 0.2], [-1.0, 0.0, 0.3]):  # above, above, under
        dirs = rng.normal(size=(200, 3)).astype(np.float32)
        t = w.intersect(origin, dirs[:, 0], dirs[:, 1], dirs[:, 2])
        p = np.asarray(origin) + ts[:, None, None] * dirs                # (T, N, 3)
        wet = (p[..., 2] >= 0) & (p[..., 2] < w.height_at(p[..., :2]))
        first = np.where(wet.any(0), ts[np.argmax(wet, axis=0)], np.inf)
        ok = np.isfinite(first) & (first < 7.9)
        np.testing.assert_allclose(t[ok], first[ok], atol=2e-3)
        assert (t[~wet.any(0)] > 7.99).all()                            # water only further on
