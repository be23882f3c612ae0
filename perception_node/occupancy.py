"""Occupancy from depth images (ROS-free).

:class:`OccupancyMapper` turns depth images into nav_msgs-style occupancy through
:class:`hazard_sim.navigation.observed_map.ObservedMap` (the same rules the embedded agents
use: points in the body-height band are obstacles, floor points are free);
:func:`depth_points` back-projects a z-depth image into map-frame points.
"""
from __future__ import annotations

import numpy as np

from hazard_sim.intrinsics import backproject, scaled_K
from hazard_sim.navigation.maps import MapSpec, Window
from hazard_sim.navigation.observed_map import ObservedMap

__all__ = ["depth_points", "OccupancyMapper"]


def depth_points(depth: np.ndarray, K: np.ndarray, T_map_cam: np.ndarray, step: int = 1,
                 max_range: float | None = None) -> np.ndarray:
    """Map-frame points (H/step, W/step, 3) of a z-depth image; NaN where there is no
    valid depth (non-finite, <= 0, or beyond ``max_range``)."""
    d = np.asarray(depth, np.float32)[::step, ::step]
    bad = ~np.isfinite(d) | (d <= 0)
    if max_range is not None:
        bad |= d > max_range
    d = np.where(bad, np.nan, d)
    return backproject(d, scaled_K(K, step), np.asarray(T_map_cam, float))


class OccupancyMapper:
    """Occupancy over ``bounds`` (xmin, ymin, xmax, ymax) from depth images.

    The map is dense, or tiled (``tile`` cells a side; None: tiled only when it has more
    than :data:`hazard_sim.navigation.maps.DENSE_CELL_LIMIT` cells, 0: dense), see
    :meth:`hazard_sim.navigation.maps.MapSpec.auto`.
    Points outside the bounds are dropped (ObservedMap would clamp them onto the border).
    ``ignore_boxes`` (centre, size) pairs remove points of movable objects, as the
    simulator's own map ignores them.
    """

    def __init__(self, bounds, resolution: float = 0.1, agent_radius: float = 0.25,
                 obstacle_band=(0.1, 1.9), step: int = 4, max_range: float | None = 10.0,
                 tile: int | None = None):
        self.spec = MapSpec.auto(bounds, resolution, tile)
        self.step = int(step)
        self.max_range = max_range
        self.map = ObservedMap(self.spec, agent_radius, tuple(obstacle_band), stride=1)
        self.frames = 0

    def in_bounds(self, points: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.spec.bounds
        x, y = points[..., 0], points[..., 1]
        return (x >= x0) & (x < x1) & (y >= y0) & (y < y1)

    def integrate_points(self, points: np.ndarray, ignore_boxes=()) -> None:
        pts = np.array(points, float, copy=True)
        drop = ~self.in_bounds(np.nan_to_num(pts, nan=np.inf))
        for center, size in ignore_boxes:
            half = np.asarray(size, float) / 2 + 0.05
            inside = np.all(np.abs(pts - np.asarray(center, float)) <= half, axis=-1)
            drop |= inside
        pts[drop] = np.nan
        self.map.integrate(pts, stride=1)
        self.frames += 1

    def integrate_depth(self, depth, K, T_map_cam, ignore_boxes=()) -> np.ndarray:
        """Add one depth image; returns its (subsampled) map-frame points."""
        pts = depth_points(depth, K, T_map_cam, self.step, self.max_range)
        self.integrate_points(pts, ignore_boxes)
        return pts

    def clear_boxes(self, boxes, pad: float = 0.05) -> None:
        """Forget obstacle evidence under the footprints of (centre, size) boxes: objects
        recognised only after their first depth frame marked them."""
        x0, y0, _, _ = self.spec.bounds
        r = self.spec.resolution
        h, w = self.spec.shape
        for center, size in boxes:
            lo = np.asarray(center, float)[:2] - np.asarray(size, float)[:2] / 2 - pad
            hi = np.asarray(center, float)[:2] + np.asarray(size, float)[:2] / 2 + pad
            j0, i0 = max(0, int(np.floor((lo[0] - x0) / r))), max(0, int(np.floor((lo[1] - y0) / r)))
            j1, i1 = min(w, int(np.floor((hi[0] - x0) / r)) + 1), min(h, int(np.floor((hi[1] - y0) / r)) + 1)
            if i1 > i0 and j1 > j0:
                self.map.hits[i0:i1, j0:j1] = 0
        self.map._blocked = None

    def occupancy(self, window: Window | None = None) -> np.ndarray:
        """int8 (rows = y, cols = x) with -1 unknown, 0 free, 100 occupied; of ``window``
        (None: the whole map)."""
        return self.map.occupancy(window)
