"""HAZARD's compressed actions as controllers over the body and the env's frame API.

Each controller takes the env and a parsed :class:`~hazard_sim.actions.Action`,
advances frames through ``env.advance`` / ``env.move_body`` / ``env.observe`` and
returns an :class:`~hazard_sim.core.outcome.Outcome` with a typed status.
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.core.outcome import OK, Outcome, Status, fail
from hazard_sim.geometry import wrap_angle
from hazard_sim.navigation.grid import goal_cells_near, plan_path, release_start, simplify_path

WALK_TO_MAX_FRAMES = 100
ARRIVE_GAP = 0.5          # walk_to arrives when the body is within 0.5 m of the object
EXPLORE_TURNS, EXPLORE_DEG = 12, 30.0
CART_REACH = 1.0          # gap between body and cart for a drop into the cart
TIME_UP = "frame limit reached"


# ---------------------------------------------------------------- motion primitives
def _step_length(env) -> float:
    return env.agent.spec.walk_per_frame * env.speed_factor()


def turn_frames(env, delta_rad: float) -> int:
    return int(math.ceil(abs(math.degrees(delta_rad)) / env.agent.spec.turn_per_frame_deg - 1e-9))


def turn(env, delta_rad: float) -> int:
    """Turn in place by ``delta_rad`` at the body's turn rate; returns the frames used."""
    frames = turn_frames(env, delta_rad)
    start = env.agent.yaw
    done = 0
    for k in range(frames):
        if not env.advance(1):
            break
        done += 1
        env.agent.yaw = wrap_angle(start + delta_rad * (k + 1) / frames)
    return done


def face(env, xy) -> None:
    c = np.asarray(xy) - env.agent.xy
    turn(env, wrap_angle(math.atan2(c[1], c[0]) - env.agent.yaw))


def lookup(env, object_id):
    """The entity or cart part for an id, or None."""
    w = env.world
    if object_id in w.by_id:
        return w.by_id[object_id]
    for name, pid in w.part_ids.items():
        if pid == object_id and name.startswith("cart"):
            return w.scene.part(name)
    return None


def _is_entity(target) -> bool:
    return hasattr(target, "location")


# ---------------------------------------------------------------- actions
def stop(env, act) -> Outcome:
    return OK


def turn_by(env, act) -> Outcome:
    turn(env, math.radians(act.amount))
    env.observe()
    return OK


def turn_to(env, act) -> Outcome:
    target = lookup(env, act.object_id)
    if target is None:
        return fail(Status.UNKNOWN_OBJECT, f"unknown object id {act.object_id}")
    if _is_entity(target) and act.object_id not in env.observed_ids:
        return fail(Status.NOT_VISIBLE, f"object {act.object_id} has not been observed yet")
    c = target.box.center[:2] - env.agent.xy
    turn(env, wrap_angle(math.atan2(c[1], c[0]) - env.agent.yaw))
    return OK


def move_by(env, act) -> Outcome:
    d = float(act.amount)
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


def explore(env, act) -> Outcome:
    for _ in range(EXPLORE_TURNS):
        if env.out_of_time:
            return fail(Status.TIME_UP, TIME_UP)
        turn(env, math.radians(EXPLORE_DEG))
        env.observe()
    return OK


def walk_to(env, act) -> Outcome:
    """A* on the body's own walking map to within 0.5 m of the object (replanning every
    10 frames), at most 100 frames; where furniture keeps the body farther away it
    stops as close as free space allows."""
    target = lookup(env, act.object_id)
    if target is None:
        return fail(Status.UNKNOWN_OBJECT, f"unknown object id {act.object_id}")
    if _is_entity(target):
        if target.location != "scene":
            return fail(Status.NOT_IN_SCENE, f"object {target.id} ({target.name}) is {target.location}, "
                                             f"not in the scene")
        if target.id not in env.observed_ids:
            return fail(Status.NOT_VISIBLE, f"object {target.id} has not been observed yet")
    body, grid = env.agent, env.grid
    path, frames, replan_at = None, 0, 0
    while frames < WALK_TO_MAX_FRAMES:
        goal = target.box.center[:2]
        r = float(np.hypot(*target.box.half[:2]))
        gap = float(np.linalg.norm(goal - body.xy)) - r - body.radius
        if gap <= ARRIVE_GAP:
            face(env, goal)
            return OK
        if env.out_of_time:
            return fail(Status.TIME_UP, TIME_UP)
        if path is None or frames >= replan_at:
            start = grid.to_cell(body.xy)
            blocked = release_start(env.memory_map.blocked(), env.memory_map.obstacles(), start,
                                    body.radius, grid.resolution)
            if env.hazards_affect_agent:
                for p in env.world.processes:
                    pts = p.no_go_points()
                    if len(pts):
                        blocked[grid.to_cells(pts)] = True
            for extra in (0.0, 0.5, 1.0):
                near = r + body.radius + ARRIVE_GAP + extra
                goals = goal_cells_near(grid, blocked, goal, min(near, body.spec.reach))
                if goals:
                    break
            cells = plan_path(blocked, start, goals)
            if cells is None:
                return fail(Status.NO_PATH, f"no path to {act.object_id} on the observed map")
            if len(cells) == 1:      # already at the closest free place
                face(env, goal)
                return Outcome(Status.SUCCEEDED, f"stopped {gap + ARRIVE_GAP:.2f} m from the object: "
                                                 f"furniture in the way")
            path = list(simplify_path(grid, cells)[1:]) or [grid.to_world(cells[-1])]
            replan_at = frames + 10
        waypoint = path[0]
        d = waypoint - body.xy
        dist = float(np.linalg.norm(d))
        step = _step_length(env)
        if not env.advance(1):
            return fail(Status.TIME_UP, TIME_UP)
        frames += 1
        if dist > 1e-6:
            body.yaw = math.atan2(d[1], d[0])
            if not env.move_body(body.xy + d / dist * min(step, dist)):
                path = None
                continue
        if np.linalg.norm(waypoint - body.xy) < 1e-3:
            path.pop(0)
            if not path:
                path = None
        if frames % env.render_every == 0:
            env.observe()
    left = float(np.linalg.norm(target.box.center[:2] - body.xy))
    return fail(Status.NOT_ARRIVED, f"not there after {WALK_TO_MAX_FRAMES} frames ({left:.1f} m left)")


def pick_up(env, act) -> Outcome:
    w, body = env.world, env.agent
    if act.object_id not in w.by_id:
        return fail(Status.UNKNOWN_OBJECT, f"unknown object id {act.object_id}")
    obj = w.by_id[act.object_id]
    if body.held is not None:
        return fail(Status.HANDS_FULL, f"hands full: holding {body.held.id} ({body.held.name})")
    if obj.location != "scene":
        return fail(Status.NOT_IN_SCENE, f"object {obj.id} ({obj.name}) is {obj.location}, not in the scene")
    if obj.id not in env.observed_ids:
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


def drop(env, act) -> Outcome:
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
            return fail(Status.NO_CONTAINER, f"no cart within reach (nearest {carts[k].name} is {gaps[k]:.2f} m away)")
        face(env, carts[k].box.center[:2])
        env.advance(body.spec.drop_frames)
        w.place(obj, carts[k].box.center + np.array([0, 0, carts[k].box.half[2]]), settled=True)
        obj.meta["container"] = carts[k].name
    else:
        env.advance(body.spec.drop_frames)
        w.take(obj, "rescued")
        obj.meta["container"] = "bag"
    body.held = None
    env.task.on_rescue(env, obj)
    return OK


CONTROLLERS = {f.__name__: f for f in (walk_to, pick_up, drop, explore, move_by, turn_by, turn_to, stop)}
