"""ROS-free costmaps in Nav2's conventions (costmap_2d), over the occupancy map the
navigation plans on (planner_node/navigation.py).

* costs: 0 free, 253 INSCRIBED (the robot's centre there touches an obstacle), 254 LETHAL (an
  obstacle), 255 NO_INFORMATION (unknown); between, Nav2's inflation layer's law: ``252 *
  exp(-cost_scaling_factor * (d - inscribed_radius))`` for a cell ``d`` metres from the nearest
  obstacle, up to ``inflation_radius``;
* :func:`occupancy_from_costs`: the ``OccupancyGrid`` values Nav2's costmap publisher sends
  (0 -> 0, 253 -> 99, 254 -> 100, 255 -> -1, others ``1 + 97 (c - 1) / 251``);
* :class:`ClearableMap`: the map with the clears of Nav2's clear services (entirely, a square
  window around a point, everything outside such a window).  The map of this stack is built
  from the sensors (mapping_node), so a clear acts as Nav2's clears on its obstacle layers:
  the cleared cells are free until the next map (the next observation) marks them again.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import ndimage

from planner_node.navigation import OccupancyMap

FREE, INSCRIBED, LETHAL, NO_INFORMATION = 0, 253, 254, 255


def costs(omap: OccupancyMap, inscribed_radius: float, inflation_radius: float,
          cost_scaling_factor: float = 3.0, occupied_threshold: int = 50) -> np.ndarray:
    """uint8 Nav2 costs of ``omap`` (rows y, columns x) for a round robot."""
    data = omap.data
    lethal = data >= occupied_threshold
    unknown = data < 0
    if lethal.any():
        d = ndimage.distance_transform_edt(~lethal) * omap.resolution
    else:
        d = np.full(data.shape, np.inf)
    out = np.zeros(data.shape, np.uint8)
    ring = (d > inscribed_radius) & (d <= inflation_radius)
    out[ring] = np.clip(np.floor((INSCRIBED - 1) * np.exp(-cost_scaling_factor * (d[ring] - inscribed_radius))),
                        0, INSCRIBED - 1).astype(np.uint8)
    out[d <= inscribed_radius] = INSCRIBED
    out[unknown & (out == FREE)] = NO_INFORMATION
    out[lethal] = LETHAL
    return out


def occupancy_from_costs(cost: np.ndarray) -> np.ndarray:
    """int8 OccupancyGrid values of Nav2 costs (costmap_2d's publisher translation)."""
    c = cost.astype(np.int32)
    occ = 1 + (97 * (c - 1)) // 251
    occ[c == FREE] = 0
    occ[c == INSCRIBED] = 99
    occ[c == LETHAL] = 100
    occ[c == NO_INFORMATION] = -1
    return occ.astype(np.int8)


def window(omap: OccupancyMap, centre, size: float) -> OccupancyMap:
    """The square part of ``omap`` of side ``size`` m centred on ``centre`` (cells outside
    the map are unknown): a rolling local costmap's window, aligned to the map's cells."""
    r = omap.resolution
    n = max(1, int(round(size / r)))
    i0 = int(math.floor((centre[1] - omap.origin[1]) / r)) - n // 2
    j0 = int(math.floor((centre[0] - omap.origin[0]) / r)) - n // 2
    out = np.full((n, n), -1, np.int16)
    h, w = omap.shape
    si, sj = slice(max(i0, 0), min(i0 + n, h)), slice(max(j0, 0), min(j0 + n, w))
    if si.start < si.stop and sj.start < sj.stop:
        out[si.start - i0:si.stop - i0, sj.start - j0:sj.stop - j0] = omap.data[si, sj]
    return OccupancyMap(out, r, (omap.origin[0] + j0 * r, omap.origin[1] + i0 * r))


class ClearableMap:
    """The occupancy map with clears applied (see the module docstring)."""

    def __init__(self):
        self.map: OccupancyMap | None = None
        self._cleared: np.ndarray | None = None       # cells cleared since this map came
        self.version = 0                              # changes with every map and every clear

    def set_map(self, omap: OccupancyMap) -> None:
        self.map, self._cleared = omap, None
        self.version += 1

    def effective(self) -> OccupancyMap | None:
        """The map with the cleared cells free (the same object while nothing was cleared)."""
        if self.map is None or self._cleared is None:
            return self.map
        data = self.map.data.copy()
        data[self._cleared] = FREE
        return OccupancyMap(data, self.map.resolution, self.map.origin)

    def _square(self, centre, size: float) -> np.ndarray:
        m = self.map
        h, w = m.shape
        ys = m.origin[1] + (np.arange(h) + 0.5) * m.resolution
        xs = m.origin[0] + (np.arange(w) + 0.5) * m.resolution
        half = size / 2.0
        return (np.abs(ys - centre[1]) <= half)[:, None] & (np.abs(xs - centre[0]) <= half)[None, :]

    def _clear(self, mask: np.ndarray) -> int:
        """Clear ``mask``; returns how many obstacle or unknown cells it freed."""
        data = self.map.data
        before = self._cleared if self._cleared is not None else np.zeros(data.shape, bool)
        freed = int(np.count_nonzero(mask & ~before & (data != FREE)))
        self._cleared = before | mask
        self.version += 1
        return freed

    def clear_all(self) -> int:
        if self.map is None:
            return 0
        return self._clear(np.ones(self.map.shape, bool))

    def clear_around(self, centre, size: float) -> int:
        """Nav2's ClearCostmapAroundRobot: the square of side ``size`` centred there."""
        if self.map is None:
            return 0
        return self._clear(self._square(centre, size))

    def clear_except(self, centre, size: float) -> int:
        """Nav2's ClearCostmapExceptRegion: everything outside that square."""
        if self.map is None:
            return 0
        return self._clear(~self._square(centre, size))


__all__ = ["ClearableMap", "costs", "occupancy_from_costs", "window", "FREE", "INSCRIBED", "LETHAL",
           "NO_INFORMATION"]
