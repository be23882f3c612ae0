"""The global and local costmaps of the navigation node, as Nav2's costmap nodes serve them.

For ``global_costmap`` (the whole ``map``) and ``local_costmap`` (a rolling square of
``local_costmap_size`` m around the robot, aligned to the map's cells):

* topics ``<name>/costmap`` (nav_msgs/OccupancyGrid, Nav2's cost translation) and
  ``<name>/costmap_raw`` (nav2_msgs/Costmap, costs 0..255), reliable and transient local,
  published at ``costmap_publish_rate`` Hz (wall time) when something changed and someone
  listens;
* services ``<name>/get_costmap`` (nav2_msgs/GetCostmap), ``<name>/clear_entirely_<name>``
  (ClearEntireCostmap), ``<name>/clear_around_<name>`` (ClearCostmapAroundRobot: the square of
  side ``reset_distance`` around the robot) and ``<name>/clear_except_<name>``
  (ClearCostmapExceptRegion: everything outside it).

Costs: :mod:`planner_node.costmap` (obstacles from ``map``, inscribed radius = robot_radius,
``inflation_radius`` 0.55 m, ``cost_scaling_factor`` 3.0, Nav2's defaults).  A clear frees the
cells until the next ``map`` marks them again; clearing the global costmap changes what the
planner server and ``navigate_to_pose`` plan on, clearing the local one what the behaviors'
collision check sees.  Each costmap keeps its own clears (Nav2's two costmaps are separate).
"""
from __future__ import annotations

import numpy as np
from nav2_msgs.msg import Costmap
from nav2_msgs.srv import ClearCostmapAroundRobot, ClearCostmapExceptRegion, ClearEntireCostmap, GetCostmap
from nav_msgs.msg import OccupancyGrid
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.clock import Clock, ClockType

from hazard_ros.params import declare_floats
from planner_node import costmap as cm
from planner_node.nav_convert import costmap_msg, grid_msg
from planner_node.nav_inputs import LATCHED
from planner_node.navigation import NavigationError


class CostmapServers:
    """Both costmaps on the navigation ``node`` (its ``_global_map`` / ``_local_map``:
    :class:`planner_node.costmap.ClearableMap`, fed by its ``map`` input)."""

    def __init__(self, node):
        self.node = node
        self.inflation_radius, self.scaling, self.local_size, rate = declare_floats(
            node, inflation_radius=0.55, cost_scaling_factor=3.0, local_costmap_size=3.0, costmap_publish_rate=1.0)
        group = MutuallyExclusiveCallbackGroup()
        self._published: dict[str, tuple] = {}
        self.pubs = {}
        for name in ("global_costmap", "local_costmap"):
            clear = {"entirely": ClearEntireCostmap, "around": ClearCostmapAroundRobot,
                     "except": ClearCostmapExceptRegion}
            for kind, srv in clear.items():
                node.create_service(srv, f"{name}/clear_{kind}_{name}",
                                    lambda req, res, n=name, k=kind: self._on_clear(n, k, req, res),
                                    callback_group=group)
            node.create_service(GetCostmap, f"{name}/get_costmap",
                                lambda req, res, n=name: self._on_get(n, res), callback_group=group)
            self.pubs[name] = (node.create_publisher(OccupancyGrid, f"{name}/costmap", LATCHED),
                               node.create_publisher(Costmap, f"{name}/costmap_raw", LATCHED))
        if rate > 0:
            node.create_timer(1.0 / rate, self.publish, callback_group=group,
                              clock=Clock(clock_type=ClockType.STEADY_TIME))

    # ------------------------------------------------------------ the costs
    def layer(self, name: str):
        """The ClearableMap behind costmap ``name``."""
        return self.node._global_map if name == "global_costmap" else self.node._local_map

    def grid(self, name: str):
        """(OccupancyMap, costs) of costmap ``name`` now, or None before a map arrived."""
        node = self.node
        with node._cv:
            omap = self.layer(name).effective()
        if omap is None:
            return None
        if name == "local_costmap":
            try:
                pose, _ = node._robot_pose()
            except NavigationError:
                return None
            omap = cm.window(omap, pose[:2], self.local_size)
        return omap, cm.costs(omap, node.robot_radius, max(self.inflation_radius, node.robot_radius), self.scaling)

    def _messages(self, name: str):
        got = self.grid(name)
        if got is None:
            return None
        omap, cost = got
        frame, stamp = self.node.global_frame, self.node.get_clock().now().to_msg()
        return (grid_msg(cm.occupancy_from_costs(cost), omap.resolution, omap.origin, frame, stamp),
                costmap_msg(cost, omap.resolution, omap.origin, frame, stamp))

    def publish(self) -> None:
        """Publish each costmap that changed (the local one also when the robot moved) and has
        subscribers."""
        node = self.node
        if node._stopping.is_set():
            return
        for name, (grid_pub, raw_pub) in self.pubs.items():
            if grid_pub.get_subscription_count() + raw_pub.get_subscription_count() == 0:
                continue
            with node._cv:
                key = (self.layer(name).version, node._pose_stamp_ns if name == "local_costmap" else 0)
            if self._published.get(name) == key:
                continue
            msgs = self._messages(name)
            if msgs is None:
                continue
            grid_pub.publish(msgs[0])
            raw_pub.publish(msgs[1])
            self._published[name] = key

    # ------------------------------------------------------------ services
    def _on_get(self, name: str, res):
        msgs = self._messages(name)
        if msgs is None:
            self.node.get_logger().warning(f"{name}/get_costmap: no map yet; answering an empty costmap")
            res.map = Costmap()
            res.map.header.frame_id = self.node.global_frame
        else:
            res.map = msgs[1]
        return res

    def _on_clear(self, name: str, kind: str, req, res):
        node = self.node
        layer = self.layer(name)
        centre = None
        if kind != "entirely":
            try:
                centre = node._robot_pose()[0][:2]
            except NavigationError as exc:
                node.get_logger().error(f"{name}: cannot clear around the robot: {exc.message}")
                return res
        with node._cv:
            if kind == "entirely":
                freed = layer.clear_all()
            elif kind == "around":
                freed = layer.clear_around(centre, float(req.reset_distance))
            else:
                freed = layer.clear_except(centre, float(req.reset_distance))
            node._cv.notify_all()
        node.get_logger().info(f"{name}: cleared {kind} ({freed} cells freed)")
        return res

    def path_blocked(self, name: str, points: np.ndarray, threshold: int = cm.LETHAL) -> bool:
        """Whether any of ``points`` (N, 2) lies on a cell of costmap ``name`` whose cost is
        ``threshold`` or more (unknown cells are not obstacles)."""
        got = self.grid(name)
        if got is None:
            return False
        omap, cost = got
        pts = np.asarray(points, float).reshape(-1, 2)
        x0, y0, x1, y1 = omap.bounds
        pts = pts[(pts[:, 0] >= x0) & (pts[:, 0] < x1) & (pts[:, 1] >= y0) & (pts[:, 1] < y1)]
        if not len(pts):
            return False
        i, j = omap.spec.to_cells(pts)
        c = cost[i, j]
        return bool(np.any((c >= threshold) & (c != cm.NO_INFORMATION)))


__all__ = ["CostmapServers"]
