"""A group of :class:`~hazard_sim.render.mesh.Mesh` merged into flat arrays, and
the CPU shading of ray hits on them (the ray caster's mesh path).

The rasterizer uses the same arrays (merged vertices, lit colours, shade and
uv) for its vertex buffers, so both backends light meshes identically.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .mesh import Mesh, lit_colors

__all__ = ["MeshSet", "sample_bilinear"]


class MeshSet:
    """Meshes merged: ``verts`` (N, 3) float32, ``tris`` (M, 3) uint32 (global
    vertex indices), ``tri_mesh`` (M,) index of each triangle's mesh,
    ``tri_ids`` (M,) int32 instance ids; ``lit`` (N, 3) uint8 lit vertex
    colours (0 on textured meshes); ``shade`` (N,) float32 and ``uv`` (N, 2)
    float32 (only if some mesh is textured). ``tri_rgb`` (M, 3) uint8 is the
    colour of each triangle whose three lit vertex colours are equal (a
    table lookup is then exact), and ``tri_interp`` (M,) marks the others
    (colour interpolated or textured per hit)."""

    def __init__(self, meshes: Sequence[Mesh] = ()):
        meshes = list(meshes)
        for m in meshes:
            if not isinstance(m, Mesh):
                raise TypeError(f"expected hazard_sim.render.mesh.Mesh objects, got "
                                f"{type(m).__name__}")
        self.meshes = meshes
        nv = np.array([len(m.vertices) for m in meshes], np.int64)
        nt = np.array([len(m.triangles) for m in meshes], np.int64)
        self.vert_start = np.concatenate([[0], np.cumsum(nv)])
        self.tri_start = np.concatenate([[0], np.cumsum(nt)])
        if self.vert_start[-1] >= 2 ** 32 - 1:
            raise ValueError("too many mesh vertices (>= 2**32)")
        if meshes:
            self.verts = np.concatenate([m.vertices for m in meshes])
            self.tris = np.concatenate([m.triangles.astype(np.uint32) + np.uint32(s)
                                        for m, s in zip(meshes, self.vert_start[:-1])])
        else:
            self.verts = np.zeros((0, 3), np.float32)
            self.tris = np.zeros((0, 3), np.uint32)
        self.tri_mesh = np.repeat(np.arange(len(meshes), dtype=np.int32), nt)
        self.tri_ids = np.repeat(np.array([m.id for m in meshes], np.int32), nt)
        self.lit = np.zeros((len(self.verts), 3), np.uint8)
        self.textured = [i for i, m in enumerate(meshes) if m.textured]
        self.shade = self.uv = None
        if self.textured:
            self.shade = np.zeros(len(self.verts), np.float32)
            self.uv = np.zeros((len(self.verts), 2), np.float32)
        for i, m in enumerate(meshes):
            sl = slice(self.vert_start[i], self.vert_start[i + 1])
            if m.textured:
                self.shade[sl] = m.shade()
                self.uv[sl] = m.uv
            else:
                self.lit[sl] = lit_colors(m)
        c = self.lit[self.tris]                                       # (M, 3, 3)
        self.tri_rgb = np.ascontiguousarray(c[:, 0])
        self.tri_interp = ~((c[:, 0] == c[:, 1]) & (c[:, 0] == c[:, 2])).all(-1)
        for i in self.textured:
            self.tri_interp[self.tri_start[i]:self.tri_start[i + 1]] = True

    def __len__(self) -> int:
        return len(self.tris)

    def colors(self, prim: np.ndarray, bary: np.ndarray) -> np.ndarray:
        """Shaded colours (K, 3) uint8 of hits on triangles ``prim`` (K,) (local
        indices) at barycentric ``bary`` (K, 2): the hit is
        ``(1 - b0 - b1) v0 + b0 v1 + b1 v2`` (Embree's convention)."""
        t = self.tris[prim]                                          # (K, 3)
        w1, w2 = bary[:, 0:1], bary[:, 1:2]
        w0 = np.float32(1.0) - w1 - w2
        out = np.empty((len(prim), 3), np.uint8)
        if not self.textured:
            c = self.lit[t[:, 0]] * w0 + self.lit[t[:, 1]] * w1 + self.lit[t[:, 2]] * w2
            np.floor(c + np.float32(0.5), out=c)
            out[:] = np.clip(c, 0, 255)
            return out
        which = self.tri_mesh[prim]
        tex_mask = np.isin(which, self.textured)
        col = ~tex_mask
        if col.any():
            tc = t[col]
            c = (self.lit[tc[:, 0]] * w0[col] + self.lit[tc[:, 1]] * w1[col]
                 + self.lit[tc[:, 2]] * w2[col])
            out[col] = np.clip(np.floor(c + np.float32(0.5)), 0, 255)
        for i in self.textured:
            sel = which == i
            if not sel.any():
                continue
            ts, a, b, c = t[sel], w0[sel], w1[sel], w2[sel]
            uv = self.uv[ts[:, 0]] * a + self.uv[ts[:, 1]] * b + self.uv[ts[:, 2]] * c
            sh = self.shade[ts[:, 0]] * a[:, 0] + self.shade[ts[:, 1]] * b[:, 0] \
                + self.shade[ts[:, 2]] * c[:, 0]
            rgb = sample_bilinear(self.meshes[i].texture, uv) * sh[:, None]
            out[sel] = np.clip(np.floor(rgb + np.float32(0.5)), 0, 255)
        return out


def sample_bilinear(tex: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Bilinear samples (K, 3) float32 in 0..255 of an (H, W, 3) uint8 image at
    ``uv`` (K, 2), OpenGL's GL_LINEAR with GL_CLAMP_TO_EDGE: u spans the width
    from the left edge of column 0 to the right edge of the last column, v the
    height from the top edge of row 0 down."""
    h, w = tex.shape[:2]
    x = uv[:, 0] * np.float32(w) - np.float32(0.5)
    y = uv[:, 1] * np.float32(h) - np.float32(0.5)
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = (x - x0)[:, None], (y - y0)[:, None]
    x0 = x0.astype(np.int64)
    y0 = y0.astype(np.int64)
    xa, xb = np.clip(x0, 0, w - 1), np.clip(x0 + 1, 0, w - 1)
    ya, yb = np.clip(y0, 0, h - 1), np.clip(y0 + 1, 0, h - 1)
    top = tex[ya, xa] * (np.float32(1) - fx) + tex[ya, xb] * fx
    bot = tex[yb, xa] * (np.float32(1) - fx) + tex[yb, xb] * fx
    return (top * (np.float32(1) - fy) + bot * fy).astype(np.float32)
