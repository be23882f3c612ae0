"""HAZARD's flood surface: rising from one wall, sloped, up to 1.5 m.

The surface rises 0.01 m every 10 frames at the source wall up to 1.5 m and is
sloped at 3 degrees away from the source, so the water advances across the
room.  Once the source side has reached 1.5 m the far side keeps rising at the
same rate until the surface is flat.  Object states and damage (on first contact
with the water) are the flood hazard's (``flood_hazard.flood_state``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FloodParams:
    rise_per_tick: float = 0.01
    tick_frames: int = 10
    max_level: float = 1.5
    slope_deg: float = 3.0
    flow_speed: float = 0.3    # m/s of the water along the flow direction where it is deep


WALL_DIRECTIONS = {"w": (1.0, 0.0), "e": (-1.0, 0.0), "s": (0.0, 1.0), "n": (0.0, -1.0)}


class FloodSurface:
    def __init__(self, bounds, source_wall: str, params: FloodParams = FloodParams()):
        if source_wall not in WALL_DIRECTIONS:
            raise ValueError(f"unknown source wall {source_wall!r}: expected n, s, e or w")
        self.p = params
        x0, y0, x1, y1 = bounds
        self.direction = np.array(WALL_DIRECTIONS[source_wall])
        self.origin = np.array({"w": (x0, y0), "e": (x1, y0), "s": (x0, y0), "n": (x0, y1)}[source_wall])
        self.raw = 0.0           # the source-side height if it never stopped rising

    def set_frame(self, frame: int) -> None:
        self.raw = self.p.rise_per_tick * (frame // self.p.tick_frames)

    @property
    def level(self) -> float:
        """Height of the surface at the source wall (m)."""
        return min(self.raw, self.p.max_level)

    @property
    def slope_offset(self) -> float:
        """How much of the slope the far side has caught up since the source reached max."""
        return max(0.0, self.raw - self.p.max_level)

    def height_at(self, xy) -> np.ndarray:
        """Water surface height above the floor at points (..., 2), 0 where dry."""
        xy = np.asarray(xy, float)
        d = np.maximum((xy - self.origin) @ self.direction, 0.0)
        drop = np.maximum(np.tan(np.radians(self.p.slope_deg)) * d - self.slope_offset, 0.0)
        return np.maximum(self.level - drop, 0.0)

    def water_velocity(self, xy) -> np.ndarray:
        """Flow velocity (m/s, 3-D) at points (N,2): along the flow direction where wet."""
        wet = self.height_at(xy) > 0
        v = np.zeros((len(xy), 3))
        v[wet, :2] = self.p.flow_speed * self.direction
        return v
