"""HAZARD's rescue agent base (:class:`RescueAgent`, following :class:`hazard_sim.agents.Agent`) and the
rescue routine its baselines share."""
from __future__ import annotations

import abc
import math

import numpy as np

from hazard_sim.core.outcome import Status
from hazard_sim.geometry import wrap_angle
from hazard_sim.intrinsics import backproject, scaled_K
from hazard_sim.navigation.grid import GridSpec, distance_field, plan_path, release_start, simplify_path
from hazard_sim.navigation.observed_map import ObservedMap
from hazard_sim.tasks.hazard.agents.memory import Memory

MAP_CELL = 0.1
#: failures after which an object is given up at once (no retries)
GIVE_UP = (Status.NO_PATH, Status.NOT_IN_SCENE, Status.BEHIND_WALL, Status.UNKNOWN_OBJECT)
#: a walk_to cut by its frame cap (NOT_ARRIVED) that moved the body this far (m) is progress, not a
#: failure; three failures of one object give it up
MIN_PROGRESS = 0.2


class RescueAgent(abc.ABC):
    """Decides one HAZARD action at a time from observations and its own memory.

    Use: ``agent.reset(obs, info)`` after ``env.reset()``, then
    ``action = agent.act(obs, info)`` with what ``env.step`` returned.
    """

    name = "rescue_base"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self.memory: Memory | None = None
        self.last_action = None
        self.last_ok = False
        self.failures: dict[int, int] = {}

    def reset(self, obs: dict, info: dict) -> None:
        self.memory = Memory(info["task"])
        self.map = ObservedMap(GridSpec(tuple(info["bounds"]), MAP_CELL), 0.25, stride=4)
        self.failures = {}
        self.last_action = None
        self.last_ok = False
        self.explored_at = []
        self.fail_streak = 0
        self.stuck_at = np.full(2, np.inf)
        self.observe(obs, info)

    def observe(self, obs: dict, info: dict) -> None:
        before = np.array(self.memory.agent_pose[:2], float)
        for o in info.get("observations") or [obs]:
            self.memory.integrate(o, info["labels"])
            self.map.integrate(backproject(o["depth"][::4, ::4], scaled_K(o["camera_K"], 4),
                                           o["camera_pose"]), o["seg"][::4, ::4] >= 900, stride=1)
        self.memory.note_result(info)
        res = info.get("action_result", {})
        self.last_ok = bool(res.get("success", False))
        status = res.get("status")
        act = self.last_action
        if act and act[0] == "move_by" and status == Status.BLOCKED:
            # the body bumped into something right ahead: remember it on the map
            x, y, yaw = self.memory.agent_pose
            ahead = [np.array([x, y]) + d * np.array([math.cos(yaw), math.sin(yaw)]) for d in (0.35, 0.25, 0.45)]
            self.map.bump(ahead[0], [self.map.spec.to_cell(p) for p in ahead[1:]])
        walked_on = status == Status.NOT_ARRIVED and np.linalg.norm(self.memory.agent_pose[:2] - before) >= MIN_PROGRESS
        if act and not self.last_ok and len(act) > 1 and act[0] in ("walk_to", "pick_up") and not walked_on:
            # a walk cut by walk_to's frame cap that got somewhere is not a failure: as in the public
            # code, the agent walks on with its next call (it gives up only on walks that fail)
            oid = act[1]
            self.failures[oid] = self.failures.get(oid, 0) + 1
            if self.failures[oid] >= 3 or status in GIVE_UP:
                self.memory.mark_lost(oid)

    def act(self, obs: dict, info: dict):
        self.observe(obs, info)
        # stuck: failures without the body getting anywhere (turns in place do not count)
        xy = self.memory.agent_pose[:2]
        if np.linalg.norm(xy - getattr(self, "stuck_at", xy + 1)) > 0.2 or \
                (self.last_ok and self.last_action and self.last_action[0] not in ("turn_by", "turn_to")):
            self.stuck_at, self.fail_streak = xy.copy(), 0
        elif not self.last_ok:
            self.fail_streak += 1
        if self.fail_streak >= 3:       # shake loose with a random turn and step
            a = ("turn_by", float(self.rng.choice([-120.0, -60.0, 60.0, 120.0]))) if self.fail_streak % 2 \
                else ("move_by", 0.5)
        else:
            a = self.decide()
        self.last_action = a
        return a

    @abc.abstractmethod
    def decide(self):
        """Implemented by each subclass."""

    def episode_info(self) -> dict:
        """Keys the agent adds to the episode's results when it ends (e.g. LLM call counts)."""
        return {}

    # ------------------------------------------------------------ shared routine
    def to_container(self):
        """Holding an object: drop it (into the bag), or carry it to the nearest cart first."""
        m = self.memory
        if m.task.get("container", "bag") == "bag":
            return ("drop",)
        cart = m.nearest_container()
        if cart is None:
            return ("explore",)
        if self.last_action == ("walk_to", cart) and self.last_ok:
            return ("drop",)
        return ("walk_to", cart)

    def rescue_step(self, target_id: int):
        """The next action of walk_to -> pick_up -> (walk to cart) -> drop for one object."""
        if self.memory.held >= 0:
            return self.to_container()
        if self.last_action == ("walk_to", target_id) and self.last_ok:
            return ("pick_up", target_id)
        return ("walk_to", target_id)

    def explore_step(self):
        """Look around where not yet looked around; otherwise head for the nearest frontier
        of the agent's own map (seen free space next to unseen space) with move_by / turn_by."""
        xy = self.memory.agent_pose[:2]
        if self.last_action == ("explore",):
            self.explored_at.append(xy.copy())
        if not any(np.linalg.norm(xy - p) < 1.5 for p in self.explored_at):
            return ("explore",)
        return self.frontier_step() or self.random_low_level()

    def frontier_step(self):
        m, spec = self.map, self.map.spec
        start = spec.to_cell(self.memory.agent_pose[:2])
        blocked = release_start(m.blocked(), m.obstacles(), start, m.radius, spec.resolution)
        free = m.seen_free & ~blocked
        unknown = ~m.seen_free & ~m.obstacles()
        pad = np.pad(unknown, 1)
        near_unknown = pad[:-2, 1:-1] | pad[2:, 1:-1] | pad[1:-1, :-2] | pad[1:-1, 2:]
        frontier = free & near_unknown
        for p in self.explored_at:          # frontiers where we already looked around do not count
            i, j = spec.to_cell(p)
            frontier[max(i - 10, 0):i + 11, max(j - 10, 0):j + 11] = False
        if not frontier.any():
            return None
        dist = distance_field(blocked, start, spec.resolution)
        dist[~frontier] = np.inf
        if not np.isfinite(dist).any():
            return None
        goal = np.unravel_index(np.argmin(dist), dist.shape)
        cells = plan_path(blocked, start, [tuple(goal)])
        if not cells or len(cells) < 2:
            return None
        way = simplify_path(spec, cells)
        target = way[1] if len(way) > 1 else way[0]
        d = target - self.memory.agent_pose[:2]
        heading = wrap_angle(math.atan2(d[1], d[0]) - self.memory.agent_pose[2])
        if abs(heading) > math.radians(15):
            return ("turn_by", round(math.degrees(heading), 1))
        return ("move_by", round(float(min(np.linalg.norm(d) + 0.05, 2.0)), 2))

    def random_low_level(self):
        k = self.rng.integers(3)
        if k == 0:
            return ("explore",)
        if k == 1:
            return ("move_by", float(self.rng.choice([0.5, 1.0])))
        return ("turn_by", float(self.rng.choice([-90.0, -45.0, 45.0, 90.0])))


