"""An occupancy map built from what the agent's depth camera has seen.

HAZARD's compressed ``walk_to`` plans with A* on a map built from the agent's
observations, not on the simulator's ground truth.  Cells start UNKNOWN and are
treated as free by the planner (optimistic); points seen between 0.1 m and the
agent's height mark obstacles, floor points mark free space; a bump (the body
could not move into a cell) also marks an obstacle.
"""
from __future__ import annotations

import numpy as np

from hazard_sim.navigation.grid import FREE, OCCUPIED, UNKNOWN, GridSpec, inflate


class ObservedMap:
    def __init__(self, spec: GridSpec, agent_radius: float, obstacle_band=(0.1, 1.9), stride: int = 2):
        self.spec = spec
        self.radius = agent_radius
        self.band = obstacle_band
        self.stride = stride
        self.hits = np.zeros(spec.shape, np.int32)      # obstacle evidence
        self.seen_free = np.zeros(spec.shape, bool)
        self.bumped = np.zeros(spec.shape, bool)
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

    def obstacles(self) -> np.ndarray:
        return (self.hits > 0) | self.bumped

    def blocked(self) -> np.ndarray:
        """Obstacles grown by the agent radius (cached until new evidence)."""
        if self._blocked is None:
            # an obstacle cell already reaches half a cell past its centre
            self._blocked = inflate(self.obstacles(), self.radius - self.spec.resolution / 2, self.spec.resolution)
        return self._blocked

    def occupancy(self) -> np.ndarray:
        """int8 grid with nav_msgs/OccupancyGrid values (-1 unknown, 0 free, 100 occupied)."""
        occ = np.full(self.spec.shape, UNKNOWN, np.int8)
        occ[self.seen_free] = FREE
        occ[self.obstacles()] = OCCUPIED
        return occ
