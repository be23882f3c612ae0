"""``decision_node``: runs a ``hazard_sim`` agent (random / rule / greedy / mcts / mcts_value)
on observations assembled from ROS topics, and executes its HAZARD actions over ROS.

Inputs (:mod:`planner_node.decision_base`): ``camera/color/image_raw``,
``camera/depth/image_raw``, perception's ``perception/instances/image_raw`` (the agent's
``seg``) and ``perception/instances/label_info`` (its labels), ``perception/objects`` (boxes)
and ``perception/classes``, ``camera/color/camera_info``, the task's field image
(``thermal/image_raw`` or ``water_level/image_raw``), ``/tf``, ``/tf_static`` and ``odom`` (camera and base
poses), ``task``, ``episode/status``, ``episode/metrics`` (the run ends when it arrives) and
``map`` (only its stamp: in lock-step the node decides once the map of the current frame is
there, and the perception outputs of that frame). Never the simulator's ground truth
(``camera/segmentation/*``, ``world/objects``): a robot without them decides the same way.
With a detector (``perception/classes`` vocabulary ``detector``) the agent gets the task's
target categories in the detector's classes (:mod:`hazard_sim.perception.vocabulary`).

Actions:
  walk_to(id)     NavigateToPose to a free spot near the object's last known position (the
                  agent's memory), facing it; the body stops within 0.5 m of it; fails after
                  100 frames of sim time (HAZARD's walk_to limit: exactly by
                  navigation_node's max_navigation_time: 10.0, or canceled from here: at
                  the limit in free-run, a half turn later in lock-step, where the navigator
                  ends it and an arrival in time still turns to face the object) or when
                  navigation fails
  move_by(m)      NavigateToPose straight ahead, same heading
  turn_by(deg), turn_to(id)   NavigateToPose in place, new heading
  explore         12 in-place turns of 30 degrees, an observation after each
  pick_up, drop   the ``pick_up`` / ``drop`` Trigger services of sim_node
  stop            ends the run
Each action's success and reason go back to the agent as ``action_result``.  In
lock-step an action that used no frame (a failed plan, a turn of 0) costs one
``sim/step``, as every action costs at least a frame in ``HazardEnv``.

Parameters: agent (greedy), seed (0), agent_options (JSON object of agent keyword
arguments, e.g. '{"simulations": 500}'), lockstep (false), global_frame (map),
robot_base_frame (base_link), walk_to_frames (100), observe_every (10 frames),
max_actions (2000), wait_timeout (30 s wall: inputs / a navigation goal),
navigate_action (navigate_to_pose), settle_time (0.02 s wall: lock-step, quiet time after an
action before the frame is taken), sim_node (sim_node: lock-step, the simulator node whose
parameter service gives a round trip after each action; '' = none), true_object_boxes
(default: lockstep; false: a walk_to aims at the remembered centre of an object, radius
0.05 m; true: at the box ``perception/objects`` gives once the agent has seen the object,
when perception says its boxes are the simulator's (the groundtruth backend), as the
embedded walk_to does), walk_map (default: lockstep: build the
embedded body's walking map from every observation the agent gets (``planner_node.walk_map``),
publish it on ``walk_map`` with the stamp of its newest frame, and set navigation_node's
``walk_map`` parameter so that it plans there), navigation_node (navigation_node: the node
whose ``walk_map`` parameter is set in lock-step).

In lock-step (exact arrival) a walk_to is an ``approach_object`` goal (the object's centre:
the navigator ends within 0.5 m of it, facing it, as embedded) and a move_by a
``drive_on_heading`` goal (no collision check ahead: the first bump ends it); otherwise
both are NavigateToPose goals.
"""
from __future__ import annotations

import json
import time

import numpy as np
import rclpy
from nav_msgs.msg import OccupancyGrid
from rcl_interfaces.srv import SetParameters
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.qos import qos_profile_sensor_data
from std_msgs.msg import String
from std_srvs.srv import Trigger

from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.conversions import time_to_ns
from hazard_ros.params import declare_bool
from hazard_sim.agents import make_agent
from hazard_sim.core.outcome import Status
from hazard_sim.navigation.gait import observes_at
from hazard_sim.tasks.hazard.actions import ActionError, parse_action
from hazard_sim.tasks.hazard.agents import AGENTS, GROUP
from hazard_sim.tasks.hazard.controllers import run_action
from planner_node.decision_base import DecisionBase, EpisodeOver
from planner_node.locomotion import RosLocomotion, RosPorts
from planner_node.observation import (
    BODY_RADIUS,
    ObservationAssembler,
    action_result,
    build_info,
    merge_observations,
    parse_status,
    parse_task,
)
from planner_node.rescue_goals import BODY_SPEED, FINAL_TURN_FRAMES, NO_PATH_CODES, RescueGoals  # noqa: F401
from planner_node.ros_commander import Navigator
from planner_node.walk_map import WalkMap

#: topics this node publishes (relative names, ROS type)
PUBLISHED_TOPICS = [("decision/action", "std_msgs/msg/String"),
                    ("walk_map", "nav_msgs/msg/OccupancyGrid")]      # walk_map: lock-step (parameter walk_map)

# lock-step: a deep reader queue keeps every frame while this node is busy (an agent's memory
# must not depend on timing)
LOCKSTEP_READER = qos.LOCKSTEP_READER
MAP_RESOLUTION = 0.1        # m: the walking map's cells when the task does not say


def normalise_action(action) -> tuple:
    """A HAZARD action as a tuple (name, [int id | float amount]); raises ValueError
    (hazard_sim.tasks.hazard.actions.ActionError) for one that cannot be interpreted."""
    act = parse_action(action)
    if act.object_id is not None:
        return (act.name, int(act.object_id))
    if act.amount is not None:
        return (act.name, float(act.amount))
    return (act.name,)


class DecisionNode(RescueGoals, DecisionBase):
    """See the module docstring."""

    def __init__(self, node_name: str = "decision_node", **kwargs):
        super().__init__(node_name, **kwargs)
        p = self.declare_parameter
        self.lockstep = declare_bool(self, "lockstep", False, "decide once the map of the current frame is there")
        self.global_frame = str(p("global_frame", "map").value)
        self.base_frame = str(p("robot_base_frame", "base_link").value)
        self.walk_to_frames = int(p("walk_to_frames", 100).value)
        self.observe_every = int(p("observe_every", 10).value)
        self.max_actions = int(p("max_actions", 2000).value)
        self.frame_dt = float(p("frame_dt", 0.1).value)
        self.settle_time = float(p("settle_time", 0.02).value)
        self.navigation_node = str(p("navigation_node", "navigation_node").value)
        self.use_walk_map = declare_bool(
            self, "walk_map", self.lockstep,
            "lock-step: build the embedded body's walking map from the agent's observations, publish it on "
            "walk_map and have navigation_node plan on it (its walk_map parameter)")
        self.use_true_boxes = declare_bool(
            self, "true_object_boxes", self.lockstep,
            "walk_to an object the agent has seen by perception's box (perception/objects) when perception says "
            "its boxes are the simulator's, as embedded runs do (default: in lock-step)")
        action_name = str(p("navigate_action", "navigate_to_pose").value)
        if self.agent_name not in AGENTS:
            raise ValueError(f"unknown agent {self.agent_name!r}; known: {', '.join(sorted(AGENTS))}")
        if getattr(AGENTS[self.agent_name], "privileged", False):
            from hazard_sim.agents import privileged_refusal
            raise ValueError(privileged_refusal(self.agent_name))

        self.map_stamp_ns = -1
        self.map_msg: OccupancyGrid | None = None
        self.assembler: ObservationAssembler | None = None
        self._K = None
        self._early_images: list = []
        self.collected: list[dict] = []          # every observe_every-th frame since the last decision
        self._walk_origin: int | None = None      # lock-step: first frame of the walk under way
        self.latest: dict | None = None
        self.walk_map: WalkMap | None = None

        subs = MutuallyExclusiveCallbackGroup()
        img_qos = LOCKSTEP_READER if self.lockstep else qos_profile_sensor_data
        self.inputs.group = subs
        self.subscribe_camera(img_qos, subs, {"temperature": "thermal/image_raw",
                                              "water_level": "water_level/image_raw"}, self.base_frame)
        # small messages in a group of their own: never queued behind image decoding, so the
        # status of the frame an action ended on is here as soon as it arrives
        fast = MutuallyExclusiveCallbackGroup()
        self.subscribe_episode(subs, parse_task=parse_task, status_group=fast)
        self.subscribe_perception(LOCKSTEP_READER if self.lockstep else qos.SENSOR_DATA, fast)
        self.create_subscription(OccupancyGrid, "map", self._on_map, qos.LATCHED_SUB, callback_group=fast)
        clients = ReentrantCallbackGroup()
        self.pick_client = self.create_client(Trigger, "pick_up", callback_group=clients)
        try:         # the named object (the Trigger takes the nearest): the project's own interface
            from hazard_msgs.srv import PickUp
        except ImportError:
            self.pick_object_client = None
            self.get_logger().warning("hazard_msgs does not import (bash scripts/setup_ros.sh): pick_up goes "
                                      "through the Trigger, which takes the nearest target")
        else:
            self.pick_object_client = self.create_client(PickUp, "pick_up_object", callback_group=clients)
        self.drop_client = self.create_client(Trigger, "drop", callback_group=clients)
        self.step_client = self.create_client(Trigger, "sim/step", callback_group=clients) if self.lockstep else None
        if self.lockstep:
            self.make_sim_clients(clients)
        self.nav_params = self.create_client(SetParameters, f"{self.navigation_node}/set_parameters",
                                             callback_group=clients) \
            if self.lockstep and self.navigation_node else None
        self.action_pub = self.create_publisher(String, "decision/action", 10)
        self.walk_map_pub = self.create_publisher(OccupancyGrid, "walk_map", qos.LATCHED) \
            if self.use_walk_map else None
        self.navigator = Navigator(self, action_name)

    def true_boxes(self) -> bool:
        return self.use_true_boxes and super().true_boxes()

    # ------------------------------------------------------------ inputs (the lock is held)
    def _on_image(self, kind: str, stamp: int, arr, frame_id: str) -> None:
        if self.assembler is None:               # task not known yet: keep a few frames
            self._early_images.append((kind, stamp, arr, frame_id))
            del self._early_images[:-40]
            return
        self._add_image(kind, stamp, arr, frame_id)
        self._assemble()

    def _add_image(self, kind, stamp, arr, frame_id) -> None:
        if kind in ("temperature", "water_level"):
            if kind != self.task.get("channel"):
                return
            kind = "field"
        self.assembler.add(kind, stamp, arr, frame_id)

    def _on_camera_info(self, K, msg) -> None:
        self._K = K
        if self.assembler is not None:
            self.assembler.set_camera_info(K)
            self._assemble()

    def _set_task(self, task: dict) -> None:
        self.task = task
        self.frame_dt = float(task.get("frame_dt", self.frame_dt))
        self.assembler = ObservationAssembler(task.get("channel"), self.frame_dt,
                                              max_pending=40 if self.lockstep else 20, strict=self.lockstep)
        if self.use_walk_map and self.walk_map is None:
            self.walk_map = WalkMap(task["bounds"], float(task.get("map_resolution") or MAP_RESOLUTION),
                                    BODY_RADIUS)
        if self._K is not None:
            self.assembler.set_camera_info(self._K)
        for item in self._early_images:
            self._add_image(*item)
        self._early_images = []
        self._assemble()
        self._cv.notify_all()

    parse_status = staticmethod(parse_status)

    def _on_map(self, msg: OccupancyGrid) -> None:
        g = mg.guard(self)
        if not g.ok("map", mg.check_occupancy_grid, msg, g.now_ns()):
            return
        with self._cv:
            self.map_stamp_ns = time_to_ns(msg.header.stamp)
            self.map_msg = msg                 # decoded only when a walk_to needs it
            self._cv.notify_all()

    def _assemble(self) -> None:
        """Turn complete frames into observations (called with the lock held)."""
        if self.assembler is None:
            return
        held = self.perceived_id(self.status["held"]) if self.status else -1
        new = self.assembler.pop_complete(self.poses.tf, held, self.global_frame, self.base_frame)
        for o in new:
            self.take_unrecognised(o)
        if new:
            # only the frames an agent will integrate are kept (images are large)
            periodic = [o for o in new if self._periodic(int(o["frame"]))]
            self.collected.extend(periodic)
            self._walk_map_add(periodic)
            del self.collected[:-200]
            self.latest = new[-1]
            self._cv.notify_all()

    def _periodic(self, frame: int) -> bool:
        """Whether the agent gets the camera frame ``frame`` besides the action's own looks.
        Free-run: every ``observe_every``-th frame.  Lock-step: what the embedded body takes
        (``hazard_sim.navigation.gait.observes_at``): every ``observe_every``-th frame of a
        walk (walk_to, move_by), counted from the action's start, and none while turning
        in place or using the hands (those actions look at their end, as embedded)."""
        every = self.observe_every
        if every <= 0:
            return False
        if not self.lockstep:
            return frame % every == 0
        origin = self._walk_origin
        return origin is not None and frame > origin and observes_at(frame - origin, every)

    # ------------------------------------------------------------ waiting
    def _wait(self, predicate, timeout: float | None = None) -> bool:
        end = time.monotonic() + (self.wait_timeout if timeout is None else timeout)
        with self._cv:
            while not predicate():
                if self.metrics is not None:
                    raise EpisodeOver()
                left = end - time.monotonic()
                if left <= 0 or not rclpy.ok(context=self.context):
                    return predicate()
                self._cv.wait(min(left, 0.2))
            return True

    def _frame_ready(self, min_frame: int) -> bool:
        """An observation of ``min_frame`` or later is there; in lock-step also the status
        and the map of exactly its frame; perception's labels of the frame (and, with true
        boxes, its objects of the frame)."""
        return next(self._frame_gaps(min_frame), None) is None

    def _frame_gaps(self, min_frame: int):
        """What :meth:`_frame_ready` still waits for, one phrase at a time (lazily: the wait's
        predicate stops at the first; a timed-out wait's warning lists them all)."""
        if self.latest is None or self.status is None or self.perception is None:
            yield "task, perception/classes, episode/status or a camera frame"
            return
        f = int(self.latest["frame"])
        if f < min_frame:
            yield f"camera frame from frame {min_frame} on (the newest is {f})"
            return
        if self.labels_of(f) is None:
            yield f"perception's instance labels of frame {f} (is perception_node running?)"
        if not self.lockstep:
            return
        if self.status["frame"] != f:
            yield f"episode/status of frame {f} (the last is of frame {self.status['frame']})"
        if self.map_stamp_ns < int(round(f * self.frame_dt * 1e9)):
            yield (f"map of frame {f} (the newest is stamped {self.map_stamp_ns * 1e-9:.3f} s; "
                   "is mapping_node running?)")
        if self.true_boxes() and self.boxes_frame < f:
            yield f"perception's boxes of frame {f} (the newest are of frame {self.boxes_frame})"

    def wait_for_frame(self, what: str = "the current frame", min_frame: int | None = None) -> dict:
        """The observation of the current frame (the newest status frame when called, or
        ``min_frame``).  In free-run the camera may run slower than the frames: the first
        camera frame from then on is taken."""
        if self.lockstep:
            self.sync_with_sim()
        if min_frame is None:
            min_frame = self.current_frame()
        ok = self._wait(lambda: self._frame_ready(min_frame))
        if ok and self.lockstep:
            # the simulator is idle between actions: let messages still on their way land
            # (a status or frame published just before the action's answer)
            while True:
                with self._cv:
                    seen = (self.status["frame"], int(self.latest["frame"]), self.map_stamp_ns)
                time.sleep(self.settle_time)
                with self._cv:
                    now = (self.status["frame"], int(self.latest["frame"]), self.map_stamp_ns)
                if now == seen:
                    break
                ok = self._wait(lambda: self._frame_ready(now[0]))
                if not ok:
                    break
        with self._cv:
            if self.latest is not None and self.status is not None:
                # held comes with the status, published after the images of its frame
                for o in [self.latest, *self.collected]:
                    if int(o["frame"]) >= self.status["frame"]:
                        o["held"] = np.int64(self.perceived_id(self.status["held"]))
        if not ok:
            missing = [n for n, ok in (("task", self.task is not None),
                                       ("perception/classes (is perception_node running?)",
                                        self.perception is not None),
                                       ("perception/instances/label_info", self.labels is not None),
                                       ("episode/status", self.status is not None),
                                       ("a complete camera frame with TF", self.latest is not None)) if not ok]
            if not missing:
                with self._cv:
                    missing = list(self._frame_gaps(min_frame)) or ["the frame (it came as the wait ended)"]
            self.get_logger().warning(f"waited {self.wait_timeout:g} s for {what}: no {', '.join(missing)}",
                                      throttle_duration_sec=10.0)
            if self.latest is None:
                raise TimeoutError(f"no observation after {self.wait_timeout:g} s: missing {', '.join(missing)}")
        return self.latest

    def current_frame(self) -> int:
        with self._cv:
            return self.status["frame"] if self.status else 0

    # ------------------------------------------------------------ actions
    def execute(self, agent, action) -> tuple[Status, str, list[dict]]:
        """Run one HAZARD action through the core's action programs on a ROS locomotion;
        returns its status, reason and the observations it took (besides the periodic ones)."""
        ports = RosPorts(navigate=self._navigate, approach=self._approach, drive=self._drive, trigger=self._hands,
                         wait_frame=self.wait_for_frame,
                         nav_map=self._nav_blocked, episode_over=lambda: self.metrics is not None,
                         cancel=self.navigator.cancel_task, walk_to_frames=self.walk_to_frames,
                         exact_arrival=self.lockstep, object_box=self._object_box if self.use_true_boxes else None,
                         pick_object=self._pick_object if self.pick_object_client is not None
                         and self.ids_are_the_simulators() else None)
        loco = RosLocomotion(ports, agent, self.latest)
        try:
            act = parse_action(action)
        except ActionError as exc:
            return Status.INVALID, str(exc), []
        out = run_action(loco, act)
        return out.status, out.message, loco.kept

    # ------------------------------------------------------------ the run
    def run(self) -> dict | None:
        """Decide and act until the episode ends; returns the metrics (None if stopped)."""
        log = self.get_logger()
        try:
            if not self._wait(lambda: self.task is not None and self.perception is not None):
                raise TimeoutError(f"no task / perception/classes after {self.wait_timeout:g} s (are sim_node and "
                                   "perception_node running?)")
            obs = self.wait_for_frame("the first frame")
            if not self.navigator.wait_for_server(self.wait_timeout):
                raise TimeoutError("no navigate_to_pose server (start navigation_node or Nav2)")
            if self.walk_map is not None and not self._use_walk_map_on_navigator():
                log.warning(f"{self.navigation_node} did not take walk_map: it plans on the mapping node's map; "
                            "lock-step runs then differ from embedded ones")
                self.walk_map = None
            agent = make_agent(self.agent_name, seed=self.seed, group=GROUP, **self.agent_options)
            with self._cv:
                observations, self.collected = merge_observations(self.collected, [], obs), []
                self._walk_map_add(observations)
                task, words = self.agent_task(self.task)
                info = build_info(self.labels_of(int(obs["frame"])), observations, action_result("reset", True, 0),
                                  self.perceived_ids(self.status["rescued_ids"]), self.task["bounds"], task=task,
                                  frame=int(obs["frame"]))
            if words.get("mapped") or words.get("unmapped"):
                log.info(f"the detector's words for the task: {words}")
            agent.reset(obs, info)
            log.info(f"agent {self.agent_name} (seed {self.seed}) on {self.task['hazard']}: "
                     f"{len(self.task['targets'])} target categories")
            for n in range(self.max_actions):
                t0 = time.perf_counter()
                action = normalise_action(agent.act(obs, info))
                think = time.perf_counter() - t0
                frame0 = int(obs["frame"])
                with self._cv:
                    self._walk_origin = frame0 if action[0] in ("walk_to", "move_by") else None
                status, reason, keep = self.execute(agent, action)
                if status is Status.SUCCEEDED and action[0] == "pick_up":
                    self.note_picked(int(action[1]))
                ok = status is Status.SUCCEEDED
                obs = self.wait_for_frame(f"the frame after {action}")
                if self.lockstep and action[0] != "stop" and int(obs["frame"]) == frame0:
                    # every action costs at least a frame (HazardEnv.step)
                    stepped, answer = self._trigger(self.step_client, "sim/step")
                    if stepped is Status.SUCCEEDED:
                        obs = self.wait_for_frame(f"the frame after {action}", frame0 + 1)
                with self._cv:
                    self._walk_origin = None
                    collected, self.collected = self.collected, []
                    observations = merge_observations(collected, keep, obs)
                    self._walk_map_add(observations)         # every frame the agent observes, as embedded
                    frames = int(obs["frame"]) - frame0
                    name = f"{action[0]}({'' if len(action) < 2 else action[1]})"
                    result = action_result(name, status, frames, reason)
                    info = build_info(self.labels_of(int(obs["frame"])), observations, result,
                                      self.perceived_ids(self.status["rescued_ids"]), self.task["bounds"],
                                      frame=int(obs["frame"]))
                self.action_pub.publish(String(data=json.dumps(
                    {"n": n, "action": list(action), "success": ok, "reason": reason, "frames": frames,
                     "frame": int(obs["frame"]), "think_s": round(think, 4),
                     "observed_frames": [int(o["frame"]) for o in observations]})))
                x, y, yaw = (float(v) for v in obs["agent_pose"])
                log.info(f"#{n} {action} -> {'ok' if ok else 'failed: ' + reason} "
                         f"({frames} frames, now {int(obs['frame'])}) pose {x:.3f} {y:.3f} {yaw:.3f}")
                if action[0] == "stop":
                    log.info("the agent stopped")
                    return self.metrics
                if self.metrics is not None or (self.status and self.status["done"]):
                    break
            self._wait(lambda: self.metrics is not None, 5.0)
        except EpisodeOver:
            pass
        return self.episode_over(("value_rate", "step", "damage", "rescued_count", "frames"))


def main(args=None) -> int:
    """The generic ``decision_node`` script (it runs this node for the benchmarks that declare it)."""
    from planner_node.decision_main import main as decision_main
    return decision_main(args)


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["DecisionNode", "PUBLISHED_TOPICS", "main"]
