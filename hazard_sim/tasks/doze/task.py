"""DOZE's task and measures: find the object named by the goal text, say Done near it.

Actions (DOZE / AI2-THOR): ``MoveAhead`` (0.25 m), ``RotateLeft`` / ``RotateRight``
(30 degrees), ``Done``; each moves the LoCoBot over five frames of 0.1 s while the
people walk.  A MoveAhead into a wall, furniture or a person stops (status
``blocked``).  Metrics (the paper's):

* success: ``Done`` with the robot within 1.0 m (floor distance) of a goal instance;
* SPL: success x shortest / max(path, shortest), the shortest path being the
  geodesic one on the static scene stored with the episode;
* collisions: steps during which the robot came within 0.2 m of a person (the gap
  between the robot's body, radius 0.18 m, and the person's, radius 0.2 m), at any
  of the step's frames; CR = collisions / steps (averaged over episodes by the table).
"""
from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from hazard_sim.core.outcome import OK, Outcome, Status, fail
from hazard_sim.core.task import Measure, Task

ACTIONS = ("MoveAhead", "RotateLeft", "RotateRight", "Done")
SUCCESS_DISTANCE = 1.0
COLLISION_DISTANCE = 0.2
_ALIASES = {a.lower(): a for a in ACTIONS} | {"move_ahead": "MoveAhead", "rotate_left": "RotateLeft",
                                              "rotate_right": "RotateRight", "stop": "Done"}


class DozeAction(str):
    @property
    def name(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return str.__str__(self)


class ActionError(ValueError):
    pass


class ObjectNavTask(Task):
    name = "doze_objectnav"
    actions = ACTIONS

    def reset(self, env) -> None:
        ep = env.spec_dict
        self.goal_text = ep["goal_object"]
        self.goal_ids = list(ep["goal_ids"])
        house = env.world.house
        self.goal_xy = np.array([house.item(i).position[:2] for i in self.goal_ids])
        self.said_done = False
        self.steps = 0
        self.collisions = 0
        self.collided_last = False
        self.blocked = 0

    def action_space(self):
        return spaces.Discrete(len(ACTIONS))

    def parse(self, action):
        if isinstance(action, (int, np.integer)):
            if not 0 <= int(action) < len(ACTIONS):
                raise ActionError(f"action index {int(action)} out of range 0..{len(ACTIONS) - 1} "
                                  f"({', '.join(ACTIONS)})")
            return DozeAction(ACTIONS[int(action)])
        if isinstance(action, (tuple, list)) and len(action) == 1:
            action = action[0]
        name = _ALIASES.get(str(action).strip().lower()) if isinstance(action, str) else None
        if name is None:
            raise ActionError(f"unknown DOZE action {action!r}; known: {', '.join(ACTIONS)}")
        return DozeAction(name)

    def people(self, env):
        for p in env.world.processes:
            if hasattr(p, "clearance"):
                return p
        return None

    def _check_collision(self, env) -> bool:
        ppl = self.people(env)
        return ppl is not None and ppl.clearance(env.agent.xy, env.agent.radius) <= COLLISION_DISTANCE

    def execute(self, env, act) -> Outcome:
        self.steps += 1
        if act == "Done":
            self.said_done = True
            env.advance(1)
            self._count(self._check_collision(env))
            return OK
        spec = env.agent.spec
        n = spec.frames_per_action
        ppl = self.people(env)
        blocked = False
        hit = False
        for _ in range(n):
            if not env.advance(1):
                break
            if act == "MoveAhead":
                if not blocked:
                    d = spec.move_step / n
                    nxt = env.agent.xy + d * np.array([math.cos(env.agent.yaw), math.sin(env.agent.yaw)])
                    free = env.is_free(nxt) and (ppl is None or ppl.clearance(nxt, env.agent.radius) >= 0.0)
                    m = env.agent.step_to(nxt, lambda xy, ok=free: ok)
                    blocked = not m.moved
            else:
                sgn = 1.0 if act == "RotateLeft" else -1.0
                env.agent.yaw = float((env.agent.yaw + sgn * math.radians(spec.turn_step_deg) / n + math.pi)
                                      % (2 * math.pi) - math.pi)
            hit = hit or self._check_collision(env)
        self._count(hit)
        if blocked:
            self.blocked += 1
            return fail(Status.BLOCKED, "MoveAhead blocked by an obstacle or a person")
        return OK

    def _count(self, hit: bool) -> None:
        self.collided_last = hit
        self.collisions += int(hit)

    def terminated(self, env, act) -> bool:
        return self.said_done

    def costs_a_frame(self, action) -> bool:
        return True

    def describe(self, env) -> dict:
        return {"task": self.name, "benchmark": env.benchmark, "goal": self.goal_text, "actions": list(ACTIONS),
                "success_distance": SUCCESS_DISTANCE, "max_steps": env.spec_b.max_steps}

    def info(self, env) -> dict:
        return {"goal": self.goal_text, "collided": self.collided_last, "steps": self.steps}

    def distance_to_goal(self, env) -> float:
        return float(np.linalg.norm(self.goal_xy - env.agent.xy, axis=1).min())

    def metrics(self, env) -> dict:
        ep = env.spec_dict
        return {"task": self.name, "benchmark": env.benchmark, "goal": self.goal_text, "goal_type": ep["goal_type"],
                "level": ep["level"],
                "goal_ids": list(self.goal_ids), "episode_id": ep["id"]}


class ObjectNavMeasure(Measure):
    """SR, SPL, collisions and CR of one episode."""
    name = "objectnav"

    def metrics(self, env) -> dict:
        t = env.task
        d = t.distance_to_goal(env)
        success = bool(t.said_done and d <= SUCCESS_DISTANCE)
        shortest = float(env.spec_dict["shortest_path_length"])
        path = float(env.agent.path_length)
        spl = success * shortest / max(path, shortest) if shortest > 0 else float(success)
        steps = t.steps
        return {"success": success, "spl": round(float(spl), 6), "collisions": int(t.collisions), "steps": steps,
                "cr": round(t.collisions / steps, 6) if steps else 0.0, "distance_to_goal": round(d, 4),
                "path_length": round(path, 4), "shortest_path_length": round(shortest, 4),
                "blocked_moves": int(t.blocked)}

    def reward(self, env):
        return None


def spl(success: bool, shortest: float, path: float) -> float:
    """SPL of one episode (Anderson et al.): S * l / max(p, l)."""
    return float(success) * shortest / max(path, shortest) if shortest > 0 else float(success)
