"""The walking gait of HAZARD's compressed actions: one law for every navigator.

The core's controllers (``hazard_sim.tasks.hazard.controllers``, embedded) and the ROS
navigation node's lock-step path follower (``planner_node.following.GaitFollower``)
both move a body with these rules, so that an action costs the same frames and ends in
the same place either way:

* **turning in place** (``turn_by``, ``explore``, facing an object): ``turn_frames``
  frames at the body's turn rate; after frame ``k`` of ``n`` the heading is
  ``start + delta * k / n`` (:func:`turn_headings`), the last one exactly the goal;
* **walking a path** (``walk_to``): every frame the body heads for the next waypoint and
  steps ``min(step, distance)`` towards it (:func:`walk_step`): it turns as it walks, at
  its turn rate: when the waypoint's direction is more than one frame's turn away, the
  frame is spent turning in place by the turn rate towards it (:func:`walk_turn`), as a
  velocity-commanded body whose turn is clipped to its limit does.  A waypoint closer
  than :data:`WAYPOINT_REACHED` is passed.  The path is planned again every
  :data:`REPLAN_EVERY` frames of the walk and after a bump (a step the world refused);
  :class:`Walk` keeps that schedule;
* **arriving**: a ``walk_to`` ends when the gap between the body's cylinder and the
  object's circle is at most :data:`ARRIVE_GAP` (:func:`arrival_gap`), then the body
  turns in place to face the object; it gives up after :data:`WALK_TO_MAX_FRAMES`
  frames of walking;
* **observing**: through a walking action (its walk and its final turn) the body takes a
  camera frame every ``render_every`` frames counted from the action's start
  (:func:`observes_at`).

How a frame's motion reaches the body is the navigator's business: the embedded
controller places the body (``env.move_body``) and sets its heading; a velocity-commanded
body gets the :func:`step_twist` of the frame.  Pure numpy, no ROS.
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.geometry import wrap_angle

WALK_TO_MAX_FRAMES = 100      # HAZARD's walk_to gives up after 100 frames
ARRIVE_GAP = 0.5              # m between the body and the object when walk_to arrives
REPLAN_EVERY = 10             # frames of walking between two plans (HAZARD's number)
WAYPOINT_REACHED = 1e-3       # m: a waypoint this close is passed


def turn_frames(delta_rad: float, turn_per_frame_deg: float) -> int:
    """Frames an in-place turn of ``delta_rad`` takes at ``turn_per_frame_deg``."""
    return int(math.ceil(abs(math.degrees(delta_rad)) / turn_per_frame_deg - 1e-9))


def turn_headings(start_yaw: float, delta_rad: float, frames: int) -> list[float]:
    """The heading after each frame of an in-place turn (the last: ``start + delta``)."""
    return [wrap_angle(start_yaw + delta_rad * (k + 1) / frames) for k in range(frames)]


def arrival_gap(body_xy, body_radius: float, target_xy, target_radius: float) -> float:
    """Gap (m) between the body's cylinder and the object's circle."""
    d = np.asarray(target_xy, float)[:2] - np.asarray(body_xy, float)[:2]
    return float(np.linalg.norm(d)) - target_radius - body_radius


def walk_step(xy, waypoint, step: float):
    """One frame of walking: ``(heading, offset)``: head straight for ``waypoint`` and move
    by ``offset``, ``min(step, distance)`` towards it; ``(None, 0)`` when already on it."""
    d = np.asarray(waypoint, float) - np.asarray(xy, float)
    dist = float(np.linalg.norm(d))
    if dist <= 1e-6:
        return None, np.zeros(2)
    return math.atan2(d[1], d[0]), d / dist * min(step, dist)


def walk_turn(yaw: float, heading: float, turn_per_frame_rad: float) -> tuple[float, bool]:
    """``(new_yaw, steps)``: the heading after a walking frame that wants ``heading`` from
    ``yaw``. Within one frame's turn (``turn_per_frame_rad``) the body takes the heading and
    steps (``steps`` True); farther away it turns by the turn rate towards it and does not
    step this frame."""
    err = wrap_angle(heading - float(yaw))
    if abs(err) > turn_per_frame_rad + 1e-9:
        return wrap_angle(float(yaw) + math.copysign(turn_per_frame_rad, err)), False
    return heading, True


def step_twist(yaw: float, heading: float | None, offset, frame_dt: float, speed_factor: float = 1.0):
    """``(v, w)``: the velocity command (m/s forward, rad/s) that makes a differential body,
    which turns first and then moves along its new heading for one frame (``EmbodiedEnv.
    drive``), do the frame's :func:`walk_step` from heading ``yaw``.  ``speed_factor``: how
    much the world slows the body there (the command is scaled up so that the step stays
    the same)."""
    if heading is None:
        return 0.0, 0.0
    dist = float(np.hypot(offset[0], offset[1]))
    return dist / (frame_dt * max(speed_factor, 1e-9)), wrap_angle(heading - float(yaw)) / frame_dt


def observes_at(walk_frame: int, render_every: int) -> bool:
    """Whether the body takes a camera frame after frame ``walk_frame`` (1-based) of a
    walking action (its final turn included)."""
    return walk_frame % render_every == 0


class Walk:
    """The path state of one ``walk_to``: the waypoints ahead and when to plan again.

    ``due(frames)``: a plan is needed (none yet, the schedule says so, or a bump dropped
    the path); ``set_path(waypoints, frames)`` after planning; ``waypoint`` the next one;
    ``moved(xy, ok)`` after the frame's step (``ok`` False: the world refused it, a bump);
    ``finished``: the last waypoint was reached (a walk ends there, as a path follower does,
    even when its goal moved on meanwhile).
    """

    def __init__(self, replan_every: int = REPLAN_EVERY):
        self.replan_every = int(replan_every)
        self.path: list | None = None
        self.replan_at = 0
        self.finished = False

    def due(self, frames: int) -> bool:
        return self.path is None or frames >= self.replan_at

    def set_path(self, waypoints, frames: int) -> None:
        self.path = list(waypoints)
        self.replan_at = frames + self.replan_every
        self.finished = False

    @property
    def waypoint(self) -> np.ndarray:
        return self.path[0]

    def moved(self, xy, ok: bool) -> None:
        if not ok:
            self.path = None              # bumped: plan again from here
            return
        if np.linalg.norm(self.path[0] - np.asarray(xy, float)) < WAYPOINT_REACHED:
            self.path.pop(0)
            if not self.path:
                self.path, self.finished = None, True
