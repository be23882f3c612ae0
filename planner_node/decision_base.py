"""What the decision nodes share: their parameters, their inputs and the
perception they decide on.

Object observations come ONLY from the perception node (docs/ros_contract.md, "Perception
outputs for decisions"): the instance image ``perception/instances/image_raw`` (the agent's
``seg``), its ``perception/instances/label_info`` (the agent's ``labels``, per frame),
``perception/objects`` (3-D boxes of the objects seen so far) and ``perception/classes`` (the
perception's vocabulary: the simulator's labels with the groundtruth backend, a detector's
classes otherwise; whether its boxes are the simulator's). Never ``camera/segmentation/*``
or ``world/objects``: with the simulator's ground-truth topics switched off, or on a real
robot, the decision nodes see what perception sees.

The rest of the plumbing (camera images, camera info, TF and odometry, JSON topics) goes
through :class:`hazard_ros.node_inputs.NodeInputs`.
"""
from __future__ import annotations

import json
import threading

import numpy as np
from rcl_interfaces.srv import GetParameters
from rclpy.node import Node
from std_srvs.srv import Trigger
from vision_msgs.msg import Detection3DArray

from hazard_ros import msg_guards as mg
from hazard_ros.conversions import time_to_ns
from hazard_ros.node_inputs import NodeInputs
from hazard_sim.perception.vocabulary import task_in_vocabulary
from perception_node.instance_outputs import OBJECTS_TOPIC
from planner_node.observation import box_footprint, frame_of

INSTANCES = "perception/instances/image_raw"
INSTANCE_LABELS = "perception/instances/label_info"
OBJECTS = OBJECTS_TOPIC
CLASSES = "perception/classes"
#: the images of a frame an agent gets (kind -> topic): the camera, and perception's instances as ``seg``
CAMERA_IMAGES = {"rgb": "camera/color/image_raw", "depth": "camera/depth/image_raw", "seg": INSTANCES}
KEEP_FRAMES = 60          # per-frame label maps kept
KEEP_MASKS = 400          # per-frame masks of unrecognised things kept (for the walking map)


class EpisodeOver(Exception):
    pass


def parse_agent_options(text: str) -> dict:
    """The ``agent_options`` parameter: a JSON object of agent keyword arguments ('' = none)."""
    text = text.strip()
    try:
        opts = json.loads(text) if text else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"agent_options is not JSON: {exc}") from None
    if not isinstance(opts, dict):
        raise ValueError(f"agent_options must be a JSON object, got {text!r}")
    return opts


class DecisionBase(Node):
    """Parameters ``agent``, ``seed``, ``agent_options``, ``wait_timeout``, ``sim_node``; the
    perception, camera, pose and episode inputs (``subscribe_*``)."""

    default_agent = "greedy"

    def __init__(self, node_name: str = "decision_node", **kwargs):
        super().__init__(node_name, **kwargs)
        p = self.declare_parameter
        self.agent_name = str(p("agent", self.default_agent).value)
        self.seed = int(p("seed", 0).value)
        self.agent_options = parse_agent_options(str(p("agent_options", "").value))
        self.wait_timeout = float(p("wait_timeout", 30.0).value)
        self.sim_node = str(p("sim_node", "sim_node").value)
        self._cv = threading.Condition()
        self.inputs = NodeInputs(self, lock=self._cv)
        self.task: dict | None = None
        self.status: dict | None = None
        self.metrics: dict | None = None
        self.perception: dict | None = None                 # perception/classes
        self.labels_by_frame: dict[int, dict[int, str]] = {}
        self.labels: dict[int, str] | None = None           # the newest label map
        self.boxes: dict[int, tuple] = {}                   # id -> (centre xy, footprint radius)
        self.boxes_frame = -1
        self.unrecognised: dict[int, np.ndarray] = {}
        self.id_of_sim: dict[int, int] = {}                 # simulator id -> perceived id (held, rescued)
        self.frame_dt = 0.1
        self.sim_params = None

    # ------------------------------------------------------------------ subscriptions
    def subscribe_camera(self, img_qos, group, extra_images: dict | None = None, base_frame: str = "base_link"):
        """Colour, depth and perception's instances (+ ``extra_images``), camera info, the
        instance label maps, TF and odometry (``self.poses``)."""
        self.inputs.images({**CAMERA_IMAGES, **(extra_images or {})}, img_qos, self._on_image, group=group)
        self.inputs.camera_info("camera/color/camera_info", img_qos, self._on_camera_info, group=group)
        self.inputs.label_info(INSTANCE_LABELS, img_qos, self._on_instance_labels, group=group)
        # odom carries odom -> base_link too, and is latched in lock-step (/tf is not)
        self.poses = self.inputs.poses(on_change=self._assemble, planar=True, odom_qos=img_qos,
                                       base_frame=base_frame, callback_group=group)

    def subscribe_perception(self, objects_qos, group) -> None:
        """``perception/classes`` and ``perception/objects`` (the boxes of objects seen)."""
        self.inputs.json(CLASSES, self._on_perception, group=group)
        self.create_subscription(Detection3DArray, OBJECTS, self._on_objects, objects_qos, callback_group=group)

    def subscribe_episode(self, group, task_fields: tuple = (mg.TASK_FIELDS, mg.TASK_REQUIRED), parse_task=None,
                          status_group=None) -> None:
        """``task``, ``episode/status`` and ``episode/metrics`` (latched JSON)."""
        self.inputs.json("task", self._set_task, *task_fields, group=group, parse=parse_task)
        self.inputs.json("episode/status", self._set_status, mg.STATUS_FIELDS, group=status_group or group,
                         parse=self.parse_status)
        self.inputs.json("episode/metrics", self._set_metrics, mg.METRICS_FIELDS, mg.METRICS_REQUIRED,
                         group=status_group or group)

    def make_sim_clients(self, group) -> None:
        self.sim_params = self.create_client(GetParameters, f"{self.sim_node}/get_parameters",
                                             callback_group=group) if self.sim_node else None

    # ------------------------------------------------------------------ handlers (lock held)
    # each benchmark's decision node (planner_node/plugins/<name>.py) defines these three
    def _on_image(self, kind: str, stamp_ns: int, arr, frame_id: str) -> None:
        """Keep one image of a frame (``kind``: color, depth, instances, ...)."""
        raise NotImplementedError(f"{type(self).__name__} must define _on_image()")

    def _on_camera_info(self, K, msg) -> None:
        """Keep the camera model."""
        raise NotImplementedError(f"{type(self).__name__} must define _on_camera_info()")

    def _assemble(self) -> None:
        """Build the agent's observations from the frames complete so far."""
        raise NotImplementedError(f"{type(self).__name__} must define _assemble()")

    def _set_task(self, task: dict) -> None:
        self.task = task
        self._cv.notify_all()

    @staticmethod
    def parse_status(data: dict) -> dict:
        return data

    def _set_status(self, status: dict) -> None:
        self.status = status
        self._cv.notify_all()

    def _set_metrics(self, data: dict) -> None:
        self.metrics = data
        self._cv.notify_all()

    def _on_perception(self, data: dict) -> None:
        self.perception = data
        self._cv.notify_all()

    def _on_instance_labels(self, labels: dict, stamp_ns: int) -> None:
        frame = frame_of(stamp_ns, self.frame_dt)
        self.labels_by_frame[frame] = labels
        for f in sorted(self.labels_by_frame)[:-KEEP_FRAMES]:
            del self.labels_by_frame[f]
        self.labels = self.labels_by_frame[max(self.labels_by_frame)]
        self._cv.notify_all()

    def _on_objects(self, msg: Detection3DArray) -> None:
        boxes = mg.guard(self).detections(OBJECTS, msg)
        if boxes is None:
            return
        out = {}
        for d in boxes:
            try:
                out[int(d.id)] = box_footprint(d.bbox.center.position, d.bbox.size)
            except (ValueError, TypeError):
                continue
        with self._cv:
            self.boxes = out
            self.boxes_frame = max(self.boxes_frame, frame_of(time_to_ns(msg.header.stamp), self.frame_dt))
            self._cv.notify_all()

    # ------------------------------------------------------------------ queries (lock held)
    def take_unrecognised(self, obs: dict) -> None:
        """Perception's instance image marks pixels of things below the minimum size with their
        negated id (the groundtruth backend); the agent reads them as 0 (nothing), exactly as
        embedded, and the ids are kept for the walking map (``self.unrecognised[frame]``, an id
        image of just those pixels). Called with the lock held, on each new observation."""
        seg = obs["seg"]
        small = seg < 0
        if small.any():
            obs["seg"] = np.where(small, 0, seg).astype(seg.dtype, copy=False)
            self.unrecognised[int(obs["frame"])] = np.where(small, -seg, 0)
            for f in sorted(self.unrecognised)[:-KEEP_MASKS]:
                del self.unrecognised[f]

    def note_picked(self, perceived: int) -> None:
        """After a successful pick_up of the object perception calls ``perceived``: the
        simulator's status names what the hands hold by the simulator's id; remember which
        perceived object that is (with a detector the ids differ; with ground truth they are
        the same and nothing is noted)."""
        with self._cv:
            held = int(self.status["held"]) if self.status else -1
            if held >= 0 and held != perceived:
                self.id_of_sim[held] = perceived

    def perceived_id(self, sim_id: int) -> int:
        """The id the agent knows an object by (see :meth:`note_picked`)."""
        return self.id_of_sim.get(int(sim_id), int(sim_id))

    def perceived_ids(self, sim_ids) -> list[int]:
        return [self.perceived_id(i) for i in sim_ids]

    def labels_of(self, frame: int) -> dict[int, str] | None:
        """The instance label map of ``frame`` (perception's, per frame)."""
        return self.labels_by_frame.get(int(frame))

    def ids_are_the_simulators(self) -> bool:
        """Whether perception's instance ids are the simulator's (its groundtruth backend): then
        an object can be named to the simulator by that id (``pick_up_object``)."""
        return bool(self.perception and self.perception.get("detector") == "groundtruth")

    def true_boxes(self) -> bool:
        """Whether perception's boxes are the simulator's (its groundtruth backend)."""
        return bool(self.perception and self.perception.get("true_boxes"))

    def agent_task(self, task: dict) -> tuple[dict, dict]:
        """The task as the agent gets it: with a detector, its target categories in the
        detector's classes (:func:`hazard_sim.perception.vocabulary.task_in_vocabulary`)."""
        if not self.perception or self.perception.get("vocabulary") != "detector":
            return task, {}
        return task_in_vocabulary(task, self.perception.get("names"))

    def episode_over(self, keys) -> dict | None:
        """The metrics (None if the episode did not end), logged with ``keys``."""
        if self.metrics is not None:
            self.get_logger().info(f"episode over: {json.dumps({k: self.metrics.get(k) for k in keys})}")
        return self.metrics

    # ------------------------------------------------------------------ services
    def call_trigger(self, client, name: str, request=None):
        """A Trigger service's response (or that of ``request``, another service type with a
        ``success`` and ``message``), or None with the reason (not available / no answer)."""
        if not client.wait_for_service(timeout_sec=self.wait_timeout):
            return None, f"service {name} is not available"
        fut = client.call_async(Trigger.Request() if request is None else request)
        done = threading.Event()
        fut.add_done_callback(lambda _: done.set())
        if not done.wait(self.wait_timeout) or fut.result() is None:
            return None, f"service {name} did not answer within {self.wait_timeout:g} s"
        return fut.result(), ""

    def sync_with_sim(self) -> None:
        """A round trip to the simulator (its parameter service): what it published before it
        answered the last action is here once this returns (messages of one process arrive in
        order), then only this node's own queue is left."""
        if self.sim_params is None or not self.sim_params.service_is_ready():
            return
        fut = self.sim_params.call_async(GetParameters.Request(names=[]))
        done = threading.Event()
        fut.add_done_callback(lambda _: done.set())
        done.wait(2.0)


__all__ = ["CAMERA_IMAGES", "DecisionBase", "EpisodeOver", "INSTANCES", "INSTANCE_LABELS", "OBJECTS",
           "parse_agent_options"]
