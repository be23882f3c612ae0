"""Maps that scale: a map spec from the benchmark and tiled (sparse) 2-D layers.

* :class:`MapSpec` -- a :class:`~hazard_sim.navigation.grid.GridSpec` (bounds, resolution)
  plus an optional ``tile`` size in cells. Without a tile size a map is dense (one numpy
  array, as 0.1 m indoor maps have always been); with one it is tiled.
* :class:`TiledLayer` -- a 2-D layer over a MapSpec stored as a dict of ``tile x tile``
  numpy arrays, each allocated on its first write; unallocated cells read as ``fill``.
  It indexes like a 2-D array with global cell indices: integer index arrays
  (``layer[i, j]``, ``layer[i, j] = v``, ``layer[i, j] += 1`` with numpy's semantics) and
  slices (``layer[i0:i1, j0:j1]`` gives a dense copy; assigning writes a rectangle).
* :func:`new_layer` -- a dense array or a TiledLayer, as the spec says.
* :class:`HeightLayer` -- 2.5-D: the maximum height seen per cell (NaN = never seen).
* :class:`Window` and :func:`plan_in_window` -- a dense cell window of a large map (around
  the robot, or covering a start and a goal) for A* and nav_msgs/OccupancyGrid.

A 5 km x 5 km map at 0.5 m is 10^8 cells (400 MB as float32); tiled, it costs only the
tiles written (a 256 x 256 float32 tile is 256 KiB).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hazard_sim.navigation.grid import GridSpec, plan_path

#: cells per tile side when a spec asks for tiling without a size
DEFAULT_TILE = 256
#: maps with more cells than this are tiled by :meth:`MapSpec.auto`
DENSE_CELL_LIMIT = 4_000_000


@dataclass(frozen=True)
class MapSpec(GridSpec):
    """Bounds (xmin, ymin, xmax, ymax), square cells of ``resolution`` m, and ``tile`` cells
    per tile side (None: a dense map). Cell (i, j) is row i (y), column j (x)."""

    tile: int | None = None

    def __post_init__(self):
        if not self.resolution > 0:
            raise ValueError(f"map resolution must be > 0 m, got {self.resolution}")
        x0, y0, x1, y1 = self.bounds
        if not (x1 > x0 and y1 > y0):
            raise ValueError(f"empty map bounds {self.bounds}")
        if self.tile is not None and self.tile < 1:
            raise ValueError(f"tile size must be >= 1 cell, got {self.tile}")

    @classmethod
    def auto(cls, bounds, resolution: float, tile: int | None = None,
             dense_limit: int = DENSE_CELL_LIMIT) -> "MapSpec":
        """A spec over ``bounds``: tiled with ``tile`` cells if given (0: dense), else tiled
        with :data:`DEFAULT_TILE` only when the map has more than ``dense_limit`` cells."""
        spec = cls(tuple(float(b) for b in bounds), float(resolution))
        if tile is None:
            h, w = spec.shape
            tile = DEFAULT_TILE if h * w > dense_limit else 0
        return cls(spec.bounds, spec.resolution, int(tile) or None)

    @classmethod
    def from_extent(cls, center, size, resolution: float, tile: int | None = None) -> "MapSpec":
        """A spec of ``size`` (sx, sy) m centred on ``center`` (x, y)."""
        cx, cy = (float(c) for c in center[:2])
        sx, sy = (float(s) for s in size[:2])
        return cls((cx - sx / 2, cy - sy / 2, cx + sx / 2, cy + sy / 2), float(resolution), tile)

    @property
    def tiled(self) -> bool:
        return self.tile is not None

    @property
    def cells(self) -> int:
        h, w = self.shape
        return h * w

    def cells_of(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, inside) of (..., 2) points, not clipped; ``inside``: within the bounds."""
        xy = np.asarray(xy, float)
        i = np.floor((xy[..., 1] - self.bounds[1]) / self.resolution).astype(np.int64)
        j = np.floor((xy[..., 0] - self.bounds[0]) / self.resolution).astype(np.int64)
        h, w = self.shape
        return i, j, (i >= 0) & (i < h) & (j >= 0) & (j < w)

    def window(self, i0: int, j0: int, h: int, w: int) -> "Window":
        """The window of rows i0..i0+h, columns j0..j0+w, clipped to the map."""
        H, W = self.shape
        i1, j1 = min(i0 + h, H), min(j0 + w, W)
        i0, j0 = max(i0, 0), max(j0, 0)
        if i1 <= i0 or j1 <= j0:
            raise ValueError(f"window rows {i0}..{i1}, columns {j0}..{j1} lies outside the map {H} x {W}")
        return Window(self, i0, j0, i1 - i0, j1 - j0)

    def window_around(self, xy, half_size: float) -> "Window":
        """A window of about 2 * ``half_size`` m square centred on the cell of ``xy``."""
        return self.window_covering([xy], half_size)

    def window_covering(self, points, margin: float) -> "Window":
        """The smallest window holding the cells of ``points`` plus ``margin`` m around them."""
        i, j, _ = self.cells_of(np.asarray(points, float).reshape(-1, 2))
        m = int(np.ceil(margin / self.resolution))
        i0, j0 = int(i.min()) - m, int(j.min()) - m
        return self.window(i0, j0, int(i.max()) + m + 1 - i0, int(j.max()) + m + 1 - j0)


@dataclass(frozen=True)
class Window:
    """Rows ``i0 .. i0 + h`` and columns ``j0 .. j0 + w`` of a map: a dense sub-grid."""

    spec: MapSpec
    i0: int
    j0: int
    h: int
    w: int

    @property
    def shape(self) -> tuple[int, int]:
        return self.h, self.w

    @property
    def slices(self) -> tuple[slice, slice]:
        return slice(self.i0, self.i0 + self.h), slice(self.j0, self.j0 + self.w)

    @property
    def grid(self) -> GridSpec:
        """The window as a GridSpec (its origin is the window's corner): for
        nav_msgs/OccupancyGrid and the dense grid functions."""
        x0, y0, r = self.spec.bounds[0], self.spec.bounds[1], self.spec.resolution
        return GridSpec((x0 + self.j0 * r, y0 + self.i0 * r, x0 + (self.j0 + self.w) * r,
                         y0 + (self.i0 + self.h) * r), r)

    def local(self, cell) -> tuple[int, int]:
        return int(cell[0]) - self.i0, int(cell[1]) - self.j0

    def local_cell_of(self, xy) -> tuple[int, int] | None:
        """Window cell of a world point; None outside the window."""
        i, j, _ = self.spec.cells_of(np.asarray(xy, float)[:2])
        li, lj = self.local((i, j))
        return (li, lj) if 0 <= li < self.h and 0 <= lj < self.w else None

    def padded(self, cells: int) -> "Window":
        return self.spec.window(self.i0 - cells, self.j0 - cells, self.h + 2 * cells, self.w + 2 * cells)


def new_layer(spec: GridSpec, dtype, fill=0):
    """A layer over ``spec``: a dense numpy array, or a :class:`TiledLayer` for a tiled MapSpec."""
    if getattr(spec, "tile", None):
        return TiledLayer(spec, dtype, fill)
    return np.full(spec.shape, fill, dtype)


def region(layer, window: Window | None) -> np.ndarray:
    """The cells of ``layer`` (dense array or TiledLayer) in ``window`` (None: all) as an array."""
    return layer[...] if window is None else layer[window.slices]


class TiledLayer:
    """A 2-D layer of a tiled :class:`MapSpec` (see the module docstring)."""

    def __init__(self, spec: MapSpec, dtype, fill=0):
        self.spec = spec
        self.tile = int(spec.tile or DEFAULT_TILE)
        self.dtype = np.dtype(dtype)
        self.fill = self.dtype.type(fill)
        self.shape = spec.shape
        self.tiles: dict[tuple[int, int], np.ndarray] = {}

    @property
    def nbytes(self) -> int:
        return sum(t.nbytes for t in self.tiles.values())

    def _tile(self, key) -> np.ndarray:
        t = self.tiles.get(key)
        if t is None:
            t = self.tiles[key] = np.full((self.tile, self.tile), self.fill, self.dtype)
        return t

    def _groups(self, i: np.ndarray, j: np.ndarray):
        """(tile key, positions in i/j, local rows, local cols) per tile touched."""
        h, w = self.shape
        if i.size and (i.min() < 0 or j.min() < 0 or i.max() >= h or j.max() >= w):
            raise IndexError(f"cell index outside the map {h} x {w}")
        ti, tj = i // self.tile, j // self.tile
        key = ti * ((w + self.tile - 1) // self.tile) + tj
        order = np.argsort(key, kind="stable")
        starts = np.flatnonzero(np.diff(key[order], prepend=-1)) if order.size else order
        for a, b in zip(starts, list(starts[1:]) + [order.size]):
            sel = order[a:b]
            k = (int(ti[sel[0]]), int(tj[sel[0]]))
            yield k, sel, i[sel] - k[0] * self.tile, j[sel] - k[1] * self.tile

    @staticmethod
    def _is_rect(index) -> bool:
        return index is Ellipsis or (isinstance(index, tuple) and all(isinstance(s, slice) for s in index))

    def _rect(self, index) -> tuple[int, int, int, int]:
        if index is Ellipsis:
            index = (slice(None), slice(None))
        (i0, i1, si), (j0, j1, sj) = (s.indices(n) for s, n in zip(index, self.shape))
        if si != 1 or sj != 1:
            raise IndexError("TiledLayer slices take no step")
        return i0, max(i1, i0), j0, max(j1, j0)

    def _tiles_in(self, i0, i1, j0, j1):
        """(tile key, tile rows, tile cols, out rows, out cols) for the rectangle's tiles."""
        T = self.tile
        for ti in range(i0 // T, (i1 - 1) // T + 1 if i1 > i0 else i0 // T):
            for tj in range(j0 // T, (j1 - 1) // T + 1 if j1 > j0 else j0 // T):
                a, b = max(i0, ti * T), min(i1, (ti + 1) * T)
                c, d = max(j0, tj * T), min(j1, (tj + 1) * T)
                yield ((ti, tj), slice(a - ti * T, b - ti * T), slice(c - tj * T, d - tj * T),
                       slice(a - i0, b - i0), slice(c - j0, d - j0))

    def _all_fill(self, values: np.ndarray) -> bool:
        if self.dtype.kind == "f" and np.isnan(self.fill):
            return bool(np.isnan(values).all())
        return bool((values == self.fill).all())

    def __getitem__(self, index):
        if self._is_rect(index):
            i0, i1, j0, j1 = self._rect(index)
            out = np.full((i1 - i0, j1 - j0), self.fill, self.dtype)
            for key, ti, tj, oi, oj in self._tiles_in(i0, i1, j0, j1):
                if key in self.tiles:
                    out[oi, oj] = self.tiles[key][ti, tj]
            return out
        i, j = (np.asarray(a, np.int64) for a in index)
        i, j = np.broadcast_arrays(i, j)
        out = np.full(i.shape, self.fill, self.dtype)
        flat_i, flat_j, flat_out = i.reshape(-1), j.reshape(-1), out.reshape(-1)
        for key, sel, li, lj in self._groups(flat_i, flat_j):
            if key in self.tiles:
                flat_out[sel] = self.tiles[key][li, lj]
        return out if out.ndim else out[()]

    def __setitem__(self, index, values) -> None:
        if self._is_rect(index):
            i0, i1, j0, j1 = self._rect(index)
            v = np.broadcast_to(np.asarray(values, self.dtype), (i1 - i0, j1 - j0))
            for key, ti, tj, oi, oj in self._tiles_in(i0, i1, j0, j1):
                part = v[oi, oj]
                if key in self.tiles or not self._all_fill(part):    # writing the fill allocates nothing
                    self._tile(key)[ti, tj] = part
            return
        i, j = (np.asarray(a, np.int64) for a in index)
        i, j = np.broadcast_arrays(i, j)
        v = np.broadcast_to(np.asarray(values, self.dtype), i.shape).reshape(-1)
        for key, sel, li, lj in self._groups(i.reshape(-1), j.reshape(-1)):
            self._tile(key)[li, lj] = v[sel]

    def maximum_at(self, i, j, values) -> None:
        """Per cell the maximum of the old value and all ``values`` aimed at it (NaN-aware:
        a NaN cell takes the value)."""
        i, j = (np.asarray(a, np.int64).reshape(-1) for a in (i, j))
        v = np.asarray(values, self.dtype).reshape(-1)
        for key, sel, li, lj in self._groups(i, j):
            t = self._tile(key)
            flat = li * self.tile + lj
            cells, inv = np.unique(flat, return_inverse=True)
            best = np.full(cells.size, -np.inf, self.dtype) if self.dtype.kind == "f" \
                else np.full(cells.size, np.iinfo(self.dtype).min, self.dtype)
            np.maximum.at(best, inv, v[sel])
            old = t.reshape(-1)[cells]
            t.reshape(-1)[cells] = np.fmax(old, best)


class HeightLayer(TiledLayer):
    """2.5-D map: the highest point seen per cell (m), NaN where nothing was seen."""

    def __init__(self, spec: MapSpec):
        super().__init__(spec, np.float32, np.nan)

    def add_points(self, points: np.ndarray) -> int:
        """Add (..., 3) world points (non-finite and out-of-bounds ones are skipped);
        returns how many were used."""
        p = np.asarray(points, float).reshape(-1, 3)
        p = p[np.all(np.isfinite(p), axis=1)]
        i, j, inside = self.spec.cells_of(p[:, :2])
        self.maximum_at(i[inside], j[inside], p[inside, 2])
        return int(inside.sum())

    def blocked(self, window: Window, altitude: float, clearance: float = 0.0) -> np.ndarray:
        """Cells of ``window`` a body flying at ``altitude`` m cannot cross (terrain or
        obstacles higher than altitude - clearance); unseen cells are free."""
        heights = self[window.slices]
        return np.nan_to_num(heights, nan=-np.inf) > altitude - clearance


def plan_in_window(window: Window, blocked: np.ndarray, start_xy, goal_xy) -> np.ndarray | None:
    """A* (8-connected, geometric costs) on the dense ``blocked`` cells of ``window`` from
    ``start_xy`` to ``goal_xy``; world xy of the path's cell centres, None when there is no
    path or an end lies outside the window."""
    if blocked.shape != window.shape:
        raise ValueError(f"blocked cells {blocked.shape} do not match the window {window.shape}")
    start, goal = window.local_cell_of(start_xy), window.local_cell_of(goal_xy)
    if start is None or goal is None:
        return None
    cells = plan_path(blocked, start, [goal])
    if cells is None:
        return None
    c = np.asarray(cells, float)
    r = window.spec.resolution
    x0, y0 = window.spec.bounds[0], window.spec.bounds[1]
    return np.stack([x0 + (c[:, 1] + window.j0 + 0.5) * r, y0 + (c[:, 0] + window.i0 + 0.5) * r], axis=1)
