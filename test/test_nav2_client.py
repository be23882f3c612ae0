"""The launched stack driven over DDS the way a nav2_simple_commander script drives Nav2, and
stopped with Ctrl-C / SIGTERM.

``test_nav2_simple_commander_sequence`` calls, in BasicNavigator's order (Kilted):
``amcl/get_state`` (lifecycle_msgs/GetState) until active, waits for ``amcl_pose`` while
publishing ``initialpose``, ``bt_navigator/get_state`` until active, then NavigateToPose goals
stamped with the client's own (wall) clock as Nav2 examples do: feedback, success, cancel,
a named behavior tree (FAILED_TO_LOAD_BEHAVIOR_TREE), and FollowWaypoints. It uses plain rclpy
clients, not our commander, so it checks the server side independently.

``test_ctrl_c_and_sigterm_stop_every_node_cleanly`` starts ``hazard_launch`` repeatedly (4 times,
``HAZARD_SHUTDOWN_RUNS=10`` for ten) (with and
without a recording, with a goal under way) and stops it with SIGINT or SIGTERM: every node must
exit with code 0, with no traceback and no abort, and each recording must be a readable bag.
"""
from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

try:
    import rclpy
    from action_msgs.msg import GoalStatus
    from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
    from lifecycle_msgs.msg import State
    from lifecycle_msgs.srv import GetState
    from nav2_msgs.action import FollowWaypoints, NavigateToPose
    from rclpy.action import ActionClient
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy / nav2_msgs cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)

from hazard_ros import ros_qos as qos  # noqa: E402
from hazard_sim.embodiment.humanoid import HumanoidSpec  # noqa: E402

TEST_TIME_LIMIT_S = 170
REPO = Path(__file__).resolve().parents[1]

# fire/train/0 (a house of two rooms: room for every goal below; the test room is one small kitchen)
LAUNCH_ARGS = ["decision:=false", "camera_width:=96", "camera_height:=72", "split:=train", "episode:=0"]
START_X, START_Y = 0.768, 2.716                      # fire/train/0: the humanoid's start
GOAL_AHEAD = 0.8                                      # m: the goToPose goal ahead of the start
WALK = HumanoidSpec().limits().linear                 # m/s (0.49: the Replicant's gait on the 0.1 s clock)
FAR_GOAL = (5.8, 3.5)                                 # fire/train/0: a free cell 5.4 m of path from the start


def _launch(env, *args) -> subprocess.Popen:
    code = "import sys; from hazard_ros.launcher import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, *LAUNCH_ARGS, *args, "--grace", "8"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc: subprocess.Popen, sig=signal.SIGINT, timeout=40) -> str:
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        out = proc.communicate(timeout=timeout)[0].decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out = proc.communicate()[0].decode(errors="replace")
        pytest.fail(f"hazard_launch did not stop within {timeout} s:\n{out[-3000:]}")
    return out


def _assert_clean(out: str, code: int, expected: int = 130) -> None:
    """A launch stopped by a signal: the launcher's code is 128 + the signal (the run did not finish)."""
    assert code == expected, out[-4000:]
    for bad in ("Traceback", "terminate called", "crashed", "sending SIGTERM", "sending SIGKILL", "core dumped"):
        assert bad not in out, f"{bad!r} in the output:\n{out[-4000:]}"


class Client:
    """A node doing what nav2_simple_commander's BasicNavigator does, with plain rclpy."""

    def __init__(self, ctx):
        self.node = rclpy.create_node("basic_navigator_like", context=ctx)
        self.ex = SingleThreadedExecutor(context=ctx)
        self.ex.add_node(self.node)
        self.amcl_poses = []
        self.node.create_subscription(PoseWithCovarianceStamped, "amcl_pose", self.amcl_poses.append, qos.LATCHED)
        self.initial_pose = self.node.create_publisher(PoseWithCovarianceStamped, "initialpose", 10)
        self.nav = ActionClient(self.node, NavigateToPose, "navigate_to_pose")
        self.wp = ActionClient(self.node, FollowWaypoints, "follow_waypoints")

    def spin_until(self, fut, timeout):
        self.ex.spin_until_future_complete(fut, timeout_sec=timeout)
        assert fut.done(), "no answer"
        return fut.result()

    def wait_active(self, name: str, deadline: float) -> str:
        client = self.node.create_client(GetState, f"{name}/get_state")
        while not client.wait_for_service(timeout_sec=0.5):
            assert time.monotonic() < deadline, f"{name}/get_state never appeared"
        while True:
            state = self.spin_until(client.call_async(GetState.Request()), 5.0).current_state
            if state.label == "active":
                assert state.id == State.PRIMARY_STATE_ACTIVE
                return state.label
            assert state.label in ("unconfigured", "inactive"), state
            assert time.monotonic() < deadline, f"{name} stayed {state.label}"
            time.sleep(0.3)

    def pose(self, x, y, yaw=0.0) -> PoseStamped:
        p = PoseStamped()
        p.header.frame_id = "map"
        p.header.stamp = self.node.get_clock().now().to_msg()      # wall clock, as Nav2 examples
        p.pose.position.x, p.pose.position.y = x, y
        p.pose.orientation.z, p.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
        return p

    def send(self, client, goal, feedback, tries: int = 3):
        """Send a goal and wait for the server's answer. A goal request sent just after a freshly
        started server is discovered can lose its response (DDS matches the server's response
        writer to our reader a moment after its request reader: a known ROS 2 service race, not
        the server's doing), so an unanswered request is sent again, as a careful client would."""
        assert client.wait_for_server(timeout_sec=20.0)
        for attempt in range(tries):
            fut = client.send_goal_async(goal, feedback_callback=feedback.append)
            self.ex.spin_until_future_complete(fut, timeout_sec=15.0)
            if fut.done():
                gh = fut.result()
                assert gh.accepted
                return gh
            print(f"goal request {attempt + 1} of {tries} unanswered after 15 s; sending it again")
        raise AssertionError(f"no answer to {tries} goal requests")


def test_nav2_simple_commander_sequence(ros_env, tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = _launch(env, "navigation_timeout:=0")
    ctx = Context()
    rclpy.init(context=ctx, domain_id=ros_env)
    c = Client(ctx)
    try:
        deadline = time.monotonic() + 60
        # waitUntilNav2Active(): localizer, its pose, navigator
        t0 = time.monotonic()
        assert c.wait_active("amcl", deadline) == "active"
        while not c.amcl_poses:
            c.initial_pose.publish(PoseWithCovarianceStamped())
            c.ex.spin_once(timeout_sec=0.2)
            assert time.monotonic() < deadline, "no amcl_pose"
        assert math.hypot(c.amcl_poses[-1].pose.pose.position.x - START_X,
                          c.amcl_poses[-1].pose.pose.position.y - START_Y) < 0.05
        assert c.wait_active("bt_navigator", deadline) == "active"
        active_s = time.monotonic() - t0

        # goToPose + isTaskComplete/getFeedback loop: 0.8 m ahead (1.6 s at the humanoid's 0.49 m/s),
        # wall-clock stamp
        fb = []
        t0 = time.monotonic()
        gh = c.send(c.nav, NavigateToPose.Goal(pose=c.pose(START_X + GOAL_AHEAD, START_Y)), fb)
        res = c.spin_until(gh.get_result_async(), 40.0)
        goal_s = time.monotonic() - t0
        assert res.status == GoalStatus.STATUS_SUCCEEDED, res.result.error_msg
        assert len(fb) >= 5 and fb[-1].feedback.distance_remaining < 0.5
        # navigation_time is sim time; feedback arrives at every control cycle: the walk took about the
        # time the distance needs (a navigator stalled on its wall-clock stamp would take far longer)
        nav_time = fb[-1].feedback.navigation_time.sec + fb[-1].feedback.navigation_time.nanosec * 1e-9
        assert (GOAL_AHEAD - 0.25) / WALK - 0.5 <= nav_time < GOAL_AHEAD / WALK + 10.0, nav_time

        # cancelTask() during a goal
        fb = []
        gh = c.send(c.nav, NavigateToPose.Goal(pose=c.pose(START_X, START_Y + 1.2)), fb)
        while len(fb) < 3:
            c.ex.spin_once(timeout_sec=0.1)
        t0 = time.monotonic()
        c.spin_until(gh.cancel_goal_async(), 10.0)
        res = c.spin_until(gh.get_result_async(), 10.0)
        cancel_s = time.monotonic() - t0
        assert res.status == GoalStatus.STATUS_CANCELED    # within spin_until's 10 s deadline

        # a behavior tree this navigator cannot load: Nav2's error code
        gh = c.send(c.nav, NavigateToPose.Goal(pose=c.pose(START_X, START_Y), behavior_tree="my_tree.xml"), [])
        res = c.spin_until(gh.get_result_async(), 10.0)
        assert res.status == GoalStatus.STATUS_ABORTED
        assert res.result.error_code == NavigateToPose.Result.FAILED_TO_LOAD_BEHAVIOR_TREE

        # followWaypoints: two waypoints, feedback current_waypoint
        fb = []
        gh = c.send(c.wp, FollowWaypoints.Goal(poses=[c.pose(START_X + 0.5, START_Y),
                                                      c.pose(START_X + 0.5, START_Y + 0.4)]), fb)
        res = c.spin_until(gh.get_result_async(), 40.0)
        assert res.status == GoalStatus.STATUS_SUCCEEDED and not res.result.missed_waypoints
        assert sorted({f.feedback.current_waypoint for f in fb}) == [0, 1]
        print(f"\nactive after {active_s:.1f} s, {GOAL_AHEAD} m goal {goal_s:.1f} s wall, "
              f"cancel {cancel_s * 1e3:.0f} ms")

        # our commander with nav2_simple_commander's method names and behaviour
        from planner_node.ros_commander import Navigator, RunningTask, TaskResult
        nav = Navigator.create("our_commander", context=ctx)
        try:
            nav.waitUntilNav2Active()
            assert nav.goToPose(c.pose(START_X + 0.3, START_Y)) == RunningTask.NAVIGATE_TO_POSE
            while not nav.isTaskComplete():
                nav.getFeedback()
            assert nav.getResult() == TaskResult.SUCCEEDED and nav.getTaskError() == (0, "")
            assert nav.goThroughPoses([c.pose(START_X + 0.5, START_Y), c.pose(START_X + 0.5, START_Y + 0.4)])
            while not nav.isTaskComplete():
                pass
            assert nav.getResult() == TaskResult.SUCCEEDED, nav.getTaskError()
            assert nav.goToPose(c.pose(START_X, START_Y), behavior_tree="x.xml")
            while not nav.isTaskComplete():
                pass
            assert nav.getResult() == TaskResult.FAILED
            assert nav.getTaskError()[0] == NavigateToPose.Result.FAILED_TO_LOAD_BEHAVIOR_TREE
        finally:
            nav.destroyNode()
    finally:
        c.node.destroy_node()
        rclpy.shutdown(context=ctx)
        out = _stop(proc)
    _assert_clean(out, proc.returncode)


def test_ctrl_c_and_sigterm_stop_every_node_cleanly(ros_env, tmp_path):
    """Launches in a row (HAZARD_SHUTDOWN_RUNS, default 4 to keep the suite short; 10 for the
    full check), stopped by SIGINT or SIGTERM, half of them recording, some with a goal under
    way: every node exits 0 with no traceback or abort; the bags are readable."""
    from test_recording_signals import _check_bag
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    ctx = Context()
    rclpy.init(context=ctx, domain_id=ros_env)
    c = Client(ctx)
    runs = int(os.environ.get("HAZARD_SHUTDOWN_RUNS", "4"))
    proc = None
    try:
        for k in range(runs):
            record = k % 2 == 0
            bag = tmp_path / f"bag{k}"
            proc = _launch(env, *([f"record:={bag}"] if record else []))
            assert c.nav.wait_for_server(timeout_sec=40.0), "no navigate_to_pose"
            if k % 3 != 1:                             # a goal under way when the signal comes
                # a goal about 5.5 m of path away (11 s of walking): still under way when the
                # signal comes, however fast the lock-step simulation runs
                for far in (FAR_GOAL, (START_X, START_Y)):
                    gh = c.send(c.nav, NavigateToPose.Goal(pose=c.pose(*far)), [])
                    result = gh.get_result_async()          # asked before the server goes away
                    t = time.monotonic() + 0.5
                    while time.monotonic() < t:
                        c.ex.spin_once(timeout_sec=0.05)
                    # a goal request whose response was lost (Client.send) ran to its end while
                    # the client waited: the request sent again found the robot there, and that
                    # goal has ended too; a goal back to the start is under way
                    if not result.done():
                        break
            sig = signal.SIGTERM if k % 4 in (1, 2) else signal.SIGINT
            out = _stop(proc, sig)                     # both, +- recording
            _assert_clean(out, proc.returncode, 128 + sig)
            if k % 3 != 1:
                res = c.spin_until(result, 10.0)            # the goal ends ABORTED, with a reason
                assert res.status == GoalStatus.STATUS_ABORTED, res
                assert res.result.error_msg == "navigation node shutting down"
            if record:
                assert re.search(r"recorded \d+ messages", out), out[-2000:]
                assert _check_bag(bag) > 0
            # the next launch must not see this one's action server (a goal sent to a server that
            # discovery still lists but that is gone is never answered)
            t = time.monotonic() + 60
            while c.nav.server_is_ready() and time.monotonic() < t:
                c.ex.spin_once(timeout_sec=0.1)
            assert not c.nav.server_is_ready(), "the stopped stack's navigate_to_pose is still listed after 60 s"
    finally:
        if proc is not None and proc.poll() is None:    # a failed run leaves nothing behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        c.node.destroy_node()
        rclpy.shutdown(context=ctx)
