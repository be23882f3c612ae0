"""``sim_node``: a thin ROS 2 node around :class:`hazard_sim.core.env.EmbodiedEnv`, for any
registered benchmark.

Publishes the sensors of the benchmark's body (RGB-D + segmentation camera, the image of the
field a world process offers, LiDAR, IMU, GPS, odometry, TF, /clock; a body with named cameras
``camera_<name>_optical_frame`` gets one topic set per camera; a flying body over a terrain an
altimeter), the world as markers / ground-truth detections, the body's trajectory, and the
episode's task / status / metrics; takes ``cmd_vel`` and ``sim/step``. What a benchmark adds is
declared by its spec's :class:`~hazard_sim.core.ros_pieces.RosPieces`: the Trigger services of its
task's actions, the topic of each field, and its plug-in (``hazard_ros.plugins``), the only
benchmark-specific module this node imports; see docs/ros_contract.md and
docs/adding_a_benchmark.md.

Bodies: everything is published at the body's real height (``env.agent.z``: 0 for the
ground bodies, whose messages are as before). ``cmd_vel`` maps to the core's
``Twist``: linear.x, angular.z for every body; linear.y and linear.z too for a body that
flies (its ``Limits.vertical`` > 0; a ground body is driven as a differential base);
the body clips the command to its ``Limits`` (horizontal speed norm, climb rate, yaw
rate) and, for a body with acceleration limits, to those. All simulation lives in the core
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
  free-run, published before the response) and the task's action services (every
  sensor at the action's last frame). Sensor topics are then reliable and
  transient-local (depth 2), so a node that starts late still gets the current
  frame; while nobody steps (``idle_republish`` wall seconds), ``/clock``,
  ``odom``, the odom TF and both camera infos of the current frame are
  published again every ``idle_republish`` s for volatile subscribers.

Cameras: ``camera/color/camera_info`` and ``camera/depth/camera_info`` (the depth
image is registered to the colour camera: same intrinsics and frame) beside the
images. Free-run image / camera-info QoS: ``camera_qos`` ``reliable`` (default, as
common ROS 2 camera drivers publish: reliable and best-effort subscribers both
receive it) or ``best_effort``. ``ground_truth_topics: false`` leaves out the simulator's
ground truth (segmentation, label map, world markers / objects).

The episode's end: its metrics go out on ``episode/metrics`` (and, with ``metrics_out``, to a
JSON file, written before they are published); with ``exit_after_episode`` >= 0 the node then
ends that many wall seconds later with exit code 0 (the launch files: 1.0, with ``on_exit:
shutdown``, so the episode's end ends the launch); by default it keeps running.

Run: ``sim_node --ros-args -p benchmark:=<id> -p episode:=3 -p lockstep:=true``
(``-p task:=<alias>`` is the older spelling of the same).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from geometry_msgs.msg import Twist
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from std_srvs.srv import Trigger

from hazard_ros import ros_qos as qos_profiles
from hazard_ros.plugins import load_plugin
from hazard_ros.ros_node_main import run_node
from hazard_ros.sim_params import PARAMETERS, env_frame_limit, episode_spec, read_parameters  # noqa: F401  (the node's API)
from hazard_ros.sim_publishers import SimPublishers
from hazard_ros.sim_services import SimServices
from hazard_ros.sim_topics import (  # noqa: F401  (the node's topic catalogue, imported from here by tests)
    GROUND_TRUTH_TOPICS,
    PUBLISHED_TOPICS,
    SERVICES,
    SUBSCRIBED_TOPICS,
    camera_names,
    camera_topics,
    is_ground_truth,
    message_class,
    topic_type,
)
from hazard_sim import teleop
from hazard_sim.core.embodiment import Twist as BodyTwist
from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.core.ros_pieces import ros_pieces
from hazard_sim.core.spec import DatasetError
from hazard_sim.render.camera import CameraSpec

FRAME_RATE = 1.0 / FRAME_DT
LATCHED = qos_profiles.LATCHED
LOCKSTEP_SENSOR = qos_profiles.LOCKSTEP_SENSOR
TF_QOS = qos_profiles.TF


class SimNode(SimPublishers, SimServices, Node):
    """See the module docstring. Raises ``ValueError`` for bad parameters."""

    def __init__(self, node_name: str = "sim_node", **kwargs):
        super().__init__(node_name, **kwargs)
        p = self.p = read_parameters(self)
        try:
            self.env = EmbodiedEnv(p["benchmark"], p["split"], p["episode"], seed=p["seed"],
                                   episode_spec=episode_spec(p),
                                   camera=CameraSpec(p["camera_width"], p["camera_height"], p["camera_hfov"]),
                                   processes_act_on_body=p["processes_act_on_body"],
                                   dataset_root=Path(p["dataset_root"]) if p["dataset_root"] else None,
                                   frame_limit=env_frame_limit(p))
            self.env.reset()
        except (IndexError, KeyError, OSError, DatasetError) as exc:
            raise ValueError(f"cannot load episode {p['benchmark']}/{p['split']}/{p['episode']}: "
                             f"{exc.args[0] if exc.args else exc}") from None
        self.pieces = ros_pieces(self.env.spec_b)
        self._set_up_state()
        self.pubs = {}
        self.topic_types: dict[str, str] = {}       # what this node advertises -> ROS type
        self._advertise_sensors()
        self.plugin = load_plugin(self.pieces.plugin, self)

        self.create_subscription(Twist, "cmd_vel", self._on_cmd_vel, 10)
        self.create_service(Trigger, "sim/step", self._on_step)
        for name, action in self.pieces.services.items():
            self.create_service(Trigger, name, self.plugin.serve(name) if action is None
                                else self.action_service(action))

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
            f"{p['benchmark']}/{p['split']} episode {p['episode']} (scene {self.env.spec_dict['scene']}), {mode}, "
            f"camera {p['camera_width']}x{p['camera_height']} every {self.periods['camera']} frame(s)"
            + (f", cameras {', '.join(self.cameras)}" if self.cameras else ""))

    @property
    def cmd(self) -> tuple[float, float]:
        """The current command's (linear.x, angular.z) (``twist`` has all four components)."""
        return (self.twist.vx, self.twist.wz)

    # ------------------------------------------------------------------ set-up
    def _set_up_state(self) -> None:
        """What the body, the scene and the sensors offer, and the motion state."""
        env, p = self.env, self.p
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
        # a scene with a geo-referenced terrain: real latitude / longitude, height above ground
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
        self.metrics_sent_at: float | None = None
        # the field the world's processes offer first, and its topic where the benchmark names one
        self.channel = next((q.channel for q in env.world.processes if q.channel), None)
        self.field_topic = self.pieces.field_topics.get(self.channel)

    def _advertise_sensors(self) -> None:
        """The generic topics this body, scene and benchmark have (not the ground truth when
        ``ground_truth_topics`` is off)."""
        p, env = self.p, self.env
        cam_qos = qos_profiles.camera_publisher_qos(p["lockstep"], p["camera_qos"])
        sensor_qos = LOCKSTEP_SENSOR if p["lockstep"] else 10
        for topic, qos in (("/clock", 10), ("/tf", TF_QOS), ("/tf_static", LATCHED), ("odom", sensor_qos),
                           ("camera/color/image_raw", cam_qos), ("camera/color/camera_info", cam_qos),
                           ("camera/depth/image_raw", cam_qos), ("camera/depth/camera_info", cam_qos),
                           ("camera/segmentation/image_raw", cam_qos),
                           ("camera/segmentation/label_info", LATCHED), ("gps/fix", sensor_qos),
                           ("imu/data", sensor_qos), ("lidar/points", sensor_qos), ("task", LATCHED),
                           ("episode/metrics", LATCHED), ("episode/status", LATCHED),
                           ("world/markers", sensor_qos), ("world/objects", sensor_qos),
                           ("world/static_markers", LATCHED), ("trajectory", sensor_qos)):
            self.advertise(topic, qos)
        for name in self.cameras:
            for topic in camera_topics(name):
                self.advertise(topic, cam_qos)
        if not self.flies and isinstance(getattr(getattr(env, "memory_map", None), "bumped", None), np.ndarray):
            self.advertise("bumper/cells", sensor_qos)
        if self.flies and self.ground is not None:
            self.advertise("altimeter/range", sensor_qos)
            self.advertise("altimeter/pressure", sensor_qos)
        if self.field_topic:
            self.advertise(self.field_topic, cam_qos)

    def _period(self, sensor: str) -> int | None:
        """Frames between two messages of a sensor (None: off)."""
        rate = self.p[f"{sensor}_rate"]
        if rate <= 0.0:
            return None
        if rate > FRAME_RATE:
            self.get_logger().warning(f"{sensor}_rate {rate:g} Hz is above the frame rate; "
                                      f"using {FRAME_RATE:g} Hz (sim time)")
        return max(1, int(round(FRAME_RATE / rate)))

    def advertise(self, topic: str, qos) -> None:
        """A publisher of ``topic`` (its type from the catalogue or the benchmark's pieces) in
        ``pubs``; none for a ground-truth topic when ``ground_truth_topics`` is off."""
        if not self.p["ground_truth_topics"] and is_ground_truth(topic):
            return
        kind = topic_type(topic, self.pieces)
        if kind is None:
            raise ValueError(f"topic {topic!r} is not a sim_node topic: declare it in the benchmark's "
                             f"RosPieces.topics ({self.p['benchmark']})")
        self.pubs[topic] = self.create_publisher(message_class(kind), topic, qos)
        self.topic_types[topic] = kind

    _episode_spec = staticmethod(episode_spec)     # the episode_overrides rule, as tests call it


def episode_exit_code(node: SimNode) -> int | None:
    """0 once ``exit_after_episode`` wall seconds have passed since the episode's metrics went out
    (the node then ends: with ``on_exit: shutdown`` the launch does too); None until then."""
    after = node.p["exit_after_episode"]
    if after < 0 or node.metrics_sent_at is None:
        return None
    return 0 if time.monotonic() - node.metrics_sent_at >= after else None


def main(args=None) -> int:
    return run_node(SimNode, "sim_node", args, stop_code=episode_exit_code)


if __name__ == "__main__":
    sys.exit(main())
