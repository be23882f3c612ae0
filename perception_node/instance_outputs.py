"""What a decision node needs from perception, per camera frame (the perception node's
instance outputs; docs/ros_contract.md, "Perception outputs for decisions").

For every frame the perception node processes it publishes, with the frame's stamp:

* ``perception/instances/image_raw`` (sensor_msgs/Image ``32SC1``, the colour image's
  header): an instance-id image, 0 = nothing;
* ``perception/instances/label_info`` (vision_msgs/LabelInfo, same header): id -> label of
  every id this node has given so far (a growing map, so an agent's memory of an object seen
  frames ago keeps its label);
* ``perception/objects`` (vision_msgs/Detection3DArray, map frame, same stamp): every object
  seen so far (ids of the image), with its 3-D box.

Their content by backend (:class:`FrameInstances`):

* ``groundtruth``: the image is the simulator's segmentation after the minimum-size rule
  (:func:`hazard_sim.perception.embedded.clear_small`: exactly what the embedded runner's
  ``--perception groundtruth`` gives agents, with the cleared pixels marked by their negated id
  instead of 0: something too small to be recognised, which a walking map still counts as the
  thing it is), the labels the simulator's label map, and the objects the simulator's true
  boxes (``world/objects`` of the frame) of the ids seen so far;
* ``onnx`` / ``yolo`` / ``yolo_world``: the detector's instances (box-only ones get a mask
  from the box and depth), placed in the map by depth and TF and given stable ids by a
  :class:`hazard_sim.perception.tracking.Tracker` (same label, 3-D position within a gate);
  the objects are the tracks (last position and extent).

All three are published reliable and transient local (depth :data:`KEEP_FRAMES`), so that any
subscriber matches and a lock-step client that starts late still gets the current frame.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image
from std_msgs.msg import Header
from vision_msgs.msg import Detection3DArray, LabelInfo

from hazard_ros import conversions as conv
from hazard_sim.perception.embedded import clear_small
from hazard_sim.perception.instances import locate, mask_from_depth, rasterize
from hazard_sim.perception.tracking import Tracker

INSTANCES_TOPIC = "perception/instances/image_raw"
INSTANCE_LABELS_TOPIC = "perception/instances/label_info"
OBJECTS_TOPIC = "perception/objects"
#: frames kept for late joiners / slow readers (lock-step: a client waits for its frame)
KEEP_FRAMES = 5
OUTPUT_QOS = QoSProfile(depth=KEEP_FRAMES, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)
PUBLISHED_TOPICS = [(INSTANCES_TOPIC, "sensor_msgs/msg/Image"), (INSTANCE_LABELS_TOPIC, "vision_msgs/msg/LabelInfo"),
                    (OBJECTS_TOPIC, "vision_msgs/msg/Detection3DArray")]


def object_boxes(msg: Detection3DArray) -> dict[int, object]:
    """id -> Detection3D of a Detection3DArray whose ids are integers (world/objects)."""
    out = {}
    for d in msg.detections:
        try:
            out[int(d.id)] = d
        except ValueError:
            continue
    return out


class FrameInstances:
    """Per-frame instance image, label map and object list of one backend (ROS-free but for
    the boxes' message type). ``groundtruth``: :meth:`from_segmentation`; a detector:
    :meth:`from_detections`."""

    def __init__(self, min_pixels: int):
        self.min_pixels = int(min_pixels)
        self.tracker = Tracker()
        self.seen: set[int] = set()             # groundtruth: ids shown so far
        self.boxes: dict[int, object] = {}      # groundtruth: id -> last true box (Detection3D)

    def from_segmentation(self, seg: np.ndarray, labels: dict, truth: Detection3DArray | None):
        """(instance image, labels, object Detection3Ds) of the groundtruth backend."""
        img = clear_small(np.asarray(seg).astype(np.int32, copy=False), labels, self.min_pixels, negate=True)
        ids = np.unique(img)
        self.seen.update(int(i) for i in ids.tolist() if i > 0 and (int(i) in labels or str(int(i)) in labels))
        if truth is not None:
            self.boxes.update(object_boxes(truth))
        objects = [self.boxes[i] for i in sorted(self.seen) if i in self.boxes]
        return img, dict(labels), objects

    def from_detections(self, insts: list, depth: np.ndarray, K: np.ndarray, pose: np.ndarray | None,
                        frame: int, shape: tuple[int, int]):
        """(instance image, labels, object items) of a detector's instances (already through
        the minimum-size rule); ``pose`` (map-from-optical) None: no instance can be placed,
        the image is empty for this frame."""
        fx = float(np.asarray(K)[0, 0])
        for inst in insts:
            if inst.mask is None and depth is not None:
                m = mask_from_depth(inst, depth, fx)
                if m is not None:
                    inst.mask, inst.mask_from = m, "depth"
            if pose is not None and depth is not None:
                locate(inst, depth, K, pose)
        ids = self.tracker.assign(insts, frame) if pose is not None else [None] * len(insts)
        kept = [(i, t) for i, t in zip(insts, ids) if t is not None]
        img = rasterize([i for i, _ in kept], shape, [t for _, t in kept])
        objects = [SimpleNamespace(id=t.id, label=t.label, position=t.position,
                                   size=tuple(float(v) for v in t.extent), score=1.0)
                   for t in self.tracker.tracks.values()]
        return img, self.tracker.labels(), objects


class TruthBoxes:
    """The simulator's ``world/objects`` by stamp, for the groundtruth backend's true boxes.

    ``wait`` (lock-step): a frame's outputs wait for the world/objects of exactly its stamp
    (the simulator publishes it right after the frame's images), at most ``timeout`` s of
    wall time, then take the newest one (none ever: the frames after that one do not wait);
    frames leave in order. Free-run: the newest one not
    after the frame (world/objects comes only when something moved)."""

    def __init__(self, wait: bool, timeout: float, keep: int = 20):
        self.wait, self.timeout, self.keep = bool(wait), float(timeout), int(keep)
        self.by_stamp: dict[int, object] = {}
        self.latest = None
        self.waiting: list = []
        self.none_came = False          # a frame waited its time and no world/objects has ever come

    def add(self, msg) -> None:
        self.latest = msg
        self.by_stamp[conv.time_to_ns(msg.header.stamp)] = msg
        for old in sorted(self.by_stamp)[:-self.keep]:
            del self.by_stamp[old]

    def of(self, stamp_ns: int):
        """The boxes message of a frame, None when there is none, False while a lock-step
        frame's own message may still come."""
        if stamp_ns in self.by_stamp:
            return self.by_stamp[stamp_ns]
        if self.wait and (conv.time_to_ns(self.latest.header.stamp) < stamp_ns if self.latest is not None
                          else not self.none_came):
            return False
        older = [s for s in self.by_stamp if s <= stamp_ns]
        return self.by_stamp[max(older)] if older else None

    def defer(self, item, stamp_ns: int, now: float) -> None:
        self.waiting.append((now + self.timeout, stamp_ns, item))

    def ready(self, now: float) -> list:
        """(item, boxes message or None) of the deferred frames that can go, in order."""
        out = []
        while self.waiting:
            deadline, stamp_ns, item = self.waiting[0]
            truth = self.of(stamp_ns)
            if truth is False and now < deadline:
                break
            self.none_came = self.none_came or self.latest is None
            self.waiting.pop(0)
            out.append((item, self.latest if truth is False else truth))
        return out


class InstancePublishers:
    """The three publishers of the instance outputs."""

    def __init__(self, node, map_frame: str):
        self.map_frame = map_frame
        self.image = node.create_publisher(Image, INSTANCES_TOPIC, OUTPUT_QOS)
        self.labels = node.create_publisher(LabelInfo, INSTANCE_LABELS_TOPIC, OUTPUT_QOS)
        self.objects = node.create_publisher(Detection3DArray, OBJECTS_TOPIC, OUTPUT_QOS)
        self.frames = 0

    def publish(self, header: Header, img: np.ndarray, labels: dict, objects: list) -> None:
        """Objects first, then the labels, then the image: a client that waits for the image of
        a frame has the rest of it (messages of one node arrive in order per topic; the
        decision nodes also match them by stamp)."""
        map_header = Header(stamp=header.stamp, frame_id=self.map_frame)
        arr = Detection3DArray(header=map_header)
        for o in objects:
            if hasattr(o, "bbox"):               # a true box (Detection3D of world/objects)
                o.header = map_header
                arr.detections.append(o)
            else:
                arr.detections.extend(conv.to_ros_detection3d_array([o], header.stamp, self.map_frame).detections)
        self.objects.publish(arr)
        self.labels.publish(conv.to_ros_label_info({int(k): str(v) for k, v in labels.items()}, header.stamp,
                                                   header.frame_id))
        self.image.publish(conv.to_ros_image(np.asarray(img, np.int32), header.stamp, header.frame_id, "32SC1"))
        self.frames += 1


__all__ = ["FrameInstances", "InstancePublishers", "TruthBoxes", "INSTANCES_TOPIC", "INSTANCE_LABELS_TOPIC",
           "OBJECTS_TOPIC", "OUTPUT_QOS", "PUBLISHED_TOPICS", "object_boxes"]
