"""``sim_node``: a thin ROS 2 node around :class:`hazard_sim.core.env.EmbodiedEnv`.

Publishes the sensors of the humanoid (RGB-D + segmentation camera, thermal or
water-level image, LiDAR, IMU, GPS, odometry, TF, /clock) and the episode's
task / status / metrics; takes ``cmd_vel`` and the ``pick_up`` / ``drop``
Trigger services; see docs/ros_contract.md. All simulation lives in the core
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

import math
import sys
import time
from pathlib import Path

import numpy as np
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import CameraInfo, Image, Imu, NavSatFix, PointCloud2
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from vision_msgs.msg import LabelInfo

from hazard_ros import conversions as conv
from hazard_ros import ros_qos as qos_profiles
from hazard_ros.params import as_bool
from hazard_ros.ros_node_main import run_node
from hazard_sim import teleop
from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.core.spec import benchmark_ids, resolve
from hazard_sim.dataset import DatasetError
from hazard_sim.render.camera import CameraSpec

FRAME_RATE = 1.0 / FRAME_DT
DEFAULT_BENCHMARK = "hazard/fire"

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
}
SUBSCRIBED_TOPICS = {"cmd_vel": "geometry_msgs/msg/Twist"}
SERVICES = {"pick_up": "std_srvs/srv/Trigger", "drop": "std_srvs/srv/Trigger", "sim/step": "std_srvs/srv/Trigger",
            "done": "std_srvs/srv/Trigger"}

# name -> (default, type, description)
PARAMETERS = {
    "benchmark": ("", str, f"benchmark id (empty: the task parameter's, else {DEFAULT_BENCHMARK})"),
    "task": ("", str, "older spelling of benchmark: a HAZARD hazard name, e.g. flood = hazard/flood"),
    "split": ("test", str, "dataset split: train | test"),
    "episode": (0, int, "episode index in the split"),
    "seed": (0, int, "random seed of the episode"),
    "dataset_root": ("", str, "another dataset directory ('' = the packaged one)"),
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
    "hazards_affect_agent": (False, bool, "HAZARD's harder setting: the hazard slows / blocks / pushes the body"),
    "cmd_vel_timeout": (0.5, float, "stop when no cmd_vel arrived for this long (sim s)"),
    "realtime_factor": (1.0, float, "free-run speed: sim seconds per wall second"),
    "camera_qos": ("reliable", str, "free-run image / camera_info QoS: reliable | best_effort"),
    "idle_republish": (1.0, float, "lock-step: republish clock, odom, TF, camera infos every this many wall s "
                                   "while nobody steps (0: never)"),
    "datum_latitude": (40.4433, float, "GPS datum: latitude (deg) of the map origin"),
    "datum_longitude": (-79.9436, float, "GPS datum: longitude (deg) of the map origin"),
    "datum_altitude": (300.0, float, "GPS datum: altitude (m) of the map origin"),
}

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
            self.env = EmbodiedEnv(p["benchmark"], p["split"], p["episode"], seed=p["seed"],
                                 camera=CameraSpec(p["camera_width"], p["camera_height"], p["camera_hfov"]),
                                 hazards_affect_agent=p["hazards_affect_agent"],
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
        self.cmd = (0.0, 0.0)
        self.cmd_frame = -10 ** 9
        self.last_result: dict = {}
        self.metrics_sent = False
        # the field a world process offers: temperature | water_level | None
        self.channel = next((q.channel for q in env.world.processes if q.channel), None)

        cam_qos = qos_profiles.camera_publisher_qos(p["lockstep"], p["camera_qos"])
        sensor_qos = LOCKSTEP_SENSOR if p["lockstep"] else 10
        self.pubs = {}
        for topic, qos in (("/clock", 10), ("/tf", TF_QOS), ("/tf_static", LATCHED), ("odom", sensor_qos),
                           ("camera/color/image_raw", cam_qos), ("camera/color/camera_info", cam_qos),
                           ("camera/depth/image_raw", cam_qos), ("camera/depth/camera_info", cam_qos),
                           ("camera/segmentation/image_raw", cam_qos),
                           ("camera/segmentation/label_info", LATCHED), ("gps/fix", sensor_qos),
                           ("imu/data", sensor_qos), ("lidar/points", sensor_qos), ("task", LATCHED),
                           ("episode/metrics", LATCHED), ("episode/status", LATCHED)):
            self._advertise(topic, qos)
        self.hazard_topic = {"temperature": "thermal/image_raw",
                             "water_level": "water_level/image_raw"}.get(self.channel)
        if self.hazard_topic:
            self._advertise(self.hazard_topic, cam_qos)

        self.create_subscription(Twist, "cmd_vel", self._on_cmd_vel, 10)
        self.create_service(Trigger, "pick_up", self._on_pick_up)
        self.create_service(Trigger, "drop", self._on_drop)
        self.create_service(Trigger, "sim/step", self._on_step)
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
            f"{p['camera_width']}x{p['camera_height']} every {self.periods['camera']} frame(s)")

    # ------------------------------------------------------------------ set-up helpers
    def _read_parameters(self) -> dict:
        out = {}
        for name, (default, kind, doc) in PARAMETERS.items():
            self.declare_parameter(name, default, ParameterDescriptor(description=doc, dynamic_typing=True))
            out[name] = _coerce(name, self.get_parameter(name).value, kind)
        try:
            out["benchmark"] = resolve(out["benchmark"] or out["task"] or DEFAULT_BENCHMARK)
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
        if out["idle_republish"] < 0:
            raise ValueError(f"parameter 'idle_republish' must be >= 0 s (0: never), got {out['idle_republish']}")
        if out["frame_limit"] < 0:
            raise ValueError(f"parameter 'frame_limit' must be >= 0 (0: the task's), got {out['frame_limit']}")
        if out["lidar_beams"] <= 0 or out["lidar_rings"] <= 0:
            raise ValueError("parameters 'lidar_beams' and 'lidar_rings' must be > 0")
        return out

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
        module, _, name = PUBLISHED_TOPICS[topic].replace("/msg/", "/").partition("/")
        cls = {"Clock": ClockMsg, "TFMessage": TFMessage, "Odometry": Odometry, "Image": Image,
               "CameraInfo": CameraInfo, "LabelInfo": LabelInfo, "NavSatFix": NavSatFix, "Imu": Imu,
               "PointCloud2": PointCloud2, "String": String}[name]
        self.pubs[topic] = self.create_publisher(cls, topic, qos)

    def _wanted(self, topic: str, everything: bool) -> bool:
        """Build a message only if it can reach somebody (always in lock-step)."""
        return everything or self.p["lockstep"] or self.pubs[topic].get_subscription_count() > 0

    # ------------------------------------------------------------------ publishing
    def _publish_static(self) -> None:
        env, stamp = self.env, conv.stamp_from_frame(0)
        tfs = [conv.to_ros_transform(np.eye(4), stamp, "map", "odom")]
        tfs += [conv.to_ros_transform(T, stamp, parent, child)
                for child, (parent, T) in teleop.sensor_mounts(env.agent.spec).items()]
        self.pubs["/tf_static"].publish(conv.to_ros_tf_message(tfs))
        self.pubs["camera/segmentation/label_info"].publish(
            conv.to_ros_label_info(env.world.labels(), stamp, "camera_optical_frame"))
        task = dict(env.task_description(), episode=env.spec_dict["index"], split=env.split,
                    scene=env.spec_dict["scene"], seed=self.p["seed"], bounds=list(env.world.scene.bounds),
                    frame_dt=FRAME_DT, lockstep=self.p["lockstep"], benchmark=env.benchmark, channel=self.channel,
                    # frames between two messages of each sensor (null: off): in lock-step a
                    # client knows which frames bring images (and so a new map)
                    sensor_periods=dict(self.periods))
        self.pubs["task"].publish(conv.to_ros_json(task))

    def _due(self, sensor: str, frame: int, everything: bool) -> bool:
        period = self.periods[sensor]
        return period is not None and (everything or frame % period == 0)

    def _publish_frame(self, everything: bool = False) -> None:
        """Publish what is due at the env's current frame (everything: all sensors)."""
        env = self.env
        frame = env.world.frame
        stamp = conv.stamp_from_frame(frame)
        x, y, yaw = float(env.agent.xy[0]), float(env.agent.xy[1]), float(env.agent.yaw)
        self.pubs["/clock"].publish(conv.to_ros_clock(frame))
        if self._due("odom", frame, everything):
            vb = self.tracker.v_body
            self.pubs["/tf"].publish(conv.to_ros_tf_message(
                [conv.to_ros_transform(conv.planar_matrix(x, y, yaw), stamp, "odom", "base_link")]))
            self.pubs["odom"].publish(conv.to_ros_odometry(x, y, yaw, vb[0], self.tracker.wz, stamp, vy=vb[1]))
        if self._due("imu", frame, everything) and self._wanted("imu/data", everything):
            self.pubs["imu/data"].publish(conv.to_ros_imu(yaw, self.tracker.wz, self.tracker.accel_body, stamp))
        if self._due("gps", frame, everything) and self._wanted("gps/fix", everything):
            self.pubs["gps/fix"].publish(conv.to_ros_navsatfix((x, y, teleop.GPS_HEIGHT), self.datum, stamp))
        if self._due("camera", frame, everything):
            self._publish_camera(stamp, everything)
        if self._due("lidar", frame, everything) and self._wanted("lidar/points", everything):
            pts = teleop.lidar_scan(env, self.p["lidar_beams"], self.p["lidar_rings"], max_range=self.p["lidar_range"])
            self.pubs["lidar/points"].publish(conv.to_ros_pointcloud2(pts, stamp, "lidar_link"))
        self._publish_status()

    def _publish_camera(self, stamp, everything: bool) -> None:
        """Render (always: the env tracks what was seen) and publish the images."""
        want_hazard = self.hazard_topic is not None and self._wanted(self.hazard_topic, everything)
        # the env's observation map only serves its walk_to action, which no ROS interface runs
        obs = teleop.observe(self.env, hazard=want_hazard, observation_map=False)
        cam = self.env.camera
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
            self.pubs[self.hazard_topic].publish(conv.to_ros_image(obs["hazard"], stamp, frame_id, "32FC1"))

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
        v, w = self.cmd if age < self.p["cmd_vel_timeout"] - 1e-9 else (0.0, 0.0)
        before = env.world.frame
        teleop.drive(env, v, w)
        self.tracker.update(env.agent.xy, env.agent.yaw, env.world.frame - before)

    def _on_timer(self) -> None:
        if self.env.done:
            return
        self._advance_frame()
        self._publish_frame()

    def _on_cmd_vel(self, msg: Twist) -> None:
        v, w = float(msg.linear.x), float(msg.angular.z)
        if not (math.isfinite(v) and math.isfinite(w)):
            self.get_logger().warning(f"ignoring cmd_vel with non-finite values (linear.x={v}, angular.z={w})")
            return
        self.cmd, self.cmd_frame = (v, w), self.env.world.frame

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
        x, y, yaw = float(env.agent.xy[0]), float(env.agent.xy[1]), float(env.agent.yaw)
        self.pubs["/clock"].publish(conv.to_ros_clock(frame))
        self.pubs["/tf"].publish(conv.to_ros_tf_message(
            [conv.to_ros_transform(conv.planar_matrix(x, y, yaw), stamp, "odom", "base_link")]))
        vb = self.tracker.v_body
        self.pubs["odom"].publish(conv.to_ros_odometry(x, y, yaw, vb[0], self.tracker.wz, stamp, vy=vb[1]))
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
            response.success, response.message = False, f"{action[0]} failed: {type(exc).__name__}: {exc}"
            return response
        env.frames_seen.clear()
        self.tracker.update(env.agent.xy, env.agent.yaw, env.world.frame - before)
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
