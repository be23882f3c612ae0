"""``navigation_node``: a ``nav2_msgs/action/NavigateToPose`` server for hazard_stack.

Plans on ``map`` (nav_msgs/OccupancyGrid) with :class:`planner_node.navigation.GridPlanner`,
follows the path with :class:`planner_node.following.PathFollower` on ``cmd_vel``, sends
feedback (current pose, distance and time remaining, navigation time, recoveries), honours
cancel and preemption, and publishes the path on ``plan``.  Failures end the goal ABORTED
with Nav2's error codes and a message (``NavigateToPose.Result.error_msg``).

Parameters (read once at start-up):
  enabled (true)             false: create no action server (for users of real Nav2)
  robot_radius (0.25 m)      obstacle inflation
  lockstep (false)           each cycle: publish cmd_vel, call ``sim/step`` (std_srvs/Trigger),
                             wait for ``map`` and the robot pose of the new frame; a goal's
                             header.stamp is the frame it was decided on: planning waits for
                             that frame's pose and map
  control_rate (10 Hz)       free-run cycle rate, on the node clock (sim time with use_sim_time)
  frame_dt (0.1 s)           simulator frame length (lock-step: frame n has stamp n * frame_dt)
  xy_goal_tolerance (0.25 m), yaw_goal_tolerance (10 deg)
  max_linear_speed, max_angular_speed (deg/s): the humanoid's (HumanoidSpec: 0.1 m/s, 30 deg/s)
  goal_snap_radius (0.5 m)   a goal inside an obstacle moves to the nearest free cell this near
  control_gain (0 = auto)    share of the remaining error a command removes near a stop: auto
                             is 1.0 (dead-beat, exact) in lock-step, 0.6 in free-run (late
                             commands do not overshoot)
  stuck_time (3.0 s), max_recoveries (2): no progress for stuck_time -> a recovery: when
                             walking, the cell ahead becomes an obstacle for this goal (a bump),
                             then replan; after max_recoveries the goal fails
                             (FAILED_TO_MAKE_PROGRESS)
  max_navigation_time (0 s)  > 0: a goal running this long (node clock; in lock-step the
                             frames' sim time) fails with TIMEOUT.  HAZARD's walk_to gives up
                             after 100 frames: 10.0 makes that limit exact in lock-step
  global_frame (map), robot_base_frame (base_link)
  wait_timeout (10 s wall)   how long to wait for a map, a pose, a ``sim/step`` answer
  lockstep_wait_map (true)   lock-step: also wait for the ``map`` of the new frame
  approach_gap (0.5 m), approach_reach (humanoid reach), approach_object_radius (0.05 m):
                             the ``approach_object`` goal (planner_node/approach.py)
  gait_follower (= lockstep) follow paths with the core's walking gait (GaitFollower: head for the
                             next waypoint and step every frame, replan every 10 frames and after a
                             bump, final turn on the gait's schedule), so that lock-step runs move
                             as embedded ones; false: turn-then-go pure pursuit (PathFollower).  With
                             the gait a bump replans at once (the goal's time limit bounds it) and
                             max_recoveries does not apply; paths are planned as the core's walk
                             plans them (GridPlanner core_law: inflation by the radius less half a
                             cell, the core's start release, cell-path corners, no string pulling)
  lifecycle_names ([bt_navigator, amcl, ~])  names whose lifecycle_msgs state services
                             (``<name>/get_state``, ...) this node answers, as Nav2 clients
                             (nav2_simple_commander's ``waitUntilNav2Active``) expect; ``~`` is
                             this node; [''] for none (see planner_node/ros_nav2_compat.py)
  localization_rate (1 Hz)   ``amcl_pose`` (the exact simulated pose; 0: not published)
  waypoint_servers (true)    also serve ``follow_waypoints`` and ``navigate_through_poses``

Servers besides ``navigate_to_pose`` (each a thin module over the same goal execution,
:mod:`planner_node.nav_goal`): ``approach_object`` (:mod:`planner_node.approach`: end near an
object, facing it) and ``drive_on_heading`` (:mod:`planner_node.behaviors`).

A goal's ``behavior_tree`` must be empty: this navigator has no behavior-tree engine, so a
named tree fails the goal with ``FAILED_TO_LOAD_BEHAVIOR_TREE`` (9001), as Nav2 does for a tree
it cannot load.
"""
from __future__ import annotations

import math
import time

from builtin_interfaces.msg import Duration
from nav2_msgs.action import NavigateToPose
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.action import GoalResponse
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.node import Node

from hazard_ros.conversions import yaw_to_quaternion
from hazard_ros.params import declare_bool
from hazard_ros.ros_node_main import run_node
from planner_node import ros_nav2_compat as nav2_compat
from planner_node.approach import ApproachServer
from planner_node.behaviors import BehaviorServer
from planner_node.controller_server import ControllerServer
from planner_node.following import HUMANOID_MAX_ANGULAR, HUMANOID_MAX_LINEAR, FollowerConfig
from planner_node.map_server import MapServer
from planner_node.nav_costmaps import CostmapServers
from planner_node.nav_goal import GoalExecution, GoalSpec
from planner_node.nav_inputs import LATCHED, LOCKSTEP_SENSOR, TF_QOS, NavInputs, stamp_ns
from planner_node.nav_lifecycle import NavLifecycle, gated_action_server
from planner_node.navigation import ErrorCode, GridPlanner, NavigationError
from planner_node.planner_server import PlannerServer
from planner_node.smoother_server import SmootherServer

#: topics this node publishes (relative names, ROS type)
PUBLISHED_TOPICS = [
    ("cmd_vel", "geometry_msgs/msg/Twist"),
    ("plan", "nav_msgs/msg/Path"),
    ("navigate_to_pose/_action/feedback", "nav2_msgs/action/NavigateToPose_FeedbackMessage"),
    ("navigate_to_pose/_action/status", "action_msgs/msg/GoalStatusArray"),
    ("amcl_pose", "geometry_msgs/msg/PoseWithCovarianceStamped"),
    ("global_costmap/costmap", "nav_msgs/msg/OccupancyGrid"),
    ("global_costmap/costmap_raw", "nav2_msgs/msg/Costmap"),
    ("local_costmap/costmap", "nav_msgs/msg/OccupancyGrid"),
    ("local_costmap/costmap_raw", "nav2_msgs/msg/Costmap"),
]
ACTION_NAME = "navigate_to_pose"
__reexported__ = (LATCHED, LOCKSTEP_SENSOR, TF_QOS)


class NavigationNode(NavInputs, GoalExecution, Node):
    """The navigation server (see the module docstring)."""

    def __init__(self, node_name: str = "navigation_node", **kwargs):
        super().__init__(node_name, **kwargs)
        p = self.declare_parameter
        self.enabled = declare_bool(self, "enabled", True, "false: no navigation server (use real Nav2)")
        self.robot_radius = float(p("robot_radius", 0.25).value)
        self.lockstep = declare_bool(self, "lockstep", False, "step the simulator (sim/step) every cycle")
        self.control_rate = float(p("control_rate", 10.0).value)
        self.frame_dt = float(p("frame_dt", 0.1).value)
        xy_tol = float(p("xy_goal_tolerance", 0.25).value)
        yaw_tol = math.radians(float(p("yaw_goal_tolerance", 10.0).value))
        vmax = float(p("max_linear_speed", HUMANOID_MAX_LINEAR).value)
        wmax = math.radians(float(p("max_angular_speed", math.degrees(HUMANOID_MAX_ANGULAR)).value))
        snap = float(p("goal_snap_radius", 0.5).value)
        stuck = float(p("stuck_time", 3.0).value)
        gain = float(p("control_gain", 0.0).value)
        gain = gain if gain > 0 else (1.0 if self.lockstep else 0.6)
        self.max_recoveries = int(p("max_recoveries", 2).value)
        self.max_navigation_time = float(p("max_navigation_time", 0.0, ParameterDescriptor(
            description="goal time limit (s; 0: none)", dynamic_typing=True)).value)   # 0 or 0.0 from a launch file
        self.global_frame = str(p("global_frame", "map").value)
        self.base_frame = str(p("robot_base_frame", "base_link").value)
        self.wait_timeout = float(p("wait_timeout", 10.0).value)
        self.lockstep_wait_map = declare_bool(self, "lockstep_wait_map", True, "lock-step: wait for the new map")
        self.gait_follower = declare_bool(self, "gait_follower", self.lockstep,
                                          "follow paths with the core's walking gait (default: in lock-step)")
        declare_bool(self, "walk_map", False,
                     "gait follower: plan on the walk_map topic (the decision node's copy of the embedded body's "
                     "walking map) instead of map; the decision node sets it in lock-step")
        self.observe_every = int(p("observe_every", 10).value)
        lifecycle_names = [n for n in p("lifecycle_names", ["bt_navigator", "amcl", "~"]).value if n]
        localization_rate = float(p("localization_rate", 1.0).value)
        self.body_kind = str(p("body_kind", "ground", ParameterDescriptor(
            description="ground | aerial: a flying body gets the behaviors only (spin, backup, drive_on_heading, "
                        "wait, no collision checks); the servers that plan or follow on the 2-D ground map end "
                        "its goals with their invalid-plugin codes")).value)
        if self.body_kind not in ("ground", "aerial"):
            raise ValueError(f"body_kind must be ground or aerial, got {self.body_kind!r}")
        waypoint_servers = declare_bool(self, "waypoint_servers", True,
                                        "serve follow_waypoints, navigate_through_poses")
        if self.control_rate <= 0:
            raise ValueError(f"control_rate must be > 0, got {self.control_rate}")
        if not 0.0 <= self.max_navigation_time < math.inf:          # (NaN fails too)
            raise ValueError(f"max_navigation_time must be a finite number of s >= 0 (0: none), "
                             f"got {self.max_navigation_time}")
        period = self.frame_dt if self.lockstep else 1.0 / self.control_rate
        self.follower_config = FollowerConfig(max_linear=vmax, max_angular=wmax, control_period=period,
                                              xy_tolerance=xy_tol, yaw_tolerance=yaw_tol, stuck_time=stuck,
                                              gain=gain)
        # the gait follower walks the core's paths: plan them the core's way too
        self.planner = GridPlanner(self.robot_radius, goal_snap_radius=snap, core_law=self.gait_follower)
        self._init_inputs()
        self._init_goals()
        self.lifecycle = self.waypoints = self.approach = self.behaviors = self.servers = None
        if not self.enabled:
            self.get_logger().info("navigation disabled (enabled: false): no navigate_to_pose server; "
                                   "run Nav2 instead")
            return

        self._sub_group = MutuallyExclusiveCallbackGroup()
        self._action_group = ReentrantCallbackGroup()
        self._client_group = ReentrantCallbackGroup()
        self._subscribe_inputs()
        self.action_server = gated_action_server(self, NavigateToPose, ACTION_NAME, self._execute, "bt_navigator")
        self.lifecycle = nav2_compat.LifecycleStates(self, lifecycle_names) if lifecycle_names else None
        self.servers = NavLifecycle(self, self.lifecycle if "bt_navigator" in lifecycle_names else None)
        self.costmaps = CostmapServers(self)
        self.approach = ApproachServer(self)
        self.behaviors = BehaviorServer(self)
        self.planner_server = PlannerServer(self)
        self.controller = ControllerServer(self)
        self.smoother = SmootherServer(self)
        self.map_server = MapServer(self)
        if self.lifecycle is not None:
            self.lifecycle.transition("configure")          # unconfigured -> inactive
            # wall time: in lock-step sim time stands still while nobody steps
            self.create_timer(0.2, self._update_lifecycle, callback_group=self._client_group,
                              clock=Clock(clock_type=ClockType.STEADY_TIME))
        if localization_rate > 0:
            nav2_compat.LocalizationPose(self, self._pose_for_localization, localization_rate, self.global_frame)
        if waypoint_servers:
            self.waypoints = nav2_compat.WaypointServers(self, ACTION_NAME)
        self.get_logger().info(
            f"navigate_to_pose ready ({'lock-step' if self.lockstep else f'{self.control_rate:g} Hz'}, "
            f"robot radius {self.robot_radius:.2f} m)")

    # ------------------------------------------------------------ Nav2 client support
    def _ready(self) -> bool:
        with self._cv:
            return self._map is not None and self._tf.can_transform(self.global_frame, self.base_frame)

    def _update_lifecycle(self) -> None:
        if not self._stopping.is_set():
            self.lifecycle.set_ready(self._ready())

    def _pose_for_localization(self):
        """((x, y, quaternion), stamp) of the base in the global frame, or None."""
        try:
            pose, stamp = self._robot_pose()
        except NavigationError:
            return None
        ns = max(stamp, 0)
        from builtin_interfaces.msg import Time
        return (pose[0], pose[1], yaw_to_quaternion(float(pose[2]))), Time(sec=ns // 1_000_000_000,
                                                                           nanosec=ns % 1_000_000_000)

    def on_shutdown(self) -> None:
        """Ctrl-C / SIGTERM (hazard_ros.ros_node_main): end running goals (aborted, robot stopped)
        and the lifecycle (-> finalized) while the context is still valid."""
        self._stopping.set()
        if self.waypoints is not None:
            self.waypoints.stopping.set()
        with self._cv:
            self._active_goal = b"shutdown"
            self._cv.notify_all()
        if self._drive_lock.acquire(timeout=3.0):   # the goal loop lets go of it between cycles
            try:
                if self.enabled:
                    self._stop()
            finally:
                self._drive_lock.release()
        if self.lifecycle is not None:
            self.lifecycle.transition("shutdown")

    def shutdown_drained(self) -> bool:
        """No goal runs any more, and the executor had 0.3 s to send their (aborted) results."""
        with self._cv:
            return self._running_goals == 0 and time.monotonic() - self._last_goal_end > 0.3

    def require_ground(self, server: str, code: ErrorCode) -> None:
        """Raise ``code`` for a server that plans or follows on the 2-D ground map when the
        body flies (``body_kind: aerial``)."""
        if self.body_kind == "aerial":
            raise NavigationError(code, f"{server} plans and follows paths on the 2-D ground map: it does not apply "
                                        "to a flying body (body_kind: aerial); fly with spin, drive_on_heading, "
                                        "backup, wait or cmd_vel")

    def goal_gate(self, server: str):
        """Whether server ``server`` takes a new goal (its lifecycle state: nav_lifecycle)."""
        return self.servers.gate(server) if self.servers is not None else GoalResponse.ACCEPT

    # ------------------------------------------------------------ navigate_to_pose
    def _execute(self, gh):
        if gh.request.behavior_tree:
            self._active_goal = bytes(gh.goal_id.uuid)          # it still preempts the running goal
            result = NavigateToPose.Result()
            result.error_code = NavigateToPose.Result.FAILED_TO_LOAD_BEHAVIOR_TREE
            result.error_msg = (f"behavior tree {gh.request.behavior_tree!r} not supported: this navigator has no "
                                "behavior-tree engine (send an empty behavior_tree)")
            self.get_logger().warning(result.error_msg)
            gh.abort()
            return result

        def spec() -> GoalSpec:
            self.require_ground("navigate_to_pose", ErrorCode.UNKNOWN)
            goal_xy, goal_yaw = self._goal_in_map(gh.request.pose)
            return GoalSpec(goal_xy, goal_yaw, stamp_ns(gh.request.pose.header.stamp))
        return self.run_goal(gh, spec, self._feedback, NavigateToPose.Result())

    def _feedback(self, gh, pose, stamp, elapsed, cmd, recoveries) -> None:
        gh.publish_feedback(navigation_feedback(NavigateToPose.Feedback(), self.global_frame, pose, stamp,
                                                elapsed, cmd, recoveries))


def duration_msg(seconds: float) -> Duration:
    seconds = max(0.0, float(seconds)) if math.isfinite(seconds) else 0.0
    ns = int(round(seconds * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def navigation_feedback(fb, frame_id: str, pose, stamp: int, elapsed: float, cmd, recoveries: int):
    """NavigateToPose.Feedback's fields (pose, times, recoveries, distance) from one command."""
    fb.current_pose.header.frame_id = frame_id
    fb.current_pose.header.stamp.sec = max(stamp, 0) // 1_000_000_000
    fb.current_pose.header.stamp.nanosec = max(stamp, 0) % 1_000_000_000
    fb.current_pose.pose.position.x, fb.current_pose.pose.position.y = float(pose[0]), float(pose[1])
    fb.current_pose.pose.orientation = yaw_to_quaternion(float(pose[2]))
    fb.navigation_time = duration_msg(elapsed)
    fb.estimated_time_remaining = duration_msg(cmd.time_remaining)
    fb.number_of_recoveries = int(recoveries)
    fb.distance_remaining = float(cmd.distance_remaining)
    return fb


def main(args=None) -> int:
    return run_node(NavigationNode, "navigation_node", args, threads=4)


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["NavigationNode", "PUBLISHED_TOPICS", "ACTION_NAME", "main", "navigation_feedback", "duration_msg"]
