"""ROS-free control of the behaviors (spin, straight moves), as followers that
:class:`planner_node.following.GoalRunner` drives like a path follower (one command per
control period, ``stuck`` when no progress is made for ``stuck_time``).

* :class:`SpinFollower`: turn in place by an angle (any size, either way, counted from the
  headings the body reports).  On the gait (lock-step) the turn is the core's schedule
  (:func:`hazard_sim.navigation.gait.turn_headings`: ``ceil(angle / turn rate)`` frames, the
  last one exact); otherwise a rate-limited proportional turn on the angle left, done within
  ``tolerance``.
* :class:`StraightFollower`: drive a signed distance along the heading at the start, at
  most ``speed``, slowing to remove the distance left (``gain``); done within ``tolerance``.
  (On the gait a straight move is :meth:`planner_node.following.GaitFollower.set_straight`.)
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.geometry import wrap_angle
from hazard_sim.navigation import gait
from planner_node.following import Command, FollowerConfig


class _Behavior:
    """What GoalRunner asks of a follower, for a behavior that has no path."""

    replan_every = 0
    xy_reached = True            # no path to replan when the map changes
    arrival = None

    def __init__(self, cfg: FollowerConfig):
        self.cfg = cfg
        self.phase = "following"
        self._best = math.inf
        self._progress_t: float | None = None

    def set_path(self, waypoints, goal_yaw=None, t=None, keep_xy_reached: bool = False) -> None:
        pass

    def replan_due(self) -> bool:
        return False

    def remaining_path(self) -> np.ndarray:
        return np.zeros((0, 2))

    def _stalled(self, left: float, t: float, eps: float) -> bool:
        if self._progress_t is None or left < self._best - eps:
            self._best, self._progress_t = min(left, self._best), t
            return False
        return t - self._progress_t > self.cfg.stuck_time


class SpinFollower(_Behavior):
    """Turn in place by ``angle`` rad (see the module docstring)."""

    def __init__(self, cfg: FollowerConfig, angle: float, on_gait: bool, tolerance: float = math.radians(0.5)):
        super().__init__(cfg)
        self.angle, self.on_gait, self.tolerance = float(angle), bool(on_gait), float(tolerance)
        self.phase = "turning"
        self.turned = 0.0                  # rad, signed, from the reported headings
        self._last_yaw: float | None = None
        self._schedule: list[float] | None = None

    def step(self, pose, t: float) -> Command:
        c, yaw = self.cfg, float(pose[2])
        dt = c.control_period
        if self._last_yaw is not None:
            self.turned += wrap_angle(yaw - self._last_yaw)
        self._last_yaw = yaw
        left = self.angle - self.turned
        if self.on_gait:
            if self._schedule is None:
                n = gait.turn_frames(self.angle, math.degrees(c.max_angular * dt))
                self._schedule = gait.turn_headings(yaw, self.angle, n) if n else []
            if not self._schedule:
                return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
            if self._stalled(abs(left), t, math.radians(0.1)):
                return Command(0.0, 0.0, "stuck", 0.0, math.inf, f"the turn stalled with {math.degrees(left):.1f} "
                                                                 "deg left")
            return Command(0.0, wrap_angle(self._schedule.pop(0) - yaw) / dt, "turning", 0.0,
                           (len(self._schedule) + 1) * dt)
        if abs(left) <= self.tolerance:
            return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
        if self._stalled(abs(left), t, math.radians(0.5)):
            return Command(0.0, 0.0, "stuck", 0.0, math.inf, f"the turn stalled with {math.degrees(left):.1f} deg left")
        w = float(np.clip(c.gain * left / dt, -c.max_angular, c.max_angular))
        return Command(0.0, w, "turning", 0.0, abs(left) / c.max_angular)


class StraightFollower(_Behavior):
    """Drive ``distance`` m (negative: backwards) along the heading at the first step, at
    most ``speed`` m/s (see the module docstring)."""

    def __init__(self, cfg: FollowerConfig, distance: float, speed: float, tolerance: float = 0.005):
        super().__init__(cfg)
        self.distance, self.tolerance = float(distance), float(tolerance)
        self.speed = min(abs(float(speed)), cfg.max_linear)
        self._start: tuple[np.ndarray, np.ndarray] | None = None
        self.travelled = 0.0

    def step(self, pose, t: float) -> Command:
        c = self.cfg
        xy = np.array([float(pose[0]), float(pose[1])])
        if self._start is None:
            self._start = (xy, np.array([math.cos(pose[2]), math.sin(pose[2])]))
        sign = 1.0 if self.distance >= 0 else -1.0
        self.travelled = float(np.dot(xy - self._start[0], self._start[1])) * sign
        left = abs(self.distance) - self.travelled
        if left <= self.tolerance:
            return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
        if self._stalled(left, t, 0.002):
            return Command(0.0, 0.0, "stuck", left, math.inf,
                           f"blocked at ({xy[0]:.2f}, {xy[1]:.2f}) with {left:.2f} m left")
        v = min(self.speed, c.gain * left / c.control_period)
        return Command(sign * v, 0.0, "following", left, left / max(self.speed, 1e-9))





class WaitFollower(_Behavior):
    """Stand still (zero commands) for ``seconds`` of the controller's time (sim time in
    lock-step, where every period steps the simulator)."""

    def __init__(self, cfg: FollowerConfig, seconds: float):
        super().__init__(cfg)
        self.seconds = float(seconds)
        self._t0: float | None = None
        self.left = self.seconds

    def step(self, pose, t: float) -> Command:
        if self._t0 is None:
            self._t0 = t
        self.left = self.seconds - (t - self._t0)
        if self.left <= 1e-9:
            return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
        return Command(0.0, 0.0, "waiting", 0.0, self.left)
class TeleopFollower(_Behavior):
    """Assisted teleoperation: each period the operator's latest command ``source() -> (v, w)``,
    its forward speed scaled by ``scale(pose, v) -> factor`` (0..1: how much of it is safe; a
    collision check ahead), until ``done()`` (the operator preempts it)."""

    def __init__(self, cfg: FollowerConfig, source, done, scale=lambda pose, v: 1.0):
        super().__init__(cfg)
        self.source, self.done, self.scale = source, done, scale

    def step(self, pose, t: float) -> Command:
        if self.done():
            return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
        v, w = self.source()
        v = float(np.clip(v, -self.cfg.max_linear, self.cfg.max_linear))
        w = float(np.clip(w, -self.cfg.max_angular, self.cfg.max_angular))
        if v != 0.0:
            v *= float(np.clip(self.scale(pose, v), 0.0, 1.0))
        return Command(v, w, "following", 0.0, math.inf)


__all__ = ["SpinFollower", "StraightFollower", "TeleopFollower", "WaitFollower"]
