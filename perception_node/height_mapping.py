"""The mapping node's map of a body that flies (ROS side of
:class:`perception_node.height_map.HeightMapCore`): a map kind of
:data:`perception_node.mapping_node.MAP_KINDS`, chosen when the body flies.

The depth images of every named camera of the ``task`` JSON's ``cameras``
(``camera_<name>/depth/image_raw`` + ``camera_<name>/camera_info``, grouped by exact stamp)
raise the highest point seen per ``height_resolution`` m cell; when every camera of a stamp
is in, ``map`` is the obstacle-at-altitude layer at the body's altitude of that stamp
(100: terrain or obstacles higher than the altitude minus ``height_clearance``, 0: seen and
lower, -1: unseen), stamped with it, and every ``elevation_every``-th such stamp
``elevation_map`` (sensor_msgs/PointCloud2, frame map) has one point per seen cell at its
height (cell centre). It replaces the floor grid of the main camera.
"""
from __future__ import annotations

import time

from sensor_msgs.msg import CameraInfo, Image, PointCloud2
from std_msgs.msg import Header

from hazard_ros import conversions as conv
from perception_node.height_map import HeightMapCore
from perception_node.map_messages import to_occupancy_grid
from perception_node.perception_node import depth_image
from perception_node.projection import StampSync, TfWaitQueue

__all__ = ["HeightMapping"]


class HeightMapping:
    """See the module docstring. ``node`` is the mapping node (its parameters, TF inputs,
    ``map`` publisher, statistics and logger)."""

    kind = "height"
    replaces_floor = True                 # the main camera's floor grid is not published

    def __init__(self, node, tf_timeout: float):
        d = node._declare
        self.args = dict(
            resolution=float(d("height_resolution", 10.0, "flying body: 2.5-D map cell size (m)")),
            step=int(d("height_step", 4, "flying body: use every step-th depth pixel")),
            max_range=float(d("height_max_range", 1500.0, "flying body: ignore depth beyond (m)")),
            clearance=float(d("height_clearance", 10.0, "flying body: a cell blocks when its height "
                                                        "is above altitude - clearance (m)")))
        self.elevation_every = int(d("elevation_every", 5, "flying body: publish elevation_map "
                                                           "every n-th mapped stamp"))
        if self.args["resolution"] <= 0 or self.args["step"] < 1 or self.elevation_every < 1:
            raise ValueError("parameters height_resolution must be > 0, height_step and elevation_every >= 1")
        self.node = node
        self.pub_elevation = node.create_publisher(PointCloud2, "elevation_map", 10)
        self.core: HeightMapCore | None = None
        self.syncs: dict[str, StampSync] = {}
        self.queue = TfWaitQueue(tf_timeout, max_len=40)
        self._stamp, self._count, self._published = None, 0, 0

    def start(self, bounds, task: dict) -> None:
        """(Re)make the map over ``bounds`` and listen to the task's cameras."""
        bounds = [float(b) for b in bounds]
        cameras = list(task.get("cameras") or [])
        if self.core is not None and list(self.core.spec.bounds) == bounds:
            return
        self.core = HeightMapCore(bounds, **self.args)
        node = self.node
        for name in cameras:
            if name in self.syncs:
                continue
            self.syncs[name] = StampSync({"depth", "info"}, max_pending=10)
            node.create_subscription(Image, f"camera_{name}/depth/image_raw",
                                     lambda m, n=name: self._on_camera(n, "depth", m), node.cam_qos)
            node.create_subscription(CameraInfo, f"camera_{name}/camera_info",
                                     lambda m, n=name: self._on_camera(n, "info", m), node.cam_qos)
        h, w = self.core.spec.shape
        node.get_logger().info(f"flying body: 2.5-D height map {w} x {h} cells of "
                               f"{self.core.spec.resolution:g} m from cameras {', '.join(cameras) or 'none'}")

    def _on_camera(self, name: str, key: str, msg) -> None:
        group = self.syncs[name].add(key, conv.time_to_ns(msg.header.stamp), msg)
        if group is not None:
            self.queue.push(conv.time_to_ns(msg.header.stamp), group, time.monotonic())
            self.node._flush()

    def flush(self) -> None:
        if self.core is None:
            return
        node, poses, frame = self.node, self.node.poses, self.node.map_frame
        ready = self.queue.pop_ready(
            lambda s, g: (poses.lookup(frame, g["depth"].header.frame_id, s), poses.pose(frame, s)),
            time.monotonic())
        for stamp_ns, group, T, note in ready:
            if T is None:
                node.stats["no_tf"] += 1
                node.get_logger().warning(f"{group['depth'].header.frame_id} depth at {stamp_ns * 1e-9:.3f} s not "
                                          f"mapped: no transform ({note})", throttle_duration_sec=5.0)
                continue
            T_cam, T_body = T
            try:
                self.core.add_depth(depth_image(group["depth"]), conv.from_ros_camera_info(group["info"]), T_cam)
            except ValueError as exc:
                node.get_logger().error(f"cannot use the depth frame: {exc}", throttle_duration_sec=5.0)
                continue
            node.stats["depth_frames"] += 1
            if stamp_ns != self._stamp:
                self._stamp, self._count = stamp_ns, 0
            self._count += 1
            if self._count >= len(self.syncs):      # every camera of this stamp is in
                self._publish(group["depth"].header.stamp, float(T_body[2, 3]))

    def _publish(self, stamp, altitude: float) -> None:
        frame = self.node.map_frame
        header = Header(stamp=stamp, frame_id=frame)
        self.node.pub_map.publish(to_occupancy_grid(self.core.obstacles(altitude), self.core.spec, header))
        if self._published % self.elevation_every == 0:
            self.pub_elevation.publish(conv.to_ros_pointcloud2(self.core.height_points(), stamp, frame))
        self._published += 1
