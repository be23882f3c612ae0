"""Parametric mesh primitives for DOZE's objects, furniture details and people.

Every primitive returns a :class:`Part`: vertices (N, 3), triangles (M, 3) and
per-vertex colours (N, 3) in a local frame (z up, metres).  Colours may come
from a function of the local vertex positions (seams of a ball, stripes of a
vase, the dots of a mug).  :class:`Shape` collects parts (plus textured quads
such as a brand label) and turns them into render meshes with one instance id.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hazard_sim.render.mesh import Mesh, boxes_to_mesh, quad_mesh

Color = tuple[int, int, int]


@dataclass
class Part:
    v: np.ndarray          # (N, 3) float
    t: np.ndarray          # (M, 3) int
    c: np.ndarray          # (N, 3) uint8

    def moved(self, rot=None, offset=(0.0, 0.0, 0.0)) -> "Part":
        v = self.v if rot is None else self.v @ np.asarray(rot, float).T
        return Part(v + np.asarray(offset, float), self.t, self.c)


def _colors(v: np.ndarray, color) -> np.ndarray:
    if callable(color):
        c = np.asarray(color(v), float)
    else:
        c = np.broadcast_to(np.asarray(color, float), v.shape)
    return np.clip(c, 0, 255).astype(np.uint8)


def rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def lathe(profile, color, seg: int = 16, center=(0.0, 0.0, 0.0), scale=(1.0, 1.0)) -> Part:
    """A surface of revolution about z of ``profile`` [(radius, z), ...] (bottom to top);
    ``scale`` stretches x and y (an oval vase, a flattened lamp)."""
    p = np.asarray(profile, float)
    a = np.linspace(0, 2 * np.pi, seg, endpoint=False)
    ca, sa = np.cos(a), np.sin(a)
    v = np.stack([p[:, 0:1] * ca[None] * scale[0], p[:, 0:1] * sa[None] * scale[1],
                  np.repeat(p[:, 1:2], seg, 1)], -1).reshape(-1, 3)
    rows, k = len(p), np.arange(seg)
    tris = []
    for i in range(rows - 1):
        a0, a1 = i * seg + k, i * seg + (k + 1) % seg
        b0, b1 = a0 + seg, a1 + seg
        tris.append(np.stack([a0, a1, b1], -1))
        tris.append(np.stack([a0, b1, b0], -1))
    v = v + np.asarray(center, float)
    return Part(v, np.concatenate(tris).astype(np.int32), _colors(v - np.asarray(center, float), color)
                if callable(color) else _colors(v, color))


def ellipsoid(center, radii, color, rings: int = 8, seg: int = 14) -> Part:
    """An ellipsoid (a sphere when the radii agree); colour functions see the local
    (centred, unscaled) vertex directions times the radii."""
    th = np.linspace(0, np.pi, rings + 1)
    prof = np.stack([np.sin(th), -np.cos(th)], -1)
    prof[0, 0] = prof[-1, 0] = 1e-4
    part = lathe(prof, (0, 0, 0), seg)
    v = part.v * np.asarray(radii, float)
    return Part(v + np.asarray(center, float), part.t, _colors(v, color))


def sphere(center, r, color, rings: int = 8, seg: int = 14) -> Part:
    return ellipsoid(center, (r, r, r), color, rings, seg)


def cylinder(r, h, color, center=(0.0, 0.0, 0.0), seg: int = 14, r_top=None) -> Part:
    """A closed cylinder (a cone frustum with ``r_top``) standing on ``center``."""
    rt = r if r_top is None else r_top
    prof = [(1e-4, 0.0), (r, 0.0), (r, 0.0), (rt, h), (rt, h), (1e-4, h)]
    return lathe(prof, color, seg, center)


def cone(r, h, color, center=(0.0, 0.0, 0.0), seg: int = 12) -> Part:
    return lathe([(1e-4, 0.0), (r, 0.0), (1e-4, h)], color, seg, center)


def rod(a, b, r, color, seg: int = 8) -> Part:
    """A cylinder of radius ``r`` from point ``a`` to point ``b`` (legs, handles, spouts)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    length = float(np.linalg.norm(d))
    part = cylinder(r, length, (0, 0, 0), seg=seg)
    z = d / max(length, 1e-9)
    x = np.cross(z, [0.0, 0.0, 1.0]) if abs(z[2]) < 0.99 else np.array([1.0, 0.0, 0.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.stack([x, y, z], 1)
    v = part.v @ R.T + a
    return Part(v, part.t, _colors(part.v, color))


def box(center, size, color, yaw: float = 0.0) -> Part:
    """A flat-shaded box of full ``size`` (x, y, z) around ``center``."""
    from hazard_sim.geometry import Box
    verts, tris, _ = boxes_to_mesh([Box.from_yaw(center, np.asarray(size, float) / 2, yaw)])
    v = verts[tris.reshape(-1)].astype(float)
    return Part(v, np.arange(len(v), dtype=np.int32).reshape(-1, 3), _colors(v - np.asarray(center, float), color)
                if callable(color) else _colors(v, color))


def torus(R, r, color, center=(0.0, 0.0, 0.0), rot=None, seg: int = 16, tube: int = 8, arc: float = 2 * np.pi
          ) -> Part:
    """A torus (or an arc of one: a mug's handle) about z, then rotated by ``rot``."""
    closed = arc >= 2 * np.pi - 1e-9
    n_u = seg if closed else seg + 1
    u = np.linspace(0, arc, n_u, endpoint=not closed)
    w = np.linspace(0, 2 * np.pi, tube, endpoint=False)
    uu, ww = np.meshgrid(u, w, indexing="ij")
    v = np.stack([(R + r * np.cos(ww)) * np.cos(uu), (R + r * np.cos(ww)) * np.sin(uu), r * np.sin(ww)], -1)
    v = v.reshape(-1, 3)
    tris = []
    for i in range(n_u if closed else n_u - 1):
        i1 = (i + 1) % n_u
        for j in range(tube):
            j1 = (j + 1) % tube
            a, b, c, d = i * tube + j, i1 * tube + j, i1 * tube + j1, i * tube + j1
            tris += [(a, b, c), (a, c, d)]
    local = v
    if rot is not None:
        v = v @ np.asarray(rot, float).T
    return Part(v + np.asarray(center, float), np.array(tris, np.int32), _colors(local, color))


def merge(parts) -> Part:
    vs, ts, cs, n = [], [], [], 0
    for p in parts:
        vs.append(p.v)
        ts.append(p.t + n)
        cs.append(p.c)
        n += len(p.v)
    return Part(np.concatenate(vs), np.concatenate(ts), np.concatenate(cs))


@dataclass
class Label:
    """A textured quad on a shape (a brand label, a book's title): corners as quad_mesh takes them."""
    corners: np.ndarray
    texture: np.ndarray


@dataclass
class Shape:
    """An object's geometry in its local frame (origin at the bottom centre, z up)."""
    parts: list = field(default_factory=list)
    labels: list = field(default_factory=list)

    def add(self, *parts: Part) -> "Shape":
        self.parts.extend(parts)
        return self

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        v = np.concatenate([p.v for p in self.parts])
        return v.min(0), v.max(0)

    def scaled(self, s: float) -> "Shape":
        return Shape([Part(p.v * s, p.t, p.c) for p in self.parts],
                     [Label(lb.corners * s, lb.texture) for lb in self.labels])

    def meshes(self, id: int, yaw: float = 0.0, position=(0.0, 0.0, 0.0)) -> list[Mesh]:
        R = rot_z(yaw)
        p = merge(self.parts).moved(R, position)
        out = [Mesh(p.v.astype(np.float32), p.t, id, colors=p.c)]
        for lb in self.labels:
            out.append(quad_mesh(np.asarray(lb.corners) @ R.T + np.asarray(position, float), id,
                                 texture=lb.texture))
        return out

    def triangles(self) -> int:
        return sum(len(p.t) for p in self.parts) + 2 * len(self.labels)


# ---------------------------------------------------------------- colour patterns
def seams(base: Color, line: Color, width: float = 0.08, kind: str = "basketball"):
    """Seam lines on a ball (local coordinates over its radius): a basketball's eight
    curves, a tennis ball's or baseball's wavy seam, a volleyball's panels."""
    if callable(base):
        return base
    base, line = np.asarray(base, float), np.asarray(line, float)

    def f(v):
        n = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
        if kind == "basketball":
            m = (np.abs(n[:, 0]) < width) | (np.abs(n[:, 2]) < width) | \
                (np.abs(np.abs(n[:, 1]) - 0.7) < width * 0.8)
        elif kind == "tennis":
            az = np.arctan2(n[:, 1], n[:, 0])
            m = np.abs(n[:, 2] - 0.55 * np.sin(2 * az)) < width
        elif kind == "volleyball":
            m = (np.abs(n[:, 0]) < width / 2) | (np.abs(n[:, 1]) < width / 2) | (np.abs(n[:, 2]) < width / 2)
            third = (np.abs(n[:, 0]) > np.abs(n[:, 1])) & (np.abs(n[:, 0]) > np.abs(n[:, 2]))
            return np.where(m[:, None], line, np.where(third[:, None], base * 0.85 + 30, base))
        else:   # soccer: dark pentagon-like patches around the icosahedron's vertices
            g = (1 + 5 ** 0.5) / 2
            ico = np.array([[0, 1, g], [0, -1, g], [0, 1, -g], [0, -1, -g], [1, g, 0], [-1, g, 0],
                            [1, -g, 0], [-1, -g, 0], [g, 0, 1], [-g, 0, 1], [g, 0, -1], [-g, 0, -1]], float)
            ico /= np.linalg.norm(ico, axis=1, keepdims=True)
            m = (n @ ico.T).max(1) > 0.93
        return np.where(m[:, None], line, base)
    return f


def stripes(a: Color, b: Color, period: float = 0.04, axis: int = 2):
    if callable(a):
        return a          # a pattern given as the colour wins
    a, b = np.asarray(a, float), np.asarray(b, float)
    return lambda v: np.where((np.floor(v[:, axis] / period) % 2 == 0)[:, None], a, b)


def dots(a: Color, b: Color, period: float = 0.03):
    if callable(a):
        return a          # a pattern given as the colour wins
    a, b = np.asarray(a, float), np.asarray(b, float)

    def f(v):
        q = np.mod(v / period, 1.0) - 0.5
        return np.where((np.linalg.norm(q, axis=1) < 0.3)[:, None], b, a)
    return f


def checks(a: Color, b: Color, period: float = 0.04):
    if callable(a):
        return a          # a pattern given as the colour wins
    a, b = np.asarray(a, float), np.asarray(b, float)
    return lambda v: np.where(((np.floor(v[:, 0] / period) + np.floor(v[:, 1] / period) +
                                np.floor(v[:, 2] / period)) % 2 == 0)[:, None], a, b)


def grain(base: Color, amp: float = 18.0, period: float = 0.02):
    """Wood-like bands."""
    if callable(base):
        return base
    base = np.asarray(base, float)
    return lambda v: base + amp * np.sin(v[:, 2] / period + 3 * np.sin(v[:, 0] / (3 * period)))[:, None]
