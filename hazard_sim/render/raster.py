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
2. With water only: one full-screen pass reads colour and z-depth back as
   textures and writes the tinted colour and the water depth (R32F), so the
   water is evaluated once per pixel whatever the overdraw.
3. The targets are read straight into fresh numpy arrays (no per-pixel numpy
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

import os
import subprocess
import sys
import threading
import weakref
from functools import partial
from typing import Sequence

import numpy as np

from ..geometry import Box
from .backend import BackendUnavailable
from .camera import CameraSpec
from .raycast import (
    AMBIENT,
    BACKGROUND,
    DIFFUSE,
    LIGHT_DIR,
    TRIS_PER_BOX,
    Frame,
    RaycastRenderer,
    WaterSurface,
    boxes_to_mesh,
)

__all__ = ["RasterRenderer", "RasterUnavailable", "create_context", "raster_available"]


class RasterUnavailable(BackendUnavailable):
    """No headless OpenGL 3.3 context can be created here (a RuntimeError)."""


INSTALL_HINT = ("the raster backend needs the Python package moderngl (pip install "
                "moderngl==5.13.0 glcontext==3.1.0) and Mesa's EGL and software OpenGL "
                "(Debian: apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libgl1, "
                "or run scripts/setup_gl.sh)")


class _GLState:
    """Process-wide facts about OpenGL use, for fork safety."""
    initialised = False       # a context was created in this process
    threads0 = False          # ... with LP_NUM_THREADS=0 (no rasterizer threads)
    forked = False            # this process was forked after `initialised`


_live_renderers: "weakref.WeakSet[RasterRenderer]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # llvmpipe's rasterizer threads belong to the EGL display, which a forked
    # child inherits already initialised but without its threads: the first
    # draw would wait for them forever. Refuse instead of hanging.
    if _GLState.initialised and not _GLState.threads0:
        _GLState.forked = True
    for r in list(_live_renderers):
        r._abandon()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_FORKED = ("this process was forked from one that had already created an OpenGL context; "
           "llvmpipe's threads do not survive fork(), so OpenGL would hang here. Create "
           "renderers only in the worker processes (not in the parent before forking), use "
           "the 'spawn' or 'forkserver' multiprocessing start method, or set "
           "LP_NUM_THREADS=0 before the parent's first renderer")


def create_context():
    """A standalone (headless, EGL) moderngl context of OpenGL >= 3.3.

    Raises :class:`RasterUnavailable`, with the reason and what to install,
    if moderngl is missing or no EGL/OpenGL driver can be loaded, or if this
    process was forked from one that had already used OpenGL.
    """
    if _GLState.forked:
        raise RasterUnavailable(_FORKED)
    try:
        import moderngl
    except ImportError as e:
        raise RasterUnavailable(f"moderngl is not importable ({e}); {INSTALL_HINT}") from e
    try:
        ctx = moderngl.create_standalone_context(backend="egl", require=330)
    except Exception as e:                         # glcontext raises plain Exceptions
        raise RasterUnavailable(f"cannot create a headless EGL OpenGL 3.3 context "
                                f"({type(e).__name__}: {e}); {INSTALL_HINT}") from e
    if not _GLState.initialised:
        _GLState.initialised = True
        _GLState.threads0 = os.environ.get("LP_NUM_THREADS", "").strip() == "0"
    return ctx


_PROBE = """
import moderngl
ctx = moderngl.create_standalone_context(backend="egl", require=330)
print(ctx.info["GL_RENDERER"] + ", " + ctx.info["GL_VERSION"])
"""
_probe_lock = threading.Lock()
_probe: tuple[bool, str] | None = None


def raster_available() -> tuple[bool, str]:
    """``(True, "renderer, version")`` if an OpenGL context can be created,
    else ``(False, reason)``; cached per process.

    Probed in a short-lived subprocess (~0.3 s) unless this process already
    uses OpenGL, so that asking does not initialise OpenGL here (which would
    make ``fork``-ed workers unable to render, see ``create_context``).
    """
    global _probe
    with _probe_lock:
        if _probe is None:
            if _GLState.forked:
                return False, _FORKED
            try:
                out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True,
                                     text=True, timeout=120)
            except (OSError, subprocess.SubprocessError) as e:
                _probe = (False, f"cannot run the OpenGL probe ({e}); {INSTALL_HINT}")
            else:
                if out.returncode == 0:
                    _probe = (True, out.stdout.strip())
                else:
                    err = (out.stderr.strip().splitlines() or ["no output"])[-1]
                    _probe = (False, f"cannot create a headless EGL OpenGL 3.3 context "
                                     f"({err}); {INSTALL_HINT}")
        return _probe


# ------------------------------------------------------------------ shaders
_GEOM_VS = """
#version 330
uniform vec3 eye;          // camera position (world)
uniform mat3 view;         // optical-from-world rotation
uniform vec4 proj;         // (2 f / W, 2 f / H, A, B): z_clip = A z + B, w_clip = z
in vec3 in_pos;
in vec4 in_col;
in int in_id;
flat out vec4 v_col;
flat out int v_id;
out float v_z;
void main() {
    vec3 p = view * (in_pos - eye);
    v_z = p.z;
    gl_Position = vec4(proj.x * p.x, proj.y * p.y, proj.z * p.z + proj.w, p.z);
    v_col = in_col;
    v_id = in_id;
}
"""

_GEOM_FS = """
#version 330
flat in vec4 v_col;
flat in int v_id;
in float v_z;
layout(location = 0) out vec4 o_col;
layout(location = 1) out int o_id;
layout(location = 2) out float o_z;
void main() {
    o_col = v_col;
    o_id = v_id;
    o_z = v_z;
}
"""

# One triangle covering the viewport, on the far plane (window depth 1).
_FULL_VS = """
#version 330
in vec2 in_ndc;
void main() { gl_Position = vec4(in_ndc, 1.0, 1.0); }
"""

_BG_FS = """
#version 330
uniform vec4 bg;
uniform float inf;
layout(location = 0) out vec4 o_col;
layout(location = 1) out int o_id;
layout(location = 2) out float o_z;
void main() { o_col = bg; o_id = 0; o_z = inf; }
"""

# Water (see WaterSurface), once per pixel after the geometry: rays are
# eye + t d with d of unit optical z (t = z-depth), as in the ray caster, and
# are clipped (Cyrus-Beck) against the planes of the convex water body
# n . p <= c: the surface z <= level, the bottom -z <= 0 and the slope
# z + k u . xy <= level + k u . origin. Each plane is given by num = c - n . eye
# (< 0: the eye is outside it, so the ray can only enter there).
_WATER_VS = """
#version 330
uniform mat3 ray;          // world ray direction = ray * (window x, window y, 1)
uniform vec2 size;         // (W, H)
in vec2 in_ndc;
noperspective out vec3 v_dir;
void main() {
    gl_Position = vec4(in_ndc, 1.0, 1.0);
    v_dir = ray * vec3((in_ndc + 1.0) * 0.5 * size, 1.0);   // affine in window x, y
}
"""

_WATER_FS = """
#version 330
uniform sampler2D col_tex;
uniform sampler2D z_tex;
uniform vec3 eye;
uniform float inf;
uniform vec3 nums;         // num of the surface, bottom and slope planes
uniform vec2 slope_n;      // k u (xy of the slope plane normal; its z is 1)
uniform float wet;         // 0: no water body at all (level <= 0)
uniform vec4 hfield;       // (level, k, origin . u, 0)
uniform vec2 hdir;         // u
uniform vec3 wcol;         // water colour, 0..255
uniform float walpha;
noperspective in vec3 v_dir;
layout(location = 0) out vec4 o_col;
layout(location = 1) out float o_wd;
void main() {
    ivec2 px = ivec2(gl_FragCoord.xy);
    vec4 c = texelFetch(col_tex, px, 0);
    float z = texelFetch(z_tex, px, 0).r;
    vec3 d = v_dir;
    float rz = 1.0 / d.z;
    vec3 t = nums * vec3(rz, -rz, 1.0 / (dot(slope_n, d.xy) + d.z));
    t = mix(vec3(inf), t, greaterThan(t, vec3(0.0)));      // the crossing, if ahead
    bvec3 outside = lessThan(nums, vec3(0.0));
    vec3 t_enter = mix(vec3(0.0), t, outside);              // eye outside: enters there
    vec3 t_leave = mix(t, vec3(inf), outside);              // eye inside: leaves there
    float t_in = max(max(t_enter.x, t_enter.y), t_enter.z);
    float t_out = min(min(t_leave.x, t_leave.y), t_leave.z);
    if (wet > 0.0 && t_in < t_out && t_in < z) {
        vec3 c8 = floor(c.rgb * 255.0 + 0.5);
        c.rgb = floor(c8 * (1.0 - walpha) + wcol * walpha + 0.5) / 255.0;
    }
    o_col = c;
    float wd = 0.0;
    if (z < inf) {
        vec3 p = eye + z * d;
        float h = max(hfield.x - hfield.y * max(p.x * hdir.x + p.y * hdir.y - hfield.z, 0.0),
                      0.0);
        wd = max(h - p.z, 0.0);
    }
    o_wd = wd;
}
"""

# Interleaved vertex: position, colour (normalized uint8), instance id.
_VERTEX = np.dtype([("pos", "<f4", 3), ("col", "u1", 4), ("id", "<i4")])
_VERTEX_FORMAT = ("3f 4f1 i", "in_pos", "in_col", "in_id")


class _Part:
    """Triangle soup (3 vertices per triangle, flat attributes) of a group of
    boxes, and the boxes themselves (for the camera-inside-a-box test)."""

    def __init__(self, boxes: Sequence[Box], ids, colors):
        ids = np.asarray(ids, np.int32).reshape(-1)
        colors = np.asarray(colors, np.uint8).reshape(-1, 3)
        if not (len(boxes) == len(ids) == len(colors)):
            raise ValueError(f"{len(boxes)} boxes, {len(ids)} ids, {len(colors)} colors")
        if np.any(ids <= 0):
            raise ValueError("instance ids must be > 0 (0 means 'nothing hit')")
        self.centers = np.array([b.center for b in boxes], float).reshape(-1, 3)
        self.halves = np.array([b.half for b in boxes], float).reshape(-1, 3)
        self.rots = np.array([b.rot for b in boxes], float).reshape(-1, 3, 3)
        verts, tris, normals = boxes_to_mesh(boxes)
        self.data = np.zeros(3 * len(tris), _VERTEX)
        self.data["pos"] = verts[tris].reshape(-1, 3)
        self.data["id"] = np.repeat(ids, 3 * TRIS_PER_BOX)
        self.tri_ids = np.repeat(ids, TRIS_PER_BOX)
        self.tri_base = np.repeat(colors, TRIS_PER_BOX, axis=0)
        self.tri_shade = (AMBIENT + DIFFUSE * np.clip(normals @ LIGHT_DIR, 0.0, None)
                          ).astype(np.float32)
        self._shade()

    def _shade(self) -> None:
        """Vertex colours = the ray caster's per-triangle colours."""
        rgb = self.tri_base.astype(np.float32) * self.tri_shade[:, None]
        rgb = np.clip(rgb + 0.5, 0, 255).astype(np.uint8)
        col = self.data["col"].reshape(-1, 3, 4)
        col[..., :3] = rgb[:, None]
        col[..., 3] = 255

    def recolor(self, ids: np.ndarray, colors: np.ndarray) -> bool:
        """Recolour the triangles of these ids; True if any is in this part."""
        if not len(self.tri_ids):
            return False
        order = np.argsort(ids, kind="stable")
        ids, colors = ids[order], colors[order]
        k = np.minimum(np.searchsorted(ids, self.tri_ids), len(ids) - 1)
        match = ids[k] == self.tri_ids
        if not match.any():
            return False
        self.tri_base[match] = colors[k[match]]
        self._shade()
        return True

    def near(self, point: np.ndarray, margin: float) -> bool:
        """Whether ``point`` lies in some box grown by ``margin`` on every side."""
        if not len(self.centers):
            return False
        local = np.einsum("nji,nj->ni", self.rots, point - self.centers)   # R^T (p - c)
        return bool(np.any(np.all(np.abs(local) <= self.halves + margin, axis=1)))


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
        self._static = _Part([], [], np.zeros((0, 3)))
        self._ray_args = [None, None]        # last set_static / set_dynamic, for cast_rays
        self._ray_mirrored = [None, None]
        self._ray_mirror = None
        self._dynamic = _Part([], [], np.zeros((0, 3)))
        self._meshes: list = [None, None]      # static, dynamic: (vao, buffer, vertex count)
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
        _live_renderers.add(self)

    def _setup_gl(self) -> None:
        import moderngl
        self._mgl = moderngl
        ctx, cam = self._ctx, self.camera
        size = (cam.width, cam.height)
        f, n, fa = cam.focal, cam.near, cam.far
        inf = float("inf")
        self._geom = ctx.program(vertex_shader=_GEOM_VS, fragment_shader=_GEOM_FS)
        self._geom["proj"].write(np.array([2 * f / cam.width, 2 * f / cam.height,
                                           (fa + n) / (fa - n), -2 * fa * n / (fa - n)],
                                          np.float32).tobytes())
        self._bg = ctx.program(vertex_shader=_FULL_VS, fragment_shader=_BG_FS)
        self._bg["bg"].write(np.append(BACKGROUND / 255.0, 1.0).astype(np.float32).tobytes())
        self._bg["inf"].value = inf
        self._water = ctx.program(vertex_shader=_WATER_VS, fragment_shader=_WATER_FS)
        self._water["inf"].value = inf
        self._water["size"].value = size
        self._water["col_tex"].value = 0
        self._water["z_tex"].value = 1
        # Window position (x, y) -> optical ray (x_n, y_n, 1), x_n = (x - W / 2) / f:
        # the centre x = u + 0.5 of pixel u gives (u - c_x) / f with c_x = (W - 1) / 2.
        self._kinv = np.array([[1 / f, 0, -cam.width / (2 * f)],
                               [0, 1 / f, -cam.height / (2 * f)], [0, 0, 1]])
        # Clockwise in window space, i.e. front facing for front_face = "cw" below.
        tri = ctx.buffer(np.array([[-1, -1], [-1, 3], [3, -1]], np.float32).tobytes())
        self._full_buf = tri
        self._bg_vao = ctx.vertex_array(self._bg, [(tri, "2f", "in_ndc")])
        self._water_vao = ctx.vertex_array(self._water, [(tri, "2f", "in_ndc")])
        # Pass 1 targets (colour and z are textures: the water pass reads them).
        self._col_tex = ctx.texture(size, 4, dtype="f1")
        self._z_tex = ctx.texture(size, 1, dtype="f4")
        for t in (self._col_tex, self._z_tex):
            t.filter = (moderngl.NEAREST, moderngl.NEAREST)
        self._id_rb = ctx.renderbuffer(size, 1, dtype="i4")
        self._depth_rb = ctx.depth_renderbuffer(size)
        self._fbo = ctx.framebuffer([self._col_tex, self._id_rb, self._z_tex], self._depth_rb)
        # Pass 2 targets: tinted colour, water depth.
        self._wcol_rb = ctx.renderbuffer(size, 4, dtype="f1")
        self._wd_rb = ctx.renderbuffer(size, 1, dtype="f4")
        self._wfbo = ctx.framebuffer([self._wcol_rb, self._wd_rb])
        # The projection keeps optical y down, which mirrors the image in
        # window space: outside faces (counter-clockwise) appear clockwise.
        ctx.front_face = "cw"
        ctx.cull_face = "back"

    # ---------------------------------------------------------------- scene
    def set_static(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that never move (floor, walls, furniture)."""
        self._static = _Part(boxes, ids, colors)
        self._upload(0, self._static)
        self._ray_args[0] = (boxes, ids, colors)

    def set_dynamic(self, boxes: Sequence[Box], ids, colors) -> None:
        """Parts that move or change (objects, flames); re-uploads their mesh."""
        self._dynamic = _Part(boxes, ids, colors)
        self._upload(1, self._dynamic)
        self._ray_args[1] = (boxes, ids, colors)

    def cast_rays(self, rays: np.ndarray) -> np.ndarray:
        """Ray distances for non-camera sensors (LiDAR): a rasterizer cannot cast arbitrary
        rays, so this keeps an Open3D ray-casting mirror of the same boxes, rebuilt lazily."""
        mirror = self._ray_mirror
        if mirror is None:
            mirror = self._ray_mirror = RaycastRenderer(self.camera)
        for k, setter in ((0, mirror.set_static), (1, mirror.set_dynamic)):
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

    def _upload(self, i: int, part: _Part) -> None:
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
                vao = ctx.vertex_array(self._geom, [(buf, *_VERTEX_FORMAT)])
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
        self._inherited = True
        self._lock = threading.RLock()      # another thread may have held it at fork

    # --------------------------------------------------------------- render
    def render(self, position, rot, water: WaterSurface | None = None) -> Frame:
        """Render from optical-frame origin ``position`` (world, (3,)) with
        world-from-optical rotation ``rot`` (3x3, see ``optical_rotation``)."""
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
            ctx.depth_func = "<="               # background: where depth is still 1
            self._bg_vao.render(mgl.TRIANGLES, vertices=3)
            fbo.read_into(seg, components=1, attachment=1, dtype="i4")
            fbo.read_into(depth, components=1, attachment=2, dtype="f4")
            if water is None:
                fbo.read_into(rgb, components=3, attachment=0, dtype="f1")
            else:
                water_depth = np.empty((h, w), np.float32)
                self._water_pass(water, pos, rot)
                self._wfbo.read_into(rgb, components=3, attachment=0, dtype="f1")
                self._wfbo.read_into(water_depth, components=1, attachment=1, dtype="f4")
        unproject = partial(self.unproject, position=pos, rot=rot)
        return Frame(rgb, depth, seg, None, water_depth, unproject)

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
