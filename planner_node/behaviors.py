"""The behavior server of the navigation node: ``spin``, ``backup``, ``drive_on_heading``,
``wait`` and ``assisted_teleop`` (nav2_msgs/action/Spin, BackUp, DriveOnHeading, Wait,
AssistedTeleop) with Nav2's semantics, each a goal of
:class:`planner_node.nav_goal.GoalExecution` (lock-step or free-run) with its own control
(:mod:`planner_node.behavior_control`).

* ``drive_on_heading``: ``target.x`` metres along the heading at the start at ``|speed|`` (at
  most the body's ``max_linear_speed``); ``backup``: the same backwards (Nav2 drives it
  backwards whatever the sign).  ``target.y`` / ``target.z`` other than 0, a speed of 0, or
  (drive_on_heading) signs of distance and speed that differ: ``INVALID_INPUT``.  Unless
  ``disable_collision_checks``, before each command the segment the body covers within
  ``simulate_ahead_time`` (s, 2.0; at most what is left) must stay off inscribed cells of
  the local costmap: else ``COLLISION_AHEAD``; a step the world refuses (a bump: no
  progress) ends the move with ``COLLISION_AHEAD`` too.  Feedback ``distance_traveled``.
* ``spin``: turn in place by ``target_yaw`` rad (any size; the sign gives the direction).
  The body is round: turning in place sweeps no new cell, so there is nothing to check
  ahead.  Feedback ``angular_distance_traveled``.
* ``wait``: stand still for ``time`` (sim time in lock-step, where it steps the simulator).
  Feedback ``time_left``.
* ``assisted_teleop``: drive with the operator's ``cmd_vel_teleop`` (geometry_msgs/Twist:
  linear.x, angular.z, at most the body's limits), the forward speed cut to the largest share
  (1, 3/4, 1/2, 1/4, 0) whose ``simulate_ahead_time`` of motion stays off obstacles, until
  ``preempt_teleop`` (std_msgs/Empty: SUCCEEDED), a cancel, or ``time_allowance`` (TIMEOUT).
  Feedback ``current_teleop_duration``.
* ``time_allowance`` > 0: ``TIMEOUT`` when a behavior runs longer; 0: no limit.
* results carry ``total_elapsed_time``.

On the gait (lock-step) a straight move is the core's walk
(:meth:`planner_node.following.GaitFollower.set_straight`: ``ceil(distance / step)`` frames,
the last step what is left) and a spin the core's turn schedule: a rescue client's ``move_by`` is a
``drive_on_heading`` with collision checks disabled.
"""
from __future__ import annotations

import math

import numpy as np
from geometry_msgs.msg import Twist
from nav2_msgs.action import AssistedTeleop, BackUp, DriveOnHeading, Spin, Wait
from std_msgs.msg import Empty

from planner_node.behavior_control import SpinFollower, StraightFollower, TeleopFollower, WaitFollower
from planner_node.following import GaitFollower
from planner_node.nav_convert import duration_msg, seconds
from planner_node.nav_goal import GoalSpec
from planner_node.nav_lifecycle import gated_action_server
from planner_node.navigation import ErrorCode, NavigationError

NAMES = {Spin: "spin", BackUp: "backup", DriveOnHeading: "drive_on_heading", Wait: "wait",
         AssistedTeleop: "assisted_teleop"}


def behavior_codes(action):
    """The behavior's result code for a NavigationError code (each behavior has its own numbers)."""
    r = action.Result

    def code(c: ErrorCode) -> int:
        for names, ours in ((("COLLISION_AHEAD",), (ErrorCode.COLLISION_AHEAD, ErrorCode.FAILED_TO_MAKE_PROGRESS)),
                            (("INVALID_INPUT",), (ErrorCode.INVALID_INPUT,)),
                            (("TIMEOUT",), (ErrorCode.TIMEOUT,)), (("TF_ERROR",), (ErrorCode.TF_ERROR,))):
            if c in ours and hasattr(r, names[0]):
                return int(getattr(r, names[0]))
        return int(r.UNKNOWN)
    return code


class BehaviorServer:
    """The behaviors on the navigation ``node`` (see the module docstring)."""

    def __init__(self, node):
        self.node = node
        self.simulate_ahead = float(node.declare_parameter("simulate_ahead_time", 2.0).value)
        self.servers = [
            gated_action_server(node, action, name, lambda gh, a=action: self._execute(gh, a), "behavior_server")
            for action, name in NAMES.items()]
        self._teleop = (0.0, 0.0)
        self._preempt = False
        node.create_subscription(Twist, "cmd_vel_teleop", self._on_teleop, 10, callback_group=node._sub_group)
        node.create_subscription(Empty, "preempt_teleop", self._on_preempt, 10, callback_group=node._sub_group)

    def _on_teleop(self, msg: Twist) -> None:
        self._teleop = (float(msg.linear.x), float(msg.angular.z))

    def _on_preempt(self, msg) -> None:
        self._preempt = True

    def _execute(self, gh, action):
        node, req = self.node, gh.request
        state = {"elapsed": 0.0, "follower": None, "start": None}

        def spec() -> GoalSpec:
            pose, _ = node._robot_pose()
            state["start"] = pose
            if action is AssistedTeleop:
                self._preempt, self._teleop = False, (0.0, 0.0)
                make = lambda on_gait: TeleopFollower(node.follower_config, lambda: self._teleop,  # noqa: E731
                                                      lambda: self._preempt, self._safe_fraction)
                goal = GoalSpec(pose[:2].copy(), None, follower=make)
            elif action is Wait:
                make = lambda on_gait: WaitFollower(node.follower_config, seconds(req.time))  # noqa: E731
                goal = GoalSpec(pose[:2].copy(), float(pose[2]), follower=make, max_time=0.0)
            elif action is Spin:
                angle = float(req.target_yaw)
                if not math.isfinite(angle):
                    raise NavigationError(ErrorCode.INVALID_INPUT, f"target_yaw {angle} is not finite")
                make = lambda on_gait: SpinFollower(node.follower_config, angle, on_gait)  # noqa: E731
                goal = GoalSpec(pose[:2].copy(), float(pose[2]) + angle, follower=make, label=f"spin {angle:.2f} rad")
            else:
                goal = self._straight_spec(action, req, pose)
            if action is not Wait:
                allowance = seconds(req.time_allowance)
                goal.max_time = allowance if allowance > 0 else 0.0
            goal.codes = behavior_codes(action)
            if goal.label == "goal":
                goal.label = NAMES[action]
            inner = goal.follower
            goal.follower = lambda on_gait: state.__setitem__("follower", inner(on_gait)) or state["follower"]
            return goal

        def feedback(gh, pose, stamp, elapsed, cmd, recoveries):
            state["elapsed"] = elapsed
            fb, f = action.Feedback(), state["follower"]
            if action is AssistedTeleop:
                fb.current_teleop_duration = duration_msg(elapsed)
            elif action is Spin:
                fb.angular_distance_traveled = float(abs(f.turned))
            elif action is Wait:
                fb.time_left = duration_msg(f.left)
            else:
                fb.distance_traveled = float(np.linalg.norm(pose[:2] - state["start"][:2]))
            gh.publish_feedback(fb)

        result = node.run_goal(gh, spec, feedback, action.Result(), codes=behavior_codes(action))
        result.total_elapsed_time = duration_msg(state["elapsed"])
        return result

    def _straight_spec(self, action, req, pose) -> GoalSpec:
        node = self.node
        distance, speed = float(req.target.x), float(req.speed)
        if action is BackUp:            # Nav2's backup drives backwards whatever the sign
            distance, speed = -abs(distance), -abs(speed)
        if req.target.y != 0.0 or req.target.z != 0.0:
            raise NavigationError(ErrorCode.INVALID_INPUT, "only target.x is driven (target.y and target.z must be 0)")
        if not (math.isfinite(distance) and math.isfinite(speed)):
            raise NavigationError(ErrorCode.INVALID_INPUT, f"speed {speed:g} and distance {distance:g} must be "
                                                           "finite numbers")
        if speed == 0.0 or distance == 0.0 or (distance > 0) != (speed > 0):
            raise NavigationError(ErrorCode.INVALID_INPUT, f"speed {speed:g} and distance {distance:g} must be "
                                                           "non-zero with the same sign")

        def make(on_gait: bool):
            if on_gait:
                f = GaitFollower(node.follower_config, replan_every=0)
                f.set_straight(distance, speed)
                return f
            return StraightFollower(node.follower_config, distance, speed)
        heading = np.array([math.cos(pose[2]), math.sin(pose[2])])
        goal = GoalSpec(pose[:2] + distance * heading, float(pose[2]), follower=make,
                        label=f"{NAMES[action]} {distance:.2f} m")
        if not req.disable_collision_checks and node.body_kind == "ground":   # (a flying body: no ground map)
            goal.check = lambda pose, cmd: self._check_ahead(pose, cmd, distance, speed)
        return goal

    def _check_ahead(self, pose, cmd, distance: float, speed: float) -> None:
        """COLLISION_AHEAD when the body, moving on by what it covers in
        ``simulate_ahead_time`` (at most what is left of the move), would touch an obstacle."""
        ahead = min(abs(speed) * self.simulate_ahead, float(cmd.distance_remaining))
        sign = 1.0 if distance >= 0 else -1.0
        if ahead > 0 and self._blocked_ahead(pose, sign, ahead):
            raise NavigationError(ErrorCode.COLLISION_AHEAD,
                                  f"collision ahead: an obstacle within {ahead:.2f} m "
                                  f"{'ahead of' if sign > 0 else 'behind'} ({pose[0]:.2f}, {pose[1]:.2f})")

    def _blocked_ahead(self, pose, sign: float, ahead: float) -> bool:
        """Whether the body's front edge (the centre line and two lines at 0.7 of its radius
        to the sides, one radius further), moving ``ahead`` m (backwards for ``sign`` < 0),
        meets a lethal cell of the local costmap (a flying body: never)."""
        node = self.node
        if node.body_kind != "ground":
            return False
        u = sign * np.array([math.cos(pose[2]), math.sin(pose[2])])
        side = np.array([-u[1], u[0]])
        r = node.robot_radius
        res = node._map.resolution if node._map is not None else 0.05
        pts = []
        for off, reach in ((0.0, r), (0.7 * r, 0.7 * r), (-0.7 * r, 0.7 * r)):
            d = np.linspace(0.0, ahead, max(2, int(math.ceil(ahead / (res / 2))))) + reach
            pts.append(pose[:2] + off * side + np.outer(d, u))
        return node.costmaps.path_blocked("local_costmap", np.vstack(pts))

    def _safe_fraction(self, pose, v: float) -> float:
        """Assisted teleop: the largest share (1, 3/4, 1/2, 1/4, 0) of the operator's speed
        whose ``simulate_ahead_time`` of motion stays off obstacles."""
        for share in (1.0, 0.75, 0.5, 0.25):
            if not self._blocked_ahead(pose, 1.0 if v > 0 else -1.0, abs(v) * share * self.simulate_ahead):
                return share
        return 0.0


__all__ = ["BehaviorServer", "behavior_codes"]
