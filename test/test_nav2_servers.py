"""The Nav2 servers of navigation_node over DDS, through the project's own commander
(planner_node.ros_commander.Navigator: BasicNavigator's method names) and the upstream
nav2_msgs action and service types: planner, smoother, controller, behaviors, costmaps and
their clears, the lifecycle manager and map_server/load_map; results, feedback, error codes,
cancellation and preemption.

The robots are test_planner_nodes' fake ones (8 m x 6 m room, a wall at x = 4 m with a door
at y = 2.5..3.5 m, a 1 m box around (7, 5)): /lock steps only on ``sim/step`` (lock-step, the
gait: exact turns and straight steps) and republishes the map every frame; /free runs at
10 Hz and publishes its map once.  No wall-clock assertions: every wait is a condition with
a deadline.
"""
from __future__ import annotations

import contextlib
import copy
import math
import os
import random
import threading

import numpy as np
import pytest

try:
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor

    from hazard_ros.executors import SteadyMultiThreadedExecutor
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc}); run scripts/setup_ros.sh",
                allow_module_level=True)

pytest.importorskip("nav2_msgs")
from builtin_interfaces.msg import Duration  # noqa: E402
from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from lifecycle_msgs.msg import Transition  # noqa: E402
from lifecycle_msgs.srv import ChangeState, GetState  # noqa: E402
from nav2_msgs.action import BackUp, DriveOnHeading, FollowPath, SmoothPath, Wait  # noqa: E402
from nav2_msgs.srv import ManageLifecycleNodes  # noqa: E402
from nav_msgs.msg import OccupancyGrid  # noqa: E402
from std_msgs.msg import Empty  # noqa: E402
from test_planner_nodes import FAST, FakeRobot  # noqa: E402

from hazard_sim.geometry import wrap_angle  # noqa: E402
from hazard_sim.navigation.map_files import save_map  # noqa: E402
from planner_node.costmap import INSCRIBED, LETHAL  # noqa: E402
from planner_node.nav_convert import path_xy  # noqa: E402
from planner_node.navigation_node import LATCHED, NavigationNode  # noqa: E402
from planner_node.ros_commander import Navigator, RunningTask, TaskResult, pose_stamped  # noqa: E402
from planner_node.smoothing import resample  # noqa: E402

WAIT_S = 30.0


@contextlib.contextmanager
def nav_stack(free_start=(1.0, 4.5, 0.0), aerial: bool = False):
    """A context on a random localhost domain with a lock-step (/lock) and a free-run (/free)
    fake robot, a navigation node for each and a commander (Navigator) in each namespace;
    yields {"robot", "nav", "cmd", "context"} (also used by benchmarks/bench_nav2_servers.py);
    ``aerial``: also /air, a free-run node with body_kind aerial."""
    saved = {k: os.environ.get(k) for k in ("ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_LOCALHOST_ONLY")}
    domain = random.SystemRandom().randint(1, 101)
    os.environ.update(ROS_DOMAIN_ID=str(domain), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    os.environ.pop("ROS_LOCALHOST_ONLY", None)
    context = Context()
    rclpy.init(context=context, domain_id=domain)
    executor = SteadyMultiThreadedExecutor(num_threads=4, context=context)
    robots = {"lock": FakeRobot("lock", context, start=(1.0, 1.0, 0.0), lockstep=True),
              "free": FakeRobot("free", context, start=free_start)}
    navs = {"lock": NavigationNode(namespace="lock", context=context, parameter_overrides=FAST + [
                rclpy.parameter.Parameter("lockstep", value=True)]),
            "free": NavigationNode(namespace="free", context=context, parameter_overrides=FAST)}
    if aerial:
        robots["air"] = FakeRobot("air", context, start=(1.0, 4.5, 0.0))
        navs["air"] = NavigationNode(namespace="air", context=context, parameter_overrides=FAST + [
            rclpy.parameter.Parameter("body_kind", value="aerial")])
    executors = [executor]
    for r in robots.values():
        executors.append(SingleThreadedExecutor(context=context))
        executors[-1].add_node(r)
    for n in navs.values():
        executor.add_node(n)
    for e in executors:
        threading.Thread(target=e.spin, daemon=True).start()
    cmd = {ns: Navigator.create("commander", namespace=ns, context=context) for ns in navs}
    try:
        yield {"robot": robots, "nav": navs, "cmd": cmd, "context": context}
    finally:
        for c in cmd.values():
            c.destroyNode()
        for e in executors:
            e.shutdown(timeout_sec=2.0)
        for n in [*robots.values(), *navs.values()]:
            n.destroy_node()
        rclpy.shutdown(context=context)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="module")
def ros():
    with nav_stack(aerial=True) as stack:
        yield stack


def map_msg(robot) -> OccupancyGrid:
    """The fake robot's map as its next frame publishes it."""
    m = OccupancyGrid()
    m.header.frame_id = "map"
    m.info.resolution = 0.1
    m.info.height, m.info.width = robot.grid.shape
    m.info.origin.orientation.w = 1.0
    m.data = robot.grid.ravel().tolist()
    return m


def teleport(robot, x: float, y: float, yaw: float) -> None:
    """Put the fake robot there, as a new frame (the navigation node drops a jump within a frame)."""
    with robot.lock:
        robot.frame += 1
    robot.teleport(x, y, yaw)


def wait_task(nav: Navigator, limit_s: float = WAIT_S) -> TaskResult:
    for _ in range(int(limit_s / 0.1)):
        if nav.isTaskComplete():
            return nav.getResult()
    raise AssertionError("task did not end")


def here(ros, ns: str):
    with ros["robot"][ns].lock:
        return ros["robot"][ns].pose.copy()


def start_pose(ros, ns: str):
    x, y, yaw = here(ros, ns)
    return pose_stamped(x, y, yaw)


def test_planner_paths_and_error_codes(ros):
    nav = ros["cmd"]["lock"]
    teleport(ros["robot"]["lock"], 1.0, 1.0, 0.0)
    path = nav.getPath(start_pose(ros, "lock"), pose_stamped(6.0, 1.0, math.pi / 2))
    assert path is not None, nav.getTaskError()
    xy = path_xy(path)
    assert np.allclose(xy[0], (1.0, 1.0), atol=0.1) and np.allclose(xy[-1], (6.0, 1.0))
    assert np.all(np.abs(xy[:, 0] - 4.0) > 0.05) or np.any((xy[:, 1] > 2.5) & (xy[:, 1] < 3.5))   # via the door
    assert np.linalg.norm(np.diff(xy, axis=0), axis=1).sum() > 5.5                               # a detour
    o = path.poses[-1].pose.orientation
    assert abs(wrap_angle(2 * math.atan2(o.z, o.w) - math.pi / 2)) < 1e-6
    # use_start plans from the given start
    p2 = nav.getPath(pose_stamped(1.0, 4.5), pose_stamped(2.0, 4.5), use_start=True)
    assert p2 is not None and np.allclose(path_xy(p2)[0], (1.0, 4.5))
    cases = [((pose_stamped(20.0, 1.0),), {}, 204), ((pose_stamped(7.0, 5.0),), {}, 206),
             ((pose_stamped(2.0, 1.0),), {"planner_id": "NoSuchPlanner"}, 201)]
    for (goal,), kw, code in cases:
        assert nav.getPath(start_pose(ros, "lock"), goal, **kw) is None
        assert nav.getTaskError()[0] == code, nav.getTaskError()
    assert nav.getPath(pose_stamped(0.05, 0.05), pose_stamped(2.0, 1.0), use_start=True) is None
    assert nav.getTaskError()[0] == 205                                           # start on the wall
    through = nav.getPathThroughPoses(start_pose(ros, "lock"), [pose_stamped(2.0, 4.0), pose_stamped(6.0, 1.0)])
    txy = path_xy(through)
    assert np.min(np.linalg.norm(txy - (2.0, 4.0), axis=1)) < 1e-9 and np.allclose(txy[-1], (6.0, 1.0))
    assert nav.getPathThroughPoses(start_pose(ros, "lock"), []) is None and nav.getTaskError()[0] == 309


def test_smoother_keeps_ends_and_stays_off_obstacles(ros):
    nav, node = ros["cmd"]["lock"], ros["nav"]["lock"]
    path = nav.getPath(pose_stamped(1.0, 1.0), pose_stamped(6.0, 1.0), use_start=True)
    smoothed = nav.smoothPath(path, check_for_collision=True)
    assert smoothed is not None, nav.getTaskError()
    a, b = path_xy(path), path_xy(smoothed)
    assert np.allclose(b[0], a[0]) and np.allclose(b[-1], a[-1]) and len(b) > len(a)

    def roughness(p):                                       # what the smoother lowers
        return float((np.diff(p, 2, axis=0) ** 2).sum())
    assert roughness(b) < 0.75 * roughness(resample(a, 0.1))  # corners rounded off
    blocked, spec = node.planner_server.planner.blocked, node._global_map.map.spec
    i, j = spec.to_cells(b)
    assert not blocked[i, j].any()                          # no pose moved into an obstacle
    assert nav.smoothPath(path, smoother_id="nope") is None
    assert nav.getTaskError()[0] == SmoothPath.Result.INVALID_SMOOTHER
    bad = copy.deepcopy(path)
    bad.poses[len(bad.poses) // 2].pose.position.x = float("nan")       # refused, not an internal error
    assert nav.smoothPath(bad) is None
    assert nav.getTaskError()[0] == SmoothPath.Result.INVALID_PATH and "not finite" in nav.getTaskError()[1]


def test_follow_path_with_feedback_and_error_codes(ros):
    nav = ros["cmd"]["lock"]
    teleport(ros["robot"]["lock"], 1.0, 1.0, 0.0)
    path = nav.getPath(start_pose(ros, "lock"), pose_stamped(3.0, 2.0, 0.0))
    seen = []
    task = nav.followPath(path)
    assert task == RunningTask.FOLLOW_PATH
    while not nav.isTaskComplete():
        if nav.getFeedback() is not None:
            seen.append(nav.getFeedback().distance_to_goal)
    assert nav.getResult() == TaskResult.SUCCEEDED, nav.getTaskError()
    assert np.hypot(*(here(ros, "lock")[:2] - (3.0, 2.0))) <= 0.25 and seen and seen[0] > seen[-1]
    assert nav.followPath(path, controller_id="nope") is not None
    assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == FollowPath.Result.INVALID_CONTROLLER
    nav.followPath(type(path)())
    assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == FollowPath.Result.INVALID_PATH


def test_spin_backup_drive_and_wait_lockstep_are_exact(ros):
    nav, robot = ros["cmd"]["lock"], ros["robot"]["lock"]
    teleport(robot, 2.0, 1.5, 0.0)
    nav.spin(math.pi / 2)
    assert wait_task(nav) == TaskResult.SUCCEEDED, nav.getTaskError()
    assert abs(wrap_angle(here(ros, "lock")[2] - math.pi / 2)) < 1e-6        # target_yaw is a float32
    assert abs(nav.getFeedback().angular_distance_traveled - math.pi / 2) < 1e-6
    nav.spin(-3.5)                                          # more than half a turn, clockwise
    assert wait_task(nav) == TaskResult.SUCCEEDED
    assert abs(wrap_angle(here(ros, "lock")[2] - (math.pi / 2 - 3.5))) < 1e-6
    teleport(robot, 2.0, 1.5, 0.0)
    nav.backup(0.3, 0.5)
    assert wait_task(nav) == TaskResult.SUCCEEDED, nav.getTaskError()
    assert np.allclose(here(ros, "lock"), (1.7, 1.5, 0.0), atol=1e-9)
    nav.driveOnHeading(0.4, 0.5)
    assert wait_task(nav) == TaskResult.SUCCEEDED
    assert np.allclose(here(ros, "lock"), (2.1, 1.5, 0.0), atol=1e-9)
    frame = robot.frame
    waited = nav._send_to("wait", Wait, Wait.Goal(time=Duration(sec=0, nanosec=500_000_000)), "Wait")
    assert waited is not None and wait_task(nav) == TaskResult.SUCCEEDED
    assert robot.frame - frame == 5                         # 0.5 s of sim time: 5 frames stepped


def test_behaviors_check_ahead_and_report_collisions(ros):
    nav, robot = ros["cmd"]["lock"], ros["robot"]["lock"]
    teleport(robot, 3.3, 1.5, 0.0)                           # 0.7 m before the wall at x = 4
    nav.driveOnHeading(1.0, 0.5)
    assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == DriveOnHeading.Result.COLLISION_AHEAD
    assert "collision ahead" in nav.getTaskError()[1]
    assert here(ros, "lock")[0] < 3.8                       # stopped before touching it
    teleport(robot, 3.3, 1.5, math.pi)                       # backwards into the wall
    nav.backup(1.0, 0.5)
    assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == BackUp.Result.COLLISION_AHEAD
    teleport(robot, 3.3, 1.5, 0.0)
    nav.driveOnHeading(1.0, 0.5, disable_collision_checks=True)   # on to the bump
    assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == DriveOnHeading.Result.COLLISION_AHEAD
    assert "bumped" in nav.getTaskError()[1] and here(ros, "lock")[0] > 3.5
    nav.driveOnHeading(1.0, -0.5)
    assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == DriveOnHeading.Result.INVALID_INPUT
    for dist, speed in ((float("nan"), 0.5), (0.3, float("nan")), (float("inf"), 0.5)):
        nav.backup(dist, speed)
        assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == BackUp.Result.INVALID_INPUT, \
            (dist, speed, nav.getTaskError())
    nav.spin(float("nan"))
    assert wait_task(nav) == TaskResult.FAILED and "not finite" in nav.getTaskError()[1]


def test_costmaps_inflate_and_clears_have_their_effect(ros):
    nav, node = ros["cmd"]["lock"], ros["nav"]["lock"]
    teleport(ros["robot"]["lock"], 3.0, 1.0, 0.0)
    grids = []
    sub = nav.node.create_subscription(OccupancyGrid, "global_costmap/costmap", grids.append, LATCHED)
    cm = nav.getGlobalCostmap()
    w, h = cm.metadata.size_x, cm.metadata.size_y
    c = np.array(cm.data, np.uint8).reshape(h, w)
    assert (w, h) == (80, 60) and c[10, 40] == LETHAL and c[10, 38] == INSCRIBED and c[10, 20] == 0
    assert 0 < c[10, 36] < INSCRIBED                         # inflation decays beyond the robot radius
    for _ in range(50):
        if grids:
            break
        nav._pause(0.1)
    assert grids and grids[-1].data[10 * 80 + 40] == 100 and grids[-1].data[10 * 80 + 38] == 99
    nav.node.destroy_subscription(sub)
    local = nav.getLocalCostmap()
    assert (local.metadata.size_x, local.metadata.size_y) == (30, 30)
    assert abs(local.metadata.origin.position.x + 1.5 - 3.0) < 0.11
    # a clear frees the wall (the robot's map marks it again at the next frame)
    nav.clearCostmapAroundRobot(2.5, costmap="global")
    c = np.array(nav.getGlobalCostmap().data, np.uint8).reshape(h, w)
    assert c[10, 40] == 0 and c[0, 30] == 0 and c[0, 10] == LETHAL      # around: near walls freed, far ones kept
    straight = nav.getPath(pose_stamped(3.0, 1.0), pose_stamped(5.0, 1.0), use_start=True)
    assert np.linalg.norm(np.diff(path_xy(straight), axis=0), axis=1).sum() < 2.01    # through the cleared wall
    node._on_map(map_msg(ros["robot"]["lock"]))            # the next observation marks it again
    nav.clearCostmapExceptRegion(1.0, costmap="global")
    c = np.array(nav.getGlobalCostmap().data, np.uint8).reshape(h, w)
    assert c[0, 0] == 0 and c[59, 79] == 0
    node._on_map(map_msg(ros["robot"]["lock"]))
    nav.clearGlobalCostmap()
    assert not np.any(np.array(nav.getGlobalCostmap().data) == LETHAL)
    node._on_map(map_msg(ros["robot"]["lock"]))
    nav.clearLocalCostmap()
    assert np.any(np.array(nav.getGlobalCostmap().data) == LETHAL)      # each costmap its own clears
    assert not np.any(np.array(nav.getLocalCostmap().data) == LETHAL)
    node._on_map(map_msg(ros["robot"]["lock"]))
    nav.clearAllCostmaps()
    assert not any(np.any(np.array(m.data) == LETHAL) for m in (nav.getGlobalCostmap(), nav.getLocalCostmap()))


def test_assisted_teleop_slows_before_the_wall_until_preempted(ros):
    nav, robot = ros["cmd"]["lock"], ros["robot"]["lock"]
    teleport(robot, 3.0, 1.5, 0.0)                          # the wall at x = 4.0 m ahead
    teleop = nav.node.create_publisher(Twist, "cmd_vel_teleop", 10)
    preempt = nav.node.create_publisher(Empty, "preempt_teleop", 10)
    assert nav.assistedTeleop(time_allowance=60) == RunningTask.ASSISTED_TELEOP
    frame0, last = robot.frame, []
    for _ in range(600):                                    # the operator pushes on, full speed
        teleop.publish(Twist(linear=Vector3(x=0.5)))
        nav.isTaskComplete()
        last = (last + [here(ros, "lock")[0]])[-20:]
        if robot.frame - frame0 > 40 and len(last) == 20 and max(last) - min(last) < 1e-9:
            break                                           # it stopped
    x = here(ros, "lock")[0]
    assert 3.3 < x <= 4.0 - 0.25 and nav.getFeedback().current_teleop_duration.sec + \
        nav.getFeedback().current_teleop_duration.nanosec > 0
    teleop.publish(Twist())
    preempt.publish(Empty())
    assert wait_task(nav) == TaskResult.SUCCEEDED, nav.getTaskError()


def test_cancel_and_preempt_free_run(ros):
    nav, robot = ros["cmd"]["free"], ros["robot"]["free"]
    teleport(robot, 1.0, 4.5, 0.0)
    nav.spin(6.0)
    for _ in range(100):
        if nav.getFeedback() is not None and nav.getFeedback().angular_distance_traveled > 0.1:
            break
        nav.isTaskComplete()
    nav.cancelTask()
    assert wait_task(nav) == TaskResult.CANCELED
    assert nav.getFeedback().angular_distance_traveled < 5.0
    first = nav.spin(6.0)
    handle = nav.goal_handle
    result = nav.result_future
    assert first == RunningTask.SPIN
    nav.backup(0.2, 0.5)                                    # preempts the spin (one body)
    assert wait_task(nav) == TaskResult.SUCCEEDED, nav.getTaskError()
    nav._wait_future(result, WAIT_S)
    assert result.result().status == 6 and "preempted" in result.result().result.error_msg   # ABORTED
    assert handle is not nav.goal_handle


def test_lifecycle_manager_and_server_states(ros):
    nav = ros["cmd"]["free"]

    def state(name):
        return nav._call(f"{name}/get_state", GetState, GetState.Request()).current_state.label
    assert {state(n) for n in ("planner_server", "controller_server", "smoother_server", "behavior_server",
                               "global_costmap/global_costmap", "local_costmap/local_costmap")} == {"active"}
    manage = lambda c: nav._call("lifecycle_manager_navigation/manage_nodes", ManageLifecycleNodes,   # noqa: E731
                                 ManageLifecycleNodes.Request(command=c)).success
    assert manage(ManageLifecycleNodes.Request.PAUSE)
    assert state("planner_server") == "inactive"
    assert nav.getPath(start_pose(ros, "free"), pose_stamped(2.0, 4.5)) is None and "rejected" in nav.getTaskError()[1]
    assert manage(ManageLifecycleNodes.Request.RESUME) and state("planner_server") == "active"
    assert nav.getPath(start_pose(ros, "free"), pose_stamped(2.0, 4.5)) is not None
    change = nav._call("behavior_server/change_state", ChangeState,
                       ChangeState.Request(transition=Transition(id=Transition.TRANSITION_DEACTIVATE)))
    assert change.success and nav.spin(0.5) is None
    assert nav.lifecycleStartup() and state("behavior_server") == "active"
    assert nav.spin(0.2) is not None and wait_task(nav) == TaskResult.SUCCEEDED


def test_approach_object_ends_near_the_object_facing_it(ros):
    nav, robot = ros["cmd"]["lock"], ros["robot"]["lock"]
    teleport(robot, 1.0, 1.5, math.pi)                     # facing away from the object
    assert nav.approach(pose_stamped(3.0, 1.5, None))
    assert wait_task(nav) == TaskResult.SUCCEEDED, nav.getTaskError()
    x, y, yaw = here(ros, "lock")
    gap = math.hypot(3.0 - x, 1.5 - y) - 0.05 - 0.25        # point object: approach_object_radius 0.05
    assert -1e-9 <= gap <= 0.5 + 1e-9 and abs(wrap_angle(math.atan2(1.5 - y, 3.0 - x) - yaw)) < 1e-6
    assert nav.approach(pose_stamped(0.0, 0.0, None, frame_id="object/77"))     # no such object
    assert wait_task(nav) == TaskResult.FAILED and nav.error_code == 9002 and "object 77" in nav.error_msg


def test_a_flying_body_gets_the_behaviors_and_clear_errors_for_the_rest(ros):
    nav = ros["cmd"]["air"]
    assert nav.getPath(start_pose(ros, "air"), pose_stamped(2.0, 4.5)) is None
    code, msg = nav.getTaskError()
    assert code == 201 and "flying body" in msg
    nav.followPath(ros["cmd"]["lock"].getPath(pose_stamped(1.0, 4.5), pose_stamped(2.0, 4.5), use_start=True))
    assert wait_task(nav) == TaskResult.FAILED and nav.getTaskError()[0] == FollowPath.Result.INVALID_CONTROLLER
    nav.goToPose(pose_stamped(2.0, 4.5))
    assert wait_task(nav) == TaskResult.FAILED and "flying body" in nav.getTaskError()[1]
    teleport(ros["robot"]["air"], 1.0, 4.5, 0.0)
    nav.spin(1.0)
    assert wait_task(nav) == TaskResult.SUCCEEDED, nav.getTaskError()
    assert abs(wrap_angle(here(ros, "air")[2] - 1.0)) <= math.radians(1.0)


def test_change_map_then_shutdown(ros, tmp_path):
    # last: lifecycleShutdown, as BasicNavigator's, shuts every lifecycle manager it finds down
    nav = ros["cmd"]["free"]
    grid = np.zeros((30, 40), np.int16)
    grid[:, 20] = 100
    save_map(tmp_path / "wall.yaml", grid, 0.2, (0.0, 0.0))
    assert nav.changeMap(str(tmp_path / "wall.yaml"))
    cm = nav.getGlobalCostmap()
    assert (cm.metadata.size_x, cm.metadata.size_y, round(cm.metadata.resolution, 3)) == (40, 30, 0.2)
    assert np.array(cm.data, np.uint8).reshape(30, 40)[5, 20] == LETHAL
    assert not nav.changeMap(str(tmp_path / "missing.yaml"))
    assert nav.lifecycleShutdown()
    assert nav.spin(0.5) is None                            # shut down: goals rejected
    assert nav._call("planner_server/get_state", GetState, GetState.Request()).current_state.label == "finalized"
