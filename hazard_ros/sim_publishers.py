"""sim_node's publishers, one method per capability: static TF, label map and task; per frame the
clock, odometry (+ bumper, trajectory), IMU, GPS (+ altimeter), the cameras (the main one, the field
image a process offers, the body's named cameras), the world's markers / objects, LiDAR, and the
episode's status and metrics. A mix-in of :class:`hazard_ros.sim_node.SimNode` (its ``env``, ``p``,
``pubs``, ``periods``, ``tracker``, ``plugin`` ...)."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
from geometry_msgs.msg import Point
from nav_msgs.msg import GridCells

from hazard_ros import conversions as conv
from hazard_ros.sim_topics import camera_topics
from hazard_sim import teleop
from hazard_sim.core.frames import FRAME_DT

PATH_STEP_M = 0.5             # the trajectory gets a pose every this many metres ...
PATH_MAX_POSES = 2000         # ... and is thinned to every second pose beyond this many
SLOW_TOPIC_PERIOD = 10        # frames: world markers / objects and the trajectory are sent when they
                              # changed, and at least this often (1 s sim) for late volatile subscribers


class SimPublishers:
    """The publishing half of the sim node (see the module docstring)."""

    def _wanted(self, topic: str, everything: bool) -> bool:
        """Build a message only if it is advertised and can reach somebody (always in lock-step)."""
        if topic not in self.pubs:
            return False
        return everything or self.p["lockstep"] or self.pubs[topic].get_subscription_count() > 0

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
                    takes_reports=self.takes_reports, ground_truth_topics=self.p["ground_truth_topics"],
                    services=sorted(["sim/step", *self.pieces.services]),     # the Trigger services served
                    **self.plugin.task_extras())
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
            objects = markers + self.plugin.world_objects()
            self.pubs["world/objects"].publish(conv.to_ros_detection3d_array(objects, stamp))

    def _publish_camera(self, stamp, everything: bool) -> None:
        """Render (always: the env tracks what was seen) and publish the images."""
        want_field = self.field_topic is not None and self._wanted(self.field_topic, everything)
        # the env's observation map only serves its own navigation actions, which no ROS interface runs
        obs = teleop.observe(self.env, fields=want_field, observation_map=False)
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
        if want_field:
            self.pubs[self.field_topic].publish(conv.to_ros_image(obs["field"], stamp, frame_id, "32FC1"))

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

    def _write_metrics(self, metrics: dict) -> None:
        """``metrics_out``: the episode's metrics as JSON (written whole, then renamed into place)."""
        path = self.p["metrics_out"]
        if not path:
            return
        try:
            out = Path(path)
            tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n")
            tmp.replace(out)
        except OSError as exc:
            self.get_logger().error(f"cannot write metrics_out {path}: {exc.strerror or exc}")

    def _publish_status(self) -> None:
        env = self.env
        held = getattr(env.agent, "held", None)
        status = dict(env.task.info(env), frame=env.world.frame, held=None if held is None else held.id,
                      done=bool(env.done), last_result=self.last_result)
        self.pubs["episode/status"].publish(conv.to_ros_json(status))
        if env.done and not self.metrics_sent:
            metrics = env.metrics()
            self._write_metrics(metrics)          # before they go out: whoever ends on them finds the file
            self.pubs["episode/metrics"].publish(conv.to_ros_json(metrics))
            self.metrics_sent = True
            self.metrics_sent_at = time.monotonic()
            if self.timer is not None:
                self.timer.cancel()
            self.get_logger().info(f"episode over at frame {env.world.frame}: "
                                   + ", ".join(f"{k} {v:.3f}" for k, v in metrics.items() if isinstance(v, float)))
