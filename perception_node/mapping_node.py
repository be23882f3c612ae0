"""``mapping_node``: occupancy grid, hazard layers and object memory (thin ROS 2 node).

Subscribes: ``camera/depth/image_raw`` + ``camera/color/camera_info`` (grouped by exact
stamp), ``thermal/image_raw`` and ``water_level/image_raw`` (32FC1), ``detections_3d``,
``task`` (map bounds and targets), ``episode/status`` (held / rescued ids), ``/tf``,
``/tf_static`` and ``odom`` (odom -> base_link, parameter ``use_odom_tf``).

Publishes (all transient local, reliable):
* ``map`` (nav_msgs/OccupancyGrid, frame map): after every depth image, stamped with that
  image's stamp (the lock-step chain waits for it);
* ``hazard/temperature``, ``hazard/water_level`` (OccupancyGrid, values packed into
  0..100, -1 unknown) and ``hazard/layers_info`` (JSON: unit, offset, scale per layer:
  value = offset + scale * cell);
* ``objects`` (visualization_msgs/MarkerArray: a box and a label per remembered object);
* ``objects/memory`` (std_msgs/String JSON: ``{"stamp", "frame_id", "hazard",
  "reading_unit", "objects": [{"id", "label", "position", "size", "last_seen",
  "first_seen", "times_seen", "score", "reading", "reading_rate", "state", "is_target",
  "value", "is_container"}]}``; times in seconds, ``reading`` null when unknown).

Sensor subscriptions are reliable + transient local with ``lockstep: true`` (a late start
still gets the sim's current frame), else best effort; or set ``sensor_qos``.

The map's extent and cells come from the benchmark: bounds from the parameter ``bounds``
(xmin, ymin, xmax, ymax) when set, else from the ``task`` JSON (``bounds``); depth frames
wait until one is known. Cell size from the parameter ``resolution`` when > 0, else the
task's ``map_resolution``, else 0.1 m. Large maps are tiled (``tile_size``; 0: tiled only
above 4 million cells) and published as a ``window_size`` m window around the camera
(0: the whole map, or 200 m for a tiled one). Objects take their hazard reading from the
task's ``channel`` layer (see :class:`perception_node.mapping.MappingCore`).

A flying body (the ``task`` JSON's ``flies``, e.g. ESAR's UAV) gets a 2.5-D height map
instead of the floor grid (:class:`perception_node.mapping.HeightMapCore`): the depth images
of every named camera of the task's ``cameras`` (``camera_<name>/depth/image_raw`` +
``camera_<name>/camera_info``) raise the highest point seen per ``height_resolution`` m cell;
``map`` is then the obstacle-at-altitude layer (100: terrain or obstacles higher than the
body's altitude at that stamp minus ``height_clearance``, 0: seen and lower, -1: unseen) and
``elevation_map`` (sensor_msgs/PointCloud2, frame map, best effort) has one point per seen
cell at its height (cell centre), every ``elevation_every`` -th mapped stamp.

Algorithms live in :mod:`perception_node.mapping`.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np
from geometry_msgs.msg import Point
from nav_msgs.msg import OccupancyGrid
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import CameraInfo, Image, PointCloud2
from std_msgs.msg import ColorRGBA, Header, String
from vision_msgs.msg import Detection3DArray
from visualization_msgs.msg import Marker, MarkerArray

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros.params import as_bool
from hazard_ros.pose_inputs import PoseInputs
from hazard_ros.ros_node_main import run_node
from hazard_sim.navigation.maps import Window
from perception_node.mapping import HeightMapCore, MappingCore, ObjectObservation
from perception_node.perception_node import (
    LATCHED,
    RELIABLE,
    declare_sensor_qos,
    depth_image,
)
from perception_node.projection import StampSync, TfWaitQueue, transform_points

#: (relative topic, type) of everything this node publishes (RViz-config test uses it)
PUBLISHED_TOPICS = [
    ("map", "nav_msgs/msg/OccupancyGrid"),
    ("hazard/temperature", "nav_msgs/msg/OccupancyGrid"),
    ("hazard/water_level", "nav_msgs/msg/OccupancyGrid"),
    ("hazard/layers_info", "std_msgs/msg/String"),
    ("objects", "visualization_msgs/msg/MarkerArray"),
    ("objects/memory", "std_msgs/msg/String"),
    ("elevation_map", "sensor_msgs/msg/PointCloud2"),
]
SUBSCRIBED_TOPICS = [
    ("camera/depth/image_raw", "sensor_msgs/msg/Image"),
    ("camera/color/camera_info", "sensor_msgs/msg/CameraInfo"),
    ("thermal/image_raw", "sensor_msgs/msg/Image"),
    ("water_level/image_raw", "sensor_msgs/msg/Image"),
    ("detections_3d", "vision_msgs/msg/Detection3DArray"),
    ("task", "std_msgs/msg/String"),
    ("episode/status", "std_msgs/msg/String"),
    ("/tf", "tf2_msgs/msg/TFMessage"),
    ("/tf_static", "tf2_msgs/msg/TFMessage"),
    ("odom", "nav_msgs/msg/Odometry"),
]
HAZARD_TOPICS = {"temperature": "thermal/image_raw", "water_level": "water_level/image_raw"}

DEFAULT_RESOLUTION = 0.1          # m, HAZARD's map cells, when neither parameter nor task sets one
TILED_WINDOW = 200.0              # m, the published window of a tiled map when window_size is 0

STATE_COLORS = {"held": (0.1, 0.8, 0.2), "rescued": (0.5, 0.5, 0.5), "lost": (0.4, 0.2, 0.2)}


def to_occupancy_grid(cells: np.ndarray, spec, header: Header) -> OccupancyGrid:
    """OccupancyGrid of an int8 (rows = y, cols = x) grid over ``spec`` (GridSpec)."""
    msg = OccupancyGrid(header=header)
    msg.info.map_load_time = header.stamp
    msg.info.resolution = float(spec.resolution)
    msg.info.height, msg.info.width = (int(n) for n in cells.shape)
    msg.info.origin.position.x, msg.info.origin.position.y = float(spec.bounds[0]), float(spec.bounds[1])
    msg.info.origin.orientation.w = 1.0
    from array import array
    data = array("b")
    data.frombytes(np.ascontiguousarray(cells, np.int8).tobytes())
    msg.data = data
    return msg


def object_markers(objects: list[dict], header: Header) -> MarkerArray:
    """A cube and a text label per object of an ``objects/memory`` dict list."""
    out = MarkerArray(markers=[Marker(header=header, action=Marker.DELETEALL)])
    for o in objects:
        if o["is_container"]:
            rgb = (0.2, 0.4, 1.0)
        elif o["state"] in STATE_COLORS:
            rgb = STATE_COLORS[o["state"]]
        elif o["is_target"]:
            rgb = (1.0, 0.5, 0.0)
        else:
            rgb = (0.9, 0.9, 0.9)
        cube = Marker(header=header, ns="objects", id=int(o["id"]) % (1 << 31), type=Marker.CUBE,
                      action=Marker.ADD, color=ColorRGBA(r=rgb[0], g=rgb[1], b=rgb[2], a=0.6))
        cube.pose.position = Point(x=o["position"][0], y=o["position"][1], z=o["position"][2])
        cube.pose.orientation.w = 1.0
        cube.scale.x, cube.scale.y, cube.scale.z = (max(float(s), 0.05) for s in o["size"])
        text = Marker(header=header, ns="object_labels", id=cube.id, type=Marker.TEXT_VIEW_FACING,
                      action=Marker.ADD, color=ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0))
        text.pose.position = Point(x=o["position"][0], y=o["position"][1],
                                   z=o["position"][2] + max(float(o["size"][2]), 0.05) / 2 + 0.15)
        text.pose.orientation.w = 1.0
        text.scale.z = 0.15
        reading = "" if o["reading"] is None else f" {o['reading']:.3g}"
        text.text = f"{o['label']} #{o['id']}{reading} [{o['state']}]"
        out.markers += [cube, text]
    return out


class MappingNode(Node):
    """See the module docstring."""

    def __init__(self, **kwargs):
        super().__init__("mapping_node", **kwargs)
        try:
            self._setup()
        except Exception:
            self.destroy_node()
            raise

    def _declare(self, name, default, doc):
        return self.declare_parameter(name, default, ParameterDescriptor(description=doc)).value

    def _setup(self) -> None:
        self.declare_parameter("bounds", Parameter.Type.DOUBLE_ARRAY, ParameterDescriptor(
            description="map bounds [xmin, ymin, xmax, ymax] (floats) when the task has none"))
        self.param_bounds = self.get_parameter_or("bounds", Parameter("bounds", value=None)).value
        if self.param_bounds is not None and len(self.param_bounds) not in (0, 4):
            raise ValueError(f"parameter bounds must be [xmin, ymin, xmax, ymax], got {list(self.param_bounds)}")
        self.param_resolution = float(self._declare(
            "resolution", 0.0, "cell size (m); 0: the task's map_resolution, else 0.1"))
        self.tile_size = int(self._declare("tile_size", 0, "cells per map tile side; 0: tiled only above "
                                                           "4 million cells"))
        self.window_size = float(self._declare("window_size", 0.0, "published map window around the camera "
                                                                   "(m); 0: the whole map (tiled: 200 m)"))
        if self.param_resolution < 0 or self.tile_size < 0 or self.window_size < 0:
            raise ValueError("parameters resolution, tile_size and window_size must be >= 0")
        self.core_args = dict(
            agent_radius=float(self._declare("agent_radius", 0.25, "robot radius (m), for inflation")),
            obstacle_band=tuple(self._declare("obstacle_band", [0.1, 1.9], "obstacle heights [min, max] (m)")),
            step=int(self._declare("step", 4, "use every step-th depth pixel")),
            max_range=float(self._declare("max_range", 10.0, "ignore depth beyond this (m)")),
            ignore_objects=as_bool(self._declare("ignore_objects", True, "keep remembered objects off the map"),
                                   "ignore_objects"),
            match_radius=float(self._declare("match_radius", 0.75, "association radius (m) without ids")),
        )
        self.height_args = dict(
            resolution=float(self._declare("height_resolution", 10.0, "flying body: 2.5-D map cell size (m)")),
            step=int(self._declare("height_step", 4, "flying body: use every step-th depth pixel")),
            max_range=float(self._declare("height_max_range", 1500.0, "flying body: ignore depth beyond (m)")),
            clearance=float(self._declare("height_clearance", 10.0, "flying body: a cell blocks when its height "
                                                                     "is above altitude - clearance (m)")))
        self.elevation_every = int(self._declare("elevation_every", 5, "flying body: publish elevation_map "
                                                                        "every n-th mapped stamp"))
        if self.height_args["resolution"] <= 0 or self.height_args["step"] < 1 or self.elevation_every < 1:
            raise ValueError("parameters height_resolution must be > 0, height_step and elevation_every >= 1")
        _, cam_qos = declare_sensor_qos(self)
        self.cam_qos = cam_qos
        self.map_frame = str(self._declare("map_frame", "map", "frame of the map"))
        tf_timeout = float(self._declare("tf_timeout", 1.0, "wall s to wait for TF at a depth stamp"))
        use_odom_tf = as_bool(self._declare("use_odom_tf", True, "also take odom -> base_link from odom"),
                              "use_odom_tf")

        self.core: MappingCore | None = None
        self.task: dict | None = None
        self.status: dict | None = None
        self._early_hazards: list = []
        self.sync = StampSync({"depth", "info"}, max_pending=10)
        self.tf_queue = TfWaitQueue(tf_timeout, max_len=10)
        self.stats = {"depth_frames": 0, "hazard_frames": 0, "detection_msgs": 0, "no_tf": 0, "map_s": 0.0}

        self.pub_map = self.create_publisher(OccupancyGrid, "map", LATCHED)
        self.pub_layers = {name: self.create_publisher(OccupancyGrid, f"hazard/{name}", LATCHED)
                           for name in HAZARD_TOPICS}
        self.pub_layers_info = self.create_publisher(String, "hazard/layers_info", LATCHED)
        self.pub_markers = self.create_publisher(MarkerArray, "objects", LATCHED)
        self.pub_memory = self.create_publisher(String, "objects/memory", LATCHED)
        self.pub_elevation = self.create_publisher(PointCloud2, "elevation_map", 10)
        # flying body: the 2.5-D map (set up when the task says the body flies)
        self.height: HeightMapCore | None = None
        self.height_syncs: dict[str, StampSync] = {}
        self.height_queue = TfWaitQueue(tf_timeout, max_len=40)
        self._height_stamp, self._height_count, self._height_published = None, 0, 0

        self.create_subscription(Image, "camera/depth/image_raw", lambda m: self._on_camera("depth", m), cam_qos)
        self.create_subscription(CameraInfo, "camera/color/camera_info", lambda m: self._on_camera("info", m),
                                 cam_qos)
        for name, topic in HAZARD_TOPICS.items():
            self.create_subscription(Image, topic, lambda m, n=name: self._on_hazard(n, m), cam_qos)
        self.create_subscription(Detection3DArray, "detections_3d", self._on_detections, RELIABLE)
        self.create_subscription(String, "task", self._on_task, LATCHED)
        self.create_subscription(String, "episode/status", self._on_status, LATCHED)
        self.poses = PoseInputs(self, on_change=self._flush, odom=use_odom_tf, odom_qos=cam_qos)
        self.create_timer(0.05, self._flush, clock=Clock(clock_type=ClockType.STEADY_TIME))
        self.window: Window | None = None
        if self.param_bounds:
            self._make_core(self.param_bounds, "parameter")

    # ------------------------------------------------------------------ state
    def _resolution(self) -> float:
        if self.param_resolution > 0:
            return self.param_resolution
        return float((self.task or {}).get("map_resolution") or DEFAULT_RESOLUTION)

    def _make_core(self, bounds, source: str) -> None:
        bounds, resolution = [float(b) for b in bounds], self._resolution()
        if self.core is not None and list(self.core.spec.bounds) == bounds \
                and self.core.spec.resolution == resolution:
            return
        if self.core is not None:
            self.get_logger().info(f"map changed to {bounds} at {resolution:g} m ({source}); starting a new map")
        self.core = MappingCore(bounds, resolution=resolution, tile=self.tile_size or None, task=self.task,
                                **self.core_args)
        self.window = None
        if self.status is not None:
            self.core.memory.apply_status(self.status.get("held"), self.status.get("rescued_ids", []))
        info = dict(self.core.layers_info(), frame_id=self.map_frame, bounds=bounds,
                    resolution=self.core.spec.resolution)
        self.pub_layers_info.publish(String(data=json.dumps(info)))
        h, w = self.core.spec.shape
        tiled = f", tiles of {self.core.spec.tile} cells" if self.core.spec.tiled else ""
        self.get_logger().info(f"map {w} x {h} cells of {resolution:g} m over {bounds} ({source}{tiled})")
        self._flush()
        early, self._early_hazards = self._early_hazards, []
        for name, msg in early:
            self._on_hazard(name, msg)

    def _on_task(self, msg: String) -> None:
        task = mg.guard(self).json("task", msg, mg.TASK_FIELDS, mg.TASK_REQUIRED)
        if task is None:
            return
        self.task = task
        bounds = self.task.get("bounds")
        if self.task.get("flies") and bounds is not None and len(bounds) == 4:
            self._make_height_map(bounds, list(self.task.get("cameras") or []))
        if self.core is not None:
            self.core.set_task(self.task)
        if self.param_bounds:
            self._make_core(self.param_bounds, "parameter")     # the task may set the resolution
        elif bounds is not None:
            if len(bounds) != 4:
                self.get_logger().error(f"task bounds must be [xmin, ymin, xmax, ymax], got {bounds}")
            else:
                self._make_core(bounds, "task")

    # ------------------------------------------------------------------ flying body: 2.5-D map
    def _make_height_map(self, bounds, cameras: list[str]) -> None:
        bounds = [float(b) for b in bounds]
        if self.height is not None and list(self.height.spec.bounds) == bounds:
            return
        self.height = HeightMapCore(bounds, **self.height_args)
        for name in cameras:
            if name in self.height_syncs:
                continue
            self.height_syncs[name] = StampSync({"depth", "info"}, max_pending=10)
            self.create_subscription(Image, f"camera_{name}/depth/image_raw",
                                     lambda m, n=name: self._on_height_camera(n, "depth", m), self.cam_qos)
            self.create_subscription(CameraInfo, f"camera_{name}/camera_info",
                                     lambda m, n=name: self._on_height_camera(n, "info", m), self.cam_qos)
        h, w = self.height.spec.shape
        self.get_logger().info(f"flying body: 2.5-D height map {w} x {h} cells of "
                               f"{self.height.spec.resolution:g} m from cameras {', '.join(cameras) or 'none'}")

    def _on_height_camera(self, name: str, key: str, msg) -> None:
        group = self.height_syncs[name].add(key, conv.time_to_ns(msg.header.stamp), msg)
        if group is not None:
            self.height_queue.push(conv.time_to_ns(msg.header.stamp), group, time.monotonic())
            self._flush()

    def _flush_height(self) -> None:
        if self.height is None:
            return
        ready = self.height_queue.pop_ready(
            lambda s, g: (self.poses.lookup(self.map_frame, g["depth"].header.frame_id, s),
                          self.poses.pose(self.map_frame, s)), time.monotonic())
        for stamp_ns, group, T, note in ready:
            if T is None:
                self.stats["no_tf"] += 1
                self.get_logger().warning(f"{group['depth'].header.frame_id} depth at {stamp_ns * 1e-9:.3f} s not "
                                          f"mapped: no transform ({note})", throttle_duration_sec=5.0)
                continue
            T_cam, T_body = T
            try:
                self.height.add_depth(depth_image(group["depth"]), conv.from_ros_camera_info(group["info"]), T_cam)
            except ValueError as exc:
                self.get_logger().error(f"cannot use the depth frame: {exc}", throttle_duration_sec=5.0)
                continue
            self.stats["depth_frames"] += 1
            if stamp_ns != self._height_stamp:
                self._height_stamp, self._height_count = stamp_ns, 0
            self._height_count += 1
            if self._height_count >= len(self.height_syncs):      # every camera of this stamp is in
                self._publish_height(group["depth"].header.stamp, float(T_body[2, 3]))

    def _publish_height(self, stamp, altitude: float) -> None:
        header = Header(stamp=stamp, frame_id=self.map_frame)
        self.pub_map.publish(to_occupancy_grid(self.height.obstacles(altitude), self.height.spec, header))
        if self._height_published % self.elevation_every == 0:
            self.pub_elevation.publish(conv.to_ros_pointcloud2(self.height.height_points(), stamp, self.map_frame))
        self._height_published += 1

    def _on_status(self, msg: String) -> None:
        status = mg.guard(self).json("episode/status", msg, mg.STATUS_FIELDS)
        if status is None:
            return
        self.status = status
        if self.core is not None and self.core.memory.apply_status(
                self.status.get("held"), self.status.get("rescued_ids", [])):
            self._publish_objects(None)

    # ------------------------------------------------------------------ depth -> map
    def _on_camera(self, key: str, msg) -> None:
        g = mg.guard(self)
        if not g.ok(f"camera {key}", mg.check_image if key == "depth" else mg.check_camera_info, msg, g.now_ns()):
            return
        group = self.sync.add(key, conv.time_to_ns(msg.header.stamp), msg)
        if group is not None:
            self.tf_queue.push(conv.time_to_ns(msg.header.stamp), group, time.monotonic())
            self._flush()

    def _flush(self) -> None:
        self._flush_height()
        ready = self.tf_queue.pop_ready(
            lambda s, g: self.poses.lookup(self.map_frame, g["depth"].header.frame_id, s),
            time.monotonic(), hold=lambda g: self.core is None)
        for stamp_ns, group, T, note in ready:
            if T is None:
                self.stats["no_tf"] += 1
                self.get_logger().warning(f"depth frame at {stamp_ns * 1e-9:.3f} s not mapped: no transform "
                                          f"{self.map_frame} <- {group['depth'].header.frame_id} ({note})",
                                          throttle_duration_sec=5.0)
                continue
            if note == "latest":
                self.get_logger().warning("TF at the depth stamp did not come; using the latest",
                                          throttle_duration_sec=5.0)
            self._integrate_depth(stamp_ns, group, T)

    def _integrate_depth(self, stamp_ns: int, group: dict, T: np.ndarray) -> None:
        if self.height is not None:            # a flying body: the 2.5-D map replaces the floor grid
            return
        try:
            depth = depth_image(group["depth"])
            K = conv.from_ros_camera_info(group["info"])
        except ValueError as exc:
            self.get_logger().error(f"cannot use the depth frame: {exc}", throttle_duration_sec=5.0)
            return
        t0 = time.perf_counter()
        updated = self.core.add_depth(stamp_ns * 1e-9, depth, K, T)
        stamp = group["depth"].header.stamp
        size = self.window_size or (TILED_WINDOW if self.core.spec.tiled else 0.0)
        if size > 0:
            self.window = self.core.spec.window_around(np.asarray(T)[:2, 3], size / 2)
        self.pub_map.publish(to_occupancy_grid(self.core.occupancy_map.occupancy(self.window), self._grid(),
                                               Header(stamp=stamp, frame_id=self.map_frame)))
        self.stats["map_s"] += time.perf_counter() - t0
        self.stats["depth_frames"] += 1
        for name in updated:
            self._publish_layer(name, stamp)

    # ------------------------------------------------------------------ hazards
    def _on_hazard(self, name: str, msg: Image) -> None:
        g = mg.guard(self)
        if not g.ok(f"hazard {name}", mg.check_image, msg, g.now_ns()):
            return
        if self.core is None:                   # no bounds yet: keep a few for when they come
            self._early_hazards = (self._early_hazards + [(name, msg)])[-6:]
            return
        try:
            img = conv.from_ros_image(msg)
            if img.ndim != 2:
                raise ValueError(f"expected a single-channel image, got {msg.encoding}")
            done = self.core.add_hazard(conv.time_to_ns(msg.header.stamp) * 1e-9, name,
                                        img.astype(np.float32, copy=False))
        except ValueError as exc:
            self.get_logger().error(f"cannot use the {name} image: {exc}", throttle_duration_sec=5.0)
            return
        if done:
            self._publish_layer(name, msg.header.stamp)

    def _publish_layer(self, name: str, stamp) -> None:
        self.stats["hazard_frames"] += 1
        layer = self.core.layers[name]
        self.pub_layers[name].publish(to_occupancy_grid(layer.occupancy(self.window), self._grid(),
                                                        Header(stamp=stamp, frame_id=self.map_frame)))

    def _grid(self):
        """The published grid: the whole map, or the window around the last depth frame."""
        return self.core.spec if self.window is None else self.window.grid

    # ------------------------------------------------------------------ objects
    def _on_detections(self, msg: Detection3DArray) -> None:
        detections = mg.guard(self).detections("detections_3d", msg)
        if detections is None or self.core is None:
            return
        stamp_ns = conv.time_to_ns(msg.header.stamp)
        frame = msg.header.frame_id or self.map_frame
        T = None
        if frame.lstrip("/") != self.map_frame:
            try:
                T = self.poses.lookup(self.map_frame, frame, stamp_ns)
            except LookupError as exc:
                self.get_logger().warning(f"detections_3d in {frame!r} dropped: {exc}", throttle_duration_sec=5.0)
                return
        obs = []
        for d in detections:
            hyp = d.results[0].hypothesis
            c, s = d.bbox.center.position, d.bbox.size
            pos = np.array([c.x, c.y, c.z])
            if T is not None:
                pos = transform_points(T, pos)
            iid = int(d.id) if d.id.strip().lstrip("-").isdigit() else None
            obs.append(ObjectObservation(hyp.class_id, pos, np.array([s.x, s.y, s.z]), float(hyp.score), iid))
        self.stats["detection_msgs"] += 1
        self.core.add_objects(stamp_ns * 1e-9, obs)
        self._last_objects_stamp = msg.header.stamp
        self._publish_objects(msg.header.stamp)

    def _publish_objects(self, stamp) -> None:
        if stamp is None:              # a status change: keep the stamp of the last detections
            stamp = getattr(self, "_last_objects_stamp", None) or self.get_clock().now().to_msg()
        mem = self.core.memory_dict(conv.time_to_sec(stamp), self.map_frame)
        self.pub_memory.publish(String(data=json.dumps(mem, allow_nan=False)))
        self.pub_markers.publish(object_markers(mem["objects"], Header(stamp=stamp, frame_id=self.map_frame)))


def _cannot_start(name: str, exc: Exception) -> str:
    text = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
    return f"[{name}] cannot start: {text}"


def main(args=None) -> int:
    return run_node(MappingNode, "mapping_node", args, start_errors=(Exception,), start_error_code=1,
                    start_error_line=_cannot_start)


if __name__ == "__main__":
    sys.exit(main())
