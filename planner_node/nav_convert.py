"""Messages of the navigation servers from the ROS-free navigation core's arrays and back:
paths (nav_msgs/Path), occupancy grids, Nav2 costmaps (nav2_msgs/Costmap), durations."""
from __future__ import annotations

import math

import numpy as np
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import PoseStamped
from nav2_msgs.msg import Costmap
from nav_msgs.msg import OccupancyGrid, Path

from hazard_ros.conversions import quaternion_to_yaw, yaw_to_quaternion
from planner_node.navigation import OccupancyMap


def duration_msg(seconds: float) -> Duration:
    seconds = max(0.0, float(seconds)) if math.isfinite(seconds) else 0.0
    ns = int(round(seconds * 1e9))
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def seconds(duration) -> float:
    return float(duration.sec) + float(duration.nanosec) * 1e-9


def path_msg(waypoints: np.ndarray, frame_id: str, stamp, final_yaw: float | None = None) -> Path:
    """A Path through ``waypoints`` (N, 2): each pose heads to the next one; the last keeps
    the heading of the last segment, or ``final_yaw`` (the goal's, as Nav2's planners do)."""
    msg = Path()
    msg.header.frame_id = frame_id
    msg.header.stamp = stamp
    way = np.asarray(waypoints, float).reshape(-1, 2)
    n = len(way)
    for k, xy in enumerate(way):
        nxt = way[k + 1] - xy if k + 1 < n else (xy - way[k - 1] if n > 1 else np.zeros(2))
        yaw = math.atan2(nxt[1], nxt[0]) if np.any(nxt) else 0.0
        if k == n - 1 and final_yaw is not None:
            yaw = final_yaw
        ps = PoseStamped()
        ps.header = msg.header
        ps.pose.position.x, ps.pose.position.y = float(xy[0]), float(xy[1])
        ps.pose.orientation = yaw_to_quaternion(yaw)
        msg.poses.append(ps)
    return msg


def path_xy(path: Path) -> np.ndarray:
    """(N, 2) positions of a Path's poses."""
    return np.array([[p.pose.position.x, p.pose.position.y] for p in path.poses], float).reshape(-1, 2)


def pose_yaw(pose) -> float | None:
    """The yaw of a Pose's orientation; None for an all-zero quaternion (any heading)."""
    o = pose.orientation
    if math.sqrt(o.x ** 2 + o.y ** 2 + o.z ** 2 + o.w ** 2) < 1e-9:
        return None
    return quaternion_to_yaw(o)


def occupancy_map(msg: OccupancyGrid) -> OccupancyMap:
    info = msg.info
    return OccupancyMap.from_flat(msg.data, info.width, info.height, info.resolution,
                                  (info.origin.position.x, info.origin.position.y))


def grid_msg(data: np.ndarray, resolution: float, origin, frame_id: str, stamp) -> OccupancyGrid:
    """An OccupancyGrid of int values (rows y), lower-left corner ``origin``."""
    msg = OccupancyGrid()
    msg.header.frame_id, msg.header.stamp = frame_id, stamp
    h, w = data.shape
    msg.info.resolution, msg.info.width, msg.info.height = float(resolution), int(w), int(h)
    msg.info.origin.position.x, msg.info.origin.position.y = float(origin[0]), float(origin[1])
    msg.info.origin.orientation.w = 1.0
    msg.info.map_load_time = stamp
    msg.data = np.asarray(data, np.int8).ravel().tolist()
    return msg


def costmap_msg(cost: np.ndarray, resolution: float, origin, frame_id: str, stamp, layer: str = "master") -> Costmap:
    """A nav2_msgs/Costmap of uint8 Nav2 costs (rows y)."""
    msg = Costmap()
    msg.header.frame_id, msg.header.stamp = frame_id, stamp
    h, w = cost.shape
    md = msg.metadata
    md.map_load_time = md.update_time = stamp
    md.layer, md.resolution, md.size_x, md.size_y = layer, float(resolution), int(w), int(h)
    md.origin.position.x, md.origin.position.y = float(origin[0]), float(origin[1])
    md.origin.orientation.w = 1.0
    msg.data = np.asarray(cost, np.uint8).ravel().tolist()
    return msg


__all__ = ["duration_msg", "seconds", "path_msg", "path_xy", "pose_yaw", "occupancy_map", "grid_msg",
           "costmap_msg"]
