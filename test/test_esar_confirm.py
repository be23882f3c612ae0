"""ESAR searchers come down to look: the pixel arithmetic of the camera model, the
colour-anomaly candidates, and the descend / look / climb behaviour of the baselines."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hazard_sim.tasks.esar import confirm
from hazard_sim.tasks.esar.agents import COLUMN_CLEARANCE, LOOK_DETOUR, FrontierAgent, LawnmowerAgent, RandomAgent
from hazard_sim.tasks.esar.confirm import (
    CONFIRM_PIXELS,
    PERSON_TOP_AREA,
    confirm_height,
    focal_px,
    ground_sample_distance,
    pixels_covered,
    range_for_pixels,
    salient_spots,
)

F256 = 128.0                                   # (256 / 2) / tan(45 deg)
PX256 = {"h": 256, "w": 256}


# ------------------------------------------------------------------ pixel arithmetic
def test_focal_length_in_pixels_of_the_benchmark_cameras():
    assert focal_px(256, 90.0) == pytest.approx(128.0)
    assert focal_px(512, 90.0) == pytest.approx(256.0)             # APEX's 512 x 512, 90 deg
    assert focal_px(256, 60.0) == pytest.approx(128.0 / math.tan(math.radians(30.0)))   # 221.70
    with pytest.raises(ValueError, match="hfov"):
        focal_px(256, 180.0)
    with pytest.raises(ValueError, match="width"):
        focal_px(0, 90.0)


def test_pixels_a_person_covers_by_hand():
    # the smallest person from above: sitting, 0.7 x 0.6 m = 0.42 m^2
    assert PERSON_TOP_AREA == pytest.approx(0.42)
    # 60 m straight down, 256 px: GSD 60 / 128 = 0.46875 m, a pixel 0.2197 m^2
    assert ground_sample_distance(60.0, F256) == pytest.approx(0.46875)
    assert pixels_covered(0.99, 60.0, F256) == pytest.approx(4.5056, abs=1e-4)      # lying 1.8 x 0.55 m
    assert pixels_covered(0.42, 60.0, F256) == pytest.approx(1.9115, abs=1e-4)      # sitting
    assert pixels_covered(0.99, 60.0, 256.0) == pytest.approx(18.0224, abs=1e-4)    # lying, 512 px
    # 16 pixels (the recognition rule) for a sitting person: 128 sqrt(0.42 / 16) = 20.738 m
    assert range_for_pixels(0.42, 16, F256) == pytest.approx(20.738, abs=1e-3)
    # the confirm height aims at 24 pixels: 128 sqrt(0.42 / 24) = 16.933 m; 512 px: 33.866 m
    assert CONFIRM_PIXELS == 24
    assert confirm_height(F256) == pytest.approx(16.933, abs=1e-3)
    assert confirm_height(256.0) == pytest.approx(33.866, abs=1e-3)
    assert pixels_covered(0.42, confirm_height(F256), F256) == pytest.approx(24.0)
    # never lower than 12 m above the surface: a 64 px camera would need 8.47 m
    assert confirm_height(32.0) == 12.0
    with pytest.raises(ValueError):
        pixels_covered(1.0, 0.0, F256)
    with pytest.raises(ValueError):
        range_for_pixels(1.0, 0, F256)


# ------------------------------------------------------------------ candidates
def _down_camera(h=64, w=64, height=60.0, at=(500.0, 500.0, 160.0)):
    """A camera straight down from ``at`` (ground ``height`` m below), f = w / 2 (90 deg)."""
    f = w / 2.0
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
    pose = np.eye(4)
    pose[:3, :3] = np.array([[1.0, 0, 0], [0, -1, 0], [0, 0, -1]])   # x right = east, y down = south, z = down
    pose[:3, 3] = at
    depth = np.full((h, w), height, np.float32)
    rng = np.random.default_rng(0)
    rgb = np.clip(np.array([96, 128, 64]) * (1 + 0.06 * rng.standard_normal((h, w, 1))), 0, 255).astype(np.uint8)
    return {"rgb": rgb, "depth": depth, "K": K, "pose": pose, "seg": np.ones((h, w), np.int32)}


def test_a_small_bright_spot_is_a_candidate_where_it_lies():
    cam = _down_camera()
    cam["rgb"][40:42, 20:22] = (255, 90, 0)          # 4 px of orange: a person from 60 m
    spots = salient_spots(cam["rgb"], cam["depth"], cam["K"], cam["pose"])
    assert len(spots) == 1 and spots[0].pixels == 4
    # pixel centre (20.5, 40.5), principal point 31.5, f 32, depth 60: camera x = -11 / 32 * 60 =
    # -20.625, y = +9 / 32 * 60 = 16.875 -> world east -20.625, north -16.875, on the ground 100 m
    assert spots[0].position == pytest.approx((500.0 - 20.625, 500.0 - 16.875, 100.0))


def test_dark_large_far_and_scene_class_spots_are_no_candidates():
    cam = _down_camera()
    cam["rgb"][10:12, 10:12] = (20, 30, 15)          # a shadow: darker, not brighter or more saturated
    cam["rgb"][30:36, 30:36] = (255, 90, 0)          # 36 px: big enough to be recognised, no candidate
    cam["rgb"][50:52, 50:52] = (255, 90, 0)          # on a tree (perceived scene class)
    cam["seg"][48:54, 48:54] = 3
    cam["rgb"][5:7, 50:52] = (255, 90, 0)            # beyond max_range
    cam["depth"][3:9, 48:54] = 500.0
    spots = salient_spots(cam["rgb"], cam["depth"], cam["K"], cam["pose"], cam["seg"], {1: "terrain", 3: "tree"})
    assert spots == []
    cam["seg"][48:54, 48:54] = 1                      # the same spot on plain terrain is one
    spots = salient_spots(cam["rgb"], cam["depth"], cam["K"], cam["pose"], cam["seg"], {1: "terrain", 3: "tree"})
    assert [s.pixels for s in spots] == [4]


def test_plain_noisy_ground_sky_streaks_and_flakes_give_no_candidates():
    cam = _down_camera()
    cam["depth"][:10] = np.inf                       # sky
    cam["rgb"][:10] = (200, 220, 255)
    cam["rgb"][20:26, 20] = cam["rgb"][20:26, 20] * 0.55 + 200 * 0.45     # a rain streak (grey)
    cam["rgb"][40:42, 40:42] = cam["rgb"][40:42, 40:42] * 0.2 + 235 * 0.8  # a snow flake (white)
    assert salient_spots(cam["rgb"], cam["depth"], cam["K"], cam["pose"]) == []
    # saturation by hand: meadow (96, 128, 64) 0.5, water (46, 82, 118) 0.61, orange (255, 90, 0) 1
    assert confirm.saturation(np.array([[96, 128, 64], [46, 82, 118], [255, 90, 0]])) == \
        pytest.approx([0.5, 72 / 118, 1.0])
    # a dim orange (light 0.3) is as saturated as a bright one: the rule holds at dusk
    assert confirm.saturation(np.array([76, 27, 0])) == pytest.approx(1.0)


# ------------------------------------------------------------------ descend, look, climb
def _obs(cam, pos, t=100.0, agl=60.0, victim_px=0):
    """One bottom camera; ``victim_px`` > 0 paints a recognised victim (id 1000) in seg_visible."""
    cam = dict(cam)
    seg = np.zeros(cam["depth"].shape, np.int32)
    if victim_px:
        seg[100:100 + victim_px // 4, 100:104] = 1000
    cam["seg_visible"] = seg
    return {"uav_state": np.array([*pos, 0.0, 0, 0, 0, 0]), "time_s": np.float64(t),
            "altitude": np.array([pos[2], agl]), "cameras": {"bottom_center": cam}}


def _info(status="succeeded"):
    task = {"bounds": [0.0, 0.0, 2000.0, 2000.0], "victims": 1, "time_limit_s": 900.0, "lkp": [500.0, 500.0],
            "ceiling": 2400.0}
    return {"task": task, "labels": {1: "terrain", 1000: "victim"}, "action_result": {"status": status}}


def test_a_searcher_flies_over_a_candidate_comes_down_looks_and_climbs_back():
    agent = LawnmowerAgent()
    cam = _down_camera(at=(500.0, 500.0, 160.0), **PX256)
    cam["rgb"][160:162, 80:82] = (255, 90, 0)        # spot at (477.97, 484.53, 100)
    agent.reset(_obs(cam, (500.0, 500.0, 160.0)), _info())
    assert len(agent.candidates) == 1
    spot = agent.candidates[0]
    a = agent.act(_obs(cam, (500.0, 500.0, 160.0)), _info())["action"]
    # 27.0 m away: a level leg over it at the search height (ground 100 m + 60 m)
    assert a["type"] == "goto" and a["position"] == pytest.approx([spot[0], spot[1], 160.0])
    assert agent.looks == 1 and agent.candidates == []
    # over the spot: straight down to 100 + 16.933 m (no obstacle near the column)
    over = _down_camera(at=(spot[0], spot[1], 160.0), **PX256)
    a = agent.act(_obs(over, (spot[0], spot[1], 160.0)), _info())["action"]
    assert a["type"] == "goto" and a["position"] == pytest.approx([spot[0], spot[1], 100.0 + confirm_height(F256)])
    assert a["position"][2] - 100.0 == pytest.approx(16.933, abs=1e-3)
    # down there the person covers enough pixels: recognised, reported; with a second person
    # missing the look is over and the pattern resumes, climbing back to 60 m first
    agent.n_victims = 2
    low = _down_camera(at=(spot[0], spot[1], 116.93), height=16.93, **PX256)
    out = agent.act(_obs(low, (spot[0], spot[1], 116.93), agl=16.93, victim_px=24), _info())
    assert out["victims"] and agent.look is None and len(agent.looked) == 1
    a = out["action"]
    assert a["type"] == "goto" and a["position"][:2] == pytest.approx([spot[0], spot[1]])
    assert a["position"][2] == pytest.approx(116.93 - 16.93 + 60.0, abs=0.5)
    # with every missing person found, a recognition is a stop
    agent.n_victims = 1
    assert agent.act(_obs(low, (spot[0], spot[1], 116.93), agl=16.93), _info())["action"] == "stop"


def test_nothing_recognised_down_there_the_spot_is_done_and_not_looked_at_again():
    agent = FrontierAgent()
    cam = _down_camera(at=(500.0, 500.0, 160.0), **PX256)
    cam["rgb"][127:129, 127:129] = (40, 90, 210)         # right below, a blue spot
    agent.reset(_obs(cam, (500.0, 500.0, 160.0)), _info())
    a = agent.act(_obs(cam, (500.0, 500.0, 160.0)), _info())["action"]
    assert a["position"][2] == pytest.approx(100.0 + confirm_height(F256))       # straight down at once
    low = _down_camera(at=(500.0, 500.0, 117.0), height=17.0, **PX256)                   # seen close: nothing known
    agent.act(_obs(low, (500.0, 500.0, 117.0), agl=17.0), _info())
    assert agent.look is None and len(agent.looked) == 1 and agent.looks == 1
    agent.act(_obs(cam, (500.0, 500.0, 160.0)), _info())                        # seen again from above
    assert agent.candidates == [] and agent.looks == 1


def test_the_descent_stays_above_tree_tops_near_the_column():
    agent = LawnmowerAgent()
    cam = _down_camera(at=(500.0, 500.0, 160.0), **PX256)
    cam["rgb"][127:129, 127:129] = (255, 90, 0)
    cam["depth"][122:126, 130:134] = 38.0             # a tree top 22 m high about 2 m from the column
    agent.reset(_obs(cam, (500.0, 500.0, 160.0)), _info())
    a = agent.act(_obs(cam, (500.0, 500.0, 160.0)), _info())["action"]
    assert a["position"][2] == pytest.approx(122.0 + COLUMN_CLEARANCE)


def test_no_look_when_time_is_short_far_spots_and_random():
    agent = LawnmowerAgent()
    cam = _down_camera(at=(500.0, 500.0, 160.0), **PX256)
    cam["rgb"][127:129, 127:129] = (255, 90, 0)
    agent.reset(_obs(cam, (500.0, 500.0, 160.0), t=850.0), _info())
    a = agent.act(_obs(cam, (500.0, 500.0, 160.0), t=850.0), _info())["action"]
    assert a == "stop" or a["position"][2] >= 159.0          # 10 s left before the reserve: no look
    assert agent.looks == 0
    # from 200 m up a spot at pixel (10.5, 10.5) of 256 lies 117 / 128 * 200 = 182.8 m east and
    # north of the UAV: 258.5 m away, beyond the detour; one at (100.5, 100.5) (59.5 m) is taken
    far = _down_camera(at=(500.0, 500.0, 300.0), height=200.0, h=256, w=256)
    far["rgb"][10:12, 10:12] = (255, 90, 0)
    far["rgb"][100:102, 100:102] = (255, 90, 0)
    agent.reset(_obs(far, (500.0, 500.0, 300.0), agl=200.0), _info())
    assert LOOK_DETOUR == 250.0 and len(agent.candidates) == 1
    assert np.linalg.norm(agent.candidates[0][:2] - 500.0) == pytest.approx(27 / 128 * 200 * math.sqrt(2))
    rnd = RandomAgent()
    rnd.reset(_obs(cam, (500.0, 500.0, 160.0)), _info())
    assert rnd.candidates == [] and rnd.episode_info() == {}


def test_candidates_come_from_the_image_not_from_the_ground_truth():
    """The same RGB and depth give the same candidates whatever the segmentation holds."""
    cam = _down_camera()
    cam["rgb"][40:42, 20:22] = (255, 90, 0)
    a = salient_spots(cam["rgb"], cam["depth"], cam["K"], cam["pose"], cam["seg"], {1: "terrain"})
    seg = cam["seg"].copy()
    seg[40:42, 20:22] = 0                             # a perception layer's cleared small instance
    b = salient_spots(cam["rgb"], cam["depth"], cam["K"], cam["pose"], seg, {1: "terrain"})
    assert a == b
    assert confirm.THRESHOLD > 0


def test_hot_pixels_in_boxes_equal_the_whole_image_score():
    rng = np.random.default_rng(1)
    cam = _down_camera(h=96, w=96)
    for r, c in rng.integers(0, 94, (12, 2)):
        cam["rgb"][r:r + 2, c:c + 2] = (255, 90, 0) if r % 2 else (40, 90, 210)
    cam["rgb"][0:3, 90:96] = (250, 200, 0)             # at the image border
    valid = np.isfinite(cam["depth"])
    valid[60:70] = False
    want = confirm.anomaly_score(cam["rgb"], valid) > confirm.THRESHOLD
    assert want.sum() > 20 and np.array_equal(confirm.hot_pixels(cam["rgb"], valid), want)


def test_a_real_task_is_solved_by_coming_down_and_not_from_the_pattern_alone():
    """Test task 3 (alpine, haze, 256 px cameras, the 16-pixel rule): frontier sees the person
    only as a few orange pixels from 60 m; coming down over them it recognises and reports them."""
    from hazard_sim.runner import run_episode
    looked = run_episode("esar", "test", 3, "frontier", 0, frame_limit=3000)
    assert looked["sr"] == 100.0 and looked["looks"] >= 1 and looked["safe"]
    assert looked["victims_found"] == looked["victims"] == 1
    plain = run_episode("esar", "test", 3, "frontier", 0, frame_limit=3000, agent_kwargs={"looks_closer": False})
    assert plain["sr"] == 0.0 and "looks" not in plain
