"""The navigation node's inputs (maps, robot pose, objects, touch sensor, task) and the
helpers over them, as a mixin of :class:`planner_node.navigation_node.NavigationNode` (the
servers in ``planner_node.nav_*`` read the robot through it).

Every callback stores its message under ``self._cv`` and wakes the goal loops waiting in
:meth:`NavInputs._wait`; lock-step goals compare the stamps kept here with the frame they need.
"""
from __future__ import annotations

import math
import threading
import time

import numpy as np
import rclpy
from geometry_msgs.msg import PoseStamped, Twist
from nav_msgs.msg import GridCells, OccupancyGrid, Odometry, Path
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import Detection3DArray

from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.conversions import planar_matrix, quaternion_to_yaw, yaw_to_quaternion
from hazard_ros.tf_math import TfBuffer, TfLookupError
from perception_node.instance_outputs import OBJECTS_TOPIC
from planner_node.costmap import ClearableMap
from planner_node.navigation import ErrorCode, NavigationError, OccupancyMap

LATCHED = qos.LATCHED
TF_QOS = qos.TF
#: sensor QoS of sim_node in lock-step (reliable, transient local): a late node still gets the frame
LOCKSTEP_SENSOR = qos.LOCKSTEP_SENSOR


def stamp_ns(stamp) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def object_radius(size) -> float:
    """The footprint radius of a ``vision_msgs`` box (half its diagonal in x, y), as the
    decision node measures the objects of ``perception/objects``."""
    return float(np.hypot(size.x / 2.0, size.y / 2.0))


class NavInputs:
    """The state the navigation servers share: see the module docstring."""

    def _init_inputs(self) -> None:
        self._cv = threading.Condition()
        self._map: OccupancyMap | None = None
        self._map_stamp_ns = -1
        self._global_map = ClearableMap()               # map with the global costmap's clears
        self._local_map = ClearableMap()                # map with the local costmap's clears
        self._walk_map: OccupancyMap | None = None      # the decision node's walking map (walk_map)
        self._walk_map_version = 0
        self._walk_map_stamp_ns = -1
        self._use_walk_map = False                      # this goal plans on it
        self._touched = np.zeros((0, 2))                # bumper/cells: cells the body touched
        self._objects: dict[int, tuple[np.ndarray, float]] = {}   # perception/objects: id -> (centre xy, radius)
        self._objects_stamp_ns = -1
        self._bumper_stamp_ns = -1
        self._use_bumper = False                        # this goal waits for bumper/cells every frame
        self._pose_stamp_ns = -1
        self._tf = TfBuffer(history=50)
        self._tick = 0
        self._stopping = threading.Event()
        self._camera_period = 1          # lock-step: frames between camera images (from ``task``)

    def _subscribe_inputs(self) -> None:
        group = self._sub_group
        sensor = qos.sensor_subscription_qos(self.lockstep)
        self.cmd_pub = self.create_publisher(Twist, "cmd_vel", 10)
        self.plan_pub = self.create_publisher(Path, "plan", LATCHED)
        self.create_subscription(OccupancyGrid, "map", self._on_map, qos.LATCHED_SUB, callback_group=group)
        self.create_subscription(OccupancyGrid, "walk_map", lambda m: self._on_map(m, walk=True), qos.LATCHED_SUB,
                                 callback_group=group)
        self.create_subscription(Detection3DArray, OBJECTS_TOPIC, self._on_objects, sensor, callback_group=group)
        self.create_subscription(GridCells, "bumper/cells", self._on_bumper, sensor, callback_group=group)
        self.create_subscription(Odometry, "odom", self._on_odom, sensor, callback_group=group)
        self.create_subscription(TFMessage, "/tf", self._on_tf, TF_QOS, callback_group=group)
        self.create_subscription(TFMessage, "/tf_static", lambda m: self._on_tf(m, True), qos.TF_STATIC_SUB,
                                 callback_group=group)
        if self.lockstep:
            self.step_client = self.create_client(Trigger, "sim/step", callback_group=self._client_group)
            self.create_subscription(String, "task", self._on_task, qos.LATCHED_SUB, callback_group=group)
        else:
            self.create_timer(1.0 / self.control_rate, self._on_tick, callback_group=group)

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
                self._walk_map_stamp_ns = stamp_ns(msg.header.stamp)
            else:
                self._map = omap
                self._global_map.set_map(omap)
                self._local_map.set_map(omap)
                self._map_stamp_ns = stamp_ns(msg.header.stamp)
            self._cv.notify_all()

    def _on_objects(self, msg: Detection3DArray) -> None:
        """Perception's object boxes (``perception/objects``: the objects seen so far, per
        camera frame): an approach goal follows its object."""
        centres = {}
        for d in msg.detections:
            try:
                centres[int(d.id)] = (np.array([d.bbox.center.position.x, d.bbox.center.position.y]),
                                      object_radius(d.bbox.size))
            except ValueError:
                continue
        with self._cv:
            self._objects = centres
            self._objects_stamp_ns = max(self._objects_stamp_ns, stamp_ns(msg.header.stamp))
            self._cv.notify_all()

    def _on_bumper(self, msg: GridCells) -> None:
        cells = np.array([[c.x, c.y] for c in msg.cells], float).reshape(-1, 2)
        with self._cv:
            self._touched = cells[np.all(np.isfinite(cells), axis=1)]
            self._bumper_stamp_ns = max(self._bumper_stamp_ns, stamp_ns(msg.header.stamp))
            self._cv.notify_all()

    def _on_odom(self, msg: Odometry) -> None:
        with self._cv:
            if not mg.guard(self).odometry("odom", msg):
                return
        p = msg.pose.pose
        T = planar_matrix(p.position.x, p.position.y, quaternion_to_yaw(p.orientation))
        stamp = stamp_ns(msg.header.stamp)
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
                    self._pose_stamp_ns = max(self._pose_stamp_ns, stamp_ns(t.header.stamp))
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

    def _objects_need(self, need: int) -> int:
        """Lock-step: the stamp of the ``perception/objects`` that describes the frame of stamp
        ``need`` (perception sees camera frames only: the last camera frame up to it; -1 with
        the camera off)."""
        period = self._camera_period
        if not period or need < 0:
            return -1
        frame_ns = int(round(self.frame_dt * 1e9))
        frame = need // frame_ns
        return (frame - frame % period) * frame_ns

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
            else:           # the map with the global costmap's clears
                omap, version = self._global_map.effective(), self._global_map.version
        if omap is not None and version != version_seen:
            self.planner.set_map(omap)
        return version

