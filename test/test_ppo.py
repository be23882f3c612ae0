"""HAZARD's RL setup (hazard_sim.tasks.hazard.rl) and the PPO agent: spaces, observation channels on a
constructed state, reward, action mapping, the shipped policies, errors, a tiny training run."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from hazard_sim.agents import make_agent
from hazard_sim.tasks.hazard.agents.memory import Memory, ObjectRecord
from hazard_sim.tasks.hazard.rl.actions import ACTION_NAMES, WAIT, RLActor
from hazard_sim.tasks.hazard.rl.observation import CHANNELS, MapObserver, goal_of
from hazard_sim.tasks.hazard.rl.reward import RESCUE, STEP_PENALTY, RescueReward

BOUNDS = (0.0, 0.0, 8.0, 8.0)          # 32 cells of 0.25 m
TASK = {"hazard": "fire", "container": "bag",
        "targets": [{"category": "wallet", "value": 5}, {"category": "book", "value": 1}]}


def _memory(task=TASK, pose=(1.0, 1.0, 0.0)) -> Memory:
    m = Memory(task)
    m.agent_pose = np.array(pose, float)
    m.frame = 10
    m.objects = {
        1001: ObjectRecord(1001, "wallet", np.array([5.1, 1.1, 0.1]), 10, True, 5),
        1002: ObjectRecord(1002, "book", np.array([2.1, 3.1, 0.1]), 4, True, 1),
        1003: ObjectRecord(1003, "chair", np.array([7.1, 7.1, 0.4]), 10, False, 0),
    }
    return m


def _actor(memory: Memory) -> RLActor:
    a = RLActor(seed=0)
    a.memory, a.mapper = memory, MapObserver(BOUNDS, memory.task.get("hazard", "fire"))
    a.explored_at, a.last_action = [], None
    return a


def _look_down_obs(hazard_value: float) -> dict:
    """A camera 2 m above (4, 4) looking straight down at a flat floor with one 1 m high block."""
    h = w = 64
    K = np.array([[32.0, 0, 31.5], [0, 32.0, 31.5], [0, 0, 1]])
    pose = np.eye(4)
    pose[:3, :3] = np.diag([1.0, -1.0, -1.0])        # optical z points down
    pose[:3, 3] = [4.0, 4.0, 2.0]
    depth = np.full((h, w), 2.0, np.float32)
    depth[:16, :16] = 1.0                             # a block top at z = 1 m
    return {"depth": depth, "camera_K": K, "camera_pose": pose,
            "field": np.full((h, w), hazard_value, np.float32)}


def test_observation_channels_from_a_constructed_state():
    m = _memory()
    obs_map = MapObserver(BOUNDS, "fire", size=32)
    obs_map.integrate(_look_down_obs(310.0))          # (310 - 20) / 580 = 0.5
    x = obs_map.render(m)
    assert x.shape == (len(CHANNELS), 32, 32) and x.dtype == np.float32
    assert x.min() >= 0.0 and x.max() <= 1.0
    height, explored, obj, goal, hazard = x
    # the camera saw the 4 m x 4 m patch around (4, 4) (a 2 m footprint at 90 degrees): cells 8..23
    i, j = obs_map.cells([[4.0, 4.0]])
    assert explored[i[0], j[0]] == 1.0 and explored[0, 31] == 0.0
    assert 0 < explored.sum() < 32 * 32
    assert height.max() == pytest.approx(0.5)           # the block's top, 1 m of 2 m
    assert hazard[i[0], j[0]] == pytest.approx(0.5) and hazard[0, 31] == 0.0
    # objects: the valuable target 1.0, the other target 0.6, a non-target 0.15
    for pos, v in (((5.1, 1.1), 1.0), ((2.1, 3.1), 0.6), ((7.1, 7.1), 0.15)):
        ci, cj = obs_map.cells([pos])
        assert obj[ci[0], cj[0]] == pytest.approx(v)
    # goal map: the agent's 3x3 patch, its heading (+x), the nearest target (the book, 2.3 m)
    ai, aj = obs_map.cells([[1.0, 1.0]])
    assert goal[ai[0], aj[0]] == 0.5
    hi, hj = obs_map.cells([[1.0 + 2.5 * obs_map.cell, 1.0]])
    assert goal[hi[0], hj[0]] == 0.25
    gi, gj = obs_map.cells([[2.1, 3.1]])
    assert goal[gi[0], gj[0]] == 1.0 and (goal == 1.0).sum() == 1
    # holding with a bag: no goal, the agent marked 0.75
    m.held = 1002
    m.objects[1002].status = "held"
    g = obs_map.render(m)[3]
    assert g[ai[0], aj[0]] == 0.75 and not (g == 1.0).any()


def test_goal_is_the_cart_when_holding_in_wind():
    m = _memory({**TASK, "container": "cart"})
    m.containers = {5: np.array([6.0, 6.0, 0.5]), 6: np.array([1.0, 3.0, 0.5])}
    assert goal_of(m)[0] == ("target", 1002)
    m.held = 1001
    key, xy = goal_of(m)
    assert key == ("cart", 6) and np.allclose(xy, [1.0, 3.0])


def test_flood_channel_is_water_level_and_wind_has_none():
    flood = MapObserver(BOUNDS, "flood")
    flood.integrate(_look_down_obs(0.75))
    i, j = flood.cells([[4.0, 4.0]])
    assert flood.hazard[i[0], j[0]] == pytest.approx(0.5)
    wind = MapObserver(BOUNDS, "wind")
    wind.integrate(_look_down_obs(5.0))
    assert not wind.hazard.any()


def test_reward_rescue_step_penalty_and_shaping_sign():
    m = _memory()
    rew = RescueReward()
    rew.reset(m)
    d0 = math.dist((1.0, 1.0), (2.1, 3.1))
    m.agent_pose = np.array([1.5, 2.0, 0.0])              # closer to the book
    t = rew(m, {"rescued_ids": []})
    assert t.step == -STEP_PENALTY and t.rescue == 0.0
    assert t.shaping == pytest.approx(d0 - math.dist((1.5, 2.0), (2.1, 3.1))) and t.shaping > 0
    m.agent_pose = np.array([0.5, 0.5, 0.0])              # farther
    assert rew(m, {"rescued_ids": []}).shaping < 0
    # the book is rescued: +20, and the goal switches to the wallet without a shaping jump
    m.objects[1002].status = "rescued"
    t = rew(m, {"rescued_ids": [1002]})
    assert t.rescue == RESCUE and t.shaping == 0.0
    assert t.total == pytest.approx(RESCUE - STEP_PENALTY)
    assert rew(m, {"rescued_ids": [1002]}).rescue == 0.0  # counted once
    assert rew(m, {"rescued_ids": [1002]}, failed=True).failure == 0.0      # no failure penalty by default
    strict = RescueReward(failure_penalty=2.0)
    strict.reset(m)
    t = strict(m, {"rescued_ids": []}, failed=True)
    assert t.failure == -2.0 and t.total == pytest.approx(-2.0 - STEP_PENALTY)


def test_action_mapping():
    m = _memory({**TASK, "container": "cart"})
    a = _actor(m)
    assert len(ACTION_NAMES) == 6
    assert a.command(0) == ("walk_to", 1002)               # nearest target
    assert a.command(1) == WAIT and a.invalid == 1         # no cart known yet
    m.containers = {7: np.array([3.0, 1.0, 0.5])}
    assert a.command(1) == ("walk_to", 7)
    assert a.command(2) == ("pick_up", 1002)
    assert a.command(3) == ("drop",)
    assert a.command(4) == ("explore",)                    # not yet looked around here
    assert a.last_action == ("explore",)
    picks = {a.command(5)[1] for _ in range(20)}           # in view now (seen at frame 10): not the book
    assert picks == {1001, 1003}
    for r in m.objects.values():
        r.status = "rescued"
    assert a.command(0) == WAIT and a.command(2) == WAIT and a.command(5) == WAIT
    with pytest.raises(ValueError, match="out of range"):
        a.command(6)


@pytest.fixture(scope="module")
def rl_env():
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.tasks.hazard.rl.env import HazardRLEnv
    env = HazardRLEnv("fire", "test", episodes=[0], seed=3, camera=CameraSpec(width=48, height=48),
                      max_actions=5)
    yield env
    env.close()


def test_wrapper_spaces_reset_and_steps(rl_env):
    assert rl_env.observation_space.shape == (5, 32, 32)
    assert rl_env.action_space.n == 6
    obs, info = rl_env.reset()
    assert info["episode_index"] == 0
    assert rl_env.observation_space.contains(obs)
    assert obs[1].any()                                    # the first view explored something
    total = 0
    for k in (4, 0, 2, 3, 5):
        obs, r, term, trunc, info = rl_env.step(k)
        assert rl_env.observation_space.contains(obs) and info["frames"] >= 1
        total += 1
        if term or trunc:
            break
    assert trunc and total == 5 and 0.0 <= info["value_rate"] <= 1.0   # cut at max_actions
    with pytest.raises(ValueError, match="out of range"):
        rl_env.step(9)


def _run(policy=None, seed=0):
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.runner import run_episode
    kw = {"policy": policy} if policy else {}
    m = run_episode("hazard/fire", "test", 0, "ppo", seed, camera=CameraSpec(width=64, height=64),
                    frame_limit=120, agent_kwargs=kw)
    m.pop("wall_time_s")
    return m


def test_shipped_policy_runs_deterministically():
    from hazard_sim.tasks.hazard.rl.policy import default_policy_path
    for hazard in ("fire", "flood", "wind"):
        p = default_policy_path(hazard)
        assert p.exists() and p.stat().st_size < 1_000_000
    a, b = _run(), _run()
    assert a == b and a["frames"] == 120 and a["agent"] == "ppo"


def test_missing_and_mismatched_policy_errors(tmp_path):
    from hazard_sim.tasks.hazard.rl.policy import PolicyError, default_policy_path, load_policy
    with pytest.raises(FileNotFoundError, match="not found"):
        make_agent("ppo", benchmark="hazard/fire", policy=str(tmp_path / "none.zip"))
    with pytest.raises(FileNotFoundError, match="hazard train-ppo"):
        load_policy(tmp_path / "none.zip", "fire")
    junk = tmp_path / "junk.zip"
    junk.write_text("not a zip")
    with pytest.raises(PolicyError, match="not a zip"):
        load_policy(junk, "fire")
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("hello.txt", "x")
    with pytest.raises(PolicyError, match="not a stable-baselines3"):
        load_policy(empty, "fire")
    with pytest.raises(PolicyError, match="trained for hazard/flood"):
        load_policy(default_policy_path("flood"), "fire")
    r = subprocess.run([sys.executable, "-m", "hazard_sim.cli", "run", "--task", "fire", "--agent", "ppo",
                        "--ppo-policy", str(tmp_path / "none.zip")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "PPO policy" in r.stderr and "not found" in r.stderr
    assert "Traceback" not in r.stderr


def test_tiny_training_writes_checkpoint_and_resumes(tmp_path):
    from hazard_sim.tasks.hazard.rl.policy import load_policy
    from hazard_sim.tasks.hazard.rl.train import TrainConfig, train
    out = tmp_path / "run"
    cfg = TrainConfig(task="fire", steps=64, out_dir=str(out), envs=1, vec="dummy", split="test", episodes=[1],
                      camera=(32, 32, 90.0), max_actions=16, checkpoint_every=32, progress=False,
                      ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1})
    s = train(cfg)
    assert (out / "checkpoint.zip").exists() and (out / "ppo_fire.zip").exists()
    assert s["steps_done"] == 64 and s["frames"] > 0 and s["episodes"] >= 3 and not s["interrupted"]
    assert json.loads((out / "ppo_fire.json").read_text())["task"] == "fire"
    assert (out / "learning_curve.png").stat().st_size > 1000
    with pytest.raises(FileExistsError, match="--resume"):
        train(cfg)
    cfg.steps, cfg.resume = 96, True
    s2 = train(cfg)
    assert s2["steps_done"] == 96 and s2["frames"] > s["frames"]
    lines = (out / "curve.csv").read_text().splitlines()
    assert lines[0].startswith("steps,frames") and len(lines) - 1 == s2["episodes"] > s["episodes"]
    assert load_policy(out / "ppo_fire.zip", "fire").num_timesteps == 96


def test_observation_and_actions_use_the_agents_own_view_only():
    # the map, the reward and the action mapping read the agent's memory and observations; only the
    # Gymnasium wrapper (hazard_sim.tasks.hazard.rl.env) holds the simulator
    import inspect

    import hazard_sim.tasks.hazard.agents.ppo as ppo
    import hazard_sim.tasks.hazard.rl.actions as actions
    import hazard_sim.tasks.hazard.rl.observation as observation
    import hazard_sim.tasks.hazard.rl.reward as reward
    for mod in (actions, observation, reward, ppo):
        src = inspect.getsource(mod)
        for name in ("hazard_sim.world", "hazard_sim.core.env", "hazard_sim.tasks.hazard.env", ".world.", "truth_"):
            assert name not in src, (mod.__name__, name)


def test_uniform_baseline_runs_a_short_episode():
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.tasks.hazard.rl.uniform import _episodes, run_uniform
    assert _episodes("0-2,5") == [0, 1, 2, 5]
    a = run_uniform("fire", "test", 0, seed=1, camera=CameraSpec(width=48, height=48), frame_limit=60)
    b = run_uniform("fire", "test", 0, seed=1, camera=CameraSpec(width=48, height=48), frame_limit=60)
    assert a["frames"] == 60 and a["value_rate"] == b["value_rate"] and a["rescued"] == b["rescued"]


def test_learning_curve_frame_ticks_are_short():
    from hazard_sim.tasks.hazard.rl.train import _frames_label
    assert [_frames_label(x) for x in (0, 500, 9999, 10000, 150000, 700000, 1.5e6)] == \
        ["0", "500", "9999", "10k", "150k", "700k", "1.5M"]
