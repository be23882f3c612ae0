"""sim_node's topic catalogue: every topic it can publish or take, with its ROS type.

Generic topics are listed here; a body's named cameras (mounts ``camera_<name>_optical_frame``)
get :func:`camera_topics`; a benchmark's own topics (its field images, its plug-in's topics) come
from its spec's :class:`~hazard_sim.core.ros_pieces.RosPieces`. :data:`PUBLISHED_TOPICS` answers
for all of them: the generic ones are its items, a named camera's topics and the topics of the
registered benchmarks are looked up on demand (no benchmark is imported for it).
"""
from __future__ import annotations

import re

from hazard_sim.core.ros_pieces import ros_pieces
from hazard_sim.core.spec import BENCHMARKS

CAMERA_MOUNT = re.compile(r"camera_(.+)_optical_frame")
_CAMERA_TOPIC = re.compile(r"camera_(.+?)/(?:image_raw|camera_info|depth/image_raw|depth/camera_info|"
                           r"segmentation/image_raw)")


def camera_topics(name: str) -> dict[str, str]:
    """The topics of named camera ``name`` (mount ``camera_<name>_optical_frame``): colour,
    registered depth (same intrinsics, frame and stamp) and instance segmentation."""
    return {f"camera_{name}/image_raw": "sensor_msgs/msg/Image",
            f"camera_{name}/camera_info": "sensor_msgs/msg/CameraInfo",
            f"camera_{name}/depth/image_raw": "sensor_msgs/msg/Image",
            f"camera_{name}/depth/camera_info": "sensor_msgs/msg/CameraInfo",
            f"camera_{name}/segmentation/image_raw": "sensor_msgs/msg/Image"}


def camera_names(body_spec) -> list[str]:
    """Names of the body's named cameras (mounts ``camera_<name>_optical_frame``), in mount order."""
    return [m.group(1) for m in (CAMERA_MOUNT.fullmatch(x.name) for x in body_spec.mounts()) if m]


class TopicCatalogue(dict):
    """Topic -> ROS type. Built with the generic topics; ``catalogue[topic]`` also finds a named
    camera's topic and a registered benchmark's own topic without importing any benchmark (any
    other topic: after loading them all).
    Iterating it (``items()``, ``keys()``, ``in``, ``len``) lists every topic of every benchmark:
    that loads the shipped benchmarks (``benchmark_ids()``) and follows the registry as it changes."""

    def __init__(self, generic: dict[str, str]):
        super().__init__(generic)
        self.generic = dict(generic)
        self._listed: tuple | None = None          # the registry's ids the full list was built for

    def __missing__(self, topic: str) -> str:
        m = _CAMERA_TOPIC.fullmatch(topic)
        if m:
            return camera_topics(m.group(1))[topic]
        for _, spec in BENCHMARKS.items():
            published = ros_pieces(spec).published()
            if topic in published:
                return published[topic]
        self._complete()                 # a benchmark not loaded yet: list them all
        if dict.__contains__(self, topic):
            return dict.__getitem__(self, topic)
        raise KeyError(topic)

    def _complete(self) -> None:
        from hazard_sim.core.spec import benchmark_ids
        ids = tuple(benchmark_ids())
        if ids == self._listed:
            return
        full = dict(self.generic)
        for _, spec in BENCHMARKS.items():
            body = spec.body_spec
            if body is not None and hasattr(body, "mounts"):
                for name in camera_names(body):
                    full.update(camera_topics(name))
            full.update(ros_pieces(spec).published())
        dict.clear(self)
        dict.update(self, full)
        self._listed = ids

    def __iter__(self):
        self._complete()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._complete()
        return dict.__len__(self)

    def __contains__(self, topic) -> bool:
        self._complete()
        return dict.__contains__(self, topic)

    def keys(self):
        self._complete()
        return dict.keys(self)

    def items(self):
        self._complete()
        return dict.items(self)

    def values(self):
        self._complete()
        return dict.values(self)


#: every generic topic this node can publish (relative names) -> ROS type; tests and the RViz
#: config check use it
PUBLISHED_TOPICS = TopicCatalogue({
    "/clock": "rosgraph_msgs/msg/Clock",
    "/tf": "tf2_msgs/msg/TFMessage",
    "/tf_static": "tf2_msgs/msg/TFMessage",
    "odom": "nav_msgs/msg/Odometry",
    "camera/color/image_raw": "sensor_msgs/msg/Image",
    "camera/color/camera_info": "sensor_msgs/msg/CameraInfo",
    "camera/depth/image_raw": "sensor_msgs/msg/Image",
    "camera/depth/camera_info": "sensor_msgs/msg/CameraInfo",
    "camera/segmentation/image_raw": "sensor_msgs/msg/Image",
    "camera/segmentation/label_info": "vision_msgs/msg/LabelInfo",
    "gps/fix": "sensor_msgs/msg/NavSatFix",
    "imu/data": "sensor_msgs/msg/Imu",
    "lidar/points": "sensor_msgs/msg/PointCloud2",
    "task": "std_msgs/msg/String",
    "episode/metrics": "std_msgs/msg/String",
    "episode/status": "std_msgs/msg/String",
    # a flying body over a terrain: height above the ground (downward rangefinder in
    # altimeter_link, x down) and the barometer (ISA pressure of the altitude above sea level)
    "altimeter/range": "sensor_msgs/msg/Range",
    "altimeter/pressure": "sensor_msgs/msg/FluidPressure",
    # the world: entities and process things as markers and ground-truth detections
    # (class_id = label), static ones (a terrain) latched on their own topic
    "world/markers": "visualization_msgs/msg/MarkerArray",
    "world/objects": "vision_msgs/msg/Detection3DArray",
    "world/static_markers": "visualization_msgs/msg/MarkerArray",
    "trajectory": "nav_msgs/msg/Path",
    # a ground body's touch sensor: the centres of every cell it has bumped into so far (the
    # bump point's cell and the solid cells it touched, what the embedded body's walking map
    # marks), published with the odometry
    "bumper/cells": "nav_msgs/msg/GridCells",
})

#: what every sim node takes (a benchmark's plug-in may take more: its RosPieces.subscriptions)
SUBSCRIBED_TOPICS = {"cmd_vel": "geometry_msgs/msg/Twist"}
#: what every sim node serves (a benchmark's task offers more: its RosPieces.services, all Trigger)
SERVICES = {"sim/step": "std_srvs/srv/Trigger"}

#: the simulator's answers rather than a real robot's sensors (docs/ros_contract.md): left out
#: with ``ground_truth_topics:=false``; a named camera's ``camera_<name>/segmentation/image_raw`` too
GROUND_TRUTH_TOPICS = ("camera/segmentation/image_raw", "camera/segmentation/label_info", "world/objects",
                       "world/markers", "world/static_markers")


def is_ground_truth(topic: str) -> bool:
    """Whether ``topic`` carries the simulator's ground truth (segmentation, label map, the world's
    true objects and markers) rather than a sensor a real robot has."""
    return topic in GROUND_TRUTH_TOPICS or bool(re.fullmatch(r"camera_.+/segmentation/image_raw", topic))


def topic_type(topic: str, pieces) -> str | None:
    """The ROS type of ``topic`` for a node of the benchmark whose RosPieces are ``pieces``: a
    generic topic, a named camera's, or one the pieces declare (None: none of them)."""
    m = _CAMERA_TOPIC.fullmatch(topic)
    return (PUBLISHED_TOPICS.generic.get(topic) or (camera_topics(m.group(1))[topic] if m else None)
            or pieces.published().get(topic))


def message_class(type_name: str):
    """The message class of a ROS type name (``"sensor_msgs/msg/Image"``)."""
    import importlib
    package, kind, name = type_name.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), name)
