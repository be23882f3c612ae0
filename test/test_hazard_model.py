"""The hazard forward model of mcts_hazard, on constructed observations (hand-computed values)."""
import math

import numpy as np
import pytest

from hazard_sim.tasks.hazard.agents.hazard_model import HazardForwardModel


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
    obs = {"frame": 50, "depth": np.full((h, w), 2.0), "camera_K": K, "camera_pose": pose, "field": hazard}
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


# ---------------------------------------------------------------- the planner (mcts_hazard)
def _planner(hazard, targets, pose, frame=0, frame_limit=1500, simulations=400, size=12.0, carts=()):
    """An mcts_hazard agent with a hand-made memory: ``targets`` are (id, category, xy, value)."""
    from hazard_sim.agents import make_agent
    from hazard_sim.navigation.grid import GridSpec
    from hazard_sim.navigation.observed_map import ObservedMap
    from hazard_sim.tasks.hazard.agents.memory import Memory, ObjectRecord
    from hazard_sim.tasks.hazard.prompts import forward_model
    ag = make_agent("mcts_hazard", benchmark="hazard/fire", simulations=simulations)
    cats = {c: v for _, c, _, v in targets}
    ag.memory = Memory({"hazard": hazard, "frame_limit": frame_limit, "container": "cart" if carts else "bag",
                        "targets": [{"category": c, "value": v, "fireproof": False, "waterproof": False}
                                    for c, v in cats.items()]})
    ag.memory.frame = frame
    ag.memory.agent_pose = np.array([*pose, 0.0])
    ag.map = ObservedMap(GridSpec((0, 0, size, size), 0.1), 0.25)
    kind, thr = forward_model(hazard)
    ag.model = HazardForwardModel(kind, (0, 0, size, size), thr)
    recs = [ObjectRecord(i, c, np.array([*xy, 0.1]), frame, True, v, reading=20.0) for i, c, xy, v in targets]
    ag.memory.objects = {r.id: r for r in recs}
    ag.memory.containers = {2000 + k: np.array([*xy, 0.4]) for k, xy in enumerate(carts)}
    return ag, recs


def test_rescue_frames_are_the_humanoids_gait():
    from hazard_sim.tasks.hazard.agents.hazard_planner import HazardMCTSAgent as P
    # 0.04911 m per frame, reach 3.0 m less 0.3 m, a quarter turn at 15 deg per frame, 37 frames to
    # pick up, 71 to drop into the bag, 55 into a cart
    assert (P.WALK_PER_FRAME, P.REACH, P.FACE_FRAMES, P.PICK_FRAMES, P.DROP_FRAMES, P.CART_DROP_FRAMES) == (
        0.04911, 2.7, 6, 37, 71, 55)
    w = 0.04911
    ag = P(simulations=1)
    assert ag.rescue_frames(5.0, 5.0) == pytest.approx((5.0 - 2.7) / w + 6 + 37)               # 89.8: in view
    # a wall between (the path is 8 m for 5 m in a line): walk up to the 0.95 m stand-off
    assert ag.rescue_frames(8.0, 5.0) == pytest.approx((8.0 - 0.95) / w + 6 + 37)              # 186.6
    assert ag.rescue_frames(5.0, 5.0, walk_only=True) == pytest.approx((5.0 - 0.95) / w + 43)
    assert ag.rescue_frames(1.0, 1.0) == pytest.approx(43)                                     # in reach
    assert ag.carry_frames(3.0) == pytest.approx((3.0 - 0.95) / w + 6 + 55)                    # to a cart


def test_planner_prefers_value_within_the_frame_limit():
    # A value-1 target 2.5 m away (in reach: 6 + 37 + 71 = 114 frames) and a value-5 target 5 m
    # away ((5 - 2.7) / 0.04911 + 114 = 160.8 frames) never both fit in 200 frames. With 130
    # frames left only the near one ends in time.
    targets = [(1, "book", (3.5, 6.0), 1), (2, "lamp", (1.0, 11.0), 5)]
    ag, (near, far) = _planner("fire", targets, (1.0, 6.0), frame=1370)
    assert ag.plan([near, far]) == 1
    # with time for one rescue of either, the valuable one comes first
    ag, (near, far) = _planner("fire", targets, (1.0, 6.0), frame=1300)
    assert ag.plan([near, far]) == 2
    assert ag.last_plan["frames"] == pytest.approx((5.0 - 2.7) / 0.04911 + 6 + 37 + 71)


def _fire_at_11_2(ag, grown_to=2.0):
    """Fire seen burning around (11.25, 2.25), its radius grown 1 -> ``grown_to`` m in 200 frames."""
    ag.model.hot[4, 22] = True
    ag.model.area_history = [(0, math.pi * 1.0 ** 2), (200, math.pi * grown_to ** 2)]


def test_planner_rescues_the_endangered_target_first():
    # The front moves 0.02 m per frame. A is 3 m from the agent, 9.06 m from the fire; B is 4.3 m
    # away, 2.15 m from the fire: due in (2.15 - 0.25) / 0.02 = 95 frames, held after
    # (4.3 - 2.7) / 0.04911 + 43 = 75.6 when taken first, after about 250 when A comes first.
    # Nearest-first takes A and loses half of B; the planner takes B first and loses nothing.
    ag, (a, b) = _planner("fire", [(1, "book", (3.0, 6.0), 1), (2, "lamp", (9.5, 3.5), 1)], (6.0, 6.0),
                          frame=200)
    _fire_at_11_2(ag, grown_to=5.0)
    assert ag.model.front_speed() == pytest.approx(0.02)
    assert ag.plan([a, b]) == 2
    d_b = math.hypot(11.25 - 9.5, 3.5 - 2.25)
    assert ag.last_plan["due"][2] == pytest.approx(200 + (d_b - 0.25) / 0.02)
    assert ag.last_plan["due"][1] == pytest.approx(200 + (math.hypot(8.25, 3.75) - 0.25) / 0.02)
    ag, (a, b) = _planner("fire", [(1, "book", (3.0, 6.0), 1), (2, "lamp", (9.5, 3.5), 1)], (6.0, 6.0),
                          frame=200)
    assert ag.plan([a, b]) == 1                                   # no fire seen: the nearer one first


def test_planner_skips_the_doomed_target():
    # Time for one rescue (650 frames left). C is 2.5 m away but 0.35 m from the fire (burnt in
    # 20 frames: half its value); A is 6.3 m away (6.8 m on the 8-connected grid: 618 frames)
    # and safe: A keeps more value.
    targets = [(1, "book", (3.0, 6.0), 1), (3, "vase", (11.0, 2.5), 1)]
    ag, (a, c) = _planner("fire", targets, (9.0, 4.0), frame=850)
    _fire_at_11_2(ag)
    assert ag.plan([a, c]) == 1
    assert ag.last_plan["due"][3] == pytest.approx(850 + (math.hypot(0.25, 0.25) - 0.25) / 0.005)
    ag, (a, c) = _planner("fire", targets, (9.0, 4.0), frame=850)
    assert ag.plan([a, c]) == 3                                   # no fire seen: the nearer one


def test_planner_ignores_the_hazard_for_proof_categories():
    ag, (a, b) = _planner("fire", [(1, "book", (3.0, 6.0), 1), (2, "lamp", (8.0, 4.0), 1)], (6.0, 6.0),
                          frame=200)
    ag.memory.targets["lamp"]["fireproof"] = True
    _fire_at_11_2(ag)
    ag.plan([a, b])
    assert ag.last_plan["due"][2] == math.inf


def test_planner_rejects_a_bad_rollout_share():
    from hazard_sim.tasks.hazard.agents.hazard_planner import HazardMCTSAgent
    with pytest.raises(ValueError, match="greedy"):
        HazardMCTSAgent(greedy=1.5)


def test_planner_in_wind_skips_what_the_wind_takes_and_carries_to_the_cart():
    # A cart at (6, 8). B (value 5, 5 m away) is seen drifting 0.02 m per frame towards the
    # patch's edge 1 m away: gone in 50 frames, before the agent gets there (52.8 frames).
    targets = [(1, "book", (6.0, 3.0), 1), (2, "radio", (11.0, 6.0), 5)]
    ag, (a, b) = _planner("wind", targets, (6.0, 6.0), frame=100, frame_limit=3000, carts=[(6.0, 8.0)])
    assert ag.plan([a, b]) == 2                                  # nothing drifts: the valuable one first
    # walk 5 m - 2.7 in reach, face, pick up; carry 5.4 m (to (6, 8)) to the 0.95 m stand-off, face, drop
    w = 0.04911
    assert ag.last_plan["frames"] == pytest.approx((5 - 2.7) / w + 6 + 37 + (math.hypot(5, 2) - 0.95) / w + 6 + 55,
                                                   abs=20)
    ag, (a, b) = _planner("wind", targets, (6.0, 6.0), frame=100, frame_limit=3000, carts=[(6.0, 8.0)])
    ag.model.track(2, 90, (10.8, 6.0))
    ag.model.track(2, 100, (11.0, 6.0))
    assert ag.plan([a, b]) == 1
    assert ag.last_plan["due"][2] == pytest.approx(100 + 1.0 / 0.02)
