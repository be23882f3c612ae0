"""HAZARD's compressed actions: one implementation, over any locomotion.

An action *program* (:data:`PROGRAMS`: ``walk_to``, ``pick_up``, ``drop``, ``explore``,
``move_by``, ``turn_by``, ``turn_to``, ``stop``) says what an action does in terms of a
few primitives of a :class:`Locomotion`: ``locate`` an object, ``turn`` in place,
``look``, ``walk_straight``, ``walk_near`` an object, ``pick_up``, ``drop``.  Two
locomotions implement them:

* :class:`EnvLocomotion` (embedded): frame by frame through the env's frame API
  (``env.advance`` / ``env.move_body`` / ``env.observe``), A* on the body's own map;
* ``planner_node.locomotion.RosLocomotion`` (ROS): NavigateToPose goals, the
  simulator's (or a robot's) Trigger services, frames from the topics.

Both choose where to stand with :mod:`hazard_sim.navigation.stand_off`. Every program
returns an :class:`~hazard_sim.core.outcome.Outcome` with a typed status.
"""
from __future__ import annotations

import abc
import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.core.outcome import OK, Outcome, Status, fail
from hazard_sim.geometry import wrap_angle
from hazard_sim.navigation import gait
from hazard_sim.navigation.gait import ARRIVE_GAP, WALK_TO_MAX_FRAMES, Walk, arrival_gap, walk_step
from hazard_sim.navigation.grid import plan_path, release_start, simplify_path
from hazard_sim.navigation.stand_off import stand_off_cells

EXPLORE_TURNS, EXPLORE_DEG = 12, 30.0
CART_REACH = 1.0          # gap between body and cart for a drop into the cart
TIME_UP = "frame limit reached"


# ---------------------------------------------------------------- the programs
class Locomotion(abc.ABC):
    """The primitives HAZARD's action programs run on."""

    @abc.abstractmethod
    def pose(self) -> tuple[float, float, float]:
        """(x, y, yaw) of the body."""

    @abc.abstractmethod
    def time_up(self) -> bool:
        """Whether the episode's frame limit has been reached."""

    @abc.abstractmethod
    def locate(self, object_id: int, in_scene: bool):
        """``(target, None)`` for an object (or container) the agent may act on, where
        ``target`` has ``xy``; else ``(None, Outcome)`` saying why not. ``in_scene``: the
        object must still lie in the scene (not held or rescued)."""

    @abc.abstractmethod
    def turn(self, delta_rad: float) -> Outcome:
        """Turn in place by ``delta_rad``."""

    @abc.abstractmethod
    def look(self) -> None:
        """Take an observation now (for the agent's memory)."""

    @abc.abstractmethod
    def walk_straight(self, metres: float) -> Outcome:
        """Walk along the heading (backwards if negative) until done or blocked."""

    @abc.abstractmethod
    def walk_near(self, target) -> Outcome:
        """Walk to within ``ARRIVE_GAP`` of ``target`` (or as close as free space allows,
        succeeding with a message), facing it; at most ``WALK_TO_MAX_FRAMES`` frames."""

    @abc.abstractmethod
    def pick_up(self, object_id: int) -> Outcome:
        """Take the object into the hand."""

    @abc.abstractmethod
    def drop(self) -> Outcome:
        """Put what the hand holds into the container (bag or a cart in reach)."""

    def stop(self) -> None:
        """End the episode's motion."""


def _heading_to(loco: Locomotion, xy) -> float:
    x, y, yaw = loco.pose()
    return wrap_angle(math.atan2(xy[1] - y, xy[0] - x) - yaw)


def stop(loco: Locomotion, act) -> Outcome:
    loco.stop()
    return OK


def turn_by(loco: Locomotion, act) -> Outcome:
    out = loco.turn(math.radians(act.amount))
    loco.look()
    return out


def _on_target(loco: Locomotion, act, in_scene: bool, then) -> Outcome:
    """``then(target)`` on the object the action names, or why it cannot be found."""
    target, why = loco.locate(act.object_id, in_scene=in_scene)
    return why if target is None else then(target)


def turn_to(loco: Locomotion, act) -> Outcome:
    return _on_target(loco, act, False, lambda target: loco.turn(_heading_to(loco, target.xy)))


def move_by(loco: Locomotion, act) -> Outcome:
    return loco.walk_straight(float(act.amount))


def explore(loco: Locomotion, act) -> Outcome:
    """HAZARD's explore: 12 turns of 30 degrees, an observation after each."""
    for _ in range(EXPLORE_TURNS):
        if loco.time_up():
            return fail(Status.TIME_UP, TIME_UP)
        out = loco.turn(math.radians(EXPLORE_DEG))
        if not out.success:
            return out
        loco.look()
    return OK


def walk_to(loco: Locomotion, act) -> Outcome:
    return _on_target(loco, act, True, loco.walk_near)


def pick_up(loco: Locomotion, act) -> Outcome:
    return loco.pick_up(act.object_id)


def drop(loco: Locomotion, act) -> Outcome:
    return loco.drop()


PROGRAMS = {f.__name__: f for f in (walk_to, pick_up, drop, explore, move_by, turn_by, turn_to, stop)}


def run_action(loco: Locomotion, act) -> Outcome:
    """Run a parsed HAZARD action on a locomotion."""
    return PROGRAMS[act.name](loco, act)


# ---------------------------------------------------------------- embedded locomotion
def _step_length(env) -> float:
    return env.agent.spec.walk_per_frame * env.speed_factor()


def turn_frames(env, delta_rad: float) -> int:
    return gait.turn_frames(delta_rad, env.agent.spec.turn_per_frame_deg)


def turn(env, delta_rad: float) -> int:
    """Turn in place by ``delta_rad`` at the body's turn rate (the gait's
    :func:`~hazard_sim.navigation.gait.turn_headings`); returns the frames used."""
    done = 0
    for yaw in gait.turn_headings(env.agent.yaw, delta_rad, turn_frames(env, delta_rad)):
        if not env.advance(1):
            break
        done += 1
        env.agent.yaw = yaw
    return done


def face(env, xy) -> None:
    c = np.asarray(xy) - env.agent.xy
    turn(env, wrap_angle(math.atan2(c[1], c[0]) - env.agent.yaw))


@dataclass
class _Target:
    """What ``locate`` found: an entity (object) or a scene part (cart), by its id."""
    thing: object
    id: int

    @property
    def xy(self) -> np.ndarray:
        return self.thing.box.center[:2]


class EnvLocomotion(Locomotion):
    """HAZARD's actions in the embedded env, frame by frame (HAZARD's numbers: walk_to
    replans A* every 10 frames on the body's own map, at most 100 frames)."""

    def __init__(self, env):
        self.env = env

    def pose(self):
        a = self.env.agent
        return float(a.xy[0]), float(a.xy[1]), float(a.yaw)

    def time_up(self) -> bool:
        return self.env.out_of_time

    def locate(self, object_id, in_scene):
        w = self.env.world
        thing = w.by_id.get(object_id)
        if thing is None:
            thing = next((w.scene.part(n) for n, pid in w.part_ids.items()
                          if pid == object_id and n.startswith("cart")), None)
            if thing is None:
                return None, fail(Status.UNKNOWN_OBJECT, f"unknown object id {object_id}")
            return _Target(thing, object_id), None
        if in_scene and thing.location != "scene":
            return None, fail(Status.NOT_IN_SCENE, f"object {thing.id} ({thing.name}) is {thing.location}, "
                                                   f"not in the scene")
        if thing.id not in self.env.observed_ids and not self.env.privileged:
            return None, fail(Status.NOT_VISIBLE, f"object {thing.id} has not been observed yet")
        return _Target(thing, object_id), None

    def turn(self, delta_rad):
        turn(self.env, delta_rad)
        return OK

    def look(self):
        self.env.observe()

    def walk_straight(self, metres):
        env = self.env
        d = float(metres)
        n = int(math.ceil(abs(d) / env.agent.spec.walk_per_frame - 1e-9))
        u = np.array([math.cos(env.agent.yaw), math.sin(env.agent.yaw)]) * math.copysign(1, d)
        moved = 0.0
        for k in range(n):
            if not env.advance(1):
                return fail(Status.TIME_UP, TIME_UP)
            step = min(_step_length(env), abs(d) - moved)
            if not env.move_body(env.agent.xy + u * step):
                return fail(Status.BLOCKED, f"blocked after {moved:.2f} m")
            moved += step
            if (k + 1) % env.render_every == 0:
                env.observe()
        return OK

    def walk_near(self, target):
        """The gait's walk (:mod:`hazard_sim.navigation.gait`): A* on the body's own map to
        the stand-off cells, replanned every 10 frames and after a bump; every frame the body
        heads for the next waypoint and steps towards it, or turns towards it in place at its
        turn rate when it is farther than one frame's turn away; a camera frame every
        ``render_every`` frames of walking."""
        env = self.env
        target_id, target = target.id, target.thing
        body, grid = env.agent, env.grid
        turn_rate = math.radians(body.spec.turn_per_frame_deg)
        walk, frames = Walk(), 0
        while frames < WALK_TO_MAX_FRAMES:
            goal = target.box.center[:2]
            r = float(np.hypot(*target.box.half[:2]))
            gap = arrival_gap(body.xy, body.radius, goal, r)
            if gap <= ARRIVE_GAP:
                self._face_walking(goal, frames)
                return OK
            if walk.finished:          # the path's end, short of the ring (the object moved on)
                self._face_walking(goal, frames)
                return Outcome(Status.SUCCEEDED, f"stopped {gap + ARRIVE_GAP:.2f} m from the object: the path "
                                                 f"ended (it moved)")
            if env.out_of_time:
                return fail(Status.TIME_UP, TIME_UP)
            if walk.due(frames):
                start = grid.to_cell(body.xy)
                blocked = release_start(env.memory_map.blocked(), env.memory_map.obstacles(), start,
                                        body.radius, grid.resolution)
                if env.processes_act_on_body:
                    for p in env.world.processes:
                        pts = p.no_go_points()
                        if len(pts):
                            blocked[grid.to_cells(pts)] = True
                goals, _ = stand_off_cells(grid, blocked, goal, r, body.radius, ARRIVE_GAP, body.spec.reach)
                cells = plan_path(blocked, start, goals)
                if cells is None:
                    return fail(Status.NO_PATH, f"no path to {target_id} on the observed map")
                if len(cells) == 1:      # already at the closest free place
                    self._face_walking(goal, frames)
                    return Outcome(Status.SUCCEEDED, f"stopped {gap + ARRIVE_GAP:.2f} m from the object: "
                                                     f"furniture in the way")
                walk.set_path(list(simplify_path(grid, cells)[1:]) or [grid.to_world(cells[-1])], frames)
            heading, offset = walk_step(body.xy, walk.waypoint, _step_length(env))
            if not env.advance(1):
                return fail(Status.TIME_UP, TIME_UP)
            frames += 1
            bumped = False
            if heading is not None:
                body.yaw, steps = gait.walk_turn(body.yaw, heading, turn_rate)
                bumped = steps and not env.move_body(body.xy + offset)
            walk.moved(body.xy, not bumped)
            if gait.observes_at(frames, env.render_every):
                env.observe()           # the camera runs through a bump too
        left = float(np.linalg.norm(target.box.center[:2] - body.xy))
        return fail(Status.NOT_ARRIVED, f"not there after {WALK_TO_MAX_FRAMES} frames ({left:.1f} m left)")

    def _face_walking(self, xy, frames: int) -> None:
        """``walk_to``'s final turn to face ``xy``: the gait's in-place turn, its frames
        counted on from the walk's ``frames`` for the camera (a frame every ``render_every``
        frames of the whole action, as a body whose camera runs through the action)."""
        env = self.env
        c = np.asarray(xy) - env.agent.xy
        delta = wrap_angle(math.atan2(c[1], c[0]) - env.agent.yaw)
        for yaw in gait.turn_headings(env.agent.yaw, delta, turn_frames(env, delta)):
            if not env.advance(1):
                return
            frames += 1
            env.agent.yaw = yaw
            if gait.observes_at(frames, env.render_every):
                env.observe()

    def pick_up(self, object_id):
        env = self.env
        w, body = env.world, env.agent
        if object_id not in w.by_id:
            return fail(Status.UNKNOWN_OBJECT, f"unknown object id {object_id}")
        obj = w.by_id[object_id]
        if body.held is not None:
            return fail(Status.HANDS_FULL, f"hands full: holding {body.held.id} ({body.held.name})")
        if obj.location != "scene":
            return fail(Status.NOT_IN_SCENE, f"object {obj.id} ({obj.name}) is {obj.location}, not in the scene")
        if obj.id not in env.observed_ids and not env.privileged:
            return fail(Status.NOT_VISIBLE, f"object {obj.id} has not been observed yet")
        d = float(np.linalg.norm(obj.position[:2] - body.xy))
        if d > body.spec.reach:
            return fail(Status.OUT_OF_REACH, f"object {obj.id} out of reach: {d:.2f} m > {body.spec.reach} m")
        if env.line_blocked(body.xy, obj.position):
            return fail(Status.BEHIND_WALL, f"object {obj.id} is behind a wall")
        face(env, obj.position[:2])
        env.advance(body.spec.pick_frames)
        w.take(obj, "held")
        body.held = obj
        obj.meta["damaged_at_pick"] = any(p.is_damaged(obj, w) for p in w.processes)
        return OK

    def drop(self):
        env = self.env
        w, body = env.world, env.agent
        obj = body.held
        if obj is None:
            return fail(Status.HANDS_EMPTY, "hands are empty: nothing to drop")
        if env.task.container == "cart":
            carts = w.scene.carts()
            gaps = [float(np.linalg.norm(c.box.center[:2] - body.xy)) - float(np.hypot(*c.box.half[:2]))
                    - body.radius for c in carts]
            k = int(np.argmin(gaps))
            if gaps[k] > CART_REACH:
                return fail(Status.NO_CONTAINER,
                            f"no cart within reach (nearest {carts[k].name} is {gaps[k]:.2f} m away)")
            face(env, carts[k].box.center[:2])
            env.advance(body.spec.cart_drop_frames)
            w.place(obj, carts[k].box.center + np.array([0, 0, carts[k].box.half[2]]), settled=True)
            obj.meta["container"] = carts[k].name
        else:
            env.advance(body.spec.drop_frames)
            w.take(obj, "rescued")
            obj.meta["container"] = "bag"
        body.held = None
        env.task.on_rescue(env, obj)
        return OK
