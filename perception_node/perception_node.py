"""``perception_node``: 2-D detection and 3-D placement of objects (thin ROS 2 node).

Subscribes (relative names, see docs/ros_contract.md): ``camera/color/image_raw``,
``camera/depth/image_raw``, ``camera/color/camera_info`` and, for the ground-truth
detector, ``camera/segmentation/image_raw`` + ``camera/segmentation/label_info``;
``task``; ``/tf``, ``/tf_static`` and ``odom``; ``perception/set_classes`` (std_msgs/String, a JSON
list of class names).

Publishes ``detections`` (vision_msgs/Detection2DArray, header = image header,
``results[0].hypothesis.class_id`` = label, ``id`` = instance id for ground truth),
``detections_3d`` (vision_msgs/Detection3DArray in the map frame, stamp = image stamp)
and ``perception/classes`` (transient local, JSON ``{"classes": [...] | null, "detector",
"source", "unknown", "error"}``).

Images of one frame are grouped by exact stamp; the camera pose is looked up in TF at
that stamp (waiting up to ``tf_timeout`` s of wall time for it, then using the latest).

Parameters: ``detector`` (groundtruth | onnx | yolo | yolo_world), ``weights`` (.onnx, or an
ultralytics .pt), ``text_embeddings`` (yolo_world: ``minilm`` or a file, class names without CLIP),
``classes`` (string list; empty: from the ``task`` topic, its target categories plus
``cart`` when it has containers, or the class its ``goal`` text names: DOZE), ``confidence``,
``wait_for_task`` (without classes and without a task, detect nothing (true) or every class
(false)), ``map_frame``, ``tf_timeout``,
``min_pixels`` (every detector: an instance counts from that many mask / box pixels), ``device``,
``imgsz`` (0: the camera's size rounded up to 32), ``lockstep`` (true: sensor subscriptions reliable and
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

import numpy as np
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import Header, String
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import (
    Detection2D,
    Detection2DArray,
    Detection3D,
    Detection3DArray,
    LabelInfo,
    ObjectHypothesisWithPose,
)

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros import params
from hazard_ros import ros_qos as qos
from hazard_ros.ros_node_main import run_node
from hazard_ros.tf_math import TfBuffer
from hazard_sim.perception.embedded import classes_from_task
from hazard_sim.perception.instances import keep_seen
from perception_node.detectors import Detection, DetectorError, make_detector
from perception_node.projection import StampSync, TfWaitQueue, backproject_detection

#: (relative topic, type) of everything this node publishes (RViz-config test uses it)
PUBLISHED_TOPICS = [
    ("detections", "vision_msgs/msg/Detection2DArray"),
    ("detections_3d", "vision_msgs/msg/Detection3DArray"),
    ("perception/classes", "std_msgs/msg/String"),
]
SUBSCRIBED_TOPICS = [
    ("camera/color/image_raw", "sensor_msgs/msg/Image"),
    ("camera/depth/image_raw", "sensor_msgs/msg/Image"),
    ("camera/color/camera_info", "sensor_msgs/msg/CameraInfo"),
    ("camera/segmentation/image_raw", "sensor_msgs/msg/Image"),
    ("camera/segmentation/label_info", "vision_msgs/msg/LabelInfo"),
    ("task", "std_msgs/msg/String"),
    ("perception/set_classes", "std_msgs/msg/String"),
    ("/tf", "tf2_msgs/msg/TFMessage"),
    ("/tf_static", "tf2_msgs/msg/TFMessage"),
    ("odom", "nav_msgs/msg/Odometry"),
]

LATCHED = qos.LATCHED
RELIABLE = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
TF_QOS = qos.TF


def as_bool(name: str, value) -> bool:
    """A bool parameter that may arrive as text ("true" / "false") from a launcher."""
    return params.as_bool(value, f"parameter {name}")


SENSOR_QOS_KINDS = ("best_effort", "reliable", "transient_local")


def declare_sensor_qos(node: Node) -> tuple[str, QoSProfile]:
    """Parameters ``lockstep`` (bool) and ``sensor_qos`` ('' = transient_local in lock-step,
    else best_effort); returns the chosen kind and the subscriber QoS of sensor topics."""
    lockstep = as_bool("lockstep", node.declare_parameter(
        "lockstep", False, ParameterDescriptor(
            description="simulator in lock-step: sensor topics reliable + transient local",
            dynamic_typing=True)).value)
    kind = str(node.declare_parameter("sensor_qos", "", ParameterDescriptor(
        description="sensor subscriptions: " + " | ".join(SENSOR_QOS_KINDS) +
                    " ('' = transient_local with lockstep, else best_effort)")).value)
    kind = kind or ("transient_local" if lockstep else "best_effort")
    return kind, sensor_qos(kind)


def sensor_qos(kind: str) -> QoSProfile:
    """Subscriber QoS of sensor topics. ``best_effort`` (free-run; also receives from
    reliable publishers); ``reliable`` (nothing lost); ``transient_local`` (reliable, and a
    node that starts late still gets the sim's current lock-step frame; needs a transient
    local publisher, as sim_node has in lock-step)."""
    if kind == "best_effort":
        return qos.SENSOR_DATA
    if kind == "reliable":
        return QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
    if kind == "transient_local":
        return qos.LOCKSTEP_SENSOR
    raise ValueError(f"parameter sensor_qos must be one of {', '.join(SENSOR_QOS_KINDS)}, got {kind!r}")


def add_odometry_to_tf(tf: TfBuffer, msg: Odometry) -> None:
    """Odometry carries the odom -> base_link transform of its stamp: add it to the buffer
    (covers frames whose /tf a late-starting node missed; /tf itself is volatile)."""
    if not msg.header.frame_id or not msg.child_frame_id:
        return
    tf.set_transform(conv.from_ros_pose(msg.pose.pose), msg.header.frame_id, msg.child_frame_id,
                     conv.time_to_ns(msg.header.stamp))


def depth_image(msg: Image) -> np.ndarray:
    """Depth in metres (float32) of a 32FC1 (m) or 16UC1 (mm, 0 = none) image."""
    img = conv.from_ros_image(msg)
    if msg.encoding in ("16UC1", "mono16"):
        d = img.astype(np.float32) / 1000.0
        d[img == 0] = np.nan
        return d
    if msg.encoding not in ("32FC1", "64FC1"):
        raise ValueError(f"depth image encoding {msg.encoding!r} is not 32FC1 (m) or 16UC1 (mm)")
    return img.astype(np.float32, copy=False)


def parse_class_list(text: str) -> list[str]:
    """``perception/set_classes`` payload: a JSON list of names (or {"classes": [...]})."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc}); expected a list of class names like [\"backpack\"]") from None
    if isinstance(data, dict):
        data = data.get("classes")
    if not isinstance(data, list) or not all(isinstance(c, str) for c in data):
        raise ValueError(f"expected a JSON list of class names, got {text[:80]!r}")
    return data


def _short(classes, n: int = 10) -> str:
    """A class list for a log line: at most ``n`` names, then how many more."""
    if not isinstance(classes, (list, tuple)) or len(classes) <= n:
        return str(classes)
    return f"{list(classes[:n])} and {len(classes) - n} more"


def to_detection2d(det: Detection, header: Header) -> Detection2D:
    d = Detection2D(header=header)
    d.id = "" if det.instance_id is None else str(det.instance_id)
    d.bbox.center.position.x, d.bbox.center.position.y = float(det.cx), float(det.cy)
    d.bbox.size_x, d.bbox.size_y = float(det.w), float(det.h)
    hyp = ObjectHypothesisWithPose()
    hyp.hypothesis.class_id, hyp.hypothesis.score = det.label, float(det.score)
    d.results.append(hyp)
    return d


def to_detection3d(det: Detection, proj, header: Header) -> Detection3D:
    d = Detection3D(header=header)
    d.id = "" if det.instance_id is None else str(det.instance_id)
    hyp = ObjectHypothesisWithPose()
    hyp.hypothesis.class_id, hyp.hypothesis.score = det.label, float(det.score)
    p = hyp.pose.pose.position
    p.x, p.y, p.z = (float(v) for v in proj.center)
    hyp.pose.pose.orientation.w = 1.0
    d.results.append(hyp)
    c = d.bbox.center.position
    c.x, c.y, c.z = (float(v) for v in proj.center)
    d.bbox.center.orientation.w = 1.0
    d.bbox.size.x, d.bbox.size.y, d.bbox.size.z = (float(v) for v in proj.size)
    return d


class PerceptionNode(Node):
    """See the module docstring. Raises :class:`DetectorError` / ``ValueError`` from the
    constructor on bad parameters (``main`` turns that into one logged error)."""

    def __init__(self, **kwargs):
        super().__init__("perception_node", **kwargs)
        try:
            self._setup()
        except Exception:
            self.destroy_node()
            raise

    # ------------------------------------------------------------------ set-up
    def _declare(self, name, default, doc):
        return self.declare_parameter(name, default, ParameterDescriptor(description=doc)).value

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
        min_pixels = int(self._declare("min_pixels", 3, "smallest instance in pixels (mask, or box), any detector"))
        device = str(self._declare("device", "", "yolo: torch device ('' = auto)"))
        imgsz = int(self._declare("imgsz", 0, "onnx / yolo: inference size (0 = the camera's, rounded up to 32)"))
        text_embeddings = str(self._declare("text_embeddings", "", "yolo_world: class-name embeddings offline: "
                                                                   "minilm or an .npz / .pt file"))
        self.use_odom_tf = as_bool("use_odom_tf", self._declare("use_odom_tf", True,
                                                                "also take odom -> base_link from odom"))

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
        self.sync = StampSync(keys, max_pending=10)
        self.tf = TfBuffer()
        self.tf_queue = TfWaitQueue(self.tf_timeout, max_len=10)
        self.stats = {"frames": 0, "detections": 0, "detections_3d": 0, "no_tf": 0, "detect_s": 0.0,
                      "project_s": 0.0}

        topics = {"rgb": ("camera/color/image_raw", Image), "depth": ("camera/depth/image_raw", Image),
                  "info": ("camera/color/camera_info", CameraInfo),
                  "seg": ("camera/segmentation/image_raw", Image)}
        for key in sorted(keys):
            topic, cls = topics[key]
            self.create_subscription(cls, topic, lambda m, k=key: self._on_camera(k, m), cam_qos)
        if self.detector.needs_segmentation:
            self.create_subscription(LabelInfo, "camera/segmentation/label_info", self._on_labels, LATCHED)
        self.create_subscription(String, "task", self._on_task, LATCHED)
        self.create_subscription(String, "perception/set_classes", self._on_set_classes, RELIABLE)
        self.create_subscription(TFMessage, "/tf", lambda m: self._on_tf(m, False), TF_QOS)
        self.create_subscription(TFMessage, "/tf_static", lambda m: self._on_tf(m, True), LATCHED)
        if self.use_odom_tf:
            self.create_subscription(Odometry, "odom", self._on_odom, cam_qos)
        self.create_timer(0.05, self._flush, clock=Clock(clock_type=ClockType.STEADY_TIME))
        classes = self.detector.classes if self.classes_source != "none" else "from task"
        self.get_logger().info(f"detector {self.detector.name}, classes {classes}, camera topics {qos_kind}")

    # ------------------------------------------------------------------ classes
    def _apply_classes(self, classes, source: str, fatal: bool = False, prompts: dict | None = None) -> bool:
        """Set the detector's classes; ``prompts`` (label -> text) is what a text-prompted
        detector gets instead of the labels (the ground-truth detector matches labels)."""
        self.prompt_to_label = {}
        if prompts and not self.detector.needs_segmentation and classes is not None:
            self.prompt_to_label = {str(prompts.get(c, c)): c for c in classes}
            classes = list(self.prompt_to_label)
        try:
            self.unknown_classes = self.detector.set_classes(classes)
        except DetectorError as exc:
            self.class_error = str(exc)
            if fatal:
                raise
            self.get_logger().error(f"cannot set classes {_short(classes)} ({source}): {exc}")
            return False
        self.classes_source, self.class_error = source, None
        if self.unknown_classes:
            self.get_logger().warning(f"the {self.detector.name} model cannot detect {self.unknown_classes}")
        return True

    def _publish_classes(self) -> None:
        self.pub_classes.publish(String(data=json.dumps({
            "classes": self.detector.classes if self.classes_source != "none" else None,
            "detector": self.detector.name, "source": self.classes_source,
            "unknown": self.unknown_classes, "error": self.class_error})))

    def _on_task(self, msg: String) -> None:
        task = mg.guard(self).json("task", msg, mg.TASK_FIELDS, mg.TASK_REQUIRED)
        if task is None:
            return
        self.task = task
        cameras = task.get("cameras")
        self._subscribe_views([c for c in cameras if isinstance(c, str)] if isinstance(cameras, list) else [])
        if self.classes_source in ("none", "task"):
            try:
                classes = classes_from_task(self.task)
            except ValueError as exc:
                self.get_logger().error(f"task message: {exc}")
                return
            prompts = self.task.get("detect_classes") if isinstance(self.task.get("detect_classes"), dict) else None
            ok = self._apply_classes(classes, "task", prompts=prompts)
            if not ok and self.classes_source == "none":
                self.fatal = f"cannot use the task's classes {classes}: {self.class_error}"
                self.get_logger().error(self.fatal)
            self._publish_classes()
            self._release_held()

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

    def _on_labels(self, msg: LabelInfo) -> None:
        if not mg.guard(self).ok("camera/segmentation/label_info", mg.check_label_info, msg):
            return
        self.labels = conv.from_ros_label_info(msg)
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
    def _on_tf(self, msg: TFMessage, static: bool) -> None:
        transforms = mg.guard(self).transforms("/tf_static" if static else "/tf", msg, static)
        try:
            self.tf.add_message(transforms, static=static)
        except ValueError as exc:
            self.get_logger().warning(f"bad transform ignored: {exc}", throttle_duration_sec=5.0)
        self._flush()

    def _on_odom(self, msg: Odometry) -> None:
        if not mg.guard(self).odometry("odom", msg):
            return
        try:
            add_odometry_to_tf(self.tf, msg)
        except ValueError as exc:
            self.get_logger().warning(f"odometry not usable as TF: {exc}", throttle_duration_sec=5.0)
        self._flush()

    def _on_camera(self, key: str, msg) -> None:
        g = mg.guard(self)
        if not g.ok(f"camera {key}", mg.check_camera_info if key == "info" else mg.check_image, msg, g.now_ns()):
            return
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
            topics = {"rgb": (f"camera_{name}/image_raw", Image), "depth": (f"camera_{name}/depth/image_raw", Image),
                      "info": (f"camera_{name}/camera_info", CameraInfo),
                      "seg": (f"camera_{name}/segmentation/image_raw", Image)}
            for key in sorted(self.view_syncs[name].keys):
                topic, cls = topics[key]
                self.create_subscription(cls, topic, lambda m, k=key, n=name: self._on_view(n, k, m), self.cam_qos)
        if cameras:
            self.get_logger().info(f"detecting on the views of cameras {', '.join(cameras)}")

    def _on_view(self, name: str, key: str, msg) -> None:
        g = mg.guard(self)
        if not g.accept(f"camera_{name} {key}", mg.check_camera_info if key == "info" else mg.check_image, msg,
                        g.now_ns()):
            return
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
            extra = {}
            if "seg" in group:
                extra = {"seg": conv.from_ros_image(group["seg"]), "labels": self.labels}
            dets = keep_seen(self.detector.detect(rgb, extra), self.min_pixels)
            if self.prompt_to_label:
                dets = [replace(d, label=self.prompt_to_label.get(d.label, d.label)) for d in dets]
            self.stats["detect_s"] += time.perf_counter() - t0
        except (DetectorError, ValueError) as exc:
            self.get_logger().error(f"detection failed: {exc}", throttle_duration_sec=5.0)
            dets = []
        self.stats["detections"] += len(dets)
        self.pub_2d.publish(Detection2DArray(header=header, detections=[to_detection2d(d, header) for d in dets]))
        payload = {"header": header, "dets": dets, "depth": group["depth"], "info": group["info"],
                   "frame": group["depth"].header.frame_id or header.frame_id}
        self.tf_queue.push(stamp_ns, payload, time.monotonic())
        self._flush()

    def _flush(self) -> None:
        for stamp_ns, job, T, note in self.tf_queue.pop_ready(
                lambda s, job: self.tf.lookup(self.map_frame, job["frame"], s), time.monotonic()):
            self._publish_3d(stamp_ns, job, T, note)

    def _publish_3d(self, stamp_ns: int, job: dict, T, note: str) -> None:
        header = Header(stamp=job["header"].stamp, frame_id=self.map_frame)
        out = Detection3DArray(header=header)
        if T is None:
            self.stats["no_tf"] += 1
            self.get_logger().warning(f"no transform {self.map_frame} <- {job['frame']} for the frame at "
                                      f"{stamp_ns * 1e-9:.3f} s ({note}); detections_3d empty",
                                      throttle_duration_sec=5.0)
        elif job["dets"]:
            if note == "latest":
                self.get_logger().warning("TF at the image stamp did not come; using the latest",
                                          throttle_duration_sec=5.0)
            t0 = time.perf_counter()
            try:
                depth = depth_image(job["depth"])
                K = conv.from_ros_camera_info(job["info"])
            except ValueError as exc:
                self.get_logger().error(f"cannot use the depth image: {exc}", throttle_duration_sec=5.0)
                depth = None
            if depth is not None:
                for det in job["dets"]:
                    proj = backproject_detection(det, depth, K, T)
                    if proj is not None:
                        out.detections.append(to_detection3d(det, proj, header))
            self.stats["project_s"] += time.perf_counter() - t0
        self.stats["detections_3d"] += len(out.detections)
        self.pub_3d.publish(out)


def _cannot_start(name: str, exc: Exception) -> str:
    """Bad parameters, missing weights, ...: one line, no traceback."""
    text = str(exc) if isinstance(exc, (DetectorError, ValueError)) else f"{type(exc).__name__}: {exc}"
    return f"[{name}] cannot start: {text}"


def main(args=None) -> int:
    return run_node(PerceptionNode, "perception_node", args, start_errors=(Exception,), start_error_code=1,
                    start_error_line=_cannot_start, stop_code=lambda node: 1 if node.fatal else None)


if __name__ == "__main__":
    sys.exit(main())
