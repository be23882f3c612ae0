"""Field layers of the map (ROS-free): a field image (a process's field as the camera sees
it, e.g. a temperature in C or a water level in m) back-projected with the depth image onto
the grid, and an object's reading of a field image.

* :class:`LayerScale` -- how a layer's values are packed into an OccupancyGrid (0..100);
* :class:`FieldLayer` -- a value per grid cell: per frame the maximum per cell, across
  frames the latest value (``peak`` keeps the maximum ever seen);
* :func:`field_reading` -- the median of a field image over where a map-frame box appears.

Which fields a benchmark offers, and their scales and topics, the benchmark declares
(:mod:`perception_node.map_plugins`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.navigation.grid import GridSpec
from hazard_sim.navigation.maps import Window, new_layer, region
from perception_node.projection import project_points

__all__ = ["LayerScale", "FieldLayer", "field_reading"]


@dataclass(frozen=True)
class LayerScale:
    """How a layer is packed into an OccupancyGrid: value = offset + scale * cell (0..100)."""

    unit: str
    offset: float
    scale: float

    def __post_init__(self):
        if not (math.isfinite(self.offset) and math.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"a layer scale needs a finite offset and a scale > 0, got {self.offset}, {self.scale}")

    def pack(self, values: np.ndarray) -> np.ndarray:
        out = np.full(values.shape, -1, np.int8)
        ok = np.isfinite(values)
        out[ok] = np.clip(np.rint((values[ok] - self.offset) / self.scale), 0, 100).astype(np.int8)
        return out

    def unpack(self, cells: np.ndarray) -> np.ndarray:
        cells = np.asarray(cells)
        return np.where(cells < 0, np.nan, self.offset + self.scale * cells.astype(float))

    def info(self) -> dict:
        return {"unit": self.unit, "offset": self.offset, "scale": self.scale,
                "unknown": -1, "formula": "value = offset + scale * cell (cells 0..100, -1 unknown)"}


class FieldLayer:
    """A field value per grid cell (NaN = never observed)."""

    def __init__(self, spec: GridSpec, name: str, scale: LayerScale):
        self.spec = spec
        self.name = name
        self.scale = scale
        self.values = new_layer(spec, np.float32, np.nan)     # dense, or tiled for a tiled MapSpec
        self.peak = new_layer(spec, np.float32, np.nan)
        self.updated = new_layer(spec, np.float64, np.nan)    # stamp of the last value per cell
        self.stamp: float | None = None

    def update(self, points: np.ndarray, image: np.ndarray, stamp: float) -> int:
        """Per cell, the maximum of this frame's values replaces the old one; returns the
        number of cells updated. ``points`` (..., 3) and ``image`` (...) align pixel for pixel."""
        p = np.asarray(points, float).reshape(-1, 3)
        v = np.asarray(image, np.float32).reshape(-1)
        x0, y0, x1, y1 = self.spec.bounds
        ok = np.isfinite(p[:, 0]) & np.isfinite(v)
        ok &= (p[:, 0] >= x0) & (p[:, 0] < x1) & (p[:, 1] >= y0) & (p[:, 1] < y1)
        if not ok.any():
            return 0
        i, j = self.spec.to_cells(p[ok, :2])
        w = self.spec.shape[1]
        cells, inv = np.unique(i * w + j, return_inverse=True)     # the cells this frame saw
        frame = np.full(cells.size, -np.inf, np.float32)
        np.maximum.at(frame, inv, v[ok])
        ci, cj = cells // w, cells % w
        self.values[ci, cj] = frame
        self.peak[ci, cj] = np.fmax(self.peak[ci, cj], frame)
        self.updated[ci, cj] = stamp
        self.stamp = stamp
        return int(cells.size)

    def value_at(self, xy) -> float:
        return float(self.values[self.spec.to_cell(xy)])

    def occupancy(self, window: Window | None = None) -> np.ndarray:
        return self.scale.pack(region(self.values, window))

    def info(self) -> dict:
        return self.scale.info()


def field_reading(image: np.ndarray, K, T_map_cam, center, size, core: float = 0.5) -> float:
    """Median of a field image over the central ``core`` part of where a map-frame box
    (centre, size) appears in the image; NaN when it is not in view."""
    c, s = np.asarray(center, float), np.asarray(size, float)
    corners = c + 0.5 * s * np.array([[a, b, d] for a in (-1, 1) for b in (-1, 1) for d in (-1, 1)])
    uv, z = project_points(np.vstack([c, corners]), np.asarray(K, float), T_map_cam)
    if not np.all(z > 1e-6):
        return float("nan")
    h, w = image.shape[:2]
    (uc, vc), ext = uv[0], uv[1:]
    hu = max(0.5, (ext[:, 0].max() - ext[:, 0].min()) * core / 2)
    hv = max(0.5, (ext[:, 1].max() - ext[:, 1].min()) * core / 2)
    u0, u1 = max(0, int(math.floor(uc - hu + 0.5))), min(w, int(math.floor(uc + hu + 0.5)) + 1)
    v0, v1 = max(0, int(math.floor(vc - hv + 0.5))), min(h, int(math.floor(vc + hv + 0.5)) + 1)
    if u1 <= u0 or v1 <= v0:
        return float("nan")
    patch = np.asarray(image[v0:v1, u0:u1], float)
    patch = patch[np.isfinite(patch)]
    return float(np.median(patch)) if patch.size else float("nan")
