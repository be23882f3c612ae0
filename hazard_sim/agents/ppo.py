"""The PPO agent: a policy trained with stable-baselines3 on HAZARD's RL interface
(``hazard_sim.rl``: 5-channel map from the agent's own observations, six actions).

``hazard run --agent ppo [--ppo-policy PATH]``; without a path it loads the shipped
``data/policies/ppo_<hazard>.zip`` of the episode's task. Acting is deterministic (the
policy's most likely action; the random-visible-object action draws from the agent's seed).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from hazard_sim.rl.actions import RLActor
from hazard_sim.rl.observation import MAP_SIZE


class PPOAgent(RLActor):
    name = "ppo"

    def __init__(self, seed: int = 0, policy: str | None = None, map_size: int = MAP_SIZE):
        super().__init__(seed, map_size)
        if policy is not None and not Path(policy).exists():
            raise FileNotFoundError(f"PPO policy {policy} not found (--ppo-policy: give a .zip written by "
                                    f"hazard train-ppo)")
        self.policy_path = policy
        self.model = None
        self._hazard = None

    def reset(self, obs: dict, info: dict) -> None:
        hazard = info["task"]["hazard"]
        if self.model is None or hazard != self._hazard:
            from hazard_sim.rl.policy import load_policy
            self.model = load_policy(self.policy_path, hazard, self.map_size)
            self._hazard = hazard
        super().reset(obs, info)
        self.policy = self._predict

    def _predict(self, features: np.ndarray) -> int:
        action, _ = self.model.predict(features, deterministic=True)
        return int(action)

    def episode_info(self) -> dict:
        return {"ppo_invalid_actions": self.invalid}
