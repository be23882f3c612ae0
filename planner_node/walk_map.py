"""The embedded body's walking map, built over ROS (ROS-free).

The core's ``walk_to`` plans on :class:`hazard_sim.navigation.observed_map.ObservedMap`,
integrated from exactly the camera frames the body observes (each action's end, the looks
of ``explore`` / ``turn_by``, every ``render_every``-th frame of a walking action), every
second pixel, the pixels of entities and process geometry (instance ids from
``EFFECT_ID_BASE`` on) left out.  The mapping node's map is another one (every published
frame, every fourth pixel, a range limit), so a lock-step run that must walk as the
embedded one plans on this map instead: the decision node integrates every observation it
gives its agent (the same frames) and publishes the map as ``walk_map``; the navigation
node plans on it.

Points come from the published depth image, its intrinsics and the camera pose (the
simulator renders the same points; in float32, so a point exactly on a cell border may
fall on the other side, which is rare and moves an obstacle by one cell).
"""
from __future__ import annotations

import numpy as np

from hazard_sim.core.frames import EFFECT_ID_BASE
from hazard_sim.intrinsics import backproject
from hazard_sim.navigation.grid import GridSpec, release_start
from hazard_sim.navigation.observed_map import ObservedMap


class WalkMap:
    """:class:`ObservedMap` over ``bounds`` fed with observation dicts (``depth``, ``seg``,
    ``camera_K``, ``camera_pose``), as the embedded env feeds its own."""

    def __init__(self, bounds, resolution: float = 0.1, radius: float = 0.25, stride: int = 2):
        if resolution <= 0:
            raise ValueError(f"resolution must be > 0, got {resolution}")
        self.spec = GridSpec(tuple(float(b) for b in bounds), float(resolution))
        self.radius = float(radius)
        self.map = ObservedMap(self.spec, self.radius, stride=stride)
        self.frames: set[int] = set()

    def integrate(self, obs: dict, unrecognised: np.ndarray | None = None) -> bool:
        """Add one observation (once per frame); returns whether it was new. ``unrecognised``
        (H, W) ids of things too small to be recognised (perception's instance image marks
        them), 0 elsewhere: the body's map counts them by their ids as the embedded body's map
        counts every pixel (entities and process geometry are movable, the scene is not)."""
        frame = int(obs["frame"])
        if frame in self.frames:
            return False
        self.frames.add(frame)
        depth = np.asarray(obs["depth"], np.float32)
        depth = np.where(np.isfinite(depth) & (depth > 0), depth, np.float32(np.nan))    # 0: no return
        points = backproject(depth, np.asarray(obs["camera_K"], float), np.asarray(obs["camera_pose"], float))
        movable = np.asarray(obs["seg"]) >= EFFECT_ID_BASE
        if unrecognised is not None:
            movable |= np.asarray(unrecognised) >= EFFECT_ID_BASE
        self.map.integrate(points, movable)
        return True

    def occupancy(self) -> np.ndarray:
        """int8 grid, nav_msgs/OccupancyGrid values (-1 unknown, 0 free, 100 obstacle)."""
        return self.map.occupancy()

    def blocked_from(self, xy) -> np.ndarray:
        """Where the body's centre may not go, planning from ``xy``: obstacles grown by the
        radius less half a cell, the margin around the start released (the core's walk_to)."""
        return release_start(self.map.blocked(), self.map.obstacles(), self.spec.to_cell(xy), self.radius,
                             self.spec.resolution)


__all__ = ["WalkMap"]
