"""Lifecycle of the navigation node's servers as Nav2 clients see it, and
``lifecycle_manager_navigation``.

* each server answers the lifecycle_msgs services of a node of its Nav2 name
  (``<name>/get_state``, ``change_state``, ``get_available_states``,
  ``get_available_transitions``, topic ``transition_event``): planner_server,
  controller_server, smoother_server, behavior_server, waypoint_follower,
  global_costmap/global_costmap, local_costmap/local_costmap (configured and activated at
  start, as Nav2's lifecycle manager does with ``autostart``), and bt_navigator (the node's
  own, active once a map and a robot pose are there: planner_node/ros_nav2_compat.py);
* a server that is not active rejects new goals (its name and state in the log), and taking
  a server that drives the robot (bt_navigator, controller_server, behavior_server,
  waypoint_follower) down aborts the running goal;
* ``lifecycle_manager_navigation/manage_nodes`` (nav2_msgs/srv/ManageLifecycleNodes) runs its
  command on every one of them: STARTUP (configure, activate), PAUSE (deactivate), RESUME
  (activate), RESET (deactivate, cleanup), SHUTDOWN (deactivate, cleanup, shutdown: for
  good), CONFIGURE, CLEANUP; ``success`` when every node made it.
  ``lifecycle_manager_navigation/is_active`` (std_srvs/Trigger): all active.
"""
from __future__ import annotations

from lifecycle_msgs.msg import State
from nav2_msgs.srv import ManageLifecycleNodes
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from std_srvs.srv import Trigger

from planner_node.ros_nav2_compat import LABELS, LifecycleStates

SERVERS = ("planner_server", "controller_server", "smoother_server", "behavior_server", "waypoint_follower",
           "global_costmap/global_costmap", "local_costmap/local_costmap")
#: servers whose deactivation ends the goal that drives the robot
DRIVING = ("bt_navigator", "controller_server", "behavior_server", "waypoint_follower")
MANAGER = "lifecycle_manager_navigation"
_M = ManageLifecycleNodes.Request
#: the transitions of each manager command, in order (one that does not apply is skipped)
COMMANDS = {_M.STARTUP: ("configure", "activate"), _M.PAUSE: ("deactivate",), _M.RESUME: ("activate",),
            _M.RESET: ("deactivate", "cleanup"), _M.SHUTDOWN: ("deactivate", "cleanup", "shutdown"),
            _M.CONFIGURE: ("configure",), _M.CLEANUP: ("cleanup",)}
#: the state each transition ends in (a node already there counts as done)
_ENDS = {"configure": State.PRIMARY_STATE_INACTIVE, "activate": State.PRIMARY_STATE_ACTIVE,
         "deactivate": State.PRIMARY_STATE_INACTIVE, "cleanup": State.PRIMARY_STATE_UNCONFIGURED,
         "shutdown": State.PRIMARY_STATE_FINALIZED}


def gated_action_server(node, action, name: str, execute, server: str) -> ActionServer:
    """Action ``name`` on the navigation ``node`` for its server ``server`` (a Nav2 name): a new
    goal passes ``node.goal_gate(server)`` (the server's lifecycle state), a cancel is always
    accepted, callbacks run in the node's action group."""
    return ActionServer(node, action, name, execute_callback=execute,
                        goal_callback=lambda _: node.goal_gate(server),
                        cancel_callback=lambda _: CancelResponse.ACCEPT,
                        callback_group=node._action_group, result_timeout=60)


class NavLifecycle:
    """The servers' lifecycle states and the manager on the navigation ``node``; ``navigator``
    is the node's own LifecycleStates (bt_navigator, readiness-driven) or None."""

    def __init__(self, node, navigator: LifecycleStates | None):
        self.node = node
        self.states: dict[str, LifecycleStates] = {}
        for name in SERVERS:
            st = LifecycleStates(node, [name], on_change=lambda t, n=name: self._changed(n, t))
            st.transition("configure")
            st.transition("activate")
            self.states[name] = st
        if navigator is not None:
            navigator.on_change = lambda t: self._changed("bt_navigator", t)
            self.states["bt_navigator"] = navigator
        group = ReentrantCallbackGroup()
        node.create_service(ManageLifecycleNodes, f"{MANAGER}/manage_nodes", self._on_manage, callback_group=group)
        node.create_service(Trigger, f"{MANAGER}/is_active", self._on_is_active, callback_group=group)

    def gate(self, name: str) -> GoalResponse:
        """ACCEPT a goal for server ``name`` unless a client took it down (bt_navigator before
        its map and pose counts as up: the goal waits for them)."""
        st = self.states.get(name)
        if st is None or st.active or (not st.held and st.state == State.PRIMARY_STATE_INACTIVE):
            return GoalResponse.ACCEPT
        self.node.get_logger().warning(f"{name} is {LABELS[st.state]}: goal rejected (activate it: "
                                       f"{MANAGER}/manage_nodes STARTUP or RESUME)")
        return GoalResponse.REJECT

    def _changed(self, name: str, transition: str) -> None:
        if transition != "activate" and name in DRIVING:
            self.node.abort_running_goal(f"{name} was taken down ({transition})")

    def _on_manage(self, request, response):
        steps = COMMANDS.get(request.command)
        if steps is None:
            self.node.get_logger().error(f"{MANAGER}: unknown command {request.command}")
            response.success = False
            return response
        ok = True
        for name, st in self.states.items():
            for t in steps:
                if st.state == _ENDS[t]:
                    continue
                if not st.command(t) and t in ("configure", "activate") and \
                        st.state not in (State.PRIMARY_STATE_ACTIVE,):
                    ok = False
        if request.command in (_M.STARTUP, _M.RESUME):
            ok = ok and all(st.state in (State.PRIMARY_STATE_ACTIVE, State.PRIMARY_STATE_INACTIVE)
                            for st in self.states.values())
        response.success = bool(ok)
        self.node.get_logger().info(f"{MANAGER}: command {request.command} -> "
                                    f"{'ok' if ok else 'failed'}: " +
                                    ", ".join(f"{n} {LABELS[s.state]}" for n, s in self.states.items()))
        return response

    def _on_is_active(self, request, response):
        down = [n for n, st in self.states.items() if not st.active]
        response.success = not down
        response.message = "all active" if not down else "not active: " + ", ".join(down)
        return response


__all__ = ["NavLifecycle", "SERVERS", "MANAGER"]
