"""``mapping_node``: occupancy grid, field layers and object memory (thin ROS 2 node).

Subscribes: ``camera/depth/image_raw`` + ``camera/color/camera_info`` (grouped by exact
stamp), the field images of the benchmark's layers (32FC1, its RosPieces ``field_topics``),
``detections_3d``, ``task`` (map bounds, targets, benchmark), ``episode/status`` (held /
rescued ids), ``/tf``, ``/tf_static`` and ``odom`` (odom -> base_link, parameter
``use_odom_tf``; :class:`hazard_ros.pose_inputs.PoseInputs`).

Publishes (all transient local, reliable):
* ``map`` (nav_msgs/OccupancyGrid, frame map): after every depth image, stamped with that
  image's stamp (the lock-step chain waits for it);
* ``objects`` (visualization_msgs/MarkerArray: a box and a label per remembered object);
* ``objects/memory`` (std_msgs/String JSON: ``{"stamp", "frame_id", <the plug-in's task
  keys>, "reading_unit", "objects": [{"id", "label", "position", "size", "last_seen",
  "first_seen", "times_seen", "score", "reading", "reading_rate", "state", "is_target",
  "value", "is_container"}]}``; times in seconds, ``reading`` null when unknown);
* per field layer the benchmark declares, its OccupancyGrid (values packed into 0..100, -1
  unknown) and on the plug-in's info topic the JSON of every layer's unit, offset and
  scale (value = offset + scale * cell).

What is a benchmark's own comes from its mapping plug-in (:mod:`perception_node.map_plugins`):
the one of the ``task`` JSON's ``benchmark``, or the parameter ``map_plugin`` (a benchmark
name; ``none``: none). The map kind (:data:`MAP_KINDS`) is the parameter ``map_kind``, else
the plug-in's, else the body's: a body that flies (the ``task`` JSON's ``flies``) gets the
2.5-D height map of :mod:`perception_node.height_mapping` instead of the floor grid.

Sensor subscriptions are reliable + transient local with ``lockstep: true`` (a late start
still gets the sim's current frame), else best effort; or set ``sensor_qos``.

The map's extent and cells come from the benchmark: bounds from the parameter ``bounds``
(xmin, ymin, xmax, ymax) when set, else from the ``task`` JSON (``bounds``); depth frames
wait until one is known. Cell size from the parameter ``resolution`` when > 0, else the
task's ``map_resolution``, else 0.1 m. Large maps are tiled (``tile_size``; 0: tiled only
above 4 million cells) and published as a ``window_size`` m window around the camera
(0: the whole map, or 200 m for a tiled one). Objects take their field reading from the
task's ``channel`` layer (see :class:`perception_node.mapping.MappingCore`).

Algorithms live in :mod:`perception_node.mapping`.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np
from nav_msgs.msg import OccupancyGrid
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.clock import Clock, ClockType
from rclpy.parameter import Parameter
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import Header, String
from vision_msgs.msg import Detection3DArray
from visualization_msgs.msg import MarkerArray

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos
from hazard_ros.params import as_bool
from hazard_ros.pose_inputs import PoseInputs
from hazard_ros.ros_node_main import run_node
from hazard_ros.setup_node import SetupNode
from hazard_sim.navigation.maps import Window
from perception_node.height_mapping import HeightMapping
from perception_node.map_messages import STATE_COLORS, object_markers, to_occupancy_grid  # noqa: F401 (re-exported)
from perception_node.map_plugins import NO_PLUGIN, MapPlugin, builtin_plugins, load_map_plugin, plugin_name
from perception_node.mapping import MappingCore, ObjectObservation
from perception_node.perception_node import LATCHED, RELIABLE, declare_sensor_qos, depth_image
from perception_node.projection import StampSync, TfWaitQueue, transform_points

#: (relative topic, type) of what this node publishes for every benchmark; with the topics of the
#: shipped benchmarks' plug-ins: ``PUBLISHED_TOPICS`` (the RViz-config test uses it)
NODE_PUBLISHED_TOPICS = [
    ("map", "nav_msgs/msg/OccupancyGrid"),
    ("objects", "visualization_msgs/msg/MarkerArray"),
    ("objects/memory", "std_msgs/msg/String"),
    ("elevation_map", "sensor_msgs/msg/PointCloud2"),
]
NODE_SUBSCRIBED_TOPICS = [
    ("camera/depth/image_raw", "sensor_msgs/msg/Image"),
    ("camera/color/camera_info", "sensor_msgs/msg/CameraInfo"),
    ("detections_3d", "vision_msgs/msg/Detection3DArray"),
    ("task", "std_msgs/msg/String"),
    ("episode/status", "std_msgs/msg/String"),
    ("/tf", "tf2_msgs/msg/TFMessage"),
    ("/tf_static", "tf2_msgs/msg/TFMessage"),
    ("odom", "nav_msgs/msg/Odometry"),
]
#: the map kinds that replace the floor grid (``floor``: the main camera's occupancy grid)
MAP_KINDS = {"height": HeightMapping}

DEFAULT_RESOLUTION = 0.1          # m, when neither parameter nor task sets one
TILED_SPAN = 200.0              # m, the published window of a tiled map when window_size is 0


def plugin_topics(plugins: list[MapPlugin]) -> tuple[list, list]:
    """(published, subscribed) (topic, type) pairs of the plug-ins' field layers."""
    pub, sub = [], []
    for p in plugins:
        pub += [(f.map_topic, "nav_msgs/msg/OccupancyGrid") for f in p.field_layers]
        pub += [(p.layers_info_topic, "std_msgs/msg/String")] if p.field_layers else []
        sub += [(f.image_topic, "sensor_msgs/msg/Image") for f in p.field_layers]
    return list(dict.fromkeys(pub)), list(dict.fromkeys(sub))


def __getattr__(name: str):
    # PUBLISHED_TOPICS / SUBSCRIBED_TOPICS load the shipped benchmarks' plug-ins: on first use only
    if name in ("PUBLISHED_TOPICS", "SUBSCRIBED_TOPICS"):
        pub, sub = plugin_topics(builtin_plugins())
        return NODE_PUBLISHED_TOPICS + pub if name == "PUBLISHED_TOPICS" else NODE_SUBSCRIBED_TOPICS + sub
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class MappingNode(SetupNode):
    """See the module docstring."""

    def __init__(self, **kwargs):
        super().__init__("mapping_node", **kwargs)

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
        self.param_plugin = str(self._declare("map_plugin", "", "the benchmark whose mapping plug-in to use; "
                                                                "'': the task's benchmark; none: none")).strip()
        self.param_kind = str(self._declare("map_kind", "", "floor | " + " | ".join(MAP_KINDS) +
                                            "; '': the plug-in's, else height for a body that flies")).strip()
        if self.param_kind not in ("", "floor", *MAP_KINDS):
            raise ValueError(f"parameter map_kind must be one of floor, {', '.join(MAP_KINDS)}, "
                             f"got {self.param_kind!r}")
        _, self.cam_qos = declare_sensor_qos(self)
        self.map_frame = str(self._declare("map_frame", "map", "frame of the map"))
        tf_timeout = float(self._declare("tf_timeout", 1.0, "wall s to wait for TF at a depth stamp"))
        use_odom_tf = as_bool(self._declare("use_odom_tf", True, "also take odom -> base_link from odom"),
                              "use_odom_tf")
        self.kinds = {name: cls(self, tf_timeout) for name, cls in MAP_KINDS.items()}
        self.kind_piece = None                   # the active map kind other than the floor grid

        self.core: MappingCore | None = None
        self.task: dict | None = None
        self.status: dict | None = None
        self.plugin: MapPlugin = NO_PLUGIN
        self._early_fields: list = []
        self.sync = StampSync({"depth", "info"}, max_pending=10)
        self.tf_queue = TfWaitQueue(tf_timeout, max_len=10)
        self.stats = {"depth_frames": 0, "field_frames": 0, "detection_msgs": 0, "no_tf": 0, "map_s": 0.0}

        self.pub_map = self.create_publisher(OccupancyGrid, "map", LATCHED)
        self.pub_layers: dict = {}               # field layer name -> its OccupancyGrid publisher
        self.pub_layers_info = None
        self.pub_markers = self.create_publisher(MarkerArray, "objects", LATCHED)
        self.pub_memory = self.create_publisher(String, "objects/memory", LATCHED)

        self.create_subscription(Image, "camera/depth/image_raw", lambda m: self._on_camera("depth", m), self.cam_qos)
        self.create_subscription(CameraInfo, "camera/color/camera_info", lambda m: self._on_camera("info", m),
                                 self.cam_qos)
        self.create_subscription(Detection3DArray, "detections_3d", self._on_detections, RELIABLE)
        self.create_subscription(String, "task", self._on_task, qos.LATCHED_SUB)
        self.create_subscription(String, "episode/status", self._on_status, qos.LATCHED_SUB)
        self.poses = PoseInputs(self, on_change=self._flush, odom=use_odom_tf, odom_qos=self.cam_qos)
        self.create_timer(0.05, self._flush, clock=Clock(clock_type=ClockType.STEADY_TIME))
        self.window: Window | None = None
        if self.param_plugin:
            self._use_plugin(self.param_plugin, fatal=True)
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
                                layers={f.name: f.scale for f in self.plugin.field_layers}, **self.core_args)
        self.core.memory.set_plugin(self.plugin.container_prefixes, self.plugin.memory_task_keys)
        self.window = None
        if self.status is not None:
            self.core.memory.apply_status(self.status.get("held"), self.status.get("rescued_ids", []))
        self._publish_layers_info()
        h, w = self.core.spec.shape
        tiled = f", tiles of {self.core.spec.tile} cells" if self.core.spec.tiled else ""
        self.get_logger().info(f"map {w} x {h} cells of {resolution:g} m over {bounds} ({source}{tiled})")
        self._flush()
        early, self._early_fields = self._early_fields, []
        for name, msg in early:
            self._on_field(name, msg)

    def _use_plugin(self, name: str, fatal: bool = False) -> None:
        """The benchmark's mapping plug-in: its field layers (subscribed and advertised once
        each), its object memory settings. A plug-in that cannot be loaded stops the node when
        the parameter named it (``fatal``), else it is logged and the map goes on without."""
        try:
            plugin = NO_PLUGIN if name == "none" else load_map_plugin(name)
        except (ValueError, TypeError, ImportError) as exc:
            if fatal:
                raise ValueError(f"parameter map_plugin {name!r}: {exc}") from None
            self.get_logger().error(f"mapping plug-in {name!r} not usable: {exc}")
            return
        if plugin == self.plugin:
            return
        self.plugin = plugin
        for f in plugin.field_layers:
            if f.name not in self.pub_layers:
                self.pub_layers[f.name] = self.create_publisher(OccupancyGrid, f.map_topic, LATCHED)
                self.create_subscription(Image, f.image_topic, lambda m, n=f.name: self._on_field(n, m), self.cam_qos)
        if plugin.field_layers and self.pub_layers_info is None:
            self.pub_layers_info = self.create_publisher(String, plugin.layers_info_topic, LATCHED)
        if self.core is not None:
            added = [self.core.add_layer(f.name, f.scale) for f in plugin.field_layers]
            self.core.memory.set_plugin(plugin.container_prefixes, plugin.memory_task_keys)
            if any(added):
                self._publish_layers_info()
        if plugin.name:
            self.get_logger().info(f"mapping plug-in {plugin.name}: field layers "
                                   f"{', '.join(f.name for f in plugin.field_layers) or 'none'}")

    def _publish_layers_info(self) -> None:
        if self.pub_layers_info is None or self.core is None:
            return
        info = dict(self.core.layers_info(), frame_id=self.map_frame, bounds=list(self.core.spec.bounds),
                    resolution=self.core.spec.resolution)
        self.pub_layers_info.publish(String(data=json.dumps(info)))

    def _on_task(self, msg: String) -> None:
        task = mg.guard(self).json("task", msg, mg.TASK_FIELDS, mg.TASK_REQUIRED)
        if task is None:
            return
        self.task = task
        if not self.param_plugin:
            self._use_plugin(plugin_name(task.get("benchmark")))
        bounds = self.task.get("bounds")
        kind = self.param_kind or self.plugin.map_kind or ("height" if self.task.get("flies") else "floor")
        if kind not in ("floor", *MAP_KINDS):
            self.get_logger().error(f"unknown map kind {kind!r} (known: floor, {', '.join(MAP_KINDS)}); "
                                    f"mapping the floor")
            kind = "floor"
        self.kind_piece = self.kinds.get(kind)
        if self.kind_piece is not None and bounds is not None and len(bounds) == 4:
            self.kind_piece.start(bounds, self.task)
        if self.core is not None:
            self.core.set_task(self.task)
        if self.param_bounds:
            self._make_core(self.param_bounds, "parameter")     # the task may set the resolution
        elif bounds is not None:
            if len(bounds) != 4:
                self.get_logger().error(f"task bounds must be [xmin, ymin, xmax, ymax], got {bounds}")
            else:
                self._make_core(bounds, "task")

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
        if self.kind_piece is not None:
            self.kind_piece.flush()
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
        if self.kind_piece is not None and self.kind_piece.replaces_floor:
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
        size = self.window_size or (TILED_SPAN if self.core.spec.tiled else 0.0)
        if size > 0:
            self.window = self.core.spec.window_around(np.asarray(T)[:2, 3], size / 2)
        self.pub_map.publish(to_occupancy_grid(self.core.occupancy_map.occupancy(self.window), self._grid(),
                                               Header(stamp=stamp, frame_id=self.map_frame)))
        self.stats["map_s"] += time.perf_counter() - t0
        self.stats["depth_frames"] += 1
        for name in updated:
            self._publish_layer(name, stamp)

    # ------------------------------------------------------------------ field layers
    def _on_field(self, name: str, msg: Image) -> None:
        g = mg.guard(self)
        if not g.ok(f"field {name}", mg.check_image, msg, g.now_ns()):
            return
        if self.core is None:                   # no bounds yet: keep a few for when they come
            self._early_fields = (self._early_fields + [(name, msg)])[-6:]
            return
        try:
            img = conv.from_ros_image(msg)
            if img.ndim != 2:
                raise ValueError(f"expected a single-channel image, got {msg.encoding}")
            done = self.core.add_field(conv.time_to_ns(msg.header.stamp) * 1e-9, name,
                                       img.astype(np.float32, copy=False))
        except ValueError as exc:
            self.get_logger().error(f"cannot use the {name} image: {exc}", throttle_duration_sec=5.0)
            return
        if done:
            self._publish_layer(name, msg.header.stamp)

    def _publish_layer(self, name: str, stamp) -> None:
        self.stats["field_frames"] += 1
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
