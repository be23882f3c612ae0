"""navigation_node in-process with a tiny fake robot: goals, feedback, failures, cancel,
lock-step stepping and the Navigator (nav2_simple_commander-style) client.

The fake robot integrates ``cmd_vel`` like the humanoid (turn, then walk; 0.1 s frames;
no entry into cells within 0.2 m of an obstacle), publishes ``odom``, ``/tf_static``
map -> odom and a static ``map``.  In lock-step it advances only on ``sim/step``.  Each fake
robot spins on an executor (and thread) of its own, as a simulator process would, so its
``sim/step`` service never waits behind the navigation nodes' blocking goal callbacks.
Every module run uses its own random DDS domain on localhost; every test has a hard limit.
"""
from __future__ import annotations

import json
import math
import os
import random
import threading
import time

import numpy as np
import pytest

try:
    import rclpy
    from rclpy.action import ActionClient
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    from hazard_ros.executors import SteadyMultiThreadedExecutor
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run scripts/setup_ros.sh",
                allow_module_level=True)

from action_msgs.msg import GoalStatus
from geometry_msgs.msg import Twist
from nav2_msgs.action import NavigateToPose
from nav_msgs.msg import OccupancyGrid, Odometry, Path
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage

from hazard_ros.conversions import stamp_from_frame, to_ros_odometry, to_ros_transform
from hazard_sim.geometry import wrap_angle
from hazard_sim.navigation.grid import inflate
from planner_node.navigation import ErrorCode
from planner_node.navigation_node import LATCHED, LOCKSTEP_SENSOR, PUBLISHED_TOPICS, NavigationNode
from planner_node.ros_commander import Navigator, TaskResult, pose_stamped

#: the fake robots of the navigation tests walk 0.5 m/s and turn 150 deg/s (the nodes take these
#: limits as parameters): the humanoid's calibrated 0.1 m/s would make a 5 m lock-step goal 500+
#: DDS round trips; the navigation behaviour under test does not depend on the speed
ROBOT_MAX_LINEAR = 0.5
ROBOT_MAX_ANGULAR = math.radians(150.0)
FAST = [rclpy.parameter.Parameter("max_linear_speed", value=ROBOT_MAX_LINEAR),
        rclpy.parameter.Parameter("max_angular_speed", value=150.0)]

TEST_TIME_LIMIT_S = 60
WAIT_S = 30.0


def door_grid() -> np.ndarray:
    """8 m x 6 m room with a wall at x = 4.0 m and a 1 m door at y = 2.5..3.5 m."""
    g = np.zeros((60, 80), np.int8)
    g[0, :] = g[-1, :] = g[:, 0] = g[:, -1] = 100
    g[:, 40] = 100
    g[25:35, 40] = 0
    g[45:55, 65:75] = 100               # a 1 m x 1 m box around (7.0, 5.0)
    return g


class FakeRobot(Node):
    """Integrates cmd_vel; publishes odom, map and map -> odom (see the module docstring)."""

    def __init__(self, namespace: str, context, start=(1.0, 1.0, 0.0), lockstep: bool = False):
        super().__init__("fake_robot", namespace=namespace, context=context)
        self.grid = door_grid()
        solid = self.grid >= 50
        solid[19:25, 61:67] = True          # a low block the map does not show (x 6.1-6.7, y 1.9-2.5)
        self.blocked = inflate(solid, 0.2, 0.1)
        self.pose = np.array(start, float)
        self.cmd = (0.0, 0.0)
        self.cmds: list[tuple[float, float]] = []
        self.frame = 0
        self.lock = threading.Lock()
        self.odom_pub = self.create_publisher(Odometry, "odom", LOCKSTEP_SENSOR if lockstep else 10)
        self.map_pub = self.create_publisher(OccupancyGrid, "map", LATCHED)
        self.tf_static = self.create_publisher(TFMessage, "/tf_static", LATCHED)
        self.create_subscription(Twist, "cmd_vel", self._on_cmd, 10)
        self.tf_static.publish(TFMessage(transforms=[to_ros_transform(np.eye(4), stamp_from_frame(0), "map", "odom")]))
        self.lockstep = lockstep
        if lockstep:
            self.create_service(Trigger, "sim/step", self._on_step)
        else:
            self.create_timer(0.1, self._advance_and_publish)
        self._publish(with_map=True)

    def _on_cmd(self, msg: Twist) -> None:
        with self.lock:
            self.cmd = (msg.linear.x, msg.angular.z)
            self.cmds.append(self.cmd)

    def _advance(self) -> None:
        with self.lock:
            v, w = self.cmd
            v = float(np.clip(v, -ROBOT_MAX_LINEAR, ROBOT_MAX_LINEAR))
            w = float(np.clip(w, -ROBOT_MAX_ANGULAR, ROBOT_MAX_ANGULAR))
            self.pose[2] = wrap_angle(self.pose[2] + w * 0.1)
            nxt = self.pose[:2] + v * 0.1 * np.array([math.cos(self.pose[2]), math.sin(self.pose[2])])
            if not self.blocked[int(nxt[1] / 0.1), int(nxt[0] / 0.1)]:
                self.pose[:2] = nxt
            self.frame += 1

    def _publish(self, with_map: bool) -> None:
        stamp = stamp_from_frame(self.frame)
        self.odom_pub.publish(to_ros_odometry(*self.pose, 0.0, 0.0, stamp))
        if with_map:
            m = OccupancyGrid()
            m.header.frame_id = "map"
            m.header.stamp = stamp
            m.info.resolution = 0.1
            m.info.height, m.info.width = self.grid.shape
            m.info.origin.orientation.w = 1.0
            m.data = self.grid.ravel().tolist()
            self.map_pub.publish(m)

    def _advance_and_publish(self) -> None:
        self._advance()
        self._publish(with_map=False)

    def teleport(self, x: float, y: float, yaw: float) -> None:
        """Put the robot at (x, y, yaw) and publish that pose (same frame)."""
        with self.lock:
            self.pose[:] = (x, y, yaw)
            self.cmd = (0.0, 0.0)
        self._publish(with_map=False)

    def _on_step(self, request, response):
        self._advance()
        self._publish(with_map=True)          # the mapping node re-stamps the map every frame
        response.success = True
        response.message = str(self.frame)
        return response


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def ros():
    """One context on a random localhost-only domain; the navigation nodes (lock-step in
    /lock, free-run in /free) and their fake robots spin in a background thread."""
    saved = {k: os.environ.get(k) for k in ("ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_LOCALHOST_ONLY")}
    domain = random.SystemRandom().randint(1, 101)
    os.environ["ROS_DOMAIN_ID"] = str(domain)
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ.pop("ROS_LOCALHOST_ONLY", None)
    context = Context()
    rclpy.init(context=context, domain_id=domain)
    executor = SteadyMultiThreadedExecutor(num_threads=4, context=context)
    nodes = {
        "lock_robot": FakeRobot("lock", context, lockstep=True),
        "lock_nav": NavigationNode(namespace="lock", context=context, parameter_overrides=FAST + [
            rclpy.parameter.Parameter("lockstep", value=True)]),
        "free_robot": FakeRobot("free", context, start=(1.0, 4.5, 0.0)),
        "free_nav": NavigationNode(namespace="free", context=context, parameter_overrides=FAST + [
            rclpy.parameter.Parameter("control_rate", value=10.0)]),
    }
    executors = [executor]
    for name, n in nodes.items():
        if name.endswith("_robot"):                  # a simulator of its own: own executor, own thread
            executors.append(SingleThreadedExecutor(context=context))
            executors[-1].add_node(n)
        else:
            executor.add_node(n)
    threads = [threading.Thread(target=e.spin, daemon=True) for e in executors]
    for t in threads:
        t.start()
    client = rclpy.create_node("nav_test_client", context=context)   # spun by the Navigator itself
    try:
        yield {"context": context, "client": client, **nodes}
    finally:
        client.destroy_node()
        for e in executors:
            e.shutdown(timeout_sec=2.0)
        for n in nodes.values():
            n.destroy_node()
        rclpy.shutdown(context=context)
        for t in threads:
            t.join(timeout=2.0)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def navigator(ros, ns: str) -> Navigator:
    nav = Navigator(ros["client"], f"/{ns}/navigate_to_pose")
    assert nav.wait_for_server(WAIT_S), "navigate_to_pose not discovered"
    return nav


def spin_until(nav: Navigator, predicate, timeout_s: float = WAIT_S) -> bool:
    """Spin the client node until ``predicate()`` holds (no fixed sleeps); False at the deadline."""
    end = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > end:
            return False
        nav._wait_future(rclpy.task.Future(), 0.02)
    return True


# --------------------------------------------------------------------------- tests

def test_goal_through_the_door_succeeds_with_feedback_lockstep(ros):
    client_node = ros["client"]
    robot, nav_node = ros["lock_robot"], ros["lock_nav"]
    plans = []
    client_node.create_subscription(Path, "/lock/plan", plans.append, LATCHED)
    client = ActionClient(client_node, NavigateToPose, "/lock/navigate_to_pose")
    nav = navigator(ros, "lock")          # the Navigator spins the client node for us
    try:
        feedback = []
        goal = NavigateToPose.Goal(pose=pose_stamped(6.0, 1.0, yaw=math.pi / 2))
        send = client.send_goal_async(goal, feedback_callback=lambda m: feedback.append(m.feedback))
        assert nav._wait_future(send, WAIT_S) and send.result().accepted
        t0 = time.perf_counter()
        res = send.result().get_result_async()
        assert nav._wait_future(res, WAIT_S), "no result"
        wall = time.perf_counter() - t0
        # feedback, plan and the final stop travel beside the result: wait for them, not a fixed time
        assert spin_until(nav, lambda: plans and feedback and feedback[-1].distance_remaining < 0.3
                          and robot.cmds[-1] == (0.0, 0.0))
        r = res.result()
        assert r.status == GoalStatus.STATUS_SUCCEEDED, r.result.error_msg
        assert r.result.error_code == 0 and r.result.error_msg == ""
        x, y, yaw = robot.pose
        assert math.hypot(x - 6.0, y - 1.0) <= 0.25
        assert abs(wrap_angle(yaw - math.pi / 2)) <= math.radians(10)
        assert robot.cmds[-1] == (0.0, 0.0)                # stopped at the end
        assert all(abs(v) <= ROBOT_MAX_LINEAR + 1e-9 and abs(w) <= ROBOT_MAX_ANGULAR + 1e-9
                   for v, w in robot.cmds)
        # through the door: more frames than the straight 5 m, not many more than the path (in
        # lock-step the gait walks the core's 8-connected path corners, turning at each: 184 frames)
        straight = 5.0 / (ROBOT_MAX_LINEAR * 0.1)
        assert straight + 5 <= robot.frame <= 1.9 * straight + 20, robot.frame
        assert feedback, "no feedback"
        d = [f.distance_remaining for f in feedback]
        assert d[0] > 5.0 and d[-1] < 0.3
        last = feedback[-1]
        assert last.current_pose.header.frame_id == "map"
        # the core's 8-connected path (lock-step plans as the embedded walk does) brushes the low
        # block the map does not show (x 6.1-6.7, y 1.9-2.5) once: one bump, replanned around it
        assert last.number_of_recoveries <= 1
        nav_time = last.navigation_time.sec + last.navigation_time.nanosec * 1e-9
        assert nav_time == pytest.approx((robot.frame - 1) * 0.1, abs=0.11)    # sim time: frames * 0.1 s
        assert feedback[0].estimated_time_remaining.sec >= 5.0 / ROBOT_MAX_LINEAR - 1
        # the first plan goes through the door (the gait follower replans every 10 frames:
        # the last plans are the straight rest of the way)
        assert plans and len(plans[0].poses) >= 3 and plans[-1].header.frame_id == "map"
        rate = len(nav_node.cycle_times) / max(sum(nav_node.cycle_times), 1e-9)
        print(f"lock-step control loop: {robot.frame} frames in {wall:.2f} s wall "
              f"({robot.frame / wall:.0f} cycles/s incl. step + map wait; {rate:.0f}/s cycle time only)")
    finally:
        client.destroy()
        nav.destroy()


def test_unreachable_goal_fails_with_message(ros):
    nav = navigator(ros, "lock")
    try:
        frame0 = ros["lock_robot"].frame
        assert nav.go_to_pose(pose_stamped(7.0, 5.0, 0.0))        # the middle of the 1 m box
        assert nav.wait_for_task(WAIT_S) == TaskResult.FAILED
        assert nav.error_code == ErrorCode.GOAL_OCCUPIED
        assert "unreachable" in nav.error_msg and "(7.00, 5.00)" in nav.error_msg
        assert nav.go_to_pose(pose_stamped(20.0, 1.0, 0.0))
        assert nav.wait_for_task(WAIT_S) == TaskResult.FAILED
        assert nav.error_code == ErrorCode.GOAL_OUTSIDE_MAP and "outside the map" in nav.error_msg
        assert ros["lock_robot"].frame == frame0                 # nothing moved
    finally:
        nav.destroy()


def test_bump_into_an_unmapped_obstacle_recovers(ros):
    """The straight path crosses a block the map does not show: the robot gets stuck,
    marks a bump, replans around it and arrives (lock-step, so the count is exact)."""
    nav = navigator(ros, "lock")
    robot = ros["lock_robot"]
    try:
        robot.teleport(6.0, 1.0, math.pi / 2)
        nav_tf = ros["lock_nav"]._tf
        assert spin_until(nav, lambda: np.allclose(nav_tf.lookup("map", "base_link")[:2, 3], (6.0, 1.0))), \
            "the navigation node did not get the new pose"
        assert nav.go_to_pose(pose_stamped(6.8, 3.6, None))         # no final heading
        recoveries = []
        end = time.monotonic() + WAIT_S
        while not nav.is_task_complete() and time.monotonic() < end:
            if nav.get_feedback() is not None:
                recoveries.append(nav.get_feedback().number_of_recoveries)
        assert nav.get_result() == TaskResult.SUCCEEDED, nav.error_msg
        assert math.hypot(robot.pose[0] - 6.8, robot.pose[1] - 3.6) <= 0.25
        assert max(recoveries) >= 1
    finally:
        nav.destroy()


def test_cancel_stops_the_robot(ros):
    nav = navigator(ros, "free")
    robot = ros["free_robot"]
    try:
        assert nav.go_to_pose(pose_stamped(1.0, 1.5, -math.pi / 2))   # 3 m away
        t0 = time.monotonic()
        while time.monotonic() - t0 < WAIT_S:            # wait until it walks (after its turn)
            nav.is_task_complete(0.05)
            fb = nav.get_feedback()
            if fb is not None and fb.distance_remaining < 2.6:
                break
        assert nav.get_feedback() is not None and nav.get_feedback().distance_remaining < 2.6
        assert nav.cancel_task()
        assert nav.wait_for_task(WAIT_S) == TaskResult.CANCELED
        t0 = time.monotonic()
        while robot.cmds[-1] != (0.0, 0.0) and time.monotonic() - t0 < 2.0:
            nav._wait_future(rclpy.task.Future(), 0.05)
        assert robot.cmds[-1] == (0.0, 0.0)
        y_stop = robot.pose[1]
        assert 1.5 + 0.5 < y_stop < 4.5 - 0.3                   # stopped on the way
        nav._wait_future(rclpy.task.Future(), 0.3)
        assert robot.pose[1] == pytest.approx(y_stop)
    finally:
        nav.destroy()


def test_new_goal_preempts_the_running_one(ros):
    client_node = ros["client"]
    client = ActionClient(client_node, NavigateToPose, "/free/navigate_to_pose")
    nav = navigator(ros, "free")
    robot = ros["free_robot"]
    try:
        x, y, yaw = robot.pose
        first = client.send_goal_async(NavigateToPose.Goal(pose=pose_stamped(x, y - 2.5, None)))
        assert nav._wait_future(first, WAIT_S) and first.result().accepted
        first_result = first.result().get_result_async()
        nav._wait_future(rclpy.task.Future(), 0.3)
        assert nav.go_to_pose(pose_stamped(x, y, yaw + math.pi / 2))       # turn in place instead
        assert nav.wait_for_task(WAIT_S) == TaskResult.SUCCEEDED, nav.error_msg
        assert nav._wait_future(first_result, WAIT_S)
        r = first_result.result()
        assert r.status == GoalStatus.STATUS_ABORTED and "preempted" in r.result.error_msg
    finally:
        client.destroy()
        nav.destroy()


def test_commander_round_trip_free_run(ros):
    nav = navigator(ros, "free")
    robot = ros["free_robot"]
    try:
        x0, y0, _ = robot.pose
        goal = pose_stamped(x0 + 0.8, y0, math.pi)
        assert nav.goToPose(goal)
        seen = []
        while not nav.isTaskComplete():
            fb = nav.getFeedback()
            if fb is not None:
                seen.append(fb.distance_remaining)
        assert nav.getResult() == TaskResult.SUCCEEDED, nav.error_msg
        assert seen and max(seen) > 0.5
        x, y, yaw = robot.pose
        assert math.hypot(x - goal.pose.position.x, y - goal.pose.position.y) <= 0.25
        assert abs(abs(yaw) - math.pi) <= math.radians(10)
        assert not nav.cancel_task()                            # nothing left to cancel
    finally:
        nav.destroy()


def test_topics_and_disabled_server(ros):
    node = ros["lock_nav"]
    names = {n for n, _ in node.get_publisher_names_and_types_by_node(node.get_name(), "/lock")}
    for topic, type_name in PUBLISHED_TOPICS:
        assert f"/lock/{topic}" in names, topic
    off = NavigationNode(node_name="nav_off", context=ros["context"],
                         parameter_overrides=[rclpy.parameter.Parameter("enabled", value=False)])
    try:
        assert not hasattr(off, "action_server")
        assert off.get_publisher_names_and_types_by_node("nav_off", "/") == [] or \
            all(n in ("/rosout", "/parameter_events") for n, _ in
                off.get_publisher_names_and_types_by_node("nav_off", "/"))
    finally:
        off.destroy_node()


def test_decision_node_runs_an_episode_in_lockstep():
    """sim_node (lock-step) + perception_node (groundtruth) + a ground-truth map stand-in +
    navigation_node + decision_node, in-process on a domain of their own: the greedy agent
    rescues an object over ROS, seeing objects only through perception."""
    from rclpy.parameter import Parameter
    from std_msgs.msg import String

    from hazard_ros.sim_node import SimNode
    from perception_node.perception_node import PerceptionNode
    from planner_node.plugins.hazard import PUBLISHED_TOPICS as DECISION_TOPICS
    from planner_node.plugins.hazard import DecisionNode

    domain = random.SystemRandom().randint(1, 101)
    context = Context()
    rclpy.init(context=context, domain_id=domain)
    lock = [Parameter("lockstep", value=True)]
    sim = SimNode(context=context, parameter_overrides=lock + [
        # fire test episode 3: greedy's first rescue at frame 139 (golden fire_greedy_3)
        Parameter("task", value="fire"), Parameter("episode", value=3), Parameter("frame_limit", value=200),
        Parameter("camera_width", value=160),
        Parameter("camera_height", value=120), Parameter("lidar_rate", value=0.0), Parameter("gps_rate", value=0.0),
        Parameter("imu_rate", value=0.0)])

    class TruthMap(Node):
        """Stands in for mapping_node: the true obstacles, stamped with each odom stamp."""

        def __init__(self):
            super().__init__("truth_map", context=context)
            self.pub = self.create_publisher(OccupancyGrid, "map", LATCHED)
            self.create_subscription(Odometry, "odom", self.on_odom, LOCKSTEP_SENSOR)

        def on_odom(self, msg):
            g, solid = sim.env.grid, sim.env.truth_solid
            m = OccupancyGrid()
            m.header.frame_id, m.header.stamp = "map", msg.header.stamp
            m.info.resolution = g.resolution
            m.info.height, m.info.width = g.shape
            m.info.origin.position.x, m.info.origin.position.y = g.bounds[0], g.bounds[1]
            m.info.origin.orientation.w = 1.0
            m.data = np.where(solid, 100, 0).astype(np.int8).ravel().tolist()
            self.pub.publish(m)

    nodes = [sim, TruthMap(), NavigationNode(context=context, parameter_overrides=lock),
             PerceptionNode(context=context, parameter_overrides=lock)]
    dec = DecisionNode(context=context, parameter_overrides=lock + [Parameter("agent", value="greedy"),
                                                                     Parameter("wait_timeout", value=10.0)])
    executor = SteadyMultiThreadedExecutor(num_threads=5, context=context)
    for n in nodes:
        executor.add_node(n)
    dec_executor = SteadyMultiThreadedExecutor(num_threads=4, context=context)
    dec_executor.add_node(dec)
    actions = []
    nodes[1].create_subscription(String, "decision/action", actions.append, 10)
    threads = [threading.Thread(target=e.spin, daemon=True) for e in (executor, dec_executor)]
    for t in threads:
        t.start()
    try:
        metrics = dec.run()
        assert metrics is not None, "no episode/metrics"
        assert metrics["frames"] == 200
        assert metrics["rescued_count"] >= 1 and metrics["value_rate"] > 0
        # the published actions arrive (the background executors deliver them): wait for the drop
        def dropped():
            return any(json.loads(a.data)["action"][0] == "drop" for a in list(actions))
        deadline = time.monotonic() + WAIT_S
        while not dropped() and time.monotonic() < deadline:
            threading.Event().wait(0.02)
        done = [json.loads(a.data) for a in actions]
        assert done and done[0]["action"][0] == "walk_to" and done[0]["success"], done[:2]
        assert any(d["action"][0] == "pick_up" and d["success"] for d in done)
        assert any(d["action"][0] == "drop" and d["success"] for d in done)
        names = {n for n, _ in dec.get_publisher_names_and_types_by_node(dec.get_name(), "/")}
        assert all(f"/{t}" in names for t, _ in DECISION_TOPICS)
    finally:
        executor.shutdown(timeout_sec=2.0)
        dec_executor.shutdown(timeout_sec=2.0)
        for n in nodes + [dec]:
            n.destroy_node()
        rclpy.shutdown(context=context)
        for t in threads:
            t.join(timeout=2.0)
