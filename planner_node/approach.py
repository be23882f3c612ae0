"""``approach_object``: walk up to an object and face it, a typed goal of its own beside the
plain ``navigate_to_pose`` (same message type, ``nav2_msgs/action/NavigateToPose``; same
feedback and error codes).

The goal's pose is the object's centre (its header stamp, as for ``navigate_to_pose``, the
frame the goal was decided on).  The walk plans to the free cells from which the body is
within ``approach_gap`` of the object's footprint circle (or, where furniture keeps it back,
a wider ring up to ``approach_reach``: :func:`hazard_sim.navigation.stand_off.stand_off_cells`),
ends as soon as that gap is reached (checked before each step) or the path ends, then turns
to face the object.  An object of the simulator's ground truth (``world/objects``: a box
whose centre is the goal's position) is measured by its box and, in lock-step, followed
while it moves; any other point is an object of ``approach_object_radius``.

This is how the HAZARD decision node walks ``walk_to`` in lock-step, exactly as the embedded
body does (the gait follower); with pure pursuit (free-run) the goal is a plain
``navigate_to_pose`` to the object's centre, with the same error codes.

Parameters (of the navigation node): approach_gap (0.5 m), approach_reach (2.5 m),
approach_object_radius (0.05 m).
"""
from __future__ import annotations

import numpy as np
from nav2_msgs.action import NavigateToPose
from rclpy.action import ActionServer, CancelResponse, GoalResponse

from planner_node.nav_goal import GoalSpec
from planner_node.nav_inputs import stamp_ns

ACTION_NAME = "approach_object"
#: how close (m) a goal position must be to a world/objects box centre to name that object
SAME_POINT = 1e-6


class ApproachServer:
    """The ``approach_object`` action on the navigation ``node`` (see the module docstring)."""

    def __init__(self, node):
        self.node = node
        p = node.declare_parameter
        self.gap = float(p("approach_gap", 0.5).value)
        self.reach = float(p("approach_reach", 2.5).value)
        self.default_radius = float(p("approach_object_radius", 0.05).value)
        self.server = ActionServer(node, NavigateToPose, ACTION_NAME, execute_callback=self._execute,
                                   goal_callback=lambda _: GoalResponse.ACCEPT,
                                   cancel_callback=lambda _: CancelResponse.ACCEPT,
                                   callback_group=node._action_group, result_timeout=60)

    def _execute(self, gh):
        node = self.node

        def spec() -> GoalSpec:
            xy, _ = node._goal_in_map(gh.request.pose)
            goal = GoalSpec(xy, None, stamp_ns(gh.request.pose.header.stamp), label="approach")
            goal.prepare = lambda _: self._measure(goal)
            return goal
        return node.run_goal(gh, spec, node._feedback, NavigateToPose.Result())

    def _measure(self, goal: GoalSpec) -> None:
        """Once the goal's frame is there: the object (its box in world/objects, or a point)."""
        node = self.node
        oid, radius = self._object_at(goal.goal_xy, goal.stamp_ns)
        goal.arrival = [float(goal.goal_xy[0]), float(goal.goal_xy[1]), radius, self.gap, self.reach]
        goal.follow_id = oid if oid >= 0 and node.lockstep else -1

    def _object_at(self, xy, need_ns: int) -> tuple[int, float]:
        """(id, footprint radius) of the world/objects box centred at ``xy``, or (-1, default)."""
        node = self.node
        if node.lockstep and need_ns >= 0 and node._has_publishers("world/objects"):
            node._wait(lambda: node._objects_stamp_ns >= need_ns, node.wait_timeout)
        with node._cv:
            objects = dict(node._objects)
        for oid, (centre, radius) in objects.items():
            if float(np.max(np.abs(centre - xy))) <= SAME_POINT:
                return oid, radius
        return -1, self.default_radius


__all__ = ["ApproachServer", "ACTION_NAME"]
