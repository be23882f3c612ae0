"""A 2.5-D height map from depth images (ROS-free): the map of a body that flies.

:class:`HeightMapCore` keeps the highest point seen per cell
(``hazard_sim.navigation.maps.HeightLayer``, what the embedded flying-body baselines use)
from the depth images of every camera:

* :meth:`HeightMapCore.add_depth` back-projects a z-depth image (every ``step``-th pixel, up
  to ``max_range`` m) with the camera's map pose and keeps the maximum height per cell;
* :meth:`HeightMapCore.obstacles` is the obstacle-at-altitude layer for
  nav_msgs/OccupancyGrid: 100 where the known height is above ``altitude - clearance`` (the
  body cannot fly through at that altitude), 0 where it is known and below, -1 where nothing
  was seen;
* :meth:`HeightMapCore.height_points` are the known cells as (N, 3) points (cell centre,
  height), for a PointCloud2 elevation map.
"""
from __future__ import annotations

import numpy as np

from hazard_sim.navigation.grid import FREE, OCCUPIED, UNKNOWN
from hazard_sim.navigation.maps import HeightLayer, MapSpec, Window, region
from perception_node.occupancy import depth_points

__all__ = ["HeightMapCore"]


class HeightMapCore:
    """See the module docstring."""

    def __init__(self, bounds, resolution: float = 10.0, step: int = 4, max_range: float = 1500.0,
                 clearance: float = 10.0, tile: int | None = None):
        if not resolution > 0 or step < 1 or not max_range > 0:
            raise ValueError(f"height map needs resolution > 0, step >= 1 and max_range > 0, got "
                             f"{resolution}, {step}, {max_range}")
        self.spec = MapSpec.auto(bounds, float(resolution), tile)
        self.heights = HeightLayer(self.spec)
        self.step, self.max_range, self.clearance = int(step), float(max_range), float(clearance)
        self.frames = 0

    def add_depth(self, depth: np.ndarray, K: np.ndarray, T_map_cam: np.ndarray) -> int:
        """Add one depth image; returns the number of points used."""
        pts = depth_points(depth, K, T_map_cam, self.step, self.max_range)
        self.frames += 1
        return self.heights.add_points(pts)

    def known(self, window: Window | None = None) -> np.ndarray:
        return region(self.heights, window)

    def obstacles(self, altitude: float, window: Window | None = None, clearance: float | None = None) -> np.ndarray:
        h = self.known(window)
        c = self.clearance if clearance is None else float(clearance)
        out = np.full(h.shape, UNKNOWN, np.int8)
        seen = np.isfinite(h)
        out[seen] = np.where(h[seen] > altitude - c, OCCUPIED, FREE)
        return out

    def height_points(self, window: Window | None = None) -> np.ndarray:
        h = self.known(window)
        i, j = np.nonzero(np.isfinite(h))
        grid = self.spec if window is None else window.grid
        x = grid.bounds[0] + (j + 0.5) * grid.resolution
        y = grid.bounds[1] + (i + 0.5) * grid.resolution
        return np.stack([x, y, h[i, j]], axis=1).astype(np.float32)
