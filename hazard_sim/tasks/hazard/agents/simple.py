"""HAZARD's simple baselines: random, rule-based and greedy agents (paper section 5)."""
from __future__ import annotations

import abc
import math

from hazard_sim.tasks.hazard.agents.base import RescueAgent


class RandomAgent(RescueAgent):
    """The public code's random agent (``policy/random.py``, the file its documentation names):
    each decision lists the plans available now and keeps its last plan while that plan is still
    available (and is not ``explore``), else draws one uniformly:

    * the first decision: ``explore``;
    * not holding, an object reached by the last successful ``walk_to``: ``pick_up`` it;
    * holding: ``drop`` (into the bag; in the wind task only at a cart just reached);
    * not holding and nothing reached: ``walk_to`` any known target still in the scene;
    * not holding and the last action was not a ``walk_to``: ``explore``.

    So a walk started goes on, call after call, until it arrives: ``walk_to``'s frame cap does
    not end it. Where the public agent has no plan (wind, holding, no cart reached: it returns
    none), ours walks to the nearest known cart or explores.
    """

    name = "random"

    def reset(self, obs: dict, info: dict) -> None:
        self.plan = None
        self.reached = None
        super().reset(obs, info)

    def observe(self, obs: dict, info: dict) -> None:
        super().observe(obs, info)
        act = self.last_action
        if act and act[0] == "walk_to":
            self.reached = act[1] if self.last_ok else None
        elif act and act[0] in ("pick_up", "explore") and self.last_ok:
            self.reached = None

    def available(self) -> list[tuple]:
        m = self.memory
        if self.last_action is None:
            return [("explore",)]
        holding, bag = m.held >= 0, m.task.get("container", "bag") == "bag"
        targets = {r.id for r in m.open_targets()}
        plans = []
        if not holding and self.reached in targets:
            plans.append(("pick_up", self.reached))
        if holding and (bag or (self.reached is not None and self.reached in m.containers)):
            plans.append(("drop",))
        if not holding and self.reached not in targets:
            plans += [("walk_to", t) for t in sorted(targets)]
        if not holding and self.last_action[0] != "walk_to":
            plans.append(("explore",))
        return plans or [self.to_container()]

    def decide(self):
        plans = self.available()
        if self.plan is None or self.plan not in plans or self.plan[0] == "explore":
            self.plan = plans[int(self.rng.integers(len(plans)))]
        return self.plan


class PublicRandomAgent(RescueAgent):
    """HAZARD's random agent as its public code ran it for Table 1 (``policy/rand.py``: a uniform
    draw among the six actions of its RL interface, carried out by ``fire_gym``'s
    ``get_challenge_action``). The choices are **privileged**: "nearest target" is the nearest of
    *every* target still in the scene, seen or not, and a pick-up may name a target never observed
    (the simulator's true positions, ``info["privileged"]``), as in the public code. The six, drawn
    uniformly each decision:

    0 ``walk_to`` the nearest target; 1 ``walk_to`` the nearest container (a cart; none indoors);
    2 ``pick_up`` the nearest target; 3 ``drop``; 4 ``explore``; 5 ``walk_to`` an object in view now.

    A choice that names nothing (no cart indoors, nothing in view) is ``turn_by 0`` (one frame),
    as for the RL agent. Embedded only: over ROS the decision node has no ground truth to give it.
    ``random`` is the perceiving random agent of ``policy/random.py``."""

    name = "random_public"
    privileged = True
    WAIT = ("turn_by", 0.0)

    def reset(self, obs: dict, info: dict) -> None:
        self.truth = {}
        super().reset(obs, info)

    def observe(self, obs: dict, info: dict) -> None:
        super().observe(obs, info)
        if "privileged" not in info:
            raise RuntimeError("random_public decides on ground truth (the public code's privileged random): "
                               "run it with an env made with privileged=True (hazard run / bench do)")
        self.truth = info["privileged"]

    def act(self, obs: dict, info: dict):
        """Observe, then draw (no stuck-recovery moves: the public agent has none)."""
        self.observe(obs, info)
        self.last_action = self.decide()
        return self.last_action

    def _nearest(self, where: dict):
        if not where:
            return None
        xy = self.memory.agent_pose[:2]
        return min(sorted(where), key=lambda k: math.hypot(where[k][0] - xy[0], where[k][1] - xy[1]))

    def decide(self):
        k = int(self.rng.integers(6))
        if k in (0, 2):
            t = self._nearest(self.truth["targets"])
            return self.WAIT if t is None else ("walk_to" if k == 0 else "pick_up", int(t))
        if k == 1:
            c = self._nearest(self.truth["containers"])
            return self.WAIT if c is None else ("walk_to", int(c))
        if k == 3:
            return ("drop",)
        if k == 4:
            return ("explore",)
        m = self.memory
        seen = sorted(r.id for r in m.objects.values() if r.status == "scene" and r.last_seen == m.frame)
        return ("walk_to", int(self.rng.choice(seen))) if seen else self.WAIT


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


class PublicGreedyAgent(GreedyAgent):
    """HAZARD's greedy as its public code runs it (``policy/fire_flood_heuristic.py``: one step of
    its MCTS expanded, then the child of the *largest* cost): a target's cost is its walk cost
    ``min(0.5 per m of straight distance, 10)`` divided by its value, the value halved when the
    target is vulnerable (its next reading, extrapolated from the last two, beyond the category's
    limit: 100 C, or 1000 C when fireproof; any water unless waterproof); explore (cost 2.5) wins
    when every walk costs less and the last action was not an explore. It therefore goes for the
    farthest, least valuable target first, which is why the paper's greedy is below its random
    agent in fire and flood. ``greedy`` is the nearest-first rule the paper's text describes."""

    name = "greedy_public"
    EXPLORE_COST = 2.5

    def cost(self, rec) -> float:
        m = self.memory
        value = float(max(rec.value, 1))
        cat = m.targets.get(rec.category, {})
        hazard = m.task.get("hazard", "")
        limit = {"fire": 1000.0 if cat.get("fireproof") else 100.0,
                 "flood": math.inf if cat.get("waterproof") else 0.01}.get(hazard, math.inf)
        if rec.readings:
            last = rec.readings[-1][1]
            pred = last + (last - rec.readings[-2][1]) if len(rec.readings) >= 2 else last
            if pred > limit:
                value /= 2.0
        return min(0.5 * m.distance(rec), 10.0) / value

    def choose(self, open_targets) -> int | None:
        costs = [self.cost(r) for r in open_targets]
        worst = max(costs)
        if worst < self.EXPLORE_COST and self.last_action != ("explore",):
            return None
        top = [r.id for r, c in zip(open_targets, costs) if c == worst]
        return int(top[int(self.rng.integers(len(top)))])

    def when_idle(self):
        return self.explore_step()
