"""OpenGL buffers of a group of meshes for the raster backend.

Coloured meshes of a group share one indexed vertex buffer (position, lit
colour, id: 20 bytes a vertex, 12 bytes a triangle); each textured mesh has
its own buffers (position, uv, shade, id) and its RGB texture (GL_LINEAR,
clamped at the edges, no mipmaps; see mesh.py). Meshes are drawn two-sided
(without back-face culling): terrain and boards are open surfaces.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .mesh import Mesh, lit_colors

__all__ = ["GLMeshGroup"]

_COL_VERTEX = np.dtype([("pos", "<f4", 3), ("col", "u1", 4), ("id", "<i4")])
_COL_FORMAT = ("3f 4f1 i", "in_pos", "in_col", "in_id")
_TEX_VERTEX = np.dtype([("pos", "<f4", 3), ("uv", "<f4", 2), ("shade", "<f4"), ("id", "<i4")])
_TEX_FORMAT = ("3f 2f f i", "in_pos", "in_uv", "in_shade", "in_id")


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
        try:
            if colored and sum(len(m.triangles) for m in colored):
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
                self._add(ctx, col_prog, data, _COL_FORMAT, np.concatenate(index), None)
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
                self._add(ctx, tex_prog, data, _TEX_FORMAT, m.triangles.astype(np.uint32), tex)
        except Exception:
            self.release()
            raise

    def _add(self, ctx, prog, data, fmt, index, tex) -> None:
        vbo = ctx.buffer(data)
        self._objects.append(vbo)
        ibo = ctx.buffer(np.ascontiguousarray(index))
        self._objects.append(ibo)
        vao = ctx.vertex_array(prog, [(vbo, *fmt)], index_buffer=ibo, index_element_size=4)
        self._objects.append(vao)
        self.draws.append((vao, tex))

    def draw(self, mode) -> None:
        for vao, tex in self.draws:
            if tex is not None:
                tex.use(0)
            vao.render(mode)

    def release(self) -> None:
        for o in reversed(self._objects):
            o.release()
        self._objects, self.draws = [], []
