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
futures.

nav2_simple_commander compatibility: the camelCase methods behave like BasicNavigator's
(Kilted) so a script written for one runs on the other: ``waitUntilNav2Active(navigator,
localizer)`` asks ``<localizer>/get_state`` (lifecycle_msgs/GetState) until ``active``, then
for amcl waits for ``amcl_pose`` (publishing ``initialpose``), then ``<navigator>/get_state``;
``goToPose`` / ``goThroughPoses`` / ``followWaypoints`` return a :class:`RunningTask` or None
when rejected; ``isTaskComplete(task)`` spins 0.1 s and records ``getTaskError()``;
``getFeedback``, ``getResult`` (:class:`TaskResult`), ``cancelTask``, ``setInitialPose``,
``clearTaskError``, ``destroyNode``.  ``Navigator.create(name)`` makes a node of its own,
like ``BasicNavigator()``.
"""
from __future__ import annotations

import threading
import time
from enum import IntEnum

from action_msgs.msg import GoalStatus
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped
from lifecycle_msgs.srv import GetState
from nav2_msgs.action import DriveOnHeading, FollowWaypoints, NavigateThroughPoses, NavigateToPose
from rclpy.action import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.task import Future

from hazard_ros import ros_qos as qos
from hazard_sim.rotations import yaw_to_quaternion
from planner_node.commander_api import CommanderApi, as_goals


def _global_executor(node):
    """rclpy's global executor if one exists for the node's context (None otherwise; never makes one)."""
    import rclpy
    ex = getattr(rclpy, "__executor", None)
    return ex if ex is not None and getattr(ex, "context", None) is node.context else None


class TaskResult(IntEnum):
    """Outcome of a navigation task (the values of nav2_simple_commander's TaskResult)."""
    UNKNOWN = 0
    SUCCEEDED = 1
    CANCELED = 2
    FAILED = 3


class RunningTask(IntEnum):
    """Which long-running task a handle belongs to (nav2_simple_commander's values)."""
    NONE = 0
    NAVIGATE_TO_POSE = 1
    NAVIGATE_THROUGH_POSES = 2
    FOLLOW_PATH = 3
    FOLLOW_WAYPOINTS = 4
    SPIN = 6
    BACKUP = 7
    DRIVE_ON_HEADING = 8
    ASSISTED_TELEOP = 9

    def __bool__(self) -> bool:           # BasicNavigator returns an Enum member: always true
        return True


def _duration(seconds: float) -> Duration:
    ns = int(round(max(0.0, float(seconds)) * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


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


class Navigator(CommanderApi):
    """Send NavigateToPose goals and follow them; see the module docstring (and
    :mod:`planner_node.commander_api` for the planner, controller, smoother, behavior,
    costmap, map and lifecycle calls)."""

    def __init__(self, node, action_name: str = "navigate_to_pose", discovery_grace: float = 0.5):
        self.node = node
        self.action_name = action_name
        self.discovery_grace = discovery_grace
        self.client = ActionClient(node, NavigateToPose, action_name, callback_group=ReentrantCallbackGroup())
        self._own_executor: SingleThreadedExecutor | None = None
        self.goal_handle = None
        self.result_future = None
        self.feedback: NavigateToPose.Feedback | None = None
        self.status: int = GoalStatus.STATUS_UNKNOWN
        self.error_code: int = 0
        self.error_msg: str = ""
        self._clients = {RunningTask.NAVIGATE_TO_POSE: self.client}
        self._named: dict[str, ActionClient] = {}          # project goals (approach_object, ...)
        self._seen: set = set()
        self._initial_pose = PoseStamped()
        self._initial_pose.header.frame_id = "map"
        self._initial_pose_received = False
        self._initial_pose_pub = None
        self._amcl_sub = None
        #: how long a goal waits for its action server (s; None: for ever, as BasicNavigator) and for
        #: the server's answer to the request; after either the call returns None with getTaskError()
        self.server_timeout: float | None = 60.0
        self.response_timeout: float | None = 30.0

    @classmethod
    def create(cls, node_name: str = "basic_navigator", namespace: str = "", context=None) -> "Navigator":
        """A Navigator on a node of its own (like ``BasicNavigator()``); ``destroyNode()`` ends it."""
        from rclpy.node import Node
        nav = cls(Node(node_name, namespace=namespace, context=context))
        nav._owns_node = True
        return nav

    # ------------------------------------------------------------ spinning
    def _spins_itself(self) -> bool:
        """Whether this Navigator must spin its node itself: no executor has it, or its own does,
        or rclpy's global one (``rclpy.spin_once(nav.node)`` put it there; nothing spins that
        executor afterwards, so BasicNavigator spins it here, and so does this), or an executor
        it was removed from (``rclpy.spin_once`` removes it again but leaves ``node.executor`` set)."""
        ex = self.node.executor
        return (ex is None or ex is self._own_executor or self.node not in ex.get_nodes()
                or ex is _global_executor(self.node))

    def _wait_future(self, future, timeout_sec: float | None) -> bool:
        """Wait for ``future``; True when it is done. The wait goes in slices of at most 0.1 s,
        so a signal's handler runs (rclpy's SIGINT / SIGTERM handlers shut the context down) and
        a shut-down context ends the wait (False)."""
        if future.done():
            return True
        end = None if timeout_sec is None else time.monotonic() + timeout_sec
        event = None
        while not future.done() and self.node.context.ok():
            left = 0.1 if end is None else min(0.1, end - time.monotonic())
            if left <= 0:
                break
            if self._spins_itself():
                ex = self.node.executor
                if ex is None or self.node not in ex.get_nodes():
                    if self._own_executor is None:
                        self._own_executor = SingleThreadedExecutor(context=self.node.context)
                    self._own_executor.add_node(self.node)
                    ex = self._own_executor
                try:
                    ex.spin_until_future_complete(future, timeout_sec=left)
                except ExternalShutdownException:      # SIGINT / SIGTERM shut the context down
                    break
            else:
                if event is None:
                    event = threading.Event()
                    future.add_done_callback(lambda _: event.set())
                event.wait(left)
        return future.done()

    def _log(self):
        return self.node.get_logger()

    # ------------------------------------------------------------ API
    def wait_for_server(self, timeout_sec: float | None = None) -> bool:
        """Wait until the ``navigate_to_pose`` server is there (a stand-in for
        BasicNavigator.waitUntilNav2Active); False after ``timeout_sec``."""
        return self._wait_server(self.client, self.action_name, timeout_sec)

    def _wait_server(self, client, name: str, timeout_sec: float | None) -> bool:
        end = None if timeout_sec is None else time.monotonic() + timeout_sec
        while not (self.node.context.ok() and client.server_is_ready()):
            if (end is not None and time.monotonic() >= end) or not self.node.context.ok():
                self._log().warning(f"action server {name!r} not available")
                return False
            self._pause(0.1)
        self._discovery_grace(client)
        return True

    def _discovery_grace(self, client) -> None:
        """The client sees a server before the server has discovered the client's reply
        readers; a goal sent at once may get no answer ("client will not receive response"),
        so give discovery a moment the first time each server is seen."""
        if client not in self._seen:
            self._pause(self.discovery_grace)
            self._seen.add(client)

    def _pause(self, seconds: float) -> None:
        if self._spins_itself():
            self._wait_future(Future(), seconds)
        else:
            time.sleep(seconds)

    def go_to_pose(self, pose: PoseStamped, behavior_tree: str = "", timeout_sec: float = 10.0) -> bool:
        """Send a goal; True when the server accepted it."""
        return self._send_goal(self.client, self.action_name,
                               NavigateToPose.Goal(pose=pose, behavior_tree=behavior_tree), timeout_sec)

    def approach(self, object_pose: PoseStamped, timeout_sec: float = 10.0) -> bool:
        """Send an ``approach_object`` goal (walk up to the object centred at ``object_pose``
        and face it: planner_node/approach.py); True when accepted."""
        return self._send_goal(self._named_client("approach_object", NavigateToPose), "approach_object",
                               NavigateToPose.Goal(pose=object_pose), timeout_sec)

    def drive_on_heading(self, distance: float, speed: float, time_allowance: float = 0.0,
                         disable_collision_checks: bool = False, timeout_sec: float = 10.0) -> bool:
        """Send a ``drive_on_heading`` goal (``distance`` m along the heading at ``speed``
        m/s; ``time_allowance`` s, 0: none); True when accepted."""
        goal = DriveOnHeading.Goal(speed=float(speed), time_allowance=_duration(time_allowance),
                                   disable_collision_checks=bool(disable_collision_checks))
        goal.target.x = float(distance)
        return self._send_goal(self._named_client("drive_on_heading", DriveOnHeading), "drive_on_heading",
                               goal, timeout_sec)

    def _named_client(self, name: str, action) -> ActionClient:
        if name not in self._named:
            self._named[name] = ActionClient(self.node, action, name, callback_group=ReentrantCallbackGroup())
        return self._named[name]

    def _send_goal(self, client, name: str, goal, timeout_sec: float) -> bool:
        self.feedback = None
        self.error_code, self.error_msg = 0, ""
        self.status = GoalStatus.STATUS_UNKNOWN
        self.goal_handle = self.result_future = None
        if not self._wait_server(client, name, timeout_sec):
            self.error_msg = f"action server {name!r} not available"
            return False
        send = client.send_goal_async(goal, feedback_callback=self._on_feedback)
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
            if not self.node.context.ok():
                self._log().error("the ROS context was shut down while a navigation goal ran")
                break
            now = time.monotonic()
            if cancel_deadline is None:
                if (end is not None and now > end) or (cancel_if is not None and cancel_if(self.feedback)):
                    self.cancel_task()
                    cancel_deadline = now + 10.0        # give the server a moment to answer
            elif now > cancel_deadline:
                self._log().error("navigation goal did not end after cancel")
                break
        return self.get_result()

    # ------------------------------------------------------------ nav2_simple_commander API
    def _client(self, task: RunningTask) -> ActionClient:
        if task not in self._clients:
            action = {RunningTask.NAVIGATE_THROUGH_POSES: (NavigateThroughPoses, "navigate_through_poses"),
                      RunningTask.FOLLOW_WAYPOINTS: (FollowWaypoints, "follow_waypoints")}[task]
            self._clients[task] = ActionClient(self.node, action[0], action[1],
                                               callback_group=ReentrantCallbackGroup())
        return self._clients[task]

    def _send(self, task: RunningTask, goal, what: str, unknown_code: int):
        """BasicNavigator's send: wait for the server (forever, as it does), send, record."""
        return self._send_with(self._client(task), goal, what, unknown_code, task)

    def _send_with(self, client, goal, what: str, unknown_code: int, task=None):
        self.clearTaskError()
        end = None if self.server_timeout is None else time.monotonic() + self.server_timeout
        while not (self.node.context.ok() and client.server_is_ready()):
            if not self.node.context.ok():
                return self._refused(unknown_code, f"{what}: the ROS context was shut down")
            if end is not None and time.monotonic() >= end:
                return self._refused(unknown_code, f"{what!r} action server not available after "
                                                   f"{self.server_timeout:g} s (Navigator.server_timeout)")
            self._log().info(f"{what!r} action server not available, waiting...",
                             throttle_duration_sec=1.0)
            self._pause(0.1)
        self._discovery_grace(client)
        self.feedback = None
        self.status = GoalStatus.STATUS_UNKNOWN
        self.goal_handle = self.result_future = None
        send = client.send_goal_async(goal, feedback_callback=self._on_feedback)
        if not self._wait_future(send, self.response_timeout):
            return self._refused(unknown_code, f"{what} request got no answer within {self.response_timeout:g} s "
                                               "(Navigator.response_timeout)" if self.node.context.ok()
                                 else f"{what}: the ROS context was shut down")
        self.goal_handle = send.result()
        if self.goal_handle is None or not self.goal_handle.accepted:
            self.setTaskError(unknown_code, f"{what} request was rejected!")
            self._log().error(self.error_msg)
            return None
        self.result_future = self.goal_handle.get_result_async()
        return RunningTask(task) if task is not None else RunningTask.NONE

    def _refused(self, code: int, message: str) -> None:
        self.setTaskError(code, message)
        self._log().error(message)
        return None

    def goToPose(self, pose: PoseStamped, behavior_tree: str = ""):
        """Send a NavigateToPose goal; RunningTask.NAVIGATE_TO_POSE, or None if rejected."""
        return self._send(RunningTask.NAVIGATE_TO_POSE, NavigateToPose.Goal(pose=pose, behavior_tree=behavior_tree),
                          "NavigateToPose", NavigateToPose.Result.UNKNOWN)

    def goThroughPoses(self, poses, behavior_tree: str = ""):
        """Send a NavigateThroughPoses goal (``poses``: nav_msgs/Goals or a list of PoseStamped)."""
        goal = NavigateThroughPoses.Goal(poses=as_goals(poses), behavior_tree=behavior_tree)
        return self._send(RunningTask.NAVIGATE_THROUGH_POSES, goal, "NavigateThroughPoses",
                          NavigateThroughPoses.Result.UNKNOWN)

    def followWaypoints(self, poses):
        """Send a FollowWaypoints goal; RunningTask.FOLLOW_WAYPOINTS, or None if rejected."""
        return self._send(RunningTask.FOLLOW_WAYPOINTS, FollowWaypoints.Goal(poses=list(poses)),
                          "FollowWaypoints", FollowWaypoints.Result.UNKNOWN)

    def isTaskComplete(self, task: RunningTask = RunningTask.NONE) -> bool:
        """BasicNavigator.isTaskComplete: spin up to 0.1 s; True when done (or nothing runs);
        a failed task's error code and message go to :meth:`getTaskError`."""
        if task is None:
            self._log().error("Task is None, cannot check for completion")
            return False
        if self.result_future is None:
            return True
        if not self._wait_future(self.result_future, 0.1):
            return False
        response = self.result_future.result()
        if response is None:
            self.setTaskError(0, "No result received")
            return True
        self.status = response.status
        if self.status != GoalStatus.STATUS_SUCCEEDED:
            self.setTaskError(int(response.result.error_code), response.result.error_msg)
        return True

    def getFeedback(self, task: RunningTask = RunningTask.NONE):
        return self.feedback

    def cancelTask(self) -> None:
        """Cancel the running task (BasicNavigator: waits for the cancel answer)."""
        if self.result_future is not None and self.goal_handle is not None:
            self._wait_future(self.goal_handle.cancel_goal_async(), None)
        self.clearTaskError()

    def clearTaskError(self) -> None:
        self.error_code, self.error_msg = 0, ""

    def setTaskError(self, error_code: int, error_msg: str) -> None:
        self.error_code, self.error_msg = int(error_code), error_msg

    def getTaskError(self) -> tuple[int, str]:
        return self.error_code, self.error_msg

    def _wait_active(self, node_name: str, end: float | None, poll: float = 2.0) -> None:
        """BasicNavigator._waitForNodeToActivate: GetState on ``<node_name>/get_state`` until
        the label is ``active``; TimeoutError at ``end`` (monotonic s; None: never)."""
        client = self.node.create_client(GetState, f"{node_name}/get_state")
        try:
            while not client.service_is_ready():
                self._check_wait(end, f"{node_name}/get_state service not available")
                self._log().info(f"{node_name}/get_state service not available, waiting...",
                                 throttle_duration_sec=1.0)
                self._pause(0.1)
            while True:
                self._check_wait(end, f"{node_name} is not active")
                future = client.call_async(GetState.Request())
                self._wait_future(future, None if end is None else max(0.1, end - time.monotonic()))
                result = future.result() if future.done() else None
                if result is not None and result.current_state.label == "active":
                    return
                self._pause(poll)
        finally:
            self.node.destroy_client(client)

    def _check_wait(self, end: float | None, what: str) -> None:
        if not self.node.context.ok():
            raise RuntimeError(f"{what}: the ROS context was shut down")
        if end is not None and time.monotonic() >= end:
            raise TimeoutError(f"{what} after {self.server_timeout:g} s (Navigator.server_timeout; None waits "
                               "for ever, as BasicNavigator)")

    def setInitialPose(self, initial_pose: PoseStamped) -> None:
        self._initial_pose_received = False
        self._initial_pose = initial_pose
        self._publish_initial_pose()

    def _publish_initial_pose(self) -> None:
        if self._initial_pose_pub is None:
            self._initial_pose_pub = self.node.create_publisher(PoseWithCovarianceStamped, "initialpose", 10)
        msg = PoseWithCovarianceStamped()
        msg.header = self._initial_pose.header
        msg.pose.pose = self._initial_pose.pose
        self._initial_pose_pub.publish(msg)

    def _on_amcl_pose(self, msg) -> None:
        self._initial_pose_received = True

    def waitUntilNav2Active(self, navigator: str = "bt_navigator", localizer: str = "amcl") -> None:
        """Block until the localizer and the navigator report ``active`` (BasicNavigator's
        order and services), then until the navigate_to_pose server is discovered. Unlike
        BasicNavigator it gives up after ``server_timeout`` s (TimeoutError naming what it waited for)
        and when the ROS context is shut down (RuntimeError)."""
        end = None if self.server_timeout is None else time.monotonic() + self.server_timeout
        if localizer != "robot_localization":
            self._wait_active(localizer, end)
        if localizer == "amcl":
            if self._amcl_sub is None:
                self._amcl_sub = self.node.create_subscription(PoseWithCovarianceStamped, "amcl_pose",
                                                               self._on_amcl_pose, qos.LATCHED)
            while not self._initial_pose_received:
                self._check_wait(end, "no amcl_pose")
                self._publish_initial_pose()
                self._pause(0.2)
        self._wait_active(navigator, end)
        if not self.wait_for_server(None if end is None else max(0.1, end - time.monotonic())):
            self._check_wait(end, f"action server {self.action_name!r} not available")
        self._log().info("Nav2 is ready for use!")

    def info(self, msg: str) -> None:
        self._log().info(msg)

    def warn(self, msg: str) -> None:
        self._log().warning(msg)

    def error(self, msg: str) -> None:
        self._log().error(msg)

    def debug(self, msg: str) -> None:
        self._log().debug(msg)

    def destroyNode(self) -> None:
        self.destroy()
        if getattr(self, "_owns_node", False):
            self.node.destroy_node()

    destroy_node = destroyNode

    def destroy(self) -> None:
        for c in [*self._clients.values(), *self._named.values(), *self.__dict__.get("_api_actions", {}).values()]:
            c.destroy()
        self._clients, self._named = {}, {}
        self.__dict__.pop("_api_actions", None)
        if self._own_executor is not None:
            if self.node.executor is self._own_executor:
                self.node.executor = None          # detaches the node (remove_node alone does not)
            self._own_executor.shutdown()
            self._own_executor = None

    getResult = get_result


__all__ = ["Navigator", "RunningTask", "TaskResult", "pose_stamped"]
