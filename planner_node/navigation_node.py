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
  arrive_near ('')            gait follower: [x, y, object radius, gap, reach] for the next goal
                             only: HAZARD's walk_to as the core walks it: plan to the stand-off
                             cells around that object (hazard_sim.navigation.stand_off), end as soon
                             as the body's gap to its circle is at most gap (checked before each
                             walking frame) or the path ends, then face the object (the decision
                             node sets it in lock-step)
  straight_goal (false)      gait follower: the next goal only is walked straight (no planning or
                             replanning) and fails at the first bump (HAZARD's move_by; the
                             decision node sets it in lock-step)
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

A goal's ``behavior_tree`` must be empty: this navigator has no behavior-tree engine, so a
named tree fails the goal with ``FAILED_TO_LOAD_BEHAVIOR_TREE`` (9001), as Nav2 does for a tree
it cannot load.
"""
from __future__ import annotations

import math
import threading
import time

import numpy as np
import rclpy
import rclpy.parameter
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import PoseStamped, Twist
from nav2_msgs.action import NavigateToPose
from nav_msgs.msg import GridCells, OccupancyGrid, Odometry, Path
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import Detection3DArray

from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.conversions import planar_matrix, quaternion_to_yaw, yaw_to_quaternion
from hazard_ros.params import declare_bool
from hazard_ros.ros_node_main import run_node
from hazard_ros.tf_math import TfBuffer, TfLookupError
from planner_node import ros_nav2_compat as nav2_compat
from planner_node.following import (
    HUMANOID_MAX_ANGULAR,
    HUMANOID_MAX_LINEAR,
    FollowerConfig,
    GaitFollower,
    GoalRunner,
)
from planner_node.navigation import ErrorCode, GridPlanner, NavigationError, OccupancyMap, Plan

#: topics this node publishes (relative names, ROS type)
PUBLISHED_TOPICS = [
    ("cmd_vel", "geometry_msgs/msg/Twist"),
    ("plan", "nav_msgs/msg/Path"),
    ("navigate_to_pose/_action/feedback", "nav2_msgs/action/NavigateToPose_FeedbackMessage"),
    ("navigate_to_pose/_action/status", "action_msgs/msg/GoalStatusArray"),
]
ACTION_NAME = "navigate_to_pose"

LATCHED = qos.LATCHED
TF_QOS = qos.TF
#: sensor QoS of sim_node in lock-step (reliable, transient local): a late node still gets the frame
LOCKSTEP_SENSOR = qos.LOCKSTEP_SENSOR


def _duration(seconds: float) -> Duration:
    seconds = max(0.0, float(seconds)) if math.isfinite(seconds) else 0.0
    ns = int(round(seconds * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def _stamp_ns(stamp) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


class _Preempted(Exception):
    pass


class NavigationNode(Node):
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
        declare_bool(self, "straight_goal", False,
                     "gait follower: the next goal is walked straight (no planning, no replanning) and ends "
                     "failed at the first bump (HAZARD's move_by); consumed by the next goal")
        p("arrive_near", "", ParameterDescriptor(
            description="gait follower: [x, y, object radius, gap, reach] makes the next goal walk_to's: to "
                        "the stand-off cells of that object, ending within gap of its circle, facing it; consumed "
                        "by the next goal", dynamic_typing=True))
        lifecycle_names = [n for n in p("lifecycle_names", ["bt_navigator", "amcl", "~"]).value if n]
        localization_rate = float(p("localization_rate", 1.0).value)
        waypoint_servers = declare_bool(self, "waypoint_servers", True,
                                        "serve follow_waypoints, navigate_through_poses")
        if self.control_rate <= 0:
            raise ValueError(f"control_rate must be > 0, got {self.control_rate}")
        period = self.frame_dt if self.lockstep else 1.0 / self.control_rate
        self.follower_config = FollowerConfig(max_linear=vmax, max_angular=wmax, control_period=period,
                                              xy_tolerance=xy_tol, yaw_tolerance=yaw_tol, stuck_time=stuck,
                                              gain=gain)
        # the gait follower walks the core's paths: plan them the core's way too
        self.planner = GridPlanner(self.robot_radius, goal_snap_radius=snap, core_law=self.gait_follower)

        self._cv = threading.Condition()
        self._map: OccupancyMap | None = None
        self._map_version = 0
        self._map_stamp_ns = -1
        self._walk_map: OccupancyMap | None = None      # the decision node's walking map (walk_map)
        self._walk_map_version = 0
        self._walk_map_stamp_ns = -1
        self._use_walk_map = False                      # this goal plans on it
        self._walk_due = lambda frame: False            # lock-step: frames whose walk_map to wait for
        self._arrival: list[float] | None = None        # the running goal's arrive_near
        self._straight = False                          # the running goal is a straight walk
        self._touched = np.zeros((0, 2))                # bumper/cells: cells the body touched
        self._objects: dict[int, np.ndarray] = {}       # world/objects: id -> centre xy
        self._objects_stamp_ns = -1
        self._follow_id = -1                            # the running walk_to's object (world/objects id)
        self._bumper_stamp_ns = -1
        self._use_bumper = False                        # this goal waits for bumper/cells every frame
        self._pose_stamp_ns = -1
        self._tf = TfBuffer(history=50)
        self._tick = 0
        self._drive_lock = threading.Lock()
        self._active_goal = None
        self._stopping = threading.Event()
        self._camera_period = 1          # lock-step: frames between camera images (from ``task``)
        self._running_goals = 0
        self._last_goal_end = 0.0
        self.lifecycle = self.waypoints = None
        self.cycle_times: list[float] = []      # wall s per control cycle, waiting included (diagnostics)
        self.compute_times: list[float] = []    # wall s per cycle spent in this node (pose, map, control)

        if not self.enabled:
            self.get_logger().info("navigation disabled (enabled: false): no navigate_to_pose server; "
                                   "run Nav2 instead")
            return

        self._sub_group = MutuallyExclusiveCallbackGroup()
        self._action_group = ReentrantCallbackGroup()
        self._client_group = ReentrantCallbackGroup()
        self.cmd_pub = self.create_publisher(Twist, "cmd_vel", 10)
        self.plan_pub = self.create_publisher(Path, "plan", LATCHED)
        self.create_subscription(OccupancyGrid, "map", self._on_map, LATCHED, callback_group=self._sub_group)
        self.create_subscription(OccupancyGrid, "walk_map", lambda m: self._on_map(m, walk=True), LATCHED,
                                 callback_group=self._sub_group)
        self.create_subscription(Detection3DArray, "world/objects", self._on_objects,
                                 qos.sensor_subscription_qos(self.lockstep), callback_group=self._sub_group)
        self.create_subscription(GridCells, "bumper/cells", self._on_bumper,
                                 qos.sensor_subscription_qos(self.lockstep), callback_group=self._sub_group)
        self.create_subscription(Odometry, "odom", self._on_odom,
                                 qos.sensor_subscription_qos(self.lockstep),
                                 callback_group=self._sub_group)
        self.create_subscription(TFMessage, "/tf", self._on_tf, TF_QOS, callback_group=self._sub_group)
        self.create_subscription(TFMessage, "/tf_static", lambda m: self._on_tf(m, True),
                                 qos.TF_STATIC_SUB,
                                 callback_group=self._sub_group)
        if self.lockstep:
            self.step_client = self.create_client(Trigger, "sim/step", callback_group=self._client_group)
            self.create_subscription(String, "task", self._on_task, LATCHED, callback_group=self._sub_group)
        else:
            self.create_timer(1.0 / self.control_rate, self._on_tick, callback_group=self._sub_group)
        self.action_server = ActionServer(
            self, NavigateToPose, ACTION_NAME, execute_callback=self._execute,
            goal_callback=self._on_goal, cancel_callback=lambda _: CancelResponse.ACCEPT,
            callback_group=self._action_group, result_timeout=60)
        self.lifecycle = nav2_compat.LifecycleStates(self, lifecycle_names) if lifecycle_names else None
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

    # ------------------------------------------------------------ inputs
    def _on_map(self, msg: OccupancyGrid, walk: bool = False) -> None:
        g = mg.guard(self)
        if not g.ok("walk_map" if walk else "map", mg.check_occupancy_grid, msg, g.now_ns()):
            return
        info = msg.info
        q = info.origin.orientation
        if abs(quaternion_to_yaw(q)) > 1e-6:
            self.get_logger().warning("map origin is rotated; rotated maps are not supported, ignoring it",
                                      throttle_duration_sec=10.0)
            return
        try:
            omap = OccupancyMap.from_flat(msg.data, info.width, info.height, info.resolution,
                                          (info.origin.position.x, info.origin.position.y))
        except ValueError as exc:
            self.get_logger().error(f"bad map: {exc}", throttle_duration_sec=10.0)
            return
        with self._cv:
            if walk:
                self._walk_map = omap
                self._walk_map_version += 1
                self._walk_map_stamp_ns = _stamp_ns(msg.header.stamp)
            else:
                self._map = omap
                self._map_version += 1
                self._map_stamp_ns = _stamp_ns(msg.header.stamp)
            self._cv.notify_all()

    def _on_objects(self, msg: Detection3DArray) -> None:
        """The simulator's ground-truth object boxes: a walk_to goal follows its object."""
        centres = {}
        for d in msg.detections:
            try:
                centres[int(d.id)] = np.array([d.bbox.center.position.x, d.bbox.center.position.y])
            except ValueError:
                continue
        with self._cv:
            self._objects = centres
            self._objects_stamp_ns = max(self._objects_stamp_ns, _stamp_ns(msg.header.stamp))
            self._cv.notify_all()

    def _on_bumper(self, msg: GridCells) -> None:
        cells = np.array([[c.x, c.y] for c in msg.cells], float).reshape(-1, 2)
        with self._cv:
            self._touched = cells[np.all(np.isfinite(cells), axis=1)]
            self._bumper_stamp_ns = max(self._bumper_stamp_ns, _stamp_ns(msg.header.stamp))
            self._cv.notify_all()

    def _on_odom(self, msg: Odometry) -> None:
        with self._cv:
            if not mg.guard(self).odometry("odom", msg):
                return
        p = msg.pose.pose
        T = planar_matrix(p.position.x, p.position.y, quaternion_to_yaw(p.orientation))
        stamp = _stamp_ns(msg.header.stamp)
        parent = msg.header.frame_id or "odom"
        child = msg.child_frame_id or self.base_frame
        with self._cv:
            try:
                self._tf.set_transform(T, parent, child, stamp)
            except ValueError as exc:
                self.get_logger().error(f"odom: {exc}", throttle_duration_sec=10.0)
                return
            if child == self.base_frame:
                self._pose_stamp_ns = max(self._pose_stamp_ns, stamp)
            self._cv.notify_all()

    def _on_tf(self, msg: TFMessage, static: bool = False) -> None:
        with self._cv:
            for t in mg.guard(self).transforms("/tf_static" if static else "/tf", msg, static):
                try:
                    self._tf.add_message([t], static=static)
                except ValueError as exc:
                    self.get_logger().error(f"tf: {exc}", throttle_duration_sec=10.0)
                    continue
                if t.child_frame_id.lstrip("/") == self.base_frame and not static:
                    self._pose_stamp_ns = max(self._pose_stamp_ns, _stamp_ns(t.header.stamp))
            self._cv.notify_all()

    def _on_task(self, msg: String) -> None:
        """The simulator's camera period: in lock-step ``map`` only advances on camera frames."""
        task = mg.guard(self).json("task", msg, mg.TASK_FIELDS, mg.TASK_REQUIRED)
        if task is None:
            return
        period = (task.get("sensor_periods") or {}).get("camera", 1)
        with self._cv:
            self._camera_period = max(1, int(period)) if period else 0
            self._cv.notify_all()

    def _map_due(self, frame: int) -> bool:
        """Lock-step: does ``frame`` bring a new map (a camera frame)?"""
        return self.lockstep_wait_map and self._camera_period > 0 and frame % self._camera_period == 0

    def _on_tick(self) -> None:
        with self._cv:
            self._tick += 1
            self._cv.notify_all()

    # ------------------------------------------------------------ helpers
    def _notify(self, event: threading.Event) -> None:
        event.set()
        with self._cv:
            self._cv.notify_all()

    def _wait(self, predicate, timeout: float) -> bool:
        """Wait (wall time) until ``predicate()`` holds, waking on every input."""
        end = time.monotonic() + timeout
        with self._cv:
            while not predicate():
                left = end - time.monotonic()
                if left <= 0 or not rclpy.ok(context=self.context) or self._stopping.is_set():
                    return predicate()
                self._cv.wait(min(left, 0.2))
            return True

    def _robot_pose(self) -> tuple[np.ndarray, int]:
        """(x, y, yaw) of the base in the global frame and its stamp (ns)."""
        with self._cv:
            try:
                T = self._tf.lookup(self.global_frame, self.base_frame)
            except TfLookupError as exc:
                raise NavigationError(ErrorCode.TF_ERROR, f"no robot pose: {exc}") from None
            stamp = self._pose_stamp_ns
        return np.array([T[0, 3], T[1, 3], math.atan2(T[1, 0], T[0, 0])]), stamp

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _goal_in_map(self, goal: PoseStamped) -> tuple[np.ndarray, float | None]:
        frame = goal.header.frame_id.lstrip("/") or self.global_frame
        o = goal.pose.orientation
        qn = math.sqrt(o.x ** 2 + o.y ** 2 + o.z ** 2 + o.w ** 2)
        yaw = quaternion_to_yaw(o) if qn > 1e-9 else None     # an all-zero quaternion: any heading
        xy = np.array([goal.pose.position.x, goal.pose.position.y])
        if frame != self.global_frame:
            with self._cv:
                try:
                    T = self._tf.lookup(self.global_frame, frame)
                except TfLookupError as exc:
                    raise NavigationError(ErrorCode.TF_ERROR,
                                          f"cannot transform the goal from {frame!r} to {self.global_frame!r}: {exc}") \
                        from None
            xy = (T @ np.array([xy[0], xy[1], 0.0, 1.0]))[:2]
            if yaw is not None:
                yaw += math.atan2(T[1, 0], T[0, 0])
        if not np.all(np.isfinite(xy)):
            raise NavigationError(ErrorCode.GOAL_OUTSIDE_MAP, f"goal position {xy.tolist()} is not finite")
        return xy, yaw

    def _stop(self) -> None:
        self.cmd_pub.publish(Twist())

    def _publish_plan(self, waypoints: np.ndarray) -> None:
        msg = Path()
        msg.header.frame_id = self.global_frame
        msg.header.stamp = self.get_clock().now().to_msg()
        n = len(waypoints)
        for k, xy in enumerate(waypoints):
            nxt = waypoints[k + 1] - xy if k + 1 < n else (xy - waypoints[k - 1] if n > 1 else np.zeros(2))
            ps = PoseStamped()
            ps.header = msg.header
            ps.pose.position.x, ps.pose.position.y = float(xy[0]), float(xy[1])
            ps.pose.orientation = yaw_to_quaternion(math.atan2(nxt[1], nxt[0]) if np.any(nxt) else 0.0)
            msg.poses.append(ps)
        self.plan_pub.publish(msg)

    def _update_map(self, version_seen: int) -> int:
        if self._use_bumper:
            with self._cv:
                touched = self._touched
            self.planner.set_touched(touched)
        with self._cv:
            if self._use_walk_map:
                omap, version = self._walk_map, self._walk_map_version
            else:
                omap, version = self._map, self._map_version
        if omap is not None and version != version_seen:
            self.planner.set_map(omap)
        return version

    def _plan(self, pose: np.ndarray, goal_xy: np.ndarray):
        if self._straight:             # move_by's straight walk: no planning
            way = np.array([np.asarray(pose[:2], float), np.asarray(goal_xy, float)])
            self._publish_plan(way)
            return Plan(way, way[-1].copy(), False, float(np.linalg.norm(way[1] - way[0])))
        arrival = self._arrival
        if arrival is not None:        # walk_to's goal: the stand-off cells around the object
            plan = self.planner.plan_stand_off(pose[:2], arrival[:2], arrival[2], arrival[3], arrival[4])
            self._publish_plan(plan.waypoints)
            return plan
        plan = self.planner.plan(pose[:2], goal_xy)
        self._publish_plan(plan.waypoints)
        if plan.snapped:
            self.get_logger().info(f"goal ({goal_xy[0]:.2f}, {goal_xy[1]:.2f}) lies in an obstacle; going to "
                                   f"({plan.goal_xy[0]:.2f}, {plan.goal_xy[1]:.2f})")
        return plan

    # ------------------------------------------------------------ action server
    def _on_goal(self, goal) -> GoalResponse:
        return GoalResponse.ACCEPT

    def _next_cycle(self, gh) -> None:
        """Let one control period pass: lock-step = advance the simulator one frame and wait
        for its map and pose; free-run = wait for the next timer tick."""
        if self.lockstep:
            # cmd_vel and sim/step are separate DDS channels; from one participant they arrive
            # in order, and a single-threaded simulator takes subscriptions before services.
            # (Publisher.wait_for_all_acked would make sure, but Fast DDS acknowledges on its
            # 3 s heartbeat between processes: far too slow for every frame.)
            end = time.monotonic() + self.wait_timeout
            while not self.step_client.wait_for_service(timeout_sec=0.1):
                if self._stopping.is_set():
                    raise _Preempted()
                if time.monotonic() > end:
                    raise NavigationError(ErrorCode.UNKNOWN, "lock-step: service sim/step is not available")
            fut = self.step_client.call_async(Trigger.Request())
            done = threading.Event()
            fut.add_done_callback(lambda _: self._notify(done))
            if not self._wait(lambda: done.is_set() or self._stopping.is_set(), self.wait_timeout):
                raise NavigationError(ErrorCode.TIMEOUT, f"lock-step: sim/step did not answer within "
                                                         f"{self.wait_timeout:g} s")
            if self._stopping.is_set():
                raise _Preempted()
            resp = fut.result()
            if resp is None or not resp.success:
                raise NavigationError(ErrorCode.UNKNOWN, f"lock-step: sim/step failed: "
                                                         f"{resp.message if resp else 'no response'}")
            try:
                frame = int(resp.message.strip())
            except ValueError:
                raise NavigationError(ErrorCode.UNKNOWN, f"lock-step: sim/step answered {resp.message!r}, "
                                                         "expected the new frame number") from None
            need = int(round(frame * self.frame_dt * 1e9))
            map_due = self._map_due(frame) and not self._use_walk_map
            # walking on the walking map: the body observes this frame, and the next plan must
            # see it (the decision node publishes the map with it)
            walk_due = self._use_walk_map and self._walk_due(frame)
            ok = self._wait(lambda: self._pose_stamp_ns >= need and
                            (not map_due or self._map_stamp_ns >= need) and
                            (not walk_due or self._walk_map_stamp_ns >= need) and
                            (not self._use_bumper or self._bumper_stamp_ns >= need) and
                            (self._follow_id < 0 or self._objects_stamp_ns >= need), self.wait_timeout)
            if not ok:
                what = [] if self._pose_stamp_ns >= need else ["robot pose (odom / tf)"]
                if map_due and self._map_stamp_ns < need:
                    what.append("map (is mapping_node running?)")
                if walk_due and self._walk_map_stamp_ns < need:
                    what.append("walk_map (is decision_node running?)")
                if self._use_bumper and self._bumper_stamp_ns < need:
                    what.append("bumper/cells")
                if self._follow_id >= 0 and self._objects_stamp_ns < need:
                    what.append("world/objects")
                raise NavigationError(ErrorCode.TIMEOUT, f"lock-step: no {' and '.join(what)} for frame {frame} "
                                                         f"within {self.wait_timeout:g} s")
        else:
            with self._cv:
                tick = self._tick
            while not self._wait(lambda: self._tick != tick, 1.0):
                if gh.is_cancel_requested or not gh.is_active or self._active_goal != bytes(gh.goal_id.uuid):
                    return
                self.get_logger().warning("waiting for the control timer (is /clock running?)",
                                          throttle_duration_sec=5.0)

    def _execute(self, gh):
        with self._cv:
            self._running_goals += 1
        try:
            return self._execute_goal(gh)
        finally:
            with self._cv:
                self._running_goals -= 1
                self._last_goal_end = time.monotonic()

    def _execute_goal(self, gh):
        my_id = bytes(gh.goal_id.uuid)
        self._active_goal = my_id          # a newer goal preempts the running one
        result = NavigateToPose.Result()
        t0 = None
        if gh.request.behavior_tree:
            result.error_code = NavigateToPose.Result.FAILED_TO_LOAD_BEHAVIOR_TREE
            result.error_msg = (f"behavior tree {gh.request.behavior_tree!r} not supported: this navigator has no "
                                "behavior-tree engine (send an empty behavior_tree)")
            self.get_logger().warning(result.error_msg)
            gh.abort()
            return result
        try:
            with self._drive_lock:
                if self._active_goal != my_id:
                    raise _Preempted()
                goal_xy, goal_yaw = self._goal_in_map(gh.request.pose)
                self._use_walk_map = self.gait_follower and bool(self.get_parameter("walk_map").value)
                # the simulator's touch sensor: bumps marked as the embedded walking map marks them
                self._use_bumper = self._use_walk_map and self.lockstep and \
                    self.count_publishers(self.resolve_topic_name("bumper/cells")) > 0
                self._walk_due = lambda frame: False
                topic = "walk_map" if self._use_walk_map else "map"
                if not self._wait(lambda: (self._walk_map if self._use_walk_map else self._map) is not None,
                                  self.wait_timeout):
                    raise NavigationError(ErrorCode.PLANNER_UNKNOWN,
                                          f"no map received on {self.resolve_topic_name(topic)} within "
                                          f"{self.wait_timeout:g} s")
                if not self._wait(lambda: self._tf.can_transform(self.global_frame, self.base_frame),
                                  self.wait_timeout):
                    self._robot_pose()             # raises TF_ERROR with the reason
                if self.lockstep:
                    # a stamped goal was decided on that frame: plan on its pose and map
                    need = _stamp_ns(gh.request.pose.header.stamp)
                    # a stamp far ahead of the simulation (wall-clock time of a client without
                    # use_sim_time, as in Nav2 examples) names no frame: do not wait for it
                    if need > max(self._pose_stamp_ns, self.get_clock().now().nanoseconds) + 5_000_000_000:
                        need = -1
                    frame_ns = int(round(self.frame_dt * 1e9))
                    goal_frame = need // frame_ns if need >= 0 else 0
                    period = self._camera_period
                    # the map of the goal's frame is the one of the last camera frame up to it
                    map_need = (goal_frame - goal_frame % period) * frame_ns if period else -1
                    if self._use_walk_map:      # the walking map has the goal's own frame
                        map_ok = lambda: self._walk_map_stamp_ns >= need and \
                            (not self._use_bumper or self._bumper_stamp_ns >= need)      # noqa: E731
                    else:
                        map_ok = lambda: not self.lockstep_wait_map or self._map_stamp_ns >= map_need  # noqa: E731
                    if need >= 0 and not self._wait(lambda: self._pose_stamp_ns >= need and map_ok(),
                                                    self.wait_timeout):
                        self.get_logger().warning(f"lock-step: no pose / map of the goal's stamp "
                                                  f"{need * 1e-9:.1f} s; planning on the latest")
                version = self._update_map(0)
                pose, stamp = self._robot_pose()
                t0 = self._time(stamp)
                runner = self._goal_runner()
                arrival = self._take_arrival()
                straight = bool(self.get_parameter("straight_goal").value)
                if straight:
                    self.set_parameters([rclpy.parameter.Parameter("straight_goal", value=False)])
                if not isinstance(runner.follower, GaitFollower) or not self.planner.core_law:
                    arrival, straight = None, False
                self._arrival, self._straight = arrival, straight
                # a walk_to whose object the simulator's world/objects reports: follow it (wind)
                self._follow_id = int(arrival[5]) if arrival is not None and len(arrival) == 6 and \
                    self.lockstep and self.count_publishers(self.resolve_topic_name("world/objects")) > 0 else -1
                runner.bump_ahead = not self._use_bumper
                if straight:                 # move_by: straight along the heading, the first bump ends it
                    runner.follower.replan_every, runner.max_recoveries = 0, 0
                    runner.follower.set_straight(float(np.linalg.norm(goal_xy - pose[:2])))
                if arrival is not None:
                    runner.follower.set_arrival(arrival[:2], arrival[2], self.robot_radius, arrival[3])
                plan = runner.start(pose, goal_xy, goal_yaw, t0)
                if self._use_walk_map and self.lockstep and self.observe_every > 0:
                    # the frames the walking body observes: every observe_every-th of the goal
                    start, every, follower = int(round(stamp * 1e-9 / self.frame_dt)), self.observe_every, \
                        runner.follower
                    self._walk_due = lambda frame: (not follower.xy_reached and frame > start
                                                    and (frame - start) % every == 0)
                self.get_logger().info(
                    f"goal ({goal_xy[0]:.2f}, {goal_xy[1]:.2f}"
                    f"{'' if goal_yaw is None else f', {math.degrees(goal_yaw):.0f} deg'}): path "
                    f"{plan.length:.2f} m, planned in {plan.planning_time * 1e3:.1f} ms")
            while True:
                with self._drive_lock:
                    if self._active_goal != my_id:
                        raise _Preempted()
                    if not gh.is_active:
                        return result
                    if gh.is_cancel_requested:
                        self._stop()
                        gh.canceled()
                        self.get_logger().info("goal canceled")
                        return result
                    c0 = time.perf_counter()
                    pose, stamp = self._robot_pose()
                    t = self._time(stamp)
                    new_version = self._update_map(version)
                    self._follow_object(runner, stamp)
                    cmd = runner.step(pose, t, map_changed=new_version != version)
                    version = new_version
                    self._feedback(gh, pose, stamp, t - t0, cmd, runner.recoveries)
                    if cmd.status == "succeeded":
                        self._stop()
                        gh.succeed()
                        self.get_logger().info(f"goal reached in {t - t0:.1f} s at ({pose[0]:.2f}, {pose[1]:.2f})")
                        return result
                    twist = Twist()
                    twist.linear.x, twist.angular.z = float(cmd.v), float(cmd.w)
                    self.cmd_pub.publish(twist)
                    self.compute_times.append(time.perf_counter() - c0)
                    self._next_cycle(gh)
                    self.cycle_times.append(time.perf_counter() - c0)
                    del self.cycle_times[:-1000], self.compute_times[:-1000]
        except _Preempted:
            result.error_code = ErrorCode.UNKNOWN
            result.error_msg = ("navigation node shutting down" if self._stopping.is_set()
                                else "preempted by a newer goal")
            if gh.is_active:
                gh.abort()
            return result
        except NavigationError as exc:
            self._stop()
            result.error_code = int(exc.code)
            result.error_msg = exc.message
            if self._stopping.is_set():              # the wait ended because this node stops
                result.error_code, result.error_msg = int(ErrorCode.UNKNOWN), "navigation node shutting down"
                self.get_logger().info("goal aborted: navigation node shutting down")
            else:
                self.get_logger().warning(f"navigation failed ({exc.code.name}): {exc.message}")
            if gh.is_active:
                gh.abort()
            return result
        except Exception as exc:  # noqa: BLE001 - a failed goal, never a dead server
            self._stop()
            result.error_code = int(ErrorCode.UNKNOWN)
            result.error_msg = f"internal error: {type(exc).__name__}: {exc}"
            self.get_logger().error(result.error_msg)
            if gh.is_active:
                gh.abort()
            return result

    def _follow_object(self, runner, stamp_ns: int) -> None:
        """walk_to's object where world/objects has it at the pose's frame (the embedded walk
        reads its box every frame): the arrival and the stand-off planning follow it."""
        if self._follow_id < 0 or self._arrival is None:
            return
        self._wait(lambda: self._objects_stamp_ns >= stamp_ns, self.wait_timeout)
        with self._cv:
            xy = self._objects.get(self._follow_id)
        if xy is None:
            return
        self._arrival[0], self._arrival[1] = float(xy[0]), float(xy[1])
        f = runner.follower
        if f.arrival is not None:
            f.arrival = (np.array(xy, float), *f.arrival[1:])

    def _take_arrival(self):
        """The ``arrive_near`` of the goal that starts now ([x, y, object radius, gap, reach]
        or None), cleared for the goals after it."""
        value = self.get_parameter("arrive_near").value
        if value in ("", None) or (hasattr(value, "__len__") and len(value) == 0):
            return None
        self.set_parameters([rclpy.parameter.Parameter("arrive_near", value="")])
        try:
            arrival = [float(v) for v in value]
        except (TypeError, ValueError):
            arrival = []
        if len(arrival) not in (5, 6) or not all(math.isfinite(v) for v in arrival):
            self.get_logger().warning(f"arrive_near must be [x, y, object radius, gap, reach(, object id)], got "
                                      f"{value!r}; ignored")
            return None
        return arrival

    def _goal_runner(self) -> GoalRunner:
        """The control of one goal: the core's gait (``gait_follower``) or pure pursuit."""
        if self.gait_follower:
            # every bump replans, as the embedded walk does; the goal's time limit bounds it
            return GoalRunner(self.planner, self._plan, self.follower_config, self.robot_radius,
                              1_000_000, self.max_navigation_time, log=self.get_logger().info,
                              follower=GaitFollower(self.follower_config))
        return GoalRunner(self.planner, self._plan, self.follower_config, self.robot_radius,
                          self.max_recoveries, self.max_navigation_time, log=self.get_logger().warning)

    def _time(self, stamp_ns: int) -> float:
        """The controller's time: the pose stamp in lock-step (exact frames), else the clock."""
        return stamp_ns * 1e-9 if self.lockstep else self._now_s()

    def _feedback(self, gh, pose, stamp_ns, elapsed, cmd, recoveries) -> None:
        fb = NavigateToPose.Feedback()
        fb.current_pose.header.frame_id = self.global_frame
        fb.current_pose.header.stamp.sec = max(stamp_ns, 0) // 1_000_000_000
        fb.current_pose.header.stamp.nanosec = max(stamp_ns, 0) % 1_000_000_000
        fb.current_pose.pose.position.x, fb.current_pose.pose.position.y = float(pose[0]), float(pose[1])
        fb.current_pose.pose.orientation = yaw_to_quaternion(float(pose[2]))
        fb.navigation_time = _duration(elapsed)
        fb.estimated_time_remaining = _duration(cmd.time_remaining)
        fb.number_of_recoveries = int(recoveries)
        fb.distance_remaining = float(cmd.distance_remaining)
        gh.publish_feedback(fb)


def main(args=None) -> int:
    return run_node(NavigationNode, "navigation_node", args, threads=4)


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["NavigationNode", "PUBLISHED_TOPICS", "ACTION_NAME", "main"]
