"""HAZARD's RL reward (public code): +20 per rescued target, a shaping term on the distance to
the nearest target (to the cart while holding an object), -0.1 per step; optionally (an earlier
version of the public code) a penalty per failed action (``failure_penalty``, e.g. 2; a choice
that names no object counts as failed).

The shaping is potential-based on the agent's own estimate: ``SHAPING`` x (distance before -
distance after) to the same goal (the goal's key must be unchanged; a new goal starts a new
potential, so switching goals earns nothing). Distances are straight lines from the agent's
pose to where its memory last saw the goal.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hazard_sim.tasks.hazard.agents.memory import Memory
from hazard_sim.tasks.hazard.rl.observation import goal_of

RESCUE = 20.0
STEP_PENALTY = 0.1
SHAPING = 1.0            # reward per metre closer to the goal


@dataclass
class RewardTerms:
    rescue: float
    step: float
    shaping: float
    failure: float = 0.0

    @property
    def total(self) -> float:
        return self.rescue + self.step + self.shaping + self.failure


def _goal_distance(memory: Memory):
    g = goal_of(memory)
    if g is None:
        return None
    key, xy = g
    return key, float(np.linalg.norm(xy - memory.agent_pose[:2]))


class RescueReward:
    """Call :meth:`reset` after the actor's reset, then once per step with the step's info."""

    def __init__(self, rescue: float = RESCUE, step_penalty: float = STEP_PENALTY, shaping: float = SHAPING,
                 failure_penalty: float = 0.0):
        self.rescue, self.step_penalty, self.shaping = rescue, step_penalty, shaping
        self.failure_penalty = failure_penalty

    def reset(self, memory: Memory) -> None:
        self.rescued = 0
        self.goal = _goal_distance(memory)

    def __call__(self, memory: Memory, info: dict, failed: bool = False) -> RewardTerms:
        n = len(info.get("rescued_ids", ()))
        rescue = self.rescue * (n - self.rescued)
        self.rescued = n
        goal = _goal_distance(memory)
        shaping = 0.0
        if goal is not None and self.goal is not None and goal[0] == self.goal[0]:
            shaping = self.shaping * (self.goal[1] - goal[1])
        self.goal = goal
        return RewardTerms(rescue, -self.step_penalty, shaping, -self.failure_penalty if failed else 0.0)
