"""``approach_object``: walk up to an object and face it, a typed goal of its own beside the
plain ``navigate_to_pose`` (same message type, ``nav2_msgs/action/NavigateToPose``; same
feedback and error codes).

The goal names the object: a pose in frame ``object/<id>`` is the object of that id on
perception's objects (``perception/objects``: the objects seen so far, with the groundtruth
backend the simulator's true boxes, with a detector its tracks), measured by its box at the
goal's frame (its last camera frame) and, in lock-step, followed while it moves (TF_ERROR when
it is not there); a pose in any other
frame is a point object of ``approach_object_radius`` there (object frames are translated,
never rotated, from the global frame).  The header stamp is, as for ``navigate_to_pose``, the
frame the goal was decided on; the orientation (if any) is the heading to end with where the
body needs no walk (already within the gap: a rescue client sends the heading facing the
object from the stand-off pose); a walk that reaches the gap or ends its path faces the
object from where it stops.

The walk plans to the free cells from which the body is within ``approach_gap`` of the
object's footprint circle (or, where furniture keeps it back, a wider ring up to
``approach_reach``: :func:`hazard_sim.navigation.stand_off.stand_off_cells`), ends as soon as
that gap is reached (checked before each step) or the path ends, then turns to face the object.

This is how the rescue decision node walks ``walk_to`` in lock-step, exactly as the embedded
body does (the gait follower); with pure pursuit (free-run) the goal is a plain
``navigate_to_pose`` to the object's centre, with the same error codes.

Parameters (of the navigation node): approach_gap (0.5 m), approach_reach (3.0 m),
approach_object_radius (0.05 m).
"""
from __future__ import annotations

import numpy as np
from nav2_msgs.action import NavigateToPose

from hazard_ros.params import declare_floats
from planner_node.nav_convert import pose_yaw
from planner_node.nav_goal import GoalSpec
from planner_node.nav_inputs import OBJECTS_TOPIC, stamp_ns
from planner_node.nav_lifecycle import gated_action_server
from planner_node.navigation import ErrorCode, NavigationError

ACTION_NAME = "approach_object"
#: goal frames ``object/<id>`` name an object of perception/objects (its box's centre)
OBJECT_FRAME = "object/"


class ApproachServer:
    """The ``approach_object`` action on the navigation ``node`` (see the module docstring)."""

    def __init__(self, node):
        self.node = node
        self.gap, self.reach, self.default_radius = declare_floats(
            node, approach_gap=0.5, approach_reach=3.0, approach_object_radius=0.05)
        self.server = gated_action_server(node, NavigateToPose, ACTION_NAME, self._execute, "bt_navigator")

    def _execute(self, gh):
        node = self.node
        pose = gh.request.pose

        def spec() -> GoalSpec:
            node.require_ground("approach_object", ErrorCode.UNKNOWN)
            oid = object_frame_id(pose.header.frame_id)
            if oid is None:
                xy, yaw = node._goal_in_map(pose)
            else:                       # where the object is: once its frame is there (_measure)
                xy, yaw = np.zeros(2), pose_yaw(pose.pose)      # (an object frame is not rotated)
            goal = GoalSpec(xy, yaw, stamp_ns(pose.header.stamp), label="approach")
            goal.prepare = lambda _: self._measure(goal, oid)
            return goal
        return node.run_goal(gh, spec, node._feedback, NavigateToPose.Result())

    def _measure(self, goal: GoalSpec, oid: int | None) -> None:
        """Once the goal's frame is there: the object (its box in perception/objects, or a point)."""
        node = self.node
        radius = self.default_radius
        if oid is not None:
            if node.lockstep and goal.stamp_ns >= 0:
                need = node._objects_need(goal.stamp_ns)
                node._wait(lambda: node._objects_stamp_ns >= need, node.wait_timeout)
            with node._cv:
                box = node._objects.get(oid)
            if box is None:
                raise NavigationError(ErrorCode.TF_ERROR, f"object {oid} is not on "
                                                          f"{node.resolve_topic_name(OBJECTS_TOPIC)}")
            goal.goal_xy, radius = np.array(box[0], float), float(box[1])
            goal.follow_id = oid if node.lockstep else -1
        goal.arrival = [float(goal.goal_xy[0]), float(goal.goal_xy[1]), radius, self.gap, self.reach]


def object_frame_id(frame_id: str) -> int | None:
    """The perception/objects id of a goal frame ``object/<id>``, or None for any other frame."""
    if frame_id.lstrip("/").startswith(OBJECT_FRAME):
        try:
            return int(frame_id.lstrip("/")[len(OBJECT_FRAME):])
        except ValueError:
            return None
    return None


__all__ = ["ApproachServer", "ACTION_NAME", "OBJECT_FRAME", "object_frame_id"]
