"""The rescue actions as navigation goals and service calls, and the walking map they plan on
(the goal half of the rescue decision node in :mod:`planner_node.plugins`, a mixin).

* ``_navigate`` / ``_approach`` / ``_drive``: a NavigateToPose, ``approach_object`` or
  ``drive_on_heading`` goal stamped with the frame the agent decided on, waited for with the
  walk_to frame limit (``_run_goal``);
* ``_hands``: ``pick_up`` / ``drop`` Trigger services, then the status with the new hands;
* ``_walk_map_*`` / ``_nav_blocked``: lock-step, the embedded body's walking map from the
  observations the agent gets (published on ``walk_map``, planned on by navigation_node);
* ``_object_box``: the box perception gives an object (its true box with the groundtruth
  backend).
"""
from __future__ import annotations

import math
import threading

from builtin_interfaces.msg import Time as TimeMsg
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from std_msgs.msg import Header

from hazard_ros.conversions import from_trigger_message, stamp_from_frame
from hazard_sim.core.outcome import Status
from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.navigation.grid import inflate, release_start
from perception_node.mapping_node import to_occupancy_grid
from planner_node.approach import OBJECT_FRAME
from planner_node.following import HUMANOID_MAX_LINEAR
from planner_node.navigation import ErrorCode, OccupancyMap
from planner_node.observation import BODY_RADIUS
from planner_node.ros_commander import TaskResult, pose_stamped

BODY_SPEED = HUMANOID_MAX_LINEAR    # m/s: move_by's drive_on_heading (the navigator caps it at the body's)
#: frames of the longest final turn (half a turn at the body's turn rate), and one more
FINAL_TURN_FRAMES = math.ceil(180.0 / HumanoidSpec().turn_per_frame_deg) + 1
#: navigation errors after which the agent gives up on an object (no path to it)
NO_PATH_CODES = (ErrorCode.GOAL_OUTSIDE_MAP, ErrorCode.GOAL_OCCUPIED, ErrorCode.NO_VALID_PATH,
                 ErrorCode.START_OUTSIDE_MAP)


class RescueGoals:
    """See the module docstring (needs the DecisionNode's attributes)."""

    def _walk_map_add(self, observations) -> None:
        """Integrate observations the agent gets into the walking map and publish it when it
        changed (stamped with the newest frame: navigation_node waits for it in lock-step).
        Called with the lock held."""
        if self.walk_map is None:
            return
        new = [o for o in observations if self.walk_map.integrate(o, self.unrecognised.get(int(o["frame"])))]
        if new and self.walk_map_pub is not None:
            frame = max(int(o["frame"]) for o in new)
            header = Header(frame_id=self.global_frame,
                            stamp=stamp_from_frame(frame, int(round(self.frame_dt * 1e9))))
            self.walk_map_pub.publish(to_occupancy_grid(self.walk_map.occupancy(), self.walk_map.spec, header))

    def _walk_map_current(self) -> None:
        """The walking map with every observation up to the current frame."""
        with self._cv:
            if self.latest is not None:
                self._walk_map_add([*self.collected, self.latest])

    def _use_walk_map_on_navigator(self) -> bool:
        """Lock-step: tell navigation_node to plan on walk_map (its ``walk_map`` parameter)."""
        if self.nav_params is None or not self.nav_params.wait_for_service(timeout_sec=self.wait_timeout):
            return False
        value = ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=True)
        fut = self.nav_params.call_async(SetParameters.Request(parameters=[Parameter(name="walk_map", value=value)]))
        done = threading.Event()
        fut.add_done_callback(lambda _: done.set())
        return done.wait(self.wait_timeout) and fut.result() is not None and fut.result().results[0].successful

    def _object_box(self, object_id: int):
        """(centre xy, footprint radius) of an object by perception's box, when perception
        says its boxes are the simulator's (the groundtruth backend: as the embedded walk_to
        aims); None otherwise (the agent's remembered centre is used)."""
        with self._cv:
            return self.boxes.get(int(object_id)) if self.true_boxes() else None

    def _nav_blocked(self):
        """(blocked cells, GridSpec) of the navigation map as the planner sees it (obstacles
        grown by the body radius), or None before a map arrived."""
        if self.walk_map is not None:
            self._walk_map_current()
            with self._cv:
                pose = None if self.latest is None else self.latest["agent_pose"]
            if pose is not None:
                return self.walk_map.blocked_from(pose[:2]), self.walk_map.spec
        with self._cv:
            msg = self.map_msg
        if msg is None:
            return None
        try:
            omap = OccupancyMap.from_flat(msg.data, msg.info.width, msg.info.height, msg.info.resolution,
                                          (msg.info.origin.position.x, msg.info.origin.position.y))
        except ValueError:
            return None
        if not self.lockstep:
            return inflate(omap.occupied(), BODY_RADIUS, omap.resolution), omap.spec
        # lock-step: as the navigation node's gait planning and the core's walk_to (obstacles
        # grown by the radius less half a cell, the start released)
        occupied = omap.occupied()
        blocked = inflate(occupied, BODY_RADIUS - omap.resolution / 2, omap.resolution)
        with self._cv:
            pose = None if self.latest is None else self.latest["agent_pose"]
        if pose is not None and omap.contains(pose[:2]):
            blocked = release_start(blocked, occupied, omap.cell(pose[:2]), BODY_RADIUS, omap.resolution)
        return blocked, omap.spec

    def _goal_stamp(self) -> TimeMsg:
        """The stamp of the frame the agent decided on (in lock-step the server plans on that
        frame's pose and map)."""
        with self._cv:
            frame = int(self.latest["frame"]) if self.latest is not None else 0
        ns = int(round(frame * self.frame_dt * 1e9))
        return TimeMsg(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)

    def _navigate(self, x: float, y: float, yaw: float | None, max_frames: int | None = None):
        """(Status, reason) of one NavigateToPose goal, stamped with the frame it was decided on."""
        return self._run_goal(lambda stamp: self.navigator.go_to_pose(
            pose_stamped(x, y, yaw, self.global_frame, stamp), timeout_sec=self.wait_timeout), max_frames)

    def _approach(self, target, yaw: float, max_frames: int | None = None):
        """(Status, reason) of an ``approach_object`` goal (lock-step walk_to): to the object
        (``target.id`` in frame ``object/<id>`` when located by its box on perception/objects,
        the groundtruth backend's true box; else its remembered centre), ending within the
        gap of it and facing it, as the embedded walk does
        (``yaw``: the heading facing it from the stand-off pose)."""
        if target.true_box:
            frame, x, y = f"{OBJECT_FRAME}{int(target.id)}", 0.0, 0.0
        else:
            frame, x, y = self.global_frame, float(target.xy[0]), float(target.xy[1])
        return self._run_goal(lambda stamp: self.navigator.approach(
            pose_stamped(x, y, yaw, frame, stamp), timeout_sec=self.wait_timeout), max_frames)

    def _drive(self, distance: float):
        """(Status, reason) of a ``drive_on_heading`` goal (lock-step move_by): straight along
        the heading at the body's speed, no collision check ahead: the first bump ends it."""
        return self._run_goal(lambda stamp: self.navigator.drive_on_heading(
            distance, BODY_SPEED, disable_collision_checks=True, timeout_sec=self.wait_timeout), None)

    def _run_goal(self, send, max_frames: int | None):
        """Send a goal (``send(stamp) -> accepted``) and wait for it; ``max_frames`` of sim
        time cancel it (NOT_ARRIVED)."""
        if self.walk_map is not None:
            self._walk_map_current()          # navigation_node plans on the map of this frame
        if not send(self._goal_stamp()):
            return Status.INVALID, f"navigation: {self.navigator.error_msg}"
        limit = None if max_frames is None else max_frames * self.frame_dt
        if limit is not None and self.lockstep:
            # the navigator ends a late walk exactly (max_navigation_time) and, as the embedded
            # walk_to, still turns to face the object after an arrival in time: a cancel from
            # here at the limit would race those last turning frames
            limit += FINAL_TURN_FRAMES * self.frame_dt

        def over(fb):
            if self.metrics is not None:          # the episode ended under way
                return True
            return limit is not None and fb is not None and \
                fb.navigation_time.sec + fb.navigation_time.nanosec * 1e-9 >= limit - 1e-6

        res = self.navigator.wait_for_task(cancel_if=over)
        if self.metrics is not None and res != TaskResult.SUCCEEDED:
            return Status.TIME_UP, "the episode is over"
        if res == TaskResult.SUCCEEDED:
            return Status.SUCCEEDED, ""
        timed_out = res == TaskResult.FAILED and self.navigator.error_code == ErrorCode.TIMEOUT
        if max_frames is not None and (res == TaskResult.CANCELED or timed_out):
            fb = self.navigator.get_feedback()
            left = f" ({fb.distance_remaining:.1f} m left)" if fb is not None else ""
            return Status.NOT_ARRIVED, f"not there after {max_frames} frames{left}"
        status = Status.NO_PATH if self.navigator.error_code in NO_PATH_CODES else Status.BLOCKED
        return status, self.navigator.error_msg or f"navigation ended {res.name.lower()}"

    def _trigger(self, client, name: str):
        r, why = self.call_trigger(client, name)
        if r is None:
            return Status.INVALID, why
        status, text = from_trigger_message(r.message)
        return (Status.SUCCEEDED if r.success else status), text

    def _pick_object(self, object_id: int):
        """pick_up of the named object through ``pick_up_object`` (hazard_msgs/srv/PickUp); a
        robot that does not serve it gets the Trigger (its nearest target)."""
        from hazard_msgs.srv import PickUp
        r, why = self.call_trigger(self.pick_object_client, "pick_up_object", PickUp.Request(object_id=int(object_id)))
        if r is None and "not available" in why:
            return self._hands("pick_up")
        if r is None:
            return Status.INVALID, why
        status, text = from_trigger_message(r.message)
        if r.success:
            self._wait(lambda: self.status is not None and self.status["held"] != -1, 5.0)
            return Status.SUCCEEDED, text
        return status, text

    def _hands(self, name: str):
        """pick_up / drop through the simulator's (or robot's) Trigger service; on success,
        waits for the status with the new hands (it comes on its own topic)."""
        status, reason = self._trigger(self.pick_client if name == "pick_up" else self.drop_client, name)
        if status is Status.SUCCEEDED:
            want_empty = name == "drop"
            self._wait(lambda: self.status is not None and (self.status["held"] == -1) == want_empty, 5.0)
        return status, reason


__all__ = ["RescueGoals", "BODY_SPEED", "FINAL_TURN_FRAMES", "NO_PATH_CODES"]
