"""2-D -> 3-D projection against hand-computed values; stamp synchroniser."""
from __future__ import annotations

import numpy as np
import pytest

from hazard_sim.render.camera import BODY_FROM_OPTICAL
from perception_node.detectors import Detection, GroundTruthDetector
from perception_node.projection import (
    StampSync,
    backproject_detection,
    project_points,
    scaled_K,
)

K = np.array([[100.0, 0.0, 4.5], [0.0, 100.0, 4.5], [0.0, 0.0, 1.0]])


def camera_pose(x=1.0, y=2.0, z=1.5):
    """Optical frame at (x, y, z) looking along map +x (level camera, yaw 0)."""
    T = np.eye(4)
    T[:3, :3] = BODY_FROM_OPTICAL
    T[:3, 3] = (x, y, z)
    return T


def test_backproject_masked_detection_by_hand():
    depth = np.full((10, 10), np.inf, np.float32)
    seg = np.zeros((10, 10), np.int32)
    seg[3:5, 5:8] = 4                 # rows 3..4, cols 5..7
    depth[3:5, 5:8] = 2.0
    seg[5, 6] = 4                     # a mask pixel with a far depth (mask bleeding): outlier
    depth[5, 6] = 10.0
    seg[2, 6] = 4                     # and one without depth
    (det,) = GroundTruthDetector({4: "box"}).detect(None, {"seg": seg})
    p = backproject_detection(det, depth, K, camera_pose())
    assert p is not None and p.n_points == 6 and p.depth == 2.0
    # surface median: u = 6, v = 3.5 -> optical (0.03, -0.02, 2) -> map (3, 1.97, 1.52)
    np.testing.assert_allclose(p.surface, [3.0, 1.97, 1.52], atol=1e-9)
    # 3 x 2 pixels at 2 m, 0.02 m per pixel -> 0.06 wide, 0.04 high; thickness min side 0.04
    np.testing.assert_allclose(p.size, [0.04, 0.06, 0.04], atol=1e-9)
    np.testing.assert_allclose(p.center, [3.02, 1.97, 1.52], atol=1e-9)


def test_backproject_box_without_mask_ignores_rim_and_background():
    depth = np.full((10, 10), 5.0, np.float32)       # wall at 5 m behind
    depth[2:8, 2:8] = 2.0                            # object in front
    det = Detection("thing", 0.8, cx=4.5, cy=4.5, w=10.0, h=10.0)   # loose box = whole image
    p = backproject_detection(det, depth, K, camera_pose())
    assert p.depth == 2.0 and p.n_points == 36       # central 6 x 6 pixels (cols 2..7), all object
    # box width at the median depth: 10 px * 2 m / 100 px = 0.2 m (box is loose)
    np.testing.assert_allclose(p.size, [0.2, 0.2, 0.2], atol=1e-9)
    np.testing.assert_allclose(p.center, [3.1, 2.0, 1.5], atol=1e-9)


def test_backproject_without_depth_is_none():
    depth = np.full((10, 10), np.nan, np.float32)
    det = Detection("thing", 0.8, cx=4.5, cy=4.5, w=4.0, h=4.0)
    assert backproject_detection(det, depth, K, camera_pose()) is None
    depth[:] = 0.0                                   # zero = no measurement (16UC1 style)
    assert backproject_detection(det, depth, K, camera_pose()) is None


def test_project_points_round_trip_and_scaled_K():
    T = camera_pose()
    uv, z = project_points(np.array([[3.0, 1.97, 1.52], [0.0, 2.0, 1.5]]), K, T)
    np.testing.assert_allclose(uv[0], [6.0, 3.5], atol=1e-9)
    assert z[0] == pytest.approx(2.0) and z[1] < 0         # second point is behind the camera
    K4 = scaled_K(K, 4)
    assert K4[0, 0] == 25.0 and K4[0, 2] == 4.5 / 4 and K4[2, 2] == 1.0


def test_stamp_sync_groups_exact_stamps_in_order():
    s = StampSync({"rgb", "depth"}, max_pending=3)
    assert s.add("rgb", 10, "r10") is None
    assert s.add("depth", 20, "d20") is None
    assert s.add("rgb", 20, "r20") == {"rgb": "r20", "depth": "d20"}
    assert s.dropped == 1 and s.pending() == 0                  # stamp 10 never completed
    assert s.add("depth", 10, "d10") is None                    # late, older than the last group
    assert s.add("other", 30, "x") is None                      # not a key
    for t in (31, 32, 33, 34):
        s.add("rgb", t, t)
    assert s.pending() == 3 and s.dropped == 2                  # max_pending
    assert s.add("depth", 31, "late") is None                   # 31 was pushed out
    assert s.add("depth", 33, "d33") == {"rgb": 33, "depth": "d33"}


def test_tf_wait_queue_waits_in_order_then_times_out():
    from perception_node.projection import TfWaitQueue
    have = {10: "T10"}
    latest = {"T": None}

    def lookup(stamp, payload):
        if stamp is None:
            if latest["T"] is None:
                raise LookupError("no TF at all")
            return latest["T"]
        if stamp not in have:
            raise LookupError(f"no TF at {stamp}")
        return have[stamp]

    q = TfWaitQueue(timeout_s=1.0, max_len=3)
    q.push(20, "b", now=0.0)
    q.push(10, "a", now=0.0)
    assert q.pop_ready(lookup, now=0.1) == [(10, "a", "T10", "exact")]
    assert q.pop_ready(lookup, now=0.5) == [] and len(q) == 1      # 20 waits for its TF
    q.push(30, "c", now=0.5)
    have[30] = "T30"
    assert q.pop_ready(lookup, now=0.6) == []                      # 30 stays behind 20
    assert q.pop_ready(lookup, now=1.2) == [(20, "b", None, "no TF at 20"), (30, "c", "T30", "exact")]
    latest["T"] = "Tlast"
    q.push(40, "d", now=2.0)
    assert q.pop_ready(lookup, now=2.0, hold=lambda p: True) == []
    assert q.pop_ready(lookup, now=3.5) == [(40, "d", "Tlast", "latest")]
    for k in range(5):
        q.push(100 + k, k, now=4.0)
    dropped = q.pop_ready(lookup, now=4.0)
    assert [d[3] for d in dropped] == ["dropped", "dropped"] and len(q) == 3
