"""The PPO agent: a policy trained with stable-baselines3 on HAZARD's RL interface
(``hazard_sim.tasks.hazard.rl``: 5-channel map from the agent's own observations, six actions).

``hazard run --agent ppo [--ppo-policy PATH]``; without a path it loads the shipped
``data/policies/ppo_<hazard>.zip`` of the episode's task.

Acting samples the policy's action distribution, as in training, with the agent's own seeded
generator, so a run is reproducible (same seed, same actions, same results). ``greedy=True``
takes the most likely action instead: our small policies learned mostly *how often* to use
each action, and their single most likely action in a given map is often a poor one to repeat
(``drop`` with empty hands, over and over), see docs/hazard.md.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from hazard_sim.tasks.hazard.rl.actions import RLActor
from hazard_sim.tasks.hazard.rl.observation import MAP_SIZE


class PPOAgent(RLActor):
    name = "ppo"
    cli_options = {"ppo_policy": "policy"}

    def __init__(self, seed: int = 0, policy: str | None = None, map_size: int = MAP_SIZE, greedy: bool = False):
        super().__init__(seed, map_size)
        self.greedy = greedy
        if policy is not None and not Path(policy).exists():
            raise FileNotFoundError(f"PPO policy {policy} not found (--ppo-policy: give a .zip written by "
                                    f"hazard train-ppo)")
        self.policy_path = policy
        self.model = None
        self._hazard = None

    def reset(self, obs: dict, info: dict) -> None:
        hazard = info["task"]["hazard"]
        if self.model is None or hazard != self._hazard:
            from hazard_sim.tasks.hazard.rl.policy import load_policy
            self.model = load_policy(self.policy_path, hazard, self.map_size)
            self._hazard = hazard
        super().reset(obs, info)
        self.policy = self._predict

    def action_probs(self, features: np.ndarray) -> np.ndarray:
        """The policy's probabilities of the six actions on this map."""
        import torch
        obs, _ = self.model.policy.obs_to_tensor(features)
        with torch.no_grad():
            p = self.model.policy.get_distribution(obs).distribution.probs[0].cpu().numpy().astype(float)
        return p / p.sum()

    def _predict(self, features: np.ndarray) -> int:
        p = self.action_probs(features)
        return int(np.argmax(p)) if self.greedy else int(self.rng.choice(len(p), p=p))

    def episode_info(self) -> dict:
        return {"ppo_invalid_actions": self.invalid}
