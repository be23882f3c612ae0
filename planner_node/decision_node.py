"""``decision_node``: runs a ``hazard_sim`` agent (random / rule / greedy / mcts / mcts_value)
on observations assembled from ROS topics, and executes its HAZARD actions over ROS.

Inputs: ``camera/color/image_raw``, ``camera/depth/image_raw``,
``camera/segmentation/image_raw``, ``camera/color/camera_info``, ``thermal/image_raw``
(fire) or ``water_level/image_raw`` (flood), ``camera/segmentation/label_info``, ``/tf``
and ``/tf_static`` (camera and base poses), ``task``, ``episode/status``,
``episode/metrics`` (the run ends when it arrives) and ``map`` (only its stamp: in
lock-step the node decides once the map of the current frame is there).

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
0.05 m; true: at the ground-truth box of the simulator's ``world/objects`` once the agent
has seen the object, as the embedded walk_to does), walk_map (default: lockstep: build the
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
import math
import threading
import time

import numpy as np
import rclpy
from builtin_interfaces.msg import Time as TimeMsg
from nav_msgs.msg import OccupancyGrid, Odometry
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import GetParameters, SetParameters
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import Header, String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import Detection3DArray, LabelInfo

from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.conversions import (
    from_ros_camera_info,
    from_ros_image,
    from_ros_label_info,
    from_trigger_message,
    planar_matrix,
    quaternion_to_yaw,
    stamp_from_frame,
    time_to_ns,
)
from hazard_ros.params import declare_bool
from hazard_ros.ros_node_main import run_node
from hazard_ros.tf_math import TfBuffer
from hazard_sim.agents import make_agent
from hazard_sim.core.outcome import Status
from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.navigation.gait import observes_at
from hazard_sim.navigation.grid import inflate, release_start
from hazard_sim.tasks.hazard.actions import ActionError, parse_action
from hazard_sim.tasks.hazard.agents import AGENTS, GROUP
from hazard_sim.tasks.hazard.controllers import run_action
from perception_node.mapping_node import to_occupancy_grid
from planner_node.approach import OBJECT_FRAME
from planner_node.following import HUMANOID_MAX_LINEAR
from planner_node.locomotion import RosLocomotion, RosPorts
from planner_node.navigation import ErrorCode, OccupancyMap
from planner_node.observation import (
    BODY_RADIUS,
    ObservationAssembler,
    action_result,
    build_info,
    merge_observations,
    parse_status,
    parse_task,
)
from planner_node.ros_commander import Navigator, TaskResult, pose_stamped
from planner_node.walk_map import WalkMap

#: topics this node publishes (relative names, ROS type)
PUBLISHED_TOPICS = [("decision/action", "std_msgs/msg/String"),
                    ("walk_map", "nav_msgs/msg/OccupancyGrid")]      # walk_map: lock-step (parameter walk_map)

# lock-step: the simulator's publishers keep 2 frames for late joiners; a deep reader queue
# keeps every frame while this node is busy (an agent's memory must not depend on timing)
LOCKSTEP_READER = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
REACH = HumanoidSpec().reach
BODY_SPEED = HUMANOID_MAX_LINEAR    # m/s: move_by's drive_on_heading (the navigator caps it at the body's)
#: frames of the longest final turn (half a turn at the body's turn rate), and one more
FINAL_TURN_FRAMES = math.ceil(180.0 / HumanoidSpec().turn_per_frame_deg) + 1
MAP_RESOLUTION = 0.1        # m: the walking map's cells when the task does not say
#: navigation errors after which the agent gives up on an object (no path to it)
NO_PATH_CODES = (ErrorCode.GOAL_OUTSIDE_MAP, ErrorCode.GOAL_OCCUPIED, ErrorCode.NO_VALID_PATH,
                 ErrorCode.START_OUTSIDE_MAP)


class EpisodeOver(Exception):
    pass


def normalise_action(action) -> tuple:
    """A HAZARD action as a tuple (name, [int id | float amount]); raises ValueError
    (hazard_sim.tasks.hazard.actions.ActionError) for one that cannot be interpreted."""
    act = parse_action(action)
    if act.object_id is not None:
        return (act.name, int(act.object_id))
    if act.amount is not None:
        return (act.name, float(act.amount))
    return (act.name,)


class DecisionNode(Node):
    """See the module docstring."""

    def __init__(self, node_name: str = "decision_node", **kwargs):
        super().__init__(node_name, **kwargs)
        p = self.declare_parameter
        self.agent_name = str(p("agent", "greedy").value)
        self.seed = int(p("seed", 0).value)
        opts = str(p("agent_options", "").value).strip()
        self.lockstep = declare_bool(self, "lockstep", False, "decide once the map of the current frame is there")
        self.global_frame = str(p("global_frame", "map").value)
        self.base_frame = str(p("robot_base_frame", "base_link").value)
        self.walk_to_frames = int(p("walk_to_frames", 100).value)
        self.observe_every = int(p("observe_every", 10).value)
        self.max_actions = int(p("max_actions", 2000).value)
        self.wait_timeout = float(p("wait_timeout", 30.0).value)
        self.frame_dt = float(p("frame_dt", 0.1).value)
        self.settle_time = float(p("settle_time", 0.02).value)
        self.sim_node = str(p("sim_node", "sim_node").value)
        self.navigation_node = str(p("navigation_node", "navigation_node").value)
        self.use_walk_map = declare_bool(
            self, "walk_map", self.lockstep,
            "lock-step: build the embedded body's walking map from the agent's observations, publish it on "
            "walk_map and have navigation_node plan on it (its walk_map parameter)")
        self.true_boxes = declare_bool(
            self, "true_object_boxes", self.lockstep,
            "walk_to an object the agent has seen by its ground-truth box (world/objects), as embedded runs do "
            "(default: in lock-step, where the simulator is the only source)")
        action_name = str(p("navigate_action", "navigate_to_pose").value)
        if self.agent_name not in AGENTS:
            raise ValueError(f"unknown agent {self.agent_name!r}; known: {', '.join(sorted(AGENTS))}")
        try:
            self.agent_options = json.loads(opts) if opts else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f"agent_options is not JSON: {exc}") from None
        if not isinstance(self.agent_options, dict):
            raise ValueError(f"agent_options must be a JSON object, got {opts!r}")

        self._cv = threading.Condition()
        self.tf = TfBuffer(history=200)
        self.task: dict | None = None
        self.labels: dict[int, str] | None = None
        self.status: dict | None = None
        self.metrics: dict | None = None
        self.map_stamp_ns = -1
        self.map_msg: OccupancyGrid | None = None
        self.assembler: ObservationAssembler | None = None
        self._early_images: list = []
        self.collected: list[dict] = []          # every observe_every-th frame since the last decision
        self._walk_origin: int | None = None      # lock-step: first frame of the walk under way
        self.latest: dict | None = None
        self.boxes: dict[int, tuple[np.ndarray, float]] = {}     # id -> (centre xy, footprint radius)
        self.walk_map: WalkMap | None = None

        subs = MutuallyExclusiveCallbackGroup()
        img_qos = LOCKSTEP_READER if self.lockstep else qos_profile_sensor_data
        for topic, kind in (("camera/color/image_raw", "rgb"), ("camera/depth/image_raw", "depth"),
                            ("camera/segmentation/image_raw", "seg"), ("thermal/image_raw", "temperature"),
                            ("water_level/image_raw", "water_level")):
            self.create_subscription(Image, topic, lambda m, k=kind: self._on_image(k, m), img_qos,
                                     callback_group=subs)
        self.create_subscription(CameraInfo, "camera/color/camera_info", self._on_camera_info, img_qos,
                                 callback_group=subs)
        self.create_subscription(LabelInfo, "camera/segmentation/label_info", self._on_labels, qos.LATCHED,
                                 callback_group=subs)
        self.create_subscription(TFMessage, "/tf", self._on_tf, qos.TF, callback_group=subs)
        # odom carries odom -> base_link too, and is latched in lock-step (/tf is not)
        self.create_subscription(Odometry, "odom", self._on_odom, img_qos, callback_group=subs)
        self.create_subscription(TFMessage, "/tf_static", lambda m: self._on_tf(m, True), qos.TF_STATIC_SUB,
                                 callback_group=subs)
        # small messages in a group of their own: never queued behind image decoding, so the
        # status of the frame an action ended on is here as soon as it arrives
        fast = MutuallyExclusiveCallbackGroup()
        self.create_subscription(String, "task", self._on_task, qos.LATCHED, callback_group=subs)
        self.create_subscription(String, "episode/status", self._on_status, qos.LATCHED, callback_group=fast)
        self.create_subscription(String, "episode/metrics", self._on_metrics, qos.LATCHED, callback_group=fast)
        self.create_subscription(OccupancyGrid, "map", self._on_map, qos.LATCHED, callback_group=fast)
        if self.true_boxes:
            self.create_subscription(Detection3DArray, "world/objects", self._on_objects,
                                     qos.sensor_subscription_qos(self.lockstep), callback_group=fast)
        clients = ReentrantCallbackGroup()
        self.pick_client = self.create_client(Trigger, "pick_up", callback_group=clients)
        self.drop_client = self.create_client(Trigger, "drop", callback_group=clients)
        self.step_client = self.create_client(Trigger, "sim/step", callback_group=clients) if self.lockstep else None
        self.sim_params = self.create_client(GetParameters, f"{self.sim_node}/get_parameters",
                                             callback_group=clients) if self.lockstep and self.sim_node else None
        self.nav_params = self.create_client(SetParameters, f"{self.navigation_node}/set_parameters",
                                             callback_group=clients) \
            if self.lockstep and self.navigation_node else None
        self.action_pub = self.create_publisher(String, "decision/action", 10)
        self.walk_map_pub = self.create_publisher(OccupancyGrid, "walk_map", qos.LATCHED) \
            if self.use_walk_map else None
        self.navigator = Navigator(self, action_name)

    # ------------------------------------------------------------ inputs
    def _on_image(self, kind: str, msg: Image) -> None:
        g = mg.guard(self)
        if not g.ok(f"{kind} image", mg.check_image, msg, g.now_ns()):
            return
        try:
            arr = from_ros_image(msg)
        except ValueError as exc:
            self.get_logger().error(f"{kind} image: {exc}", throttle_duration_sec=10.0)
            return
        stamp = time_to_ns(msg.header.stamp)
        with self._cv:
            if self.assembler is None:               # task not known yet: keep a few frames
                self._early_images.append((kind, stamp, arr, msg.header.frame_id))
                del self._early_images[:-40]
                return
            self._add_image(kind, stamp, arr, msg.header.frame_id)
            self._assemble()

    def _add_image(self, kind, stamp, arr, frame_id) -> None:
        if kind in ("temperature", "water_level"):
            if kind != self.task.get("channel"):
                return
            kind = "hazard"
        self.assembler.add(kind, stamp, arr, frame_id)

    def _on_camera_info(self, msg: CameraInfo) -> None:
        g = mg.guard(self)
        if not g.ok("camera_info", mg.check_camera_info, msg, g.now_ns()):
            return
        try:
            K = from_ros_camera_info(msg)
        except ValueError as exc:
            self.get_logger().error(f"camera_info: {exc}", throttle_duration_sec=10.0)
            return
        with self._cv:
            self._K = K
            if self.assembler is not None:
                self.assembler.set_camera_info(K)
                self._assemble()

    def _on_labels(self, msg: LabelInfo) -> None:
        if not mg.guard(self).ok("label_info", mg.check_label_info, msg):
            return
        with self._cv:
            self.labels = from_ros_label_info(msg)
            self._cv.notify_all()

    def _on_tf(self, msg: TFMessage, static: bool = False) -> None:
        with self._cv:
            transforms = mg.guard(self).transforms("/tf_static" if static else "/tf", msg, static)
            try:
                self.tf.add_message(transforms, static=static)
            except ValueError as exc:
                self.get_logger().error(f"tf: {exc}", throttle_duration_sec=10.0)
            if self.assembler is not None:
                self._assemble()

    def _on_odom(self, msg: Odometry) -> None:
        with self._cv:
            if not mg.guard(self).odometry("odom", msg):
                return
        p = msg.pose.pose
        T = planar_matrix(p.position.x, p.position.y, quaternion_to_yaw(p.orientation))
        with self._cv:
            try:
                self.tf.set_transform(T, msg.header.frame_id or "odom", msg.child_frame_id or self.base_frame,
                                      time_to_ns(msg.header.stamp))
            except ValueError as exc:
                self.get_logger().error(f"odom: {exc}", throttle_duration_sec=10.0)
                return
            if self.assembler is not None:
                self._assemble()

    def _json(self, msg: String, what: str):
        try:
            return json.loads(msg.data)
        except json.JSONDecodeError as exc:
            self.get_logger().error(f"{what} is not JSON: {exc}")
            return None

    def _on_task(self, msg: String) -> None:
        data = mg.guard(self).json("task", msg, mg.TASK_FIELDS, mg.TASK_REQUIRED)
        if data is None:
            return
        task = mg.guard(self).accept("task", parse_task, data)
        if task is None:
            return
        with self._cv:
            self.task = task
            self.frame_dt = float(task.get("frame_dt", self.frame_dt))
            self.assembler = ObservationAssembler(task.get("channel"), self.frame_dt,
                                                  max_pending=40 if self.lockstep else 20, strict=self.lockstep)
            if self.use_walk_map and self.walk_map is None:
                self.walk_map = WalkMap(task["bounds"], float(task.get("map_resolution") or MAP_RESOLUTION),
                                        BODY_RADIUS)
            if getattr(self, "_K", None) is not None:
                self.assembler.set_camera_info(self._K)
            for item in self._early_images:
                self._add_image(*item)
            self._early_images = []
            self._assemble()
            self._cv.notify_all()

    def _on_status(self, msg: String) -> None:
        data = mg.guard(self).json("episode/status", msg, mg.STATUS_FIELDS)
        if data is None:
            return
        with self._cv:
            try:
                self.status = parse_status(data)
            except (ValueError, TypeError) as exc:
                self.get_logger().error(f"episode/status: {exc}")
            self._cv.notify_all()

    def _on_metrics(self, msg: String) -> None:
        data = mg.guard(self).json("episode/metrics", msg, mg.METRICS_FIELDS, mg.METRICS_REQUIRED)
        if data is None:
            return
        with self._cv:
            self.metrics = data if isinstance(data, dict) else {"raw": msg.data}
            self._cv.notify_all()

    def _on_map(self, msg: OccupancyGrid) -> None:
        g = mg.guard(self)
        if not g.ok("map", mg.check_occupancy_grid, msg, g.now_ns()):
            return
        with self._cv:
            self.map_stamp_ns = time_to_ns(msg.header.stamp)
            self.map_msg = msg                 # decoded only when a walk_to needs it
            self._cv.notify_all()

    def _walk_map_add(self, observations) -> None:
        """Integrate observations the agent gets into the walking map and publish it when it
        changed (stamped with the newest frame: navigation_node waits for it in lock-step).
        Called with the lock held."""
        if self.walk_map is None:
            return
        new = [o for o in observations if self.walk_map.integrate(o)]
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

    def _on_objects(self, msg: Detection3DArray) -> None:
        """Ground-truth boxes of the objects in the scene: centre and footprint radius (the
        half diagonal of the box's base, what the embedded walk_to's arrival counts)."""
        boxes = {}
        for d in msg.detections:
            try:
                oid = int(d.id)
            except ValueError:
                continue
            c, size = d.bbox.center.position, d.bbox.size
            if not all(np.isfinite(v) for v in (c.x, c.y, size.x, size.y)):
                continue
            boxes[oid] = (np.array([c.x, c.y]), float(np.hypot(size.x / 2.0, size.y / 2.0)))
        with self._cv:
            self.boxes = boxes

    def _object_box(self, object_id: int):
        with self._cv:
            return self.boxes.get(int(object_id))

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

    def _assemble(self) -> None:
        """Turn complete frames into observations (called with the lock held)."""
        held = self.status["held"] if self.status else -1
        new = self.assembler.pop_complete(self.tf, held, self.global_frame, self.base_frame)
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
        and the map of exactly its frame."""
        if self.latest is None or self.status is None or self.labels is None:
            return False
        f = int(self.latest["frame"])
        if f < min_frame:
            return False
        if not self.lockstep:
            return True
        return self.status["frame"] == f and self.map_stamp_ns >= int(round(f * self.frame_dt * 1e9))

    def wait_for_frame(self, what: str = "the current frame", min_frame: int | None = None) -> dict:
        """The observation of the current frame (the newest status frame when called, or
        ``min_frame``).  In free-run the camera may run slower than the frames: the first
        camera frame from then on is taken."""
        if self.lockstep:
            self._sync_with_sim()
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
                        o["held"] = np.int64(self.status["held"])
        if not ok:
            missing = [n for n, ok in (("task", self.task is not None), ("label_info", self.labels is not None),
                                       ("episode/status", self.status is not None),
                                       ("a complete camera frame with TF", self.latest is not None)) if not ok]
            if not missing:
                missing = ["map of that frame (is mapping_node running?)" if self.lockstep
                           else f"camera frame from frame {min_frame} on"]
            self.get_logger().warning(f"waited {self.wait_timeout:g} s for {what}: no {', '.join(missing)}",
                                      throttle_duration_sec=10.0)
            if self.latest is None:
                raise TimeoutError(f"no observation after {self.wait_timeout:g} s: missing {', '.join(missing)}")
        return self.latest

    def _sync_with_sim(self) -> None:
        """Lock-step: a round trip to the simulator (its parameter service).  The simulator
        published the frame an action ended on before it answered the action; messages from
        one process arrive in order, so once this answer is here the frame's status and
        images are here too (then only this node's own queue is left, see settle_time)."""
        if self.sim_params is None or not self.sim_params.service_is_ready():
            return
        fut = self.sim_params.call_async(GetParameters.Request(names=[]))
        done = threading.Event()
        fut.add_done_callback(lambda _: done.set())
        done.wait(2.0)

    def current_frame(self) -> int:
        with self._cv:
            return self.status["frame"] if self.status else 0

    # ------------------------------------------------------------ actions
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
        (``target.id`` in frame ``object/<id>`` when located by its world/objects box, else its
        remembered centre), ending within the gap of it and facing it, as the embedded walk does
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
        if not client.wait_for_service(timeout_sec=self.wait_timeout):
            return Status.INVALID, f"service {name} is not available"
        fut = client.call_async(Trigger.Request())
        done = threading.Event()
        fut.add_done_callback(lambda _: done.set())
        if not done.wait(self.wait_timeout) or fut.result() is None:
            return Status.INVALID, f"service {name} did not answer"
        r = fut.result()
        status, text = from_trigger_message(r.message)
        return (Status.SUCCEEDED if r.success else status), text

    def _hands(self, name: str):
        """pick_up / drop through the simulator's (or robot's) Trigger service; on success,
        waits for the status with the new hands (it comes on its own topic)."""
        status, reason = self._trigger(self.pick_client if name == "pick_up" else self.drop_client, name)
        if status is Status.SUCCEEDED:
            want_empty = name == "drop"
            self._wait(lambda: self.status is not None and (self.status["held"] == -1) == want_empty, 5.0)
        return status, reason

    def execute(self, agent, action) -> tuple[Status, str, list[dict]]:
        """Run one HAZARD action through the core's action programs on a ROS locomotion;
        returns its status, reason and the observations it took (besides the periodic ones)."""
        ports = RosPorts(navigate=self._navigate, approach=self._approach, drive=self._drive, trigger=self._hands,
                         wait_frame=self.wait_for_frame,
                         nav_map=self._nav_blocked, episode_over=lambda: self.metrics is not None,
                         cancel=self.navigator.cancel_task, walk_to_frames=self.walk_to_frames,
                         exact_arrival=self.lockstep, object_box=self._object_box if self.true_boxes else None)
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
            if not self._wait(lambda: self.task is not None and self.labels is not None):
                raise TimeoutError(f"no task / label_info after {self.wait_timeout:g} s (is sim_node running?)")
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
                info = build_info(self.labels, observations, action_result("reset", True, 0),
                                  self.status["rescued_ids"], self.task["bounds"], task=self.task,
                                  frame=int(obs["frame"]))
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
                    info = build_info(self.labels, observations, result, self.status["rescued_ids"],
                                      self.task["bounds"], frame=int(obs["frame"]))
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
        if self.metrics is not None:
            keys = ("value_rate", "step", "damage", "rescued_count", "frames")
            log.info(f"episode over: {json.dumps({k: self.metrics[k] for k in keys if k in self.metrics})}")
        return self.metrics


def make_decision_node() -> Node:
    """The node for the ``agent`` parameter: a DOZE agent (``frontier``, ``l3mvn``, ``c_l3mvn``,
    ``h_l3mvn``; ``random`` with ``benchmark:=doze/levelN``, as HAZARD has a random agent too)
    runs in :class:`planner_node.doze_decision.DozeDecisionNode`, any other in :class:`DecisionNode`."""
    from planner_node.doze_decision import DozeDecisionNode, is_doze_agent
    probe = Node("decision_node", automatically_declare_parameters_from_overrides=True)
    got = {k: str(probe.get_parameter(k).value) for k in ("agent", "benchmark") if probe.has_parameter(k)}
    probe.destroy_node()
    agent, doze = got.get("agent", ""), got.get("benchmark", "").startswith("doze/")
    if is_doze_agent(agent) and (doze or agent not in AGENTS):
        return DozeDecisionNode()
    return DecisionNode()


def main(args=None) -> int:
    return run_node(make_decision_node, "decision_node", args, threads=4, work=lambda node: node.run(),
                    work_errors=(ValueError, TimeoutError))


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["DecisionNode", "PUBLISHED_TOPICS", "main"]
