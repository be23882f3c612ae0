"""The Navigator client's waits (planner_node.ros_commander): every one ends.

- a Navigator whose node was spun once with ``rclpy.spin_once`` (rclpy's global executor then owns
  it, and nothing spins that executor any more) spins it itself, as BasicNavigator does: goToPose
  gets its answer and the task completes (before, the goal's answer was waited for for ever);
- no action server: goToPose returns None after ``server_timeout`` s with the reason in
  getTaskError(); waitUntilNav2Active raises TimeoutError naming what it waited for;
- SIGTERM to a script waiting for a server that never comes ends it (before, it waited on).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

rclpy = pytest.importorskip("rclpy")
from helpers import REPO, launch_env  # noqa: E402
from nav2_msgs.action import NavigateToPose  # noqa: E402
from rclpy.action import ActionServer  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402

from planner_node.ros_commander import Navigator, TaskResult, pose_stamped  # noqa: E402

TEST_TIME_LIMIT_S = 90


@pytest.fixture
def domain(monkeypatch):
    env = launch_env()
    monkeypatch.setenv("ROS_DOMAIN_ID", env["ROS_DOMAIN_ID"])
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    return int(env["ROS_DOMAIN_ID"])


def _server(domain: int):
    """A NavigateToPose server in a context of its own that succeeds every goal at once."""
    ctx = Context()
    rclpy.init(context=ctx, domain_id=domain)
    node = rclpy.create_node("fake_navigator", context=ctx)

    def execute(gh):
        gh.succeed()
        return NavigateToPose.Result()
    ActionServer(node, NavigateToPose, "navigate_to_pose", execute)
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(node)
    stop = threading.Event()
    thread = threading.Thread(target=lambda: [ex.spin_once(timeout_sec=0.05) for _ in iter(stop.is_set, True)],
                              daemon=True)
    thread.start()

    def close():
        stop.set()
        thread.join(5)
        ex.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=ctx)
    return close


def test_a_navigator_spun_by_rclpy_spin_once_still_gets_its_answers(domain):
    close = _server(domain)
    rclpy.init(domain_id=domain)
    try:
        nav = Navigator.create("commander_probe")
        rclpy.spin_once(nav.node, timeout_sec=0.1)          # rclpy's global executor now has the node
        assert nav.wait_for_server(timeout_sec=20.0)
        t0 = time.monotonic()
        task = nav.goToPose(pose_stamped(1.0, 0.0))
        assert task is not None, nav.getTaskError()
        while not nav.isTaskComplete(task):
            assert time.monotonic() - t0 < 20.0, "the goal's result never came"
        assert nav.getResult() == TaskResult.SUCCEEDED
        nav.node.destroy_node()
    finally:
        rclpy.shutdown()
        close()


def test_without_a_server_the_waits_end_with_a_message(domain):
    rclpy.init(domain_id=domain)
    try:
        nav = Navigator.create("commander_alone")
        nav.server_timeout = 1.0
        t0 = time.monotonic()
        assert nav.goToPose(pose_stamped(1.0, 0.0)) is None
        assert time.monotonic() - t0 < 5.0
        assert "'NavigateToPose' action server not available after 1 s" in nav.getTaskError()[1]
        with pytest.raises(TimeoutError, match=r"amcl/get_state service not available after 1 s"):
            nav.waitUntilNav2Active()
        nav.node.destroy_node()
    finally:
        rclpy.shutdown()


def test_sigterm_ends_a_script_waiting_for_its_server(tmp_path):
    script = tmp_path / "wait.py"
    script.write_text(
        "import rclpy\n"
        "from planner_node.ros_commander import Navigator, pose_stamped\n"
        "rclpy.init()\n"
        "nav = Navigator.create('commander_sigterm')\n"
        "nav.server_timeout = None                    # for ever, as BasicNavigator\n"
        "print('waiting', flush=True)\n"
        "print('result', nav.goToPose(pose_stamped(1.0, 0.0)), nav.getTaskError(), flush=True)\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=launch_env(), cwd=REPO, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "waiting"
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=20)[0]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    assert proc.returncode is not None and "result None" in out and "context was shut down" in out, out
