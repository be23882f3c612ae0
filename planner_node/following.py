"""ROS-free path following and the control of one navigation goal.

:class:`PathFollower` turns in place when the path bends away by more than a threshold,
otherwise tracks the path with pure pursuit, and at the end turns in place to the goal
yaw. Its limits default to the HAZARD humanoid's (``HumanoidSpec``: per 0.1 s frame
0.01 m and 3 degrees). It works in any time base (the node feeds it sim time), reports
its distance and time remaining, and flags a robot that makes no progress ("stuck").
:class:`GoalRunner` puts a planner and a follower together for one goal, with the
recovery policy and the time limit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.core.frames import FRAME_DT
from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.geometry import wrap_angle
from hazard_sim.navigation import gait
from planner_node.navigation import ErrorCode, GridPlanner, NavigationError, Plan, _fmt

# ============================================================================ following

_BODY = HumanoidSpec()
#: the humanoid's speed limits (``HumanoidSpec``: metres and degrees per 0.1 s frame)
HUMANOID_MAX_LINEAR = _BODY.walk_per_frame / FRAME_DT                     # m/s
HUMANOID_MAX_ANGULAR = math.radians(_BODY.turn_per_frame_deg) / FRAME_DT  # rad/s


@dataclass(frozen=True)
class FollowerConfig:
    """Limits and tolerances; the speed limits default to the HAZARD humanoid's
    (``HumanoidSpec``: 0.01 m and 3 degrees per 0.1 s frame = 0.1 m/s, 30 deg/s)."""

    max_linear: float = HUMANOID_MAX_LINEAR          # m/s
    max_angular: float = HUMANOID_MAX_ANGULAR        # rad/s
    control_period: float = FRAME_DT                 # s between commands
    # share of the remaining heading / distance error removed per command near a stop:
    # 1.0 (dead-beat) is exact when each command acts for exactly one period (lock-step);
    # below 1 tolerates commands that act late or twice (free-run)
    gain: float = 1.0
    xy_tolerance: float = 0.25                       # m
    yaw_tolerance: float = math.radians(10.0)        # rad
    fine_xy: float = 0.03                            # m: done at once when this close
    fine_yaw: float = math.radians(0.5)
    settle_cycles: int = 3                           # cycles inside the tolerance without progress
    settle_progress: float = 0.004                   # m per cycle that counts as closing in (under half a
                                                     # humanoid step of 0.01 m)
    lookahead: float = 0.5                           # m (pure pursuit)
    turn_in_place: float = math.radians(30.0)        # heading error that stops the robot to turn
    corner_stop: float = math.radians(20.0)          # path bends sharper than this: stop and turn
    corner_tolerance: float = 0.08                   # m: a sharp corner counts as passed
    stuck_time: float = 3.0                          # s without progress -> stuck
    progress_xy: float = 0.05                        # m of path progress that counts
    progress_yaw: float = math.radians(3.0)


@dataclass
class Command:
    """One control step: velocities, the follower's state and what is left."""

    v: float
    w: float
    status: str                  # following | turning | final_turn | succeeded | stuck
    distance_remaining: float
    time_remaining: float
    message: str = ""


class PathFollower:
    """Turn-then-go path tracking with pure pursuit; see :class:`FollowerConfig`."""

    def __init__(self, config: FollowerConfig = FollowerConfig()):
        self.cfg = config
        self.path = np.zeros((0, 2))
        self.goal_yaw: float | None = None
        self._cum = np.zeros(1)
        self._sharp = np.zeros(0, bool)
        self._seg = 0
        self.xy_reached = False
        self._in_tol = 0
        self._yaw_in_tol = 0
        self._last_to_goal = self._last_yaw_err = math.inf
        self._best = (math.inf, math.inf)
        self._progress_t = None
        self._phase = ""

    def set_path(self, waypoints, goal_yaw: float | None = None, t: float | None = None,
                 keep_xy_reached: bool = False) -> None:
        """Follow a new path (N >= 1 points; the last is the goal), then turn to ``goal_yaw``
        (None: no final turn)."""
        w = np.asarray(waypoints, float).reshape(-1, 2)
        if len(w) == 0:
            raise ValueError("a path needs at least one point")
        if len(w) == 1:
            w = np.vstack([w, w])
        self.path = w
        self.goal_yaw = None if goal_yaw is None else wrap_angle(float(goal_yaw))
        seg = np.linalg.norm(np.diff(w, axis=0), axis=1)
        self._cum = np.concatenate([[0.0], np.cumsum(seg)])
        # vertices where the path bends by more than the turn-in-place threshold
        self._sharp = np.zeros(len(w), bool)
        for k in range(1, len(w) - 1):
            a, b = w[k] - w[k - 1], w[k + 1] - w[k]
            if np.linalg.norm(a) > 1e-9 and np.linalg.norm(b) > 1e-9:
                turn = abs(wrap_angle(math.atan2(b[1], b[0]) - math.atan2(a[1], a[0])))
                self._sharp[k] = turn > self.cfg.corner_stop
        self._seg = 0
        self.xy_reached = self.xy_reached and keep_xy_reached
        self._in_tol = self._yaw_in_tol = 0
        self._last_to_goal = self._last_yaw_err = math.inf
        self.reset_progress(t)

    def reset_progress(self, t: float | None = None) -> None:
        """Restart stuck detection (after a new path or a recovery)."""
        self._best = (math.inf, math.inf)
        self._progress_t = t
        self._phase = ""

    @property
    def goal(self) -> np.ndarray:
        return self.path[-1]

    @property
    def phase(self) -> str:
        """turning | following | final_turn ('' before the first step)."""
        return self._phase

    def remaining_path(self) -> np.ndarray:
        """The waypoints still ahead (after the current segment's start)."""
        return self.path[self._seg + 1:]

    # ------------------------------------------------------------ geometry
    def _project(self, xy: np.ndarray) -> tuple[int, float]:
        """Closest point of the path ahead (segments seg .. seg+2): (segment, arc length)."""
        best = (self._seg, self._cum[self._seg], math.inf)
        for k in range(self._seg, min(self._seg + 3, len(self.path) - 1)):
            a, b = self.path[k], self.path[k + 1]
            ab = b - a
            L2 = float(ab @ ab)
            u = 0.0 if L2 < 1e-12 else float(np.clip((xy - a) @ ab / L2, 0.0, 1.0))
            d = float(np.linalg.norm(a + u * ab - xy))
            if d < best[2] - 1e-9:
                best = (k, self._cum[k] + u * math.sqrt(L2), d)
        return best[0], best[1]

    def _point_at(self, s: float) -> np.ndarray:
        s = min(max(s, 0.0), self._cum[-1])
        k = int(np.clip(np.searchsorted(self._cum, s, side="right") - 1, 0, len(self.path) - 2))
        L = self._cum[k + 1] - self._cum[k]
        u = 0.0 if L < 1e-12 else (s - self._cum[k]) / L
        return self.path[k] + u * (self.path[k + 1] - self.path[k])

    # ------------------------------------------------------------ control
    def step(self, pose, t: float) -> Command:
        """The command for the robot at ``pose`` (x, y, yaw) at time ``t`` (s)."""
        c = self.cfg
        x, y, yaw = float(pose[0]), float(pose[1]), float(pose[2])
        xy = np.array([x, y])
        if self._progress_t is None:
            self._progress_t = t
        dt = c.control_period
        to_goal = float(np.linalg.norm(self.goal - xy))

        if not self.xy_reached:
            # done when (nearly) there, or inside the tolerance and no longer closing in
            if to_goal <= c.fine_xy:
                self.xy_reached = True
            elif to_goal <= c.xy_tolerance:
                closing = to_goal < self._last_to_goal - c.settle_progress
                self._in_tol = 0 if closing else self._in_tol + 1
                if self._in_tol >= c.settle_cycles:
                    self.xy_reached = True
            else:
                self._in_tol = 0
            self._last_to_goal = to_goal

        if self.xy_reached:
            if self.goal_yaw is None:
                return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
            err = wrap_angle(self.goal_yaw - yaw)
            if abs(err) <= c.fine_yaw:
                return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
            if abs(err) <= c.yaw_tolerance:
                closing = abs(err) < self._last_yaw_err - math.radians(0.5)
                self._yaw_in_tol = 0 if closing else self._yaw_in_tol + 1
                if self._yaw_in_tol >= c.settle_cycles:
                    return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
            self._last_yaw_err = abs(err)
            if self._stalled("final_turn", math.inf, abs(err), t):
                return self._stuck(xy, to_goal, err)
            w = float(np.clip(c.gain * err / dt, -c.max_angular, c.max_angular))
            return Command(0.0, w, "final_turn", 0.0, abs(err) / c.max_angular)

        # follow the path; stop at sharp corners (turn in place there) so that the robot
        # never cuts a corner of a door frame
        n = len(self.path)
        k = self._seg + 1
        while k < n - 1 and self._sharp[k] and np.linalg.norm(self.path[k] - xy) <= c.corner_tolerance:
            self._seg = k           # standing on a sharp corner: the next segment begins
            k += 1
        self._seg, s = self._project(xy)
        remaining = max(float(self._cum[-1] - s), 0.0)
        remaining = max(remaining, to_goal) if remaining < c.lookahead else remaining
        stop = n - 1                               # the next point to stop at
        for k in range(self._seg + 1, n - 1):
            if self._cum[k] > s + c.lookahead:
                break
            if self._sharp[k]:
                stop = k
                break
        to_stop = float(self._cum[stop] - s)
        if stop == n - 1:
            to_stop = max(to_stop, to_goal)
        stopping = to_stop <= c.lookahead
        target = self.path[stop] if stopping else self._point_at(s + c.lookahead)
        d = target - xy
        ld = float(np.linalg.norm(d))
        alpha = wrap_angle(math.atan2(d[1], d[0]) - yaw) if ld > 1e-9 else 0.0
        final_err = 0.0 if self.goal_yaw is None else abs(wrap_angle(self.goal_yaw - yaw))
        eta = remaining / c.max_linear + (abs(alpha) + final_err) / c.max_angular
        phase = "turning" if abs(alpha) > c.turn_in_place else "following"
        if self._stalled(phase, remaining, abs(alpha), t):
            return self._stuck(xy, remaining, alpha)
        if phase == "turning":
            # turn in place; the body turns before it steps, so it may already step in the
            # frame that ends the turn when the heading left after the turn is small
            w = float(np.clip(c.gain * alpha / dt, -c.max_angular, c.max_angular))
            left = alpha - w * dt
            v = 0.0
            if abs(left) <= math.radians(1.0):
                v = min(c.max_linear, (c.gain * ld if stopping else c.max_linear * dt) / dt) * math.cos(left)
            return Command(float(v), w, "turning", remaining, eta)
        if stopping:       # aim straight at the stop point and arrive there in one frame
            w = float(np.clip(c.gain * alpha / dt, -c.max_angular, c.max_angular)) \
                if abs(alpha) > math.radians(0.5) else 0.0
            v = min(c.max_linear, c.gain * ld / dt) * max(math.cos(alpha - w * dt), 0.0)
            return Command(float(v), w, "following", remaining, eta)
        # pure pursuit: curvature 2 sin(alpha) / ld; limit the turn rate, keeping the arc
        v = c.max_linear * max(math.cos(alpha), 0.0)
        w = v * 2.0 * math.sin(alpha) / max(ld, 1e-6)
        if abs(w) > c.max_angular:
            scale = c.max_angular / abs(w)
            w, v = w * scale, v * scale
        return Command(float(v), float(w), "following", remaining, eta)

    def _stalled(self, phase: str, remaining: float, angle: float, t: float) -> bool:
        """No progress (path distance or heading) for ``stuck_time``.  Progress is measured
        against the best values since the phase (turning / following / final turn) began."""
        c = self.cfg
        if phase != self._phase:
            self._phase, self._best, self._progress_t = phase, (math.inf, math.inf), t
        best_d, best_a = self._best
        if remaining < best_d - c.progress_xy or angle < best_a - c.progress_yaw:
            self._best = (min(remaining, best_d), min(angle, best_a))
            self._progress_t = t
            return False
        return t - self._progress_t > c.stuck_time

    def _stuck(self, xy, remaining, err) -> Command:
        return Command(0.0, 0.0, "stuck", remaining, math.inf,
                       f"no progress for {self.cfg.stuck_time:.1f} s at {_fmt(xy)} "
                       f"({remaining:.2f} m left)")


# ============================================================================ the gait

class GaitFollower(PathFollower):
    """Path following with the core's walking gait (:mod:`hazard_sim.navigation.gait`), for
    lock-step runs that must match embedded ones frame for frame.

    Every control period (one frame) the body heads straight for the next waypoint and
    steps ``min(max_linear * period, distance)`` towards it (:func:`gait.walk_step`,
    commanded with :func:`gait.step_twist`); a waypoint closer than
    ``gait.WAYPOINT_REACHED`` is passed; at the goal the body turns in place to the goal
    yaw on the gait's schedule (:func:`gait.turn_headings`: ``ceil(angle / turn rate)``
    frames, the last one exact).  A step the world refused (the body did not move) is a
    bump: the follower reports ``stuck`` at once, and :class:`GoalRunner` marks the cells
    ahead and replans, as the embedded walk replans after a bump.  ``replan_every``
    (frames) asks the runner for a new plan on that schedule (the embedded walk replans
    every ``gait.REPLAN_EVERY`` frames).

    A bend sharper than one frame's turn (``max_angular * period``) is turned in place at
    that rate (``turning``) and then walked: :func:`gait.walk_turn`, the law the embedded
    walk obeys too.
    """

    def __init__(self, config: FollowerConfig = FollowerConfig(), replan_every: int = gait.REPLAN_EVERY):
        super().__init__(config)
        self.replan_every = int(replan_every)
        self._frames = 0
        self._turn: list[float] | None = None
        self._last: tuple[np.ndarray, float] | None = None     # pose and v of the last command
        self.arrival: tuple[np.ndarray, float, float, float] | None = None
        self.arrived_t: float | None = None
        self._straight: list[float] | None = None      # move_by: the steps left (set_straight)
        self._straight_sign = 1.0

    def set_arrival(self, target_xy, target_radius: float, body_radius: float, gap: float) -> None:
        """``walk_to``'s arrival (:func:`gait.arrival_gap`): the walk also ends as soon as the
        gap between the body and the object's circle is at most ``gap``, checked before each
        walking frame; the final turn then faces ``target_xy`` from where the body stands
        (also when the path ends first).  Kept across replans of the goal (``set_path``)."""
        self.arrival = (np.asarray(target_xy, float)[:2].copy(), float(target_radius), float(body_radius),
                        float(gap))
        self.arrived_t = None

    def set_straight(self, distance: float, speed: float | None = None) -> None:
        """A straight walk as the embedded body walks HAZARD's ``move_by``: ``ceil(distance /
        step)`` frames straight along the heading at the start (the last step what is left;
        a step is ``min(speed, max_linear)`` for one control period), whatever the path's end:
        a body that slides along an obstacle keeps its heading; a step that does not move the
        body at all is a bump (``stuck``)."""
        vmax = self.cfg.max_linear if speed is None else min(abs(float(speed)), self.cfg.max_linear)
        step = vmax * self.cfg.control_period
        n = int(math.ceil(abs(distance) / step - 1e-9))
        self._straight = [min(step, abs(distance) - k * step) for k in range(n)]
        self._straight_sign = 1.0 if distance >= 0 else -1.0        # backwards for a negative distance

    def check_arrival(self, pose, t: float) -> bool:
        """Whether the body has arrived (:meth:`set_arrival`); on arrival the walk ends."""
        if self.arrival is not None and not self.xy_reached:
            target, r, body_r, gap = self.arrival
            x, y = float(pose[0]), float(pose[1])
            if gait.arrival_gap((x, y), body_r, target, r) <= gap:
                self.xy_reached, self.arrived_t = True, t
                self.goal_yaw = self.arrival_yaw = math.atan2(target[1] - y, target[0] - x)
        return self.arrived_t is not None

    def set_path(self, waypoints, goal_yaw=None, t=None, keep_xy_reached: bool = False) -> None:
        super().set_path(waypoints, goal_yaw, t, keep_xy_reached)
        self._frames = 0
        self._turn = None
        if self.arrival is not None and self.arrived_t is not None:
            self.xy_reached = True            # arrived: a replan does not walk on ...
            self.goal_yaw = self.arrival_yaw  # ... and the final turn still faces the object

    def replan_due(self) -> bool:
        return self.replan_every > 0 and self._frames >= self.replan_every and not self.xy_reached

    def remaining_path(self) -> np.ndarray:
        return self.path[self._seg + 1:]

    def step(self, pose, t: float) -> Command:
        c = self.cfg
        x, y, yaw = float(pose[0]), float(pose[1]), float(pose[2])
        xy = np.array([x, y])
        dt = c.control_period
        bumped = self._last is not None and self._last[1] != 0 and \
            float(np.linalg.norm(self._last[0] - xy)) < 1e-9
        self._last = None
        if self._straight is not None:
            if bumped:
                return Command(0.0, 0.0, "stuck", sum(self._straight), math.inf, f"bumped at {_fmt(xy)}")
            if not self._straight:
                self.xy_reached = True
                return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
            step = self._straight.pop(0)
            self._frames += 1
            self._phase = "following"
            v = math.copysign(step / dt, self._straight_sign)
            self._last = (xy, v)
            return Command(v, 0.0, "following", sum(self._straight) + step,
                           (len(self._straight) + 1) * dt)
        self.check_arrival(pose, t)
        if not self.xy_reached:
            while self._seg < len(self.path) - 1 and \
                    float(np.linalg.norm(self.path[self._seg + 1] - xy)) < gait.WAYPOINT_REACHED:
                self._seg += 1
            if self._seg >= len(self.path) - 1:
                self.xy_reached = True
                if self.arrival is not None:        # walk_to's path ended short of the ring: face the object
                    target = self.arrival[0]
                    self.goal_yaw = math.atan2(target[1] - y, target[0] - x)
        if self.xy_reached:
            if self.goal_yaw is None:
                return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
            if self._turn is None:
                err = wrap_angle(self.goal_yaw - yaw)
                n = gait.turn_frames(err, math.degrees(c.max_angular * dt))
                self._turn = gait.turn_headings(yaw, err, n)
            if not self._turn:
                return Command(0.0, 0.0, "succeeded", 0.0, 0.0)
            self._phase = "final_turn"
            w = wrap_angle(self._turn.pop(0) - yaw) / dt
            return Command(0.0, w, "final_turn", 0.0, (len(self._turn) + 1) * dt)
        # distance left along the path: to the next waypoint, then the rest of the path
        remaining = float(np.linalg.norm(self.path[self._seg + 1] - xy) + self._cum[-1] - self._cum[self._seg + 1])
        if bumped:
            return Command(0.0, 0.0, "stuck", remaining, math.inf,
                           f"bumped at {_fmt(xy)} ({remaining:.2f} m left)")
        heading, offset = gait.walk_step(xy, self.path[self._seg + 1], c.max_linear * dt)
        self._frames += 1
        eta = remaining / c.max_linear
        if heading is None:
            return Command(0.0, 0.0, "following", remaining, eta)
        new_yaw, steps = gait.walk_turn(yaw, heading, c.max_angular * dt)
        if not steps:
            self._phase = "turning"
            return Command(0.0, wrap_angle(new_yaw - yaw) / dt, "turning", remaining, eta)
        self._phase = "following"
        v, w = gait.step_twist(yaw, heading, offset, dt)
        self._last = (xy, v)
        return Command(float(v), float(w), "following", remaining, eta)


# ============================================================================ one goal

class GoalRunner:
    """The control of one navigation goal, ROS-free: plan, follow the path, replan when a
    new map blocks what is left of it, and recover when stuck.

    Recovery policy: when the follower reports ``stuck``, count a recovery; past
    ``max_recoveries`` the goal fails with FAILED_TO_MAKE_PROGRESS; while walking (not
    turning) mark a row of cells across the body's width just ahead as bumped (something
    the map does not show is there), then replan from where the body is.  ``max_time`` (s,
    0: none) fails the goal with TIMEOUT, checked before each command (in lock-step that is
    exactly ``max_time / control_period`` commands).  ``plan_fn(pose, goal_xy)`` plans (a
    node also publishes the plan there); ``log(text)`` reports recoveries."""

    def __init__(self, planner: GridPlanner, plan_fn, follower_config: FollowerConfig = FollowerConfig(),
                 robot_radius: float = 0.25, max_recoveries: int = 3, max_time: float = 0.0,
                 log=lambda text: None, follower: PathFollower | None = None):
        self.planner, self.plan_fn, self.log = planner, plan_fn, log
        self.follower = follower if follower is not None else PathFollower(follower_config)
        self.robot_radius, self.max_recoveries, self.max_time = robot_radius, max_recoveries, max_time
        self.recoveries = 0
        self.t0 = 0.0
        #: mark the cells ahead after a bump (False: a touch sensor reports them to the planner)
        self.bump_ahead = True

    def start(self, pose, goal_xy, goal_yaw, t: float) -> Plan:
        """Plan from ``pose`` and start following; bumps are remembered for one goal."""
        self.goal_xy, self.goal_yaw, self.t0 = np.asarray(goal_xy, float), goal_yaw, t
        self.planner.clear_bumps()
        if getattr(self.follower, "check_arrival", lambda pose, t: False)(pose, t):
            # already there (walk_to's arrival): no path, only the turn to face the object
            here = np.asarray(pose[:2], float)
            plan = Plan(np.vstack([here, here]), here, False, 0.0, [], 0.0)
        else:
            plan = self.plan_fn(pose, self.goal_xy)
        self.follower.set_path(plan.waypoints, goal_yaw, t)
        return plan

    def step(self, pose, t: float, map_changed: bool = False) -> Command:
        """The command for this control period (raises NavigationError when the goal fails)."""
        f = self.follower
        arrived = getattr(f, "check_arrival", lambda pose, t: False)(pose, t)   # before any replanning
        if getattr(f, "replan_due", lambda: False)():          # the gait's replanning schedule
            f.set_path(self.plan_fn(pose, self.goal_xy).waypoints, self.goal_yaw, t)
        elif map_changed and not f.xy_reached and not hasattr(f, "replan_due"):
            # (the gait replans on its schedule only, as the embedded walk does)
            ahead = np.vstack([pose[:2], f.remaining_path()])
            if not self.planner.path_clear(ahead, pose[:2]):
                f.set_path(self.plan_fn(pose, self.goal_xy).waypoints, self.goal_yaw, t)
        cmd = f.step(pose, t)
        if cmd.status == "stuck":
            cmd = self._recover(pose, t, cmd)
        # an arrival in time turns to face the object after the limit, as the embedded walk_to does
        in_time = arrived and f.arrived_t - self.t0 < self.max_time - 1e-6
        if cmd.status != "succeeded" and not in_time and self.max_time > 0 and \
                t - self.t0 >= self.max_time - 1e-6:
            raise NavigationError(ErrorCode.TIMEOUT, f"not at the goal after {self.max_time:g} s "
                                                     f"({cmd.distance_remaining:.2f} m left)")
        return cmd

    def _recover(self, pose, t: float, cmd: Command) -> Command:
        self.recoveries += 1
        if self.recoveries > self.max_recoveries:
            raise NavigationError(ErrorCode.FAILED_TO_MAKE_PROGRESS,
                                  f"stuck: {cmd.message}; gave up after {self.max_recoveries} recoveries")
        if self.follower.phase == "following" and self.bump_ahead:
            # walking, yet not moving: something the map does not show is ahead
            fwd = np.array([math.cos(pose[2]), math.sin(pose[2])])
            side = np.array([-fwd[1], fwd[0]])
            for off in np.linspace(-self.robot_radius, self.robot_radius, 5):
                self.planner.add_bump(pose[:2] + (self.robot_radius + 0.05) * fwd + off * side)
        self.log(f"{cmd.message}: replanning (recovery {self.recoveries})")
        plan = self.plan_fn(pose, self.goal_xy)
        self.follower.set_path(plan.waypoints, self.goal_yaw, t, keep_xy_reached=True)
        return self.follower.step(pose, t)
