"""One goal that drives the robot, in small steps, for every server of the navigation node
(``navigate_to_pose``, ``approach_object``, the behaviors): a mixin of
:class:`planner_node.navigation_node.NavigationNode` over its inputs (:mod:`planner_node.nav_inputs`).

A server turns its goal message into a :class:`GoalSpec` and calls :meth:`GoalExecution.run_goal`:

1. ``_start_goal``: wait for a map and the robot pose (and, in lock-step, for the pose and
   map of the frame the goal was stamped with), build the ROS-free :class:`GoalRunner`
   (gait or pure pursuit), plan;
2. ``_goal_cycle`` every control period: the robot pose, the map, one command on
   ``cmd_vel``, feedback, then ``_next_cycle`` (lock-step: ``sim/step`` and the new frame's
   pose and map; free-run: the control timer);
3. the end: succeeded, canceled, preempted by a newer goal (on any server: one body), or
   failed with the server's error code (``GoalSpec.codes``) and a message.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from geometry_msgs.msg import Twist
from std_srvs.srv import Trigger

from planner_node.following import GaitFollower, GoalRunner
from planner_node.nav_inputs import OBJECTS_TOPIC, stamp_ns
from planner_node.navigation import ErrorCode, NavigationError, Plan, path_length


class Preempted(Exception):
    """A newer goal (or the node's shutdown) took the robot."""


@dataclass
class GoalSpec:
    """What one goal asks of the robot, whichever action brought it."""
    goal_xy: np.ndarray
    goal_yaw: float | None
    #: the frame the goal was decided on (its header stamp, ns): lock-step plans on that
    #: frame's pose and map; -1: none (the latest)
    stamp_ns: int = -1
    #: [x, y, object radius, gap, reach]: end within gap of that circle, facing it (approach)
    arrival: list[float] | None = None
    #: perception/objects id whose box the arrival follows (approach; -1: none)
    follow_id: int = -1
    #: a behavior's own control, no planning: ``follower(on_gait)`` (planner_node/behavior_control.py,
    #: or the gait's straight walk); the first stall or bump fails it (no recoveries)
    follower: Callable[[bool], object] | None = None
    #: s; None: the node's max_navigation_time; 0: none
    max_time: float | None = None
    #: called once the goal's frame is there (lock-step), before planning: fills arrival / follow_id
    prepare: Callable[[object], None] | None = None
    #: a given path (N, 2) to follow without planning (follow_path)
    path: np.ndarray | None = None
    #: ``check(pose, cmd)`` before each command: raises NavigationError to end the goal (a
    #: behavior's collision check ahead)
    check: Callable[[np.ndarray, object], None] | None = None
    #: the action's error code for a NavigationError code
    codes: Callable[[ErrorCode], int] = field(default=lambda code: int(code))
    label: str = "goal"


@dataclass
class _Goal:
    spec: GoalSpec
    runner: GoalRunner
    t0: float
    version: int


def path_from(path: np.ndarray, xy) -> np.ndarray:
    """The rest of a given ``path`` from the robot at ``xy``: the robot, then the poses after
    the nearest one (the follower never turns back to a pose it has passed)."""
    k = int(np.argmin(np.linalg.norm(path - np.asarray(xy, float)[:2], axis=1)))
    rest = path[k + 1:] if k + 1 < len(path) else path[-1:]
    return np.vstack([np.asarray(xy, float)[:2], rest])


def _ns_to_frame(ns: int, frame_dt: float) -> int:
    return int(round(ns * 1e-9 / frame_dt))


class GoalExecution:
    """See the module docstring; expects the node's inputs (:class:`NavInputs`) and
    ``planner``, ``follower_config``, ``gait_follower``, ``lockstep``... (the node's parameters)."""

    def _init_goals(self) -> None:
        self._drive_lock = threading.Lock()
        self._active_goal = None
        self._preempt_reason: str | None = None
        self._running_goals = 0
        self._last_goal_end = 0.0
        self._walk_due = lambda frame: False            # lock-step: frames whose walk_map to wait for
        self._arrival: list[float] | None = None        # the running goal's arrival (approach)
        self._straight = False                          # the running goal is a behavior (no planning)
        self._fixed_path: np.ndarray | None = None      # the running goal's given path (follow_path)
        self._follow_id = -1                            # the running approach's object (perception/objects id)
        self.cycle_times: list[float] = []      # wall s per control cycle, waiting included (diagnostics)
        self.compute_times: list[float] = []    # wall s per cycle spent in this node (pose, map, control)

    # ------------------------------------------------------------ the goal
    def run_goal(self, gh, make_spec: Callable[[], GoalSpec], feedback, result, codes=None):
        """Execute one goal (an action server's execute callback); ``make_spec()`` builds its
        GoalSpec under the drive lock (raising NavigationError for a bad goal);
        ``feedback(gh, pose, stamp_ns, elapsed, cmd, recoveries)`` publishes the action's
        feedback; ``result`` is the action's empty result, filled with the error. ``codes``: the
        action's result code of an ErrorCode, for errors raised before the spec exists (a bad
        goal; default: the spec's own, else the ErrorCode's number)."""
        with self._cv:
            self._running_goals += 1
        if codes is None:
            codes = lambda code: int(code)      # noqa: E731 - until the spec says otherwise
        try:
            my_id = bytes(gh.goal_id.uuid)
            self._active_goal, self._preempt_reason = my_id, None   # a newer goal preempts the running one
            with self._drive_lock:
                self._check_active(my_id)
                spec = make_spec()
                codes = spec.codes
                goal = self._start_goal(spec)
            while True:
                with self._drive_lock:
                    self._check_active(my_id)
                    if self._goal_cycle(gh, goal, feedback):
                        return result
        except Preempted:
            self._end(gh, result, codes(ErrorCode.UNKNOWN),
                      "navigation node shutting down" if self._stopping.is_set()
                      else self._preempt_reason or "preempted by a newer goal")
            return result
        except NavigationError as exc:
            self._stop()
            if self._stopping.is_set():              # the wait ended because this node stops
                self.get_logger().info("goal aborted: navigation node shutting down")
                self._end(gh, result, codes(ErrorCode.UNKNOWN), "navigation node shutting down")
            else:
                self.get_logger().warning(f"navigation failed ({exc.code.name}): {exc.message}")
                self._end(gh, result, codes(exc.code), exc.message)
            return result
        except Exception as exc:  # noqa: BLE001 - a failed goal, never a dead server
            self._stop()
            msg = f"internal error: {type(exc).__name__}: {exc}"
            self.get_logger().error(msg)
            self._end(gh, result, codes(ErrorCode.UNKNOWN), msg)
            return result
        finally:
            with self._cv:
                self._running_goals -= 1
                self._last_goal_end = time.monotonic()

    def abort_running_goal(self, reason: str) -> None:
        """End the goal that drives the robot (it aborts at its next control period)."""
        with self._cv:
            if self._active_goal is not None:
                self._preempt_reason, self._active_goal = reason, b"aborted"
            self._cv.notify_all()

    def _check_active(self, my_id: bytes) -> None:
        if self._active_goal != my_id:
            raise Preempted()

    @staticmethod
    def _end(gh, result, code: int, message: str) -> None:
        result.error_code, result.error_msg = int(code), message
        if gh.is_active:
            gh.abort()

    # ------------------------------------------------------------ start
    def _start_goal(self, spec: GoalSpec) -> _Goal:
        self._use_walk_map = self.gait_follower and bool(self.get_parameter("walk_map").value)
        # the simulator's touch sensor: bumps marked as the embedded walking map marks them
        self._use_bumper = self._use_walk_map and self.lockstep and self._has_publishers("bumper/cells")
        self._walk_due = lambda frame: False
        # a behavior needs no map (its collision check sees none until one comes): in
        # lock-step the map may only come with the frames the behavior steps
        self._wait_map_and_pose(need_map=spec.follower is None)
        if self.lockstep:
            self._wait_goal_frame(spec.stamp_ns)
        if spec.prepare is not None:
            spec.prepare(self)
        version = self._update_map(0)
        pose, stamp = self._robot_pose()
        t0 = self._time(stamp)
        runner = self._goal_runner(spec)
        plan = runner.start(pose, spec.goal_xy, spec.goal_yaw, t0)
        if self._use_walk_map and self.lockstep and self.observe_every > 0 and spec.follower is None:
            # the frames the walking body observes: every observe_every-th of the goal
            start, every, follower = _ns_to_frame(stamp, self.frame_dt), self.observe_every, runner.follower
            self._walk_due = lambda frame: (not follower.xy_reached and frame > start
                                            and (frame - start) % every == 0)
        self._log_start(spec, plan)
        return _Goal(spec, runner, t0, version)

    def _has_publishers(self, topic: str) -> bool:
        return self.count_publishers(self.resolve_topic_name(topic)) > 0

    def _wait_map_and_pose(self, need_map: bool = True) -> None:
        topic = "walk_map" if self._use_walk_map else "map"
        if need_map and not self._wait(lambda: (self._walk_map if self._use_walk_map else self._map) is not None,
                          self.wait_timeout):
            raise NavigationError(ErrorCode.PLANNER_UNKNOWN, f"no map received on {self.resolve_topic_name(topic)} "
                                                             f"within {self.wait_timeout:g} s")
        if not self._wait(lambda: self._tf.can_transform(self.global_frame, self.base_frame), self.wait_timeout):
            self._robot_pose()             # raises TF_ERROR with the reason

    def _wait_goal_frame(self, need: int) -> None:
        """Lock-step: a stamped goal was decided on that frame: plan on its pose and map.  A
        stamp far ahead of the simulation (wall-clock time of a client without use_sim_time,
        as in Nav2 examples) names no frame: it is not waited for."""
        if need > max(self._pose_stamp_ns, self.get_clock().now().nanoseconds) + 5_000_000_000:
            need = -1
        if need < 0:
            return
        frame_ns = int(round(self.frame_dt * 1e9))
        goal_frame = need // frame_ns
        period = self._camera_period
        # the map of the goal's frame is the one of the last camera frame up to it
        map_need = (goal_frame - goal_frame % period) * frame_ns if period else -1
        if self._use_walk_map:      # the walking map has the goal's own frame
            map_ok = lambda: self._walk_map_stamp_ns >= need and \
                (not self._use_bumper or self._bumper_stamp_ns >= need)      # noqa: E731
        else:
            map_ok = lambda: not self.lockstep_wait_map or self._map_stamp_ns >= map_need  # noqa: E731
        if not self._wait(lambda: self._pose_stamp_ns >= need and map_ok(), self.wait_timeout):
            self.get_logger().warning(f"lock-step: no pose / map of the goal's stamp {need * 1e-9:.1f} s; "
                                      "planning on the latest")

    def _goal_runner(self, spec: GoalSpec) -> GoalRunner:
        """The control of one goal: the core's gait (``gait_follower``) or pure pursuit."""
        max_time = self.max_navigation_time if spec.max_time is None else spec.max_time
        gait = self.gait_follower and self.planner.core_law
        self._fixed_path = spec.path
        if spec.follower is not None:        # a behavior: its own control, no planning
            runner = GoalRunner(self.planner, self._plan, self.follower_config, self.robot_radius, 0, max_time,
                                log=self.get_logger().info, follower=spec.follower(self.gait_follower))
            self._arrival, self._straight, self._follow_id = None, True, -1
            runner.bump_ahead = not self._use_bumper
            return runner
        if spec.path is not None:            # follow_path: the given path, no replanning
            follower = GaitFollower(self.follower_config, replan_every=0) if self.gait_follower else None
            runner = GoalRunner(self.planner, self._plan, self.follower_config, self.robot_radius,
                                self.max_recoveries, max_time, log=self.get_logger().warning, follower=follower)
            self._arrival, self._straight, self._follow_id = None, False, -1
            return runner
        if self.gait_follower:
            # every bump replans, as the embedded walk does; the goal's time limit bounds it
            runner = GoalRunner(self.planner, self._plan, self.follower_config, self.robot_radius,
                                1_000_000, max_time, log=self.get_logger().info,
                                follower=GaitFollower(self.follower_config))
        else:
            runner = GoalRunner(self.planner, self._plan, self.follower_config, self.robot_radius,
                                self.max_recoveries, max_time, log=self.get_logger().warning)
        arrival = spec.arrival if gait else None
        self._arrival, self._straight = arrival, False
        self._follow_id = spec.follow_id if arrival is not None else -1
        runner.bump_ahead = not self._use_bumper
        if arrival is not None:
            runner.follower.set_arrival(arrival[:2], arrival[2], self.robot_radius, arrival[3])
        return runner

    def _log_start(self, spec: GoalSpec, plan: Plan) -> None:
        xy, yaw = spec.goal_xy, spec.goal_yaw
        self.get_logger().info(
            f"{spec.label} ({xy[0]:.2f}, {xy[1]:.2f}{'' if yaw is None else f', {math.degrees(yaw):.0f} deg'}): "
            f"path {plan.length:.2f} m, planned in {plan.planning_time * 1e3:.1f} ms")

    def _plan(self, pose: np.ndarray, goal_xy: np.ndarray) -> Plan:
        if self._fixed_path is not None:       # follow_path: the rest of the given path
            way = path_from(self._fixed_path, pose[:2])
            return Plan(way, way[-1].copy(), False, path_length(way))
        if self._straight:             # a behavior: no planning (a straight line to its goal)
            way = np.array([np.asarray(pose[:2], float), np.asarray(goal_xy, float)])
            self._publish_plan(way)
            return Plan(way, way[-1].copy(), False, float(np.linalg.norm(way[1] - way[0])))
        arrival = self._arrival
        if arrival is not None:        # an approach: the stand-off cells around the object
            plan = self.planner.plan_stand_off(pose[:2], arrival[:2], arrival[2], arrival[3], arrival[4])
            self._publish_plan(plan.waypoints)
            return plan
        plan = self.planner.plan(pose[:2], goal_xy)
        self._publish_plan(plan.waypoints)
        if plan.snapped:
            self.get_logger().info(f"goal ({goal_xy[0]:.2f}, {goal_xy[1]:.2f}) lies in an obstacle; going to "
                                   f"({plan.goal_xy[0]:.2f}, {plan.goal_xy[1]:.2f})")
        return plan

    # ------------------------------------------------------------ every control period
    def _goal_cycle(self, gh, goal: _Goal, feedback) -> bool:
        """One control period; True when the goal ended (succeeded, canceled, or no longer active)."""
        if not gh.is_active:
            return True
        if gh.is_cancel_requested:
            self._stop()
            gh.canceled()
            self.get_logger().info(f"{goal.spec.label} canceled")
            return True
        c0 = time.perf_counter()
        runner = goal.runner
        pose, stamp = self._robot_pose()
        t = self._time(stamp)
        new_version = self._update_map(goal.version)
        self._follow_object(runner, stamp)
        cmd = runner.step(pose, t, map_changed=new_version != goal.version)
        goal.version = new_version
        if goal.spec.check is not None and cmd.status != "succeeded":
            goal.spec.check(pose, cmd)
        feedback(gh, pose, stamp, t - goal.t0, cmd, runner.recoveries)
        if cmd.status == "succeeded":
            self._stop()
            gh.succeed()
            self.get_logger().info(f"{goal.spec.label} reached in {t - goal.t0:.1f} s at "
                                   f"({pose[0]:.2f}, {pose[1]:.2f})")
            return True
        twist = Twist()
        twist.linear.x, twist.angular.z = float(cmd.v), float(cmd.w)
        self.cmd_pub.publish(twist)
        self.compute_times.append(time.perf_counter() - c0)
        self._next_cycle(gh)
        self.cycle_times.append(time.perf_counter() - c0)
        del self.cycle_times[:-1000], self.compute_times[:-1000]
        return False

    def _follow_object(self, runner, stamp: int) -> None:
        """The approach's object where perception has it at the pose's frame (its last camera
        frame; the embedded walk reads its box every frame, and in lock-step the camera renders
        every frame): the arrival and the stand-off planning follow it."""
        if self._follow_id < 0 or self._arrival is None:
            return
        need = self._objects_need(stamp)
        self._wait(lambda: self._objects_stamp_ns >= need, self.wait_timeout)
        with self._cv:
            got = self._objects.get(self._follow_id)
        if got is None:
            return
        xy = got[0]
        self._arrival[0], self._arrival[1] = float(xy[0]), float(xy[1])
        f = runner.follower
        if f.arrival is not None:
            f.arrival = (np.array(xy, float), *f.arrival[1:])

    def _time(self, stamp: int) -> float:
        """The controller's time: the pose stamp in lock-step (exact frames), else the clock."""
        return stamp * 1e-9 if self.lockstep else self._now_s()

    def _next_cycle(self, gh) -> None:
        """Let one control period pass: lock-step = advance the simulator one frame and wait
        for its map and pose; free-run = wait for the next timer tick."""
        if self.lockstep:
            self._wait_frame(self._step_simulator())
        else:
            with self._cv:
                tick = self._tick
            while not self._wait(lambda: self._tick != tick, 1.0):
                if gh.is_cancel_requested or not gh.is_active or self._active_goal != bytes(gh.goal_id.uuid):
                    return
                self.get_logger().warning("waiting for the control timer (is /clock running?)",
                                          throttle_duration_sec=5.0)

    def _step_simulator(self) -> int:
        """Lock-step: ``sim/step``; returns the new frame.  cmd_vel and sim/step are separate
        DDS channels; from one participant they arrive in order, and a single-threaded
        simulator takes subscriptions before services.  (Publisher.wait_for_all_acked would
        make sure, but Fast DDS acknowledges on its 3 s heartbeat between processes: far too
        slow for every frame.)"""
        end = time.monotonic() + self.wait_timeout
        while not self.step_client.wait_for_service(timeout_sec=0.1):
            if self._stopping.is_set():
                raise Preempted()
            if time.monotonic() > end:
                raise NavigationError(ErrorCode.UNKNOWN, "lock-step: service sim/step is not available")
        fut = self.step_client.call_async(Trigger.Request())
        done = threading.Event()
        fut.add_done_callback(lambda _: self._notify(done))
        if not self._wait(lambda: done.is_set() or self._stopping.is_set(), self.wait_timeout):
            raise NavigationError(ErrorCode.TIMEOUT, f"lock-step: sim/step did not answer within "
                                                     f"{self.wait_timeout:g} s")
        if self._stopping.is_set():
            raise Preempted()
        resp = fut.result()
        if resp is None or not resp.success:
            raise NavigationError(ErrorCode.UNKNOWN, f"lock-step: sim/step failed: "
                                                     f"{resp.message if resp else 'no response'}")
        try:
            return int(resp.message.strip())
        except ValueError:
            raise NavigationError(ErrorCode.UNKNOWN, f"lock-step: sim/step answered {resp.message!r}, "
                                                     "expected the new frame number") from None

    def _wait_frame(self, frame: int) -> None:
        """Lock-step: wait for the robot pose of ``frame`` and what the goal plans on."""
        need = int(round(frame * self.frame_dt * 1e9))
        map_due = self._map_due(frame) and not self._use_walk_map
        # walking on the walking map: the body observes this frame, and the next plan must
        # see it (the decision node publishes the map with it)
        walk_due = self._use_walk_map and self._walk_due(frame)
        objects_need = self._objects_need(need)
        ok = self._wait(lambda: self._pose_stamp_ns >= need and
                        (not map_due or self._map_stamp_ns >= need) and
                        (not walk_due or self._walk_map_stamp_ns >= need) and
                        (not self._use_bumper or self._bumper_stamp_ns >= need) and
                        (self._follow_id < 0 or self._objects_stamp_ns >= objects_need), self.wait_timeout)
        if ok:
            return
        what = [] if self._pose_stamp_ns >= need else ["robot pose (odom / tf)"]
        if map_due and self._map_stamp_ns < need:
            what.append("map (is mapping_node running?)")
        if walk_due and self._walk_map_stamp_ns < need:
            what.append("walk_map (is decision_node running?)")
        if self._use_bumper and self._bumper_stamp_ns < need:
            what.append("bumper/cells")
        if self._follow_id >= 0 and self._objects_stamp_ns < objects_need:
            what.append(f"{OBJECTS_TOPIC} (is perception_node running?)")
        raise NavigationError(ErrorCode.TIMEOUT, f"lock-step: no {' and '.join(what)} for frame {frame} "
                              f"within {self.wait_timeout:g} s")


__all__ = ["GoalExecution", "GoalSpec", "Preempted", "stamp_ns"]
