"""The controller server of the navigation node: ``follow_path`` (nav2_msgs/action/FollowPath),
the path following ``navigate_to_pose`` uses, on a path the client gives.

* the follower is the node's (the gait on lock-step, else turn-then-go pure pursuit:
  :mod:`planner_node.following`) following the given poses (transformed to the global frame),
  from the one nearest the robot on, without replanning; the goal checker is the node's
  ``xy_goal_tolerance`` / ``yaw_goal_tolerance`` at the last pose (its orientation, if any);
  the progress checker: no progress for ``stuck_time`` is a recovery (the path is taken up
  again from the nearest pose), after ``max_recoveries`` FAILED_TO_MAKE_PROGRESS;
* ``controller_id`` '' or ``FollowPath``, ``goal_checker_id`` '' / ``general_goal_checker`` /
  ``goal_checker``, ``progress_checker_id`` '' / ``progress_checker`` (Nav2's default names),
  else INVALID_CONTROLLER; an empty path INVALID_PATH; TF_ERROR; UNKNOWN;
* feedback: ``distance_to_goal`` (along the rest of the path) and ``speed`` (the command, m/s);
* a new goal preempts the running one (on any server of the node: one body).
"""
from __future__ import annotations

import numpy as np
from nav2_msgs.action import FollowPath

from planner_node.nav_convert import pose_yaw
from planner_node.nav_goal import GoalSpec
from planner_node.nav_lifecycle import gated_action_server
from planner_node.navigation import ErrorCode, NavigationError

CONTROLLER_IDS = ("", "FollowPath")
GOAL_CHECKER_IDS = ("", "general_goal_checker", "goal_checker")
PROGRESS_CHECKER_IDS = ("", "progress_checker")


def controller_code(code: ErrorCode) -> int:
    r = FollowPath.Result
    return int({ErrorCode.INVALID_CONTROLLER: r.INVALID_CONTROLLER, ErrorCode.INVALID_PATH: r.INVALID_PATH,
                ErrorCode.TF_ERROR: r.TF_ERROR, ErrorCode.FAILED_TO_MAKE_PROGRESS: r.FAILED_TO_MAKE_PROGRESS,
                ErrorCode.TIMEOUT: r.CONTROLLER_TIMED_OUT}.get(code, r.UNKNOWN))


class ControllerServer:
    """``follow_path`` on the navigation ``node`` (see the module docstring)."""

    def __init__(self, node):
        self.node = node
        self.server = gated_action_server(node, FollowPath, "follow_path", self._execute, "controller_server")

    def _execute(self, gh):
        node, req = self.node, gh.request

        def spec() -> GoalSpec:
            node.require_ground("follow_path", ErrorCode.INVALID_CONTROLLER)
            for value, known, what in ((req.controller_id, CONTROLLER_IDS, "controller"),
                                       (req.goal_checker_id, GOAL_CHECKER_IDS, "goal checker"),
                                       (req.progress_checker_id, PROGRESS_CHECKER_IDS, "progress checker")):
                if value not in known:
                    raise NavigationError(ErrorCode.INVALID_CONTROLLER,
                                          f"{what} {value!r} does not exist; known: {', '.join(map(repr, known))}")
            if not req.path.poses:
                raise NavigationError(ErrorCode.INVALID_PATH, "the path has no poses")
            frame = req.path.header.frame_id
            pts = []
            for ps in req.path.poses:
                if not ps.header.frame_id and frame:
                    ps.header.frame_id = frame
                pts.append(node._goal_in_map(ps)[0])
            path = np.array(pts, float)
            goal = GoalSpec(path[-1].copy(), pose_yaw(req.path.poses[-1].pose), path=path, max_time=0.0,
                            codes=controller_code, label=f"follow_path ({len(path)} poses)")
            return goal

        def feedback(gh, pose, stamp, elapsed, cmd, recoveries):
            fb = FollowPath.Feedback()
            fb.distance_to_goal = float(cmd.distance_remaining)
            fb.speed = float(abs(cmd.v))
            gh.publish_feedback(fb)

        return node.run_goal(gh, spec, feedback, FollowPath.Result())


__all__ = ["ControllerServer", "controller_code"]
