"""``map_server/load_map`` (nav2_msgs/srv/LoadMap) on the navigation node: what
nav2_simple_commander's ``changeMap`` calls.

Loads a map in map_server's format (YAML + image: :mod:`hazard_sim.navigation.map_files`)
and publishes it on ``map`` (reliable, transient local, as map_server does), which the
costmaps, the planner server and ``navigate_to_pose`` use from then on.  The publisher of
``map`` is created at the first load only: in a stack whose mapping node builds ``map``
from the sensors, its next map replaces the loaded one (load maps with the mapping node
off, e.g. ``decision:=false`` runs on a known map).  Results as map_server's:
RESULT_SUCCESS, RESULT_MAP_DOES_NOT_EXIST, RESULT_INVALID_MAP_METADATA,
RESULT_INVALID_MAP_DATA, RESULT_UNDEFINED_FAILURE.  Parameter ``yaml_filename`` ('' = none):
a map to load at start.
"""
from __future__ import annotations

from nav2_msgs.srv import LoadMap
from nav_msgs.msg import OccupancyGrid
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup

from hazard_sim.navigation.map_files import MapFileError, load_map
from planner_node.nav_convert import grid_msg
from planner_node.nav_inputs import LATCHED

_RESULTS = {"missing": LoadMap.Response.RESULT_MAP_DOES_NOT_EXIST,
            "metadata": LoadMap.Response.RESULT_INVALID_MAP_METADATA,
            "data": LoadMap.Response.RESULT_INVALID_MAP_DATA}


class MapServer:
    """See the module docstring."""

    def __init__(self, node):
        self.node = node
        self.pub = None
        node.create_service(LoadMap, "map_server/load_map", self._on_load,
                            callback_group=MutuallyExclusiveCallbackGroup())
        first = str(node.declare_parameter("yaml_filename", "").value)
        if first:
            result, _ = self.load(first)
            if result != LoadMap.Response.RESULT_SUCCESS:
                raise ValueError(f"yaml_filename {first!r} could not be loaded (LoadMap result {result})")

    def load(self, url: str) -> tuple[int, OccupancyGrid | None]:
        """(LoadMap result, the published map or None)."""
        node = self.node
        try:
            data, resolution, origin = load_map(url)
        except MapFileError as exc:
            node.get_logger().error(f"load_map: {exc.message}")
            return _RESULTS[exc.kind], None
        except Exception as exc:  # noqa: BLE001 - an answer, never a dead service
            node.get_logger().error(f"load_map: {type(exc).__name__}: {exc}")
            return LoadMap.Response.RESULT_UNDEFINED_FAILURE, None
        msg = grid_msg(data, resolution, origin, node.global_frame, node.get_clock().now().to_msg())
        if self.pub is None:
            self.pub = node.create_publisher(OccupancyGrid, "map", LATCHED)
        self.pub.publish(msg)
        node._on_map(msg)           # at once, not only when the message comes back
        node.get_logger().info(f"load_map: {url} ({data.shape[1]} x {data.shape[0]} cells of {resolution:g} m)")
        return LoadMap.Response.RESULT_SUCCESS, msg

    def _on_load(self, request, response):
        response.result, msg = self.load(request.map_url)
        if msg is not None:
            response.map = msg
        return response


__all__ = ["MapServer"]
