"""HAZARD's simple baselines: random, rule-based and greedy agents (paper section 5)."""
from __future__ import annotations

import abc

from hazard_sim.tasks.hazard.agents.base import RescueAgent


class RandomAgent(RescueAgent):
    """Picks uniformly among: explore, walk to the nearest target (or cart when holding
    one in the wind task), pick up the nearest target, drop, and low-level moves/turns."""

    name = "random"

    def decide(self):
        m = self.memory
        open_ = m.open_targets()
        choice = self.rng.integers(5)
        if choice == 0:
            return ("explore",)
        if choice == 1:
            if m.held >= 0 and m.task.get("container") == "cart" and m.containers:
                return ("walk_to", m.nearest_container())
            if open_:
                return ("walk_to", min(open_, key=m.distance).id)
            return ("explore",)
        if choice == 2:
            return ("pick_up", min(open_, key=m.distance).id) if open_ else ("explore",)
        if choice == 3:
            return ("drop",)
        return self.random_low_level()


class _PersistentAgent(RescueAgent):
    """Commits to one known target until it is rescued or given up, then chooses again."""

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self.current = None

    @abc.abstractmethod
    def choose(self, open_targets) -> int:
        """Implemented by each subclass."""

    def when_idle(self):
        return self.explore_step()

    def decide(self):
        m = self.memory
        if m.held >= 0:
            return self.to_container()
        open_ = m.open_targets()
        if self.current not in {r.id for r in open_}:
            self.current = self.choose(open_) if open_ else None
        if self.current is None:
            return self.when_idle()
        return self.rescue_step(self.current)


class RuleAgent(_PersistentAgent):
    """Randomly chooses a known target, walks to it, picks it up, drops it in the
    container; repeats.  Explores when it knows no target."""

    name = "rule"

    def choose(self, open_targets) -> int:
        return int(self.rng.choice([r.id for r in open_targets]))


class GreedyAgent(_PersistentAgent):
    """Persists in rescuing the nearest known target; random actions when none is known."""

    name = "greedy"

    def choose(self, open_targets) -> int:
        return min(open_targets, key=self.memory.distance).id

    def when_idle(self):
        return self.explore_step() if self.rng.random() < 0.5 else self.random_low_level()
