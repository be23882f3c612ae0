"""``HazardRLEnv``: HAZARD as a Gymnasium env with the public code's RL interface.

Observation: the 5-channel top-down map (``hazard_sim.tasks.hazard.rl.observation``, Box (5, S, S) in
[0, 1]); action: Discrete(6) (``hazard_sim.tasks.hazard.rl.actions``); reward: ``hazard_sim.tasks.hazard.rl.reward``.
One step runs one HAZARD action on an :class:`~hazard_sim.core.env.EmbodiedEnv` (a
``walk_to`` may take up to 100 frames). Each reset loads the next episode of the split
(episodes in a shuffled order, reshuffled each pass) with a new simulation seed.

``info`` of every step: ``frames`` (frames the action took), ``status``, ``invalid``; at the
episode's end also ``value_rate``, ``episode_frames``, ``rescued_count`` and ``episode_index``
(not ``episode``: SB3 reads that key as Monitor statistics).
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.hazard.rl.actions import ACTION_NAMES, RLActor
from hazard_sim.tasks.hazard.rl.observation import CHANNELS, MAP_SIZE
from hazard_sim.tasks.hazard.rl.reward import RescueReward


def hazards() -> list[str]:
    """The HAZARD tasks (fire, flood, wind): the registered ``hazard/...`` benchmarks."""
    from hazard_sim.core.spec import benchmark_ids
    return [b.split("/", 1)[1] for b in benchmark_ids() if b.startswith("hazard/")]


class HazardRLEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, task: str = "hazard/fire", split: str = "train", episodes=None, seed: int = 0,
                 map_size: int = MAP_SIZE, camera: CameraSpec = CameraSpec(), render_backend: str = "auto",
                 max_actions: int = 400, reward: RescueReward | None = None):
        hazard = task.split("/")[-1]
        known = hazards()
        if hazard not in known:
            raise ValueError(f"unknown HAZARD task {task!r}: expected one of {', '.join(known)}")
        self.hazard = hazard
        self.env = EmbodiedEnv(f"hazard/{hazard}", split, 0, seed=seed, camera=camera, render_backend=render_backend)
        n = self.env.spec_b.dataset.count(split)
        self.episodes = list(range(n)) if episodes is None else [int(e) for e in episodes]
        bad = [e for e in self.episodes if not 0 <= e < n]
        if bad or not self.episodes:
            raise ValueError(f"episodes {bad or '(none)'} out of range: hazard/{hazard}/{split} has {n} episodes")
        self.map_size = map_size
        self.max_actions = max_actions
        self.reward_fn = reward or RescueReward()
        self.observation_space = spaces.Box(0.0, 1.0, (len(CHANNELS), map_size, map_size), np.float32)
        self.action_space = spaces.Discrete(len(ACTION_NAMES))
        self._base_seed = int(seed)
        self._order_rng = np.random.default_rng(seed)
        self._order: list[int] = []
        self._resets = 0
        self.actor: RLActor | None = None

    def _next_episode(self) -> int:
        if not self._order:
            self._order = [int(e) for e in self._order_rng.permutation(self.episodes)]
        return self._order.pop(0)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._base_seed, self._order_rng, self._order = int(seed), np.random.default_rng(seed), []
        options = options or {}
        ep = int(options["episode"]) if "episode" in options else self._next_episode()
        sim_seed = int(options.get("sim_seed", self._base_seed * 100_003 + self._resets))
        self._resets += 1
        obs, info = self.env.reset(seed=sim_seed, options={"episode": ep})
        self.actor = RLActor(seed=sim_seed, map_size=self.map_size)
        self.actor.reset(obs, info)
        self.actor.observe(obs, info)          # as the ppo agent: its first act observes the reset again
        self.reward_fn.reset(self.actor.memory)
        self.actions = 0
        return self.actor.features(), {"episode_index": ep, "sim_seed": sim_seed}

    def step(self, action):
        if self.actor is None:
            raise RuntimeError("call reset() before step()")
        if not self.action_space.contains(int(action)):
            raise ValueError(f"action {action!r} out of range 0..{self.action_space.n - 1}")
        invalid = self.actor.invalid
        a = self.actor.command(int(action))
        obs, _, terminated, truncated, info = self.env.step(a)
        self.actor.observe(obs, info)
        res = info["action_result"]
        was_invalid = self.actor.invalid > invalid
        terms = self.reward_fn(self.actor.memory, info, failed=was_invalid or not res["success"])
        self.actions += 1
        truncated = truncated or (self.actions >= self.max_actions and not terminated)
        out = {"frames": res["frames"], "status": res["status"], "invalid": was_invalid,
               "action": a, "reward_terms": terms}
        if terminated or truncated:
            m = self.env.metrics()
            out.update({"value_rate": m["value_rate"], "episode_frames": m["frames"],
                        "rescued_count": m["rescued_count"], "episode_index": m["episode"]})
        return self.actor.features(), float(terms.total), bool(terminated), bool(truncated), out

    def close(self):
        self.env.close()
