"""Rasterizing renderer: OpenGL 3.3 in software (Mesa llvmpipe) via headless EGL.

Same API and output as :class:`~hazard_sim.render.raycast.RaycastRenderer`
(``set_static``, ``set_dynamic``, ``set_colors``, ``render -> Frame``), but
the boxes are drawn as one triangle mesh by a rasterizer instead of being hit
by rays, which is several times faster on a small CPU
(``benchmarks/bench_render_backends.py``).

Per frame:

1. One geometry pass writes three render targets at once: the shaded colour
   (RGBA8), the instance id (R32I) and the metric z-depth (R32F: the optical
   z interpolated perspective-correctly, i.e. exact for planar faces, not
   recovered from the depth buffer).
   A full-screen triangle on the far plane (depth test ``<=``) then fills the
   pixels where nothing was hit: background colour, id 0, depth +inf.
   Meshes (mesh.py) are drawn after the boxes (before that background
   triangle), two-sided, by two more programs
   (per-vertex colour, or texture x shade; raster_mesh.py), large ones in
   frustum-culled chunks.
2. With water only: one full-screen pass reads colour and z-depth back as
   textures and writes the tinted colour and the water depth (R32F), so the
   water is evaluated once per pixel whatever the overdraw.
3. With light or fog only (effects.py): one full-screen pass on the colour
   and z-depth; the sky colour is the background pass's colour.
4. The targets are read straight into fresh numpy arrays (no per-pixel numpy
   work; world points are unprojected lazily, as in the ray caster).

Conventions match the ray caster exactly:

* The projection comes from ``CameraSpec.intrinsics()``: the OpenCV pixel
  centre ``(u, v)`` is OpenGL's window position ``(u + 0.5, v + 0.5)``, so a
  point projects to the same pixel in both renderers. The projection keeps
  optical y pointing down, so OpenGL's bottom-up row order is the image's
  top-down row order: nothing is flipped on read-back.
* ``near``/``far`` are the OpenGL clip planes: surfaces closer than ``near``
  are invisible, hits beyond ``far`` count as nothing hit.
* Triangles and colours are the ray caster's: ``boxes_to_mesh``, Lambert
  shading per triangle with the same light and rounding (flat attributes),
  the same background and the same water tint and water depth.
* Back faces are culled only when that cannot change the picture: when the
  camera is farther than the near-plane corner distance from every box (a
  box is convex and closed, so a back face is then always behind a front face
  of the same box). Otherwise (camera inside or touching a box) everything is
  drawn, so, as in the ray caster, the inside of a box is seen from inside it.

Only triangle edges may differ (the rasterizer's coverage rule versus the
ray/triangle test) and, where two surfaces nearly coincide, which one wins.

Threads and processes: an OpenGL context is current in at most one thread at
a time. Each renderer owns its own context and makes it current only during
each call (leaving no context current afterwards), so a renderer can be used
from any thread, one thread at a time (as with the ray caster: one renderer
per thread); renderers in different threads run concurrently. llvmpipe
rasterizes with one pool of ``LP_NUM_THREADS`` threads per process (default:
the number of CPUs; read when the first context is created). Those threads do
not survive ``fork``: create renderers inside worker processes. A process
forked after its parent created any context cannot use OpenGL (it would hang),
so there ``RasterRenderer`` raises :class:`RasterUnavailable` (and
``make_renderer`` falls back to ray casting) and inherited renderers raise on
use; 'spawn'/'forkserver' workers, forks of a parent that never used OpenGL,
and ``LP_NUM_THREADS=0`` in the parent (rasterizes in the calling thread;
about as fast for 256x256 here) are all fine.
Call ``close()`` (or drop the renderer) to free its context early.
"""
from __future__ import annotations

import threading
from functools import partial
from typing import Sequence

import numpy as np

from ..geometry import Box
from .camera import CameraSpec
from .effects import DEFAULT as DEFAULT_EFFECTS
from .effects import RenderEffects, apply_post
from .mesh import BACKGROUND, Mesh
from .raster_mesh import COL_FORMAT, GLBoxGroup, GLMeshGroup
from .raycast import Frame, RaycastRenderer, WaterSurface

__all__ = ["RasterRenderer", "RasterUnavailable", "create_context", "raster_available"]


from .gl_context import INSTALL_HINT, RasterUnavailable, create_context, raster_available, register_renderer  # noqa: E402,F401
from .raster_shaders import (  # noqa: E402
    BG_FS,
    EFFECTS_FS,
    FULL_VS,
    GEOM_FS,
    GEOM_VS,
    MESH_COL_FS,
    MESH_COL_VS,
    MESH_TEX_FS,
    MESH_TEX_VS,
    WATER_FS,
    WATER_VS,
)


class RasterRenderer:
    """Renders RGB, z-depth, instance segmentation and world points of boxes
    with OpenGL (Mesa's software rasterizer); a drop-in for ``RaycastRenderer``.

    Usage::

        r = RasterRenderer(CameraSpec(256, 256, 90.0))   # RasterUnavailable if no GL
        r.set_static(walls_and_furniture, ids, colors)
        r.set_dynamic(objects_and_flames, ids, colors)      # whenever they change
        frame = r.render(position, optical_rotation(yaw, pitch), water=None)
        r.close()                                           # or let it be collected

    Instance ids must be > 0; the same id may be used by several boxes (e.g. a
    multi-box object) and ``set_colors`` recolours all of them.
    """

    def __init__(self, camera: CameraSpec = CameraSpec()):
        self.camera = camera
        k = camera.intrinsics()
        self._xn = ((np.arange(camera.width) - k[0, 2]) / k[0, 0]).astype(np.float32)
        self._yn = ((np.arange(camera.height) - k[1, 2]) / k[1, 1]).astype(np.float32)
        # Distance from the eye to a corner of the near-plane rectangle: every
        # point of the view volume closer than the near plane is within it, so
        # back faces are safe to cull when no box is that close (see module doc).
        f = camera.focal
        self._cull_margin = 1.01 * camera.near * float(np.sqrt(
            1.0 + (camera.width / (2 * f)) ** 2 + (camera.height / (2 * f)) ** 2))
        self._static = GLBoxGroup([], [], np.zeros((0, 3)))
        # Last set_static / set_dynamic / set_static_meshes / set_dynamic_meshes
        # arguments, for the ray-casting mirror of cast_rays.
        self._ray_args = [None, None, None, None]
        self._ray_mirrored = [None, None, None, None]
        self._ray_mirror = None
        self._dynamic = GLBoxGroup([], [], np.zeros((0, 3)))
        self._meshes: list = [None, None]      # static, dynamic: (vao, buffer, vertex count)
        self._groups: list = [None, None]      # static, dynamic meshes: GLMeshGroup
        self._sky = tuple(int(v) for v in BACKGROUND)
        self._lock = threading.RLock()
        self._inherited = False
        self._ctx = create_context()
        try:
            with self._ctx:
                self._setup_gl()
        except Exception:
            self._ctx.release()
            self._ctx = None
            raise
        register_renderer(self)

    def _setup_gl(self) -> None:
        import moderngl
        self._mgl = moderngl
        ctx, cam = self._ctx, self.camera
        size = (cam.width, cam.height)
        f, n, fa = cam.focal, cam.near, cam.far
        inf = float("inf")
        self._geom = ctx.program(vertex_shader=GEOM_VS, fragment_shader=GEOM_FS)
        self._geom["proj"].write(np.array([2 * f / cam.width, 2 * f / cam.height,
                                           (fa + n) / (fa - n), -2 * fa * n / (fa - n)],
                                          np.float32).tobytes())
        proj = self._geom["proj"]
        self._mesh_col = ctx.program(vertex_shader=MESH_COL_VS, fragment_shader=MESH_COL_FS)
        self._mesh_tex = ctx.program(vertex_shader=MESH_TEX_VS, fragment_shader=MESH_TEX_FS)
        self._mesh_tex["tex"].value = 0
        for prog in (self._mesh_col, self._mesh_tex):
            prog["proj"].write(proj.read())
        self._bg = ctx.program(vertex_shader=FULL_VS, fragment_shader=BG_FS)
        self._bg["bg"].write(np.append(BACKGROUND / 255.0, 1.0).astype(np.float32).tobytes())
        self._bg["inf"].value = inf
        self._water = ctx.program(vertex_shader=WATER_VS, fragment_shader=WATER_FS)
        self._water["inf"].value = inf
        self._water["size"].value = size
        self._water["col_tex"].value = 0
        self._water["z_tex"].value = 1
        self._fx = ctx.program(vertex_shader=FULL_VS, fragment_shader=EFFECTS_FS)
        self._fx["inf"].value = inf
        self._fx["col_tex"].value = 0
        self._fx["z_tex"].value = 1
        self._fx["cam"].value = (cam.width / 2.0, cam.height / 2.0, f)
        # Window position (x, y) -> optical ray (x_n, y_n, 1), x_n = (x - W / 2) / f:
        # the centre x = u + 0.5 of pixel u gives (u - c_x) / f with c_x = (W - 1) / 2.
        self._kinv = np.array([[1 / f, 0, -cam.width / (2 * f)],
                               [0, 1 / f, -cam.height / (2 * f)], [0, 0, 1]])
        # Clockwise in window space, i.e. front facing for front_face = "cw" below.
        tri = ctx.buffer(np.array([[-1, -1], [-1, 3], [3, -1]], np.float32).tobytes())
        self._full_buf = tri
        self._bg_vao = ctx.vertex_array(self._bg, [(tri, "2f", "in_ndc")])
        self._water_vao = ctx.vertex_array(self._water, [(tri, "2f", "in_ndc")])
        self._fx_vao = ctx.vertex_array(self._fx, [(tri, "2f", "in_ndc")])
        # Pass 1 targets (colour and z are textures: the water pass reads them).
        self._col_tex = ctx.texture(size, 4, dtype="f1")
        self._z_tex = ctx.texture(size, 1, dtype="f4")
        for t in (self._col_tex, self._z_tex):
            t.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self._id_rb = ctx.renderbuffer(size, 1, dtype="i4")
        self._depth_rb = ctx.depth_renderbuffer(size)
        self._fbo = ctx.framebuffer([self._col_tex, self._id_rb, self._z_tex], self._depth_rb)
        # Pass 2 targets: tinted colour (a texture: the effects pass reads it), water depth.
        self._wcol_tex = ctx.texture(size, 4, dtype="f1")
        self._wcol_tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self._wd_rb = ctx.renderbuffer(size, 1, dtype="f4")
        self._wfbo = ctx.framebuffer([self._wcol_tex, self._wd_rb])
        # Pass 3 (light, fog) target.
        self._fx_rb = ctx.renderbuffer(size, 4, dtype="f1")
        self._fx_fbo = ctx.framebuffer([self._fx_rb])
        # The projection keeps optical y down, which mirrors the image in
        # window space: outside faces (counter-clockwise) appear clockwise.
        ctx.front_face = "cw"
        ctx.cull_face = "back"

    # ---------------------------------------------------------------- scene
    def set_static(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that never move (floor, walls, furniture)."""
        self._static = GLBoxGroup(boxes, ids, colors)
        self._upload(0, self._static)
        self._ray_args[0] = (boxes, ids, colors)

    def set_dynamic(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that move or change (objects, flames); re-uploads their mesh."""
        self._dynamic = GLBoxGroup(boxes, ids, colors)
        self._upload(1, self._dynamic)
        self._ray_args[1] = (boxes, ids, colors)

    def set_static_meshes(self, meshes: Sequence[Mesh]) -> None:
        """Meshes that never move (terrain, whiteboards); replaces the previous ones."""
        self._set_group(0, meshes)

    def set_dynamic_meshes(self, meshes: Sequence[Mesh]) -> None:
        """Meshes that move or change (people, clues); replaces the previous ones."""
        self._set_group(1, meshes)

    def _set_group(self, i: int, meshes: Sequence[Mesh]) -> None:
        meshes = list(meshes)
        with self._lock, self._current() as ctx:
            if self._groups[i] is not None and self._groups[i].update(meshes):
                self._ray_args[2 + i] = (meshes,)       # the same meshes posed anew: buffers written in place
                return
            group = GLMeshGroup(ctx, self._mesh_col, self._mesh_tex, meshes) if meshes else None
            old, self._groups[i] = self._groups[i], group
            if old is not None:
                old.release()
        self._ray_args[2 + i] = (meshes,)

    def cast_rays(self, rays: np.ndarray) -> np.ndarray:
        """Ray distances for non-camera sensors (LiDAR): a rasterizer cannot cast arbitrary
        rays, so this keeps an Open3D ray-casting mirror of the same boxes and meshes,
        rebuilt lazily."""
        mirror = self._ray_mirror
        if mirror is None:
            mirror = self._ray_mirror = RaycastRenderer(self.camera)
        for k, setter in enumerate((mirror.set_static, mirror.set_dynamic,
                                    mirror.set_static_meshes, mirror.set_dynamic_meshes)):
            args = self._ray_args[k]
            if args is not None and args is not self._ray_mirrored[k]:
                setter(*args)
                self._ray_mirrored[k] = args
        return mirror.cast_rays(rays)

    def set_colors(self, ids, colors) -> None:
        """Recolour instances (all boxes with these ids) without touching geometry."""
        ids = np.asarray(ids, np.int32).reshape(-1)
        colors = np.asarray(colors, np.uint8).reshape(-1, 3)
        if not len(ids):
            return
        for i, part in enumerate((self._static, self._dynamic)):
            if part.recolor(ids, colors):
                self._upload(i, part)

    def _upload(self, i: int, part: GLBoxGroup) -> None:
        with self._lock, self._current() as ctx:
            old, self._meshes[i] = self._meshes[i], None
            if old is not None and len(part.data) and old[1].size == part.data.nbytes:
                old[1].write(part.data)                   # same size: overwrite in place
                self._meshes[i] = (old[0], old[1], len(part.data))
                return
            if old is not None:
                old[0].release()
                old[1].release()
            if len(part.data):
                buf = ctx.buffer(part.data)
                vao = ctx.vertex_array(self._geom, [(buf, *COL_FORMAT)])
                self._meshes[i] = (vao, buf, len(part.data))

    def _current(self):
        if self._ctx is None:
            raise RuntimeError("this RasterRenderer is closed" if not self._inherited else
                               "this RasterRenderer was inherited through fork(): its OpenGL "
                               "context cannot be used here; create a new one in this process")
        return self._ctx

    def _abandon(self) -> None:
        """In a forked child: drop the parent's context without touching it."""
        self._ctx = None
        self._meshes = [None, None]
        self._groups = [None, None]
        self._inherited = True
        self._lock = threading.RLock()      # another thread may have held it at fork

    # --------------------------------------------------------------- render
    def render(self, position, rot, water: WaterSurface | None = None,
               effects: RenderEffects | None = None) -> Frame:
        """Render from optical-frame origin ``position`` (world, (3,)) with
        world-from-optical rotation ``rot`` (3x3, see ``optical_rotation``);
        ``effects`` (sky, light, fog, post-effects) change only the rgb image."""
        fx = DEFAULT_EFFECTS if effects is None else effects
        cam, mgl = self.camera, self._mgl
        pos = np.asarray(position, np.float64).reshape(3)
        rot = np.asarray(rot, np.float64).reshape(3, 3)
        h, w = cam.height, cam.width
        rgb = np.empty((h, w, 3), np.uint8)
        seg = np.empty((h, w), np.int32)
        depth = np.empty((h, w), np.float32)
        water_depth = None
        cull = not (self._static.near(pos, self._cull_margin)
                    or self._dynamic.near(pos, self._cull_margin))
        with self._lock, self._current() as ctx:
            fbo = self._fbo
            fbo.use()
            fbo.clear(depth=1.0)
            ctx.enable_only(mgl.DEPTH_TEST | mgl.CULL_FACE if cull else mgl.DEPTH_TEST)
            ctx.depth_func = "<"
            self._geom["eye"].write(pos.astype(np.float32).tobytes())
            # Uniform matrices are column-major: R's rows, in order, give R^T.
            self._geom["view"].write(rot.astype(np.float32).tobytes())
            for mesh in self._meshes:
                if mesh is not None:
                    mesh[0].render(mgl.TRIANGLES, vertices=mesh[2])
            if self._groups[0] is not None or self._groups[1] is not None:
                self._draw_groups(pos, rot, cull)
            ctx.depth_func = "<="               # background: where depth is still 1
            if fx.sky != self._sky:
                self._bg["bg"].write(np.append(np.asarray(fx.sky) / 255.0, 1.0)
                                     .astype(np.float32).tobytes())
                self._sky = fx.sky
            self._bg_vao.render(mgl.TRIANGLES, vertices=3)
            fbo.read_into(seg, components=1, attachment=1, dtype="i4")
            fbo.read_into(depth, components=1, attachment=2, dtype="f4")
            col_fbo, col_tex = fbo, self._col_tex
            if water is not None:
                water_depth = np.empty((h, w), np.float32)
                self._water_pass(water, pos, rot)
                col_fbo, col_tex = self._wfbo, self._wcol_tex
                self._wfbo.read_into(water_depth, components=1, attachment=1, dtype="f4")
            if fx.shades_hits:
                self._effects_pass(fx, col_tex)
                col_fbo = self._fx_fbo
            col_fbo.read_into(rgb, components=3, attachment=0, dtype="f1")
        if fx.post:
            rgb = apply_post(rgb, fx.post)
        unproject = partial(self.unproject, position=pos, rot=rot)
        return Frame(rgb, depth, seg, None, water_depth, unproject)

    def _draw_groups(self, pos: np.ndarray, rot: np.ndarray, culled: bool) -> None:
        """The meshes, two-sided, after the boxes (depth test on)."""
        if culled:
            self._ctx.disable(self._mgl.CULL_FACE)
        eye, view = pos.astype(np.float32).tobytes(), rot.astype(np.float32).tobytes()
        for prog in (self._mesh_col, self._mesh_tex):
            prog["eye"].write(eye)
            prog["view"].write(view)
        cam = self.camera
        frustum = (pos, rot.T, cam.width / (2 * cam.focal), cam.height / (2 * cam.focal),
                   cam.near, cam.far)
        for group in self._groups:
            if group is not None:
                group.draw(self._mgl.TRIANGLES, frustum)

    def _effects_pass(self, fx: RenderEffects, col_tex) -> None:
        prog = self._fx
        prog["light"].value = float(fx.light)
        prog["fog"].value = tuple(float(v) for v in fx.fog_params)
        prog["fog_col"].value = tuple(float(v) for v in fx.fog_color)
        self._fx_fbo.use()
        self._ctx.disable(self._mgl.DEPTH_TEST | self._mgl.CULL_FACE)
        col_tex.use(0)
        self._z_tex.use(1)
        self._fx_vao.render(self._mgl.TRIANGLES, vertices=3)

    def _water_pass(self, water: WaterSurface, pos: np.ndarray, rot: np.ndarray) -> None:
        k = float(np.tan(water.slope_rad))
        u = water.direction
        top = water.level - pos[2]                       # z <= level
        # z + k u . xy <= level + k u . origin; without a slope, the surface again.
        slope = water.level + k * (water.origin @ u) - (k * u) @ pos[:2] - pos[2] if k else top
        prog = self._water
        for name, v in (("nums", [top, pos[2], slope]), ("slope_n", k * u), ("eye", pos),
                        ("ray", (rot @ self._kinv).T),            # column-major
                        ("hfield", [water.level, k, water.origin @ u, 0.0]), ("hdir", u),
                        ("wcol", water.color)):
            prog[name].write(np.asarray(v, np.float32).tobytes())
        prog["wet"].value = 1.0 if water.level > 0.0 else 0.0
        prog["walpha"].value = float(water.alpha)
        self._wfbo.use()
        self._ctx.disable(self._mgl.DEPTH_TEST | self._mgl.CULL_FACE)
        self._col_tex.use(0)
        self._z_tex.use(1)
        self._water_vao.render(self._mgl.TRIANGLES, vertices=3)

    def unproject(self, depth: np.ndarray, position, rot) -> np.ndarray:
        """World points (H, W, 3) float32 of a z-depth image seen from a pose;
        nan where depth is not finite."""
        pos = np.asarray(position, np.float64).reshape(3)
        rot = np.asarray(rot, np.float64).reshape(3, 3)
        rows = (rot[:, 1:2] * self._yn + rot[:, 2:3]).astype(np.float32)   # (3, H)
        cols = (rot[:, 0:1] * self._xn).astype(np.float32)                  # (3, W)
        d = np.where(np.isfinite(depth), depth, np.float32(np.nan))
        out = np.empty(depth.shape + (3,), np.float32)
        for i in range(3):
            c = np.add.outer(rows[i], cols[i])
            c *= d
            c += np.float32(pos[i])
            out[..., i] = c
        return out

    # ------------------------------------------------------------- lifetime
    @property
    def gl_info(self) -> str:
        """The OpenGL renderer and version strings."""
        with self._lock, self._current() as ctx:
            info = ctx.info
            return f"{info['GL_RENDERER']}, {info['GL_VERSION']}"

    def close(self) -> None:
        """Free the OpenGL context (and its rasterizer threads) now; idempotent."""
        with self._lock:
            ctx, self._ctx = self._ctx, None
            self._meshes = [None, None]
            self._groups = [None, None]
            if ctx is not None:
                ctx.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if getattr(self, "_ctx", None) is not None:
                self.close()
        except Exception:
            pass
