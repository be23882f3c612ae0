"""``perception_node``: 2-D detection and 3-D placement of objects (thin ROS 2 node).

Subscribes (relative names, see docs/ros_contract.md): ``camera/color/image_raw``,
``camera/depth/image_raw``, ``camera/color/camera_info`` and, for the ground-truth
detector, ``camera/segmentation/image_raw`` + ``camera/segmentation/label_info`` and
``world/objects`` (the true boxes of its objects: ``true_boxes``; the only node but evaluation
that reads the simulator's ground truth; a namer reads ``label_info`` to check the scene's kinds);
``task``; ``/tf``, ``/tf_static`` and ``odom``; ``perception/set_classes`` (std_msgs/String, a JSON
list of class names).

Publishes, per frame, what a decision node needs (:mod:`perception_node.instance_outputs`):
``perception/instances/image_raw`` (32SC1 instance ids, the colour image's header),
``perception/instances/label_info`` (vision_msgs/LabelInfo, the id -> label map so far) and
``perception/objects`` (vision_msgs/Detection3DArray: every object seen so far, its box; the
groundtruth backend gives the simulator's true boxes from ``world/objects``, which it may read,
``true_boxes``); and ``detections`` (vision_msgs/Detection2DArray, header = image header,
``results[0].hypothesis.class_id`` = label, ``id`` = instance id for ground truth),
``detections_3d`` (vision_msgs/Detection3DArray in the map frame, stamp = image stamp)
and ``perception/classes`` (transient local, JSON ``{"classes": [...] | null, "detector",
"source", "unknown", "error", "vocabulary": "simulator" | "detector", "true_boxes"}``).

Classes: the detections topics carry the node's classes; a closed-vocabulary detector (onnx,
yolo) is given the task's labels in its own words (:func:`hazard_sim.perception.vocabulary.class_for`)
and runs on every class, so that the instance image carries everything it sees, as the
embedded runner gives agents.

Images of one frame are grouped by exact stamp; the camera pose is looked up in TF at
that stamp (waiting up to ``tf_timeout`` s of wall time for it, then using the latest).

Parameters: ``detector`` (groundtruth | onnx | yolo | yolo_world), ``weights`` (.onnx, or an
ultralytics .pt), ``text_embeddings`` (yolo_world: ``minilm`` or a file, class names without CLIP),
``classes`` (string list; empty: from the ``task`` topic, its target categories plus
``cart`` when it has containers, or the class its ``goal`` text names: DOZE), ``confidence``,
``wait_for_task`` (without classes and without a task, detect nothing (true) or every class
(false)), ``map_frame``, ``tf_timeout``,
``min_pixels`` (every detector: an instance counts from that many mask / box pixels; 0, the default:
the task's benchmark's own for this detector, see docs/perception.md), ``device``,
``imgsz`` (0: the camera's size rounded up to 32), ``namer`` (onnx / yolo: a ``namer.onnx`` that
names the detector's ``object`` instances by kind, :mod:`hazard_sim.perception.namer`),
``lockstep`` (true: sensor subscriptions reliable and
transient local, so a late start still gets the current frame) or ``sensor_qos`` explicitly,
``use_odom_tf`` (also read odom -> base_link from ``odom``: /tf is volatile, so a node that
starts after a lock-step frame would otherwise miss that frame's pose).

Named cameras (the ``task`` JSON's ``cameras``, e.g. ESAR's UAV: front_center, front_left,
front_right, bottom_center): the detector runs on every view (``camera_<name>/image_raw``,
``camera_<name>/depth/image_raw``, ``camera_<name>/camera_info``,
``camera_<name>/segmentation/image_raw``), each view's detections published with that
camera's header (frame ``camera_<name>_optical_frame``); the main ``camera/...`` topics are
then not used (they repeat one of the views). A task's ``detect_classes`` (a list of labels,
or a dict label -> text prompt) sets the classes: the ground-truth detector matches the
labels, text-prompted detectors (YOLO-World) get the prompts, and their detections are
published under the labels (e.g. prompt "person" -> label "victim").

Algorithms live in :mod:`hazard_sim.perception` (the interface and backends, shared with the
embedded runner; :mod:`perception_node.detectors` names them) and :mod:`perception_node.projection`.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import replace

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.clock import Clock, ClockType
from rclpy.parameter import Parameter
from std_msgs.msg import Header, String
from vision_msgs.msg import (
    Detection2DArray,
    Detection3DArray,
)

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.node_inputs import NodeInputs
from hazard_ros.ros_node_main import run_node
from hazard_ros.setup_node import SetupNode
from hazard_sim.perception.backends.groundtruth import DEFAULT_MIN_PIXELS
from hazard_sim.perception.embedded import classes_from_task, default_min_pixels
from hazard_sim.perception.instances import keep_seen
from hazard_sim.perception.namer import scene_namer_problem
from hazard_sim.perception.vocabulary import class_names, class_set_problem, labels_in_vocabulary, prompt_map
from perception_node.detectors import DetectorError, make_detector
from perception_node.instance_outputs import PUBLISHED_TOPICS as INSTANCE_TOPICS
from perception_node.instance_outputs import FrameInstances, InstancePublishers, TruthBoxes
from perception_node.perception_msgs import (  # noqa: F401  (RELIABLE ... add_odometry_to_tf: the mapping node's)
    RELIABLE,
    SENSOR_QOS_KINDS,
    TF_QOS,
    _short,
    add_odometry_to_tf,
    as_bool,
    declare_sensor_qos,
    depth_image,
    parse_class_list,
    sensor_qos,
    to_detection2d,
    to_detection3d,
)
from perception_node.projection import StampSync, TfWaitQueue, backproject_detection

#: (relative topic, type) of everything this node publishes (RViz-config test uses it)
PUBLISHED_TOPICS = [
    ("detections", "vision_msgs/msg/Detection2DArray"),
    ("detections_3d", "vision_msgs/msg/Detection3DArray"),
    ("perception/classes", "std_msgs/msg/String"),
    *INSTANCE_TOPICS,
]
SUBSCRIBED_TOPICS = [
    ("camera/color/image_raw", "sensor_msgs/msg/Image"),
    ("camera/depth/image_raw", "sensor_msgs/msg/Image"),
    ("camera/color/camera_info", "sensor_msgs/msg/CameraInfo"),
    ("camera/segmentation/image_raw", "sensor_msgs/msg/Image"),
    ("camera/segmentation/label_info", "vision_msgs/msg/LabelInfo"),
    ("world/objects", "vision_msgs/msg/Detection3DArray"),
    ("task", "std_msgs/msg/String"),
    ("perception/set_classes", "std_msgs/msg/String"),
    ("/tf", "tf2_msgs/msg/TFMessage"),
    ("/tf_static", "tf2_msgs/msg/TFMessage"),
    ("odom", "nav_msgs/msg/Odometry"),
]

LATCHED = qos.LATCHED


class PerceptionNode(SetupNode):
    """See the module docstring. Raises :class:`DetectorError` / ``ValueError`` from the
    constructor on bad parameters (``main`` turns that into one logged error)."""

    def __init__(self, **kwargs):
        super().__init__("perception_node", **kwargs)

    # ------------------------------------------------------------------ set-up
    def _setup(self) -> None:
        self.detector_name = str(self._declare("detector", "groundtruth", "groundtruth | onnx | yolo | yolo_world"))
        weights = str(self._declare("weights", "", "model file: .onnx (onnx), ultralytics .pt (yolo, yolo_world)"))
        self.declare_parameter("classes", Parameter.Type.STRING_ARRAY,
                               ParameterDescriptor(description="class names; unset/empty: from the task topic"))
        classes = self.get_parameter_or("classes", Parameter("classes", value=None)).value
        confidence = float(self._declare("confidence", 0.25, "minimum detection score"))
        self.wait_for_task = as_bool("wait_for_task", self._declare(
            "wait_for_task", True, "without classes: wait for the task (true) or detect all (false)"))
        qos_kind, cam_qos = declare_sensor_qos(self)
        self.map_frame = str(self._declare("map_frame", "map", "frame of detections_3d"))
        self.tf_timeout = float(self._declare("tf_timeout", 1.0, "wall s to wait for TF at an image stamp"))
        min_pixels = int(self._declare("min_pixels", 0, "smallest instance in pixels (mask, or box), any detector; "
                                                       "0: the task's benchmark's default for this detector"))
        device = str(self._declare("device", "", "yolo: torch device ('' = auto)"))
        imgsz = int(self._declare("imgsz", 0, "onnx / yolo: inference size (0 = the camera's, rounded up to 32)"))
        text_embeddings = str(self._declare("text_embeddings", "", "yolo_world: class-name embeddings offline: "
                                                                   "minilm or an .npz / .pt file"))
        namer = str(self._declare("namer", "", "onnx / yolo: a namer (namer.onnx) naming the detector's "
                                               "`object`s by kind ('' = none)"))
        self.use_odom_tf = as_bool("use_odom_tf", self._declare("use_odom_tf", True,
                                                                "also take odom -> base_link from odom"))
        true_boxes = as_bool("true_boxes", self._declare(
            "true_boxes", True, "groundtruth: perception/objects carries the simulator's true boxes (world/objects)"))

        self.auto_min_pixels = min_pixels <= 0       # set from the task's benchmark when it comes
        min_pixels = DEFAULT_MIN_PIXELS if self.auto_min_pixels else min_pixels
        self.min_pixels = min_pixels
        kind = self.detector_name.strip().lower()
        if kind in ("groundtruth", "ground_truth", "gt"):
            extra = {"min_pixels": min_pixels}
        elif kind == "onnx":
            extra = {"imgsz": imgsz or None}
        else:
            extra = {"device": device or None, "imgsz": imgsz or None}
            if kind in ("yolo_world", "yoloworld", "yolo-world") and text_embeddings:
                extra["text_embeddings"] = text_embeddings
        # classes are applied after construction so a text-encoder failure is reported as such
        if namer:
            extra["namer"] = namer
        self.detector = make_detector(self.detector_name, weights=weights or None, classes=None,
                                      confidence=confidence, **extra)
        self.classes_source = "none"
        self.class_error: str | None = None
        self.unknown_classes: list[str] = []
        self.fatal: str | None = None
        self.labels: dict[int, str] = {}
        self.task: dict | None = None
        self._held_group: dict | None = None
        self.prompt_to_label: dict[str, str] = {}   # text-prompted detectors: prompt -> label
        self.cam_qos = cam_qos
        self.view_syncs: dict[str, StampSync] = {}  # named cameras (from the task)

        self.pub_2d = self.create_publisher(Detection2DArray, "detections", RELIABLE)
        self.pub_3d = self.create_publisher(Detection3DArray, "detections_3d", RELIABLE)
        self.pub_classes = self.create_publisher(String, "perception/classes", LATCHED)
        self.instances = FrameInstances(min_pixels)
        self.instance_pubs = InstancePublishers(self, self.map_frame)
        self.closed_vocabulary = not self.detector.needs_segmentation and kind in ("onnx", "yolo")
        self.label_filter: set[str] | None = None   # closed vocabulary: the classes the detections topics carry
        self.class_list: list[str] | None = None
        self.true_boxes = true_boxes and self.detector.needs_segmentation

        if classes:
            self._apply_classes(list(classes), "parameter", fatal=True)     # raises on failure
        elif not self.wait_for_task:
            self.detector.set_classes(None)
            self.classes_source = "all"
        self._publish_classes()

        keys = {"depth", "info"}
        if self.detector.needs_rgb:
            keys.add("rgb")
        if self.detector.needs_segmentation:
            keys.add("seg")
        # lock-step: the boxes of exactly the frame's stamp
        self.truth = TruthBoxes(self.true_boxes and qos_kind == "transient_local", self.tf_timeout)
        self.sync = StampSync(keys, max_pending=10)
        self.tf_queue = TfWaitQueue(self.tf_timeout, max_len=10)
        self.stats = {"frames": 0, "detections": 0, "detections_3d": 0, "no_tf": 0, "detect_s": 0.0,
                      "project_s": 0.0}

        self.inputs = NodeInputs(self)
        self._subscribe_camera("camera/color/image_raw", "camera/depth/image_raw", "camera/color/camera_info",
                               "camera/segmentation/image_raw", self._on_camera, "camera {}")
        if self.detector.needs_segmentation or getattr(self.detector, "namer", None) is not None:
            self.inputs.label_info("camera/segmentation/label_info", qos.LATCHED_SUB, self._on_labels)
        if self.true_boxes:
            self.create_subscription(Detection3DArray, "world/objects", self._release_truth, cam_qos)
        self.inputs.json("task", self._on_task, mg.TASK_FIELDS, mg.TASK_REQUIRED)
        self.create_subscription(String, "perception/set_classes", self._on_set_classes, RELIABLE)
        self.poses = self.inputs.poses(on_change=self._flush, odom=self.use_odom_tf, odom_qos=cam_qos)
        self.create_timer(0.05, self._flush, clock=Clock(clock_type=ClockType.STEADY_TIME))
        classes = self.class_list if self.classes_source != "none" else "from task"
        self.get_logger().info(f"detector {self.detector.name}, classes {classes}, camera topics {qos_kind}")

    # ------------------------------------------------------------------ classes
    def _apply_classes(self, classes, source: str, fatal: bool = False, prompts: dict | None = None) -> bool:
        """Set the detector's classes; ``prompts`` (label -> text) is what a text-prompted
        detector gets instead of the labels (the ground-truth detector matches labels)."""
        self.prompt_to_label = {}
        if prompts and not self.detector.needs_segmentation and classes is not None:
            classes, self.prompt_to_label = prompt_map(classes, prompts, self._vocabulary())
        try:
            self.unknown_classes = self.detector.set_classes(classes)
        except DetectorError as exc:
            self.class_error = str(exc)
            if fatal:
                raise
            self.get_logger().error(f"cannot set classes {_short(classes)} ({source}): {exc}")
            return False
        self.classes_source, self.class_error = source, None
        self.class_list = self.detector.classes
        if self.closed_vocabulary:
            # detect every class (the instance image carries all, as embedded); the
            # detections topics keep the node's classes
            # in the labels the detections are published under (after the prompt mapping)
            self.label_filter = None if classes is None else \
                {self.prompt_to_label.get(c, c) for c in set(self.class_list) - set(self.unknown_classes)}
            self.detector.set_classes(None)
        if self.unknown_classes:
            self.get_logger().warning(f"the {self.detector.name} model cannot detect {self.unknown_classes}")
        return True

    def _publish_classes(self) -> None:
        self.pub_classes.publish(String(data=json.dumps({
            "classes": self.class_list if self.classes_source != "none" else None,
            "detector": self.detector.name, "source": self.classes_source,
            "unknown": self.unknown_classes, "error": self.class_error,
            "vocabulary": "simulator" if self.detector.needs_segmentation else "detector",
            "true_boxes": self.true_boxes, "names": self._vocabulary()})))

    def _on_task(self, task: dict) -> None:
        self.task = task
        problem = class_set_problem(self._vocabulary(), task.get("benchmark")) if self.closed_vocabulary else None
        if self._refuse(problem and f"task {task.get('benchmark')}: {problem}" or
                        scene_namer_problem(self.detector, self.labels, task.get("benchmark"))):
            return
        if self.auto_min_pixels:
            self._set_min_pixels(task.get("benchmark"))
        cameras = task.get("cameras")
        self._subscribe_views([c for c in cameras if isinstance(c, str)] if isinstance(cameras, list) else [])
        if self.classes_source in ("none", "task"):
            try:
                classes = classes_from_task(self.task)
            except ValueError as exc:
                self.get_logger().error(f"task message: {exc}")
                return
            prompts = self.task.get("detect_classes") if isinstance(self.task.get("detect_classes"), dict) else None
            if hasattr(self.detector, "prompt"):       # a namer names the task's kinds more readily (embedded too)
                self.detector.prompt(classes)
            if self.closed_vocabulary:
                classes = self._in_vocabulary(classes)
            ok = self._apply_classes(classes, "task", prompts=prompts)
            if not ok and self.classes_source == "none":
                self._refuse(f"cannot use the task's classes {classes}: {self.class_error}")
            self._publish_classes()
            self._release_held()

    def _set_min_pixels(self, benchmark) -> None:
        """``min_pixels`` 0: the benchmark's default for this detector (the ground truth's is the
        shipped detector's half-ceiling point, docs/perception.md); an unknown benchmark keeps the generic one."""
        try:
            n = default_min_pixels(str(benchmark), self.detector.name)
        except (KeyError, ValueError):
            self.get_logger().warning(f"task benchmark {benchmark!r} is not known here: min_pixels stays "
                                      f"{self.min_pixels}")
            return
        self.min_pixels = n
        self.instances.min_pixels = n
        if hasattr(self.detector, "min_pixels"):
            self.detector.min_pixels = n

    def _vocabulary(self) -> list[str] | None:
        """Every class a closed-vocabulary detector knows (None: open vocabulary / ground truth)."""
        return class_names(self.detector) if self.closed_vocabulary else None

    def _in_vocabulary(self, classes: list[str]) -> list[str]:
        return labels_in_vocabulary(classes, set(self._vocabulary() or ()), self.task or {})

    def _on_set_classes(self, msg: String) -> None:
        if len(msg.data) > mg.MAX_JSON_BYTES:
            mg.guard(self).drop("perception/set_classes", f"{len(msg.data)} bytes (at most {mg.MAX_JSON_BYTES})")
            return
        try:
            classes = parse_class_list(msg.data)
        except (ValueError, RecursionError) as exc:       # RecursionError: JSON nested too deeply (fuzz)
            self.class_error = f"perception/set_classes: {exc}"
            self.get_logger().error(self.class_error)
        else:
            if self._apply_classes(classes, "set_classes"):
                self.get_logger().info(f"classes set to {_short(self.detector.classes)}")
        self._publish_classes()

    def _release_truth(self, msg: Detection3DArray | None = None) -> None:
        """Publish the held frames whose true boxes are there (``msg``: new ones from world/objects)."""
        if msg is not None:
            self.truth.add(msg)
        for args, truth in self.truth.ready(time.monotonic()):
            self._publish_instances(*args, truth=truth)

    def _refuse(self, problem: str | None) -> bool:
        """End the node for ``problem`` (exit 1: a launch with exit_status.launch.py fails)."""
        if problem:
            self.fatal = problem
            self.get_logger().error(problem)
        return bool(problem)

    def _on_labels(self, labels: dict, stamp_ns: int) -> None:
        self.labels = labels
        if self.task is not None and not self.fatal:
            self._refuse(scene_namer_problem(self.detector, labels, self.task.get("benchmark")))
        self._release_held()

    def _waiting_for(self) -> str | None:
        if self.classes_source == "none":
            return "the task topic (classes)"
        if self.detector.needs_segmentation and not self.labels:
            return "camera/segmentation/label_info"
        return None

    def _release_held(self) -> None:
        if self._held_group is not None and not self._waiting_for():
            group, self._held_group = self._held_group, None
            self._process(group)

    # ------------------------------------------------------------------ frames
    def _subscribe_camera(self, rgb: str, depth: str, info: str, seg: str, handler, name: str) -> None:
        """One camera's topics for the keys the detector needs: ``handler(key, msg)``."""
        keys = self.sync.keys
        images = {k: t for k, t in (("rgb", rgb), ("depth", depth), ("seg", seg)) if k in keys}
        self.inputs.images(images, self.cam_qos, handler, raw=True, check_name=name.format)
        self.inputs.camera_info(info, self.cam_qos, lambda m: handler("info", m), raw=True, name=name.format("info"))

    def _on_camera(self, key: str, msg) -> None:
        if self.view_syncs:                   # named cameras: the main camera repeats one of them
            return
        group = self.sync.add(key, conv.time_to_ns(msg.header.stamp), msg)
        if group is not None:
            group["source"] = "main"
            self._process(group)

    def _subscribe_views(self, cameras: list[str]) -> None:
        """Per named camera, the same topic set as the main camera's under ``camera_<name>/``."""
        for name in cameras:
            if name in self.view_syncs:
                continue
            self.view_syncs[name] = StampSync(set(self.sync.keys), max_pending=10)
            c = f"camera_{name}"
            self._subscribe_camera(f"{c}/image_raw", f"{c}/depth/image_raw", f"{c}/camera_info",
                                   f"{c}/segmentation/image_raw", lambda k, m, n=name: self._on_view(n, k, m),
                                   c + " {}")
        if cameras:
            self.get_logger().info(f"detecting on the views of cameras {', '.join(cameras)}")

    def _on_view(self, name: str, key: str, msg) -> None:
        group = self.view_syncs[name].add(key, conv.time_to_ns(msg.header.stamp), msg)
        if group is not None:
            self._process(group)

    def _process(self, group: dict) -> None:
        if group.get("source") == "main" and self.view_syncs:
            return                            # a main-camera frame held from before the task named the views
        waiting = self._waiting_for()
        if waiting:
            # keep the newest frame until then (in lock-step the simulator's first frame may
            # arrive before its latched task / label info do)
            if self._held_group is None:
                self.get_logger().info(f"waiting for {waiting} before detecting")
            self._held_group = group
            return
        image_msg = group.get("rgb") or group.get("seg") or group["depth"]
        header = image_msg.header
        stamp_ns = conv.time_to_ns(header.stamp)
        self.stats["frames"] += 1
        try:
            t0 = time.perf_counter()
            rgb = conv.from_ros_image(group["rgb"]) if "rgb" in group else None
            extra, seg = {}, None
            if "seg" in group:
                seg = conv.from_ros_image(group["seg"])
                extra = {"seg": seg, "labels": self.labels}
            seen = keep_seen(self.detector.detect(rgb, extra), self.min_pixels)
            if self.prompt_to_label:
                seen = [replace(d, label=self.prompt_to_label.get(d.label, d.label)) for d in seen]
            self.stats["detect_s"] += time.perf_counter() - t0
        except (DetectorError, ValueError) as exc:
            self.get_logger().error(f"detection failed: {exc}", throttle_duration_sec=5.0)
            seen, seg = [], None
        dets = seen if self.label_filter is None else [d for d in seen if d.label in self.label_filter]
        self.stats["detections"] += len(dets)
        self.pub_2d.publish(Detection2DArray(header=header, detections=[to_detection2d(d, header) for d in dets]))
        payload = {"header": header, "dets": dets, "seen": seen, "seg": seg, "depth": group["depth"],
                   "info": group["info"],
                   "shape": (int(group["depth"].height), int(group["depth"].width)),
                   "frame": group["depth"].header.frame_id or header.frame_id, "main": group.get("source") == "main"}
        self.tf_queue.push(stamp_ns, payload, time.monotonic())
        self._flush()

    def _flush(self) -> None:
        if self.truth.waiting:
            self._release_truth()
        for stamp_ns, job, T, note in self.tf_queue.pop_ready(
                lambda s, job: self.poses.lookup(self.map_frame, job["frame"], s), time.monotonic()):
            self._publish_3d(stamp_ns, job, T, note)

    def _publish_3d(self, stamp_ns: int, job: dict, T, note: str) -> None:
        header = Header(stamp=job["header"].stamp, frame_id=self.map_frame)
        out = Detection3DArray(header=header)
        if T is None:
            self.stats["no_tf"] += 1
            self.get_logger().warning(f"no transform {self.map_frame} <- {job['frame']} for the frame at "
                                      f"{stamp_ns * 1e-9:.3f} s ({note}); detections_3d empty",
                                      throttle_duration_sec=5.0)
        elif note == "latest":
            self.get_logger().warning("TF at the image stamp did not come; using the latest",
                                      throttle_duration_sec=5.0)
        t0 = time.perf_counter()
        try:
            depth = depth_image(job["depth"])
            K = conv.from_ros_camera_info(job["info"])
        except ValueError as exc:
            self.get_logger().error(f"cannot use the depth image: {exc}", throttle_duration_sec=5.0)
            depth, K = None, None
        if T is not None and depth is not None:
            for det in job["dets"]:
                proj = backproject_detection(det, depth, K, T)
                if proj is not None:
                    out.detections.append(to_detection3d(det, proj, header))
        self.stats["project_s"] += time.perf_counter() - t0
        self.stats["detections_3d"] += len(out.detections)
        self.pub_3d.publish(out)
        self._publish_instances(stamp_ns, job, T, depth, K)

    def _publish_instances(self, stamp_ns: int, job: dict, T, depth, K, truth=False) -> None:
        """The frame's instance image, label map and objects (perception_node.instance_outputs)."""
        if not job["main"]:
            return                            # named cameras (ESAR's views): their detections only
        if job["seg"] is not None:
            if self.true_boxes and truth is False:
                self.truth.defer((stamp_ns, job, T, depth, K), stamp_ns, time.monotonic())
                self._release_truth()
                return
            img, labels, objects = self.instances.from_segmentation(job["seg"], self.labels, truth or None)
        elif K is None:
            return
        else:
            img, labels, objects = self.instances.from_detections(
                job["seen"], depth, K, T, stamp_ns, job["shape"])
        self.instance_pubs.publish(job["header"], img, labels, objects)


def _cannot_start(name: str, exc: Exception) -> str:
    """Bad parameters, missing weights, ...: one line, no traceback."""
    text = str(exc) if isinstance(exc, (DetectorError, ValueError)) else f"{type(exc).__name__}: {exc}"
    return f"[{name}] cannot start: {text}"


def main(args=None) -> int:
    return run_node(PerceptionNode, "perception_node", args, start_errors=(Exception,), start_error_code=1,
                    start_error_line=_cannot_start, stop_code=lambda node: 1 if node.fatal else None)


if __name__ == "__main__":
    sys.exit(main())
