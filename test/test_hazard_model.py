"""The hazard forward model of mcts_hazard, on constructed observations (hand-computed values)."""
import math

import numpy as np
import pytest

from hazard_sim.agents.hazard_model import HazardForwardModel


def test_front_speed_and_damage_frame():
    m = HazardForwardModel("front", (0, 0, 10, 10), 100.0, cell=0.5)
    assert m.damage_frame(1, (5, 5), 20.0, now=0) == math.inf          # no hazard seen: never
    m.hot[0, 0] = True                                                  # cell centre (0.25, 0.25)
    m.area_history = [(0, math.pi * 1.0 ** 2), (200, math.pi * 2.0 ** 2)]
    assert m.front_speed() == pytest.approx((2.0 - 1.0) / 200)          # radius 1 -> 2 m in 200 frames
    d = math.hypot(3.25 - 0.25, 4.25 - 0.25)                            # 5 m to the hot cell's centre
    assert m.damage_frame(1, (3.25, 4.25), 20.0, now=200) == pytest.approx(200 + (d - 0.25) / 0.005)
    assert m.damage_frame(1, (3.25, 4.25), 350.0, now=200) == 200       # already over 100 C
    m.area_history = [(0, 0.25)]
    assert m.front_speed() == m.prior_speed                             # one sighting: the prior


def test_wind_drift_predicts_leaving_the_patch():
    m = HazardForwardModel("drift", (0, 0, 16, 16))
    m.track(7, 0, (8.0, 8.0))
    assert m.damage_frame(7, (8, 8), float("nan"), now=0) == math.inf
    m.track(7, 10, (8.5, 8.0))                                          # 0.05 m per frame towards +x
    assert m.damage_frame(7, (8.5, 8), float("nan"), now=10) == pytest.approx(10 + 7.5 / 0.05)
    m.track(8, 0, (3.0, 3.0))
    m.track(8, 10, (3.0, 3.001))                                        # 0.1 mm per frame: still
    assert m.damage_frame(8, (3, 3), float("nan"), now=10) == math.inf


def test_observe_marks_hot_floor_cells_from_the_hazard_image():
    # a camera 2 m above (4, 4) looking straight down: optical z -> world -z
    h = w = 16
    K = np.array([[8.0, 0, 8.0], [0, 8.0, 8.0], [0, 0, 1]])
    pose = np.eye(4)
    pose[:3, :3] = np.diag([1.0, -1.0, -1.0])
    pose[:3, 3] = [4.0, 4.0, 2.0]
    hazard = np.full((h, w), 20.0)
    hazard[:, :8] = 600.0                                               # the left half (world x < 4) is burning
    obs = {"frame": 50, "depth": np.full((h, w), 2.0), "camera_K": K, "camera_pose": pose, "hazard": hazard}
    m = HazardForwardModel("front", (0, 0, 8, 8), 100.0, cell=0.5)
    m.observe(obs, stride=2)
    ii, jj = np.nonzero(m.hot)
    xs = (jj + 0.5) * 0.5
    assert len(ii) > 0 and xs.max() < 4.0 and xs.min() >= 2.0          # the floor seen spans x in [2, 6)
    assert m.area_history == [(50, float(m.hot.sum()) * 0.25)]


def test_model_kinds():
    from hazard_sim.tasks.hazard.prompts import forward_model
    assert forward_model("fire") == ("front", 100.0) and forward_model("wind") == ("drift", None)
    with pytest.raises(ValueError, match="threshold"):
        HazardForwardModel("front", (0, 0, 1, 1))
    with pytest.raises(ValueError, match="kind"):
        HazardForwardModel("tornado", (0, 0, 1, 1))
    assert HazardForwardModel(None, (0, 0, 1, 1)).damage_frame(1, (0.5, 0.5), 1e9, now=3) == math.inf
