"""``sim_node``: a thin ROS 2 node around :class:`hazard_sim.core.env.EmbodiedEnv`.

Publishes the sensors of the benchmark's body (RGB-D + segmentation camera, thermal or
water-level image, LiDAR, IMU, GPS, odometry, TF, /clock; a body with named cameras
``camera_<name>_optical_frame`` gets one topic set per camera; a flying body over a
terrain an altimeter), the world as markers / ground-truth detections, the body's
trajectory, and the episode's task / status / metrics; takes ``cmd_vel``, the
``pick_up`` / ``drop`` Trigger services and, where the task takes reports (ESAR),
``report`` detections; see docs/ros_contract.md.

Bodies: everything is published at the body's real height (``env.agent.z``: 0 for the
ground bodies, whose messages are as before). ``cmd_vel`` maps to the core's
``Twist``: linear.x, angular.z for every body; linear.y and linear.z too for a body that
flies (its ``Limits.vertical`` > 0; a ground body is driven as a differential base);
the body clips the command to its ``Limits`` (horizontal speed norm, climb rate, yaw
rate) and, for the multirotor, to its acceleration limits. All simulation lives in the core
(``hazard_sim.core.env``, ``hazard_sim.teleop``); all message building in
``hazard_ros.conversions``.

Time: one simulator frame is 0.1 s of sim time; every message of a frame is
stamped with that frame's sim time. Sensor rates are in sim-time Hz, at most
the frame rate (10 Hz): a sensor is published every ``round(10 / rate)``
frames (rate 0 turns it off).

Modes:
* free-run (``lockstep: false``): a wall-clock timer advances one frame every
  ``0.1 / realtime_factor`` s; topics nobody subscribes to are not built.
* lock-step (``lockstep: true``): frames only advance through ``sim/step``
  (one frame; the sensors due at that frame, at their rates in sim time as in
  free-run, published before the response), ``pick_up`` and ``drop`` (every
  sensor at the action's last frame). Sensor topics are then reliable and
  transient-local (depth 2), so a node that starts late still gets the current
  frame; while nobody steps (``idle_republish`` wall seconds), ``/clock``,
  ``odom``, the odom TF and both camera infos of the current frame are
  published again every ``idle_republish`` s for volatile subscribers.

Cameras: ``camera/color/camera_info`` and ``camera/depth/camera_info`` (the depth
image is registered to the colour camera: same intrinsics and frame) beside the
images. Free-run image / camera-info QoS: ``camera_qos`` ``reliable`` (default, as
common ROS 2 camera drivers publish: reliable and best-effort subscribers both
receive it) or ``best_effort``.

Run: ``sim_node --ros-args -p benchmark:=hazard/flood -p episode:=3 -p lockstep:=true``
(``-p task:=flood`` is the older spelling of the same).
"""
from __future__ import annotations

import json
import math
import re
import sys
import time
from pathlib import Path

import numpy as np
from geometry_msgs.msg import Point, Twist
from nav_msgs.msg import GridCells, Odometry
from nav_msgs.msg import Path as PathMsg
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import CameraInfo, FluidPressure, Image, Imu, NavSatFix, PointCloud2, Range
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import Detection3DArray, LabelInfo
from visualization_msgs.msg import MarkerArray

from hazard_ros import conversions as conv
from hazard_ros import msg_guards as mg
from hazard_ros import ros_qos as qos_profiles
from hazard_ros.params import as_bool
from hazard_ros.ros_node_main import run_node
from hazard_sim import teleop
from hazard_sim.core.embodiment import Twist as BodyTwist
from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.core.markers import WorldMarker
from hazard_sim.core.spec import DatasetError, benchmark_ids, get_spec, resolve
from hazard_sim.render.camera import CameraSpec

FRAME_RATE = 1.0 / FRAME_DT

#: every topic this node can publish (relative names) -> ROS type; tests and the
#: RViz config check use it. Thermal is published in fire, water level in flood.
PUBLISHED_TOPICS = {
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
    "thermal/image_raw": "sensor_msgs/msg/Image",
    "water_level/image_raw": "sensor_msgs/msg/Image",
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
    # tasks that take reports (ESAR): every accepted report so far (class_id = "victim" or the clue class)
    "reports": "vision_msgs/msg/Detection3DArray",
    # the same for RViz: victims as spheres, clues as cubes, green where the report counts now, orange where not
    "reports/markers": "visualization_msgs/msg/MarkerArray",
}

CAMERA_MOUNT = re.compile(r"camera_(.+)_optical_frame")

#: the simulator's answers rather than a real robot's sensors (docs/ros_contract.md): left out
#: with ``ground_truth_topics:=false``; a named camera's ``camera_<name>/segmentation/image_raw`` too
GROUND_TRUTH_TOPICS = ("camera/segmentation/image_raw", "camera/segmentation/label_info", "world/objects",
                       "world/markers", "world/static_markers")


def is_ground_truth(topic: str) -> bool:
    """Whether ``topic`` carries the simulator's ground truth (segmentation, label map, the world's
    true objects and markers) rather than a sensor a real robot has."""
    return topic in GROUND_TRUTH_TOPICS or bool(re.fullmatch(r"camera_.+/segmentation/image_raw", topic))


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


def _registered_camera_topics() -> dict[str, str]:
    out: dict[str, str] = {}
    for bid in benchmark_ids():
        body = get_spec(bid).body_spec
        if body is not None and hasattr(body, "mounts"):
            for name in camera_names(body):
                out.update(camera_topics(name))
    return out


#: the named cameras' topics of every registered body (ESAR's UAV: front_center, front_left,
#: front_right, bottom_center); a node advertises those of its own body
PUBLISHED_TOPICS.update(_registered_camera_topics())
SUBSCRIBED_TOPICS = {"cmd_vel": "geometry_msgs/msg/Twist", "report": "vision_msgs/msg/Detection3DArray"}
SERVICES = {"pick_up": "std_srvs/srv/Trigger", "drop": "std_srvs/srv/Trigger", "sim/step": "std_srvs/srv/Trigger",
            # tasks whose actions include "stop" (ESAR): end the mission (safe completion when not crashed)
            "stop": "std_srvs/srv/Trigger",
            # object navigation (DOZE): the agent's Done, ending the episode where the robot stands
            "done": "std_srvs/srv/Trigger"}

# name -> (default, type, description)
PARAMETERS = {
    "benchmark": ("", str, "benchmark id, e.g. hazard/fire (required, or the task parameter)"),
    "task": ("", str, "older spelling of benchmark: a HAZARD hazard name, e.g. flood = hazard/flood"),
    "split": ("test", str, "dataset split: train | test"),
    "episode": (0, int, "episode index in the split"),
    "seed": (0, int, "random seed of the episode"),
    "dataset_root": ("", str, "another dataset directory ('' = the packaged one)"),
    "episode_overrides": ("", str, "fields of the episode to replace, 'key=value,key=value' (values as JSON "
                                   "where they parse, else text; an empty value keeps the episode's), e.g. "
                                   "'weather=fog,time_of_day=21.5'; checked by the benchmark's episode rules"),
    "camera_width": (320, int, "image width (px)"),
    "camera_height": (240, int, "image height (px)"),
    "camera_hfov": (90.0, float, "horizontal field of view (deg)"),
    "camera_rate": (10.0, float, "RGB-D / segmentation / hazard images (sim Hz, <= 10)"),
    "odom_rate": (10.0, float, "odometry and odom->base_link TF (sim Hz)"),
    "lidar_rate": (5.0, float, "LiDAR point cloud (sim Hz)"),
    "imu_rate": (10.0, float, "IMU (sim Hz)"),
    "gps_rate": (1.0, float, "GPS fix (sim Hz)"),
    "lidar_beams": (360, int, "LiDAR beams per ring"),
    "lidar_rings": (16, int, "LiDAR rings (-15..+15 deg)"),
    "lidar_range": (20.0, float, "LiDAR maximum range (m)"),
    "frame_limit": (0, int, "episode length in frames (0: the task's, 1500 fire/flood, 3000 wind)"),
    "lockstep": (False, bool, "advance only through sim/step (and pick_up / drop)"),
    "processes_act_on_body": (False, bool, "world processes slow / block / push the body (HAZARD's harder setting)"),
    "hazards_affect_agent": (False, bool, "deprecated spelling of processes_act_on_body (either one turns it on)"),
    "cmd_vel_timeout": (0.5, float, "stop when no cmd_vel arrived for this long (sim s)"),
    "realtime_factor": (1.0, float, "free-run speed: sim seconds per wall second"),
    "camera_qos": ("reliable", str, "free-run image / camera_info QoS: reliable | best_effort"),
    "segmentation": ("instance", str, "named cameras' segmentation images: instance (every thing hit) | visible "
                                      "(the benchmark's detection track where it has one, ESAR's seg_visible: only "
                                      "what stands out under the light and the fog)"),
    "ground_truth_topics": (True, bool, "publish the simulator's ground truth (segmentation, its label_info, "
                                        "world/objects, world/markers, world/static_markers); false: only what a "
                                        "real robot's sensors give"),
    "idle_republish": (1.0, float, "lock-step: republish clock, odom, TF, camera infos every this many wall s "
                                   "while nobody steps (0: never)"),
    "datum_latitude": (40.4433, float, "GPS datum: latitude (deg) of the map origin"),
    "datum_longitude": (-79.9436, float, "GPS datum: longitude (deg) of the map origin"),
    "datum_altitude": (300.0, float, "GPS datum: altitude (m) of the map origin"),
}

PATH_STEP_M = 0.5             # the trajectory gets a pose every this many metres ...
PATH_MAX_POSES = 2000         # ... and is thinned to every second pose beyond this many
SLOW_TOPIC_PERIOD = 10        # frames: world markers / objects and the trajectory are sent when they
                              # changed, and at least this often (1 s sim) for late volatile subscribers

REPORT_COLORS = {True: (40, 220, 60), False: (255, 140, 0)}     # report counts now / does not

LATCHED = qos_profiles.LATCHED
LOCKSTEP_SENSOR = qos_profiles.LOCKSTEP_SENSOR
TF_QOS = qos_profiles.TF


def _coerce(name: str, value, kind):
    """A parameter value as ``kind`` (numbers may come as int or float, bools as text)."""
    try:
        if kind is bool:
            return as_bool(value, f"parameter {name!r}")
        if kind is str:
            return "" if value is None else str(value)
        if isinstance(value, bool) or value is None or isinstance(value, (list, tuple)):
            raise TypeError
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"parameter {name!r} must be {kind.__name__}, got {value!r}") from None


class SimNode(Node):
    """See the module docstring. Raises ``ValueError`` for bad parameters."""

    def __init__(self, node_name: str = "sim_node", **kwargs):
        super().__init__(node_name, **kwargs)
        p = self.p = self._read_parameters()
        try:
            spec = self._episode_spec(p)
            self.env = EmbodiedEnv(p["benchmark"], p["split"], p["episode"], seed=p["seed"], episode_spec=spec,
                                 camera=CameraSpec(p["camera_width"], p["camera_height"], p["camera_hfov"]),
                                 processes_act_on_body=p["processes_act_on_body"] or p["hazards_affect_agent"],
                                 dataset_root=Path(p["dataset_root"]) if p["dataset_root"] else None,
                                 frame_limit=p["frame_limit"] or None)
            self.env.reset()
        except (IndexError, KeyError, OSError, DatasetError) as exc:
            raise ValueError(f"cannot load episode {p['benchmark']}/{p['split']}/{p['episode']}: "
                             f"{exc.args[0] if exc.args else exc}") from None
        env = self.env
        self.datum = (p["datum_latitude"], p["datum_longitude"], p["datum_altitude"])
        self.periods = {k: self._period(k) for k in ("camera", "odom", "lidar", "imu", "gps")}
        self.tracker = teleop.MotionTracker(env.agent.xy, env.agent.yaw)
        self.z_prev, self.vz, self.az = float(env.agent.z), 0.0, 0.0
        self.twist = BodyTwist()
        self.cmd_frame = -10 ** 9
        # body-general: a flying body (climb limit > 0) takes linear.y / .z; named cameras
        self.flies = float(env.agent.limits.vertical) > 0.0
        self.cameras = camera_names(env.agent.spec)
        mounts = env.agent.mounts()
        self.lidar_height = float(env.agent.frame_pose("lidar_link")[2, 3] - env.agent.z) if "lidar_link" in mounts \
            else teleop.mount_height(env, "lidar_link")
        self.gps_frame = "gps_link" if "gps_link" in mounts else "base_link"
        self.gps_height = teleop.mount_height(env, "gps_link")
        # a scene with a geo-referenced terrain (ESAR): real latitude / longitude, height above ground
        terrain = getattr(env.world.scene, "terrain", None)
        self.geo = terrain if terrain is not None and hasattr(terrain, "gps") else None
        self.ground = terrain if terrain is not None and hasattr(terrain, "surface_at") else None
        # the benchmark's own LiDAR sensor (an observation entry "lidar"), else the node's scan
        self.lidar_sensor = next((s for s in env.sensors if "lidar" in s.space(1, 1)), None)
        self.takes_reports = callable(getattr(env.task, "report", None))
        self.path_points: list[np.ndarray] = [env.agent.position.copy()]
        self._sent: dict[str, tuple] = {}          # slow topic -> (frame, key) of its last message
        self._obs_lidar: tuple[int, np.ndarray] | None = None
        self.last_result: dict = {}
        self.metrics_sent = False
        # the field a world process offers: temperature | water_level | None
        self.channel = next((q.channel for q in env.world.processes if q.channel), None)

        cam_qos = qos_profiles.camera_publisher_qos(p["lockstep"], p["camera_qos"])
        sensor_qos = LOCKSTEP_SENSOR if p["lockstep"] else 10
        self.pubs = {}
        self._container_markers: list | None = None
        for topic, qos in (("/clock", 10), ("/tf", TF_QOS), ("/tf_static", LATCHED), ("odom", sensor_qos),
                           ("camera/color/image_raw", cam_qos), ("camera/color/camera_info", cam_qos),
                           ("camera/depth/image_raw", cam_qos), ("camera/depth/camera_info", cam_qos),
                           ("camera/segmentation/image_raw", cam_qos),
                           ("camera/segmentation/label_info", LATCHED), ("gps/fix", sensor_qos),
                           ("imu/data", sensor_qos), ("lidar/points", sensor_qos), ("task", LATCHED),
                           ("episode/metrics", LATCHED), ("episode/status", LATCHED),
                           ("world/markers", sensor_qos), ("world/objects", sensor_qos),
                           ("world/static_markers", LATCHED), ("trajectory", sensor_qos)):
            self._advertise(topic, qos)
        for name in self.cameras:
            for topic in camera_topics(name):
                self._advertise(topic, cam_qos)
        if not self.flies and isinstance(getattr(getattr(env, "memory_map", None), "bumped", None), np.ndarray):
            self._advertise("bumper/cells", sensor_qos)
        if self.flies and self.ground is not None:
            self._advertise("altimeter/range", sensor_qos)
            self._advertise("altimeter/pressure", sensor_qos)
        if self.takes_reports:
            self._advertise("reports", LATCHED)
            self._advertise("reports/markers", LATCHED)
        self.hazard_topic = {"temperature": "thermal/image_raw",
                             "water_level": "water_level/image_raw"}.get(self.channel)
        if self.hazard_topic:
            self._advertise(self.hazard_topic, cam_qos)

        self.create_subscription(Twist, "cmd_vel", self._on_cmd_vel, 10)
        if self.takes_reports:
            self.create_subscription(Detection3DArray, "report", self._on_report, 10)
        self.create_service(Trigger, "pick_up", self._on_pick_up)
        self.create_service(Trigger, "drop", self._on_drop)
        self.create_service(Trigger, "sim/step", self._on_step)
        if "stop" in getattr(env.task, "actions", ()):
            self.create_service(Trigger, "stop", self._on_stop)
        self.create_service(Trigger, "done", self._on_done)

        self._publish_static()
        self._publish_frame(everything=True)
        self.timer = None
        self._last_step = None
        self._last_camera_info = None
        if p["lockstep"] and p["idle_republish"] > 0:
            self.create_timer(p["idle_republish"], self._on_idle, clock=Clock(clock_type=ClockType.STEADY_TIME))
        if not p["lockstep"]:
            self.timer = self.create_timer(FRAME_DT / p["realtime_factor"], self._on_timer,
                                           clock=Clock(clock_type=ClockType.STEADY_TIME))
        mode = "lock-step" if p["lockstep"] else f"free-run x{p['realtime_factor']:g}"
        self.get_logger().info(
            f"{p['benchmark']}/{p['split']} episode {p['episode']} (scene {env.spec_dict['scene']}), {mode}, camera "
            f"{p['camera_width']}x{p['camera_height']} every {self.periods['camera']} frame(s)"
            + (f", cameras {', '.join(self.cameras)}" if self.cameras else ""))

    @property
    def cmd(self) -> tuple[float, float]:
        """The current command's (linear.x, angular.z) (``twist`` has all four components)."""
        return (self.twist.vx, self.twist.wz)

    # ------------------------------------------------------------------ set-up helpers
    def _read_parameters(self) -> dict:
        out = {}
        for name, (default, kind, doc) in PARAMETERS.items():
            self.declare_parameter(name, default, ParameterDescriptor(description=doc, dynamic_typing=True))
            out[name] = _coerce(name, self.get_parameter(name).value, kind)
        if not (out["benchmark"] or out["task"]):
            raise ValueError(f"parameter 'benchmark' is required: one of {', '.join(benchmark_ids())}")
        try:
            out["benchmark"] = resolve(out["benchmark"] or out["task"])
        except KeyError:
            raise ValueError(f"unknown benchmark {out['benchmark'] or out['task']!r}: expected one of "
                             f"{', '.join(benchmark_ids())} (or fire, flood, wind)") from None
        for name in ("camera_width", "camera_height"):
            if out[name] <= 0:
                raise ValueError(f"parameter {name!r} must be > 0, got {out[name]}")
        if not 1.0 <= out["camera_hfov"] < 179.0:
            raise ValueError(f"parameter 'camera_hfov' must be in [1, 179) degrees, got {out['camera_hfov']}")
        for name in ("camera_rate", "odom_rate", "lidar_rate", "imu_rate", "gps_rate"):
            if not 0.0 <= out[name] < math.inf:
                raise ValueError(f"parameter {name!r} must be >= 0 Hz (0 = off), got {out[name]}")
        for name in ("cmd_vel_timeout", "realtime_factor", "lidar_range"):
            if not 0.0 < out[name] < math.inf:
                raise ValueError(f"parameter {name!r} must be > 0, got {out[name]}")
        if out["camera_qos"] not in qos_profiles.CAMERA_QOS_CHOICES:
            raise ValueError(f"parameter 'camera_qos' must be one of {', '.join(qos_profiles.CAMERA_QOS_CHOICES)}, "
                             f"got {out['camera_qos']!r}")
        if out["segmentation"] not in ("instance", "visible"):
            raise ValueError(f"parameter 'segmentation' must be instance or visible, got {out['segmentation']!r}")
        if out["idle_republish"] < 0:
            raise ValueError(f"parameter 'idle_republish' must be >= 0 s (0: never), got {out['idle_republish']}")
        if out["frame_limit"] < 0:
            raise ValueError(f"parameter 'frame_limit' must be >= 0 (0: the task's), got {out['frame_limit']}")
        if out["lidar_beams"] <= 0 or out["lidar_rings"] <= 0:
            raise ValueError("parameters 'lidar_beams' and 'lidar_rings' must be > 0")
        return out

    @staticmethod
    def _episode_spec(p: dict) -> dict | None:
        """The episode with ``episode_overrides`` applied (None: no overrides, the dataset's)."""
        pairs = [kv for kv in (x.strip() for x in p["episode_overrides"].split(",")) if kv]
        over = {}
        for kv in pairs:
            key, eq, value = (t.strip() for t in kv.partition("="))
            if not eq or not key:
                raise ValueError(f"parameter 'episode_overrides' must be 'key=value,...', got {kv!r}")
            if value:
                try:
                    over[key] = json.loads(value)
                except json.JSONDecodeError:
                    over[key] = value
        if not over:
            return None
        spec = get_spec(p["benchmark"])
        root = Path(p["dataset_root"]) if p["dataset_root"] else None
        ep = dict(spec.dataset.load(p["split"], p["episode"], root))
        unknown = sorted(set(over) - set(ep))
        if unknown:
            raise ValueError(f"episode_overrides: {', '.join(unknown)} not a field of the episode; fields: "
                             f"{', '.join(sorted(ep))}")
        ep.update(over)
        return ep

    def _period(self, sensor: str) -> int | None:
        """Frames between two messages of a sensor (None: off)."""
        rate = self.p[f"{sensor}_rate"]
        if rate <= 0.0:
            return None
        if rate > FRAME_RATE:
            self.get_logger().warning(f"{sensor}_rate {rate:g} Hz is above the frame rate; "
                                      f"using {FRAME_RATE:g} Hz (sim time)")
        return max(1, int(round(FRAME_RATE / rate)))

    def _advertise(self, topic: str, qos) -> None:
        if not self.p["ground_truth_topics"] and is_ground_truth(topic):
            return
        module, _, name = PUBLISHED_TOPICS[topic].replace("/msg/", "/").partition("/")
        cls = {"Clock": ClockMsg, "TFMessage": TFMessage, "Odometry": Odometry, "Image": Image,
               "CameraInfo": CameraInfo, "LabelInfo": LabelInfo, "NavSatFix": NavSatFix, "Imu": Imu,
               "PointCloud2": PointCloud2, "String": String, "Range": Range, "FluidPressure": FluidPressure,
               "MarkerArray": MarkerArray, "Detection3DArray": Detection3DArray, "Path": PathMsg,
               "GridCells": GridCells}[name]
        self.pubs[topic] = self.create_publisher(cls, topic, qos)

    def _wanted(self, topic: str, everything: bool) -> bool:
        """Build a message only if it is advertised and can reach somebody (always in lock-step)."""
        if topic not in self.pubs:
            return False
        return everything or self.p["lockstep"] or self.pubs[topic].get_subscription_count() > 0

    # ------------------------------------------------------------------ publishing
    def _publish_static(self) -> None:
        env, stamp = self.env, conv.stamp_from_frame(0)
        tfs = [conv.to_ros_transform(np.eye(4), stamp, "map", "odom")]
        tfs += [conv.to_ros_transform(T, stamp, parent, child)
                for child, (parent, T) in teleop.sensor_mounts(env.agent.spec).items()]
        if "altimeter/range" in self.pubs:
            # the rangefinder looks straight down: its x axis is base_link's -z (REP 117 Range)
            T = np.eye(4)
            T[:3, :3] = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]
            tfs.append(conv.to_ros_transform(T, stamp, "base_link", "altimeter_link"))
        self.pubs["/tf_static"].publish(conv.to_ros_tf_message(tfs))
        if "world/static_markers" in self.pubs:
            static = [m for m in env.world.markers() if m.static]
            self.pubs["world/static_markers"].publish(conv.to_ros_markers(static, stamp, ns="world_static",
                                                                           labels=False))
        if "camera/segmentation/label_info" in self.pubs:
            self.pubs["camera/segmentation/label_info"].publish(
                conv.to_ros_label_info(env.world.labels(), stamp, "camera_optical_frame"))
        task = dict(env.task_description(), episode=env.spec_dict["index"], split=env.split,
                    scene=env.spec_dict["scene"], seed=self.p["seed"], bounds=list(env.world.scene.bounds),
                    frame_dt=FRAME_DT, lockstep=self.p["lockstep"], benchmark=env.benchmark, channel=self.channel,
                    # frames between two messages of each sensor (null: off): in lock-step a
                    # client knows which frames bring images (and so a new map)
                    sensor_periods=dict(self.periods), cameras=list(self.cameras), flies=self.flies,
                    takes_reports=self.takes_reports, ground_truth_topics=self.p["ground_truth_topics"])
        self.pubs["task"].publish(conv.to_ros_json(task))

    def _due(self, sensor: str, frame: int, everything: bool) -> bool:
        period = self.periods[sensor]
        return period is not None and (everything or frame % period == 0)

    def _publish_frame(self, everything: bool = False) -> None:
        """Publish what is due at the env's current frame (everything: all sensors)."""
        env = self.env
        frame = env.world.frame
        stamp = conv.stamp_from_frame(frame)
        yaw = float(env.agent.yaw)
        self.pubs["/clock"].publish(conv.to_ros_clock(frame))
        if self._due("odom", frame, everything):
            self._publish_odom(stamp)
            if "bumper/cells" in self.pubs and self._wanted("bumper/cells", everything):
                self._publish_bumper(stamp)
            if self._wanted("trajectory", everything) and self._changed("trajectory", len(self.path_points)):
                self.pubs["trajectory"].publish(conv.to_ros_path(np.array(self.path_points), stamp))
        if self._due("imu", frame, everything) and self._wanted("imu/data", everything):
            accel = (*self.tracker.accel_body, self.az)
            self.pubs["imu/data"].publish(conv.to_ros_imu(yaw, self.tracker.wz, accel, stamp))
        if self._due("gps", frame, everything):
            self._publish_gps(stamp, everything)
        if self._due("camera", frame, everything):
            self._publish_camera(stamp, everything)
            self._publish_world(stamp, everything)
        if self._due("lidar", frame, everything) and self._wanted("lidar/points", everything):
            if self._obs_lidar is not None and self._obs_lidar[0] == frame:
                pts = self._obs_lidar[1]               # the benchmark's LiDAR, read with this frame's cameras
            elif self.lidar_sensor is not None:
                pts = self.lidar_sensor.read_env(env, None)["lidar"]
            else:
                pts = teleop.lidar_scan(env, self.p["lidar_beams"], self.p["lidar_rings"],
                                        max_range=self.p["lidar_range"], height=env.agent.z + self.lidar_height)
            self.pubs["lidar/points"].publish(conv.to_ros_pointcloud2(pts, stamp, "lidar_link"))
        self._publish_status()

    def _publish_bumper(self, stamp) -> None:
        """``bumper/cells``: the cells the body has bumped into (``memory_map.bumped``)."""
        env = self.env
        grid = env.grid
        msg = GridCells(header=conv.to_ros_header(stamp, "map"), cell_width=float(grid.resolution),
                        cell_height=float(grid.resolution))
        for i, j in zip(*np.nonzero(env.memory_map.bumped)):
            x, y = grid.to_world((int(i), int(j)))
            msg.cells.append(Point(x=float(x), y=float(y), z=0.0))
        self.pubs["bumper/cells"].publish(msg)

    def _publish_odom(self, stamp) -> None:
        """odom -> base_link TF and Odometry at the body's real height."""
        env = self.env
        x, y, z, yaw = float(env.agent.xy[0]), float(env.agent.xy[1]), float(env.agent.z), float(env.agent.yaw)
        vb = self.tracker.v_body
        self.pubs["/tf"].publish(conv.to_ros_tf_message(
            [conv.to_ros_transform(conv.planar_matrix(x, y, yaw, z), stamp, "odom", "base_link")]))
        self.pubs["odom"].publish(conv.to_ros_odometry(x, y, yaw, vb[0], self.tracker.wz, stamp, vy=vb[1],
                                                       z=z, vz=self.vz, planar=not self.flies))

    def _publish_gps(self, stamp, everything: bool) -> None:
        """NavSatFix of the gps_link (a geo-referenced terrain: its real latitude / longitude,
        altitude above sea level; otherwise the datum parameters' tangent plane); a flying
        body over a terrain also gets its altimeter (height above ground, barometer)."""
        env = self.env
        if self._wanted("gps/fix", everything):
            if self.geo is not None:
                p = env.agent.frame_pose(self.gps_frame)[:3, 3]
                lat, lon, alt = self.geo.gps(p)
                fix = conv.to_ros_navsatfix((0.0, 0.0, 0.0), (lat, lon, alt), stamp)
            else:
                x, y = float(env.agent.xy[0]), float(env.agent.xy[1])
                fix = conv.to_ros_navsatfix((x, y, self.gps_height), self.datum, stamp)
            self.pubs["gps/fix"].publish(fix)
        if "altimeter/range" in self.pubs:
            p = env.agent.position
            if self._wanted("altimeter/range", everything):
                agl = float(p[2] - self.ground.surface_at(p))
                self.pubs["altimeter/range"].publish(conv.to_ros_range(agl, stamp, "altimeter_link"))
            if self._wanted("altimeter/pressure", everything):
                self.pubs["altimeter/pressure"].publish(conv.to_ros_fluid_pressure(float(p[2]), stamp, "base_link"))

    def _changed(self, topic: str, key) -> bool:
        """Whether a slow topic is due: its content ``key`` changed, or SLOW_TOPIC_PERIOD frames passed."""
        frame = self.env.world.frame
        last = self._sent.get(topic)
        if last is not None and last[1] == key and frame - last[0] < SLOW_TOPIC_PERIOD and frame >= last[0]:
            return False
        self._sent[topic] = (frame, key)
        return True

    def _publish_world(self, stamp, everything: bool) -> None:
        """The world's moving markers and their ground-truth detections (class_id = label),
        when they changed (walking people) or every SLOW_TOPIC_PERIOD frames."""
        want_m, want_o = self._wanted("world/markers", everything), self._wanted("world/objects", everything)
        if not (want_m or want_o):
            return
        markers = [m for m in self.env.world.markers() if not m.static]
        key = tuple((m.id, *np.round(m.position, 3)) for m in markers)
        want_m = want_m and self._changed("world/markers", key)
        # lock-step: every camera frame (a navigator that follows an object waits for its frame)
        want_o = want_o and (self._changed("world/objects", key) or self.p["lockstep"])
        if want_m:
            self.pubs["world/markers"].publish(conv.to_ros_markers(markers, stamp))
        if want_o:
            self.pubs["world/objects"].publish(conv.to_ros_detection3d_array(markers + self._containers(), stamp))

    def _containers(self) -> list:
        """The task's containers that are scene parts (HAZARD's carts) as box markers: a
        navigator locates them by their true box, as the embedded controller does."""
        if self._container_markers is None:
            w, out = self.env.world, []
            for pid, name in (self.env.task_description().get("containers") or {}).items():
                try:
                    box = w.scene.part(str(name)).box
                except (KeyError, AttributeError):
                    continue
                out.append(WorldMarker(int(pid), str(name), np.asarray(box.center, float).copy(),
                                       tuple(float(v) for v in 2.0 * np.asarray(box.half, float)),
                                       rotation=np.asarray(box.rot, float).copy(), static=True))
            self._container_markers = out
        return self._container_markers

    def _publish_camera(self, stamp, everything: bool) -> None:
        """Render (always: the env tracks what was seen) and publish the images."""
        want_hazard = self.hazard_topic is not None and self._wanted(self.hazard_topic, everything)
        # the env's observation map only serves its walk_to action, which no ROS interface runs
        obs = teleop.observe(self.env, fields=want_hazard, observation_map=False)
        if "lidar" in obs:
            self._obs_lidar = (self.env.world.frame, obs["lidar"])
        cam = self.env.camera
        self._publish_named_cameras(obs, stamp, everything)
        frame_id = "camera_optical_frame"
        for topic, key in (("camera/color/image_raw", "rgb"), ("camera/depth/image_raw", "depth"),
                           ("camera/segmentation/image_raw", "seg")):
            if self._wanted(topic, everything):
                self.pubs[topic].publish(conv.to_ros_image(obs[key], stamp, frame_id))
        info = conv.to_ros_camera_info(obs["camera_K"], cam.width, cam.height, stamp, frame_id)
        self._last_camera_info = info
        for topic in ("camera/color/camera_info", "camera/depth/camera_info"):
            if self._wanted(topic, everything):
                self.pubs[topic].publish(info)
        if want_hazard:
            self.pubs[self.hazard_topic].publish(conv.to_ros_image(obs["field"], stamp, frame_id, "32FC1"))

    def _publish_named_cameras(self, obs: dict, stamp, everything: bool) -> None:
        """``camera_<name>/...`` of every named camera: from the observation's ``cameras`` entry
        where the benchmark's sensors render them, else rendered here from the mount's pose."""
        env, cam = self.env, self.env.camera
        views = obs.get("cameras") or {}
        for name in self.cameras:
            topics = camera_topics(name)
            wanted = [t for t in topics if self._wanted(t, everything)]
            if not wanted:
                continue
            frame_id = f"camera_{name}_optical_frame"
            view = views.get(name)
            if view is None:
                T = env.agent.frame_pose(frame_id)
                f = env.render_view(T[:3, 3], T[:3, :3])
                view = {"rgb": f.rgb, "depth": f.depth, "seg": f.seg, "K": cam.intrinsics()}
            info = conv.to_ros_camera_info(view["K"], cam.width, cam.height, stamp, frame_id)
            seg = "seg_visible" if self.p["segmentation"] == "visible" and "seg_visible" in view else "seg"
            for topic, key, enc in ((f"camera_{name}/image_raw", "rgb", "rgb8"),
                                    (f"camera_{name}/depth/image_raw", "depth", "32FC1"),
                                    (f"camera_{name}/segmentation/image_raw", seg, "32SC1")):
                if topic in wanted:
                    self.pubs[topic].publish(conv.to_ros_image(view[key], stamp, frame_id, enc))
            for topic in (f"camera_{name}/camera_info", f"camera_{name}/depth/camera_info"):
                if topic in wanted:
                    self.pubs[topic].publish(info)

    def _publish_status(self) -> None:
        env = self.env
        held = getattr(env.agent, "held", None)
        status = dict(env.task.info(env), frame=env.world.frame, held=None if held is None else held.id,
                      done=bool(env.done), last_result=self.last_result)
        self.pubs["episode/status"].publish(conv.to_ros_json(status))
        if env.done and not self.metrics_sent:
            metrics = env.metrics()
            self.pubs["episode/metrics"].publish(conv.to_ros_json(metrics))
            self.metrics_sent = True
            if self.timer is not None:
                self.timer.cancel()
            self.get_logger().info(f"episode over at frame {env.world.frame}: "
                                   + ", ".join(f"{k} {v:.3f}" for k, v in metrics.items() if isinstance(v, float)))

    # ------------------------------------------------------------------ simulation
    def _advance_frame(self) -> None:
        """One frame under the current velocity command (zero after the time-out)."""
        env = self.env
        age = (env.world.frame - self.cmd_frame) * FRAME_DT
        twist = self.twist if age < self.p["cmd_vel_timeout"] - 1e-9 else BodyTwist()
        before = env.world.frame
        env.drive(twist)
        self._track(env.world.frame - before)

    def _track(self, frames: int) -> None:
        """Velocities / accelerations from the poses (planar tracker plus the height)."""
        env = self.env
        self.tracker.update(env.agent.xy, env.agent.yaw, frames)
        if frames > 0:
            dt = frames * FRAME_DT
            vz = (float(env.agent.z) - self.z_prev) / dt
            self.az, self.vz, self.z_prev = (vz - self.vz) / dt, vz, float(env.agent.z)
        p = env.agent.position
        if np.linalg.norm(p - self.path_points[-1]) >= PATH_STEP_M:
            self.path_points.append(p.copy())
            if len(self.path_points) > PATH_MAX_POSES:
                self.path_points = self.path_points[::2]

    def _on_timer(self) -> None:
        if self.env.done:
            return
        self._advance_frame()
        self._publish_frame()

    def _on_cmd_vel(self, msg: Twist) -> None:
        if mg.guard(self).accept("cmd_vel", mg.check_twist, msg) is None:
            return
        self._set_command(msg)

    def _set_command(self, msg: Twist) -> None:
        """The body's Twist from a cmd_vel: linear.y / .z only for a flying body (see the module
        docstring); the body clips it to its limits when it applies it."""
        vy, vz = (float(msg.linear.y), float(msg.linear.z)) if self.flies else (0.0, 0.0)   # finite: guarded
        self.twist = BodyTwist(float(msg.linear.x), vy, vz, float(msg.angular.z))
        self.cmd_frame = self.env.world.frame

    def _on_report(self, msg: Detection3DArray) -> None:
        """Reports of a task that takes them (ESAR): each detection's best class_id ``victim`` (a
        victim's position estimate) or a clue class, at its bbox centre in ``map``; accepted
        reports are echoed on ``reports``, refusals logged and in ``episode/status``."""
        good = mg.guard(self).detections("report", msg)     # NaN / huge centres, no class: left out
        if not good:
            return
        msg.detections = good
        if self.env.done:
            self.get_logger().warning("report after the end of the episode ignored")
            return
        if msg.header.frame_id.lstrip("/") not in ("map", "odom", ""):
            self.get_logger().warning(f"report in frame {msg.header.frame_id!r} ignored: give positions in 'map'")
            return
        try:
            items = conv.from_ros_detection3d_array(msg)
            note = self.env.task.report(self.env, items)
        except ValueError as exc:
            self.get_logger().warning(f"report refused: {exc}")
            self.last_result = {"action": "report", "status": "invalid", "success": False, "frames": 0,
                                "reason": str(exc)}
            self._publish_status()
            return
        self.last_result = {"action": "report", "status": "succeeded", "success": True, "frames": 0,
                            "reason": note}
        self._publish_reports()
        self._publish_status()

    def _publish_reports(self) -> None:
        stamp = conv.stamp_from_frame(self.env.world.frame)
        items = self.env.task.reported_items(self.env)
        self.pubs["reports"].publish(conv.to_ros_detection3d_array(items, stamp))
        shapes = [WorldMarker(int(it.id), str(it.label), np.asarray(it.position, float), tuple(it.size),
                              REPORT_COLORS[bool(getattr(it, "score", 1.0) > 0)],
                              "sphere" if it.label == "victim" else "box") for it in items]
        self.pubs["reports/markers"].publish(conv.to_ros_markers(shapes, stamp, ns="reports", alpha=0.8))

    def _over(self, response) -> bool:
        if self.env.done:
            response.success = False
            response.message = f"episode is over (frame {self.env.world.frame}); metrics are on episode/metrics"
            return True
        return False

    def _on_idle(self) -> None:
        """Lock-step and nobody stepping: publish the current frame's state again for volatile
        subscribers (same stamps; the sensors' transient-local history serves late ones)."""
        now = time.monotonic()
        if self._last_step is not None and now - self._last_step < self.p["idle_republish"]:
            return
        env = self.env
        frame = env.world.frame
        stamp = conv.stamp_from_frame(frame)
        self.pubs["/clock"].publish(conv.to_ros_clock(frame))
        self._publish_odom(stamp)
        if self._last_camera_info is not None:
            for topic in ("camera/color/camera_info", "camera/depth/camera_info"):
                self.pubs[topic].publish(self._last_camera_info)

    def _on_step(self, request, response):
        if not self.p["lockstep"]:
            response.success, response.message = False, "sim/step is only served in lock-step mode (lockstep:=true)"
            return response
        if self._over(response):
            return response
        self._last_step = time.monotonic()
        self._advance_frame()
        self._publish_frame()                 # the sensors due at this frame (their rates, in sim time)
        response.success, response.message = True, str(self.env.world.frame)
        return response

    def _run_action(self, action, response):
        env = self.env
        before = env.world.frame
        try:
            _, _, _, _, info = env.step(action)
        except Exception as exc:          # a bug must not kill the node in the middle of a run
            self.get_logger().error(f"{action}: {type(exc).__name__}: {exc}")
            name = action if isinstance(action, str) else action[0]
            response.success, response.message = False, f"{name} failed: {type(exc).__name__}: {exc}"
            return response
        env.frames_seen.clear()
        self._track(env.world.frame - before)
        self.last_result = info["action_result"]
        self._publish_frame(everything=True)
        response.success = bool(self.last_result["success"])
        response.message = conv.to_trigger_message(
            self.last_result["status"],
            self.last_result["reason"] or f"{self.last_result['action']} done in {self.last_result['frames']} frames")
        return response

    def _on_pick_up(self, request, response):
        if self._over(response):
            return response
        target, reason, status = teleop.nearest_reachable_target(self.env)
        if target is None:
            response.success, response.message = False, conv.to_trigger_message(status, f"pick_up: {reason}")
            self.last_result = {"action": "pick_up()", "status": str(status), "success": False, "frames": 0,
                                "reason": reason}
            self._publish_status()
            return response
        return self._run_action(("pick_up", target), response)

    def _on_stop(self, request, response):
        """End the mission with the task's own ``stop`` action; metrics follow on episode/metrics."""
        if self._over(response):
            return response
        return self._run_action("stop", response)

    def _on_drop(self, request, response):
        if self._over(response):
            return response
        return self._run_action(("drop",), response)

    def _on_done(self, request, response):
        """The agent declares the task done: the task's stop action (DOZE's Done)."""
        if self._over(response):
            return response
        return self._run_action(("stop",), response)


def main(args=None) -> int:
    return run_node(SimNode, "sim_node", args)


if __name__ == "__main__":
    sys.exit(main())
