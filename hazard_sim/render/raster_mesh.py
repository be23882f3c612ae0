"""OpenGL vertex data of a group of boxes and buffers of a group of meshes for the raster
backend.

A box group (:class:`GLBoxGroup`) is a triangle soup, three vertices a triangle with flat
attributes (position, the ray caster's shaded colour, id), redrawn after a recolouring.

Coloured meshes of a group share one indexed vertex buffer (position, lit
colour, id: 20 bytes a vertex, 12 bytes a triangle); each textured mesh has
its own buffers (position, uv, shade, id) and its RGB texture (GL_LINEAR,
clamped at the edges, no mipmaps; see mesh.py). Meshes are drawn two-sided
(without back-face culling): terrain and boards are open surfaces.

Large meshes (terrain) are cut into spatial chunks: their triangles are
ordered by an xy grid cell of the triangle centroid, each chunk keeps its
world bounding box, and ``draw`` skips the chunks whose box lies wholly
outside the view frustum (llvmpipe is bound by vertex work on such meshes).
Culling whole chunks never changes a pixel: skipped triangles are invisible.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..geometry import Box
from .mesh import BoxGroup, Mesh, lit_colors

__all__ = ["COL_FORMAT", "GLBoxGroup", "GLMeshGroup"]

_COL_VERTEX = np.dtype([("pos", "<f4", 3), ("col", "u1", 4), ("id", "<i4")])
COL_FORMAT = ("3f 4f1 i", "in_pos", "in_col", "in_id")
_TEX_VERTEX = np.dtype([("pos", "<f4", 3), ("uv", "<f4", 2), ("shade", "<f4"), ("id", "<i4")])
_TEX_FORMAT = ("3f 2f f i", "in_pos", "in_uv", "in_shade", "in_id")
CHUNK_TRIANGLES = 8192          # target triangles per chunk of a large mesh


class GLBoxGroup(BoxGroup):
    """A :class:`~.mesh.BoxGroup` as interleaved vertices ``data`` (three a triangle, flat
    attributes), and its boxes (for the camera-inside-a-box test)."""

    def __init__(self, boxes: Sequence[Box], ids, colors):
        super().__init__(boxes, ids, colors)
        self.tri_shade = self.tri_shade.astype(np.float32)
        self.centers = np.array([b.center for b in boxes], float).reshape(-1, 3)
        self.halves = np.array([b.half for b in boxes], float).reshape(-1, 3)
        self.rots = np.array([b.rot for b in boxes], float).reshape(-1, 3, 3)
        self.data = np.zeros(3 * len(self.tris), _COL_VERTEX)
        self.data["pos"] = self.verts[self.tris].reshape(-1, 3)
        self.data["id"] = np.repeat(self.tri_ids, 3)
        self._shade()

    def _shade(self) -> None:
        """Vertex colours = the ray caster's per-triangle colours."""
        rgb = self.tri_base.astype(np.float32) * self.tri_shade[:, None]
        rgb = np.clip(rgb + 0.5, 0, 255).astype(np.uint8)
        col = self.data["col"].reshape(-1, 3, 4)
        col[..., :3] = rgb[:, None]
        col[..., 3] = 255

    def recolor(self, ids: np.ndarray, colors: np.ndarray) -> bool:
        if not super().recolor(ids, colors):
            return False
        self._shade()
        return True

    def near(self, point: np.ndarray, margin: float) -> bool:
        """Whether ``point`` lies in some box grown by ``margin`` on every side."""
        if not len(self.centers):
            return False
        local = np.einsum("nji,nj->ni", self.rots, point - self.centers)   # R^T (p - c)
        return bool(np.any(np.all(np.abs(local) <= self.halves + margin, axis=1)))


def chunk_triangles(verts: np.ndarray, tris: np.ndarray):
    """``(tris reordered, starts (C + 1,), lo (C, 3), hi (C, 3))``: triangles
    grouped into chunks of about ``CHUNK_TRIANGLES`` by an xy grid over the
    centroids, chunk c being ``tris[starts[c]:starts[c + 1]]`` with world
    bounding box [lo[c], hi[c]]."""
    m = len(tris)
    k = int(np.ceil(np.sqrt(m / CHUNK_TRIANGLES))) if m else 1
    p = verts[tris]                                          # (M, 3, 3)
    tlo, thi = p.min(1), p.max(1)
    if k > 1:
        cen = (tlo[:, :2] + thi[:, :2]) * 0.5
        lo, hi = cen.min(0), cen.max(0)
        cell = np.clip(((cen - lo) / np.maximum(hi - lo, 1e-9) * k).astype(np.int64), 0, k - 1)
        order = np.argsort(cell[:, 1] * k + cell[:, 0], kind="stable")
        key = (cell[:, 1] * k + cell[:, 0])[order]
        tris, tlo, thi = tris[order], tlo[order], thi[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    else:
        starts = np.zeros(1, np.int64)
    lo = np.minimum.reduceat(tlo, starts) if m else np.zeros((0, 3))
    hi = np.maximum.reduceat(thi, starts) if m else np.zeros((0, 3))
    return tris, np.r_[starts, m], lo, hi


def visible_chunks(lo, hi, eye, view, tx, ty, near, far) -> np.ndarray:
    """Boolean (C,): chunks whose bounding box may intersect the view frustum.
    ``view`` is optical-from-world; ``tx``, ``ty`` the tangents of the half
    fields of view. A box is culled when all 8 corners lie outside one plane."""
    corners = np.stack([np.where(np.array(b, bool), hi, lo)
                        for b in np.ndindex(2, 2, 2)], axis=1)       # (C, 8, 3)
    q = (corners - eye) @ view.T                                      # optical frame
    x, y, z = q[..., 0], q[..., 1], q[..., 2]
    out = ((z < near).all(1) | (z > far).all(1) | (x > tx * z).all(1) | (-x > tx * z).all(1)
           | (y > ty * z).all(1) | (-y > ty * z).all(1))
    return ~out


def _colored_data(colored: Sequence[Mesh]):
    """(vertex records, uint32 triangle index) of coloured meshes sharing one buffer."""
    n = sum(len(m.vertices) for m in colored)
    data = np.empty(n, _COL_VERTEX)
    index, start = [], 0
    for m in colored:
        sl = slice(start, start + len(m.vertices))
        data["pos"][sl] = m.vertices
        data["col"][sl, :3] = lit_colors(m)
        data["id"][sl] = m.id
        index.append(m.triangles.astype(np.uint32) + np.uint32(start))
        start += len(m.vertices)
    data["col"][:, 3] = 255
    return data, np.concatenate(index)


class GLMeshGroup:
    """The GL objects of ``meshes`` in ``ctx``; ``draw()`` issues their draw calls."""

    def __init__(self, ctx, col_prog, tex_prog, meshes: Sequence[Mesh]):
        for m in meshes:
            if not isinstance(m, Mesh):
                raise TypeError(f"expected hazard_sim.render.mesh.Mesh objects, got "
                                f"{type(m).__name__}")
        import moderngl
        self._objects = []                        # everything to release
        self.draws = []                           # (vao, texture or None)
        colored = [m for m in meshes if not m.textured]
        max_tex = int(ctx.info["GL_MAX_TEXTURE_SIZE"])
        for m in meshes:
            if m.textured and max(m.texture.shape[:2]) > max_tex:
                raise ValueError(f"texture of mesh {m.id} is {m.texture.shape[1]} x "
                                 f"{m.texture.shape[0]}; this OpenGL allows at most {max_tex} "
                                 f"pixels a side")
        self._col_index = None                    # the coloured meshes' index buffer contents
        try:
            if colored and sum(len(m.triangles) for m in colored):
                data, index = _colored_data(colored)
                self._add(ctx, col_prog, data, index, None)
                self._col_index = index if len(meshes) == len(colored) and self.draws[0][3] is None else None
            for m in meshes:
                if not m.textured or not len(m.triangles):
                    continue
                data = np.empty(len(m.vertices), _TEX_VERTEX)
                data["pos"], data["uv"], data["shade"], data["id"] = (m.vertices, m.uv,
                                                                      m.shade(), m.id)
                h, w = m.texture.shape[:2]
                tex = ctx.texture((w, h), 3, m.texture.tobytes(), alignment=1)
                self._objects.append(tex)
                tex.filter = (moderngl.LINEAR, moderngl.LINEAR)
                tex.repeat_x = tex.repeat_y = False
                self._add(ctx, tex_prog, data, m.triangles.astype(np.uint32), tex)
        except Exception:
            self.release()
            raise

    def _add(self, ctx, prog, data, index, tex) -> None:
        fmt = _TEX_FORMAT if tex is not None else COL_FORMAT
        chunks = None
        if len(index) > 4 * CHUNK_TRIANGLES:
            index, starts, lo, hi = chunk_triangles(data["pos"], index)
            chunks = (3 * starts, lo, hi)                    # in index-buffer elements
        vbo = ctx.buffer(data)
        self._objects.append(vbo)
        ibo = ctx.buffer(np.ascontiguousarray(index))
        self._objects.append(ibo)
        vao = ctx.vertex_array(prog, [(vbo, *fmt)], index_buffer=ibo, index_element_size=4)
        self._objects.append(vao)
        self.draws.append((vao, tex, 3 * len(index), chunks))

    def draw(self, mode, frustum=None) -> None:
        """Draw every mesh; with ``frustum`` = (eye, view, tx, ty, near, far)
        only the chunks of large meshes that may be in view."""
        for vao, tex, count, chunks in self.draws:
            if tex is not None:
                tex.use(0)
            if chunks is None or frustum is None:
                vao.render(mode, vertices=count)
                continue
            starts, lo, hi = chunks
            vis = visible_chunks(lo, hi, *frustum)
            # Runs of consecutive visible chunks become one draw call each.
            edges = np.flatnonzero(np.diff(np.r_[0, vis.astype(np.int8), 0]))
            for a, b in zip(edges[::2], edges[1::2]):
                vao.render(mode, vertices=int(starts[b] - starts[a]), first=int(starts[a]))

    def update(self, meshes: Sequence[Mesh]) -> bool:
        """Write new vertices (positions, colours, ids) into the buffers in place when
        ``meshes`` are coloured meshes with the triangles this group was built with (people
        walking: the same meshes posed anew); False (nothing changed) otherwise."""
        if self._col_index is None or not meshes or any(not isinstance(m, Mesh) or m.textured for m in meshes):
            return False
        data, index = _colored_data(meshes)
        if len(index) != len(self._col_index) or not np.array_equal(index, self._col_index):
            return False
        vbo = self._objects[0]
        if vbo.size != data.nbytes:
            return False
        vbo.write(data)
        return True

    def release(self) -> None:
        for o in reversed(self._objects):
            o.release()
        self._objects, self.draws = [], []
