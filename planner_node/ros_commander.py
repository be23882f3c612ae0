"""A client for ``navigate_to_pose`` in the style of nav2_simple_commander's BasicNavigator.

``Navigator(node)`` wraps an action client on an existing node and works with this
package's ``navigation_node`` and with real Nav2 (same ``nav2_msgs/action/NavigateToPose``)::

    nav = Navigator(node)
    nav.wait_for_server(timeout_sec=10.0)
    nav.go_to_pose(pose_stamped(2.0, 1.0, yaw=1.57))
    while not nav.is_task_complete():
        fb = nav.get_feedback()                 # NavigateToPose.Feedback or None
    if nav.get_result() == TaskResult.FAILED:
        print(nav.error_code, nav.error_msg)

Spinning: when nobody else spins ``node`` the Navigator spins it itself (like
BasicNavigator, which is a node of its own).  When the node already belongs to an executor
that another thread spins (the decision node does this), the Navigator only waits on
futures.  The camelCase names of BasicNavigator (``goToPose``, ``isTaskComplete``, ...)
are aliases.
"""
from __future__ import annotations

import threading
import time
from enum import IntEnum

from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseStamped
from nav2_msgs.action import NavigateToPose
from rclpy.action import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import SingleThreadedExecutor
from rclpy.task import Future

from hazard_sim.rotations import yaw_to_quaternion


class TaskResult(IntEnum):
    """Outcome of a navigation task (the values of nav2_simple_commander's TaskResult)."""
    UNKNOWN = 0
    SUCCEEDED = 1
    CANCELED = 2
    FAILED = 3


def pose_stamped(x: float, y: float, yaw: float | None = 0.0, frame_id: str = "map", stamp=None) -> PoseStamped:
    """A goal pose; ``yaw=None`` gives an all-zero quaternion (any final heading, honoured by
    this package's server; real Nav2 needs a valid orientation)."""
    ps = PoseStamped()
    ps.header.frame_id = frame_id
    if stamp is not None:
        ps.header.stamp = stamp
    ps.pose.position.x, ps.pose.position.y = float(x), float(y)
    if yaw is None:
        ps.pose.orientation.w = 0.0
    else:
        _, _, ps.pose.orientation.z, ps.pose.orientation.w = (float(c) for c in yaw_to_quaternion(yaw))
    return ps


class Navigator:
    """Send NavigateToPose goals and follow them; see the module docstring."""

    def __init__(self, node, action_name: str = "navigate_to_pose", discovery_grace: float = 0.5):
        self.node = node
        self.action_name = action_name
        self.discovery_grace = discovery_grace
        self._server_seen = False
        self.client = ActionClient(node, NavigateToPose, action_name, callback_group=ReentrantCallbackGroup())
        self._own_executor: SingleThreadedExecutor | None = None
        self.goal_handle = None
        self.result_future = None
        self.feedback: NavigateToPose.Feedback | None = None
        self.status: int = GoalStatus.STATUS_UNKNOWN
        self.error_code: int = 0
        self.error_msg: str = ""

    # ------------------------------------------------------------ spinning
    def _spins_itself(self) -> bool:
        ex = self.node.executor
        return ex is None or ex is self._own_executor

    def _wait_future(self, future, timeout_sec: float | None) -> bool:
        """Wait for ``future``; True when it is done."""
        if future.done():
            return True
        if self._spins_itself():
            if self._own_executor is None:
                self._own_executor = SingleThreadedExecutor(context=self.node.context)
                self._own_executor.add_node(self.node)
            self._own_executor.spin_until_future_complete(future, timeout_sec=timeout_sec)
            return future.done()
        event = threading.Event()
        future.add_done_callback(lambda _: event.set())
        event.wait(timeout_sec)
        return future.done()

    def _log(self):
        return self.node.get_logger()

    # ------------------------------------------------------------ API
    def wait_for_server(self, timeout_sec: float | None = None) -> bool:
        """Wait until the ``navigate_to_pose`` server is there (a stand-in for
        BasicNavigator.waitUntilNav2Active); False after ``timeout_sec``."""
        end = None if timeout_sec is None else time.monotonic() + timeout_sec
        while not self.client.server_is_ready():
            if end is not None and time.monotonic() >= end:
                self._log().warning(f"action server {self.action_name!r} not available")
                return False
            self._pause(0.1)
        if not self._server_seen:
            # the client sees the server before the server has discovered the client's reply
            # readers; a goal sent at once may get no answer ("client will not receive
            # response"), so give discovery a moment the first time
            self._pause(self.discovery_grace)
            self._server_seen = True
        return True

    def _pause(self, seconds: float) -> None:
        if self._spins_itself():
            self._wait_future(Future(), seconds)
        else:
            time.sleep(seconds)

    def go_to_pose(self, pose: PoseStamped, behavior_tree: str = "", timeout_sec: float = 10.0) -> bool:
        """Send a goal; True when the server accepted it."""
        self.feedback = None
        self.error_code, self.error_msg = 0, ""
        self.status = GoalStatus.STATUS_UNKNOWN
        self.goal_handle = self.result_future = None
        if not self.wait_for_server(timeout_sec):
            self.error_msg = f"action server {self.action_name!r} not available"
            return False
        goal = NavigateToPose.Goal(pose=pose, behavior_tree=behavior_tree)
        send = self.client.send_goal_async(goal, feedback_callback=self._on_feedback)
        if not self._wait_future(send, timeout_sec):
            self.error_msg = "no answer to the goal request"
            return False
        self.goal_handle = send.result()
        if self.goal_handle is None or not self.goal_handle.accepted:
            self.error_msg = "goal rejected"
            self.status = GoalStatus.STATUS_ABORTED
            return False
        self.result_future = self.goal_handle.get_result_async()
        return True

    def _on_feedback(self, msg) -> None:
        self.feedback = msg.feedback

    def is_task_complete(self, timeout_sec: float = 0.1) -> bool:
        """True when the last task ended (or there is none); waits at most ``timeout_sec``."""
        if self.result_future is None:
            return True
        if not self._wait_future(self.result_future, timeout_sec):
            return False
        response = self.result_future.result()
        if response is None:
            self.status = GoalStatus.STATUS_UNKNOWN
            return True
        self.status = response.status
        self.error_code = int(response.result.error_code)
        self.error_msg = response.result.error_msg
        return True

    def get_feedback(self) -> NavigateToPose.Feedback | None:
        return self.feedback

    def get_result(self) -> TaskResult:
        return {GoalStatus.STATUS_SUCCEEDED: TaskResult.SUCCEEDED,
                GoalStatus.STATUS_CANCELED: TaskResult.CANCELED,
                GoalStatus.STATUS_ABORTED: TaskResult.FAILED}.get(self.status, TaskResult.UNKNOWN)

    def cancel_task(self, timeout_sec: float = 5.0) -> bool:
        """Ask the server to cancel the running goal; True when the request was answered."""
        if self.goal_handle is None or (self.result_future is not None and self.result_future.done()):
            return False
        fut = self.goal_handle.cancel_goal_async()
        return self._wait_future(fut, timeout_sec)

    def wait_for_task(self, timeout_sec: float | None = None, cancel_if=None) -> TaskResult:
        """Block until the task ends.  ``cancel_if(feedback)`` (feedback may be None before
        the first one) returning True cancels it once (e.g. a sim-time budget on
        ``feedback.navigation_time``); ``timeout_sec`` (wall) cancels it too.  Returns
        :meth:`get_result`."""
        end = None if timeout_sec is None else time.monotonic() + timeout_sec
        cancel_deadline = None
        while not self.is_task_complete(0.1):
            now = time.monotonic()
            if cancel_deadline is None:
                if (end is not None and now > end) or (cancel_if is not None and cancel_if(self.feedback)):
                    self.cancel_task()
                    cancel_deadline = now + 10.0        # give the server a moment to answer
            elif now > cancel_deadline:
                self._log().error("navigation goal did not end after cancel")
                break
        return self.get_result()

    def destroy(self) -> None:
        self.client.destroy()
        if self._own_executor is not None:
            if self.node.executor is self._own_executor:
                self.node.executor = None          # detaches the node (remove_node alone does not)
            self._own_executor.shutdown()
            self._own_executor = None

    # nav2_simple_commander names
    goToPose = go_to_pose
    isTaskComplete = is_task_complete
    getFeedback = get_feedback
    getResult = get_result
    cancelTask = cancel_task
    waitUntilNav2Active = wait_for_server


__all__ = ["Navigator", "TaskResult", "pose_stamped"]
