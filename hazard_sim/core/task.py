"""Tasks and measures: what a benchmark asks of the agent and how it is scored.

A :class:`Task` names its actions, parses them, runs each through a controller
(compressed actions are controllers over the body and the env's frame API), and
says when the episode is over.  A :class:`Measure` follows the episode
(``reset`` / ``update`` after every action, as habitat-lab's measures do) and
contributes keys to the episode's metrics.
"""
from __future__ import annotations

import abc

from hazard_sim.core.outcome import ActionResult, Outcome


class Task(abc.ABC):
    """Subclasses define ``name``, ``actions`` and the methods below."""

    name: str = "task"
    actions: tuple[str, ...] = ()

    def reset(self, env) -> None:
        """Called once the world and body exist, before the first observation."""

    @abc.abstractmethod
    def parse(self, action):
        """An action object with ``.name`` (raise ``ActionError`` for one that cannot be read)."""

    @abc.abstractmethod
    def execute(self, env, action) -> Outcome:
        """Carry out ``action`` (advancing frames through the env's frame API)."""

    @abc.abstractmethod
    def terminated(self, env, action) -> bool:
        """Whether the episode ended by the agent's doing (success, Done, stop)."""

    @abc.abstractmethod
    def action_space(self):
        """The Gymnasium action space."""

    def costs_a_frame(self, action) -> bool:
        """Whether an action that used no frame is charged one (e.g. every action but stop)."""
        return True

    def after_drive(self, env, result) -> None:
        """Called after every frame driven by a velocity command (``env.drive``: a ROS
        ``cmd_vel`` or a controller), with its ``DriveResult``: a task whose metrics count
        per step (collisions, steps) follows driving as it follows its own actions."""

    def describe(self, env) -> dict:
        """What the agent is told about the task at reset (``info["task"]``)."""
        return {"task": self.name}

    def observation(self, env) -> dict:
        """Task entries added to every observation (e.g. what the hand holds)."""
        return {}

    def observation_space(self, env) -> dict:
        return {}

    def info(self, env) -> dict:
        """Task entries added to every ``info``."""
        return {}

    def metrics(self, env) -> dict:
        """Task entries of the episode's metrics (besides the measures')."""
        return {"task": self.name}


class Measure(abc.ABC):
    """An episode metric: ``reset`` at the start, ``update`` after every action."""

    name: str = "measure"

    def reset(self, env) -> None:
        pass

    def update(self, env, result: ActionResult) -> None:
        pass

    @abc.abstractmethod
    def metrics(self, env) -> dict:
        """Keys this measure adds to the episode's metrics."""

    def reward(self, env) -> float | None:
        """The measure's current value when the benchmark rewards its increase, else None."""
        return None
