"""Triangle meshes for the renderers: boxes, height-field terrain, textured quads.

A :class:`Mesh` is an indexed triangle mesh with one instance id (kept in the
segmentation image) and either per-vertex colours or per-vertex texture
coordinates plus an RGB texture. Both backends shade it the same way:

* Lambert shading with the renderers' fixed light (``LIGHT_DIR``, ``AMBIENT``,
  ``DIFFUSE``), evaluated per *vertex* from the vertex normals and
  interpolated across each triangle (Gouraud). A mesh with hard edges (a box)
  repeats its corner vertices with one normal per face, so its faces come out
  flat; a smooth surface (terrain) shares its vertices.
* Per-vertex colours are lit on the CPU (``lit_colors``: rounded to uint8 the
  way the box renderer rounds its per-face colours) and then interpolated.
* Textures are sampled bilinearly (clamped at the edges, no mipmaps) and
  multiplied by the interpolated shade. ``uv = (0, 0)`` is the top-left corner
  of the image (row 0, column 0), ``(1, 1)`` its bottom-right corner.

Meshes are two-sided: they are seen (and hit by rays) from both sides, as
needed for open surfaces such as terrain and whiteboards.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..geometry import Box

__all__ = ["AMBIENT", "BACKGROUND", "DIFFUSE", "LIGHT_DIR", "Mesh", "TRIS_PER_BOX", "box_mesh",
           "boxes_to_mesh", "heightfield_mesh", "lambert", "lit_colors", "quad_mesh",
           "text_texture", "vertex_normals"]

# Fixed light (world frame, pointing towards the light) and shading weights.
LIGHT_DIR = np.array([0.35, 0.25, 1.0]) / np.linalg.norm([0.35, 0.25, 1.0])
AMBIENT = 0.45
DIFFUSE = 0.55
BACKGROUND = np.array([0, 0, 0], np.uint8)  # colour where nothing is hit

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


def lambert(normals: np.ndarray) -> np.ndarray:
    """Shade factor in [AMBIENT, 1] of unit normals (..., 3) under the fixed light."""
    return AMBIENT + DIFFUSE * np.clip(normals @ LIGHT_DIR, 0.0, None)


class BoxGroup:
    """A group of boxes as one triangle mesh (``verts``, ``tris``: ``boxes_to_mesh``) with
    per-triangle instance ids, base colours and Lambert shades; both renderers keep their
    static and dynamic boxes as one group each."""

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
        self.tri_shade = lambert(normals)

    def recolor(self, ids: np.ndarray, colors: np.ndarray) -> bool:
        """Give the triangles of these ids (a non-empty int32 array) their new colours
        ((N, 3) uint8); True if any is in this group."""
        if not len(self.tri_ids):
            return False
        order = np.argsort(ids, kind="stable")
        ids, colors = ids[order], colors[order]
        k = np.minimum(np.searchsorted(ids, self.tri_ids), len(ids) - 1)
        match = ids[k] == self.tri_ids
        if not match.any():
            return False
        self.tri_base[match] = colors[k[match]]
        return True


@dataclass(eq=False)
class Mesh:
    """An indexed triangle mesh with one instance id.

    * ``vertices`` (N, 3) float32, world coordinates (m).
    * ``triangles`` (M, 3) int32 vertex indices (counter-clockwise seen from
      the side the normals point to; meshes are drawn two-sided anyway).
    * ``id`` instance id (> 0) written into the segmentation image.
    * Either ``colors`` (N, 3) uint8 per-vertex colours, or ``uv`` (N, 2)
      float32 texture coordinates plus ``texture`` (H, W, 3) uint8.
    * ``normals`` (N, 3) unit vertex normals for the shading; ``None``:
      area-weighted averages of the adjacent face normals.
    """

    vertices: np.ndarray
    triangles: np.ndarray
    id: int
    colors: np.ndarray | None = None
    uv: np.ndarray | None = None
    texture: np.ndarray | None = None
    normals: np.ndarray | None = None

    def transformed(self, rot, center, id: int | None = None) -> "Mesh":
        """This mesh (in a local frame) placed at world pose ``rot`` (3x3), ``center`` (3,);
        ``id`` replaces the instance id (an entity's)."""
        R = np.asarray(rot, np.float64)
        v = (self.vertices.astype(np.float64) @ R.T + np.asarray(center, np.float64)).astype(np.float32)
        n = None if self.normals is None else (self.normals.astype(np.float64) @ R.T).astype(np.float32)
        return Mesh(v, self.triangles, self.id if id is None else id, self.colors, self.uv, self.texture, n)

    def __post_init__(self):
        self.vertices = np.ascontiguousarray(self.vertices, np.float32).reshape(-1, 3)
        tris = np.asarray(self.triangles)
        if tris.size and not np.issubdtype(tris.dtype, np.integer):
            raise ValueError(f"triangles must be integer vertex indices, got {tris.dtype}")
        self.triangles = np.ascontiguousarray(tris, np.int32).reshape(-1, 3)
        n = len(self.vertices)
        if len(self.triangles) and (self.triangles.min() < 0 or self.triangles.max() >= n):
            raise ValueError(f"triangle vertex indices must be in [0, {n})")
        self.id = int(self.id)
        if self.id <= 0 or self.id > np.iinfo(np.int32).max:
            raise ValueError(f"mesh instance id must be a positive int32 (0 means 'nothing "
                             f"hit'), got {self.id}")
        if (self.colors is None) == (self.texture is None):
            raise ValueError("a Mesh needs either per-vertex colors or uv + texture (exactly one)")
        if self.colors is not None:
            c = np.asarray(self.colors)
            if c.shape == (3,):
                c = np.broadcast_to(c, (n, 3))
            if c.shape != (n, 3):
                raise ValueError(f"colors must be (N={n}, 3) or (3,), got {c.shape}")
            self.colors = np.ascontiguousarray(c, np.uint8)
            if self.uv is not None:
                raise ValueError("uv is only used with a texture")
        else:
            tex = np.asarray(self.texture)
            if tex.ndim != 3 or tex.shape[2] != 3 or tex.shape[0] < 1 or tex.shape[1] < 1:
                raise ValueError(f"texture must be an (H, W, 3) uint8 RGB image, got {tex.shape}")
            self.texture = np.ascontiguousarray(tex, np.uint8)
            if self.uv is None:
                raise ValueError("a textured Mesh needs per-vertex uv (N, 2)")
            self.uv = np.ascontiguousarray(self.uv, np.float32)
            if self.uv.shape != (n, 2):
                raise ValueError(f"uv must be (N={n}, 2), got {self.uv.shape}")
        if self.normals is None:
            self.normals = vertex_normals(self.vertices, self.triangles)
        else:
            nrm = np.asarray(self.normals)          # float32 or float64 kept as given
            if not np.issubdtype(nrm.dtype, np.floating):
                nrm = nrm.astype(np.float64)
            if nrm.shape != (n, 3):
                raise ValueError(f"normals must be (N={n}, 3), got {nrm.shape}")
            self.normals = nrm

    @property
    def textured(self) -> bool:
        return self.texture is not None

    def shade(self) -> np.ndarray:
        """Per-vertex Lambert shade factor (N,) float32."""
        return lambert(self.normals).astype(np.float32)


def lit_colors(mesh: Mesh) -> np.ndarray:
    """Per-vertex colours (N, 3) uint8 with the shading applied and rounded
    exactly as the box renderer rounds its per-face colours."""
    rgb = mesh.colors.astype(np.float32) * mesh.shade()[:, None]
    return np.clip(rgb + 0.5, 0, 255).astype(np.uint8)


def vertex_normals(vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """Area-weighted unit vertex normals (N, 3) float32 (+z for unused vertices)."""
    n = len(vertices)
    v = vertices.astype(np.float64)
    t = triangles
    face = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])  # length = 2 * area
    out = np.empty((n, 3))
    for k in range(3):
        w = np.repeat(face[:, k], 3)
        out[:, k] = np.bincount(t.reshape(-1), weights=w, minlength=n)
    norm = np.linalg.norm(out, axis=1)
    out[norm == 0] = (0.0, 0.0, 1.0)
    norm[norm == 0] = 1.0
    return (out / norm[:, None]).astype(np.float32)


def box_mesh(box: Box, color, id: int) -> Mesh:
    """A box as a flat-shaded mesh (36 vertices, 12 triangles): the same
    triangles, normals and rounded colours as the box renderer's, so
    ``set_static_meshes([box_mesh(b, c, i)])`` draws what
    ``set_static([b], [i], [c])`` draws."""
    verts, tris, normals = boxes_to_mesh([box])
    return Mesh(vertices=verts[tris.reshape(-1)], triangles=np.arange(36, dtype=np.int32).reshape(12, 3),
                id=id, colors=np.broadcast_to(np.asarray(color, np.uint8).reshape(3), (36, 3)),
                normals=np.repeat(normals, 3, axis=0))


def heightfield_mesh(heights, origin=(0.0, 0.0), spacing=1.0, colors=None, texture=None,
                     id: int = 1) -> Mesh:
    """Terrain from a height grid: sample ``heights[i, j]`` (m) sits at
    ``x = origin[0] + j * dx``, ``y = origin[1] + i * dy`` and
    ``z = origin[2] (if given) + heights[i, j]``, with ``spacing`` = d or (dx, dy).

    Give ``colors`` as one RGB colour (3,) or per sample (H, W, 3) uint8, or a
    ``texture`` (h, w, 3) uint8 draped over the whole grid: texture row 0 lies
    along grid row 0 (``y = origin[1]``), texture column 0 along grid column 0.
    Each grid cell is two triangles (split along its (i, j)-(i+1, j+1)
    diagonal); normals come from central differences of the heights, so the
    terrain is smoothly shaded. A 1000 x 1000 grid has 1e6 vertices and
    2e6 triangles (about 60 MB as arrays).
    """
    h = np.asarray(heights, np.float32)
    if h.ndim != 2 or h.shape[0] < 2 or h.shape[1] < 2:
        raise ValueError(f"heights must be a 2D grid of at least 2 x 2 samples, got {h.shape}")
    if not np.isfinite(h).all():
        raise ValueError("heights must be finite")
    rows, cols = h.shape
    o = np.asarray(origin, float).reshape(-1)
    if o.size not in (2, 3):
        raise ValueError(f"origin must be (x, y) or (x, y, z), got {origin!r}")
    dx, dy = (np.broadcast_to(np.asarray(spacing, float), (2,))).tolist()
    if dx <= 0 or dy <= 0:
        raise ValueError(f"spacing must be > 0, got {spacing!r}")
    z0 = o[2] if o.size == 3 else 0.0
    verts = np.empty((rows, cols, 3), np.float32)
    verts[..., 0] = (o[0] + dx * np.arange(cols))[None, :]
    verts[..., 1] = (o[1] + dy * np.arange(rows))[:, None]
    verts[..., 2] = h + np.float32(z0)
    # Normal of z = h(x, y): (-dh/dx, -dh/dy, 1), normalised.
    gy, gx = np.gradient(h, dy, dx)
    nrm = np.stack([-gx, -gy, np.ones_like(gx)], axis=-1)
    nrm /= np.linalg.norm(nrm, axis=-1, keepdims=True)
    idx = np.arange(rows * cols, dtype=np.int32).reshape(rows, cols)
    v00, v01 = idx[:-1, :-1], idx[:-1, 1:]
    v10, v11 = idx[1:, :-1], idx[1:, 1:]
    # Counter-clockwise seen from above (+z): x grows with j, y with i.
    tris = np.stack([np.stack([v00, v01, v11], -1), np.stack([v00, v11, v10], -1)], axis=2)
    kw = {}
    if texture is not None:
        if colors is not None:
            raise ValueError("give colors or texture, not both")
        uv = np.empty((rows, cols, 2), np.float32)
        uv[..., 0] = (np.arange(cols) / (cols - 1))[None, :]
        uv[..., 1] = (np.arange(rows) / (rows - 1))[:, None]
        kw = dict(uv=uv.reshape(-1, 2), texture=texture)
    else:
        if colors is None:
            raise ValueError("heightfield_mesh needs colors (3,) / (H, W, 3) or a texture")
        c = np.asarray(colors, np.uint8)
        if c.shape == (3,):
            c = np.broadcast_to(c, (rows, cols, 3))
        if c.shape != (rows, cols, 3):
            raise ValueError(f"colors must be (3,) or (H={rows}, W={cols}, 3), got {c.shape}")
        kw = dict(colors=c.reshape(-1, 3))
    return Mesh(vertices=verts.reshape(-1, 3), triangles=tris.reshape(-1, 3), id=id,
                normals=nrm.reshape(-1, 3).astype(np.float32), **kw)


def quad_mesh(corners, id: int, color=None, texture=None) -> Mesh:
    """A flat quadrilateral (e.g. a whiteboard) from its 4 corners (4, 3) in the
    order top-left, top-right, bottom-right, bottom-left *as seen from its
    front*; the normal points to the front. With ``texture`` the image's
    top-left corner lands on the top-left corner of the quad."""
    c = np.asarray(corners, np.float32).reshape(4, 3)
    tl, tr, br, bl = range(4)
    tris = np.array([[tl, bl, br], [tl, br, tr]], np.int32)        # counter-clockwise from the front
    n = np.cross(c[bl] - c[tl], c[br] - c[tl]).astype(np.float64)
    if np.linalg.norm(n) == 0:
        raise ValueError("degenerate quad corners")
    normals = np.tile(n / np.linalg.norm(n), (4, 1))
    if texture is not None:
        if color is not None:
            raise ValueError("give color or texture, not both")
        uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
        return Mesh(c, tris, id, uv=uv, texture=texture, normals=normals)
    if color is None:
        raise ValueError("quad_mesh needs a color or a texture")
    return Mesh(c, tris, id, colors=np.asarray(color, np.uint8), normals=normals)


def text_texture(lines, width: int = 512, height: int | None = None, font_size: int = 40,
                 fg=(0, 0, 0), bg=(255, 255, 255), margin: int = 16,
                 line_spacing: float = 1.3, font: str | None = None) -> np.ndarray:
    """An (H, W, 3) uint8 image with ``lines`` (a str or a list of str) of text,
    drawn with Pillow, left-aligned from the top-left margin (e.g. a whiteboard).

    ``font`` is a TrueType file; by default Pillow's built-in scalable font
    (the same on every machine). ``height`` ``None`` fits the text.
    """
    from PIL import Image, ImageDraw, ImageFont

    if isinstance(lines, str):
        lines = lines.splitlines() or [""]
    lines = [str(s) for s in lines]
    fnt = ImageFont.truetype(font, font_size) if font else ImageFont.load_default(font_size)
    step = int(round(font_size * line_spacing))
    if height is None:
        height = 2 * margin + step * max(len(lines), 1)
    img = Image.new("RGB", (int(width), int(height)), tuple(int(v) for v in bg))
    draw = ImageDraw.Draw(img)
    for k, line in enumerate(lines):
        draw.text((margin, margin + k * step), line, fill=tuple(int(v) for v in fg), font=fnt)
    return np.asarray(img, np.uint8).copy()
