"""Fast CPU renderer: Open3D (Embree) ray casting plus a few numpy gathers.

Every box becomes 12 triangles of one merged triangle mesh; a hit's primitive
(triangle) id then indexes small per-triangle tables holding the instance id
and the already shaded colour (Lambert with a fixed light is view independent,
so shading is baked per triangle). Per frame the work is: write the rays
(their directions are separable in pixel row and column), cast them, and do
two table lookups. World points are only unprojected when asked for.

Meshes (``set_static_meshes`` / ``set_dynamic_meshes``, see mesh.py) join the
same scene after the boxes. Their flat-coloured triangles go through the same
table lookup; on the others the hit's barycentric coordinates interpolate the
lit vertex colours, or the uv and shade for a bilinear texture sample
(meshset.py). Render effects (effects.py) are applied to the rgb afterwards.

Open3D cannot move geometry in a ``RaycastingScene``, so ``set_dynamic``
rebuilds the scene (static triangles are cached; rebuilding a ~150 box scene
costs well under a millisecond, see ``benchmarks/bench_render.py``). With
``SPLIT_TRIANGLES`` or more static triangles (terrain), the static geometry
has a scene of its own, built once, and every ray is cast into both scenes.

A renderer reuses one ray buffer: use one renderer per thread.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Sequence

import numpy as np

from ..geometry import Box
from .camera import CameraSpec
from .effects import DEFAULT as DEFAULT_EFFECTS
from .effects import RenderEffects, apply_light_fog, apply_post
from .mesh import AMBIENT, BACKGROUND, DIFFUSE, LIGHT_DIR, TRIS_PER_BOX, BoxGroup, Mesh, boxes_to_mesh, lambert  # noqa: F401
from .meshset import MeshSet

# Box geometry and lighting are shared with the rasterizer and the meshes;
# re-exported here for the callers that import them from this module.
_lambert = lambert


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


class RaycastRenderer:
    """Renders RGB, z-depth, instance segmentation and world points of boxes
    and meshes.

    Usage::

        r = RaycastRenderer(CameraSpec(256, 256, 90.0))
        r.set_static(walls_and_furniture, ids, colors)
        r.set_dynamic(objects_and_flames, ids, colors)      # whenever they change
        r.set_static_meshes([heightfield_mesh(...), quad_mesh(...)])   # optional
        frame = r.render(position, optical_rotation(yaw, pitch), water=None,
                         effects=RenderEffects(light=0.3))

    Instance ids must be > 0; the same id may be used by several boxes (e.g. a
    multi-box object) and ``set_colors`` recolours all of them (boxes only).
    Boxes and meshes coexist: the scene is static boxes + dynamic boxes +
    static meshes + dynamic meshes.
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
        self._rays_t = _o3d().core.Tensor.from_numpy(self._rays)  # shares memory
        self._static = BoxGroup([], [], np.zeros((0, 3)))
        self._dynamic = BoxGroup([], [], np.zeros((0, 3)))
        self._smesh = MeshSet()
        self._dmesh = MeshSet()
        self._scene = None                 # merged scene, or (static, dynamic) when split
        self._static_scene = None          # cached static scene in split mode
        self._tables()

    # ---------------------------------------------------------------- scene
    def set_static(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that never move (floor, walls, furniture)."""
        self._static = BoxGroup(boxes, ids, colors)
        self._scene = self._static_scene = None
        self._tables()

    def set_dynamic(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that move or change (objects, flames); rebuilds the scene."""
        self._dynamic = BoxGroup(boxes, ids, colors)
        self._scene = None
        self._tables()

    def set_static_meshes(self, meshes: Sequence[Mesh]) -> None:
        """Meshes that never move (terrain, whiteboards); replaces the previous ones.
        With more than ``SPLIT_TRIANGLES`` static triangles the static geometry
        gets a scene of its own, so ``set_dynamic*`` does not rebuild it."""
        self._smesh = MeshSet(meshes)
        self._scene = self._static_scene = None
        self._tables()

    def set_dynamic_meshes(self, meshes: Sequence[Mesh]) -> None:
        """Meshes that move or change (people, clues); replaces the previous ones."""
        self._dmesh = MeshSet(meshes)
        self._scene = None
        self._tables()

    def set_colors(self, ids, colors) -> None:
        """Recolour instances (all boxes with these ids) without touching geometry.
        Meshes keep their colours (set them again to change them)."""
        ids = np.asarray(ids, np.int32).reshape(-1)
        colors = np.asarray(colors, np.uint8).reshape(-1, 3)
        if not len(ids):
            return
        self._static.recolor(ids, colors)
        self._dynamic.recolor(ids, colors)
        self._tables()

    def _tables(self) -> None:
        """Per-triangle lookup tables, with a trailing 'no hit' entry.

        Global triangle order: static boxes, dynamic boxes, static meshes,
        dynamic meshes. ``_rgb_lut`` covers the boxes only (mesh hits are
        shaded per pixel)."""
        s, d = self._static, self._dynamic
        self._nbox = len(s.tris) + len(d.tris)
        self._ntri = self._nbox + len(self._smesh) + len(self._dmesh)
        self._seg_lut = np.concatenate([s.tri_ids, d.tri_ids, self._smesh.tri_ids,
                                        self._dmesh.tri_ids, [0]]).astype(np.int32)
        base = np.concatenate([s.tri_base, d.tri_base]).astype(np.float32)
        shade = np.concatenate([s.tri_shade, d.tri_shade]).astype(np.float32)
        rgb = np.clip(base * shade[:, None] + 0.5, 0, 255).astype(np.uint8)
        self._rgb_lut = np.concatenate([rgb, BACKGROUND[None]])
        self._interp_lut = None
        if self._ntri > self._nbox:
            # Mesh triangles too: flat ones by lookup, the rest flagged for per-hit shading.
            sm, dm = self._smesh, self._dmesh
            self._rgb_lut = np.concatenate([rgb, sm.tri_rgb, dm.tri_rgb, BACKGROUND[None]])
            self._interp_lut = np.concatenate([np.zeros(self._nbox, bool), sm.tri_interp,
                                               dm.tri_interp, [False]])
            if not self._interp_lut.any():
                self._interp_lut = None

    @staticmethod
    def _make_scene(parts):
        """One scene of the (verts, tris uint32) parts, merged into one geometry."""
        scene = _o3d().t.geometry.RaycastingScene()
        parts = [(v, t) for v, t in parts if len(t)]
        if parts:
            verts, tris, off = [], [], 0
            for v, t in parts:
                verts.append(v)
                tris.append(t + np.uint32(off) if off else t)
                off += len(v)
            verts = verts[0] if len(verts) == 1 else np.concatenate(verts)
            tris = tris[0] if len(tris) == 1 else np.concatenate(tris)
            scene.add_triangles(_o3d().core.Tensor.from_numpy(np.ascontiguousarray(verts)),
                                _o3d().core.Tensor.from_numpy(np.ascontiguousarray(tris)))
        return scene

    def _build(self) -> None:
        s, d, sm, dm = self._static, self._dynamic, self._smesh, self._dmesh
        if len(s.tris) + len(sm) < SPLIT_TRIANGLES:
            self._scene = self._make_scene([(s.verts, s.tris), (d.verts, d.tris),
                                            (sm.verts, sm.tris), (dm.verts, dm.tris)])
            self._split = False
            return
        # Big static geometry (terrain): its own scene, built once; the scene
        # of the dynamic parts is rebuilt alone, and every ray is cast in both.
        if self._static_scene is None:
            self._static_scene = self._make_scene([(s.verts, s.tris), (sm.verts, sm.tris)])
        self._scene = self._make_scene([(d.verts, d.tris), (dm.verts, dm.tris)])
        self._split = True

    def _cast(self, rays_t):
        """(t_hit, global primitive ids, barycentrics or None) of the rays."""
        if self._scene is None:
            self._build()
        if not self._split:
            ans = self._scene.cast_rays(rays_t, nthreads=self.nthreads)
            uvs = ans["primitive_uvs"].numpy() if self._nbox < self._ntri else None
            return ans["t_hit"].numpy(), ans["primitive_ids"].numpy(), uvs
        a = self._static_scene.cast_rays(rays_t, nthreads=self.nthreads)
        b = self._scene.cast_rays(rays_t, nthreads=self.nthreads)
        ns, nd, nsm = len(self._static.tris), len(self._dynamic.tris), len(self._smesh)
        ta, pa = a["t_hit"].numpy(), a["primitive_ids"].numpy()
        tb, pb = b["t_hit"].numpy(), b["primitive_ids"].numpy()
        # Scene-local to global triangle order (static boxes, dynamic boxes, static meshes,
        # dynamic meshes); misses stay INVALID.
        pa = np.where((pa >= ns) & (pa != _INVALID), pa + np.uint32(nd), pa)
        pb = np.where(pb == _INVALID, pb,
                      np.where(pb < nd, pb + np.uint32(ns), pb + np.uint32(ns + nsm)))
        dyn = tb < ta
        t = np.where(dyn, tb, ta)
        prim = np.where(dyn, pb, pa).astype(np.uint32)
        uvs = np.where(dyn[..., None], b["primitive_uvs"].numpy(), a["primitive_uvs"].numpy())
        return t, prim, uvs

    def cast_rays(self, rays: np.ndarray) -> np.ndarray:
        """Distances to the first hit of rays (N, 6: origin, unit direction), inf on a miss.
        For sensors other than the camera (LiDAR)."""
        rays = np.ascontiguousarray(rays, np.float32)
        return self._cast(_o3d().core.Tensor.from_numpy(rays))[0]

    # --------------------------------------------------------------- render
    def render(self, position, rot, water: WaterSurface | None = None,
               effects: RenderEffects | None = None) -> Frame:
        """Render from optical-frame origin ``position`` (world, (3,)) with
        world-from-optical rotation ``rot`` (3x3, see ``optical_rotation``);
        ``effects`` (sky, light, fog, post-effects) change only the rgb image."""
        fx = DEFAULT_EFFECTS if effects is None else effects
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

        depth, prim, uvs = self._cast(self._rays_t)    # depth: (H, W) float32, fresh
        far = depth > np.float32(cam.far - cam.near)
        if far.any():                             # beyond the far plane: no hit
            prim[far] = _INVALID
            depth[far] = np.inf
        depth += np.float32(cam.near)
        # mode="clip" sends INVALID_ID to the last table entry ('no hit').
        seg = np.take(self._seg_lut, prim, mode="clip")
        unproject = partial(self.unproject, position=pos, rot=rot)
        lut = self._rgb_lut
        if fx.sky != DEFAULT_EFFECTS.sky:
            lut = lut.copy()
            lut[-1] = fx.sky
        water_depth = None
        if water is None or self._ntri > self._nbox:
            rgb = np.take(lut, prim, axis=0, mode="clip")
            if self._interp_lut is not None:                 # interpolated / textured hits
                interp = np.take(self._interp_lut, prim, mode="clip")
                if interp.any():
                    rgb[interp] = self._mesh_colors(prim[interp], uvs[interp])
        if water is not None:
            dirs = self._world_dirs(rot)
            under = water.intersect(pos, *dirs) < depth  # in water before the hit
            if self._ntri > self._nbox:                  # per pixel: the table may be big
                rgb[under] = _blend(rgb[under], water.color, water.alpha)
            else:                                        # boxes only: tint the small table
                idx = np.minimum(prim, np.uint32(self._nbox))
                np.add(idx, np.uint32(self._nbox + 1), out=idx, where=under)
                lut2 = np.concatenate([lut, _blend(lut, water.color, water.alpha)])
                rgb = np.take(lut2, idx, axis=0)
            x, y, z = self._xyz(depth, pos, dirs)
            water_depth = np.fmax(water.height_xy(x, y) - z, np.float32(0))  # nan (no hit) -> 0
            water_depth = water_depth.astype(np.float32, copy=False)
        if fx.shades_hits:
            apply_light_fog(rgb, prim != _INVALID, lambda: depth * self._ray_length(), fx)
        if fx.post:
            rgb = apply_post(rgb, fx.post)
        return Frame(rgb, depth, seg, None, water_depth, unproject)

    def _mesh_colors(self, prim: np.ndarray, bary: np.ndarray) -> np.ndarray:
        """Shaded colours of mesh hits (global triangle ids)."""
        local = prim - np.uint32(self._nbox)
        ns = np.uint32(len(self._smesh))
        out = np.empty((len(prim), 3), np.uint8)
        st = local < ns
        if st.any():
            out[st] = self._smesh.colors(local[st], bary[st])
        if not st.all():
            out[~st] = self._dmesh.colors(local[~st] - ns, bary[~st])
        return out

    def _ray_length(self) -> np.ndarray:
        """(H, W) Euclidean length of the unit-z rays: distance = depth * this."""
        if getattr(self, "_ray_len", None) is None:
            self._ray_len = np.sqrt(1.0 + self._xn[None, :] ** 2 + self._yn[:, None] ** 2
                                    ).astype(np.float32)
        return self._ray_len

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


# Static triangle count from which the static geometry gets its own scene.
SPLIT_TRIANGLES = 200_000


#: Open3D's ``RaycastingScene.INVALID_ID`` (no primitive hit): the largest uint32 (checked on import)
_INVALID = np.uint32(0xFFFFFFFF)
_O3D = None


def _o3d():
    """Open3D, imported on first use: it takes most of a second to import, and processes
    that render with the raster backend never need it."""
    global _O3D
    if _O3D is None:
        import open3d
        if np.uint32(open3d.t.geometry.RaycastingScene.INVALID_ID) != _INVALID:
            raise RuntimeError("Open3D's RaycastingScene.INVALID_ID is not 2**32 - 1: this Open3D is unsupported")
        _O3D = open3d
    return _O3D


def _blend(rgb: np.ndarray, color, alpha: float) -> np.ndarray:
    out = rgb.astype(np.float32) * (1.0 - alpha) + np.asarray(color, np.float32) * alpha
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)
