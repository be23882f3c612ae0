"""Scene description: static parts (floor, walls, furniture, buildings, carts).

A scene knows nothing about world processes, objects or agents; tasks compose it with
those (DESIGN.md, "one world, three benchmarks").
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hazard_sim.geometry import Box

WALL_HEIGHT = 2.5
WALL_THICKNESS = 0.1

#: part kinds that block motion (and enter the physics engine as static geoms)
SOLID_KINDS = ("wall", "furniture", "building", "cart", "tree")


@dataclass
class Part:
    name: str
    kind: str               # floor | road | wall | furniture | building | cart | tree
    box: Box
    color: tuple[int, int, int]
    surface: bool = False   # objects may rest on its top

    @property
    def solid(self) -> bool:
        return self.kind in SOLID_KINDS


@dataclass
class Scene:
    name: str
    kind: str                                  # indoor | outdoor
    bounds: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax (m)
    parts: list[Part] = field(default_factory=list)
    rooms: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)
    meshes: list = field(default_factory=list)  # static render meshes (hazard_sim.render.mesh.Mesh) besides parts

    def solids(self) -> list[Part]:
        return [p for p in self.parts if p.solid]

    def surfaces(self) -> list[Part]:
        return [p for p in self.parts if p.surface]

    def carts(self) -> list[Part]:
        return [p for p in self.parts if p.kind == "cart"]

    def part(self, name: str) -> Part:
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(f"scene {self.name!r} has no part {name!r}")

    def contains(self, xy) -> bool:
        x0, y0, x1, y1 = self.bounds
        return x0 <= xy[0] <= x1 and y0 <= xy[1] <= y1


def floor_part(bounds, color=(200, 190, 170), name="floor") -> Part:
    x0, y0, x1, y1 = bounds
    return Part(name, "floor", Box.from_yaw(((x0 + x1) / 2, (y0 + y1) / 2, -0.05),
                                            ((x1 - x0) / 2, (y1 - y0) / 2, 0.05)), color)


def wall_segments(name: str, a, b, doors=(), height=WALL_HEIGHT, color=(235, 235, 225)) -> list[Part]:
    """Axis-aligned wall from ``a`` to ``b`` (2-D points), with door gaps.

    ``doors`` is a sequence of (centre along the wall from ``a`` in m, width m).
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    length = float(np.linalg.norm(b - a))
    u = (b - a) / length
    cuts = sorted((c - w / 2, c + w / 2) for c, w in doors)
    spans, s = [], 0.0
    for lo, hi in cuts:
        if lo > s:
            spans.append((s, lo))
        s = max(s, hi)
    if s < length:
        spans.append((s, length))
    horizontal = abs(u[0]) > abs(u[1])
    parts = []
    for k, (lo, hi) in enumerate(spans):
        # the wall's own ends overlap the crossing wall by half a thickness; door sides do not
        lo_ext = lo - (WALL_THICKNESS / 2 if lo <= 0 else 0.0)
        hi_ext = hi + (WALL_THICKNESS / 2 if hi >= length else 0.0)
        mid = a + u * (lo_ext + hi_ext) / 2
        half_len = (hi_ext - lo_ext) / 2
        half = (half_len, WALL_THICKNESS / 2, height / 2) if horizontal else \
            (WALL_THICKNESS / 2, half_len, height / 2)
        parts.append(Part(f"{name}_{k}", "wall", Box.from_yaw((mid[0], mid[1], height / 2), half), color))
    return parts


def block(name: str, kind: str, x, y, sx, sy, h, color, surface=False, yaw=0.0) -> Part:
    """A furniture / building block standing on the ground with footprint sx x sy."""
    return Part(name, kind, Box.from_yaw((x, y, h / 2), (sx / 2, sy / 2, h / 2), yaw), color, surface)
