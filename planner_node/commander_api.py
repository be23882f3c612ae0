"""The rest of nav2_simple_commander's BasicNavigator API for :class:`planner_node.ros_commander.Navigator`
(a mixin): planner, controller, smoother and behavior tasks, costmaps, maps and the lifecycle
manager, over the upstream action and service types and names, with BasicNavigator's
method names and return values:

* ``getPath(start, goal, planner_id='', use_start=False)`` / ``getPathThroughPoses`` ->
  nav_msgs/Path or None (the error in ``getTaskError()``); ``smoothPath(path, smoother_id='',
  max_duration=2.0, check_for_collision=False)`` -> Path or None;
* ``followPath(path, controller_id='', goal_checker_id='')``, ``assistedTeleop(time_allowance=30)``,
  ``spin(spin_dist=1.57,
  time_allowance=10, disable_collision_checks=False)``, ``backup(backup_dist=0.15,
  backup_speed=0.025, ...)``, ``driveOnHeading(dist=0.15, speed=0.025, ...)``: a running
  task (RunningTask) or None when rejected; then ``isTaskComplete`` / ``getFeedback`` /
  ``getResult`` / ``cancelTask`` as for navigation;
* ``clearAllCostmaps``, ``clearLocalCostmap``, ``clearGlobalCostmap``,
  ``clearCostmapAroundRobot(reset_distance, costmap='local')``,
  ``clearCostmapExceptRegion(reset_distance, costmap='local')``, ``getGlobalCostmap`` /
  ``getLocalCostmap`` (nav2_msgs/Costmap), ``changeMap(map_filepath)`` (True on success),
  ``lifecycleStartup`` / ``lifecycleShutdown`` (every ManageLifecycleNodes service found).

Like BasicNavigator these wait for their server as long as it takes (logging every second).
"""
from __future__ import annotations

from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Point
from nav2_msgs.action import (
    AssistedTeleop,
    BackUp,
    ComputePathThroughPoses,
    ComputePathToPose,
    DriveOnHeading,
    FollowPath,
    SmoothPath,
    Spin,
)
from nav2_msgs.srv import (
    ClearCostmapAroundRobot,
    ClearCostmapExceptRegion,
    ClearEntireCostmap,
    GetCostmap,
    LoadMap,
    ManageLifecycleNodes,
)
from nav_msgs.msg import Goals
from rclpy.action import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup

#: RunningTask values of the tasks besides navigation (nav2_simple_commander's numbers)
FOLLOW_PATH, SPIN, BACKUP, DRIVE_ON_HEADING, ASSISTED_TELEOP = 3, 6, 7, 8, 9


def as_goals(poses) -> Goals:
    """``poses`` as nav_msgs/Goals: a Goals message as it is, a list of PoseStamped under the
    first one's header."""
    if not isinstance(poses, (list, tuple)):
        return poses
    goals = Goals(goals=list(poses))
    if poses:
        goals.header = poses[0].header
    return goals


def _secs(seconds: float) -> Duration:
    ns = int(round(max(0.0, float(seconds)) * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


class CommanderApi:
    """See the module docstring; expects the Navigator's ``node``, ``_send``, ``_wait_future``,
    ``_pause``, ``_log``, ``setTaskError``, ``clearTaskError`` and ``RunningTask``."""

    # ------------------------------------------------------------ plumbing
    def _action(self, name: str, action) -> ActionClient:
        clients = self.__dict__.setdefault("_api_actions", {})
        if name not in clients:
            clients[name] = ActionClient(self.node, action, name, callback_group=ReentrantCallbackGroup())
        return clients[name]

    def _service(self, name: str, srv):
        clients = self.__dict__.setdefault("_api_services", {})
        if name not in clients:
            clients[name] = self.node.create_client(srv, name, callback_group=ReentrantCallbackGroup())
        return clients[name]

    def _call(self, name: str, srv, request):
        """Call a service (waiting for it as long as it takes); the response or None."""
        client = self._service(name, srv)
        while not client.wait_for_service(timeout_sec=1.0):
            self._log().info(f"{name} service not available, waiting...")
        future = client.call_async(request)
        self._wait_future(future, None)
        return future.result()

    def _result_of(self, name: str, action, goal, what: str):
        """Send ``goal`` and wait for its result (the planner and smoother tasks); the result
        message, or None when rejected or failed (the error in getTaskError)."""
        task = self._send_to(name, action, goal, what)
        if task is None:
            return None
        self._wait_future(self.result_future, None)
        response = self.result_future.result()
        if response is None:
            self.setTaskError(0, "No result received")
            return None
        self.status = response.status
        if response.status != 4:                                   # GoalStatus.STATUS_SUCCEEDED
            self.setTaskError(int(response.result.error_code), response.result.error_msg)
            self._log().warning(f"{what} failed with status code {response.status}: "
                                f"{response.result.error_code} {response.result.error_msg}")
            return None
        return response.result

    def _send_to(self, name: str, action, goal, what: str, task=None):
        client = self._action(name, action)
        return self._send_with(client, goal, what, action.Result.UNKNOWN if hasattr(action.Result, "UNKNOWN")
                               else 0, task)

    # ------------------------------------------------------------ planner, smoother
    def getPath(self, start, goal, planner_id: str = "", use_start: bool = False):
        result = self._result_of("compute_path_to_pose", ComputePathToPose, ComputePathToPose.Goal(
            start=start, goal=goal, planner_id=planner_id, use_start=use_start), "ComputePathToPose")
        return None if result is None else result.path

    def getPathThroughPoses(self, start, goals, planner_id: str = "", use_start: bool = False):
        msg = ComputePathThroughPoses.Goal(start=start, goals=as_goals(goals), planner_id=planner_id,
                                           use_start=use_start)
        result = self._result_of("compute_path_through_poses", ComputePathThroughPoses, msg, "ComputePathThroughPoses")
        return None if result is None else result.path

    def smoothPath(self, path, smoother_id: str = "", max_duration: float = 2.0, check_for_collision: bool = False):
        result = self._result_of("smooth_path", SmoothPath, SmoothPath.Goal(
            path=path, smoother_id=smoother_id, max_smoothing_duration=_secs(max_duration),
            check_for_collisions=check_for_collision), "SmoothPath")
        return None if result is None else result.path

    # ------------------------------------------------------------ controller, behaviors
    def followPath(self, path, controller_id: str = "", goal_checker_id: str = ""):
        return self._send_to("follow_path", FollowPath, FollowPath.Goal(
            path=path, controller_id=controller_id, goal_checker_id=goal_checker_id), "FollowPath", FOLLOW_PATH)

    def spin(self, spin_dist: float = 1.57, time_allowance: float = 10, disable_collision_checks: bool = False):
        return self._send_to("spin", Spin, Spin.Goal(target_yaw=float(spin_dist), time_allowance=_secs(time_allowance),
                                                     disable_collision_checks=disable_collision_checks), "Spin", SPIN)

    def backup(self, backup_dist: float = 0.15, backup_speed: float = 0.025, time_allowance: float = 10,
               disable_collision_checks: bool = False):
        return self._send_to("backup", BackUp, BackUp.Goal(
            target=Point(x=float(backup_dist)), speed=float(backup_speed), time_allowance=_secs(time_allowance),
            disable_collision_checks=disable_collision_checks), "Backup", BACKUP)

    def driveOnHeading(self, dist: float = 0.15, speed: float = 0.025, time_allowance: float = 10,
                       disable_collision_checks: bool = False):
        return self._send_to("drive_on_heading", DriveOnHeading, DriveOnHeading.Goal(
            target=Point(x=float(dist)), speed=float(speed), time_allowance=_secs(time_allowance),
            disable_collision_checks=disable_collision_checks), "DriveOnHeading", DRIVE_ON_HEADING)

    def assistedTeleop(self, time_allowance: float = 30):
        """Drive with ``cmd_vel_teleop``, slowed before obstacles, until ``preempt_teleop``."""
        return self._send_to("assisted_teleop", AssistedTeleop, AssistedTeleop.Goal(
            time_allowance=_secs(time_allowance)), "AssistedTeleop", ASSISTED_TELEOP)

    # ------------------------------------------------------------ costmaps, maps
    def clearLocalCostmap(self) -> None:
        self._call("local_costmap/clear_entirely_local_costmap", ClearEntireCostmap, ClearEntireCostmap.Request())

    def clearGlobalCostmap(self) -> None:
        self._call("global_costmap/clear_entirely_global_costmap", ClearEntireCostmap, ClearEntireCostmap.Request())

    def clearAllCostmaps(self) -> None:
        self.clearLocalCostmap()
        self.clearGlobalCostmap()

    def clearCostmapAroundRobot(self, reset_distance: float, costmap: str = "local") -> None:
        self._call(f"{costmap}_costmap/clear_around_{costmap}_costmap", ClearCostmapAroundRobot,
                   ClearCostmapAroundRobot.Request(reset_distance=float(reset_distance)))

    def clearCostmapExceptRegion(self, reset_distance: float, costmap: str = "local") -> None:
        self._call(f"{costmap}_costmap/clear_except_{costmap}_costmap", ClearCostmapExceptRegion,
                   ClearCostmapExceptRegion.Request(reset_distance=float(reset_distance)))

    def getGlobalCostmap(self):
        return self._call("global_costmap/get_costmap", GetCostmap, GetCostmap.Request()).map

    def getLocalCostmap(self):
        return self._call("local_costmap/get_costmap", GetCostmap, GetCostmap.Request()).map

    def changeMap(self, map_filepath: str) -> bool:
        response = self._call("map_server/load_map", LoadMap, LoadMap.Request(map_url=str(map_filepath)))
        ok = response is not None and response.result == LoadMap.Response.RESULT_SUCCESS
        if ok:
            self._log().info("Change map request was successful!")
        else:
            self._log().error(f"Change map request failed (result {None if response is None else response.result})")
        return ok

    # ------------------------------------------------------------ lifecycle
    def _manage(self, command: int) -> bool:
        names = []
        while not names:            # discovery may not have brought the managers' services yet
            names = [n for n, types in self.node.get_service_names_and_types()
                     if "nav2_msgs/srv/ManageLifecycleNodes" in types]
            if not names:
                self._log().info("no lifecycle manager found yet, waiting...", throttle_duration_sec=1.0)
                self._pause(0.2)
        ok = True
        for name in names:
            response = self._call(name, ManageLifecycleNodes, ManageLifecycleNodes.Request(command=command))
            ok = ok and response is not None and response.success
        return ok

    def lifecycleStartup(self) -> bool:
        """STARTUP on every lifecycle manager found (BasicNavigator's way of finding them)."""
        ok = self._manage(ManageLifecycleNodes.Request.STARTUP)
        self._log().info("Nav2 is ready for use!" if ok else "lifecycle startup failed")
        return ok

    def lifecycleShutdown(self) -> bool:
        return self._manage(ManageLifecycleNodes.Request.SHUTDOWN)


__all__ = ["CommanderApi", "FOLLOW_PATH", "SPIN", "BACKUP", "DRIVE_ON_HEADING", "ASSISTED_TELEOP"]
