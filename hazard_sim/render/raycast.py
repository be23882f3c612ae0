"""Fast CPU renderer: Open3D (Embree) ray casting plus a few numpy gathers.

Every box becomes 12 triangles of one merged triangle mesh; a hit's primitive
(triangle) id then indexes small per-triangle tables holding the instance id
and the already shaded colour (Lambert with a fixed light is view independent,
so shading is baked per triangle). Per frame the work is: write the rays
(their directions are separable in pixel row and column), cast them, and do
two table lookups. World points are only unprojected when asked for.

Open3D cannot move geometry in a ``RaycastingScene``, so ``set_dynamic``
rebuilds the scene (static triangles are cached; rebuilding a ~150 box scene
costs well under a millisecond, see ``benchmarks/bench_render.py``).

A renderer reuses one ray buffer: use one renderer per thread.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Sequence

import numpy as np
import open3d as o3d

from ..geometry import Box
from .camera import CameraSpec

# Unit-cube corners, index = 4*ix + 2*iy + iz with coordinates in {-1, +1}.
_CORNERS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)],
                    np.float64)
# Faces as (local outward normal, 4 corner indices in cyclic order).
_FACES = [((1, 0, 0), (4, 6, 7, 5)), ((-1, 0, 0), (0, 1, 3, 2)),
          ((0, 1, 0), (2, 3, 7, 6)), ((0, -1, 0), (0, 4, 5, 1)),
          ((0, 0, 1), (1, 5, 7, 3)), ((0, 0, -1), (0, 2, 6, 4))]


def _box_template():
    """(12, 3) triangle corner indices wound counter-clockwise seen from outside,
    and the (12, 3) local outward normal of each triangle."""
    tris, normals = [], []
    for n, (a, b, c, d) in _FACES:
        for tri in ((a, b, c), (a, c, d)):
            p = _CORNERS[list(tri)]
            if np.dot(np.cross(p[1] - p[0], p[2] - p[0]), n) < 0:
                tri = tri[::-1]
            tris.append(tri)
            normals.append(n)
    return np.array(tris, np.int32), np.array(normals, np.float64)


_TRIS, _NORMALS = _box_template()
TRIS_PER_BOX = len(_TRIS)

# Fixed light (world frame, pointing towards the light) and shading weights.
LIGHT_DIR = np.array([0.35, 0.25, 1.0]) / np.linalg.norm([0.35, 0.25, 1.0])
AMBIENT = 0.45
DIFFUSE = 0.55
BACKGROUND = np.array([0, 0, 0], np.uint8)  # colour where nothing is hit


def boxes_to_mesh(boxes: Sequence[Box]):
    """Vertices (8N, 3) float32, triangles (12N, 3) uint32, world normals (12N, 3)."""
    n = len(boxes)
    if n == 0:
        return (np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32),
                np.zeros((0, 3)))
    centers = np.array([b.center for b in boxes], float)
    halves = np.array([b.half for b in boxes], float)
    rots = np.array([b.rot for b in boxes], float)
    local = _CORNERS[None] * halves[:, None, :]                       # (N, 8, 3)
    verts = np.einsum("nij,nkj->nki", rots, local) + centers[:, None]  # (N, 8, 3)
    tris = _TRIS[None] + 8 * np.arange(n, dtype=np.int32)[:, None, None]
    normals = np.einsum("nij,kj->nki", rots, _NORMALS)                # (N, 12, 3)
    return (verts.reshape(-1, 3).astype(np.float32), tris.reshape(-1, 3).astype(np.uint32),
            normals.reshape(-1, 3))


def _lambert(normals: np.ndarray) -> np.ndarray:
    return AMBIENT + DIFFUSE * np.clip(normals @ LIGHT_DIR, 0.0, None)


@dataclass
class WaterSurface:
    """A translucent water body under the height field ``z = height_at(xy)``.

    The default model is a flat pool at height ``level`` behind the source
    (``dot(xy - origin, direction) <= 0``) that slopes down with angle
    ``slope_rad >= 0`` away from it: ``h = level - tan(slope_rad) * d`` with
    ``d = max(0, dot(xy - origin, direction))``, clipped at ``h >= 0`` (no
    water where it would be <= 0). ``direction`` is normalised on creation.
    The water fills ``0 <= z < h(x, y)``, which is convex: the intersection
    of the half-spaces ``z < level``, ``z + tan(slope) * d < level`` and
    ``z >= 0``, so rays are clipped against it analytically.
    Subclasses with another height field must override ``height_xy`` and
    ``intersect``.
    """

    level: float
    origin: np.ndarray = field(default_factory=lambda: np.zeros(2))
    direction: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0]))
    slope_rad: float = 0.0
    color: np.ndarray = field(default_factory=lambda: np.array([40, 90, 160], np.uint8))
    alpha: float = 0.5

    def __post_init__(self):
        self.origin = np.asarray(self.origin, float).reshape(2)
        d = np.asarray(self.direction, float).reshape(2)
        self.direction = d / np.linalg.norm(d)
        self.color = np.asarray(self.color, np.uint8).reshape(3)
        if not 0.0 <= self.slope_rad < np.pi / 2:
            raise ValueError(f"slope_rad must be in [0, pi/2), got {self.slope_rad}")

    def height_at(self, xy: np.ndarray) -> np.ndarray:
        """Water surface height (m, >= 0) at points ``xy`` of shape (..., 2)."""
        xy = np.asarray(xy)
        return self.height_xy(xy[..., 0], xy[..., 1])

    def height_xy(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``height_at`` with the coordinates given as separate arrays."""
        (ox, oy), (ux, uy) = self.origin.tolist(), self.direction.tolist()  # python floats
        d = x * ux + y * uy - (ox * ux + oy * uy)            # keep float32 inputs float32
        h = self.level - float(np.tan(self.slope_rad)) * np.maximum(d, 0.0)
        return np.maximum(h, 0.0)

    def _half_spaces(self):
        """The water as ``n . p <= c`` for each (n, c)."""
        k = float(np.tan(self.slope_rad))
        planes = [((0.0, 0.0, 1.0), self.level), ((0.0, 0.0, -1.0), 0.0)]
        if k > 0.0:
            ux, uy = self.direction
            planes.append(((k * ux, k * uy, 1.0), self.level + k * (self.origin @ self.direction)))
        return planes

    def intersect(self, origin, dx: np.ndarray, dy: np.ndarray, dz: np.ndarray) -> np.ndarray:
        """Ray parameter ``t >= 0`` where the rays ``origin + t * (dx, dy, dz)``
        (one origin (3,), direction components as equally shaped float32
        arrays) first are in the water: 0 if the origin is under water, inf
        where the ray misses the water. Cyrus-Beck clipping against the
        half-spaces; the origin's side of each plane is a scalar test.
        """
        o = np.asarray(origin, float).reshape(3)
        if self.level <= 0.0:
            return np.full(np.shape(dz), np.inf, np.float32)
        t_in, t_out = np.float32(0.0), np.float32(np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            for (nx, ny, nz), c in self._half_spaces():
                den = dz * np.float32(nz)
                if nx or ny:
                    den += dx * np.float32(nx) + dy * np.float32(ny)
                num = c - (nx * o[0] + ny * o[1] + nz * o[2])  # < 0: origin outside
                t = np.float32(num) / den
                t = np.where(t > 0, t, np.float32(np.inf))  # the ray's one crossing, if ahead
                if num < 0:
                    t_in = np.maximum(t_in, t)                # must enter there
                else:
                    t_out = np.minimum(t_out, t)              # leaves there
        return np.where(t_in < t_out, t_in, np.float32(np.inf))


class _LazyPoints:
    """``Frame.points`` descriptor: unprojects ``depth`` on first access.

    A renderer passes ``points=None`` and an ``unproject`` callable; the world
    points are then only computed (once) if somebody reads them.
    """

    def __get__(self, frame, owner=None):
        if frame is None:
            return None                       # the dataclass field default
        pts = frame.__dict__.get("_points")
        if pts is None and frame.unproject is not None:
            pts = frame.__dict__["_points"] = frame.unproject(frame.depth)
        return pts

    def __set__(self, frame, value):
        frame.__dict__["_points"] = value


@dataclass(eq=False)
class Frame:
    """One rendered view (H rows, W columns).

    * ``rgb`` (H, W, 3) uint8.
    * ``depth`` (H, W) float32 z-depth along the optical axis (REP 118), +inf
      where nothing was hit within [near, far].
    * ``seg`` (H, W) int32 instance id of the hit, 0 where nothing was hit.
    * ``points`` (H, W, 3) float32 world coordinates of the hit, nan if none.
      Computed from ``depth`` and the camera pose on first access (it costs
      about as much as the rest of the post-processing together).
    * ``water_depth`` (H, W) float32 water height above the hit point (>= 0,
      0 where nothing was hit) when rendered with water, else None.

    Depth, seg and points always describe the solid hit: water is translucent.
    ``unproject`` (depth -> points) is set by the renderer for the lazy
    ``points``; frames built by hand pass ``points`` directly.
    """

    rgb: np.ndarray
    depth: np.ndarray
    seg: np.ndarray
    points: np.ndarray | None = _LazyPoints()
    water_depth: np.ndarray | None = None
    unproject: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)


class _Part:
    """Cached mesh and per-triangle attributes of a group of boxes."""

    def __init__(self, boxes: Sequence[Box], ids, colors):
        ids = np.asarray(ids, np.int32).reshape(-1)
        colors = np.asarray(colors, np.uint8).reshape(-1, 3)
        if not (len(boxes) == len(ids) == len(colors)):
            raise ValueError(f"{len(boxes)} boxes, {len(ids)} ids, {len(colors)} colors")
        if np.any(ids <= 0):
            raise ValueError("instance ids must be > 0 (0 means 'nothing hit')")
        self.verts, self.tris, normals = boxes_to_mesh(boxes)
        self.tri_ids = np.repeat(ids, TRIS_PER_BOX)
        self.tri_base = np.repeat(colors, TRIS_PER_BOX, axis=0)
        self.tri_shade = _lambert(normals)

    def recolor(self, ids: np.ndarray, colors: np.ndarray) -> None:
        order = np.argsort(ids, kind="stable")
        ids, colors = ids[order], colors[order]
        k = np.minimum(np.searchsorted(ids, self.tri_ids), len(ids) - 1)
        match = ids[k] == self.tri_ids
        self.tri_base[match] = colors[k[match]]


class RaycastRenderer:
    """Renders RGB, z-depth, instance segmentation and world points of boxes.

    Usage::

        r = RaycastRenderer(CameraSpec(256, 256, 90.0))
        r.set_static(walls_and_furniture, ids, colors)
        r.set_dynamic(objects_and_flames, ids, colors)      # whenever they change
        frame = r.render(position, optical_rotation(yaw, pitch), water=None)

    Instance ids must be > 0; the same id may be used by several boxes (e.g. a
    multi-box object) and ``set_colors`` recolours all of them.
    """

    def __init__(self, camera: CameraSpec = CameraSpec(), nthreads: int = 0):
        self.camera = camera
        self.nthreads = nthreads                  # Open3D threads, 0 = all
        # Optical-frame ray directions are (xn[u], yn[v], 1): unit z, so the
        # ray parameter of a hit is its z-depth.
        k = camera.intrinsics()
        self._xn = ((np.arange(camera.width) - k[0, 2]) / k[0, 0]).astype(np.float32)
        self._yn = ((np.arange(camera.height) - k[1, 2]) / k[1, 1]).astype(np.float32)
        self._rays = np.empty((camera.height, camera.width, 6), np.float32)
        self._rays_t = o3d.core.Tensor.from_numpy(self._rays)  # shares memory
        self._static = _Part([], [], np.zeros((0, 3)))
        self._dynamic = _Part([], [], np.zeros((0, 3)))
        self._scene = None
        self._tables()

    # ---------------------------------------------------------------- scene
    def set_static(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that never move (floor, walls, furniture)."""
        self._static = _Part(boxes, ids, colors)
        self._scene = None
        self._tables()

    def set_dynamic(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that move or change (objects, flames); rebuilds the scene."""
        self._dynamic = _Part(boxes, ids, colors)
        self._scene = None
        self._tables()

    def set_colors(self, ids, colors) -> None:
        """Recolour instances (all boxes with these ids) without touching geometry."""
        ids = np.asarray(ids, np.int32).reshape(-1)
        colors = np.asarray(colors, np.uint8).reshape(-1, 3)
        if not len(ids):
            return
        self._static.recolor(ids, colors)
        self._dynamic.recolor(ids, colors)
        self._tables()

    def _tables(self) -> None:
        """Per-triangle lookup tables, with a trailing 'no hit' entry."""
        s, d = self._static, self._dynamic
        self._ntri = len(s.tris) + len(d.tris)
        self._seg_lut = np.concatenate([s.tri_ids, d.tri_ids, [0]]).astype(np.int32)
        base = np.concatenate([s.tri_base, d.tri_base]).astype(np.float32)
        shade = np.concatenate([s.tri_shade, d.tri_shade]).astype(np.float32)
        rgb = np.clip(base * shade[:, None] + 0.5, 0, 255).astype(np.uint8)
        self._rgb_lut = np.concatenate([rgb, BACKGROUND[None]])

    def _build(self) -> None:
        scene = o3d.t.geometry.RaycastingScene()
        s, d = self._static, self._dynamic
        if self._ntri:
            verts = np.concatenate([s.verts, d.verts])
            tris = np.concatenate([s.tris, d.tris + np.uint32(len(s.verts))])
            scene.add_triangles(o3d.core.Tensor.from_numpy(verts),
                                o3d.core.Tensor.from_numpy(tris))
        self._scene = scene

    def cast_rays(self, rays: np.ndarray) -> np.ndarray:
        """Distances to the first hit of rays (N, 6: origin, unit direction), inf on a miss.
        For sensors other than the camera (LiDAR)."""
        if self._scene is None:
            self._build()
        rays = np.ascontiguousarray(rays, np.float32)
        return self._scene.cast_rays(o3d.core.Tensor.from_numpy(rays), nthreads=self.nthreads)["t_hit"].numpy()

    # --------------------------------------------------------------- render
    def render(self, position, rot, water: WaterSurface | None = None) -> Frame:
        """Render from optical-frame origin ``position`` (world, (3,)) with
        world-from-optical rotation ``rot`` (3x3, see ``optical_rotation``)."""
        if self._scene is None:
            self._build()
        cam = self.camera
        pos = np.asarray(position, np.float64).reshape(3)
        rot = np.asarray(rot, np.float64).reshape(3, 3)
        # Interleaved rays [origin, direction], written component-wise straight
        # into the shared buffer (no BLAS matmul: its threads compete with
        # Embree's). World directions are separable in pixel row and column,
        # rows (H, 1) + columns (1, W); rays start on the near plane
        # (z = near, as the directions have unit z).
        rows, cols = self._dir_terms(rot)
        near = np.float32(cam.near)
        for i in range(3):
            np.add.outer(rows[i], cols[i], out=self._rays[..., 3 + i])
            np.add.outer(rows[i] * near + np.float32(pos[i]), cols[i] * near,
                         out=self._rays[..., i])

        ans = self._scene.cast_rays(self._rays_t, nthreads=self.nthreads)
        depth = ans["t_hit"].numpy()              # (H, W) float32, fresh each call
        prim = ans["primitive_ids"].numpy()       # uint32, INVALID_ID = 2**32 - 1
        far = depth > np.float32(cam.far - cam.near)
        if far.any():                             # beyond the far plane: no hit
            prim[far] = _INVALID
            depth[far] = np.inf
        depth += np.float32(cam.near)
        # mode="clip" sends INVALID_ID to the last table entry ('no hit').
        seg = np.take(self._seg_lut, prim, mode="clip")
        unproject = partial(self.unproject, position=pos, rot=rot)
        if water is None:
            rgb = np.take(self._rgb_lut, prim, axis=0, mode="clip")
            return Frame(rgb, depth, seg, None, None, unproject)

        dirs = self._world_dirs(rot)
        under = water.intersect(pos, *dirs) < depth  # in water before the hit
        idx = np.minimum(prim, np.uint32(self._ntri))
        np.add(idx, np.uint32(self._ntri + 1), out=idx, where=under)
        lut = np.concatenate([self._rgb_lut, _blend(self._rgb_lut, water.color, water.alpha)])
        rgb = np.take(lut, idx, axis=0)
        x, y, z = self._xyz(depth, pos, dirs)
        water_depth = np.fmax(water.height_xy(x, y) - z, np.float32(0))  # nan (no hit) -> 0
        return Frame(rgb, depth, seg, None, water_depth.astype(np.float32, copy=False),
                     unproject)

    def unproject(self, depth: np.ndarray, position, rot) -> np.ndarray:
        """World points (H, W, 3) float32 of a z-depth image seen from a pose;
        nan where depth is not finite."""
        pos = np.asarray(position, np.float64).reshape(3)
        out = np.empty(depth.shape + (3,), np.float32)
        for i, c in enumerate(self._xyz(depth, pos, self._world_dirs(np.asarray(rot, float)))):
            out[..., i] = c
        return out

    def _dir_terms(self, rot: np.ndarray):
        """Row (3, H) and column (3, W) float32 terms of the world ray directions:
        direction[i] at pixel (v, u) = rows[i, v] + cols[i, u]."""
        rows = (rot[:, 1:2] * self._yn + rot[:, 2:3]).astype(np.float32)
        cols = (rot[:, 0:1] * self._xn).astype(np.float32)
        return rows, cols

    def _world_dirs(self, rot: np.ndarray):
        """World components (H, W) of the unit-z ray directions (3 arrays)."""
        rows, cols = self._dir_terms(rot)
        return tuple(np.add.outer(rows[i], cols[i]) for i in range(3))

    @staticmethod
    def _xyz(depth, pos, dirs):
        """World x, y, z (H, W) of the hits; nan where depth is not finite."""
        d = np.where(np.isfinite(depth), depth, np.float32(np.nan))
        out = []
        for i, c in enumerate(dirs):
            c = c * d
            c += np.float32(pos[i])
            out.append(c)
        return out


_INVALID = np.uint32(o3d.t.geometry.RaycastingScene.INVALID_ID)


def _blend(rgb: np.ndarray, color, alpha: float) -> np.ndarray:
    out = rgb.astype(np.float32) * (1.0 - alpha) + np.asarray(color, np.float32) * alpha
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)
