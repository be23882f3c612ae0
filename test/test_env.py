"""HazardEnv: spaces, actions, failures with reasons, hazards acting on objects."""
import json

import numpy as np
import pytest

from hazard_sim.tasks.hazard.actions import ActionError
from hazard_sim.tasks.hazard.dataset import load_episode
from hazard_sim.tasks.hazard.env import HazardEnv


@pytest.fixture(scope="module")
def fire_env():
    env = HazardEnv("fire", "test", 0)
    env.reset()
    return env


def test_observation_matches_space(fire_env):
    env = HazardEnv("fire", "test", 0)
    obs, info = env.reset()
    assert env.observation_space.contains(obs)
    assert obs["rgb"].dtype == np.uint8 and obs["depth"].dtype == np.float32
    assert set(info["task"]) >= {"hazard", "targets", "frame_limit"}
    assert all({"category", "value", "waterproof", "fireproof"} <= set(t) for t in info["task"]["targets"])
    assert env.action_space.contains({"type": 3, "object": 0, "amount": np.array([0.0], np.float32)})


def test_failed_actions_report_why():
    env = HazardEnv("fire", "test", 0)
    env.reset()
    _, _, _, _, info = env.step(("pick_up", 424242))
    assert not info["action_result"]["success"] and "unknown object id" in info["action_result"]["reason"]
    assert info["action_result"]["frames"] >= 1           # failing costs a frame too
    _, _, _, _, info = env.step(("drop",))
    assert "hands are empty" in info["action_result"]["reason"]
    far = max(env.world.objects, key=lambda o: np.linalg.norm(o.position[:2] - env.agent.xy))
    env.observed_ids.add(far.id)
    _, _, _, _, info = env.step(("pick_up", far.id))
    assert not info["action_result"]["success"]
    assert "out of reach" in info["action_result"]["reason"] or "behind a wall" in info["action_result"]["reason"]
    unseen = [o for o in env.world.objects if o.id not in env.observed_ids][0]
    _, _, _, _, info = env.step(("walk_to", unseen.id))
    assert "not been observed" in info["action_result"]["reason"]
    with pytest.raises(ActionError, match="unknown action"):
        env.step(("fly_to", 3))
    with pytest.raises(ActionError, match="needs an object id"):
        env.step(("walk_to",))


def test_pick_drop_rescues_with_value():
    env = HazardEnv("fire", "test", 0)
    env.reset()
    target = min(env.world.targets(), key=lambda o: np.linalg.norm(o.position[:2] - env.agent.xy))
    env.observed_ids.add(target.id)
    _, _, _, _, info = env.step(("walk_to", target.id))
    for _ in range(3):
        if info["action_result"]["success"]:
            break
        _, _, _, _, info = env.step(("walk_to", target.id))
    _, _, _, _, info = env.step(("pick_up", target.id))
    assert info["action_result"]["success"], info["action_result"]
    assert env.agent.held is target
    _, _, _, _, info = env.step(("pick_up", target.id))
    assert "hands full" in info["action_result"]["reason"]
    _, reward, _, _, info = env.step(("drop",))
    total = sum(o.category.value for o in env.world.targets())
    assert reward == pytest.approx(target.category.value / total * (0.5 if env.rescued[0].damaged else 1.0))
    assert info["rescued_ids"] == [target.id]


def test_explore_turns_a_full_circle_in_12_steps():
    env = HazardEnv("fire", "test", 3)
    env.reset()
    yaw0 = env.agent.yaw
    _, _, _, _, info = env.step(("explore",))
    assert info["action_result"]["frames"] == 12 * 2    # 30 deg at 15 deg per frame
    assert len(info["observations"]) >= 12
    assert np.cos(env.agent.yaw - yaw0) == pytest.approx(1.0)


def test_agent_cannot_walk_through_walls():
    env = HazardEnv("fire", "test", 0)
    env.reset()
    env.frame_limit = 100_000                  # 60 x 2 m at 0.049 m per frame outlast the episode's 1500
    for _ in range(60):
        env.step(("move_by", 2.0))
        env.step(("turn_by", 37.0))
    xy = env.agent.xy
    assert not env.truth_blocked[env.grid.to_cell(xy)]
    assert all(env.world.scene.contains(p) for p in env.agent.trace)
    solid = env.truth_solid
    assert not any(solid[env.grid.to_cell(p)] for p in env.agent.trace)


def test_fire_spreads_and_objects_heat_up():
    env = HazardEnv("fire", "test", 0)
    env.reset()
    n0 = env.world.process("fire").floor.burning.sum()
    env.advance(800)
    hz = env.world.process("fire")
    assert hz.floor.burning.sum() > n0
    assert max(o.meta["temperature"] for o in env.world.objects) > 20.0
    obs = env.observe()
    assert obs["field"].max() > 100.0                    # thermal image sees the fire


def test_flood_submerges_and_damages(tmp_path):
    ep = load_episode("flood", "test", 0)
    ep["flood"]["source_wall"] = "w"
    ep["objects"][0].update(position=[0.6, 5.9, 0.02], support="floor", category="book")   # resting: 4 cm thick
    env = HazardEnv("flood", "test", episode_spec=ep)
    env.reset()
    book = env.world.get(ep["objects"][0]["id"])
    env.advance(400)                                     # 0.4 m at the wall, ~0.37 m at x = 0.6
    # a book (325 kg/m^3) goes under as the water front arrives, then floats and drifts away
    assert book.damaged
    assert book.position[0] > 1.6
    obs = env.observe()
    assert obs["field"].max() > 0.0


def test_wind_blows_light_objects_out_of_the_unfenced_patch():
    env = HazardEnv("wind", "test", 0)
    env.reset()
    assert not any(p.name.startswith("fence") for p in env.world.scene.parts)
    light = [o for o in env.world.objects if o.category.wind_resistance <= 1]
    p0 = np.array([o.position.copy() for o in light])
    env.advance(200)
    x0, y0, x1, y1 = env.world.scene.bounds
    lost = [o for o in env.world.objects if o.location == "lost"]
    assert lost and all(o.state == "lost" and o.meta["lost_at"] <= 200 for o in lost)
    p1 = np.array([o.position for o in light])
    assert np.max(np.linalg.norm(p1 - p0, axis=1)) > 1.0
    for o in env.world.in_scene():        # whatever is still in the scene is inside the patch
        assert x0 <= o.position[0] <= x1 and y0 <= o.position[1] <= y1
    if lost and lost[0].is_target:
        assert env.step(("walk_to", lost[0].id))[4]["action_result"]["status"] in ("not_in_scene", "not_visible")


def test_wind_drop_needs_a_cart():
    env = HazardEnv("wind", "test", 0)
    env.reset()
    o = env.world.objects[0]
    env.world.take(o, "held")
    env.agent.held = o
    cart = env.world.scene.carts()[0]
    env.agent.xy = cart.box.center[:2] + np.array([6.0, 0.0]) if env.is_free(cart.box.center[:2] + [6.0, 0]) \
        else env.agent.xy
    _, _, _, _, info = env.step(("drop",))
    if not info["action_result"]["success"]:
        assert "no cart within reach" in info["action_result"]["reason"]


def test_unknown_task_and_bad_episode():
    with pytest.raises(ValueError, match="unknown task"):
        HazardEnv("lava")
    env = HazardEnv("fire", "test", 99)
    with pytest.raises(IndexError, match="out of range"):
        env.reset()


def test_same_seed_same_result():
    from hazard_sim.runner import run_episode
    a = run_episode("fire", "test", 2, "greedy", seed=3, frame_limit=400)
    b = run_episode("fire", "test", 2, "greedy", seed=3, frame_limit=400)
    for m in (a, b):
        m.pop("wall_time_s")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_gymnasium_env_checker_passes():
    import warnings

    from gymnasium.utils.env_checker import check_env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(HazardEnv("fire", "test", 0), skip_render_check=True)


def test_processes_act_on_body_option():
    env = HazardEnv("flood", "test", 0, processes_act_on_body=True)
    calm = HazardEnv("flood", "test", 0)
    for e in (env, calm):
        e.reset()
        e.advance(600)
    hz = env.world.process("flood")
    x0, y0, x1, y1 = env.world.scene.bounds
    # a free place under water: there the water slows the body, and only where processes act on it
    wet = next(p for p in (np.array([x, y]) for x in np.arange(x0 + 0.5, x1, 0.5) for y in np.arange(y0 + 0.5, y1, 0.5))
               if env.is_free(p) and hz.body_speed_factor(p) < 0.9)
    env.agent.xy = calm.agent.xy = wet
    assert env.speed_factor() == pytest.approx(hz.body_speed_factor(wet)) and env.speed_factor() < 0.9
    assert calm.speed_factor() == 1.0
    fire = HazardEnv("fire", "test", 0, processes_act_on_body=True)
    calm = HazardEnv("fire", "test", 0)
    fire.reset()
    calm.reset()
    floor = fire.world.process("fire").floor
    cells = [floor.spec.to_world(c) for c in zip(*np.nonzero(floor.burning))]
    cell = next(c for c in cells if not calm.truth_blocked[calm.grid.to_cell(c)])
    assert not fire.is_free(cell)                          # burning floor blocks the agent
    assert calm.is_free(cell)                              # ... only where processes act on the body


def test_hazards_affect_agent_is_a_deprecated_spelling():
    with pytest.warns(DeprecationWarning, match="processes_act_on_body"):
        env = HazardEnv("fire", "test", 0, hazards_affect_agent=True)
    assert env.processes_act_on_body
    with pytest.warns(DeprecationWarning):
        assert env.hazards_affect_agent
    assert not HazardEnv("fire", "test", 0).processes_act_on_body


def test_env_needs_a_benchmark():
    from hazard_sim.core.env import EmbodiedEnv
    with pytest.raises(ValueError, match="needs a benchmark: one of .*hazard/fire"):
        EmbodiedEnv()


def test_field_image_has_a_neutral_key_and_the_old_alias():
    env = HazardEnv("fire", "test", 0)
    obs, _ = env.reset()
    assert obs["field"] is obs["hazard"] and obs["field"].shape == obs["depth"].shape
    assert {"field", "hazard"} <= set(env.observation_space.spaces)
