"""The planner server of the navigation node: ``compute_path_to_pose`` and
``compute_path_through_poses`` (nav2_msgs/action/ComputePathToPose, ComputePathThroughPoses).

Plans as ``navigate_to_pose`` does (:class:`planner_node.navigation.GridPlanner` with the node's
robot radius, goal snap radius and planning law) on the global costmap (``map`` with the
global costmap's clears).  Like Nav2's planner server:

* ``use_start`` false: from the robot's pose (TF map -> base_link); true: from ``start``;
* ``planner_id`` '' or ``GridBased`` (Nav2's default planner name), else INVALID_PLANNER;
* error codes: START_OUTSIDE_MAP, GOAL_OUTSIDE_MAP, START_OCCUPIED (the start on an obstacle
  cell), GOAL_OCCUPIED (in an obstacle and no free cell within the snap radius),
  NO_VALID_PATH, TF_ERROR, TIMEOUT (longer than ``max_planning_time``, 5 s), UNKNOWN; through
  poses the same numbers + 100 and NO_VIAPOINTS_GIVEN for an empty list;
* the path: one pose per corner of the grid path (string pulled unless the node plans the
  core's way), each heading to the next, the last with the goal's orientation;
  ``planning_time`` the wall time spent.
"""
from __future__ import annotations

import threading
import time

import numpy as np
from nav2_msgs.action import ComputePathThroughPoses, ComputePathToPose

from planner_node.nav_convert import duration_msg, path_msg, pose_yaw
from planner_node.nav_lifecycle import gated_action_server
from planner_node.navigation import ErrorCode, GridPlanner, NavigationError

PLANNER_IDS = ("", "GridBased")
#: NavigationError codes the planner actions report as they are (through poses: + 100)
_PLANNER_CODES = (ErrorCode.INVALID_PLANNER, ErrorCode.START_OUTSIDE_MAP, ErrorCode.GOAL_OUTSIDE_MAP,
                  ErrorCode.START_OCCUPIED, ErrorCode.GOAL_OCCUPIED, ErrorCode.NO_VALID_PATH)


def planner_code(code: ErrorCode, through: bool = False) -> int:
    """ComputePathToPose's (or ComputePathThroughPoses') code for a NavigationError code."""
    r = (ComputePathThroughPoses if through else ComputePathToPose).Result
    if code in _PLANNER_CODES:
        return int(code) + (100 if through else 0)
    if code == ErrorCode.INVALID_INPUT and through:
        return r.NO_VIAPOINTS_GIVEN
    if code == ErrorCode.TF_ERROR:
        return r.TF_ERROR
    if code in (ErrorCode.TIMEOUT, ErrorCode.PLANNER_TIMEOUT):
        return r.TIMEOUT
    return r.UNKNOWN


class PlannerServer:
    """The two planning actions on the navigation ``node`` (see the module docstring)."""

    def __init__(self, node, lifecycle=None):
        self.node, self.lifecycle = node, lifecycle
        self.max_time = float(node.declare_parameter("max_planning_time", 5.0).value)
        self.planner = GridPlanner(node.robot_radius, goal_snap_radius=node.planner.goal_snap_radius,
                                   core_law=node.planner.core_law)
        self._version = -1
        self._lock = threading.Lock()
        for action, name, run in ((ComputePathToPose, "compute_path_to_pose", self._to_pose),
                                  (ComputePathThroughPoses, "compute_path_through_poses", self._through)):
            gated_action_server(node, action, name, lambda gh, a=action, r=run: self._execute(gh, a, r),
                                "planner_server")

    def _execute(self, gh, action, run):
        result = action.Result()
        through = action is ComputePathThroughPoses
        t0 = time.perf_counter()
        try:
            self.node.require_ground("the planner server", ErrorCode.INVALID_PLANNER)
            if gh.request.planner_id not in PLANNER_IDS:
                raise NavigationError(ErrorCode.INVALID_PLANNER, f"planner {gh.request.planner_id!r} does not exist; "
                                                                 f"known: {', '.join(repr(p) for p in PLANNER_IDS)}")
            with self._lock:           # one plan at a time on this server's planner
                waypoints, final_yaw = run(gh.request)
            result.planning_time = duration_msg(time.perf_counter() - t0)
            if time.perf_counter() - t0 > self.max_time:
                raise NavigationError(ErrorCode.PLANNER_TIMEOUT, f"planning took longer than {self.max_time:g} s")
            result.path = path_msg(waypoints, self.node.global_frame, self.node.get_clock().now().to_msg(), final_yaw)
            gh.succeed()
        except NavigationError as exc:
            result.error_code, result.error_msg = planner_code(exc.code, through), exc.message
            self.node.get_logger().warning(f"planning failed ({exc.code.name}): {exc.message}")
            gh.abort()
        except Exception as exc:  # noqa: BLE001 - a failed goal, never a dead server
            result.error_code = planner_code(ErrorCode.UNKNOWN, through)
            result.error_msg = f"internal error: {type(exc).__name__}: {exc}"
            self.node.get_logger().error(result.error_msg)
            gh.abort()
        return result

    def _costmap(self) -> GridPlanner:
        node = self.node
        with node._cv:
            omap, version = node._global_map.effective(), node._global_map.version
        if omap is None:
            raise NavigationError(ErrorCode.PLANNER_UNKNOWN, f"no map received on {node.resolve_topic_name('map')}")
        if version != self._version:
            self.planner.set_map(omap)
            self._version = version
        return self.planner

    def _start(self, req) -> np.ndarray:
        node = self.node
        if req.use_start:
            xy, _ = node._goal_in_map(req.start)
            start = xy
        else:
            start = node._robot_pose()[0][:2]
        planner = self._costmap()
        m = planner.map
        if m.contains(start) and planner._occupied[m.cell(start)]:
            raise NavigationError(ErrorCode.START_OCCUPIED, f"the start ({start[0]:.2f}, {start[1]:.2f}) lies on an "
                                                            "obstacle")
        return start

    def _leg(self, start, goal_pose) -> tuple[np.ndarray, float | None]:
        goal_xy, _ = self.node._goal_in_map(goal_pose)
        plan = self._costmap().plan(start, goal_xy)
        return plan.waypoints, pose_yaw(goal_pose.pose)

    def _to_pose(self, req):
        start = self._start(req)
        return self._leg(start, req.goal)

    def _through(self, req):
        goals = list(req.goals.goals)
        if not goals:
            raise NavigationError(ErrorCode.INVALID_INPUT, "no goals given (goals.goals is empty)")
        start = self._start(req)
        legs, yaw = [], None
        for goal in goals:
            way, yaw = self._leg(start, goal)
            legs.append(way if not legs else way[1:])
            start = way[-1]
        return np.vstack(legs), yaw


__all__ = ["PlannerServer", "planner_code", "PLANNER_IDS"]
