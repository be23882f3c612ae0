"""ROS messages of the mapping node's outputs: occupancy grids and object markers."""
from __future__ import annotations

from array import array

import numpy as np
from geometry_msgs.msg import Point
from nav_msgs.msg import OccupancyGrid
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker, MarkerArray

__all__ = ["to_occupancy_grid", "object_markers", "STATE_COLORS"]

STATE_COLORS = {"held": (0.1, 0.8, 0.2), "rescued": (0.5, 0.5, 0.5), "lost": (0.4, 0.2, 0.2)}


def to_occupancy_grid(cells: np.ndarray, spec, header: Header) -> OccupancyGrid:
    """OccupancyGrid of an int8 (rows = y, cols = x) grid over ``spec`` (GridSpec)."""
    msg = OccupancyGrid(header=header)
    msg.info.map_load_time = header.stamp
    msg.info.resolution = float(spec.resolution)
    msg.info.height, msg.info.width = (int(n) for n in cells.shape)
    msg.info.origin.position.x, msg.info.origin.position.y = float(spec.bounds[0]), float(spec.bounds[1])
    msg.info.origin.orientation.w = 1.0
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
