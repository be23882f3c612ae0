"""What a Nav2 client expects around ``navigate_to_pose``, served by ``navigation_node``.

nav2_simple_commander (and most Nav2 example scripts) do more than send NavigateToPose
goals: ``waitUntilNav2Active()`` first asks the lifecycle state of the localizer
(``amcl/get_state``), waits for a pose on ``amcl_pose``, then asks ``bt_navigator/get_state``
until both answer ``active``; ``followWaypoints`` and ``goThroughPoses`` use the
``follow_waypoints`` and ``navigate_through_poses`` actions. This module serves those parts
on top of our navigation node:

* :class:`LifecycleStates`: ``lifecycle_msgs`` state services (``<name>/get_state``,
  ``<name>/get_available_states``, ``<name>/get_available_transitions``) and the
  ``<name>/transition_event`` topic for each configured name (default: ``bt_navigator``,
  ``amcl`` and the node's own name), with lifecycle semantics: *unconfigured* until the node
  is set up, then *inactive* (configured; waiting for a map and a robot pose) and *active*
  once goals can be planned (map and pose received); *finalized* at shutdown. Every change
  goes through the real transition (configure, activate, deactivate, shutdown) and is
  published as a ``TransitionEvent``. ``change_state`` takes a client's transition and holds
  the node there (deactivated, cleaned up, shut down) until a client activates it again
  (planner_node/nav_lifecycle.py: the lifecycle manager and the servers' gates).
* ``amcl_pose`` (geometry_msgs/PoseWithCovarianceStamped, reliable, transient local): the
  simulator's localization is exact, so the robot pose from TF (map -> base_link) is
  published as the localizer's estimate (covariance zero), at ``localization_rate`` Hz and
  at once when an ``initialpose`` arrives. ``initialpose`` does not move the robot.
* :class:`WaypointServers`: ``follow_waypoints`` (nav2_msgs/action/FollowWaypoints) and
  ``navigate_through_poses`` (nav2_msgs/action/NavigateThroughPoses), both executed, like
  Nav2's waypoint follower, as a sequence of ``navigate_to_pose`` goals to our own server.
  Through-poses stops briefly at each intermediate pose (Nav2 passes through them).
  ``behavior_tree`` other than empty is rejected as Nav2 does for a tree it cannot load
  (``FAILED_TO_LOAD_BEHAVIOR_TREE``).
"""
from __future__ import annotations

import threading
import time

from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseWithCovarianceStamped
from lifecycle_msgs.msg import State, Transition, TransitionDescription, TransitionEvent
from lifecycle_msgs.srv import ChangeState, GetAvailableStates, GetAvailableTransitions, GetState
from nav2_msgs.action import FollowWaypoints, NavigateThroughPoses, NavigateToPose
from nav2_msgs.msg import WaypointStatus
from rclpy.action import ActionClient, ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.clock import Clock, ClockType

from hazard_ros import ros_qos as qos

LABELS = {
    State.PRIMARY_STATE_UNKNOWN: "unknown", State.PRIMARY_STATE_UNCONFIGURED: "unconfigured",
    State.PRIMARY_STATE_INACTIVE: "inactive", State.PRIMARY_STATE_ACTIVE: "active",
    State.PRIMARY_STATE_FINALIZED: "finalized", State.TRANSITION_STATE_CONFIGURING: "configuring",
    State.TRANSITION_STATE_CLEANINGUP: "cleaningup", State.TRANSITION_STATE_SHUTTINGDOWN: "shuttingdown",
    State.TRANSITION_STATE_ACTIVATING: "activating", State.TRANSITION_STATE_DEACTIVATING: "deactivating",
    State.TRANSITION_STATE_ERRORPROCESSING: "errorprocessing",
}
# (transition id, label, start, intermediate, goal) of the standard lifecycle machine
_T = State
TRANSITIONS = {
    "configure": (Transition.TRANSITION_CONFIGURE, _T.PRIMARY_STATE_UNCONFIGURED,
                  _T.TRANSITION_STATE_CONFIGURING, _T.PRIMARY_STATE_INACTIVE),
    "activate": (Transition.TRANSITION_ACTIVATE, _T.PRIMARY_STATE_INACTIVE,
                 _T.TRANSITION_STATE_ACTIVATING, _T.PRIMARY_STATE_ACTIVE),
    "deactivate": (Transition.TRANSITION_DEACTIVATE, _T.PRIMARY_STATE_ACTIVE,
                   _T.TRANSITION_STATE_DEACTIVATING, _T.PRIMARY_STATE_INACTIVE),
    "cleanup": (Transition.TRANSITION_CLEANUP, _T.PRIMARY_STATE_INACTIVE,
                _T.TRANSITION_STATE_CLEANINGUP, _T.PRIMARY_STATE_UNCONFIGURED),
    "shutdown": (Transition.TRANSITION_ACTIVE_SHUTDOWN, _T.PRIMARY_STATE_ACTIVE,
                 _T.TRANSITION_STATE_SHUTTINGDOWN, _T.PRIMARY_STATE_FINALIZED),
}
#: ChangeState transition ids -> names
_BY_ID = {Transition.TRANSITION_CONFIGURE: "configure", Transition.TRANSITION_CLEANUP: "cleanup",
          Transition.TRANSITION_ACTIVATE: "activate", Transition.TRANSITION_DEACTIVATE: "deactivate",
          Transition.TRANSITION_UNCONFIGURED_SHUTDOWN: "shutdown", Transition.TRANSITION_INACTIVE_SHUTDOWN: "shutdown",
          Transition.TRANSITION_ACTIVE_SHUTDOWN: "shutdown"}
_SHUTDOWN_FROM = {_T.PRIMARY_STATE_UNCONFIGURED: Transition.TRANSITION_UNCONFIGURED_SHUTDOWN,
                  _T.PRIMARY_STATE_INACTIVE: Transition.TRANSITION_INACTIVE_SHUTDOWN,
                  _T.PRIMARY_STATE_ACTIVE: Transition.TRANSITION_ACTIVE_SHUTDOWN}


def state_msg(state_id: int) -> State:
    return State(id=state_id, label=LABELS[state_id])


class LifecycleStates:
    """Lifecycle state services for ``names`` (relative: pushed into the node's namespace;
    ``~`` is the node's own name). See the module docstring."""

    def __init__(self, node, names: list[str], on_change=None):
        self.node = node
        self.state = State.PRIMARY_STATE_UNCONFIGURED
        #: a client (change_state, the lifecycle manager) took the node down: readiness does not
        #: bring it back up until it is activated again
        self.held = False
        self.on_change = on_change          # on_change(transition name) after a client's transition
        self._lock = threading.Lock()
        group = ReentrantCallbackGroup()
        self._event_pubs = []
        for name in names:
            base = "~" if name in ("~", node.get_name()) else name
            node.create_service(GetState, f"{base}/get_state", self._on_get_state, callback_group=group)
            node.create_service(GetAvailableStates, f"{base}/get_available_states", self._on_states,
                                callback_group=group)
            node.create_service(GetAvailableTransitions, f"{base}/get_available_transitions",
                                self._on_transitions, callback_group=group)
            node.create_service(ChangeState, f"{base}/change_state", self._on_change_state, callback_group=group)
            self._event_pubs.append(node.create_publisher(TransitionEvent, f"{base}/transition_event", 10))

    @property
    def label(self) -> str:
        return LABELS[self.state]

    def _on_get_state(self, request, response):
        with self._lock:
            response.current_state = state_msg(self.state)
        return response

    def _on_states(self, request, response):
        response.available_states = [state_msg(s) for s in LABELS if s != State.PRIMARY_STATE_UNKNOWN]
        return response

    def _on_transitions(self, request, response):
        with self._lock:
            current = self.state
        for tid, start, _, goal in TRANSITIONS.values():
            if start == current:
                response.available_transitions.append(TransitionDescription(
                    transition=Transition(id=tid), start_state=state_msg(start), goal_state=state_msg(goal)))
        return response

    def _go(self, transition_id: int, start: int, intermediate: int, goal: int) -> None:
        for a, b in ((start, intermediate), (intermediate, goal)):
            event = TransitionEvent(timestamp=self.node.get_clock().now().nanoseconds,
                                    transition=Transition(id=transition_id),
                                    start_state=state_msg(a), goal_state=state_msg(b))
            with self._lock:
                self.state = b
            for pub in self._event_pubs:
                try:
                    pub.publish(event)
                except Exception:  # noqa: BLE001 - context already shut down
                    pass

    def transition(self, name: str) -> bool:
        """Run the standard transition ``name`` if the current state allows it."""
        tid, start, mid, goal = TRANSITIONS[name]
        if name == "shutdown":
            with self._lock:
                start = self.state
            if start not in _SHUTDOWN_FROM:
                return False
            tid = _SHUTDOWN_FROM[start]
        elif self.state != start:
            return False
        self._go(tid, start, mid, goal)
        return True

    def _on_change_state(self, request, response):
        name = _BY_ID.get(request.transition.id)
        response.success = name is not None and self.command(name)
        return response

    def command(self, name: str) -> bool:
        """A client's transition ``name``: also holds the node down (deactivate, cleanup,
        shutdown) or releases it (activate)."""
        if name == "activate" and self.state == State.PRIMARY_STATE_UNCONFIGURED:
            return False
        ok = self.transition(name)
        if ok:
            self.held = name != "activate"
            if self.on_change is not None:
                self.on_change(name)
        return ok

    @property
    def active(self) -> bool:
        return self.state == State.PRIMARY_STATE_ACTIVE

    def set_ready(self, ready: bool) -> None:
        """inactive <-> active following the navigator's readiness (unless held down)."""
        if self.held:
            return
        if ready and self.state == State.PRIMARY_STATE_INACTIVE:
            self.transition("activate")
        elif not ready and self.state == State.PRIMARY_STATE_ACTIVE:
            self.transition("deactivate")


class LocalizationPose:
    """``amcl_pose`` from the exact simulated pose (see the module docstring)."""

    def __init__(self, node, pose_fn, rate_hz: float, frame_id: str):
        self.node, self.pose_fn, self.frame_id = node, pose_fn, frame_id
        self.pub = node.create_publisher(PoseWithCovarianceStamped, "amcl_pose", qos.LATCHED)
        node.create_subscription(PoseWithCovarianceStamped, "initialpose", self._on_initial_pose, 10)
        if rate_hz > 0:
            # wall time: in lock-step sim time stands still while nobody steps
            node.create_timer(1.0 / rate_hz, self.publish, clock=Clock(clock_type=ClockType.STEADY_TIME))

    def publish(self) -> bool:
        got = self.pose_fn()
        if got is None:
            return False
        (x, y, q), stamp = got
        msg = PoseWithCovarianceStamped()
        msg.header.frame_id = self.frame_id
        msg.header.stamp = stamp
        msg.pose.pose.position.x, msg.pose.pose.position.y = float(x), float(y)
        msg.pose.pose.orientation = q
        self.pub.publish(msg)
        return True

    def _on_initial_pose(self, msg) -> None:
        self.node.get_logger().info("initialpose received: the simulator's localization is exact, "
                                    "so the pose is not changed; answering on amcl_pose")
        self.publish()


class WaypointServers:
    """``follow_waypoints`` and ``navigate_through_poses`` as sequences of NavigateToPose goals."""

    def __init__(self, node, nav_action: str = "navigate_to_pose"):
        self.node = node
        group = ReentrantCallbackGroup()
        self.client = ActionClient(node, NavigateToPose, nav_action, callback_group=group)
        self.stopping = threading.Event()
        self.follow = ActionServer(node, FollowWaypoints, "follow_waypoints", execute_callback=self._follow,
                                   goal_callback=lambda g: self._gate(),
                                   cancel_callback=lambda g: CancelResponse.ACCEPT, callback_group=group)
        self.through = ActionServer(node, NavigateThroughPoses, "navigate_through_poses",
                                    execute_callback=self._through, goal_callback=lambda g: self._gate(),
                                    cancel_callback=lambda g: CancelResponse.ACCEPT, callback_group=group)

    def _gate(self):
        """The waypoint follower's lifecycle gate (planner_node/nav_lifecycle.py), if the node has one."""
        gate = getattr(self.node, "goal_gate", None)
        return gate("waypoint_follower") if gate is not None else GoalResponse.ACCEPT

    def destroy(self) -> None:
        self.stopping.set()
        for x in (self.follow, self.through, self.client):
            x.destroy()

    def _wait(self, future, gh, inner=None) -> bool:
        """Wait for ``future``; forwards a cancel of ``gh`` to the inner goal. False on stop."""
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        cancel_sent = False
        while not done.wait(0.05):
            if self.stopping.is_set():
                return False
            if inner is not None and gh.is_cancel_requested and not cancel_sent:
                inner.cancel_goal_async()
                cancel_sent = True
        return True

    def _navigate(self, gh, pose, feedback_cb):
        """One NavigateToPose goal: (status, result) or (None, reason)."""
        if not self.client.wait_for_server(timeout_sec=5.0):
            return None, "navigate_to_pose server not available"
        send = self.client.send_goal_async(NavigateToPose.Goal(pose=pose), feedback_callback=feedback_cb)
        if not self._wait(send, gh):
            return None, "shutting down"
        inner = send.result()
        if inner is None or not inner.accepted:
            return None, "navigate_to_pose rejected the goal"
        res = inner.get_result_async()
        if not self._wait(res, gh, inner):
            inner.cancel_goal_async()
            return None, "shutting down"
        r = res.result()
        return r.status, r.result

    def _follow(self, gh):
        req = gh.request
        result = FollowWaypoints.Result()
        poses = list(req.poses)
        if not poses:
            result.error_code, result.error_msg = FollowWaypoints.Result.NO_VALID_WAYPOINTS, "no waypoints"
            gh.abort()
            return result
        loops = int(req.number_of_loops) + 1
        start = min(int(req.goal_index), len(poses) - 1)
        for loop in range(loops):
            for i in range(start if loop == 0 else 0, len(poses)):
                fb = FollowWaypoints.Feedback(current_waypoint=i)
                gh.publish_feedback(fb)
                status, res = self._navigate(gh, poses[i], None)
                if gh.is_cancel_requested:
                    gh.canceled()
                    return result
                if status != GoalStatus.STATUS_SUCCEEDED:
                    ws = WaypointStatus(waypoint_status=WaypointStatus.FAILED, waypoint_index=i, waypoint_pose=poses[i])
                    if status is None:
                        ws.error_code, ws.error_msg = NavigateToPose.Result.UNKNOWN, str(res)
                    else:
                        ws.error_code, ws.error_msg = int(res.error_code), res.error_msg
                    result.missed_waypoints.append(ws)
                    # Nav2's default (stop_on_failure: true)
                    result.error_code = FollowWaypoints.Result.STOP_ON_MISSED_WAYPOINT
                    result.error_msg = f"waypoint {i} failed: {ws.error_msg}"
                    gh.abort()
                    return result
        gh.succeed()
        return result

    def _through(self, gh):
        req = gh.request
        result = NavigateThroughPoses.Result()
        poses = list(req.poses.goals)
        if req.behavior_tree:
            result.error_code = NavigateThroughPoses.Result.FAILED_TO_LOAD_BEHAVIOR_TREE
            result.error_msg = f"behavior tree {req.behavior_tree!r} not supported: this navigator has no BT engine"
            gh.abort()
            return result
        if not poses:
            result.error_code, result.error_msg = NavigateThroughPoses.Result.UNKNOWN, "no poses"
            gh.abort()
            return result
        t0 = time.monotonic()
        statuses = [WaypointStatus(waypoint_status=WaypointStatus.PENDING, waypoint_index=i, waypoint_pose=p)
                    for i, p in enumerate(poses)]
        for i, pose in enumerate(poses):
            def on_fb(msg, i=i):
                f = msg.feedback
                fb = NavigateThroughPoses.Feedback(
                    current_pose=f.current_pose, navigation_time=f.navigation_time,
                    estimated_time_remaining=f.estimated_time_remaining,
                    number_of_recoveries=f.number_of_recoveries, distance_remaining=f.distance_remaining,
                    number_of_poses_remaining=len(poses) - i, waypoint_statuses=statuses)
                gh.publish_feedback(fb)
            status, res = self._navigate(gh, pose, on_fb)
            if gh.is_cancel_requested:
                gh.canceled()
                result.waypoint_statuses = statuses
                return result
            if status != GoalStatus.STATUS_SUCCEEDED:
                statuses[i].waypoint_status = WaypointStatus.FAILED
                code = NavigateThroughPoses.Result.UNKNOWN if status is None else int(res.error_code)
                msg = str(res) if status is None else res.error_msg
                # NavigateToPose's 90xx codes map onto NavigateThroughPoses' 91xx
                result.error_code = code + 100 if 9000 <= code < 9100 else code
                result.error_msg = f"pose {i}: {msg}"
                statuses[i].error_code, statuses[i].error_msg = result.error_code, msg
                result.waypoint_statuses = statuses
                gh.abort()
                return result
            statuses[i].waypoint_status = WaypointStatus.COMPLETED
        result.waypoint_statuses = statuses
        self.node.get_logger().info(f"navigated through {len(poses)} poses in {time.monotonic() - t0:.1f} s")
        gh.succeed()
        return result


__all__ = ["LifecycleStates", "LocalizationPose", "WaypointServers", "LABELS", "state_msg"]
