"""An occupancy map built from what the agent's depth camera has seen.

A compressed "walk to" action plans with A* on a map built from the agent's
observations, not on the simulator's ground truth.  Cells start UNKNOWN and are
treated as free by the planner (optimistic); points seen between 0.1 m and the
agent's height mark obstacles, floor points mark free space; a bump (the body
could not move into a cell) also marks an obstacle.

The spec comes from the benchmark: a :class:`~hazard_sim.navigation.grid.GridSpec` (or an
untiled :class:`~hazard_sim.navigation.maps.MapSpec`) keeps dense numpy layers, as
0.1 m indoor maps always had; a tiled MapSpec keeps :class:`~hazard_sim.navigation.maps.TiledLayer`
layers, so a km-scale map costs only what was seen. The map-wide views (``obstacles()``,
``blocked()``, ``occupancy()``) take an optional :class:`~hazard_sim.navigation.maps.Window`
to get a dense piece of a large map.
"""
from __future__ import annotations

import numpy as np

from hazard_sim.navigation.grid import FREE, OCCUPIED, UNKNOWN, GridSpec, inflate
from hazard_sim.navigation.maps import Window, new_layer, region


class ObservedMap:
    def __init__(self, spec: GridSpec, agent_radius: float, obstacle_band=(0.1, 1.9), stride: int = 2):
        self.spec = spec
        self.radius = agent_radius
        self.band = obstacle_band
        self.stride = stride
        self.hits = new_layer(spec, np.int32, 0)          # obstacle evidence
        self.seen_free = new_layer(spec, bool, False)
        self.bumped = new_layer(spec, bool, False)
        self._blocked = None

    def integrate(self, points: np.ndarray, ignore_mask: np.ndarray | None = None,
                  stride: int | None = None) -> None:
        """Add a frame's world points (H,W,3); ``ignore_mask`` marks pixels of movable objects."""
        s = self.stride if stride is None else stride
        p = points[::s, ::s]
        ok = np.isfinite(p[..., 0])
        if ignore_mask is not None:
            ok &= ~ignore_mask[::s, ::s]
        p = p[ok]
        i, j = self.spec.to_cells(p[:, :2])
        z = p[:, 2]
        obst = (z > self.band[0]) & (z < self.band[1])
        self.hits[i[obst], j[obst]] += 1
        floor = z <= 0.05
        self.seen_free[i[floor], j[floor]] = True
        self._blocked = None

    def bump(self, xy, cells=()) -> None:
        """Mark the cell at ``xy`` and any other ``cells`` (touched solid cells) as obstacles."""
        self.bumped[self.spec.to_cell(xy)] = True
        for c in cells:
            self.bumped[c] = True
        self._blocked = None

    def obstacles(self, window: Window | None = None) -> np.ndarray:
        """Obstacle cells of the map, or of ``window``."""
        return (region(self.hits, window) > 0) | region(self.bumped, window)

    def blocked(self, window: Window | None = None) -> np.ndarray:
        """Obstacles grown by the agent radius (the whole map's is cached until new evidence;
        a window's takes obstacles up to the radius outside it into account)."""
        # an obstacle cell already reaches half a cell past its centre
        grow, res = self.radius - self.spec.resolution / 2, self.spec.resolution
        if window is None:
            if self._blocked is None:
                self._blocked = inflate(self.obstacles(), grow, res)
            return self._blocked
        pad = window.padded(int(np.ceil(max(grow, 0.0) / res)))
        grown = inflate(self.obstacles(pad), grow, res)
        return grown[window.i0 - pad.i0:window.i0 - pad.i0 + window.h, window.j0 - pad.j0:window.j0 - pad.j0 + window.w]

    def occupancy(self, window: Window | None = None) -> np.ndarray:
        """int8 grid with nav_msgs/OccupancyGrid values (-1 unknown, 0 free, 100 occupied)."""
        shape = self.spec.shape if window is None else window.shape
        occ = np.full(shape, UNKNOWN, np.int8)
        occ[region(self.seen_free, window)] = FREE
        occ[self.obstacles(window)] = OCCUPIED
        return occ
