"""The smoother server of the navigation node: ``smooth_path`` (nav2_msgs/action/SmoothPath).

Smooths with :func:`planner_node.smoothing.smooth` (the simple smoother's law, resampled to
the map's cells) on the global costmap's obstacles grown by the robot radius: no pose moves
into them.  Like Nav2's smoother server:

* ``smoother_id`` '' or ``simple_smoother`` (Nav2's default name), else INVALID_SMOOTHER;
* fewer than 2 poses, or a pose that is not finite (NaN / inf): INVALID_PATH; no map: UNKNOWN;
* ``max_smoothing_duration`` (> 0) bounds the time spent: ``was_completed`` false when it
  ran out (the path smoothed so far is returned; Nav2 fails with TIMEOUT only when nothing
  could be done: here never);
* ``check_for_collisions``: a smoothed path that crosses an obstacle grown by the robot
  radius fails with SMOOTHED_PATH_IN_COLLISION (a path whose input already did so is not
  made worse: poses never move in);
* result ``path`` (poses heading along the path, the last keeping the input's orientation)
  and ``smoothing_duration``.
"""
from __future__ import annotations

import math
import time

import numpy as np
from nav2_msgs.action import SmoothPath

from hazard_ros.params import declare_floats
from planner_node.nav_convert import duration_msg, path_msg, path_xy, pose_yaw, seconds
from planner_node.nav_lifecycle import gated_action_server
from planner_node.navigation import GridPlanner
from planner_node.smoothing import blocked_at, smooth

SMOOTHER_IDS = ("", "simple_smoother", "SmoothPath")


class SmootherServer:
    """``smooth_path`` on the navigation ``node`` (see the module docstring)."""

    def __init__(self, node):
        self.node = node
        self.w_data, self.w_smooth = declare_floats(node, smoother_w_data=0.2, smoother_w_smooth=0.3)
        self.server = gated_action_server(node, SmoothPath, "smooth_path", self._execute, "smoother_server")
        self._grid = GridPlanner(node.robot_radius)
        self._version = -1

    def _fail(self, gh, result, code: int, message: str):
        result.error_code, result.error_msg = int(code), message
        self.node.get_logger().warning(f"smooth_path failed: {message}")
        gh.abort()
        return result

    def _execute(self, gh):
        node, req, result = self.node, gh.request, SmoothPath.Result()
        r = SmoothPath.Result
        t0 = time.perf_counter()
        if node.body_kind == "aerial":
            return self._fail(gh, result, r.INVALID_SMOOTHER, "smooth_path smooths paths on the 2-D ground map: it "
                                                              "does not apply to a flying body (body_kind: aerial)")
        if req.smoother_id not in SMOOTHER_IDS:
            return self._fail(gh, result, r.INVALID_SMOOTHER, f"smoother {req.smoother_id!r} does not exist; known: "
                                                              f"{', '.join(map(repr, SMOOTHER_IDS))}")
        if len(req.path.poses) < 2:
            return self._fail(gh, result, r.INVALID_PATH, f"a path of {len(req.path.poses)} poses cannot be smoothed")
        bad = next((k for k, ps in enumerate(req.path.poses) if not all(map(math.isfinite, (
            ps.pose.position.x, ps.pose.position.y, ps.pose.position.z, ps.pose.orientation.x, ps.pose.orientation.y,
            ps.pose.orientation.z, ps.pose.orientation.w)))), None)
        if bad is not None:
            return self._fail(gh, result, r.INVALID_PATH, f"pose {bad} of the path is not finite (NaN or inf)")
        with node._cv:
            omap, version = node._global_map.effective(), node._global_map.version
        if omap is None:
            return self._fail(gh, result, r.UNKNOWN, f"no map received on {node.resolve_topic_name('map')}")
        try:
            if version != self._version:
                self._grid.set_map(omap)
                self._version = version
            blocked, spec = self._grid.blocked, omap.spec
            budget = seconds(req.max_smoothing_duration)
            points = path_xy(req.path)
            smoothed, completed = smooth(points, blocked, spec, self.w_data, self.w_smooth,
                                         deadline=t0 + budget if budget > 0 else None)
            if req.check_for_collisions:
                was = blocked_at(blocked, spec, points)
                now = blocked_at(blocked, spec, smoothed)
                if now.sum() > 0 and not was.any():
                    return self._fail(gh, result, r.SMOOTHED_PATH_IN_COLLISION,
                                      f"{int(now.sum())} smoothed poses lie in obstacles")
        except Exception as exc:  # noqa: BLE001 - a failed goal, never a dead server
            return self._fail(gh, result, r.FAILED_TO_SMOOTH_PATH, f"{type(exc).__name__}: {exc}")
        frame = req.path.header.frame_id or node.global_frame
        result.path = path_msg(np.asarray(smoothed), frame, req.path.header.stamp, pose_yaw(req.path.poses[-1].pose))
        result.smoothing_duration = duration_msg(time.perf_counter() - t0)
        result.was_completed = bool(completed)
        gh.succeed()
        return result


__all__ = ["SmootherServer", "SMOOTHER_IDS"]
