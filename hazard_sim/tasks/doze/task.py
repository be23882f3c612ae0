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

import numpy as np
from gymnasium import spaces

from hazard_sim.core.embodiment import Twist
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
        self.blocked_frame = False
        self._win_frames, self._win_hit, self._win_blocked = 0, False, False

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

    # A step is ``frames_per_action`` frames of driving (0.5 s): MoveAhead / RotateX drive
    # the body through ``env.drive`` (the same path as a ROS cmd_vel), and every frame of
    # driving, by an action or by cmd_vel, is followed here (``after_drive``): a collision or
    # a blocked move in any frame of a step counts once for that step.
    def after_drive(self, env, result) -> None:
        self._win_frames += 1
        self._win_hit = self._win_hit or self._check_collision(env)
        self._win_blocked = self._win_blocked or bool(result.bumped)
        self.blocked_frame = bool(result.bumped)
        if self._win_frames >= env.agent.spec.frames_per_action:
            self._close_step()

    def _close_step(self) -> None:
        if self._win_frames == 0:
            return
        self.steps += 1
        self._count(self._win_hit)
        self.blocked += int(self._win_blocked)
        self._win_frames, self._win_hit, self._win_blocked = 0, False, False

    def pending_step(self) -> int:
        """1 while a step of driving (by cmd_vel) is under way, else 0."""
        return int(self._win_frames > 0)

    def twist(self, env, act) -> Twist:
        """The velocity command of a motion action at the body's limits."""
        lim = env.agent.spec.limits()
        if act == "MoveAhead":
            return Twist(vx=lim.linear)
        return Twist(wz=lim.angular if act == "RotateLeft" else -lim.angular)

    def execute(self, env, act) -> Outcome:
        self._close_step()                  # a step of cmd_vel driving under way ends here
        if act == "Done":
            self.steps += 1
            self.said_done = True
            env.advance(1)
            self._count(self._check_collision(env))
            return OK
        cmd = self.twist(env, act)
        blocked = False
        for _ in range(env.agent.spec.frames_per_action):
            r = env.drive(cmd)
            if not r.advanced:
                break
            if r.bumped:                    # a MoveAhead into an obstacle stops there (AI2-THOR)
                blocked, cmd = True, Twist()
        self._close_step()                  # at the frame limit the step ends early
        if blocked:
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
        from hazard_sim.tasks.doze.goal_language import goal_class
        return {"task": self.name, "benchmark": env.benchmark, "goal": self.goal_text, "actions": list(ACTIONS),
                "success_distance": SUCCESS_DISTANCE, "max_steps": env.spec_b.max_steps,
                "detect_classes": [goal_class(self.goal_text)]}     # what a detector is asked to find

    def info(self, env) -> dict:
        # blocked_frame: the last frame of driving was blocked (a ROS client driving the
        # discrete actions by cmd_vel stops for the rest of the step, as MoveAhead does)
        return {"goal": self.goal_text, "collided": self.collided_last, "steps": self.steps + self.pending_step(),
                "blocked_frame": self.blocked_frame}

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
        steps = t.steps + t.pending_step()
        return {"success": success, "spl": round(float(spl), 6), "collisions": int(t.collisions), "steps": steps,
                "cr": round(t.collisions / steps, 6) if steps else 0.0, "distance_to_goal": round(d, 4),
                "path_length": round(path, 4), "shortest_path_length": round(shortest, 4),
                "blocked_moves": int(t.blocked)}

    def reward(self, env):
        return None


def spl(success: bool, shortest: float, path: float) -> float:
    """SPL of one episode (Anderson et al.): S * l / max(p, l)."""
    return float(success) * shortest / max(path, shortest) if shortest > 0 else float(success)
