"""2-D occupancy grids and shortest paths on them.

Path search uses scikit-image's minimum-cost-path engine (``skimage.graph.MCP_Geometric``,
a compiled Dijkstra with diagonal moves costed by their length), so neither A*
nor distance fields are Python loops over cells.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage
from skimage.graph import MCP_Geometric

from hazard_sim.geometry import Box

FREE, OCCUPIED, UNKNOWN = 0, 100, -1   # nav_msgs/OccupancyGrid conventions


@dataclass(frozen=True)
class GridSpec:
    """A grid over ``bounds`` (xmin, ymin, xmax, ymax) with square cells of ``resolution`` m.

    Cell (i, j) is row i (y) and column j (x), its centre at
    (xmin + (j + 0.5) r, ymin + (i + 0.5) r), the layout of nav_msgs/OccupancyGrid.
    """

    bounds: tuple[float, float, float, float]
    resolution: float = 0.1

    @property
    def shape(self) -> tuple[int, int]:
        x0, y0, x1, y1 = self.bounds
        return (int(np.ceil((y1 - y0) / self.resolution - 1e-9)),
                int(np.ceil((x1 - x0) / self.resolution - 1e-9)))

    def to_cell(self, xy) -> tuple[int, int]:
        x0, y0 = self.bounds[0], self.bounds[1]
        h, w = self.shape
        i = int(np.clip(np.floor((xy[1] - y0) / self.resolution), 0, h - 1))
        j = int(np.clip(np.floor((xy[0] - x0) / self.resolution), 0, w - 1))
        return i, j

    def to_cells(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised :meth:`to_cell` for (..., 2) points; also returns nothing out of range."""
        h, w = self.shape
        i = np.floor((xy[..., 1] - self.bounds[1]) / self.resolution).astype(np.int64)
        j = np.floor((xy[..., 0] - self.bounds[0]) / self.resolution).astype(np.int64)
        return np.clip(i, 0, h - 1), np.clip(j, 0, w - 1)

    def to_world(self, cell) -> np.ndarray:
        i, j = cell
        return np.array([self.bounds[0] + (j + 0.5) * self.resolution,
                         self.bounds[1] + (i + 0.5) * self.resolution])

    def centres(self) -> np.ndarray:
        """World xy of every cell centre, shape (h, w, 2)."""
        h, w = self.shape
        xs = self.bounds[0] + (np.arange(w) + 0.5) * self.resolution
        ys = self.bounds[1] + (np.arange(h) + 0.5) * self.resolution
        return np.stack(np.meshgrid(xs, ys), axis=-1)


def rasterize_boxes(spec: GridSpec, boxes: list[Box], pad: float = 0.0) -> np.ndarray:
    """Boolean grid, True where a cell centre lies in a box footprint grown by ``pad``."""
    occ = np.zeros(spec.shape, bool)
    centres = spec.centres()
    for b in boxes:
        fp = b.footprint()
        lo, hi = fp.min(0) - pad, fp.max(0) + pad
        (i0, j0), (i1, j1) = spec.to_cell(lo), spec.to_cell(hi)
        sub = centres[i0:i1 + 1, j0:j1 + 1] - b.center[:2]
        local = sub @ b.rot[:2, :2]          # world -> box frame (rot is orthonormal)
        inside = (np.abs(local[..., 0]) <= b.half[0] + pad) & (np.abs(local[..., 1]) <= b.half[1] + pad)
        occ[i0:i1 + 1, j0:j1 + 1] |= inside
    return occ


def inflate(occ: np.ndarray, radius_m: float, resolution: float) -> np.ndarray:
    """Grow obstacles by a disk of ``radius_m`` (the robot's radius)."""
    r = int(np.ceil(radius_m / resolution))
    if r <= 0:
        return occ.copy()
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    return ndimage.binary_dilation(occ, structure=(xx ** 2 + yy ** 2) <= r * r)


def _costs(blocked: np.ndarray) -> np.ndarray:
    return np.where(blocked, np.inf, 1.0)


def distance_field(blocked: np.ndarray, start, resolution: float) -> np.ndarray:
    """Geodesic distance (m) from ``start`` cell to every cell; inf where unreachable."""
    cost = _costs(blocked)
    cost[start] = 1.0  # the robot may stand in an inflated margin; let it leave
    mcp = MCP_Geometric(cost, fully_connected=True)
    dist, _ = mcp.find_costs([start])
    dist = dist * resolution
    dist[~np.isfinite(cost)] = np.inf
    dist[start] = 0.0
    return dist


def plan_path(blocked: np.ndarray, start, goals: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Shortest 8-connected path from ``start`` to the nearest of ``goals`` (cells); None if none."""
    goals = [g for g in goals if not blocked[g]]
    if not goals:
        return None
    cost = _costs(blocked)
    cost[start] = 1.0
    mcp = MCP_Geometric(cost, fully_connected=True)
    dist, _ = mcp.find_costs([start], goals, find_all_ends=False)
    reached = [g for g in goals if np.isfinite(dist[g])]
    if not reached:
        return None
    best = min(reached, key=lambda g: dist[g])
    return [tuple(c) for c in mcp.traceback(best)]


def goal_cells_near(spec: GridSpec, blocked: np.ndarray, xy, radius: float) -> list[tuple[int, int]]:
    """Free cells whose centre lies within ``radius`` m of ``xy``."""
    r = int(np.ceil(radius / spec.resolution))
    ci, cj = spec.to_cell(xy)
    h, w = blocked.shape
    i0, i1, j0, j1 = max(ci - r, 0), min(ci + r + 1, h), max(cj - r, 0), min(cj + r + 1, w)
    centres = spec.centres()[i0:i1, j0:j1]
    near = np.linalg.norm(centres - np.asarray(xy[:2]), axis=-1) <= radius
    near &= ~blocked[i0:i1, j0:j1]
    ii, jj = np.nonzero(near)
    return [(int(i + i0), int(j + j0)) for i, j in zip(ii, jj)]


def simplify_path(spec: GridSpec, path: list[tuple[int, int]]) -> np.ndarray:
    """World waypoints of a cell path, keeping only the corners."""
    pts = np.array([spec.to_world(c) for c in path])
    if len(pts) <= 2:
        return pts
    d = np.diff(pts, axis=0)
    turn = np.any(np.abs(np.diff(np.sign(np.round(d / spec.resolution)), axis=0)) > 0, axis=1)
    keep = np.concatenate([[True], turn, [True]])
    return pts[keep]


def release_start(blocked: np.ndarray, obstacles: np.ndarray, start, radius_m: float,
                  resolution: float) -> np.ndarray:
    """A copy of ``blocked`` where the cells around ``start`` that are only in the inflated
    margin (not within one cell of a real obstacle) are free: the robot already stands
    there, so a path may lead out through them."""
    out = blocked.copy()
    i, j = start
    r = int(np.ceil(radius_m / resolution)) + 1
    h, w = blocked.shape
    win = (slice(max(i - r, 0), min(i + r + 1, h)), slice(max(j - r, 0), min(j + r + 1, w)))
    near_obstacle = inflate(obstacles[win], resolution, resolution)
    out[win] &= near_obstacle
    out[start] = False
    return out
