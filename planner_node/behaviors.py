"""The behavior server's straight moves on the navigation node: ``drive_on_heading`` and
``backup`` (``nav2_msgs/action/DriveOnHeading``, ``BackUp``) with upstream semantics.

A goal drives ``target.x`` metres along the heading the robot has when the goal starts
(backwards for a negative distance) at ``|speed|`` (at most the body's ``max_linear_speed``),
no planning, through :class:`planner_node.nav_goal.GoalExecution` (lock-step or free-run).
Like Nav2's behaviors:

* ``target.y`` / ``target.z`` other than 0, a speed of 0, or signs of ``target.x`` and
  ``speed`` that differ end the goal with ``INVALID_INPUT`` (BackUp: a positive distance
  is driven backwards, as Nav2 does);
* ``time_allowance`` (> 0) ends it with ``TIMEOUT`` when it runs longer (0: no limit);
* unless ``disable_collision_checks``, before each command the straight segment the body
  will cover within ``simulate_ahead_time`` (s, parameter, 2.0), at most what is left, must be
  free on the costmap (obstacles grown by the robot radius): else ``COLLISION_AHEAD``;
* a step the world refuses (the body did not move: a bump) ends it with ``COLLISION_AHEAD``
  too, with the place in the message;
* feedback: ``distance_traveled`` from the start.

With the gait follower (lock-step) the walk is the core's: ``ceil(distance / step)``
frames, the last step what is left (:meth:`GaitFollower.set_straight`): HAZARD's
``move_by`` is a ``drive_on_heading`` with collision checks disabled.
"""
from __future__ import annotations

import math

import numpy as np
from nav2_msgs.action import BackUp, DriveOnHeading
from rclpy.action import ActionServer, CancelResponse, GoalResponse

from planner_node.nav_goal import GoalSpec
from planner_node.navigation import ErrorCode, NavigationError


def seconds(duration) -> float:
    return float(duration.sec) + float(duration.nanosec) * 1e-9


def behavior_codes(action) -> callable:
    """The behavior's result code for a NavigationError code (each behavior has its own numbers)."""
    r = action.Result

    def code(c: ErrorCode) -> int:
        if c in (ErrorCode.COLLISION_AHEAD, ErrorCode.FAILED_TO_MAKE_PROGRESS):
            return r.COLLISION_AHEAD
        if c == ErrorCode.INVALID_INPUT and hasattr(r, "INVALID_INPUT"):
            return r.INVALID_INPUT
        if c == ErrorCode.TIMEOUT and hasattr(r, "TIMEOUT"):
            return r.TIMEOUT
        if c == ErrorCode.TF_ERROR and hasattr(r, "TF_ERROR"):
            return r.TF_ERROR
        return r.UNKNOWN
    return code


class StraightMoves:
    """``drive_on_heading`` and ``backup`` on the navigation ``node``."""

    def __init__(self, node):
        self.node = node
        self.simulate_ahead = float(node.declare_parameter("simulate_ahead_time", 2.0).value)
        self.servers = [
            ActionServer(node, action, name, execute_callback=lambda gh, a=action: self._execute(gh, a),
                         goal_callback=lambda _: GoalResponse.ACCEPT, cancel_callback=lambda _: CancelResponse.ACCEPT,
                         callback_group=node._action_group, result_timeout=60)
            for action, name in ((DriveOnHeading, "drive_on_heading"), (BackUp, "backup"))]

    def _execute(self, gh, action):
        node, req = self.node, gh.request
        start: list[np.ndarray] = []

        def spec() -> GoalSpec:
            distance, speed = float(req.target.x), float(req.speed)
            if action is BackUp:            # Nav2's backup drives backwards whatever the sign
                distance, speed = -abs(distance), -abs(speed)
            if req.target.y != 0.0 or req.target.z != 0.0:
                raise NavigationError(ErrorCode.INVALID_INPUT, "only target.x is driven (target.y and target.z "
                                                               "must be 0)")
            if speed == 0.0 or not math.isfinite(distance) or (distance > 0) != (speed > 0):
                raise NavigationError(ErrorCode.INVALID_INPUT, f"speed {speed:g} and distance {distance:g} must "
                                                               "be non-zero with the same sign")
            pose, _ = node._robot_pose()
            start.append(pose)
            heading = np.array([math.cos(pose[2]), math.sin(pose[2])])
            allowance = seconds(req.time_allowance)
            goal = GoalSpec(pose[:2] + distance * heading, float(pose[2]), straight=distance, speed=speed,
                            max_time=allowance if allowance > 0 else 0.0, codes=behavior_codes(action),
                            label=("backup" if action is BackUp else "drive_on_heading") + f" {distance:.2f} m")
            if not req.disable_collision_checks:
                goal.check = lambda pose, cmd: self._check_ahead(pose, cmd, distance, speed)
            return goal

        def feedback(gh, pose, stamp, elapsed, cmd, recoveries):
            fb = action.Feedback()
            fb.distance_traveled = float(np.linalg.norm(pose[:2] - start[0][:2])) if start else 0.0
            gh.publish_feedback(fb)

        result = node.run_goal(gh, spec, feedback, action.Result())
        return result

    def _check_ahead(self, pose, cmd, distance: float, speed: float) -> None:
        """COLLISION_AHEAD when the segment the body covers in ``simulate_ahead_time`` (at
        most what is left of the move) enters an obstacle grown by the robot radius."""
        node = self.node
        ahead = min(abs(speed) * self.simulate_ahead, float(cmd.distance_remaining))
        if ahead <= 0:
            return
        sign = 1.0 if distance >= 0 else -1.0
        end = pose[:2] + sign * ahead * np.array([math.cos(pose[2]), math.sin(pose[2])])
        if not node.planner.path_clear(np.vstack([pose[:2], end]), pose[:2]):
            raise NavigationError(ErrorCode.COLLISION_AHEAD,
                                  f"collision ahead: an obstacle within {ahead:.2f} m "
                                  f"{'ahead of' if sign > 0 else 'behind'} ({pose[0]:.2f}, {pose[1]:.2f})")


__all__ = ["StraightMoves", "behavior_codes", "seconds"]
